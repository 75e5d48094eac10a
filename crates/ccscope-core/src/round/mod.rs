//! The round model: n flows share one bottleneck and advance one control interval per step.
//!
//! This is the idealized network the papers analyse (Chiu & Jain's model; Loguinov & Radha §IV
//! and the simulation of their Fig. 5; Jin et al. App. C; Cai et al. §III): every flow runs an
//! engine-independent [`Controller`](crate::control::Controller), receives one aggregate
//! [`RoundSample`](crate::control::RoundSample) per step and is read back as a window (packets
//! per RTT) or, if it reports a pacing rate, as a rate (bits/s sent over the step).
//!
//! One step lasts one round-trip time `RTT = RTT0 + queue/C` (Papadimitriou & Zhang (13)–(16):
//! below the knee the queue is empty, between the knee and the cliff it absorbs the excess, above
//! the cliff the excess is lost). With the flows' load `A` (packets offered in the step), the
//! link serves `C·RTT` worth of packets and the buffer keeps up to `B`; what is left is lost:
//! Loguinov & Radha's overshoot, counted as packets lost over packets sent. Feedback to the flows
//! follows [`Feedback`].
//!
//! Speed: the flows of one controller type are kept in a vector of that type, beside their
//! offers and totals, and stepped in one pass per step without dynamic dispatch per flow
//! (`group`); `examples/bench_round.rs` measures flow-steps per second.

mod engine;
mod group;
mod report;

pub use engine::{check_controller, run, run_with, Watch};
pub use report::{FlowReport, RoundResult, Series};

use std::sync::Arc;

use crate::control::catalog::{ControllerChoice, ControllerConfig, Start};
use crate::control::{RateConfig, WindowConfig};
use crate::error::Result;
use crate::net::capacity::CapacityTrace;

/// How congestion reaches the flows in a step whose load exceeds capacity and buffer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Feedback {
    /// Every flow backs off when there is any overshoot: immediate and synchronized feedback
    /// (Chiu & Jain; Loguinov & Radha §V-B; Jin et al. App. C; Cai et al. (5)–(7)).
    Synchronized,
    /// Flow i sees a loss with probability min(1, ℓ_i), where ℓ_i is its share of the
    /// overshoot in packets (overshoot × its load / total load): drops fall on flows in
    /// proportion to what they send, as in a drop-tail or RED queue.
    Proportional,
    /// Every packet is lost independently with probability `p` (a lossy link, Jin et al.
    /// §6.1.1), on top of the overshoot, which is dropped at random too: a flow sending m
    /// packets sees a loss with probability 1 − (1 − q)^m, q = 1 − (1 − p)(1 − overshoot/load).
    Bernoulli { p: f64 },
}

/// A change of the bottleneck capacity, effective from step `step` on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CapacityStep {
    pub step: u64,
    pub capacity_bps: f64,
}

/// `count` flows running the same controller.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowGroup {
    /// The controller, window or rate: catalogued, or made by the run's
    /// [`Foreign`](crate::control::catalog::Foreign) factory.
    pub controller: ControllerChoice,
    pub count: usize,
    /// How each flow starts: a window controller in congestion avoidance at
    /// `start.window.initial_window`, a rate controller at `start.rate`'s initial rate.
    pub start: Start,
}

impl FlowGroup {
    /// `count` flows of the catalogued controller `name` (default parameters) starting in
    /// congestion avoidance at window `w0` (packets of `packet_bytes`).
    pub fn catalogued(name: &str, count: usize, w0: f64, packet_bytes: u32) -> Result<FlowGroup> {
        Ok(FlowGroup {
            controller: ControllerConfig::resolve(name, &[])?.into(),
            count,
            start: Start {
                window: WindowConfig::avoidance_at(w0),
                rate: RateConfig {
                    packet_bytes,
                    ..RateConfig::default()
                },
                ..Start::default()
            },
        })
    }
}

/// What to record beyond the per-flow totals.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Record {
    /// Record the aggregate series every `every` steps (0: never).
    pub every: u64,
    /// Also record every flow's load at those steps.
    pub flows: bool,
}

/// A round-model run in the engine's units (bits/s, ns, bytes, packets), as `build` lowers a
/// validated [`crate::scenario::RoundScenario`] to: the values are taken as they are.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundConfig {
    pub seed: u64,
    /// Steps to run, ≥ 1: control intervals, or slices of one when `substeps` > 1.
    pub steps: u64,
    /// Steps excluded from the totals (the series still show them).
    pub warmup_steps: u64,
    /// Bottleneck capacity C (bits/s) at step 0.
    pub capacity_bps: f64,
    /// Later capacities, in increasing step order.
    pub capacity_changes: Vec<CapacityStep>,
    /// A capacity that follows a trace (no `capacity_changes` then): each step takes its mean
    /// over the queue-free step length, RTT0/substeps, from the step's start.
    pub capacity_trace: Option<Arc<CapacityTrace>>,
    /// Round-trip time with an empty queue, RTT0 (ns): the control interval.
    pub rtt0_ns: u64,
    /// Packet size (bytes): the unit of windows and of the buffer.
    pub packet_bytes: u32,
    /// Bottleneck buffer B (packets, ≥ 0; may be fractional in a fluid model).
    pub buffer_pkts: f64,
    pub feedback: Feedback,
    /// Window flows send whole packets and round their window down after a reduction (Cai et
    /// al. §III-C.2).
    pub integer_windows: bool,
    /// Tell every flow the true capacity each step (`RoundSample::capacity_bps`), as ISCC's
    /// "exact C" needs (Loguinov & Radha §V-D).
    pub capacity_oracle: bool,
    /// Steps per control interval, ≥ 1. With m > 1 each step is 1/m of an RTT:
    /// flows send 1/m of their window in it, an overshoot is seen at the step it happens, a
    /// window's per-RTT increase is applied in m equal parts (forward Euler of dw/dt =
    /// increase(w)/RTT) and a reduction whole, at most once per RTT. As m grows this tends to
    /// the continuous-time fluid model with immediate feedback that Chiu & Jain's and Cai et
    /// al.'s §III analyses assume. Window controllers only. Step counts everywhere (`steps`,
    /// `warmup_steps`, capacity changes, `record.every`) are in these steps.
    pub substeps: u32,
    pub flows: Vec<FlowGroup>,
    pub record: Record,
}

impl RoundConfig {
    /// Total number of flows.
    pub fn n_flows(&self) -> usize {
        self.flows.iter().map(|g| g.count).sum()
    }
}
