"""ccscope with ns-2.35's rules against ns-2.35 itself on four reproductions' set-ups
(bench/ns2_compare_figs.py, whose full tables docs/validation.md shows; make validate installs
ns-2.35): Yang et al.'s fairness F, ON/OFF loss and Fig. 29, Jin et al.'s Fig. 20, Cai et al.'s
Fig. 16, CUBIC under Bernoulli loss and Vegas's equilibrium, in shorter runs and over fewer
seeds than the tables (CUBIC over the table's ten). ns-2's seeds are its own, so the two are
compared as samples: their means must agree over the seeds each runs by the ns-2.35 column's
rule (ccscope.ns2column.agree_means; test_ns2_tfrc_loss.py's too).
"""

from __future__ import annotations

import math
import shutil
import statistics
import sys
from pathlib import Path

import pytest

from ccscope import engine, ns2column
from ccscope.scenario import load, shipped

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import ns2_compare_figs as figs  # noqa: E402

SEEDS = range(1, 5)
#: CUBIC's runs are cheap and its mean window varies with each run's drawn loss rate.
CUBIC_SEEDS = range(1, 11)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 is not installed (make ns2)"),
]


def agree(what: str, ours: list[float], theirs: list[float], capsys) -> None:
    """Runs of seeds 1-N on each side, N = len(ours)."""
    se = math.sqrt((statistics.variance(ours) + statistics.variance(theirs)) / len(ours))
    diff = statistics.mean(ours) - statistics.mean(theirs)
    with capsys.disabled():
        print(
            f"\n{what}: ccscope {statistics.mean(ours):.4g}, ns-2.35 {statistics.mean(theirs):.4g} "
            f"(seeds 1-{len(ours)}; s.e. of the difference {se:.3g})"
        )
    assert ns2column.agree_means(theirs, ours), (diff, ours, theirs)


@pytest.mark.parametrize("name", ["TCP", "GAIMD(0.31,0.875)", "TFRC"])
def test_yang_fairness_matches_ns2(name, capsys):
    """F of 8 flows over 300 s: the DropTail limit ns-2.35 counts one packet short (drop-tail.cc)
    alone moved TCP's F by 8 standard errors (0.902 against 0.910 over 5 seeds of 1000 s)."""
    _, rules, agent = figs.YANG_CASES[name]
    ours = [figs.yang_f_ccscope(rules, s, 300.0, True) for s in SEEDS]
    theirs = [figs.yang_f_ns2(agent, s, 300.0) for s in SEEDS]
    agree(f"Yang F, {name}", ours, theirs, capsys)


def test_yang_onoff_tcp_matches_ns2(capsys):
    """yang-onoff's TCP row, which fails against the paper: CoV_time beside five Pareto ON/OFF
    sources and alone under Bernoulli loss at the loss rate it saw, in both simulators."""
    _, rules, agent = figs.YANG_CASES["TCP"]
    ours = [figs.onoff_ccscope(rules, s) for s in SEEDS]
    theirs = [figs.onoff_ns2(agent, s) for s in SEEDS]
    for i, loss in enumerate(("ON/OFF", "Bernoulli")):
        mine, ns2 = [r[i] for r in ours], [r[i] for r in theirs]
        agree(f"Yang TCP CoV_time, {loss} loss", mine, ns2, capsys)


def test_yang_fig29_tcp_refill_matches_ns2(capsys):
    """yang-fig27-29's TCP row, which fails against the paper's 20 RTTs: the RTTs for eight
    TCP flows to refill the queue after the other eight stop, in both simulators."""
    _, rules, agent = figs.YANG_CASES["TCP"]
    ours = [figs.fig29_ccscope(rules, s) for s in SEEDS]
    theirs = [figs.fig29_ns2(agent, s) for s in SEEDS]
    agree("Yang Fig. 29, TCP refill (RTTs)", ours, theirs, capsys)


@pytest.mark.parametrize(
    ("n", "media", "start"),
    [
        (0, "TCP", "syn"),
        (0, "DTAIMD", "syn"),
        (5, "TCP", "syn"),
        (5, "DTAIMD", "syn"),
        (5, "TCP", "data"),
        (5, "DTAIMD", "data"),
    ],
)
def test_cai_fig16_media_goodput_matches_ns2(n, media, start, capsys):
    """The media flow's goodput alone with the elephants (which also checks ns-2's DTAIMD, set
    from Tcl) and beside 5 mice (300 mouse arrivals in 300 s), both simulators starting each
    connection with a SYN exchange ("syn": ns-2.35's syn_ and delay_growth_ true, its
    defaults; ccscope's `syn = true`) and with windowInit_ packets of data at once ("data").
    On this 56 kb/s line a mouse's SYN costs it a round trip of 2-3 s, a large part of its 5-s
    mean life: without the SYN in ccscope the media flow got half of ns-2.35's goodput."""
    ours = [figs.cai_ccscope(n, media, s, True, start) for s in SEEDS]
    theirs = [figs.cai_ns2(n, media, s, start) for s in SEEDS]
    agree(
        f"Cai Fig. 16, {media} media flow at {n} mice, ns-2 start {start} (b/s)",
        ours,
        theirs,
        capsys,
    )


def test_jin_fig20_pair_starts_where_ns2_starts_it(capsys):
    """Experiment 2, TCP: the pair's mean windows over 300-400 s, where the convergence
    starts (Table 6 prints (8.8, 13.8); the assumed set-up's link delays set it)."""
    ours = [figs.jin_ccscope(2, "TCP", s, True) for s in SEEDS]
    theirs = [figs.jin_ns2(2, "TCP", s) for s in SEEDS]
    for flow in ("W1", "W2"):
        mine, ns2 = [r[flow] for r in ours], [r[flow] for r in theirs]
        agree(f"Jin Fig. 20, Exp. 2, TCP {flow} (pkts)", mine, ns2, capsys)


@pytest.mark.parametrize("n", [1, 2, 7, 11, 16])
def test_vegas_equilibrium_is_ns2s_run_for_run(n):
    """vegas-equilibrium's packet-level runs with ns-2.35's tcp-vegas.cc rules (figs.NS2_VEGAS,
    1000-byte packets, every packet timed), the flows started at the same moments in both
    simulators, spread evenly over the scenario's 10 ms of start jitter: nothing is drawn, and
    the two simulators settle the same windows, so the mean queue is the same to the sixth
    decimal bench/ns2_vegas.tcl prints, and the flows together deliver the same packets over
    the 60 s measured, to one. (Single flows trade up to 20 of their 20 000-40 000 packets
    between the two simulators; the bench compares their spread over seeds. Which equilibrium
    the flows settle in depends on the order they start in: the queue may settle a packet
    apart for other starts.)"""
    table = load(shipped() / "vegas-equilibrium.toml").table
    starts = [i * 0.010 / n for i in range(n)]
    source = table["flows"][0]["source"]
    table["flows"] = [{"source": dict(source), "start": f"{s:.9f}s"} for s in starts]
    ours = engine.run(figs.vegas_rules(table))
    theirs = figs.ns2("ns2_vegas.tcl", "equilibrium", n, 1, *starts)
    link = ours.links.set_index("name").loc["bottleneck"]
    assert round(float(link["mean_queue_pkts"]), 6) == theirs["mean_queue_pkts"]
    packets = 60.0 / 8000  # b/s of 1000-byte payloads to packets over the 60 s measured
    total = sum(ours.flows["goodput_bps"]) * packets
    assert abs(total - sum(theirs["throughput_bps"]) * packets) <= 1.0


@pytest.mark.parametrize("agent", ["Vegas", "Reno"])
def test_vegas_rtt_bias_matches_ns2(agent, capsys):
    """vegas-equilibrium's two-RTT row (scenarios/vegas-rtt-bias.toml): the 20-ms flow's
    throughput over the 100-ms flow's, Vegas(2,4) and Reno, in both simulators. ccscope's Vegas
    runs ns-2.35's tcp-vegas.cc rules (figs.NS2_VEGAS): with Linux's (a real Diff, a round's
    smallest RTT) it gave 1.22 ± 0.33 against ns-2.35's 2.18 ± 0.11 over seeds 1-10."""
    ours = [figs.vegas_ccscope_rtt(figs.VEGAS_RTT[agent], s) for s in SEEDS]
    theirs = [figs.vegas_ns2_rtt(agent, s) for s in SEEDS]
    agree(f"Vegas RTT bias, {agent}: throughput ratio", ours, theirs, capsys)


@pytest.mark.parametrize("p", [0.0005, 0.05])
def test_cubic_window_under_bernoulli_loss_matches_ns2(p, capsys):
    """cubic-rfc9438's Bernoulli rows in the cubic's region and in the Reno-friendly one: one
    flow's mean window (packets per round trip) with ns-2.35's TCP/Linux and its CUBIC module
    (Linux 2.6.22) and with ccscope's `cubic-2.6.22` on that agent's transport rules, over the
    table's seeds 1-10: a run's mean window moves with the loss rate its seed draws (at
    p = 0.0005 about 600 losses in the half measured, so ±4% in the rate and ±3% in the window),
    and four seeds a side cannot tell a 2% difference from none."""
    ours = [figs.cubic_ccscope(p, s)[0] for s in CUBIC_SEEDS]
    theirs = [figs.cubic_ns2(p, s)[0] for s in CUBIC_SEEDS]
    agree(f"CUBIC mean window at p = {p:g} (pkts)", ours, theirs, capsys)
