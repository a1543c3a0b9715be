"""Nonblocking forms: requests with test, wait, progress and waitall; the overlap helper."""

import gc
import warnings

import numpy as np
import pytest

import relay


def test_ibcast_progress_and_wait(comm, rng):
    n = 1 << 18
    want = comm.bcast(rng.standard_normal(n), root=0)
    buf = want.copy() if comm.Get_rank() == 0 else np.zeros(n)
    req = relay.ibcast(buf, 0, algorithm="pipeline", segment_bytes=16384)
    for _ in range(10):
        req.progress()
    assert req.wait() is buf
    assert req.done and req.test()
    np.testing.assert_array_equal(buf, want)


def test_progressall_then_waitall(comm, rng):
    n = 1 << 16
    p = comm.Get_size()
    sources = [comm.bcast(rng.standard_normal(n), root=root) for root in (0, p - 1)]
    bufs = [s.copy() if comm.Get_rank() == root else np.zeros(n)
            for s, root in zip(sources, (0, p - 1))]
    reqs = [relay.ibcast(b, root, algorithm="pipeline", segment_bytes=16384)
            for b, root in zip(bufs, (0, p - 1))]
    for _ in range(10):
        relay.progressall(reqs)
    relay.waitall(reqs)
    relay.progressall(reqs)  # complete ones are skipped
    for b, s in zip(bufs, sources):
        np.testing.assert_array_equal(b, s)


def test_test_until_done(comm, rng):
    x = rng.standard_normal(5000)
    want = np.empty_like(x)
    comm.Allreduce(x, want)
    req = relay.iallreduce(x, algorithm="ring")
    while not req.test():
        pass
    np.testing.assert_allclose(req.result, want, rtol=1e-12)


def test_every_nonblocking_form(comm, rng):
    p, r = comm.Get_size(), comm.Get_rank()
    x = rng.integers(0, 100, 12 * p)
    reqs = [
        relay.ibcast(x.copy(), 0),
        relay.ireduce(x, op="sum", root=0),
        relay.iallreduce(x),
        relay.iallgather(x),
        relay.iallgatherv(x[:r + 1], None, [i + 1 for i in range(p)]),
        relay.ireduce_scatter_block(x),
        relay.igather(x, root=0),
        relay.iscatter(x if r == 0 else None, np.empty(12, dtype=x.dtype), 0),
        relay.ialltoall(x),
        relay.ibarrier(),
    ]
    results = relay.waitall(reqs)
    assert all(q.done for q in reqs)
    want = np.empty_like(x)
    comm.Allreduce(x, want)
    np.testing.assert_array_equal(results[2], want)
    gathered = np.empty((p, x.size), dtype=x.dtype)
    comm.Allgather(x, gathered)
    np.testing.assert_array_equal(results[3], gathered)
    want_a2a = np.empty_like(x)
    comm.Alltoall(x, want_a2a)
    np.testing.assert_array_equal(results[8], want_a2a)


def test_completed_request_drops_quietly(comm):
    buf = np.zeros(1 << 16)
    req = relay.ibcast(buf, 0, algorithm="linear")
    req.wait()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a completed request holds nothing: no warning
        del req
        gc.collect()


@pytest.mark.parametrize("n_dup", [1, 2, 4, 8])
def test_overlap_bcast_and_allreduce(comm, rng, n_dup):
    n = 10007
    want = comm.bcast(rng.standard_normal(n), root=0)
    buf = want.copy() if comm.Get_rank() == 0 else np.zeros(n)
    parts = relay.overlap_bcast(buf, 0, n_dup=n_dup)
    np.testing.assert_array_equal(buf, want)
    assert len(parts) == n_dup
    assert sum(p["elements"] for p in parts) == n
    x = rng.standard_normal(n)
    total = np.empty_like(x)
    comm.Allreduce(x, total)
    got = np.empty_like(x)
    relay.overlap_allreduce(x, got, "sum", n_dup=n_dup)
    np.testing.assert_allclose(got, total, rtol=1e-10)
    req = relay.overlap_iallreduce(x, np.empty_like(x), n_dup=n_dup)
    np.testing.assert_allclose(req.wait(), total, rtol=1e-10)
    assert len(req.part_times) == n_dup
    root_sum = np.empty_like(x) if comm.Get_rank() == 0 else None
    relay.overlap_reduce(x, root_sum, "sum", 0, n_dup=n_dup)
    if comm.Get_rank() == 0:
        np.testing.assert_allclose(root_sum, total, rtol=1e-10)
    root_sum = np.empty_like(x) if comm.Get_rank() == 0 else None
    req = relay.overlap_ireduce(x, root_sum, "sum", 0, n_dup=n_dup)
    req.wait()
    assert len(req.part_times) == n_dup
    if comm.Get_rank() == 0:
        np.testing.assert_allclose(root_sum, total, rtol=1e-10)


@pytest.mark.parametrize("n_dup", [1, 3])
def test_overlap_reduce_bcast_on_a_grid(comm, rng, n_dup):
    """y = A x's pattern (huang2018 Algorithm 2) on a p x p grid: rank (i, j) reduces over row i
    to (i, i), which broadcasts down column i; rank (i, j) gets row j's sum."""
    p = int(round(comm.Get_size() ** 0.5))
    if p * p != comm.Get_size():
        pytest.skip("needs a square number of ranks")
    i, j = divmod(comm.Get_rank(), p)
    row, col = comm.Split(i, j), comm.Split(j, i)
    try:
        x = rng.standard_normal(1001)
        everyone = comm.allgather(x)
        want = sum(everyone[j * p + k] for k in range(p))
        got, parts = relay.overlap_reduce_bcast(x, None, "sum", i, row, j, col, n_dup,
                                                bcast_options={"algorithm": "binomial"})
        np.testing.assert_allclose(got, want, rtol=1e-12)
        assert len(parts) == n_dup
        req = relay.overlap_ireduce_bcast(x, np.empty_like(x), "sum", i, row, j, col, n_dup)
        np.testing.assert_allclose(req.wait(), want, rtol=1e-12)
    finally:
        row.Free()
        col.Free()
