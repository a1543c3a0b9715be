"""Plots of relay's result files (the JSON of ``relay bench ... --json``, ``relay tune --json``,
``relay purify --json``), without MPI: ``relay-plot RESULTS.json -o PLOT.png`` (or
``python -m relay.plot``), the kind of plot taken from the document's schema. Each module is
also a script the relay command runs for ``--plot``. Needs matplotlib.
"""

#: The plot of each result schema (relay.bench.coll is drawn as bcast's).
KINDS = {
    "relay.bench.bcast": "bcast",
    "relay.bench.coll": "bcast",
    "relay.bench.eager": "eager",
    "relay.bench.gemm": "gemm",
    "relay.bench.overlap": "overlap",
    "relay.bench.solve": "solve",
    "relay.bench.symm": "symm",
    "relay.purify": "purify",
    "relay.tune": "tune",
}
