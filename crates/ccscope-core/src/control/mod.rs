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

mod aimd;
mod binomial;
pub mod catalog;
mod constant;
mod history;
mod taimd;
mod window;

pub use aimd::{friendly_alpha_cai, friendly_alpha_jin, friendly_alpha_yang, Aimd, AimdRule};
pub use binomial::{Binomial, BinomialRule, BANSAL_ALPHA, BANSAL_BETA, MAX_K};
pub use constant::ConstantRate;
pub use history::{History, HistoryRule, MIN_HISTORY_K};
pub use taimd::{Taimd, TaimdRule};
pub use window::{Window, WindowConfig, WindowRule, MAX_ALPHA, MAX_WINDOW_PKTS};

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

    /// Congestion window in packets; `f64::INFINITY` when the controller does not limit by window.
    fn window(&self) -> f64 {
        f64::INFINITY
    }

    /// Pacing rate in bits/s, when the controller is rate-based.
    fn pacing_rate_bps(&self) -> Option<f64> {
        None
    }
}

#[cfg(test)]
pub(crate) mod harness;
