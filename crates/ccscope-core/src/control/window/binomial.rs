//! Binomial(k, l, α, β) (Bansal & Balakrishnan 2001; Loguinov & Radha (3), §II): per RTT
//! `w ← w + α/w^k`, on congestion `w ← w − β·w^l` (β removed). TCP-compatible iff k + l = 1:
//! AIMD (k = 0, l = 1), IIAD (k = 1, l = 0), SQRT (k = l = 1/2).

use super::{fraction, Window, WindowRule};

/// Bansal & Balakrishnan's TCP-compatible α for IIAD and SQRT, as ns-2's test suite runs them
/// (`increase_num_ 1.0`; α = 3β/2, Jin et al. §3's IIAD and SQRT rules).
pub const BANSAL_ALPHA: f64 = 1.0;

/// Bansal & Balakrishnan's TCP-compatible β (removed) for IIAD and SQRT: 2/3 (ns-2's
/// `decrease_num_ 0.33` in `test-suite-aimd.tcl`; Jin et al. §6 "IIAD(1,2/3)").
pub const BANSAL_BETA: f64 = 2.0 / 3.0;

/// Largest increase exponent k accepted. Convergence to fairness needs k, l ≥ 0 and k + l > 0
/// (Bansal & Balakrishnan 2001, as Loguinov & Radha §II state it); beyond k = 2 the increase
/// is negligible at any useful window.
pub const MAX_K: f64 = 2.0;

/// Binomial increase/decrease.
#[derive(Clone, Debug, PartialEq)]
pub struct BinomialRule {
    /// Increase exponent k (dimensionless), in [0, `MAX_K`].
    k: f64,
    /// Decrease exponent l (dimensionless), in [0, 1].
    l: f64,
    /// Increase constant α (packets^(1+k) per RTT), in (0, [`super::MAX_ALPHA`]].
    alpha: f64,
    /// Decrease constant β, removed (packets^(1−l)), in (0, 1).
    beta: f64,
}

impl WindowRule for BinomialRule {
    fn name(&self) -> String {
        let (a, b) = (fraction(self.alpha), fraction(self.beta));
        let bansal = self.alpha == BANSAL_ALPHA && self.beta == BANSAL_BETA;
        match (self.k, self.l) {
            (k, l) if k == 0.0 && l == 1.0 => format!("AIMD({a},{b})"),
            (k, l) if k == 1.0 && l == 0.0 => format!("IIAD({a},{b})"),
            (k, l) if k == 0.5 && l == 0.5 && bansal => "SQRT".to_string(),
            (k, l) if k == 0.5 && l == 0.5 => format!("SQRT({a},{b})"),
            (k, l) => format!("Binomial({},{},{a},{b})", fraction(k), fraction(l)),
        }
    }

    fn increase(&self, cwnd: f64) -> f64 {
        self.alpha / cwnd.powf(self.k) // Loguinov & Radha (3): W_I(w) = α·w^(−k)
    }

    fn decrease(&self, cwnd: f64) -> f64 {
        cwnd - self.beta * cwnd.powf(self.l) // Loguinov & Radha (3): W_D(w) = β·w^l
    }

    fn binomial(&self) -> Option<crate::control::BinomialForm> {
        Some(crate::control::BinomialForm {
            k: self.k,
            l: self.l,
            alpha: self.alpha,
            beta_removed: self.beta,
            from_window_pkts: 1.0,
        })
    }
}

/// A binomial window controller.
pub type Binomial = Window<BinomialRule>;

impl Binomial {
    /// Binomial(k, l, α, β): `w ← w + α/w^k` per RTT, `w ← w − β·w^l` on congestion. Trusts
    /// its arguments: the catalogue ([`crate::control::catalog`]) checks them.
    pub fn new(k: f64, l: f64, alpha: f64, beta: f64) -> Binomial {
        Window::with_rule(BinomialRule { k, l, alpha, beta })
    }

    /// IIAD(α, β): inverse increase `w ← w + α/w`, additive decrease `w ← w − β` (k = 1, l = 0).
    pub fn iiad(alpha: f64, beta: f64) -> Binomial {
        Binomial::new(1.0, 0.0, alpha, beta)
    }

    /// SQRT(α, β): `w ← w + α/√w`, `w ← w − β√w` (k = l = 1/2).
    pub fn sqrt(alpha: f64, beta: f64) -> Binomial {
        Binomial::new(0.5, 0.5, alpha, beta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::{assert_close, ops, Driver};
    use crate::control::window::{WindowConfig, MAX_ALPHA};
    use crate::control::{Aimd, Controller};
    use proptest::prelude::*;

    fn at(c: Binomial, w: f64) -> Driver<Binomial> {
        Driver::started(c.with_config(WindowConfig::avoidance_at(w)).unwrap())
    }

    #[test]
    fn iiad_increases_inversely_and_decreases_additively() {
        let mut d = at(Binomial::iiad(1.0, 2.0 / 3.0), 10.0);
        d.rounds(1, false);
        assert_close(d.controller.window(), 10.1, 1e-12);
        d.loss();
        assert_close(d.controller.window(), 10.1 - 2.0 / 3.0, 1e-12);
    }

    #[test]
    fn iiad_grows_as_a_square_root_of_time() {
        // Continuous IIAD: d(w²)/dt = 2α, so w² = w0² + 2αt (Jin et al. footnote 11). Per RTT,
        // (w + α/w)² = w² + 2α + α²/w², so the discrete w_n² − w0² − 2αn lies in
        // [0, n·α²/w0²].
        let (alpha, w0, n) = (1.0, 10.0, 200);
        let mut d = at(Binomial::iiad(alpha, 2.0 / 3.0), w0);
        let w = *d.round_trace(n).last().unwrap();
        let excess = w * w - w0 * w0 - 2.0 * alpha * n as f64;
        assert!(
            (0.0..=n as f64 * alpha * alpha / (w0 * w0)).contains(&excess),
            "{excess}"
        );
    }

    #[test]
    fn sqrt_increases_and_decreases_with_the_square_root() {
        let mut d = at(Binomial::sqrt(1.0, 2.0 / 3.0), 16.0);
        d.rounds(1, false);
        assert_close(d.controller.window(), 16.25, 1e-12);
        let mut d = at(Binomial::sqrt(1.0, 2.0 / 3.0), 16.0);
        d.loss();
        assert_close(d.controller.window(), 16.0 - 2.0 / 3.0 * 4.0, 1e-12);
    }

    #[test]
    fn sqrt_grows_as_time_to_the_two_thirds() {
        // Continuous SQRT: d(w^1.5)/dt = 1.5α, so w^1.5 = w0^1.5 + 1.5αt. Per RTT,
        // (w + α/√w)^1.5 = w^1.5·(1 + x)^1.5 with x = α/w^1.5, and
        // 1 + 1.5x ≤ (1 + x)^1.5 ≤ 1 + 1.5x + 3x²/8, so w_n^1.5 − w0^1.5 − 1.5αn lies in
        // [0, n·(3/8)·α²/w0^1.5].
        let (alpha, w0, n) = (1.0, 16.0, 300);
        let mut d = at(Binomial::sqrt(alpha, 2.0 / 3.0), w0);
        let w = *d.round_trace(n).last().unwrap();
        let excess = w.powf(1.5) - w0.powf(1.5) - 1.5 * alpha * n as f64;
        let bound = n as f64 * 3.0 / 8.0 * alpha * alpha / w0.powf(1.5);
        assert!((0.0..=bound).contains(&excess), "{excess} vs {bound}");
    }

    #[test]
    fn ack_clocked_increase_spreads_alpha_over_w_to_the_k() {
        // One RTT of ⌊w⌋ = 16 ACKs, each adding α/(w^k·w) with w in [16, 16.25]: the total lies in
        // [16·α/16.25^1.5, α/16^0.5].
        let mut d = Driver::started(
            Binomial::sqrt(1.0, 2.0 / 3.0)
                .with_config(WindowConfig::avoidance_at(16.0))
                .unwrap(),
        );
        d.ack_round();
        let grown = d.controller.window() - 16.0;
        assert!(
            (16.0 / 16.25f64.powf(1.5)..=0.25).contains(&grown),
            "{grown}"
        );
    }

    #[test]
    fn k0_l1_is_aimd_with_beta_removed() {
        let trace = |c: &mut dyn Controller| {
            for congested in [false, false, true, false, true, true, false] {
                c.on_round(&crate::control::RoundSample {
                    congested,
                    ..Default::default()
                });
            }
            c.window()
        };
        let config = WindowConfig::avoidance_at(40.0);
        let mut binomial = Binomial::new(0.0, 1.0, 0.2, 0.125)
            .with_config(config)
            .unwrap();
        let mut aimd = Aimd::jin(0.2, 0.125).with_config(config).unwrap();
        assert_close(trace(&mut binomial), trace(&mut aimd), 1e-12);
    }

    #[test]
    fn names_follow_the_papers() {
        assert_eq!(Binomial::iiad(1.0, 2.0 / 3.0).name(), "IIAD(1,2/3)");
        assert_eq!(Binomial::sqrt(BANSAL_ALPHA, BANSAL_BETA).name(), "SQRT");
        assert_eq!(Binomial::sqrt(1.0, 0.5).name(), "SQRT(1,1/2)");
        assert_eq!(Binomial::new(0.0, 1.0, 1.0, 0.5).name(), "AIMD(1,1/2)");
        assert_eq!(
            Binomial::new(0.25, 0.75, 1.0, 2.0 / 3.0).name(),
            "Binomial(1/4,3/4,1,2/3)"
        );
    }

    proptest! {
        #[test]
        fn window_stays_finite_and_at_least_one(
            k in 0.0..=MAX_K,
            l in 0.0..=1.0f64,
            alpha in 1e-3..MAX_ALPHA,
            beta in 1e-3..0.999f64,
            start in prop_oneof![Just(None), (1.0..1e4f64).prop_map(Some)],
            ops in ops(),
        ) {
            let c = Binomial::new(k, l, alpha, beta);
            let c = match start {
                Some(w) => c.with_config(WindowConfig::avoidance_at(w)).unwrap(),
                None => c,
            };
            Driver::new(c).run_checked(&ops);
        }
    }
}
