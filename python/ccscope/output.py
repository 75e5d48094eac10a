"""Writing a run's files safely: the destination is checked before the run, files are written
into a temporary folder beside it and moved into place in one rename, and a folder never holds
files of two runs.

>>> from ccscope.output import claimed, output_dir
>>> with claimed("out/run1") as out:          # before running: OutputError if unusable or taken
...     ...                                   # the run
...     with output_dir(out) as tmp:          # write into tmp; moved to out/run1 at the end
...         (tmp / "summary.json").write_text("{}")

An existing destination is replaced only when it is empty or holds a previous ccscope run
(a summary.json that ccscope wrote); anything else is refused, so that ``--out`` never
deletes a user's own files. One writer at a time holds a destination (a lock file
``.NAME.lock`` beside it, removed when it is done): a second writer is refused, so that two
runs into one folder never lose or mix their files.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
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


def _followed(out: Path) -> Path:
    """`out` with a symbolic link at its end followed; :class:`OutputError` for a link that
    points nowhere or into a loop."""
    if not out.is_symlink():
        return out
    try:
        return out.resolve(strict=True)
    except FileNotFoundError:
        raise OutputError(
            f"--out {out}: is a symbolic link to {os.readlink(out)}, which does not exist"
        ) from None
    except (OSError, RuntimeError):  # ELOOP; Python 3.11 says RuntimeError
        raise OutputError(f"--out {out}: is a symbolic link that loops") from None


def check_destination(out: str | Path) -> Path:
    """Checks before a run that `out` can receive its files; creates the folders above it.
    Returns `out` as an absolute path (a symbolic link to a folder followed), where the files
    go whatever the working directory later is. Raises :class:`OutputError` when `out` is a
    file, lies below a file, is a symbolic link to nowhere or a loop, is a mount point (which
    cannot be replaced whole), holds files that are not a previous ccscope run, or its parent
    cannot be written."""
    given = Path(out)
    out = _followed(given.absolute())
    for above in reversed(out.parents):
        if above.exists() and not above.is_dir():
            raise OutputError(f"--out {out}: {above} is a file, not a folder")
    if out.exists() and not out.is_dir():
        raise OutputError(f"--out {given}: is a file; give a folder")
    if out.is_dir() and os.path.ismount(out):
        raise OutputError(
            f"--out {given}: is a mount point, which a run cannot replace; give a folder in it"
        )
    try:
        if out.is_dir() and not _is_run_folder(out):
            raise OutputError(
                f"--out {given}: the folder holds files that are not a ccscope run; "
                "give a new or empty folder, or one a previous run wrote"
            )
        out.parent.mkdir(parents=True, exist_ok=True)
        probe = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".check", dir=out.parent))
        # A writer holding `out` may have swept the probe away as a killed run's leftover.
        with contextlib.suppress(FileNotFoundError):
            probe.rmdir()
    except OutputError:
        raise
    except OSError as e:
        raise OutputError(f"--out {given}: cannot write there ({e.strerror or e})") from None
    return out


def writable_folder(folder: str | Path, option: str) -> Path:
    """`folder`, created if missing, once a file could be made in it: checked before any time
    is spent on what goes there. :class:`OutputError` naming `option` otherwise."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{option} {folder}: is a file; give a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as e:
        raise OutputError(f"{option} {folder}: cannot write there ({e.strerror or e})") from None
    return folder


def writable_file(path: str | Path, option: str) -> Path:
    """`path` once its folder is :func:`writable_folder` and it is not a folder itself."""
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"{option} {path}: is a folder; give a file name")
    writable_folder(path.absolute().parent, option)
    return path


#: Destinations this process holds, with the descriptor of each one's lock file.
_HELD: dict[Path, int] = {}


def _lock_file(out: Path) -> Path:
    return out.parent / f".{out.name}.lock"


def _lock(out: Path) -> int:
    """Takes `out`'s lock file; :class:`OutputError` when another process holds it."""
    path = _lock_file(out)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise OutputError(f"--out {out}: cannot lock {path} ({e.strerror})") from None
            raise OutputError(
                f"--out {out}: another ccscope process (pid {holder}) is writing there; "
                "wait for it to end, or give another folder"
            ) from None
        # The holder before us may have removed the file between our open and our lock.
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
            return fd
        os.close(fd)


@contextlib.contextmanager
def claimed(out: str | Path) -> Iterator[Path]:
    """Holds `out` for this process's writes while the block runs: checks it
    (:func:`check_destination`), takes its lock, and gives the checked path; another process
    that claims it meanwhile gets :class:`OutputError`. Claiming a folder this process holds
    already is allowed (the outer claim keeps the lock)."""
    out = check_destination(out)
    if out in _HELD:
        yield out
        return
    fd = _lock(out)
    _HELD[out] = fd
    try:
        yield out
    finally:
        del _HELD[out]
        with contextlib.suppress(FileNotFoundError):
            os.unlink(_lock_file(out))
        os.close(fd)


@contextlib.contextmanager
def output_dir(out: str | Path) -> Iterator[Path]:
    """A temporary folder beside `out` to write a run's files into; when the block ends
    without an error it replaces `out` (a previous run there is removed whole), otherwise it
    is removed and `out` is left as it was. `out` is :func:`claimed` meanwhile."""
    with claimed(out) as out:
        # What a writer killed outright (SIGKILL) left: the lock says none is writing now.
        for suffix in ("partial", "old", "check"):
            for stale in out.parent.glob(f".{out.name}.*.{suffix}"):
                shutil.rmtree(stale, ignore_errors=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
        try:
            yield tmp
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        _replace(out, tmp)


def _replace(out: Path, tmp: Path) -> None:
    """Puts the folder `tmp` in place of `out`, a previous `out` removed whole."""
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
