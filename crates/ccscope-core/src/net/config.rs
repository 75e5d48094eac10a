//! What the event loop runs: the network and where each flow sits and when it runs, in the
//! engine's units (ns, bits/s, bytes), as [`crate::build`] lowers a validated scenario
//! ([`crate::scenario`]) to. It declares no defaults and checks nothing: the scenario did. A
//! flow's source is a type parameter: the engine never reads it.

use std::sync::Arc;

use super::capacity::CapacityTrace;
use super::jitter::JitterSpec;
use super::loss::LossSpec;
use super::pcap::PcapSpec;
use super::queue::QueueSpec;

/// A change of a link's capacity at a given time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CapacityChange {
    pub at_ns: u64,
    pub rate_bps: u64,
}

/// One direction of a link.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkParams {
    pub rate_bps: u64,
    pub delay_ns: u64,
    pub queue: QueueSpec,
    pub loss: Option<LossSpec>,
    pub capacity_changes: Vec<CapacityChange>,
    /// A capacity that follows a trace from time 0 (then `rate_bps` is the link's nominal
    /// rate, which RED's automatic parameters read; no `capacity_changes`).
    pub capacity_trace: Option<Arc<CapacityTrace>>,
    /// Packet delay variation added after the propagation delay ([`super::jitter`]).
    pub jitter: Option<JitterSpec>,
}

impl LinkParams {
    pub fn new(rate_bps: u64, delay_ns: u64, queue: QueueSpec) -> Self {
        LinkParams {
            rate_bps,
            delay_ns,
            queue,
            loss: None,
            capacity_changes: Vec::new(),
            capacity_trace: None,
            jitter: None,
        }
    }

    /// The same link in the other direction: same rate, delay, queue, capacity changes and
    /// capacity trace, no loss and no jitter.
    pub fn mirrored(&self) -> Self {
        LinkParams {
            loss: None,
            jitter: None,
            ..self.clone()
        }
    }
}

/// A link of a custom topology, between named nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomLink {
    pub from: String,
    pub to: String,
    pub params: LinkParams,
    /// Also create the link in the other direction (mirrored: no loss module).
    pub duplex: bool,
    /// Report this link in results and queue traces.
    pub monitor: bool,
}

/// The network's shape.
// Read once when a run is built, never on a hot path: the size spread of the variants is harmless.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum TopologySpec {
    /// Hosts on the left and right of one bottleneck L -> R, each flow with its own access links.
    /// Flows may run either way (`reverse`), with their own access delays (heterogeneous RTTs).
    Dumbbell {
        bottleneck: LinkParams,
        /// The R -> L direction; defaults to the bottleneck mirrored.
        reverse: Option<LinkParams>,
        access: LinkParams,
    },
    /// A chain of bottlenecks b0 -> b1 -> ... -> bK (parking lot); each flow crosses a range of hops.
    ParkingLot {
        hops: Vec<LinkParams>,
        access: LinkParams,
    },
    /// Any graph of named nodes; flows name their end nodes; routes are fewest-hop.
    Custom {
        nodes: Vec<String>,
        links: Vec<CustomLink>,
    },
}

/// One flow: a source at a sender host, a receiver at a receiver host. The engine places the
/// flow and times its start and stop; what `source` is, only the endpoint factory handed to
/// [`Simulation::new`](super::Simulation::new) reads. Flows cloned from one another (a
/// scenario entry's `count`) share their source rather than each keeping a copy.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec<S> {
    pub source: Arc<S>,
    pub start_ns: u64,
    /// The start is delayed by a uniform draw in [0, start_jitter] from the flow's own stream.
    pub start_jitter_ns: u64,
    pub stop_ns: Option<u64>,
    /// The flow leaves after an exponentially distributed lifetime of this mean, counted from
    /// its start (Cai et al. §V-B's mice); drawn from the flow's start stream after the start
    /// jitter. With `stop_ns` too, the earlier of the two ends it.
    pub lifetime_ns: Option<u64>,
    /// Packets are ECN-capable.
    pub ecn: bool,
    /// Dumbbell / parking lot: the sender is on the right and sends leftwards.
    pub reverse: bool,
    /// Where the flow sits, when not where its topology puts flows by default (boxed: most
    /// flows have no place of their own, and a run keeps every flow's spec).
    pub placement: Option<Box<Placement>>,
}

/// A flow's own place in its topology.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Placement {
    /// Dumbbell / parking lot: one-way delay of this flow's left access link (default: `access`).
    pub left_delay_ns: Option<u64>,
    /// Dumbbell / parking lot: one-way delay of this flow's right access link.
    pub right_delay_ns: Option<u64>,
    /// Parking lot: first and last hop crossed (0-based, inclusive); default all hops.
    pub hops: Option<[usize; 2]>,
    /// Custom topology: sender and receiver node names.
    pub from: Option<String>,
    pub to: Option<String>,
}

impl Placement {
    /// Where the topology puts a flow.
    pub const DEFAULT: Placement = Placement {
        left_delay_ns: None,
        right_delay_ns: None,
        hops: None,
        from: None,
        to: None,
    };
}

impl<S> FlowSpec<S> {
    /// A flow from time 0 to the end of the run, placed as its topology places flows by default.
    pub fn new(source: S) -> Self {
        FlowSpec {
            source: Arc::new(source),
            start_ns: 0,
            start_jitter_ns: 0,
            stop_ns: None,
            lifetime_ns: None,
            ecn: false,
            reverse: false,
            placement: None,
        }
    }

    /// The flow's place in its topology.
    pub fn placement(&self) -> &Placement {
        self.placement.as_deref().unwrap_or(&Placement::DEFAULT)
    }

    /// The flow's place in its topology, to change.
    pub fn placement_mut(&mut self) -> &mut Placement {
        self.placement.get_or_insert_with(Box::default)
    }
}

/// What to record beyond the summary counters.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TraceSpec {
    /// Sampling interval of the series; `None` records no series.
    pub interval_ns: Option<u64>,
    /// Per-flow send / receive / loss series.
    pub flows: bool,
    /// Per-monitored-link queue series.
    pub queues: bool,
    /// Every drop, mark and loss-module loss as an event.
    pub events: bool,
    /// Every change of the endpoints' control state ([`crate::net::trace::StateLog`]).
    pub state: bool,
    /// Every data packet's one-way delay at its delivery ([`crate::net::trace::DelayLog`]).
    pub delays: bool,
    /// The packets crossing some links, as pcap-ng files ([`crate::net::pcap`]).
    pub pcap: Option<PcapSpec>,
}

/// A whole run, flows with sources of type `S`.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario<S> {
    pub seed: u64,
    pub duration_ns: u64,
    /// Summary statistics cover [warmup, duration).
    pub warmup_ns: u64,
    pub topology: TopologySpec,
    pub flows: Vec<FlowSpec<S>>,
    pub trace: TraceSpec,
}
