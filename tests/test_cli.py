"""The command line: exit codes, messages, outputs."""

import json
import subprocess
import sys

import pytest


def ccscope(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "ccscope", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def test_run_writes_summary_traces_and_plot(tmp_path, small_toml):
    scenario = tmp_path / "s.toml"
    scenario.write_text(small_toml)
    out = tmp_path / "out"
    p = ccscope("run", str(scenario), "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert "bottleneck" in p.stdout and "Jain" in p.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert len(summary["flows"]) == 2
    assert (out / "trace_flows.parquet").exists()
    assert (out / "overview.png").stat().st_size > 10_000


def test_seed_override(tmp_path, small_toml):
    scenario = tmp_path / "s.toml"
    scenario.write_text(small_toml)
    out = tmp_path / "out"
    p = ccscope("run", str(scenario), "--out", str(out), "--seed", "9", "-q", "--no-plot")
    assert p.returncode == 0, p.stderr
    assert json.loads((out / "summary.json").read_text())["seed"] == 9


@pytest.mark.parametrize(
    ("old", "new", "needle"),
    [
        ('rate = "2Mbps"', 'rate = "-2Mbps"', "topology.bottleneck.rate"),
        ('kind = "dumbbell"', 'kind = "ring"', "topology.kind = 'ring' is not known"),
        ("seed = 3", "seed = 3\nfoo = 1", "run.foo: unknown key"),
        ("[run]", "[run", "malformed TOML"),
        (
            'source = { kind = "poisson", rate = "1.5Mbps" }',
            'source = { kind = "tcp", controller = "dctcp" }',
            "flows[0].ecn = false: must be true: dctcp reacts to ECN marks (RFC 8257 §3)",
        ),
        (
            'limit = "20pkts" }',
            'limit = "20pkts", threshold = "30pkts" }',
            "topology.bottleneck.queue.threshold",
        ),
        (
            'kind = "droptail", limit = "20pkts"',
            'kind = "step", limit = "20pkts", threshold = "20pkts"',
            "topology.bottleneck.queue.threshold = '20pkts': must be below limit = '20pkts'",
        ),
        (
            'kind = "poisson", rate = "1.5Mbps" }',
            'kind = "tcp", controller = { name = "vegas", alpha = 5, beta = 4 } }',
            "flows[0].source.controller.alpha = 5: must be at most beta = 4 (packets queued)",
        ),
        (
            'kind = "poisson", rate = "1.5Mbps" }',
            'kind = "tcp", controller = { name = "vegas", sent_diff = 2 } }',
            "flows[0].source.controller.sent_diff = 2: must be in [0, 1]",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, small_toml, old, new, needle):
    scenario = tmp_path / "bad.toml"
    scenario.write_text(small_toml.replace(old, new, 1))
    for cmd in ("run", "validate"):
        p = (
            ccscope(cmd, str(scenario), "--out", str(tmp_path))
            if cmd == "run"
            else ccscope(cmd, str(scenario))
        )
        assert p.returncode == 2, (cmd, p.stdout, p.stderr)
        assert needle in p.stderr
        assert "Traceback" not in p.stderr
        assert p.stderr.strip().count("\n") == 0, p.stderr


def test_missing_file_exits_2(tmp_path):
    p = ccscope("run", str(tmp_path / "none.toml"))
    assert p.returncode == 2
    assert "no such scenario file" in p.stderr


def test_validate_ok(tmp_path, small_toml):
    scenario = tmp_path / "s.toml"
    scenario.write_text(small_toml)
    p = ccscope("validate", str(scenario))
    assert p.returncode == 0 and "ok" in p.stdout


@pytest.mark.parametrize("cmd", [[], ["run"], ["validate"], ["version"]])
def test_help_is_complete(cmd):
    p = ccscope(*cmd, "--help")
    assert p.returncode == 0
    assert "Usage" in p.stdout
    if cmd == ["run"]:
        for opt in ("--out", "--seed", "--plot", "--quiet"):
            assert opt in p.stdout


def test_version_names_the_model_version_and_the_commit():
    from ccscope import _core
    from ccscope.output import provenance

    p = ccscope("version")
    assert p.returncode == 0
    assert f"model version {_core.MODEL_VERSION}" in p.stdout
    assert provenance()["git_commit"] in p.stdout


@pytest.mark.parametrize(
    ("binomial", "needle"),
    [
        ("1,1,1,1.5", "binomial.beta = 1.5: must be in (0, 1)"),
        ("1,1,-1,0.5", "binomial.alpha = -1: must be finite and > 0"),
        ("0,1,1,0", "binomial.beta = 0: must be in (0, 1)"),
        ("nan,1,1,0.5", "binomial.k = nan: must be a finite number"),
        ("-400,1,1,0.5", "binomial.k = -400: the increase"),
        ("0,300,1,0.5", "binomial.l = 300: the decrease"),
        ("1,2", "four numbers k,l,alpha,beta"),
    ],
)
def test_check_binomial_errors_name_the_field_in_one_line(binomial, needle):
    p = ccscope("check", f"--binomial={binomial}")
    assert p.returncode == 2 and p.stdout == ""
    message = " ".join(p.stderr.split())  # rich wraps long lines
    assert message.startswith("error: ") and needle in message, p.stderr
    for internal in ("lam", "r_d", "r_i", "sigma", "Warning", "Traceback", "np.float64"):
        assert internal not in message, p.stderr


def test_check_efficiency_outside_its_domain_is_explained_without_internals():
    # Loguinov & Radha (29): at U = 100 a decrease 0.5·U² takes more than the window, so (28)
    # has no value; the report says why in the papers' symbols.
    p = ccscope("check", "--binomial=0,2,1,0.5")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    text = " ".join(p.stdout.split())
    assert "n/a: a reduction at the fair share U = 100 removes beta·U^l = 5000" in text
    assert "sigma" not in text and "np.float64" not in text
