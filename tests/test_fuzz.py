"""Fuzzing the scenario loader and the command line: whatever is written anywhere in a scenario,
and whatever is typed after `ccscope`, the outcome is a result, or one ScenarioError (CLI: one
line on stderr, exit 2) — never a traceback, a panic, a hang or an abort. A scenario that is
accepted and cheap is also run, and its events must stay within the cost estimate.

500 examples each in `make test`; 10 000 in `make validate` (slow)."""

from __future__ import annotations

import contextlib
import copy
import io
import math
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import ccscope
from ccscope import cli
from ccscope import scenario as scenario_module
from ccscope.errors import ScenarioError
from ccscope.output import jsonable

ROOT = Path(__file__).parents[1]


def short(name: str) -> dict:
    """An example scenario, shortened so that most of its variants are cheap enough to run."""
    sc = ccscope.load(ROOT / "scenarios" / f"{name}.toml")
    if sc.engine == "round":
        return sc.replace("run.warmup_steps", 100).replace("run.steps", 500).echo()
    return sc.replace("run.warmup", "1s").replace("run.duration", "3s").echo()


BASES = [
    short(name)
    for name in ("dumbbell-mix", "tfrc-tcp-red", "jin-fig20-parkinglot", "round-loguinov-fig5")
]
# Runs of accepted scenarios are kept short: the property is about outcomes, not numbers.
RUN_WORK = 1e6

UNITS = [
    "bps",
    "kbps",
    "Mbps",
    "Gbps",
    "Tbps",
    "MBps",
    "s",
    "ms",
    "us",
    "ns",
    "min",
    "h",
    "B",
    "KB",
    "KiB",
    "GB",
    "pkts",
    "",
    "furlongs",
]
numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 1, -1, 0.5, 1.0, 1e-300, 1e300, 2**63, 2**64, 1e9, 1e12]),
)
unit_texts = st.builds(lambda x, u: f"{x}{u}", numbers, st.sampled_from(UNITS))
leaves = st.one_of(
    st.none(),
    st.booleans(),
    numbers,
    unit_texts,
    st.text(max_size=12),
    st.sampled_from(
        [
            "auto",
            "tcp",
            "gaimd",
            "python:x",
            "round",
            "packet",
            "droptail",
            "red",
            "bernoulli",
            "tfrc",
            "cbr",
        ]
    ),
)
wild = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
# Values of the right kind and near the usual size, so that many variants are valid and run.
plausible = st.one_of(
    st.builds(
        lambda x, u: f"{x:.4g}{u}",
        st.floats(1e-3, 1e4),
        st.sampled_from(["kbps", "Mbps", "Gbps", "ms", "s", "us", "B", "KB", "pkts"]),
    ),
    st.floats(0, 2),
    st.integers(0, 1000),
    st.booleans(),
)
values = st.one_of(plausible, wild)


def entries(x, path=()):
    if path:
        yield path
    if isinstance(x, dict):
        for k, v in x.items():
            yield from entries(v, (*path, k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from entries(v, (*path, i))


@st.composite
def mutated(draw) -> dict:
    """An example scenario with one or two entries replaced, removed or added."""
    table = copy.deepcopy(draw(st.sampled_from(BASES)))
    for _ in range(draw(st.integers(1, 2))):
        paths = list(entries(table))
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        at = table
        for key in path[:-1]:
            at = at[key]
        action = draw(st.sampled_from(["set", "set", "delete", "add"]))
        if action == "delete" and isinstance(at, dict):
            del at[path[-1]]
        elif action == "add" and isinstance(
            at.get(path[-1]) if isinstance(at, dict) else None, dict
        ):
            at[path[-1]][draw(st.text(max_size=8))] = draw(values)
        else:
            at[path[-1]] = draw(values)
    return table


def check_loader(table: dict) -> None:
    try:
        sc = ccscope.Scenario.from_dict(table)
        ccscope.validate(sc)
    except ScenarioError as e:
        assert str(e) and "\n" not in str(e).strip()
        return
    cost = scenario_module.cost(sc)
    assert math.isfinite(cost["work"]) and math.isfinite(cost["bytes"])
    if cost["work"] > RUN_WORK or (sc.engine == "packet" and sc.n_flows > 200):
        return
    if sc.engine == "udp":  # real time: a run lasts its duration (tests/test_realnet.py)
        return
    try:
        result = ccscope.run(sc)
    except ScenarioError as e:  # e.g. a python: controller that was not supplied
        assert "\n" not in str(e).strip()
        return
    event("ran")
    jsonable(result.summary())  # raises on a NaN or infinity
    if sc.engine == "packet":
        assert result.events <= cost["work"]


@pytest.mark.parametrize(
    "budget",
    [
        pytest.param(500, id="500"),
        pytest.param(10_000, id="10000", marks=pytest.mark.slow),
    ],
)
def test_scenario_loader_never_crashes(budget):
    @settings(
        max_examples=budget,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(mutated())
    def loader(table):
        check_loader(table)

    loader()


WORDS = [
    "run",
    "validate",
    "check",
    "schema",
    "controllers",
    "version",
    "--out",
    "--seed",
    "--force",
    "--no-plot",
    "-q",
    "--json",
    "--param",
    "--binomial",
    "--x-min",
    "--x-max",
    "--window",
    "--flows",
    "--help",
    "packet",
    "round",
    "gaimd",
    "tcp",
    "iiad",
    "x=1",
    "beta=2",
    "1,1,1,1.5",
    "0.5,0.5,1,0.5",
    "-1",
    "0",
    "1e300",
    "nan",
    "2**70",
    "18446744073709551616",
    "",
    "TINY",
    "NOFILE.toml",
    "OUT",
    "OUT/x",
]
TINY = """[run]
duration = "1s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "1Mbps", delay = "10ms" }
[[flows]]
source = { kind = "cbr", rate = "500kbps" }
[trace]
"""


def invoke(args: list[str], tmp: Path) -> int:
    """Runs the CLI in this process as `ccscope ARGS` does; returns its exit code."""
    names = {
        "OUT": str(tmp / "out"),
        "OUT/x": str(tmp / "out" / "x"),
        "TINY": str(tmp / "tiny.toml"),
    }
    args = [names.get(a, a) for a in args]
    argv = sys.argv
    stdout, stderr = io.StringIO(), io.StringIO()
    sys.argv = ["ccscope", *args]
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            cli.main()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    finally:
        sys.argv = argv
    if code != 0:
        assert code == 2, (args, stderr.getvalue())
        assert stderr.getvalue().strip().count("\n") == 0, (args, stderr.getvalue())
    return code


@pytest.mark.parametrize(
    "budget",
    [
        pytest.param(500, id="500"),
        pytest.param(10_000, id="10000", marks=pytest.mark.slow),
    ],
)
def test_command_line_never_crashes(budget, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli")
    (tmp / "tiny.toml").write_text(TINY)

    @settings(
        max_examples=budget,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=10)), max_size=6))
    def command_line(args):
        invoke(args, tmp)

    command_line()
