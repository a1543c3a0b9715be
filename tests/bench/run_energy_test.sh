#!/usr/bin/env bash
# The energy columns of relay bench gemm and relay bench bcast (issue 31, docs/energy.md), run
# small on 2 ranks with RELAY_POWERCAP_ROOT pointed at fake powercap trees made here:
#   1. a static tree (package-0 with its dram zone, counters that do not move): every row's
#      joules and watts are the number 0, in the JSON and in the tables, for relay's rows and
#      ScaLAPACK's alike; the document says nothing is unavailable and counts 1 node;
#   2. a tree without a dram zone: package 0, dram null in every row, the reason once in the
#      document and in the note above the tables, "unavailable" in the DRAM columns;
#   3. no tree at all (as on a machine without RAPL): every field null, "unavailable" printed,
#      the reason said; bench bcast with --rounds 2 (rows combined over rounds) and --osu.
# Usage: run_energy_test.sh MPIEXEC RELAY [mpiexec flags...]
set -uo pipefail
mpiexec=$1 relay=$2
shift 2
flags=("$@")
. "$(dirname "$0")/../cli_test_common.sh"
run() {  # ROOT relay-args...: 2 ranks with RELAY_POWERCAP_ROOT=ROOT
  local root=$1
  shift
  timeout 120 "$mpiexec" -n 2 "${flags[@]}" env OPENBLAS_NUM_THREADS=1 \
    RELAY_POWERCAP_ROOT="$root" "$relay" "$@" >"$out" 2>&1 || fail "relay $*: exited $?"
}
gemm() { run "$1" bench gemm --n 96 --block 32 --reps 2 --schemes binomial --lookahead 0 --quiet \
  --json "$2"; }
bcast() {
  local root=$1 json=$2
  shift 2
  run "$root" bench bcast --sizes 1KiB,4KiB --algorithms binomial --policies nonblocking \
    --segments 0 --baselines none --min-time 0.005 --warmup 1 --quiet --json "$json" "$@"
}
# A zone: DIR NAME ENERGY_UJ RANGE_UJ
zone() {
  mkdir -p "$1" && echo "$2" >"$1/name" && echo "$3" >"$1/energy_uj" &&
    echo "$4" >"$1/max_energy_range_uj"
}
# Checks a results document: PATH PACKAGE DRAM, each "zero" (every row 0) or "null:TEXT" (every
# row null, the document's reason containing TEXT).
check() {
  python3 - "$@" <<'PY' || fail "$1: energy fields"
import json, sys
path, package, dram = sys.argv[1:]
doc = json.load(open(path))
e = doc["energy"]
assert e["nodes"] == 1 and e["meter"].startswith("RAPL ("), e
assert doc["rows"], "no rows"
for domain, want in (("package", package), ("dram", dram)):
    for r in doc["rows"]:
        assert r["energy_calls"] >= 1 and r["energy_seconds"] >= 0, r
        for f in (f"energy_{domain}_J", f"power_{domain}_W"):
            if want == "zero":
                assert r[f] == 0, (f, r)
            else:
                assert r[f] is None, (f, r)
    if want == "zero":
        assert e["unavailable"][domain] is None, e
    else:
        assert want[len("null:"):] in e["unavailable"][domain], e
print(f"{path}: {len(doc['rows'])} rows, package {package}, dram {dram}")
PY
}

# 1. A static tree, nested as the kernel makes it, plus a core zone that is not counted.
static=$work/static
zone "$static/intel-rapl:0" package-0 123456789 262143328850
zone "$static/intel-rapl:0/intel-rapl:0:0" core 42 262143328850
zone "$static/intel-rapl:0/intel-rapl:0:1" dram 987654 65712999613
gemm "$static" "$work/gemm_static.json"
grep -q '^# energy: RAPL ('"$static"'), summed over 1 node' "$out" || fail "no energy note (gemm)"
grep -q 'Pkg(J)     DRAM(J)      Pkg(W)     DRAM(W)$' "$out" || fail "no energy columns (gemm)"
if grep -q unavailable "$out"; then fail "a static tree printed unavailable (gemm)"; fi
grep -Eq '^scalapack .* 0 +0 +0 +0$' "$out" || [ "$(grep -c '^scalapack' "$out")" -eq 0 ] ||
  fail "ScaLAPACK's row has no zero energy"
grep -Eq '^2d .* 0 +0 +0 +0$' "$out" || fail "relay's row has no zero energy"
check "$work/gemm_static.json" zero zero
bcast "$static" "$work/bcast_static.json"
grep -Eq '^1024 .* 0 +0 +0 +0$' "$out" || fail "bcast's row has no zero energy"
check "$work/bcast_static.json" zero zero

# 2. No dram zone.
nodram=$work/nodram
zone "$nodram/intel-rapl:0" package-0 5 262143328850
gemm "$nodram" "$work/gemm_nodram.json"
grep -q 'dram unavailable: no dram zone' "$out" || fail "the missing dram zone is not said (gemm)"
grep -Eq '^2d .* 0 +unavailable +0 +unavailable$' "$out" || fail "gemm's DRAM columns"
check "$work/gemm_nodram.json" zero "null:no dram zone"
bcast "$nodram" "$work/bcast_nodram.json" --rounds 2
grep -Eq '^4096 .* 0 +unavailable +0 +unavailable$' "$out" || fail "bcast's DRAM columns"
check "$work/bcast_nodram.json" zero "null:no dram zone"

# 3. No powercap tree.
none=$work/none
gemm "$none" "$work/gemm_none.json"
grep -q "unavailable: no powercap tree at $none" "$out" || fail "no tree is not said (gemm)"
grep -Eq '^2d .*( unavailable){4}$' "$out" || fail "gemm's columns without a tree"
check "$work/gemm_none.json" "null:no powercap tree" "null:no powercap tree"
bcast "$none" "$work/bcast_none.json" --rounds 2
grep -Eq '^1024 .*( unavailable){4}$' "$out" || fail "bcast's columns without a tree"
check "$work/bcast_none.json" "null:no powercap tree" "null:no powercap tree"
run "$none" bench bcast -m 1:4 --osu -i 5 -x 1 --algorithms mpi --baselines none --quiet \
  --json "$work/bcast_osu.json"
grep -q 'in the JSON: --osu prints' "$out" || fail "--osu does not say where the energy is"
check "$work/bcast_osu.json" "null:no powercap tree" "null:no powercap tree"
run "$static" bench bcast -m 1:4 --osu -i 5 -x 1 --algorithms mpi --baselines none --quiet \
  --json "$work/bcast_osu_static.json"
check "$work/bcast_osu_static.json" zero zero
echo "PASS: energy columns from fake powercap trees (static: 0; no dram: null; no tree: null)"
