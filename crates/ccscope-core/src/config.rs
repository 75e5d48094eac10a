//! The packet engine's form of a scenario: [`crate::net`]'s run description with the sources
//! the flow catalogue ([`crate::build::endpoints`]) knows, as [`crate::build`] lowers a
//! validated [`crate::scenario::Scenario`] to. It declares no defaults and checks nothing: the
//! scenario did.

pub use crate::net::config::{CapacityChange, CustomLink, LinkParams, TopologySpec, TraceSpec};
use crate::transport::rate::RateSourceSpec;
use crate::transport::tcp::TcpSpec;

/// A flow's traffic source and its matching receiver.
#[derive(Clone, Debug, PartialEq)]
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

/// One flow of a packet-model run.
pub type FlowSpec = crate::net::FlowSpec<SourceSpec>;

/// A packet-model run.
pub type Scenario = crate::net::Scenario<SourceSpec>;
