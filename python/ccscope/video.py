"""Video frame-size traces: fitting the MPEG-4 source's TES models to a trace.

A trace is a CSV file with a header and one row per frame: `type` (I, P or B), `bytes` (the
frame's size), and `time` (seconds) or `index`. `fit_trace` returns the `app` table of an
``mpeg4`` source whose I, P and B models have the trace's mean, coefficient of variation and
lag-1 autocorrelation (between successive frames of the type), with the trace's GOP pattern
and frame rate (statistics only for the types the GOP has). The core then fits each TES
model's innovations to the lag-1 correlation (crates/ccscope-core/src/apps/video.rs).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .errors import ScenarioError

#: Largest lag-1 autocorrelation the source accepts.
MAX_LAG1 = 0.99


def frame_stats(sizes: np.ndarray) -> dict[str, float]:
    """Mean, coefficient of variation (population) and lag-1 autocorrelation of a series."""
    x = np.asarray(sizes, dtype=float)
    if x.size < 3 or not np.all(np.isfinite(x)) or x.mean() <= 0:
        raise ValueError("frame_stats: needs at least 3 finite sizes with a positive mean")
    d = x - x.mean()
    var = float(np.sum(d * d))
    lag1 = float(np.sum(d[:-1] * d[1:]) / var) if var > 0 else 0.0
    return {"mean": float(x.mean()), "cov": float(x.std() / x.mean()), "lag1": lag1}


def _trace_error(path: str | Path, message: str) -> ScenarioError:
    return ScenarioError(f"frame-size trace {path}: {message}")


def fit_trace(path: str | Path, fps: float | None = None) -> dict:
    """The ``mpeg4`` app table fitted to the frame-size trace at `path` (see the module doc):
    statistics for each frame type the GOP has. `fps` defaults to the trace's own (from its
    `time` column), else 25. A trace that cannot be fitted raises :class:`ScenarioError`
    naming the file, and the column, row or frame type at fault."""
    try:
        t = pd.read_csv(path)
    except FileNotFoundError:
        raise _trace_error(path, "no such file") from None
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as e:
        raise _trace_error(path, f"cannot be read as CSV ({e})") from None
    missing = {"type", "bytes"} - set(t.columns)
    if missing:
        raise _trace_error(
            path, f"needs columns type and bytes (missing: {', '.join(sorted(missing))})"
        )
    kinds = t["type"].astype(str).str.strip().str.upper().to_numpy()
    bad = sorted(set(kinds) - {"I", "P", "B"})
    if bad:
        raise _trace_error(path, f"frame types must be I, P or B; found {', '.join(bad)}")
    sizes = _numbers(path, t, "bytes")
    if not (sizes > 0).all():
        row = int(np.flatnonzero(~(sizes > 0))[0])
        raise _trace_error(path, f"row {row + 2}: bytes = {_cell(t, 'bytes', row)!r}: must be > 0")
    starts = np.flatnonzero(kinds == "I")
    if starts.size < 2:
        raise _trace_error(path, "needs at least two I frames to give a GOP pattern")
    gop = "".join(kinds[starts[0] : starts[1]])
    if fps is None:
        fps = 25.0
        if "time" in t.columns and len(t) > 1:
            time = _numbers(path, t, "time")
            span = float(time[-1] - time[0])
            if span > 0:
                fps = (len(t) - 1) / span
    table = {"kind": "mpeg4", "gop": gop, "fps": fps}
    for kind in dict.fromkeys(gop):
        of_kind = sizes[kinds == kind]
        if of_kind.size < 3:
            raise _trace_error(
                path, f"{of_kind.size} {kind} frames; a fit needs at least 3 of each type"
            )
        s = frame_stats(of_kind)
        if s["cov"] == 0:
            raise _trace_error(
                path,
                f"every {kind} frame has {of_kind[0]:g} bytes; a TES model needs sizes that "
                "vary (coefficient of variation > 0): for constant sizes use a cbr source",
            )
        table[kind.lower()] = {
            "mean": f"{s['mean']:.6g}B",
            "cov": s["cov"],
            "lag1": min(max(s["lag1"], 0.0), MAX_LAG1),
        }
    return table


def _numbers(path: str | Path, t: pd.DataFrame, column: str) -> np.ndarray:
    """`column` of the trace as finite numbers; a value that is not one is named by row
    (counting the header as row 1)."""
    x = pd.to_numeric(t[column], errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(x))
    if bad.size:
        row = int(bad[0])
        raise _trace_error(
            path, f"row {row + 2}: {column} = {_cell(t, column, row)!r}: must be a finite number"
        )
    return x


def _cell(t: pd.DataFrame, column: str, row: int):
    """The value at `row` of `column` as Python writes it (not numpy's int64(3))."""
    return t[column].tolist()[row]
