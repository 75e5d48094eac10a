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
            SimTime(round_nonneg(s * 1e9))
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

/// `x.round() as u64` (half away from zero) for `0 ≤ x < 2^64`. The default x86-64 target has no
/// rounding instruction (SSE4.1), so `f64::round` is a library call, a few percent of a TCP run;
/// truncating to an integer is exact, and so is `x` less that integer: below 2^53 both are
/// multiples of `x`'s last bit, above it every `f64` is whole. Below 2^63 the truncation goes
/// through `i64`: a conversion between `f64` and `i64` is one instruction on x86-64, one with
/// `u64` several (without AVX-512).
#[inline]
pub(crate) fn round_nonneg(x: f64) -> u64 {
    debug_assert!(x >= 0.0 || x.is_nan(), "round_nonneg({x})");
    if x < I64_END {
        let whole = x as i64;
        (whole + (x - whole as f64 >= 0.5) as i64) as u64
    } else {
        x as u64 // whole already
    }
}

/// 2^63: where `i64` ends.
const I64_END: f64 = 9_223_372_036_854_775_808.0;

/// `x.ceil()` for finite `x ≥ 0`, without the library call (see [`round_nonneg`]).
#[inline]
pub(crate) fn ceil_nonneg(x: f64) -> f64 {
    if x >= (1u64 << 52) as f64 {
        return x; // whole already
    }
    // Below 2^52 (see `round_nonneg` for the `i64`).
    let whole = x as i64 as f64;
    if whole < x {
        whole + 1.0
    } else {
        whole
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

    /// Against the library's rounding: ties, neighbours of whole numbers and of ties, and
    /// random values at every scale up to the functions' limits.
    #[test]
    fn rounding_without_the_library_is_the_librarys() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        // The neighbours of a positive value.
        let around = |x: f64| {
            [
                x,
                f64::from_bits(x.to_bits() + 1),
                f64::from_bits(x.to_bits() - 1),
            ]
        };
        let mut values = vec![0.0, 0.5, 1.5, 2.5, 0.49999999999999994, 2f64.powi(52) + 1.0];
        for k in 0..64 {
            let whole = (1u64 << k) as f64;
            values.extend(around(whole));
            values.extend(around(whole + 0.5).into_iter().flat_map(around));
        }
        values.extend((0..100_000).map(|_| rng.gen::<f64>() * 2f64.powi(rng.gen_range(-10..63))));
        values.extend([2f64.powi(64), f64::MAX]);
        for x in values.into_iter().filter(|&x| x >= 0.0) {
            assert_eq!(round_nonneg(x), x.round() as u64, "round({x})");
            if x < 2f64.powi(63) {
                assert_eq!(ceil_nonneg(x), x.ceil(), "ceil({x})");
            }
        }
        assert_eq!(ceil_nonneg(1e300), 1e300);
    }

    #[test]
    fn seconds_round_trip() {
        assert_eq!(SimTime::from_secs_f64(0.0215), SimTime::from_us(21_500));
        assert_eq!(SimTime::from_secs_f64(-1.0), SimTime::ZERO);
        assert_eq!(SimTime::from_ms(3) - SimTime::from_ms(5), SimTime::ZERO);
    }
}
