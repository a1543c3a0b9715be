#!/usr/bin/env python3
"""Plot `relay bench eager` results (JSON) as a PNG, like amestoy2001 Tables 6 and 8.

One group of bars per configuration (algorithm, policy, segment, size): its median time under
each eager limit, the spread across limits written above the group; with GEMM rows (relay bench
eager --gemm) a second panel of the same for each multiplication.

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


def bars(ax, rows, limits, field, scale):
    """One group of bars per row: its median under each limit, the spread above the group."""
    width = 0.8 / len(limits)
    for j, limit in enumerate(limits):
        xs, ys = [], []
        for i, r in enumerate(rows):
            for entry in r["limits"]:
                if entry["eager_limit_bytes"] == limit:
                    xs.append(i + (j - (len(limits) - 1) / 2) * width)
                    ys.append(entry[field] * scale)
        ax.bar(xs, ys, width=width * 0.95, label=f"eager limit {human(limit)}")
    for i, r in enumerate(rows):
        if "spread" in r:
            top = max(e[field] for e in r["limits"]) * scale
            ax.text(i, top, f"{100 * r['spread']:.0f}%", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(rows)))
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)


def main(argv=None):
    args, doc, rows = read_results(__doc__.splitlines()[0], "relay bench eager", "limits", argv=argv)
    limits = doc["eager_limits_bytes"]
    gemm = doc.get("gemm_rows", [])
    panels = 2 if gemm else 1
    width = max(5.0, 1.3 * len(rows) + 1.5) + (max(5.0, 1.3 * len(gemm) + 1.5) if gemm else 0)
    fig, axes = plt.subplots(1, panels, figsize=(width, 4.5), squeeze=False)
    ax = axes[0][0]
    bars(ax, rows, limits, "avg_us", 1e-3)
    ax.set_xticklabels([f"{r['algorithm']}\n{r['policy']}\n{human(r['segment_bytes']) if r['segment_bytes'] else '-'}"
                        f" / {human(r['size_bytes'])}" for r in rows], fontsize=7)
    ax.set_ylabel("ms per broadcast (median over rounds)")
    ax.set_title(f"{doc['ranks']} ranks{' (emulated cluster)' if doc.get('cluster') else ''}; above: spread across limits",
                 fontsize=9)
    if gemm:
        ax = axes[0][1]
        bars(ax, gemm, limits, "time_s", 1e3)
        ax.set_xticklabels([f"{r['algorithm']}\n{r['scheme']}\nL={r['lookahead']} / n={r['n']}" for r in gemm],
                           fontsize=7)
        ax.set_ylabel("ms per multiplication (median over rounds)")
        ax.set_title(f"GEMM, grid {gemm[0]['grid']}, block {gemm[0]['block']}", fontsize=9)
    machine = doc.get("machine", {})
    fig.suptitle(f"relay bench eager: {machine.get('mpi_library', '').split(',')[0]}", fontsize=10)
    fig.tight_layout()
    save_atomically(fig, args.output, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
