//! TFRC, TCP-Friendly Rate Control: the sender ([`Tfrc`]) and its receiver ([`TfrcReceiver`](crate::control::TfrcReceiver)),
//! in three named behaviours (RFC 5348; ns-2 `tcp/tfrc.cc`, `tcp/tfrc-sink.cc`):
//!
//! | item | [`TfrcVariant::Rfc5348`] | [`TfrcVariant::Ns2`] (ns-2.35) | [`TfrcVariant::Ns2June2000`] (what Yang et al. ran) |
//! |---|---|---|---|
//! | t_RTO in the equation | 4R | srtt + 4·rttvar in 0.1 s ticks (Jacobson/Karels) | as ns-2.35 |
//! | RTT sample | now − echo − receiver hold | as RFC | now − echo: includes the receiver's hold |
//! | RTT EWMA | q = 0.9 | 0.95 | 0.25 (`df_`) |
//! | loss declared after | 3 later packets | 1 later packet | 1; the gap's packets take the send time of the packet that revealed them |
//! | equation | RFC 5348 §3.1 | PFTK form, 3·sqrt(3p/8) clipped at 1 (`formula.h`) | as ns-2.35 |
//! | congestion avoidance | X = min(X_calc, 2·X_recv) | +s/R per RTT (≤ 2s/R), capped by X_calc and 2·X_recv | +s/R once per RTT while X_calc > X, uncapped; decrease to X_calc |
//! | slow start | ×2 per RTT, ≤ 2·X_recv, from W_init/R | ×2 per RTT, ≤ 2·X_recv, from RFC 3390 IW/R | ×2 per RTT, ≤ 2·X_recv, from 1 packet/R; exit at max(X, 2·X_recv)/2 |
//! | no-feedback timer | max(4R, 2s/X); 2 s at first | max(2R, 2s/X); 2s/X at first | 2R; none before the first report; each expiry sends a packet |
//! | initial rate | 1 packet/s | 300 bytes/s | 300 bytes/s |
//! | history discounting (receiver) | off by default | on by default | off by default |
//! | closed-only mean (receiver) | 8 intervals, w = (1,1,1,1,.8,.6,.4,.2) | as RFC | 7 intervals, w = (1,1,1,.8,.6,.4,.2) (`smooth_ = 0`) |
//! | open interval I_0 (receiver) | from the loss that began the event | from the packet after it (`sample[0]`) | as RFC (not checked against the 2000 code) |
//! | a loss starts a new event (receiver) | sent > one RTT after the event's first | and the sender has moved to a new round since (`PreciseLoss_`) | one RTT, as RFC |
//! | immediate report (receiver) | every new loss event | every new loss event | the first loss event only |
//! | report timer (receiver) | R | 1.5R | 1.5R |
//!
//! The 2000 column follows the `tfrc.cc` of ns-2's June 12th 2000 snapshot (Yang, Kim & Lam §2)
//! and the earliest `tfrc-sink.cc` with history discounting found (ns-2 history, before the
//! `smooth_` default became 1). Its defaults are the old ones ns-2's own test suites pin
//! (`test-suite-friendly.tcl`: "`df_ 0.25` — the default for df_ is 0.95", likewise
//! `smooth_ 0` and `discount_ 0`). The 2000 sender takes its RTT sample as now − the echoed send
//! time: a report the receiver's 1.5R timer sends late carries that wait into the RTT, which at
//! under a packet per RTT (20% loss) lowers X_calc, spaces packets further and so lengthens the
//! next wait: the collapse Yang et al. Fig. 5 shows.
//!
//! Common to all: the receiver's loss-event rate from 8 weighted intervals with the
//! open-interval rule ([`LossIntervals`](crate::control::receiver::LossIntervals)), the first loss event seeded by
//! inverting the equation at the receive rate (with t_RTO = 4R at the receiver, which does not
//! know the sender's t_RTO), reports on the first packet and at least once per RTT. All floor
//! the rate at the config's minimum (RFC 5348's s/t_mbi by default; ns-2 has none). Not
//! modelled: ns-2's `slow_increase_` / `delta_` per-packet ramp, its sqrt-RTT inter-packet
//! damping (`ca_`) and RFC 5348 §4.5 oscillation damping, and the 2000 receiver's start-up
//! quirk of adding the synthetic first interval to the slow-start packets.
//!
//! Data-limited senders (RFC 5348 variant only; the ns-2 ones have no such rule): §4.4's idle
//! rule at a no-feedback expiry ([`Controller::on_no_feedback_idle`]) and §4.3's X_recv_set
//! rule for a report of an interval in which the sender was data-limited
//! ([`ReportSample::data_limited`], which the rate transport sets from its runs of rate-limited
//! send slots). X_recv_set is kept as one value: a report of an interval that was not
//! data-limited sets it to its X_recv (the RFC keeps the last two RTTs' values).

use super::{ewma, RateConfig};
use crate::control::{Controller, ReportSample};
use crate::time::SimTime;

/// Which TFRC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TfrcVariant {
    /// RFC 5348 (the standard).
    Rfc5348,
    /// ns-2.35's `Agent/TFRC` (Floyd et al., SIGCOMM 2000 lineage).
    Ns2,
    /// ns-2's `Agent/TFRC` as in the June 12th 2000 snapshot Yang, Kim & Lam §2 ran: `Ns2`
    /// with the older sender and receiver rules listed in the module documentation.
    Ns2June2000,
}

impl TfrcVariant {
    /// One of the ns-2 behaviours (everything the 2000 code shares with ns-2.35).
    fn is_ns2(self) -> bool {
        matches!(self, TfrcVariant::Ns2 | TfrcVariant::Ns2June2000)
    }
}

/// The TCP throughput equation (bits/s) for loss event rate `p`, RTT `rtt_s`, timeout
/// `t_rto_s`, packet size `packet_bytes`, b = 1: RFC 5348 §3.1,
/// X = s / (R·sqrt(2p/3) + t_RTO·3·sqrt(3p/8)·p·(1 + 32p²)). `pftk_clip` clips
/// 3·sqrt(3p/8) at 1 as ns-2's `formula.h` does. Infinite for p = 0.
pub fn tfrc_throughput_bps(
    p: f64,
    rtt_s: f64,
    t_rto_s: f64,
    packet_bytes: u32,
    pftk_clip: bool,
) -> f64 {
    let p = p.clamp(0.0, 1.0);
    let mut c = 3.0 * (3.0 * p / 8.0).sqrt();
    if pftk_clip {
        c = c.min(1.0);
    }
    let denom = rtt_s * (2.0 * p / 3.0).sqrt() + t_rto_s * c * p * (1.0 + 32.0 * p * p);
    8.0 * packet_bytes as f64 / denom
}

/// The loss event rate p for which the equation gives `rate_bps` (RFC 5348 §6.3.1), by
/// bisection on log p over [1e-8, 1].
pub fn invert_throughput(rate_bps: f64, rtt_s: f64, t_rto_s: f64, packet_bytes: u32) -> f64 {
    let x = |p: f64| tfrc_throughput_bps(p, rtt_s, t_rto_s, packet_bytes, false);
    let (mut lo, mut hi) = (1e-8f64.ln(), 0.0f64);
    if rate_bps.is_nan() || rate_bps >= x(lo.exp()) {
        return lo.exp();
    }
    if rate_bps <= x(1.0) {
        return 1.0;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if x(mid.exp()) > rate_bps {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (0.5 * (lo + hi)).exp()
}

/// ns-2's TCP timer tick (s), `tcp_tick_`.
const NS2_TICK_S: f64 = 0.1;

/// TFRC sender.
#[derive(Clone, Debug)]
pub struct Tfrc {
    variant: TfrcVariant,
    /// Allowed sending rate X (bits/s), within the config's bounds.
    rate_bps: f64,
    /// RTT estimate R (s), > 0 after the first report.
    rtt_s: Option<f64>,
    /// ns-2's Jacobson/Karels estimator in fixed point, as `tfrc.cc` keeps it: (8·srtt, 4·rttvar)
    /// in ticks, both ≥ 1.
    ticks: Option<(i64, i64)>,
    /// Loss event rate p from the latest report, in [0, 1].
    p: f64,
    /// Receive rate X_recv from the latest report (bits/s), ≥ 0; RFC 5348: the largest value
    /// of X_recv_set (the latest X_recv unless reports of data-limited intervals kept more).
    x_recv_bps: f64,
    /// Reports received (ns-2's round id, also bumped by no-feedback expiries).
    reports: u64,
    /// The latest report covered a data-limited interval (RFC 5348 §4.3).
    data_limited: bool,
    /// ns-2: still in slow start (no loss reported yet).
    slow_start: bool,
    /// When the rate last changed (RFC 5348 t_ld, ns-2 `last_change_`).
    last_change: SimTime,
    /// s in the throughput equation (bytes): the packet size unless set apart.
    equation_bytes: u32,
    config: RateConfig,
}

impl Tfrc {
    /// A TFRC sender. Trusts `config`: the catalogue ([`crate::control::catalog`]) checks it.
    pub fn new(variant: TfrcVariant, config: RateConfig) -> Self {
        let default_rate = match variant {
            TfrcVariant::Rfc5348 => config.packet_bits(), // RFC 5348 §4.2: s bytes/s
            _ => 8.0 * 300.0,                             // ns-2 InitRate_ = 300 bytes/s
        };
        Tfrc {
            variant,
            rate_bps: config.initial_rate(default_rate),
            rtt_s: None,
            ticks: None,
            p: 0.0,
            x_recv_bps: 0.0,
            reports: 0,
            data_limited: false,
            slow_start: true,
            last_change: SimTime::ZERO,
            equation_bytes: config.packet_bytes,
            config,
        }
    }

    /// The same sender with s = `bytes` in its throughput equation, whatever the packets'
    /// size (Loguinov & Radha 2003 §VI-C run "TFRC(180)": s = 180 bytes, 1500-byte packets).
    pub fn with_equation_bytes(self, bytes: u32) -> Self {
        Tfrc {
            equation_bytes: bytes,
            ..self
        }
    }

    /// t_RTO used in the equation (s).
    fn t_rto_s(&self, rtt_s: f64) -> f64 {
        match (self.variant, self.ticks) {
            // tfrc.cc update_rtt(): t_rtxcur_ = ((t_rttvar_ << 3) + t_srtt_) >> 3 ticks, i.e.
            // srtt + 4·rttvar truncated to whole ticks.
            (v, Some((srtt8, rttvar4))) if v.is_ns2() => {
                (((rttvar4 << 3) + srtt8) >> 3) as f64 * NS2_TICK_S
            }
            _ => 4.0 * rtt_s, // RFC 5348 §4.3: t_RTO = 4R
        }
    }

    fn x_calc(&self, rtt_s: f64) -> f64 {
        let clip = self.variant.is_ns2();
        tfrc_throughput_bps(
            self.p,
            rtt_s,
            self.t_rto_s(rtt_s),
            self.equation_bytes,
            clip,
        )
    }

    fn rtt_sample(&mut self, sample_s: f64) {
        let gain = match self.variant {
            TfrcVariant::Rfc5348 => 0.1, // RFC 5348 §4.3: q = 0.9
            TfrcVariant::Ns2 => 0.05,    // ns-2 df_ = 0.95
            // ns-2's test suites pin the old default df_ = 0.25 ("the default for df_ is 0.95").
            TfrcVariant::Ns2June2000 => 0.75,
        };
        self.rtt_s = Some(ewma(self.rtt_s, sample_s, gain));
        // tfrc.cc update_rtt(): the sample in ticks, int(x + 0.5), at least 1; the
        // integer arithmetic keeps rttvar at 1/4 tick or more and truncates, as ns-2 does.
        let t = ((sample_s / NS2_TICK_S + 0.5) as i64).max(1);
        self.ticks = Some(match self.ticks {
            None => (t << 3, t << 1),
            Some((srtt8, rttvar4)) => {
                let delta = t - (srtt8 >> 3);
                let srtt8 = (srtt8 + delta).max(1);
                let rttvar4 = (rttvar4 + delta.abs() - (rttvar4 >> 2)).max(1);
                (srtt8, rttvar4)
            }
        });
    }

    /// The initial rate W_init/R (bits/s) at RTT `r`: RFC 5348 §4.2, W_init = min(4s, max(2s,
    /// 4380)) bytes; §4.4 calls it recover_rate.
    fn w_init_bps(&self, r: f64) -> f64 {
        let s = self.config.packet_bytes as f64;
        8.0 * (4.0 * s).min((2.0 * s).max(4380.0)) / r
    }

    /// RFC 5348 §4.3 step 4's X_recv_set, kept as its one largest value in `x_recv_bps`, and
    /// the receive limit it sets. A report of an interval in which the sender was data-limited
    /// keeps the largest of the set and the new X_recv ("Maximize X_recv_set"), after halving
    /// the set and taking 0.85·X_recv if the report shows a new loss event or a larger p, and
    /// then limits the rate to max(X_recv_set) rather than twice it. Any other report replaces
    /// the set with the new X_recv ("Update X_recv_set" keeps the values of the last two RTTs;
    /// ours keeps only the latest, as before), limit 2·X_recv.
    fn recv_limit_rfc(&mut self, report: &ReportSample, p_before: f64) -> f64 {
        let x_recv = report.recv_rate_bps.max(0.0);
        self.data_limited = report.data_limited;
        if !report.data_limited {
            self.x_recv_bps = x_recv;
            return 2.0 * x_recv;
        }
        if report.new_loss_event || self.p > p_before {
            self.x_recv_bps = (self.x_recv_bps / 2.0).max(0.85 * x_recv);
            self.x_recv_bps
        } else {
            self.x_recv_bps = self.x_recv_bps.max(x_recv);
            2.0 * self.x_recv_bps
        }
    }

    fn on_report_rfc(&mut self, now: SimTime, first: bool, r: f64, recv_limit: f64) {
        let w_init_bps = self.w_init_bps(r);
        if self.p > 0.0 {
            // RFC 5348 §4.3 step 4: X = max(min(X_calc, recv_limit), s/t_mbi).
            self.rate_bps = self.x_calc(r).min(recv_limit);
        } else if first {
            self.rate_bps = w_init_bps;
            self.last_change = now;
        } else if now.secs() - self.last_change.secs() >= r {
            // RFC 5348 §4.3 step 5: X = max(min(2X, recv_limit), W_init/R).
            self.rate_bps = (2.0 * self.rate_bps).min(recv_limit).max(w_init_bps);
            self.last_change = now;
        }
    }

    fn on_report_ns2(&mut self, now: SimTime, first: bool, r: f64) {
        let s_bps = self.config.packet_bits() / r;
        // tfrc.cc: maxrate = 2·X_recv once round_id > 1.
        let maxrate = if self.reports > 1 {
            2.0 * self.x_recv_bps
        } else {
            0.0
        };
        if self.slow_start {
            if first {
                // RFC 3390 initial window in packets (ns-2 rate_init_option_ = 2).
                let s = self.config.packet_bytes;
                let iw = if s <= 1095 {
                    4.0
                } else if s < 2190 {
                    3.0
                } else {
                    2.0
                };
                self.rate_bps = self.rate_bps.max(iw * s_bps);
                self.last_change = now;
            } else if self.p > 0.0 {
                self.slow_start = false;
                self.rate_bps = self.x_calc(r);
                self.last_change = now;
            } else if maxrate <= 0.0 {
                self.rate_bps = s_bps;
            } else if self.rate_bps < maxrate && now.secs() - self.last_change.secs() >= r {
                // tfrc.cc slowstart(): ×ssmult_ (2) per RTT, capped at ss_maxrate, at least s/R.
                self.rate_bps = (2.0 * self.rate_bps).min(maxrate).max(s_bps);
                self.last_change = now;
            } else if self.rate_bps > maxrate {
                self.rate_bps = maxrate / 2.0;
                self.last_change = now;
            }
            return;
        }
        let x_calc = self.x_calc(r);
        let cap = maxrate.max(s_bps);
        if x_calc > self.rate_bps {
            // tfrc.cc increase_rate(): rate += (s/R)·min(2, (now − last_change)/R).
            let elapsed = (now.secs() - self.last_change.secs()) / r;
            self.rate_bps = (self.rate_bps + s_bps * elapsed.min(2.0))
                .min(x_calc)
                .min(cap);
        } else {
            // tfrc.cc decrease_rate() with maxHeavyRounds_ = 0.
            self.rate_bps = x_calc.min(cap);
        }
        self.last_change = now;
    }
}

impl Tfrc {
    /// The June 2000 `tfrc.cc` `recv()`, `slowstart()`, `increase_rate()`, `decrease_rate()`
    /// (read from that snapshot; where it differs from [`Tfrc::on_report_ns2`]):
    /// * maxrate = 2·X_recv from every report with X_recv > 0 (no round-id condition);
    /// * slow start starts from one packet per RTT (no RFC 3390 initial window), doubles at most
    ///   once per RTT while 2·rate < maxrate, else jumps to maxrate, or to maxrate/2 when above
    ///   it; with no receive rate yet it doubles on every report;
    /// * the first loss leaves slow start at max(maxrate, rate)/2 (not at X_calc);
    /// * increase: below s/R jump to X_calc, else +s/R (not scaled by the time since the last
    ///   change) once at least one RTT has passed, while rate < X_calc + s/R and
    ///   rate < maxrate + s/R: the rate may end up to s/R above X_calc and 2·X_recv;
    /// * decrease: rate = X_calc with no 2·X_recv cap, and it does not restart the one-RTT wait
    ///   of the next increase.
    ///
    /// Not modelled: the per-packet ramp (`delta_`) towards a slow-start rate, and the packet
    /// `slowstart()` and leaving slow start send at once (`nextpkt()`).
    fn on_report_ns2_2000(&mut self, now: SimTime, r: f64) {
        let s_bps = self.config.packet_bits() / r;
        let maxrate = 2.0 * self.x_recv_bps;
        let since_change = now.secs() - self.last_change.secs();
        if self.slow_start && self.p > 0.0 {
            self.slow_start = false;
            self.rate_bps = 0.5 * self.rate_bps.max(maxrate);
            return;
        }
        if self.slow_start {
            let before = self.rate_bps;
            if self.rate_bps < s_bps {
                self.rate_bps = s_bps;
            } else if maxrate <= 0.0 || (2.0 * self.rate_bps < maxrate && since_change > r) {
                // ×ssmult_ (2): on every report while no receive rate is known.
                self.rate_bps *= 2.0;
            } else if self.rate_bps > maxrate {
                self.rate_bps = 0.5 * maxrate;
            } else if since_change > r {
                self.rate_bps = maxrate;
            }
            if self.rate_bps != before {
                self.last_change = now;
            }
            return;
        }
        let x_calc = self.x_calc(r);
        if x_calc <= self.rate_bps {
            self.rate_bps = x_calc;
        } else if self.rate_bps < s_bps {
            self.rate_bps = x_calc;
            self.last_change = now;
        } else if self.rate_bps < maxrate + s_bps && since_change >= r {
            // rate < X_calc + s/R holds here: X_calc > rate.
            self.rate_bps += s_bps;
            self.last_change = now;
        }
    }
}

impl Controller for Tfrc {
    fn name(&self) -> String {
        match self.variant {
            TfrcVariant::Rfc5348 => "TFRC".into(),
            TfrcVariant::Ns2 => "TFRC-ns2".into(),
            TfrcVariant::Ns2June2000 => "TFRC-2000".into(),
        }
    }

    fn on_report(&mut self, report: &ReportSample) {
        let first = self.rtt_s.is_none();
        if let Some(rtt) = report.rtt {
            // June 2000 tfrc.cc recv(): update_rtt(timestamp_echo, now), no hold time taken off.
            let rtt = if self.variant == TfrcVariant::Ns2June2000 {
                rtt + report.hold
            } else {
                rtt
            };
            self.rtt_sample(rtt.secs().max(1e-6));
        }
        let Some(r) = self.rtt_s else { return };
        self.reports += 1;
        let p_before = self.p;
        self.p = report.loss_event_rate.clamp(0.0, 1.0);
        if self.variant == TfrcVariant::Rfc5348 {
            let recv_limit = self.recv_limit_rfc(report, p_before);
            self.on_report_rfc(report.now, first, r, recv_limit);
        } else {
            self.x_recv_bps = report.recv_rate_bps.max(0.0);
            if self.variant == TfrcVariant::Ns2 {
                self.on_report_ns2(report.now, first, r);
            } else {
                self.on_report_ns2_2000(report.now, r);
            }
        }
        self.rate_bps = self.config.clamp(self.rate_bps);
    }

    fn feedback_timeout(&self) -> Option<SimTime> {
        let two_pkts_s = 2.0 * self.config.packet_bits() / self.rate_bps;
        let t = match (self.variant, self.rtt_s) {
            (TfrcVariant::Rfc5348, None) => 2.0, // RFC 5348 §4.2
            (TfrcVariant::Rfc5348, Some(r)) => (4.0 * r).max(two_pkts_s), // §4.3: max(4R, 2s/X)
            (TfrcVariant::Ns2, None) => two_pkts_s, // tfrc.cc start()
            (TfrcVariant::Ns2, Some(r)) => (2.0 * r).max(two_pkts_s), // tfrc.cc: max(2R, 2s/X)
            // June 2000 tfrc.cc: start() arms no timer; recv() and each expiry arm plain 2·rtt_,
            // however long the packet gap 1/X is, so a slow flow halves every 2R.
            (TfrcVariant::Ns2June2000, None) => return None,
            (TfrcVariant::Ns2June2000, Some(r)) => 2.0 * r,
        };
        Some(SimTime::from_secs_f64(t))
    }

    fn on_no_feedback(&mut self, _now: SimTime) {
        match (self.variant, self.rtt_s) {
            (TfrcVariant::Rfc5348, Some(r)) if self.p > 0.0 => {
                // RFC 5348 §4.4: Update_Limits(X_recv) if the receive limit was binding, else
                // Update_Limits(X_calc/2); then X = max(min(X_calc, 2·X_recv), s/t_mbi).
                let x_calc = self.x_calc(r);
                self.x_recv_bps = if x_calc > 2.0 * self.x_recv_bps {
                    self.x_recv_bps.max(self.config.min_rate()) / 2.0
                } else {
                    x_calc / 4.0
                };
                self.rate_bps = x_calc.min(2.0 * self.x_recv_bps);
            }
            (v, _) if v.is_ns2() => {
                self.rate_bps *= 0.5; // tfrc.cc reduce_rate_on_no_feedback()
                self.reports += 1;
            }
            // RFC 5348 §4.4: no feedback yet, or p = 0: X = max(X/2, s/t_mbi).
            _ => self.rate_bps *= 0.5,
        }
        self.rate_bps = self.config.clamp(self.rate_bps);
    }

    /// RFC 5348 §4.4 step 1: a sender idle ever since the timer was set keeps its rate when
    /// p > 0 and X_recv < recover_rate, or p = 0 and X < 2·recover_rate (recover_rate = W_init/R),
    /// so that an idle period never cuts it below the initial rate; otherwise the expiry halves
    /// as any other. Before the first RTT sample there is no recover_rate: the rate halves. The
    /// ns-2 variants halve as `tfrc.cc` does, idle or not.
    fn on_no_feedback_idle(&mut self, now: SimTime) {
        if let (TfrcVariant::Rfc5348, Some(r)) = (self.variant, self.rtt_s) {
            let recover_rate = self.w_init_bps(r);
            let kept = if self.p > 0.0 {
                self.x_recv_bps < recover_rate
            } else {
                self.rate_bps < 2.0 * recover_rate
            };
            if kept {
                return;
            }
        }
        self.on_no_feedback(now);
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        Some(self.rate_bps)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let r = self.rtt_s.unwrap_or(f64::NAN);
        out.extend([
            ("rtt_s", r),
            ("t_rto_s", self.t_rto_s(r)),
            ("p", self.p),
            ("x_calc_bps", self.x_calc(r)),
            ("x_recv_bps", self.x_recv_bps),
        ]);
        if self.variant.is_ns2() {
            out.push(("slow_start", f64::from(u8::from(self.slow_start))));
        } else {
            out.push(("data_limited", f64::from(u8::from(self.data_limited))));
        }
    }

    /// The 2000 variant: with its plain 2R no-feedback timer a slow flow's packets are clocked
    /// by the expiries. (ns-2.35 has the same send timer; `Ns2` keeps the transport's default,
    /// where its max(2R, 2s/X) timer seldom fires in steady state.)
    fn ns2_send_timer(&self) -> bool {
        self.variant == TfrcVariant::Ns2June2000
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ns-2's fixed-point estimator: a first 100 ms sample (1 tick) gives 8·srtt = 8 and
    /// 4·rttvar = 2; identical samples never shrink 4·rttvar below 2 (2 >> 2 = 0), so t_RTO stays
    /// ((2 << 3) + 8) >> 3 = 3 ticks = 0.3 s, not the 0.1 s a real-valued estimator tends to.
    #[test]
    fn ns2_t_rto_keeps_the_integer_rttvar_of_tfrc_cc() {
        let mut tfrc = Tfrc::new(TfrcVariant::Ns2, RateConfig::default());
        for _ in 0..100 {
            tfrc.rtt_sample(0.1);
        }
        assert_eq!(tfrc.ticks, Some((8, 2)));
        assert!((tfrc.t_rto_s(0.1) - 0.3).abs() < 1e-12);
    }

    fn report(now_ms: u64, p: f64, x_recv_bps: f64) -> ReportSample {
        ReportSample {
            now: SimTime::from_ms(now_ms),
            rtt: Some(SimTime::from_ms(100)),
            recv_rate_bps: x_recv_bps,
            loss_event_rate: p,
            ..ReportSample::default()
        }
    }

    /// RFC 5348 §4.4 over an idle sender: with p > 0 each idle expiry halves X_recv only while it
    /// is at least recover_rate = W_init/R (1000-byte packets, R = 100 ms: 4000 B / 0.1 s = 320
    /// kb/s), so X = min(X_calc, 2·X_recv) never falls below min(X_calc, recover_rate); with
    /// p = 0 the rate halves only while X ≥ 2·recover_rate. Expiries of a sender that sent keep
    /// halving down to the floor s/t_mbi.
    #[test]
    fn an_idle_sender_keeps_the_initial_rate_over_missing_feedback() {
        let recover_rate = 8.0 * 4000.0 / 0.1;
        let after = |p: f64, idle: bool| {
            let mut t = Tfrc::new(TfrcVariant::Rfc5348, RateConfig::default());
            t.on_report(&report(0, 0.0, 0.0));
            t.on_report(&report(100, p, 4e6));
            for k in 1..=200 {
                let now = SimTime::from_ms(100 + 400 * k);
                if idle {
                    t.on_no_feedback_idle(now);
                } else {
                    t.on_no_feedback(now);
                }
            }
            t
        };
        let lossy = after(0.01, true);
        let bound = lossy.x_calc(0.1).min(recover_rate);
        assert!(lossy.rate_bps >= bound, "{} < {bound}", lossy.rate_bps);
        assert!(lossy.x_recv_bps >= recover_rate / 2.0);
        let clean = after(0.0, true);
        assert!(clean.rate_bps >= recover_rate && clean.rate_bps < 2.0 * recover_rate);
        let floor = RateConfig::default().min_rate();
        for busy in [after(0.01, false), after(0.0, false)] {
            assert_eq!(busy.rate_bps, floor);
        }
    }

    /// RFC 5348 §4.3 step 4 worked through (1000-byte packets, R = 100 ms, p = 1e-4 then 2e-4,
    /// where X_calc ≈ 9.8 and 6.9 Mb/s, so the receive limit binds):
    /// 1. X_recv 1 Mb/s, not data-limited: X_recv_set {1 Mb/s}, X = 2·1 = 2 Mb/s;
    /// 2. X_recv 0.3 Mb/s over a data-limited interval, p unchanged: Maximize keeps 1 Mb/s, X
    ///    stays 2 Mb/s (not 2·0.3 = 0.6 Mb/s);
    /// 3. X_recv 0.3 Mb/s, data-limited, p up: the set halves to 0.5 Mb/s, X_recv becomes
    ///    0.85·0.3 = 0.255 Mb/s, Maximize keeps 0.5 Mb/s, and X = max(X_recv_set) = 0.5 Mb/s;
    /// 4. X_recv 0.3 Mb/s, not data-limited: X = 0.6 Mb/s.
    #[test]
    fn data_limited_reports_keep_the_largest_receive_rate() {
        let mut t = Tfrc::new(TfrcVariant::Rfc5348, RateConfig::default());
        t.on_report(&report(0, 0.0, 0.0));
        let limited = |now_ms, p, x| ReportSample {
            data_limited: true,
            ..report(now_ms, p, x)
        };
        let steps = [
            (report(100, 1e-4, 1e6), 2e6, 1e6),
            (limited(200, 1e-4, 0.3e6), 2e6, 1e6),
            (limited(300, 2e-4, 0.3e6), 0.5e6, 0.5e6),
            (report(400, 2e-4, 0.3e6), 0.6e6, 0.3e6),
        ];
        for (k, (r, rate, set)) in steps.into_iter().enumerate() {
            t.on_report(&r);
            assert!(t.x_calc(0.1) > 2.0 * rate, "step {k}: X_calc binds");
            assert!(
                (t.rate_bps - rate).abs() < 1e-6,
                "step {k}: X {}",
                t.rate_bps
            );
            assert!(
                (t.x_recv_bps - set).abs() < 1e-6,
                "step {k}: set {}",
                t.x_recv_bps
            );
        }
        // A new loss event halves the set as a larger p does.
        let mut u = t.clone();
        u.on_report(&ReportSample {
            new_loss_event: true,
            ..limited(500, 2e-4, 0.1e6)
        });
        assert!((u.x_recv_bps - 0.15e6).abs() < 1e-6 && (u.rate_bps - 0.15e6).abs() < 1e-6);
    }

    proptest::proptest! {
        /// Whatever the reports, a data-limited one without more loss never lowers the receive
        /// limit below the previous report's, and a data-limited one with more loss never sets
        /// it above the previous: X_recv_set only keeps (RFC 5348 §4.3).
        #[test]
        fn data_limited_reports_never_shrink_the_set_without_loss(
            reports in proptest::collection::vec(
                (0.0f64..1e-2, 0.0f64..1e7, proptest::bool::ANY, proptest::bool::ANY), 1..60)
        ) {
            let mut t = Tfrc::new(TfrcVariant::Rfc5348, RateConfig::default());
            t.on_report(&report(0, 0.0, 0.0));
            let mut p = 0.0;
            for (k, (dp, x, limited, more_loss)) in reports.into_iter().enumerate() {
                let before = t.x_recv_bps;
                let p_new = if more_loss { p + dp } else { p };
                let r = ReportSample {
                    data_limited: limited,
                    ..report(100 * (k as u64 + 1), p_new, x)
                };
                t.on_report(&r);
                if limited && p_new <= p {
                    proptest::prop_assert!(t.x_recv_bps >= before.max(x));
                } else if limited {
                    proptest::prop_assert!(t.x_recv_bps <= (before / 2.0).max(0.85 * x) + 1e-9);
                } else {
                    proptest::prop_assert_eq!(t.x_recv_bps, x);
                }
                proptest::prop_assert!(t.rate_bps.is_finite() && t.rate_bps > 0.0);
                p = p_new;
            }
        }
    }

    /// TFRC(180) (Loguinov & Radha 2003 §VI-C): with 1500-byte packets and s = 180 B in the
    /// equation, the rate after a loss report is 180/1500 of plain TFRC's, by (RFC 5348 §3.1).
    #[test]
    fn the_equation_can_use_its_own_packet_size() {
        let config = RateConfig {
            packet_bytes: 1500,
            ..RateConfig::default()
        };
        let after_loss = |t: Tfrc| {
            let mut t = t;
            t.on_report(&report(0, 0.0, 0.0));
            t.on_report(&report(100, 0.01, 1e9));
            t.rate_bps
        };
        let plain = after_loss(Tfrc::new(TfrcVariant::Rfc5348, config));
        let small = after_loss(Tfrc::new(TfrcVariant::Rfc5348, config).with_equation_bytes(180));
        assert!(
            plain > 0.0 && (small / plain - 0.12).abs() < 1e-12,
            "{small} vs {plain}"
        );
    }

    /// The 2000 timer is a plain 2R, however long the packet gap 2s/X: at 0.5 packets/RTT
    /// (gap 2R) ns-2.35 waits max(2R, 2s/X) = 4R, the 2000 code 2R, and halves on each expiry.
    #[test]
    fn ns2_2000_no_feedback_timer_is_two_rtts_and_halves() {
        let config = RateConfig {
            min_rate_bps: Some(1.0),
            ..RateConfig::default()
        };
        let mut old = Tfrc::new(TfrcVariant::Ns2June2000, config);
        let mut new = Tfrc::new(TfrcVariant::Ns2, config);
        assert_eq!(old.feedback_timeout(), None);
        for t in [&mut old, &mut new] {
            t.on_report(&report(0, 0.0, 0.0));
            t.rate_bps = 40e3; // 0.5 packets of 1000 bytes per 100 ms
        }
        assert_eq!(new.feedback_timeout(), Some(SimTime::from_ms(400)));
        for k in 1..=3 {
            assert_eq!(old.feedback_timeout(), Some(SimTime::from_ms(200)));
            old.on_no_feedback(SimTime::from_ms(200 * k));
            assert!((old.rate_bps - 40e3 / f64::from(1 << k)).abs() < 1e-6);
        }
        assert!(old.ns2_send_timer() && !new.ns2_send_timer());
    }

    /// The 2000 sender counts the receiver's hold in its RTT and weighs a sample by 0.75
    /// (df_ = 0.25); ns-2.35 takes the hold off and weighs 0.05.
    #[test]
    fn ns2_2000_rtt_includes_the_receivers_hold() {
        let held = |variant| {
            let mut t = Tfrc::new(variant, RateConfig::default());
            t.on_report(&report(0, 0.0, 0.0));
            t.on_report(&ReportSample {
                hold: SimTime::from_ms(100),
                ..report(100, 0.0, 0.0)
            });
            t.rtt_s.unwrap()
        };
        assert!((held(TfrcVariant::Ns2June2000) - (0.1 + 0.75 * 0.1)).abs() < 1e-12);
        assert!((held(TfrcVariant::Ns2) - 0.1).abs() < 1e-12);
    }

    /// 2000 slow start: one packet per RTT at the first report, ×2 per RTT below 2·X_recv; the
    /// first loss halves max(rate, 2·X_recv) rather than jumping to X_calc.
    #[test]
    fn ns2_2000_slow_start_and_its_exit() {
        let mut t = Tfrc::new(TfrcVariant::Ns2June2000, RateConfig::default());
        t.on_report(&report(0, 0.0, 0.0));
        assert!((t.rate_bps - 80e3).abs() < 1e-6, "{}", t.rate_bps);
        t.on_report(&report(150, 0.0, 1e6));
        assert!((t.rate_bps - 160e3).abs() < 1e-6, "{}", t.rate_bps);
        t.on_report(&report(200, 0.0, 1e6)); // less than one RTT later: unchanged
        assert!((t.rate_bps - 160e3).abs() < 1e-6);
        t.on_report(&report(300, 0.01, 100e3)); // maxrate 200 kb/s > rate
        assert!(
            !t.slow_start && (t.rate_bps - 100e3).abs() < 1e-6,
            "{}",
            t.rate_bps
        );
    }

    /// 2000 congestion avoidance: +s/R once per RTT while X_calc > rate, not capped at X_calc;
    /// a decrease sets X_calc and leaves the increase clock alone.
    #[test]
    fn ns2_2000_increases_by_one_packet_per_rtt_past_x_calc() {
        let mut t = Tfrc::new(TfrcVariant::Ns2June2000, RateConfig::default());
        t.on_report(&report(0, 0.0, 0.0));
        t.on_report(&report(100, 0.02, 10e6));
        let x_calc = t.x_calc(t.rtt_s.unwrap());
        t.rate_bps = x_calc - 1.0;
        t.last_change = SimTime::ZERO;
        t.on_report(&report(200, 0.02, 10e6));
        assert!(
            (t.rate_bps - (x_calc - 1.0 + 80e3)).abs() < 1e-6,
            "one packet per RTT above X_calc"
        );
        t.on_report(&report(250, 0.02, 10e6));
        assert!((t.rate_bps - x_calc).abs() < 1e-6, "decrease to X_calc");
        assert_eq!(t.last_change, SimTime::from_ms(200));
    }
}
