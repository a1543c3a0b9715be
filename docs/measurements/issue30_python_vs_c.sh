#!/usr/bin/env bash
# Issue 30, acceptance 3: a broadcast of 8 MiB from Python (relay.bcast) against the same call
# from C (relay bench bcast), same ranks, same algorithm, policy and segment, same timing loop
# (per iteration: barrier, the call, the slowest rank; mean over the timed iterations), in one
# run: the two alternate, ROUNDS times each, and the medians over rounds are compared.
#
# Memory must be alike too: numpy asks for transparent huge pages for large arrays
# (madvise(MADV_HUGEPAGE); with THP in "madvise" mode, as on Debian 12, only such buffers get
# them), relay bench's std::vector does not, and on one node the copies of shared-memory MPI are
# much faster on huge pages. So each round runs both sides on 4 KiB pages (Python with
# NUMPY_MADVISE_HUGEPAGE=0) and both on huge pages (C with GLIBC_TUNABLES=glibc.malloc.hugetlb=1,
# which makes glibc's malloc ask for them; Python with numpy's default).
#
#   docs/measurements/issue30_python_vs_c.sh RELAY PYTHON OUT [ROUNDS] [RANKS]
#     RELAY   the relay command (build/src/cli/relay)
#     PYTHON  a Python with relay installed for the same MPI (pip install .)
#     OUT     directory for every run's JSON, the columns and the summary (created)
set -euo pipefail
relay=$1 python=$2 out=$3 rounds=${4:-7} ranks=${5:-2}
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
config=(--sizes 8MiB --algorithms pipeline --policies nonblocking --segments 64KiB)
iterations=${ITERATIONS:-500}
for f in c_4k python_4k c_huge python_huge; do : > "$out/$f.txt"; done
avg_of() { "$python" -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['rows'][0]['avg_us'] if 'rows' in d else d['avg_us'])" "$1"; }
for round in $(seq "$rounds"); do
  for pages in 4k huge; do
    tunable=$([[ $pages == huge ]] && echo glibc.malloc.hugetlb=1 || echo glibc.malloc.hugetlb=0)
    numpy_pages=$([[ $pages == huge ]] && echo 1 || echo 0)
    mpirun -np "$ranks" -x GLIBC_TUNABLES=$tunable "$relay" bench bcast "${config[@]}" \
      -i $iterations --json "$out/c_${pages}_$round.json" > "$out/c_${pages}_$round.log"
    avg_of "$out/c_${pages}_$round.json" >> "$out/c_$pages.txt"
    mpirun -np "$ranks" -x NUMPY_MADVISE_HUGEPAGE=$numpy_pages "$python" \
      "$here/examples/python/bench_bcast.py" --size 8MiB --algorithm pipeline \
      --policy nonblocking --segment 64KiB -i $iterations --json > "$out/python_${pages}_$round.json"
    avg_of "$out/python_${pages}_$round.json" >> "$out/python_$pages.txt"
  done
done
"$python" - "$out" "$iterations" "$ranks" <<'PY' | tee "$out/summary.txt"
import statistics, sys
out, iterations, ranks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
col = {k: [float(x) for x in open(f"{out}/{k}.txt")] for k in
       ("c_4k", "python_4k", "c_huge", "python_huge")}
print(f"# 8 MiB broadcast on {ranks} ranks, pipeline/nonblocking, 64 KiB segments, mean of "
      f"{iterations} iterations per run, us")
print("# round      C 4KiB  Python 4KiB  Py/C |    C huge  Python huge  Py/C")
rows = list(zip(*col.values()))
for i, (c4, p4, ch, ph) in enumerate(rows, 1):
    print(f"{i:7d} {c4:11.1f} {p4:12.1f} {p4 / c4:5.3f} | {ch:9.1f} {ph:12.1f} {ph / ch:5.3f}")
m = {k: statistics.median(v) for k, v in col.items()}
print(f"median {m['c_4k']:11.1f} {m['python_4k']:12.1f} {m['python_4k'] / m['c_4k']:5.3f} | "
      f"{m['c_huge']:9.1f} {m['python_huge']:12.1f} {m['python_huge'] / m['c_huge']:5.3f}")
PY
