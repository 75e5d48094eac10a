"""Yang et al.'s Table 1 beside ns-2.35: docs/validation.md's table is the output of
`python bench/ns2_compare_yang.py`, and D's runs are ns-2.35's (make validate installs ns-2.35;
without `ns` these fail)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from docpages import marked

from ccscope import ns2column

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import ns2_compare_yang as bench  # noqa: E402


@pytest.mark.slow
def test_the_validation_page_table_is_the_output_of_the_bench():
    assert shutil.which("ns"), "ns-2.35 is needed: make ns2"
    pasted = marked("validation.md", "python bench/ns2_compare_yang.py")
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "ns2_compare_yang.py")],
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )
    assert pasted == done.stdout, "stale: paste the output of bench/ns2_compare_yang.py"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["TCP", "GAIMD(0.31,0.875)"])
def test_responsiveness_is_ns2s_run_for_run(name):
    """D's runs draw nothing at random and lose the same packets in both simulators (the first
    serialized after each grid time), so with ns-2.35's rules TCP's and GAIMD's D are ns-2.35's
    run for run; each run starts the flow at its own moment."""
    assert shutil.which("ns"), "ns-2.35 is needed: make ns2"
    _, rules, agent, _ = bench.CASES[name]
    for seed in (1, 4, 7):
        assert bench.responsiveness_ccscope(rules, seed) == bench.responsiveness_ns2(agent, seed)


@pytest.mark.slow
def test_tfrc_responsiveness_matches_ns2():
    """TFRC's D moves with its packets' phase against the loss grid: the means over ten starts
    agree by the ns-2.35 column's rule."""
    assert shutil.which("ns"), "ns-2.35 is needed: make ns2"
    _, rules, agent, _ = bench.CASES["TFRC"]
    seeds = range(1, 11)
    ours = [bench.responsiveness_ccscope(rules, s) for s in seeds]
    theirs = [bench.responsiveness_ns2(agent, s) for s in seeds]
    assert ns2column.agree_means(theirs, ours), (theirs, ours)
