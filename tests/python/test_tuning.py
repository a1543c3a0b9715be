"""Decision tables from Python: tune, load, and auto following the table; results records."""

import json

import numpy as np
import pytest

import relay
from conftest import raises_everywhere


def test_parse_bytes():
    assert relay.parse_bytes("64KiB") == 65536
    assert relay.parse_bytes("8MB") == 8_000_000
    assert relay.parse_bytes(12) == 12
    with pytest.raises(ValueError):
        relay.parse_bytes("8 parsecs")


def test_bad_table_raises_on_every_rank(comm, tmp_path_factory):
    path = tmp_path_factory.mktemp(f"r{comm.Get_rank()}") / "bad.json"
    path.write_text("{not json")
    raises_everywhere(comm, "RELAY_ERR_TUNING", relay.load_table, path)


def test_tune_then_auto_follows_the_table(comm, tmp_path_factory):
    results = {}
    table = relay.tune("bcast", [65536], comm, algorithms=["binomial", "pipeline"],
                       policies=["nonblocking"], segments=[8192, 32768], methods=["exhaustive"],
                       table_method="exhaustive", min_time_s=0.002, confirm=0, load=True,
                       results=results)
    try:
        assert table["schema"] == "relay.tuning/1" and table["rules"]
        assert results["schema"] == "relay.tune/1"
        rule = table["rules"][0]
        text = relay.describe("bcast", np.zeros(65536, dtype=np.uint8))
        assert f"algorithm={rule['algorithm']}" in text, (rule, text)
        assert "(auto: table" in text, text
    finally:
        relay.load_table(None)


def test_results_records(tmp_path):
    doc = {"schema": "relay.bench.bcast/1", "command": "relay bench bcast",
           "machine": {"ranks": 4, "hosts": {"a": 4}},
           "rows": [{"algorithm": "pipeline", "bytes": 8, "avg_us": 1.5,
                     "split": {"wait_s": 0.1}}]}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    recs = relay.results.records(path)
    assert recs == [{"schema": "relay.bench.bcast/1", "command": "relay bench bcast",
                     "machine.ranks": 4, "machine.hosts.a": 4, "algorithm": "pipeline",
                     "bytes": 8, "avg_us": 1.5, "split.wait_s": 0.1}]
