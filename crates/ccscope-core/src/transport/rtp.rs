//! The media transport: an RTP-style sender paced by a media controller, and a receiver that
//! returns per-packet congestion feedback on the reverse path, as RFC 8888 describes it or as
//! libwebrtc's transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01).
//!
//! Sender. Every packet takes the next transport-wide sequence number and its send time; the
//! sender remembers (sequence number, send time, size) of what it sent until feedback covers
//! it (the transport-wide feedback arrangement of draft-ietf-rmcat-gcc-02 §3: the receiver
//! reports sequence numbers and arrival times, the sender maps them to its send times). A
//! pacer sends what the application offered, one packet at a time, each `8·size/rate` after
//! the previous one at the controller's pacing rate; with nothing to send it idles, and data
//! offered later leaves as soon as the last packet's gap has passed. When the controller
//! limits by window, a packet leaves only while the bytes in flight (sent, not yet covered by
//! feedback) and it fit in `window × packet size`. The application sees the controller's
//! target rate ([`Controller::target_rate_bps`], else its pacing rate) as the transport's rate
//! ([`TransportView::rate_bps`]): an encoder reads it as its target. A packet that ends an
//! application data unit (nothing more of its frame waits) carries RTP's marker bit.
//!
//! Receiver. It records each packet's arrival and ECN marking and sends feedback at the end of
//! each frame (the marked packet) when the plan says per frame, and in any case once the
//! plan's interval has passed since the previous feedback with packets to report. A report
//! covers the packets from the first not yet reported to the highest arrived, each received or
//! not; successive reports cover successive ranges, so the packets of a report lost on the way
//! back are never reported (the sender forgets them when a later report starts past them). The
//! arrival times are those the format can carry: RFC 8888's arrival time offset from the report
//! timestamp counts 1/1024 s (§3.1; at most 0x1FFD units, beyond which an offset is "over
//! range" and taken here as the largest), transport-wide receive deltas count 250 µs. Sizes on
//! the wire, with 28 bytes of IPv4 and UDP headers:
//! - RFC 8888 (§3.1): RTCP header and sender SSRC (8 B), one report block (SSRC, begin
//!   sequence, count: 8 B, then 2 B a packet, padded to 4 B), the report timestamp (4 B);
//! - transport-wide (§3.1 of the draft): 20 B of header, base sequence, count and reference
//!   time, a 2-byte status vector chunk per 7 packets (two-bit symbols), a receive delta per
//!   received packet (1 B up to 63.75 ms after the previous arrival, else 2 B), padded to 4 B.
//!
//! The report's content travels beside the feedback packet, in a mailbox the two ends of the
//! flow share (a header has no room for a list of packets; [`crate::apps::FrameLedger`] carries
//! video units the same way): the packet on the wire carries the report's number and has the
//! report's size, and the sender reads the report of the number it received.
//!
//! Header mapping ([`crate::net::packet::Header`]):
//!
//! | field | data packet (sender → receiver) | feedback (receiver → sender) |
//! |---|---|---|
//! | `seq` | transport-wide sequence number, from 0 | report number, from 0 |
//! | `stamp` | send time | report timestamp (when it was sent) |
//! | `flags` | `MARKER`: the packet ends its frame | — |

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::apps::{Delivery, Inbox, Outbox, ReceiveApp, SendApp, TransportView};
use crate::control::catalog::ControllerChoice;
use crate::control::rate::RateConfig;
use crate::control::{
    Controller, FeedbackFormat, FeedbackPlan, FeedbackSample, PacketStatus, DEFAULT_FEEDBACK,
};
use crate::net::packet::Packet;
use crate::net::sim::{Ctx, Endpoint, Stat};
use crate::net::trace::{Probe as TraceProbe, StateFields};
use crate::time::SimTime;
use crate::transport::{arm_no_feedback, arm_wakeup};

/// Data flag: the packet ends its frame (RTP's marker bit).
const MARKER: u32 = 1;

/// Bytes of IPv4 and UDP headers around a feedback packet.
const IP_UDP_BYTES: u32 = 28;
/// RFC 8888's largest arrival time offset in 1/1024 s (0x1FFE and 0x1FFF are reserved).
const MAX_ATO_UNITS: u64 = 0x1FFD;
/// Transport-wide feedback: the largest receive delta one byte carries (250 µs units).
const SMALL_DELTA_UNITS: u64 = 255;

/// Sender timers.
const SEND: usize = 0;
const NO_FEEDBACK: usize = 1;
const APP: usize = 2;
const WAKE: usize = 3;
/// Receiver timers.
const REPORT: usize = 0;
const RECV_APP: usize = 1;

/// How a media flow's receiver reports, as the scenario says it; each `None` takes the
/// controller's plan ([`Controller::feedback_plan`], else [`DEFAULT_FEEDBACK`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FeedbackChoice {
    pub format: Option<FeedbackFormat>,
    pub interval: Option<SimTime>,
    pub per_frame: Option<bool>,
}

impl FeedbackChoice {
    /// The plan for a flow of `controller`.
    pub fn plan(&self, controller: &dyn Controller) -> FeedbackPlan {
        let own = controller.feedback_plan().unwrap_or(DEFAULT_FEEDBACK);
        FeedbackPlan {
            format: self.format.unwrap_or(own.format),
            interval: self.interval.unwrap_or(own.interval).max(SimTime(1)),
            per_frame: self.per_frame.unwrap_or(own.per_frame),
        }
    }
}

/// A media flow: its controller and how the sender and the receiver run, in the engine's
/// units, as the scenario gave them (`scenario::media::Rtp`, where the defaults are declared).
#[derive(Clone, Debug, PartialEq)]
pub struct RtpSpec {
    pub controller: ControllerChoice,
    /// The largest packet on the wire (bytes), ≥ 1.
    pub packet_bytes: u32,
    pub initial_rate_bps: Option<f64>,
    pub min_rate_bps: Option<f64>,
    pub feedback: FeedbackChoice,
}

impl RtpSpec {
    /// How the controller starts.
    pub fn config(&self) -> RateConfig {
        RateConfig {
            packet_bytes: self.packet_bytes,
            initial_rate_bps: self.initial_rate_bps,
            min_rate_bps: self.min_rate_bps,
        }
    }
}

/// What the receiver reported of one packet (the sender adds size and send time).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Reported {
    seq: u64,
    arrived_at: Option<SimTime>,
    ect: bool,
    ce: bool,
}

/// One report as it waits in the mailbox: its number, when it was sent, its size.
#[derive(Clone, Debug)]
struct Report {
    number: u64,
    sent_at: SimTime,
    size_bytes: u32,
    format: FeedbackFormat,
    packets: Vec<Reported>,
}

/// The reports on their way back, shared by the flow's two ends, oldest first.
type Mailbox = Arc<Mutex<VecDeque<Report>>>;

/// A flow's sender and receiver endpoints.
type Endpoints = (Box<dyn Endpoint>, Box<dyn Endpoint>);

/// The endpoints of a media flow: `controller` paces the sender, `app` offers the data and
/// `sink` takes it.
pub fn endpoints(
    spec: &RtpSpec,
    controller: Box<dyn Controller>,
    app: Box<dyn SendApp>,
    sink: Box<dyn ReceiveApp>,
) -> Endpoints {
    let plan = spec.feedback.plan(&*controller);
    let mailbox = Mailbox::default();
    let sender = RtpSender {
        controller,
        packet_bytes: spec.packet_bytes.max(1),
        outbox: Outbox::new(app),
        mailbox: Arc::clone(&mailbox),
        sent: VecDeque::new(),
        in_flight_bytes: 0,
        next_seq: 0,
        next_allowed: SimTime::ZERO,
        last_sent: (SimTime::ZERO, 0),
        send_armed: false,
        running: false,
        reports: 0,
        report_bytes: 0,
        silences: 0,
        srtt_s: None,
    };
    let receiver = RtpReceiver::new(plan, mailbox, sink);
    (Box::new(sender), Box::new(receiver))
}

/// The paced sender.
struct RtpSender {
    controller: Box<dyn Controller>,
    packet_bytes: u32,
    outbox: Outbox,
    mailbox: Mailbox,
    /// (sequence number, send time, size) of the packets no report has covered, oldest first.
    sent: VecDeque<(u64, SimTime, u32)>,
    in_flight_bytes: u64,
    next_seq: u64,
    /// When the pacer may send again: the last packet's send time plus its gap.
    next_allowed: SimTime,
    /// When the last packet left, and its size.
    last_sent: (SimTime, u32),
    send_armed: bool,
    running: bool,
    reports: u64,
    report_bytes: u64,
    silences: u64,
    /// Smoothed RTT (s) of the feedback, for the application's NACK handling and results.
    srtt_s: Option<f64>,
}

/// Weight of a new RTT sample in the sender's smoothed RTT (RFC 6298's 1/8).
const RTT_GAIN: f64 = 0.125;

/// The pacer's gap after a packet of `bytes` at `rate_bps`: at least one tick, since a zero
/// gap would stop simulated time.
fn gap(bytes: u32, rate_bps: f64) -> SimTime {
    SimTime::from_secs_f64(8.0 * bytes as f64 / rate_bps).max(SimTime(1))
}

impl RtpSender {
    fn target_bps(&self) -> f64 {
        self.controller
            .target_rate_bps()
            .or_else(|| self.controller.pacing_rate_bps())
            .filter(|r| r.is_finite() && *r > 0.0)
            .unwrap_or(0.0)
    }

    fn pace_bps(&self) -> Option<f64> {
        self.controller
            .pacing_rate_bps()
            .or_else(|| self.controller.target_rate_bps())
            .filter(|r| r.is_finite() && *r > 0.0)
    }

    fn view(&self, now: SimTime) -> TransportView {
        TransportView {
            now,
            rate_bps: self.target_bps(),
            window_pkts: 0.0,
            packet_bytes: self.packet_bytes,
        }
    }

    /// Whether the window lets `bytes` more go (always, with nothing in flight).
    fn window_allows(&self, bytes: u32) -> bool {
        let w = self.controller.window();
        !w.is_finite()
            || self.in_flight_bytes == 0
            || (self.in_flight_bytes + bytes as u64) as f64 <= w * self.packet_bytes as f64
    }

    /// Sends the next packet if the pacer and the window allow, and schedules the one after.
    fn pump(&mut self, ctx: &mut Ctx) {
        let now = ctx.now();
        if !self.running || self.send_armed || !self.outbox.has_data() {
            return;
        }
        if now < self.next_allowed {
            ctx.set_timer(SEND, self.next_allowed);
            self.send_armed = true;
            return;
        }
        let Some(rate) = self.pace_bps() else { return };
        if !self.window_allows(self.packet_bytes) {
            return;
        }
        let Some(chunk) = self.outbox.take(self.packet_bytes) else {
            return;
        };
        let mut pkt = Packet {
            size_bytes: chunk.bytes,
            tag: chunk.tag,
            ..Packet::default()
        };
        pkt.header.seq = self.next_seq;
        pkt.header.stamp = now;
        // ECT as the flow's `ecn` says (RFC 8888 reports each packet's ECN field back).
        pkt.ecn.capable = ctx.ecn();
        if self.outbox.ends_frame(&chunk) {
            pkt.header.flags |= MARKER;
        }
        ctx.send(pkt);
        self.sent.push_back((self.next_seq, now, chunk.bytes));
        self.in_flight_bytes += chunk.bytes as u64;
        self.next_seq += 1;
        if self.outbox.watches_progress() {
            let view = self.view(now);
            self.outbox.sent(ctx, view, &chunk);
        }
        // At least one tick: a zero gap would stop simulated time.
        self.last_sent = (now, chunk.bytes);
        self.next_allowed = now + gap(chunk.bytes, rate);
        if self.outbox.has_data() {
            ctx.set_timer(SEND, self.next_allowed);
            self.send_armed = true;
        }
    }

    fn arm_no_feedback(&mut self, ctx: &mut Ctx) {
        arm_no_feedback(&*self.controller, ctx, NO_FEEDBACK);
    }

    /// A feedback packet arrived: reads its report, forgets what earlier lost reports
    /// covered, and hands the controller what it says.
    fn on_feedback(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        let number = pkt.header.seq;
        let report = {
            let mut mail = self.mailbox.lock().expect("feedback mailbox");
            while mail.front().is_some_and(|r| r.number < number) {
                mail.pop_front();
            }
            match mail.front() {
                Some(r) if r.number == number => mail.pop_front(),
                _ => None,
            }
        };
        let Some(report) = report else { return };
        let now = ctx.now();
        let begin = report.packets.first().map_or(u64::MAX, |p| p.seq);
        while self.sent.front().is_some_and(|&(s, _, _)| s < begin) {
            let (_, _, b) = self.sent.pop_front().expect("front");
            self.in_flight_bytes -= b as u64;
        }
        let mut packets = Vec::with_capacity(report.packets.len());
        for r in &report.packets {
            let Some(&(seq, sent_at, size)) = self.sent.front() else {
                break;
            };
            if seq != r.seq {
                continue;
            }
            self.sent.pop_front();
            self.in_flight_bytes -= size as u64;
            packets.push(PacketStatus {
                seq,
                size_bytes: size,
                sent_at,
                arrived_at: r.arrived_at,
                ect: r.ect,
                ce: r.ce,
            });
        }
        let rtt = packets
            .iter()
            .rev()
            .find_map(|p| p.arrived_at.map(|a| (p.sent_at, a)))
            .map(|(sent, arrived)| {
                let held = report.sent_at.saturating_sub(arrived);
                now.saturating_sub(sent)
                    .saturating_sub(held)
                    .max(SimTime(1))
            });
        if let Some(r) = rtt {
            let s = r.secs();
            self.srtt_s = Some(self.srtt_s.map_or(s, |o| o + RTT_GAIN * (s - o)));
        }
        let fb = FeedbackSample {
            now,
            report_at: report.sent_at,
            format: report.format,
            rtt,
            in_flight_bytes: self.in_flight_bytes,
            queued_bytes: self.outbox.queued_bytes(),
            size_bytes: report.size_bytes,
            packets,
        };
        self.reports += 1;
        self.report_bytes += pkt.size_bytes as u64;
        self.controller.on_feedback(&fb);
        self.arm_no_feedback(ctx);
        self.repace(ctx);
    }

    /// The controller may have changed its pace: a pending send moves to the new gap from the
    /// last packet, never later than it was.
    fn repace(&mut self, ctx: &mut Ctx) {
        if let Some(rate) = self.pace_bps() {
            let (at, bytes) = self.last_sent;
            self.next_allowed = self.next_allowed.min(at + gap(bytes, rate));
        }
        if self.send_armed {
            ctx.cancel_timer(SEND);
            self.send_armed = false;
        }
        self.pump(ctx);
    }
}

impl Endpoint for RtpSender {
    fn start(&mut self, ctx: &mut Ctx) {
        self.running = true;
        self.next_allowed = ctx.now();
        let view = self.view(ctx.now());
        self.outbox.start(ctx, view);
        self.pump(ctx);
        self.arm_no_feedback(ctx);
        self.outbox.arm(ctx, APP);
        arm_wakeup(&*self.controller, ctx, WAKE);
    }

    fn stop(&mut self, ctx: &mut Ctx) {
        self.running = false;
        for t in [SEND, NO_FEEDBACK, WAKE] {
            ctx.cancel_timer(t);
        }
        let view = self.view(ctx.now());
        self.outbox.stop(ctx, view, APP);
    }

    fn on_packet(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        if !self.running {
            return;
        }
        self.on_feedback(ctx, pkt);
        self.outbox.arm(ctx, APP);
        arm_wakeup(&*self.controller, ctx, WAKE);
    }

    fn on_timer(&mut self, ctx: &mut Ctx, timer: usize) {
        if !self.running {
            return;
        }
        match timer {
            SEND => {
                self.send_armed = false;
                self.pump(ctx);
            }
            NO_FEEDBACK => {
                self.silences += 1;
                self.controller.on_no_feedback(ctx.now());
                self.arm_no_feedback(ctx);
                self.repace(ctx);
            }
            APP => {
                let view = self.view(ctx.now());
                self.outbox.wake(ctx, view);
                self.pump(ctx);
            }
            _ => {
                self.controller.on_wakeup(ctx.now());
                self.repace(ctx);
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
            rate_bps: if self.running { self.target_bps() } else { 0.0 },
            srtt_s: self.srtt_s.unwrap_or(0.0),
        }
    }

    fn state(&self, out: &mut StateFields) {
        out.extend([
            ("target_rate_bps", self.target_bps()),
            ("pacing_rate_bps", self.pace_bps().unwrap_or(f64::NAN)),
            ("in_flight_bytes", self.in_flight_bytes as f64),
        ]);
        self.controller.state(out);
    }

    fn stats(&self) -> Vec<(&'static str, Stat)> {
        vec![
            ("rate_bps", Stat::Level(self.target_bps())),
            ("srtt_s", Stat::Level(self.srtt_s.unwrap_or(0.0))),
            ("feedback_received", Stat::Count(self.reports as f64)),
            (
                "feedback_bytes_received",
                Stat::Count(self.report_bytes as f64),
            ),
            ("no_feedback_expiries", Stat::Count(self.silences as f64)),
        ]
    }
}

/// The receiver: records arrivals and sends the feedback.
struct RtpReceiver {
    plan: FeedbackPlan,
    mailbox: Mailbox,
    /// The lowest sequence number no report has covered.
    next_unreported: u64,
    /// The packets from `next_unreported` up to the highest arrived, in order.
    pending: Vec<Reported>,
    last_report: Option<SimTime>,
    timer_armed: bool,
    reports: u64,
    report_bytes: u64,
    inbox: Inbox,
}

/// `t` at `resolution`, rounded to nearest.
fn quantized(t: SimTime, resolution: SimTime) -> SimTime {
    let r = resolution.ns().max(1);
    SimTime((t.ns() + r / 2) / r * r)
}

impl RtpReceiver {
    fn new(plan: FeedbackPlan, mailbox: Mailbox, sink: Box<dyn ReceiveApp>) -> Self {
        RtpReceiver {
            plan,
            mailbox,
            next_unreported: 0,
            pending: Vec::new(),
            last_report: None,
            timer_armed: false,
            reports: 0,
            report_bytes: 0,
            inbox: Inbox::new(sink),
        }
    }

    /// The arrival time the report carries for a packet that arrived at `at`.
    fn carried(&self, at: SimTime, report_at: SimTime) -> SimTime {
        let res = self.plan.format.resolution();
        match self.plan.format {
            FeedbackFormat::Rfc8888 => {
                let units = (report_at.saturating_sub(at).ns() + res.ns() / 2) / res.ns();
                report_at.saturating_sub(SimTime(units.min(MAX_ATO_UNITS) * res.ns()))
            }
            FeedbackFormat::TransportWide => quantized(at, res),
        }
    }

    /// The report's size on the wire.
    fn size_bytes(&self, packets: &[Reported]) -> u32 {
        let n = packets.len() as u32;
        let pad4 = |b: u32| b.div_ceil(4) * 4;
        let body = match self.plan.format {
            FeedbackFormat::Rfc8888 => 8 + 8 + pad4(2 * n) + 4,
            FeedbackFormat::TransportWide => {
                let res = self.plan.format.resolution().ns();
                let mut last: Option<u64> = None;
                let mut deltas = 0;
                for p in packets {
                    if let Some(a) = p.arrived_at {
                        let units = last.map_or(0, |l| a.ns().saturating_sub(l) / res);
                        let negative = last.is_some_and(|l| a.ns() < l);
                        deltas += if units <= SMALL_DELTA_UNITS && !negative {
                            1
                        } else {
                            2
                        };
                        last = Some(a.ns());
                    }
                }
                pad4(20 + 2 * n.div_ceil(7) + deltas)
            }
        };
        IP_UDP_BYTES + body
    }

    fn send_report(&mut self, ctx: &mut Ctx) {
        if self.pending.is_empty() {
            return;
        }
        let now = ctx.now();
        let mut packets = std::mem::take(&mut self.pending);
        for p in &mut packets {
            p.arrived_at = p.arrived_at.map(|a| self.carried(a, now));
            if self.plan.format == FeedbackFormat::TransportWide {
                p.ect = false;
                p.ce = false;
            }
        }
        self.next_unreported = packets.last().map_or(self.next_unreported, |p| p.seq + 1);
        let size = self.size_bytes(&packets);
        let number = self.reports;
        self.mailbox
            .lock()
            .expect("feedback mailbox")
            .push_back(Report {
                number,
                sent_at: now,
                size_bytes: size,
                format: self.plan.format,
                packets,
            });
        let mut pkt = Packet {
            size_bytes: size,
            ..Packet::default()
        };
        pkt.header.seq = number;
        pkt.header.stamp = now;
        ctx.send(pkt);
        self.reports += 1;
        self.report_bytes += size as u64;
        self.last_report = Some(now);
        if self.timer_armed {
            ctx.cancel_timer(REPORT);
            self.timer_armed = false;
        }
    }
}

impl Endpoint for RtpReceiver {
    fn start(&mut self, ctx: &mut Ctx) {
        self.inbox.start(ctx);
        self.inbox.arm(ctx, RECV_APP);
    }

    fn stop(&mut self, ctx: &mut Ctx) {
        self.inbox.stop(ctx, RECV_APP);
    }

    fn on_packet(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        let now = ctx.now();
        let seq = pkt.header.seq;
        let next = self.next_unreported + self.pending.len() as u64;
        if seq >= next {
            self.pending.extend((next..seq).map(|s| Reported {
                seq: s,
                arrived_at: None,
                ect: false,
                ce: false,
            }));
            self.pending.push(Reported {
                seq,
                arrived_at: Some(now),
                ect: pkt.ecn.capable,
                ce: pkt.ecn.congestion,
            });
        } else if let Some(p) = seq
            .checked_sub(self.next_unreported)
            .and_then(|i| self.pending.get_mut(i as usize))
        {
            // A packet that arrives after a later one, before any report covered it.
            p.arrived_at = Some(now);
            p.ect = pkt.ecn.capable;
            p.ce = pkt.ecn.congestion;
        }
        if self.plan.per_frame && pkt.header.flags & MARKER != 0 {
            self.send_report(ctx);
        } else if !self.timer_armed && !self.pending.is_empty() {
            let due = self
                .last_report
                .map_or(now + self.plan.interval, |t| t + self.plan.interval)
                .max(now);
            ctx.set_timer(REPORT, due);
            self.timer_armed = true;
        }
        let data = Delivery {
            seq,
            bytes: pkt.size_bytes,
            tag: pkt.tag,
            sent_at: pkt.sent_at,
            arrived_at: now,
            resent: false,
        };
        self.inbox.deliver(ctx, &data);
        self.inbox.arm(ctx, RECV_APP);
    }

    fn on_timer(&mut self, ctx: &mut Ctx, timer: usize) {
        if timer == RECV_APP {
            self.inbox.wake(ctx);
        } else {
            self.timer_armed = false;
            self.send_report(ctx);
        }
        self.inbox.arm(ctx, RECV_APP);
    }

    fn label(&self) -> String {
        format!("media receiver ({})", self.plan.format.name())
    }

    fn stats(&self) -> Vec<(&'static str, Stat)> {
        let mut out = vec![
            ("feedback_sent", Stat::Count(self.reports as f64)),
            ("feedback_bytes_sent", Stat::Count(self.report_bytes as f64)),
        ];
        out.extend(self.inbox.stats());
        out
    }

    fn series(&self) -> Vec<(&'static str, Vec<f64>)> {
        self.inbox.series()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn receiver(format: FeedbackFormat) -> RtpReceiver {
        let plan = FeedbackPlan {
            format,
            ..DEFAULT_FEEDBACK
        };
        let sink = Box::new(crate::apps::Sink::default());
        RtpReceiver::new(plan, Mailbox::default(), sink)
    }

    fn got(seq: u64, at_us: Option<u64>) -> Reported {
        Reported {
            seq,
            arrived_at: at_us.map(SimTime::from_us),
            ect: false,
            ce: false,
        }
    }

    #[test]
    fn rfc8888_reports_take_two_bytes_a_packet_padded_to_four() {
        let rx = receiver(FeedbackFormat::Rfc8888);
        // 28 B IPv4/UDP + 8 B RTCP header and SSRC + 8 B block header + 2n padded + 4 B.
        assert_eq!(rx.size_bytes(&[got(0, Some(0))]), 28 + 8 + 8 + 4 + 4);
        let ten: Vec<_> = (0..10).map(|s| got(s, Some(s * 1000))).collect();
        assert_eq!(rx.size_bytes(&ten), 28 + 8 + 8 + 20 + 4);
    }

    #[test]
    fn transport_wide_reports_count_chunks_and_deltas() {
        let rx = receiver(FeedbackFormat::TransportWide);
        // 8 packets: 2 chunks (7 a chunk); 7 received with small deltas, one lost;
        // 20 + 4 + 7 = 31 → 32 B, + 28.
        let mut p: Vec<_> = (0..8).map(|s| got(s, Some(s * 1000))).collect();
        p[3].arrived_at = None;
        assert_eq!(rx.size_bytes(&p), 28 + 32);
        // A delta above 63.75 ms takes two bytes: 20 + 2 + 1 + 2 = 25 → 28 B.
        let far = [got(0, Some(0)), got(1, Some(70_000))];
        assert_eq!(rx.size_bytes(&far), 28 + 28);
    }

    #[test]
    fn arrival_times_carry_the_formats_resolution() {
        let rx = receiver(FeedbackFormat::Rfc8888);
        let report = SimTime::from_ms(100);
        // 10.3 ms before the report: 10.55 units of 1/1024 s, rounded to 11.
        let at = report - SimTime::from_us(10_300);
        assert_eq!(rx.carried(at, report), report - SimTime(11 * 976_563));
        // An offset beyond 0x1FFD units (about 8 s) is over range: the largest is kept.
        assert_eq!(
            rx.carried(SimTime::ZERO, SimTime::from_ms(9000)),
            SimTime::from_ms(9000) - SimTime(0x1FFD * 976_563)
        );
        let tw = receiver(FeedbackFormat::TransportWide);
        assert_eq!(
            tw.carried(SimTime::from_us(1_130), report),
            SimTime::from_us(1_250)
        );
    }
}
