//! Whether a feedback report covers an interval in which the sender was data-limited, after
//! RFC 5348 §8.2.1 (read through its pseudocode as transcribed by independent TFRC
//! implementations; the RFC's own text could not be read here).
//!
//! The sender is *not* data-limited at an instant when it has data that its allowed rate holds
//! back. It keeps two such times, `not_limited1` and `not_limited2`, so that at least one of them
//! falls after the last report's echoed send time `t_new` or after that report's arrival
//! `t_next`. A report echoing the data packet sent at `t_new` covers (t_new − R, t_new]: the
//! whole interval was data-limited unless one of the two times falls in it.
//!
//! Ours: "holds back" is judged at the rate transport's send slots (data left after a slot's
//! packets have gone waits for the next slot), and R is the transport's RTT estimate when the
//! report arrives.

use crate::time::SimTime;

/// RFC 5348 §8.2.1's state at the sender.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DataLimits {
    /// The two latest times the rate held data back (`None`: not yet).
    not_limited: [Option<SimTime>; 2],
    /// Send time of the data packet the latest report echoes.
    t_new: SimTime,
    /// When the latest report arrived.
    t_next: SimTime,
}

impl DataLimits {
    /// At `now` the sender had data its rate held back: kept as `not_limited1` if that is not
    /// already after `t_new`, else as `not_limited2` if that is not already after `t_next`.
    pub fn held_back(&mut self, now: SimTime) {
        let [first, second] = &mut self.not_limited;
        if first.is_none_or(|t| t <= self.t_new) {
            *first = Some(now);
        } else if second.is_none_or(|t| t <= self.t_next) {
            *second = Some(now);
        }
    }

    /// A report echoing the data packet sent at `echoed` arrives at `now`, with RTT estimate
    /// `rtt_s`: whether the whole interval it covers, (echoed − R, echoed], was data-limited.
    pub fn on_report(&mut self, now: SimTime, echoed: SimTime, rtt_s: f64) -> bool {
        self.t_new = echoed;
        self.t_next = now;
        let t_old = echoed.secs() - rtt_s;
        let inside = |t: Option<SimTime>| t.is_some_and(|t| t_old < t.secs() && t <= echoed);
        let limited = !inside(self.not_limited[0]) && !inside(self.not_limited[1]);
        // not_limited1 now lies at or before t_new: the later time takes its place.
        let [first, second] = self.not_limited;
        if first.is_none_or(|t| t <= echoed) && second.is_some_and(|t| t > echoed) {
            self.not_limited = [second, second];
        }
        limited
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
        assert!(d.on_report(ms(150), ms(100), 0.1));
        assert!(d.on_report(ms(250), ms(200), 0.1));
    }

    /// A greedy sender (held back at every slot, 10 ms apart) is never data-limited.
    #[test]
    fn a_sender_held_back_at_every_slot_is_not_data_limited() {
        let mut d = DataLimits::default();
        for slot in 0..100u64 {
            let now = ms(10 * slot);
            d.held_back(now);
            // A report every 100 ms echoing the packet sent 50 ms before, RTT 100 ms.
            if slot % 10 == 9 {
                assert!(
                    !d.on_report(now, now.saturating_sub(ms(50)), 0.1),
                    "slot {slot}"
                );
            }
        }
    }

    /// RFC 5348 §8.2.1 worked through: the rate held data back at 20 ms only. A report echoing
    /// the packet sent at 60 ms with R = 100 ms covers (−40, 60] ms, which holds 20 ms: not
    /// data-limited. The next report echoes 160 ms and covers (60, 160]: nothing was held back
    /// in it, so it is data-limited, even though 20 ms is still kept. A hold at 170 ms, after
    /// that report's echo, falls in the interval of the report echoing 250 ms, (150, 250].
    #[test]
    fn worked_intervals() {
        let mut d = DataLimits::default();
        d.held_back(ms(20));
        assert!(!d.on_report(ms(110), ms(60), 0.1));
        assert!(d.on_report(ms(210), ms(160), 0.1));
        d.held_back(ms(170));
        assert!(!d.on_report(ms(300), ms(250), 0.1));
        assert!(d.on_report(ms(400), ms(350), 0.1));
    }

    /// The second time keeps a hold that comes after t_new but before the next report's
    /// interval would otherwise lose it: holds at 70 ms (after t_new = 60 ms, becomes
    /// not_limited1) and at 120 ms (not_limited1 is already after t_new: becomes
    /// not_limited2, as it is after t_next = 110 ms). The report echoing 160 ms (R 100 ms:
    /// (60, 160]) sees them; the one echoing 260 ms ((160, 260]) does not.
    #[test]
    fn two_times_cover_successive_reports() {
        let mut d = DataLimits::default();
        assert!(d.on_report(ms(110), ms(60), 0.1));
        d.held_back(ms(70));
        d.held_back(ms(120));
        assert_eq!(d.not_limited, [Some(ms(70)), Some(ms(120))]);
        assert!(!d.on_report(ms(210), ms(160), 0.1));
        assert!(d.on_report(ms(310), ms(260), 0.1));
    }

    /// After a report whose echo lies between the two times, the later one moves up, so a new
    /// hold can be kept as not_limited2 again.
    #[test]
    fn the_later_time_moves_up() {
        let mut d = DataLimits::default();
        d.held_back(ms(10));
        assert!(!d.on_report(ms(40), ms(15), 0.1));
        d.held_back(ms(50)); // after t_new 15 ms? not_limited1 = 10 ≤ 15: replaced
        assert_eq!(d.not_limited, [Some(ms(50)), None]);
        d.held_back(ms(60)); // not_limited1 50 > t_new 15; not_limited2 unset: kept there
        assert_eq!(d.not_limited, [Some(ms(50)), Some(ms(60))]);
        assert!(!d.on_report(ms(90), ms(55), 0.1)); // 50 in (−45, 55]
        assert_eq!(d.not_limited, [Some(ms(60)), Some(ms(60))]);
    }
}
