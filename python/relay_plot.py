"""Shared helpers of relay's plot scripts: byte-size labels and atomic PNG writes."""
import os

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
