"""Sweeps: expansion of the axes, the DuckDB store, resuming, executors, failures, the summary."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ccscope import _core, sweep
from ccscope.cli import app
from ccscope.errors import ScenarioError, StoreError
from ccscope.store import RUN_COLUMNS

BASE = {
    "run": {"duration": "20s", "warmup": "5s"},
    "topology": {"kind": "fat_link", "loss": {"kind": "bernoulli", "p": 0.01}},
    "flows": [
        {"source": {"kind": "tcp"}},
        {"source": {"kind": "tcp", "controller": {"name": "gaimd", "beta": 0.875}}},
    ],
}
AXES = {"topology.loss.p": [0.01, 0.02], "flows[1].source.controller.beta": [0.5, 0.875]}


def spec(**changes) -> sweep.Sweep:
    return sweep.Sweep.from_dict({"base": BASE, "axes": AXES, "seeds": [1, 2], **changes})


def comparable(store: Path) -> pd.DataFrame:
    """The runs table without what depends on the machine (wall time, trace folder)."""
    return sweep.load(store).drop(columns=["wall_s", "trace_dir"])


def test_grid_and_zip_points():
    assert len(list(spec().points())) == 4 == spec().n_points()
    assert list(spec(mode="zip").points()) == [
        {"topology.loss.p": 0.01, "flows[1].source.controller.beta": 0.5},
        {"topology.loss.p": 0.02, "flows[1].source.controller.beta": 0.875},
    ]
    tasks = spec().tasks()
    assert len(tasks) == 8 and len({t.run_id for t in tasks}) == 8
    # The id is a function of the scenario and seed alone: the same run in another sweep.
    again = sweep.Sweep.from_dict(
        {"base": BASE, "axes": {"topology.loss.p": [0.02]}, "seeds": [2]}
    ).tasks()[0]
    assert again.run_id in {t.run_id for t in tasks}


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"mode": "diagonal"}, "mode"),
        ({"seeds": [1, 1]}, "seeds"),
        ({"seeds": [-1]}, "seeds"),
        ({"axes": {"topology.loss.p": []}}, "axes.topology.loss.p"),
        ({"mode": "zip", "axes": {"topology.loss.p": [0.1], "run.seed": [1, 2]}}, "axes"),
        ({"repeat": 3}, "repeat"),
    ],
)
def test_bad_sweeps_name_the_entry(changes, field):
    with pytest.raises(ScenarioError) as e:
        spec(**changes)
    assert e.value.path == field


def test_an_axis_value_the_core_refuses_stops_the_sweep_before_running():
    bad = spec(axes={"flows[1].source.controller.beta": [0.5, 1.5]})
    with pytest.raises(ScenarioError) as e:
        bad.tasks()
    assert str(e.value) == 'axes."flows[1].source.controller.beta" = 1.5: must be in (0, 1)'
    assert e.value.path == 'axes."flows[1].source.controller.beta"' and e.value.value == "1.5"


def test_a_sweep_fills_the_store_and_running_it_again_skips_everything(tmp_path):
    store = tmp_path / "r.duckdb"
    first = sweep.run(spec(), store, jobs=1)
    assert (first.total, first.ran, first.skipped, first.failed) == (8, 8, 0, 0)
    runs = sweep.load(store)
    assert len(runs) == 8 and (runs["status"] == "ok").all()
    for column in (
        "run_id",
        "seed",
        *AXES,
        "throughput_bps",
        "loss_rate",
        "jain",
        "utilization",
        "wall_s",
        "ccscope_version",
        "model_version",
        "error",
    ):
        assert column in runs.columns, column
    assert (runs["model_version"] == _core.MODEL_VERSION).all()
    assert sorted(runs["topology.loss.p"].unique()) == [0.01, 0.02]
    # Bernoulli loss on the fat link: the measured loss rate is the configured p (within
    # 5 binomial standard deviations of the packets sent).
    sent = sweep.load(store, "flows").groupby("run_id")["sent_pkts"].sum()
    p = runs.set_index("run_id")["topology.loss.p"]
    sd = np.sqrt(p * (1 - p) / sent[p.index])
    assert (abs(runs.set_index("run_id")["loss_rate"] - p) < 5 * sd).all()
    flows = sweep.load(store, "flows")
    assert len(flows) == 16 and set(flows["flow"]) == {0, 1}
    second = sweep.run(spec(), store, jobs=1)
    assert (second.ran, second.skipped) == (0, 8)
    # A new seed runs only its own runs, here on worker processes given only what is left.
    third = sweep.run(spec(seeds=[1, 2, 3]), store, jobs=2)
    assert (third.ran, third.skipped) == (4, 8)
    assert sorted(sweep.load(store)["seed"]) == [1] * 4 + [2] * 4 + [3] * 4


def test_every_executor_gives_the_same_rows(tmp_path):
    one, two = tmp_path / "one.duckdb", tmp_path / "two.duckdb"
    sweep.run(spec(), one, jobs=1)
    sweep.run(spec(), two, jobs=2)
    pd.testing.assert_frame_equal(comparable(one), comparable(two))


def test_the_ray_executor_gives_the_same_rows(tmp_path):
    # Ray is in the test extra: CI runs this against a local Ray instance, never skips it.
    import ray

    one, remote = tmp_path / "one.duckdb", tmp_path / "ray.duckdb"
    small = spec(axes={"topology.loss.p": [0.01, 0.02]})
    sweep.run(small, one, jobs=1)
    try:
        sweep.run(small, remote, jobs=2, executor="ray")
    finally:
        ray.shutdown()
    pd.testing.assert_frame_equal(comparable(one), comparable(remote))


def test_a_failed_run_is_recorded_and_the_sweep_goes_on(tmp_path):
    store = tmp_path / "r.duckdb"
    failing = spec(axes={"flows[1].source.controller": ["tcp", "python:missing"]}, seeds=[1])
    outcome = sweep.run(failing, store, jobs=1)
    assert (outcome.ran, outcome.failed) == (2, 1)
    runs = sweep.load(store).set_index("flows[1].source.controller")
    assert runs.loc["tcp", "status"] == "ok"
    assert runs.loc["python:missing", "status"] == "error"
    assert "no Python controller" in runs.loc["python:missing", "error"]


#: A window controller that ends its whole process the first time it is called.
DYING_CONTROLLER = """
import os
import ccscope

die = ccscope.WindowController("die", increase=lambda w: os._exit(3), decrease=lambda w: w / 2)
"""


def test_a_worker_that_dies_in_a_run_is_recorded_and_the_sweep_goes_on(tmp_path, monkeypatch):
    # The module is on this process's import path only: workers import from the parent's.
    (tmp_path / "dying_controller.py").write_text(DYING_CONTROLLER)
    monkeypatch.syspath_prepend(str(tmp_path))
    axis = "flows[1].source.controller"
    store = tmp_path / "r.duckdb"
    outcome = sweep.run(spec(axes={axis: ["tcp", "python:dying_controller:die"]}), store, jobs=2)
    assert (outcome.total, outcome.ran, outcome.failed) == (4, 4, 2)
    runs = sweep.load(store)
    died = runs[runs[axis] == "python:dying_controller:die"]
    assert (died["status"] == "error").all()
    assert (
        died["error"]
        .str.contains("worker process running it ended (exit status 3)", regex=False)
        .all()
    )
    # The runs beside them, on the workers that replaced the dead ones, are a -j 1 sweep's.
    alone = tmp_path / "alone.duckdb"
    sweep.run(spec(axes={axis: ["tcp"]}), alone, jobs=1)
    # (columns with a failed run's NULLs read back as another dtype)
    ok = comparable(store).query("status == 'ok'").reset_index(drop=True)
    pd.testing.assert_frame_equal(ok, comparable(alone), check_dtype=False, check_exact=True)


def test_summary_is_the_t_interval_over_seeds(tmp_path):
    store = tmp_path / "r.duckdb"
    sweep.run(spec(seeds=[1, 2, 3, 4]), store, jobs=1)
    table = sweep.summarize(store, ["throughput_bps"])
    assert len(table) == 4 and (table["n"] == 4).all()
    runs = sweep.load(store)
    point = runs[
        (runs["topology.loss.p"] == 0.02) & (runs["flows[1].source.controller.beta"] == 0.5)
    ]["throughput_bps"]
    row = table[
        (table["topology.loss.p"] == 0.02) & (table["flows[1].source.controller.beta"] == 0.5)
    ].iloc[0]
    # Student's t with 3 degrees of freedom: t_0.975 = 3.182446.
    half = 3.182446 * point.std(ddof=1) / 2
    assert row["mean"] == pytest.approx(point.mean())
    assert row["ci_high"] - row["mean"] == pytest.approx(half, rel=1e-5)
    assert row["mean"] - row["ci_low"] == pytest.approx(half, rel=1e-5)
    png = sweep.plot(store, "throughput_bps", "topology.loss.p", tmp_path / "p.png")
    assert png.read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ScenarioError, match="metric"):
        sweep.summarize(store, ["nonsense"])


def test_intervals_stay_in_each_metrics_range(tmp_path):
    # Two seeds: t_0.975 = 12.7, so an uncut interval around a Jain's index near 1 or a
    # min/max near 0 leaves [0, 1]; the cut one cannot.
    store = tmp_path / "r.duckdb"
    sweep.run(spec(), store, jobs=1)
    table = sweep.summarize(store)
    assert (table["n"] == 2).all()
    cut = 0
    for row in table.itertuples():
        low, high = sweep.METRIC_RANGES[row.metric]
        assert low <= row.ci_low <= row.mean <= row.ci_high <= high, row
        half = max(row.mean - row.ci_low, row.ci_high - row.mean)
        cut += row.mean - half < low or row.mean + half > high
    assert cut > 0, "no interval reached a range's end: the test shows nothing"


def sweep_in_background(tmp_path, seeds: int, runs_seen: int, jobs: int = 1):
    """Starts `ccscope sweep -j jobs` on a traced sweep of `seeds` runs and returns once
    `runs_seen` runs have written their traces (written just before the store records each
    run), or the sweep has ended: (process, command, sweep file, store)."""
    file = tmp_path / "sweep.toml"
    file.write_text(
        f"seeds = {list(range(1, seeds + 1))}\ntraces = true\n"
        '[base]\nrun = { duration = "30s", warmup = "5s" }\n'
        'topology = { kind = "fat_link", loss = { kind = "bernoulli", p = 0.01 } }\n'
        'trace = { interval = "1s" }\nflows = [{ source = { kind = "tcp" } }]\n'
    )
    store = tmp_path / "s.duckdb"
    command = [
        sys.executable,
        "-m",
        "ccscope",
        "sweep",
        str(file),
        "--store",
        str(store),
        "-j",
        str(jobs),
        "--no-progress",
    ]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    traces = tmp_path / "s.duckdb.traces"
    while proc.poll() is None and not (
        traces.exists() and len(list(traces.iterdir())) >= runs_seen
    ):
        time.sleep(0.01)
    return proc, command, file, store


def test_a_sweep_killed_with_sigkill_resumes_to_the_same_store(tmp_path):
    proc, command, file, store = sweep_in_background(tmp_path, seeds=8, runs_seen=1)
    killed_midway = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    assert killed_midway
    assert subprocess.run(command, capture_output=True).returncode == 0
    whole = tmp_path / "whole.duckdb"
    sweep.run(sweep.load_sweep(file), whole, jobs=1)
    pd.testing.assert_frame_equal(comparable(store), comparable(whole))
    traces = store.with_name(store.name + ".traces")
    assert sorted(p.name for p in traces.iterdir()) == sorted(sweep.load(store)["run_id"])


def test_cli_sweep_and_show(tmp_path):
    file = tmp_path / "sweep.toml"
    file.write_text(
        'seeds = [1, 2]\n[axes]\n"topology.loss.p" = [0.01, 0.02]\n'
        '[base]\nrun = { duration = "10s", warmup = "2s" }\n'
        'topology = { kind = "fat_link", loss = { kind = "bernoulli", p = 0.01 } }\n'
        'flows = [{ source = { kind = "tcp" } }]\n'
    )
    store = tmp_path / "r.duckdb"
    runner = CliRunner()
    done = runner.invoke(
        app, ["sweep", str(file), "--store", str(store), "-j", "1", "--no-progress"]
    )
    assert done.exit_code == 0, done.output
    assert "4 runs: 4 run, 0 already" in done.output
    shown = runner.invoke(
        app,
        [
            "sweep",
            str(file),
            "--store",
            str(store),
            "--show",
            "-m",
            "loss_rate",
            "--plot",
            str(tmp_path / "p.png"),
        ],
    )
    assert shown.exit_code == 0, shown.output
    assert "topology.loss.p" in shown.output and "loss_rate" in shown.output
    assert (tmp_path / "p.png").exists()
    empty = tmp_path / "empty.duckdb"
    sweep.run(
        sweep.Sweep.from_dict({"base": BASE, "axes": {"run.seed": [1]}, "seeds": [1]}),
        empty,
        jobs=1,
    )
    nothing = runner.invoke(app, ["sweep", str(file), "--store", str(empty), "--show"])
    assert nothing.exit_code == 0 and "holds no finished run" in nothing.output
    bad = runner.invoke(app, ["sweep", str(file), "--store", str(store), "--executor", "mpi"])
    assert bad.exit_code == 2 and "executor" in bad.output
    # A store in a folder that does not exist: one line naming it, before any run starts.
    nowhere = tmp_path / "missing" / "r.duckdb"
    lost = runner.invoke(app, ["sweep", str(file), "--store", str(nowhere), "-j", "2"])
    assert lost.exit_code == 2 and f"its folder {nowhere.parent} does not exist" in lost.output
    assert "Traceback" not in lost.output and not nowhere.parent.exists()


def one_run(store: Path) -> sweep.Sweep:
    """A sweep of one run, run into `store`."""
    small = sweep.Sweep.from_dict({"base": BASE, "axes": {"run.seed": [1]}, "seeds": [1]})
    sweep.run(small, store, jobs=1)
    return small


def test_a_store_never_mixes_model_versions(tmp_path):
    import duckdb

    store = tmp_path / "r.duckdb"
    small = one_run(store)
    # The same store, as another model version would have left it.
    with duckdb.connect(str(store)) as con:
        con.execute("UPDATE runs SET model_version = model_version + 1")
    other = _core.MODEL_VERSION + 1
    with pytest.raises(StoreError, match=f"model version {other} and this ccscope runs model"):
        sweep.run(small, store, jobs=1)
    # The command line says it in one line, with what to do, and exits 2.
    file = tmp_path / "sweep.toml"
    file.write_text(
        'seeds = [1]\n[base]\nrun = { duration = "1s" }\n'
        'topology = { kind = "fat_link" }\nflows = [{ source = { kind = "tcp" } }]\n'
    )
    refused = CliRunner().invoke(app, ["sweep", str(file), "--store", str(store)])
    assert refused.exit_code == 2
    assert "give a new store" in refused.output and "Traceback" not in refused.output
    # A store written before stores recorded the model version holds runs of the first.
    old = tmp_path / "old.duckdb"
    columns = {k: v for k, v in RUN_COLUMNS.items() if k != "model_version"}
    with duckdb.connect(str(old)) as con:
        con.execute(f"CREATE TABLE runs ({', '.join(f'{k} {v}' for k, v in columns.items())})")
        con.execute("INSERT INTO runs (run_id, seed, status) VALUES ('a', 1, 'ok')")
    if _core.MODEL_VERSION == 1:
        sweep.run(small, old, jobs=1)
    else:
        with pytest.raises(StoreError, match="model version 1 and"):
            sweep.run(small, old, jobs=1)


def test_ctrl_c_keeps_the_finished_runs(tmp_path):
    # One worker runs one run after the other, and the sweep records each as the worker hands
    # it back: once the fourth run's traces exist, the first is in the store. Twelve runs of
    # about 0.1 s each are left, so the interrupt comes while it runs even on a busy machine.
    proc, _, file, store = sweep_in_background(tmp_path, seeds=16, runs_seen=4)
    running = proc.poll() is None
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert running, "the sweep ended before the interrupt"
    assert proc.returncode == 130, err
    kept = sweep.load(store)
    assert 1 <= len(kept) < 16 and (kept["status"] == "ok").all()
    again = sweep.run(sweep.load_sweep(file), store, jobs=1)
    assert again.skipped == len(kept) and again.ran == 16 - len(kept)


def test_ctrl_c_stops_the_workers_and_keeps_what_they_finished(tmp_path):
    proc, _, file, store = sweep_in_background(tmp_path, seeds=16, runs_seen=3, jobs=2)
    running = proc.poll() is None
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert running, "the sweep ended before the interrupt"
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Error" not in err
    kept = sweep.load(store)
    assert len(kept) < 16 and (kept["status"] == "ok").all()
    again = sweep.run(sweep.load_sweep(file), store, jobs=2)
    assert again.skipped == len(kept) and again.ran == 16 - len(kept)
    whole = tmp_path / "whole.duckdb"
    sweep.run(sweep.load_sweep(file), whole, jobs=1)
    pd.testing.assert_frame_equal(comparable(store), comparable(whole))


def test_the_store_keeps_each_flow_and_class(tmp_path):
    import duckdb

    store = tmp_path / "r.duckdb"
    sweep.run(spec(), store, jobs=1)
    runs, flows = sweep.load(store), sweep.load(store, "flows")
    # Each flow's class is its label (GAIMD's names its parameters, so it differs per beta);
    # its share is its throughput over the fat link's rate.
    assert (flows["class"] == flows["label"]).all()
    assert (flows.groupby("run_id")["class"].nunique() == 2).all()
    import ccscope

    rate = ccscope.run(BASE).bottlenecks["rate_bps"].iloc[0]
    assert np.allclose(flows["share"] * rate, flows["throughput_bps"], rtol=1e-12)
    # The classes' totals add up to the run's.
    classes = sweep.load(store, "classes")
    assert len(classes) == 8 * 2 and (classes["flows"] == 1).all()
    total = classes.groupby("run_id")["throughput_bps"].sum()
    assert np.allclose(total[runs["run_id"]], runs["throughput_bps"], rtol=1e-12)
    # "GAIMD's share against TCP per beta" is one query; it agrees with the flows table.
    query = (
        'SELECT r."flows[1].source.controller.beta" AS beta, c.class, avg(c.share) AS share '
        "FROM classes c JOIN runs r USING (run_id) GROUP BY ALL ORDER BY ALL"
    )
    with duckdb.connect(str(store), read_only=True) as con:
        one = con.execute(query).df()
    beta = flows.merge(runs[["run_id", "flows[1].source.controller.beta"]], on="run_id")
    by_hand = beta.groupby(["flows[1].source.controller.beta", "class"])["share"].mean()
    assert len(one) == 4
    assert np.allclose(one.set_index(["beta", "class"])["share"], by_hand, rtol=1e-12)
    # Per point and class over the seeds, as --show --per-class prints it.
    table = sweep.summarize_classes(store, ["share"])
    assert len(table) == 4 * 2 and set(table["n"]) == {2}
    shown = CliRunner().invoke(
        app, ["sweep", "x.toml", "--store", str(store), "--show", "--per-class", "-m", "share"]
    )
    assert shown.exit_code == 2  # the sweep file is needed to name its runs
    file = tmp_path / "s.toml"
    file.write_text(
        'seeds = [1, 2]\n[axes]\n"topology.loss.p" = [0.01, 0.02]\n'
        '"flows[1].source.controller.beta" = [0.5, 0.875]\n[base]\n'
        'run = { duration = "20s", warmup = "5s" }\n'
        'topology = { kind = "fat_link", loss = { kind = "bernoulli", p = 0.01 } }\n'
        'flows = [{ source = { kind = "tcp" } }, '
        '{ source = { kind = "tcp", controller = { name = "gaimd", beta = 0.875 } } }]\n'
    )
    shown = CliRunner().invoke(
        app, ["sweep", str(file), "--store", str(store), "--show", "--per-class", "-m", "share"]
    )
    assert shown.exit_code == 0, shown.output
    assert "class" in shown.output and "TCP/SACK" in shown.output and "share" in shown.output
    plotted = CliRunner().invoke(
        app,
        ["sweep", str(file), "--store", str(store), "--show", "--per-class", "--plot", "p.png"],
    )
    assert plotted.exit_code == 2 and "--plot = 'p.png': not with --per-class" in plotted.output


def test_a_store_from_before_classes_is_read_and_refused_for_writing(tmp_path):
    import duckdb

    from ccscope import htmlreport

    store = tmp_path / "old.duckdb"
    small = one_run(store)
    # As a ccscope before per-class rows left it.
    with duckdb.connect(str(store)) as con:
        con.execute("DROP TABLE classes")
        con.execute('ALTER TABLE flows DROP COLUMN "class"')
        con.execute("ALTER TABLE flows DROP COLUMN share")
    assert len(sweep.load(store)) == 1 and len(sweep.load(store, "flows")) == 2
    assert not sweep.summarize(store).empty
    assert "Per class" not in htmlreport.render(store)
    with pytest.raises(StoreError, match="without per-class rows"):
        sweep.summarize_classes(store)
    with pytest.raises(StoreError, match="older ccscope.*give a new store"):
        sweep.run(small, store, jobs=1)
