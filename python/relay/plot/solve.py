#!/usr/bin/env python3
"""Plot `relay bench solve` results (JSON) as a PNG, like tan2014 Table I with the time.

One bar pair per solver and size: the solve with ScaLAPACK's pdgemm_ and with relay's (medians
over repetitions), the part spent in p?gemm_ (mean over processes) shaded, the paired ratio
(> 1: relay faster) above relay's bar, and the p?gemm_ share beside tan2014 Table I's under
each pair.

usage: relay-plot solve RESULTS.json -o PLOT.png (or python3 solve.py ...)
"""
import sys

if __package__:
    from ._common import plt, read_results, save_atomically
else:  # run as a file, as relay's command line does: its folder is on sys.path
    from _common import plt, read_results, save_atomically

COLOURS = {"scalapack": "tab:gray", "relay": "tab:blue"}


def main(argv=None):
    args, doc, rows = read_results(__doc__.splitlines()[0], "relay bench solve", "time_s", argv=argv)
    keys = []
    for r in rows:
        if (r["solver"], r["n"]) not in keys:
            keys.append((r["solver"], r["n"]))
    fig, ax = plt.subplots(figsize=(max(5.0, 1.6 * len(keys) + 1.5), 4.5))
    labels = []
    for i, key in enumerate(keys):
        pair = {r["pgemm_by"]: r for r in rows if (r["solver"], r["n"]) == key}
        for j, by in enumerate(("scalapack", "relay")):
            r = pair.get(by)
            if r is None:
                continue
            x = i + (j - 0.5) * 0.38
            ax.bar(x, r["time_s"], width=0.36, color=COLOURS[by], label=by if i == 0 else None)
            ax.bar(x, r["pgemm_s"], width=0.36, color="none", edgecolor="black", hatch="//",
                   linewidth=0.5, label="in p?gemm_" if i == 0 and j == 0 else None)
            if by == "relay":
                ax.text(x, r["time_s"], f"{r['vs_scalapack']:.2f}x", ha="center", va="bottom", fontsize=8)
        first = next(iter(pair.values()))
        shares = " / ".join(f"{100 * pair[b]['pgemm_share']:.0f}%" for b in ("scalapack", "relay") if b in pair)
        labels.append(f"{key[0]} n={key[1]}\np?gemm_ {shares}\n(tan2014 {100 * first['tan2014_share']:.0f}%)")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("seconds per solve (median); hatched: in p?gemm_")
    first = rows[0]
    ax.set_title(f"ScaLAPACK's solvers, pdgemm_ by ScaLAPACK or relay: grid {first['grid']}, "
                 f"block {first['block']}", fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    machine = doc.get("machine", {})
    fig.suptitle(f"relay bench solve: {machine.get('mpi_library', '').split(',')[0]}", fontsize=10)
    fig.tight_layout()
    save_atomically(fig, args.output, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
