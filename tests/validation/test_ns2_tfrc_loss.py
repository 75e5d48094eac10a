"""TFRC-ns2 against ns-2.35 itself under heavy random loss, side by side (make validate).

One TFRC flow crosses a 10 Mb/s, 50 ms link that loses each packet with probability p; ns-2.35
runs bench/ns2_tfrc_loss.tcl on the same set-up. Under heavy loss (below about one packet per
RTT) ns-2's receiver merges adjacent losses into one loss event unless the sender has moved to
a new round since the event began (tfrc-sink.cc new_loss(), PreciseLoss_ = 1, the default);
without that rule ccscope's throughput was 0.80x ns-2's at p = 0.2. The two means must agree
over five seeds each by the ns-2.35 column's rule (ccscope.ns2column.agree_means).
"""

from __future__ import annotations

import math
import shutil
import statistics
import sys
from pathlib import Path

import pytest

from ccscope import ns2column

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from ns2_compare_rate import loss_ccscope, loss_ns2  # noqa: E402

SEEDS = range(1, 6)
SECONDS = 300


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 is not installed (make ns2)")
@pytest.mark.parametrize("p", [0.2, 0.3])
def test_tfrc_ns2_throughput_under_heavy_loss_matches_ns2(p, capsys):
    ours = [loss_ccscope(p, SECONDS, s) for s in SEEDS]
    theirs = [loss_ns2(p, SECONDS, s) for s in SEEDS]
    se = math.sqrt((statistics.variance(ours) + statistics.variance(theirs)) / len(SEEDS))
    with capsys.disabled():
        print(
            f"\nTFRC-ns2 at p = {p}: ccscope {statistics.mean(ours):.4f} Mb/s, "
            f"ns-2.35 {statistics.mean(theirs):.4f} Mb/s (5 seeds; s.e. of the difference "
            f"{se:.4f})"
        )
    assert ns2column.agree_means(theirs, ours), (ours, theirs)
