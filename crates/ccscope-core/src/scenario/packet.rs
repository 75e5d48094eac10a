//! A packet-model scenario: `[run]`, `[topology]`, `[[flows]]`, `[trace]`.
//!
//! Defaults follow ns-2.35 where the papers ran it (`tcp.cc`, `red.cc`, `tcp-sink.cc`), except
//! TCP's `max_window` (ns-2's `window_` is 20, too small to leave the network in charge), its
//! `initial_window` (ns-2.35's `windowInit_` is 2), `integer_window` (ns-2.35 keeps
//! fractional windows after a cut) and `sack_lost_after` (RFC 6675's 3; ns-2's Sack1 acts on
//! 1), and RED's `limit` (ns-2: 50), `mode` (ns-2: bytes) and `mean_packet_size` (ns-2: 500 B).
//! CoDel, FQ-CoDel and PIE default to their RFCs' values, and where an RFC leaves a value open
//! to Linux's (`sch_codel.c`, `sch_fq_codel.c`, `sch_pie.c`), except that ECN is off unless
//! asked for on every queue (Linux's FQ-CoDel marks by default).

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::media::{App, Playback, Rtp, Udp};
use super::{count_in, lit, tagged_union, time_ns, yes, ControllerRef, Emulation, Engine};
use crate::error::{check_positive, check_range, written_number, Error, Result};
use crate::units::{Limit, Rate, Size, Time};

/// Most flows one scenario expands to.
pub const MAX_FLOWS: u64 = 1_000_000;

/// Most series cells (bins × flows or bins × links) a trace may hold.
pub const MAX_TRACE_CELLS: u64 = 200_000_000;

/// Largest TCP window (packets).
pub const MAX_WINDOW_PKTS: f64 = 1e9;

/// Most packets a rate source sends back to back in one bunch.
pub const MAX_BUNCH_PKTS: u64 = 64;

/// Largest jitter of a rate source's gaps: each gap keeps at least 0.1 % of its length.
pub const MAX_JITTER: f64 = 0.999;

/// Highest rate a rate source starts at or is held above (bits/s): the rate controllers'
/// ceiling, which only keeps their arithmetic finite.
pub const MAX_RATE_BPS: f64 = 1e12;

/// A rate source's default floor is one packet per `T_MBI_S` seconds (RFC 5348 §4.3, t_mbi).
pub const T_MBI_S: f64 = 64.0;

/// A whole packet-model run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub run: Run,
    pub topology: Topology,
    /// One or more flows; `count` repeats a flow.
    pub flows: Vec<Flow>,
    /// Series and event traces; none when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<Trace>,
}

/// `[run]`: how long, from which seed, on which engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Run {
    /// Simulated time, > 0.
    pub duration: Time,
    /// Summary statistics cover [warmup, duration).
    #[serde(default = "zero")]
    pub warmup: Time,
    #[serde(default = "one")]
    pub seed: u64,
    #[serde(default)]
    pub engine: Engine,
    /// With `engine = "udp"`: where the bottleneck queues (default user space).
    #[serde(default, skip_serializing_if = "is_user")]
    pub emulator: Emulation,
}

fn is_user(e: &Emulation) -> bool {
    *e == Emulation::User
}

fn zero() -> Time {
    lit("0s")
}
fn one() -> u64 {
    1
}

// --- topology ------------------------------------------------------------------------------------

/// The network's shape.
// Read once per run: the size spread of the members is harmless.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Topology {
    Dumbbell(Dumbbell),
    FatLink(FatLink),
    ParkingLot(ParkingLot),
    Custom(Custom),
}
tagged_union!(Topology { "dumbbell" => Dumbbell, "fat_link" => FatLink, "parking_lot" => ParkingLot, "custom" => Custom });

/// Senders and receivers on either side of one bottleneck L → R, each flow with its own access
/// links; flows may run either way (`reverse`), with their own access delays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    pub bottleneck: Link,
    /// The R → L direction; default the bottleneck mirrored (same rate, delay, queue; no loss).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse: Option<Link>,
    #[serde(default = "access")]
    pub access: Link,
}

/// One fat link with random loss shared by all flows (Jin et al. §6.1.1; Yang et al.'s
/// high-multiplexing set-up): a dumbbell whose bottleneck never queues much.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FatLink {
    #[serde(default = "fat_rate")]
    pub rate: Rate,
    #[serde(default = "fat_delay")]
    pub delay: Time,
    /// A DropTail queue of this limit (default 100000 packets), unless `queue` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Limit>,
    /// The link's queue, in place of DropTail of `buffer` (then not written: the queue has
    /// its own limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<Queue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<Loss>,
    #[serde(default = "access")]
    pub access: Link,
}

fn fat_rate() -> Rate {
    lit("10Gbps")
}
fn fat_delay() -> Time {
    lit("1ms")
}
fn fat_buffer() -> Limit {
    lit("100000pkts")
}

impl FatLink {
    /// The dumbbell it stands for.
    pub fn dumbbell(&self) -> Dumbbell {
        Dumbbell {
            bottleneck: Link {
                rate: self.rate.clone(),
                delay: self.delay.clone(),
                queue: self.queue.clone().unwrap_or_else(|| {
                    Queue::DropTail(DropTail {
                        limit: self.buffer.clone().unwrap_or_else(fat_buffer),
                    })
                }),
                loss: self.loss.clone(),
                capacity_changes: Vec::new(),
                capacity_trace: None,
                jitter: None,
            },
            reverse: None,
            access: self.access.clone(),
        }
    }
}

/// A chain of bottlenecks b0 → b1 → … (parking lot); each flow crosses a range of `hops`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParkingLot {
    pub hops: Vec<Link>,
    #[serde(default = "access")]
    pub access: Link,
}

/// Any graph of named nodes; flows name their end nodes; routes are fewest-hop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Custom {
    pub nodes: Vec<String>,
    pub links: Vec<CustomLink>,
}

/// One link direction: capacity, propagation delay, queue, optional loss module.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub rate: Rate,
    pub delay: Time,
    #[serde(default)]
    pub queue: Queue,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<Loss>,
    /// Capacity changes at given times, in increasing time order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capacity_changes: Vec<CapacityChange>,
    /// A capacity that follows a trace file (then `rate` is the nominal rate RED's automatic
    /// parameters read, and a table's capacity before its first row).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_trace: Option<CapacityTraceFile>,
    /// Packet delay variation after the propagation delay (RFC 8868's jitter models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<Jitter>,
}

/// Packet delay variation on a link, after its propagation delay: the jitter models of
/// draft-ietf-rmcat-eval-criteria-13 §4.5 (RFC 8868), each packet delayed by `|N(0, std²)|`
/// clamped to `n_std` standard deviations (§4.5.3: std 5 ms, N_STD 3), a flow's packets kept
/// in order, each at least its predecessor's serialization time after it (NR-RPVD, §4.5.2),
/// unless `reorder` (RBPDV, §4.5.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Jitter {
    /// Standard deviation of the Gaussian before it is clamped, in (0, 1 s].
    pub std: Time,
    /// Where the Gaussian is clamped, in standard deviations, in (0, 10]; default 3.
    #[serde(default = "three")]
    pub n_std: f64,
    /// A flow's packets may overtake one another (RBPDV); default false (NR-RPVD).
    #[serde(default)]
    pub reorder: bool,
}

fn three() -> f64 {
    3.0
}

impl Jitter {
    fn validate(&self, at: &str) -> Result<()> {
        let std = time_ns(&format!("{at}.std"), &self.std, true)?;
        if std > 1_000_000_000 {
            return Err(Error::invalid(
                format!("{at}.std"),
                format!("'{}'", self.std),
                "must be at most 1s",
            ));
        }
        if !(self.n_std.is_finite() && self.n_std > 0.0 && self.n_std <= 10.0) {
            return Err(Error::invalid(
                format!("{at}.n_std"),
                format!("{:?}", self.n_std),
                "must be in (0, 10] (standard deviations)",
            ));
        }
        Ok(())
    }
}

/// The access links' default: 1 Gb/s, 1 ms, 10000 packets of buffer.
fn access() -> Link {
    Link {
        rate: lit("1Gbps"),
        delay: lit("1ms"),
        queue: Queue::DropTail(DropTail {
            limit: lit("10000pkts"),
        }),
        loss: None,
        capacity_changes: Vec::new(),
        capacity_trace: None,
        jitter: None,
    }
}

/// From `at` on, the link's capacity is `rate`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CapacityChange {
    pub at: Time,
    pub rate: Rate,
}

/// A link capacity trace file ([`crate::net::capacity`]): mahimahi's format (one line per
/// delivery opportunity of a 1500-byte packet, in ms, repeating) or a table of `time rate`
/// rows. A relative path is relative to the scenario file's folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CapacityTraceFile {
    pub file: String,
    #[serde(default)]
    pub format: TraceFileFormat,
}

/// The format of a capacity trace file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TraceFileFormat {
    #[default]
    Mahimahi,
    Table,
}

/// A link of a custom topology between named nodes: a [`Link`] with its ends. Link's fields
/// are repeated rather than `#[serde(flatten)]`ed: flattening buffers the table and would lose
/// the path of an error below it (and cannot deny unknown keys).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CustomLink {
    pub from: String,
    pub to: String,
    pub rate: Rate,
    pub delay: Time,
    #[serde(default)]
    pub queue: Queue,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<Loss>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capacity_changes: Vec<CapacityChange>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_trace: Option<CapacityTraceFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<Jitter>,
    /// Also create the link in the other direction (mirrored: no loss module, no jitter).
    #[serde(default = "yes")]
    pub duplex: bool,
    /// Report this link in results and queue traces.
    #[serde(default = "yes")]
    pub monitor: bool,
}

impl CustomLink {
    /// The link's own parameters.
    pub fn link(&self) -> Link {
        Link {
            rate: self.rate.clone(),
            delay: self.delay.clone(),
            queue: self.queue.clone(),
            loss: self.loss.clone(),
            capacity_changes: self.capacity_changes.clone(),
            capacity_trace: self.capacity_trace.clone(),
            jitter: self.jitter.clone(),
        }
    }
}

// --- queues and loss -----------------------------------------------------------------------------

/// A link's queue discipline.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Queue {
    #[serde(rename = "droptail")]
    DropTail(DropTail),
    Red(Red),
    Step(Step),
    #[serde(rename = "codel")]
    CoDel(CoDel),
    #[serde(rename = "fq_codel")]
    FqCoDel(FqCoDel),
    Pie(Pie),
}
tagged_union!(Queue { "droptail" => DropTail, "red" => Red, "step" => Step, "codel" => CoDel, "fq_codel" => FqCoDel, "pie" => Pie });

impl Queue {
    /// Whether the queue marks ECN-capable packets (step marking; RED, CoDel, FQ-CoDel, PIE
    /// with `ecn`).
    fn marks(&self) -> bool {
        match self {
            Queue::DropTail(_) => false,
            Queue::Step(_) => true,
            Queue::Red(r) => r.ecn,
            Queue::CoDel(c) => c.ecn,
            Queue::FqCoDel(f) => f.ecn,
            Queue::Pie(p) => p.ecn,
        }
    }

    /// Whether the queue is one of the AQMs that drop or choose by sojourn time.
    fn is_aqm(&self) -> bool {
        matches!(self, Queue::CoDel(_) | Queue::FqCoDel(_) | Queue::Pie(_))
    }

    /// The kind as scenario files name it.
    fn kind(&self) -> &'static str {
        match self {
            Queue::DropTail(_) => "droptail",
            Queue::Red(_) => "red",
            Queue::Step(_) => "step",
            Queue::CoDel(_) => "codel",
            Queue::FqCoDel(_) => "fq_codel",
            Queue::Pie(_) => "pie",
        }
    }
}

impl Default for Queue {
    fn default() -> Self {
        Queue::DropTail(DropTail::default())
    }
}

/// First in, first out; arrivals beyond `limit` waiting packets (or bytes) are dropped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropTail {
    #[serde(default = "droptail_limit")]
    pub limit: Limit,
}

fn droptail_limit() -> Limit {
    lit("100pkts")
}

impl Default for DropTail {
    fn default() -> Self {
        DropTail {
            limit: droptail_limit(),
        }
    }
}

/// Step marking, as DCTCP's switches (Alizadeh et al., SIGCOMM 2010 §3.1; RFC 8257 §3.1): an
/// ECN-capable packet that arrives while more than `threshold` packets (or bytes) wait is marked
/// CE; arrivals beyond `limit` are dropped, ECN-capable or not (DropTail). Packets that are not
/// ECN-capable are never dropped early (a switch running WRED would drop them above K).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// The most packets (or bytes) waiting, at least one packet (default 100 packets).
    #[serde(default = "droptail_limit")]
    pub limit: Limit,
    /// The marking threshold K, packets ('20pkts') or bytes ('30KB'), at least one packet or
    /// byte and below `limit` when both count the same unit. Alizadeh et al. (15) ask
    /// K > C·RTT/7 for full throughput.
    pub threshold: Limit,
}

/// RED (Floyd & Jacobson 1993) as in ns-2's `red.cc`, with gentle, wait, ECN and byte mode.
/// Thresholds are in packets (times `mean_packet_size` in byte mode); "auto" applies ns-2's
/// rules: min_th = max(5, 2.5 ms of link packets), max_th = 3·min_th, w_q with a time constant
/// of about ten RTTs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Red {
    /// Physical buffer (packets).
    #[serde(default = "red_limit")]
    pub limit: u64,
    #[serde(default)]
    pub min_th: Auto,
    #[serde(default)]
    pub max_th: Auto,
    /// Drop probability at max_th, in (0, 1] (ns-2 `1/linterm_`).
    #[serde(default = "red_max_p")]
    pub max_p: f64,
    /// EWMA weight of the average queue, in (0, 1].
    #[serde(default)]
    pub w_q: Auto,
    #[serde(default = "yes")]
    pub gentle: bool,
    #[serde(default = "yes")]
    pub wait: bool,
    #[serde(default)]
    pub ecn: bool,
    #[serde(default)]
    pub mode: RedMode,
    #[serde(default = "packet_size")]
    pub mean_packet_size: Size,
}

fn red_limit() -> u64 {
    1000
}
fn red_max_p() -> f64 {
    0.1
}

impl Default for Red {
    fn default() -> Self {
        Red {
            limit: red_limit(),
            min_th: Auto::Auto,
            max_th: Auto::Auto,
            max_p: red_max_p(),
            w_q: Auto::Auto,
            gentle: true,
            wait: true,
            ecn: false,
            mode: RedMode::default(),
            mean_packet_size: packet_size(),
        }
    }
}

/// CoDel (RFC 8289): packets whose sojourn time has stayed above `target` for an `interval`
/// are dropped at dequeue, ever faster (the next drop `interval`/√count after the last), until
/// one leaves below target; ECN-capable packets are marked instead with `ecn`. Arrivals beyond
/// `limit` are dropped (tail drop).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CoDel {
    /// TARGET, the acceptable standing queue delay: > 0 and below `interval` (RFC 8289 §4.4).
    #[serde(default = "codel_target")]
    pub target: Time,
    /// INTERVAL, > 0: how long the sojourn time must stay above target, and the control law's
    /// base (RFC 8289 §4.5).
    #[serde(default = "codel_interval")]
    pub interval: Time,
    /// The physical buffer, packets ('1000pkts') or bytes; at least one packet (Linux
    /// `sch_codel` default 1000 packets).
    #[serde(default = "codel_limit")]
    pub limit: Limit,
    /// maxpacket: a queue of at most this many bytes is never above target (RFC 8289 §5.2,
    /// the interface MTU: 1514 B, an Ethernet frame, as Linux's `psched_mtu`).
    #[serde(default = "mtu")]
    pub mtu: Size,
    /// Mark ECN-capable packets instead of dropping them; needs an ECN-capable flow.
    #[serde(default)]
    pub ecn: bool,
}

fn codel_target() -> Time {
    lit("5ms")
}
fn codel_interval() -> Time {
    lit("100ms")
}
fn codel_limit() -> Limit {
    lit("1000pkts")
}
fn mtu() -> Size {
    lit("1514B")
}

impl Default for CoDel {
    fn default() -> Self {
        CoDel {
            target: codel_target(),
            interval: codel_interval(),
            limit: codel_limit(),
            mtu: mtu(),
            ecn: false,
        }
    }
}

/// FQ-CoDel (RFC 8290): packets hashed by flow into `flows` queues, each run by CoDel,
/// served by deficit round robin `quantum` bytes at a time, newly active queues first; past
/// `limit` packets or `memory_limit` bytes, packets are dropped from the queue holding the most
/// bytes, up to `drop_batch` at once (Linux; 1 drops one at a time, as the RFC describes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FqCoDel {
    /// Queues, in [1, 65536] (RFC 8290 §4, Linux's default and range).
    #[serde(default = "fq_flows")]
    pub flows: u64,
    /// Bytes a queue sends each round, at least 256 B (RFC 8290 §4.2: one MTU; Linux's
    /// smallest is 256 B).
    #[serde(default = "mtu")]
    pub quantum: Size,
    /// CoDel's TARGET and INTERVAL for every queue (RFC 8290 §4.3, RFC 8289 §4.4–4.5).
    #[serde(default = "codel_target")]
    pub target: Time,
    #[serde(default = "codel_interval")]
    pub interval: Time,
    /// Most packets waiting, in [1, 2^32 − 1] (Linux default 10240).
    #[serde(default = "fq_limit")]
    pub limit: u64,
    /// Most bytes waiting, at least 1 byte (Linux default 32 MiB; counted here as the packets'
    /// bytes).
    #[serde(default = "fq_memory")]
    pub memory_limit: Size,
    /// Most packets dropped from the fattest queue at one overflow, in [1, 65536] (Linux
    /// default 64).
    #[serde(default = "fq_batch")]
    pub drop_batch: u64,
    /// CoDel's maxpacket (see `codel`).
    #[serde(default = "mtu")]
    pub mtu: Size,
    /// Mark ECN-capable packets instead of dropping them; needs an ECN-capable flow.
    #[serde(default)]
    pub ecn: bool,
}

fn fq_flows() -> u64 {
    1024
}
fn fq_limit() -> u64 {
    10240
}
fn fq_memory() -> Size {
    lit("32MiB")
}
fn fq_batch() -> u64 {
    64
}

impl Default for FqCoDel {
    fn default() -> Self {
        FqCoDel {
            flows: fq_flows(),
            quantum: mtu(),
            target: codel_target(),
            interval: codel_interval(),
            limit: fq_limit(),
            memory_limit: fq_memory(),
            drop_batch: fq_batch(),
            mtu: mtu(),
            ecn: false,
        }
    }
}

/// PIE (RFC 8033): every `t_update` a drop probability moves by α·(delay − target) +
/// β·(delay − last delay), α and β scaled down while it is small; arriving packets are dropped
/// with that probability once the `burst` allowance is spent, ECN-capable ones marked instead
/// while it is at most 10% with `ecn`. The delay is the last departure's sojourn time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pie {
    /// QDELAY_REF, the target queueing delay, > 0 (RFC 8033 §4.2).
    #[serde(default = "pie_target")]
    pub target: Time,
    /// T_UPDATE, the update period, > 0 (RFC 8033 §4.2).
    #[serde(default = "pie_target")]
    pub t_update: Time,
    /// α and β (1/s), each in [0, 2] (RFC 8033 §4.2: 0.125 and 1.25; Linux's range).
    #[serde(default = "pie_alpha")]
    pub alpha: f64,
    #[serde(default = "pie_beta")]
    pub beta: f64,
    /// MAX_BURST, the burst allowance, ≥ 0 (RFC 8033 §4.4).
    #[serde(default = "pie_burst")]
    pub burst: Time,
    /// The physical buffer, packets ('1000pkts') or bytes; at least one packet (Linux
    /// `sch_pie` default 1000 packets).
    #[serde(default = "codel_limit")]
    pub limit: Limit,
    /// MEAN_PKTSIZE: a queue of at most two of them drops nothing (RFC 8033 §4.1).
    #[serde(default = "packet_size")]
    pub mean_packet_size: Size,
    /// Mark ECN-capable packets instead of dropping them while the probability is at most 10%
    /// (RFC 8033 §5.1); needs an ECN-capable flow.
    #[serde(default)]
    pub ecn: bool,
    /// De-randomize the drops (RFC 8033 §5.4).
    #[serde(default)]
    pub derandomize: bool,
}

fn pie_target() -> Time {
    lit("15ms")
}
fn pie_alpha() -> f64 {
    0.125
}
fn pie_beta() -> f64 {
    1.25
}
fn pie_burst() -> Time {
    lit("150ms")
}

impl Default for Pie {
    fn default() -> Self {
        Pie {
            target: pie_target(),
            t_update: pie_target(),
            alpha: pie_alpha(),
            beta: pie_beta(),
            burst: pie_burst(),
            limit: codel_limit(),
            mean_packet_size: packet_size(),
            ecn: false,
            derandomize: false,
        }
    }
}

/// A number, or "auto" for ns-2's automatic rule.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Auto {
    Value(f64),
    #[default]
    Auto,
}

impl Auto {
    pub fn value(self) -> Option<f64> {
        match self {
            Auto::Value(x) => Some(x),
            Auto::Auto => None,
        }
    }
}

impl Serialize for Auto {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Auto::Value(x) => s.serialize_f64(*x),
            Auto::Auto => s.serialize_str("auto"),
        }
    }
}

impl<'de> Deserialize<'de> for Auto {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) if s == "auto" => Ok(Auto::Auto),
            serde_json::Value::Number(n) if n.as_f64().is_some() => {
                Ok(Auto::Value(n.as_f64().unwrap_or_default()))
            }
            other => Err(crate::units::refusal(
                &super::render(&other),
                "must be a number or \"auto\"",
            )),
        }
    }
}

impl JsonSchema for Auto {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Auto".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"anyOf": [{"type": "number"}, {"const": "auto"}], "default": "auto"})
    }
}

/// Whether RED measures the queue in packets or bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RedMode {
    #[default]
    Packets,
    Bytes,
}

/// A link's loss module.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Loss {
    Bernoulli(Bernoulli),
    Periodic(Periodic),
    Schedule(Schedule),
}
tagged_union!(Loss { "bernoulli" => Bernoulli, "periodic" => Periodic, "schedule" => Schedule });

/// Each packet is lost independently with probability `p`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bernoulli {
    pub p: f64,
}

/// Every `every`-th packet is lost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Periodic {
    pub every: u64,
}

/// Loss that changes at the given times (none before the first; Yang et al. §4–5 step
/// changes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Schedule {
    pub steps: Vec<LossStep>,
}

/// From `at` on: Bernoulli loss with probability `p`, or, with `interval` instead, the first
/// packet of every interval lost (Yang et al. §4's persistent congestion: one loss indication
/// per RTT).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LossStep {
    pub at: Time,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Time>,
}

// --- flows and sources ---------------------------------------------------------------------------

/// One flow (or `count` identical ones).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    pub source: Source,
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = MAX_FLOWS))]
    pub count: u64,
    #[serde(default = "zero")]
    pub start: Time,
    /// The start is delayed by a uniform draw in [0, start_jitter] from the flow's own stream.
    #[serde(default = "zero")]
    pub start_jitter: Time,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Time>,
    /// The flow leaves after an exponentially distributed lifetime of this mean from its start
    /// (Cai et al. §V-B's mice: mean 5 s); with `stop`, the earlier ends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime: Option<Time>,
    /// The receiver plays the data out (interruptions, frozen time, receiver queue, VDI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playback: Option<Playback>,
    /// Packets are ECN-capable.
    #[serde(default)]
    pub ecn: bool,
    /// Dumbbell / parking lot: the sender is on the right and sends leftwards.
    #[serde(default)]
    pub reverse: bool,
    /// Dumbbell / parking lot: one-way delay of this flow's left access link (default: `access`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_delay: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right_delay: Option<Time>,
    /// Parking lot: first and last hop crossed (0-based, inclusive); default all hops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hops: Option<[u64; 2]>,
    /// Custom topology: sender and receiver node names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

/// A flow's traffic source, with its matching receiver.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    Cbr(Paced),
    Poisson(Paced),
    Tcp(Tcp),
    Rate(RateSource),
    Udp(Udp),
    Linux(Linux),
    /// The media transport: a paced RTP-style sender driven by a media controller on
    /// per-packet feedback (RFC 8888 or transport-wide), carrying an encoder by default.
    Rtp(Rtp),
}
tagged_union!(Source { "cbr" => Cbr, "poisson" => Poisson, "tcp" => Tcp, "rate" => Rate, "udp" => Udp, "linux" => Linux, "rtp" => Rtp });

/// The kernel's own TCP (`run.engine = "udp"` only): a sending and a receiving socket in network
/// namespaces of the run's own, whose packets cross the emulated network through TUN devices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Linux {
    /// The kernel's congestion control module (socket option `TCP_CONGESTION`): one that
    /// /proc/sys/net/ipv4/tcp_available_congestion_control lists (say "reno", "cubic", "bbr").
    #[serde(default = "linux_cc")]
    pub cc: String,
    /// The largest IP packet, in [100 B, 65535 B]: the TUN devices' MTU, so a full segment with
    /// its IPv4 and TCP headers (and timestamp option) is this size. At least 100 B: 40 B of
    /// headers, 12 B of timestamps and the least MSS Linux sends (48 B, `tcp_min_snd_mss`);
    /// at most IPv4's largest datagram (RFC 791 §3.1, Total Length).
    #[serde(default = "packet_size")]
    pub packet_size: Size,
    /// Data to send (packets of `packet_size` less 52 B of headers, or bytes); absent: a bulk
    /// transfer that never ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer: Option<Limit>,
    /// The application: ON/OFF (`onoff`, paced at its rate or one transfer per ON period) or
    /// the square wave (`square`), written into the socket as for ccscope's TCP; absent: bulk
    /// (or `transfer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<App>,
}

fn linux_cc() -> String {
    "cubic".into()
}

/// The IPv4 and TCP headers and the timestamp option (RFC 7323 §3) around a full segment's data.
pub const LINUX_HEADER_BYTES: f64 = 20.0 + 20.0 + 12.0;

/// Where the kernel lists the congestion control modules a socket may ask for.
pub const KERNEL_CC_LIST: &str = "/proc/sys/net/ipv4/tcp_available_congestion_control";

impl Linux {
    fn validate(&self, at: &str) -> Result<()> {
        let bytes = size_bytes(&format!("{at}.packet_size"), &self.packet_size, 65535.0)?;
        if bytes < 100.0 {
            return Err(Error::invalid(
                format!("{at}.packet_size"),
                format!("'{}'", self.packet_size),
                "at least 100 B: 52 B of IPv4 and TCP headers with timestamps, and 48 B, the least MSS Linux sends",
            ));
        }
        if let Some(t) = &self.transfer {
            packets_limit(&format!("{at}.transfer"), t)?;
        }
        match &self.app {
            None | Some(App::Onoff(_) | App::Square(_)) => {}
            Some(other) => {
                let kind = match other {
                    App::Mpeg4(_) => "mpeg4",
                    App::Multirate(_) => "multirate",
                    _ => "fgs",
                };
                return Err(Error::invalid(
                    format!("{at}.app.kind"),
                    format!("'{kind}'"),
                    "onoff or square: the kernel's TCP carries a byte stream, and the media applications need ccscope's own transports",
                ));
            }
        }
        if self.app.is_some() && self.transfer.is_some() {
            return Err(Error::invalid(
                format!("{at}.transfer"),
                "given",
                "either transfer or app: an ON/OFF application sets what is written",
            ));
        }
        let offered = std::fs::read_to_string(KERNEL_CC_LIST)
            .map_err(|e| Error::invalid(format!("{at}.cc"), format!("'{}'", self.cc), format!("a congestion control of this machine's kernel, which lists none ({KERNEL_CC_LIST}: {e})")))?;
        if !offered.split_whitespace().any(|c| c == self.cc) {
            let list = offered.split_whitespace().collect::<Vec<_>>().join(", ");
            return Err(Error::invalid(
                format!("{at}.cc"),
                format!("'{}'", self.cc),
                format!("one this machine's kernel offers: {list} ({KERNEL_CC_LIST})"),
            ));
        }
        Ok(())
    }

    /// Bytes to send, `None` for a bulk transfer (a packet carries `packet_size` less the
    /// headers).
    pub fn transfer_bytes(&self) -> Option<u64> {
        self.transfer.as_ref().map(|t| match t {
            Limit::Packets { packets, .. } => {
                (*packets * (self.packet_size.bytes() - LINUX_HEADER_BYTES)) as u64
            }
            Limit::Bytes(s) => (s.bytes().ceil() as u64).max(1),
        })
    }
}

/// UDP at a mean rate: constant gaps (CBR) or exponential ones (Poisson).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Paced {
    pub rate: Rate,
    #[serde(default = "packet_size")]
    pub packet_size: Size,
}

fn packet_size() -> Size {
    lit("1000B")
}

/// TCP's loss recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TcpVariant {
    /// Fast retransmit and fast recovery; any new ACK ends recovery (ns-2 `Agent/TCP/Reno`).
    Reno,
    /// Partial ACKs keep recovery going (RFC 6582; ns-2 `Agent/TCP/Newreno`).
    #[serde(rename = "newreno")]
    NewReno,
    /// SACK scoreboard and pipe (RFC 6675; ns-2 `Agent/TCP/Sack1`).
    #[default]
    Sack,
}

/// Which packets give TCP its RTT samples (see [`Tcp::rtt_timing`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttTiming {
    /// Every ACK of a packet sent once.
    #[default]
    EveryAck,
    /// One packet of new data timed at a time (ns-2.35 without timestamps).
    OnePerRtt,
    /// Every ACK of new data, a retransmission's included, and every ACK that SACKs new data
    /// (Linux with TCP timestamps).
    Timestamps,
}

impl RttTiming {
    fn is_every_ack(&self) -> bool {
        *self == RttTiming::EveryAck
    }
}

/// What a TCP sender's window grows by per ACK of new data (see [`Tcp::growth`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Growth {
    /// One step per ACK (RFC 5681 §3.1; ns-2 `opencwnd()`).
    #[default]
    PerAck,
    /// One step per packet the ACK acknowledges (RFC 3465 in whole packets, no limit L; Linux).
    PerPacket,
}

impl Growth {
    fn is_per_ack(&self) -> bool {
        *self == Growth::PerAck
    }
}

/// How a SACK sender counts the packets in flight during recovery (see [`Tcp::sack_pipe`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SackPipe {
    /// RFC 6675 SetPipe, from the scoreboard at each ACK.
    #[default]
    Scoreboard,
    /// ns-2.35 Sack1's counter `pipe_` (`tcp-sack1.cc`).
    Counter,
}

impl SackPipe {
    fn is_scoreboard(&self) -> bool {
        *self == SackPipe::Scoreboard
    }
}

/// What a SACK sender resends after a retransmission timeout (see [`Tcp::after_timeout`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AfterTimeout {
    /// The scoreboard is emptied (RFC 2018 §8); go-back-N skips the packets the ACKs that
    /// follow report held (RFC 6675 §5.1).
    #[default]
    SkipSacked,
    /// The scoreboard is kept: every packet sent a round trip or more before the timeout and
    /// not reported held is lost, and the holes go again by the pipe until the cumulative ACK
    /// passes what was outstanding, as Linux does (net/ipv4/tcp_input.c
    /// `tcp_timeout_mark_lost`).
    KeepSacked,
    /// Go-back-N resends every packet, as ns-2.35's Sack1 (`tcp-sack1.cc`) does.
    GoBackN,
}

impl AfterTimeout {
    fn is_skip_sacked(&self) -> bool {
        *self == AfterTimeout::SkipSacked
    }
}

/// How a SACK sender finds that a retransmission was lost (see [`Tcp::lost_retransmissions`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LostRetransmissions {
    /// By its retransmission timeout only (RFC 6675 has no other rule).
    #[default]
    Timeout,
    /// Once a packet sent after it is delivered (RFC 8985 §6.2, as Linux's RACK).
    Rack,
}

impl LostRetransmissions {
    fn is_timeout(&self) -> bool {
        *self == LostRetransmissions::Timeout
    }
}

/// What begins a SACK sender's recovery (see [`Tcp::recovery_entry`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryEntry {
    /// The DupThresh-th duplicate ACK (RFC 5681 §3.2; ns-2.35's agents).
    #[default]
    Dupacks,
    /// Also any ACK after which the first unacknowledged packet is lost (RFC 6675 §5 step 2;
    /// Linux's `tcp_time_to_recover`).
    Lost,
}

impl RecoveryEntry {
    fn is_dupacks(&self) -> bool {
        *self == RecoveryEntry::Dupacks
    }
}

/// Which ACKs restart TCP's retransmission timer (see [`Tcp::rto_restart`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RtoRestart {
    /// An ACK of new data (RFC 6298 §5.3).
    #[default]
    NewAck,
    /// Every ACK, duplicates included (ns-2.35's TCP/Linux, `tcp-linux.cc` `time_processing`).
    EveryAck,
}

impl RtoRestart {
    fn is_new_ack(&self) -> bool {
        *self == RtoRestart::NewAck
    }
}

/// How TCP turns RTT samples into its RTO (see [`Tcp::rtt_estimator`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttEstimator {
    /// RFC 6298 §2 in floating point.
    #[default]
    Rfc6298,
    /// ns-2.35's fixed-point estimator in whole clock ticks (`tcp.cc` `rtt_update()`).
    Ns2,
}

impl RttEstimator {
    fn is_rfc6298(&self) -> bool {
        *self == RttEstimator::Rfc6298
    }
}

/// TCP whose window comes from a window controller of the catalogue. Defaults follow ns-2.35
/// (`tcp.cc`, `tcp-sink.cc`) except `max_window` (ns-2's `window_` is 20), `initial_window`
/// (its `windowInit_` is 2) and `integer_window` (its `precisionReduce_` keeps fractions).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tcp {
    #[serde(default)]
    pub variant: TcpVariant,
    #[serde(default = "tcp_controller")]
    pub controller: ControllerRef,
    #[serde(default = "packet_size")]
    pub packet_size: Size,
    #[serde(default = "ack_size")]
    pub ack_size: Size,
    /// Receiver window: the most packets outstanding (ns-2 `window_`), in [1, 1e9].
    #[serde(default = "max_window")]
    pub max_window: f64,
    /// Congestion window at the start, in [1, 1e9] (ns-2 `windowInit_`, whose ns-2.35 default
    /// is 2).
    #[serde(default = "one_f64")]
    pub initial_window: f64,
    /// Lowest RTO (ns-2 `minrto_`).
    #[serde(default = "min_rto")]
    pub min_rto: Time,
    /// RTO before the first RTT sample (ns-2 `rtxcur_init_`; RFC 6298 says 1 s).
    #[serde(default = "initial_rto")]
    pub initial_rto: Time,
    #[serde(default = "max_rto")]
    pub max_rto: Time,
    /// Clock granularity G of RFC 6298 (ns-2 `tcpTick_`).
    #[serde(default = "tick")]
    pub tick: Time,
    /// Largest backoff multiplier of the RTO, in [1, 65536]. Absent: the RTO doubles at each
    /// timeout until it reaches `max_rto` (RFC 6298 §5.5; ns-2.35's `rtt_backoff()` with its
    /// default `rfc2988_`); 64 is the multiplier BSD and ns-2 without `rfc2988_` stop at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_backoff: Option<u64>,
    /// Which packets give RTT samples: `every_ack` (default), every ACK of a packet sent once
    /// (as with timestamps, RFC 7323 §4); `one_per_rtt`, one packet timed at a time (ns-2.35
    /// without `timestamps_`, `tcp.cc` `output()` and `newack()`): new data is timed when no
    /// packet is, a timeout or fast retransmit stops the timing, and the backoff ends only with
    /// a sample (RFC 6298 §5, Karn's algorithm); `timestamps`, as Linux times with TCP
    /// timestamps (net/ipv4/tcp_input.c `tcp_ack_update_rtt`): every ACK of new data from the
    /// send time it echoes, a retransmission's included (RFC 7323 §4: the echoed timestamp is
    /// the retransmission's own, so Karn's rule is not needed), and every duplicate ACK that
    /// SACKs new data and echoes a packet sent once (`sack_rtt_us`); each sample ends the
    /// RTO's backoff (RFC 6298 §5.7). The window controller gets the samples of packets sent
    /// once, the SACKed ones included, as Linux's rate sample (`rs->rtt_us`) does.
    #[serde(default, skip_serializing_if = "RttTiming::is_every_ack")]
    pub rtt_timing: RttTiming,
    /// Once a timeout backs the RTO off to more than this multiplier, SRTT and RTTVAR are
    /// forgotten and the next sample starts them afresh (RFC 6298 §2.2), the timeout itself
    /// unchanged until then: RFC 6298 §5 allows it; ns-2.35's `rtt_backoff()` does it above 8.
    /// In [1, 65536]; absent: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forget_rtt_above_backoff: Option<u64>,
    /// How RTT samples become the RTO: `rfc6298` (default), RFC 6298 §2 in floating point,
    /// rounded up to whole ticks; `ns2`, ns-2.35's estimator (`tcp.cc` `rtt_update()`,
    /// `rtt_timeout()`, with its defaults `T_SRTT_BITS` 3, `T_RTTVAR_BITS` 2, `rttvar_exp_` 2):
    /// a sample is the number of `tick` boundaries it spans (at least 1) on a clock whose phase
    /// the flow draws at its start (`boot_time_`), or with `rtt_timing = "every_ack"` the sample
    /// rounded to ticks (ns-2's `timestamps_`); SRTT and RTTVAR are integers in 1/8 and 1/4
    /// tick, and the RTO is SRTT + 4 RTTVAR rounded down to whole ticks, at least 2 ticks.
    /// Needs a positive `tick`. Written only when not `rfc6298`.
    #[serde(default, skip_serializing_if = "RttEstimator::is_rfc6298")]
    pub rtt_estimator: RttEstimator,
    /// Which ACKs restart the retransmission timer: `new_ack` (default), an ACK of new data
    /// (RFC 6298 §5.3, ns-2.35's own agents, Linux); `every_ack`, every ACK, duplicates
    /// included, as ns-2.35's TCP/Linux agent does (`tcp-linux.cc` `time_processing`, whose
    /// `renew_timer` runs on each ACK), so that while duplicate ACKs come no timeout fires.
    /// Written only when not `new_ack`.
    #[serde(default, skip_serializing_if = "RtoRestart::is_new_ack")]
    pub rto_restart: RtoRestart,
    /// Send one new packet on each of the first two duplicate ACKs (RFC 3042; ns-2 `singledup_`).
    #[serde(default = "yes")]
    pub limited_transmit: bool,
    /// Delayed ACKs: every second packet, or after `delack` (ns-2 `TCPSink/DelAck`).
    #[serde(default)]
    pub delayed_ack: bool,
    #[serde(default = "delack")]
    pub delack: Time,
    /// With `delayed_ack`: a packet that fills the last hole below the packets held out of
    /// order is acknowledged at once, not held (RFC 5681 §4.2 SHOULD; Linux's
    /// net/ipv4/tcp_input.c `tcp_data_queue` sets `ICSK_ACK_NOW` when its out-of-order queue
    /// empties). Default false: held as any in-order packet, as ns-2's `DelAck` sink does.
    /// Written only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ack_filled_hole: bool,
    /// What the window controller's growth counts: `per_ack` (default), a step per ACK of new
    /// data (RFC 5681 §3.1; ns-2's `opencwnd()`), so that with delayed ACKs the window grows
    /// half as fast; `per_packet`, a step per packet the ACK acknowledges (RFC 3465's byte
    /// counting in whole packets without its limit L, as Linux counts: net/ipv4/tcp_cong.c
    /// `tcp_slow_start`, `tcp_cong_avoid_ai`). Written only when not `per_ack`.
    #[serde(default, skip_serializing_if = "Growth::is_per_ack")]
    pub growth: Growth,
    /// Data to transfer (packets or bytes); absent: a bulk transfer that never ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer: Option<Limit>,
    /// Window reductions leave whole packets, as real stacks do (Cai et al. §III-C); ns-2.35
    /// keeps the fraction (`precisionReduce_` true): false runs as it does.
    #[serde(default = "yes")]
    pub integer_window: bool,
    /// ssthresh in whole packets and at least 2 after a reduction, as ns-2.35's `slowdown()`
    /// keeps its `ssthresh_` (an int, raised to 2). With `integer_window = false` the window
    /// keeps its fraction and slow start after a timeout stops at the packet below half the
    /// window; with `integer_window = true` a cut to one packet leaves ssthresh 2, so the next
    /// ACK adds a packet (slow start) rather than the rule's increase. Default false (ssthresh
    /// is the reduced window). Written only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub whole_ssthresh: bool,
    /// With `integer_window = true`: a cut applies to the whole-packet window and floors the
    /// result, ⌊β·⌊cwnd⌋⌋ (a rule's decrease of ⌊cwnd⌋), as ns-2.35's `slowdown()` does with
    /// `precisionReduce_` false (`(int)(decrease_num_ * window())`, `window()` = int(cwnd_)).
    /// Default false: ⌊β·cwnd⌋, the fraction cut too. Window controllers of the catalogue
    /// built on TCP's window (AIMD, GAIMD, binomial, TAIMD/DTAIMD, Jin's, Vegas's losses).
    /// Written only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut_from_whole_window: bool,
    /// SACK: SACKed packets above a hole that make it lost, in [1, 65536]. RFC 6675's IsLost
    /// takes DupThresh, 3; ns-2.35's Sack1 retransmits any hole below a SACKed packet
    /// (`scoreboard-rq.cc` `GetNextRetran`): 1 runs as it does. Written only when not 3.
    #[serde(
        default = "sack_lost_after",
        skip_serializing_if = "is_rfc6675_lost_after"
    )]
    pub sack_lost_after: u64,
    /// SACK: what the pipe (packets in flight) of a recovery is. `scoreboard` (default): RFC
    /// 6675 SetPipe, recomputed from the scoreboard, so a hole found lost leaves it at once;
    /// `counter`: ns-2.35 Sack1's `pipe_` (`tcp-sack1.cc`), set at the fast retransmit to the
    /// packets outstanding less 3, one less per ACK (two for a partial ACK), one more per
    /// packet sent but the fast retransmit itself: a second hole leaves it only with the
    /// partial ACK a round trip later. Written only when not `scoreboard`.
    #[serde(default, skip_serializing_if = "SackPipe::is_scoreboard")]
    pub sack_pipe: SackPipe,
    /// SACK: what the go-back-N after a retransmission timeout resends. `skip_sacked`
    /// (default): the timeout empties the scoreboard (RFC 2018 §8), and the packets the ACKs
    /// after it report held are not sent again (RFC 6675 §5.1); `keep_sacked`: the scoreboard
    /// survives the timeout, so the packets reported held before it are not sent again
    /// either, as Linux keeps its SACK marks unless it detects reneging (net/ipv4/tcp_input.c
    /// `tcp_timeout_mark_lost`; RFC 6675 §5.1 notes the practice), and, as Linux marks the
    /// others lost but those sent within the last round trip (the first always), the holes go
    /// again by the pipe (what is in
    /// flight below the window), not in a window counted from the first unacknowledged packet,
    /// until the cumulative ACK passes what was outstanding (Linux's `TCP_CA_Loss` state);
    /// `go_back_n`: ns-2.35's Sack1 (`tcp-sack1.cc` `timeout()`, `recv()`), every packet from
    /// the first unacknowledged one, with Sack1's scoreboard: SACK blocks are read from
    /// duplicate ACKs and from the ACKs of a recovery only, none from a timeout to the next new
    /// ACK (`timeout_`), the scoreboard is emptied by each new ACK outside a recovery, and a
    /// duplicate ACK outside a recovery counts only if it reports a packet not yet SACKed
    /// (`CheckUpdate()`; RFC 6675 §2's definition). Written only when not `skip_sacked`.
    #[serde(default, skip_serializing_if = "AfterTimeout::is_skip_sacked")]
    pub after_timeout: AfterTimeout,
    /// SACK: how a retransmission sent in a recovery is found lost. `timeout` (default): only
    /// by the retransmission timer, as RFC 6675 has no other rule; `rack`: once a packet sent
    /// after it is delivered, and it is retransmitted again without a timeout (RFC 8985 §6.2
    /// with a reordering window of 0, as Linux's RACK in a recovery while it has seen no
    /// reordering: net/ipv4/tcp_recovery.c `tcp_rack_detect_loss`, `tcp_rack_reo_wnd`); the
    /// recovery goes on, with no second reduction. Needs `variant = "sack"` and `sack_pipe =
    /// "scoreboard"`. Written only when not `timeout`.
    #[serde(default, skip_serializing_if = "LostRetransmissions::is_timeout")]
    pub lost_retransmissions: LostRetransmissions,
    /// SACK: what begins a recovery. `dupacks` (default): the DupThresh-th duplicate ACK, one
    /// that leaves the cumulative ACK where it was (RFC 5681 §3.2, as ns-2.35's agents);
    /// `lost`: also any ACK after which the first unacknowledged packet is lost by RFC 6675's
    /// IsLost, the ACK that ends a recovery included, so that a packet found lost in one
    /// recovery and not yet delivered when it ends begins the next at once (RFC 6675 §5 counts
    /// an ACK that SACKs new data as a DupAck whether or not it moves the cumulative ACK, and
    /// its step 2 enters on IsLost(HighACK + 1); Linux begins a recovery while a packet marked
    /// lost is outstanding, net/ipv4/tcp_input.c `tcp_time_to_recover`). Needs `variant =
    /// "sack"`. Written only when not `dupacks`.
    #[serde(default, skip_serializing_if = "RecoveryEntry::is_dupacks")]
    pub recovery_entry: RecoveryEntry,
    /// SACK: in recovery, send by Proportional Rate Reduction (RFC 6937, as Linux's
    /// net/ipv4/tcp_input.c `tcp_cwnd_reduction`): on each ACK as many packets as keep what was
    /// sent since the loss at ssthresh / (the window before it) of what was delivered, and
    /// once the pipe is down to ssthresh, as many as delivered (one more when the cumulative ACK
    /// advances and nothing new is lost), up to ssthresh. Default false: RFC 6675 §5 sends
    /// whenever the pipe is a packet below the reduced window. Needs `variant = "sack"` and
    /// `sack_pipe = "scoreboard"`. Written only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prr: bool,
    /// Packets past the recovery point the cumulative ACK must reach before another fast
    /// retransmit or ECN response, in [0, 65536]. RFC 6582 §3.2 step 1 allows one once the ACK
    /// covers the data sent before the last reduction: 0; ns-2.35's agents compare packet
    /// numbers (`dupack_action()`, `highest_ack_ > recover_`), one packet more: 1 runs as they
    /// do. Written only when not 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub recover_margin: u64,
    /// Send jitter (ns-2 `overhead_`): packets the window lets go wait a uniform draw in
    /// [0, overhead) from the flow's own random stream, then leave together; papers use it to
    /// break phase effects. Default none (ns-2's 0: packets leave at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<Time>,
    /// Start with a SYN exchange, as ns-2.35's one-way TCP models one by default (`syn_` and
    /// `delay_growth_` true, `tcp.cc` `output()`, `set_initial_window()`; `tcp-sack1.cc`
    /// `recv()`): the first packet is a header-only SYN (`ack_size` bytes) and the data waits
    /// for its ACK, which gives the first RTT sample and opens the window at `initial_window`.
    /// A lost SYN is sent again after `initial_rto` (backed off as any timeout), and the
    /// timeout leaves the window at 1 and ssthresh at 2, as ns-2.35's does at its window of
    /// 1. Default false: data from the start.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub syn: bool,
    /// The application; default bulk (or `transfer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<App>,
}

fn tcp_controller() -> ControllerRef {
    ControllerRef::named("tcp")
}
fn ack_size() -> Size {
    lit("40B")
}
fn max_window() -> f64 {
    10_000.0
}
fn one_f64() -> f64 {
    1.0
}
fn min_rto() -> Time {
    lit("200ms")
}
fn initial_rto() -> Time {
    lit("3s")
}
fn max_rto() -> Time {
    lit("60s")
}
fn tick() -> Time {
    lit("10ms")
}
fn sack_lost_after() -> u64 {
    3
}
fn is_zero(n: &u64) -> bool {
    *n == 0
}
fn is_rfc6675_lost_after(n: &u64) -> bool {
    *n == sack_lost_after()
}
fn delack() -> Time {
    lit("100ms")
}

impl Default for Tcp {
    fn default() -> Self {
        Tcp {
            variant: TcpVariant::default(),
            controller: tcp_controller(),
            packet_size: packet_size(),
            ack_size: ack_size(),
            max_window: max_window(),
            initial_window: 1.0,
            min_rto: min_rto(),
            initial_rto: initial_rto(),
            max_rto: max_rto(),
            tick: tick(),
            max_backoff: None,
            rtt_timing: RttTiming::EveryAck,
            forget_rtt_above_backoff: None,
            rtt_estimator: RttEstimator::Rfc6298,
            rto_restart: RtoRestart::NewAck,
            limited_transmit: true,
            delayed_ack: false,
            delack: delack(),
            ack_filled_hole: false,
            growth: Growth::PerAck,
            transfer: None,
            integer_window: true,
            whole_ssthresh: false,
            cut_from_whole_window: false,
            sack_lost_after: sack_lost_after(),
            sack_pipe: SackPipe::Scoreboard,
            after_timeout: AfterTimeout::SkipSacked,
            lost_retransmissions: LostRetransmissions::Timeout,
            recovery_entry: RecoveryEntry::Dupacks,
            prr: false,
            recover_margin: 0,
            overhead: None,
            syn: false,
            app: None,
        }
    }
}

/// Which receiver reports to a rate controller written outside the catalogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Feedback {
    /// Loss and receive counts once per RTT (Loguinov & Radha §VI-C).
    #[serde(rename = "per-rtt")]
    PerRtt,
    /// A report per packet (RAP, SSVP).
    #[serde(rename = "per-packet")]
    PerPacket,
    /// TFRC's receiver (RFC 5348 §6).
    #[serde(rename = "tfrc")]
    Tfrc,
    /// ns-2's TFRC receiver (`tfrc-sink.cc`).
    #[serde(rename = "tfrc-ns2")]
    TfrcNs2,
    /// ns-2's TFRC receiver of June 2000.
    #[serde(rename = "tfrc-2000")]
    Tfrc2000,
    /// TEAR's receiver (Rhee, Ozdemir & Yi 2000).
    #[serde(rename = "tear")]
    Tear,
}

impl Feedback {
    /// The name scenario files use.
    pub fn name(self) -> &'static str {
        match self {
            Feedback::PerRtt => "per-rtt",
            Feedback::PerPacket => "per-packet",
            Feedback::Tfrc => "tfrc",
            Feedback::TfrcNs2 => "tfrc-ns2",
            Feedback::Tfrc2000 => "tfrc-2000",
            Feedback::Tear => "tear",
        }
    }
}

/// A paced, rate-controlled flow: not ACK-clocked, no retransmissions; the receiver reports as
/// its protocol defines (TFRC, TEAR, RAP, SSVP, ISCC, Loguinov & Radha's rate AIMD/binomial).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateSource {
    pub controller: ControllerRef,
    #[serde(default = "packet_size")]
    pub packet_size: Size,
    /// Starting rate; default the protocol's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rate: Option<Rate>,
    /// Lowest rate; default one packet per 64 s (RFC 5348's s/t_mbi).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rate: Option<Rate>,
    /// Packets sent back to back per bunch, in [0, 64] (≥ 3 lets the receiver estimate the
    /// bottleneck capacity, Loguinov & Radha §VI-B).
    #[serde(default)]
    pub bunch: u64,
    /// Each gap is multiplied by a uniform draw in [1 − jitter, 1 + jitter], 0 ≤ jitter ≤ 0.999
    /// (ns-2's `overhead_` dither against phase effects, Yang et al. §2.2).
    #[serde(default)]
    pub jitter: f64,
    /// The receiver a Python controller expects; catalogued controllers bring their own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<Feedback>,
    /// Size of the receiver's reports (and NACKs) on the wire; default 40 B, ns-2 TFRC's
    /// control packet (ns-2 RAP's ACK is 44 B, `rap_base_hdr_size_`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_size: Option<Size>,
    /// The application; default bulk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<App>,
}

impl RateSource {
    /// A rate source running `controller`, every other setting its default.
    pub fn new(controller: ControllerRef) -> Self {
        RateSource {
            controller,
            packet_size: packet_size(),
            initial_rate: None,
            min_rate: None,
            bunch: 0,
            jitter: 0.0,
            feedback: None,
            report_size: None,
            app: None,
        }
    }
}

/// `[trace]`: series every `interval`, and an event log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Trace {
    #[serde(default = "trace_interval")]
    pub interval: Time,
    /// Per-flow send / receive / loss series.
    #[serde(default = "yes")]
    pub flows: bool,
    /// Per-monitored-link queue series.
    #[serde(default = "yes")]
    pub queues: bool,
    /// Every drop, mark and loss-module loss as an event.
    #[serde(default)]
    pub events: bool,
    /// Every change of each sender's and receiver's control state (window, ssthresh, RTT
    /// estimate, rate, TFRC's p and X_calc, ...), at the time it changed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub state: bool,
    /// Every data packet's one-way delay, from leaving its sender to reaching its receiver, at
    /// its delivery (the per-packet record RFC 8868 §2's delay percentiles need).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub delays: bool,
    /// The packets crossing these links (a link name as results name it, e.g. "bottleneck",
    /// "bottleneck.reverse", "hop1", "flow0.left", or a list of them), written as pcap-ng with
    /// synthesized Ethernet, IPv4 and TCP or UDP headers: one file per link, LINK.pcapng, in
    /// the run's folder `pcap/`. Packet engine and udp engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcap: Option<PcapLinks>,
}

/// `[trace] pcap`: one link name or a list of them.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum PcapLinks {
    One(String),
    Many(Vec<String>),
}

impl PcapLinks {
    /// The names, in the order written.
    pub fn names(&self) -> Vec<String> {
        match self {
            PcapLinks::One(s) => vec![s.clone()],
            PcapLinks::Many(v) => v.clone(),
        }
    }
}

impl<'de> Deserialize<'de> for PcapLinks {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let refuse = |v: &serde_json::Value| {
            crate::units::refusal(
                &super::render(v),
                "must be a link name (\"bottleneck\") or a list of link names",
            )
        };
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) => Ok(PcapLinks::One(s)),
            serde_json::Value::Array(items) => items
                .iter()
                .map(|v| v.as_str().map(str::to_owned).ok_or_else(|| refuse(v)))
                .collect::<std::result::Result<_, _>>()
                .map(PcapLinks::Many),
            other => Err(refuse(&other)),
        }
    }
}

fn trace_interval() -> Time {
    lit("100ms")
}

// --- validation ----------------------------------------------------------------------------------

/// The longest real-time run (`run.engine = "udp"`): it takes its duration in wall time.
const MAX_REAL_TIME_NS: u64 = 3600 * 1_000_000_000;

impl Scenario {
    /// Fills in the defaults that depend on another key: a fat link's buffer, unless it has a
    /// queue.
    pub(super) fn fill_in(&mut self) {
        if let Topology::FatLink(f) = &mut self.topology {
            if f.queue.is_none() {
                f.buffer.get_or_insert_with(fat_buffer);
            }
        }
    }

    /// Checks every field, naming the first bad one by its path as written.
    pub fn validate(&self) -> Result<()> {
        if self.run.engine == Engine::Round {
            return Err(Error::invalid(
                "run.engine",
                "'round'",
                "a round-model scenario; run it with the round model",
            ));
        }
        let duration = time_ns("run.duration", &self.run.duration, true)?;
        if self.run.engine == Engine::Udp && duration > MAX_REAL_TIME_NS {
            return Err(Error::invalid(
                "run.duration",
                format!("'{}'", self.run.duration),
                "at most 1h with run.engine = \"udp\", which runs in real time",
            ));
        }
        let warmup = time_ns("run.warmup", &self.run.warmup, false)?;
        if warmup >= duration {
            return Err(Error::invalid(
                "run.warmup",
                format!("'{}'", self.run.warmup),
                format!(
                    "must be shorter than run.duration = '{}'",
                    self.run.duration
                ),
            ));
        }
        let nodes = self.topology.validate()?;
        if self.run.emulator == Emulation::Kernel {
            self.validate_kernel()?;
        }
        if self.flows.is_empty() {
            return Err(Error::invalid("flows", "[]", "at least one flow is needed"));
        }
        let mut total = 0u64;
        for (i, f) in self.flows.iter().enumerate() {
            if let Source::Linux(_) = f.source {
                self.validate_linux(f, &format!("flows[{i}]"))?;
            }
            f.validate(&format!("flows[{i}]"), &self.topology, &nodes)?;
            total = total.saturating_add(f.count);
        }
        if total > MAX_FLOWS {
            return Err(Error::invalid(
                "flows",
                format!("{total} flows"),
                format!("at most {MAX_FLOWS} flows in all (counts added up)"),
            ));
        }
        if !self.flows.iter().any(|f| f.ecn) {
            if let Some((at, _)) = self
                .topology
                .queues()
                .into_iter()
                .find(|(_, q)| q.is_aqm() && q.marks())
            {
                return Err(Error::invalid(
                    format!("{at}.ecn"),
                    "true",
                    "needs an ECN-capable flow to mark (flows[i].ecn = true): with none it only drops; set ecn = false",
                ));
            }
        }
        if let Some(t) = &self.trace {
            if let Some(p) = &t.pcap {
                self.validate_pcap(p)?;
            }
            let iv = time_ns("trace.interval", &t.interval, true)?;
            let bins = duration / iv + 1;
            let width = total * 2 + 64;
            if bins.saturating_mul(width) > MAX_TRACE_CELLS {
                return Err(Error::invalid(
                    "trace.interval",
                    format!("'{}'", t.interval),
                    format!("gives {bins} samples per series; use a coarser interval (at most {MAX_TRACE_CELLS} cells)"),
                ));
            }
        }
        Ok(())
    }
}

impl Scenario {
    /// `[trace] pcap`: names given, each once, no flow of the kernel's TCP (the link names
    /// themselves are checked against the topology when the run is built).
    fn validate_pcap(&self, p: &PcapLinks) -> Result<()> {
        let names = p.names();
        let shown = || match p {
            PcapLinks::One(s) => format!("'{s}'"),
            PcapLinks::Many(v) => format!("{v:?}"),
        };
        if names.is_empty() {
            return Err(Error::invalid("trace.pcap", "[]", "at least one link name"));
        }
        let distinct: BTreeSet<&String> = names.iter().collect();
        if distinct.len() < names.len() {
            return Err(Error::invalid(
                "trace.pcap",
                shown(),
                "each link named once",
            ));
        }
        if let Some(i) = (self.flows.iter()).position(|f| matches!(f.source, Source::Linux(_))) {
            return Err(Error::invalid(
                "trace.pcap",
                shown(),
                format!("not with flows of the kernel's TCP (flows[{i}].source = 'linux'), whose packets are the kernel's own: capture them on the TUN devices"),
            ));
        }
        Ok(())
    }

    /// Where the kernel's TCP can run: on real packets (`run.engine = "udp"`), through either
    /// emulator, which reads them from TUN devices.
    fn validate_linux(&self, f: &Flow, flow: &str) -> Result<()> {
        if f.playback.is_some() {
            return Err(Error::invalid(
                format!("{flow}.playback"),
                "a playback receiver",
                "none with source.kind = 'linux', whose receiver is the kernel's socket",
            ));
        }
        let at = format!("{flow}.source.kind");
        if self.run.engine != Engine::Udp {
            let engine = serde_json::to_value(self.run.engine).unwrap_or_default();
            return Err(Error::invalid(
                &at,
                "'linux'",
                format!("needs run.engine = \"udp\" (here {engine}): the kernel's TCP sends real packets"),
            ));
        }
        Ok(())
    }
}

/// Why a setting cannot run with `run.emulator = "kernel"`.
const KERNEL: &str = "with run.emulator = \"kernel\"";

impl Scenario {
    /// What the kernel path can run: a dumbbell (or fat link) whose bottleneck, each way, has a
    /// DropTail queue at a constant rate (`tc`'s tbf and fifo; this kernel has no red qdisc,
    /// and a rate change would need `tc` in the middle of the run).
    fn validate_kernel(&self) -> Result<()> {
        if self.run.engine != Engine::Udp {
            let engine = serde_json::to_value(self.run.engine).unwrap_or_default();
            return Err(Error::invalid("run.emulator", "'kernel'", format!("needs run.engine = \"udp\" (here {engine}): the kernel path carries real datagrams")));
        }
        let (links, at) = match &self.topology {
            Topology::Dumbbell(d) => (
                [Some(&d.bottleneck), d.reverse.as_ref()],
                ["topology.bottleneck", "topology.reverse"],
            ),
            Topology::FatLink(f) => match &f.queue {
                Some(q) if !matches!(q, Queue::DropTail(_)) => {
                    return Err(kernel_queue("topology.queue", q))
                }
                _ => return Ok(()),
            },
            Topology::ParkingLot(_) => {
                return Err(Error::invalid(
                    "topology.kind",
                    "'parking_lot'",
                    format!("'dumbbell' or 'fat_link' {KERNEL}"),
                ))
            }
            Topology::Custom(_) => {
                return Err(Error::invalid(
                    "topology.kind",
                    "'custom'",
                    format!("'dumbbell' or 'fat_link' {KERNEL}"),
                ))
            }
        };
        for (link, at) in links.into_iter().zip(at) {
            let Some(link) = link else { continue };
            if !matches!(link.queue, Queue::DropTail(_)) {
                return Err(kernel_queue(&format!("{at}.queue"), &link.queue));
            }
            if !link.capacity_changes.is_empty() {
                return Err(Error::invalid(
                    format!("{at}.capacity_changes"),
                    format!("{} changes", link.capacity_changes.len()),
                    format!(
                        "none {KERNEL}: tc sets the rate once; run.emulator = \"user\" changes it"
                    ),
                ));
            }
            if link.jitter.is_some() {
                return Err(Error::invalid(
                    format!("{at}.jitter"),
                    "a jitter model",
                    format!("none {KERNEL}: tc's queue hands packets on in order at once; run.emulator = \"user\" adds it"),
                ));
            }
            if let Some(t) = &link.capacity_trace {
                return Err(Error::invalid(
                    format!("{at}.capacity_trace.file"),
                    format!("'{}'", t.file),
                    format!(
                        "none {KERNEL}: tc sets the rate once; run.emulator = \"user\" follows it"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// A queue the kernel path cannot set up, at `at`.
fn kernel_queue(at: &str, q: &Queue) -> Error {
    let why = match q {
        Queue::Red(_) => "this kernel has no red qdisc".to_string(),
        Queue::Step(_) => "this kernel has no marking qdisc".to_string(),
        q => format!(
            "the kernel path sets up tbf and a fifo, no {} qdisc",
            q.kind()
        ),
    };
    Error::invalid(
        format!("{at}.kind"),
        format!("'{}'", q.kind()),
        format!("'droptail' {KERNEL}: {why}; run.emulator = \"user\" runs it"),
    )
}

impl Topology {
    /// Every queue as written, with its path.
    fn queues(&self) -> Vec<(String, &Queue)> {
        let mut out: Vec<(String, &Queue)> = Vec::new();
        match self {
            Topology::Dumbbell(d) => {
                out.push(("topology.bottleneck.queue".into(), &d.bottleneck.queue));
                if let Some(r) = &d.reverse {
                    out.push(("topology.reverse.queue".into(), &r.queue));
                }
                out.push(("topology.access.queue".into(), &d.access.queue));
            }
            Topology::FatLink(f) => {
                if let Some(q) = &f.queue {
                    out.push(("topology.queue".into(), q));
                }
                out.push(("topology.access.queue".into(), &f.access.queue));
            }
            Topology::ParkingLot(p) => {
                for (i, h) in p.hops.iter().enumerate() {
                    out.push((format!("topology.hops[{i}].queue"), &h.queue));
                }
                out.push(("topology.access.queue".into(), &p.access.queue));
            }
            Topology::Custom(c) => {
                for (i, l) in c.links.iter().enumerate() {
                    out.push((format!("topology.links[{i}].queue"), &l.queue));
                }
            }
        }
        out
    }

    /// Checks the topology; returns its node names (custom topologies).
    fn validate(&self) -> Result<Vec<String>> {
        match self {
            Topology::Dumbbell(d) => {
                d.bottleneck.validate("topology.bottleneck")?;
                if let Some(r) = &d.reverse {
                    r.validate("topology.reverse")?;
                }
                d.access.validate("topology.access")?;
            }
            Topology::FatLink(f) => {
                link_rate("topology.rate", &f.rate)?;
                time_ns("topology.delay", &f.delay, true)?;
                match (&f.buffer, &f.queue) {
                    (Some(b), Some(_)) => {
                        return Err(Error::invalid(
                            "topology.buffer",
                            b.text(),
                            "give buffer or queue, not both: the queue has its own limit",
                        ))
                    }
                    (Some(b), None) => packets_limit("topology.buffer", b)?,
                    (None, Some(q)) => q.validate("topology.queue")?,
                    (None, None) => {}
                }
                if let Some(l) = &f.loss {
                    l.validate("topology.loss")?;
                }
                f.access.validate("topology.access")?;
            }
            Topology::ParkingLot(p) => {
                if p.hops.is_empty() {
                    return Err(Error::invalid(
                        "topology.hops",
                        "[]",
                        "at least one hop is needed",
                    ));
                }
                for (i, h) in p.hops.iter().enumerate() {
                    h.validate(&format!("topology.hops[{i}]"))?;
                }
                p.access.validate("topology.access")?;
            }
            Topology::Custom(c) => {
                if c.nodes.len() < 2 {
                    return Err(Error::invalid(
                        "topology.nodes",
                        format!("{:?}", c.nodes),
                        "at least two nodes are needed",
                    ));
                }
                let unique: BTreeSet<&String> = c.nodes.iter().collect();
                if unique.len() != c.nodes.len() {
                    return Err(Error::invalid(
                        "topology.nodes",
                        format!("{:?}", c.nodes),
                        "node names must be unique",
                    ));
                }
                if c.links.is_empty() {
                    return Err(Error::invalid(
                        "topology.links",
                        "[]",
                        "at least one link is needed",
                    ));
                }
                for (i, l) in c.links.iter().enumerate() {
                    let at = format!("topology.links[{i}]");
                    for (name, end) in [("from", &l.from), ("to", &l.to)] {
                        if !c.nodes.contains(end) {
                            return Err(Error::invalid(
                                format!("{at}.{name}"),
                                format!("'{end}'"),
                                format!("known nodes: {}", c.nodes.join(", ")),
                            ));
                        }
                    }
                    if l.from == l.to {
                        return Err(Error::invalid(
                            format!("{at}.to"),
                            format!("'{}'", l.to),
                            "a link joins two different nodes",
                        ));
                    }
                    l.link().validate(&at)?;
                }
                return Ok(c.nodes.clone());
            }
        }
        Ok(Vec::new())
    }

    /// Hops of a parking lot (0 for other topologies).
    fn hops(&self) -> usize {
        match self {
            Topology::ParkingLot(p) => p.hops.len(),
            _ => 0,
        }
    }
}

/// A time ≥ 0 later than `last`, the time of the entry before it in a list; moves `last` on.
fn later(at: &str, t: &Time, last: &mut Option<u64>) -> Result<()> {
    let ns = time_ns(at, t, false)?;
    if last.is_some_and(|l| ns <= l) {
        return Err(Error::invalid(
            at,
            format!("'{t}'"),
            "must be later than the entry before",
        ));
    }
    *last = Some(ns);
    Ok(())
}

fn rate_error(at: &str, r: &Rate) -> Error {
    Error::invalid(
        at,
        format!("'{r}'"),
        format!("must be > 0; expected {}", crate::units::RATE_EXAMPLE),
    )
}

/// A rate > 0.
pub(super) fn rate_bps(at: &str, r: &Rate) -> Result<f64> {
    check_positive(at, r.bps()).map_err(|_| rate_error(at, r))
}

/// A link's rate: > 0, and between 1 b/s and 2^64 b/s in the whole bits/s the engine runs
/// links at.
fn link_rate(at: &str, r: &Rate) -> Result<()> {
    let bps = rate_bps(at, r)?.round_ties_even();
    if bps < 1.0 {
        return Err(Error::invalid(
            at,
            format!("'{r}'"),
            "a link runs at least 1 b/s",
        ));
    }
    if bps >= u64::MAX as f64 {
        return Err(Error::invalid(
            at,
            format!("'{r}'"),
            "a link runs at most 2^64 b/s (about 1.8e7 Tbps)",
        ));
    }
    Ok(())
}

/// A paced source's rate: its gap between packets, 8·size/rate, must be at least the engine's
/// clock tick of 1 ns, or packets would all leave at the same instant and time would stand still.
fn paced_rate(at: &str, r: &Rate, bps: f64, bytes: f64) -> Result<()> {
    let most = 8.0 * bytes * 1e9;
    if bps > most {
        return Err(Error::invalid(
            at,
            format!("'{r}'"),
            format!("must be at most {most:e} b/s: a {bytes} B packet then leaves every 1 ns, the engine's clock tick"),
        ));
    }
    Ok(())
}

/// A size of at least one byte; returns whole bytes (rounded to nearest).
pub(super) fn size_bytes(at: &str, s: &Size, most: f64) -> Result<f64> {
    let b = s.bytes().round_ties_even();
    if b >= 1.0 && b <= most {
        Ok(b)
    } else {
        Err(Error::invalid(
            at,
            format!("'{s}'"),
            format!("must be at least 1 byte and at most {most} bytes"),
        ))
    }
}

/// A buffer of at least one packet, whole packets when counted in packets.
fn packets_limit(at: &str, l: &Limit) -> Result<()> {
    let ok = match l {
        Limit::Packets { packets, .. } => {
            *packets >= 1.0 && packets.fract() == 0.0 && *packets <= u64::MAX as f64
        }
        Limit::Bytes(s) => s.bytes() >= 1.0,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(
            at,
            l.text(),
            "must hold at least one packet, in whole packets (e.g. '50pkts' or '64KB')",
        ))
    }
}

impl Link {
    fn validate(&self, at: &str) -> Result<()> {
        link_rate(&format!("{at}.rate"), &self.rate)?;
        time_ns(&format!("{at}.delay"), &self.delay, true)?;
        self.queue.validate(&format!("{at}.queue"))?;
        if let Some(l) = &self.loss {
            l.validate(&format!("{at}.loss"))?;
        }
        if let Some(j) = &self.jitter {
            j.validate(&format!("{at}.jitter"))?;
        }
        let mut last = None;
        for (i, c) in self.capacity_changes.iter().enumerate() {
            let here = format!("{at}.capacity_changes[{i}]");
            link_rate(&format!("{here}.rate"), &c.rate).map_err(|e| match e {
                Error::InvalidField { field, value, .. } if c.rate.bps() == 0.0 => Error::invalid(
                    field,
                    value,
                    "a link runs at least 1 b/s: an outage is a capacity_trace (a table row \
                     '<time> 0bps')",
                ),
                e => e,
            })?;
            later(&format!("{here}.at"), &c.at, &mut last)?;
        }
        if self.capacity_trace.is_some() && !self.capacity_changes.is_empty() {
            return Err(Error::invalid(
                format!("{at}.capacity_trace"),
                "",
                "give capacity_changes or capacity_trace, not both",
            ));
        }
        Ok(())
    }
}

/// CoDel's TARGET and INTERVAL: both > 0, the target below the interval (RFC 8289 §4.4: the
/// target is 5-10% of the interval).
fn codel_times(at: &str, target: &Time, interval: &Time) -> Result<()> {
    let t = time_ns(&format!("{at}.target"), target, true)?;
    let i = time_ns(&format!("{at}.interval"), interval, true)?;
    if t >= i {
        return Err(Error::invalid(
            format!("{at}.target"),
            format!("'{target}'"),
            format!("must be below interval = '{interval}' (RFC 8289 §4.4: 5-10% of it)"),
        ));
    }
    Ok(())
}

impl Queue {
    fn validate(&self, at: &str) -> Result<()> {
        match self {
            Queue::DropTail(d) => packets_limit(&format!("{at}.limit"), &d.limit),
            Queue::Step(q) => {
                packets_limit(&format!("{at}.limit"), &q.limit)?;
                packets_limit(&format!("{at}.threshold"), &q.threshold)?;
                let below = match (&q.threshold, &q.limit) {
                    (Limit::Packets { packets: k, .. }, Limit::Packets { packets: n, .. }) => k < n,
                    (Limit::Bytes(k), Limit::Bytes(n)) => k.bytes() < n.bytes(),
                    _ => true,
                };
                if below {
                    Ok(())
                } else {
                    Err(Error::invalid(
                        format!("{at}.threshold"),
                        format!("'{}'", q.threshold),
                        format!(
                            "must be below limit = '{}': no packet could be marked",
                            q.limit
                        ),
                    ))
                }
            }
            Queue::CoDel(c) => {
                codel_times(at, &c.target, &c.interval)?;
                packets_limit(&format!("{at}.limit"), &c.limit)?;
                size_bytes(&format!("{at}.mtu"), &c.mtu, u32::MAX as f64).map(|_| ())
            }
            Queue::FqCoDel(f) => {
                count_in(&format!("{at}.flows"), f.flows, 1, 65536)?;
                let q = f.quantum.bytes().round_ties_even();
                if !(256.0..=u32::MAX as f64).contains(&q) {
                    return Err(Error::invalid(
                        format!("{at}.quantum"),
                        format!("'{}'", f.quantum),
                        format!(
                            "must be at least 256 bytes (Linux's smallest) and at most {} bytes",
                            u32::MAX
                        ),
                    ));
                }
                codel_times(at, &f.target, &f.interval)?;
                count_in(&format!("{at}.limit"), f.limit, 1, u32::MAX as u64)?;
                size_bytes(
                    &format!("{at}.memory_limit"),
                    &f.memory_limit,
                    u64::MAX as f64,
                )?;
                count_in(&format!("{at}.drop_batch"), f.drop_batch, 1, 65536)?;
                size_bytes(&format!("{at}.mtu"), &f.mtu, u32::MAX as f64).map(|_| ())
            }
            Queue::Pie(p) => {
                time_ns(&format!("{at}.target"), &p.target, true)?;
                time_ns(&format!("{at}.t_update"), &p.t_update, true)?;
                check_range(&format!("{at}.alpha"), p.alpha, 0.0, 2.0)?;
                check_range(&format!("{at}.beta"), p.beta, 0.0, 2.0)?;
                time_ns(&format!("{at}.burst"), &p.burst, false)?;
                packets_limit(&format!("{at}.limit"), &p.limit)?;
                size_bytes(
                    &format!("{at}.mean_packet_size"),
                    &p.mean_packet_size,
                    u32::MAX as f64,
                )
                .map(|_| ())
            }
            Queue::Red(r) => {
                count_in(&format!("{at}.limit"), r.limit, 1, u32::MAX as u64)?;
                if let Some(lo) = r.min_th.value() {
                    check_range(&format!("{at}.min_th"), lo, 0.0, f64::MAX)?;
                }
                if let Some(hi) = r.max_th.value() {
                    check_positive(&format!("{at}.max_th"), hi)?;
                }
                if let (Some(lo), Some(hi)) = (r.min_th.value(), r.max_th.value()) {
                    if lo >= hi {
                        return Err(Error::invalid(
                            format!("{at}.min_th"),
                            written_number(lo),
                            format!("must be less than max_th = {}", written_number(hi)),
                        ));
                    }
                }
                let above_zero = |name: &str, x: f64| {
                    if x > 0.0 && x <= 1.0 {
                        Ok(())
                    } else {
                        Err(Error::invalid(
                            format!("{at}.{name}"),
                            written_number(x),
                            "must be in (0, 1]",
                        ))
                    }
                };
                above_zero("max_p", r.max_p)?;
                if let Some(w) = r.w_q.value() {
                    above_zero("w_q", w)?;
                }
                size_bytes(
                    &format!("{at}.mean_packet_size"),
                    &r.mean_packet_size,
                    u32::MAX as f64,
                )?;
                Ok(())
            }
        }
    }
}

impl Loss {
    fn validate(&self, at: &str) -> Result<()> {
        match self {
            Loss::Bernoulli(b) => check_range(&format!("{at}.p"), b.p, 0.0, 1.0).map(|_| ()),
            Loss::Periodic(p) => count_in(&format!("{at}.every"), p.every, 1, u64::MAX).map(|_| ()),
            Loss::Schedule(s) => {
                if s.steps.is_empty() {
                    return Err(Error::invalid(
                        format!("{at}.steps"),
                        "[]",
                        "at least one step is needed",
                    ));
                }
                let mut last = None;
                for (i, step) in s.steps.iter().enumerate() {
                    let here = format!("{at}.steps[{i}]");
                    match (step.p, &step.interval) {
                        (Some(p), None) => {
                            check_range(&format!("{here}.p"), p, 0.0, 1.0).map(|_| ())?
                        }
                        (None, Some(t)) => {
                            time_ns(&format!("{here}.interval"), t, true).map(|_| ())?
                        }
                        (p, _) => {
                            let given = if p.is_some() {
                                "both p and interval"
                            } else {
                                "neither p nor interval"
                            };
                            return Err(Error::invalid(here, given, "needs exactly one of p (Bernoulli loss) and interval (one loss per interval)"));
                        }
                    }
                    later(&format!("{here}.at"), &step.at, &mut last)?;
                }
                Ok(())
            }
        }
    }
}

impl Flow {
    fn validate(&self, at: &str, topology: &Topology, nodes: &[String]) -> Result<()> {
        count_in(&format!("{at}.count"), self.count, 1, MAX_FLOWS)?;
        self.source.validate(&format!("{at}.source"))?;
        let start = time_ns(&format!("{at}.start"), &self.start, false)?;
        time_ns(&format!("{at}.start_jitter"), &self.start_jitter, false)?;
        if let Some(stop) = &self.stop {
            if time_ns(&format!("{at}.stop"), stop, false)? <= start {
                return Err(Error::invalid(
                    format!("{at}.stop"),
                    format!("'{stop}'"),
                    format!("must be later than start = '{}'", self.start),
                ));
            }
        }
        if let Some(l) = &self.lifetime {
            time_ns(&format!("{at}.lifetime"), l, true)?;
        }
        if let Some(p) = &self.playback {
            p.validate(&format!("{at}.playback"))?;
        }
        self.validate_retransmit(at)?;
        for (name, d) in [
            ("left_delay", &self.left_delay),
            ("right_delay", &self.right_delay),
        ] {
            if let Some(d) = d {
                time_ns(&format!("{at}.{name}"), d, true)?;
            }
        }
        match topology {
            Topology::Custom(_) => {
                for (name, end) in [("from", &self.from), ("to", &self.to)] {
                    match end {
                        None => {
                            return Err(Error::invalid(
                                format!("{at}.{name}"),
                                "",
                                "a custom topology needs both end nodes",
                            ))
                        }
                        Some(n) if !nodes.contains(n) => {
                            return Err(Error::invalid(
                                format!("{at}.{name}"),
                                format!("'{n}'"),
                                format!("known nodes: {}", nodes.join(", ")),
                            ))
                        }
                        _ => {}
                    }
                }
            }
            _ => {
                if let Some(n) = self.from.as_ref().or(self.to.as_ref()) {
                    let name = if self.from.is_some() { "from" } else { "to" };
                    return Err(Error::invalid(
                        format!("{at}.{name}"),
                        format!("'{n}'"),
                        "from/to name nodes of a custom topology only",
                    ));
                }
            }
        }
        if let Some([first, last]) = self.hops {
            let n = topology.hops() as u64;
            let value = format!("[{first}, {last}]");
            if n == 0 {
                return Err(Error::invalid(
                    format!("{at}.hops"),
                    value,
                    "hops apply to a parking_lot topology only",
                ));
            }
            if first > last || last >= n {
                return Err(Error::invalid(
                    format!("{at}.hops"),
                    value,
                    format!("first <= last, numbered 0..{}", n - 1),
                ));
            }
        }
        Ok(())
    }
}

impl Flow {
    /// FGS retransmission needs a rate source (its receiver carries the NACKs back) and a
    /// playback receiver (which finds the losses).
    fn validate_retransmit(&self, at: &str) -> Result<()> {
        let (fgs, rate) = match &self.source {
            Source::Tcp(Tcp {
                app: Some(App::Fgs(f)),
                ..
            })
            | Source::Udp(Udp {
                app: App::Fgs(f), ..
            }) => (f, false),
            Source::Rate(RateSource {
                app: Some(App::Fgs(f)),
                ..
            }) => (f, true),
            _ => return Ok(()),
        };
        let field = format!("{at}.source.app.retransmit");
        match (fgs.retransmit, rate, &self.playback) {
            (true, false, _) => Err(Error::invalid(
                field,
                "true",
                "needs a rate source (its receiver carries the NACKs back)",
            )),
            (true, true, None) => Err(Error::invalid(
                field,
                "true",
                "needs a playback receiver (playback = { startup = ... }) to find the losses",
            )),
            _ => Ok(()),
        }
    }
}

impl Source {
    fn validate(&self, at: &str) -> Result<()> {
        match self {
            Source::Cbr(p) | Source::Poisson(p) => {
                let bps = rate_bps(&format!("{at}.rate"), &p.rate)?;
                let bytes = size_bytes(
                    &format!("{at}.packet_size"),
                    &p.packet_size,
                    u32::MAX as f64,
                )?;
                paced_rate(&format!("{at}.rate"), &p.rate, bps, bytes)
            }
            Source::Tcp(t) => t.validate(at),
            Source::Rate(r) => r.validate(at),
            Source::Udp(u) => {
                size_bytes(
                    &format!("{at}.packet_size"),
                    &u.packet_size,
                    u32::MAX as f64,
                )?;
                u.app.validate(&format!("{at}.app"))
            }
            Source::Linux(l) => l.validate(at),
            Source::Rtp(r) => r.validate(at),
        }?;
        let app = match self {
            Source::Tcp(t) => t.app.as_ref(),
            Source::Rate(r) => r.app.as_ref(),
            Source::Linux(l) => l.app.as_ref(),
            Source::Rtp(r) => r.app.as_ref(),
            _ => None,
        };
        match app {
            Some(a) => a.validate(&format!("{at}.app")),
            None => Ok(()),
        }
    }
}

impl Tcp {
    fn validate(&self, at: &str) -> Result<()> {
        size_bytes(
            &format!("{at}.packet_size"),
            &self.packet_size,
            u32::MAX as f64,
        )?;
        size_bytes(&format!("{at}.ack_size"), &self.ack_size, u32::MAX as f64)?;
        check_range(
            &format!("{at}.max_window"),
            self.max_window,
            1.0,
            MAX_WINDOW_PKTS,
        )?;
        check_range(
            &format!("{at}.initial_window"),
            self.initial_window,
            1.0,
            MAX_WINDOW_PKTS,
        )?;
        let min = time_ns(&format!("{at}.min_rto"), &self.min_rto, false)?;
        time_ns(&format!("{at}.initial_rto"), &self.initial_rto, true)?;
        let max = time_ns(&format!("{at}.max_rto"), &self.max_rto, true)?;
        if min > max {
            return Err(Error::invalid(
                format!("{at}.min_rto"),
                format!("'{}'", self.min_rto),
                format!("must not exceed max_rto = '{}'", self.max_rto),
            ));
        }
        let tick = time_ns(&format!("{at}.tick"), &self.tick, false)?;
        if tick == 0 && self.rtt_estimator == RttEstimator::Ns2 {
            return Err(Error::invalid(
                format!("{at}.tick"),
                format!("'{}'", self.tick),
                "must be positive with rtt_estimator = \"ns2\", which counts RTTs in ticks",
            ));
        }
        if self.cut_from_whole_window && !self.integer_window {
            return Err(Error::invalid(
                format!("{at}.cut_from_whole_window"),
                "true",
                "needs integer_window = true (ns-2.35 cuts from the whole window only \
                 without precisionReduce_)",
            ));
        }
        if self.prr && (self.variant != TcpVariant::Sack || self.sack_pipe != SackPipe::Scoreboard)
        {
            return Err(Error::invalid(
                format!("{at}.prr"),
                "true",
                "needs variant = \"sack\" and sack_pipe = \"scoreboard\": PRR paces a SACK recovery by RFC 6675's pipe",
            ));
        }
        if self.lost_retransmissions == LostRetransmissions::Rack
            && (self.variant != TcpVariant::Sack || self.sack_pipe != SackPipe::Scoreboard)
        {
            return Err(Error::invalid(
                format!("{at}.lost_retransmissions"),
                "'rack'",
                "needs variant = \"sack\" and sack_pipe = \"scoreboard\": RACK finds a lost retransmission from the SACKs after it",
            ));
        }
        if self.recovery_entry == RecoveryEntry::Lost && self.variant != TcpVariant::Sack {
            return Err(Error::invalid(
                format!("{at}.recovery_entry"),
                "'lost'",
                "needs variant = \"sack\": a packet is found lost from the SACKs above it",
            ));
        }
        if let Some(n) = self.max_backoff {
            count_in(&format!("{at}.max_backoff"), n, 1, 1 << 16)?;
        }
        count_in(
            &format!("{at}.recover_margin"),
            self.recover_margin,
            0,
            1 << 16,
        )?;
        if let Some(n) = self.forget_rtt_above_backoff {
            count_in(&format!("{at}.forget_rtt_above_backoff"), n, 1, 1 << 16)?;
        }
        count_in(
            &format!("{at}.sack_lost_after"),
            self.sack_lost_after,
            1,
            1 << 16,
        )?;
        if let Some(t) = &self.overhead {
            time_ns(&format!("{at}.overhead"), t, false)?;
        }
        time_ns(&format!("{at}.delack"), &self.delack, true)?;
        if let Some(t) = &self.transfer {
            packets_limit(&format!("{at}.transfer"), t)?;
        }
        Ok(())
    }

    /// Packets to transfer (a size rounds up to whole packets), `None` for a bulk transfer.
    pub fn transfer_pkts(&self) -> Option<u64> {
        self.transfer.as_ref().map(|t| match t {
            Limit::Packets { packets, .. } => *packets as u64,
            Limit::Bytes(s) => ((s.bytes() / self.packet_size.bytes()).ceil() as u64).max(1),
        })
    }
}

/// A rate-controlled source's `min_rate` (at most [`MAX_RATE_BPS`]) and `initial_rate` (at
/// least the floor: `min_rate`, by default one packet of `bytes` per [`T_MBI_S`]).
pub(super) fn rate_bounds(
    at: &str,
    bytes: f64,
    min_rate: Option<&Rate>,
    initial_rate: Option<&Rate>,
) -> Result<()> {
    let floor = match min_rate {
        Some(r) => {
            let bps = rate_bps(&format!("{at}.min_rate"), r)?;
            if bps > MAX_RATE_BPS {
                return Err(Error::invalid(
                    format!("{at}.min_rate"),
                    format!("'{r}'"),
                    format!("must be at most {MAX_RATE_BPS:e} b/s"),
                ));
            }
            bps
        }
        None => 8.0 * bytes / T_MBI_S,
    };
    if let Some(r) = initial_rate {
        let bps = rate_bps(&format!("{at}.initial_rate"), r)?;
        if !(floor..=MAX_RATE_BPS).contains(&bps) {
            return Err(Error::invalid(
                format!("{at}.initial_rate"),
                format!("'{r}'"),
                format!("must be in [{floor} b/s, {MAX_RATE_BPS:e} b/s]: at least min_rate (default one packet per {T_MBI_S} s)"),
            ));
        }
    }
    Ok(())
}

impl RateSource {
    fn validate(&self, at: &str) -> Result<()> {
        let bytes = size_bytes(
            &format!("{at}.packet_size"),
            &self.packet_size,
            u32::MAX as f64,
        )?;
        if let Some(s) = &self.report_size {
            size_bytes(&format!("{at}.report_size"), s, u32::MAX as f64)?;
        }
        rate_bounds(
            at,
            bytes,
            self.min_rate.as_ref(),
            self.initial_rate.as_ref(),
        )?;
        count_in(&format!("{at}.bunch"), self.bunch, 0, MAX_BUNCH_PKTS)?;
        // ISCC's steps follow the bottleneck's capacity C (Loguinov & Radha (39), (41)): given
        // as `capacity`, or estimated by the receiver from bunches of at least 3 packets
        // (§VI-B). With neither it never learns C and holds its starting rate for good.
        if let ControllerRef::Catalogued { name, params } = &self.controller {
            if name == "iscc" && !params.contains_key("capacity") && self.bunch < 3 {
                return Err(Error::invalid(
                    format!("{at}.bunch"),
                    self.bunch,
                    "at least 3 for iscc without controller.capacity: ISCC learns the bottleneck's capacity from the receiver's packet-bunch estimate, and without one it never leaves its starting rate",
                ));
            }
        }
        check_range(&format!("{at}.jitter"), self.jitter, 0.0, MAX_JITTER)?;
        if matches!(self.controller, ControllerRef::Python(_)) && self.feedback.is_none() {
            return Err(Error::invalid(
                format!("{at}.feedback"),
                "",
                "a Python rate controller needs `feedback` (per-rtt, per-packet, tfrc, tfrc-ns2, tfrc-2000 or tear): the receiver it expects",
            ));
        }
        Ok(())
    }
}
