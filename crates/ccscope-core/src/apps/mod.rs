//! Applications: what runs above a transport, as an ns-3 `Application` runs over any `Socket`.
//!
//! A sending application ([`SendApp`]) offers data to its transport; a receiving application
//! ([`ReceiveApp`]) is handed the data the transport delivers. The same pair of traits serves
//! every transport (TCP, the rate transport, plain UDP), so an application never knows which
//! one carries it, and a transport never knows what its application is.
//!
//! Applications are sans-IO, like the controllers: they never read a clock, never send packets
//! and never set timers of their own. Each hook gets a context ([`SendCtx`], [`RecvCtx`])
//! holding `now`, the transport's state ([`TransportView`]), the endpoint's random stream, and
//! the two things an application can do: offer data and ask to be woken at a later time.
//!
//! # Who calls what, when
//!
//! Sending side; every transport follows these rules:
//! 1. At the flow's start the transport calls [`SendApp::on_start`], before it sends anything.
//! 2. Data offered with [`SendCtx::offer`] waits in the transport's [`SendBuffer`]. The
//!    transport sends only what is there (the flow is application-limited when it is empty)
//!    and cuts it into packets of at most [`TransportView::packet_bytes`]; a packet never
//!    carries bytes of two offers, and carries its offer's [`Tag`]. TCP takes data when its
//!    window opens and keeps retransmitting what it took; the rate transport takes up to a
//!    bunch at each send slot and lets the slot pass unused when the buffer is empty; UDP
//!    sends all of it at once.
//! 3. [`SendCtx::wake_at`] asks for one call of [`SendApp::on_wake`] at a given time (the
//!    latest request replaces earlier ones). The transport arms the wake-up after it has
//!    reacted to the hook (sent what it could), so a wake-up asked for `now` fires after
//!    everything already scheduled for `now`, like ns-3's `Simulator::Schedule(Seconds(0))`.
//!    This is how an application that has nothing now gets its transport going again later.
//! 4. After every hook, TCP and UDP send what the buffer (and TCP's window) allows; the rate
//!    transport sends at its next send slot.
//! 5. At the flow's stop time the transport calls [`SendApp::on_stop`] and takes no more data
//!    (TCP still delivers what it already took) and wakes the application no more.
//!
//! Receiving side: [`ReceiveApp::on_start`] at the flow's start, [`ReceiveApp::on_deliver`]
//! for every data packet the transport delivers, [`ReceiveApp::on_wake`] as asked with
//! [`RecvCtx::wake_at`], and [`ReceiveApp::on_stop`] at the flow's stop.
//!
//! Retransmission on NACK (layered video, Loguinov & Radha 2003 §VI-C), over the rate
//! transport: a receiving application names a missing packet by its transport sequence
//! number with [`RecvCtx::nack`]; the transport carries the NACK back to the sender as a small
//! reverse packet, looks up what that packet carried and hands it to [`SendApp::on_nack`] with
//! its RTT estimate; the application may queue it again with [`SendCtx::resend`]. Resent data
//! goes ahead of new data and is sent in the transport's send slots, inside its rate. The
//! sender keeps what it sent only for an application whose [`SendApp::retransmits`] is true.
//!
//! Transports use only this interface; which application a flow runs is decided where its
//! endpoints are built (`build::endpoints`, the flow catalogue; `transport::tcp::endpoints`, ...).
//!
//! Applications draw randomness from their endpoint's stream ([`crate::rng::Stream::Source`]
//! for senders, [`crate::rng::Stream::Sink`] for receivers), shared with the transport.
//!
//! # The applications
//!
//! - [`Bulk`]: greedy, never runs out (FTP; ns-3 `BulkSendApplication` without `MaxBytes`).
//! - [`Finite`]: a transfer of a fixed size (ns-3 `BulkSendApplication` with `MaxBytes`).
//! - [`Cbr`], [`Poisson`]: one packet at a time, evenly or exponentially spaced.
//! - [`OnOff`]: Pareto or exponential ON/OFF and the CBR square wave, paced or as transfers.
//! - [`Multirate`]: a coder that follows its sender's rate after a delay τ.
//! - [`Fgs`]: layered (FGS) video at the transport's rate clipped to [b0, R_max].
//! - [`Mpeg4`]: MPEG-4 frames of a GOP pattern, sizes from per-type TES models.
//! - [`Encoder`]: RFC 8593's synthetic live video encoder at its transport's rate.
//! - [`Sink`]: takes what it receives and keeps nothing (the transport counts it).
//! - [`Playback`]: buffers and plays out at a constant rate; interruptions, frozen time,
//!   receiver queue, Video Delivery Index.
//! - [`FrameMeter`]: frame delay, lost frames and freezes around another receiver.
//!
//! Media applications are built on the same hooks: an ON/OFF source offers while ON and asks
//! to be woken at the next switch; a frame source offers one frame per frame time with its
//! frame number, layer and deadline as the [`Tag`]; a coder reads
//! [`TransportView::rate_bps`] at each frame time to size the next frame; a playback buffer
//! reads each [`Delivery`]'s tag and arrival time and wakes at playout times.

mod bulk;
mod cbr;
mod encoder;
mod fgs;
mod finite;
mod frames;
mod multirate;
mod onoff;
mod playback;
mod poisson;
mod sink;
mod video;

use std::collections::VecDeque;

pub use bulk::Bulk;
pub use cbr::Cbr;
pub use encoder::{Encoder, EncoderSpec};
pub use fgs::Fgs;
pub use finite::Finite;
pub use frames::FrameMeter;
pub use multirate::Multirate;
pub use onoff::{OnMode, OnOff, Period};
pub use playback::{play, Consumption, Outcome, Playback, PlaybackSpec};
pub use poisson::Poisson;
pub use sink::Sink;
pub use video::{autocorrelation, FrameLedger, FrameStats, Mpeg4, Tes, Unit};

pub use crate::net::packet::Tag;
use crate::net::{Ctx, Stat};
use crate::rng::{Rng, RngSource};
use crate::time::{OptTime, SimTime};

/// What a transport tells its application about itself at a hook.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TransportView {
    pub now: SimTime,
    /// The rate the transport sends at (bits/s): the rate transport's pacing rate; TCP's
    /// window × packet size / smoothed RTT (0 before the first RTT sample); `f64::INFINITY`
    /// for a transport without congestion control.
    pub rate_bps: f64,
    /// TCP's congestion window (packets); 0 for transports without a window.
    pub window_pkts: f64,
    /// The largest packet the transport cuts offered data into (bytes on the wire).
    pub packet_bytes: u32,
}

/// One packet's worth of application data as the transport takes it from the buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Chunk {
    /// Size of the packet that carries it (bytes on the wire), ≥ 1.
    pub bytes: u32,
    pub tag: Tag,
    /// Sent again on the application's request ([`SendCtx::resend`]).
    pub resent: bool,
}

/// Offer size of a source that never runs out.
pub const UNLIMITED: u64 = u64::MAX;

/// Data offered and not yet sent, in order: one entry per offer (bytes left, its tag), and
/// ahead of it the packets the application asked to send again.
#[derive(Clone, Debug, Default)]
pub struct SendBuffer {
    offers: VecDeque<(u64, Tag)>,
    /// Made when first needed (boxed: only an application that retransmits on NACK resends,
    /// and every flow has a buffer).
    // The box keeps 8 bytes where the deque would take 32 in every flow.
    #[allow(clippy::box_collection)]
    resend: Option<Box<VecDeque<Chunk>>>,
}

impl SendBuffer {
    /// Appends `bytes` of data tagged `tag`; [`UNLIMITED`] bytes never run out. Zero bytes
    /// offer nothing.
    pub fn offer(&mut self, bytes: u64, tag: Tag) {
        if bytes > 0 {
            // Room for one offer at first, not a deque's least of four (later growth doubles
            // as usual): bulk data, in every flow, is one offer that never runs out.
            if self.offers.capacity() == 0 {
                self.offers.reserve_exact(1);
            }
            self.offers.push_back((bytes, tag));
        }
    }

    /// Queues `chunk` to be sent again, after other resent packets and ahead of new data.
    pub fn resend(&mut self, chunk: Chunk) {
        self.resend.get_or_insert_default().push_back(Chunk {
            resent: true,
            ..chunk
        });
    }

    /// The packets queued to be sent again.
    fn to_resend(&self) -> impl Iterator<Item = &Chunk> {
        self.resend.iter().flat_map(|q| q.iter())
    }

    pub fn is_empty(&self) -> bool {
        self.offers.is_empty() && self.to_resend().next().is_none()
    }

    /// Bytes waiting ([`UNLIMITED`] when an unlimited offer is among them).
    pub fn bytes(&self) -> u64 {
        let resend = self.to_resend().map(|c| c.bytes as u64).sum::<u64>();
        self.offers
            .iter()
            .fold(resend, |sum, &(b, _)| sum.saturating_add(b))
    }

    /// The next packet's worth of data: the oldest packet to resend (whole), else at most
    /// `max_bytes` (≥ 1) of the oldest offer.
    #[inline]
    pub fn take(&mut self, max_bytes: u32) -> Option<Chunk> {
        if let Some(chunk) = self.resend.as_mut().and_then(|q| q.pop_front()) {
            return Some(chunk);
        }
        let (left, tag) = self.offers.front_mut()?;
        let bytes = (*left).min(max_bytes.max(1) as u64);
        let chunk = Chunk {
            bytes: bytes as u32,
            tag: *tag,
            resent: false,
        };
        if *left != UNLIMITED {
            *left -= bytes;
            if *left == 0 {
                self.offers.pop_front();
            }
        }
        Some(chunk)
    }
}

/// What a sending application can see and do during a hook.
pub struct SendCtx<'a> {
    view: TransportView,
    rng: &'a mut dyn RngSource,
    buffer: &'a mut SendBuffer,
    closed: &'a mut bool,
    wake: &'a mut OptTime,
}

impl SendCtx<'_> {
    pub fn now(&self) -> SimTime {
        self.view.now
    }
    /// The transport's current state.
    pub fn view(&self) -> &TransportView {
        &self.view
    }
    /// The endpoint's random stream.
    pub fn rng(&mut self) -> &mut Rng {
        self.rng.rng()
    }
    /// Hands `bytes` of data tagged `tag` to the transport ([`UNLIMITED`]: never runs out).
    /// Ignored after [`SendCtx::close`].
    pub fn offer(&mut self, bytes: u64, tag: Tag) {
        if !*self.closed {
            self.buffer.offer(bytes, tag);
        }
    }
    /// Queues `chunk` (one the transport handed to [`SendApp::on_nack`]) to be sent again,
    /// ahead of new data.
    pub fn resend(&mut self, chunk: Chunk) {
        self.buffer.resend(chunk);
    }
    /// Bytes offered and not yet sent.
    pub fn buffered_bytes(&self) -> u64 {
        self.buffer.bytes()
    }
    /// Ends the data: nothing more will be offered (a finite transfer is complete once what
    /// was offered is acknowledged).
    pub fn close(&mut self) {
        *self.closed = true;
    }
    /// Asks for [`SendApp::on_wake`] at `at` (at once if `at` ≤ now, after the transport has
    /// reacted to this hook); replaces any earlier request.
    pub fn wake_at(&mut self, at: SimTime) {
        *self.wake = OptTime::some(at);
    }
}

/// An application that offers data to a transport. Every hook defaults to doing nothing; see
/// the module documentation for the order the transport calls them in.
pub trait SendApp: Send {
    /// Fires once, at the flow's start, before the transport sends anything.
    fn on_start(&mut self, _cx: &mut SendCtx) {}

    /// Fires at the time last asked for with [`SendCtx::wake_at`], unless the flow stopped.
    fn on_wake(&mut self, _cx: &mut SendCtx) {}

    /// Fires after a packet carrying new data of this application was handed to the network
    /// (not for retransmissions).
    fn on_sent(&mut self, _cx: &mut SendCtx, _chunk: &Chunk) {}

    /// Fires when the receiver acknowledges `pkts` more packets of data, in order (TCP's
    /// cumulative ACK advanced). Transports without acknowledgement of data never call it.
    fn on_acked(&mut self, _cx: &mut SendCtx, _pkts: u64) {}

    /// Whether [`SendApp::on_sent`] and [`SendApp::on_acked`] do anything. Asked once, when
    /// the transport takes the application; an application that leaves both hooks empty
    /// returns `false` so the transport skips them (and building their view) per packet.
    fn watches_progress(&self) -> bool {
        true
    }

    /// Whether the application retransmits on NACK: the transport then keeps what each packet
    /// carried and calls [`SendApp::on_nack`]. Asked once, when the transport takes it.
    fn retransmits(&self) -> bool {
        false
    }

    /// Fires when the receiver reports missing the packet that carried `chunk`; `rtt` is the
    /// transport's smoothed RTT (zero before the first sample). [`SendCtx::resend`] sends it
    /// again.
    fn on_nack(&mut self, _cx: &mut SendCtx, _chunk: &Chunk, _rtt: SimTime) {}

    /// Fires once, at the flow's stop time; the transport takes no more data after it.
    fn on_stop(&mut self, _cx: &mut SendCtx) {}

    /// Name in results for a flow whose transport has none of its own (UDP), e.g. `CBR 1Mb/s`.
    fn label(&self) -> String {
        String::new()
    }

    /// The fixed rate (bits/s) the application generates data at, if it has one; a transport
    /// without congestion control traces it as the flow's rate.
    fn nominal_rate_bps(&self) -> Option<f64> {
        None
    }
}

/// A transport's hold on its sending application: the application, the data it offered and
/// not yet sent, and its pending wake-up.
pub struct Outbox {
    app: Box<dyn SendApp>,
    buffer: SendBuffer,
    /// The application closed its data.
    closed: bool,
    /// The flow stopped: nothing more is taken or offered.
    stopped: bool,
    /// A wake-up asked for and not yet armed.
    wake: OptTime,
    /// [`SendApp::watches_progress`], asked once.
    progress: bool,
    /// Only for an application that retransmits ([`SendApp::retransmits`]); boxed, as every
    /// other flow would carry it empty.
    sent: Option<Box<SentLog>>,
}

/// What each packet sent carried, for NACKs.
#[derive(Debug, Default)]
struct SentLog {
    /// By sequence number, oldest first.
    chunks: VecDeque<(u64, Chunk)>,
    /// Packets sent again.
    resent: u64,
}

impl Outbox {
    pub fn new(app: Box<dyn SendApp>) -> Self {
        Outbox {
            progress: app.watches_progress(),
            sent: app.retransmits().then(Box::default),
            app,
            buffer: SendBuffer::default(),
            closed: false,
            stopped: false,
            wake: OptTime::NONE,
        }
    }

    fn with(
        &mut self,
        ctx: &mut Ctx,
        view: TransportView,
        f: impl FnOnce(&mut dyn SendApp, &mut SendCtx),
    ) {
        let mut cx = SendCtx {
            view,
            rng: ctx,
            buffer: &mut self.buffer,
            closed: &mut self.closed,
            wake: &mut self.wake,
        };
        f(self.app.as_mut(), &mut cx);
    }

    /// Calls [`SendApp::on_start`].
    pub fn start(&mut self, ctx: &mut Ctx, view: TransportView) {
        self.with(ctx, view, |a, cx| a.on_start(cx));
    }

    /// Calls [`SendApp::on_wake`] (the transport's wake-up timer fired).
    pub fn wake(&mut self, ctx: &mut Ctx, view: TransportView) {
        if !self.stopped {
            self.with(ctx, view, |a, cx| a.on_wake(cx));
        }
    }

    /// Whether the application watches progress ([`SendApp::watches_progress`]): transports
    /// need not build a view for [`Outbox::sent`] and [`Outbox::acked`] when it does not.
    #[inline]
    pub fn watches_progress(&self) -> bool {
        self.progress
    }

    /// Calls [`SendApp::on_sent`] (if the application watches progress).
    #[inline]
    pub fn sent(&mut self, ctx: &mut Ctx, view: TransportView, chunk: &Chunk) {
        if self.progress {
            self.with(ctx, view, |a, cx| a.on_sent(cx, chunk));
        }
    }

    /// Calls [`SendApp::on_acked`] (if the application watches progress).
    #[inline]
    pub fn acked(&mut self, ctx: &mut Ctx, view: TransportView, pkts: u64) {
        if self.progress {
            self.with(ctx, view, |a, cx| a.on_acked(cx, pkts));
        }
    }

    /// Whether the application retransmits on NACK ([`SendApp::retransmits`]).
    pub fn retransmits(&self) -> bool {
        self.sent.is_some()
    }

    /// Packets sent again on the application's request.
    pub fn resent(&self) -> u64 {
        self.sent.as_ref().map_or(0, |log| log.resent)
    }

    /// The transport sent `chunk` as packet `seq` (call for every packet it takes): kept for
    /// NACKs if the application retransmits; counted if it was resent.
    #[inline]
    pub fn record(&mut self, seq: u64, chunk: Chunk) {
        if let Some(log) = &mut self.sent {
            log.chunks.push_back((seq, chunk));
            log.resent += chunk.resent as u64;
        }
    }

    /// The receiver misses packet `seq`: calls [`SendApp::on_nack`] with what it carried.
    /// NACKs come in sequence order (the receiver finds gaps in order and the reverse path
    /// keeps order), so what was sent before `seq` is forgotten.
    pub fn nack(&mut self, ctx: &mut Ctx, view: TransportView, seq: u64, rtt: SimTime) {
        let Some(log) = &mut self.sent else { return };
        let sent = &mut log.chunks;
        while sent.front().is_some_and(|&(s, _)| s < seq) {
            sent.pop_front();
        }
        match sent.front() {
            Some(&(s, chunk)) if s == seq && !self.stopped => {
                self.with(ctx, view, |a, cx| a.on_nack(cx, &chunk, rtt))
            }
            _ => {}
        }
    }

    /// The flow stops: calls [`SendApp::on_stop`], drops any wake-up; nothing more is taken.
    pub fn stop(&mut self, ctx: &mut Ctx, view: TransportView, wake_timer: usize) {
        self.with(ctx, view, |a, cx| a.on_stop(cx));
        self.stopped = true;
        self.wake = OptTime::NONE;
        ctx.cancel_timer(wake_timer);
    }

    /// Whether there is data to take.
    #[inline]
    pub fn has_data(&self) -> bool {
        !self.stopped && !self.buffer.is_empty()
    }

    /// Bytes waiting to be sent (none once stopped).
    pub fn queued_bytes(&self) -> u64 {
        if self.stopped {
            0
        } else {
            self.buffer.bytes()
        }
    }

    /// The next packet's worth of data, at most `max_bytes`.
    #[inline]
    pub fn take(&mut self, max_bytes: u32) -> Option<Chunk> {
        if self.stopped {
            return None;
        }
        self.buffer.take(max_bytes)
    }

    /// Whether `chunk`, just taken, ends its application data unit: nothing of its frame is
    /// left in the buffer (RTP's marker bit on a frame's last packet).
    pub fn ends_frame(&self, chunk: &Chunk) -> bool {
        match self.buffer.offers.front() {
            Some(&(_, tag)) => tag.frame != chunk.tag.frame,
            None => true,
        }
    }

    /// The application closed its data and all of it has been taken.
    pub fn drained(&self) -> bool {
        self.closed && self.buffer.is_empty()
    }

    /// Arms timer `timer` for the wake-up the application asked for, if any. Transports call
    /// it when they have reacted to a hook.
    #[inline]
    pub fn arm(&mut self, ctx: &mut Ctx, timer: usize) {
        if let Some(at) = self.wake.take() {
            if !self.stopped {
                ctx.set_timer(timer, at);
            }
        }
    }

    pub fn label(&self) -> String {
        self.app.label()
    }

    pub fn nominal_rate_bps(&self) -> Option<f64> {
        self.app.nominal_rate_bps()
    }
}

/// One packet delivered to a receiving application.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Delivery {
    /// The transport's sequence number of the packet.
    pub seq: u64,
    /// Size on the wire (bytes).
    pub bytes: u32,
    pub tag: Tag,
    /// When the sender handed this copy of the packet to the network.
    pub sent_at: SimTime,
    /// When it reached the receiver (before the delivery time for data TCP held back until
    /// a hole below it was filled).
    pub arrived_at: SimTime,
    /// A copy its application sent again on NACK ([`SendCtx::resend`]).
    pub resent: bool,
}

/// What a receiving application can see and do during a hook.
pub struct RecvCtx<'a> {
    now: SimTime,
    rng: &'a mut dyn RngSource,
    wake: &'a mut OptTime,
    /// Where NACKs go; none when the transport does not carry them.
    nacks: Option<&'a mut Vec<u64>>,
}

impl RecvCtx<'_> {
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// The endpoint's random stream.
    pub fn rng(&mut self) -> &mut Rng {
        self.rng.rng()
    }
    /// Asks for [`ReceiveApp::on_wake`] at `at`; replaces any earlier request.
    pub fn wake_at(&mut self, at: SimTime) {
        *self.wake = OptTime::some(at);
    }
    /// Reports packet `seq` (the transport's sequence number) missing to the sender, in
    /// sequence order; transports that do not carry NACKs (TCP, UDP) drop it.
    pub fn nack(&mut self, seq: u64) {
        if let Some(nacks) = &mut self.nacks {
            nacks.push(seq);
        }
    }
}

/// An application that receives what a transport delivers. Every hook defaults to nothing.
pub trait ReceiveApp: Send {
    /// Fires once, at the flow's start.
    fn on_start(&mut self, _cx: &mut RecvCtx) {}

    /// Fires for every data packet the transport delivers, at its delivery time (`cx.now()`):
    /// TCP delivers in order, once per packet, when the packet and all before it have arrived;
    /// the rate transport and UDP deliver every packet as it arrives.
    fn on_deliver(&mut self, _cx: &mut RecvCtx, _packet: &Delivery) {}

    /// Whether [`ReceiveApp::on_deliver`] does anything. Asked once, when the transport takes
    /// the application; one that leaves the hook empty returns `false`, and the transport then
    /// skips it and keeps nothing of what the packets it holds for in-order delivery carry.
    fn watches_deliveries(&self) -> bool {
        true
    }

    /// Fires at the time last asked for with [`RecvCtx::wake_at`], unless the flow stopped.
    fn on_wake(&mut self, _cx: &mut RecvCtx) {}

    /// Fires once, at the flow's stop time.
    fn on_stop(&mut self, _cx: &mut RecvCtx) {}

    /// The application's own summary numbers for results (e.g. a playback receiver's
    /// interruptions); the transport's receiver reports them beside its own.
    fn stats(&self) -> Vec<(&'static str, Stat)> {
        Vec::new()
    }

    /// The application's series for results, read once at the end of the run.
    fn series(&self) -> Vec<(&'static str, Vec<f64>)> {
        Vec::new()
    }
}

/// A transport's hold on its receiving application.
pub struct Inbox {
    app: Box<dyn ReceiveApp>,
    /// [`ReceiveApp::watches_deliveries`], asked once.
    deliveries: bool,
    stopped: bool,
    wake: OptTime,
    /// NACKs the application asked for, not yet sent; none for a transport that does not
    /// carry them (boxed: only the rate transport does).
    // The box keeps 8 bytes where the vector would take 24 in every flow.
    #[allow(clippy::box_collection)]
    nacks: Option<Box<Vec<u64>>>,
}

impl Inbox {
    /// A hold on `app` for a transport that does not carry NACKs: they are dropped.
    pub fn new(app: Box<dyn ReceiveApp>) -> Self {
        Inbox {
            deliveries: app.watches_deliveries(),
            app,
            stopped: false,
            wake: OptTime::NONE,
            nacks: None,
        }
    }

    /// A hold on `app` for a transport that carries its NACKs ([`Inbox::take_nacks`]).
    pub fn carrying_nacks(app: Box<dyn ReceiveApp>) -> Self {
        Inbox {
            nacks: Some(Box::default()),
            ..Inbox::new(app)
        }
    }

    fn with(&mut self, ctx: &mut Ctx, f: impl FnOnce(&mut dyn ReceiveApp, &mut RecvCtx)) {
        let mut cx = RecvCtx {
            now: ctx.now(),
            rng: ctx,
            wake: &mut self.wake,
            nacks: self.nacks.as_deref_mut(),
        };
        f(self.app.as_mut(), &mut cx);
    }

    /// Calls [`ReceiveApp::on_start`].
    pub fn start(&mut self, ctx: &mut Ctx) {
        self.with(ctx, |a, cx| a.on_start(cx));
    }

    /// Whether the application watches deliveries ([`ReceiveApp::watches_deliveries`]).
    #[inline]
    pub fn watches_deliveries(&self) -> bool {
        self.deliveries
    }

    /// Calls [`ReceiveApp::on_deliver`] (if the application watches deliveries).
    #[inline]
    pub fn deliver(&mut self, ctx: &mut Ctx, packet: &Delivery) {
        if self.deliveries {
            self.with(ctx, |a, cx| a.on_deliver(cx, packet));
        }
    }

    /// Calls [`ReceiveApp::on_wake`] (the transport's wake-up timer fired).
    pub fn wake(&mut self, ctx: &mut Ctx) {
        if !self.stopped {
            self.with(ctx, |a, cx| a.on_wake(cx));
        }
    }

    /// The flow stops: calls [`ReceiveApp::on_stop`] and drops any wake-up.
    pub fn stop(&mut self, ctx: &mut Ctx, wake_timer: usize) {
        self.with(ctx, |a, cx| a.on_stop(cx));
        self.stopped = true;
        self.wake = OptTime::NONE;
        ctx.cancel_timer(wake_timer);
    }

    /// Arms timer `timer` for the wake-up the application asked for, if any.
    #[inline]
    pub fn arm(&mut self, ctx: &mut Ctx, timer: usize) {
        if let Some(at) = self.wake.take() {
            if !self.stopped {
                ctx.set_timer(timer, at);
            }
        }
    }

    /// The NACKs the application asked for since the last call, in order.
    pub fn take_nacks(&mut self) -> impl Iterator<Item = u64> + '_ {
        self.nacks.iter_mut().flat_map(|nacks| nacks.drain(..))
    }

    /// The application's summary numbers ([`ReceiveApp::stats`]).
    pub fn stats(&self) -> Vec<(&'static str, Stat)> {
        self.app.stats()
    }

    /// The application's series ([`ReceiveApp::series`]).
    pub fn series(&self) -> Vec<(&'static str, Vec<f64>)> {
        self.app.series()
    }
}

/// A rate the way people write it: `1.5Mb/s`, `500kb/s`, up to six significant digits.
fn format_rate(bps: f64) -> String {
    let (scale, unit) = [(1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")]
        .into_iter()
        .find(|&(s, _)| bps >= s)
        .unwrap_or((1.0, "b/s"));
    let digits = format!("{:.6}", bps / scale);
    let digits = digits.trim_end_matches('0').trim_end_matches('.');
    format!("{digits}{unit}")
}

/// Drives applications without a network, for the unit tests of each application.
#[cfg(test)]
pub(crate) mod harness {
    use super::*;
    use crate::rng::{stream, Stream};

    /// A sending application with its buffer, wake-up and random stream.
    pub struct SendHarness<A: SendApp> {
        pub app: A,
        pub buffer: SendBuffer,
        pub closed: bool,
        pub wake: OptTime,
        pub rng: Rng,
        pub packet_bytes: u32,
    }

    impl<A: SendApp> SendHarness<A> {
        pub fn new(app: A) -> Self {
            SendHarness {
                app,
                buffer: SendBuffer::default(),
                closed: false,
                wake: OptTime::NONE,
                rng: stream(1, Stream::Source, 0),
                packet_bytes: 1000,
            }
        }

        /// Runs `f` on the application with a context at time `now`.
        pub fn at(&mut self, now: SimTime, f: impl FnOnce(&mut A, &mut SendCtx)) {
            let view = TransportView {
                now,
                rate_bps: f64::INFINITY,
                window_pkts: 0.0,
                packet_bytes: self.packet_bytes,
            };
            let mut cx = SendCtx {
                view,
                rng: &mut self.rng,
                buffer: &mut self.buffer,
                closed: &mut self.closed,
                wake: &mut self.wake,
            };
            f(&mut self.app, &mut cx);
        }

        /// Takes everything buffered as packets of at most `packet_bytes`.
        pub fn drain(&mut self) -> Vec<Chunk> {
            std::iter::from_fn(|| self.buffer.take(self.packet_bytes)).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_format_compactly() {
        assert_eq!(format_rate(1.5e6), "1.5Mb/s");
        assert_eq!(format_rate(5e5), "500kb/s");
        assert_eq!(format_rate(1e10), "10Gb/s");
        assert_eq!(format_rate(64.0), "64b/s");
    }

    #[test]
    fn the_buffer_cuts_offers_into_packets_and_never_mixes_two() {
        let mut b = SendBuffer::default();
        let frame = |n| Tag::new(n, 0);
        b.offer(2500, frame(1));
        b.offer(0, frame(2));
        b.offer(400, frame(3));
        assert_eq!(b.bytes(), 2900);
        let got: Vec<(u32, u32)> = std::iter::from_fn(|| b.take(1000))
            .map(|c| (c.bytes, c.tag.frame))
            .collect();
        assert_eq!(got, [(1000, 1), (1000, 1), (500, 1), (400, 3)]);
        assert!(b.is_empty() && b.take(1000).is_none());
    }

    #[test]
    fn resent_packets_go_whole_ahead_of_new_data() {
        let mut b = SendBuffer::default();
        b.offer(UNLIMITED, Tag::new(1, 1));
        let old = Chunk {
            bytes: 175,
            tag: Tag::new(0, 0),
            resent: false,
        };
        b.resend(old);
        assert_eq!(
            b.take(100),
            Some(Chunk {
                resent: true,
                ..old
            }),
            "whole, even above max_bytes"
        );
        assert_eq!(
            b.take(100),
            Some(Chunk {
                bytes: 100,
                tag: Tag::new(1, 1),
                resent: false
            })
        );
    }

    #[test]
    fn an_unlimited_offer_never_runs_out() {
        let mut b = SendBuffer::default();
        b.offer(UNLIMITED, Tag::default());
        b.offer(10, Tag::default());
        for _ in 0..10_000 {
            assert_eq!(b.take(1500).map(|c| c.bytes), Some(1500));
        }
        assert_eq!(b.bytes(), UNLIMITED);
    }
}
