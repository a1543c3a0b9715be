#!/usr/bin/env python3
"""Plot `relay tune` results (JSON) as a PNG.

Top row, one panel per message size: measured (solid, markers) and predicted (dashed) time over
segment sizes for every algorithm and policy tuned (vadhiyar2004 Figs. 7-10); the model's pick
and the measured best are marked. Bottom row, same sizes: the exhaustive curve of the winning
algorithm with the points MGD and SMGD measured, numbered in the order they measured them
(vadhiyar2004 Fig. 3).

usage: relay-plot tune RESULTS.json -o PLOT.png (or python3 tune.py ...)
"""
import argparse
import json
import sys

if __package__:
    from ._common import human, plt, save_atomically
else:  # run as a file, as relay's command line does: its folder is on sys.path
    from _common import human, plt, save_atomically

def axis_name(axis):
    return f"{axis['algorithm']}/{axis['policy']}" if axis.get("policy") else axis["algorithm"]

def x_of(segment, message):
    """Unsegmented (0) is drawn at the message size: one segment of the whole message."""
    return segment if segment > 0 else message

def plot_curves(ax, size_doc, colours, operation="bcast"):
    message = size_doc["size_bytes"]
    for axis in size_doc["axes"]:
        name = axis_name(axis)
        colour = colours.setdefault(name, f"C{len(colours) % 10}")
        pts = sorted(axis["points"], key=lambda p: x_of(p["segment_bytes"], message))
        measured = [(x_of(p["segment_bytes"], message), p["time_us"]) for p in pts if "time_us" in p]
        predicted = [(x_of(p["segment_bytes"], message), p["predicted_us"]) for p in pts if "predicted_us" in p]
        if len(measured) == 1 and not predicted:  # an unsegmentable baseline (mpi)
            ax.axhline(measured[0][1] / 1e3, color=colour, linewidth=1, linestyle=":", label=f"{name} (measured)")
            continue
        if measured:
            ax.plot(*zip(*[(x, t / 1e3) for x, t in measured]), color=colour, marker="o", markersize=3,
                    label=f"{name} measured")
        if predicted:
            ax.plot(*zip(*[(x, t / 1e3) for x, t in predicted]), color=colour, linestyle="--", linewidth=1,
                    label=f"{name} predicted")
    methods = {m["method"]: m for m in size_doc["methods"]}
    for method, marker in (("exhaustive", "*"), ("model", "x")):
        if method in methods:
            m = methods[method]
            ax.plot([x_of(m["segment_bytes"], message)], [m["time_us"] / 1e3], marker=marker, markersize=12,
                    color="k", linestyle="none", label=f"{method}'s choice")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("segment size (bytes; unsegmented at the message size)")
    ax.set_ylabel("time (ms)")
    what = "broadcast" if operation == "bcast" else operation
    ax.set_title(f"{what} of {human(message)}: measured vs predicted")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, ncol=2)

def plot_paths(ax, size_doc):
    message = size_doc["size_bytes"]
    methods = {m["method"]: m for m in size_doc["methods"]}
    # The exhaustive curve of the algorithm the searches ended on (or the exhaustive winner).
    target = methods.get("smgd") or methods.get("mgd") or methods.get("exhaustive")
    if target is None:
        ax.set_axis_off()
        return
    curve = next((a for a in size_doc["axes"]
                  if a["algorithm"] == target["algorithm"] and a.get("policy") == target.get("policy")), None)
    if curve is not None:
        pts = sorted((x_of(p["segment_bytes"], message), p["time_us"]) for p in curve["points"] if "time_us" in p)
        if pts:
            ax.plot(*zip(*[(x, t / 1e3) for x, t in pts]), color="0.6", marker="o", markersize=3,
                    label=f"{axis_name(curve)}: every point measured")
    for method, colour in (("mgd", "C3"), ("smgd", "C2")):
        if method not in methods:
            continue
        path = [p for p in methods[method]["path"]
                if p["algorithm"] == target["algorithm"] and p.get("policy") == target.get("policy")]
        if not path:
            continue
        xs = [x_of(p["segment_bytes"], message) for p in path]
        ys = [p["time_us"] / 1e3 for p in path]
        m = methods[method]
        ax.plot(xs, ys, color=colour, marker="s", markersize=4, linewidth=1,
                label=f"{method}: {m['experiments']} experiments, {m['measuring_s']:.2f} s")
        for i, (x, y) in enumerate(zip(xs, ys), 1):
            ax.annotate(str(i), (x, y), textcoords="offset points", xytext=(3, 3), fontsize=6, color=colour)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("segment size (bytes)")
    ax.set_ylabel("time (ms)")
    ax.set_title(f"{human(message)}: search paths on {axis_name(target)}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6)

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="JSON written by relay tune --json")
    parser.add_argument("-o", "--output", required=True, help="PNG to write")
    args = parser.parse_args(argv)
    with open(args.results, encoding="utf-8") as f:
        doc = json.load(f)
    sizes = doc.get("sizes", [])
    if not sizes:
        print(f"relay-plot tune: no sizes in {args.results}", file=sys.stderr)
        return 1
    sizes = sizes[-4:] if len(sizes) > 4 else sizes  # the largest (last) four fit one figure
    fig, panels = plt.subplots(2, len(sizes), figsize=(6.5 * len(sizes), 10), squeeze=False)
    colours = {}
    for col, size_doc in enumerate(sizes):
        plot_curves(panels[0][col], size_doc, colours, doc.get("operation", "bcast"))
        plot_paths(panels[1][col], size_doc)
    fig.suptitle(f"relay tune ({doc.get('operation', 'bcast')}) on {doc.get('ranks', '?')} ranks, "
                 f"model: {doc.get('model', '?')}")
    fig.tight_layout()
    save_atomically(fig, args.output, dpi=100)
    return 0

if __name__ == "__main__":
    sys.exit(main())
