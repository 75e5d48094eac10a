"""Cai et al. 2005 in the round model (issue checks e and f)."""

from __future__ import annotations

import pytest

from ccscope import roundmodel
from ccscope.errors import ScenarioError
from ccscope.experiments import cai


def test_share_speed_matches_eq30_in_the_fluid_limit():
    # Cai et al. Fig. 14(a): (30) assumes continuous windows in continuous time with immediate
    # feedback; slicing each RTT of the round model into 100 steps is that model on r = 20
    # packets per RTT, held to the 5%.
    for _, row in cai.fig14a(r=20, substeps=cai.FLUID_SUBSTEPS).iterrows():
        assert row.measured == pytest.approx(row.eq30, rel=0.05), row.beta


def test_share_speed_with_one_step_per_rtt():
    # (30) is independent of r; one-RTT steps are fine enough on r = 200 (within 5%), while on
    # r = 20 a cut needs the sum to exceed r and costs its RTT: cycles are longer, the speed
    # below (30), as the paper's simulation is.
    for _, row in cai.fig14a(r=200).iterrows():
        assert row.measured == pytest.approx(row.eq30, rel=0.05), row.beta
    for _, row in cai.fig14a(r=20).iterrows():
        assert row.measured < row.eq30, row.beta


def test_integer_windows_stay_below_eq30():
    # Cai et al. §V-A.3: "the cwnds are rounded when decreasing. Therefore, the simulation
    # results are slightly lower than the c we derived." Whole packets per RTT (one step per
    # RTT, the packetization of §III-C) stay below (30) at every β.
    integer = cai.fig14a(r=20, integer=True)
    assert (integer.measured < integer.eq30).all()


@pytest.mark.parametrize("beta", [0.5, 0.75, 0.875])
@pytest.mark.parametrize("r", [20.0, 50.0])
def test_tcp_friendly_aimd_gets_the_tcp_window(beta, r):
    # Cai et al. (9)–(13): with α = 3(1−β)/(1+β), one TCP and one AIMD(α, β) under synchronized
    # feedback have equal mean windows, whatever the capacity.
    row = cai.friendliness(beta, r, steps=50_000)
    assert row["aimd"] == pytest.approx(row["tcp"], rel=0.02)


def test_integer_windows_need_a_settable_window():
    # A rate controller has no window to round; it runs unchanged with integer_windows.
    r = roundmodel.run({"run": {"engine": "round", "steps": 100},
                        "link": {"capacity": "1Mbps", "integer_windows": True},
                        "flows": [{"controller": "rate-aimd"}]})
    assert r.flows["rate_based"].iloc[0]


def test_substeps_need_window_controllers():
    with pytest.raises(ScenarioError, match="round.substeps > 1 needs window controllers"):
        roundmodel.run({"run": {"engine": "round", "steps": 100, "substeps": 10},
                        "link": {"capacity": "1Mbps"},
                        "flows": [{"controller": "rate-aimd"}]})
    with pytest.raises(ScenarioError, match="run.substeps"):
        roundmodel.run({"run": {"engine": "round", "steps": 100, "substeps": 0},
                        "link": {"capacity": "1Mbps"}, "flows": [{"controller": "tcp"}]})


def test_fluid_limit_mean_load_is_the_sawtooth_mean():
    # Two AIMD(1, 1/2) flows in the fluid limit: the sum saws between r/2 and r, so each flow
    # offers (1 + β)/2 · r/2 packets per RTT on average (Cai et al. (11) with α equal).
    r = roundmodel.run({"run": {"engine": "round", "steps": 200_000, "warmup_steps": 20_000,
                                "substeps": 100},
                        "link": {"capacity_pkts": 20},
                        "flows": [{"controller": "gaimd", "params": {"alpha": 1, "beta": 0.5},
                                   "count": 2, "initial_window": 5}]})
    assert r.flows["mean_load_pkts"].to_list() == pytest.approx([7.5, 7.5], rel=0.01)
    assert r.utilization == pytest.approx(0.75, rel=0.01)
