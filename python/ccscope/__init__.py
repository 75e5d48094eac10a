"""ccscope: a laboratory for end-to-end congestion control.

Pick or write a controller, run it against a network, and get the numbers the field uses.

>>> import ccscope
>>> scenario = ccscope.load("scenarios/dumbbell-cbr.toml")
>>> result = ccscope.run(scenario)
>>> result.flows            # per-flow summary (pandas)
>>> result.trace.flows      # per-flow series, if traced

Importing ``ccscope`` is cheap: the engine extension loads on first use, and
``ccscope.theory`` needs only numpy and scipy.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "load": "ccscope.scenario",
    "loads": "ccscope.scenario",
    "Scenario": "ccscope.scenario",
    "validate": "ccscope.scenario",
    "schema": "ccscope.scenario",
    "run": "ccscope.engine",
    "Result": "ccscope.engine",
    "ScenarioError": "ccscope.errors",
    "CcscopeError": "ccscope.errors",
    "ControllerError": "ccscope.errors",
    "CostError": "ccscope.errors",
    "Controller": "ccscope.controllers",
    "WindowController": "ccscope.controllers",
    "RateController": "ccscope.controllers",
}

__all__ = ["__version__", *_LAZY]


def __dir__() -> list[str]:
    """The module's names with the lazy ones (:data:`_LAZY`), as a notebook completes them."""
    return sorted({*globals(), *_LAZY})


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ccscope' has no attribute {name!r}")
    return getattr(import_module(module), name)
