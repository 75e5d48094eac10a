"""Results show themselves: ``repr`` is the scenario in one line over the head of the per-flow
table, ``_repr_html_`` the same for a notebook."""

import json
from pathlib import Path

import pytest

import ccscope
from ccscope import reproduce, roundmodel
from ccscope.display import HEAD_ROWS
from ccscope.sweep import Outcome

ROOT = Path(__file__).resolve().parents[1]
SHORT = {"run.duration": "15s", "run.warmup": "5s"}


@pytest.fixture(scope="module")
def result():
    return ccscope.run(ccscope.load(ROOT / "scenarios" / "dumbbell-mix.toml", SHORT))


def test_a_result_shows_its_scenario_and_flows(result):
    text = repr(result)
    first, *rows = text.splitlines()
    assert first.startswith("<ccscope.Result: packet model, dumbbell, bottleneck ")
    assert f"{result.scenario.n_flows} flows: 2 tcp, 2 gaimd, 2 tfrc, 1 cbr" in first
    assert "15s (warm-up 5s), seed 1, from " in first
    assert rows[0].split() == ["flow", "label", *_shown_columns(result)]
    assert len(rows) == 1 + HEAD_ROWS + 1 and rows[-1] == "... 2 more rows"
    page = result._repr_html_()
    assert page.startswith("<p><b>ccscope.Result</b>") and page.count("<tr") == 1 + 7


def _shown_columns(result):
    return [c for c in result.SHOWN[2:] if c in result.flows]


def test_a_round_result_shows_its_link_and_totals():
    sc = ccscope.load(ROOT / "scenarios" / "round-loguinov-fig5.toml", {"run.steps": 2500})
    r = roundmodel.run(sc)
    first = repr(r).splitlines()[0]
    assert first.startswith("<ccscope.RoundResult: round model, link 1544kbps rtt 100ms; ")
    assert "100 flows: 100 rate-aimd; 2500 steps (warm-up 2000)" in first
    assert f"loss rate {r.loss_rate:.4g}" in first
    assert "<table" in r._repr_html_()


def test_a_reproduction_shows_its_claims_and_stays_a_dict():
    report = reproduce.run("cai-fig14", quick=True)
    first = repr(report).splitlines()[0]
    holds = sum(row["holds"] for row in report["rows"])
    assert first.startswith("<ccscope reproduction: cai-fig14: ")
    assert first.endswith(f"{holds} of {len(report['rows'])} claims hold>")
    assert json.loads(json.dumps(report))["id"] == "cai-fig14"
    assert "<table" in report._repr_html_()


def test_a_sweep_outcome_shows_its_counts_and_errors():
    done = Outcome(total=3, ran=2, skipped=1, failed=1, errors={"abc": "bad <thing>"})
    text = repr(done)
    assert text.startswith(
        "<ccscope.sweep.Outcome: 3 runs: 2 run, 1 already in the store, 1 failed>"
    )
    assert "abc" in text and "bad <thing>" in text
    assert "bad &lt;thing&gt;" in done._repr_html_()
    assert repr(Outcome(total=0)) == (
        "<ccscope.sweep.Outcome: 0 runs: 0 run, 0 already in the store, 0 failed>"
    )
