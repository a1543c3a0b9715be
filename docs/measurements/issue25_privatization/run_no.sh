#!/usr/bin/env bash
# SMPI's mmap privatization against none (relay simulate --privatization no), side by side on a
# 2-core host, one core each: the same SUMMA, the same relay-smpi (RELAY_SIMULATE_RELAY, a copy:
# a rebuild rewrites build-smpi's in place). The simulated output must be identical; the host
# time and memory are what differ (docs/simulate.md, "Privatization").
# Usage: run_no.sh RELAY OUT [RANKS] [N] [BLOCK] [LOOKAHEAD]
set -euo pipefail
relay=$1 out=$2 ranks=${3:-4096} n=${4:-16384} block=${5:-256} lookahead=${6:-1}
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
name="p${ranks}_n${n}_b${block}_L${lookahead}"
for priv in mmap no; do
  "$relay" simulate --platform ktorus4096 --np "$ranks" --privatization "$priv" -- \
    bench gemm --n "$n" --block "$block" --schemes binomial --lookahead "$lookahead" --reps 1 \
    --quiet >"$out/${name}_$priv.txt" 2>&1 &
done
wait
grep -H -E "^2d|simulation cost" "$out/${name}"_*.txt
