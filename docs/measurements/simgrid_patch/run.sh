#!/usr/bin/env bash
# Debian's SimGrid 3.32 against the same version with relay's patch (tools/simgrid/build.sh):
# one GEMM cell whose panels are 32 KiB (under SMPI's 64 KiB detached-send threshold), run
# under each smpirun in turn, ROUNDS times, alone on the host. The simulated output must be the
# same to the last digit; the host cost is what the patch changes.
# Usage: run.sh RELAY RELAY_SMPI PATCHED_SMPIRUN OUT [NODES] [N] [ROUNDS]
set -euo pipefail
relay=$1 relay_smpi=$2 patched=$3 out=$4 nodes=${5:-1024} n=${6:-2048} rounds=${7:-2}
mkdir -p "$out"
root=$(python3 -c "import math; print(math.isqrt($nodes))")
for round in $(seq "$rounds"); do
  for which in debian patched; do
    smpirun=/usr/bin/smpirun; [[ $which == patched ]] && smpirun=$patched
    RELAY_SIMULATE_SMPIRUN=$smpirun RELAY_SIMULATE_RELAY=$relay_smpi RELAY_SIMULATE_COMPUTE=timing \
      "$relay" simulate --platform ktorus4096 --np "$nodes" --privatization no -- bench gemm \
      --n "$n" --block $((n / root)) --algorithms 2d,2.5d:4,2.5d:16,3d --schemes binomial \
      --lookahead 1 --reps 1 --no-scalapack --quiet > "$out/${which}_P${nodes}_n${n}_$round.txt" 2>&1
    grep "simulation cost" "$out/${which}_P${nodes}_n${n}_$round.txt" | sed "s/^/$which $round: /"
  done
done
# Everything but the host's cost and the smpirun line must agree.
for round in $(seq "$rounds"); do
  if diff <(grep -v -e "simulation cost" -e "^# smpirun" "$out/debian_P${nodes}_n${n}_$round.txt") \
          <(grep -v -e "simulation cost" -e "^# smpirun" "$out/patched_P${nodes}_n${n}_$round.txt") > /dev/null; then
    echo "round $round: simulated output identical"
  else
    echo "round $round: simulated output DIFFERS"; exit 1
  fi
done
