"""Bad input raises relay.Error, with relay's status, on every rank; nothing hangs."""

import numpy as np
import pytest

import relay
from conftest import raises_everywhere


def test_wrong_dtype(comm):
    raises_everywhere(comm, "RELAY_ERR_DATATYPE", relay.bcast, np.zeros(10, dtype=np.float16))
    raises_everywhere(comm, "RELAY_ERR_DATATYPE", relay.allreduce,
                      np.zeros(4, dtype=[("a", "i4"), ("b", "f8")]))


def test_mismatched_send_and_receive_types(comm):
    raises_everywhere(comm, "RELAY_ERR_DATATYPE", relay.allreduce, np.zeros(4),
                      np.zeros(4, dtype=np.float32))


def test_non_contiguous(comm):
    raises_everywhere(comm, "RELAY_ERR_BUFFER", relay.bcast, np.zeros(20)[::2])
    raises_everywhere(comm, "RELAY_ERR_BUFFER", relay.allgather, np.zeros((4, 4))[:, 1])


def test_read_only_receive_buffer(comm):
    out = np.zeros(4)
    out.flags.writeable = False
    raises_everywhere(comm, "RELAY_ERR_BUFFER", relay.allreduce, np.ones(4), out)
    raises_everywhere(comm, "RELAY_ERR_BUFFER", relay.bcast, b"immutable")


def test_not_a_buffer(comm):
    raises_everywhere(comm, "RELAY_ERR_BUFFER", relay.bcast, [1.0, 2.0])


def test_receive_buffer_too_small(comm):
    raises_everywhere(comm, "RELAY_ERR_COUNT", relay.allreduce, np.ones(10), np.zeros(5))
    raises_everywhere(comm, "RELAY_ERR_COUNT", relay.allgather, np.ones(10),
                      np.zeros(10 * comm.Get_size() - 1))
    raises_everywhere(comm, "RELAY_ERR_COUNT", relay.allgatherv, np.ones(2), None,
                      [2] * (comm.Get_size() + 1))


def test_bad_options(comm):
    raises_everywhere(comm, "RELAY_ERR_ALGORITHM", relay.bcast, np.zeros(4), algorithm="fastest")
    raises_everywhere(comm, "RELAY_ERR_ALGORITHM", relay.allreduce, np.zeros(4), algorithm=99)
    raises_everywhere(comm, "RELAY_ERR_POLICY", relay.bcast, np.zeros(4), policy="eager")
    raises_everywhere(comm, "RELAY_ERR_OPTIONS", relay.bcast, np.zeros(4), check="sometimes")
    raises_everywhere(comm, "RELAY_ERR_SEGMENT", relay.bcast, np.zeros(4), segment_bytes=12)
    raises_everywhere(comm, "RELAY_ERR_ROOT", relay.bcast, np.zeros(4), root=comm.Get_size())
    raises_everywhere(comm, "RELAY_ERR_OP", relay.allreduce, np.zeros(4), op="average")
    raises_everywhere(comm, "RELAY_ERR_NDUP", relay.overlap_bcast, np.zeros(4), 0, None, 0)


def test_error_carries_relay_message(comm):
    with pytest.raises(relay.Error) as info:
        relay.bcast(np.zeros(4), algorithm="fastest")
    assert info.value.status == 6 and "fastest" in str(info.value)


def test_one_rank_wrong_with_collective_check(comm):
    """A bad argument on one rank only: with check="collective" every rank raises (the bad rank
    its own error, the others RELAY_ERR_MISMATCH), instead of the others waiting forever."""
    if comm.Get_size() < 2:
        pytest.skip("needs two ranks")
    bad = comm.Get_rank() == 1
    buf = np.zeros(8, dtype=np.float16 if bad else np.float64)
    try:
        relay.bcast(buf, check="collective")
        got = "no error"
    except relay.Error as e:
        got = e.status_name
    everyone = comm.allgather(got)
    assert everyone[1] == "RELAY_ERR_DATATYPE"
    assert all(g == "RELAY_ERR_MISMATCH" for i, g in enumerate(everyone) if i != 1), everyone


def test_mismatched_counts_between_ranks(comm):
    """Ranks passing different sizes: relay's collective check catches it on every rank."""
    if comm.Get_size() < 2:
        pytest.skip("needs two ranks")
    n = 100 + comm.Get_rank()
    try:
        relay.allreduce(np.ones(n), check="collective")
        got = "no error"
    except relay.Error as e:
        got = e.status_name
    assert comm.allgather(got) == ["RELAY_ERR_MISMATCH"] * comm.Get_size()
