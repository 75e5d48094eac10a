//! The kernel path (`run.emulator = "kernel"`): a dumbbell's bottleneck rate and DropTail
//! queue, each way, kept by the kernel's own traffic control.
//!
//! The run makes two network namespaces of its own, "left" and "right", joined by a veth pair.
//! Each end's egress has a token bucket filter (`tc-tbf(8)`) at the link's rate, whose bucket
//! holds one largest packet and the packets of at least 1 ms of the rate ([`Bucket`]), with a
//! `pfifo` (packet limit) or `bfifo` (byte limit) child as the queue, short of the limit by the
//! saved packets; a size table (`tc-stab(8)`) takes the 42 bytes of Ethernet, IP and UDP
//! headers off every datagram, so the kernel counts a packet at its modelled size (datagrams
//! never go below [`wire::LAYOUT_BYTES`], so a 40-byte ACK counts as that). The emulator puts
//! every datagram from the hosts, and the datagram a host would send for every packet the
//! kernel's TCP flows send out of their TUN devices, into the side of the veth pair its packet
//! leaves from and reads it at the other side when the kernel has let it through. It holds the
//! packet until its time on the link is over ([`departure`]: the token bucket lets a packet
//! through no later than the start of that time, at once onto an idle link) and hands it to
//! the user-space network, the scenario with unlimited bottleneck queues whose bottleneck takes
//! no time to serialize, for the propagation delays, access links and random loss. This kernel
//! has no `netem` and no `red` qdisc, so delays stay in user space and RED is refused (see the
//! scenario's validation).
//!
//! The namespaces are the run's own ([`super::netns`]): when the process ends, however it
//! ends, the kernel frees both and, with them, the veth pair and its qdiscs.

use std::collections::VecDeque;
use std::fs::File;
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;

use super::batch::{Inbox, BATCH};
use super::host::{micros_late, p50_and_p99};
use super::netns::{inside, namespace, sysctl, tool, Needs};
use super::{receive_drops, wire, Clock};
use crate::config;
use crate::error::{Error, Result};
use crate::net::config::{LinkParams, TopologySpec};
use crate::net::packet::{Dir, Packet};
use crate::net::queue::QueueSpec;
use crate::net::sim::LinkReport;
use crate::net::RunResult;
use crate::time::{serialization_time, SimTime};

/// Bytes of Ethernet, IPv4 and UDP headers around a datagram's payload on the veth pair.
const HEADERS: u32 = 14 + 20 + 8;

/// The kernel path's need of namespaces: the field its failures name.
const KERNEL_PATH: Needs = Needs {
    field: "run.emulator",
    value: "'kernel'",
    what: "create network namespaces and configure them with iproute2's ip and tc",
    instead: "run.emulator = \"user\" needs none of that",
};

/// The error of a machine that cannot make the kernel path.
fn unable(why: impl std::fmt::Display) -> Error {
    KERNEL_PATH.unable(why)
}

/// A UDP socket bound to `addr`, non-blocking, whose sends report a packet the queue dropped
/// (`IP_RECVERR`: without it the kernel hides the qdisc's `ENOBUFS`), whose datagrams come
/// with the time the kernel let them through (`SO_TIMESTAMPNS`), with buffers that hold
/// whatever the queue holds: a datagram waiting in the queue counts against its sender's
/// buffer until it leaves (`SO_SNDBUFFORCE`, beyond the system's limit, which the kernel path's
/// privilege allows).
fn socket(addr: &str) -> Result<UdpSocket> {
    let s = UdpSocket::bind(addr).map_err(|e| unable(format_args!("bind {addr}: {e}")))?;
    s.set_nonblocking(true)
        .map_err(|e| unable(format_args!("{addr}: {e}")))?;
    set(&s, libc::SOL_IP, libc::IP_RECVERR, 1)?;
    set(&s, libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, QUEUE_BUFFER)?;
    set(&s, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, QUEUE_BUFFER)?;
    set(&s, libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, 1)?;
    Ok(s)
}

/// Each veth-side socket's send and receive buffer (bytes of accounting, not memory taken).
const QUEUE_BUFFER: libc::c_int = 256 << 20;

/// Sets one integer socket option.
fn set(
    socket: &UdpSocket,
    level: libc::c_int,
    name: libc::c_int,
    value: libc::c_int,
) -> Result<()> {
    // SAFETY: a valid socket and a pointer to a c_int of the size given.
    let rc = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            level,
            name,
            (&value as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(unable(format_args!(
            "setsockopt: {}",
            std::io::Error::last_os_error()
        )));
    }
    Ok(())
}

/// The largest datagram the run's endpoints send: the tbf bucket holds at least one.
fn largest_packet(s: &config::Scenario) -> u32 {
    use config::{Carrier, SourceSpec};
    let sizes = s.flows.iter().flat_map(|f| match &*f.source {
        SourceSpec::Cbr { packet_bytes, .. } | SourceSpec::Poisson { packet_bytes, .. } => {
            [*packet_bytes, 0]
        }
        SourceSpec::Tcp(t) => [t.packet_bytes, t.ack_bytes],
        SourceSpec::Rate(r) => [r.packet_bytes, r.report_bytes],
        SourceSpec::Media(m) => match &m.carrier {
            Carrier::Tcp(t) => [t.packet_bytes, t.ack_bytes],
            Carrier::Rate(r) => [r.packet_bytes, r.report_bytes],
            Carrier::Udp { packet_bytes } => [*packet_bytes, 0],
            // Feedback is smaller than a data packet unless one report covers more than
            // (packet size − 48 B)/2 packets.
            Carrier::Rtp(r) => [r.packet_bytes, 0],
        },
        SourceSpec::Linux(l) => [l.packet_bytes, 0],
    });
    sizes.fold(wire::LAYOUT_BYTES as u32, u32::max)
}

/// How long the link's rate should be saved up in the token bucket, beyond one largest packet.
///
/// tbf sends the next packet when a timer says its tokens are there; on a busy machine the
/// timer fires some µs late, and with a bucket of one packet the tokens of that lateness are
/// lost, the rate with them (2.9% of it at 10 Mb/s on a busy 2-core machine). Saved tokens keep
/// them, but they also let the bucket run ahead of the link: see [`Bucket`].
const SAVED_NS: u64 = 1_000_000;

/// The token bucket and the fifo's limit of one direction.
///
/// Saved tokens let packets through ahead of the link's pace: after an idle spell the bucket
/// is full and lets the saved packets through at once, and from then on each packet goes that
/// much before a link of its rate would start it (a timer firing late, by less than the saved
/// time, keeps its lateness's tokens, so the lead lasts; net/sched/sch_tbf.c `tbf_dequeue`).
/// Those packets have left the fifo while that link would still have them waiting, so a fifo
/// of the link's limit would hold that many more. So the bucket saves a whole number of
/// largest packets, `saved` (at least [`SAVED_NS`] of the rate, fewer than the limit), and the
/// fifo's limit is that many packets (or their bytes) smaller: behind a queue of `w` waiting
/// packets the fifo then holds `w − saved` of them, and it is full exactly when that link's
/// queue is (with packets of one size; unit test
/// `a_fifo_short_of_the_saved_packets_admits_as_droptail_does`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Bucket {
    /// Bytes: one largest packet and the saved ones.
    burst: u64,
    /// The fifo's limit, in packets or in bytes.
    limit: u64,
    /// Whether `limit` is in bytes (a `bfifo`).
    bytes: bool,
}

impl Bucket {
    /// The bucket and fifo for a link of `rate_bps` whose queue is `queue`, where the largest
    /// packet has `largest` bytes.
    fn new(rate_bps: u64, queue: &QueueSpec, largest: u32) -> Result<Bucket> {
        let largest = u64::from(largest);
        let wanted = (rate_bps as u128 * SAVED_NS as u128)
            .div_ceil(8_000_000_000 * largest as u128)
            .min(u32::MAX as u128) as u64;
        let (limit, bytes) = match queue {
            QueueSpec::DropTail {
                limit_packets: Some(n),
                ..
            } => (*n, false),
            QueueSpec::DropTail {
                limit_packets: None,
                limit_bytes: Some(b),
            } => (*b, true),
            QueueSpec::DropTail {
                limit_packets: None,
                limit_bytes: None,
            } => (u32::MAX as u64, false),
            QueueSpec::Red { .. }
            | QueueSpec::Step { .. }
            | QueueSpec::CoDel { .. }
            | QueueSpec::FqCoDel(_)
            | QueueSpec::Pie { .. } => {
                return Err(Error::invalid(
                    "topology.bottleneck.queue.kind",
                    format!("'{}'", queue.kind()),
                    "'droptail' with run.emulator = \"kernel\"",
                ));
            }
        };
        let limit = limit.min(u32::MAX as u64);
        let each = if bytes { largest } else { 1 };
        let saved = wanted.min((limit / each).saturating_sub(1));
        Ok(Bucket {
            burst: largest * (1 + saved),
            limit: limit - saved * each,
            bytes,
        })
    }
}

/// Puts `link`'s rate and DropTail queue on `dev`'s egress ([`Bucket`]), where the largest
/// packet has `largest` bytes.
fn qdisc(dev: &str, link: &LinkParams, largest: u32) -> Result<()> {
    let b = Bucket::new(link.rate_bps, &link.queue, largest)?;
    let (rate, burst, overhead) = (
        format!("{}bit", link.rate_bps),
        b.burst.min(u32::MAX as u64).to_string(),
        format!("-{HEADERS}"),
    );
    let root = [
        "tc", "qdisc", "add", "dev", dev, "root", "handle", "1:", "stab", "overhead", &overhead,
        "tbf", "rate", &rate, "burst", &burst, "limit", &burst,
    ];
    tool(KERNEL_PATH, &root)?;
    let (kind, limit) = (if b.bytes { "bfifo" } else { "pfifo" }, b.limit.to_string());
    tool(
        KERNEL_PATH,
        &[
            "tc", "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", kind, "limit",
            &limit,
        ],
    )
}

/// What one direction's bottleneck did over the measurement window, as the link counters
/// count it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Counts {
    arrivals: u64,
    drops: u64,
    queue_pkt_ns: u128,
    queue_byte_ns: u128,
    busy_ns: u64,
    max_queue_pkts: u64,
}

/// A packet that entered the kernel's queue: when, and what it is (to find it again when it
/// comes out).
#[derive(Clone, Copy, Debug)]
struct Entry {
    at: SimTime,
    flow: u32,
    dir: Dir,
    size: u32,
}

/// A packet the kernel let through, held until its time on the link is over.
#[derive(Clone, Copy, Debug)]
struct Held {
    entered: SimTime,
    /// When its time on the link began and ends.
    start: SimTime,
    departure: SimTime,
    pkt: Packet,
}

/// When a packet leaves the bottleneck: the kernel let it through at `released`; it entered
/// the kernel's queue at `entered`, takes `serialization` on the link, and the packet before
/// it left at `previous`.
///
/// A token bucket lets a packet through once its tokens are in (net/sched/sch_tbf.c
/// `tbf_dequeue`): behind a standing queue at the start of its time on the link, or the saved
/// packets' time before it ([`Bucket`]); a packet reaching an idle link goes at once. A link of the
/// bucket's rate ends a packet's time no earlier than its arrival, nor than the previous
/// packet's end, plus its serialization. That link's departures send at most one packet plus the
/// rate's worth in any span of time, which a bucket holding the largest packet allows, and the
/// bucket lets each packet through at the earliest time that keeps to it: never later than
/// that link would finish it. So the latest of the three is that link's departure, while a
/// kernel running late still has the last word.
fn departure(
    entered: SimTime,
    released: SimTime,
    previous: SimTime,
    serialization: SimTime,
) -> SimTime {
    released
        .max(entered + serialization)
        .max(previous + serialization)
}

/// One direction of the veth pair: the socket a packet enters by, where it goes, the packets
/// in the kernel's queue and those it let through, until they leave the link.
struct Way {
    from: UdpSocket,
    to: SocketAddr,
    rate_bps: u64,
    /// In the kernel's queue (a fifo), in the order they entered.
    queued: VecDeque<Entry>,
    /// Let through, in order, each until its departure.
    held: VecDeque<Held>,
    /// When the last packet let through leaves the link.
    last_departure: SimTime,
    counts: Counts,
}

impl Way {
    /// `pkt`, sent by this way, was let through by the kernel and read `at`: it leaves the link
    /// at its [`departure`]. The queue is a fifo, so it is the first packet of its flow,
    /// direction and size that entered (any before it were lost).
    fn leaves(&mut self, at: SimTime, pkt: Packet) {
        let mut entered = at;
        while let Some(e) = self.queued.pop_front() {
            if (e.flow, e.dir, e.size) == (pkt.flow, pkt.dir, pkt.size_bytes) {
                entered = e.at;
                break;
            }
        }
        let serialization = serialization_time(pkt.size_bytes, self.rate_bps);
        let departure = departure(entered, at, self.last_departure, serialization);
        self.last_departure = departure;
        self.held.push_back(Held {
            entered,
            start: departure - serialization,
            departure,
            pkt,
        });
    }

    /// The packets waiting just before `first` takes the link at its start: those that
    /// entered before then, itself among them, of the held ones after it and then the kernel's
    /// (each in the order they entered; none of them takes the link before `first`).
    fn waiting_for(&self, first: &Held) -> u64 {
        let t = first.start;
        let held = self.held.partition_point(|h| h.entered < t);
        let mut n = u64::from(first.entered < t) + held as u64;
        if held == self.held.len() {
            n += self.queued.partition_point(|e| e.at < t) as u64;
        }
        n
    }

    /// Counts the packet `h` over the window from `warmup` to `end`: waiting from its entry to
    /// the start of its time on the link, then on the link to its departure.
    fn count(&mut self, h: &Held, warmup: SimTime, end: SimTime) {
        let within = |a: SimTime, b: SimTime| {
            let (a, b) = (a.max(warmup), b.min(end));
            b.ns().saturating_sub(a.ns())
        };
        let waited = within(h.entered, h.start) as u128;
        self.counts.queue_pkt_ns += waited;
        self.counts.queue_byte_ns += waited * h.pkt.size_bytes as u128;
        self.counts.busy_ns += within(h.start, h.departure);
    }
}

/// The kernel's part of the network: both ways through the bottleneck.
pub struct Bottleneck {
    /// Left to right, then right to left.
    ways: [Way; 2],
    /// Per flow: whether its sender is on the right.
    reverse: Vec<bool>,
    /// Per flow and direction: the packets the kernel's queues dropped after the warm-up, and
    /// their bytes (they never reach the user-space network, which counts the flows' packets).
    dropped: Vec<[(u64, u64); 2]>,
    nonce: u32,
    inbox: Inbox,
    /// Per flow: how late, after the warm-up, the emulator read its packets (either way) after
    /// the kernel let them through, in µs.
    release_late_us: Vec<Vec<u32>>,
    /// The measurement window: from the warm-up to the scenario's end.
    window: (SimTime, SimTime),
    /// The namespaces, held until the run ends.
    _namespaces: [File; 2],
}

impl Bottleneck {
    /// Makes the namespaces, the veth pair and its qdiscs for `scenario`'s dumbbell; returns the
    /// bottleneck and the network left to user space: the scenario with unlimited bottleneck
    /// queues, whose bottleneck links take no time to serialize (the kernel's queue and
    /// [`departure`] give each packet its time on the link).
    pub fn new(scenario: &config::Scenario, nonce: u32) -> Result<(Bottleneck, config::Scenario)> {
        let TopologySpec::Dumbbell {
            bottleneck,
            reverse,
            access,
        } = &scenario.topology
        else {
            return Err(Error::invalid(
                "topology.kind",
                "a chain or a graph",
                "a dumbbell with run.emulator = \"kernel\"",
            ));
        };
        let back = reverse.clone().unwrap_or_else(|| bottleneck.mirrored());
        let largest = largest_packet(scenario);
        let (left, right) = (namespace(KERNEL_PATH)?, namespace(KERNEL_PATH)?);
        let right_ns = format!("/proc/{}/fd/{}", std::process::id(), right.as_raw_fd());
        // Quiet links: no IPv6 (router solicitations, DAD) and no ARP through the queues.
        let quiet = || {
            sysctl(
                KERNEL_PATH,
                "/proc/sys/net/ipv6/conf/default/disable_ipv6",
                "1",
            )?;
            sysctl(KERNEL_PATH, "/proc/sys/net/ipv6/conf/all/disable_ipv6", "1")
        };
        inside(KERNEL_PATH, &right, quiet)?;
        let left_socket = inside(KERNEL_PATH, &left, || {
            quiet()?;
            tool(
                KERNEL_PATH,
                &[
                    "ip", "link", "add", "ccs-l", "address", MAC[0], "mtu", "65535", "type",
                    "veth", "peer", "name", "ccs-r", "address", MAC[1], "mtu", "65535", "netns",
                    &right_ns,
                ],
            )?;
            tool(
                KERNEL_PATH,
                &[
                    "ip",
                    "addr",
                    "add",
                    &format!("{}/30", IP[0]),
                    "dev",
                    "ccs-l",
                ],
            )?;
            tool(
                KERNEL_PATH,
                &[
                    "ip",
                    "neigh",
                    "add",
                    IP[1],
                    "lladdr",
                    MAC[1],
                    "nud",
                    "permanent",
                    "dev",
                    "ccs-l",
                ],
            )?;
            qdisc("ccs-l", bottleneck, largest)?;
            tool(KERNEL_PATH, &["ip", "link", "set", "ccs-l", "up"])?;
            socket(&format!("{}:0", IP[0]))
        })?;
        let right_socket = inside(KERNEL_PATH, &right, || {
            tool(
                KERNEL_PATH,
                &[
                    "ip",
                    "addr",
                    "add",
                    &format!("{}/30", IP[1]),
                    "dev",
                    "ccs-r",
                ],
            )?;
            tool(
                KERNEL_PATH,
                &[
                    "ip",
                    "neigh",
                    "add",
                    IP[0],
                    "lladdr",
                    MAC[0],
                    "nud",
                    "permanent",
                    "dev",
                    "ccs-r",
                ],
            )?;
            qdisc("ccs-r", &back, largest)?;
            tool(KERNEL_PATH, &["ip", "link", "set", "ccs-r", "up"])?;
            socket(&format!("{}:0", IP[1]))
        })?;
        let addr = |s: &UdpSocket| {
            s.local_addr()
                .map_err(|e| unable(format_args!("a kernel socket's address: {e}")))
        };
        let (left_addr, right_addr) = (addr(&left_socket)?, addr(&right_socket)?);
        let way = |from, to, link: &LinkParams| Way {
            from,
            to,
            rate_bps: link.rate_bps,
            queued: VecDeque::new(),
            held: VecDeque::new(),
            last_departure: SimTime::ZERO,
            counts: Counts::default(),
        };
        let kernel = Bottleneck {
            ways: [
                way(left_socket, right_addr, bottleneck),
                way(right_socket, left_addr, &back),
            ],
            reverse: scenario.flows.iter().map(|f| f.reverse).collect(),
            dropped: vec![[(0, 0); 2]; scenario.flows.len()],
            nonce,
            inbox: Inbox::stamped(),
            release_late_us: vec![Vec::new(); scenario.flows.len()],
            window: (SimTime(scenario.warmup_ns), SimTime(scenario.duration_ns)),
            _namespaces: [left, right],
        };
        let unlimited = |l: &LinkParams| LinkParams {
            rate_bps: u64::MAX,
            queue: QueueSpec::DropTail {
                limit_packets: None,
                limit_bytes: None,
            },
            ..l.clone()
        };
        let mut user = scenario.clone();
        user.topology = TopologySpec::Dumbbell {
            bottleneck: unlimited(bottleneck),
            reverse: Some(unlimited(&back)),
            access: access.clone(),
        };
        Ok((kernel, user))
    }

    /// The sockets to wait on for packets leaving the kernel.
    pub fn sockets(&self) -> [&UdpSocket; 2] {
        [&self.ways[0].from, &self.ways[1].from]
    }

    /// A datagram from the hosts enters the kernel's queue on its side of the bottleneck.
    pub fn enter(&mut self, datagram: &[u8], now: SimTime) -> Result<()> {
        let Some(pkt) = wire::decode(datagram, self.nonce) else {
            return Ok(());
        };
        let Some(&reverse) = self.reverse.get(pkt.flow as usize) else {
            return Ok(());
        };
        let counted = now >= self.window.0;
        let way = &mut self.ways[usize::from((pkt.dir == Dir::Forward) == reverse)];
        way.counts.arrivals += u64::from(counted);
        match way.from.send_to(datagram, way.to) {
            Ok(_) => way.queued.push_back(Entry {
                at: now,
                flow: pkt.flow,
                dir: pkt.dir,
                size: pkt.size_bytes,
            }),
            // The queue is full (the qdisc's drop), or the socket's buffer is: dropped.
            Err(e)
                if e.raw_os_error() == Some(libc::ENOBUFS) || e.kind() == ErrorKind::WouldBlock =>
            {
                if counted {
                    way.counts.drops += 1;
                    let d = &mut self.dropped[pkt.flow as usize][pkt.dir.index()];
                    *d = (d.0 + 1, d.1 + pkt.size_bytes as u64);
                }
            }
            Err(e) => {
                return Err(unable(format_args!(
                    "a send into the veth pair failed: {e}"
                )))
            }
        }
        Ok(())
    }

    /// Takes every packet the kernel has let through by now out of its queue, to leave the
    /// link at its [`departure`] ([`Bottleneck::release`] hands it on then), a batch of
    /// datagrams a system call. A packet was let through when the kernel received it at the
    /// other end of the pair, not when the emulator gets to read it: a reader running late
    /// delays that packet's delivery, not the link's later departures.
    pub fn leave(&mut self, clock: &Clock) -> Result<()> {
        for k in 0..2 {
            loop {
                let n = self
                    .inbox
                    .recv(self.ways[k].from.as_raw_fd())
                    .map_err(|e| {
                        unable(format_args!("a receive from the veth pair failed: {e}"))
                    })?;
                let now = clock.now_with_realtime();
                for (stamp, datagram) in self.inbox.received() {
                    if let Some(pkt) = wire::decode(datagram, self.nonce) {
                        let released = Clock::at(now, stamp);
                        if released >= self.window.0 {
                            self.release_late_us[pkt.flow as usize]
                                .push(micros_late(now.0, released));
                        }
                        self.ways[1 - k].leaves(released, pkt);
                    }
                }
                if n < BATCH {
                    break;
                }
            }
        }
        Ok(())
    }

    /// When the next packet let through leaves the link, if any waits.
    pub fn next_departure(&self) -> Option<SimTime> {
        self.ways
            .iter()
            .filter_map(|w| w.held.front().map(|h| h.departure))
            .min()
    }

    /// Hands `arrive` every packet whose time on the link is over by `now`, in the order they
    /// leave, at the time each leaves.
    pub fn release(&mut self, now: SimTime, mut arrive: impl FnMut(SimTime, Packet)) {
        while let Some(k) = (0..2)
            .filter(|&k| {
                self.ways[k]
                    .held
                    .front()
                    .is_some_and(|h| h.departure <= now)
            })
            .min_by_key(|&k| self.ways[k].held[0].departure)
        {
            let ((warmup, end), way) = (self.window, &mut self.ways[k]);
            let Some(h) = way.held.pop_front() else { break };
            if (warmup..end).contains(&h.start) {
                // The queue is longest just before a packet takes the link.
                let waiting = way.waiting_for(&h);
                way.counts.max_queue_pkts = way.counts.max_queue_pkts.max(waiting);
            }
            way.count(&h, warmup, end);
            arrive(h.departure, h.pkt);
        }
    }

    /// Adds what the bottleneck did over [warm-up, `end`) to its counters in `result`: the
    /// arrivals and drops of the kernel's queues, the packets waiting in them or let through
    /// and not yet on the link, and the time on the link; to each flow's, the packets
    /// dropped, sent but never delivered, and the median and 99th percentile of how late the
    /// emulator read its packets out of the kernel's queues (`release_late_p50_ms`,
    /// `release_late_p99_ms`); and the datagrams lost at its sockets over the run.
    pub fn report(mut self, result: &mut RunResult, end: SimTime) {
        let (warmup, end) = (self.window.0, self.window.1.min(end));
        for (way, name) in self
            .ways
            .iter_mut()
            .zip(["bottleneck", "bottleneck.reverse"])
        {
            let waiting = way.held.iter().filter(|h| h.start >= end).count() + way.queued.len();
            way.counts.max_queue_pkts = way.counts.max_queue_pkts.max(waiting as u64);
            for h in std::mem::take(&mut way.held) {
                way.count(&h, warmup, end);
            }
            for e in &way.queued {
                let waited = end.ns().saturating_sub(e.at.max(warmup).ns()) as u128;
                way.counts.queue_pkt_ns += waited;
                way.counts.queue_byte_ns += waited * e.size as u128;
            }
            let Some(link) = result.links.iter_mut().find(|l| l.name == name) else {
                continue;
            };
            add(link, way.counts, way.rate_bps);
        }
        // What the kernel let through one way is read from the other way's socket; a datagram
        // lost there vanishes from the flows' counts, so it is counted with the run's sockets.
        for (k, name) in [(1, "kernel.bottleneck"), (0, "kernel.bottleneck.reverse")] {
            if let Some(n) = receive_drops(self.ways[k].from.as_raw_fd()) {
                result.socket_drops.push((name, n));
            }
        }
        for ((flow, dropped), late) in result
            .flows
            .iter_mut()
            .zip(&self.dropped)
            .zip(&mut self.release_late_us)
        {
            for (s, &(pkts, bytes)) in flow.stats.dir.iter_mut().zip(dropped) {
                s.sent_pkts += pkts;
                s.sent_bytes += bytes;
                s.queue_drops += pkts;
            }
            if !late.is_empty() {
                flow.sender.extend(p50_and_p99(
                    ["release_late_p50_ms", "release_late_p99_ms"],
                    late,
                ));
            }
        }
    }
}

/// The bottleneck's counts put into the user-space link's report (whose link took no time
/// to serialize: its queue only ever held packets released in the same nanosecond), with the
/// link's rate.
fn add(link: &mut LinkReport, c: Counts, rate_bps: u64) {
    link.rate_bps = rate_bps;
    let s = &mut link.stats;
    s.arrivals = c.arrivals;
    s.forced_drops += c.drops;
    s.busy_ns = c.busy_ns;
    s.queue_pkt_ns += c.queue_pkt_ns;
    s.queue_byte_ns += c.queue_byte_ns;
    s.max_queue_pkts = s.max_queue_pkts.max(c.max_queue_pkts);
    // The kernel's queue times no packet: the user-space link's waits alone would understate
    // the link's.
    link.sojourn = None;
}

/// The veth ends' fixed addresses: each namespace is the run's own, so they meet no one else's.
const IP: [&str; 2] = ["10.0.0.1", "10.0.0.2"];
const MAC: [&str; 2] = ["02:cc:5c:00:00:01", "02:cc:5c:00:00:02"];

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    const MS: SimTime = SimTime(1_000_000);

    #[test]
    fn a_packet_leaves_the_link_at_the_end_of_its_time_on_it() {
        // 1250 bytes at 10 Mb/s: 1 ms.
        let s = serialization_time(1250, 10_000_000);
        assert_eq!(s, MS);
        let (zero, t) = (SimTime::ZERO, SimTime::from_ms(20));
        // An idle link: the bucket lets it through at once; it leaves 1 ms later.
        assert_eq!(departure(t, t, zero, s), t + MS);
        // Let through late, at the end of its time on the link: it leaves then, not 1 ms later.
        assert_eq!(departure(zero, t, t - MS, s), t);
        // A burst the saved tokens pay for goes through at once: spaced by the link again.
        let out: Vec<_> = (0..3)
            .scan(zero, |prev, _| {
                *prev = departure(t, t, *prev, s);
                Some(*prev)
            })
            .collect();
        assert_eq!(out, [t + MS, t + MS + MS, t + SimTime::from_ms(3)]);
        // A kernel running late has the last word.
        let late = t + SimTime(30_000);
        assert_eq!(departure(zero, late, t - MS, s), late);
    }

    /// A token bucket of `rate_bps` whose bucket holds `bucket` of the rate (in time), full at
    /// first, as net/sched/sch_tbf.c keeps it: each packet of `(arrival, size)`, in order, goes
    /// through at the first time at or after its arrival and the one before it when its
    /// serialization's worth of tokens is in.
    fn token_bucket(packets: &[(SimTime, u32)], rate_bps: u64, bucket: SimTime) -> Vec<SimTime> {
        let (mut tokens, mut at) = (bucket.ns(), SimTime::ZERO);
        packets
            .iter()
            .map(|&(arrival, size)| {
                let t = arrival.max(at);
                tokens = (tokens + (t - at).ns()).min(bucket.ns());
                let cost = serialization_time(size, rate_bps).ns();
                let wait = cost.saturating_sub(tokens);
                at = t + SimTime(wait);
                tokens = tokens + wait - cost;
                at
            })
            .collect()
    }

    #[test]
    fn behind_a_token_bucket_packets_leave_when_a_link_of_its_rate_would_finish_them() {
        // Random arrivals and sizes (40 to 1500 bytes) at 10 Mb/s, in bursts and idle spells,
        // through the bucket `qdisc` sets for an unlimited queue.
        let rate = 10_000_000;
        let unlimited = QueueSpec::DropTail {
            limit_packets: None,
            limit_bytes: None,
        };
        let burst = Bucket::new(rate, &unlimited, 1500).unwrap().burst;
        let bucket = serialization_time(burst as u32, rate);
        let mut rng = crate::rng::stream(7, crate::rng::Stream::Queue, 0);
        let mut t = SimTime::ZERO;
        let packets: Vec<(SimTime, u32)> = (0..20_000)
            .map(|_| {
                // Gaps from 0 to 3 ms: the link is sometimes idle, sometimes far behind.
                t += SimTime((rng.gen::<f64>() * 3e6 * rng.gen::<f64>()) as u64);
                (t, 40 + (rng.gen::<f64>() * 1460.0) as u32)
            })
            .collect();
        let released = token_bucket(&packets, rate, bucket);
        let (mut link, mut previous) = (SimTime::ZERO, SimTime::ZERO);
        let mut backlogged = 0;
        for (&(arrival, size), &out) in packets.iter().zip(&released) {
            let s = serialization_time(size, rate);
            backlogged += usize::from(link > arrival);
            link = link.max(arrival) + s;
            previous = departure(arrival, out, previous, s);
            assert!(
                out <= link,
                "the bucket let a packet through after the link's end"
            );
            assert_eq!(previous, link);
        }
        // Both regimes were there.
        assert!((2_000..18_000).contains(&backlogged), "{backlogged}");
    }

    #[test]
    fn the_bucket_saves_whole_packets_and_the_fifo_is_that_much_shorter() {
        let b = |rate, queue: QueueSpec, largest| Bucket::new(rate, &queue, largest).unwrap();
        let bytes = |n| QueueSpec::DropTail {
            limit_packets: None,
            limit_bytes: Some(n),
        };
        // 1 ms of 10 Mb/s is 1.25 packets of 1000 B: two are saved.
        let p25 = b(10_000_000, QueueSpec::droptail_packets(25), 1000);
        assert_eq!((p25.burst, p25.limit, p25.bytes), (3000, 23, false));
        let b25 = b(10_000_000, bytes(25_000), 1000);
        assert_eq!((b25.burst, b25.limit, b25.bytes), (3000, 23_000, true));
        // 1 ms of 100 Mb/s is 8.3 packets of 1500 B: nine.
        let p100 = b(100_000_000, QueueSpec::droptail_packets(100), 1500);
        assert_eq!((p100.burst, p100.limit), (15_000, 91));
        // Fewer saved than the limit: the fifo keeps room for one packet.
        let p2 = b(10_000_000, QueueSpec::droptail_packets(2), 1000);
        assert_eq!((p2.burst, p2.limit), (2000, 1));
        let p1 = b(10_000_000, QueueSpec::droptail_packets(1), 1000);
        assert_eq!((p1.burst, p1.limit), (1000, 1));
    }

    /// Which of `arrivals` (in order, all of `size` bytes) a token bucket of `rate_bps`
    /// holding `burst` bytes, full at first, with a fifo of `limit` packets admits, its timer
    /// firing on time (net/sched/sch_tbf.c: a packet is enqueued if the fifo has room, and the
    /// head goes when its tokens are in).
    fn tbf_admits(
        arrivals: &[SimTime],
        size: u32,
        rate_bps: u64,
        burst: u64,
        limit: usize,
    ) -> Vec<bool> {
        let cost = serialization_time(size, rate_bps).ns();
        let full = serialization_time(burst as u32, rate_bps).ns();
        let (mut tokens, mut t_c) = (full, SimTime::ZERO);
        let mut fifo: VecDeque<SimTime> = VecDeque::new();
        arrivals
            .iter()
            .map(|&t| {
                // Let through every head whose tokens are in by `t`.
                while let Some(&head) = fifo.front() {
                    let from = head.max(t_c);
                    let have = (tokens + (from - t_c).ns()).min(full);
                    let out = from + SimTime(cost.saturating_sub(have));
                    if out > t {
                        break;
                    }
                    tokens = (tokens + (out - t_c).ns()).min(full) - cost;
                    t_c = out;
                    fifo.pop_front();
                }
                let admitted = fifo.len() < limit;
                if admitted {
                    fifo.push_back(t);
                }
                admitted
            })
            .collect()
    }

    /// Which of `arrivals` a DropTail link of `rate_bps` admits, whose queue holds `limit`
    /// waiting packets besides the one on the link.
    fn droptail_admits(arrivals: &[SimTime], size: u32, rate_bps: u64, limit: usize) -> Vec<bool> {
        let s = serialization_time(size, rate_bps);
        let mut starts: VecDeque<SimTime> = VecDeque::new();
        let mut free = SimTime::ZERO;
        arrivals
            .iter()
            .map(|&t| {
                while starts.front().is_some_and(|&x| x <= t) {
                    starts.pop_front();
                }
                let admitted = starts.len() < limit;
                if admitted {
                    let start = t.max(free);
                    free = start + s;
                    starts.push_back(start);
                }
                admitted
            })
            .collect()
    }

    #[test]
    fn a_fifo_short_of_the_saved_packets_admits_as_droptail_does() {
        // Bursts at up to twice the link's rate, then idle spells: 20 000 packets of 1000 B at
        // 10 Mb/s into 25 packets of queue, as `qdisc` sets the bucket and the fifo.
        let (rate, size, limit) = (10_000_000, 1000, 25);
        let mut rng = crate::rng::stream(11, crate::rng::Stream::Queue, 0);
        let mut t = SimTime::ZERO;
        let arrivals: Vec<SimTime> = (0..20_000)
            .map(|k| {
                let idle = k % 200 == 0 && rng.gen::<f64>() < 0.5;
                t += SimTime(if idle {
                    20_000_000
                } else {
                    (rng.gen::<f64>() * 800_000.0) as u64
                });
                t
            })
            .collect();
        let link = droptail_admits(&arrivals, size, rate, limit);
        let b = Bucket::new(rate, &QueueSpec::droptail_packets(limit as u64), size).unwrap();
        let kernel = tbf_admits(&arrivals, size, rate, b.burst, b.limit as usize);
        let drops = link.iter().filter(|&&a| !a).count();
        assert!((1_000..10_000).contains(&drops), "{drops}");
        assert_eq!(kernel, link);
        // A fifo of the link's own limit behind the same bucket admits more.
        let admitted = |a: &[bool]| a.iter().filter(|&&x| x).count();
        let whole = tbf_admits(&arrivals, size, rate, b.burst, limit);
        assert!(admitted(&whole) > admitted(&link));
    }
}
