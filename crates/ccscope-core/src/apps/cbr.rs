//! Constant bit rate: one packet every `8 · packet_bytes / rate` seconds (ns-2
//! `Application/Traffic/CBR`, ns-3 `UdpClient`). Send times are `start + k · interval`,
//! rounded once each, so rounding never accumulates over long runs.
//!
//! Hooks: [`SendApp::on_start`] asks to be woken at once (ns-3 `UdpClient::StartApplication`
//! schedules its first `Send` after 0 s); each [`SendApp::on_wake`] offers one untagged packet
//! and asks to be woken at the next send time.

use super::{format_rate, SendApp, SendCtx, Tag};
use crate::error::{check_positive, Result};
use crate::time::SimTime;

/// A constant-rate source.
#[derive(Clone, Copy, Debug)]
pub struct Cbr {
    /// Rate (bits/s), finite and > 0.
    rate_bps: f64,
    /// Packet size (bytes on the wire).
    packet_bytes: u32,
    /// The flow's start.
    started: SimTime,
    /// Packets offered so far.
    sent: u64,
}

impl Cbr {
    pub fn new(rate_bps: f64, packet_bytes: u32) -> Result<Self> {
        Ok(Cbr {
            rate_bps: check_positive("rate_bps", rate_bps)?,
            packet_bytes,
            started: SimTime::ZERO,
            sent: 0,
        })
    }

    /// Time between packets (s).
    fn interval_s(&self) -> f64 {
        8.0 * self.packet_bytes as f64 / self.rate_bps
    }
}

impl SendApp for Cbr {
    fn watches_progress(&self) -> bool {
        false
    }

    fn on_start(&mut self, cx: &mut SendCtx) {
        self.started = cx.now();
        cx.wake_at(cx.now());
    }

    fn on_wake(&mut self, cx: &mut SendCtx) {
        cx.offer(self.packet_bytes as u64, Tag::default());
        self.sent += 1;
        let next = SimTime::from_secs_f64(self.sent as f64 * self.interval_s());
        cx.wake_at(self.started + next);
    }

    fn label(&self) -> String {
        format!("CBR {}", format_rate(self.rate_bps))
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
    fn wakes_at_start_then_every_interval_without_drift() {
        // 1000 B at 3 Mb/s: 2.666... ms, not a whole number of nanoseconds.
        let mut h = SendHarness::new(Cbr::new(3e6, 1000).unwrap());
        let start = SimTime::from_ms(7);
        h.at(start, |a, cx| a.on_start(cx));
        assert_eq!(h.wake.take(), Some(start));
        assert!(h.buffer.is_empty());
        let mut at = start;
        for k in 1..=1_000_000u64 {
            h.at(at, |a, cx| a.on_wake(cx));
            assert_eq!(h.drain().len(), 1);
            at = h.wake.take().unwrap();
            if k % 250_000 == 0 {
                assert_eq!(at, start + SimTime::from_secs_f64(k as f64 * 8000.0 / 3e6));
            }
        }
    }

    #[test]
    fn names_its_rate_and_rejects_a_bad_one() {
        let c = Cbr::new(1.5e6, 1000).unwrap();
        assert_eq!(c.label(), "CBR 1.5Mb/s");
        assert_eq!(c.nominal_rate_bps(), Some(1.5e6));
        assert!(Cbr::new(0.0, 1000).is_err() && Cbr::new(f64::NAN, 1000).is_err());
    }
}
