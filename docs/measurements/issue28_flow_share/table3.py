# huang2018 Table III from the simulations' JSON (run.sh's per-flow share runs, or
# issue28_sim.sh's whole-link ones): TFLOP/s per PPN, beside the paper's. N_DUP 4 is the row with
# all 4 parts in flight (the Table III runs'; the 64-node run of issue28_sim.sh also has 2).
# Usage: table3.py OUT_DIR > table3.md
import glob, json, os, re, sys
out = sys.argv[1]
huang = {1: (19.21, 22.48), 2: (20.61, 26.45), 4: (26.24, 33.87), 6: (27.53, 36.73), 8: (24.98, 32.38)}
rows = []
for path in glob.glob(os.path.join(out, "symm_*_n7645*.json")):
    doc = json.load(open(path))
    m = re.match(r"symm_(?:ppn(\d+)_np\d+|P64)_n7645(?:_share[0-9.]+)?\.json", os.path.basename(path))
    if not m:
        continue
    ppn = int(m.group(1) or 1)
    by = {}
    for r in doc["rows"]:
        if "time_s" in r and r.get("parts_in_flight", r["n_dup"]) in (0, r["n_dup"]):
            by[(r["parts"], r["algorithm"], r["n_dup"])] = r["gflops"] / 1000
    rows.append((ppn, doc["mesh"], by))
rows.sort()
print("| PPN | mesh | nodes | MPI's parts: baseline, N_DUP 1, N_DUP 4 (TFLOP/s) | relay's parts: baseline, N_DUP 1, N_DUP 4 (TFLOP/s) | huang2018 Table III: N_DUP 1, N_DUP 4 |")
print("|---|---|---|---|---|---|")
for ppn, mesh, by in rows:
    p = int(mesh.split("x")[0])
    nodes = -(-p ** 3 // ppn)
    cell = lambda parts: ", ".join(f"{by[k]:.1f}" if k in by else "-" for k in
                                   [(parts, "baseline", 1), (parts, "overlap", 1), (parts, "overlap", 4)])
    h = huang.get(ppn, ("-", "-"))
    print(f"| {ppn} | {mesh} | {nodes} | {cell('mpi')} | {cell('relay')} | {h[0]}, {h[1]} |")
