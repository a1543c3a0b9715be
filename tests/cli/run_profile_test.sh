#!/usr/bin/env bash
# relay profile on an unchanged Fortran program that calls pdgesv_ and is linked with ScaLAPACK
# alone (issue 31, acceptance 2): relay's library is preloaded, every process reports its time in
# pdgemm_, the calls are grouped by shape and served by relay; with --forward scalapack the same
# calls are served by ScaLAPACK's own pdgemm_; the program's own check passes both times, its
# exit status is relay profile's, the JSON report has every process and it and the drop-in's
# record follow their schemas; a missing program fails.
# Usage: run_profile_test.sh RELAY PROGRAM MPIEXEC [mpiexec flags...]
relay=$1 program=$2 mpiexec=$3
shift 3
. "$(dirname "$0")/../cli_test_common.sh"

run() {  # ranks, relay profile options...
  local ranks=$1
  shift
  timeout 240 "$mpiexec" -n "$ranks" "$@" >"$out" 2>&1
}

for forward in relay scalapack; do
  run 4 "$@" "$relay" profile --forward "$forward" --dir "$work/records_$forward" \
    --json "$work/profile_$forward.json" -- "$program" || fail "relay profile --forward $forward exited $?"
  grep -q "pdgesv_only: solution correct" "$out" || fail "the program's solution is wrong ($forward)"
  grep -q "^# relay profile: .* on 4 processes" "$out" || fail "no header ($forward)"
  # One row per process: run time, time in p?gemm_ and a share.
  for r in 0 1 2 3; do
    grep -Eq "^$r +[0-9.]+ +[0-9.]+ +[0-9.]+% +[0-9]+ +0$" "$out" || fail "no row for process $r ($forward)"
  done
  grep -Eq "^PDGEMM +N[NT] +[0-9]+ +[0-9]+ +[0-9]+ +8x8 +[0-9]+ +1x4 +$forward " "$out" ||
    fail "no PDGEMM shape served by $forward"
  python3 - "$work/profile_$forward.json" "$forward" "$(dirname "$0")/../../schemas" \
    "$work/records_$forward" <<'PY' || fail "JSON report ($forward)"
import json, pathlib, sys
import jsonschema
doc = json.load(open(sys.argv[1]))
schemas = pathlib.Path(sys.argv[3])
validator = jsonschema.Draft202012Validator
jsonschema.validate(doc, json.load(open(schemas / "relay-profile.schema.json")), cls=validator)
calls = json.load(open(pathlib.Path(sys.argv[4]) / "calls.0.json"))
jsonschema.validate(calls, json.load(open(schemas / "relay-profile-calls.schema.json")),
                    cls=validator)
assert doc["schema"] == "relay.profile/1", doc["schema"]
assert len(doc["processes"]) == 4
assert doc["total"]["calls"] > 0 and doc["total"]["pgemm_s"] > 0
assert all(s["served_by"] == sys.argv[2] for s in doc["shapes"])
if sys.argv[2] == "relay":
    assert all(s["configs"] for s in doc["shapes"]), "relay's configuration is named"
PY
done

# The default (auto): on one node the drop-in hands the solver's one-panel-step updates (k = NB)
# to ScaLAPACK's own pdgemm_ and says so per shape.
run 4 "$@" "$relay" profile --dir "$work/records_auto" --json "$work/profile_auto.json" \
  -- "$program" || fail "relay profile (auto) exited $?"
grep -q "pdgesv_only: solution correct" "$out" || fail "the program's solution is wrong (auto)"
grep -Eq "^PDGEMM +N[NT] +[0-9]+ +[0-9]+ +8 +8x8 +8 +1x4 +scalapack .*one panel step on one node" "$out" ||
  fail "auto: the k = NB updates are not served by ScaLAPACK with the reason"
echo "auto: one panel step on one node served by ScaLAPACK's own, said per shape"

# A program that cannot run: its status (127), and a message.
run 2 "$@" "$relay" profile --dir "$work/records_missing" -- "$work/no-such-program"
rc=$?
[ "$rc" -ne 0 ] || fail "a missing program did not fail"
grep -q "cannot run" "$out" || fail "no message for a missing program"
# Usage errors exit 2.
timeout 30 "$relay" profile --forward mkl -- true >"$out" 2>&1
[ $? -eq 2 ] || fail "--forward mkl was not refused"
timeout 30 "$relay" profile >"$out" 2>&1
[ $? -eq 2 ] || fail "relay profile without a program was not refused"
echo "PASS: relay profile reports pdgemm_ time and shapes, served by relay and by ScaLAPACK"
