#!/usr/bin/env bash
# Host time of one simulated SUMMA before and after relay's bookkeeping allreduces became a
# reduction and a broadcast under SMPI (exec::allreduce, docs/simulate.md), the two run side by
# side on a quiet 2-core host (one core each), with the SMPI settings relay simulate uses.
#   OLD: relay-smpi built from commit 0c723ee
#   NEW: relay-smpi built from commit ee2e1a9
# Usage: run.sh OLD_RELAY_SMPI NEW_RELAY_SMPI RANKS N OUTDIR  (vm.max_map_count >= 1048576)
set -euo pipefail
old=$1 new=$2 ranks=$3 n=$4 out=$5
mkdir -p "$out"
platform=$(dirname "$0")/../../../platforms/k_torus_4096.xml
hosts=$(mktemp)
trap 'rm -f "$hosts"' EXIT
for ((i = 0; i < ranks; ++i)); do echo "node-$i:1"; done >"$hosts"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 RELAY_SIMULATE_PLATFORM="ktorus4096 (run.sh)"
common=(--cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0
  --cfg=smpi/simulate-computation:no --cfg=smpi/privatization:mmap --cfg=smpi/coll-selector:ompi
  --cfg=smpi/bcast:binomial_tree --cfg=smpi/allreduce:rdb --cfg=smpi/test:1e-07
  --cfg=smpi/iprobe:1e-07 --cfg=smpi/grow-injected-times:no --cfg=smpi/wtime:0
  --cfg=smpi/async-small-thresh:65536 --cfg=smpi/shared-malloc-blocksize:16777216
  --log=root.thres:warning)
bench=(bench gemm --n "$n" --block 512 --schemes binomial --lookahead 1 --reps 1 --quiet)
run() {  # NAME BINARY
  /usr/bin/time -f "host: %e s wall, %U s user, %S s system, %M KiB max resident" \
    smpirun -np "$ranks" -platform "$platform" -hostfile "$hosts" "${common[@]}" \
    "$2" "${bench[@]}" >"$out/$1_p${ranks}_n${n}.txt" 2>&1
}
run old "$old" &
run new "$new" &
wait
grep -H -E "^2d|^host:" "$out"/*_p"${ranks}"_n"${n}".txt
