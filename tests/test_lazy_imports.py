"""`ccscope run` reaches the engine without pandas or matplotlib and writes summary.json from
plain rows exactly as the pandas tables would give them, without numpy or pydantic; a sweep's
worker runs its tasks without pandas or numpy."""

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccscope.engine import _as_table_rows

ROOT = Path(__file__).resolve().parents[1]

value = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.text(max_size=3),
)
rows = st.lists(
    st.dictionaries(st.sampled_from("abcde"), value, max_size=5), min_size=1, max_size=6
)


@settings(deadline=None)
@given(rows)
def test_table_rows_are_what_pandas_gives_back(r):
    expected = pd.DataFrame(r).to_dict(orient="records")
    got = _as_table_rows(r)
    # NaN (pandas' gap) and None (ours) are both gaps; everything else matches in type and value.
    clean = [{k: v for k, v in row.items() if v is not None and v == v} for row in expected]
    assert [{k: v for k, v in row.items() if v is not None} for row in got] == clean
    assert json.dumps(clean) == json.dumps(
        [{k: v for k, v in row.items() if v is not None} for row in got]
    )
    assert [list(row) for row in got] == [list(row) for row in expected]


SMALL = """
[run]
duration = "2s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "1Mbps", delay = "10ms", queue = { kind = "droptail", limit = "20pkts" } }
access = { rate = "100Mbps", delay = "1ms", queue = { kind = "droptail", limit = "50pkts" } }
[[flows]]
source = { kind = "tcp" }
"""
HEAVY = ("numpy", "pandas", "matplotlib", "pydantic", "pyarrow")


@pytest.mark.parametrize("quiet", [True, False])
def test_run_without_plot_or_trace_loads_no_heavy_module(tmp_path, quiet):
    scenario = tmp_path / "small.toml"
    scenario.write_text(SMALL)
    argv = [
        "ccscope",
        "run",
        str(scenario),
        "--out",
        str(tmp_path / "o"),
        "--no-plot",
        *(["-q"] if quiet else []),
    ]
    probe = (
        "import sys\nfrom ccscope.cli import main\n"
        f"sys.argv = {argv!r}\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        f"print(sorted(m for m in {HEAVY} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out.strip().splitlines()[-1] == "[]"
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["flows"][0]["delivered_pkts"] > 0


def test_sweep_task_runs_without_pandas_or_numpy(tmp_path):
    (tmp_path / "small.toml").write_text(SMALL)
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('base = "small.toml"\nseeds = [1]\n')
    probe = (
        "import sys\nfrom ccscope import sweep\n"
        f"[task] = sweep.load_sweep({str(sweep)!r}).tasks()\n"
        "record = sweep.execute(task)\n"
        "assert record['status'] == 'ok', record['error']\n"
        "print(record['metrics']['throughput_bps'] > 0, record['flows'][0]['flow'])\n"
        f"print(sorted(m for m in {HEAVY} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out.strip().splitlines() == ["True 0", "[]"]
