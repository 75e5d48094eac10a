//! A queue driven as a link drives it, for the queues' tests: packets arrive at given times and
//! a server of a given rate takes the next packet whenever its wire falls free (at an instant,
//! the wire falls free before packets arrive, as in the engine). What became of each packet is
//! logged, so that a queue can be held to a reference written from its RFC's pseudocode.

use std::collections::HashMap;

use super::packet::{Dir, Ecn, Packet};
use super::queue::{Admit, Queue, QueueSpec};
use super::store::Store;
use crate::rng::{stream, Stream};
use crate::time::{serialization_time, SimTime};

/// An arriving packet: when, its size, its flow, whether it is ECN-capable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arrival {
    pub at: SimTime,
    pub size: u32,
    pub flow: u32,
    pub ecn: bool,
}

/// What happened to packet `id` (its index among the arrivals) at `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fate {
    /// It started serializing.
    Sent { at: SimTime, id: usize },
    /// The queue set its CE bit (on arrival or as it left).
    Marked { at: SimTime, id: usize },
    /// Dropped on arrival or to make room (tail or overflow).
    Forced { at: SimTime, id: usize },
    /// Dropped by the AQM (early, or at dequeue).
    Early { at: SimTime, id: usize },
}

/// A queue as the tests drive it.
pub trait Tested {
    /// Packet `id` arrives: its fate if it is dropped or marked at once, with the packets
    /// dropped to make room.
    fn arrive(&mut self, id: usize, a: Arrival) -> Vec<Fate>;
    /// The wire is free at `at`: the packet sent, if any, after the drops (and the mark) on
    /// the way.
    fn serve(&mut self, at: SimTime) -> (Vec<Fate>, Option<usize>);
    /// Packets waiting.
    fn len(&self) -> usize;
}

/// Runs `arrivals` (in time order) through `q` onto a wire of `rate_bps`: every packet's fate,
/// in the order they happened, and the most packets waiting after an arrival.
pub fn drive(q: &mut impl Tested, arrivals: &[Arrival], rate_bps: u64) -> (Vec<Fate>, usize) {
    let (mut log, mut most) = (Vec::new(), 0);
    let mut busy_until: Option<SimTime> = None;
    let mut i = 0;
    loop {
        let next = arrivals.get(i).map(|a| a.at);
        match (busy_until, next) {
            (Some(free), n) if n.is_none_or(|t| free <= t) => {
                let (fates, sent) = q.serve(free);
                log.extend(fates);
                busy_until = sent.map(|id| {
                    log.push(Fate::Sent { at: free, id });
                    free + serialization_time(arrivals[id].size, rate_bps)
                });
            }
            (_, Some(t)) => {
                log.extend(q.arrive(i, arrivals[i]));
                most = most.max(q.len());
                i += 1;
                if busy_until.is_none() {
                    let (fates, sent) = q.serve(t);
                    log.extend(fates);
                    busy_until = sent.map(|id| {
                        log.push(Fate::Sent { at: t, id });
                        t + serialization_time(arrivals[id].size, rate_bps)
                    });
                }
            }
            (None, None) => return (log, most),
            (Some(_), None) => unreachable!(),
        }
    }
}

/// A [`Queue`] with the store its packets wait in.
pub struct Held {
    pub queue: Queue,
    store: Store,
    /// The arrival index of the packet in each store slot.
    ids: HashMap<u32, usize>,
}

impl Held {
    /// The queue of `spec` on a link of `rate_bps`, drawing from the queue stream of link 0 in
    /// a run seeded `seed`.
    pub fn new(spec: &QueueSpec, rate_bps: u64, seed: u64) -> Held {
        Held {
            queue: Queue::new(
                spec,
                rate_bps,
                SimTime::ZERO,
                stream(seed, Stream::Queue, 0),
            ),
            store: Store::default(),
            ids: HashMap::new(),
        }
    }

    fn fates(&mut self, dropped: Vec<u32>, at: SimTime, early: bool) -> Vec<Fate> {
        dropped
            .into_iter()
            .map(|k| {
                self.store.remove(k);
                let id = self.ids.remove(&k).expect("a stored packet");
                if early {
                    Fate::Early { at, id }
                } else {
                    Fate::Forced { at, id }
                }
            })
            .collect()
    }
}

impl Tested for Held {
    fn arrive(&mut self, id: usize, a: Arrival) -> Vec<Fate> {
        let k = self.store.insert(Packet {
            flow: a.flow,
            size_bytes: a.size,
            dir: Dir::Forward,
            ecn: Ecn {
                capable: a.ecn,
                congestion: false,
            },
            ..Packet::default()
        });
        self.ids.insert(k, id);
        let mut dropped = Vec::new();
        let admit = self.queue.enqueue(&mut self.store, k, a.at, &mut dropped);
        let mut out = self.fates(dropped, a.at, false);
        match admit {
            Admit::Queued => {}
            Admit::Marked => out.push(Fate::Marked { at: a.at, id }),
            Admit::DroppedForced => out.extend(self.fates(vec![k], a.at, false)),
            Admit::DroppedEarly => out.extend(self.fates(vec![k], a.at, true)),
        }
        out
    }

    fn serve(&mut self, at: SimTime) -> (Vec<Fate>, Option<usize>) {
        let mut dropped = Vec::new();
        let next = self.queue.dequeue(&mut self.store, at, &mut dropped);
        let mut fates = self.fates(dropped, at, true);
        let sent = next.map(|(k, marked)| {
            self.store.remove(k);
            let id = self.ids.remove(&k).expect("a stored packet");
            if marked {
                fates.push(Fate::Marked { at, id });
            }
            id
        });
        (fates, sent)
    }

    fn len(&self) -> usize {
        self.queue.len()
    }
}

/// The arrival indices the log sends or drops, sorted: each once, 0..n, when every one of `n`
/// packets met one fate (a mark comes before the packet is sent, and is not a fate).
pub fn sent_or_dropped(log: &[Fate]) -> Vec<usize> {
    let mut seen: Vec<usize> = log
        .iter()
        .filter_map(|f| match *f {
            Fate::Sent { id, .. } | Fate::Forced { id, .. } | Fate::Early { id, .. } => Some(id),
            Fate::Marked { .. } => None,
        })
        .collect();
    seen.sort_unstable();
    seen
}

/// Asserts that two logs are the same, showing where they part.
#[track_caller]
pub fn assert_same(got: &[Fate], want: &[Fate]) {
    if let Some(i) = (0..got.len().max(want.len())).find(|&i| got.get(i) != want.get(i)) {
        let around = |l: &[Fate]| l[i.saturating_sub(3)..(i + 3).min(l.len())].to_vec();
        panic!(
            "the logs part at entry {i} of {} and {}:\n got {:?}\nwant {:?}",
            got.len(),
            want.len(),
            around(got),
            around(want)
        );
    }
}
