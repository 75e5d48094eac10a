//! One shared test harness that drives any controller the same way, without a network
//! (model: quiche's `test_sender`). Time advances by one RTT per round; ACKs are spread evenly.

use super::{AckSample, Controller, LossEvent, LossKind, RoundSample};
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
    /// window in flight.
    pub fn ack(&self, acked_pkts: u64) -> AckSample {
        let in_flight = self.controller.window().min(1e9) as u64;
        AckSample {
            now: self.now,
            acked_pkts,
            acked_bytes: 1000 * acked_pkts,
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
    /// packet (the invariant every window controller keeps, whatever the feedback).
    pub fn run_checked(&mut self, ops: &[Op]) {
        for op in ops {
            match *op {
                Op::Ack {
                    acked_pkts,
                    gap_ns,
                    ece,
                    in_recovery,
                } => {
                    self.now += SimTime(gap_ns);
                    let mut ack = self.ack(acked_pkts);
                    ack.in_recovery = in_recovery;
                    if ece {
                        (ack.ece, ack.ce_pkts, ack.ce_bytes) = (true, acked_pkts, ack.acked_bytes);
                    }
                    self.controller.on_ack(&ack);
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
        }
    }
}

/// One random feedback event for property tests.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    Ack {
        acked_pkts: u64,
        gap_ns: u64,
        ece: bool,
        in_recovery: bool,
    },
    Loss {
        kind: LossKind,
        sent_ago_ns: u64,
    },
    Round {
        congested: bool,
    },
}

/// Any sequence of ACKs (including huge and zero ones, with and without ECN-Echo, in and out
/// of recovery), gap/ECN/timeout losses (sent any time ago) and rounds.
pub fn ops() -> impl proptest::strategy::Strategy<Value = Vec<Op>> {
    use proptest::prelude::*;
    let kind = prop_oneof![
        Just(LossKind::Gap),
        Just(LossKind::Ecn),
        Just(LossKind::Timeout)
    ];
    let op = prop_oneof![
        4 => (0..10_000u64, 0..200_000_000u64, any::<bool>(), any::<bool>()).prop_map(
            |(acked_pkts, gap_ns, ece, in_recovery)| Op::Ack {
                acked_pkts,
                gap_ns,
                ece,
                in_recovery,
            }
        ),
        2 => (kind, 0..400_000_000u64)
            .prop_map(|(kind, sent_ago_ns)| Op::Loss { kind, sent_ago_ns }),
        2 => any::<bool>().prop_map(|congested| Op::Round { congested }),
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
