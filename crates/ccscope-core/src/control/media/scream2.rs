//! SCReAMv2, Self-Clocked Rate Adaptation for Multimedia version 2, as
//! draft-johansson-ccwg-rfc8298bis-screamv2-03 (the successor of
//! draft-johansson-ccwg-scream-bis; it obsoletes RFC 8298) describes it. Section numbers are
//! the -03 text's.
//!
//! On each feedback report (§4.1, §4.2):
//! - qdelay as LEDBAT measures it ([`BaseDelay`], §4.2.1.4); qdelay_avg, a slow-attack
//!   fast-decay EWMA (QDELAY_AVG_G) updated at most every min(VIRTUAL_RTT, s_rtt);
//! - l4s_alpha, a fast-attack (L4S_AVG_G_UP) slow-decay (L4S_AVG_G_DOWN) EWMA of the fraction
//!   of data units CE-marked, updated at most every min(10 ms, s_rtt) (§4.2.1.3);
//! - the qdelay target follows competing flows between QDELAY_TARGET_LO and QDELAY_TARGET_HI
//!   ([`QdelayTarget`], §4.2.1.4.1; `compensate = 0` turns it off, as the section allows);
//! - reference window reduction (§4.2.2.1), at most every min(VIRTUAL_RTT, s_rtt): a loss scales
//!   ref_wnd by BETA_LOSS; a CE mark by BETA_ECN (classic ECN) or by 1 − l4s_alpha/2 (L4S,
//!   `l4s = 1`); without loss or CE, a queue above qdelay_target/2 while l4s_alpha is below
//!   what two marks per RTT would give is a virtual CE mark of weight
//!   l4s_alpha_v = min(1, 2·lim·(qdelay_avg − qdelay_target/2)/(qdelay_target/2)), cutting
//!   ref_wnd by l4s_alpha_v/2 ([`virtual_backoff`]); ref_wnd_i, the inflection point, is the
//!   window at a congestion event at most every 10 s_rtt;
//! - reference window increase (§4.2.2.2, [`increment`]): the bytes newly acked and not
//!   CE-marked times MSS/ref_wnd, shrunk for small RTTs, near ref_wnd_i and for small windows,
//!   with a delay brake while L4S marks nothing, and grown multiplicatively by up to
//!   1 + MUL_INCREASE_FACTOR·ref_wnd/MSS as the time since congestion reaches
//!   POST_CONGESTION_DELAY_RTT RTTs; taken only while ref_wnd stays within MSS +
//!   BYTES_IN_FLIGHT_HEAD_ROOM × the most bytes in flight of this and the last RTT and the
//!   target is below TARGET_BITRATE_MAX;
//! - the target bitrate (§4.4, [`target_bitrate`]): 8·ref_wnd/s_rtt, reduced when bytes in
//!   flight exceed BYTES_IN_FLIGHT_LIMIT × ref_wnd with a queue, for small windows and for
//!   PACKET_OVERHEAD, within [TARGET_BITRATE_MIN, TARGET_BITRATE_MAX].
//!
//! Transmission (§4.3): the send window lets bytes in flight reach ref_wnd × REF_WND_OVERHEAD
//! × rel_framesize_high (the media transport sends while bytes in flight plus the next packet
//! fit [`Controller::window`]); pacing at max(RATE_PACE_MIN, target) × PACKET_PACING_HEADROOM.
//!
//! Readings of ours (the text leaves them open):
//! - MSS is the source's packet size (the draft's MSS is the largest data unit, 1000 B);
//! - loss_detected is a report's packets reported not received (the media transport's reports
//!   do not reorder: no reordering window); losses and CE marks seen between two reactions
//!   are kept until the next reaction, as §4.2.2.1's "since last_reaction_to_congestion_time"
//!   says; the increase runs on every report, after the reduction;
//! - rel_framesize_high stays at its initial 1.0: the controller does not see the encoder's
//!   frames (§4.3.2's histogram needs them);
//! - bytes in flight at a report is the transport's count before the report
//!   (`in_flight_bytes` + the bytes it covers); max_bytes_in_flight is taken per smoothed RTT;
//! - s_rtt is RFC 6298's smoothing (gain 1/8) of each report's RTT; before the first RTT the
//!   target stays at its start;
//! - the competing-flow history holds 200 samples (one a report): the variance over all,
//!   the average over the last 50, as §4.2.1.4.1's pseudocode reads; loss_event_rate as
//!   [`LossEventRate`];
//! - the feedback plan is RFC 8888 once a frame and at least every 1/rate_fb with §5's
//!   rate_fb = 0.02 × TARGET_BITRATE_MAX / 800 clipped to [10, 1000] per second (the densest
//!   feedback the flow needs; the plan is fixed, the draft's rate follows the received rate).

use super::{smoothed_rtt, start_rate, BaseDelay, LossEventRate, QdelayTarget};
use crate::control::rate::RateConfig;
use crate::control::{Controller, FeedbackFormat, FeedbackPlan, FeedbackSample};
use crate::time::SimTime;

/// Samples of the competing-flow variance and average (§4.2.1.4.1: 200 and 50).
const NORM_VAR_SAMPLES: usize = 200;
const NORM_AVG_SAMPLES: usize = 50;

/// SCReAMv2's parameters; [`Scream2Params::default`] gives the -03 draft's values (§4.2.1.3,
/// §4.2.1.4, §4.2.2, §4.3.3, §4.4); the target bitrate's bounds, which the draft leaves to the
/// application, are RFC 8593's encoder's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scream2Params {
    /// QDELAY_TARGET_LO (s): the least qdelay target (0.06 s).
    pub qdelay_target_lo_s: f64,
    /// QDELAY_TARGET_HI (s): the greatest qdelay target (0.4 s).
    pub qdelay_target_hi_s: f64,
    /// MIN_REF_WND (bytes): the least reference window (3000).
    pub min_ref_wnd_bytes: f64,
    /// BYTES_IN_FLIGHT_HEAD_ROOM: ref_wnd grows only up to MSS + this × the most bytes in
    /// flight (1.5).
    pub bytes_in_flight_head_room: f64,
    /// BETA_LOSS: ref_wnd scale on a loss event (0.7).
    pub beta_loss: f64,
    /// BETA_ECN: ref_wnd scale on a classic ECN event (0.8).
    pub beta_ecn: f64,
    /// REF_WND_OVERHEAD: how far bytes in flight may exceed ref_wnd (5.0).
    pub ref_wnd_overhead: f64,
    /// POST_CONGESTION_DELAY_RTT: RTTs after congestion over which growth stays cautious (100).
    pub post_congestion_delay_rtts: f64,
    /// MUL_INCREASE_FACTOR: ref_wnd's multiplicative growth per RTT (0.02).
    pub mul_increase_factor: f64,
    /// IS_L4S: CE marks scale ref_wnd by l4s_alpha (false: by BETA_ECN).
    pub l4s: bool,
    /// VIRTUAL_RTT (s): the RTT below which growth slows, as Prague's (0.025 s).
    pub virtual_rtt_s: f64,
    /// L4S_AVG_G_UP: l4s_alpha's EWMA weight on a rise (1/8).
    pub l4s_avg_g_up: f64,
    /// L4S_AVG_G_DOWN: l4s_alpha's EWMA weight on a fall (1/128).
    pub l4s_avg_g_down: f64,
    /// QDELAY_AVG_G: qdelay_avg's EWMA weight on a rise (1/4).
    pub qdelay_avg_g: f64,
    /// RATE_PACE_MIN (bits/s): the least pacing rate (50 kb/s).
    pub rate_pace_min_bps: f64,
    /// PACKET_PACING_HEADROOM: pacing rate over the target (1.5).
    pub packet_pacing_headroom: f64,
    /// BYTES_IN_FLIGHT_LIMIT: bytes in flight over ref_wnd above which the target is held back
    /// (0.9).
    pub bytes_in_flight_limit: f64,
    /// BYTES_IN_FLIGHT_LIMIT_COMPENSATION: the most it is held back by (1.5).
    pub bytes_in_flight_limit_compensation: f64,
    /// PACKET_OVERHEAD (bytes): packetization overhead per data unit (20).
    pub packet_overhead_bytes: f64,
    /// TARGET_BITRATE_MIN (bits/s): left to the application (RFC 8593's 150 kb/s).
    pub target_bitrate_min_bps: f64,
    /// TARGET_BITRATE_MAX (bits/s): left to the application (RFC 8593's 1.5 Mb/s).
    pub target_bitrate_max_bps: f64,
    /// Whether the qdelay target follows competing flows (§4.2.1.4.1); off: QDELAY_TARGET_LO.
    pub compensate: bool,
}

impl Default for Scream2Params {
    fn default() -> Self {
        Scream2Params {
            qdelay_target_lo_s: 0.06,
            qdelay_target_hi_s: 0.4,
            min_ref_wnd_bytes: 3000.0,
            bytes_in_flight_head_room: 1.5,
            beta_loss: 0.7,
            beta_ecn: 0.8,
            ref_wnd_overhead: 5.0,
            post_congestion_delay_rtts: 100.0,
            mul_increase_factor: 0.02,
            l4s: false,
            virtual_rtt_s: 0.025,
            l4s_avg_g_up: 1.0 / 8.0,
            l4s_avg_g_down: 1.0 / 128.0,
            qdelay_avg_g: 0.25,
            rate_pace_min_bps: 50e3,
            packet_pacing_headroom: 1.5,
            bytes_in_flight_limit: 0.9,
            bytes_in_flight_limit_compensation: 1.5,
            packet_overhead_bytes: 20.0,
            target_bitrate_min_bps: 150e3,
            target_bitrate_max_bps: 1.5e6,
            compensate: true,
        }
    }
}

/// What §4.2.2's update reads beside the parameters, at one report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowInputs {
    /// ref_wnd (bytes) and its inflection point ref_wnd_i.
    pub ref_wnd: f64,
    pub ref_wnd_i: f64,
    pub mss: f64,
    /// s_rtt (s).
    pub s_rtt: f64,
    /// qdelay_avg and qdelay_target (s).
    pub qdelay_avg: f64,
    pub qdelay_target: f64,
    pub l4s_alpha: f64,
    /// Time since the last congestion detected (s).
    pub since_congestion: f64,
}

impl WindowInputs {
    /// ref_wnd_ratio = min(1, MSS/ref_wnd) (§4.1.1).
    pub fn ref_wnd_ratio(&self) -> f64 {
        (self.mss / self.ref_wnd).min(1.0)
    }

    /// scl_t = clip((8·(ref_wnd − ref_wnd_i)/ref_wnd_i)², 0.1, 1) (§4.2.2.1): small near the
    /// last known maximum.
    pub fn scl(&self) -> f64 {
        let s = 8.0 * (self.ref_wnd - self.ref_wnd_i) / self.ref_wnd_i;
        (s * s).clamp(0.1, 1.0)
    }
}

/// §4.2.2.2's increment (bytes) for `acked` bytes newly acknowledged, `acked_ce` of them
/// CE-marked (before the check against the bytes in flight).
pub fn increment(p: &Scream2Params, w: &WindowInputs, acked: f64, acked_ce: f64) -> f64 {
    let ratio = w.ref_wnd_ratio();
    let scl = w.scl();
    let post_congestion = (w.since_congestion
        / (p.post_congestion_delay_rtts * p.virtual_rtt_s.max(w.s_rtt)))
    .clamp(0.0, 1.0);
    let scale_factor = 1.0 + p.mul_increase_factor * w.ref_wnd / w.mss;
    let mut inc = (acked - acked_ce) * ratio;
    let small_rtt = (w.s_rtt / p.virtual_rtt_s).min(1.0);
    inc *= small_rtt * small_rtt;
    inc *= scl.max(0.25);
    inc *= (1.0 - ratio).max(0.5);
    if w.l4s_alpha < 0.0001 {
        inc *= (1.0 - w.qdelay_avg / (w.qdelay_target / 4.0)).max(0.1);
    }
    let mul = if scale_factor > 1.0 {
        1.0 + (scale_factor - 1.0) * post_congestion * scl
    } else {
        scale_factor
    };
    inc * mul
}

/// §4.2.2.1's virtual CE weight l4s_alpha_v for a queue above qdelay_target/2 without loss
/// or CE: `None` while l4s_alpha reaches the two marks per RTT the target bitrate would give
/// (L4S seems active).
pub fn virtual_backoff(w: &WindowInputs, target_bps: f64) -> Option<f64> {
    let lim = 2.0 / target_bps * w.mss * 8.0 / w.s_rtt;
    let half = w.qdelay_target / 2.0;
    (w.l4s_alpha < lim).then(|| (2.0 * lim * ((w.qdelay_avg - half) / half).max(0.0)).min(1.0))
}

/// §4.4's target bitrate (bits/s) from ref_wnd, s_rtt, the bytes in flight over ref_wnd and
/// qdelay over its target.
pub fn target_bitrate(
    p: &Scream2Params,
    w: &WindowInputs,
    in_flight_ratio: f64,
    qdelay: f64,
) -> f64 {
    let mut tmp = 1.0;
    if qdelay / w.qdelay_target > 0.25 && in_flight_ratio > p.bytes_in_flight_limit {
        tmp /= p
            .bytes_in_flight_limit_compensation
            .min(in_flight_ratio / p.bytes_in_flight_limit);
    }
    tmp *= 1.0 - (w.ref_wnd_ratio() - 0.1).clamp(0.0, 0.2);
    tmp *= w.mss / (w.mss + p.packet_overhead_bytes);
    (tmp * 8.0 * w.ref_wnd / w.s_rtt).clamp(p.target_bitrate_min_bps, p.target_bitrate_max_bps)
}

/// SCReAMv2 at the sender.
#[derive(Clone, Debug)]
pub struct Scream2 {
    params: Scream2Params,
    config: RateConfig,
    mss: f64,
    ref_wnd: f64,
    ref_wnd_i: f64,
    target: f64,
    s_rtt: Option<f64>,
    qdelay: f64,
    qdelay_avg: f64,
    qdelay_target: f64,
    base: BaseDelay,
    compensation: QdelayTarget,
    loss_events: LossEventRate,
    loss_event_rate: f64,
    l4s_alpha: f64,
    delivered_this_rtt: u64,
    marked_this_rtt: u64,
    last_l4s_alpha_update: SimTime,
    last_qdelay_avg_update: SimTime,
    /// Loss or CE seen since the last reaction.
    loss_pending: bool,
    ce_pending: bool,
    last_congestion_detected: SimTime,
    last_reaction: SimTime,
    last_ref_wnd_i_update: Option<SimTime>,
    max_in_flight: f64,
    max_in_flight_prev: f64,
    in_flight_rtt_start: SimTime,
}

impl Scream2 {
    pub fn new(params: Scream2Params, config: RateConfig) -> Self {
        let p = params;
        let target = start_rate(&config, p.target_bitrate_min_bps, p.target_bitrate_max_bps);
        Scream2 {
            params,
            config,
            mss: config.packet_bytes as f64,
            ref_wnd: p.min_ref_wnd_bytes,
            ref_wnd_i: 1.0,
            target,
            s_rtt: None,
            qdelay: 0.0,
            qdelay_avg: 0.0,
            qdelay_target: p.qdelay_target_lo_s,
            base: BaseDelay::default(),
            compensation: QdelayTarget::new(NORM_VAR_SAMPLES, NORM_AVG_SAMPLES),
            loss_events: LossEventRate::default(),
            loss_event_rate: 0.0,
            l4s_alpha: 0.0,
            delivered_this_rtt: 0,
            marked_this_rtt: 0,
            last_l4s_alpha_update: SimTime::ZERO,
            last_qdelay_avg_update: SimTime::ZERO,
            loss_pending: false,
            ce_pending: false,
            last_congestion_detected: SimTime::ZERO,
            last_reaction: SimTime::ZERO,
            last_ref_wnd_i_update: None,
            max_in_flight: 0.0,
            max_in_flight_prev: 0.0,
            in_flight_rtt_start: SimTime::ZERO,
        }
    }

    fn inputs(&self, now: SimTime, s_rtt: f64) -> WindowInputs {
        WindowInputs {
            ref_wnd: self.ref_wnd,
            ref_wnd_i: self.ref_wnd_i,
            mss: self.mss,
            s_rtt,
            qdelay_avg: self.qdelay_avg,
            qdelay_target: self.qdelay_target,
            l4s_alpha: self.l4s_alpha,
            since_congestion: now.saturating_sub(self.last_congestion_detected).secs(),
        }
    }

    /// §4.2.1.3 and §4.2.1.4: l4s_alpha and qdelay_avg, each at most once an interval.
    fn update_averages(&mut self, now: SimTime, s_rtt: f64) {
        let p = self.params;
        if now.saturating_sub(self.last_l4s_alpha_update).secs() >= s_rtt.min(0.01)
            && self.delivered_this_rtt > 0
        {
            let fraction = self.marked_this_rtt as f64 / self.delivered_this_rtt as f64;
            self.l4s_alpha = if fraction >= self.l4s_alpha {
                p.l4s_avg_g_up * fraction + (1.0 - p.l4s_avg_g_up) * self.l4s_alpha
            } else {
                (1.0 - p.l4s_avg_g_down) * self.l4s_alpha
            };
            self.last_l4s_alpha_update = now;
            self.delivered_this_rtt = 0;
            self.marked_this_rtt = 0;
        }
        if now.saturating_sub(self.last_qdelay_avg_update).secs() >= p.virtual_rtt_s.min(s_rtt) {
            self.qdelay_avg = if self.qdelay < self.qdelay_avg {
                self.qdelay
            } else {
                p.qdelay_avg_g * self.qdelay + (1.0 - p.qdelay_avg_g) * self.qdelay_avg
            };
            self.last_qdelay_avg_update = now;
        }
    }

    /// §4.2.2.1: the reduction, at most once every min(VIRTUAL_RTT, s_rtt).
    fn reduce(&mut self, now: SimTime, s_rtt: f64) {
        let p = self.params;
        if now.saturating_sub(self.last_reaction).secs() < p.virtual_rtt_s.min(s_rtt) {
            return;
        }
        let w = self.inputs(now, s_rtt);
        let (is_loss, is_ce) = (self.loss_pending, self.ce_pending);
        let virtual_ce = (!is_loss && !is_ce && self.qdelay > self.qdelay_target / 2.0)
            .then(|| virtual_backoff(&w, self.target))
            .flatten();
        if !is_loss && !is_ce && virtual_ce.is_none() {
            return;
        }
        if self
            .last_ref_wnd_i_update
            .is_none_or(|t| now.saturating_sub(t).secs() > 10.0 * s_rtt)
        {
            self.last_ref_wnd_i_update = Some(now);
            self.ref_wnd_i = self.ref_wnd;
        }
        let ratio = w.ref_wnd_ratio();
        if is_loss {
            self.ref_wnd *= p.beta_loss;
        }
        if is_ce {
            if p.l4s {
                let mut backoff = self.l4s_alpha / 2.0 * (1.0 - ratio).max(0.5);
                if self.qdelay < self.qdelay_target * 0.25 {
                    backoff *= w.scl().max(0.25);
                }
                let long_calm = 100.0 * p.virtual_rtt_s.max(s_rtt);
                if now.saturating_sub(self.last_reaction).secs() > long_calm {
                    self.ref_wnd = self.ref_wnd.min(self.max_in_flight_prev);
                }
                self.ref_wnd *= 1.0 - backoff;
            } else {
                self.ref_wnd *= p.beta_ecn;
            }
        }
        if let Some(alpha_v) = virtual_ce {
            self.ref_wnd *= 1.0 - alpha_v / 2.0 * (1.0 - ratio).max(0.5);
        }
        self.ref_wnd = self.ref_wnd.max(p.min_ref_wnd_bytes);
        self.last_reaction = now;
        self.loss_pending = false;
        self.ce_pending = false;
    }
}

impl Controller for Scream2 {
    fn name(&self) -> String {
        "SCReAMv2".into()
    }

    fn on_feedback(&mut self, fb: &FeedbackSample) {
        let p = self.params;
        let now = fb.now;
        self.s_rtt = smoothed_rtt(self.s_rtt, fb);
        let acked: u64 = fb.packets.iter().map(|p| p.size_bytes as u64).sum();
        let acked_ce: u64 = fb
            .packets
            .iter()
            .filter(|p| p.ce)
            .map(|p| p.size_bytes as u64)
            .sum();
        let in_flight = (fb.in_flight_bytes.saturating_add(acked)) as f64;
        let in_flight_ratio = in_flight / self.ref_wnd;
        if let Some(q) = self.base.from_report(fb) {
            self.qdelay = q;
        }
        let lost = fb.lost_pkts() > 0;
        let ce = fb.ce_pkts() > 0;
        self.delivered_this_rtt += fb.packets.iter().filter(|p| p.received()).count() as u64;
        self.marked_this_rtt += fb.ce_pkts() as u64;
        if lost || ce {
            self.last_congestion_detected = now;
            self.loss_pending |= lost;
            self.ce_pending |= ce;
        }
        self.loss_event_rate = self.loss_events.update(now, lost, self.s_rtt);
        if p.compensate {
            let bounds = (p.qdelay_target_lo_s, p.qdelay_target_hi_s);
            let (q, target) = (self.qdelay, self.qdelay_target);
            self.qdelay_target = self
                .compensation
                .adjust(q, target, bounds, self.loss_event_rate);
        }
        let Some(s_rtt) = self.s_rtt.filter(|s| *s > 0.0) else {
            return;
        };
        // The most bytes in flight of this smoothed RTT and of the one before.
        self.max_in_flight = self.max_in_flight.max(in_flight);
        if now.saturating_sub(self.in_flight_rtt_start).secs() >= s_rtt {
            self.max_in_flight_prev = self.max_in_flight;
            self.max_in_flight = in_flight;
            self.in_flight_rtt_start = now;
        }
        self.update_averages(now, s_rtt);
        self.reduce(now, s_rtt);
        let w = self.inputs(now, s_rtt);
        let grown = self.ref_wnd + increment(&p, &w, acked as f64, acked_ce as f64);
        let allowed = self.mss
            + self.max_in_flight.max(self.max_in_flight_prev) * p.bytes_in_flight_head_room;
        if grown <= allowed && self.target < p.target_bitrate_max_bps {
            self.ref_wnd = grown;
        }
        let w = self.inputs(now, s_rtt);
        self.target = target_bitrate(&p, &w, in_flight_ratio, self.qdelay);
    }

    fn window(&self) -> f64 {
        // §4.3.1 with rel_framesize_high = 1.
        self.ref_wnd * self.params.ref_wnd_overhead / self.mss
    }

    fn target_rate_bps(&self) -> Option<f64> {
        Some(self.config.clamp(self.target))
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        let p = &self.params;
        let pace = self.target.max(p.rate_pace_min_bps) * p.packet_pacing_headroom;
        Some(self.config.clamp(pace))
    }

    fn runs_in_rounds(&self) -> bool {
        false
    }

    fn feedback_plan(&self) -> Option<FeedbackPlan> {
        let rate_fb = (0.02 * self.params.target_bitrate_max_bps / 800.0).clamp(10.0, 1000.0);
        Some(FeedbackPlan {
            format: FeedbackFormat::Rfc8888,
            interval: SimTime::from_secs_f64(1.0 / rate_fb),
            per_frame: true,
        })
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([
            ("ref_wnd_bytes", self.ref_wnd),
            ("ref_wnd_i_bytes", self.ref_wnd_i),
            ("qdelay_ms", self.qdelay * 1e3),
            ("qdelay_avg_ms", self.qdelay_avg * 1e3),
            ("qdelay_target_ms", self.qdelay_target * 1e3),
            ("l4s_alpha", self.l4s_alpha),
            ("loss_event_rate", self.loss_event_rate),
            ("scream_target_bps", self.target),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::PacketStatus;

    fn inputs() -> WindowInputs {
        WindowInputs {
            ref_wnd: 20_000.0,
            ref_wnd_i: 10_000.0,
            mss: 1000.0,
            s_rtt: 0.05,
            qdelay_avg: 0.005,
            qdelay_target: 0.06,
            l4s_alpha: 0.0,
            since_congestion: 2.5,
        }
    }

    /// §4.2.2.2 worked by hand at the draft's constants, MSS 1000 B, ref_wnd 20 000 B,
    /// ref_wnd_i 10 000 B, s_rtt 50 ms, qdelay_avg 5 ms against a 60 ms target, 2.5 s after
    /// congestion, 3000 B newly acked of which 1000 B CE-marked:
    /// ref_wnd_ratio = 0.05; scl = (8·10 000/10 000)² = 64 → 1; (3000 − 1000)·0.05 = 100;
    /// s_rtt ≥ VIRTUAL_RTT: ×1; ×max(0.25, 1) = 1; ×max(0.5, 0.95) → 95; l4s_alpha = 0:
    /// ×max(0.1, 1 − 5/15) → 63.33; scale factor 1 + 0.02·20 = 1.4, post-congestion scale
    /// 2.5/(100·0.05) = 0.5: ×(1 + 0.4·0.5·1) = 1.2 → 76 B.
    #[test]
    fn the_reference_window_increase_matches_the_draft_worked_by_hand() {
        let p = Scream2Params::default();
        let w = inputs();
        assert!((increment(&p, &w, 3000.0, 1000.0) - 76.0).abs() < 1e-9);
        // Near the inflection point: ref_wnd 10 500: scl = (8·0.05)² = 0.16, the increase
        // ×max(0.25, 0.16) and the multiplicative part ×0.16; ratio 1000/10 500.
        let near = WindowInputs {
            ref_wnd: 10_500.0,
            ..w
        };
        assert!((near.scl() - 0.16).abs() < 1e-12);
        let ratio = 1000.0 / 10_500.0;
        let by_hand =
            2000.0 * ratio * 0.25 * (1.0 - ratio) * (2.0 / 3.0) * (1.0 + 0.21 * 0.5 * 0.16);
        assert!((increment(&p, &near, 3000.0, 1000.0) - by_hand).abs() < 1e-9);
        // Right after congestion the growth is additive: no multiplicative part.
        let fresh = WindowInputs {
            since_congestion: 0.0,
            ..w
        };
        assert!((increment(&p, &fresh, 3000.0, 1000.0) - 63.333_333_333_333_33).abs() < 1e-9);
        // A queue at a quarter of the target or more: the brake's floor 0.1.
        let queued = WindowInputs {
            qdelay_avg: 0.03,
            ..w
        };
        assert!((increment(&p, &queued, 3000.0, 1000.0) - 95.0 * 0.1 * 1.2).abs() < 1e-9);
        // A round trip below VIRTUAL_RTT: ×(10/25)².
        let short = WindowInputs { s_rtt: 0.01, ..w };
        let post: f64 = 2.5 / (100.0 * 0.025);
        let by_hand = 95.0 * 0.16 * (2.0 / 3.0) * (1.0 + 0.4 * post.min(1.0));
        assert!((increment(&p, &short, 3000.0, 1000.0) - by_hand).abs() < 1e-9);
    }

    /// §4.4 worked by hand: 8·20 000/0.05 = 3.2 Mb/s; ref_wnd_ratio 0.05 ≤ 0.1: no small-window
    /// cut; ×1000/1020 → 3.137 Mb/s; bytes in flight 1.2 × ref_wnd with qdelay 30 ms (half the
    /// target > 0.25): ÷min(1.5, 1.2/0.9) → 2.353 Mb/s; with TARGET_BITRATE_MAX 1.5 Mb/s (the
    /// default) the cap. A window of 2000 B (ratio 0.5): ×(1 − 0.2) → 250.98 kb/s.
    #[test]
    fn the_target_bitrate_matches_the_draft_worked_by_hand() {
        let wide = Scream2Params {
            target_bitrate_max_bps: 10e6,
            ..Scream2Params::default()
        };
        let w = inputs();
        let free = 3.2e6 * 1000.0 / 1020.0;
        assert!((target_bitrate(&wide, &w, 0.5, 0.03) - free).abs() < 1e-6);
        assert!(
            (target_bitrate(&wide, &w, 1.2, 0.01) - free).abs() < 1e-6,
            "qdelay/target ≤ 0.25"
        );
        assert!((target_bitrate(&wide, &w, 1.2, 0.03) - free * 0.75).abs() < 1e-6);
        assert!((target_bitrate(&wide, &w, 3.0, 0.03) - free / 1.5).abs() < 1e-6);
        assert_eq!(
            target_bitrate(&Scream2Params::default(), &w, 0.5, 0.03),
            1.5e6
        );
        let small = WindowInputs {
            ref_wnd: 2000.0,
            ..w
        };
        let by_hand = 0.8 * 1000.0 / 1020.0 * 8.0 * 2000.0 / 0.05;
        assert!((target_bitrate(&wide, &small, 0.5, 0.0) - by_hand).abs() < 1e-6);
    }

    /// §4.2.2.1's virtual CE worked by hand: target 1 Mb/s, MSS 1000 B, s_rtt 50 ms: two marks
    /// per RTT are lim = 2·8000/(10⁶·0.05) = 0.32; qdelay_avg 45 ms against 60 ms: (45 −
    /// 30)/30 = 0.5, l4s_alpha_v = min(1, 2·0.32·0.5) = 0.32. With l4s_alpha at 0.32 or more,
    /// L4S is taken as active: none.
    #[test]
    fn the_virtual_ce_weight_matches_the_draft_worked_by_hand() {
        let w = WindowInputs {
            qdelay_avg: 0.045,
            ..inputs()
        };
        assert!((virtual_backoff(&w, 1e6).unwrap() - 0.32).abs() < 1e-12);
        let active = WindowInputs {
            l4s_alpha: 0.32,
            ..w
        };
        assert_eq!(virtual_backoff(&active, 1e6), None);
        let deep = WindowInputs {
            qdelay_avg: 0.5,
            ..w
        };
        assert_eq!(virtual_backoff(&deep, 1e6), Some(1.0));
    }

    fn report(now_ms: u64, first: u64, lost: bool, ce: bool) -> FeedbackSample {
        let ms = SimTime::from_ms;
        let packets = (first..first + 5)
            .map(|k| PacketStatus {
                seq: k,
                size_bytes: 1000,
                sent_at: ms(now_ms - 60),
                arrived_at: (!(lost && k == first)).then(|| ms(now_ms - 20)),
                ect: true,
                ce: ce && k == first,
            })
            .collect();
        FeedbackSample {
            now: ms(now_ms),
            report_at: ms(now_ms),
            rtt: Some(ms(50)),
            in_flight_bytes: 20_000,
            packets,
            ..FeedbackSample::default()
        }
    }

    /// A loss scales ref_wnd by BETA_LOSS, a classic CE mark by BETA_ECN, an L4S mark by
    /// 1 − l4s_alpha/2·max(0.5, 1 − MSS/ref_wnd)·max(0.25, scl) (l4s_alpha after one update at
    /// 1/5 marked: 0.2/8 = 0.025; qdelay 0 is below a quarter of the target, and scl is taken
    /// with ref_wnd_i before this event's update, as §4.2.2.1 says, 1 B: scl = 1), each at most once every
    /// min(VIRTUAL_RTT, s_rtt) = 25 ms, a mark between two reactions kept for the next. The
    /// same report's increase adds at most the bytes acked × MSS/ref_wnd (no multiplicative
    /// part right after congestion).
    #[test]
    fn loss_and_ce_cut_the_reference_window_by_the_drafts_factors() {
        let p = Scream2Params::default();
        for (lost, ce, l4s) in [
            (true, false, false),
            (false, true, false),
            (false, true, true),
        ] {
            let mut s = Scream2::new(Scream2Params { l4s, ..p }, RateConfig::default());
            s.on_feedback(&report(100, 0, false, false));
            s.ref_wnd = 20_000.0;
            s.on_feedback(&report(110, 5, lost, ce));
            let factor = if lost {
                p.beta_loss
            } else if !l4s {
                p.beta_ecn
            } else {
                1.0 - 0.025 / 2.0 * 0.95
            };
            let cut = 20_000.0 * factor;
            let most = cut + 5000.0 * 1000.0 / cut;
            assert!(
                s.ref_wnd >= cut && s.ref_wnd <= most,
                "{lost} {ce} {l4s}: {} against {cut}",
                s.ref_wnd
            );
            assert_eq!(s.last_reaction, SimTime::from_ms(110));
            // Another mark 10 ms later waits; it reacts with the report 30 ms after the cut.
            s.on_feedback(&report(120, 10, lost, ce));
            assert_eq!(s.last_reaction, SimTime::from_ms(110));
            s.on_feedback(&report(140, 15, false, false));
            assert_eq!(s.last_reaction, SimTime::from_ms(140), "{lost} {ce} {l4s}");
        }
    }

    /// Property: on random feedback (random delays, losses, CE marks, gaps, in-flight and
    /// queue lengths), SCReAMv2's window stays ≥ MIN_REF_WND·REF_WND_OVERHEAD, its rates finite
    /// and within their bounds and its state finite; 200 random sequences of 200 reports, in
    /// classic and in L4S mode.
    #[test]
    fn random_feedback_keeps_every_output_finite_and_bounded() {
        for seed in 0..200 {
            let p = Scream2Params {
                l4s: seed % 2 == 1,
                ..Scream2Params::default()
            };
            let mut s = Scream2::new(p, RateConfig::default());
            for fb in crate::control::media::random_feedback(seed, 200) {
                s.on_feedback(&fb);
                let w = s.window();
                assert!(
                    w.is_finite() && w * 1000.0 >= p.min_ref_wnd_bytes * p.ref_wnd_overhead - 1e-6,
                    "seed {seed}: {w}"
                );
                let target = s.target_rate_bps().unwrap();
                assert!(
                    (p.target_bitrate_min_bps..=p.target_bitrate_max_bps).contains(&target),
                    "seed {seed}: {target}"
                );
                let pace = s.pacing_rate_bps().unwrap();
                assert!(
                    pace.is_finite() && pace >= p.rate_pace_min_bps * p.packet_pacing_headroom,
                    "seed {seed}: {pace}"
                );
                assert!((p.qdelay_target_lo_s..=p.qdelay_target_hi_s).contains(&s.qdelay_target));
                assert!(
                    (0.0..=1.0).contains(&s.l4s_alpha),
                    "seed {seed}: {}",
                    s.l4s_alpha
                );
                let mut state = Vec::new();
                s.state(&mut state);
                for (name, v) in state {
                    assert!(v.is_finite(), "seed {seed}: {name} = {v}");
                }
            }
        }
    }

    /// §5's feedback rate at TARGET_BITRATE_MAX 1.5 Mb/s: 0.02·1.5·10⁶/800 = 37.5 a second,
    /// every 26.67 ms; at 150 kb/s it would be 3.75, raised to 10 (100 ms).
    #[test]
    fn the_feedback_interval_follows_the_drafts_rate() {
        let at = |max| {
            let p = Scream2Params {
                target_bitrate_max_bps: max,
                ..Scream2Params::default()
            };
            Scream2::new(p, RateConfig::default())
                .feedback_plan()
                .unwrap()
                .interval
                .secs()
        };
        assert!((at(1.5e6) - 1.0 / 37.5).abs() < 1e-9);
        assert!((at(150e3) - 0.1).abs() < 1e-9);
    }
}
