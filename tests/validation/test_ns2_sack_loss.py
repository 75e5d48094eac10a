"""TCP SACK loss recovery against ns-2.35's Sack1 under random loss, side by side (make validate).

Four bulk SACK flows cross a 100 Mb/s, 20 ms link that loses each packet with probability p;
ns-2.35 runs bench/ns2_sack_loss.tcl on the same set-up. Under independent losses a sender
that retransmits only what is lost (RFC 6675's IsLost, ns-2's scoreboard) sends one
retransmission per lost packet, lost retransmissions counted as losses too, so the ratio is
1 up to the losses still unrepaired when the run ends; ns-2's is measured in the same command
(its losses estimated as p times the data packets sent, every one of which crosses the link).
ccscope's sack used to retransmit 1.03 / 1.06 per loss at p = 0.02 / 0.05 (against ns-2's 0.99 /
1.00): after a timeout, go-back-N resent data the receiver had SACKed since (RFC 6675 §5.1).

Timeouts differ by rule, not by chance: RFC 6675's IsLost takes a hole for lost once DupThresh
(3) packets above it are SACKed, and counts it in the pipe until then; ns-2.35's Sack1
retransmits any hole below a SACKed packet (scoreboard-rq.cc GetNextRetran) and keeps a pipe
counter. With windows of a few packets (p = 0.05) a hole near the end of a window waits for
SACKs that the pipe does not let the sender earn, and the retransmission timer fires first.
With ns-2's rule (sack_lost_after = 1) and its fractional windows (integer_window = false)
ccscope times out as often as ns-2 and sends as many packets.
"""

from __future__ import annotations

import math
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from ns2_compare_tcp import loss_ccscope, loss_ns2  # noqa: E402  (the runs make validate prints)

#: ccscope's sack with ns-2.35 Sack1's loss rule and fractional windows.
NS2_RULES = {"sack_lost_after": 1, "integer_window": False}


def ccscope_recovery(p: float, seed: int, rules: dict | None = None) -> dict:
    return loss_ccscope({"variant": "sack", **(rules or {})}, p, seed)


def ns2_recovery(p: float, seed: int) -> dict:
    return loss_ns2(["Sack1"], p, seed)


def both(p: float, capsys, rules: dict | None = None) -> tuple[dict, dict]:
    ours, theirs = ccscope_recovery(p, 1, rules), ns2_recovery(p, 1)
    with capsys.disabled():
        for name, r in (("ccscope", ours), ("ns-2.35", theirs)):
            print(
                f"\nSACK at p = {p}, {name}: {r['retransmits'] / r['lost']:.3f} retransmits "
                f"and {r['timeouts'] / r['lost']:.4f} timeouts per loss ({r['timeouts']} "
                "timeouts)",
                end="",
            )
        print()
    return ours, theirs


needs_ns2 = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 is not installed")


@pytest.mark.slow
@needs_ns2
@pytest.mark.parametrize("p", [0.02, 0.05])
def test_sack_retransmits_one_packet_per_loss_as_ns2(p, capsys):
    ours, theirs = both(p, capsys)
    assert abs(ours["retransmits"] / ours["lost"] - theirs["retransmits"] / theirs["lost"]) <= 0.02


@pytest.mark.slow
@needs_ns2
@pytest.mark.parametrize(
    ("p", "rules"),
    [
        (0.02, None),
        pytest.param(
            0.05,
            None,
            marks=pytest.mark.xfail(
                strict=True,
                reason=(
                    "RFC 6675's IsLost (3 SACKed packets above a hole) against ns-2's Sack1 (any SACKed "
                    "packet above it): at p = 0.05 ccscope's sack times out 287 times in 200 s where "
                    "ns-2's times out 228 (0.081 vs 0.059 per loss); with ns-2's rule, 229"
                ),
            ),
        ),
        (0.02, NS2_RULES),
        (0.05, NS2_RULES),
    ],
)
def test_sack_times_out_as_often_as_ns2(p, rules, capsys):
    # Timeouts are rare events: their counts differ by chance with a standard error of about
    # sqrt(1/a + 1/b) in ratio; three of them are allowed.
    ours, theirs = both(p, capsys, rules)
    a, b = ours["timeouts"], theirs["timeouts"]
    ratio = (a / ours["lost"]) / (b / theirs["lost"])
    assert abs(ratio - 1) <= 3 * math.sqrt(1 / a + 1 / b)


#: The validation page's table of TCP against ns-2.35 and the command that makes it.
TABLE = "python bench/ns2_compare_tcp.py --seeds 5 --markdown"


@pytest.mark.slow
def test_the_validation_page_table_is_the_output_of_the_bench():
    import subprocess

    from docpages import marked

    assert shutil.which("ns"), "ns-2.35 is needed: make ns2"
    _, script, *args = TABLE.split()
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve().parents[2] / script), *args],
        capture_output=True,
        text=True,
        timeout=3600,
        check=True,
    )
    assert marked("validation.md", TABLE) == done.stdout, f"stale: paste the output of `{TABLE}`"
