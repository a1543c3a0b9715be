"""relay for Python: relay's collectives on numpy arrays and mpi4py communicators, its
distributed GEMM, the N_DUP overlap helper and decision tables. docs/python.md.

    from mpi4py import MPI
    import numpy as np
    import relay

    buf = np.arange(1 << 20, dtype=np.float64)
    relay.bcast(buf, root=0, algorithm="pipeline", segment_bytes=64 << 10)

Errors raise :class:`relay.Error` with relay's status code and message.

The compiled module (and with it mpi4py, which initialises MPI) is loaded on first use of the
functions below, not by ``import relay``: ``relay.plot`` and ``relay.results`` read and draw
result files without MPI.
"""

import importlib
import os
import sys
from typing import TYPE_CHECKING

from . import _build_config

__version__ = _build_config.VERSION

# PyPI's mpi4py wheels choose their MPI when mpi4py.MPI is first imported: point them at the
# library relay was built with, whoever imports mpi4py first (relay/_loader.py).
if "mpi4py.MPI" not in sys.modules:
    os.environ.setdefault("MPI4PY_LIBMPI", _build_config.MPI_LIBRARY)

_EXPORTS = {
    "._errors": ["Error"],
    "._loader": ["MPI", "RUNNING_MPI"],
    ".collectives": [
        "IN_PLACE", "Request", "bcast", "ibcast", "reduce", "ireduce", "allreduce",
        "iallreduce", "allgather", "iallgather", "allgatherv", "iallgatherv",
        "reduce_scatter_block", "ireduce_scatter_block", "gather", "igather", "scatter",
        "iscatter", "alltoall", "ialltoall", "barrier", "ibarrier", "waitall", "progressall",
        "describe",
        "overlap_prepare", "overlap_bcast", "overlap_ibcast", "overlap_reduce",
        "overlap_ireduce", "overlap_allreduce", "overlap_iallreduce", "overlap_reduce_bcast",
        "overlap_ireduce_bcast"],
    ".matrix": ["Grid", "Descriptor", "DistributedMatrix", "gemm", "gemm_local", "numroc"],
    ".tuning": ["algorithms", "load_table", "tune", "parse_bytes"],
    ".info": ["build_info"],
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE) + ["results", "plot"]


def __getattr__(name):
    module = _WHERE.get(name)
    if module is None:
        if name in ("results", "plot"):
            return importlib.import_module("." + name, __name__)
        raise AttributeError(f"module 'relay' has no attribute '{name}'")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what type checkers and IDEs see; at run time, loaded on first use
    from . import plot, results  # noqa: F401
    from ._errors import Error  # noqa: F401
    from ._loader import MPI, RUNNING_MPI  # noqa: F401
    from .collectives import (IN_PLACE, Request, allgather, allgatherv, allreduce,  # noqa: F401
                              alltoall, barrier, bcast, describe, gather, iallgather,
                              iallgatherv, iallreduce, ialltoall, ibarrier, ibcast, igather,
                              ireduce, ireduce_scatter_block, iscatter, overlap_allreduce,
                              overlap_bcast, overlap_iallreduce, overlap_ibcast,
                              overlap_ireduce, overlap_ireduce_bcast, overlap_prepare,
                              overlap_reduce, overlap_reduce_bcast, progressall, reduce,
                              reduce_scatter_block, scatter, waitall)
    from .info import build_info  # noqa: F401
    from .matrix import (Descriptor, DistributedMatrix, Grid, gemm, gemm_local,  # noqa: F401
                         numroc)
    from .tuning import algorithms, load_table, parse_bytes, tune  # noqa: F401
