#!/usr/bin/env python3
"""Plot `relay bench symm` results (JSON) as a PNG, like huang2018 Tables I-II.

One panel per matrix size: a stacked bar per configuration (baseline, then overlap with each
n_dup; MPI's collectives, then relay's), split into the local multiplications and the three
communication phases (distribute, square, cube), each the mean over processes (medians over
repetitions), the whole call (the slowest process) drawn as a black line; the
speed-up over the baseline with the same collectives written above each bar.

usage: relay-plot symm RESULTS.json -o PLOT.png (or python3 symm.py ...)
"""
import sys

if __package__:
    from ._common import plt, read_results, save_atomically
else:  # run as a file, as relay's command line does: its folder is on sys.path
    from _common import plt, read_results, save_atomically

PHASES = (("compute_s", "local multiplications"), ("distribute_s", "distribute D"),
          ("square_s", "reduce + broadcast D^2"), ("cube_s", "reduce D^3, return"))


def label(row):
    if row["algorithm"] == "baseline":
        return f"baseline\n{row['parts']}"
    if row["algorithm"] == "cannon":
        return f"cannon\nn_dup={row['n_dup']}\n{row['parts']}"
    return f"n_dup={row['n_dup']}\n{row['parts']}"


def main(argv=None):
    args, doc, rows = read_results(
        __doc__.splitlines()[0], "relay bench symm", "time_s", argv=argv)
    sizes = sorted({r["n"] for r in rows})
    fig, axes = plt.subplots(1, len(sizes), figsize=(min(9, 0.6 * len(rows) / len(sizes) + 2) * len(sizes), 4.5),
                             squeeze=False)
    for ax, n in zip(axes[0], sizes):
        mine = [r for r in rows if r["n"] == n]
        mine.sort(key=lambda r: (r["parts"], r["algorithm"] != "baseline", r["n_dup"]))
        x = range(len(mine))
        bottom = [0.0] * len(mine)
        for key, name in PHASES:
            values = [r[key] for r in mine]
            ax.bar(x, values, bottom=bottom, label=name)
            bottom = [b + v for b, v in zip(bottom, values)]
        for xi, r in zip(x, mine):
            ax.text(xi, r["time_s"], f"{r.get('x_baseline', 1):.2f}x", ha="center", va="bottom", fontsize=7)
            ax.plot([xi - 0.4, xi + 0.4], [r["time_s"]] * 2, color="black", linewidth=0.8)
        ax.set_xticks(list(x))
        ax.set_xticklabels([label(r) for r in mine], fontsize=7)
        ax.set_ylabel("seconds: the split, mean over processes;\nblack: the call (slowest process)")
        ax.set_title(f"n = {n}, {mine[0]['mesh']} mesh, {mine[0]['ranks']} ranks, {mine[0]['ranks_per_node']} per node")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=7)
    machine = doc.get("machine", {})
    fig.suptitle(f"relay bench symm (SymmSquareCube): {machine.get('mpi_library', '').split(',')[0]}", fontsize=10)
    fig.tight_layout()
    save_atomically(fig, args.output, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
