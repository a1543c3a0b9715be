"""What relay was built with and runs on."""

from ._loader import _core


def build_info() -> str:
    """relay's version, the MPI it was compiled for and the one running, the BLAS
    (``relay_build_info``)."""
    return _core.build_info()
