//! `make bench`: CPU time per ACK with a few and with ten thousand packets in flight.
//!
//! A SACK sender's work per ACK must not grow with the packets it has in flight: its scoreboard
//! is kept as runs of packet numbers (one per hole), not a list of segments to scan. Two runs,
//! each the best of three:
//! - the anchor dumbbell: 8 TCP SACK flows on 10 Mb/s, 20 ms, DropTail at the
//!   bandwidth-delay product, 1 Gb/s 1 ms access links, 600 s (each flow has about 8 to 14
//!   packets in flight);
//! - one TCP SACK flow on a 10 Gb/s path with a 100 ms round trip and random loss (Bernoulli,
//!   p = 10^-4 on the bottleneck, about one loss a window, so nearly every window goes through
//!   SACK recovery with ten thousand packets SACKed above its hole), 10 s. Its receiver window,
//!   10 000 packets, is what limits it: its congestion window starts far above it, and a loss
//!   takes 1% of it (AIMD(1, 0.01)). In recovery the window's left edge stands still, so the
//!   packets in flight run from about 5 000 to 10 000 (their mean, from the delivery rate
//!   times the round trip, is printed).
//!
//! CPU per ACK is the run's CPU time over the ACKs its senders received. One JSON line per run
//! with `--json`.

mod common;

use std::time::Instant;

use ccscope_core::build;
use ccscope_core::scenario::read_packet;
use serde_json::{json, Value};

/// The anchor dumbbell (as `bench/anchors.py` writes it), 600 simulated seconds.
fn anchor() -> Value {
    json!({
        "run": {"duration": "600s", "seed": 1},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "10Mbps", "delay": "20ms",
                           "queue": {"kind": "droptail", "limit": "55pkts"}},
            "access": {"rate": "1Gbps", "delay": "1ms",
                       "queue": {"kind": "droptail", "limit": "50pkts"}},
            "reverse": {"rate": "10Mbps", "delay": "20ms",
                        "queue": {"kind": "droptail", "limit": "50pkts"}},
        },
        "flows": [{"source": {"kind": "tcp", "variant": "sack", "initial_window": 2},
                   "count": 8, "start_jitter": "1s"}],
    })
}

/// One flow, 10 Gb/s, 100 ms round trip, random loss, receiver window 10 000 packets.
fn wide() -> Value {
    json!({
        "run": {"duration": "10s", "seed": 1},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "10Gbps", "delay": "48ms",
                           "queue": {"kind": "droptail", "limit": "20000pkts"},
                           "loss": {"kind": "bernoulli", "p": 0.0001}},
            "access": {"rate": "10Gbps", "delay": "1ms",
                       "queue": {"kind": "droptail", "limit": "20000pkts"}},
        },
        "flows": [{"source": {"kind": "tcp", "variant": "sack", "initial_window": 1e6,
                              "max_window": 10000,
                              "controller": {"name": "aimd", "alpha": 1, "beta": 0.01}}}],
    })
}

fn main() {
    let json = std::env::args().any(|a| a == "--json");
    for (name, table) in [("anchor", anchor()), ("wide", wide())] {
        let scenario =
            build::packet(&read_packet(table).expect("valid benchmark scenario")).expect("builds");
        let mut best = f64::INFINITY;
        let mut last = None;
        for _ in 0..3 {
            let (cpu0, t) = (common::cpu_s(0.0), Instant::now());
            let r = build::run(&scenario).expect("runs");
            best = best.min(common::cpu_s(t.elapsed().as_secs_f64()) - cpu0);
            last = Some(r);
        }
        let r = last.expect("ran");
        let acks: u64 = r.flows.iter().map(|f| f.stats.dir[1].delivered_pkts).sum();
        // Little's law: packets in flight = delivery rate x round trip (the flows' own mean
        // RTT samples).
        let (rtts, rtt_sum) = r.flows.iter().fold((0.0, 0.0), |(n, s), f| {
            let get = |k| {
                f.sender
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map_or(0.0, |&(_, v)| v)
            };
            (n + get("rtt_samples"), s + get("rtt_sum_s"))
        });
        let delivered: u64 = r.flows.iter().map(|f| f.stats.dir[0].delivered_pkts).sum();
        let in_flight =
            delivered as f64 / r.duration.secs() * (rtt_sum / rtts) / r.flows.len() as f64;
        if json {
            println!(
                "{{\"run\":\"{name}\",\"flows\":{},\"acks\":{acks},\"cpu_s\":{best:.5},\"in_flight_per_flow\":{in_flight:.1}}}",
                r.flows.len()
            );
        } else {
            println!(
                "{name:>7}: {} flows, {acks} ACKs, {best:.3} CPU s, {:.0} ns per ACK, {in_flight:.0} \
                 packets in flight per flow",
                r.flows.len(),
                best / acks as f64 * 1e9
            );
        }
    }
}
