#!/usr/bin/env bash
# relay's model and SimGrid agree on the same schedules (issue 25, acceptance 1 at CI's scale):
# the model's parameters are measured in simulation (relay model measure on 3 simulated ranks:
# the Hockney fit and whether a node's sends to two peers share its link), then every broadcast
# algorithm x policy x {unsegmented, 64 KiB} at 2 MiB on 16 simulated ranks must lie within 10%
# of relay model predict's replay of its schedule. On 64 ranks at 8 MiB the worst of 42 was 1.1%
# (docs/simulate.md); a one-port replay was 3.4x off for the nonblocking binomial tree.
# Usage: run_model_agreement_test.sh SMPIRUN RELAY_SMPI [smpirun flags...]
set -uo pipefail
smpirun=$1 relay=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
algorithms=linear,chain,binary,binomial,pipeline,scatter_allgather,kary
run() {  # ranks, log name, relay arguments...
  local np=$1 log=$2
  shift 2
  timeout 240 "$smpirun" -np "$np" "$@" >"$work/$log" 2>&1 ||
    { cat "$work/$log"; echo "FAIL: $log exited"; exit 1; }
}
run 3 measure.log "$@" "$relay" model measure --sizes 1B,1KiB,64KiB,1MiB,4MiB --quiet \
  --output "$work/params.json"
run 16 bench.log "$@" "$relay" bench bcast --sizes 2MiB --algorithms "$algorithms" \
  --policies blocking,nonblocking --segments 0,64KiB --baselines none --iterations 1 \
  --warmup 0 --quiet --json "$work/sim.json"
run 1 predict.log "$@" "$relay" model predict --params "$work/params.json" --hockney --ranks 16 \
  --sizes 2MiB --algorithms "$algorithms" --segments 0,64KiB --json "$work/model.json"
python3 - "$work/sim.json" "$work/model.json" "$work/params.json" <<'PY'
import json, sys
sim, model, params = (json.load(open(p)) for p in sys.argv[1:4])
key = lambda r: (r["algorithm"], r["policy"], r["segment_bytes"])
predicted = {key(r): r["predicted_us"] for r in model["rows"]}
if params.get("sends_to_two_peers") != "shared_link":
    print("FAIL: SimGrid's sends to two peers share a link; measured", params.get("two_peers_first_ratio"))
    sys.exit(1)
worst, bad = 0.0, []
for r in sim["rows"]:
    k = key(r)
    ratio = r["avg_us"] / predicted[k]
    worst = max(worst, abs(ratio - 1))
    if abs(ratio - 1) > 0.10:
        bad.append(f"  {k}: simulated {r['avg_us']:.1f} us, model {predicted[k]:.1f} us ({ratio:.3f})")
if len(sim["rows"]) != 28 or bad:
    print(f"FAIL: {len(sim['rows'])} rows (28 expected); beyond 10%:", *bad, sep="\n")
    sys.exit(1)
print(f"PASS: 28 broadcasts, simulated within {worst * 100:.1f}% of the model's replay")
PY
