#!/usr/bin/env bash
# Issue 28 acceptance 3 with a per-flow share: huang2018's collectives reach about 30% of a link
# (their Fig. 5); relay simulate --flow-share 0.3 bounds each simulated flow there. 64 stampede2
# nodes, n = 7645 (1912^2 blocks), baseline vs overlap N_DUP 1 and 4 (4 in flight); then, given
# PPN:NP cells, huang2018's Table III with the same share: NP ranks (a p^3 mesh), PPN per node on
# ceil(NP / PPN) nodes, the node's 1,560 GFLOP/s shared by its ranks, MPI's and relay's parts (as
# docs/measurements/issue28_sim.sh without the share).
# Usage: run.sh RELAY OUT_DIR SHARE [PPN:NP ...]   e.g. run.sh build/src/cli/relay out 0.3 2:125 4:216
set -euo pipefail
relay=$1 out=$2 share=$3
shift 3
name=symm_P64_n7645_share$share
if [[ ! -s $out/$name.json ]]; then
  RELAY_SIMULATE_GFLOPS=1560 RELAY_SIMULATE_COMPUTE=timing "$relay" simulate --platform stampede2 \
    --np 64 --flow-share "$share" --test-cost-us 1 -- bench symm --n 7645 --reps 1 --n-dup 1,4 \
    --in-flight 4 --quiet --json "$out/$name.json" > "$out/$name.txt" 2>&1
fi
for cell in "$@"; do
  ppn=${cell%:*} np=${cell#*:}
  name=symm_ppn${ppn}_np${np}_n7645_share$share
  [[ -s $out/$name.json ]] && continue  # already measured (the script resumes)
  echo "== $name" >&2
  RELAY_SIMULATE_GFLOPS=$(python3 -c "print(1560 / $ppn)") RELAY_SIMULATE_COMPUTE=timing \
    "$relay" simulate --platform stampede2 --np "$np" --ranks-per-node "$ppn" \
    --flow-share "$share" --test-cost-us 2 -- bench symm --n 7645 --reps 1 \
    --ranks-per-node "$ppn" --n-dup 1,4 --in-flight 4 --parts mpi,relay --quiet \
    --json "$out/$name.json.part" > "$out/$name.txt" 2>&1 ||
    { echo "failed: $name (see $out/$name.txt)" >&2; exit 1; }
  mv "$out/$name.json.part" "$out/$name.json"
done
python3 "$(dirname "$0")/table3.py" "$out" > "$out/table3.md"
