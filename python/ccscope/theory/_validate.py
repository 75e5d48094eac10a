"""Input checking and output shaping shared by the theory modules (private).

Every public theory function converts its numeric inputs with :func:`check`, which
raises ``ValueError`` naming the parameter, the offending value and the allowed range
instead of letting NaN or inf leak out of a formula. Results go through :func:`out`
so that scalar inputs give a Python ``float`` (or ``bool``) and array inputs an ndarray.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: Return type of the numeric theory functions: a float for scalar input, else an ndarray.
FloatOrArray = float | npt.NDArray[np.float64]
#: Return type of the predicates (conditions): a bool for scalar input, else an ndarray.
BoolOrArray = bool | npt.NDArray[np.bool_]


def _range_text(gt: float | None, ge: float | None, lt: float | None, le: float | None) -> str:
    left = f"({gt:g}" if gt is not None else (f"[{ge:g}" if ge is not None else "(-inf")
    right = f"{lt:g})" if lt is not None else (f"{le:g}]" if le is not None else "inf)")
    return f"{left}, {right}"


def check(
    name: str,
    value: npt.ArrayLike,
    *,
    gt: float | None = None,
    ge: float | None = None,
    lt: float | None = None,
    le: float | None = None,
    allow_inf: bool = False,
) -> npt.NDArray[np.float64]:
    """Return ``value`` as a float ndarray, or raise ``ValueError`` if any element is
    NaN, infinite (unless ``allow_inf``) or outside the interval given by the bounds
    (``gt``: strictly greater, ``ge``: greater or equal, ``lt``/``le`` likewise)."""
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, got {value!r}") from exc
    bad = np.isnan(a)
    if not allow_inf:
        bad |= np.isinf(a)
    with np.errstate(invalid="ignore"):
        if gt is not None:
            bad |= ~(a > gt)
        if ge is not None:
            bad |= ~(a >= ge)
        if lt is not None:
            bad |= ~(a < lt)
        if le is not None:
            bad |= ~(a <= le)
    if np.any(bad):
        first = a[bad].flat[0] if a.ndim else float(a)
        where = "" if a.ndim == 0 else f" (first offending element of {a.size})"
        raise ValueError(
            f"{name}={first!r}{where} is outside the allowed range {_range_text(gt, ge, lt, le)}"
        )
    return a


def require(condition: npt.ArrayLike, message: str) -> None:
    """Raise ``ValueError(message)`` unless every element of ``condition`` is true."""
    if not np.all(condition):
        raise ValueError(message)


def out(x: npt.ArrayLike) -> FloatOrArray:
    """Return a float for 0-d results and a float ndarray otherwise."""
    a = np.asarray(x, dtype=float)
    return float(a) if a.ndim == 0 else a


def out_bool(x: npt.ArrayLike) -> BoolOrArray:
    """Return a bool for 0-d results and a bool ndarray otherwise."""
    a = np.asarray(x, dtype=bool)
    return bool(a) if a.ndim == 0 else a


#: Relative rounding error within which the two sides of a condition count as equal. Each side
#: of the paper's conditions ((15), (19), (21), (22), (40)) is a power, product or quotient of
#: a few rounded doubles: at most 4 roundings of ε/2 each, so sides equal in exact arithmetic
#: (a linear R_D(x) = β·x meets (15) with equality) differ by less than 8ε relatively.
EQUAL_RTOL = 8 * float(np.finfo(float).eps)


def at_least(a: np.ndarray, b: npt.ArrayLike) -> np.ndarray:
    """``a ≥ b``, with sides equal within :data:`EQUAL_RTOL` counted as equal."""
    b_ = np.asarray(b, dtype=float)
    return a >= b_ - EQUAL_RTOL * np.abs(b_)


def below(a: np.ndarray, b: npt.ArrayLike) -> np.ndarray:
    """``a < b`` strictly, with sides equal within :data:`EQUAL_RTOL` counted as equal (so
    not below)."""
    b_ = np.asarray(b, dtype=float)
    return a < b_ - EQUAL_RTOL * np.abs(b_)
