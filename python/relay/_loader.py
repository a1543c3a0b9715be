"""Loads relay's compiled module and mpi4py on one MPI library.

PyPI's mpi4py wheels choose their MPI when mpi4py.MPI is first imported: told by
MPI4PY_LIBMPI (relay/__init__.py sets it), they take the library relay was built with. An
mpi4py built from source is tied to its MPI; if that is the other family (Open MPI / MPICH),
relay's first use fails here, saying how to fix it, rather than at its first MPI call.
"""

from . import _build_config

try:
    from mpi4py import MPI  # noqa: E402  (initialises MPI, as any mpi4py program does)
except ImportError as error:
    raise ImportError(
        f"relay: mpi4py cannot load an MPI ({error}). relay was built for "
        f"{_build_config.MPI_FAMILY} ({_build_config.MPI_LIBRARY}); PyPI's mpi4py wheels need "
        "MPICH's library under its ABI name libmpi.so.12, which Debian's MPICH does not have: "
        "build mpi4py for it (MPICC=mpicc.mpich pip install --no-binary mpi4py mpi4py; "
        "docs/python.md)") from error

from . import _core  # noqa: E402


def _family(library_version: str) -> str:
    if "Open MPI" in library_version:
        return "openmpi"
    if "MPICH" in library_version:
        return "mpich"
    return "unknown"


RUNNING_MPI = MPI.Get_library_version().splitlines()[0].strip().rstrip(",")
if _family(RUNNING_MPI) != _build_config.MPI_FAMILY:
    raise ImportError(
        f"relay was built for {_core.built_for() or _build_config.MPI_FAMILY}, but mpi4py runs "
        f"{RUNNING_MPI}: both must use one MPI. Install mpi4py for relay's MPI "
        f"(MPICC=<that MPI's mpicc> pip install --no-binary mpi4py mpi4py) or rebuild relay for "
        f"mpi4py's (docs/python.md)"
    )

__all__ = ["MPI", "_core", "RUNNING_MPI"]
