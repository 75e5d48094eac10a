"""The results store of sweeps: one DuckDB file.

Tables:

- ``runs``: one row per run: ``run_id`` (a hash of the normalized scenario, the seed and the
  ccscope version), ``seed``, one column per sweep axis named by its dotted path, every summary
  metric, ``status`` ("ok" or "error"), ``error``, ``wall_s``, ``ccscope_version``,
  ``model_version``, ``engine``, ``scenario`` (the normalized scenario as JSON) and
  ``trace_dir`` (the folder of the run's Parquet traces, when the sweep keeps them);
- ``flows``: one row per (run, flow) with the flow's own numbers;
- ``axes``: the axis columns of ``runs``, in the order the sweeps declared them.

A run's rows are written in one transaction, so a process killed at any moment leaves each run
either wholly recorded or absent. Columns are added as new axes and metrics appear.

A store holds the runs of one model version (``ccscope._core.MODEL_VERSION``): the same scenario
and seed can give other numbers under another, so a store of other runs is refused for writing,
with how to start a new one or run them again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import StoreError

if TYPE_CHECKING:
    import pandas as pd

RUN_COLUMNS = {
    "run_id": "VARCHAR PRIMARY KEY",
    "seed": "BIGINT",
    "status": "VARCHAR",
    "error": "VARCHAR",
    "wall_s": "DOUBLE",
    "ccscope_version": "VARCHAR",
    "model_version": "BIGINT",
    "engine": "VARCHAR",
    "scenario": "VARCHAR",
    "trace_dir": "VARCHAR",
}


#: The model version of every run written before stores recorded it.
FIRST_MODEL_VERSION = 1


def sql_type(values: list[Any]) -> str:
    """The column type that holds every one of `values` without loss."""
    if all(isinstance(v, bool) for v in values):
        return "BOOLEAN"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "BIGINT"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return "DOUBLE"
    return "VARCHAR"


def cell(value: Any, kind: str) -> Any:
    """`value` as a column of type `kind` stores it: tables and lists as JSON text."""
    if kind == "VARCHAR" and not isinstance(value, str):
        return json.dumps(value)
    if kind == "DOUBLE":
        return float(value)
    return value


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def writable(path: str | Path) -> Path:
    """`path` as a store to create or add to; FileNotFoundError if its folder does not exist."""
    path = Path(path)
    if not path.parent.is_dir():
        raise FileNotFoundError(f"store {path}: its folder {path.parent} does not exist")
    return path


class Store:
    """A DuckDB results store, opened for writing (one writer at a time)."""

    def __init__(self, path: str | Path, read_only: bool = False):
        import duckdb

        self.path = Path(path) if read_only else writable(path)
        if read_only and not self.path.exists():
            raise FileNotFoundError(f"{self.path}: no such results store")
        self.con = duckdb.connect(str(self.path), read_only=read_only)
        # Each table's columns and types, read once: this store is the only writer.
        self._known: dict[str, dict[str, str]] = {}
        if not read_only:
            columns = ", ".join(f"{_quote(k)} {v}" for k, v in RUN_COLUMNS.items())
            self.con.execute(f"CREATE TABLE IF NOT EXISTS runs ({columns})")
            self.con.execute("CREATE TABLE IF NOT EXISTS flows (run_id VARCHAR, flow BIGINT)")
            self.con.execute(
                "CREATE TABLE IF NOT EXISTS axes (position BIGINT, name VARCHAR, type VARCHAR)"
            )
            self._refuse_other_models()

    def model_versions(self) -> set[int]:
        """The model versions of the runs held (a store from before model versions were
        recorded holds runs of the first)."""
        if "model_version" not in self._columns("runs"):
            rows = self.con.execute("SELECT 1 FROM runs LIMIT 1").fetchall()
            return {FIRST_MODEL_VERSION} if rows else set()
        rows = self.con.execute(
            f"SELECT DISTINCT coalesce(model_version, {FIRST_MODEL_VERSION}) FROM runs"
        ).fetchall()
        return {r[0] for r in rows}

    def _refuse_other_models(self) -> None:
        from . import _core

        ours = _core.MODEL_VERSION
        others = sorted(self.model_versions() - {ours})
        if others:
            self.close()
            raise StoreError(
                f"store {self.path} holds runs of model version "
                f"{', '.join(map(str, others))} and this ccscope runs model version {ours}, "
                "whose numbers may differ for the same scenario and seed: give a new store, "
                f"or remove {self.path} to run its sweeps again"
            )

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _columns(self, table: str) -> dict[str, str]:
        if table not in self._known:
            rows = self.con.execute(f"PRAGMA table_info({_quote(table)})").fetchall()
            self._known[table] = {r[1]: r[2] for r in rows}
        return self._known[table]

    def _ensure(self, table: str, kinds: dict[str, str]) -> dict[str, str]:
        have = self._columns(table)
        for name, kind in kinds.items():
            if name not in have:
                self.con.execute(f"ALTER TABLE {_quote(table)} ADD COLUMN {_quote(name)} {kind}")
                have[name] = kind
        return have

    def declare_axes(self, axes: dict[str, list]) -> dict[str, str]:
        """Adds a column to ``runs`` per axis (typed to hold all its values); returns the types."""
        known = dict(self.con.execute("SELECT name, type FROM axes").fetchall())
        kinds = {}
        for name, values in axes.items():
            kinds[name] = known.get(name) or sql_type(values)
            if name not in known:
                self.con.execute(
                    "INSERT INTO axes VALUES (?, ?, ?)",
                    [len(known) + len(kinds), name, kinds[name]],
                )
        self._ensure("runs", kinds)
        return kinds

    def axes(self) -> list[str]:
        return [
            r[0] for r in self.con.execute("SELECT name FROM axes ORDER BY position").fetchall()
        ]

    def finished(self) -> set[str]:
        """The run ids recorded as finished without error."""
        return {
            r[0] for r in self.con.execute("SELECT run_id FROM runs WHERE status = 'ok'").fetchall()
        }

    def _insert(self, table: str, rows: list[dict[str, Any]]) -> None:
        """Inserts `rows` in one statement (a statement costs more than its rows), adding the
        columns they bring, each typed by its first value."""
        if not rows:
            return
        for row in rows:
            self._ensure(table, {k: sql_type([v]) for k, v in row.items() if v is not None})
        kinds = self._columns(table)
        names = list(dict.fromkeys(k for row in rows for k in row if k in kinds))
        values = [
            cell(row[k], kinds[k]) if row.get(k) is not None else None
            for row in rows
            for k in names
        ]
        one = f"({', '.join('?' * len(names))})"
        self.con.execute(
            f"INSERT INTO {_quote(table)} ({', '.join(map(_quote, names))}) "
            f"VALUES {', '.join([one] * len(rows))}",
            values,
        )

    def record(self, run: dict[str, Any], flows: list[dict[str, Any]]) -> None:
        """Replaces the rows of run ``run["run_id"]`` with `run` and its `flows`, atomically."""
        self.con.execute("BEGIN TRANSACTION")
        try:
            self.con.execute("DELETE FROM runs WHERE run_id = ?", [run["run_id"]])
            self.con.execute("DELETE FROM flows WHERE run_id = ?", [run["run_id"]])
            self._insert("runs", [run])
            self._insert("flows", [{"run_id": run["run_id"], **flow} for flow in flows])
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            self._known.clear()  # columns added in the transaction are gone
            raise

    def table(self, name: str = "runs") -> pd.DataFrame:
        if name not in ("runs", "flows"):
            raise ValueError(f"table {name!r}: expected 'runs' or 'flows'")
        return self.con.execute(
            f"SELECT * FROM {name} ORDER BY run_id" + (", flow" if name == "flows" else "")
        ).df()
