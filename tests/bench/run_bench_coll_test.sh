#!/usr/bin/env bash
# relay bench coll --operation OP: the benchmark of the collectives other than broadcast.
#   1. allreduce on 3 ranks, --algorithms all, two sizes, --model (parameters from relay model
#      measure), --confirm: every expected row is in the JSON (every algorithm of `relay
#      algorithms` x policies x segments, auto and mpi once), measured and checked; rows that
#      ran a schedule carry the model's prediction, mpi's do not; the tables, the summary and
#      the confirmation are printed; the model accuracy per curve and the model's choice among
#      all follow the rows' predictions.
#   2. allgather on 3 ranks: --algorithms all leaves out recursive_doubling (it needs a
#      power-of-two count) and says so; named explicitly it is timed and its rows say that bruck
#      ran.
#   3. allgatherv on 4 ranks with --model: sizes rounded down to whole blocks of doubles and
#      recorded as used; predictions on every row with a schedule; --plot draws a PNG when
#      matplotlib is there.
#   4. barrier: one row per configuration.
#   5. a relay error (RELAY_ALLREDUCE_SEGMENT_BYTES=12, not whole doubles) gives ERROR rows on
#      every configuration and a non-zero exit.
#   6. bad arguments are refused, naming the problem: an unknown --operation, bcast, an
#      algorithm of another operation, a root that is not a rank.
# Usage: run_bench_coll_test.sh MPIEXEC RELAY [mpiexec flags...]
set -uo pipefail
mpiexec=$1 relay=$2
shift 2
flags=("$@")
. "$(dirname "$0")/../cli_test_common.sh"
run() { local n=$1; shift; timeout 120 "$mpiexec" -n "$n" "${flags[@]}" env OPENBLAS_NUM_THREADS=1 "$@" >"$out" 2>&1; }
quick=(--min-time 0.005 --warmup 1 --quiet)

"$relay" algorithms >"$work/algorithms" 2>&1 || { out=$work/algorithms; fail "relay algorithms exited $?"; }
run 4 "$relay" model measure --sizes 1KiB,64KiB --max-seconds 0.02 --quiet --output "$work/params.json" ||
  fail "relay model measure exited $?"

# Checks a relay.bench.coll/1 file: OPERATION RANKS SIZES(comma) ALGORITHMS(comma: expected
# names) POLICIES SEGMENTS MODEL(0/1).
check_rows() {
  python3 - "$@" <<'PY'
import json, sys
path, op, ranks, sizes, algorithms, policies, segments, model = sys.argv[1:]
doc = json.load(open(path))
assert doc["schema"] == "relay.bench.coll/1", doc["schema"]
assert doc["operation"] == op, doc["operation"]
rows = doc["rows"]
sizes = [int(s) for s in sizes.split(",")]
expected = set()
for a in algorithms.split(","):
    for s in sizes:
        if a in ("auto", "mpi"):
            expected.add((a, "-", 0, s))
        else:
            for p in policies.split(","):
                for g in segments.split(","):
                    expected.add((a, p, int(g), s))
got = [(r["algorithm"], r["policy"], r["segment_bytes"], r["size_bytes"]) for r in rows]
assert len(got) == len(set(got)), "duplicate rows"
assert set(got) == expected, f"missing {sorted(expected - set(got))}, unexpected {sorted(set(got) - expected)}"
rooted = op in ("reduce", "gather", "scatter")
for r in rows:
    assert "error" not in r, r
    assert r["operation"] == op and r["ranks"] == int(ranks), r
    assert (r["root"] == 0) if rooted else (r["root"] is None), r
    assert r["avg_us"] > 0 and r["min_us"] <= r["avg_us"] <= r["max_us"] and r["iterations"] > 0, r
    assert r["bandwidth_MBps"] >= 0 and "resolved" in r, r
    if model == "1":
        ran = r["resolved"].split()[0].split("=")[1]
        if ran == "mpi":
            assert "predicted_us" not in r, r
        else:
            assert r["predicted_us"] > 0, r
            assert abs(r["predicted_over_measured"] - r["predicted_us"] / r["avg_us"]) < 1e-9 * r["predicted_us"], r
    else:
        assert "predicted_us" not in r, r
PY
}
# The algorithms `relay algorithms` lists for an operation, auto first.
algorithms_of() {
  awk -v h="$1 algorithms" '$0 ~ "^" h " " {on = 1; next} on && NF == 0 {exit} on {print $1}' "$work/algorithms" |
    paste -sd, -
}

allreduce=$(algorithms_of allreduce)
[[ "$allreduce" == auto,*,mpi ]] || fail "cannot read the allreduce algorithms from relay algorithms: '$allreduce'"
run 3 "$relay" bench coll --operation allreduce --sizes 1000,8KiB --algorithms all --segments 0,1KiB \
  --model "$work/params.json" --confirm 1 --confirm-rounds 2 --json "$work/allreduce.json" "${quick[@]}" ||
  fail "relay bench coll --operation allreduce exited $?"
check_rows "$work/allreduce.json" allreduce 3 1000,8192 "$allreduce" blocking,nonblocking 0,1024 1 ||
  fail "allreduce rows are wrong"
grep -q '^# allreduce algorithm=ring policy=nonblocking segment=1KiB ranks=3 max_requests=16 rounds=1$' "$out" ||
  fail "no table header for ring"
grep -q '^# Size .*MB/s .*DRAM(W)    Model(us) Model/meas$' "$out" || fail "no model columns"
grep -Eq '^8192 +mpi +- +none .* +-$' "$out" || fail "mpi's summary row should have no model time"
[ "$(grep -c '^# Confirmation' "$out")" -eq 2 ] || fail "expected a confirmation table per size"
grep -A6 '^# Confirmation, 8KiB' "$out" | grep '^auto ' >/dev/null || fail "auto missing from the confirmation"
[ "$(grep -c '^# Model accuracy, ' "$out")" -eq 2 ] || fail "expected a model accuracy table per size"
[ "$(grep -c "^# The model's choice among all " "$out")" -eq 2 ] || fail "expected the model's choice per size"
# The picks are recomputed from the rows' predictions: per curve the largest segment within 1%
# of its best prediction (0 = the whole vector), among all the lowest prediction.
python3 - "$work/allreduce.json" <<'PY' || fail "the model accuracy or choice does not follow the rows"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = [r for r in doc["rows"] if "predicted_us" in r and r["algorithm"] not in ("auto", "mpi")]
acc, choice = doc["model_accuracy"], doc["model_choice"]
for size in (1000, 8192):
    mine = [r for r in rows if r["size_bytes"] == size]
    curves = {(r["algorithm"], r["policy"]) for r in mine}
    got = {(a["algorithm"], a["policy"]): a for a in acc if a["size_bytes"] == size}
    assert set(got) == curves, (size, sorted(curves - set(got)), sorted(set(got) - curves))
    eff = lambda r: size if r["segment_bytes"] <= 0 or r["segment_bytes"] >= size else r["segment_bytes"]
    for key, a in got.items():
        curve = [r for r in mine if (r["algorithm"], r["policy"]) == key]
        best = min(r["predicted_us"] for r in curve)
        pick = max((r for r in curve if r["predicted_us"] <= best * 1.01), key=eff)
        assert eff(pick) == eff({"segment_bytes": a["model_segment_bytes"]}), (key, a, pick)
        fastest = min(r["avg_us"] for r in curve)
        assert abs(a["x_best"] - a["model_measured_us"] / fastest) < 1e-9 and a["x_best"] >= 1, a
        assert len(a["confirmation"]) == 2 and a["confirmed_x_best"] >= 1, a
        assert all(len(c["round_us"]) == 2 for c in a["confirmation"]), a
        # the sweep's fastest is in the head-to-head group; its figure is its entry's
        [f] = [c for c in a["confirmation"] if c["segment_bytes"] == a["fastest_segment_bytes"]]
        assert a["fastest_confirmed_x_best"] == f["relative"] >= 1, a
    [c] = [c for c in choice if c["size_bytes"] == size]
    low = min(mine, key=lambda r: r["predicted_us"])
    assert (c["model"]["algorithm"], c["model"]["policy"]) == (low["algorithm"], low["policy"]), (c, low)
    assert abs(c["model"]["predicted_us"] - low["predicted_us"]) < 1e-9 * low["predicted_us"], (c, low)
    assert c["fastest"]["measured_us"] == min(r["avg_us"] for r in mine) and c["x_best"] >= 1, c
    assert c["confirmation"][0]["algorithm"] == c["model"]["algorithm"] and len(c["confirmation"]) == 3, c
PY
echo "1. allreduce, 3 ranks: every expected row measured and checked, model columns, confirmation, model accuracy and choice"

allgather=$(algorithms_of allgather)
[[ ",$allgather," == *,recursive_doubling,* ]] || fail "allgather has no recursive_doubling: '$allgather'"
run 3 "$relay" bench coll --operation allgather --sizes 1KiB --algorithms all --policies nonblocking \
  --segments 0 --json "$work/allgather.json" "${quick[@]}" || fail "relay bench coll --operation allgather exited $?"
grep -q "recursive_doubling needs a power-of-two process count: left out on 3 ranks (relay would run bruck" "$out" ||
  fail "no note that recursive_doubling is left out"
check_rows "$work/allgather.json" allgather 3 1008 "${allgather/recursive_doubling,/}" nonblocking 0 0 ||
  fail "allgather rows are wrong (recursive_doubling should be left out, 1KiB used as 1008 bytes)"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["left_out"] == [{"algorithm": "recursive_doubling", "fallback": "bruck"}]' \
  "$work/allgather.json" || fail "left_out does not name recursive_doubling and bruck"
run 3 "$relay" bench coll --operation allgather --sizes 1KiB --algorithms recursive_doubling \
  --policies nonblocking --segments 0 --json "$work/named.json" "${quick[@]}" || fail "named recursive_doubling exited $?"
grep -q "on 3 ranks relay runs bruck instead; timed because it was named" "$out" || fail "no note that bruck runs"
grep -q '"resolved": "algorithm=bruck .*(recursive_doubling needs a power-of-two size: ran bruck)"' "$work/named.json" ||
  fail "the named row does not say bruck ran"
echo "2. allgather, 3 ranks: recursive_doubling left out of all; named, it runs bruck and says so"

allgatherv=$(algorithms_of allgatherv)
plot=()
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then plot=(--plot "$work/allgatherv.png"); fi
run 4 "$relay" bench coll --operation allgatherv --sizes 1000,1KiB --algorithms all --policies nonblocking \
  --segments 0,512 --model "$work/params.json" --json "$work/allgatherv.json" "${plot[@]}" "${quick[@]}" ||
  fail "relay bench coll --operation allgatherv exited $?"
grep -q "all 4 ranks' blocks together, in whole doubles (rounded: 1000 -> 992 bytes)" "$out" ||
  fail "no note of the rounded size"
check_rows "$work/allgatherv.json" allgatherv 4 992,1024 "$allgatherv" nonblocking 0,512 1 ||
  fail "allgatherv rows are wrong"
if [ ${#plot[@]} -gt 0 ]; then [ -s "$work/allgatherv.png" ] || fail "--plot drew nothing"; fi
echo "3. allgatherv, 4 ranks: sizes 992 and 1024 bytes, every row, predictions${plot:+, plot}"

run 3 "$relay" bench coll --operation barrier --algorithms all --policies nonblocking --json "$work/barrier.json" \
  "${quick[@]}" || fail "relay bench coll --operation barrier exited $?"
check_rows "$work/barrier.json" barrier 3 0 "$(algorithms_of barrier)" nonblocking 0 0 || fail "barrier rows are wrong"
echo "4. barrier: one row per configuration"

run 3 env RELAY_ALLREDUCE_SEGMENT_BYTES=12 "$relay" bench coll --operation allreduce --sizes 1KiB \
  --algorithms ring,mpi --policies nonblocking --segments 0 --json "$work/errors.json" "${quick[@]}" &&
  fail "ERROR rows but exit 0"
[ "$(grep -c '^1024 *ERROR: relay_allreduce: argument 7 (options->segment_bytes = 12) is not a whole number' "$out")" -eq 2 ] ||
  fail "expected 2 ERROR rows naming the segment size"
python3 -c 'import json, sys; rows = json.load(open(sys.argv[1]))["rows"]; assert len(rows) == 2 and all("error" in r and "avg_us" not in r for r in rows), rows' \
  "$work/errors.json" || fail "the JSON does not record the errors"
echo "5. a relay error: ERROR rows, recorded, exit non-zero"

refused() {  # EXPECTED-MESSAGE ARGS...
  local want=$1; shift
  run 3 "$relay" bench coll "$@" --sizes 1KiB "${quick[@]}" && fail "accepted: $*"
  grep -qF -- "$want" "$out" || fail "refusing '$*' does not say: $want"
}
refused "--operation allreduce_typo is not one of reduce, allreduce, allgather, reduce_scatter_block, gather, scatter, alltoall, barrier, allgatherv" \
  --operation allreduce_typo
refused "--operation bcast: broadcasts have their own benchmark, relay bench bcast" --operation bcast
refused "--algorithms: 'bruck' is an algorithm of allgather, alltoall, not of allreduce" --operation allreduce --algorithms ring,bruck
refused "'nosuch' is not a allreduce algorithm" --operation allreduce --algorithms nosuch
refused "--root 3 is not a rank (0..2)" --operation gather --root 3
refused "--segments: 12 bytes is not a whole number of doubles" --operation reduce --segments 12
echo "6. bad arguments refused, naming the problem"
echo "bench_coll: all checks passed"
