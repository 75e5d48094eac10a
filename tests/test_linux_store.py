"""Linux's side of the ground truth, stored (ccscope.experiments.linux.STORE): what a --store
run writes, how the pages' tables read it beside the model's runs made fresh, and
`ccscope reproduce linux-* --stored`. No real-time run here: the stored runs are the committed
ones, the model's side is the packet engine."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from docpages import marked

from ccscope import _core, reproduce
from ccscope.errors import ScenarioError
from ccscope.experiments import linux

ROOT = Path(__file__).resolve().parents[1]


def test_a_stored_entry_keeps_the_runs_and_where_they_ran(tmp_path):
    store = tmp_path / "runs.json"
    case = linux.QUICK[0]
    runs = [
        {"throughput_bps": 9.9e6, "loss_rate": 0.002},
        {"throughput_bps": 9.7e6, "loss_rate": 0},
    ]
    linux.store_runs("quick", "reno", case, runs, [1.5, 2.25], linux.QUICK_RUN, "cmd", store)
    linux.store_runs("full", "reno", linux.QUICK[1], runs[:1], [3.0], linux.FULL_RUN, "c2", store)
    entry = linux.stored_runs("quick", "reno", case, store)
    assert entry["runs"] == runs and entry["count"] == 2 and entry["load"] == [1.5, 2.25]
    assert entry["run"] == linux.QUICK_RUN and entry["command"] == "cmd"
    assert entry["kernel"] and entry["date"].endswith("UTC")
    assert entry["model_version"] == _core.MODEL_VERSION
    # A second store replaces the entry of its key and keeps the others.
    linux.store_runs("quick", "reno", case, runs[1:], [4.0], linux.QUICK_RUN, "c3", store)
    assert linux.stored_runs("quick", "reno", case, store)["count"] == 1
    assert linux.stored_runs("full", "reno", linux.QUICK[1], store)["command"] == "c2"
    assert linux.mean_values(runs) == {"throughput_bps": 9.8e6, "loss_rate": 0.001}
    label = linux.stored_label([entry, linux.stored_runs("full", "reno", linux.QUICK[1], store)])
    assert "from 1-2 stored run(s)" in label and "load average 1.5-3.0" in label
    assert f", model version {_core.MODEL_VERSION}," in label
    # Entries stored before the model version was recorded: none is named.
    del entry["model_version"]
    assert "model version" not in linux.stored_label(entry)


def test_a_path_without_stored_runs_names_the_command_that_stores_them(tmp_path):
    with pytest.raises(ScenarioError) as e:
        linux.stored_runs("full", "cubic", linux.QUICK[0], tmp_path / "none.json")
    assert "python bench/linux_spread.py --grid --cc cubic --store" in str(e.value)


def test_the_marks_say_where_the_verdict_holds_over_linuxs_runs():
    # The claim holds for x in [model / 1.1, model / 0.9] = [9.09, 11.1] (rel 10%).
    assert linux.verdict_mark(np.array([10.0, 10.2, 9.8]), 10.0, 0.1) == ""
    assert linux.verdict_mark(np.array([12.0, 12.2, 11.8]), 10.0, 0.1) == " †"
    assert linux.verdict_mark(np.array([10.0, 12.0, 11.0]), 10.0, 0.1) == " ~"
    # One run: beyond the tolerance or not; a model at 0 against any loss fails.
    assert linux.verdict_mark(np.array([11.5]), 10.0, 0.1) == " †"
    assert linux.verdict_mark(np.array([0.004]), 0.0, 0.5) == " †"


def test_the_marks_band_is_at_least_the_spread_the_tolerance_rests_on():
    # Three close runs alone (σ 0.2) keep [9.5, 10.5] inside [9.09, 11.1]; at a measured σ of
    # 10% of one run the band is 10 ± 2.5, and the verdict changes within it.
    runs = np.array([10.0, 10.2, 9.8])
    assert linux.verdict_mark(runs, 10.0, 0.1, sd_rel=0.01) == ""
    assert linux.verdict_mark(runs, 10.0, 0.1, sd_rel=0.1) == " ~"
    # One run held as stored: far enough that even the wide band fails throughout.
    assert linux.verdict_mark(np.array([20.0]), 10.0, 0.1, sd_rel=0.1) == " †"


def test_reproduce_stored_is_offered_by_the_ground_truth_only():
    with pytest.raises(ScenarioError) as e:
        reproduce.run("linux-friendliness", quick=True, stored=True)
    assert e.value.path == "--stored" and "linux-reno, linux-cubic, linux-bbr" in str(e.value)


def test_the_cli_refuses_stored_for_another_reproduction_in_one_line():
    p = subprocess.run(
        [sys.executable, "-m", "ccscope", "reproduce", "loguinov-fig4", "--stored"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [
        "error: --stored = 'loguinov-fig4': only linux-reno, linux-cubic, linux-bbr have stored "
        "runs"
    ]


def test_reproduce_stored_takes_linuxs_side_from_the_store_and_says_so():
    report = reproduce.run("linux-reno", quick=True, stored=True)
    model = linux.measure(list(linux.QUICK), "reno", "model", linux.QUICK_RUN)
    rows = {r["quantity"]: r for r in report["rows"]}
    for k, case in enumerate(linux.QUICK):
        mean = linux.mean_values(linux.stored_runs("quick", "reno", case)["runs"])
        for metric in linux.METRICS:
            row = rows[linux.quantity("reno", case, metric, stored=True)]
            assert "Linux reno, stored runs," in row["quantity"]
            assert "stored run(s)" in row["source"] and "linuxruns.json" in row["source"]
            assert row["published"] == round(mean[metric], 6)
            assert row["measured"] == round(model[k][metric], 6)


def test_a_lone_reno_flow_acking_every_packet_loses_one_packet_an_overflow():
    """Reno's window grows by at most one packet a round trip (RFC 5681 §3.1), so with an ACK
    for every packet the buffer overflows by one packet, once a sawtooth."""
    (lone,) = linux.drop_episodes((linux.QUICK[0],), "reno", "model")
    assert lone["overflows"] >= 10 and lone["drops_per_overflow"] == 1 and lone["gap_ms"] == 0


@pytest.mark.parametrize("table", ["quick", "friendliness", "episodes"])
def test_the_pages_tables_are_their_command(table):
    command = f"python docs/linux_tables.py {table}"
    p = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "linux_tables.py"), table],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    assert marked("realnet.md", command) == p.stdout, (
        f"docs/realnet.md's table is stale: python docs/tables.py --match='{command}'"
    )


@pytest.mark.slow
@pytest.mark.parametrize("cc", ["reno", "cubic", "bbr"])
def test_the_pages_grid_table_is_its_command(cc):
    """The full grid's model side: 72 packet-engine runs of 60 s (minutes: `make validate`)."""
    command = f"python docs/linux_tables.py grid {cc}"
    assert marked("realnet.md", command) == linux.grid_table(cc), (
        f"docs/realnet.md's grid table is stale: python docs/tables.py --match='{command}'"
    )


def test_a_grid_path_where_the_model_resends_more_than_it_loses_reads_as_its_timeouts():
    """The model's retransmissions above its losses are packets resent that were not lost (its
    go-back-N after a timeout); Linux's equal to its losses are not."""
    case = linux.Case(1, 100, 20, 1, 0.01)
    theirs = {"loss_rate": 0.0102, "retransmit_rate": 0.0103, "throughput_bps": 9.5e7}
    mine = {"loss_rate": 0.019, "retransmit_rate": 1.0, "throughput_bps": 9.3e4}
    bbr = linux.grid_diagnosis("bbr", case, "throughput_bps", theirs, mine)
    reno = linux.grid_diagnosis("reno", case, "throughput_bps", theirs, mine)
    assert bbr == reno == linux.LOST_RETRANSMISSIONS
    assert "go-back-N" in bbr and "loss probe" in bbr
    mine["retransmit_rate"] = 0.0191
    assert "go-back-N" not in linux.grid_diagnosis("bbr", case, "throughput_bps", theirs, mine)
