"""The controller catalogue, and controllers written in Python.

``ccscope controllers`` prints :func:`catalogue`. A scenario names a controller by catalogue
name (``controller = "gaimd"`` or ``controller = { name = "gaimd", beta = 0.875 }``), or as
``python:NAME`` for a :class:`WindowController` (TCP sources) or :class:`RateController`
(rate sources) handed to :func:`ccscope.run`.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import ControllerError


def _core():
    from . import _core

    return _core


@functools.cache
def catalogue() -> list[dict]:
    """Every catalogued controller: name, family ("window" for TCP sources, "rate" for rate
    sources), summary, β convention, source paper, parameters."""
    return json.loads(_core().controllers_json())


def paper_name(name: str, params: dict[str, float] | None = None, family: str = "window") -> str:
    """The controller's name in its paper's notation, e.g. ``GAIMD(0.31,0.875)``; raises
    :class:`ccscope.ControllerError` (a ValueError) naming the problem when the name or a
    parameter is not allowed. `family` is "window" (run by TCP) or "rate" (run by the rate
    transport)."""
    return _core().controller_name(family, name, sorted((params or {}).items()))


@dataclass
class WindowController:
    """A window controller written in Python, run by the packet engine's TCP.

    ``increase(w)`` is the congestion-avoidance growth per RTT at window ``w`` (packets), spread
    over the ACKs of a window as TCP does; ``decrease(w)`` is the window after a congestion
    event (the new window, not the amount removed; both finite and >= 0). Slow start, the
    once-per-RTT reduction, timeouts and loss recovery are TCP's.

    The same object goes to :func:`ccscope.run` and to :func:`ccscope.check.check`, which
    reads it as Loguinov & Radha's R_I(w) = increase(w) and R_D(w) = w − decrease(w).

    >>> aimd = WindowController("AIMD(1/5,1/8)", increase=lambda w: 0.2,
    ...                         decrease=lambda w: w * 7 / 8)
    >>> ccscope.run(scenario, controllers={"aimd": aimd})   # scenario names "python:aimd"
    >>> from ccscope import check
    >>> check.check(aimd)                                   # the theory's verdict on it

    Subclasses may override the two methods instead of passing callables.
    """

    name: str
    increase_fn: Callable[[float], float] | None = None
    decrease_fn: Callable[[float], float] | None = None

    def __init__(
        self,
        name: str,
        increase: Callable[[float], float] | None = None,
        decrease: Callable[[float], float] | None = None,
    ):
        self.name = name
        self.increase_fn = increase
        self.decrease_fn = decrease

    def increase(self, w: float) -> float:
        if self.increase_fn is None:
            raise TypeError(f"{self.name}: give increase= or override increase()")
        return self.increase_fn(w)

    def decrease(self, w: float) -> float:
        if self.decrease_fn is None:
            raise TypeError(f"{self.name}: give decrease= or override decrease()")
        return self.decrease_fn(w)


class RateController:
    """A rate controller written in Python, run by the packet engine's rate transport.

    Override :meth:`rate_bps` (the pacing rate, bits/s, read after every call) and
    :meth:`on_report` (one receiver report: ``rtt_s``, ``recv_rate_bps``, ``loss_event_rate``,
    ``lost_pkts``, ``received_pkts``, ``loss_sent_at_s``, ``new_loss_event``, ``rate_bps``,
    ``capacity_bps``, ``now_s``; absent values are None). The scenario's ``feedback`` picks the
    receiver that produces the reports. Optionally override :meth:`feedback_timeout_s` and
    :meth:`on_no_feedback` for a no-feedback timer.

    >>> class Aimd(RateController):
    ...     name = "rate-AIMD-py"
    ...     def __init__(self): self.rate = 100e3
    ...     def rate_bps(self): return self.rate
    ...     def on_report(self, r):
    ...         self.rate = self.rate / 2 if r["lost_pkts"] else self.rate + 10e3
    """

    name = "python-rate"

    def rate_bps(self) -> float:
        raise TypeError(f"{type(self).__name__}: override rate_bps()")

    def on_report(self, report: dict) -> None:
        raise TypeError(f"{type(self).__name__}: override on_report()")

    def feedback_timeout_s(self) -> float | None:
        return None

    def on_no_feedback(self, now_s: float) -> None:
        return None

    def on_round(self, sample: dict) -> None:
        """The round model's step (``now_s``, ``interval_s``, ``congested``,
        ``loss_fraction``, ``capacity_bps``): override it to run in the round model."""
        raise TypeError(
            f"{type(self).__name__}: override on_round(sample) to run in the round model"
        )


#: What ``controllers={...}`` maps a name to: a controller class or a factory (called once per
#: flow), or an instance (deep-copied once per flow).
ControllerSpec = Any


def _make(key: str, spec: ControllerSpec) -> Any:
    """A fresh controller object for one flow."""
    if isinstance(spec, type) or (callable(spec) and not _is_controller(spec)):
        try:
            obj = spec()
        except TypeError as e:
            raise ControllerError(
                f"controllers[{key!r}]: calling {getattr(spec, '__name__', spec)!r} with no "
                f"arguments failed ({e})",
                "controllers",
                repr(key),
                "a class or factory that takes no arguments, or an instance (copied per flow)",
            ) from None
    else:
        obj = copy.deepcopy(spec)
    if not _is_controller(obj):
        raise ControllerError(
            f"controllers[{key!r}]: {type(obj).__name__} is not a controller",
            "controllers",
            repr(key),
            "a WindowController or RateController (or its class, or a factory returning one)",
        )
    return obj


def _is_window(obj: object) -> bool:
    return hasattr(obj, "increase") and hasattr(obj, "decrease")


def _is_rate(obj: object) -> bool:
    return hasattr(obj, "rate_bps") and hasattr(obj, "on_report")


def _is_controller(obj: object) -> bool:
    return _is_window(obj) or _is_rate(obj)


@dataclass(frozen=True)
class FlowControllers:
    """The Python controller objects of one run's flows, by flow index (counts expanded)."""

    #: (display name, object) per flow, as the core receives them.
    by_flow: dict[int, tuple[str, Any]]
    #: :func:`describe` of each object, taken before the run.
    provenance: dict[int, dict]

    @property
    def objects(self) -> dict[int, Any]:
        """The object each flow runs."""
        return {i: obj for i, (_, obj) in self.by_flow.items()}

    def summary(self) -> dict:
        """What summary.json records of them (nothing when the run has none)."""
        if not self.provenance:
            return {}
        return {"python_controllers": {str(i): d for i, d in self.provenance.items()}}


def per_flow(
    table: dict, supplied: dict[str, ControllerSpec] | None, key: str = "source"
) -> FlowControllers:
    """One controller object per flow that names ``python:NAME``, keyed by the flow's index
    (counts expanded, as in results): a flow never shares state with another. `table` is a
    normalized scenario; each flow's controller is at ``flows[i].<key>.controller`` (or
    ``flows[i].controller`` when `key` is empty, as in the round model)."""
    supplied = supplied or {}
    out: dict[int, tuple[str, Any]] = {}
    index = 0
    for i, flow in enumerate(table["flows"]):
        holder = flow.get(key, {}) if key else flow
        ref = holder.get("controller") if isinstance(holder, dict) else None
        name = ref if isinstance(ref, str) else None
        count = flow.get("count", 1)
        if name and name.startswith("python:"):
            wanted = name.removeprefix("python:")
            path = f"flows[{i}].{key}.controller" if key else f"flows[{i}].controller"
            if wanted not in supplied:
                raise ControllerError(
                    f"{path} = {name!r}: no Python controller of that name was supplied "
                    f"(controllers={{{wanted!r}: ...}})",
                    path,
                    repr(name),
                    f"one of the names given: {', '.join(supplied) or '(none given)'}",
                )
            kind = holder.get("kind") if key else None
            for j in range(count):
                obj = _make(wanted, supplied[wanted])
                wrong = (kind == "tcp" and not _is_window(obj)) or (
                    kind == "rate" and not _is_rate(obj)
                )
                if wrong:
                    need = "WindowController" if kind == "tcp" else "RateController"
                    raise ControllerError(
                        f"{path} = {name!r}: a {kind} source runs a {need}, not "
                        f"{type(obj).__name__}",
                        path,
                        repr(name),
                        f"a {need}",
                    )
                out[index + j] = (str(getattr(obj, "name", wanted)), obj)
        index += count
    return FlowControllers(out, {i: describe(obj) for i, (_, obj) in out.items()})


def importable(name: str) -> Any:
    """The object ``python:module:object`` names (module imported, object looked up), for runs
    that cannot be handed objects, such as a sweep's workers."""
    import importlib

    module, _, attr = name.removeprefix("python:").partition(":")
    allowed = "python:module:object, naming an importable WindowController or RateController"
    if not module or not attr:
        raise ControllerError.at("controller", name, allowed)
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise ControllerError.at("controller", name, f"{allowed} ({e})") from None


def importables(table: dict) -> dict[str, Any]:
    """Every ``python:module:object`` controller a normalized packet scenario names, by the
    name :func:`per_flow` looks up."""
    names = [f.get("source", {}).get("controller") for f in table.get("flows", [])]
    return {
        n.removeprefix("python:"): importable(n)
        for n in names
        if isinstance(n, str) and n.startswith("python:") and n.count(":") == 2
    }


def _source(obj: object) -> str:
    try:
        return inspect.getsource(obj)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return ""


def describe(obj: Any) -> dict:
    """Where a Python controller comes from, for results: its name, class and module, its
    parameters (public numbers, strings and booleans it holds) and a SHA-256 of its source
    (the class, and the functions a WindowController was given)."""
    cls = type(obj)
    sources = [_source(cls)]
    for attr in ("increase_fn", "decrease_fn"):
        fn = getattr(obj, attr, None)
        if fn is not None:
            sources.append(_source(fn))
    params = {
        k: v
        for k, v in vars(obj).items()
        if not k.startswith("_") and isinstance(v, (bool, int, float, str))
    }
    return {
        "name": str(getattr(obj, "name", cls.__name__)),
        "class": cls.__qualname__,
        "module": cls.__module__,
        "params": params,
        "source_sha256": hashlib.sha256("\n".join(sources).encode()).hexdigest(),
    }
