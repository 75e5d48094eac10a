//! Jin, Guo, Matta & Bestavros's history-based spectrum of TCP-friendly window controls:
//! per RTT `w ← w + α/(w − w0)^k`, on congestion `w ← w − β·w^l` (β removed), where `w_max` (the
//! window before the last reduction) and `w0` (the window after it) are updated every congestion
//! epoch and α is set from `w_max` by Jin et al. (4) so that the control is TCP-friendly.
//!
//! Instances (Jin et al. §2–3, Table 1): SIMD (k = −1/2, l = 1), the window grows as
//! `w0 + c·t²` after each loss; AIAD (k = l = 0); the memory-less TCP-friendly AIMD
//! (k = 0, l = 1); and the other rows of Table 1, (−1/3, 1), (0, 1/2), (−1/3, 1/2).
//!
//! Two choices the paper leaves open, made here:
//! - α is Jin et al. (4) itself, not the small-β simplification (6) that Table 1 prints.
//! - The increase rule has no usable value at `w = w0` (zero for k < 0, infinite for k > 0).
//!   Jin et al. App. E starts SIMD's epoch with the window that the increase function (1)
//!   reaches after one RTT, `w0 + c`. Generalizing, `w − w0` is floored at `c`: within the first
//!   RTT of an epoch the window grows at the rate (1) has at t = 1 RTT, `α/c^k = c/(k+1)`.

use super::{fraction, Window, WindowRule};

/// Smallest increase exponent k accepted: with l ≤ 1, Jin et al.'s convergence region
/// −1 ≤ l − 1/(k+1) ≤ 0 (Fig. 2) needs k ≥ −1/2; SIMD is its most aggressive instance.
pub const MIN_HISTORY_K: f64 = -0.5;

/// Γ(x) for x ≥ 1/2 by the Lanczos approximation (g = 7, 9 terms; relative error ≈ 1e-15).
/// Jin et al. (4) needs Γ(1/(k+1) + 1) with k ≤ 2, so x ≥ 4/3.
fn gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const P: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    debug_assert!(
        x >= 0.5,
        "gamma({x}) is outside the Lanczos branch used here"
    );
    let x = x - 1.0;
    let series = P[1..]
        .iter()
        .enumerate()
        .fold(P[0], |acc, (i, p)| acc + p / (x + i as f64 + 1.0));
    let t = x + G + 0.5;
    (2.0 * std::f64::consts::PI).sqrt() * t.powf(x + 0.5) * (-t).exp() * series
}

/// The TCP-friendly α for the spectrum (k, l, β) after an epoch that ended at `w_max`
/// (packets^(1+k) per RTT).
fn friendly_alpha(k: f64, l: f64, beta: f64, w_max: f64) -> f64 {
    // Jin et al. (4)
    3.0 / (2.0 * (k + 1.0) * (1.0 - beta * w_max.powf(l - 1.0) / (k + 2.0)))
        * (beta / gamma(1.0 / (k + 1.0) + 1.0)).powf(k + 1.0)
        * w_max.powf(k * l + l - 1.0)
}

/// History-based increase/decrease.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryRule {
    /// Increase exponent k (dimensionless), in [`MIN_HISTORY_K`, `MAX_K`].
    k: f64,
    /// Decrease exponent l (dimensionless), in [0, 1].
    l: f64,
    /// Decrease constant β, removed (packets^(1−l)), in (0, 1).
    beta: f64,
    /// Window just before the last reduction (packets), ≥ 1.
    w_max: f64,
    /// Window at which the current epoch's increase started (packets), ≥ 1.
    w0: f64,
    /// Increase constant from `w_max` (packets^(1+k) per RTT), > 0; Jin et al. (4).
    alpha: f64,
    /// Window growth in the first RTT of an epoch, `c` of Jin et al. (1) (packets per RTT^u,
    /// u = 1/(k+1)), > 0.
    c: f64,
}

impl HistoryRule {
    /// Starts an epoch at `w0` after a window of `w_max`: recomputes α and c.
    fn set_epoch(&mut self, w_max: f64, w0: f64) {
        debug_assert!(w_max >= 1.0 && w0 >= 1.0, "w_max = {w_max}, w0 = {w0}");
        self.w_max = w_max;
        self.w0 = w0;
        self.alpha = friendly_alpha(self.k, self.l, self.beta, w_max);
        let u = 1.0 / (self.k + 1.0);
        self.c = ((self.k + 1.0) * self.alpha).powf(u); // Jin et al. §2: c = ((k+1)α)^u
        debug_assert!(self.alpha.is_finite() && self.alpha > 0.0 && self.c > 0.0);
    }

    /// The window whose reduction gives `w0`: solves `w − β·w^l = w0` for w (Jin et al.
    /// footnote 2: w_max follows from the first w0). `w − β·w^l` increases with w on
    /// [w0, w0/(1 − β)] for l ≤ 1, which brackets the root; bisection to machine precision.
    fn window_reduced_to(&self, w0: f64) -> f64 {
        let (mut lo, mut hi) = (w0, w0 / (1.0 - self.beta));
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if mid - self.beta * mid.powf(self.l) < w0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }
}

impl WindowRule for HistoryRule {
    fn name(&self) -> String {
        let b = fraction(self.beta);
        match (self.k, self.l) {
            (k, l) if k == -0.5 && l == 1.0 => format!("SIMD({b})"),
            (k, l) if k == 0.0 && l == 0.0 => format!("AIAD({b})"),
            (k, l) => format!("History({},{},{b})", fraction(k), fraction(l)),
        }
    }

    fn increase(&self, cwnd: f64) -> f64 {
        let since_epoch = (cwnd - self.w0).max(self.c);
        self.alpha / since_epoch.powf(self.k) // Jin et al. (3)
    }

    fn decrease(&self, cwnd: f64) -> f64 {
        cwnd - self.beta * cwnd.powf(self.l) // Jin et al. (3)
    }

    fn start(&mut self, w0: f64) {
        let w_max = self.window_reduced_to(w0);
        self.set_epoch(w_max, w0);
    }

    fn end_epoch(&mut self, w_max: f64, w0: f64) {
        self.set_epoch(w_max, w0);
    }
}

/// A history-based window controller.
pub type History = Window<HistoryRule>;

impl History {
    /// The spectrum instance (k, l) with decrease constant β (removed); α follows from Jin et
    /// al. (4). Trusts its arguments: the catalogue ([`crate::control::catalog`]) checks them.
    pub fn new(k: f64, l: f64, beta: f64) -> History {
        let rule = HistoryRule {
            k,
            l,
            beta,
            // Set by `start` when the window is built.
            w_max: 1.0,
            w0: 1.0,
            alpha: 0.0,
            c: 0.0,
        };
        Window::with_rule(rule)
    }

    /// SIMD(β): square increase (k = −1/2), multiplicative decrease (l = 1).
    pub fn simd(beta: f64) -> History {
        History::new(-0.5, 1.0, beta)
    }

    /// AIAD(β): additive increase 3β/(2·w_max) per RTT (approximately), additive decrease β.
    pub fn aiad(beta: f64) -> History {
        History::new(0.0, 0.0, beta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::{assert_close, ops, Driver};
    use crate::control::window::{WindowConfig, MAX_K};
    use crate::control::Controller;
    use proptest::prelude::*;
    use std::f64::consts::PI;

    fn at(c: History, w: f64) -> Driver<History> {
        Driver::started(c.with_config(WindowConfig::avoidance_at(w)).unwrap())
    }

    /// Least-squares slope of ln d against ln t, and the c of d = c·t² (fit d against t²).
    fn fit(trace: &[f64], w0: f64, from: usize) -> (f64, f64) {
        let points: Vec<(f64, f64)> = trace
            .iter()
            .enumerate()
            .skip(from - 1)
            .map(|(i, w)| ((i + 1) as f64, w - w0))
            .collect();
        let n = points.len() as f64;
        let (lx, ly): (Vec<f64>, Vec<f64>) = points.iter().map(|(t, d)| (t.ln(), d.ln())).unzip();
        let (mx, my) = (lx.iter().sum::<f64>() / n, ly.iter().sum::<f64>() / n);
        let sxy: f64 = lx.iter().zip(&ly).map(|(x, y)| (x - mx) * (y - my)).sum();
        let sxx: f64 = lx.iter().map(|x| (x - mx).powi(2)).sum();
        let c = points.iter().map(|(t, d)| d * t * t).sum::<f64>()
            / points.iter().map(|(t, _)| t.powi(4)).sum::<f64>();
        (sxy / sxx, c)
    }

    #[test]
    fn lanczos_gamma_matches_known_values() {
        assert_close(gamma(1.0), 1.0, 1e-14);
        assert_close(gamma(2.0), 1.0, 1e-14);
        assert_close(gamma(5.0), 24.0, 1e-14);
        assert_close(gamma(11.0), 3_628_800.0, 1e-13);
        assert_close(gamma(0.5), PI.sqrt(), 1e-14);
        assert_close(gamma(1.5), PI.sqrt() / 2.0, 1e-14);
        assert_close(gamma(2.5), 3.0 * PI.sqrt() / 4.0, 1e-14);
        // Γ(4/3), A&S Table 6.1.
        assert_close(gamma(4.0 / 3.0), 0.892_979_511_569_249_2, 1e-14);
        for x in [0.7, 1.3, 2.9, 7.25, 15.5] {
            assert_close(gamma(x + 1.0), x * gamma(x), 1e-13);
        }
    }

    #[test]
    fn alpha_reduces_to_the_memoryless_aimd() {
        // Jin et al. §3: k = 0, l = 1 in (4) gives α = 3β/(2 − β), whatever w_max.
        for (beta, w_max) in [(0.5, 10.0), (1.0 / 16.0, 100.0), (0.9, 3.0)] {
            assert_close(
                friendly_alpha(0.0, 1.0, beta, w_max),
                3.0 * beta / (2.0 - beta),
                1e-14,
            );
        }
    }

    #[test]
    fn alpha_for_simd_is_eq_8() {
        for (beta, w_max) in [(1.0f64 / 16.0, 100.0f64), (0.5, 20.0), (1.0 / 30.0, 7.0)] {
            let eq8 = 3.0 * beta.sqrt() / ((1.0 - 2.0 * beta / 3.0) * (2.0 * w_max).sqrt());
            assert_close(friendly_alpha(-0.5, 1.0, beta, w_max), eq8, 1e-14);
        }
    }

    #[test]
    fn alpha_matches_table_1_for_small_beta() {
        // Table 1 prints (6), the β·w_max^(l−1) ≪ 1 form of (4); with β = 1e-3 and
        // w_max = 1e4 the two differ by less than 1e-3. The (−1/3, ·) rows print 1.89 where
        // (6) gives (9/4)/Γ(5/2)^(2/3) = 1.861 (Table 1 rounds loosely): allowed 2 %.
        let (b, w): (f64, f64) = (1e-3, 1e4);
        let rows: [(f64, f64, f64, f64); 6] = [
            (0.0, 1.0, 3.0 * b / 2.0, 1e-3),
            (
                -1.0 / 3.0,
                1.0,
                1.89 * b.powf(2.0 / 3.0) / w.powf(1.0 / 3.0),
                0.02,
            ),
            (-0.5, 1.0, 3.0 * b.sqrt() / (2.0f64.sqrt() * w.sqrt()), 1e-3),
            (0.0, 0.5, 3.0 * b / (2.0 * w.sqrt()), 1e-3),
            (0.0, 0.0, 3.0 * b / (2.0 * w), 1e-3),
            (
                -1.0 / 3.0,
                0.5,
                1.89 * b.powf(2.0 / 3.0) / w.powf(2.0 / 3.0),
                0.02,
            ),
        ];
        for (k, l, table, tol) in rows {
            assert_close(friendly_alpha(k, l, b, w), table, tol);
        }
    }

    #[test]
    fn c_matches_table_1_increase_functions() {
        // Table 1, last column (eq. (7)): c = 9β/(8·w_max) for SIMD, 1.4β/√w_max for (−1/3, 1)
        // (printed to two digits), 3β/(2·w_max) for AIAD. With β = 1e-3 and w_max = 1e4, (5)
        // and (7) differ by the factor (1 − β·w_max^(l−1)/(k+2))^(−1/(k+1)) < 1 + 1.4e-3.
        let (b, w): (f64, f64) = (1e-3, 1e4);
        for (k, l, table, tol) in [
            (-0.5, 1.0, 9.0 * b / (8.0 * w), 1.4e-3),
            (-1.0 / 3.0, 1.0, 1.4 * b / w.sqrt(), 0.05 / 1.4),
            (0.0, 0.0, 3.0 * b / (2.0 * w), 1.4e-3),
        ] {
            let mut d = at(History::new(k, l, b), w);
            d.loss();
            assert_close(d.controller.rule().c, table, tol);
        }
    }

    #[test]
    fn simd_grows_as_the_square_of_time_since_the_loss_per_ack() {
        // Jin et al. (1), (5): after a loss at w_max the window is w0 + c·t² with
        // c = 9β/(8(1 − 2β/3)²·w_max). Per ACK (Jin et al. App. E) each RTT delivers ⌊w⌋ of
        // the w ACKs the continuous model assumes, a lag below 1/w0 ≈ 1 % per RTT; the first
        // RTT's floor adds at most 2c. Allowed: exponent 2 ± 0.2, c within 5 %.
        let (beta, w_max) = (1.0 / 16.0, 100.0);
        let mut d = at(History::simd(beta), w_max);
        d.loss();
        let w0 = d.controller.window();
        assert_eq!(w0, w_max * (1.0 - beta));
        let (exponent, c) = fit(&d.ack_trace(80), w0, 10);
        let eq5 = 9.0 * beta / (8.0 * (1.0 - 2.0 * beta / 3.0).powi(2) * w_max);
        assert!((exponent - 2.0).abs() < 0.2, "exponent {exponent}");
        assert_close(c, eq5, 0.05);
    }

    #[test]
    fn simd_grows_as_the_square_of_time_since_the_loss_per_round() {
        // The round model steps Jin et al. (3) once per RTT: σ = √(d/c) gains 1 − 1/(2σ) +
        // O(1/σ²) per step, so σ = t − (ln t)/2 + O(1) and c lags (5) by about (ln t + O(1))/t;
        // the t⁴-weighted fit over t in [20, 200] is dominated by t > 100, where that is below
        // 10 %. For β = 1/256, (7) and (5) differ by 0.5 %.
        let (beta, w_max) = (1.0 / 256.0, 100.0);
        let mut d = at(History::simd(beta), w_max);
        d.loss();
        let w0 = d.controller.window();
        let (exponent, c) = fit(&d.round_trace(200), w0, 20);
        let eq7 = 9.0 * beta / (8.0 * w_max);
        assert!((exponent - 2.0).abs() < 0.2, "exponent {exponent}");
        assert_close(c, eq7, 0.1);
    }

    #[test]
    fn history_is_updated_every_epoch() {
        let beta = 1.0 / 16.0;
        let mut d = at(History::simd(beta), 64.0);
        d.rounds(10, false);
        let w = d.controller.window();
        d.loss();
        let rule = d.controller.rule();
        assert_eq!((rule.w_max, rule.w0), (w, w * (1.0 - beta)));
        assert_close(rule.alpha, friendly_alpha(-0.5, 1.0, beta, w), 1e-15);
        d.ack_round().timeout();
        let (w_max, ssthresh) = (d.controller.rule().w_max, d.controller.ssthresh());
        assert_eq!(
            d.controller.rule().w0,
            ssthresh,
            "the epoch resumes at ssthresh"
        );
        // A timeout halves whatever the rule (ns-2 `slowdown`).
        assert_close(ssthresh, w_max / 2.0, 1e-15);
    }

    #[test]
    fn first_epoch_derives_w_max_from_the_starting_window() {
        // Jin et al. footnote 2: w0 is the window where congestion avoidance starts; w_max is
        // the window whose reduction gives w0.
        for (k, l, beta) in [
            (-0.5, 1.0, 1.0 / 16.0),
            (0.0, 0.0, 2.0 / 3.0),
            (0.0, 0.5, 0.5),
        ] {
            let c = History::new(k, l, beta)
                .with_config(WindowConfig::avoidance_at(40.0))
                .unwrap();
            let rule = c.rule();
            assert_eq!(rule.w0, 40.0);
            assert_close(rule.w_max - beta * rule.w_max.powf(l), 40.0, 1e-12);
        }
    }

    #[test]
    fn aiad_is_additive_both_ways() {
        // Jin et al. (4) with k = l = 0: α = 3β/(2·w_max − β) per RTT, whatever the window
        // (Table 1's 3β/(2·w_max) up to the factor (1 − β/(2·w_max))⁻¹); decrease by β.
        let beta = 2.0 / 3.0;
        let mut d = at(History::aiad(beta), 30.0);
        d.loss();
        assert_close(d.controller.window(), 30.0 - beta, 1e-15);
        let trace = d.round_trace(50);
        let alpha = 3.0 * beta / (2.0 * 30.0 - beta);
        for (i, w) in trace.iter().enumerate() {
            assert_close(*w, 30.0 - beta + alpha * (i + 1) as f64, 1e-12);
        }
    }

    #[test]
    fn names_follow_jin_et_al() {
        assert_eq!(History::simd(1.0 / 16.0).name(), "SIMD(1/16)");
        assert_eq!(History::aiad(2.0 / 3.0).name(), "AIAD(2/3)");
        assert_eq!(
            History::new(-1.0 / 3.0, 1.0, 0.125).name(),
            "History(-1/3,1,1/8)"
        );
    }

    proptest! {
        #[test]
        fn window_stays_finite_and_at_least_one(
            k in MIN_HISTORY_K..=MAX_K,
            l in 0.0..=1.0f64,
            beta in 1e-3..0.999f64,
            start in prop_oneof![Just(None), (1.0..1e4f64).prop_map(Some)],
            ops in ops(),
        ) {
            let c = History::new(k, l, beta);
            let c = match start {
                Some(w) => c.with_config(WindowConfig::avoidance_at(w)).unwrap(),
                None => c,
            };
            Driver::new(c).run_checked(&ops);
        }
    }
}
