#!/usr/bin/env bash
# Issue 24 (no behaviour change): the same commands with relay before a step of the
# restructuring (BEFORE) and after it (AFTER), alternated in rounds on one quiet machine, 2 ranks.
# Runs: 906e447 against 2f8f5c0 (issue24_before_after.txt), c3a7508 against d79a5b2
# (issue24_before_after_traits.txt: the traits rows, the sweep and the model's judgement moved
# out of the command line).
# Usage: issue24_before_after.sh BEFORE_RELAY AFTER_RELAY OUT_DIR [ROUNDS]
set -euo pipefail
before=$1 after=$2 out=$3 rounds=${4:-3}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
run() {  # label relay args...
  local label=$1 relay=$2
  shift 2
  mpirun -np 2 "$relay" "$@"
}
# model predict needs no MPI and is deterministic: one parameter file, both binaries.
mpirun -np 2 "$after" model measure --output "$out/params.json" > "$out/model_measure.txt" 2>&1
for r in $(seq 1 "$rounds"); do
  for side in before after; do
    relay=$before
    [[ $side == after ]] && relay=$after
    tag="$side.r$r"
    echo "round $r: $side" >&2
    run "$tag" "$relay" bench bcast --sizes 8B,64KiB,1MiB,8MiB \
      --algorithms binomial,pipeline,scatter_allgather,auto --policies nonblocking \
      --segments 0,64KiB --baselines none --min-time 0.3 --quiet \
      --json "$out/bcast.$tag.json" > "$out/bcast.$tag.txt"
    run "$tag" "$relay" bench coll --operation allreduce --sizes 8B,64KiB,1MiB --algorithms all \
      --policies nonblocking --segments 0 --min-time 0.3 --quiet \
      --json "$out/allreduce.$tag.json" > "$out/allreduce.$tag.txt"
    run "$tag" "$relay" bench gemm --n 1024 --grid 1x2 --schemes all --lookahead 0,1 --reps 3 \
      --json "$out/gemm.$tag.json" > "$out/gemm.$tag.txt" 2>&1
    # The sweep's confirmation and the model's judgement (moved from the command line to
    # measure/sweep and tune/model_accuracy): the model's picks must be the same.
    run "$tag" "$relay" bench bcast --sizes 64KiB,1MiB --algorithms binomial,pipeline,auto \
      --policies nonblocking --segments 0,8KiB,64KiB --baselines none --min-time 0.1 \
      --model "$out/params.json" --model-confirm 1 --confirm 2 --confirm-rounds 3 --quiet \
      --json "$out/judge.$tag.json" > "$out/judge.$tag.txt"
    run "$tag" "$relay" tune --operation bcast --sizes 64KiB,1MiB --params "$out/params.json" \
      --methods smgd --output "$out/tune.$tag.table.json" > "$out/tune.$tag.txt" 2>&1
  done
done
for side in before after; do
  relay=$before
  [[ $side == after ]] && relay=$after
  "$relay" model predict --params "$out/params.json" --ranks 8 --sizes 64KiB,8MiB \
    --segments 0,8KiB:1MiB --json "$out/predict.$side.json" > "$out/predict.$side.txt"
done
