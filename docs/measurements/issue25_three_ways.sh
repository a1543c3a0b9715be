#!/usr/bin/env bash
# Issue 25: the model, the simulation and the emulated cluster side by side, in one table, on the
# same configuration: every broadcast algorithm at 8 MiB on NODES emulated nodes at RATE, one
# rank per node, nonblocking, unsegmented and with 64 KiB segments.
#   emulated:  relay cluster up --nodes NODES --rate RATE; relay bench bcast on it (real MPI over
#              shaped links, the nodes' ranks sharing this machine's cores);
#   model:     relay model predict (the schedule replay) with the parameters relay model measure
#              measured on that cluster;
#   simulated: relay simulate on a SimGrid platform of NODES nodes made from the same measured
#              parameters (one switch, each node's link at the measured bandwidth each way, half
#              the measured latency per link, as a message crosses two).
# So the three share their inputs; what differs is how each runs the schedule: replayed on
# alpha-beta costs, simulated by SimGrid's flow model, or executed by Open MPI over TCP.
# Needs root (relay cluster), relay-smpi (./dev smpi), python3. The cluster is taken down at the
# end. Usage: issue25_three_ways.sh RELAY OUT [NODES] [RATE]
set -euo pipefail
relay=$1 out=$2 nodes=${3:-8} rate=${4:-250mbit}
sizes=8MiB
algorithms=linear,chain,binary,binomial,pipeline,scatter_allgather,kary
segments=0,64KiB
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
"$relay" cluster up --nodes "$nodes" --rate "$rate" > "$out/cluster_up.txt"
trap '"$relay" cluster down > /dev/null' EXIT
"$relay" cluster run --np 3 -- "$relay" model measure --quiet --output "$out/params.json" \
  > "$out/measure.txt"
"$relay" cluster run -- "$relay" bench bcast --sizes "$sizes" --algorithms "$algorithms" \
  --policies nonblocking --segments "$segments" --baselines none --iterations 3 --warmup 1 \
  --quiet --json "$out/emulated.json" > "$out/emulated.txt"
python3 - "$out/params.json" "$nodes" "$rate" > "$out/platform.xml" <<'PY'
import json, sys
params, nodes, rate = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3]
# Latency: the smallest message's one-way time; bandwidth: from the two largest messages (the
# asymptotic rate, as relay's GEMM model takes it: the Hockney fit over every size follows the
# middle sizes, which pass the shapers' buckets at once, and gave twice the shaped rate here).
rows = sorted((r["bytes"], r["rtt_s"] / 2) for r in params["plogp"])
(x1, t1), (x2, t2) = rows[-2], rows[-1]
latency_s, bytes_per_s = rows[0][1], (x2 - x1) / (t2 - t1)
print(f"""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- The emulated cluster ({nodes} nodes, {rate}) as relay model measure measured it: one-way
     latency {latency_s * 1e6:.1f} us ({rows[0][0]} B), {bytes_per_s / 1e6:.2f} MB/s (between
     {x1} and {x2} B). One switch; each node's link carries that bandwidth each way and half the
     latency, as a message crosses two links. -->
<platform version="4.1">
  <cluster id="emulated" prefix="node-" suffix="" radical="0-{nodes - 1}" speed="1Gf"
           bw="{bytes_per_s / 1e6:.4f}MBps" lat="{latency_s / 2 * 1e6:.3f}us"
           sharing_policy="SPLITDUPLEX" loopback_bw="10GBps" loopback_lat="1us"/>
</platform>""")
PY
"$relay" simulate --platform "$out/platform.xml" --np "$nodes" -- bench bcast --sizes "$sizes" \
  --algorithms "$algorithms" --policies nonblocking --segments "$segments" --baselines none \
  --iterations 1 --warmup 0 --quiet --json "$out/simulated.json" > "$out/simulated.txt"
"$relay" model predict --params "$out/params.json" --ranks "$nodes" --sizes "$sizes" \
  --algorithms "$algorithms" --policies nonblocking --segments "$segments" \
  --json "$out/model.json" > "$out/model.txt"
python3 - "$out" "$nodes" "$rate" <<'PY' | tee "$out/compare.md"
import json, sys
out, nodes, rate = sys.argv[1], sys.argv[2], sys.argv[3]
key = lambda r: (r["algorithm"], r["policy"], r["segment_bytes"])
def rows(name, value):
    return {key(r): r[value] for r in json.load(open(f"{out}/{name}.json"))["rows"]}
model, sim, emu = rows("model", "predicted_us"), rows("simulated", "avg_us"), rows("emulated", "avg_us")
print(f"8 MiB broadcasts on {nodes} nodes at {rate}, nonblocking; times in ms (the model's and "
      f"the platform's parameters measured on the emulated cluster: {out}/params.json, "
      f"{out}/platform.xml)\n")
print("| algorithm | segment | model | simulated | emulated | simulated / model | emulated / model |")
print("|---|---|---|---|---|---|---|")
for k in sorted(emu, key=lambda k: emu[k]):
    if k not in model or k not in sim:
        continue
    seg = f"{k[2] // 1024} KiB" if k[2] else "none"
    print(f"| {k[0]} | {seg} | {model[k] / 1e3:.1f} | {sim[k] / 1e3:.1f} | {emu[k] / 1e3:.1f} "
          f"| {sim[k] / model[k]:.3f} | {emu[k] / model[k]:.3f} |")
PY
