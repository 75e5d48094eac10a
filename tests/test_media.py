"""Workloads (ON/OFF, square wave, mice, join/leave) and playback receivers, from Python.

Expected values come from the sources' and the playback model's definitions, not from runs.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ccscope
from ccscope import metrics
from ccscope.errors import ScenarioError


def one_link(
    *flows: dict, duration: str = "60s", rate: str = "100Mbps", trace: bool = True
) -> dict:
    table = {
        "run": {"duration": duration, "seed": 7},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {
                "rate": rate,
                "delay": "10ms",
                "queue": {"kind": "droptail", "limit": "1000pkts"},
            },
        },
        "flows": list(flows),
    }
    if trace:
        table["trace"] = {"interval": "100ms"}
    return table


def window(series, start: float, end: float):
    """The bins of a series indexed by time (s) that start in [start, end)."""
    t = series.index.to_numpy()
    return series[(t > start - 1e-6) & (t < end - 1e-6)]


def test_a_square_wave_sends_its_rate_for_half_the_time():
    # 2 Mb/s ON for 10 s, OFF for 10 s, over 60 s on an uncongested link: ON 0-10, 20-30,
    # 40-50 s, i.e. exactly half the time at 2 Mb/s (Jin et al. §6.2.4's square wave).
    square = {
        "source": {
            "kind": "udp",
            "app": {"kind": "square", "rate": "2Mbps", "on": "10s", "off": "10s"},
        }
    }
    r = ccscope.run(one_link(square))
    assert r.flows.loc[0, "send_rate_bps"] == pytest.approx(1e6, rel=1e-9)
    sent = r.trace.flows.set_index("time_s")["sent_bytes"]
    assert window(sent, 10, 20).sum() == 0 and window(sent, 20, 30).sum() == 2e6 * 10 / 8


def test_pareto_on_off_sources_average_their_on_fraction():
    # Yang et al. §3.1: mean ON 1 s, OFF 2 s, 500 kb/s while ON: 500/3 kb/s on average. With
    # shape 1.5 the periods have infinite variance; 20 sources over 2000 s hold the mean of the
    # ON fraction within about 10% (the CLT does not apply, hence the wide band).
    onoff = {"source": {"kind": "udp", "app": {"kind": "onoff", "rate": "500kbps"}}, "count": 20}
    r = ccscope.run(one_link(onoff, duration="2000s", trace=False))
    assert r.flows["send_rate_bps"].mean() == pytest.approx(5e5 / 3, rel=0.1)
    assert set(r.flows["label"]) == {"Pareto on/off 500kb/s"}


def test_web_like_tcp_transfers_pause_for_think_times():
    # Exponential ON 1 s at 1 Mb/s, OFF 2 s: each transfer carries 1 Mb on average, then the
    # user thinks for 2 s on average. A transfer takes between no time and its ON period (it
    # is faster than 1 Mb/s on 100 Mb/s), so the mean rate lies between 1 Mb / 3 s and
    # 1 Mb / 2 s; about 1800 transfers put the sample mean within 8% (3.3 standard errors of
    # an exponential size) of that range.
    web = {
        "source": {
            "kind": "tcp",
            "app": {
                "kind": "onoff",
                "rate": "1Mbps",
                "distribution": "exponential",
                "transfers": True,
            },
        },
        "count": 4,
    }
    r = ccscope.run(one_link(web, duration="1000s", trace=False))
    rate = r.flows["throughput_bps"].mean()
    assert 1e6 / 3 * 0.92 < rate < 1e6 / 2 * 1.08


def test_mice_live_an_exponential_lifetime():
    # 200 TCP mice started at 0 with lifetimes of mean 5 s (Cai et al. §V-B): the mean time
    # of their last packet is 5 s, within 4 standard errors (sigma = 5 s / sqrt(200)) plus a
    # trace bin.
    mice = {"source": {"kind": "tcp"}, "count": 200, "lifetime": "5s"}
    r = ccscope.run(one_link(mice, duration="80s", rate="1Gbps"))
    t = r.trace.flows
    last = t[t["sent_pkts"] > 0].groupby("flow")["time_s"].max()
    assert len(last) == 200
    assert last.mean() == pytest.approx(5.0, abs=4 * 5 / np.sqrt(200) + 0.1)


def test_flows_join_and_leave_at_their_times():
    flows = [
        {"source": {"kind": "cbr", "rate": "1Mbps"}, "start": "5s", "stop": "15s"},
        {"source": {"kind": "cbr", "rate": "1Mbps"}, "start": "10s"},
    ]
    r = ccscope.run(one_link(*flows, duration="20s"))
    s = r.trace.flow_series("sent_bytes")
    assert window(s[0], 0, 5).sum() == 0 and window(s[0], 15, 20).sum() == 0
    assert window(s[1], 0, 10).sum() == 0 and window(s[1], 10, 20).sum() == 1e6 * 10 / 8


def playback_run(source_rate: str, play_rate: str) -> dict:
    cbr = {
        "source": {"kind": "cbr", "rate": source_rate},
        "playback": {"startup": "3s", "rate": play_rate},
    }
    return ccscope.run(one_link(cbr, trace=False)).media.iloc[0]


def test_playback_at_the_arrival_rate_never_freezes():
    m = playback_run("1Mbps", "1Mbps")
    assert (m.interruptions, m.frozen_s) == (0, 0.0)
    # The buffer peaks at the start-up: 3 s of 1 Mb/s, one packet more.
    assert m.max_receiver_queue_bytes == pytest.approx(3 * 1e6 / 8 + 1000, abs=1000)
    assert m.vdi == pytest.approx(1.0, abs=1e-3) and m.delayed_pkt_rate == 0


def test_playback_faster_than_the_arrivals_freezes_as_the_model_says():
    # Arrivals 1 Mb/s, consumption 2 Mb/s, 3 s start-up and 3 s of re-buffering: playing
    # drains the buffer at a net 1 Mb/s, refilling 6 s of playback at 2 Mb/s takes 6 s at
    # 1 Mb/s. From the start at 3 s: dry at 6, frozen 6-12, dry at 18, frozen 18-24, ... until
    # the session ends at 60 s: five interruptions, 30 s frozen (half the session).
    m = playback_run("1Mbps", "2Mbps")
    assert m.interruptions == 5
    assert m.frozen_s == pytest.approx(30.0, abs=0.1)
    assert m.frozen_fraction == pytest.approx(0.5, abs=0.01)


def test_sparse_packets_are_delayed_for_the_delivery_index():
    # 1000-byte packets at 10 kb/s arrive 800 ms apart, beyond the 75 ms threshold: all but
    # the first are delayed (Papadimitriou & Zhang §V).
    m = playback_run("10kbps", "10kbps")
    assert m.delayed_pkt_rate == pytest.approx(1 - 1 / 75, abs=1e-9)
    assert m.vdi == pytest.approx(1 / 75, abs=1e-9)


@pytest.mark.parametrize(
    ("flow", "path", "needle"),
    [
        (
            {"source": {"kind": "udp", "app": {"kind": "onoff", "rate": "1Mbps", "shape": 1.0}}},
            "flows[0].source.app.shape",
            "must be > 1",
        ),
        (
            {"source": {"kind": "udp", "app": {"kind": "square", "rate": "0bps"}}},
            "flows[0].source.app.rate",
            "must be > 0",
        ),
        ({"source": {"kind": "tcp"}, "lifetime": "0s"}, "flows[0].lifetime", "must be > 0"),
        (
            {"source": {"kind": "tcp"}, "playback": {"vdi_threshold": "0s"}},
            "flows[0].playback.vdi_threshold",
            "must be > 0",
        ),
        ({"source": {"kind": "udp", "app": {"kind": "mpeg2"}}}, "flows[0].source.app", "onoff"),
        (
            {
                "source": {
                    "kind": "udp",
                    "app": {
                        "kind": "mpeg4",
                        "gop": "PBB",
                        **{t: {"mean": "1KB", "cov": 0.5, "lag1": 0.5} for t in "ipb"},
                    },
                }
            },
            "flows[0].source.app.gop",
            "starting with I",
        ),
        (
            {
                "source": {
                    "kind": "udp",
                    "app": {
                        "kind": "mpeg4",
                        **{t: {"mean": "1KB", "cov": 0.5, "lag1": 1.0} for t in "ipb"},
                    },
                }
            },
            "flows[0].source.app.i.lag1",
            "must be in [0, 0.99]",
        ),
    ],
)
def test_bad_media_settings_name_their_field(flow, path, needle):
    with pytest.raises(ScenarioError) as e:
        ccscope.run(one_link(flow))
    assert path in str(e.value) and needle in str(e.value)


def test_media_metrics_follow_their_definitions():
    assert metrics.video_delivery_index(90, 100) == 0.9
    assert metrics.delayed_packet_rate(0, 0) == 0.0
    # Equal rates are perfectly fair in every interval; one flow alone in an interval is not.
    f = metrics.short_term_fairness([[1.0, 1.0], [2.0, 0.0], [0.0, 0.0]])
    assert f.tolist() == [1.0, 0.5]
    # A constant series has no variation at any timescale.
    assert metrics.cov_time(np.ones(100)) == {1: 0.0, 2: 0.0, 5: 0.0, 10: 0.0}
    assert metrics.loss_cov([1, 1, 2, 2], [10, 10, 10, 10], factor=2) == pytest.approx(1 / 3)


def test_square_wave_response_measures_a_known_window():
    # A window of 10 packets while the square wave is ON and 20 while it is OFF; it grows by
    # one packet per RTT (0.1 s) after the wave goes OFF and halves once (one loss event) one
    # RTT after it comes back ON. 1/aggressiveness: RTTs to come within one packet of 20 = 9;
    # 1/responsiveness: 1 loss event.
    t = np.round(np.arange(0, 2400) * 0.1, 6)
    phase = np.round(t % 60, 6)
    w = np.where(
        phase < 30,
        np.where(phase < 0.1, 20.0, 10.0),
        np.minimum(20.0, 10.0 + np.round((phase - 30) / 0.1)),
    )
    w[t < 30] = 10.0
    out = metrics.square_wave_response(t, w, on_s=30, off_s=30, rtt_s=0.1)
    assert out["inv_aggressiveness_rtts"] == pytest.approx(9.0)
    assert out["inv_responsiveness_losses"] == 1.0
    assert (out["rises"], out["falls"]) == (3.0, 2.0)  # complete cycles after the first


def test_an_mpeg4_source_fitted_to_a_trace_sends_its_mean_rate(tmp_path):
    # A synthetic trace of 600 GOPs IBBPBBPBBPBB at 25 frames/s: I frames 12 kB, P 6 kB, B 2 kB
    # on average, each type an AR(1) series. The fit must give the trace's own statistics, and
    # the source, run for 120 s (250 GOPs), the mean rate of the fitted means within 7%: three
    # standard errors of 250 GOPs whose frame sizes (CoV about 0.4) are correlated at lag 1 by
    # about 0.7 (effective samples n(1 − ρ)/(1 + ρ): I 44, P 130, B 350; 2.3% in all).
    from ccscope import video

    rng = np.random.default_rng(5)
    gop = "IBBPBBPBBPBB"
    means = {"I": 12_000, "P": 6_000, "B": 2_000}
    state = {k: 0.0 for k in means}
    rows = []
    for n in range(600 * len(gop)):
        k = gop[n % len(gop)]
        state[k] = 0.7 * state[k] + rng.normal(0, 0.3)
        rows.append((n / 25, k, round(means[k] * np.exp(state[k]) / np.exp(0.3**2 / 0.51 / 2))))
    path = tmp_path / "trace.csv"
    pd.DataFrame(rows, columns=["time", "type", "bytes"]).to_csv(path, index=False)
    app = video.fit_trace(path)
    assert app["gop"] == gop and app["fps"] == pytest.approx(25.0)
    sizes = pd.read_csv(path)
    for k in "IPB":
        s = video.frame_stats(sizes.loc[sizes["type"] == k, "bytes"])
        assert app[k.lower()]["cov"] == s["cov"] and app[k.lower()]["lag1"] == s["lag1"]
    expected = (
        8
        * sum(float(app[k]["mean"].rstrip("B")) * gop.count(k.upper()) for k in "ipb")
        * 25
        / len(gop)
    )
    r = ccscope.run(one_link({"source": {"kind": "udp", "app": app}}, duration="120s", trace=False))
    assert r.flows.loc[0, "send_rate_bps"] == pytest.approx(expected, rel=0.07)
    assert r.flows.loc[0, "label"].startswith("MPEG-4")


MPEG4 = {
    "kind": "mpeg4",
    "i": {"mean": "12KB", "cov": 0.4, "lag1": 0.8},
    "p": {"mean": "6KB", "cov": 0.5, "lag1": 0.7},
    "b": {"mean": "2KB", "cov": 0.6, "lag1": 0.5},
}


@pytest.mark.parametrize(("rate", "freezes"), [("100Mbps", False), ("300kbps", True)])
def test_video_frames_freeze_when_their_data_is_late(rate, freezes):
    # 767 kb/s of MPEG-4 (8 · 46 kB per 12 frames at 25 frames/s) with a 3 s start-up: on
    # 100 Mb/s every frame is complete at its decoding time; on 300 kb/s at most 40% of the
    # bytes get through, so frames freeze. Frames decoded before the end of a 60 s run: those
    # captured by 57 s, 57 · 25 + 1 of them.
    flow = {"source": {"kind": "udp", "app": MPEG4}, "playback": {"startup": "3s"}}
    m = ccscope.run(one_link(flow, rate=rate, trace=False)).media.iloc[0]
    assert m.frames == 57 * 25 + 1
    assert (m.freeze_frames > 0) == freezes
    if freezes:
        assert m.freeze_fraction > 0.5


def test_ccscope_run_prints_the_media_table_and_writes_the_playback_files(tmp_path):
    import json
    import subprocess
    import sys

    scenario = tmp_path / "m.toml"
    scenario.write_text("""
[run]
duration = "20s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "2Mbps", delay = "10ms" }
[[flows]]
source = { kind = "tcp" }
playback = { startup = "3s" }
[[flows]]
source = { kind = "udp", app = { kind = "square", rate = "1Mbps", on = "5s", off = "5s" } }
[trace]
interval = "100ms"
""")
    out = tmp_path / "out"
    p = subprocess.run(
        [sys.executable, "-m", "ccscope", "run", str(scenario), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert "media flows" in p.stdout and "interruptions" in p.stdout
    flows = json.loads((out / "summary.json").read_text())["flows"]
    assert "interruptions" in flows[0] and "interruptions" not in flows[1]
    assert (out / "playback.png").stat().st_size > 10_000
    pb = pd.read_parquet(out / "playback.parquet")
    assert set(pb["flow"]) == {0} and (pb["buffer_bytes"] >= 0).all()


#: FGS over a rate source's default 1000-byte packets: 175-byte base layers (14 kb/s at 10
#: frames/s), packed 5 to a decoding unit, one packet each (apps/fgs.rs).
FGS_UNIT_FRAMES = 5


def test_fgs_base_layers_freeze_at_the_loss_rate_without_retransmission():
    # Loguinov & Radha's layers (14 kb/s base, 1190 kb/s in all) at 10 frames/s over a rate
    # AIMD flow on a fat link with 5% Bernoulli loss: each unit of 5 frames' base layers is one
    # packet, lost with probability 0.05, and nothing is retransmitted, so the freeze fraction
    # is 0.05 within 4 standard errors of the 595 units (0.036); without loss, none freeze.
    def run(p):
        topo = {"kind": "fat_link", "rate": "100Mbps", "delay": "20ms"}
        if p:
            topo["loss"] = {"kind": "bernoulli", "p": p}
        flow = {
            "source": {"kind": "rate", "controller": "rate-aimd", "app": {"kind": "fgs"}},
            "playback": {"startup": "3s"},
        }
        t = {"run": {"duration": "300s", "seed": 3}, "topology": topo, "flows": [flow]}
        return ccscope.run(t).media.iloc[0]

    lossy = run(0.05)
    # Units captured at 0, 0.5, ..., 297 s are decoded by the end of the run.
    assert lossy.frames == 595 * FGS_UNIT_FRAMES
    assert lossy.freeze_frames % FGS_UNIT_FRAMES == 0, "a unit freezes all its frames"
    assert lossy.freeze_fraction == pytest.approx(0.05, abs=4 * np.sqrt(0.05 * 0.95 / 595))
    assert run(0.0).freeze_frames == 0


def fgs_over_loss(p: float, retransmit: bool) -> pd.Series:
    """FGS (14 kb/s base, 10 frames/s) over rate AIMD on a 100 Mb/s link with Bernoulli loss
    p on the link, 40 ms RTT, 3 s start-up, 300 s."""
    flow = {
        "source": {
            "kind": "rate",
            "controller": "rate-aimd",
            "app": {"kind": "fgs", "retransmit": retransmit},
        },
        "playback": {"startup": "3s"},
    }
    topo = {
        "kind": "fat_link",
        "rate": "100Mbps",
        "delay": "20ms",
        "loss": {"kind": "bernoulli", "p": p},
    }
    return ccscope.run(
        {"run": {"duration": "300s", "seed": 3}, "topology": topo, "flows": [flow]}
    ).media.iloc[0]


def test_fgs_base_layer_retransmission_on_nack_removes_almost_every_freeze():
    # Loguinov & Radha §VI-C: lost base-layer packets are resent on NACK while their deadline
    # allows. Each unit's base layer is one packet. Without retransmission a unit freezes
    # when it is lost: p = 0.05. With it, the RTT (40 ms) is far below the 3 s start-up, so a
    # unit freezes only if the packet is lost and then its NACK or its one resent copy is
    # too: at most p(1 - (1 - p)^2) = 0.0049 (further attempts only lower it). Bound: that
    # plus 4 standard errors over the 595 units (0.011).
    p = 0.05
    units = 595
    without, with_ = fgs_over_loss(p, False), fgs_over_loss(p, True)
    residual = p * (1 - (1 - p) ** 2)
    assert without.freeze_fraction == pytest.approx(p, abs=4 * np.sqrt(p * (1 - p) / units))
    assert with_.frames == without.frames == units * FGS_UNIT_FRAMES
    assert with_.freeze_fraction < residual + 4 * np.sqrt(residual / units)
    assert "retransmissions_sent" not in without or pd.isna(without.retransmissions_sent)
    # A resent copy is itself lost with p; all that arrive do so long before the deadline.
    sent, received = with_.retransmissions_sent, with_.retransmissions_received
    assert sent > 0
    assert received >= sent * (1 - p) - 4 * np.sqrt(sent * p * (1 - p))
    assert with_.retransmissions_useful == received


class ConstantRate(ccscope.RateController):
    """A Python rate controller that holds 30 kb/s: Loguinov & Radha's share of a T1 at n = 50."""

    name = "constant 30 kb/s"

    def rate_bps(self):
        return 30e3

    def on_report(self, report):
        pass


def fgs_at_a_t1_share(loss: float) -> pd.Series:
    """FGS over 1500-byte packets (§VI-C) at 30 kb/s, held there by a Python controller, with
    base-layer retransmission, on a 40 ms path with Bernoulli loss `loss`, 120 s."""
    flow = {
        "source": {
            "kind": "rate",
            "controller": "python:constant",
            "feedback": "per-rtt",
            "packet_size": "1500B",
            "app": {"kind": "fgs", "retransmit": True},
        },
        "playback": {"startup": "3s"},
    }
    topo = {"kind": "fat_link", "rate": "100Mbps", "delay": "20ms"}
    if loss:
        topo["loss"] = {"kind": "bernoulli", "p": loss}
    t = {"run": {"duration": "120s", "seed": 1}, "topology": topo, "flows": [flow]}
    return ccscope.run(t, controllers={"constant": ConstantRate}).media.iloc[0]


def test_a_python_rate_controller_drives_fgs_at_a_t1_share():
    # At n = 50 a T1 gives each flow 30 kb/s, 2.5 packets of 1500 bytes a second. The server
    # packs base layers 8 frames to a packet and cuts the enhancement layer into whole
    # packets, so a flow held at 30 kb/s sends what its server offers: the longest wait in the
    # sender stays within a unit of 8 frames (0.8 s) plus one packet's slot (0.4 s), and
    # without loss no frame freezes. Units captured up to 117 s are decoded by 120 s: 147 x 8.
    m = fgs_at_a_t1_share(0.0)
    assert m.label == "constant 30 kb/s"
    assert m.frames == 147 * 8 and m.freeze_frames == 0
    assert m.max_sender_delay_s <= 0.8 + 1500 * 8 / 30e3
    # With 5% loss the NACKed base-layer packets come back through the Python-driven sender.
    lossy = fgs_at_a_t1_share(0.05)
    assert lossy.retransmissions_useful > 0
    assert lossy.retransmissions_useful == lossy.retransmissions_received


def test_a_python_window_controller_plays_back_as_the_catalogued_one():
    # The same AIMD(1, 1/2) rule written in Python and taken from the catalogue, each under a
    # TCP flow carrying 2 Mb/s ON/OFF traffic into a playback receiver: same media numbers.
    aimd = ccscope.WindowController(
        "AIMD(1,1/2)", increase=lambda w: 1.0, decrease=lambda w: w - 0.5 * w
    )

    def media(controller):
        flow = {
            "source": {
                "kind": "tcp",
                "controller": controller,
                "app": {"kind": "onoff", "rate": "2Mbps"},
            },
            "playback": {"startup": "3s"},
        }
        t = {
            "run": {"duration": "60s", "seed": 2},
            "topology": {
                "kind": "fat_link",
                "rate": "10Mbps",
                "delay": "20ms",
                "loss": {"kind": "bernoulli", "p": 0.01},
            },
            "flows": [flow],
        }
        return ccscope.run(t, controllers={"aimd": aimd}).media

    python = media("python:aimd")
    assert python.interruptions.iloc[0] > 0, "the check needs a flow whose playback stalls"
    pd.testing.assert_frame_equal(python, media({"name": "aimd", "alpha": 1, "beta": 0.5}))


@pytest.mark.parametrize(
    ("source", "playback", "needs"),
    [
        (
            {"kind": "udp", "app": {"kind": "fgs", "retransmit": True}},
            {"startup": "3s"},
            "rate source",
        ),
        (
            {"kind": "rate", "controller": "rate-aimd", "app": {"kind": "fgs", "retransmit": True}},
            None,
            "playback receiver",
        ),
    ],
)
def test_fgs_retransmission_needs_a_rate_source_and_a_playback_receiver(source, playback, needs):
    flow = {"source": source, **({"playback": playback} if playback else {})}
    with pytest.raises(ScenarioError, match=f"retransmit.*{needs}"):
        ccscope.run(one_link(flow, duration="1s"))


def test_fgs_retransmission_from_the_cli(tmp_path):
    import json
    import subprocess
    import sys

    out = tmp_path / "out"
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "ccscope",
            "run",
            "scenarios/fgs-retransmit.toml",
            "--out",
            str(out),
            "--no-plot",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert p.returncode == 0, p.stderr
    assert "resent" in p.stdout and "(useful)" in p.stdout
    flow = json.loads((out / "summary.json").read_text())["flows"][0]
    assert flow["retransmissions_useful"] > 0


def test_a_multirate_coder_learning_only_cuts_late_piles_up_more():
    # Cai et al. Fig. 7's coder (lag = "cuts") codes at the sender's highest rate of the last
    # tau, never below the rate of tau ago that the default coder takes. Behind a rate-AIMD
    # sender cut by periodic loss the default coder, below the rising sender after each cut,
    # drains what the cut left; Fig. 7's coder never produces less than the sender sends, so
    # what each cut leaves stays queued and the longest wait is longer.
    def wait(lag):
        flow = {
            "source": {
                "kind": "rate",
                "controller": "rate-aimd",
                "app": {"kind": "multirate", "tau": "200ms", "lag": lag},
            },
            "playback": {"startup": "1s"},
        }
        t = {
            "run": {"duration": "30s", "seed": 1},
            "topology": {
                "kind": "fat_link",
                "rate": "100Mbps",
                "delay": "20ms",
                "loss": {"kind": "periodic", "every": 300},
            },
            "flows": [flow],
        }
        return ccscope.run(t).media.iloc[0].max_sender_delay_s

    lagged, cuts = wait("all"), wait("cuts")
    assert 0 < lagged < cuts
    with pytest.raises(ScenarioError, match="lag"):
        wait("sometimes")
