"""Loguinov & Radha 2003 reproduced in the round model (issue checks a–c)."""

from __future__ import annotations

import numpy as np
import pytest

from ccscope.experiments import loguinov


def _row(table, scheme):
    return table.set_index("scheme").loc[scheme]


def test_fig5_aimd_loss_at_one_and_hundred_flows():
    # Loguinov & Radha §V-B (Fig. 5): AIMD1 (λ = 5 kb/s) s_100 = 6755 (≈ n^1.91) with p_100 ≈
    # 10%; AIMD2 (λ = 50 kb/s) s_100 = 352 (≈ n^1.27) with p_100 ≈ 55%. The exponent is the
    # paper's "equivalent" one, log s_100 / log 100.
    table = loguinov.fig5([1, 100], steps=50_000)
    for scheme, s_100, exponent, p_100 in [("AIMD1", 6755, 1.91, 0.10),
                                           ("AIMD2", 352, 1.27, 0.55)]:
        row = _row(table, scheme)
        assert s_100 / 1.3 <= row.s_N <= s_100 * 1.3, scheme
        assert row.exponent_equivalent == pytest.approx(exponent, abs=0.1), scheme
        assert row.p_N == pytest.approx(p_100, abs=0.02), scheme


@pytest.mark.slow
def test_fig5_full_sweep():
    # As above over n = 1…100, and IIAD (MTU/RTT = 10 kb/s): s_100 = 219 889, n^2.67.
    table = loguinov.fig5(steps=200_000)
    for scheme, s_100, exponent, factor, tolerance in [("AIMD1", 6755, 1.91, 1.3, 0.1),
                                                       ("AIMD2", 352, 1.27, 1.3, 0.1),
                                                       ("IIAD", 219_889, 2.67, 3.0, 0.25)]:
        row = _row(table, scheme)
        assert s_100 / factor <= row.s_N <= s_100 * factor, scheme
        assert row.exponent_equivalent == pytest.approx(exponent, abs=tolerance), scheme
        # The least-squares exponent stays below the theory's l + 2k + 1 (37), as in the paper.
        assert row.exponent_fit < row.theory_exponent, scheme


def test_iscc_loss_is_flat_in_n_unlike_aimd_and_a_lone_flow_stays_below_eq42():
    # Loguinov & Radha §V-D/§VI-A: ISCC(k, 2) with l + 2k + 1 ≤ 0 keeps p_n constant in n
    # (k = −1.5 "slowly decaying", k = −1.2 "sufficient"); AIMD's grows as n^2 (37).
    table = loguinov.iscc_table([10, 20, 50, 100], steps=50_000)
    for scheme in loguinov.ISCC:
        row = _row(table, scheme)
        assert abs(row.exponent_fit) < 0.15, scheme
        # A lone flow that knows C overshoots once per cycle, by at most one increase step
        # C/m_I: (42), the worst case of (34), bounds its loss from above.
        assert 0.0 < row.p_1 <= row.eq42, scheme
    assert _row(table, "AIMD1").exponent_fit > 1.5


@pytest.mark.parametrize("n", [1, 50, 150])
def test_binomial_efficiency_matches_eq28(n):
    # Loguinov & Radha Fig. 4 (k = 1/2, W = 100, β = 1/2): the round model's utilization is
    # the exact efficiency (28) at U = W/n, within 1%.
    for l in (0.0, 0.25, 0.5, 0.75, 1.0):  # noqa: E741
        row = loguinov.efficiency(l, n)
        assert row["measured"] == pytest.approx(row["eq28"], rel=0.01), l


def test_scalability_exponent_of_a_power_law():
    n = np.array([1, 10, 100])
    assert loguinov.scalability_exponent(n, n**2.0) == pytest.approx(
        {"equivalent": 2.0, "fit": 2.0})
