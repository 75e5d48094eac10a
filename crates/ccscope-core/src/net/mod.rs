//! The packet model: links, queues, loss modules, topologies, the event loop and traces. It
//! knows nothing of what the flows carry: each flow's endpoints (transports and applications,
//! [`Endpoint`]) come from the factory handed to [`Simulation::new`].

pub mod capacity;
pub mod codel;
pub mod config;
mod events;
pub mod fq_codel;
pub mod jitter;
pub mod loss;
pub mod packet;
pub mod pcap;
pub mod pie;
pub mod queue;
pub mod sim;
pub mod sojourn;
pub mod stats;
pub mod store;
#[cfg(test)]
pub(crate) mod test_link;
pub mod topology;
pub mod trace;

pub use config::{
    CapacityChange, CustomLink, FlowSpec, LinkParams, Placement, Scenario, TopologySpec, TraceSpec,
};
pub use sim::{Ctx, Endpoint, HostIo, RunResult, Side, Simulation, Stat};
