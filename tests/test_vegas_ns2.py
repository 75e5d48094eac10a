"""ns-2.35 tcp-vegas.cc's rules as Vegas's parameters, through the scenario (the rules themselves
are checked in the Rust unit tests of control/window/vegas.rs; bench/ns2_compare_figs.py and
tests/validation/test_ns2_figs.py set ccscope beside ns-2.35 itself)."""

from __future__ import annotations

import ccscope

NS2_RULES = ("whole_diff", "mean_rtt", "ack_increase", "eighth_exit", "sent_diff", "data_syn")


def vegas(**rules) -> ccscope.Result:
    """One Vegas flow alone for 2 s on a 10 Mb/s, 40-ms path it does not fill in that time."""
    return ccscope.run(
        {
            "run": {"duration": "2s", "seed": 1},
            "topology": {"kind": "fat_link", "rate": "10Mbps", "delay": "20ms"},
            "flows": [
                {
                    "source": {
                        "kind": "tcp",
                        "controller": {"name": "vegas", **rules},
                        "initial_window": 1,
                        "syn": False,
                    }
                }
            ],
            "trace": {"state": True, "flows": False, "queues": False},
        }
    )


def by_round(r: ccscope.Result, rounds: int) -> list[float]:
    """The window halfway through each of the first `rounds` round trips (the first ACK, the
    trace's first change, comes one round trip after the start)."""
    cwnd = r.trace.state_series(0)["cwnd_pkts"].dropna()
    rtt = cwnd.index[1]
    return [float(cwnd[cwnd.index <= (k + 0.5) * rtt].iloc[-1]) for k in range(rounds)]


def test_ns2s_start_one_packet_at_a_time_then_three_doubling_every_other_round():
    # tcp-vegas.cc with syn_ and delay_growth_: packet 0 alone (its output() sends it as data)
    # and a hold round; packet 1 alone, whose ACK opens the window to windowInit_ = 2 and adds
    # the growth round's first packet; then a packet per ACK in every other round. ns-2.35's
    # Agent/TCP/Vegas on this path: 1, 1, 3, 3, 6, 6, 12, 12, 24.
    ns2 = by_round(vegas(**dict.fromkeys(NS2_RULES, 1)), 9)
    assert ns2 == [1.0, 1.0, 3.0, 3.0, 6.0, 6.0, 12.0, 12.0, 24.0]
