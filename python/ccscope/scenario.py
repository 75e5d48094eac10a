"""Scenarios: TOML files (or dicts) describing the network, the flows and the run.

Values with units stay the strings the user wrote ("15Mbps", "20ms", "1000B") so that a scenario
echoes back exactly as given; :meth:`Scenario.to_core` converts them to the engine's units
(nanoseconds, bits/s, bytes). Every check names the field, the value and what is allowed.
"""

from __future__ import annotations

import json
import math
import tomllib
import types
import typing
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from . import units
from .errors import ScenarioError


def _unit_string(parse, example: str, positive: bool):
    def check(v: object) -> str:
        if isinstance(v, bool) or not isinstance(v, str):
            raise ValueError(f"write it with its unit, as {example}")
        x = parse(v)
        if x < 0 or (positive and x == 0):
            raise ValueError(f"must be {'> 0' if positive else '>= 0'}; expected {example}")
        return v

    return BeforeValidator(check)


BitRate = Annotated[str, _unit_string(units.rate_bps, units.RATE_EXAMPLE, True)]
Delay = Annotated[str, _unit_string(units.seconds, units.TIME_EXAMPLE, True)]
Time = Annotated[str, _unit_string(units.seconds, units.TIME_EXAMPLE, False)]
Size = Annotated[str, _unit_string(units.size_bytes, units.SIZE_EXAMPLE, True)]


def _check_limit(v: object) -> object:
    kind, x = units.packets_or_bytes(v)
    if x < 1:
        raise ValueError("must hold at least one packet (e.g. '50pkts' or '64KB')")
    if kind == "packets" and x != int(x):
        raise ValueError("a packet count must be whole")
    return v


Limit = Annotated[int | str, AfterValidator(_check_limit)]
Probability = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


# --- queues ---------------------------------------------------------------------------------


class DropTail(_Model):
    """First in, first out; arrivals beyond `limit` waiting packets (or bytes) are dropped."""

    kind: Literal["droptail"] = "droptail"
    limit: Limit = "100pkts"

    def to_core(self) -> dict:
        kind, x = units.packets_or_bytes(self.limit)
        if kind == "packets":
            return {"kind": "drop_tail", "limit_packets": int(x), "limit_bytes": None}
        return {"kind": "drop_tail", "limit_packets": None, "limit_bytes": round(x)}


Auto = Literal["auto"]


class Red(_Model):
    """RED (Floyd & Jacobson 1993) as in ns-2, with gentle, wait, ECN and byte mode.

    Thresholds are in packets (multiplied by `mean_packet_size` in byte mode); "auto" applies
    ns-2's automatic rules: min_th = max(5, 2.5 ms of link packets), max_th = 3 min_th, and a
    w_q with a time constant of about ten RTTs.
    """

    kind: Literal["red"]
    limit: Annotated[int, Field(ge=1)] = 1000
    min_th: Annotated[float, Field(ge=0, allow_inf_nan=False)] | Auto = "auto"
    max_th: Annotated[float, Field(gt=0, allow_inf_nan=False)] | Auto = "auto"
    max_p: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)] = 0.1
    w_q: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)] | Auto = "auto"
    gentle: bool = True
    wait: bool = True
    ecn: bool = False
    mode: Literal["packets", "bytes"] = "packets"
    mean_packet_size: Size = "1000B"

    @model_validator(mode="after")
    def _thresholds(self) -> Red:
        if isinstance(self.min_th, float) and isinstance(self.max_th, float):
            if self.min_th >= self.max_th:
                raise ValueError(
                    f"min_th = {self.min_th} must be less than max_th = {self.max_th}"
                )
        return self

    def to_core(self) -> dict:
        auto = lambda v: None if v == "auto" else v  # noqa: E731
        return {
            "kind": "red",
            "limit_packets": self.limit,
            "min_th": auto(self.min_th),
            "max_th": auto(self.max_th),
            "max_p": self.max_p,
            "w_q": auto(self.w_q),
            "gentle": self.gentle,
            "wait": self.wait,
            "ecn": self.ecn,
            "mode": self.mode,
            "mean_packet_bytes": round(units.size_bytes(self.mean_packet_size)),
        }


Queue = Annotated[DropTail | Red, Field(discriminator="kind")]

# --- loss modules ---------------------------------------------------------------------------


class Bernoulli(_Model):
    """Each packet is lost independently with probability `p`."""

    kind: Literal["bernoulli"]
    p: Probability

    def to_core(self) -> dict:
        return {"kind": "bernoulli", "p": self.p}


class Periodic(_Model):
    """Every `every`-th packet is lost."""

    kind: Literal["periodic"]
    every: Annotated[int, Field(ge=1)]

    def to_core(self) -> dict:
        return {"kind": "periodic", "every": self.every}


class LossStep(_Model):
    at: Time
    p: Probability


class Schedule(_Model):
    """Bernoulli loss whose probability changes at the given times (none before the first)."""

    kind: Literal["schedule"]
    steps: list[LossStep] = Field(min_length=1)

    @model_validator(mode="after")
    def _ordered(self) -> Schedule:
        times = [units.seconds(s.at) for s in self.steps]
        for i in range(1, len(times)):
            if times[i] <= times[i - 1]:
                raise ValueError(
                    f"steps[{i}].at = {self.steps[i].at!r} must be later than "
                    f"steps[{i - 1}].at = {self.steps[i - 1].at!r}"
                )
        return self

    def to_core(self) -> dict:
        steps = [{"at_ns": units.nanoseconds(s.at), "p": s.p} for s in self.steps]
        return {"kind": "schedule", "steps": steps}


Loss = Annotated[Bernoulli | Periodic | Schedule, Field(discriminator="kind")]

# --- links and topologies -------------------------------------------------------------------


class CapacityChange(_Model):
    at: Time
    rate: BitRate


class Link(_Model):
    """One link direction: capacity, propagation delay, queue, optional loss module."""

    rate: BitRate
    delay: Delay
    queue: Queue = Field(default_factory=DropTail)
    loss: Loss | None = None
    capacity_changes: list[CapacityChange] = []

    @model_validator(mode="after")
    def _ordered(self) -> Link:
        times = [units.seconds(c.at) for c in self.capacity_changes]
        for i in range(1, len(times)):
            if times[i] <= times[i - 1]:
                raise ValueError(f"capacity_changes[{i}].at must be later than the one before")
        return self

    def to_core(self) -> dict:
        return {
            "rate_bps": round(units.rate_bps(self.rate)),
            "delay_ns": units.nanoseconds(self.delay),
            "queue": self.queue.to_core(),
            "loss": None if self.loss is None else self.loss.to_core(),
            "capacity_changes": [
                {"at_ns": units.nanoseconds(c.at), "rate_bps": round(units.rate_bps(c.rate))}
                for c in self.capacity_changes
            ],
        }


def _default_access() -> Link:
    return Link(rate="1Gbps", delay="1ms", queue=DropTail(limit="10000pkts"))


class Dumbbell(_Model):
    """Senders and receivers on either side of one bottleneck; per-flow access links."""

    kind: Literal["dumbbell"]
    bottleneck: Link
    reverse: Link | None = None
    access: Link = Field(default_factory=_default_access)

    def to_core(self) -> dict:
        return {
            "kind": "dumbbell",
            "bottleneck": self.bottleneck.to_core(),
            "reverse": None if self.reverse is None else self.reverse.to_core(),
            "access": self.access.to_core(),
        }


class FatLink(_Model):
    """One fat link with random loss, shared by all flows (Jin et al. §6.1.1; Yang et al.'s
    high-multiplexing set-up): a dumbbell whose bottleneck never queues much."""

    kind: Literal["fat_link"]
    rate: BitRate = "10Gbps"
    delay: Delay = "1ms"
    buffer: Limit = "100000pkts"
    loss: Loss | None = None
    access: Link = Field(default_factory=_default_access)

    def to_core(self) -> dict:
        link = Link(rate=self.rate, delay=self.delay, queue=DropTail(limit=self.buffer),
                    loss=self.loss)
        return Dumbbell(kind="dumbbell", bottleneck=link, access=self.access).to_core()


class ParkingLot(_Model):
    """A chain of bottlenecks b0 -> b1 -> ... ; each flow crosses a range of `hops`."""

    kind: Literal["parking_lot"]
    hops: list[Link] = Field(min_length=1)
    access: Link = Field(default_factory=_default_access)

    def to_core(self) -> dict:
        return {
            "kind": "parking_lot",
            "hops": [h.to_core() for h in self.hops],
            "access": self.access.to_core(),
        }


class CustomLink(Link):
    from_: str = Field(alias="from")
    to: str
    duplex: bool = True
    monitor: bool = True

    def to_core(self) -> dict:
        return {"from": self.from_, "to": self.to, "duplex": self.duplex,
                "monitor": self.monitor, **super().to_core()}


class Custom(_Model):
    """Any graph of named nodes; flows name their end nodes; routes are fewest-hop."""

    kind: Literal["custom"]
    nodes: list[str] = Field(min_length=2)
    links: list[CustomLink] = Field(min_length=1)

    @model_validator(mode="after")
    def _names(self) -> Custom:
        if len(set(self.nodes)) != len(self.nodes):
            raise ValueError("node names must be unique")
        for i, link in enumerate(self.links):
            for end in (link.from_, link.to):
                if end not in self.nodes:
                    raise ValueError(
                        f"links[{i}] names node {end!r}; known nodes: {', '.join(self.nodes)}"
                    )
        return self

    def to_core(self) -> dict:
        return {"kind": "custom", "nodes": self.nodes, "links": [x.to_core() for x in self.links]}


Topology = Annotated[
    Dumbbell | FatLink | ParkingLot | Custom, Field(discriminator="kind")
]

# --- sources and flows ----------------------------------------------------------------------


class Cbr(_Model):
    """Constant bit rate UDP."""

    kind: Literal["cbr"]
    rate: BitRate
    packet_size: Size = "1000B"

    def to_core(self) -> dict:
        return {"kind": self.kind, "rate_bps": units.rate_bps(self.rate),
                "packet_bytes": round(units.size_bytes(self.packet_size))}


class Poisson(Cbr):
    """UDP with exponential inter-packet gaps of the given mean rate."""

    kind: Literal["poisson"]  # type: ignore[assignment]


def _controller_ref(v: object) -> object:
    """`"gaimd"` or `{ name = "gaimd", beta = 0.875 }` -> {"name": ..., "params": {...}}."""
    if isinstance(v, str):
        return {"name": v, "params": {}}
    if isinstance(v, dict) and "name" in v and "params" not in v:
        return {"name": v["name"], "params": {k: x for k, x in v.items() if k != "name"}}
    return v


class ControllerRef(_Model):
    """A controller by catalogue name with its parameters, or `python:NAME` for one written in
    Python and passed to :func:`ccscope.run` (see ``ccscope controllers``)."""

    FAMILY: ClassVar[str] = "window"

    name: str
    params: dict[str, Annotated[float, Field(allow_inf_nan=False)]] = {}

    @model_validator(mode="after")
    def _known(self) -> ControllerRef:
        if self.name.startswith("python:"):
            if self.params:
                raise ValueError("a Python controller takes its parameters in Python, not here")
            return self
        from .controllers import paper_name

        paper_name(self.name, self.params, self.FAMILY)  # raises ValueError naming the problem
        return self

    def to_core(self) -> tuple[str, list]:
        return self.name, sorted(self.params.items())


class RateControllerRef(ControllerRef):
    """A rate controller by catalogue name (TFRC, TEAR, RAP, SSVP, ISCC, rate AIMD...)."""

    FAMILY: ClassVar[str] = "rate"


class Tcp(_Model):
    """TCP (Reno, NewReno or SACK recovery) whose window comes from a catalogued controller.

    Defaults follow ns-2.35 (SPECS §7.1) except `max_window` (ns-2's `window_` is 20).
    """

    kind: Literal["tcp"]
    variant: Literal["reno", "newreno", "sack"] = "sack"
    controller: Annotated[ControllerRef, BeforeValidator(_controller_ref)] = Field(
        default_factory=lambda: ControllerRef(name="tcp"))
    packet_size: Size = "1000B"
    ack_size: Size = "40B"
    max_window: Annotated[float, Field(ge=1, le=1e9, allow_inf_nan=False)] = 10_000
    initial_window: Annotated[float, Field(ge=1, le=1e9, allow_inf_nan=False)] = 1
    min_rto: Time = "200ms"
    initial_rto: Delay = "3s"
    max_rto: Delay = "60s"
    tick: Time = "10ms"
    max_backoff: Annotated[int, Field(ge=1, le=65536)] = 64
    limited_transmit: bool = True
    delayed_ack: bool = False
    delack: Delay = "100ms"
    transfer: Limit | None = None
    integer_window: bool = True

    @model_validator(mode="after")
    def _rto(self) -> Tcp:
        if units.seconds(self.min_rto) > units.seconds(self.max_rto):
            raise ValueError(f"min_rto = {self.min_rto!r} must not exceed max_rto = "
                             f"{self.max_rto!r}")
        return self

    def to_core(self) -> dict:
        name, params = self.controller.to_core()
        transfer = None
        if self.transfer is not None:
            kind, x = units.packets_or_bytes(self.transfer)
            pkt = units.size_bytes(self.packet_size)
            transfer = int(x) if kind == "packets" else max(1, math.ceil(x / pkt))
        return {
            "kind": "tcp",
            "variant": {"newreno": "new_reno"}.get(self.variant, self.variant),
            "controller": name,
            "params": params,
            "packet_bytes": round(units.size_bytes(self.packet_size)),
            "ack_bytes": round(units.size_bytes(self.ack_size)),
            "max_window_pkts": self.max_window,
            "initial_window_pkts": self.initial_window,
            "min_rto_ns": units.nanoseconds(self.min_rto),
            "initial_rto_ns": units.nanoseconds(self.initial_rto),
            "max_rto_ns": units.nanoseconds(self.max_rto),
            "tick_ns": units.nanoseconds(self.tick),
            "max_backoff": self.max_backoff,
            "limited_transmit": self.limited_transmit,
            "delayed_ack": self.delayed_ack,
            "delack_ns": units.nanoseconds(self.delack),
            "transfer_pkts": transfer,
            "integer_window": self.integer_window,
        }


class Rate(_Model):
    """A paced, rate-controlled flow: not ACK-clocked, no retransmissions; the receiver reports
    as its protocol defines (TFRC, TEAR, RAP, SSVP, ISCC, Loguinov's rate AIMD/binomial)."""

    kind: Literal["rate"]
    controller: Annotated[RateControllerRef, BeforeValidator(_controller_ref)]
    packet_size: Size = "1000B"
    initial_rate: BitRate | None = None
    min_rate: BitRate | None = None
    bunch: Annotated[int, Field(ge=0, le=64)] = 0
    jitter: Annotated[float, Field(ge=0, lt=1, allow_inf_nan=False)] = 0.0
    feedback: (Literal["per-rtt", "per-packet", "tfrc", "tfrc-ns2", "tfrc-2000", "tear"]
               | None) = None

    @model_validator(mode="after")
    def _feedback(self) -> Rate:
        if self.controller.name.startswith("python:") and self.feedback is None:
            raise ValueError("a Python rate controller needs `feedback` (per-rtt, per-packet, "
                             "tfrc, tfrc-ns2, tfrc-2000 or tear): the receiver it expects")
        return self

    def to_core(self) -> dict:
        name, params = self.controller.to_core()
        opt = lambda r: None if r is None else units.rate_bps(r)  # noqa: E731
        return {
            "kind": "rate",
            "controller": name,
            "params": dict(params),
            "packet_bytes": round(units.size_bytes(self.packet_size)),
            "initial_rate_bps": opt(self.initial_rate),
            "min_rate_bps": opt(self.min_rate),
            "bunch": self.bunch,
            "jitter": self.jitter,
            "feedback": self.feedback,
        }


Source = Annotated[Cbr | Poisson | Tcp | Rate, Field(discriminator="kind")]


class Flow(_Model):
    """One flow (or `count` identical ones)."""

    source: Source
    count: Annotated[int, Field(ge=1, le=1_000_000)] = 1
    start: Time = "0s"
    start_jitter: Time = "0s"
    stop: Time | None = None
    ecn: bool = False
    reverse: bool = False
    left_delay: Delay | None = None
    right_delay: Delay | None = None
    hops: tuple[Annotated[int, Field(ge=0)], Annotated[int, Field(ge=0)]] | None = None
    from_: str | None = Field(default=None, alias="from")
    to: str | None = None

    @model_validator(mode="after")
    def _times(self) -> Flow:
        if self.stop is not None and units.seconds(self.stop) <= units.seconds(self.start):
            raise ValueError(f"stop = {self.stop!r} must be later than start = {self.start!r}")
        if self.hops is not None and self.hops[0] > self.hops[1]:
            raise ValueError(f"hops = {list(self.hops)}: the first hop must not exceed the last")
        return self

    def to_core(self) -> dict:
        opt_ns = lambda t: None if t is None else units.nanoseconds(t)  # noqa: E731
        return {
            "source": self.source.to_core(),
            "start_ns": units.nanoseconds(self.start),
            "start_jitter_ns": units.nanoseconds(self.start_jitter),
            "stop_ns": opt_ns(self.stop),
            "ecn": self.ecn,
            "reverse": self.reverse,
            "left_delay_ns": opt_ns(self.left_delay),
            "right_delay_ns": opt_ns(self.right_delay),
            "hops": None if self.hops is None else list(self.hops),
            "from": self.from_,
            "to": self.to,
        }


class Run(_Model):
    duration: Time
    warmup: Time = "0s"
    seed: Annotated[int, Field(ge=0, lt=2**64)] = 1
    engine: Literal["packet"] = "packet"


class Trace(_Model):
    """What to record beyond the summary: series every `interval`, and an event log."""

    interval: Delay = "100ms"
    flows: bool = True
    queues: bool = True
    events: bool = False


class Scenario(_Model):
    """A whole run: network, flows, settings and (optionally) traces."""

    run: Run
    topology: Topology
    flows: list[Flow] = Field(min_length=1)
    trace: Trace | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        duration = units.seconds(self.run.duration)
        if duration <= 0:
            raise ScenarioError.at("run.duration", self.run.duration, "must be > 0")
        if units.seconds(self.run.warmup) >= duration:
            raise ScenarioError.at(
                "run.warmup", self.run.warmup, f"must be shorter than run.duration = "
                f"{self.run.duration!r}")
        topo = self.topology
        for i, f in enumerate(self.flows):
            where = f"flows[{i}]"
            if isinstance(topo, Custom):
                for name, value in (("from", f.from_), ("to", f.to)):
                    if value is None:
                        raise ScenarioError.at(f"{where}.{name}", value,
                                               "a custom topology needs both end nodes")
                    if value not in topo.nodes:
                        raise ScenarioError.at(f"{where}.{name}", value,
                                               f"known nodes: {', '.join(topo.nodes)}")
            elif f.from_ is not None or f.to is not None:
                raise ScenarioError.at(f"{where}.from", f.from_,
                                       "from/to name nodes of a custom topology only")
            if isinstance(topo, ParkingLot):
                if f.hops is not None and f.hops[1] >= len(topo.hops):
                    raise ScenarioError.at(f"{where}.hops", list(f.hops),
                                           f"hops are numbered 0..{len(topo.hops) - 1}")
            elif f.hops is not None:
                raise ScenarioError.at(f"{where}.hops", list(f.hops),
                                       "hops apply to a parking_lot topology only")
        return self

    def expanded_flows(self) -> list[Flow]:
        """The flows with `count` expanded, in order."""
        return [f for f in self.flows for _ in range(f.count)]

    def to_core(self) -> dict:
        """The engine's form of this scenario (normalized units)."""
        trace = {"interval_ns": None, "flows": False, "queues": False, "events": False}
        if self.trace is not None:
            trace = {
                "interval_ns": units.nanoseconds(self.trace.interval),
                "flows": self.trace.flows,
                "queues": self.trace.queues,
                "events": self.trace.events,
            }
        return {
            "seed": self.run.seed,
            "duration_ns": units.nanoseconds(self.run.duration),
            "warmup_ns": units.nanoseconds(self.run.warmup),
            "topology": self.topology.to_core(),
            "flows": [f.to_core() for f in self.expanded_flows()],
            "trace": trace,
        }

    def to_core_json(self) -> str:
        return json.dumps(self.to_core())

    def echo(self) -> dict:
        """The scenario as written (units as strings), for results."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    @classmethod
    def from_dict(cls, data: dict) -> Scenario:
        """Validates a dict (e.g. parsed TOML); raises :class:`ScenarioError`."""
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            raise _explain(e, cls) from None


def parse_toml(text: str, model: type[Scenario] | Any = None) -> Any:
    """Parses TOML text and validates it with `model` (a model with ``from_dict``, default
    :class:`Scenario`); raises :class:`ScenarioError`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"malformed TOML: {e}") from None
    return (model or Scenario).from_dict(data)


def read_toml(path: str | Path, model: type[Scenario] | Any = None) -> Any:
    """Reads a TOML scenario file and validates it with `model` (default :class:`Scenario`);
    every error names the file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(f"{p}: no such scenario file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(f"{p}: cannot read scenario file ({e})") from None
    try:
        return parse_toml(text, model)
    except ScenarioError as e:
        raise ScenarioError(f"{p}: {e}", e.field, e.value, e.allowed) from None


def loads(text: str) -> Scenario:
    """Parses and validates scenario TOML text."""
    return parse_toml(text)


def load(path: str | Path) -> Scenario:
    """Reads and validates a scenario TOML file."""
    return read_toml(path)


# --- error messages -------------------------------------------------------------------------


def _walk(model: Any, loc: tuple) -> tuple[str, Any]:
    """Follows a validation error location through the schema. Returns the location as the
    user writes it (union tags left out, list items as [i]) and the type it ends at."""
    t: Any = model
    path = ""
    for part in loc:
        t, is_tag = _step(t, part)
        if is_tag:
            continue
        path += f"[{part}]" if isinstance(part, int) else ("." if path else "") + str(part)
    return path, _step(t, None)[0]


def _step(t: Any, part: Any) -> tuple[Any, bool]:
    """One location element into a type: a model's field, a list's item, or the member of a
    tagged union selected by `part` (then the element is a tag, not part of the path)."""
    while True:
        origin = typing.get_origin(t)
        if origin is Annotated:
            t = typing.get_args(t)[0]
        elif origin in (Union, types.UnionType):
            members = [a for a in typing.get_args(t) if a is not type(None)]
            models = [m for m in members if isinstance(m, type) and issubclass(m, BaseModel)]
            for m in models:
                kind = m.model_fields.get("kind")
                if part is not None and kind and part in typing.get_args(kind.annotation):
                    return m, True
            if len(models) == 1:
                t = models[0]
            elif len(members) == 1:
                t = members[0]
            else:
                return (t if part is None else None), False
        elif origin in (list, tuple) and isinstance(part, int):
            return typing.get_args(t)[0], False
        else:
            break
    if part is not None and isinstance(t, type) and issubclass(t, BaseModel):
        for name, f in t.model_fields.items():
            if part in (name, f.alias):
                return f.annotation, False
        return None, False
    return (t if part is None else None), False


def _explain(error: ValidationError, model: type[BaseModel]) -> ScenarioError:
    errors = error.errors()
    e = errors[0]
    cause = (e.get("ctx") or {}).get("error")
    if isinstance(cause, ScenarioError):
        return cause
    loc = tuple(e["loc"])
    field, _ = _walk(model, loc)
    value = e.get("input")
    kind = e["type"]
    if kind == "extra_forbidden":
        field, parent = _walk(model, loc[:-1])
        keys = ""
        if isinstance(parent, type) and issubclass(parent, BaseModel):
            keys = ", ".join(f.alias or n for n, f in parent.model_fields.items())
        allowed = f"unknown key; allowed keys: {keys}" if keys else "unknown key"
        value = loc[-1]
        field = f"{field}.{value}" if field else str(value)
        msg = f"{field}: {allowed}"
    elif kind == "union_tag_invalid":
        allowed = "expected one of: " + e["ctx"]["expected_tags"]
        field, value = (f"{field}.kind" if field else "kind"), e["ctx"]["tag"]
        msg = f"{field} = {value!r} is not known; {allowed}"
    elif kind in ("union_tag_not_found", "missing"):
        allowed = "a 'kind' key is required" if kind != "missing" else "this key is required"
        msg = f"{field}: {allowed}"
    else:
        allowed = e["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
        if isinstance(value, dict):
            msg = f"{field or 'scenario'}: {allowed}"
        else:
            msg = f"{field} = {value!r}: {allowed}"
    if len(errors) > 1:
        msg += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return ScenarioError(msg, field, repr(value), allowed)
