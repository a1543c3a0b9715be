"""The package itself: every exported name resolves, import relay alone does not load MPI, the
plots draw a result file without MPI."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import relay

ROOT = Path(__file__).resolve().parents[2]


def test_every_exported_name_resolves():
    for name in relay.__all__:
        assert getattr(relay, name) is not None, name
    assert relay.__version__.count(".") == 2
    assert relay.build_info().startswith("relay ")


def test_import_does_not_load_mpi():
    code = "import sys, relay, relay.results, relay.plot; print('mpi4py.MPI' in sys.modules)"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMI", "PMIX"))}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True)
    assert out.stdout.strip() == "False"


def test_relay_plot_draws_a_result_file(comm, tmp_path):
    pytest.importorskip("matplotlib")
    if comm.Get_rank() != 0:
        return
    results = ROOT / "docs" / "measurements" / "bcast_cluster_np8_8MiB.json"
    png = tmp_path / "bcast.png"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMI", "PMIX"))}
    subprocess.run([sys.executable, "-m", "relay.plot", str(results), "-o", str(png)], env=env,
                   check=True)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = subprocess.run([sys.executable, "-m", "relay.plot", str(ROOT / "pyproject.toml"), "-o",
                          str(png)], env=env, capture_output=True, text=True)
    assert bad.returncode != 0
