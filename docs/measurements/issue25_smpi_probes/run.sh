#!/usr/bin/env bash
# Issue 25: the SMPI behaviours relay simulate works around, and the cost of the grid's
# communicators, each from a small MPI program run by smpirun (SimGrid 3.32), paired in one run.
# Usage: run.sh OUT_DIR [RANKS_FOR_GRID_COMMS]   (default 4096; 16384 needs vm.max_map_count
# of about 1,048,576 and takes about 8 minutes)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1 grid_ranks=${2:-4096}
mkdir -p "$out"
cd "$out"
for p in waitsome pingpong grid_comms first_collective; do smpicc -O1 "$here/$p.c" -o "$p"; done
seq 0 63 | sed "s/^/node-/" > hosts64
seq 0 $((grid_ranks - 1)) | sed "s/^/node-/" > hosts
plain=(--cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0
       --cfg=smpi/simulate-computation:no --log=root.thres:critical)
gige=("$here/../../../platforms/gige_64.xml")
echo "== MPI_Waitsome over 16 pre-posted 64 KiB receives: SMPI's default MPI_Test cost, then 0"
smpirun -np 2 -platform "${gige[0]}" -hostfile hosts64 "${plain[@]}" ./waitsome
smpirun -np 2 -platform "${gige[0]}" -hostfile hosts64 "${plain[@]}" --cfg=smpi/test:0 ./waitsome
echo "== ping-pong half round trips (gige64: 25 us per link, two links a message)"
smpirun -np 2 -platform "${gige[0]}" -hostfile hosts64 "${plain[@]}" ./pingpong
torus=$here/../../../platforms/k_torus_$grid_ranks.xml
for mode in split group; do
  /usr/bin/time -f "grid communicators by $mode, $grid_ranks ranks: %e s host wall, %M KB" \
    smpirun -np "$grid_ranks" -platform "$torus" -hostfile hosts "${plain[@]}" ./grid_comms "$mode"
done
echo "== the first MPI_Allreduce and MPI_Bcast on MPI_COMM_WORLD: SMPI's ompi selector, then the"
echo "   algorithms relay simulate names for them from 512 ranks (--coll-selector flat)"
for np in 256 512; do
  for op in allreduce bcast reduce barrier; do
    for sel in "--cfg=smpi/coll-selector:ompi" "--cfg=smpi/bcast:binomial_tree --cfg=smpi/allreduce:rdb"; do
      /usr/bin/time -f "   $np ranks, $sel: %e s host wall" \
        smpirun -np "$np" -platform "$torus" -hostfile hosts "${plain[@]}" $sel ./first_collective "$op"
    done
  done
done
