"""`ccscope check`: the theory's verdict on a control (issue section 3)."""

from __future__ import annotations

import math

import pytest

from ccscope.check import Binomial, check, format_report, iscc
from ccscope.errors import ScenarioError


def test_aimd_is_the_monotonic_tcp_friendly_control():
    # Loguinov & Radha §IV-A: AIMD is the only TCP-friendly binomial control with monotonic
    # convergence; s_n = O(n^2); efficiency (2 − β)/2 = 3/4 at β = 1/2 (32).
    r = check("aimd", {"beta": 0.5})
    assert r["monotonic"] and r["converges"] and r["tcp_friendly"]["holds"]
    assert r["loss_exponent"] == 2 and not r["ideal_scalability"]
    assert r["efficiency"]["value"] == pytest.approx(0.75, abs=0.02)


@pytest.mark.parametrize(("name", "exponent"), [("iiad", 3.0), ("sqrt", 2.5)])
def test_iiad_and_sqrt_converge_but_not_monotonically(name, exponent):
    # Loguinov & Radha §IV-B, §V-A: l < 1 breaks (15); IIAD scales as n^3, SQRT as n^2.5.
    r = check(name)
    assert not r["monotonic"] and r["converges"]
    failed = {c["equation"] for c in r["conditions"] if not c["holds"]}
    assert "(15)" in failed
    assert r["loss_exponent"] == exponent


def test_gaimd_is_converted_to_beta_removed():
    r = check("gaimd", {"alpha": 0.2, "beta": 0.875})
    assert r["binomial"]["beta_removed"] == pytest.approx(0.125)
    assert r["tcp_friendly"]["holds"]  # 3·0.125/(2 − 0.125) = 0.2, Loguinov & Radha (5)


def test_iscc_allows_ideal_scalability():
    # (38): l + 2k + 1 = 0 and k + l > 0, e.g. ISCC(−1.5, 2); its increase (k < −1) breaks
    # (21); with m_D = l the decrease slope reaches 1 only at x = C, where it "may touch the
    # fairness line, but not cross it" (Loguinov & Radha footnote 5).
    r = check(iscc(capacity=100.0), x_max=100.0)
    assert r["ideal_scalability"] and r["loss_exponent"] == 0 and r["converges"]
    c = {c["equation"]: c for c in r["conditions"]}
    assert c["(15)"]["holds"] and c["(22)"]["holds"] and not c["(21)"]["holds"]
    assert c["(19)"]["first_violation_x"] == pytest.approx(100.0)
    assert check(iscc(m_d=2.5, capacity=100.0), x_max=100.0)["conditions"][1]["holds"]
    assert not check(Binomial(-1.2, 2.0, 1.0, 0.01, "ISCC(-1.2,2)"))["ideal_scalability"]


def test_diverging_binomial():
    r = check("binomial", {"k": 0.0, "l": 0.0})
    assert not r["converges"]


def test_python_functions():
    linear = check((lambda x: 1.0, lambda x: 0.5 * x))
    assert linear["monotonic"] and "binomial" not in linear
    mimd = check((lambda x: 0.1 * x, lambda x: 0.5 * x))
    assert not mimd["monotonic"]  # (21) must be strict (§III-C)
    with pytest.raises(ScenarioError, match="finite and > 0"):
        check((lambda x: -1.0, lambda x: 0.5 * x))


def test_history_controls_are_refused_with_advice():
    with pytest.raises(ScenarioError, match="increase/decrease functions"):
        check("simd")


def test_report_formats_every_section():
    text = format_report(check("tcp"))
    for part in ("(15)", "(19)", "(21)", "(22)", "O(n^2)", "eq. (28)", "(38)"):
        assert part in text
    assert math.isfinite(check("tcp")["efficiency"]["value"])
