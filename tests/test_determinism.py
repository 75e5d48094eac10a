"""Same scenario and seed, same bytes: every output file of every example scenario (summary,
traces, the plot), from two separate processes. Real-time examples (run.engine = "udp") are
left out: the scheduler decides their timing (tests/test_realnet.py)."""

import subprocess
import sys
from pathlib import Path

import pytest

import ccscope

ROOT = Path(__file__).parents[1]
EXAMPLES = sorted(p for p in (ROOT / "scenarios").glob("*.toml") if ccscope.load(p).engine != "udp")


def outputs(scenario: Path, out: Path, plot: bool) -> dict[str, bytes]:
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "ccscope",
            "run",
            str(scenario),
            "--out",
            str(out),
            "--plot" if plot else "--no-plot",
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    return {f.name: f.read_bytes() for f in sorted(out.iterdir())}


def test_the_examples_cover_every_kind_of_source_and_output():
    kinds = {
        f["source"]["kind"]
        for p in EXAMPLES
        for f in ccscope.load(p).table.get("flows", [])
        if "source" in f
    }
    assert kinds >= {"tcp", "rate", "cbr", "poisson", "rtp"}
    assert any("trace" in ccscope.load(p).table for p in EXAMPLES)


@pytest.mark.parametrize("scenario", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_two_processes_write_identical_files(scenario, tmp_path):
    # One example also draws its plot; the others skip it to keep the test short.
    plot = scenario.stem == "dumbbell-mix"
    first = outputs(scenario, tmp_path / "a", plot)
    second = outputs(scenario, tmp_path / "b", plot)
    assert "summary.json" in first
    assert first.keys() == second.keys()
    if plot:
        assert "overview.png" in first
    for name in first:
        assert first[name] == second[name], name
