#!/usr/bin/env python3
"""Compares the runs of issue24_before_after.sh: per configuration, the median over rounds of
each side and after/before; the model's predictions compared exactly; the tuner's choices.
Usage: issue24_compare.py OUT_DIR"""
import glob
import json
import math
import statistics
import sys

out = sys.argv[1]


def medians(kind, side, key, value):
    per = {}
    for path in sorted(glob.glob(f"{out}/{kind}.{side}.r*.json")):
        for row in json.load(open(path))["rows"]:
            per.setdefault(key(row), []).append(value(row))
    return {k: statistics.median(v) for k, v in per.items()}


def compare(title, kind, key, value, unit):
    before = medians(kind, "before", key, value)
    after = medians(kind, "after", key, value)
    common = sorted(set(before) & set(after), key=str)
    print(f"## {title}: median of rounds, after/before")
    print(f"{'configuration':58} {'before':>11} {'after':>11} {'after/before':>12}")
    ratios = []
    for k in common:
        r = after[k] / before[k]
        ratios.append(r)
        print(f"{' '.join(map(str, k)):58} {before[k]:>11.4g} {after[k]:>11.4g} {r:>12.3f}")
    gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"# {len(common)} configurations ({unit}); geometric mean {gm:.3f}, "
          f"range {min(ratios):.3f} .. {max(ratios):.3f}; only one side: "
          f"{len(set(before) ^ set(after))}\n")


compare("relay bench bcast, 2 ranks", "bcast",
        lambda r: (r["algorithm"], r["policy"], r["segment_bytes"], r["size_bytes"]),
        lambda r: r["avg_us"], "avg us")
compare("relay bench coll --operation allreduce, 2 ranks", "allreduce",
        lambda r: (r["algorithm"], r["policy"], r["size_bytes"]), lambda r: r["avg_us"], "avg us")
compare("relay bench gemm n=1024 grid 1x2", "gemm", lambda r: (r["scheme"], "L", r["lookahead"]),
        lambda r: r["time_s"], "seconds")

pb = json.load(open(f"{out}/predict.before.json"))["rows"]
pa = json.load(open(f"{out}/predict.after.json"))["rows"]
same = len(pb) == len(pa) and all(
    (a["algorithm"], a["policy"], a["segment_bytes"], a["size_bytes"]) ==
    (b["algorithm"], b["policy"], b["segment_bytes"], b["size_bytes"]) and
    a["predicted_us"] == b["predicted_us"] for a, b in zip(pb, pa))
print(f"## relay model predict (8 ranks, one parameter file): {len(pa)} rows after, {len(pb)} "
      f"before; every row identical: {same}\n")

print("## relay tune --methods smgd, 2 ranks: the table's choice per size and round")
for side in ("before", "after"):
    for path in sorted(glob.glob(f"{out}/tune.{side}.r*.table.json")):
        rules = json.load(open(path))["rules"]
        choices = ", ".join(f"{r['bytes']}: {r['algorithm']} {r.get('policy', '')} "
                            f"{r.get('segment_bytes', 0)}" for r in rules)
        print(f"{side:7} {path.split('.')[-3]}  {choices}")

# The model's picks (deterministic: one parameter file) and what was confirmed, where the
# runs made them (the judge step was added for the second comparison).
judged = {side: sorted(glob.glob(f"{out}/judge.{side}.r*.json")) for side in ("before", "after")}
if judged["before"] and judged["after"]:
    print("\n## relay bench bcast --model --confirm: the model's picks per curve and size, per round")
    for side in ("before", "after"):
        for path in judged[side]:
            doc = json.load(open(path))
            picks = "; ".join(f"{m['size_bytes']} {m['algorithm']} -> {m['model_segment_bytes']}"
                              for m in doc.get("model_accuracy", []))
            choice = "; ".join(f"{c['size_bytes']} -> {c['model']['algorithm']} "
                               f"{c['model']['segment_bytes']}" for c in doc.get("model_choice", []))
            confirmed = sum(1 for _ in doc.get("confirmation", []))
            print(f"{side:7} {path.split('.')[-2]}  picks: {picks} | choice: {choice} | "
                  f"confirmed rows: {confirmed}")
