#!/usr/bin/env python3
"""Plot `relay purify` results (JSON) as a PNG: convergence and time per iteration.

Left: ||D^2 - D||_F and |tr D - Ne| against the iteration (log scale), with the tolerance.
Right: each iteration's time, split into the local multiplications, SymmSquareCube's three
communication phases (mean over processes as relay_symm_stats_t reports them on rank 0) and
the update of D.

usage: relay-plot purify RESULTS.json -o PLOT.png (or python3 purify.py ...)
"""
import sys

if __package__:
    from ._common import plt, read_results, save_atomically
else:  # run as a file, as relay's command line does: its folder is on sys.path
    from _common import plt, read_results, save_atomically


def main(argv=None):
    args, doc, rows = read_results(
        __doc__.splitlines()[0], "relay purify", "idempotency", argv=argv)
    it = [r["iteration"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    left.semilogy(it, [max(r["idempotency"], 1e-17) for r in rows], "o-", label="||D^2 - D||_F")
    left.semilogy(it, [max(r["trace_error"], 1e-17) for r in rows], "s--", label="|tr D - Ne| (0 drawn at 1e-17)")
    left.axhline(doc.get("tolerance", 1e-9), color="grey", linestyle=":", label="tolerance")
    left.set_xlabel("iteration")
    left.set_title("convergence")
    left.grid(True, alpha=0.3)
    left.legend()
    bottom = [0.0] * len(rows)
    for key, name in (("compute_s", "local multiplications"), ("distribute_s", "distribute D"),
                      ("square_s", "reduce + broadcast D^2"), ("cube_s", "reduce D^3, return"),
                      ("update_s", "traces and update")):
        values = [r[key] for r in rows]
        right.bar(it, values, bottom=bottom, label=name)
        bottom = [b + v for b, v in zip(bottom, values)]
    right.set_xlabel("iteration")
    right.set_ylabel("seconds (rank 0)")
    right.set_title("time per iteration")
    right.grid(True, axis="y", alpha=0.3)
    right.legend(fontsize=7)
    ref = doc.get("reference", {})
    extra = f"; max |D - D_eig| = {ref['max_abs_error']:.2e}" if "max_abs_error" in ref else ""
    fig.suptitle(f"relay purify: {doc.get('hamiltonian', '')}, Ne = {doc.get('electrons')}, "
                 f"{doc.get('mesh')} mesh{extra}", fontsize=10)
    fig.tight_layout()
    save_atomically(fig, args.output, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
