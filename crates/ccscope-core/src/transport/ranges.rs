//! A set of packet numbers kept as disjoint runs, for a SACK scoreboard: an ACK's SACK blocks
//! (RFC 2018) are runs, and adding a block the scoreboard already holds costs one lookup, not
//! one per packet of the block.

/// Packet numbers as half-open runs `start..end` in increasing order; runs neither overlap nor
/// touch. A scoreboard holds a few runs (one per hole the receiver reports), so they sit in a
/// vector (a map's first node alone takes 192 bytes in every flow that saw a loss, and a
/// deque's header 8 more than a vector's), where moving a few runs at the front costs nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SeqRanges {
    runs: Vec<(u64, u64)>,
}

impl SeqRanges {
    /// Where the first run ending after `seq` is (or the number of runs).
    fn after(&self, seq: u64) -> usize {
        self.runs.partition_point(|&(_, e)| e <= seq)
    }

    /// Adds the packets `start..end`.
    pub(crate) fn insert(&mut self, start: u64, end: u64) {
        self.insert_reporting(start, end, |_, _| {});
    }

    /// Adds the packets `start..end` and calls `new(a, b)` for each run `a..b` of them that
    /// was not in the set yet, in increasing order; returns how many packets were new.
    pub(crate) fn insert_reporting(
        &mut self,
        start: u64,
        end: u64,
        mut new: impl FnMut(u64, u64),
    ) -> u64 {
        if start >= end {
            return 0;
        }
        let (block_start, block_end) = (start, end);
        let (mut start, mut end) = (start, end);
        // The runs that reach `start` (touching included) and begin by `end` merge into it;
        // the block's parts between them are the new ones.
        let first = self.runs.partition_point(|&(_, e)| e < start);
        let mut last = first;
        let mut uncovered = block_start;
        let mut added = 0;
        while let Some(&(s, e)) = self.runs.get(last).filter(|&&(s, _)| s <= end) {
            if s > uncovered {
                new(uncovered, s);
                added += s - uncovered;
            }
            uncovered = uncovered.max(e);
            start = start.min(s);
            end = end.max(e);
            last += 1;
        }
        if block_end > uncovered {
            new(uncovered, block_end);
            added += block_end - uncovered;
        }
        self.runs.drain(first..last);
        // Room for one run at first, not a vector's least of four (later growth doubles as
        // usual): most holes come one at a time.
        if self.runs.capacity() == 0 {
            self.runs.reserve_exact(1);
        }
        self.runs.insert(first, (start, end));
        added
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    pub(crate) fn contains(&self, seq: u64) -> bool {
        self.run_holding(seq).is_some()
    }

    /// The run that holds `seq`, as `start..end`.
    pub(crate) fn run_holding(&self, seq: u64) -> Option<(u64, u64)> {
        self.runs
            .get(self.after(seq))
            .filter(|&&(s, _)| s <= seq)
            .copied()
    }

    /// The runs, highest first.
    pub(crate) fn runs_descending(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.runs.iter().rev().copied()
    }

    /// The first number at or after `seq` not in the set.
    pub(crate) fn next_absent(&self, seq: u64) -> u64 {
        match self.runs.get(self.after(seq)) {
            Some(&(s, e)) if s <= seq => e,
            _ => seq,
        }
    }

    /// How many members are at or above `from`.
    pub(crate) fn count_from(&self, from: u64) -> u64 {
        self.runs
            .iter()
            .rev()
            .take_while(|&&(_, e)| e > from)
            .map(|&(s, e)| e - s.max(from))
            .sum()
    }

    /// The `n`-th highest member (`n` ≥ 1), if there are that many.
    pub(crate) fn nth_highest(&self, mut n: u64) -> Option<u64> {
        for &(s, e) in self.runs.iter().rev() {
            if n <= e - s {
                return Some(e - n);
            }
            n -= e - s;
        }
        None
    }

    /// Drops the members below `seq`. An emptied set gives back its room, or every flow that
    /// ever saw a loss would keep it.
    pub(crate) fn forget_below(&mut self, seq: u64) {
        self.runs.drain(..self.after(seq));
        if let Some(front) = self.runs.first_mut() {
            front.0 = front.0.max(seq);
        } else {
            self.runs = Vec::new();
        }
    }

    pub(crate) fn clear(&mut self) {
        self.runs = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use rand::{Rng, SeedableRng};

    use super::*;

    /// Against a set of single numbers: random blocks added, bottoms forgotten, every query
    /// compared after each step.
    #[test]
    fn behaves_as_a_set_of_numbers() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mut runs = SeqRanges::default();
        let mut set = BTreeSet::new();
        let mut floor = 0u64;
        for _ in 0..5_000 {
            if rng.gen_bool(0.1) {
                floor += rng.gen_range(0..20);
                runs.forget_below(floor);
                set.retain(|&s| s >= floor);
            } else {
                let start = floor + rng.gen_range(0..60);
                let end = start + rng.gen_range(0..12);
                let mut reported = Vec::new();
                let added = runs.insert_reporting(start, end, |a, b| reported.extend(a..b));
                let absent: Vec<u64> = (start..end).filter(|s| !set.contains(s)).collect();
                assert_eq!((reported, added), (absent.clone(), absent.len() as u64));
                set.extend(start..end);
            }
            let probe = floor + rng.gen_range(0..70);
            assert_eq!(runs.contains(probe), set.contains(&probe));
            let run = set.contains(&probe).then(|| {
                let start = (0..=probe)
                    .rev()
                    .take_while(|s| set.contains(s))
                    .last()
                    .unwrap();
                (start, (probe..).find(|s| !set.contains(s)).unwrap())
            });
            assert_eq!(runs.run_holding(probe), run);
            assert_eq!(
                runs.next_absent(probe),
                (probe..).find(|s| !set.contains(s)).unwrap()
            );
            assert_eq!(runs.count_from(probe), set.range(probe..).count() as u64);
            let n = rng.gen_range(1..6);
            assert_eq!(
                runs.nth_highest(n),
                set.iter().nth_back(n as usize - 1).copied()
            );
            // Runs stay disjoint and apart: a merged run is never split in two.
            let r = &runs.runs;
            assert!(r.iter().all(|&(s, e)| s < e));
            assert!(r.windows(2).all(|w| w[0].1 < w[1].0), "{r:?}");
            assert_eq!(runs.is_empty(), set.is_empty());
        }
    }

    #[test]
    fn an_emptied_set_holds_no_node() {
        let mut runs = SeqRanges::default();
        runs.insert(5, 9);
        runs.forget_below(9);
        assert_eq!(runs, SeqRanges::default());
        assert_eq!(runs.nth_highest(1), None);
    }
}
