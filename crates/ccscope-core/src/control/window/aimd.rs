//! AIMD(α, β): the window grows by α packets per RTT and shrinks multiplicatively on
//! congestion. TCP is AIMD(1, 1/2).
//!
//! The papers write β two ways, and the constructors follow each paper's notation:
//! - Yang & Lam's GAIMD (and Cai et al., SSVP) keep `β·w` after a reduction:
//!   [`Aimd::gaimd`]`(alpha, beta_kept)`, e.g. GAIMD(0.31, 7/8) keeps 7/8 of the window;
//! - Jin et al., Loguinov & Radha and Floyd et al. remove `β·w`: [`Aimd::jin`]`(alpha,
//!   beta_removed)`, e.g. AIMD(1/10, 1/16) removes 1/16 of the window.
//!
//! Internally there is one canonical parameter, [`AimdRule::beta_kept`]; the name a controller
//! reports is written in the notation it was built with.

use super::{decimal, fraction, Window, WindowRule};

/// The TCP-friendly α for β *removed* (`w ← w − βw`): α = 3β/(2 − β).
/// Loguinov & Radha (5); Jin et al. Table 1 / eq. (4) with k = 0, l = 1.
pub fn friendly_alpha_jin(beta_removed: f64) -> f64 {
    3.0 * beta_removed / (2.0 - beta_removed) // Loguinov & Radha (5)
}

/// The TCP-friendly α for β *kept* (`w ← βw`) that Yang & Lam chose for GAIMD, equating the
/// timeout-dominated regime too: α = 4(1 − β²)/3 (0.3125 at β = 7/8, written 0.31).
/// Yang et al. §1 / Cai et al. (15) / Papadimitriou & Zhang (2).
pub fn friendly_alpha_yang(beta_kept: f64) -> f64 {
    4.0 * (1.0 - beta_kept * beta_kept) / 3.0 // Cai et al. (15)
}

/// The TCP-friendly α for β *kept* from Cai et al.'s fair-share condition: α = 3(1 − β)/(1 + β)
/// (0.2 at β = 7/8). The same relation as [`friendly_alpha_jin`] with β_removed = 1 − β_kept.
pub fn friendly_alpha_cai(beta_kept: f64) -> f64 {
    3.0 * (1.0 - beta_kept) / (1.0 + beta_kept) // Cai et al. (13)
}

/// Which paper's notation a controller was built in (only affects its name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Notation {
    /// AIMD(1, 1/2), named `TCP`.
    Tcp,
    /// Yang & Lam: `GAIMD(α,β)`, β kept, decimals.
    Yang,
    /// Jin et al.: `AIMD(α,β)`, β removed, fractions.
    Jin,
}

/// Additive increase, multiplicative decrease.
#[derive(Clone, Debug, PartialEq)]
pub struct AimdRule {
    /// Window increase per RTT in congestion avoidance (packets per RTT), in (0, `MAX_ALPHA`].
    alpha: f64,
    /// Fraction of the window kept by a reduction, in (0, 1).
    beta_kept: f64,
    notation: Notation,
}

impl AimdRule {
    /// Additive increase (packets per RTT).
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Fraction of the window kept by a reduction (Yang & Lam's and Cai et al.'s β).
    pub fn beta_kept(&self) -> f64 {
        self.beta_kept
    }

    /// Fraction of the window removed by a reduction (Jin et al.'s and Loguinov & Radha's β).
    pub fn beta_removed(&self) -> f64 {
        1.0 - self.beta_kept
    }
}

impl WindowRule for AimdRule {
    fn name(&self) -> String {
        match self.notation {
            Notation::Tcp => "TCP".to_string(),
            Notation::Yang => format!("GAIMD({},{})", decimal(self.alpha), decimal(self.beta_kept)),
            Notation::Jin => format!(
                "AIMD({},{})",
                fraction(self.alpha),
                fraction(self.beta_removed())
            ),
        }
    }

    fn increase(&self, _cwnd: f64) -> f64 {
        self.alpha // Jin et al. §2: w ← w + α per RTT
    }

    fn decrease(&self, cwnd: f64) -> f64 {
        self.beta_kept * cwnd // Yang et al. §1: w ← βw (β kept)
    }

    fn binomial(&self) -> Option<crate::control::BinomialForm> {
        // Loguinov & Radha (3) with k = 0, l = 1: w ← βw keeps β, so removes (1 − β)·w.
        Some(crate::control::BinomialForm {
            k: 0.0,
            l: 1.0,
            alpha: self.alpha,
            beta_removed: self.beta_removed(),
            from_window_pkts: 1.0,
        })
    }
}

/// An AIMD window controller.
pub type Aimd = Window<AimdRule>;

impl Aimd {
    /// TCP: AIMD(1, 1/2) (RFC 5681 §3.1; Jin et al. footnote 1).
    pub fn tcp() -> Aimd {
        Window::with_rule(AimdRule {
            alpha: 1.0,
            beta_kept: 0.5,
            notation: Notation::Tcp,
        })
    }

    /// Yang & Lam's GAIMD(α, β): +α packets per RTT, `w ← βw` on congestion (β kept). Trusts
    /// its arguments: the catalogue ([`crate::control::catalog`]) checks them.
    pub fn gaimd(alpha: f64, beta_kept: f64) -> Aimd {
        Window::with_rule(AimdRule {
            alpha,
            beta_kept,
            notation: Notation::Yang,
        })
    }

    /// Jin et al.'s AIMD(α, β): +α packets per RTT, `w ← w − βw` on congestion (β removed).
    /// Trusts its arguments: the catalogue ([`crate::control::catalog`]) checks them.
    pub fn jin(alpha: f64, beta_removed: f64) -> Aimd {
        Window::with_rule(AimdRule {
            alpha,
            beta_kept: 1.0 - beta_removed,
            notation: Notation::Jin,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::{assert_close, ops, Driver};
    use crate::control::window::{WindowConfig, MAX_ALPHA};
    use crate::control::Controller;
    use proptest::prelude::*;

    fn at(c: Aimd, w: f64) -> Driver<Aimd> {
        Driver::started(c.with_config(WindowConfig::avoidance_at(w)).unwrap())
    }

    #[test]
    fn tcp_halves_on_loss_and_grows_one_packet_per_rtt() {
        let mut d = at(Aimd::tcp(), 20.0);
        d.loss();
        assert_eq!(d.controller.window(), 10.0);
        assert_eq!(d.controller.ssthresh(), 10.0);
        assert_eq!(d.round_trace(3), vec![11.0, 12.0, 13.0]);
    }

    #[test]
    fn ack_clocked_growth_is_one_packet_per_rtt() {
        // Over one RTT of n = 10 ACKs each adds 1/w with w in [10, 11]: the total is in
        // [10/11, 1] (ns-2 `opencwnd()`: cwnd += 1/cwnd per ACK).
        let mut d = at(Aimd::tcp(), 10.0);
        d.ack_round();
        let grown = d.controller.window() - 10.0;
        assert!((10.0 / 11.0..=1.0).contains(&grown), "grew {grown}");
    }

    #[test]
    fn gaimd_keeps_seven_eighths() {
        let mut d = at(Aimd::gaimd(0.31, 7.0 / 8.0), 80.0);
        d.loss();
        assert_eq!(d.controller.window(), 70.0);
        let trace = d.round_trace(2);
        assert_close(trace[0], 70.31, 1e-12);
        assert_close(trace[1], 70.62, 1e-12);
    }

    #[test]
    fn jin_removes_beta() {
        let mut d = at(Aimd::jin(0.1, 1.0 / 16.0), 32.0);
        d.loss();
        assert_eq!(d.controller.window(), 30.0);
    }

    #[test]
    fn both_conventions_describe_the_same_controller() {
        let trace = |c: Aimd| {
            let mut d = at(c, 50.0);
            d.rounds(7, false)
                .loss()
                .ack_round()
                .ack_round()
                .loss()
                .rounds(3, true);
            d.controller.window()
        };
        let kept = trace(Aimd::gaimd(0.2, 0.875));
        let removed = trace(Aimd::jin(0.2, 0.125));
        assert_close(kept, removed, 1e-12);
    }

    #[test]
    fn one_reduction_per_rtt() {
        let mut d = at(Aimd::tcp(), 64.0);
        d.loss().loss().ecn();
        assert_eq!(d.controller.window(), 32.0);
    }

    #[test]
    fn timeout_restarts_from_one_packet() {
        let mut d = at(Aimd::tcp(), 30.0);
        d.timeout();
        assert_eq!(d.controller.window(), 1.0);
        assert_eq!(d.controller.ssthresh(), 15.0);
    }

    #[test]
    fn friendly_alphas() {
        // Yang et al. §1: α = 0.31 at β = 7/8 (exactly 0.3125).
        assert_eq!(friendly_alpha_yang(7.0 / 8.0), 0.3125);
        // Cai et al. §III-C: TAIMD(0.2, 0.875).
        assert!((friendly_alpha_cai(0.875) - 0.2).abs() < 1e-15);
        // Floyd et al.'s AIMD(1/5, 1/8) (Jin et al. §6.1.1): the same relation, β removed.
        assert!((friendly_alpha_jin(1.0 / 8.0) - 0.2).abs() < 1e-15);
        // Jin et al. §6: β = 1/16 gives α ≈ 1/10 (exactly 3/31).
        assert!((friendly_alpha_jin(1.0 / 16.0) - 3.0 / 31.0).abs() < 1e-15);
        // All relations give TCP at β = 1/2 (Cai et al. §III-A).
        for alpha in [
            friendly_alpha_jin(0.5),
            friendly_alpha_yang(0.5),
            friendly_alpha_cai(0.5),
        ] {
            assert!((alpha - 1.0).abs() < 1e-15);
        }
    }

    #[test]
    fn names_follow_each_paper() {
        assert_eq!(Aimd::tcp().name(), "TCP");
        assert_eq!(Aimd::gaimd(0.31, 0.875).name(), "GAIMD(0.31,0.875)");
        assert_eq!(
            Aimd::gaimd(friendly_alpha_yang(0.875), 0.875).name(),
            "GAIMD(0.3125,0.875)"
        );
        assert_eq!(Aimd::jin(0.1, 1.0 / 16.0).name(), "AIMD(1/10,1/16)");
        assert_eq!(Aimd::jin(0.2, 1.0 / 8.0).name(), "AIMD(1/5,1/8)");
    }

    proptest! {
        #[test]
        fn window_stays_finite_and_at_least_one(
            alpha in 1e-3..MAX_ALPHA,
            beta in 1e-3..0.999f64,
            kept in any::<bool>(),
            start in prop_oneof![Just(None), (1.0..1e4f64).prop_map(Some)],
            ops in ops(),
        ) {
            let c = if kept { Aimd::gaimd(alpha, beta) } else { Aimd::jin(alpha, beta) };
            let c = match start {
                Some(w) => c.with_config(WindowConfig::avoidance_at(w)).unwrap(),
                None => c,
            };
            Driver::new(c).run_checked(&ops);
        }
    }
}
