//! `make bench`: packet-engine speed on a CBR dumbbell.
//!
//! 8 and 64 CBR flows offering 110% of a 10 or 100 Mb/s bottleneck (20 ms, DropTail at the
//! bandwidth-delay product), 1 Gb/s 1 ms access links, 1000-byte packets, 60 simulated seconds.
//! Reports events and bottleneck packets per wall-second, best of three runs.

use std::time::Instant;

use ccscope_core::config::{FlowSpec, LinkParams, Scenario, SourceSpec, TopologySpec, TraceSpec};
use ccscope_core::net::queue::QueueSpec;
use ccscope_core::net::run;

const MS: u64 = 1_000_000;

fn scenario(flows: usize, rate_bps: u64) -> Scenario {
    let rtt_s = 2.0 * (20.0 + 2.0) / 1e3;
    let bdp_pkts = (rate_bps as f64 * rtt_s / 8000.0).ceil() as u64;
    let per_flow = 1.1 * rate_bps as f64 / flows as f64;
    let flow = |i: usize| {
        let mut f = FlowSpec::new(SourceSpec::Cbr {
            rate_bps: per_flow,
            packet_bytes: 1000,
        });
        f.start_ns = i as u64 * 1_000_000_000 / flows as u64;
        f
    };
    Scenario {
        seed: 1,
        duration_ns: 60_000 * MS,
        warmup_ns: 0,
        topology: TopologySpec::Dumbbell {
            bottleneck: LinkParams::new(rate_bps, 20 * MS, QueueSpec::droptail_packets(bdp_pkts)),
            reverse: None,
            access: LinkParams::new(1_000_000_000, MS, QueueSpec::droptail_packets(100_000)),
        },
        flows: (0..flows).map(flow).collect(),
        trace: TraceSpec::default(),
    }
}

fn main() {
    println!("packet engine, CBR dumbbell, 60 simulated seconds (best of 3)");
    println!(
        "{:>6} {:>10} {:>12} {:>10} {:>14} {:>16}",
        "flows", "bottleneck", "events", "wall s", "events/s", "bn pkts/wall-s"
    );
    for rate in [10_000_000u64, 100_000_000] {
        for flows in [8usize, 64] {
            let s = scenario(flows, rate);
            let mut best = f64::INFINITY;
            let mut last = None;
            for _ in 0..3 {
                let t = Instant::now();
                let r = run(&s).expect("valid benchmark scenario");
                best = best.min(t.elapsed().as_secs_f64());
                last = Some(r);
            }
            let r = last.expect("ran");
            let bn = r.links.iter().find(|l| l.name == "bottleneck").expect("bottleneck");
            println!(
                "{:>6} {:>7} Mb/s {:>12} {:>10.3} {:>14.3e} {:>16.3e}",
                flows,
                rate / 1_000_000,
                r.events,
                best,
                r.events as f64 / best,
                bn.stats.departures as f64 / best
            );
        }
    }
}
