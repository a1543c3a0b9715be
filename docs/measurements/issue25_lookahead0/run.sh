#!/bin/sh
# The same SUMMA under relay simulate with look-ahead 0 and 1, side by side (one core each),
# to compare the host time each costs (simulated times differ: they are different schedules).
# Usage: run.sh RELAY OUT [RANKS] [N] [BLOCK]   (RELAY_SIMULATE_RELAY: a copy of relay-smpi)
set -eu
relay=$1 out=$2 ranks=${3:-4096} n=${4:-16384} block=${5:-256}
mkdir -p "$out"
for L in 0 1; do
  "$relay" simulate --platform ktorus4096 --np "$ranks" -- bench gemm --n "$n" --block "$block" \
    --schemes binomial --lookahead "$L" --reps 1 --quiet > "$out/p${ranks}_n${n}_b${block}_L$L.txt" 2>&1 &
done
wait
grep -H -E "^2d|simulation cost" "$out"/p"${ranks}"_n"${n}"_b"${block}"_L*.txt
