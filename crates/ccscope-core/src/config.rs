//! The engine's scenario: what a run is, in normalized units (ns, bits/s, bytes).
//!
//! The Python layer parses human units ("15Mbps", "20ms") and validates with pydantic; this is
//! the form that crosses into Rust (as JSON). It is validated again here, so that a Rust user, a
//! fuzzer or a bug in the Python layer still gets a clear error and never a panic.

use serde::{Deserialize, Serialize};

use crate::error::{check_positive, Error, Result};
use crate::net::loss::LossSpec;
use crate::net::queue::QueueSpec;
use crate::transport::rate::RateSourceSpec;
use crate::transport::tcp::TcpSpec;

/// A change of a link's capacity at a given time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapacityChange {
    pub at_ns: u64,
    pub rate_bps: u64,
}

/// One direction of a link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    pub rate_bps: u64,
    pub delay_ns: u64,
    pub queue: QueueSpec,
    #[serde(default)]
    pub loss: Option<LossSpec>,
    #[serde(default)]
    pub capacity_changes: Vec<CapacityChange>,
}

impl LinkParams {
    pub fn new(rate_bps: u64, delay_ns: u64, queue: QueueSpec) -> Self {
        LinkParams {
            rate_bps,
            delay_ns,
            queue,
            loss: None,
            capacity_changes: Vec::new(),
        }
    }

    /// The same link in the other direction: same rate, delay, queue and capacity changes, no loss.
    pub fn mirrored(&self) -> Self {
        LinkParams {
            loss: None,
            ..self.clone()
        }
    }

    pub fn validate(&self, field: &str) -> Result<()> {
        if self.rate_bps == 0 {
            return Err(Error::invalid(format!("{field}.rate"), "0 b/s", "must be > 0"));
        }
        if self.delay_ns == 0 {
            return Err(Error::invalid(format!("{field}.delay"), "0 s", "must be > 0"));
        }
        self.queue.validate(&format!("{field}.queue"))?;
        if let Some(l) = &self.loss {
            l.validate(&format!("{field}.loss"))?;
        }
        for (i, c) in self.capacity_changes.iter().enumerate() {
            if c.rate_bps == 0 {
                return Err(Error::invalid(format!("{field}.capacity_changes[{i}].rate"), "0 b/s", "must be > 0"));
            }
            if i > 0 && c.at_ns <= self.capacity_changes[i - 1].at_ns {
                return Err(Error::invalid(
                    format!("{field}.capacity_changes[{i}].at"),
                    format!("{} ns", c.at_ns),
                    "changes must be in strictly increasing time order",
                ));
            }
        }
        Ok(())
    }
}

/// A link of a custom topology, between named nodes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomLink {
    pub from: String,
    pub to: String,
    #[serde(flatten)]
    pub params: LinkParams,
    /// Also create the link in the other direction (mirrored: no loss module).
    #[serde(default = "yes")]
    pub duplex: bool,
    /// Report this link in results and queue traces.
    #[serde(default = "yes")]
    pub monitor: bool,
}

fn yes() -> bool {
    true
}

/// The network's shape.
// Read once when a run is built, never on a hot path: the size spread of the variants is harmless.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologySpec {
    /// Hosts on the left and right of one bottleneck L -> R, each flow with its own access links.
    /// Flows may run either way (`reverse`), with their own access delays (heterogeneous RTTs).
    Dumbbell {
        bottleneck: LinkParams,
        /// The R -> L direction; defaults to the bottleneck mirrored.
        #[serde(default)]
        reverse: Option<LinkParams>,
        access: LinkParams,
    },
    /// A chain of bottlenecks b0 -> b1 -> ... -> bK (parking lot); each flow crosses a range of hops.
    ParkingLot { hops: Vec<LinkParams>, access: LinkParams },
    /// Any graph of named nodes; flows name their end nodes; routes are fewest-hop.
    Custom { nodes: Vec<String>, links: Vec<CustomLink> },
}

/// A flow's traffic source and its matching receiver.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SourceSpec {
    /// Constant bit rate UDP: one packet every `8 * packet_bytes / rate` seconds.
    Cbr { rate_bps: f64, packet_bytes: u32 },
    /// Poisson UDP: exponential gaps with mean `8 * packet_bytes / rate` seconds.
    Poisson { rate_bps: f64, packet_bytes: u32 },
    /// TCP with a window controller from the catalogue.
    Tcp(TcpSpec),
    /// A paced, rate-controlled flow (TFRC, TEAR, RAP, SSVP, ISCC, rate AIMD/binomial).
    Rate(RateSourceSpec),
}

impl SourceSpec {
    pub fn validate(&self, field: &str) -> Result<()> {
        match *self {
            SourceSpec::Cbr { rate_bps, packet_bytes } | SourceSpec::Poisson { rate_bps, packet_bytes } => {
                check_positive(&format!("{field}.rate"), rate_bps)?;
                if packet_bytes == 0 {
                    return Err(Error::invalid(format!("{field}.packet_size"), "0 B", "must be >= 1 byte"));
                }
                Ok(())
            }
            SourceSpec::Tcp(ref tcp) => tcp.validate(field),
            SourceSpec::Rate(ref rate) => rate.validate_with_controller(),
        }
    }
}

/// One flow: a source at a sender host, a receiver at a receiver host.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub source: SourceSpec,
    #[serde(default)]
    pub start_ns: u64,
    /// The start is delayed by a uniform draw in [0, start_jitter] from the flow's own stream.
    #[serde(default)]
    pub start_jitter_ns: u64,
    #[serde(default)]
    pub stop_ns: Option<u64>,
    /// Packets are ECN-capable.
    #[serde(default)]
    pub ecn: bool,
    /// Dumbbell / parking lot: the sender is on the right and sends leftwards.
    #[serde(default)]
    pub reverse: bool,
    /// Dumbbell / parking lot: one-way delay of this flow's left access link (default: `access`).
    #[serde(default)]
    pub left_delay_ns: Option<u64>,
    /// Dumbbell / parking lot: one-way delay of this flow's right access link.
    #[serde(default)]
    pub right_delay_ns: Option<u64>,
    /// Parking lot: first and last hop crossed (0-based, inclusive); default all hops.
    #[serde(default)]
    pub hops: Option<[usize; 2]>,
    /// Custom topology: sender and receiver node names.
    #[serde(default)]
    pub from: Option<String>,
    #[serde(default)]
    pub to: Option<String>,
}

impl FlowSpec {
    pub fn new(source: SourceSpec) -> Self {
        FlowSpec {
            source,
            start_ns: 0,
            start_jitter_ns: 0,
            stop_ns: None,
            ecn: false,
            reverse: false,
            left_delay_ns: None,
            right_delay_ns: None,
            hops: None,
            from: None,
            to: None,
        }
    }
}

/// What to record beyond the summary counters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Sampling interval of the series; `None` records no series.
    #[serde(default)]
    pub interval_ns: Option<u64>,
    /// Per-flow send / receive / loss series.
    #[serde(default)]
    pub flows: bool,
    /// Per-monitored-link queue series.
    #[serde(default)]
    pub queues: bool,
    /// Every drop, mark and loss-module loss as an event.
    #[serde(default)]
    pub events: bool,
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub seed: u64,
    pub duration_ns: u64,
    /// Summary statistics cover [warmup, duration).
    #[serde(default)]
    pub warmup_ns: u64,
    pub topology: TopologySpec,
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub trace: TraceSpec,
}

/// Most series cells (bins × flows or bins × links) a trace may hold.
pub const MAX_TRACE_CELLS: u64 = 200_000_000;

impl Scenario {
    pub fn from_json(text: &str) -> Result<Self> {
        let s: Scenario = serde_json::from_str(text).map_err(|e| Error::Malformed(e.to_string()))?;
        s.validate()?;
        Ok(s)
    }

    pub fn validate(&self) -> Result<()> {
        if self.duration_ns == 0 {
            return Err(Error::invalid("run.duration", "0 s", "must be > 0"));
        }
        if self.warmup_ns >= self.duration_ns {
            return Err(Error::invalid(
                "run.warmup",
                format!("{} ns", self.warmup_ns),
                format!("must be < run.duration = {} ns", self.duration_ns),
            ));
        }
        if self.flows.is_empty() {
            return Err(Error::invalid("flows", "[]", "at least one flow is needed"));
        }
        if self.flows.len() > u32::MAX as usize / 2 {
            return Err(Error::invalid("flows", self.flows.len(), "too many flows"));
        }
        match &self.topology {
            TopologySpec::Dumbbell {
                bottleneck,
                reverse,
                access,
            } => {
                bottleneck.validate("topology.bottleneck")?;
                if let Some(r) = reverse {
                    r.validate("topology.reverse")?;
                }
                access.validate("topology.access")?;
            }
            TopologySpec::ParkingLot { hops, access } => {
                if hops.is_empty() {
                    return Err(Error::invalid("topology.hops", "[]", "at least one hop is needed"));
                }
                for (i, h) in hops.iter().enumerate() {
                    h.validate(&format!("topology.hops[{i}]"))?;
                }
                access.validate("topology.access")?;
            }
            TopologySpec::Custom { nodes, links } => {
                if nodes.is_empty() {
                    return Err(Error::invalid("topology.nodes", "[]", "at least two nodes are needed"));
                }
                for (i, l) in links.iter().enumerate() {
                    l.params.validate(&format!("topology.links[{i}]"))?;
                    for end in [&l.from, &l.to] {
                        if !nodes.contains(end) {
                            return Err(Error::UnknownName {
                                field: format!("topology.links[{i}]"),
                                value: end.clone(),
                                known: nodes.join(", "),
                            });
                        }
                    }
                }
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            f.source.validate(&format!("flows[{i}].source"))?;
            if let Some(stop) = f.stop_ns {
                if stop <= f.start_ns {
                    return Err(Error::invalid(
                        format!("flows[{i}].stop"),
                        format!("{stop} ns"),
                        format!("must be after flows[{i}].start = {} ns", f.start_ns),
                    ));
                }
            }
            for (name, d) in [("left_delay", f.left_delay_ns), ("right_delay", f.right_delay_ns)] {
                if d == Some(0) {
                    return Err(Error::invalid(format!("flows[{i}].{name}"), "0 s", "must be > 0"));
                }
            }
        }
        if let Some(iv) = self.trace.interval_ns {
            if iv == 0 {
                return Err(Error::invalid("trace.interval", "0 s", "must be > 0"));
            }
            let bins = self.duration_ns / iv + 1;
            let width = self.flows.len() as u64 * 2 + 64;
            if bins.saturating_mul(width) > MAX_TRACE_CELLS {
                return Err(Error::invalid(
                    "trace.interval",
                    format!("{iv} ns"),
                    format!("gives {bins} samples per series; use a coarser interval (at most {MAX_TRACE_CELLS} cells)"),
                ));
            }
        }
        Ok(())
    }
}
