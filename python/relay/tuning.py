"""Decision tables: what ``algorithm="auto"`` follows, made by relay's tuner."""

from __future__ import annotations

import datetime
import json
import os
import re
import tempfile
from typing import Dict, List, Optional, Sequence, Union

from ._loader import MPI, RUNNING_MPI, _core

Size = Union[int, str]

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20,
          "g": 1 << 30, "gib": 1 << 30, "kb": 10**3, "mb": 10**6, "gb": 10**9}


def parse_bytes(size: Size) -> int:
    """``65536``, ``"64KiB"``, ``"8MiB"``, ``"16M"``, ``"8MB"`` (= 8,000,000) -> bytes, as the
    relay command reads sizes."""
    if isinstance(size, int):
        if size < 0:
            raise ValueError(f"size {size} is negative")
        return size
    match = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", str(size))
    if not match or match.group(2).lower() not in _UNITS:
        raise ValueError(f"size '{size}': a count of bytes with B, KiB/K, MiB/M, GiB/G, KB, MB "
                         "or GB")
    return int(match.group(1)) * _UNITS[match.group(2).lower()]


def algorithms() -> Dict[str, List[str]]:
    """Every collective's algorithms, as relay's registry names them (``"auto"`` first)."""
    return _core.algorithms()


def load_table(path: Optional[Union[str, os.PathLike]]) -> None:
    """Makes the decision table at ``path`` (``relay tune`` or :func:`tune` wrote it) the one
    ``algorithm="auto"`` follows (``relay_tuning_load``); None unloads it. Not collective: call
    it on every rank. A bad table raises :class:`relay.Error` (RELAY_ERR_TUNING) naming the
    rule and field; the previous table stays active."""
    _core.load_table(None if path is None else os.fspath(path))


def _machine(comm: MPI.Comm) -> dict:
    hosts: Dict[str, int] = {}
    for host in comm.allgather(MPI.Get_processor_name()):
        hosts[host] = hosts.get(host, 0) + 1
    return {"mpi_library": RUNNING_MPI, "ranks": comm.Get_size(), "hosts": hosts,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "source": "relay.tune (Python)"}


def tune(operation: str = "bcast", sizes: Sequence[Size] = ("64KiB", "1MiB", "8MiB"),
         comm: Optional[MPI.Comm] = None, *, algorithms: Optional[Sequence[str]] = None,
         policies: Sequence[str] = ("blocking", "nonblocking"),
         segments: Optional[Sequence[Size]] = None, methods: Sequence[str] = ("smgd",),
         table_method: str = "smgd", min_time_s: float = 0.05, max_requests: int = 16,
         root: int = 0, confirm: int = 4, confirm_rounds: int = 7,
         params: Optional[str] = None, output: Optional[Union[str, os.PathLike]] = None,
         load: bool = False, verbose: bool = False, results: Optional[dict] = None) -> dict:
    """Finds the fastest configuration of ``operation`` per size on ``comm`` (the session of
    ``relay tune``, collective) and returns the decision table (``relay.tuning/1``).

    ``sizes``: grid points (bytes or ``"64KiB"``-style strings; other than bcast, the data a
    call moves). ``segments``: candidate segment sizes (default powers of two from 1 KiB to
    4 MiB). ``methods``/``table_method``: the searches run and whose choice goes into the table
    (exhaustive, mgd, smgd, model, guided). ``output``: rank 0 writes the table there
    (atomically). ``load``: every rank then makes it the active table. ``results``: a dict
    that receives every measurement and search path (``relay.tune/1``)."""
    comm = MPI.COMM_WORLD if comm is None else comm
    seg = [1 << e for e in range(10, 23)] if segments is None else [parse_bytes(s) for s in segments]
    table_text, results_text = _core.tune(
        comm, operation, [parse_bytes(s) for s in sizes], list(algorithms or []), list(policies),
        seg, list(methods), table_method, float(min_time_s), int(max_requests), int(root),
        int(confirm), int(confirm_rounds), params, json.dumps(_machine(comm)), verbose)
    if results is not None:
        results.update(json.loads(results_text))
    if output is not None:
        if comm.Get_rank() == 0:
            path = os.fspath(output)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(table_text + "\n")
            os.replace(tmp, path)
        comm.Barrier()
    if load:
        # Every rank loads the same table; from its own copy, so no shared file system is needed.
        fd, tmp = tempfile.mkstemp(suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(table_text)
            load_table(tmp)
        finally:
            os.unlink(tmp)
    return json.loads(table_text)
