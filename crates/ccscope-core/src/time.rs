//! Simulated time: an integer count of nanoseconds.
//!
//! Event keys never hold floats: `SimTime` is the only clock type, and conversions
//! from seconds round to the nearest nanosecond at the boundary.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time, or a duration, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A time or none in 8 bytes, where `Option<SimTime>` takes 16: [`SimTime::MAX`], which no run
/// reaches, stands for none. For the many per-flow fields that are often unset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptTime(SimTime);

impl OptTime {
    pub const NONE: OptTime = OptTime(SimTime::MAX);

    pub const fn some(t: SimTime) -> OptTime {
        OptTime(t)
    }
    pub fn get(self) -> Option<SimTime> {
        (self.0 != SimTime::MAX).then_some(self.0)
    }
    pub fn is_none(self) -> bool {
        self.0 == SimTime::MAX
    }
    /// The time, leaving none.
    pub fn take(&mut self) -> Option<SimTime> {
        std::mem::replace(self, OptTime::NONE).get()
    }
}

impl Default for OptTime {
    fn default() -> Self {
        OptTime::NONE
    }
}

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_ns(ns: u64) -> Self {
        SimTime(ns)
    }
    pub const fn from_us(us: u64) -> Self {
        SimTime(us * 1_000)
    }
    pub const fn from_ms(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }
    /// Rounds to the nearest nanosecond; negative or non-finite input saturates to 0 / MAX.
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_nan() || s <= 0.0 {
            SimTime(0)
        } else if s >= u64::MAX as f64 / 1e9 {
            SimTime::MAX
        } else {
            SimTime((s * 1e9).round() as u64)
        }
    }
    pub const fn ns(self) -> u64 {
        self.0
    }
    pub fn secs(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    pub fn saturating_sub(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(other.0))
    }
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for SimTime {
    fn add_assign(&mut self, rhs: SimTime) {
        *self = *self + rhs;
    }
}

/// Difference of two times; saturates at zero so a duration is never negative.
impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: SimTime) -> SimTime {
        self.saturating_sub(rhs)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.secs())
    }
}

/// Time to serialize `size_bytes` onto a link of `rate_bps`, rounded up to whole nanoseconds.
///
/// Exact integer arithmetic: `ceil(8 * size * 1e9 / rate)`.
pub fn serialization_time(size_bytes: u32, rate_bps: u64) -> SimTime {
    debug_assert!(rate_bps > 0);
    let rate = rate_bps.max(1);
    // 8e9 * size fits in 64 bits for any u32 size below 2.3e9 bytes; u128 only beyond that.
    match (size_bytes as u64).checked_mul(8_000_000_000) {
        Some(bits_ns) => SimTime(bits_ns.div_ceil(rate)),
        None => SimTime((size_bytes as u128 * 8_000_000_000).div_ceil(rate as u128) as u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opt_time_is_none_or_its_time() {
        let mut t = OptTime::default();
        assert_eq!((t.get(), t.is_none(), t.take()), (None, true, None));
        t = OptTime::some(SimTime::ZERO);
        assert_eq!((t.get(), t.is_none()), (Some(SimTime::ZERO), false));
        assert_eq!((t.take(), t), (Some(SimTime::ZERO), OptTime::NONE));
    }

    #[test]
    fn serialization_is_exact_when_divisible() {
        // 1000 B at 10 Mb/s = 8000 bits / 1e7 bps = 800 us.
        assert_eq!(serialization_time(1000, 10_000_000), SimTime::from_us(800));
        // 1 B at 3 b/s = 8/3 s, rounded up.
        assert_eq!(serialization_time(1, 3), SimTime(2_666_666_667));
        // The widest size takes the 128-bit path.
        assert_eq!(
            serialization_time(u32::MAX, 8_000_000_000),
            SimTime(u32::MAX as u64)
        );
    }

    #[test]
    fn seconds_round_trip() {
        assert_eq!(SimTime::from_secs_f64(0.0215), SimTime::from_us(21_500));
        assert_eq!(SimTime::from_secs_f64(-1.0), SimTime::ZERO);
        assert_eq!(SimTime::from_ms(3) - SimTime::from_ms(5), SimTime::ZERO);
    }
}
