"""Long runs: progress as the run goes, and Ctrl-C stopping it with what it measured, marked
partial (CLI: summary.json, exit status 130)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap

import pytest
from typer.testing import CliRunner

import ccscope
from ccscope import roundmodel
from ccscope.cli import app

# Long enough that no test machine finishes it before the interrupt arrives.
LONG = (
    '[run]\nduration = "100000s"\n[topology]\nkind = "fat_link"\n'
    'loss = { kind = "bernoulli", p = 0.01 }\n[[flows]]\nsource = { kind = "tcp" }\n'
)
LONG_ROUND = (
    '[run]\nengine = "round"\nsteps = 100000000\n[link]\ncapacity_pkts = 100\n'
    '[[flows]]\ncontroller = "tcp"\ncount = 50\n'
)


def interrupt_when_it_reports(
    command: list[str],
    stream: str = "stderr",
) -> subprocess.CompletedProcess:
    """Starts `command`, sends SIGINT once it has written its first line on `stream` (a sign
    that the engine is running), and collects it."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = getattr(proc, stream).readline()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    if stream == "stdout":
        out = first + out
    else:
        err = first + err
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def test_progress_hears_the_run_and_changes_nothing():
    sc = {
        "run": {"engine": "round", "steps": 3000},
        "link": {"capacity_pkts": 50000, "feedback": "proportional"},
        "flows": [{"controller": "tcp", "count": 20000}],
    }
    seen = []
    watched = roundmodel.run(sc, progress=lambda done, total: seen.append((done, total)))
    assert seen, "a run of 6·10^7 flow-steps reports progress at least once"
    assert all(total == 3000 and 0 < done <= 3000 for done, total in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    plain = roundmodel.run(sc)
    assert (watched.loss_rate, watched.utilization) == (plain.loss_rate, plain.utilization)
    assert not watched.partial and "partial" not in watched.summary()


def test_an_exception_in_the_progress_callback_stops_the_run():
    def fail(done, total):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        ccscope.run(ccscope.loads(LONG), progress=fail, force=True)


@pytest.mark.parametrize("scenario, unit", [(LONG, "s"), (LONG_ROUND, "steps")])
def test_ctrl_c_in_python_raises_interrupted_with_the_partial_result(scenario, unit):
    script = textwrap.dedent(f"""
        import json, sys
        import ccscope
        def tick(done, total):
            print("running", flush=True)
        try:
            ccscope.run(ccscope.loads({scenario!r}), progress=tick, force=True)
        except ccscope.errors.Interrupted as e:
            s = e.result.summary()
            print(json.dumps({{"partial": s.get("partial"), "summary": s}}, default=str))
            sys.exit(3)
    """)
    done = interrupt_when_it_reports([sys.executable, "-c", script], stream="stdout")
    assert done.returncode == 3, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["partial"] is True
    s = report["summary"]
    if unit == "s":
        assert 0 < s["duration_s"] < 100000
        # What was measured is real: Bernoulli loss of 1% on the fat link.
        assert s["flows"][0]["loss_rate"] == pytest.approx(0.01, rel=0.2)
    else:
        assert 0 < s["steps"] < 100_000_000 and 0 < s["loss_rate"] < 1


def ctrl_c_on_the_cli(folder, scenario: str) -> subprocess.CompletedProcess:
    """`ccscope run` of `scenario` in `folder`, interrupted: exit 130, no traceback, and a
    partial summary of part of the run."""
    file = folder / "long.toml"
    file.write_text(scenario)
    out = folder / "out"
    done = interrupt_when_it_reports(
        [sys.executable, "-m", "ccscope", "run", str(file), "--out", str(out), "--force"]
    )
    assert done.returncode == 130, done.stderr
    assert "interrupted" in done.stderr and "Traceback" not in done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["partial"] is True and 0 < summary["duration_s"] < 100000
    return done


def test_ctrl_c_on_the_cli_writes_a_partial_summary_and_exits_130(tmp_path):
    done = ctrl_c_on_the_cli(tmp_path, LONG)
    assert "simulated" in done.stderr  # the progress line that told us it was running


def test_short_runs_stay_quiet():
    done = CliRunner().invoke(
        app, ["run", "scenarios/dumbbell-cbr.toml", "--out", "/dev/null", "--no-plot", "-q"]
    )
    assert "simulated" not in done.output


#: A window controller that sleeps in its callback, so Ctrl-C arrives while Python code of the
#: controller runs; it says so on stderr first.
SLOW_CONTROLLER = """
import sys, time
import ccscope

said = []


def increase(w):
    if not said:
        said.append(print("in the controller", file=sys.stderr, flush=True))
    time.sleep(0.2)
    return 1.0


slow = ccscope.WindowController("slow", increase=increase, decrease=lambda w: w / 2)
"""
SLOW = LONG.replace(
    'source = { kind = "tcp" }',
    'source = { kind = "tcp", controller = "python:slow_controller:slow" }',
)


@pytest.fixture
def slow_controller(tmp_path, monkeypatch):
    (tmp_path / "slow_controller.py").write_text(SLOW_CONTROLLER)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    return tmp_path


def test_ctrl_c_inside_a_python_controller_gives_the_partial_result(slow_controller):
    script = textwrap.dedent(f"""
        import json, sys
        import ccscope
        try:
            from slow_controller import slow
            ccscope.run(ccscope.loads({SLOW.replace("slow_controller:", "")!r}),
                        controllers={{"slow": slow}}, force=True)
        except ccscope.errors.Interrupted as e:
            print(json.dumps(e.result.summary(), default=str))
            sys.exit(3)
    """)
    done = interrupt_when_it_reports([sys.executable, "-c", script])
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["partial"] is True and 0 < summary["duration_s"] < 100000


def test_ctrl_c_inside_a_python_controller_on_the_cli_exits_130(slow_controller):
    ctrl_c_on_the_cli(slow_controller, SLOW)
