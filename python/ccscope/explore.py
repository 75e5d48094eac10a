"""``ccscope reproduce ID --explore NAME=LOW:HIGH[:N]``: where a reproduction's claims hold over
the set-up parameters its paper does not print.

A reproduction that declares knobs (:class:`ccscope.experiments.claims.Knob`: for
``papadimitriou-fig3`` the video's rate and the buffer, for ``cai-table1`` the capacity and the
mice) is run at every point of the grid of the given ranges, in parallel worker processes; each
point gives every claim's verdict. The table (one row per point and claim) goes to a DuckDB
store, which ``ccscope report STORE`` draws, and :func:`regions` says per claim where it holds.

>>> table = explore.run("papadimitriou-fig3", [explore.parse("buffer_bdp=0.25:2:4", knobs)])
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from . import reproduce
from .errors import ScenarioError, StoreError
from .progress import RunProgress, callback

#: Most values one axis takes.
MAX_VALUES = 50


@dataclass(frozen=True)
class Axis:
    """One knob's values, LOW to HIGH in N even steps."""

    name: str
    values: tuple[float, ...]


def parse(spec: str, knobs: dict) -> Axis:
    """``NAME=LOW:HIGH[:N]`` (N values from LOW to HIGH, 5 by default) for one of `knobs`; a
    :class:`ScenarioError` naming ``--explore``, the text as written and what is allowed."""
    allowed = (
        "NAME=LOW:HIGH[:N], NAME one of "
        + (", ".join(knobs) or "(none: this reproduction has no set-up to explore)")
        + f", LOW <= HIGH finite numbers, N a whole number in [2, {MAX_VALUES}]"
    )
    name, _, rest = spec.partition("=")
    parts = rest.split(":")
    try:
        low, high = float(parts[0]), float(parts[1])
        n = int(parts[2]) if len(parts) == 3 else 5
    except (ValueError, IndexError):
        raise ScenarioError.at("--explore", spec, allowed) from None
    if (
        name not in knobs
        or len(parts) > 3
        or not (math.isfinite(low) and math.isfinite(high) and low <= high)
        or not 2 <= n <= MAX_VALUES
    ):
        raise ScenarioError.at("--explore", spec, allowed)
    step = (high - low) / (n - 1)
    return Axis(name, tuple(round(low + i * step, 12) for i in range(n)))


def grid(axes: list[Axis]) -> list[dict[str, float]]:
    """Every combination of the axes' values, the first axis slowest."""
    names = [a.name for a in axes]
    if len(set(names)) != len(names):
        raise ScenarioError.at("--explore", ", ".join(names), "each knob at most once")
    return [dict(zip(names, v, strict=True)) for v in itertools.product(*(a.values for a in axes))]


def _point(task: tuple[str, bool, dict[str, float]]) -> list[dict[str, Any]]:
    rid, quick, setup = task
    return [
        {
            **setup,
            "quantity": c.quantity,
            "holds": c.holds,
            "measured": c.measured if isinstance(c.measured, str) else f"{c.measured:.4g}",
        }
        for c in reproduce.get(rid).claims(quick, setup)
    ]


def run(
    rid: str,
    axes: list[Axis],
    quick: bool = False,
    jobs: int | None = None,
    store: str | Path | None = None,
    progress: bool | Callable[[float, float], None] = False,
) -> pd.DataFrame:
    """Runs reproduction `rid` at every point of the axes' grid, `jobs` points at a time in
    worker processes (default: one per core); one row per point and claim (the knobs'
    values, ``quantity``, ``holds``, ``measured``), in grid order whatever the workers' order.
    With `store`, also writes the table there (DuckDB, table ``explore``, replaced).
    `progress` is told ``(points done, points)`` as they finish (True: a bar)."""
    import os
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from .sweep import die_with

    r = reproduce.get(rid)
    points = grid(axes)
    if not axes or not points:
        raise ScenarioError.at("--explore", "", "at least one NAME=LOW:HIGH[:N]")
    if store is not None:  # before the points are computed, not after
        store = _writable(store)
    tasks = [(rid, quick, p) for p in points]
    workers = max(1, min(jobs or os.cpu_count() or 1, len(tasks)))
    tell = callback(progress, "points")
    rows = []
    with contextlib.ExitStack() as stack:
        if isinstance(tell, RunProgress):
            stack.callback(tell.close)
        if workers == 1:
            results = map(_point, tasks)
        else:
            # Workers that die with this process, even one killed outright.
            pool = stack.enter_context(
                ProcessPoolExecutor(
                    workers, get_context("spawn"), initializer=die_with, initargs=(os.getpid(),)
                )
            )
            results = pool.map(_point, tasks)
        for done, result in enumerate(results, 1):
            rows += result
            if tell is not None:
                tell(done, len(tasks))
    table = pd.DataFrame(rows, columns=[*(a.name for a in axes), "quantity", "holds", "measured"])
    if store is not None:
        write(store, r.id, quick, table)
    return table


def _writable(store: str | Path) -> Path:
    """`store` made absolute, once it is a new file in a folder that can be written or an
    exploration's store (which a new exploration replaces): :class:`ccscope.errors.StoreError`
    naming what else it is (a sweep's store, another program's database, not a DuckDB file, a
    file another process has open)."""
    from .output import writable_file
    from .store import EXPLORE_TABLES, opened, tables_of, what_holds

    path = Path(store).absolute()
    if not path.parent.is_dir():
        raise ScenarioError.at("--store", str(store), "a file in a folder that exists")
    writable_file(path, "--store")
    if path.exists():
        with opened(path, read_only=True) as con:
            tables = tables_of(con)
        if tables - set(EXPLORE_TABLES):
            raise StoreError(
                f"store {path}: is {what_holds(tables)}, not an exploration's; give a new path"
            )
    return path


def write(store: str | Path, rid: str, quick: bool, table: pd.DataFrame) -> Path:
    """Writes an exploration to `store` (table ``explore``, with a ``meta`` row: the id, quick
    and the ccscope version), replacing the exploration it held; a file that holds anything
    else is refused (:func:`_writable`)."""
    from .output import provenance
    from .store import opened

    path = _writable(store)
    meta = pd.DataFrame(
        [{"id": rid, "quick": quick, "provenance": json.dumps(provenance(), sort_keys=True)}]
    )
    with opened(path) as con:
        con.register("explored", table)
        con.register("meta_rows", meta)
        con.execute("CREATE OR REPLACE TABLE explore AS SELECT * FROM explored")
        con.execute("CREATE OR REPLACE TABLE explore_meta AS SELECT * FROM meta_rows")
    return path


def load(store: str | Path) -> tuple[dict[str, Any], pd.DataFrame]:
    """The meta row and the table of an exploration store;
    :class:`ccscope.errors.StoreError` naming what the file is when it is not one."""
    from .store import EXPLORE_TABLES, opened, tables_of, what_holds

    with opened(store, read_only=True) as con:
        tables = tables_of(con)
        if not set(EXPLORE_TABLES) <= tables:
            raise StoreError(f"store {store}: is {what_holds(tables)}, not an exploration's")
        meta = con.execute("SELECT * FROM explore_meta").df().iloc[0].to_dict()
        table = con.execute("SELECT * FROM explore").df()
    return meta, table


def is_store(path: Path) -> bool:
    """Whether `path` is a DuckDB file holding an exploration (a file that cannot be
    opened is a :class:`ccscope.errors.StoreError` naming it)."""
    from .store import opened, tables_of

    with opened(path, read_only=True) as con:
        return "explore" in tables_of(con)


def knob_names(table: pd.DataFrame) -> list[str]:
    return [c for c in table.columns if c not in ("quantity", "holds", "measured")]


def regions(table: pd.DataFrame) -> list[dict[str, Any]]:
    """Per claim (in the reproduction's order): at how many points it holds, and per knob the
    values at which it holds at some point (``"nowhere"`` if none)."""
    knobs = knob_names(table)
    out = []
    for quantity, rows in table.groupby("quantity", sort=False):
        held = rows[rows["holds"]]
        out.append(
            {
                "quantity": quantity,
                "holds_at": int(len(held)),
                "points": int(len(rows)),
                "where": {k: sorted(set(held[k].tolist())) for k in knobs},
            }
        )
    return out


def _values(values: list[float]) -> str:
    return ", ".join(f"{v:g}" for v in values) if values else "nowhere"


def markdown(rid: str, table: pd.DataFrame) -> str:
    """The regions as a Markdown table (the validation page's)."""
    knobs = knob_names(table)
    lines = [
        f"| `{rid}`: claim | holds at | " + " | ".join(f"{k} where it holds" for k in knobs) + " |",
        "| --- | --- | " + " | ".join("---" for _ in knobs) + " |",
    ]
    for r in regions(table):
        cells = " | ".join(_values(r["where"][k]) for k in knobs)
        lines.append(f"| {r['quantity']} | {r['holds_at']} of {r['points']} | {cells} |")
    return "\n".join(lines) + "\n"


def rich_table(rid: str, table: pd.DataFrame):
    """The grid for the terminal: one row per point, one column per claim (yes/no)."""
    from rich.table import Table

    knobs = knob_names(table)
    quantities = list(dict.fromkeys(table["quantity"]))
    out = Table(
        title=f"{rid}: where each claim holds",
        title_justify="left",
        caption="claims: " + "; ".join(f"({i + 1}) {q}" for i, q in enumerate(quantities)),
        caption_justify="left",
    )
    for col in (*knobs, *(f"({i + 1})" for i in range(len(quantities)))):
        out.add_column(col, justify="right")
    for point, rows in table.groupby(knobs, sort=False):
        point = point if isinstance(point, tuple) else (point,)
        verdict = dict(zip(rows["quantity"], rows["holds"], strict=True))
        out.add_row(
            *(f"{v:g}" for v in point), *("yes" if verdict[q] else "no" for q in quantities)
        )
    return out
