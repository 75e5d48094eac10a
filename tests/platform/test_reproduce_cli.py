"""`ccscope reproduce`: the registry, its outputs, and the validation page's table generated from
it (docs/validation.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from docpages import marked
from typer.testing import CliRunner

from ccscope import reproduce
from ccscope.cli import app
from ccscope.experiments.claims import PRINTED, UNSOURCED, Claim

runner = CliRunner()


def test_list_names_every_entry():
    done = runner.invoke(app, ["reproduce", "--list", "--json"])
    assert done.exit_code == 0
    assert [e["id"] for e in json.loads(done.stdout)] == list(reproduce.REGISTRY)
    text = runner.invoke(app, ["reproduce", "--list"])
    assert all(rid in text.stdout for rid in reproduce.REGISTRY)


def test_one_reproduction_as_json_has_the_documented_shape():
    done = runner.invoke(app, ["reproduce", "jin-table6", "--quick", "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert {"id", "title", "source", "rows", "ns2_note"} <= set(report)
    assert report["id"] == "jin-table6"
    for row in report["rows"]:
        assert set(row) == {
            "quantity",
            "published",
            "measured",
            "tolerance",
            "holds",
            "why",
            "source",
            "key",
            "ns2",
        }
        assert isinstance(row["holds"], bool)
    text = runner.invoke(app, ["reproduce", "jin-table6", "--quick"])
    assert "T2 ranking" in text.stdout and "why not" in text.stdout


@pytest.mark.parametrize("args", [["nope"], [], ["jin-table6", "--all"]])
def test_bad_requests_exit_2(args):
    done = runner.invoke(app, ["reproduce", *args])
    assert done.exit_code == 2


def test_a_claim_that_fails_must_say_why():
    with pytest.raises(ValueError, match="gives no reason"):
        Claim("x", 1.0, 2.0, "within 1%", False, source=PRINTED + ": 1.0")
    assert Claim("x", 1.0, 1.0, "within 1%", True, source=PRINTED).to_dict()["holds"] is True


def test_a_claim_must_say_where_its_tolerance_comes_from():
    with pytest.raises(ValueError, match="source"):
        Claim("x", 1.0, 1.0, "within 1%", True)
    with pytest.raises(ValueError, match="source"):
        Claim("x", 1.0, 1.0, "within 1%", True, source="because it passes")


def test_every_tolerance_on_the_validation_page_has_a_source():
    # The quick table; tests/validation/test_reproduce.py checks every row it runs (the full
    # and the real-time ones too).
    assert UNSOURCED not in marked("validation.md", "ccscope reproduce --all --quick --markdown")


def test_failing_lists_the_claims_that_do_not_hold_with_their_reasons():
    reports = [
        {
            "id": "demo",
            "rows": [
                Claim("x", 1.0, 1.0, "± 0.1", True, source=PRINTED).to_dict(),
                Claim("y", 1.0, 2.0, "± 0.1", False, "the reason", source=PRINTED).to_dict(),
            ],
        }
    ]
    assert reproduce.markdown(reports, failing=True).splitlines()[2:] == [
        "| `demo` | y | 1 | 2 | ± 0.1 | the reason |"
    ]
    done = runner.invoke(app, ["reproduce", "jin-table6", "--quick", "--failing"])
    assert done.exit_code == 2 and "--failing goes with --markdown" in done.output


def test_registering_is_one_entry(monkeypatch):
    entry = reproduce.Reproduction(
        "demo-fig1", "demo", "nobody 2024, Fig. 1", "ccscope.experiments.jin:table6_claims"
    )
    monkeypatch.setitem(reproduce.REGISTRY, entry.id, entry)
    assert reproduce.run("demo-fig1", quick=True)["rows"]
    assert "demo-fig1" in [e["id"] for e in reproduce.listing()]


def test_figures_are_drawn_where_asked(tmp_path):
    done = runner.invoke(
        app, ["reproduce", "cai-fig14", "--quick", "--json", "--figures", str(tmp_path)]
    )
    assert done.exit_code == 0, done.output
    figure = Path(json.loads(done.stdout)["figure"])
    assert figure == tmp_path / "cai-fig14.png"
    assert figure.read_bytes()[:4] == b"\x89PNG"
    assert "figure" not in reproduce.run("jin-table6", quick=True, figures=tmp_path)
