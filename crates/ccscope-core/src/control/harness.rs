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
            let ack = AckSample {
                now: self.now,
                acked_pkts: 1.0,
                rtt: Some(self.rtt),
                srtt: Some(self.rtt),
                in_flight_pkts: self.controller.window().min(1e9),
            };
            self.controller.on_ack(&ack);
        }
        self
    }

    /// Delivers one ACK per packet of the current window: one RTT of ACK-clocked growth.
    pub fn ack_round(&mut self) -> &mut Self {
        let w = self.controller.window();
        let n = if w.is_finite() { w.max(1.0).floor() as usize } else { 1 };
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
            };
            self.controller.on_round(&r);
        }
        self
    }
}
