//! TEAR, TCP Emulation At Receivers (Rhee, Ozdemir & Yi 2000), with the timeout Yang, Kim & Lam
//! added (2003 §2.2). No TEAR code or full report text was available to us: this is a
//! reconstruction from the paper's description, and every choice below is ours.
//!
//! Receiver ([`TearReceiver`](crate::control::TearReceiver)):
//! - it emulates a TCP sender's window: `cwnd` starts at 1 packet in slow start, `ssthresh` at ∞;
//! - a *round* starts at the arrival of packet S and ends at the first arrival with seq ≥ S + cwnd;
//!   at its end the window grows as TCP's does over one RTT: ×2 in slow start (capped at
//!   ssthresh), +1 in congestion avoidance;
//! - a loss (sequence gap, declared after 3 later packets like TCP's fast retransmit) halves the
//!   window (cwnd = ssthresh = max(cwnd/2, 1)) and starts a new round; losses of packets in the
//!   round of that reduction are ignored (one reduction per window, as TCP);
//! - timeout (Yang et al.): when no packet has arrived for the emulated RTO = 4R (TFRC's t_RTO,
//!   RFC 5348 §4.3), the next arrival emulates a timeout: ssthresh = max(cwnd/2, 1), cwnd = 1,
//!   slow start; the silent period counts as time of the closing epoch, so its rate drops;
//! - an *epoch* runs from one window reduction to the next; its rate is Σ cwnd / Σ R over its
//!   rounds (the mean of its per-round rates cwnd/R weighted by round length);
//! - the reported rate is the weighted mean of the last 8 epoch rates with TFRC's weights,
//!   the open epoch (including the round in progress) counting only if it raises the mean
//!   (RFC 5348 §5.4's rule; [`max_weighted_mean`](crate::control::receiver::max_weighted_mean)); before the first loss, the open epoch;
//! - reports go out on the first packet and then at least once per RTT (R is the sender's RTT
//!   carried in the data packets).
//!
//! Sender ([`TearSender`]): sends at the reported rate; halves it when no report arrived for
//! max(4R, 2s/X) (Yang et al.'s suggestion, with TFRC's no-feedback timer, RFC 5348 §4.4);
//! 1 packet/s until the first report.

use super::{ewma, RateConfig};
use crate::control::{Controller, ReportSample};
use crate::time::SimTime;

/// TEAR sender: follows the receiver's rate.
#[derive(Clone, Debug)]
pub struct TearSender {
    /// Sending rate (bits/s), within the config's bounds.
    rate_bps: f64,
    /// Smoothed RTT (s), RFC 5348's q = 0.9.
    rtt_s: Option<f64>,
    config: RateConfig,
}

impl TearSender {
    /// A TEAR sender. Trusts `config`: the catalogue ([`crate::control::catalog`]) checks it.
    pub fn new(config: RateConfig) -> Self {
        TearSender {
            rate_bps: config.initial_rate(config.packet_bits()),
            rtt_s: None,
            config,
        }
    }
}

impl Controller for TearSender {
    fn name(&self) -> String {
        "TEAR".into()
    }

    fn on_report(&mut self, report: &ReportSample) {
        if let Some(rtt) = report.rtt {
            self.rtt_s = Some(ewma(self.rtt_s, rtt.secs().max(1e-6), 0.1));
        }
        if let Some(r) = report.rate_bps {
            self.rate_bps = self.config.clamp(r);
        }
    }

    fn feedback_timeout(&self) -> Option<SimTime> {
        let two_pkts_s = 2.0 * self.config.packet_bits() / self.rate_bps;
        // RFC 5348 §4.3–4.4: max(4R, 2s/X); 2 s before the first RTT sample.
        Some(SimTime::from_secs_f64(
            self.rtt_s.map_or(2.0, |r| (4.0 * r).max(two_pkts_s)),
        ))
    }

    fn on_no_feedback(&mut self, _now: SimTime) {
        self.rate_bps = self.config.clamp(self.rate_bps / 2.0);
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        Some(self.rate_bps)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("rtt_s", self.rtt_s.unwrap_or(f64::NAN)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sender_follows_reports_and_halves_without_feedback() {
        let mut s = TearSender::new(RateConfig::default());
        s.on_report(&ReportSample {
            rtt: Some(SimTime::from_ms(100)),
            rate_bps: Some(1e6),
            ..ReportSample::default()
        });
        assert_eq!(s.pacing_rate_bps(), Some(1e6));
        assert_eq!(s.feedback_timeout(), Some(SimTime::from_ms(400)));
        s.on_no_feedback(SimTime::ZERO);
        assert_eq!(s.pacing_rate_bps(), Some(5e5));
    }
}
