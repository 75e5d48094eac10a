"""The papers' results as `ccscope reproduce` runs them: every claim holds, except the ones a
reproduction explains it cannot reproduce, which must keep failing (strict, as xfail(strict)).
The tolerances live with each reproduction (python/ccscope/experiments/), each claim with where
its tolerance comes from (the paper's printed precision or the resolution its figure is read at,
the measured spread of ccscope's runs over seeds, a theory's stated error, the paper's own
statement, or "reported, not judged"; `check` fails any claim whose source is "no source
yet")."""

from __future__ import annotations

import functools
import math

import pytest
from docpages import marked
from typer.testing import CliRunner

from ccscope import reproduce
from ccscope.cli import app
from ccscope.experiments import linux
from ccscope.experiments.claims import UNSOURCED

#: (id, quantity) of every claim that does not reproduce; its reason is the claim's `why`.
NOT_REPRODUCED = {
    # Fig. 5's IIAD (full run only): the gap is in p_100, the claim's reason gives the numbers.
    ("loguinov-fig5", "IIAD: s_100 = p_100/p_1"),
    ("loguinov-fig5", "IIAD: exponent log s_100 / log 100"),
    # The testbed's spread of packet-bunch estimates; the claims say why the model has none.
    ("loguinov-fig7", "2 flows: fraction of estimates more than 0.66% from the peak"),
    ("loguinov-fig7", "32 flows: fraction of estimates more than 7% from C"),
    ("jin-table6", "TCP: Δ (pkts)"),
    # Table I's ISCC/AIMD exponents are its testbed's; in simulation ISCC's loss decays.
    *(("loguinov-fig8", f"seed {s}: ISCC(-1.5,2) exponent over AIMD's") for s in (6, 7, 8)),
    # Table 6 ties AIMD's α to β (3/31, "α ≈ 1/10"); the control runs α = 1/10.
    ("jin-table6", "AIMD(1/10,1/16): T1 (RTTs)"),
    # Fig. 20's Exp. 2: the assumed parking lot starts the pair at W2 ≈ 45 where Table 6's start
    # at 13.8-33.2; from their own start the runs follow App. C (the rows beside them).
    *(
        ("jin-fig20", f"Exp. 2: {name} T1 (RTTs), {over}")
        for name in ("TCP", "AIMD", "IIAD")
        for over in ("seed 1", "median of seeds 1-5")
    ),
    # One seed's first-passage times (the medians over seeds 1-5 hold).
    ("jin-fig20", "Exp. 1: IIAD T2 (RTTs), seed 1"),
    ("jin-fig20", "Exp. 2: SIMD T1 over App. C's from the runs' start, seed 1"),
    *(
        ("yang-table1", f"{name}: CoV_time at 20%, mean of seeds {seeds}")
        for name in ("TCP", "GAIMD(0.31,0.875)", "TFRC", "TEAR")
        for seeds in ("1–2", "1–5")
    ),
    *(
        ("yang-table1", f"{name}: fairness F, 8 flows, no loss module, mean of seeds {seeds}")
        for name in ("TCP", "GAIMD(0.31,0.875)")
        for seeds in ("1–2", "1–5")
    ),
    # Over five seeds the mean's 2σ/√5 no longer covers these (each claim says why).
    ("yang-table1", "GAIMD(0.31,0.875): CoV_time at 2%, mean of seeds 1–5"),
    *(
        ("yang-table1", f"{name}: fairness F, 8 flows, no loss module, mean of seeds 1–5")
        for name in ("TFRC", "TEAR")
    ),
    # Fig. 6's printed runs against the seed spread of one run (bench/seed_spread.py).
    *(
        ("yang-fig6", f"{name}: CoV_time at 1%, mean of seeds {seeds}")
        for name in ("TCP", "TEAR")
        for seeds in ("1–2", "1–5")
    ),
    # The media reproductions (workloads and video); each Claim says why.
    *(
        (
            "cai-fig16",
            f"Cai Fig. 16: media throughput with {n} mice, DTAIMD(0.2,0.875) vs TCP (b/s)",
        )
        # Model versions 2 (one event per packet on a link) and 6 (the receiver's SACK
        # blocks) moved these chaotic runs: the order at a given n is one seed's noise (the
        # claim's reason says why).
        for n in (3, 5, 6, 8, 10)
    ),
    # (40) gives k exactly; held to the seed spread of one run, only k = 2 at 24 flows holds.
    *(
        (
            "cai-fig17",
            f"Cai Fig. 17: class-2/class-1 throughput, k = {k} (alpha2 = {alpha2}), {n} flows",
        )
        for k, alpha2 in ((2, "0.80"), (3, "1.80"), (4, "3.20"))
        for n in (12, 24, 48, 96)
        # Model version 6 (the receiver's SACK blocks) brought k = 2 at 96 flows within it.
        if (k, n) not in ((2, 24), (2, 96))
    ),
    *(
        ("cai-table1", f"Cai Table I: DTAIMD rate / TCP mean rate, over {k} seed(s)")
        for k in (1, 3)
    ),
    ("cai-table1", "Cai Table I: TCP elephants interrupted (of 10), mean over 1 seed(s)"),
    ("cai-table1", "Cai Table I: TCP elephants interrupted (of 10), mean over 3 seed(s)"),
    # Model version 6 (the receiver's SACK blocks): 0.50 over three seeds (the claim says why
    # one seed can fall to half).
    (
        "cai-table1",
        "Cai Table I: share of TCP elephants with a larger max receiver queue than DTAIMD, "
        "mean over 3 seed(s)",
    ),
    # The runs' window before the wave goes OFF is above Table 5's W = 11 (each claim says).
    *(
        ("jin-table5", f"Jin Table 5: 1/aggressiveness of {name} (RTTs; analysis {a})")
        for name, a in (
            ("AIMD(1/10,1/16)", "117.3"),
            ("IIAD(1,2/3)", "181.5"),
            ("SIMD(1/16)", "41.5"),
            ("AIAD(2/3)", "121.0"),
        )
    ),
    ("papadimitriou-fig3", "Papadimitriou Fig. 3 (MPEG-4): CoV of the 150-ms rate, ssvp"),
    ("papadimitriou-fig3", "Papadimitriou Fig. 3 (MPEG-4): CoV of the 150-ms rate, ssvp-adp"),
    ("papadimitriou-fig3", "Papadimitriou Fig. 3 (MPEG-4): SSVP-ADP smoother than SSVP"),
    *(
        (
            "papadimitriou-fig4-8",
            f"Papadimitriou {fig} (MPEG-4, n = {n}): SSVP-ADP best in {metric}",
        )
        for n in (30, 50)
        for fig, metric in (
            ("Figs. 4a, 6a", "throughput_bps"),
            ("Figs. 4b, 6b", "cov"),
            ("Fig. 7a", "fairness_index"),
            ("Fig. 7b", "worst_case_fairness"),
            ("Fig. 8a", "vdi"),
            ("Fig. 8b", "delayed_pkt_rate"),
        )
        # At n = 30 the quick run's SSVP-ADP leads in fairness by less than 0.0001 (over seeds
        # 1-10 it leads in 2, the other two SSVPs in the rest; the three SSVPs' mean indices lie
        # within 0.0011 of one another), and in worst-case fairness (0.878 against 0.846 and
        # 0.833).
        if (n, metric) not in ((30, "fairness_index"), (30, "worst_case_fairness"))
    ),
    ("yang-fig27-29", "Yang Fig. 29: RTTs for TCP to refill the queue after 16 -> 8 flows"),
    ("yang-fig27-29", "Yang Fig. 29: RTTs for TFRC to refill the queue after 16 -> 8 flows"),
    ("yang-onoff", "Yang §3.3: TCP CoV_time, ON/OFF loss vs Bernoulli at its loss rate"),
    # RFC 9438 Figures 3 and 6 assume deterministic loss: under Bernoulli loss CUBIC's mean
    # window is 7-29% above them up to p = 0.5%, and below from 2% on, where timeouts come in.
    *(
        ("cubic-rfc9438", f"mean window (pkts), Bernoulli loss p = {p:g}, mean of seeds 1-10, {s}")
        for s, ps in (
            ("1200 s", (5e-4, 1e-3)),
            ("3000 s", (1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 2e-2, 5e-2)),
        )
        for p in ps
    ),
    # Loguinov Table I's freeze frames: on the T1 the loss-driven controls lose too much to
    # recover (IIAD, ISCC; TFRC(180) in the quick run); on the T3-scaled path too little to freeze
    # (TFRC(180) starves instead).
    *(
        (
            "loguinov-table1",
            f"Loguinov Table I, {path}, n = 50 ({runs}): {scheme} share of the session frozen",
        )
        for runs, path, scheme in (
            *(
                (r, "T1", s)
                for r in ("60 s, seed 6", "600 s, seeds 6-8")
                for s in ("IIAD(0.10,1/2)", "ISCC(-1.5,2)")
            ),
            ("60 s, seed 6", "T1", "TFRC(180)"),
            *(
                (r, "T3", s)
                for r in ("60 s, seed 6", "600 s, seeds 6-8")
                for s in ("AIMD(0.19,1/2)", "SQRT(0.18,1/2)", "IIAD(0.10,1/2)", "TFRC(180)")
            ),
        )
    ),
    # DCTCP's sawtooth analysis (Alizadeh et al. §3.3) where the paper finds it less accurate:
    # ten flows at 10 Gb/s swing less than (8) (not all in phase); at 1 Gb/s ten flows have
    # windows of about one packet (W* = 1.14), far from the W* >> 1 of (6).
    *(
        ("dctcp-sigcomm10", f"{where}, {over}")
        for where in (
            "10 Gb/s, N = 10, K = 13: queue amplitude A, 1st to 99th percentile (packets)",
            "1 Gb/s, N = 10, K = 2: queue amplitude A, 1st to 99th percentile (packets)",
            "1 Gb/s, N = 10, K = 2: queue maximum, 99th percentile (packets)",
        )
        for over in ("seed 1", "mean of seeds 1-10")
    ),
    # Ware et al.'s model of BBR v1 against CUBIC puts BBR at its in-flight cap beside a full
    # buffer; ccscope's BBR v1 sits below its cap (cut per loss, packet conservation in
    # recovery) beside a buffer CUBIC leaves half full, so the model overestimates its share.
    *(
        ("bbr-vs-cubic", f"{x:g} BDP: BBR v1's share against {counts} CUBIC flows, mean")
        for x, counts in (
            *((x, "1, 4") for x in (2, 8)),
            *((x, "1, 2, 4, 8, 16") for x in (0.5, 1, 2, 4, 8, 16)),
        )
    ),
    *(
        ("bbr-vs-cubic", f"BBR v1 against Ware et al.'s model, {grid}: median relative error")
        for grid in ("2 buffers × 2 CUBIC counts, 300 s", "6 buffers × 5 CUBIC counts, 600 s")
    ),
    # Copa: two Copa flows alone turn competitive; at small δ the queue per flow grows with n.
    ("copa-nsdi18", "Copa(0.5), n = 2, competitive mode on: mean queue per flow (packets)"),
    ("copa-nsdi18", "Copa(0.25,0), n = 1, 2, 4, 8: mean queue per flow (packets), least-most"),
    # The AQMs with four flows at a 20 ms round trip, where one BDP is 20 ms of buffer: the
    # flows' windows are a few packets, CoDel's and PIE's mean sojourn stands above the target,
    # DropTail's queue below PIE's 15 ms, and PIE lets the link idle some milliseconds where
    # Cai et al.'s (24) gives none; TFRC beside eight CUBIC flows under FQ-CoDel gets 0.985 of
    # its share in the full run. Each claim's reason says why.
    *(
        (rid, f"{label} {what}, {name}, {rate} Mb/s, 20 ms RTT, mean of seeds 1-10, 120 s")
        for rid, label, what, name, rate in (
            ("codel-rfc8289", "CoDel", "mean sojourn (ms)", "Reno", 10),
            ("codel-rfc8289", "CoDel", "mean sojourn (ms)", "CUBIC", 10),
            ("pie-rfc8033", "PIE", "mean sojourn (ms)", "Reno", 10),
            ("pie-rfc8033", "PIE", "mean sojourn (ms)", "CUBIC", 10),
            (
                "pie-rfc8033",
                "PIE",
                "mean sojourn below DropTail's with one BDP (25 pkts)",
                "Reno",
                10,
            ),
            (
                "pie-rfc8033",
                "PIE",
                "mean sojourn below DropTail's with one BDP (250 pkts)",
                "Reno",
                100,
            ),
            ("pie-rfc8033", "PIE", "utilization", "Reno", 10),
        )
    ),
    # Model version 6 (CUBIC counts what an ACK delivers once) took the quick run's TFRC from
    # 1.082 to 1.080 Mb/s, past its interval's edge (1.111 ± 0.023).
    *(
        (
            "fq-codel-isolation",
            "FQ-CoDel: media throughput (b/s), TFRC beside 8 CUBIC flows, 10 Mb/s, mean of "
            f"seeds 1-10, {seconds} s",
        )
        for seconds in (20, 60)
    ),
    # The same two results on an emulated T1, on real packets and in the packet engine on the
    # same scenario: AIMD's loss starts several times above Table I's p_2 and ISCC's cannot fall
    # below the loss its decreases cost at a few packets per RTT; the non-scalable schemes but
    # AIMD and SQRT lose or starve too much to stay within 13-68% frozen (TFRC only in 20 s).
    *(
        (rid, f"{scheme}: fitted exponent of p_n, {runs}, {engine}")
        for rid, runs in (
            ("loguinov-fig8-udp", "n = 4, 16, 20 s each"),
            ("loguinov-fig8-udp", "n = 2, 4, 8, 16, 60 s each"),
        )
        for scheme in ("AIMD(0.19,1/2)", "ISCC(-1.5,2)")
        for engine in ("real packets", "packet engine")
    ),
    *(
        (
            "loguinov-table1-udp",
            f"Loguinov Table I, T1, n = 50 ({engine}, {runs}, seed 6): "
            f"{scheme} share of the session frozen",
        )
        for engine in ("real packets", "packet engine")
        for runs, scheme in (
            *((r, s) for r in ("20 s", "600 s") for s in ("IIAD(0.10,1/2)", "ISCC(-1.5,2)")),
            ("20 s", "TFRC(180)"),
        )
    ),
}


@functools.cache
def linux_marks() -> dict[tuple[str, str], str]:
    """linux-reno, -cubic, -bbr and linux-friendliness's quick rows, each with its mark in
    docs/realnet.md's tables (linux.quick_marks, linux.friendliness_marks): "†" where the
    claim fails for every Linux value within 2.5 standard deviations (the stored runs' own
    or the measured spread the tolerance rests on, whichever is larger) of the mean of Linux's
    stored runs (the model's run being seed 1's, as the claim's), "~" where its verdict changes
    within them (checked for a number only); each failing claim's reason says what Linux does
    that the model does not, or that it is not diagnosed. Made when first needed: the model's
    side runs here."""
    marks = {
        (f"linux-{cc}", linux.quantity(cc, linux.QUICK[k], metric)): mark.strip()
        for cc in linux.CONTROLLER
        for k, by_metric in enumerate(linux.quick_marks(cc))
        for metric, (_, _, mark) in by_metric.items()
    }
    return marks | {
        ("linux-friendliness", linux.friendliness_quantity(name, cc, 1)): mark.strip()
        for (name, cc), (_, _, mark) in linux.friendliness_marks().items()
    }


#: linux-emulators's quick rows (the two-flow case) whose verdict changes from run to run. Over
#: twenty paired runs of `python bench/linux_spread.py --emulators --runs 20` the throughput
#: failed in one (the user-space emulator's run carried 9.913 Mb/s, its others 9.945-9.963),
#: the retransmission rate in one (1.01 times its tolerance) and the loss rate, its twin, held
#: at up to 0.96 times its tolerance; the mean queue, the mean window and the window's CoV held
#: in all twenty, at up to 0.88 times theirs.
#: So is the one-flow throughput of linux-reno, -cubic and -bbr, whose Linux side runs live: its
#: tolerance rests on ten runs (SPREAD), too few to show the tail that twenty runs of the same
#: Linux Reno flow through the user-space emulator show (above: three of twenty at 9.853-9.909
#: Mb/s, the rest at 9.939-9.947). On this machine linux-cubic's row failed in two sessions
#: out of four (Linux 9.914 and 9.934 Mb/s against the model's 10.0; tolerance 0.48%), while its
#: five stored runs all carried 10.0.
VARIES = {
    ("linux-emulators", linux.emulator_quantity(linux.QUICK[1], metric))
    for metric in ("throughput_bps", "loss_rate", "retransmit_rate")
} | {
    (f"linux-{cc}", linux.quantity(cc, linux.QUICK[0], "throughput_bps"))
    for cc in ("reno", "cubic", "bbr")
}


def check(report: dict) -> None:
    assert report["rows"], report["id"]
    stored = report["id"] in ("linux-reno", "linux-cubic", "linux-bbr", "linux-friendliness")
    marks = linux_marks() if stored and report["quick"] else {}
    for row in report["rows"]:
        assert not row["source"].startswith(UNSOURCED), (report["id"], row)
        name = (report["id"], row["quantity"])
        expected = name not in NOT_REPRODUCED and marks.get(name) != "†"
        measured = row["measured"]
        if (
            name in VARIES
            or marks.get(name) == "~"
            or (report["id"].startswith("linux-") and not report["quick"])
        ):
            # The full grid's verdicts were never measured over runs (the quick set's were).
            assert math.isfinite(measured), row
        else:
            # Real-time rows included, each held to its measured run-to-run spread: over
            # realnet.REAL_RUNS quick runs each kept its verdict (the AIMD exponent on the
            # emulated T1, the most spread, 0.70-0.98 against 1).
            assert row["holds"] == expected, (report["id"], row)
        assert row["holds"] or row["why"]


#: Every entry, the real-time ones marked to run alone (marker `realtime`).
ENTRIES = [
    pytest.param(rid, marks=pytest.mark.realtime if entry.real_time else ())
    for rid, entry in reproduce.REGISTRY.items()
]


#: The quick runs' reports, by id, as test_quick_reproduction made them, for the page's check.
QUICK: dict[str, dict] = {}


@pytest.mark.parametrize("rid", ENTRIES)
def test_quick_reproduction(rid):
    QUICK[rid] = reproduce.run(rid, quick=True)
    check(QUICK[rid])


def test_the_validation_page_table_is_the_output_of_reproduce_all(monkeypatch):
    """docs/validation.md's table is what `ccscope reproduce --all --quick --markdown` prints;
    each quick run comes from the test above when it ran in this session (the runs are
    deterministic), else the command makes it."""
    run = reproduce.run

    def reused(rid, quick=False, **options):
        return (
            QUICK[rid]
            if quick and rid in QUICK and not any(options.values())
            else run(rid, quick=quick, **options)
        )

    monkeypatch.setattr(reproduce, "run", reused)
    done = CliRunner().invoke(app, ["reproduce", "--all", "--quick", "--markdown"])
    assert done.exit_code == 0, done.output
    assert marked("validation.md", "ccscope reproduce --all --quick --markdown") == done.stdout, (
        "docs/validation.md's validation table is stale: paste the output of "
        "`ccscope reproduce --all --quick --markdown` between its markers"
    )


#: The full runs' reports, by id, as test_full_reproduction made them, for the pages' check.
FULL: dict[str, dict] = {}


@pytest.mark.slow
@pytest.mark.parametrize("rid", ENTRIES)
def test_full_reproduction(rid):
    FULL[rid] = reproduce.run(rid, quick=False)
    check(FULL[rid])


@pytest.mark.slow
def test_the_validation_page_full_table_is_the_output_of_reproduce_all():
    """docs/validation.md's folded table is `ccscope reproduce --all --markdown`, and its claims
    that do not reproduce `ccscope reproduce --all --failing --markdown`; the reports
    come from the tests above when they ran in this session (the runs are deterministic), else
    here."""
    pasted = marked("validation.md", "ccscope reproduce --all --markdown")
    reports = [FULL.get(rid) or reproduce.run(rid, quick=False) for rid in reproduce.ids()]
    assert pasted == reproduce.markdown(reports), (
        "docs/validation.md's table of the full runs is stale: paste the output of "
        "`ccscope reproduce --all --markdown` between its markers"
    )
    failing = marked("validation.md", "ccscope reproduce --all --failing --markdown")
    assert failing == reproduce.markdown(reports, failing=True), (
        "docs/validation.md's claims that do not reproduce are stale: "
        'python docs/tables.py --match="reproduce --all"'
    )


@pytest.mark.slow
def test_the_controllers_page_cubic_table_is_the_output_of_reproduce():
    """docs/controllers.md's CUBIC section shows `ccscope reproduce cubic-rfc9438 --markdown`."""
    pasted = marked("controllers.md", "ccscope reproduce cubic-rfc9438 --markdown")
    report = FULL.get("cubic-rfc9438") or reproduce.run("cubic-rfc9438", quick=False)
    assert pasted == reproduce.markdown([report]), (
        "docs/controllers.md's CUBIC table is stale: paste the output of "
        "`ccscope reproduce cubic-rfc9438 --markdown` between its markers"
    )
