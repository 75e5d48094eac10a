"""`ccscope scorecard`: one controller beside TCP and theory, its packet runs cached in a store."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ccscope import scorecard, sweep
from ccscope.cli import app


@pytest.fixture(scope="module")
def tcp_card(tmp_path_factory):
    store = tmp_path_factory.mktemp("sc") / "s.duckdb"
    return scorecard.scorecard("tcp", quick=True, store=store, jobs=2), store


def rows(card) -> dict:
    return {r["quantity"]: r for r in card["rows"]}


def test_every_section_is_there(tcp_card):
    card, _ = tcp_card
    assert {r["section"] for r in card["rows"]} == {"theory", "round model", "packet model"}
    for r in card["rows"]:
        assert set(r) == {"section", "quantity", "theory", "controller", "tcp", "source"}


def test_tcp_beside_itself_agrees_with_theory(tcp_card):
    card, _ = tcp_card
    by = rows(card)
    # Loguinov & Radha (28) is exact for synchronized flows; the round model is within 1%.
    eff = by["efficiency, 10 flows on W = 100"]
    assert eff["controller"] == pytest.approx(eff["theory"], rel=0.01)
    # Jin et al. App. C.1: T1 = (W − W1 − W2)/2 for TCP; one step of rounding allowed.
    t1 = by["T1: RTTs to efficiency from (8.8, 13.8), W = 110"]
    assert abs(t1["controller"] - t1["theory"]) <= 1
    # TCP against TCP: the friendliness ratio is 1 within the packet-level tolerance the
    # TFRC-vs-TCP check uses ([0.7, 1.4]).
    for queue in ("RED", "DropTail"):
        ratio = by[f"TCP-friendliness ratio on {queue} (2 flows + 2 TCP, 10 Mb/s)"]["controller"]
        assert 0.7 <= ratio["mean"] <= 1.4, queue


def test_a_second_scorecard_reuses_the_store(tcp_card):
    card, store = tcp_card
    before = len(sweep.load(store))
    again = scorecard.scorecard("tcp", quick=True, store=store, jobs=1)
    assert len(sweep.load(store)) == before
    assert again["rows"] == card["rows"]


def test_cli_scorecard(tcp_card):
    _, store = tcp_card
    runner = CliRunner()
    done = runner.invoke(app, ["scorecard", "tcp", "--quick", "--store", str(store), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["controller"] == "TCP"
    text = runner.invoke(app, ["scorecard", "tcp", "--quick", "--store", str(store)])
    assert "CoV_time at 2% loss" in text.stdout
    bad = runner.invoke(app, ["scorecard", "tfrc", "--store", str(store)])
    assert bad.exit_code == 2 and "window controller" in bad.output
    bad = runner.invoke(app, ["scorecard", "gaimd", "-p", "beta=2", "--store", str(store)])
    assert bad.exit_code == 2 and "beta" in bad.output
