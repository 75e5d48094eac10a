"""The exceptions ccscope raises. Every message names the field, the value and what is allowed."""

from __future__ import annotations


class CcscopeError(Exception):
    """Base of every error ccscope raises on purpose."""


class ScenarioError(CcscopeError, ValueError):
    """A scenario (file, dict or object) that cannot be run as given.

    ``field`` is the dotted path of the offending entry (e.g. ``topology.bottleneck.rate``),
    ``value`` what was given and ``allowed`` what would be accepted; any may be empty when
    the problem is not about one field (a malformed file, say).
    """

    def __init__(self, message: str, field: str = "", value: str = "", allowed: str = ""):
        super().__init__(message)
        self.field = field
        self.value = value
        self.allowed = allowed

    @classmethod
    def at(cls, field: str, value: object, allowed: str) -> ScenarioError:
        return cls(f"{field} = {value!r}: {allowed}", field, repr(value), allowed)
