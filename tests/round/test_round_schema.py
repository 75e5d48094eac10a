"""The round-model scenario schema and file API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ccscope
from ccscope import roundmodel
from ccscope.errors import ScenarioError
from ccscope.scenario import Scenario

SCENARIO = Path(__file__).parents[2] / "scenarios" / "round-loguinov-fig5.toml"


def test_example_scenario_runs_and_writes(tmp_path):
    r = roundmodel.run_file(SCENARIO)
    assert r.n_flows == 100
    assert 0 < r.loss_rate < 1 and 0 < r.utilization <= 1
    written = r.write(tmp_path)
    summary = json.loads(written[0].read_text())
    assert summary["engine"] == "round" and summary["scenario"]["run"]["engine"] == "round"
    assert {p.name for p in written} >= {"summary.json", "round_series.parquet"}


@pytest.mark.parametrize(
    ("change", "path", "message"),
    [
        ({"link": {"rtt": "100ms"}}, "link.capacity", "exactly one of capacity"),
        (
            {"link": {"capacity": "1Mbps", "capacity_pkts": 10}},
            "link.capacity",
            "exactly one of capacity",
        ),
        ({"link": {"capacity": "fast"}}, "link.capacity", "cannot be read as a rate"),
        # A capacity is named as written, never as the rate derived from it.
        ({"link": {"capacity_pkts": -5}}, "link.capacity_pkts", "link.capacity_pkts = -5:"),
        ({"link": {"capacity_pkts": 1e308}}, "link.capacity_pkts", "infinite rate"),
        ({"link": {"capacity": "-1Mbps"}}, "link.capacity", "'-1Mbps'"),
        (
            {
                "link": {
                    "capacity_pkts": 10,
                    "capacity_changes": [{"step": 5, "capacity_pkts": 0}],
                }
            },
            "link.capacity_changes[0].capacity_pkts",
            "= 0: must be a finite number > 0",
        ),
        (
            {"run": {"engine": "round", "steps": 10, "warmup_steps": 10}},
            "run.warmup_steps",
            "less than run.steps = 10",
        ),
        (
            {"link": {"capacity": "1Mbps", "feedback": "psychic"}},
            "link.feedback",
            "'psychic' is not known",
        ),
        (
            {"link": {"capacity": "1Mbps", "feedback": {"kind": "bernoulli", "p": 1.0}}},
            "link.feedback.p",
            "[0, 1)",
        ),
        ({"run": {"engine": "fluid", "steps": 10}}, "run.engine", "'packet', 'round'"),
        ({"record": {"every": 1, "flows": True, "extra": 1}}, "record.extra", "unknown key"),
        (
            {"flows": [{"controller": "gaimd", "params": {"beta": 1.5}}]},
            "flows[0].params.beta",
            "beta = 1.5",
        ),
    ],
)
def test_schema_errors_name_the_path_as_written(change, path, message):
    base = {
        "run": {"engine": "round", "steps": 10},
        "link": {"capacity": "1Mbps"},
        "flows": [{"controller": "tcp"}],
    }
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict({**base, **change})
    assert info.value.path == path, str(info.value)
    assert message in str(info.value)


def test_a_packet_scenario_is_not_run_as_a_round_one():
    with pytest.raises(ScenarioError, match="packet-model scenario"):
        roundmodel.load(SCENARIO.parent / "dumbbell-cbr.toml")


def test_flow_series_needs_recording():
    r = roundmodel.run(
        {
            "run": {"engine": "round", "steps": 10},
            "link": {"capacity_pkts": 10},
            "flows": [{"controller": "tcp"}],
        }
    )
    with pytest.raises(ScenarioError, match="record.flows"):
        r.flow_series()


def test_validate_checks_controllers_without_running():
    sc = Scenario.from_dict(
        {
            "run": {"engine": "round", "steps": 10**9},
            "link": {"capacity_pkts": 10},
            "flows": [{"controller": "gaimd", "params": {"beta": 0.5}, "count": 10**6}],
        }
    )
    # 1e15 flow-steps: refused unless forced, and forced it is checked, not run.
    with pytest.raises(ccscope.CostError, match=r"1\.0e15 flow-steps"):
        ccscope.validate(sc)
    assert ccscope.validate(sc, force=True) == sc
