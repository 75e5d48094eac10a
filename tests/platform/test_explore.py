"""`ccscope reproduce ID --explore NAME=LOW:HIGH[:N]`: the grid of a paper's unprinted set-up,
run in parallel, stored, and where each claim holds."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from ccscope import explore, reproduce
from ccscope.cli import app
from ccscope.errors import ScenarioError

KNOBS = reproduce.get("papadimitriou-fig3").knob_table()
runner = CliRunner()


def test_an_axis_is_n_even_steps():
    assert explore.parse("buffer_bdp=0.25:2:8", KNOBS).values == (
        0.25,
        0.5,
        0.75,
        1.0,
        1.25,
        1.5,
        1.75,
        2.0,
    )
    assert len(explore.parse("video_kbps=100:900", KNOBS).values) == 5
    axes = [explore.parse(s, KNOBS) for s in ("video_kbps=1:2:2", "buffer_bdp=1:3:3")]
    assert explore.grid(axes)[:2] == [
        {"video_kbps": 1.0, "buffer_bdp": 1.0},
        {"video_kbps": 1.0, "buffer_bdp": 2.0},
    ]


@pytest.mark.parametrize(
    "spec",
    ["nope=1:2", "video_kbps=2:1", "video_kbps=1", "video_kbps=a:b", "video_kbps=1:2:1"]
    + ["video_kbps=1:2:99", "video_kbps=1:inf", "video_kbps=1:2:3:4"],
)
def test_a_bad_axis_names_the_option_the_text_and_the_knobs(spec):
    with pytest.raises(ScenarioError) as e:
        explore.parse(spec, KNOBS)
    assert e.value.path == "--explore" and spec in str(e.value)
    assert "video_kbps, buffer_bdp" in str(e.value)


def test_the_cli_refuses_bad_requests_in_one_line():
    for args in (
        ["reproduce", "papadimitriou-fig3", "--explore", "nope=1:2"],
        ["reproduce", "loguinov-fig4", "--explore", "x=1:2"],
        ["reproduce", "--all", "--explore", "video_kbps=1:2"],
    ):
        done = runner.invoke(app, args)
        assert done.exit_code == 2, done.output
        assert done.output.strip().count("\n") == 0, done.output
    done = runner.invoke(app, ["reproduce", "loguinov-fig4", "--explore", "x=1:2"])
    assert "has no set-up to explore" in done.output


def test_parallel_points_are_the_serial_ones_and_are_stored(tmp_path):
    axes = [explore.parse("buffer_bdp=0.5:2:2", KNOBS)]
    store = tmp_path / "e.duckdb"
    told = {1: [], 2: []}
    parallel = explore.run(
        "papadimitriou-fig3", axes, jobs=2, store=store, progress=lambda *a: told[2].append(a)
    )
    serial = explore.run("papadimitriou-fig3", axes, jobs=1, progress=lambda *a: told[1].append(a))
    pd.testing.assert_frame_equal(parallel, serial)
    # Progress is told per point, whichever way the points run.
    assert told[1] == told[2] == [(1, 2), (2, 2)]
    meta, stored = explore.load(store)
    assert meta["id"] == "papadimitriou-fig3" and explore.is_store(store)
    pd.testing.assert_frame_equal(stored, parallel, check_dtype=False)
    # Each point is the reproduction run with that set-up, claim for claim.
    claims = reproduce.get("papadimitriou-fig3").claims(False, {"buffer_bdp": 2.0})
    at_2 = parallel[parallel["buffer_bdp"] == 2.0]
    assert list(at_2["quantity"]) == [c.quantity for c in claims]
    assert list(at_2["holds"]) == [c.holds for c in claims]


def test_the_assumed_set_up_is_the_reproduction():
    # Exploring at the assumed values gives the unexplored run's verdicts.
    assumed = {k: v.assumed for k, v in KNOBS.items()}
    plain = reproduce.get("papadimitriou-fig3").claims(False)
    explored = reproduce.get("papadimitriou-fig3").claims(False, assumed)
    assert [(c.quantity, c.measured) for c in plain] == [(c.quantity, c.measured) for c in explored]


def test_cai_fig16_assumes_what_its_scenario_file_holds():
    # The knobs' assumed values are the set-up the reproduction runs: the access line's queue
    # and 60 mouse arrivals per unit of n (n = 1 in the file: 60 arrivals over 300 s).
    from ccscope.scenario import load, shipped

    knobs = reproduce.get("cai-fig16").knob_table()
    sc = load(shipped("cai-fig16-access.toml")).table
    assert (
        f"{knobs['access_queue_pkts'].assumed:g}pkts"
        == sc["topology"]["links"][4]["queue"]["limit"]
    )
    assert knobs["arrivals_per_mouse"].assumed == sc["flows"][2]["count"]
    assert float(sc["run"]["duration"].rstrip("s")) / 5 == sc["flows"][2]["count"]


def test_regions_say_where_each_claim_holds():
    table = pd.DataFrame(
        {
            "a": [1.0, 1.0, 2.0, 2.0],
            "b": [10.0, 20.0, 10.0, 20.0],
            "quantity": ["q"] * 4,
            "holds": [True, False, False, False],
            "measured": ["1"] * 4,
        }
    )
    (r,) = explore.regions(table)
    assert (r["holds_at"], r["points"], r["where"]) == (1, 4, {"a": [1.0], "b": [10.0]})
    assert "| q | 1 of 4 | 1 | 10 |" in explore.markdown("x", table)


#: The validation page's explorations: the command between each pair of markers, and its output.
PAGE = (Path(__file__).parents[2] / "docs" / "validation.md").read_text()
BLOCKS = re.findall(
    r"<!-- (ccscope reproduce [^>]*--explore[^>]*): begin -->\n(.*?)<!-- \1: end -->", PAGE, re.S
)


def test_the_validation_page_has_explorations():
    assert {shlex.split(c)[2] for c, _ in BLOCKS} == {
        "papadimitriou-fig3",
        "papadimitriou-fig4-8",
        "cai-table1",
        "cai-fig16",
    }


@pytest.mark.slow
@pytest.mark.parametrize(("command", "pasted"), BLOCKS, ids=[c.split()[2] for c, _ in BLOCKS])
def test_the_validation_page_explorations_are_the_output_of_their_commands(command, pasted):
    done = runner.invoke(app, shlex.split(command)[1:])
    assert done.exit_code == 0, done.output
    assert pasted == done.stdout, (
        f"docs/validation.md's block is stale: paste the output of `{command}`"
    )
