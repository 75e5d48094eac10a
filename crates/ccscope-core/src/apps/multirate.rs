//! A multirate coder (Cai, Shen, Pan & Mark 2005 §IV-B, Fig. 7): a real-time video coder that
//! codes at its sender's rate as it was `tau` ago. When the congestion controller cuts its rate
//! from W to βW, the coder learns of it only τ later, so for τ it keeps producing at W and a
//! queue builds inside the sender; the longest wait in it is about τ(1/β − 1) (Cai eq. (35)).
//!
//! The coder produces one packet at a time: at each production it reads the transport's rate
//! ([`super::TransportView::rate_bps`]), keeps it with its time, and codes at the newest rate
//! at least τ old (at `initial_bps` until there is one, or while the transport reports none),
//! waiting 8 · packet / rate until the next packet.
//!
//! Fig. 7 draws another coder ([`Multirate::learning_cuts_only`]): "when the AIMD sender
//! increases its cwnd, the video source increases its coding rate accordingly", and only the
//! cut reaches it τ late. That coder codes at the highest rate the sender had over the last τ
//! (the rate in force τ ago and every one read since): an increase at once, a cut τ later.
//! (35) further takes the sender to stay at βW while the backlog drains; a sender that keeps
//! increasing drains it sooner, which no coder changes. Each packet is offered tagged with its
//! number and its production time as the deadline, so the receiver sees how long it waited in
//! the sender (delivery `sent_at` minus the tag's time). As with every source here, the send
//! buffer is unbounded and nothing is dropped at the sender.
//!
//! Hooks: [`SendApp::on_start`] asks to be woken at once; [`SendApp::on_wake`] offers a packet
//! and asks to be woken for the next.

use std::collections::VecDeque;

use super::{SendApp, SendCtx, Tag};
use crate::error::{check_positive, Result};
use crate::time::SimTime;

/// Slowest coding rate: one packet per this many seconds (the coder never stalls).
const MAX_GAP_S: f64 = 1.0;

/// The multirate coder.
#[derive(Clone, Debug)]
pub struct Multirate {
    tau: SimTime,
    packet_bytes: u32,
    initial_bps: f64,
    /// The sender's rate (bits/s) as read at each production, oldest first; entries older than
    /// the newest one at least τ old are dropped.
    seen: VecDeque<(SimTime, f64)>,
    /// Packets produced.
    produced: u32,
    /// Increases at once, cuts τ late (Fig. 7), instead of every change τ late.
    cuts_only: bool,
}

impl Multirate {
    pub fn new(tau: SimTime, packet_bytes: u32, initial_bps: f64) -> Result<Self> {
        Ok(Multirate {
            tau,
            packet_bytes: packet_bytes.max(1),
            initial_bps: check_positive("initial_bps", initial_bps)?,
            seen: VecDeque::new(),
            produced: 0,
            cuts_only: false,
        })
    }

    /// The same coder following the sender's increases at once and its cuts τ late.
    pub fn learning_cuts_only(self) -> Self {
        Multirate {
            cuts_only: true,
            ..self
        }
    }

    /// The coding rate at `now`: the sender's newest rate at least τ old, or with
    /// `cuts_only` the highest of that one and those read since.
    fn coding_bps(&mut self, now: SimTime) -> f64 {
        let due = |t: SimTime| t + self.tau <= now;
        while self.seen.len() >= 2 && due(self.seen[1].0) {
            self.seen.pop_front();
        }
        if self.cuts_only {
            return self
                .seen
                .iter()
                .map(|&(_, bps)| bps)
                .reduce(f64::max)
                .unwrap_or(self.initial_bps);
        }
        match self.seen.front() {
            Some(&(t, bps)) if due(t) => bps,
            _ => self.initial_bps,
        }
    }
}

impl SendApp for Multirate {
    fn watches_progress(&self) -> bool {
        false
    }

    fn on_start(&mut self, cx: &mut SendCtx) {
        cx.wake_at(cx.now());
    }

    fn on_wake(&mut self, cx: &mut SendCtx) {
        let now = cx.now();
        let rate = cx.view().rate_bps;
        if rate.is_finite() && rate > 0.0 {
            self.seen.push_back((now, rate));
        }
        let bps = self.coding_bps(now);
        cx.offer(
            self.packet_bytes as u64,
            Tag::new(self.produced, 0).with_deadline(now),
        );
        self.produced = self.produced.wrapping_add(1);
        let gap = (8.0 * self.packet_bytes as f64 / bps).min(MAX_GAP_S);
        cx.wake_at(now + SimTime::from_secs_f64(gap).max(SimTime(1)));
    }

    fn label(&self) -> String {
        format!("multirate τ={}ms", self.tau.ns() as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::harness::SendHarness;
    use crate::apps::TransportView;

    /// The longest wait (s) in a sender whose rate is `rate(t)` behind `coder`, over 3 s: the
    /// backlog of what the coder produced beyond what the sender drained at its rate.
    fn worst_wait(coder: Multirate, rate: impl Fn(SimTime) -> f64) -> f64 {
        let mut h = SendHarness::new(coder);
        let (mut backlog, mut last, mut worst) = (0.0f64, SimTime::ZERO, 0.0f64);
        let mut at = SimTime::ZERO;
        h.at(at, |a, cx| a.on_start(cx));
        while at < SimTime::from_ms(3000) {
            at = h.wake.take().unwrap();
            // The sender drains the backlog at its rate between productions.
            backlog = (backlog - rate(last) / 8.0 * (at - last).secs()).max(0.0);
            last = at;
            let view = TransportView {
                now: at,
                rate_bps: rate(at),
                window_pkts: 0.0,
                packet_bytes: 1000,
            };
            let mut cx = SendCtx {
                view,
                rng: &mut h.rng,
                buffer: &mut h.buffer,
                closed: &mut h.closed,
                wake: &mut h.wake,
            };
            h.app.on_wake(&mut cx);
            backlog += h.drain().iter().map(|c| c.bytes as f64).sum::<f64>();
            worst = worst.max(backlog / (rate(at) / 8.0));
        }
        worst
    }

    const TAU: SimTime = SimTime::from_ms(200);
    /// A packet's time at 0.5 Mb/s, the resolution of the waits.
    const PACKET_S: f64 = 8000.0 / 5e5;

    #[test]
    fn the_coder_follows_the_sender_after_tau_and_the_backlog_waits_tau_times_one_over_beta_minus_one(
    ) {
        // A sender at 1 Mb/s cut to β = 0.5 at t = 1 s; τ = 200 ms. The coder keeps 1 Mb/s until
        // 1.2 s, then codes at 0.5 Mb/s; the sender drains at 0.5 Mb/s. The packet produced at
        // 1.2 s waits for the backlog of (1 − β)·1 Mb/s·τ = 12.5 kB at 0.5 Mb/s: τ(1/β − 1) =
        // 200 ms (Cai eq. (35)), up to a packet's time. Learning only cuts late is the same here.
        let step = |t: SimTime| if t < SimTime::from_ms(1000) { 1e6 } else { 5e5 };
        let expected = TAU.secs() * (1.0 / 0.5 - 1.0);
        for coder in [
            Multirate::new(TAU, 1000, 1e6).unwrap(),
            Multirate::new(TAU, 1000, 1e6).unwrap().learning_cuts_only(),
        ] {
            let worst = worst_wait(coder, step);
            assert!(
                (worst - expected).abs() < 2.0 * PACKET_S,
                "worst wait {worst} vs {expected}"
            );
        }
    }

    #[test]
    fn a_coder_learning_only_cuts_late_keeps_up_with_a_rising_sender() {
        // A sender rising from 0.5 Mb/s at 1 Mb/s per second: a coder τ late on every change
        // produces less than the sender drains and nothing waits; one that follows increases
        // at once (Fig. 7) keeps pace, so nothing waits either. A cut from W = 1 Mb/s to
        // βW = 0.5 Mb/s at 1 s, then rising again at s = 1 Mb/s²: the Fig. 7 coder piles up
        // τ(1 − β)W less the rise during τ, sτ²/2 (100 − 20 kb), which the sender, now at
        // βW + sτ = 0.7 Mb/s, drains in 0.114 s where (35) gives 0.2 s; up to two packets.
        let ramp = |t: SimTime| 5e5 + 1e6 * t.secs();
        assert!(worst_wait(Multirate::new(TAU, 1000, 5e5).unwrap(), ramp) < 2.0 * PACKET_S);
        assert!(
            worst_wait(
                Multirate::new(TAU, 1000, 5e5).unwrap().learning_cuts_only(),
                ramp
            ) < 2.0 * PACKET_S
        );
        let cut = |t: SimTime| {
            if t < SimTime::from_ms(1000) {
                1e6
            } else {
                5e5 + 1e6 * (t.secs() - 1.0)
            }
        };
        let worst = worst_wait(
            Multirate::new(TAU, 1000, 1e6).unwrap().learning_cuts_only(),
            cut,
        );
        let expected = (0.2 * 5e5 - 1e6 * 0.2 * 0.2 / 2.0) / 7e5;
        assert!(
            (worst - expected).abs() < 2.0 * PACKET_S,
            "worst wait {worst} vs {expected}"
        );
    }
}
