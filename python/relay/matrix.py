"""Distributed matrices and relay's GEMM.

``relay.gemm(A, B)`` multiplies two :class:`DistributedMatrix` objects (block-cyclic on a
:class:`Grid`, as ScaLAPACK distributes them) with relay's SUMMA and its panel broadcasts.
:meth:`DistributedMatrix.from_global` and :meth:`DistributedMatrix.to_global` move a global
numpy array on one rank to and from the grid. :func:`gemm_local` is the C call itself, on local
arrays and descriptors, for programs that already hold block-cyclic data.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import astuple, dataclass
from typing import Optional, Tuple

import numpy as np

from ._loader import MPI, _core
from .collectives import _options_from

_GEMM_DTYPES = (np.float32, np.float64, np.complex64, np.complex128)


@dataclass(frozen=True)
class Descriptor:
    """A ScaLAPACK descriptor without the BLACS context (``relay_matrix_desc_t``): global size,
    block sizes (``imb``/``inb``: first block, 0 = ``mb``/``nb``), the process row and column of
    the first block, and the local array's leading dimension."""

    m: int
    n: int
    mb: int
    nb: int
    imb: int = 0
    inb: int = 0
    rsrc: int = 0
    csrc: int = 0
    lld: int = 1

    def as_list(self) -> list:
        return [int(v) for v in astuple(self)]


def numroc(n: int, nb: int, iproc: int, isrcproc: int, nprocs: int) -> int:
    """Indices of a block-cyclic dimension held by process ``iproc`` (ScaLAPACK's NUMROC)."""
    mydist = (nprocs + iproc - isrcproc) % nprocs
    nblocks = n // nb
    count = (nblocks // nprocs) * nb
    extra = nblocks % nprocs
    if mydist < extra:
        count += nb
    elif mydist == extra:
        count += n % nb
    return count


def _owned(n: int, nb: int, iproc: int, isrcproc: int, nprocs: int) -> np.ndarray:
    """The global indices process ``iproc`` holds, in local order."""
    g = np.arange(n)
    return g[((g // nb) + isrcproc) % nprocs == iproc]


def _square_grid(size: int) -> Tuple[int, int]:
    rows = int(math.isqrt(size))
    while size % rows:
        rows -= 1
    return rows, size // rows


class Grid:
    """A rows x cols process grid over ``comm`` (``relay_grid_create``): row-major
    (``order="R"``, BLACS's default: rank r * cols + c sits at (r, c)) or ``"C"``. Without
    ``rows``/``cols``, the squarest grid of the communicator's size. Freeing is collective: use
    it in a ``with`` block or call :meth:`free`."""

    def __init__(self, comm: Optional[MPI.Comm] = None, rows: Optional[int] = None,
                 cols: Optional[int] = None, order: str = "R"):
        comm = MPI.COMM_WORLD if comm is None else comm
        if rows is None and cols is None:
            rows, cols = _square_grid(comm.Get_size())
        elif rows is None:
            rows = comm.Get_size() // cols
        elif cols is None:
            cols = comm.Get_size() // rows
        self._grid = _core.Grid(comm, rows, cols, order)
        self.comm = comm
        self.order = order
        self.rows, self.cols, self.my_row, self.my_col = self._grid.info()

    def free(self) -> None:
        """Frees the grid's communicators (collective)."""
        self._grid.free()

    def __enter__(self) -> "Grid":
        return self

    def __exit__(self, *exc) -> None:
        self.free()

    def position(self, rank: int) -> Tuple[int, int]:
        """The grid position (row, col) of a rank of ``comm``."""
        if self.order == "R":
            return divmod(rank, self.cols)
        col, row = divmod(rank, self.rows)
        return row, col


class DistributedMatrix:
    """An m x n matrix, block-cyclic (blocks of mb x nb, first block at process (rsrc, csrc)) on
    a :class:`Grid`. ``local`` is this process's part: a column-major (Fortran-order) numpy array
    of shape (lld, local columns), as ScaLAPACK stores it."""

    def __init__(self, grid: Grid, m: int, n: int, mb: int = 64, nb: int = 64,
                 dtype=np.float64, rsrc: int = 0, csrc: int = 0,
                 local: Optional[np.ndarray] = None):
        self.grid = grid
        self.m, self.n, self.mb, self.nb = int(m), int(n), int(mb), int(nb)
        self.rsrc, self.csrc = rsrc, csrc
        self.dtype = np.dtype(dtype)
        if self.dtype.type not in _GEMM_DTYPES:
            raise TypeError(f"DistributedMatrix: dtype {self.dtype} is not one of float32, "
                            "float64, complex64, complex128")
        if mb < 1 or nb < 1:
            raise ValueError(f"DistributedMatrix: block sizes {mb} x {nb} must be >= 1")
        self.local_rows = numroc(self.m, self.mb, grid.my_row, rsrc, grid.rows)
        self.local_cols = numroc(self.n, self.nb, grid.my_col, csrc, grid.cols)
        lld = max(1, self.local_rows)
        if local is None:
            local = np.zeros((lld, self.local_cols), dtype=self.dtype, order="F")
        elif local.shape != (lld, self.local_cols) or not local.flags.f_contiguous:
            raise ValueError(f"DistributedMatrix: local array of shape {local.shape} (needs "
                             f"{(lld, self.local_cols)}, Fortran order)")
        self.local = local

    @property
    def desc(self) -> Descriptor:
        """The matrix's descriptor (``relay_matrix_desc_t``)."""
        return Descriptor(self.m, self.n, self.mb, self.nb, 0, 0, self.rsrc, self.csrc,
                          max(1, self.local_rows))

    @property
    def shape(self) -> Tuple[int, int]:
        return (self.m, self.n)

    def _local_indices(self, row: int, col: int):
        g = self.grid
        return (_owned(self.m, self.mb, row, self.rsrc, g.rows),
                _owned(self.n, self.nb, col, self.csrc, g.cols))

    @classmethod
    def from_global(cls, grid: Grid, array: Optional[np.ndarray], mb: int = 64, nb: int = 64,
                    root: int = 0, dtype=None) -> "DistributedMatrix":
        """Distributes ``array`` (significant on ``root`` only) block-cyclically on ``grid``.
        Collective over the grid's communicator."""
        comm = grid.comm
        if comm.Get_rank() == root:
            a = np.asarray(array)
            if a.ndim != 2:
                shape = None
            else:
                shape = (a.shape[0], a.shape[1], np.dtype(dtype or a.dtype).str)
        else:
            a, shape = None, None
        shape = comm.bcast(shape, root=root)
        if shape is None:
            raise ValueError("DistributedMatrix.from_global: the root's array is not 2-D")
        m, n, dt = shape
        out = cls(grid, m, n, mb, nb, np.dtype(dt))
        if comm.Get_rank() == root:
            a = a.astype(out.dtype, copy=False)
            requests, parts = [], []
            for rank in range(comm.Get_size()):
                row, col = grid.position(rank)
                rows, cols = out._local_indices(row, col)
                part = np.asfortranarray(a[np.ix_(rows, cols)])
                if rank == root:
                    out.local[: len(rows), :] = part
                elif part.size:
                    requests.append(comm.Isend(part, dest=rank, tag=77))
                    parts.append(part)  # alive until sent
            MPI.Request.Waitall(requests)
        elif out.local_rows and out.local_cols:
            part = np.empty((out.local_rows, out.local_cols), dtype=out.dtype, order="F")
            comm.Recv(part, source=root, tag=77)
            out.local[: out.local_rows, :] = part
        return out

    def to_global(self, root: int = 0) -> Optional[np.ndarray]:
        """The whole matrix as a numpy array on ``root`` (None elsewhere). Collective."""
        comm = self.grid.comm
        mine = np.asfortranarray(self.local[: self.local_rows, :])
        if comm.Get_rank() != root:
            if mine.size:
                comm.Send(mine, dest=root, tag=78)
            return None
        out = np.empty((self.m, self.n), dtype=self.dtype)
        for rank in range(comm.Get_size()):
            row, col = self.grid.position(rank)
            rows, cols = self._local_indices(row, col)
            if not (len(rows) and len(cols)):
                continue
            if rank == root:
                part = mine
            else:
                part = np.empty((len(rows), len(cols)), dtype=self.dtype, order="F")
                comm.Recv(part, source=rank, tag=78)
            out[np.ix_(rows, cols)] = part
        return out

    def zeros_like(self) -> "DistributedMatrix":
        return DistributedMatrix(self.grid, self.m, self.n, self.mb, self.nb, self.dtype,
                                 self.rsrc, self.csrc)


def gemm_local(transa: str, transb: str, m: int, n: int, k: int, alpha, a: np.ndarray, ia: int,
               ja: int, desca: Descriptor, b: np.ndarray, ib: int, jb: int, descb: Descriptor,
               beta, c: np.ndarray, ic: int, jc: int, descc: Descriptor, grid: Grid, *,
               algorithm="default", bcast: Optional[dict] = None, panel_width: int = 0,
               lookahead: int = 0, pieces: int = 0, layers: int = 0,
               memory_limit_bytes: int = 0) -> dict:
    """``relay_gemm``: sub(C) = alpha op(sub(A)) op(sub(B)) + beta sub(C) on local arrays
    (column-major, as ScaLAPACK's) with their descriptors; indices 0-based. ``algorithm``:
    ``"default"``, ``"2d"``, ``"2.5d"``, ``"3d"`` or ``"auto"``; ``bcast``: the panel broadcasts'
    options (``{"algorithm": "pipeline", "segment_bytes": 65536, ...}``). Arguments are checked
    as PBLAS checks them, on every rank. Returns where the time went and what ran."""
    bcast_options = None if bcast is None else _options_from("bcast", bcast, "gemm: bcast")
    return _core.gemm(transa, transb, m, n, k, complex(alpha), a, ia, ja, desca.as_list(), b, ib,
                      jb, descb.as_list(), complex(beta), c, ic, jc, descc.as_list(), grid._grid,
                      bcast_options, algorithm, panel_width, lookahead, pieces, layers,
                      memory_limit_bytes)


def gemm(a: DistributedMatrix, b: DistributedMatrix, c: Optional[DistributedMatrix] = None, *,
         alpha=1.0, beta=0.0, transa: str = "N", transb: str = "N", return_stats: bool = False,
         **options):
    """C = alpha op(A) op(B) + beta C on distributed matrices (``relay_gemm``); op is ``"N"``,
    ``"T"`` (transpose) or ``"C"`` (conjugate transpose). Without ``c``, C is made (zeros) with
    A's row blocks and B's column blocks on A's grid. Options as :func:`gemm_local`. Returns C,
    or (C, stats) with ``return_stats=True``."""
    if a.grid is not b.grid or (c is not None and c.grid is not a.grid):
        raise ValueError("gemm: A, B and C must be on one Grid")
    m, k = (a.m, a.n) if transa.upper() == "N" else (a.n, a.m)
    kb, n = (b.m, b.n) if transb.upper() == "N" else (b.n, b.m)
    if k != kb:
        raise ValueError(f"gemm: op(A) is {m} x {k}, op(B) is {kb} x {n}")
    if c is None:
        if beta != 0:
            warnings.warn("gemm: beta is ignored without C (C starts as zeros)", stacklevel=2)
        c = DistributedMatrix(a.grid, m, n, a.mb if transa.upper() == "N" else a.nb,
                              b.nb if transb.upper() == "N" else b.mb, a.dtype)
    stats = gemm_local(transa, transb, m, n, k, alpha, a.local, 0, 0, a.desc, b.local, 0, 0,
                       b.desc, beta, c.local, 0, 0, c.desc, a.grid, **options)
    return (c, stats) if return_stats else c
