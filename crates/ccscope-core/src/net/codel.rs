//! CoDel, RFC 8289: a queue that drops (or marks) at dequeue once packets' sojourn times have
//! stayed above `target` for an `interval`, then drops ever faster, the next drop
//! `interval / sqrt(count)` after the last, until a packet leaves with a sojourn below target.
//!
//! [`CoDelVars`] is the control state of one queue and its dequeue routine, RFC 8289 §5.4–5.5
//! line by line; [`CoDel`] is the queue discipline (§5.3's enqueue, with a tail-drop limit), and
//! FQ-CoDel runs a [`CoDelVars`] per flow queue ([`super::fq_codel`]). Where the RFC leaves
//! room, ECN follows Linux (`include/net/codel_impl.h` `codel_dequeue()`): a packet that would
//! be dropped is marked CE instead if it is ECN-capable, and leaves; a mark in the dropping
//! state schedules the next drop as a drop would.
//!
//! Times are whole nanoseconds; the control law is computed in f64 (RFC 8289 §5.5's
//! `t + INTERVAL / sqrt(count)`, truncated to the nanosecond), where Linux uses a Newton
//! iteration of 1/sqrt(count) in 16-bit fixed point.

use super::queue::{Admit, Backlog, Length};
use super::store::{Fifo, Store};
use crate::time::{OptTime, SimTime};

/// CoDel's settings, shared by every queue of a scheduler.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoDelParams {
    /// TARGET: the acceptable standing queue delay (RFC 8289 §4.4; default 5 ms).
    pub target: SimTime,
    /// INTERVAL: how long the sojourn time must stay above target, and the control law's base
    /// (RFC 8289 §4.5; default 100 ms).
    pub interval: SimTime,
    /// maxpacket: a queue holding at most this many bytes is never above target (RFC 8289
    /// §5.2, "SHOULD use interface MTU"; Linux `params->mtu`).
    pub mtu_bytes: u32,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
}

/// The head of a queue CoDel serves, as its dequeue routine needs it.
#[derive(Clone, Copy, Debug)]
pub struct Head {
    pub slot: u32,
    pub size_bytes: u32,
    /// When it entered the queue.
    pub enqueued: SimTime,
    pub ecn_capable: bool,
}

/// The queue CoDel serves once a drop or mark is due: RFC 8289's `Queue::dequeue()` and
/// `bytes()`, and `drop()`.
pub trait Served {
    /// Takes the head packet, if any.
    fn dequeue(&mut self) -> Option<Head>;
    /// Bytes left waiting after a dequeue (RFC 8289 `bytes()`).
    fn bytes(&self) -> u64;
    /// Discards a packet CoDel dropped.
    fn drop(&mut self, slot: u32);
    /// Sets the CE bit of a packet CoDel marked.
    fn mark(&mut self, slot: u32);
}

/// One queue's CoDel state (RFC 8289 §5.2).
#[derive(Clone, Debug, Default)]
pub struct CoDelVars {
    /// When the sojourn time will have been above target for an interval (RFC 8289
    /// `first_above_time_`; none while below).
    first_above_time: OptTime,
    /// When to drop next in the dropping state (`drop_next_`).
    drop_next: SimTime,
    /// Packets dropped since entering the dropping state (`count_`).
    pub(super) count: u32,
    /// `count_` when the dropping state was last entered (`lastcount_`).
    lastcount: u32,
    /// In the dropping state (`dropping_`).
    dropping: bool,
}

/// Where RFC 8289 §5.4 `dequeue()` stands after its first steps ([`CoDelVars::start`]).
pub enum Step {
    /// Done: send this packet, or nothing if the queue is empty.
    Done(Option<Head>),
    /// A drop or a mark is due, this packet the first candidate: [`CoDelVars::signal`].
    Signal(Head),
}

/// Packets a queue's control law dropped and marked so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Signals {
    pub drops: u64,
    pub marks: u64,
}

/// RFC 8289 §5.5 `control_law()`: `t + INTERVAL / sqrt(count)`.
fn control_law(t: SimTime, interval: SimTime, count: u32) -> SimTime {
    t + SimTime((interval.ns() as f64 / (count as f64).sqrt()) as u64)
}

impl CoDelVars {
    /// RFC 8289 §5.5 `dodequeue()` once the queue has given its head, if any, and has `bytes`
    /// left: whether the sojourn time has been above target for at least an interval.
    #[inline(always)]
    fn ok_to_drop(
        &mut self,
        p: &CoDelParams,
        now: SimTime,
        head: Option<&Head>,
        bytes: u64,
    ) -> bool {
        let Some(head) = head else {
            // The queue is empty: it cannot be above target.
            self.first_above_time = OptTime::NONE;
            return false;
        };
        if now - head.enqueued < p.target || bytes <= p.mtu_bytes as u64 {
            // Went below: stay below for at least an interval.
            self.first_above_time = OptTime::NONE;
            return false;
        }
        match self.first_above_time.get() {
            // Just went above from below: if still above at first_above_time, drop.
            None => {
                self.first_above_time = OptTime::some(now + p.interval);
                false
            }
            Some(t) => now >= t,
        }
    }

    /// RFC 8289 §5.5 `dodequeue()`.
    fn dodequeue(
        &mut self,
        p: &CoDelParams,
        now: SimTime,
        q: &mut impl Served,
    ) -> (Option<Head>, bool) {
        let head = q.dequeue();
        let ok_to_drop = self.ok_to_drop(p, now, head.as_ref(), q.bytes());
        (head, ok_to_drop)
    }

    /// The first steps of RFC 8289 §5.4 `dequeue()` at `now`: `head` is what the queue gave
    /// (`dodequeue()`'s `queue_t::dequeue()`) and `bytes` what it has left.
    ///
    /// Most dequeues end here: the sojourn time is below target (the dropping state is left, or
    /// was not entered), or the queue is in the dropping state and its next drop is not due.
    /// Only when a drop or a mark is due does CoDel need the queue as [`Served`], and the rest
    /// of §5.4 runs, out of line ([`CoDelVars::signal`]).
    #[inline(always)]
    pub fn start(&mut self, p: &CoDelParams, now: SimTime, head: Option<Head>, bytes: u64) -> Step {
        let ok_to_drop = self.ok_to_drop(p, now, head.as_ref(), bytes);
        match head {
            Some(h) if ok_to_drop && !(self.dropping && now < self.drop_next) => Step::Signal(h),
            _ => {
                if !ok_to_drop {
                    // Sojourn time below target (or the queue is empty): leave the dropping
                    // state.
                    self.dropping = false;
                }
                Step::Done(head)
            }
        }
    }

    /// The rest of RFC 8289 §5.4 `dequeue()` once `head`'s sojourn time has been above target
    /// for an interval, and the queue is not in the dropping state or its next drop is due
    /// ([`Step::Signal`]): the packet to send, if any (`head` or one behind it), and whether
    /// CoDel marked it.
    #[inline(never)]
    pub fn signal(
        &mut self,
        p: &CoDelParams,
        now: SimTime,
        q: &mut impl Served,
        head: Head,
    ) -> Option<(Head, bool)> {
        let mut head = Some(head);
        if self.dropping {
            // Time for the next drop(s): a large backlog may need several now.
            while self.dropping && now >= self.drop_next {
                let h = head?;
                self.count = self.count.wrapping_add(1);
                if p.ecn && h.ecn_capable {
                    q.mark(h.slot);
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                    return Some((h, true));
                }
                q.drop(h.slot);
                let ok_to_drop;
                (head, ok_to_drop) = self.dodequeue(p, now, q);
                if ok_to_drop {
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                } else {
                    self.dropping = false;
                }
            }
            return head.map(|h| (h, false));
        }
        // Above target for an interval: enter the dropping state with a drop (or mark).
        let h = head?;
        let mut marked = false;
        if p.ecn && h.ecn_capable {
            q.mark(h.slot);
            marked = true;
        } else {
            q.drop(h.slot);
            (head, _) = self.dodequeue(p, now, q);
        }
        self.dropping = true;
        // Re-entering soon after leaving: start from the drop rate that last controlled the
        // queue (RFC 8289 §5.4, the Linux version: 'now - drop_next' approximates the time
        // since the last drop).
        let delta = self.count.wrapping_sub(self.lastcount);
        self.count = 1;
        if delta > 1 && now < self.drop_next + SimTime(16 * p.interval.ns()) {
            self.count = delta;
        }
        self.drop_next = control_law(now, p.interval, self.count);
        self.lastcount = self.count;
        head.map(|h| (h, marked))
    }
}

/// A CoDel queue: one FIFO of waiting packets, a tail-drop limit, and its CoDel state.
#[derive(Clone, Debug)]
pub struct CoDel {
    params: CoDelParams,
    limit: Length,
    vars: CoDelVars,
    /// The waiting packets, head first; each slot's time is when it entered ([`Store::done`]
    /// holds it until the packet leaves).
    waiting: Fifo,
    signals: Signals,
}

/// Takes the head of `waiting`, a FIFO of the store, out of the queue's `backlog`.
#[inline(always)]
pub(super) fn take_head(waiting: &mut Fifo, store: &Store, backlog: &mut Backlog) -> Option<Head> {
    // The head's fields are read before the chain and the backlog are written: the compiler
    // cannot tell those writes from writes to the store, and would check the slot against the
    // store's length again for each read after them.
    let slot = waiting.front()?;
    let head = Head {
        slot,
        size_bytes: store.size_bytes(slot),
        enqueued: store.done(slot),
        ecn_capable: store.ecn_capable(slot),
    };
    waiting.pop_front(store);
    backlog.remove(head.size_bytes);
    Some(head)
}

/// A FIFO of waiting packets in the store, with the queue's backlog, as CoDel serves it.
pub(super) struct Chain<'a> {
    pub(super) waiting: &'a mut Fifo,
    pub(super) store: &'a mut Store,
    pub(super) backlog: &'a mut Backlog,
    pub(super) dropped: &'a mut Vec<u32>,
    pub(super) signals: &'a mut Signals,
}

impl Served for Chain<'_> {
    fn dequeue(&mut self) -> Option<Head> {
        take_head(self.waiting, self.store, self.backlog)
    }
    fn bytes(&self) -> u64 {
        self.backlog.bytes
    }
    fn drop(&mut self, slot: u32) {
        self.signals.drops += 1;
        self.dropped.push(slot);
    }
    fn mark(&mut self, slot: u32) {
        self.signals.marks += 1;
        self.store.mark(slot);
    }
}

impl CoDel {
    pub fn new(params: CoDelParams, limit: Length) -> CoDel {
        CoDel {
            params,
            limit,
            vars: CoDelVars::default(),
            waiting: Fifo::default(),
            signals: Signals::default(),
        }
    }

    /// RFC 8289 §5.3: the packet in `slot` is timestamped and joins the tail, unless the
    /// buffer is full (a tail drop).
    pub fn enqueue(
        &mut self,
        store: &mut Store,
        slot: u32,
        now: SimTime,
        backlog: &mut Backlog,
    ) -> Admit {
        let size = store.size_bytes(slot);
        if backlog.full(self.limit, size) {
            return Admit::DroppedForced;
        }
        store.set_done(slot, now);
        self.waiting.push_back(store, slot);
        backlog.add(size);
        Admit::Queued
    }

    /// RFC 8289 §5.4 at `now`: the packet to send and whether it was marked; the packets
    /// dropped on the way are pushed onto `dropped`.
    pub fn dequeue(
        &mut self,
        store: &mut Store,
        now: SimTime,
        backlog: &mut Backlog,
        dropped: &mut Vec<u32>,
    ) -> Option<(u32, bool)> {
        let head = take_head(&mut self.waiting, store, backlog);
        match self.vars.start(&self.params, now, head, backlog.bytes) {
            Step::Done(head) => head.map(|h| (h.slot, false)),
            Step::Signal(head) => {
                let mut chain = Chain {
                    waiting: &mut self.waiting,
                    store,
                    backlog,
                    dropped,
                    signals: &mut self.signals,
                };
                let (h, marked) = self.vars.signal(&self.params, now, &mut chain, head)?;
                Some((h.slot, marked))
            }
        }
    }

    /// Drops and marks by the control law so far.
    pub fn signals(&self) -> Signals {
        self.signals
    }

    /// The waiting packets' slots, head first.
    pub fn slots<'a>(&self, store: &'a Store) -> impl Iterator<Item = u32> + 'a {
        self.waiting.iter(store)
    }
}

/// RFC 8289 §5 as written, for the tests of CoDel and FQ-CoDel: the reference the queues are
/// held to.
#[cfg(test)]
pub(crate) mod reference {
    use super::CoDelParams;
    use crate::net::test_link::Fate;
    use crate::time::SimTime;

    /// A waiting packet: its arrival index, `tstamp` (ns), size and whether it is ECN-capable.
    pub type Pkt = (usize, u64, u32, bool);

    /// The queue a CoDel serves, as RFC 8289's `Queue` class gives it.
    pub trait RefQueue {
        fn pop(&mut self) -> Option<Pkt>;
        /// `bytes()` after the pop.
        fn bytes(&self) -> u64;
    }

    /// RFC 8289 §5.2's `CoDelQueue` members, §5.4 `dequeue()`, §5.5 `dodequeue()` and
    /// `control_law()`, with Linux's ECN marking (`codel_impl.h`). Times are ns, 0 for "unset"
    /// as in the RFC.
    pub struct Rfc8289Vars {
        target: u64,
        interval: u64,
        maxpacket: u64,
        ecn: bool,
        first_above_time_: u64,
        drop_next_: u64,
        pub count_: u32,
        lastcount_: u32,
        dropping_: bool,
    }

    impl Rfc8289Vars {
        pub fn new(p: &CoDelParams) -> Rfc8289Vars {
            Rfc8289Vars {
                target: p.target.ns(),
                interval: p.interval.ns(),
                maxpacket: p.mtu_bytes as u64,
                ecn: p.ecn,
                first_above_time_: 0,
                drop_next_: 0,
                count_: 0,
                lastcount_: 0,
                dropping_: false,
            }
        }

        fn control_law(&self, t: u64, count: u32) -> u64 {
            t + (self.interval as f64 / (count as f64).sqrt()) as u64
        }

        fn dodequeue(&mut self, now: u64, q: &mut impl RefQueue) -> (Option<Pkt>, bool) {
            let Some(p) = q.pop() else {
                self.first_above_time_ = 0;
                return (None, false);
            };
            let sojourn_time = now - p.1;
            let mut ok_to_drop = false;
            if sojourn_time < self.target || q.bytes() <= self.maxpacket {
                self.first_above_time_ = 0;
            } else if self.first_above_time_ == 0 {
                self.first_above_time_ = now + self.interval;
            } else if now >= self.first_above_time_ {
                ok_to_drop = true;
            }
            (Some(p), ok_to_drop)
        }

        /// The packet sent, if any; the drops and the mark on the way are pushed onto `fates`.
        pub fn dequeue(
            &mut self,
            now: u64,
            q: &mut impl RefQueue,
            fates: &mut Vec<Fate>,
        ) -> Option<Pkt> {
            let at = SimTime(now);
            let mut r = self.dodequeue(now, q);
            if self.dropping_ {
                if !r.1 {
                    self.dropping_ = false;
                }
                while now >= self.drop_next_ && self.dropping_ {
                    let p = r.0.unwrap();
                    if self.ecn && p.3 {
                        self.count_ += 1;
                        fates.push(Fate::Marked { at, id: p.0 });
                        self.drop_next_ = self.control_law(self.drop_next_, self.count_);
                        return Some(p);
                    }
                    fates.push(Fate::Early { at, id: p.0 });
                    self.count_ += 1;
                    r = self.dodequeue(now, q);
                    if !r.1 {
                        self.dropping_ = false;
                    } else {
                        self.drop_next_ = self.control_law(self.drop_next_, self.count_);
                    }
                }
            } else if r.1 {
                let p = r.0.unwrap();
                if self.ecn && p.3 {
                    fates.push(Fate::Marked { at, id: p.0 });
                } else {
                    fates.push(Fate::Early { at, id: p.0 });
                    r = self.dodequeue(now, q);
                }
                self.dropping_ = true;
                let delta = self.count_.wrapping_sub(self.lastcount_);
                self.count_ = 1;
                if delta > 1 && (now as i128 - self.drop_next_ as i128) < 16 * self.interval as i128
                {
                    self.count_ = delta;
                }
                self.drop_next_ = self.control_law(now, self.count_);
                self.lastcount_ = self.count_;
            }
            r.0
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use proptest::prelude::*;

    use super::reference::{Pkt, RefQueue, Rfc8289Vars};
    use super::*;
    use crate::net::queue::QueueSpec;
    use crate::net::test_link::{drive, sent_or_dropped, Arrival, Fate, Held, Tested};

    const MS: u64 = 1_000_000;

    /// One CoDel queue of RFC 8289 §5 over a deque, with a tail-drop limit.
    struct Rfc8289 {
        q: VecDeque<Pkt>,
        bytes: u64,
        limit: usize,
        vars: Rfc8289Vars,
    }

    impl Rfc8289 {
        fn new(p: &CoDelParams, limit: usize) -> Rfc8289 {
            Rfc8289 {
                q: VecDeque::new(),
                bytes: 0,
                limit,
                vars: Rfc8289Vars::new(p),
            }
        }
    }

    /// The deque and its bytes, as the reference's CoDel pops them.
    struct Deque<'a>(&'a mut VecDeque<Pkt>, &'a mut u64);

    impl RefQueue for Deque<'_> {
        fn pop(&mut self) -> Option<Pkt> {
            let p = self.0.pop_front()?;
            *self.1 -= p.2 as u64;
            Some(p)
        }
        fn bytes(&self) -> u64 {
            *self.1
        }
    }

    impl Tested for Rfc8289 {
        fn arrive(&mut self, id: usize, a: Arrival) -> Vec<Fate> {
            if self.q.len() >= self.limit {
                return vec![Fate::Forced { at: a.at, id }];
            }
            self.q.push_back((id, a.at.ns(), a.size, a.ecn));
            self.bytes += a.size as u64;
            Vec::new()
        }
        fn serve(&mut self, at: SimTime) -> (Vec<Fate>, Option<usize>) {
            let mut fates = Vec::new();
            let sent = self.vars.dequeue(
                at.ns(),
                &mut Deque(&mut self.q, &mut self.bytes),
                &mut fates,
            );
            (fates, sent.map(|p| p.0))
        }
        fn len(&self) -> usize {
            self.q.len()
        }
    }

    fn params(target_ms: u64, interval_ms: u64, ecn: bool) -> CoDelParams {
        CoDelParams {
            target: SimTime::from_ms(target_ms),
            interval: SimTime::from_ms(interval_ms),
            mtu_bytes: 1514,
            ecn,
        }
    }

    fn spec(p: CoDelParams, limit: u64) -> QueueSpec {
        QueueSpec::CoDel {
            params: p,
            limit: Length::Packets(limit),
        }
    }

    /// 1000-byte packets every 0.5 ms (16 Mb/s) for `ms` into a 10 Mb/s link (0.8 ms each).
    fn overload(ms: u64, ecn: bool) -> Vec<Arrival> {
        (0..2 * ms)
            .map(|k| Arrival {
                at: SimTime(k * MS / 2),
                size: 1000,
                flow: 0,
                ecn,
            })
            .collect()
    }

    fn early(log: &[Fate]) -> Vec<(u64, usize)> {
        log.iter()
            .filter_map(|f| match *f {
                Fate::Early { at, id } | Fate::Marked { at, id } => Some((at.ns(), id)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn an_overloaded_queue_drops_on_the_control_law_schedule() {
        // Packet k leaves at 0.8k ms after waiting 0.3k ms: above the 5 ms target from k = 17
        // (13.6 ms), so dropping may start an interval later, at 113.6 ms, where packet 142
        // is dropped and 143 sent. The next drops are due 100/√1 ms and 100/√2 ms after
        // (213.6 ms, 284.310678 ms), each at the first dequeue at or after: packets 268 at
        // 213.6 ms and 358 at 284.8 ms (0.8 ms apart from 143 on); then 100/√3 ms later.
        let p = params(5, 100, false);
        let arrivals = overload(400, false);
        let (log, _) = drive(
            &mut Held::new(&spec(p, 1000), 10_000_000, 1),
            &arrivals,
            10_000_000,
        );
        let drops = early(&log);
        assert_eq!(
            drops[..3],
            [(113_600_000, 142), (213_600_000, 268), (284_800_000, 358)]
        );
        let next = 284_310_678 + 57_735_026; // 284.310678 ms + 100/√3 ms
        let at = drops[3].0;
        assert!(at >= next && at < next + 800_000, "{at}");
        let reference = drive(&mut Rfc8289::new(&p, 1000), &arrivals, 10_000_000);
        assert_eq!((log, 1000), (reference.0, 1000));
    }

    #[test]
    fn ecn_capable_packets_are_marked_on_the_same_schedule_and_sent() {
        let p = params(5, 100, true);
        let arrivals = overload(400, true);
        let (log, _) = drive(
            &mut Held::new(&spec(p, 1000), 10_000_000, 1),
            &arrivals,
            10_000_000,
        );
        // A marked packet is sent, so the packets after it keep their 0.8 ms slots: the
        // first mark is 142 at 113.6 ms, the next due at 213.6 ms falls on packet 267.
        let marks = early(&log);
        assert_eq!(marks[..2], [(113_600_000, 142), (213_600_000, 267)]);
        assert!(log.iter().all(|f| !matches!(f, Fate::Early { .. })));
        assert!(log.contains(&Fate::Sent {
            at: SimTime(113_600_000),
            id: 142
        }));
        assert_eq!(
            log,
            drive(&mut Rfc8289::new(&p, 1000), &arrivals, 10_000_000).0
        );
    }

    #[test]
    fn re_entering_soon_after_leaving_reuses_the_count() {
        // Two overloads 150 ms apart: the second enters the dropping state within 16
        // intervals of the first's last drop, so it starts from count - lastcount (RFC 8289
        // §5.4) and drops faster than the first did; the reference agrees drop by drop.
        let p = params(5, 100, false);
        let mut arrivals = overload(700, false);
        arrivals.retain(|a| a.at < SimTime::from_ms(600) || a.at >= SimTime::from_ms(750));
        let (log, _) = drive(
            &mut Held::new(&spec(p, 1000), 10_000_000, 1),
            &arrivals,
            10_000_000,
        );
        let drops = early(&log);
        let second: Vec<_> = drops.iter().filter(|d| d.0 > 800 * MS).collect();
        assert!(second.len() >= 2, "{drops:?}");
        let gap = second[1].0 - second[0].0;
        assert!(
            gap < 100 * MS,
            "the second episode starts at count > 1: {gap} ns"
        );
        assert_eq!(
            log,
            drive(&mut Rfc8289::new(&p, 1000), &arrivals, 10_000_000).0
        );
    }

    #[test]
    fn a_full_buffer_drops_at_the_tail() {
        let p = params(5, 100, false);
        let arrivals = overload(100, false);
        let (log, most) = drive(
            &mut Held::new(&spec(p, 10), 10_000_000, 1),
            &arrivals,
            10_000_000,
        );
        assert_eq!(most, 10);
        assert!(log.iter().any(|f| matches!(f, Fate::Forced { .. })));
        assert_eq!(
            log,
            drive(&mut Rfc8289::new(&p, 10), &arrivals, 10_000_000).0
        );
    }

    /// Random arrivals: bursts, gaps and sizes from 40 to 1500 bytes, half ECN-capable.
    fn arb_arrivals() -> impl Strategy<Value = Vec<Arrival>> {
        proptest::collection::vec((0u64..3 * MS, 40u32..1500, any::<bool>(), 0u8..10), 1..800)
            .prop_map(|v| {
                let mut t = 0;
                v.into_iter()
                    .map(|(gap, size, ecn, burst)| {
                        // One arrival in ten follows a gap of up to 300 ms.
                        t += if burst == 0 { gap * 100 } else { gap };
                        Arrival {
                            at: SimTime(t),
                            size,
                            flow: 0,
                            ecn,
                        }
                    })
                    .collect()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn follows_rfc_8289_on_random_arrivals(
            arrivals in arb_arrivals(),
            rate in 1_000_000u64..20_000_000,
            target in 1u64..20,
            interval in 20u64..200,
            limit in 1u64..400,
            ecn in any::<bool>(),
        ) {
            let p = params(target, interval, ecn);
            let (log, most) = drive(&mut Held::new(&spec(p, limit), rate, 1), &arrivals, rate);
            let (want, _) = drive(&mut Rfc8289::new(&p, limit as usize), &arrivals, rate);
            prop_assert_eq!(&log, &want);
            prop_assert!(most as u64 <= limit);
            // Every packet is sent or dropped, once.
            prop_assert_eq!(sent_or_dropped(&log), (0..arrivals.len()).collect::<Vec<_>>());
        }
    }
}
