#!/usr/bin/env bash
# The test example_dropin: relay_example_pdgesv (linked first) solves its system, and relay's
# pdgemm_ served the calls inside pdgesv on every process (RELAY_LOG; each process logs to its
# own file, as mpiexec interleaves streams).
# Usage: run_example.sh MPIEXEC PROGRAM [mpiexec flags...]
set -uo pipefail
mpiexec=$1 program=$2
shift 2
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
timeout 120 "$mpiexec" -n 2 "$@" env RELAY_LOG=1 sh -c 'exec "$@" 2>"$0/err.$$"' "$logs" "$program" ||
  { echo "FAIL: exited $?"; cat "$logs"/err.*; exit 1; }
for f in "$logs"/err.*; do
  grep -q "relay PDGEMM" "$f" || { echo "FAIL: relay's pdgemm_ did not run on a process"; exit 1; }
done
echo "relay's pdgemm_ ran on every process ($(cat "$logs"/err.* | grep -c "relay PDGEMM") calls)"
