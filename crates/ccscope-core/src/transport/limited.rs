//! Whether a feedback report covers an interval in which the sender was data-limited (RFC 5348
//! §4.3: "the entire interval covered by the feedback packet was a data-limited interval").
//!
//! The sender is *not* data-limited while its allowed rate holds data back. The rate transport
//! says at each send slot whether data is left waiting for the next one; consecutive slots that
//! leave data waiting make one run of rate-limited time, from the first of them to the last. A
//! report echoing the data packet sent at t_new covers (t_new − R, t_new] (R: the sender's RTT
//! estimate): that interval was data-limited if no run overlaps it.
//!
//! RFC 5348 §8.2.1 suggests keeping only two such times (`not_limited1`, `not_limited2`, read
//! here through its pseudocode as transcribed by an independent TFRC implementation; the RFC's
//! own text could not be read here). Ours keeps the runs instead: with reports about one RTT
//! apart and the RTT varying around that spacing, the two times both fall after a report's
//! echo now and then, and the two-time method takes a report of a sender that was never
//! data-limited for one of a data-limited interval (two greedy flows, TFRC and TEAR, through
//! 2 % Bernoulli loss for 20 s, `tests/rate.rs`'s determinism run: 10 of their reports). Runs
//! older than two RTTs before the latest report's echo are dropped.

use std::collections::VecDeque;

use crate::time::SimTime;

/// The rate-limited runs of a sender.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DataLimits {
    /// (first, last) send slot of each run that left data waiting, oldest first.
    runs: VecDeque<(SimTime, SimTime)>,
    /// The latest slot left data waiting (a new one extends its run).
    held: bool,
}

impl DataLimits {
    /// A send slot at `now`: `held` if data is left waiting for the next one.
    pub fn slot(&mut self, now: SimTime, held: bool) {
        if held {
            match self.runs.back_mut() {
                Some(run) if self.held => run.1 = now,
                _ => self.runs.push_back((now, now)),
            }
        }
        self.held = held;
    }

    /// A report echoing the data packet sent at `echoed` arrives, with RTT estimate `rtt_s`:
    /// whether the whole interval it covers, (echoed − R, echoed], was data-limited.
    pub fn on_report(&mut self, echoed: SimTime, rtt_s: f64) -> bool {
        let t_old = echoed.secs() - rtt_s;
        while self
            .runs
            .front()
            .is_some_and(|&(_, last)| last.secs() <= t_old - rtt_s)
        {
            self.runs.pop_front();
        }
        !self
            .runs
            .iter()
            .any(|&(first, last)| first <= echoed && last.secs() > t_old)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> SimTime {
        SimTime::from_ms(t)
    }

    /// A sender that never has data held back: every report covers a data-limited interval.
    #[test]
    fn a_sender_never_held_back_is_data_limited() {
        let mut d = DataLimits::default();
        for slot in 0..30 {
            d.slot(ms(10 * slot), false);
        }
        assert!(d.on_report(ms(100), 0.1));
        assert!(d.on_report(ms(200), 0.1));
        assert!(d.runs.is_empty());
    }

    /// A greedy sender (held back at every slot, 10 ms apart) is never data-limited, however
    /// its reports are spaced; its one run stays one.
    #[test]
    fn a_sender_held_back_at_every_slot_is_not_data_limited() {
        let mut d = DataLimits::default();
        let mut echo = 0;
        for slot in 0..1000u64 {
            let now = 10 * slot;
            d.slot(ms(now), true);
            // Reports 70 to 160 ms apart, each echoing the packet sent 50 ms before.
            if now >= echo + 50 + 70 + (slot * 37) % 90 {
                echo = now - 50;
                assert!(!d.on_report(ms(echo), 0.1), "slot {slot}");
            }
        }
        assert_eq!(d.runs.len(), 1);
    }

    /// Worked through: data waits after the slots at 20 and 30 ms (one run, 20–30 ms) and at
    /// 170 ms; every other slot, 10 ms apart, empties the sender. With R = 100 ms a report
    /// echoing 60 ms covers (−40, 60]: the run overlaps it, not data-limited. Echoing 160 ms,
    /// (60, 160]: nothing, data-limited. Echoing 250 ms, (150, 250]: the run at 170 ms. Echoing
    /// 350 ms, (250, 350]: data-limited again; the run of 20–30 ms is dropped (older than
    /// 2R before 350 ms).
    #[test]
    fn worked_intervals() {
        let mut d = DataLimits::default();
        let held = [20, 30, 170];
        let run_to = |d: &mut DataLimits, from: u64, to: u64| {
            for t in (from..to).step_by(10) {
                d.slot(ms(t), held.contains(&t));
            }
        };
        run_to(&mut d, 0, 110);
        assert_eq!(d.runs, [(ms(20), ms(30))]);
        assert!(!d.on_report(ms(60), 0.1));
        run_to(&mut d, 110, 210);
        assert!(d.on_report(ms(160), 0.1));
        run_to(&mut d, 210, 300);
        assert!(!d.on_report(ms(250), 0.1));
        run_to(&mut d, 300, 400);
        assert!(d.on_report(ms(350), 0.1));
        assert_eq!(d.runs, [(ms(170), ms(170))]);
    }

    /// A run that began before the interval and lasted into it counts, as does one inside it;
    /// one that ended at the interval's start or began after its end does not.
    #[test]
    fn overlap_is_half_open() {
        let mut d = DataLimits::default();
        d.slot(ms(0), true);
        d.slot(ms(100), true);
        d.slot(ms(110), false);
        assert!(d.clone().on_report(ms(200), 0.1)); // (100, 200]: the run ended at 100
        assert!(!d.clone().on_report(ms(150), 0.1)); // (50, 150]: the run 0–100 reaches in
        d.slot(ms(300), true);
        assert!(d.clone().on_report(ms(290), 0.1)); // the 300 ms run starts after 290
        assert!(!d.on_report(ms(300), 0.1));
    }
}
