"""The controller catalogue, and window controllers written in Python.

``ccscope controllers`` prints :func:`catalogue`. A scenario names a controller by catalogue
name (``controller = "gaimd"`` or ``controller = { name = "gaimd", beta = 0.875 }``), or as
``python:NAME`` for a :class:`WindowController` handed to :func:`ccscope.run`.
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
    """Every catalogued controller: name, summary, β convention, source paper, parameters."""
    return json.loads(_core().controllers_json())


def paper_name(name: str, params: dict[str, float] | None = None) -> str:
    """The controller's name in its paper's notation, e.g. ``GAIMD(0.31,0.875)``; raises
    ValueError naming the problem when the name or a parameter is not allowed."""
    core = _core()
    try:
        return core.controller_name(name, sorted((params or {}).items()))
    except core.CoreError as e:
        raise ValueError(str(e)) from None


@dataclass
class WindowController:
    """A window controller written in Python, run by the packet engine's TCP.

    ``increase(w)`` is the congestion-avoidance growth per RTT at window ``w`` (packets), spread
    over the ACKs of a window as TCP does; ``decrease(w)`` is the window after a congestion
    event. Slow start, the once-per-RTT reduction, timeouts and loss recovery are TCP's.

    >>> aimd = WindowController("AIMD(1/5,1/8)", increase=lambda w: 0.2,
    ...                         decrease=lambda w: w * 7 / 8)
    >>> ccscope.run(scenario, controllers={"aimd": aimd})   # scenario names "python:aimd"

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
