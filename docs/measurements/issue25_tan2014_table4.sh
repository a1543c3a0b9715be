#!/usr/bin/env bash
# Issue 25, acceptance 2: tan2014's Table IV in simulation, on its platform (8 nodes x 8 cores,
# Gigabit Ethernet; 64 processes on an 8x8 grid, nb = 32, n = 7680 to 17920): SUMMA with the
# panels broadcast by a binomial tree, a blocking pipeline and a nonblocking pipeline, and
# relay's look-ahead as a fourth row; the MPI library's MPI_Ibcast (SMPI's: linear) as a
# fifth, with and without look-ahead. Computation is charged at the platform's 10 GFLOP/s per
# core. Medians of REPS repetitions whose ranks start within 100 us in a seeded pattern each
# (bench gemm --start-jitter-us, the default in a simulation): with one start pattern a
# contended configuration's time depended on what ran before it (docs/simulate.md). Each
# configuration runs in a process of its own, two at once (simulated times do not depend on
# the host's load; the host seconds each prints do).
# Usage: issue25_tan2014_table4.sh RELAY OUT_DIR [SIZES] [REPS]   (configurations whose JSON is
#   in OUT_DIR are not run again; one without it shows as "not finished" in the table)
#   (SIZES default 7680,10240,12800,15360,17920; REPS default 3)
set -euo pipefail
relay=$1 out=$2 sizes=${3:-7680,10240,12800,15360,17920} reps=${4:-3}
mkdir -p "$out"
configs="binomial:0 pipeline-blocking:0 pipeline-nonblocking:0 pipeline-nonblocking:1 mpi:0 mpi:1"
for n in ${sizes//,/ }; do
  for c in $configs; do echo "$n ${c%:*} ${c#*:}"; done
done | xargs -P 2 -L 1 sh -c '
  [ -s "'"$out"'/gemm_n$1_$2_L$3.json" ] && exit 0  # measured already: the script resumes
  "$0" simulate --platform tan2014 --np 64 -- bench gemm --n "$1" --block 32 --schemes "$2" \
    --lookahead "$3" --reps "'"$reps"'" --quiet --json "'"$out"'/gemm_n$1_$2_L$3.json" \
    > "'"$out"'/gemm_n$1_$2_L$3.txt" 2>&1 || { echo "failed: n=$1 $2 L=$3" >&2; exit 255; }' "$relay"
python3 - "$out" "$sizes" <<'PY' | tee "$out/table4.md"
import json, sys
out, sizes = sys.argv[1], [int(s) for s in sys.argv[2].split(",")]
print("| n | binomial (s) | pipeline, blocking (s) | pipeline, nonblocking (s) | nonblocking, look-ahead 1 (s) | mpi scheme, MPI_Ibcast (s) | mpi, look-ahead 1 (s) | binomial / NB pipeline - 1 (paper 3.4-6.5%) | blocking / NB pipeline - 1 (paper 4.6-8.4%) |")
print("|---|---|---|---|---|---|---|---|---|")
def fmt(x):
    return "not finished" if x is None else f"{x:.3f}"
def gap(x, y):
    return "-" if x is None or y is None else f"{(x / y - 1) * 100:.1f}%"
for n in sizes:
    t = {}
    for scheme, L in (("binomial", 0), ("pipeline-blocking", 0), ("pipeline-nonblocking", 0),
                      ("pipeline-nonblocking", 1), ("mpi", 0), ("mpi", 1)):
        try:  # a configuration stopped before it wrote its JSON shows as not finished
            rows = json.load(open(f"{out}/gemm_n{n}_{scheme}_L{L}.json"))["rows"]
        except FileNotFoundError:
            t[(scheme, L)] = None
            continue
        t[(scheme, L)] = next(r["time_s"] for r in rows if r.get("scheme") == scheme)
    b, pb, pn, pn1, m, m1 = (t[("binomial", 0)], t[("pipeline-blocking", 0)],
                             t[("pipeline-nonblocking", 0)], t[("pipeline-nonblocking", 1)],
                             t[("mpi", 0)], t[("mpi", 1)])
    print(f"| {n} | " + " | ".join(fmt(x) for x in (b, pb, pn, pn1, m, m1)) +
          f" | {gap(b, pn)} | {gap(pb, pn)} |")
PY
