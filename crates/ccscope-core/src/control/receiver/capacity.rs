//! Receiver-side bottleneck-capacity estimation from packet bunches (Loguinov & Radha §VI-B;
//! Paxson's 1997 thesis, packet bunch modes).
//!
//! The sender emits bunches of k ≥ 3 packets back to back. They leave the narrowest link spaced
//! by its transmission time, so the receiver's dispersion gives one sample
//! C = 8·Σ_{i=2}^{k} s_i / (t_k − t_1) (the first packet's arrival only starts the clock). The
//! estimate reported is the mode of the histogram of recent samples (Paxson's packet bunch
//! modes): cross traffic that slips into a bunch only widens its dispersion, which spreads
//! samples below the capacity but leaves the mode in place.

use std::collections::VecDeque;

use crate::time::SimTime;

/// Fewest packets in a bunch that gives a sample (Loguinov & Radha §VI-B: "at least three").
pub const MIN_BUNCH_PKTS: u32 = 3;

/// Samples kept for the histogram (an assumption: the papers give no count).
pub const MAX_SAMPLES: usize = 100;

/// Histogram bin width relative to the median sample (an assumption: no paper gives one; a fine
/// 2 % keeps the mode within the 3 % Loguinov & Radha's Fig. 7 shows).
pub const BIN_FRACTION: f64 = 0.02;

/// One packet's place in a bunch, as the sender marked it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BunchMark {
    /// Bunch number, distinct for consecutive bunches.
    pub bunch: u64,
    /// Position in the bunch, from 0.
    pub index: u32,
    /// Packets in the bunch.
    pub len: u32,
}

/// The bunch being received.
#[derive(Clone, Copy, Debug)]
struct Partial {
    bunch: u64,
    /// Next position expected; a gap or reordering abandons the bunch.
    next: u32,
    len: u32,
    first_at: SimTime,
    /// Bytes of the packets after the first.
    bytes_after_first: u64,
}

/// Packet-bunch capacity estimator.
#[derive(Clone, Debug, Default)]
pub struct PacketBunch {
    current: Option<Partial>,
    /// Recent samples (bits/s), oldest first, at most `MAX_SAMPLES`; each finite and > 0.
    samples: VecDeque<f64>,
}

impl PacketBunch {
    /// Registers a bunch packet arriving at `now`; returns the sample its bunch gives when it
    /// completes it. Bunches with a missing or reordered packet give none (an assumption: the
    /// papers do not say).
    pub fn on_packet(&mut self, mark: BunchMark, size_bytes: u32, now: SimTime) -> Option<f64> {
        if mark.len < MIN_BUNCH_PKTS {
            return None;
        }
        if mark.index == 0 {
            self.current = Some(Partial {
                bunch: mark.bunch,
                next: 1,
                len: mark.len,
                first_at: now,
                bytes_after_first: 0,
            });
            return None;
        }
        let p = self.current.as_mut()?;
        if p.bunch != mark.bunch || p.next != mark.index {
            self.current = None;
            return None;
        }
        p.next += 1;
        p.bytes_after_first += size_bytes as u64;
        if p.next < p.len {
            return None;
        }
        let p = self.current.take()?;
        let spread = now - p.first_at;
        if spread == SimTime::ZERO {
            return None;
        }
        // Bunch dispersion (Loguinov & Radha §VI-B): C = 8·Σ_{i=2}^{k} s_i / (t_k − t_1).
        let c = 8.0 * p.bytes_after_first as f64 / spread.secs();
        self.samples.push_back(c);
        if self.samples.len() > MAX_SAMPLES {
            self.samples.pop_front();
        }
        Some(c)
    }

    /// Every sample kept, oldest first (bits/s).
    pub fn samples(&self) -> impl Iterator<Item = f64> + '_ {
        self.samples.iter().copied()
    }

    /// The capacity estimate (bits/s): the histogram mode of the recent samples.
    pub fn capacity_bps(&self) -> Option<f64> {
        let xs: Vec<f64> = self.samples.iter().copied().collect();
        histogram_mode(&xs, BIN_FRACTION)
    }
}

/// Mode of `samples` (Paxson's packet bunch modes): bins `bin_fraction × median` wide; the
/// mean of the most populated bin (ties go to the bin nearest the median). `None` without
/// finite positive samples.
pub fn histogram_mode(samples: &[f64], bin_fraction: f64) -> Option<f64> {
    let mut xs: Vec<f64> = samples
        .iter()
        .copied()
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect();
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let median = xs[xs.len() / 2];
    let width = (bin_fraction * median).max(f64::MIN_POSITIVE);
    let bin = |x: f64| (x / width).floor() as i64;
    let median_bin = bin(median);
    // xs is sorted, so each bin is a run.
    let mut best: Option<(usize, i64, f64)> = None;
    let mut i = 0;
    while i < xs.len() {
        let b = bin(xs[i]);
        let j = xs[i..]
            .iter()
            .position(|&x| bin(x) != b)
            .map_or(xs.len(), |k| i + k);
        let mean = xs[i..j].iter().sum::<f64>() / (j - i) as f64;
        let better = match best {
            None => true,
            Some((n, bb, _)) => {
                j - i > n || (j - i == n && (b - median_bin).abs() < (bb - median_bin).abs())
            }
        };
        if better {
            best = Some((j - i, b, mean));
        }
        i = j;
    }
    best.map(|(_, _, m)| m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(bunch: u64, index: u32) -> BunchMark {
        BunchMark {
            bunch,
            index,
            len: 3,
        }
    }

    #[test]
    fn a_clean_bunch_measures_the_spacing() {
        let mut e = PacketBunch::default();
        // 1500 B every 7.772 ms ≈ a T1 (1.544 Mb/s).
        let gap = SimTime(7_772_021);
        assert_eq!(e.on_packet(mark(1, 0), 1500, SimTime::ZERO), None);
        assert_eq!(e.on_packet(mark(1, 1), 1500, gap), None);
        let c = e
            .on_packet(mark(1, 2), 1500, SimTime(2 * gap.ns()))
            .unwrap();
        assert!((c / 1.544e6 - 1.0).abs() < 1e-6, "{c}");
        assert_eq!(e.capacity_bps(), Some(c));
    }

    #[test]
    fn incomplete_bunches_give_nothing() {
        let mut e = PacketBunch::default();
        e.on_packet(mark(1, 0), 1500, SimTime::ZERO);
        assert_eq!(e.on_packet(mark(1, 2), 1500, SimTime::from_ms(5)), None);
        e.on_packet(mark(2, 0), 1500, SimTime::from_ms(10));
        assert_eq!(e.on_packet(mark(3, 1), 1500, SimTime::from_ms(15)), None);
        assert_eq!(e.capacity_bps(), None);
    }

    #[test]
    fn the_mode_ignores_samples_widened_by_cross_traffic() {
        let mut xs = vec![1.0e6; 30];
        xs.extend([0.5e6, 0.6e6, 0.66e6, 0.7e6, 0.75e6, 0.8e6]);
        xs.extend((0..10).map(|i| 1.0e6 * (1.0 + 0.001 * i as f64)));
        let m = histogram_mode(&xs, BIN_FRACTION).unwrap();
        assert!((m / 1.0e6 - 1.0).abs() < 0.01, "{m}");
        assert_eq!(histogram_mode(&[f64::NAN, -1.0], BIN_FRACTION), None);
    }
}
