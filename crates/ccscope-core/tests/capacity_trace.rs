//! Links whose capacity follows a trace ([`ccscope_core::net::capacity`]), in the packet engine.

mod common;

use std::sync::Arc;

use ccscope_core::build::run;
use ccscope_core::config::{LinkParams, TraceSpec};
use ccscope_core::net::capacity::{CapacityTrace, TraceFormat};
use ccscope_core::net::codel::CoDelParams;
use ccscope_core::net::queue::{Length, QueueSpec};
use ccscope_core::time::SimTime;
use ccscope_core::transport::tcp::TcpSpec;
use common::*;

fn trace(text: &str, format: TraceFormat) -> Arc<CapacityTrace> {
    Arc::new(CapacityTrace::parse("f", "test", text, format, 1).unwrap())
}

/// A mahimahi trace of one opportunity a millisecond is a constant 12 Mb/s link (mahimahi's
/// `traces/README`): runs through it and through the constant link are the same, packet for
/// packet, with a DropTail queue and with CoDel (whose link asks its queue at each departure).
#[test]
fn a_constant_trace_runs_as_the_constant_link() {
    let codel = QueueSpec::CoDel {
        params: CoDelParams {
            target: SimTime::from_ms(5),
            interval: SimTime::from_ms(100),
            mtu_bytes: 1500,
            ecn: false,
        },
        limit: Length::Packets(1000),
    };
    for queue in [QueueSpec::droptail_packets(60), codel] {
        let constant = LinkParams::new(12_000_000, 20 * MS, queue);
        let mut traced = constant.clone();
        traced.rate_bps = 1;
        traced.capacity_trace = Some(trace("1\n", TraceFormat::Mahimahi));
        let flows = || vec![tcp(TcpSpec::default()), tcp(TcpSpec::default()), cbr(2e6)];
        let mut a = dumbbell(constant.clone(), flows(), 10 * S, 7);
        a.trace = TraceSpec {
            interval_ns: Some(S / 10),
            flows: true,
            queues: true,
            events: true,
            state: false,
            ..TraceSpec::default()
        };
        let mut b = a.clone();
        b.topology = dumbbell(traced, flows(), 10 * S, 7).topology;
        let (ra, rb) = (run(&a).unwrap(), run(&b).unwrap());
        assert!(ra.links[0].stats.departures > 10_000);
        assert_eq!(ra, rb);
    }
}

/// No packet crosses a link during its outage; one caught on the wire leaves when the link
/// comes back; over the run the link carries what the trace's capacity allows.
#[test]
fn nothing_crosses_a_link_during_an_outage() {
    let mut b = link(10_000_000, 10 * MS, 100_000);
    b.capacity_trace = Some(trace("0s 10Mbps\n2s 0bps\n3s 10Mbps\n", TraceFormat::Table));
    // 20 Mb/s offered: the link is busy from the first packet's arrival to the end.
    let mut s = dumbbell(b, vec![cbr(2e7)], 6 * S, 1);
    s.trace = TraceSpec {
        interval_ns: Some(S / 10),
        flows: false,
        queues: true,
        events: false,
        state: false,
        ..TraceSpec::default()
    };
    let r = run(&s).unwrap();
    let bn = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    // The mean capacity over the 6 s: (2 + 3) s at 10 Mb/s.
    assert_eq!(bn.rate_bps, 10_000_000 * 5 / 6);
    let bits = bn.stats.tx_bytes as f64 * 8.0;
    // From the first arrival (1000 B over the 1 Gb/s access link and its 1 ms) to the end,
    // less at most the packet on the wire.
    let carried = 10e6 * (5.0 - 0.001008);
    assert!(
        bits <= carried && bits >= carried - 8000.0,
        "{bits} bits against {carried}"
    );
    let t = r.trace.unwrap();
    // The bottleneck's series (the first link monitored); bins of 100 ms.
    let k = t.links.len();
    let departures = |from: usize, to: usize| -> u64 {
        (from..to).map(|bin| t.queues[bin * k].departures).sum()
    };
    // [2.1, 3.0) s carry nothing (the packet on the wire at 2 s leaves at 3 s).
    assert_eq!(departures(21, 30), 0);
    assert!(departures(10, 20) > 1000 && departures(31, 40) > 1000);
}
