//! Tests that would catch a wrong engine: queueing theory, conservation, exact timing, loss
//! modules and determinism.

mod common;

use ccscope_core::build::run;
use ccscope_core::config::{CapacityChange, LinkParams, TraceSpec};
use ccscope_core::net::codel::CoDelParams;
use ccscope_core::net::fq_codel::FqCoDelParams;
use ccscope_core::net::loss::{LossSpec, LossStep, StepLoss};
use ccscope_core::net::pie::PieParams;
use ccscope_core::net::queue::{Length, QueueSpec};
use ccscope_core::time::{serialization_time, SimTime};
use ccscope_core::transport::tcp::TcpSpec;
use common::*;
use proptest::prelude::*;

/// M/D/1: Poisson arrivals of fixed-size packets at a link with a large buffer. The mean number
/// waiting is Pollaczek–Khinchine's Lq = rho^2 / (2 (1 - rho)).
#[test]
fn md1_mean_queue_matches_pollaczek_khinchine() {
    let mu_pps = 1250.0; // 10 Mb/s of 1000-byte packets
    for (rho, seconds) in [(0.5, 2_000), (0.8, 4_000)] {
        let s = chain(
            vec![link(10_000_000, MS, 1_000_000)],
            poisson(rho * 10e6),
            seconds * S,
            11,
        );
        let r = run(&s).unwrap();
        let l = &r.links[0];
        let lq = l.stats.queue_pkt_ns as f64 / r.duration.ns() as f64;
        let expected = rho * rho / (2.0 * (1.0 - rho));
        assert!(
            (lq / expected - 1.0).abs() < 0.05,
            "rho = {rho}: mean queue {lq:.4} vs P-K {expected:.4}"
        );
        let util = l.stats.busy_ns as f64 / r.duration.ns() as f64;
        assert!(
            (util - rho).abs() < 0.01,
            "rho = {rho}: utilization {util:.4}"
        );
        assert_eq!(l.stats.queue_drops(), 0);
        // Little's law cross-check: mean wait = Lq / lambda.
        let lambda = rho * mu_pps;
        let f = &r.flows[0].stats.dir[0];
        let sojourn = f.delay_sum_ns as f64 / f.delivered_pkts as f64 * 1e-9;
        let wait = sojourn - 1.0 / mu_pps - 0.001;
        assert!(
            (wait * lambda / lq - 1.0).abs() < 0.02,
            "Little: {} vs {lq}",
            wait * lambda
        );
    }
}

/// A packet's arrival time is the sum of serializations and propagations, to the nanosecond.
#[test]
fn one_packet_crosses_a_path_in_exactly_the_sum_of_its_delays() {
    let hops = [
        (10_000_000u64, 5 * MS),
        (3_000_000, 12 * MS + 345),
        (1_000_000_000, 7 * MS + 1),
    ];
    let links = hops.iter().map(|&(r, d)| link(r, d, 10)).collect();
    // One packet: the CBR sends its first packet at start, the second after 8 s.
    let r = run(&chain(links, cbr(1000.0), 2 * S, 1)).unwrap();
    let f = &r.flows[0].stats.dir[0];
    assert_eq!((f.sent_pkts, f.delivered_pkts), (1, 1));
    let expected: u64 = hops
        .iter()
        .map(|&(rate, d)| serialization_time(1000, rate).ns() + d)
        .sum();
    // 1000 B: 800 us at 10 Mb/s; 8000/3e6 s = 2 666 666.67 ns, rounded up; 8 us at 1 Gb/s.
    assert_eq!(
        expected,
        800_000 + 5 * MS + 2_666_667 + 12 * MS + 345 + 8_000 + 7 * MS + 1
    );
    assert_eq!(f.delay_sum_ns, expected);
}

fn loss_run(loss: LossSpec, rate_pps: f64, seconds: u64) -> ccscope_core::net::RunResult {
    let mut bottleneck = link(100_000_000, 10 * MS, 1000);
    bottleneck.loss = Some(loss);
    let mut s = dumbbell(bottleneck, vec![cbr(rate_pps * 8000.0)], seconds * S, 5);
    s.trace = TraceSpec {
        interval_ns: Some(S),
        flows: true,
        queues: false,
        events: true,
        state: false,
        ..TraceSpec::default()
    };
    run(&s).unwrap()
}

#[test]
fn bernoulli_and_periodic_loss_rates_match_their_configuration() {
    let n = 1_000_000.0;
    let r = loss_run(LossSpec::Bernoulli { p: 0.01 }, 10_000.0, 100);
    let f = &r.flows[0].stats.dir[0];
    let p = f.link_losses as f64 / f.sent_pkts as f64;
    let sigma = (0.01f64 * 0.99 / n).sqrt();
    assert!((p - 0.01).abs() < 5.0 * sigma, "Bernoulli: measured {p}");

    let r = loss_run(LossSpec::Periodic { every: 50 }, 10_000.0, 10);
    // Every 50th packet that finished serialization on the bottleneck is lost.
    let bn = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    assert!(bn.stats.departures > 99_000);
    assert_eq!(bn.stats.losses, bn.stats.departures / 50);
    assert_eq!(r.flows[0].stats.dir[0].link_losses, bn.stats.losses);
}

/// Yang et al. §4: loss steps from 1% to 4% at a given time.
#[test]
fn scheduled_loss_step_changes_the_rate_at_the_given_time() {
    let step_at = 50 * S;
    let loss = LossSpec::Schedule {
        steps: vec![
            LossStep {
                at_ns: 0,
                loss: StepLoss::Bernoulli(0.01),
            },
            LossStep {
                at_ns: step_at,
                loss: StepLoss::Bernoulli(0.04),
            },
        ],
    };
    let r = loss_run(loss, 10_000.0, 100);
    let tr = r.trace.unwrap();
    let ev = tr.events.unwrap();
    let before = ev.time_ns.iter().filter(|&&t| t < step_at).count() as f64;
    let after = ev.time_ns.iter().filter(|&&t| t >= step_at).count() as f64;
    let per_half = 500_000.0;
    for (got, p) in [(before / per_half, 0.01), (after / per_half, 0.04)] {
        let sigma = (p * (1.0 - p) / per_half).sqrt();
        assert!(
            (got - p).abs() < 5.0 * sigma,
            "measured {got} for configured {p}"
        );
    }
    // The per-second loss series switches level at the step: compare the seconds next to it.
    let lost = |b: usize| tr.flows[b].lost_pkts as f64 / tr.flows[b].sent_pkts as f64;
    let last_before: f64 = (45..50).map(lost).sum::<f64>() / 5.0;
    let first_after: f64 = (50..55).map(lost).sum::<f64>() / 5.0;
    assert!(
        last_before < 0.02 && first_after > 0.03,
        "{last_before} -> {first_after}"
    );
}

#[test]
fn capacity_change_applies_from_its_time() {
    let mut b = link(10_000_000, 10 * MS, 100_000);
    b.capacity_changes = vec![CapacityChange {
        at_ns: 10 * S,
        rate_bps: 5_000_000,
    }];
    // 8 Mb/s offered: fits before the change, backs up after it.
    let r = run(&dumbbell(b, vec![cbr(8e6)], 20 * S, 1)).unwrap();
    let bn = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    let bits = bn.stats.tx_bytes as f64 * 8.0;
    let expected = 8e6 * 10.0 + 5e6 * 10.0;
    assert!(
        (bits / expected - 1.0).abs() < 0.002,
        "{bits} vs {expected}"
    );
    assert_eq!(bn.rate_bps, 5_000_000);
}

/// Packets waiting when the capacity changes go at the new rate; the one on the wire finishes
/// at the old one. Three 1000-byte packets 1 ms apart into 1 Mb/s (8 ms each), 2 Mb/s from 4 ms:
/// the first finishes at 8 ms, the second at 8 + 4, the third at 12 + 4.
#[test]
fn waiting_packets_take_a_capacity_change_the_one_on_the_wire_does_not() {
    let mut l = link(1_000_000, 10 * MS, 100);
    l.capacity_changes = vec![CapacityChange {
        at_ns: 4 * MS,
        rate_bps: 2_000_000,
    }];
    let mut flow = cbr(8e6);
    flow.stop_ns = Some(2 * MS + MS / 2);
    let mut s = chain(vec![l], flow, S, 1);
    s.trace.delays = true;
    let r = run(&s).unwrap();
    let f = &r.flows[0].stats.dir[0];
    assert_eq!((f.sent_pkts, f.delivered_pkts), (3, 3));
    // Delivered at done + 10 ms; sent at 0, 1 and 2 ms.
    let delays = [(8 + 10) * MS, (12 + 10 - 1) * MS, (16 + 10 - 2) * MS];
    assert_eq!(f.delay_sum_ns, delays.iter().sum::<u64>());
    assert_eq!(r.links[0].stats.busy_ns, 16 * MS);
    // The delay log has each packet: delivered at 18, 22 and 26 ms, after those delays.
    let log = r.trace.unwrap().delays.unwrap();
    assert_eq!(log.delay_ns, delays);
    assert_eq!(log.time_ns, [18 * MS, 22 * MS, 26 * MS]);
    assert_eq!(log.flow, [0, 0, 0]);
}

/// At an instant when a packet leaves a link's wire and others arrive, it has left first: the
/// next waiting packet starts, and the arrivals find its place in the queue free. Two CBR flows of
/// 1000-byte packets, each at the bottleneck's 10 Mb/s (0.8 ms a packet, less than the access
/// links' 1 ms, so the arrivals are scheduled before the departures they meet), the second
/// 0.8 ms later, into room for one waiting packet: from the second instant on, every 0.8 ms one
/// packet leaves, the waiting one starts, one arrival takes its place and the other is dropped.
/// The link never idles once busy.
#[test]
fn a_packet_leaving_the_wire_frees_its_place_before_simultaneous_arrivals() {
    let b = link(10_000_000, 10 * MS, 1);
    let mut late = cbr(1e7);
    late.start_ns = 800_000;
    let r = run(&dumbbell(b, vec![cbr(1e7), late], S / 10, 1)).unwrap();
    let bn = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    let sent: u64 = r.flows.iter().map(|f| f.stats.dir[0].sent_pkts).sum();
    // 125 and 124 packets, at 0, 0.8, ..., 99.2 ms and 0.8, ..., 99.2 ms.
    assert_eq!(sent, 249);
    // They reach the bottleneck 1.008 ms later (the access link): before the run ends, 123
    // times two at once, at 1.808 + 0.8 j ms. At the first the link has just fallen idle: one
    // goes on the wire, the other waits. At each of the 122 others one is dropped (had the
    // arrivals come first, the waiting place would still be taken: 123 drops).
    assert_eq!(bn.stats.forced_drops, 122);
    let first = serialization_time(1000, 1_000_000_000).ns() + MS;
    assert_eq!(bn.stats.busy_ns, S / 10 - first);
}

/// Losses on the wire, capacity changes and a full queue on one link, with the event log: every
/// packet is accounted for, the loss module sees every departure, and the log is in time order.
#[test]
fn a_link_with_losses_and_capacity_changes_conserves_packets() {
    let mut b = link(10_000_000, 10 * MS, 50);
    b.loss = Some(LossSpec::Periodic { every: 7 });
    b.capacity_changes = [(2, 3_000_000), (4, 20_000_000), (6, 1_000_000)]
        .map(|(at, rate_bps)| CapacityChange {
            at_ns: at * S + 123_457,
            rate_bps,
        })
        .to_vec();
    let mut s = dumbbell(b, vec![cbr(6e6), poisson(4e6)], 8 * S, 3);
    s.trace = TraceSpec {
        interval_ns: Some(S / 10),
        flows: true,
        queues: true,
        events: true,
        state: false,
        ..TraceSpec::default()
    };
    let r = run(&s).unwrap();
    assert_conserved(&r);
    let bn = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    assert_eq!(bn.stats.losses, bn.stats.departures / 7);
    assert!(bn.stats.forced_drops > 0 && bn.stats.losses > 0);
    let log = r.trace.unwrap().events.unwrap();
    assert!(log.time_ns.is_sorted());
    assert_eq!(
        log.time_ns.len() as u64,
        bn.stats.losses + bn.stats.forced_drops
    );
}

fn traced(mut s: ccscope_core::config::Scenario) -> ccscope_core::config::Scenario {
    s.trace = TraceSpec {
        interval_ns: Some(100 * MS),
        flows: true,
        queues: true,
        events: true,
        state: false,
        ..TraceSpec::default()
    };
    s
}

#[test]
fn same_seed_same_traces_different_seed_different_traces() {
    let mut b = link(10_000_000, 20 * MS, 30);
    b.loss = Some(LossSpec::Bernoulli { p: 0.02 });
    let flows = vec![poisson(4e6), poisson(4e6), cbr(3e6)];
    let a = run(&traced(dumbbell(b.clone(), flows.clone(), 20 * S, 1))).unwrap();
    let a2 = run(&traced(dumbbell(b.clone(), flows.clone(), 20 * S, 1))).unwrap();
    let c = run(&traced(dumbbell(b, flows, 20 * S, 2))).unwrap();
    assert_eq!(a, a2);
    assert_ne!(a.trace, c.trace);
}

/// TCP flows and a CBR flow through a 10 Mb/s bottleneck with queue `q`, traced.
fn mix(q: QueueSpec, seed: u64) -> ccscope_core::net::RunResult {
    let b = ccscope_core::config::LinkParams::new(10_000_000, 20 * MS, q);
    let mut flows: Vec<_> = (0..3)
        .map(|_| tcp(ccscope_core::transport::tcp::TcpSpec::default()))
        .collect();
    flows.push(cbr(2e6));
    flows.iter_mut().for_each(|f| f.start_jitter_ns = S);
    run(&traced(dumbbell(b, flows, 20 * S, seed))).unwrap()
}

#[test]
fn a_queue_that_keeps_its_packets_and_never_drops_early_runs_as_droptail() {
    // CoDel with a target it never reaches, PIE that never draws, FQ-CoDel with one queue and
    // no overflow: each serves first in, first out, and the link that asks its queue for the
    // next packet when the wire falls free gives, to the nanosecond, what the link that knew
    // each packet's start on arrival gives.
    let never = CoDelParams {
        target: SimTime(19 * S),
        interval: SimTime(20 * S),
        mtu_bytes: 1514,
        ecn: false,
    };
    let pie = PieParams {
        target: SimTime::from_ms(15),
        t_update: SimTime::from_ms(15),
        alpha: 0.0,
        beta: 0.0,
        max_burst: SimTime(100 * S),
        mean_packet_bytes: 1000,
        ecn: false,
        derandomize: false,
    };
    let fq = FqCoDelParams {
        codel: never,
        flows: 1,
        quantum: 1514,
        limit_packets: 100_000,
        memory_limit_bytes: u64::MAX,
        drop_batch: 64,
    };
    for (q, limit) in [
        (
            QueueSpec::CoDel {
                params: never,
                limit: Length::Packets(40),
            },
            40,
        ),
        (
            QueueSpec::Pie {
                params: pie,
                limit: Length::Packets(40),
            },
            40,
        ),
        (QueueSpec::FqCoDel(fq), 100_000),
    ] {
        let kind = q.kind();
        let (got, want) = (mix(q, 7), mix(QueueSpec::droptail_packets(limit), 7));
        assert_eq!(got.flows, want.flows, "{kind}");
        assert_eq!(got.links, want.links, "{kind}");
        assert_eq!(got.trace, want.trace, "{kind}");
    }
}

#[test]
fn aqm_links_keep_the_queue_short_and_report_their_sojourn_times() {
    let codel = CoDelParams {
        target: SimTime::from_ms(5),
        interval: SimTime::from_ms(100),
        mtu_bytes: 1514,
        ecn: false,
    };
    let droptail = mix(QueueSpec::droptail_packets(200), 3);
    let aqm = mix(
        QueueSpec::CoDel {
            params: codel,
            limit: Length::Packets(200),
        },
        3,
    );
    assert_eq!(
        aqm,
        mix(
            QueueSpec::CoDel {
                params: codel,
                limit: Length::Packets(200)
            },
            3
        )
    );
    let (d, a) = (&droptail.links[0], &aqm.links[0]);
    let (ds, as_) = (d.sojourn.as_deref().unwrap(), a.sojourn.as_deref().unwrap());
    assert!(as_.mean_ns < ds.mean_ns / 4.0, "{as_:?} against {ds:?}");
    assert!(
        a.stats.early_drops > 0
            && a.stats.early_drops + a.stats.forced_drops == a.stats.queue_drops()
    );
    // Every packet the queue passed to the wire is counted once; access links keep none.
    assert_eq!(as_.packets, a.stats.departures + a.on_wire);
    assert!(aqm
        .links
        .iter()
        .filter(|l| !l.monitor)
        .all(|l| l.sojourn.is_none()));
    assert_conserved(&aqm);
}

/// Checks sent = delivered + dropped + in flight per flow, and the same balance per link.
fn assert_conserved(r: &ccscope_core::net::RunResult) {
    for (i, f) in r.flows.iter().enumerate() {
        let sent: u64 = f.stats.dir.iter().map(|d| d.sent_pkts).sum();
        let done: u64 = f
            .stats
            .dir
            .iter()
            .map(|d| d.delivered_pkts + d.dropped())
            .sum();
        assert_eq!(sent, done + f.in_flight, "flow {i}: {:?}", f);
    }
    for l in &r.links {
        let s = &l.stats;
        assert_eq!(
            s.arrivals,
            s.departures + s.queue_drops() + l.in_queue + l.on_wire,
            "{}",
            l.name
        );
        assert_eq!(s.departures, s.losses + s.exits + l.in_pipe, "{}", l.name);
    }
    let drops: u64 = r
        .links
        .iter()
        .map(|l| l.stats.queue_drops() + l.stats.losses)
        .sum();
    let flow_drops: u64 = r
        .flows
        .iter()
        .flat_map(|f| f.stats.dir)
        .map(|d| d.dropped())
        .sum();
    assert_eq!(drops, flow_drops);
}

/// CoDel, FQ-CoDel or PIE with random settings, ECN or not.
fn arb_aqm() -> impl Strategy<Value = QueueSpec> {
    (
        0u8..3,
        1u64..20,
        20u64..200,
        1u64..60,
        any::<bool>(),
        1u32..64,
        1u32..80,
    )
        .prop_map(|(kind, target_ms, interval_ms, limit, ecn, flows, batch)| {
            let codel = CoDelParams {
                target: SimTime::from_ms(target_ms),
                interval: SimTime::from_ms(interval_ms),
                mtu_bytes: 1514,
                ecn,
            };
            match kind {
                0 => QueueSpec::CoDel {
                    params: codel,
                    limit: Length::Packets(limit),
                },
                1 => QueueSpec::FqCoDel(FqCoDelParams {
                    codel,
                    flows,
                    quantum: 1514,
                    limit_packets: limit,
                    memory_limit_bytes: 40_000,
                    drop_batch: batch,
                }),
                _ => QueueSpec::Pie {
                    params: PieParams {
                        target: SimTime::from_ms(target_ms),
                        t_update: SimTime::from_ms(interval_ms / 5),
                        alpha: 0.125,
                        beta: 1.25,
                        max_burst: SimTime::from_ms(interval_ms),
                        mean_packet_bytes: 1000,
                        ecn,
                        derandomize: batch % 2 == 0,
                    },
                    limit: Length::Bytes(limit * 1000),
                },
            }
        })
}

fn arb_queue() -> impl Strategy<Value = QueueSpec> {
    prop_oneof![
        arb_aqm(),
        (1u64..50).prop_map(QueueSpec::droptail_packets),
        (1500u64..40_000).prop_map(|b| QueueSpec::DropTail {
            limit_packets: None,
            limit_bytes: Some(b)
        }),
        (
            2.0f64..10.0,
            1.5f64..4.0,
            0.001f64..0.5,
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(lo, k, w, gentle, wait)| {
                let mut q = QueueSpec::red(60, lo, lo * k, w);
                if let QueueSpec::Red {
                    gentle: g,
                    wait: wt,
                    ecn,
                    ..
                } = &mut q
                {
                    *g = gentle;
                    *wt = wait;
                    *ecn = wait;
                }
                q
            }),
    ]
}

fn arb_flow() -> impl Strategy<Value = ccscope_core::config::FlowSpec> {
    (
        any::<bool>(),
        1e5f64..2e7,
        40u32..1500,
        0u64..2 * S,
        proptest::option::of(2 * S..5 * S),
        any::<bool>(),
        any::<bool>(),
        proptest::option::of(MS..50 * MS),
    )
        .prop_map(|(is_cbr, rate, size, start, stop, rev, ecn, delay)| {
            let mut f = if is_cbr { cbr(rate) } else { poisson(rate) };
            if let ccscope_core::config::SourceSpec::Cbr { packet_bytes, .. }
            | ccscope_core::config::SourceSpec::Poisson { packet_bytes, .. } =
                std::sync::Arc::make_mut(&mut f.source)
            {
                *packet_bytes = size;
            }
            f.start_ns = start;
            f.stop_ns = stop;
            f.reverse = rev;
            f.ecn = ecn;
            f.placement_mut().left_delay_ns = delay;
            f
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn packets_are_conserved_on_random_dumbbells(
        rate in 500_000u64..20_000_000,
        delay in MS..40 * MS,
        queue in arb_queue(),
        p in 0.0f64..0.2,
        flows in proptest::collection::vec(arb_flow(), 1..8),
        seconds in 1u64..6,
        seed in any::<u64>(),
    ) {
        let mut b = ccscope_core::config::LinkParams::new(rate, delay, queue);
        b.loss = (p > 0.1).then_some(LossSpec::Bernoulli { p: p - 0.1 });
        let r = run(&dumbbell(b, flows, seconds * S, seed)).unwrap();
        assert_conserved(&r);
    }

    #[test]
    fn packets_are_conserved_on_random_parking_lots(
        hops in proptest::collection::vec((500_000u64..10_000_000, MS..20 * MS, arb_queue()), 1..4),
        flows in proptest::collection::vec((arb_flow(), 0usize..4, 0usize..4), 1..6),
        seed in any::<u64>(),
    ) {
        let n = hops.len();
        let hops: Vec<_> = hops.into_iter().map(|(r, d, q)| ccscope_core::config::LinkParams::new(r, d, q)).collect();
        let flows = flows.into_iter().map(|(mut f, a, b)| {
            let (a, b) = (a % n, b % n);
            f.placement_mut().hops = Some([a.min(b), a.max(b)]);
            f
        }).collect();
        let s = ccscope_core::config::Scenario {
            seed,
            duration_ns: 3 * S,
            warmup_ns: 0,
            topology: ccscope_core::config::TopologySpec::ParkingLot { hops, access: link(100_000_000, MS, 1000) },
            flows,
            trace: TraceSpec::default(),
        };
        assert_conserved(&run(&s).unwrap());
    }
}

/// Step marking in the engine, against arrival times worked out by hand. A TCP flow's first
/// window of 20 packets of 1000 bytes leaves back to back through its 1 Gb/s access link:
/// packet k reaches the 1 Mb/s bottleneck at 1 ms + 8 µs·(k + 1), while packet 0, on the wire
/// for 8 ms, leaves k − 1 waiting. With K = 3 packets 5 to 19 are marked on arrival; with room
/// for 10 waiting, packets 11 to 19 are dropped instead, marked or not. The run ends at 5 ms,
/// before any ACK returns.
#[test]
fn step_queue_marks_the_arrivals_that_find_more_than_k_waiting() {
    let arrival = |k: u64| MS + 8_000 * (k + 1);
    for (limit, ecn, marked, dropped) in [
        (100, true, 5..20, 0..0),
        (10, true, 5..11, 11..20),
        (100, false, 0..0, 0..0),
        (10, false, 0..0, 11..20),
    ] {
        let step = QueueSpec::Step {
            limit: Length::Packets(limit),
            threshold: Length::Packets(3),
        };
        let mut flow = tcp(TcpSpec {
            initial_window_pkts: 20.0,
            ..TcpSpec::default()
        });
        flow.ecn = ecn;
        let mut s = dumbbell(LinkParams::new(1_000_000, MS, step), vec![flow], 5 * MS, 1);
        s.trace.events = true;
        let r = run(&s).unwrap();
        let ev = r.trace.unwrap().events.unwrap();
        let times = |kind: u8| -> Vec<u64> {
            let at = ev.time_ns.iter().zip(&ev.kind);
            at.filter(|(_, &k)| k == kind).map(|(&t, _)| t).collect()
        };
        let case = format!("limit {limit}, ecn {ecn}");
        assert_eq!(
            times(2),
            marked.map(arrival).collect::<Vec<_>>(),
            "marks, {case}"
        );
        assert_eq!(
            times(0),
            dropped.map(arrival).collect::<Vec<_>>(),
            "drops, {case}"
        );
    }
}
