//! Rate-based binomial congestion control and rate-based AIMD after Loguinov & Radha §II-A:
//! R_I(r) = λ·r^(−k), R_D(r) = σ·r^l (3), applied once per control interval from loss
//! feedback (2), with λ = α(MTU/RTT)^(k+1) and σ = β(MTU/RTT)^(1−l) (4). AIMD is k = 0, l = 1
//! (λ = α·MTU/RTT, σ = β: β is *removed*, as in the paper's AIMD(1, 1/2)).
//!
//! MTU/RTT is either fixed (Loguinov & Radha §V-B and §VI-C fix it: 5, 30, 50 or 100 kb/s) or
//! the packet size over the RTT the sender measures. A control interval is one receiver report
//! (once per RTT, and at once when the receiver NACKs a loss) or one round of the round model. A loss of a packet
//! sent before the last decrease belongs to the same congestion event and gives no second
//! decrease; that interval neither increases nor decreases.

use super::{ewma, RateConfig, DEFAULT_INITIAL_PKTS_PER_S};
use crate::control::{Controller, ReportSample, RoundSample};
use crate::time::SimTime;

/// Weight of a new RTT sample in the sender's smoothed RTT (TCP's 1/8, RFC 6298).
const RTT_GAIN: f64 = 0.125;

/// Loguinov & Radha's rate-based binomial controller.
#[derive(Clone, Debug)]
pub struct RateBinomial {
    /// Increase exponent k (R_I = λ r^−k), finite.
    k: f64,
    /// Decrease exponent l (R_D = σ r^l), in [0, 1].
    l: f64,
    /// Window-domain increase constant α (packets^(1+k) per RTT), > 0.
    alpha: f64,
    /// Window-domain decrease constant β (removed), in (0, 1).
    beta: f64,
    /// Fixed MTU/RTT of (4) (bits/s), > 0; `None`: packet size over the smoothed RTT.
    unit_bps: Option<f64>,
    /// Sending rate (bits/s), within the config's bounds.
    rate_bps: f64,
    /// Smoothed RTT (s), > 0 once measured.
    srtt_s: Option<f64>,
    /// When the last decrease happened.
    last_decrease: Option<SimTime>,
    config: RateConfig,
}

impl RateBinomial {
    /// Rate binomial(k, l, α, β), 0 ≤ l ≤ 1, k + l > 0 (convergence, Loguinov & Radha §II-A).
    /// Trusts its arguments: the catalogue ([`crate::control::catalog`]) checks them.
    pub fn new(
        k: f64,
        l: f64,
        alpha: f64,
        beta: f64,
        unit_bps: Option<f64>,
        config: RateConfig,
    ) -> Self {
        RateBinomial {
            k,
            l,
            alpha,
            beta,
            unit_bps,
            rate_bps: config.initial_rate(DEFAULT_INITIAL_PKTS_PER_S * config.packet_bits()),
            srtt_s: None,
            last_decrease: None,
            config,
        }
    }

    /// Rate AIMD(α, β): k = 0, l = 1 (Loguinov & Radha §II-A).
    pub fn aimd(alpha: f64, beta: f64, unit_bps: Option<f64>, config: RateConfig) -> Self {
        Self::new(0.0, 1.0, alpha, beta, unit_bps, config)
    }

    /// MTU/RTT (bits/s), once known.
    fn unit(&self) -> Option<f64> {
        self.unit_bps
            .or_else(|| self.srtt_s.map(|r| self.config.packet_bits() / r))
    }

    /// One control interval at `now`; `answered`: its losses are of packets sent before the
    /// last decrease, which already answered them.
    fn step(&mut self, now: SimTime, congested: bool, answered: bool) {
        let Some(unit) = self.unit() else { return };
        let r = self.rate_bps;
        if congested {
            if answered {
                return;
            }
            let sigma = self.beta * unit.powf(1.0 - self.l); // Loguinov & Radha (4)
            self.rate_bps = self.config.clamp(r - sigma * r.powf(self.l)); // (2), (3)
            self.last_decrease = Some(now);
        } else {
            let lambda = self.alpha * unit.powf(self.k + 1.0); // Loguinov & Radha (4)
            self.rate_bps = self.config.clamp(r + lambda * r.powf(-self.k)); // (2), (3)
        }
    }
}

impl Controller for RateBinomial {
    fn name(&self) -> String {
        if self.k == 0.0 && self.l == 1.0 {
            format!("rate-AIMD({},{})", self.alpha, self.beta)
        } else {
            format!(
                "rate-binomial({},{},{},{})",
                self.k, self.l, self.alpha, self.beta
            )
        }
    }

    fn on_report(&mut self, report: &ReportSample) {
        if let Some(rtt) = report.rtt {
            self.srtt_s = Some(ewma(self.srtt_s, rtt.secs().max(1e-6), RTT_GAIN));
        }
        self.step(
            report.now,
            report.lost_pkts > 0.0,
            report.loss_predates(self.last_decrease),
        );
    }

    fn on_round(&mut self, round: &RoundSample) {
        if self.unit_bps.is_none() {
            self.srtt_s = Some(round.interval.secs().max(1e-6));
        }
        self.step(round.now, round.congested, false);
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        Some(self.rate_bps)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("srtt_s", self.srtt_s.unwrap_or(f64::NAN)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::{assert_close, Driver};

    fn fixed(k: f64, l: f64, alpha: f64, beta: f64) -> RateBinomial {
        let config = RateConfig {
            initial_rate_bps: Some(1e6),
            ..RateConfig::default()
        };
        RateBinomial::new(k, l, alpha, beta, Some(100e3), config)
    }

    #[test]
    fn aimd_adds_lambda_and_removes_beta() {
        // λ = α·MTU/RTT = 0.19 · 100 kb/s (Loguinov & Radha §VI-C: AIMD(0.19, 1/2)).
        let mut d = Driver::new(fixed(0.0, 1.0, 0.19, 0.5));
        d.rounds(10, false);
        assert_close(
            d.controller.pacing_rate_bps().unwrap(),
            1e6 + 10.0 * 19e3,
            1e-12,
        );
        d.rounds(1, true);
        assert_close(d.controller.pacing_rate_bps().unwrap(), 0.5 * 1.19e6, 1e-12);
        assert_eq!(d.controller.name(), "rate-AIMD(0.19,0.5)");
    }

    #[test]
    fn binomial_steps_follow_the_power_laws() {
        // IIAD: k = 1, l = 0: +α·u²/r, −β·u.
        let mut d = Driver::new(fixed(1.0, 0.0, 1.0, 0.5));
        d.rounds(1, false);
        assert_close(
            d.controller.pacing_rate_bps().unwrap(),
            1e6 + 1e10 / 1e6,
            1e-12,
        );
        d.rounds(1, true);
        assert_close(
            d.controller.pacing_rate_bps().unwrap(),
            1e6 + 1e4 - 5e4,
            1e-12,
        );
    }

    #[test]
    fn measured_rtt_sets_the_unit_and_rates_stay_bounded() {
        let mut c = RateBinomial::aimd(1.0, 0.5, None, RateConfig::default());
        let report = |now_ms: u64, lost: f64| ReportSample {
            now: SimTime::from_ms(now_ms),
            rtt: Some(SimTime::from_ms(100)),
            lost_pkts: lost,
            loss_sent_at: Some(SimTime::from_ms(now_ms.saturating_sub(100))),
            ..ReportSample::default()
        };
        c.on_report(&report(100, 0.0));
        // +1 packet (8000 bits) per 100 ms RTT = +80 kb/s from 10 pkt/s.
        assert_close(c.pacing_rate_bps().unwrap(), 80e3 + 80e3, 1e-9);
        c.on_report(&report(200, 1.0));
        assert_close(c.pacing_rate_bps().unwrap(), 80e3, 1e-9);
        // A loss sent before that decrease is the same event.
        c.on_report(&ReportSample {
            loss_sent_at: Some(SimTime::from_ms(150)),
            ..report(300, 1.0)
        });
        assert_close(c.pacing_rate_bps().unwrap(), 80e3, 1e-9);
        for i in 0..200 {
            c.on_report(&report(400 + 100 * i, 1.0));
        }
        assert_close(
            c.pacing_rate_bps().unwrap(),
            RateConfig::default().min_rate(),
            1e-12,
        );
    }
}
