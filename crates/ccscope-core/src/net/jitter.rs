//! Packet delay variation on a link: the jitter models of the RMCAT evaluation criteria
//! (draft-ietf-rmcat-eval-criteria-13 §4.5, published as RFC 8868), which RFC 8867's test cases
//! name as their path's end-to-end jitter.
//!
//! A packet that reaches the far end of a link at `a(n)` is handed on at `j(n) = a(n) + z(n)`,
//! where `z(n) = |max(min(N(0, std²), N_STD·std), −N_STD·std)|` is the draft's recommended
//! truncated Gaussian (§4.5.3: std = 5 ms, N_STD = 3). The link's fixed propagation delay
//! stands for the draft's mean transit time `x_mean`. Two models (§4.5.1, §4.5.2):
//!
//! - Random Bounded PDV (RBPDV): every packet gets its own `z(n)`; a flow's packets closer
//!   together than the spread of `z` can overtake one another.
//! - Approximately Random Subject to No-Reordering Bounded PDV (NR-RPVD), the one the draft
//!   says evaluations must use: within a flow, a packet is never handed on before its
//!   predecessor plus the predecessor's serialization time at the link's rate, `j(n) ≥
//!   j(n−1) + serial(n−1)`, as if it followed it at once through a per-flow queue.

use rand_distr::{Distribution, StandardNormal};

use crate::rng::Rng;
use crate::time::SimTime;

/// A link's jitter model, in the engine's units.
#[derive(Clone, Debug, PartialEq)]
pub struct JitterSpec {
    /// Standard deviation of the Gaussian before truncation (ns).
    pub std_ns: u64,
    /// Truncation at this many standard deviations.
    pub n_std: f64,
    /// Packets of a flow may overtake one another (RBPDV); otherwise NR-RPVD.
    pub reorder: bool,
}

/// A link's jitter as it runs: its model, its random stream, and per flow when its last
/// packet was handed on and that packet's serialization time.
pub struct Jitter {
    spec: JitterSpec,
    rng: Rng,
    last: Vec<(SimTime, SimTime)>,
}

impl Jitter {
    /// The jitter of `spec` on a link crossed by up to `flows` flows, drawing from `rng`.
    pub fn new(spec: JitterSpec, rng: Rng, flows: usize) -> Jitter {
        Jitter {
            spec,
            rng,
            last: vec![(SimTime::ZERO, SimTime::ZERO); flows],
        }
    }

    /// One draw of `z(n)` (ns): the absolute value of a Gaussian of the model's standard
    /// deviation, clamped to `n_std` of them.
    pub fn draw(&mut self) -> u64 {
        let g: f64 = StandardNormal.sample(&mut self.rng);
        let bound = self.spec.n_std;
        (g.clamp(-bound, bound).abs() * self.spec.std_ns as f64).round() as u64
    }

    /// When a packet of `flow` that reached the far end at `arrival`, and takes `serial` to
    /// serialize at the link's rate, is handed on.
    pub fn release(&mut self, flow: u32, arrival: SimTime, serial: SimTime) -> SimTime {
        let z = SimTime(self.draw());
        let mut at = arrival + z;
        let (prev, prev_serial) = self.last[flow as usize];
        if !self.spec.reorder && at < prev + prev_serial {
            at = prev + prev_serial;
        }
        self.last[flow as usize] = (at, serial);
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    const MS: u64 = 1_000_000;

    fn jitter(reorder: bool, seed: u64) -> Jitter {
        let spec = JitterSpec {
            std_ns: 5 * MS,
            n_std: 3.0,
            reorder,
        };
        Jitter::new(spec, stream(seed, Stream::Jitter, 0), 2)
    }

    /// The recommended model's z(n) (std 5 ms, N_STD 3): every draw in [0, 15 ms]; its mean
    /// and median those of |N(0, 1)| clamped at 3, times 5 ms: E = sqrt(2/π)·(1 − e^(−9/2)) +
    /// 3·P(|N| > 3) = 0.79712, median 0.67449. Over 40 000 draws the mean's standard error is
    /// sd/200 = 0.600/200 = 0.0030 (in units of std): held within 4 of them; the median's
    /// (1/(2·f(m)·200), f the density of |N| at its median, 0.6352) = 0.0039: within 4.
    #[test]
    fn the_delay_variation_is_the_drafts_truncated_gaussian() {
        let mut j = jitter(true, 7);
        let n = 40_000;
        let mut z: Vec<f64> = (0..n).map(|_| j.draw() as f64 / (5 * MS) as f64).collect();
        assert!(z.iter().all(|&x| (0.0..=3.0).contains(&x)));
        let mean = z.iter().sum::<f64>() / n as f64;
        assert!((mean - 0.79712).abs() < 4.0 * 0.0030, "mean {mean}");
        z.sort_by(f64::total_cmp);
        let median = z[n / 2];
        assert!((median - 0.67449).abs() < 4.0 * 0.0039, "median {median}");
        // Clamped at 3σ: P(|N| > 3) = 0.0027 of the draws sit exactly at 15 ms.
        let at_bound = z.iter().filter(|&&x| x == 3.0).count() as f64 / n as f64;
        assert!((at_bound - 0.0027).abs() < 4.0 * (0.0027f64 / n as f64).sqrt());
    }

    /// NR-RPVD: packets of a flow 1 ms apart (closer than the 15 ms spread) leave in the order
    /// they came, each at least the previous one's serialization time after it, and never
    /// before its own arrival; another flow's packets are not held behind them. RBPDV on the
    /// same arrivals lets some overtake.
    #[test]
    fn without_reordering_a_flow_keeps_its_order_and_spacing() {
        let serial = SimTime(MS / 10);
        let arrivals: Vec<SimTime> = (0..5000).map(|i| SimTime(i * MS)).collect();
        let mut nr = jitter(false, 3);
        let out: Vec<SimTime> = arrivals.iter().map(|&a| nr.release(0, a, serial)).collect();
        assert!(out.windows(2).all(|w| w[1] >= w[0] + serial));
        assert!(out.iter().zip(&arrivals).all(|(j, a)| j >= a));
        // The other flow's packet at 0 is not held behind flow 0's last one.
        assert!(nr.release(1, SimTime::ZERO, serial) <= SimTime(15 * MS));

        let mut rb = jitter(true, 3);
        let out: Vec<SimTime> = arrivals.iter().map(|&a| rb.release(0, a, serial)).collect();
        let overtaken = out.windows(2).filter(|w| w[1] < w[0]).count();
        assert!(overtaken > 100, "{overtaken} overtakings");
        assert!(out
            .iter()
            .zip(&arrivals)
            .all(|(j, a)| *j >= *a && *j <= *a + SimTime(15 * MS)));
    }
}
