#!/usr/bin/env bash
# SimGrid 3.32 and polling (docs/simulate.md, "Polls"): two SMPI programs on two simulated hosts,
# then one tan2014 Table IV configuration simulated by relay before and after exec::test_some
# completed polled requests through MPI_Waitany, the two side by side (one core each).
#   polled_messages.c: K 1 MiB messages completed by MPI_Test polling or by MPI_Wait, each
#     followed by a charged computation; host time quadratic in K when polled.
#   testany_charge.c: K MPI_Testany and K MPI_Test on a request that does not complete, with
#     smpi/grow-injected-times yes and no: what the simulated clock is charged.
# Usage: run.sh OUT_DIR [OLD_RELAY_SMPI RELAY N]  (the second part only with its arguments:
#   OLD_RELAY_SMPI a relay-smpi built before the change, RELAY this build's relay command)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
smpicc -O2 "$here/polled_messages.c" -o "$build/polled_messages"
smpicc -O2 "$here/testany_charge.c" -o "$build/testany_charge"
{
  for k in 5000 20000; do
    for mode in test wait; do
      /usr/bin/time -f "host: %U s user, %e s wall" smpirun -np 2 -platform "$here/two_hosts.xml" \
        --cfg=smpi/test:1e-6 --log=root.thres:critical "$build/polled_messages" "$k" "$mode" 2>&1
    done
  done
  for grow in yes no; do
    echo "smpi/grow-injected-times:$grow, smpi/test:1e-6"
    smpirun -np 2 -platform "$here/two_hosts.xml" --cfg=smpi/test:1e-6 \
      --cfg=smpi/grow-injected-times:$grow --log=root.thres:critical "$build/testany_charge" 100 2>&1
  done
} | tee "$out/smpi_programs.txt"
[[ $# -ge 4 ]] || exit 0
old=$2 relay=$3 n=$4
bench=(bench gemm --n "$n" --block 32 --schemes pipeline-nonblocking --lookahead 1 --reps 3 --quiet)
RELAY_SIMULATE_RELAY=$old "$relay" simulate --platform tan2014 --np 64 -- "${bench[@]}" \
  >"$out/before_n$n.txt" 2>&1 &
"$relay" simulate --platform tan2014 --np 64 -- "${bench[@]}" >"$out/after_n$n.txt" 2>&1 &
wait
grep -H -E "^2d|simulation cost" "$out"/before_n"$n".txt "$out"/after_n"$n".txt
