//! SCReAM, Self-Clocked Rate Adaptation for Multimedia, as RFC 8298 gives it (v1).
//!
//! Network congestion control (§4.1.2), on each feedback report:
//! - qdelay = one-way delay − base delay, the base the least one-way delay of the last ten
//!   one-minute intervals (LEDBAT, RFC 6817 §3.4.2);
//! - qdelay_fraction_avg, an EWMA (QDELAY_WEIGHT) of qdelay/qdelay_target; every 50 ms the
//!   history of the last 20 fractions gives the trend: qdelay_trend = clip(a·avg, 0, 1) with a
//!   the lag-1 autocorrelation over the lag-0 one (mean removed), and qdelay_trend_mem =
//!   max(0.99·qdelay_trend_mem, qdelay_trend) (§4.1.2.1);
//! - the qdelay target between QDELAY_TARGET_LO and QDELAY_TARGET_HI follows competing
//!   loss-based traffic (§4.1.2.2, [`Scream::adjust_qdelay_target`]);
//! - at most once a smoothed RTT, a loss scales cwnd by BETA_LOSS and an ECN-CE mark by
//!   BETA_ECN (both end fast increase); otherwise cwnd grows: in fast increase by the bytes
//!   newly acked while the window is used (bytes_in_flight·1.5 + newly acked > cwnd), until the
//!   trend reaches QDELAY_TREND_TH; else by GAIN·off_target·bytes_newly_acked·MSS/cwnd with
//!   off_target = (qdelay_target − qdelay)/qdelay_target, no growth while the window is
//!   under-used (bytes_in_flight·1.25 + newly acked ≤ cwnd); cwnd ≤ MAX_BYTES_IN_FLIGHT_HEAD_ROOM
//!   × the most bytes in flight lately, ≥ MIN_CWND (§4.1.2.4); fast increase resumes after
//!   T_RESUME_FAST_INCREASE with the trend below QDELAY_TREND_LO;
//! - the send window (§4.1.2.5): cwnd + MSS − bytes_in_flight while qdelay ≤ qdelay_target,
//!   else cwnd − bytes_in_flight; the media transport sends while bytes in flight plus the next
//!   packet fit [`Controller::window`] (the send window's limit, in packets);
//! - packet pacing (§4.1.2.6): max(RATE_PACE_MIN, 8·cwnd/s_rtt).
//!
//! Media rate control (§4.1.3), every RATE_ADJUST_INTERVAL, and at once on a loss or CE event
//! (the congestion event that cuts cwnd), which scales the target by BETA_R (loss) or BETA_ECN
//! (CE) and stands for that interval's adjustment; in fast increase the target grows by
//! RAMP_UP_SPEED·interval·scale; else by the current rate less the RTP queue
//! (`TX_QUEUE_SIZE_FACTOR`·rtp_queue_size, bits), increases limited by the ramp-up speed; an RTP
//! queue delay above RTP_QDELAY_TH scales it by TARGET_RATE_SCALE_RTP_QDELAY; it never exceeds
//! (2 − qdelay_trend_mem) × the media rate reached; scale = clip((4·(target − last_max)/
//! last_max)², 0.2, 1) slows growth near the rate of the last congestion.
//!
//! Readings of ours (this file's RFC 8298 text was reached only through secondary copies:
//! constants and pseudocode structure were checked against them, the items below are ours):
//! - MSS is the source's packet size (the RFC: the largest RTP packet);
//! - bytes_newly_acked counts every packet a report covers, lost ones included (§4.1.2's
//!   definition); bytes_in_flight is the transport's count before the report;
//! - the most bytes in flight is taken over the last [`IN_FLIGHT_WINDOW`];
//! - rate_ack is the receive rate and rate_transmit the send rate of the packets reported,
//!   over [`RATE_WINDOW`]; the media rate is rate_transmit (the encoder's output as sent);
//! - the RTP queue is the transport's queue of bytes not yet sent when the report arrives;
//! - loss_event_rate is an EWMA (1/8 a smoothed RTT) of whether the RTT saw a loss;
//!   competing-flow compensation keeps the normalized qdelay of the last 100 reports; with a
//!   steady queue (variance below 0.2) it sets the target to the queue's mean plus one
//!   deviation, which lets a SCReAM flow alone raise its own target toward QDELAY_TARGET_HI:
//!   `compensate = 0` keeps the target at QDELAY_TARGET_LO (a point to check against the RFC);
//! - the prompt cut on loss or CE restarts the RATE_ADJUST_INTERVAL (§4.1.3's pseudocode
//!   "exits" the adjustment after it);
//! - target_bitrate_last_max is the target at the last congestion event or end of fast
//!   increase (1 b/s before: no slow-down then).

use std::collections::VecDeque;

use super::{smoothed_rtt, start_rate, BaseDelay, LossEventRate, QdelayTarget, RateMeter};
use crate::control::rate::RateConfig;
use crate::control::{Controller, FeedbackFormat, FeedbackPlan, FeedbackSample, PacketStatus};
use crate::time::SimTime;

/// Window over which the most bytes in flight is taken.
pub const IN_FLIGHT_WINDOW: SimTime = SimTime::from_ms(5000);
/// Window of the transmit and acknowledged rates.
pub const RATE_WINDOW: SimTime = SimTime::from_ms(500);
/// Qdelay fractions the trend is computed from (§4.1.1: qdelay_fraction_hist[20]).
const TREND_SAMPLES: usize = 20;
/// Interval of the trend's history (§4.1.2.1: every 50 ms).
const TREND_EVERY: SimTime = SimTime::from_ms(50);
/// Normalized qdelay samples of the competing-flow compensation (§4.1.1's
/// qdelay_norm_hist[100]; its pseudocode in §4.1.2.2 reads a variance over 200 and an average
/// over 50: the state variable's 100 is taken for both).
const NORM_SAMPLES: usize = 100;

/// SCReAM's parameters; [`ScreamParams::default`] gives RFC 8298 §4.1.1's values. RFC 8298's
/// text was not readable here; draft-johansson-ccwg-scream-bis-00's source still carries its
/// QDELAY_TARGET_LO/HI, MIN_CWND, MAX_BYTES_IN_FLIGHT_HEAD_ROOM and RATE_PACE_MIN (equal); the
/// others are checked only against a transcription in code (libtgvoip's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScreamParams {
    /// QDELAY_TARGET_LO (s): the least qdelay target (0.1 s).
    pub qdelay_target_lo_s: f64,
    /// QDELAY_TARGET_HI (s): the greatest qdelay target (0.4 s).
    pub qdelay_target_hi_s: f64,
    /// QDELAY_WEIGHT: EWMA weight of qdelay_fraction_avg (0.1).
    pub qdelay_weight: f64,
    /// QDELAY_TREND_TH: trend that ends fast increase (0.2).
    pub qdelay_trend_th: f64,
    /// MIN_CWND (bytes): the least congestion window (3000).
    pub min_cwnd_bytes: f64,
    /// MAX_BYTES_IN_FLIGHT_HEAD_ROOM: cwnd ≤ this × the most bytes in flight (1.1).
    pub max_bytes_in_flight_head_room: f64,
    /// GAIN: the window's gain (1.0).
    pub gain: f64,
    /// BETA_LOSS: cwnd scale on a loss event (0.8).
    pub beta_loss: f64,
    /// BETA_ECN: cwnd and target scale on an ECN event (0.9).
    pub beta_ecn: f64,
    /// BETA_R: target rate scale on a loss event (0.9).
    pub beta_r: f64,
    /// RATE_ADJUST_INTERVAL (s): period of the media rate control (0.2 s).
    pub rate_adjust_interval_s: f64,
    /// TARGET_BITRATE_MIN (bits/s): left to the codec by the RFC (RFC 8593's 150 kb/s).
    pub target_bitrate_min_bps: f64,
    /// TARGET_BITRATE_MAX (bits/s): left to the codec by the RFC (RFC 8593's 1.5 Mb/s).
    pub target_bitrate_max_bps: f64,
    /// RAMP_UP_SPEED (bits/s²): the target's greatest growth (200 kb/s per second).
    pub ramp_up_speed_bps: f64,
    /// PRE_CONGESTION_GUARD: how far the trend slows growth (0.0, the RFC allows 0.0–0.2).
    pub pre_congestion_guard: f64,
    /// TX_QUEUE_SIZE_FACTOR: weight of the RTP queue in the rate change (1.0).
    pub tx_queue_size_factor: f64,
    /// RTP_QDELAY_TH (s): RTP queue delay above which the target is cut (0.02 s).
    pub rtp_qdelay_th_s: f64,
    /// TARGET_RATE_SCALE_RTP_QDELAY: that cut (0.95).
    pub target_rate_scale_rtp_qdelay: f64,
    /// QDELAY_TREND_LO: trend below which fast increase may resume (0.2).
    pub qdelay_trend_lo: f64,
    /// T_RESUME_FAST_INCREASE (s): how long the trend must stay low (5 s).
    pub t_resume_fast_increase_s: f64,
    /// RATE_PACE_MIN (bits/s): the least pacing rate (50 kb/s).
    pub rate_pace_min_bps: f64,
    /// Whether the qdelay target follows competing flows (§4.1.2.2); off: QDELAY_TARGET_LO.
    pub compensate: bool,
}

impl Default for ScreamParams {
    fn default() -> Self {
        ScreamParams {
            qdelay_target_lo_s: 0.1,
            qdelay_target_hi_s: 0.4,
            qdelay_weight: 0.1,
            qdelay_trend_th: 0.2,
            min_cwnd_bytes: 3000.0,
            max_bytes_in_flight_head_room: 1.1,
            gain: 1.0,
            beta_loss: 0.8,
            beta_ecn: 0.9,
            beta_r: 0.9,
            rate_adjust_interval_s: 0.2,
            target_bitrate_min_bps: 150e3,
            target_bitrate_max_bps: 1.5e6,
            ramp_up_speed_bps: 200e3,
            pre_congestion_guard: 0.0,
            tx_queue_size_factor: 1.0,
            rtp_qdelay_th_s: 0.02,
            target_rate_scale_rtp_qdelay: 0.95,
            qdelay_trend_lo: 0.2,
            t_resume_fast_increase_s: 5.0,
            rate_pace_min_bps: 50e3,
            compensate: true,
        }
    }
}

/// §4.1.2.1's trend: clip(R(h, 1)/R(h, 0) · avg, 0, 1), R the autocorrelation of the history
/// `h` (mean removed) at a lag; 0 while the history is flat.
pub fn qdelay_trend(hist: &VecDeque<f64>, avg: f64) -> f64 {
    let n = hist.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let mean = hist.iter().sum::<f64>() / n;
    let r0: f64 = hist.iter().map(|x| (x - mean).powi(2)).sum();
    let r1: f64 = hist
        .iter()
        .zip(hist.iter().skip(1))
        .map(|(a, b)| (a - mean) * (b - mean))
        .sum();
    if r0 > 0.0 {
        (r1 / r0 * avg).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// §4.1.2.4's window growth without congestion, out of fast increase: the change of cwnd
/// (bytes) for `qdelay` against `target` after `newly_acked` bytes.
pub fn cwnd_delta(
    p: &ScreamParams,
    cwnd: f64,
    in_flight: f64,
    newly_acked: f64,
    qdelay: f64,
    target: f64,
    mss: f64,
) -> f64 {
    let off_target = (target - qdelay) / target;
    if off_target > 0.0 && in_flight * 1.25 + newly_acked <= cwnd {
        0.0
    } else {
        p.gain * off_target * newly_acked * mss / cwnd
    }
}

/// SCReAM at the sender.
#[derive(Clone, Debug)]
pub struct Scream {
    params: ScreamParams,
    config: RateConfig,
    mss: f64,
    cwnd: f64,
    target: f64,
    target_last_max: f64,
    s_rtt: Option<f64>,
    qdelay: f64,
    qdelay_target: f64,
    qdelay_fraction_avg: f64,
    qdelay_fraction_hist: VecDeque<f64>,
    qdelay_trend: f64,
    qdelay_trend_mem: f64,
    compensation: QdelayTarget,
    base: BaseDelay,
    in_fast_increase: bool,
    /// Last time the trend was at or above QDELAY_TREND_LO.
    trend_high_at: SimTime,
    last_trend_update: Option<SimTime>,
    last_congestion: Option<SimTime>,
    last_rate_adjust: Option<SimTime>,
    in_flight: VecDeque<(SimTime, u64)>,
    in_flight_now: f64,
    loss_event_rate: f64,
    loss_events: LossEventRate,
    ack_meter: RateMeter,
    send_meter: RateMeter,
    rtp_queue_bits: f64,
}

impl Scream {
    pub fn new(params: ScreamParams, config: RateConfig) -> Self {
        let p = params;
        let target = start_rate(&config, p.target_bitrate_min_bps, p.target_bitrate_max_bps);
        Scream {
            params,
            config,
            mss: config.packet_bytes as f64,
            cwnd: p.min_cwnd_bytes,
            target,
            target_last_max: 1.0,
            s_rtt: None,
            qdelay: 0.0,
            qdelay_target: p.qdelay_target_lo_s,
            qdelay_fraction_avg: 0.0,
            qdelay_fraction_hist: VecDeque::with_capacity(TREND_SAMPLES),
            qdelay_trend: 0.0,
            qdelay_trend_mem: 0.0,
            compensation: QdelayTarget::new(NORM_SAMPLES, NORM_SAMPLES),
            base: BaseDelay::default(),
            in_fast_increase: true,
            trend_high_at: SimTime::ZERO,
            last_trend_update: None,
            last_congestion: None,
            last_rate_adjust: None,
            in_flight: VecDeque::new(),
            in_flight_now: 0.0,
            loss_event_rate: 0.0,
            loss_events: LossEventRate::default(),
            ack_meter: RateMeter::new(RATE_WINDOW),
            send_meter: RateMeter::new(RATE_WINDOW),
            rtp_queue_bits: 0.0,
        }
    }

    /// §4.1.2.1: the qdelay fraction's average, history, trend and its memory.
    fn update_trend(&mut self, now: SimTime) {
        let p = &self.params;
        let fraction = self.qdelay / self.qdelay_target;
        self.qdelay_fraction_avg =
            (1.0 - p.qdelay_weight) * self.qdelay_fraction_avg + p.qdelay_weight * fraction;
        if self
            .last_trend_update
            .is_some_and(|t| now.saturating_sub(t) < TREND_EVERY)
        {
            return;
        }
        self.last_trend_update = Some(now);
        if self.qdelay_fraction_hist.len() == TREND_SAMPLES {
            self.qdelay_fraction_hist.pop_front();
        }
        self.qdelay_fraction_hist.push_back(fraction);
        self.qdelay_trend = qdelay_trend(&self.qdelay_fraction_hist, self.qdelay_fraction_avg);
        self.qdelay_trend_mem = (0.99 * self.qdelay_trend_mem).max(self.qdelay_trend);
        if self.qdelay_trend >= p.qdelay_trend_lo {
            self.trend_high_at = now;
        }
    }

    /// §4.1.2.2: the qdelay target follows competing loss-based flows.
    pub fn adjust_qdelay_target(&mut self) {
        let p = &self.params;
        let bounds = (p.qdelay_target_lo_s, p.qdelay_target_hi_s);
        let rate = self.loss_event_rate;
        self.qdelay_target =
            self.compensation
                .adjust(self.qdelay, self.qdelay_target, bounds, rate);
    }

    /// §4.1.2.4: the congestion window after a report.
    fn update_cwnd(&mut self, now: SimTime, newly_acked: f64, lost: bool, ce: bool) {
        let p = self.params;
        let rtt = self.s_rtt.unwrap_or(0.0);
        let may_react = self
            .last_congestion
            .is_none_or(|t| now.saturating_sub(t).secs() > rtt);
        if (lost || ce) && may_react {
            self.cwnd *= if lost { p.beta_loss } else { p.beta_ecn };
            self.cwnd = self.cwnd.max(p.min_cwnd_bytes);
            self.last_congestion = Some(now);
            self.in_fast_increase = false;
            self.target_last_max = self.target;
            // §4.1.3: the target's prompt cut ("on loss" BETA_R, "on ecn_mark" BETA_ECN).
            let beta = if lost { p.beta_r } else { p.beta_ecn };
            self.target = (beta * self.target).max(p.target_bitrate_min_bps);
            self.last_rate_adjust = Some(now);
            self.trend_high_at = now;
            return;
        }
        if self.in_fast_increase {
            if self.qdelay_trend >= p.qdelay_trend_th {
                self.in_fast_increase = false;
                self.target_last_max = self.target;
            } else if self.in_flight_now * 1.5 + newly_acked > self.cwnd {
                self.cwnd += newly_acked;
            }
        } else {
            self.cwnd += cwnd_delta(
                &p,
                self.cwnd,
                self.in_flight_now,
                newly_acked,
                self.qdelay,
                self.qdelay_target,
                self.mss,
            );
            if now.saturating_sub(self.trend_high_at).secs() >= p.t_resume_fast_increase_s {
                self.in_fast_increase = true;
            }
        }
        let most = self.in_flight.iter().map(|f| f.1).max().unwrap_or(0) as f64;
        self.cwnd = self
            .cwnd
            .min(p.max_bytes_in_flight_head_room * most)
            .max(p.min_cwnd_bytes);
    }

    /// §4.1.3: the media target rate, every RATE_ADJUST_INTERVAL.
    fn adjust_rate(&mut self, now: SimTime) {
        let p = self.params;
        if self
            .last_rate_adjust
            .is_some_and(|t| now.saturating_sub(t).secs() < p.rate_adjust_interval_s)
        {
            return;
        }
        self.last_rate_adjust = Some(now);
        let ramp_t = p.ramp_up_speed_bps.min(self.target / 2.0);
        let s = (self.target - self.target_last_max) / self.target_last_max;
        let scale = (4.0 * s).powi(2).clamp(0.2, 1.0);
        let transmit = self.send_meter.rate_bps().unwrap_or(0.0);
        let current = transmit.max(self.ack_meter.rate_bps().unwrap_or(0.0));
        if self.in_fast_increase {
            self.target += ramp_t * p.rate_adjust_interval_s * scale;
        } else {
            let mut delta = current * (1.0 - p.pre_congestion_guard * self.qdelay_trend)
                - p.tx_queue_size_factor * self.rtp_queue_bits;
            if delta > 0.0 {
                delta = (delta * scale).min(ramp_t * p.rate_adjust_interval_s);
            }
            self.target += delta;
            if current > 0.0 && self.rtp_queue_bits / current > p.rtp_qdelay_th_s {
                self.target *= p.target_rate_scale_rtp_qdelay;
            }
        }
        if current > 0.0 {
            self.target = self
                .target
                .min(current.max(transmit) * (2.0 - self.qdelay_trend_mem));
        }
        self.target = self
            .target
            .clamp(p.target_bitrate_min_bps, p.target_bitrate_max_bps);
    }

    /// The send window's limit on bytes in flight (§4.1.2.5).
    fn send_limit(&self) -> f64 {
        if self.qdelay <= self.qdelay_target {
            self.cwnd + self.mss
        } else {
            self.cwnd
        }
    }
}

impl Controller for Scream {
    fn name(&self) -> String {
        "SCReAM".into()
    }

    fn on_feedback(&mut self, fb: &FeedbackSample) {
        let now = fb.now;
        self.s_rtt = smoothed_rtt(self.s_rtt, fb);
        let newly_acked: u64 = fb.packets.iter().map(|p| p.size_bytes as u64).sum();
        self.in_flight_now = (fb.in_flight_bytes + newly_acked) as f64;
        self.in_flight
            .push_back((now, fb.in_flight_bytes + newly_acked));
        while self
            .in_flight
            .front()
            .is_some_and(|f| f.0 + IN_FLIGHT_WINDOW < now)
        {
            self.in_flight.pop_front();
        }
        self.rtp_queue_bits = 8.0 * fb.queued_bytes.min(u32::MAX as u64) as f64;
        if let Some(q) = self.base.from_report(fb) {
            self.qdelay = q;
        }
        let lost = fb.lost_pkts() > 0;
        self.loss_event_rate = self.loss_events.update(now, lost, self.s_rtt);
        self.ack_meter.push(&fb.packets);
        let sends: Vec<PacketStatus> = fb
            .packets
            .iter()
            .map(|p| PacketStatus {
                arrived_at: Some(p.sent_at),
                ..*p
            })
            .collect();
        self.send_meter.push(&sends);
        self.update_trend(now);
        if self.params.compensate {
            self.adjust_qdelay_target();
        }
        self.update_cwnd(now, newly_acked as f64, lost, fb.ce_pkts() > 0);
        self.adjust_rate(now);
    }

    fn window(&self) -> f64 {
        self.send_limit() / self.mss
    }

    fn target_rate_bps(&self) -> Option<f64> {
        Some(self.config.clamp(self.target))
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        let p = &self.params;
        let pace = match self.s_rtt {
            Some(rtt) if rtt > 0.0 => 8.0 * self.cwnd / rtt,
            _ => self.target,
        };
        Some(self.config.clamp(pace.max(p.rate_pace_min_bps)))
    }

    fn runs_in_rounds(&self) -> bool {
        false
    }

    fn feedback_plan(&self) -> Option<FeedbackPlan> {
        // §4.1.2's feedback is the list of received packets with their ECN-CE marks and the
        // arrival time of the latest, which RFC 8888's report carries; once a frame and at
        // least every 50 ms is ours (a report about every RTT's fraction at 30 fps).
        Some(FeedbackPlan {
            format: FeedbackFormat::Rfc8888,
            interval: SimTime::from_ms(50),
            per_frame: true,
        })
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([
            ("cwnd_bytes", self.cwnd),
            ("qdelay_ms", self.qdelay * 1e3),
            ("qdelay_target_ms", self.qdelay_target * 1e3),
            ("qdelay_trend", self.qdelay_trend),
            ("qdelay_trend_mem", self.qdelay_trend_mem),
            ("fast_increase", f64::from(u8::from(self.in_fast_increase))),
            ("loss_event_rate", self.loss_event_rate),
            ("scream_target_bps", self.target),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §4.1.2.4's growth worked by hand at GAIN = 1, MSS = 1000 B, cwnd = 10 000 B, 2000 B
    /// newly acked, qdelay_target = 0.1 s:
    /// - qdelay 0.05 s, 9000 B in flight: off_target = 0.5; 9000·1.25 + 2000 = 13 250 > cwnd,
    ///   so the window is used: Δ = 1·0.5·2000·1000/10 000 = 100 B;
    /// - 5000 B in flight: 6250 + 2000 = 8250 ≤ cwnd, under-used: Δ = 0;
    /// - qdelay 0.15 s: off_target = −0.5, Δ = −100 B whatever the use.
    #[test]
    fn the_window_growth_matches_the_rfc_worked_by_hand() {
        let p = ScreamParams::default();
        let d =
            |in_flight, qdelay| cwnd_delta(&p, 10_000.0, in_flight, 2000.0, qdelay, 0.1, 1000.0);
        assert!((d(9000.0, 0.05) - 100.0).abs() < 1e-9);
        assert_eq!(d(5000.0, 0.05), 0.0);
        assert!((d(5000.0, 0.15) + 100.0).abs() < 1e-9);
    }

    /// §4.1.2.1's trend worked by hand: history [0, 1, 2, 3], mean 1.5, deviations ±1.5, ±0.5:
    /// R(0) = 2.25 + 0.25 + 0.25 + 2.25 = 5, R(1) = 0.75 − 0.25 + 0.75 = 1.25, a = 0.25; with
    /// qdelay_fraction_avg = 2 the trend is 0.5, with 8 it is clipped to 1. An alternating
    /// history [0, 1, 0, 1] has R(1) = −0.75 < 0: trend 0. A flat one has none.
    #[test]
    fn the_qdelay_trend_matches_the_rfc_worked_by_hand() {
        let h = |v: &[f64]| v.iter().copied().collect::<VecDeque<f64>>();
        assert!((qdelay_trend(&h(&[0.0, 1.0, 2.0, 3.0]), 2.0) - 0.5).abs() < 1e-12);
        assert_eq!(qdelay_trend(&h(&[0.0, 1.0, 2.0, 3.0]), 8.0), 1.0);
        assert_eq!(qdelay_trend(&h(&[0.0, 1.0, 0.0, 1.0]), 2.0), 0.0);
        assert_eq!(qdelay_trend(&h(&[0.5; 20]), 2.0), 0.0);
    }

    fn report(now: SimTime, in_flight: u64, packets: Vec<PacketStatus>) -> FeedbackSample {
        FeedbackSample {
            now,
            report_at: now,
            rtt: Some(SimTime::from_ms(50)),
            in_flight_bytes: in_flight,
            packets,
            ..FeedbackSample::default()
        }
    }

    fn packets(
        first: u64,
        n: u64,
        delay_ms: impl Fn(u64) -> u64,
        lost: impl Fn(u64) -> bool,
    ) -> Vec<PacketStatus> {
        let ms = SimTime::from_ms;
        (first..first + n)
            .map(|k| PacketStatus {
                seq: k,
                size_bytes: 1000,
                sent_at: ms(10 * k),
                arrived_at: (!lost(k)).then(|| ms(10 * k + delay_ms(k))),
                ..PacketStatus::default()
            })
            .collect()
    }

    #[test]
    fn the_window_grows_while_used_and_a_loss_cuts_it_by_beta_loss() {
        let p = ScreamParams::default();
        let config = RateConfig::default();
        let mut s = Scream::new(p, config);
        let ms = SimTime::from_ms;
        // Fast increase with the window full: cwnd grows by the bytes acked.
        for r in 0..10 {
            let cwnd = s.cwnd;
            s.on_feedback(&report(
                ms(50 * r + 100),
                cwnd as u64,
                packets(5 * r, 5, |_| 40, |_| false),
            ));
        }
        assert!(s.in_fast_increase);
        assert!(s.cwnd > p.min_cwnd_bytes, "{}", s.cwnd);
        let (before, target) = (s.cwnd, s.target);
        // A loss 60 ms after the last rate adjustment (at 500 ms): cwnd ← BETA_LOSS·cwnd, and
        // at once (§4.1.3's prompt reaction, not at the next RATE_ADJUST_INTERVAL) the target
        // ← BETA_R·target.
        s.on_feedback(&report(
            ms(560),
            before as u64,
            packets(50, 5, |_| 40, |k| k == 52),
        ));
        assert!((s.cwnd - (p.beta_loss * before).max(p.min_cwnd_bytes)).abs() < 1e-9);
        assert!(!s.in_fast_increase);
        assert!((s.target - (p.beta_r * target).max(p.target_bitrate_min_bps)).abs() < 1e-6);
    }

    /// §4.1.3's "on ecn_mark": a CE event scales the target by BETA_ECN (here 0.5, set apart
    /// from BETA_R's 0.9), at once.
    #[test]
    fn a_ce_mark_cuts_the_target_by_beta_ecn_at_once() {
        let p = ScreamParams {
            beta_ecn: 0.5,
            ..ScreamParams::default()
        };
        let config = RateConfig {
            initial_rate_bps: Some(1e6),
            ..RateConfig::default()
        };
        let mut s = Scream::new(p, config);
        let ms = SimTime::from_ms;
        s.on_feedback(&report(ms(100), 5000, packets(0, 5, |_| 40, |_| false)));
        let target = s.target;
        let mut marked = packets(5, 5, |_| 40, |_| false);
        marked[2].ce = true;
        s.on_feedback(&report(ms(150), 5000, marked));
        assert!(
            (s.target - 0.5 * target).abs() < 1e-6,
            "{} after {target}",
            s.target
        );
    }

    #[test]
    fn a_queue_above_the_target_shrinks_the_window_and_closes_the_extra_mss() {
        let p = ScreamParams::default();
        let mut s = Scream::new(p, RateConfig::default());
        let ms = SimTime::from_ms;
        s.in_fast_increase = false;
        s.cwnd = 20_000.0;
        s.on_feedback(&report(ms(100), 20_000, packets(0, 5, |_| 40, |_| false)));
        assert!(
            (s.window() - (s.cwnd + 1000.0) / 1000.0).abs() < 1e-9,
            "qdelay 0: one MSS more"
        );
        // 200 ms above the base: qdelay > 0.1 s target, the window shrinks.
        let before = s.cwnd;
        s.on_feedback(&report(ms(300), 20_000, packets(5, 5, |_| 240, |_| false)));
        assert!(s.cwnd < before, "{} after {before}", s.cwnd);
        assert!((s.window() - s.cwnd / 1000.0).abs() < 1e-9);
    }

    /// Property: on random feedback (random delays, losses, CE marks, gaps, in-flight and
    /// queue lengths), SCReAM's window stays ≥ MIN_CWND, its rates finite and within their
    /// bounds and its state finite; 200 random sequences of 200 reports.
    #[test]
    fn random_feedback_keeps_every_output_finite_and_bounded() {
        for seed in 0..200 {
            let p = ScreamParams::default();
            let mut s = Scream::new(p, RateConfig::default());
            for fb in crate::control::media::random_feedback(seed, 200) {
                s.on_feedback(&fb);
                let w = s.window();
                assert!(
                    w.is_finite() && w * 1000.0 >= p.min_cwnd_bytes,
                    "seed {seed}: {w}"
                );
                let target = s.target_rate_bps().unwrap();
                assert!(
                    (p.target_bitrate_min_bps..=p.target_bitrate_max_bps).contains(&target),
                    "seed {seed}: {target}"
                );
                let pace = s.pacing_rate_bps().unwrap();
                assert!(
                    pace.is_finite() && pace >= p.rate_pace_min_bps,
                    "seed {seed}: {pace}"
                );
                assert!((p.qdelay_target_lo_s..=p.qdelay_target_hi_s).contains(&s.qdelay_target));
                let mut state = Vec::new();
                s.state(&mut state);
                for (name, v) in state {
                    assert!(v.is_finite(), "seed {seed}: {name} = {v}");
                }
            }
        }
    }
}
