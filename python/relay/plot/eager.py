#!/usr/bin/env python3
"""Plot `relay bench eager` results (JSON) as a PNG, like amestoy2001 Tables 6 and 8.

One group of bars per configuration (algorithm, policy, segment, size): its median time under
each eager limit, the spread across limits written above the group.

usage: relay-plot eager RESULTS.json -o PLOT.png (or python3 eager.py ...)
"""
import sys

if __package__:
    from ._common import plt, read_results, save_atomically
else:  # run as a file, as relay's command line does: its folder is on sys.path
    from _common import plt, read_results, save_atomically


def human(n):
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return f"{n}B"


def main(argv=None):
    args, doc, rows = read_results(__doc__.splitlines()[0], "relay bench eager", "limits", argv=argv)
    limits = doc["eager_limits_bytes"]
    fig, ax = plt.subplots(figsize=(max(5.0, 1.3 * len(rows) + 1.5), 4.5))
    width = 0.8 / len(limits)
    for j, limit in enumerate(limits):
        xs, ys = [], []
        for i, r in enumerate(rows):
            for entry in r["limits"]:
                if entry["eager_limit_bytes"] == limit:
                    xs.append(i + (j - (len(limits) - 1) / 2) * width)
                    ys.append(entry["avg_us"] / 1000)
        ax.bar(xs, ys, width=width * 0.95, label=f"eager limit {human(limit)}")
    for i, r in enumerate(rows):
        if "spread" in r:
            top = max(e["avg_us"] for e in r["limits"]) / 1000
            ax.text(i, top, f"{100 * r['spread']:.0f}%", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{r['algorithm']}\n{r['policy']}\n{human(r['segment_bytes']) if r['segment_bytes'] else '-'}"
                        f" / {human(r['size_bytes'])}" for r in rows], fontsize=7)
    ax.set_ylabel("ms per broadcast (median over rounds)")
    ax.set_title(f"{doc['ranks']} ranks{' (emulated cluster)' if doc.get('cluster') else ''}; above: spread across limits",
                 fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    machine = doc.get("machine", {})
    fig.suptitle(f"relay bench eager: {machine.get('mpi_library', '').split(',')[0]}", fontsize=10)
    fig.tight_layout()
    save_atomically(fig, args.output, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
