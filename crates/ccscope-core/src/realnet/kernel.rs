//! The kernel path (`run.emulator = "kernel"`): a dumbbell's bottleneck rate and DropTail
//! queue, each way, kept by the kernel's own traffic control.
//!
//! The run makes two network namespaces of its own, "left" and "right", joined by a veth pair.
//! Each end's egress has a token bucket filter (`tc-tbf(8)`) at the link's rate, whose bucket
//! holds one largest packet and 1 ms of the rate ([`SAVED_NS`]), with a `pfifo` (packet limit)
//! or `bfifo` (byte limit) child as the queue; a size table (`tc-stab(8)`) takes the 42 bytes of Ethernet, IP and UDP headers off
//! every datagram, so the kernel counts a packet at its modelled size (datagrams never go below
//! [`wire::LAYOUT_BYTES`], so a 40-byte ACK counts as that). The emulator puts every datagram
//! from the hosts, and the datagram a host would send for every packet the kernel's TCP flows
//! send out of their TUN devices, into the side of the veth pair its packet leaves from and reads it at the
//! other side when the kernel has let it through; then the user-space network, the scenario
//! with unlimited bottleneck queues, gives it its serialization time, propagation delays,
//! access links and random loss. This kernel has no `netem` and no `red` qdisc, so delays stay
//! in user space and RED is refused (see the scenario's validation).
//!
//! The namespaces are the run's own ([`super::netns`]): when the process ends, however it
//! ends, the kernel frees both and, with them, the veth pair and its qdiscs.

use std::fs::File;
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;

use super::netns::{inside, namespace, sysctl, tool, Needs};
use super::wire;
use crate::config;
use crate::error::{Error, Result};
use crate::net::config::{LinkParams, TopologySpec};
use crate::net::packet::{Dir, Packet};
use crate::net::queue::QueueSpec;
use crate::net::sim::LinkReport;
use crate::net::RunResult;
use crate::time::SimTime;

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
/// (`IP_RECVERR`: without it the kernel hides the qdisc's `ENOBUFS`), with buffers that hold
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

/// How long the link's rate may be saved up in the token bucket, beyond one largest packet.
///
/// tbf sends the next packet when a timer says its tokens are there; on a busy machine the
/// timer fires some µs late, and with a bucket of one packet the tokens of that lateness are
/// lost, the rate with them (2.9% of it at 10 Mb/s on a busy 2-core machine). A bucket that
/// also holds 1 ms of the rate keeps them. What leaves at once after an idle spell is spaced again by the user-space
/// link's serialization, so it still reaches the far end when it would have; the kernel's
/// queue can then hold up to that 1 ms more than its limit, for a moment.
const SAVED_NS: u64 = 1_000_000;

/// Puts `link`'s rate and DropTail queue on `dev`'s egress, with a bucket of one `largest`
/// packet and [`SAVED_NS`] of the rate.
fn qdisc(dev: &str, link: &LinkParams, largest: u32) -> Result<()> {
    let burst = (largest as u128 + link.rate_bps as u128 * SAVED_NS as u128 / 8_000_000_000)
        .min(u32::MAX as u128);
    let (rate, burst, overhead) = (
        format!("{}bit", link.rate_bps),
        burst.to_string(),
        format!("-{HEADERS}"),
    );
    let root = [
        "tc", "qdisc", "add", "dev", dev, "root", "handle", "1:", "stab", "overhead", &overhead,
        "tbf", "rate", &rate, "burst", &burst, "limit", &burst,
    ];
    tool(KERNEL_PATH, &root)?;
    let (kind, limit) = match link.queue {
        QueueSpec::DropTail {
            limit_packets: Some(n),
            ..
        } => ("pfifo", n),
        QueueSpec::DropTail {
            limit_packets: None,
            limit_bytes: Some(b),
        } => ("bfifo", b),
        QueueSpec::DropTail {
            limit_packets: None,
            limit_bytes: None,
        } => ("pfifo", u32::MAX as u64),
        QueueSpec::Red { .. }
        | QueueSpec::Step { .. }
        | QueueSpec::CoDel { .. }
        | QueueSpec::FqCoDel(_)
        | QueueSpec::Pie { .. } => {
            return Err(Error::invalid(
                "topology.bottleneck.queue.kind",
                format!("'{}'", link.queue.kind()),
                "'droptail' with run.emulator = \"kernel\"",
            ));
        }
    };
    let limit = limit.min(u32::MAX as u64).to_string();
    tool(
        KERNEL_PATH,
        &[
            "tc", "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", kind, "limit",
            &limit,
        ],
    )
}

/// What one direction's kernel queue did, as the link counters count it.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    arrivals: u64,
    drops: u64,
    queue_pkt_ns: u128,
    queue_byte_ns: u128,
    max_queue_pkts: u64,
}

/// One direction of the veth pair: the socket a packet enters by, where it goes, and the
/// packets and bytes between the two (waiting in the kernel's queue).
struct Way {
    from: UdpSocket,
    to: SocketAddr,
    waiting: (u64, u64),
    since: SimTime,
    counts: Counts,
    /// The counts when the warm-up ended.
    base: Option<Counts>,
}

impl Way {
    /// Adds the time since the last change at the current backlog.
    fn advance(&mut self, now: SimTime) {
        let dt = now.ns().saturating_sub(self.since.ns()) as u128;
        self.counts.queue_pkt_ns += dt * self.waiting.0 as u128;
        self.counts.queue_byte_ns += dt * self.waiting.1 as u128;
        self.since = self.since.max(now);
    }

    fn windowed(&self) -> Counts {
        let (c, b) = (self.counts, self.base.unwrap_or_default());
        Counts {
            arrivals: c.arrivals - b.arrivals,
            drops: c.drops - b.drops,
            queue_pkt_ns: c.queue_pkt_ns - b.queue_pkt_ns,
            queue_byte_ns: c.queue_byte_ns - b.queue_byte_ns,
            max_queue_pkts: c.max_queue_pkts,
        }
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
    warmup: SimTime,
    /// The namespaces, held until the run ends.
    _namespaces: [File; 2],
}

impl Bottleneck {
    /// Makes the namespaces, the veth pair and its qdiscs for `scenario`'s dumbbell; returns the
    /// bottleneck and the network left to user space: the scenario with unlimited bottleneck
    /// queues.
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
        let way = |from, to| Way {
            from,
            to,
            waiting: (0, 0),
            since: SimTime::ZERO,
            counts: Counts::default(),
            base: None,
        };
        let kernel = Bottleneck {
            ways: [way(left_socket, right_addr), way(right_socket, left_addr)],
            reverse: scenario.flows.iter().map(|f| f.reverse).collect(),
            dropped: vec![[(0, 0); 2]; scenario.flows.len()],
            nonce,
            warmup: SimTime(scenario.warmup_ns),
            _namespaces: [left, right],
        };
        let unlimited = |l: &LinkParams| LinkParams {
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

    /// Ends the warm-up's share of the counts once `now` reaches it.
    fn tick(&mut self, now: SimTime) {
        for w in &mut self.ways {
            w.advance(now);
            if w.base.is_none() && now >= self.warmup {
                w.base = Some(w.counts);
                w.counts.max_queue_pkts = w.waiting.0;
            }
        }
    }

    /// A datagram from the hosts enters the kernel's queue on its side of the bottleneck.
    pub fn enter(&mut self, datagram: &[u8], now: SimTime) -> Result<()> {
        let Some(pkt) = wire::decode(datagram, self.nonce) else {
            return Ok(());
        };
        let Some(&reverse) = self.reverse.get(pkt.flow as usize) else {
            return Ok(());
        };
        self.tick(now);
        let way = &mut self.ways[usize::from((pkt.dir == Dir::Forward) == reverse)];
        way.counts.arrivals += 1;
        match way.from.send_to(datagram, way.to) {
            Ok(_) => {
                way.waiting.0 += 1;
                way.waiting.1 += pkt.size_bytes as u64;
                way.counts.max_queue_pkts = way.counts.max_queue_pkts.max(way.waiting.0);
            }
            // The queue is full (the qdisc's drop), or the socket's buffer is: dropped.
            Err(e)
                if e.raw_os_error() == Some(libc::ENOBUFS) || e.kind() == ErrorKind::WouldBlock =>
            {
                way.counts.drops += 1;
                if now >= self.warmup {
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

    /// Hands `arrive` every packet the kernel has let through by `now`.
    pub fn leave(
        &mut self,
        buf: &mut [u8],
        now: impl Fn() -> SimTime,
        mut arrive: impl FnMut(SimTime, Packet),
    ) -> Result<()> {
        for k in 0..2 {
            loop {
                let n = match self.ways[k].from.recv(buf) {
                    Ok(n) => n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) => {
                        return Err(unable(format_args!(
                            "a receive from the veth pair failed: {e}"
                        )))
                    }
                };
                let Some(pkt) = wire::decode(&buf[..n], self.nonce) else {
                    continue;
                };
                let at = now();
                self.tick(at);
                // Sent by the other side's way.
                let way = &mut self.ways[1 - k];
                way.waiting.0 = way.waiting.0.saturating_sub(1);
                way.waiting.1 = way.waiting.1.saturating_sub(pkt.size_bytes as u64);
                arrive(at, pkt);
            }
        }
        Ok(())
    }

    /// Adds what the kernel's queues did over [warm-up, `end`) to the bottleneck's counters in
    /// `result`: the arrivals and drops it had, and the packets waiting in it; and to each
    /// flow's, the packets they dropped, sent but never delivered.
    pub fn report(mut self, result: &mut RunResult, end: SimTime) {
        self.tick(end);
        for (way, name) in self.ways.iter().zip(["bottleneck", "bottleneck.reverse"]) {
            let Some(link) = result.links.iter_mut().find(|l| l.name == name) else {
                continue;
            };
            add(link, way.windowed());
        }
        for (flow, dropped) in result.flows.iter_mut().zip(&self.dropped) {
            for (s, &(pkts, bytes)) in flow.stats.dir.iter_mut().zip(dropped) {
                s.sent_pkts += pkts;
                s.sent_bytes += bytes;
                s.queue_drops += pkts;
            }
        }
    }
}

/// The kernel queue's counts added to the user-space link's (whose queue only ever holds what
/// waits for its own serialization).
fn add(link: &mut LinkReport, c: Counts) {
    let s = &mut link.stats;
    s.arrivals = c.arrivals;
    s.forced_drops += c.drops;
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
