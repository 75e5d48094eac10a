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
    controller = "aimd"
    params = {alpha = 1, beta = 0.5}
    count = 100
    initial_window = 1

>>> result = ccscope.roundmodel.run("scenarios/round-loguinov-fig5.toml")
>>> result.loss_rate, result.utilization
>>> result.series[["time_s", "utilization", "jain"]]

The engine is :mod:`ccscope-core`'s ``round`` module; see its documentation for the model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from . import __version__, metrics, units
from .errors import ScenarioError
from .scenario import BitRate, Size, Time, _explain, parse_toml, read_toml

Finite = Annotated[float, Field(allow_inf_nan=False)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class RoundRun(_Model):
    engine: Literal["round"]
    steps: Annotated[int, Field(ge=1, le=10_000_000_000)]
    warmup_steps: Annotated[int, Field(ge=0)] = 0
    seed: Annotated[int, Field(ge=0, lt=2**64)] = 1
    #: Steps per control interval (the fluid limit as it grows); step counts are in steps.
    substeps: Annotated[int, Field(ge=1, le=10_000)] = 1


class Bernoulli(_Model):
    """Every packet is lost independently with probability ``p``, on top of the overshoot."""

    kind: Literal["bernoulli"]
    p: Annotated[float, Field(ge=0.0, lt=1.0, allow_inf_nan=False)]


class CapacityStep(_Model):
    step: Annotated[int, Field(ge=0)]
    capacity: BitRate | None = None
    capacity_pkts: Annotated[float, Field(gt=0, allow_inf_nan=False)] | None = None


class RoundLink(_Model):
    """The shared bottleneck: capacity (bits/s, or packets per RTT0), RTT0, packet size, buffer."""

    capacity: BitRate | None = None
    capacity_pkts: Annotated[float, Field(gt=0, allow_inf_nan=False)] | None = None
    rtt: Time = "100ms"
    packet_size: Size = "1000B"
    buffer: Annotated[float, Field(ge=0, allow_inf_nan=False)] | str = 0
    feedback: Literal["synchronized", "proportional"] | Bernoulli = "synchronized"
    integer_windows: bool = False
    capacity_oracle: bool = False
    capacity_changes: list[CapacityStep] = []

    @model_validator(mode="after")
    def _capacity(self) -> RoundLink:
        if (self.capacity is None) == (self.capacity_pkts is None):
            raise ValueError("give exactly one of capacity (a rate) and capacity_pkts "
                             "(packets per RTT0)")
        for i, c in enumerate(self.capacity_changes):
            if (c.capacity is None) == (c.capacity_pkts is None):
                raise ValueError(f"capacity_changes[{i}]: give exactly one of capacity and "
                                 "capacity_pkts")
            if i and c.step <= self.capacity_changes[i - 1].step:
                raise ValueError(f"capacity_changes[{i}].step must be later than the one before")
        if units.seconds(self.rtt) <= 0:
            raise ValueError("rtt must be > 0")
        if isinstance(self.buffer, str):
            kind, _ = units.packets_or_bytes(self.buffer)
            if kind != "packets":
                raise ValueError("buffer is in packets, e.g. '20pkts'")
        return self

    @property
    def packet_bits(self) -> float:
        return 8.0 * units.size_bytes(self.packet_size)

    def rate_bps(self, rate: str | None, pkts: float | None) -> float:
        """A capacity in bits/s, given as a rate or in packets per RTT0."""
        if rate is not None:
            return units.rate_bps(rate)
        return pkts * self.packet_bits / units.seconds(self.rtt)

    def buffer_pkts(self) -> float:
        return float(self.buffer if not isinstance(self.buffer, str)
                     else units.packets_or_bytes(self.buffer)[1])


class RoundFlows(_Model):
    """``count`` flows running one catalogued controller."""

    controller: str
    params: dict[str, Finite] = {}
    count: Annotated[int, Field(ge=1, le=10_000_000)] = 1
    initial_window: Annotated[float, Field(ge=1, allow_inf_nan=False)] | None = None
    initial_rate: BitRate | None = None


class RoundRecord(_Model):
    every: Annotated[int, Field(ge=0)] = 0
    flows: bool = False


class RoundScenario(_Model):
    """A round-model run: ``run`` (steps, seed), ``link``, ``flows``, ``record``."""

    run: RoundRun
    link: RoundLink
    flows: list[RoundFlows] = Field(min_length=1)
    record: RoundRecord = Field(default_factory=RoundRecord)

    @model_validator(mode="after")
    def _warmup(self) -> RoundScenario:
        if self.run.warmup_steps >= self.run.steps:
            raise ScenarioError.at("run.warmup_steps", self.run.warmup_steps,
                                   f"must be less than run.steps = {self.run.steps}")
        return self

    @classmethod
    def from_dict(cls, data: dict) -> RoundScenario:
        """Validates a dict (e.g. parsed TOML); raises :class:`ScenarioError`."""
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            raise _explain(e, cls) from None

    def to_core(self) -> dict:
        """The engine's form (normalized units)."""
        link = self.link
        feedback = link.feedback
        return {
            "seed": self.run.seed,
            "steps": self.run.steps,
            "warmup_steps": self.run.warmup_steps,
            "capacity_bps": link.rate_bps(link.capacity, link.capacity_pkts),
            "capacity_changes": [
                {"step": c.step, "capacity_bps": link.rate_bps(c.capacity, c.capacity_pkts)}
                for c in link.capacity_changes
            ],
            "rtt0_ns": units.nanoseconds(link.rtt),
            "packet_bytes": round(units.size_bytes(link.packet_size)),
            "buffer_pkts": link.buffer_pkts(),
            "feedback": ({"kind": feedback} if isinstance(feedback, str)
                         else {"kind": "bernoulli", "p": feedback.p}),
            "integer_windows": link.integer_windows,
            "capacity_oracle": link.capacity_oracle,
            "substeps": self.run.substeps,
            "flows": [
                {"controller": f.controller, "params": f.params, "count": f.count,
                 "initial_window_pkts": f.initial_window,
                 "initial_rate_bps": (None if f.initial_rate is None
                                      else units.rate_bps(f.initial_rate))}
                for f in self.flows
            ],
            "record": {"every": self.record.every, "flows": self.record.flows},
        }

    def to_core_json(self) -> str:
        return json.dumps(self.to_core())

    def echo(self) -> dict:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


def loads(text: str) -> RoundScenario:
    """Parses and validates round-model scenario TOML text."""
    return parse_toml(text, RoundScenario)


def load(path: str | Path) -> RoundScenario:
    """Reads and validates a round-model scenario file."""
    return read_toml(path, RoundScenario)


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

    def __init__(self, scenario: RoundScenario, raw: dict):
        self.scenario = scenario
        self.raw = raw
        self.seed: int = raw["seed"]
        self.steps: int = raw["steps"]
        self.measured_steps: int = raw["steps"] - raw["warmup_steps"]
        self.substeps: int = scenario.run.substeps
        self.measured_s: float = raw["measured_s"]
        self.loss_rate: float = raw["lost_pkts"] / raw["sent_pkts"] if raw["sent_pkts"] else 0.0
        self.utilization: float = raw["served_pkts"] / raw["service_pkts"]
        f = raw["flows"]
        bits = scenario.link.packet_bits
        self.flows = pd.DataFrame({
            "flow": np.arange(len(f["name"])),
            "name": f["name"],
            "rate_based": f["rate_based"],
            "sent_pkts": f["sent_pkts"],
            "lost_pkts": f["lost_pkts"],
            "congestion_events": f["congestion_events"],
            "mean_load_pkts": f["sent_pkts"] * self.substeps / self.measured_steps,
            "mean_rate_bps": f["sent_pkts"] * bits / self.measured_s,
        })
        self.series = pd.DataFrame(raw["series"])

    @property
    def n_flows(self) -> int:
        return len(self.flows)

    def flow_series(self) -> pd.DataFrame:
        """A (recorded step × flow) table of each flow's load in packets per control interval
        (its window, for window flows)."""
        loads = np.asarray(self.raw["flow_load_pkts"])
        if loads.size == 0:
            raise ScenarioError("per-flow series were not recorded; set record.flows = true "
                                "and record.every >= 1", "record.flows", "false", "true")
        table = loads.reshape(-1, self.n_flows) * self.substeps
        return pd.DataFrame(table, index=pd.Index(self.series["step"], name="step"))

    def fairness(self) -> dict[str, float]:
        """Jain's index and min/max of the flows' mean loads over the measured steps."""
        x = self.flows["mean_load_pkts"].to_numpy()
        if not np.any(x > 0):
            return {"jain": 0.0, "min_max": 0.0}
        return {"jain": metrics.jain_index(x), "min_max": metrics.min_max_ratio(x)}

    def summary(self) -> dict:
        from .engine import git_commit

        return {
            "ccscope_version": __version__,
            "git_commit": git_commit(),
            "engine": "round",
            "seed": self.seed,
            "steps": self.steps,
            "measured_steps": self.measured_steps,
            "measured_s": self.measured_s,
            "loss_rate": self.loss_rate,
            "utilization": self.utilization,
            "fairness": self.fairness(),
            "flows": self.flows.drop(columns=["flow"]).to_dict(orient="records"),
            "scenario": self.scenario.echo(),
        }

    def write(self, out_dir: str | Path) -> list[Path]:
        """Writes summary.json, and the series as Parquet files when recorded."""
        from .engine import write_summary

        out = Path(out_dir)
        written = [write_summary(out, self.summary())]
        if not self.series.empty:
            written.append(out / "round_series.parquet")
            self.series.to_parquet(written[-1], index=False)
        if len(self.raw["flow_load_pkts"]):
            written.append(out / "round_flows.parquet")
            table = self.flow_series()
            table.columns = [str(c) for c in table.columns]
            table.reset_index().to_parquet(written[-1], index=False)
        return written


def run(spec: RoundScenario | dict | str | Path) -> RoundResult:
    """Runs a round-model scenario (object, dict, or path to a TOML file)."""
    if isinstance(spec, (str, Path)):
        spec = load(spec)
    elif isinstance(spec, dict):
        spec = RoundScenario.from_dict(spec)
    from . import _core

    try:
        raw = _core.run_round(spec.to_core_json())
    except _core.CoreError as e:
        raise ScenarioError(str(e)) from None
    return RoundResult(spec, raw)


def run_file(path: str | Path) -> RoundResult:
    """Loads and runs a round-model scenario file (what ``ccscope run`` dispatches to when
    ``run.engine = "round"``)."""
    return run(load(path))


def validate(spec: RoundScenario) -> None:
    """Checks a scenario against the engine (controller names and parameters) without running
    it; raises :class:`ScenarioError`."""
    from . import _core

    try:
        _core.validate_round(spec.to_core_json())
    except _core.CoreError as e:
        raise ScenarioError(str(e)) from None
