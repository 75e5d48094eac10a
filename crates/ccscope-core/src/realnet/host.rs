//! The hosts: every flow's real sender and receiver (the same transport, controller and
//! application objects the packet engine runs), driven by the wall clock and UDP sockets.
//!
//! The senders run on one thread and the receivers on another ([`Hosts::new`] makes both
//! halves), each with a socket of its own, so that a run's endpoints use two cores: a sender
//! and its receiver share nothing but the emulated network between them. Each endpoint is
//! called as a sans-IO state machine through a [`HostIo`] context: the host sets the time,
//! hands it a datagram or a due timer, then puts what it sent on the socket and remembers its
//! timers. Between calls the host blocks on its socket until the earliest timer.

use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};

use super::batch::{Inbox, Outbox, BATCH};
use super::{io_error, real_time, receive_drops, wire, Clock, Waiter};
use crate::build::Endpoints;
use crate::error::Result;
use crate::net::packet::{Dir, Packet};
use crate::net::sim::{counts, windowed, WindowStart};
use crate::net::trace::{Probe, StateLog};
use crate::net::{Ctx, Endpoint, HostIo, Side};
use crate::rng::{stream, Stream};
use crate::time::SimTime;

/// One endpoint and its context.
struct Station {
    endpoint: Box<dyn Endpoint>,
    io: HostIo,
    /// How late, after the warm-up, its timers fired after their deadlines, in µs.
    timer_late_us: Vec<u32>,
    /// How late, after the warm-up, its packets arrived after the emulator had them due (the
    /// emulation's delay error: data at a receiver, ACKs and feedback at a sender), in µs.
    arrival_late_us: Vec<u32>,
    /// Bytes of datagrams handed to it after the warm-up (what the path achieved).
    rx_bytes: u64,
}

/// The quantile `q` of `samples` (µs) in ms; 0 without samples.
fn quantile_ms(samples: &mut [u32], q: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.sort_unstable();
    let k = ((samples.len() - 1) as f64 * q).round() as usize;
    samples[k] as f64 / 1e3
}

/// The median and the 99th percentile of `samples` (µs), in ms, under `names`.
pub(super) fn p50_and_p99(
    names: [&'static str; 2],
    samples: &mut [u32],
) -> [(&'static str, f64); 2] {
    [
        (names[0], quantile_ms(samples, 0.5)),
        (names[1], quantile_ms(samples, 0.99)),
    ]
}

/// How many µs `now` is after `due` (0 if not after).
pub(super) fn micros_late(now: SimTime, due: SimTime) -> u32 {
    (now.ns().saturating_sub(due.ns()) / 1000).min(u32::MAX as u64) as u32
}

/// What one half of the hosts reports per flow: its endpoint's label and numbers over
/// [warm-up, end), and its series.
pub struct HostReport {
    pub label: String,
    pub stats: Vec<(&'static str, f64)>,
    pub series: Vec<(&'static str, Vec<f64>)>,
}

/// What one half of the hosts measured: each flow's report, the senders' probes per trace bin
/// (the senders' half only), the control-state log when the trace asked for one, and the
/// datagrams lost at its socket over the whole run (dropped on the way in, refused on the way
/// out; `None` where the kernel does not count the first).
pub struct HostsOutcome {
    pub reports: Vec<HostReport>,
    pub probes: Vec<Vec<Probe>>,
    pub state: Option<StateLog>,
    pub socket_drops: Option<u64>,
}

/// One side's endpoints of every flow (the senders, or the receivers) on the wall clock, with
/// their timers, start and stop times, and what they measure.
pub struct Hosts {
    side: Side,
    /// Flow i's endpoint on this side at i.
    stations: Vec<Station>,
    /// Each flow's start and stop, and whether they have happened.
    times: Vec<(SimTime, Option<SimTime>)>,
    started: Vec<bool>,
    stopped: Vec<bool>,
    socket: UdpSocket,
    nonce: u32,
    buf: Vec<u8>,
    /// The datagrams the endpoints sent, sent to the emulator together.
    outbox: Outbox,
    inbox: Inbox,
    /// The trace's bin width when flow series are traced (senders only): the senders' probes
    /// are sampled at the end of every bin, as the packet engine samples them.
    sample_every: Option<SimTime>,
    /// The senders' probes at the end of each bin, bin by bin.
    probes: Vec<Vec<Probe>>,
    /// The endpoints' control state after every call, when the trace asks for it.
    state: Option<StateLog>,
}

impl Hosts {
    /// The hosts of `flows` (each flow's endpoints, ECN flag, start and stop): the senders'
    /// half on `sockets[0]` and the receivers' on `sockets[1]`, both sending to the emulator at
    /// `emulator`, with the random streams the packet engine would give the same endpoints
    /// under `seed`.
    pub fn new(
        flows: Vec<(Endpoints, bool, (SimTime, Option<SimTime>))>,
        seed: u64,
        sockets: [UdpSocket; 2],
        emulator: SocketAddr,
        nonce: u32,
    ) -> Result<[Hosts; 2]> {
        let n = flows.len();
        let (mut senders, mut receivers) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut times = Vec::with_capacity(n);
        for (i, ((snd, rcv), ecn, t)) in flows.into_iter().enumerate() {
            let station = |endpoint, kind| Station {
                endpoint,
                io: HostIo::new(ecn, stream(seed, kind, i as u64)),
                timer_late_us: Vec::new(),
                arrival_late_us: Vec::new(),
                rx_bytes: 0,
            };
            senders.push(station(snd, Stream::Source));
            receivers.push(station(rcv, Stream::Sink));
            times.push(t);
        }
        let [snd_socket, rcv_socket] = sockets;
        let half = |side, stations, socket| -> Result<Hosts> {
            Ok(Hosts {
                side,
                stations,
                times: times.clone(),
                started: vec![false; n],
                stopped: vec![false; n],
                socket,
                nonce,
                buf: Vec::new(),
                outbox: Outbox::new(emulator).map_err(io_error)?,
                inbox: Inbox::default(),
                sample_every: None,
                probes: Vec::new(),
                state: None,
            })
        };
        Ok([
            half(Side::Sender, senders, snd_socket)?,
            half(Side::Receiver, receivers, rcv_socket)?,
        ])
    }

    /// Records every endpoint's control state after each call (the trace's `state`).
    pub fn logging_state(mut self) -> Hosts {
        self.state = Some(StateLog::new(2 * self.stations.len()));
        self
    }

    /// Samples the senders' probes at the end of every `interval` (the trace's bins); the
    /// receivers' half has none to sample.
    pub fn sampling(mut self, interval: SimTime) -> Hosts {
        self.sample_every =
            (interval > SimTime::ZERO && self.side == Side::Sender).then_some(interval);
        self
    }

    /// Each sender's probe now, for the bin that ends now.
    fn sample(&mut self) {
        self.probes
            .push(self.stations.iter().map(|s| s.endpoint.probe()).collect());
    }

    /// When the current bin ends, if probes are sampled.
    fn next_sample(&self) -> Option<SimTime> {
        self.sample_every
            .map(|iv| SimTime(iv.ns() * (self.probes.len() as u64 + 1)))
    }

    /// Calls flow `i`'s endpoint at `now`, then queues what it sent ([`Hosts::send`] sends it).
    fn call(&mut self, i: usize, now: SimTime, f: impl FnOnce(&mut dyn Endpoint, &mut Ctx)) {
        let st = &mut self.stations[i];
        st.io.now = now;
        let mut ctx = Ctx::host(&mut st.io, i as u32, self.side);
        f(st.endpoint.as_mut(), &mut ctx);
        if let Some(log) = self.state.as_mut() {
            let endpoint = &st.endpoint;
            log.record(now, 2 * i + self.side as usize, |out| endpoint.state(out));
        }
        for pkt in st.io.sent.drain(..) {
            wire::encode(&pkt, self.nonce, &mut self.buf);
            self.outbox.push(&self.buf);
        }
    }

    /// Sends what the endpoints sent to the emulator. A full socket buffer loses packets
    /// before the bottleneck, as a real host's would; the emulator counts only what reaches
    /// it.
    fn send(&mut self) -> Result<()> {
        self.outbox.flush(self.socket.as_raw_fd()).map_err(io_error)
    }

    /// Starts, stops and fires the timers due by `now`; returns the earliest thing still ahead.
    /// Timer lateness is recorded when `measure`.
    fn due(&mut self, now: SimTime, measure: bool) -> Option<SimTime> {
        let mut next: Option<SimTime> = None;
        let mut ahead = |t: SimTime| next = Some(next.map_or(t, |n: SimTime| n.min(t)));
        for i in 0..self.times.len() {
            let (start, stop) = self.times[i];
            if !self.started[i] {
                if start <= now {
                    self.started[i] = true;
                    self.call(i, now, |e, c| e.start(c));
                } else {
                    ahead(start);
                }
            }
            if let Some(stop) = stop {
                if !self.stopped[i] && self.started[i] {
                    if stop <= now {
                        self.stopped[i] = true;
                        self.call(i, now, |e, c| e.stop(c));
                    } else {
                        ahead(stop);
                    }
                }
            }
        }
        for i in 0..self.stations.len() {
            for slot in 0..self.stations[i].io.timers.len() {
                match self.stations[i].io.timers[slot] {
                    Some(at) if at <= now => {
                        self.stations[i].io.timers[slot] = None;
                        if measure {
                            self.stations[i].timer_late_us.push(micros_late(now, at));
                        }
                        self.call(i, now, |e, c| e.on_timer(c, slot));
                    }
                    _ => {}
                }
            }
            for at in self.stations[i].io.timers.iter().flatten() {
                ahead(*at);
            }
        }
        next
    }

    /// Runs this half until `end` on `clock`, or until `stop` is set; counts are taken over
    /// [warmup, the time stopped).
    pub fn run(
        mut self,
        clock: &Clock,
        warmup: SimTime,
        end: SimTime,
        stop: &AtomicBool,
    ) -> Result<HostsOutcome> {
        real_time();
        self.socket.set_nonblocking(true).map_err(io_error)?;
        // The packets this half's endpoints receive: ACKs for the senders, data for the
        // receivers.
        let inward = match self.side {
            Side::Sender => Dir::Reverse,
            Side::Receiver => Dir::Forward,
        };
        let mut arrived: Vec<Packet> = Vec::with_capacity(64);
        let fd = self.socket.as_raw_fd();
        let mut waiter = Waiter::new([fd]);
        let mut baseline: Option<Vec<WindowStart>> = None;
        loop {
            let now = clock.now();
            if baseline.is_none() && now >= warmup {
                baseline = Some(
                    self.stations
                        .iter()
                        .map(|s| counts(s.endpoint.stats()))
                        .collect(),
                );
            }
            while self.next_sample().is_some_and(|t| t <= now.min(end)) {
                self.sample();
            }
            if now >= end || stop.load(Ordering::Relaxed) {
                break;
            }
            let next = self.due(now, baseline.is_some()).unwrap_or(end).min(end);
            self.send()?;
            let next = if baseline.is_none() {
                next.min(warmup)
            } else {
                next
            };
            let next = self.next_sample().map_or(next, |t| next.min(t));
            let wait = clock.wait_until(next);
            if !waiter.wait(wait).map_err(io_error)? {
                continue;
            }
            // Every datagram waiting, a batch at a time, each batch's replies sent together;
            // a batch that is not full emptied the socket (what comes after, the next wait sees).
            loop {
                let n = self.inbox.recv(fd).map_err(io_error)?;
                let nonce = self.nonce;
                arrived.extend(
                    self.inbox
                        .datagrams()
                        .filter_map(|d| wire::decode(d, nonce))
                        .filter(|p| p.dir == inward),
                );
                for pkt in arrived.drain(..) {
                    let i = pkt.flow as usize;
                    if i >= self.stations.len() {
                        continue;
                    }
                    let now = clock.now();
                    // The other half may have started the flow (and its packet crossed the
                    // network) a moment before this one looked at the clock.
                    if !self.started[i] {
                        self.due(now, baseline.is_some());
                    }
                    if baseline.is_some() {
                        self.stations[i]
                            .arrival_late_us
                            .push(micros_late(now, pkt.sent_at));
                        self.stations[i].rx_bytes += pkt.size_bytes as u64;
                    }
                    self.call(i, now, |e, c| e.on_packet(c, &pkt));
                }
                self.send()?;
                if n < BATCH {
                    break;
                }
            }
        }
        if self.sample_every.is_some() {
            // The last bin, at the time the run ended, as the packet engine's `finish` does.
            self.sample();
        }
        let measured_s = clock.now().ns().min(end.ns()).saturating_sub(warmup.ns()) as f64 * 1e-9;
        let baseline = baseline.unwrap_or_default();
        let side = self.side;
        let reports = self
            .stations
            .iter_mut()
            .enumerate()
            .map(|(i, st)| {
                let mut stats = windowed(st.endpoint.stats(), baseline.get(i));
                let arrival = match side {
                    Side::Sender => ["ack_late_p50_ms", "ack_late_p99_ms"],
                    Side::Receiver => ["arrival_late_p50_ms", "arrival_late_p99_ms"],
                };
                stats.extend(p50_and_p99(arrival, &mut st.arrival_late_us));
                if side == Side::Sender {
                    stats.extend(p50_and_p99(
                        ["timer_late_p50_ms", "timer_late_p99_ms"],
                        &mut st.timer_late_us,
                    ));
                }
                if side == Side::Receiver {
                    let rate = if measured_s > 0.0 {
                        st.rx_bytes as f64 * 8.0 / measured_s
                    } else {
                        0.0
                    };
                    stats.push(("host_rx_bps", rate));
                }
                HostReport {
                    label: st.endpoint.label(),
                    stats,
                    series: st.endpoint.series(),
                }
            })
            .collect();
        Ok(HostsOutcome {
            reports,
            probes: self.probes,
            state: self.state,
            socket_drops: receive_drops(fd).map(|n| n + self.outbox.refused),
        })
    }
}
