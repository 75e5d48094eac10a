"""The media transport (source kind "rtp") from Python and the command line: GCC and a
controller written in Python on per-packet feedback, the RFC 8593 encoder's frame metrics,
and bad values named by their field."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import ccscope
from ccscope.errors import ControllerError, ScenarioError


def media(source: dict, seconds: int = 20, rate: str = "2Mbps") -> dict:
    return {
        "run": {"duration": f"{seconds}s", "warmup": "5s", "seed": 3},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {
                "rate": rate,
                "delay": "40ms",
                "queue": {"kind": "droptail", "limit": "60pkts"},
            },
            "access": {"rate": "100Mbps", "delay": "5ms"},
        },
        "flows": [{"source": source}],
    }


class Fixed(ccscope.Controller):
    """A fixed target; records what its feedback says."""

    feedback_format = "rfc8888"
    feedback_interval_s = 0.1

    def __init__(self, rate: float = 500e3):
        self.target_rate_bps = rate
        self.reports, self.packets, self.lost = 0, 0, 0
        self.seqs: list[int] = []
        self.rtts: list[float] = []

    def on_feedback(self, fb):
        self.reports += 1
        self.packets += len(fb.packets)
        self.lost += sum(p.arrived_s is None for p in fb.packets)
        self.seqs += [p.seq for p in fb.packets]
        if fb.rtt_s is not None:
            self.rtts.append(fb.rtt_s)
        assert fb.format == "rfc8888" and fb.size_bytes >= 48


def test_a_python_controller_sees_every_packet_once_in_order():
    made = []

    def factory():
        made.append(Fixed())
        return made[-1]

    r = ccscope.run(
        media({"kind": "rtp", "controller": "python:fixed"}), controllers={"fixed": factory}
    )
    c = made[0]
    # Feedback every 100 ms over 20 s (its feedback_interval_s), each packet once, in order.
    assert c.reports == pytest.approx(200, abs=2)
    assert c.seqs == list(range(len(c.seqs)))
    # 500 kb/s on an idle 2 Mb/s path: nothing lost; the RTT is the path's 2·(40 + 5 + 5) ms
    # plus serialization (under 10 ms at these rates).
    assert c.lost == 0
    assert min(c.rtts) == pytest.approx(0.100, abs=0.01)
    # The encoder codes at the fixed target: goodput about 500 kb/s (RFC 8593's Laplacian
    # sizes average out over 450 frames to within a few percent).
    assert r.flows.loc[0, "throughput_bps"] == pytest.approx(500e3, rel=0.05)
    assert r.flows.loc[0, "frames_rendered"] > 400


def test_gcc_runs_from_the_command_line(tmp_path):
    scenario = tmp_path / "gcc.toml"
    scenario.write_text(
        textwrap.dedent(
            """
            [run]
            duration = "20s"
            [topology]
            kind = "dumbbell"
            bottleneck = { rate = "1Mbps", delay = "40ms" }
            [[flows]]
            source = { kind = "rtp", controller = { name = "gcc", trendline = 1 } }
            """
        )
    )
    p = subprocess.run(
        [sys.executable, "-m", "ccscope", "run", str(scenario), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert "video frames" in p.stdout and "GCC(trendline)" in p.stdout


@pytest.mark.parametrize(
    ("source", "field"),
    [
        ({"kind": "rtp", "feedback": {"interval": "0s"}}, "flows[0].source.feedback.interval"),
        ({"kind": "rtp", "feedback": {"interval": "11s"}}, "flows[0].source.feedback.interval"),
        ({"kind": "rtp", "feedback": {"format": "rtcp"}}, "flows[0].source.feedback.format"),
        (
            {"kind": "rtp", "app": {"kind": "encoder", "max_rate": "100kbps"}},
            "flows[0].source.app.max_rate",
        ),
        (
            {"kind": "rtp", "app": {"kind": "encoder", "size_scale": 2}},
            "flows[0].source.app.size_scale",
        ),
        (
            {"kind": "rtp", "app": {"kind": "encoder", "burst_frames": 0}},
            "flows[0].source.app.burst_frames",
        ),
        ({"kind": "rtp", "controller": {"name": "gcc", "beta": 1.5}}, "controller.beta"),
        ({"kind": "rtp", "controller": {"name": "gcc", "chi": 0.5}}, "controller.chi"),
        ({"kind": "rtp", "controller": "tfrc"}, "flows[0].source.controller"),
    ],
)
def test_bad_values_name_their_field(source, field):
    with pytest.raises(ScenarioError) as info:
        ccscope.run(media(source))
    message = str(info.value)
    assert field in message and "\n" not in message.strip()


def test_an_rtp_source_takes_only_a_controller():
    class Rate(ccscope.RateController):
        def rate_bps(self):
            return 1e5

        def on_report(self, report):
            pass

    with pytest.raises(ControllerError, match="an rtp source runs a Controller"):
        ccscope.run(media({"kind": "rtp", "controller": "python:r"}), controllers={"r": Rate})


def test_a_bad_feedback_format_is_named():
    class Bad(Fixed):
        feedback_format = "rtcp-xr"

    with pytest.raises(ControllerError, match="feedback_format"):
        ccscope.run(media({"kind": "rtp", "controller": "python:b"}), controllers={"b": Bad})


@pytest.mark.realtime
def test_the_media_transport_runs_on_real_packets():
    # The udp engine carries the same endpoints: 6 s of GCC on an idle 2 Mb/s emulated path.
    # The encoder starts at GCC's 300 kb/s and only grows while the path is idle, so the flow
    # carries at least the encoder's floor (150 kb/s) and at most the link; feedback returns
    # once a frame (30 a second, some lost to none on an idle path).
    table = media({"kind": "rtp"}, seconds=6)
    table["run"].update(engine="udp", warmup="1s")
    r = ccscope.run(table)
    f = r.flows.loc[0]
    assert 150e3 < f["throughput_bps"] <= 2e6
    assert f["feedback_received"] > 0.8 * 30 * 5
    assert f["frames_rendered"] > 0.8 * 30 * 5


def test_the_rmcat_suite_runs_a_media_controller_on_the_media_transport():
    from ccscope import rmcat

    source = rmcat.media_source("gcc", {"trendline": 1})
    assert source["kind"] == "rtp" and source["app"] == {"kind": "encoder"}  # RFC 8593
    assert rmcat.media_source("tfrc", {})["kind"] == "rate"
