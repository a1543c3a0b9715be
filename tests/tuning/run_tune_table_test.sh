#!/usr/bin/env bash
# Issue 4's MPI test of the tuning loop: `relay tune` on 4 ranks with a tiny budget writes a
# decision table; relay_bcast(auto) then follows it, and RELAY_LOG shows which rule chose what.
#   1. relay tune (SMGD, two sizes; 2 ranks predicted by the model) writes a table that
#      `relay table` validates; each measured size's rule is the winner of the confirmation
#      (SMGD's fastest few, and other algorithms' best, measured again head to head);
#   2. relay bench bcast --algorithms auto, with RELAY_TUNING_FILE: every rank logs
#      "(auto: table FILE rule N)" for each size, the same number of calls as every other rank,
#      and the algorithm, policy and segment size it ran are the ones rule N holds (each rank's
#      log read from a file of its own: see run_logged); relay bench's JSON says the same of
#      auto's rows and of its confirmation rows;
#      The GEMM's panel broadcasts on a 2x2 grid (auto by default; 2-rank row and column
#      communicators) follow the table's predicted 2-rank rules, on every rank.
#   3. a malformed table makes auto fail with a message naming the file and the problem.
#   4. relay model measure (--pairs auto: all 4 ranks in pairs at once when they outnumber the
#      cores) writes a parameter file with every size asked, the forwarding-rank link sharing
#      and the transfer slots; --pairs with a bad value is refused.
#   5. relay bench bcast --model (those parameters) reports, per algorithm, the segment the
#      model predicts best against the fastest measured, and confirms both head to head.
#   6. relay model predict --operation allgather costs every allgather schedule (5 ranks:
#      recursive doubling is said to run bruck) and refuses an unknown operation.
#   7. relay tune --operation allreduce writes a valid table of allreduce rules; on 3 ranks,
#      tune --operation allgather leaves out the algorithm that needs a power-of-two count.
# Usage: run_tune_table_test.sh MPIEXEC RELAY [mpiexec flags...]
set -uo pipefail
mpiexec=$1 relay=$2
shift 2
flags=("$@")
. "$(dirname "$0")/../cli_test_common.sh"
run() { timeout 240 "$mpiexec" -n 4 "${flags[@]}" "$@" >"$out" 2>&1; }
# run, but every process's stderr (where RELAY_LOG writes) to a file of its own, $logs/stderr.PID.
# Not through mpiexec: it forwards each rank's output in chunks of its own size (Open MPI: 4096
# bytes) whatever the line ends, so in one stream a rank's line can be cut and go on with another
# rank's (".. (auto: tablrelay[1]: relay_bcast bytes=4096 .."), the first rank's size read with
# the other's choice. $out gets mpiexec's output (rank 0's stdout) and then what the ranks wrote
# to stderr besides the log (errors).
logs=$work/logs
run_logged() {
  rm -rf "$logs" && mkdir "$logs" || return 1
  timeout 240 "$mpiexec" -n 4 "${flags[@]}" sh -c 'exec "$@" 2>"$0/stderr.$$"' "$logs" "$@" >"$out" 2>&1
  local rc=$? f
  for f in "$logs"/stderr.*; do
    [ -s "$f" ] || continue
    grep -v '^relay\[[0-9]*\]: relay_' "$f" | sed "s|^|${f##*/}: |" >>"$out"
  done
  return $rc
}
# check_auto_log FUNCTION RANKS MIN-PER-RANK SIZES: every process's log ($logs) is one rank's,
# ranks 0-3 each have one; every FUNCTION line on RANKS ranks that auto resolved names
# "(auto: table $table rule N)", and ran rule N's algorithm, policy and segment size (none when
# the segment is not smaller than the message), N being a rule for that size and process count;
# each rank logged at least MIN-PER-RANK such calls, and of each of SIZES (comma list, or -) the
# same number as every other rank.
check_auto_log() {
  python3 - "$table" "$logs" "$@" <<'PY'
import collections, json, os, re, sys
table, logs, fn, ranks, least, sizes = sys.argv[1:]
ranks, least = int(ranks), int(least)
rules = json.load(open(table))["rules"]
line_re = re.compile(r"relay\[(\d+)\]: " + re.escape(fn) + r" bytes=(\d+) ranks=(\d+) root=(\d+) "
                     r"algorithm=(\S+) policy=(\S+) segment_bytes=(\d+) fanout=(\d+) max_requests=(\d+)"
                     r"(?: \(auto: (.*)\))?")
origin_re = re.compile(r"table (.+) rule (\d+)")
calls = {}  # rank -> Counter(size -> calls that followed the table)
for name in sorted(os.listdir(logs)):
    mine = set()
    counted = collections.Counter()
    for no, line in enumerate(open(os.path.join(logs, name)), 1):
        line = line.rstrip("\n")
        where = f"{name}:{no}"
        r = re.match(r"relay\[(-?\d+)\]: (\S+) ", line)
        if not r:
            continue
        mine.add(int(r.group(1)))
        if r.group(2) != fn:
            continue
        m = line_re.fullmatch(line)
        if not m:
            sys.exit(f"{where}: not a whole {fn} log line: {line}")
        rank, size, n, root, alg, pol, seg, fanout, window, auto = m.groups()
        size = int(size)
        if int(n) != ranks:
            continue
        if auto is None:  # an algorithm named by the caller (relay bench's other rows)
            continue
        o = origin_re.fullmatch(auto)
        if not o or o.group(1) != table:
            sys.exit(f"{where}: rank {rank}, {size} B: auto chose by '{auto}', not by a rule of {table}")
        rule = rules[int(o.group(2))]
        lo, hi = rule["bytes"]
        want_seg = rule["segment_bytes"] if rule["segment_bytes"] < size else 0
        ok = (rule["operation"] == "bcast" and lo <= size <= hi
              and rule["comm_size"][0] <= ranks <= rule["comm_size"][1]
              and alg == rule["algorithm"] and pol == rule["policy"] and int(seg) == want_seg)
        if not ok:
            sys.exit(f"{where}: rank {rank}, {size} B: ran {alg}/{pol}/{seg} by rule {o.group(2)} = {rule}")
        counted[size] += 1
    if len(mine) > 1:
        sys.exit(f"{name}: lines of ranks {sorted(mine)} in one process's log")
    if mine:
        (rank,) = mine
        if rank in calls:
            sys.exit(f"{name}: a second process logged as rank {rank}")
        calls[rank] = counted
if sorted(calls) != list(range(4)):
    sys.exit(f"logs of ranks {sorted(calls)}, want 0-3")
for rank, counted in sorted(calls.items()):
    if sum(counted.values()) < least:
        sys.exit(f"rank {rank}: {sum(counted.values())} {fn} calls on {ranks} ranks followed the table, want {least} or more")
if sizes != "-":
    for size in map(int, sizes.split(",")):
        per_rank = {rank: counted[size] for rank, counted in calls.items()}
        if min(per_rank.values()) == 0 or len(set(per_rank.values())) != 1:
            sys.exit(f"{size} B: calls that followed the table per rank {per_rank}, want the same number (> 0) on 0-3")
print(", ".join(f"rank {rank}: " + " ".join(f"{c} x {s} B" for s, c in sorted(counted.items()))
                for rank, counted in sorted(calls.items())))
PY
}
table=$work/table.json

run env OPENBLAS_NUM_THREADS=1 "$relay" tune --sizes 4KiB,256KiB --algorithms binomial,pipeline,linear \
  --segments 8KiB:64KiB --methods smgd --min-time 0.005 --predict-ranks 2 --output "$table" --quiet \
  --confirm 3 --confirm-rounds 3 --json "$work/tune.json" || fail "relay tune exited $?"
"$relay" table "$table" >"$out" 2>&1 || fail "relay table rejected what relay tune wrote"
grep -q "valid (4 rules)" "$out" || fail "expected 4 rules (2 sizes x 4 measured and 2 predicted ranks)"
python3 - "$table" "$work/tune.json" <<'PY' || fail "the table does not hold the confirmation's winners"
import json, sys
rules = json.load(open(sys.argv[1]))["rules"]
for size in json.load(open(sys.argv[2]))["sizes"]:
    conf = size["confirmation"]
    assert conf["method"] == "smgd" and conf["rounds"] == 3, conf
    # The search's 3 fastest, then at most 3 rivals: the best of other algorithm/policy pairs.
    fastest = [r for r in conf["rows"] if not r["rival"]]
    rivals = conf["rows"][len(fastest):]
    assert len(fastest) == 3 and len(rivals) <= 3 and all(r["rival"] for r in rivals), conf
    axes = [(r["algorithm"], r["policy"]) for r in conf["rows"]]
    assert all(axes.count(a) == 1 and a not in axes[:3] for a in axes[3:]), conf
    assert all(len(r["round_us"]) == 3 for r in conf["rows"]), conf
    win = min(conf["rows"], key=lambda r: r["x_best"])
    assert win["x_best"] == 1.0, win
    rule = next(r for r in rules if r["comm_size"] == [4, 4] and r["bytes"][0] <= size["size_bytes"] <= r["bytes"][1])
    got = (rule["algorithm"], rule["policy"], rule["segment_bytes"], rule["source"])
    want = (win["algorithm"], win["policy"], win["segment_bytes"], "smgd+confirmed")
    assert got == want, f'{size["size_bytes"]} B: rule {got}, confirmation winner {want}'
PY
echo "1. relay tune wrote $table: $(grep -c '^bcast' "$out") rules, the confirmation's winners"

# Equal schedules are one experiment: on 4 ranks pipeline is chain (fanout 1) and kary
# (fanout 4) is linear, so exhaustive search measures 2 algorithms x 3 segments, not 4 x 3.
run env OPENBLAS_NUM_THREADS=1 "$relay" tune --sizes 64KiB --algorithms chain,pipeline,linear,kary \
  --policies nonblocking --segments 16KiB:32KiB --methods exhaustive --table-method exhaustive --min-time 0.002 --confirm 0 \
  --output "$work/same.json" --quiet --json "$work/same_tune.json" || fail "relay tune (equal schedules) exited $?"
grep -q "pipeline nonblocking runs the same schedules as chain nonblocking on 4 ranks" "$out" \
  || fail "relay tune did not say that pipeline is chain on 4 ranks"
python3 - "$work/same_tune.json" <<'PY' || fail "equal schedules were measured twice"
import json, sys
size = json.load(open(sys.argv[1]))["sizes"][0]
same = {(s["algorithm"], s["as"]) for s in size["same_schedules"]}
assert same == {("pipeline", "chain"), ("kary", "linear")}, same
assert [a["algorithm"] for a in size["axes"]] == ["chain", "linear"], size["axes"]
assert size["methods"][0]["experiments"] == 6, size["methods"][0]["experiments"]
PY
echo "1b. equal schedules (pipeline = chain, kary = linear on 4 ranks) measured once"

run_logged env RELAY_TUNING_FILE="$table" RELAY_LOG=1 "$relay" bench bcast --algorithms auto,binomial \
  --policies nonblocking --segments 0 --baselines none --sizes 4KiB,256KiB --min-time 0.01 \
  --warmup 0 --quiet --confirm 1 --confirm-rounds 2 --json "$work/auto.json" ||
  fail "relay bench bcast --algorithms auto exited $?"
[ "$(grep -c '^# Confirmation' "$out")" -eq 2 ] || fail "expected a confirmation table per size"
grep -A8 '^# Confirmation, 4KiB' "$out" | grep '^auto ' >/dev/null || fail "auto missing from the confirmation"
# What every rank ran (its own log), then what rank 0 reported (relay bench's JSON).
followed=$(check_auto_log relay_bcast 4 1 4096,262144 2>&1) || fail "auto did not follow the table: $followed"
rules=$(python3 - "$table" "$work/auto.json" 2>&1 <<'PY'
import json, re, sys
table = sys.argv[1]
rules, doc = json.load(open(table))["rules"], json.load(open(sys.argv[2]))
def rule_of(row):  # the rule an auto row names, checked against what the row ran
    m = re.fullmatch(r"algorithm=(\S+) policy=(\S+) segment_bytes=(\d+) fanout=\d+ max_requests=\d+ "
                     r"\(auto: table (.+) rule (\d+)\)", row["resolved"])
    assert m and m.group(4) == table, row
    rule, size = rules[int(m.group(5))], row["size_bytes"]
    assert rule["bytes"][0] <= size <= rule["bytes"][1] and rule["comm_size"][0] <= 4 <= rule["comm_size"][1], (rule, row)
    want_seg = rule["segment_bytes"] if rule["segment_bytes"] < size else 0
    assert m.group(1, 2, 3) == (rule["algorithm"], rule["policy"], str(want_seg)), (rule, row)
    return int(m.group(5))
swept = {r["size_bytes"]: rule_of(r) for r in doc["rows"] if r["algorithm"] == "auto"}
confirmed = {r["size_bytes"]: rule_of(r) for r in doc["confirmation"] if r["algorithm"] == "auto"}
assert sorted(swept) == [4096, 262144] and confirmed == swept, (swept, confirmed)
print("; ".join(f"{r['bytes'][0]}-{r['bytes'][1]} B -> {r['algorithm']}/{r['policy']}/{r['segment_bytes']}"
                for r in rules if r["comm_size"][0] <= 4 <= r["comm_size"][1]))
PY
) || fail "auto did not follow the table (relay bench's JSON): $rules"
echo "2. auto followed the table on every rank ($followed), as relay bench's JSON says: $rules"

run_logged env RELAY_TUNING_FILE="$table" RELAY_LOG=1 OPENBLAS_NUM_THREADS=1 "$relay" bench gemm --n 96 \
  --grid 2x2 --schemes auto --lookahead 1 --reps 1 || fail "relay bench gemm --schemes auto exited $?"
panels=$(check_auto_log relay_ibcast 2 1 - 2>&1) || fail "the GEMM's panel broadcasts did not follow the table: $panels"
echo "2b. the GEMM's panel broadcasts (auto) followed the table's 2-rank rules on every rank: $panels"

# relay tune --for-gemm: the 2x2 GEMM run with each candidate broadcast; the fastest is the
# rule of the broadcasts it made (2-rank rows and columns; n = 96, block 8: a panel of 96 is
# 12 blocks, 6 per owner, 48 local rows x 48 columns x 8 B = 18432 B per broadcast), and the
# GEMM's auto then follows that rule on every rank.
gemm_table=$work/gemm_table.json
run env OPENBLAS_NUM_THREADS=1 "$relay" tune --for-gemm --n 96,160 --grid 2x2 --block 8 --reps 1 \
  --algorithms binomial,linear,pipeline --segments 4KiB --output "$gemm_table" --quiet \
  --json "$work/gemm_tune.json" || fail "relay tune --for-gemm exited $?"
grep -q "# A's panels: broadcast along process rows of 2 ranks, the largest 18KiB" "$out" ||
  fail "relay tune --for-gemm did not print the 18432-byte panel broadcasts of n = 96"
"$relay" table "$gemm_table" >"$work/gemm_table.txt" 2>&1 || fail "relay table rejected what --for-gemm wrote"
python3 - "$gemm_table" "$work/gemm_tune.json" <<'PY' || fail "the --for-gemm table does not hold each size's fastest"
import json, sys
rules = json.load(open(sys.argv[1]))["rules"]
doc = json.load(open(sys.argv[2]))
assert doc["schema"] == "relay.tune.gemm/1" and [s["n"] for s in doc["sizes"]] == [96, 160], doc
assert all(r["operation"] == "bcast" and r["comm_size"] == [2, 2] for r in rules), rules
assert rules[0]["bytes"][0] == 0 and rules[-1]["bytes"][1] == 2**63 - 1, rules
for size in doc["sizes"]:
    names = [c["name"] for c in size["candidates"]]
    assert names == ["binomial", "linear", "pipeline 4KiB"], names
    fastest = min(size["candidates"], key=lambda c: c["median_s"])
    assert size["choice"] == fastest["name"] and fastest["x_best"] == 1.0, size
    pb = {p["operand"]: p for p in size["panel_broadcasts"]}
    assert pb["A"]["ranks"] == 2 and pb["B"]["ranks"] == 2, pb
    assert pb["A"]["largest_bytes"] == pb["B"]["largest_bytes"] > 0, pb
    point = pb["A"]["largest_bytes"]
    rule = next(r for r in rules if r["bytes"][0] <= point <= r["bytes"][1])
    want_seg = fastest["segment_bytes"] if fastest["segment_bytes"] < point else 0
    assert (rule["algorithm"], rule["policy"], rule["segment_bytes"]) == (
        fastest["algorithm"], fastest["policy"], want_seg), (rule, fastest)
    assert rule["source"] == f"gemm n={size['n']} 2x2 block 8 L=1", rule
assert doc["sizes"][0]["panel_broadcasts"][0]["largest_bytes"] == 18432, doc["sizes"][0]
PY
table_saved=$table
table=$gemm_table
run_logged env RELAY_TUNING_FILE="$gemm_table" RELAY_LOG=1 OPENBLAS_NUM_THREADS=1 "$relay" bench gemm \
  --n 96,160 --grid 2x2 --block 8 --schemes auto --lookahead 1 --reps 1 ||
  fail "relay bench gemm with the --for-gemm table exited $?"
panels=$(check_auto_log relay_ibcast 2 4 18432 2>&1) ||
  fail "the GEMM's panel broadcasts did not follow the --for-gemm table: $panels"
# On a 1x4 grid the model would choose the 4-rank row's broadcasts itself (no table: the GEMM
# weighs them with its network); with a --for-gemm table covering them, they follow the table.
run env OPENBLAS_NUM_THREADS=1 "$relay" tune --for-gemm --n 96 --grid 1x4 --block 8 --reps 1 \
  --algorithms linear,mpi --output "$gemm_table" --quiet || fail "relay tune --for-gemm --grid 1x4 exited $?"
grep -q "# B's panels: not broadcast (process columns of 1 rank)" "$out" ||
  fail "relay tune --for-gemm did not say that a 1-rank column broadcasts nothing"
run_logged env RELAY_TUNING_FILE="$gemm_table" RELAY_LOG=1 OPENBLAS_NUM_THREADS=1 "$relay" bench gemm \
  --n 96 --grid 1x4 --block 8 --schemes auto --lookahead 1 --reps 1 ||
  fail "relay bench gemm --grid 1x4 with the --for-gemm table exited $?"
row_panels=$(check_auto_log relay_ibcast 4 4 18432 2>&1) ||
  fail "the 1x4 GEMM's panel broadcasts did not follow the --for-gemm table: $row_panels"
grep -q "panel broadcasts by the model" "$logs"/stderr.* &&
  fail "the model chose the panel broadcasts although the table covers them"
table=$table_saved
for bad in "--for-gemm --operation allreduce" "--n 96" "--for-gemm --algorithms nosuch"; do
  run "$relay" tune $bad --output "$work/bad.json" && fail "relay tune $bad was accepted"
  [ -e "$work/bad.json" ] && fail "relay tune $bad wrote a table"
done
echo "2c. relay tune --for-gemm chose each size's fastest; the GEMM's auto followed it: 2x2 $panels; 1x4 $row_panels"

echo '{"schema": "relay.tuning/1", "rules": [{"operation": "bcast"' >"$work/truncated.json"
run env RELAY_TUNING_FILE="$work/truncated.json" "$relay" bench bcast --algorithms auto \
  --baselines none --sizes 4KiB --iterations 1 --warmup 0 --quiet && fail "a truncated table was accepted"
grep -q "truncated.json: not valid JSON" "$out" || fail "the error does not name the file and the problem"
echo "3. a truncated table: auto fails (non-zero exit) naming the file and the problem"
run "$relay" model measure --sizes 1KiB,64KiB --max-seconds 0.02 --quiet \
  --output "$work/params.json" || fail "relay model measure exited $?"
python3 - "$work/params.json" <<'PY' || fail "relay model measure wrote a bad file"
import json, sys
d = json.load(open(sys.argv[1]))
# --pairs auto: all pairs at once exactly when a host runs more ranks than it has cores
m = d["machine"]
want = "concurrent" if max(m["hosts"].values()) > m["cores_online"] else "lone"
assert d["pairs"] == want and d["pairs_reason"].startswith("auto: "), (d["pairs"], d["pairs_reason"], m)
assert d["schema"] == "relay.model.params/1", d["schema"]
assert [r["bytes"] for r in d["plogp"]] == [1024, 65536], d["plogp"]
assert all(r["g_s"] > 0 and r["rtt_s"] > 0 for r in d["plogp"])
assert 0 <= d["duplex"] <= 1 and d["duplex_spread"] >= 0
# 4 ranks: two pairs at once against one; no limit (0) or at least one transfer at full rate
assert d["concurrent_slowdown"] > 0, d
assert d["transfer_slots"] == 0 or 1 <= d["transfer_slots"] <= 2, d
# combine cost (MPI_Reduce_local of doubles, MPI_SUM) per size; one buffer reused (no --cycle)
c = d["combine"]
assert (c["datatype"], c["op"]) == ("MPI_DOUBLE", "MPI_SUM"), c
assert [r["bytes"] for r in c["rows"]] == [1024, 65536] and all(r["s"] > 0 for r in c["rows"]), c
assert c["rows"][1]["s"] > c["rows"][0]["s"], c
assert d["cycle_bytes"] == 0, d["cycle_bytes"]
PY
echo "4. relay model measure (--pairs auto): parameters and combine costs of 2 sizes written"
run "$relay" model measure --sizes 1KiB,64KiB --max-seconds 0.02 --cycle 96KiB --quiet \
  --output "$work/cycled.json" || fail "relay model measure --cycle exited $?"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["cycle_bytes"] == 131072, d["cycle_bytes"]' \
  "$work/cycled.json" || fail "--cycle 96KiB did not cycle through twice the largest size (128 KiB)"
run "$relay" model measure --sizes 1KiB --cycle lots --quiet --output "$work/bad.json" \
  && fail "--cycle lots was accepted"
grep -q -- "--cycle 'lots' is not a size" "$out" || fail "the error does not name --cycle"
echo "4c. relay model measure --cycle: messages cycle through 128 KiB; a bad size refused"
run "$relay" model measure --pairs sideways --sizes 1KiB --quiet --output "$work/bad.json" \
  && fail "--pairs sideways was accepted"
grep -q -- "--pairs" "$out" || fail "the error does not name --pairs"
echo "4b. relay model measure --pairs sideways: refused, naming the option"

run "$relay" bench bcast --model "$work/params.json" --sizes 64KiB --algorithms binomial,chain \
  --policies nonblocking --segments 1KiB,8KiB,0 --baselines none --min-time 0.005 --warmup 1 --quiet \
  --model-confirm 1 --confirm-rounds 2 --json "$work/accuracy.json" || fail "relay bench bcast --model exited $?"
grep -q "^# Model accuracy, 64KiB" "$out" || fail "no model accuracy table"
python3 - "$work/accuracy.json" <<'PY' || fail "the model accuracy table is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
acc = d["model_accuracy"]
assert sorted(a["algorithm"] for a in acc) == ["binomial", "chain"], acc
for a in acc:
    rows = [r for r in d["rows"] if r["algorithm"] == a["algorithm"] and "predicted_us" in r]
    assert len(rows) == 3, rows
    best_pred = min(r["predicted_us"] for r in rows)
    assert a["model_predicted_us"] <= best_pred * 1.01, (a, best_pred)
    fastest = min(r["avg_us"] for r in rows)
    assert abs(a["fastest_us"] - fastest) <= 1e-9 * fastest, (a, fastest)
    assert abs(a["x_best"] - a["model_measured_us"] / fastest) < 1e-9, a
    # confirmed: the pick and the curve's fastest, head to head over 2 rounds
    assert a["confirmed_x_best"] >= 1.0 and len(a["confirmation"]) in (1, 2), a
    assert all(len(c["round_us"]) == 2 for c in a["confirmation"]), a
    # ... and the sweep's fastest is in that group: its figure is its entry's
    [f] = [c for c in a["confirmation"] if c["segment_bytes"] == a["fastest_segment_bytes"]]
    assert a["fastest_confirmed_x_best"] == f["relative"] >= 1.0, a
# the model's choice among all six: the lowest prediction, confirmed against the fastest
[c] = d["model_choice"]
rows = [r for r in d["rows"] if "predicted_us" in r]
low = min(rows, key=lambda r: r["predicted_us"])
assert (c["model"]["algorithm"], c["model"]["predicted_us"]) == (low["algorithm"], low["predicted_us"]), (c, low)
assert c["fastest"]["measured_us"] == min(r["avg_us"] for r in rows) and c["x_best"] >= 1, c
assert c["confirmation"][0]["algorithm"] == low["algorithm"] and len(c["confirmation"]) == 2, c
PY
grep -q "^# The model's choice among all 6 configurations: " "$out" || fail "no line with the model's choice"
echo "5. relay bench bcast --model: model accuracy per algorithm, and the model's choice, confirmed head to head"

# relay model predict costs every collective's registered schedules (no MPI needed).
"$relay" model predict --params "$work/params.json" --operation allgather --ranks 5 --sizes 40000 \
  --segments 0 --policies nonblocking --json "$work/predict.json" >"$out" 2>&1 \
  || fail "relay model predict --operation allgather exited $?"
grep -q "recursive_doubling needs a power-of-two process count; relay runs bruck instead" "$out" \
  || fail "predict did not say recursive_doubling runs bruck on 5 ranks"
python3 - "$work/predict.json" <<'PY' || fail "relay model predict --operation allgather wrote wrong rows"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["operation"] == "allgather" and d["ranks"] == 5, d
assert sorted(r["algorithm"] for r in d["rows"]) == ["bruck", "gather_bcast", "ring"], d["rows"]
assert all(r["size_bytes"] == 40000 and r["predicted_us"] > 0 for r in d["rows"]), d["rows"]
PY
"$relay" model predict --params "$work/params.json" --operation allreduce_typo >"$out" 2>&1 \
  && fail "an unknown --operation was accepted"
grep -q "allreduce_typo is not one of bcast, reduce, allreduce" "$out" || fail "the error does not list the operations"
"$relay" model predict --params "$work/params.json" --operation allreduce --ranks 4 --sizes 64KiB --segments 0 \
  >"$out" 2>&1 || fail "relay model predict --operation allreduce exited $?"
grep -q "^# combines cost what MPI_Reduce_local of doubles with MPI_SUM took" "$out" \
  || fail "predict did not say combines are costed"
echo "6. relay model predict --operation: every allgather schedule costed; allreduce with combine costs; a wrong name refused"

# relay tune --operation: the same searches for another collective, a table of its rules.
run "$relay" tune --operation allreduce --sizes 8KiB,256KiB --segments 64KiB --methods exhaustive,smgd \
  --min-time 0.005 --confirm 2 --confirm-rounds 2 --params "$work/params.json" --quiet \
  -o "$work/allreduce.json" --json "$work/allreduce_run.json" || fail "relay tune --operation allreduce exited $?"
grep -q "^# allreduce 256KiB on 4 ranks: tuning methods" "$out" || fail "no allreduce tuning report"
"$relay" table "$work/allreduce.json" >"$out" 2>&1 || fail "relay table rejected the allreduce table"
python3 - "$work/allreduce.json" "$work/allreduce_run.json" <<'PY' || fail "the allreduce table is wrong"
import json, sys
table, run = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert run["operation"] == "allreduce", run.get("operation")
rules = table["rules"]
assert len(rules) == 2 and all(r["operation"] == "allreduce" for r in rules), rules
names = {"reduce_bcast", "recursive_doubling", "ring", "rabenseifner", "mpi"}
assert all(r["algorithm"] in names for r in rules), rules
assert [m["method"] for m in run["sizes"][0]["methods"]] == ["exhaustive", "smgd"], run["sizes"][0]["methods"]
PY
# On 3 ranks an algorithm that needs a power-of-two count would run its fallback: not tuned.
timeout 240 "$mpiexec" -n 3 "${flags[@]}" "$relay" tune --operation allgather --sizes 3KiB --segments 1KiB \
  --methods exhaustive --table-method exhaustive --min-time 0.005 --confirm 0 --params "$work/params.json" --quiet \
  -o "$work/allgather.json" >"$out" 2>&1 || fail "relay tune --operation allgather on 3 ranks exited $?"
grep -q "allgather recursive_doubling needs a power-of-two process count: not tuned on 3 ranks" "$out" \
  || fail "recursive_doubling was not left out on 3 ranks"
grep -q "recursive_doubling" "$work/allgather.json" && fail "the 3-rank table names recursive_doubling"
echo "7. relay tune --operation allreduce (4 ranks) and allgather (3 ranks): tables of their rules"
echo "PASS"
