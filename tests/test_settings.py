"""Overriding settings (`ccscope run FILE --set PATH=VALUE`, `ccscope.load(path, settings)`):
validated as if the file had them written, recorded so in the run's summary.json."""

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import ccscope
from ccscope.cli import app
from ccscope.scenario import parse_setting, shipped

ROOT = Path(__file__).resolve().parents[1]
CBR = ROOT / "scenarios" / "dumbbell-cbr.toml"
SHORT = ["--set", "run.duration=3s", "--set", "run.warmup=1s"]


def test_settings_are_read_as_if_written_in_the_file():
    sc = ccscope.load(CBR, {"topology.bottleneck.rate": "20Mbps", "flows[1].count": 4})
    assert sc.table["topology"]["bottleneck"]["rate"] == "20Mbps"
    assert sc.table["flows"][1]["count"] == 4
    # Defaults the file leaves out follow the setting, as they would had the file it.
    assert sc == ccscope.loads(
        CBR.read_text().replace('rate = "10Mbps"', 'rate = "20Mbps"', 1)
    ).replace("flows[1].count", 4)


def test_a_controller_named_by_a_string_takes_a_parameter():
    sc = ccscope.load(
        ROOT / "scenarios" / "cubic-rfc9438.toml",
        {"flows[0].source.controller.beta": 0.5},
    )
    assert sc.table["flows"][0]["source"]["controller"]["beta"] == 0.5


@pytest.mark.parametrize(
    ("setting", "named"),
    [
        ({"flows[7].count": 2}, "flows[7]: no such entry in the scenario (it has 3)"),
        ({"topology.bottleneck.rate": "fast"}, "topology.bottleneck.rate = 'fast'"),
        ({"topology.botleneck.rate": "1Mbps"}, "topology.botleneck: unknown key"),
        ({"run.duration.x": 1}, "run.duration: is str '60s', not a table with 'x' in it"),
        ({"run..seed": 1}, "'run..seed': not a path into the scenario"),
        ({"flows[0].count": 0}, "flows[0].count"),
    ],
)
def test_a_bad_setting_is_one_error_naming_it(setting, named):
    with pytest.raises(ccscope.ScenarioError) as e:
        ccscope.load(CBR, setting)
    assert named in str(e.value) and "\n" not in str(e.value)


def test_values_read_as_toml_or_as_text():
    assert parse_setting("flows[1].count=4") == ("flows[1].count", 4)
    assert parse_setting("topology.bottleneck.rate=20Mbps") == (
        "topology.bottleneck.rate",
        "20Mbps",
    )
    assert parse_setting('a.b = "x=y"') == ("a.b", "x=y")
    assert parse_setting("c={ name = 'gaimd', beta = 0.875 }") == (
        "c",
        {"name": "gaimd", "beta": 0.875},
    )
    with pytest.raises(ccscope.ScenarioError, match="expected PATH=VALUE"):
        parse_setting("run.seed")


scalars = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"))),
)


@given(value=scalars)
def test_a_toml_value_reads_back_as_itself(value):
    written = (
        json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value).lower()
    )
    if isinstance(value, float):
        written = repr(value)
    path, read = parse_setting(f"run.seed={written}")
    assert path == "run.seed"
    assert read == value or (isinstance(value, float) and math.isclose(read, value))


@settings(max_examples=150, deadline=None)
@given(path=st.text(max_size=30), value=st.text(max_size=30))
def test_any_setting_is_a_scenario_or_a_scenario_error(path, value):
    """Whatever a command line gives, the outcome is a scenario or one ScenarioError line."""
    try:
        key, read = parse_setting(f"{path}={value}")
        ccscope.load(CBR, {key: read})
    except ccscope.ScenarioError as e:
        assert "\n" not in str(e).strip() or "malformed" in str(e)


def test_run_records_the_settings_in_summary_json(tmp_path):
    out = tmp_path / "run"
    done = CliRunner().invoke(
        app,
        ["run", str(CBR), "--set", "topology.bottleneck.rate=20Mbps", "--set", "flows[1].count=4"]
        + SHORT
        + ["--out", str(out), "--no-plot", "-q"],
    )
    assert done.exit_code == 0, done.output
    scenario = json.loads((out / "summary.json").read_text())["scenario"]
    assert scenario["topology"]["bottleneck"]["rate"] == "20Mbps"
    assert scenario["flows"][1]["count"] == 4
    # The recorded scenario runs again as it ran.
    assert ccscope.load(out / "summary.json") == ccscope.load(
        CBR,
        {
            "topology.bottleneck.rate": "20Mbps",
            "flows[1].count": 4,
            "run.duration": "3s",
            "run.warmup": "1s",
        },
    )


def test_run_names_a_bad_setting_and_exits_2(tmp_path):
    done = CliRunner().invoke(
        app, ["run", str(CBR), "--set", "flows[7].count=2", "--out", str(tmp_path / "x")]
    )
    assert done.exit_code == 2
    assert "flows[7]: no such entry" in done.output
    done = CliRunner().invoke(app, ["run", str(CBR), "--set", "flows", "--out", str(tmp_path)])
    assert done.exit_code == 2 and "expected PATH=VALUE" in done.output


def test_a_bare_name_runs_the_shipped_scenario(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert ccscope.load("dumbbell-cbr") == ccscope.load(CBR)
    assert ccscope.load("scenarios/dumbbell-cbr.toml").file == str(shipped("dumbbell-cbr.toml"))
    with pytest.raises(ccscope.ScenarioError, match="nor one ccscope ships"):
        ccscope.load("no-such-scenario")
    done = CliRunner().invoke(app, ["run", "dumbbell-cbr", *SHORT, "--no-plot", "-q"])
    assert done.exit_code == 0, done.output


def test_shipped_scenarios_are_the_repository_s():
    assert (ROOT / "scenarios").resolve() == shipped().resolve()


def test_a_sweep_takes_settings_also_into_a_base_file(tmp_path):
    from ccscope.sweep import load_sweep

    sweep = tmp_path / "s.toml"
    sweep.write_text(f'base = "{CBR}"\nseeds = [1]\n[axes]\n"run.seed" = [1]\n')
    sw = load_sweep(sweep, {"seeds": [1, 2], "base.run.duration": "15s"})
    assert sw.seeds == [1, 2] and sw.base.table["run"]["duration"] == "15s"
    with pytest.raises(ccscope.ScenarioError, match=r"run\.x"):
        load_sweep(sweep, {"base.run.x": 1})


def test_the_lazy_names_are_listed():
    names = dir(ccscope)
    assert {"run", "load", "WindowController", "Result", "__version__"} <= set(names)


def test_version_option_and_command_agree():
    runner = CliRunner()
    option, command = runner.invoke(app, ["--version"]), runner.invoke(app, ["version"])
    assert option.exit_code == command.exit_code == 0
    assert option.output == command.output
    assert "model version" in option.output and "commit" in option.output


def test_validate_takes_settings_too():
    runner = CliRunner()
    done = runner.invoke(app, ["validate", str(CBR), "--set", "run.duration=20s"])
    assert done.exit_code == 0 and "20s" in done.output
    done = runner.invoke(app, ["validate", str(CBR), "--set", "topology.bottleneck.rate=0Mbps"])
    assert done.exit_code == 2 and "topology.bottleneck.rate" in done.output
