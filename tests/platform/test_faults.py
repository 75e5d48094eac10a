"""The platform under faults and bad input: every command meets a bad file, store, folder,
option or controller with one line naming what failed and exit status 2, never a traceback,
and never loses or mixes results; a bug alone shows a traceback, asking to be reported."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import ccscope
from ccscope import _core, explore, output, store, sweep, video
from ccscope.check import check
from ccscope.cli import app
from ccscope.errors import ControllerError, CostError, ScenarioError, StoreError
from ccscope.scenario import cost

SMALL = (
    '[run]\nduration = "2s"\n[topology]\nkind = "fat_link"\n'
    'loss = { kind = "bernoulli", p = 0.01 }\n[[flows]]\nsource = { kind = "tcp" }\n'
)
BASE = {
    "run": {"duration": "2s"},
    "topology": {"kind": "fat_link", "loss": {"kind": "bernoulli", "p": 0.01}},
    "flows": [{"source": {"kind": "tcp"}}],
}
#: What no message of an expected failure shows.
INTERNALS = ("Traceback", "duckdb.", "_duckdb", "pyarrow", "ArrowInvalid", "Exception:")


def cli(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ccscope", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
    )


def sweep_file(tmp: Path, body: str = "seeds = [1]\n", name: str = "sw.toml") -> Path:
    """A sweep file `body` over the scenario SMALL (tiny.toml beside it)."""
    (tmp / "tiny.toml").write_text(SMALL)
    file = tmp / name
    file.write_text(f'base = "tiny.toml"\n{body}')
    return file


@contextlib.contextmanager
def held(code: str) -> Iterator[subprocess.Popen]:
    """Another Python process, which runs `code` (taking a store or a folder) and then holds
    what it took until the block ends."""
    proc = subprocess.Popen(
        [sys.executable, "-c", f"{code}\nimport sys\nprint(1, flush=True)\nsys.stdin.read()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        proc.stdout.readline()
        yield proc
    finally:
        proc.communicate("")


def one_line(text: str) -> str:
    """The text of an expected failure: one error line (rich wraps it on a narrow terminal)."""
    assert text.startswith("error: "), text
    assert not any(s in text for s in INTERNALS), text
    return " ".join(text.split())


# --- stores -----------------------------------------------------------------------------------


def foreign_files(tmp: Path) -> dict[str, Path]:
    """Paths a store cannot be, by what is there."""
    (tmp / "folder.duckdb").mkdir()
    (tmp / "text.duckdb").write_text("runs,seed\n1,2\n")
    (tmp / "empty.duckdb").touch()
    lite = sqlite3.connect(tmp / "lite.duckdb")
    lite.execute("CREATE TABLE t (x)")
    lite.commit()
    lite.close()
    with duckdb.connect(str(tmp / "other.duckdb")) as con:
        con.execute("CREATE TABLE customers (id INTEGER)")
    return {
        "is a folder": tmp / "folder.duckdb",
        "is not a DuckDB file": tmp / "text.duckdb",
        "is an empty file": tmp / "empty.duckdb",
        "is an SQLite database": tmp / "lite.duckdb",
        "is a DuckDB database of another program (it holds the tables customers)": (
            tmp / "other.duckdb"
        ),
    }


def test_a_store_that_is_not_one_is_named_and_left_alone(tmp_path):
    files = foreign_files(tmp_path)
    file = sweep_file(tmp_path)
    runner = CliRunner()
    for says, path in files.items():
        before = path.read_bytes() if path.is_file() else None
        for read_only in (False, True):
            with pytest.raises(StoreError, match=f"store .*{path.name}: ") as e:
                store.Store(path, read_only=read_only)
            assert says in str(e.value)
        with pytest.raises(StoreError, match=f"store .*{path.name}: ") as e:
            explore.load(path)
        assert says in str(e.value)
        for args in (
            ["sweep", str(file), "--store", str(path), "--no-progress"],
            ["sweep", str(file), "--store", str(path), "--show"],
            ["report", str(path), "-o", str(tmp_path / "r.html")],
            # refused before the points are computed
            ["reproduce", "papadimitriou-fig3", "--explore", EXPLORE_AXIS, "--store", str(path)],
        ):
            done = runner.invoke(app, args)
            assert done.exit_code == 2, (args, done.output)
            # (a report on a folder reads a run directory)
            folder = args[0] == "report" and path.is_dir()
            assert (says if not folder else "no summary.json") in one_line(done.output)
        # Nothing added: another program's file is as it was.
        assert (path.read_bytes() if path.is_file() else None) == before
    assert not (tmp_path / "r.html").exists()


#: An exploration of papadimitriou-fig3 at two buffers (refused before it runs, here).
EXPLORE_AXIS = "buffer_bdp=1:2:2"


def test_a_sweeps_store_and_an_explorations_are_each_refused_by_the_other(tmp_path):
    swept, explored = tmp_path / "sweep.duckdb", tmp_path / "explore.duckdb"
    assert cli("sweep", str(sweep_file(tmp_path)), "--store", str(swept)).returncode == 0
    table = pd.DataFrame({"buffer_bdp": [2.0], "quantity": ["q"], "holds": [True]})
    explore.write(explored, "papadimitriou-fig3", True, table)
    before = {p: p.read_bytes() for p in (swept, explored)}
    runner = CliRunner()
    for args, says in (
        (
            ["reproduce", "papadimitriou-fig3", "--explore", EXPLORE_AXIS, "--store", str(swept)],
            f"store {swept}: is a sweep's store, not an exploration's; give a new path",
        ),
        (
            ["sweep", str(tmp_path / "sw.toml"), "--store", str(explored), "--no-progress"],
            f"store {explored}: is an exploration's store (ccscope reproduce ID --explore), "
            "not a sweep's; give a new path",
        ),
    ):
        done = runner.invoke(app, args)
        assert done.exit_code == 2 and one_line(done.output) == f"error: {says}", done.output
    assert before == {p: p.read_bytes() for p in (swept, explored)}
    # An exploration's store another process has open is named before any point is computed.
    with held(f"import duckdb\nc = duckdb.connect({str(explored)!r})"):
        start = time.monotonic()
        done = runner.invoke(
            app,
            [
                "reproduce",
                "papadimitriou-fig3",
                "--explore",
                EXPLORE_AXIS,
                "--store",
                str(explored),
            ],
        )
        assert time.monotonic() - start < 30
    assert done.exit_code == 2 and "another process has it open" in one_line(done.output)


def test_a_truncated_store_and_one_held_by_another_process_are_named(tmp_path):
    path = tmp_path / "r.duckdb"
    with store.Store(path) as db:
        db.record({"run_id": "a", "seed": 1, "status": "ok"}, [{"flow": 0, "x": 1.0}])
    with held(f"import duckdb\nc = duckdb.connect({str(path)!r})"):
        for read_only in (False, True):
            with pytest.raises(StoreError, match="another process has it open"):
                store.Store(path, read_only=read_only)
    os.truncate(path, 5000)
    with pytest.raises(StoreError, match="is truncated or damaged"):
        store.Store(path, read_only=True)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(head=st.binary(max_size=64))
def test_any_bytes_as_a_store_are_refused_in_one_error(tmp_path, head):
    path = tmp_path / "b.duckdb"
    path.write_bytes(head)
    with pytest.raises(StoreError):
        store.Store(path, read_only=True)
    with pytest.raises(StoreError):
        store.Store(path)
    assert path.read_bytes() == head


class _FullDisk:
    """A DuckDB connection whose commits fail as on a full disk."""

    def __init__(self, con):
        self.con = con

    def execute(self, query, params=None):
        if query == "COMMIT":
            self.con.execute("ROLLBACK")
            raise duckdb.IOException("IO Error: No space left on device")
        return self.con.execute(query, params)

    def close(self):
        self.con.close()


def test_a_failed_commit_is_the_error_told_and_the_store_is_unchanged(tmp_path):
    path = tmp_path / "r.duckdb"
    db = store.Store(path)
    db.record({"run_id": "a", "seed": 1, "status": "ok"}, [])
    db.con = _FullDisk(db.con)
    # The rollback after it finds no transaction: DuckDB's own words for that must not hide
    # the disk being full.
    with pytest.raises(StoreError, match="No space left on device"):
        db.record({"run_id": "b", "seed": 2, "status": "ok", "new": 1.0}, [{"flow": 0}])
    db.close()
    assert sweep.load(path)["run_id"].tolist() == ["a"]


@contextlib.contextmanager
def tmpfs(at: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` mounted at `at`: a real file system to fill or make read-only.
    Mounting needs root (CAP_SYS_ADMIN); without it the test is skipped, saying so."""
    at.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(at)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"mounting a tmpfs needs root (CAP_SYS_ADMIN): {mounted.stderr!r}")
    try:
        yield at
    finally:
        subprocess.run(["umount", "-l", str(at)], check=True)


def seeds_file(tmp: Path, seeds: range, name: str) -> Path:
    return sweep_file(tmp, f"seeds = {list(seeds)}\n", name)


def test_a_store_on_a_full_disk_keeps_what_was_committed_and_says_the_disk_is_full(tmp_path):
    with tmpfs(tmp_path / "fs", "160k") as fs:
        path = fs / "runs.db"  # not .duckdb: INTERNALS looks for "duckdb."
        first = cli(
            "sweep", str(seeds_file(tmp_path, range(1, 31), "a.toml")), "--store", str(path)
        )
        # The first 30 runs fit (DuckDB's files are sparse); 300 more cannot.
        assert first.returncode == 0, first.stderr
        full = cli(
            "sweep", str(seeds_file(tmp_path, range(100, 400), "b.toml")), "--store", str(path)
        )
        assert full.returncode == 2
        [line] = [x for x in full.stderr.splitlines() if x.startswith("error:")]
        assert "No space left on device" in line and str(path) in line
        assert not any(s in full.stderr for s in INTERNALS)
        kept = sweep.load(path)
        assert set(range(1, 31)) <= set(kept["seed"])


def test_a_store_on_a_read_only_file_system_is_read_but_not_written(tmp_path):
    with tmpfs(tmp_path / "fs", "4m") as fs:
        path = fs / "runs.db"  # not .duckdb: INTERNALS looks for "duckdb."
        first = cli("sweep", str(seeds_file(tmp_path, range(1, 2), "a.toml")), "--store", str(path))
        assert first.returncode == 0, first.stderr
        subprocess.run(["mount", "-o", "remount,ro", str(fs)], check=True)
        more = cli("sweep", str(seeds_file(tmp_path, range(2, 3), "b.toml")), "--store", str(path))
        assert more.returncode == 2
        assert "Read-only file system" in more.stderr and str(path) in more.stderr
        assert not any(s in more.stderr for s in INTERNALS)
        shown = cli("report", str(path), "-o", str(tmp_path / "r.html"))
        assert shown.returncode == 0, shown.stderr
        assert sweep.load(path)["seed"].tolist() == [1]


#: Values an axis (or a metric) may take, in the types a sweep file gives.
VALUES = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sweeps=st.lists(st.lists(VALUES, min_size=1, max_size=3), min_size=1, max_size=4))
def test_an_axis_whose_type_changes_between_sweeps_is_widened_never_refused(tmp_path, sweeps):
    path = tmp_path / f"w{abs(hash(str(sweeps)))}.duckdb"
    written = []
    for i, values in enumerate(sweeps):
        with store.Store(path) as db:
            kinds = db.declare_axes({"a": values})
            for j, v in enumerate(values):
                rid = f"{i}-{j}"
                row = {"run_id": rid, "seed": 1, "model_version": _core.MODEL_VERSION}
                db.record({**row, "a": store.cell(v, kinds["a"]), "m": v}, [])
                written.append((rid, v))
    with store.Store(path, read_only=True) as db:
        kinds = db._columns("runs")
        runs = db.table("runs").set_index("run_id")
    for rid, v in written:
        for column in ("a", "m"):
            held, expected = runs.loc[rid, column], store.cell(v, kinds[column])
            # A number widened to text reads as the number it was.
            assert held == expected or float(held) == float(v), (column, held, v)


# --- controllers written in Python ------------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "says"),
    [
        ("import sys\nsys.exit(3)\n", "importing quits (QUITS) raised SystemExit: 3"),
        ("raise MemoryError\n", "importing quits (QUITS) raised MemoryError"),
        (
            "import sys, ccscope\nclass Q(ccscope.Controller):\n"
            "    def __init__(self):\n        sys.exit('no')\n",
            "Q(...) raised SystemExit: no",
        ),
        (
            "import sys, ccscope\nclass Q(ccscope.Controller):\n    window_pkts = 5.0\n"
            "    def on_ack(self, ack):\n        sys.exit(0)\n",
            "on_ack raised SystemExit",
        ),
    ],
)
def test_a_controller_that_quits_is_its_error(tmp_path, monkeypatch, module, says):
    (tmp_path / "quits.py").write_text(module)
    (tmp_path / "s.toml").write_text(
        SMALL.replace('{ kind = "tcp" }', '{ kind = "tcp", controller = "python:quits:Q" }')
    )
    done = cli("run", "s.toml", "--out", "out", "-q", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert says.replace("QUITS", str(tmp_path / "quits.py")) in " ".join(done.stderr.split())
    assert "Traceback" not in done.stderr
    if "on_ack" in says:  # the run began: what it measured is kept, marked partial
        assert json.loads((tmp_path / "out" / "summary.json").read_text())["partial"]
        return
    # So in every command that loads one: check (and scorecard) from the working directory.
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ControllerError, match=says.split(" (")[0].replace("(...)", r"\(...\)")):
        check("python:quits:Q")


def test_a_scorecard_of_a_controller_that_raises_is_one_line(tmp_path):
    (tmp_path / "bad.py").write_text(
        "import ccscope\nclass Bad(ccscope.Controller):\n    window_pkts = 10.0\n"
        "    def on_round(self, r):\n        raise RuntimeError('boom')\n"
    )
    done = cli("scorecard", "python:bad:Bad", "--quick", "--store", "s.duckdb", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "(flow 0, Bad): on_round raised RuntimeError: boom" in one_line(done.stderr)


# --- run folders ------------------------------------------------------------------------------


def test_two_runs_into_one_folder_each_finish_or_are_refused(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SMALL.replace('"2s"', '"60s"'))
    command = [sys.executable, "-m", "ccscope", "run", str(scenario), "--out", "out", "-q"]
    procs = [
        subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, text=True) for _ in range(3)
    ]
    ends = [(p.communicate(timeout=300)[1], p.returncode)[::-1] for p in procs]
    assert any(code == 0 for code, _ in ends), ends
    for code, err in ends:
        assert code == 0 or (code == 2 and "another ccscope process" in one_line(err)), err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["duration_s"] == pytest.approx(60) and "partial" not in summary
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []


def test_a_second_writer_is_refused_while_the_first_holds_the_folder(tmp_path):
    code = "from ccscope.output import claimed\nclaim = claimed({!r})\nclaim.__enter__()"
    with held(code.format(str(tmp_path / "out"))) as holder:
        with pytest.raises(output.OutputError, match=rf"pid {holder.pid}\) is writing there"):
            with output.output_dir(tmp_path / "out"):
                pass
    with output.output_dir(tmp_path / "out") as tmp:
        (tmp / "summary.json").write_text('{"ccscope_version": "x"}')
    assert (tmp_path / "out" / "summary.json").exists()
    assert not (tmp_path / ".out.lock").exists()


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda p: p.symlink_to(p), "is a symbolic link that loops"),
        (lambda p: p.symlink_to(p.parent / "nowhere"), "which does not exist"),
        (lambda p: None, None),
    ],
)
def test_an_unusable_out_is_refused_before_the_run(tmp_path, make, says):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SMALL)
    out = tmp_path / "o"
    make(out)
    if says is None:  # a mount point: the root folder is one everywhere
        with pytest.raises(output.OutputError, match="is a mount point"):
            output.check_destination("/")
        return
    done = cli("run", str(scenario), "--out", str(out), "-q")
    assert done.returncode == 2 and says in one_line(done.stderr)


def test_a_symlink_to_a_folder_is_followed(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    scenario = tmp_path / "s.toml"
    scenario.write_text(SMALL)
    done = cli("run", str(scenario), "--out", str(tmp_path / "link"), "-q")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "link").is_symlink() and (tmp_path / "real" / "summary.json").exists()


WANDERER = """
import os
import ccscope

class Wander(ccscope.Controller):
    window_pkts = 10.0

    def __init__(self):
        os.chdir(os.path.join(os.path.dirname(__file__), "elsewhere"))
"""


def test_a_controller_that_changes_the_working_directory_moves_no_output(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "wander.py").write_text(WANDERER)
    (tmp_path / "s.toml").write_text(
        SMALL.replace('{ kind = "tcp" }', '{ kind = "tcp", controller = "python:wander:Wander" }')
    )
    done = cli("run", "s.toml", "--out", "out", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "summary.json").exists()
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_an_edited_summary_is_not_run_as_the_recorded_scenario(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SMALL)
    assert cli("run", str(scenario), "--out", str(tmp_path / "a"), "-q").returncode == 0
    summary = tmp_path / "a" / "summary.json"
    data = json.loads(summary.read_text())
    data["scenario"]["run"]["duration"] = "3s"
    summary.write_text(json.dumps(data))
    done = cli("run", str(summary), "--out", str(tmp_path / "b"), "-q")
    assert done.returncode == 2 and "the file was edited" in one_line(done.stderr)


# --- reports ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("files", "says"),
    [
        ({}, "no summary.json (not a folder `ccscope run` wrote)"),
        ({"summary.json": "{}"}, "not the summary.json of a ccscope run"),
        ({"summary.json": "{not json"}, "cannot be read as JSON"),
    ],
)
def test_a_report_on_a_folder_ccscope_did_not_write_says_so(tmp_path, files, says):
    folder = tmp_path / "run"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    done = CliRunner().invoke(app, ["report", str(folder), "-o", str(tmp_path / "r.html")])
    assert done.exit_code == 2 and says in one_line(done.output)
    assert not (tmp_path / "r.html").exists()


def test_a_damaged_trace_and_an_unusable_output_are_named(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SMALL + '[trace]\ninterval = "100ms"\n')
    ccscope.run(scenario).write(tmp_path / "run")
    (tmp_path / "run" / "trace_flows.parquet").write_bytes(b"PAR1 not really")
    runner = CliRunner()
    damaged = runner.invoke(app, ["report", str(tmp_path / "run"), "-o", str(tmp_path / "r.html")])
    assert damaged.exit_code == 2 and "a trace cannot be read" in one_line(damaged.output)
    (tmp_path / "file").write_text("")
    below_a_file = runner.invoke(
        app, ["report", str(tmp_path / "run"), "-o", str(tmp_path / "file" / "r.html")]
    )
    assert below_a_file.exit_code == 2 and "--output" in one_line(below_a_file.output)


def test_figures_and_plots_are_checked_before_they_are_computed(tmp_path):
    (tmp_path / "file").write_text("")
    start = time.monotonic()
    done = cli("reproduce", "cai-fig14", "--quick", "--figures", str(tmp_path / "file"))
    assert done.returncode == 2 and time.monotonic() - start < 30
    assert f"--figures {tmp_path / 'file'}: is a file; give a folder" in one_line(done.stderr)
    file, r = sweep_file(tmp_path), str(tmp_path / "r.duckdb")
    assert cli("sweep", str(file), "--store", r).returncode == 0
    done = cli("sweep", str(file), "--store", r, "--show", "--plot", str(tmp_path / "file" / "p"))
    assert done.returncode == 2 and "--plot" in one_line(done.stderr)


# --- the error boundary -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raised", "code", "says"),
    [
        (OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "x.html"), 2, "x.html: No space left"),
        (OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), "y"), 2, "y: File name"),
        (PermissionError(errno.EACCES, os.strerror(errno.EACCES), "z"), 2, "z: Permission denied"),
        (duckdb.IOException("IO Error: disk I/O error"), 2, "duckdb: IO Error: disk I/O error"),
        (MemoryError(), 2, "out of memory"),
        (RuntimeError("oops"), 1, "this is a bug in ccscope (RuntimeError)"),
        (KeyError("k"), 1, "this is a bug in ccscope (KeyError)"),
    ],
)
def test_each_command_has_one_error_boundary(tmp_path, monkeypatch, raised, code, says):
    def fail(*_args, **_kwargs):
        raise raised

    monkeypatch.setattr("ccscope.htmlreport.write", fail)
    done = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert done.exit_code == code, done.output
    if code == 2:
        assert says in one_line(done.output)
    else:  # a bug: its traceback, then the line asking to report it
        assert "Traceback" in done.output and says in done.output
        assert "please report it" in done.output.splitlines()[-1] or "report" in done.output


@pytest.mark.parametrize("command", ["check", "scorecard"])
def test_a_parameter_given_twice_is_refused_not_overwritten(command):
    done = CliRunner().invoke(app, [command, "aimd", "-p", "beta=0.5", "-p", "beta=0.6"])
    assert done.exit_code == 2
    assert "--param = 'beta=0.6': beta given once (it was given twice)" in one_line(done.output)


def test_brackets_in_a_message_are_printed_as_they_are():
    done = CliRunner().invoke(app, ["check", "tcp", "--x-min", "nan"])
    assert done.exit_code == 2
    assert "x_range = [nan, 1000.0]: need 0 < x_min < x_max < inf" in one_line(done.output)


@pytest.mark.parametrize("where", ["--out", "--store"])
def test_a_name_too_long_is_one_line(tmp_path, where):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SMALL)
    long = str(tmp_path / ("x" * 300))
    if where == "--out":
        done = cli("run", str(scenario), "--out", long)
    else:
        done = cli("sweep", str(sweep_file(tmp_path)), "--store", long)
    assert done.returncode == 2 and "File name too long" in one_line(done.stderr)


# --- sweeps -----------------------------------------------------------------------------------


def test_seeds_a_store_cannot_hold_are_refused_before_running():
    with pytest.raises(ScenarioError, match=r"seeds = \[9223372036854775808\]: .*\[0, 2\^63\)"):
        sweep.Sweep.from_dict({"base": BASE, "seeds": [2**63]})


def test_a_sweep_of_no_runs_records_nothing(tmp_path):
    # zip over no axes gives no point; no worker starts, and no executor is asked.
    empty = sweep.Sweep.from_dict({"base": BASE, "mode": "zip", "seeds": [1]})
    assert empty.n_runs() == 0
    done = sweep.run(empty, tmp_path / "r.duckdb", executor="local")
    assert (done.total, done.ran) == (0, 0) and sweep.load(tmp_path / "r.duckdb").empty


def test_an_axis_error_names_the_sweep_file_and_its_axis(tmp_path):
    file = sweep_file(tmp_path, '[axes]\n"topology.loss.p" = [0.01, "high"]\n')
    with pytest.raises(ScenarioError) as e:
        sweep.load_sweep(file).tasks()
    assert str(e.value).startswith(f"{file}: axes.\"topology.loss.p\" = 'high': ")
    assert "tiny.toml" not in str(e.value)
    done = cli("sweep", str(file), "--store", str(tmp_path / "r.duckdb"))
    assert done.returncode == 2 and one_line(done.stderr).startswith(f"error: {file}: axes.")


def test_a_sweep_too_large_is_counted_and_refused_at_once(tmp_path):
    file = sweep_file(
        tmp_path,
        "seeds = [1, 2]\n[axes]\n"
        f'"topology.loss.p" = {[i / 1e7 for i in range(1000)]}\n'
        f'"flows[0].source.controller.beta" = {[0.5 + i / 1e4 for i in range(1000)]}\n',
    )
    start = time.monotonic()
    done = cli("sweep", str(file), "--store", str(tmp_path / "r.duckdb"))
    assert done.returncode == 2 and time.monotonic() - start < 30
    text = one_line(done.stderr)
    assert "2,000,000 runs (1000 x 1000 points (grid) x 2 seeds)" in text and "--force" in text
    assert not (tmp_path / "r.duckdb").exists()


#: Controllers that never return, die in their import or change the working directory.
HANGING = """
import ccscope

class Hang(ccscope.Controller):
    window_pkts = 10.0

    def on_ack(self, ack):
        while True:
            pass
"""


def hanging_sweep(tmp_path: Path, axis_values: str) -> Path:
    (tmp_path / "hang.py").write_text(HANGING)
    return sweep_file(
        tmp_path, f'seeds = [1]\n[axes]\n"flows[0].source.controller" = {axis_values}\n'
    )


def test_a_run_past_its_time_limit_is_stopped_and_recorded(tmp_path):
    file = hanging_sweep(tmp_path, '["tcp", "python:hang:Hang"]')
    r = tmp_path / "r.duckdb"
    # 10 s: the limit counts from when a worker is handed the run, its start-up included,
    # which a busy machine makes seconds long.
    done = cli("sweep", str(file), "--store", str(r), "--time-limit", "10", "-j", "2")
    # One run of two failed: exit status 1, and its reason.
    assert done.returncode == 1, done.stderr
    assert "1 of 2 runs failed" in done.stderr
    runs = sweep.load(r).set_index("flows[0].source.controller")
    assert runs.loc["tcp", "status"] == "ok"
    assert runs.loc["python:hang:Hang", "error"] == "stopped after its time limit of 10 s"


def test_the_default_time_limit_grows_with_the_cost_estimate():
    small = cost(ccscope.loads(SMALL))
    assert sweep.time_limit(small) == sweep.MIN_TIME_LIMIT_S
    big = {"work": 1e9, "wall_s": 0.0}
    assert sweep.time_limit(big) == 1e9 / sweep.SLOWEST_WORK_PER_S
    assert sweep.time_limit({"work": 0, "wall_s": 100.0}) == 260.0


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid`."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def assert_workers_die_with(args: list[str], workers_at_least: int) -> None:
    """Starts `ccscope ARGS`, kills it outright (SIGKILL) once it has started its workers and
    they are at work, and checks that they end within 10 s."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ccscope", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while len(workers := children(proc.pid)) < workers_at_least and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(workers) >= workers_at_least, f"ccscope {args[0]} started no worker"
    time.sleep(2)  # the workers are in their runs
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(w) for w in workers)


def test_workers_die_with_a_sweep_killed_outright(tmp_path):
    # Its one run never returns.
    file = hanging_sweep(tmp_path, '["python:hang:Hang"]')
    assert_workers_die_with(["sweep", str(file), "--store", str(tmp_path / "r.db")], 1)


def test_workers_die_with_an_exploration_killed_outright():
    explore = ["reproduce", "papadimitriou-fig3", "--explore", "buffer_bdp=0.5:2:8", "-j", "2"]
    assert_workers_die_with(explore, 2)


def test_a_ray_address_where_nothing_listens_fails_in_seconds(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    file = sweep_file(tmp_path)
    start = time.monotonic()
    done = cli(
        "sweep", str(file), "--store", str(tmp_path / "r.duckdb"),
        "--executor", "ray", "--address", f"127.0.0.1:{port}",
    )  # fmt: skip
    assert done.returncode == 2 and time.monotonic() - start < 60
    assert f"--address 127.0.0.1:{port}: nothing answers there" in one_line(done.stderr)


def test_a_sweep_whose_every_run_failed_exits_2(tmp_path):
    file = sweep_file(
        tmp_path, 'seeds = [1, 2]\n[axes]\n"flows[0].source.controller" = ["python:gone"]\n'
    )
    done = cli("sweep", str(file), "--store", str(tmp_path / "r.duckdb"), "-j", "1")
    assert done.returncode == 2, done.stderr
    assert "every run failed" in done.stderr and "2 failed" in done.stdout


#: Entries of a sweep file and values that may be wrong there.
SWEEP_VALUES = st.one_of(
    VALUES,
    st.none(),
    st.lists(VALUES, max_size=3),
    st.dictionaries(st.sampled_from(["x", "topology.loss.p", "run.seed"]), VALUES, max_size=2),
)


@settings(max_examples=60, deadline=None)
@given(
    key=st.sampled_from(["seeds", "mode", "traces", "axes", "base", "repeat"]),
    value=SWEEP_VALUES,
    axis=st.sampled_from(["topology.loss.p", "run.seed", "flows[0].count", "flows[0].source"]),
    axis_values=st.lists(VALUES, min_size=1, max_size=3),
)
def test_any_sweep_entry_gives_a_sweep_or_one_error_naming_it(key, value, axis, axis_values):
    table = {"base": BASE, "seeds": [1], "axes": {axis: axis_values}, key: value}
    try:
        sweep.Sweep.from_dict(table).tasks(time_limit_s=1)
    except ScenarioError as e:
        assert e.path and "\n" not in str(e), str(e)
        assert e.path.split(".")[0].split("[")[0] in (*table, 'axes."' + axis + '"'), e.path


# --- what a reader of the numbers must know ---------------------------------------------------


def test_a_playback_that_never_started_says_so(tmp_path):
    flow = {"source": {"kind": "cbr", "rate": "100kbps"}, "playback": {"startup": "5s"}}
    scenario = tmp_path / "s.toml"
    table = {**BASE, "flows": [flow, {**flow, "playback": {"startup": "1s"}}]}
    r = ccscope.run(table)
    assert r.notes == [
        "flow 0: playback never started: its start-up of 5s after the first delivery outlasted "
        f"the deliveries ({r.flow_records()[0]['session_s']:.3g} s), so its interruptions and "
        "frozen time say nothing"
    ]
    scenario.write_text(
        SMALL.replace('{ kind = "tcp" }', '{ kind = "cbr", rate = "100kbps" }')
        + 'playback = { startup = "5s" }\n'
    )
    done = cli("run", str(scenario), "--out", str(tmp_path / "o"), "-q")
    assert done.returncode == 0 and "note: flow 0: playback never started" in done.stderr
    assert (
        "playback never started"
        in json.loads((tmp_path / "o/summary.json").read_text())["notes"][0]
    )
    # A sweep says so too, and keeps each run's notes in its store.
    file = tmp_path / "sw.toml"
    file.write_text(
        'base = "s.toml"\nseeds = [1]\n[axes]\n"flows[0].playback.startup" = ["1s", "5s"]\n'
    )
    done = cli("sweep", str(file), "--store", str(tmp_path / "r.duckdb"), "--no-progress")
    assert done.returncode == 0 and "note: 1 run has notes" in done.stderr, done.stderr
    runs = sweep.load(tmp_path / "r.duckdb").set_index("flows[0].playback.startup")
    assert pd.isna(runs.loc["1s", "notes"])
    (note,) = json.loads(runs.loc["5s", "notes"])
    assert note.startswith("flow 0: playback never started")


def test_a_real_time_run_that_did_not_keep_time_says_so():
    r = ccscope.run(BASE)
    assert r.notes == []
    # The udp engine's timing columns, as a run on an overloaded machine gives them.
    late = [{**row, "timer_late_p99_ms": 570.0, "arrival_late_p99_ms": 3.0} for row in r._flow_rows]
    r.__dict__.update(_flow_rows=late)
    del r.__dict__["notes"]
    assert r.notes[0].startswith(
        "the udp engine did not keep time: timers fired up to 570 ms late and datagrams arrived "
        "up to 3 ms late"
    )
    assert r.summary()["notes"] == r.notes


# --- media inputs and the cost estimate -------------------------------------------------------


def trace(tmp: Path, rows: list[tuple], header: str = "time,type,bytes") -> Path:
    path = tmp / "trace.csv"
    path.write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return path


def test_a_trace_without_b_frames_fits_and_runs(tmp_path):
    rng = np.random.default_rng(1)
    gop = "IPPP"
    rows = [
        (
            n / 25,
            gop[n % 4],
            int(rng.integers(9000, 11000) if n % 4 == 0 else rng.integers(2000, 4000)),
        )
        for n in range(400)
    ]
    app = video.fit_trace(trace(tmp_path, rows))
    assert app["gop"] == gop and set(app) == {"kind", "gop", "fps", "i", "p"}
    sc = {**BASE, "flows": [{"source": {"kind": "udp", "app": app}}]}
    assert ccscope.run(sc).flows.loc[0, "sent_pkts"] > 0
    # A GOP with B frames needs their statistics.
    with pytest.raises(ScenarioError, match=r"app\.b: this key is required: the gop has B"):
        ccscope.Scenario.from_dict(
            {**BASE, "flows": [{"source": {"kind": "udp", "app": {**app, "gop": "IPB"}}}]}
        )


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "cannot be read as CSV"),
        ("time,type\n0,I\n", "needs columns type and bytes (missing: bytes)"),
        ("type,bytes\nI,big\n", "row 2: bytes = 'big': must be a finite number"),
        ("type,bytes\nI,0\n", "row 2: bytes = 0: must be > 0"),
        ("type,bytes\nI,10\nX,3\n", "frame types must be I, P or B; found X"),
        ("type,bytes\nI,10\nP,3\nP,4\n", "needs at least two I frames"),
        ("type,bytes\n" + "I,10\nP,3\n" * 2 + "I,11\n", "2 P frames; a fit needs at least 3"),
        ("type,bytes\n" + "I,10\nI,11\nI,12\nP,5\n" * 3, None),
        (
            "type,bytes\n" + "".join(f"I,{10 + i}\nP,3\n" for i in range(5)),
            "every P frame has 3 bytes; a TES model needs",
        ),
        ("time,type,bytes\n0,I,3\nsoon,P,3\n0.1,I,4\n", "row 3: time = 'soon'"),
    ],
)
def test_a_trace_that_cannot_be_fitted_names_the_file_and_what(tmp_path, text, says):
    path = tmp_path / "t.csv"
    path.write_text(text)
    if says is None:  # I frames only between the first two: the GOP "I"
        assert video.fit_trace(path)["gop"] == "I"
        return
    with pytest.raises(ScenarioError) as e:
        video.fit_trace(path)
    assert str(e.value).startswith(f"frame-size trace {path}: ") and says in str(e.value)


def test_the_memory_estimate_holds_for_many_flows():
    # Peak memory of 1 and of 20,000 short TCP flows (mice), each in a fresh process: what the
    # flows add stays below what the estimate gives them.
    script = """
import resource, sys
import ccscope
sc = {"run": {"duration": "5s"},
      "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
      "flows": [{"source": {"kind": "tcp", "controller": "cubic"}, "count": int(sys.argv[1]),
                 "start_jitter": "5s", "lifetime": "2s"}]}
ccscope.run(sc, force=True)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""

    def peak(n: int) -> tuple[float, float]:
        done = subprocess.run(
            [sys.executable, "-c", script, str(n)], capture_output=True, text=True, check=True
        )
        sc = {**BASE, "flows": [{"source": {"kind": "tcp"}, "count": n}]}
        return float(done.stdout), cost(sc)["bytes"]

    (rss_1, est_1), (rss_n, est_n) = peak(1), peak(20_000)
    assert rss_n - rss_1 <= est_n - est_1, (rss_n - rss_1, est_n - est_1)


def test_a_square_wave_of_nanosecond_periods_is_refused_naming_its_period():
    app = {"kind": "square", "rate": "1kbps", "on": "1ns", "off": "1ns"}
    sc = {**BASE, "run": {"duration": "100s"}, "flows": [{"source": {"kind": "udp", "app": app}}]}
    with pytest.raises(CostError) as e:
        ccscope.run(sc)
    assert e.value.path == "flows[0].source.app.on" and e.value.value == "'1ns'"
