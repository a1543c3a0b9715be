#!/usr/bin/env bash
# SMPI's two privatizations side by side (docs/simulate.md, "Memory"): the same SUMMA run with
# relay-smpi loaded once per rank (dlopen) and once for all ranks (mmap), both at once on a
# 2-core host. Needs vm.max_map_count of at least 1,048,576 for 4,096 ranks.
# Usage: run.sh RELAY OUT
set -euo pipefail
relay=$1 out=$2
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
for ranks_n in 1024:16384 4096:32768; do
  ranks=${ranks_n%%:*} n=${ranks_n##*:}
  for priv in dlopen mmap; do
    "$relay" simulate --platform ktorus4096 --np "$ranks" --privatization "$priv" -- \
      bench gemm --n "$n" --block 512 --schemes binomial --lookahead 1 --reps 1 \
      --json "$out/p${ranks}_$priv.json" >"$out/p${ranks}_$priv.txt" 2>&1 &
  done
  wait
done
