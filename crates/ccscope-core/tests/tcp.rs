//! TCP in the packet engine: delivery, recovery and timer behaviour on small scenarios.

mod common;

use ccscope_core::build::run;
use ccscope_core::config::{Scenario, SourceSpec};
use ccscope_core::net::loss::LossSpec;
use ccscope_core::transport::tcp::{RttSamples, TcpSpec, Variant};
use ccscope_core::{build, scenario};
use common::*;
use serde_json::json;

fn stat(r: &ccscope_core::net::RunResult, flow: usize, name: &str) -> f64 {
    let f = &r.flows[flow];
    f.sender
        .iter()
        .chain(&f.receiver)
        .find(|(k, _)| *k == name)
        .map(|&(_, v)| v)
        .unwrap()
}

fn finite(variant: Variant, pkts: u64) -> TcpSpec {
    TcpSpec {
        variant,
        transfer_pkts: Some(pkts),
        ..TcpSpec::default()
    }
}

#[test]
fn a_finite_transfer_completes_over_a_lossy_path_with_every_variant() {
    for variant in [Variant::Reno, Variant::NewReno, Variant::Sack] {
        let mut b = link(10_000_000, 20 * MS, 30);
        b.loss = Some(LossSpec::Bernoulli { p: 0.03 });
        let r = run(&dumbbell(b, vec![tcp(finite(variant, 2000))], 120 * S, 4)).unwrap();
        assert_eq!(stat(&r, 0, "goodput_pkts"), 2000.0, "{variant}");
        assert!(stat(&r, 0, "completion_time_s") < 120.0);
        assert!(stat(&r, 0, "retransmits") > 0.0);
    }
}

#[test]
fn a_scenario_names_tcp_and_its_controller() {
    let table = json!({
        "run": {"duration": "1s"},
        "topology": {"kind": "dumbbell",
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"kind": "droptail", "limit": "50pkts"}}},
        "flows": [{"source": {"kind": "tcp", "controller": {"name": "gaimd", "beta": 0.875}, "variant": "newreno"}}]
    });
    let s = build::packet(&scenario::read_packet(table.clone()).unwrap()).unwrap();
    let SourceSpec::Tcp(spec) = &*s.flows[0].source else {
        panic!("not tcp")
    };
    assert_eq!(spec.variant, Variant::NewReno);
    let r = run(&s).unwrap();
    assert_eq!(r.flows[0].label, "GAIMD(0.3125,0.875) (NewReno)");
    let mut bad = table;
    bad["flows"][0]["source"]["controller"]["name"] = json!("westwood");
    let err = build::packet(&scenario::read_packet(bad).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("flows[0].source.controller") && err.contains("westwood"),
        "{err}"
    );
}

/// Slow start from one packet doubles the window every RTT until the first loss.
#[test]
fn slow_start_doubles_per_rtt() {
    // 100 Mb/s, 50 ms one way: no loss or queueing in the first few RTTs.
    let r = run(&dumbbell(
        link(100_000_000, 50 * MS, 1000),
        vec![tcp(TcpSpec::default())],
        560 * MS,
        1,
    ))
    .unwrap();
    // RTT = 2 (50 + 2) ms plus serialization: five rounds end by ~521 ms, the sixth after
    // 600 ms, so 1 + 2 + 4 + 8 + 16 = 31 packets are acked at 560 ms.
    assert_eq!(stat(&r, 0, "acked_pkts"), 31.0);
}

/// One flow alone on a DropTail bottleneck whose buffer is one BDP keeps the link full
/// (the sawtooth never drains the queue), as theory and the ns-3 anchor say.
#[test]
fn one_flow_fills_a_bdp_buffered_link() {
    let spec = TcpSpec::default();
    let mut s: Scenario = dumbbell(link(10_000_000, 20 * MS, 55), vec![tcp(spec)], 60 * S, 1);
    s.warmup_ns = 10 * S;
    let r = run(&s).unwrap();
    let bn = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    let util = bn.stats.busy_ns as f64 / (50 * S) as f64;
    assert!(util > 0.99, "utilization {util}");
    assert!(stat(&r, 0, "timeouts") == 0.0);
}

/// With a reverse-path blackout of ACKs the sender times out and backs off exponentially.
#[test]
fn rto_backs_off_up_to_the_cap() {
    let mut b = link(10_000_000, 10 * MS, 100);
    b.loss = Some(LossSpec::Schedule {
        steps: vec![
            ccscope_core::net::loss::LossStep {
                at_ns: 0,
                loss: ccscope_core::net::loss::StepLoss::Bernoulli(0.0),
            },
            ccscope_core::net::loss::LossStep {
                at_ns: 2 * S,
                loss: ccscope_core::net::loss::StepLoss::Bernoulli(1.0),
            },
        ],
    });
    let spec = TcpSpec {
        min_rto_ns: 200 * MS,
        max_backoff: 4,
        ..TcpSpec::default()
    };
    let r = run(&dumbbell(b, vec![tcp(spec)], 20 * S, 1)).unwrap();
    // RTO ~0.2 s backed off 2x, 4x, then capped at 4x: 0.2 + 0.4 + 0.8 + 0.8 ... in 18 s.
    let timeouts = stat(&r, 0, "timeouts");
    let rto = stat(&r, 0, "rto_s");
    assert!((0.79..=0.81).contains(&rto), "rto {rto}");
    assert!((20.0..=24.0).contains(&timeouts), "timeouts {timeouts}");
}

/// A path that loses every packet from 2 s on.
fn cut_at_two_seconds() -> LossSpec {
    use ccscope_core::net::loss::{LossStep, StepLoss};
    LossSpec::Schedule {
        steps: vec![
            LossStep {
                at_ns: 0,
                loss: StepLoss::Bernoulli(0.0),
            },
            LossStep {
                at_ns: 2 * S,
                loss: StepLoss::Bernoulli(1.0),
            },
        ],
    }
}

#[test]
fn without_a_cap_the_rto_doubles_up_to_max_rto() {
    // RFC 6298 §5.5: the RTO doubles at each timeout, bounded only by the maximum RTO (2.5).
    // From the 0.2 s minimum, timeouts after 0.2, 0.4, ..., 25.6 s (8 of them) end 51.0 s after
    // the first loss; the ninth waits 51.2 s, four times the 12.8 s a 64x cap allows.
    let mut b = link(10_000_000, 10 * MS, 100);
    b.loss = Some(cut_at_two_seconds());
    let spec = TcpSpec {
        min_rto_ns: 200 * MS,
        ..TcpSpec::default()
    };
    let r = run(&dumbbell(b.clone(), vec![tcp(spec.clone())], 60 * S, 1)).unwrap();
    assert_eq!(stat(&r, 0, "timeouts"), 8.0);
    assert!((stat(&r, 0, "rto_s") - 51.2).abs() < 1e-9);
    // With max_rto = 1 s the doubling stops there: 0.2 + 0.4 + 0.8, then one a second.
    let spec = TcpSpec {
        max_rto_ns: S,
        ..spec
    };
    let r = run(&dumbbell(b, vec![tcp(spec)], 20 * S, 1)).unwrap();
    assert!((stat(&r, 0, "rto_s") - 1.0).abs() < 1e-9);
    let timeouts = stat(&r, 0, "timeouts");
    assert!((18.0..=20.0).contains(&timeouts), "timeouts {timeouts}");
}

#[test]
fn one_packet_timed_at_a_time_gives_one_sample_a_round_trip() {
    // ns-2.35 without timestamps times one packet of new data at a time: with a window of 10
    // packets and no loss, one sample a round trip where every ACK gives one otherwise.
    let b = link(100_000_000, 25 * MS, 1000);
    let spec = TcpSpec {
        max_window_pkts: 10.0,
        ..TcpSpec::default()
    };
    let every = run(&dumbbell(b.clone(), vec![tcp(spec.clone())], 10 * S, 1)).unwrap();
    let timed = TcpSpec {
        rtt_samples: RttSamples::OnePerRtt,
        ..spec
    };
    let one = run(&dumbbell(b, vec![tcp(timed)], 10 * S, 1)).unwrap();
    let rtt = stat(&every, 0, "srtt_s");
    let rounds = 10.0 / rtt;
    let n_one = stat(&one, 0, "rtt_samples");
    assert!(
        (n_one - rounds).abs() <= 2.0,
        "{n_one} samples in {rounds:.1} rounds"
    );
    let n_every = stat(&every, 0, "rtt_samples");
    assert!(n_every >= 9.0 * n_one, "{n_every} against {n_one}");
    // Both estimates are the path's RTT: the samples are of the same packets' trips.
    assert!((stat(&one, 0, "srtt_s") - rtt).abs() < 1e-3);
}

#[test]
fn a_recover_margin_turns_some_fast_retransmits_into_timeouts() {
    // ns-2.35's agents allow a new fast retransmit only once the cumulative ACK is one packet
    // past the recovery point; RFC 6582's rule allows it at the point. A loss of the first
    // packet sent after a reduction then waits for the timer instead. Reno, 5% loss.
    let mut b = link(100_000_000, 20 * MS, 100_000);
    b.loss = Some(LossSpec::Bernoulli { p: 0.05 });
    let reno = TcpSpec {
        variant: Variant::Reno,
        ..TcpSpec::default()
    };
    let rfc = run(&dumbbell(b.clone(), vec![tcp(reno.clone())], 60 * S, 3)).unwrap();
    let ns2 = TcpSpec {
        recover_margin: 1,
        ..reno
    };
    let ns2 = run(&dumbbell(b, vec![tcp(ns2)], 60 * S, 3)).unwrap();
    let per_sent = |r: &ccscope_core::net::RunResult| {
        stat(r, 0, "timeouts") / r.flows[0].stats.dir[0].sent_pkts as f64
    };
    assert!(
        per_sent(&ns2) > per_sent(&rfc),
        "{} {}",
        per_sent(&ns2),
        per_sent(&rfc)
    );
}

/// ECN: RED marks ECN-capable packets instead of dropping them early, and the sender treats
/// a mark as a loss indication at most once per window (RFC 3168 §6.1.2).
#[test]
fn ecn_marks_replace_early_drops_and_reduce_once_per_window() {
    use ccscope_core::net::queue::QueueSpec;
    let mut red = QueueSpec::red(200, 5.0, 15.0, 0.002);
    if let QueueSpec::Red { ecn, .. } = &mut red {
        *ecn = true;
    }
    let flows: Vec<_> = (0..4)
        .map(|i| {
            let mut f = tcp(TcpSpec::default());
            f.ecn = true;
            f.start_ns = i * 100 * MS;
            f
        })
        .collect();
    let b = ccscope_core::config::LinkParams::new(10_000_000, 20 * MS, red);
    let r = run(&dumbbell(b, flows, 60 * S, 3)).unwrap();
    let bn = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    assert!(bn.stats.marks > 100, "marks {}", bn.stats.marks);
    assert_eq!(bn.stats.early_drops, 0);
    let reductions: f64 = (0..4).map(|i| stat(&r, i, "ecn_reductions")).sum();
    let marked: u64 = r.flows.iter().map(|f| f.stats.dir[0].marked).sum();
    // Every mark reaches the receiver, but for marked packets still in flight at the end.
    let in_flight: u64 = r.flows.iter().map(|f| f.in_flight).sum();
    assert!(marked <= bn.stats.marks && bn.stats.marks - marked <= in_flight);
    assert!(
        reductions > 0.0 && reductions < marked as f64,
        "{reductions} reductions for {marked} marks"
    );
    // At most one reduction per RTT: 60 s of >= 44 ms RTTs per flow.
    for i in 0..4 {
        assert!(stat(&r, i, "ecn_reductions") <= 60.0 / 0.044);
    }
}

/// Delayed ACKs: one ACK for every second in-order packet (ns-2 DelAck, b = 2).
#[test]
fn delayed_acks_halve_the_ack_count() {
    let spec = TcpSpec {
        delayed_ack: true,
        ..TcpSpec::default()
    };
    let r = run(&dumbbell(
        link(10_000_000, 20 * MS, 1000),
        vec![tcp(spec)],
        20 * S,
        1,
    ))
    .unwrap();
    let f = &r.flows[0].stats;
    let ratio = f.dir[1].sent_pkts as f64 / f.dir[0].delivered_pkts as f64;
    assert!((0.5..0.55).contains(&ratio), "ACKs per data packet {ratio}");
}
