"""The round-model scenario schema and file API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ccscope import roundmodel
from ccscope.errors import ScenarioError

SCENARIO = Path(__file__).parents[2] / "scenarios" / "round-loguinov-fig5.toml"


def test_example_scenario_runs_and_writes(tmp_path):
    r = roundmodel.run_file(SCENARIO)
    assert r.n_flows == 100
    assert 0 < r.loss_rate < 1 and 0 < r.utilization <= 1
    written = r.write(tmp_path)
    summary = json.loads(written[0].read_text())
    assert summary["engine"] == "round" and summary["scenario"]["run"]["engine"] == "round"
    assert {p.name for p in written} >= {"summary.json", "round_series.parquet"}


@pytest.mark.parametrize(("change", "message"), [
    ({"link": {"rtt": "100ms"}}, "exactly one of capacity"),
    ({"link": {"capacity": "1Mbps", "capacity_pkts": 10}}, "exactly one of capacity"),
    ({"link": {"capacity": "fast"}}, "link.capacity"),
    ({"run": {"engine": "round", "steps": 10, "warmup_steps": 10}}, "run.warmup_steps"),
    ({"link": {"capacity": "1Mbps", "feedback": "psychic"}}, "link.feedback"),
    ({"run": {"engine": "packet", "steps": 10}}, "run.engine"),
    ({"record": {"every": 1, "flows": True, "extra": 1}}, "record.extra"),
])
def test_schema_errors_name_the_field(change, message):
    base = {"run": {"engine": "round", "steps": 10}, "link": {"capacity": "1Mbps"},
            "flows": [{"controller": "tcp"}]}
    with pytest.raises(ScenarioError, match=message.replace(".", r"\.")):
        roundmodel.RoundScenario.from_dict({**base, **change})


def test_flow_series_needs_recording():
    r = roundmodel.run({"run": {"engine": "round", "steps": 10}, "link": {"capacity_pkts": 10},
                        "flows": [{"controller": "tcp"}]})
    with pytest.raises(ScenarioError, match="record.flows"):
        r.flow_series()


def test_validate_checks_controllers_without_running():
    sc = roundmodel.RoundScenario.from_dict({
        "run": {"engine": "round", "steps": 10**9}, "link": {"capacity_pkts": 10},
        "flows": [{"controller": "gaimd", "params": {"beta": 1.5}}]})
    with pytest.raises(ScenarioError, match="controller.beta"):
        roundmodel.validate(sc)
