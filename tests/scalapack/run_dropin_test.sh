#!/usr/bin/env bash
# The drop-in test of librelay_scalapack (issue 3): an unchanged ScaLAPACK program
#   1. as built (Debian ScaLAPACK): correct results, relay's p?gemm not involved;
#   2. with librelay_scalapack preloaded: correct results, and relay's log shows its pdgemm_
#      ran -- for the direct call and for the calls pdgesv_ makes inside ScaLAPACK -- and its
#      pdsyrk_ for the calls pdposv_ makes;
#   3. linked with librelay_scalapack before ScaLAPACK: the same without preloading;
#   4. preloaded, an invalid MB_A gives PBLAS's INFO -1005 on every process, printed as
#      ScaLAPACK's PB_Cabort prints it ("Parameter number 1005 had an illegal value";
#      RELAY_SCALAPACK_ON_ERROR=return, so the program goes on); pdsyrk_'s UPLO = 'X' parameter
#      1, its MB_A = 0 INFO -905.
# Usage: run_dropin_test.sh MPIEXEC NP NPROW NPCOL DROPIN DROPIN_LINKED LIBRELAY_SCALAPACK [mpiexec flags...]
set -uo pipefail
mpiexec=$1 np=$2 nprow=$3 npcol=$4 dropin=$5 linked=$6 lib=$7
shift 7
flags=("$@")
out=$(mktemp)
logs=$(mktemp -d)
trap 'rm -rf "$out" "$logs"' EXIT
fail() { echo "FAIL: $*"; echo "--- output ---"; cat "$out" "$logs"/stderr.* 2>/dev/null; exit 1; }
# Each process's stderr (relay's log lines) goes to a file of its own: mpiexec forwards output in
# 4096-byte reads, so in one stream a line of one process can be continued by another's, and
# the order between processes is not kept (a marker of rank 0 says nothing of the others).
run() {
  rm -f "$logs"/stderr.*
  timeout 120 "$mpiexec" -n "$np" "${flags[@]}" sh -c 'exec "$@" 2>"$0/stderr.$$"' "$logs" "$@" \
    >"$out" 2>&1
}
stderr_files() { ls "$logs"/stderr.* 2>/dev/null; }

run env RELAY_LOG=1 "$dropin" "$nprow" "$npcol" || fail "plain run exited $?"
grep -q "dropin: results correct" "$out" || fail "plain run: wrong results"
cat "$out" $(stderr_files) | grep "relay's p?gemm" >/dev/null && fail "plain run: relay's pdgemm_ ran without preloading"
echo "1. Debian ScaLAPACK alone: results correct"

run env LD_PRELOAD="$lib" RELAY_LOG=1 "$dropin" "$nprow" "$npcol" || fail "preloaded run exited $?"
grep -q "dropin: results correct" "$out" || fail "preloaded run: wrong results"
[ "$(stderr_files | wc -l)" -eq "$np" ] || fail "preloaded: expected $np process logs"
before=0 after=0
for f in $(stderr_files); do  # every process: its pdgemm_ before the marker and inside pdgesv_
  b=$(sed -n '1,/== pdgesv ==/p' "$f" | grep -c "relay PDGEMM")
  a=$(sed -n '/== pdgesv ==/,/== pdposv ==/p' "$f" | grep -c "relay PDGEMM")
  s=$(sed -n '/== pdposv ==/,$p' "$f" | grep -c "relay PDSYRK")
  [ "$s" -ge 1 ] || fail "preloaded: relay's pdsyrk_ did not run inside pdposv_ on a process"
  grep -q "== pdgesv ==" "$f" || fail "preloaded: a process did not reach pdgesv_ ($f)"
  [ "$b" -ge 1 ] || fail "preloaded: relay's pdgemm_ did not run for the direct call on a process"
  [ "$a" -ge 1 ] || fail "preloaded: relay's pdgemm_ did not run inside pdgesv_ on a process"
  before=$((before + b)) after=$((after + a))
done
echo "2. preloaded: results correct; relay's pdgemm_ ran $before times for the direct call and $after times inside pdgesv_ (every process both), its pdsyrk_ inside pdposv_"
cat "$out" $(stderr_files) | grep "pdgemm max error\|pdgesv info\|pdposv info" | sort | head -6
# The drop-in takes relay's automatic choice among 2D, 2.5D and 3D (its default), and says so.
if [ $((nprow * npcol)) -ge 4 ]; then
  cat $(stderr_files) | grep "gemm: auto, " >/dev/null || fail "preloaded: no automatic choice logged"
  run env LD_PRELOAD="$lib" RELAY_LOG=1 "$dropin" "$nprow" "$npcol" gemm 96 8 ||
    fail "preloaded large pdgemm_ exited $?"
  grep -q "dropin: results correct" "$out" || fail "preloaded large pdgemm_: wrong results"
  cat $(stderr_files) | grep "gemm: auto, 96x96x96" >/dev/null || fail "preloaded large pdgemm_: no automatic choice logged"
  echo "2b. preloaded: relay's automatic choice made for the drop-in's calls: $(cat $(stderr_files) | grep -o 'gemm: [^,]*(auto)' | head -1)"
fi

run env RELAY_LOG=1 "$linked" "$nprow" "$npcol" || fail "linked run exited $?"
grep -q "dropin: results correct" "$out" || fail "linked run: wrong results"
for f in $(stderr_files); do
  grep -q "relay PDGEMM" "$f" || fail "linked: relay's pdgemm_ did not run on a process"
done
echo "3. linked before ScaLAPACK: results correct, relay's pdgemm_ ran"

run env LD_PRELOAD="$lib" RELAY_SCALAPACK_ON_ERROR=return "$dropin" "$nprow" "$npcol" bad ||
  fail "invalid-argument run exited $?"
n=$(cat "$out" $(stderr_files) | grep -c "Parameter number 1005 had an illegal value")
[ "$n" -eq "$np" ] || fail "expected PBLAS's error on all $np processes, got $n"
[ "$(cat "$out" $(stderr_files) | grep -c 'returned from the invalid call')" -eq "$np" ] ||
  fail "not every process returned"
echo "4. invalid MB_A: PBLAS INFO -1005 ('Parameter number 1005', as ScaLAPACK prints it) on all $np processes"
n=$(cat "$out" $(stderr_files) | grep -A1 "Parameter number 1 had an illegal value" | grep -c "in routine 'PDSYRK'")
[ "$n" -eq "$np" ] || fail "pdsyrk_ UPLO = 'X': expected PBLAS's error on all $np processes, got $n"
n=$(cat "$out" $(stderr_files) | grep -A1 "Parameter number 905 had an illegal value" |
  grep -c "in routine 'PDSYRK'")
[ "$n" -eq "$np" ] || fail "pdsyrk_ MB_A = 0: expected PBLAS's error on all $np processes, got $n"
[ "$(cat "$out" $(stderr_files) | grep -c 'returned from the invalid pdsyrk_ calls')" -eq "$np" ] ||
  fail "not every process returned from pdsyrk_"
echo "5. pdsyrk_: UPLO = 'X' gives INFO -1, MB_A = 0 INFO -905, on all $np processes"
# The INFO of each invalid argument as ScaLAPACK's own pdsyrk_ reports it (it aborts the run)
# and as relay's does (told to return).
for case in 1 2 3 4 5 6 7; do
  run "$dropin" "$nprow" "$npcol" syrk-bad "$case"
  theirs=$(cat "$out" $(stderr_files) | grep -o "Parameter number [0-9]*" | sort -u)
  run env LD_PRELOAD="$lib" RELAY_SCALAPACK_ON_ERROR=return "$dropin" "$nprow" "$npcol" syrk-bad "$case" ||
    fail "relay's pdsyrk_, invalid case $case: exited $?"
  ours=$(cat "$out" $(stderr_files) | grep -o "Parameter number [0-9]*" | sort -u)
  [ -n "$theirs" ] && [ "$ours" = "$theirs" ] ||
    fail "pdsyrk_ invalid case $case: ScaLAPACK says '$theirs', relay '$ours'"
  printf '%s; ' "$case: ${ours#Parameter number }"
done
echo
echo "6. pdsyrk_'s INFO equals ScaLAPACK's own for an invalid UPLO, TRANS, N, K, IA, MB_A, MB_C"
echo "PASS"
