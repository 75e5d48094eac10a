"""A link's jitter (``topology.*.jitter``): the truncated Gaussian packet delay variation of
draft-ietf-rmcat-eval-criteria-13 §4.5 (RFC 8868), a flow's packets in order (NR-RPVD) unless
``reorder`` (RBPDV). Expected values are the model's, never the implementation's output."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import ccscope
from ccscope.errors import ScenarioError
from ccscope.scenario import validate

STD_MS = 5.0
#: E|N(0, 1)| clamped at 3: 2(φ(0) − φ(3)) + 3·P(|N| > 3) = 0.78902 + 0.00810; its standard
#: deviation sqrt(E[X²] − E²) = sqrt(0.99501 − 0.63540) = 0.5997.
MEAN, SD = 0.79712, 0.5997


def cbr(rate: str, jitter: dict | None, seconds: int = 60) -> dict:
    """One CBR flow of 1000-byte packets over a 10 Mb/s bottleneck of 40 ms (access 5 ms each
    side at 100 Mb/s): at these rates nothing queues, so every packet's one-way delay is the
    same but for the jitter."""
    bottleneck = {
        "rate": "10Mbps",
        "delay": "40ms",
        "queue": {"kind": "droptail", "limit": "1000pkts"},
    }
    if jitter is not None:
        bottleneck["jitter"] = jitter
    return {
        "run": {"duration": f"{seconds}s", "seed": 5},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": bottleneck,
            "access": {"rate": "100Mbps", "delay": "5ms"},
        },
        "flows": [{"source": {"kind": "cbr", "rate": rate, "packet_size": "1000B"}}],
        "trace": {"delays": True},
    }


def delays(table: dict):
    d = ccscope.run(table).trace.delays
    return d["time_s"].to_numpy(), d["delay_s"].to_numpy()


def test_each_packet_is_delayed_by_the_drafts_truncated_gaussian():
    """Packets 40 ms apart (200 kb/s), far more than the 15 ms bound, so the no-reordering rule
    never binds: each packet's extra delay over the jitter-free run is one draw of
    |N(0, 5 ms²)| clamped at 3σ (§4.5.3's recommended std and N_STD)."""
    _, base = delays(cbr("200kbps", None))
    assert np.ptp(base) < 1e-9  # the path without jitter: one delay for every packet
    _, got = delays(cbr("200kbps", {"std": f"{STD_MS:g}ms"}))
    extra = (got - base[0]) * 1e3 / STD_MS
    assert len(extra) > 1400
    assert extra.min() >= -1e-6 and extra.max() <= 3.0 + 1e-6
    # The mean within 4 standard errors of the model's.
    assert abs(extra.mean() - MEAN) < 4 * SD / np.sqrt(len(extra))
    # A third of |N| lies above 0.9674 (P(|N| > 0.9674) = 1/3): within 4 binomial errors.
    above = (extra > 0.9674).mean()
    assert abs(above - 1 / 3) < 4 * np.sqrt(2 / 9 / len(extra))


def test_no_reordering_keeps_a_flows_order_and_spacing_and_reorder_lets_packets_overtake():
    """5 Mb/s of 1000-byte packets: 1.6 ms apart, well inside the 15 ms spread. NR-RPVD (the
    default) delivers them in the order sent, each at least one serialization time (0.8 ms at
    10 Mb/s) after the one before; RBPDV (`reorder = true`) lets some overtake."""
    t, d = delays(cbr("5Mbps", {"std": "5ms"}, seconds=10))
    sent = t - d
    assert np.all(np.diff(sent) > 0)
    assert np.diff(t).min() >= 0.8e-3 - 1e-9
    t, d = delays(cbr("5Mbps", {"std": "5ms", "reorder": True}, seconds=10))
    assert (np.diff(t - d) < 0).sum() > 100


def test_a_run_with_jitter_repeats_itself_and_one_without_is_as_before():
    table = cbr("1Mbps", {"std": "5ms"}, seconds=5)
    assert np.array_equal(delays(table)[1], delays(copy.deepcopy(table))[1])
    # The jitter is the link's own stream: the run without it is untouched by its draws.
    assert np.ptp(delays(cbr("1Mbps", None, seconds=5))[1]) < 1e-9


@pytest.mark.parametrize(
    "jitter, field",
    [
        ({"std": "0ms"}, "topology.bottleneck.jitter.std"),
        ({"std": "2s"}, "topology.bottleneck.jitter.std"),
        ({"std": "5ms", "n_std": 0}, "topology.bottleneck.jitter.n_std"),
        ({"std": "5ms", "n_std": 11}, "topology.bottleneck.jitter.n_std"),
        ({"std": "5ms", "spread": 1}, "spread"),
    ],
)
def test_bad_jitter_names_its_field(jitter, field):
    with pytest.raises(ScenarioError) as e:
        ccscope.run(cbr("1Mbps", jitter, seconds=1))
    message = str(e.value)
    assert field in message and "\n" not in message


def test_the_kernel_path_refuses_jitter_on_its_bottleneck():
    """tc's queues on the kernel path hand packets on in order at once: no jitter there."""
    table = cbr("1Mbps", {"std": "5ms"}, seconds=1)
    table["run"] |= {"engine": "udp", "emulator": "kernel"}
    with pytest.raises(ScenarioError) as e:
        validate(table)
    assert "topology.bottleneck.jitter" in str(e.value) and "kernel" in str(e.value)
