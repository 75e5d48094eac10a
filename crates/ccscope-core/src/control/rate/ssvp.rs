//! SSVP, the Scalable Streaming Video Protocol, and SSVP-ADP, its adaptive-AIMD variant
//! (Papadimitriou & Zhang 2007 §III, §IV-B).
//!
//! The receiver sends one control packet per data packet; a control packet indicates congestion
//! when it reports a loss. Once per RTT the sender computes the ratio of congestion-indicating
//! control packets to all control packets of that RTT:
//! - ratio > the congestion level (0.005): IPG ← IPG/β (4);
//! - some indications but ratio ≤ level: a transient loss, the rate is kept;
//! - no indication: the rate increases (5).
//!
//! Assumptions (the paper leaves them open):
//! - the control-packet frequency (one per data packet, ACK-like) — with one per RTT the ratio
//!   would be 0 or 1 and the 0.005 level meaningless;
//! - eq. (5) as printed, IPG ← IPG/(1 + α), multiplies the rate by 1 + α every RTT, which is not
//!   the TCP-friendly GAIMD(0.31, 0.875) the paper says SSVP is (eq. 2 relates α and β only for
//!   an additive increase of α packets per RTT). We read α in packets per RTT:
//!   IPG ← IPG/(1 + α·IPG/RTT), which is eq. (5) when one packet is sent per RTT and RAP's
//!   increase (ns-2 `rap/rap.h` `DecreaseIpg()`) in general;
//! - RTT is a TCP-style EWMA (gain 1/8) of report-based samples; the decision interval is that
//!   smoothed RTT;
//! - lost feedback: a control packet is due every IPG, so the rate halves when none has come for
//!   2 IPG + 2 smoothed RTTs: the next two packets' control packets are overdue by two RTTs. The
//!   timer restarts after each halving, so at low rates it runs longer, and the rate falls about
//!   as 1/t through an outage rather than halving to its floor in a few RTTs (RFC 5348 §4.4
//!   likewise waits max(4R, 2s/X)). With 2 smoothed RTTs alone, a flow whose IPG exceeds them
//!   (a fair share under one packet per RTT) halved between any two of its packets on a healthy
//!   path. A halving is a decrease: losses of packets sent before it do not indicate congestion
//!   (next item);
//! - a control packet indicates congestion only if it reports the loss of a packet sent after
//!   the last decrease. Losses of packets sent earlier belong to the overflow that decrease
//!   answered: the rate cut takes one RTT to reach the queue, so the decision interval after a
//!   decrease sees the losses of the old rate again. §IV-A models one decrease per overflow
//!   ("upon packet loss (with the assumption it occurs at the cliff) the system will be
//!   adjusted downward to the knee"); a second cut would take it below the knee, which (17) and
//!   (21) are built to avoid. RAP, whose IPG arithmetic SSVP's follows (ns-2 `rap.h`), and TFRC's
//!   loss events (§II) likewise answer one overflow once.
//!
//! SSVP-ADP (§IV-B): on congestion β = RTT_min/RTT(t) (20) and α = 4(1 − β²)/3 (2) from then on.
//! RTT(t) is the current RTT (§IV-B: "RTT and RTT_min, which represent the current and minimum
//! RTT"), i.e. the latest sample at the decision, which near a loss estimates RTT_0 +
//! qdelay_max as (20) intends — not the smoothed RTT, which lags behind a filling queue.
//! RTT_min is the smallest sample of the connection (§IV-B: it "corresponds to the round-trip
//! propagation delay"). β is kept within [`ADP_BETA_MIN`], [`ADP_BETA_MAX`]: at β → 1 (a loss
//! with an empty queue) α → 0 and the flow would freeze, so the adaptive decrease is never
//! gentler than SSVP's static β = 0.875 (our assumption; the paper gives no bounds).

use super::{ewma, RateConfig, DEFAULT_INITIAL_PKTS_PER_S};
use crate::control::window::friendly_alpha_yang;
use crate::control::{Controller, ReportSample, RoundSample};
use crate::time::SimTime;

/// Weight of a new RTT sample (TCP's 1/8, RFC 6298).
const RTT_GAIN: f64 = 0.125;
/// Smallest adaptive β (RTT ≥ 2·RTT_min halves the rate, as TCP).
pub const ADP_BETA_MIN: f64 = 0.5;
/// Largest adaptive β: SSVP's static decrease.
pub const ADP_BETA_MAX: f64 = 0.875;
/// Smoothed RTTs and IPGs without feedback before the rate halves (an assumption: the paper
/// gives no rule for lost feedback; see the module docs).
const NO_FEEDBACK_RTTS: f64 = 2.0;
const NO_FEEDBACK_IPGS: f64 = 2.0;

/// How SSVP chooses its decrease (and hence its increase).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SsvpDecrease {
    /// Static SSVP(α, β): rate × β on congestion, + α packets per RTT otherwise.
    Fixed { alpha: f64, beta: f64 },
    /// SSVP-ADP: β = RTT_min/RTT (20), α = 4(1 − β²)/3 (2).
    Adaptive,
}

/// SSVP or SSVP-ADP.
#[derive(Clone, Debug)]
pub struct Ssvp {
    decrease: SsvpDecrease,
    /// Congestion level: fraction of a RTT's control packets that must indicate congestion
    /// for a decrease, in [0, 1).
    level: f64,
    /// Current additive increase (packets per RTT), > 0.
    alpha: f64,
    /// Inter-packet gap (s), > 0; rate = packet size / ipg within the config's bounds.
    ipg_s: f64,
    /// Smoothed RTT (s), > 0 once measured.
    srtt_s: Option<f64>,
    /// Latest RTT sample (s): the current RTT(t) of (20).
    rtt_s: Option<f64>,
    /// Smallest RTT sample (s).
    rtt_min_s: f64,
    /// Start of the current decision interval.
    interval_start: Option<SimTime>,
    /// Control packets in the current interval, and those indicating congestion (≤ reports).
    reports: u64,
    congested: u64,
    /// When the rate was last decreased: losses of packets sent before were answered by it.
    decreased_at: Option<SimTime>,
    config: RateConfig,
}

impl Ssvp {
    /// SSVP with `decrease` and congestion `level`. Trusts its arguments: the catalogue
    /// ([`crate::control::catalog`]) checks them.
    pub fn new(decrease: SsvpDecrease, level: f64, config: RateConfig) -> Self {
        let alpha = match decrease {
            SsvpDecrease::Fixed { alpha, .. } => alpha,
            SsvpDecrease::Adaptive => friendly_alpha_yang(ADP_BETA_MAX),
        };
        let rate = config.initial_rate(DEFAULT_INITIAL_PKTS_PER_S * config.packet_bits());
        Ssvp {
            decrease,
            level,
            alpha,
            ipg_s: config.packet_bits() / rate,
            srtt_s: None,
            rtt_s: None,
            rtt_min_s: f64::INFINITY,
            interval_start: None,
            reports: 0,
            congested: 0,
            decreased_at: None,
            config,
        }
    }

    fn set_ipg(&mut self, ipg_s: f64) {
        let rate = self.config.clamp(self.config.packet_bits() / ipg_s);
        self.ipg_s = self.config.packet_bits() / rate;
    }

    fn reduce(&mut self) {
        let beta = match self.decrease {
            SsvpDecrease::Fixed { beta, .. } => beta,
            SsvpDecrease::Adaptive => {
                let rtt = self.rtt_s.unwrap_or(self.rtt_min_s);
                // Papadimitriou & Zhang (20): β = RTT_min/RTT(t), RTT(t) the current RTT.
                let beta = (self.rtt_min_s / rtt).clamp(ADP_BETA_MIN, ADP_BETA_MAX);
                self.alpha = friendly_alpha_yang(beta); // Papadimitriou & Zhang (2)
                beta
            }
        };
        self.set_ipg(self.ipg_s / beta); // Papadimitriou & Zhang (4)
    }

    fn increase(&mut self, rtt_s: f64) {
        // Papadimitriou & Zhang (5), α in packets per RTT (see the module docs).
        self.set_ipg(self.ipg_s / (1.0 + self.alpha * self.ipg_s / rtt_s));
    }
}

impl Controller for Ssvp {
    fn name(&self) -> String {
        match self.decrease {
            SsvpDecrease::Fixed { alpha, beta } => format!("SSVP({alpha},{beta})"),
            SsvpDecrease::Adaptive => "SSVP-ADP".into(),
        }
    }

    fn on_report(&mut self, report: &ReportSample) {
        if let Some(rtt) = report.rtt {
            let s = rtt.secs().max(1e-6);
            self.srtt_s = Some(ewma(self.srtt_s, s, RTT_GAIN));
            self.rtt_s = Some(s);
            self.rtt_min_s = self.rtt_min_s.min(s);
        }
        let Some(srtt) = self.srtt_s else { return };
        self.reports += 1;
        // Only losses of packets sent after the last decrease indicate congestion (module docs).
        self.congested +=
            (report.lost_pkts > 0.0 && !report.loss_predates(self.decreased_at)) as u64;
        let start = *self.interval_start.get_or_insert(report.now);
        if report.now.secs() - start.secs() < srtt {
            return;
        }
        let ratio = self.congested as f64 / self.reports as f64;
        if ratio > self.level {
            self.reduce();
            self.decreased_at = Some(report.now);
        } else if self.congested == 0 {
            self.increase(srtt);
        }
        self.interval_start = Some(report.now);
        self.reports = 0;
        self.congested = 0;
    }

    fn on_round(&mut self, round: &RoundSample) {
        let rtt = round.interval.secs().max(1e-6);
        self.srtt_s = Some(rtt);
        self.rtt_s = Some(rtt);
        self.rtt_min_s = self.rtt_min_s.min(rtt);
        if round.loss_fraction > self.level || (round.congested && self.level == 0.0) {
            self.reduce();
        } else if !round.congested {
            self.increase(rtt);
        }
    }

    fn feedback_timeout(&self) -> Option<SimTime> {
        self.srtt_s.map(|srtt| {
            SimTime::from_secs_f64(NO_FEEDBACK_RTTS * srtt + NO_FEEDBACK_IPGS * self.ipg_s)
        })
    }

    fn on_no_feedback(&mut self, now: SimTime) {
        self.set_ipg(2.0 * self.ipg_s);
        self.decreased_at = Some(now);
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        Some(self.config.packet_bits() / self.ipg_s)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([
            ("ipg_s", self.ipg_s),
            ("alpha", self.alpha),
            ("srtt_s", self.srtt_s.unwrap_or(f64::NAN)),
            ("rtt_s", self.rtt_s.unwrap_or(f64::NAN)),
            ("rtt_min_s", self.rtt_min_s),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::assert_close;

    fn rate(s: &Ssvp) -> f64 {
        s.pacing_rate_bps().unwrap()
    }

    /// `n` control packets 10 ms apart with RTT `rtt_ms`, `lost` of them indicating congestion.
    fn feed(s: &mut Ssvp, t0_ms: u64, n: u64, lost: u64, rtt_ms: u64) -> u64 {
        for i in 0..n {
            s.on_report(&ReportSample {
                now: SimTime::from_ms(t0_ms + 10 * i),
                rtt: Some(SimTime::from_ms(rtt_ms)),
                lost_pkts: (i < lost) as u8 as f64,
                ..ReportSample::default()
            });
        }
        t0_ms + 10 * n
    }

    fn config() -> RateConfig {
        RateConfig {
            initial_rate_bps: Some(800e3), // 100 packets/s
            ..RateConfig::default()
        }
    }

    #[test]
    fn increases_by_alpha_packets_per_rtt_and_decreases_by_beta() {
        let mut s = Ssvp::new(
            SsvpDecrease::Fixed {
                alpha: 0.31,
                beta: 0.875,
            },
            0.005,
            config(),
        );
        // RTT 100 ms: decisions every 100 ms; 11 reports cover the first interval.
        let t = feed(&mut s, 0, 11, 0, 100);
        assert_close(rate(&s), 800e3 + 0.31 * 8000.0 / 0.1, 1e-9);
        let before = rate(&s);
        feed(&mut s, t, 10, 1, 100);
        assert_close(rate(&s), before * 0.875, 1e-9);
    }

    #[test]
    fn a_ratio_below_the_congestion_level_keeps_the_rate() {
        let mut s = Ssvp::new(
            SsvpDecrease::Fixed {
                alpha: 0.31,
                beta: 0.875,
            },
            0.2,
            config(),
        );
        let t = feed(&mut s, 0, 11, 0, 100);
        let before = rate(&s);
        // 1 of 10 = 0.1 ≤ 0.2: transient loss.
        feed(&mut s, t, 10, 1, 100);
        assert_close(rate(&s), before, 1e-12);
    }

    #[test]
    fn adp_takes_beta_from_the_current_rtt_and_retunes_alpha() {
        let mut s = Ssvp::new(SsvpDecrease::Adaptive, 0.005, config());
        let t = feed(&mut s, 0, 11, 0, 100);
        let t = feed(&mut s, t, 200, 0, 150);
        // The queue fills further: the current RTT (180 ms) is ahead of the smoothed one.
        let before = rate(&s);
        feed(&mut s, t, 16, 1, 180);
        assert!(s.srtt_s.unwrap() < 0.178);
        let beta = 0.1 / 0.18; // Papadimitriou & Zhang (20) with RTT(t) the current sample
        assert_close(rate(&s), before * beta, 1e-6);
        assert_close(s.alpha, 4.0 * (1.0 - beta * beta) / 3.0, 1e-9);
    }

    /// SSVP(0.31, 0.875) at the congestion level 0.005, with `config`.
    fn ssvp_with(config: RateConfig) -> Ssvp {
        let fixed = SsvpDecrease::Fixed {
            alpha: 0.31,
            beta: 0.875,
        };
        Ssvp::new(fixed, 0.005, config)
    }

    fn ssvp() -> Ssvp {
        ssvp_with(config())
    }

    #[test]
    fn a_healthy_path_at_a_low_rate_sees_no_silence() {
        // 2 packets/s, RTT 100 ms: the IPG (500 ms) exceeds 2 RTTs. A control packet is due
        // every IPG, so the timer (restarted by each) must outlast the next one's arrival and,
        // for one lost packet, the one after.
        let mut s = ssvp_with(RateConfig {
            initial_rate_bps: Some(16e3),
            ..RateConfig::default()
        });
        feed(&mut s, 0, 1, 0, 100);
        let ipg = 8000.0 / rate(&s);
        assert!(s.feedback_timeout().unwrap().secs() > 2.0 * ipg);
    }

    #[test]
    fn an_outage_slows_the_rate_about_as_one_over_time() {
        // Halvings each 2 IPG + 2 SRTT apart: after k of them, t ≥ 2·IPG_0·(2^k − 1), so the
        // IPG at time t is at most t/2 + IPG_0 (the rate at least 1/(t/2 + IPG_0) packets/s).
        let mut s = ssvp();
        let t0 = feed(&mut s, 0, 11, 0, 100);
        let ipg0 = 8000.0 / rate(&s);
        let mut t = SimTime::from_ms(t0);
        let end = SimTime::from_ms(t0 + 3000);
        loop {
            t = SimTime::from_secs_f64(t.secs() + s.feedback_timeout().unwrap().secs());
            if t > end {
                break;
            }
            s.on_no_feedback(t);
        }
        let ipg = 8000.0 / rate(&s);
        assert!(ipg <= 1.5 + ipg0, "IPG {ipg} s");
        assert!(ipg > 16.0 * ipg0); // it did slow down
    }

    #[test]
    fn losses_of_packets_sent_before_a_halving_do_not_decrease_again() {
        let mut s = ssvp();
        let t = feed(&mut s, 0, 11, 0, 100);
        s.on_no_feedback(SimTime::from_ms(t + 300));
        let before = rate(&s);
        s.on_report(&ReportSample {
            now: SimTime::from_ms(t + 400),
            rtt: Some(SimTime::from_ms(100)),
            lost_pkts: 1.0,
            loss_sent_at: Some(SimTime::from_ms(t + 200)),
            ..ReportSample::default()
        });
        feed(&mut s, t + 410, 10, 0, 100);
        assert!(rate(&s) > before);
    }

    #[test]
    fn losses_of_packets_sent_before_a_decrease_do_not_decrease_again() {
        let mut s = Ssvp::new(
            SsvpDecrease::Fixed {
                alpha: 0.31,
                beta: 0.875,
            },
            0.005,
            config(),
        );
        let t = feed(&mut s, 0, 11, 0, 100);
        let t = feed(&mut s, t, 10, 1, 100); // decision at t − 10 ms: a decrease
        let cut_ms = t - 10;
        let report = |now_ms: u64, sent_ms: u64| ReportSample {
            now: SimTime::from_ms(now_ms),
            rtt: Some(SimTime::from_ms(100)),
            lost_pkts: 1.0,
            loss_sent_at: Some(SimTime::from_ms(sent_ms)),
            ..ReportSample::default()
        };
        // The next interval reports a packet sent before the cut: no second decrease.
        let before = rate(&s);
        s.on_report(&report(t, cut_ms - 20));
        let t = feed(&mut s, t + 10, 10, 0, 100);
        assert!(rate(&s) > before);
        // A packet sent after the cut is new congestion.
        let before = rate(&s);
        s.on_report(&report(t, cut_ms + 20));
        feed(&mut s, t + 10, 10, 0, 100);
        assert_close(rate(&s), before * 0.875, 1e-9);
    }
}
