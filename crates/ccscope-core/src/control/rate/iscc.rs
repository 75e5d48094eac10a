//! Ideally scalable congestion control ISCC(k, l) (Loguinov & Radha §V-D): a rate-based binomial
//! control whose constants follow the bottleneck capacity C(t), σ = 1/(m_D·C^(l−1)) (39) and
//! λ = C^(k+1)/m_I (41), applied to a rate limited by C. Then the decrease step is at most r/m_D
//! and the increase step at most r/m_I, and the loss rate (42) depends on neither n nor C.
//!
//! "Limited by C" bounds the rate the control law acts on (the condition σ < 1/(l·x^(l−1)) of
//! (24) behind (39)), not what the flow sends: as in the overshoot of (34), the step that finds
//! congestion takes the rate past C, by at most one increase step, to at most C·(1 + 1/m_I).
//! Clamping the sent rate at C instead would let a lone flow that knows C fill the link exactly
//! and never see a loss, where (34) and (42) count one overshoot per cycle.
//!
//! C comes from an exact oracle (a parameter) or from the receiver's packet-bunch estimate
//! carried in each report (`capacity_bps`; [`capacity`](crate::control::receiver::capacity)).
//! Until an estimate arrives the controller holds its starting rate. One control interval is one
//! receiver report (once per RTT, and at once when the receiver NACKs a loss) or one round of
//! the round model.
//!
//! One decrease per congestion event, as in rate AIMD: a loss of a packet sent before the last
//! decrease was caused by the rate that decrease already answered, so it neither decreases nor
//! increases (Loguinov & Radha (2) takes one control action per loop delay R, §II-A; a flow
//! learns whether its decrease relieved congestion one R later). Congestion that outlasts a
//! decrease (a loss of a packet sent after it) decreases again, so the back-to-back decreases
//! §VI-A describes for l > 1 at r ≪ C still happen, at most once per loop delay. Without the
//! guard, every NACK of one overflow (tens of packets at a T1 with many flows) would take another
//! step of up to r/m_D.

use super::{RateConfig, DEFAULT_INITIAL_PKTS_PER_S};
use crate::control::{Controller, ReportSample, RoundSample};
use crate::time::SimTime;

/// ISCC(k, l) with m_I and m_D.
#[derive(Clone, Debug)]
pub struct Iscc {
    /// Increase exponent k, in [−3, 0).
    k: f64,
    /// Decrease exponent l, in (1, 4].
    l: f64,
    /// Aggressiveness m_I ≥ 1 (41): an increase is at most r/m_I.
    m_i: f64,
    /// Efficiency m_D ≥ l (39): a decrease is at most r/m_D.
    m_d: f64,
    /// Exact capacity (bits/s) when an oracle gives it; overrides estimates.
    oracle_bps: Option<f64>,
    /// Latest capacity estimate (bits/s), > 0.
    estimate_bps: Option<f64>,
    /// Sending rate (bits/s), within the config's bounds and, once C is known, at most one
    /// increase step above C: ≤ C·(1 + 1/m_I).
    rate_bps: f64,
    /// When the last decrease happened (reports only; the round model has no send times).
    last_decrease: Option<SimTime>,
    config: RateConfig,
}

impl Iscc {
    /// ISCC(k, l) with m_I, m_D and an exact capacity `oracle_bps` (bits/s) when given. Trusts
    /// its arguments: the catalogue ([`crate::control::catalog`]) checks them.
    pub fn new(
        k: f64,
        l: f64,
        m_i: f64,
        m_d: f64,
        oracle_bps: Option<f64>,
        config: RateConfig,
    ) -> Self {
        Iscc {
            k,
            l,
            m_i,
            m_d,
            oracle_bps,
            estimate_bps: None,
            rate_bps: config.initial_rate(DEFAULT_INITIAL_PKTS_PER_S * config.packet_bits()),
            last_decrease: None,
            config,
        }
    }

    fn capacity(&self) -> Option<f64> {
        self.oracle_bps.or(self.estimate_bps)
    }

    /// One control interval at `now`; `answered`: its losses are of packets sent before the
    /// last decrease, which already answered them.
    fn step(&mut self, now: SimTime, congested: bool, answered: bool) {
        let Some(c) = self.capacity() else { return };
        // Loguinov & Radha §V-D: the control law acts on a rate limited by C.
        let r = self.rate_bps.min(c);
        if congested {
            // One decrease per congestion event (module doc).
            if answered {
                return;
            }
            self.last_decrease = Some(now);
            let sigma = 1.0 / (self.m_d * c.powf(self.l - 1.0)); // Loguinov & Radha (39)
            self.rate_bps = r - sigma * r.powf(self.l); // (2), (3)
        } else {
            let lambda = c.powf(self.k + 1.0) / self.m_i; // Loguinov & Radha (41)
            self.rate_bps = r + lambda * r.powf(-self.k); // (2), (3)
        }
        self.rate_bps = self.config.clamp(self.rate_bps);
    }
}

impl Controller for Iscc {
    fn name(&self) -> String {
        format!("ISCC({},{})", self.k, self.l)
    }

    fn on_report(&mut self, report: &ReportSample) {
        if let Some(c) = report.capacity_bps.filter(|c| c.is_finite() && *c > 0.0) {
            self.estimate_bps = Some(c);
        }
        self.step(
            report.now,
            report.lost_pkts > 0.0,
            report.loss_predates(self.last_decrease),
        );
    }

    fn on_round(&mut self, round: &RoundSample) {
        if let Some(c) = round.capacity_bps.filter(|c| c.is_finite() && *c > 0.0) {
            self.estimate_bps = Some(c);
        }
        self.step(round.now, round.congested, false);
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        Some(self.rate_bps)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push((
            "capacity_bps",
            self.oracle_bps.or(self.estimate_bps).unwrap_or(f64::NAN),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::{assert_close, Driver};

    fn iscc(rate: f64) -> Iscc {
        let config = RateConfig {
            initial_rate_bps: Some(rate),
            ..RateConfig::default()
        };
        Iscc::new(-1.5, 2.0, 20.0, 2.0, Some(1.544e6), config)
    }

    #[test]
    fn steps_are_bounded_by_r_over_m() {
        let c = 1.544e6;
        for r in [1e4, 1e5, 7.72e5, 1.2e6] {
            let mut d = Driver::new(iscc(r));
            d.rounds(1, false);
            let up = d.controller.pacing_rate_bps().unwrap() - r;
            // λ r^−k = r (r/C)^(1/2) / m_I ≤ r/20 (40).
            assert_close(up, r * (r / c).sqrt() / 20.0, 1e-9);
            assert!(up <= r / 20.0);
            let mut d = Driver::new(iscc(r));
            d.rounds(1, true);
            let down = r - d.controller.pacing_rate_bps().unwrap();
            // σ r^l = r (r/C) / m_D ≤ r/2 (39).
            assert_close(down, r * (r / c) / 2.0, 1e-9);
        }
    }

    #[test]
    fn the_rate_overshoots_capacity_by_at_most_one_step_and_waits_for_an_estimate() {
        // Loguinov & Radha (34): one increase step, at most C/m_I, past C.
        let c = 1.544e6;
        let mut d = Driver::new(iscc(1.5e6));
        d.rounds(100, false);
        assert_close(
            d.controller.pacing_rate_bps().unwrap(),
            c * (1.0 + 1.0 / 20.0),
            1e-12,
        );
        d.rounds(1, true);
        assert_close(d.controller.pacing_rate_bps().unwrap(), c / 2.0, 1e-12);
        let mut blind = Iscc::new(-1.5, 2.0, 20.0, 2.0, None, RateConfig::default());
        let before = blind.pacing_rate_bps();
        blind.on_report(&ReportSample::default());
        assert_eq!(blind.pacing_rate_bps(), before);
        blind.on_report(&ReportSample {
            capacity_bps: Some(1e6),
            ..ReportSample::default()
        });
        assert!(blind.pacing_rate_bps() > before);
    }

    #[test]
    fn one_decrease_per_congestion_event_but_persisting_congestion_decreases_again() {
        let c = 1.544e6;
        let mut x = iscc(c);
        let report = |now_ms: u64, lost: f64, sent_ms: u64| ReportSample {
            now: SimTime::from_ms(now_ms),
            lost_pkts: lost,
            loss_sent_at: (lost > 0.0).then(|| SimTime::from_ms(sent_ms)),
            ..ReportSample::default()
        };
        x.on_report(&report(1000, 1.0, 900));
        assert_close(x.pacing_rate_bps().unwrap(), c / 2.0, 1e-12);
        // More NACKs of packets sent before that decrease: the same event, no step either way.
        x.on_report(&report(1010, 1.0, 950));
        x.on_report(&report(1020, 3.0, 999));
        assert_close(x.pacing_rate_bps().unwrap(), c / 2.0, 1e-12);
        // A loss of a packet sent after it: congestion persists, decrease again (§VI-A).
        x.on_report(&report(1200, 1.0, 1100));
        let r = c / 2.0;
        assert_close(x.pacing_rate_bps().unwrap(), r - r * (r / c) / 2.0, 1e-12);
        // A loss-free interval increases.
        let before = x.pacing_rate_bps().unwrap();
        x.on_report(&report(1300, 0.0, 0));
        assert!(x.pacing_rate_bps().unwrap() > before);
    }
}
