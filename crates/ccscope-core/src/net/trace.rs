//! Opt-in traces: per-flow and per-queue series on a fixed sampling grid, an event log, and a
//! log of the endpoints' control state.
//!
//! Series are preallocated for the whole run (no allocation on the hot path); bin `b` covers
//! [b * interval, (b + 1) * interval). The state log is not on the grid: it records a value
//! each time it changes (see [`StateLog`]).

use super::config::TraceSpec;
use crate::time::SimTime;

/// What happened to a packet, in the event log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum EventKind {
    ForcedDrop = 0,
    EarlyDrop = 1,
    Mark = 2,
    Loss = 3,
}

impl EventKind {
    pub const NAMES: [&'static str; 4] = ["forced_drop", "early_drop", "mark", "loss"];
}

/// Per-flow counters in one bin (data direction).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlowBin {
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
    pub lost_pkts: u64,
    /// The sender's probe at the end of the bin.
    pub probe: Probe,
}

/// A sender's control state, sampled for traces.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Probe {
    /// Congestion window (packets); 0 for senders without one.
    pub window_pkts: f64,
    /// Sending rate (bits/s): the pacing rate, or window / smoothed RTT.
    pub rate_bps: f64,
    /// The sender's smoothed RTT (s); 0 before its first sample and for senders without one.
    pub srtt_s: f64,
}

/// Per-link values in one bin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueBin {
    /// Waiting packets at the end of the bin.
    pub queue_pkts: u64,
    pub queue_bytes: u64,
    pub drops: u64,
    pub marks: u64,
    pub departures: u64,
    pub tx_bytes: u64,
}

/// Columns of the event log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventLog {
    pub time_ns: Vec<u64>,
    pub link: Vec<u32>,
    pub flow: Vec<u32>,
    pub kind: Vec<u8>,
}

/// Columns of the delay log: one row per data packet delivered, at its delivery.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DelayLog {
    pub time_ns: Vec<u64>,
    pub flow: Vec<u32>,
    /// From leaving its sender to reaching its receiver (ns).
    pub delay_ns: Vec<u64>,
}

/// An endpoint's control state as named values (e.g. `("cwnd_pkts", 10.0)`), in a fixed order
/// per endpoint; a value that is not defined yet (ssthresh before the first loss, p before the
/// first loss event) is left out or non-finite, and is not recorded.
pub type StateFields = Vec<(&'static str, f64)>;

/// Which end of a flow a state value belongs to, in the state log.
pub const SENDER: u8 = 0;
pub const RECEIVER: u8 = 1;

/// The endpoints' control state over time, one row per value that changed: after every callback
/// (packet, timer, start, stop) the engine reads the endpoint's [`StateFields`] and records
/// each finite value that differs from the last one recorded for that endpoint and name. A
/// value holds from its row's time until the next row of the same flow, side and name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StateLog {
    pub time_ns: Vec<u64>,
    pub flow: Vec<u32>,
    /// [`SENDER`] or [`RECEIVER`].
    pub side: Vec<u8>,
    /// Index into `names`.
    pub field: Vec<u16>,
    pub value: Vec<f64>,
    /// The field names, in order of first appearance.
    pub names: Vec<&'static str>,
    /// Per endpoint (2·flow + side): the last value recorded for each of its names.
    last: Vec<Vec<(u16, f64)>>,
    /// Where an endpoint writes its fields (kept to allocate once).
    buf: StateFields,
}

impl StateLog {
    pub(crate) fn new(endpoints: usize) -> StateLog {
        StateLog {
            last: vec![Vec::new(); endpoints],
            ..StateLog::default()
        }
    }

    /// Records what changed in the fields `read` writes for endpoint `ep` (2·flow + side) at
    /// `now`.
    pub(crate) fn record(&mut self, now: SimTime, ep: usize, read: impl FnOnce(&mut StateFields)) {
        let mut fields = std::mem::take(&mut self.buf);
        fields.clear();
        read(&mut fields);
        for &(name, value) in &fields {
            if !value.is_finite() {
                continue;
            }
            let field = match self.names.iter().position(|n| *n == name) {
                Some(i) => i as u16,
                None => {
                    self.names.push(name);
                    (self.names.len() - 1) as u16
                }
            };
            let last = &mut self.last[ep];
            match last.iter_mut().find(|(f, _)| *f == field) {
                Some((_, v)) if *v == value => continue,
                Some((_, v)) => *v = value,
                None => last.push((field, value)),
            }
            self.time_ns.push(now.ns());
            self.flow.push((ep / 2) as u32);
            self.side.push((ep % 2) as u8);
            self.field.push(field);
            self.value.push(value);
        }
        self.buf = fields;
    }
}

/// Everything a traced run records.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub interval: SimTime,
    pub bins: usize,
    pub n_flows: usize,
    /// `flows[bin * n_flows + flow]`; empty unless flow series were asked for.
    pub flows: Vec<FlowBin>,
    /// Indices (into the run's links) of the links with queue series.
    pub links: Vec<u32>,
    /// `queues[bin * links.len() + k]`; empty unless queue series were asked for.
    pub queues: Vec<QueueBin>,
    pub events: Option<EventLog>,
    /// The endpoints' control state; `None` unless asked for.
    pub state: Option<StateLog>,
    /// Each data packet's one-way delay; `None` unless asked for.
    pub delays: Option<DelayLog>,
}

impl Trace {
    /// The trace `spec` asks for over a run of `duration` with `n_flows` flows, with queue
    /// series for the `links` given.
    pub(crate) fn new(
        spec: &TraceSpec,
        duration: SimTime,
        n_flows: usize,
        links: Vec<u32>,
    ) -> Trace {
        let interval = spec.interval_ns.map_or(duration, SimTime);
        let bins = duration.ns().div_ceil(interval.ns().max(1)) as usize;
        debug_assert!(links.is_sorted(), "queue series in link order");
        Trace {
            interval,
            bins,
            n_flows,
            flows: if spec.flows {
                vec![FlowBin::default(); bins * n_flows]
            } else {
                Vec::new()
            },
            queues: if spec.queues {
                vec![QueueBin::default(); bins * links.len()]
            } else {
                Vec::new()
            },
            links,
            events: spec.events.then(EventLog::default),
            state: spec.state.then(|| StateLog::new(2 * n_flows)),
            delays: spec.delays.then(DelayLog::default),
        }
    }

    #[inline]
    pub(crate) fn flow_bin(&mut self, now: SimTime, flow: u32) -> Option<&mut FlowBin> {
        if self.flows.is_empty() {
            return None;
        }
        let b = (now.ns() / self.interval.ns()) as usize;
        self.flows.get_mut(b * self.n_flows + flow as usize)
    }

    /// A data packet of `flow` delivered at `now` after `delay`, if delays are traced.
    #[inline]
    pub(crate) fn delay(&mut self, now: SimTime, flow: u32, delay: SimTime) {
        if let Some(log) = &mut self.delays {
            log.time_ns.push(now.ns());
            log.flow.push(flow);
            log.delay_ns.push(delay.ns());
        }
    }

    /// The queue bin at `now` of run link `link`, if its queue is traced.
    #[inline]
    pub(crate) fn link_queue_bin(&mut self, now: SimTime, link: u32) -> Option<&mut QueueBin> {
        if self.queues.is_empty() {
            return None;
        }
        let k = self.links.binary_search(&link).ok()?;
        self.queue_bin(now, k)
    }

    /// The bin of monitored link slot `k`.
    #[inline]
    pub(crate) fn queue_bin(&mut self, now: SimTime, k: usize) -> Option<&mut QueueBin> {
        if self.queues.is_empty() {
            return None;
        }
        let b = (now.ns() / self.interval.ns()) as usize;
        let n = self.links.len();
        self.queues.get_mut(b * n + k)
    }

    /// Puts the event log in time order, rows of one time in the order they were recorded: a
    /// link records a loss when it is next brought up to date, which may come after rows of
    /// later times.
    pub(crate) fn sort_events(&mut self) {
        let Some(log) = &mut self.events else { return };
        if log.time_ns.is_sorted() {
            return;
        }
        let mut order: Vec<usize> = (0..log.time_ns.len()).collect();
        order.sort_by_key(|&i| log.time_ns[i]);
        let EventLog {
            time_ns,
            link,
            flow,
            kind,
        } = &*log;
        *log = EventLog {
            time_ns: order.iter().map(|&i| time_ns[i]).collect(),
            link: order.iter().map(|&i| link[i]).collect(),
            flow: order.iter().map(|&i| flow[i]).collect(),
            kind: order.iter().map(|&i| kind[i]).collect(),
        };
    }

    #[inline]
    pub(crate) fn event(&mut self, now: SimTime, link: u32, flow: u32, kind: EventKind) {
        if let Some(log) = &mut self.events {
            log.time_ns.push(now.ns());
            log.link.push(link);
            log.flow.push(flow);
            log.kind.push(kind as u8);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_event_log_is_sorted_by_time_keeping_the_order_of_equal_times() {
        let spec = TraceSpec {
            events: true,
            ..TraceSpec::default()
        };
        let mut t = Trace::new(&spec, SimTime(100), 3, Vec::new());
        for (at, flow) in [(5, 0), (9, 1), (5, 2), (7, 0), (5, 1)] {
            t.event(SimTime(at), 4, flow, EventKind::Loss);
        }
        t.sort_events();
        let log = t.events.unwrap();
        assert_eq!(log.time_ns, [5, 5, 5, 7, 9]);
        assert_eq!(log.flow, [0, 2, 1, 0, 1]);
        assert_eq!(log.link, [4; 5]);
    }

    #[test]
    fn the_state_log_records_changed_finite_values_only() {
        let mut log = StateLog::new(4);
        let t = SimTime::from_ms;
        log.record(t(1), 2, |o| {
            o.extend([("cwnd_pkts", 1.0), ("ssthresh_pkts", f64::INFINITY)])
        });
        log.record(t(2), 2, |o| {
            o.extend([("cwnd_pkts", 1.0), ("ssthresh_pkts", f64::INFINITY)])
        });
        log.record(t(3), 3, |o| o.push(("p", 0.5)));
        log.record(t(4), 2, |o| {
            o.extend([("cwnd_pkts", 2.0), ("ssthresh_pkts", 4.0)])
        });
        assert_eq!(log.time_ns, [1_000_000, 3_000_000, 4_000_000, 4_000_000]);
        assert_eq!(log.flow, [1, 1, 1, 1]);
        assert_eq!(log.side, [SENDER, RECEIVER, SENDER, SENDER]);
        assert_eq!(log.names, ["cwnd_pkts", "p", "ssthresh_pkts"]);
        assert_eq!(log.field, [0, 1, 0, 2]);
        assert_eq!(log.value, [1.0, 0.5, 2.0, 4.0]);
    }
}
