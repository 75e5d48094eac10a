//! PIE, RFC 8033: a drop probability `p` that a proportional-integral controller updates every
//! `t_update` from the queueing delay, and random drops (or ECN marks) of arriving packets with
//! probability `p`.
//!
//! The queueing delay is the timestamp estimate (RFC 8033 §4.3's second option, Appendix A's
//! "timestamp option"): the sojourn time of the last packet to leave, and 0 once the queue is
//! empty (as Little's law, §4.3's first option, gives for an empty queue; Linux
//! `pie_process_dequeue()` likewise). What is modelled: §4.1's random drop with its
//! work-conserving safeguard, §4.2's update with the auto-tuned α and β, the exponential decay
//! and the bounds of `p`, §4.4's burst allowance, §5.1's ECN marking while `p` ≤ 10%, §5.4's
//! de-randomization (an option) and §5.5's cap on an increase of `p`; and a tail-drop limit.
//! What is not: the departure-rate estimator (§5.2), turning PIE on and off with the queue
//! (§5.3), byte mode, and Linux's extra increase above 250 ms of delay.
//!
//! The update runs at every multiple of `t_update` from the start of the run. A queue's updates
//! due by the time it is next looked at (a packet arriving or leaving) run first, in order, each
//! with the queue as it stood at its time: a link takes no event for them, and a link that
//! stays idle with `p` = 0 skips them altogether, as they would change nothing.

use rand::Rng as _;

use super::queue::{Admit, Backlog, Length};
use super::store::{Fifo, Store};
use crate::rng::Rng;
use crate::time::SimTime;

/// PIE's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieParams {
    /// QDELAY_REF, the target queueing delay (RFC 8033 §4.2; default 15 ms).
    pub target: SimTime,
    /// T_UPDATE, the period of the update of `p` (§4.2; default 15 ms).
    pub t_update: SimTime,
    /// α and β, in 1/s (§4.2; defaults 0.125 and 1.25).
    pub alpha: f64,
    pub beta: f64,
    /// MAX_BURST, the burst allowance (§4.4; default 150 ms).
    pub max_burst: SimTime,
    /// MEAN_PKTSIZE (bytes): a queue of at most two of them drops nothing (§4.1).
    pub mean_packet_bytes: u32,
    /// Mark ECN-capable packets instead of dropping them while `p` ≤ [`MARK_ECN_TH`] (§5.1).
    pub ecn: bool,
    /// De-randomize the drops (§5.4).
    pub derandomize: bool,
}

/// mark_ecnth: above this `p` ECN-capable packets are dropped too (RFC 8033 §5.1, "SHOULD be
/// set to 0.1").
pub const MARK_ECN_TH: f64 = 0.1;

/// A PIE queue: one FIFO of waiting packets and the controller's state.
#[derive(Clone, Debug)]
pub struct Pie {
    params: PieParams,
    limit: Length,
    /// `drop_prob_`, in [0, 1].
    drop_prob: f64,
    /// `accu_prob_`, the de-randomization's sum of `p` since the last drop (§5.4).
    accu_prob: f64,
    /// `current_qdelay` and `qdelay_old_`: the delay now and at the last update.
    qdelay: SimTime,
    qdelay_old: SimTime,
    /// `burst_allowance_`: while above zero, nothing is dropped at random (§4.4).
    burst_allowance: SimTime,
    /// When the next update is due.
    next_update: SimTime,
    /// The link's stream for the drop coin.
    rng: Rng,
    /// The waiting packets, head first; each slot's time is when it entered.
    waiting: Fifo,
    drops: u64,
    marks: u64,
}

impl Pie {
    pub fn new(params: PieParams, limit: Length, rng: Rng) -> Pie {
        Pie {
            params,
            limit,
            drop_prob: 0.0,
            accu_prob: 0.0,
            qdelay: SimTime::ZERO,
            qdelay_old: SimTime::ZERO,
            // §4.4: initialized to MAX_BURST.
            burst_allowance: params.max_burst,
            next_update: params.t_update,
            rng,
            waiting: Fifo::default(),
            drops: 0,
            marks: 0,
        }
    }

    /// The drop probability now.
    pub fn probability(&self) -> f64 {
        self.drop_prob
    }

    /// Random drops and marks so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.drops, self.marks)
    }

    /// The waiting packets' slots, head first.
    pub fn slots<'a>(&self, store: &'a Store) -> impl Iterator<Item = u32> + 'a {
        self.waiting.iter(store)
    }

    /// Runs the updates due at or before `now`: a comparison where none is due, as for most
    /// packets.
    #[inline]
    fn catch_up(&mut self, now: SimTime) {
        if self.next_update <= now {
            self.run_updates(now);
        }
    }

    /// The updates due at or before `now`, one at least.
    #[inline(never)]
    fn run_updates(&mut self, now: SimTime) {
        let t = self.params.t_update;
        while self.next_update <= now {
            let rest = self.drop_prob == 0.0 && self.qdelay.ns() == 0 && self.qdelay_old.ns() == 0;
            if rest && self.params.target.ns() >= 2 {
                // At rest: an update would leave p at 0 and refill the burst allowance (both
                // delays, 0, below half the target).
                self.burst_allowance = self.params.max_burst;
                let missed = (now - self.next_update).ns() / t.ns() + 1;
                self.next_update = SimTime(self.next_update.ns() + missed * t.ns());
                return;
            }
            self.update();
            self.next_update += t;
        }
    }

    /// RFC 8033 §4.2 `calculate_drop_prob()`, with §4.4's burst allowance and §5.5's cap.
    fn update(&mut self) {
        let p = &self.params;
        let (cur, old, target) = (self.qdelay.secs(), self.qdelay_old.secs(), p.target.secs());
        let mut delta = p.alpha * (cur - target) + p.beta * (cur - old);
        // §4.2: α and β scaled down while p is small, so that p moves in steps of its size.
        delta /= match self.drop_prob {
            x if x < 0.000001 => 2048.0,
            x if x < 0.00001 => 512.0,
            x if x < 0.0001 => 128.0,
            x if x < 0.001 => 32.0,
            x if x < 0.01 => 8.0,
            x if x < 0.1 => 2.0,
            _ => 1.0,
        };
        // §5.5: above 10%, p rises by at most 2% an update.
        if self.drop_prob >= 0.1 && delta > 0.02 {
            delta = 0.02;
        }
        self.drop_prob += delta;
        // §4.2: decay while the queue stays empty.
        if self.qdelay.ns() == 0 && self.qdelay_old.ns() == 0 {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        // §4.4: the allowance runs down by T_UPDATE an update and is refilled once congestion
        // is gone (p = 0, both delays below half the target).
        self.burst_allowance = self.burst_allowance - p.t_update;
        let half = SimTime(p.target.ns() / 2);
        if self.drop_prob == 0.0 && self.qdelay < half && self.qdelay_old < half {
            self.burst_allowance = p.max_burst;
        }
        self.qdelay_old = self.qdelay;
    }

    /// RFC 8033 §4.1 `drop_early()` (with §5.4's de-randomization when asked): whether the
    /// packet arriving at a queue of `bytes` is dropped at random.
    fn drop_early(&mut self, bytes: u64) -> bool {
        let p = &self.params;
        // Safeguard: PIE stays work-conserving.
        if (self.qdelay_old < SimTime(p.target.ns() / 2) && self.drop_prob < 0.2)
            || bytes <= 2 * p.mean_packet_bytes as u64
        {
            return false;
        }
        if p.derandomize {
            if self.drop_prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.drop_prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                return true;
            }
        }
        self.rng.gen::<f64>() < self.drop_prob
    }

    /// A packet in `slot` arrives at `now` (RFC 8033 Appendix A `enque()`, with Appendix B's
    /// tail drop and §5.1's ECN): what became of it. A queued packet is timestamped and joins
    /// the `backlog`.
    pub fn enqueue(
        &mut self,
        store: &mut Store,
        slot: u32,
        now: SimTime,
        backlog: &mut Backlog,
    ) -> Admit {
        self.catch_up(now);
        let size = store.size_bytes(slot);
        let verdict = if backlog.full(self.limit, size) {
            Admit::DroppedForced
        } else if self.burst_allowance.ns() == 0 && self.drop_early(backlog.bytes) {
            if self.params.ecn && store.ecn_capable(slot) && self.drop_prob <= MARK_ECN_TH {
                self.marks += 1;
                Admit::Marked
            } else {
                self.drops += 1;
                Admit::DroppedEarly
            }
        } else {
            Admit::Queued
        };
        match verdict {
            Admit::Queued | Admit::Marked => {
                store.set_done(slot, now);
                self.waiting.push_back(store, slot);
                backlog.add(size);
            }
            // §5.4: every drop starts the de-randomization's sum again.
            Admit::DroppedForced | Admit::DroppedEarly => self.accu_prob = 0.0,
        }
        verdict
    }

    /// The head leaves at `now`: its sojourn time is the queueing delay from now on, or 0 if
    /// it leaves the queue empty.
    pub fn dequeue(&mut self, store: &Store, now: SimTime, backlog: &mut Backlog) -> Option<u32> {
        self.catch_up(now);
        let slot = self.waiting.pop_front(store)?;
        backlog.remove(store.size_bytes(slot));
        self.qdelay = if backlog.len == 0 {
            SimTime::ZERO
        } else {
            now - store.done(slot)
        };
        Some(slot)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use proptest::prelude::*;

    use super::*;
    use crate::net::queue::QueueSpec;
    use crate::net::test_link::{assert_same, drive, Arrival, Fate, Held, Tested};
    use crate::rng::{stream, Stream};

    const MS: u64 = 1_000_000;

    fn params(ecn: bool, derandomize: bool) -> PieParams {
        PieParams {
            target: SimTime::from_ms(15),
            t_update: SimTime::from_ms(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: SimTime::from_ms(150),
            mean_packet_bytes: 1000,
            ecn,
            derandomize,
        }
    }

    fn pie() -> Pie {
        Pie::new(
            params(false, false),
            Length::Packets(1000),
            stream(1, Stream::Queue, 0),
        )
    }

    /// One update from p with the delay now `cur` and at the last update `old` (ms).
    fn step(p: f64, cur: f64, old: f64) -> f64 {
        let mut q = pie();
        q.drop_prob = p;
        q.qdelay = SimTime((cur * 1e6) as u64);
        q.qdelay_old = SimTime((old * 1e6) as u64);
        q.update();
        q.drop_prob
    }

    #[test]
    fn the_update_scales_alpha_and_beta_with_p_caps_its_rise_and_decays() {
        // RFC 8033 §4.2: δ = 0.125 (cur − 0.015) + 1.25 (cur − old), in seconds. From p = 0
        // at 25 ms after 0: δ = 0.00125 + 0.03125 = 0.0325, scaled by 1/2048.
        let close = |a: f64, b: f64| (a - b).abs() < 1e-15;
        assert!(close(step(0.0, 25.0, 0.0), 0.0325 / 2048.0));
        // 25 ms steady: δ = 0.00125, by 1/8 at p = 0.005, by 1/2 at p = 0.05, whole at 0.5.
        assert!(close(step(0.005, 25.0, 25.0), 0.005 + 0.00125 / 8.0));
        assert!(close(step(0.05, 25.0, 25.0), 0.05 + 0.00125 / 2.0));
        assert!(close(step(0.5, 25.0, 25.0), 0.5 + 0.00125));
        // §5.5: above 10%, at most 2% a step (δ = 0.0325 here).
        assert!(close(step(0.5, 25.0, 0.0), 0.52));
        // Below target p falls, and never below 0; an empty queue twice decays it by 2%.
        assert!(close(step(0.5, 5.0, 5.0), 0.5 - 0.00125));
        assert_eq!(step(1e-7, 5.0, 5.0), 0.0);
        assert!(close(step(0.5, 0.0, 0.0), (0.5 - 0.001875) * 0.98));
        // ... and never above 1.
        assert_eq!(step(0.995, 200.0, 200.0), 1.0);
    }

    #[test]
    fn the_burst_allowance_runs_down_and_refills_when_congestion_is_gone() {
        let mut q = pie();
        q.qdelay = SimTime::from_ms(30);
        for k in 1..=10 {
            q.update();
            assert_eq!(q.burst_allowance, SimTime::from_ms(150 - 15 * k));
        }
        q.update();
        assert_eq!(q.burst_allowance, SimTime::ZERO);
        // p = 0 and both delays below 7.5 ms: the allowance is full again.
        q.drop_prob = 0.0;
        q.qdelay = SimTime::from_ms(7);
        q.qdelay_old = SimTime::from_ms(7);
        q.update();
        assert_eq!(q.burst_allowance, SimTime::from_ms(150));
    }

    /// RFC 8033 Appendix A as written, with Appendix B's tail drop and the options of §5.1 (ECN),
    /// §5.4 (de-randomization) and §5.5 (the cap), over a deque of (id, tstamp, size, ECN); every
    /// update runs, none skipped: the reference the queue is held to.
    struct Rfc8033 {
        q: VecDeque<(usize, u64, u32, bool)>,
        bytes: u64,
        limit: usize,
        p: PieParams,
        drop_prob_: f64,
        accu_prob_: f64,
        /// Times in ns.
        qdelay_old_: u64,
        current_qdelay: u64,
        burst_allowance_: u64,
        next_update: u64,
        rng: crate::rng::Rng,
    }

    impl Rfc8033 {
        fn new(p: PieParams, limit: usize, seed: u64) -> Rfc8033 {
            Rfc8033 {
                q: VecDeque::new(),
                bytes: 0,
                limit,
                p,
                drop_prob_: 0.0,
                accu_prob_: 0.0,
                qdelay_old_: 0,
                current_qdelay: 0,
                burst_allowance_: p.max_burst.ns(),
                next_update: p.t_update.ns(),
                rng: stream(seed, Stream::Queue, 0),
            }
        }

        fn calculate_drop_prob(&mut self) {
            let (qdelay_ref, t_update) = (self.p.target.ns(), self.p.t_update.ns());
            let secs = |ns: u64| ns as f64 * 1e-9;
            let mut p = self.p.alpha * (secs(self.current_qdelay) - secs(qdelay_ref))
                + self.p.beta * (secs(self.current_qdelay) - secs(self.qdelay_old_));
            if self.drop_prob_ < 0.000001 {
                p /= 2048.0;
            } else if self.drop_prob_ < 0.00001 {
                p /= 512.0;
            } else if self.drop_prob_ < 0.0001 {
                p /= 128.0;
            } else if self.drop_prob_ < 0.001 {
                p /= 32.0;
            } else if self.drop_prob_ < 0.01 {
                p /= 8.0;
            } else if self.drop_prob_ < 0.1 {
                p /= 2.0;
            }
            if self.drop_prob_ >= 0.1 && p > 0.02 {
                p = 0.02;
            }
            self.drop_prob_ += p;
            if self.current_qdelay == 0 && self.qdelay_old_ == 0 {
                self.drop_prob_ *= 0.98;
            }
            self.drop_prob_ = self.drop_prob_.clamp(0.0, 1.0);
            self.burst_allowance_ = self.burst_allowance_.saturating_sub(t_update);
            if self.drop_prob_ == 0.0
                && self.current_qdelay < qdelay_ref / 2
                && self.qdelay_old_ < qdelay_ref / 2
            {
                self.burst_allowance_ = self.p.max_burst.ns();
            }
            self.qdelay_old_ = self.current_qdelay;
        }

        fn timers(&mut self, now: u64) {
            while self.next_update <= now {
                self.calculate_drop_prob();
                self.next_update += self.p.t_update.ns();
            }
        }

        fn drop_early(&mut self) -> bool {
            if (self.qdelay_old_ < self.p.target.ns() / 2 && self.drop_prob_ < 0.2)
                || self.bytes <= 2 * self.p.mean_packet_bytes as u64
            {
                return false;
            }
            if self.p.derandomize {
                if self.drop_prob_ == 0.0 {
                    self.accu_prob_ = 0.0;
                }
                self.accu_prob_ += self.drop_prob_;
                if self.accu_prob_ < 0.85 {
                    return false;
                }
                if self.accu_prob_ >= 8.5 {
                    return true;
                }
            }
            self.rng.gen::<f64>() < self.drop_prob_
        }
    }

    impl Tested for Rfc8033 {
        fn arrive(&mut self, id: usize, a: Arrival) -> Vec<Fate> {
            self.timers(a.at.ns());
            if self.q.len() >= self.limit {
                self.accu_prob_ = 0.0;
                return vec![Fate::Forced { at: a.at, id }];
            }
            let mut out = Vec::new();
            if self.burst_allowance_ == 0 && self.drop_early() {
                if self.p.ecn && a.ecn && self.drop_prob_ <= 0.1 {
                    out.push(Fate::Marked { at: a.at, id });
                } else {
                    self.accu_prob_ = 0.0;
                    return vec![Fate::Early { at: a.at, id }];
                }
            }
            self.q.push_back((id, a.at.ns(), a.size, a.ecn));
            self.bytes += a.size as u64;
            out
        }
        fn serve(&mut self, at: SimTime) -> (Vec<Fate>, Option<usize>) {
            self.timers(at.ns());
            let Some(p) = self.q.pop_front() else {
                return (Vec::new(), None);
            };
            self.bytes -= p.2 as u64;
            self.current_qdelay = if self.q.is_empty() { 0 } else { at.ns() - p.1 };
            (Vec::new(), Some(p.0))
        }
        fn len(&self) -> usize {
            self.q.len()
        }
    }

    fn spec(p: PieParams, limit: u64) -> QueueSpec {
        QueueSpec::Pie {
            params: p,
            limit: Length::Packets(limit),
        }
    }

    /// 1000-byte packets every 0.5 ms for `ms` into a 10 Mb/s link (0.8 ms each), then every
    /// 1 ms for as long again (the queue drains).
    fn overload_then_drain(ms: u64, ecn: bool) -> Vec<Arrival> {
        let first = (0..2 * ms).map(|k| k * MS / 2);
        let then = (0..ms).map(|k| ms * MS + k * MS);
        first
            .chain(then)
            .map(|t| Arrival {
                at: SimTime(t),
                size: 1000,
                flow: 0,
                ecn,
            })
            .collect()
    }

    #[test]
    fn drops_start_once_the_burst_allowance_is_spent() {
        let p = params(false, false);
        let arrivals = overload_then_drain(1500, false);
        let (log, _) = drive(
            &mut Held::new(&spec(p, 1000), 10_000_000, 3),
            &arrivals,
            10_000_000,
        );
        let drops: Vec<u64> = log
            .iter()
            .filter_map(|f| match f {
                Fate::Early { at, .. } => Some(at.ns()),
                _ => None,
            })
            .collect();
        // The delay passes 7.5 ms (half the target) at 0.3k ms > 7.5 ms, k = 26 (20.8 ms):
        // from the update at 30 ms on the allowance runs down, 150 ms in ten updates, so no
        // random drop comes before 165 ms.
        assert!(
            !drops.is_empty() && drops[0] >= 165 * MS,
            "{:?}",
            &drops[..3]
        );
        assert_same(
            &log,
            &drive(&mut Rfc8033::new(p, 1000, 3), &arrivals, 10_000_000).0,
        );
    }

    #[test]
    fn ecn_capable_packets_are_marked_while_p_is_at_most_ten_percent() {
        let p = params(true, false);
        let arrivals = overload_then_drain(3000, true);
        let mut held = Held::new(&spec(p, 1000), 10_000_000, 4);
        let (log, _) = drive(&mut held, &arrivals, 10_000_000);
        let marks = log
            .iter()
            .filter(|f| matches!(f, Fate::Marked { .. }))
            .count();
        let drops = log
            .iter()
            .filter(|f| matches!(f, Fate::Early { .. }))
            .count();
        // A sender that does not slow down for marks drives p past 10%, where PIE drops.
        assert!(marks > 0 && drops > 0, "{marks} marks, {drops} drops");
        assert_same(
            &log,
            &drive(&mut Rfc8033::new(p, 1000, 4), &arrivals, 10_000_000).0,
        );
    }

    #[test]
    fn an_idle_queue_skips_its_updates_and_keeps_its_state() {
        // After the drain p decays to 0; an hour of silence then costs no update, and the
        // state after it is the one every update would have left.
        let p = params(false, true);
        let mut arrivals = overload_then_drain(1000, false);
        arrivals.push(Arrival {
            at: SimTime(3600 * 1_000 * MS),
            size: 1000,
            flow: 0,
            ecn: false,
        });
        let (log, _) = drive(
            &mut Held::new(&spec(p, 1000), 10_000_000, 5),
            &arrivals,
            10_000_000,
        );
        assert_same(
            &log,
            &drive(&mut Rfc8033::new(p, 1000, 5), &arrivals, 10_000_000).0,
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn follows_rfc_8033_on_random_arrivals(
            gaps in proptest::collection::vec((0u64..2 * MS, 40u32..1500, any::<bool>(), 0u8..20), 1..1500),
            rate in 1_000_000u64..20_000_000,
            t_update in 1u64..40,
            limit in 1u64..400,
            ecn in any::<bool>(),
            derandomize in any::<bool>(),
            seed in any::<u64>(),
        ) {
            let mut t = 0;
            let arrivals: Vec<Arrival> = gaps
                .into_iter()
                .map(|(gap, size, capable, idle)| {
                    t += if idle == 0 { gap * 200 } else { gap };
                    Arrival { at: SimTime(t), size, flow: 0, ecn: capable }
                })
                .collect();
            let p = PieParams {
                t_update: SimTime::from_ms(t_update),
                ..params(ecn, derandomize)
            };
            let (log, most) = drive(&mut Held::new(&spec(p, limit), rate, seed), &arrivals, rate);
            prop_assert_eq!(&log, &drive(&mut Rfc8033::new(p, limit as usize, seed), &arrivals, rate).0);
            prop_assert!(most as u64 <= limit);
        }
    }
}
