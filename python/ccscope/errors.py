"""The exceptions ccscope raises on purpose, each naming what was wrong and what is allowed.

Errors found by the core (``ccscope._core``) arrive as these classes with their fields set:

- :class:`ScenarioError`: a scenario (file, dict or object) that cannot be run as given.
  ``path`` is the entry as the user wrote it (``flows[0].source.controller.beta``,
  ``topology.bottleneck.queue.min_th``), ``value`` what was written there (empty for a missing
  or unknown key), ``allowed`` what would be accepted, and ``file`` the scenario file, when
  there is one.
- :class:`CostError`: a scenario whose run would take more time or memory than ccscope runs
  unless told to go on (``force=True``, ``--force``); the message has the estimate.
- :class:`ControllerError`: a controller name or parameter the catalogue does not accept (a
  :class:`ScenarioError` too, so one ``except ScenarioError`` catches both).
- :class:`StoreError`: a sweep store that cannot be used: not a store (a folder, another
  program's file), truncated, held by another process, failing (a full disk), or holding runs
  of another model version; the message names the store and what was found.

An internal failure of the engine (a bug) is ``ccscope._core.CoreError``.
"""

from __future__ import annotations


class CcscopeError(Exception):
    """Base of every error ccscope raises on purpose."""


class ScenarioError(CcscopeError, ValueError):
    """A scenario (file, dict or object) that cannot be run as given."""

    def __init__(
        self, message: str, path: str = "", value: str = "", allowed: str = "", file: str = ""
    ):
        super().__init__(message)
        self.message = message
        self.path = path
        self.value = value
        self.allowed = allowed
        self.file = file

    def __str__(self) -> str:
        return f"{self.file}: {self.message}" if self.file else self.message

    @property
    def field(self) -> str:
        """The same as :attr:`path`."""
        return self.path

    def in_file(self, file: object) -> ScenarioError:
        """The same error, naming the scenario file it came from (itself when `file` is
        empty: the scenario came from no file)."""
        if not file or self.file:
            return self
        named = type(self)(self.message, self.path, self.value, self.allowed, str(file))
        named.__cause__ = self.__cause__
        return named.with_result(getattr(self, "result", None))

    def with_result(self, result: object) -> ScenarioError:
        """The same error carrying `result`: what a run measured before the error stopped it
        (``result.partial`` is true); None when the run never started."""
        self.result = result
        return self

    @classmethod
    def at(cls, path: str, value: object, allowed: str) -> ScenarioError:
        written = written_value(value)
        return cls(f"{path} = {written}: {allowed}", path, written, allowed)


def written_value(value: object) -> str:
    """`value` as a user writes it: a whole float without its ``.0`` (``-5``, as TOML and the
    command line write it), any other value as its ``repr`` (``0.1``, ``'x'``, ``nan``)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(float(value)) if isinstance(value, float) else repr(value)


class CostError(ScenarioError):
    """A run that would take more time or memory than ccscope runs without ``force=True``
    (CLI ``--force``); :attr:`allowed` holds the estimate."""


class ControllerError(ScenarioError):
    """A controller name or parameter that is not accepted, or a controller written in Python
    that failed while it ran: a hook raised (the exception is the ``__cause__``) or gave an
    output outside what is allowed. A failure during a run carries the run's ``result`` up to
    then, marked partial."""


class StoreError(CcscopeError, ValueError):
    """A results store that cannot be used, named with the reason and what to do instead."""


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C. ``result`` holds what it measured up to then, marked
    ``partial`` (its summary says so); uncaught, it ends the program as Ctrl-C does."""

    def __init__(self, result):
        super().__init__("interrupted: what was measured so far is in .result (partial)")
        self.result = result
