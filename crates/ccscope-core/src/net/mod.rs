//! The packet model: links, queues, loss modules, topologies, the event loop and traces.

pub mod loss;
pub mod packet;
pub mod queue;
pub mod sim;
pub mod stats;
pub mod topology;
pub mod trace;

use crate::config::Scenario;
use crate::error::Result;
pub use sim::{Ctx, Endpoint, RunResult, Side, Simulation, Stat};

/// Runs a scenario whose flows all use built-in sources.
pub fn run(scenario: &Scenario) -> Result<RunResult> {
    let sim = Simulation::new(scenario, |i| crate::apps::endpoints(&scenario.flows[i].source))?;
    Ok(sim.run())
}
