"""relay for Python: relay's collectives on numpy arrays and mpi4py communicators, its
distributed GEMM, the N_DUP overlap helper and decision tables. docs/python.md.

    from mpi4py import MPI
    import numpy as np
    import relay

    buf = np.arange(1 << 20, dtype=np.float64)
    relay.bcast(buf, root=0, algorithm="pipeline", segment_bytes=64 << 10)

Errors raise :class:`relay.Error` with relay's status code and message.
"""

from ._loader import MPI, RUNNING_MPI, _core  # noqa: F401  (first: picks mpi4py's MPI)
from ._errors import Error
from .collectives import (IN_PLACE, Request, allgather, allgatherv, allreduce, alltoall,
                          barrier, bcast, describe, gather, iallgather, iallgatherv, iallreduce,
                          ialltoall, ibarrier, ibcast, igather, ireduce, ireduce_scatter_block,
                          iscatter, overlap_allreduce, overlap_bcast, overlap_iallreduce,
                          overlap_ibcast, overlap_prepare, overlap_reduce, reduce,
                          reduce_scatter_block, scatter, waitall)
from .matrix import Descriptor, DistributedMatrix, Grid, gemm, gemm_local, numroc
from .tuning import algorithms, load_table, parse_bytes, tune
from . import results

__version__ = _core.version()


def build_info() -> str:
    """What relay was built with and runs on: its version, the MPI it was compiled for and the
    one running, the BLAS (``relay_build_info``)."""
    return _core.build_info()


__all__ = [
    "Error", "IN_PLACE", "Request", "MPI",
    "bcast", "ibcast", "reduce", "ireduce", "allreduce", "iallreduce", "allgather", "iallgather",
    "allgatherv", "iallgatherv", "reduce_scatter_block", "ireduce_scatter_block", "gather",
    "igather", "scatter", "iscatter", "alltoall", "ialltoall", "barrier", "ibarrier", "waitall",
    "describe",
    "overlap_prepare", "overlap_bcast", "overlap_ibcast", "overlap_reduce", "overlap_allreduce",
    "overlap_iallreduce",
    "Grid", "Descriptor", "DistributedMatrix", "gemm", "gemm_local", "numroc",
    "algorithms", "load_table", "tune", "parse_bytes", "results", "build_info",
]
