#!/usr/bin/env bash
# The relay command refuses what it cannot do right, before doing anything (issue 23: never a
# wrong answer, a crash or a hang):
#   1. exit statuses: 2 for every usage error (CLI11's own were 105, 106, 109), 1 for a
#      failure, 0 for success, --help and --version; under mpirun too;
#   2. every floating-point option of every command refuses nan, inf and negative numbers,
#      naming the option (--min-time nan printed "cannot create std::vector larger than
#      max_size()");
#   3. ranges: relay model predict --duplex outside [0, 1], --max-requests 0 (and --window 0,
#      its deprecated name, which still works), --ranks 0; fanouts,
#      iterations, look-ahead depths and sizes beyond what the library or an MPI count takes;
#   4. sizes: 8MB is 8000000 bytes (it was 8 MiB), 8MiB and 8M are 8388608;
#   5. --json (and --output, --plot) into a missing directory: refused before the run, naming
#      the directory, which is not created; results written whole, no temporary file left;
#   6. relay bench gemm --n 100000 (and other benchmarks' buffers too big for the memory):
#      the memory per rank printed, then a clear refusal with exit 1 on every rank count, not
#      a bare std::bad_alloc;
#   7. OSU's flags (-m, -i, -x, -f, --osu) and what the tables' columns are over;
#   8. relay simulate's placement, flow share and smpirun, as --dry-run prints them (where smpirun is
#      installed): a 4x4 grid's fibers of 4 layers on consecutive nodes, bad values refused.
# Usage: run_cli_checks_test.sh MPIEXEC RELAY [mpiexec flags...]
set -uo pipefail
mpiexec=$1 relay=$2
shift 2
flags=("$@")
. "$(dirname "$0")/../cli_test_common.sh"
run() { local n=$1; shift; timeout 120 "$mpiexec" -n "$n" "${flags[@]}" env OPENBLAS_NUM_THREADS=1 "$@" >"$out" 2>&1; }
solo() { timeout 120 env OPENBLAS_NUM_THREADS=1 "$@" >"$out" 2>&1; }
status_is() { # WANT DESCRIPTION: the last command's status
  [ "$rc" -eq "$1" ] || fail "$2: exit status $rc, expected $1"
}
says() { # TEXT DESCRIPTION
  grep -qF -- "$1" "$out" || fail "$2: the output does not say: $1"
}

# A parameter file for relay model predict.
run 2 "$relay" model measure --sizes 1KiB,64KiB --max-seconds 0.02 --quiet --output "$work/params.json" ||
  fail "relay model measure exited $?"
predict=(model predict --params "$work/params.json" --ranks 4 --sizes 64KiB --algorithms binomial
  --policies blocking --segments 0)

# 1. Exit statuses.
solo "$relay"; rc=$?; status_is 2 "relay without a command"
solo "$relay" bench bcast --bogus; rc=$?; status_is 2 "an unknown option"
says "--bogus" "an unknown option"
solo "$relay" model predict; rc=$?; status_is 2 "a missing required option"
says "--params is required" "a missing required option"
solo "$relay" bench bcast --max-requests x; rc=$?; status_is 2 "a value that is not a number"
solo "$relay" bench bcast --window x; rc=$?; status_is 2 "a value that is not a number (--window)"
solo "$relay" --help; rc=$?; status_is 0 "--help"
solo "$relay" --version; rc=$?; status_is 0 "--version"
solo "$relay" algorithms; rc=$?; status_is 0 "relay algorithms"
solo "$relay" "${predict[@]}"; rc=$?; status_is 0 "relay model predict"
# relay model gemm: auto's candidates on a grid of any size, from the file.
solo "$relay" model gemm --params "$work/params.json" --grid 16x16 --n 4096 --gflops 10; rc=$?
status_is 0 "relay model gemm"
says "auto runs " "relay model gemm"
grep -qE '^3d:[0-9]+ ' "$out" || fail "relay model gemm: no 3d candidate on a 16x16 grid"
solo "$relay" model gemm --params "$work/params.json" --grid 16by16 --n 4096 --gflops 10; rc=$?
status_is 2 "relay model gemm --grid 16by16"
says "--grid '16by16' is not RxC" "relay model gemm --grid 16by16"
solo "$relay" model gemm --params "$work/params.json" --grid 4x4 --n 512 --gflops 10 --bcast mpi; rc=$?
status_is 2 "relay model gemm --bcast mpi (no schedule to cost)"
says "--bcast mpi is not auto or a broadcast with a schedule" "relay model gemm --bcast mpi"
echo "not json" >"$work/not_params.json"
solo "$relay" model gemm --params "$work/not_params.json" --grid 4x4 --n 512 --gflops 10; rc=$?
status_is 2 "relay model gemm with a --params file that is not one"
run 2 "$relay" bench bcast --max-requests 0 --sizes 1KiB --quiet; rc=$?; status_is 2 "--max-requests 0 under mpirun"
run 2 "$relay" bench bcast --window 0 --sizes 1KiB --quiet; rc=$?; status_is 2 "--window 0 under mpirun"
run 2 "$relay" bench bcast --root 5 --sizes 1KiB --quiet; rc=$?; status_is 2 "--root 5 on 2 ranks"
says "--root 5 is not a rank (0..1)" "--root 5 on 2 ranks"
solo "$relay" model predict --params "$work/missing.json"; rc=$?; status_is 2 "--params of a missing file"
echo "not json" >"$work/bad.json"
solo "$relay" model predict --params "$work/bad.json"; rc=$?; status_is 2 "a --params file that is not one"
says "--params $work/bad.json: " "a --params file that is not one"
run 2 "$relay" bench bcast --sizes 1KiB --model "$work/bad.json" --quiet; rc=$?; status_is 2 "a --model file that is not one"
says "--model $work/bad.json: " "a --model file that is not one"
if grep -q "MPI_ABORT" "$out"; then fail "a --model file that is not one: the launch was aborted, not ended"; fi
run 2 "$relay" bench coll --operation reduce --sizes 1KiB --quiet --algorithms binomial --policies blocking \
  --segments 0 --min-time 0.001 --json "$work/ok.json"; rc=$?; status_is 0 "relay bench coll under mpirun"
run 2 env RELAY_REDUCE_SEGMENT_BYTES=12 "$relay" bench coll --operation reduce --sizes 1KiB --quiet \
  --algorithms binomial --policies blocking --segments 0 --min-time 0.001; rc=$?
status_is 1 "a failed measurement (ERROR rows)"
echo "1. exit statuses: 2 usage errors, 1 failures, 0 success"

# 2. nan, inf and negative numbers, for every floating-point option of every command.
floats=("bench bcast --min-time" "bench coll --operation allreduce --min-time" "bench overlap --min-time"
  "model measure --spread" "model measure --max-seconds" "model predict --params $work/params.json --duplex"
  "model gemm --params $work/params.json --grid 2x2 --n 64 --gflops"
  "tune --min-time" "tune --threshold" "tune --noise" "tune --variant-within")
for f in "${floats[@]}"; do
  read -r -a words <<<"$f"
  option=${words[-1]}
  for v in nan inf -inf -1 1e999; do
    solo "$relay" "${words[@]}" "$v"; rc=$?
    status_is 2 "relay $f $v"
    grep -q -- "^$option: " "$out" || fail "relay $f $v: the error does not name $option"
    if grep -q "max_size\|bad_alloc" "$out"; then fail "relay $f $v: crashed instead of refusing"; fi
  done
done
echo "2. nan, inf, -inf, -1, 1e999 refused by ${#floats[@]} floating-point options, naming each"

# 3. Ranges.
refused() { # OPTION ARGS...: refused at once with status 2, naming OPTION
  local option=$1
  shift
  solo "$relay" "$@"; rc=$?
  status_is 2 "relay $*"
  says "$option" "relay $*"
}
refused --duplex "${predict[@]}" --duplex 5
refused --duplex "${predict[@]}" --duplex -3
refused --max-requests "${predict[@]}" --max-requests 0
refused --window "${predict[@]}" --window 0
# --window, the former name of --max-requests: the same table on stdout, a note on stderr.
"$relay" "${predict[@]}" --max-requests 4 >"$work/max_requests.out" 2>/dev/null || fail "--max-requests 4 exited $?"
"$relay" "${predict[@]}" --window 4 >"$work/window.out" 2>"$work/window.err" || fail "--window 4 exited $?"
cmp -s "$work/max_requests.out" "$work/window.out" || fail "--window 4 printed other than --max-requests 4"
grep -q "deprecated" "$work/window.err" || fail "--window 4 did not say on stderr that it is deprecated"
refused --ranks "${predict[@]}" --ranks 0
refused --elem-bytes "${predict[@]}" --elem-bytes 0
refused --root "${predict[@]}" --root 4
refused --fanout bench bcast --fanout 2000000
refused --iterations bench bcast --iterations 2000000000
refused --max-iterations bench overlap --max-iterations 0
refused --rounds bench coll --operation reduce --rounds 100000
refused --pieces bench gemm --pieces 5000
refused --lookahead bench gemm --n 64 --lookahead 65 --no-scalapack --quiet
refused --algorithms bench gemm --n 64 --algorithms 2.5d:2 --no-scalapack --quiet  # 1x1 grid
refused --algorithms bench gemm --n 64 --algorithms 4d --no-scalapack --quiet
run 4 "$relay" bench gemm --n 96 --block 8 --algorithms 2d,2.5d:2,3d --schemes binomial --reps 1 \
  --no-scalapack --quiet; rc=$?
status_is 0 "bench gemm --algorithms 2d,2.5d:2,3d on 4 ranks"
says "# 2.5d:2: 2 layers of" "bench gemm --algorithms 2d,2.5d:2,3d on 4 ranks"
refused --start-jitter-us bench gemm --n 64 --start-jitter-us 5 --no-scalapack --quiet  # simulations only
refused "binomial takes no segment size" bench gemm --n 64 --schemes binomial@32KiB --no-scalapack --quiet
refused "after '@' comes a segment size" bench gemm --n 64 --schemes pipeline@0 --no-scalapack --quiet
run 2 "$relay" bench gemm --n 64 --block 8 --schemes pipeline-nonblocking@1KiB,pipeline-nonblocking@4KiB \
  --lookahead 1 --reps 1 --no-scalapack --quiet; rc=$?
status_is 0 "bench gemm with a segment per scheme"
says "pipeline-nonblocking@4KiB" "bench gemm with a segment per scheme"
# cpu%: a call long enough for /proc/stat's ticks (about 0.1 s a rank here) has the machine's
# CPU share, above 0 while two ranks multiply (how far above depends on the machine's cores).
run 2 "$relay" bench gemm --n 2048 --block 64 --schemes binomial --lookahead 0 --reps 1 \
  --no-scalapack --quiet --json "$work/cpu.json"; rc=$?
status_is 0 "bench gemm at n = 2048"
python3 - "$work/cpu.json" <<'PY' || fail "bench gemm's machine_cpu_busy"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert all(0 < r["machine_cpu_busy"] <= 1 for r in rows), rows
PY
refused "more bytes than an MPI count holds" bench bcast --sizes 4GiB --quiet
run 2 "$relay" model measure --sizes 4GiB --quiet --output "$work/m.json"; rc=$?
status_is 2 "relay model measure --sizes 4GiB"
says "--sizes: 4GiB is more bytes than an MPI count holds" "relay model measure --sizes 4GiB"
run 2 "$relay" model measure --sizes 0 --quiet --output "$work/m.json"; rc=$?  # was sizes.back() of none
status_is 2 "relay model measure --sizes 0"
says "--sizes: no size above 0 bytes" "relay model measure --sizes 0"
solo "$relay" "${predict[@]}" --duplex 0.5; rc=$?; status_is 0 "--duplex 0.5"
# SymmSquareCube and purification: a mesh needs a cube of ranks; electrons inside (0, n);
# a generated Hamiltonian purified and checked on one rank; an unreadable input named.
run 2 "$relay" bench symm --n 64 --quiet; rc=$?; status_is 2 "bench symm on 2 ranks"
says "2 ranks are not a cube" "bench symm on 2 ranks"
refused --electrons purify --n 64 --electrons 64
refused "cannot open" purify --input "$work/missing.mtx"
refused --n-dup bench symm --n 64 --n-dup 0
# Algorithm 6 on a layered mesh: 2 ranks as 1 x 1 x 2 cannot run it (c must divide q), 4 as
# 2 x 2 x 1 can, and the cube's algorithms are refused there.
run 2 "$relay" bench symm --n 64 --layers 2 --quiet; rc=$?; status_is 2 "bench symm --layers 2 on 2 ranks"
says "cannon needs the layers to divide" "bench symm --layers 2 on 2 ranks"
run 4 "$relay" bench symm --n 64 --layers 1 --algorithms baseline --quiet; rc=$?
status_is 2 "bench symm --layers 1 --algorithms baseline on 4 ranks"
says "baseline needs a p x p x p mesh" "bench symm --layers 1 --algorithms baseline on 4 ranks"
run 4 "$relay" bench symm --n 64 --layers 1 --n-dup 1,2 --reps 1 --quiet; rc=$?
status_is 0 "bench symm --layers 1 on 4 ranks"
says "cannon    relay      2" "bench symm --layers 1 on 4 ranks"
solo "$relay" purify --model graphene --n 48 --json "$work/purify.json"; rc=$?
status_is 0 "relay purify --model graphene --n 48"
says "# converged in" "relay purify --model graphene --n 48"
says "# check: max |D - D_eig|" "relay purify --model graphene --n 48"
# --quiet drops the line per iteration, not the summary; Algorithm 6 purifies as well.
solo "$relay" purify --model graphene --n 48 --algorithm cannon --quiet; rc=$?
status_is 0 "relay purify --algorithm cannon --quiet"
says "# converged in" "relay purify --algorithm cannon --quiet"
says "SymmSquareCube cannon" "relay purify --algorithm cannon --quiet"
! grep -q "^iteration\|^ *iteration" "$out" || fail "relay purify --quiet printed the iteration table"
echo "3. out-of-range values refused, naming the option"

# 4. Sizes: KB, MB, GB decimal; KiB, MiB, GiB and K, M, G binary.
solo "$relay" model predict --params "$work/params.json" --ranks 4 --sizes 8MB,8MiB,8M,64KB --algorithms binomial \
  --policies blocking --segments 0 --json "$work/sizes.json"; rc=$?
status_is 0 "--sizes 8MB,8MiB,8M,64KB"
python3 -c 'import json, sys; s = [r["size_bytes"] for r in json.load(open(sys.argv[1]))["rows"]]; assert s == [8000000, 8388608, 8388608, 64000], s' \
  "$work/sizes.json" || fail "8MB, 8MiB, 8M and 64KB are not 8000000, 8388608, 8388608 and 64000 bytes"
refused "'8XB' is not a size" model predict --params "$work/params.json" --sizes 8XB
"$relay" --help | grep "MB = 1000^2" >/dev/null || fail "relay --help does not say what MB means"
echo "4. 8MB = 8000000 bytes, 8MiB = 8M = 8388608; an unknown unit refused; --help says so"

# 5. Result files: no directory is made, and the run does not start.
for cmd in "model predict" "bench bcast" "tune" "model measure"; do
  read -r -a words <<<"$cmd"
  option=--json
  [ "$cmd" != "model measure" ] || option=--output
  extra=()
  [ "$cmd" != "model predict" ] || extra=(--params "$work/params.json")
  run 2 "$relay" "${words[@]}" "${extra[@]}" "$option" "$work/nodir/sub/out.json"; rc=$?
  status_is 2 "relay $cmd $option into a missing directory"
  says "$option: directory '$work/nodir/sub' does not exist" "relay $cmd $option into a missing directory"
  [ ! -e "$work/nodir" ] || fail "relay $cmd $option made the missing directory"
  if grep -q "^# bcast\|wrote\|\[1/" "$out"; then fail "relay $cmd ran before refusing $option"; fi
done
refused "is a directory" "${predict[@]}" --json "$work"
touch "$work/file"
refused "'$work/file' is not a directory" "${predict[@]}" --json "$work/file/out.json"
refused "--plot: directory" bench bcast --json "$work/ok.json" --plot "$work/nodir/p.png"
mkdir "$work/results"
run 2 "$relay" bench bcast --sizes 1KiB --algorithms binomial --policies blocking --segments 0 --baselines none \
  --min-time 0.001 --quiet --json "$work/results/bcast.json"; rc=$?
status_is 0 "relay bench bcast --json into an existing directory"
[ "$(ls -A "$work/results")" = bcast.json ] || fail "the results directory holds $(ls -A "$work/results" | tr '\n' ' ')"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/results/bcast.json" || fail "bcast.json is not whole JSON"
echo "5. result files into missing directories refused before the run, nothing made; results written whole"

# 6. Memory: printed, then refused on every rank without allocating. Sizes beyond this
# machine's available memory (n = 100000, the issue's, needs 298 GiB on one rank).
avail_kib=$(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo)
n=$(awk -v a="$avail_kib" 'BEGIN { n = int(sqrt(a * 1024 / 2)); print (n > 100000 ? n : 100000) }')
for ranks in 1 2; do
  run "$ranks" "$relay" bench gemm --n "$n" --no-scalapack --quiet; rc=$?
  status_is 1 "relay bench gemm --n $n on $ranks rank(s)"
  says "# memory: up to" "relay bench gemm --n $n on $ranks rank(s)"
  says "relay bench gemm --n $n on a" "relay bench gemm --n $n on $ranks rank(s)"
  says "GiB per rank" "relay bench gemm --n $n on $ranks rank(s)"
  if grep -q "bad_alloc\|MPI_ABORT\|Signal:" "$out"; then fail "relay bench gemm --n $n on $ranks rank(s) crashed"; fi
done
# 3 buffers of 8 GiB on each of 2 ranks (the largest MPI count of doubles is 16 GiB)
if [ "$avail_kib" -lt $((40 * 1024 * 1024)) ]; then
  run 2 "$relay" bench coll --operation allreduce --sizes 8GiB --algorithms ring --quiet; rc=$?
  status_is 1 "relay bench coll --sizes 8GiB on 2 ranks (24 GiB per rank)"
  says "needs 24.0 GiB per rank (48.0 GiB for the 2 ranks" "relay bench coll --sizes 8GiB"
fi
run 2 "$relay" model measure --sizes 1KiB --cycle 1024GiB --quiet --output "$work/m.json"; rc=$?
status_is 1 "relay model measure --cycle 1024GiB"
says "relay model measure (sizes up to 1KiB, --cycle 1024GiB) needs" "relay model measure --cycle 1024GiB"
(ulimit -v 400000; solo "$relay" model predict --params "$work/params.json" --ranks 1048576 --sizes 8MiB \
  --algorithms pipeline --policies blocking --segments 1KiB); rc=$?
status_is 1 "relay model predict of 2^20 ranks x 8192 segments in 400 MB"
says "out of memory replaying schedules on 1048576 ranks" "relay model predict of 2^20 ranks"
echo "6. buffers beyond the memory: said before allocating, refused with exit 1, no crash"

# 7. OSU's flags and output (-m, -i, -x, -f, --osu): osu_bcast's columns, one row per power of
#    two from MIN to MAX, OSU's counts unless -i/-x; the default table says what it is over.
run 2 "$relay" bench bcast -m 1:64 -f --osu -i 20 -x 2 --algorithms binomial --policies nonblocking \
  --segments 0 --baselines none --quiet --json "$work/osu.json"; rc=$?
status_is 0 "relay bench bcast -m 1:64 -f --osu"
says "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations" "--osu -f's header"
[ "$(grep -cE '^[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +20$' "$out")" -eq 7 ] ||
  fail "-m 1:64 -f --osu -i 20: expected 7 rows (1..64 bytes) of 20 iterations"
python3 - "$work/osu.json" <<'PY' || fail "--osu rows: Min <= Avg <= Max over ranks, timing osu"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert [r["size_bytes"] for r in rows] == [1, 2, 4, 8, 16, 32, 64], rows
assert all(r["timing"] == "osu" and r["min_us"] <= r["avg_us"] <= r["max_us"] for r in rows)
PY
run 2 "$relay" bench bcast -m 16384 --osu --algorithms mpi --baselines none --quiet \
  --json "$work/osu_default.json"; rc=$?
status_is 0 "relay bench bcast -m 16384 --osu"
says "# Size       Avg Latency(us)" "--osu without -f"
if grep -q "Min Latency" "$out"; then fail "--osu without -f printed the full table"; fi
python3 - "$work/osu_default.json" <<'PY' || fail "--osu without -i: OSU's 1000 iterations, 100 above 8 KiB"
import json, sys
rows = {r["size_bytes"]: r["iterations"] for r in json.load(open(sys.argv[1]))["rows"]}
assert rows[8192] == 1000 and rows[16384] == 100 and len(rows) == 15, rows
PY
run 2 "$relay" bench bcast --sizes 64 --algorithms mpi --baselines none --iterations 5 --quiet; rc=$?
status_is 0 "relay bench bcast, default table"
says "# Avg is the mean over the timed calls, Min and Max the fastest and" "the default table's header"
solo "$relay" bench bcast -f; rc=$?; status_is 2 "-f without --osu"
solo "$relay" bench bcast -m 64:8; rc=$?; status_is 2 "-m MIN > MAX"
says "-m: '64:8' is not [MIN:]MAX" "-m 64:8"
solo "$relay" bench coll -m 8 --sizes 8; rc=$?; status_is 2 "-m with --sizes"
echo "7. OSU's flags: -m, -i, -x, -f and --osu's table; the default table says what it is over"
if [ -x /usr/bin/smpirun ] || [ -x /usr/local/bin/smpirun ]; then
  # Any readable file stands for relay-smpi in a dry run.
  sim=(env RELAY_SIMULATE_RELAY="$relay" "$relay" simulate --platform ktorus4096 --np 16)
  solo "${sim[@]}" --placement fibers:4x4:4 --flow-share 0.3 --dry-run -- bench gemm; rc=$?
  status_is 0 "relay simulate --placement fibers:4x4:4 --flow-share 0.3 --dry-run"
  says "--cfg=smpi/bw-factor:0:0.3" "--flow-share 0.3 as SMPI's bandwidth factor"
  says "placement fibers:4x4:4" "the placement in the header"
  # Grid ranks 0, 2, 8, 10 (the first fiber: the 2x2 layers' place (0, 0)) on nodes 0-3.
  python3 - "$out" <<'PY' || fail "fibers:4x4:4 hostfile"
import sys
line = [l for l in open(sys.argv[1]) if l.startswith("# hostfile (fibers:4x4:4):")][0]
nodes = [int(h.split(":")[0].split("-")[1]) for h in line.split("):", 1)[1].split()]
assert len(nodes) == 16 and sorted(nodes) == list(range(16)), nodes
assert [nodes[r] for r in (0, 2, 8, 10)] == [0, 1, 2, 3], nodes
PY
  solo "${sim[@]}" --dry-run -- bench gemm; rc=$?
  status_is 0 "relay simulate --dry-run"
  says "# hostfile (by-slot): node-0:1 node-1:1" "by-slot's hostfile"
  solo "${sim[@]}" --placement fibers:4x4:3 --dry-run -- bench gemm; rc=$?
  status_is 2 "--placement fibers:4x4:3"
  says "3 layers do not split the 4x4 grid" "--placement fibers:4x4:3"
  solo "${sim[@]}" --placement fibers:2x4:2 --dry-run -- bench gemm; rc=$?
  status_is 2 "--placement fibers:2x4:2 on 16 ranks"
  says "a 2x4 grid holds 8 ranks, not 16" "--placement fibers:2x4:2 on 16 ranks"
  solo "${sim[@]}" --placement rows --dry-run -- bench gemm; rc=$?
  status_is 2 "--placement rows"
  solo "${sim[@]}" --flow-share 0.3 --factors smpi --dry-run -- bench gemm; rc=$?
  status_is 2 "--flow-share with --factors smpi"
  says "it needs --factors off" "--flow-share with --factors smpi"
  solo env RELAY_SIMULATE_SMPIRUN=/usr/bin/smpirun "${sim[@]}" --dry-run -- bench gemm; rc=$?
  status_is 0 "RELAY_SIMULATE_SMPIRUN=/usr/bin/smpirun"
  says "# smpirun: /usr/bin/smpirun" "the smpirun RELAY_SIMULATE_SMPIRUN names"
  solo env RELAY_SIMULATE_SMPIRUN="$work/no-smpirun" "${sim[@]}" --dry-run -- bench gemm; rc=$?
  status_is 1 "RELAY_SIMULATE_SMPIRUN naming no program"
  says "RELAY_SIMULATE_SMPIRUN: $work/no-smpirun is not an executable" "a missing smpirun"
  echo "8. relay simulate: fibers placement, flow share and smpirun in the dry run, bad values refused"
fi
echo "cli_checks: all checks passed"
