"""Loguinov & Radha 2003 in the round model: the helpers of the reproductions (the published
claims themselves are checked by tests/validation/test_reproduce.py)."""

from __future__ import annotations

import numpy as np
import pytest

from ccscope.experiments import loguinov


def test_scalability_exponent_of_a_power_law():
    n = np.array([1, 10, 100])
    assert loguinov.scalability_exponent(n, n**2.0) == pytest.approx(
        {"equivalent": 2.0, "fit": 2.0}
    )


def test_examples_run_with_their_defaults():
    # The round-model page (docs/round-model.md) names loguinov.iscc_table() and cai.friendliness() without arguments.
    from ccscope.experiments import cai

    assert list(loguinov.iscc_table(steps=2_000)["scheme"]) == [*loguinov.ISCC, "AIMD1"]
    row = cai.friendliness(steps=2_000)
    assert (row["beta"], row["r"]) == (0.875, cai.R)


def test_iiad_loss_is_its_orbits_whatever_the_start():
    """Fig. 5's IIAD reason rests on this: with synchronized feedback the run is deterministic
    and forgets its start (p_100 is one periodic orbit, p_1 averages its overshoot's phases),
    and p_1 stays inside (34)'s maximum overshoot."""
    controller, params = loguinov.FIG5["IIAD"]
    starts = (0.1, 0.5, 1.0)
    p100 = [loguinov.loss_rate(controller, params, 100, 20_000, start_share=s) for s in starts]
    assert p100 == pytest.approx([p100[0]] * 3, rel=1e-9)
    p1 = [loguinov.loss_rate(controller, params, 1, 200_000, start_share=s) for s in starts]
    # 0.4%: the spread over 10 start rates from 5% to 100% at 200 000 steps.
    assert p1 == pytest.approx([p1[0]] * 3, rel=4e-3)
    assert 0 < max(p1) <= loguinov.max_overshoot_loss("IIAD", 1)


@pytest.mark.parametrize("steps", [20, 100])
@pytest.mark.parametrize(("ell", "n"), [(0.0, 150), (0.5, 50), (1.0, 1)])
def test_fig4_stepping_bound_holds_for_coarse_steps(steps, ell, n):
    """loguinov-fig4's tolerance is efficiency_stepping_bound: with steps 50 and 10 times as
    coarse as the reproduction's, the round model's error against (28) stays inside it, and the
    bound shrinks with the step."""
    row = loguinov.efficiency(ell, n, steps_per_cycle=steps, cycles=40)
    assert abs(row["measured"] / row["eq28"] - 1) <= row["bound"]
    finer = loguinov.efficiency(ell, n, steps_per_cycle=10 * steps, cycles=4)
    assert finer["bound"] < row["bound"]
