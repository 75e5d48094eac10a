"""Same scenario and seed, same bytes: every output file of every example scenario, from two
separate processes."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
EXAMPLES = sorted((ROOT / "scenarios").glob("*.toml"))


def outputs(scenario: Path, out: Path) -> dict[str, bytes]:
    p = subprocess.run([sys.executable, "-m", "ccscope", "run", str(scenario), "--out", str(out),
                        "--no-plot", "-q"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return {f.name: f.read_bytes() for f in sorted(out.iterdir())}


@pytest.mark.parametrize("scenario", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_two_processes_write_identical_files(scenario, tmp_path):
    first = outputs(scenario, tmp_path / "a")
    second = outputs(scenario, tmp_path / "b")
    assert "summary.json" in first
    assert first.keys() == second.keys()
    for name in first:
        assert first[name] == second[name], name
