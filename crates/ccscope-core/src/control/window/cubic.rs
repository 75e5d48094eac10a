//! CUBIC as RFC 9438 specifies it: after a congestion event the window follows the cubic
//! `W_cubic(t) = C·(t − K)³ + W_max` of the time since the congestion-avoidance stage began,
//! concave up to the window of the last event and convex beyond it, never below the window an
//! AIMD(α_cubic, β_cubic) flow would have (the Reno-friendly region); slow start is classic
//! (RFC 5681) or HyStart++ (RFC 9406).
//!
//! What is modelled, clause by clause:
//! - §4.2 the cubic (Figure 1) with K from Figure 2, the per-ACK target `W_cubic(t + RTT)`
//!   clamped to [cwnd, 1.5·cwnd] and approached by `(target − cwnd)/cwnd` per new ACK (§4.4,
//!   §4.5), RTT the smoothed RTT (RFC 6298);
//! - §4.3 the Reno-friendly estimate `W_est` (Figure 4) with α_cubic = 3(1 − β)/(1 + β), and
//!   α = 1 once `W_est` ≥ `cwnd_prior`;
//! - §4.6 the multiplicative decrease by β_cubic on a loss or an ECN-Echo, at most once per RTT
//!   (a signal about a packet sent before the last reduction belongs to the same event); §4.7
//!   fast convergence; §4.8 a timeout (cwnd = 1, ssthresh by β, then K = 0 and `W_max` = the
//!   window the next congestion-avoidance stage starts from); §4.9 the undo of a spurious event
//!   ([`Controller::on_undo`]); §4.10 slow start, with §4.10's K = 0 after a HyStart++ exit;
//! - §5.8 application-limited flows: the window does not grow, and the cubic's clock stops,
//!   while less than half the window is in flight (RFC 7661 §4.3's test of a validated
//!   window); an idle sender's wait is left out of the clock too.
//!
//! Choices the RFC leaves open, made as Linux `net/ipv4/tcp_cubic.c` does: the stage's clock
//! `t_epoch` starts at the first new ACK of congestion avoidance (time in fast recovery is not
//! counted); a stage that starts above `W_max` takes `W_max` = `cwnd_epoch`, K = 0; ssthresh is
//! computed from cwnd, not the flight size (§4.6 allows it with the validated-window test
//! above). In the Reno-friendly region the window rises to `W_est` and never falls to it.
//!
//! Option `linux_friendly` (off by default) counts `W_est` as Linux `tcp_cubic.c` does (2.6.22,
//! the module ns-2.35's `Agent/TCP/Linux` runs, and since): one packet per
//! `cwnd·⌊8(1024 + b)/(3(1024 − b))⌋/8` ACKs with b = 1024·β, that is α = 8/⌊…⌋ per RTT
//! (0.348 at β = 819/1024 where Figure 4 gives 0.333), and never α = 1: the kernel has no
//! `cwnd_prior` test. Its whole-packet `tcp_cwnd` steps are not modelled. Option
//! `ssthresh_inclusive` (off by default) slow-starts at cwnd = ssthresh too, as 2.6.22's
//! `bictcp_cong_avoid` does (`snd_cwnd <= snd_ssthresh`; RFC 5681 §3.1 allows either at
//! equality): the first ACK after a reduction adds a packet.
//!
//! The round model's per-RTT form (one call of [`Controller::on_round`] per interval, its
//! clock advanced by the interval): the window offered for the interval that starts at `t` is
//! `W_cubic(t)` clamped to [cwnd, 1.5·cwnd], the reading of RFC 9438 Appendix C (the window
//! of the n-th RTT of a stage is `W_cubic((n − 1)·RTT)`); `W_est` grows by α per interval;
//! slow start doubles per interval (HyStart++: ×1.25 in conservative slow start).

use super::{clamp_window, decimal, friendly_alpha_cai, WindowConfig, MAX_WINDOW_PKTS};
use crate::control::{AckSample, Controller, LossEvent, LossKind, RoundSample};
use crate::time::SimTime;

/// CUBIC's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicParams {
    /// C, the aggressiveness of the cubic (packets/s³), > 0; RFC 9438 §5.1: SHOULD be 0.4.
    pub c: f64,
    /// β_cubic, the fraction of the window kept by a reduction, in (0, 1); RFC 9438 §4.6:
    /// SHOULD be 0.7.
    pub beta: f64,
    /// Fast convergence (RFC 9438 §4.7): SHOULD be on, except for a single flow alone.
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 §4.3).
    pub reno_friendly: bool,
    /// HyStart++ (RFC 9406) in the initial slow start, else classic slow start (RFC 5681);
    /// RFC 9438 §4.10: SHOULD use HyStart++.
    pub hystart: bool,
    /// `W_est` as Linux `tcp_cubic.c` counts it (see the module comment); else RFC 9438 §4.3.
    pub linux_friendly: bool,
    /// Slow start at cwnd = ssthresh too (Linux 2.6.22); else below ssthresh only.
    pub ssthresh_inclusive: bool,
}

impl Default for CubicParams {
    /// RFC 9438's recommended values: C = 0.4, β = 0.7, every mechanism on.
    fn default() -> Self {
        CubicParams {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            hystart: true,
            linux_friendly: false,
            ssthresh_inclusive: false,
        }
    }
}

/// `W_cubic(t)`, RFC 9438 Figure 1: the window (packets) `t` seconds into a
/// congestion-avoidance stage whose cubic has constant `c`, plateau `w_max` and K = `k_s`.
pub fn w_cubic(c: f64, k_s: f64, w_max: f64, t_s: f64) -> f64 {
    c * (t_s - k_s).powi(3) + w_max // RFC 9438 Figure 1
}

/// K (seconds), RFC 9438 Figure 2: how long the cubic takes from `cwnd_epoch` to `w_max`.
pub fn k_seconds(c: f64, w_max: f64, cwnd_epoch: f64) -> f64 {
    ((w_max - cwnd_epoch) / c).cbrt() // RFC 9438 Figure 2
}

/// Linux `tcp_cubic.c`'s additive increase of `W_est` (packets per RTT, one ACK per packet):
/// 8/`beta_scale`, `beta_scale` = ⌊⌊8(1024 + b)/3⌋/(1024 − b)⌋ in integers, b = 1024·β rounded.
pub fn linux_friendly_alpha(beta: f64) -> f64 {
    let b = (1024.0 * beta).round();
    let scale = ((8.0 * (1024.0 + b) / 3.0).floor() / (1024.0 - b)).floor();
    8.0 / scale.max(1.0)
}

/// The congestion-control state: what RFC 9438 §4.9 saves before a reduction and restores when
/// the congestion event proves spurious.
#[derive(Clone, Copy, Debug, PartialEq)]
struct State {
    /// Congestion window (packets), finite, in [1, `MAX_WINDOW_PKTS`].
    cwnd: f64,
    /// Slow-start threshold (packets), ≥ 1; infinite until the first reduction (when starting
    /// in slow start).
    ssthresh: f64,
    /// `cwnd_prior` (packets): cwnd when ssthresh was last set.
    cwnd_prior: f64,
    /// `W_max` (packets): cwnd before the last reduction, lowered by fast convergence; `None`
    /// before the first congestion event, after a timeout and after a HyStart++ exit, when the
    /// next stage takes its own starting window (§4.8, §4.10).
    w_max: Option<f64>,
    /// The congestion-avoidance stage under way; `None` from a reduction until the stage
    /// starts.
    epoch: Option<Epoch>,
}

/// One congestion-avoidance stage.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Epoch {
    /// `t_epoch`: when the stage started, moved later by the time the flow was
    /// application-limited (§4.2).
    start: SimTime,
    /// K (seconds), ≥ 0: Figure 2 at the stage's start.
    k_s: f64,
    /// `W_est` (packets): the Reno-friendly estimate, `cwnd_epoch` at the start (Figure 4).
    w_est: f64,
}

// RFC 9406 §4.3's recommended constants.
const MIN_RTT_THRESH: SimTime = SimTime::from_ms(4);
const MAX_RTT_THRESH: SimTime = SimTime::from_ms(16);
const MIN_RTT_DIVISOR: u64 = 8;
const N_RTT_SAMPLE: u64 = 8;
const CSS_GROWTH_DIVISOR: f64 = 4.0;
const CSS_ROUNDS: u32 = 5;
/// L for a sender that does not pace (packets per ACK).
const L_UNPACED: f64 = 8.0;

/// HyStart++ (RFC 9406 §4.2): per round, the minimum RTT; a rise of it ends standard slow start
/// for conservative slow start (CSS), which ends in congestion avoidance after `CSS_ROUNDS`
/// rounds, or returns to slow start when the RTT falls back.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct HyStart {
    /// Packets acknowledged so far: the controller's sequence numbers (they count from 0).
    acked_pkts: u64,
    /// `windowEnd`: the round ends when `acked_pkts` reaches it (`None` before the first ACK).
    window_end: Option<u64>,
    /// `lastRoundMinRTT` and `currentRoundMinRTT` (`None`: infinity).
    last_round_min: Option<SimTime>,
    current_round_min: Option<SimTime>,
    /// `rttSampleCount` of the current round.
    samples: u64,
    /// `cssBaselineMinRtt`: `Some` while in CSS.
    css_baseline: Option<SimTime>,
    /// Rounds completed in CSS.
    css_rounds: u32,
}

impl HyStart {
    /// The divisor of slow start's growth: 1 in standard slow start, `CSS_GROWTH_DIVISOR` in
    /// CSS (RFC 9406 §4.2).
    fn divisor(&self) -> f64 {
        if self.css_baseline.is_some() {
            CSS_GROWTH_DIVISOR
        } else {
            1.0
        }
    }

    /// A round begins: the last round's minimum is the current one's.
    fn start_round(&mut self) {
        self.last_round_min = self.current_round_min.take();
        self.samples = 0;
    }

    /// A round ends; true when CSS has lasted `CSS_ROUNDS` rounds: slow start is over.
    fn end_round(&mut self) -> bool {
        if self.css_baseline.is_some() {
            self.css_rounds += 1;
        }
        self.css_rounds >= CSS_ROUNDS
    }

    /// `n` RTT samples of `rtt`, then the delay-increase test (slow start) or the test of a
    /// spurious exit (CSS).
    fn sample(&mut self, rtt: SimTime, n: u64) {
        let current = self.current_round_min.map_or(rtt, |m| m.min(rtt));
        self.current_round_min = Some(current);
        self.samples += n;
        let Some(last) = self.last_round_min.filter(|_| self.samples >= N_RTT_SAMPLE) else {
            return;
        };
        match self.css_baseline {
            None => {
                let thresh =
                    SimTime(last.ns() / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                if current >= last + thresh {
                    self.css_baseline = Some(current);
                    self.css_rounds = 0;
                }
            }
            Some(baseline) if current < baseline => self.css_baseline = None,
            Some(_) => {}
        }
    }

    /// One new ACK in the initial slow start; true when slow start is over.
    fn on_ack(&mut self, ack: &AckSample) -> bool {
        self.acked_pkts += ack.acked_pkts;
        let mut over = false;
        if self.window_end.is_none_or(|end| self.acked_pkts >= end) {
            if self.window_end.is_some() {
                over = self.end_round();
            }
            self.start_round();
            // SND.NXT when the round begins: what is acknowledged plus what is in flight.
            self.window_end = Some(self.acked_pkts + ack.in_flight_pkts);
        }
        if let Some(rtt) = ack.rtt {
            self.sample(rtt, 1);
        }
        over
    }

    /// One round of the round model, every packet of `cwnd` an RTT sample of `rtt`; true when
    /// slow start is over.
    fn on_round(&mut self, rtt: SimTime, cwnd: f64) -> bool {
        self.start_round();
        self.sample(rtt, cwnd as u64);
        self.end_round()
    }
}

/// CUBIC (RFC 9438), with classic or HyStart++ slow start.
#[derive(Clone, Debug)]
pub struct Cubic {
    params: CubicParams,
    /// α_cubic = 3(1 − β)/(1 + β) (packets per RTT), RFC 9438 §4.3: the additive increase
    /// that gives AIMD(α, β) Reno's average window (Figure 3), Cai et al.'s rule (13).
    alpha: f64,
    s: State,
    /// The state before the last loss or timeout, until an undo or the next one (§4.9).
    undo: Option<State>,
    /// When the last reduction happened: gap/ECN signals of packets sent before it are ignored.
    last_reduction: SimTime,
    /// A timeout happened and no new data was acknowledged since: a further timeout is of a
    /// segment the timer already retransmitted, and RFC 5681 §3.1 holds ssthresh.
    timed_out: bool,
    /// When the last ACK arrived, and whether it left nothing in flight.
    last_ack: SimTime,
    idle_after_last_ack: bool,
    /// The round model's clock at its last call (the end of that interval).
    last_round: Option<SimTime>,
    hystart: HyStart,
    /// Reductions floor to whole packets (see [`WindowConfig::integer`]).
    integer: bool,
}

impl Cubic {
    /// CUBIC with `params`, starting as [`WindowConfig::default`] says. Trusts its arguments:
    /// the catalogue ([`crate::control::catalog`]) checks them.
    pub fn new(params: CubicParams) -> Self {
        Cubic {
            alpha: if params.linux_friendly {
                linux_friendly_alpha(params.beta)
            } else {
                friendly_alpha_cai(params.beta)
            },
            params,
            s: State {
                cwnd: 1.0,
                ssthresh: f64::INFINITY,
                cwnd_prior: 1.0,
                w_max: None,
                epoch: None,
            },
            undo: None,
            last_reduction: SimTime::ZERO,
            timed_out: false,
            last_ack: SimTime::ZERO,
            idle_after_last_ack: false,
            last_round: None,
            hystart: HyStart::default(),
            integer: false,
        }
        .starting(WindowConfig::default())
    }

    /// The same controller (re)starting as `config` says (validated by the caller).
    pub fn starting(mut self, config: WindowConfig) -> Self {
        let w = config.initial_window;
        self.s = State {
            cwnd: w,
            ssthresh: if config.slow_start { f64::INFINITY } else { w },
            cwnd_prior: w,
            w_max: None,
            epoch: None,
        };
        self.integer = config.integer;
        self
    }

    /// Slow-start threshold (packets).
    pub fn ssthresh(&self) -> f64 {
        self.s.ssthresh
    }

    fn in_slow_start(&self) -> bool {
        self.s.cwnd < self.s.ssthresh
            || (self.params.ssthresh_inclusive && self.s.cwnd == self.s.ssthresh)
    }

    /// HyStart++ runs in the initial slow start only, while ssthresh is still infinite
    /// (RFC 9406 §4.2); later slow starts are classic.
    fn hystart_on(&self) -> bool {
        self.params.hystart && self.s.ssthresh == f64::INFINITY
    }

    /// `W_cubic(t)` of the stage `e` (`W_max` is set once a stage has begun).
    fn w_cubic(&self, e: &Epoch, t_s: f64) -> f64 {
        let w_max = self.s.w_max.unwrap_or(self.s.cwnd);
        w_cubic(self.params.c, e.k_s, w_max, t_s)
    }

    /// The stage under way, or one that starts at `start` from the current window: K from
    /// Figure 2, or K = 0 and `W_max` = cwnd_epoch when there is no `W_max` to return to
    /// (§4.8, §4.10) or the window is already above it; `W_est` = cwnd_epoch (§4.3).
    fn epoch(&mut self, start: SimTime) -> Epoch {
        if let Some(e) = self.s.epoch {
            return e;
        }
        let cwnd = self.s.cwnd;
        let w_max = self.s.w_max.map_or(cwnd, |w| w.max(cwnd));
        self.s.w_max = Some(w_max);
        let e = Epoch {
            start,
            k_s: k_seconds(self.params.c, w_max, cwnd),
            w_est: cwnd,
        };
        self.s.epoch = Some(e);
        e
    }

    /// The additive increase of `W_est`: α_cubic until `W_est` reaches `cwnd_prior`, then 1
    /// (RFC 9438 §4.3), or α throughout with [`CubicParams::linux_friendly`].
    fn est_alpha(&self, w_est: f64) -> f64 {
        if w_est >= self.s.cwnd_prior && !self.params.linux_friendly {
            1.0
        } else {
            self.alpha
        }
    }

    /// One step of congestion avoidance at stage time `t_s`: `W_est` grows by `est_growth`
    /// times its α; in the Reno-friendly region (`W_cubic(t) < W_est`, §4.3) the window rises
    /// to `W_est`, otherwise it moves `share` of the way to `target` (§4.4, §4.5).
    fn avoid(&mut self, mut e: Epoch, t_s: f64, est_growth: f64, target: f64, share: f64) {
        let cwnd = self.s.cwnd;
        if self.params.reno_friendly {
            e.w_est += self.est_alpha(e.w_est) * est_growth; // RFC 9438 Figure 4
        }
        let next = if self.params.reno_friendly && self.w_cubic(&e, t_s) < e.w_est {
            cwnd.max(e.w_est)
        } else {
            // §4.2: the target is bounded by cwnd and 1.5·cwnd.
            cwnd + (target.clamp(cwnd, 1.5 * cwnd) - cwnd) * share
        };
        self.s.cwnd = clamp_window(next);
        self.s.epoch = Some(e);
    }

    /// Slow start grows by `inc` packets (capped at ssthresh); `over`: HyStart++ ends it, and
    /// congestion avoidance starts from this window with K = 0 (RFC 9406 §4.2, RFC 9438
    /// §4.10).
    fn slow_start(&mut self, inc: f64, over: bool) {
        let cap = self.s.ssthresh
            + if self.params.ssthresh_inclusive {
                1.0
            } else {
                0.0
            };
        self.s.cwnd = clamp_window((self.s.cwnd + inc).min(cap));
        if over {
            self.s.ssthresh = self.s.cwnd;
            self.s.cwnd_prior = self.s.cwnd;
            self.s.w_max = None;
        }
    }

    /// A congestion event at `now`: a loss or an ECN mark (§4.6, §4.7) or a timeout (§4.8).
    fn reduce(&mut self, now: SimTime, kind: LossKind) {
        let cwnd = self.s.cwnd;
        let beta = self.params.beta;
        let floor = |w: f64| if self.integer { w.floor() } else { w };
        if kind == LossKind::Timeout {
            if !self.timed_out {
                self.undo = Some(self.s);
                // §4.8: ssthresh as §4.6 sets it; RFC 5681 §3.1: a repeated timeout holds it.
                self.s.ssthresh = floor(cwnd * beta).max(2.0);
                self.s.cwnd_prior = cwnd;
            }
            self.s.cwnd = 1.0; // RFC 5681 §3.1: the loss window
            self.s.w_max = None;
            self.timed_out = true;
        } else {
            self.undo = (kind == LossKind::Gap).then_some(self.s);
            // §4.7 fast convergence, before the reduction.
            self.s.w_max = Some(match self.s.w_max {
                Some(w_max) if self.params.fast_convergence && cwnd < w_max => {
                    cwnd * (1.0 + beta) / 2.0
                }
                _ => cwnd,
            });
            // §4.6, Figure 5: at least 2 packets after a loss, 1 after an ECN-Echo.
            let ssthresh = floor(cwnd * beta);
            self.s.cwnd_prior = cwnd;
            let least = if kind == LossKind::Ecn { 1.0 } else { 2.0 };
            self.s.cwnd = clamp_window(ssthresh.max(least));
            self.s.ssthresh = ssthresh.max(2.0);
        }
        self.s.epoch = None;
        self.last_reduction = now;
        self.check();
    }

    fn check(&self) {
        debug_assert!(
            self.s.cwnd.is_finite() && (1.0..=MAX_WINDOW_PKTS).contains(&self.s.cwnd),
            "cwnd = {}",
            self.s.cwnd
        );
        debug_assert!(self.s.ssthresh >= 1.0, "ssthresh = {}", self.s.ssthresh);
    }
}

impl Controller for Cubic {
    fn name(&self) -> String {
        format!(
            "CUBIC({},{})",
            decimal(self.params.c),
            decimal(self.params.beta)
        )
    }

    /// Grows the window on a new ACK outside recovery, when neither the receiver window nor
    /// the application limits the sender (RFC 9438 §4.2: CUBIC increases only on new ACKs).
    fn on_ack(&mut self, ack: &AckSample) {
        let since = ack.now - self.last_ack;
        let idle = std::mem::replace(&mut self.idle_after_last_ack, ack.in_flight_pkts == 0);
        self.last_ack = ack.now;
        self.timed_out &= ack.acked_pkts == 0;
        if ack.acked_pkts == 0 || ack.in_recovery || ack.rwnd_limited {
            return;
        }
        let rtt = ack.srtt.or(ack.rtt).unwrap_or(SimTime::ZERO);
        // §5.8: the cubic's clock leaves out application-limited time: the time since the
        // last ACK when less than half the window was in flight before this one (RFC 7661
        // §4.3), and an idle sender's wait (more than two RTTs after an ACK that left nothing
        // in flight) less the RTT of its first packet.
        let before = (ack.in_flight_pkts + ack.delivered_pkts) as f64;
        let limited = 2.0 * before < self.s.cwnd;
        let paused = if limited {
            since
        } else if idle && since > rtt + rtt {
            since - rtt
        } else {
            SimTime::ZERO
        };
        if let Some(e) = &mut self.s.epoch {
            e.start += paused;
        }
        if limited {
            return;
        }
        let acked = ack.acked_pkts as f64;
        // Steps of growth this ACK counts (the transport's `growth`): 1, or one per packet.
        let mut steps = ack.growth_pkts as f64;
        if self.in_slow_start() {
            if self.hystart_on() {
                // RFC 9406 §4.2: cwnd += min(N, L·SMSS), divided in CSS.
                let over = self.hystart.on_ack(ack);
                self.slow_start(acked.min(L_UNPACED) / self.hystart.divisor(), over);
                steps = 0.0;
            } else {
                // RFC 5681 §3.1, eq. (2), a packet per step; the steps that find the window at
                // ssthresh go to congestion avoidance (net/ipv4/tcp_cong.c `tcp_slow_start`).
                let cwnd = self.s.cwnd;
                self.slow_start(steps, false);
                steps -= (self.s.cwnd - cwnd).ceil();
            }
        }
        if steps > 0.0 && !self.in_slow_start() {
            let e = self.epoch(ack.now);
            let t = (ack.now - e.start).secs();
            let target = self.w_cubic(&e, t + rtt.secs());
            let cwnd = self.s.cwnd;
            // §4.2 per ACK, or per packet acknowledged as Linux's `tcp_cong_avoid_ai`.
            self.avoid(e, t, acked / cwnd, target, steps / cwnd);
        }
        self.check();
    }

    fn on_loss(&mut self, loss: &LossEvent) {
        match loss.kind {
            LossKind::Timeout => self.reduce(loss.now, LossKind::Timeout),
            kind if loss.sent_at >= self.last_reduction => self.reduce(loss.now, kind),
            _ => {}
        }
    }

    /// RFC 9438 §4.9.2: the state before the spurious event comes back, unless the window has
    /// already regrown to `cwnd_prior`.
    fn on_undo(&mut self, _now: SimTime) {
        if let Some(saved) = self.undo.take() {
            if self.s.cwnd < self.s.cwnd_prior {
                self.s = saved;
            }
        }
    }

    fn on_round(&mut self, round: &RoundSample) {
        let now = round.now + round.interval;
        let since = self.last_round.map_or(round.interval, |last| now - last);
        let begun = self.last_round.unwrap_or(round.now);
        self.last_round = Some(now);
        if round.congested {
            self.reduce(now, LossKind::Gap);
            return;
        }
        let cwnd = self.s.cwnd;
        if self.in_slow_start() {
            // One RTT of ACKs: each adds a packet (or a CSS_GROWTH_DIVISOR-th of one).
            if self.hystart_on() {
                let over = self.hystart.on_round(round.interval, cwnd);
                self.slow_start(cwnd / self.hystart.divisor(), over);
            } else {
                self.slow_start(cwnd, false);
            }
        } else {
            let e = self.epoch(begun);
            let t = (now - e.start).secs();
            let target = self.w_cubic(&e, t);
            let rtts = since.secs() / round.interval.secs().max(f64::MIN_POSITIVE);
            self.avoid(e, t, rtts, target, 1.0);
        }
        self.check();
    }

    fn window(&self) -> f64 {
        self.s.cwnd
    }

    fn set_window(&mut self, cwnd_pkts: f64) {
        self.s.cwnd = clamp_window(cwnd_pkts);
        self.s.ssthresh = self.s.ssthresh.min(self.s.cwnd).max(1.0);
        self.check();
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let e = self.s.epoch;
        out.extend([
            ("ssthresh_pkts", self.s.ssthresh),
            ("w_max_pkts", self.s.w_max.unwrap_or(f64::NAN)),
            ("k_s", e.map_or(f64::NAN, |e| e.k_s)),
            ("w_est_pkts", e.map_or(f64::NAN, |e| e.w_est)),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::{assert_close, ops, Driver};
    use proptest::prelude::*;

    /// RFC 9438's C and β with the mechanisms `fast_convergence` and `reno_friendly`, classic
    /// slow start.
    fn params(fast_convergence: bool, reno_friendly: bool) -> CubicParams {
        CubicParams {
            fast_convergence,
            reno_friendly,
            hystart: false,
            ..CubicParams::default()
        }
    }

    /// In congestion avoidance at `w` packets, the driver's clock at 10 s, RTT 100 ms.
    fn at(p: CubicParams, w: f64) -> Driver<Cubic> {
        Driver::started(Cubic::new(p).starting(WindowConfig::avoidance_at(w)))
    }

    fn state(c: &Cubic, name: &str) -> f64 {
        let mut out = Vec::new();
        c.state(&mut out);
        out.into_iter().find(|(n, _)| *n == name).unwrap().1
    }

    #[test]
    fn the_cubic_and_k_are_figures_1_and_2() {
        // W_max = 100 reduced to cwnd_epoch = 70: K = ∛(30/0.4) = ∛75 s.
        let k = k_seconds(0.4, 100.0, 70.0);
        assert_close(k, 75f64.cbrt(), 1e-15);
        assert_close(w_cubic(0.4, k, 100.0, 0.0), 70.0, 1e-14);
        assert_close(w_cubic(0.4, k, 100.0, k), 100.0, 1e-15);
        // Half-way: 100 − 0.4·(K/2)³ = 100 − 0.4·75/8.
        assert_close(w_cubic(0.4, k, 100.0, k / 2.0), 96.25, 1e-14);
    }

    #[test]
    fn after_a_reduction_the_round_form_follows_the_cubic() {
        let mut d = at(params(false, false), 100.0);
        d.rounds(1, true);
        assert_close(d.controller.window(), 70.0, 1e-15);
        assert_eq!(state(&d.controller, "w_max_pkts"), 100.0);
        // Appendix C: the window of the n-th RTT of the stage is W_cubic((n − 1)·RTT).
        let expected = |t: f64| 100.0 + 0.4 * (t - 75f64.cbrt()).powi(3);
        let w = d.round_trace(50);
        assert_close(state(&d.controller, "k_s"), 75f64.cbrt(), 1e-15);
        assert_close(w[0], expected(0.1), 1e-12); // 72.084
        assert_close(w[9], expected(1.0), 1e-12); // 86.681: concave, below W_max
        assert_close(w[49], expected(5.0), 1e-12); // 100.19: convex, past K = 4.217 s
        assert!(w.windows(2).all(|p| p[1] > p[0]));
    }

    #[test]
    fn the_reno_friendly_window_grows_by_alpha_cubic_then_by_one() {
        // From 10 to 7: the cubic needs K = ∛(3/0.4) = 1.96 s to return, W_est gains
        // α_cubic = 0.529 a round until it reaches cwnd_prior = 10, then 1 (RFC 9438 §4.3).
        let mut d = at(params(false, true), 10.0);
        d.rounds(1, true);
        let w = d.round_trace(10);
        let alpha = 0.9 / 1.7;
        assert_close(w[0], 7.0 + alpha, 1e-12);
        assert_close(w[5], 7.0 + 6.0 * alpha, 1e-12); // 10.18: past cwnd_prior
        assert_close(w[9], 7.0 + 6.0 * alpha + 4.0, 1e-12); // 14.18

        // Without the region, the cubic alone: W_cubic(1 s) = 10 + 0.4·(1 − ∛7.5)³ = 9.65.
        let mut d = at(params(false, false), 10.0);
        d.rounds(1, true);
        let w = d.round_trace(10);
        assert_close(w[9], 10.0 + 0.4 * (1.0 - 7.5f64.cbrt()).powi(3), 1e-12);
    }

    #[test]
    fn linux_friendly_keeps_its_alpha_past_cwnd_prior() {
        // Linux's tcp_cubic.c: W_est gains 8/beta_scale = 8/15 a round at β = 0.7 throughout,
        // also past cwnd_prior = 10 (where RFC 9438 §4.3 raises α to 1). The cubic returns to
        // 10 only at K = 1.96 s, so after ten 100-ms rounds W_est still leads: 7 + 10·8/15.
        let p = CubicParams {
            linux_friendly: true,
            ..params(false, true)
        };
        let mut d = at(p, 10.0);
        d.rounds(1, true);
        let w = d.round_trace(10);
        let alpha = 8.0 / 15.0;
        assert_close(w[5], 7.0 + 6.0 * alpha, 1e-12);
        assert_close(w[9], 7.0 + 10.0 * alpha, 1e-12); // 12.33, against the RFC's 14.18
    }

    #[test]
    fn per_packet_growth_counts_every_packet_an_ack_acknowledges() {
        // Delayed ACKs, two packets each, counted per packet: the window follows the same
        // cubic as with an ACK per packet (RFC 9438 §4.2 per packet, as Linux's
        // tcp_cong_avoid_ai), where counting per ACK would close the gap half as fast.
        let run = |per_packet: bool, pkts: u64| {
            let mut d = at(params(false, false), 100.0);
            d.loss();
            for _ in 0..10 {
                let acks = (d.controller.window() as u64 / pkts).max(1);
                for _ in 0..acks {
                    d.now += SimTime(d.rtt.ns() / acks);
                    let mut ack = d.ack(pkts);
                    if per_packet {
                        ack.growth_pkts = pkts;
                    }
                    d.controller.on_ack(&ack);
                }
            }
            d.controller.window()
        };
        let single = run(false, 1);
        assert_close(run(true, 2), single, 1e-3);
        // Per ACK the window lags one RTT more: at t = 1 s the cubic climbs
        // 3·0.4·(∛75 − 1)² = 12.4 packets/s, 1.2 packets per 100-ms RTT.
        assert!(run(false, 2) < single - 1.0);
        // Slow start (classic): a packet per packet acknowledged, up to ssthresh, the rest
        // counted in congestion avoidance (net/ipv4/tcp_cong.c tcp_slow_start).
        let mut d = at(params(false, false), 20.0);
        d.timeout();
        assert_eq!(
            (d.controller.window(), d.controller.ssthresh()),
            (1.0, 14.0)
        );
        let two = |d: &mut Driver<Cubic>| {
            let mut ack = d.ack(2);
            ack.growth_pkts = 2;
            d.controller.on_ack(&ack);
            d.controller.window()
        };
        for expected in [3.0, 5.0, 7.0, 9.0, 11.0, 13.0] {
            assert_eq!(two(&mut d), expected);
        }
        two(&mut d);
        // 13 + 1 to ssthresh, then W_est's cubic step of one packet at 14 (K = 0, W_max = 14).
        assert!(d.controller.window() >= 14.0 && d.controller.window() < 14.1);
    }

    #[test]
    fn ack_clocked_growth_tracks_the_cubic() {
        // One ACK per packet, spread over each RTT: cwnd += (W_cubic(t + RTT) − cwnd)/cwnd
        // per ACK closes the gap to the target e-fold per RTT, so the window lags the target
        // by about one RTT and follows W_cubic(t) itself (RFC 9438 §4.2, Appendix C).
        let mut d = at(params(false, false), 100.0);
        d.loss();
        let start = d.now;
        for _ in 0..60 {
            d.ack_round();
            let t = (d.now - start).secs();
            let expected = 100.0 + 0.4 * (t - 75f64.cbrt()).powi(3);
            let w = d.controller.window();
            assert!(
                (w - expected).abs() < 0.5,
                "t = {t}: {w} against {expected}"
            );
        }
    }

    #[test]
    fn fast_convergence_lowers_w_max_below_the_window_at_the_loss() {
        for fc in [true, false] {
            let mut d = at(params(fc, false), 100.0);
            d.rounds(1, true).rounds(10, false);
            let w = d.controller.window(); // 86.7, below W_max = 100
            d.rounds(1, true);
            let w_max = if fc { w * 1.7 / 2.0 } else { w };
            assert_close(state(&d.controller, "w_max_pkts"), w_max, 1e-15);
            assert_close(d.controller.window(), 0.7 * w, 1e-15);
            d.rounds(1, false);
            let k = ((w_max - 0.7 * w) / 0.4).cbrt();
            assert_close(state(&d.controller, "k_s"), k, 1e-14);
        }
    }

    #[test]
    fn after_a_timeout_slow_start_then_a_convex_stage_from_its_start() {
        let mut d = at(params(true, true), 100.0);
        d.timeout();
        assert_eq!(
            (d.controller.window(), d.controller.ssthresh()),
            (1.0, 70.0)
        );
        // Slow start to ssthresh (1, 2, …, 64, 70), then §4.8: K = 0, W_max = 70, W_est = 70.
        let w = d.round_trace(8);
        assert_eq!(w, [2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 70.0, 70.0 + 0.9 / 1.7]);
        assert_eq!(state(&d.controller, "k_s"), 0.0);
        assert_eq!(state(&d.controller, "w_max_pkts"), 70.0);
        // W_est (below cwnd_prior = 100: α_cubic a round) outgrows 70 + 0.4·t³ at first.
        let w = d.round_trace(9);
        assert_close(w[8], 70.0 + 10.0 * 0.9 / 1.7, 1e-12);
        let mut d = at(params(true, false), 100.0);
        d.timeout().rounds(7, false);
        let w = d.round_trace(10);
        assert_close(w[9], 70.0 + 0.4 * 1.0f64.powi(3), 1e-12);
    }

    #[test]
    fn a_repeated_timeout_holds_ssthresh() {
        let mut d = at(params(true, true), 100.0);
        d.timeout().timeout();
        assert_eq!(
            (d.controller.window(), d.controller.ssthresh()),
            (1.0, 70.0)
        );
        // Once new data is acknowledged, a timeout is a new event: 0.7 of 2 is below 2.
        d.ack_round().timeout();
        assert_eq!((d.controller.window(), d.controller.ssthresh()), (1.0, 2.0));
    }

    #[test]
    fn a_spurious_loss_is_undone() {
        let mut d = at(params(true, true), 100.0);
        d.ack_round().ack_round();
        let before = d.controller.clone();
        d.loss();
        assert_close(d.controller.window(), 0.7 * before.window(), 1e-15);
        d.controller.on_undo(d.now);
        assert_eq!(d.controller.s, before.s);
        // Only once, and not after an ECN mark (nothing was retransmitted).
        d.ack_round().ecn();
        let marked = d.controller.window();
        d.controller.on_undo(d.now);
        assert_eq!(d.controller.window(), marked);
    }

    #[test]
    fn no_undo_once_the_window_has_regrown() {
        let mut d = at(params(false, true), 4.0);
        d.loss();
        d.rounds(20, false);
        assert!(d.controller.window() > 4.0);
        let grown = d.controller.s;
        d.controller.on_undo(d.now);
        assert_eq!(d.controller.s, grown);
    }

    #[test]
    fn ecn_reduces_to_one_packet_and_a_loss_to_two() {
        let mut d = at(params(true, true), 2.0);
        d.ecn();
        assert_close(d.controller.window(), 1.4, 1e-15);
        d.now += d.rtt;
        d.ecn();
        assert_eq!((d.controller.window(), d.controller.ssthresh()), (1.0, 2.0));
        let mut d = at(params(true, true), 2.0);
        d.loss();
        assert_eq!((d.controller.window(), d.controller.ssthresh()), (2.0, 2.0));
    }

    #[test]
    fn one_reduction_per_rtt() {
        let mut d = at(params(true, true), 40.0);
        d.loss().loss().ecn();
        assert_close(d.controller.window(), 28.0, 1e-15);
        // A packet sent one RTT later is a new event.
        d.now += d.rtt;
        d.loss();
        assert_close(d.controller.window(), 0.7 * 28.0, 1e-15);
    }

    #[test]
    fn integer_windows_floor_each_reduction() {
        let config = WindowConfig {
            integer: true,
            ..WindowConfig::avoidance_at(13.0)
        };
        let mut d = Driver::started(Cubic::new(CubicParams::default()).starting(config));
        d.loss();
        assert_eq!(d.controller.window(), 9.0, "0.7 of 13 is 9.1");
    }

    /// Slow start from one packet, one ACK per packet, RTT 100 ms for 6 rounds and then
    /// `later` for 9: the window at the end of each round, and the controller.
    fn slow_start(hystart: bool, later: SimTime) -> (Vec<f64>, Cubic) {
        let p = CubicParams {
            hystart,
            ..CubicParams::default()
        };
        let mut d = Driver::new(Cubic::new(p));
        let mut w = d.ack_trace(6);
        d.rtt = later;
        w.extend(d.ack_trace(9));
        (w, d.controller)
    }

    #[test]
    fn hystart_plus_plus_leaves_slow_start_when_the_rtt_rises() {
        // RTT 100 ms then 120 ms: above 100 + RttThresh = 112.5 ms (RFC 9406 §4.2).
        let (w, c) = slow_start(true, SimTime::from_ms(120));
        assert_eq!(w[..6], [2.0, 4.0, 8.0, 16.0, 32.0, 64.0]);
        // The round of the rise: its first N_RTT_SAMPLE ACKs grow by a packet, the rest by a
        // quarter; then conservative slow start, ×1.25 a round, for CSS_ROUNDS rounds in all.
        assert!(64.0 * 1.25 < w[6] && w[6] < 64.0 * 1.5, "{w:?}");
        for i in 7..=10 {
            assert_close(w[i] / w[i - 1], 1.25, 0.01);
        }
        // Then congestion avoidance from the window it reached, K = 0 (RFC 9438 §4.10): its
        // rounds end with the ACK of the data outstanding at their start, a few ACKs after the
        // driver's.
        let ssthresh = c.ssthresh();
        assert!(w[10] <= ssthresh && ssthresh < w[11], "{w:?}: {ssthresh}");
        assert_eq!(state(&c, "k_s"), 0.0);
        assert_close(w[14] - w[13], 1.0, 0.01);
        // Classic slow start doubles on, and so does HyStart++ after a smaller rise.
        let (w, _) = slow_start(false, SimTime::from_ms(120));
        assert_eq!(w[6..9], [128.0, 256.0, 512.0]);
        let (w, _) = slow_start(true, SimTime::from_ms(110));
        assert_eq!(w[6..9], [128.0, 256.0, 512.0]);
    }

    #[test]
    fn hystart_plus_plus_in_rounds() {
        // A round's RTT samples are its packets; from 8 packets on, an RTT of 120 ms after
        // 100 ms ends standard slow start: five rounds of ×1.25 (the round of the rise
        // included), then congestion avoidance at K = 0 with α = 1.
        let mut d = Driver::new(Cubic::new(CubicParams::default()));
        let mut w = d.round_trace(4);
        d.rtt = SimTime::from_ms(120);
        w.extend(d.round_trace(6));
        let css: Vec<f64> = (1..=5).map(|i| 16.0 * 1.25f64.powi(i)).collect();
        assert_eq!(w[..4], [2.0, 4.0, 8.0, 16.0]);
        assert_eq!(w[4..9], css[..]);
        assert_eq!(d.controller.ssthresh(), css[4]);
        assert_close(w[9], css[4] + 1.0, 1e-12);
        // The RTT falling back below the baseline resumes standard slow start, and a rise
        // below 100 + 12.5 ms does not end it.
        let mut d = Driver::new(Cubic::new(CubicParams::default()));
        d.rounds(4, false);
        d.rtt = SimTime::from_ms(120);
        d.rounds(1, false);
        d.rtt = SimTime::from_ms(110);
        assert_eq!(d.round_trace(2), [40.0, 80.0]);
        let mut d = Driver::new(Cubic::new(CubicParams::default()));
        d.rounds(4, false);
        d.rtt = SimTime::from_ms(112);
        assert_eq!(d.round_trace(2), [32.0, 64.0]);
    }

    #[test]
    fn application_limited_acks_neither_grow_the_window_nor_run_the_clock() {
        let mut d = at(params(false, false), 100.0);
        d.loss();
        // Five seconds of ACKs with 10 packets in flight, far below half of 70.
        for _ in 0..500 {
            d.now += SimTime::from_ms(10);
            let ack = AckSample {
                in_flight_pkts: 10,
                ..d.ack(1)
            };
            d.controller.on_ack(&ack);
        }
        assert_eq!(d.controller.window(), 70.0);
        // Then one RTT with the window in use: growth as at the stage's start (W_cubic(0.1 s)
        // = 72.1), not as five seconds in (W_cubic(5.1 s) = 100.2).
        d.ack_round();
        assert!(
            (71.0..73.0).contains(&d.controller.window()),
            "{}",
            d.controller.window()
        );
    }

    #[test]
    fn named_in_notation() {
        assert_eq!(Cubic::new(CubicParams::default()).name(), "CUBIC(0.4,0.7)");
    }

    #[test]
    fn linux_friendly_counts_w_est_at_beta_scale_and_never_at_one() {
        // tcp_cubic.c: beta_scale = 23 at β = 819/1024 (ns-2.35's Linux 2.6.22), 15 at 717.
        assert_close(linux_friendly_alpha(819.0 / 1024.0), 8.0 / 23.0, 1e-12);
        assert_close(linux_friendly_alpha(0.7), 8.0 / 15.0, 1e-12);
        let p = CubicParams {
            linux_friendly: true,
            ..params(false, true)
        };
        let linux = Cubic::new(p);
        let rfc = Cubic::new(params(false, true));
        assert_close(linux.alpha, 8.0 / 15.0, 1e-12);
        // At W_est ≥ cwnd_prior RFC 9438 §4.3 switches to 1; the kernel keeps its α.
        let w = linux.s.cwnd_prior + 1.0;
        assert_eq!((rfc.est_alpha(w), linux.est_alpha(w)), (1.0, linux.alpha));
    }

    #[test]
    fn ssthresh_inclusive_adds_a_packet_after_a_reduction() {
        // 20 packets, β = 0.8, whole-packet reductions: 16 after a loss; Linux 2.6.22
        // slow-starts at cwnd = ssthresh, so the next ACK makes it 17.
        let window = |inclusive: bool| {
            let p = CubicParams {
                beta: 0.8,
                ssthresh_inclusive: inclusive,
                ..params(false, true)
            };
            let c = Cubic::new(p).starting(WindowConfig {
                integer: true,
                ..WindowConfig::avoidance_at(20.0)
            });
            let mut d = Driver::started(c);
            d.loss();
            d.acks(1);
            d.controller.window()
        };
        assert_eq!(window(true), 17.0);
        assert!(window(false) < 16.1, "{}", window(false));
    }

    fn any_params() -> impl Strategy<Value = CubicParams> {
        (1e-3..100.0f64, 1e-3..0.999f64, any::<[bool; 5]>()).prop_map(
            |(c, beta, [f, r, h, l, i])| CubicParams {
                c,
                beta,
                fast_convergence: f,
                reno_friendly: r,
                hystart: h,
                linux_friendly: l,
                ssthresh_inclusive: i,
            },
        )
    }

    proptest! {
        #[test]
        fn window_stays_finite_and_at_least_one(
            p in any_params(),
            ops in ops(),
            undo_every in 1..50usize,
        ) {
            let mut d = Driver::started(Cubic::new(p));
            for chunk in ops.chunks(undo_every) {
                d.run_checked(chunk);
                d.controller.on_undo(d.now);
                let w = d.controller.window();
                prop_assert!(w.is_finite() && w >= 1.0, "{w} after an undo");
            }
        }

        #[test]
        fn any_ack_keeps_the_window_finite(
            p in any_params(),
            acks in proptest::collection::vec(
                (0..2000u64, 0..2000u64, 0..2000u64, 0..1_000_000_000u64, any::<bool>()),
                0..300,
            ),
        ) {
            let mut c = Cubic::new(p);
            let mut now = SimTime::ZERO;
            for (acked, in_flight, rtt_us, gap_ns, loss) in acks {
                now += SimTime(gap_ns);
                let rtt = SimTime::from_us(rtt_us);
                c.on_ack(&AckSample {
                    now,
                    acked_pkts: acked,
                    delivered_pkts: acked,
                    growth_pkts: acked.min(in_flight),
                    in_flight_pkts: in_flight,
                    rtt: (rtt_us > 0).then_some(rtt),
                    srtt: (rtt_us > 0).then_some(rtt),
                    ..AckSample::default()
                });
                if loss {
                    c.on_loss(&LossEvent { now, sent_at: now, ..LossEvent::default() });
                }
                let w = c.window();
                prop_assert!(w.is_finite() && (1.0..=MAX_WINDOW_PKTS).contains(&w));
            }
        }
    }
}
