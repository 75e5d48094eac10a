"""The validation table's ns-2.35 column (ccscope.ns2column): every reproduction has stored
cells or a reason for having none, the table shows cells, disagreements and blanks, and a
stored cell is what its bench script computes afresh."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ccscope import ns2column, reproduce
from ccscope.experiments.claims import STATEMENT, Claim

ROOT = Path(__file__).resolve().parents[1]
STORED = ns2column.load()
FIELDS = {"ns2", "ccscope", "agree", "compared", "seeds", "command", "model_version"}
#: A cell carried across a model-version change also says from which version and by what.
RESTAMPED = FIELDS | {"restamped"}


def test_every_reproduction_has_cells_or_a_reason_for_none():
    for rid in reproduce.REGISTRY:
        assert (rid in STORED) != (rid in ns2column.BLANK), rid
    assert set(ns2column.PARTIAL) <= set(STORED)
    assert set(STORED) <= set(reproduce.REGISTRY)


def test_every_cell_names_its_command_seeds_and_model_version():
    for rid, cells in STORED.items():
        for key, cell in cells.items():
            assert set(cell) in (FIELDS, RESTAMPED), (rid, key)
            assert cell["command"].startswith("python bench/ns2_compare_"), (rid, key)
            assert "--store" in cell["command"] and "--quick" not in cell["command"]
            if "restamped" in cell:
                assert cell["restamped"]["measured_at"] < cell["model_version"], (rid, key)
                assert "--store --restamp" in cell["restamped"]["command"], (rid, key)


def test_a_cell_is_restamped_only_if_its_ccscope_side_is_unchanged(tmp_path):
    """ns2column.restamp carries a cell to this model version when ccscope's side recomputes
    to the stored text to the character and over the same seeds; anything else is left for
    the bench script to measure afresh."""
    from ccscope import _core

    path = tmp_path / "store.json"
    cell = {"ns2": "1.0 ± 0.1", "ccscope": "1.02 ± 0.1", "agree": True, "compared": "x"}
    ns2column.store("r", {"k": {**cell, "seeds": "1-5"}}, "python bench/b.py --store", path)
    # Stored at an older version, as after an engine change.
    data = json.loads(path.read_text())
    data["reproductions"]["r"]["k"]["model_version"] = _core.MODEL_VERSION - 1
    path.write_text(json.dumps(data))
    again = "python bench/b.py --store --restamp"
    assert not ns2column.restamp("r", "k", "1.020 ± 0.1", "1-5", again, path)
    assert not ns2column.restamp("r", "k", "1.02 ± 0.1", "1-10", again, path)
    assert not ns2column.restamp("r", "other", "1.02 ± 0.1", "1-5", again, path)
    assert ns2column.load(path)["r"]["k"]["model_version"] == _core.MODEL_VERSION - 1
    assert ns2column.restamp("r", "k", "1.02 ± 0.1", "1-5", again, path)
    got = ns2column.load(path)["r"]["k"]
    assert got["model_version"] == _core.MODEL_VERSION
    assert got["restamped"] == {"measured_at": _core.MODEL_VERSION - 1, "command": again}
    assert {k: got[k] for k in cell} == cell and got["command"] == "python bench/b.py --store"
    # A second re-stamp keeps the version the cell was measured at.
    assert ns2column.restamp("r", "k", "1.02 ± 0.1", "1-5", again, path)
    assert ns2column.load(path)["r"]["k"]["restamped"]["measured_at"] == _core.MODEL_VERSION - 1
    # Measuring afresh replaces the whole cell: no re-stamp left on it.
    ns2column.store("r", {"k": {**cell, "seeds": "1-5"}}, again, path)
    assert "restamped" not in ns2column.load(path)["r"]["k"]
    # A cell measured at this version has nothing to carry: re-stamping leaves it as it is.
    before = ns2column.load(path)["r"]["k"]
    assert ns2column.restamp("r", "k", "1.02 ± 0.1", "1-5", again, path)
    assert ns2column.load(path)["r"]["k"] == before


def test_agree_means_flags_a_true_agreement_at_the_three_sigma_rate():
    """Two five-seed samples of one normal run disagree by the rule at most as often as a normal
    falls beyond 3σ (0.27%): over 5000 pairs at most 13.5 expected, and 25 is 3 binomial standard
    deviations above that. ("Within 3 standard errors", which takes the estimated standard
    errors as known, flagged about 1.7% of such pairs.) A difference of five per-run standard
    deviations is flagged in nearly every pair (t ≈ 7.9)."""
    rng = np.random.default_rng(7)
    pairs = rng.normal(size=(5000, 2, 5))
    false = sum(not ns2column.agree_means(list(a), list(b)) for a, b in pairs)
    assert false <= 25, false
    flagged = sum(not ns2column.agree_means(list(a), list(b + 5.0)) for a, b in pairs[:500])
    assert flagged >= 0.95 * 500, flagged
    assert ns2column.agree_means([2.0, 2.0], [2.0, 2.0])
    assert not ns2column.agree_means([2.0, 2.0], [2.5, 2.5])
    # Runs that settle the same value, printed to six decimals and divided by a flow count:
    # equal to rounding, where a t-test's variances are rounding noise.
    same = [13.752 / 5, 13.752 / 5 + 4e-16, 13.752 / 5]
    assert ns2column.agree_means(same, [13.752 / 5] * 3)


def _report(rows: list[Claim], rid: str = "yang-table1") -> dict:
    report = {"id": rid, "rows": [c.to_dict() for c in rows]}
    return ns2column.attach(report, STORED_FAKE)


STORED_FAKE = {
    "yang-table1": {
        "a": {"ns2": "1.0 ± 0.1", "ccscope": "1.02 ± 0.1", "agree": True, "seeds": "1-10"},
        "b": {
            "ns2": "2.0 ± 0.1",
            "ccscope": "1.0 ± 0.1",
            "agree": False,
            "seeds": "1-10",
            "compared": ns2column.AGREE_MEANS,
            "command": "python bench/ns2_compare_yang.py --store",
            "model_version": 3,
        },
    }
}


def _claim(key: str, holds: bool) -> Claim:
    return Claim(
        f"q{key}", 1.0, 1.5, "± 0.1", holds, "" if holds else "off", source=STATEMENT, key=key
    )


def test_markdown_shows_a_cell_a_disagreement_and_a_blank():
    rows = [_claim("a", False), _claim("b", True), _claim("", True)]
    blank = ns2column.attach({"id": "cai-eq13", "rows": [_claim("", True).to_dict()]}, {})
    text = reproduce.markdown([_report(rows), blank])
    lines = text.splitlines()
    assert lines[0].split(" | ")[2:5] == ["paper", "ns-2.35", "ccscope"]
    assert "| 1 | 1.0 ± 0.1 | 1.5 |" in lines[2]
    # A failing claim that ccscope with ns-2.35's rules shares with ns-2.35 says so.
    assert "ns-2.35 on the same set-up gives 1.0 ± 0.1" in text
    assert "| 2.0 ± 0.1 ≠ ccscope (N1) |" in lines[3]
    assert (
        "(N1) yang-table1 b: ns-2.35 gives 2.0 ± 0.1 and ccscope with ns-2.35's rules 1.0" in text
    )
    assert "a ccscope defect until shown otherwise" in text
    # yang-table1's rows without a key carry its partial note; cai-eq13's its blank.
    assert "| — (N2) |" in lines[4] and "| — (N3) |" in lines[5]
    assert f"(N3) cai-eq13: {ns2column.BLANK['cai-eq13']}." in text


def test_run_attaches_the_stored_cells():
    report = reproduce.run("cai-eq13", quick=True)
    assert report["ns2_note"] == ns2column.BLANK["cai-eq13"]
    assert all(row["ns2"] is None for row in report["rows"])


def _bench():
    sys.path.insert(0, str(ROOT / "bench"))
    import ns2_compare_yang

    return ns2_compare_yang


#: The cell the tests recompute: yang-table1's TCP CoV_time at 2% (one flow, 1000 s a seed).
CELL = ("yang-table1", "cov_2/TCP", "TCP", 0.02)


def _seeds(cell: dict) -> range:
    first, last = (int(s) for s in cell["seeds"].split("-"))
    return range(first, last + 1)


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 (`ns`) is not installed: make ns2")
def test_a_stored_cell_is_what_its_bench_script_computes():
    """ns-2.35's CoV_time over the stored seeds (seconds of ns-2) is the stored value to the
    digit: ns-2's runs are deterministic by seed."""
    bench = _bench()
    rid, key, name, p = CELL
    cell = STORED[rid][key]
    agent = bench.CASES[name][2]
    assert bench.cell([bench.cov_ns2(agent, p, s) for s in _seeds(cell)]) == cell["ns2"]


#: Draws per generator and run, and the loss rate whose drops the runs must not share.
DRAWS, P = 20_000, 0.01


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 (`ns`) is not installed: make ns2")
def test_ns2_runs_draw_independently(tmp_path):
    """bench/ns2_rng.tcl's runs 1-6 drop (a uniform below P) in common only as independent
    runs would. Two independent runs share a drop with probability P², so a pair of runs has
    Binomial(DRAWS, P²) shared drops, mean 2; at most 12 holds with probability 1 − 1.6e-7 a
    pair. With `$rng seed RUN`, run 2 drops on nearly every draw where run 1 drew below P/2
    (MRG32k3a is linear in its seed), about DRAWS·P/2 = 100 shared drops."""
    script = tmp_path / "draws.tcl"
    script.write_text(
        f"source {ROOT / 'bench' / 'ns2_rng.tcl'}\n"
        "set ns [new Simulator]\n"
        "set run [lindex $argv 0]\n"
        "seed_run $run\n"
        "set own [run_rng $run]\n"
        f"for {{set i 0}} {{$i < {DRAWS}}} {{incr i}} "
        '{ puts "[$defaultRNG uniform 0 1] [$own uniform 0 1]" }\n'
    )
    drops = {}
    for run in range(1, 7):
        out = subprocess.run(
            ["ns", str(script), str(run)], capture_output=True, text=True, check=True
        ).stdout
        draws = [[float(u) for u in line.split()] for line in out.splitlines()]
        assert len(draws) == DRAWS
        for which in (0, 1):
            drops[run, which] = {i for i, d in enumerate(draws) if d[which] < P}
    for which in (0, 1):
        for a in range(1, 7):
            for b in range(a + 1, 7):
                shared = len(drops[a, which] & drops[b, which])
                assert shared <= 12, (which, a, b, shared)


@pytest.mark.slow
def test_a_stored_cells_ccscope_side_is_what_its_bench_script_computes():
    """ccscope with ns-2.35's rules over the stored seeds is the stored value, at the model
    version it was stored at (make validate rewrites the cells after a change)."""
    from ccscope import _core

    bench = _bench()
    rid, key, name, p = CELL
    cell = STORED[rid][key]
    if cell["model_version"] != _core.MODEL_VERSION:
        pytest.skip(f"stored at model version {cell['model_version']}: make validate rewrites it")
    rules = bench.CASES[name][1]
    assert bench.cell([bench.cov_ccscope(p, rules, s) for s in _seeds(cell)]) == cell["ccscope"]
