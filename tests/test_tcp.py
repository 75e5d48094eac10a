"""TCP flows from scenario files and Python, and window controllers written in Python."""

import pytest

import ccscope
from ccscope.errors import ScenarioError

TCP = """
[run]
duration = "30s"
warmup = "5s"
seed = 2

[topology]
kind = "dumbbell"
bottleneck = { rate = "5Mbps", delay = "20ms", queue = { kind = "droptail", limit = "30pkts" } }

[[flows]]
source = { kind = "tcp", variant = "sack" }
count = 2

[[flows]]
source = { kind = "tcp", variant = "newreno", controller = { name = "gaimd", beta = 0.875 } }

[trace]
interval = "100ms"
"""


def test_tcp_flows_share_the_link_and_report_transport_numbers():
    r = ccscope.run(ccscope.loads(TCP))
    f = r.flows
    assert list(f["label"]) == ["TCP/SACK", "TCP/SACK", "GAIMD(0.3125,0.875) (NewReno)"]
    assert r.bottlenecks.loc[0, "utilization"] > 0.95
    # Goodput counts each packet once; it is at most what arrived.
    assert (f["goodput_bps"] <= f["throughput_bps"] * 1.001).all()
    assert f["goodput_bps"].sum() > 0.9 * 5e6
    # RTT is at least the 2 * (20 + 1 + 1) ms of propagation.
    assert (f["mean_rtt_s"] > 0.044).all()
    assert (r.trace.flows["window_pkts"] >= 1).all()


def test_a_python_window_controller_runs_in_the_packet_engine():
    text = TCP.replace('controller = { name = "gaimd", beta = 0.875 }', 'controller = "python:aimd"')
    calls = {"increase": 0, "decrease": 0}

    def increase(w):
        calls["increase"] += 1
        return 0.5

    def decrease(w):
        calls["decrease"] += 1
        return w * 0.75

    aimd = ccscope.WindowController("AIMD-py(0.5,0.75)", increase=increase, decrease=decrease)
    r = ccscope.run(ccscope.loads(text), controllers={"aimd": aimd})
    assert r.flows.loc[2, "label"] == "AIMD-py(0.5,0.75) (NewReno)"
    assert calls["increase"] > 100 and calls["decrease"] > 0
    assert r.flows.loc[2, "goodput_bps"] > 0.3e6


def test_python_controller_errors_surface_after_the_run():
    text = TCP.replace('controller = { name = "gaimd", beta = 0.875 }', 'controller = "python:bad"')
    bad = ccscope.WindowController("bad", increase=lambda w: 1.0, decrease=lambda w: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        ccscope.run(ccscope.loads(text), controllers={"bad": bad})
    nan = ccscope.WindowController("nan", increase=lambda w: float("nan"), decrease=lambda w: w)
    with pytest.raises(ScenarioError, match="returned nan; it must return a number of packets in \\[0, 1e9\\]"):
        ccscope.run(ccscope.loads(text), controllers={"bad": nan})
    with pytest.raises(ScenarioError, match="no Python controller"):
        ccscope.run(ccscope.loads(text))


@pytest.mark.parametrize(
    ("controller", "below", "needle"),
    [('"cubic"', "", "is not known; expected one of: tcp, aimd"),
     ('{ name = "gaimd", beta = 1.5 }', ".beta", "beta = 1.5: must be in"),
     ('{ name = "gaimd", gamma = 0.5 }', ".gamma", "not a parameter of gaimd; its parameters: "
      "alpha, beta")],
)
def test_bad_controllers_are_named(controller, below, needle):
    text = TCP.replace('{ name = "gaimd", beta = 0.875 }', controller)
    with pytest.raises(ccscope.ControllerError) as info:
        ccscope.loads(text)
    assert info.value.path == "flows[1].source.controller" + below
    assert needle in str(info.value)


def test_finite_transfer_completes():
    text = TCP.replace('variant = "sack" }\ncount = 2', 'transfer = "500pkts" }')
    # Counts cover [warmup, end): with the 5 s warm-up the transfer would fall outside.
    r = ccscope.run(ccscope.loads(text.replace('warmup = "5s"', 'warmup = "0s"')))
    assert r.flows.loc[0, "goodput_pkts"] == 500
    assert 0 < r.flows.loc[0, "completion_time_s"] < 30


def test_controllers_command_lists_the_catalogue():
    import json
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "ccscope", "controllers", "--json"],
                       capture_output=True, text=True, check=True)
    names = {e["name"] for e in json.loads(p.stdout)}
    assert {"tcp", "aimd", "gaimd", "binomial", "iiad", "sqrt", "simd", "aiad", "taimd",
            "dtaimd"} <= names


def test_sack_never_resends_what_the_receiver_reported_holding():
    # Independent losses, no reordering: an RFC 6675 sender retransmits each lost packet once
    # (lost retransmissions counted as losses) and, after a timeout, skips what the receiver
    # has SACKed since (§5.1), so the receiver sees almost no duplicates. Before that rule
    # ccscope resent 0.8-1.8 packets the receiver held per timeout.
    r = ccscope.run({
        "run": {"duration": "60s", "seed": 2},
        "topology": {"kind": "dumbbell", "access": {"rate": "1Gbps", "delay": "1ms"},
                     "bottleneck": {"rate": "100Mbps", "delay": "20ms",
                                    "queue": {"kind": "droptail", "limit": "100000pkts"},
                                    "loss": {"kind": "bernoulli", "p": 0.05}}},
        "flows": [{"source": {"kind": "tcp", "variant": "sack"}, "count": 4}]})
    f = r.flows
    lost = f["dropped_pkts"].sum()
    assert f["timeouts"].sum() > 20  # the rule is exercised
    assert f["duplicate_pkts"].sum() <= 0.005 * lost
    assert f["retransmits"].sum() / lost == pytest.approx(1.0, abs=0.01)
