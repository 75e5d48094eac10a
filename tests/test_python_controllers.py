"""Controllers written in Python as first-class citizens: a ccscope.Controller sees what the
core's controllers see and sets a window, a pacing rate, or both; it is named the same way in
every scenario and command, found beside the scenario, parameterised from it, identified by
its code, and stopped with one clear message (the partial result kept) when it misbehaves."""

from __future__ import annotations

import json
import math
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import ccscope
from ccscope import roundmodel, sweep
from ccscope.check import check
from ccscope.cli import app
from ccscope.errors import ControllerError, ScenarioError

MODULE = '''
import ccscope


class DelayAimd(ccscope.Controller):
    """Additive increase while the queueing delay is below `target` (s), a gentle decrease
    above it, halving on loss."""

    def __init__(self, target: float = 0.005, gain: float = 1.0, label: str = "delay-aimd"):
        self.target, self.gain, self.name = target, gain, label
        self.window_pkts = 2.0
        self.acks, self.losses, self.kinds = 0, 0, set()

    def on_ack(self, ack):
        self.acks += 1
        if ack.acked_pkts and ack.rtt_s is not None and ack.min_rtt_s is not None:
            if ack.rtt_s - ack.min_rtt_s > self.target:
                self.window_pkts = max(1.0, self.window_pkts - 0.5 / self.window_pkts)
            else:
                self.window_pkts += self.gain / self.window_pkts

    def on_loss(self, loss):
        self.losses += 1
        self.kinds.add(loss.kind)
        self.window_pkts = max(1.0, self.window_pkts / 2)


class Paced(ccscope.Controller):
    """A fixed pace and a window far above the path's; woken every `every` s."""

    def __init__(self, rate: float = 2e6, every: float = 0.25):
        self.window_pkts, self.pacing_rate_bps = 1000.0, rate
        self.every, self.wakeup_s, self.woken = every, every, []

    def on_wakeup(self, now_s):
        self.woken.append(now_s)
        self.wakeup_s = now_s + self.every


class RoundAimd(ccscope.Controller):
    """AIMD(1, 1/2) per round, as a window or (rate=True) as a rate."""

    def __init__(self, rate: bool = False):
        self.rate = rate
        self.window_pkts, self.pacing_rate_bps = (None, 80e3) if rate else (1.0, None)

    def on_round(self, r):
        assert r.base_rtt_s == 0.1 and r.queueing_delay_s >= 0
        if self.rate:
            self.pacing_rate_bps = (
                self.pacing_rate_bps / 2 if r.congested else self.pacing_rate_bps + 8e4
            )
        else:
            self.window_pkts = self.window_pkts / 2 if r.congested else self.window_pkts + 1


class Reports(ccscope.Controller):
    """A rate from reports: halve on loss, else add 10 kb/s; records one-way delays."""

    def __init__(self):
        self.pacing_rate_bps, self.delays = 200e3, []

    def on_report(self, r):
        if r.one_way_delay_s is not None:
            self.delays.append(r.one_way_delay_s)
        self.pacing_rate_bps = (
            self.pacing_rate_bps / 2 if r.lost_pkts else self.pacing_rate_bps + 10e3
        )
'''


def scenario(controller: str, flows: str = "", duration: str = "20s", loss: float = 0.0) -> str:
    lossy = f', loss = {{ kind = "bernoulli", p = {loss} }}' if loss else ""
    return textwrap.dedent(
        f"""
        [run]
        duration = "{duration}"
        warmup = "2s"
        seed = 4

        [topology]
        kind = "dumbbell"
        bottleneck = {{ rate = "10Mbps", delay = "20ms", queue = {{ kind = "droptail", limit = 100 }}{lossy} }}

        [[flows]]
        source = {{ kind = "tcp", controller = {controller} }}
        {flows}
        """
    )


@pytest.fixture
def here(tmp_path: Path, monkeypatch) -> Path:
    """A folder with the controllers' module and scenarios; the tests run from elsewhere."""
    (tmp_path / "mine.py").write_text(MODULE)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return tmp_path


def write(here: Path, text: str, name: str = "s.toml") -> Path:
    path = here / name
    path.write_text(text)
    return path


def test_reno_in_python_sends_what_reno_in_rust_sends():
    """The seam hands a Python controller what it hands the catalogue's: TCP's own controller
    written as a ccscope.Controller (bench/python_controllers.py) gives the same run, packet
    for packet, with random loss, timeouts and recovery."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    try:
        from python_controllers import PythonReno
    finally:
        sys.path.pop(0)
    text = scenario('"tcp"', flows="count = 3", duration="30s", loss=0.02)
    rust = ccscope.run(ccscope.loads(text))
    python = ccscope.run(
        ccscope.loads(text.replace('controller = "tcp"', 'controller = "python:reno"')),
        controllers={"reno": PythonReno},
    )
    columns = ["sent_pkts", "delivered_pkts", "dropped_pkts", "timeouts", "fast_retransmits"]
    assert python.flows[columns].equals(rust.flows[columns])
    assert rust.flows["timeouts"].sum() > 0 and rust.flows["fast_retransmits"].sum() > 0


def test_a_controller_beside_the_scenario_takes_its_parameters(here):
    path = write(
        here,
        scenario(
            '{ name = "python:mine:DelayAimd", target = "10ms", gain = 2, label = "20ms" }',
            loss=0.005,
        ),
    )
    r = ccscope.run(path)
    obj = r.controllers[0]
    # A unit string becomes seconds as the core reads times; a parameter declared str stays.
    assert (obj.target, obj.gain, obj.name) == (0.01, 2, "20ms")
    assert obj.acks > 1000 and obj.losses > 0 and obj.kinds <= {"gap", "timeout"}
    assert r.flows.loc[0, "label"] == "20ms (SACK)"
    recorded = r.summary()["python_controllers"]["0"]
    assert recorded["module_file"] == str(here / "mine.py")
    assert recorded["params"] == {"target": "10ms", "gain": 2, "label": "20ms"}


def test_the_same_name_runs_in_the_round_model_as_a_window_or_a_rate(here):
    table = {
        "run": {"engine": "round", "steps": 200, "seed": 1},
        "link": {"capacity_pkts": 20, "rtt": "100ms"},
        "flows": [
            {"controller": "python:mine:RoundAimd", "count": 2},
            {"controller": {"name": "python:mine:RoundAimd", "rate": True}},
        ],
    }
    r = roundmodel.run(ccscope.Scenario.from_dict(table, here / "r.toml"))
    assert list(r.flows["rate_based"]) == [False, False, True]
    assert r.loss_rate > 0 and r.utilization > 0.5


def test_a_pace_and_wakeups_reach_the_tcp_transport(here):
    # 2 Mb/s of 1000-byte packets on a 10 Mb/s link: the link carries the pace.
    path = write(here, scenario('"python:mine:Paced"', duration="10s"))
    r = ccscope.run(path)
    assert r.flows.loc[0, "send_rate_bps"] == pytest.approx(2e6, rel=0.01)
    assert r.controllers[0].woken[:4] == pytest.approx([0.25, 0.5, 0.75, 1.0])


def test_a_rate_controller_hears_reports_with_one_way_delays(here):
    text = scenario('"python:mine:DelayAimd"').replace(
        'source = { kind = "tcp", controller = "python:mine:DelayAimd" }',
        'source = { kind = "rate", controller = "python:mine:Reports", feedback = "per-rtt" }',
    )
    r = ccscope.run(write(here, text))
    delays = r.controllers[0].delays
    # One way: 20 ms of bottleneck and 2 × 1 ms of access links, plus serialization and queue.
    assert len(delays) > 100 and min(delays) >= 0.022 and max(delays) < 0.022 + 0.1


def test_parameters_a_class_does_not_take_are_named(here):
    bad = scenario('{ name = "python:mine:DelayAimd", gamma = 1 }')
    with pytest.raises(ControllerError, match="cannot take the scenario's parameters") as e:
        ccscope.run(write(here, bad))
    assert e.value.path == "flows[0].source.controller.gamma"


def test_a_missing_module_says_where_it_looked(here):
    runner = CliRunner()
    path = write(here, scenario('"python:nosuch:X"'))
    done = runner.invoke(app, ["run", str(path), "--out", str(here / "o"), "-q"])
    assert done.exit_code == 2
    assert "no module 'nosuch' beside the scenario or in the working directory" in done.output
    assert str(here) in done.output and len(done.output.strip().splitlines()) <= 3


def test_a_module_that_fails_to_import_is_one_line(here):
    (here / "broken.py").write_text("def oops(:\n")
    with pytest.raises(ControllerError, match="importing broken .* raised SyntaxError"):
        ccscope.run(write(here, scenario('"python:broken:X"')))


#: Outputs a Controller may not give (window, pace): each stops the run at the hook.
BAD = st.one_of(
    st.just(("window_pkts", math.nan)),
    st.just(("window_pkts", math.inf)),
    st.floats(max_value=0.999, allow_nan=False).map(lambda w: ("window_pkts", w)),
    st.floats(min_value=1.01e9, allow_infinity=False).map(lambda w: ("window_pkts", w)),
    st.sampled_from(["ten", True, [1.0]]).map(lambda w: ("window_pkts", w)),
    st.floats(min_value=-1e12, max_value=0.99).map(lambda r: ("pacing_rate_bps", r)),
    st.just(("pacing_rate_bps", 1e13)),
    st.just(("wakeup_s", -1.0)),
)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(bad=BAD)
def test_a_bad_output_stops_the_run_naming_flow_hook_and_value(bad, here):
    field, value = bad

    class Bad(ccscope.Controller):
        def __init__(self):
            self.window_pkts, self.n = 4.0, 0

        def on_ack(self, ack):
            self.n += 1
            if self.n == 50:
                setattr(self, field, value)

    with pytest.raises(ControllerError) as e:
        ccscope.run(
            ccscope.loads(scenario('"python:bad"', duration="5s")), controllers={"bad": Bad}
        )
    message = str(e.value)
    assert f"(flow 0, Bad): on_ack gave {field} = {value!r}" in message
    assert e.value.path == "flows[0].source.controller"
    # The run stopped soon after, keeping what it measured.
    result = e.value.result
    assert result.partial and 0 < result.flows.loc[0, "sent_pkts"] < 5_000


def test_a_hook_that_raises_or_exits_stops_the_run_and_the_cli_keeps_the_result(here):
    class Exits(ccscope.Controller):
        window_pkts = 4.0

        def on_ack(self, ack):
            if ack.now_s > 1.0:
                raise SystemExit(0)

    with pytest.raises(ControllerError, match="on_ack raised SystemExit") as e:
        ccscope.run(ccscope.loads(scenario('"python:x"', duration="5s")), controllers={"x": Exits})
    assert isinstance(e.value.__cause__, SystemExit) and e.value.result.partial
    (here / "exits.py").write_text(
        "import ccscope\nclass X(ccscope.Controller):\n    window_pkts = 4.0\n"
        "    def on_ack(self, ack):\n        if ack.now_s > 1.0:\n            1 / 0\n"
    )
    out = here / "out"
    done = CliRunner().invoke(
        app, ["run", str(write(here, scenario('"python:exits:X"'))), "--out", str(out), "-q"]
    )
    assert done.exit_code == 2 and "on_ack raised ZeroDivisionError" in done.output
    assert json.loads((out / "summary.json").read_text())["partial"] is True


def test_check_measures_what_has_no_closed_form(here):
    report = check("python:mine:DelayAimd", {"target": "5ms"})
    assert "conditions" not in report
    # Two delay-based flows alone share fairly; against TCP the delay-based one backs off.
    m = report["measured"]
    assert m["convergence"]["converged"]
    assert m["friendliness"]["holds"] and m["friendliness"]["ratio"] < 1
    done = CliRunner().invoke(app, ["check", "python:mine:DelayAimd", "-p", "target=5ms"])
    assert done.exit_code == 0 and "throughput against TCP's" in done.output
    done = CliRunner().invoke(app, ["check", "tfrc"])
    assert done.exit_code == 0 and "no closed form applies" in done.output


def test_a_sweep_takes_a_python_parameter_as_an_axis_and_knows_edited_code(here):
    write(here, scenario('"python:mine:DelayAimd"', duration="3s"))
    (here / "sw.toml").write_text(
        'base = "s.toml"\nseeds = [1]\n[axes]\n"flows[0].source.controller.gain" = [1, 3]\n'
    )
    store = here / "store.duckdb"
    first = sweep.run(here / "sw.toml", store, jobs=1)
    assert (first.ran, first.failed) == (2, 0)
    runs = sweep.load(store)
    assert sorted(runs["flows[0].source.controller.gain"]) == [1, 3]
    assert sweep.run(here / "sw.toml", store, jobs=1).ran == 0
    # An edited controller is another one: nothing is served from the store.
    (here / "mine.py").write_text(MODULE + "\n# edited\n")
    assert sweep.run(here / "sw.toml", store, jobs=1).ran == 2


def test_a_sweep_whose_runs_all_fail_alike_stops(here):
    write(here, scenario('"python:broken2:X"', duration="3s"))
    (here / "broken2.py").write_text("raise RuntimeError('no')\n")
    (here / "sw.toml").write_text('base = "s.toml"\nseeds = [1, 2, 3, 4, 5, 6, 7, 8]\n')
    done = sweep.run(here / "sw.toml", here / "st.duckdb", jobs=1)
    assert done.ran == sweep.FAIL_FAST and "all failed with the same error" in done.stopped
    cli = CliRunner().invoke(
        app,
        [
            "sweep",
            str(here / "sw.toml"),
            "--store",
            str(here / "s2.duckdb"),
            "-j",
            "1",
            "--no-progress",
        ],
    )
    assert cli.exit_code == 2 and "importing broken2" in cli.output


def test_a_recorded_run_with_a_python_controller_runs_again(here):
    path = write(here, scenario('{ name = "python:mine:DelayAimd", gain = 2 }', duration="4s"))
    first = ccscope.run(path)
    first.write(here / "one")
    again = ccscope.run(ccscope.load(here / "one" / "summary.json"))
    assert again.flows["sent_pkts"].tolist() == first.flows["sent_pkts"].tolist()


def test_a_controller_named_by_a_string_takes_a_parameter_by_path():
    sc = ccscope.loads(scenario('"gaimd"'))
    assert sc.replace("flows[0].source.controller.beta", 0.5).table["flows"][0]["source"][
        "controller"
    ] == {"name": "gaimd", "beta": 0.5}


def test_the_old_round_spelling_is_read_with_a_note(tmp_path):
    table = {
        "run": {"engine": "round", "steps": 10},
        "link": {"capacity_pkts": 10},
        "flows": [{"controller": "aimd", "params": {"beta": 0.25}}],
    }
    sc = ccscope.Scenario.from_dict(table)
    assert sc.table["flows"][0]["controller"] == {"name": "aimd", "beta": 0.25}
    assert "old spelling" in sc.notes[0]
    path = tmp_path / "r.toml"
    path.write_text(
        '[run]\nengine = "round"\nsteps = 10\n[link]\ncapacity_pkts = 10\n'
        '[[flows]]\ncontroller = "aimd"\nparams = { beta = 0.25 }\n'
    )
    done = CliRunner().invoke(app, ["run", str(path), "--out", str(tmp_path / "o"), "-q"])
    assert done.exit_code == 0 and "note: flows[0]: `controller` with `params`" in done.output
    with pytest.raises(ScenarioError) as e:
        ccscope.Scenario.from_dict(
            {**table, "flows": [{"controller": "aimd", "params": {"beta": 2}}]}
        )
    assert e.value.path == "flows[0].params.beta"


@pytest.mark.realtime
def test_a_python_controller_runs_on_real_packets(here):
    text = (
        scenario('"python:mine:DelayAimd"', duration="2s")
        .replace("[run]", '[run]\nengine = "udp"')
        .replace('warmup = "2s"', 'warmup = "0.5s"')
    )
    r = ccscope.run(write(here, text))
    assert r.controllers[0].acks > 100
