//! Link queues: DropTail, RED (Floyd & Jacobson 1993, as in ns-2 `queue/red.cc`) and step
//! marking (DCTCP's switches: Alizadeh et al., SIGCOMM 2010 §3.1; RFC 8257 §3.1), which decide
//! as a packet arrives, and CoDel (RFC 8289, [`super::codel`]), FQ-CoDel (RFC 8290,
//! [`super::fq_codel`]) and PIE (RFC 8033, [`super::pie`]), which keep their packets.
//!
//! A queue holds the packets waiting for the link; the packet being serialized has left it, as in
//! ns-2. Lengths and limits therefore count waiting packets only. DropTail, RED and step marking
//! decide and count: they serve first in, first out, so their packets wait in the link's chain
//! through the engine's packet store, behind the one on the wire, each knowing when it will
//! leave. CoDel
//! drops at dequeue and FQ-CoDel chooses among its queues at dequeue, so they keep their waiting
//! packets in chains of their own and give the link its next packet when the wire falls free
//! ([`Queue::keeps_packets`]); PIE does too, for the sojourn time its delay estimate reads at
//! dequeue.

use rand::Rng as _;

use super::codel::{CoDel, CoDelParams};
use super::fq_codel::{FqCoDel, FqCoDelParams};
use super::pie::{Pie, PieParams};
use super::store::Store;
use crate::rng::Rng;
use crate::time::SimTime;

/// What a queue did with an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    Queued,
    /// Queued with its CE bit set (RED or PIE with ECN, step marking).
    Marked,
    /// Dropped by the hard limit (DropTail, RED's physical buffer / forced region, the limit of
    /// step marking, CoDel or PIE).
    DroppedForced,
    /// Dropped by RED's early-drop test or PIE's random drop.
    DroppedEarly,
}

/// Whether RED measures the queue in packets or bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedMode {
    Packets,
    Bytes,
}

/// A queue's configuration, as the scenario's queue (`scenario::packet::Queue`, where the
/// defaults are declared and the values checked) lowers to. `QueueSpec::red` gives RED with the
/// scenario's defaults (see `build`).
#[derive(Clone, Debug, PartialEq)]
pub enum QueueSpec {
    /// First in, first out; arrivals beyond the limit are dropped.
    DropTail {
        /// Waiting packets at most (takes precedence over `limit_bytes`; neither: no limit).
        limit_packets: Option<u64>,
        /// Waiting bytes at most.
        limit_bytes: Option<u64>,
    },
    /// Random Early Detection. `None` thresholds / weight follow ns-2's automatic rules
    /// (`red.cc` `initialize_params()`).
    Red {
        /// Physical buffer (waiting packets, or bytes in byte mode: `limit * mean_packet_bytes`).
        limit_packets: u64,
        /// Minimum threshold of the average queue (packets); `None` = max(5, ptc * 0.0025).
        min_th: Option<f64>,
        /// Maximum threshold (packets); `None` = 3 * min_th.
        max_th: Option<f64>,
        /// Drop probability at max_th (ns-2 `1/linterm_`).
        max_p: f64,
        /// EWMA weight of the average; `None` = ns-2's automatic `q_weight_ = -1` rule.
        w_q: Option<f64>,
        /// Drop probability rises from max_p at max_th to 1 at 2*max_th instead of jumping to 1.
        gentle: bool,
        /// ns-2 `wait_`: spread drops out, roughly 1/p_b packets apart.
        wait: bool,
        /// Mark ECN-capable packets instead of dropping them early.
        ecn: bool,
        mode: RedMode,
        /// Typical packet size (bytes) for the idle correction and byte mode.
        mean_packet_bytes: u32,
    },
    /// Step marking: an ECN-capable packet that arrives while more than `threshold` wait is
    /// marked CE; arrivals beyond `limit` are dropped, ECN-capable or not.
    Step {
        /// The most waiting: arrivals beyond it are dropped (DropTail).
        limit: Length,
        /// K: marking starts above it.
        threshold: Length,
    },
    /// CoDel (RFC 8289), with a tail-drop limit.
    CoDel { params: CoDelParams, limit: Length },
    /// FQ-CoDel (RFC 8290).
    FqCoDel(FqCoDelParams),
    /// PIE (RFC 8033), with a tail-drop limit.
    Pie { params: PieParams, limit: Length },
}

/// A queue's length in packets or in bytes: the limit of DropTail, step marking, CoDel and PIE,
/// and step marking's threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    /// Waiting packets.
    Packets(u64),
    /// Waiting bytes.
    Bytes(u64),
}

/// The packets waiting in a queue and their bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    /// Packets waiting (at most `u32::MAX`, as a link's chain counts).
    pub len: u32,
    pub bytes: u64,
}

impl Backlog {
    #[inline]
    pub fn add(&mut self, size_bytes: u32) {
        self.len += 1;
        self.bytes += size_bytes as u64;
    }

    #[inline]
    pub fn remove(&mut self, size_bytes: u32) {
        debug_assert!(self.len > 0, "a packet left an empty queue");
        self.len -= 1;
        self.bytes -= size_bytes as u64;
    }

    /// Whether a packet of `size_bytes` finds the buffer full: `limit` packets already wait,
    /// or it would take the bytes past `limit`.
    #[inline]
    pub fn full(&self, limit: Length, size_bytes: u32) -> bool {
        match limit {
            Length::Packets(n) => self.len as u64 >= n,
            Length::Bytes(b) => self.bytes + size_bytes as u64 > b,
        }
    }
}

impl QueueSpec {
    /// The queue's kind, as scenario files name it.
    pub fn kind(&self) -> &'static str {
        match self {
            QueueSpec::DropTail { .. } => "droptail",
            QueueSpec::Red { .. } => "red",
            QueueSpec::Step { .. } => "step",
            QueueSpec::CoDel { .. } => "codel",
            QueueSpec::FqCoDel(_) => "fq_codel",
            QueueSpec::Pie { .. } => "pie",
        }
    }

    pub fn droptail_packets(limit: u64) -> Self {
        QueueSpec::DropTail {
            limit_packets: Some(limit),
            limit_bytes: None,
        }
    }
}

/// RED's state and resolved parameters.
#[derive(Clone, Debug)]
pub struct Red {
    limit_packets: u64,
    /// Thresholds in the queue's unit (packets or bytes).
    min_th: f64,
    max_th: f64,
    max_p: f64,
    w_q: f64,
    gentle: bool,
    wait: bool,
    ecn: bool,
    mode: RedMode,
    mean_packet_bytes: f64,
    /// Link capacity in mean-size packets per second (ns-2 `ptc`).
    ptc: f64,
    /// Average queue (packets or bytes).
    avg: f64,
    /// Packets since the last early drop or mark (ns-2 `count`).
    count: u64,
    /// Bytes since the last early drop or mark (ns-2 `count_bytes`).
    count_bytes: u64,
    /// Whether avg was above min_th at the previous arrival (ns-2 `old`).
    above_min: bool,
    /// The link's stream for the early-drop coin (only RED draws: a DropTail link keeps none).
    rng: Rng,
    /// Early drops and marks so far (only RED has them: a DropTail link counts neither).
    early_drops: u64,
    marks: u64,
    /// Start of the current idle period, if the queue is empty and the link idle.
    idle_since: Option<SimTime>,
}

impl Red {
    /// The drop probability `p_b` for an average queue `avg` (ns-2 `red.cc` `calculate_p_new()`).
    pub fn base_probability(&self, avg: f64) -> f64 {
        let p = if avg < self.min_th {
            0.0
        } else if avg < self.max_th {
            self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        } else if self.gentle {
            // Floyd's gentle RED: max_p at max_th, rising linearly to 1 at 2*max_th.
            self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th
        } else {
            1.0
        };
        p.min(1.0)
    }

    /// Resolved parameters, in packets: (min_th, max_th, max_p, w_q).
    pub fn parameters(&self) -> (f64, f64, f64, f64) {
        let scale = match self.mode {
            RedMode::Packets => 1.0,
            RedMode::Bytes => self.mean_packet_bytes,
        };
        (
            self.min_th / scale,
            self.max_th / scale,
            self.max_p,
            self.w_q,
        )
    }

    pub fn average(&self) -> f64 {
        self.avg
    }

    /// Early drops and marks so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.early_drops, self.marks)
    }
}

/// Step marking's settings and count.
#[derive(Clone, Debug)]
struct Step {
    limit: Length,
    threshold: Length,
    /// Packets marked so far.
    marks: u64,
}

impl Step {
    /// Alizadeh et al. §3.1: an arriving packet is marked CE if the queue occupancy is greater
    /// than K upon its arrival (counted here as the queue counts: the packets or bytes
    /// waiting, not the one on the wire); DropTail beyond the limit.
    fn admit(&mut self, size_bytes: u32, ecn_capable: bool, qlen: usize, qbytes: u64) -> Admit {
        let full = match self.limit {
            Length::Packets(n) => qlen as u64 >= n,
            Length::Bytes(b) => qbytes + size_bytes as u64 > b,
        };
        let above = match self.threshold {
            Length::Packets(k) => qlen as u64 > k,
            Length::Bytes(k) => qbytes > k,
        };
        if full {
            Admit::DroppedForced
        } else if above && ecn_capable {
            self.marks += 1;
            Admit::Marked
        } else {
            Admit::Queued
        }
    }
}

#[derive(Clone, Debug)]
enum Discipline {
    DropTailPackets(u64),
    DropTailBytes(u64),
    Red(Box<Red>),
    CoDel(Box<CoDel>),
    FqCoDel(Box<FqCoDel>),
    Pie(Box<Pie>),
    Step(Box<Step>),
}

/// A link's queue: how many packets wait, and the discipline that admits them.
#[derive(Clone, Debug)]
pub struct Queue {
    backlog: Backlog,
    discipline: Discipline,
}

impl Queue {
    /// Builds a queue for a link of `rate_bps` and one-way `delay` (RED's automatic rules use
    /// them); RED and PIE keep `rng`, the link's queue stream, for their coins, and FQ-CoDel
    /// draws its hash's perturbation from it.
    pub fn new(spec: &QueueSpec, rate_bps: u64, delay: SimTime, rng: Rng) -> Queue {
        let discipline = match *spec {
            QueueSpec::DropTail {
                limit_packets: Some(n),
                ..
            } => Discipline::DropTailPackets(n),
            QueueSpec::DropTail {
                limit_bytes: Some(b),
                ..
            } => Discipline::DropTailBytes(b),
            QueueSpec::DropTail { .. } => Discipline::DropTailPackets(u64::MAX),
            QueueSpec::Red {
                limit_packets,
                min_th,
                max_th,
                max_p,
                w_q,
                gentle,
                wait,
                ecn,
                mode,
                mean_packet_bytes,
            } => {
                let ptc = rate_bps as f64 / (8.0 * mean_packet_bytes as f64);
                // ns-2 `initialize_params()`: thresh_ = 0, maxthresh_ = 0, q_weight_ = -1.
                let min_pk = min_th.unwrap_or_else(|| (0.005 * ptc / 2.0).max(5.0));
                let max_pk = max_th.unwrap_or(3.0 * min_pk);
                let w_q = w_q.unwrap_or_else(|| {
                    let rtt = (3.0 * (delay.secs() + 1.0 / ptc)).max(0.1);
                    1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
                });
                let scale = match mode {
                    RedMode::Packets => 1.0,
                    RedMode::Bytes => mean_packet_bytes as f64,
                };
                Discipline::Red(Box::new(Red {
                    limit_packets,
                    min_th: min_pk * scale,
                    max_th: max_pk * scale,
                    max_p,
                    w_q,
                    gentle,
                    wait,
                    ecn,
                    mode,
                    mean_packet_bytes: mean_packet_bytes as f64,
                    ptc,
                    avg: 0.0,
                    count: 0,
                    count_bytes: 0,
                    above_min: false,
                    idle_since: Some(SimTime::ZERO),
                    rng,
                    early_drops: 0,
                    marks: 0,
                }))
            }
            QueueSpec::CoDel { params, limit } => {
                Discipline::CoDel(Box::new(CoDel::new(params, limit)))
            }
            QueueSpec::FqCoDel(params) => {
                let mut rng = rng;
                Discipline::FqCoDel(Box::new(FqCoDel::new(params, rng.gen())))
            }
            QueueSpec::Pie { params, limit } => {
                Discipline::Pie(Box::new(Pie::new(params, limit, rng)))
            }
            QueueSpec::Step { limit, threshold } => Discipline::Step(Box::new(Step {
                limit,
                threshold,
                marks: 0,
            })),
        };
        Queue {
            backlog: Backlog::default(),
            discipline,
        }
    }

    pub fn len(&self) -> usize {
        self.backlog.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.backlog.len == 0
    }
    pub fn bytes(&self) -> u64 {
        self.backlog.bytes
    }
    pub fn red(&self) -> Option<&Red> {
        match &self.discipline {
            Discipline::Red(r) => Some(r),
            _ => None,
        }
    }
    /// Early drops (RED's early drops, CoDel's and FQ-CoDel's drops at dequeue, PIE's random
    /// drops) and ECN marks (of RED, step marking, CoDel, FQ-CoDel, PIE) so far.
    pub fn counts(&self) -> (u64, u64) {
        match &self.discipline {
            Discipline::DropTailPackets(_) | Discipline::DropTailBytes(_) => (0, 0),
            Discipline::Red(r) => r.counts(),
            Discipline::Step(s) => (0, s.marks),
            Discipline::CoDel(c) => (c.signals().drops, c.signals().marks),
            Discipline::FqCoDel(f) => (f.signals().drops, f.signals().marks),
            Discipline::Pie(p) => p.counts(),
        }
    }

    /// Whether the queue keeps its waiting packets and gives the link the next one when the
    /// wire falls free ([`Queue::enqueue`], [`Queue::dequeue`]); otherwise the packets it admits
    /// ([`Queue::admit`]) wait in the link's chain, first in, first out.
    #[inline]
    pub fn keeps_packets(&self) -> bool {
        matches!(
            self.discipline,
            Discipline::CoDel(_) | Discipline::FqCoDel(_) | Discipline::Pie(_)
        )
    }

    /// A queue that keeps its packets takes the packet in store slot `slot`, arriving at `now`:
    /// what became of it. Packets it drops to make room (FQ-CoDel's overflow, the arrival
    /// perhaps among them) are pushed onto `dropped`: the caller frees those, and the arrival
    /// unless it was queued or marked.
    ///
    /// This and [`Queue::dequeue`] only choose the kind's own routine, in the caller's code:
    /// each kind's routine keeps to what it needs (a routine shared by the kinds would save
    /// and restore the registers the largest of them needs on every call).
    #[inline]
    pub fn enqueue(
        &mut self,
        store: &mut Store,
        slot: u32,
        now: SimTime,
        dropped: &mut Vec<u32>,
    ) -> Admit {
        match &mut self.discipline {
            Discipline::CoDel(c) => c.enqueue(store, slot, now, &mut self.backlog),
            Discipline::FqCoDel(f) => {
                f.enqueue(store, slot, now, &mut self.backlog, dropped);
                Admit::Queued
            }
            Discipline::Pie(p) => p.enqueue(store, slot, now, &mut self.backlog),
            _ => unreachable!("a first-in first-out queue admits (Queue::admit)"),
        }
    }

    /// A queue that keeps its packets gives the wire, free at `now`, its next packet, if any,
    /// and whether it marked it CE; the packets it drops on the way (CoDel's control law) are
    /// pushed onto `dropped`.
    #[inline]
    pub fn dequeue(
        &mut self,
        store: &mut Store,
        now: SimTime,
        dropped: &mut Vec<u32>,
    ) -> Option<(u32, bool)> {
        match &mut self.discipline {
            Discipline::CoDel(c) => c.dequeue(store, now, &mut self.backlog, dropped),
            Discipline::FqCoDel(f) => f.dequeue(store, now, &mut self.backlog, dropped),
            Discipline::Pie(p) => Some((p.dequeue(store, now, &mut self.backlog)?, false)),
            _ => unreachable!("a first-in first-out queue's packets wait in the link's chain"),
        }
    }

    /// The store slots of the packets a queue that keeps its packets holds (none for the
    /// others, whose packets are in the link's chain).
    pub fn kept<'a>(&'a self, store: &'a Store) -> Box<dyn Iterator<Item = u32> + 'a> {
        match &self.discipline {
            Discipline::CoDel(c) => Box::new(c.slots(store)),
            Discipline::FqCoDel(f) => Box::new(f.slots(store)),
            Discipline::Pie(p) => Box::new(p.slots(store)),
            _ => Box::new(std::iter::empty()),
        }
    }

    /// The link's capacity changed: RED's idle correction counts packets at the new rate.
    pub fn set_rate(&mut self, rate_bps: u64) {
        if let Discipline::Red(r) = &mut self.discipline {
            r.ptc = rate_bps as f64 / (8.0 * r.mean_packet_bytes);
        }
    }

    /// Offers a packet of `size_bytes`, ECN-capable or not: on `Queued` or `Marked` (then the
    /// caller sets its CE bit) the caller [`push`](Self::push)es it, or puts it on the idle
    /// wire at once; otherwise the caller drops it.
    #[inline]
    pub fn admit(&mut self, size_bytes: u32, ecn_capable: bool, now: SimTime) -> Admit {
        let b = &self.backlog;
        match &mut self.discipline {
            Discipline::DropTailPackets(limit) => {
                if b.len as u64 >= *limit {
                    Admit::DroppedForced
                } else {
                    Admit::Queued
                }
            }
            Discipline::DropTailBytes(limit) => {
                if b.bytes + size_bytes as u64 > *limit {
                    Admit::DroppedForced
                } else {
                    Admit::Queued
                }
            }
            Discipline::Red(red) => {
                red.admit(size_bytes, ecn_capable, b.len as usize, b.bytes, now)
            }
            Discipline::Step(step) => step.admit(size_bytes, ecn_capable, b.len as usize, b.bytes),
            _ => unreachable!("a queue that keeps its packets takes them (Queue::enqueue)"),
        }
    }

    /// An admitted packet of `size_bytes` waits behind the others.
    pub fn push(&mut self, size_bytes: u32) {
        self.backlog.add(size_bytes);
    }

    /// The head packet, of `size_bytes`, leaves the queue for the wire.
    pub fn pop(&mut self, size_bytes: u32) {
        self.backlog.remove(size_bytes);
    }

    /// The wire fell free at `now` with no packet after it in the link's chain: RED's idle
    /// period starts (a queue that keeps its packets is asked for the next one instead).
    pub fn idle(&mut self, now: SimTime) {
        if let Discipline::Red(r) = &mut self.discipline {
            debug_assert!(self.backlog.len == 0);
            r.idle_since.get_or_insert(now);
        }
    }
}

impl Red {
    /// The RED arrival procedure of ns-2's `red.cc` `enque()`, in the six steps marked below.
    fn admit(
        &mut self,
        size_bytes: u32,
        ecn_capable: bool,
        qlen: usize,
        qbytes: u64,
        now: SimTime,
    ) -> Admit {
        let q = match self.mode {
            RedMode::Packets => qlen as f64,
            RedMode::Bytes => qbytes as f64,
        };
        // Steps 1–2: EWMA of the queue before this arrival, with the idle-period correction:
        // m mean-size packets could have been sent while idle.
        let decay = match self.idle_since.take() {
            Some(since) => {
                let m = (self.ptc * (now - since).secs()).floor();
                (1.0 - self.w_q).powf(m + 1.0)
            }
            None => 1.0 - self.w_q,
        };
        self.avg = decay * self.avg + self.w_q * q;
        // Step 3.
        self.count += 1;
        self.count_bytes += size_bytes as u64;

        // Step 5 first in effect: the physical buffer is full.
        let limit = match self.mode {
            RedMode::Packets => qlen as u64 >= self.limit_packets,
            RedMode::Bytes => {
                qbytes + size_bytes as u64 > self.limit_packets * self.mean_packet_bytes as u64
            }
        };
        // Step 4.
        let mut verdict = Admit::Queued;
        if self.avg >= self.min_th && qlen > 1 {
            let forced = if self.gentle {
                self.avg >= 2.0 * self.max_th
            } else {
                self.avg >= self.max_th
            };
            if forced {
                verdict = Admit::DroppedForced;
            } else if !self.above_min {
                // First arrival above min_th: start counting, no drop.
                self.above_min = true;
                self.count = 1;
                self.count_bytes = size_bytes as u64;
            } else if self.early_test(size_bytes) {
                verdict = if self.ecn && ecn_capable {
                    Admit::Marked
                } else {
                    Admit::DroppedEarly
                };
            }
        } else {
            self.above_min = false;
        }
        if limit && verdict != Admit::DroppedEarly {
            verdict = Admit::DroppedForced;
        }
        // Step 6: every drop or mark restarts the count.
        if verdict != Admit::Queued {
            self.count = 0;
            self.count_bytes = 0;
        }
        match verdict {
            Admit::DroppedEarly => self.early_drops += 1,
            Admit::Marked => self.marks += 1,
            _ => {}
        }
        verdict
    }

    /// The early-drop coin, with ns-2's count-based spreading (`modify_p`).
    fn early_test(&mut self, size_bytes: u32) -> bool {
        let p_b = self.base_probability(self.avg);
        let c = match self.mode {
            RedMode::Packets => self.count as f64,
            RedMode::Bytes => self.count_bytes as f64 / self.mean_packet_bytes,
        };
        let cp = c * p_b;
        let mut p_a = if self.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                p_b / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            p_b / (1.0 - cp)
        } else {
            1.0
        };
        if self.mode == RedMode::Bytes && p_a < 1.0 {
            p_a *= size_bytes as f64 / self.mean_packet_bytes;
        }
        let p_a = p_a.min(1.0);
        p_a > 0.0 && self.rng.gen::<f64>() <= p_a
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;
    use crate::net::packet::Packet;
    use crate::rng::{stream, Stream};

    fn pkt(size: u32) -> Packet {
        Packet {
            size_bytes: size,
            ..Packet::default()
        }
    }

    /// A queue and the sizes of its packets, head first (a link keeps them in its chain).
    struct Held {
        queue: Queue,
        sizes: VecDeque<u32>,
    }

    impl Held {
        /// RED draws from the queue stream of link 0 in a run seeded `seed`.
        fn new(spec: &QueueSpec, rate_bps: u64, delay: SimTime, seed: u64) -> Held {
            let rng = stream(seed, Stream::Queue, 0);
            Held {
                queue: Queue::new(spec, rate_bps, delay, rng),
                sizes: VecDeque::new(),
            }
        }

        /// Offers a packet and keeps it if admitted.
        fn enqueue(&mut self, p: Packet, now: SimTime) -> Admit {
            let admit = self.queue.admit(p.size_bytes, p.ecn.capable, now);
            if matches!(admit, Admit::Queued | Admit::Marked) {
                self.push(p.size_bytes);
            }
            admit
        }

        /// Queues a packet of `size` bytes without asking the discipline.
        fn push(&mut self, size: u32) {
            self.queue.push(size);
            self.sizes.push_back(size);
        }

        /// Takes the head packet out; an empty queue falls idle at `now`.
        fn pop(&mut self, now: SimTime) -> Option<u32> {
            let Some(size) = self.sizes.pop_front() else {
                self.queue.idle(now);
                return None;
            };
            self.queue.pop(size);
            Some(size)
        }
    }

    impl std::ops::Deref for Held {
        type Target = Queue;
        fn deref(&self) -> &Queue {
            &self.queue
        }
    }

    #[test]
    fn droptail_limits_packets_and_bytes() {
        let mut q = Held::new(&QueueSpec::droptail_packets(2), 1_000_000, SimTime::ZERO, 1);
        let t = SimTime::ZERO;
        assert_eq!(q.enqueue(pkt(100), t), Admit::Queued);
        assert_eq!(q.enqueue(pkt(100), t), Admit::Queued);
        assert_eq!(q.enqueue(pkt(100), t), Admit::DroppedForced);
        assert_eq!(q.len(), 2);
        assert_eq!(q.bytes(), 200);
        let spec = QueueSpec::DropTail {
            limit_packets: None,
            limit_bytes: Some(250),
        };
        let mut q = Held::new(&spec, 1_000_000, SimTime::ZERO, 1);
        assert_eq!(q.enqueue(pkt(100), t), Admit::Queued);
        assert_eq!(q.enqueue(pkt(100), t), Admit::Queued);
        assert_eq!(q.enqueue(pkt(100), t), Admit::DroppedForced);
        assert_eq!(q.enqueue(pkt(50), t), Admit::Queued);
    }

    fn ecn(size: u32) -> Packet {
        let mut p = pkt(size);
        p.ecn.capable = true;
        p
    }

    /// A scripted run of a step queue: `+` an ECN-capable arrival, `-` one that is not, `d` a
    /// departure; returns what each arrival met, in order.
    fn script(spec: &QueueSpec, events: &str) -> Vec<Admit> {
        let mut q = Held::new(spec, 1_000_000, SimTime::ZERO, 1);
        let mut out = Vec::new();
        for (i, e) in events.chars().filter(|c| !c.is_whitespace()).enumerate() {
            let now = SimTime::from_ms(i as u64);
            match e {
                '+' => out.push(q.enqueue(ecn(1000), now)),
                '-' => out.push(q.enqueue(pkt(1000), now)),
                'd' => {
                    q.pop(now).expect("a packet to depart");
                }
                _ => unreachable!("{e}"),
            }
        }
        out
    }

    #[test]
    fn step_marks_ecn_arrivals_above_k_and_drops_only_when_full() {
        use Admit::{DroppedForced as D, Marked as M, Queued as Q};
        let spec = QueueSpec::Step {
            limit: Length::Packets(5),
            threshold: Length::Packets(2),
        };
        // Arrivals meet 0, 1, 2 waiting (queued), then 3 (marked: more than K = 2); one that
        // is not ECN-capable is queued at 4; the next meets the full buffer. Two departures
        // leave 3 waiting: marked; two more leave 2: queued; then 3: marked.
        let got = script(&spec, "+++ + - + dd + d d + +");
        assert_eq!(got, [Q, Q, Q, M, Q, D, M, Q, M]);
        let q = Held::new(&spec, 1_000_000, SimTime::ZERO, 1);
        assert_eq!(q.counts(), (0, 0));
    }

    #[test]
    fn step_counts_bytes_when_its_threshold_does() {
        use Admit::{DroppedForced as D, Marked as M, Queued as Q};
        // K = 1500 bytes: an arrival is marked once two 1000-byte packets wait; the limit is
        // 3500 bytes, so a fourth packet does not fit.
        let spec = QueueSpec::Step {
            limit: Length::Bytes(3500),
            threshold: Length::Bytes(1500),
        };
        let got = script(&spec, "++++");
        assert_eq!(got, [Q, Q, M, D]);
        let mut q = Held::new(&spec, 1_000_000, SimTime::ZERO, 1);
        for _ in 0..3 {
            q.enqueue(ecn(1000), SimTime::ZERO);
        }
        assert_eq!(q.counts(), (0, 1));
    }

    #[test]
    fn red_curve_is_piecewise_linear_with_gentle_part() {
        let q = Held::new(
            &QueueSpec::red(100, 5.0, 15.0, 0.002),
            10_000_000,
            SimTime::ZERO,
            1,
        );
        let r = q.red().unwrap();
        assert_eq!(r.base_probability(4.0), 0.0);
        assert!((r.base_probability(10.0) - 0.05).abs() < 1e-12);
        assert!((r.base_probability(15.0) - 0.1).abs() < 1e-12);
        assert!((r.base_probability(22.5) - 0.55).abs() < 1e-12);
        assert_eq!(r.base_probability(30.0), 1.0);
    }

    #[test]
    fn red_automatic_parameters_follow_ns2() {
        let spec = QueueSpec::Red {
            limit_packets: 100,
            min_th: None,
            max_th: None,
            max_p: 0.1,
            w_q: None,
            gentle: true,
            wait: true,
            ecn: false,
            mode: RedMode::Packets,
            mean_packet_bytes: 1000,
        };
        // 10 Mb/s, 1000 B: ptc = 1250 pkt/s; min_th = max(5, 0.0025*1250) = 5; max_th = 15.
        let q = Held::new(&spec, 10_000_000, SimTime::from_ms(20), 1);
        let (lo, hi, _, w) = q.red().unwrap().parameters();
        assert_eq!((lo, hi), (5.0, 15.0));
        // rtt = max(0.1, 3*(0.02 + 0.0008)) = 0.1; w_q = 1 - exp(-1/(10*0.1*1250)).
        assert!((w - (1.0 - (-1.0f64 / 1250.0).exp())).abs() < 1e-15);
    }

    /// Holds the queue at `q` packets with w_q = 1 (so avg = q at every arrival) and measures the
    /// fraction of arrivals RED drops.
    fn measured_drop_rate(q: usize, wait: bool, arrivals: usize) -> f64 {
        let mut spec = QueueSpec::red(1000, 2.0, 12.0, 1.0);
        if let QueueSpec::Red { wait: w, .. } = &mut spec {
            *w = wait;
        }
        let mut queue = Held::new(&spec, 10_000_000, SimTime::ZERO, 3);
        let now = SimTime::ZERO;
        for _ in 0..q {
            queue.push(1000);
        }
        let mut drops = 0;
        for _ in 0..arrivals {
            match queue.enqueue(pkt(1000), now) {
                Admit::Queued | Admit::Marked => {
                    queue.pop(now);
                }
                _ => drops += 1,
            }
        }
        drops as f64 / arrivals as f64
    }

    /// The long-run drop fraction implied by a per-arrival hazard h(c), c = arrivals since the last
    /// drop: 1 / E[gap]. Computed here from the RED definitions (ns-2 `red.cc`
    /// `modify_p()`), not from the code.
    fn expected_drop_rate(p_b: f64, wait: bool) -> f64 {
        if p_b >= 1.0 {
            return 1.0;
        }
        let hazard = |c: f64| {
            let cp = c * p_b;
            let p = match (wait, cp) {
                (false, x) if x < 1.0 => p_b / (1.0 - x),
                (true, x) if x < 1.0 => 0.0,
                (true, x) if x < 2.0 => p_b / (2.0 - x),
                _ => 1.0,
            };
            p.min(1.0)
        };
        // After a drop the count restarts at 0; the next arrival is counted as 1.
        let (mut survive, mut mean_gap) = (1.0, 0.0);
        for c in 1..100_000 {
            mean_gap += survive;
            survive *= 1.0 - hazard(c as f64);
            if survive < 1e-15 {
                break;
            }
        }
        1.0 / mean_gap
    }

    #[test]
    fn red_measured_drop_probability_follows_the_configured_curve() {
        // min_th 2, max_th 12, max_p 0.1, gentle: p_b = 0.01 (q - 2) below 12, then
        // 0.1 + 0.9 (q - 12) / 12 up to 24, then forced drops.
        for wait in [false, true] {
            for (q, p_b) in [
                (3, 0.01),
                (7, 0.05),
                (11, 0.09),
                (15, 0.325),
                (20, 0.7),
                (24, 1.0),
                (30, 1.0),
            ] {
                let n = 400_000;
                let got = measured_drop_rate(q, wait, n);
                let want = expected_drop_rate(p_b, wait);
                let sigma = (want * (1.0 - want) / n as f64).sqrt().max(1e-6);
                assert!(
                    (got - want).abs() < 6.0 * sigma + 1e-5,
                    "q = {q}, wait = {wait}: measured {got:.5}, expected {want:.5}"
                );
            }
            // Below min_th nothing is dropped.
            assert_eq!(measured_drop_rate(2, wait, 10_000), 0.0);
        }
    }

    #[test]
    fn red_idle_period_decays_the_average() {
        let mut q = Held::new(
            &QueueSpec::red(100, 5.0, 15.0, 0.1),
            8_000_000,
            SimTime::ZERO,
            1,
        );
        let t0 = SimTime::ZERO;
        for _ in 0..40 {
            q.enqueue(pkt(1000), t0);
        }
        while q.pop(t0).is_some() {}
        let before = q.red().unwrap().average();
        // 1 ms idle at 1000 mean-size packets/s is m = 1: avg <- (1 - w)^2 avg + w * 0.
        q.enqueue(pkt(1000), SimTime::from_ms(1));
        let after = q.red().unwrap().average();
        assert!((after - 0.81 * before).abs() < 1e-12, "{before} -> {after}");
    }
}
