//! One shared test harness that drives any controller the same way, without a network
//! (model: quiche's `test_sender`). Time advances by one RTT per round; ACKs are spread evenly.

use super::{AckSample, Controller, DeliverySample, LossEvent, LossKind, LostPacket, RoundSample};
use crate::time::SimTime;

pub struct Driver<C: Controller> {
    pub controller: C,
    pub now: SimTime,
    pub rtt: SimTime,
}

impl<C: Controller> Driver<C> {
    pub fn new(controller: C) -> Self {
        Driver {
            controller,
            now: SimTime::ZERO,
            rtt: SimTime::from_ms(100),
        }
    }

    /// Delivers `n` single-packet ACKs, each with the driver's RTT as sample.
    pub fn acks(&mut self, n: usize) -> &mut Self {
        for _ in 0..n {
            self.now += SimTime(self.rtt.ns() / n.max(1) as u64);
            let ack = self.ack(1);
            self.controller.on_ack(&ack);
        }
        self
    }

    /// An ACK of `acked_pkts` 1000-byte packets now, with the driver's RTT as sample and the
    /// window in flight, counted once for growth (the TCP source's `growth = "per_ack"`).
    pub fn ack(&self, acked_pkts: u64) -> AckSample {
        let in_flight = self.controller.window().min(1e9) as u64;
        AckSample {
            now: self.now,
            acked_pkts,
            acked_bytes: 1000 * acked_pkts,
            delivered_pkts: acked_pkts,
            growth_pkts: acked_pkts.min(1),
            rtt: Some(self.rtt),
            srtt: Some(self.rtt),
            min_rtt: Some(self.rtt),
            in_flight_pkts: in_flight,
            in_flight_bytes: 1000 * in_flight,
            ..AckSample::default()
        }
    }

    /// Delivers one ACK per packet of the current window: one RTT of ACK-clocked growth.
    pub fn ack_round(&mut self) -> &mut Self {
        let w = self.controller.window();
        let n = if w.is_finite() {
            w.max(1.0).floor() as usize
        } else {
            1
        };
        self.acks(n)
    }

    /// A gap-detected loss of a packet sent one RTT ago.
    pub fn loss(&mut self) -> &mut Self {
        let ev = LossEvent {
            now: self.now,
            kind: LossKind::Gap,
            sent_at: self.now - self.rtt,
            lost_pkts: 1.0,
        };
        self.controller.on_loss(&ev);
        self
    }

    /// `n` control intervals, each with the same congestion outcome.
    pub fn rounds(&mut self, n: usize, congested: bool) -> &mut Self {
        for _ in 0..n {
            self.now += self.rtt;
            let r = RoundSample {
                now: self.now,
                interval: self.rtt,
                congested,
                loss_fraction: if congested { 0.01 } else { 0.0 },
                capacity_bps: None,
                base_rtt: self.rtt,
                queueing_delay: SimTime::ZERO,
            };
            self.controller.on_round(&r);
        }
        self
    }
}

impl<C: Controller> Driver<C> {
    /// A driver whose clock already reads 10 s, so that a packet "sent one RTT ago" was sent
    /// after time zero and once-per-RTT logic sees distinct send times.
    pub fn started(controller: C) -> Self {
        let mut d = Driver::new(controller);
        d.now = SimTime::from_ms(10_000);
        d
    }

    /// A retransmission timeout of a packet sent one RTT ago.
    pub fn timeout(&mut self) -> &mut Self {
        self.signal(LossKind::Timeout)
    }

    /// An ECN mark on a packet sent one RTT ago.
    pub fn ecn(&mut self) -> &mut Self {
        self.signal(LossKind::Ecn)
    }

    fn signal(&mut self, kind: LossKind) -> &mut Self {
        let ev = LossEvent {
            now: self.now,
            kind,
            sent_at: self.now - self.rtt,
            lost_pkts: 1.0,
        };
        self.controller.on_loss(&ev);
        self
    }

    /// Window after each of `n` uncongested rounds (round model).
    pub fn round_trace(&mut self, n: usize) -> Vec<f64> {
        (0..n)
            .map(|_| self.rounds(1, false).controller.window())
            .collect()
    }

    /// Window after each of `n` rounds of ACK-clocked growth (packet engine).
    pub fn ack_trace(&mut self, n: usize) -> Vec<f64> {
        (0..n)
            .map(|_| self.ack_round().controller.window())
            .collect()
    }

    /// Applies `ops` in order and checks after each that the window is finite and at least one
    /// packet, and the pacing rate, if any, finite and positive (the invariants every window
    /// controller keeps, whatever the feedback).
    pub fn run_checked(&mut self, ops: &[Op]) {
        let mut delivered = 0;
        for op in ops {
            match *op {
                Op::Ack {
                    acked_pkts,
                    gap_ns,
                    ece,
                    in_recovery,
                    per_packet,
                    sample,
                } => {
                    self.now += SimTime(gap_ns);
                    let mut ack = self.ack(acked_pkts);
                    ack.in_recovery = in_recovery;
                    if per_packet {
                        ack.growth_pkts = acked_pkts;
                    }
                    if ece {
                        (ack.ece, ack.ce_pkts, ack.ce_bytes) = (true, acked_pkts, ack.acked_bytes);
                    }
                    delivered += acked_pkts;
                    ack.delivery = sample.filter(|_| acked_pkts > 0).map(|s| DeliverySample {
                        rate_bps: (8000 * acked_pkts) as f64 / s.interval.secs(),
                        delivered_pkts: acked_pkts,
                        delivered_bytes: 1000 * acked_pkts,
                        interval: s.interval,
                        app_limited: s.app_limited,
                        total_delivered_pkts: delivered,
                        tx_in_flight_pkts: s.tx_in_flight_pkts,
                        lost_pkts: s.lost_pkts,
                    });
                    self.controller.on_ack(&ack);
                }
                Op::LostPacket {
                    tx_in_flight_pkts,
                    lost_pkts,
                } => self.controller.on_lost_packet(&LostPacket {
                    now: self.now,
                    sent_at: self.now - self.rtt.min(self.now),
                    tx_in_flight_pkts,
                    lost_pkts,
                    app_limited: false,
                }),
                Op::Undo => self.controller.on_undo(self.now),
                Op::Restart => self.controller.on_restart_from_idle(self.now),
                Op::Wakeup => {
                    if let Some(at) = self.controller.wakeup() {
                        self.now = self.now.max(at);
                        self.controller.on_wakeup(self.now);
                    }
                }
                Op::Loss { kind, sent_ago_ns } => {
                    let ev = LossEvent {
                        now: self.now,
                        kind,
                        sent_at: SimTime(self.now.ns().saturating_sub(sent_ago_ns)),
                        lost_pkts: 1.0,
                    };
                    self.controller.on_loss(&ev);
                }
                Op::Round { congested } => {
                    self.rounds(1, congested);
                }
            }
            let w = self.controller.window();
            assert!(w.is_finite() && w >= 1.0, "window {w} after {op:?}");
            if let Some(r) = self.controller.pacing_rate_bps() {
                assert!(r.is_finite() && r > 0.0, "pacing rate {r} after {op:?}");
            }
        }
    }
}

/// What a random ACK's delivery-rate sample says, besides the packets it acknowledges.
#[derive(Clone, Copy, Debug)]
pub struct SampleOp {
    /// The sample's interval (> 0).
    pub interval: SimTime,
    pub app_limited: bool,
    pub tx_in_flight_pkts: u64,
    pub lost_pkts: u64,
}

/// One random feedback event for property tests.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    Ack {
        acked_pkts: u64,
        gap_ns: u64,
        ece: bool,
        in_recovery: bool,
        /// Counted for growth per packet acknowledged (the TCP source's `growth =
        /// "per_packet"`), else once.
        per_packet: bool,
        /// A delivery-rate sample (for the controllers that take them; others ignore it).
        sample: Option<SampleOp>,
    },
    Loss {
        kind: LossKind,
        sent_ago_ns: u64,
    },
    /// A packet marked lost ([`Controller::on_lost_packet`]).
    LostPacket {
        tx_in_flight_pkts: u64,
        lost_pkts: u64,
    },
    Round {
        congested: bool,
    },
    Undo,
    Restart,
    /// The wake-up the controller asked for, if any, at its time.
    Wakeup,
}

/// Any sequence of ACKs (including huge and zero ones, with and without ECN-Echo, in and out
/// of recovery, counted for growth once or per packet, with and without delivery-rate samples), gap/ECN/timeout losses (sent any time
/// ago), packets marked lost, undos, restarts from idle, wake-ups and rounds.
pub fn ops() -> impl proptest::strategy::Strategy<Value = Vec<Op>> {
    use proptest::prelude::*;
    let kind = prop_oneof![
        Just(LossKind::Gap),
        Just(LossKind::Ecn),
        Just(LossKind::Timeout)
    ];
    let sample = proptest::option::of(
        (
            1..2_000_000_000u64,
            any::<bool>(),
            0..20_000u64,
            0..5_000u64,
        )
            .prop_map(|(interval_ns, app_limited, tx_in_flight_pkts, lost_pkts)| {
                SampleOp {
                    interval: SimTime(interval_ns),
                    app_limited,
                    tx_in_flight_pkts,
                    lost_pkts,
                }
            }),
    );
    let ack = (
        0..10_000u64,
        0..200_000_000u64,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        sample,
    );
    let op = prop_oneof![
        4 => ack.prop_map(|(acked_pkts, gap_ns, ece, in_recovery, per_packet, sample)| Op::Ack {
            acked_pkts,
            gap_ns,
            ece,
            in_recovery,
            per_packet,
            sample,
        }),
        2 => (kind, 0..400_000_000u64)
            .prop_map(|(kind, sent_ago_ns)| Op::Loss { kind, sent_ago_ns }),
        1 => (0..20_000u64, 0..5_000u64).prop_map(|(tx_in_flight_pkts, lost_pkts)| {
            Op::LostPacket {
                tx_in_flight_pkts,
                lost_pkts,
            }
        }),
        2 => any::<bool>().prop_map(|congested| Op::Round { congested }),
        1 => prop_oneof![Just(Op::Undo), Just(Op::Restart), Just(Op::Wakeup)],
    ];
    proptest::collection::vec(op, 0..400)
}

/// Asserts `|actual − expected| ≤ rel_tol·|expected|`.
#[track_caller]
pub fn assert_close(actual: f64, expected: f64, rel_tol: f64) {
    assert!(
        (actual - expected).abs() <= rel_tol * expected.abs(),
        "{actual} is not within {rel_tol} (relative) of {expected}"
    );
}
