"""`ccscope check`: what the theory says about an increase/decrease control.

For a catalogued controller, a binomial (k, l, α, β) or Python functions ``increase(x)`` /
``decrease(x)`` (the per-interval step R_I(x) and the reduction R_D(x), in window units), it
checks Loguinov & Radha's monotonic-convergence conditions (15), (19), (21), (22) numerically
over a range of x, and for binomial controls: convergence iff k + l > 0 (Bansal & Balakrishnan,
Loguinov & Radha §IV-B), TCP-friendliness, the packet-loss scalability exponent l + 2k + 1
(37), the efficiency (28) at n flows and the feasibility of ideal scalability (38).

>>> from ccscope.check import check, format_report
>>> print(format_report(check("aimd", {"beta": 0.5})))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import theory
from .errors import ScenarioError

#: Points of the rate range at which the conditions are evaluated (log-spaced).
POINTS = 400

#: Relative step of the central differences for derivatives of Python functions.
_H = 1e-6


@dataclass(frozen=True)
class Binomial:
    """A binomial control in window notation, β removed: ``w ← w + α/w^k``, ``w ← w − β·w^l``
    (Loguinov & Radha (3); Bansal & Balakrishnan)."""

    k: float
    l: float  # noqa: E741
    alpha: float
    beta: float
    name: str


def _catalogue() -> dict[str, dict]:
    from .controllers import catalogue

    return {e["name"]: e for e in catalogue() if e["family"] == "window"}


def binomial_of(name: str, params: dict[str, float] | None = None) -> Binomial:
    """The binomial (k, l, α, β removed) a catalogued window controller runs, with the
    catalogue's defaults; raises :class:`ScenarioError` for controllers that are no
    memoryless binomial control."""
    from .controllers import paper_name

    params = dict(params or {})
    key = name.lower()
    entries = _catalogue()
    if key not in entries:
        raise ScenarioError.at("controller", name, "known: " + ", ".join(entries))
    try:
        label = paper_name(key, params, "window")
    except ValueError as e:
        raise ScenarioError(str(e)) from None
    values = {p["name"]: p["default"] for p in entries[key]["params"]}
    values.update({k.lower(): v for k, v in params.items()})
    beta = values.get("beta")
    if key == "tcp":
        return Binomial(0.0, 1.0, 1.0, 0.5, label)
    if key == "aimd":
        alpha = values["alpha"] or theory.aimd_friendly_alpha_beta_removed(beta)
        return Binomial(0.0, 1.0, alpha, beta, label)
    if key in ("gaimd", "taimd", "dtaimd"):
        rule = (theory.gaimd_friendly_alpha if key == "gaimd"
                else theory.aimd_friendly_alpha_beta_kept)
        alpha = values["alpha"] or rule(beta)
        return Binomial(0.0, 1.0, alpha, 1.0 - beta, label)
    if key == "iiad":
        return Binomial(1.0, 0.0, values["alpha"], beta, label)
    if key == "sqrt":
        return Binomial(0.5, 0.5, values["alpha"], beta, label)
    if key == "binomial":
        return Binomial(values["k"], values["l"], values["alpha"], beta, label)
    raise ScenarioError.at(
        "controller", name, "a history-based control (its increase depends on the last "
        "congestion epoch, Jin et al.); give its increase/decrease functions instead")


def iscc(k: float = -1.5, l: float = 2.0, m_i: float = 20.0, m_d: float = 2.0,  # noqa: E741
         capacity: float = 100.0) -> Binomial:
    """ISCC(k, l) on a link of ``capacity`` (packets per RTT, or any rate unit) as the binomial
    it runs: λ = C^(k+1)/m_I (41), σ = 1/(m_D·C^(l−1)) (39) (Loguinov & Radha §V-D). Check it
    over x ≤ C, the range ISCC keeps its rate in."""
    return Binomial(k, l, theory.iscc_lambda(capacity, k, m_i), theory.iscc_sigma(capacity, l, m_d),
                    f"ISCC({k:g},{l:g})")


def _derivative(f: Callable[[float], float], x: np.ndarray) -> np.ndarray:
    h = _H * x
    return (np.array([f(v) for v in x + h]) - np.array([f(v) for v in x - h])) / (2 * h)


def _condition(holds: np.ndarray, x: np.ndarray, equation: str, meaning: str) -> dict:
    bad = x[~holds]
    return {"equation": equation, "meaning": meaning, "holds": bool(holds.all()),
            "first_violation_x": float(bad[0]) if bad.size else None}


def _conditions(x: np.ndarray, r_i: np.ndarray, r_i_slope: np.ndarray, r_d: np.ndarray,
                r_d_slope: np.ndarray) -> list[dict]:
    # Loguinov & Radha §III: (15), (19) for the decrease; strict (21), (22) for the increase.
    return [
        _condition(np.asarray(theory.decrease_keeps_fairness(x, r_d, r_d_slope)), x, "(15)",
                   "R_D'(x) >= R_D(x)/x: a decrease never lowers fairness"),
        _condition(np.asarray(theory.decrease_no_crossover(r_d_slope)), x, "(19)",
                   "R_D'(x) < 1: a decrease never crosses the fairness line"),
        _condition(np.asarray(theory.increase_keeps_fairness(x, r_i, r_i_slope, strict=True)),
                   x, "(21)", "R_I'(x) < R_I(x)/x: an increase improves fairness"),
        _condition(np.asarray(theory.increase_no_crossover(r_i_slope)), x, "(22)",
                   "R_I'(x) > -1: an increase never crosses the fairness line"),
    ]


def check(
    controller: str | Binomial | tuple[Callable[[float], float], Callable[[float], float]],
    params: dict[str, float] | None = None,
    *,
    x_min: float = 1.0,
    x_max: float = 1000.0,
    window: float = 100.0,
    flows: int = 1,
) -> dict:
    """The theory's verdict on one control, as a dict (what ``--json`` prints).

    ``controller`` is a catalogue name (with ``params``), a :class:`Binomial`, or a pair of
    callables ``(increase, decrease)``: R_I(x) > 0 added per interval and R_D(x) > 0 removed on
    congestion, at window (or rate) x. Conditions are evaluated at ``POINTS`` log-spaced x in
    [x_min, x_max]; the efficiency (28) uses a link of ``window`` packets per RTT shared by
    ``flows`` flows (Loguinov & Radha Fig. 4: W = 100).
    """
    if not (0 < x_min < x_max) or not np.isfinite(x_max):
        raise ScenarioError.at("x_range", [x_min, x_max], "need 0 < x_min < x_max < inf")
    if flows < 1 or not window > 0:
        raise ScenarioError.at("flows/window", [flows, window], "need flows >= 1, window > 0")
    if isinstance(controller, str):
        controller = binomial_of(controller, params)
    x = np.geomspace(x_min, x_max, POINTS)
    if isinstance(controller, Binomial):
        b = controller
        r_i = theory.binomial_increase(x, b.alpha, b.k)
        r_i_slope = theory.binomial_increase_slope(x, b.alpha, b.k)
        r_d = theory.binomial_decrease(x, b.beta, b.l)
        r_d_slope = theory.binomial_decrease_slope(x, b.beta, b.l)
    else:
        increase, decrease = controller
        try:
            r_i = np.array([float(increase(v)) for v in x])
            r_d = np.array([float(decrease(v)) for v in x])
            r_i_slope = _derivative(increase, x)
            r_d_slope = _derivative(decrease, x)
        except (TypeError, ValueError, ArithmeticError) as e:
            raise ScenarioError(f"increase/decrease functions failed: {e}") from None
        # Central differences are exact to ~1e-8 only: a slope that equals R(x)/x within that
        # is the equality of (15) / (21), e.g. for a linear R_D.
        r_i_slope = np.where(np.isclose(r_i_slope, r_i / x, rtol=1e-6), r_i / x, r_i_slope)
        r_d_slope = np.where(np.isclose(r_d_slope, r_d / x, rtol=1e-6), r_d / x, r_d_slope)
        finite = np.isfinite(np.concatenate([r_i, r_d, r_i_slope, r_d_slope]))
        if not finite.all() or (r_i <= 0).any() or (r_d <= 0).any():
            raise ScenarioError.at("increase/decrease", "functions",
                                   f"must be finite and > 0 over [{x_min:g}, {x_max:g}]")
    conditions = _conditions(x, r_i, r_i_slope, r_d, r_d_slope)
    report: dict = {
        "controller": controller.name if isinstance(controller, Binomial) else "functions",
        "range": [x_min, x_max],
        "conditions": conditions,
        "monotonic": all(c["holds"] for c in conditions),
    }
    if isinstance(controller, Binomial):
        report.update(_binomial_report(controller, window, flows))
    return report


def _binomial_report(b: Binomial, window: float, flows: int) -> dict:
    out: dict = {"binomial": {"k": b.k, "l": b.l, "alpha": b.alpha, "beta_removed": b.beta}}
    # Bansal & Balakrishnan; Loguinov & Radha §IV-B: converges iff k + l > 0.
    out["converges"] = b.k + b.l > 0
    # TCP-friendly iff k + l = 1 (Bansal & Balakrishnan) with α = 3β/(2 − β) for AIMD
    # (Loguinov & Radha (5)); for l < 1, α/β = 3/2 (Bansal & Balakrishnan's small-β rule).
    if np.isclose(b.l, 1.0) and np.isclose(b.k, 0.0):
        friendly_alpha = theory.aimd_friendly_alpha_beta_removed(b.beta)
    else:
        friendly_alpha = 1.5 * b.beta
    out["tcp_friendly"] = {
        "k_plus_l_is_1": bool(np.isclose(b.k + b.l, 1.0)),
        "friendly_alpha": float(friendly_alpha),
        "holds": bool(np.isclose(b.k + b.l, 1.0) and np.isclose(b.alpha, friendly_alpha,
                                                                 rtol=1e-3)),
    }
    out["loss_exponent"] = b.l + 2 * b.k + 1  # Loguinov & Radha (37): s_n = O(n^(l+2k+1))
    out["ideal_scalability"] = bool(theory.ideal_scalability_condition(b.k, b.l))  # (38)
    u = window / flows
    try:
        e = theory.binomial_efficiency(b.k, b.l, b.beta, u)  # Loguinov & Radha (28), U = W/n
        out["efficiency"] = {"window": window, "flows": flows, "value": float(e)}
    except ValueError as err:
        out["efficiency"] = {"window": window, "flows": flows, "value": None,
                             "note": str(err)}
    return out


def format_report(report: dict) -> str:
    """The report as text for people."""
    lo, hi = report["range"]
    lines = [f"{report['controller']}: conditions for monotonic convergence to fairness "
             f"(Loguinov & Radha §III), x in [{lo:g}, {hi:g}]"]
    for c in report["conditions"]:
        verdict = "holds" if c["holds"] else f"FAILS (first at x = {c['first_violation_x']:.4g})"
        lines.append(f"  {c['equation']:>5}  {c['meaning']}: {verdict}")
    lines.append(f"  monotonic convergence: {'yes' if report['monotonic'] else 'no'}")
    b = report.get("binomial")
    if b is not None:
        lines.append(f"binomial k = {b['k']:g}, l = {b['l']:g}, alpha = {b['alpha']:.4g}, "
                     f"beta = {b['beta_removed']:.4g} (removed)")
        lines.append(f"  converges to fairness (k + l > 0): "
                     f"{'yes' if report['converges'] else 'no'}")
        f = report["tcp_friendly"]
        lines.append(f"  TCP-friendly: {'yes' if f['holds'] else 'no'} (k + l = 1: "
                     f"{'yes' if f['k_plus_l_is_1'] else 'no'}; friendly alpha = "
                     f"{f['friendly_alpha']:.4g})")
        lines.append(f"  packet-loss scalability: s_n = O(n^{report['loss_exponent']:g}) "
                     f"(l + 2k + 1, eq. (37))")
        e = report["efficiency"]
        value = "n/a: " + e["note"] if e["value"] is None else f"{e['value']:.4f}"
        lines.append(f"  efficiency at n = {e['flows']} on W = {e['window']:g} packets "
                     f"(eq. (28)): {value}")
        lines.append(f"  ideal scalability (38) feasible: "
                     f"{'yes' if report['ideal_scalability'] else 'no'}")
    return "\n".join(lines)
