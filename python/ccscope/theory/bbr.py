"""BBR v1's steady state (draft-cardwell-iccrg-bbr-congestion-control-00; Cardwell et al., ACM
Queue 2016) and Ware, Mukerjee, Seshan & Sherry's model of one or more BBR flows against
loss-based flows ("Modeling BBR's interactions with loss-based congestion control", IMC 2019,
§4, equations (5)-(11)).

Conventions: data in packets, times in seconds, rates in packets per second; a buffer of X
bandwidth-delay products holds q = X·c·l packets, c the bottleneck's rate and l the path's
round-trip propagation delay.

BBR v1 paces at pacing_gain·BtlBw and caps what it has in flight at
cwnd_gain·BtlBw·RTprop (draft §4.2.3.2, cwnd_gain = 2 in ProbeBW, §4.3.4). Alone on a path its
estimates are the path's own, it paces at the bottleneck's rate and queues only what the
1.25 phase of the gain cycle adds: at most 0.25·BDP, drained by the 0.75 phase that follows
(§4.3.4.1). Several flows each overestimate their share a little (BtlBw is a windowed
maximum), so together they send faster than the link until each is window-limited at
cwnd_gain·BtlBw·RTprop: cwnd_gain BDPs in flight, (cwnd_gain − 1)·BDP of them queued.

Against loss-based flows Ware et al. find BBR window-limited too, by that in-flight cap with an
RTprop that ProbeRTT measures above the competitors' queue (their (7)). Setting the cap equal
to what BBR has in flight gives the loss-based flows' share p (their (9)), whatever the number
of loss-based flows; ProbeRTT's pauses take a further share of BBR's time ((10), (11)).
"""

from __future__ import annotations

import numpy.typing as npt

from ._validate import FloatOrArray, check, out

__all__ = [
    "bbr_check_rows",
    "bbr_inflight_cap",
    "bbr_probe_queue_bound",
    "bbr_probe_rtt_share",
    "bbr_shared_queue",
    "ware_bbr_share",
    "ware_loss_based_share",
    "ware_probe_time_share",
]

#: draft-cardwell-iccrg-bbr-congestion-control-00 §4.3.5: ProbeRTT when RTprop is this old (s)...
PROBE_RTT_INTERVAL_S = 10.0
#: ... for this long at 4 packets (s).
PROBE_RTT_DURATION_S = 0.2
#: §4.3.4.1: the gain of the probing phase of ProbeBW's cycle.
PROBE_GAIN = 1.25


def bbr_inflight_cap(
    btlbw: npt.ArrayLike, rtprop: npt.ArrayLike, cwnd_gain: npt.ArrayLike = 2.0
) -> FloatOrArray:
    """BBR's in-flight cap cwnd_gain·BtlBw·RTprop (draft §4.2.3.2, without the send quanta it
    adds for delayed and stretched ACKs). ``btlbw`` ≥ 0 packets/s; ``rtprop`` ≥ 0 s;
    ``cwnd_gain`` ≥ 1 (§4.3.4: 2). Returns packets."""
    b = check("btlbw", btlbw, ge=0.0)
    r = check("rtprop", rtprop, ge=0.0)
    g = check("cwnd_gain", cwnd_gain, ge=1.0)
    return out(g * b * r)


def bbr_probe_queue_bound(bdp: npt.ArrayLike) -> FloatOrArray:
    """The most a lone BBR flow queues with its estimates right: the 1.25 phase sends
    0.25·BtlBw more than the link drains for one RTprop, 0.25·BDP (draft §4.3.4.1). ``bdp`` ≥ 0
    packets."""
    d = check("bdp", bdp, ge=0.0)
    return out((PROBE_GAIN - 1.0) * d)


def bbr_shared_queue(bdp: npt.ArrayLike, cwnd_gain: npt.ArrayLike = 2.0) -> FloatOrArray:
    """The queue of two or more BBR flows, each window-limited at cwnd_gain·BtlBw·RTprop:
    (cwnd_gain − 1)·BDP packets (draft §4.2.3.2; Ware et al. §4.2). ``bdp`` ≥ 0 packets;
    ``cwnd_gain`` ≥ 1."""
    d = check("bdp", bdp, ge=0.0)
    g = check("cwnd_gain", cwnd_gain, ge=1.0)
    return out((g - 1.0) * d)


def bbr_probe_rtt_share(rtprop: npt.ArrayLike) -> FloatOrArray:
    """The largest share of a lone flow's time ProbeRTT holds it at 4 packets: a round trip to
    drain to 4 packets, 200 ms there, a round trip to refill, every 10 s (draft §4.3.5):
    (0.2 + 2·RTprop)/10. ``rtprop`` ≥ 0 s, at most 4.9 s."""
    r = check("rtprop", rtprop, ge=0.0, le=4.9)
    return out((PROBE_RTT_DURATION_S + 2.0 * r) / PROBE_RTT_INTERVAL_S)


def ware_loss_based_share(
    buffer_bdp: npt.ArrayLike, bbr_flows: npt.ArrayLike, buffer_pkts: npt.ArrayLike
) -> FloatOrArray:
    """Ware et al. (9): the loss-based flows' share of the link against N BBR flows,
    p = 1/2 − 1/(2X) − 4N/q, 0 where that is negative (BBR's cap then exceeds the BDP and the
    buffer together). ``buffer_bdp`` X > 0; ``bbr_flows`` N ≥ 1; ``buffer_pkts`` q > 0 (q = X·BDP).
    Independent of the number of loss-based flows."""
    x = check("buffer_bdp", buffer_bdp, gt=0.0)
    n = check("bbr_flows", bbr_flows, ge=1.0)
    q = check("buffer_pkts", buffer_pkts, gt=0.0)
    p = 0.5 - 1.0 / (2.0 * x) - 4.0 * n / q  # Ware et al. (9)
    return out(p * (p > 0))


def ware_probe_time_share(
    buffer_pkts: npt.ArrayLike, capacity: npt.ArrayLike, rtt: npt.ArrayLike
) -> FloatOrArray:
    """Ware et al. (11) over d: the share of the time BBR spends in ProbeRTT against a full
    buffer, (q/c + 0.2 + l)/10 (the queue drains, 200 ms at 4 packets, a round trip, every
    10 s), at most 1. ``buffer_pkts`` q ≥ 0; ``capacity`` c > 0 packets/s; ``rtt`` l ≥ 0 s."""
    q = check("buffer_pkts", buffer_pkts, ge=0.0)
    c = check("capacity", capacity, gt=0.0)
    l = check("rtt", rtt, ge=0.0)  # noqa: E741
    share = (q / c + PROBE_RTT_DURATION_S + l) / PROBE_RTT_INTERVAL_S  # Ware et al. (11)
    return out(share.clip(max=1.0))


def ware_bbr_share(
    buffer_bdp: npt.ArrayLike,
    capacity: npt.ArrayLike,
    rtt: npt.ArrayLike,
    bbr_flows: npt.ArrayLike = 1.0,
) -> FloatOrArray:
    """Ware et al. (10): the BBR flows' share of the link against any number of loss-based
    flows, (1 − p)·(1 − ProbeTime/d), p from (9) and ProbeTime from (11), on a link of
    ``capacity`` c > 0 packets/s and round-trip propagation delay ``rtt`` l > 0 s with a buffer
    of ``buffer_bdp`` X > 0 BDPs (q = X·c·l packets); ``bbr_flows`` N ≥ 1."""
    x = check("buffer_bdp", buffer_bdp, gt=0.0)
    c = check("capacity", capacity, gt=0.0)
    l = check("rtt", rtt, gt=0.0)  # noqa: E741
    q = x * c * l
    p = ware_loss_based_share(x, bbr_flows, q)
    return out((1.0 - p) * (1.0 - ware_probe_time_share(q, c, l)))  # Ware et al. (10)


def bbr_check_rows(cwnd_gain: float = 2.0) -> list[dict]:
    """What the draft and Ware et al. say of BBR v1 at ``cwnd_gain``, as rows of ``quantity``,
    ``theory`` and ``source`` (for ``ccscope check``); Ware et al.'s shares on their Fig. 2
    link (10 Mb/s, 40 ms, 1500 B), which assume cwnd_gain 2."""
    g = float(check("cwnd_gain", cwnd_gain, ge=1.0))
    capacity, rtt = 10e6 / (8 * 1500), 0.040
    rows = [
        {
            "quantity": "in-flight cap (BDPs)",
            "theory": g,
            "source": "draft-cardwell-iccrg-bbr-congestion-control-00 §4.2.3.2",
        },
        {
            "quantity": "queue of a lone flow, at most (BDPs)",
            "theory": float(bbr_probe_queue_bound(1.0)),
            "source": "draft §4.3.4.1 (the 1.25 phase for one RTprop)",
        },
        {
            "quantity": "queue of two or more flows (BDPs)",
            "theory": float(bbr_shared_queue(1.0, g)),
            "source": "draft §4.2.3.2: window-limited at cwnd_gain·BtlBw·RTprop",
        },
        {
            "quantity": "ProbeRTT interval (s)",
            "theory": PROBE_RTT_INTERVAL_S,
            "source": "draft §4.3.5",
        },
    ]
    if g == 2.0:
        rows += [
            {
                "quantity": f"one flow's share against loss-based flows, buffer {x:g} BDP",
                "theory": float(ware_bbr_share(x, capacity, rtt)),
                "source": "Ware et al. IMC 2019 (9)-(11), 10 Mb/s, 40 ms, any number of them",
            }
            for x in (1, 2, 4, 8, 16)
        ]
    return rows
