"""ns-2 rap.cc's settings as scenario parameters: when a gap counts as a loss (`loss_after`), the
size of the reports (`report_size`), the increase on the RTT timer (`rtt_timer`) and the
timer-based loss detection (`loss_timer`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ccscope
from ccscope.errors import ScenarioError


def rap(controller, **source) -> ccscope.Result:
    return ccscope.run(
        {
            "run": {"duration": "20s", "seed": 4},
            "topology": {
                "kind": "fat_link",
                "rate": "10Mbps",
                "delay": "20ms",
                "loss": {"kind": "periodic", "every": 25},
            },
            "flows": [{"source": {"kind": "rate", "controller": controller, **source}}],
            "trace": {"state": True, "flows": False, "queues": False},
        }
    )


def test_reports_take_the_size_asked_for():
    # One report per data packet (RAP acknowledges each), so the reverse link carries
    # reports x report size bytes.
    for size in (40, 44):
        r = rap("rap", report_size=f"{size}B")
        rev = r.links[r.links["name"] == "bottleneck.reverse"].iloc[0]
        reports = r.flows["feedback_pkts"].iloc[0]
        assert rev["throughput_bps"] * r.measured_s / 8 == pytest.approx(
            reports * size, abs=5 * size
        )


def test_loss_after_reaches_the_receiver():
    # The same losses (every 25th packet), found later: the runs differ (the receiver's rule
    # itself is checked in the Rust unit tests of LossCounter).
    early, late = rap("rap"), rap({"name": "rap", "loss_after": 3})
    assert early.flows["loss_rate"].iloc[0] == pytest.approx(0.04, rel=0.01)
    assert late.flows["loss_rate"].iloc[0] == pytest.approx(0.04, rel=0.01)
    assert late.flows["throughput_bps"].iloc[0] != early.flows["throughput_bps"].iloc[0]


def clear_path(controller) -> tuple[np.ndarray, pd.DataFrame]:
    """RAP alone for 4 s on a 1 Gb/s, 20 ms path it never fills: no loss, no queueing, so every
    RTT sample and the SRTT are the same. The times its gap fell (the first ACK's ipg = srtt,
    then each increase step), and its state."""
    r = ccscope.run(
        {
            "run": {"duration": "4s", "seed": 1},
            "topology": {"kind": "fat_link", "rate": "1Gbps", "delay": "20ms"},
            "flows": [{"source": {"kind": "rate", "controller": controller}}],
            "trace": {"state": True, "flows": False, "queues": False},
        }
    )
    s = r.trace.state_series(0)
    return np.asarray(s.index[s["ipg_s"].diff() < 0]), s


def test_rtt_timer_steps_every_srtt_and_reports_step_an_srtt_after_the_last():
    # rap.cc: start() runs RttTimeout(), which reschedules itself an SRTT later, at srtt_'s
    # 2 s before any sample; the first ACK sets ipg = srtt and leaves the timer alone. Then
    # every SRTT: steps exactly one SRTT apart, whatever the reports.
    fell, s = clear_path({"name": "rap", "rtt_timer": 1})
    srtt = s["srtt_s"].iloc[-1]
    assert s["srtt_s"].min() == s["srtt_s"].max()
    assert fell[0] == pytest.approx(srtt, abs=1e-6)
    assert fell[1] == pytest.approx(2.0, abs=1e-9)
    assert len(fell) > 40
    assert np.diff(fell[1:]) == pytest.approx(srtt, abs=1e-6)
    # Without the timer a step waits for the first report an SRTT or more after the last, which
    # comes within one inter-packet gap (the one before the step) of it.
    fell, s = clear_path("rap")
    late = np.diff(fell) - s["srtt_s"].iloc[-1]
    gap_before = s["ipg_s"].shift().loc[fell[1:]].to_numpy()
    assert fell[1] < 0.1
    assert late.min() >= -1e-9
    assert np.all(late <= gap_before + 1e-9)
    assert late.max() > 1e-4


def backoffs(r: ccscope.Result) -> int:
    """RAP's back-offs over the whole run: the times its gap grew."""
    s = r.trace.state_series(0)
    return int((s["ipg_s"].diff() > 0).sum())


def test_loss_timer_finds_losses_before_the_receiver_does():
    # Every 25th packet lost and the receiver slow to say so (a gap counts once 64 later
    # packets arrived, ~64 gaps): the timer declares the packet lost 1.2·SRTT + 4·variance after
    # its sending (rap.cc TimerLostPacket), well before, so every back-off is the timer's.
    timer = rap({"name": "rap", "loss_after": 64, "loss_timer": 1})
    n = timer.flows["timer_losses"].iloc[0]
    assert n > 10
    assert n == backoffs(timer) - timer.flows["no_feedback_expiries"].iloc[0]
    assert timer.flows["no_feedback_expiries"].iloc[0] == 0
    plain = rap({"name": "rap", "loss_after": 64})
    assert "timer_losses" not in plain.flows


@pytest.mark.parametrize(
    ("controller", "source", "field"),
    [
        ({"name": "rap", "loss_after": 2.5}, {}, "loss_after"),
        ({"name": "rap", "loss_after": 0}, {}, "loss_after"),
        ({"name": "rap", "rtt_timer": 0.5}, {}, "rtt_timer"),
        ({"name": "rap", "loss_timer": 2}, {}, "loss_timer"),
        ("rap", {"report_size": "0B"}, "report_size"),
    ],
)
def test_bad_rap_settings_are_refused_by_name(controller, source, field):
    with pytest.raises(ScenarioError, match=field):
        rap(controller, **source)
