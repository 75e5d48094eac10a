//! The packets in the network — waiting in queues, on a wire, propagating — in one store of
//! reusable slots, shared by all links.
//!
//! The packets on a link (propagating, on the wire, waiting in its queue) are a first-in
//! first-out chain through the store ([`Fifo`]): the chain keeps its head, tail and length, and
//! each slot the next slot of its chain. A link therefore owns no packet buffer, and keeps none
//! after a burst: at thousands of flows, each with its own access links, buffers kept at their
//! largest would cost more than the links themselves. A packet keeps its slot from the first
//! link of its path to the last.
//!
//! A slot is kept in two parts. What every hop reads (the chain, the routing fields, the size)
//! is 32 bytes, two slots to a cache line; the rest of the packet (its transport header, its
//! application tag, when it was sent) is read only where the packet enters and leaves the
//! network. With thousands of packets in flight, the hops' part stays in cache.

use super::packet::{Dir, Ecn, Header, Packet, Tag};
use crate::time::SimTime;

/// What a hop reads of the packet in a slot, and the slot's place in a chain.
#[derive(Clone, Copy, Debug)]
struct Routing {
    /// The next slot of the chain this one is in (meaningless at a chain's tail).
    next: u32,
    flow: u32,
    /// When the packet finishes serializing on the link it is on; while it waits in a queue
    /// that keeps its packets (CoDel, FQ-CoDel, PIE), when it entered that queue.
    done: SimTime,
    hop: u32,
    size_bytes: u32,
    dir: Dir,
    ecn: Ecn,
    /// A loss module took the packet as it left the wire; it stays in its link's chain, which
    /// runs in order, until it would have reached the far end.
    lost: bool,
}

/// The rest of the packet in a slot.
#[derive(Clone, Copy, Debug)]
struct Payload {
    sent_at: SimTime,
    header: Header,
    tag: Tag,
}

/// Packets in reusable slots; free slots form a chain too, the last freed first reused.
#[derive(Debug, Default)]
pub struct Store {
    routing: Vec<Routing>,
    payload: Vec<Payload>,
    free: Fifo,
}

impl Store {
    /// Stores `pkt`; its slot number.
    #[inline]
    pub fn insert(&mut self, pkt: Packet) -> u32 {
        let Packet {
            flow,
            hop,
            size_bytes,
            dir,
            ecn,
            sent_at,
            header,
            tag,
        } = pkt;
        let routing = Routing {
            next: 0,
            flow,
            done: SimTime::ZERO,
            hop,
            size_bytes,
            dir,
            ecn,
            lost: false,
        };
        let payload = Payload {
            sent_at,
            header,
            tag,
        };
        match self.free.take_head(&self.routing) {
            Some(k) => {
                self.routing[k as usize] = routing;
                self.payload[k as usize] = payload;
                k
            }
            None => {
                self.routing.push(routing);
                self.payload.push(payload);
                (self.routing.len() - 1) as u32
            }
        }
    }

    /// Frees slot `k` (in no chain); its packet.
    #[inline]
    pub fn remove(&mut self, k: u32) -> Packet {
        let pkt = self.packet(k);
        self.free.push_front(&mut self.routing, k);
        pkt
    }

    /// The packet in slot `k`, left in place.
    #[inline]
    pub fn packet(&self, k: u32) -> Packet {
        let Routing {
            flow,
            hop,
            size_bytes,
            dir,
            ecn,
            ..
        } = self.routing[k as usize];
        let Payload {
            sent_at,
            header,
            tag,
        } = self.payload[k as usize];
        Packet {
            flow,
            hop,
            size_bytes,
            dir,
            ecn,
            sent_at,
            header,
            tag,
        }
    }

    /// Fetches the payload of slot `k` into cache ahead of its removal: the lines of its start
    /// and of its tag, at its end. A payload (104 bytes) that spans three lines leaves the middle
    /// one to a miss; fetching every line of what the engine prefetches measured slower.
    #[inline]
    pub fn prefetch_payload(&self, k: u32) {
        let p = &self.payload[k as usize];
        prefetch(p);
        prefetch(&p.tag);
    }

    #[inline]
    pub fn flow(&self, k: u32) -> u32 {
        self.routing[k as usize].flow
    }

    #[inline]
    pub fn dir(&self, k: u32) -> Dir {
        self.routing[k as usize].dir
    }

    #[inline]
    pub fn size_bytes(&self, k: u32) -> u32 {
        self.routing[k as usize].size_bytes
    }

    #[inline]
    pub fn ecn_capable(&self, k: u32) -> bool {
        self.routing[k as usize].ecn.capable
    }

    /// Sets the packet's CE bit: a queue marked it instead of dropping it.
    #[inline]
    pub fn mark(&mut self, k: u32) {
        self.routing[k as usize].ecn.congestion = true;
    }

    /// Where the packet is on its path ([`Packet::hop`]).
    #[inline]
    pub fn hop(&self, k: u32) -> u32 {
        self.routing[k as usize].hop
    }

    #[inline]
    pub fn set_hop(&mut self, k: u32, hop: u32) {
        self.routing[k as usize].hop = hop;
    }

    /// When the packet in slot `k` finishes serializing on its link (or, waiting in a queue that
    /// keeps its packets, when it entered the queue).
    #[inline]
    pub fn done(&self, k: u32) -> SimTime {
        self.routing[k as usize].done
    }

    #[inline]
    pub fn set_done(&mut self, k: u32, at: SimTime) {
        self.routing[k as usize].done = at;
    }

    /// Whether a loss module took the packet in slot `k`.
    #[inline]
    pub fn lost(&self, k: u32) -> bool {
        self.routing[k as usize].lost
    }

    #[inline]
    pub fn set_lost(&mut self, k: u32) {
        self.routing[k as usize].lost = true;
    }
}

/// Asks the processor to bring the cache line holding the start of `x` into cache: a hint,
/// which changes no result.
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    // SAFETY: a prefetch reads nothing the program sees and cannot fault; `x` is a live
    // reference besides. SSE, which the instruction needs, is in every x86-64 processor.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (x as *const T).cast(),
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// A store slot or none, in four bytes where an `Option<u32>` takes eight (no slot number
/// reaches `u32::MAX`: the store would hold hundreds of gigabytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaybeSlot(u32);

impl MaybeSlot {
    pub const NONE: MaybeSlot = MaybeSlot(u32::MAX);

    #[inline]
    pub fn some(k: u32) -> MaybeSlot {
        debug_assert!(k != u32::MAX);
        MaybeSlot(k)
    }

    #[inline]
    pub fn get(self) -> Option<u32> {
        (self != MaybeSlot::NONE).then_some(self.0)
    }

    #[inline]
    pub fn is_some(self) -> bool {
        self != MaybeSlot::NONE
    }

    #[inline]
    pub fn take(&mut self) -> Option<u32> {
        std::mem::replace(self, MaybeSlot::NONE).get()
    }
}

/// A first-in first-out chain of store slots: 12 bytes, whatever its length has been.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fifo {
    head: u32,
    tail: u32,
    len: u32,
}

impl Fifo {
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slot at the head.
    #[inline]
    pub fn front(&self) -> Option<u32> {
        (self.len > 0).then_some(self.head)
    }

    /// The slot at the tail.
    #[inline]
    pub fn back(&self) -> Option<u32> {
        (self.len > 0).then_some(self.tail)
    }

    /// The slot after `k`, which is in this chain; none at the tail.
    #[inline]
    pub fn after(&self, store: &Store, k: u32) -> Option<u32> {
        (k != self.tail).then(|| store.routing[k as usize].next)
    }

    /// Appends slot `k` (in no other chain).
    #[inline]
    pub fn push_back(&mut self, store: &mut Store, k: u32) {
        if self.len == 0 {
            self.head = k;
        } else {
            store.routing[self.tail as usize].next = k;
        }
        self.tail = k;
        self.len += 1;
    }

    /// Takes the slot at the head.
    #[inline]
    pub fn pop_front(&mut self, store: &Store) -> Option<u32> {
        self.take_head(&store.routing)
    }

    #[inline]
    fn take_head(&mut self, slots: &[Routing]) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let k = self.head;
        self.head = slots[k as usize].next;
        self.len -= 1;
        Some(k)
    }

    /// Puts slot `k` (in no other chain) at the head: the free chain is a stack.
    #[inline]
    fn push_front(&mut self, slots: &mut [Routing], k: u32) {
        if self.len == 0 {
            self.tail = k;
        } else {
            slots[k as usize].next = self.head;
        }
        self.head = k;
        self.len += 1;
    }

    /// The slots from head to tail.
    pub fn iter<'a>(&self, store: &'a Store) -> impl Iterator<Item = u32> + 'a {
        let mut k = self.head;
        (0..self.len).map(move |_| {
            let here = k;
            k = store.routing[here as usize].next;
            here
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(flow: u32) -> Packet {
        Packet {
            flow,
            ..Packet::default()
        }
    }

    #[test]
    fn a_maybe_slot_is_none_or_its_slot() {
        let mut m = MaybeSlot::NONE;
        assert_eq!((m.get(), m.is_some(), m.take()), (None, false, None));
        m = MaybeSlot::some(0);
        assert_eq!((m.get(), m.is_some()), (Some(0), true));
        assert_eq!((m.take(), m), (Some(0), MaybeSlot::NONE));
    }

    #[test]
    fn chains_keep_their_order_and_share_the_slots() {
        let mut store = Store::default();
        let (mut a, mut b) = (Fifo::default(), Fifo::default());
        for i in 0..4 {
            let k = store.insert(pkt(i));
            if i % 2 == 0 {
                a.push_back(&mut store, k)
            } else {
                b.push_back(&mut store, k)
            }
        }
        let flows = |f: &Fifo, s: &Store| f.iter(s).map(|k| s.flow(k)).collect::<Vec<_>>();
        assert_eq!(
            (flows(&a, &store), flows(&b, &store)),
            (vec![0, 2], vec![1, 3])
        );
        let k = a.pop_front(&store).unwrap();
        assert_eq!(store.remove(k).flow, 0);
        // The freed slot is reused before the store grows.
        let again = store.insert(pkt(9));
        assert_eq!((again, store.routing.len()), (k, 4));
        a.push_back(&mut store, again);
        assert_eq!(flows(&a, &store), vec![2, 9]);
        assert_eq!(
            (a.len(), a.front(), a.back(), b.len()),
            (2, Some(2), Some(again), 2)
        );
        assert_eq!(
            (a.after(&store, 2), a.after(&store, again)),
            (Some(again), None)
        );
        while let Some(k) = b.pop_front(&store) {
            store.remove(k);
        }
        assert!(b.is_empty() && b.front().is_none() && b.back().is_none());
    }

    #[test]
    fn a_chain_and_a_hops_part_stay_small() {
        // Every link holds a chain, whatever it carried.
        assert_eq!(std::mem::size_of::<Fifo>(), 12);
        // Two slots' routing parts to a cache line.
        assert_eq!(std::mem::size_of::<Routing>(), 32);
    }

    #[test]
    fn a_packet_leaves_the_store_as_it_entered_with_its_hop_its_time_and_its_mark() {
        let mut store = Store::default();
        let pkt = Packet {
            flow: 3,
            hop: 7,
            size_bytes: 1040,
            dir: Dir::Reverse,
            ecn: Ecn {
                capable: true,
                congestion: false,
            },
            sent_at: SimTime::from_ms(5),
            header: Header {
                seq: 11,
                ack: 12,
                flags: 1,
                value: [0.5, 2.0],
                blocks: [1, 2, 3, 4, 5, 6],
                ..Header::default()
            },
            tag: Tag::new(4, 1).with_deadline(SimTime::from_ms(40)),
        };
        let k = store.insert(pkt);
        assert_eq!(
            (
                store.flow(k),
                store.size_bytes(k),
                store.hop(k),
                store.ecn_capable(k)
            ),
            (3, 1040, 7, true)
        );
        store.set_hop(k, 8);
        store.set_done(k, SimTime::from_ms(9));
        store.mark(k);
        assert!(!store.lost(k));
        store.set_lost(k);
        assert_eq!((store.done(k), store.lost(k)), (SimTime::from_ms(9), true));
        let out = store.remove(k);
        assert_eq!(
            out,
            Packet {
                hop: 8,
                ecn: Ecn {
                    capable: true,
                    congestion: true
                },
                ..pkt
            }
        );
    }
}
