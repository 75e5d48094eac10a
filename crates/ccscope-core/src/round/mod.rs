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

pub use engine::{run, run_with, External};
pub use report::{FlowReport, RoundResult, Series};

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{check_positive, check_range, Error, Result};

/// Most flows one run accepts (memory: about 100 bytes per flow).
pub const MAX_FLOWS: usize = 10_000_000;

/// Most per-flow values (flows × recorded steps) one run records (8 bytes each).
pub const MAX_RECORDED_VALUES: u64 = 100_000_000;

/// Most steps one run accepts.
pub const MAX_STEPS: u64 = 10_000_000_000;

/// Finest time resolution: steps per control interval.
pub const MAX_SUBSTEPS: u32 = 10_000;

/// How congestion reaches the flows in a step whose load exceeds capacity and buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Feedback {
    /// Every flow backs off when there is any overshoot: immediate and synchronized feedback
    /// (Chiu & Jain; Loguinov & Radha §V-B; Jin et al. App. C; Cai et al. (5)–(7)).
    #[default]
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
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapacityStep {
    pub step: u64,
    pub capacity_bps: f64,
}

/// `count` flows running the same controller.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowGroup {
    /// A catalogued controller name (`control::catalog`), window or rate.
    pub controller: String,
    /// Its parameters by name.
    #[serde(default)]
    pub params: BTreeMap<String, f64>,
    #[serde(default = "one")]
    pub count: usize,
    /// Starting window of a window controller (packets), in congestion avoidance; default 1.
    #[serde(default)]
    pub initial_window_pkts: Option<f64>,
    /// Starting rate of a rate controller (bits/s); default the controller's own.
    #[serde(default)]
    pub initial_rate_bps: Option<f64>,
}

fn one() -> usize {
    1
}

/// What to record beyond the per-flow totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Record the aggregate series every `every` steps (0: never).
    #[serde(default)]
    pub every: u64,
    /// Also record every flow's load at those steps.
    #[serde(default)]
    pub flows: bool,
}

/// A round-model run in normalized units (bits/s, ns, bytes, packets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundConfig {
    #[serde(default)]
    pub seed: u64,
    /// Steps to run, ≥ 1: control intervals, or slices of one when `substeps` > 1.
    pub steps: u64,
    /// Steps excluded from the totals (the series still show them).
    #[serde(default)]
    pub warmup_steps: u64,
    /// Bottleneck capacity C (bits/s) at step 0.
    pub capacity_bps: f64,
    /// Later capacities, in increasing step order.
    #[serde(default)]
    pub capacity_changes: Vec<CapacityStep>,
    /// Round-trip time with an empty queue, RTT0 (ns): the control interval.
    pub rtt0_ns: u64,
    /// Packet size (bytes): the unit of windows and of the buffer.
    pub packet_bytes: u32,
    /// Bottleneck buffer B (packets, ≥ 0; may be fractional in a fluid model).
    #[serde(default)]
    pub buffer_pkts: f64,
    #[serde(default)]
    pub feedback: Feedback,
    /// Window flows send whole packets and round their window down after a reduction (Cai et
    /// al. §III-C.2).
    #[serde(default)]
    pub integer_windows: bool,
    /// Tell every flow the true capacity each step (`RoundSample::capacity_bps`), as ISCC's
    /// "exact C" needs (Loguinov & Radha §V-D).
    #[serde(default)]
    pub capacity_oracle: bool,
    /// Steps per control interval, ≥ 1 (default 1). With m > 1 each step is 1/m of an RTT:
    /// flows send 1/m of their window in it, an overshoot is seen at the step it happens, a
    /// window's per-RTT increase is applied in m equal parts (forward Euler of dw/dt =
    /// increase(w)/RTT) and a reduction whole, at most once per RTT. As m grows this tends to
    /// the continuous-time fluid model with immediate feedback that Chiu & Jain's and Cai et
    /// al.'s §III analyses assume. Window controllers only. Step counts everywhere (`steps`,
    /// `warmup_steps`, capacity changes, `record.every`) are in these steps.
    #[serde(default = "one_substep")]
    pub substeps: u32,
    pub flows: Vec<FlowGroup>,
    #[serde(default)]
    pub record: Record,
}

fn one_substep() -> u32 {
    1
}

impl RoundConfig {
    pub fn from_json(text: &str) -> Result<Self> {
        let config: RoundConfig =
            serde_json::from_str(text).map_err(|e| Error::Malformed(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// Total number of flows.
    pub fn n_flows(&self) -> usize {
        self.flows.iter().map(|g| g.count).sum()
    }

    /// Checks every field, naming the first bad one.
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_STEPS).contains(&self.steps) {
            return Err(Error::invalid(
                "round.steps",
                self.steps,
                format!("must be in [1, {MAX_STEPS}]"),
            ));
        }
        if self.warmup_steps >= self.steps {
            return Err(Error::invalid(
                "round.warmup_steps",
                self.warmup_steps,
                format!("must be less than round.steps = {}", self.steps),
            ));
        }
        check_positive("round.capacity", self.capacity_bps)?;
        let mut last = 0;
        for (i, c) in self.capacity_changes.iter().enumerate() {
            check_positive(
                &format!("round.capacity_changes[{i}].capacity"),
                c.capacity_bps,
            )?;
            if i > 0 && c.step <= last {
                return Err(Error::invalid(
                    format!("round.capacity_changes[{i}].step"),
                    c.step,
                    format!("must be later than the step before ({last})"),
                ));
            }
            last = c.step;
        }
        if self.rtt0_ns == 0 {
            return Err(Error::invalid("round.rtt", "0 s", "must be > 0"));
        }
        if self.packet_bytes == 0 {
            return Err(Error::invalid("round.packet_size", "0 B", "must be > 0"));
        }
        check_range("round.buffer", self.buffer_pkts, 0.0, f64::MAX)?;
        if !(1..=MAX_SUBSTEPS).contains(&self.substeps) {
            return Err(Error::invalid(
                "round.substeps",
                self.substeps,
                format!("must be in [1, {MAX_SUBSTEPS}]"),
            ));
        }
        if let Feedback::Bernoulli { p } = self.feedback {
            if !(p.is_finite() && (0.0..1.0).contains(&p)) {
                return Err(Error::invalid("round.feedback.p", p, "must be in [0, 1)"));
            }
        }
        if self.flows.is_empty() {
            return Err(Error::invalid(
                "round.flows",
                "[]",
                "at least one flow group",
            ));
        }
        for (i, g) in self.flows.iter().enumerate() {
            if g.count == 0 {
                return Err(Error::invalid(
                    format!("round.flows[{i}].count"),
                    0,
                    "must be ≥ 1",
                ));
            }
        }
        let n = self.n_flows();
        if n > MAX_FLOWS {
            return Err(Error::invalid(
                "round.flows",
                format!("{n} flows"),
                format!("at most {MAX_FLOWS} flows"),
            ));
        }
        if self.record.flows && self.record.every > 0 {
            let values = self
                .steps
                .div_ceil(self.record.every)
                .saturating_mul(n as u64);
            if values > MAX_RECORDED_VALUES {
                return Err(Error::invalid(
                    "round.record.every",
                    self.record.every,
                    format!(
                        "records {values} per-flow values; at most {MAX_RECORDED_VALUES}: record \
                         less often or not per flow"
                    ),
                ));
            }
        }
        Ok(())
    }
}
