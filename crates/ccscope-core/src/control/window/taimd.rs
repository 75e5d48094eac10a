//! Cai, Shen, Pan & Mark's TCP-friendly AIMD (TAIMD) and Dynamic TCP-friendly AIMD (DTAIMD).
//!
//! Both are AIMD(α, β) with β *kept* (`w ← βw`), friendly when α = 3(1 − β)/(1 + β) (Cai et
//! al. (13)). Cai et al. §III-C.2 observe that a real window is a whole number of packets, so a
//! reduction removes at least one packet: below `1/(1 − β)` the effective decrease ratio is
//! `β' = 1 − 1/cwnd`, smaller than β, and the flow loses throughput against TCP. Both
//! controllers here reduce by at least one packet, as their ns-2 flows did. DTAIMD compensates
//! by choosing α from the effective β' (pseudo-code L1–L6, §III-C.3); TAIMD keeps α fixed.
//!
//! L1–L6 are written for the friendly α of (13). A preset α off (13) (Cai et al. §IV-C's
//! weighted classes, e.g. AIMD(3.2, 0.875)) scales L4 and L6 by α/α₁₃, which keeps
//! α(1 + β')/(1 − β') equal to the class's constant as Cai et al. (16) requires.

use super::{decimal, friendly_alpha_cai, Window, WindowRule};

/// AIMD with a decrease of at least one packet, and for DTAIMD an α that follows the effective
/// decrease ratio.
#[derive(Clone, Debug, PartialEq)]
pub struct TaimdRule {
    /// Preset increase (packets per RTT) used when the window is large, in
    /// (0, [`super::MAX_ALPHA`]].
    alpha: f64,
    /// Fraction of the window kept by a reduction, in (0, 1).
    beta_kept: f64,
    /// DTAIMD (α from L1–L6) rather than TAIMD (α fixed).
    dynamic: bool,
}

impl WindowRule for TaimdRule {
    fn name(&self) -> String {
        let family = if self.dynamic { "DTAIMD" } else { "TAIMD" };
        format!(
            "{family}({},{})",
            decimal(self.alpha),
            decimal(self.beta_kept)
        )
    }

    fn increase(&self, cwnd: f64) -> f64 {
        if !self.dynamic {
            return self.alpha;
        }
        // Cai et al. §III-C.2: the effective window is ⌊cwnd⌋ packets.
        let w = cwnd.floor();
        let class = self.alpha / friendly_alpha_cai(self.beta_kept);
        if w >= 1.0 / (1.0 - self.beta_kept) {
            self.alpha // Cai et al. L1–L2
        } else if w <= 1.0 {
            class // Cai et al. L3–L4: α = 1
        } else {
            class * 3.0 / (2.0 * w - 1.0) // Cai et al. L5–L6: α = 3/(2cwnd − 1)
        }
    }

    fn decrease(&self, cwnd: f64) -> f64 {
        // Cai et al. §III-C.2: w ← βw, but by at least one packet (β' = 1 − 1/cwnd).
        (self.beta_kept * cwnd).min(cwnd - 1.0)
    }

    fn binomial(&self) -> Option<crate::control::BinomialForm> {
        // AIMD(α, β) once βw ≤ w − 1, i.e. w ≥ 1/(1 − β) (Cai et al. §III-C.2); DTAIMD's α is
        // the preset one once ⌊w⌋ reaches that bound too (L1–L2).
        let bound = 1.0 / (1.0 - self.beta_kept);
        let from_window_pkts = if self.dynamic { bound.ceil() } else { bound };
        Some(crate::control::BinomialForm {
            k: 0.0,
            l: 1.0,
            alpha: self.alpha,
            beta_removed: 1.0 - self.beta_kept,
            from_window_pkts,
        })
    }
}

/// A TAIMD or DTAIMD window controller.
pub type Taimd = Window<TaimdRule>;

impl Taimd {
    /// TAIMD(α, β): AIMD with β kept and a decrease of at least one packet. Trusts its
    /// arguments: the catalogue ([`crate::control::catalog`]) checks them.
    pub fn taimd(alpha: f64, beta_kept: f64) -> Taimd {
        Taimd::build(alpha, beta_kept, false)
    }

    /// DTAIMD(α, β): TAIMD whose α follows the effective decrease ratio at small windows
    /// (Cai et al. L1–L6). Trusts its arguments, as [`Taimd::taimd`].
    pub fn dtaimd(alpha: f64, beta_kept: f64) -> Taimd {
        Taimd::build(alpha, beta_kept, true)
    }

    fn build(alpha: f64, beta_kept: f64, dynamic: bool) -> Taimd {
        Window::with_rule(TaimdRule {
            alpha,
            beta_kept,
            dynamic,
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

    fn at(c: Taimd, w: f64) -> Driver<Taimd> {
        Driver::started(c.with_config(WindowConfig::avoidance_at(w)).unwrap())
    }

    #[test]
    fn dtaimd_alpha_follows_l1_to_l6() {
        // DTAIMD(0.2, 0.875): 1/(1 − β) = 8.
        let c = Taimd::dtaimd(0.2, 0.875);
        for (cwnd, alpha) in [
            (1.0, 1.0),        // L4
            (1.5, 1.0),        // L4: one whole packet
            (2.0, 1.0),        // L6: 3/(2·2 − 1)
            (4.0, 3.0 / 7.0),  // L6
            (7.9, 3.0 / 13.0), // L6 at ⌊7.9⌋ = 7
            (8.0, 0.2),        // L2
            (50.0, 0.2),       // L2
        ] {
            assert_close(c.rule().increase(cwnd), alpha, 1e-15);
        }
    }

    #[test]
    fn l6_is_eq_13_with_the_effective_beta() {
        // Cai et al. §III-C.3: α = 3(1 − β')/(1 + β') with β' = 1 − 1/cwnd is 3/(2cwnd − 1).
        let c = Taimd::dtaimd(0.2, 0.875);
        for w in 2..8 {
            let w = w as f64;
            assert_close(
                c.rule().increase(w),
                friendly_alpha_cai(1.0 - 1.0 / w),
                1e-14,
            );
        }
    }

    #[test]
    fn small_windows_lose_at_least_one_packet() {
        // Cai et al. §III-C.2: below 1/(1 − β) = 8 the effective ratio is β' = 1 − 1/cwnd.
        for (w, after) in [(2.0, 1.0), (4.0, 3.0), (7.5, 6.5), (8.0, 7.0), (16.0, 14.0)] {
            for c in [Taimd::taimd(0.2, 0.875), Taimd::dtaimd(0.2, 0.875)] {
                let mut d = at(c, w);
                d.loss();
                assert_close(d.controller.window(), after, 1e-15);
            }
        }
    }

    #[test]
    fn dtaimd_recovers_faster_than_taimd_at_small_windows() {
        let mut dynamic = at(Taimd::dtaimd(0.2, 0.875), 2.0);
        let trace = dynamic.round_trace(3);
        for (w, expected) in trace.iter().zip([3.0, 3.6, 4.2]) {
            assert_close(*w, expected, 1e-12);
        }
        let mut fixed = at(Taimd::taimd(0.2, 0.875), 2.0);
        assert_close(*fixed.round_trace(3).last().unwrap(), 2.6, 1e-12);
    }

    #[test]
    fn a_weighted_class_scales_l4_and_l6() {
        let friendly = Taimd::dtaimd(0.2, 0.875);
        let double = Taimd::dtaimd(0.4, 0.875);
        for w in [1.0, 3.0, 6.0, 9.0] {
            assert_close(
                double.rule().increase(w),
                2.0 * friendly.rule().increase(w),
                1e-14,
            );
        }
    }

    #[test]
    fn names_follow_cai_et_al() {
        assert_eq!(Taimd::dtaimd(0.2, 0.875).name(), "DTAIMD(0.2,0.875)");
        assert_eq!(
            Taimd::taimd(friendly_alpha_cai(0.875), 0.875).name(),
            "TAIMD(0.2,0.875)"
        );
    }

    proptest! {
        #[test]
        fn window_stays_finite_and_at_least_one(
            alpha in 1e-3..MAX_ALPHA,
            beta in 1e-3..0.999f64,
            dynamic in any::<bool>(),
            start in prop_oneof![Just(None), (1.0..1e4f64).prop_map(Some)],
            ops in ops(),
        ) {
            let c = if dynamic { Taimd::dtaimd(alpha, beta) } else { Taimd::taimd(alpha, beta) };
            let c = match start {
                Some(w) => c.with_config(WindowConfig::avoidance_at(w)).unwrap(),
                None => c,
            };
            Driver::new(c).run_checked(&ops);
        }
    }
}
