//! Flows of the kernel's own TCP (`source = { kind = "linux", cc = "cubic" }`) through the
//! emulated network.
//!
//! Each such flow gets two network namespaces of the run's own ([`super::netns`]), the
//! sender's and the receiver's, each with a TUN device as its only link, as mahimahi's shells
//! have (Netravali et al., "Mahimahi: Accurate Record-and-Replay for HTTP", USENIX ATC 2015,
//! §3). The sender's socket connects to the receiver's listening socket across them: every IP
//! packet the kernel sends out of one TUN device, the emulator reads ([`Tap`]), parks its bytes
//! ([`Parked`]) and sends a packet of the same size into the emulated network at the flow's
//! sending end; when that packet reaches the far end, the proxy there ([`TunProxy`]) writes the
//! bytes into the other namespace's TUN device, with the IP header's ECN field set to CE if a
//! queue marked it (RFC 3168 §5). So the same links, queues, loss modules and capacity changes
//! carry the kernel's TCP and ccscope's own flows side by side, and the network's counters
//! count both alike.
//!
//! The devices' MTU is the flow's packet size, so a full segment with its headers is that size;
//! segment offloads (GSO, TSO, GRO) are off, so the kernel hands over one segment at a time,
//! as it would put it on a wire; socket buffers are far larger than any window the emulated
//! path lets the flow reach; the sender's namespace asks for ECN (`tcp_ecn` = 1) when the flow
//! is ECN-capable. The application ([`LinuxSender`]) writes bulk data, or a finite transfer,
//! every [`WRITE_EVERY`], keeping [`UNSENT_BYTES`] unsent in the socket so that the window, not
//! the application, limits the flow; the receiver ([`LinuxReceiver`]) reads all that arrives as
//! often. The kernel's own view of the connection (`TCP_INFO`, and BBR's `TCP_CC_INFO`) is
//! sampled at the trace's interval into the state trace.
//!
//! The namespaces live as long as the devices and sockets made in them, which only this
//! process holds: however the run ends, the kernel frees them all.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::netns::{inside, namespace, sysctl, tool, Needs};
use super::socket_option;
use crate::apps::{OnMode, Period};
use crate::config::{AppSpec, LinuxSpec};
use crate::error::Result;
use crate::net::packet::{Dir, Ecn, Header, Packet};
use crate::net::trace::{Probe, StateFields};
use crate::net::{Ctx, Endpoint, Stat};
use crate::scenario::packet::LINUX_HEADER_BYTES;
use crate::time::SimTime;

/// A kernel flow's need of namespaces and devices: the field its failures name.
const LINUX_FLOW: Needs = Needs {
    field: "source.kind",
    value: "'linux'",
    what: "create network namespaces and TUN devices and configure them with iproute2's ip and tc",
    instead: "ccscope's own TCP (source.kind = \"tcp\") needs none of that",
};

/// The addresses of the sender's and the receiver's end: each flow's namespaces are its own.
const ADDR: [[u8; 4]; 2] = [[10, 0, 0, 1], [10, 0, 0, 2]];
const PORT: u16 = 5001;
/// The TUN device's name in each namespace.
const DEVICE: &str = "ccs-tun";

/// How often the sender's application writes and the receiver's reads.
pub const WRITE_EVERY: SimTime = SimTime(1_000_000);
/// The data the sender keeps unsent in its socket (`TCP_NOTSENT_LOWAT`): more than the fastest
/// emulated link (1 Gb/s) sends in several [`WRITE_EVERY`].
pub const UNSENT_BYTES: i32 = 1 << 20;
/// Each socket's send and receive buffer (`SO_SNDBUFFORCE`, `SO_RCVBUFFORCE`): 64 MiB, a
/// window of 32 MiB or more, over twice the bandwidth-delay product of 1 Gb/s and 100 ms.
const SOCKET_BUFFER: i32 = 64 << 20;
/// Packets a TUN device may hold before the emulator reads them (`txqueuelen`, and the pfifo
/// root qdisc's limit): the emulator reads them at once, so none should be dropped; the kernel's
/// count of those that are goes into the run's result ([`Tuns::drops`]).
const DEVICE_QUEUE: &str = "100000";

/// Whether the machine's kernel and privileges allow kernel flows: `Err` says why not.
pub fn available() -> Result<()> {
    let ns = namespace(LINUX_FLOW)?;
    inside(LINUX_FLOW, &ns, || tun(1500).map(|_| ()))
}

/// One flow of the kernel's TCP, made: the two TUN devices the emulator reads and writes, and
/// the endpoints the hosts drive.
pub struct LinuxFlow {
    pub tuns: Tuns,
    pub sender: LinuxSender,
    pub receiver: LinuxReceiver,
}

/// A kernel flow's TUN devices, the sender's namespace's then the receiver's, and those two
/// namespaces.
#[derive(Clone)]
pub struct Tuns {
    pub files: [Arc<File>; 2],
    pub namespaces: [Arc<File>; 2],
}

impl Tuns {
    /// The packets the kernel dropped at the two devices so far, outside the emulated network
    /// (`None` if a count cannot be read): [`namespace_drops`] of each namespace.
    pub fn drops(&self) -> Option<u64> {
        self.namespaces.iter().map(|ns| namespace_drops(ns)).sum()
    }
}

/// The packets the kernel dropped at the TUN device of namespace `ns`: those the emulator wrote
/// that the namespace's stack did not take (its receive drops), and those the namespace sent
/// while the device's queue was full (its transmit drops), as /proc/net/dev counts them from
/// inside the namespace.
fn namespace_drops(ns: &File) -> Option<u64> {
    inside(LINUX_FLOW, ns, || {
        std::fs::read_to_string("/proc/thread-self/net/dev")
            .map_err(|e| LINUX_FLOW.unable(format_args!("/proc/thread-self/net/dev: {e}")))
    })
    .ok()
    .and_then(|text| device_drops(&text, DEVICE))
}

/// Device `device`'s receive drops plus its transmit drops in the text of /proc/net/dev: after
/// the name and a colon, eight receive counters, then eight transmit counters, the fourth of
/// each the drops (`dev_seq_printf_stats`, net/core/net-procfs.c).
fn device_drops(text: &str, device: &str) -> Option<u64> {
    let counts = text
        .lines()
        .find_map(|l| l.trim_start().strip_prefix(device)?.strip_prefix(':'))?;
    let n: Vec<u64> = counts
        .split_whitespace()
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    Some(n.get(3)? + n.get(11)?)
}

impl LinuxFlow {
    /// Makes the namespaces, devices and sockets of a flow of `spec`, ECN-capable if `ecn`,
    /// sampling `TCP_INFO` every `sample_every`.
    pub fn new(spec: &LinuxSpec, ecn: bool, sample_every: SimTime) -> Result<LinuxFlow> {
        let mtu = spec.packet_bytes;
        let (snd_ns, rcv_ns) = (
            Arc::new(namespace(LINUX_FLOW)?),
            Arc::new(namespace(LINUX_FLOW)?),
        );
        let (snd_tun, stream) = inside(LINUX_FLOW, &snd_ns, || {
            let dev = link(mtu, ADDR[0], ADDR[1])?;
            sysctl(
                LINUX_FLOW,
                "/proc/sys/net/ipv4/tcp_ecn",
                if ecn { "1" } else { "0" },
            )?;
            let stream = tcp_socket()?;
            setsockopt(
                stream,
                libc::IPPROTO_TCP,
                libc::TCP_CONGESTION,
                spec.cc.as_bytes(),
            )?;
            setsockopt(
                stream,
                libc::IPPROTO_TCP,
                libc::TCP_NOTSENT_LOWAT,
                &UNSENT_BYTES.to_ne_bytes(),
            )?;
            // SAFETY: a socket this function just made and owns nowhere else.
            Ok((dev, unsafe { TcpStream::from_raw_fd(stream) }))
        })?;
        let (rcv_tun, listener) = inside(LINUX_FLOW, &rcv_ns, || {
            let dev = link(mtu, ADDR[1], ADDR[0])?;
            let listener = tcp_socket()?;
            // SAFETY: as above; the listener owns the socket from here on.
            let listener = unsafe { TcpListener::from_raw_fd(listener) };
            let addr = sockaddr(ADDR[1], PORT);
            // SAFETY: a valid socket and a sockaddr_in of the size given.
            let rc = unsafe {
                libc::bind(
                    listener.as_raw_fd(),
                    (&addr as *const libc::sockaddr_in).cast(),
                    std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
                )
            };
            // SAFETY: a valid, bound socket.
            if rc != 0 || unsafe { libc::listen(listener.as_raw_fd(), 1) } != 0 {
                return Err(LINUX_FLOW.unable(format_args!(
                    "the receiver's socket could not listen: {}",
                    std::io::Error::last_os_error()
                )));
            }
            Ok((dev, listener))
        })?;
        Ok(LinuxFlow {
            tuns: Tuns {
                files: [Arc::new(snd_tun), Arc::new(rcv_tun)],
                namespaces: [snd_ns.clone(), rcv_ns.clone()],
            },
            sender: LinuxSender {
                stream,
                cc: spec.cc.clone(),
                to_send: spec.transfer_bytes,
                written: 0,
                schedule: spec
                    .app
                    .as_ref()
                    .and_then(|a| Schedule::new(a, spec.packet_bytes)),
                chunk: vec![0; 64 << 10],
                sample_every,
                sample: Vec::new(),
                done: false,
                _namespaces: [snd_ns, rcv_ns],
            },
            receiver: LinuxReceiver {
                listener,
                stream: None,
                read: 0,
                buf: vec![0; 256 << 10],
            },
        })
    }
}

/// A TUN device in the calling thread's namespace, configured as the namespace's only link,
/// from `local` to `peer`, with an MTU of `mtu`, offloads off and a queue of [`DEVICE_QUEUE`];
/// the device's file, non-blocking.
fn link(mtu: u32, local: [u8; 4], peer: [u8; 4]) -> Result<File> {
    let dev = tun(mtu)?;
    let ip = |a: [u8; 4]| format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3]);
    sysctl(LINUX_FLOW, "/proc/sys/net/ipv6/conf/all/disable_ipv6", "1")?;
    let mtu = mtu.to_string();
    tool(
        LINUX_FLOW,
        &[
            "ip",
            "addr",
            "add",
            &ip(local),
            "peer",
            &ip(peer),
            "dev",
            DEVICE,
        ],
    )?;
    tool(
        LINUX_FLOW,
        &[
            "ip",
            "link",
            "set",
            DEVICE,
            "mtu",
            &mtu,
            "txqueuelen",
            DEVICE_QUEUE,
            "up",
        ],
    )?;
    tool(
        LINUX_FLOW,
        &[
            "tc",
            "qdisc",
            "replace",
            "dev",
            DEVICE,
            "root",
            "pfifo",
            "limit",
            DEVICE_QUEUE,
        ],
    )?;
    offloads_off()?;
    Ok(dev)
}

/// A new TUN device named [`DEVICE`] in the calling thread's namespace (`IFF_TUN`, IP packets
/// without a header of their own, `IFF_NO_PI`), its file non-blocking; `mtu` only names the
/// device's purpose in errors.
fn tun(mtu: u32) -> Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/net/tun")
        .map_err(|e| LINUX_FLOW.unable(format_args!("/dev/net/tun: {e}")))?;
    let mut ifr = [0u8; 40];
    ifr[..DEVICE.len()].copy_from_slice(DEVICE.as_bytes());
    let flags = (libc::IFF_TUN | libc::IFF_NO_PI) as i16;
    ifr[16..18].copy_from_slice(&flags.to_ne_bytes());
    // SAFETY: a valid TUN file and an ifreq-sized buffer the ioctl reads and writes.
    if unsafe { libc::ioctl(file.as_raw_fd(), libc::TUNSETIFF, ifr.as_mut_ptr()) } != 0 {
        return Err(LINUX_FLOW.unable(format_args!(
            "a TUN device (MTU {mtu}) could not be made: {}",
            std::io::Error::last_os_error()
        )));
    }
    set_nonblocking(file.as_raw_fd())?;
    Ok(file)
}

fn set_nonblocking(fd: RawFd) -> Result<()> {
    // SAFETY: fcntl on a valid descriptor, changing only its status flags.
    let ok = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) == 0
    };
    if ok {
        Ok(())
    } else {
        Err(LINUX_FLOW.unable(format_args!("fcntl: {}", std::io::Error::last_os_error())))
    }
}

/// ethtool's legacy commands that set one offload, and their `get` twins
/// (include/uapi/linux/ethtool.h; `SIOCETHTOOL` from include/uapi/linux/sockios.h).
const SIOCETHTOOL: libc::c_ulong = 0x8946;
const OFFLOADS: [(&str, u32, u32); 3] = [
    ("TSO", 0x1e, 0x1f),
    ("GSO", 0x23, 0x24),
    ("GRO", 0x2b, 0x2c),
];

/// Turns TSO, GSO and GRO off on [`DEVICE`] (what `ethtool -K DEVICE tso off gso off gro off`
/// does), and checks that they are off.
fn offloads_off() -> Result<()> {
    // SAFETY: a new datagram socket, closed below; the ioctls read and write an ifreq whose
    // data points at an ethtool_value that outlives them.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(LINUX_FLOW.unable(format_args!(
                "a socket for ethtool: {}",
                std::io::Error::last_os_error()
            )));
        }
        let socket = std::os::fd::OwnedFd::from_raw_fd(fd);
        for (name, get, set) in OFFLOADS {
            let call = |cmd: u32, data: u32| -> (libc::c_int, u32) {
                let mut value: [u32; 2] = [cmd, data];
                let mut ifr = [0u8; 40];
                ifr[..DEVICE.len()].copy_from_slice(DEVICE.as_bytes());
                let ptr = value.as_mut_ptr() as usize;
                ifr[16..24].copy_from_slice(&ptr.to_ne_bytes());
                let rc = libc::ioctl(socket.as_raw_fd(), SIOCETHTOOL as _, ifr.as_mut_ptr());
                (rc, value[1])
            };
            // A device that cannot have the offload refuses to set it: then it is off.
            call(set, 0);
            let (rc, on) = call(get, 0);
            if rc == 0 && on != 0 {
                return Err(LINUX_FLOW.unable(format_args!("{name} stayed on on the TUN device")));
            }
        }
    }
    Ok(())
}

/// A new TCP socket, non-blocking, with [`SOCKET_BUFFER`]s.
fn tcp_socket() -> Result<RawFd> {
    // SAFETY: socket(2) with constant arguments.
    let fd = unsafe {
        libc::socket(
            libc::AF_INET,
            libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
            0,
        )
    };
    if fd < 0 {
        return Err(LINUX_FLOW.unable(format_args!(
            "a TCP socket: {}",
            std::io::Error::last_os_error()
        )));
    }
    for name in [libc::SO_SNDBUFFORCE, libc::SO_RCVBUFFORCE] {
        setsockopt(fd, libc::SOL_SOCKET, name, &SOCKET_BUFFER.to_ne_bytes()).inspect_err(|_| {
            // SAFETY: the socket made above, owned by nothing else yet.
            unsafe { libc::close(fd) };
        })?;
    }
    Ok(fd)
}

fn setsockopt(fd: RawFd, level: libc::c_int, name: libc::c_int, value: &[u8]) -> Result<()> {
    // SAFETY: a valid socket and a buffer of the length given.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            value.as_ptr().cast(),
            value.len() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(LINUX_FLOW.unable(format_args!(
            "setsockopt({level}, {name}): {}",
            std::io::Error::last_os_error()
        )));
    }
    Ok(())
}

fn sockaddr(ip: [u8; 4], port: u16) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from_ne_bytes(ip),
        },
        sin_zero: [0; 8],
    }
}

// --- the emulator's side ------------------------------------------------------------------------

/// The bytes of packets in the emulated network, by the id their packet carries in its
/// header's `seq`, kept until the packet reaches the far end or [`Parked::OLDEST`] has passed
/// (a packet a queue or a loss module dropped is never asked for).
#[derive(Default)]
pub struct Parked {
    /// The id of `slots[0]`.
    first: u64,
    slots: VecDeque<Option<(SimTime, Vec<u8>)>>,
}

impl Parked {
    /// How long bytes wait for their packet: far longer than any packet spends in a network
    /// the udp engine emulates.
    const OLDEST: SimTime = SimTime(60_000_000_000);

    /// Keeps `bytes`, which entered the network at `now`; returns their id.
    pub fn park(&mut self, bytes: &[u8], now: SimTime) -> u64 {
        while let Some(front) = self.slots.front() {
            match front {
                Some((at, _)) if now.ns().saturating_sub(at.ns()) < Self::OLDEST.ns() => break,
                _ => {
                    self.slots.pop_front();
                    self.first += 1;
                }
            }
        }
        self.slots.push_back(Some((now, bytes.to_vec())));
        self.first + self.slots.len() as u64 - 1
    }

    /// The bytes of the packet `id`, once.
    pub fn take(&mut self, id: u64) -> Option<Vec<u8>> {
        let k = usize::try_from(id.checked_sub(self.first)?).ok()?;
        self.slots.get_mut(k)?.take().map(|(_, b)| b)
    }
}

/// Where the emulator reads a kernel flow's packets: the TUN device `file`, whose packets
/// belong to flow `flow` and go `dir`.
pub struct Tap {
    pub file: Arc<File>,
    pub flow: u32,
    pub dir: Dir,
}

impl Tap {
    /// The taps of flow `flow`'s devices: the sender's sends data, the receiver's ACKs.
    pub fn of(flow: u32, tuns: &Tuns) -> [Tap; 2] {
        [Dir::Forward, Dir::Reverse].map(|dir| Tap {
            file: tuns.files[dir.index()].clone(),
            flow,
            dir,
        })
    }

    /// The next IP packet waiting in the device, as a packet of its own size in the network
    /// (its bytes parked), or `None` when none waits.
    pub fn read(
        &self,
        buf: &mut [u8],
        parked: &Mutex<Parked>,
        now: impl FnOnce() -> SimTime,
    ) -> std::io::Result<Option<Packet>> {
        let n = match (&*self.file).read(buf) {
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(None),
            Err(e) => return Err(e),
        };
        let ip = &buf[..n];
        let ecn = ip.get(1).map_or(0, |tos| tos & 3);
        let at = now();
        let id = parked.lock().map_or(u64::MAX, |mut p| p.park(ip, at));
        Ok(Some(Packet {
            flow: self.flow,
            dir: self.dir,
            size_bytes: n as u32,
            ecn: Ecn {
                capable: ecn != 0,
                congestion: ecn == 3,
            },
            sent_at: at,
            header: Header {
                seq: id,
                ..Header::default()
            },
            ..Packet::default()
        }))
    }
}

/// One end of a kernel flow inside the emulator: what the network delivers here goes into the
/// namespace's TUN device.
pub struct TunProxy {
    pub file: Arc<File>,
    pub parked: Arc<Mutex<Parked>>,
    /// The packets a device refused, counted for all the run's devices together.
    pub refused: Arc<AtomicU64>,
}

impl Endpoint for TunProxy {
    fn on_packet(&mut self, _ctx: &mut Ctx, pkt: &Packet) {
        let Some(mut ip) = self
            .parked
            .lock()
            .ok()
            .and_then(|mut p| p.take(pkt.header.seq))
        else {
            return;
        };
        if pkt.ecn.congestion {
            mark_ce(&mut ip);
        }
        // A device that refuses the packet loses it, a loss the kernel's TCP sees as a real
        // host's would be, outside the emulated network: counted with the devices' own drops.
        if !matches!((&*self.file).write(&ip), Ok(n) if n == ip.len()) {
            self.refused.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Sets an IPv4 header's ECN field to CE (RFC 3168 §5) and its checksum anew (RFC 791 §3.1).
fn mark_ce(ip: &mut [u8]) {
    let len = usize::from(ip.first().map_or(0, |b| b & 0x0f)) * 4;
    if ip.len() < len.max(20) || ip[0] >> 4 != 4 || ip[1] & 3 == 0 {
        return;
    }
    ip[1] |= 3;
    ip[10..12].fill(0);
    let mut sum: u32 = ip[..len]
        .chunks(2)
        .map(|w| u32::from(u16::from_be_bytes([w[0], w[1]])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    ip[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
}

// --- the hosts' side ----------------------------------------------------------------------------

/// Timer slots of the kernel flow's endpoints.
const WRITE: usize = 0;
const SAMPLE: usize = 1;

/// An ON/OFF application on a kernel flow: the periods of [`crate::apps::OnOff`], drawn from
/// the sending endpoint's random stream in the same order (ON, then OFF), its data written
/// into the socket. Paced: while ON, the data the ON rate makes by now; transfers: at the
/// start of an ON period the period's data at once, and the OFF period (think time) starts
/// when the kernel reports all of it acknowledged (`tcpi_bytes_acked`).
struct Schedule {
    /// The ON rate in data bytes/s: the ON rate in bits/s on the wire, less the share of each
    /// full packet its headers take.
    bytes_per_s: f64,
    /// Data bytes of a full packet (the MSS).
    mss: u64,
    on: Period,
    off: Period,
    mode: OnMode,
    /// The data the application has made so far: what the sender may have written.
    made: u64,
    phase: Phase,
}

enum Phase {
    /// Before the first ON period.
    Idle,
    /// Paced: ON since `since` until `until`, `made` bytes counted at `since`.
    Paced {
        since: SimTime,
        until: SimTime,
        base: u64,
    },
    /// A transfer: ON until the data made so far is acknowledged.
    Transfer,
    /// OFF until then.
    Off(SimTime),
}

impl Schedule {
    fn new(app: &AppSpec, packet_bytes: u32) -> Option<Schedule> {
        let AppSpec::OnOff {
            rate_bps,
            on,
            off,
            mode,
        } = *app
        else {
            return None;
        };
        let mss = u64::from(packet_bytes)
            .saturating_sub(LINUX_HEADER_BYTES as u64)
            .max(1);
        Some(Schedule {
            bytes_per_s: rate_bps / 8.0 * mss as f64 / f64::from(packet_bytes),
            mss,
            on,
            off,
            mode,
            made: 0,
            phase: Phase::Idle,
        })
    }

    /// Moves the schedule on to `now`, given the bytes acknowledged; the data made so far.
    fn advance(&mut self, ctx: &mut Ctx, acked: u64) -> u64 {
        let now = ctx.now();
        loop {
            match self.phase {
                Phase::Idle => self.turn_on(ctx, now),
                Phase::Off(until) if now >= until => self.turn_on(ctx, now),
                Phase::Paced { since, until, base } => {
                    let on_s = (now.min(until).ns() - since.ns()) as f64 * 1e-9;
                    self.made = base + (self.bytes_per_s * on_s) as u64;
                    if now < until {
                        break;
                    }
                    self.turn_off(ctx, until);
                }
                Phase::Transfer if acked >= self.made => self.turn_off(ctx, now),
                Phase::Transfer | Phase::Off(_) => break,
            }
        }
        self.made
    }

    fn turn_on(&mut self, ctx: &mut Ctx, now: SimTime) {
        let len = self.on.draw(ctx.rng());
        self.phase = match self.mode {
            OnMode::Paced => Phase::Paced {
                since: now,
                until: now + SimTime::from_secs_f64(len),
                base: self.made,
            },
            OnMode::Transfers => {
                // The period's data in whole packets, at least one (as apps::OnOff offers it).
                let pkts = (len * self.bytes_per_s / self.mss as f64).round().max(1.0) as u64;
                self.made += pkts * self.mss;
                Phase::Transfer
            }
        };
    }

    fn turn_off(&mut self, ctx: &mut Ctx, at: SimTime) {
        let len = self.off.draw(ctx.rng());
        self.phase = Phase::Off(at + SimTime::from_secs_f64(len));
    }
}

/// The sending application of a kernel flow, on the hosts' clock: it connects at the flow's
/// start, writes bulk data (or its transfer, or what its ON/OFF application makes) every
/// [`WRITE_EVERY`], and closes its side at the flow's stop or when the transfer is written.
pub struct LinuxSender {
    stream: TcpStream,
    cc: String,
    to_send: Option<u64>,
    written: u64,
    schedule: Option<Schedule>,
    chunk: Vec<u8>,
    sample_every: SimTime,
    /// The kernel's view at the last sample, as the state trace records it.
    sample: StateFields,
    done: bool,
    /// The flow's namespaces, held by handle (as well as by their devices and sockets) until
    /// the run ends.
    _namespaces: [Arc<File>; 2],
}

impl LinuxSender {
    /// Writes what the application has: bulk data, the rest of its transfer, or up to `made`
    /// bytes in all (an ON/OFF application's).
    fn write(&mut self, made: Option<u64>) {
        while !self.done {
            let left = self.to_send.map_or(u64::MAX, |n| n - self.written);
            let left = made.map_or(left, |m| left.min(m.saturating_sub(self.written)));
            if left == 0 {
                return;
            }
            let k = (self.chunk.len() as u64).min(left) as usize;
            match self.stream.write(&self.chunk[..k]) {
                Ok(n) if n > 0 => self.written += n as u64,
                // Connecting, or the socket holds its unsent share: later.
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                // Ok(0), or the connection failed: the flow has ended.
                _ => self.done = true,
            }
            if self.to_send == Some(self.written) {
                self.finish();
            }
        }
    }

    fn finish(&mut self) {
        self.done = true;
        let _ = self.stream.shutdown(Shutdown::Write);
    }

    fn info(&self) -> Option<TcpInfo> {
        TcpInfo::of(self.stream.as_raw_fd())
    }
}

impl Endpoint for LinuxSender {
    fn start(&mut self, ctx: &mut Ctx) {
        let addr = sockaddr(ADDR[1], PORT);
        // SAFETY: a valid socket and a sockaddr_in of the size given; non-blocking, so the
        // handshake goes on through the emulator (EINPROGRESS).
        unsafe {
            libc::connect(
                self.stream.as_raw_fd(),
                (&addr as *const libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            )
        };
        ctx.set_timer(WRITE, ctx.now());
        ctx.set_timer(SAMPLE, ctx.now());
    }

    fn stop(&mut self, ctx: &mut Ctx) {
        ctx.cancel_timer(WRITE);
        self.finish();
    }

    fn on_timer(&mut self, ctx: &mut Ctx, timer: usize) {
        if timer == WRITE {
            // The SYN takes one sequence number, which tcpi_bytes_acked counts.
            let acked = self
                .info()
                .filter(TcpInfo::connected)
                .map_or(0, |i| i.u64(BYTES_ACKED).saturating_sub(1));
            let made = self.schedule.as_mut().map(|s| s.advance(ctx, acked));
            self.write(made);
            if !self.done {
                ctx.set_timer(WRITE, SimTime(ctx.now().ns() + WRITE_EVERY.ns()));
            }
        } else {
            self.sample.clear();
            if let Some(info) = self.info().filter(TcpInfo::connected) {
                info.state(&mut self.sample);
                if self.cc == "bbr" {
                    bbr_state(self.stream.as_raw_fd(), &mut self.sample);
                }
            }
            ctx.set_timer(SAMPLE, SimTime(ctx.now().ns() + self.sample_every.ns()));
        }
    }

    fn label(&self) -> String {
        format!("Linux {}", self.cc)
    }

    fn probe(&self) -> Probe {
        self.info().map_or_else(Probe::default, |i| Probe {
            window_pkts: i.u32(CWND) as f64,
            rate_bps: Some(i.pacing_bps())
                .filter(|r| r.is_finite())
                .unwrap_or(0.0),
            srtt_s: i.u32(RTT_US) as f64 * 1e-6,
        })
    }

    fn state(&self, out: &mut StateFields) {
        out.extend_from_slice(&self.sample);
    }

    fn stats(&self) -> Vec<(&'static str, Stat)> {
        let Some(i) = self.info() else {
            return vec![("written_bytes", Stat::Count(self.written as f64))];
        };
        let count = |x: f64| Stat::Count(x);
        vec![
            ("cwnd_pkts", Stat::Level(i.u32(CWND) as f64)),
            ("srtt_s", Stat::Level(i.u32(RTT_US) as f64 * 1e-6)),
            ("min_rtt_s", Stat::Level(i.u32(MIN_RTT_US) as f64 * 1e-6)),
            ("retransmits", count(i.u32(TOTAL_RETRANS) as f64)),
            ("acked_bytes", count(i.u64(BYTES_ACKED) as f64)),
            ("sent_bytes", count(i.u64(BYTES_SENT) as f64)),
            ("retransmitted_bytes", count(i.u64(BYTES_RETRANS) as f64)),
            ("delivered_ce_pkts", count(i.u32(DELIVERED_CE) as f64)),
            ("written_bytes", count(self.written as f64)),
        ]
    }
}

/// The receiving application of a kernel flow: it accepts the connection and reads all that
/// arrives every [`WRITE_EVERY`].
pub struct LinuxReceiver {
    listener: TcpListener,
    stream: Option<TcpStream>,
    read: u64,
    buf: Vec<u8>,
}

impl Endpoint for LinuxReceiver {
    fn start(&mut self, ctx: &mut Ctx) {
        ctx.set_timer(WRITE, ctx.now());
    }

    fn on_timer(&mut self, ctx: &mut Ctx, _timer: usize) {
        if self.stream.is_none() {
            self.stream = self
                .listener
                .accept()
                .ok()
                .and_then(|(s, _)| s.set_nonblocking(true).ok().map(|_| s));
        }
        if let Some(s) = self.stream.as_mut() {
            loop {
                match s.read(&mut self.buf) {
                    Ok(n) if n > 0 => self.read += n as u64,
                    _ => break,
                }
            }
        }
        ctx.set_timer(WRITE, SimTime(ctx.now().ns() + WRITE_EVERY.ns()));
    }

    fn stats(&self) -> Vec<(&'static str, Stat)> {
        vec![("goodput_bytes", Stat::Count(self.read as f64))]
    }
}

// --- TCP_INFO -------------------------------------------------------------------------------------

/// Byte offsets in `struct tcp_info` (include/uapi/linux/tcp.h).
const STATE: usize = 0;
const CA_STATE: usize = 1;
const RTT_US: usize = 68;
const RTTVAR_US: usize = 72;
const SSTHRESH: usize = 76;
const CWND: usize = 80;
const TOTAL_RETRANS: usize = 100;
const PACING_RATE: usize = 104;
const BYTES_ACKED: usize = 120;
const MIN_RTT_US: usize = 148;
const DELIVERY_RATE: usize = 160;
const DELIVERED_CE: usize = 196;
const BYTES_SENT: usize = 200;
const BYTES_RETRANS: usize = 208;
/// The size of `struct tcp_info` up to `tcpi_bytes_retrans` (Linux 4.19 on).
const INFO_BYTES: usize = 216;
/// `TCP_INFINITE_SSTHRESH` (include/net/tcp.h): no slow-start threshold yet.
const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// The kernel's `TCP_INFO` of a socket.
pub struct TcpInfo([u8; 256]);

impl TcpInfo {
    pub fn of(fd: RawFd) -> Option<TcpInfo> {
        let mut buf = [0u8; 256];
        let len = tcp_option(fd, libc::TCP_INFO, &mut buf)?;
        (len >= INFO_BYTES).then_some(TcpInfo(buf))
    }

    fn u32(&self, at: usize) -> u32 {
        u32::from_ne_bytes(self.0[at..at + 4].try_into().unwrap_or_default())
    }

    fn u64(&self, at: usize) -> u64 {
        u64::from_ne_bytes(self.0[at..at + 8].try_into().unwrap_or_default())
    }

    /// Whether the connection is (or was) established: not closed before it began, nor still
    /// waiting for the SYN's answer (`TCP_CLOSE`, `TCP_SYN_SENT`, include/net/tcp_states.h).
    fn connected(&self) -> bool {
        !matches!(self.0[STATE], 2 | 7)
    }

    /// The pacing rate in bits/s; infinite before the first RTT sample (the kernel's ~0).
    fn pacing_bps(&self) -> f64 {
        match self.u64(PACING_RATE) {
            u64::MAX => f64::INFINITY,
            r => r as f64 * 8.0,
        }
    }

    /// The fields the state trace records: the window and threshold in segments, the RTT
    /// estimates in seconds, rates in bits/s, and the retransmissions so far.
    fn state(&self, out: &mut StateFields) {
        let ssthresh = match self.u32(SSTHRESH) {
            INFINITE_SSTHRESH => f64::INFINITY,
            s => s as f64,
        };
        out.extend([
            ("cwnd_pkts", self.u32(CWND) as f64),
            ("ssthresh_pkts", ssthresh),
            ("srtt_s", self.u32(RTT_US) as f64 * 1e-6),
            ("rttvar_s", self.u32(RTTVAR_US) as f64 * 1e-6),
            ("pacing_rate_bps", self.pacing_bps()),
            ("delivery_rate_bps", self.u64(DELIVERY_RATE) as f64 * 8.0),
            ("retransmits", self.u32(TOTAL_RETRANS) as f64),
            ("ca_state", self.0[CA_STATE] as f64),
        ]);
    }
}

/// Reads the TCP socket option `name` of `fd` into `buf`; the bytes the kernel wrote.
fn tcp_option(fd: RawFd, name: libc::c_int, buf: &mut [u8]) -> Option<usize> {
    socket_option(fd, libc::IPPROTO_TCP, name, buf)
}

/// BBR's own estimates (`TCP_CC_INFO`'s `struct tcp_bbr_info`, include/uapi/linux/inet_diag.h:
/// bandwidth in bytes/s as two 32-bit halves, then the minimum RTT in µs).
fn bbr_state(fd: RawFd, out: &mut StateFields) {
    let mut buf = [0u8; 20];
    if tcp_option(fd, libc::TCP_CC_INFO, &mut buf).is_none_or(|len| len < 12) {
        return;
    }
    let word = |at: usize| u32::from_ne_bytes(buf[at..at + 4].try_into().unwrap_or_default());
    let bw = (u64::from(word(4)) << 32 | u64::from(word(0))) as f64 * 8.0;
    out.extend([("bbr_bw_bps", bw), ("bbr_min_rtt_s", word(8) as f64 * 1e-6)]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_devices_drops_are_read_from_proc_net_dev() {
        // /proc/net/dev's layout (net/core/net-procfs.c): receive drops 3, transmit drops 11.
        let text = "\
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0
ccs-tun: 1500000    1000    0    3    0     0          0         0  2000000    1400    0   11    0     0       0          0
";
        assert_eq!(device_drops(text, DEVICE), Some(14));
        assert_eq!(device_drops(text, "eth0"), None);
    }

    /// Skips (printing why) where the process may not make namespaces and TUN devices.
    fn privileged() -> bool {
        let able = available();
        if let Err(e) = &able {
            eprintln!("skipped: {e}");
        }
        able.is_ok()
    }

    #[test]
    fn a_full_tun_device_counts_the_packets_it_drops() {
        if !privileged() {
            return;
        }
        // A device whose queue holds 4 packets, never read: of 50 datagrams sent through it, the
        // kernel keeps 4 and drops the rest, and the count says so.
        let (queue, sent) = (4, 50);
        let ns = namespace(LINUX_FLOW).unwrap();
        let _dev = inside(LINUX_FLOW, &ns, || {
            let dev = link(1500, ADDR[0], ADDR[1])?;
            let q = queue.to_string();
            tool(LINUX_FLOW, &["ip", "link", "set", DEVICE, "txqueuelen", &q])?;
            let socket =
                std::net::UdpSocket::bind("10.0.0.1:0").map_err(|e| LINUX_FLOW.unable(e))?;
            for _ in 0..sent {
                socket
                    .send_to(&[0; 100], "10.0.0.2:9")
                    .map_err(|e| LINUX_FLOW.unable(e))?;
            }
            Ok(dev)
        })
        .unwrap();
        assert_eq!(namespace_drops(&ns), Some(sent - queue));
    }

    #[test]
    fn parked_bytes_come_back_once_and_old_ones_go() {
        let mut p = Parked::default();
        let a = p.park(b"first", SimTime(0));
        let b = p.park(b"second", SimTime(1));
        assert_eq!(p.take(b).as_deref(), Some(&b"second"[..]));
        assert_eq!(p.take(b), None, "taken already");
        // `a` was dropped in the network: after OLDEST it goes when the next one comes.
        let c = p.park(b"third", SimTime(Parked::OLDEST.ns() + 1));
        assert_eq!(p.take(a), None);
        assert_eq!(p.take(c).as_deref(), Some(&b"third"[..]));
        assert_eq!(p.slots.len(), 1);
    }

    #[test]
    fn a_ce_mark_keeps_the_ipv4_header_checksum_valid() {
        // An IPv4 header with ECT(0) (RFC 1071's sum over it is 0xffff when valid).
        let mut ip = vec![
            0x45, 0x02, 0x00, 0x34, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0, 0, 10, 0, 0, 1, 10, 0,
            0, 2,
        ];
        let sum = |h: &[u8]| {
            let mut s: u32 = h
                .chunks(2)
                .map(|w| u32::from(u16::from_be_bytes([w[0], w[1]])))
                .sum();
            while s > 0xffff {
                s = (s & 0xffff) + (s >> 16);
            }
            s
        };
        let c = !(sum(&ip) as u16);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
        assert_eq!(sum(&ip), 0xffff);
        mark_ce(&mut ip);
        assert_eq!(ip[1] & 3, 3, "CE");
        assert_eq!(sum(&ip), 0xffff, "checksum still valid");
        let mut not_ect = ip.clone();
        not_ect[1] = 0;
        let before = not_ect.clone();
        mark_ce(&mut not_ect);
        assert_eq!(
            not_ect, before,
            "a Not-ECT packet is never marked (RFC 3168 §5)"
        );
    }
}
