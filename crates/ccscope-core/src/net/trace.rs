//! Opt-in traces: per-flow and per-queue series on a fixed sampling grid, and an event log.
//!
//! Series are preallocated for the whole run (no allocation on the hot path); bin `b` covers
//! [b * interval, (b + 1) * interval).

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
}

impl Trace {
    pub(crate) fn new(
        interval: Option<SimTime>,
        duration: SimTime,
        n_flows: usize,
        flows: bool,
        links: Vec<u32>,
        queues: bool,
        events: bool,
    ) -> Trace {
        let interval = interval.unwrap_or(duration);
        let bins = duration.ns().div_ceil(interval.ns().max(1)) as usize;
        Trace {
            interval,
            bins,
            n_flows,
            flows: if flows { vec![FlowBin::default(); bins * n_flows] } else { Vec::new() },
            queues: if queues { vec![QueueBin::default(); bins * links.len()] } else { Vec::new() },
            links,
            events: events.then(EventLog::default),
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
