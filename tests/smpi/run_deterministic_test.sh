#!/usr/bin/env bash
# Two simulated runs of the same broadcast benchmark give the same times to the last digit:
# computation is charged, never measured from the host, so nothing but the program and the
# platform decides a simulated time (issue 25). The runs privatize the ranks' globals the two
# ways SMPI can (relay simulate --privatization): dlopen, a copy of the program per rank, and
# mmap, one copy with each rank's data mapped in; both must end cleanly (with mmap, the exit
# handlers once destroyed every rank's statics on one copy: a double free, exit status 134).
# Usage: run_deterministic_test.sh SMPIRUN RELAY_SMPI [smpirun flags...]
set -uo pipefail
smpirun=$1 relay=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for run in 1 2; do
  privatization=$([[ $run == 1 ]] && echo dlopen || echo mmap)
  timeout 120 "$smpirun" -np 8 "$@" --cfg=smpi/privatization:$privatization "$relay" bench bcast \
    --sizes 64KiB,1MiB --algorithms binomial,pipeline,scatter_allgather --policies nonblocking \
    --segments 0,64KiB --baselines none --iterations 3 --warmup 1 --quiet --json "$work/run$run.json" \
    >"$work/out$run" 2>&1 ||
    { cat "$work/out$run"; echo "FAIL: run $run ($privatization) exited"; exit 1; }
done
python3 - "$work/run1.json" "$work/run2.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["rows"] for p in sys.argv[1:3])
key = lambda r: (r["algorithm"], r["policy"], r["segment_bytes"], r["size_bytes"])
ta, tb = ({key(r): r["avg_us"] for r in rows} for rows in (a, b))
if not ta or ta != tb:
    print("FAIL: simulated times differ between two runs (dlopen, mmap):")
    for k in sorted(set(ta) | set(tb), key=str):
        print(" ", k, ta.get(k), tb.get(k))
    sys.exit(1)
if "simulated" not in json.load(open(sys.argv[1]))["machine"]:
    print("FAIL: the JSON does not say it is simulated")
    sys.exit(1)
print(f"PASS: {len(ta)} simulated times identical in two runs (dlopen, mmap), e.g. {next(iter(ta.items()))}")
PY
