"""Link capacity traces: the shipped synthetic traces and their generator, a trace at the packet
and round engines, relative paths, and bad files (one line naming field, file and line; exit 2)."""

import json
from pathlib import Path

import numpy as np
import pytest
from test_cli import ccscope as cli

import ccscope
from ccscope import roundmodel, traces
from ccscope.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT / "scenarios" / "traces"
SHIPPED = {"step": TRACES / "step.txt", "cellular": TRACES / "cellular.mahimahi"}


@pytest.mark.parametrize("kind", ["step", "cellular"])
def test_the_generator_writes_the_shipped_traces_byte_for_byte(kind, tmp_path):
    assert traces.GENERATORS[kind]().encode() == SHIPPED[kind].read_bytes()
    out = tmp_path / f"{kind}.trace"
    p = cli("trace", kind, "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert out.read_bytes() == SHIPPED[kind].read_bytes()


def test_the_cellular_trace_varies_and_has_outages():
    ms = np.array([int(x) for x in SHIPPED["cellular"].read_text().split()])
    per_100ms = np.bincount((ms - 1) // 100, minlength=100) * 1500 * 8 / 0.1
    assert per_100ms.std() > 0.3 * per_100ms.mean()
    assert (per_100ms == 0).sum() >= 2
    assert np.all(np.diff(ms) >= 0) and ms[-1] == 10_000


def test_other_seeds_give_other_traces_and_bad_arguments_are_named():
    assert traces.cellular(seed=2) != traces.cellular(seed=1)
    with pytest.raises(ScenarioError, match="mean_mbps"):
        traces.cellular(mean_mbps=-1)
    with pytest.raises(ScenarioError, match="rates_mbps"):
        traces.step((5.0, 0.0), (1.0, 1.0))
    p = cli("trace", "wavy")
    assert p.returncode == 2 and "step or cellular" in p.stderr


def packet_scenario(trace: dict, **bottleneck) -> dict:
    return {
        "run": {"duration": "30s", "seed": 1},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {
                "rate": "10Mbps",
                "delay": "20ms",
                "capacity_trace": trace,
                **bottleneck,
            },
        },
        "flows": [{"source": {"kind": "tcp"}, "count": 2}],
    }


def test_a_link_follows_the_cellular_trace_in_the_packet_engine():
    r = ccscope.run(ROOT / "scenarios" / "cellular-trace.toml")
    link = r.links.set_index("name").loc["bottleneck"]
    # The trace repeats every 10 s: over the 30 s its mean capacity is its opportunities
    # times 1500 B over 10 s (mahimahi's traces/README).
    opportunities = len(SHIPPED["cellular"].read_text().split())
    mean = opportunities * 1500 * 8 / 10
    assert link["rate_bps"] == round(mean)
    # The flows carry no more than the trace lets through, and most of it.
    assert 0.6 * mean < link["throughput_bps"] <= mean
    # Queue series: nothing leaves during the trace's outage at 7.5-8.5 s of each period.
    q = r.trace.queues
    q = q[(q["name"] == "bottleneck")]
    ms = np.array([int(x) for x in SHIPPED["cellular"].read_text().split()])
    empty = [b for b in range(100) if not np.any((ms > b * 100) & (ms <= (b + 1) * 100))]
    assert len(empty) >= 2
    bins = q.set_index(np.round(q["time_s"] * 10).astype(int))["departures"]
    for b in empty:
        # A packet on the wire when the outage starts may leave in the bin after.
        if b - 1 in empty:
            assert bins.loc[b] == 0 and bins.loc[b + 100] == 0


@pytest.mark.realtime
def test_the_udp_engine_follows_a_trace_through_an_outage(tmp_path):
    """The user-space emulator runs the packet engine's links on the wall clock: a 2 Mb/s CBR
    flow over 4 Mb/s that goes out from 1 s to 2 s crosses nothing in between."""
    (tmp_path / "t.txt").write_text("0s 4Mbps\n1s 0bps\n2s 4Mbps\n")
    queue = {"kind": "droptail", "limit": "1000pkts"}
    trace = {"file": str(tmp_path / "t.txt"), "format": "table"}
    sc = {
        "run": {"engine": "udp", "duration": "3s", "warmup": "0s", "seed": 1},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {
                "rate": "4Mbps",
                "delay": "10ms",
                "queue": queue,
                "capacity_trace": trace,
            },
        },
        "flows": [{"source": {"kind": "cbr", "rate": "2Mbps", "packet_size": "1000B"}}],
        "trace": {"interval": "100ms", "queues": True},
    }
    r = ccscope.run(sc)
    q = r.trace.queues
    q = q[q["name"] == "bottleneck"]
    departures = q.set_index(np.round(q["time_s"] * 10).astype(int))["departures"]
    # Bin k is [k / 10, (k + 1) / 10) s: [1.1, 2.0) s carries nothing (the packet on the wire
    # at 1 s leaves at 2 s); the link carries the flow before and after.
    assert departures.loc[11:19].sum() == 0
    assert departures.loc[2:9].min() > 0 and departures.loc[21:28].min() > 0
    # Over the 3 s, two of 4 Mb/s: the report's capacity is the trace's mean.
    link = r.links.set_index("name").loc["bottleneck"]
    assert link["rate_bps"] == pytest.approx(4e6 * 2 / 3, rel=0.01)


def test_a_relative_trace_file_is_the_scenario_files(tmp_path):
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "steps.txt").write_text("0s 10Mbps\n10s, 0bps # out\n12s 5Mbps\n")
    toml = """
[run]
duration = "20s"
seed = 1
[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "20ms", capacity_trace = { file = "steps.txt", format = "table" } }
[[flows]]
source = { kind = "cbr", rate = "20Mbps" }
"""
    (folder / "s.toml").write_text(toml)
    p = cli("run", str(folder / "s.toml"), "--out", str(tmp_path / "out"), "-q", "--no-plot")
    assert p.returncode == 0, p.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    link = next(k for k in summary["links"] if k["name"] == "bottleneck")
    # (10 s at 10 Mb/s + 8 s at 5 Mb/s) / 20 s.
    assert link["rate_bps"] == 7_000_000


@pytest.mark.parametrize(
    "text, fmt, shown",
    [
        ("1\n2\nfast\n", "mahimahi", "line 3: 'fast'"),
        ("5\n3\n", "mahimahi", "line 2: '3'"),
        ("0s 1Mbps\n1s 0bps\n", "table", "line 2"),
        ("0s 1Mbps\n1s 2\n", "table", "line 2: '1s 2'"),
    ],
)
def test_a_malformed_trace_is_one_line_naming_field_file_and_line(tmp_path, text, fmt, shown):
    (tmp_path / "bad.trace").write_text(text)
    sc = packet_scenario({"file": "bad.trace", "format": fmt})
    (tmp_path / "s.toml").write_text(_toml(sc))
    p = cli("validate", str(tmp_path / "s.toml"))
    assert p.returncode == 2
    line = p.stderr.strip()
    assert "\n" not in line
    assert "topology.bottleneck.capacity_trace.file" in line and "bad.trace" in line
    assert shown in line


def test_a_missing_or_unreadable_trace_is_named(tmp_path):
    sc = packet_scenario({"file": str(tmp_path / "nowhere.trace")})
    with pytest.raises(ScenarioError, match="nowhere.trace.*no such file"):
        ccscope.validate(sc)
    (tmp_path / "folder.trace").mkdir()
    sc = packet_scenario({"file": str(tmp_path / "folder.trace")})
    with pytest.raises(ScenarioError, match="cannot be read"):
        ccscope.validate(sc)
    (tmp_path / "binary.trace").write_bytes(b"\xff\xfe1\n")
    sc = packet_scenario({"file": str(tmp_path / "binary.trace")})
    with pytest.raises(ScenarioError, match="not text"):
        ccscope.validate(sc)


def test_a_trace_and_capacity_changes_on_one_link_are_refused(tmp_path):
    sc = packet_scenario(
        {"file": str(SHIPPED["step"]), "format": "table"},
        capacity_changes=[{"at": "1s", "rate": "5Mbps"}],
    )
    with pytest.raises(ScenarioError, match="capacity_changes or capacity_trace, not both"):
        ccscope.validate(sc)


def test_capacity_changes_name_the_trace_for_an_outage():
    sc = packet_scenario({"file": str(SHIPPED["step"]), "format": "table"})
    del sc["topology"]["bottleneck"]["capacity_trace"]
    sc["topology"]["bottleneck"]["capacity_changes"] = [{"at": "1s", "rate": "0bps"}]
    with pytest.raises(ScenarioError, match="an outage is a capacity_trace"):
        ccscope.validate(sc)


def test_the_kernel_emulator_refuses_a_trace():
    sc = packet_scenario({"file": str(SHIPPED["step"]), "format": "table"})
    sc["run"].update({"engine": "udp", "emulator": "kernel"})
    with pytest.raises(ScenarioError, match="capacity_trace.file.*tc sets the rate once"):
        ccscope.validate(sc)


def test_the_round_model_takes_the_trace_as_a_capacity_series_through_an_outage(tmp_path):
    # 8 Mb/s (100 packets of 1000 B per 100 ms RTT0), out from 20 s to 21 s, then 4 Mb/s.
    (tmp_path / "t.txt").write_text("0s 8Mbps\n20s 0bps\n21s 4Mbps\n")
    sc = {
        "run": {"engine": "round", "steps": 600},
        "link": {
            "capacity": "8Mbps",
            "buffer": 20,
            "capacity_trace": {"file": str(tmp_path / "t.txt"), "format": "table"},
        },
        "flows": [{"controller": "tcp", "initial_window": 10}],
        "record": {"every": 1, "flows": True},
    }
    r = roundmodel.run(sc)
    s = r.series
    cap, t = s["capacity_bps"].to_numpy(), s["time_s"].to_numpy()
    assert np.all(np.isfinite(s.select_dtypes("number").to_numpy()))
    # Steps that start before 19.9 s see 8 Mb/s; those within the outage see none.
    assert np.all(cap[t < 19.9] == 8e6)
    assert np.any(cap == 0) and np.all(cap[(t >= 20) & (t < 20.9)] == 0)
    assert np.all(cap[t >= 21] == 4e6)
    # Nothing is served during the outage: the load overflows the buffer and is lost.
    out = (t >= 20) & (t < 20.9)
    assert s["loss_fraction"].to_numpy()[out].max() > 0
    # Once the link is back, the window settles to the new capacity: 50 packets per RTT0 and
    # a buffer of 20 hold 70; an AIMD(1, 1/2) window overshoots that by at most a step's
    # growth of one packet before it halves.
    w = r.flow_series()[0].to_numpy()
    assert 60 < w[t > 40].max() <= 71


def _toml(table: dict) -> str:
    """A scenario dict as TOML, enough for these tests' tables."""

    def value(v):
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return json.dumps(v)
        return str(v)

    lines = []
    for section, body in table.items():
        if isinstance(body, list):
            for item in body:
                lines.append(f"[[{section}]]")
                lines.extend(f"{k} = {value(v)}" for k, v in item.items())
        else:
            lines.append(f"[{section}]")
            lines.extend(f"{k} = {value(v)}" for k, v in body.items())
    return "\n".join(lines) + "\n"
