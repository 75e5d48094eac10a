"""Writing a run's files safely: the destination is checked before the run, files are written
into a temporary folder beside it and moved into place in one rename, and a folder never holds
files of two runs.

>>> from ccscope.output import check_destination, output_dir
>>> check_destination("out/run1")            # before running: raises OutputError if unusable
>>> with output_dir("out/run1") as tmp:       # after: write into tmp; moved to out/run1 at the end
...     (tmp / "summary.json").write_text("{}")

An existing destination is replaced only when it is empty or holds a previous ccscope run
(a summary.json that ccscope wrote); anything else is refused, so that ``--out`` never
deletes a user's own files.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .errors import CcscopeError


class OutputError(CcscopeError, OSError):
    """An output folder that cannot be written, named with the reason."""


def _is_run_folder(path: Path) -> bool:
    """Whether `path` is empty or holds a run ccscope wrote (its summary.json says so)."""
    entries = list(path.iterdir())
    if not entries:
        return True
    try:
        summary = json.loads((path / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(summary, dict) and "ccscope_version" in summary


def check_destination(out: str | Path) -> Path:
    """Checks before a run that `out` can receive its files; creates the folders above it.
    Raises :class:`OutputError` when `out` is a file, lies below a file, holds files that
    are not a previous ccscope run, or its parent cannot be written."""
    out = Path(out)
    for above in reversed(out.absolute().parents):
        if above.exists() and not above.is_dir():
            raise OutputError(f"--out {out}: {above} is a file, not a folder")
    if out.exists() and not out.is_dir():
        raise OutputError(f"--out {out}: is a file; give a folder")
    if out.is_dir() and not _is_run_folder(out):
        raise OutputError(
            f"--out {out}: the folder holds files that are not a ccscope run; "
            "give a new or empty folder, or one a previous run wrote"
        )
    try:
        out.absolute().parent.mkdir(parents=True, exist_ok=True)
        Path(
            tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".check", dir=out.absolute().parent)
        ).rmdir()
    except OSError as e:
        raise OutputError(f"--out {out}: cannot write there ({e.strerror or e})") from None
    return out


@contextlib.contextmanager
def output_dir(out: str | Path) -> Iterator[Path]:
    """A temporary folder beside `out` to write a run's files into; when the block ends
    without an error it replaces `out` (a previous run there is removed whole), otherwise it
    is removed and `out` is left as it was."""
    out = check_destination(out).absolute()
    # What a writer killed outright (SIGKILL) left beside the destination.
    for suffix in ("partial", "old"):
        for stale in out.parent.glob(f".{out.name}.*.{suffix}"):
            shutil.rmtree(stale, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
        os.replace(out, old / "run")
    try:
        os.replace(tmp, out)
    except OSError as e:
        if old is not None:
            os.replace(old / "run", out)
        shutil.rmtree(tmp, ignore_errors=True)
        raise OutputError(
            f"--out {out}: cannot move the run into place ({e.strerror or e})"
        ) from None
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def moved(paths: list[Path], tmp: Path, out: str | Path) -> list[Path]:
    """Paths written in `tmp`, as they are named once moved to `out`."""
    return [Path(out) / p.relative_to(tmp) for p in paths]


def jsonable(x):
    """`x` with numpy scalars made plain; raises :class:`OutputError` on a non-finite number
    (no NaN or infinity reaches a result file)."""
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        raise OutputError("a result value is not finite (a bug: please report it)")
    return x


@functools.cache
def provenance() -> dict:
    """Which ccscope wrote a result, recorded when the extension was built: its version, its
    model version (the same scenario, seed and model version give the same results), the
    commit of its source tree and whether that tree had uncommitted changes (``git_dirty``:
    true, false, or null when it was not built from a git checkout)."""
    from . import _core

    version, commit, dirty = _core.build_info()
    return {
        "ccscope_version": version,
        "model_version": _core.MODEL_VERSION,
        "git_commit": commit,
        "git_dirty": {"true": True, "false": False}.get(dirty),
    }


def scenario_hash(table: dict) -> str:
    """SHA-256 of a normalized scenario as canonical JSON (sorted keys): the same for the same
    scenario however it was written."""
    text = json.dumps(table, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def write_parquet(frame, path: Path, metadata: dict) -> Path:
    """Writes a pandas frame as Parquet with `metadata` (JSON) under the key ``ccscope`` of the
    file's key-value metadata, beside pandas' own."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[b"ccscope"] = json.dumps(jsonable(metadata), sort_keys=True).encode()
    pq.write_table(table.replace_schema_metadata(meta), path)
    return path


def read_metadata(path: str | Path) -> dict:
    """The ``ccscope`` metadata of a Parquet file ccscope wrote."""
    import pyarrow.parquet as pq

    meta = pq.read_schema(path).metadata or {}
    return json.loads(meta.get(b"ccscope", b"{}"))


def write_json(path: Path, data: dict) -> Path:
    """Writes `data` as indented JSON with a final newline."""
    path.write_text(json.dumps(jsonable(data), indent=2) + "\n", encoding="utf-8")
    return path
