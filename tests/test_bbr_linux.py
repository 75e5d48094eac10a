"""What Linux's BBR v1 (net/ipv4/tcp_bbr.c) adds to the draft's, the three switches of `bbr`: the
window's allowance for ACK aggregation (`bbr_update_ack_aggregation`, `bbr_ack_aggregation_cwnd`;
`ack_aggregation`), the window's target rounded to whole packets (`bbr_bdp`,
`bbr_quantization_budget`, `bbr_tso_segs_goal`; `quantization`) and the minimum RTT refreshed
only by a smaller sample (`bbr_update_min_rtt`; `strict_min_rtt`, whose rule the Rust unit test
`a_sample_equal_to_rtprop_refreshes_it_in_the_draft_and_not_in_linux` checks): off by default,
on in the model of Linux's BBR (ccscope.experiments.linux.CONTROLLER)."""

import math
import subprocess
import sys

import pytest

import ccscope
from ccscope.errors import ScenarioError
from ccscope.experiments import linux

SWITCHES = ["ack_aggregation", "quantization", "strict_min_rtt"]


def lone_flow(controller, delayed_ack: bool = True) -> dict:
    """One BBR flow for 12 s on a 10 Mb/s, 20 ms dumbbell with a 2-BDP buffer, acknowledged
    as Linux's receiver does (every second segment or after 40 ms), its state traced."""
    return {
        "run": {"duration": "12s", "warmup": "2s", "seed": 1},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {
                "rate": "10Mbps",
                "delay": "9ms",
                "queue": {"kind": "droptail", "limit": "60pkts"},
            },
            "access": {"rate": "100Mbps", "delay": "0.5ms"},
        },
        "flows": [
            {
                "source": {
                    "kind": "tcp",
                    "variant": "sack",
                    "initial_window": 10,
                    "delayed_ack": delayed_ack,
                    "delack": "40ms",
                    "growth": "per_packet",
                    "controller": controller,
                }
            }
        ],
        "trace": {"interval": "100ms", "state": True, "queues": False, "flows": False},
    }


def at(result, name: str, time_s: float) -> float | None:
    """The sender's state field `name` in force at `time_s` (the trace holds a row per change),
    None if it has none."""
    state = result.trace.state
    rows = state[(state["field"] == name) & (state["side"] == "sender")]
    rows = rows[rows["time_s"] <= time_s]
    return float(rows["value"].iloc[-1]) if len(rows) else None


@pytest.mark.parametrize("switch", SWITCHES)
def test_off_by_default_and_the_same_run_as_before(switch):
    plain = ccscope.run(lone_flow("bbr"))
    off = ccscope.run(lone_flow({"name": "bbr", switch: 0}))
    assert plain.flows.equals(off.flows)
    assert plain.trace.state.equals(off.trace.state)
    assert at(plain, "extra_acked_pkts", 12.0) is None


@pytest.mark.parametrize(("delayed_ack", "per_ack"), [(True, 2.0), (False, 1.0)])
def test_a_paced_lone_flow_is_allowed_one_acks_packets(delayed_ack, per_ack):
    # Alone and paced at BtlBw, the flow's ACKs come no faster than BtlBw, so each opens an
    # epoch with 0 expected and what it delivers extra (tcp_bbr.c bbr_update_ack_aggregation):
    # 2 packets with delayed ACKs, 1 with an ACK per packet; well under the cap of BtlBw × 100
    # ms (125 packets). Startup's larger bursts have left the 5-10-round maximum by 5 s.
    on = ccscope.run(lone_flow({"name": "bbr", "ack_aggregation": 1}, delayed_ack))
    assert on.flows.loc[0, "label"].startswith("BBR(2,1)")
    assert at(on, "extra_acked_pkts", 5.0) == per_ack
    # The window's target is the draft's (the same path estimates) plus the allowance.
    off = ccscope.run(lone_flow("bbr", delayed_ack))
    for estimate in ("btlbw_pkts_per_s", "rtprop_s"):
        assert at(on, estimate, 5.0) == at(off, estimate, 5.0)
    gap = at(on, "target_cwnd_pkts", 5.0) - at(off, "target_cwnd_pkts", 5.0)
    assert gap == pytest.approx(per_ack, abs=1e-9)


def linux_target(result, time_s: float, packet_bytes: int = 1000) -> float:
    """The window's target tcp_bbr.c gives for the path estimates the trace holds at `time_s`
    with the allowance off: `bbr_bdp` rounds cwnd_gain·BtlBw·RTprop up; `bbr_quantization_budget`
    adds 3 × `bbr_tso_segs_goal` (the pacing rate's bytes in 1/1024 s, whole segments, at least
    2 from 1.2 Mb/s up), rounds up to even, and adds 2 in ProbeBW's 1.25 phase (state 2)."""
    bw, rtprop = at(result, "btlbw_pkts_per_s", time_s), at(result, "rtprop_s", time_s)
    pacing_gain, cwnd_gain = at(result, "pacing_gain", time_s), at(result, "cwnd_gain", time_s)
    pacing_bps = pacing_gain * bw * packet_bytes * 8
    segs = max(math.floor(pacing_bps / 8 / 1024 / packet_bytes), 1 if pacing_bps < 1.2e6 else 2)
    cwnd = math.ceil(cwnd_gain * bw * rtprop) + 3 * segs
    cwnd += cwnd % 2
    probing = at(result, "state", time_s) == 2 and pacing_gain == 1.25
    return cwnd + (2 if probing else 0)


def test_quantization_gives_linux_whole_even_target():
    on = ccscope.run(lone_flow({"name": "bbr", "quantization": 1}))
    assert on.flows.loc[0, "label"].startswith("BBR(2,0,1)")
    # Each change of the target from Drain on, against tcp_bbr.c's rule from the same estimates.
    state = on.trace.state
    changes = state[(state["field"] == "target_cwnd_pkts") & (state["time_s"] >= 1.0)]
    assert len(changes) > 10
    for time_s, value in zip(changes["time_s"], changes["value"], strict=True):
        assert value == linux_target(on, time_s), time_s
    # The draft's target is not whole: 2·BtlBw·RTprop plus 3 quanta of 2 packets.
    off = ccscope.run(lone_flow("bbr"))
    assert at(off, "target_cwnd_pkts", 5.0) % 1 != 0


def test_the_model_of_linux_bbr_has_all_three():
    assert linux.tcp_source("bbr", "model")["controller"] == {"name": "bbr"} | dict.fromkeys(
        SWITCHES, 1
    )


@pytest.mark.parametrize("switch", SWITCHES)
@pytest.mark.parametrize("value", [0.5, 2, -1])
def test_bad_values_name_the_field_in_one_line(switch, value):
    with pytest.raises(ScenarioError) as info:
        ccscope.run(lone_flow({"name": "bbr", switch: value}))
    message = str(info.value)
    assert f"flows[0].source.controller.{switch}" in message
    assert "\n" not in message.strip()


def test_the_command_line_refuses_a_bad_value_with_exit_2(tmp_path):
    scenario = tmp_path / "bad.toml"
    scenario.write_text(
        '[run]\nduration = "1s"\n[topology]\nkind = "dumbbell"\n'
        'bottleneck = { rate = "10Mbps", delay = "9ms" }\n[[flows]]\n'
        'source = { kind = "tcp", controller = { name = "bbr", ack_aggregation = 0.5 } }\n'
    )
    p = subprocess.run(
        [sys.executable, "-m", "ccscope", "validate", str(scenario)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 2, p.stderr
    assert "flows[0].source.controller.ack_aggregation = 0.5" in p.stderr
    assert p.stderr.strip().count("\n") == 0 and "Traceback" not in p.stderr
