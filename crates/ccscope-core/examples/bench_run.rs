//! `make bench`: the engine alone on one scenario (its table as JSON, as the TOML file parses):
//! building the network, running it and reporting, without reading the scenario or handing the
//! results to Python. With a few dozen flows the building and the report take well under a
//! millisecond, so this is what a simulator's own event loop takes. Best of `--repeat` runs
//! (default 3); prints one JSON line: events, the bottleneck's departures and the time.
//!
//! Usage: `bench_run SCENARIO.json [--repeat N]`

use std::time::Instant;

use ccscope_core::build;
use ccscope_core::scenario::read_packet;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .expect("usage: bench_run SCENARIO.json [--repeat N]");
    let repeat: usize = match args.iter().position(|a| a == "--repeat") {
        Some(i) => args[i + 1].parse().expect("--repeat N"),
        None => 3,
    };
    let table =
        serde_json::from_str(&std::fs::read_to_string(path).expect("scenario file")).expect("JSON");
    let scenario = build::packet(&read_packet(table).expect("valid scenario")).expect("builds");
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..repeat {
        let t = Instant::now();
        let r = build::run(&scenario).expect("runs");
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(r);
    }
    let r = last.expect("ran");
    let bottleneck = r
        .links
        .iter()
        .find(|l| l.name == "bottleneck")
        .map_or(0, |l| l.stats.departures);
    println!(
        "{{\"events\":{},\"bottleneck_pkts\":{bottleneck},\"wall_s\":{best:.6}}}",
        r.events
    );
}
