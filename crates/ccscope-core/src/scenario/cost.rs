//! What a run will cost before it starts: simulator events (packet model) or flow-steps (round
//! model), and memory. A scenario whose estimate is beyond what a run can finish in reasonable
//! time or memory is refused with the estimate in the message, unless the caller says to go on
//! anyway (`--force`, `force=True`).
//!
//! The estimates are upper bounds built from the scenario alone, so that they never depend on
//! the run itself:
//! - an open-loop source (CBR, Poisson) sends `rate / (8·size)` packets per second while it is
//!   active; at most the path's slowest link's rate of them are carried past the first hop;
//! - a window-controlled flow (TCP) sends at most `w / RTT0` packets per second (`w` the
//!   receiver window, and with random loss p on its path at most `8/p`, which bounds every
//!   catalogued control: TCP's `1.22/√p`, HSTCP's `0.12/p^0.835`, Scalable TCP's `0.08/p`),
//!   and no faster than its path's slowest link;
//! - a rate-controlled flow sends no faster than its path's slowest link;
//! - the closed-loop flows sharing a bottleneck together send at most twice its rate
//!   (overshoot before the losses bring them back).
//!
//! Each packet costs an event per send and two per link it crosses (end of serialization,
//! arrival); acknowledgments and reports likewise on the way back. An application's own timers
//! cost an event each: an ON/OFF or square-wave source's two per period (so periods of 1 ns
//! are counted, though they carry no packet), a video source's one per frame, a multirate
//! source's one per `tau`.

use super::media::App;
use super::packet::{Link, Loss, Queue, Scenario, Source, Topology};
use super::round::RoundScenario;
use super::Engine;
use crate::error::{Error, Result};
use crate::units::Time;

/// Most events (packet model) or flow-steps (round model) a run is allowed without `force`:
/// at the engines' 1e7 per second on one core, more than half an hour.
pub const MAX_WORK: f64 = 2e10;

/// Most memory a run is allowed without `force` (bytes).
pub const MAX_BYTES: f64 = 8e9;

/// Rough speed of both engines, for the time given in messages (events or flow-steps per s).
const WORK_PER_S: f64 = 1e7;

/// What one packet-model flow costs, bytes: its state in the engine (endpoints, statistics,
/// routes: about 2 KB) and its records in the result and in summary.json, one per flow and
/// one per access link, which a written run builds as Python objects and JSON text. Measured:
/// `ccscope run` of 100 000 TCP flows on a dumbbell for 1 ms peaked at 2.24 GB (22 KB a flow);
/// of 20 000 CUBIC flows of 5 s each, started over 100 s, 16.8 KB a flow above 1000 such flows.
const FLOW_BYTES: f64 = 24_000.0;

/// What a sender keeps per packet outstanding (its sent-packet record in a ring that doubles
/// as it grows), bytes: a TCP sender's first window of `initial_window` packets leaves at once,
/// whatever the path, so a window of 1e9 is 1e9 records and sends.
const OUTSTANDING_BYTES: f64 = 16.0;

/// Bytes per (bin, flow) and per (bin, link) of a trace, counting the copies handed to Python.
const FLOW_BIN_BYTES: f64 = 3.0 * 72.0;
const LINK_BIN_BYTES: f64 = 3.0 * 48.0;
/// Bytes per traced drop event, counting the copies handed to Python.
const EVENT_BYTES: f64 = 3.0 * 17.0;
/// Bytes per state-trace row (time, flow, side, field, value), counting the copies handed to
/// Python.
const STATE_ROW_BYTES: f64 = 3.0 * 23.0;
/// State-trace rows per event: a packet costs at least five events (a send, two per link over
/// at least two links) and at most three endpoint callbacks (a send timer, its arrival, the
/// reply's arrival), and a callback changes about three values (a TCP ACK: window, RTT, RTO;
/// a TFRC receiver's packet: p; a rate sender's report: up to seven).
const STATE_ROWS_PER_EVENT: f64 = 3.0 / 5.0 * 3.0;
/// Bytes per delay-trace row (time, flow, delay), counting the copies handed to Python; a
/// delivered packet costs at least five events (as above), so at most one row per five.
const DELAY_ROW_BYTES: f64 = 3.0 * 20.0;
const DELAY_ROWS_PER_EVENT: f64 = 1.0 / 5.0;

/// State an FQ-CoDel link keeps per queue of its `flows` (its record and its backlog), bytes.
const FQ_CODEL_QUEUE_BYTES: f64 = 72.0;

/// The state the queues of a topology keep of their own, bytes: FQ-CoDel's queues, on every
/// link that has one (each way of a mirrored link; each flow's four access links).
fn queue_bytes(t: &Topology, n_flows: f64) -> f64 {
    let of = |q: &Queue| match q {
        Queue::FqCoDel(f) => f.flows as f64 * FQ_CODEL_QUEUE_BYTES,
        _ => 0.0,
    };
    let access = |l: &Link| 4.0 * n_flows * of(&l.queue);
    match t {
        Topology::Dumbbell(d) => {
            let reverse = d
                .reverse
                .as_ref()
                .map_or(of(&d.bottleneck.queue), |r| of(&r.queue));
            of(&d.bottleneck.queue) + reverse + access(&d.access)
        }
        Topology::FatLink(f) => queue_bytes(&Topology::Dumbbell(f.dumbbell()), n_flows),
        Topology::ParkingLot(p) => {
            p.hops.iter().map(|h| 2.0 * of(&h.queue)).sum::<f64>() + access(&p.access)
        }
        Topology::Custom(c) => c
            .links
            .iter()
            .map(|l| of(&l.queue) * if l.duplex { 2.0 } else { 1.0 })
            .sum(),
    }
}

/// What one round-model flow costs, bytes: its state in the engine (about 256 B) and its
/// record in the result and in summary.json, built as Python objects and JSON text. Measured:
/// `ccscope run` of 1 000 000 TCP flows for 100 steps peaked at 2.67 GB (2.6 KB a flow).
const ROUND_FLOW_BYTES: f64 = 3_000.0;
/// Bytes per recorded step of the aggregate series, and per recorded per-flow value.
const ROUND_STEP_BYTES: f64 = 3.0 * 8.0 * 8.0;
const ROUND_VALUE_BYTES: f64 = 3.0 * 8.0;

/// The estimate of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Cost {
    /// Events (packet model) or flow-steps (round model).
    pub work: f64,
    /// What `work` counts, for messages.
    pub unit: &'static str,
    pub bytes: f64,
    /// The entry that contributes most (path as written, value as written), named in a refusal.
    pub blame: (String, String),
    /// Wall time the run takes whatever the machine: its duration when it runs in real time
    /// (`run.engine = "udp"`), 0 for the simulated engines.
    pub wall_s: f64,
}

impl Cost {
    /// Refuses a run beyond [`MAX_WORK`] or [`MAX_BYTES`], saying what it would cost.
    pub fn check(&self) -> Result<()> {
        if self.work <= MAX_WORK && self.bytes <= MAX_BYTES {
            return Ok(());
        }
        let (field, value) = self.blame.clone();
        Err(Error::TooCostly {
            field: field.into(),
            value,
            estimate: format!(
                "the run would take about {} {} (~{} at {WORK_PER_S:.0e}/s) and {} of memory; at most {MAX_WORK:.0e} {} and {} run unless forced (CLI --force, Python force=True)",
                sci(self.work),
                self.unit,
                duration(self.work / WORK_PER_S),
                size(self.bytes),
                self.unit,
                size(MAX_BYTES),
            ),
        })
    }

    /// A short description: "about 2.1e6 events, 12 MB" (and "in real time: 5 s").
    pub fn describe(&self) -> String {
        let real_time = if self.wall_s > 0.0 {
            format!(", in real time: {}", duration(self.wall_s))
        } else {
            String::new()
        };
        format!(
            "about {} {}, {}{real_time}",
            sci(self.work),
            self.unit,
            size(self.bytes)
        )
    }
}

fn sci(x: f64) -> String {
    if x < 1e4 {
        format!("{x:.0}")
    } else {
        format!("{x:.1e}")
    }
}

fn size(b: f64) -> String {
    let mut x = b;
    for unit in ["B", "KB", "MB", "GB", "TB"] {
        if x < 1000.0 {
            return format!("{x:.0} {unit}");
        }
        x /= 1000.0;
    }
    format!("{} PB", sci(x))
}

fn duration(s: f64) -> String {
    match s {
        s if s < 120.0 => format!("{s:.0} s"),
        s if s < 7200.0 => format!("{:.0} min", s / 60.0),
        s if s < 2.0 * 86400.0 => format!("{:.0} h", s / 3600.0),
        s if s < 2.0 * 3.156e7 => format!("{:.0} days", s / 86400.0),
        s => format!("{} years", sci(s / 3.156e7)),
    }
}

fn secs(t: &Time) -> f64 {
    t.secs()
}

/// What a flow's path looks like: links crossed, slowest rate (b/s), one-way delay (s), and
/// the highest random loss on it.
struct Path {
    hops: f64,
    rate_bps: f64,
    delay_s: f64,
    loss: f64,
}

fn loss_p(l: &Option<Loss>) -> f64 {
    match l {
        None => 0.0,
        Some(Loss::Bernoulli(b)) => b.p,
        Some(Loss::Periodic(p)) => 1.0 / p.every as f64,
        // None lost before the first step.
        Some(Loss::Schedule(_)) => 0.0,
    }
}

/// A link's highest rate over its capacity changes.
fn top_rate(l: &super::packet::Link) -> f64 {
    l.capacity_changes
        .iter()
        .map(|c| c.rate.bps())
        .fold(l.rate.bps(), f64::max)
}

/// Where the flows' traffic is bounded: (rate of the links the closed-loop flows share, b/s,
/// one per direction).
fn shared_rate(t: &Topology) -> [f64; 2] {
    match t {
        Topology::Dumbbell(d) => {
            let fwd = top_rate(&d.bottleneck);
            [fwd, d.reverse.as_ref().map_or(fwd, top_rate)]
        }
        Topology::FatLink(f) => shared_rate(&Topology::Dumbbell(f.dumbbell())),
        Topology::ParkingLot(p) => {
            let all: f64 = p.hops.iter().map(top_rate).sum();
            [all, all]
        }
        Topology::Custom(c) => {
            let all: f64 = c
                .links
                .iter()
                .map(|l| top_rate(&l.link()) * if l.duplex { 2.0 } else { 1.0 })
                .sum();
            [all, all]
        }
    }
}

fn path(t: &Topology, f: &super::packet::Flow) -> Path {
    match t {
        Topology::Dumbbell(d) => {
            let middle = if f.reverse {
                d.reverse.as_ref().unwrap_or(&d.bottleneck)
            } else {
                &d.bottleneck
            };
            let access = secs(&d.access.delay);
            let ends = f.left_delay.as_ref().map_or(access, secs)
                + f.right_delay.as_ref().map_or(access, secs);
            Path {
                hops: 3.0,
                rate_bps: top_rate(middle).min(top_rate(&d.access)),
                delay_s: ends + secs(&middle.delay),
                loss: loss_p(&middle.loss),
            }
        }
        Topology::FatLink(fat) => path(&Topology::Dumbbell(fat.dumbbell()), f),
        Topology::ParkingLot(p) => {
            let [first, last] = f.hops.unwrap_or([0, p.hops.len().saturating_sub(1) as u64]);
            let crossed = &p.hops[first as usize..=(last as usize).min(p.hops.len() - 1)];
            let access = secs(&p.access.delay);
            let ends = f.left_delay.as_ref().map_or(access, secs)
                + f.right_delay.as_ref().map_or(access, secs);
            Path {
                hops: 2.0 + crossed.len() as f64,
                rate_bps: crossed
                    .iter()
                    .map(top_rate)
                    .fold(top_rate(&p.access), f64::min),
                delay_s: ends + crossed.iter().map(|h| secs(&h.delay)).sum::<f64>(),
                loss: crossed.iter().map(|h| loss_p(&h.loss)).fold(0.0, f64::max),
            }
        }
        // Routes are not known here: at most every link, at the fastest link's rate, over the
        // shortest delay.
        Topology::Custom(c) => Path {
            hops: c.links.len() as f64,
            rate_bps: c
                .links
                .iter()
                .map(|l| top_rate(&l.link()))
                .fold(0.0, f64::max),
            delay_s: c
                .links
                .iter()
                .map(|l| secs(&l.delay))
                .fold(f64::INFINITY, f64::min),
            loss: 0.0,
        },
    }
}

/// Packets per second and bytes of a flow's own estimate (before sharing).
struct FlowLoad {
    /// Events of the flow's application's timers over the run, whatever it sends.
    timers: f64,
    /// Packets sent over the run.
    sent: f64,
    /// Of which carried past the first hop.
    carried: f64,
    /// Replies (ACKs, reports) per packet carried.
    replies: f64,
    hops: f64,
    closed_loop: bool,
    direction: usize,
    /// Packets sent at once at the start (a TCP sender's first window), on top of `sent`:
    /// not bounded by the path, so not scaled with the other closed-loop flows.
    burst: f64,
}

fn flow_load(s: &Scenario, f: &super::packet::Flow) -> FlowLoad {
    let duration = secs(&s.run.duration);
    let start = secs(&f.start).min(duration);
    let active = f.stop.as_ref().map_or(duration, |t| secs(t).min(duration)) - start;
    let p = path(&s.topology, f);
    let direction = usize::from(f.reverse);
    let path_pps = |size: f64| p.rate_bps / (8.0 * size);
    let load = match &f.source {
        Source::Cbr(x) | Source::Poisson(x) => {
            let pps = x.rate.bps() / (8.0 * x.packet_size.bytes());
            FlowLoad {
                timers: 0.0,
                sent: pps * active,
                carried: pps.min(path_pps(x.packet_size.bytes())) * active,
                replies: 0.0,
                hops: p.hops,
                closed_loop: false,
                direction,
                burst: 0.0,
            }
        }
        Source::Tcp(t) => {
            let loss_bound = if p.loss > 0.0 {
                8.0 / p.loss
            } else {
                f64::INFINITY
            };
            let window = t.max_window.min(loss_bound);
            let rtt = (2.0 * p.delay_s).max(1e-9);
            let mut sent = (window / rtt).min(path_pps(t.packet_size.bytes())) * active;
            if let Some(n) = t.transfer_pkts() {
                sent = sent.min(2.0 * n as f64);
            }
            FlowLoad {
                timers: 0.0,
                sent,
                carried: sent,
                replies: if t.delayed_ack { 0.5 } else { 1.0 },
                hops: p.hops,
                closed_loop: true,
                direction,
                burst: t.initial_window.min(t.max_window),
            }
        }
        Source::Rate(r) => {
            let sent = path_pps(r.packet_size.bytes()) * active;
            FlowLoad {
                timers: 0.0,
                sent,
                carried: sent,
                replies: 1.0,
                hops: p.hops,
                closed_loop: true,
                direction,
                burst: 0.0,
            }
        }
        Source::Linux(l) => {
            // The kernel's TCP runs outside the emulator's event loop: only its packets count.
            let mut sent = path_pps(l.packet_size.bytes()) * active;
            if let Some(b) = l.transfer_bytes() {
                sent = sent.min(2.0 * b as f64 / l.packet_size.bytes());
            }
            FlowLoad {
                timers: 0.0,
                sent,
                carried: sent,
                replies: 1.0,
                hops: p.hops,
                closed_loop: true,
                direction,
                // Linux's initial window of 10 segments (RFC 6928).
                burst: 10.0,
            }
        }
        Source::Rtp(r) => {
            let size = r.packet_size.bytes();
            let pps = (app_peak_bps(&rtp_app(r)) / (8.0 * size)).min(path_pps(size));
            // Feedback at most once a frame (30 a second) or once a packet.
            let reports = (RTP_FEEDBACK_PER_S / pps.max(1e-9)).min(1.0);
            FlowLoad {
                timers: 0.0,
                sent: pps * active,
                carried: pps * active,
                replies: reports,
                hops: p.hops,
                closed_loop: true,
                direction,
                burst: 0.0,
            }
        }
        Source::Udp(u) => {
            let pps = app_peak_bps(&u.app) / (8.0 * u.packet_size.bytes());
            FlowLoad {
                timers: 0.0,
                sent: pps * active,
                carried: pps.min(path_pps(u.packet_size.bytes())) * active,
                replies: 0.0,
                hops: p.hops,
                closed_loop: false,
                direction,
                burst: 0.0,
            }
        }
    };
    let timers = match &f.source {
        Source::Rtp(r) => app_timers(Some(&rtp_app(r)), active),
        other => app_timers(source_app(other), active),
    };
    FlowLoad { timers, ..load }
}

/// Feedback packets a media flow's receiver sends a second, at most (one per frame at 30
/// frames/s, the encoder's default).
const RTP_FEEDBACK_PER_S: f64 = 30.0;

/// A media flow's application: its own, else the default encoder.
fn rtp_app(r: &super::media::Rtp) -> App {
    r.app
        .clone()
        .unwrap_or_else(|| App::Encoder(super::media::Encoder::default()))
}

/// A source's application, when it has one.
fn source_app(source: &Source) -> Option<&App> {
    match source {
        Source::Tcp(t) => t.app.as_ref(),
        Source::Rate(r) => r.app.as_ref(),
        Source::Udp(u) => Some(&u.app),
        Source::Rtp(r) => r.app.as_ref(),
        Source::Cbr(_) | Source::Poisson(_) | Source::Linux(_) => None,
    }
}

/// Events an application's own timers take while it is active for `active` seconds.
fn app_timers(app: Option<&App>, active: f64) -> f64 {
    let per_s = match app {
        None => 0.0,
        Some(App::Onoff(o)) => 2.0 / (o.on.secs() + o.off.secs()).max(1e-9),
        Some(App::Square(q)) => 2.0 / (q.on.secs() + q.off.secs()).max(1e-9),
        Some(App::Mpeg4(v)) => v.fps,
        Some(App::Fgs(f)) => f.fps,
        Some(App::Multirate(m)) => 1.0 / m.tau.secs().max(1e-9),
        Some(App::Encoder(e)) => e.fps,
    };
    per_s * active
}

/// The entry that sets how often a source's application's timers fire (key in its `app`,
/// value as written).
fn app_period(source: &Source) -> Option<(&'static str, String)> {
    Some(match source_app(source)? {
        App::Onoff(o) => ("on", format!("'{}'", o.on)),
        App::Square(q) => ("on", format!("'{}'", q.on)),
        App::Mpeg4(v) => ("fps", v.fps.to_string()),
        App::Fgs(f) => ("fps", f.fps.to_string()),
        App::Multirate(m) => ("tau", format!("'{}'", m.tau)),
        App::Encoder(e) => ("fps", e.fps.to_string()),
    })
}

/// The most an application offers per second over UDP: its ON rate, its top layer, or (MPEG-4)
/// twice its mean frame rate in bits, which the TES marginals exceed only briefly.
fn app_peak_bps(app: &App) -> f64 {
    match app {
        App::Onoff(o) => o.rate.bps(),
        App::Square(q) => q.rate.bps(),
        App::Fgs(f) => f.max.bps(),
        App::Multirate(m) => m.initial_rate.bps(),
        App::Encoder(e) => e.max_rate.bps(),
        App::Mpeg4(v) => {
            let frames = v.gop.chars().count().max(1) as f64;
            let gop_bytes: f64 = v
                .gop
                .chars()
                .map(|c| v.frame_type(c).map_or(0.0, |t| t.mean.bytes()))
                .sum();
            2.0 * 8.0 * gop_bytes / frames * v.fps
        }
    }
}

fn smallest_packet(s: &Scenario) -> f64 {
    s.flows
        .iter()
        .map(|f| match &f.source {
            Source::Cbr(x) | Source::Poisson(x) => x.packet_size.bytes(),
            Source::Tcp(t) => t.packet_size.bytes(),
            Source::Rate(r) => r.packet_size.bytes(),
            Source::Udp(u) => u.packet_size.bytes(),
            Source::Linux(l) => l.packet_size.bytes(),
            Source::Rtp(r) => r.packet_size.bytes(),
        })
        .fold(f64::INFINITY, f64::min)
        .max(1.0)
}

impl Scenario {
    /// The estimate of this run: events and memory (see the module's documentation).
    pub fn cost(&self) -> Cost {
        let loads: Vec<(usize, FlowLoad)> = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| (i, flow_load(self, f)))
            .collect();
        // Closed-loop flows together send at most twice what their shared links carry.
        let duration = secs(&self.run.duration);
        let shared = shared_rate(&self.topology);
        let mut scale = [1.0; 2];
        for (d, s) in scale.iter_mut().enumerate() {
            let wanted: f64 = loads
                .iter()
                .filter(|(_, l)| l.closed_loop && l.direction == d)
                .map(|(i, l)| l.sent * self.flows[*i].count as f64)
                .sum();
            let most = 2.0 * shared[d] / (8.0 * smallest_packet(self)) * duration;
            if wanted > most {
                *s = most / wanted;
            }
        }
        let mut work = 0.0;
        let mut drops = 0.0;
        let mut outstanding = 0.0;
        let mut blame = (0.0, 0, false);
        let mut burst_blame = (0.0, 0);
        for (i, l) in &loads {
            let k = if l.closed_loop {
                scale[l.direction]
            } else {
                1.0
            };
            let n = self.flows[*i].count as f64;
            let per_flow = l.timers
                + k * (l.sent
                    + 2.0 * l.hops * l.carried * (1.0 + l.replies)
                    + l.carried * l.replies);
            // A burst: a send and an arrival (or drop) at the first hop per packet.
            work += n * (per_flow + 2.0 * l.burst);
            drops += n * k * (l.sent - l.carried + 0.2 * l.carried);
            outstanding += n * l.burst;
            if n * per_flow > blame.0 {
                blame = (n * per_flow, *i, l.timers > 0.5 * per_flow);
            }
            if n * l.burst > burst_blame.0 {
                burst_blame = (n * l.burst, *i);
            }
        }
        let n_flows = self.flows.iter().map(|f| f.count as f64).sum::<f64>();
        let mut bytes = n_flows * FLOW_BYTES
            + outstanding * OUTSTANDING_BYTES
            + queue_bytes(&self.topology, n_flows);
        if let Some(t) = &self.trace {
            let bins = duration / secs(&t.interval).max(1e-9) + 1.0;
            work += bins;
            let links = match &self.topology {
                Topology::Dumbbell(_) | Topology::FatLink(_) => 2.0,
                Topology::ParkingLot(p) => 2.0 * p.hops.len() as f64,
                Topology::Custom(c) => c
                    .links
                    .iter()
                    .filter(|l| l.monitor)
                    .map(|l| if l.duplex { 2.0 } else { 1.0 })
                    .sum(),
            };
            if t.flows {
                bytes += bins * n_flows * FLOW_BIN_BYTES;
            }
            if t.queues {
                bytes += bins * links * LINK_BIN_BYTES;
            }
            if t.events {
                bytes += drops * EVENT_BYTES;
            }
            if t.state {
                bytes += work * STATE_ROWS_PER_EVENT * STATE_ROW_BYTES;
            }
            if t.delays {
                bytes += work * DELAY_ROWS_PER_EVENT * DELAY_ROW_BYTES;
            }
        }
        let blame_work = blame.0;
        let flow = &self.flows[blame.1];
        let (field, value) = if flow.count > 1 {
            (format!("flows[{}].count", blame.1), flow.count.to_string())
        } else {
            (
                "run.duration".to_string(),
                format!("'{}'", self.run.duration),
            )
        };
        let blame = match (&flow.source, app_period(&flow.source)) {
            (_, Some((key, value))) if blame.2 && flow.count == 1 => {
                (format!("flows[{}].source.app.{key}", blame.1), value)
            }
            (Source::Cbr(x) | Source::Poisson(x), _) if flow.count == 1 => (
                format!("flows[{}].source.rate", blame.1),
                format!("'{}'", x.rate),
            ),
            _ => (field, value),
        };
        // A first window is to blame when it costs more of what runs out (memory, else
        // events) than the flows' records or their other work.
        let burst_costs_most = if bytes > MAX_BYTES {
            outstanding * OUTSTANDING_BYTES > n_flows * FLOW_BYTES
        } else {
            2.0 * burst_blame.0 > blame_work
        };
        let blame = match &self.flows[burst_blame.1].source {
            Source::Tcp(t) if burst_costs_most => (
                format!("flows[{}].source.initial_window", burst_blame.1),
                format!("{:?}", t.initial_window),
            ),
            _ => blame,
        };
        let wall_s = if self.run.engine == Engine::Udp {
            duration
        } else {
            0.0
        };
        Cost {
            work,
            unit: "events",
            bytes,
            blame,
            wall_s,
        }
    }
}

impl RoundScenario {
    /// The estimate of this run: flow-steps and memory.
    pub fn cost(&self) -> Cost {
        let n = self.n_flows() as f64;
        let steps = self.run.steps as f64;
        let work = steps * n.max(1.0);
        let mut bytes = n * ROUND_FLOW_BYTES;
        if self.record.every > 0 {
            let recorded = (steps / self.record.every as f64).ceil();
            bytes += recorded * ROUND_STEP_BYTES;
            if self.record.flows {
                bytes += recorded * n * ROUND_VALUE_BYTES;
            }
        }
        let flows_bytes = n * ROUND_FLOW_BYTES;
        let blame = if bytes > MAX_BYTES && 2.0 * flows_bytes >= bytes {
            // The flows' records are most of the memory: the largest group is to blame.
            let (i, count) = self
                .flows
                .iter()
                .map(|g| g.count)
                .enumerate()
                .max_by_key(|&(_, c)| c)
                .unwrap_or((0, 0));
            (format!("flows[{i}].count"), count.to_string())
        } else if bytes > MAX_BYTES && self.record.every > 0 {
            ("record.every".to_string(), self.record.every.to_string())
        } else {
            ("run.steps".to_string(), self.run.steps.to_string())
        };
        Cost {
            work,
            unit: "flow-steps",
            bytes,
            blame,
            wall_s: 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::scenario::read;

    fn cost(v: serde_json::Value) -> Cost {
        read(v).unwrap().cost()
    }

    fn cbr(rate: &str, count: u64, duration: &str) -> serde_json::Value {
        json!({
            "run": {"duration": duration},
            "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
            "flows": [{"source": {"kind": "cbr", "rate": rate}, "count": count}],
        })
    }

    #[test]
    fn an_open_loop_source_costs_a_send_per_packet_and_two_events_per_link_carried() {
        // 1 Mb/s of 1000 B packets for 10 s: 1250 sends, all carried over 3 links.
        let c = cost(cbr("1Mbps", 1, "10s"));
        assert_eq!(c.work, 1250.0 * (1.0 + 2.0 * 3.0));
        assert!(c.check().is_ok());
    }

    #[test]
    fn what_cannot_finish_is_refused_naming_the_entry_and_the_estimate() {
        let e = cost(cbr("8Tbps", 1, "100s")).check().unwrap_err();
        let Error::TooCostly {
            field,
            value,
            estimate,
        } = e
        else {
            panic!("{e:?}")
        };
        assert_eq!(
            (field.to_string().as_str(), value.as_str()),
            ("flows[0].source.rate", "'8Tbps'")
        );
        assert!(estimate.contains("1.0e11 events"), "{estimate}");
        let e = cost(cbr("1Mbps", 1_000_000, "60s")).check().unwrap_err();
        assert!(
            matches!(e, Error::TooCostly { ref field, .. } if field.to_string() == "flows[0].count"),
            "{e:?}"
        );
    }

    #[test]
    fn closed_loop_flows_together_send_at_most_twice_their_bottleneck() {
        // 1000 TCP flows on 10 Mb/s for 100 s: at most 2 × 1250 packets/s between them.
        let v = json!({
            "run": {"duration": "100s"},
            "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
            "flows": [{"source": {"kind": "tcp"}, "count": 1000}],
        });
        let per_packet = 1.0 + 2.0 * 3.0 * 2.0 + 1.0;
        // ... and each its first window of one packet, sent and met at the first hop.
        let first_windows = 2.0 * 1000.0;
        assert!(cost(v).work <= (2.0 * 1250.0 * 100.0 * per_packet + first_windows) * (1.0 + 1e-9));
    }

    #[test]
    fn a_first_window_leaves_at_once_whatever_the_path() {
        // ns-2's windowInit_ of a billion packets: a billion sends and sent-packet records at
        // the start, beyond the memory a run gets unless forced; the window is named.
        let v = json!({
            "run": {"duration": "10s"},
            "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "20ms"}},
            "flows": [{"source": {"kind": "tcp", "initial_window": 1e9, "max_window": 1e9}}],
        });
        let e = cost(v).check().unwrap_err();
        assert!(
            matches!(e, Error::TooCostly { ref field, ref value, .. }
                if field.to_string() == "flows[0].source.initial_window" && value == "1000000000.0"),
            "{e:?}"
        );
    }

    #[test]
    fn the_most_flows_for_a_moment_are_refused_for_their_records() {
        // The schema's most flows (10^6) for 1 ms: few events, but a record each in the result.
        let v = json!({
            "run": {"duration": "1ms"},
            "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "20ms"}},
            "flows": [{"source": {"kind": "tcp"}, "count": 1_000_000}],
        });
        let e = cost(v).check().unwrap_err();
        assert!(
            matches!(e, Error::TooCostly { ref field, .. } if field.to_string() == "flows[0].count"),
            "{e:?}"
        );
        let v = json!({
            "run": {"engine": "round", "steps": 100},
            "link": {"capacity_pkts": 100},
            "flows": [{"controller": "tcp", "count": 10_000_000}],
        });
        assert!(cost(v).check().is_err());
    }

    #[test]
    fn fq_codel_counts_its_queues_on_every_link_that_has_one() {
        let with = |bottleneck: serde_json::Value, access: serde_json::Value| {
            json!({
                "run": {"duration": "10s"},
                "topology": {"kind": "dumbbell", "access": access,
                             "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": bottleneck}},
                "flows": [{"source": {"kind": "tcp"}, "count": 100}],
            })
        };
        let access = json!({"rate": "1Gbps", "delay": "1ms"});
        let plain = cost(with(json!({"kind": "droptail"}), access.clone())).bytes;
        // Both directions of the bottleneck, 1024 queues each.
        let fq = cost(with(json!({"kind": "fq_codel"}), access)).bytes;
        assert_eq!(fq - plain, 2.0 * 1024.0 * FQ_CODEL_QUEUE_BYTES);
        // Every flow's four access links, 16 queues each.
        let small =
            json!({"rate": "1Gbps", "delay": "1ms", "queue": {"kind": "fq_codel", "flows": 16}});
        let at_access = cost(with(json!({"kind": "droptail"}), small)).bytes;
        assert_eq!(at_access - plain, 100.0 * 4.0 * 16.0 * FQ_CODEL_QUEUE_BYTES);
    }

    #[test]
    fn an_applications_timers_are_counted_even_when_it_sends_nothing() {
        // A square wave of 1 ns ON and OFF toggles 1e9 times a second, whatever its rate: 100 s
        // of it cannot finish, and the refusal names the period.
        let square = |on: &str| {
            json!({
                "run": {"duration": "100s"},
                "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
                "flows": [{"source": {"kind": "udp", "app": {"kind": "square", "rate": "1kbps", "on": on, "off": on}}}],
            })
        };
        let e = cost(square("1ns")).check().unwrap_err();
        assert!(
            matches!(e, Error::TooCostly { ref field, ref value, .. }
                if field.to_string() == "flows[0].source.app.on" && value == "'1ns'"),
            "{e:?}"
        );
        // Periods of 1 s: 100 toggles beside the packets.
        let slow = cost(square("1s"));
        assert!(slow.check().is_ok() && slow.work < 1000.0, "{slow:?}");
        // An MPEG-4 source's frames are its timers: 25 a second.
        let v = json!({
            "run": {"duration": "10s"},
            "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
            "flows": [{"source": {"kind": "udp", "app": {"kind": "mpeg4", "gop": "IPP",
                "i": {"mean": "1B", "cov": 0.1, "lag1": 0.1},
                "p": {"mean": "1B", "cov": 0.1, "lag1": 0.1}}}}],
        });
        assert!(cost(v).work >= 250.0);
    }

    #[test]
    fn the_round_model_costs_flow_steps_and_its_records() {
        let v = json!({
            "run": {"engine": "round", "steps": 10_000_000_000u64},
            "link": {"capacity": "1Mbps", "rtt": "100ms"},
            "flows": [{"controller": "rate-aimd"}],
            "record": {"every": 1},
        });
        let c = cost(v);
        assert_eq!(c.work, 1e10);
        assert!(c.bytes > 1e11);
        assert!(
            matches!(c.check(), Err(Error::TooCostly { ref field, .. }) if field.to_string() == "record.every")
        );
    }
}
