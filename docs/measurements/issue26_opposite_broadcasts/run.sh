#!/usr/bin/env bash
# Issue 26: two opposite broadcasts on 2 emulated nodes at 250 Mbit/s, relay's binomial against
# MPI_Ibcast and a plain send/receive pair, with librelay before and after the fix (nonblocking
# roots send at the call; relay_waitall advances paced operations in turn), the two builds
# alternating ROUNDS times in one run, with the cluster's default waits (RELAY_IDLE_SLEEP_US=20)
# and spinning ones (0). Needs a 2-node cluster: relay cluster --name two up --nodes 2 --rate 250mbit
#   OLD_LIB, NEW_LIB: directories holding librelay.so (build/src of each commit; the figures in
#   docs/gemm.md: OLD = 3c44bcc, NEW = 591b897)
# Usage: run.sh RELAY_CLI OLD_LIB NEW_LIB OUTDIR [ROUNDS]
set -euo pipefail
relay=$1 old=$2 new=$3 out=$4 rounds=${5:-3}
here=$(cd "$(dirname "$0")" && pwd)
include=$here/../../../include
mkdir -p "$out"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
for v in old new; do
  lib=${!v}
  mpicxx -O2 -I"$include" -I"$lib/../include" "$here/opposite_broadcasts.cpp" -o "$bin/opposite_$v" \
    -L"$lib" -lrelay -Wl,-rpath,"$lib"
done
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 RELAY_CLUSTER_NAME=two
for ((r = 1; r <= rounds; ++r)); do
  for sleep in 20 0; do
    for v in old new; do
      echo "# round $r, RELAY_IDLE_SLEEP_US=$sleep, librelay $v"
      RELAY_IDLE_SLEEP_US=$sleep "$relay" cluster run -- "$bin/opposite_$v" $((4 << 20)) 9
    done
  done
done | tee "$out/opposite_broadcasts.txt"
