#!/usr/bin/env bash
# Host and simulated time of five MPI_Barrier on 1,024 and 4,096 ranks of ktorus4096 under SMPI
# 3.32, with the ompi selector's bruck barrier and with ompi_tree (docs/simulate.md, settings).
# Usage: run.sh OUT_DIR   (vm.max_map_count >= 1048576)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
smpicc -O2 "$here/barriers.c" -o "$build/barriers"
for np in 1024 4096; do
  for alg in ompi_bruck ompi_tree; do
    printf 'np=%s %s: ' "$np" "$alg"
    /usr/bin/time -f "%U s user %e s wall" smpirun -np "$np" \
      -platform "$here/../../../platforms/k_torus_4096.xml" --cfg=smpi/privatization:mmap \
      --cfg=smpi/barrier:$alg --cfg=smpi/coll-selector:ompi --log=root.thres:critical \
      "$build/barriers" 2>&1 | tail -2 | tr '\n' ' '
    echo
  done
done | tee "$out/barriers.txt"
