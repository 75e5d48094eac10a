"""ccscope rmcat: RFC 8867's test cases as scenarios, RFC 8868's metrics, the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from docpages import marked

import ccscope
from ccscope import _core, rmcat, sweep
from ccscope.errors import ScenarioError

#: RFC 8867's cases as the RFC gives them, written out here independently of ccscope.rmcat:
#: id -> (duration s, reference capacity b/s, forward schedule [(start s, ratio)], backward
#: schedule, one-way delay ms, queue ms, media flows [(start, end)], TCP flows [(start, end)]).
RFC8867 = {
    # §5.1, Table 1: 1 Mb/s reference, 100 s, one video flow 0-99 s.
    "5.1": (100, 1e6, [(0, 1.0), (40, 2.5), (60, 0.6), (80, 1.0)], None, 50, 300, [(0, 99)], []),
    # §5.2, Table 2: 2 Mb/s reference, 125 s, two flows 0-119 s.
    "5.2": (
        125,
        2e6,
        [(0, 2.0), (25, 1.0), (50, 1.75), (75, 0.5), (100, 1.0)],
        None,
        50,
        300,
        [(0, 119), (0, 119)],
        [],
    ),
    # §5.3, Table 3: forward and backward schedules, one flow each way, 0-99 s.
    "5.3": (
        100,
        1e6,
        [(0, 2.0), (20, 1.0), (40, 0.5), (60, 2.0)],
        [(0, 2.0), (35, 0.8), (70, 2.0)],
        50,
        300,
        [(0, 99), (0, 99)],
        [],
    ),
    # §5.4: 3.5 Mb/s, 120 s, flows starting at 0, 20 and 40 s.
    "5.4": (120, 3.5e6, [(0, 1.0)], None, 50, 300, [(0, 119), (20, 119), (40, 119)], []),
    # §5.6: 2 Mb/s, 120 s, media from 5 s beside a long TCP flow from 0 s.
    "5.6": (120, 2e6, [(0, 1.0)], None, 50, 300, [(5, 119)], [(0, 119)]),
    "5.6-1000ms": (120, 2e6, [(0, 1.0)], None, 50, 1000, [(5, 119)], [(0, 119)]),
    # §5.7: 2 Mb/s, 300 s, two media flows from 5 s, 10 short TCP flows.
    "5.7": (300, 2e6, [(0, 1.0)], None, 50, 300, [(5, 299), (5, 299)], [(0, 299)] * 10),
    # §5.8: 3.5 Mb/s, 120 s, three flows from 0 s; the second pauses at 40 s, resumes at 60 s.
    "5.8": (
        120,
        3.5e6,
        [(0, 1.0)],
        None,
        50,
        300,
        [(0, 119), (0, 119), (0, 119)],
        [],
    ),
}

#: §5.5: 4 Mb/s, 300 s, five flows 10 s apart with one-way delays of 10, 25, 50, 100, 150 ms.
RTT_FAIRNESS = ((10, 25, 50, 100, 150), (0, 10, 20, 30, 40))


def seconds(text: str) -> float:
    return _core.quantity(text)[1]


def flat(pairs) -> list[float]:
    return [float(x) for pair in pairs for x in pair]


def test_every_case_of_rfc8867_section5_is_there():
    assert set(RFC8867) | {"5.5", "6.2", "6.3"} == set(rmcat.BY_ID)


@pytest.mark.parametrize("case_id", list(RFC8867))
def test_each_case_matches_the_rfc(case_id):
    duration, ref, forward, backward, delay_ms, queue_ms, media, tcp = RFC8867[case_id]
    sc = rmcat.scenario(case_id, "tfrc")
    assert seconds(sc["run"]["duration"]) == duration
    b = sc["topology"]["bottleneck"]
    schedule = [(0.0, seconds(b["rate"]) / ref)] + [
        (seconds(x["at"]), seconds(x["rate"]) / ref) for x in b.get("capacity_changes", [])
    ]
    assert flat(schedule) == pytest.approx(flat(forward))
    if backward:
        r = sc["topology"]["reverse"]
        got = [(0.0, seconds(r["rate"]) / ref)] + [
            (seconds(x["at"]), seconds(x["rate"]) / ref) for x in r["capacity_changes"]
        ]
        assert flat(got) == pytest.approx(flat(backward))
    # One-way propagation: access + bottleneck + access.
    access = seconds(sc["topology"]["access"]["delay"])
    assert (2 * access + seconds(b["delay"])) * 1e3 == pytest.approx(delay_ms)
    # The queue holds queue_ms at the reference capacity.
    assert seconds(b["queue"]["limit"]) == pytest.approx(queue_ms * 1e-3 * ref / 8, abs=1)
    flows = sc["flows"]
    media_flows = [f for f in flows if f["source"]["kind"] == "rate"]
    assert [(seconds(f["start"]), seconds(f["stop"])) for f in media_flows] == media
    tcp_flows = [
        (seconds(f["start"]), seconds(f["stop"]))
        for f in flows
        if f["source"]["kind"] == "tcp"
        for _ in range(f.get("count", 1))
    ]
    assert tcp_flows == tcp
    if case_id == "5.3":
        assert [f.get("reverse", False) for f in flows] == [False, True]
    # Every media flow drives RFC 8593's encoder; §5.8's second one pauses from 40 s to 60 s.
    apps = [f["source"]["app"] for f in media_flows]
    assert all(a["kind"] == "encoder" for a in apps)
    paused = [(seconds(a["pause"]), seconds(a["resume"])) for a in apps if "pause" in a]
    assert paused == ([(40, 60)] if case_id == "5.8" else [])


def test_rtt_fairness_gives_each_flow_its_delay():
    delays, starts = RTT_FAIRNESS
    sc = rmcat.scenario("5.5", "tfrc")
    b = sc["topology"]["bottleneck"]
    assert seconds(b["rate"]) == 4e6 and seconds(sc["run"]["duration"]) == 300
    access = seconds(sc["topology"]["access"]["delay"])
    for f, d, start in zip(sc["flows"], delays, starts, strict=True):
        one_way = seconds(f["left_delay"]) + seconds(b["delay"]) + access
        assert one_way * 1e3 == pytest.approx(d)
        assert seconds(f["start"]) == start and seconds(f["stop"]) == 299


@pytest.mark.parametrize(
    ("controller", "kind"),
    [("dtaimd", "tcp"), ("tcp", "tcp"), ("tfrc", "rate"), ("iscc", "rate"), ("nada", "rtp")],
)
def test_every_controller_drives_the_rfc8593_encoder(controller, kind):
    source = rmcat.media_source(controller, {})
    assert source["kind"] == kind and source["app"] == {"kind": "encoder"}
    paused = rmcat.media_source(controller, {}, pause=(40.0, 60.0))["app"]
    assert paused == {"kind": "encoder", "pause": "40s", "resume": "60s"}


def _one_encoder_flow(app: dict) -> dict:
    return {
        "run": {"duration": "4s", "seed": 1},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "1Mbps", "delay": "20ms"},
            "access": {"rate": "100Mbps", "delay": "1ms"},
        },
        "flows": [{"source": {"kind": "rtp", "controller": "nada", "app": app}}],
        "trace": {"interval": "100ms", "flows": True},
    }


@pytest.mark.parametrize(
    ("app", "field", "allowed"),
    [
        ({"pause": "1s"}, "resume", "pause and resume come together"),
        ({"resume": "1s"}, "pause", "pause and resume come together"),
        ({"pause": "2s", "resume": "1s"}, "resume", "must be after pause"),
        ({"pause": "-1s", "resume": "1s"}, "pause", "must be >= 0"),
    ],
)
def test_a_bad_pause_names_its_field(app, field, allowed):
    with pytest.raises(ScenarioError) as e:
        ccscope.run(_one_encoder_flow({"kind": "encoder", **app}))
    message = str(e.value)
    assert f"flows[0].source.app.{field}" in message and allowed in message
    assert "\n" not in message.strip()


def test_every_case_is_a_valid_scenario_for_cubic_and_ecn():
    for c in rmcat.CASES:
        ccscope.Scenario.from_dict(rmcat.scenario(c.id, "ssvp", tcp="cubic"))
    ecn = rmcat.scenario("6.2", "tfrc")
    assert ecn["topology"]["bottleneck"]["queue"]["kind"] == "codel"
    assert ecn["flows"][0]["ecn"] is True


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"case_id": "5.9"}, "case"),
        ({"tcp": "vegas"}, "tcp"),
        ({"scale": 0.0}, "scale"),
        ({"controller": "nosuch"}, "controller"),
    ],
)
def test_bad_input_names_the_field(kwargs, field):
    args = {"case_id": "5.1", "controller": "tfrc", **kwargs}
    with pytest.raises(ScenarioError) as e:
        rmcat.scenario(**args)
    assert e.value.path == field


def test_the_rfcs_jitter_goes_on_every_bottleneck_each_way():
    """RFC 8867 §5's 30 ms of maximum jitter as RFC 8868 §4.5's model: std = 30 ms / N_STD
    (3), no reordering (the model's default), on the bottleneck both ways, or on each hop of
    §6.3's two; none without it, and none on the access links."""
    model = {"std": "10ms", "n_std": 3}
    assert rmcat.jitter_model(rmcat.RFC_JITTER) == model
    table = rmcat.scenario("5.3", "tfrc", jitter="30ms")
    topo = table["topology"]
    assert topo["bottleneck"]["jitter"] == model and topo["reverse"]["jitter"] == model
    assert "jitter" not in topo["access"]
    hops = rmcat.scenario("6.3", "tfrc", jitter="15ms")["topology"]["hops"]
    assert [h["jitter"] for h in hops] == [{"std": "5ms", "n_std": 3}] * 2
    assert "jitter" not in rmcat.scenario("5.1", "tfrc")["topology"]["bottleneck"]
    with pytest.raises(ScenarioError) as e:
        rmcat.scenario("5.1", "tfrc", jitter="fast")
    assert e.value.path == "jitter"


def test_a_case_with_jitter_keeps_its_own_row(tmp_path):
    """The same case with and without the path's jitter: two runs, two rows in the store's
    rmcat table."""
    store = tmp_path / "j.duckdb"
    plain = rmcat.run("tfrc", cases=["5.1"], store=store, scale=0.2)
    jittered = rmcat.run("tfrc", cases=["5.1"], store=store, scale=0.2, jitter="30ms")
    assert jittered["jitter"] == "30ms" and plain["jitter"] is None
    from ccscope.store import Store

    with Store(store) as db:
        rows = db.table("rmcat")
    assert len(rows) == 2 and rows["run_id"].nunique() == 2
    assert rows["controller"].str.contains("jitter 30ms").sum() == 1


# --- metrics on small traces worked out by hand -----------------------------------------------


def test_fairness():
    # (1 + 1 + 2)² / (3 · (1 + 1 + 4)) = 16/18; min/max 1/2; no shares at all: none.
    assert rmcat.fairness(np.array([1.0, 1.0, 2.0])) == pytest.approx((16 / 18, 0.5))
    assert np.isnan(rmcat.fairness(np.zeros(3))).all()


def test_convergence_time_of_a_step():
    # 0 until 2 s, then 0.9 of a 1 Mb/s capacity, in 100 ms bins. The 1 s mean (10 bins) first
    # reaches 0.8 when 9 of its 10 bins are at 0.9 (0.81): the bin starting at 2.8 s, known at
    # its end, 2.9 s; it stays, so 2.9 s after the event at 0. An event at 5 s: already there,
    # one bin (0.1 s).
    t = np.arange(0, 10, 0.1)
    rate = np.where(t >= 2.0 - 1e-9, 0.9e6, 0.0)
    cap = np.full_like(t, 1e6)
    got = rmcat.convergence_times(t, rate, cap, [0.0, 5.0], 10.0)
    assert got == pytest.approx([2.9, 0.1])
    # Above 1.1 of the capacity it never converges.
    assert rmcat.convergence_times(t, 1.2 * cap, cap, [0.0], 10.0) == [float("inf")]


def _synthetic(c):
    """Two seconds of 100 ms bins for case `c`'s flows, every media flow at 500 kb/s
    delivered, 600 kb/s sent; packets of 1250 B: 5 delivered and 6 sent per bin, one lost."""
    t = np.round(np.arange(0, 2, 0.1), 1)
    rows = [
        {
            "time_s": x,
            "flow": f,
            "throughput_bps": 5e5,
            "send_rate_bps": 6e5,
            "sent_pkts": 6,
            "lost_pkts": 1,
            "delivered_pkts": 5,
            "delivered_bytes": 6250,
        }
        for x in t
        for f in range(len(c.media))
    ]
    return pd.DataFrame(rows)


def test_case_metrics_by_hand():
    c = rmcat.Case("x", "two flows", "test", 2.0, 1e6, media=(rmcat.Media(0, 2), rmcat.Media(0, 2)))
    trace = _synthetic(c)
    # Delays: flow 0's ten packets at 60 ms, flow 1's ten at 60 ... 150 ms and one at 500 ms
    # (late), arriving in the first second: the second second has no timely packet of either.
    delays = pd.DataFrame(
        {
            "time_s": np.r_[np.linspace(0.05, 0.95, 10), np.linspace(0.05, 0.95, 10), 1.5],
            "flow": [0] * 10 + [1] * 11,
            "delay_s": np.r_[np.full(10, 0.06), np.linspace(0.06, 0.15, 10), 0.5],
        }
    )
    flows = pd.DataFrame({"flow": [0, 1], "feedback_bytes": [500.0, 500.0]})
    m = rmcat.case_metrics(c, trace, delays, flows)
    # 2 × 500 kb/s over 1 Mb/s.
    assert m["rate_over_capacity"] == pytest.approx(1.0)
    assert m["utilization"] == pytest.approx(1.0)
    assert m["loss"] == pytest.approx(1 / 6)
    # 1000 B of reports in 2 s: 4 kb/s; over 2 × 20 bins × 6250 B delivered.
    assert m["feedback_kbps"] == pytest.approx(4.0)
    assert m["feedback_ratio"] == pytest.approx(1000 / (2 * 20 * 6250))
    all_delays = delays["delay_s"].to_numpy() * 1e3
    assert m["delay_p50_ms"] == pytest.approx(np.percentile(all_delays, 50))
    assert m["delay_p95_ms"] == pytest.approx(np.percentile(all_delays, 95))
    assert m["late_fraction"] == pytest.approx(1 / 21)
    # After each flow's first second (its start-up), its 10 bins of the second second have no
    # timely packet: all frozen.
    assert m["freeze_fraction"] == pytest.approx(1.0)
    assert m["jain"] == pytest.approx(1.0) and m["min_max"] == pytest.approx(1.0)
    # 1.2 Mb/s sent on 1 Mb/s: above the band, never converges.
    assert m["never_converged"] == 1


def test_a_paused_flow_is_measured_out_of_its_pause():
    c = rmcat.Case(
        "x", "pause", "test", 2.0, 1e6, media=(rmcat.Media(0, 2), rmcat.Media(0, 2, pause=(1, 1.5)))
    )
    trace = _synthetic(c)
    # Flow 1 sends nothing in its pause, flow 0 then takes the whole 1 Mb/s.
    pause = (trace.time_s >= 1) & (trace.time_s < 1.5)
    trace.loc[(trace.flow == 1) & pause, ["throughput_bps", "send_rate_bps"]] = 0
    trace.loc[(trace.flow == 0) & pause, "throughput_bps"] = 1e6
    # Each flow has a timely packet in every bin but flow 1's pause.
    t = np.arange(0.05, 2, 0.1)
    delays = pd.DataFrame(
        {
            "time_s": np.r_[t, t[(t < 1) | (t >= 1.5)]],
            "flow": [0] * 20 + [1] * 15,
            "delay_s": 0.06,
        }
    )
    flows = pd.DataFrame({"flow": [0, 1], "feedback_bytes": [0.0, 0.0]})
    m = rmcat.case_metrics(c, trace, delays, flows)
    # Both at 500 kb/s over the 15 bins they both run: equal shares; the capacity filled in
    # every bin (1 Mb/s from one flow during the pause).
    assert m["jain"] == pytest.approx(1.0)
    assert m["rate_over_capacity"] == pytest.approx(1.0)
    # The pause is no freeze.
    assert m["freeze_fraction"] == 0.0
    # Events: the start, the pause and the resumption.
    assert len(m["convergence_s"]) == 3


@pytest.mark.parametrize("controller", ["nada", "tfrc", "tcp"])
def test_case_5_8_pauses_the_encoder_and_the_flow_resumes(controller, tmp_path):
    """RFC 8867 §5.8 on the rtp (NADA), rate (TFRC) and TCP transports: the second flow sends
    nothing in its pause (from 45 s: what its sender held at 40 s drains first; TCP's took
    1.7 s), none of its
    packets arrives (so its receiver has nothing to report), and it sends again within its
    first second after 60 s: NADA and TCP, whose state waits unchanged, and TFRC, whose
    missing-feedback expiries find its sender idle, so that by RFC 5348 §4.4 they stop halving
    once X_recv is below recover_rate = W_init/R: its allowed rate stays at least
    min(X_calc, W_init/R), and W_init/R is at least 8·4380 bits over the longest round trip
    the case allows (2·50 ms of propagation and the 300 ms queue), 87.6 kb/s."""
    store = tmp_path / "s.duckdb"
    p = ccscope_cli("rmcat", controller, "--case", "5.8", "--store", str(store), "--json")
    assert p.returncode == 0, p.stderr
    folder = Path(sweep.load(store)["trace_dir"].iloc[0])
    trace = pd.read_parquet(folder / "trace_flows.parquet")
    f = trace[trace["flow"] == 1].set_index("time_s")
    paused = f.loc[45.0:59.95]
    assert len(paused) == 150 and paused["sent_pkts"].sum() == 0
    delays = pd.read_parquet(folder / "trace_delays.parquet")
    arrived = delays[(delays["flow"] == 1)]["time_s"]
    assert not arrived.between(45.0, 60.0, inclusive="left").any()
    again = f[(f.index >= 60.0) & (f["sent_pkts"] > 0)].index.min()
    assert again < 61.0
    if controller == "tfrc":
        assert paused["rate_bps"].min() >= 8 * 4380 / 0.4
    if controller == "nada":
        # NADA updates its reference rate only on feedback (RFC 8698 §4.3): the rate it had
        # when its last report came is the rate it resumes at, well above RMIN (150 kb/s),
        # where a fresh NADA would start.
        assert paused["rate_bps"].nunique() == 1
        kept = paused["rate_bps"].iloc[0]
        assert kept > 4 * 150e3
        assert f.loc[60.0:62.0, "throughput_bps"].mean() >= 0.5 * kept


# --- the command ------------------------------------------------------------------------------


def ccscope_cli(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "ccscope", *args], capture_output=True, text=True, env=env
    )


def test_one_case_from_the_command_line_and_its_report(tmp_path):
    store = tmp_path / "rmcat.duckdb"
    p = ccscope_cli("rmcat", "tfrc", "--case", "5.1", "--store", str(store), "--json")
    assert p.returncode == 0, p.stderr
    suite = json.loads(p.stdout)
    m = suite["cases"]["5.1"]
    # Bounds from the case itself: at most the capacity (plus a bin's rounding); at least the
    # 50 ms propagation and a 1200-byte packet's 9.6 ms at 1 Mb/s; p95 within propagation,
    # serialization and the queue (37.5 kB, 500 ms at 0.6 Mb/s).
    assert 0.5 < m["rate_over_capacity"] <= 1.01
    assert 59.6 <= m["delay_p50_ms"] <= m["delay_p95_ms"] <= 50 + 9.6 / 0.6 + 500 + 1
    assert 0 <= m["loss"] < 0.1
    assert len(m["convergence_s"]) == 4
    html = tmp_path / "report.html"
    p = ccscope_cli("report", str(store), "-o", str(html))
    assert p.returncode == 0, p.stderr
    page = html.read_text()
    assert "RFC 8867 test cases" in page and "5.1: variable available capacity" in page
    # Two interactive figures for the one case (rates against the capacity, one-way delay),
    # no PNG.
    assert page.count('class="plot" data-figure=') == 2 and "<img" not in page
    rows = sweep.load(store)
    assert len(rows) == 1 and rows["status"].iloc[0] == "ok"


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["tfrc", "--case", "7.1"], "case = '7.1'"),
        (["tfrc", "--tcp", "vegas"], "tcp = 'vegas'"),
        (["tfrc", "--engine", "round"], "engine = 'round'"),
        (["gaimd", "-p", "beta=2"], "beta"),
        (["tfrc", "--jitter", "30"], "jitter = '30'"),
        (["tfrc", "--jitter", "0ms"], "jitter = '0ms'"),
    ],
)
def test_bad_input_is_one_line(args, field, tmp_path):
    p = ccscope_cli("rmcat", *args, "--store", str(tmp_path / "s.duckdb"))
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and field in lines[0], p.stderr


@pytest.mark.realtime
def test_one_case_on_real_packets(tmp_path):
    # Case 5.1 at a twentieth of its times (5 s of wall time): the udp engine runs it and the
    # metrics come out; a smoke test, not the case. No packet arrives sooner than the 50 ms of
    # propagation (a frame at the encoder's 150 kb/s is one 625-byte packet, 5 ms at 1 Mb/s).
    suite = rmcat.run(
        "tfrc", cases=["5.1"], engine="udp", scale=0.05, store=tmp_path / "udp.duckdb"
    )
    m = suite["cases"]["5.1"]
    assert suite["engine"] == "udp" and m["delay_p50_ms"] >= 50.0
    table = sweep.load(tmp_path / "udp.duckdb")
    assert table["engine"].iloc[0] == "udp"


def test_headline_markdown_has_a_row_per_controller(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    p = ccscope_cli("rmcat-table", "tfrc", "ssvp", "--store", str(tmp_path / "h.duckdb"), env=env)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert len(lines) == 4 and lines[2].startswith("| TFRC |")


DELAY_PY = '''
import ccscope


class DelayTarget(ccscope.RateController):
    """Up 5% a report while the one-way delay is within 25 ms of the least seen, down 15%
    beyond: a delay-based media controller in a few lines."""

    name = "delay-target-py"

    def __init__(self):
        self.rate, self.least = 150e3, None

    def rate_bps(self):
        return self.rate

    def on_report(self, r):
        d = r["one_way_delay_s"]
        if d is None:
            return
        self.least = d if self.least is None else min(self.least, d)
        self.rate *= 1.05 if d - self.least < 0.025 else 0.85
'''


def test_a_python_controller_runs_the_suite(tmp_path):
    (tmp_path / "delaypy.py").write_text(DELAY_PY)
    p = subprocess.run(
        [sys.executable, "-m", "ccscope", "rmcat", "python:delaypy:DelayTarget", "--case", "5.4"]
        + ["--store", "s.duckdb", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    suite = json.loads(p.stdout)
    m = suite["cases"]["5.4"]
    assert suite["controller"] == "delay-target-py"
    # Three flows of one delay-based control: some share, within the capacity.
    assert 0 < m["jain"] <= 1 and 0 < m["rate_over_capacity"] <= 1.01


# --- the generated tables of the docs ---------------------------------------------------------

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.mark.parametrize("rows", ["gcc", "nada scream scream2"])
def test_the_media_tables_of_the_controllers_page_are_their_command(rows):
    command = f"python docs/media_one_flow.py {rows}"
    p = subprocess.run(
        [sys.executable, str(DOCS / "media_one_flow.py"), *rows.split()],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    assert marked("controllers.md", command) == p.stdout, (
        f"docs/controllers.md's table is stale: python docs/tables.py --match='{command}'"
    )


@pytest.mark.slow
def test_the_headline_table_of_the_rmcat_page_is_its_command(tmp_path):
    """docs/rmcat.md's headline table is `ccscope rmcat-table` (13 controllers through five
    cases: several minutes, so `make validate` runs it, not `make test`)."""
    table = rmcat.headline(store=tmp_path / "headline.duckdb")
    assert marked("rmcat.md", "ccscope rmcat-table") == rmcat.headline_markdown(table), (
        "docs/rmcat.md's headline table is stale: python docs/tables.py --match=rmcat-table "
        "(with XDG_CACHE_HOME pointing at an empty directory, so that no cached run is reused)"
    )
