#!/usr/bin/env bash
# Issue 25, acceptance 1: every broadcast algorithm at 8 MiB on 64 simulated Gigabit Ethernet
# nodes (platform gige64, correction factors off) against relay's model replaying the same
# schedule, and the pipeline against tan2014's link bound S/BD (1 + (P-1)/n). The model's
# parameters are measured in the same simulation (relay model measure on 3 simulated ranks).
# Simulated times are deterministic; the host seconds printed by relay simulate are not.
# Usage: issue25_bcast_model_vs_sim.sh RELAY OUT_DIR   (RELAY: the relay command; relay-smpi
# beside it or in RELAY_SIMULATE_RELAY)
set -euo pipefail
relay=$1 out=$2
mkdir -p "$out"
algorithms=linear,chain,binary,binomial,pipeline,scatter_allgather,kary
"$relay" simulate --platform gige64 --np 3 -- model measure --quiet \
  --output "$out/params.json" | tee "$out/measure.txt"
"$relay" simulate --platform gige64 --np 64 -- bench bcast --sizes 8MiB \
  --algorithms "$algorithms" --policies blocking,nonblocking --segments 0,64KiB,128KiB \
  --baselines none --iterations 1 --warmup 0 --quiet --json "$out/sim.json" | tee "$out/sim.txt"
for model in hockney plogp; do
  flag=()
  [[ $model == hockney ]] && flag=(--hockney)
  "$relay" model predict --params "$out/params.json" "${flag[@]}" --ranks 64 --sizes 8MiB \
    --algorithms "$algorithms" --segments 0,64KiB,128KiB --json "$out/$model.json" \
    > "$out/$model.txt"
done
python3 - "$out" <<'PY' | tee "$out/compare.md"
import json, sys
out = sys.argv[1]
key = lambda r: (r["algorithm"], r["policy"], r["segment_bytes"])
sim = {key(r): r["avg_us"] for r in json.load(open(f"{out}/sim.json"))["rows"]}
model = {m: {key(r): r["predicted_us"] for r in json.load(open(f"{out}/{m}.json"))["rows"]}
         for m in ("hockney", "plogp")}
params = json.load(open(f"{out}/params.json"))
print(f"sends to two peers: {params['sends_to_two_peers']} (first of two took "
      f"{params['two_peers_first_ratio']:.2f}x one alone); Hockney alpha "
      f"{params['hockney']['alpha_s'] * 1e6:.1f} us, {params['hockney']['bandwidth_MBps']:.0f} MB/s\n")
print("| algorithm | policy | segment | simulated (ms) | model, Hockney (ms) | sim / model | model, PLogP (ms) | sim / model |")
print("|---|---|---|---|---|---|---|---|")
worst = {"hockney": 0.0, "plogp": 0.0}
for k in sorted(sim, key=lambda k: sim[k]):
    h, p = model["hockney"][k], model["plogp"][k]
    for m, v in (("hockney", h), ("plogp", p)):
        worst[m] = max(worst[m], abs(sim[k] / v - 1))
    seg = f"{k[2] // 1024} KiB" if k[2] else "none"
    print(f"| {k[0]} | {k[1]} | {seg} | {sim[k] / 1e3:.1f} | {h / 1e3:.1f} | {sim[k] / h:.3f} "
          f"| {p / 1e3:.1f} | {sim[k] / p:.3f} |")
print(f"\nworst |sim / model - 1| over {len(sim)} rows: Hockney {worst['hockney'] * 100:.1f}%, "
      f"PLogP {worst['plogp'] * 100:.1f}%")
S, B, P = 8 * 1024 * 1024, 125e6, 64
for seg in (65536, 131072):
    n = S // seg
    bound = S / B * (1 + (P - 1) / n) * 1e6
    for pol in ("blocking", "nonblocking"):
        t = sim[("pipeline", pol, seg)]
        print(f"pipeline {pol}, {seg // 1024} KiB (n = {n}): {t / 1e3:.1f} ms, link bound "
              f"S/BD (1 + (P-1)/n) = {bound / 1e3:.1f} ms: {t / bound:.3f}x")
PY
