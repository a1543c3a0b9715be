"""relay-plot [KIND] RESULTS.json -o PLOT.png: draws a relay result file. KIND (bcast, gemm,
overlap, symm, purify, tune) defaults to what the file's schema says."""

import argparse
import importlib
import json
import sys

from . import KINDS

NAMES = sorted(set(KINDS.values()))


def kind_of(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            schema = str(json.load(f).get("schema", ""))
    except (OSError, ValueError, AttributeError) as error:
        sys.exit(f"relay-plot: {path}: not a JSON result of relay ({error})")
    kind = KINDS.get(schema.split("/")[0])
    if kind is None:
        sys.exit(f"relay-plot: {path}: schema '{schema}' is not one relay-plot draws; name the "
                 f"kind ({', '.join(NAMES)})")
    return kind


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        parser = argparse.ArgumentParser(prog="relay-plot", description=__doc__)
        parser.add_argument("kind", nargs="?", choices=NAMES)
        parser.add_argument("results", help="JSON written by relay (bench, tune, purify) --json")
        parser.add_argument("-o", "--output", required=True, help="PNG to write")
        parser.print_help()
        return 0 if argv else 2
    kind = argv.pop(0) if argv[0] in NAMES else kind_of(argv[0])
    module = importlib.import_module(f".{kind}", __package__)
    return module.main(argv) or 0


if __name__ == "__main__":
    sys.exit(main())
