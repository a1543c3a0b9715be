"""relay.gemm against numpy's matmul on the gathered matrices; distribution round trips;
descriptors and local arrays checked on every rank."""

import numpy as np
import pytest

import relay
from conftest import raises_everywhere


@pytest.fixture
def grid(comm):
    with relay.Grid(comm) as g:
        yield g


def random_matrix(rng, m, n, dtype):
    a = rng.standard_normal((m, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((m, n))
    return a.astype(dtype)


@pytest.mark.parametrize("m,n,mb,nb", [(1, 1, 1, 1), (37, 53, 8, 5), (64, 64, 64, 64),
                                       (100, 7, 16, 3)])
def test_from_global_to_global_round_trip(comm, grid, rng, m, n, mb, nb):
    a = comm.bcast(rng.standard_normal((m, n)), root=0)
    d = relay.DistributedMatrix.from_global(grid, a if comm.Get_rank() == 0 else None, mb, nb)
    assert d.local.flags.f_contiguous and d.local.shape == (max(1, d.local_rows), d.local_cols)
    back = d.to_global(root=0)
    if comm.Get_rank() == 0:
        np.testing.assert_array_equal(back, a)
    else:
        assert back is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("transa,transb", [("N", "N"), ("T", "N"), ("N", "C"), ("C", "T")])
def test_gemm_against_numpy(comm, grid, rng, dtype, transa, transb):
    m, n, k = 45, 38, 29
    shape_a = (m, k) if transa == "N" else (k, m)
    shape_b = (k, n) if transb == "N" else (n, k)
    a = comm.bcast(random_matrix(rng, *shape_a, dtype), root=0)
    b = comm.bcast(random_matrix(rng, *shape_b, dtype), root=0)
    c0 = comm.bcast(random_matrix(rng, m, n, dtype), root=0)
    da = relay.DistributedMatrix.from_global(grid, a, 8, 8)
    db = relay.DistributedMatrix.from_global(grid, b, 8, 8)
    dc = relay.DistributedMatrix.from_global(grid, c0, 8, 8)
    alpha, beta = (0.5 - 0.25j, 2.0) if np.dtype(dtype).kind == "c" else (0.5, 2.0)
    relay.gemm(da, db, dc, alpha=alpha, beta=beta, transa=transa, transb=transb)
    got = dc.to_global()
    if comm.Get_rank() == 0:
        op = {"N": lambda x: x, "T": lambda x: x.T, "C": lambda x: x.conj().T}
        want = alpha * op[transa](a) @ op[transb](b) + beta * c0
        tol = 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-11
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_gemm_n2048_style_call(comm, grid, rng):
    """The few lines the docs show: C = relay.gemm(A, B), with stats."""
    n = 256
    a = rng.standard_normal((n, n)) if comm.Get_rank() == 0 else None
    b = rng.standard_normal((n, n)) if comm.Get_rank() == 0 else None
    da = relay.DistributedMatrix.from_global(grid, a, 32, 32)
    db = relay.DistributedMatrix.from_global(grid, b, 32, 32)
    dc, stats = relay.gemm(da, db, return_stats=True, lookahead=1,
                           bcast={"algorithm": "pipeline", "segment_bytes": 8192})
    assert stats["algorithm"] in ("2d", "2.5d", "3d") and stats["total_s"] > 0
    assert 1 <= stats["pieces"] <= 64  # auto's count (look-ahead 1)
    c = dc.to_global()
    if comm.Get_rank() == 0:
        np.testing.assert_allclose(c, a @ b, rtol=1e-10, atol=1e-10)


def test_gemm_local_submatrix(comm, grid, rng):
    """gemm_local on sub-blocks (0-based offsets), as p?gemm's IA, JA ... take them."""
    M = 40
    a = comm.bcast(rng.standard_normal((M, M)), root=0)
    b = comm.bcast(rng.standard_normal((M, M)), root=0)
    da = relay.DistributedMatrix.from_global(grid, a, 6, 6)
    db = relay.DistributedMatrix.from_global(grid, b, 6, 6)
    dc = da.zeros_like()
    relay.gemm_local("N", "N", 20, 15, 10, 1.0, da.local, 3, 5, da.desc, db.local, 7, 2, db.desc,
                     0.0, dc.local, 11, 13, dc.desc, grid)
    c = dc.to_global()
    if comm.Get_rank() == 0:
        want = np.zeros((M, M))
        want[11:31, 13:28] = a[3:23, 5:15] @ b[7:17, 2:17]
        np.testing.assert_allclose(c, want, rtol=1e-12, atol=1e-12)


def test_gemm_bad_arguments_raise_everywhere(comm, grid, rng):
    da = relay.DistributedMatrix(grid, 16, 16, 4, 4)
    db = relay.DistributedMatrix(grid, 16, 16, 4, 4)
    dc = relay.DistributedMatrix(grid, 16, 16, 4, 4)
    bad = relay.Descriptor(16, 16, 0, 4, lld=max(1, da.local_rows))  # MB = 0
    raises_everywhere(comm, "RELAY_ERR_ARGUMENT", relay.gemm_local, "N", "N", 16, 16, 16, 1.0,
                      da.local, 0, 0, bad, db.local, 0, 0, db.desc, 0.0, dc.local, 0, 0, dc.desc,
                      grid)
    raises_everywhere(comm, "RELAY_ERR_ARGUMENT", relay.gemm_local, "X", "N", 16, 16, 16, 1.0,
                      da.local, 0, 0, da.desc, db.local, 0, 0, db.desc, 0.0, dc.local, 0, 0,
                      dc.desc, grid)
    # A local array smaller than its descriptor says, on one rank only: every rank raises.
    small = da.local[:0, :0] if comm.Get_rank() == 0 else da.local
    want = "RELAY_ERR_COUNT" if comm.Get_rank() == 0 else "RELAY_ERR_MISMATCH"
    try:
        relay.gemm_local("N", "N", 16, 16, 16, 1.0, np.asfortranarray(small), 0, 0, da.desc,
                         db.local, 0, 0, db.desc, 0.0, dc.local, 0, 0, dc.desc, grid)
        got = "no error"
    except relay.Error as e:
        got = e.status_name
    everyone = comm.allgather(got)
    if da.local_rows == 0 and comm.Get_rank() == 0:
        return  # rank 0 holds no part of A: nothing to be short of
    assert everyone[comm.Get_rank()] == want, everyone
    raises_everywhere(comm, "RELAY_ERR_DATATYPE", relay.gemm_local, "N", "N", 16, 16, 16, 1.0,
                      da.local.astype(np.float32, order="F"), 0, 0, da.desc, db.local, 0, 0,
                      db.desc, 0.0, dc.local, 0, 0, dc.desc, grid)
    raises_everywhere(comm, "RELAY_ERR_ARGUMENT", relay.gemm_local, "N", "N", 16, 16, 16, 1j,
                      da.local, 0, 0, da.desc, db.local, 0, 0, db.desc, 0.0, dc.local, 0, 0,
                      dc.desc, grid)
