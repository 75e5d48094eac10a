//! Congestion controllers: engine-independent code.
//!
//! A controller owns only its own state. It never reads a clock or a global RNG: the engine
//! hands it `now` and the feedback of one event (an ACK, a loss event, a receiver report, or
//! one control interval's aggregate), and reads back the window (packets) or the pacing rate
//! (bits/s). That is what lets the same object run in the packet engine, the round model and a
//! unit test (model: Linux `tcp_congestion_ops`, quinn's `Controller`).
//!
//! One dispatch style: engines hold `Box<dyn Controller>`; every hook has a default that does
//! nothing, so a controller implements only what it reacts to.
//!
//! Layers, each importing only those above it in this list (`tests/layers.rs` checks it):
//! - this module: the [`Controller`] trait and the samples it is fed;
//! - [`window`]: window state ([`Window`]) and the papers' window rules, one per file;
//! - [`rate`]: rate-based senders, one per file, and how they start ([`RateConfig`]);
//! - [`receiver`]: the [`Receiver`](receiver::Receiver) trait and the receivers of rate-based
//!   protocols, one per file;
//! - [`catalog`]: the one catalogue of window and rate controllers by name; its
//!   [`ControllerConfig`](catalog::ControllerConfig) is validated once and builds every flow's
//!   controller (and, for rate controllers, its receiver).

pub mod catalog;
pub mod rate;
pub mod receiver;
pub mod window;

pub use rate::{
    tfrc_throughput_bps, ConstantRate, Iscc, Rap, RateBinomial, RateConfig, Ssvp, SsvpDecrease,
    TearSender, Tfrc, TfrcVariant,
};
pub use receiver::{TearReceiver, TfrcReceiver};
pub use window::{
    friendly_alpha_cai, friendly_alpha_jin, friendly_alpha_yang, Aimd, AimdRule, Binomial,
    BinomialForm, BinomialRule, History, HistoryRule, Taimd, TaimdRule, Window, WindowConfig,
    WindowRule, BANSAL_ALPHA, BANSAL_BETA, MAX_ALPHA, MAX_K, MAX_WINDOW_PKTS, MIN_HISTORY_K,
};

use crate::time::SimTime;

/// One acknowledgement seen by a sender (packet engine) or one receiver report.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AckSample {
    pub now: SimTime,
    /// Packets newly acknowledged by this ACK (may be fractional for byte-counting transports).
    pub acked_pkts: f64,
    /// RTT measured by this ACK, if any.
    pub rtt: Option<SimTime>,
    /// Smoothed RTT of the sender, if it has one.
    pub srtt: Option<SimTime>,
    /// Packets outstanding after this ACK.
    pub in_flight_pkts: f64,
}

/// Why the sender believes a packet was lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LossKind {
    /// Duplicate ACKs / SACK scoreboard / receiver-reported gap.
    #[default]
    Gap,
    /// Retransmission timeout or no-feedback timer.
    Timeout,
    /// An ECN congestion-experienced mark.
    Ecn,
}

/// A congestion signal. `sent_at` of the lost packet lets a controller react at most once per
/// RTT (a loss of a packet sent before the last reduction belongs to the same event).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LossEvent {
    pub now: SimTime,
    pub kind: LossKind,
    /// When the lost (or marked) packet was sent.
    pub sent_at: SimTime,
    /// Packets lost in this event (at least 1).
    pub lost_pkts: f64,
}

/// The aggregate feedback of one control interval (the round model, rate-based senders).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RoundSample {
    pub now: SimTime,
    /// Length of the control interval (the flow's RTT in the round model).
    pub interval: SimTime,
    /// Whether the flow saw congestion in this interval.
    pub congested: bool,
    /// Fraction of the flow's packets lost in the interval, in [0, 1].
    pub loss_fraction: f64,
    /// Bottleneck capacity (bits/s) when an oracle or estimator provides it.
    pub capacity_bps: Option<f64>,
}

/// One feedback report of a rate-based receiver as its sender sees it (the rate transport,
/// `transport::rate`: TFRC's feedback of RFC 5348 §6, TEAR's rate reports, RAP's ACKs of ns-2
/// `rap/rap.cc`, SSVP's control packets). A receiver fills in what its protocol reports;
/// the rest stays zero / `None`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReportSample {
    pub now: SimTime,
    /// RTT measured from this report: now − echoed send time − receiver hold time.
    pub rtt: Option<SimTime>,
    /// How long the receiver held the echoed packet before reporting (included in `now` −
    /// echoed send time, excluded from `rtt`).
    pub hold: SimTime,
    /// Data received since the previous report (bits/s), ≥ 0 (TFRC's X_recv).
    pub recv_rate_bps: f64,
    /// The receiver's loss event rate p, in [0, 1] (TFRC; 0 before the first loss).
    pub loss_event_rate: f64,
    /// Packets found lost since the previous report, ≥ 0.
    pub lost_pkts: f64,
    /// Packets received since the previous report, ≥ 0.
    pub received_pkts: f64,
    /// Send time of the earliest packet found lost since the previous report; lets a controller
    /// react at most once per RTT (losses of packets sent before its last reduction are ignored).
    pub loss_sent_at: Option<SimTime>,
    /// A new loss event started since the previous report (TFRC's expedited feedback).
    pub new_loss_event: bool,
    /// The sending rate the receiver computed for the sender (TEAR), bits/s.
    pub rate_bps: Option<f64>,
    /// The receiver's estimate of the bottleneck capacity (bits/s), e.g. from packet bunches.
    pub capacity_bps: Option<f64>,
}

impl ReportSample {
    /// Whether the losses reported were of packets sent before `decrease`, the controller's
    /// last rate reduction, which already answered them (false without a reduction or a loss
    /// time).
    pub fn loss_predates(&self, decrease: Option<SimTime>) -> bool {
        self.loss_sent_at
            .zip(decrease)
            .is_some_and(|(lost, cut)| lost < cut)
    }
}

/// What a controller tells its engine to do.
pub trait Controller: Send {
    /// Name in the papers' notation, e.g. `GAIMD(0.31,0.875)`.
    fn name(&self) -> String;

    /// Fires for every acknowledgement (or receiver report) that acknowledges new data.
    fn on_ack(&mut self, _ack: &AckSample) {}

    /// Fires once per congestion signal the transport decides to report.
    fn on_loss(&mut self, _loss: &LossEvent) {}

    /// Fires once per control interval with that interval's aggregate feedback.
    fn on_round(&mut self, _round: &RoundSample) {}

    /// [`Controller::on_round`], then what the controller offers next: its pacing rate (bits/s)
    /// when rate-based, else its window (packets). One call per flow and step in the round
    /// model; the default is compiled for each controller, so it needs no override.
    fn round_offer(&mut self, round: &RoundSample) -> f64 {
        self.on_round(round);
        self.pacing_rate_bps().unwrap_or_else(|| self.window())
    }

    /// Congestion window in packets; `f64::INFINITY` when the controller does not limit by window.
    fn window(&self) -> f64 {
        f64::INFINITY
    }

    /// Pacing rate in bits/s, when the controller is rate-based.
    fn pacing_rate_bps(&self) -> Option<f64> {
        None
    }

    /// The binomial control a window controller runs ([`WindowRule::binomial`]); `None` for
    /// rules with memory and for rate controllers.
    fn binomial(&self) -> Option<BinomialForm> {
        None
    }

    /// Sets the congestion window to `cwnd_pkts` (≥ 1 packet) as the engine's packetization
    /// dictates: the round model's integer windows round a window down to whole packets after a
    /// reduction (Cai et al. §III-C.2: "the effective cwnd is always rounded to the maximum
    /// integer no greater than the algorithmic cwnd"). Fires only when an engine models
    /// packetization; a controller that does not limit by window ignores it.
    fn set_window(&mut self, _cwnd_pkts: f64) {}

    /// Fires when a feedback report from a rate-based receiver reaches the sender (the rate
    /// transport; once per report, whatever the protocol's report frequency).
    fn on_report(&mut self, _report: &ReportSample) {}

    /// How long the rate transport waits for a report before it calls [`Controller::on_no_feedback`]
    /// (TFRC's no-feedback timer, RAP's timeout); re-read after every report and expiry.
    /// `None` (the default) disables the timer.
    fn feedback_timeout(&self) -> Option<SimTime> {
        None
    }

    /// Fires when no report has arrived for [`Controller::feedback_timeout`] since the last report
    /// (or since the start, or since the previous expiry).
    fn on_no_feedback(&mut self, _now: SimTime) {}

    /// ns-2's send timer for the rate transport: a no-feedback expiry sends a packet at once and
    /// restarts the send timer at the new rate, and a report leaves the pending send where it
    /// is (`tfrc.cc`: `reduce_rate_on_no_feedback()` calls `nextpkt()`, `recv()` reschedules
    /// nothing). `false` (the default): the expiry only changes the rate, and a report that
    /// raises the rate brings the next send forward.
    fn ns2_send_timer(&self) -> bool {
        false
    }

    /// The controller's internal state as named values, for the state trace (e.g. TFRC's p and
    /// X_calc): appended to `out`, in the same order every time. A value not defined yet may be
    /// left out or given as non-finite; the window and the pacing rate are the transport's to
    /// report.
    fn state(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

#[cfg(test)]
pub(crate) mod harness;

/// A boxed controller is a controller: engines that take controllers built elsewhere (written in
/// Python, say) hold them this way.
impl Controller for Box<dyn Controller> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn on_ack(&mut self, ack: &AckSample) {
        (**self).on_ack(ack)
    }
    fn on_loss(&mut self, loss: &LossEvent) {
        (**self).on_loss(loss)
    }
    fn on_round(&mut self, round: &RoundSample) {
        (**self).on_round(round)
    }
    fn round_offer(&mut self, round: &RoundSample) -> f64 {
        (**self).round_offer(round)
    }
    fn window(&self) -> f64 {
        (**self).window()
    }
    fn pacing_rate_bps(&self) -> Option<f64> {
        (**self).pacing_rate_bps()
    }
    fn binomial(&self) -> Option<BinomialForm> {
        (**self).binomial()
    }
    fn set_window(&mut self, cwnd_pkts: f64) {
        (**self).set_window(cwnd_pkts)
    }
    fn on_report(&mut self, report: &ReportSample) {
        (**self).on_report(report)
    }
    fn feedback_timeout(&self) -> Option<SimTime> {
        (**self).feedback_timeout()
    }
    fn on_no_feedback(&mut self, now: SimTime) {
        (**self).on_no_feedback(now)
    }
    fn ns2_send_timer(&self) -> bool {
        (**self).ns2_send_timer()
    }
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        (**self).state(out)
    }
}
