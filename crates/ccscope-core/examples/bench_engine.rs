//! `make bench`: packet-engine speed on the dumbbell.
//!
//! CBR: 8 and 64 flows offering 110% of a 10 or 100 Mb/s bottleneck. TCP: the anchor dumbbell
//! (N TCP SACK bulk flows starting in [0, 1] s; `bench/anchors.py` runs it
//! against ns-2 too). Both: 20 ms bottleneck with a bandwidth-delay-product DropTail buffer,
//! 1 Gb/s 1 ms access links, 1000-byte packets, 60 simulated seconds. Reports events and
//! bottleneck packets per wall-second, best of three runs; one JSON line per run with `--json`.

use std::time::Instant;

use ccscope_core::build::run;
use ccscope_core::config::{FlowSpec, LinkParams, Scenario, SourceSpec, TopologySpec, TraceSpec};
use ccscope_core::net::queue::QueueSpec;
use ccscope_core::transport::tcp::TcpSpec;

const MS: u64 = 1_000_000;

/// The offered traffic.
#[derive(Clone, Copy)]
enum Load {
    Cbr,
    Tcp,
}

fn scenario(load: Load, flows: usize, rate_bps: u64) -> Scenario {
    let bdp_pkts = (rate_bps as f64 * 0.044 / 8000.0) as u64;
    let flow = |i: usize| match load {
        Load::Cbr => {
            let mut f = FlowSpec::new(SourceSpec::Cbr {
                rate_bps: 1.1 * rate_bps as f64 / flows as f64,
                packet_bytes: 1000,
            });
            f.start_ns = i as u64 * 1_000 * MS / flows as u64;
            f
        }
        Load::Tcp => {
            let mut f = FlowSpec::new(SourceSpec::Tcp(TcpSpec {
                initial_window_pkts: 2.0,
                ..TcpSpec::default()
            }));
            f.start_jitter_ns = 1_000 * MS;
            f
        }
    };
    Scenario {
        seed: 1,
        duration_ns: 60_000 * MS,
        warmup_ns: 0,
        topology: TopologySpec::Dumbbell {
            bottleneck: LinkParams::new(rate_bps, 20 * MS, QueueSpec::droptail_packets(bdp_pkts)),
            reverse: None,
            access: LinkParams::new(1_000_000_000, MS, QueueSpec::droptail_packets(1_000)),
        },
        flows: (0..flows).map(flow).collect(),
        trace: TraceSpec::default(),
    }
}

fn main() {
    let json = std::env::args().any(|a| a == "--json");
    for (load, name) in [(Load::Cbr, "CBR"), (Load::Tcp, "TCP SACK")] {
        if !json {
            println!("packet engine, {name} dumbbell, 60 simulated seconds (best of 3)");
            println!(
                "{:>6} {:>10} {:>12} {:>10} {:>14} {:>16}",
                "flows", "bottleneck", "events", "wall s", "events/s", "bn pkts/wall-s"
            );
        }
        for rate in [10_000_000u64, 100_000_000] {
            for flows in [8usize, 64] {
                let s = scenario(load, flows, rate);
                let mut best = f64::INFINITY;
                let mut last = None;
                for _ in 0..3 {
                    let t = Instant::now();
                    let r = run(&s).expect("valid benchmark scenario");
                    best = best.min(t.elapsed().as_secs_f64());
                    last = Some(r);
                }
                let r = last.expect("ran");
                let bn = r
                    .links
                    .iter()
                    .find(|l| l.name == "bottleneck")
                    .expect("bottleneck");
                if json {
                    println!(
                        "{{\"load\":\"{name}\",\"flows\":{flows},\"rate_mbps\":{},\"events\":{},\"bottleneck_pkts\":{},\"wall_s\":{best:.5}}}",
                        rate / 1_000_000,
                        r.events,
                        bn.stats.departures
                    );
                    continue;
                }
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
        if !json {
            println!();
        }
    }
}
