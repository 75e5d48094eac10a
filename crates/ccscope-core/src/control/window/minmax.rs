//! A windowed maximum or minimum of a stream of samples, as Kathleen Nichols' algorithm keeps
//! it (the filter draft-cardwell-iccrg-bbr-congestion-control-00 §4.1.1.2 and
//! draft-ietf-ccwg-bbr-06 §5.5.3 name for BBR's bandwidth estimate; Linux `lib/win_minmax.c`):
//! three samples, the best of the window and the best of its later quarter and half, so that
//! when the best one ages out of the window a good replacement is at hand. Time is any
//! monotonic count (round trips, probing cycles, nanoseconds).
//!
//! The estimate is the best sample of the last `window` units of time, except after the best
//! one expires: then it is the best of what the later sub-windows kept, which may be below the
//! true windowed best (Nichols' approximation; it keeps O(1) state per filter, and Linux's
//! filter makes the same choices).

/// One sample: its time and value.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample {
    t: u64,
    v: f64,
}

/// A windowed max (or min) filter.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct WindowedFilter {
    /// The best, second-best and third-best samples, in time order of their sub-windows.
    s: [Sample; 3],
    /// Keep the largest samples (a max filter) or the smallest.
    max: bool,
}

impl WindowedFilter {
    /// A max filter holding `v` at time `t`.
    pub(crate) fn max(t: u64, v: f64) -> Self {
        WindowedFilter {
            s: [Sample { t, v }; 3],
            max: true,
        }
    }

    /// A min filter holding `v` at time `t`.
    pub(crate) fn min(t: u64, v: f64) -> Self {
        WindowedFilter {
            s: [Sample { t, v }; 3],
            max: false,
        }
    }

    /// The windowed best.
    pub(crate) fn get(&self) -> f64 {
        self.s[0].v
    }

    /// Restarts the filter at sample `v`, time `t`.
    pub(crate) fn reset(&mut self, t: u64, v: f64) {
        self.s = [Sample { t, v }; 3];
    }

    /// Whether `a` is at least as good as `b`.
    fn better(&self, a: f64, b: f64) -> bool {
        if self.max {
            a >= b
        } else {
            a <= b
        }
    }

    /// Takes sample `v` at time `t` (not before the last one's) into a window of `window`
    /// time units; returns the windowed best.
    pub(crate) fn update(&mut self, t: u64, v: f64, window: u64) -> f64 {
        let new = Sample { t, v };
        if self.better(v, self.s[0].v) || t.saturating_sub(self.s[2].t) > window {
            // A new best, or nothing left in the window: start over.
            self.reset(t, v);
            return v;
        }
        if self.better(v, self.s[1].v) {
            self.s[1] = new;
            self.s[2] = new;
        } else if self.better(v, self.s[2].v) {
            self.s[2] = new;
        }
        self.age(new, window);
        self.s[0].v
    }

    /// Ages the best samples out of the window; keeps the later sub-windows' choices fresh
    /// (the second best from the last quarter of the window on, the third from the last half).
    fn age(&mut self, new: Sample, window: u64) {
        let dt = new.t - self.s[0].t.min(new.t);
        if dt > window {
            self.s = [self.s[1], self.s[2], new];
            if new.t.saturating_sub(self.s[0].t) > window {
                self.s = [self.s[1], self.s[2], new];
            }
        } else if self.s[1].t == self.s[0].t && dt > window / 4 {
            self.s[1] = new;
            self.s[2] = new;
        } else if self.s[2].t == self.s[1].t && dt > window / 2 {
            self.s[2] = new;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_max_filter_forgets_a_peak_after_its_window() {
        let mut f = WindowedFilter::max(0, 10.0);
        assert_eq!(f.update(1, 5.0, 10), 10.0);
        assert_eq!(f.update(10, 6.0, 10), 10.0);
        // Eleven units after the peak, the best of what followed it.
        assert_eq!(f.update(11, 4.0, 10), 6.0);
        assert_eq!(f.update(30, 3.0, 10), 3.0);
    }

    #[test]
    fn a_min_filter_keeps_the_smallest() {
        let mut f = WindowedFilter::min(0, 100.0);
        assert_eq!(f.update(1, 80.0, 10), 80.0);
        // A quarter of the window after the best: kept as the second best.
        assert_eq!(f.update(4, 90.0, 10), 80.0);
        assert_eq!(f.update(12, 95.0, 10), 90.0);
        // A sample within the best's first quarter is not kept: when the best expires, the
        // estimate is the best of what came later (Nichols' approximation).
        let mut f = WindowedFilter::min(0, 80.0);
        f.update(2, 90.0, 10);
        assert_eq!(f.update(11, 95.0, 10), 95.0);
    }

    #[test]
    fn a_later_sample_can_be_missed_when_the_best_expires() {
        // The best (96 at 0) expires at 6; 78 of time 2 takes its place and, a quarter of the
        // window old, gives its later slots to the newest sample, 0, which displaces 73 of
        // time 6: one unit later the estimate is 0 though 73 is in the window (Linux
        // lib/win_minmax.c's minmax_subwin_update does the same).
        let mut f = WindowedFilter::max(0, 96.0);
        assert_eq!(f.update(2, 78.0, 4), 96.0);
        assert_eq!(f.update(6, 73.0, 4), 78.0);
        assert_eq!(f.update(6, 0.0, 4), 78.0);
        assert_eq!(f.update(7, 0.0, 4), 0.0);
    }

    proptest! {
        /// The estimate is a sample of the window, no worse than the newest sample, and the
        /// newest sample itself when that is the best of the window.
        #[test]
        fn the_estimate_is_a_sample_of_the_window_no_worse_than_the_newest(
            steps in proptest::collection::vec((0..5u64, 0.0..100.0f64), 1..300),
            window in 4..40u64,
        ) {
            let mut f = WindowedFilter::max(0, steps[0].1);
            let mut seen = vec![(0, steps[0].1)];
            let mut t = 0;
            for &(dt, v) in &steps[1..] {
                t += dt;
                seen.push((t, v));
                let best = f.update(t, v, window);
                let in_window: Vec<f64> =
                    seen.iter().filter(|(s, _)| t - s <= window).map(|&(_, v)| v).collect();
                prop_assert!(in_window.contains(&best), "{best} at {t}");
                prop_assert!(best >= v, "{best} below the newest {v} at {t}");
                let true_best = in_window.iter().cloned().fold(f64::MIN, f64::max);
                if v == true_best {
                    prop_assert_eq!(best, v);
                }
            }
        }
    }
}
