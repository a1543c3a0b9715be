"""relay's Python tests run under mpirun: every rank runs the same tests in the same order, so
each test's collectives match across ranks (tests/python/run_pytest.sh)."""

import relay  # first: relay tells a multi-MPI mpi4py which MPI to load
import numpy as np
import pytest
from mpi4py import MPI


@pytest.fixture
def comm():
    return MPI.COMM_WORLD


@pytest.fixture
def rng(comm):
    """Random data that differs between ranks and runs the same every time."""
    return np.random.default_rng(12345 + comm.Get_rank())


def raises_everywhere(comm, status_name, call, *args, **kwargs):
    """Runs call on every rank and checks that every rank raised relay.Error with
    status_name (a rank that does not raise fails the test on every rank, not by hanging)."""
    try:
        call(*args, **kwargs)
        got = "no error"
    except relay.Error as e:
        got = e.status_name
    everyone = comm.allgather(got)
    assert everyone == [status_name] * comm.Get_size(), everyone
