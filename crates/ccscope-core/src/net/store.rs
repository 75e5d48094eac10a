//! The packets in the network — waiting in queues, on a wire, propagating — in one store of
//! reusable slots, shared by all links.
//!
//! A queue's waiting packets and a link's pipe are first-in first-out chains through the store
//! ([`Fifo`]): the chain keeps its head, tail and length, and each slot the next slot of its
//! chain. A link therefore owns no packet buffer, and keeps none after a burst: at thousands
//! of flows, each with its own access links, buffers kept at their largest would cost more than
//! the links themselves. A packet keeps its slot from the first link of its path to the last.

use super::packet::Packet;
use crate::time::SimTime;

/// One packet and its place in a chain. The chain fields come first, in declaration order
/// (`repr(C)`), next to the packet's routing fields: moving a packet along reads one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Slot {
    /// The next slot of the chain this one is in (meaningless at a chain's tail).
    next: u32,
    /// When the packet reaches the far end of the link it propagates on (pipes only).
    at: SimTime,
    pkt: Packet,
}

/// Packets in reusable slots; free slots form a chain too, the last freed first reused.
#[derive(Debug, Default)]
pub struct Store {
    slots: Vec<Slot>,
    free: Fifo,
}

impl Store {
    /// Stores `pkt`; its slot number.
    #[inline]
    pub fn insert(&mut self, pkt: Packet) -> u32 {
        match self.free.take_head(&self.slots) {
            Some(k) => {
                self.slots[k as usize].pkt = pkt;
                k
            }
            None => {
                self.slots.push(Slot { next: 0, at: SimTime::ZERO, pkt });
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// Frees slot `k` (in no chain); its packet.
    #[inline]
    pub fn remove(&mut self, k: u32) -> Packet {
        let pkt = self.slots[k as usize].pkt;
        self.free.push_front(&mut self.slots, k);
        pkt
    }

    #[inline]
    pub fn packet(&self, k: u32) -> &Packet {
        &self.slots[k as usize].pkt
    }

    #[inline]
    pub fn packet_mut(&mut self, k: u32) -> &mut Packet {
        &mut self.slots[k as usize].pkt
    }

    /// When the packet in slot `k` leaves its pipe.
    #[inline]
    pub fn arrival(&self, k: u32) -> SimTime {
        self.slots[k as usize].at
    }

    #[inline]
    pub fn set_arrival(&mut self, k: u32, at: SimTime) {
        self.slots[k as usize].at = at;
    }
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

    /// Appends slot `k` (in no other chain).
    #[inline]
    pub fn push_back(&mut self, store: &mut Store, k: u32) {
        if self.len == 0 {
            self.head = k;
        } else {
            store.slots[self.tail as usize].next = k;
        }
        self.tail = k;
        self.len += 1;
    }

    /// Takes the slot at the head.
    #[inline]
    pub fn pop_front(&mut self, store: &Store) -> Option<u32> {
        self.take_head(&store.slots)
    }

    #[inline]
    fn take_head(&mut self, slots: &[Slot]) -> Option<u32> {
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
    fn push_front(&mut self, slots: &mut [Slot], k: u32) {
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
            k = store.slots[here as usize].next;
            here
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(flow: u32) -> Packet {
        Packet { flow, ..Packet::default() }
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
            if i % 2 == 0 { a.push_back(&mut store, k) } else { b.push_back(&mut store, k) }
        }
        let flows = |f: &Fifo, s: &Store| f.iter(s).map(|k| s.packet(k).flow).collect::<Vec<_>>();
        assert_eq!((flows(&a, &store), flows(&b, &store)), (vec![0, 2], vec![1, 3]));
        let k = a.pop_front(&store).unwrap();
        assert_eq!(store.remove(k).flow, 0);
        // The freed slot is reused before the store grows.
        let again = store.insert(pkt(9));
        assert_eq!((again, store.slots.len()), (k, 4));
        a.push_back(&mut store, again);
        assert_eq!(flows(&a, &store), vec![2, 9]);
        assert_eq!((a.len(), a.front(), b.len()), (2, Some(2), 2));
        while let Some(k) = b.pop_front(&store) {
            store.remove(k);
        }
        assert!(b.is_empty() && b.front().is_none());
    }

    #[test]
    fn a_chain_and_a_slot_stay_small() {
        // Every link holds two chains, whatever it carried.
        assert_eq!(std::mem::size_of::<Fifo>(), 12);
        assert!(std::mem::size_of::<Slot>() <= std::mem::size_of::<Packet>() + 16);
    }
}
