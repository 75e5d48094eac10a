"""The state trace (`[trace] state = true`): senders' and receivers' control state as it
changes, checked against what the protocols' specifications say the state must be."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ccscope


def fat_link(source: dict, loss: dict, seconds: int = 30) -> dict:
    return {
        "run": {"duration": f"{seconds}s", "seed": 3},
        "topology": {"kind": "fat_link", "rate": "100Mbps", "delay": "25ms", "loss": loss},
        "flows": [{"source": source}],
        "trace": {"state": True, "flows": False, "queues": False},
    }


def callbacks(r: ccscope.Result, side: str = "sender") -> list[dict[str, float]]:
    """The state after each change, in order: one dict per instant, every field at its latest
    value."""
    st = r.trace.state
    st = st[(st["flow"] == 0) & (st["side"] == side)]
    out, now = [], {}
    for t, rows in st.groupby("time_s", sort=True):
        now = {**now, **dict(zip(rows["field"].astype(str), rows["value"], strict=True))}
        out.append({"t": t, **now})
    return out


def rfc5348_rate_bps(p: float, rtt: float, t_rto: float, s: float) -> float:
    """RFC 5348 §3.1, b = 1."""
    return (
        8
        * s
        / (rtt * math.sqrt(2 * p / 3) + t_rto * 3 * math.sqrt(3 * p / 8) * p * (1 + 32 * p * p))
    )


EVERY = 40


@pytest.fixture(scope="module")
def tfrc() -> ccscope.Result:
    # Every 40th packet is lost; at about 125 packets/s 40 packets span more than an RTT, so
    # each loss starts its own loss event and every loss interval is 40 packets long.
    return ccscope.run(
        fat_link({"kind": "rate", "controller": "tfrc"}, {"kind": "periodic", "every": EVERY})
    )


def test_state_trace_is_off_by_default_and_written_when_asked(tfrc, tmp_path):
    plain = fat_link({"kind": "rate", "controller": "tfrc"}, {"kind": "periodic", "every": EVERY})
    del plain["trace"]
    assert ccscope.run(plain).trace is None
    assert set(tfrc.trace.state.columns) == {"time_s", "flow", "side", "field", "value"}
    assert np.isfinite(tfrc.trace.state["value"]).all()
    written = {p.name for p in tfrc.write(tmp_path / "out")}
    assert "trace_state.parquet" in written


def test_tfrc_loss_event_rate_is_the_periodic_loss_rate_once_the_history_is_full(tfrc):
    # Losses are the packets 39, 79, 119, ...: after the ninth the eight closed intervals are
    # all 40 packets, so RFC 5348 §5.4 gives 1/p = max(40, mean with the open interval I_0).
    # I_0 passes 40 only while the next loss waits for three later packets (§5.1), by at most
    # 3 packets of weight w_0 / sum(w) = 1/6: 1/p lies in [40, 40.5], and is 40 most of the time.
    weights = [1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2]
    top = EVERY + 3 * weights[0] / sum(weights)
    for side in ("receiver", "sender"):
        inv = np.array([1 / c["p"] for c in callbacks(tfrc, side) if c["t"] > 5.0])
        assert len(inv) > 50
        assert ((inv > EVERY - 1e-9) & (inv < top + 1e-9)).all(), (side, sorted(set(inv)))
    rx = np.array([1 / c["p"] for c in callbacks(tfrc, "receiver") if c["t"] > 5.0])
    assert np.mean(np.isclose(rx, EVERY, rtol=1e-12)) > 0.3


def test_tfrc_sender_rate_is_the_equation_at_its_own_p_and_rtt(tfrc):
    # RFC 5348 §4.3: X_calc from the equation with t_RTO = 4R; X = min(X_calc, 2 X_recv).
    for c in callbacks(tfrc):
        if c["t"] < 5.0:
            continue
        assert c["t_rto_s"] == pytest.approx(4 * c["rtt_s"], rel=1e-12)
        x_calc = rfc5348_rate_bps(c["p"], c["rtt_s"], c["t_rto_s"], 1000)
        assert c["x_calc_bps"] == pytest.approx(x_calc, rel=1e-9)
        assert c["rate_bps"] == pytest.approx(min(x_calc, 2 * c["x_recv_bps"]), rel=1e-9)


def test_a_greedy_tfrc_sender_is_never_data_limited(tfrc):
    # RFC 5348 §4.3's data-limited rule is for a sender that sent less than it could: a bulk
    # source always has data waiting for the next send slot.
    reports = [c for c in callbacks(tfrc) if "data_limited" in c]
    assert len(reports) > 100
    assert all(c["data_limited"] == 0 for c in reports)


def test_tfrc_keeps_the_largest_receive_rate_over_data_limited_reports():
    # RFC 5348 §4.3: the encoder at a fixed 150 kb/s codes 625-byte frames, one packet each,
    # 1/30 s apart, on an empty 100 Mb/s path: after its start-up transient no packet waits for
    # a send slot, so every report covers a data-limited interval, p stays 0, and each report
    # keeps the largest receive rate seen (Maximize X_recv_set): X_recv_set never falls, and the
    # rate stays within recv_limit = twice it, or at the initial rate W_init/R (W_init = 4380 B
    # for 1200-byte packets) if that is higher (§4.3 step 4's slow start).
    encoder = {"kind": "encoder", "min_rate": "150kbps", "max_rate": "150kbps"}
    encoder |= {"size_scale": 0, "interval_scale": 0}
    source = {"kind": "rate", "controller": "tfrc", "packet_size": "1200B", "app": encoder}
    table = fat_link(source, {})
    del table["topology"]["loss"]
    r = ccscope.run(table)
    reports = [c for c in callbacks(r) if c["t"] > 2.0]
    assert len(reports) > 100
    assert all(c["data_limited"] == 1 and c["p"] == 0 for c in reports)
    kept = [c["x_recv_bps"] for c in reports]
    assert all(b >= a for a, b in zip(kept, kept[1:], strict=False))
    for c in reports:
        assert c["rate_bps"] <= max(2 * c["x_recv_bps"], 8 * 4380 / c["rtt_s"]) * (1 + 1e-12)


@pytest.fixture(scope="module")
def reno() -> list[dict[str, float]]:
    src = {
        "kind": "tcp",
        "variant": "reno",
        "initial_window": 1,
        "delayed_ack": False,
        "integer_window": True,
        "max_window": 1000,
    }
    return callbacks(ccscope.run(fat_link(src, {"kind": "periodic", "every": 100}, seconds=60)))


def test_tcp_slow_start_adds_one_packet_per_ack(reno):
    # RFC 5681 §3.1: cwnd += 1 SMSS per ACK in slow start (no delayed ACKs here).
    ss = [c for c in reno if "ssthresh_pkts" not in c]
    steps = np.diff([c["cwnd_pkts"] for c in ss])
    assert len(steps) > 10 and set(steps[steps != 0]) == {1.0}


def test_tcp_halves_at_each_loss_and_grows_one_packet_per_window_between(reno):
    reductions = increases = 0
    for before, after in zip(reno[:-1], reno[1:], strict=True):
        w, w2 = before["cwnd_pkts"], after["cwnd_pkts"]
        if w2 < w:
            reductions += 1
            half = math.floor(w / 2)
            if w2 == 1:  # a timeout: RFC 5681 §3.1 (4), ssthresh = max(FlightSize/2, 2)
                assert after["ssthresh_pkts"] == max(half, 2)
            else:  # fast retransmit: cwnd = ssthresh = half the window (integer windows)
                assert after["ssthresh_pkts"] == half == w2
        elif "ssthresh_pkts" in before and w2 > w >= after["ssthresh_pkts"]:
            # Congestion avoidance, RFC 5681 §3.1 (3): cwnd += 1/cwnd per ACK.
            increases += 1
            assert w2 - w == pytest.approx(1 / w, rel=1e-9)
    assert reductions > 20 and increases > 1000
