#!/usr/bin/env python3
"""Plot `relay bench overlap` results (JSON) as a PNG, like huang2018 Figs. 5 and 6.

Top row, one panel per operation: bandwidth 2 (p - 1) / p * size / time against message size
for every mode (one blocking call, one nonblocking call, overlap with each n_dup, ppn), parts from MPI solid and from relay's
schedules dashed. Bottom row: rank 0's parts at the largest size -- each part a bar from the
start of its posting to its completion, the posting itself drawn dark (their Fig. 6).

usage: relay-plot overlap RESULTS.json -o PLOT.png (or python3 overlap.py ...)
"""
import sys

if __package__:
    from ._common import human, plt, read_results, save_atomically
else:  # run as a file, as relay's command line does: its folder is on sys.path
    from _common import human, plt, read_results, save_atomically


def series(row):
    mode = row["mode"]
    if mode in ("blocking", "nonblocking"):
        name = f"one {mode} call"
    elif mode == "overlap":
        name = f"overlap n_dup={row['n_dup']}"
    else:
        name = f"{row['ranks_per_node']} PPN" + (f" + n_dup={row['n_dup']}" if row["n_dup"] > 1 else "")
    return f"{name} ({row['parts']})"


def colour(row, modes):
    key = (row["mode"], row["n_dup"])
    return f"C{modes.index(key) % 10}"


def bandwidth_panel(ax, rows, operation, modes):
    by_series = {}
    for r in rows:
        by_series.setdefault(series(r), []).append(r)
    sizes = sorted({r["size_bytes"] for r in rows})
    ax.set_title(f"{operation}: {rows[0]['nodes']} nodes")
    if len(sizes) == 1:  # one size: a bar per series
        names = sorted(by_series)
        values = [by_series[n][0]["bus_bandwidth_MBps"] for n in names]
        ax.barh(range(len(names)), values, color=[colour(by_series[n][0], modes) for n in names])
        for y, (n, v) in enumerate(zip(names, values)):
            ax.text(v, y, f" {v:.1f}", va="center", fontsize=7)
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels(names, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel(f"bandwidth 2(p-1)/p n/t (MB/s) at {human(sizes[0])}")
        ax.grid(True, axis="x", alpha=0.3)
        return
    for name, points in sorted(by_series.items()):
        points.sort(key=lambda r: r["size_bytes"])
        first = points[0]
        ax.plot([r["size_bytes"] for r in points], [r["bus_bandwidth_MBps"] for r in points],
                marker="o", markersize=3, color=colour(first, modes),
                linestyle="-" if first["parts"] == "mpi" else "--", label=name)
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([human(s) for s in sizes], rotation=45, fontsize=7)
    ax.set_xlabel("message size")
    ax.set_ylabel("bandwidth 2(p-1)/p n/t (MB/s)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, ncol=2)


def timeline_panel(ax, rows, operation, size):
    rows = [r for r in rows if r["size_bytes"] == size and r.get("part_times")]
    longest = max((t["done_us"] for r in rows for t in r["part_times"]), default=0)
    unit, scale = ("ms", 1e-3) if longest > 10000 else ("us", 1.0)
    labels = []
    for y, r in enumerate(rows):
        parts = r["part_times"]
        height = 0.8 / len(parts)
        for c, t in enumerate(parts):
            if t["count"] == 0:
                continue
            bottom = y - 0.4 + c * height
            start = t["post_start_us"] * scale
            ax.barh(bottom, t["done_us"] * scale - start, left=start, height=height * 0.9,
                    align="edge", color="C0", alpha=0.35)
            ax.barh(bottom, max(t["posted_us"] * scale - start, longest * scale / 400), left=start,
                    height=height * 0.9, align="edge", color="C3")
        labels.append(series(r))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(labels, fontsize=6)
    ax.invert_yaxis()
    ax.set_xlabel(f"{unit} since the call began (rank 0); dark: posting, light: until complete")
    ax.set_title(f"{operation} {human(size)}: when each part was posted and completed")
    ax.grid(True, axis="x", alpha=0.3)


def main(argv=None):
    args, doc, rows = read_results(
        __doc__.splitlines()[0], "relay bench overlap", argv=argv)
    operations = [op for op in ("bcast", "reduce", "allreduce") if any(r["operation"] == op for r in rows)]
    modes = sorted({(r["mode"], r["n_dup"]) for r in rows}, key=lambda m: (m[0] != "blocking", m[0], m[1]))
    largest = max(r["size_bytes"] for r in rows)

    fig, axes = plt.subplots(2, len(operations), figsize=(7 * len(operations), 10), squeeze=False)
    for column, op in enumerate(operations):
        mine = [r for r in rows if r["operation"] == op]
        bandwidth_panel(axes[0][column], mine, op, modes)
        timeline_panel(axes[1][column], mine, op, largest)
    machine = doc.get("machine", {})
    fig.suptitle(f"relay bench overlap: {machine.get('mpi_library', '').split(',')[0]}, "
                 f"{doc.get('nodes', '?')} nodes x {doc.get('ranks_per_node', 1)} ranks per node",
                 fontsize=10)
    fig.tight_layout()
    save_atomically(fig, args.output, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
