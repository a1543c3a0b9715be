#!/usr/bin/env python3
"""Plot `relay bench gemm` results (JSON) as a PNG.

Left: GFLOP/s per broadcast scheme and look-ahead depth, for each matrix size, with
ScaLAPACK's p?gemm (same run) and the machine's peak (one core's BLAS rate x cores) as lines.
Right: where the time went (local GEMM, broadcast, waiting) for the largest size -- the split
tan2014 Table IV discusses.

usage: relay-plot gemm RESULTS.json -o PLOT.png (or python3 gemm.py ...)
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    with open(args.results) as f:
        doc = json.load(f)
    rows = doc.get("rows", [])
    if not rows:
        sys.exit("relay-plot gemm: no rows in " + args.results)
    peak = doc.get("peak_gflops_per_core", 0) * doc.get("cores_used", 1)
    sizes = sorted({r["n"] for r in rows})
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    labels = []
    for r in rows:
        label = r["scheme"] if r["scheme"] == "scalapack" else f'{r["scheme"]} L={r["lookahead"]}'
        if label not in labels:
            labels.append(label)
    width = 0.8 / max(1, len(sizes))
    for i, n in enumerate(sizes):
        by_label = {}
        for r in rows:
            if r["n"] != n:
                continue
            label = r["scheme"] if r["scheme"] == "scalapack" else f'{r["scheme"]} L={r["lookahead"]}'
            by_label[label] = r["gflops"]
        xs = [j + i * width for j in range(len(labels))]
        left.bar(xs, [by_label.get(label, 0) for label in labels], width, label=f"n={n}")
    if peak > 0:
        left.axhline(peak, color="black", linestyle=":", label=f"peak {peak:.1f}")
    left.set_xticks([j + 0.4 - width / 2 for j in range(len(labels))])
    left.set_xticklabels(labels, rotation=35, ha="right", fontsize=8)
    left.set_ylabel("GFLOP/s")
    grid = rows[0].get("grid", "?")
    left.set_title(f"relay_gemm vs ScaLAPACK p?gemm, grid {grid}, block {rows[0].get('block')}")
    left.legend(fontsize=8)
    left.grid(axis="y", alpha=0.3)

    n = sizes[-1]
    split = [r for r in rows if r["n"] == n and r["scheme"] != "scalapack"]
    names = [f'{r["scheme"]} L={r["lookahead"]}' for r in split]
    compute = [r["compute_s"] for r in split]
    bcast = [r["bcast_s"] for r in split]
    wait = [r["wait_s"] for r in split]
    xs = range(len(split))
    right.bar(xs, compute, label="local GEMM")
    right.bar(xs, bcast, bottom=compute, label="broadcast (start, progress, pack)")
    right.bar(xs, wait, bottom=[c + b for c, b in zip(compute, bcast)], label="wait")
    right.plot(list(xs), [r["time_s"] for r in split], "k_", markersize=20, label="total")
    right.set_xticks(list(xs))
    right.set_xticklabels(names, rotation=35, ha="right", fontsize=8)
    right.set_ylabel("seconds (max over ranks)")
    right.set_title(f"time split, n={n}")
    right.legend(fontsize=8)
    right.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)


if __name__ == "__main__":
    main()
