#!/usr/bin/env python3
"""Plot `relay bench bcast` results (JSON) as a PNG.

Left: time vs segment size per algorithm and policy for the largest message size measured
(vadhiyar2004 Fig. 2 style); unsegmented runs and unsegmentable algorithms (mpi, p2p) are
drawn as horizontal reference lines. Right: time vs message size, best segment size per
algorithm and policy.

usage: plot_bcast.py RESULTS.json -o PLOT.png
"""
import argparse
import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def human(nbytes):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if nbytes >= 1 << shift and nbytes % (1 << shift) == 0:
            return f"{nbytes >> shift}{unit}"
    return f"{nbytes}B"


def series_name(row):
    policy = row.get("policy", "-")
    return row["algorithm"] if policy in ("-", "") else f"{row['algorithm']}/{policy}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="JSON written by relay bench bcast --json")
    parser.add_argument("-o", "--output", required=True, help="PNG to write")
    args = parser.parse_args()

    with open(args.results, encoding="utf-8") as f:
        doc = json.load(f)
    rows = [r for r in doc.get("rows", []) if "avg_us" in r]
    if not rows:
        print(f"plot_bcast.py: no measured rows in {args.results}", file=sys.stderr)
        return 1
    machine = doc.get("machine", {})
    ranks = machine.get("ranks", rows[0].get("ranks", "?"))

    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5.5))
    largest = max(r["size_bytes"] for r in rows)

    # Left: time vs segment size at the largest message size.
    segmented = defaultdict(list)
    flat = {}
    for r in rows:
        if r["size_bytes"] != largest:
            continue
        if r["segment_bytes"] > 0:
            segmented[series_name(r)].append((r["segment_bytes"], r["avg_us"]))
        else:
            flat[series_name(r) + " (unsegmented)"] = r["avg_us"]
    for name, points in sorted(segmented.items()):
        points.sort()
        left.plot([p[0] for p in points], [p[1] / 1e3 for p in points], marker="o", label=name)
    for i, (name, t) in enumerate(sorted(flat.items())):
        left.axhline(t / 1e3, linestyle="--", linewidth=1, color=f"C{i % 10}", label=name)
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel("segment size (bytes)")
    left.set_ylabel("time (ms)")
    left.set_title(f"broadcast of {human(largest)} on {ranks} ranks")
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=7, ncol=2)

    # Right: time vs message size, best segment per series.
    best = defaultdict(dict)
    for r in rows:
        name = series_name(r)
        size = r["size_bytes"]
        if size not in best[name] or r["avg_us"] < best[name][size]:
            best[name][size] = r["avg_us"]
    for name, points in sorted(best.items()):
        sizes = sorted(points)
        right.plot(sizes, [points[s] for s in sizes], marker=".", label=name)
    right.set_xscale("log", base=2)
    right.set_yscale("log")
    right.set_xlabel("message size (bytes)")
    right.set_ylabel("time (us), best segment size")
    right.set_title(f"{machine.get('mpi_library', 'MPI')}")
    right.grid(True, which="both", alpha=0.3)
    right.legend(fontsize=7, ncol=2)

    fig.tight_layout()
    tmp = args.output + ".tmp.png"
    fig.savefig(tmp, dpi=110)
    import os

    os.replace(tmp, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
