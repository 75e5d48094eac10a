//! The real-time engine: the packet engine's transports, controllers and applications on real
//! UDP datagrams, through an emulated bottleneck on loopback.
//!
//! Two threads share one clock, and the caller's thread only watches them (for Ctrl-C and
//! progress). [`host::Hosts`] runs every flow's sender and receiver, the very
//! endpoint objects [`crate::build::endpoints`] makes for the packet engine, as sans-IO state
//! machines on the wall clock, and sends their packets as datagrams ([`wire`]) to the emulator.
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
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::build::{endpoints, Endpoints};
use crate::config;
use crate::config::SourceSpec;
use crate::control::catalog::NoForeign;
use crate::error::{Error, Result};
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

    /// How long to wait for a datagram before `due`: at most [`MAX_WAIT`], so that a loop
    /// looks at the clock (and at its stop flag) every few milliseconds.
    pub fn wait_until(&self, due: SimTime) -> Duration {
        Duration::from_nanos(due.ns().saturating_sub(self.now().ns())).min(MAX_WAIT)
    }
}

/// A socket error, as the error of the setting that asked for sockets.
fn io_error(e: std::io::Error) -> Error {
    Error::invalid(
        "run.engine",
        "\"udp\"",
        format!("a working loopback UDP socket ({e})"),
    )
}

/// The longest a loop blocks on its socket without looking at the clock.
const MAX_WAIT: Duration = Duration::from_millis(5);

/// Waits until one of `files` (sockets, devices) has a datagram or `timeout` has passed; says which.
///
/// `SO_RCVTIMEO` counts in scheduler ticks (4 ms at 250 Hz), far coarser than a packet's
/// serialization at 10 Mb/s (0.8 ms for 1000 bytes), so the wait is `ppoll(2)`, which sleeps on a
/// high-resolution timer; the calling thread's timer slack is set to 1 µs (`prctl(2)`
/// `PR_SET_TIMERSLACK`; the default 50 µs would be added to every wake-up).
fn wait_readable(files: &[RawFd], timeout: Duration) -> std::io::Result<bool> {
    let mut fds: Vec<libc::pollfd> = files
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: valid pollfds for the duration of the call, a valid timespec, no signal mask.
    let n = unsafe {
        libc::ppoll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
    match n {
        n if n < 0 => {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                Ok(false)
            } else {
                Err(e)
            }
        }
        0 => Ok(false),
        _ => Ok(true),
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
    let bind = || UdpSocket::bind("127.0.0.1:0").map_err(io_error);
    let (emu_socket, host_socket) = (bind()?, bind()?);
    let (emu_addr, host_addr) = (
        emu_socket.local_addr().map_err(io_error)?,
        host_socket.local_addr().map_err(io_error)?,
    );
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
        Emulation::User => Emulator::new(scenario, emu_socket, host_addr, nonce, &tuns)?,
        Emulation::Kernel => {
            let (kernel, user) = kernel::Bottleneck::new(scenario, nonce)?;
            Emulator::new(&user, emu_socket, host_addr, nonce, &tuns)?.behind(kernel)
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
    let mut hosts = Hosts::new(flows, scenario.seed, host_socket, emu_addr, nonce)?;
    let trace = &scenario.trace;
    if trace.flows {
        hosts = hosts.sampling(SimTime(trace.interval_ns.unwrap_or(scenario.duration_ns)));
    }
    if trace.state {
        hosts = hosts.logging_state();
    }
    let (warmup, end) = (SimTime(scenario.warmup_ns), SimTime(scenario.duration_ns));
    let clock = Clock::start();
    let (stop, stop_hosts) = (AtomicBool::new(false), AtomicBool::new(false));
    let (network, reports) = std::thread::scope(|s| {
        let emu = s.spawn(|| emulator.run(&clock, &stop));
        let hosts = s.spawn(|| hosts.run(&clock, warmup, end, &stop_hosts));
        // The caller's thread only watches: `go_on` may wait (for Python's GIL, say) without
        // holding up a real-time thread.
        while !hosts.is_finished() {
            std::thread::sleep(WATCH_EVERY);
            if !go_on(clock.now()) {
                stop_hosts.store(true, Ordering::Relaxed);
                break;
            }
        }
        let hosts = hosts.join().unwrap_or_else(|_| {
            Err(Error::invalid(
                "run.engine",
                "\"udp\"",
                "hosts that do not fail",
            ))
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
    let host::HostsOutcome {
        reports,
        probes,
        state,
    } = reports?;
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
    for (flow, report) in result.flows.iter_mut().zip(reports) {
        flow.label = report.label;
        flow.sender = report.sender;
        flow.receiver = report.receiver;
        flow.series = report.series;
    }
    Ok(result)
}
