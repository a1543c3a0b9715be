#!/usr/bin/env bash
# Issue 26: SUMMA's local update cut into row x column tiles (piece_grid) and the transposed
# panel packed in tiles, against the code before (column pieces, element-by-element packing):
# the two relay builds alternate, ROUNDS times (the order swapped each round), one repetition
# per launch, on the emulated cluster (4 nodes at 250 Mbit/s, 2x2, n = 8192, block 64, L = 1).
# Needs: relay cluster up --nodes 4 --rate 250mbit
# Usage: run.sh OLD_RELAY NEW_RELAY OUTDIR [ROUNDS]   (the figures in docs/gemm.md: OLD = the
#   relay CLI built at 11e3c0b, NEW = the commit that added this script)
set -euo pipefail
old=$1 new=$2 out=$3 rounds=${4:-4}
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
for ((r = 1; r <= rounds; ++r)); do
  order="old new"
  ((r % 2 == 0)) && order="new old"
  for v in $order; do
    echo "# round $r, relay $v" >&2
    "${!v}" bench gemm --cluster --n 8192 --grid 2x2 --block 64 \
      --schemes auto,pipeline-nonblocking --segment 32KiB --lookahead 1 --reps 1 --no-scalapack \
      --link-gbits 0.25 --quiet --json "$out/${v}_$r.json" > "$out/${v}_$r.txt" 2>&1
  done
done
python3 - "$out" "$rounds" <<'PY' | tee "$out/summary.txt"
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for v in ("old", "new"):
    for r in range(1, rounds + 1):
        for row in json.load(open(f"{out}/{v}_{r}.json"))["rows"]:
            rows.setdefault((row["scheme"], v), []).append(row)
print(f"{'scheme':22} {'build':5} {'time_s (each round)':40} {'median':>8} {'compute_s':>9} {'bcast_s':>8} {'wait_s':>8} {'pieces':>6}")
for scheme in sorted({s for s, _ in rows}):
    med = {}
    for v in ("old", "new"):
        rs = rows[(scheme, v)]
        t = [x["time_s"] for x in rs]
        med[v] = statistics.median(t)
        print(f"{scheme:22} {v:5} {', '.join(f'{x:.3f}' for x in t):40} {med[v]:8.3f} "
              f"{statistics.median(x['compute_s'] for x in rs):9.3f} {statistics.median(x['bcast_s'] for x in rs):8.3f} "
              f"{statistics.median(x['wait_s'] for x in rs):8.3f} {rs[0].get('pieces', 0):>6}")
    ratios = [o["time_s"] / n["time_s"] for o, n in zip(rows[(scheme, "old")], rows[(scheme, "new")])]
    print(f"{scheme:22} old/new per round: {', '.join(f'{x:.3f}' for x in ratios)}; median {statistics.median(ratios):.3f}")
PY
