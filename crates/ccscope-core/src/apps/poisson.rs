//! Poisson arrivals: packets with exponentially distributed gaps of mean
//! `8 · packet_bytes / rate` seconds (ns-2 `Application/Traffic/Exponential` with a zero OFF
//! time; the M of M/D/1).
//!
//! Hooks: [`SendApp::on_start`] draws the first gap and asks to be woken after it; each
//! [`SendApp::on_wake`] offers one untagged packet, draws the next gap and asks to be woken
//! after it. Draws come from the endpoint's random stream, one per packet, in send order.

use rand_distr::{Distribution, Exp};

use super::{format_rate, SendApp, SendCtx, Tag};
use crate::error::{check_positive, Result};
use crate::time::SimTime;

/// A Poisson source.
#[derive(Clone, Copy, Debug)]
pub struct Poisson {
    /// Mean rate (bits/s), finite and > 0.
    rate_bps: f64,
    /// Packet size (bytes on the wire).
    packet_bytes: u32,
}

impl Poisson {
    pub fn new(rate_bps: f64, packet_bytes: u32) -> Result<Self> {
        Ok(Poisson {
            rate_bps: check_positive("rate_bps", rate_bps)?,
            packet_bytes,
        })
    }

    /// Draws the next gap and asks to be woken after it.
    fn schedule(&self, cx: &mut SendCtx) {
        let mean_s = 8.0 * self.packet_bytes as f64 / self.rate_bps;
        if let Ok(exp) = Exp::new(1.0 / mean_s) {
            let gap = SimTime::from_secs_f64(exp.sample(cx.rng()));
            cx.wake_at(cx.now() + gap);
        }
    }
}

impl SendApp for Poisson {
    fn watches_progress(&self) -> bool {
        false
    }

    fn on_start(&mut self, cx: &mut SendCtx) {
        self.schedule(cx);
    }

    fn on_wake(&mut self, cx: &mut SendCtx) {
        cx.offer(self.packet_bytes as u64, Tag::default());
        self.schedule(cx);
    }

    fn label(&self) -> String {
        format!("Poisson {}", format_rate(self.rate_bps))
    }

    fn nominal_rate_bps(&self) -> Option<f64> {
        Some(self.rate_bps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::harness::SendHarness;

    #[test]
    fn gaps_are_exponential_with_the_mean_interval() {
        // 1000 B at 8 Mb/s: mean gap 1 ms.
        let mut h = SendHarness::new(Poisson::new(8e6, 1000).unwrap());
        h.at(SimTime::ZERO, |a, cx| a.on_start(cx));
        assert!(h.buffer.is_empty());
        let n = 200_000;
        let (mut at, mut gaps) = (SimTime::ZERO, Vec::with_capacity(n));
        for _ in 0..n {
            let next = h.wake.take().unwrap();
            gaps.push((next - at).secs());
            at = next;
            h.at(at, |a, cx| a.on_wake(cx));
            assert_eq!(h.drain().len(), 1);
        }
        let mean = gaps.iter().sum::<f64>() / n as f64;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n as f64;
        // Exponential: standard deviation = mean; the sample mean is within 5 sigma / sqrt(n).
        assert!(
            (mean - 1e-3).abs() < 5.0 * 1e-3 / (n as f64).sqrt(),
            "mean {mean}"
        );
        assert!(
            (var.sqrt() / mean - 1.0).abs() < 0.02,
            "cv {}",
            var.sqrt() / mean
        );
    }

    #[test]
    fn the_same_stream_gives_the_same_send_times() {
        let times = || {
            let mut h = SendHarness::new(Poisson::new(1e6, 500).unwrap());
            h.at(SimTime::ZERO, |a, cx| a.on_start(cx));
            (0..100)
                .map(|_| {
                    let at = h.wake.take().unwrap();
                    h.at(at, |a, cx| a.on_wake(cx));
                    at
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(times(), times());
        assert_eq!(
            Poisson::new(1.5e6, 1000).unwrap().label(),
            "Poisson 1.5Mb/s"
        );
    }
}
