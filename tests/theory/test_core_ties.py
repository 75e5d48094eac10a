"""Formulas the Rust core and ``ccscope.theory`` both compute, tied together.

The core's controllers run their own copies of the papers' closed forms (the TFRC equation,
the TCP-friendly α rules); ``ccscope check`` analyses the binomial form the core reports for a
catalogued controller. Each test computes the same closed form both ways, or from the paper in
the test, and asks for agreement to rounding: the two sides evaluate the same expression, so
any difference beyond a few ulps is a divergence of the formulas, not of the arithmetic.
"""

import itertools
import math

import numpy as np
import pytest

from ccscope import _core, theory
from ccscope.controllers import catalogue

#: Both sides evaluate one closed form; a few ulps of rounding is all that may separate them.
REL = 1e-12

# --- TFRC throughput equation: RFC 5348 §3.1 (Padhye et al.) --------------------------------

#: Packet sizes (bytes): 1, a 40-byte ACK, 576 (RFC 879), 1000 (Yang et al.), an Ethernet MSS,
#: the largest IPv4 datagram and the largest the core's u32 takes.
SIZES = [1, 40, 576, 1000, 1460, 65535, 2**32 - 1]
#: RTTs (s): 1 µs to 100 s.
RTTS = [1e-6, 1e-3, 0.05, 1.0, 100.0]
#: Loss event rates: vanishing, the papers' range, and the edge p = 1.
LOSS = [1e-12, 1e-8, 1e-4, 0.01, 0.05, 0.2, 0.5, 1.0]


def _t_rtos(rtt):
    """No timeout term, RFC 5348's recommended 4R, ns-2's 1 s floor-like value, a 64 s backoff."""
    return [0.0, 4 * rtt, 1.0, 64.0]


def test_tfrc_equation_matches_the_core():
    # RFC 5348 §3.1: X = s / (R·sqrt(2bp/3) + t_RTO·(3·sqrt(3bp/8))·p·(1 + 32p²)). The core's
    # `tfrc_throughput_bps` fixes b = 1 ("b SHOULD be 1", RFC 5348 §3.1) and returns bits/s.
    b = 1.0
    compared = 0
    for s, rtt, p in itertools.product(SIZES, RTTS, LOSS):
        for t_rto in _t_rtos(rtt):
            python = 8 * theory.tfrc_throughput(s, rtt, p, t_rto, b)
            rust = _core.tfrc_throughput_bps(p, rtt, t_rto, s)
            assert rust == pytest.approx(python, rel=REL, abs=0), (s, rtt, p, t_rto)
            compared += 1
    assert compared == len(SIZES) * len(RTTS) * len(LOSS) * 4


def test_tfrc_default_t_rto_is_four_rtts_in_both():
    for s, rtt, p in itertools.product(SIZES, RTTS, LOSS):
        python = 8 * theory.tfrc_throughput(s, rtt, p)
        assert _core.tfrc_throughput_bps(p, rtt, 4 * rtt, s) == pytest.approx(
            python, rel=REL, abs=0
        )


def test_ns2_clipped_equation_is_the_pftk_approximation():
    # ns-2's formula.h clips 3·sqrt(3p/8) at 1, as the PFTK approximation does (Padhye et al.;
    # Cai et al. (1) with b = 1); without a window limit that is 1/denominator packets/s.
    for s, rtt, p in itertools.product(SIZES, RTTS, LOSS):
        for t_rto in _t_rtos(rtt):
            python = 8 * s * theory.pftk_throughput_approx(p, rtt, t_rto, 1.0)
            rust = _core.tfrc_throughput_bps(p, rtt, t_rto, s, pftk_clip=True)
            assert rust == pytest.approx(python, rel=REL, abs=0), (s, rtt, p, t_rto)


def test_the_clip_matters_only_above_its_knee():
    # 3·sqrt(3p/8) = 1 at p = 8/27: the tie above is not vacuous, the two forms differ beyond.
    rtt, t_rto, s = 0.1, 0.4, 1000
    for p in (0.01, 0.2, 8 / 27 * (1 - 1e-9)):
        assert _core.tfrc_throughput_bps(p, rtt, t_rto, s, pftk_clip=True) == pytest.approx(
            _core.tfrc_throughput_bps(p, rtt, t_rto, s), rel=REL
        )
    for p in (0.5, 1.0):
        clipped = _core.tfrc_throughput_bps(p, rtt, t_rto, s, pftk_clip=True)
        assert clipped > _core.tfrc_throughput_bps(p, rtt, t_rto, s) * (1 + 1e-3)


# --- TCP-friendly α rules ----------------------------------------------------------------------

#: β over (0, 1): edges, the papers' values (1/16, 1/8 Jin et al.; 7/8 Yang et al., Cai et al.;
#: 2/3 Bansal & Balakrishnan; 0.75 Papadimitriou & Zhang) and a uniform grid.
BETAS = sorted(
    {
        1e-12,
        1e-6,
        1 / 16,
        1 / 8,
        0.31,
        0.5,
        2 / 3,
        0.75,
        7 / 8,
        0.9,
        1 - 1e-6,
        1 - 1e-12,
        *np.linspace(0.01, 0.99, 99).tolist(),
    }
)


@pytest.mark.parametrize(
    ("python", "rust", "source"),
    [
        (
            theory.aimd_friendly_alpha_beta_removed,
            _core.friendly_alpha_jin,
            "Loguinov & Radha (5), β removed: 3β/(2 − β)",
        ),
        (
            theory.gaimd_friendly_alpha,
            _core.friendly_alpha_yang,
            "Yang & Lam, Papadimitriou & Zhang (2), β kept: 4(1 − β²)/3",
        ),
        (
            theory.aimd_friendly_alpha_beta_kept,
            _core.friendly_alpha_cai,
            "Cai et al. (13), β kept: 3(1 − β)/(1 + β)",
        ),
    ],
)
def test_friendly_alpha_rules_match_the_core(python, rust, source):
    for beta in BETAS:
        assert rust(beta) == pytest.approx(python(beta), rel=REL, abs=0), (source, beta)


# --- The binomial form of each catalogued window controller ---------------------------------


def _aimd(alpha, beta_removed):
    return (0.0, 1.0, alpha, beta_removed)


def _expected(name, params):
    """The binomial (k, l, α, β removed, from_window) each paper gives for the controller, or
    None for a control with memory."""
    beta = params.get("beta")
    if name == "tcp":
        return (*_aimd(1.0, 0.5), 1.0)  # Jacobson; Jin et al. footnote 1: AIMD(1, 1/2)
    if name == "aimd":
        b = 0.5 if beta is None else beta
        return (*_aimd(params.get("alpha", 3 * b / (2 - b)), b), 1.0)  # Loguinov & Radha (5)
    if name == "gaimd":
        b = 0.875 if beta is None else beta  # β kept: w ← βw removes (1 − β)w
        return (*_aimd(params.get("alpha", 4 * (1 - b * b) / 3), 1 - b), 1.0)  # Yang & Lam
    if name in ("taimd", "dtaimd"):
        b = 0.875 if beta is None else beta
        alpha = params.get("alpha", 3 * (1 - b) / (1 + b))  # Cai et al. (13)
        # Cai et al. §III-C.2: a reduction removes at least one packet, so the rule is
        # w ← βw only once βw ≤ w − 1, w ≥ 1/(1 − β); DTAIMD's α (L1–L2) tests ⌊cwnd⌋.
        bound = 1 / (1 - b)
        return (*_aimd(alpha, 1 - b), math.ceil(bound) if name == "dtaimd" else bound)
    if name in ("iiad", "sqrt"):
        # Bansal & Balakrishnan: IIAD k = 1, l = 0; SQRT k = l = 1/2; α = 1, β = 2/3 (ns-2's
        # test suite; Jin et al. §6 "IIAD(1,2/3)").
        k, l = (1.0, 0.0) if name == "iiad" else (0.5, 0.5)  # noqa: E741
        return (k, l, params.get("alpha", 1.0), params.get("beta", 2 / 3), 1.0)
    if name == "binomial":
        return (params["k"], params["l"], params.get("alpha", 1.0), params.get("beta", 2 / 3), 1.0)
    if name in ("simd", "aiad", "history"):
        return None  # Jin et al. (3)-(4): the increase depends on w_max of the last epoch
    if name in ("cubic", "cubic-2.6.22"):
        return None  # RFC 9438 Figure 1: the window is a function of the time since the event
    if name in ("vegas", "dctcp"):
        return None  # their steps depend on the RTT (Brakmo & Peterson §3.2) or on α (RFC 8257)
    if name in ("bbr", "bbr3", "copa"):
        # Model-based: a window from the estimated bandwidth and RTT (draft-cardwell-iccrg-bbr-
        # congestion-control-00 §4.2.3.2, draft-ietf-ccwg-bbr-06) or the queueing delay
        # (Arun & Balakrishnan §2.1), not from the window alone.
        return None
    raise AssertionError(f"{name}: a catalogued window controller this test does not classify")


CASES = [
    ("tcp", {}),
    ("aimd", {}),
    ("aimd", {"beta": 1 / 16}),
    ("aimd", {"alpha": 0.1, "beta": 1 / 16}),
    ("aimd", {"beta": 1 / 8}),
    ("gaimd", {}),
    ("gaimd", {"beta": 0.75}),
    ("gaimd", {"alpha": 0.31, "beta": 0.875}),
    ("taimd", {}),
    ("taimd", {"beta": 0.9}),
    ("taimd", {"alpha": 3.2, "beta": 0.875}),
    ("dtaimd", {}),
    ("dtaimd", {"beta": 0.9}),
    ("dtaimd", {"beta": 0.7}),
    ("iiad", {}),
    ("iiad", {"alpha": 2.0, "beta": 0.5}),
    ("sqrt", {}),
    ("sqrt", {"beta": 0.25}),
    ("binomial", {"k": 0.25, "l": 0.75}),
    ("binomial", {"k": 2.0, "l": 0.0, "alpha": 3.0}),
    ("simd", {}),
    ("aiad", {}),
    ("history", {"k": 0.5, "l": 1.0, "beta": 0.2}),
    ("cubic", {}),
    ("cubic-2.6.22", {}),
    ("vegas", {}),
    ("dctcp", {}),
    ("bbr", {}),
    ("bbr3", {}),
    ("copa", {}),
]


def test_every_catalogued_window_controller_is_classified():
    names = {e["name"] for e in catalogue() if e["family"] == "window"}
    assert names == {name for name, _ in CASES}
    for name in names:
        _expected(name, {"k": 0.5, "l": 0.5, "beta": 0.5})  # raises for an unclassified one


@pytest.mark.parametrize(("name", "params"), CASES)
def test_core_binomial_form_is_the_papers(name, params):
    form = _core.binomial_form(name, sorted(params.items()))
    expected = _expected(name, params)
    if expected is None:
        assert form is None
        return
    got = (form["k"], form["l"], form["alpha"], form["beta_removed"], form["from_window_pkts"])
    assert got == pytest.approx(expected, rel=REL, abs=0)
    assert form["paper_name"] == _core.controller_name("window", name, sorted(params.items()))


@pytest.mark.parametrize(("name", "params"), [c for c in CASES if _expected(*c) is not None])
def test_the_controller_runs_its_binomial_form(name, params):
    # One round of the built controller from each window w ≥ from_window: the increase is
    # α/w^k and the reduction leaves w − β·w^l (Loguinov & Radha (3)), or one packet, the
    # smallest window any controller keeps.
    form = _core.binomial_form(name, sorted(params.items()))
    k, l, alpha, beta = form["k"], form["l"], form["alpha"], form["beta_removed"]  # noqa: E741
    start = form["from_window_pkts"]
    windows = [w for w in (start, 10.0, 37.5, 100.0, 1e3, 1e4) if w >= start]
    grown, reduced = _core.window_round_steps(name, sorted(params.items()), windows)
    for w, g, r in zip(windows, grown, reduced, strict=True):
        assert g == pytest.approx(w + alpha / w**k, rel=REL), (w, "increase")
        assert r == pytest.approx(max(w - beta * w**l, 1.0), rel=REL), (w, "decrease")


@pytest.mark.parametrize("name", ["taimd", "dtaimd"])
def test_below_from_window_taimd_is_no_binomial(name):
    # Cai et al. §III-C.2, TAIMD(0.2, 0.875): below 1/(1 − β) = 8 packets a reduction removes
    # one packet, and DTAIMD's α is 3/(2⌊w⌋ − 1) (L5–L6), so the AIMD form stops at 8.
    form = _core.binomial_form(name, [])
    assert form["from_window_pkts"] == 8
    (grown,), (reduced,) = _core.window_round_steps(name, [], [7.5])
    assert reduced == pytest.approx(6.5, rel=REL)
    expected_alpha = 3 / (2 * 7 - 1) if name == "dtaimd" else 0.2
    assert grown - 7.5 == pytest.approx(expected_alpha, rel=1e-9)
