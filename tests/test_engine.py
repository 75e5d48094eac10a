"""The Python API over the packet engine: results, traces, determinism, conservation."""

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import ccscope
from ccscope import _core
from ccscope.errors import ScenarioError
from ccscope.output import read_metadata


@pytest.fixture
def result(small_toml):
    return ccscope.run(ccscope.loads(small_toml))


def test_result_tables(result):
    f = result.flows
    assert list(f["flow"]) == [0, 1]
    # Two 1.5 Mb/s Poisson flows into 2 Mb/s: the link saturates and both lose packets.
    assert result.bottlenecks.loc[0, "utilization"] > 0.97
    assert f["throughput_bps"].sum() == pytest.approx(
        result.bottlenecks.loc[0, "throughput_bps"], rel=0.02
    )
    assert (f["loss_rate"] > 0).all()
    assert np.isfinite(f.select_dtypes("number").to_numpy()).all()


def test_packets_are_conserved(result):
    for raw in result.raw["flows"]:
        sent = raw["data"]["sent_pkts"] + raw["feedback"]["sent_pkts"]
        done = sum(
            raw[d]["delivered_pkts"] + raw[d]["queue_drops"] + raw[d]["link_losses"]
            for d in ("data", "feedback")
        )
        assert sent == done + raw["in_flight"]


def test_traces_are_pandas_and_add_up(result):
    tr = result.trace
    assert isinstance(tr.flows, pd.DataFrame)
    assert len(tr.flows) == 50 * 2
    assert tr.flows["sent_pkts"].sum() == result.flows["sent_pkts"].sum()
    assert len(tr.events) == result.flows["dropped_pkts"].sum()
    assert set(tr.events["kind"].astype(str)) == {"forced_drop"}
    bottleneck = tr.queues[tr.queues["name"] == "bottleneck"]
    assert bottleneck["queue_pkts"].max() <= 20
    assert tr.flow_series("throughput_bps").shape == (50, 2)


def test_same_seed_is_identical_and_another_seed_differs(small_toml):
    a = ccscope.run(ccscope.loads(small_toml))
    b = ccscope.run(ccscope.loads(small_toml))
    c = ccscope.run(ccscope.loads(small_toml.replace("seed = 3", "seed = 4")))
    pd.testing.assert_frame_equal(a.trace.flows, b.trace.flows)
    pd.testing.assert_frame_equal(a.flows, b.flows)
    assert not a.trace.flows.equals(c.trace.flows)


def test_write_summary_and_parquet(result, tmp_path):
    written = result.write(tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["seed"] == 3
    assert summary["ccscope_version"] == ccscope.__version__
    assert summary["model_version"] == _core.MODEL_VERSION
    assert summary["scenario"]["topology"]["bottleneck"]["rate"] == "2Mbps"
    assert {"throughput_bps", "loss_rate"} <= set(summary["flows"][0])
    assert {"utilization", "mean_queue_pkts"} <= set(summary["links"][0])
    assert len(summary["git_commit"]) in (40, 7)  # a hash, or "unknown"
    table = pq.read_table(tmp_path / "trace_flows.parquet")
    assert table.num_rows == 100
    meta = read_metadata(tmp_path / "trace_flows.parquet")
    assert (meta["model_version"], meta["seed"]) == (_core.MODEL_VERSION, 3)
    assert {p.name for p in written} >= {"summary.json", "trace_flows.parquet"}


def test_run_accepts_a_dict_and_rejects_bad_values(small_toml):
    import tomllib

    data = tomllib.loads(small_toml)
    assert ccscope.run(data).flows.shape[0] == 2
    data["flows"][0]["source"]["rate"] = "fast"
    with pytest.raises(ScenarioError, match="flows\\[0\\].source.rate"):
        ccscope.run(data)


def test_every_topology_runs():
    base = '[run]\nduration = "2s"\n[[flows]]\nsource = { kind = "cbr", rate = "1Mbps" }\n'
    topologies = {
        "fat_link": '[topology]\nkind = "fat_link"\nloss = { kind = "bernoulli", p = 0.05 }\n',
        "parking_lot": (
            '[topology]\nkind = "parking_lot"\nhops = [{ rate = "5Mbps", delay = '
            '"5ms" }, { rate = "5Mbps", delay = "5ms" }]\n'
        ),
        "custom": (
            '[topology]\nkind = "custom"\nnodes = ["a", "b"]\nlinks = [{ from = "a", to '
            '= "b", rate = "5Mbps", delay = "5ms" }]\n'
        ),
    }
    extra = {"custom": 'from = "a"\nto = "b"\n'}
    for kind, topo in topologies.items():
        r = ccscope.run(ccscope.loads(base + extra.get(kind, "") + topo))
        assert r.flows.loc[0, "throughput_bps"] > 0, kind
    lossy = ccscope.run(ccscope.loads(base + topologies["fat_link"]))
    assert lossy.flows.loc[0, "loss_rate"] == pytest.approx(0.05, abs=0.02)


def test_a_scenario_can_be_built_in_python():
    sc = ccscope.Scenario.from_dict(
        {
            "run": {"duration": "5s", "seed": 2},
            "topology": {"kind": "dumbbell", "bottleneck": {"rate": "4Mbps", "delay": "10ms"}},
            "flows": [
                {"source": {"kind": "tcp"}, "count": 2},
                {"source": {"kind": "cbr", "rate": "1Mbps"}},
            ],
        }
    )
    r = ccscope.run(sc)
    assert len(r.flows) == 3
    assert r.bottlenecks.utilization[0] > 0.9
    with pytest.raises(ScenarioError) as info:
        sc.replace("topology.bottleneck.delay", "0ms")
    assert info.value.path == "topology.bottleneck.delay"


def test_fairness_is_reported_per_class_of_flows():
    sc = ccscope.loads("""
[run]
duration = "5s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "5Mbps", delay = "10ms" }
[[flows]]
source = { kind = "tcp" }
count = 2
[[flows]]
source = { kind = "cbr", rate = "1Mbps" }
""")
    r = ccscope.run(sc)
    assert r.flow_classes() == ["tcp", "tcp", "cbr"]
    by_class = r.fairness_by_class()
    assert by_class["cbr"] == {"jain": 1.0, "min_max": 1.0, "flows": 1}  # one flow: fair
    tcp = r.flows["throughput_bps"].to_numpy()[:2]
    assert by_class["tcp"]["jain"] == pytest.approx(tcp.sum() ** 2 / (2 * (tcp**2).sum()))
    assert r.summary()["fairness_by_class"] == by_class


def test_max_queue_covers_only_the_measurement_window():
    """Every link number covers [warmup, duration): a queue built by a burst that ends and
    drains during the warm-up does not show in max_queue_pkts (it would as the run's maximum)."""
    toml = """
[run]
duration = "10s"
warmup = "5s"
[topology]
kind = "dumbbell"
[topology.bottleneck]
rate = "1Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = 50 }
[topology.access]
rate = "100Mbps"
delay = "1ms"
[[flows]]
source = { kind = "cbr", rate = "2Mbps" }
stop = "1s"
[[flows]]
source = { kind = "cbr", rate = "100kbps" }
"""
    link = ccscope.run(ccscope.loads(toml)).bottlenecks.iloc[0]
    # 2 Mb/s into 1 Mb/s for 1 s fills the 50-packet queue; it drains in 0.4 s. After the
    # warm-up only the 100 kb/s flow remains: a packet every 80 ms, served in 8 ms.
    assert link.max_queue_pkts <= 1
