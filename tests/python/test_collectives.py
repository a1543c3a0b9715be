"""Every collective against mpi4py's own, on random arrays of every dtype relay takes, with
every one of its algorithms."""

import numpy as np
import pytest
from mpi4py import MPI

import relay

INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_TYPES = [np.float32, np.float64, np.complex64, np.complex128]
ALL_TYPES = [np.bool_] + INT_TYPES + FLOAT_TYPES
SIZES = [0, 1, 1000, 65537]


def random_array(rng, n, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(n) < 0.5
    if dtype.kind in "iu":
        # Sums over every rank stay in range: Open MPI 4.1's vectorised MPI_Reduce_local (op/avx,
        # which relay's combines call too) saturates int8/int16 sums instead of wrapping, so an
        # overflowing sum depends on the order of additions (open-mpi/ompi#8045, "wontfix").
        info = np.iinfo(dtype)
        bound = min(100, info.max // 16)
        return rng.integers(max(info.min, -bound), bound, n, endpoint=True).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    return rng.standard_normal(n).astype(dtype)


def op_for(dtype):
    """An op MPI defines for the type: logical or for bool, sum otherwise."""
    return ("lor", MPI.LOR) if np.dtype(dtype) == np.bool_ else ("sum", MPI.SUM)


def assert_close(got, want, dtype):
    if np.dtype(dtype).kind in "fc":  # relay may add in another order than MPI
        tol = 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 10)
    else:
        np.testing.assert_array_equal(got, want)


def algorithms_of(collective):
    return relay.algorithms()[collective]


@pytest.mark.parametrize("dtype", ALL_TYPES)
@pytest.mark.parametrize("n", SIZES)
def test_bcast_every_dtype(comm, rng, dtype, n):
    root = comm.Get_size() - 1
    data = comm.bcast(random_array(rng, n, dtype), root=root)
    buf = data.copy() if comm.Get_rank() == root else np.zeros(n, dtype=dtype)
    assert relay.bcast(buf, root=root) is buf
    np.testing.assert_array_equal(buf, data)


@pytest.mark.parametrize("algorithm", algorithms_of("bcast"))
@pytest.mark.parametrize("policy", ["blocking", "nonblocking"])
def test_bcast_every_algorithm(comm, rng, algorithm, policy):
    n = 100003
    want = comm.bcast(rng.standard_normal(n), root=0)
    buf = want.copy() if comm.Get_rank() == 0 else np.empty(n)
    relay.bcast(buf, 0, algorithm=algorithm, policy=policy, segment_bytes=8192)
    np.testing.assert_array_equal(buf, want)


def test_bcast_other_buffers(comm):
    """Any object with the buffer protocol, not only numpy arrays."""
    data = bytearray(b"relay" * 100) if comm.Get_rank() == 0 else bytearray(500)
    relay.bcast(data)
    assert bytes(data) == b"relay" * 100
    import array
    a = array.array("d", range(50)) if comm.Get_rank() == 0 else array.array("d", [0.0] * 50)
    relay.bcast(a, algorithm="binomial")
    assert list(a) == [float(i) for i in range(50)]
    m = np.zeros((7, 9), order="F") if comm.Get_rank() else np.arange(63.0).reshape(7, 9, order="F")
    relay.bcast(m)  # Fortran order is contiguous too
    np.testing.assert_array_equal(m, np.arange(63.0).reshape(7, 9, order="F"))


@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_allreduce_every_dtype(comm, rng, dtype):
    x = random_array(rng, 1000, dtype)
    name, mpi_op = op_for(dtype)
    want = np.empty_like(x)
    comm.Allreduce(x, want, op=mpi_op)
    assert_close(relay.allreduce(x, op=name), want, dtype)


@pytest.mark.parametrize("algorithm", algorithms_of("allreduce"))
@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_allreduce_every_algorithm(comm, rng, algorithm, dtype):
    x = random_array(rng, 20011, dtype)
    want = np.empty_like(x)
    comm.Allreduce(x, want, op=MPI.SUM)
    got = np.empty_like(x)
    relay.allreduce(x, got, "sum", algorithm=algorithm)
    assert_close(got, want, dtype)
    inplace = x.copy()
    relay.allreduce(relay.IN_PLACE, inplace, algorithm=algorithm)
    assert_close(inplace, want, dtype)


def test_allreduce_mpi4py_op(comm, rng):
    x = rng.integers(0, 1000, 500)
    want = np.empty_like(x)
    comm.Allreduce(x, want, op=MPI.MAX)
    np.testing.assert_array_equal(relay.allreduce(x, op=MPI.MAX), want)
    np.testing.assert_array_equal(relay.allreduce(x, op="max"), want)


@pytest.mark.parametrize("algorithm", algorithms_of("reduce"))
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_reduce(comm, rng, algorithm, dtype):
    x = random_array(rng, 3001, dtype)
    name, mpi_op = op_for(dtype)
    root = comm.Get_size() // 2
    want = np.empty_like(x) if comm.Get_rank() == root else None
    comm.Reduce(x, want, op=mpi_op, root=root)
    got = relay.reduce(x, None, name, root, algorithm=algorithm)
    if comm.Get_rank() == root:
        assert_close(got, want, dtype)
    else:
        assert got is None


@pytest.mark.parametrize("algorithm", algorithms_of("allgather"))
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_allgather(comm, rng, algorithm, dtype):
    x = random_array(rng, 333, dtype)
    want = np.empty((comm.Get_size(), 333), dtype=dtype)
    comm.Allgather(x, want)
    got = relay.allgather(x, algorithm=algorithm)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("algorithm", algorithms_of("allgatherv"))
def test_allgatherv(comm, rng, algorithm):
    p, r = comm.Get_size(), comm.Get_rank()
    counts = [3 * i + 1 for i in range(p)]
    x = np.full(counts[r], r, dtype=np.int64)
    want = np.empty(sum(counts), dtype=np.int64)
    comm.Allgatherv(x, [want, counts])
    got = relay.allgatherv(x, None, counts, algorithm=algorithm)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("algorithm", algorithms_of("reduce_scatter_block"))
@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.complex64])
def test_reduce_scatter_block(comm, rng, algorithm, dtype):
    x = random_array(rng, 101 * comm.Get_size(), dtype)
    want = np.empty(101, dtype=dtype)
    comm.Reduce_scatter_block(x, want, op=MPI.SUM)
    assert_close(relay.reduce_scatter_block(x, algorithm=algorithm), want, dtype)


@pytest.mark.parametrize("algorithm", algorithms_of("gather"))
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_gather(comm, rng, algorithm, dtype):
    x = random_array(rng, 77, dtype)
    root = comm.Get_size() - 1
    want = np.empty((comm.Get_size(), 77), dtype=dtype) if comm.Get_rank() == root else None
    comm.Gather(x, want, root=root)
    got = relay.gather(x, root=root, algorithm=algorithm)
    if comm.Get_rank() == root:
        np.testing.assert_array_equal(got, want)
    else:
        assert got is None


@pytest.mark.parametrize("algorithm", algorithms_of("scatter"))
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_scatter(comm, rng, algorithm, dtype):
    p = comm.Get_size()
    send = random_array(rng, 55 * p, dtype) if comm.Get_rank() == 0 else None
    want = np.empty(55, dtype=dtype)
    comm.Scatter(send, want, root=0)
    got = np.empty(55, dtype=dtype)
    assert relay.scatter(send, got, 0, algorithm=algorithm) is got
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("algorithm", algorithms_of("alltoall"))
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_alltoall(comm, rng, algorithm, dtype):
    x = random_array(rng, 13 * comm.Get_size(), dtype)
    want = np.empty_like(x)
    comm.Alltoall(x, want)
    np.testing.assert_array_equal(relay.alltoall(x, algorithm=algorithm), want)


@pytest.mark.parametrize("algorithm", algorithms_of("barrier"))
def test_barrier(comm, algorithm):
    relay.barrier(algorithm=algorithm)
    relay.ibarrier(algorithm=algorithm).wait()


def test_algorithms_lists_the_registry():
    names = relay.algorithms()
    assert set(names) == {"bcast", "reduce", "allreduce", "allgather", "allgatherv",
                          "reduce_scatter_block", "gather", "scatter", "alltoall", "barrier"}
    assert names["bcast"][0] == "auto" and "pipeline" in names["bcast"]
    assert all(v[0] == "auto" and "mpi" in v for v in names.values())


def test_describe_follows_options(comm):
    buf = np.zeros(1 << 20)
    text = relay.describe("bcast", buf, algorithm="pipeline", segment_bytes=65536)
    assert "algorithm=pipeline" in text and "segment_bytes=65536" in text
    text = relay.describe("allreduce", buf, op="sum", algorithm="ring")
    assert "algorithm=ring" in text
