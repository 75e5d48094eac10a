//! The packet engine's event queue: a radix heap (Ahuja, Mehlhorn, Orlin & Tarjan, "Faster
//! algorithms for the shortest path problem", J. ACM 37(2), 1990) over event times.
//!
//! A discrete-event simulator never schedules into the past, so keys only grow, which is what a
//! radix heap needs. Bucket 0 holds the events at the time popped last; bucket `b > 0` holds those
//! whose time first differs from it in bit `b - 1`. Every event in bucket `b` is later than every
//! event in a lower bucket, so the earliest is in the lowest occupied bucket. When bucket 0 runs
//! out, the lowest occupied bucket is emptied into the lower ones around its earliest time (an
//! event alone there is simply taken).
//!
//! Pushing appends and redistributing keeps the order within a bucket, and a bucket is only ever
//! refilled by redistribution when it is empty, so every bucket stays in scheduling order. Events
//! at equal times therefore leave in the order they were scheduled, exactly as a heap ordered by
//! `(time, sequence number)` would give them, with no sequence number stored.

/// Buckets: bucket 0 and one per bit of a `u64` time.
const BUCKETS: usize = 65;

/// Events an emptied bucket keeps room for: beyond it, the room goes back, so that the
/// buckets hold no more memory than the events they hold (every bucket's room is its peak
/// otherwise, and with many flows most of them once held all their timers).
const KEEP: usize = 256;

pub(crate) struct EventQueue<T> {
    /// The time popped last: no event may be pushed before it.
    last: u64,
    buckets: [Vec<(u64, T)>; BUCKETS],
    /// Events of bucket 0 already popped (it is read from the front and emptied when read out).
    taken: usize,
    /// Bit `b - 1` set while bucket `b > 0` holds events.
    occupied: u64,
    /// The earliest time in each occupied bucket (`u64::MAX` in an empty one).
    earliest: [u64; BUCKETS],
}

impl<T: Copy> EventQueue<T> {
    pub(crate) fn new() -> EventQueue<T> {
        EventQueue {
            last: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
            taken: 0,
            occupied: 0,
            earliest: [u64::MAX; BUCKETS],
        }
    }

    /// Schedules `item` at time `at`, no earlier than the time popped last.
    #[inline]
    pub(crate) fn push(&mut self, at: u64, item: T) {
        debug_assert!(
            at >= self.last,
            "event at {at} scheduled before {}",
            self.last
        );
        let b = place(&mut self.occupied, &mut self.earliest, self.last, at);
        self.buckets[b].push((at, item));
    }

    /// Removes and returns the earliest event (first scheduled among equals) if it is due
    /// before `until`. When bucket 0 is read out, the earliest events are in the lowest
    /// occupied bucket: unless they are due at or after `until` (then the queue is left as it
    /// is, so that events may still be pushed before it), an event alone there is taken, and
    /// more are spread into the lower buckets around the earliest.
    #[inline]
    pub(crate) fn pop_before(&mut self, until: u64) -> Option<(u64, T)> {
        if self.taken == self.buckets[0].len() {
            empty(&mut self.buckets[0]);
            self.taken = 0;
            let b = (self.occupied != 0).then(|| self.occupied.trailing_zeros() as usize + 1)?;
            let last = self.earliest[b];
            if last >= until {
                return None;
            }
            self.last = last;
            self.occupied &= self.occupied - 1;
            self.earliest[b] = u64::MAX;
            if self.buckets[b].len() == 1 {
                let event = self.buckets[b][0];
                empty(&mut self.buckets[b]);
                return Some(event);
            }
            self.spread(b);
        }
        let (at, item) = self.buckets[0][self.taken];
        if at >= until {
            return None;
        }
        self.taken += 1;
        Some((at, item))
    }

    /// Empties bucket `b` into the lower ones around the time popped last.
    #[inline]
    fn spread(&mut self, b: usize) {
        let (lower, from) = self.buckets.split_at_mut(b);
        for &(at, item) in &from[0] {
            lower[place(&mut self.occupied, &mut self.earliest, self.last, at)].push((at, item));
        }
        empty(&mut from[0]);
    }

    /// The time of the earliest event, if any.
    pub(crate) fn peek_time(&self) -> Option<u64> {
        if self.taken < self.buckets[0].len() {
            return Some(self.last);
        }
        (self.occupied != 0).then(|| self.earliest[self.occupied.trailing_zeros() as usize + 1])
    }
}

/// The bucket of time `at` around `last`, marked occupied with `at` counted in its earliest
/// time, without a branch (bucket 0, the current time's, is read out in order: it has no
/// occupied bit, and its earliest time is never read).
#[inline]
fn place(occupied: &mut u64, earliest: &mut [u64; BUCKETS], last: u64, at: u64) -> usize {
    let x = at ^ last;
    let differs = x != 0;
    // The highest bit in which `at` differs from `last`, if `differs`. The logarithm of a
    // number known not to be 0 is one instruction where counting leading zeros is several on
    // x86-64 processors without `lzcnt`.
    let high = (x | 1).ilog2();
    // Bucket `high + 1` and its bit `high`, or bucket 0 and no bit.
    *occupied |= (differs as u64) << high;
    let b = high as usize + differs as usize;
    earliest[b] = earliest[b].min(at);
    b
}

fn empty<T>(bucket: &mut Vec<T>) {
    if bucket.capacity() > KEEP {
        *bucket = Vec::new();
    } else {
        bucket.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Against a sorted reference: times drawn a random distance after the time popped last,
    /// many of them equal, popped in (time, scheduling order) order.
    #[test]
    fn pops_in_time_then_scheduling_order() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut queue = EventQueue::new();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let mut now = 0u64;
        let mut seq = 0u64;
        for step in 0..20_000 {
            for _ in 0..rng.gen_range(0..3) {
                let delay = match rng.gen_range(0..4) {
                    0 => 0,
                    1 => rng.gen_range(0..4),
                    2 => 1000 * rng.gen_range(0..8),
                    _ => rng.gen_range(0..1 << 40),
                };
                seq += 1;
                queue.push(now + delay, seq);
                reference.push((now + delay, seq));
            }
            reference.sort_unstable();
            let until = if step % 5 == 0 { now + 500 } else { u64::MAX };
            let expected = reference.first().copied().filter(|&(at, _)| at < until);
            assert_eq!(queue.peek_time(), reference.first().map(|&(at, _)| at));
            assert_eq!(queue.pop_before(until), expected);
            if let Some((at, _)) = expected {
                reference.remove(0);
                now = at;
            }
        }
    }

    /// Bucket 64 holds the times that differ from the time popped last in their top bit.
    #[test]
    fn the_top_bucket_keeps_its_order() {
        let mut queue = EventQueue::new();
        for (at, item) in [(u64::MAX, 1), (1 << 63, 2), (7, 3), (u64::MAX, 4)] {
            queue.push(at, item);
        }
        let popped: Vec<_> = std::iter::from_fn(|| queue.pop_before(u64::MAX)).collect();
        assert_eq!(
            popped,
            [(7, 3), (1 << 63, 2)],
            "nothing is due before u64::MAX but u64::MAX"
        );
        assert_eq!(queue.peek_time(), Some(u64::MAX));
    }

    #[test]
    fn an_empty_queue_pops_nothing() {
        let mut queue = EventQueue::<u8>::new();
        assert_eq!(queue.peek_time(), None);
        assert_eq!(queue.pop_before(u64::MAX), None);
        queue.push(5, 1);
        assert_eq!(
            queue.pop_before(5),
            None,
            "an event at `until` is not due before it"
        );
        queue.push(3, 2);
        assert_eq!(queue.pop_before(5), Some((3, 2)));
        assert_eq!(queue.pop_before(6), Some((5, 1)));
        assert_eq!(queue.pop_before(u64::MAX), None);
    }
}
