//! The packet-level discrete-event engine.
//!
//! Time is integer nanoseconds; events are ordered by `(time, sequence)`, so simultaneous events
//! run in the order they were scheduled and a run is a pure function of scenario and seed.
//!
//! A link serves its queue first in, first out, at a constant rate, with a constant propagation
//! delay, so when a packet is admitted the link knows when it will start and finish serializing
//! and when it will reach the far end. A link therefore takes one event per packet, at its
//! arrival at the far end (only the head of the link needs one pending); the rest — the packet
//! leaving the wire, the next one starting, the queue's length, the counters, a loss module's
//! draw — is brought up to date whenever the link is looked at ([`Core::advance`]), each at its
//! own time. So at any instant a link's serializations that end (and the next ones that start)
//! take effect before the instant's events: a packet arriving at a link just as another
//! finishes serializing finds it gone.
//!
//! A queue that drops or chooses at dequeue (CoDel, FQ-CoDel, PIE: [`Queue::keeps_packets`])
//! keeps its waiting packets itself, and a packet's start is known only when the wire falls
//! free before it. Such a link's chain holds the packets on the wire and propagating; when it
//! is brought up to date, each time its wire fell free the queue is asked for its next packet
//! at that time, as a router's dequeue would be, with what had arrived by then. Those links
//! take no more events than the others: the same one per packet, at its arrival.
//!
//! The hot path (queueing, serialization, propagation) uses no allocation and no dynamic
//! dispatch: events are small `Copy` values, the packets on a link (propagating, on the wire,
//! waiting) are one chain in a store shared by all links, so a link holds no buffer
//! ([`super::store`]), and queues and loss modules are enums. Endpoints — the transports and
//! applications at the ends of a flow — are trait objects behind [`Endpoint`], so a new
//! transport plugs in without changing the engine.

use std::sync::Arc;

use rand::Rng as _;

use super::capacity::{CapacityTrace, Cursor};
use super::config::{CapacityChange, Scenario};
use super::events::EventQueue;
use super::jitter::Jitter;
use super::loss::LossModule;
use super::packet::{Dir, Packet};
use super::pcap::{PcapFile, PcapWriter};
use super::queue::{Admit, Queue};
use super::sojourn::{Sojourn, SojournSummary};
use super::stats::{DirStats, FlowStats, LinkStats};
use super::store::{prefetch, Fifo, MaybeSlot, Store};
use super::topology::{Name, Names, Network, Routes};
use super::trace::{EventKind, Probe, StateFields, Trace};
use crate::error::{Error, Result};
use crate::rng::{stream, Rng, RngSource, Stream};
use crate::time::{serialization_time, OptTime, SimTime};

/// Timers a sender may have pending at once (e.g. TCP's: retransmission, delayed send, its
/// application's wake-up and its controller's), numbered from 0.
pub const SENDER_TIMERS: usize = 4;
/// Timers a receiver may have pending at once (e.g. TCP's: delayed ACK and its application's
/// wake-up), numbered from 0.
pub const RECEIVER_TIMERS: usize = 2;
/// Timers an endpoint of either side may have.
pub const TIMERS_PER_ENDPOINT: usize = SENDER_TIMERS;
/// A flow's timer slots: its sender's, then its receiver's.
const FLOW_TIMERS: usize = SENDER_TIMERS + RECEIVER_TIMERS;

/// Where timer `slot` of endpoint `ep` (sender `2 * flow`, receiver `2 * flow + 1`) is kept.
#[inline]
fn timer_index(ep: usize, slot: usize) -> usize {
    let (flow, receiver) = (ep / 2, ep % 2 == 1);
    debug_assert!(
        slot < if receiver {
            RECEIVER_TIMERS
        } else {
            SENDER_TIMERS
        },
        "timer {slot} of endpoint {ep}"
    );
    flow * FLOW_TIMERS + if receiver { SENDER_TIMERS } else { 0 } + slot
}

/// Ends each path in [`Core::hops`].
const PATH_END: u32 = u32::MAX;

/// Which end of a flow an endpoint sits at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Sender = 0,
    Receiver = 1,
}

/// A transport or application at one end of a flow.
///
/// Every hook has a default that does nothing. The engine calls `start` at the flow's start time
/// (sender and receiver), `stop` at its stop time, `on_packet` when a packet of the flow reaches
/// this end, and `on_timer` when a timer set through [`Ctx::set_timer`] expires.
pub trait Endpoint: Send {
    fn start(&mut self, _ctx: &mut Ctx) {}
    fn stop(&mut self, _ctx: &mut Ctx) {}
    fn on_packet(&mut self, _ctx: &mut Ctx, _pkt: &Packet) {}
    fn on_timer(&mut self, _ctx: &mut Ctx, _timer: usize) {}
    /// Name of what runs here, for results (e.g. the controller's paper notation).
    fn label(&self) -> String {
        String::new()
    }
    /// The control state traces sample at the end of every bin (senders).
    fn probe(&self) -> Probe {
        Probe::default()
    }
    /// The control state the state log records after each callback (transport and controller
    /// fields, see [`crate::net::trace::StateLog`]); read only when a trace asks for it.
    fn state(&self, _out: &mut StateFields) {}
    /// Transport-specific summary numbers for results, e.g. `("timeouts", Stat::Count(3.0))`.
    fn stats(&self) -> Vec<(&'static str, Stat)> {
        Vec::new()
    }
    /// Named series for results, read once at the end of the run (e.g. a playback receiver's
    /// buffer over time, its series of equal length; a rate receiver's packet-bunch capacity
    /// samples over the whole run).
    fn series(&self) -> Vec<(&'static str, Vec<f64>)> {
        Vec::new()
    }
}

/// A transport's summary number: counts are reported over the measurement window (the value at
/// the end less the value at the end of the warm-up); levels as they are at the end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stat {
    Count(f64),
    Level(f64),
}

/// The counts among an endpoint's stats at the start of the measurement window: all that
/// [`windowed`] reads of them, kept in as little room as they take.
pub(crate) type WindowStart = Box<[(&'static str, f64)]>;

/// The counts among `stats`.
pub(crate) fn counts(stats: Vec<(&'static str, Stat)>) -> WindowStart {
    stats
        .into_iter()
        .filter_map(|(k, v)| match v {
            Stat::Count(x) => Some((k, x)),
            Stat::Level(_) => None,
        })
        .collect()
}

/// Counts over the window [warmup, end) from the stats at the end and the counts at its start.
pub(crate) fn windowed(
    end: Vec<(&'static str, Stat)>,
    start: Option<&WindowStart>,
) -> Vec<(&'static str, f64)> {
    end.into_iter()
        .map(|(k, v)| match v {
            Stat::Level(x) => (k, x),
            Stat::Count(x) => {
                let before = start
                    .and_then(|s| s.iter().find(|(j, _)| *j == k))
                    .map_or(0.0, |&(_, y)| y);
                (k, x - before)
            }
        })
        .collect()
}

/// What an endpoint can do to the world during a callback.
///
/// Endpoints are sans-IO state machines: a callback gets the time and (for `on_packet`) the
/// packet, and answers through the context with packets to send and timers to arm. The
/// simulator puts them straight into its event queue; a driver on a real clock
/// ([`HostIo`]) collects them and puts them on sockets.
pub struct Ctx<'a> {
    io: Io<'a>,
    /// The time of the callback, read from `io` once: nothing changes it while the context
    /// holds `io` (endpoints read it many times a callback).
    now: SimTime,
    flow: u32,
    side: Side,
}

enum Io<'a> {
    Sim(&'a mut Core),
    Host(&'a mut HostIo),
}

/// The context of an endpoint driven by something other than the simulator, e.g. a real
/// clock and a UDP socket: the driver sets `now`, calls the endpoint, then takes `sent` and
/// reads `timers`.
pub struct HostIo {
    pub now: SimTime,
    pub ecn: bool,
    /// Packets the endpoint sent during the callback, in order.
    pub sent: Vec<Packet>,
    /// The endpoint's armed timers: deadline per timer.
    pub timers: [Option<SimTime>; TIMERS_PER_ENDPOINT],
    /// The endpoint's own random stream.
    pub rng: Rng,
}

impl HostIo {
    pub fn new(ecn: bool, rng: Rng) -> HostIo {
        HostIo {
            now: SimTime::ZERO,
            ecn,
            sent: Vec::new(),
            timers: [None; TIMERS_PER_ENDPOINT],
            rng,
        }
    }
}

impl Ctx<'_> {
    /// A context for an endpoint driven through `io` (see [`HostIo`]).
    pub fn host(io: &mut HostIo, flow: u32, side: Side) -> Ctx<'_> {
        Ctx {
            now: io.now,
            io: Io::Host(io),
            flow,
            side,
        }
    }
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }
    pub fn flow(&self) -> u32 {
        self.flow
    }
    /// This endpoint's own random stream.
    pub fn rng(&mut self) -> &mut Rng {
        match &mut self.io {
            Io::Sim(core) => core.endpoint_rng(endpoint_index(self.flow, self.side)),
            Io::Host(io) => &mut io.rng,
        }
    }
    /// Hands a packet to the network, towards the other end of the flow. The engine fills in
    /// the routing fields and the send time.
    pub fn send(&mut self, mut pkt: Packet) {
        pkt.flow = self.flow;
        pkt.dir = match self.side {
            Side::Sender => Dir::Forward,
            Side::Receiver => Dir::Reverse,
        };
        pkt.sent_at = self.now();
        match &mut self.io {
            Io::Sim(core) => core.inject(pkt),
            Io::Host(io) => io.sent.push(pkt),
        }
    }
    /// Arms timer `timer` (below [`SENDER_TIMERS`] or [`RECEIVER_TIMERS`]) to fire at `at`,
    /// replacing any earlier setting.
    pub fn set_timer(&mut self, timer: usize, at: SimTime) {
        let at = at.max(self.now());
        match &mut self.io {
            Io::Sim(core) => core.set_timer(endpoint_index(self.flow, self.side), timer, at),
            Io::Host(io) => io.timers[timer] = Some(at),
        }
    }
    pub fn cancel_timer(&mut self, timer: usize) {
        match &mut self.io {
            Io::Sim(core) => {
                core.timers[timer_index(endpoint_index(self.flow, self.side), timer)].armed = false
            }
            Io::Host(io) => io.timers[timer] = None,
        }
    }
    /// Whether timer `timer` is armed.
    pub fn timer_armed(&self, timer: usize) -> bool {
        match &self.io {
            Io::Sim(core) => {
                core.timers[timer_index(endpoint_index(self.flow, self.side), timer)].armed
            }
            Io::Host(io) => io.timers[timer].is_some(),
        }
    }
    /// Whether the flow's packets are ECN-capable (the scenario's `ecn`).
    pub fn ecn(&self) -> bool {
        match &self.io {
            Io::Sim(core) => core.flows[self.flow as usize].turns[1].ecn,
            Io::Host(io) => io.ecn,
        }
    }
}

/// An application's stream is its endpoint's, made when it first draws.
impl RngSource for Ctx<'_> {
    fn rng(&mut self) -> &mut Rng {
        Ctx::rng(self)
    }
}

fn endpoint_index(flow: u32, side: Side) -> usize {
    flow as usize * 2 + side as usize
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The packet at the head of a link reached the far end.
    Arrive(u32),
    /// A packet a link's jitter held ([`super::jitter`]), by its store slot, is handed on.
    Jittered(u32),
    Timer {
        ep: u32,
        slot: u8,
        gen: u32,
    },
    Start(u32),
    Stop(u32),
    /// A scheduled capacity change (bits/s).
    Capacity {
        link: u32,
        rate_bps: u64,
    },
    /// End of a trace bin: sample the queues and the senders' probes.
    Sample,
    /// End of the warm-up: snapshot the counters.
    Warmup,
}

/// A timer's state. Moving a deadline later costs nothing: the pending event fires, sees
/// the later deadline and re-arms itself. Moving it earlier pushes a new event and bumps `gen`,
/// which makes the old event stale. Flags rather than `Option`s keep a slot in 24 bytes
/// (five per flow).
#[derive(Clone, Copy, Debug, Default)]
struct TimerSlot {
    /// When the timer expires, if `armed`.
    deadline: SimTime,
    /// Time of the live pending event, if `live`.
    scheduled: SimTime,
    gen: u32,
    armed: bool,
    live: bool,
}

/// One simplex link: its queue, the packet on the wire, and the packets propagating, as they
/// stand at the time the link was last brought up to date ([`Core::advance`]).
struct Link {
    rate_bps: u64,
    delay: SimTime,
    queue: Queue,
    /// The loss module and the record of sojourn times, on the few links that have them.
    extras: Option<Box<Extras>>,
    /// The packets on the link, in [`Core::stored`], in the order they came: the ones
    /// propagating, the one on the wire, then the ones waiting. Each knows when it finishes
    /// serializing ([`Store::done`]): those times, and so the arrival times, never decrease.
    packets: Fifo,
    /// The packet being serialized; the packets after it in `packets` wait in the queue.
    on_wire: MaybeSlot,
    /// When the serialization of the packet on the wire started.
    started: SimTime,
    /// The last packet size seen and its serialization time (packets of one size follow each
    /// other on most links; 0 bytes take no time at any rate).
    serialized_bytes: u32,
    serialization: SimTime,
    stats: Counters,
    /// Most packets ever waiting (a queue holds at most `u32::MAX`, as its chain counts).
    max_queue_pkts: u32,
    /// When the queue length last changed (for the time integrals).
    queue_since: SimTime,
}

/// What few links have: a loss module, the waits of the packets served on the links a run
/// reports (monitored), a capacity that follows a trace; boxed, as most links have none.
struct Extras {
    loss: Option<Loss>,
    sojourn: Option<Sojourn>,
    /// A capacity trace, and where the link's packets are in it.
    capacity: Option<(Arc<CapacityTrace>, Cursor)>,
    /// Packet delay variation after the propagation delay.
    jitter: Option<Jitter>,
}

/// A loss module, its random stream and the packets it took.
struct Loss {
    module: LossModule,
    rng: Rng,
    losses: u64,
}

/// What every link counts itself. The rest of its [`LinkStats`] follows from these and from
/// what is in its queue and on its wire (arrivals), or is counted by the few links that can
/// have it: RED counts its early drops and marks, a loss module its losses.
#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    departures: u64,
    /// Packets that reached the far end.
    exits: u64,
    tx_bytes: u64,
    forced_drops: u64,
    busy_ns: u64,
    queue_pkt_ns: Wide,
    queue_byte_ns: Wide,
}

/// A 128-bit sum kept as two 64-bit halves: a `u128` would align the whole link record to 16
/// bytes and pad it.
#[derive(Clone, Copy, Debug, Default)]
struct Wide([u64; 2]);

impl Wide {
    #[inline]
    fn get(self) -> u128 {
        (self.0[1] as u128) << 64 | self.0[0] as u128
    }

    #[inline]
    fn add(&mut self, x: u128) {
        let sum = self.get() + x;
        self.0 = [sum as u64, (sum >> 64) as u64];
    }
}

impl Link {
    /// Brings the queue-length integrals up to `now`.
    #[inline]
    fn account_queue(&mut self, now: SimTime) {
        if !self.queue.is_empty() {
            let dt = (now - self.queue_since).ns() as u128;
            self.stats.queue_pkt_ns.add(self.queue.len() as u128 * dt);
            self.stats
                .queue_byte_ns
                .add(self.queue.bytes() as u128 * dt);
        }
        self.queue_since = now;
    }

    /// Packet `k`, on the wire, leaves it at `done`, and the next waiting packet, if any,
    /// starts serializing then. Whether the loss module took it: a lost packet keeps its place
    /// in the chain, which runs in order, until it would have reached the far end.
    #[inline(always)]
    fn leave_wire(&mut self, store: &mut Store, k: u32, done: SimTime) -> bool {
        self.stats.departures += 1;
        self.stats.tx_bytes += store.size_bytes(k) as u64;
        self.stats.busy_ns += (done - self.started).ns();
        self.account_queue(done);
        match self.packets.after(store, k) {
            Some(next) => {
                self.queue.pop(store.size_bytes(next));
                self.on_wire = MaybeSlot::some(next);
                self.started = done;
            }
            None => {
                self.queue.idle(done);
                self.on_wire = MaybeSlot::NONE;
            }
        }
        let Some(loss) = self.extras.as_deref_mut().and_then(|e| e.loss.as_mut()) else {
            return false;
        };
        let lost = loss.module.lose(done, &mut loss.rng);
        loss.losses += lost as u64;
        if lost {
            store.set_lost(k);
        }
        lost
    }

    /// A new capacity; the serialization cache starts over, as a new link's does (0 bytes take
    /// no time at any rate).
    fn set_rate(&mut self, rate_bps: u64) {
        self.rate_bps = rate_bps;
        self.serialized_bytes = 0;
        self.serialization = SimTime::ZERO;
        self.queue.set_rate(rate_bps);
    }

    /// When a packet of `size_bytes` that starts serializing at `start` leaves the wire: at
    /// the link's current rate, or as its capacity trace carries it. The few links that follow
    /// a trace take a call of their own, so that every packet of the others is served inline.
    #[inline(always)]
    fn finish(&mut self, start: SimTime, size_bytes: u32) -> SimTime {
        match self.extras.as_deref_mut().and_then(|e| e.capacity.as_mut()) {
            Some((trace, cursor)) => finish_traced(trace, cursor, start, size_bytes),
            None => start + self.serialization_time(size_bytes),
        }
    }

    /// How long a packet of `size_bytes` takes to serialize at the link's current rate.
    #[inline]
    fn serialization_time(&mut self, size_bytes: u32) -> SimTime {
        if self.serialized_bytes != size_bytes {
            self.serialized_bytes = size_bytes;
            self.serialization = serialization_time(size_bytes, self.rate_bps);
        }
        self.serialization
    }

    /// The capacity a report gives: the rate at the end, or for a link that follows a trace
    /// its mean over the measurement window [`from`, `to`] (at least 1 b/s, as every link's).
    fn reported_rate(&self, from: SimTime, to: SimTime) -> u64 {
        match self.extras.as_deref().and_then(|e| e.capacity.as_ref()) {
            Some((trace, _)) if to > from => (trace.mean(from.ns(), to.ns()).round() as u64).max(1),
            Some((trace, _)) => trace.rate_at(to.ns()).max(1),
            None => self.rate_bps,
        }
    }

    /// Packets lost to the loss module so far.
    fn losses(&self) -> u64 {
        let loss = self.extras.as_deref().and_then(|e| e.loss.as_ref());
        loss.map_or(0, |l| l.losses)
    }

    /// The record of sojourn times, on a link a run reports.
    #[inline]
    fn sojourn(&mut self) -> Option<&mut Sojourn> {
        self.extras.as_deref_mut()?.sojourn.as_mut()
    }

    /// Packets propagating: every packet that left the wire was lost, or propagates, or reached
    /// the far end.
    fn propagating(&self) -> u64 {
        self.stats.departures - self.losses() - self.stats.exits
    }

    /// The counters as they stand at `now`, the link brought up to it: busy time including the
    /// part of the current serialization done, queue integrals brought up to `now`.
    fn stats_at(&self, now: SimTime) -> LinkStats {
        let c = &self.stats;
        let (early_drops, marks) = self.queue.counts();
        let losses = self.losses();
        let on_wire = self.on_wire.is_some();
        let dt = (now - self.queue_since).ns() as u128;
        LinkStats {
            // Every packet offered was dropped by the queue, or waits, or is on the wire, or left.
            arrivals: c.forced_drops
                + early_drops
                + self.queue.len() as u64
                + on_wire as u64
                + c.departures,
            departures: c.departures,
            tx_bytes: c.tx_bytes,
            forced_drops: c.forced_drops,
            early_drops,
            marks,
            losses,
            exits: c.exits,
            busy_ns: c.busy_ns
                + if on_wire {
                    (now - self.started).ns()
                } else {
                    0
                },
            queue_pkt_ns: c.queue_pkt_ns.get() + self.queue.len() as u128 * dt,
            queue_byte_ns: c.queue_byte_ns.get() + self.queue.bytes() as u128 * dt,
            max_queue_pkts: self.max_queue_pkts.into(),
        }
    }
}

/// [`Link::finish`] on a link that follows capacity trace `trace`, its packets at `cursor`.
#[inline(never)]
fn finish_traced(
    trace: &CapacityTrace,
    cursor: &mut Cursor,
    start: SimTime,
    size_bytes: u32,
) -> SimTime {
    SimTime(trace.finish_from(cursor, start.ns(), size_bytes))
}

/// A flow's packet delivered in one direction, and what the packet its end sends back at once
/// (an ACK for data, data for an ACK) moves: one cache line, which with thousands of flows is
/// out of cache when the packet arrives.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
struct Turn {
    /// [`DirStats`] of the direction delivered.
    delivered_pkts: u64,
    delivered_bytes: u64,
    delay_sum_ns: u64,
    marked: u64,
    /// [`DirStats`] of the other direction.
    sent_pkts: u64,
    sent_bytes: u64,
    /// Where the other direction's path starts in `Core::hops`.
    path: u32,
    /// Whether the flow's packets are ECN-capable (read when the sender sends, so kept in the
    /// turn of a delivered ACK; the other turn's copy is not read).
    ecn: bool,
}

/// A flow's counters and times, laid out in cache lines ([`Turn`]). Their vector is made at
/// its size and never reallocated: Rust's allocator hands glibc's `realloc` alignments of up to
/// 16 bytes only, and copies a 64-byte-aligned vector, old and new block held at once.
#[repr(C, align(64))]
struct FlowRt {
    /// Deliveries forward (with the reverse sends), then reverse (with the forward sends). The
    /// forward path runs to the [`PATH_END`] just before the reverse one.
    turns: [Turn; 2],
    queue_drops: [u64; 2],
    link_losses: [u64; 2],
    start: SimTime,
    /// When the flow stops, if it does.
    stop: OptTime,
}

impl FlowRt {
    /// The turn holding direction `dir`'s sends.
    #[inline]
    fn sends(&mut self, dir: Dir) -> &mut Turn {
        &mut self.turns[1 - dir.index()]
    }

    fn stats(&self) -> FlowStats {
        let dir = |d: usize| {
            let (got, sent) = (&self.turns[d], &self.turns[1 - d]);
            DirStats {
                sent_pkts: sent.sent_pkts,
                sent_bytes: sent.sent_bytes,
                delivered_pkts: got.delivered_pkts,
                delivered_bytes: got.delivered_bytes,
                queue_drops: self.queue_drops[d],
                link_losses: self.link_losses[d],
                marked: got.marked,
                delay_sum_ns: got.delay_sum_ns,
            }
        };
        FlowStats {
            dir: [dir(0), dir(1)],
        }
    }
}

/// Everything but the endpoints, so that an endpoint callback can borrow it mutably.
struct Core {
    now: SimTime,
    /// Pending events by time; equal times in the order they were scheduled.
    queue: EventQueue<Kind>,
    links: Vec<Link>,
    /// Every packet on a link, waiting, on the wire or propagating: links hold slots, so a
    /// packet is not copied from link to link.
    stored: Store,
    flows: Vec<FlowRt>,
    /// Every flow's paths (links in order), one after another, each followed by [`PATH_END`]:
    /// one allocation, not two a flow. A packet keeps its place in it ([`Packet::hop`]), so a
    /// hop reads no flow record.
    hops: Vec<u32>,
    /// Every flow's timer slots ([`timer_index`]).
    timers: Vec<TimerSlot>,
    /// Where a queue that keeps its packets puts those it drops (kept to allocate once).
    dropped: Vec<u32>,
    /// The measurement window, [warm-up, end]: a packet's wait counts in its link's sojourn
    /// times if its serialization starts within it. A FIFO link knows the start on arrival, a
    /// queue that keeps its packets when it lets the packet go; both count the same packets
    /// (but for a run stopped early, where a FIFO link has counted the packets still waiting
    /// that would have started by the planned end).
    window: [SimTime; 2],
    /// The endpoints' own random streams, sender then receiver of each flow; made when one first
    /// draws (TCP's bulk flows never do, and at thousands of flows they are 32 bytes a flow).
    endpoint_rngs: Vec<Rng>,
    seed: u64,
    trace: Option<Trace>,
    /// The links whose packets are captured ([`crate::net::pcap`]).
    pcap: Option<Box<PcapWriter>>,
    events: u64,
}

impl Core {
    /// The links of flow `flow`'s forward path.
    fn forward_path(&self, flow: &FlowRt) -> &[u32] {
        &self.hops[flow.turns[1].path as usize..flow.turns[0].path as usize - 1]
    }

    #[inline]
    fn schedule(&mut self, at: SimTime, kind: Kind) {
        self.queue.push(at.ns(), kind);
    }

    /// Endpoint `ep`'s random stream (of [`stream`]'s `Source` or `Sink` kind, numbered by flow).
    fn endpoint_rng(&mut self, ep: usize) -> &mut Rng {
        if self.endpoint_rngs.is_empty() {
            let seed = self.seed;
            let of = |ep: usize| {
                stream(
                    seed,
                    if ep.is_multiple_of(2) {
                        Stream::Source
                    } else {
                        Stream::Sink
                    },
                    (ep / 2) as u64,
                )
            };
            self.endpoint_rngs = (0..2 * self.flows.len()).map(of).collect();
        }
        &mut self.endpoint_rngs[ep]
    }

    fn set_timer(&mut self, ep: usize, slot: usize, at: SimTime) {
        let t = &mut self.timers[timer_index(ep, slot)];
        t.deadline = at;
        t.armed = true;
        if !t.live || at < t.scheduled {
            t.gen = t.gen.wrapping_add(1);
            t.scheduled = at;
            t.live = true;
            let gen = t.gen;
            self.schedule(
                at,
                Kind::Timer {
                    ep: ep as u32,
                    slot: slot as u8,
                    gen,
                },
            );
        }
    }

    /// Whether a timer event is due now; re-arms it when its deadline moved later.
    fn timer_due(&mut self, ep: usize, slot: usize, gen: u32) -> bool {
        let now = self.now;
        let t = &mut self.timers[timer_index(ep, slot)];
        if t.gen != gen {
            return false;
        }
        t.live = false;
        if !t.armed {
            return false;
        }
        if t.deadline <= now {
            t.armed = false;
            return true;
        }
        let d = t.deadline;
        self.set_timer(ep, slot, d);
        false
    }

    fn inject(&mut self, pkt: Packet) {
        let s = self.flows[pkt.flow as usize].sends(pkt.dir);
        s.sent_pkts += 1;
        s.sent_bytes += pkt.size_bytes as u64;
        let first = s.path;
        if pkt.dir == Dir::Forward {
            if let Some(b) = self
                .trace
                .as_mut()
                .and_then(|t| t.flow_bin(self.now, pkt.flow))
            {
                b.sent_pkts += 1;
                b.sent_bytes += pkt.size_bytes as u64;
            }
        }
        let link = self.hops[first as usize];
        let slot = self.stored.insert(Packet { hop: first, ..pkt });
        self.offer(link, slot);
    }

    /// Counts a packet of `flow` going `dir` that link `link` dropped or lost at `at`.
    fn record_drop(&mut self, link: u32, flow: u32, dir: Dir, kind: EventKind, at: SimTime) {
        let f = &mut self.flows[flow as usize];
        if kind == EventKind::Loss {
            f.link_losses[dir.index()] += 1;
        } else {
            f.queue_drops[dir.index()] += 1;
        }
        if let Some(t) = &mut self.trace {
            t.event(at, link, flow, kind);
            if dir == Dir::Forward {
                if let Some(b) = t.flow_bin(at, flow) {
                    b.lost_pkts += 1;
                }
            }
            if let Some(b) = t.link_queue_bin(at, link) {
                b.drops += 1;
            }
        }
    }

    /// Brings link `link` up to `now`: each packet that finishes serializing by then leaves
    /// the wire at its time, and the next waiting packet starts at that time.
    #[inline(always)]
    fn advance(&mut self, link: u32, now: SimTime) {
        // Most looks find the link idle or its packet still on the wire.
        if let Some(k) = self.links[link as usize].on_wire.get() {
            if self.stored.done(k) <= now {
                self.leave_wires(link, now);
            }
        }
    }

    /// [`Core::advance`] once a packet is due to leave the wire.
    #[inline(always)]
    fn leave_wires(&mut self, link: u32, now: SimTime) {
        loop {
            let l = &mut self.links[link as usize];
            let Some(k) = l.on_wire.get() else { return };
            let done = self.stored.done(k);
            if done > now {
                return;
            }
            let lost = l.leave_wire(&mut self.stored, k, done);
            let kept = l.queue.keeps_packets();
            if lost || self.trace.is_some() {
                self.record_departure(link, k, done, lost);
            }
            if kept {
                self.serve(link, done);
            }
        }
    }

    /// What the flow and the traces count of packet `k` leaving link `link`'s wire at `done`,
    /// lost or not.
    fn record_departure(&mut self, link: u32, k: u32, done: SimTime, lost: bool) {
        let size_bytes = self.stored.size_bytes(k);
        if let Some(b) = self
            .trace
            .as_mut()
            .and_then(|t| t.link_queue_bin(done, link))
        {
            b.departures += 1;
            b.tx_bytes += size_bytes as u64;
        }
        if lost {
            let (flow, dir) = (self.stored.flow(k), self.stored.dir(k));
            self.record_drop(link, flow, dir, EventKind::Loss, done);
        }
    }

    /// The packet in store slot `slot` arrives at a link's queue.
    #[inline(always)]
    fn offer(&mut self, link: u32, slot: u32) {
        let now = self.now;
        self.advance(link, now);
        if self.links[link as usize].queue.keeps_packets() {
            return self.offer_kept(link, slot);
        }
        let l = &mut self.links[link as usize];
        l.account_queue(now);
        let (flow, size_bytes) = (self.stored.flow(slot), self.stored.size_bytes(slot));
        let admit = l
            .queue
            .admit(size_bytes, self.stored.ecn_capable(slot), now);
        match admit {
            Admit::Queued => {}
            Admit::Marked => {
                self.stored.mark(slot);
                if let Some(t) = &mut self.trace {
                    t.event(now, link, flow, EventKind::Mark);
                    if let Some(b) = t.link_queue_bin(now, link) {
                        b.marks += 1;
                    }
                }
            }
            Admit::DroppedForced | Admit::DroppedEarly => {
                let kind = if admit == Admit::DroppedForced {
                    l.stats.forced_drops += 1;
                    EventKind::ForcedDrop
                } else {
                    EventKind::EarlyDrop
                };
                let dir = self.stored.dir(slot);
                self.stored.remove(slot);
                self.record_drop(link, flow, dir, kind, now);
                return;
            }
        }
        // The link is free when the last packet on it leaves the wire, or now if it is idle.
        let start = if l.on_wire.is_some() {
            l.queue.push(size_bytes);
            l.max_queue_pkts = l.max_queue_pkts.max(l.queue.len() as u32);
            let last = l
                .packets
                .back()
                .expect("a busy link holds its packet on the wire");
            self.stored.done(last)
        } else {
            // An idle link's queue is empty: the packet passes through it at once.
            l.max_queue_pkts = l.max_queue_pkts.max(1);
            l.on_wire = MaybeSlot::some(slot);
            l.started = now;
            now
        };
        if let Some(s) = l.sojourn() {
            if (self.window[0]..=self.window[1]).contains(&start) {
                s.record((start - now).ns());
            }
        }
        let done = l.finish(start, size_bytes);
        let (head, arrival) = (l.packets.is_empty(), done + l.delay);
        self.stored.set_done(slot, done);
        l.packets.push_back(&mut self.stored, slot);
        // Packets reach the far end in order: only the link's head needs a pending event.
        if head {
            self.schedule(arrival, Kind::Arrive(link));
        }
    }

    /// Counts a mark link `link`'s queue set on a packet of `flow` at `at`, in the traces.
    fn record_mark(&mut self, link: u32, flow: u32, at: SimTime) {
        if let Some(t) = &mut self.trace {
            t.event(at, link, flow, EventKind::Mark);
            if let Some(b) = t.link_queue_bin(at, link) {
                b.marks += 1;
            }
        }
    }

    /// Frees the packet in `slot`, which link `link`'s queue dropped at `at`, and counts it.
    fn drop_packet(&mut self, link: u32, slot: u32, kind: EventKind, at: SimTime) {
        let (flow, dir) = (self.stored.flow(slot), self.stored.dir(slot));
        self.stored.remove(slot);
        if kind == EventKind::ForcedDrop {
            self.links[link as usize].stats.forced_drops += 1;
        }
        self.record_drop(link, flow, dir, kind, at);
    }

    /// Frees and counts the packets link `link`'s queue dropped at `at` (in `self.dropped`), in
    /// the order it dropped them.
    fn drop_dropped(&mut self, link: u32, kind: EventKind, at: SimTime) {
        let mut dropped = std::mem::take(&mut self.dropped);
        for &k in &dropped {
            self.drop_packet(link, k, kind, at);
        }
        dropped.clear();
        self.dropped = dropped;
    }

    /// [`Core::offer`] to a queue that keeps its packets: it takes the packet (perhaps dropping
    /// others to make room), and gives an idle wire its next packet at once.
    fn offer_kept(&mut self, link: u32, slot: u32) {
        let now = self.now;
        let flow = self.stored.flow(slot);
        let l = &mut self.links[link as usize];
        l.account_queue(now);
        let admit = l
            .queue
            .enqueue(&mut self.stored, slot, now, &mut self.dropped);
        l.max_queue_pkts = l.max_queue_pkts.max(l.queue.len() as u32);
        match admit {
            Admit::Queued => {}
            Admit::Marked => {
                self.stored.mark(slot);
                self.record_mark(link, flow, now);
            }
            Admit::DroppedForced => self.drop_packet(link, slot, EventKind::ForcedDrop, now),
            Admit::DroppedEarly => self.drop_packet(link, slot, EventKind::EarlyDrop, now),
        }
        if !self.dropped.is_empty() {
            self.drop_dropped(link, EventKind::ForcedDrop, now);
        }
        if self.links[link as usize].on_wire == MaybeSlot::NONE {
            self.serve(link, now);
        }
    }

    /// Link `link`'s wire is free at `at` (it fell free then, or a packet arrived to find it
    /// idle): its queue, one that keeps its packets, gives it the next packet, which starts
    /// serializing then. What the queue drops on the way are its early drops.
    fn serve(&mut self, link: u32, at: SimTime) {
        let l = &mut self.links[link as usize];
        debug_assert!(l.on_wire == MaybeSlot::NONE, "the wire is busy");
        let next = l.queue.dequeue(&mut self.stored, at, &mut self.dropped);
        if !self.dropped.is_empty() {
            self.drop_dropped(link, EventKind::EarlyDrop, at);
        }
        let Some((k, marked)) = next else {
            return;
        };
        if marked {
            self.record_mark(link, self.stored.flow(k), at);
        }
        let l = &mut self.links[link as usize];
        if let Some(s) = l.sojourn() {
            if (self.window[0]..=self.window[1]).contains(&at) {
                // The queue kept the packet's arrival time where its finish time now goes.
                s.record((at - self.stored.done(k)).ns());
            }
        }
        l.on_wire = MaybeSlot::some(k);
        l.started = at;
        let done = l.finish(at, self.stored.size_bytes(k));
        let (head, arrival) = (l.packets.is_empty(), done + l.delay);
        self.stored.set_done(k, done);
        l.packets.push_back(&mut self.stored, k);
        if head {
            self.schedule(arrival, Kind::Arrive(link));
        }
    }

    /// A new capacity for link `link` from now on: the packet on the wire finishes at the rate
    /// it started at, the waiting ones serialize at the new one.
    fn set_rate(&mut self, link: u32, rate_bps: u64) {
        self.advance(link, self.now);
        let l = &mut self.links[link as usize];
        l.set_rate(rate_bps);
        let Some(mut k) = l.on_wire.get() else {
            return;
        };
        let mut free = self.stored.done(k);
        while let Some(next) = l.packets.after(&self.stored, k) {
            free += l.serialization_time(self.stored.size_bytes(next));
            self.stored.set_done(next, free);
            k = next;
        }
    }

    /// The head of a link reaches the far end; returns it if it reached its endpoint. Schedules
    /// the arrival of the next packet on the link, if any.
    fn arrive(&mut self, link: u32) -> Option<Packet> {
        self.advance(link, self.now);
        // The tables as slices, whose bounds stay in registers while their elements change.
        let (links, hops) = (&mut self.links[..], &self.hops[..]);
        let stored = &mut self.stored;
        let l = &mut links[link as usize];
        let slot = l.packets.pop_front(stored)?;
        debug_assert_eq!(stored.done(slot) + l.delay, self.now);
        debug_assert!(
            l.on_wire != MaybeSlot::some(slot),
            "arrived before it was sent"
        );
        if let Some(next) = l.packets.front() {
            // It has left the wire or is on it (it started by the time this one left it):
            // its time is final.
            let next_at = stored.done(next) + l.delay;
            self.queue.push(next_at.ns(), Kind::Arrive(link));
            // Many events run before the next packet arrives: what it will need then (its
            // payload if it leaves the network there, else the next link's record) is fetched
            // into cache now, which with thousands of flows would otherwise miss.
            match hops[stored.hop(next) as usize + 1] {
                PATH_END => stored.prefetch_payload(next),
                then => prefetch(&links[then as usize]),
            }
        }
        if stored.lost(slot) {
            stored.remove(slot);
            return None;
        }
        let l = &mut links[link as usize];
        l.stats.exits += 1;
        if let Some(p) = &mut self.pcap {
            p.arrive(link, self.now, &stored.packet(slot));
        }
        if let Some(j) = l.extras.as_deref_mut().and_then(|e| e.jitter.as_mut()) {
            let serial = serialization_time(stored.size_bytes(slot), l.rate_bps);
            let at = j.release(stored.flow(slot), self.now, serial);
            self.queue.push(at.ns(), Kind::Jittered(slot));
            return None;
        }
        self.onward(slot)
    }

    /// Packet `slot`, at the far end of its link, goes on to its next link, or, at the end of
    /// its path, is delivered: returned.
    fn onward(&mut self, slot: u32) -> Option<Packet> {
        let (hops, stored) = (&self.hops[..], &mut self.stored);
        // The packet keeps its store slot from hop to hop.
        let hop = stored.hop(slot) + 1;
        let next_link = hops[hop as usize];
        if next_link != PATH_END {
            self.stored.set_hop(slot, hop);
            self.offer(next_link, slot);
            return None;
        }
        let pkt = self.stored.remove(slot);
        let now = self.now;
        let s = &mut self.flows[pkt.flow as usize].turns[pkt.dir.index()];
        s.delivered_pkts += 1;
        s.delivered_bytes += pkt.size_bytes as u64;
        s.delay_sum_ns += (now - pkt.sent_at).ns();
        if pkt.ecn.congestion {
            s.marked += 1;
        }
        if pkt.dir == Dir::Forward {
            if let Some(t) = self.trace.as_mut() {
                t.delay(now, pkt.flow, now - pkt.sent_at);
                if let Some(b) = t.flow_bin(now, pkt.flow) {
                    b.delivered_pkts += 1;
                    b.delivered_bytes += pkt.size_bytes as u64;
                }
            }
        }
        Some(pkt)
    }

    /// Brings every link up to `now`.
    fn advance_all(&mut self, now: SimTime) {
        for link in 0..self.links.len() as u32 {
            self.advance(link, now);
        }
    }

    fn sample_queues(&mut self, at_bin_end: SimTime) {
        let Some(t) = &self.trace else { return };
        if t.queues.is_empty() || at_bin_end.ns() == 0 {
            return;
        }
        let links = t.links.clone();
        for &link in &links {
            self.advance(link, at_bin_end);
        }
        let Some(t) = &mut self.trace else { return };
        let bin_time = SimTime(at_bin_end.ns() - 1);
        for (k, &link) in links.iter().enumerate() {
            let l = &self.links[link as usize];
            if let Some(b) = t.queue_bin(bin_time, k) {
                b.queue_pkts = l.queue.len() as u64;
                b.queue_bytes = l.queue.bytes();
            }
        }
    }
}

/// Summary of one flow over the measurement window.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowReport {
    pub label: String,
    /// The sender's and the receiver's own summary numbers.
    pub sender: Vec<(&'static str, f64)>,
    pub receiver: Vec<(&'static str, f64)>,
    /// The receiver's series ([`Endpoint::series`]).
    pub series: Vec<(&'static str, Vec<f64>)>,
    pub stats: FlowStats,
    /// Packets of this flow in queues, on wires or propagating at the end of the run.
    pub in_flight: u64,
    /// Links of the forward path.
    pub path: Vec<u32>,
}

/// Summary of one link over the measurement window.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkReport {
    pub name: Name,
    pub from: Name,
    pub to: Name,
    pub monitor: bool,
    /// Capacity at the end of the run (bits/s); of a link that follows a capacity trace, its
    /// mean over the measurement window.
    pub rate_bps: u64,
    pub delay: SimTime,
    pub stats: LinkStats,
    /// Packets waiting, on the wire, and propagating at the end of the run.
    pub in_queue: u64,
    pub on_wire: u64,
    pub in_pipe: u64,
    /// (min_th, max_th, max_p, w_q) for RED queues, as resolved (boxed: most links have none,
    /// and with many flows the reports of all links are a run's largest allocation).
    pub red: Option<Box<(f64, f64, f64, f64)>>,
    /// The sojourn times of the packets it served over the measurement window, on the links a
    /// run reports (monitored) that served any.
    pub sojourn: Option<Box<SojournSummary>>,
}

/// What a run produces.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    pub seed: u64,
    pub duration: SimTime,
    pub warmup: SimTime,
    /// Events processed over the whole run.
    pub events: u64,
    pub flows: Vec<FlowReport>,
    pub links: Vec<LinkReport>,
    pub trace: Option<Trace>,
    /// The capture files written ([`crate::net::pcap`]), or the first write that failed.
    pub pcap: std::result::Result<Vec<PcapFile>, String>,
    /// A real-time run's sockets, each by its role, and the datagrams lost at it over the whole
    /// run: outside the emulated network, which counts no such loss
    /// ([`crate::realnet`]; empty for the simulated engines).
    pub socket_drops: Vec<(&'static str, u64)>,
}

/// A ready-to-run simulation.
pub struct Simulation {
    core: Core,
    endpoints: Vec<Box<dyn Endpoint>>,
    /// Node and link names for the report (the rest of the topology is not kept once links and
    /// paths are built: it would cost memory per flow).
    names: Names,
    /// The links reported as monitored, in order (a few a topology).
    monitored: Vec<u32>,
    end: SimTime,
    warmup: SimTime,
    baseline: Option<Baseline>,
}

/// Everything counted up to the end of the warm-up.
#[derive(Clone)]
struct Baseline {
    flows: Vec<FlowStats>,
    links: Vec<LinkStats>,
    endpoints: Vec<WindowStart>,
}

impl Simulation {
    /// Builds a simulation; `make_endpoints` supplies each flow's (sender, receiver), from
    /// whatever its source `S` is.
    pub fn new<S>(
        scenario: &Scenario<S>,
        mut make_endpoints: impl FnMut(usize) -> Result<(Box<dyn Endpoint>, Box<dyn Endpoint>)>,
    ) -> Result<Simulation> {
        let network = Network::build(&scenario.topology, &scenario.flows);
        let seed = scenario.seed;
        let end = SimTime(scenario.duration_ns);
        let monitored: Vec<u32> = (0..network.links.len() as u32)
            .filter(|&k| network.links[k as usize].monitor)
            .collect();
        let spec = &scenario.trace;
        let trace = (spec.flows || spec.queues || spec.events || spec.state || spec.delays)
            .then(|| Trace::new(spec, end, scenario.flows.len(), monitored.clone()));
        let sampled = trace
            .as_ref()
            .is_some_and(|t| !t.queues.is_empty() || !t.flows.is_empty());
        let links = network
            .links
            .iter()
            .enumerate()
            .map(|(k, d)| (k, d, &network.params[d.params as usize]))
            .map(|(k, d, p)| Link {
                rate_bps: p.rate_bps,
                delay: SimTime(d.delay_ns),
                queue: Queue::new(
                    &p.queue,
                    p.rate_bps,
                    SimTime(d.delay_ns),
                    stream(seed, Stream::Queue, k as u64),
                ),
                extras: {
                    let loss = p.loss.clone().map(|spec| Loss {
                        module: LossModule::new(spec),
                        rng: stream(seed, Stream::LinkLoss, k as u64),
                        losses: 0,
                    });
                    let sojourn = d.monitor.then(Sojourn::default);
                    let capacity = (p.capacity_trace.clone()).map(|t| (t, Cursor::default()));
                    let jitter = p.jitter.clone().map(|spec| {
                        let rng = stream(seed, Stream::Jitter, k as u64);
                        Jitter::new(spec, rng, scenario.flows.len())
                    });
                    let any = loss.is_some() || sojourn.is_some() || capacity.is_some();
                    (any || jitter.is_some()).then(|| {
                        Box::new(Extras {
                            loss,
                            sojourn,
                            capacity,
                            jitter,
                        })
                    })
                },
                on_wire: MaybeSlot::NONE,
                started: SimTime::ZERO,
                serialized_bytes: 0,
                serialization: SimTime::ZERO,
                packets: Fifo::default(),
                stats: Counters::default(),
                max_queue_pkts: 0,
                queue_since: SimTime::ZERO,
            })
            .collect();
        let mut flows = Vec::with_capacity(scenario.flows.len());
        let mut endpoints = Vec::with_capacity(2 * scenario.flows.len());
        let mut routes = Routes::new(&network);
        let mut hops = Vec::new();
        for (i, f) in scenario.flows.iter().enumerate() {
            let (s, d) = network.ends[i];
            let mut route = |a: usize, b: usize| {
                routes.route(a, b).ok_or_else(|| Error::NoRoute {
                    flow: i,
                    from: network.nodes[a].to_string(),
                    to: network.nodes[b].to_string(),
                })
            };
            let (fwd, rev) = (route(s, d)?, route(d, s)?);
            let first = hops.len();
            let turn = first + fwd.len() + 1;
            let paths = [first as u32, turn as u32];
            hops.extend(
                fwd.into_iter()
                    .chain([PATH_END])
                    .chain(rev)
                    .chain([PATH_END]),
            );
            if hops.len() >= PATH_END as usize {
                return Err(Error::invalid(
                    format!("flows[{i}]"),
                    "path",
                    "fewer than 2^32 - 1 hops over all flows' paths",
                ));
            }
            let mut start_rng = stream(seed, Stream::FlowStart, i as u64);
            let jitter = if f.start_jitter_ns > 0 {
                start_rng.gen_range(0..=f.start_jitter_ns)
            } else {
                0
            };
            let start = f.start_ns.saturating_add(jitter);
            // An exponential lifetime: −mean · ln(1 − U), 1 − U in (0, 1].
            let died = f.lifetime_ns.map(|mean| {
                start.saturating_add(
                    ((-(mean as f64) * (1.0 - start_rng.gen::<f64>()).ln()) as u64).max(1),
                )
            });
            let stop = match (f.stop_ns, died) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            // Each turn holds the other direction's path.
            let sends = |path| Turn {
                path,
                ecn: f.ecn,
                ..Turn::default()
            };
            flows.push(FlowRt {
                turns: [sends(paths[1]), sends(paths[0])],
                queue_drops: [0; 2],
                link_losses: [0; 2],
                start: SimTime(start),
                stop: stop.map_or(OptTime::NONE, |t| OptTime::some(SimTime(t))),
            });
            let (snd, rcv) = make_endpoints(i)?;
            endpoints.push(snd);
            endpoints.push(rcv);
        }
        // The graph's link records go before the run's state is allocated: of them the run
        // keeps the names and the capacity changes.
        drop(routes);
        // The table of path links grew by doubling: give back what it does not hold.
        hops.shrink_to_fit();
        let changes: Vec<(u32, CapacityChange)> = network
            .links
            .iter()
            .enumerate()
            .flat_map(|(k, d)| {
                network.params[d.params as usize]
                    .capacity_changes
                    .iter()
                    .map(move |&c| (k as u32, c))
            })
            .collect();
        let pcap = match &spec.pcap {
            Some(p) => PcapWriter::open(p, &network.links)?.map(Box::new),
            None => None,
        };
        let names = network.into_names();
        let mut core = Core {
            now: SimTime::ZERO,
            queue: EventQueue::new(),
            links,
            stored: Store::default(),
            timers: vec![TimerSlot::default(); endpoints.len() / 2 * FLOW_TIMERS],
            dropped: Vec::new(),
            window: [SimTime(scenario.warmup_ns), end],
            endpoint_rngs: Vec::new(),
            seed,
            flows,
            hops,
            trace,
            pcap,
            events: 0,
        };
        for i in 0..core.flows.len() {
            let f = &core.flows[i];
            let (start, stop) = (f.start, f.stop);
            core.schedule(start, Kind::Start(i as u32));
            if let Some(stop) = stop.get() {
                core.schedule(stop, Kind::Stop(i as u32));
            }
        }
        for (link, c) in changes {
            core.schedule(
                SimTime(c.at_ns),
                Kind::Capacity {
                    link,
                    rate_bps: c.rate_bps,
                },
            );
        }
        let warmup = SimTime(scenario.warmup_ns);
        if warmup > SimTime::ZERO {
            core.schedule(warmup, Kind::Warmup);
        }
        if sampled {
            let iv = core.trace.as_ref().map_or(end, |t| t.interval);
            core.schedule(iv, Kind::Sample);
        }
        Ok(Simulation {
            core,
            endpoints,
            names,
            monitored,
            end,
            warmup,
            baseline: None,
        })
    }

    fn callback(&mut self, ep: usize, f: impl FnOnce(&mut dyn Endpoint, &mut Ctx)) {
        let side = if ep.is_multiple_of(2) {
            Side::Sender
        } else {
            Side::Receiver
        };
        let mut ctx = Ctx {
            now: self.core.now,
            io: Io::Sim(&mut self.core),
            flow: (ep / 2) as u32,
            side,
        };
        f(self.endpoints[ep].as_mut(), &mut ctx);
        if let Some(log) = self.core.trace.as_mut().and_then(|t| t.state.as_mut()) {
            let endpoint = &self.endpoints[ep];
            log.record(self.core.now, ep, |out| endpoint.state(out));
        }
    }

    /// End of a trace bin at `at_bin_end`: queue lengths and the senders' probes.
    fn sample(&mut self, at_bin_end: SimTime) {
        self.core.sample_queues(at_bin_end);
        let Some(t) = &mut self.core.trace else {
            return;
        };
        if at_bin_end.ns() == 0 {
            return;
        }
        let bin_time = SimTime(at_bin_end.ns() - 1);
        for (i, ep) in self.endpoints.iter().step_by(2).enumerate() {
            if let Some(b) = t.flow_bin(bin_time, i as u32) {
                b.probe = ep.probe();
            }
        }
    }

    /// Everything counted up to now (every link brought up to it).
    fn snapshot(&self) -> Baseline {
        let now = self.core.now;
        Baseline {
            flows: self.core.flows.iter().map(FlowRt::stats).collect(),
            links: self.core.links.iter().map(|l| l.stats_at(now)).collect(),
            endpoints: self.endpoints.iter().map(|e| counts(e.stats())).collect(),
        }
    }

    /// Runs to the end and reports.
    pub fn run(mut self) -> RunResult {
        self.run_until(self.end);
        self.finish()
    }

    /// The simulated time the run ends at.
    pub fn end(&self) -> SimTime {
        self.end
    }

    /// The simulated time reached so far.
    pub fn now(&self) -> SimTime {
        self.core.now
    }

    /// Processes every event before `until` (at most the end of the run; an `until` before the
    /// time reached does nothing: time never goes back, and the event queue takes no event
    /// before the last it gave). Running in slices this way and then [`Simulation::finish`]
    /// gives exactly what [`Simulation::run`] gives.
    pub fn run_until(&mut self, until: SimTime) {
        let until = until.min(self.end).max(self.core.now);
        while let Some((at, kind)) = self.core.queue.pop_before(until.ns()) {
            let at = SimTime(at);
            self.core.now = at;
            self.core.events += 1;
            match kind {
                Kind::Arrive(link) | Kind::Jittered(link) => {
                    let pkt = match kind {
                        Kind::Arrive(_) => self.core.arrive(link),
                        _ => self.core.onward(link),
                    };
                    if let Some(pkt) = pkt {
                        let ep = endpoint_index(
                            pkt.flow,
                            if pkt.dir == Dir::Forward {
                                Side::Receiver
                            } else {
                                Side::Sender
                            },
                        );
                        self.callback(ep, |e, c| e.on_packet(c, &pkt));
                    }
                }
                Kind::Timer { ep, slot, gen } => {
                    if self.core.timer_due(ep as usize, slot as usize, gen) {
                        self.callback(ep as usize, |e, c| e.on_timer(c, slot as usize));
                    }
                }
                Kind::Start(flow) => {
                    self.callback(2 * flow as usize + 1, |e, c| e.start(c));
                    self.callback(2 * flow as usize, |e, c| e.start(c));
                }
                Kind::Stop(flow) => {
                    self.callback(2 * flow as usize, |e, c| e.stop(c));
                    self.callback(2 * flow as usize + 1, |e, c| e.stop(c));
                }
                Kind::Capacity { link, rate_bps } => self.core.set_rate(link, rate_bps),
                Kind::Sample => {
                    self.sample(at);
                    let iv = self.core.trace.as_ref().map_or(self.end, |t| t.interval);
                    self.core.schedule(at + iv, Kind::Sample);
                }
                Kind::Warmup => {
                    self.core.advance_all(at);
                    self.baseline = Some(self.snapshot());
                    // From here the largest queue is the measurement window's, as every other
                    // link number is.
                    for l in &mut self.core.links {
                        l.max_queue_pkts = l.queue.len() as u32;
                    }
                }
            }
        }
        self.core.now = until;
    }

    /// When the next event is due, if any: a driver on a real clock sleeps until then.
    pub fn next_event(&self) -> Option<SimTime> {
        self.core.queue.peek_time().map(SimTime)
    }

    /// Calls the endpoint at `side` of flow `flow` now, e.g. to have it send a packet that
    /// reached it from outside the simulation.
    pub fn call(&mut self, flow: u32, side: Side, f: impl FnOnce(&mut dyn Endpoint, &mut Ctx)) {
        self.callback(endpoint_index(flow, side), f);
    }

    /// Flow `flow`'s start and stop times, as this run drew them.
    pub fn flow_times(&self, flow: u32) -> (SimTime, Option<SimTime>) {
        let f = &self.core.flows[flow as usize];
        (f.start, f.stop.get())
    }

    /// Reports at the time reached. A run stopped early reports [warm-up, now), or
    /// [0, now) when it stopped before the warm-up ended.
    pub fn finish(mut self) -> RunResult {
        if self.core.now < self.end {
            self.end = self.core.now;
            if self.baseline.is_none() {
                self.warmup = SimTime::ZERO;
            }
        }
        self.sample(self.end);
        self.report()
    }

    /// The summary, one flow and one link at a time from the counters at the end and at the
    /// end of the warm-up; frees the endpoints and the links as soon as it has read them, so
    /// that reporting on many flows needs little more memory than running them.
    fn report(mut self) -> RunResult {
        let now = self.core.now;
        self.core.advance_all(now);
        let base = self.baseline.take();
        let mut in_flight = vec![0u64; self.core.flows.len()];
        for l in &self.core.links {
            let store = &self.core.stored;
            let waiting = l.queue.kept(store);
            for k in l
                .packets
                .iter(store)
                .chain(waiting)
                .filter(|&k| !store.lost(k))
            {
                in_flight[store.flow(k) as usize] += 1;
            }
        }

        // What the reports do not read goes before they are made.
        self.core.timers = Vec::new();
        self.core.queue = EventQueue::new();
        self.core.stored = Store::default();
        let stats = |ep: &dyn Endpoint, k: usize| {
            windowed(ep.stats(), base.as_ref().map(|b| &b.endpoints[k]))
        };
        // Each flow's endpoints are dropped once its report is made.
        let mut endpoints = std::mem::take(&mut self.endpoints).into_iter();
        let mut flows = Vec::with_capacity(self.core.flows.len());
        for (i, f) in std::mem::take(&mut self.core.flows).into_iter().enumerate() {
            let (Some(snd), Some(rcv)) = (endpoints.next(), endpoints.next()) else {
                break;
            };
            flows.push(FlowReport {
                label: snd.label(),
                sender: stats(snd.as_ref(), 2 * i),
                receiver: stats(rcv.as_ref(), 2 * i + 1),
                series: rcv.series(),
                stats: f.stats()
                    - base
                        .as_ref()
                        .map_or_else(FlowStats::default, |b| b.flows[i]),
                in_flight: in_flight[i],
                path: self.core.forward_path(&f).to_vec(),
            });
        }
        // A report is larger than a link's record: the records go as the reports are made, from
        // the last link back, their room given back each time an eighth of it has emptied (in
        // place, by glibc's `realloc`, which Rust's allocator calls for a record aligned to at
        // most 16 bytes; a more aligned one would be copied at each step, both copies held).
        let mut records = std::mem::take(&mut self.core.links);
        let mut links = Vec::with_capacity(records.len());
        while let Some(l) = records.pop() {
            let k = records.len();
            let (name, from, to) = self.names.link(k);
            links.push(LinkReport {
                name,
                from: self.names.node(from),
                to: self.names.node(to),
                monitor: self.monitored.binary_search(&(k as u32)).is_ok(),
                rate_bps: l.reported_rate(self.warmup, now),
                delay: l.delay,
                stats: l.stats_at(now)
                    - base
                        .as_ref()
                        .map_or_else(LinkStats::default, |b| b.links[k]),
                in_queue: l.queue.len() as u64,
                on_wire: l.on_wire.is_some() as u64,
                in_pipe: l.propagating(),
                red: l.queue.red().map(|r| Box::new(r.parameters())),
                sojourn: l
                    .extras
                    .as_ref()
                    .and_then(|e| e.sojourn.as_ref()?.summary())
                    .map(Box::new),
            });
            if k + k / 8 < records.capacity() {
                records.shrink_to_fit();
            }
        }
        links.reverse();
        RunResult {
            seed: self.core.seed,
            duration: self.end,
            warmup: self.warmup,
            events: self.core.events,
            flows,
            links,
            trace: self.core.trace.take().map(|mut t| {
                t.sort_events();
                t
            }),
            pcap: self.core.pcap.take().map_or(Ok(Vec::new()), |p| p.finish()),
            socket_drops: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_stay_small() {
        // The event queue moves events on every push and redistribution.
        assert_eq!(std::mem::size_of::<(u64, Kind)>(), 24);
    }

    #[test]
    fn a_wide_sum_carries_into_its_high_half() {
        let mut w = Wide::default();
        w.add(u64::MAX as u128);
        w.add(1);
        assert_eq!(w.get(), 1 << 64);
        w.add(3 << 64 | 5);
        assert_eq!(w.get(), 4 << 64 | 5);
    }

    #[test]
    fn per_flow_state_stays_small() {
        // Five timer slots per flow: at ten thousand flows every byte here is 50 kB.
        assert_eq!(std::mem::size_of::<TimerSlot>(), 24);
        // A flow's counters (128 bytes), times, and where its paths are among all hops, in
        // three cache lines: a packet's delivery, and the packet its end sends back at once,
        // read one of them.
        assert_eq!(std::mem::size_of::<Turn>(), 64);
        assert_eq!(std::mem::size_of::<FlowRt>(), 192);
        assert_eq!(std::mem::align_of::<FlowRt>(), 64);
        // Four links per flow on a dumbbell: a link's record holds no buffer, no random stream
        // it does not draw from, no trace slot (the trace finds its own), and no padding.
        assert!(
            std::mem::size_of::<Link>() <= 176,
            "{}",
            std::mem::size_of::<Link>()
        );
        // The report gives the records' room back as it goes, in place only up to this.
        assert!(std::mem::align_of::<Link>() <= 16);
        // Four link reports per flow too, made while the run's records are given back: a name
        // is a shared string or a flow's number, never a string of its own.
        assert_eq!(std::mem::size_of::<Name>(), 16);
        assert!(
            std::mem::size_of::<LinkReport>() <= 224,
            "{}",
            std::mem::size_of::<LinkReport>()
        );
    }
}
