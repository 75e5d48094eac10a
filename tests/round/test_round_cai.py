"""Cai et al. 2005 in the round model: the model's own behaviour (the published claims are
checked by tests/validation/test_reproduce.py)."""

from __future__ import annotations

import pytest

from ccscope import roundmodel
from ccscope.errors import ScenarioError


def test_integer_windows_need_a_settable_window():
    # A rate controller has no window to round; it runs unchanged with integer_windows.
    r = roundmodel.run(
        {
            "run": {"engine": "round", "steps": 100},
            "link": {"capacity": "1Mbps", "integer_windows": True},
            "flows": [{"controller": "rate-aimd"}],
        }
    )
    assert r.flows["rate_based"].iloc[0]


def test_substeps_need_window_controllers():
    with pytest.raises(ScenarioError, match="run.substeps > 1 needs window controllers"):
        roundmodel.run(
            {
                "run": {"engine": "round", "steps": 100, "substeps": 10},
                "link": {"capacity": "1Mbps"},
                "flows": [{"controller": "rate-aimd"}],
            }
        )
    with pytest.raises(ScenarioError, match="run.substeps"):
        roundmodel.run(
            {
                "run": {"engine": "round", "steps": 100, "substeps": 0},
                "link": {"capacity": "1Mbps"},
                "flows": [{"controller": "tcp"}],
            }
        )


def test_fluid_limit_mean_load_is_the_sawtooth_mean():
    # Two AIMD(1, 1/2) flows in the fluid limit: the sum saws between r/2 and r, so each flow
    # offers (1 + β)/2 · r/2 packets per RTT on average (Cai et al. (11) with α equal).
    r = roundmodel.run(
        {
            "run": {"engine": "round", "steps": 200_000, "warmup_steps": 20_000, "substeps": 100},
            "link": {"capacity_pkts": 20},
            "flows": [
                {
                    "controller": "gaimd",
                    "params": {"alpha": 1, "beta": 0.5},
                    "count": 2,
                    "initial_window": 5,
                }
            ],
        }
    )
    assert r.flows["mean_load_pkts"].to_list() == pytest.approx([7.5, 7.5], rel=0.01)
    assert r.utilization == pytest.approx(0.75, rel=0.01)
