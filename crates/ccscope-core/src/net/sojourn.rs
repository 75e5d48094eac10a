//! A link's sojourn times: how long each packet waited in its queue before its serialization
//! started (RFC 8289 §3.1's sojourn time; the packet on the wire has left the queue). The mean
//! is exact; the percentiles come from a log-linear histogram of bounded size.
//!
//! The histogram keeps every wait below [`EXACT_NS`] exactly and splits each octave above into
//! [`SUB`] equal buckets, so a bucket spans at most 1/[`SUB`] of its lower edge; a percentile is
//! reported at its bucket's midpoint and so lies within 1/(2·[`SUB`]) = 1.6 % of the exact order
//! statistic (and is exact below 64 ns). Waits of [`TOP_NS`] and longer (over an hour) share the
//! last bucket.

/// Buckets per octave.
pub const SUB: u64 = 32;
/// Waits below this many nanoseconds have a bucket each.
pub const EXACT_NS: u64 = 2 * SUB;
/// The longest wait the histogram tells apart: 2^42 ns, 73 minutes.
pub const TOP_NS: u64 = 1 << 42;
/// Octaves above the exact range up to [`TOP_NS`].
const OCTAVES: usize = (42 - EXACT_NS.trailing_zeros()) as usize;
const BUCKETS: usize = EXACT_NS as usize + OCTAVES * SUB as usize;

/// The sojourn times of one link's packets over the measurement window.
#[derive(Clone, Debug)]
pub struct Sojourn {
    packets: u64,
    /// Sum of the waits (ns).
    total_ns: u128,
    counts: Box<[u64; BUCKETS]>,
}

impl Default for Sojourn {
    fn default() -> Self {
        Sojourn {
            packets: 0,
            total_ns: 0,
            counts: Box::new([0; BUCKETS]),
        }
    }
}

/// The bucket of a wait of `ns` nanoseconds.
#[inline]
fn bucket(ns: u64) -> usize {
    if ns < EXACT_NS {
        return ns as usize;
    }
    let ns = ns.min(TOP_NS - 1);
    // The octave [2^e, 2^(e+1)), e ≥ 6, in SUB buckets of 2^(e-5) ns each.
    let e = 63 - ns.leading_zeros() as u64;
    let shift = e - SUB.trailing_zeros() as u64;
    (EXACT_NS + (e - EXACT_NS.trailing_zeros() as u64) * SUB + ((ns >> shift) - SUB)) as usize
}

/// The lowest wait and the width of bucket `b` (ns).
fn edges(b: usize) -> (u64, u64) {
    let b = b as u64;
    if b < EXACT_NS {
        return (b, 1);
    }
    let (octave, step) = ((b - EXACT_NS) / SUB, (b - EXACT_NS) % SUB);
    let e = octave + EXACT_NS.trailing_zeros() as u64;
    let width = 1 << (e - SUB.trailing_zeros() as u64);
    ((SUB + step) * width, width)
}

impl Sojourn {
    /// One packet waited `ns` nanoseconds.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.packets += 1;
        self.total_ns += ns as u128;
        self.counts[bucket(ns)] += 1;
    }

    /// Packets recorded.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// The mean wait (ns), exact; none before the first packet.
    pub fn mean_ns(&self) -> Option<f64> {
        (self.packets > 0).then(|| self.total_ns as f64 / self.packets as f64)
    }

    /// The `q`-quantile (0 < q ≤ 1) by nearest rank: the wait of the ⌈q·n⌉-th shortest, to
    /// within 1.6 % (its bucket's midpoint); none before the first packet.
    pub fn quantile_ns(&self, q: f64) -> Option<f64> {
        if self.packets == 0 {
            return None;
        }
        let rank = ((q * self.packets as f64).ceil() as u64).clamp(1, self.packets);
        let mut seen = 0;
        for (b, &n) in self.counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                let (lo, width) = edges(b);
                return Some(lo as f64 + (width - 1) as f64 / 2.0);
            }
        }
        None
    }

    /// What the report gives: packets, mean, 95th and 99th percentiles.
    pub fn summary(&self) -> Option<SojournSummary> {
        Some(SojournSummary {
            packets: self.packets,
            mean_ns: self.mean_ns()?,
            p95_ns: self.quantile_ns(0.95)?,
            p99_ns: self.quantile_ns(0.99)?,
        })
    }
}

/// A link's sojourn times over the measurement window, as reported.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SojournSummary {
    /// Packets whose wait is counted: every packet the queue passed to the wire.
    pub packets: u64,
    /// Mean wait (ns), exact.
    pub mean_ns: f64,
    /// 95th and 99th percentiles by nearest rank (ns), within 1.6 %.
    pub p95_ns: f64,
    pub p99_ns: f64,
}

#[cfg(test)]
mod tests {
    use rand::{Rng as _, SeedableRng};

    use super::*;

    #[test]
    fn buckets_tile_the_range_in_order() {
        let mut next = 0;
        for b in 0..BUCKETS {
            let (lo, width) = edges(b);
            assert_eq!(lo, next, "bucket {b} starts where {} ended", b.max(1) - 1);
            assert_eq!((bucket(lo), bucket(lo + width - 1)), (b, b));
            assert!(
                b < EXACT_NS as usize || width * SUB <= lo,
                "bucket {b}: {width} of {lo}"
            );
            next = lo + width;
        }
        assert_eq!(next, TOP_NS);
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
    }

    /// The exact nearest-rank quantile of `xs`.
    fn exact(xs: &mut [u64], q: f64) -> f64 {
        xs.sort_unstable();
        let rank = ((q * xs.len() as f64).ceil() as usize).clamp(1, xs.len());
        xs[rank - 1] as f64
    }

    #[test]
    fn quantiles_are_within_one_sixty_fourth_of_the_exact_ones() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for n in [1usize, 2, 7, 100, 10_000] {
            let mut xs: Vec<u64> = (0..n)
                .map(|_| match rng.gen_range(0..3) {
                    0 => rng.gen_range(0..200),
                    1 => rng.gen_range(0..50_000_000),
                    _ => (rng.gen::<f64>().powi(4) * 3e9) as u64,
                })
                .collect();
            let mut s = Sojourn::default();
            xs.iter().for_each(|&x| s.record(x));
            let mean = xs.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
            assert!((s.mean_ns().unwrap() - mean).abs() <= 1e-9 * mean);
            for q in [0.01, 0.5, 0.95, 0.99, 1.0] {
                let (got, want) = (s.quantile_ns(q).unwrap(), exact(&mut xs, q));
                let tol = if want < EXACT_NS as f64 {
                    0.0
                } else {
                    want / 64.0
                };
                assert!(
                    (got - want).abs() <= tol,
                    "n = {n}, q = {q}: {got} for {want}"
                );
            }
        }
    }

    #[test]
    fn an_empty_record_has_no_summary() {
        let mut s = Sojourn::default();
        assert_eq!(
            (s.mean_ns(), s.quantile_ns(0.5), s.summary()),
            (None, None, None)
        );
        s.record(0);
        let got = s.summary().unwrap();
        assert_eq!((got.packets, got.mean_ns, got.p99_ns), (1, 0.0, 0.0));
    }
}
