//! The rate-based transport: a paced sender driven by a rate [`Controller`] and a receiver driven
//! by a [`Receiver`].
//!
//! The sender paces packets at the controller's rate (gap = 8·size/rate, optionally dithered);
//! it is not ACK-clocked and never retransmits. Optionally it sends bunches of `bunch`
//! back-to-back packets every `bunch` gaps (same mean rate), from which the receiver estimates the
//! bottleneck capacity ([`PacketBunch`]). The receiver hands every data packet to its protocol
//! logic and sends a report when that logic asks (first packet, new loss event, once per RTT,
//! per packet) or when its report interval expires with data received since the last report.
//! The sender measures the RTT from each report and hands it to the controller
//! ([`Controller::on_report`]); a no-feedback timer calls [`Controller::on_no_feedback`].
//! For a controller with a loss timeout ([`Controller::loss_timeout`], RAP's `loss_timer`) the
//! sender also keeps the send times of the packets no report has acknowledged yet (a report
//! acknowledges the data packet whose send time it echoes), and at each send slot hands the
//! controller those sent a timeout ago or earlier ([`Controller::on_timer_loss`], ns-2
//! `rap.cc` `TimerLostPacket`); a slot where the controller takes them as a loss sends nothing.
//!
//! Data comes from the sender's application ([`crate::apps`]; bulk by default): each send slot
//! takes up to a bunch of packets from what the application offered (gaps are reckoned in full
//! packets of `packet_bytes`, so the short tail of an offer takes a whole slot). When it has
//! offered nothing the slot passes unused and the next one follows a gap later; the controller
//! is not told, it simply sees fewer packets reported (RFC 5348 §4.1 and §8.2 limit a
//! data-limited sender's rate to twice the receive rate; that is not modelled). The receiver
//! hands every data packet to its application as it arrives.
//!
//! ECN: a flow with `ecn = true` sends its data packets ECN-capable (ECT). Every receiver
//! counts a packet that arrives CE-marked as a lost packet (RFC 3168 §5: the response to a
//! single CE packet must be essentially that to a single dropped packet), the TFRC and TEAR
//! receivers in their loss events too. The controller hears of marks only through the report's
//! losses ([`ReportSample::lost_pkts`], the loss event rate, the new-loss-event flag).
//!
//! NACKs ([`crate::apps`], retransmission on NACK): each packet the receiving application
//! reports missing goes back as a reverse packet of its own, the size of a report, flagged
//! `NACK` with the missing sequence number in `ack`; the sender hands what that packet carried
//! to its application, which may queue it again ahead of new data. A resent packet takes a
//! new sequence number and a send slot like any other, so it is sent inside the rate; it is
//! flagged `RESENT`. Neither packet reaches the congestion controller.
//!
//! Header mapping ([`crate::net::packet::Header`]):
//!
//! | field | data packet (sender → receiver) | report (receiver → sender) |
//! |---|---|---|
//! | `seq` | sequence number, from 0 | report number, from 0 |
//! | `stamp` | send time | send time of the last data packet received (echo) |
//! | `echo` | sender's smoothed RTT (0: none yet) | hold time: now − arrival of that packet |
//! | `ack` | bunch number (0: not in a bunch) | send time (ns) of the earliest packet found lost; NACK: the missing sequence number |
//! | `blocks[0..2]` | position in the bunch, bunch length | packets lost, received since the last report |
//! | `blocks[2..4]` | — | receiver-computed rate (f64 bits, high word first) |
//! | `blocks[4..6]` | — | capacity estimate (f64 bits, high word first) |
//! | `value` | — | [receive rate (bits/s), loss event rate p] |
//! | `flags` | `RESENT` | `HAS_RATE`, `HAS_CAPACITY`, `HAS_LOSS_TIME`, `NEW_LOSS_EVENT`; `NACK` |

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use rand::Rng as _;

use crate::apps::{Bulk, Delivery, Inbox, Outbox, ReceiveApp, SendApp, Sink, TransportView};
use crate::control::catalog::ControllerChoice;
use crate::control::rate::{ewma, RateConfig};
use crate::control::receiver::capacity::{BunchMark, PacketBunch, MIN_BUNCH_PKTS};
use crate::control::receiver::{DataArrival, Receiver, Report};
use crate::control::{Controller, LossEvent, LossKind, ReportSample};
use crate::net::packet::Packet;
use crate::net::sim::{Ctx, Endpoint, Stat};
use crate::net::trace::{Probe as TraceProbe, StateFields};
use crate::time::SimTime;
use crate::transport::{arm_no_feedback, arm_wakeup};

/// Report flags.
const HAS_RATE: u32 = 1;
const HAS_CAPACITY: u32 = 2;
const HAS_LOSS_TIME: u32 = 4;
const NEW_LOSS_EVENT: u32 = 8;
/// A NACK, not a report (receiver → sender).
const NACK: u32 = 16;
/// Data flag: the application sent this packet again on NACK.
const RESENT: u32 = 1;

/// Default size of a report packet on the wire (bytes): ns-2 TFRC's 40-byte control packet.
pub const REPORT_BYTES: u32 = 40;

/// Weight of a new RTT sample in the RTT the sender stamps in data packets (RFC 5348 §4.3 q = 0.9).
const STAMP_RTT_GAIN: f64 = 0.1;

/// Sender timers.
const SEND: usize = 0;
const NO_FEEDBACK: usize = 1;
/// The sender's application's wake-ups.
const APP: usize = 2;
/// The controller's wake-ups ([`Controller::wakeup`]).
const WAKE: usize = 3;
/// Receiver timers.
const REPORT: usize = 0;
const RECV_APP: usize = 1;

/// A rate-based flow: the controller and how the sender paces, in the engine's units. Its values
/// come from the scenario (`scenario::packet::RateSource`, where the defaults are declared) and
/// are taken as they are: the scenario checked them. `RateSourceSpec::new` gives the scenario's
/// defaults for a controller (see `build`).
#[derive(Clone, Debug, PartialEq)]
pub struct RateSourceSpec {
    /// The rate controller, resolved from the catalogue when the scenario was built, or one
    /// supplied from outside it.
    pub controller: ControllerChoice,
    /// Data packet size on the wire (bytes), ≥ 1.
    pub packet_bytes: u32,
    /// Starting rate (bits/s); default the protocol's own.
    pub initial_rate_bps: Option<f64>,
    /// Lowest rate (bits/s); default one packet per `T_MBI_S`.
    pub min_rate_bps: Option<f64>,
    /// Packets sent back to back per bunch (0 or 1: evenly paced; ≥ 3 lets the receiver
    /// estimate the bottleneck capacity, Loguinov & Radha §VI-B).
    pub bunch: u32,
    /// Each gap is multiplied by a uniform draw in [1 − jitter, 1 + jitter] (ns-2's `overhead_`
    /// dither against phase effects, Yang et al. §2.2).
    pub jitter: f64,
    /// Receiver feedback for a controller supplied from outside the catalogue (one of
    /// `catalog::FEEDBACK_KINDS`); catalogued controllers bring their own.
    pub feedback: Option<String>,
    /// Size of a report or NACK on the wire (bytes), ≥ 1; [`REPORT_BYTES`] by default.
    pub report_bytes: u32,
}

impl RateSourceSpec {
    /// How the rate controller starts.
    pub fn config(&self) -> RateConfig {
        RateConfig {
            packet_bytes: self.packet_bytes,
            initial_rate_bps: self.initial_rate_bps,
            min_rate_bps: self.min_rate_bps,
        }
    }
}

/// What a probed flow records, for tests and traces.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProbeLog {
    /// (time, pacing rate in bits/s) after every report, wake-up, no-feedback expiry and timer loss.
    pub rates: Vec<(SimTime, f64)>,
}

/// A shared handle on a flow's [`ProbeLog`].
pub type Probe = Arc<Mutex<ProbeLog>>;

/// A flow's sender and receiver endpoints.
type Endpoints = (Box<dyn Endpoint>, Box<dyn Endpoint>);

/// The endpoints of a rate-based flow: `controller` paces the sender, `receiver` is the
/// protocol's receiver logic, `app` offers the data and `sink` takes it.
pub fn endpoints(
    spec: &RateSourceSpec,
    controller: Box<dyn Controller>,
    receiver: Box<dyn Receiver>,
    app: Box<dyn SendApp>,
    sink: Box<dyn ReceiveApp>,
) -> Endpoints {
    pair(spec, controller, receiver, None, app, sink)
}

/// The endpoints of a rate-based bulk flow that records its rates into `probe`.
pub fn probed_endpoints(
    spec: &RateSourceSpec,
    controller: Box<dyn Controller>,
    receiver: Box<dyn Receiver>,
    probe: Probe,
) -> Endpoints {
    let sink = Box::new(Sink::default());
    pair(
        spec,
        controller,
        receiver,
        Some(probe),
        Box::new(Bulk),
        sink,
    )
}

fn pair(
    spec: &RateSourceSpec,
    controller: Box<dyn Controller>,
    receiver: Box<dyn Receiver>,
    probe: Option<Probe>,
    app: Box<dyn SendApp>,
    sink: Box<dyn ReceiveApp>,
) -> Endpoints {
    let bunch = if spec.bunch >= MIN_BUNCH_PKTS {
        spec.bunch
    } else {
        1
    };
    let sender = RateSender {
        controller,
        packet_bytes: spec.packet_bytes,
        bunch,
        jitter: spec.jitter,
        srtt_s: None,
        rtt_sum_s: 0.0,
        next_seq: 0,
        bunches: 0,
        last_send: SimTime::ZERO,
        next_send: SimTime::ZERO,
        running: false,
        reports: 0,
        silences: 0,
        sent_since_armed: false,
        unacked: VecDeque::new(),
        timer_losses: 0,
        probe,
        outbox: Outbox::new(app),
    };
    let rx = RateReceiver {
        logic: receiver,
        capacity: (bunch >= MIN_BUNCH_PKTS).then(PacketBunch::default),
        capacity_samples: Vec::new(),
        report_bytes: spec.report_bytes,
        last_data: None,
        data_since_report: false,
        timer_armed: false,
        reports: 0,
        inbox: Inbox::carrying_nacks(sink),
    };
    (Box::new(sender), Box::new(rx))
}

/// The paced sender.
struct RateSender {
    controller: Box<dyn Controller>,
    packet_bytes: u32,
    /// Packets per bunch, ≥ 1 (1: evenly paced).
    bunch: u32,
    jitter: f64,
    /// RTT stamped in data packets (s).
    srtt_s: Option<f64>,
    /// The RTT samples added up (s), one per report (`reports` of them): their mean is the
    /// flow's mean RTT, as TCP's over its samples.
    rtt_sum_s: f64,
    next_seq: u64,
    /// Bunches sent (bunch numbers start at 1).
    bunches: u64,
    last_send: SimTime,
    /// When the pending send is due.
    next_send: SimTime,
    running: bool,
    /// Reports received.
    reports: u64,
    /// No-feedback timer expiries.
    silences: u64,
    /// A data packet left since the no-feedback timer was last set.
    sent_since_armed: bool,
    /// Send times of the packets sent and not acknowledged yet, in send order: kept only for a
    /// controller with a loss timeout ([`Controller::loss_timeout`]).
    unacked: VecDeque<SimTime>,
    /// Send slots in which the controller took expired packets as a loss.
    timer_losses: u64,
    probe: Option<Probe>,
    /// The application and the data it offered and the sender has not sent yet.
    outbox: Outbox,
}

impl RateSender {
    /// Time from one send to the next (a bunch counts as `bunch` packets).
    fn gap(&self, ctx: &mut Ctx) -> SimTime {
        let rate = self
            .controller
            .pacing_rate_bps()
            .filter(|r| r.is_finite() && *r > 0.0);
        let Some(rate) = rate else {
            return SimTime::MAX;
        };
        let dither = if self.jitter > 0.0 {
            ctx.rng().gen_range(1.0 - self.jitter..=1.0 + self.jitter)
        } else {
            1.0
        };
        // At least one tick: a zero gap would send every packet at the same instant and stop
        // simulated time.
        SimTime::from_secs_f64(8.0 * self.packet_bytes as f64 * self.bunch as f64 / rate * dither)
            .max(SimTime(1))
    }

    fn schedule_send(&mut self, ctx: &mut Ctx) {
        let gap = self.gap(ctx);
        self.next_send = self.last_send + gap;
        if self.next_send < SimTime::MAX {
            ctx.set_timer(SEND, self.next_send.max(ctx.now()));
        }
    }

    fn arm_no_feedback(&mut self, ctx: &mut Ctx) {
        arm_no_feedback(&*self.controller, ctx, NO_FEEDBACK);
        self.sent_since_armed = false;
    }

    /// What the application sees of the sender.
    fn view(&self, now: SimTime) -> TransportView {
        TransportView {
            now,
            rate_bps: self.controller.pacing_rate_bps().unwrap_or(0.0),
            window_pkts: 0.0,
            packet_bytes: self.packet_bytes,
        }
    }

    /// One send slot: up to a bunch of the application's data; an empty slot passes unused, and
    /// so does one in which the controller answers a timer loss.
    fn send(&mut self, ctx: &mut Ctx) {
        self.last_send = ctx.now();
        if self.timer_loss(ctx.now()) || !self.outbox.has_data() {
            return;
        }
        let bunch_id = if self.bunch > 1 {
            self.bunches += 1;
            self.bunches
        } else {
            0
        };
        for index in 0..self.bunch {
            let Some(chunk) = self.outbox.take(self.packet_bytes) else {
                break;
            };
            let mut pkt = Packet {
                size_bytes: chunk.bytes,
                tag: chunk.tag,
                ..Packet::default()
            };
            // ECT as the flow's `ecn` says; the receiver counts a CE mark as a loss.
            pkt.ecn.capable = ctx.ecn();
            pkt.header.seq = self.next_seq;
            pkt.header.stamp = ctx.now();
            pkt.header.echo = self.srtt_s.map_or(SimTime::ZERO, SimTime::from_secs_f64);
            pkt.header.ack = bunch_id;
            pkt.header.blocks[0] = index;
            pkt.header.blocks[1] = self.bunch;
            pkt.header.blocks[2] = (self.reports + self.silences) as u32;
            if chunk.resent {
                pkt.header.flags |= RESENT;
            }
            ctx.send(pkt);
            self.sent_since_armed = true;
            if self.controller.loss_timeout().is_some() {
                self.unacked.push_back(ctx.now());
            }
            self.outbox.record(self.next_seq, chunk);
            self.next_seq += 1;
            if self.outbox.watches_progress() && !chunk.resent {
                let view = self.view(ctx.now());
                self.outbox.sent(ctx, view, &chunk);
            }
        }
    }

    /// Timer-based loss detection (ns-2 `rap.cc`: `LossDetection(RAP_TIMER_BASED)` at every
    /// `IpgTimeout()`): forgets the packets sent the controller's loss timeout ago or earlier
    /// and not acknowledged, hands them to the controller, and says whether it took them as a
    /// loss.
    fn timer_loss(&mut self, now: SimTime) -> bool {
        let Some(timeout) = self.controller.loss_timeout() else {
            return false;
        };
        let expired = self.unacked.partition_point(|&sent| sent + timeout <= now);
        if expired == 0 {
            return false;
        }
        let sent_at = self.unacked[expired - 1];
        self.unacked.drain(..expired);
        let loss = LossEvent {
            now,
            kind: LossKind::Timeout,
            sent_at,
            lost_pkts: expired as f64,
        };
        let lost = self.controller.on_timer_loss(&loss);
        if lost {
            self.timer_losses += 1;
            self.record_rate(now);
        }
        lost
    }

    fn record_rate(&self, now: SimTime) {
        if let (Some(p), Some(r)) = (&self.probe, self.controller.pacing_rate_bps()) {
            p.lock().expect("probe lock").rates.push((now, r));
        }
    }

    fn on_report(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        let h = &pkt.header;
        let now = ctx.now();
        // Reports only follow data, so each one echoes a data packet.
        let rtt = now
            .saturating_sub(h.stamp)
            .saturating_sub(h.echo)
            .max(SimTime(1));
        self.srtt_s = Some(ewma(self.srtt_s, rtt.secs(), STAMP_RTT_GAIN));
        self.rtt_sum_s += rtt.secs();
        // The report acknowledges the packet it echoes (packets of a bunch share a send time:
        // each report takes one of them). With a loss timeout, a packet already forgotten as
        // lost gives the controller no RTT sample (ns-2 rap.cc RecvAck() samples only packets
        // still in its transmission history).
        let sampled = match self.unacked.binary_search(&h.stamp) {
            Ok(i) => {
                self.unacked.remove(i);
                true
            }
            Err(_) => self.controller.loss_timeout().is_none(),
        };
        let report = ReportSample {
            now,
            rtt: sampled.then_some(rtt),
            hold: h.echo,
            // The report left when the receiver sent it; the echoed packet arrived `hold` before.
            one_way_delay: Some(pkt.sent_at.saturating_sub(h.echo).saturating_sub(h.stamp)),
            recv_rate_bps: h.value[0],
            loss_event_rate: h.value[1],
            lost_pkts: h.blocks[0] as f64,
            received_pkts: h.blocks[1] as f64,
            loss_sent_at: (h.flags & HAS_LOSS_TIME != 0).then_some(SimTime(h.ack)),
            new_loss_event: h.flags & NEW_LOSS_EVENT != 0,
            rate_bps: (h.flags & HAS_RATE != 0).then(|| get_f64(&h.blocks[2..4])),
            capacity_bps: (h.flags & HAS_CAPACITY != 0).then(|| get_f64(&h.blocks[4..6])),
        };
        self.controller.on_report(&report);
        self.reports += 1;
        self.record_rate(now);
        self.arm_no_feedback(ctx);
        self.rate_changed(ctx);
    }

    /// The controller may have changed its rate: a faster rate takes effect at once, a slower
    /// one from the next send (unless the sender keeps ns-2's send timer).
    fn rate_changed(&mut self, ctx: &mut Ctx) {
        if self.controller.ns2_send_timer() {
            return;
        }
        let previous = self.next_send;
        self.schedule_send(ctx);
        if self.next_send > previous {
            self.next_send = previous;
            ctx.set_timer(SEND, previous.max(ctx.now()));
        }
    }
}

impl Endpoint for RateSender {
    fn start(&mut self, ctx: &mut Ctx) {
        self.running = true;
        let view = self.view(ctx.now());
        self.outbox.start(ctx, view);
        self.send(ctx);
        self.schedule_send(ctx);
        self.arm_no_feedback(ctx);
        self.outbox.arm(ctx, APP);
        arm_wakeup(&*self.controller, ctx, WAKE);
    }

    fn stop(&mut self, ctx: &mut Ctx) {
        self.running = false;
        ctx.cancel_timer(SEND);
        ctx.cancel_timer(NO_FEEDBACK);
        ctx.cancel_timer(WAKE);
        let view = self.view(ctx.now());
        self.outbox.stop(ctx, view, APP);
    }

    fn on_packet(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        if !self.running {
            return;
        }
        if pkt.header.flags & NACK != 0 {
            let view = self.view(ctx.now());
            let rtt = self.srtt_s.map_or(SimTime::ZERO, SimTime::from_secs_f64);
            self.outbox.nack(ctx, view, pkt.header.ack, rtt);
            self.outbox.arm(ctx, APP);
        } else {
            self.on_report(ctx, pkt);
            arm_wakeup(&*self.controller, ctx, WAKE);
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx, timer: usize) {
        if !self.running {
            return;
        }
        match timer {
            NO_FEEDBACK => {
                self.silences += 1;
                // Idle the whole time the timer ran: nothing sent, nothing to send.
                if self.sent_since_armed || self.outbox.has_data() {
                    self.controller.on_no_feedback(ctx.now());
                } else {
                    self.controller.on_no_feedback_idle(ctx.now());
                }
                self.record_rate(ctx.now());
                self.arm_no_feedback(ctx);
                if self.controller.ns2_send_timer() {
                    self.send(ctx);
                    self.schedule_send(ctx);
                }
            }
            // The application's data waits for the next send slot.
            APP => {
                let view = self.view(ctx.now());
                self.outbox.wake(ctx, view);
            }
            WAKE => {
                self.controller.on_wakeup(ctx.now());
                self.record_rate(ctx.now());
                self.rate_changed(ctx);
            }
            _ => {
                self.send(ctx);
                self.schedule_send(ctx);
            }
        }
        self.outbox.arm(ctx, APP);
        arm_wakeup(&*self.controller, ctx, WAKE);
    }

    fn label(&self) -> String {
        self.controller.name()
    }

    fn probe(&self) -> TraceProbe {
        TraceProbe {
            window_pkts: 0.0,
            rate_bps: if self.running {
                self.controller.pacing_rate_bps().unwrap_or(0.0)
            } else {
                0.0
            },
            srtt_s: self.srtt_s.unwrap_or(0.0),
        }
    }

    fn state(&self, out: &mut StateFields) {
        out.extend([
            (
                "rate_bps",
                self.controller.pacing_rate_bps().unwrap_or(f64::NAN),
            ),
            ("stamp_rtt_s", self.srtt_s.unwrap_or(f64::NAN)),
        ]);
        self.controller.state(out);
    }

    fn stats(&self) -> Vec<(&'static str, Stat)> {
        let mut out = vec![
            (
                "rate_bps",
                Stat::Level(self.controller.pacing_rate_bps().unwrap_or(0.0)),
            ),
            ("srtt_s", Stat::Level(self.srtt_s.unwrap_or(0.0))),
            ("reports", Stat::Count(self.reports as f64)),
            ("rtt_samples", Stat::Count(self.reports as f64)),
            ("rtt_sum_s", Stat::Count(self.rtt_sum_s)),
            ("no_feedback_expiries", Stat::Count(self.silences as f64)),
        ];
        if self.controller.loss_timeout().is_some() {
            out.push(("timer_losses", Stat::Count(self.timer_losses as f64)));
        }
        if self.outbox.retransmits() {
            out.push((
                "retransmissions_sent",
                Stat::Level(self.outbox.resent() as f64),
            ));
        }
        out
    }
}

/// The receiver: protocol logic, optional capacity estimation, report timing.
struct RateReceiver {
    logic: Box<dyn Receiver>,
    capacity: Option<PacketBunch>,
    /// Every capacity sample (bits/s) the estimator took, in order.
    capacity_samples: Vec<f64>,
    /// Size of a report or NACK (bytes).
    report_bytes: u32,
    /// Send time and arrival time of the last data packet.
    last_data: Option<(SimTime, SimTime)>,
    data_since_report: bool,
    timer_armed: bool,
    reports: u64,
    inbox: Inbox,
}

impl RateReceiver {
    fn send_report(&mut self, ctx: &mut Ctx) {
        let now = ctx.now();
        let r: Report = self.logic.report(now);
        let (echo_sent, arrived) = self.last_data.unwrap_or((SimTime::ZERO, now));
        let mut pkt = Packet {
            size_bytes: self.report_bytes,
            ..Packet::default()
        };
        let h = &mut pkt.header;
        h.seq = self.reports;
        h.stamp = echo_sent;
        h.echo = now - arrived;
        h.value = [
            finite_or_zero(r.recv_rate_bps),
            finite_or_zero(r.loss_event_rate),
        ];
        h.blocks[0] = r.lost_pkts.min(u32::MAX as u64) as u32;
        h.blocks[1] = r.received_pkts.min(u32::MAX as u64) as u32;
        if let Some(t) = r.loss_sent_at {
            h.flags |= HAS_LOSS_TIME;
            h.ack = t.ns();
        }
        if r.new_loss_event {
            h.flags |= NEW_LOSS_EVENT;
        }
        if let Some(rate) = r.rate_bps.filter(|x| x.is_finite()) {
            h.flags |= HAS_RATE;
            put_f64(&mut h.blocks[2..4], rate);
        }
        if let Some(c) = self.capacity.as_ref().and_then(PacketBunch::capacity_bps) {
            h.flags |= HAS_CAPACITY;
            put_f64(&mut h.blocks[4..6], c);
        }
        ctx.send(pkt);
        self.reports += 1;
        self.data_since_report = false;
        ctx.set_timer(REPORT, now + self.logic.report_interval().max(SimTime(1)));
        self.timer_armed = true;
    }

    /// Sends the NACKs the application asked for, one reverse packet each.
    fn send_nacks(&mut self, ctx: &mut Ctx) {
        for seq in self.inbox.take_nacks() {
            let mut pkt = Packet {
                size_bytes: self.report_bytes,
                ..Packet::default()
            };
            pkt.header.flags = NACK;
            pkt.header.ack = seq;
            ctx.send(pkt);
        }
    }
}

impl Endpoint for RateReceiver {
    fn start(&mut self, ctx: &mut Ctx) {
        self.inbox.start(ctx);
        self.inbox.arm(ctx, RECV_APP);
    }

    fn stop(&mut self, ctx: &mut Ctx) {
        self.inbox.stop(ctx, RECV_APP);
    }

    fn on_packet(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        let h = &pkt.header;
        let now = ctx.now();
        let arrival = DataArrival {
            now,
            seq: h.seq,
            sent_at: h.stamp,
            size_bytes: pkt.size_bytes,
            sender_rtt: (h.echo > SimTime::ZERO).then_some(h.echo),
            ecn_ce: pkt.ecn.congestion,
            sender_round: h.blocks[2],
        };
        if let (Some(est), true) = (self.capacity.as_mut(), h.ack > 0) {
            let mark = BunchMark {
                bunch: h.ack,
                index: h.blocks[0],
                len: h.blocks[1],
            };
            if let Some(c) = est.on_packet(mark, pkt.size_bytes, now) {
                self.capacity_samples.push(c);
            }
        }
        self.last_data = Some((h.stamp, now));
        self.data_since_report = true;
        if self.logic.on_data(&arrival) {
            self.send_report(ctx);
        } else if !self.timer_armed {
            ctx.set_timer(REPORT, now + self.logic.report_interval().max(SimTime(1)));
            self.timer_armed = true;
        }
        let data = Delivery {
            seq: h.seq,
            bytes: pkt.size_bytes,
            tag: pkt.tag,
            sent_at: pkt.sent_at,
            arrived_at: now,
            resent: h.flags & RESENT != 0,
        };
        self.inbox.deliver(ctx, &data);
        self.send_nacks(ctx);
        self.inbox.arm(ctx, RECV_APP);
    }

    fn on_timer(&mut self, ctx: &mut Ctx, timer: usize) {
        if timer == RECV_APP {
            self.inbox.wake(ctx);
        } else {
            self.timer_armed = false;
            if self.data_since_report {
                self.send_report(ctx);
            }
        }
        self.inbox.arm(ctx, RECV_APP);
    }

    fn label(&self) -> String {
        self.logic.name()
    }

    fn state(&self, out: &mut StateFields) {
        self.logic.state(out);
    }

    fn stats(&self) -> Vec<(&'static str, Stat)> {
        self.inbox.stats()
    }

    fn series(&self) -> Vec<(&'static str, Vec<f64>)> {
        let mut out = self.inbox.series();
        if self.capacity.is_some() {
            out.push(("capacity_bps", self.capacity_samples.clone()));
        }
        out
    }
}

fn finite_or_zero(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

/// Stores `x` in two header words, high word first.
fn put_f64(words: &mut [u32], x: f64) {
    let bits = x.to_bits();
    words[0] = (bits >> 32) as u32;
    words[1] = bits as u32;
}

fn get_f64(words: &[u32]) -> f64 {
    f64::from_bits((words[0] as u64) << 32 | words[1] as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f64_round_trips_through_header_words() {
        let mut w = [0u32; 2];
        for x in [0.0, 1.544e6, -3.25, f64::MIN_POSITIVE] {
            put_f64(&mut w, x);
            assert_eq!(get_f64(&w), x);
        }
    }
}
