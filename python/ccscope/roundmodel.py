"""The round model: n flows (up to millions) share one bottleneck, one control interval per step.

A round-model scenario is a TOML file (or dict) with ``[run] engine = "round"``::

    [run]
    engine = "round"
    steps = 20000
    warmup_steps = 2000
    seed = 1
    substeps = 1                   # steps per RTT0; more tends to the fluid model

    [link]
    capacity = "1544kbps"          # or capacity_pkts = 100 (packets per RTT0)
    rtt = "100ms"                  # RTT0, the control interval
    packet_size = "1000B"
    buffer = "0pkts"               # queue: RTT = RTT0 + queue/C
    feedback = "synchronized"      # or "proportional", or {kind = "bernoulli", p = 0.01}

    [[flows]]
    controller = { name = "aimd", alpha = 1, beta = 0.5 }   # spelled as in packet scenarios
    count = 100
    initial_window = 1

>>> result = ccscope.roundmodel.run("scenarios/round-loguinov-fig5.toml")
>>> result.loss_rate, result.utilization
>>> result.series[["time_s", "utilization", "jain"]]

The engine is :mod:`ccscope-core`'s ``round`` module; see its documentation for the model.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from . import metrics
from .controllers import ControllerSpec, FlowControllers, per_flow
from .errors import ScenarioError
from .scenario import Scenario, coerce
from .scenario import load as _load
from .scenario import loads as _loads


def _round(sc: Scenario) -> Scenario:
    if sc.engine != "round":
        raise ScenarioError(
            "run.engine: a packet-model scenario; run it with ccscope.run "
            '(the round model needs run.engine = "round")',
            "run.engine",
            "'packet'",
            '"round"',
            sc.file,
        )
    return sc


def loads(text: str) -> Scenario:
    """Parses and validates round-model scenario TOML text."""
    return _round(_loads(text))


def load(path: str | Path) -> Scenario:
    """Reads and validates a round-model scenario file."""
    return _round(_load(path))


class RoundResult:
    """What one round-model run produced.

    - ``loss_rate``: packets lost over packets sent (Loguinov & Radha's p_n);
    - ``utilization``: packets served over what the link could serve (the efficiency);
    - ``flows``: one row per flow: name, totals, mean load (packets per control interval,
      i.e. per RTT0 step times ``run.substeps``) and rate;
    - ``series``: the aggregate at the recorded steps (time, capacity, load, queue,
      utilization, loss fraction, Jain's index, congested flows);
    - :meth:`flow_series`: each flow's load at the recorded steps (``record.flows``).
    """

    def __init__(self, scenario: Scenario, raw: dict, python: FlowControllers | None = None):
        self.scenario = scenario
        self.raw = raw
        self.python = python or FlowControllers({}, {})
        #: The Python controller object each flow ran, by flow index (its own instance).
        self.controllers: dict[int, object] = self.python.objects
        self.seed: int = raw["seed"]
        self.steps: int = raw["steps"]
        self.measured_steps: int = raw["steps"] - raw["warmup_steps"]
        self.substeps: int = raw["substeps"]
        self.measured_s: float = raw["measured_s"]
        #: True when Ctrl-C stopped the run: the numbers cover the steps it had run.
        self.partial: bool = raw.get("partial", False)
        self.loss_rate: float = raw["lost_pkts"] / raw["sent_pkts"] if raw["sent_pkts"] else 0.0
        self.utilization: float = (
            raw["served_pkts"] / raw["service_pkts"] if raw["service_pkts"] else 0.0
        )
        f = raw["flows"]
        bits = 8.0 * raw["packet_bytes"]
        # Stopped by Ctrl-C before the warm-up ended, a run has measured nothing.
        per_step = self.substeps / self.measured_steps if self.measured_steps else 0.0
        per_s = bits / self.measured_s if self.measured_s else 0.0
        self.flows = pd.DataFrame(
            {
                "flow": np.arange(len(f["name"])),
                "name": f["name"],
                "rate_based": f["rate_based"],
                "sent_pkts": f["sent_pkts"],
                "lost_pkts": f["lost_pkts"],
                "congestion_events": f["congestion_events"],
                "mean_load_pkts": f["sent_pkts"] * per_step,
                "mean_rate_bps": f["sent_pkts"] * per_s,
            }
        )
        self.series = pd.DataFrame(raw["series"])

    @property
    def plot(self):
        """The standard figures (matplotlib): ``result.plot()`` every view,
        ``result.plot.aggregate()`` (utilization, loss), ``result.plot.load(per="flow")``
        (:class:`ccscope.report.RoundPlots`)."""
        from .report import RoundPlots

        return RoundPlots(self)

    @property
    def n_flows(self) -> int:
        return len(self.flows)

    #: The columns ``repr`` and a notebook show of :attr:`flows`.
    SHOWN = ("flow", "name", "mean_rate_bps", "mean_load_pkts", "lost_pkts", "congestion_events")

    def _shown(self) -> tuple[str, pd.DataFrame]:
        from .display import columns, scenario_line

        title = (
            f"{scenario_line(self.scenario)}; loss rate {self.loss_rate:.4g}, "
            f"utilization {self.utilization:.4g}" + (" (partial)" if self.partial else "")
        )
        return title, columns(self.flows, self.SHOWN)

    def __repr__(self) -> str:
        from .display import text

        return text("ccscope.RoundResult", *self._shown())

    def _repr_html_(self) -> str:
        from .display import as_html

        return as_html("ccscope.RoundResult", *self._shown())

    def flow_records(self) -> list[dict]:
        """One dict per flow, by index, without the index: :attr:`flows`' rows as plain
        values (a sweep store's ``flows`` rows)."""
        return [
            {
                k: v.item() if isinstance(v, np.generic) else v
                for k, v in row.items()
                if not pd.isna(v)
            }
            for row in self.flows.drop(columns=["flow"]).to_dict(orient="records")
        ]

    def flow_series(self) -> pd.DataFrame:
        """A (recorded step × flow) table of each flow's load in packets per control interval
        (its window, for window flows)."""
        loads = np.asarray(self.raw["flow_load_pkts"])
        if loads.size == 0:
            raise ScenarioError(
                "per-flow series were not recorded; set record.flows = true and record.every >= 1",
                "record.flows",
                "false",
                "true",
            )
        table = loads.reshape(-1, self.n_flows) * self.substeps
        return pd.DataFrame(table, index=pd.Index(self.series["step"], name="step"))

    def fairness(self) -> dict[str, float]:
        """Jain's index and min/max of the flows' mean loads over the measured steps."""
        x = self.flows["mean_load_pkts"].to_numpy()
        if not np.any(x > 0):
            return {"jain": 0.0, "min_max": 0.0}
        return {"jain": metrics.jain_index(x), "min_max": metrics.min_max_ratio(x)}

    def metrics(self) -> dict[str, float]:
        """The run's summary metrics (a sweep store's ``runs`` columns): loss rate,
        utilization, Jain's index and min/max."""
        fair = self.fairness()
        return {
            "jain": float(fair["jain"]),
            "min_max": float(fair["min_max"]),
            "loss_rate": float(self.loss_rate),
            "utilization": float(self.utilization),
        }

    def summary(self) -> dict:
        from .output import provenance, scenario_hash

        return {
            **provenance(),
            "engine": "round",
            "seed": self.seed,
            "scenario_sha256": scenario_hash(self.scenario.table),
            "steps": self.steps,
            "measured_steps": self.measured_steps,
            "measured_s": self.measured_s,
            "loss_rate": self.loss_rate,
            "utilization": self.utilization,
            "fairness": self.fairness(),
            "flows": self.flows.drop(columns=["flow"]).to_dict(orient="records"),
            "scenario": self.scenario.echo(),
            **self.python.summary(),
            **({"partial": True} if self.partial else {}),
        }

    def write_files(self, folder: Path) -> list[Path]:
        """Writes summary.json, and the series as Parquet files when recorded, into an existing
        `folder`."""
        from .output import provenance, scenario_hash, write_json, write_parquet

        meta = {
            **provenance(),
            "seed": self.seed,
            "scenario_sha256": scenario_hash(self.scenario.table),
            "flow_labels": self.flows["name"].tolist(),
        }
        written = [write_json(folder / "summary.json", self.summary())]
        if not self.series.empty:
            written.append(write_parquet(self.series, folder / "round_series.parquet", meta))
        if len(self.raw["flow_load_pkts"]):
            table = self.flow_series()
            table.columns = [str(c) for c in table.columns]
            written.append(write_parquet(table.reset_index(), folder / "round_flows.parquet", meta))
        return written

    def write(self, out_dir: str | Path) -> list[Path]:
        """Writes the run's files into `out_dir` at once, as :meth:`ccscope.Result.write`."""
        from .output import moved, output_dir

        with output_dir(out_dir) as tmp:
            written = self.write_files(tmp)
        return moved(written, tmp, out_dir)


def run(
    spec: Scenario | dict | str | Path,
    controllers: dict[str, ControllerSpec] | None = None,
    progress: bool | Callable[[float, float], None] = False,
    force: bool = False,
) -> RoundResult:
    """Runs a round-model scenario (object, dict, or path to a TOML file). A flow group whose
    controller is written in Python (``python:module:Object`` or ``python:NAME`` with
    `controllers`) runs one object per flow, as :func:`ccscope.run` does: a
    :class:`ccscope.Controller` (its ``on_round``, read back as a window when it sets one, else
    as a rate), a :class:`ccscope.WindowController` (its increase and decrease, once per
    control interval) or a :class:`ccscope.RateController` that implements ``on_round``.
    `progress`, Ctrl-C and a controller's errors behave as in :func:`ccscope.run` (progress in
    steps); `force` runs it even when its estimated cost is beyond what runs by default."""
    sc = _round(coerce(spec))
    from . import _core
    from .engine import _checked, _named, _watched

    python = _named(sc, lambda: per_flow(sc, controllers))
    raw = _watched(
        sc,
        lambda watch: _core.run_round(sc.to_json(), python.by_flow, watch, force),
        progress,
        "steps",
    )
    return _checked(RoundResult(sc, raw, python))


def run_file(path: str | Path) -> RoundResult:
    """Loads and runs a round-model scenario file."""
    return run(load(path))
