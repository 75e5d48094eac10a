"""The wheel `make wheel` builds, installed as a user without Rust installs it: into a fresh
virtual environment, run from a folder outside the source tree with no Rust toolchain on the
PATH. Each command a new user starts with must work from the package alone (scenarios and
reproduction set-ups are package data)."""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WHEELS = ROOT / "target" / "wheels"

SWEEP = """
seeds = [1, 2]

[base.run]
duration = "3s"
warmup = "1s"

[base.topology]
kind = "fat_link"

[[base.flows]]
source = { kind = "tcp" }
"""


def _wheel() -> Path:
    found = sorted(WHEELS.glob("ccscope-*-abi3-*.whl"))
    assert found, f"no wheel in {WHEELS}: `make wheel` builds it (`make test` does first)"
    return found[-1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, dict]:
    """A fresh virtual environment with the wheel installed, and the environment to run its
    commands in (PATH: the environment's bin and the system's, without cargo)."""
    home = tmp_path_factory.mktemp("wheel")
    venv = home / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    bin_ = venv / "bin"
    path = os.pathsep.join([str(bin_), "/usr/local/bin", "/usr/bin", "/bin"])
    env = {"PATH": path, "HOME": os.environ.get("HOME", str(home)), "LANG": "C.UTF-8"}
    assert shutil.which("cargo", path=path) is None, f"cargo is on {path}"
    assert shutil.which("rustc", path=path) is None, f"rustc is on {path}"
    subprocess.run(
        [bin_ / "pip", "install", "--quiet", "--only-binary=:all:", str(_wheel())],
        check=True,
        env=env,
        cwd=home,
    )
    return home, env


def _ccscope(installed, *args: str) -> subprocess.CompletedProcess:
    home, env = installed
    done = subprocess.run(
        [home / "venv" / "bin" / "ccscope", *args],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"ccscope {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done


def test_the_wheel_is_abi3_manylinux2014_with_the_scenarios():
    wheel = _wheel()
    assert "-cp311-abi3-" in wheel.name and "manylinux2014_x86_64" in wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    prefix = "ccscope/scenarios/"
    shipped = {n.removeprefix(prefix) for n in names if n.startswith(prefix) and n[-1] != "/"}
    scenarios = ROOT / "scenarios"
    # The scenario files and the capacity traces some of them name (scenarios/traces/).
    assert shipped == {
        p.relative_to(scenarios).as_posix() for p in scenarios.rglob("*") if p.is_file()
    }
    assert sorted(WHEELS.glob("ccscope-*.tar.gz")), "make wheel also builds the sdist"


def test_the_installed_package_is_not_the_source_tree(installed):
    home, env = installed
    done = subprocess.run(
        [home / "venv" / "bin" / "python", "-c", "import ccscope; print(ccscope.__file__)"],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(done.stdout.strip()).is_relative_to(home / "venv")
    version = _ccscope(installed, "--version").stdout
    assert version.startswith("ccscope ") and "model version" in version and "commit" in version


def test_a_shipped_scenario_runs_with_settings_and_reports(installed):
    home, _ = installed
    _ccscope(
        installed,
        "run",
        "scenarios/dumbbell-cbr.toml",
        "--set",
        "run.duration=4s",
        "--set",
        "run.warmup=1s",
        "--out",
        "run",
    )
    summary = json.loads((home / "run" / "summary.json").read_text())
    assert summary["scenario"]["run"]["duration"] == "4s"
    _ccscope(installed, "report", "run", "--output", "run.html")
    assert (home / "run.html").stat().st_size > 0


def test_a_reproduction_runs_from_package_data(installed):
    done = _ccscope(installed, "reproduce", "cai-fig14", "--quick")
    assert "cai-fig14" in done.stdout


def test_a_two_run_sweep_and_its_report(installed):
    home, _ = installed
    (home / "two.toml").write_text(SWEEP)
    done = _ccscope(installed, "sweep", "two.toml", "--store", "two.duckdb", "--jobs", "1")
    assert "2 runs: 2 run" in done.stdout
    _ccscope(installed, "report", "two.duckdb", "--output", "two.html")
    assert (home / "two.html").stat().st_size > 0


def test_no_module_reads_files_beside_the_package():
    """An installed package has no source tree around it: files a module needs at run time
    are package data (``ccscope.scenario.shipped()``, ``importlib.resources``)."""
    import re

    beside = re.compile(r"__file__\)(\.resolve\(\))?\.parents")
    found = [
        str(f.relative_to(ROOT))
        for f in (ROOT / "python" / "ccscope").rglob("*.py")
        if beside.search(f.read_text(encoding="utf-8"))
    ]
    assert not found, f"these modules read files beside the package: {found}"
