"""Shared helpers of relay's plots (relay.plot): command line, results, byte-size labels, atomic PNG
writes."""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display on cluster nodes or in CI
import matplotlib.pyplot as plt  # noqa: E402,F401  (re-exported for the scripts)


def human(nbytes):
    """1048576 -> '1MiB', 1000 -> '1000B' (only exact binary multiples get a unit)."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if nbytes >= 1 << shift and nbytes % (1 << shift) == 0:
            return f"{nbytes >> shift}{unit}"
    return f"{nbytes}B"


def save_atomically(fig, path, dpi):
    """Write the whole PNG under a temporary name, then rename: never a half-written plot."""
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=dpi)
    os.replace(tmp, path)


def read_results(description, command, measured_key="avg_us", argv=None):
    """Parses `SCRIPT RESULTS.json -o PLOT.png`; returns (args, doc, measured rows: those with
    `measured_key`) or exits with a message when no row was measured."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("results", help=f"JSON written by {command} --json")
    parser.add_argument("-o", "--output", required=True, help="PNG to write")
    args = parser.parse_args(argv)
    with open(args.results, encoding="utf-8") as f:
        doc = json.load(f)
    rows = [r for r in doc.get("rows", []) if measured_key in r]
    if not rows:
        sys.exit(f"{os.path.basename(sys.argv[0])}: no measured rows in {args.results}")
    return args, doc, rows
