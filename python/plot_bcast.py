#!/usr/bin/env python3
"""Plot `relay bench bcast` or `relay bench coll` results (JSON) as a PNG.

Left: time vs segment size per algorithm and policy for the largest message size measured
(vadhiyar2004 Fig. 2 style); unsegmented runs and unsegmentable algorithms (mpi, p2p) are
drawn as horizontal reference lines. Right: time vs message size, best segment size per
algorithm and policy. Titles name the operation the rows carry ("broadcast" for bcast).

usage: plot_bcast.py RESULTS.json -o PLOT.png
"""
import sys
from collections import defaultdict

from relay_plot import human, plt, read_results, save_atomically

def style_axes(ax, xlabel, ylabel, title):
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)

def colour_and_style(name, algorithms):
    """Colour by algorithm, line style by policy: blocking dotted, nonblocking solid."""
    algorithm = name.split("/")[0]
    colour = f"C{algorithms.index(algorithm) % 10}" if algorithm in algorithms else "k"
    if len(algorithms) > 10 and algorithms.index(algorithm) >= 10:
        colour = plt.cm.tab20(algorithms.index(algorithm) % 20)
    return colour, (":" if name.endswith("/blocking") else "-")

def series_name(row):
    policy = row.get("policy", "-")
    return row["algorithm"] if policy in ("-", "") else f"{row['algorithm']}/{policy}"

def main():
    args, doc, rows = read_results(__doc__.splitlines()[0], "relay bench bcast (or coll)")
    operation = rows[0].get("operation", "bcast")
    # bcast keeps its titles; other operations are named in every title.
    noun = "broadcast" if operation == "bcast" else operation
    prefix = "" if operation == "bcast" else f"{operation}, "
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
    algorithms = sorted({r["algorithm"] for r in rows})
    for name, points in sorted(segmented.items()):
        points.sort()
        colour, style = colour_and_style(name, algorithms)
        left.plot([p[0] for p in points], [p[1] / 1e3 for p in points], marker="o", label=name,
                  color=colour, linestyle=style)
    for name, t in sorted(flat.items()):
        colour, _ = colour_and_style(name.split(" ")[0], algorithms)
        left.axhline(t / 1e3, linestyle="--", linewidth=1, color=colour, label=name)
    style_axes(left, "segment size (bytes)", "time (ms)", f"{noun} of {human(largest)} on {ranks} ranks" if largest > 0 else f"{noun} on {ranks} ranks")

    # Right: the best segment size per series -- over message sizes, or as bars for one size.
    best = defaultdict(dict)
    for r in rows:
        name = series_name(r)
        size = r["size_bytes"]
        if size not in best[name] or r["avg_us"] < best[name][size]:
            best[name][size] = r["avg_us"]
    library = machine.get("mpi_library", "MPI").split(",")[0]
    sizes_measured = sorted({r["size_bytes"] for r in rows})
    if len(sizes_measured) == 1:
        ranked = sorted(best.items(), key=lambda kv: kv[1][largest])
        names = [k for k, _ in ranked]
        right.barh(range(len(names)), [v[largest] / 1e3 for _, v in ranked],
                   color=[colour_and_style(n, algorithms)[0] for n in names])
        right.set_yticks(range(len(names)), names, fontsize=7)
        right.invert_yaxis()
        right.set_xlabel("time (ms), best segment size")
        right.set_title(f"{prefix}{human(largest) + ', ' if largest > 0 else ''}{library}, {ranks} ranks: fastest first")
        right.grid(True, axis="x", alpha=0.3)
    else:
        for name, points in sorted(best.items()):
            colour, style = colour_and_style(name, algorithms)
            xs = sorted(points)
            right.plot(xs, [points[x] for x in xs], marker=".", label=name, color=colour,
                       linestyle=style)
        style_axes(right, "message size (bytes)" if operation == "bcast" else "data a call moves (bytes)",
                   "time (us), best segment size", f"{prefix}{library}, {ranks} ranks")

    fig.tight_layout()
    save_atomically(fig, args.output, dpi=110)
    return 0

if __name__ == "__main__":
    sys.exit(main())
