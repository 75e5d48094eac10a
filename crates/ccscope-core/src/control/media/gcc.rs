//! GCC, Google Congestion Control, as draft-ietf-rmcat-gcc-02 gives it, run at the sender on
//! per-packet feedback (the draft's §3 first arrangement: transport-wide feedback carries each
//! packet's arrival time; the sender maps it to the send time it remembers).
//!
//! Delay-based control (§5), once per packet group:
//! - pre-filter (§5.2): packets sent within `burst_time` form a group; a burst after an
//!   outage joins the current group ([`ArrivalGroups`]);
//! - arrival-time filter (§5.3): the scalar Kalman filter on the inter-group delay variation
//!   d(i) (ms) gives m_hat(i) ([`ArrivalFilter::Kalman`]); libwebrtc's trendline estimator
//!   (`trendline_estimator.cc`) as an option ([`ArrivalFilter::Trendline`]);
//! - over-use detector (§5.4) with the adaptive threshold del_var_th ([`OveruseDetector`]).
//!
//! Rate control (§5.5), once per feedback report with the detector's latest signal: the
//! Increase / Decrease / Hold state machine of the draft's table, multiplicative increase
//! (8 % a second) far from convergence and additive increase (half a packet per response
//! time) near it, A_hat < 1.5·R_hat, decrease to β·R_hat.
//!
//! Loss-based control (§6), once per feedback report: As_hat shrinks by half the loss ratio
//! above 10 % loss, grows 5 % below 2 %, holds between. The target rate is min(As_hat, A_hat).
//!
//! Readings of ours where the draft leaves a choice (each stated where it is used):
//! - f_max, the highest group rate over the last K groups, takes K = 60 and rates in groups
//!   per millisecond, which makes alpha = (1 − chi)^(30·T_min/1000) with the shortest group
//!   period T_min in ms, as libwebrtc's `overuse_estimator.cc` computes it (60 is its
//!   `kMinFramePeriodHistoryLength`); var_v_hat starts at 50 ms², libwebrtc's initial noise
//!   variance (the draft gives no start);
//! - the outlier filter caps z(i) at 3·sqrt(var_v_hat) from above only, as the draft says
//!   ("if z(i) > 3·sqrt(var_v_hat)");
//! - the threshold is updated with m(i) first, then m(i) is compared with del_var_th(i);
//!   over-use is signalled once m(i) has stayed above the threshold for overuse_time_th since
//!   the first group that exceeded it (measured on group arrival times) and m(i) ≥ m(i−1);
//! - A_hat < 1.5·R_hat bounds an increase (an increase never takes A_hat above 1.5·R_hat) and
//!   never cuts A_hat by itself; R_hat is the rate over the last T of the arrivals reported,
//!   unknown until a window of arrivals has been seen (no bound then);
//! - the average and variance of R_hat at decreases are exponential averages with smoothing
//!   0.95 (§5.5), valid from the second decrease on;
//! - As_hat never exceeds A_hat (the draft takes min(As_hat, A_hat); without a bound As_hat
//!   would grow 5 % a report without limit while A_hat is the smaller);
//! - the sender paces at `pacing_factor` × the target: libwebrtc's pace multiplier is 2.5
//!   (`kDefaultPaceMultiplier`); the draft's §4 pacer (target × burst_time every burst_time)
//!   is `pacing_factor = 1`.
//!
//! Units: d(i), m_hat, del_var_th and the filter's variances in milliseconds (the draft's).

use std::collections::VecDeque;

use super::{ArrivalGroups, GroupDelta, RateMeter};
use crate::control::rate::RateConfig;
use crate::control::{Controller, FeedbackFormat, FeedbackPlan, FeedbackSample};
use crate::time::SimTime;

/// GCC's parameters; [`GccParams::default`] gives draft-ietf-rmcat-gcc-02's RECOMMENDED
/// values (Table 1, §5.5, §6). Table 1's values were checked against a copy of the table as the
/// draft prints it; §5.5's and §6's were not (no copy of their text was readable).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GccParams {
    /// burst_time (s): packets sent within it form a group (Table 1: 5 ms).
    pub burst_time_s: f64,
    /// q: the state noise variance (Table 1: 10⁻³).
    pub q: f64,
    /// e(0): the initial system error variance (Table 1: 0.1).
    pub e0: f64,
    /// chi: the measurement noise filter coefficient (Table 1: in [0.001, 0.1]; 0.01, the
    /// value libwebrtc uses).
    pub chi: f64,
    /// del_var_th(0) (ms) (Table 1: 12.5 ms).
    pub del_var_th0_ms: f64,
    /// overuse_time_th (s) (Table 1: 10 ms).
    pub overuse_time_th_s: f64,
    /// K_u (Table 1: 0.01).
    pub k_u: f64,
    /// K_d (Table 1: 0.00018).
    pub k_d: f64,
    /// T (s): the window of R_hat (Table 1: [0.5, 1] s; 0.5 s).
    pub window_s: f64,
    /// beta: the decrease factor (Table 1: 0.85).
    pub beta: f64,
    /// The arrival-time filter.
    pub filter: ArrivalFilter,
    /// Whether the loss-based controller runs (§6); without it the target is A_hat.
    pub loss_based: bool,
    /// The pacing rate over the target rate.
    pub pacing_factor: f64,
    /// The detector compares min(i, 60)·m_hat(i), i the groups so far, with the threshold, as
    /// libwebrtc's `overuse_detector.cc` does with its Kalman estimate; off, the draft's
    /// m_hat(i) itself. The trendline estimator always scales so.
    pub scale_by_groups: bool,
}

impl Default for GccParams {
    fn default() -> Self {
        GccParams {
            burst_time_s: 0.005,
            q: 1e-3,
            e0: 0.1,
            chi: 0.01,
            del_var_th0_ms: 12.5,
            overuse_time_th_s: 0.010,
            k_u: 0.01,
            k_d: 0.00018,
            window_s: 0.5,
            beta: 0.85,
            filter: ArrivalFilter::Kalman,
            loss_based: true,
            pacing_factor: 2.5,
            scale_by_groups: false,
        }
    }
}

/// Which estimator turns the inter-group delay variation into m_hat(i).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrivalFilter {
    /// The draft's scalar Kalman filter (§5.3).
    Kalman,
    /// libwebrtc's trendline estimator (`trendline_estimator.cc`): the slope of a linear fit
    /// over the last 20 groups of the smoothed accumulated delay, times min(groups, 60) and the
    /// threshold gain 4.
    Trendline,
}

/// Starting rate when the scenario gives none: libwebrtc's default start bitrate (300 kb/s).
const DEFAULT_START_BPS: f64 = 300e3;
/// Groups over which f_max is taken (libwebrtc `kMinFramePeriodHistoryLength`).
const F_MAX_GROUPS: usize = 60;
/// Initial var_v_hat (ms²): libwebrtc's initial noise variance.
const VAR_V0: f64 = 50.0;
/// The threshold is not updated when |m(i)| exceeds it by more than this (ms) (§5.4).
const THRESHOLD_JUMP_MS: f64 = 15.0;
/// The threshold's range (ms) (§5.4).
const THRESHOLD_MIN_MS: f64 = 6.0;
const THRESHOLD_MAX_MS: f64 = 600.0;
/// Smoothing of the average of R_hat at decreases (§5.5).
const DECREASE_SMOOTHING: f64 = 0.95;
/// Frame rate and packet payload the additive increase assumes (§5.5).
const ASSUMED_FPS: f64 = 30.0;
const ASSUMED_PACKET_BITS: f64 = 1200.0 * 8.0;
/// Loss ratios of the loss-based controller (§6).
const LOSS_HIGH: f64 = 0.10;
const LOSS_LOW: f64 = 0.02;
/// Trendline estimator (libwebrtc `trendline_estimator.cc`): window, smoothing, gain, cap.
const TREND_WINDOW: usize = 20;
const TREND_SMOOTHING: f64 = 0.9;
const TREND_GAIN: f64 = 4.0;
const TREND_MAX_DELTAS: f64 = 60.0;

/// The arrival-time filter's state (§5.3), or the trendline's.
#[derive(Clone, Debug)]
enum Estimator {
    Kalman {
        m_hat: f64,
        e: f64,
        var_v: f64,
        /// The last K group periods T(j) − T(j−1) (ms).
        periods: VecDeque<f64>,
    },
    Trendline {
        accumulated_ms: f64,
        smoothed_ms: f64,
        /// (arrival since the first group (ms), smoothed delay (ms)), the last 20 groups.
        points: VecDeque<(f64, f64)>,
        first_arrival: Option<SimTime>,
        deltas: f64,
        trend: f64,
    },
}

impl Estimator {
    fn new(filter: ArrivalFilter, e0: f64) -> Self {
        match filter {
            ArrivalFilter::Kalman => Estimator::Kalman {
                m_hat: 0.0,
                e: e0,
                var_v: VAR_V0,
                periods: VecDeque::new(),
            },
            ArrivalFilter::Trendline => Estimator::Trendline {
                accumulated_ms: 0.0,
                smoothed_ms: 0.0,
                points: VecDeque::new(),
                first_arrival: None,
                deltas: 0.0,
                trend: 0.0,
            },
        }
    }

    /// Takes one group delta; returns m(i) (ms), the value the detector compares.
    fn update(&mut self, g: &GroupDelta, q: f64, chi: f64) -> f64 {
        let d = g.delay_variation_ms();
        match self {
            Estimator::Kalman {
                m_hat,
                e,
                var_v,
                periods,
            } => {
                periods.push_back(g.send_delta_s * 1e3);
                if periods.len() > F_MAX_GROUPS {
                    periods.pop_front();
                }
                *var_v = kalman_step(m_hat, e, *var_v, d, periods_min(periods), q, chi);
                *m_hat
            }
            Estimator::Trendline {
                accumulated_ms,
                smoothed_ms,
                points,
                first_arrival,
                deltas,
                trend,
            } => {
                let first = *first_arrival.get_or_insert(g.arrival);
                *deltas = (*deltas + 1.0).min(TREND_MAX_DELTAS);
                *accumulated_ms += d;
                *smoothed_ms =
                    TREND_SMOOTHING * *smoothed_ms + (1.0 - TREND_SMOOTHING) * *accumulated_ms;
                points.push_back(((g.arrival - first).secs() * 1e3, *smoothed_ms));
                if points.len() > TREND_WINDOW {
                    points.pop_front();
                }
                if points.len() == TREND_WINDOW {
                    if let Some(slope) = slope(points) {
                        *trend = slope;
                    }
                }
                *deltas * *trend * TREND_GAIN
            }
        }
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        match self {
            Estimator::Kalman { e, var_v, .. } => {
                out.extend([("kalman_e", *e), ("var_v_hat_ms2", *var_v)])
            }
            Estimator::Trendline { trend, .. } => out.push(("trend", *trend)),
        }
    }
}

/// The shortest of `periods` (ms), positive; 1/f_max of §5.3.
fn periods_min(periods: &VecDeque<f64>) -> f64 {
    periods
        .iter()
        .copied()
        .filter(|p| *p > 0.0)
        .reduce(f64::min)
        .unwrap_or(1.0)
}

/// One step of the draft's Kalman filter (§5.3) on d(i) = `d` (ms), with the shortest recent
/// group period `t_min_ms` = 1/f_max: updates `m_hat` and `e` in place and returns
/// var_v_hat(i).
///
/// z(i) = d(i) − m_hat(i−1); var_v_hat(i) = max(α·var_v_hat(i−1) + (1−α)·z(i)², 1) with
/// α = (1−chi)^(30/(1000·f_max)) and z(i) capped at 3·sqrt(var_v_hat(i−1)) in this update;
/// k(i) = (e(i−1)+q)/(var_v_hat(i) + e(i−1)+q); m_hat(i) = m_hat(i−1) + z(i)·k(i);
/// e(i) = (1−k(i))·(e(i−1)+q).
pub fn kalman_step(
    m_hat: &mut f64,
    e: &mut f64,
    var_v: f64,
    d: f64,
    t_min_ms: f64,
    q: f64,
    chi: f64,
) -> f64 {
    let z = d - *m_hat;
    let alpha = (1.0 - chi).powf(30.0 * t_min_ms / 1000.0);
    let z_var = z.min(3.0 * var_v.sqrt());
    let var_v = (alpha * var_v + (1.0 - alpha) * z_var * z_var).max(1.0);
    let prior = *e + q;
    let k = prior / (var_v + prior);
    *m_hat += z * k;
    *e = (1.0 - k) * prior;
    var_v
}

/// The least-squares slope of y over x, if x varies.
fn slope(points: &VecDeque<(f64, f64)>) -> Option<f64> {
    let n = points.len() as f64;
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), &(x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let (num, den) = points.iter().fold((0.0, 0.0), |(a, b), &(x, y)| {
        (a + (x - mx) * (y - my), b + (x - mx) * (x - mx))
    });
    (den > 0.0).then(|| num / den)
}

/// The over-use detector's output (§5.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Signal {
    #[default]
    Normal,
    Overuse,
    Underuse,
}

/// The over-use detector with its adaptive threshold (§5.4).
#[derive(Clone, Debug)]
pub struct OveruseDetector {
    /// del_var_th (ms).
    threshold_ms: f64,
    k_u: f64,
    k_d: f64,
    overuse_time_th: SimTime,
    /// m(i−1) (ms) and t(i−1).
    previous: Option<(f64, SimTime)>,
    /// Arrival of the first group of the current run above the threshold.
    over_since: Option<SimTime>,
    signal: Signal,
}

impl OveruseDetector {
    pub fn new(threshold0_ms: f64, k_u: f64, k_d: f64, overuse_time_th: SimTime) -> Self {
        OveruseDetector {
            threshold_ms: threshold0_ms,
            k_u,
            k_d,
            overuse_time_th,
            previous: None,
            over_since: None,
            signal: Signal::Normal,
        }
    }

    pub fn threshold_ms(&self) -> f64 {
        self.threshold_ms
    }

    pub fn signal(&self) -> Signal {
        self.signal
    }

    /// Takes m(i) (ms) of the group that arrived at `t`; returns the signal.
    pub fn update(&mut self, m: f64, t: SimTime) -> Signal {
        if let Some((_, t_prev)) = self.previous {
            let dt_ms = t.saturating_sub(t_prev).secs() * 1e3;
            if m.abs() - self.threshold_ms <= THRESHOLD_JUMP_MS {
                let k = if m.abs() < self.threshold_ms {
                    self.k_d
                } else {
                    self.k_u
                };
                self.threshold_ms += dt_ms * k * (m.abs() - self.threshold_ms);
                self.threshold_ms = self.threshold_ms.clamp(THRESHOLD_MIN_MS, THRESHOLD_MAX_MS);
            }
        }
        let rising = self.previous.is_none_or(|(m_prev, _)| m >= m_prev);
        self.signal = if m > self.threshold_ms {
            let since = *self.over_since.get_or_insert(t);
            if t.saturating_sub(since) >= self.overuse_time_th && rising {
                Signal::Overuse
            } else {
                Signal::Normal
            }
        } else {
            self.over_since = None;
            if m < -self.threshold_ms {
                Signal::Underuse
            } else {
                Signal::Normal
            }
        };
        self.previous = Some((m, t));
        self.signal
    }
}

/// The rate controller's state (§5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RateState {
    Hold,
    Increase,
    Decrease,
}

impl RateState {
    /// The draft's transition table (blank: remain).
    fn next(self, s: Signal) -> RateState {
        match (s, self) {
            (Signal::Overuse, _) => RateState::Decrease,
            (Signal::Normal, RateState::Hold) => RateState::Increase,
            (Signal::Normal, RateState::Decrease) => RateState::Hold,
            (Signal::Normal, RateState::Increase) => RateState::Increase,
            (Signal::Underuse, _) => RateState::Hold,
        }
    }

    fn code(self) -> f64 {
        match self {
            RateState::Hold => 0.0,
            RateState::Increase => 1.0,
            RateState::Decrease => -1.0,
        }
    }
}

/// GCC: the delay-based and the loss-based controller combined (draft-ietf-rmcat-gcc-02).
#[derive(Clone, Debug)]
pub struct Gcc {
    params: GccParams,
    config: RateConfig,
    groups: ArrivalGroups,
    estimator: Estimator,
    detector: OveruseDetector,
    meter: RateMeter,
    state: RateState,
    /// The delay-based estimate A_hat (bits/s).
    a_hat: f64,
    /// The loss-based estimate As_hat (bits/s).
    as_hat: f64,
    /// Exponential average and variance of R_hat at decreases, and how many.
    decrease_avg: f64,
    decrease_var: f64,
    decreases: u32,
    last_update: Option<SimTime>,
    rtt_s: Option<f64>,
    /// m(i) of the last group as the detector takes it (ms), the groups so far, R_hat at the
    /// last update, the last report's loss ratio.
    m_ms: f64,
    groups_seen: f64,
    r_hat: Option<f64>,
    loss_ratio: f64,
}

impl Gcc {
    /// GCC with `params`, starting as `config` says (at 300 kb/s unless it gives a rate).
    pub fn new(params: GccParams, config: RateConfig) -> Self {
        let start = config.initial_rate(DEFAULT_START_BPS);
        Gcc {
            groups: ArrivalGroups::new(SimTime::from_secs_f64(params.burst_time_s)),
            estimator: Estimator::new(params.filter, params.e0),
            detector: OveruseDetector::new(
                params.del_var_th0_ms,
                params.k_u,
                params.k_d,
                SimTime::from_secs_f64(params.overuse_time_th_s),
            ),
            meter: RateMeter::new(SimTime::from_secs_f64(params.window_s)),
            params,
            config,
            state: RateState::Increase,
            a_hat: start,
            as_hat: start,
            decrease_avg: 0.0,
            decrease_var: 0.0,
            decreases: 0,
            last_update: None,
            rtt_s: None,
            m_ms: 0.0,
            groups_seen: 0.0,
            r_hat: None,
            loss_ratio: 0.0,
        }
    }

    /// The target rate: min(As_hat, A_hat) (§6), or A_hat without the loss-based controller.
    pub fn target_bps(&self) -> f64 {
        if self.params.loss_based {
            self.as_hat.min(self.a_hat)
        } else {
            self.a_hat
        }
    }

    /// The detector's latest signal.
    pub fn signal(&self) -> Signal {
        self.detector.signal()
    }

    /// Whether R_hat is close to the average at decreases: within three standard deviations
    /// (§5.5); a rate above that band resets the average.
    fn near_convergence(&mut self, r_hat: f64) -> bool {
        if self.decreases < 2 {
            return false;
        }
        let band = 3.0 * self.decrease_var.sqrt();
        if r_hat > self.decrease_avg + band {
            self.decreases = 0;
            self.decrease_avg = 0.0;
            self.decrease_var = 0.0;
            return false;
        }
        (r_hat - self.decrease_avg).abs() <= band
    }

    /// One run of the delay-based rate controller (§5.5) at `now`.
    fn update_rate(&mut self, now: SimTime) {
        self.state = self.state.next(self.detector.signal());
        let since_ms = self
            .last_update
            .map_or(0.0, |t| now.saturating_sub(t).secs() * 1e3);
        self.last_update = Some(now);
        let r_hat = self.meter.rate_bps();
        self.r_hat = r_hat;
        match self.state {
            RateState::Hold => {}
            RateState::Increase => {
                let near = r_hat.is_some_and(|r| self.near_convergence(r));
                let increased = if near {
                    let response_ms = 100.0 + self.rtt_s.unwrap_or(0.0) * 1e3;
                    let alpha = 0.5 * (since_ms / response_ms).min(1.0);
                    let bits_per_frame = self.a_hat / ASSUMED_FPS;
                    let packets_per_frame = (bits_per_frame / ASSUMED_PACKET_BITS).ceil().max(1.0);
                    let packet_bits = bits_per_frame / packets_per_frame;
                    self.a_hat + (alpha * packet_bits).max(1000.0)
                } else {
                    self.a_hat * 1.08f64.powf((since_ms / 1000.0).min(1.0))
                };
                self.a_hat = match r_hat {
                    Some(r) => increased.min((1.5 * r).max(self.a_hat)),
                    None => increased,
                };
            }
            RateState::Decrease => {
                if let Some(r) = r_hat {
                    if self.decreases == 0 {
                        self.decrease_avg = r;
                        self.decrease_var = 0.0;
                    } else {
                        let s = DECREASE_SMOOTHING;
                        self.decrease_avg = s * self.decrease_avg + (1.0 - s) * r;
                        let dev = r - self.decrease_avg;
                        self.decrease_var = s * self.decrease_var + (1.0 - s) * dev * dev;
                    }
                    self.decreases = self.decreases.saturating_add(1);
                }
                self.a_hat = self.params.beta * r_hat.unwrap_or(self.a_hat);
            }
        }
        self.a_hat = self.config.clamp(self.a_hat);
    }

    /// The loss-based controller (§6) on the loss ratio of one report.
    fn update_loss_based(&mut self, loss_ratio: f64) {
        self.loss_ratio = loss_ratio;
        if loss_ratio > LOSS_HIGH {
            self.as_hat *= 1.0 - 0.5 * loss_ratio;
        } else if loss_ratio < LOSS_LOW {
            self.as_hat *= 1.05;
        }
        self.as_hat = self.config.clamp(self.as_hat.min(self.a_hat));
    }
}

impl Controller for Gcc {
    fn name(&self) -> String {
        match self.params.filter {
            ArrivalFilter::Kalman => "GCC".into(),
            ArrivalFilter::Trendline => "GCC(trendline)".into(),
        }
    }

    fn on_feedback(&mut self, fb: &FeedbackSample) {
        if let Some(rtt) = fb.rtt {
            self.rtt_s = Some(rtt.secs());
        }
        for p in &fb.packets {
            let Some(arrived) = p.arrived_at else {
                continue;
            };
            if let Some(g) = self.groups.push(p.sent_at, arrived) {
                let m = self.estimator.update(&g, self.params.q, self.params.chi);
                self.groups_seen = (self.groups_seen + 1.0).min(TREND_MAX_DELTAS);
                let kalman = self.params.filter == ArrivalFilter::Kalman;
                self.m_ms = if kalman && self.params.scale_by_groups {
                    self.groups_seen * m
                } else {
                    m
                };
                self.detector.update(self.m_ms, g.arrival);
            }
        }
        self.meter.push(&fb.packets);
        self.update_rate(fb.now);
        if !fb.packets.is_empty() {
            self.update_loss_based(fb.lost_pkts() as f64 / fb.packets.len() as f64);
        }
    }

    fn target_rate_bps(&self) -> Option<f64> {
        Some(self.target_bps())
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        Some(
            self.config
                .clamp(self.params.pacing_factor * self.target_bps()),
        )
    }

    fn runs_in_rounds(&self) -> bool {
        false
    }

    fn feedback_plan(&self) -> Option<FeedbackPlan> {
        // §3: transport-wide feedback once per received video frame (and at least every
        // 100 ms when overhead must be limited).
        Some(FeedbackPlan {
            format: FeedbackFormat::TransportWide,
            interval: SimTime::from_ms(100),
            per_frame: true,
        })
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([
            ("a_hat_bps", self.a_hat),
            ("as_hat_bps", self.as_hat),
            ("m_hat_ms", self.m_ms),
            ("del_var_th_ms", self.detector.threshold_ms()),
            ("rate_state", self.state.code()),
            ("r_hat_bps", self.r_hat.unwrap_or(f64::NAN)),
            ("loss_ratio", self.loss_ratio),
        ]);
        self.estimator.state(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::PacketStatus;

    /// The Kalman filter's first two steps worked by hand from §5.3's equations (Table 1's
    /// q = 10⁻³, e(0) = 0.1; chi = 0.01; var_v_hat(0) = 50; groups 10 ms apart, so
    /// α = 0.99^0.3), each number computed independently of the code:
    /// step 1, d = 5 ms: z = 5; var = 0.9969894·50 + 0.0030106·25 = 49.924736;
    /// k = 0.101/50.025736 = 0.00201896; m = 0.0100948; e = 0.1007961.
    /// step 2, d = 5 ms: z = 4.9899052; var = 0.9969894·49.924736 + 0.0030106·24.899153
    /// = 49.849395; k = 0.1017961/49.951191 = 0.00203791; m = 0.0202638; e = 0.1015886.
    #[test]
    fn the_kalman_filter_matches_the_drafts_equations_worked_by_hand() {
        let (mut m, mut e) = (0.0, 0.1);
        let var = kalman_step(&mut m, &mut e, 50.0, 5.0, 10.0, 1e-3, 0.01);
        assert!((var - 49.924736).abs() < 1e-5, "{var}");
        assert!((m - 0.0100948).abs() < 1e-6, "{m}");
        assert!((e - 0.1007961).abs() < 1e-6, "{e}");
        let var = kalman_step(&mut m, &mut e, var, 5.0, 10.0, 1e-3, 0.01);
        assert!((var - 49.849395).abs() < 1e-5, "{var}");
        assert!((m - 0.0202638).abs() < 1e-6, "{m}");
        assert!((e - 0.1015886).abs() < 1e-6, "{e}");
    }

    #[test]
    fn an_outlier_updates_the_noise_variance_with_three_standard_deviations() {
        // var = 1, so z = 100 counts as 3: var = α + (1 − α)·9 with α = 0.99.
        let (mut m, mut e) = (0.0, 0.1);
        let var = kalman_step(&mut m, &mut e, 1.0, 100.0, 1000.0 / 30.0, 1e-3, 0.01);
        let alpha: f64 = 0.99;
        assert!((var - (alpha + (1.0 - alpha) * 9.0)).abs() < 1e-12);
    }

    #[test]
    fn the_threshold_adapts_as_the_draft_says() {
        let ms = SimTime::from_ms;
        let mut d = OveruseDetector::new(12.5, 0.01, 0.00018, ms(10));
        d.update(0.0, ms(0));
        // |m| = 20 > 12.5: K_u; th = 12.5 + 100·0.01·(20 − 12.5) = 20.
        d.update(20.0, ms(100));
        assert!((d.threshold_ms() - 20.0).abs() < 1e-9);
        // |m| = 0 < 20: K_d; th = 20 + 1000·0.00018·(0 − 20) = 16.4.
        d.update(0.0, ms(1100));
        assert!((d.threshold_ms() - 16.4).abs() < 1e-9);
        // A jump of more than 15 ms above the threshold leaves it alone.
        d.update(40.0, ms(1200));
        assert!((d.threshold_ms() - 16.4).abs() < 1e-9);
        // Never below 6 ms.
        d.update(0.0, ms(100_000));
        assert_eq!(d.threshold_ms(), 6.0);
    }

    #[test]
    fn overuse_needs_overuse_time_th_and_a_rising_estimate() {
        let ms = SimTime::from_ms;
        let mut d = OveruseDetector::new(12.5, 0.0, 0.0, ms(10));
        assert_eq!(
            d.update(20.0, ms(0)),
            Signal::Normal,
            "above, but not for 10 ms"
        );
        assert_eq!(d.update(21.0, ms(5)), Signal::Normal);
        assert_eq!(d.update(22.0, ms(10)), Signal::Overuse);
        assert_eq!(
            d.update(21.0, ms(15)),
            Signal::Normal,
            "falling: not signalled"
        );
        assert_eq!(d.update(-13.0, ms(20)), Signal::Underuse);
        assert_eq!(d.update(20.0, ms(25)), Signal::Normal, "a new run starts");
    }

    #[test]
    fn the_state_machine_is_the_drafts_table() {
        use RateState::*;
        use Signal::*;
        let table = [
            (Overuse, [Decrease, Decrease, Decrease]),
            (Normal, [Increase, Increase, Hold]),
            (Underuse, [Hold, Hold, Hold]),
        ];
        for (signal, after) in table {
            for (state, want) in [Hold, Increase, Decrease].into_iter().zip(after) {
                assert_eq!(state.next(signal), want, "{signal:?} in {state:?}");
            }
        }
    }

    fn report(now: SimTime, packets: Vec<PacketStatus>) -> FeedbackSample {
        FeedbackSample {
            now,
            report_at: now,
            rtt: Some(SimTime::from_ms(50)),
            packets,
            ..FeedbackSample::default()
        }
    }

    /// Packets of `size` bytes sent every `gap` from `t0`, `n` of them, each delayed by
    /// `delay(k)`; those for which `lost(k)` is true are reported not received.
    fn packets(
        seq0: u64,
        t0: SimTime,
        gap: SimTime,
        n: u64,
        delay: impl Fn(u64) -> SimTime,
        lost: impl Fn(u64) -> bool,
    ) -> Vec<PacketStatus> {
        (0..n)
            .map(|k| {
                let sent = SimTime(t0.ns() + k * gap.ns());
                PacketStatus {
                    seq: seq0 + k,
                    size_bytes: 1200,
                    sent_at: sent,
                    arrived_at: (!lost(k)).then(|| sent + delay(k)),
                    ..PacketStatus::default()
                }
            })
            .collect()
    }

    /// With each estimator the detector can use (the draft's Kalman filter scaled as
    /// libwebrtc scales it, and the trendline).
    #[test]
    fn a_growing_queue_brings_the_rate_down_and_a_steady_one_lets_it_grow() {
        let kalman = GccParams {
            scale_by_groups: true,
            ..GccParams::default()
        };
        let trendline = GccParams {
            filter: ArrivalFilter::Trendline,
            ..GccParams::default()
        };
        for params in [kalman, trendline] {
            growing_queue(params);
        }
    }

    fn growing_queue(params: GccParams) {
        let ms = SimTime::from_ms;
        let mut gcc = Gcc::new(params, RateConfig::default());
        let start = gcc.target_bps();
        // 4 s of a steady path: a 1200-byte packet every 40 ms (240 kb/s), delay 20 ms;
        // reports every 200 ms.
        for r in 0..20u64 {
            let pk = packets(5 * r, ms(200 * r), ms(40), 5, |_| ms(20), |_| false);
            gcc.on_feedback(&report(ms(200 * r + 220), pk));
        }
        let grown = gcc.target_bps();
        assert!(grown > start, "{grown} after {start}");
        // R_hat counts the 13 arrivals less than 0.5 s older than the last.
        assert!(
            grown <= 1.5 * 13.0 * 9600.0 / 0.5 + 1e-6,
            "A_hat < 1.5·R_hat: {grown}"
        );
        // Then a queue growing 8 ms per packet.
        for r in 20..30u64 {
            let pk = packets(
                5 * r,
                ms(200 * r),
                ms(40),
                5,
                |k| ms(20 + 8 * (5 * (r - 20) + k)),
                |_| false,
            );
            gcc.on_feedback(&report(ms(200 * r + 600), pk));
        }
        assert_eq!(gcc.signal(), Signal::Overuse);
        assert!(
            gcc.target_bps() < grown,
            "{} after {grown}",
            gcc.target_bps()
        );
    }

    #[test]
    fn heavy_loss_cuts_the_loss_based_estimate_by_half_the_loss_ratio() {
        let ms = SimTime::from_ms;
        let mut gcc = Gcc::new(GccParams::default(), RateConfig::default());
        let before = gcc.target_bps();
        // 40 % of the packets lost, delay steady: As_hat ← As_hat·(1 − 0.2), below A_hat.
        let pk = packets(0, ms(0), ms(10), 10, |_| ms(20), |k| k % 5 < 2);
        gcc.on_feedback(&report(ms(120), pk));
        assert!((gcc.target_bps() - 0.8 * before).abs() < 1e-6 * before);
    }

    /// Property: on random feedback (random delays, losses, gaps, report sizes, reorderings
    /// of arrival), GCC's outputs stay finite, positive, within the configured bounds, with
    /// the target never above the delay-based estimate and the pace its factor times the
    /// target; 200 random sequences of 200 reports.
    #[test]
    fn random_feedback_keeps_every_output_finite_and_bounded() {
        for seed in 0..200 {
            let params = GccParams {
                filter: if seed % 2 == 0 {
                    ArrivalFilter::Kalman
                } else {
                    ArrivalFilter::Trendline
                },
                ..GccParams::default()
            };
            let config = RateConfig {
                min_rate_bps: Some(10e3),
                ..RateConfig::default()
            };
            let mut gcc = Gcc::new(params, config);
            for fb in crate::control::media::random_feedback(seed, 200) {
                gcc.on_feedback(&fb);
                let target = gcc.target_rate_bps().unwrap();
                let pace = gcc.pacing_rate_bps().unwrap();
                assert!(
                    target.is_finite() && target >= 10e3,
                    "seed {seed}: {target}"
                );
                assert!(target <= gcc.a_hat * (1.0 + 1e-12), "seed {seed}");
                assert!(pace.is_finite() && pace >= target, "seed {seed}");
                let mut state = Vec::new();
                gcc.state(&mut state);
                for (name, v) in state {
                    assert!(
                        v.is_finite() || name == "r_hat_bps",
                        "seed {seed}: {name} = {v}"
                    );
                }
                assert!((6.0..=600.0).contains(&gcc.detector.threshold_ms()));
            }
        }
    }
}
