#!/usr/bin/env bash
# The drop-in test of librelay_scalapack (issue 3): an unchanged ScaLAPACK program
#   1. as built (Debian ScaLAPACK): correct results, relay's p?gemm not involved;
#   2. with librelay_scalapack preloaded: correct results, and relay's log shows its pdgemm_
#      ran -- for the direct call and for the calls pdgesv_ makes inside ScaLAPACK;
#   3. linked with librelay_scalapack before ScaLAPACK: the same without preloading;
#   4. preloaded, an invalid MB_A gives PBLAS's "parameter number 10, entry number 5" on every
#      process (RELAY_SCALAPACK_ON_ERROR=return, so the program goes on).
# Usage: run_dropin_test.sh MPIEXEC NP NPROW NPCOL DROPIN DROPIN_LINKED LIBRELAY_SCALAPACK [mpiexec flags...]
set -uo pipefail
mpiexec=$1 np=$2 nprow=$3 npcol=$4 dropin=$5 linked=$6 lib=$7
shift 7
flags=("$@")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; echo "--- output ---"; cat "$out"; exit 1; }
run() { timeout 120 "$mpiexec" -n "$np" "${flags[@]}" "$@" >"$out" 2>&1; }

run env RELAY_LOG=1 "$dropin" "$nprow" "$npcol" || fail "plain run exited $?"
grep -q "dropin: results correct" "$out" || fail "plain run: wrong results"
grep -q "relay's p?gemm" "$out" && fail "plain run: relay's pdgemm_ ran without preloading"
echo "1. Debian ScaLAPACK alone: results correct"

run env LD_PRELOAD="$lib" RELAY_LOG=1 "$dropin" "$nprow" "$npcol" || fail "preloaded run exited $?"
grep -q "dropin: results correct" "$out" || fail "preloaded run: wrong results"
before=$(sed -n '1,/== pdgesv ==/p' "$out" | grep -c "relay PDGEMM")
after=$(sed -n '/== pdgesv ==/,$p' "$out" | grep -c "relay PDGEMM")
[ "$before" -ge "$np" ] || fail "preloaded: relay's pdgemm_ did not run for the direct call"
[ "$after" -ge 1 ] || fail "preloaded: relay's pdgemm_ did not run inside pdgesv_"
echo "2. preloaded: results correct; relay's pdgemm_ ran $before times for the direct call and $after times inside pdgesv_"
grep "pdgemm max error\|pdgesv info" "$out" | sort | head -4

run env RELAY_LOG=1 "$linked" "$nprow" "$npcol" || fail "linked run exited $?"
grep -q "dropin: results correct" "$out" || fail "linked run: wrong results"
grep -q "relay PDGEMM" "$out" || fail "linked: relay's pdgemm_ did not run"
echo "3. linked before ScaLAPACK: results correct, relay's pdgemm_ ran"

run env LD_PRELOAD="$lib" RELAY_SCALAPACK_ON_ERROR=return "$dropin" "$nprow" "$npcol" bad ||
  fail "invalid-argument run exited $?"
n=$(grep -c "Parameter number 10, entry number 5 had an illegal value" "$out")
[ "$n" -eq "$np" ] || fail "expected PBLAS's error on all $np processes, got $n"
[ "$(grep -c 'returned from the invalid call' "$out")" -eq "$np" ] || fail "not every process returned"
echo "4. invalid MB_A: PBLAS INFO -1005 ('parameter number 10, entry number 5') on all $np processes"
echo "PASS"
