"""A published claim beside ccscope's measurement: the row every reproduction returns."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

#: Where a tolerance comes from; every claim's ``source`` starts with one of these.
PRINTED = "printed precision"
FIGURE = "figure reading"
SEEDS = "seed spread"
THEORY = "approximation error"
STATEMENT = "the paper's statement"
#: A tolerance no source gives yet: shown as such in the table, never hidden.
UNSOURCED = "no source yet"
#: No source prints a value for the case: ccscope's value is shown, not judged.
REPORTED = "reported, not judged"
SOURCES = (PRINTED, FIGURE, SEEDS, THEORY, STATEMENT, UNSOURCED, REPORTED)


@dataclass(frozen=True)
class Claim:
    """One quantity of a paper's figure or table, as published and as measured.

    ``published`` is the paper's value as it prints it (a number, or text such as "1-12" or
    "> 200 RTTs"); ``tolerance`` says how close counts as agreement ("within 15%", "below");
    ``why`` explains a claim that does not hold and is empty when it does. ``source`` says
    where the tolerance comes from, one of :data:`SOURCES` and what it rests on: the paper's
    printed precision or the resolution at which its figure can be read; the spread of
    ccscope's runs over seeds (how many); the stated error of an approximation; the paper's
    statement itself, for an order or a yes/no with no number to be near; or, named as such,
    no source yet; or, where no source prints a value at all, reported, not judged (such a
    claim holds by construction and is shown as "reported"). ``key`` names the claim the same
    in quick and full runs (its quantity names the seeds it averages) where ns-2.35 measures it
    too: the validation table's ns-2.35 column finds its cell by reproduction id and key
    (:mod:`ccscope.ns2column`); empty elsewhere.
    """

    quantity: str
    published: float | str
    measured: float | str
    tolerance: str
    holds: bool
    why: str = ""
    source: str = field(default="", kw_only=True)
    key: str = field(default="", kw_only=True)

    def __post_init__(self) -> None:
        # numpy scalars become the Python numbers JSON and comparisons expect.
        for name in ("published", "measured"):
            value = getattr(self, name)
            if hasattr(value, "item"):
                object.__setattr__(self, name, value.item())
        object.__setattr__(self, "holds", bool(self.holds))
        if not self.holds and not self.why:
            raise ValueError(f"claim {self.quantity!r} does not hold and gives no reason")
        if not self.source.startswith(SOURCES):
            raise ValueError(
                f"claim {self.quantity!r}: its tolerance's source {self.source!r} starts with "
                f"none of {', '.join(SOURCES)}"
            )

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Knob:
    """A set-up parameter a paper does not print, which ``ccscope reproduce ID --explore``
    sweeps: its name, what it is (with its unit) and the value the reproduction assumes."""

    name: str
    meaning: str
    assumed: float


def seed_tolerance(sd: float, k: int, runs: int = 1) -> float:
    """Two standard deviations of the difference between a published mean of `runs` runs
    (one unless told) and ccscope's mean over `k` seeds, when one run's standard deviation over
    seeds is `sd` (measured by ``python bench/seed_spread.py``; the paper's runs taken to
    spread alike): 2·sd·sqrt(1/runs + 1/k)."""
    return 2 * sd * math.sqrt(1 / runs + 1 / k)


def _graded(
    quantity: str,
    published: float,
    measured: float,
    tolerance: str,
    holds: bool,
    why: str,
    source: str,
    key: str,
) -> Claim:
    """A two-sided claim; one that fails without a reason says how far off it is."""
    unexpected = f"unexpected: {measured:.4g} is not {tolerance} of {published:.4g}"
    return Claim(
        quantity,
        published,
        measured,
        tolerance,
        holds,
        "" if holds else why or unexpected,
        source=source,
        key=key,
    )


def within(
    quantity: str,
    published: float,
    measured: float,
    rel: float,
    why: str = "",
    *,
    source: str,
    key: str = "",
) -> Claim:
    """A claim that `measured` is within a relative `rel` of `published`."""
    percent = 100 * rel
    tolerance = f"within {percent:.0f}%" if percent >= 10 else f"within {percent:.2g}%"
    holds = abs(measured - published) <= rel * abs(published)
    return _graded(quantity, published, measured, tolerance, holds, why, source, key)


def within_abs(
    quantity: str,
    published: float,
    measured: float,
    tol: float,
    why: str = "",
    *,
    source: str,
    key: str = "",
) -> Claim:
    """A claim that `measured` is within `tol` of `published`."""
    tolerance = f"± {tol:g}"
    holds = abs(measured - published) <= tol
    return _graded(quantity, published, measured, tolerance, holds, why, source, key)


def within_factor(
    quantity: str,
    published: float,
    measured: float,
    factor: float,
    why: str = "",
    *,
    source: str,
    key: str = "",
) -> Claim:
    """A claim that `measured` is within a factor `factor` of `published` either way."""
    tolerance = f"within ×{factor:g}"
    holds = published / factor <= measured <= published * factor
    return _graded(quantity, published, measured, tolerance, holds, why, source, key)


def below(
    quantity: str,
    bound: float,
    measured: float,
    why: str = "",
    published: float | str | None = None,
    *,
    source: str,
    key: str = "",
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
        source=source,
        key=key,
    )
