"""CoDel, FQ-CoDel and PIE from Python and the command line: every link type, the per-link
sojourn columns, ECN, bad input, and the udp engine's emulator."""

import json
import math
import subprocess
import sys

import pytest

import ccscope
from ccscope.errors import ScenarioError

AQMS = [{"kind": "codel"}, {"kind": "fq_codel"}, {"kind": "pie"}]
SOJOURN = ["sojourn_mean_s", "sojourn_p95_s", "sojourn_p99_s"]


def dumbbell(queue, flows=None, duration="20s", ecn=False):
    return {
        "run": {"duration": duration, "warmup": "5s", "seed": 2},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": queue},
        },
        "flows": flows
        or [{"source": {"kind": "tcp"}, "count": 4, "start_jitter": "1s", "ecn": ecn}],
    }


@pytest.mark.parametrize("queue", AQMS, ids=lambda q: q["kind"])
def test_each_queue_runs_on_every_link_type(queue):
    tcp = {"source": {"kind": "tcp"}, "count": 2}
    link = {"rate": "5Mbps", "delay": "10ms", "queue": queue}
    topologies = [
        {"kind": "dumbbell", "bottleneck": link},
        {"kind": "fat_link", "rate": "5Mbps", "queue": queue},
        {"kind": "parking_lot", "hops": [link, link]},
        {
            "kind": "custom",
            "nodes": ["a", "b"],
            "links": [{"from": "a", "to": "b", **link}],
        },
    ]
    for topology in topologies:
        flow = {**tcp, "from": "a", "to": "b"} if topology["kind"] == "custom" else tcp
        r = ccscope.run(
            {"run": {"duration": "10s", "seed": 1}, "topology": topology, "flows": [flow]}
        )
        first = r.links[r.links["monitor"]].iloc[0]
        assert first["early_drops"] > 0, topology["kind"]
        assert first["utilization"] > 0.8, topology["kind"]
        assert 0 < first["sojourn_mean_s"] <= first["sojourn_p95_s"] <= first["sojourn_p99_s"]


def test_sojourn_columns_are_on_the_links_a_run_reports_and_in_summary_json(tmp_path):
    r = ccscope.run(dumbbell({"kind": "droptail", "limit": "100pkts"}))
    monitored, access = r.links[r.links["monitor"]], r.links[~r.links["monitor"]]
    assert monitored[SOJOURN].notna().all().all()
    assert access[SOJOURN].isna().all().all()
    r.write(tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert all(set(SOJOURN) <= set(link) for link in summary["links"])


def test_the_mean_sojourn_time_is_the_mean_queue_by_littles_law():
    # L = λW for the packets that wait: the time-average number waiting is the departure rate
    # times the mean wait, up to the packets waiting at the window's two ends (a few of 117 000)
    # where every packet that waits leaves by the wire (DropTail and PIE drop on arrival).
    # CoDel's drops at dequeue waited too, and only the packets it sends are timed: L is more.
    for queue, exact in [
        ({"kind": "droptail", "limit": "100pkts"}, True),
        ({"kind": "pie"}, True),
        ({"kind": "codel"}, False),
    ]:
        r = ccscope.run(dumbbell(queue, duration="100s"))
        link = r.links.iloc[0]
        sent = link["departures"] / r.measured_s * link["sojourn_mean_s"]
        if exact:
            assert math.isclose(link["mean_queue_pkts"], sent, rel_tol=2e-3), queue
        else:
            assert link["mean_queue_pkts"] > sent, queue


@pytest.mark.parametrize("queue", AQMS, ids=lambda q: q["kind"])
def test_ecn_capable_flows_are_marked_instead_of_dropped(queue):
    r = ccscope.run(dumbbell({**queue, "ecn": True}, ecn=True))
    link = r.links.iloc[0]
    assert link["marks"] > 0 and link["early_drops"] < link["marks"] / 10, link
    assert r.flows["marked_pkts"].sum() == pytest.approx(link["marks"], abs=50)


@pytest.mark.parametrize(
    ("queue", "field", "needle"),
    [
        ({"kind": "codel", "target": "200ms"}, "queue.target", "must be below interval"),
        ({"kind": "fq_codel", "flows": 100000}, "queue.flows", "[1, 65536]"),
        ({"kind": "pie", "beta": -1}, "queue.beta", "[0, 2]"),
        ({"kind": "pie", "ecn": True}, "queue.ecn", "needs an ECN-capable flow"),
    ],
)
def test_bad_values_name_the_field(queue, field, needle):
    with pytest.raises(ScenarioError) as e:
        ccscope.run(dumbbell(queue))
    assert f"topology.bottleneck.{field}" in str(e.value) and needle in str(e.value)


def test_the_command_line_names_a_bad_queue_in_one_line_and_exits_2(tmp_path):
    scenario = tmp_path / "bad.toml"
    scenario.write_text(
        '[run]\nduration = "5s"\n[topology]\nkind = "dumbbell"\n'
        'bottleneck = { rate = "2Mbps", delay = "10ms", queue = { kind = "fq_codel", '
        'quantum = "10B" } }\n[[flows]]\nsource = { kind = "tcp" }\n'
    )
    p = subprocess.run(
        [sys.executable, "-m", "ccscope", "run", str(scenario), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 2
    assert "topology.bottleneck.queue.quantum = '10B'" in p.stderr
    assert p.stderr.strip().count("\n") == 0, p.stderr


@pytest.mark.realtime
def test_the_udp_engines_emulator_runs_an_aqm_in_real_time():
    sc = dumbbell({"kind": "codel"}, duration="3s")
    sc["run"].update(engine="udp", warmup="1s")
    sc["topology"]["bottleneck"]["rate"] = "2Mbps"
    r = ccscope.run(sc)
    link = r.links.iloc[0]
    # Four TCP flows overfill 2 Mb/s: CoDel drops at dequeue and keeps the wait near its
    # target (a 40 ms path; real time on a shared machine adds its own delays).
    assert link["early_drops"] > 0 and link["utilization"] > 0.5
    assert link["sojourn_mean_s"] < 0.05


def test_the_command_line_shows_each_bottlenecks_99th_percentile_wait(tmp_path, small_toml):
    scenario = tmp_path / "s.toml"
    scenario.write_text(small_toml.replace('kind = "droptail", limit = "20pkts"', 'kind = "pie"'))
    p = subprocess.run(
        [sys.executable, "-m", "ccscope", "run", str(scenario), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert "p99 wait" in p.stdout
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    wait = summary["links"][0]["sojourn_p99_s"]
    assert f"{wait * 1e3:.2f} ms" in p.stdout
