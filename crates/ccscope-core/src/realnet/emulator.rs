//! The emulated network: the packet engine's own links, queues, loss modules and capacity
//! changes, run against the wall clock, with real datagrams going in and out.
//!
//! The emulator is a [`Simulation`] whose endpoints are proxies. A datagram from a host is
//! handed to the proxy at the sending end of its flow, which sends it into the simulated
//! network at the current wall-clock time; a packet that reaches the far end of its path is
//! handed to the proxy there, which puts it on the socket back to the host. Serialization,
//! propagation, queueing (DropTail, RED), random loss and capacity changes are therefore the
//! very code the packet engine runs, and the link and flow counters come out the same way.

use std::fs::File;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::batch::{Inbox, Outbox, BATCH};
use super::host::{micros_late, p50_and_p99};
use super::kernel::Bottleneck;
use super::linux::{Parked, Tap, TunProxy, Tuns};
use super::{io_error, real_time, receive_drops, wire, Clock, Waiter};
use crate::config;
use crate::error::Result;
use crate::net::packet::{Dir, Packet};
use crate::net::{Ctx, Endpoint, RunResult, Side, Simulation};
use crate::time::SimTime;

/// One end of a flow inside the emulator: what the network delivers here goes to the host
/// of that end (the senders' or the receivers' half), through the emulator's outbox for it
/// (sent after each pass of the network).
struct Proxy {
    outbox: Arc<Mutex<Outbox>>,
    nonce: u32,
    buf: Vec<u8>,
}

impl Endpoint for Proxy {
    fn on_packet(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        let mut pkt = *pkt;
        // The time the packet was due at the far end: the host measures how late it came.
        pkt.sent_at = ctx.now();
        wire::encode(&pkt, self.nonce, &mut self.buf);
        if let Ok(mut outbox) = self.outbox.lock() {
            outbox.push(&self.buf);
        }
    }
}

/// A network emulator for `scenario`, serving datagrams that arrive on `socket` and delivering
/// to the senders' and the receivers' hosts.
pub struct Emulator {
    sim: Simulation,
    socket: Arc<UdpSocket>,
    nonce: u32,
    /// The kernel's bottleneck queues, which a datagram crosses before it enters `sim`.
    kernel: Option<Bottleneck>,
    /// The TUN devices of the kernel's TCP flows, and the bytes of their packets in `sim`.
    taps: Vec<Tap>,
    parked: Arc<Mutex<Parked>>,
    /// The kernel's TCP flows' devices, and the packets they refused from the network.
    tuns: Vec<Tuns>,
    tun_refused: Arc<AtomicU64>,
    /// What the proxies deliver to the senders' and to the receivers' hosts, sent together
    /// after each pass of the network.
    outboxes: [Arc<Mutex<Outbox>>; 2],
    inbox: Inbox,
    /// The end of the warm-up, and per flow how late, after it, its data datagrams from the
    /// senders' host entered the network after they were sent, in µs.
    warmup: SimTime,
    entry_late_us: Vec<Vec<u32>>,
}

impl Emulator {
    ///
    /// `hosts`: the senders' address, then the receivers'. Flow i is a flow of the kernel's
    /// TCP when `linux[i]` has its TUN devices: its packets come from and go to them.
    pub fn new(
        scenario: &config::Scenario,
        socket: UdpSocket,
        hosts: [SocketAddr; 2],
        nonce: u32,
        linux: &[Option<Tuns>],
    ) -> Result<Emulator> {
        let socket = Arc::new(socket);
        let parked = Arc::new(Mutex::new(Parked::default()));
        let tun_refused = Arc::new(AtomicU64::new(0));
        let outbox = |to| Outbox::new(to).map(|o| Arc::new(Mutex::new(o)));
        let outboxes = [
            outbox(hosts[0]).map_err(io_error)?,
            outbox(hosts[1]).map_err(io_error)?,
        ];
        let sim = Simulation::new(scenario, |i| {
            if let Some(Some(Tuns { files, .. })) = linux.get(i) {
                let proxy = |file: &Arc<File>| -> Box<dyn Endpoint> {
                    Box::new(TunProxy {
                        file: file.clone(),
                        parked: parked.clone(),
                        refused: tun_refused.clone(),
                    })
                };
                return Ok((proxy(&files[0]), proxy(&files[1])));
            }
            let proxy = |side: Side| -> Box<dyn Endpoint> {
                Box::new(Proxy {
                    outbox: outboxes[side as usize].clone(),
                    nonce,
                    buf: Vec::new(),
                })
            };
            Ok((proxy(Side::Sender), proxy(Side::Receiver)))
        })?;
        let taps = linux
            .iter()
            .enumerate()
            .filter_map(|(i, t)| Some(Tap::of(i as u32, t.as_ref()?)))
            .flatten()
            .collect();
        Ok(Emulator {
            sim,
            socket,
            nonce,
            kernel: None,
            taps,
            parked,
            tuns: linux.iter().flatten().cloned().collect(),
            tun_refused,
            outboxes,
            inbox: Inbox::default(),
            warmup: SimTime(scenario.warmup_ns),
            entry_late_us: vec![Vec::new(); scenario.flows.len()],
        })
    }

    /// The same emulator behind the kernel's bottleneck queues (`sim` is then the network
    /// [`Bottleneck::new`] left to user space). It reads the hosts' datagrams without
    /// coalescing: each goes into the kernel's queue with a system call of its own, so a read
    /// of up to 64 runs of 64 coalesced datagrams held up the packets leaving the network for
    /// tens of milliseconds at 1 Gb/s.
    pub fn behind(self, kernel: Bottleneck) -> Emulator {
        Emulator {
            kernel: Some(kernel),
            inbox: Inbox::one_each(),
            ..self
        }
    }

    /// Flow `flow`'s start and stop times as the run drew them (the hosts follow them).
    pub fn flow_times(&self, flow: u32) -> (SimTime, Option<SimTime>) {
        self.sim.flow_times(flow)
    }

    /// Runs until the clock reaches the scenario's end or `stop` is set, then reports what it
    /// measured up to then.
    pub fn run(mut self, clock: &Clock, stop: &AtomicBool) -> Result<RunResult> {
        real_time();
        self.socket.set_nonblocking(true).map_err(io_error)?;
        let end = self.sim.end();
        let mut buf = vec![0u8; 65536];
        let mut encoded = Vec::new();
        // The socket, the kernel's queues' sockets, then the TUN devices.
        let kernel_sockets = self.kernel.as_ref().map(|k| k.sockets());
        let mut waiter = Waiter::new(
            std::iter::once(&*self.socket)
                .chain(kernel_sockets.into_iter().flatten())
                .map(|s| s.as_raw_fd())
                .chain(self.taps.iter().map(|t| t.file.as_raw_fd())),
        );
        let first_tap = 1 + self.kernel.as_ref().map_or(0, |k| k.sockets().len());
        loop {
            let now = clock.now();
            // What the kernel let through leaves the bottleneck at its time.
            if let Some(kernel) = self.kernel.as_mut() {
                let sim = &mut self.sim;
                kernel.release(now, |at, pkt| {
                    sim.run_until(at);
                    inject(sim, pkt);
                });
            }
            self.sim.run_until(now);
            self.deliver()?;
            if now >= end || stop.load(Ordering::Relaxed) {
                break;
            }
            let leaving = self.kernel.as_ref().and_then(|k| k.next_departure());
            let due = self
                .sim
                .next_event()
                .into_iter()
                .chain(leaving)
                .min()
                .unwrap_or(end)
                .min(end);
            let wait = clock.wait_until(due);
            let wait = match self.kernel {
                None => coarse(wait),
                Some(_) => wait,
            };
            if !waiter.wait(wait).map_err(io_error)? {
                continue;
            }
            // Every packet the kernel's TCP sent enters the network at the time it is read:
            // behind the kernel's queues, as the datagram a host would have sent for it.
            for (k, tap) in self.taps.iter().enumerate() {
                while waiter.ready(first_tap + k) {
                    let sim = &mut self.sim;
                    let entering = || {
                        let now = clock.now();
                        sim.run_until(now);
                        now
                    };
                    match tap
                        .read(&mut buf, &self.parked, entering)
                        .map_err(io_error)?
                    {
                        Some(pkt) => match self.kernel.as_mut() {
                            None => inject(sim, pkt),
                            Some(kernel) => {
                                wire::encode(&pkt, self.nonce, &mut encoded);
                                kernel.enter(&encoded, pkt.sent_at)?;
                            }
                        },
                        None => break,
                    }
                }
            }
            let fd = self.socket.as_raw_fd();
            match self.kernel.as_mut() {
                // Every datagram waiting enters the network at the time it is read, a batch
                // at a time, what each batch brings out delivered together; a batch that is
                // not full emptied the socket.
                None if waiter.ready(0) => loop {
                    let n = self.inbox.recv(fd).map_err(io_error)?;
                    for datagram in self.inbox.datagrams() {
                        if let Some(pkt) = wire::decode(datagram, self.nonce) {
                            let now = clock.now();
                            self.sim.run_until(now);
                            entering(&mut self.entry_late_us, self.warmup, now, &pkt);
                            inject(&mut self.sim, pkt);
                        }
                    }
                    self.deliver()?;
                    if n < BATCH {
                        break;
                    }
                },
                None => {}
                // Behind the kernel's queues, every datagram enters them at the time it is
                // read, whole (its padding restored: the kernel's queue counts its bytes), one
                // batch a pass: between batches the loop hands on what the kernel let through,
                // so datagrams the emulator has not caught up with wait in the socket, before
                // the network (their entry lateness), rather than holding up what leaves it.
                // What the kernel let through waits for the end of its time on the link (the
                // loop's next pass).
                Some(kernel) => {
                    if waiter.ready(0) {
                        self.inbox.recv(fd).map_err(io_error)?;
                        for datagram in self.inbox.datagrams() {
                            if let Some(pkt) = wire::decode(datagram, self.nonce) {
                                let now = clock.now();
                                entering(&mut self.entry_late_us, self.warmup, now, &pkt);
                                wire::encode(&pkt, self.nonce, &mut encoded);
                                kernel.enter(&encoded, now)?;
                            }
                        }
                    }
                    kernel.leave(clock)?;
                }
            }
        }
        self.deliver()?;
        let refused: u64 = self
            .outboxes
            .iter()
            .filter_map(|o| o.lock().ok().map(|o| o.refused))
            .sum();
        let mut result = self.sim.finish();
        if let Some(dropped) = receive_drops(self.socket.as_raw_fd()) {
            result.socket_drops.push(("emulator", dropped + refused));
        }
        if !self.tuns.is_empty() {
            if let Some(dropped) = self.tuns.iter().map(Tuns::drops).sum::<Option<u64>>() {
                let refused = self.tun_refused.load(Ordering::Relaxed);
                result.socket_drops.push(("TUN devices", dropped + refused));
            }
        }
        for (flow, late) in result.flows.iter_mut().zip(&mut self.entry_late_us) {
            if !late.is_empty() {
                flow.sender.extend(p50_and_p99(
                    ["entry_late_p50_ms", "entry_late_p99_ms"],
                    late,
                ));
            }
        }
        if let Some(kernel) = self.kernel {
            kernel.report(&mut result, clock.now().min(end));
        }
        Ok(result)
    }
}

impl Emulator {
    /// Sends the hosts what reached them. A full socket buffer at the host is a loss the
    /// host's transport sees, as on a real path.
    fn deliver(&mut self) -> Result<()> {
        for outbox in &self.outboxes {
            if let Ok(mut outbox) = outbox.lock() {
                outbox.flush(self.socket.as_raw_fd()).map_err(io_error)?;
            }
        }
        Ok(())
    }
}

/// The shortest sleep of the user-space emulator between the network's events: a wake-up costs
/// the thread a timer, a context switch and the hosts it delivers to a wake-up of their own
/// (`perf record` of two TCP flows at 1 Gb/s: half the emulator's samples in `ppoll`'s sleep
/// and in waking the hosts), while events come every few µs (a 1000-byte packet takes 8 µs
/// at 1 Gb/s, and each crosses three links). Sleeping at least this long lets one wake-up
/// deliver the few packets due meanwhile, each at most this late: a tenth of the 0.5 ms the
/// udp engine allows at the 99th percentile. Datagrams from the hosts still wake it at once.
const MIN_SLEEP: Duration = Duration::from_micros(50);

/// The emulator's sleep when the next event is `wait` away: none when it is due, else at
/// least [`MIN_SLEEP`].
fn coarse(wait: Duration) -> Duration {
    if wait.is_zero() {
        wait
    } else {
        wait.max(MIN_SLEEP)
    }
}

/// Records how late the datagram of `pkt`, read at `now`, enters the network after its host sent
/// it (both on the run's clock), if it is data sent after the warm-up.
fn entering(late_us: &mut [Vec<u32>], warmup: SimTime, now: SimTime, pkt: &Packet) {
    if pkt.dir == Dir::Forward && pkt.sent_at >= warmup {
        if let Some(late) = late_us.get_mut(pkt.flow as usize) {
            late.push(micros_late(now, pkt.sent_at));
        }
    }
}

/// A packet from a host enters the network at its flow's sending end.
fn inject(sim: &mut Simulation, pkt: Packet) {
    let side = match pkt.dir {
        Dir::Forward => Side::Sender,
        Dir::Reverse => Side::Receiver,
    };
    sim.call(pkt.flow, side, |_, ctx| ctx.send(pkt));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_emulator_sleeps_at_least_its_shortest_sleep_unless_an_event_is_due() {
        assert_eq!(coarse(Duration::ZERO), Duration::ZERO, "due now: no sleep");
        // One 1000-byte packet's time at 1 Gb/s.
        assert_eq!(coarse(Duration::from_micros(8)), MIN_SLEEP);
        // One 1000-byte packet's time at 10 Mb/s.
        let far = Duration::from_micros(800);
        assert_eq!(coarse(far), far);
    }
}
