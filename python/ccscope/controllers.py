"""The controller catalogue, and controllers written in Python.

``ccscope controllers`` prints :func:`catalogue`. A scenario names a controller the same way
in a packet scenario (``flows[i].source.controller``) and a round scenario
(``flows[i].controller``):

- catalogued: ``"gaimd"``, ``"GAIMD(0.31,0.875)"`` or ``{ name = "gaimd", beta = 0.875 }``;
- written in Python: ``"python:module:Object"`` (a class or factory in ``module.py`` beside
  the scenario file or in the working directory), with parameters as a table
  ``{ name = "python:mymod:Vegas", alpha = 2, target = "20ms" }``; or ``"python:NAME"`` for
  an object handed to :func:`ccscope.run` as ``controllers={"NAME": ...}``.

A controller written in Python is a :class:`Controller` (any design: it sees every ACK, loss,
report, media feedback or round, and sets a window, a pacing rate, an encoder's target rate),
a :class:`WindowController` (a paper's one-line rule ``increase(w)``/``decrease(w)`` inside
TCP's window), or a :class:`RateController` (a rate from receiver reports). An ``rtp``
source (the media transport) runs a :class:`Controller` that overrides :meth:`on_feedback`.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import importlib
import importlib.util
import inspect
import json
import re
import sys
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ControllerError

if typing.TYPE_CHECKING:
    from .scenario import Scenario


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


class Controller:
    """A congestion controller written in Python: subclass it and override the hooks it reacts
    to. The engine calls only the hooks a subclass overrides, then reads the outputs back.

    Outputs (attributes, read after every hook; set the starting values in ``__init__``):

    - ``window_pkts``: the congestion window in packets, in [1, 1e9], or None when the
      controller does not limit by window;
    - ``pacing_rate_bps``: the sending rate in bits/s, in [1, 1e12], or None: a rate-based
      sender's rate, or the pace of a window-based one (the TCP transport paces when given);
    - ``target_rate_bps``: on an ``rtp`` source, the encoder's target in bits/s, in [1, 1e12],
      or None: the pacing rate is the target (the sender paces at ``pacing_rate_bps``, or at
      the target when that is None);
    - ``wakeup_s``: a time (s) at which :meth:`on_wakeup` is called, or None;
    - ``feedback_timeout_s``: on the rate transport, how long without a report before
      :meth:`on_no_feedback` (or :meth:`on_no_feedback_idle`) is called, or None;
    - ``wants_delivery_rate``: read once: set it true for ``ack.delivery`` samples;
    - ``feedback_format`` ("rfc8888" or "transport-wide"), ``feedback_interval_s`` (in
      [1e-6, 10]), ``feedback_per_frame``: read once, the feedback an ``rtp`` source's receiver
      sends when the scenario does not say (None: RFC 8888 every 50 ms).

    Hooks (each receives one object whose fields carry their units in their names):

    - :meth:`on_ack` (TCP, every ACK): ``now_s``, ``acked_pkts``, ``acked_bytes``,
      ``sacked_pkts``, ``delivered_pkts`` (the packets the ACK newly delivers, each counted
      once: ``acked_pkts + sacked_pkts`` counts a packet SACKed before the cumulative ACK passes
      it twice; RFC 6937's DeliveredData), ``growth_pkts`` (the steps of growth the ACK counts:
      1 for an ACK of new data, or with the source's ``growth = "per_packet"`` the packets it
      acknowledges; 0 for a duplicate), ``rtt_s``, ``srtt_s``, ``min_rtt_s``, ``in_flight_pkts``,
      ``in_flight_bytes``, ``ce_pkts``, ``ce_bytes``, ``ece``, ``in_recovery``,
      ``timeout_outstanding`` (packets a timeout found outstanding are still unacknowledged:
      Linux's ``TCP_CA_Loss`` state), ``rwnd_limited`` and ``delivery`` (``rate_bps``,
      ``delivered_pkts``, ``delivered_bytes``, ``interval_s``, ``app_limited``,
      ``total_delivered_pkts``, ``tx_in_flight_pkts``, ``lost_pkts``; None unless asked for);
    - :meth:`on_loss` (TCP, once per congestion signal): ``now_s``, ``kind`` ("gap",
      "timeout" or "ecn"), ``sent_at_s``, ``lost_pkts``; :meth:`on_undo` when the last one
      proves spurious;
    - :meth:`on_report` (rate transport, per receiver report): ``now_s``, ``rtt_s``,
      ``one_way_delay_s``, ``recv_rate_bps``, ``loss_event_rate``, ``lost_pkts``,
      ``received_pkts``, ``loss_sent_at_s``, ``new_loss_event``, ``rate_bps``,
      ``capacity_bps``;
    - :meth:`on_feedback` (``rtp`` source, per feedback packet): ``now_s``, ``report_s`` (when
      the receiver sent it), ``format``, ``rtt_s``, ``in_flight_bytes`` (sent, not yet
      covered by feedback), ``size_bytes`` and ``packets``, in sequence order, each with
      ``seq``, ``size_bytes``, ``sent_s``, ``arrived_s`` (None: not received), ``ect``, ``ce``;
    - :meth:`on_round` (round model, per step): ``now_s``, ``interval_s``, ``congested``,
      ``loss_fraction``, ``capacity_bps``, ``base_rtt_s``, ``queueing_delay_s``;
    - :meth:`on_wakeup`, :meth:`on_no_feedback`, :meth:`on_no_feedback_idle`: the time (s).

    A controller that limits by window is a window flow in the round model, else a rate flow.
    An exception in a hook, or an output outside what is allowed, stops the run with one
    :class:`ccscope.ControllerError` naming the flow, the hook and the value; the result up to
    then is its ``result``.

    >>> class DelayAimd(ccscope.Controller):
    ...     def __init__(self, target: float = 0.005):
    ...         self.target, self.window_pkts = target, 2.0
    ...     def on_ack(self, ack):
    ...         if ack.acked_pkts and ack.rtt_s is not None and ack.min_rtt_s is not None:
    ...             if ack.rtt_s - ack.min_rtt_s > self.target:
    ...                 self.window_pkts = max(1.0, self.window_pkts - 0.5 / self.window_pkts)
    ...             else:
    ...                 self.window_pkts += 1.0 / self.window_pkts
    ...     def on_loss(self, loss):
    ...         self.window_pkts = max(1.0, self.window_pkts / 2)
    """

    #: The name results show; the class's name when None.
    name: str | None = None
    window_pkts: float | None = None
    pacing_rate_bps: float | None = None
    target_rate_bps: float | None = None
    wakeup_s: float | None = None
    feedback_timeout_s: float | None = None
    wants_delivery_rate: bool = False
    feedback_format: str | None = None
    feedback_interval_s: float | None = None
    feedback_per_frame: bool | None = None

    def on_ack(self, ack: Any) -> None:
        """One acknowledgement (TCP)."""

    def on_loss(self, loss: Any) -> None:
        """One congestion signal (TCP): at most once per window of data for gaps and marks."""

    def on_undo(self, now_s: float) -> None:
        """The last congestion signal was spurious (Eifel detection, RFC 3522)."""

    def on_report(self, report: Any) -> None:
        """One receiver report (the rate transport)."""

    def on_feedback(self, feedback: Any) -> None:
        """One media receiver's feedback packet (the ``rtp`` source)."""

    def on_round(self, round: Any) -> None:
        """One step of the round model."""

    def on_wakeup(self, now_s: float) -> None:
        """The time ``wakeup_s`` asked for has come."""

    def on_no_feedback(self, now_s: float) -> None:
        """No report for ``feedback_timeout_s`` (the rate transport)."""

    def on_no_feedback_idle(self, now_s: float) -> None:
        """No report for ``feedback_timeout_s`` while the sender was idle the whole time: it
        sent nothing since the timer was set and its application has nothing to send (RFC 5348
        §4.4's case). Unless overridden, the expiry goes to :meth:`on_no_feedback` as any
        other."""
        self.on_no_feedback(now_s)


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
    :meth:`on_report` (one receiver report: ``rtt_s``, ``one_way_delay_s``,
    ``recv_rate_bps``, ``loss_event_rate``, ``lost_pkts``, ``received_pkts``,
    ``loss_sent_at_s``, ``new_loss_event``, ``rate_bps``, ``capacity_bps``, ``now_s``;
    absent values are None). The scenario's ``feedback`` picks the receiver that produces the
    reports. Optionally override :meth:`feedback_timeout_s` and :meth:`on_no_feedback` for a
    no-feedback timer, and :meth:`on_no_feedback_idle` for an expiry that finds the sender idle
    (RFC 5348 §4.4; by default it calls :meth:`on_no_feedback`).

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

    def on_no_feedback_idle(self, now_s: float) -> None:
        self.on_no_feedback(now_s)

    def on_round(self, sample: dict) -> None:
        """The round model's step (``now_s``, ``interval_s``, ``congested``,
        ``loss_fraction``, ``capacity_bps``, ``base_rtt_s``, ``queueing_delay_s``): override
        it to run in the round model."""
        raise TypeError(
            f"{type(self).__name__}: override on_round(sample) to run in the round model"
        )


#: What ``controllers={...}`` maps a name to: a controller class or a factory (called once per
#: flow, with the scenario's parameters), or an instance (deep-copied once per flow).
ControllerSpec = Any

PREFIX = "python:"


@contextlib.contextmanager
def user_code(failed: Callable[[BaseException], ControllerError]) -> Iterator[None]:
    """Runs a block that calls code written by the user (a module's import, a factory, a
    window rule): whatever it raises, ``sys.exit`` and ``MemoryError`` included, becomes
    ``failed(exception)`` (with the exception as its cause), except Ctrl-C and an error
    already explained."""
    try:
        yield
    except (KeyboardInterrupt, ControllerError):
        raise
    except BaseException as e:
        raise failed(e) from e


def raised(e: BaseException) -> str:
    """``raised Kind: message`` of an exception of user code (``raised SystemExit: 3``)."""
    return f"raised {type(e).__name__}" + (f": {e}" if str(e) else "")


def _is_window(obj: object) -> bool:
    return hasattr(obj, "increase") and hasattr(obj, "decrease")


def _is_rate(obj: object) -> bool:
    return hasattr(obj, "rate_bps") and hasattr(obj, "on_report")


def _is_controller(obj: object) -> bool:
    return isinstance(obj, Controller) or _is_window(obj) or _is_rate(obj)


@dataclass(frozen=True)
class PythonRef:
    """A controller written in Python as a scenario entry names it, with where it sits."""

    #: ``flows[1].source.controller``: where the scenario names it.
    path: str
    #: The name as written: ``python:NAME`` or ``python:module:Object``.
    name: str
    #: The module to import, or None for an object handed to the run.
    module: str | None
    object: str
    params: dict[str, Any]
    #: The scenario entry's source kind ("tcp", "rate"), or None in the round model.
    kind: str | None
    count: int


def _parse(value: Any) -> tuple[str, dict[str, Any]] | None:
    """(name, parameters) of a controller value naming a Python controller, else None."""
    if isinstance(value, str):
        return (value, {}) if value.startswith(PREFIX) else None
    if isinstance(value, dict) and str(value.get("name", "")).startswith(PREFIX):
        return value["name"], {k: v for k, v in value.items() if k != "name"}
    return None


def python_refs(table: dict) -> list[PythonRef]:
    """The Python controllers a normalized scenario names, entry by entry (packet scenarios at
    ``flows[i].source.controller``, round scenarios at ``flows[i].controller``)."""
    refs = []
    for i, flow in enumerate(table.get("flows", [])):
        source = flow.get("source")
        holder, path = (
            (source, f"flows[{i}].source.controller")
            if isinstance(source, dict)
            else (flow, f"flows[{i}].controller")
        )
        parsed = _parse(holder.get("controller"))
        if parsed is None:
            continue
        name, params = parsed
        module, _, obj = name.removeprefix(PREFIX).rpartition(":")
        kind = source.get("kind") if isinstance(source, dict) else None
        refs.append(PythonRef(path, name, module or None, obj, params, kind, flow.get("count", 1)))
    return refs


def _search_dirs(scenario_file: str) -> list[Path]:
    """Where a scenario's modules are looked for: beside its file (and, for a run's
    summary.json run again, where the run found them), then the working directory."""
    dirs = []
    if scenario_file:
        f = Path(scenario_file).resolve()
        dirs.append(f.parent)
        if f.suffix == ".json":
            dirs += _recorded_dirs(f)
    return list(dict.fromkeys([*dirs, Path.cwd()]))


def _recorded_dirs(summary: Path) -> list[Path]:
    """The folders a run's summary.json says its Python controllers' modules were imported
    from (the folder ``module`` resolves from, for a dotted module name)."""
    try:
        recorded = json.loads(summary.read_text(encoding="utf-8")).get("python_controllers", {})
    except (OSError, ValueError, AttributeError):
        return []
    dirs = []
    for d in recorded.values():
        if isinstance(d, dict) and "module_file" in d:
            root = Path(d["module_file"]).parent
            for _ in str(d.get("module", "")).split(".")[1:]:
                root = root.parent
            dirs.append(root)
    return dirs


def module_file(ref: PythonRef, scenario_file: str = "") -> Path:
    """The file `ref`'s module is read from: ``module.py`` (or ``module/__init__.py``; dotted
    names as folders) beside the scenario file or in the working directory, else wherever the
    import path has it."""
    parts = ref.module.split(".")
    for d in _search_dirs(scenario_file):
        for candidate in (d.joinpath(*parts).with_suffix(".py"), d.joinpath(*parts, "__init__.py")):
            if candidate.is_file():
                return candidate
    try:
        spec = importlib.util.find_spec(ref.module)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.origin or not Path(spec.origin).is_file():
        where = " or ".join(str(d) for d in _search_dirs(scenario_file))
        raise ControllerError(
            f"{ref.path} = {ref.name!r}: no module {ref.module!r} beside the scenario or in the "
            f"working directory ({where}), nor on the import path",
            ref.path,
            repr(ref.name),
            f"a file {ref.module.replace('.', '/')}.py in {where}",
        )
    return Path(spec.origin)


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


#: Modules loaded from files, by (path, SHA-256): an edited file is loaded again.
_LOADED: dict[tuple[str, str], Any] = {}


def _load(ref: PythonRef, scenario_file: str) -> tuple[Any, Path]:
    """`ref`'s module, loaded from its file (again whenever the file changed), and the file."""
    path = module_file(ref, scenario_file)
    key = (str(path), file_sha256(path))
    module = _LOADED.get(key)
    if module is None:
        root = path.parent
        for _ in ref.module.split(".")[1:] + ([""] if path.name == "__init__.py" else []):
            root = root.parent
        sys.path.insert(0, str(root))
        failed = functools.partial(
            _failed, ref, f"importing {ref.module} ({path})", "a module that imports"
        )
        try:
            for name in [
                m for m in sys.modules if m == ref.module or m.startswith(ref.module + ".")
            ]:
                del sys.modules[name]
            with user_code(failed):
                module = importlib.import_module(ref.module)
        finally:
            sys.path.remove(str(root))
        _LOADED[key] = module
    return module, path


def _failed(ref: PythonRef, doing: str, allowed: str, e: BaseException) -> ControllerError:
    """The error of `ref`'s user code that raised `e` while `doing`."""
    return ControllerError(
        f"{ref.path} = {ref.name!r}: {doing} {raised(e)}", ref.path, repr(ref.name), allowed
    )


def _factory(ref: PythonRef, supplied: dict[str, ControllerSpec], scenario_file: str):
    """What makes `ref`'s objects, and the module file it comes from (None when handed)."""
    if ref.module is None:
        if ref.object not in supplied:
            given = ", ".join(supplied) or "none"
            raise ControllerError(
                f"{ref.path} = {ref.name!r}: no Python controller named {ref.object!r} was handed "
                f"to this run (names handed: {given}); pass controllers={{{ref.object!r}: ...}} "
                "to ccscope.run, or name a class in a module as python:module:Object",
                ref.path,
                repr(ref.name),
                f"one of the names handed: {given}",
            )
        return supplied[ref.object], None
    module, path = _load(ref, scenario_file)
    target: Any = module
    for attr in ref.object.split("."):
        if not hasattr(target, attr):
            raise ControllerError(
                f"{ref.path} = {ref.name!r}: module {ref.module} ({path}) has no {ref.object}",
                ref.path,
                repr(ref.name),
                f"a class or factory defined in {path}",
            )
        target = getattr(target, attr)
    return target, path


def _wants_string(factory: Any, key: str) -> bool:
    """Whether the factory declares parameter `key` a ``str``."""
    try:
        hints = typing.get_type_hints(factory.__init__ if isinstance(factory, type) else factory)
    except Exception:
        return False
    return hints.get(key) is str


def _arguments(ref: PythonRef, factory: Any) -> dict[str, Any]:
    """The scenario's parameters as the factory is called with them: a value written with a
    unit ("20ms", "1Mbps", "1500B") becomes a number in seconds, bits/s or bytes, as the core
    reads scenario values, unless the factory declares the parameter a ``str``."""
    out = {}
    for key, value in ref.params.items():
        if isinstance(value, str) and not _wants_string(factory, key):
            parsed = _core().quantity(value)
            if parsed is not None:
                value = parsed[1]
        out[key] = value
    return out


_KEYWORD = re.compile(r"argument:? '(\w+)'|argument '(\w+)'|keyword argument '(\w+)'")


def _make(ref: PythonRef, factory: Any, arguments: dict[str, Any]) -> Any:
    """One flow's object: the factory called with the arguments, or a copy of an instance."""
    if _is_controller(factory) and not isinstance(factory, type):
        if arguments:
            raise ControllerError(
                f"{ref.path}: {ref.name!r} was handed as an object; parameters need a class or "
                "a factory",
                ref.path,
                ", ".join(arguments),
                "a class or factory to call with them",
            )
        return copy.deepcopy(factory)
    if not callable(factory):
        raise ControllerError(
            f"{ref.path} = {ref.name!r}: {type(factory).__name__} is neither a controller nor a "
            "class or factory of one",
            ref.path,
            repr(ref.name),
            "a Controller, WindowController or RateController (or its class, or a factory)",
        )
    try:
        inspect.signature(factory).bind(**arguments)
    except TypeError as e:
        match = _KEYWORD.search(str(e))
        key = next((g for g in match.groups() if g), None) if match else None
        # A parameter the scenario gave names its own key; a missing one, the controller.
        key = key if key in arguments else None
        at = f"{ref.path}.{key}" if key else ref.path
        value = repr(arguments[key]) if key in arguments else ""
        raise ControllerError(
            f"{at}: {getattr(factory, '__name__', ref.object)}{inspect.signature(factory)} "
            f"cannot take the scenario's parameters ({e})",
            at,
            value,
            f"the parameters of {getattr(factory, '__name__', ref.object)}"
            f"{inspect.signature(factory)}",
        ) from None
    except ValueError:  # no signature (a builtin): let the call say
        pass
    made = f"{getattr(factory, '__name__', ref.object)}(...)"
    with user_code(functools.partial(_failed, ref, made, "a factory that returns a controller")):
        obj = factory(**arguments)
    if not _is_controller(obj):
        raise ControllerError(
            f"{ref.path} = {ref.name!r}: {type(obj).__name__} is not a controller",
            ref.path,
            repr(ref.name),
            "a Controller, WindowController or RateController (or its class, or a factory)",
        )
    return obj


def _check_kind(ref: PythonRef, obj: Any) -> None:
    """A TCP source runs a Controller or a window rule, a rate source a Controller or a rate
    controller, an rtp source a Controller; the round model runs any."""
    if isinstance(obj, Controller) or ref.kind is None:
        return
    wrong = (
        (ref.kind == "tcp" and not _is_window(obj))
        or (ref.kind == "rate" and not _is_rate(obj))
        or ref.kind == "rtp"
    )
    if wrong:
        need = {
            "tcp": "Controller or WindowController",
            "rate": "Controller or RateController",
        }.get(ref.kind, "Controller")
        article = "an" if ref.kind == "rtp" else "a"
        raise ControllerError(
            f"{ref.path} = {ref.name!r}: {article} {ref.kind} source runs a {need}, not "
            f"{type(obj).__name__}",
            ref.path,
            repr(ref.name),
            f"a {need}",
        )


def display_name(obj: Any) -> str:
    """The name results show for a Python controller."""
    name = getattr(obj, "name", None)
    return name if isinstance(name, str) and name else type(obj).__name__


@dataclass(frozen=True)
class FlowControllers:
    """The Python controller objects of one run's flows, by flow index (counts expanded)."""

    #: (display name, place in the scenario, object) per flow, as the core receives them.
    by_flow: dict[int, tuple[str, str, Any]]
    #: :func:`describe` of each object, taken before the run.
    provenance: dict[int, dict]

    @property
    def objects(self) -> dict[int, Any]:
        """The object each flow runs."""
        return {i: obj for i, (_, _, obj) in self.by_flow.items()}

    def summary(self) -> dict:
        """What summary.json records of them (nothing when the run has none)."""
        if not self.provenance:
            return {}
        return {"python_controllers": {str(i): d for i, d in self.provenance.items()}}


def per_flow(sc: Scenario, supplied: dict[str, ControllerSpec] | None = None) -> FlowControllers:
    """One controller object per flow whose controller is written in Python, keyed by the
    flow's index (counts expanded, as in results): a flow never shares state with another.
    ``python:module:Object`` is loaded from the module beside the scenario file or in the
    working directory and called with the scenario's parameters; ``python:NAME`` comes from
    `supplied`."""
    supplied = supplied or {}
    out: dict[int, tuple[str, str, Any]] = {}
    provenance: dict[int, dict] = {}
    refs = {r.path: r for r in python_refs(sc.table)}
    index = 0
    for i, flow in enumerate(sc.table["flows"]):
        count = flow.get("count", 1)
        ref = refs.get(f"flows[{i}].source.controller") or refs.get(f"flows[{i}].controller")
        if ref is not None:
            factory, path = _factory(ref, supplied, sc.file)
            arguments = _arguments(ref, factory)
            for j in range(count):
                obj = _make(ref, factory, arguments)
                _check_kind(ref, obj)
                out[index + j] = (display_name(obj), ref.path, obj)
                provenance[index + j] = describe(obj, path, ref)
        index += count
    return FlowControllers(out, provenance)


def code_identity(sc: Scenario) -> dict[str, str]:
    """What identifies the code of a scenario's Python controllers: each module file's SHA-256,
    by the controller's name (empty when it names none, or only objects handed to a run)."""
    return {
        r.name: file_sha256(module_file(r, sc.file))
        for r in python_refs(sc.table)
        if r.module is not None
    }


def _source(obj: object) -> str:
    try:
        return inspect.getsource(obj)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return ""


def describe(obj: Any, module_path: Path | None = None, ref: PythonRef | None = None) -> dict:
    """Where a Python controller comes from, for results: its name, class and module, the
    scenario's parameters (or the public numbers, strings and booleans it holds), a SHA-256 of
    its source (the class, and the functions a WindowController was given) and, when it was
    loaded from a module file, that file and its SHA-256."""
    cls = type(obj)
    sources = [_source(cls)]
    for attr in ("increase_fn", "decrease_fn"):
        fn = getattr(obj, attr, None)
        if fn is not None:
            sources.append(_source(fn))
    held = {
        k: v
        for k, v in vars(obj).items()
        if not k.startswith("_") and isinstance(v, (bool, int, float, str))
    }
    out = {
        "name": display_name(obj),
        "class": cls.__qualname__,
        "module": cls.__module__,
        "params": ref.params if ref is not None and ref.params else held,
        "source_sha256": hashlib.sha256("\n".join(sources).encode()).hexdigest(),
    }
    if module_path is not None:
        out["module_file"] = str(module_path)
        out["module_sha256"] = file_sha256(module_path)
    return out


def resolve(name: str, params: dict[str, Any] | None = None, scenario_file: str = "") -> Any:
    """The class or factory ``python:module:Object`` names (or an object: `name` may be a
    controller object, class or factory itself), for commands that run one controller outside
    a scenario (``check``, ``scorecard``); raises :class:`ControllerError` naming what failed."""
    if not isinstance(name, str):
        return name
    module, _, obj = name.removeprefix(PREFIX).rpartition(":")
    if not name.startswith(PREFIX) or not module:
        raise ControllerError.at(
            "controller", name, "python:module:Object, a class or factory in module.py"
        )
    ref = PythonRef("controller", name, module, obj, params or {}, None, 1)
    factory, _ = _factory(ref, {}, scenario_file)
    return factory


def instance(name: Any, params: dict[str, Any] | None = None, scenario_file: str = "") -> Any:
    """One object of the controller ``python:module:Object`` (or of a class, factory or
    object given directly), made with `params` as a scenario's parameters are."""
    factory = resolve(name, params, scenario_file)
    label = name if isinstance(name, str) else display_name(factory)
    ref = PythonRef("controller", label, None, "", params or {}, None, 1)
    return _make(ref, factory, _arguments(ref, factory))
