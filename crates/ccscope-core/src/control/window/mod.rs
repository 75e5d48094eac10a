//! Shared state and behaviour of the papers' window controllers (AIMD/GAIMD, binomial, Jin et
//! al.'s history-based spectrum, TAIMD/DTAIMD).
//!
//! State apart from behaviour (model: Linux's `tcp_sock` + `tcp_congestion_ops`): [`Window`]
//! owns the congestion window, the slow-start threshold and the once-per-RTT bookkeeping; a
//! [`WindowRule`] says only how the window grows per RTT and what it becomes after a congestion
//! signal. Every window controller is a `Window<SomeRule>`, so slow start, ACK spreading,
//! timeouts and the round model's per-RTT step are written once, here.
//!
//! Semantics (TCP's, as modelled in ns-2 `tcp/tcp.cc`: `opencwnd()`, `slowdown()`, `timeout()`):
//! - per ACK: slow start (`cwnd += acked`) while `cwnd < ssthresh`, otherwise the rule's per-RTT
//!   increase spread over one window of ACKs (`cwnd += increase(cwnd) * acked / cwnd`);
//! - gap or ECN signal: at most one reduction per RTT (a packet sent before the last reduction
//!   belongs to the same congestion event); `ssthresh = cwnd = decrease(cwnd)`;
//! - timeout: `ssthresh = max(cwnd / 2, 2)`, `cwnd = 1`, then slow start; a loss in slow start
//!   also halves, whatever the rule (ns-2 `slowdown`). The papers' controllers all keep TCP's
//!   timeout handling (Yang & Lam's GAIMD, Jin et al. §6.1.1, Cai et
//!   al. §III-C.1), so timeouts are handled here and not by the rules;
//! - one round (the round model): one reduction if congested, else one per-RTT increase (or a
//!   doubling, capped at `ssthresh`, while in slow start).
//!
//! The rules, one per file: [`AimdRule`] (AIMD, GAIMD, TCP), [`BinomialRule`] (binomial, IIAD,
//! SQRT), [`HistoryRule`] (Jin et al.'s SIMD, AIAD and the rest of their spectrum) and
//! [`TaimdRule`] (Cai et al.'s TAIMD and DTAIMD).
//!
//! [`Cubic`] (RFC 9438) keeps its own state: its growth is a function of the time since the last
//! congestion event, not of the window alone. Controllers that see more than the window keep
//! TCP's [`Window`] for what they share with it and add their own steps, one per file:
//! [`Vegas`] (delay-based) and [`Dctcp`] (ECN-based).

mod aimd;
mod bbr;
mod bbr3;
mod binomial;
mod copa;
mod cubic;
mod cubic2622;
mod dctcp;
mod history;
mod minmax;
mod taimd;
mod vegas;

pub use aimd::{friendly_alpha_cai, friendly_alpha_jin, friendly_alpha_yang, Aimd, AimdRule};
pub use bbr::{Bbr, BbrLinuxParts};
pub use bbr3::{Bbr3, Bbr3Params};
pub use binomial::{Binomial, BinomialRule, BANSAL_ALPHA, BANSAL_BETA, MAX_K};
pub use copa::{Copa, CopaParams};
pub use cubic::{k_seconds, w_cubic, Cubic, CubicParams};
pub use cubic2622::{Cubic2622, Cubic2622Params};
pub use dctcp::{Dctcp, DCTCP_G};
pub use history::{History, HistoryRule, MIN_HISTORY_K};
pub use taimd::{Taimd, TaimdRule};
pub use vegas::{
    Ns2Rules as VegasNs2Rules, Vegas, MAX_VEGAS_PKTS, VEGAS_ALPHA, VEGAS_BETA, VEGAS_GAMMA,
};

use crate::control::{AckSample, Controller, LossEvent, LossKind, RoundSample};
use crate::error::{check_range, Result};
use crate::time::SimTime;

/// Largest congestion window any window controller reaches (packets). Far above any
/// bandwidth-delay product an engine simulates; it only keeps the arithmetic finite.
pub const MAX_WINDOW_PKTS: f64 = 1e9;

/// Largest additive-increase constant α any window controller accepts (packets per RTT for
/// AIMD; packets^(1+k) per RTT for binomial rules). The papers use α ≤ 3.2 (Cai et al. §IV-C).
pub const MAX_ALPHA: f64 = 100.0;

/// Smallest window after a timeout's reduction before slow start resumes (packets), ns-2
/// `slowdown()`.
const MIN_SSTHRESH_PKTS: f64 = 2.0;

/// A rule as the binomial control it runs, in window notation with β removed (Loguinov & Radha
/// (3); Bansal & Balakrishnan): per RTT `w ← w + α/w^k`, on congestion `w ← w − β·w^l`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BinomialForm {
    /// Increase exponent k (dimensionless).
    pub k: f64,
    /// Decrease exponent l (dimensionless).
    pub l: f64,
    /// Increase constant α (packets^(1+k) per RTT), > 0.
    pub alpha: f64,
    /// Decrease constant β, removed (packets^(1−l)), > 0.
    pub beta_removed: f64,
    /// The rule is this form at every window ≥ this (packets); 1 when it is at every window.
    pub from_window_pkts: f64,
}

/// How a controller's window grows and shrinks: the part that differs between papers.
pub trait WindowRule: Send {
    /// Name in the paper's notation, e.g. `GAIMD(0.31,0.875)`.
    fn name(&self) -> String;

    /// Window increase per RTT in congestion avoidance at window `cwnd` (packets per RTT, finite,
    /// ≥ 0).
    fn increase(&self, cwnd: f64) -> f64;

    /// Window after one congestion reduction from `cwnd` (packets; [`Window`] floors it at 1).
    fn decrease(&self, cwnd: f64) -> f64;

    /// The controller (re)starts at window `w0` with no congestion seen yet. History-based rules
    /// derive their first `w_max` here (Jin et al., footnote 2); when the controller starts in
    /// slow start, the first reduction replaces it before congestion avoidance can use it.
    fn start(&mut self, _w0: f64) {}

    /// A congestion epoch ended: the window was `w_max` just before the reduction and congestion
    /// avoidance resumes from `w0`.
    fn end_epoch(&mut self, _w_max: f64, _w0: f64) {}

    /// The binomial control this rule runs, when its step depends on the window alone; `None`
    /// (the default) for rules with memory, such as Jin et al.'s history-based ones.
    fn binomial(&self) -> Option<BinomialForm> {
        None
    }
}

/// How a window controller starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowConfig {
    /// Starting congestion window (packets), in [1, `MAX_WINDOW_PKTS`].
    pub initial_window: f64,
    /// Whether the controller starts in slow start (`ssthresh` = ∞) or directly in congestion
    /// avoidance at `initial_window` (what the round model wants).
    pub slow_start: bool,
    /// Reductions leave a whole number of packets (floored, at least one), as TCP stacks keep
    /// ssthresh (ns-2 `ssthresh_` is an int; Linux counts segments). At small windows this
    /// makes a reduction deeper than the rule's β (Cai et al. §III-C).
    pub integer: bool,
    /// ssthresh as ns-2.35's `slowdown()` leaves it, in whole packets and at least 2 after any
    /// reduction (its `ssthresh_` is an int). Without `integer` the window keeps its fraction
    /// (`precisionReduce_`), and slow start after a timeout stops at the packet below half the
    /// window; with it a cut to one packet leaves ssthresh 2, so the next ACK is slow start's.
    /// Window controllers built on [`Window`] only.
    pub whole_ssthresh: bool,
    /// With `integer`: a reduction applies to the whole-packet window ⌊cwnd⌋ and floors the
    /// result, ⌊decrease(⌊cwnd⌋)⌋, as ns-2.35's `slowdown()` does with `precisionReduce_`
    /// false (`(int)(decrease_num_ * window())`, `window()` being `(int)cwnd_`); without it
    /// ⌊decrease(cwnd)⌋. For AIMD the ns-2.35 cut is deeper by β·frac(cwnd) before the floor,
    /// less than β packets. Window controllers built on [`Window`] only.
    pub cut_from_whole_window: bool,
}

impl WindowConfig {
    /// Congestion avoidance from window `w` (packets), no slow start: how the round model
    /// starts a flow.
    pub fn avoidance_at(w: f64) -> Self {
        WindowConfig {
            initial_window: w,
            slow_start: false,
            integer: false,
            whole_ssthresh: false,
            cut_from_whole_window: false,
        }
    }

    /// Checks the starting window, naming the field.
    pub fn validate(&self) -> Result<()> {
        check_range(
            "controller.initial_window",
            self.initial_window,
            1.0,
            MAX_WINDOW_PKTS,
        )?;
        Ok(())
    }
}

impl Default for WindowConfig {
    /// One packet and slow start: the packet engine's TCP (ns-2 `windowInit_ 1`, as
    /// `test-suite-aimd.tcl` sets it).
    fn default() -> Self {
        WindowConfig {
            initial_window: 1.0,
            slow_start: true,
            integer: false,
            whole_ssthresh: false,
            cut_from_whole_window: false,
        }
    }
}

/// A window controller: TCP-like window state driven by a [`WindowRule`].
#[derive(Clone, Debug)]
pub struct Window<R> {
    rule: R,
    /// Congestion window (packets); finite, in [1, `MAX_WINDOW_PKTS`].
    cwnd: f64,
    /// Slow-start threshold (packets); ≥ 1, `f64::INFINITY` until the first reduction when
    /// starting in slow start.
    ssthresh: f64,
    /// When the last reduction happened (zero before the first): gap/ECN losses of packets sent
    /// before it are ignored.
    last_reduction: SimTime,
    /// Reductions floor to whole packets (see [`WindowConfig::integer`]).
    integer: bool,
    /// See [`WindowConfig::whole_ssthresh`].
    whole_ssthresh: bool,
    /// See [`WindowConfig::cut_from_whole_window`].
    cut_from_whole_window: bool,
}

impl<R: WindowRule> Window<R> {
    /// A controller with the default start (one packet, slow start).
    pub fn with_rule(rule: R) -> Self {
        let mut w = Window {
            rule,
            cwnd: 1.0,
            ssthresh: f64::INFINITY,
            last_reduction: SimTime::ZERO,
            integer: false,
            whole_ssthresh: false,
            cut_from_whole_window: false,
        };
        w.restart(WindowConfig::default());
        w
    }

    /// The same controller starting as `config` says.
    pub fn with_config(self, config: WindowConfig) -> Result<Self> {
        config.validate()?;
        Ok(self.starting(config))
    }

    /// [`Window::with_config`] for a `config` already validated ([`WindowConfig::validate`]).
    pub fn starting(mut self, config: WindowConfig) -> Self {
        self.restart(config);
        self
    }

    fn restart(&mut self, config: WindowConfig) {
        self.integer = config.integer;
        self.whole_ssthresh = config.whole_ssthresh;
        self.cut_from_whole_window = config.cut_from_whole_window;
        self.cwnd = config.initial_window;
        self.last_reduction = SimTime::ZERO;
        self.ssthresh = if config.slow_start {
            f64::INFINITY
        } else {
            config.initial_window
        };
        self.rule.start(config.initial_window);
        self.check();
    }

    /// Slow-start threshold (packets).
    pub fn ssthresh(&self) -> f64 {
        self.ssthresh
    }

    /// The increase/decrease rule this controller runs.
    pub fn rule(&self) -> &R {
        &self.rule
    }

    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Sets the congestion window (packets), within [1, `MAX_WINDOW_PKTS`].
    fn set_cwnd(&mut self, cwnd_pkts: f64) {
        self.cwnd = clamp_window(cwnd_pkts);
        self.check();
    }

    /// Whether a gap or ECN signal about a packet sent at `sent_at` is a new congestion event:
    /// a packet sent before the last reduction belongs to the event that reduction answered.
    fn new_event(&self, sent_at: SimTime) -> bool {
        sent_at >= self.last_reduction
    }

    /// A reduction to `cwnd_pkts` that a controller computed itself (DCTCP's cut by α/2):
    /// `ssthresh = cwnd = cwnd_pkts`, as [`Window::reduce`] leaves a gap or ECN reduction, and
    /// kept as it is (no whole packets).
    fn reduce_to(&mut self, now: SimTime, cwnd_pkts: f64) {
        let w_max = self.cwnd;
        self.cwnd = clamp_window(cwnd_pkts);
        self.ssthresh = self.cwnd;
        self.rule.end_epoch(w_max, self.ssthresh);
        self.last_reduction = now;
        self.check();
    }

    /// One congestion reduction; `timeout` selects TCP's timeout action.
    ///
    /// The rule's decrease applies to a congestion-avoidance window. A loss in slow start, or a
    /// timeout, halves instead whatever the rule (ns-2 `slowdown()`): slow start has
    /// just doubled the window, and half of it is the last one the path carried; after a
    /// timeout the window in flight says nothing about the path.
    fn reduce(&mut self, now: SimTime, timeout: bool) {
        let w_max = self.cwnd;
        // ns-2.35 `slowdown()` without `precisionReduce_` cuts from `window()`, int(cwnd_).
        let from = if self.integer && self.cut_from_whole_window {
            w_max.floor()
        } else {
            w_max
        };
        let mut reduced = if timeout || self.in_slow_start() {
            clamp_window(from / 2.0)
        } else {
            clamp_window(self.rule.decrease(from))
        };
        if self.integer {
            reduced = reduced.floor();
        }
        if timeout {
            // RFC 5681 §3.1; ns-2 `timeout()`: ssthresh = max(W/2, 2), cwnd = 1.
            self.ssthresh = reduced.max(MIN_SSTHRESH_PKTS);
            self.cwnd = 1.0;
        } else {
            // ns-2 `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)` (fast retransmit / ECN):
            // ssthresh = cwnd = the reduced window.
            self.ssthresh = reduced;
            self.cwnd = reduced;
        }
        if self.whole_ssthresh {
            // ns-2 `slowdown()`: `ssthresh_ = (int) decreasewin` (or halfwin), then at least 2.
            self.ssthresh = self.ssthresh.floor().max(MIN_SSTHRESH_PKTS);
        }
        self.rule.end_epoch(w_max, self.ssthresh);
        self.last_reduction = now;
        self.check();
    }

    fn check(&self) {
        debug_assert!(
            self.cwnd.is_finite() && (1.0..=MAX_WINDOW_PKTS).contains(&self.cwnd),
            "cwnd = {}",
            self.cwnd
        );
        debug_assert!(self.ssthresh >= 1.0, "ssthresh = {}", self.ssthresh);
    }
}

/// The size (bytes) of the packets `ack` acknowledges, 0 for a duplicate ACK: how a
/// model-based controller (BBR, Copa) learns the packet size that turns its pace in packets/s
/// into bits/s.
fn acked_packet_bytes(ack: &AckSample) -> u64 {
    ack.acked_bytes.checked_div(ack.acked_pkts).unwrap_or(0)
}

/// A pace of `pkts_per_s` packets of `bytes` each in bits/s, when it is finite and positive.
fn pace_bps(pkts_per_s: f64, bytes: u64) -> Option<f64> {
    let bps = pkts_per_s * bytes as f64 * 8.0;
    (bps > 0.0 && bps.is_finite()).then_some(bps)
}

/// Floors a window at one packet and caps it at `MAX_WINDOW_PKTS`. A NaN (a rule's bug, caught
/// by the debug assertion and the property tests) becomes one packet in release builds.
fn clamp_window(w: f64) -> f64 {
    debug_assert!(!w.is_nan(), "a window rule produced NaN");
    if w.is_nan() {
        1.0
    } else {
        w.clamp(1.0, MAX_WINDOW_PKTS)
    }
}

impl<R: WindowRule + 'static> Controller for Window<R> {
    fn name(&self) -> String {
        self.rule.name()
    }

    /// `ack.growth_pkts` steps per ACK that acknowledges new data: one, as ns-2's `opencwnd()`
    /// and RFC 5681 §3.1 count (a cumulative jump after a retransmission fills a hole is one
    /// step), or one per packet acknowledged as Linux counts (net/ipv4/tcp_cong.c: slow start
    /// adds a packet per packet acknowledged up to ssthresh and hands the rest to congestion
    /// avoidance, `tcp_slow_start`; congestion avoidance adds the rule's increase at this ACK's
    /// window once per window of packets acknowledged, `tcp_cong_avoid_ai`). No growth in loss
    /// recovery or while the receiver window limits.
    fn on_ack(&mut self, ack: &AckSample) {
        if ack.acked_pkts == 0 || ack.in_recovery || ack.rwnd_limited {
            return;
        }
        let steps = ack.growth_pkts as f64;
        // Slow start: a packet per step while below ssthresh (ns-2 `opencwnd()`); the steps
        // it takes are those that begin below ssthresh.
        let slow = if self.in_slow_start() {
            steps.min((self.ssthresh - self.cwnd).ceil())
        } else {
            0.0
        };
        let rest = steps - slow;
        self.cwnd = clamp_window(self.cwnd + slow);
        if rest > 0.0 {
            // The per-RTT increase spread over the ~cwnd packets of one RTT (ns-2 `opencwnd()`).
            let inc = self.rule.increase(self.cwnd);
            self.cwnd = clamp_window(self.cwnd + inc * rest / self.cwnd);
        }
        self.check();
    }

    fn on_loss(&mut self, loss: &LossEvent) {
        match loss.kind {
            LossKind::Timeout => self.reduce(loss.now, true),
            LossKind::Gap | LossKind::Ecn => {
                if self.new_event(loss.sent_at) {
                    self.reduce(loss.now, false);
                }
            }
        }
    }

    fn on_round(&mut self, round: &RoundSample) {
        if round.congested {
            self.reduce(round.now, false);
        } else if self.in_slow_start() {
            // One RTT of slow start doubles the window; per ACK it would stop at ssthresh, so
            // the aggregate step does too.
            self.cwnd = clamp_window((2.0 * self.cwnd).min(self.ssthresh));
        } else {
            let inc = self.rule.increase(self.cwnd);
            self.cwnd = clamp_window(self.cwnd + inc);
        }
        self.check();
    }

    fn window(&self) -> f64 {
        self.cwnd
    }

    fn binomial(&self) -> Option<BinomialForm> {
        self.rule.binomial()
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("ssthresh_pkts", self.ssthresh));
    }

    fn set_window(&mut self, cwnd_pkts: f64) {
        self.cwnd = clamp_window(cwnd_pkts);
        self.ssthresh = self.ssthresh.min(self.cwnd).max(1.0);
        self.check();
    }
}

/// Largest denominator [`fraction`] writes.
const MAX_DENOMINATOR: i64 = 64;

/// A parameter as the papers that write fractions do (Jin et al., binomial): `1/16`, `2/3`,
/// `-1/2`, `1`; values that are no simple fraction fall back to [`decimal`].
pub(crate) fn fraction(x: f64) -> String {
    for q in 1..=MAX_DENOMINATOR {
        let p = (x * q as f64).round();
        if (x - p / q as f64).abs() <= 1e-9 * x.abs().max(1.0) {
            return if q == 1 {
                format!("{p}")
            } else {
                format!("{p}/{q}")
            };
        }
    }
    decimal(x)
}

/// Significant digits [`decimal`] keeps.
const DECIMAL_DIGITS: i32 = 6;

/// A parameter as the papers that write decimals do (Yang & Lam, Cai et al.): `0.31`, `0.875`;
/// rounded to six significant digits so that arithmetic noise (`0.19999999999999998`) does not
/// reach a name.
pub(crate) fn decimal(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let scale = 10f64.powi(DECIMAL_DIGITS - 1 - x.abs().log10().floor() as i32);
    format!("{}", (x * scale).round() / scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::{assert_close, Driver};

    /// The simplest rule: +1 per RTT, halve on loss (TCP), to test the shared semantics alone.
    #[derive(Debug)]
    struct Halve;
    impl WindowRule for Halve {
        fn name(&self) -> String {
            "halve".into()
        }
        fn increase(&self, _cwnd: f64) -> f64 {
            1.0
        }
        fn decrease(&self, cwnd: f64) -> f64 {
            cwnd / 2.0
        }
    }

    fn at(w: f64) -> Driver<Window<Halve>> {
        let config = WindowConfig::avoidance_at(w);
        Driver::started(Window::with_rule(Halve).with_config(config).unwrap())
    }

    #[test]
    fn slow_start_doubles_per_round_of_acks() {
        let mut d = Driver::new(Window::with_rule(Halve));
        assert_eq!(d.controller.window(), 1.0);
        for expected in [2.0, 4.0, 8.0, 16.0] {
            d.ack_round();
            assert_eq!(d.controller.window(), expected);
        }
        d.rounds(3, false);
        assert_eq!(d.controller.window(), 128.0);
    }

    #[test]
    fn per_packet_growth_counts_each_packet_as_linux_does() {
        // An ACK of two packets counted per packet grows the window as two ACKs of one
        // (net/ipv4/tcp_cong.c tcp_cong_avoid_ai: +1 per window of packets acknowledged),
        // where counted per ACK it grows half as fast (RFC 5681 §3.1 with delayed ACKs).
        let round = |growth_pkts: u64| {
            let mut d = at(40.0);
            for _ in 0..20 {
                let mut ack = d.ack(2);
                ack.growth_pkts = growth_pkts;
                d.controller.on_ack(&ack);
            }
            d.controller.window()
        };
        // 20 ACKs of 2 at w ≈ 40: about one packet per packet-window, a half per ACK-window.
        assert_close(round(2), 40.0 + 40.0 / 40.0, 1e-3);
        assert_close(round(1), 40.0 + 20.0 / 40.0, 1e-3);
        // Slow start: a packet per packet up to ssthresh, the rest in congestion avoidance
        // (tcp_slow_start returns what is left over): from 1 with ssthresh 10, ACKs of 4.
        let mut d = at(20.0);
        d.timeout();
        let mut ack = d.ack(4);
        ack.growth_pkts = 4;
        for expected in [5.0, 9.0, 10.0 + 3.0 / 10.0] {
            d.controller.on_ack(&ack);
            assert_eq!(d.controller.window(), expected);
        }
    }

    #[test]
    fn round_slow_start_stops_at_ssthresh() {
        let mut d = at(20.0);
        d.timeout();
        assert_eq!(
            (d.controller.window(), d.controller.ssthresh()),
            (1.0, 10.0)
        );
        d.rounds(4, false);
        assert_eq!(d.controller.window(), 10.0, "1, 2, 4, 8, then capped at 10");
        d.rounds(1, false);
        assert_eq!(
            d.controller.window(),
            11.0,
            "congestion avoidance from ssthresh on"
        );
    }

    #[test]
    fn reduction_at_most_once_per_rtt() {
        let mut d = at(40.0);
        d.loss().loss().ecn();
        assert_eq!(
            d.controller.window(),
            20.0,
            "losses sent before the reduction are one event"
        );
        d.ack_round();
        let before = d.controller.window();
        d.loss();
        assert_eq!(
            d.controller.window(),
            before / 2.0,
            "a loss one RTT later is a new event"
        );
    }

    #[test]
    fn timeout_always_acts_and_floors_ssthresh_at_two() {
        let mut d = at(3.0);
        d.loss();
        d.timeout();
        assert_eq!(d.controller.window(), 1.0);
        assert_eq!(d.controller.ssthresh(), 2.0, "max(1.5 / 2, 2)");
    }

    #[test]
    fn window_never_below_one_packet() {
        let mut d = at(1.0);
        d.rounds(5, true);
        assert_eq!(d.controller.window(), 1.0);
    }

    #[test]
    fn integer_windows_floor_every_reduction() {
        let config = WindowConfig {
            integer: true,
            ..WindowConfig::avoidance_at(13.0)
        };
        // 7/8 of 13 packets is 11.375; a whole-packet stack keeps 11.
        let gaimd = Aimd::gaimd(0.31, 0.875);
        let mut d = Driver::started(gaimd.with_config(config).unwrap());
        d.loss();
        assert_eq!(d.controller.window(), 11.0);
    }

    /// Whole-packet windows from `w`, cutting from ⌊cwnd⌋ when `whole` (ns-2.35 without
    /// `precisionReduce_`).
    fn cut_config(w: f64, whole: bool) -> WindowConfig {
        WindowConfig {
            integer: true,
            cut_from_whole_window: whole,
            ..WindowConfig::avoidance_at(w)
        }
    }

    #[test]
    fn cut_from_whole_window_applies_the_rule_to_the_whole_packet_window() {
        // ns-2.35 tcp.cc slowdown(), precisionReduce_ false: cwnd_ = (int)(decrease_num_ *
        // window()), window() = (int)cwnd_. From 13.9 packets with decrease_num_ 0.875:
        // (int)(0.875 · 13) = (int)11.375 = 11; floored after the cut, ⌊0.875 · 13.9⌋ =
        // ⌊12.1625⌋ = 12.
        let gaimd = || Aimd::gaimd(0.31, 0.875);
        for (whole, kept) in [(false, 12.0), (true, 11.0)] {
            let mut d = Driver::started(gaimd().with_config(cut_config(13.9, whole)).unwrap());
            d.loss();
            assert_eq!(d.controller.window(), kept, "whole: {whole}");
            assert_eq!(d.controller.ssthresh(), kept, "whole: {whole}");
        }
        // Binomial controls (windowOption_ 6): (int)(window() − (1 − decrease_num_) ·
        // window()^l). SQRT removing 0.5·√w from 10.8 packets: (int)(10 − 0.5 · 3.1623) =
        // (int)8.419 = 8; from the fractional window ⌊10.8 − 0.5 · 3.2863⌋ = ⌊9.157⌋ = 9.
        for (whole, kept) in [(false, 9.0), (true, 8.0)] {
            let sqrt = Binomial::sqrt(1.0, 0.5).with_config(cut_config(10.8, whole));
            let mut d = Driver::started(sqrt.unwrap());
            d.loss();
            assert_eq!(d.controller.window(), kept, "whole: {whole}");
        }
        // A timeout halves: ssthresh_ = (int)(window() / 2) = (int)(13 / 2) = 6, which is
        // ⌊13.9 / 2⌋ as well.
        let mut d = Driver::started(gaimd().with_config(cut_config(13.9, true)).unwrap());
        d.timeout();
        assert_eq!((d.controller.window(), d.controller.ssthresh()), (1.0, 6.0));
        // Below two packets the cut leaves (int)(0.875 · 1) = 0, which slowdown() raises to 1.
        let mut d = Driver::started(gaimd().with_config(cut_config(1.9, true)).unwrap());
        d.loss();
        assert_eq!(d.controller.window(), 1.0);
    }

    #[test]
    fn whole_ssthresh_keeps_ssthresh_at_two_with_integer_windows() {
        // ns-2.35 slowdown() without precisionReduce_ from cwnd_ 2.5: cwnd_ = (int)(0.875 · 2)
        // = 1 and ssthresh_ = 1, raised to 2; opencwnd() then adds 1 (slow start, cwnd_ <
        // ssthresh_) on the next ACK. With ssthresh 1 the ACK adds 0.31 / 1 instead.
        for (whole, after_ack) in [(true, 2.0), (false, 1.31)] {
            let config = WindowConfig {
                whole_ssthresh: whole,
                ..cut_config(2.5, true)
            };
            let mut d = Driver::started(Aimd::gaimd(0.31, 0.875).with_config(config).unwrap());
            d.loss();
            let kept = if whole { 2.0 } else { 1.0 };
            assert_eq!(
                (d.controller.window(), d.controller.ssthresh()),
                (1.0, kept)
            );
            d.acks(1);
            assert_close(d.controller.window(), after_ack, 1e-12);
        }
    }

    #[test]
    fn whole_ssthresh_floors_ssthresh_and_keeps_the_window_fraction() {
        // ns-2.35 `slowdown()` with precisionReduce_: cwnd_ = 0.875 · 13 = 11.375, while the
        // int ssthresh_ keeps 11; after a timeout ssthresh_ = (int)(11.375 / 2) = 5.
        let config = WindowConfig {
            whole_ssthresh: true,
            ..WindowConfig::avoidance_at(13.0)
        };
        let mut d = Driver::started(Aimd::gaimd(0.31, 0.875).with_config(config).unwrap());
        d.loss();
        assert_eq!(d.controller.window(), 11.375);
        assert_eq!(d.controller.ssthresh(), 11.0);
        d.now += d.rtt;
        d.timeout();
        assert_eq!((d.controller.window(), d.controller.ssthresh()), (1.0, 5.0));
        // At least 2, as ns-2 keeps it, after a reduction from a small window.
        let config = WindowConfig {
            whole_ssthresh: true,
            ..WindowConfig::avoidance_at(2.0)
        };
        let mut d = Driver::started(Aimd::gaimd(0.31, 0.875).with_config(config).unwrap());
        d.loss();
        assert_eq!(
            (d.controller.window(), d.controller.ssthresh()),
            (1.75, 2.0)
        );
    }

    #[test]
    fn rejects_initial_window_below_one() {
        let config = WindowConfig {
            initial_window: 0.5,
            ..WindowConfig::default()
        };
        let err = Window::with_rule(Halve).with_config(config).unwrap_err();
        assert!(
            err.to_string().contains("controller.initial_window"),
            "{err}"
        );
    }

    #[test]
    fn fractions_as_the_papers_write_them() {
        assert_eq!(fraction(1.0 / 16.0), "1/16");
        assert_eq!(fraction(0.1), "1/10");
        assert_eq!(fraction(2.0 / 3.0), "2/3");
        assert_eq!(fraction(1.0), "1");
        assert_eq!(fraction(-0.5), "-1/2");
        assert_eq!(fraction(0.0), "0");
        assert_eq!(fraction(std::f64::consts::PI), "3.14159");
    }

    #[test]
    fn decimals_drop_arithmetic_noise() {
        assert_eq!(decimal(0.875), "0.875");
        assert_eq!(decimal(0.31), "0.31");
        assert_eq!(decimal(3.0 * (1.0 - 0.875) / (1.0 + 0.875)), "0.2");
        assert_eq!(decimal(4.0 * (1.0 - 0.875f64.powi(2)) / 3.0), "0.3125");
        assert_eq!(decimal(12.0), "12");
    }
}
