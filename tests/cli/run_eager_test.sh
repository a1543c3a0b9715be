#!/usr/bin/env bash
# relay bench eager (issue 31): launches relay bench bcast once per eager limit and round with
# the MPI library's eager-limit variables set, and prints per configuration the time under each
# limit and the spread; with --gemm the same for relay bench gemm. Checks both tables, that the
# limits reached the launched runs (the JSON names the variables, every row has a time per
# limit), the JSON schema, and that bad arguments (one limit, a zero limit, an algorithm relay
# bench bcast refuses, a grid relay bench gemm refuses) exit 2 with the reason.
# Usage: run_eager_test.sh RELAY SCHEMAS_DIR MPIEXEC [mpiexec flags...]
relay=$1 schemas=$2 mpiexec=$3
shift 3
. "$(dirname "$0")/../cli_test_common.sh"
launcher=(--mpirun "$mpiexec")
for f in "$@"; do launcher+=("--mpirun-flag=$f"); done

run() { timeout 300 "$relay" bench eager "${launcher[@]}" "$@" >"$out" 2>&1; }

run --np 2 --limits 4KiB,1MiB --sizes 64KiB --segments 16KiB --rounds 2 --min-time 0.01 \
  --gemm 96 --gemm-grid 1x2 --gemm-block 16 --gemm-reps 1 --json "$work/eager.json" ||
  fail "relay bench eager exited $?"
grep -q "^# relay bench eager: broadcasts on 2 ranks under eager limits 4KiB,1MiB" "$out" ||
  fail "no header"
for row in "pipeline +blocking +16KiB +64KiB" "pipeline +nonblocking" "mpi +-" \
  "blocking_chain +blocking +16KiB" "hand_loop +nonblocking"; do
  grep -Eq "^$row .* [0-9.]+%$" "$out" || fail "no row '$row' with a spread"
done
grep -q "relay bench eager \[4/4\]: eager limit" "$out" || fail "no progress"
grep -q "^# the GEMM under the same limits: relay bench gemm --grid 1x2 --block 16" "$out" ||
  fail "no GEMM table"
for row in "scalapack +pdgemm +0 +96" "2d +pipeline-nonblocking +1 +96" "2d +mpi +1 +96"; do
  grep -Eq "^$row .* [0-9.]+%$" "$out" || fail "no GEMM row '$row' with a spread"
done
python3 - "$work/eager.json" "$schemas/relay-bench-eager.schema.json" <<'PY' || fail "JSON"
import json, sys
import jsonschema
doc = json.load(open(sys.argv[1]))
jsonschema.validate(doc, json.load(open(sys.argv[2])), cls=jsonschema.Draft202012Validator)
assert doc["eager_limits_bytes"] == [4096, 1048576] and doc["rounds"] == 2, doc
assert doc["variables"], doc["variables"]
assert len(doc["rows"]) == 5, [r["algorithm"] for r in doc["rows"]]
for r in doc["rows"]:
    assert [l["eager_limit_bytes"] for l in r["limits"]] == [4096, 1048576], r
    assert all(len(l["rounds_us"]) == 2 and l["avg_us"] > 0 for l in r["limits"]), r
    times = [l["avg_us"] for l in r["limits"]]
    assert abs(r["spread"] - (max(times) - min(times)) / min(times)) < 1e-9, r
gemm = doc["gemm_rows"]
assert [(r["algorithm"], r["scheme"], r["lookahead"]) for r in gemm] == [
    ("scalapack", "pdgemm", 0), ("2d", "pipeline-nonblocking", 1), ("2d", "mpi", 1)], gemm
for r in gemm:
    assert r["n"] == 96 and r["grid"] == "1x2" and r["block"] == 16, r
    assert [l["eager_limit_bytes"] for l in r["limits"]] == [4096, 1048576], r
    assert all(len(l["rounds_s"]) == 2 and l["time_s"] > 0 for l in r["limits"]), r
    times = [l["time_s"] for l in r["limits"]]
    assert abs(r["spread"] - (max(times) - min(times)) / min(times)) < 1e-9, r
PY
echo "1. two limits, two rounds: every broadcast and GEMM configuration timed under each, spread printed"

expect_usage() {  # pattern, arguments...
  local pattern=$1
  shift
  run "$@"
  local rc=$?
  [ "$rc" -eq 2 ] || fail "relay bench eager $* exited $rc, not 2"
  grep -q -- "$pattern" "$out" || fail "relay bench eager $*: the error does not say '$pattern'"
}
expect_usage "at least two eager limits" --limits 4KiB
expect_usage "more than 0 bytes" --limits 0,4KiB
expect_usage "broadcast algorithm" --np 2 --limits 4KiB,8KiB --sizes 1KiB --algorithms nosuch \
  --rounds 1
expect_usage "relay bench gemm under eager limit" --np 2 --limits 4KiB,8KiB --sizes 1KiB \
  --rounds 1 --min-time 0.01 --gemm 64 --gemm-grid 3x3
echo "2. bad arguments refused: one limit, a zero limit, an unknown algorithm, a grid that does not hold the ranks (from the launched runs)"
echo "PASS: relay bench eager"
