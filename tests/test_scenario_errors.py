"""Any value put anywhere in a scenario gives either a valid scenario or one ScenarioError that
names a path, in the user's terms: no parser internals, no traceback."""

import copy
from pathlib import Path

import pytest

import ccscope
from ccscope.errors import ScenarioError

ROOT = Path(__file__).parents[1]
WRONG = [
    None,
    True,
    "x",
    "1e300Tbps",
    -1,
    0,
    1e39,
    2**70,
    [],
    {},
    [1, 2],
    {"kind": "zzz"},
    "nan",
    float("nan"),
    1.5,
    "-5ms",
]
INTERNALS = [
    "invalid type",
    "invalid length",
    "struct ",
    "u64",
    "f64",
    "u32",
    "usize",
    "line 1",
    "column",
    "serde",
    "Value",
]


def entries(x, path=()):
    if path:
        yield path
    if isinstance(x, dict):
        for k, v in x.items():
            yield from entries(v, (*path, k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from entries(v, (*path, i))


@pytest.mark.parametrize(
    "name", ["dumbbell-mix", "jin-fig20-parkinglot", "round-loguinov-fig5", "copa-nsdi18"]
)
def test_every_wrong_value_anywhere_is_named_cleanly(name):
    base = ccscope.load(ROOT / "scenarios" / f"{name}.toml").echo()
    refused = 0
    for path in entries(base):
        for value in WRONG:
            table = copy.deepcopy(base)
            at = table
            for key in path[:-1]:
                at = at[key]
            at[path[-1]] = value
            try:
                ccscope.Scenario.from_dict(table)
            except ScenarioError as e:
                refused += 1
                message = str(e)
                assert e.path and "\n" not in message, (path, value, message)
                assert not any(s in message for s in INTERNALS), (path, value, message)
    assert refused > 100


@pytest.mark.parametrize(
    ("step", "field", "says"),
    [
        ({"at": "1s", "p": 0.1, "interval": "100ms"}, "steps[1]", "exactly one of p"),
        ({"at": "1s"}, "steps[1]", "exactly one of p"),
        ({"at": "1s", "interval": "0s"}, "steps[1].interval", "> 0"),
    ],
)
def test_a_loss_step_takes_p_or_interval(step, field, says):
    table = {
        "run": {"duration": "2s"},
        "topology": {
            "kind": "fat_link",
            "loss": {"kind": "schedule", "steps": [{"at": "0s", "p": 0.01}, step]},
        },
        "flows": [{"source": {"kind": "tcp"}}],
    }
    with pytest.raises(ScenarioError) as e:
        ccscope.run(table)
    assert e.value.field == f"topology.loss.{field}" and says in str(e.value)


@pytest.mark.parametrize(
    ("source", "refused"),
    [
        ({"kind": "rate", "controller": "iscc"}, True),
        ({"kind": "rate", "controller": "iscc", "bunch": 2}, True),
        ({"kind": "rate", "controller": "iscc", "bunch": 3}, False),
        ({"kind": "rate", "controller": {"name": "iscc", "capacity": 4e6}}, False),
    ],
)
def test_iscc_needs_its_capacity_or_packet_bunches_to_estimate_it(source, refused):
    # Without C (exact, or estimated from bunches of 3 or more) ISCC never leaves its
    # starting rate (Loguinov & Radha (39), (41) scale its steps by C).
    table = {
        "run": {"duration": "1s"},
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "4Mbps", "delay": "20ms"}},
        "flows": [{"source": source}],
    }
    if not refused:
        ccscope.Scenario.from_dict(table)
        return
    with pytest.raises(ScenarioError) as e:
        ccscope.Scenario.from_dict(table)
    assert e.value.field == "flows[0].source.bunch" and "at least 3" in str(e.value)
