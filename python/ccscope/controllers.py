"""The controller catalogue, and controllers written in Python.

``ccscope controllers`` prints :func:`catalogue`. A scenario names a controller by catalogue
name (``controller = "gaimd"`` or ``controller = { name = "gaimd", beta = 0.875 }``), or as
``python:NAME`` for a :class:`WindowController` (TCP sources) or :class:`RateController`
(rate sources) handed to :func:`ccscope.run`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass


def _core():
    from . import _core

    return _core


@functools.cache
def catalogue() -> list[dict]:
    """Every catalogued controller: name, family ("window" for TCP sources, "rate" for rate
    sources), summary, β convention, source paper, parameters."""
    return json.loads(_core().controllers_json())


def paper_name(name: str, params: dict[str, float] | None = None,
               family: str = "window") -> str:
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

    def __init__(self, name: str, increase: Callable[[float], float] | None = None,
                 decrease: Callable[[float], float] | None = None):
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
