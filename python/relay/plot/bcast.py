#!/usr/bin/env python3
"""Plot `relay bench bcast` or `relay bench coll` results (JSON) as a PNG.

Left: the best configuration of each algorithm (over its policies and segment sizes) against
message size, one line per algorithm, its fastest configuration at the largest size named in the
legend; with a single size, bars, fastest first. Right: a heat map at the largest size measured,
algorithm and policy against segment size, each cell its time relative to the fastest cell
(1.00 = the best; vadhiyar2004's segment sweep at a glance). Titles name the operation.

usage: relay-plot bcast RESULTS.json -o PLOT.png (or python3 bcast.py ...)
"""
import math
import sys
from collections import defaultdict

if __package__:
    from ._common import human, plt, read_results, save_atomically
else:  # run as a file, as relay's command line does: its folder is on sys.path
    from _common import human, plt, read_results, save_atomically


def series_name(row):
    policy = row.get("policy", "-")
    return row["algorithm"] if policy in ("-", "") else f"{row['algorithm']}/{policy}"


def config_text(row):
    policy = row.get("policy", "-")
    segment = row.get("segment_bytes", 0)
    parts = [] if policy in ("-", "") else [policy]
    parts.append(human(segment) if segment > 0 else "unsegmented")
    return " ".join(parts)


def main(argv=None):
    args, doc, rows = read_results(
        __doc__.splitlines()[0], "relay bench bcast (or coll)", argv=argv)
    operation = rows[0].get("operation", "bcast")
    noun = "broadcast" if operation == "bcast" else operation
    machine = doc.get("machine", {})
    ranks = machine.get("ranks", rows[0].get("ranks", "?"))
    library = machine.get("mpi_library", "MPI").split(",")[0]
    sizes = sorted({r["size_bytes"] for r in rows})
    largest = sizes[-1]
    algorithms = sorted({r["algorithm"] for r in rows})

    # The best row of each algorithm at each size (over policies and segments).
    best = defaultdict(dict)
    for r in rows:
        known = best[r["algorithm"]].get(r["size_bytes"])
        if known is None or r["avg_us"] < known["avg_us"]:
            best[r["algorithm"]][r["size_bytes"]] = r
    ranked = sorted(best, key=lambda a: best[a].get(largest, {"avg_us": math.inf})["avg_us"])
    colour = {a: plt.cm.tab10(i % 10) if len(algorithms) <= 10 else plt.cm.tab20(i % 20)
              for i, a in enumerate(algorithms)}

    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5.5),
                                      gridspec_kw={"width_ratios": [1.1, 1]})
    where = f"{library}, {ranks} ranks"
    if len(sizes) == 1:
        at = [best[a][largest] for a in ranked if largest in best[a]]
        left.barh(range(len(at)), [r["avg_us"] / 1e3 for r in at],
                  color=[colour[r["algorithm"]] for r in at])
        left.set_yticks(range(len(at)),
                        [f"{r['algorithm']} ({config_text(r)})" for r in at], fontsize=8)
        left.invert_yaxis()
        left.set_xlabel("time (ms), each algorithm's best configuration")
        left.grid(True, axis="x", alpha=0.3)
        left.set_title(f"{noun}{' of ' + human(largest) if largest > 0 else ''}: "
                       f"fastest first ({where})")
    else:
        for a in ranked:
            xs = sorted(best[a])
            label = a
            if largest in best[a]:
                label += f" ({config_text(best[a][largest])} at {human(largest)})"
            left.plot(xs, [best[a][x]["avg_us"] for x in xs], marker=".", label=label,
                      color=colour[a])
        left.set_xscale("log", base=2)
        left.set_yscale("log")
        left.set_xlabel("message size (bytes)" if operation == "bcast"
                        else "data a call moves (bytes)")
        left.set_ylabel("time (us), each algorithm's best configuration")
        left.set_title(f"{noun}: the best of each algorithm ({where})")
        left.grid(True, which="both", alpha=0.3)
        left.legend(fontsize=7, title="algorithm (its best at the largest size)",
                    title_fontsize=7)

    # Heat map at the largest size: algorithm/policy x segment, relative to the fastest cell.
    cells = {}
    for r in rows:
        if r["size_bytes"] != largest:
            continue
        key = (series_name(r), r.get("segment_bytes", 0))
        if key not in cells or r["avg_us"] < cells[key]:
            cells[key] = r["avg_us"]
    fastest = min(cells.values())
    names = sorted({k[0] for k in cells},
                   key=lambda n: min(t for (m, _), t in cells.items() if m == n))
    segments = sorted({k[1] for k in cells}, key=lambda s: (s == 0, s))  # unsegmented last
    grid = [[cells.get((n, s), math.nan) / fastest for s in segments] for n in names]
    image = right.imshow(grid, cmap="viridis_r", aspect="auto",
                         vmin=1.0, vmax=max(1.5, min(4.0, max(v for row in grid for v in row
                                                              if not math.isnan(v)))))
    right.set_xticks(range(len(segments)),
                     [human(s) if s > 0 else "none" for s in segments], fontsize=8)
    right.set_yticks(range(len(names)), names, fontsize=8)
    right.set_xlabel("segment size")
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if not math.isnan(v):
                right.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7,
                           color="white" if v > 2.2 else "black")
    right.set_title(f"{human(largest) if largest > 0 else ''} x best "
                    f"(1.00 = {fastest:.1f} us; blank: not run)")
    fig.colorbar(image, ax=right, label="time / fastest")
    fig.tight_layout()
    save_atomically(fig, args.output, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
