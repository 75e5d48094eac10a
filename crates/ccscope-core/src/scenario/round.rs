//! A round-model scenario: `[run]` with `engine = "round"`, `[link]`, `[[flows]]`, `[record]`.
//! n flows share one bottleneck and advance one control interval per step (Chiu & Jain's model;
//! Loguinov & Radha §IV; Jin et al. App. C; Cai et al. §III).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::packet::CapacityTraceFile;
use super::ControllerRef;
use super::{count_in, lit, tagged_union, time_ns, Engine};
use crate::error::{check_range, written_number, Error, FieldPath, Result};
use crate::units::{Limit, Rate, Size, Time};

/// Most flows one run accepts (memory: about 100 bytes per flow).
pub const MAX_FLOWS: u64 = 10_000_000;
/// Most per-flow values (flows × recorded steps) one run records (8 bytes each).
pub const MAX_RECORDED_VALUES: u64 = 100_000_000;
/// Most steps one run accepts.
pub const MAX_STEPS: u64 = 10_000_000_000;
/// Finest time resolution: steps per control interval.
pub const MAX_SUBSTEPS: u64 = 10_000;

/// A round-model run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundScenario {
    pub run: RoundRun,
    pub link: RoundLink,
    /// Groups of flows, each running one controller.
    pub flows: Vec<RoundFlows>,
    #[serde(default)]
    pub record: Record,
}

/// `[run]`: steps, warm-up, seed, time resolution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundRun {
    /// Must be "round".
    pub engine: Engine,
    /// Steps to run, in [1, 1e10]: control intervals, or slices of one when `substeps` > 1.
    pub steps: u64,
    /// Steps excluded from the totals (the series still show them).
    #[serde(default)]
    pub warmup_steps: u64,
    #[serde(default = "one")]
    pub seed: u64,
    /// Steps per control interval, in [1, 10000]; more tends to the fluid model. Window
    /// controllers only. Every step count (`steps`, `warmup_steps`, capacity changes,
    /// `record.every`) is in these steps.
    #[serde(default = "one")]
    pub substeps: u64,
}

fn one() -> u64 {
    1
}

/// `[link]`: the shared bottleneck.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundLink {
    /// Capacity C as a rate (give this or `capacity_pkts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Rate>,
    /// Capacity C in packets per RTT0 (give this or `capacity`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_pkts: Option<f64>,
    /// RTT0, the round-trip time with an empty queue: the control interval.
    #[serde(default = "rtt")]
    pub rtt: Time,
    /// The unit of windows and of the buffer.
    #[serde(default = "packet_size")]
    pub packet_size: Size,
    /// Buffer B in packets (a number, or "20pkts"): RTT = RTT0 + queue/C.
    #[serde(default = "no_buffer")]
    pub buffer: Limit,
    /// How congestion reaches the flows.
    #[serde(default)]
    pub feedback: Feedback,
    /// Window flows send whole packets and round down after a reduction (Cai et al. §III-C.2).
    #[serde(default)]
    pub integer_windows: bool,
    /// Tell every flow the true capacity each step, as ISCC's "exact C" needs (Loguinov & Radha
    /// §V-D).
    #[serde(default)]
    pub capacity_oracle: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capacity_changes: Vec<CapacityStep>,
    /// A capacity that follows a trace file, as a link's in a packet scenario: each step
    /// takes the trace's mean over RTT0/substeps from the step's start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_trace: Option<CapacityTraceFile>,
}

fn rtt() -> Time {
    lit("100ms")
}
fn packet_size() -> Size {
    lit("1000B")
}
fn no_buffer() -> Limit {
    Limit::Packets {
        text: "0".into(),
        packets: 0.0,
    }
}

/// How congestion reaches the flows in a step whose load exceeds capacity and buffer:
/// "synchronized", "proportional", or `{ kind = "bernoulli", p = ... }`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Feedback {
    /// "synchronized" (every flow backs off) or "proportional" (drops in proportion to load).
    Shared(Sharing),
    /// Every packet is lost independently with probability `p`, on top of the overshoot.
    Random(RandomLoss),
}

impl Default for Feedback {
    fn default() -> Self {
        Feedback::Shared(Sharing::Synchronized)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Sharing {
    Synchronized,
    Proportional,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RandomLoss {
    Bernoulli(Bernoulli),
}
tagged_union!(RandomLoss { "bernoulli" => Bernoulli });

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bernoulli {
    /// Per-packet loss probability, in [0, 1).
    pub p: f64,
}

impl<'de> Deserialize<'de> for Feedback {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) => match s.as_str() {
                "synchronized" => Ok(Feedback::Shared(Sharing::Synchronized)),
                "proportional" => Ok(Feedback::Shared(Sharing::Proportional)),
                _ => Err(serde::de::Error::custom(format!("unknown variant `{s}`, expected one of `synchronized`, `proportional`, `bernoulli`"))),
            },
            table @ serde_json::Value::Object(_) => super::member(table).map(Feedback::Random),
            other => Err(crate::units::refusal(&super::render(&other), "must be \"synchronized\", \"proportional\" or { kind = \"bernoulli\", p = ... }")),
        }
    }
}

/// A change of the capacity, effective from step `step` on (a rate or packets per RTT0).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CapacityStep {
    pub step: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_pkts: Option<f64>,
}

/// `count` flows running one controller.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundFlows {
    /// The controller, spelled as in a packet scenario: a name of `ccscope controllers`, a
    /// table `{ name = ..., parameter = value }`, or `python:...`.
    pub controller: ControllerRef,
    /// The old round-model spelling of the controller's parameters, read and moved into
    /// `controller` (with a note); never written.
    #[serde(default, skip_serializing)]
    pub params: Option<BTreeMap<String, serde_json::Value>>,
    /// The group's parameters were given in `params` (the old spelling): errors about them
    /// name that table.
    #[serde(skip)]
    #[schemars(skip)]
    pub params_table: bool,
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = MAX_FLOWS))]
    pub count: u64,
    /// Starting window (packets, ≥ 1) of a window controller, in congestion avoidance; default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<f64>,
    /// Starting rate of a rate controller; default the controller's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rate: Option<Rate>,
}

impl RoundFlows {
    /// An error about group `i`'s controller (a path from `controller` down) named where the
    /// user wrote it: under `flows[i]`, a parameter given in the old `params` table under that
    /// table.
    pub fn place(&self, i: usize, e: Error) -> Error {
        let e = match e {
            Error::InvalidField {
                field,
                value,
                allowed,
            } if self.params_table && field.segments().len() > 1 => Error::InvalidField {
                field: field.rerooted("params"),
                value,
                allowed,
            },
            other => other,
        };
        e.under(FieldPath::ROOT.key("flows").index(i))
    }
}

/// `[record]`: what to record beyond the per-flow totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Record the aggregate series every `every` steps (0: never).
    #[serde(default)]
    pub every: u64,
    /// Also record every flow's load at those steps.
    #[serde(default)]
    pub flows: bool,
}

impl RoundLink {
    /// The capacity in bits/s of a rate or a count of packets per RTT0.
    pub fn capacity_bps(&self, rate: &Option<Rate>, pkts: Option<f64>) -> f64 {
        match (rate, pkts) {
            (Some(r), _) => r.bps(),
            (None, Some(p)) => p * 8.0 * self.packet_size.bytes() / self.rtt.secs(),
            (None, None) => 0.0,
        }
    }

    /// The buffer in packets.
    pub fn buffer_pkts(&self) -> f64 {
        match &self.buffer {
            Limit::Packets { packets, .. } => *packets,
            Limit::Bytes(s) => s.bytes(),
        }
    }
}

impl RoundScenario {
    /// What the reader should know of how the scenario was written: the groups that use the
    /// old spelling of a controller's parameters.
    pub fn notes(&self) -> Vec<String> {
        self.flows
            .iter()
            .enumerate()
            .filter(|(_, g)| g.params_table)
            .map(|(i, g)| {
                let table = serde_json::to_string(&g.controller).unwrap_or_default();
                format!(
                    "flows[{i}]: `controller` with `params` is the round model's old spelling; \
                     packet and round scenarios now write controller = {table} (read as that)"
                )
            })
            .collect()
    }

    /// Total number of flows.
    pub fn n_flows(&self) -> u64 {
        self.flows
            .iter()
            .map(|g| g.count)
            .fold(0, u64::saturating_add)
    }

    /// Checks every field, naming the first bad one by its path as written.
    pub fn validate(&self) -> Result<()> {
        let run = &self.run;
        if run.engine != Engine::Round {
            return Err(Error::invalid(
                "run.engine",
                "'packet'",
                "a round-model scenario needs engine = \"round\"",
            ));
        }
        count_in("run.steps", run.steps, 1, MAX_STEPS)?;
        if run.warmup_steps >= run.steps {
            return Err(Error::invalid(
                "run.warmup_steps",
                run.warmup_steps,
                format!("must be less than run.steps = {}", run.steps),
            ));
        }
        count_in("run.substeps", run.substeps, 1, MAX_SUBSTEPS)?;
        let link = &self.link;
        time_ns("link.rtt", &link.rtt, true)?;
        let b = link.packet_size.bytes().round_ties_even();
        if !(1.0..=u32::MAX as f64).contains(&b) {
            return Err(Error::invalid(
                "link.packet_size",
                format!("'{}'", link.packet_size),
                "must be at least 1 byte",
            ));
        }
        match &link.buffer {
            Limit::Packets { packets, .. } if *packets >= 0.0 && packets.is_finite() => {}
            Limit::Packets { text, .. } => {
                return Err(Error::invalid("link.buffer", text, "must be >= 0 packets"))
            }
            Limit::Bytes(s) => {
                return Err(Error::invalid(
                    "link.buffer",
                    format!("'{s}'"),
                    "the buffer is in packets, e.g. 20 or '20pkts'",
                ))
            }
        }
        if let Feedback::Random(RandomLoss::Bernoulli(Bernoulli { p })) = link.feedback {
            if !(p.is_finite() && (0.0..1.0).contains(&p)) {
                return Err(Error::invalid(
                    "link.feedback.p",
                    written_number(p),
                    "must be in [0, 1): with p = 1 no packet ever arrives",
                ));
            }
        }
        capacity(link, "link", &link.capacity, link.capacity_pkts)?;
        let mut last = None;
        for (i, c) in link.capacity_changes.iter().enumerate() {
            let at = format!("link.capacity_changes[{i}]");
            capacity(link, &at, &c.capacity, c.capacity_pkts)?;
            if last.is_some_and(|l| c.step <= l) {
                return Err(Error::invalid(
                    format!("{at}.step"),
                    c.step,
                    "must be later than the step before",
                ));
            }
            last = Some(c.step);
        }
        if link.capacity_trace.is_some() && !link.capacity_changes.is_empty() {
            return Err(Error::invalid(
                "link.capacity_trace",
                "",
                "give capacity_changes or capacity_trace, not both",
            ));
        }
        if self.flows.is_empty() {
            return Err(Error::invalid(
                "flows",
                "[]",
                "at least one flow group is needed",
            ));
        }
        for (i, g) in self.flows.iter().enumerate() {
            let at = format!("flows[{i}]");
            count_in(&format!("{at}.count"), g.count, 1, MAX_FLOWS)?;
            if let Some(w) = g.initial_window {
                check_range(
                    &format!("{at}.initial_window"),
                    w,
                    1.0,
                    crate::scenario::packet::MAX_WINDOW_PKTS,
                )?;
            }
            if let Some(r) = &g.initial_rate {
                if r.bps() <= 0.0 {
                    return Err(Error::invalid(
                        format!("{at}.initial_rate"),
                        format!("'{r}'"),
                        "must be > 0",
                    ));
                }
            }
        }
        let n = self.n_flows();
        if n > MAX_FLOWS {
            return Err(Error::invalid(
                "flows",
                format!("{n} flows"),
                format!("at most {MAX_FLOWS} flows in all"),
            ));
        }
        if self.record.flows && self.record.every > 0 {
            let values = run.steps.div_ceil(self.record.every).saturating_mul(n);
            if values > MAX_RECORDED_VALUES {
                return Err(Error::invalid(
                    "record.every",
                    self.record.every,
                    format!("records {values} per-flow values; at most {MAX_RECORDED_VALUES}: record less often or not per flow"),
                ));
            }
        }
        Ok(())
    }
}

/// Checks the capacity `at` (`link` or a capacity change) as written: exactly one of a rate
/// and a packet count, that one > 0, and the rate it makes with the packet size and RTT0
/// finite. Each error names the field as written and its value, never the derived rate.
fn capacity(link: &RoundLink, at: &str, rate: &Option<Rate>, pkts: Option<f64>) -> Result<()> {
    let (field, written) = match (rate, pkts) {
        (Some(r), None) => (format!("{at}.capacity"), format!("'{r}'")),
        (None, Some(p)) => (format!("{at}.capacity_pkts"), written_number(p)),
        _ => {
            return Err(Error::invalid(
                format!("{at}.capacity"),
                "",
                "give exactly one of capacity (a rate) and capacity_pkts (packets per RTT0)",
            ))
        }
    };
    let written_value = rate.as_ref().map_or(pkts.unwrap_or(0.0), Rate::bps);
    if !(written_value.is_finite() && written_value > 0.0) {
        return Err(Error::invalid(
            field,
            written,
            "must be a finite number > 0",
        ));
    }
    if !link.capacity_bps(rate, pkts).is_finite() {
        return Err(Error::invalid(
            field,
            written,
            "is too large: with link.packet_size and link.rtt it makes an infinite rate",
        ));
    }
    Ok(())
}
