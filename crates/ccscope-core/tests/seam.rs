//! What the TCP transport tells a controller and what it does with the controller's outputs:
//! every ACK accounted for, RTT estimates that bound the path, delivery-rate samples that never
//! exceed the bottleneck, packets marked lost once per transmission and counted in the samples,
//! application-limited marks and restarts from idle, pacing at the given rate, wake-ups at the
//! asked time, spurious timeouts undone and genuine ones not.

mod common;

use std::sync::{Arc, Mutex};

use ccscope_core::apps::{OnMode, OnOff, Period, Sink};
use ccscope_core::config::{CapacityChange, Scenario, TopologySpec};
use ccscope_core::control::{
    AckSample, Aimd, Controller, LossEvent, LossKind, LostPacket, Window, WindowConfig,
};
use ccscope_core::net::loss::LossSpec;
use ccscope_core::net::queue::QueueSpec;
use ccscope_core::net::{RunResult, Simulation};
use ccscope_core::time::SimTime;
use ccscope_core::transport::tcp::{self, TcpSpec, Variant};
use common::*;

/// What a [`Recorder`] saw.
#[derive(Default)]
struct Log {
    acks: Vec<AckSample>,
    losses: Vec<LossEvent>,
    lost: Vec<LostPacket>,
    undos: Vec<SimTime>,
    wakeups: Vec<SimTime>,
    restarts: Vec<SimTime>,
}

/// TCP's own window controller, recording every hook, optionally with a pacing rate, a
/// window of its own, delivery-rate samples and a wake-up every `wake_every`.
struct Recorder {
    tcp: Window<ccscope_core::control::AimdRule>,
    log: Arc<Mutex<Log>>,
    pace_bps: Option<f64>,
    window_pkts: Option<f64>,
    delivery: bool,
    wake_every: Option<SimTime>,
    next_wake: SimTime,
    /// Asks the transport to mark what it sends as application-limited between these times.
    mark_between: Option<(SimTime, SimTime)>,
    marking: bool,
}

impl Recorder {
    fn new(log: &Arc<Mutex<Log>>) -> Self {
        Recorder {
            tcp: Aimd::tcp().starting(WindowConfig::default()),
            log: Arc::clone(log),
            pace_bps: None,
            window_pkts: None,
            delivery: false,
            wake_every: None,
            next_wake: SimTime::ZERO,
            mark_between: None,
            marking: false,
        }
    }
}

impl Controller for Recorder {
    fn name(&self) -> String {
        "recorder".into()
    }
    fn on_ack(&mut self, ack: &AckSample) {
        self.log.lock().unwrap().acks.push(*ack);
        self.tcp.on_ack(ack);
        self.marking = self
            .mark_between
            .is_some_and(|(from, to)| from <= ack.now && ack.now < to);
    }
    fn on_lost_packet(&mut self, lost: &LostPacket) {
        self.log.lock().unwrap().lost.push(*lost);
    }
    fn on_restart_from_idle(&mut self, now: SimTime) {
        self.log.lock().unwrap().restarts.push(now);
    }
    fn marks_app_limited(&self) -> bool {
        self.marking
    }
    fn on_loss(&mut self, loss: &LossEvent) {
        self.log.lock().unwrap().losses.push(*loss);
        self.tcp.on_loss(loss);
    }
    fn on_undo(&mut self, now: SimTime) {
        self.log.lock().unwrap().undos.push(now);
    }
    fn window(&self) -> f64 {
        self.window_pkts.unwrap_or_else(|| self.tcp.window())
    }
    fn pacing_rate_bps(&self) -> Option<f64> {
        self.pace_bps
    }
    fn wants_delivery_rate(&self) -> bool {
        self.delivery
    }
    fn wakeup(&self) -> Option<SimTime> {
        self.wake_every.map(|_| self.next_wake)
    }
    fn on_wakeup(&mut self, now: SimTime) {
        self.log.lock().unwrap().wakeups.push(now);
        self.next_wake += self.wake_every.unwrap();
    }
}

/// Runs `s`, every flow a TCP SACK flow of `spec` driven by a recorder `make` sets up.
fn run_with(s: &Scenario, spec: &TcpSpec, make: impl Fn() -> Recorder) -> RunResult {
    Simulation::new(s, |_| {
        Ok(tcp::endpoints_with_controller(spec, Box::new(make())))
    })
    .unwrap()
    .run()
}

fn sack() -> TcpSpec {
    TcpSpec {
        variant: Variant::Sack,
        ..TcpSpec::default()
    }
}

/// A 10 Mb/s, 20 ms dumbbell (44 ms of propagation and access delay a round trip) with one
/// flow of `spec` for `seconds`.
fn one_flow(bottleneck: ccscope_core::net::LinkParams, spec: &TcpSpec, seconds: u64) -> Scenario {
    dumbbell(bottleneck, vec![tcp(spec.clone())], seconds * S, 5)
}

fn stat(r: &RunResult, name: &str) -> f64 {
    r.flows[0]
        .sender
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap()
        .1
}

/// The smallest round trip on the dumbbell: propagation (2 × (1 + 20 + 1) ms) plus the
/// serialization of a 1000-byte packet at each of the three links and of a 40-byte ACK back.
fn floor_rtt() -> SimTime {
    let data = 8000 * S / 1_000_000_000 * 2 + 8000 * S / 10_000_000;
    let ack = 320 * S / 1_000_000_000 * 2 + 320 * S / 10_000_000;
    SimTime(44 * MS + data + ack)
}

#[test]
fn every_ack_is_accounted_for() {
    let mut bottleneck = link(10_000_000, 20 * MS, 100);
    bottleneck.loss = Some(LossSpec::Bernoulli { p: 0.01 });
    let log = Arc::default();
    let r = run_with(&one_flow(bottleneck, &sack(), 30), &sack(), || {
        Recorder::new(&log)
    });
    let log = log.lock().unwrap();
    // Every packet acknowledged is in exactly one ACK's count, bytes included.
    let acked: u64 = log.acks.iter().map(|a| a.acked_pkts).sum();
    assert_eq!(acked as f64, stat(&r, "acked_pkts"));
    assert!(log
        .acks
        .iter()
        .all(|a| a.acked_bytes == 1000 * a.acked_pkts));
    // Duplicate ACKs reach the controller, some of them in recovery, and they SACK.
    let dups: Vec<_> = log.acks.iter().filter(|a| a.acked_pkts == 0).collect();
    assert!(dups.iter().any(|a| a.in_recovery) && dups.iter().any(|a| a.sacked_pkts > 0));
    // The estimates bound the path: no sample below the floor, the minimum is the smallest
    // sample so far, the smoothed RTT is defined from the first sample on.
    let mut min = SimTime::MAX;
    for a in &log.acks {
        if let Some(rtt) = a.rtt {
            assert!(rtt >= floor_rtt(), "{rtt:?} below {:?}", floor_rtt());
            min = min.min(rtt);
        }
        if min < SimTime::MAX {
            assert_eq!(a.min_rtt, Some(min));
            assert!(a.srtt.is_some_and(|s| s >= min));
        }
        // A window of 100 packets of buffer and 55 of path cannot have more in flight.
        assert!(a.in_flight_pkts <= 200, "{a:?}");
        assert_eq!(a.in_flight_bytes, 1000 * a.in_flight_pkts);
        assert!(!a.ece && a.ce_pkts == 0 && a.delivery.is_none());
    }
    // No timeout was spurious: the 100-packet buffer adds at most 80 ms to a 45 ms path, well
    // under the 200 ms minimum RTO.
    assert!(log.undos.is_empty(), "{:?}", log.undos);
}

#[test]
fn ecn_echoes_reach_the_controller_with_the_marked_bytes() {
    let mut red = QueueSpec::red(100, 5.0, 15.0, 0.002);
    if let QueueSpec::Red { ecn, .. } = &mut red {
        *ecn = true;
    }
    let bottleneck = ccscope_core::net::LinkParams::new(10_000_000, 20 * MS, red);
    let mut s = one_flow(bottleneck, &sack(), 30);
    s.flows[0].ecn = true;
    let log = Arc::default();
    let r = run_with(&s, &sack(), || Recorder::new(&log));
    let log = log.lock().unwrap();
    let marked: Vec<_> = log.acks.iter().filter(|a| a.ece).collect();
    assert!(!marked.is_empty());
    assert!(marked
        .iter()
        .all(|a| a.ce_pkts == a.acked_pkts && a.ce_bytes == a.acked_bytes));
    // Each ECN reduction the sender counted came after an ACK that carried the echo.
    let ecn_losses = log
        .losses
        .iter()
        .filter(|l| l.kind == LossKind::Ecn)
        .count();
    assert_eq!(ecn_losses as f64, stat(&r, "ecn_reductions"));
    assert!(ecn_losses <= marked.len());
}

#[test]
fn delivery_rate_samples_never_exceed_the_bottleneck_and_reach_it() {
    let log = Arc::default();
    let s = one_flow(link(10_000_000, 20 * MS, 60), &sack(), 30);
    run_with(&s, &sack(), || Recorder {
        delivery: true,
        ..Recorder::new(&log)
    });
    let log = log.lock().unwrap();
    let samples: Vec<_> = log.acks.iter().filter_map(|a| a.delivery).collect();
    assert!(samples.len() > 1000);
    // ACKs leave the bottleneck at most one per 0.8 ms serialization, so data cannot be
    // delivered faster than 10 Mb/s over an interval that starts at a delivery
    // (draft-cheng-iccrg-delivery-rate-estimation-02 §3.3, the ACK interval), nor a sample be
    // shorter than the min RTT (the send interval bounds the rest).
    for d in &samples {
        assert!(d.rate_bps <= 10e6 * (1.0 + 1e-9), "{d:?}");
        assert!(d.interval >= floor_rtt());
    }
    // The bulk flow fills the link: its best sample spans a window of about 55 packets, so it
    // is within one packet of the link's rate.
    let best = samples.iter().map(|d| d.rate_bps).fold(0.0, f64::max);
    assert!(best >= 10e6 * (1.0 - 1.0 / 55.0), "{best}");
    assert!(samples.iter().all(|d| !d.app_limited));
    let total = samples.last().unwrap().total_delivered_pkts;
    assert!(
        total > 0
            && samples
                .windows(2)
                .all(|w| w[0].total_delivered_pkts <= w[1].total_delivered_pkts)
    );
}

#[test]
fn a_paced_sender_sends_at_its_pace() {
    // A window far above the path's and a pace of 2 Mb/s on a 10 Mb/s link: the link carries
    // 2 Mb/s, and packets 4 ms apart never wait for each other at the bottleneck.
    let log = Arc::default();
    let mut s = one_flow(link(10_000_000, 20 * MS, 100), &sack(), 20);
    s.trace.interval_ns = Some(S);
    s.trace.queues = true;
    let r = run_with(&s, &sack(), || Recorder {
        pace_bps: Some(2e6),
        window_pkts: Some(1000.0),
        ..Recorder::new(&log)
    });
    let bytes = r.flows[0].stats.dir[0].sent_bytes as f64;
    let rate = bytes * 8.0 / 20.0;
    // 20 s at one packet every 4 ms: 5000 packets, the first at time 0.
    assert!((rate - 2e6).abs() <= 8000.0 / 20.0, "{rate}");
    let bottleneck = r.links.iter().find(|l| l.monitor).unwrap();
    assert!(
        bottleneck.stats.max_queue_pkts <= 1,
        "{}",
        bottleneck.stats.max_queue_pkts
    );
}

#[test]
fn wakeups_fire_at_the_asked_times() {
    let log = Arc::default();
    let s = one_flow(link(10_000_000, 20 * MS, 100), &sack(), 3);
    run_with(&s, &sack(), || Recorder {
        wake_every: Some(SimTime::from_ms(250)),
        ..Recorder::new(&log)
    });
    let wakeups = log.lock().unwrap().wakeups.clone();
    let expected: Vec<_> = (0..12).map(|k| SimTime::from_ms(250 * k)).collect();
    assert_eq!(wakeups, expected);
}

#[test]
fn a_spurious_timeout_is_undone() {
    // The link almost stalls for two seconds (a packet every 0.8 s): ACKs stop for longer
    // than the retransmission timeout, but the buffer holds the 100 packets the receiver
    // window lets out, so the timeouts are spurious and the originals' ACKs reveal it
    // (RFC 3522 §3.2).
    let mut bottleneck = link(10_000_000, 20 * MS, 2000);
    bottleneck.capacity_changes = vec![
        CapacityChange {
            at_ns: 5 * S,
            rate_bps: 10_000,
        },
        CapacityChange {
            at_ns: 7 * S,
            rate_bps: 10_000_000,
        },
    ];
    let spec = TcpSpec {
        min_rto_ns: 20 * MS,
        max_window_pkts: 100.0,
        ..sack()
    };
    let mut s = one_flow(bottleneck, &spec, 12);
    // ACKs come back over a link that keeps its rate.
    if let TopologySpec::Dumbbell { reverse, .. } = &mut s.topology {
        *reverse = Some(link(10_000_000, 20 * MS, 2000));
    }
    let log = Arc::default();
    let r = run_with(&s, &spec, || Recorder::new(&log));
    let log = log.lock().unwrap();
    assert!(stat(&r, "timeouts") >= 1.0);
    assert_eq!(
        r.links.iter().map(|l| l.stats.queue_drops()).sum::<u64>(),
        0
    );
    assert!(!log.undos.is_empty());
    assert!(log.undos.len() as f64 <= stat(&r, "timeouts") + stat(&r, "fast_retransmits"));
}

#[test]
fn lost_packets_are_marked_once_per_transmission_and_counted_in_the_samples() {
    // Without a timeout every retransmission resends a packet the transport marked lost (RFC
    // 6675 IsLost, or the fast retransmit's), and every marked packet is resent. The receiver
    // window keeps the queue from overflowing: losses are random, 0.1% of the packets.
    for variant in [Variant::Sack, Variant::NewReno] {
        let spec = TcpSpec {
            variant,
            max_window_pkts: 80.0,
            ..TcpSpec::default()
        };
        let mut bottleneck = link(10_000_000, 20 * MS, 100);
        bottleneck.loss = Some(LossSpec::Bernoulli { p: 0.001 });
        let log = Arc::default();
        let r = run_with(&one_flow(bottleneck, &spec, 30), &spec, || Recorder {
            delivery: true,
            ..Recorder::new(&log)
        });
        let log = log.lock().unwrap();
        assert_eq!(stat(&r, "timeouts"), 0.0, "{variant}");
        assert_eq!(log.lost.len() as f64, stat(&r, "retransmits"), "{variant}");
        // Each marked packet was in flight when it left, and counts itself among the losses
        // since; the samples count the losses between a packet's sending and its ACK.
        for l in &log.lost {
            assert!(l.tx_in_flight_pkts >= 1 && l.lost_pkts >= 1 && l.sent_at <= l.now);
        }
        // SACKs deliver packets sent before a loss was marked, so some samples count it.
        let samples: Vec<_> = log.acks.iter().filter_map(|a| a.delivery).collect();
        let counted = samples.iter().any(|d| d.lost_pkts > 0);
        assert!(counted || variant != Variant::Sack);
        assert!(samples.iter().all(|d| d.lost_pkts <= log.lost.len() as u64));
    }
}

#[test]
fn a_timeout_marks_everything_outstanding() {
    // A 100-packet window into a link that stops for 2 s: the timeout marks what is
    // outstanding lost, before the controller hears of the timeout.
    let mut bottleneck = link(10_000_000, 20 * MS, 2000);
    bottleneck.capacity_changes = vec![
        CapacityChange {
            at_ns: 5 * S,
            rate_bps: 1,
        },
        CapacityChange {
            at_ns: 7 * S,
            rate_bps: 10_000_000,
        },
    ];
    let spec = TcpSpec {
        max_window_pkts: 100.0,
        ..sack()
    };
    let log = Arc::default();
    let r = run_with(&one_flow(bottleneck, &spec, 12), &spec, || Recorder {
        delivery: true,
        ..Recorder::new(&log)
    });
    let log = log.lock().unwrap();
    assert!(stat(&r, "timeouts") >= 1.0);
    let first = log
        .losses
        .iter()
        .find(|l| l.kind == LossKind::Timeout)
        .unwrap();
    let at_timeout = log.lost.iter().filter(|l| l.now == first.now).count();
    assert!((90..=100).contains(&at_timeout), "{at_timeout}");
}

#[test]
fn app_limited_marks_reach_the_samples() {
    // The controller asks for marks for half a second: the samples of what was sent then,
    // and until what was in flight is delivered, say application-limited; none other does.
    let log = Arc::default();
    let s = one_flow(link(10_000_000, 20 * MS, 100), &sack(), 10);
    let (from, to) = (SimTime::from_ms(5_000), SimTime::from_ms(5_500));
    run_with(&s, &sack(), || Recorder {
        delivery: true,
        mark_between: Some((from, to)),
        ..Recorder::new(&log)
    });
    let log = log.lock().unwrap();
    let limited: Vec<_> = log
        .acks
        .iter()
        .filter(|a| a.delivery.is_some_and(|d| d.app_limited))
        .map(|a| a.now)
        .collect();
    assert!(limited.len() > 100, "{}", limited.len());
    // Marked from the first ACK in the span on: its first packets are acknowledged a round
    // trip later (45 ms of path, at most 80 ms of queue), the last packets sent while marked
    // within two round trips of its end (until what was in flight is delivered).
    let (first, last) = (limited[0], *limited.last().unwrap());
    assert!(
        from < first && first < from + SimTime::from_ms(125),
        "{first:?}"
    );
    assert!(to < last && last < to + SimTime::from_ms(250), "{last:?}");
}

#[test]
fn a_sender_that_goes_idle_restarts_from_idle() {
    // ON/OFF transfers of 0.5 s of data at 2 Mb/s, each followed by 0.5 s OFF once it is
    // delivered: every transfer after the first starts with nothing in flight and the
    // application out of data.
    let log = Arc::default();
    let s = one_flow(link(10_000_000, 20 * MS, 100), &sack(), 10);
    let period = Period::Fixed { secs: 0.5 };
    Simulation::new(&s, |_| {
        let app = OnOff::new(2e6, 1000, period, period, OnMode::Transfers)?;
        let ctl = Recorder {
            delivery: true,
            ..Recorder::new(&log)
        };
        Ok(tcp::endpoints(
            &sack(),
            Box::new(ctl),
            Box::new(app),
            Box::new(Sink::default()),
        ))
    })
    .unwrap()
    .run();
    let restarts = log.lock().unwrap().restarts.clone();
    assert!((10..=19).contains(&restarts.len()), "{restarts:?}");
    assert!(restarts
        .windows(2)
        .all(|w| w[1] - w[0] > SimTime::from_ms(500)));
}
