//! The media transport end to end: an RTP-style flow paced by its media controller on
//! per-packet feedback, carrying RFC 8593's encoder; the same encoder driven by the seeds'
//! rate controllers over the rate transport.

use ccscope_core::build::{self, run};
use ccscope_core::net::RunResult;
use ccscope_core::scenario;
use serde_json::{json, Value};

fn simulate(table: Value) -> RunResult {
    run(&build::packet(&scenario::read_packet(table).unwrap()).unwrap()).unwrap()
}

fn stat(list: &[(&'static str, f64)], name: &str) -> f64 {
    list.iter()
        .find(|(k, _)| *k == name)
        .unwrap_or_else(|| panic!("no {name} in {list:?}"))
        .1
}

/// One flow over a `rate` bottleneck (one-way 50 ms, a queue of `buffer`) for `secs`.
fn one_flow(source: Value, rate: &str, secs: u64) -> Value {
    json!({
        "run": {"duration": format!("{secs}s"), "warmup": "10s", "seed": 1},
        "topology": {"kind": "dumbbell",
            "bottleneck": {"rate": rate, "delay": "40ms",
                "queue": {"kind": "droptail", "limit": "60pkts"}},
            "access": {"rate": "100Mbps", "delay": "5ms"}},
        "flows": [{"source": source}]
    })
}

#[test]
fn explore() {
    for src in [
        json!({"kind": "rtp"}),
        json!({"kind": "rtp", "controller": {"name": "gcc", "scale_by_groups": 1}}),
        json!({"kind": "rtp", "controller": {"name": "gcc", "trendline": 1}}),
        json!({"kind": "rate", "controller": "tfrc", "packet_size": "1200B", "app": {"kind": "encoder"}}),
    ] {
        let r = simulate(one_flow(src.clone(), "1Mbps", 60));
        let f = &r.flows[0];
        let d = f.stats.dir[0];
        let rate = d.delivered_bytes as f64 * 8.0 / 50.0;
        let delay = d.delay_sum_ns as f64 / d.delivered_pkts.max(1) as f64 / 1e9;
        eprintln!(
            "{src}: {rate:.0} b/s, mean owd {delay:.3} s, drops {}\n  sender {:?}\n  receiver {:?}",
            d.dropped(),
            f.sender,
            f.receiver
        );
    }
}
