#!/usr/bin/env bash
# The same simulated benchmark gives the same times to the last digit, whichever way SMPI gives
# the ranks their globals (relay simulate --privatization): computation is charged, never
# measured from the host, so nothing but the program and the platform decides a simulated time
# (issue 25). dlopen: a copy of the program per rank; mmap: one copy, each rank's data mapped
# in (the exit handlers once destroyed every rank's statics on one copy: a double free, exit
# status 134); no: the ranks share the globals, and relay keeps a rank's own state per rank
# (exec::rank_local: the poll marker, the communicator attributes). Broadcasts (checked against
# MPI's), a GEMM with look-ahead polls and 2.5D's layer communicators, and SymmSquareCube (its
# results checked) must agree across all three.
# Usage: run_deterministic_test.sh SMPIRUN RELAY_SMPI [smpirun flags...]
set -uo pipefail
smpirun=$1 relay=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {  # NAME PRIVATIZATION RANKS relay arguments...
  local name=$1 privatization=$2 ranks=$3
  shift 3
  timeout 120 "$smpirun" -np "$ranks" "$@" --cfg=smpi/privatization:$privatization "$relay" \
    "${bench[@]}" --quiet --json "$work/$name.$privatization.json" >"$work/$name.$privatization.out" 2>&1 ||
    { cat "$work/$name.$privatization.out"; echo "FAIL: $name ($privatization) exited"; exit 1; }
}
for privatization in dlopen mmap no; do
  bench=(bench bcast --sizes 64KiB,1MiB --algorithms binomial,pipeline,scatter_allgather
         --policies nonblocking --segments 0,64KiB --baselines none --iterations 3 --warmup 1)
  run bcast $privatization 8 "$@"
  [[ $privatization == dlopen ]] && continue  # the others only: dlopen is the slowest
  bench=(bench gemm --n 512 --block 32 --algorithms 2d,2.5d:4 --schemes binomial,pipeline-nonblocking
         --lookahead 0,1 --reps 1 --no-scalapack)
  run gemm $privatization 16 "$@"
  bench=(bench symm --n 256 --reps 1 --n-dup 1,4)
  run symm $privatization 8 "$@"
done
python3 - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
def rows(name, privatization):
    return json.load(open(os.path.join(work, f"{name}.{privatization}.json")))["rows"]
def times(name, privatization, key, value):
    return {key(r): r[value] for r in rows(name, privatization)}
checks = [
    ("bcast", ("dlopen", "mmap", "no"),
     lambda r: (r["algorithm"], r["policy"], r["segment_bytes"], r["size_bytes"]), "avg_us"),
    ("gemm", ("mmap", "no"), lambda r: (r["algorithm"], r["scheme"], r["lookahead"]), "time_s"),
    ("symm", ("mmap", "no"), lambda r: (r["algorithm"], r["parts"], r["n_dup"], r["parts_in_flight"]),
     "time_s"),
]
for name, ways, key, value in checks:
    got = [times(name, w, key, value) for w in ways]
    if not got[0] or any(g != got[0] for g in got[1:]):
        print(f"FAIL: {name}: simulated times differ between privatizations {ways}:")
        for k in sorted(set().union(*got), key=str):
            print(" ", k, [g.get(k) for g in got])
        sys.exit(1)
    print(f"PASS: {name}: {len(got[0])} simulated times identical with privatization {', '.join(ways)}")
if "simulated" not in json.load(open(os.path.join(work, "bcast.dlopen.json")))["machine"]:
    print("FAIL: the JSON does not say it is simulated")
    sys.exit(1)
PY
