//! The real-time engine on loopback: the packet engine's endpoints on real datagrams through
//! the emulated network. Bounds are physical (capacity, propagation delay), never this
//! engine's own output; they leave room for the scheduler of a shared machine.

mod common;

use std::sync::Mutex;

use ccscope_core::realnet;
use ccscope_core::scenario::Emulation;
use ccscope_core::transport::tcp::TcpSpec;
use common::*;

/// Real-time runs take turns: two at once would share the cores they are timed on.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[test]
fn a_cbr_flow_crosses_the_emulated_link_at_its_rate_and_delay() {
    // 1 Mb/s of 1000-byte packets over 2 Mb/s, 20 ms: nothing queues, so every packet takes
    // 2 access hops (1 ms + 8 µs each) and the bottleneck (20 ms + 4 ms serialization).
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let r = realnet::run(
        &dumbbell(link(2_000_000, 20 * MS, 100), vec![cbr(1e6)], 3 * S, 1),
        Emulation::User,
    )
    .unwrap();
    let f = &r.flows[0].stats.dir[0];
    assert!(
        f.sent_pkts >= 370,
        "sent {} of the 375 due in 3 s",
        f.sent_pkts
    );
    assert!(
        f.delivered_pkts + r.flows[0].in_flight >= f.sent_pkts,
        "nothing is lost"
    );
    let delay_ms = f.delay_sum_ns as f64 / f.delivered_pkts as f64 / 1e6;
    let ideal = 2.0 * 1.008 + 20.0 + 4.0;
    assert!(
        (ideal..ideal + 2.0).contains(&delay_ms),
        "mean one-way delay {delay_ms:.3} ms, ideal {ideal}"
    );
}

#[test]
fn two_tcp_flows_fill_the_emulated_bottleneck() {
    // 2 Mb/s, 40 ms, a BDP of buffer: two SACK flows keep the link busy after slow start.
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = dumbbell(
        link(2_000_000, 40 * MS, 20),
        vec![tcp(TcpSpec::default()), tcp(TcpSpec::default())],
        5 * S,
        1,
    );
    s.warmup_ns = S;
    let r = realnet::run(&s, Emulation::User).unwrap();
    let bottleneck = r
        .links
        .iter()
        .find(|l| l.name == "bottleneck")
        .expect("the dumbbell has a bottleneck");
    let utilization = bottleneck.stats.busy_ns as f64 / (4 * S) as f64;
    assert!(
        utilization > 0.9,
        "bottleneck {} busy {utilization:.3} of the time",
        bottleneck.name
    );
    for f in &r.flows {
        assert!(
            f.stats.dir[0].delivered_pkts > 100,
            "{} delivered {}",
            f.label,
            f.stats.dir[0].delivered_pkts
        );
        assert!(
            f.sender.iter().any(|(k, _)| *k == "timeouts"),
            "the sender's own numbers come back: {:?}",
            f.sender
        );
    }
}
