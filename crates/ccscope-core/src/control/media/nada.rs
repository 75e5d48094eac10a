//! NADA, Network-Assisted Dynamic Adaptation, as RFC 8698 gives it.
//!
//! RFC 8698 splits the work between the receiver (§4.2: one-way delay, queuing delay, loss
//! and marking ratios, the aggregated congestion signal x_curr, the receiving rate r_recv and
//! the rate-update mode rmode) and the sender (§4.3: the reference rate r_ref; §4.4: the rate
//! shaping buffer). The media transport's feedback (RFC 8888 or transport-wide) carries every
//! packet's arrival time and ECN codepoint, so this file runs the receiver's computations at
//! the sender on each report, in sequence order, then the sender's update: the same numbers
//! RFC 8698's receiver would have sent, one report later.
//!
//! Receiver (§4.2), per packet reported received:
//! - d_fwd = t_recv − t_sent; d_base is the least d_fwd seen; d_queue = d_fwd − d_base;
//! - the queuing delay is the minimum of the last [`MIN_FILTER_TAPS`] d_queue samples (§4.2's
//!   minimum filter against outliers);
//! - d_tilde warps it above QTH: d_tilde = QTH·exp(−LAMBDA·(d_queue − QTH)/QTH) (eq. 1);
//! - x_curr = d_tilde + DMARK·(p_mark/PMRREF)² + DLOSS·(p_loss/PLRREF)² (eq. 2), with p_loss
//!   and p_mark the loss and CE ratios over the last LOGWIN, smoothed with ALPHA once a report;
//! - r_recv: the receiving rate over LOGWIN ([`RateMeter`]);
//! - rmode = 0 (accelerated ramp-up) while no loss is "recent" (within loss_exp = MULTILOSS ×
//!   loss_int packets of the latest, loss_int the average packet count between losses), no
//!   packet of the last LOGWIN is CE-marked and every queuing delay of the last LOGWIN is below
//!   QEPS; else rmode = 1 (gradual update).
//!
//! Sender (§4.3), once a report, with δ the time since the previous report:
//! - rmode 0: gamma = min(GAMMA_MAX, QBOUND/(rtt + DELTA + DFILT)) (eq. 3);
//!   r_ref = max(r_ref, (1 + gamma)·r_recv) (eq. 4);
//! - rmode 1: x_offset = x_curr − PRIO·XREF·RMAX/r_ref (eq. 5); x_diff = x_curr − x_prev
//!   (eq. 6); r_ref ← r_ref − KAPPA·(δ/TAU)·(x_offset/TAU)·r_ref − KAPPA·ETA·(x_diff/TAU)·r_ref
//!   (eq. 7);
//! - r_ref within [RMIN, RMAX].
//!
//! Rate shaping buffer (§4.4), with buffer_len the bytes waiting in the sender's queue (the
//! media transport's queue between encoder and pacer):
//! r_vin = max(RMIN, r_ref − BETA_V·8·buffer_len·FPS) (eq. 8) is the encoder's target;
//! r_send = min(RMAX, r_ref + BETA_S·8·buffer_len·FPS) (eq. 9) is the pacer's rate.
//!
//! Readings of ours where the RFC leaves a choice (each stated where it is used):
//! - d_base is the least one-way delay of the whole session (no window: the engine's clocks
//!   do not drift);
//! - δ in eq. 7 is the time since the previous report, at most TAU (a step never uses more
//!   than one RTT bound's worth of time; after a long silence the first report's step is TAU's);
//! - rtt in eq. 3 is the latest RTT the feedback measured, 0 before the first;
//! - loss_int starts at one loss interval's worth of `1/PLRREF` packets and then is an
//!   exponential average (weight ALPHA) of the packet counts between losses;
//! - r_ref starts at the source's initial rate, else RMIN;
//! - the loss and marking ratios are counted over the packets reported in the last LOGWIN
//!   (by arrival time of the latest report), then smoothed with ALPHA once a report.

use std::collections::VecDeque;

use super::RateMeter;
use crate::control::rate::RateConfig;
use crate::control::{Controller, FeedbackFormat, FeedbackPlan, FeedbackSample};
use crate::time::SimTime;

/// Taps of the minimum filter on the queuing delay (RFC 8698 §4.2: the minimum over the 15
/// most recent samples).
pub const MIN_FILTER_TAPS: usize = 15;

/// NADA's parameters; [`NadaParams::default`] gives RFC 8698's Figure 3 values. RFC 8698's text
/// was not readable here: PRIO to DLOSS and ALPHA equal draft-ietf-rmcat-nada-10's Figure 3 as
/// its first author transcribed it in code, except GAMMA_MAX (0.2 there, 0.5 here and in
/// cisco/ns3-rmcat's draft-05 values); DMARK, PMRREF, MULTILOSS, BETA_V and BETA_S are unchecked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NadaParams {
    /// PRIO: the flow's weight of priority (1.0).
    pub prio: f64,
    /// RMIN (bits/s): the least rate (150 kb/s).
    pub rmin_bps: f64,
    /// RMAX (bits/s): the greatest rate (1.5 Mb/s).
    pub rmax_bps: f64,
    /// XREF (ms): the reference congestion level (10 ms).
    pub xref_ms: f64,
    /// KAPPA: scaling of the gradual update (0.5).
    pub kappa: f64,
    /// ETA: scaling of the gradual update's derivative term (2.0).
    pub eta: f64,
    /// TAU (ms): upper bound of the RTT in the gradual update (500 ms).
    pub tau_ms: f64,
    /// DELTA (ms): the target feedback interval (100 ms).
    pub delta_ms: f64,
    /// LOGWIN (ms): the receiver's observation window (500 ms).
    pub logwin_ms: f64,
    /// QEPS (ms): queuing delay below which the queue counts as empty for rmode (10 ms).
    pub qeps_ms: f64,
    /// DFILT (ms): bound on the filtering delay (120 ms).
    pub dfilt_ms: f64,
    /// GAMMA_MAX: upper bound on the ramp-up's rate increase ratio (0.5).
    pub gamma_max: f64,
    /// QBOUND (ms): bound on the self-inflicted queuing delay while ramping up (50 ms).
    pub qbound_ms: f64,
    /// MULTILOSS: loss_exp = MULTILOSS · loss_int (7.0).
    pub multiloss: f64,
    /// QTH (ms): delay above which the queuing delay is warped (50 ms).
    pub qth_ms: f64,
    /// LAMBDA: exponent of the non-linear warping (0.5).
    pub lambda: f64,
    /// PLRREF: reference packet loss ratio (0.01).
    pub plrref: f64,
    /// PMRREF: reference packet marking ratio (0.01).
    pub pmrref: f64,
    /// DLOSS (ms): delay penalty of loss at PLRREF (10 ms).
    pub dloss_ms: f64,
    /// DMARK (ms): delay penalty of marking at PMRREF (2 ms).
    pub dmark_ms: f64,
    /// FPS: the video's frame rate (30).
    pub fps: f64,
    /// BETA_V: how much the buffer lowers the encoder's rate (0.1).
    pub beta_v: f64,
    /// BETA_S: how much the buffer raises the sending rate (0.1).
    pub beta_s: f64,
    /// ALPHA: smoothing of the loss and marking ratios (0.1).
    pub alpha: f64,
}

impl Default for NadaParams {
    fn default() -> Self {
        NadaParams {
            prio: 1.0,
            rmin_bps: 150e3,
            rmax_bps: 1.5e6,
            xref_ms: 10.0,
            kappa: 0.5,
            eta: 2.0,
            tau_ms: 500.0,
            delta_ms: 100.0,
            logwin_ms: 500.0,
            qeps_ms: 10.0,
            dfilt_ms: 120.0,
            gamma_max: 0.5,
            qbound_ms: 50.0,
            multiloss: 7.0,
            qth_ms: 50.0,
            lambda: 0.5,
            plrref: 0.01,
            pmrref: 0.01,
            dloss_ms: 10.0,
            dmark_ms: 2.0,
            fps: 30.0,
            beta_v: 0.1,
            beta_s: 0.1,
            alpha: 0.1,
        }
    }
}

impl NadaParams {
    /// Eq. 1: the queuing delay as x_curr counts it, warped above QTH.
    pub fn warp(&self, d_queue_ms: f64) -> f64 {
        if d_queue_ms < self.qth_ms {
            d_queue_ms
        } else {
            self.qth_ms * (-self.lambda * (d_queue_ms - self.qth_ms) / self.qth_ms).exp()
        }
    }

    /// Eq. 2: the aggregated congestion signal (ms).
    pub fn aggregate(&self, d_tilde_ms: f64, p_mark: f64, p_loss: f64) -> f64 {
        d_tilde_ms
            + self.dmark_ms * (p_mark / self.pmrref).powi(2)
            + self.dloss_ms * (p_loss / self.plrref).powi(2)
    }

    /// Eqs. 3 and 4: the accelerated ramp-up from `r_ref` on the receiving rate.
    pub fn ramp_up(&self, r_ref: f64, r_recv: f64, rtt_ms: f64) -> f64 {
        let gamma = self
            .gamma_max
            .min(self.qbound_ms / (rtt_ms + self.delta_ms + self.dfilt_ms));
        r_ref.max((1.0 + gamma) * r_recv)
    }

    /// Eqs. 5 to 7: the gradual update of `r_ref` after `delta_ms`.
    pub fn gradual(&self, r_ref: f64, x_curr: f64, x_prev: f64, delta_ms: f64) -> f64 {
        let x_offset = x_curr - self.prio * self.xref_ms * self.rmax_bps / r_ref;
        let x_diff = x_curr - x_prev;
        let tau = self.tau_ms;
        r_ref
            - self.kappa * (delta_ms / tau) * (x_offset / tau) * r_ref
            - self.kappa * self.eta * (x_diff / tau) * r_ref
    }

    /// Eqs. 8 and 9: (r_vin, r_send) from `r_ref` and the rate shaping buffer's bytes.
    pub fn shape(&self, r_ref: f64, buffer_bytes: f64) -> (f64, f64) {
        let pressure = 8.0 * buffer_bytes * self.fps;
        (
            self.rmin_bps.max(r_ref - self.beta_v * pressure),
            self.rmax_bps.min(r_ref + self.beta_s * pressure),
        )
    }
}

/// One packet's record at the emulated receiver: (arrival, lost, CE).
type Seen = (SimTime, bool, bool);

/// NADA at the sender, with the receiver's computations run on the feedback.
#[derive(Clone, Debug)]
pub struct Nada {
    params: NadaParams,
    config: RateConfig,
    r_ref: f64,
    r_vin: f64,
    r_send: f64,
    /// The least one-way delay seen (ms).
    d_base_ms: Option<f64>,
    /// The last d_queue samples (ms), for the minimum filter.
    d_queue: VecDeque<f64>,
    /// (arrival, filtered queuing delay ms) over the last LOGWIN.
    queue_log: VecDeque<(SimTime, f64)>,
    /// Packets of the last LOGWIN, by the time they were last known of.
    seen: VecDeque<Seen>,
    meter: RateMeter,
    /// The latest arrival reported.
    latest: SimTime,
    p_loss: f64,
    p_mark: f64,
    /// Packets reported since the last loss, and the average interval between losses.
    since_loss: f64,
    loss_int: f64,
    any_loss: bool,
    x_curr: f64,
    x_prev: f64,
    d_tilde: f64,
    rmode: u8,
    rtt_ms: f64,
    last_report: Option<SimTime>,
}

impl Nada {
    pub fn new(params: NadaParams, config: RateConfig) -> Self {
        let r_ref = config
            .initial_rate_bps
            .unwrap_or(params.rmin_bps)
            .clamp(params.rmin_bps, params.rmax_bps);
        Nada {
            params,
            config,
            r_ref,
            r_vin: r_ref,
            r_send: r_ref,
            d_base_ms: None,
            d_queue: VecDeque::with_capacity(MIN_FILTER_TAPS),
            queue_log: VecDeque::new(),
            seen: VecDeque::new(),
            meter: RateMeter::new(SimTime::from_secs_f64(params.logwin_ms / 1e3)),
            latest: SimTime::ZERO,
            p_loss: 0.0,
            p_mark: 0.0,
            since_loss: 0.0,
            loss_int: 1.0 / params.plrref,
            any_loss: false,
            x_curr: 0.0,
            x_prev: 0.0,
            d_tilde: 0.0,
            rmode: 0,
            rtt_ms: 0.0,
            last_report: None,
        }
    }

    fn logwin(&self) -> SimTime {
        SimTime::from_secs_f64(self.params.logwin_ms / 1e3)
    }

    /// §4.2 for one packet's status.
    fn receive(&mut self, sent: SimTime, arrived: Option<SimTime>, ce: bool) {
        let Some(at) = arrived else {
            if self.any_loss {
                let w = self.params.alpha;
                self.loss_int = (1.0 - w) * self.loss_int + w * self.since_loss;
            }
            self.any_loss = true;
            self.since_loss = 0.0;
            self.seen.push_back((self.latest, true, false));
            return;
        };
        self.latest = self.latest.max(at);
        self.since_loss += 1.0;
        self.seen.push_back((at, false, ce));
        let d_fwd = at.secs() * 1e3 - sent.secs() * 1e3;
        let base = self.d_base_ms.map_or(d_fwd, |b: f64| b.min(d_fwd));
        self.d_base_ms = Some(base);
        if self.d_queue.len() == MIN_FILTER_TAPS {
            self.d_queue.pop_front();
        }
        self.d_queue.push_back(d_fwd - base);
        let filtered = self.d_queue.iter().copied().fold(f64::INFINITY, f64::min);
        self.queue_log.push_back((at, filtered));
        self.d_tilde = self.params.warp(filtered);
    }

    /// The end of a report at the emulated receiver: ratios, x_curr and rmode.
    fn summarize(&mut self) {
        let horizon = self.latest.saturating_sub(self.logwin());
        while self.seen.front().is_some_and(|s| s.0 < horizon) {
            self.seen.pop_front();
        }
        while self.queue_log.front().is_some_and(|q| q.0 < horizon) {
            self.queue_log.pop_front();
        }
        let n = self.seen.len() as f64;
        if n > 0.0 {
            let lost = self.seen.iter().filter(|s| s.1).count() as f64;
            let marked = self.seen.iter().filter(|s| s.2).count() as f64;
            let received = n - lost;
            let w = self.params.alpha;
            self.p_loss = (1.0 - w) * self.p_loss + w * lost / n;
            let mark_now = if received > 0.0 {
                marked / received
            } else {
                0.0
            };
            self.p_mark = (1.0 - w) * self.p_mark + w * mark_now;
        }
        self.x_curr = self
            .params
            .aggregate(self.d_tilde, self.p_mark, self.p_loss);
        let loss_recent = self.any_loss && self.since_loss < self.params.multiloss * self.loss_int;
        let marked = self.seen.iter().any(|s| s.2);
        let queued = self.queue_log.iter().any(|q| q.1 >= self.params.qeps_ms);
        self.rmode = u8::from(loss_recent || marked || queued);
    }

    /// §4.3 and §4.4 at `now`, with `buffer_bytes` in the sender's queue.
    fn update_rate(&mut self, now: SimTime, buffer_bytes: u64) {
        let p = &self.params;
        let delta_ms = self
            .last_report
            .map_or(p.delta_ms, |t| now.saturating_sub(t).secs() * 1e3)
            .min(p.tau_ms);
        self.last_report = Some(now);
        let r_ref = if self.rmode == 0 {
            match self.meter.rate_bps() {
                Some(r_recv) => p.ramp_up(self.r_ref, r_recv, self.rtt_ms),
                None => self.r_ref,
            }
        } else {
            p.gradual(self.r_ref, self.x_curr, self.x_prev, delta_ms)
        };
        self.x_prev = self.x_curr;
        self.r_ref = if r_ref.is_finite() {
            r_ref.clamp(p.rmin_bps, p.rmax_bps)
        } else {
            p.rmin_bps
        };
        // The queue of a bulk source may be unbounded: the clamps of eqs. 8 and 9 hold.
        let (r_vin, r_send) = p.shape(self.r_ref, buffer_bytes.min(u32::MAX as u64) as f64);
        self.r_vin = self.config.clamp(r_vin);
        self.r_send = self.config.clamp(r_send.max(self.r_vin));
    }
}

impl Controller for Nada {
    fn name(&self) -> String {
        "NADA".into()
    }

    fn on_feedback(&mut self, fb: &FeedbackSample) {
        if let Some(rtt) = fb.rtt {
            self.rtt_ms = rtt.secs() * 1e3;
        }
        for pk in &fb.packets {
            self.receive(pk.sent_at, pk.arrived_at, pk.ce);
        }
        self.meter.push(&fb.packets);
        self.summarize();
        self.update_rate(fb.now, fb.queued_bytes);
    }

    fn target_rate_bps(&self) -> Option<f64> {
        Some(self.r_vin)
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        Some(self.r_send)
    }

    fn runs_in_rounds(&self) -> bool {
        false
    }

    fn feedback_plan(&self) -> Option<FeedbackPlan> {
        // Per-packet reports (RFC 8888's form) every DELTA, the target feedback interval.
        Some(FeedbackPlan {
            format: FeedbackFormat::Rfc8888,
            interval: SimTime::from_secs_f64(self.params.delta_ms / 1e3),
            per_frame: false,
        })
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([
            ("r_ref_bps", self.r_ref),
            ("r_vin_bps", self.r_vin),
            ("r_send_bps", self.r_send),
            ("x_curr_ms", self.x_curr),
            ("d_tilde_ms", self.d_tilde),
            ("p_loss", self.p_loss),
            ("p_mark", self.p_mark),
            ("rmode", self.rmode as f64),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::PacketStatus;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    /// RFC 8698's equations at Figure 3's values, worked by hand:
    /// - eq. 1, d_queue = 80 ms > QTH = 50: 50·exp(−0.5·30/50) = 50·exp(−0.3) = 50·0.7408182
    ///   = 37.04091 ms; below QTH it is unchanged;
    /// - eq. 2 with p_mark = 0.02, p_loss = 0.005: 37.04091 + 2·(0.02/0.01)² + 10·(0.005/0.01)²
    ///   = 37.04091 + 8 + 2.5 = 47.54091 ms;
    /// - eqs. 3–4, rtt = 50 ms: gamma = min(0.5, 50/(50 + 100 + 120)) = 0.1851852;
    ///   r_ref = max(500 000, 1.1851852·600 000) = 711 111.1 b/s;
    /// - eqs. 5–7, r_ref = 1 Mb/s, x_curr = 20, x_prev = 15, δ = 100 ms: x_offset = 20 −
    ///   10·1.5e6/1e6 = 5; 0.5·(100/500)·(5/500)·1e6 = 1000; 0.5·2·(5/500)·1e6 = 10 000;
    ///   r_ref = 989 000 b/s;
    /// - eqs. 8–9, buffer 5000 B: 0.1·8·5000·30 = 120 000; r_vin = 880 000, r_send = 1 120 000.
    #[test]
    fn the_equations_match_the_rfc_worked_by_hand() {
        let p = NadaParams::default();
        close(p.warp(80.0), 37.04091, 1e-5);
        close(p.warp(30.0), 30.0, 0.0);
        close(p.aggregate(37.04091, 0.02, 0.005), 47.54091, 1e-9);
        close(p.ramp_up(500e3, 600e3, 50.0), 711_111.1, 0.1);
        close(p.ramp_up(800e3, 600e3, 50.0), 800e3, 0.0);
        close(p.gradual(1e6, 20.0, 15.0, 100.0), 989_000.0, 1e-6);
        let (vin, send) = p.shape(1e6, 5000.0);
        close(vin, 880e3, 1e-6);
        close(send, 1.12e6, 1e-6);
        // Clipped by RMIN and RMAX.
        let (vin, send) = p.shape(200e3, 5000.0);
        close(vin, 150e3, 0.0);
        close(send, 320e3, 1e-6);
        assert_eq!(p.shape(1.45e6, 5000.0).1, 1.5e6);
    }

    /// At equilibrium x_offset = 0: r_ref = PRIO·XREF·RMAX/x_curr (eq. 5), so a steady
    /// x_curr of 10 ms (XREF) holds r_ref = RMAX and of 20 ms holds RMAX/2.
    #[test]
    fn the_gradual_update_rests_where_x_offset_vanishes() {
        let p = NadaParams::default();
        close(p.gradual(1.5e6, 10.0, 10.0, 100.0), 1.5e6, 1e-6);
        close(p.gradual(0.75e6, 20.0, 20.0, 100.0), 0.75e6, 1e-6);
        assert!(p.gradual(0.5e6, 20.0, 20.0, 100.0) > 0.5e6);
        assert!(p.gradual(1e6, 20.0, 20.0, 100.0) < 1e6);
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

    /// Reports every 100 ms of 10 packets of 1250 B (1 Mb/s), one-way delay `delay(k)`.
    fn run(nada: &mut Nada, from: u64, to: u64, delay: impl Fn(u64) -> u64) {
        let ms = SimTime::from_ms;
        for r in from..to {
            let pk = (0..10)
                .map(|k| {
                    let n = 10 * r + k;
                    PacketStatus {
                        seq: n,
                        size_bytes: 1250,
                        sent_at: ms(10 * n),
                        arrived_at: Some(ms(10 * n + delay(n))),
                        ..PacketStatus::default()
                    }
                })
                .collect();
            nada.on_feedback(&report(ms(100 * r + 150), pk));
        }
    }

    #[test]
    fn an_empty_queue_ramps_up_and_a_growing_one_switches_to_gradual_updates() {
        let mut nada = Nada::new(NadaParams::default(), RateConfig::default());
        run(&mut nada, 0, 20, |_| 40);
        assert_eq!(nada.rmode, 0);
        // r_recv = 1 Mb/s, gamma = 50/270: r_ref ≥ 1.185·1 Mb/s, at most RMAX.
        assert!(nada.r_ref >= 1.18e6, "{}", nada.r_ref);
        let before = nada.r_ref;
        // Queuing delay growing 1 ms a packet: above QEPS, gradual mode, r_ref falls.
        run(&mut nada, 20, 28, |n| 40 + (n - 200));
        assert_eq!(nada.rmode, 1);
        assert!(nada.r_ref < before, "{} after {before}", nada.r_ref);
        assert!(nada.x_curr > 0.0);
    }

    #[test]
    fn losses_enter_the_congestion_signal_and_stop_the_ramp_up() {
        let mut nada = Nada::new(NadaParams::default(), RateConfig::default());
        let ms = SimTime::from_ms;
        // 1 packet in 10 lost: p_loss after one report = 0.1·0.1 = 0.01 = PLRREF, so the loss
        // term is DLOSS·1 = 10 ms and x_curr = 10 ms with no queue.
        let pk = (0..10)
            .map(|k| PacketStatus {
                seq: k,
                size_bytes: 1250,
                sent_at: ms(10 * k),
                arrived_at: (k != 5).then(|| ms(10 * k + 40)),
                ..PacketStatus::default()
            })
            .collect();
        nada.on_feedback(&report(ms(150), pk));
        close(nada.p_loss, 0.01, 1e-12);
        close(nada.x_curr, 10.0, 1e-9);
        assert_eq!(nada.rmode, 1);
    }

    /// Property: on random feedback (random delays, losses, CE marks, gaps, queue lengths),
    /// NADA's rates stay finite and within [RMIN, RMAX] and its state finite; 200 random
    /// sequences of 200 reports.
    #[test]
    fn random_feedback_keeps_every_output_finite_and_bounded() {
        for seed in 0..200 {
            let p = NadaParams::default();
            let mut nada = Nada::new(p, RateConfig::default());
            for fb in crate::control::media::random_feedback(seed, 200) {
                nada.on_feedback(&fb);
                let vin = nada.target_rate_bps().unwrap();
                let send = nada.pacing_rate_bps().unwrap();
                for r in [vin, send, nada.r_ref] {
                    assert!(
                        r.is_finite() && (p.rmin_bps..=p.rmax_bps).contains(&r),
                        "seed {seed}: {r}"
                    );
                }
                assert!(send >= vin, "seed {seed}");
                let mut state = Vec::new();
                nada.state(&mut state);
                for (name, v) in state {
                    assert!(v.is_finite(), "seed {seed}: {name} = {v}");
                }
            }
        }
    }
}
