"""ns-2 rap.cc's receiver settings as scenario parameters: when a gap counts as a loss
(`loss_after`) and the size of the reports (`report_size`)."""

from __future__ import annotations

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


@pytest.mark.parametrize(
    ("controller", "source", "field"),
    [
        ({"name": "rap", "loss_after": 2.5}, {}, "loss_after"),
        ({"name": "rap", "loss_after": 0}, {}, "loss_after"),
        ("rap", {"report_size": "0B"}, "report_size"),
    ],
)
def test_bad_rap_settings_are_refused_by_name(controller, source, field):
    with pytest.raises(ScenarioError, match=field):
        rap(controller, **source)
