//! `make bench`: set-up and run time against the number of flows, the bottleneck's packet count
//! held fixed.
//!
//! N TCP SACK bulk flows (N = 100, 1000, 10 000 by default) share a 1 Gb/s, 20 ms dumbbell
//! bottleneck with a bandwidth-delay-product DropTail buffer (1 Gb/s 1 ms access links,
//! 1000-byte packets, starts spread over the first second, 5 simulated seconds), so the
//! bottleneck carries about the same number of packets whatever N. Each N runs in its own
//! process so that its peak resident memory is its own.
//!
//! Usage: `bench_scale [--json] [N ...]`; one line per N, JSON with `--json`.

mod common;

use std::process::Command;
use std::time::Instant;

use ccscope_core::build::run;
use ccscope_core::config::{FlowSpec, LinkParams, Scenario, SourceSpec, TopologySpec, TraceSpec};
use ccscope_core::net::queue::QueueSpec;
use ccscope_core::transport::tcp::TcpSpec;

const MS: u64 = 1_000_000;
const RATE_BPS: u64 = 1_000_000_000;

fn scenario(flows: usize) -> Scenario {
    let bdp_pkts = (RATE_BPS as f64 * 0.044 / 8000.0) as u64;
    let mut flow = FlowSpec::new(SourceSpec::Tcp(TcpSpec {
        initial_window_pkts: 2.0,
        ..TcpSpec::default()
    }));
    flow.start_jitter_ns = 1_000 * MS;
    Scenario {
        seed: 1,
        duration_ns: 5_000 * MS,
        warmup_ns: 0,
        topology: TopologySpec::Dumbbell {
            bottleneck: LinkParams::new(RATE_BPS, 20 * MS, QueueSpec::droptail_packets(bdp_pkts)),
            reverse: None,
            access: LinkParams::new(RATE_BPS, MS, QueueSpec::droptail_packets(1_000)),
        },
        flows: vec![flow; flows],
        trace: TraceSpec::default(),
    }
}

/// Peak resident set of this process (kB), from /proc (Linux); 0 elsewhere.
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}

/// Runs N flows in this process and prints one JSON object.
fn measure(flows: usize) {
    let s = scenario(flows);
    let cpu0 = common::cpu_s(0.0);
    let t = Instant::now();
    let r = run(&s).expect("valid benchmark scenario");
    let wall = t.elapsed().as_secs_f64();
    let cpu = common::cpu_s(wall) - cpu0;
    let bn = r
        .links
        .iter()
        .find(|l| l.name == "bottleneck")
        .expect("bottleneck");
    println!(
        "{{\"flows\":{flows},\"events\":{},\"bottleneck_pkts\":{},\"wall_s\":{wall:.4},\"cpu_s\":{cpu:.4},\"peak_rss_kb\":{}}}",
        r.events,
        bn.stats.departures,
        peak_rss_kb()
    );
}

fn field(line: &str, key: &str) -> f64 {
    let at = line.find(&format!("\"{key}\":")).expect("field") + key.len() + 3;
    let rest = &line[at..];
    let end = rest.find([',', '}']).expect("end of field");
    rest[..end].parse().expect("number")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, n] = args.as_slice() {
        if flag == "--child" {
            measure(n.parse().expect("flow count"));
            return;
        }
    }
    let json = args.iter().any(|a| a == "--json");
    let counts: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let counts = if counts.is_empty() {
        vec![100, 1_000, 10_000]
    } else {
        counts
    };
    let exe = std::env::current_exe().expect("own path");
    if !json {
        println!("scale: TCP SACK dumbbell, 1 Gb/s, 5 simulated seconds, one process per row");
        println!(
            "{:>7} {:>11} {:>12} {:>8} {:>8} {:>10}",
            "flows", "events", "bn packets", "wall s", "cpu s", "peak MB"
        );
    }
    for n in counts {
        let out = Command::new(&exe)
            .args(["--child", &n.to_string()])
            .output()
            .expect("child run");
        let line = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if json {
            println!("{line}");
        } else {
            println!(
                "{:>7} {:>11} {:>12} {:>8.2} {:>8.2} {:>10.1}",
                n,
                field(&line, "events"),
                field(&line, "bottleneck_pkts"),
                field(&line, "wall_s"),
                field(&line, "cpu_s"),
                field(&line, "peak_rss_kb") / 1024.0
            );
        }
    }
}
