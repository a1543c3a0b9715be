#!/usr/bin/env bash
# Host time of one simulated SUMMA with look-ahead, two relay-smpi builds side by side on a quiet
# 2-core host (one core each), through relay simulate (its settings, its host-cost line):
#   OLD: relay-smpi of fac948e (each later panel broadcast polled on its own between pieces)
#   NEW: relay-smpi of the commit that added this script (relay_progressall: one poll per
#        piece for all of them, leaves of the trees not polled)
# Usage: run.sh RELAY OLD_RELAY_SMPI NEW_RELAY_SMPI RANKS N BLOCK OUTDIR   (ktorus4096)
set -euo pipefail
relay=$1 old=$2 new=$3 ranks=$4 n=$5 block=$6 out=$7
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
run() {  # NAME BINARY
  RELAY_SIMULATE_RELAY=$2 "$relay" simulate --platform ktorus4096 --np "$ranks" -- bench gemm \
    --n "$n" --block "$block" --schemes binomial --lookahead 1 --reps 1 \
    >"$out/$1_p${ranks}_n${n}_b${block}.txt" 2>&1
}
run old "$old" &
run new "$new" &
wait
grep -H -E "^ *$n .*binomial|simulation cost" "$out"/*_p"${ranks}"_n"${n}"_b"${block}".txt
