#!/usr/bin/env bash
# Every JSON document relay writes has a schema (schemas/*.schema.json, installed with relay) and
# follows it: each command that writes JSON runs small and its output is validated (draft
# 2020-12, python3-jsonschema); a document broken on purpose must fail, so the check can fail;
# every "schema" name the sources write must have its schema file.
# Usage: run_schema_test.sh MPIEXEC RELAY SOURCE_DIR [mpiexec flags...]
set -uo pipefail
mpiexec=$1 relay=$2 source=$3
shift 3
flags=("$@")
. "$(dirname "$0")/../cli_test_common.sh"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
run2() { timeout 300 "$mpiexec" -n 2 "${flags[@]}" "$relay" "$@" >"$out" 2>&1 || fail "relay $*: exited $?"; }
run1() { timeout 300 "$relay" "$@" >"$out" 2>&1 || fail "relay $*: exited $?"; }
cd "$work" || exit 1
run2 bench bcast --sizes 1KiB --algorithms binomial,auto,mpi --segments 0 --min-time 0.01 --quiet \
  --confirm 1 --confirm-rounds 2 --json bcast.json
run2 bench bcast -m 1:8 --osu -i 5 -x 1 --algorithms mpi --baselines none --quiet --json bcast_osu.json
run2 model measure --sizes 1KiB,64KiB --max-seconds 0.02 --quiet --output params.json
run2 bench coll --operation allreduce --sizes 1KiB --algorithms ring,mpi --segments 0 --min-time 0.01 \
  --quiet --model params.json --json coll.json
run2 bench gemm --n 256 --block 32 --reps 1 --schemes binomial --quiet --json gemm.json
run2 bench overlap --sizes 64KiB --min-time 0.01 --quiet --json overlap.json
run1 bench symm --n 64 --reps 1 --json symm.json
run1 purify --model chain --n 64 --json purify.json
run1 model predict --params params.json --ranks 4 --sizes 64KiB --algorithms binomial \
  --policies blocking --segments 0 --json predict.json
run1 model gemm --params params.json --grid 4x4 --n 512 --gflops 10 --json model_gemm.json
run2 tune --operation bcast --sizes 64KiB --methods model --table-method model --params params.json \
  --output table.json --json tune.json --quiet
run2 tune --for-gemm --n 64 --block 8 --reps 1 --algorithms binomial,pipeline --segments 1KiB \
  --output gemm_table.json --json tune_gemm.json --quiet
python3 - "$source/schemas" "$source/src" <<'PY' || fail "a document does not follow its schema"
import json, pathlib, re, sys
import jsonschema
schemas = pathlib.Path(sys.argv[1])
by_name = {}
for f in schemas.glob("*.schema.json"):
    s = json.loads(f.read_text())
    jsonschema.Draft202012Validator.check_schema(s)
    by_name[s["properties"]["schema"]["const"]] = s
written = {"bcast.json": "relay.bench.bcast/1", "bcast_osu.json": "relay.bench.bcast/1",
           "coll.json": "relay.bench.coll/1", "gemm.json": "relay.bench.gemm/1",
           "overlap.json": "relay.bench.overlap/1", "symm.json": "relay.bench.symm/1",
           "purify.json": "relay.purify/1", "params.json": "relay.model.params/1",
           "predict.json": "relay.model.predict/1", "model_gemm.json": "relay.model.gemm/1",
           "tune.json": "relay.tune/1",
           "table.json": "relay.tuning/1", "tune_gemm.json": "relay.tune.gemm/1",
           "gemm_table.json": "relay.tuning/1"}
for path, name in written.items():
    doc = json.loads(pathlib.Path(path).read_text())
    assert doc.get("schema") == name, f"{path}: schema {doc.get('schema')!r}, expected {name}"
    jsonschema.validate(doc, by_name[name], cls=jsonschema.Draft202012Validator)
    print(f"{path}: follows {name}")
# The check can fail: a measured time that is not a number, a missing schema name.
doc = json.loads(pathlib.Path("bcast.json").read_text())
doc["rows"][0]["avg_us"] = "fast"
try:
    jsonschema.validate(doc, by_name["relay.bench.bcast/1"], cls=jsonschema.Draft202012Validator)
    raise SystemExit("a row with avg_us = 'fast' passed")
except jsonschema.ValidationError:
    pass
doc = json.loads(pathlib.Path("gemm.json").read_text())
# The machine's CPU share, where a call was long enough to read it, is within [0, 1] (the
# cli_checks test runs one long enough to require it).
for row in doc["rows"]:
    assert 0 <= row.get("machine_cpu_busy", 0) <= 1, f"gemm.json: {row}"
bad = json.loads(json.dumps(doc))
bad["rows"][0]["machine_cpu_busy"] = 1.5
try:
    jsonschema.validate(bad, by_name["relay.bench.gemm/1"], cls=jsonschema.Draft202012Validator)
    raise SystemExit("a row with machine_cpu_busy = 1.5 passed")
except jsonschema.ValidationError:
    pass
del doc["schema"]
try:
    jsonschema.validate(doc, by_name["relay.bench.gemm/1"], cls=jsonschema.Draft202012Validator)
    raise SystemExit("a document without its schema name passed")
except jsonschema.ValidationError:
    pass
# Every schema name the sources write has a schema.
names = set()
for f in pathlib.Path(sys.argv[2]).rglob("*.cpp"):
    names |= set(re.findall(r'"(relay\.[a-z.]+/[0-9]+)"', f.read_text()))
for h in pathlib.Path(sys.argv[2]).rglob("*.hpp"):
    names |= set(re.findall(r'"(relay\.[a-z.]+/[0-9]+)"', h.read_text()))
missing = names - set(by_name)
assert not missing, f"schema names without a schema file: {sorted(missing)}"
print(f"{len(by_name)} schemas; every one of the {len(names)} schema names in src has one")
PY
echo "schemas: every JSON relay writes follows its schema"
