#!/usr/bin/env bash
# Issue 28 acceptance 3 with a per-flow share: huang2018's collectives reach about 30% of a link
# (their Fig. 5); relay simulate --flow-share 0.3 bounds each simulated flow there. 64 stampede2
# nodes, n = 7645 (1912^2 blocks), baseline vs overlap N_DUP 1 and 4 (4 in flight).
set -euo pipefail
relay=$1 out=$2 share=$3
name=symm_P64_n7645_share$share
RELAY_SIMULATE_GFLOPS=1560 RELAY_SIMULATE_COMPUTE=timing "$relay" simulate --platform stampede2 \
  --np 64 --flow-share "$share" --test-cost-us 1 -- bench symm --n 7645 --reps 1 --n-dup 1,4 \
  --in-flight 4 --quiet --json "$out/$name.json" > "$out/$name.txt" 2>&1
