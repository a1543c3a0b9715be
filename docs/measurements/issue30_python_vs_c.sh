#!/usr/bin/env bash
# Issue 30, acceptance 3: a broadcast of 8 MiB from Python (relay.bcast) against the same call
# from C (relay bench bcast), same ranks, same algorithm, policy and segment, same timing loop
# (per iteration: barrier, the call, the slowest rank; mean over the timed iterations), in one
# run: the two alternate, ROUNDS times each, and the medians over rounds are compared.
#
#   docs/measurements/issue30_python_vs_c.sh RELAY PYTHON OUT [ROUNDS] [RANKS]
#     RELAY   the relay command (build/src/cli/relay)
#     PYTHON  a Python with relay installed for the same MPI (pip install .)
#     OUT     directory for the raw outputs and the summary (created)
set -euo pipefail
relay=$1 python=$2 out=$3 rounds=${4:-7} ranks=${5:-2}
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
config=(--sizes 8MiB --algorithms pipeline --policies nonblocking --segments 64KiB)
iterations=200
: > "$out/c.txt"
: > "$out/python.txt"
for round in $(seq "$rounds"); do
  mpirun -np "$ranks" "$relay" bench bcast "${config[@]}" -i $iterations \
    --json "$out/c_$round.json" > "$out/c_$round.log"
  "$python" -c "import json,sys; print(json.load(open(sys.argv[1]))['rows'][0]['avg_us'])" \
    "$out/c_$round.json" >> "$out/c.txt"
  mpirun -np "$ranks" "$python" "$here/examples/python/bench_bcast.py" --size 8MiB \
    --algorithm pipeline --policy nonblocking --segment 64KiB -i $iterations --json \
    > "$out/python_$round.json"
  "$python" -c "import json,sys; print(json.load(open(sys.argv[1]))['avg_us'])" \
    "$out/python_$round.json" >> "$out/python.txt"
done
"$python" - "$out" <<'PY' | tee "$out/summary.txt"
import statistics, sys
out = sys.argv[1]
c = [float(x) for x in open(f"{out}/c.txt")]
p = [float(x) for x in open(f"{out}/python.txt")]
print("# 8 MiB broadcast, pipeline/nonblocking, 64 KiB segments, mean of 200 iterations per run")
print("# round   C relay bench bcast (us)   Python relay.bcast (us)   Python / C")
for i, (a, b) in enumerate(zip(c, p), 1):
    print(f"{i:7d} {a:26.1f} {b:25.1f} {b / a:12.3f}")
mc, mp = statistics.median(c), statistics.median(p)
print(f"median {mc:26.1f} {mp:25.1f} {mp / mc:12.3f}")
PY
