//! BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00), BBR v3 (draft-ietf-ccwg-bbr-06) and
//! Copa (Arun & Balakrishnan, NSDI 2018) on TCP in the packet engine: what each estimates of a
//! 10 Mb/s path, the queue it keeps alone, its ProbeRTT schedule, and a run that is a function
//! of its scenario and seed.

use ccscope_core::build::run;
use ccscope_core::net::RunResult;
use ccscope_core::{build, scenario};
use serde_json::{json, Value};

/// `count` flows of `controller` (SACK, initial window 10) for `seconds` on a 10 Mb/s dumbbell
/// of 20 ms (a 45 ms round trip, 56 packets of 1000 bytes in flight) with a 220-packet buffer,
/// its state traced.
fn dumbbell(controller: Value, count: u64, seconds: u64, seed: u64) -> RunResult {
    let table = json!({
        "run": {"duration": format!("{seconds}s"), "warmup": "5s", "seed": seed},
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "20ms",
            "queue": {"kind": "droptail", "limit": "220pkts"}}},
        "flows": [{"source": {"kind": "tcp", "variant": "sack", "initial_window": 10,
            "controller": controller}, "count": count, "start_jitter": "100ms"}],
        "trace": {"interval": "1s", "state": true, "queues": false, "flows": false}
    });
    run(&build::packet(&scenario::read_packet(table).unwrap()).unwrap()).unwrap()
}

/// The times (s) at which flow 0's state field `name` took `value`.
fn entered(r: &RunResult, name: &str, value: f64) -> Vec<f64> {
    let log = r.trace.as_ref().unwrap().state.as_ref().unwrap();
    let field = log.names.iter().position(|n| *n == name).unwrap() as u16;
    (0..log.time_ns.len())
        .filter(|&i| log.flow[i] == 0 && log.field[i] == field && log.value[i] == value)
        .map(|i| log.time_ns[i] as f64 * 1e-9)
        .collect()
}

/// Flow 0's last value of state field `name`.
fn last(r: &RunResult, name: &str) -> f64 {
    let log = r.trace.as_ref().unwrap().state.as_ref().unwrap();
    let field = log.names.iter().position(|n| *n == name).unwrap() as u16;
    let i = (0..log.time_ns.len())
        .rev()
        .find(|&i| log.flow[i] == 0 && log.field[i] == field)
        .unwrap();
    log.value[i]
}

/// The bottleneck's mean queue (packets) and busy share over the measured part of the run.
fn bottleneck(r: &RunResult) -> (f64, f64) {
    let l = r.links.iter().find(|l| l.monitor).unwrap();
    let span = (r.duration - r.warmup).ns() as f64;
    (
        l.stats.queue_pkt_ns as f64 / span,
        l.stats.busy_ns as f64 / span,
    )
}

#[test]
fn bbr_v1_estimates_the_path_keeps_the_queue_short_and_probes_rtt_every_10_s() {
    let r = dumbbell(json!({"name": "bbr"}), 1, 45, 1);
    // draft-ietf-ccwg-bbr-06 Appendix, "Exiting STARTUP on Bandwidth Plateau": the bandwidth
    // estimate within 2% of the bottleneck's 1250 packets/s.
    let btlbw = last(&r, "btlbw_pkts_per_s");
    assert!((btlbw / 1250.0 - 1.0).abs() <= 0.02, "{btlbw}");
    // RTprop: the 44 ms of propagation plus the packet's serialization at the three links.
    let rtprop = last(&r, "rtprop_s");
    assert!((0.044..0.046).contains(&rtprop), "{rtprop}");
    // §4.3.5: ProbeRTT (state 3) once RTprop is 10 s old, that is every 10 s and a little.
    let probes = entered(&r, "state", 3.0);
    assert!(probes.len() >= 3, "{probes:?}");
    for w in probes.windows(2) {
        assert!((10.0..10.7).contains(&(w[1] - w[0])), "{probes:?}");
    }
    // Alone, it paces at the bottleneck's rate: a short queue, a busy link (ProbeRTT's 200 ms
    // at 4 packets every 10 s costs about 2%).
    let (queue, busy) = bottleneck(&r);
    assert!(queue < 0.25 * 56.0, "{queue}");
    assert!(busy > 0.95, "{busy}");
}

#[test]
fn bbr_v3_probes_rtt_every_5_s_and_keeps_the_queue_short() {
    let r = dumbbell(json!({"name": "bbr3"}), 1, 30, 1);
    let bw = last(&r, "max_bw_pkts_per_s");
    assert!((bw / 1250.0 - 1.0).abs() <= 0.02, "{bw}");
    // §5.3.4: ProbeRTT (state 6) every 5 s.
    let probes = entered(&r, "state", 6.0);
    assert!(probes.len() >= 4, "{probes:?}");
    for w in probes.windows(2) {
        assert!((5.0..5.7).contains(&(w[1] - w[0])), "{probes:?}");
    }
    let (queue, busy) = bottleneck(&r);
    assert!(queue < 0.25 * 56.0, "{queue}");
    assert!(busy > 0.95, "{busy}");
}

#[test]
fn copa_alone_keeps_about_one_over_delta_packets_queued() {
    // §2.1: a lone flow at λ = 1/(δ·dq) has λ·dq = 1/δ = 2 packets in the queue; its window
    // moves by 1/δ per RTT around that.
    let r = dumbbell(json!({"name": "copa"}), 1, 30, 1);
    let (queue, busy) = bottleneck(&r);
    assert!((1.0..=4.0).contains(&queue), "{queue}");
    assert!(busy > 0.99, "{busy}");
}

#[test]
fn runs_are_a_function_of_scenario_and_seed() {
    for name in ["bbr", "bbr3", "copa"] {
        let a = dumbbell(json!({"name": name}), 2, 12, 4);
        let b = dumbbell(json!({"name": name}), 2, 12, 4);
        assert_eq!(a.flows[0].stats, b.flows[0].stats, "{name}");
        assert_eq!(a.trace, b.trace, "{name}");
    }
    // BBR's random gain-cycle phase comes from the run's seed.
    let a = dumbbell(json!({"name": "bbr"}), 2, 12, 4);
    let c = dumbbell(json!({"name": "bbr"}), 2, 12, 5);
    assert_ne!(a.trace, c.trace);
}
