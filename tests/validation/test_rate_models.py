"""TFRC and TCP sharing a gentle-RED dumbbell (scenarios/tfrc-tcp-red.toml). TCP-friendliness:
the long-term mean TFRC throughput over the mean TCP goodput lies in
[0.7, 1.4] (Floyd, Handley, Padhye & Widmer, SIGCOMM 2000, §4 and Fig. 6: TFRC's normalized
throughput against TCP SACK on RED stays of order one). bench/tfrc_anchor.py runs the same
set-up in ns-2.35 for comparison.
"""

from __future__ import annotations

import pytest
from validation_setups import SCENARIOS

import ccscope

RATIO_BOUNDS = (0.7, 1.4)  # "of order one", as a factor of 1.4 either side
N_TFRC = 4


def tfrc_tcp_ratio(controller: str, duration: str) -> float:
    text = (SCENARIOS / "tfrc-tcp-red.toml").read_text()
    text = text.replace('"tfrc-ns2"', f'"{controller}"')
    text = text.replace('duration = "300s"', f'duration = "{duration}"')
    f = ccscope.run(ccscope.loads(text)).flows
    return f.throughput_bps[:N_TFRC].mean() / f.goodput_bps[N_TFRC:].mean()


@pytest.mark.parametrize("controller", ["tfrc-ns2", "tfrc"])
def test_tfrc_is_tcp_friendly_on_red_in_a_short_run(controller):
    ratio = tfrc_tcp_ratio(controller, "80s")
    assert RATIO_BOUNDS[0] <= ratio <= RATIO_BOUNDS[1], f"{controller}: TFRC/TCP = {ratio:.3f}"


@pytest.mark.slow
@pytest.mark.parametrize("controller", ["tfrc-ns2", "tfrc"])
def test_tfrc_is_tcp_friendly_on_red_over_300_seconds(controller):
    ratio = tfrc_tcp_ratio(controller, "300s")
    assert RATIO_BOUNDS[0] <= ratio <= RATIO_BOUNDS[1], f"{controller}: TFRC/TCP = {ratio:.3f}"
