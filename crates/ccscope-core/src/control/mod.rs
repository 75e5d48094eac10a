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
//! - [`media`]: media controllers driven by per-packet feedback ([`FeedbackSample`], the media
//!   transport's RFC 8888 or transport-wide feedback) that set an encoder's target rate, one per
//!   file;
//! - [`catalog`]: the one catalogue of window and rate controllers by name; its
//!   [`ControllerConfig`](catalog::ControllerConfig) is validated once and builds every flow's
//!   controller (and, for rate controllers, its receiver).

pub mod catalog;
pub mod media;
pub mod rate;
pub mod receiver;
pub mod window;

pub use media::{Gcc, GccParams};
pub use rate::{
    tfrc_throughput_bps, ConstantRate, Iscc, Rap, RapTimers, RateBinomial, RateConfig, Ssvp,
    SsvpDecrease, TearSender, Tfrc, TfrcVariant,
};
pub use receiver::{TearReceiver, TfrcReceiver};
pub use window::{
    friendly_alpha_cai, friendly_alpha_jin, friendly_alpha_yang, Aimd, AimdRule, Binomial,
    BinomialForm, BinomialRule, Dctcp, History, HistoryRule, Taimd, TaimdRule, Vegas, Window,
    WindowConfig, WindowRule, BANSAL_ALPHA, BANSAL_BETA, DCTCP_G, MAX_ALPHA, MAX_K, MAX_VEGAS_PKTS,
    MAX_WINDOW_PKTS, MIN_HISTORY_K, VEGAS_ALPHA, VEGAS_BETA, VEGAS_GAMMA,
};

use crate::time::SimTime;

/// One acknowledgement as a window-based sender sees it (the TCP transport, in the packet and
/// the udp engine): what Linux hands `tcp_congestion_ops` in `struct ack_sample` and
/// `struct rate_sample`. It fires for every ACK, duplicates and ACKs in loss recovery
/// included; `in_recovery` and `rwnd_limited` say when a window rule should not grow.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AckSample {
    pub now: SimTime,
    /// Packets newly acknowledged cumulatively by this ACK; 0 for a duplicate ACK.
    pub acked_pkts: u64,
    /// Bytes of those packets (their sizes on the wire).
    pub acked_bytes: u64,
    /// Packets above the cumulative ACK that this ACK newly reports held (SACK, RFC 2018).
    pub sacked_pkts: u64,
    /// Packets this ACK newly delivers, each counted once: those it acknowledges that were not
    /// SACKed before, and those it newly SACKs (RFC 6937's DeliveredData; Linux's
    /// `rs->acked_sacked`). `acked_pkts + sacked_pkts` counts a packet twice when it was SACKed
    /// before the cumulative ACK passes it.
    pub delivered_pkts: u64,
    /// Packets this ACK counts for window growth, as the TCP source's `growth` says: with
    /// `per_ack` (the default; RFC 5681 §3.1, ns-2's `opencwnd()`) 1 for an ACK of new data;
    /// with `per_packet` (RFC 3465's byte counting in whole packets and without its limit L, as
    /// Linux hands `tcp_congestion_ops.cong_avoid` its `acked`) the packets it newly
    /// acknowledges; 0 for a duplicate ACK. A window controller takes its per-ACK step this
    /// many times (net/ipv4/tcp_cong.c `tcp_slow_start`, `tcp_cong_avoid_ai`).
    pub growth_pkts: u64,
    /// RTT measured by this ACK, if any (none for an ACK of a retransmission: Karn's rule).
    pub rtt: Option<SimTime>,
    /// The transport's smoothed RTT (RFC 6298), once it has a sample.
    pub srtt: Option<SimTime>,
    /// The smallest RTT sample the transport has measured, once it has one.
    pub min_rtt: Option<SimTime>,
    /// Packets in flight after this ACK: sent and neither acknowledged, SACKed nor deemed lost
    /// (RFC 6675 SetPipe for SACK; for Reno and NewReno, outstanding packets).
    pub in_flight_pkts: u64,
    /// Bytes in flight after this ACK (the same packets' sizes; for SACK senders, packets of
    /// the flow's packet size).
    pub in_flight_bytes: u64,
    /// Of the newly acknowledged packets, those the receiver reports as CE-marked: TCP counts
    /// every packet an ACK with ECN-Echo acknowledges (RFC 8257 §3.3).
    pub ce_pkts: u64,
    /// Bytes of those packets.
    pub ce_bytes: u64,
    /// The ACK carries ECN-Echo (RFC 3168): the packet that triggered it was CE-marked.
    pub ece: bool,
    /// The ACK arrived in fast recovery (the ACK that ends it included): the transport, not
    /// the controller's growth, manages what is sent then (RFC 5681 §3.2, RFC 6582, RFC 6675
    /// §5). After a timeout the sender is in slow start, not in recovery.
    pub in_recovery: bool,
    /// The ACK arrived while packets a timeout found outstanding are still unacknowledged:
    /// from the timeout until the ACK of the last packet sent before it, that ACK included
    /// (Linux's `TCP_CA_Loss` state).
    pub timeout_outstanding: bool,
    /// The receiver window, not the congestion window, bounds what the sender may have
    /// outstanding: a window rule does not grow (RFC 7661 §4, Linux `tcp_is_cwnd_limited`).
    pub rwnd_limited: bool,
    /// A delivery-rate sample, when the controller asks for them
    /// ([`Controller::wants_delivery_rate`]) and this ACK delivered data.
    pub delivery: Option<DeliverySample>,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation-02 §3.3; Linux
/// `tcp_rate.c`): the data delivered between the sending of the packet this ACK newly
/// delivered last and this ACK, over the longer of its send and ACK intervals.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DeliverySample {
    /// Delivery rate over the interval (bits/s), finite and ≥ 0.
    pub rate_bps: f64,
    /// Packets delivered over the interval (acknowledged or SACKed).
    pub delivered_pkts: u64,
    /// Bytes delivered over the interval.
    pub delivered_bytes: u64,
    /// The interval: the longer of the send and ACK elapsed times (> 0).
    pub interval: SimTime,
    /// The sampled packet was sent while the application, not the network, limited sending:
    /// the rate may underestimate the path (§3.4); a max filter may still use it when it is
    /// higher than the current estimate.
    pub app_limited: bool,
    /// Packets delivered over the whole connection so far (the draft's C.delivered).
    pub total_delivered_pkts: u64,
    /// Packets in flight when the sampled packet was sent (BBR's `tx_in_flight`).
    pub tx_in_flight_pkts: u64,
    /// Packets the transport marked lost between the sending of the sampled packet and this
    /// ACK (draft-ietf-ccwg-bbr-06 §2.3 RS.lost: C.lost − P.lost).
    pub lost_pkts: u64,
}

/// A packet the transport has just marked lost, as the delivery-rate estimator remembers its
/// sending (draft-ietf-ccwg-bbr-06 §5.5.10.2 HandleLostPacket(P)): for controllers that take
/// delivery-rate samples ([`Controller::wants_delivery_rate`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LostPacket {
    pub now: SimTime,
    /// When the packet was (last) sent.
    pub sent_at: SimTime,
    /// Packets in flight when it was sent, itself included (P.tx_in_flight).
    pub tx_in_flight_pkts: u64,
    /// Packets marked lost since it was sent, itself included (C.lost − P.lost).
    pub lost_pkts: u64,
    /// It was sent while the sender was application-limited (P.is_app_limited).
    pub app_limited: bool,
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

impl LossKind {
    /// The kind's name in results and for Python controllers.
    pub fn name(self) -> &'static str {
        match self {
            LossKind::Gap => "gap",
            LossKind::Timeout => "timeout",
            LossKind::Ecn => "ecn",
        }
    }
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

/// The aggregate feedback of one control interval (the round model).
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
    /// The round trip without queueing (the round model's RTT0).
    pub base_rtt: SimTime,
    /// Queueing delay at the bottleneck in this interval: the interval less the base RTT.
    pub queueing_delay: SimTime,
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
    /// One-way delay of the echoed data packet: its arrival at the receiver (the report's
    /// timestamp less the hold time) less its send time. Sender and receiver share the
    /// engine's clock, so it includes no clock offset.
    pub one_way_delay: Option<SimTime>,
    /// Data received since the previous report (bits/s), ≥ 0 (TFRC's X_recv).
    pub recv_rate_bps: f64,
    /// The receiver's loss event rate p, in [0, 1] (TFRC; 0 before the first loss).
    pub loss_event_rate: f64,
    /// Packets found lost since the previous report, ≥ 0; a packet that arrived CE-marked counts
    /// as lost (RFC 3168 §5).
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
    /// The sender was data-limited over the whole interval the report covers (RFC 5348 §4.3:
    /// its rate held no data back in it); false where the transport does not tell.
    pub data_limited: bool,
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

/// How a media receiver encodes its congestion feedback (the media transport,
/// `transport::rtp`). Both carry, for each packet of a range of transport sequence numbers,
/// whether it arrived and when; they differ in size on the wire, in the resolution of the
/// arrival times and in whether ECN marks are reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FeedbackFormat {
    /// RFC 8888's congestion control feedback: per packet a received flag, its ECN codepoint
    /// and its arrival time offset from the report timestamp in units of 1/1024 s (§3.1).
    #[default]
    Rfc8888,
    /// libwebrtc's transport-wide congestion control feedback
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1): packet status chunks and
    /// receive deltas in units of 250 µs; no ECN.
    TransportWide,
}

impl FeedbackFormat {
    /// The name scenario files and results use.
    pub fn name(self) -> &'static str {
        match self {
            FeedbackFormat::Rfc8888 => "rfc8888",
            FeedbackFormat::TransportWide => "transport-wide",
        }
    }

    /// The resolution of the arrival times it carries.
    pub fn resolution(self) -> SimTime {
        match self {
            // 1/1024 s, rounded to the engine's nanosecond.
            FeedbackFormat::Rfc8888 => SimTime(976_563),
            FeedbackFormat::TransportWide => SimTime(250_000),
        }
    }
}

/// When a media receiver sends its feedback: at the end of each frame (the packet that
/// completes an application data unit, RTP's marker bit) when `per_frame`, and in any case
/// once `interval` has passed since the last feedback with packets to report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FeedbackPlan {
    pub format: FeedbackFormat,
    /// The longest time between two feedback packets while data arrives (> 0).
    pub interval: SimTime,
    pub per_frame: bool,
}

/// The feedback a media controller gets when neither it ([`Controller::feedback_plan`]) nor the
/// scenario asks for other: RFC 8888 every 50 ms (a modelling choice inside the 50–100 ms
/// that RMCAT evaluations use; RFC 8888 leaves the interval to the controller).
pub const DEFAULT_FEEDBACK: FeedbackPlan = FeedbackPlan {
    format: FeedbackFormat::Rfc8888,
    interval: SimTime::from_ms(50),
    per_frame: false,
};

/// What a media receiver reports of one packet (RFC 8888 §3.1's per-packet metric block;
/// transport-wide feedback's packet status and receive delta); the sender adds what it
/// remembers of the packet (size, send time).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PacketStatus {
    /// Transport-wide sequence number (from 0, consecutive at the sender).
    pub seq: u64,
    /// Size on the wire (bytes), from the sender's record.
    pub size_bytes: u32,
    /// When the sender sent it, from the sender's record.
    pub sent_at: SimTime,
    /// When it reached the receiver, at the feedback format's resolution; `None`: not received
    /// when the report was made.
    pub arrived_at: Option<SimTime>,
    /// It arrived ECN-capable (ECT). Transport-wide feedback reports no ECN: always false.
    pub ect: bool,
    /// It arrived CE-marked. Transport-wide feedback reports no ECN: always false.
    pub ce: bool,
}

impl PacketStatus {
    pub fn received(&self) -> bool {
        self.arrived_at.is_some()
    }

    /// One-way delay: arrival less send time (sender and receiver share the engine's clock).
    pub fn one_way_delay(&self) -> Option<SimTime> {
        self.arrived_at.map(|a| a.saturating_sub(self.sent_at))
    }
}

/// One feedback packet of a media receiver as the sender sees it (the media transport,
/// `transport::rtp`): the fate of each packet in a range of sequence numbers, in sequence order.
/// Successive reports cover successive ranges; a packet whose report was lost on the reverse
/// path is never reported.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FeedbackSample {
    /// When the feedback reached the sender.
    pub now: SimTime,
    /// When the receiver sent it (RFC 8888's report timestamp).
    pub report_at: SimTime,
    pub format: FeedbackFormat,
    /// RTT measured from this report: now less the send time of the last packet it reports
    /// received, less the time that packet waited at the receiver before the report.
    pub rtt: Option<SimTime>,
    /// Bytes sent and not yet covered by any report that reached the sender, after this one.
    pub in_flight_bytes: u64,
    /// Bytes the application has handed over and the sender has not sent yet when the
    /// feedback arrived (the sender's queue: RFC 8698's rate shaping buffer, RFC 8298's RTP
    /// queue).
    pub queued_bytes: u64,
    /// Size of this feedback packet on the wire (bytes).
    pub size_bytes: u32,
    pub packets: Vec<PacketStatus>,
}

impl FeedbackSample {
    /// Packets reported not received.
    pub fn lost_pkts(&self) -> usize {
        self.packets.iter().filter(|p| !p.received()).count()
    }

    /// Packets reported CE-marked.
    pub fn ce_pkts(&self) -> usize {
        self.packets.iter().filter(|p| p.ce).count()
    }
}

/// A congestion controller: engine-independent state driven by feedback hooks, read back
/// through its outputs.
///
/// Inputs (each hook fires as its doc says; every one has a default that does nothing):
/// [`on_ack`](Controller::on_ack), [`on_loss`](Controller::on_loss),
/// [`on_undo`](Controller::on_undo), [`on_report`](Controller::on_report),
/// [`on_round`](Controller::on_round), [`on_feedback`](Controller::on_feedback),
/// [`on_wakeup`](Controller::on_wakeup), [`on_no_feedback`](Controller::on_no_feedback),
/// [`on_timer_loss`](Controller::on_timer_loss).
///
/// Outputs, read after every hook: [`window`](Controller::window) (packets; infinite when the
/// controller does not limit by window), [`pacing_rate_bps`](Controller::pacing_rate_bps)
/// (a rate-based sender's rate, or the pace of a window-based one: the TCP transport paces
/// when it is given), [`target_rate_bps`](Controller::target_rate_bps) (a media controller's
/// encoder target, when apart from its pace), and [`wakeup`](Controller::wakeup) (when to call
/// `on_wakeup`). The media transport also honours [`window`](Controller::window): it sends
/// while the bytes in flight stay within the window times the packet size.
pub trait Controller: Send {
    /// Name in the papers' notation, e.g. `GAIMD(0.31,0.875)`.
    fn name(&self) -> String;

    /// Fires for every acknowledgement a window-based transport receives (TCP: duplicates and
    /// ACKs in recovery included).
    fn on_ack(&mut self, _ack: &AckSample) {}

    /// Fires once per congestion signal the transport decides to report.
    fn on_loss(&mut self, _loss: &LossEvent) {}

    /// Fires when the transport finds that its last congestion signal was spurious: the
    /// packet it retransmitted had arrived (Eifel detection, RFC 3522: the ACK that covers the
    /// retransmitted packet echoes the original's send time). RFC 9438 §4.9 restores the state
    /// from before the reduction.
    fn on_undo(&mut self, _now: SimTime) {}

    /// Fires once per control interval with that interval's aggregate feedback.
    fn on_round(&mut self, _round: &RoundSample) {}

    /// [`Controller::on_round`], then what the controller offers next: its window (packets)
    /// when it limits by window, else its pacing rate (bits/s). One call per flow and step in
    /// the round model; the default is compiled for each controller, so it needs no override.
    fn round_offer(&mut self, round: &RoundSample) -> f64 {
        self.on_round(round);
        let w = self.window();
        if w.is_finite() {
            w
        } else {
            self.pacing_rate_bps().unwrap_or(w)
        }
    }

    /// Congestion window in packets; `f64::INFINITY` when the controller does not limit by window.
    fn window(&self) -> f64 {
        f64::INFINITY
    }

    /// Pacing rate in bits/s: the sending rate of a rate-based controller, or the pace of a
    /// window-based one (`None`: the window's ACK clock alone).
    fn pacing_rate_bps(&self) -> Option<f64> {
        None
    }

    /// When the controller wants [`Controller::on_wakeup`] to fire (a probing schedule, BBR's
    /// ProbeRTT), if ever; read after every hook. A time already past fires at once.
    fn wakeup(&self) -> Option<SimTime> {
        None
    }

    /// Fires at the time [`Controller::wakeup`] asked for.
    fn on_wakeup(&mut self, _now: SimTime) {}

    /// Whether [`AckSample::delivery`] should carry delivery-rate samples: the transport then
    /// keeps the per-packet state draft-cheng-iccrg-delivery-rate-estimation needs.
    fn wants_delivery_rate(&self) -> bool {
        false
    }

    /// Fires for each packet the transport marks lost, when it marks it: the holes RFC 6675
    /// IsLost finds lost (SACK), before the ACK's [`Controller::on_ack`]; the packet a fast
    /// retransmit resends, before its [`Controller::on_loss`]; the hole a NewReno partial ACK
    /// resends, after that ACK's `on_ack`; every packet outstanding at a timeout, before the
    /// timeout's `on_loss`. Only for controllers that take delivery-rate samples, whose
    /// per-packet records it reads.
    fn on_lost_packet(&mut self, _lost: &LostPacket) {}

    /// Fires before the transport sends after an idle period: nothing was in flight and the
    /// application had run out of data (draft-ietf-ccwg-bbr-06 §5.4.1 HandleRestartFromIdle;
    /// Linux `CA_EVENT_TX_START`); only for controllers that take delivery-rate samples.
    fn on_restart_from_idle(&mut self, _now: SimTime) {}

    /// Whether the transport should count what it sends next as application-limited, until
    /// what is in flight now has been delivered (draft-cheng-iccrg-delivery-rate-estimation-02
    /// §3.4; BBR marks its ProbeRTT so, draft-cardwell-iccrg-bbr-congestion-control-00
    /// §4.3.5): read after every ACK a controller that takes delivery-rate samples sees.
    fn marks_app_limited(&self) -> bool {
        false
    }

    /// Whether the controller has a form for the round model, which gives one aggregate per
    /// round trip ([`Controller::on_round`]); a controller that needs what only ACKs carry
    /// (delivery-rate samples, per-packet RTT samples) has none, and the round model refuses
    /// it.
    fn runs_in_rounds(&self) -> bool {
        true
    }

    /// Whether the TCP receiver must acknowledge at once every change in the CE marking of the
    /// data it receives, so that with delayed ACKs each ACK's ECN-Echo covers exactly the
    /// packets that were marked (DCTCP's receiver, RFC 8257 §3.2; Linux
    /// `dctcp_ece_ack_update`). Without delayed ACKs every ACK echoes its own packet anyway.
    fn wants_exact_ce_echo(&self) -> bool {
        false
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

    /// Fires when a media receiver's feedback reaches the sender (the media transport,
    /// `transport::rtp`; once per feedback packet).
    fn on_feedback(&mut self, _feedback: &FeedbackSample) {}

    /// The media rate the controller asks of its encoder (bits/s), when it sets one apart from
    /// its pacing rate (GCC's target bitrate, paced faster by the sender's pacer); `None` (the
    /// default): the pacing rate is the target. Read by the media transport after every hook.
    fn target_rate_bps(&self) -> Option<f64> {
        None
    }

    /// How a media receiver should give this controller its feedback when the scenario does
    /// not say; `None` (the default): [`DEFAULT_FEEDBACK`].
    fn feedback_plan(&self) -> Option<FeedbackPlan> {
        None
    }

    /// How long the rate transport waits for a report before it calls [`Controller::on_no_feedback`]
    /// (TFRC's no-feedback timer, RAP's timeout); re-read after every report and expiry.
    /// `None` (the default) disables the timer.
    fn feedback_timeout(&self) -> Option<SimTime> {
        None
    }

    /// Fires when no report has arrived for [`Controller::feedback_timeout`] since the last report
    /// (or since the start, or since the previous expiry).
    fn on_no_feedback(&mut self, _now: SimTime) {}

    /// Fires in place of [`Controller::on_no_feedback`] when the sender was idle the whole time
    /// the timer ran: it sent no packet since the timer was set and its application has nothing
    /// to send (RFC 5348 §4.4: "idle ever since the nofeedback timer was set"). The default
    /// treats it as any expiry.
    fn on_no_feedback_idle(&mut self, now: SimTime) {
        self.on_no_feedback(now);
    }

    /// How long after its sending a packet still unacknowledged counts as lost, for the rate
    /// transport's timer-based loss detection (ns-2 `rap/rap.cc` `TimerLostPacket`): re-read at
    /// every send slot, where the transport looks for such packets. Meant for receivers that
    /// acknowledge every packet (RAP's). `None` (the default): no detection, and the transport
    /// keeps no record of the packets it sends.
    fn loss_timeout(&self) -> Option<SimTime> {
        None
    }

    /// Fires at a send slot of the rate transport when packets sent
    /// [`Controller::loss_timeout`] ago or earlier are still unacknowledged (the transport then
    /// forgets them): `loss.sent_at` is the send time of the latest of them, `loss.lost_pkts`
    /// their number. Returns whether the controller took them as a new loss; the slot then
    /// sends nothing (ns-2 `rap.cc` `IpgTimeout()`).
    fn on_timer_loss(&mut self, _loss: &LossEvent) -> bool {
        false
    }

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
    fn on_undo(&mut self, now: SimTime) {
        (**self).on_undo(now)
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
    fn wakeup(&self) -> Option<SimTime> {
        (**self).wakeup()
    }
    fn on_wakeup(&mut self, now: SimTime) {
        (**self).on_wakeup(now)
    }
    fn wants_delivery_rate(&self) -> bool {
        (**self).wants_delivery_rate()
    }
    fn on_lost_packet(&mut self, lost: &LostPacket) {
        (**self).on_lost_packet(lost)
    }
    fn on_restart_from_idle(&mut self, now: SimTime) {
        (**self).on_restart_from_idle(now)
    }
    fn marks_app_limited(&self) -> bool {
        (**self).marks_app_limited()
    }
    fn runs_in_rounds(&self) -> bool {
        (**self).runs_in_rounds()
    }
    fn wants_exact_ce_echo(&self) -> bool {
        (**self).wants_exact_ce_echo()
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
    fn on_feedback(&mut self, feedback: &FeedbackSample) {
        (**self).on_feedback(feedback)
    }
    fn target_rate_bps(&self) -> Option<f64> {
        (**self).target_rate_bps()
    }
    fn feedback_plan(&self) -> Option<FeedbackPlan> {
        (**self).feedback_plan()
    }
    fn feedback_timeout(&self) -> Option<SimTime> {
        (**self).feedback_timeout()
    }
    fn on_no_feedback(&mut self, now: SimTime) {
        (**self).on_no_feedback(now)
    }
    fn on_no_feedback_idle(&mut self, now: SimTime) {
        (**self).on_no_feedback_idle(now)
    }
    fn loss_timeout(&self) -> Option<SimTime> {
        (**self).loss_timeout()
    }
    fn on_timer_loss(&mut self, loss: &LossEvent) -> bool {
        (**self).on_timer_loss(loss)
    }
    fn ns2_send_timer(&self) -> bool {
        (**self).ns2_send_timer()
    }
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        (**self).state(out)
    }
}
