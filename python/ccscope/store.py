"""The results store of sweeps: one DuckDB file.

Tables:

- ``runs``: one row per run: ``run_id`` (a hash of the normalized scenario, the seed and the
  ccscope version), ``seed``, one column per sweep axis named by its dotted path, every summary
  metric, ``status`` ("ok" or "error"), ``error``, ``wall_s``, ``ccscope_version``,
  ``model_version``, ``engine``, ``scenario`` (the normalized scenario as JSON) and
  ``trace_dir`` (the folder of the run's Parquet traces, when the sweep keeps them) and
  ``notes`` (what a reader of its numbers must know, as in summary.json: a JSON list, or NULL);
- ``flows``: one row per (run, flow) with the flow's own numbers, its ``class`` (its label:
  the flows of one class run the same sender and controller) and, in the packet model, its
  ``share`` of the first bottleneck's capacity (throughput over the link's rate);
- ``classes``: one row per (run, class): the class's number of ``flows``, their total
  ``throughput_bps`` and ``share``, their ``loss_rate`` (packets lost over packets sent),
  ``mean_delay_s`` (over their delivered packets) and Jain's index among them (``jain``);
- ``axes``: the axis columns of ``runs``, in the order the sweeps declared them;
- ``rmcat`` (only in a store ``ccscope rmcat`` ran into): one row per RFC 8867 case and
  controller, with the run it comes from and its metrics as JSON (:mod:`ccscope.rmcat`).

A store written before ``classes`` existed is read as it is (without per-class rows) and
refused for writing, with how to start a new one.

A run's rows are written in one transaction, so a process killed at any moment leaves each run
either wholly recorded or absent. Columns are added as new axes and metrics appear.

A store holds the runs of one model version (``ccscope._core.MODEL_VERSION``): the same scenario
and seed can give other numbers under another, so a store of other runs is refused for writing,
with how to start a new one or run them again.

Whatever goes wrong with the file (a folder, another program's database, a file another
process is writing, a full disk) is a :class:`ccscope.errors.StoreError` naming the store and
what was found; a column that cannot hold a new value (an axis of whole numbers given 0.5, say)
is widened to one that holds both.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
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
    "notes": "VARCHAR",
}


#: The model version of every run written before stores recorded it.
FIRST_MODEL_VERSION = 1


#: The tables of a store; a DuckDB file holding any other is not one.
TABLES = ("runs", "flows", "axes", "classes")

#: The tables a store to read must have (stores written before ``classes`` lack it).
REQUIRED = ("runs", "flows", "axes")

#: Tables a sweep's store may also hold: those of commands that run sweeps into it.
OPTIONAL_TABLES = ("rmcat",)

#: The tables of an exploration's store (``ccscope reproduce ID --explore --store``).
EXPLORE_TABLES = ("explore", "explore_meta")

#: DuckDB's magic bytes, at this offset of its files (its storage format's header).
DUCKDB_MAGIC, MAGIC_AT = b"DUCK", 8

#: The whole numbers a BIGINT column holds.
INT64 = range(-(2**63), 2**63)


def sql_type(values: list[Any]) -> str:
    """The column type that holds every one of `values` without loss."""
    if all(isinstance(v, bool) for v in values):
        return "BOOLEAN"
    if all(isinstance(v, int) and not isinstance(v, bool) and v in INT64 for v in values):
        return "BIGINT"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return "DOUBLE"
    return "VARCHAR"


def wider(have: str, new: str) -> str:
    """The column type that holds the values of both types: whole numbers widen to DOUBLE
    beside fractions, anything else to VARCHAR (JSON text, as :func:`cell` writes it)."""
    if have == new:
        return have
    if {have, new} == {"BIGINT", "DOUBLE"}:
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
    """`path` as a store to create or add to, made absolute (a controller that changes the
    working directory does not move it); :class:`StoreError` if its folder does not exist or
    it is a file of another kind."""
    path = Path(path).absolute()
    if not path.parent.is_dir():
        raise StoreError(f"store {path}: its folder {path.parent} does not exist")
    check_file(path)
    return path


def check_file(path: Path) -> None:
    """Refuses, before DuckDB opens it, a `path` that is a folder or a file DuckDB did not
    write (DuckDB would try to fetch an extension to read an SQLite file)."""
    if path.is_dir():
        raise StoreError(f"store {path}: is a folder; give the path of a .duckdb file")
    try:
        with path.open("rb") as f:
            head = f.read(16)
    except FileNotFoundError:
        return
    except OSError as e:
        raise StoreError(f"store {path}: cannot be read ({e.strerror})") from None
    if head[MAGIC_AT : MAGIC_AT + len(DUCKDB_MAGIC)] != DUCKDB_MAGIC:
        kind = (
            "is an empty file,"
            if not head
            else "is an SQLite database,"
            if head.startswith(b"SQLite format 3")
            else "is not a DuckDB file, so"
        )
        raise StoreError(f"store {path}: {kind} not a ccscope results store; give a new path")


def tables_of(con: Any) -> set[str]:
    """The tables of the DuckDB database `con` is connected to."""
    query = "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
    return {r[0] for r in con.execute(query).fetchall()}


def what_holds(tables: set[str]) -> str:
    """What a DuckDB file of these `tables` is, as a refusal says it."""
    if not tables:
        return "an empty DuckDB database"
    if tables <= set(TABLES) | set(OPTIONAL_TABLES):
        return "a sweep's store"
    if tables <= set(EXPLORE_TABLES):
        return "an exploration's store (ccscope reproduce ID --explore)"
    return f"a DuckDB database of another program (it holds the tables {', '.join(sorted(tables))})"


def _reason(e: Exception) -> str:
    """A DuckDB error's first line, without its class prefix (``IO Error: ``)."""
    line = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    head, sep, rest = line.partition(": ")
    return rest if sep and head.endswith("Error") and " " in head else line


@contextlib.contextmanager
def _named(path: Path) -> Iterator[None]:
    """Turns DuckDB's errors into a :class:`StoreError` naming the store."""
    import duckdb

    try:
        yield
    except duckdb.Error as e:
        reason = _reason(e)
        if "Could not set lock" in reason or "Conflicting lock" in reason:
            holder = reason.split("held in ")[-1].split(". See also")[0]  # DuckDB's docs link
            reason = f"another process has it open ({holder})"
        elif "Could not read enough bytes" in reason:
            reason = f"is truncated or damaged ({reason})"
        raise StoreError(f"store {path}: {reason}") from e


def _connect(path: Path, read_only: bool):
    """A DuckDB connection to `path` (call under :func:`_named`) that never fetches an
    extension over the network to read a file."""
    import duckdb

    return duckdb.connect(
        str(path),
        read_only=read_only,
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
    )


@contextlib.contextmanager
def opened(path: str | Path, read_only: bool = False) -> Iterator[Any]:
    """A DuckDB connection to the file `path`, for a store other than a sweep's (an
    exploration's), checked and named as a sweep's store is: refused before DuckDB opens it
    when it is a folder or another kind of file (:func:`check_file`), and every DuckDB error
    in the block a :class:`StoreError` naming it."""
    path = Path(path).absolute()
    check_file(path)
    if read_only and not path.exists():
        raise StoreError(f"store {path}: no such file")
    with _named(path):
        con = _connect(path, read_only)
        try:
            yield con
        finally:
            con.close()


class Store:
    """A DuckDB results store, opened for writing (one writer at a time)."""

    def __init__(self, path: str | Path, read_only: bool = False):
        self.path = Path(path) if read_only else writable(path)
        if read_only:
            if not self.path.exists():
                raise StoreError(f"{self.path}: no such results store")
            check_file(self.path)
        # Each table's columns and types, read once: this store is the only writer.
        self._known: dict[str, dict[str, str]] = {}
        with _named(self.path):
            self.con = _connect(self.path, read_only)
        try:
            self._refuse_foreign(read_only)
            if not read_only:
                columns = ", ".join(f"{_quote(k)} {v}" for k, v in RUN_COLUMNS.items())
                self._sql(f"CREATE TABLE IF NOT EXISTS runs ({columns})")
                self._sql("CREATE TABLE IF NOT EXISTS flows (run_id VARCHAR, flow BIGINT)")
                self._sql(
                    "CREATE TABLE IF NOT EXISTS axes (position BIGINT, name VARCHAR, type VARCHAR)"
                )
                self._refuse_other_models()
                self._refuse_without_classes()
                self._sql("CREATE TABLE IF NOT EXISTS classes (run_id VARCHAR, class VARCHAR)")
        except BaseException:
            self.close()
            raise

    def _sql(self, query: str, params: list | None = None):
        """`query` run on the store; DuckDB's errors as :class:`StoreError`."""
        with _named(self.path):
            return self.con.execute(query, params)

    def _refuse_foreign(self, read_only: bool) -> None:
        """Refuses a DuckDB file that holds tables of another program (so that a sweep never
        adds its own beside them), a ``runs`` table that is not a store's, or, to read, a file
        without one."""
        with _named(self.path):
            tables = tables_of(self.con)
        if tables - set(TABLES) - set(OPTIONAL_TABLES):
            raise StoreError(
                f"store {self.path}: is {what_holds(tables)}, not a sweep's; give a new path"
            )
        if tables and not {"run_id", "status"} <= set(self._columns("runs")):
            raise StoreError(
                f"store {self.path}: its table runs is not a sweep's (another program's "
                "database); give a new path"
            )
        missing = [t for t in REQUIRED if t not in tables]
        if read_only and missing:
            raise StoreError(
                f"store {self.path}: holds no sweep's runs (no table {', '.join(missing)}): "
                "not a ccscope results store"
            )

    def has_classes(self) -> bool:
        """Whether the store keeps per-class rows (stores written before them do not)."""
        with _named(self.path):
            return "classes" in tables_of(self.con)

    def _refuse_without_classes(self) -> None:
        """Refuses to add runs to a store of runs recorded without their per-class rows, which
        a per-class query would silently miss."""
        with _named(self.path):
            tables = tables_of(self.con)
        if "runs" in tables and "classes" not in tables:
            if self._sql("SELECT 1 FROM runs LIMIT 1").fetchall():
                raise StoreError(
                    f"store {self.path} was written by an older ccscope, without per-class "
                    "rows (no table classes): it can still be read and reported, but to add "
                    f"runs give a new store, or remove {self.path} to run its sweeps again"
                )

    def model_versions(self) -> set[int]:
        """The model versions of the runs held (a store from before model versions were
        recorded holds runs of the first)."""
        if "model_version" not in self._columns("runs"):
            rows = self._sql("SELECT 1 FROM runs LIMIT 1").fetchall()
            return {FIRST_MODEL_VERSION} if rows else set()
        rows = self._sql(
            f"SELECT DISTINCT coalesce(model_version, {FIRST_MODEL_VERSION}) FROM runs"
        ).fetchall()
        return {r[0] for r in rows}

    def _refuse_other_models(self) -> None:
        from . import _core

        ours = _core.MODEL_VERSION
        others = sorted(self.model_versions() - {ours})
        if others:
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
            rows = self._sql(f"PRAGMA table_info({_quote(table)})").fetchall()
            self._known[table] = {r[1]: r[2] for r in rows}
        return self._known[table]

    def _ensure(self, table: str, kinds: dict[str, str]) -> dict[str, str]:
        """Adds the columns of `kinds` that `table` lacks, and widens one that cannot hold
        values of its new kind (:func:`wider`)."""
        have = self._columns(table)
        for name, kind in kinds.items():
            if name not in have:
                self._sql(f"ALTER TABLE {_quote(table)} ADD COLUMN {_quote(name)} {kind}")
                have[name] = kind
            elif wider(have[name], kind) != have[name]:
                have[name] = wider(have[name], kind)
                self._sql(
                    f"ALTER TABLE {_quote(table)} ALTER COLUMN {_quote(name)} TYPE {have[name]}"
                )
        return have

    def declare_axes(self, axes: dict[str, list]) -> dict[str, str]:
        """Adds a column to ``runs`` per axis (typed to hold all its values); returns the types."""
        known = dict(self._sql("SELECT name, type FROM axes").fetchall())
        kinds = {}
        for name, values in axes.items():
            kinds[name] = sql_type(values)
            if name in known:
                kinds[name] = wider(known[name], kinds[name])
                self._sql("UPDATE axes SET type = ? WHERE name = ?", [kinds[name], name])
            else:
                self._sql(
                    "INSERT INTO axes VALUES (?, ?, ?)",
                    [len(known) + len(kinds), name, kinds[name]],
                )
        self._ensure("runs", kinds)
        return kinds

    def axes(self) -> list[str]:
        return [r[0] for r in self._sql("SELECT name FROM axes ORDER BY position").fetchall()]

    def finished(self) -> set[str]:
        """The run ids recorded as finished without error."""
        return {r[0] for r in self._sql("SELECT run_id FROM runs WHERE status = 'ok'").fetchall()}

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
        self._sql(
            f"INSERT INTO {_quote(table)} ({', '.join(map(_quote, names))}) "
            f"VALUES {', '.join([one] * len(rows))}",
            values,
        )

    def record(
        self,
        run: dict[str, Any],
        flows: list[dict[str, Any]],
        classes: list[dict[str, Any]] | None = None,
    ) -> None:
        """Replaces the rows of run ``run["run_id"]`` with `run`, its `flows` and `classes`,
        atomically.
        On an error the store is left as it was and the error is the first one met (a
        rollback after a failed commit has nothing to undo)."""
        import duckdb

        self._sql("BEGIN TRANSACTION")
        try:
            self._sql("DELETE FROM runs WHERE run_id = ?", [run["run_id"]])
            self._sql("DELETE FROM flows WHERE run_id = ?", [run["run_id"]])
            self._sql("DELETE FROM classes WHERE run_id = ?", [run["run_id"]])
            self._insert("runs", [run])
            self._insert("flows", [{"run_id": run["run_id"], **flow} for flow in flows])
            self._insert("classes", [{"run_id": run["run_id"], **c} for c in classes or []])
            self._sql("COMMIT")
        except BaseException:
            with contextlib.suppress(duckdb.Error):
                self.con.execute("ROLLBACK")
            self._known.clear()  # columns added in the transaction are gone
            raise

    def replace_rows(self, table: str, key: tuple[str, ...], rows: list[dict[str, Any]]) -> None:
        """Replaces, atomically, the rows of the optional `table` that have the `key` columns'
        values of one of `rows` with `rows` (each a dict of the same columns)."""
        import duckdb

        if table not in OPTIONAL_TABLES:
            raise ValueError(f"table {table!r}: expected one of {OPTIONAL_TABLES}")
        columns = ", ".join(f"{_quote(k)} {sql_type([v])}" for k, v in rows[0].items())
        self._sql("BEGIN TRANSACTION")
        try:
            self._sql(f"CREATE TABLE IF NOT EXISTS {_quote(table)} ({columns})")
            match = " AND ".join(f"{_quote(k)} = ?" for k in key)
            for row in rows:
                self._sql(f"DELETE FROM {_quote(table)} WHERE {match}", [row[k] for k in key])
            self._insert(table, rows)
            self._sql("COMMIT")
        except BaseException:
            with contextlib.suppress(duckdb.Error):
                self.con.execute("ROLLBACK")
            self._known.clear()
            raise

    def table(self, name: str = "runs") -> pd.DataFrame:
        """The table `name`: runs, flows or classes, by run (a store written before per-class
        rows has no classes table: :class:`StoreError`), or an optional table (empty when the
        store has none)."""
        if name in OPTIONAL_TABLES:
            if name not in tables_of(self.con):
                import pandas as pd

                return pd.DataFrame()
            return self._sql(f"SELECT * FROM {_quote(name)}").df()
        order = {"runs": "", "flows": ", flow", "classes": ", class"}
        if name not in order:
            raise ValueError(f"table {name!r}: expected 'runs', 'flows' or 'classes'")
        if name == "classes" and not self.has_classes():
            raise StoreError(
                f"store {self.path} was written by an older ccscope, without per-class rows: "
                "run its sweeps again into a new store to have them"
            )
        return self._sql(f"SELECT * FROM {name} ORDER BY run_id{order[name]}").df()
