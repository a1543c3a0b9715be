"""relay's collectives on numpy arrays (or any buffer) and mpi4py communicators.

Every function takes the options of the C API as keyword arguments with the same names:

- ``algorithm``: a name of :func:`relay.algorithms` (``"pipeline"``, ``"binomial"``, ``"mpi"``,
  ...) or the C enum's number; ``"auto"`` lets relay choose (a loaded decision table, else the
  model).
- ``policy``: ``"default"``, ``"blocking"`` or ``"nonblocking"``.
- ``segment_bytes``: bytes per segment (a whole number of elements), ``0`` unsegmented, ``None``
  the algorithm's default.
- ``fanout``, ``max_requests``: as in the C API, ``0`` for the default.
- ``check``: ``"default"``, ``"local"`` or ``"collective"`` (the ranks agree on their arguments
  first, so a bad argument on one rank raises :class:`relay.Error` on all of them).

Buffers are numpy arrays or anything with the buffer protocol, contiguous, of bool, int8-64,
uint8-64, float32, float64, complex64 or complex128 in native byte order. Received data is
written into the arrays given; where a receive buffer is optional, relay allocates it and
returns it. ``comm`` is an mpi4py communicator (``None``: ``MPI.COMM_WORLD``); relay uses its
handle, never a copy.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Union

import numpy as np

from ._loader import MPI, _core

Buffer = Any  # numpy.ndarray or any object with the buffer protocol
Op = Union[str, "MPI.Op"]


class _InPlace:
    """The marker for MPI_IN_PLACE (``mpi4py.MPI.IN_PLACE`` is accepted too)."""

    def __repr__(self) -> str:
        return "relay.IN_PLACE"


#: Pass as ``sendbuf`` (``recvbuf`` of :func:`scatter`) for MPI_IN_PLACE.
IN_PLACE = _InPlace()


def _in_place(buf: Any) -> bool:
    return buf is IN_PLACE or buf is MPI.IN_PLACE


def _comm(comm: Optional[MPI.Comm]) -> MPI.Comm:
    return MPI.COMM_WORLD if comm is None else comm


def _options(collective: str, algorithm, policy, segment_bytes, fanout, max_requests, check):
    return _core.Options(collective, algorithm, policy, segment_bytes, fanout, max_requests, check)


_OPTION_NAMES = ("algorithm", "policy", "segment_bytes", "fanout", "max_requests", "check")


def _options_from(collective: str, options: Optional[dict], what: str):
    """Options given as a dict ({"algorithm": "pipeline", ...}), for calls that take two sets."""
    merged = {"algorithm": "auto", "policy": "default", "segment_bytes": None, "fanout": 0,
              "max_requests": 0, "check": "default"}
    unknown = set(options or {}) - set(_OPTION_NAMES)
    if unknown:
        raise TypeError(f"{what}: options {sorted(unknown)} are not among {list(_OPTION_NAMES)}")
    merged.update(options or {})
    return _options(collective, **merged)


def _array(buf: Buffer) -> np.ndarray:
    """A numpy view of buf (no copy), to size the arrays relay allocates."""
    return buf if isinstance(buf, np.ndarray) else np.asarray(memoryview(buf))


class Request:
    """A nonblocking relay operation (``relay.ibcast`` and the other ``i`` forms).

    relay holds the buffers until the operation completes. Call :meth:`progress` (or
    :meth:`test`) while computing, so that ranks that forward segments keep doing so, then
    :meth:`wait`, which returns the operation's result array (or None).
    """

    def __init__(self, request: "_core.Request", result: Optional[np.ndarray] = None):
        self._request = request
        self.result = result

    def test(self) -> bool:
        """Advances the operation; True once it has completed."""
        return self._request.test()

    def wait(self) -> Optional[np.ndarray]:
        """Blocks until the operation completes; returns its result array (or None)."""
        self._request.wait()
        return self.result

    def progress(self) -> None:
        """Advances the operation without blocking."""
        self._request.progress()

    @property
    def done(self) -> bool:
        """Whether the operation has completed."""
        return self._request.done

    @property
    def part_times(self) -> Optional[List[dict]]:
        """Overlapped operations (``overlap_i*``): when each part ran, once complete."""
        return self._request.part_times


def waitall(requests: Sequence[Request]) -> list:
    """Waits for every request, advancing all of them together (``relay_waitall``): waiting for
    them one by one would leave the others' forwarding stalled. Returns their results."""
    _core.waitall([r._request for r in requests])
    return [r.result for r in requests]


def progressall(requests: Sequence[Request]) -> None:
    """Advances every request without blocking, with one MPI test for all of them
    (``relay_progressall``): what to call between slices of computation while several
    operations are in flight. Frees nothing; complete them with ``wait``, ``test`` or
    ``waitall``."""
    _core.progressall([r._request for r in requests])


def _finish(started, result, nonblocking: bool):
    return Request(started, result) if nonblocking else result


# ---- broadcast ------------------------------------------------------------------------------


def bcast(buf: Buffer, root: int = 0, comm: Optional[MPI.Comm] = None, *, algorithm="auto",
          policy: str = "default", segment_bytes: Optional[int] = None, fanout: int = 0,
          max_requests: int = 0, check: str = "default") -> Buffer:
    """Broadcasts ``buf`` from ``root`` to every rank of ``comm`` (``relay_bcast``); returns buf."""
    o = _options("bcast", algorithm, policy, segment_bytes, fanout, max_requests, check)
    _core.bcast(buf, root, _comm(comm), o, False)
    return buf


def ibcast(buf: Buffer, root: int = 0, comm: Optional[MPI.Comm] = None, *, algorithm="auto",
           policy: str = "default", segment_bytes: Optional[int] = None, fanout: int = 0,
           max_requests: int = 0, check: str = "default") -> Request:
    """Starts :func:`bcast`; ``wait()`` returns buf."""
    o = _options("bcast", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return Request(_core.bcast(buf, root, _comm(comm), o, True), buf)


# ---- reductions -----------------------------------------------------------------------------


def _reduce(sendbuf, recvbuf, op, root, comm, options, nonblocking):
    comm = _comm(comm)
    if recvbuf is None and comm.Get_rank() == root and not _in_place(sendbuf):
        recvbuf = np.empty_like(_array(sendbuf))
    send = None if _in_place(sendbuf) else sendbuf
    started = _core.reduce(send, recvbuf, op, root, comm, options, nonblocking)
    result = recvbuf if comm.Get_rank() == root else None
    return _finish(started, result, nonblocking)


def reduce(sendbuf: Buffer, recvbuf: Optional[Buffer] = None, op: Op = "sum", root: int = 0,
           comm: Optional[MPI.Comm] = None, *, algorithm="auto", policy: str = "default",
           segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
           check: str = "default") -> Optional[Buffer]:
    """Reduces every rank's ``sendbuf`` with ``op`` into ``recvbuf`` at ``root``
    (``relay_reduce``). ``op``: ``"sum"``, ``"prod"``, ``"max"``, ``"min"``, ``"land"``,
    ``"lor"``, ``"lxor"``, ``"band"``, ``"bor"``, ``"bxor"`` or an mpi4py ``MPI.Op``.
    ``sendbuf`` may be :data:`IN_PLACE` at the root. Returns the result at the root (allocated
    when ``recvbuf`` is None), None elsewhere."""
    o = _options("reduce", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _reduce(sendbuf, recvbuf, op, root, comm, o, False)


def ireduce(sendbuf: Buffer, recvbuf: Optional[Buffer] = None, op: Op = "sum", root: int = 0,
            comm: Optional[MPI.Comm] = None, *, algorithm="auto", policy: str = "default",
            segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
            check: str = "default") -> Request:
    """Starts :func:`reduce`."""
    o = _options("reduce", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _reduce(sendbuf, recvbuf, op, root, comm, o, True)


def _allreduce(sendbuf, recvbuf, op, comm, options, nonblocking):
    if _in_place(sendbuf):
        if recvbuf is None:
            raise TypeError("allreduce: with sendbuf=IN_PLACE the data is in recvbuf")
        send = None
    else:
        send = sendbuf
        if recvbuf is None:
            recvbuf = np.empty_like(_array(sendbuf))
    started = _core.allreduce(send, recvbuf, op, _comm(comm), options, nonblocking)
    return _finish(started, recvbuf, nonblocking)


def allreduce(sendbuf: Buffer, recvbuf: Optional[Buffer] = None, op: Op = "sum",
              comm: Optional[MPI.Comm] = None, *, algorithm="auto", policy: str = "default",
              segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
              check: str = "default") -> Buffer:
    """Reduces every rank's ``sendbuf`` with ``op``; every rank gets the result in ``recvbuf``
    (allocated when None), which is returned (``relay_allreduce``). ``sendbuf`` may be
    :data:`IN_PLACE` (the input is in recvbuf)."""
    o = _options("allreduce", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _allreduce(sendbuf, recvbuf, op, comm, o, False)


def iallreduce(sendbuf: Buffer, recvbuf: Optional[Buffer] = None, op: Op = "sum",
               comm: Optional[MPI.Comm] = None, *, algorithm="auto", policy: str = "default",
               segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
               check: str = "default") -> Request:
    """Starts :func:`allreduce`."""
    o = _options("allreduce", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _allreduce(sendbuf, recvbuf, op, comm, o, True)


def _reduce_scatter_block(sendbuf, recvbuf, op, comm, options, nonblocking):
    comm = _comm(comm)
    if _in_place(sendbuf):
        if recvbuf is None:
            raise TypeError("reduce_scatter_block: with sendbuf=IN_PLACE the data is in recvbuf")
        send = None
    else:
        send = sendbuf
        if recvbuf is None:
            a = _array(sendbuf)
            recvbuf = np.empty(a.size // comm.Get_size(), dtype=a.dtype)
    started = _core.reduce_scatter_block(send, recvbuf, op, comm, options, nonblocking)
    return _finish(started, recvbuf, nonblocking)


def reduce_scatter_block(sendbuf: Buffer, recvbuf: Optional[Buffer] = None, op: Op = "sum",
                         comm: Optional[MPI.Comm] = None, *, algorithm="auto",
                         policy: str = "default", segment_bytes: Optional[int] = None,
                         fanout: int = 0, max_requests: int = 0,
                         check: str = "default") -> Buffer:
    """Reduces ``sendbuf`` (one block per rank) over all ranks; rank r gets block r in
    ``recvbuf`` (allocated when None: sendbuf's size / ranks, flat), which is returned
    (``relay_reduce_scatter_block``). With ``sendbuf=IN_PLACE`` the input is in recvbuf (every
    rank's block) and rank r's result is left in its first block."""
    o = _options("reduce_scatter_block", algorithm, policy, segment_bytes, fanout, max_requests,
                 check)
    return _reduce_scatter_block(sendbuf, recvbuf, op, comm, o, False)


def ireduce_scatter_block(sendbuf: Buffer, recvbuf: Optional[Buffer] = None, op: Op = "sum",
                          comm: Optional[MPI.Comm] = None, *, algorithm="auto",
                          policy: str = "default", segment_bytes: Optional[int] = None,
                          fanout: int = 0, max_requests: int = 0,
                          check: str = "default") -> Request:
    """Starts :func:`reduce_scatter_block`."""
    o = _options("reduce_scatter_block", algorithm, policy, segment_bytes, fanout, max_requests,
                 check)
    return _reduce_scatter_block(sendbuf, recvbuf, op, comm, o, True)


# ---- gathers, scatter, all-to-all -------------------------------------------------------------


def _blocks_for(sendbuf, comm) -> np.ndarray:
    a = _array(sendbuf)
    return np.empty((comm.Get_size(),) + a.shape, dtype=a.dtype)


def _allgather(sendbuf, recvbuf, comm, options, nonblocking):
    comm = _comm(comm)
    if _in_place(sendbuf):
        if recvbuf is None:
            raise TypeError("allgather: with sendbuf=IN_PLACE the data is in recvbuf")
        send = None
    else:
        send = sendbuf
        if recvbuf is None:
            recvbuf = _blocks_for(sendbuf, comm)
    started = _core.allgather(send, recvbuf, comm, options, nonblocking)
    return _finish(started, recvbuf, nonblocking)


def allgather(sendbuf: Buffer, recvbuf: Optional[Buffer] = None,
              comm: Optional[MPI.Comm] = None, *, algorithm="auto", policy: str = "default",
              segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
              check: str = "default") -> Buffer:
    """Every rank gets every rank's ``sendbuf``, in rank order, in ``recvbuf`` (allocated when
    None, shape ``(ranks,) + sendbuf.shape``), which is returned (``relay_allgather``)."""
    o = _options("allgather", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _allgather(sendbuf, recvbuf, comm, o, False)


def iallgather(sendbuf: Buffer, recvbuf: Optional[Buffer] = None,
               comm: Optional[MPI.Comm] = None, *, algorithm="auto", policy: str = "default",
               segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
               check: str = "default") -> Request:
    """Starts :func:`allgather`."""
    o = _options("allgather", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _allgather(sendbuf, recvbuf, comm, o, True)


def _allgatherv(sendbuf, recvbuf, counts, displs, comm, options, nonblocking):
    counts = [int(c) for c in counts]
    displs = None if displs is None else [int(d) for d in displs]
    if recvbuf is None:
        if _in_place(sendbuf):
            raise TypeError("allgatherv: with sendbuf=IN_PLACE the data is in recvbuf")
        end = max((d + c for d, c in zip(displs, counts)), default=0) if displs else sum(counts)
        recvbuf = np.empty(end, dtype=_array(sendbuf).dtype)
    send = None if _in_place(sendbuf) else sendbuf
    started = _core.allgatherv(send, recvbuf, counts, displs, _comm(comm), options, nonblocking)
    return _finish(started, recvbuf, nonblocking)


def allgatherv(sendbuf: Buffer, recvbuf: Optional[Buffer], counts: Sequence[int],
               displs: Optional[Sequence[int]] = None, comm: Optional[MPI.Comm] = None, *,
               algorithm="auto", policy: str = "default", segment_bytes: Optional[int] = None,
               fanout: int = 0, max_requests: int = 0, check: str = "default") -> Buffer:
    """Rank r's ``sendbuf`` (``counts[r]`` elements) lands on every rank at ``recvbuf`` element
    ``displs[r]`` (``relay_allgatherv``). ``displs`` None: one block after the other;
    ``recvbuf`` None: allocated (flat). Returns recvbuf."""
    o = _options("allgatherv", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _allgatherv(sendbuf, recvbuf, counts, displs, comm, o, False)


def iallgatherv(sendbuf: Buffer, recvbuf: Optional[Buffer], counts: Sequence[int],
                displs: Optional[Sequence[int]] = None, comm: Optional[MPI.Comm] = None, *,
                algorithm="auto", policy: str = "default", segment_bytes: Optional[int] = None,
                fanout: int = 0, max_requests: int = 0, check: str = "default") -> Request:
    """Starts :func:`allgatherv`."""
    o = _options("allgatherv", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _allgatherv(sendbuf, recvbuf, counts, displs, comm, o, True)


def _gather(sendbuf, recvbuf, root, comm, options, nonblocking):
    comm = _comm(comm)
    is_root = comm.Get_rank() == root
    if recvbuf is None and is_root and not _in_place(sendbuf):
        recvbuf = _blocks_for(sendbuf, comm)
    send = None if _in_place(sendbuf) else sendbuf
    started = _core.gather(send, recvbuf if is_root else None, root, comm, options, nonblocking)
    return _finish(started, recvbuf if is_root else None, nonblocking)


def gather(sendbuf: Buffer, recvbuf: Optional[Buffer] = None, root: int = 0,
           comm: Optional[MPI.Comm] = None, *, algorithm="auto", policy: str = "default",
           segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
           check: str = "default") -> Optional[Buffer]:
    """The root gets every rank's ``sendbuf`` in rank order in ``recvbuf`` (allocated when
    None, shape ``(ranks,) + sendbuf.shape``), returned there; None elsewhere
    (``relay_gather``). ``sendbuf`` may be :data:`IN_PLACE` at the root."""
    o = _options("gather", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _gather(sendbuf, recvbuf, root, comm, o, False)


def igather(sendbuf: Buffer, recvbuf: Optional[Buffer] = None, root: int = 0,
            comm: Optional[MPI.Comm] = None, *, algorithm="auto", policy: str = "default",
            segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
            check: str = "default") -> Request:
    """Starts :func:`gather`."""
    o = _options("gather", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _gather(sendbuf, recvbuf, root, comm, o, True)


def _scatter(sendbuf, recvbuf, root, comm, options, nonblocking):
    comm = _comm(comm)
    recv = None if _in_place(recvbuf) else recvbuf
    send = sendbuf if comm.Get_rank() == root else None
    started = _core.scatter(send, recv, root, comm, options, nonblocking)
    return _finish(started, recv, nonblocking)


def scatter(sendbuf: Optional[Buffer], recvbuf: Buffer, root: int = 0,
            comm: Optional[MPI.Comm] = None, *, algorithm="auto", policy: str = "default",
            segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
            check: str = "default") -> Optional[Buffer]:
    """Block r of the root's ``sendbuf`` (one block per rank; ignored elsewhere) goes to rank
    r's ``recvbuf``, which is returned (``relay_scatter``). ``recvbuf`` may be
    :data:`IN_PLACE` at the root (its block stays in sendbuf; None is returned there)."""
    o = _options("scatter", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _scatter(sendbuf, recvbuf, root, comm, o, False)


def iscatter(sendbuf: Optional[Buffer], recvbuf: Buffer, root: int = 0,
             comm: Optional[MPI.Comm] = None, *, algorithm="auto", policy: str = "default",
             segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
             check: str = "default") -> Request:
    """Starts :func:`scatter`."""
    o = _options("scatter", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _scatter(sendbuf, recvbuf, root, comm, o, True)


def _alltoall(sendbuf, recvbuf, comm, options, nonblocking):
    if _in_place(sendbuf):
        if recvbuf is None:
            raise TypeError("alltoall: with sendbuf=IN_PLACE the data is in recvbuf")
        send = None
    else:
        send = sendbuf
        if recvbuf is None:
            recvbuf = np.empty_like(_array(sendbuf))
    started = _core.alltoall(send, recvbuf, _comm(comm), options, nonblocking)
    return _finish(started, recvbuf, nonblocking)


def alltoall(sendbuf: Buffer, recvbuf: Optional[Buffer] = None,
             comm: Optional[MPI.Comm] = None, *, algorithm="auto", policy: str = "default",
             segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
             check: str = "default") -> Buffer:
    """Block d of ``sendbuf`` (one block per rank) goes to rank d, which stores it as block
    ``rank`` of its ``recvbuf`` (allocated like sendbuf when None), returned
    (``relay_alltoall``). ``sendbuf`` may be :data:`IN_PLACE`."""
    o = _options("alltoall", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _alltoall(sendbuf, recvbuf, comm, o, False)


def ialltoall(sendbuf: Buffer, recvbuf: Optional[Buffer] = None,
              comm: Optional[MPI.Comm] = None, *, algorithm="auto", policy: str = "default",
              segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
              check: str = "default") -> Request:
    """Starts :func:`alltoall`."""
    o = _options("alltoall", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _alltoall(sendbuf, recvbuf, comm, o, True)


def barrier(comm: Optional[MPI.Comm] = None, *, algorithm="auto", policy: str = "default",
            segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
            check: str = "default") -> None:
    """Returns once every rank of ``comm`` has entered the barrier (``relay_barrier``)."""
    o = _options("barrier", algorithm, policy, segment_bytes, fanout, max_requests, check)
    _core.barrier(_comm(comm), o, False)


def ibarrier(comm: Optional[MPI.Comm] = None, *, algorithm="auto", policy: str = "default",
             segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
             check: str = "default") -> Request:
    """Starts :func:`barrier`."""
    o = _options("barrier", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return Request(_core.barrier(_comm(comm), o, True))


# ---- the N_DUP overlap helper (huang2018) ---------------------------------------------------


def overlap_prepare(n_dup: int, comm: Optional[MPI.Comm] = None) -> None:
    """Creates the n_dup duplicate communicators overlapped operations use, up front
    (``relay_overlap_prepare``; the first overlapped call does it otherwise)."""
    _core.overlap_prepare(_comm(comm), n_dup)


def overlap_bcast(buf: Buffer, root: int = 0, comm: Optional[MPI.Comm] = None, n_dup: int = 4,
                  *, algorithm="auto", policy: str = "default",
                  segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
                  check: str = "default") -> List[dict]:
    """Broadcasts ``buf`` in ``n_dup`` parts on duplicated communicators, overlapped
    (``relay_overlap_bcast``). Returns when each part ran on this rank (seconds since the
    call began: ``post_start_s``, ``posted_s``, ``first_done_s``, ``done_s``, ...)."""
    o = _options("bcast", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _core.overlap_bcast(buf, root, _comm(comm), n_dup, o, False)


def overlap_ibcast(buf: Buffer, root: int = 0, comm: Optional[MPI.Comm] = None,
                   n_dup: int = 4, *, algorithm="auto", policy: str = "default",
                   segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
                   check: str = "default") -> Request:
    """Starts :func:`overlap_bcast`; the request's ``part_times`` once complete."""
    o = _options("bcast", algorithm, policy, segment_bytes, fanout, max_requests, check)
    return Request(_core.overlap_bcast(buf, root, _comm(comm), n_dup, o, True), buf)


def overlap_reduce(sendbuf: Buffer, recvbuf: Optional[Buffer] = None, op: Op = "sum",
                   root: int = 0, comm: Optional[MPI.Comm] = None, n_dup: int = 4, *,
                   algorithm="auto", policy: str = "default",
                   segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
                   check: str = "default") -> List[dict]:
    """:func:`reduce` in ``n_dup`` overlapped parts (``relay_overlap_reduce``); ``recvbuf`` is
    needed at the root. Returns each part's times."""
    o = _options("reduce", algorithm, policy, segment_bytes, fanout, max_requests, check)
    send = None if _in_place(sendbuf) else sendbuf
    return _core.overlap_reduce(send, recvbuf, op, root, _comm(comm), n_dup, o, False)


def overlap_ireduce(sendbuf: Buffer, recvbuf: Optional[Buffer] = None, op: Op = "sum",
                    root: int = 0, comm: Optional[MPI.Comm] = None, n_dup: int = 4, *,
                    algorithm="auto", policy: str = "default",
                    segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
                    check: str = "default") -> Request:
    """Starts :func:`overlap_reduce`; the request's ``part_times`` once complete."""
    o = _options("reduce", algorithm, policy, segment_bytes, fanout, max_requests, check)
    send = None if _in_place(sendbuf) else sendbuf
    return Request(_core.overlap_reduce(send, recvbuf, op, root, _comm(comm), n_dup, o, True),
                   recvbuf)


def overlap_allreduce(sendbuf: Buffer, recvbuf: Buffer, op: Op = "sum",
                      comm: Optional[MPI.Comm] = None, n_dup: int = 4, *, algorithm="auto",
                      policy: str = "default", segment_bytes: Optional[int] = None,
                      fanout: int = 0, max_requests: int = 0,
                      check: str = "default") -> List[dict]:
    """:func:`allreduce` in ``n_dup`` overlapped parts (``relay_overlap_allreduce``). Returns
    each part's times."""
    o = _options("allreduce", algorithm, policy, segment_bytes, fanout, max_requests, check)
    send = None if _in_place(sendbuf) else sendbuf
    return _core.overlap_allreduce(send, recvbuf, op, _comm(comm), n_dup, o, False)


def overlap_iallreduce(sendbuf: Buffer, recvbuf: Buffer, op: Op = "sum",
                       comm: Optional[MPI.Comm] = None, n_dup: int = 4, *, algorithm="auto",
                       policy: str = "default", segment_bytes: Optional[int] = None,
                       fanout: int = 0, max_requests: int = 0,
                       check: str = "default") -> Request:
    """Starts :func:`overlap_allreduce`; the request's ``part_times`` once complete."""
    o = _options("allreduce", algorithm, policy, segment_bytes, fanout, max_requests, check)
    send = None if _in_place(sendbuf) else sendbuf
    return Request(_core.overlap_allreduce(send, recvbuf, op, _comm(comm), n_dup, o, True),
                   recvbuf)


def _overlap_reduce_bcast(sendbuf, recvbuf, op, reduce_root, reduce_comm, bcast_root, bcast_comm,
                          n_dup, reduce_options, bcast_options, nonblocking):
    ro = _options_from("reduce", reduce_options, "reduce_options")
    bo = _options_from("bcast", bcast_options, "bcast_options")
    if recvbuf is None and not _in_place(sendbuf):
        recvbuf = np.empty_like(_array(sendbuf))
    send = None if _in_place(sendbuf) else sendbuf
    started = _core.overlap_reduce_bcast(send, recvbuf, op, reduce_root, reduce_comm, bcast_root,
                                         bcast_comm, n_dup, ro, bo, nonblocking)
    return Request(started, recvbuf) if nonblocking else (recvbuf, started)


def overlap_reduce_bcast(sendbuf: Buffer, recvbuf: Optional[Buffer], op: Op, reduce_root: int,
                         reduce_comm: MPI.Comm, bcast_root: int, bcast_comm: MPI.Comm,
                         n_dup: int = 4, *, reduce_options: Optional[dict] = None,
                         bcast_options: Optional[dict] = None):
    """huang2018's Algorithm 2 (``relay_overlap_reduce_bcast``): ``sendbuf`` is reduced over
    ``reduce_comm`` to ``reduce_root``, then broadcast over ``bcast_comm`` from ``bcast_root``,
    part by part, part c's broadcast overlapping part c+1's reduction. Every rank gets the
    result in ``recvbuf`` (allocated when None). For y = A x on a p x p grid, rank (i, j) passes
    its row (``reduce_root=i``) and its column (``bcast_root=j``) and gets y_j. The options of
    each step are dicts (``{"algorithm": "binomial", ...}``). Returns (recvbuf, part times)."""
    return _overlap_reduce_bcast(sendbuf, recvbuf, op, reduce_root, reduce_comm, bcast_root,
                                 bcast_comm, n_dup, reduce_options, bcast_options, False)


def overlap_ireduce_bcast(sendbuf: Buffer, recvbuf: Optional[Buffer], op: Op, reduce_root: int,
                          reduce_comm: MPI.Comm, bcast_root: int, bcast_comm: MPI.Comm,
                          n_dup: int = 4, *, reduce_options: Optional[dict] = None,
                          bcast_options: Optional[dict] = None) -> Request:
    """Starts :func:`overlap_reduce_bcast`; the request's ``part_times`` once complete."""
    return _overlap_reduce_bcast(sendbuf, recvbuf, op, reduce_root, reduce_comm, bcast_root,
                                 bcast_comm, n_dup, reduce_options, bcast_options, True)


# ---- what relay would run -------------------------------------------------------------------


def describe(collective: str, buf: Buffer, root: int = 0, op: Optional[Op] = None,
             comm: Optional[MPI.Comm] = None, *, algorithm="auto", policy: str = "default",
             segment_bytes: Optional[int] = None, fanout: int = 0, max_requests: int = 0,
             check: str = "default") -> str:
    """The configuration relay would run for ``collective`` on ``buf`` (its element count: per
    rank for the block collectives), after defaults, ``RELAY_*`` variables and the automatic
    choice: ``"algorithm=... policy=... segment_bytes=... fanout=... max_requests=..."``. Not
    collective."""
    o = _options(collective, algorithm, policy, segment_bytes, fanout, max_requests, check)
    return _core.describe(o, buf, root, op, _comm(comm))
