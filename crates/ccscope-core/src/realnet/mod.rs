//! The real-time engine: the packet engine's transports, controllers and applications on real
//! UDP datagrams, through an emulated bottleneck on loopback.
//!
//! Three threads share one clock, and the caller's thread only watches them (for Ctrl-C and
//! progress). [`host::Hosts`] runs every flow's sender (on one thread) and receiver (on
//! another), the very endpoint objects [`crate::build::endpoints`] makes for the packet
//! engine, as sans-IO state machines on the wall clock, and sends their packets as datagrams
//! ([`wire`]) to the emulator.
//! [`emulator::Emulator`] is the packet engine's network (links, queues, loss, capacity
//! changes) run against the same clock: each datagram enters at the sending end of its flow's
//! path and leaves as a datagram to the hosts when it reaches the far end. The result has the
//! packet engine's shape: the network's counters from the emulator, each endpoint's own
//! numbers from the hosts.
//!
//! Unlike the packet engine, a real-time run is not reproducible to the bit: the scheduler,
//! the socket buffers and the clock decide the exact timing of every packet.

mod batch;
pub mod emulator;
pub mod host;
pub mod kernel;
pub mod linux;
pub mod netns;
pub mod wire;

use std::net::UdpSocket;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::build::{endpoints, Endpoints};
use crate::config;
use crate::config::SourceSpec;
use crate::control::catalog::NoForeign;
use crate::error::{Error, Result};
use crate::net::trace::StateLog;
use crate::net::RunResult;
use crate::scenario::Emulation;
use crate::time::SimTime;
use emulator::Emulator;
use host::Hosts;
use linux::{LinuxFlow, Tuns};

/// The run's clock: time since the run began, as the engines count it.
pub struct Clock(Instant);

impl Clock {
    pub fn start() -> Clock {
        Clock(Instant::now())
    }
    pub fn now(&self) -> SimTime {
        SimTime(self.0.elapsed().as_nanos() as u64)
    }

    /// The run's time now, with the realtime clock's (`CLOCK_REALTIME`, ns since the epoch)
    /// read at once, to place the kernel's timestamps ([`Clock::at`]).
    pub fn now_with_realtime(&self) -> (SimTime, u64) {
        (self.now(), realtime_ns())
    }

    /// The run's time of a kernel timestamp `stamp` (realtime ns), by its age at `now` (from
    /// [`Clock::now_with_realtime`]): only the age counts, so the realtime clock's offset from
    /// the run's never does. No later than `now`, and `now` without a stamp.
    pub fn at((now, realtime): (SimTime, u64), stamp: Option<u64>) -> SimTime {
        let age = stamp.map_or(0, |t| realtime.saturating_sub(t));
        SimTime(now.ns().saturating_sub(age))
    }

    /// How long to wait for a datagram before `due`: at most [`MAX_WAIT`], so that a loop
    /// looks at the clock (and at its stop flag) every few milliseconds.
    pub fn wait_until(&self, due: SimTime) -> Duration {
        Duration::from_nanos(due.ns().saturating_sub(self.now().ns())).min(MAX_WAIT)
    }
}

/// The realtime clock (`CLOCK_REALTIME`), the kernel's timestamps' clock, in ns since the
/// epoch.
fn realtime_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// A socket error, as the error of the setting that asked for sockets.
fn io_error(e: std::io::Error) -> Error {
    Error::invalid(
        "run.engine",
        "\"udp\"",
        format!("a working loopback UDP socket ({e})"),
    )
}

/// Each loopback socket's receive and send buffer, in bytes of the kernel's accounting (a
/// datagram's bytes and bookkeeping: up to about twice its bytes), not memory taken: room for
/// tens of milliseconds of datagrams at the fastest emulated rate (1 Gb/s for 10 ms is 1.25
/// MB), far more than a thread a moment late to read leaves waiting, yet a bound on how far a
/// machine that cannot keep up lets datagrams wait before the emulated network (they then
/// arrive late, which the hosts measure, rather than lost).
const SOCKET_BUFFER: libc::c_int = 16 << 20;

/// `socket` with buffers of [`SOCKET_BUFFER`]. A datagram that finds a socket's receive buffer
/// full is lost outside the emulated network, which counts no such loss: with the default
/// buffer (`net.core.rmem_default`, 208 KiB: about a hundred 1000-byte datagrams) a thread a
/// fraction of a millisecond late to read at 1 Gb/s lost datagrams, and TCP flows took them for
/// congestion. `SO_RCVBUFFORCE`/`SO_SNDBUFFORCE` go beyond the system's limit with
/// CAP_NET_ADMIN; without it, `SO_RCVBUF`/`SO_SNDBUF` get as much as `net.core.rmem_max` and
/// `net.core.wmem_max` allow (socket(7)).
fn roomy(socket: UdpSocket) -> UdpSocket {
    let set = |name| batch::int_option(socket.as_raw_fd(), libc::SOL_SOCKET, name, SOCKET_BUFFER);
    for (forced, capped) in [
        (libc::SO_RCVBUFFORCE, libc::SO_RCVBUF),
        (libc::SO_SNDBUFFORCE, libc::SO_SNDBUF),
    ] {
        if !set(forced) {
            set(capped);
        }
    }
    socket
}

/// `SO_MEMINFO` (include/uapi/asm-generic/socket.h, Linux 4.6), which the libc crate does not
/// name for this target.
const SO_MEMINFO: libc::c_int = 55;

/// The datagrams the kernel has dropped on their way into socket `fd` since it was made, `None`
/// where the kernel does not say: the socket's drop counter (`SK_MEMINFO_DROPS` of
/// `SO_MEMINFO`, `sk_drops` in net/core/sock.c `sk_get_meminfo`), which UDP raises for a
/// datagram that finds the receive buffer full (net/ipv4/udp.c `udp_queue_rcv_one_skb`) and,
/// rarely, for one with a bad checksum.
pub(crate) fn receive_drops(fd: RawFd) -> Option<u64> {
    let mut info = [0u8; 4 * (libc::SK_MEMINFO_DROPS as usize + 1)];
    let at = 4 * libc::SK_MEMINFO_DROPS as usize;
    match socket_option(fd, libc::SOL_SOCKET, SO_MEMINFO, &mut info) {
        Some(len) if len == info.len() => Some(u64::from(u32::from_ne_bytes(
            info[at..at + 4].try_into().ok()?,
        ))),
        _ => None,
    }
}

/// Reads the socket option `name` of `level` of `fd` into `buf`; the bytes the kernel wrote.
pub(crate) fn socket_option(
    fd: RawFd,
    level: libc::c_int,
    name: libc::c_int,
    buf: &mut [u8],
) -> Option<usize> {
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: a buffer of `len` bytes the kernel fills, and its length.
    let rc = unsafe { libc::getsockopt(fd, level, name, buf.as_mut_ptr().cast(), &mut len) };
    (rc == 0).then_some(len as usize)
}

/// The longest a loop blocks on its socket without looking at the clock.
const MAX_WAIT: Duration = Duration::from_millis(5);

/// The files (sockets, devices) a loop waits on, and which of them the last wait found
/// readable: a loop reads only those, rather than asking each file and being told it has
/// nothing (a system call each).
pub(crate) struct Waiter(Vec<libc::pollfd>);

impl Waiter {
    pub(crate) fn new(files: impl IntoIterator<Item = RawFd>) -> Waiter {
        Waiter(
            files
                .into_iter()
                .map(|fd| libc::pollfd {
                    fd,
                    events: libc::POLLIN,
                    revents: 0,
                })
                .collect(),
        )
    }

    /// Waits until one of the files has something to read or `timeout` has passed; says
    /// whether one has.
    ///
    /// `SO_RCVTIMEO` counts in scheduler ticks (4 ms at 250 Hz), far coarser than a packet's
    /// serialization at 10 Mb/s (0.8 ms for 1000 bytes), so the wait is `ppoll(2)`, which
    /// sleeps on a high-resolution timer; the calling thread's timer slack is set to 1 µs
    /// (`prctl(2)` `PR_SET_TIMERSLACK`; the default 50 µs would be added to every wake-up).
    pub(crate) fn wait(&mut self, timeout: Duration) -> std::io::Result<bool> {
        let ts = libc::timespec {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        // SAFETY: valid pollfds for the duration of the call, a valid timespec, no signal mask.
        let n = unsafe {
            libc::ppoll(
                self.0.as_mut_ptr(),
                self.0.len() as libc::nfds_t,
                &ts,
                std::ptr::null(),
            )
        };
        match n {
            n if n < 0 => {
                self.0.iter_mut().for_each(|p| p.revents = 0);
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    Ok(false)
                } else {
                    Err(e)
                }
            }
            n => Ok(n > 0),
        }
    }

    /// Whether file `k` had something to read (or an error to report) at the last wait.
    pub(crate) fn ready(&self, k: usize) -> bool {
        self.0.get(k).is_some_and(|p| p.revents != 0)
    }
}

/// Makes the calling thread's timed waits wake within about 1 µs of their deadline and, where
/// the machine allows it (root, or an rtprio limit), gives the thread a real-time priority
/// (`SCHED_FIFO`, `sched_setscheduler(2)`), so that other work on a busy machine does not delay
/// its wake-ups. The loops block in `ppoll` between events, so they cannot starve the machine,
/// and the kernel keeps 5% of every second for other work (`sched_rt_runtime_us`). For the
/// rest of the thread's life: the hosts and the emulator each run on a thread that ends with
/// the run.
fn real_time() {
    // SAFETY: prctl's PR_SET_TIMERSLACK and sched_setscheduler with pid 0 change only this
    // thread's settings, through a valid pointer; a refused priority leaves it as it was.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong, 0, 0, 0);
        libc::sched_setscheduler(
            0,
            libc::SCHED_FIFO,
            &libc::sched_param { sched_priority: 10 },
        );
    }
}

/// Runs `scenario` in real time over loopback UDP through the emulated network (its
/// bottleneck queues in user space or, with [`Emulation::Kernel`], in the kernel), with the
/// catalogue's endpoints.
pub fn run(scenario: &config::Scenario, emulation: Emulation) -> Result<RunResult> {
    run_with(
        scenario,
        emulation,
        |i| endpoints(&scenario.flows[i].source, i, scenario.seed, &mut NoForeign),
        |_| true,
    )
}

/// How often the kernel's TCP flows sample `TCP_INFO` when the scenario traces nothing.
const KERNEL_SAMPLE_NS: u64 = 100_000_000;

/// How often the calling thread of a real-time run asks `go_on`.
const WATCH_EVERY: Duration = Duration::from_millis(10);

/// Runs `scenario` in real time with flow i's endpoints from `make(i)`, until its end or until
/// `go_on(now)` (asked every few milliseconds on the calling thread, while the hosts and the
/// emulator run on threads of their own) says no; then reports what was measured up to then,
/// as the packet engine's [`crate::net::Simulation::finish`] does.
pub fn run_with(
    scenario: &config::Scenario,
    emulation: Emulation,
    mut make: impl FnMut(usize) -> Result<Endpoints>,
    mut go_on: impl FnMut(SimTime) -> bool,
) -> Result<RunResult> {
    let bind = || UdpSocket::bind("127.0.0.1:0").map(roomy).map_err(io_error);
    let (emu_socket, host_sockets) = (bind()?, [bind()?, bind()?]);
    let emu_addr = emu_socket.local_addr().map_err(io_error)?;
    let host_addrs = [
        host_sockets[0].local_addr().map_err(io_error)?,
        host_sockets[1].local_addr().map_err(io_error)?,
    ];
    // Tells this run's datagrams from any other's on a reused port.
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let nonce =
        since_epoch.subsec_nanos() ^ std::process::id().rotate_left(16) ^ emu_addr.port() as u32;
    // The kernel's TCP flows: their namespaces, devices and sockets, made before anything runs.
    let sample_every = SimTime(scenario.trace.interval_ns.unwrap_or(KERNEL_SAMPLE_NS));
    let mut linux = scenario
        .flows
        .iter()
        .map(|f| match &*f.source {
            SourceSpec::Linux(spec) => LinuxFlow::new(spec, f.ecn, sample_every).map(Some),
            _ => Ok(None),
        })
        .collect::<Result<Vec<_>>>()?;
    let tuns: Vec<Option<Tuns>> = linux
        .iter()
        .map(|l| l.as_ref().map(|l| l.tuns.clone()))
        .collect();
    let emulator = match emulation {
        Emulation::User => Emulator::new(scenario, emu_socket, host_addrs, nonce, &tuns)?,
        Emulation::Kernel => {
            let (kernel, user) = kernel::Bottleneck::new(scenario, nonce)?;
            Emulator::new(&user, emu_socket, host_addrs, nonce, &tuns)?.behind(kernel)
        }
    };
    let flows = scenario
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let endpoints: Endpoints = match linux[i].take() {
                Some(l) => (Box::new(l.sender), Box::new(l.receiver)),
                None => make(i)?,
            };
            Ok((endpoints, f.ecn, emulator.flow_times(i as u32)))
        })
        .collect::<Result<Vec<_>>>()?;
    let trace = &scenario.trace;
    let halves = Hosts::new(flows, scenario.seed, host_sockets, emu_addr, nonce)?.map(|mut h| {
        if trace.flows {
            h = h.sampling(SimTime(trace.interval_ns.unwrap_or(scenario.duration_ns)));
        }
        if trace.state {
            h = h.logging_state();
        }
        h
    });
    let (warmup, end) = (SimTime(scenario.warmup_ns), SimTime(scenario.duration_ns));
    let clock = Clock::start();
    let (stop, stop_hosts) = (AtomicBool::new(false), AtomicBool::new(false));
    let (network, reports) = std::thread::scope(|s| {
        let emu = s.spawn(|| emulator.run(&clock, &stop));
        let hosts = halves.map(|h| s.spawn(|| h.run(&clock, warmup, end, &stop_hosts)));
        // The caller's thread only watches: `go_on` may wait (for Python's GIL, say) without
        // holding up a real-time thread.
        while !hosts.iter().all(|h| h.is_finished()) {
            std::thread::sleep(WATCH_EVERY);
            if !go_on(clock.now()) {
                stop_hosts.store(true, Ordering::Relaxed);
                break;
            }
        }
        let hosts = hosts.map(|h| {
            h.join().unwrap_or_else(|_| {
                Err(Error::invalid(
                    "run.engine",
                    "\"udp\"",
                    "hosts that do not fail",
                ))
            })
        });
        stop.store(true, Ordering::Relaxed);
        let network = emu.join().unwrap_or_else(|_| {
            Err(Error::invalid(
                "run.engine",
                "\"udp\"",
                "an emulator that does not fail",
            ))
        });
        (network, hosts)
    });
    let mut result = network?;
    let [senders, receivers] = reports;
    let (senders, receivers) = (senders?, receivers?);
    for (name, half) in [("senders", &senders), ("receivers", &receivers)] {
        if let Some(n) = half.socket_drops {
            result.socket_drops.push((name, n));
        }
    }
    let probes = senders.probes;
    let state = merged(senders.state, receivers.state);
    // The endpoints' state lives in the hosts: their probes fill the trace's flow bins, and
    // their state log is the trace's (the emulator's proxies have none).
    if let Some(t) = result.trace.as_mut() {
        if !t.flows.is_empty() {
            for (bin, row) in probes.iter().enumerate().take(t.bins) {
                for (flow, probe) in row.iter().enumerate() {
                    t.flows[bin * t.n_flows + flow].probe = *probe;
                }
            }
        }
        t.state = state;
    }
    for ((flow, snd), rcv) in result
        .flows
        .iter_mut()
        .zip(senders.reports)
        .zip(receivers.reports)
    {
        flow.label = snd.label;
        // The emulator's numbers of the flow (its data's entry lateness) after the host's.
        let emulator = std::mem::replace(&mut flow.sender, snd.stats);
        flow.sender.extend(emulator);
        flow.receiver = rcv.stats;
        flow.series = rcv.series;
    }
    Ok(result)
}

/// One state log of the senders' and the receivers' (each in time order), in time order, the
/// senders' rows first among rows of the same time.
fn merged(senders: Option<StateLog>, receivers: Option<StateLog>) -> Option<StateLog> {
    let (a, b) = match (senders, receivers) {
        (Some(a), Some(b)) => (a, b),
        (a, b) => return a.or(b),
    };
    let mut out = StateLog::default();
    let (mut i, mut j) = (0, 0);
    while i < a.time_ns.len() || j < b.time_ns.len() {
        let from_a = j == b.time_ns.len() || (i < a.time_ns.len() && a.time_ns[i] <= b.time_ns[j]);
        let (log, k) = if from_a { (&a, &mut i) } else { (&b, &mut j) };
        let name = log.names[log.field[*k] as usize];
        let field = match out.names.iter().position(|n| *n == name) {
            Some(f) => f,
            None => {
                out.names.push(name);
                out.names.len() - 1
            }
        };
        out.time_ns.push(log.time_ns[*k]);
        out.flow.push(log.flow[*k]);
        out.side.push(log.side[*k]);
        out.field.push(field as u16);
        out.value.push(log.value[*k]);
        *k += 1;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel timestamp counts by its age: 5 ms old at a reading is 5 ms before it, one from
    /// the reading's future (a realtime clock stepped back) is the reading, none is the reading.
    #[test]
    fn a_kernel_timestamp_is_placed_by_its_age() {
        let now = (SimTime(20_000_000), 1_700_000_000_000_000_000);
        assert_eq!(Clock::at(now, Some(now.1 - 5_000_000)), SimTime(15_000_000));
        assert_eq!(Clock::at(now, Some(now.1 + 5_000_000)), now.0);
        assert_eq!(Clock::at(now, None), now.0);
        assert_eq!(
            Clock::at(now, Some(0)),
            SimTime::ZERO,
            "no earlier than the run's start"
        );
    }

    /// A log of the rows (time, flow, side, name, value) given.
    fn log(rows: &[(u64, u32, u8, &'static str, f64)]) -> StateLog {
        let mut l = StateLog::default();
        for &(t, flow, side, name, value) in rows {
            let field = match l.names.iter().position(|n| *n == name) {
                Some(f) => f,
                None => {
                    l.names.push(name);
                    l.names.len() - 1
                }
            };
            l.time_ns.push(t);
            l.flow.push(flow);
            l.side.push(side);
            l.field.push(field as u16);
            l.value.push(value);
        }
        l
    }

    fn rows(l: &StateLog) -> Vec<(u64, u32, u8, &'static str, f64)> {
        (0..l.time_ns.len())
            .map(|k| {
                let name = l.names[l.field[k] as usize];
                (l.time_ns[k], l.flow[k], l.side[k], name, l.value[k])
            })
            .collect()
    }

    /// A burst far beyond what the default receive buffer holds (`net.core.rmem_default`, 208
    /// KiB: about a hundred 1000-byte datagrams with the kernel's bookkeeping) waits unread in
    /// a run's socket without loss.
    #[test]
    fn a_burst_waits_unread_in_a_runs_socket_without_loss() {
        let rx = roomy(UdpSocket::bind("127.0.0.1:0").unwrap());
        let tx = UdpSocket::bind("127.0.0.1:0").unwrap();
        let to = rx.local_addr().unwrap();
        let burst: u32 = 2000;
        for k in 0..burst {
            let mut datagram = [0u8; 1000];
            datagram[..4].copy_from_slice(&k.to_le_bytes());
            tx.send_to(&datagram, to).unwrap();
        }
        rx.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 1000];
        let mut got = Vec::new();
        while let Ok(n) = rx.recv(&mut buf) {
            assert_eq!(n, 1000);
            got.push(u32::from_le_bytes(buf[..4].try_into().unwrap()));
        }
        assert_eq!(got, (0..burst).collect::<Vec<_>>());
    }

    /// Datagrams that find a receive buffer full are dropped, and the socket's count is every
    /// datagram sent to it and never read.
    #[test]
    fn a_full_receive_buffer_counts_the_datagrams_it_drops() {
        let rx = UdpSocket::bind("127.0.0.1:0").unwrap();
        // The smallest buffer the kernel allows (a few KiB: a handful of datagrams).
        assert!(batch::int_option(
            rx.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVBUF,
            1
        ));
        let tx = UdpSocket::bind("127.0.0.1:0").unwrap();
        assert_eq!(receive_drops(rx.as_raw_fd()), Some(0));
        let sent = 200;
        for _ in 0..sent {
            tx.send_to(&[0u8; 1000], rx.local_addr().unwrap()).unwrap();
        }
        // Loopback hands datagrams on in a soft interrupt, soon after each send.
        std::thread::sleep(Duration::from_millis(20));
        rx.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 1000];
        let mut read = 0;
        while rx.recv(&mut buf).is_ok() {
            read += 1;
        }
        let dropped = receive_drops(rx.as_raw_fd()).unwrap();
        assert!(dropped > 0 && read > 0, "read {read}, dropped {dropped}");
        assert_eq!(read + dropped, sent);
    }

    #[test]
    fn the_halves_state_logs_merge_in_time_order_with_their_names() {
        let senders = log(&[(1, 0, 0, "cwnd_pkts", 10.0), (5, 1, 0, "rate_bps", 2e6)]);
        let receivers = log(&[
            (0, 0, 1, "p", 0.01),
            (5, 0, 1, "p", 0.02),
            (9, 1, 1, "x", 3.0),
        ]);
        let m = merged(Some(senders), Some(receivers)).unwrap();
        assert_eq!(
            rows(&m),
            vec![
                (0, 0, 1, "p", 0.01),
                (1, 0, 0, "cwnd_pkts", 10.0),
                (5, 1, 0, "rate_bps", 2e6),
                (5, 0, 1, "p", 0.02),
                (9, 1, 1, "x", 3.0),
            ],
            "time order, the senders' row first at a tie"
        );
        assert_eq!(m.names, ["p", "cwnd_pkts", "rate_bps", "x"]);
        assert!(merged(None, None).is_none());
    }
}
