"""One table for one controller, beside TCP and beside theory, in the papers' terms.

>>> card = ccscope.scorecard.scorecard("gaimd", {"beta": 0.875}, quick=True)
>>> card["rows"][0]   # section, quantity, theory, controller, tcp, source

The controller is a window, rate or media controller of the catalogue (a media controller, GCC,
NADA or SCReAM, runs the RTP media transport driving RFC 8593's encoder), or
``python:module:Object``: a
:class:`ccscope.Controller`, :class:`ccscope.WindowController` or :class:`ccscope.RateController`
(an instance, class or factory) in ``module.py`` beside the working directory, with parameters
as a scenario gives them. Theory rows need a binomial form, and give the round model's
measured convergence and friendliness otherwise (``ccscope check``); round-model rows run
window controllers; the packet rows run every controller. Rows:

- theory (``ccscope check``): the binomial form, TCP-friendliness and the loss-scalability
  exponent l + 2k + 1 (Loguinov & Radha (5), (37));
- round model: efficiency of 10 synchronized flows on 100 packets per RTT beside (28); the
  loss-scalability exponent of p_n over n = 10…100 flows beside (37); Jin et al.'s convergence
  times T1 (to efficiency) and T2 (to fairness) from Table 6's starting points, beside App. C
  where it has a formula;
- packet model, through the sweep machinery (parallel, cached in a store): the
  TCP-friendliness ratio (the controller's mean throughput over TCP's, two flows each) on a RED
  and a DropTail dumbbell; Yang et al.'s CoV_time at 2% and 20% Bernoulli loss beside their
  (4) and (B.2); Yang et al.'s aggressiveness I, the slope of the per-RTT sending rate over
  the 30 RTTs after Bernoulli loss steps from 10% to 0% (§5.2), beside their bound (§5.1,
  Table 1); Jin et al.'s 1/aggressiveness and 1/responsiveness beside a CBR square wave
  (§6.2.4) beside Table 3; playback interruptions and Papadimitriou & Zhang's VDI of the
  controller's media flow in Cai et al.'s Table I set-up, beside the TCP elephants' of the same
  runs; each with the mean and 95% CI over seeds.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import roundmodel, theory
from .check import check
from .controllers import Controller, RateController, WindowController, display_name, instance
from .errors import ScenarioError
from .experiments import jin, loguinov, yang


def default_store() -> Path:
    """Where scorecards cache their runs: $XDG_CACHE_HOME/ccscope/scorecard-model<N>.duckdb, one
    store per model version (a store holds the runs of one)."""
    from . import _core

    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ccscope" / f"scorecard-model{_core.MODEL_VERSION}.duckdb"


#: How a row's theory and measurement are compared (its ``agreement`` field): the theory inside
#: the 95% interval of the mean over seeds; an upper bound at or above its lower end; for the
#: deterministic round model, within the stated error of the approximation.
INSIDE_CI = "inside the 95% CI over seeds"
BOUND_CI = "at most the bound, within the 95% CI over seeds"


def _row(
    section: str,
    quantity: str,
    theory_value: Any,
    mine: Any,
    tcp: Any,
    source: str,
    agreement: str = INSIDE_CI,
    rel: float | None = None,
) -> dict[str, Any]:
    """One row; ``agrees`` says whether `theory_value` and the controller's measurement agree
    by ``agreement``: "yes", "no", or "—" where either is not a number."""

    def plain(x):
        return x.item() if isinstance(x, np.generic) else x

    return {
        "section": section,
        "quantity": quantity,
        "theory": plain(theory_value),
        "controller": plain(mine),
        "tcp": plain(tcp),
        "source": source,
        "agreement": agreement,
        "agrees": _agrees(plain(theory_value), plain(mine), agreement, rel),
    }


def _agrees(theory_value: Any, mine: Any, agreement: str, rel: float | None = None) -> str:
    """`rel`: for a deterministic measurement, the relative error the approximation states."""
    if isinstance(theory_value, bool) or not isinstance(theory_value, (int, float)):
        return "—"
    if rel is not None:
        if isinstance(mine, bool) or not isinstance(mine, (int, float)) or not np.isfinite(rel):
            return "—"
        return "yes" if abs(mine - theory_value) <= rel * abs(theory_value) else "no"
    if isinstance(mine, dict):
        low, high = mine["ci_low"], mine["ci_high"]
        if not (np.isfinite(low) and np.isfinite(high)):
            return "—"
        if agreement == BOUND_CI:
            return "yes" if low <= theory_value else "no"
        return "yes" if low <= theory_value <= high else "no"
    if isinstance(mine, bool) or not isinstance(mine, (int, float)):
        return "—"
    if agreement == EXPONENT_BOUND:
        return "yes" if mine <= theory_value else "no"
    if agreement == ONE_STEP:
        return "yes" if abs(mine - theory_value) <= 1 else "no"
    return "—"


# --- round model ---------------------------------------------------------------------------


def _round_flows(
    name: str,
    params: dict,
    count: int,
    capacity: float,
    steps: int,
    start: list[float] | None = None,
    record: bool = False,
):
    controller = {"name": name, **params}
    flows = (
        [{"controller": controller, "initial_window": w} for w in start]
        if start
        else [{"controller": controller, "count": count}]
    )
    return roundmodel.run(
        {
            "run": {"engine": "round", "steps": steps, "warmup_steps": 0 if record else steps // 4},
            "link": {"capacity_pkts": capacity},
            "flows": flows,
            "record": {"every": 1 if record else 0, "flows": record},
        }
    )


#: The round model's rows: (28) is the exact mean of the fluid cycle, so the measured
#: efficiency is held to the error of the round model's stepping through it, bounded from its
#: step (:func:`efficiency_bound`); (37) is an order bound, s_n = O(n^(l+2k+1)), so the fitted
#: exponent is at most it; App. C's T1 counts whole RTTs, so one step of rounding.
STEPPING = "within the round model's stepping error, bounded from its step"
EXPONENT_BOUND = "at most the order bound (37)"
ONE_STEP = "within one RTT (App. C counts whole RTTs)"

#: Loguinov & Radha Fig. 4's link, W = 100 packets per RTT, shared by 10 flows.
EFFICIENCY_W, EFFICIENCY_N = 100.0, 10
#: Flow counts over which p_n's exponent is fitted, on a link of 1000 packets per RTT.
SCALING_N, SCALING_W = (10, 20, 50, 100), 1000.0
#: Jin et al. §6.3: W ≈ 110; Table 6's starting points of TCP (Exp. 2 for T1, Exp. 1 for T2)
#: and ε = 10 packets.
JIN_W, JIN_T1_START, JIN_T2_START, JIN_EPS = 110.0, (8.8, 13.8), (6.1, 99.6), 10.0
#: App. C's formulas: the catalogue names they cover and their β (removed).
JIN_APP_C = {"tcp": "tcp", "aimd": "aimd", "iiad": "iiad", "simd": "simd"}


def _convergence(name: str, params: dict, steps: int) -> tuple[float, float]:
    """T1: steps until the first congestion from Exp. 2's start; T2: steps until |w1 − w2|
    stays below ε from Exp. 1's (Jin et al. §4.2, App. C)."""
    r = _round_flows(name, params, 2, JIN_W, steps, list(JIN_T1_START), record=True)
    congested = r.series["loss_fraction"].to_numpy() > 0
    t1 = float(np.argmax(congested)) if congested.any() else float("inf")
    w = (
        _round_flows(name, params, 2, JIN_W, steps, list(JIN_T2_START), record=True)
        .flow_series()
        .to_numpy()
    )
    apart = np.flatnonzero(np.abs(w[:, 1] - w[:, 0]) >= JIN_EPS)
    t2 = float(apart[-1] + 1) if apart.size else 0.0
    return t1, (t2 if t2 < steps else float("inf"))


def _jin_beta(name: str, params: dict) -> float | None:
    """β (removed) as Jin et al. write it: the parameter, else the catalogue's default."""
    from .controllers import catalogue

    if name == "tcp":
        return None
    if "beta" in params:
        return params["beta"]
    entry = next(e for e in catalogue() if e["name"] == name)
    return next(p["default"] for p in entry["params"] if p["name"] == "beta")


def _jin_theory(name: str, params: dict, start: tuple[float, float]) -> float | str:
    if name not in JIN_APP_C:
        return "—"
    return float(theory.jin_convergence_t1(JIN_APP_C[name], JIN_W, *start, _jin_beta(name, params)))


def efficiency_bound(binomial: dict | None, efficiency: float | None, steps: int) -> float | None:
    """The relative error of the round model's efficiency against (28) for EFFICIENCY_N
    synchronized flows of `binomial` (``ccscope check``'s form) on EFFICIENCY_W packets per RTT,
    measured over `steps` steps: the stepping over whole cycles (Loguinov & Radha's cycle
    between L = U(1 − z) and U = W/n; ``loguinov.efficiency_stepping_bound``), plus the
    partial cycle the measured steps end in, at most one cycle's N + 1 steps (N: (26)'s
    increase phase over the smallest step α·x^(−k) on [L, U]) of `steps`, each off the mean
    by at most 1/efficiency of it. None without (28)'s value."""
    if binomial is None or efficiency is None:
        return None
    k, ell, alpha = binomial["k"], binomial["l"], binomial["alpha"]
    u = EFFICIENCY_W / EFFICIENCY_N
    z = binomial["beta_removed"] * u ** (ell - 1.0)
    if not 0 < z < 1 or alpha <= 0:
        return None
    phase = u ** (k + 1) * (1 - (1 - z) ** (k + 1)) / (k + 1)  # (26) with λ = R = 1
    cycle = phase / (alpha * min(u ** (-k), (u * (1 - z)) ** (-k)))
    partial = (cycle + 1) / (steps * efficiency)
    return loguinov.efficiency_stepping_bound(k, z, u, alpha, efficiency) + partial


def round_rows(name: str, params: dict, quick: bool) -> list[dict[str, Any]]:
    steps = 20_000 if quick else 100_000
    mine = _verdict(name, params, window=EFFICIENCY_W, flows=EFFICIENCY_N)
    efficiency = mine["efficiency"]["value"] if mine.get("efficiency") else None
    bound = efficiency_bound(mine.get("binomial"), efficiency, steps - steps // 4)
    rows = [
        _row(
            "round model",
            f"efficiency, {EFFICIENCY_N} flows on W = {EFFICIENCY_W:g}",
            "—" if efficiency is None else efficiency,
            _round_flows(name, params, EFFICIENCY_N, EFFICIENCY_W, steps).utilization,
            _round_flows("tcp", {}, EFFICIENCY_N, EFFICIENCY_W, steps).utilization,
            "Loguinov & Radha (28), Fig. 4",
            STEPPING if bound is None else f"{STEPPING} ({bound:.2g} of (28))",
            rel=bound,
        )
    ]
    exponents = []
    for n_, p_ in ((name, params), ("tcp", {})):
        p = np.array([_round_flows(n_, p_, n, SCALING_W, steps).loss_rate for n in SCALING_N])
        exponents.append(
            float(np.polyfit(np.log(SCALING_N), np.log(p), 1)[0]) if (p > 0).all() else float("nan")
        )
    rows.append(
        _row(
            "round model",
            "loss-scalability exponent of p_n, n = 10…100",
            mine.get("loss_exponent", "—"),
            *exponents,
            "Loguinov & Radha (37), Fig. 5",
            EXPONENT_BOUND,
        )
    )
    t_mine = _convergence(name, params, steps)
    t_tcp = _convergence("tcp", {}, steps)
    rows.append(
        _row(
            "round model",
            "T1: RTTs to efficiency from (8.8, 13.8), W = 110",
            _jin_theory(name, params, JIN_T1_START),
            t_mine[0],
            t_tcp[0],
            "Jin et al. Table 6, App. C.1",
            ONE_STEP,
        )
    )
    rows.append(
        _row(
            "round model",
            "T2: RTTs to fairness (ε = 10) from (6.1, 99.6)",
            "—",
            t_mine[1],
            t_tcp[1],
            "Jin et al. Table 6, §6.3.1",
        )
    )
    return rows


# --- packet model, through sweeps ----------------------------------------------------------


def _controller(name: str, params: dict) -> dict:
    return {"name": name, **params}


#: A media controller's application in the scorecard: RFC 8593's encoder with its ceiling
#: above every scorecard link (100 Mb/s), so that the controller, not the encoder's 1.5 Mb/s,
#: sets the rate (a controller's own ceiling, NADA's RMAX, stays at its default).
SCORECARD_ENCODER = {"kind": "encoder", "max_rate": "100Mbps"}


def rate_transport_fields(name: str, params: dict) -> dict:
    """What a rate controller needs of its rate source beyond the defaults: ISCC without an
    exact `capacity` learns the bottleneck's capacity from the receiver's packet-bunch estimate,
    over bunches of 3 packets as Loguinov & Radha (2003, §VI-B) send them."""
    return {"bunch": 3} if name == "iscc" and "capacity" not in params else {}


def _source(name: str, params: dict, family: str) -> dict:
    """The packet source running the controller: TCP for a window controller, the rate
    transport (with Yang et al.'s 10% send-time jitter, as yang.FIG6) for a rate controller
    (a Python one hears per-RTT reports), the RTP media transport with its feedback driving
    :data:`SCORECARD_ENCODER` for a media controller (GCC, NADA, SCReAM), in the set-ups'
    1000-byte packets."""
    if family == "window":
        return {"kind": "tcp", "controller": _controller(name, params)}
    if family == "media":
        return {
            "kind": "rtp",
            "controller": _controller(name, params),
            "packet_size": "1000B",
            "app": dict(SCORECARD_ENCODER),
        }
    python = {"feedback": "per-rtt"} if name.startswith("python:") else {}
    return {
        "kind": "rate",
        "controller": _controller(name, params),
        "jitter": 0.1,
        **python,
        **rate_transport_fields(name, params),
    }


TCP_SOURCE = {"kind": "tcp", "controller": {"name": "tcp"}}


def _sweep(source: dict, spec: dict):
    """The sweep `spec` (a sweep file's table), its flows of `source` (in its base, or set to it
    by an axis) ECN-capable when their controller reacts only to marks (DCTCP, RFC 8257 §3).
    The scorecard's queues drop rather than mark, so such a controller answers their losses as
    TCP does (RFC 8257 §3.4)."""
    from .controllers import catalogue
    from .sweep import Sweep

    named = source["controller"]["name"]
    if any(e["name"] == named and e.get("needs_ecn") for e in catalogue()):
        flows = spec["base"]["flows"]
        swapped = {
            int(path[len("flows[") : path.index("]")])
            for path, values in spec.get("axes", {}).items()
            if path.startswith("flows[") and path.endswith("].source") and source in values
        }
        for i, flow in enumerate(flows):
            if flow.get("source") == source or i in swapped:
                flow["ecn"] = True
    return Sweep.from_dict(spec)


#: The competitors of the friendliness runs: TCP (Reno, as the seed papers mean it) and CUBIC
#: (RFC 9438), the Internet's bulk traffic today.
RENO_COMPETITOR = {"kind": "tcp"}
CUBIC_COMPETITOR = {"kind": "tcp", "controller": {"name": "cubic"}}


def _friendliness_sweep(source: dict, quick: bool, against: dict = RENO_COMPETITOR):

    base = {
        "run": {"duration": "100s" if quick else "300s", "warmup": "20s"},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {
                "rate": "10Mbps",
                "delay": "20ms",
                "queue": {"kind": "droptail", "limit": "50pkts"},
            },
        },
        "flows": [
            {"source": source, "count": 2, "start_jitter": "1s"},
            {"source": against, "count": 2, "start_jitter": "1s"},
        ],
    }
    queues = [
        {"kind": "red", "limit": 100, "min_th": 5, "max_th": 15},
        {"kind": "droptail", "limit": "50pkts"},
    ]
    return _sweep(
        source,
        {
            "base": base,
            "axes": {"topology.bottleneck.queue": queues},
            "seeds": [1, 2] if quick else [1, 2, 3, 4, 5],
        },
    )


#: Yang et al. §3.3.1's set-up: 2.5 Mb/s, 30 ms bottleneck with Bernoulli loss, DropTail 50
#: packets, 10 ms access links; CoV_time over per-RTT bins (about 104 ms).
YANG_BIN = "104ms"


def _cov_sweep(source: dict, quick: bool):

    base = {
        "run": {"duration": "300s" if quick else "1000s", "warmup": "10s"},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {
                "rate": "2.5Mbps",
                "delay": "30ms",
                "queue": {"kind": "droptail", "limit": "50pkts"},
                "loss": {"kind": "bernoulli", "p": 0.02},
            },
            "access": {"rate": "100Mbps", "delay": "10ms"},
        },
        "flows": [{"source": source}],
        "trace": {"interval": YANG_BIN, "queues": False},
    }
    return _sweep(
        source,
        {
            "base": base,
            "traces": True,
            "seeds": [1, 2] if quick else [1, 2, 3],
            "axes": {
                "topology.bottleneck.loss.p": [0.02, 0.2],
                "flows[0].source": [source, TCP_SOURCE],
            },
        },
    )


def _aggressiveness_sweep(source: dict, quick: bool):

    return _sweep(
        source,
        {
            "base": yang.aggressiveness_scenario(source, 1),
            "traces": True,
            "seeds": [1, 2, 3] if quick else [1, 2, 3, 4, 5, 6],
            "axes": {"flows[0].source": [source, TCP_SOURCE]},
        },
    )


def _fairness_sweep(source: dict, quick: bool):

    return _sweep(
        source,
        {
            "base": yang.fairness_scenario(source, 1, 300.0 if quick else 1000.0),
            "traces": True,
            "seeds": [1, 2] if quick else [1, 2, 3],
            "axes": {"flows[0].source": [source, TCP_SOURCE]},
        },
    )


def _responsiveness_sweep(source: dict, quick: bool):

    return _sweep(
        source,
        {
            "base": yang.responsiveness_scenario(source, 1),
            "traces": True,
            "seeds": [1, 2, 3] if quick else [1, 2, 3, 4, 5, 6],
            "axes": {"flows[0].source": [source, TCP_SOURCE]},
        },
    )


def _mean_ci(x: np.ndarray, low: float = 0.0, high: float = np.inf) -> dict[str, float]:
    """The mean over seeds, ``n`` and the Student-t 95% interval of the mean cut to the
    quantity's range [`low`, `high`] (which keeps its coverage); NaN with one seed."""
    from scipy import stats

    n = len(x)
    mean = float(np.mean(x))
    half = float(stats.t.ppf(0.975, n - 1) * stats.sem(x)) if n > 1 else float("nan")
    return {
        "mean": mean,
        "ci_low": max(mean - half, low) if n > 1 else float("nan"),
        "ci_high": min(mean + half, high) if n > 1 else float("nan"),
        "n": n,
    }


def _scenario(name: str, duration: str) -> dict:
    from .scenario import load, shipped

    return load(shipped() / name).replace("run.duration", duration).table


def _square_wave_sweep(source: dict, quick: bool):

    return _sweep(
        source,
        {
            "base": _scenario("jin-table5-square-wave.toml", "330s" if quick else "1230s"),
            "traces": True,
            "seeds": [1, 2] if quick else [1, 2, 3],
            "axes": {"flows[0].source": [source, TCP_SOURCE]},
        },
    )


def _playback_sweep(source: dict, quick: bool):
    """Cai et al. Table I's set-up (scenarios/cai-table1-playback.toml) with the controller as
    its media flow (flow 0) beside ten TCP elephants that play back and twenty TCP mice."""

    base = _scenario("cai-table1-playback.toml", "200s" if quick else "600s")
    base["flows"][0]["source"] = source
    return _sweep(source, {"base": base, "seeds": [1, 2] if quick else [1, 2, 3]})


def _square_wave(trace: pd.DataFrame) -> dict[str, float]:
    """Jin et al.'s 1/aggressiveness (RTTs) and 1/responsiveness (loss events) of flow 0 beside
    the square wave, from its window (a rate flow's: packets of 1000 bytes per 100 ms RTT)."""
    from . import metrics

    w = trace[trace["flow"] == 0]
    window = w["window_pkts"].to_numpy()
    if not window.any():
        window = w["rate_bps"].to_numpy() * jin.RTT_S / 8000
    return metrics.square_wave_response(
        w["time_s"].to_numpy(), window, jin.SQUARE_ON_S, jin.SQUARE_OFF_S, jin.RTT_S
    )


def _jin_square_theory(name: str, params: dict) -> tuple[float | str, float | str]:
    """Jin et al. Table 3 at Table 5's W = 11 packets and m = 2: 1/aggressiveness (RTTs) and
    1/responsiveness (loss events), for the controls it covers."""
    if name not in JIN_APP_C and name != "aiad":
        return "—", "—"
    algorithm, beta = JIN_APP_C.get(name, name), _jin_beta(name, params)
    return (
        float(theory.jin_aggressiveness_time(algorithm, jin.TABLE5_W, 2.0, beta)),
        float(theory.jin_responsiveness_losses(algorithm, 2.0, beta, jin.TABLE5_W)),
    )


def _aggressiveness_bound(name: str, params: dict, report: dict) -> float | str:
    """Yang et al.'s I (§5.1, Table 1): α for an AIMD (TCP: 1), TFRC's 0.12 without and 0.22
    with history discounting, TEAR's 1/12."""
    b = report.get("binomial") or {}
    if b.get("k") == 0 and b.get("l") == 1:
        return float(b["alpha"])
    if name in ("tfrc", "tfrc-2000", "tfrc-ns2"):
        return 0.22 if params.get("discounting", 0) else 0.12
    return 1 / 12 if name == "tear" else "—"


def _aimd_beta(report: dict) -> float | None:
    """β kept of an AIMD (k = 0, l = 1), else None."""
    b = report.get("binomial") or {}
    return 1 - b["beta_removed"] if b.get("k") == 0 and b.get("l") == 1 else None


def _fairness_theory(report: dict) -> float | str:
    """Yang et al.'s F for an AIMD: Eq. (3) of its CoV_time by Eq. (4)."""
    beta = _aimd_beta(report)
    return (
        "—" if beta is None else float(theory.yang_fairness_index(theory.yang_aimd_cov_time(beta)))
    )


def _responsiveness_theory(name: str, report: dict) -> float | str:
    """Yang et al. §4.1's D: log_β(1/2) for an AIMD, 5 for TFRC (from Floyd et al.) and for
    TEAR (its history of 3W/4 entries)."""
    beta = _aimd_beta(report)
    if beta is not None:
        return float(theory.yang_aimd_responsiveness(beta))
    if name in ("tfrc", "tfrc-2000", "tfrc-ns2"):
        return 5.0
    return float(theory.yang_tear_responsiveness()) if name == "tear" else "—"


def _by_source(sw, runs: pd.DataFrame, measure) -> dict[str, list]:
    """`measure(trace_flows, run_id)` of each run of `sw`, grouped by its flows[0].source."""
    out: dict[str, list] = {}
    for t in sw.tasks():
        trace = pd.read_parquet(Path(runs.loc[t.run_id, "trace_dir"]) / "trace_flows.parquet")
        out.setdefault(json.dumps(t.point["flows[0].source"], sort_keys=True), []).append(
            measure(trace, t.run_id)
        )
    return out


def _friendliness_ratios(sw, runs: pd.DataFrame, flows: pd.DataFrame, queue: str) -> list:
    """The controller's mean throughput over its competitors' in each run of the friendliness
    sweep `sw` on queues of kind `queue`."""
    ratios = []
    for t in sw.tasks():
        if json.loads(runs.loc[t.run_id, "topology.bottleneck.queue"])["kind"] != queue:
            continue
        x = flows[flows["run_id"] == t.run_id].sort_values("flow")["throughput_bps"]
        ratios.append(x.iloc[:2].mean() / x.iloc[2:].mean())
    return ratios


def _covs(smooth, runs: pd.DataFrame, p: float) -> dict[str, list]:
    """CoV_time of each run of the smoothness sweep at loss rate `p`, by flows[0].source."""
    from . import metrics

    by_source: dict[str, dict[str, float]] = {}
    for t in smooth.tasks():
        if t.point["topology.bottleneck.loss.p"] != p:
            continue
        trace = pd.read_parquet(Path(runs.loc[t.run_id, "trace_dir"]) / "trace_flows.parquet")
        by_source.setdefault(json.dumps(t.point["flows[0].source"], sort_keys=True), {})[
            t.run_id
        ] = metrics.cov(trace[trace.time_s >= 10].sent_pkts.to_numpy())
    return {k: list(v.values()) for k, v in by_source.items()}


def _halvings(halving, runs: pd.DataFrame) -> dict[str, list]:
    """Yang et al.'s D (RTTs) of each run of the responsiveness sweep, by flows[0].source."""
    return _by_source(
        halving, runs, lambda trace, _: yang.responsiveness_of(trace.sent_pkts.to_numpy())
    )


def _slopes(steps, runs: pd.DataFrame) -> dict[str, list]:
    """Yang et al.'s I of each run of the aggressiveness sweep, by flows[0].source."""
    return _by_source(
        steps, runs, lambda trace, _: yang.aggressiveness_of(trace.sent_pkts.to_numpy())
    )


def _run_all(sweeps, store: Path, jobs: int | None) -> None:
    """Runs the sweeps (None: none) into `store`; a failed run is a ScenarioError."""
    from . import sweep

    for sw in sweeps:
        if sw is None:
            continue
        done = sweep.run(sw, store, jobs)
        if done.failed:
            raise ScenarioError(
                f"{done.failed} scorecard runs failed: {next(iter(done.errors.values()))}"
            )


def packet_rows(
    name: str, params: dict, family: str, quick: bool, store: Path, jobs: int | None
) -> list[dict[str, Any]]:
    from . import sweep

    source = _source(name, params, family)
    friendly, smooth = _friendliness_sweep(source, quick), _cov_sweep(source, quick)
    steps = _aggressiveness_sweep(source, quick)
    square = _square_wave_sweep(source, quick)
    fair, halving = _fairness_sweep(source, quick), _responsiveness_sweep(source, quick)
    playback = _playback_sweep(source, quick)
    _run_all((friendly, smooth, steps, square, fair, halving, playback), store, jobs)
    runs = sweep.load(store).set_index("run_id")
    flows = sweep.load(store, "flows")
    rows = []
    mine_theory = _theory(name, params, family)
    gaimd = _yang_friendly(mine_theory)
    friendly_theory = (
        1.0
        if mine_theory.get("tcp_friendly", {}).get("holds") or (gaimd is not None and gaimd[1])
        else "not TCP-friendly"
        if mine_theory
        else "—"
    )
    for queue, shown in (("red", "RED"), ("droptail", "DropTail")):
        ratios = _friendliness_ratios(friendly, runs, flows, queue)
        rows.append(
            _row(
                "packet model",
                f"TCP-friendliness ratio on {shown} (2 flows + 2 TCP, 10 Mb/s)",
                friendly_theory,
                _mean_ci(np.array(ratios)),
                1.0,
                "Loguinov & Radha (5); Yang & Lam",
            )
        )
    b = mine_theory.get("binomial") or {}

    def key(src: dict) -> str:
        return json.dumps(src, sort_keys=True)

    mine_key, tcp_key = key(source), key(TCP_SOURCE)
    for p in (0.02, 0.2):
        by_controller = _covs(smooth, runs, p)
        covs = {"mine": by_controller[mine_key], "tcp": by_controller[tcp_key]}
        if p == 0.02:
            eq4 = (
                float(theory.yang_aimd_cov_time(1 - b["beta_removed"]))
                if b.get("k") == 0 and b.get("l") == 1
                else "—"
            )
            rows.append(
                _row(
                    "packet model",
                    "CoV_time at 2% loss (per-RTT sending rate)",
                    eq4,
                    _mean_ci(np.array(covs["mine"])),
                    _mean_ci(np.array(covs["tcp"])),
                    "Yang et al. (4), Table 1",
                )
            )
        else:
            b20 = (
                float(theory.yang_aimd_timeout_cov_time(0.2, 4))
                if b.get("k") == 0 and b.get("l") == 1
                else "—"
            )
            rows.append(
                _row(
                    "packet model",
                    "CoV_time at 20% loss (timeouts dominate)",
                    b20,
                    _mean_ci(np.array(covs["mine"])),
                    _mean_ci(np.array(covs["tcp"])),
                    "Yang et al. (7)/(B.2), t = 4, Table 1",
                )
            )
    fairness = _by_source(
        fair,
        runs,
        lambda trace, run_id: yang.fairness_of(trace, flows[flows["run_id"] == run_id])["F"],
    )
    rows.append(
        _row(
            "packet model",
            "fairness F at low loss, 8 flows (per-RTT Jain's index)",
            _fairness_theory(mine_theory),
            _mean_ci(np.array(fairness[mine_key]), high=1.0),
            _mean_ci(np.array(fairness[tcp_key]), high=1.0),
            "Yang et al. (3), (4), §3.3.2, Table 1",
        )
    )
    halvings = _halvings(halving, runs)

    def halved(d: list[float]) -> dict[str, float] | str:
        return (
            _mean_ci(np.array(d))
            if np.isfinite(d).all()
            else f"not halved within {yang.D_RTTS} RTTs in {np.isinf(d).sum()} of {len(d)}"
        )

    rows.append(
        _row(
            "packet model",
            "responsiveness D: RTTs to halve the rate, one loss per RTT",
            _responsiveness_theory(name, mine_theory),
            halved(halvings[mine_key]),
            halved(halvings[tcp_key]),
            "Yang et al. §4.1, Table 1",
        )
    )
    slopes = _slopes(steps, runs)
    rows.append(
        _row(
            "packet model",
            "aggressiveness I after 10% → 0% loss (pkts/RTT per RTT)",
            _aggressiveness_bound(name, params, mine_theory),
            _mean_ci(np.array(slopes[mine_key]), low=-np.inf),
            _mean_ci(np.array(slopes[tcp_key]), low=-np.inf),
            "Yang et al. §5, Table 1 (an upper bound)",
            BOUND_CI,
        )
    )
    waves = _by_source(square, runs, lambda trace, _: _square_wave(trace))
    predicted = _jin_square_theory(name, params)
    for i, (column, quantity) in enumerate(
        (
            ("inv_aggressiveness_rtts", "1/aggressiveness beside a square wave (RTTs)"),
            ("inv_responsiveness_losses", "1/responsiveness beside a square wave (losses)"),
        )
    ):
        rows.append(
            _row(
                "packet model",
                quantity,
                predicted[i],
                _mean_ci(np.array([w[column] for w in waves[mine_key]])),
                _mean_ci(np.array([w[column] for w in waves[tcp_key]])),
                "Jin et al. Table 3 (W = 11, m = 2), Table 5, §6.2.4",
            )
        )
    if playback is None:
        return rows
    media = flows[flows["run_id"].isin([t.run_id for t in playback.tasks()])]
    elephants = media[(media["flow"] >= 1) & (media["flow"] <= 10)].groupby("run_id")
    for column, quantity, source_, high in (
        (
            "interruptions",
            "playback interruptions beside 10 TCP elephants and 20 mice",
            "Cai et al. Table I (DTAIMD: 0), §V-B2",
            np.inf,
        ),
        (
            "vdi",
            "Video Delivery Index of the same playback",
            "Papadimitriou & Zhang §V, Fig. 8",
            1.0,
        ),
    ):
        rows.append(
            _row(
                "packet model",
                quantity,
                "—",
                _mean_ci(media[media["flow"] == 0][column].to_numpy(), high=high),
                _mean_ci(elephants[column].mean().to_numpy(), high=high),
                source_,
            )
        )
    return rows


def _measured_rows(mine: dict, tcp: dict) -> list[dict[str, Any]]:
    """The theory section of a control without a closed form: what the round model measures
    (``ccscope check``), beside TCP's."""

    def t2(m: dict) -> Any:
        return m["convergence"]["t2_rtts"] if m["convergence"]["converged"] else "never"

    def ratio(m: dict) -> dict[str, float]:
        # The same shape as the packet rows' intervals, cut at 0 (a ratio of throughputs).
        f = m["friendliness"]
        return {
            "mean": f["ratio"],
            "ci_low": max(f["ratio"] - f["ci95"], 0.0),
            "ci_high": f["ratio"] + f["ci95"],
            "n": f["seeds"],
        }

    return [
        _row(
            "theory",
            "no closed form: T2, RTTs to fairness (ε = 10) from (7, 99), W = 110, round model",
            "—",
            t2(mine),
            t2(tcp),
            "Jin et al. §6.3.1, Table 6 Exp. 1",
        ),
        _row(
            "theory",
            "no closed form: throughput against TCP's, round model, proportional drops",
            "≤ 1",
            ratio(mine),
            ratio(tcp),
            "Floyd & Fall 1999's TCP-friendliness",
        ),
    ]


def _yang_friendly(report: dict) -> tuple[float, bool] | None:
    """For an AIMD (k = 0, l = 1): Yang & Lam's TCP-friendly α and whether the controller's is
    within 1% of it. Their rule (random loss) differs from Loguinov & Radha's (5) (a
    deterministic sawtooth), so the scorecard shows both."""
    b = report.get("binomial") or {}
    if not (b.get("k") == 0 and b.get("l") == 1):
        return None
    alpha = float(theory.gaimd_friendly_alpha(1 - b["beta_removed"]))
    return alpha, abs(b["alpha"] - alpha) <= 0.01 * alpha


def scorecard(
    controller: str,
    params: dict[str, float] | None = None,
    quick: bool = False,
    store: str | Path | None = None,
    jobs: int | None = None,
) -> dict[str, Any]:
    """The scorecard of a window controller of the catalogue with `params`: ``{"controller",
    "params", "quick", "store", "rows"}``, each row ``section, quantity, theory, controller,
    tcp, source, agreement, agrees``; packet-model values are ``{"mean", "ci_low", "ci_high",
    "n"}`` over ``n`` seeds. ``agrees`` ("yes", "no", "—") says whether theory and the
    controller's measurement agree by ``agreement``: a friendliness ratio of 3.8 beside a
    theory of 1 shows "no" however TCP-friendly the theory row calls the controller."""
    params = dict(params or {})
    family = _family(controller, params)
    report = _theory(controller, params, family)
    path = Path(store) if store is not None else default_store()
    path.parent.mkdir(parents=True, exist_ok=True)

    def binomial(r: dict) -> str:
        b = r.get("binomial")
        return "—" if not b else "({k:g}, {l:g}, {alpha:.4g}, {beta_removed:.4g})".format(**b)

    tcp = check("tcp")
    friendly = report.get("tcp_friendly") or {}
    rows = []
    if "measured" in report and "conditions" not in report:
        rows += _measured_rows(report["measured"], check("tcp", measure=True)["measured"])
    elif "conditions" not in report:
        # A controller that needs per-ACK feedback: its closed forms, if it has any.
        rows += [
            _row("theory", r["quantity"], r["theory"], "—", "—", r["source"])
            for r in report.get("theory", {}).get("rows", [])
        ]
    elif report:
        rows += [
            _row(
                "theory",
                "binomial form (k, l, α, β removed)",
                "—",
                binomial(report),
                binomial(tcp),
                "Loguinov & Radha (3)",
            ),
            _row(
                "theory",
                "TCP-friendly: α that makes it so, and whether it holds",
                friendly.get("friendly_alpha", "—"),
                "yes" if friendly.get("holds") else "no",
                "yes",
                "Loguinov & Radha (5); Jin Table 1",
            ),
        ]
    gaimd = _yang_friendly(report)
    if gaimd is not None:
        rows.append(
            _row(
                "theory",
                "TCP-friendly by Yang & Lam: α that makes it so, and whether it holds (within 1%)",
                gaimd[0],
                "yes" if gaimd[1] else "no",
                "yes",
                "Yang & Lam, GAIMD: α = 4(1 − β²)/3",
            )
        )
    if family == "window" and _runs_in_rounds(controller, params):
        rows += round_rows(controller, params, quick)
    rows += packet_rows(controller, params, family, quick, path, jobs)
    return {
        "controller": report.get("controller", _display(controller, params, family)),
        "family": family,
        "params": params,
        "quick": quick,
        "store": str(path),
        "rows": rows,
    }


def _runs_in_rounds(controller: str, params: dict) -> bool:
    """Whether the round model runs the controller: not those that need per-ACK feedback
    (BBR's delivery-rate samples, Copa's per-packet RTTs)."""
    if controller.startswith("python:"):
        return True
    from .controllers import _core

    return _core().runs_in_rounds(controller, sorted(params.items()))


def _family(controller: str, params: dict) -> str:
    """ "window", "rate" or "media" (a catalogued media controller); a bad name or parameter is
    a ScenarioError naming it. A :class:`ccscope.Controller` that starts with a window is a
    window controller (run by TCP), one that starts with only a rate a rate controller."""
    from .controllers import catalogue, paper_name

    if controller.startswith("python:"):
        obj = instance(controller, params)
        if isinstance(obj, Controller):
            return "window" if obj.window_pkts is not None else "rate"
        if isinstance(obj, WindowController):
            return "window"
        if isinstance(obj, RateController):
            return "rate"
        raise ScenarioError.at(
            "controller",
            controller,
            f"a Controller, WindowController or RateController, not {type(obj).__name__}",
        )
    families = {e["name"]: e["family"] for e in catalogue()}
    if controller not in families:
        raise ScenarioError.at(
            "controller",
            controller,
            "a controller of the catalogue (" + ", ".join(families) + ") or python:module:Object",
        )
    paper_name(controller, params, families[controller])
    return families[controller]


def _theory(controller: str, params: dict, family: str) -> dict:
    """`ccscope check`'s verdict for a window controller; {} for a rate controller."""
    if family != "window":
        return {}
    return _verdict(controller, params)


def _verdict(controller: str, params: dict, **link: float) -> dict:
    """`ccscope check`'s verdict: the binomial analysis, or what the round model measures of a
    control without a binomial form (SIMD, CUBIC, a ccscope.Controller)."""
    return check(controller, params, **link)


def _display(controller: str, params: dict, family: str) -> str:
    if controller.startswith("python:"):
        return display_name(instance(controller, params))
    from .controllers import paper_name

    return paper_name(controller, params, family)


def _cell(x: Any) -> str:
    if isinstance(x, dict):
        if np.isnan(x["ci_low"]):
            return f"{x['mean']:.4g}"
        return f"{x['mean']:.4g} [{x['ci_low']:.3g}, {x['ci_high']:.3g}]"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def table(card: dict[str, Any]):
    """The scorecard for the terminal (a rich table)."""
    from rich.table import Table

    rules = list(dict.fromkeys(r["agreement"] for r in card["rows"] if r["agrees"] != "—"))
    out = Table(
        title=f"scorecard: {card['controller']}" + (" (quick)" if card["quick"] else ""),
        title_justify="left",
        caption=f"runs cached in {card['store']}; [low, high]: the 95% CI of the mean over "
        "the seeds (Student's t, cut to the quantity's range); agrees: theory and "
        f"{card['controller']} agree by rule "
        + "; ".join(f"{i + 1}: {rule}" for i, rule in enumerate(rules)),
        caption_justify="left",
    )
    for col in ("section", "quantity", "theory", card["controller"], "TCP", "agrees", "source"):
        out.add_column(col, justify="left" if col in ("section", "quantity", "source") else "right")
    for r in card["rows"]:
        agrees = r["agrees"]
        out.add_row(
            r["section"],
            r["quantity"],
            _cell(r["theory"]),
            _cell(r["controller"]),
            _cell(r["tcp"]),
            agrees if agrees == "—" else f"{agrees} ({rules.index(r['agreement']) + 1})",
            r["source"],
        )
    return out


# --- one table for many controllers ------------------------------------------------------------

#: The controllers of :func:`compare`'s table: the seed papers' controllers as they ran them
#: (GAIMD at Yang & Lam's β = 7/8), CUBIC, BBR v1, BBR v3, Copa, and the media controllers GCC,
#: NADA and SCReAM, at the catalogue's defaults.
COMPARED: tuple[tuple[str, dict], ...] = (
    ("tcp", {}),
    ("gaimd", {"beta": 0.875}),
    ("iiad", {}),
    ("sqrt", {}),
    ("simd", {}),
    ("aiad", {}),
    ("dtaimd", {}),
    ("tfrc", {}),
    ("tear", {}),
    ("ssvp", {}),
    ("ssvp-adp", {}),
    ("iscc", {}),
    ("cubic", {}),
    ("bbr", {}),
    ("bbr3", {}),
    ("copa", {}),
    ("gcc", {}),
    ("nada", {}),
    ("scream", {}),
)

#: The table's columns after the controller: (key, heading).
COMPARE_COLUMNS = (
    ("reno_droptail", "TCP (Reno), DropTail"),
    ("reno_red", "TCP (Reno), RED"),
    ("cubic_droptail", "CUBIC, DropTail"),
    ("cubic_red", "CUBIC, RED"),
    ("cov_2pct", "CoV_time at 2% loss"),
    ("responsiveness_rtts", "responsiveness D (RTTs)"),
    ("aggressiveness", "aggressiveness I (pkts/RTT per RTT)"),
)


def compare(
    controllers: tuple[tuple[str, dict], ...] = COMPARED,
    quick: bool = False,
    store: str | Path | None = None,
    jobs: int | None = None,
) -> dict[str, Any]:
    """One row per controller (name and parameters, as :func:`scorecard` takes them) with the
    seeds' metrics in the scorecard's packet set-ups: its friendliness, its mean throughput
    over its competitors' (2 flows beside 2, 10 Mb/s, DropTail and RED) against TCP (Reno) and
    against CUBIC; Yang et al.'s CoV_time at 2% loss, responsiveness D and aggressiveness I.
    Values are ``{"mean", "ci_low", "ci_high", "n"}`` over seeds, or text (D not reached).
    Returns ``{"quick", "store", "columns", "rows"}``, each row ``{"controller", KEY: value}``."""
    path = Path(store) if store is not None else default_store()
    path.parent.mkdir(parents=True, exist_ok=True)
    planned = []
    for name, params in controllers:
        params = dict(params)
        family = _family(name, params)
        source = _source(name, params, family)
        sweeps = {
            "reno": _friendliness_sweep(source, quick),
            "cubic": _friendliness_sweep(source, quick, CUBIC_COMPETITOR),
            "smooth": _cov_sweep(source, quick),
            "halving": _responsiveness_sweep(source, quick),
            "steps": _aggressiveness_sweep(source, quick),
        }
        _run_all(sweeps.values(), path, jobs)
        planned.append((_display(name, params, family), source, sweeps))
    from . import sweep

    runs = sweep.load(path).set_index("run_id")
    flows = sweep.load(path, "flows")
    rows = []
    for shown, source, sw in planned:
        mine = json.dumps(source, sort_keys=True)
        d = _halvings(sw["halving"], runs)[mine]
        rows.append(
            {
                "controller": shown,
                **{
                    f"{against}_{queue}": _mean_ci(
                        np.array(_friendliness_ratios(sw[against], runs, flows, queue))
                    )
                    for against in ("reno", "cubic")
                    for queue in ("droptail", "red")
                },
                "cov_2pct": _mean_ci(np.array(_covs(sw["smooth"], runs, 0.02)[mine])),
                "responsiveness_rtts": _mean_ci(np.array(d))
                if np.isfinite(d).all()
                else f"not halved within {yang.D_RTTS} RTTs in {np.isinf(d).sum()} of {len(d)}",
                "aggressiveness": _mean_ci(np.array(_slopes(sw["steps"], runs)[mine]), low=-np.inf),
            }
        )
    return {
        "quick": quick,
        "store": str(path),
        "columns": dict(COMPARE_COLUMNS),
        "rows": rows,
    }


def compare_markdown(table_: dict[str, Any]) -> str:
    """:func:`compare`'s table in Markdown (the docs' controllers page): the mean over seeds
    and its 95% CI."""
    keys = [k for k, _ in COMPARE_COLUMNS]
    lines = [
        "| controller | " + " | ".join(table_["columns"][k] for k in keys) + " |",
        "| --- |" + " --- |" * len(keys),
    ]
    for row in table_["rows"]:
        lines.append(f"| {row['controller']} | " + " | ".join(_cell(row[k]) for k in keys) + " |")
    return "\n".join(lines) + "\n"
