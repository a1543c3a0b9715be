"""relay's Python tests run under mpirun: every rank runs the same tests in the same order, so
each test's collectives match across ranks (tests/python/run_pytest.sh)."""

import shutil
import tempfile

import relay  # first: relay tells a multi-MPI mpi4py which MPI to load
import numpy as np
import pytest
from mpi4py import MPI


def pytest_configure(config):
    """A temporary directory per process: the ranks share pytest's default one, and each would
    clean up the others' directories while they use them."""
    if config.option.basetemp is None:
        rank = MPI.COMM_WORLD.Get_rank()
        config.option.basetemp = tempfile.mkdtemp(prefix=f"relay-pytest-rank{rank}-")
        config._relay_basetemp = config.option.basetemp


def pytest_unconfigure(config):
    path = getattr(config, "_relay_basetemp", None)
    if path:
        shutil.rmtree(path, ignore_errors=True)


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
