//! FQ-CoDel, RFC 8290: packets hashed by flow into `flows` queues, each a CoDel queue
//! ([`CoDelVars`]), served by deficit round robin with a quantum of bytes, queues that have just
//! become active first.
//!
//! As RFC 8290 §4 describes and Linux `net/sched/sch_fq_codel.c` implements it:
//! - a flow's packets go to queue `reciprocal_scale(hash(flow), flows)` (§4.1.1; Linux
//!   `fq_codel_hash()`); the hash mixes the flow's identity (its number and direction) with a
//!   perturbation drawn from the link's random stream, so collisions differ from seed to seed
//!   and are the same in every run of one seed;
//! - a queue that receives a packet while in neither list joins the tail of the new list with a
//!   deficit of one quantum (§4.1.1);
//! - dequeue takes the first queue of the new list, or else of the old list; a queue whose
//!   deficit is spent gets another quantum and moves to the tail of the old list; an empty new
//!   queue moves to the old list if that holds any queue (so that new flows cannot starve old
//!   ones), an empty old queue leaves the lists (§4.2);
//! - CoDel runs per queue with the scheduler's total backlog as its `bytes()` (Linux passes
//!   `sch->qstats.backlog`);
//! - past `limit` packets or `memory_limit` bytes, packets are dropped from the head of the
//!   queue holding the most bytes (§4.1.1); as Linux does, up to `drop_batch` packets at once,
//!   until half that queue's bytes are gone, and its CoDel count rises by as many
//!   (`fq_codel_drop()`); `drop_batch = 1` drops one packet at a time, as the RFC describes.
//!
//! Memory is counted as the packets' bytes (Linux counts `skb->truesize`, buffers included).

use super::codel::{take_head, Chain, CoDelParams, CoDelVars, Head, Served, Signals, Step};
use super::queue::Backlog;
use super::store::{Fifo, Store};
use crate::time::SimTime;

/// FQ-CoDel's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FqCoDelParams {
    pub codel: CoDelParams,
    /// Queues packets are hashed into (RFC 8290 §4; Linux default 1024).
    pub flows: u32,
    /// Bytes a queue may send each round (§4.2; one MTU, Linux default 1514).
    pub quantum: u32,
    /// Most packets waiting (Linux default 10240).
    pub limit_packets: u64,
    /// Most bytes waiting (Linux default 32 MiB).
    pub memory_limit_bytes: u64,
    /// Most packets dropped from the fattest queue at one overflow (Linux default 64).
    pub drop_batch: u32,
}

/// No queue: the end of a list.
const NIL: u32 = u32::MAX;
/// The `next` of a queue in neither list (there are at most 65 536 queues).
const UNLISTED: u32 = u32::MAX - 1;

/// One queue of the scheduler.
#[derive(Clone, Debug)]
struct FlowQueue {
    /// Its packets, head first; each slot's time is when it entered.
    waiting: Fifo,
    /// The next queue in its list, [`NIL`] at the tail; [`UNLISTED`] in neither list.
    next: u32,
    /// Bytes it may still send this round (DRR's deficit).
    deficit: i64,
    /// Bytes waiting in it (Linux `q->backlogs`, scanned for the fattest).
    bytes: u64,
    vars: CoDelVars,
}

/// A list of queues, by index: the new or the old list of RFC 8290 §4.
#[derive(Clone, Copy, Debug)]
struct List {
    head: u32,
    tail: u32,
}

impl List {
    const EMPTY: List = List {
        head: NIL,
        tail: NIL,
    };

    fn is_empty(&self) -> bool {
        self.head == NIL
    }

    /// Appends queue `q`, in no list.
    fn push_back(&mut self, queues: &mut [FlowQueue], q: u32) {
        queues[q as usize].next = NIL;
        match self.tail {
            NIL => self.head = q,
            t => queues[t as usize].next = q,
        }
        self.tail = q;
    }

    /// The first queue leaves the list, `next` the queue after it.
    fn pop_front(&mut self, next: u32) {
        self.head = next;
        if next == NIL {
            self.tail = NIL;
        }
    }
}

/// An FQ-CoDel scheduler.
#[derive(Clone, Debug)]
pub struct FqCoDel {
    params: FqCoDelParams,
    /// The hash's perturbation, from the link's random stream.
    perturbation: u64,
    queues: Vec<FlowQueue>,
    new: List,
    old: List,
    /// CoDel's drops and marks over all queues.
    signals: Signals,
}

/// A queue of the scheduler as its CoDel serves it: the queue's FIFO and the scheduler's
/// backlog, and the queue's own bytes.
struct FlowChain<'a> {
    chain: Chain<'a>,
    bytes: &'a mut u64,
}

impl Served for FlowChain<'_> {
    fn dequeue(&mut self) -> Option<Head> {
        let head = self.chain.dequeue()?;
        *self.bytes -= head.size_bytes as u64;
        Some(head)
    }
    fn bytes(&self) -> u64 {
        self.chain.bytes()
    }
    fn drop(&mut self, slot: u32) {
        self.chain.drop(slot);
    }
    fn mark(&mut self, slot: u32) {
        self.chain.mark(slot);
    }
}

impl FqCoDel {
    pub fn new(params: FqCoDelParams, perturbation: u64) -> FqCoDel {
        let n = params.flows as usize;
        FqCoDel {
            params,
            perturbation,
            queues: vec![
                FlowQueue {
                    waiting: Fifo::default(),
                    next: UNLISTED,
                    deficit: 0,
                    bytes: 0,
                    vars: CoDelVars::default(),
                };
                n
            ],
            new: List::EMPTY,
            old: List::EMPTY,
            signals: Signals::default(),
        }
    }

    /// The queue of the flow numbered `flow` going `reverse`ly or not: `reciprocal_scale` of a
    /// 32-bit hash (Linux `fq_codel_hash()`), the hash the top half of the flow's identity with
    /// the perturbation times 2^64/φ (Fibonacci hashing: Knuth, TAOCP vol. 3, §6.4).
    #[inline]
    pub fn queue_of(&self, flow: u32, reverse: bool) -> usize {
        let key = (flow as u64) << 1 | reverse as u64;
        let hash = (key ^ self.perturbation).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        ((hash * self.params.flows as u64) >> 32) as usize
    }

    /// The packet in `slot` arrives at `now`: it joins its flow's queue (RFC 8290 §4.1.1). On
    /// overflow the scheduler drops from its fattest queue, the arrival perhaps among them; the
    /// dropped slots are pushed onto `dropped`.
    pub fn enqueue(
        &mut self,
        store: &mut Store,
        slot: u32,
        now: SimTime,
        backlog: &mut Backlog,
        dropped: &mut Vec<u32>,
    ) {
        let size = store.size_bytes(slot);
        let q = self.queue_of(store.flow(slot), store.dir(slot).index() == 1);
        store.set_done(slot, now);
        let queue = &mut self.queues[q];
        queue.waiting.push_back(store, slot);
        queue.bytes += size as u64;
        backlog.add(size);
        if queue.next == UNLISTED {
            queue.deficit = self.params.quantum as i64;
            self.new.push_back(&mut self.queues, q as u32);
        }
        if backlog.len as u64 > self.params.limit_packets
            || backlog.bytes > self.params.memory_limit_bytes
        {
            self.drop_from_fattest(store, backlog, dropped);
        }
    }

    /// Linux `fq_codel_drop()`: from the queue with the most bytes (the first such), heads
    /// until half its bytes are gone or `drop_batch` packets are.
    #[inline(never)]
    fn drop_from_fattest(&mut self, store: &Store, backlog: &mut Backlog, dropped: &mut Vec<u32>) {
        let mut fattest = 0;
        for (i, q) in self.queues.iter().enumerate() {
            if q.bytes > self.queues[fattest].bytes {
                fattest = i;
            }
        }
        let queue = &mut self.queues[fattest];
        let threshold = queue.bytes / 2;
        let (mut bytes, mut n) = (0u64, 0u32);
        while let Some(slot) = queue.waiting.pop_front(store) {
            let size = store.size_bytes(slot);
            bytes += size as u64;
            backlog.remove(size);
            dropped.push(slot);
            n += 1;
            if n >= self.params.drop_batch || bytes >= threshold {
                break;
            }
        }
        // Linux: tell CoDel to signal harder as well.
        queue.vars.count = queue.vars.count.wrapping_add(n);
        queue.bytes -= bytes;
    }

    /// RFC 8290 §4.2 (Linux `fq_codel_dequeue()`) at `now`: the packet to send and whether
    /// CoDel marked it; packets CoDel drops on the way are pushed onto `dropped`.
    pub fn dequeue(
        &mut self,
        store: &mut Store,
        now: SimTime,
        backlog: &mut Backlog,
        dropped: &mut Vec<u32>,
    ) -> Option<(u32, bool)> {
        loop {
            let (q, new) = self.next_queue()?;
            let queue = &mut self.queues[q];
            let head = take_head(&mut queue.waiting, store, backlog);
            if let Some(h) = &head {
                queue.bytes -= h.size_bytes as u64;
            }
            let sent = match queue
                .vars
                .start(&self.params.codel, now, head, backlog.bytes)
            {
                Step::Done(head) => head.map(|h| (h, false)),
                Step::Signal(head) => {
                    let mut chain = FlowChain {
                        chain: Chain {
                            waiting: &mut queue.waiting,
                            store: &mut *store,
                            backlog: &mut *backlog,
                            dropped: &mut *dropped,
                            signals: &mut self.signals,
                        },
                        bytes: &mut queue.bytes,
                    };
                    let p = &self.params.codel;
                    queue.vars.signal(p, now, &mut chain, head)
                }
            };
            if let Some((head, marked)) = sent {
                queue.deficit -= head.size_bytes as i64;
                return Some((head.slot, marked));
            }
            // Empty: a new queue goes to the old list if it holds any (no starving the old
            // queues), otherwise the queue leaves the lists.
            let list = if new { &mut self.new } else { &mut self.old };
            list.pop_front(queue.next);
            if new && !self.old.is_empty() {
                self.old.push_back(&mut self.queues, q as u32);
            } else {
                queue.next = UNLISTED;
            }
        }
    }

    /// The queue to serve (§4.2): the first of the new list, or else of the old list, with a
    /// deficit left; a queue whose deficit is spent gets another quantum and moves to the tail
    /// of the old list. Also whether it is the new list's.
    #[inline(always)]
    fn next_queue(&mut self) -> Option<(usize, bool)> {
        loop {
            let new = !self.new.is_empty();
            let q = match (new, self.old.is_empty()) {
                (true, _) => self.new.head,
                (false, false) => self.old.head,
                (false, true) => return None,
            };
            let queue = &mut self.queues[q as usize];
            if queue.deficit > 0 {
                return Some((q as usize, new));
            }
            queue.deficit += self.params.quantum as i64;
            let list = if new { &mut self.new } else { &mut self.old };
            list.pop_front(queue.next);
            self.old.push_back(&mut self.queues, q);
        }
    }

    /// CoDel's drops and marks over all queues so far.
    pub fn signals(&self) -> Signals {
        self.signals
    }

    /// The waiting packets' slots, queue by queue.
    pub fn slots<'a>(&'a self, store: &'a Store) -> impl Iterator<Item = u32> + 'a {
        self.queues.iter().flat_map(|q| q.waiting.iter(store))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use proptest::prelude::*;

    use super::*;
    use crate::net::codel::reference::{Pkt, RefQueue, Rfc8289Vars};
    use crate::net::queue::{Length, QueueSpec};
    use crate::net::test_link::{assert_same, drive, sent_or_dropped, Arrival, Fate, Held, Tested};

    const MS: u64 = 1_000_000;

    fn codel(ecn: bool) -> CoDelParams {
        CoDelParams {
            target: SimTime::from_ms(5),
            interval: SimTime::from_ms(100),
            mtu_bytes: 1514,
            ecn,
        }
    }

    fn params(flows: u32, limit: u64, drop_batch: u32) -> FqCoDelParams {
        FqCoDelParams {
            codel: codel(false),
            flows,
            quantum: 1514,
            limit_packets: limit,
            memory_limit_bytes: 32 << 20,
            drop_batch,
        }
    }

    fn held(p: FqCoDelParams, seed: u64) -> Held {
        Held::new(&QueueSpec::FqCoDel(p), 10_000_000, seed)
    }

    /// `n` packets of `size` bytes from `flow`, every `gap` ns from `start`.
    fn stream_of(flow: u32, size: u32, start: u64, gap: u64, n: u64) -> Vec<Arrival> {
        (0..n)
            .map(|k| Arrival {
                at: SimTime(start + k * gap),
                size,
                flow,
                ecn: false,
            })
            .collect()
    }

    fn merged(mut streams: Vec<Vec<Arrival>>) -> Vec<Arrival> {
        let mut all: Vec<Arrival> = streams.drain(..).flatten().collect();
        all.sort_by_key(|a| a.at);
        all
    }

    /// Seed whose perturbation puts flows 0..n in different queues of `flows`.
    fn seed_apart(n: u32, flows: u32) -> u64 {
        (1..)
            .find(|&seed| {
                let q = FqCoDel::new(params(flows, 10240, 64), perturbation(seed));
                let mut seen: Vec<usize> = (0..n).map(|f| q.queue_of(f, false)).collect();
                seen.sort_unstable();
                seen.dedup();
                seen.len() == n as usize
            })
            .unwrap()
    }

    /// The perturbation a link's FQ-CoDel draws in a run seeded `seed`.
    fn perturbation(seed: u64) -> u64 {
        use rand::Rng as _;
        crate::rng::stream(seed, crate::rng::Stream::Queue, 0).gen()
    }

    fn sent_by_flow(log: &[Fate], arrivals: &[Arrival], until: SimTime) -> Vec<u64> {
        let mut bytes = vec![0; 4];
        for f in log {
            if let Fate::Sent { at, id } = *f {
                if at < until {
                    bytes[arrivals[id].flow as usize] += arrivals[id].size as u64;
                }
            }
        }
        bytes
    }

    /// RFC 8290 §4 as written, over deques, with the choices Linux makes where the RFC leaves
    /// room (`sch_fq_codel.c`): CoDel's `bytes()` is the scheduler's backlog, an emptied new
    /// queue moves to the old list only if that holds a queue, and an overflow drops up to
    /// `drop_batch` heads of the fattest queue until half its bytes are gone, adding them to its
    /// CoDel count. Queues are numbered by the scheduler's own hash (RFC 8290 §4.1.1 leaves the
    /// hash to the implementation): the reference the scheduler is held to.
    struct Rfc8290 {
        p: FqCoDelParams,
        /// The flow's queue, by (flow, reverse): the hash under test.
        hash: FqCoDel,
        queues: Vec<VecDeque<Pkt>>,
        /// Bytes in each queue, and over all.
        bytes: Vec<u64>,
        total_bytes: u64,
        total_pkts: u64,
        deficit: Vec<i64>,
        codel: Vec<Rfc8289Vars>,
        new_flows: VecDeque<usize>,
        old_flows: VecDeque<usize>,
    }

    impl Rfc8290 {
        fn new(p: FqCoDelParams, seed: u64) -> Rfc8290 {
            let n = p.flows as usize;
            Rfc8290 {
                p,
                hash: FqCoDel::new(p, perturbation(seed)),
                queues: vec![VecDeque::new(); n],
                bytes: vec![0; n],
                total_bytes: 0,
                total_pkts: 0,
                deficit: vec![0; n],
                codel: (0..n).map(|_| Rfc8289Vars::new(&p.codel)).collect(),
                new_flows: VecDeque::new(),
                old_flows: VecDeque::new(),
            }
        }

        fn listed(&self, q: usize) -> bool {
            self.new_flows.contains(&q) || self.old_flows.contains(&q)
        }
    }

    /// Queue `q` as its CoDel pops it: `bytes()` is the scheduler's backlog.
    struct View<'a> {
        q: &'a mut VecDeque<Pkt>,
        bytes: &'a mut u64,
        total_bytes: &'a mut u64,
        total_pkts: &'a mut u64,
    }

    impl RefQueue for View<'_> {
        fn pop(&mut self) -> Option<Pkt> {
            let p = self.q.pop_front()?;
            *self.bytes -= p.2 as u64;
            *self.total_bytes -= p.2 as u64;
            *self.total_pkts -= 1;
            Some(p)
        }
        fn bytes(&self) -> u64 {
            *self.total_bytes
        }
    }

    impl Tested for Rfc8290 {
        /// §4.1.1: classify, timestamp, append; an idle queue joins the new list with a
        /// quantum of deficit; past a limit, drop from the head of the fattest queue.
        fn arrive(&mut self, id: usize, a: Arrival) -> Vec<Fate> {
            let i = self.hash.queue_of(a.flow, false);
            self.queues[i].push_back((id, a.at.ns(), a.size, a.ecn));
            self.bytes[i] += a.size as u64;
            self.total_bytes += a.size as u64;
            self.total_pkts += 1;
            if !self.listed(i) {
                self.new_flows.push_back(i);
                self.deficit[i] = self.p.quantum as i64;
            }
            let mut out = Vec::new();
            if self.total_pkts > self.p.limit_packets
                || self.total_bytes > self.p.memory_limit_bytes
            {
                let max = *self.bytes.iter().max().unwrap();
                let fat = self.bytes.iter().position(|&b| b == max).unwrap();
                let (mut len, mut n) = (0, 0);
                loop {
                    let p = self.queues[fat].pop_front().unwrap();
                    len += p.2 as u64;
                    n += 1;
                    out.push(Fate::Forced { at: a.at, id: p.0 });
                    if n >= self.p.drop_batch || len >= max / 2 {
                        break;
                    }
                }
                self.bytes[fat] -= len;
                self.total_bytes -= len;
                self.total_pkts -= n as u64;
                self.codel[fat].count_ = self.codel[fat].count_.wrapping_add(n);
            }
            out
        }

        /// §4.2: the first queue of the new list, else of the old; a spent deficit gets a
        /// quantum more and moves the queue to the old list's tail; an empty queue leaves.
        fn serve(&mut self, at: SimTime) -> (Vec<Fate>, Option<usize>) {
            let mut fates = Vec::new();
            loop {
                let from_new = !self.new_flows.is_empty();
                let list = if from_new {
                    &mut self.new_flows
                } else {
                    &mut self.old_flows
                };
                let Some(&i) = list.front() else {
                    return (fates, None);
                };
                if self.deficit[i] <= 0 {
                    self.deficit[i] += self.p.quantum as i64;
                    list.pop_front();
                    self.old_flows.push_back(i);
                    continue;
                }
                let mut view = View {
                    q: &mut self.queues[i],
                    bytes: &mut self.bytes[i],
                    total_bytes: &mut self.total_bytes,
                    total_pkts: &mut self.total_pkts,
                };
                match self.codel[i].dequeue(at.ns(), &mut view, &mut fates) {
                    Some(p) => {
                        self.deficit[i] -= p.2 as i64;
                        return (fates, Some(p.0));
                    }
                    None => {
                        list.pop_front();
                        if from_new && !self.old_flows.is_empty() {
                            self.old_flows.push_back(i);
                        }
                    }
                }
            }
        }

        fn len(&self) -> usize {
            self.total_pkts as usize
        }
    }

    /// Two bulk flows of 1000-byte packets, one every 0.5 ms each (32 Mb/s together into
    /// 10 Mb/s), the second ECN-capable and starting 0.25 ms after the first, and a sparse flow
    /// (a 200-byte packet every 20 ms) for `ms`.
    fn scripted(ms: u64) -> Vec<Arrival> {
        let mut ecn = stream_of(1, 1000, MS / 4, MS / 2, 2 * ms);
        ecn.iter_mut().for_each(|a| a.ecn = true);
        merged(vec![
            stream_of(0, 1000, 0, MS / 2, 2 * ms),
            ecn,
            stream_of(2, 200, 3 * MS / 10, 20 * MS, ms / 20),
        ])
    }

    #[test]
    fn follows_rfc_8290_drop_for_drop_on_a_scripted_sequence() {
        // The three flows in queues of their own; CoDel on: the bulk queues' first drop and
        // first mark, and every fate after, where RFC 8290's pseudocode puts them.
        let seed = seed_apart(3, 1024);
        let arrivals = scripted(600);
        let mut p = params(1024, 10240, 64);
        p.codel.ecn = true;
        let (log, _) = drive(&mut held(p, seed), &arrivals, 10_000_000);
        let (want, _) = drive(&mut Rfc8290::new(p, seed), &arrivals, 10_000_000);
        // When the first fate of `kind` befell a packet of `flow`.
        let first = |kind: fn(&Fate) -> bool, flow: u32| {
            log.iter().find_map(|x| {
                let (Fate::Early { at, id }
                | Fate::Marked { at, id }
                | Fate::Sent { at, id }
                | Fate::Forced { at, id }) = *x;
                (kind(x) && arrivals[id].flow == flow).then_some(at.ns())
            })
        };
        // Quanta of 1514 bytes and 1000-byte packets: once the start is over the bulk queues
        // take turns of 2, 2, 1, 1 packets (deficits 1028, 542, 1056, ...), 0.8 ms each, and
        // each sparse packet goes first for 0.16 ms. Flow 1's packet of 2.25 ms leaves at 7.36
        // ms after 5.11 ms, its first above the 5-ms target; flow 0's of 2.5 ms at 8.16 ms after
        // 5.66 ms. 100 ms later (5 sparse packets and 124 bulk ones) each queue is served again
        // with its sojourn still above target: flow 1 is marked at 107.36 ms, flow 0 loses its
        // head at 108.16 ms (RFC 8289 §5.5 per queue, RFC 8290 §4.2).
        let drop = first(|f| matches!(f, Fate::Early { .. }), 0);
        let mark = first(|f| matches!(f, Fate::Marked { .. }), 1);
        assert_eq!((drop, mark), (Some(108_160_000), Some(107_360_000)));
        assert_same(&log, &want);
        // The sparse flow loses nothing and is never marked.
        assert!(first(
            |f| matches!(
                f,
                Fate::Early { .. } | Fate::Forced { .. } | Fate::Marked { .. }
            ),
            2
        )
        .is_none());
        // A small buffer: overflow drops from the fattest queue, as the reference does.
        let small = FqCoDelParams {
            limit_packets: 40,
            ..p
        };
        let (log, _) = drive(&mut held(small, seed), &arrivals, 10_000_000);
        assert!(log.iter().any(|f| matches!(f, Fate::Forced { .. })));
        assert_same(
            &log,
            &drive(&mut Rfc8290::new(small, seed), &arrivals, 10_000_000).0,
        );
    }

    #[test]
    fn one_flow_is_served_as_by_codel_alone() {
        // One flow's queue holds the whole backlog: FQ-CoDel's dequeue is CoDel's, drop for
        // drop (RFC 8290 §4.3).
        let arrivals = stream_of(0, 1000, 0, MS / 2, 800);
        let (log, _) = drive(&mut held(params(1024, 10240, 64), 1), &arrivals, 10_000_000);
        let codel = QueueSpec::CoDel {
            params: codel(false),
            limit: Length::Packets(10240),
        };
        let (want, _) = drive(&mut Held::new(&codel, 10_000_000, 1), &arrivals, 10_000_000);
        assert!(log.iter().any(|f| matches!(f, Fate::Early { .. })));
        assert_same(&log, &want);
    }

    #[test]
    fn deficit_round_robin_shares_bytes_not_packets() {
        // Two flows keep their queues full, one with 1500-byte packets, one with 300-byte
        // ones: each sends a quantum a round, so their bytes stay within a quantum of each
        // other while both are backlogged (RFC 8290 §4.2).
        let seed = seed_apart(2, 1024);
        let arrivals = merged(vec![
            stream_of(0, 1500, 0, MS, 300),
            stream_of(1, 300, 0, MS / 5, 1500),
        ]);
        let (log, _) = drive(
            &mut held(params(1024, 10240, 64), seed),
            &arrivals,
            10_000_000,
        );
        for until in [50, 100, 200] {
            let b = sent_by_flow(&log, &arrivals, SimTime::from_ms(until));
            assert!(b[0].abs_diff(b[1]) <= 1514 + 1500, "{until} ms: {b:?}");
        }
    }

    #[test]
    fn a_sparse_flow_is_served_first_and_keeps_a_short_queue() {
        // A bulk flow at twice the link rate and a sparse one (a 200-byte packet every 20 ms):
        // each sparse packet finds its queue empty, joins the new list and leaves as soon as
        // the packet on the wire is done (RFC 8290 §4.4, §1.1's isolation), while the bulk
        // flow waits long.
        let seed = seed_apart(2, 1024);
        let arrivals = merged(vec![
            stream_of(0, 1000, 0, 400_000, 2500),
            stream_of(1, 200, 1_000_001, 20 * MS, 50),
        ]);
        let (log, _) = drive(
            &mut held(params(1024, 10240, 64), seed),
            &arrivals,
            10_000_000,
        );
        for f in &log {
            if let Fate::Sent { at, id } = *f {
                let wait = at - arrivals[id].at;
                if arrivals[id].flow == 1 {
                    assert!(wait <= SimTime(800_000), "sparse packet {id} waited {wait}");
                }
            }
            assert!(
                !matches!(f, Fate::Early { id, .. } | Fate::Forced { id, .. } if arrivals[*id].flow == 1)
            );
        }
    }

    #[test]
    fn overflow_drops_half_the_fattest_queue_from_its_head() {
        // Flow 0 fills 20 of a 24-packet buffer before flow 1 sends 4 and flow 2 one more:
        // the 25th packet overflows and flow 0, the fattest, loses its 10 oldest (half its
        // 20 000 bytes; Linux fq_codel_drop), or only its oldest with drop_batch = 1.
        let seed = seed_apart(3, 1024);
        let arrivals = merged(vec![
            stream_of(0, 1000, 1, 1, 21),
            stream_of(1, 1000, 100, 1, 4),
            stream_of(2, 1000, 200, 1, 1),
        ]);
        for (batch, dropped) in [(64, (1..11).collect::<Vec<usize>>()), (1, vec![1])] {
            let (log, most) = drive(&mut held(params(1024, 24, batch), seed), &arrivals, 10_000);
            let forced: Vec<usize> = log
                .iter()
                .filter_map(|f| match *f {
                    Fate::Forced { id, .. } => Some(id),
                    _ => None,
                })
                .collect();
            assert_eq!((forced, most), (dropped, 24), "drop_batch = {batch}");
        }
    }

    #[test]
    fn a_queue_stays_within_a_cache_line() {
        // Linux keeps its flow record within 64 bytes; so does this one, its backlog
        // included.
        let size = std::mem::size_of::<FlowQueue>();
        assert!(size <= 64, "{size}");
    }

    #[test]
    fn the_hash_is_fixed_by_the_seed() {
        let a = FqCoDel::new(params(1024, 10240, 64), perturbation(1));
        let b = FqCoDel::new(params(1024, 10240, 64), perturbation(1));
        let c = FqCoDel::new(params(1024, 10240, 64), perturbation(2));
        let of = |q: &FqCoDel| {
            (0..64)
                .map(|f| q.queue_of(f, f % 2 == 0))
                .collect::<Vec<_>>()
        };
        assert_eq!(of(&a), of(&b));
        assert_ne!(of(&a), of(&c));
        // 10 000 flows over 1024 queues: every queue gets some, none too many (a binomial
        // with mean 9.8 has a maximum near 25 here).
        let mut load = vec![0; 1024];
        (0..10_000).for_each(|f| load[a.queue_of(f, false)] += 1);
        assert!(
            load.iter().all(|&n| n > 0) && load.iter().max() < Some(&30),
            "{load:?}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn follows_rfc_8290_conserves_packets_and_repeats_itself(
            gaps in proptest::collection::vec((0u64..MS, 40u32..1500, 0u32..6, any::<bool>()), 1..1500),
            flows in 1u32..16,
            limit in 1u64..200,
            memory in 1500u64..200_000,
            drop_batch in 1u32..80,
            ecn in any::<bool>(),
            seed in any::<u64>(),
        ) {
            let mut t = 0;
            let arrivals: Vec<Arrival> = gaps
                .into_iter()
                .map(|(gap, size, flow, capable)| {
                    t += gap;
                    Arrival { at: SimTime(t), size, flow, ecn: capable }
                })
                .collect();
            let p = FqCoDelParams {
                codel: codel(ecn),
                memory_limit_bytes: memory,
                ..params(flows, limit, drop_batch)
            };
            let (log, most) = drive(&mut held(p, seed), &arrivals, 5_000_000);
            prop_assert!(most as u64 <= limit);
            prop_assert_eq!(sent_or_dropped(&log), (0..arrivals.len()).collect::<Vec<_>>());
            prop_assert_eq!(&log, &drive(&mut held(p, seed), &arrivals, 5_000_000).0);
            prop_assert_eq!(log, drive(&mut Rfc8290::new(p, seed), &arrivals, 5_000_000).0);
        }
    }
}
