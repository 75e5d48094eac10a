"""`ccscope check`: what the theory says about a controller, and what the round model measures
where the theory has nothing to say.

``check`` takes what :func:`ccscope.run` takes: a catalogued controller by name (with params),
``python:module:Object``, a :class:`ccscope.Controller`, :class:`ccscope.RateController` or
:class:`ccscope.WindowController` (or a pair of callables) with the same
convention, ``increase(w)`` the growth per RTT and ``decrease(w)`` the window after a loss, at
window (or rate) w. It also takes a :class:`Binomial` in Loguinov & Radha's notation. In their
terms the control adds R_I(x) = increase(x) per interval and removes R_D(x) = x − decrease(x)
on congestion. A catalogued name resolves through the core: the core reports the binomial
(k, l, α, β removed) the built controller runs (``_core.binomial_form``), so no default or
friendly-α rule of a controller is re-derived here.

``check`` evaluates Loguinov & Radha's monotonic-convergence conditions (15), (19), (21), (22)
numerically over a range of x. For binomial controls it also reports convergence iff k + l > 0
(Bansal & Balakrishnan, Loguinov & Radha §IV-B), TCP-friendliness, the packet-loss scalability
exponent l + 2k + 1 (37), the efficiency (28) at n flows and the feasibility of ideal
scalability (38).

A controller that is not a binomial control (CUBIC, Vegas, Jin et al.'s history-based SIMD, a
rate controller, any :class:`ccscope.Controller`) has no closed form here; ``check`` measures
instead, in the round model (:func:`measured`): its convergence to fairness and efficiency from
Jin et al.'s starting points (§6.3, Table 6 Experiment 1) and its throughput against TCP's on
a shared link, over seeds.

>>> from ccscope.check import check, format_report
>>> print(format_report(check("aimd", {"beta": 0.5})))
>>> from ccscope import WindowController
>>> check(WindowController("AIMD(1/5,1/8)", lambda w: 0.2, lambda w: w * 7 / 8))
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import theory
from .controllers import raised, user_code
from .errors import ControllerError, ScenarioError

#: Points of the rate range at which the conditions are evaluated (log-spaced).
POINTS = 400

#: Relative step of the central differences for derivatives of Python functions.
_H = 1e-6

Step = Callable[[float], float]


@dataclass(frozen=True)
class Binomial:
    """A binomial control in window notation, β removed: ``w ← w + α/w^k``, ``w ← w − β·w^l``
    (Loguinov & Radha (3); Bansal & Balakrishnan). ``from_window``: the controller runs this
    binomial at windows ≥ it only (1: at every window)."""

    k: float
    l: float  # noqa: E741
    alpha: float
    beta: float
    name: str
    from_window: float = 1.0


def binomial_of(name: str, params: dict[str, float] | None = None) -> Binomial:
    """The binomial (k, l, α, β removed) the catalogued window controller ``name`` runs with
    ``params`` and the catalogue's defaults, as the core builds it. Raises
    :class:`ScenarioError` for unknown names, bad parameters and controllers without a
    binomial form (those with memory, those that react to more than loss)."""
    from .controllers import paper_name

    form = _binomial_form(name, params)
    if form is None:
        raise ScenarioError.at(
            "controller",
            name,
            f"{paper_name(name, params)} has no binomial form: its increase depends on more "
            "than the window (a congestion epoch, the time, the RTT); ccscope.check.check "
            "measures it in the round model instead",
        )
    return form


def _binomial_form(name: str, params: dict[str, float] | None) -> Binomial | None:
    """The binomial a catalogued controller runs; None for a window controller without one and
    for a rate or media controller. Unknown names and bad parameters raise
    :class:`ControllerError`."""
    from .controllers import _core, catalogue, paper_name

    family = next((e["family"] for e in catalogue() if e["name"] == name.lower()), "window")
    if family in ("rate", "media"):
        paper_name(name, params, family)
        return None
    form = _core().binomial_form(name, sorted((params or {}).items()))
    if form is None:
        return None
    return Binomial(
        form["k"],
        form["l"],
        form["alpha"],
        form["beta_removed"],
        form["paper_name"],
        form["from_window_pkts"],
    )


def _number(v: object) -> float:
    """``v`` as a float; NaN when it is no number."""
    try:
        return float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan


def _checked(b: Binomial) -> Binomial:
    """``b`` if its fields are in range, else a :class:`ScenarioError` naming the field, its
    value and the allowed range."""
    for name in ("k", "l"):
        if not math.isfinite(_number(getattr(b, name))):
            raise ScenarioError.at(
                f"binomial.{name}", _plain(getattr(b, name)), "must be a finite number"
            )
    alpha, beta = _number(b.alpha), _number(b.beta)
    if not (math.isfinite(alpha) and alpha > 0):
        raise ScenarioError.at(
            "binomial.alpha",
            _plain(b.alpha),
            "must be finite and > 0 (the increase alpha/x^k per interval)",
        )
    if not 0 < beta < 1:
        raise ScenarioError.at(
            "binomial.beta",
            _plain(b.beta),
            "must be in (0, 1) (beta removed: a reduction takes beta·x^l, less than the whole "
            "window at x = 1 packet; Loguinov & Radha (3))",
        )
    return b


def _plain(v: object) -> object:
    """A number as a Python float, so that messages show ``1.5`` and not ``np.float64(1.5)``."""
    n = _number(v)
    return v if math.isnan(n) and not isinstance(v, (float, np.floating)) else n


def parse_binomial(text: str) -> Binomial:
    """The binomial ``k,l,alpha,beta`` (β removed) of ``text``, e.g. ``ccscope check
    --binomial 0.5,0.5,1,0.5``; a :class:`ScenarioError` naming the bad field otherwise."""
    parts = text.split(",")
    try:
        values = [float(v) for v in parts]
    except ValueError:
        values = []
    if len(values) != 4:
        raise ScenarioError.at("--binomial", text, "four numbers k,l,alpha,beta (beta removed)")
    k, l, alpha, beta = values  # noqa: E741
    return _checked(Binomial(k, l, alpha, beta, f"Binomial({text})"))


def iscc(
    k: float = -1.5,
    l: float = 2.0,  # noqa: E741
    m_i: float = 20.0,
    m_d: float = 2.0,
    capacity: float = 100.0,
) -> Binomial:
    """ISCC(k, l) on a link of ``capacity`` (packets per RTT, or any rate unit) as the binomial
    it runs: λ = C^(k+1)/m_I (41), σ = 1/(m_D·C^(l−1)) (39) (Loguinov & Radha §V-D). Check it
    over x ≤ C, the range ISCC keeps its rate in."""
    return Binomial(
        k,
        l,
        theory.iscc_lambda(capacity, k, m_i),
        theory.iscc_sigma(capacity, l, m_d),
        f"ISCC({k:g},{l:g})",
    )


def _derivative(f: Step, x: np.ndarray) -> np.ndarray:
    h = _H * x
    return (np.array([f(v) for v in x + h]) - np.array([f(v) for v in x - h])) / (2 * h)


def _rule(controller: object) -> tuple[str, Step, Step]:
    """(name, increase, decrease) of a :class:`ccscope.WindowController` (or any object with
    ``increase`` and ``decrease`` methods, as :func:`ccscope.run` takes) or of a pair of
    callables (named "functions")."""
    if isinstance(controller, tuple) and len(controller) == 2 and all(map(callable, controller)):
        return "functions", controller[0], controller[1]
    increase = getattr(controller, "increase", None)
    decrease = getattr(controller, "decrease", None)
    if callable(increase) and callable(decrease):
        return str(getattr(controller, "name", type(controller).__name__)), increase, decrease
    raise ScenarioError.at(
        "controller",
        type(controller).__name__,
        "a catalogued window controller's name, a "
        "ccscope.WindowController, a pair (increase, decrease) of callables, or a Binomial",
    )


def _first_bad(bad: np.ndarray, x: np.ndarray, values: np.ndarray) -> tuple[float, float]:
    i = int(np.argmax(bad))
    return float(x[i]), float(values[i])


def _function_steps(
    name: str, increase: Step, decrease: Step, x: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """R_I, R_I', R_D, R_D' of a window rule in ccscope's convention (``decrease`` returns the
    new window): R_I(x) = increase(x), R_D(x) = x − decrease(x)."""
    span = f"over x in [{x[0]:g}, {x[-1]:g}]"

    def removed(v: float) -> float:
        return v - float(decrease(v))

    def failed(e: BaseException) -> ControllerError:
        return ControllerError(
            f"{name}: increase/decrease {raised(e)}",
            "increase/decrease",
            "functions",
            "functions of the window that return a number",
        )

    with user_code(failed):
        r_i = np.array([float(increase(v)) for v in x])
        after = np.array([float(decrease(v)) for v in x])
        with np.errstate(all="ignore"):
            r_i_slope = _derivative(increase, x)
            r_d_slope = _derivative(removed, x)
    bad = ~np.isfinite(r_i) | (r_i <= 0)
    if bad.any():
        v, got = _first_bad(bad, x, r_i)
        raise ScenarioError(
            f"{name}: increase({v:g}) = {got!r}: increase(w), the growth per RTT, must be finite "
            f"and > 0 {span}",
            "increase",
            repr(got),
            "finite and > 0",
        )
    bad = ~np.isfinite(after) | (after < 0) | (after >= x)
    if bad.any():
        v, got = _first_bad(bad, x, after)
        raise ScenarioError(
            f"{name}: decrease({v:g}) = {got!r}: decrease(w) is the window after a loss (not the "
            f"amount removed) and must be finite and in [0, w) {span}",
            "decrease",
            repr(got),
            "finite and in [0, w)",
        )
    if not np.isfinite(np.concatenate([r_i_slope, r_d_slope])).all():
        raise ScenarioError(
            f"{name}: increase/decrease functions must be differentiable {span}",
            "increase/decrease",
            "functions",
            "finite slopes",
        )
    r_d = x - after
    # Central differences are exact to ~1e-8 only: a slope that equals R(x)/x within that
    # is the equality of (15) / (21), e.g. for a linear R_D.
    r_i_slope = np.where(np.isclose(r_i_slope, r_i / x, rtol=1e-6), r_i / x, r_i_slope)
    r_d_slope = np.where(np.isclose(r_d_slope, r_d / x, rtol=1e-6), r_d / x, r_d_slope)
    return r_i, r_i_slope, r_d, r_d_slope


def _binomial_steps(
    b: Binomial, x: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """R_I, R_I', R_D, R_D' of a binomial (Loguinov & Radha (3)), refused with the field to
    blame when a power leaves the floating-point range over ``x``."""
    span = f"over x in [{x[0]:g}, {x[-1]:g}]"
    with np.errstate(all="ignore"):
        r_i = np.asarray(theory.binomial_increase(x, b.alpha, b.k))
        r_i_slope = np.asarray(theory.binomial_increase_slope(x, b.alpha, b.k))
        r_d = np.asarray(theory.binomial_decrease(x, b.beta, b.l))
        r_d_slope = np.asarray(theory.binomial_decrease_slope(x, b.beta, b.l))
    for field, value, what, steps in (
        ("k", b.k, "the increase alpha/x^k", (r_i, r_i_slope)),
        ("l", b.l, "the decrease beta·x^l", (r_d, r_d_slope)),
    ):
        if not (
            np.isfinite(steps[0]).all() and np.isfinite(steps[1]).all() and (steps[0] > 0).all()
        ):
            raise ScenarioError.at(
                f"binomial.{field}", _plain(value), f"{what} must be finite and > 0 {span}"
            )
    return r_i, r_i_slope, r_d, r_d_slope


def _condition(holds: np.ndarray, x: np.ndarray, equation: str, meaning: str) -> dict:
    bad = x[~holds]
    return {
        "equation": equation,
        "meaning": meaning,
        "holds": bool(holds.all()),
        "first_violation_x": float(bad[0]) if bad.size else None,
        "last_violation_x": float(bad[-1]) if bad.size else None,
        "violations": int(bad.size),
        "points": int(x.size),
    }


def _conditions(
    x: np.ndarray, r_i: np.ndarray, r_i_slope: np.ndarray, r_d: np.ndarray, r_d_slope: np.ndarray
) -> list[dict]:
    # Loguinov & Radha §III: (15), (19) for the decrease; strict (21), (22) for the increase.
    return [
        _condition(
            np.asarray(theory.decrease_keeps_fairness(x, r_d, r_d_slope)),
            x,
            "(15)",
            "R_D'(x) >= R_D(x)/x: a decrease never lowers fairness",
        ),
        _condition(
            np.asarray(theory.decrease_no_crossover(r_d_slope)),
            x,
            "(19)",
            "R_D'(x) < 1: a decrease never crosses the fairness line",
        ),
        _condition(
            np.asarray(theory.increase_keeps_fairness(x, r_i, r_i_slope, strict=True)),
            x,
            "(21)",
            "R_I'(x) < R_I(x)/x: an increase improves fairness",
        ),
        _condition(
            np.asarray(theory.increase_no_crossover(r_i_slope)),
            x,
            "(22)",
            "R_I'(x) > -1: an increase never crosses the fairness line",
        ),
    ]


def check(
    controller: str | Binomial | object,
    params: dict[str, float] | None = None,
    *,
    x_min: float = 1.0,
    x_max: float = 1000.0,
    window: float = 100.0,
    flows: int = 1,
    measure: bool | None = None,
) -> dict:
    """The theory's verdict on one controller, as a dict (what ``--json`` prints).

    ``controller`` is what :func:`ccscope.run` takes:

    - a catalogued controller's name, with ``params``: the core reports the binomial a window
      controller runs (:func:`binomial_of`);
    - ``python:module:Object`` (with ``params`` for the class or factory), or a
      :class:`ccscope.Controller` or :class:`ccscope.RateController` (object, class or factory);
    - a :class:`ccscope.WindowController`, or a pair of callables ``(increase, decrease)`` in
      the same convention: ``increase(x)`` > 0 added per interval, ``decrease(x)`` the window
      after a loss, in [0, x). In Loguinov & Radha's terms R_I(x) = increase(x) and
      R_D(x) = x − decrease(x);
    - or a :class:`Binomial` (e.g. :func:`iscc`, :func:`parse_binomial`).

    Conditions are evaluated at ``POINTS`` log-spaced x in [x_min, x_max]; the efficiency (28)
    uses a link of ``window`` packets per RTT shared by ``flows`` flows (Loguinov & Radha
    Fig. 4: W = 100). A controller without a binomial form or increase/decrease functions
    gets ``measured`` (:func:`measured`) instead of the conditions; `measure` true adds it for
    the others too.
    """
    if not (0 < x_min < x_max) or not np.isfinite(x_max):
        raise ScenarioError.at("x_range", [x_min, x_max], "need 0 < x_min < x_max < inf")
    if flows < 1 or not window > 0:
        raise ScenarioError.at("flows/window", [flows, window], "need flows >= 1, window > 0")
    default_rule = None
    if isinstance(controller, str) and controller.startswith("python:"):
        from .controllers import instance

        controller, params = instance(controller, params), None
    if isinstance(controller, str):
        form = _binomial_form(controller, params)
        if form is None:
            from .controllers import _core, catalogue, paper_name

            family = next(
                (e["family"] for e in catalogue() if e["name"] == controller.lower()), "window"
            )
            report = {"controller": paper_name(controller, params, family)}
            if _core().runs_in_rounds(controller.lower(), sorted((params or {}).items())):
                report["measured"] = measured(controller, params)
            else:
                report["measured_note"] = (
                    "not measured: it needs per-ACK or per-packet feedback (delivery rates, "
                    "per-packet RTTs, a media receiver's reports) the round model does not "
                    "give; run it in the packet engine"
                )
            closed = CLOSED_FORMS.get(controller.lower())
            if closed is not None:
                report["theory"] = closed(params or {})
            return report
        if not (params or {}).get("alpha"):
            default_rule = default_alpha_rule(controller)
        spec: object = (controller, params)
        controller = form
    elif params:
        raise ScenarioError.at("params", params, "only for a catalogued controller's name")
    else:
        spec = controller
        if isinstance(controller, type) or _measured_only(controller):
            from .controllers import display_name, instance

            obj = instance(controller)
            return {"controller": display_name(obj), "measured": measured(controller)}
    x = np.geomspace(x_min, x_max, POINTS)
    if isinstance(controller, Binomial):
        name = controller.name
        r_i, r_i_slope, r_d, r_d_slope = _binomial_steps(_checked(controller), x)
    else:
        name, increase, decrease = _rule(controller)
        r_i, r_i_slope, r_d, r_d_slope = _function_steps(name, increase, decrease, x)
    conditions = _conditions(x, r_i, r_i_slope, r_d, r_d_slope)
    report: dict = {
        "controller": name,
        "range": [x_min, x_max],
        "conditions": conditions,
        "monotonic": all(c["holds"] for c in conditions),
    }
    if isinstance(controller, Binomial):
        report.update(_binomial_report(controller, window, flows))
        report["tcp_friendly"]["default_alpha"] = default_rule
        if controller.from_window > x_min:
            report["binomial"]["note"] = (
                f"{name} runs this binomial at windows >= {controller.from_window:.4g} packets "
                f"only; the conditions above assume it over the whole range"
            )
    if measure:
        report["measured"] = (
            measured(*spec) if isinstance(spec, tuple) else measured(_binomial_rule(spec))
        )
    return report


def _measured_only(controller: object) -> bool:
    """Whether `controller` is checked by measurement alone: a :class:`ccscope.Controller` or a
    rate controller, which have no increase/decrease functions."""
    from .controllers import Controller, _is_rate

    return isinstance(controller, Controller) or (
        _is_rate(controller) and not hasattr(controller, "increase")
    )


def _binomial_rule(b: object) -> object:
    """What the round model runs for `b`: a Binomial as the window rule it is."""
    if not isinstance(b, Binomial):
        return b
    from .controllers import WindowController

    return WindowController(
        b.name,
        increase=lambda w: b.alpha / w**b.k,
        decrease=lambda w: max(w - b.beta * w**b.l, 1.0),
    )


def _cubic(params: dict) -> dict:
    """RFC 9438's analysis at the controller's C and β (RTT 100 ms, Tables 1-2's loss rates)."""
    from .theory.cubic import BETA_CUBIC, C_CUBIC, cubic_theory

    return {
        "kind": "cubic",
        **cubic_theory(params.get("c", C_CUBIC), params.get("beta", BETA_CUBIC)),
    }


#: The closed forms of catalogued controllers that are not binomial controls, by catalogue
#: name: each takes the controller's parameters and returns what ``check`` reports of it.
def _defaults(name: str) -> dict:
    """The catalogue's default parameters of controller `name`."""
    from .controllers import catalogue

    entry = next(e for e in catalogue() if e["name"] == name)
    return {p["name"]: p["default"] for p in entry["params"]}


def _vegas(params: dict) -> dict:
    """Brakmo & Peterson's band and Mo et al.'s equilibrium at the controller's α, β, γ."""
    v = _defaults("vegas") | params
    rows = theory.vegas_check_rows(v["alpha"], v["beta"], v["gamma"])
    return {"kind": "rows", "setting": "on any link", "rows": rows}


#: Alizadeh et al. Fig. 12's link in packets per RTT: 10 Gb/s of 1500-byte packets, 100 µs.
DCTCP_FIG12_BDP = 10e9 * 100e-6 / (8 * 1500)


def _dctcp(params: dict) -> dict:
    """Alizadeh et al.'s sawtooth (§3.3-3.4) at the controller's g on Fig. 12's link with two
    flows and K the least whole number of packets above the guideline (13)."""
    v = _defaults("dctcp") | params
    k = math.floor(float(theory.dctcp_min_threshold(DCTCP_FIG12_BDP, 1.0))) + 1  # (13)
    return {
        "kind": "rows",
        "setting": f"on Alizadeh et al. Fig. 12's link (C·RTT = {DCTCP_FIG12_BDP:.1f} packets: "
        f"10 Gb/s, 100 µs, 1500 B) with N = 2 and K = {k} (the least above C·RTT/7)",
        "rows": theory.dctcp_check_rows(v["g"], DCTCP_FIG12_BDP, 1.0, k, 2),
    }


def _bbr(params: dict) -> dict:
    """BBR v1's in-flight cap, queues and ProbeRTT (the draft) and Ware et al.'s share against
    loss-based flows (IMC 2019 (9)-(11)) at the controller's cwnd_gain."""
    v = _defaults("bbr") | params
    return {
        "kind": "rows",
        "setting": "on any link (the shares on Ware et al.'s 10 Mb/s, 40 ms link)",
        "rows": theory.bbr_check_rows(v["cwnd_gain"]),
    }


def _copa(params: dict) -> dict:
    """Copa's equilibrium (Arun & Balakrishnan §2.1) at the controller's δ."""
    v = _defaults("copa") | params
    return {"kind": "rows", "setting": "on any link", "rows": theory.copa_check_rows(v["delta"])}


CLOSED_FORMS: dict[str, Callable[[dict], dict]] = {
    "bbr": _bbr,
    "copa": _copa,
    "cubic": _cubic,
    "vegas": _vegas,
    "dctcp": _dctcp,
}


def _format_theory(t: dict) -> list[str]:
    if t["kind"] == "rows":
        lines = [f"closed forms {t['setting']}:"]
        for r in t["rows"]:
            shown = f"{r['theory']:.4g}" if isinstance(r["theory"], float) else r["theory"]
            lines.append(f"  {r['quantity']}: {shown} ({r['source']})")
        return lines
    if t["kind"] == "cubic":
        lines = [
            f"{t['source']}, RTT {t['rtt_s'] * 1e3:g} ms: alpha_cubic = {t['alpha_cubic']:.4g}; "
            f"Reno-friendly region for p > {t['reno_friendly_above_p']:.4g}",
            "  p          CUBIC's average window (packets)   region",
        ]
        for row in t["windows"]:
            lines.append(f"  {row['p']:<10.4g} {row['window']:<34.4g} {row['region']}")
        return lines
    return []


#: Jin et al. §6.3: "W ≈ 110" packets per RTT, the link of their Table 6.
MEASURE_W = 110.0
#: Jin et al. Table 6, Experiment 1's starting windows (6–8 and 96–100 packets).
MEASURE_START = (7.0, 99.0)
#: Jin et al. §6.3.1: windows within ε = 10 packets are fair.
MEASURE_EPSILON = 10.0
#: Seeds of the friendliness runs (proportional feedback draws at random).
MEASURE_SEEDS = (1, 2, 3, 4, 5)


def measured(
    controller: object, params: dict[str, float] | None = None, *, steps: int = 20_000
) -> dict:
    """What the round model measures of a controller, where no closed form applies:

    - convergence: two flows of it with synchronized feedback (Chiu & Jain; Jin et al.
      App. C) on a link of W = 110 packets per RTT of 100 ms, no buffer, from windows 7 and 99
      (Jin et al. Table 6, Experiment 1): T2, the RTTs until their windows stay within
      ε = 10 packets (Jin et al. §6.3.1), and the link's utilization once they do;
    - friendliness: two flows of it and two of TCP, drops in proportion to load (as a
      DropTail or RED queue spreads them), a buffer of one bandwidth-delay product, over
      five seeds: the ratio of its mean throughput to TCP's, with a 95% interval. It is
      TCP-friendly in Floyd & Fall's sense (no more than a conformant TCP's long-term
      throughput under the same conditions) when the interval reaches down to 1 or below.

    `controller` is a catalogued name (with `params`) or what :func:`ccscope.run` runs as
    ``python:NAME``; a rate controller starts at the same rate as a window of that many
    packets would send."""
    from . import roundmodel

    supplied: dict = {}
    if isinstance(controller, str):
        ctl: object = {"name": controller, **(params or {})}
    else:
        ctl, supplied = "python:checked", {"checked": controller}
    rtt_s, bits = 0.1, 8000.0

    def group(w: float, count: int = 1, name: object = ctl) -> dict:
        return {
            "controller": name,
            "count": count,
            "initial_window": w,
            "initial_rate": f"{w * bits / rtt_s:g}bps",
        }

    link = {"capacity_pkts": MEASURE_W, "rtt": "100ms"}
    two = roundmodel.run(
        {
            "run": {"engine": "round", "steps": steps},
            "link": link,
            "flows": [group(w) for w in MEASURE_START],
            "record": {"every": 1, "flows": True},
        },
        controllers=supplied,
    )
    loads = two.flow_series().to_numpy()
    apart = np.flatnonzero(np.abs(loads[:, 0] - loads[:, 1]) >= MEASURE_EPSILON)
    t2 = int(apart[-1]) + 1 if apart.size else 0
    converged = t2 < steps
    settled = two.series["utilization"].to_numpy()[t2:] if converged else np.array([])
    ratios = []
    for seed in MEASURE_SEEDS:
        shared = roundmodel.run(
            {
                "run": {
                    "engine": "round",
                    "steps": steps,
                    "warmup_steps": steps // 10,
                    "seed": seed,
                },
                "link": {**link, "buffer": MEASURE_W, "feedback": "proportional"},
                "flows": [group(MEASURE_W / 4, 2), group(MEASURE_W / 4, 2, "tcp")],
            },
            controllers=supplied,
        )
        sent = shared.flows["sent_pkts"].to_numpy()
        ratios.append(float(sent[:2].mean() / sent[2:].mean()) if sent[2:].sum() else math.inf)
    mean = float(np.mean(ratios))
    ci = float(_t95(len(ratios)) * np.std(ratios, ddof=1) / math.sqrt(len(ratios)))
    return {
        "model": "round model (one step per RTT of 100 ms), Jin et al. §6.3's link of "
        f"W = {MEASURE_W:g} packets per RTT",
        "convergence": {
            "start_pkts": list(MEASURE_START),
            "epsilon_pkts": MEASURE_EPSILON,
            "t2_rtts": t2 if converged else None,
            "converged": converged,
            "utilization": float(settled.mean()) if settled.size else None,
            "source": "Jin et al. §6.3.1, Table 6 Experiment 1",
        },
        "friendliness": {
            "ratio": mean,
            "ci95": ci,
            "seeds": len(ratios),
            "holds": bool(mean - ci <= 1.0),
            "setup": "2 flows against 2 TCP flows, proportional drops, buffer 1 BDP",
            "definition": "Floyd & Fall 1999: no more than a conformant TCP's long-term "
            "throughput under the same conditions",
        },
    }


def _t95(n: int) -> float:
    """Student's t quantile for a two-sided 95% interval of the mean of n samples."""
    from scipy import stats

    return float(stats.t.ppf(0.975, n - 1))


def _binomial_report(b: Binomial, window: float, flows: int) -> dict:
    out: dict = {
        "binomial": {
            "k": b.k,
            "l": b.l,
            "alpha": b.alpha,
            "beta_removed": b.beta,
            "from_window": b.from_window,
        }
    }
    # Bansal & Balakrishnan; Loguinov & Radha §IV-B: converges iff k + l > 0.
    out["converges"] = b.k + b.l > 0
    rules = friendly_rules(b)
    k_plus_l = bool(np.isclose(b.k + b.l, 1.0))
    out["tcp_friendly"] = {
        "k_plus_l_is_1": k_plus_l,
        "rules": rules,
        "friendly_alpha": rules[0]["alpha"],
        "holds": k_plus_l and any(r["holds"] for r in rules),
    }
    out["loss_exponent"] = b.l + 2 * b.k + 1  # Loguinov & Radha (37): s_n = O(n^(l+2k+1))
    out["ideal_scalability"] = bool(theory.ideal_scalability_condition(b.k, b.l))  # (38)
    u = window / flows
    efficiency: dict = {"window": window, "flows": flows, "value": None}
    try:
        with np.errstate(all="ignore"):
            e = float(theory.binomial_efficiency(b.k, b.l, b.beta, u))  # (28), U = W/n
    except ValueError:
        e = math.nan
    if math.isfinite(e):
        efficiency["value"] = e
    elif b.k in (-1.0, -2.0):
        efficiency["note"] = f"(28) has no value at k = {b.k:g}"
    else:
        with np.errstate(all="ignore"):
            removed = b.beta * u**b.l
        efficiency["note"] = (
            f"a reduction at the fair share U = {u:g} removes beta·U^l = {removed:.4g}; (28) "
            f"needs it to leave L = U - beta·U^l >= 0 (Loguinov & Radha (29); > 0 for k < -1)"
        )
    out["efficiency"] = efficiency
    return out


def friendly_rules(b: Binomial) -> list[dict]:
    """The TCP-friendly α of a binomial by each model that gives one, with whether ``b.alpha``
    meets it. A binomial is TCP-friendly only with k + l = 1 (Bansal & Balakrishnan); the α
    that matches TCP then depends on the model of TCP it is equated with:

    - AIMD, TCP as a periodic sawtooth without timeouts: α = 3β/(2 − β), β removed
      (Loguinov & Radha (5), Jin et al. (4); Cai et al. (13) write it 3(1 − b)/(1 + b) with
      b = 1 − β kept);
    - AIMD, TCP as Padhye et al.'s model with timeouts: α = 4(1 − b²)/3, b = 1 − β kept
      (Yang & Lam, chosen for GAIMD; Cai et al. (15));
    - l < 1: α/β = 3/2 (Bansal & Balakrishnan, small β).
    """
    if np.isclose(b.l, 1.0) and np.isclose(b.k, 0.0):
        kept = 1.0 - b.beta
        rules = [
            (
                "3β/(2 − β)",
                "Loguinov & Radha (5), Jin et al. (4), Cai et al. (13)",
                "sawtooth model, no timeouts",
                theory.aimd_friendly_alpha_beta_removed(b.beta),
            ),
            (
                "4(1 − b²)/3, b = 1 − β",
                "Yang & Lam (GAIMD), Cai et al. (15)",
                "Padhye et al.'s model, timeouts",
                4.0 * (1.0 - kept * kept) / 3.0,
            ),
        ]
    else:
        rules = [("3β/2", "Bansal & Balakrishnan", "k + l = 1, small β", 1.5 * b.beta)]
    return [
        {
            "rule": rule,
            "source": source,
            "model": model,
            "alpha": float(alpha),
            "holds": bool(np.isclose(b.alpha, alpha, rtol=1e-3)),
        }
        for rule, source, model, alpha in rules
    ]


def default_alpha_rule(name: str) -> str | None:
    """What the catalogue says a controller's default α is (e.g. "default the TCP-friendly
    4(1 − β²)/3 (Yang & Lam)"), or None."""
    from .controllers import catalogue

    for entry in catalogue():
        if entry["name"] == name:
            for p in entry["params"]:
                if p["name"] == "alpha" and "default" in p["meaning"]:
                    return p["meaning"][p["meaning"].index("default") :]
    return None


def _verdict(c: dict) -> str:
    """'holds', or where a condition fails: the range of x and how many of the points."""
    if c["holds"]:
        return "holds"
    lo, hi = c["first_violation_x"], c["last_violation_x"]
    where = f"at x = {lo:.4g}" if lo == hi else f"for x in [{lo:.4g}, {hi:.4g}]"
    return f"FAILS {where} ({c['violations']} of {c['points']} points)"


def _format_measured(m: dict) -> list[str]:
    c, f = m["convergence"], m["friendliness"]
    t2 = (
        f"T2 = {c['t2_rtts']} RTTs to windows within {c['epsilon_pkts']:g} packets, then "
        f"utilization {c['utilization']:.4f}"
        if c["converged"]
        else f"no: the windows were still {c['epsilon_pkts']:g} packets apart or more at the end"
    )
    return [
        f"measured in the {m['model']}:",
        f"  converges to fairness from windows {c['start_pkts'][0]:g} and "
        f"{c['start_pkts'][1]:g} ({c['source']}): {t2}",
        f"  throughput against TCP's ({f['setup']}, {f['seeds']} seeds): {f['ratio']:.4g} "
        f"± {f['ci95']:.2g} (95%); TCP-friendly: {'yes' if f['holds'] else 'no'} "
        f"({f['definition']})",
    ]


def format_report(report: dict) -> str:
    """The report as text for people."""
    if "conditions" not in report:
        if "theory" in report:
            head = [
                f"{report['controller']}: not a binomial control",
                *_format_theory(report["theory"]),
            ]
        else:
            head = [f"{report['controller']}: no closed form applies"]
        if "measured" in report:
            return "\n".join([*head, *_format_measured(report["measured"])])
        return "\n".join([*head, report["measured_note"]])
    lo, hi = report["range"]
    lines = [
        f"{report['controller']}: conditions for monotonic convergence to fairness "
        f"(Loguinov & Radha §III), x in [{lo:g}, {hi:g}]"
    ]
    for c in report["conditions"]:
        lines.append(f"  {c['equation']:>5}  {c['meaning']}: {_verdict(c)}")
    lines.append(
        f"  monotonic convergence: {'yes' if report['monotonic'] else 'no'} (every "
        "step moves the flows toward fairness, §III)"
    )
    b = report.get("binomial")
    if b is not None:
        lines.append(
            f"binomial k = {b['k']:g}, l = {b['l']:g}, alpha = {b['alpha']:.4g}, "
            f"beta = {b['beta_removed']:.4g} (removed)"
        )
        if b.get("note"):
            lines.append(f"  note: {b['note']}")
        lines.append(
            f"  converges to fairness (k + l > 0): "
            f"{'yes' if report['converges'] else 'no'} (in the end, possibly "
            "overshooting on the way, §IV-B)"
        )
        f = report["tcp_friendly"]
        lines.append(
            f"  TCP-friendly: {'yes' if f['holds'] else 'no'} (k + l = 1: "
            f"{'yes' if f['k_plus_l_is_1'] else 'no'}; alpha = {b['alpha']:.4g} "
            "against each model's friendly alpha:)"
        )
        for r in f["rules"]:
            lines.append(
                f"    {r['rule']} = {r['alpha']:.4g}: {'met' if r['holds'] else 'not met'}"
                f" ({r['model']}: {r['source']})"
            )
        if f.get("default_alpha"):
            lines.append(f"    this controller's alpha is by {f['default_alpha']}")
        lines.append(
            f"  packet-loss scalability: s_n = O(n^{report['loss_exponent']:g}) "
            f"(l + 2k + 1, eq. (37))"
        )
        e = report["efficiency"]
        value = "n/a: " + e["note"] if e["value"] is None else f"{e['value']:.4f}"
        lines.append(
            f"  efficiency at n = {e['flows']} on W = {e['window']:g} packets (eq. (28)): {value}"
        )
        lines.append(
            f"  ideal scalability (38) feasible: {'yes' if report['ideal_scalability'] else 'no'}"
        )
    if "measured" in report:
        lines += _format_measured(report["measured"])
    return "\n".join(lines)
