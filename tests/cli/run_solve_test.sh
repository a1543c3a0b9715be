#!/usr/bin/env bash
# relay bench solve (issue 31): ScaLAPACK's own pdgesv, pdposv and pdgels run with ScaLAPACK's
# pdgemm_ and pdsyrk_ and with relay's in one process. Checks that the runs are served as
# labelled (relay's rows: every p?gemm_ and p?syrk_ call by relay; ScaLAPACK's: none), that the solutions are as accurate
# either way, on sizes the block does not divide and on two grids, that the JSON follows its
# schema and the plot is drawn, and that bad arguments are refused on every rank, naming the
# option (exit 2).
# Usage: run_solve_test.sh RELAY SCHEMAS_DIR MPIEXEC [mpiexec flags...]
relay=$1 schemas=$2 mpiexec=$3
shift 3
. "$(dirname "$0")/../cli_test_common.sh"

run() {  # ranks, relay arguments...
  local ranks=$1
  shift
  timeout 240 "$mpiexec" -n "$ranks" "${flags[@]}" "$relay" "$@" >"$out" 2>&1
}
flags=("$@")

check_json() {  # file, grid, relay's path: forced (every call) or auto (one node: none of LU's)
  python3 - "$1" "$2" "$schemas/relay-bench-solve.schema.json" "$3" <<'PY'
import json, sys
import jsonschema
doc = json.load(open(sys.argv[1]))
jsonschema.validate(doc, json.load(open(sys.argv[3])), cls=jsonschema.Draft202012Validator)
rows = doc["rows"]
assert sorted((r["solver"], r["pgemm_by"]) for r in rows) == sorted(
    (s, b) for s in ("lu", "cholesky", "qr") for b in ("relay", "scalapack")), rows
for r in rows:
    assert r["grid"] == sys.argv[2], r
    assert r["time_s"] > 0 and len(r["times_s"]) == 2, r
    # ScaLAPACK's own check passes at its usual threshold (its tests use 16 with n eps).
    assert r["residual"] < 16, r
    # The machine's CPU share (/proc/stat), where the solve was long enough to read it.
    assert 0 <= r.get("machine_cpu_busy", 0) <= 1, r
    if r["pgemm_by"] == "scalapack":
        assert r["pgemm_calls_by_relay"] == 0 and r["vs_scalapack"] == 1.0, r
    elif sys.argv[4] == "forced":
        assert r["pgemm_calls_by_relay"] == r["pgemm_calls"], r
    else:  # pdgesv's pdgemm_ calls are one panel step (k = NB) and the grid is on one node
        assert r["pgemm_calls_by_relay"] == 0, r
pair = {(r["solver"], r["pgemm_by"]): r for r in rows}
# pdgesv updates the trailing matrix with pdgemm_, pdposv (pdpotrf) with pdsyrk_: relay served
# those calls (its p?syrk_ updates one triangle: "2d triangle L").
for solver, config in (("lu", ("2d", "2.5d", "3d")), ("cholesky", ("2d triangle L",))):
    by_relay, by_scalapack = pair[(solver, "relay")], pair[(solver, "scalapack")]
    assert by_relay["pgemm_calls"] > 0, by_relay
    assert by_relay["pgemm_calls"] == by_scalapack["pgemm_calls"], rows
    if sys.argv[4] == "forced":
        assert by_relay["relay_config"].startswith(config), by_relay
    elif solver == "lu":
        assert by_relay["relay_config"] == "ScaLAPACK's own: one panel step on one node", by_relay
    else:  # the automatic path hands every p?syrk_ call to ScaLAPACK's own
        assert by_relay["relay_config"] == "ScaLAPACK's own: relay's p?syrk_ is not faster", by_relay
    ratio = by_relay["residual"] / by_scalapack["residual"]
    assert 0.1 <= ratio <= 10, (solver, by_relay["residual"], by_scalapack["residual"])
# pdgels multiplies with local DGEMM: no call reaches the drop-in.
assert pair[("qr", "relay")]["pgemm_calls"] == 0, rows
PY
}

RELAY_SCALAPACK_FORWARD=relay run 4 bench solve --n 301 --block 32 --reps 2 \
  --json "$work/solve.json" || fail "relay bench solve at 4 ranks exited $?"
grep -q "^# relay bench solve: .*grid 2x2, block 32" "$out" || fail "no header"
grep -Eq "^lu +301 relay .* 9/9 .* nb=32 " "$out" || fail "no LU row served by relay"
grep -Eq "^cholesky +301 scalapack .* 0/9 " "$out" || fail "no Cholesky row served by ScaLAPACK"
grep -Eq "^cholesky +301 relay .* 9/9 " "$out" || fail "no Cholesky row served by relay (p?syrk_)"
grep -q "Pkg(J)" "$out" || fail "no energy columns"
grep -q "^# qr n=301: pdgels made no p?gemm_ or p?syrk_ call; both rows ran the same code" "$out" ||
  fail "no note that QR does not reach the drop-in"
grep -q "^# relay's drop-in, lu n=301, its last call: 2d" "$out" || fail "relay's configuration not said"
grep -q "^# relay's drop-in, cholesky n=301, its last call: 2d triangle L" "$out" ||
  fail "relay's p?syrk_ configuration not said"
check_json "$work/solve.json" 2x2 forced || fail "JSON (2x2)"
echo "1. 4 ranks, 2x2, n = 301, block 32: every solver with ScaLAPACK's and relay's pdgemm_ and pdsyrk_ (forced)"

run 4 bench solve --n 301 --block 32 --reps 2 --solvers lu,cholesky,qr --json "$work/auto.json" ||
  fail "relay bench solve (auto) exited $?"
grep -Eq "^lu +301 relay .* 0/9 " "$out" || fail "auto: LU's calls not handed to ScaLAPACK"
grep -q "^# relay's drop-in, lu n=301, its last call: ScaLAPACK's own: one panel step on one node" \
  "$out" || fail "auto: the reason is not said"
grep -Eq "^cholesky +301 relay .* 0/9 " "$out" || fail "auto: p?syrk_ not handed to ScaLAPACK"
grep -q "^# relay's drop-in, cholesky n=301, its last call: ScaLAPACK's own: relay's p?syrk_ is not faster" \
  "$out" || fail "auto: the reason for p?syrk_ is not said"
check_json "$work/auto.json" 2x2 auto || fail "JSON (2x2, auto)"
echo "1b. the default: one panel step on one node served by ScaLAPACK's own, p?syrk_ too, said"

plot=()
if python3 -c "import matplotlib" 2>/dev/null; then plot=(--plot "$work/solve.png"); fi
RELAY_SCALAPACK_FORWARD=relay run 4 bench solve --n 257 --block 16 --grid 1x4 --reps 2 \
  --warmup 0 --quiet --json "$work/solve14.json" "${plot[@]}" ||
  fail "relay bench solve on 1x4 exited $?"
check_json "$work/solve14.json" 1x4 forced || fail "JSON (1x4)"
if [ ${#plot[@]} -gt 0 ]; then
  [ -s "$work/solve.png" ] || fail "no plot"
fi
echo "2. 1x4, n = 257, block 16, no warm-up: the same, plot drawn"

RELAY_SCALAPACK_FORWARD=relay run 1 bench solve --n 100 --block 8 --solvers lu --reps 1 --quiet ||
  fail "one rank exited $?"
grep -Eq "^lu +100 relay " "$out" || fail "no row at one rank"
echo "3. one rank"

# Bad arguments: exit 2 on every rank, the option named once.
expect_usage() {  # pattern, relay arguments...
  local pattern=$1
  shift
  run 4 bench solve "$@"
  local rc=$?
  [ "$rc" -eq 2 ] || fail "relay bench solve $* exited $rc, not 2"
  grep -q -- "$pattern" "$out" || fail "relay bench solve $*: the error does not say '$pattern'"
}
expect_usage "--grid 3x3 needs 9 ranks" --grid 3x3 --n 64
expect_usage "--solvers" --solvers lu,svd --n 64
expect_usage "--n" --n 0
expect_usage "--block" --block 0
expect_usage "--plot" --n 64 --plot "$work/x.png"
echo "4. bad arguments refused: grid, solver, size, block, --plot without --json"
echo "PASS: relay bench solve"
