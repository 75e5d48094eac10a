//! A link capacity that follows a trace: piecewise constant over time, zero during outages,
//! and (for a mahimahi trace) repeating.
//!
//! Two file formats are read. A *mahimahi* trace (Netravali et al., "Mahimahi: Accurate
//! Record-and-Replay for HTTP", USENIX ATC 2015; the format of mahimahi's `traces/README`) has
//! one line per delivery opportunity of one 1500-byte packet, each a timestamp in whole
//! milliseconds from the start of the trace, non-decreasing; a millisecond with k opportunities
//! carries k·1500 bytes, and the trace repeats with the period of its last timestamp, as
//! `mm-link` replays it by default. It is read as a capacity that is constant over each
//! millisecond, k·12 Mb/s over the millisecond *ending* at the timestamp, so that a packet of
//! 1500 bytes queued at an idle link at (t − 1) ms leaves it at t ms, as at mahimahi's
//! opportunity t. Opportunities at 0 ms fall on the end of the previous period, as mahimahi's
//! repeat puts them. A *table* has one row per change, `time rate` (a comma or spaces between,
//! units as in a scenario: `2.5s, 12Mbps`), times increasing; from each row's time on the
//! capacity is its rate (`0bps` is an outage), before the first row it is the link's `rate`,
//! and after the last row the last rate holds.
//!
//! A packet serializes at whatever capacity the link has while it is on the wire: its bits are
//! the integral of the capacity from its start, so a packet caught by an outage waits on the
//! wire until the link comes back. The engine asks only when a packet starts, so an idle link
//! costs nothing however many steps the trace has. A link's packets start no earlier than the
//! one before finished, so each link keeps a [`Cursor`] on the segment its last packet ended
//! in: a packet that starts and ends in one segment costs a comparison and a division, as on a
//! constant link, and one that starts after an idle spell finds its segment by a search that
//! gallops from the cursor.

use std::fmt;
use std::path::Path;

use crate::error::{Error, Result};
use crate::units::{parse_rate_bps, parse_seconds};

/// Bytes per delivery opportunity of a mahimahi trace (its `traces/README`: "one 1500-byte
/// packet").
pub const MAHIMAHI_MTU_BYTES: u64 = 1500;
const MS: u64 = 1_000_000;

/// The two file formats a link's capacity trace may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    Mahimahi,
    Table,
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TraceFormat::Mahimahi => "mahimahi",
            TraceFormat::Table => "table",
        })
    }
}

/// Where a link's packets are in its capacity trace: segment `seg` of the period that starts at
/// `base` ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    base: u64,
    seg: usize,
}

/// A capacity over time: `rates[i]` bits/s from `starts[i]` ns to the next start. With a
/// `period`, the trace repeats every `period` ns (the last segment ends there); without one,
/// the last rate holds forever.
#[derive(Clone, Debug, PartialEq)]
pub struct CapacityTrace {
    starts: Vec<u64>,
    rates: Vec<u64>,
    period: Option<u64>,
    /// Work done by the start of each segment, in bits·1e9 (rate in bits/s times ns), and
    /// after the last one at the period's end, when the trace repeats.
    work: Vec<u128>,
}

impl CapacityTrace {
    /// A trace from its segments: `starts` increasing from 0, one rate each. With a `period`
    /// (beyond the last start) some rate must be positive; without one, the last rate must
    /// be, or a packet could wait forever.
    pub fn new(starts: Vec<u64>, rates: Vec<u64>, period: Option<u64>) -> CapacityTrace {
        debug_assert!(starts.first() == Some(&0) && starts.len() == rates.len());
        debug_assert!(starts.windows(2).all(|w| w[0] < w[1]));
        let mut work = Vec::with_capacity(starts.len() + 1);
        let mut done = 0u128;
        for (i, &s) in starts.iter().enumerate() {
            work.push(done);
            let end = starts.get(i + 1).copied().or(period);
            if let Some(end) = end {
                done += rates[i] as u128 * (end - s) as u128;
            }
        }
        if period.is_some() {
            work.push(done);
        }
        CapacityTrace {
            starts,
            rates,
            period,
            work,
        }
    }

    /// Reads a trace file; an error names `field` (the scenario's `...capacity_trace.file`),
    /// the file and, for a malformed line, its number. A table's rows before its first start
    /// at the link's `rate_bps`.
    pub fn read(field: &str, path: &str, format: TraceFormat, rate_bps: u64) -> Result<Self> {
        let text = std::fs::read(Path::new(path)).map_err(|e| {
            let why = match e.kind() {
                std::io::ErrorKind::NotFound => "no such file".to_string(),
                _ => format!("cannot be read ({e})"),
            };
            Error::invalid(
                field,
                format!("'{path}'"),
                format!("{why}: a {format} trace file"),
            )
        })?;
        let text = String::from_utf8(text).map_err(|_| {
            Error::invalid(
                field,
                format!("'{path}'"),
                "is not text: a trace file is UTF-8",
            )
        })?;
        Self::parse(field, path, &text, format, rate_bps)
    }

    /// A trace from the text of the file `path`, as [`CapacityTrace::read`] reads it.
    pub fn parse(
        field: &str,
        path: &str,
        text: &str,
        format: TraceFormat,
        rate_bps: u64,
    ) -> Result<Self> {
        let bad = |line: usize, what: &str, allowed: &str| {
            let what: String = what.chars().take(40).collect();
            Error::invalid(
                field,
                format!("'{path}' line {line}: '{what}'"),
                allowed.to_string(),
            )
        };
        match format {
            TraceFormat::Mahimahi => Self::mahimahi(text, bad),
            TraceFormat::Table => Self::table(text, rate_bps, bad),
        }
    }

    fn mahimahi(text: &str, bad: impl Fn(usize, &str, &str) -> Error) -> Result<Self> {
        const ALLOWED: &str = "one whole number of milliseconds a line, not less than the line \
                               before (mahimahi's trace format)";
        // Opportunities per millisecond, by timestamp.
        let mut counts: Vec<(u64, u64)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let ms: u64 = line.trim().parse().map_err(|_| bad(i + 1, line, ALLOWED))?;
            match counts.last_mut() {
                Some((last, n)) if *last == ms => *n += 1,
                Some((last, _)) if *last > ms => return Err(bad(i + 1, line, ALLOWED)),
                _ => counts.push((ms, 1)),
            }
        }
        let Some(&(last, _)) = counts.last() else {
            return Err(bad(1, "", "a trace needs at least one timestamp"));
        };
        if last == 0 || last >= u64::MAX / MS {
            let allowed = "the last timestamp is the trace's period: more than 0 ms (and below \
                           2^64 ns)";
            return Err(bad(text.lines().count(), &last.to_string(), allowed));
        }
        // Opportunities at 0 ms fall at the end of the period (mahimahi's repeat).
        if counts[0].0 == 0 {
            let n = counts.remove(0).1;
            match counts.last_mut() {
                Some((l, k)) if *l == last => *k += n,
                _ => counts.push((last, n)),
            }
        }
        let per = MAHIMAHI_MTU_BYTES * 8 * 1000;
        let (mut starts, mut rates) = (Vec::new(), Vec::new());
        let mut push = |start: u64, rate: u64| {
            if rates.last() != Some(&rate) {
                starts.push(start);
                rates.push(rate);
            }
        };
        let mut t = 0;
        for (ms, n) in counts {
            if ms - 1 > t {
                push(t * MS, 0);
            }
            push((ms - 1) * MS, n.saturating_mul(per));
            t = ms;
        }
        Ok(CapacityTrace::new(starts, rates, Some(last * MS)))
    }

    fn table(text: &str, rate_bps: u64, bad: impl Fn(usize, &str, &str) -> Error) -> Result<Self> {
        const ALLOWED: &str = "a row is 'time rate' with units, e.g. '2.5s, 12Mbps' ('0bps' \
                               for an outage); '#' starts a comment";
        let (mut starts, mut rates) = (vec![0], vec![rate_bps]);
        let mut rows = 0;
        for (i, line) in text.lines().enumerate() {
            let row = line.split('#').next().unwrap_or("").trim();
            if row.is_empty() {
                continue;
            }
            let mut cells = row
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|c| !c.is_empty());
            let (Some(time), Some(rate), None) = (cells.next(), cells.next(), cells.next()) else {
                return Err(bad(i + 1, line, ALLOWED));
            };
            let secs = parse_seconds(time).map_err(|_| bad(i + 1, line, ALLOWED))?;
            let bps = parse_rate_bps(rate).map_err(|_| bad(i + 1, line, ALLOWED))?;
            let at = (secs * 1e9).round_ties_even();
            if !(0.0..1.8e19).contains(&at) || !(0.0..1.8e19).contains(&bps) {
                return Err(bad(i + 1, line, "times from 0 s, rates from 0 b/s, finite"));
            }
            let (at, bps) = (at as u64, bps.round_ties_even() as u64);
            let last = *starts.last().unwrap_or(&0);
            if rows > 0 && at <= last {
                return Err(bad(i + 1, line, "times increase from row to row"));
            }
            rows += 1;
            if at == 0 {
                rates[0] = bps;
            } else {
                starts.push(at);
                rates.push(bps);
            }
        }
        if rows == 0 {
            return Err(bad(1, "", "a table needs at least one row"));
        }
        if rates.last() == Some(&0) {
            let n = text.lines().count();
            return Err(bad(
                n,
                text.lines().last().unwrap_or(""),
                "the last row holds forever: an outage must end with a later row of a rate above 0",
            ));
        }
        Ok(CapacityTrace::new(starts, rates, None))
    }

    /// Whether some segment has no capacity (an outage).
    pub fn has_outage(&self) -> bool {
        self.rates.contains(&0)
    }

    /// Work done from time 0 to `t` ns, in bits·1e9.
    fn work_at(&self, t: u64) -> u128 {
        let (base, t) = match self.period {
            Some(p) => ((t / p) as u128 * self.work[self.starts.len()], t % p),
            None => (0, t),
        };
        let i = self.starts.partition_point(|&s| s <= t) - 1;
        base + self.work[i] + self.rates[i] as u128 * (t - self.starts[i]) as u128
    }

    /// The first time (ns) by which the work done since 0 reaches `target` (bits·1e9, > 0).
    #[cfg(test)]
    fn time_of(&self, target: u128) -> u64 {
        let (base, mut rest) = match self.period {
            Some(p) => {
                let per = self.work[self.starts.len()];
                // A target at a whole number of periods is met within the period before.
                let q = (target - 1) / per;
                (q * p as u128, target - q * per)
            }
            None => (0, target),
        };
        // The segment in which the work reaches `rest`: it carries some, so its rate is > 0.
        let i = self.work[..self.starts.len()].partition_point(|&w| w < rest) - 1;
        rest -= self.work[i];
        let t = self.starts[i] as u128 + rest.div_ceil(self.rates[i] as u128);
        u64::try_from(base + t).unwrap_or(u64::MAX)
    }

    /// When a packet of `size_bytes` that starts serializing at `start` ns leaves the wire,
    /// from the cumulative work (the tests' reference for [`CapacityTrace::finish_from`]).
    #[cfg(test)]
    fn finish(&self, start: u64, size_bytes: u32) -> u64 {
        if size_bytes == 0 {
            return start;
        }
        self.time_of(self.work_at(start) + size_bytes as u128 * 8_000_000_000)
    }

    /// The start (ns) of the segment a cursor is on, and its end (`u64::MAX` for the last
    /// segment of a trace that does not repeat).
    #[inline]
    fn bounds(&self, c: &Cursor) -> (u64, u64) {
        let start = c.base.saturating_add(self.starts[c.seg]);
        let end = match (self.starts.get(c.seg + 1), self.period) {
            (Some(&next), _) => c.base.saturating_add(next),
            (None, Some(p)) => c.base.saturating_add(p),
            (None, None) => u64::MAX,
        };
        (start, end)
    }

    /// Moves the cursor to the segment that holds `t`: a few steps forward from where it is,
    /// else a binary search.
    fn seek(&self, c: &mut Cursor, t: u64) {
        for _ in 0..4 {
            let (start, end) = self.bounds(c);
            if t < start {
                break;
            }
            if t < end {
                return;
            }
            self.next(c);
        }
        let (base, r) = match self.period {
            Some(p) => (t - t % p, t % p),
            None => (0, t),
        };
        c.base = base;
        c.seg = self.starts.partition_point(|&s| s <= r) - 1;
    }

    /// The cursor on the next segment.
    #[inline]
    fn next(&self, c: &mut Cursor) {
        c.seg += 1;
        if c.seg == self.starts.len() {
            c.seg = 0;
            c.base = c.base.saturating_add(self.period.unwrap_or(u64::MAX));
        }
    }

    /// When a packet of `size_bytes` that starts serializing at `start` ns leaves the wire;
    /// `cursor` follows the link's packets (it ends on the segment the packet ends in).
    #[inline]
    pub fn finish_from(&self, cursor: &mut Cursor, start: u64, size_bytes: u32) -> u64 {
        if size_bytes == 0 {
            return start;
        }
        self.seek(cursor, start);
        // Most packets start and end in one segment: there, as on a constant link (ceil(need /
        // rate) ≤ end − t exactly when need ≤ rate · (end − t)).
        let (_, end) = self.bounds(cursor);
        let rate = self.rates[cursor.seg];
        if rate > 0 {
            let took = (size_bytes as u64 * 8_000_000_000).div_ceil(rate);
            if took <= end - start {
                return start + took;
            }
        }
        let mut need = size_bytes as u128 * 8_000_000_000;
        let mut t = start;
        loop {
            let (_, end) = self.bounds(cursor);
            let rate = self.rates[cursor.seg] as u128;
            let avail = rate * (end - t) as u128;
            if need <= avail {
                return u64::try_from(t as u128 + need.div_ceil(rate)).unwrap_or(u64::MAX);
            }
            need -= avail;
            t = end;
            self.next(cursor);
            // Whole periods at once (a packet larger than a period carries).
            if cursor.seg == 0 {
                if let Some(p) = self.period {
                    let per = self.work[self.starts.len()];
                    if need > per {
                        let k = (need - 1) / per;
                        need -= k * per;
                        let skip = u64::try_from(k).unwrap_or(u64::MAX).saturating_mul(p);
                        cursor.base = cursor.base.saturating_add(skip);
                        t = cursor.base;
                    }
                }
            }
        }
    }

    /// The capacity at `t` ns (bits/s).
    pub fn rate_at(&self, t: u64) -> u64 {
        let t = self.period.map_or(t, |p| t % p);
        self.rates[self.starts.partition_point(|&s| s <= t) - 1]
    }

    /// The mean capacity (bits/s) over [a, b) ns, a < b.
    pub fn mean(&self, a: u64, b: u64) -> f64 {
        (self.work_at(b) - self.work_at(a)) as f64 / (b - a) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::serialization_time;

    fn mahimahi(text: &str) -> Result<CapacityTrace> {
        CapacityTrace::mahimahi(text, |line, what, allowed| {
            Error::invalid("f", format!("line {line}: '{what}'"), allowed)
        })
    }

    fn table(text: &str) -> Result<CapacityTrace> {
        CapacityTrace::table(text, 5_000_000, |line, what, allowed| {
            Error::invalid("f", format!("line {line}: '{what}'"), allowed)
        })
    }

    #[test]
    fn a_constant_trace_serializes_as_a_constant_link() {
        // mahimahi's README: a file of just "1" is one MTU a millisecond, 12 Mb/s.
        let t = mahimahi("1\n").unwrap();
        assert_eq!(t.rate_at(0), 12_000_000);
        assert_eq!(t.rate_at(123_456_789), 12_000_000);
        for (start, size) in [
            (0, 1500),
            (17, 1000),
            (999_999, 40),
            (5_000_000_001, 64_000),
        ] {
            let want = start + serialization_time(size, 12_000_000).ns();
            assert_eq!(t.finish(start, size), want, "start {start}, {size} B");
        }
    }

    #[test]
    fn mahimahi_opportunities_become_millisecond_rates_with_outages() {
        // Two opportunities at 2 ms, none at 3 and 4 ms, one at 5 ms: the period is 5 ms.
        let t = mahimahi("2\n2\n5\n").unwrap();
        let rates: Vec<u64> = (0..5).map(|ms| t.rate_at(ms * MS)).collect();
        assert_eq!(rates, [0, 24_000_000, 0, 0, 12_000_000]);
        // Two 1500-byte packets queued at 0 share the 2nd millisecond's 24 Mb/s (mahimahi sends
        // both at its end); a third leaves at 5 ms, a fourth in the next period's 2nd ms.
        assert_eq!(t.finish(0, 1500), MS + MS / 2);
        assert_eq!(t.finish(MS + MS / 2, 1500), 2 * MS);
        assert_eq!(t.finish(2 * MS, 1500), 5 * MS);
        assert_eq!(t.finish(5 * MS, 1500), 6 * MS + MS / 2);
        // A whole period's worth from 0 ends with the period; one more byte goes past it.
        assert_eq!(t.finish(0, 3 * 1500), 5 * MS);
        assert!(t.finish(0, 3 * 1500 + 1) > 6 * MS);
        // 3 opportunities of 1500 B every 5 ms on average.
        let mean = t.mean(0, 50 * MS);
        assert!((mean - 3.0 * 12e6 / 5.0).abs() < 1e-6, "{mean}");
    }

    #[test]
    fn opportunities_at_zero_fall_at_the_end_of_the_period() {
        let t = mahimahi("0\n3\n").unwrap();
        assert_eq!(t.rate_at(2 * MS), 24_000_000);
        assert_eq!(t.rate_at(0), 0);
    }

    #[test]
    fn a_packet_caught_by_an_outage_waits_on_the_wire() {
        // 8 Mb/s to 1 s, nothing to 1.5 s, then 8 Mb/s: 1000 B take 1 ms at 8 Mb/s.
        let t = table("0s 8Mbps\n1s, 0bps\n1.5s 8Mbps # back\n").unwrap();
        assert_eq!(t.finish(0, 1000), MS);
        assert_eq!(t.finish(1000 * MS - MS / 2, 1000), 1500 * MS + MS / 2);
        assert_eq!(t.finish(1200 * MS, 1000), 1501 * MS);
        assert_eq!(t.rate_at(10_000 * MS), 8_000_000);
    }

    /// The cursor's walk gives the cumulative work's answer, packet after packet on one link
    /// (each starting when the one before finished, or later), through outages, idle spells
    /// of many segments and whole periods.
    #[test]
    fn the_cursor_finds_what_the_cumulative_work_gives() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let lines: String = (0..3000)
            .map(|_| rng.gen_range(1..400u64))
            .scan(0, |ms, gap| {
                *ms += gap / 100;
                Some(format!("{ms}\n"))
            })
            .collect();
        let traces = [
            mahimahi(&lines).unwrap(),
            mahimahi("2\n2\n5\n").unwrap(),
            table("0s 8Mbps\n1s, 0bps\n1.5s 8Mbps\n2s 1Mbps\n").unwrap(),
        ];
        for t in traces {
            let mut cursor = Cursor::default();
            let mut free = 0u64;
            for _ in 0..20_000 {
                let start = match rng.gen_range(0..10) {
                    0 => free + rng.gen_range(0..50 * MS),
                    1 => free + rng.gen_range(0..20_000 * MS),
                    _ => free,
                };
                let size = match rng.gen_range(0..20) {
                    0 => rng.gen_range(0..100_000),
                    _ => rng.gen_range(40..1500),
                };
                let want = t.finish(start, size);
                assert_eq!(
                    t.finish_from(&mut cursor, start, size),
                    want,
                    "{start} {size}"
                );
                free = want;
            }
        }
    }

    #[test]
    fn a_table_starts_at_the_link_rate() {
        let t = table("1s 1Mbps\n").unwrap();
        assert_eq!(t.rate_at(0), 5_000_000);
        assert_eq!(t.rate_at(1000 * MS), 1_000_000);
    }

    #[test]
    fn malformed_lines_are_named_by_number() {
        let e = |r: Result<CapacityTrace>| r.unwrap_err().to_string();
        assert!(e(mahimahi("1\n2\nx\n")).contains("line 3: 'x'"));
        assert!(e(mahimahi("5\n4\n")).contains("line 2: '4'"));
        assert!(e(mahimahi("1\n\n2\n")).contains("line 2: ''"));
        assert!(e(mahimahi("0\n0\n")).contains("more than 0 ms"));
        assert!(e(mahimahi("")).contains("at least one timestamp"));
        assert!(e(table("0s 1Mbps\n2s 1Mbps extra\n")).contains("line 2"));
        assert!(e(table("0s 1Mbps\n1s 12\n")).contains("line 2: '1s 12'"));
        assert!(e(table("2s 1Mbps\n1s 2Mbps\n")).contains("times increase"));
        assert!(e(table("0s 1Mbps\n1s 0bps\n")).contains("outage must end"));
    }
}
