"""`ccscope check`: the theory's verdict on a control (issue section 3)."""

from __future__ import annotations

import math

import pytest

from ccscope import WindowController
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


@pytest.mark.parametrize("beta", [0.1, 0.3, 0.5, 0.8, 0.875, 0.95])
def test_every_gaimd_converges_monotonically(beta):
    # A linear decrease meets (15) with equality at every x (Loguinov & Radha §III-A): no β may
    # fail it at a point where rounding puts R_D(x)/x a bit above R_D'(x).
    r = check("gaimd", {"beta": beta, "alpha": 0.5})
    assert r["monotonic"], [c for c in r["conditions"] if not c["holds"]]


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


def test_controls_without_a_binomial_form_are_measured_in_the_round_model():
    simd = check("simd")
    assert "conditions" not in simd and simd["controller"] == "SIMD(1/16)"
    conv, friendly = simd["measured"]["convergence"], simd["measured"]["friendliness"]
    # Jin et al. Table 6, Experiment 1: SIMD(1/16) from (6.6, 96.3) to within ε = 10 packets in
    # 852 RTTs by their analysis; the start here, (7, 99), is within a few packets of it.
    assert conv["converged"] and 0.5 * 852 <= conv["t2_rtts"] <= 2 * 852
    assert 0.9 <= conv["utilization"] <= 1.0
    # SIMD is TCP-friendly by construction (Jin et al. (4)).
    assert friendly["holds"] and friendly["seeds"] == 5
    assert "measured in the round model" in format_report(simd)


def test_vegas_and_dctcp_get_their_own_closed_forms_beside_the_measurement():
    vegas = check("vegas", {"alpha": 1.0, "beta": 3.0})
    rows = {r["quantity"]: r["theory"] for r in vegas["theory"]["rows"]}
    # Brakmo & Peterson §3.2: each flow keeps α to β packets queued; Mo et al.: rates within
    # β/α of each other.
    assert rows["packets each flow keeps queued in equilibrium"] == "[1, 3]"
    assert rows["largest ratio of two flows' throughputs, whatever their RTTs"] == 3.0
    assert "measured" in vegas and vegas["controller"] == "Vegas(1,3)"
    # Alizadeh et al. on Fig. 12's link, C·RTT = 83.3 packets, with N = 2: K = 12 by (13),
    # Q_max = K + N (10).
    dctcp = check("dctcp")
    rows = {r["source"]: r["theory"] for r in dctcp["theory"]["rows"]}
    assert "K = 12" in dctcp["theory"]["setting"]
    assert rows["Alizadeh et al. (10)"] == 14.0
    assert rows["Alizadeh et al. (13)"] == "holds"
    text = format_report(dctcp)
    assert "Alizadeh et al. (8)" in text and "measured in the round model" in text
    assert "theory" not in check("simd")


def test_measured_friendliness_tells_an_aggressive_control_from_tcp():
    # Against itself TCP gets its own share; AIMD(1, 1/8) adds five times the friendly
    # α = 3β/(2 − β) = 0.2 of its β (Loguinov & Radha (5)) and takes more than TCP.
    assert check("tcp", measure=True)["measured"]["friendliness"]["holds"]
    greedy = check("aimd", {"alpha": 1.0, "beta": 0.125}, measure=True)["measured"]
    assert not greedy["friendliness"]["holds"]
    assert greedy["friendliness"]["ratio"] > 1.5


def test_report_formats_every_section():
    text = format_report(check("tcp"))
    for part in ("(15)", "(19)", "(21)", "(22)", "O(n^2)", "eq. (28)", "(38)"):
        assert part in text
    assert math.isfinite(check("tcp")["efficiency"]["value"])


# --- what `run` takes: catalogued names resolved by the core, WindowController objects ----------


def _holds(report):
    return {c["equation"]: c["holds"] for c in report["conditions"]}


def test_a_window_controller_gets_the_verdict_of_the_catalogued_control():
    # AIMD(1/5, 1/8) written as ccscope.run takes it: decrease(w) is the window after a loss,
    # so R_D(w) = w − 7w/8 = w/8, the binomial k = 0, l = 1, β = 1/8 (Loguinov & Radha (3)).
    aimd = WindowController("AIMD(1/5,1/8)", increase=lambda w: 0.2, decrease=lambda w: w * 7 / 8)
    by_object, by_name = check(aimd), check("aimd", {"beta": 1 / 8})
    assert by_object["controller"] == "AIMD(1/5,1/8)" == by_name["controller"]
    assert _holds(by_object) == _holds(by_name) == dict.fromkeys(_holds(by_name), True)
    # IIAD(1, 2/3): +1/w per RTT, w − 2/3 after a loss; (15) fails at every w as for the name.
    # From w = 2: at w = 1 its R_I' = −1 sits on the edge of (22), which a numerical slope
    # cannot decide.
    iiad = WindowController("iiad", increase=lambda w: 1 / w, decrease=lambda w: w - 2 / 3)
    by_object, by_name = check(iiad, x_min=2.0), check("iiad", x_min=2.0)
    assert _holds(by_object) == _holds(by_name)
    assert not _holds(by_object)["(15)"]


def test_functions_take_the_new_window_as_run_does():
    # A pair (increase, decrease) uses the same convention: decrease(w) = w − 1/2 removes a
    # constant 1/2 (additive decrease, R_D' = 0 < R_D/w: (15) fails, (19) holds). Read as "the
    # amount removed" it would be R_D = w − 1/2, whose slope 1 breaks (19) instead.
    r = _holds(check((lambda w: 1.0, lambda w: w - 0.5)))
    assert not r["(15)"] and r["(19)"]


def test_a_subclass_overriding_the_methods_is_checked():
    class Mimd(WindowController):
        def increase(self, w):
            return 0.1 * w

        def decrease(self, w):
            return 0.5 * w

    r = check(Mimd("MIMD"))
    assert r["controller"] == "MIMD" and not _holds(r)["(21)"]  # §III-C: (21) is strict


def test_a_decrease_that_is_no_reduction_is_refused_naming_it():
    # decrease(w) must be the window after a loss, in [0, w): w itself removes nothing.
    with pytest.raises(ScenarioError, match=r"decrease\(1\) = 1\.0.*window after a loss"):
        check(WindowController("none", increase=lambda w: 1.0, decrease=lambda w: w))
    with pytest.raises(ScenarioError, match=r"decrease\(1\) = -1\.0"):
        check((lambda w: 1.0, lambda w: -1.0))
    with pytest.raises(ScenarioError, match="give increase="):
        check(WindowController("half"))
    with pytest.raises(ScenarioError, match="only for a catalogued"):
        check(WindowController("x", lambda w: 1.0, lambda w: w / 2), {"beta": 0.5})


def test_names_resolve_through_the_core():
    # The core's defaults: GAIMD's α = 4(1 − β²)/3 = 0.3125 at β = 7/8 kept (Yang & Lam), as a
    # binomial β removed = 1/8.
    r = check("gaimd")
    assert r["controller"] == "GAIMD(0.3125,0.875)"
    assert r["binomial"]["alpha"] == 0.3125 and r["binomial"]["beta_removed"] == 0.125
    with pytest.raises(ScenarioError, match=r"controller\.beta = 1\.5"):
        check("gaimd", {"beta": 1.5})
    with pytest.raises(ScenarioError, match="westwood"):
        check("westwood")


def test_taimd_says_where_its_binomial_holds():
    # Cai et al. §III-C.2: TAIMD(0.2, 0.875) is AIMD only at windows >= 1/(1 − β) = 8.
    r = check("taimd")
    assert r["binomial"]["from_window"] == 8 and "windows >= 8 packets" in r["binomial"]["note"]
    assert "note" not in check("taimd", x_min=8.0)["binomial"]


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ((1.0, 1.0, 1.0, 1.5), r"binomial\.beta = 1\.5: must be in \(0, 1\)"),
        ((1.0, 1.0, -1.0, 0.5), r"binomial\.alpha = -1: must be finite and > 0"),
        ((math.nan, 1.0, 1.0, 0.5), r"binomial\.k = nan: must be a finite number"),
        ((-400.0, 1.0, 1.0, 0.5), r"binomial\.k = -400: the increase .* over x in \[1, 1000\]"),
    ],
)
def test_binomial_fields_out_of_range_are_named(fields, named):
    with pytest.raises(ScenarioError, match=named):
        check(Binomial(*fields, "b"))


def test_every_friendly_alpha_rule_is_shown_with_its_model():
    # GAIMD's default α = 4(1 − b²)/3 = 0.3125 at b = 7/8 (Yang & Lam); the sawtooth rule
    # 3β/(2 − β) gives 0.2 at β = 1/8 removed (Loguinov & Radha (5)).
    r = check("gaimd")
    rules = {x["rule"]: x for x in r["tcp_friendly"]["rules"]}
    assert rules["3β/(2 − β)"]["alpha"] == pytest.approx(3 * 0.125 / (2 - 0.125))
    assert not rules["3β/(2 − β)"]["holds"]
    assert rules["4(1 − b²)/3, b = 1 − β"]["alpha"] == pytest.approx(4 * (1 - 0.875**2) / 3)
    assert rules["4(1 − b²)/3, b = 1 − β"]["holds"]
    assert r["tcp_friendly"]["holds"] and "Yang & Lam" in r["tcp_friendly"]["default_alpha"]
    assert "Yang & Lam" in format_report(r)


def test_iiad_fails_22_only_where_the_paper_says():
    # IIAD, R_I(x) = α/x with α = 1: R_I'(x) = −1/x² > −1 iff x > 1 (Loguinov & Radha (22)),
    # so over [1, 1000] only x = 1 fails; (15) fails everywhere (R_D constant, §IV-B).
    r = check("iiad")
    c22 = next(c for c in r["conditions"] if c["equation"] == "(22)")
    assert c22["first_violation_x"] == c22["last_violation_x"] == 1.0
    assert c22["violations"] == 1
    assert check("iiad", x_min=1.01)["conditions"][3]["holds"]
    text = format_report(r)
    assert "FAILS at x = 1 (1 of 400 points)" in text and "§IV-B" in text


def test_cubic_is_checked_against_rfc_9438_and_measured():
    from ccscope.theory.cubic import cubic_reno_friendly_loss_rate

    report = check("cubic", {"beta": 0.8})
    t = report["theory"]
    # RFC 9438 §4.3: α_cubic = 3(1 − β)/(1 + β); the region's edge at the user's β.
    assert t["alpha_cubic"] == pytest.approx(3 * 0.2 / 1.8)
    assert t["reno_friendly_above_p"] == pytest.approx(cubic_reno_friendly_loss_rate(0.1, 0.4, 0.8))
    assert report["measured"]["convergence"]["converged"]
    assert "Reno-friendly region for p >" in format_report(report)


def test_bbr_and_copa_get_their_closed_forms_and_no_round_model_measurement():
    # BBR and Copa need per-ACK feedback, which the round model refuses: check reports the
    # theory (draft-cardwell-iccrg-bbr-congestion-control-00, Ware et al. (9)-(11); Copa §2.1)
    # and says why nothing is measured.
    bbr = check("bbr", {"cwnd_gain": 3.0})
    rows = {r["quantity"]: r["theory"] for r in bbr["theory"]["rows"]}
    assert rows["in-flight cap (BDPs)"] == 3.0
    assert rows["queue of two or more flows (BDPs)"] == 2.0
    assert "measured" not in bbr and "per-ACK" in bbr["measured_note"]
    copa = check("copa", {"delta": 0.25})
    rows = {r["quantity"]: r["theory"] for r in copa["theory"]["rows"]}
    assert rows["packets each flow keeps queued at its target rate"] == 4.0
    assert "run it in the packet engine" in format_report(copa)
    bbr3 = format_report(check("bbr3"))
    assert "no closed form applies" in bbr3 and "per-ACK" in bbr3
