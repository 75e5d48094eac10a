"""Video frame-size traces: fitting the MPEG-4 source's TES models to a trace.

A trace is a CSV file with a header and one row per frame: `type` (I, P or B), `bytes` (the
frame's size), and `time` (seconds) or `index`. `fit_trace` returns the `app` table of an
``mpeg4`` source whose I, P and B models have the trace's mean, coefficient of variation and
lag-1 autocorrelation (between successive frames of the type), with the trace's GOP pattern
and frame rate. The core then fits each TES model's innovations to the lag-1 correlation
(crates/ccscope-core/src/apps/video.rs).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

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


def fit_trace(path: str | Path, fps: float | None = None) -> dict:
    """The ``mpeg4`` app table fitted to the frame-size trace at `path` (see the module doc).
    `fps` defaults to the trace's own (from its `time` column), else 25."""
    t = pd.read_csv(path)
    missing = {"type", "bytes"} - set(t.columns)
    if missing:
        raise ValueError(
            f"{path}: the trace needs columns type and bytes (missing: "
            f"{', '.join(sorted(missing))})"
        )
    kinds = t["type"].astype(str).str.strip().str.upper().to_numpy()
    bad = sorted(set(kinds) - {"I", "P", "B"})
    if bad:
        raise ValueError(f"{path}: frame types must be I, P or B; found {', '.join(bad)}")
    starts = np.flatnonzero(kinds == "I")
    if starts.size < 2:
        raise ValueError(f"{path}: needs at least two I frames to give a GOP pattern")
    gop = "".join(kinds[starts[0] : starts[1]])
    if fps is None:
        fps = 25.0
        if "time" in t.columns and len(t) > 1:
            span = float(t["time"].iloc[-1] - t["time"].iloc[0])
            if span > 0:
                fps = (len(t) - 1) / span
    table = {"kind": "mpeg4", "gop": gop, "fps": fps}
    sizes = t["bytes"].to_numpy(dtype=float)
    for kind in "IPB":
        s = frame_stats(sizes[kinds == kind])
        table[kind.lower()] = {
            "mean": f"{s['mean']:.6g}B",
            "cov": s["cov"],
            "lag1": min(max(s["lag1"], 0.0), MAX_LAG1),
        }
    return table
