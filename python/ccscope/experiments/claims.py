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
        if not self.holds and not self.why:
            raise ValueError(f"claim {self.quantity!r} does not hold and gives no reason")

    def to_dict(self) -> dict:
        return asdict(self)
