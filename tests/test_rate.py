"""Rate-based flows from scenario files, Python rate controllers, and the CLI surfaces of the
round model and `ccscope check`."""

import json
import subprocess
import sys

import pytest

import ccscope
from ccscope.errors import ScenarioError

RATE = """
[run]
duration = "40s"
warmup = "10s"
seed = 1

[topology]
kind = "dumbbell"
bottleneck = { rate = "5Mbps", delay = "20ms", queue = { kind = "red", limit = 100, min_th = 5, max_th = 15, w_q = 0.002 } }

[[flows]]
source = { kind = "rate", controller = "tfrc" }
count = 2

[[flows]]
source = { kind = "tcp" }
count = 2

[trace]
interval = "200ms"
"""


def test_tfrc_and_tcp_share_a_red_link():
    r = ccscope.run(ccscope.loads(RATE))
    f = r.flows
    assert f["label"][0].startswith("TFRC")
    assert r.bottlenecks.utilization[0] > 0.9
    tfrc, tcp = f.throughput_bps[:2].mean(), f.goodput_bps[2:].mean()
    # TCP-friendliness: the ratio must be of order one (tests/validation/test_rate_models.py
    # holds a longer run to [0.7, 1.4]; a 30 s window is noisier).
    assert 0.4 < tfrc / tcp < 2.5
    assert (f["reports"][:2] > 50).all()
    assert (r.trace.flows.rate_bps[r.trace.flows.flow < 2] > 0).any()


class HalveOnLoss(ccscope.RateController):
    name = "rate-AIMD-py"

    def __init__(self):
        self.rate = 200e3
        self.reports = 0

    def rate_bps(self):
        return self.rate

    def on_report(self, r):
        self.reports += 1
        self.rate = max(self.rate / 2, 8e3) if r["lost_pkts"] else self.rate + 20e3


def test_a_python_rate_controller_runs():
    text = RATE.replace(
        'controller = "tfrc" }', 'controller = "python:mine", feedback = "per-rtt" }'
    )
    mine = HalveOnLoss()
    r = ccscope.run(ccscope.loads(text), controllers={"mine": mine})
    assert r.flows.label[0] == "rate-AIMD-py"
    assert mine.reports == 0  # the object given is a template: each flow runs its own copy
    assert r.controllers[0].reports > 100
    assert r.flows.throughput_bps[:2].min() > 100e3


@pytest.mark.parametrize("given", [HalveOnLoss, HalveOnLoss(), lambda: HalveOnLoss()])
def test_each_flow_gets_its_own_python_controller(given):
    text = RATE.replace('warmup = "10s"', 'warmup = "0s"').replace(
        'controller = "tfrc" }\ncount = 2',
        'controller = "python:mine", feedback = "per-rtt" }\ncount = 3',
    )
    r = ccscope.run(ccscope.loads(text), controllers={"mine": given})
    mine = [r.controllers[i] for i in range(3)]
    assert len({id(c) for c in mine}) == 3 and 3 not in r.controllers
    # Each object saw exactly the reports of its own flow, none of the others'.
    assert [c.reports for c in mine] == list(r.flows.reports[:3])
    summary = r.summary()["python_controllers"]
    assert summary["0"]["class"] == "HalveOnLoss" and summary["0"]["module"] == __name__
    assert summary["0"]["params"] == {"rate": 200e3, "reports": 0}
    assert len(summary["0"]["source_sha256"]) == 64


def test_rate_scenarios_name_bad_controllers():
    with pytest.raises(ScenarioError) as info:
        ccscope.loads(RATE.replace('controller = "tfrc"', 'controller = "tcp"'))
    assert info.value.field == "flows[0].source.controller"
    assert "tfrc" in str(info.value)
    with pytest.raises(ScenarioError, match="needs `feedback`"):
        ccscope.loads(RATE.replace('controller = "tfrc"', 'controller = "python:x"'))


def cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "ccscope", *args], capture_output=True, text=True, timeout=300
    )


def test_round_scenarios_run_from_the_cli(tmp_path):
    from pathlib import Path

    text = (
        Path("scenarios/round-loguinov-fig5.toml")
        .read_text()
        .replace("steps = 20000", "steps = 3000")
    )
    path = tmp_path / "round.toml"
    path.write_text(text)
    p = cli("run", str(path), "--out", str(tmp_path / "out"))
    assert p.returncode == 0, p.stderr
    assert "loss rate" in p.stdout
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["engine"] == "round"
    # Loguinov Fig. 5, AIMD1 at n = 100: about 10% loss (a short run: within a few points).
    assert 0.05 < summary["loss_rate"] < 0.15
    assert cli("validate", str(path)).returncode == 0
    path.write_text(text.replace('name = "rate-aimd"', 'name = "rate-aimdd"'))
    bad = cli("validate", str(path))
    assert bad.returncode == 2 and "rate-aimdd" in bad.stderr and "Traceback" not in bad.stderr


def test_check_command():
    p = cli("check", "iiad", "--json")
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    # IIAD is binomial k = 1, l = 0: loss scalability exponent l + 2k + 1 = 3 (Loguinov (36)).
    assert report["loss_exponent"] == pytest.approx(3.0)
    human = cli("check", "--binomial", "0.5,0.5,1,0.5")
    assert human.returncode == 0 and "(15)" in human.stdout
    assert cli("check", "westwood").returncode == 2
    assert cli("check", "--binomial", "1,2").returncode == 2


def test_a_window_controller_is_refused_by_a_rate_source():
    text = RATE.replace(
        'controller = "tfrc" }', 'controller = "python:mine", feedback = "per-rtt" }'
    )
    window = ccscope.WindowController("w", increase=lambda w: 1.0, decrease=lambda w: w / 2)
    with pytest.raises(
        ccscope.ControllerError, match="a rate source runs a Controller or RateController"
    ) as e:
        ccscope.run(ccscope.loads(text), controllers={"mine": window})
    assert e.value.path == "flows[0].source.controller"


def test_every_rate_and_tcp_flow_has_a_mean_rtt():
    """A rate flow's mean RTT is the mean of the samples its reports give, as TCP's is of its
    samples: at least the path's two-way propagation delay (access, bottleneck, access each
    way) and at most that plus every queue on the way, both ways, full of data packets and a
    packet's transmission on each link."""
    result = ccscope.run(
        ccscope.load("scenarios/dumbbell-mix.toml", {"run.duration": "15s", "run.warmup": "5s"})
    )
    t = result.scenario.table["topology"]
    access, bottleneck = t["access"], t["bottleneck"]
    assert (access["delay"], bottleneck["delay"]) == ("1ms", "20ms")
    assert (access["rate"], bottleneck["rate"]) == ("100Mbps", "10Mbps")
    assert (access["queue"]["limit"], bottleneck["queue"]["limit"]) == ("100pkts", 120)
    packet = 1000 * 8
    propagation = 2 * (0.001 + 0.020 + 0.001)
    queues = 2 * (120 * packet / 10e6 + 2 * 100 * packet / 100e6)
    transmissions = 2 * (packet / 10e6 + 2 * packet / 100e6)
    flows = result.flows
    closed = flows["label"].str.contains("TCP|GAIMD|TFRC", case=False)
    assert closed.sum() == 6
    rtt = flows.loc[closed, "mean_rtt_s"].to_numpy()
    assert (rtt >= propagation).all() and (rtt <= propagation + queues + transmissions).all(), rtt


def _path(rate: str, n: int, source: str, duration: str = "60s", warmup: str = "20s") -> str:
    """`n` rate flows (`source`'s fields) on a `rate` link, 62-ms round trip, 50-packet DropTail."""
    return f"""
[run]
duration = "{duration}"
warmup = "{warmup}"
seed = 1

[topology]
kind = "dumbbell"
bottleneck = {{ rate = "{rate}", delay = "30ms", queue = {{ kind = "droptail", limit = "50pkts" }} }}
access = {{ rate = "100Mbps", delay = "1ms" }}

[[flows]]
source = {{ kind = "rate", {source} }}
count = {n}
"""


@pytest.mark.parametrize("controller", ["ssvp", "ssvp-adp", "rap"])
def test_a_share_under_a_packet_per_rtt_starves_no_flow(controller):
    # Forty flows on 1 Mb/s: a fair share of 3.1 packets/s, 320 ms between a flow's packets,
    # beyond two RTTs. A control packet comes back for each data packet, so a no-feedback timer
    # shorter than that gap expires on a healthy path: the flows halved at every gap until
    # some carried nothing at all.
    r = ccscope.run(ccscope.loads(_path("1Mbps", 40, f'controller = "{controller}"')))
    assert (r.flows["throughput_bps"] > 0).all()


def test_a_lone_ssvp_flow_at_a_low_rate_on_a_clean_path_never_times_out():
    # Started at 2 packets/s, 500 ms between packets against a 62-ms round trip, on 100 Mb/s
    # that it cannot fill in 20 s: every packet's control packet comes back, so the timer never
    # expires.
    source = 'controller = "ssvp", initial_rate = "16kbps"'
    r = ccscope.run(ccscope.loads(_path("100Mbps", 1, source, "20s", "0s")))
    assert r.flows["loss_rate"][0] == 0
    assert r.flows["no_feedback_expiries"][0] == 0
