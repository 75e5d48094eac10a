//! `make bench`: round-model speed, in flow-steps per wall-second.
//!
//! n = 10^3 and 10^5 TCP flows (AIMD(1, 1/2) windows) share a link of 10 packets per RTT per
//! flow (1000-byte packets, RTT0 = 100 ms, no buffer) with synchronized feedback, and n = 10^5
//! with proportional feedback (one random draw per flow and step); 10^8 flow-steps per run.
//! Reports the best of three runs; one JSON line per run with `--json`.

use std::time::Instant;

use ccscope_core::round::{run, Feedback, FlowGroup, Record, RoundConfig};

fn config(n: usize, feedback: Feedback) -> RoundConfig {
    RoundConfig {
        seed: 1,
        steps: 100_000_000 / n as u64,
        warmup_steps: 0,
        capacity_bps: 10.0 * n as f64 * 8000.0 / 0.1,
        capacity_changes: Vec::new(),
        capacity_trace: None,
        rtt0_ns: 100_000_000,
        packet_bytes: 1000,
        buffer_pkts: 0.0,
        feedback,
        integer_windows: false,
        capacity_oracle: false,
        substeps: 1,
        flows: vec![FlowGroup::catalogued("tcp", n, 5.0, 1000).expect("tcp is catalogued")],
        record: Record::default(),
    }
}

fn main() {
    let json = std::env::args().any(|a| a == "--json");
    for (n, feedback, label) in [
        (1_000, Feedback::Synchronized, "synchronized"),
        (100_000, Feedback::Synchronized, "synchronized"),
        (100_000, Feedback::Proportional, "proportional"),
    ] {
        let c = config(n, feedback);
        let mut best = f64::INFINITY;
        let mut loss = 0.0;
        for _ in 0..3 {
            let t = Instant::now();
            let r = run(&c).expect("the bench scenario is valid");
            best = best.min(t.elapsed().as_secs_f64());
            loss = r.loss_rate();
        }
        let flow_steps = (n as u64 * c.steps) as f64;
        if json {
            println!("{{\"flows\":{n},\"feedback\":\"{label}\",\"flow_steps\":{flow_steps},\"wall_s\":{best:.5}}}");
            continue;
        }
        println!(
            "round model, n = {n:>6} TCP flows, {label:<12}: {:>6.1} M flow-steps/s \
             ({flow_steps:.0} flow-steps in {best:.2} s; loss rate {loss:.4})",
            flow_steps / best / 1e6
        );
    }
}
