"""A published claim beside ccscope's measurement: the row every reproduction returns."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Claim:
    """One quantity of a paper's figure or table, as published and as measured.

    ``published`` is the paper's value as it prints it (a number, or text such as "1-12" or
    "> 200 RTTs"); ``tolerance`` says how close counts as agreement ("within 15%", "below");
    ``why`` explains a claim that does not hold and is empty when it does.
    """

    quantity: str
    published: float | str
    measured: float | str
    tolerance: str
    holds: bool
    why: str = ""

    def __post_init__(self) -> None:
        # numpy scalars become the Python numbers JSON and comparisons expect.
        for name in ("published", "measured"):
            value = getattr(self, name)
            if hasattr(value, "item"):
                object.__setattr__(self, name, value.item())
        object.__setattr__(self, "holds", bool(self.holds))
        if not self.holds and not self.why:
            raise ValueError(f"claim {self.quantity!r} does not hold and gives no reason")

    def to_dict(self) -> dict:
        return asdict(self)


def _unexpected(measured: float, tolerance: str, published: float) -> str:
    return f"unexpected: {measured:.4g} is not {tolerance} of {published:.4g}"


def within(quantity: str, published: float, measured: float, rel: float, why: str = "") -> Claim:
    """A claim that `measured` is within a relative `rel` of `published`."""
    tolerance = f"within {rel:.0%}"
    holds = abs(measured - published) <= rel * abs(published)
    return Claim(
        quantity,
        published,
        measured,
        tolerance,
        holds,
        "" if holds else why or _unexpected(measured, tolerance, published),
    )


def within_abs(
    quantity: str, published: float, measured: float, tol: float, why: str = ""
) -> Claim:
    """A claim that `measured` is within `tol` of `published`."""
    tolerance = f"± {tol:g}"
    holds = abs(measured - published) <= tol
    return Claim(
        quantity,
        published,
        measured,
        tolerance,
        holds,
        "" if holds else why or _unexpected(measured, tolerance, published),
    )


def within_factor(
    quantity: str, published: float, measured: float, factor: float, why: str = ""
) -> Claim:
    """A claim that `measured` is within a factor `factor` of `published` either way."""
    tolerance = f"within ×{factor:g}"
    holds = published / factor <= measured <= published * factor
    return Claim(
        quantity,
        published,
        measured,
        tolerance,
        holds,
        "" if holds else why or _unexpected(measured, tolerance, published),
    )


def below(
    quantity: str,
    bound: float,
    measured: float,
    why: str = "",
    published: float | str | None = None,
) -> Claim:
    """A claim that `measured` stays at or below `bound` (``published``, if the paper prints
    something else than the bound itself)."""
    holds = measured <= bound
    return Claim(
        quantity,
        bound if published is None else published,
        measured,
        f"at most {bound:.4g}",
        holds,
        "" if holds else why or f"unexpected: {measured:.4g} is above {bound:.4g}",
    )
