#!/usr/bin/env python3
"""The differential half of the tuning-table fuzzer (issue 23).

Runs fuzz_tuning_table with --dump-dir, then judges every input it made with a reference: a
strict JSON parser (Python's json, made as strict as relay's reader, below) and a JSON Schema
validator (python3-jsonschema) on schemas/relay-tuning-table.schema.json. It counts, and fails
on, any input that

  * the loader accepted but the reference rejects (not JSON, or the schema says no);
  * the loader rejected although the reference accepts it, for any reason but the checks the
    schema cannot express, each confirmed here independently of the loader's message:
      nesting   objects and arrays nested deeper than kMaxTableDepth (64) levels
                (JSON Schema has no depth limit; "machine" and "notes" are free-form);
      min>max   a range whose min is larger than its max (a schema cannot compare two values);
      overlap   two rules of one operation whose ranges overlap (likewise);
  * the loader accepted, but read other values than the reference (a wrong answer);

and fails when the driver failed, or when fewer inputs were judged than asked for.

The reference parser: RFC 8259 JSON, as relay's reader (nlohmann's, made strict) reads it:
  UTF-8 only, a UTF-8 byte order mark at the start ignored (RFC 8259 8.1 allows either; nlohmann
  skips one); strings must be Unicode (no unpaired surrogate escapes: I-JSON, RFC 7493);
  numbers must be finite as doubles (RFC 8259 6 lets a parser limit their range: 1e400 is
  rejected); NaN and Infinity are not JSON; a key may appear once per object (RFC 8259 4 says
  "SHOULD be unique"; relay refuses duplicates); nothing but whitespace after the document.
  relay also refuses NUL bytes, which JSON allows nowhere outside strings and escaped inside.

  check_against_schema.py --driver BIN --corpus DIR --schema FILE [--count N] [--seed S]
                          [--seconds T] [--keep DIR]
"""

import argparse
import itertools
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

MAX_DEPTH = 64  # relay::coll::kMaxTableDepth

try:
    import jsonschema
except ImportError:
    sys.exit("check_against_schema.py: FAILED: Python's jsonschema is missing "
             "(Debian: apt-get install python3-jsonschema)")


class NotJson(Exception):
    pass


def _no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise NotJson("duplicate key " + repr(key))
        seen[key] = value
    return seen


def _finite_float(text):
    x = float(text)
    if math.isinf(x):
        raise NotJson("number out of the range of a double: " + text[:40])
    return x


def _finite_int(text):
    if math.isinf(float(text)):  # float() first: int() refuses more than 4300 digits
        raise NotJson("number out of the range of a double: " + text[:40])
    return int(text)


def _constant(name):
    raise NotJson(name + " is not JSON")


def _check_strings(value):
    """Unpaired surrogates (from \\ud800 escapes) are not Unicode text."""
    pending = [value]
    while pending:
        v = pending.pop()
        if isinstance(v, str):
            v.encode("utf-8")  # raises UnicodeEncodeError on a surrogate
        elif isinstance(v, dict):
            pending.extend(v.keys())
            pending.extend(v.values())
        elif isinstance(v, list):
            pending.extend(v)


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_STEP = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_STEP_VALUE = {0x01: 1, 0xFF: -1}


def nesting_depth(data):
    """How deeply the text nests objects and arrays outside strings (exact for JSON text)."""
    steps = _STRING.sub(b"", data).translate(_STEP, delete=bytes(
        b for b in range(256) if b not in b"[{]}"))
    return max(itertools.accumulate(_STEP_VALUE[b] for b in steps), default=0)


class SchemaJudge:
    """The validator's verdict on a document. A table's rules are judged one by one, each
    against the schema of a rule, and remembered: the fuzzer's inputs repeat their seeds' rules,
    and a whole-document validation spent most of its time on them. Only when the schema allows
    it: "rules" is {"type": "array", "items": RULE} with no $ref in the schema (else every
    document is validated whole)."""

    def __init__(self, schema):
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        self.whole = cls(schema)
        rules = schema.get("properties", {}).get("rules", {})
        self.split = (set(rules) == {"type", "items"} and rules["type"] == "array" and
                      "$ref" not in json.dumps(schema))
        self.rule = cls(rules["items"]) if self.split else None
        self.memo = {}

    def is_valid(self, doc):
        if not (self.split and isinstance(doc, dict) and isinstance(doc.get("rules"), list)):
            return self.whole.is_valid(doc)
        if not self.whole.is_valid(dict(doc, rules=[])):
            return False
        for r in doc["rules"]:
            key = json.dumps(r, sort_keys=True)
            if key not in self.memo:
                self.memo[key] = self.rule.is_valid(r)
            if not self.memo[key]:
                return False
        return True

    def why_not(self, doc):
        error = jsonschema.exceptions.best_match(self.whole.iter_errors(doc))
        return "%s (at %s)" % (error.message[:160], "/".join(map(str, error.absolute_path)))


def parse_strict(data):
    if b"\0" in data:
        raise NotJson("a NUL byte")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise NotJson("not UTF-8: " + str(e)) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicates, parse_float=_finite_float,
                         parse_int=_finite_int, parse_constant=_constant)
        _check_strings(doc)
    except (ValueError, UnicodeError, RecursionError) as e:  # JSONDecodeError is a ValueError
        raise NotJson(str(e)[:200]) from None
    return doc


def semantic_problems(doc):
    """What the loader checks beyond the schema, on a schema-valid document."""
    problems = set()
    rules = doc["rules"]
    for r in rules:
        if r["comm_size"][0] > r["comm_size"][1] or r["bytes"][0] > r["bytes"][1]:
            problems.add("min>max")
    if "min>max" in problems:
        return problems
    by_op = {}
    for r in rules:
        by_op.setdefault(r["operation"], []).append(r)
    for same in by_op.values():
        # Sweep over comm sizes; fine for the sizes the fuzzer makes.
        same = sorted(same, key=lambda r: r["comm_size"][0])
        for i, a in enumerate(same):
            for b in same[i + 1:]:
                if b["comm_size"][0] > a["comm_size"][1]:
                    break
                if a["bytes"][0] <= b["bytes"][1] and b["bytes"][0] <= a["bytes"][1]:
                    problems.add("overlap")
                    return problems
    return problems


RULE_DEFAULTS = {"policy": "nonblocking", "segment_bytes": 0, "fanout": 0, "source": ""}


def as_doubles(value):
    """Numbers as the doubles relay keeps where a field is a number, not an integer (measured
    times, the free-form machine): 1e29 written as 30 digits reads as the nearest double."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, list):
        return [as_doubles(v) for v in value]
    return {k: as_doubles(v) for k, v in value.items()}


def same_values(doc, loaded):
    """The loader's table (as relay writes it) against the reference's reading of the input."""
    if as_doubles(loaded.get("machine", {})) != as_doubles(doc.get("machine", {})):
        return "machine"
    if loaded.get("created", "") != doc.get("created", ""):
        return "created"
    if len(loaded["rules"]) != len(doc["rules"]):
        return "the number of rules"
    for i, (got, want) in enumerate(zip(loaded["rules"], doc["rules"])):
        for key in ("operation", "comm_size", "bytes", "algorithm", "policy", "segment_bytes",
                    "fanout", "source", "measured_s", "predicted_s"):
            g = got.get(key, RULE_DEFAULTS.get(key))
            w = want.get(key, RULE_DEFAULTS.get(key))
            if key.endswith("_s"):
                g, w = as_doubles(g), as_doubles(w)
            if g != w:
                return "rules[%d].%s: loaded %r, the input says %r" % (i, key, g, w)
    return None


def read_dump(path):
    """The driver's records; a record cut short (the driver died writing it) ends them."""
    with open(path, "rb") as f:
        while True:
            header = f.readline()
            fields = header.split()
            if len(fields) != 4 or not header.endswith(b"\n"):
                if header:
                    print("check_against_schema.py: %s ends in a partial record" % path)
                return
            index, size, verdict, message_size = fields
            data = f.read(int(size))
            message = f.read(int(message_size)).decode("utf-8", "replace")
            if len(data) != int(size) or f.read(1) != b"\n":
                print("check_against_schema.py: %s ends in a partial record" % path)
                return
            yield int(index), data, verdict == b"A", message


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--driver", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--schema", required=True)
    ap.add_argument("--count", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--keep", help="a directory for the dump (kept), instead of a temporary one")
    a = ap.parse_args()
    # The reference parser recurses once per level: enough for the nesting the loader refuses
    # short of the fuzzer's deepest (100,000 levels, "too deep" below).
    sys.setrecursionlimit(20000)

    with open(a.schema, encoding="utf-8") as f:
        judge = SchemaJudge(json.load(f))

    work = a.keep or tempfile.mkdtemp(prefix="relay-fuzz-")
    os.makedirs(work, exist_ok=True)
    command = [a.driver, "--corpus", a.corpus, "--count", str(a.count), "--seed", str(a.seed),
               "--seconds", str(a.seconds), "--dump-dir", work]
    print("check_against_schema.py: " + " ".join(command), flush=True)
    started = time.monotonic()
    driver = subprocess.run(command)
    driver_s = time.monotonic() - started

    counts = {"inputs": 0, "accepted": 0, "rejected": 0, "not JSON": 0, "schema rejects": 0,
              "schema accepts": 0, "nesting": 0, "min>max": 0, "overlap": 0, "too deep": 0}
    mismatches = {"loader accepts, reference rejects": [],
                  "reference accepts, loader rejects": [],
                  "accepted with other values": []}
    for index, data, accepted, message in read_dump(os.path.join(work, "inputs.bin")):
        counts["inputs"] += 1
        counts["accepted" if accepted else "rejected"] += 1
        depth = nesting_depth(data)
        deep = depth > MAX_DEPTH
        if depth > 5000:
            # Too deep for the reference parser; whatever else it holds, the loader must refuse
            # it (for its depth, or for what it finds before the 65th level).
            counts["too deep"] += 1
            if accepted:
                mismatches["loader accepts, reference rejects"].append(
                    (index, "%d levels deep, accepted" % depth))
            continue
        try:
            doc = parse_strict(data)
        except NotJson as e:
            counts["not JSON"] += 1
            if accepted:
                mismatches["loader accepts, reference rejects"].append((index, "not JSON: %s" % e))
            continue
        if not judge.is_valid(doc):
            counts["schema rejects"] += 1
            if accepted:
                mismatches["loader accepts, reference rejects"].append(
                    (index, "schema: %s" % judge.why_not(doc)))
            continue
        counts["schema accepts"] += 1
        if deep:
            # The limit the schema cannot express (the loader's message is checked as well).
            counts["nesting"] += 1
            if accepted or "nesting deeper than %d" % MAX_DEPTH not in message:
                mismatches["reference accepts, loader rejects"].append(
                    (index, "deeper than %d levels; loader: %s" % (
                        MAX_DEPTH, "accepted" if accepted else message[:200])))
            continue
        problems = semantic_problems(doc)
        if problems:
            kind = sorted(problems)[0]
            counts[kind] += 1
            expected = "> max" if kind == "min>max" else "overlaps rules["
            if accepted or expected not in message:
                mismatches["reference accepts, loader rejects"].append(
                    (index, "%s; loader: %s" % (kind, "accepted" if accepted else message[:200])))
            continue
        if not accepted:
            mismatches["reference accepts, loader rejects"].append((index, message[:200]))
            continue
        wrong = same_values(doc, json.loads(message))
        if wrong:
            mismatches["accepted with other values"].append((index, wrong))

    total_s = time.monotonic() - started
    print("check_against_schema.py: %d inputs (seed %d) in %.1f s (driver %.1f s): "
          "loader accepted %d, rejected %d" % (counts["inputs"], a.seed, total_s, driver_s,
                                               counts["accepted"], counts["rejected"]))
    print("  reference: not JSON %d, schema rejects %d, schema accepts %d, too deep to parse %d"
          % (counts["not JSON"], counts["schema rejects"], counts["schema accepts"],
             counts["too deep"]))
    print("  schema accepts, loader rejects by a check the schema cannot express: "
          "nesting > %d: %d, min > max: %d, overlapping rules: %d" % (
              MAX_DEPTH, counts["nesting"], counts["min>max"], counts["overlap"]))
    failed = False
    for name, found in mismatches.items():
        print("  MISMATCH %s: %d" % (name, len(found)))
        for index, why in found[:10]:
            print("    input %d: %s" % (index, why))
        failed = failed or bool(found)
    if driver.returncode != 0:
        print("check_against_schema.py: FAILED: the driver %s" % (
            "exited with %d" % driver.returncode if driver.returncode > 0 else
            "was killed by signal %d (a crash: the input is in the file it named)"
            % -driver.returncode))
        failed = True
    if counts["inputs"] < a.count:
        print("check_against_schema.py: FAILED: judged %d inputs of the %d asked for"
              % (counts["inputs"], a.count))
        failed = True
    if failed and not a.keep:
        print("check_against_schema.py: the inputs are in %s/inputs.bin" % work)
    elif not a.keep:
        os.remove(os.path.join(work, "inputs.bin"))
        os.rmdir(work)
    print("check_against_schema.py: %s" % ("FAILED" if failed else "passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
