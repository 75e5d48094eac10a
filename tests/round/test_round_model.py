"""The round model's mechanics: overshoot loss, the queue's RTT, capacity changes, feedback
modes, determinism and error messages."""

from __future__ import annotations

import numpy as np
import pytest

import ccscope
from ccscope import roundmodel, theory
from ccscope.errors import ScenarioError


def scenario(flows: list[dict], steps: int = 2000, **link) -> dict:
    link = {"capacity_pkts": 100, **link}
    return {
        "run": {"engine": "round", "steps": steps, "warmup_steps": steps // 4},
        "link": link,
        "flows": flows,
        "record": {"every": 1, "flows": True},
    }


def test_one_tcp_flow_saws_between_half_and_full_capacity():
    # One AIMD(1, 1/2) flow on W = 1000 packets per RTT, no buffer: the window climbs by one
    # packet per RTT and halves after overshooting W, so the link is used (2 − β)/2 = 3/4 of
    # the time (Loguinov & Radha (32), exact for AIMD), within the discreteness of one packet
    # in 500.
    r = roundmodel.run(
        scenario([{"controller": "tcp", "initial_window": 500}], steps=20_000, capacity_pkts=1000)
    )
    assert r.utilization == pytest.approx(0.75, rel=2e-3)
    w = r.flow_series()[0].to_numpy()[2000:]
    # It peaks one packet above W and halves from there: w in [W/2, W + 1].
    assert w.max() == pytest.approx(1001, abs=1e-3) and w.min() == pytest.approx(500, abs=1)
    # Each cycle loses its overshoot, at most one packet: Loguinov & Radha (35) with λ = 1,
    # C = 1000, σ = 1/2 bounds the loss rate.
    assert 0 < r.loss_rate <= theory.aimd_loss_single_flow(1.0, 0.5, 1000.0)


def test_synchronized_flows_stay_fair_and_split_the_link():
    r = roundmodel.run(scenario([{"controller": "tcp", "count": 10, "initial_window": 3}]))
    assert np.allclose(r.series["jain"], 1.0)
    assert r.fairness()["jain"] == pytest.approx(1.0)


def test_queue_adds_delay_and_keeps_the_link_busy_between_knee_and_cliff():
    # Papadimitriou & Zhang (12)–(17): a buffer of B ≥ W packets lets TCP's halving land at or
    # above the knee (β = K_knee/K_cliff = W/(W + B) ≤ 1/2), so the link never idles after the
    # first cycle; the round-trip time grows by queue/C.
    r = roundmodel.run(
        scenario([{"controller": "tcp", "initial_window": 60}], steps=3000, buffer=100)
    )
    s = r.series
    assert s["utilization"].iloc[500:].min() == pytest.approx(1.0)
    c_pps = 100 / 0.1
    expected = 0.1 + np.concatenate([[0.0], s["queue_pkts"].to_numpy()[:-1]]) / c_pps
    np.testing.assert_allclose(s["interval_s"], expected, rtol=1e-12)
    assert s["queue_pkts"].max() == pytest.approx(100.0)
    # Without a buffer the same flow idles a quarter of the time.
    bare = roundmodel.run(scenario([{"controller": "tcp", "initial_window": 60}], steps=3000))
    assert bare.utilization < 0.8


def test_capacity_changes_at_the_scheduled_step():
    r = roundmodel.run(
        scenario(
            [{"controller": "tcp", "initial_window": 10}],
            steps=400,
            capacity_changes=[{"step": 200, "capacity_pkts": 50}],
        )
    )
    cap = r.series["capacity_bps"].to_numpy()
    assert cap[199] == pytest.approx(100 * 8000 / 0.1)
    assert cap[200] == pytest.approx(50 * 8000 / 0.1)
    assert r.flow_series()[0].iloc[300:].max() <= 51


@pytest.mark.parametrize("feedback", ["proportional", {"kind": "bernoulli", "p": 0.01}])
def test_random_feedback_is_a_function_of_the_seed(feedback):
    def run(seed):
        sc = scenario(
            [{"controller": "tcp", "count": 20, "initial_window": 4}],
            feedback=feedback,
            capacity_pkts=97.3,
        )
        sc["run"]["seed"] = seed
        return roundmodel.run(sc).flows["congestion_events"].to_numpy()

    assert np.array_equal(run(1), run(1))
    assert not np.array_equal(run(1), run(2))


def test_bernoulli_loss_matches_its_probability():
    # A link far above the load: every loss is the Bernoulli one, so packets lost over sent is
    # p exactly, and a flow sending m packets sees a loss with probability 1 − (1 − p)^m.
    p, m, steps = 0.02, 10.0, 40_000
    r = roundmodel.run(
        {
            "run": {"engine": "round", "steps": steps},
            "link": {"capacity_pkts": 1e6, "feedback": {"kind": "bernoulli", "p": p}},
            "flows": [
                {
                    "controller": "binomial",
                    "params": {"k": 0, "l": 0, "alpha": 1e-9, "beta": 1e-9},
                    "initial_window": m,
                }
            ],
        }
    )
    assert r.loss_rate == pytest.approx(p, rel=1e-6)
    q = 1 - (1 - p) ** m
    events = r.flows["congestion_events"].iloc[0]
    assert abs(events - q * steps) < 5 * np.sqrt(steps * q * (1 - q))


def test_proportional_feedback_hits_the_bigger_sender_more():
    r = roundmodel.run(
        scenario(
            [
                {"controller": "tcp", "initial_window": 5},
                {"controller": "gaimd", "params": {"alpha": 3, "beta": 0.5}, "initial_window": 5},
            ],
            steps=20_000,
            feedback="proportional",
        )
    )
    small, big = r.flows["lost_pkts"]
    assert big > small


def test_mixed_window_and_rate_flows_share_one_link():
    r = roundmodel.run(
        {
            "run": {"engine": "round", "steps": 5000, "warmup_steps": 1000},
            "link": {"capacity": "1544kbps", "rtt": "100ms"},
            "flows": [
                {"controller": "tcp", "initial_window": 2},
                {
                    "controller": "rate-aimd",
                    "params": {"mtu_per_rtt": 8e4},
                    "initial_rate": "100kbps",
                },
            ],
        }
    )
    assert list(r.flows["rate_based"]) == [False, True]
    assert 0.5 < r.utilization < 1.0


def test_theory_and_model_agree_on_a_single_flow_loss_rate():
    # Loguinov & Radha (35) is the maximum-overshoot loss; the actual overshoot of a rate AIMD
    # flow with λ = 5 kb/s on a T1 is between none and λ, so p_1 is below (35).
    r = roundmodel.run(
        {
            "run": {"engine": "round", "steps": 50_000, "warmup_steps": 5000},
            "link": {"capacity": "1544kbps"},
            "flows": [
                {
                    "controller": "rate-aimd",
                    "params": {"mtu_per_rtt": 5e3},
                    "initial_rate": "700kbps",
                }
            ],
        }
    )
    worst = theory.aimd_loss_single_flow(5e3, 0.5, 1.544e6)
    assert 0 < r.loss_rate < worst


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"flows": [{"controller": "westwood"}]}, "flows[0].controller"),
        ({"flows": [{"controller": "aimd", "params": {"beta": 2}}]}, "flows[0].params.beta"),
    ],
)
def test_engine_errors_name_the_field_as_written(change, field):
    sc = {**scenario([{"controller": "tcp"}]), **change}
    with pytest.raises(ScenarioError) as e:
        roundmodel.run(sc)
    assert e.value.path == field, str(e.value)


def test_unknown_controller_lists_both_catalogues():
    with pytest.raises(ScenarioError, match=r"tcp.*rate-aimd.*iscc"):
        roundmodel.run(scenario([{"controller": "westwood"}]))


def test_a_python_window_controller_runs_in_the_round_model_as_its_catalogued_twin():
    twin = ccscope.WindowController(
        "AIMD-py(1,1/2)", increase=lambda w: 1.0, decrease=lambda w: w / 2
    )
    base = scenario([{"controller": "tcp", "count": 5, "initial_window": 3}], steps=3000)
    python = scenario([{"controller": "python:aimd", "count": 5, "initial_window": 3}], steps=3000)
    catalogued = roundmodel.run(base)
    mine = roundmodel.run(python, controllers={"aimd": twin})
    assert list(mine.flows["name"]) == ["AIMD-py(1,1/2)"] * 5
    # The same rule, so the same windows step by step (Chiu & Jain's synchronized model).
    np.testing.assert_allclose(mine.flows["sent_pkts"], catalogued.flows["sent_pkts"], rtol=1e-12)
    assert mine.summary()["python_controllers"]["0"]["class"] == "WindowController"


class RateAimd(ccscope.RateController):
    """Loguinov & Radha's rate AIMD(1, 1/2) per control interval, in Python."""

    name = "rate-AIMD-py"

    def __init__(self):
        self.rate = 50e3
        self.rounds = 0

    def rate_bps(self):
        return self.rate

    def on_report(self, report):
        raise AssertionError("the round model reports once per interval, through on_round")

    def on_round(self, sample):
        self.rounds += 1
        self.rate = self.rate / 2 if sample["congested"] else self.rate + 8e3 / 0.1


def test_python_rate_controllers_run_in_the_round_model_one_per_flow():
    sc = scenario([{"controller": "python:aimd", "count": 4}], steps=2000)
    r = roundmodel.run(sc, controllers={"aimd": RateAimd})
    assert len({id(c) for c in r.controllers.values()}) == 4
    assert all(c.rounds == 2000 for c in r.controllers.values())
    assert r.flows["rate_based"].all() and 0.5 < r.utilization <= 1


def test_a_rate_controller_without_on_round_is_refused_in_the_round_model():
    class ReportsOnly(RateAimd):
        on_round = ccscope.RateController.on_round

    with pytest.raises(ccscope.ControllerError, match="on_round raised TypeError: .*override") as e:
        roundmodel.run(
            scenario([{"controller": "python:x"}], steps=10), controllers={"x": ReportsOnly}
        )
    assert isinstance(e.value.__cause__, TypeError)
