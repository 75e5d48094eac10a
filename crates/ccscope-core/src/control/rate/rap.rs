//! RAP, the Rate Adaptation Protocol (Rejaie, Handley & Estrin 1999; ns-2 `rap/rap.cc`, `rap.h`):
//! AIMD on the inter-packet gap, one additive step per SRTT, one back-off per loss cluster.
//!
//! What the rate transport provides and what differs from ns-2's agent:
//! - the receiver acknowledges every packet and reports the gaps it sees: a loss is declared
//!   once a packet `loss_after` sequence numbers later arrives (1 by default; ns-2's
//!   `AckLostPacket` uses 3: lastRecv − seqno ≥ 3), which only delays detection since the
//!   engine never reorders a flow's packets; the report's size is the source's `report_size`
//!   (ns-2's ACK is `rap_base_hdr_size_` = 44 bytes);
//! - a loss of a packet sent before the last back-off is ignored: ns-2 marks the whole
//!   transmission history INACTIVE on a back-off, which has the same effect;
//! - timer-based loss detection: by default the rate transport's no-feedback timer, which backs
//!   off at most once per SRTT. It is armed at each report for `timeout = μ·srtt + φ·variance`
//!   plus the IPG: the next packet leaves an IPG after the one reported, and its own timeout
//!   runs from its sending. (Armed for the timeout alone, it fired between any two packets of a
//!   flow whose IPG exceeds the timeout, under about one packet per RTT, on a healthy path:
//!   forty RAP flows on 1 Mb/s backed off until some carried nothing.) With `loss_timer`
//!   it is ns-2's `TimerLostPacket` instead: at each send slot the transport finds the packets
//!   sent `timeout` ago or earlier and not acknowledged ([`Controller::loss_timeout`]); if one
//!   of them was sent after the last back-off (ns-2's `RAP_SENT`, not `RAP_INACTIVE`), RAP
//!   backs off and the slot sends nothing (`IpgTimeout()`), even while ACKs of later packets
//!   arrive. ns-2 has no no-feedback timer, so RAP then asks for none. A packet whose ACK was
//!   lost on the way back stays unacknowledged here, where ns-2's `AckLostPacket` finds it
//!   received from the next ACK's hole report;
//! - ns-2's `UpdateTimeValues` keeps its first-sample flag in a `static`, shared by all RAP
//!   agents of a run: only the first agent starts its SRTT from its first sample, the others
//!   from `srtt_` = 2 s (a start-up difference only);
//! - by default the increase runs when a report arrives at least one SRTT after the previous
//!   step; with `rtt_timer` it runs on a timer of its own as ns-2's `RttTimeout()` does: once at
//!   the start (at the initial 2-s SRTT), then every SRTT after the last step or back-off
//!   (`rttTimer_.resched(srtt_)`), whether or not reports arrive. A report arrives some part of
//!   an inter-packet gap after the SRTT has passed, so report-driven steps come that much later;
//!   RAP's "enough was sent" check (`dpthresh_`) always holds because the sender is never
//!   data-limited; fine-grain adaptation (`useFineGrain_`) is off, as in ns-2's default.

use super::RateConfig;
use crate::control::{Controller, LossEvent, ReportSample, RoundSample};
use crate::time::SimTime;

/// ns-2 `ipg_` (s): the gap before the first RTT sample.
const INITIAL_IPG_S: f64 = 2.0;
/// ns-2 `srtt_` and `timeout_` before the first sample (s).
const INITIAL_SRTT_S: f64 = 2.0;
/// ns-2 `delta_`: gain of the SRTT and variance estimators.
const DELTA: f64 = 0.5;
/// ns-2 `mu_`, `phi_`: timeout = μ·srtt + φ·variance.
const MU: f64 = 1.2;
const PHI: f64 = 4.0;

/// RAP(α, β).
#[derive(Clone, Debug)]
pub struct Rap {
    /// Additive increase (packets per SRTT), > 0 (ns-2 `alpha_`).
    alpha: f64,
    /// Back-off: ipg ← ipg/β, β in (0, 1) (ns-2 `beta_`).
    beta: f64,
    /// Inter-packet gap (s), > 0; the rate is packet size / ipg, within the config's bounds.
    ipg_s: f64,
    /// Smoothed RTT (s), > 0; `None` before the first sample.
    srtt_s: Option<f64>,
    /// Mean deviation of the RTT (s), ≥ 0.
    variance_s: f64,
    /// When the rate last increased (or backed off: the RTT timer restarts).
    last_step: SimTime,
    /// When the last back-off happened.
    last_backoff: Option<SimTime>,
    /// Which of ns-2's timers it runs.
    timers: RapTimers,
    /// When the RTT timer fires next (with `timers.rtt`).
    next_step: SimTime,
    config: RateConfig,
}

/// Which of ns-2 rap.cc's timers RAP runs; by default neither.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RapTimers {
    /// Increase on the RTT timer (`RttTimeout()`) rather than on reports.
    pub rtt: bool,
    /// Timer-based loss detection (`TimerLostPacket`) rather than a no-feedback timer.
    pub loss: bool,
}

impl Rap {
    /// RAP(α, β) with the ns-2 timers `timers`. Trusts its arguments: the catalogue
    /// ([`crate::control::catalog`]) checks them.
    pub fn new(alpha: f64, beta: f64, timers: RapTimers, config: RateConfig) -> Self {
        let rate = config.initial_rate(config.packet_bits() / INITIAL_IPG_S);
        Rap {
            alpha,
            beta,
            ipg_s: config.packet_bits() / rate,
            srtt_s: None,
            variance_s: 0.0,
            last_step: SimTime::ZERO,
            last_backoff: None,
            timers,
            next_step: SimTime::ZERO,
            config,
        }
    }

    fn srtt(&self) -> f64 {
        self.srtt_s.unwrap_or(INITIAL_SRTT_S)
    }

    /// Keeps the gap within the config's rate bounds.
    fn set_ipg(&mut self, ipg_s: f64) {
        let rate = self.config.clamp(self.config.packet_bits() / ipg_s);
        self.ipg_s = self.config.packet_bits() / rate;
    }

    fn backoff(&mut self, now: SimTime) {
        self.set_ipg(self.ipg_s / self.beta); // rap.h IncreaseIpg(): ipg ← ipg/β
        self.last_backoff = Some(now);
        self.last_step = now;
        self.next_step = self.after_srtt(now); // rap.cc LossHandler(): rttTimer_.resched(srtt_)
    }

    fn after_srtt(&self, now: SimTime) -> SimTime {
        now + SimTime::from_secs_f64(self.srtt())
    }

    fn increase(&mut self, now: SimTime) {
        let srtt = self.srtt();
        // rap.h DecreaseIpg(): ipg ← ipg·srtt/(α·ipg + srtt), i.e. rate + α/srtt packets/s.
        self.set_ipg(self.ipg_s * srtt / (self.alpha * self.ipg_s + srtt));
        self.last_step = now;
        self.next_step = self.after_srtt(now); // rap.cc RttTimeout(): rttTimer_.resched(srtt_)
    }

    /// rap.cc UpdateTimeValues(): timeout = μ·srtt + φ·variance (ns-2 `timeout_` 2 s before
    /// the first sample).
    fn timeout(&self) -> SimTime {
        SimTime::from_secs_f64(MU * self.srtt() + PHI * self.variance_s)
    }

    fn rtt_sample(&mut self, sample_s: f64) {
        match self.srtt_s {
            None => {
                self.srtt_s = Some(sample_s);
                self.set_ipg(sample_s); // rap.cc: on the first ACK, ipg = srtt
            }
            Some(srtt) => {
                let diff = sample_s - srtt;
                self.srtt_s = Some(srtt + DELTA * diff); // UpdateTimeValues(): srtt += δ·diff
                self.variance_s += DELTA * (diff.abs() - self.variance_s);
            }
        }
    }
}

impl Controller for Rap {
    fn name(&self) -> String {
        format!("RAP({},{})", self.alpha, self.beta)
    }

    fn on_report(&mut self, report: &ReportSample) {
        if let Some(rtt) = report.rtt {
            self.rtt_sample(rtt.secs().max(1e-6));
        }
        if report.lost_pkts > 0.0 && !report.loss_predates(self.last_backoff) {
            self.backoff(report.now);
        } else if !self.timers.rtt && report.now.secs() - self.last_step.secs() >= self.srtt() {
            self.increase(report.now);
        }
    }

    fn wakeup(&self) -> Option<SimTime> {
        self.timers.rtt.then_some(self.next_step)
    }

    fn on_wakeup(&mut self, now: SimTime) {
        if self.timers.rtt && now >= self.next_step {
            self.increase(now);
        }
    }

    fn on_round(&mut self, round: &RoundSample) {
        self.srtt_s = Some(round.interval.secs().max(1e-6));
        if round.congested {
            self.backoff(round.now);
        } else {
            self.increase(round.now);
        }
    }

    fn feedback_timeout(&self) -> Option<SimTime> {
        (!self.timers.loss).then(|| self.timeout() + SimTime::from_secs_f64(self.ipg_s))
    }

    fn loss_timeout(&self) -> Option<SimTime> {
        self.timers.loss.then(|| self.timeout())
    }

    fn on_timer_loss(&mut self, loss: &LossEvent) -> bool {
        // rap.cc LossHandler() marks every packet sent so far INACTIVE: their expiries are
        // no new loss.
        if self.last_backoff.is_some_and(|cut| loss.sent_at < cut) {
            return false;
        }
        self.backoff(loss.now);
        true
    }

    fn on_no_feedback(&mut self, now: SimTime) {
        if self
            .last_backoff
            .is_none_or(|b| now.secs() - b.secs() >= self.srtt())
        {
            self.backoff(now);
        }
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        Some(self.config.packet_bits() / self.ipg_s)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([
            ("ipg_s", self.ipg_s),
            ("srtt_s", self.srtt_s.unwrap_or(f64::NAN)),
            ("rtt_var_s", self.variance_s),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::assert_close;
    use crate::control::LossKind;

    fn ack(now_ms: u64, lost: f64, sent_ms: u64) -> ReportSample {
        ReportSample {
            now: SimTime::from_ms(now_ms),
            rtt: Some(SimTime::from_ms(100)),
            lost_pkts: lost,
            loss_sent_at: (lost > 0.0).then(|| SimTime::from_ms(sent_ms)),
            ..ReportSample::default()
        }
    }

    #[test]
    fn first_ack_sets_one_packet_per_rtt_then_adds_alpha_per_srtt() {
        let mut r = Rap::new(1.0, 0.5, RapTimers::default(), RateConfig::default());
        assert_close(r.pacing_rate_bps().unwrap(), 8000.0 / 2.0, 1e-12);
        r.on_report(&ack(100, 0.0, 0));
        // ipg = srtt = 0.1 s, then one increase step (the RTT timer had expired): 2 packets/RTT.
        assert_close(r.pacing_rate_bps().unwrap(), 8000.0 * 20.0, 1e-9);
        r.on_report(&ack(150, 0.0, 0));
        assert_close(r.pacing_rate_bps().unwrap(), 8000.0 * 20.0, 1e-9);
        r.on_report(&ack(200, 0.0, 0));
        assert_close(r.pacing_rate_bps().unwrap(), 8000.0 * 30.0, 1e-9);
    }

    #[test]
    fn one_backoff_per_loss_cluster() {
        let mut r = Rap::new(1.0, 0.5, RapTimers::default(), RateConfig::default());
        r.on_report(&ack(100, 0.0, 0));
        let before = r.pacing_rate_bps().unwrap();
        r.on_report(&ack(120, 1.0, 110));
        assert_close(r.pacing_rate_bps().unwrap(), before / 2.0, 1e-9);
        // Sent before the back-off: same cluster.
        r.on_report(&ack(130, 1.0, 115));
        assert_close(r.pacing_rate_bps().unwrap(), before / 2.0, 1e-9);
        r.on_report(&ack(140, 1.0, 125));
        assert_close(r.pacing_rate_bps().unwrap(), before / 4.0, 1e-9);
    }

    #[test]
    fn the_rtt_timer_steps_every_srtt_whatever_the_reports() {
        let rtt = RapTimers {
            rtt: true,
            loss: false,
        };
        let mut r = Rap::new(1.0, 0.5, rtt, RateConfig::default());
        // rap.cc start(): RttTimeout() at once, at the initial 2-s SRTT: ipg 2 → 1 s.
        assert_eq!(r.wakeup(), Some(SimTime::ZERO));
        r.on_wakeup(SimTime::ZERO);
        assert_close(r.pacing_rate_bps().unwrap(), 8000.0, 1e-9);
        assert_eq!(r.wakeup(), Some(SimTime::from_ms(2000)));
        // The first ACK sets ipg = srtt = 0.1 s and leaves the timer alone.
        r.on_report(&ack(100, 0.0, 0));
        assert_close(r.pacing_rate_bps().unwrap(), 8000.0 * 10.0, 1e-9);
        // A report well over an SRTT after the last step does not step either.
        r.on_report(&ack(1000, 0.0, 0));
        assert_close(r.pacing_rate_bps().unwrap(), 8000.0 * 10.0, 1e-9);
        // Steps on the timer, then every SRTT after it (srtt 0.1 s).
        r.on_wakeup(SimTime::from_ms(2000));
        assert_close(r.pacing_rate_bps().unwrap(), 8000.0 * 20.0, 1e-9);
        assert_eq!(r.wakeup(), Some(SimTime::from_ms(2100)));
        // A back-off restarts the timer an SRTT later.
        r.on_report(&ack(2150, 1.0, 2120));
        assert_close(r.pacing_rate_bps().unwrap(), 8000.0 * 10.0, 1e-9);
        assert_eq!(r.wakeup(), Some(SimTime::from_ms(2250)));
    }

    #[test]
    fn the_loss_timer_backs_off_once_per_packet_sent_since_the_last_backoff() {
        let loss = RapTimers {
            rtt: false,
            loss: true,
        };
        let mut r = Rap::new(1.0, 0.5, loss, RateConfig::default());
        // ns-2 has no no-feedback timer: the loss timer takes its place, at the same timeout.
        assert_eq!(r.feedback_timeout(), None);
        assert_eq!(r.loss_timeout(), Some(SimTime::from_ms(2400)));
        r.on_report(&ack(100, 0.0, 0));
        assert_eq!(r.loss_timeout(), Some(SimTime::from_ms(120)));
        let before = r.pacing_rate_bps().unwrap();
        let expired = |now_ms, sent_ms| LossEvent {
            now: SimTime::from_ms(now_ms),
            kind: LossKind::Timeout,
            sent_at: SimTime::from_ms(sent_ms),
            lost_pkts: 1.0,
        };
        assert!(r.on_timer_loss(&expired(300, 150)));
        assert_close(r.pacing_rate_bps().unwrap(), before / 2.0, 1e-9);
        // Sent before that back-off (ns-2: INACTIVE): purged, not a loss.
        assert!(!r.on_timer_loss(&expired(310, 290)));
        assert_close(r.pacing_rate_bps().unwrap(), before / 2.0, 1e-9);
        assert!(r.on_timer_loss(&expired(500, 350)));
        assert_close(r.pacing_rate_bps().unwrap(), before / 4.0, 1e-9);
        // Without the setting the transport keeps no record of sends.
        let plain = Rap::new(1.0, 0.5, RapTimers::default(), RateConfig::default());
        assert_eq!(plain.loss_timeout(), None);
    }

    #[test]
    fn a_healthy_path_at_a_low_rate_sees_no_silence() {
        // Four back-offs from two packets per 100-ms RTT: an IPG of 800 ms, beyond the 120-ms
        // timeout. Reports come an IPG apart, so the timer (restarted by each) must outlast one.
        let mut r = Rap::new(1.0, 0.5, RapTimers::default(), RateConfig::default());
        r.on_report(&ack(100, 0.0, 0));
        for k in 1..=4 {
            r.on_report(&ack(100 + 200 * k, 1.0, 100 + 200 * k - 1));
        }
        let ipg = 8000.0 / r.pacing_rate_bps().unwrap();
        assert_close(ipg, 0.8, 1e-9);
        assert!(r.feedback_timeout().unwrap().secs() > ipg);
    }

    #[test]
    fn timeout_follows_mu_srtt_plus_phi_variance() {
        let mut r = Rap::new(1.0, 0.5, RapTimers::default(), RateConfig::default());
        let ipg = |r: &Rap| SimTime::from_secs_f64(8000.0 / r.pacing_rate_bps().unwrap());
        // The no-feedback timer waits for the next packet (an IPG on) and its timeout.
        assert_eq!(r.feedback_timeout(), Some(SimTime::from_ms(2400) + ipg(&r)));
        r.on_report(&ack(100, 0.0, 0));
        let mut s = ack(200, 0.0, 0);
        s.rtt = Some(SimTime::from_ms(200));
        r.on_report(&s);
        // srtt = 0.15, variance = 0.05: 1.2·0.15 + 4·0.05 = 0.38 s.
        assert_eq!(r.feedback_timeout(), Some(SimTime::from_ms(380) + ipg(&r)));
        let before = r.pacing_rate_bps().unwrap();
        r.on_no_feedback(SimTime::from_ms(1000));
        assert_close(r.pacing_rate_bps().unwrap(), before / 2.0, 1e-9);
    }
}
