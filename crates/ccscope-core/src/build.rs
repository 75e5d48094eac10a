//! Scenario → simulation: the only place that knows both the schema ([`crate::scenario`]) and
//! the engines. It turns a validated scenario into each engine's parameters in its own units
//! (nanoseconds, bits/s, whole bytes), expands flow counts, and resolves each flow's controller
//! against the catalogue, once per scenario entry: the one check only the catalogue can make,
//! named by the scenario's paths. The engine forms declare no defaults of their own: their
//! default constructors (`TcpSpec::default()`, `RateSourceSpec::new`, `QueueSpec::red`) are
//! the scenario's defaults lowered here.

use std::sync::Arc;

use crate::apps::{
    Bulk, Cbr, Consumption, Encoder, EncoderSpec, Fgs, Finite, FrameLedger, FrameMeter, FrameStats,
    Mpeg4, Multirate, OnMode, OnOff, Period, Playback, PlaybackSpec, Poisson, ReceiveApp, SendApp,
    Sink,
};
use crate::config::{
    self, AppSpec, CapacityChange as EngineChange, Carrier, CustomLink as EngineCustomLink,
    FlowSpec, LinkParams, LinuxSpec, MediaSpec, Placement, SourceSpec, TopologySpec, TraceSpec,
};
use crate::control::catalog::{
    ControllerChoice, ControllerConfig, Family, Foreign, NoForeign, Start,
};
use crate::control::FeedbackFormat;
use crate::control::{RateConfig, WindowConfig};
use crate::error::{Error, FieldPath, Result};
use crate::net::capacity::{CapacityTrace, TraceFormat};
use crate::net::codel::CoDelParams;
use crate::net::fq_codel::FqCoDelParams;
use crate::net::jitter::JitterSpec;
use crate::net::loss::{LossSpec, LossStep as EngineStep, StepLoss};
use crate::net::pcap::{PcapSpec, Proto};
use crate::net::pie::PieParams;
use crate::net::queue::{Length, QueueSpec, RedMode as EngineRedMode};
use crate::net::{Endpoint, RunResult, Simulation};
use crate::round as engine_round;
use crate::scenario::media::{self, App, Distribution, Rtp};
use crate::scenario::packet::{
    self, AfterTimeout, Auto, Growth, Loss, LostRetransmissions, Queue, RateSource, RecoveryEntry,
    Red, RedMode, RtoRestart, RttEstimator, RttTiming, SackPipe, Source, Tcp, TcpVariant, Topology,
};
use crate::scenario::round::{Feedback, RandomLoss, RoundScenario, Sharing};
use crate::scenario::{ControllerRef, Scenario};
use crate::time::SimTime;
use crate::transport::rate::{self, RateSourceSpec, REPORT_BYTES};
use crate::transport::rtp::{self, FeedbackChoice, RtpSpec};
use crate::transport::tcp::{self, RttSamples, TcpSpec, Variant, MAX_BACKOFF};
use crate::transport::udp;
use crate::units::{Limit, Size, Time};

/// Whole nanoseconds of a validated time.
fn ns(t: &Time) -> u64 {
    t.ns().unwrap_or(u64::MAX)
}

/// Whole bytes, rounded to nearest (ties to even) as every size is.
fn bytes(b: f64) -> u32 {
    b.round_ties_even() as u32
}

/// A link's rate in whole bits/s.
fn whole_bps(bps: f64) -> u64 {
    bps.round_ties_even() as u64
}

/// The packet engine's form of a validated scenario, flow counts expanded. Each entry's
/// controller is resolved once, for all its flows; an error names the entry's path.
pub fn packet(s: &Scenario) -> Result<config::Scenario> {
    let mut flows = Vec::new();
    for (i, f) in s.flows.iter().enumerate() {
        let end = f
            .stop
            .as_ref()
            .map_or(ns(&s.run.duration), |t| ns(t).min(ns(&s.run.duration)));
        let at = FieldPath::ROOT.key("flows").index(i).key("source");
        let source = flow_source(f, end, ns(&s.run.warmup)).map_err(|e| e.under(at))?;
        ecn_negotiated(f, &source, FieldPath::ROOT.key("flows").index(i).key("ecn"))?;
        flows.extend(std::iter::repeat_n(flow(f, source), f.count as usize));
    }
    let pcap = s
        .trace
        .as_ref()
        .and_then(|t| t.pcap.as_ref())
        .map(|p| PcapSpec {
            links: p.names(),
            flows: flows.iter().map(|f| pcap_proto(&f.source)).collect(),
            dir: None,
        });
    Ok(config::Scenario {
        seed: s.run.seed,
        duration_ns: ns(&s.run.duration),
        warmup_ns: ns(&s.run.warmup),
        topology: topology(&s.topology)?,
        flows,
        trace: match &s.trace {
            None => TraceSpec::default(),
            Some(t) => TraceSpec {
                interval_ns: Some(ns(&t.interval)),
                flows: t.flows,
                queues: t.queues,
                events: t.events,
                state: t.state,
                delays: t.delays,
                pcap,
            },
        },
    })
}

/// How a capture writes a flow's packets: the engine's TCP as TCP, a sequence number standing
/// for a packet's bytes less its IPv4 and TCP headers; every other transport as UDP.
fn pcap_proto(source: &SourceSpec) -> Proto {
    let tcp = match source {
        SourceSpec::Tcp(t) => t,
        SourceSpec::Media(m) => match &m.carrier {
            Carrier::Tcp(t) => t,
            _ => return Proto::Udp,
        },
        _ => return Proto::Udp,
    };
    Proto::Tcp {
        segment: tcp.packet_bytes.saturating_sub(40).max(1),
        ece: tcp::ECE,
    }
}

/// A TCP flow whose controller reacts to ECN marks only runs ECN-capable (RFC 8257 §3: DCTCP
/// relies on ECN; Linux's `TCP_CONG_NEEDS_ECN`).
fn ecn_negotiated(f: &packet::Flow, source: &SourceSpec, at: FieldPath) -> Result<()> {
    let tcp = match source {
        SourceSpec::Tcp(t) => t,
        SourceSpec::Media(m) => match &m.carrier {
            Carrier::Tcp(t) => t,
            _ => return Ok(()),
        },
        _ => return Ok(()),
    };
    match &tcp.controller {
        ControllerChoice::Catalogued(c) if c.needs_ecn() && !f.ecn => Err(Error::invalid(
            at,
            "false",
            format!(
                "must be true: {} reacts to ECN marks (RFC 8257 §3)",
                c.name()
            ),
        )),
        _ => Ok(()),
    }
}

fn topology(t: &Topology) -> Result<TopologySpec> {
    Ok(match t {
        Topology::Dumbbell(d) => TopologySpec::Dumbbell {
            bottleneck: link(&d.bottleneck, "topology.bottleneck")?,
            reverse: d
                .reverse
                .as_ref()
                .map(|l| link(l, "topology.reverse"))
                .transpose()?,
            access: link(&d.access, "topology.access")?,
        },
        Topology::FatLink(f) => topology(&Topology::Dumbbell(f.dumbbell()))?,
        Topology::ParkingLot(p) => TopologySpec::ParkingLot {
            hops: (p.hops.iter().enumerate())
                .map(|(i, h)| link(h, &format!("topology.hops[{i}]")))
                .collect::<Result<_>>()?,
            access: link(&p.access, "topology.access")?,
        },
        Topology::Custom(c) => TopologySpec::Custom {
            nodes: c.nodes.clone(),
            links: (c.links.iter().enumerate())
                .map(|(i, l)| {
                    Ok(EngineCustomLink {
                        from: l.from.clone(),
                        to: l.to.clone(),
                        params: link(&l.link(), &format!("topology.links[{i}]"))?,
                        duplex: l.duplex,
                        monitor: l.monitor,
                    })
                })
                .collect::<Result<_>>()?,
        },
    })
}

/// A link at `at` in the scenario, its capacity trace read from its file.
fn link(l: &packet::Link, at: &str) -> Result<LinkParams> {
    let rate_bps = whole_bps(l.rate.bps());
    Ok(LinkParams {
        rate_bps,
        delay_ns: ns(&l.delay),
        queue: queue(&l.queue),
        loss: l.loss.as_ref().map(loss),
        jitter: l.jitter.as_ref().map(|j| JitterSpec {
            std_ns: ns(&j.std),
            n_std: j.n_std,
            reorder: j.reorder,
        }),
        capacity_changes: l
            .capacity_changes
            .iter()
            .map(|c| EngineChange {
                at_ns: ns(&c.at),
                rate_bps: whole_bps(c.rate.bps()),
            })
            .collect(),
        capacity_trace: match &l.capacity_trace {
            Some(t) => Some(Arc::new(capacity_trace(t, at, rate_bps)?)),
            None => None,
        },
    })
}

/// The capacity trace a scenario's `capacity_trace` at `at` names, read from its file.
pub fn capacity_trace(
    t: &packet::CapacityTraceFile,
    at: &str,
    rate_bps: u64,
) -> Result<CapacityTrace> {
    let format = match t.format {
        packet::TraceFileFormat::Mahimahi => TraceFormat::Mahimahi,
        packet::TraceFileFormat::Table => TraceFormat::Table,
    };
    CapacityTrace::read(
        &format!("{at}.capacity_trace.file"),
        &t.file,
        format,
        rate_bps,
    )
}

/// A validated limit as the engine counts it: whole packets, or whole bytes.
fn length(l: &Limit) -> Length {
    match l {
        Limit::Packets { packets, .. } => Length::Packets(*packets as u64),
        Limit::Bytes(s) => Length::Bytes(s.bytes().round_ties_even() as u64),
    }
}

fn codel(target: &Time, interval: &Time, mtu: &Size, ecn: bool) -> CoDelParams {
    CoDelParams {
        target: SimTime(ns(target)),
        interval: SimTime(ns(interval)),
        mtu_bytes: bytes(mtu.bytes()),
        ecn,
    }
}

fn queue(q: &Queue) -> QueueSpec {
    match q {
        Queue::CoDel(c) => QueueSpec::CoDel {
            params: codel(&c.target, &c.interval, &c.mtu, c.ecn),
            limit: length(&c.limit),
        },
        Queue::FqCoDel(f) => QueueSpec::FqCoDel(FqCoDelParams {
            codel: codel(&f.target, &f.interval, &f.mtu, f.ecn),
            flows: f.flows as u32,
            quantum: bytes(f.quantum.bytes()),
            limit_packets: f.limit,
            memory_limit_bytes: f.memory_limit.bytes().round_ties_even() as u64,
            drop_batch: f.drop_batch as u32,
        }),
        Queue::Pie(p) => QueueSpec::Pie {
            params: PieParams {
                target: SimTime(ns(&p.target)),
                t_update: SimTime(ns(&p.t_update)),
                alpha: p.alpha,
                beta: p.beta,
                max_burst: SimTime(ns(&p.burst)),
                mean_packet_bytes: bytes(p.mean_packet_size.bytes()),
                ecn: p.ecn,
                derandomize: p.derandomize,
            },
            limit: length(&p.limit),
        },
        Queue::DropTail(d) => match length(&d.limit) {
            Length::Packets(n) => QueueSpec::DropTail {
                limit_packets: Some(n),
                limit_bytes: None,
            },
            Length::Bytes(b) => QueueSpec::DropTail {
                limit_packets: None,
                limit_bytes: Some(b),
            },
        },
        Queue::Step(s) => QueueSpec::Step {
            limit: length(&s.limit),
            threshold: length(&s.threshold),
        },
        Queue::Red(r) => QueueSpec::Red {
            limit_packets: r.limit,
            min_th: r.min_th.value(),
            max_th: r.max_th.value(),
            max_p: r.max_p,
            w_q: Auto::value(r.w_q),
            gentle: r.gentle,
            wait: r.wait,
            ecn: r.ecn,
            mode: match r.mode {
                RedMode::Packets => EngineRedMode::Packets,
                RedMode::Bytes => EngineRedMode::Bytes,
            },
            mean_packet_bytes: bytes(r.mean_packet_size.bytes()),
        },
    }
}

fn loss(l: &Loss) -> LossSpec {
    match l {
        Loss::Bernoulli(b) => LossSpec::Bernoulli { p: b.p },
        Loss::Periodic(p) => LossSpec::Periodic { every: p.every },
        Loss::Schedule(s) => LossSpec::Schedule {
            steps: s
                .steps
                .iter()
                .map(|x| EngineStep {
                    at_ns: ns(&x.at),
                    loss: match &x.interval {
                        Some(t) => StepLoss::OnePer { interval_ns: ns(t) },
                        None => StepLoss::Bernoulli(x.p.unwrap_or(0.0)),
                    },
                })
                .collect(),
        },
    }
}

fn flow(f: &packet::Flow, source: SourceSpec) -> FlowSpec {
    let opt = |t: &Option<Time>| t.as_ref().map(ns);
    let placement = Placement {
        left_delay_ns: opt(&f.left_delay),
        right_delay_ns: opt(&f.right_delay),
        hops: f.hops.map(|[a, b]| [a as usize, b as usize]),
        from: f.from.clone(),
        to: f.to.clone(),
    };
    FlowSpec {
        source: Arc::new(source),
        start_ns: ns(&f.start),
        start_jitter_ns: ns(&f.start_jitter),
        stop_ns: opt(&f.stop),
        lifetime_ns: opt(&f.lifetime),
        ecn: f.ecn,
        reverse: f.reverse,
        placement: (placement != Placement::DEFAULT).then(|| Box::new(placement)),
    }
}

fn source(s: &Source) -> Result<SourceSpec> {
    Ok(match s {
        Source::Cbr(p) => SourceSpec::Cbr {
            rate_bps: p.rate.bps(),
            packet_bytes: bytes(p.packet_size.bytes()),
        },
        Source::Poisson(p) => SourceSpec::Poisson {
            rate_bps: p.rate.bps(),
            packet_bytes: bytes(p.packet_size.bytes()),
        },
        Source::Tcp(t) => SourceSpec::Tcp(tcp(t, controller(Some(Family::Window), &t.controller)?)),
        Source::Rate(r) => {
            SourceSpec::Rate(rate(r, controller(Some(Family::Rate), &r.controller)?))
        }
        Source::Udp(u) => SourceSpec::Media(Box::new(MediaSpec {
            carrier: Carrier::Udp {
                packet_bytes: bytes(u.packet_size.bytes()),
            },
            app: app(&u.app),
            playback: None,
        })),
        Source::Linux(l) => SourceSpec::Linux(LinuxSpec {
            cc: l.cc.clone(),
            packet_bytes: bytes(l.packet_size.bytes()),
            transfer_bytes: l.transfer_bytes(),
            app: l.app.as_ref().map(app),
        }),
        Source::Rtp(r) => SourceSpec::Media(Box::new(MediaSpec {
            carrier: Carrier::Rtp(rtp_spec(r, controller(Some(Family::Media), &r.controller)?)),
            app: r
                .app
                .as_ref()
                .map_or_else(|| AppSpec::Encoder(encoder(&Default::default())), app),
            playback: None,
        })),
    })
}

fn rtp_spec(r: &Rtp, controller: ControllerChoice) -> RtpSpec {
    RtpSpec {
        controller,
        packet_bytes: bytes(r.packet_size.bytes()),
        initial_rate_bps: r.initial_rate.as_ref().map(|x| x.bps()),
        min_rate_bps: r.min_rate.as_ref().map(|x| x.bps()),
        feedback: FeedbackChoice {
            format: r.feedback.format.map(|f| match f {
                media::FeedbackFormat::Rfc8888 => FeedbackFormat::Rfc8888,
                media::FeedbackFormat::TransportWide => FeedbackFormat::TransportWide,
            }),
            interval: r.feedback.interval.as_ref().map(|t| SimTime(ns(t))),
            per_frame: r.feedback.per_frame,
        },
    }
}

fn encoder(e: &media::Encoder) -> EncoderSpec {
    EncoderSpec {
        fps: e.fps,
        min_bps: e.min_rate.bps(),
        max_bps: e.max_rate.bps(),
        reaction: SimTime(ns(&e.reaction)),
        big_change: e.big_change,
        max_step: e.max_step,
        burst_frames: e.burst_frames as u32,
        burst_bytes: e.burst_size.bytes(),
        size_scale: e.size_scale,
        interval_scale: e.interval_scale,
        key_interval: e.key_interval.as_ref().map(|t| SimTime(ns(t))),
        pause: e
            .pause
            .as_ref()
            .zip(e.resume.as_ref())
            .map(|(p, r)| (SimTime(ns(p)), SimTime(ns(r)))),
    }
}

/// A flow's source with its application and receiver: the plain source unless the flow names
/// an application or a playback receiver.
fn flow_source(f: &packet::Flow, end_ns: u64, warmup_ns: u64) -> Result<SourceSpec> {
    let base = source(&f.source)?;
    let named = match &f.source {
        Source::Tcp(t) => t.app.as_ref(),
        Source::Rate(r) => r.app.as_ref(),
        Source::Rtp(r) => r.app.as_ref(),
        _ => None,
    };
    let video = matches!(&base, SourceSpec::Media(m) if matches!(m.app, AppSpec::Encoder(_)))
        || matches!(named, Some(App::Encoder(_)));
    if (named.is_none() && f.playback.is_none() && !video) || matches!(base, SourceSpec::Linux(_)) {
        return Ok(base);
    }
    let mut spec = match base {
        SourceSpec::Media(m) => *m,
        SourceSpec::Cbr {
            rate_bps,
            packet_bytes,
        } => MediaSpec {
            carrier: Carrier::Udp { packet_bytes },
            app: AppSpec::Cbr { rate_bps },
            playback: None,
        },
        SourceSpec::Poisson {
            rate_bps,
            packet_bytes,
        } => MediaSpec {
            carrier: Carrier::Udp { packet_bytes },
            app: AppSpec::Poisson { rate_bps },
            playback: None,
        },
        SourceSpec::Tcp(t) => MediaSpec {
            carrier: Carrier::Tcp(t),
            app: AppSpec::Default,
            playback: None,
        },
        SourceSpec::Rate(r) => MediaSpec {
            carrier: Carrier::Rate(r),
            app: AppSpec::Default,
            playback: None,
        },
        linux @ SourceSpec::Linux(_) => return Ok(linux),
    };
    if let Some(a) = named {
        spec.app = app(a);
    }
    // Every encoder flow is played out (the seeds' playback numbers, with its defaults when
    // the flow names no playback) and has its frames measured.
    let defaults = media::Playback::default();
    spec.playback = match (&f.playback, video) {
        (Some(p), _) => Some(playback(p, end_ns, warmup_ns)),
        (None, true) => Some(playback(&defaults, end_ns, warmup_ns)),
        (None, false) => None,
    };
    Ok(SourceSpec::Media(Box::new(spec)))
}

fn app(a: &App) -> AppSpec {
    match a {
        App::Onoff(o) => {
            let period = |t: &Time| match o.distribution {
                Distribution::Pareto => Period::Pareto {
                    mean_s: t.secs(),
                    shape: o.shape,
                },
                Distribution::Exponential => Period::Exponential { mean_s: t.secs() },
            };
            AppSpec::OnOff {
                rate_bps: o.rate.bps(),
                on: period(&o.on),
                off: period(&o.off),
                mode: if o.transfers {
                    OnMode::Transfers
                } else {
                    OnMode::Paced
                },
            }
        }
        App::Fgs(f) => AppSpec::Fgs {
            base_bps: f.base.bps(),
            max_bps: f.max.bps(),
            fps: f.fps,
            retransmit: f.retransmit,
        },
        App::Multirate(m) => AppSpec::Multirate {
            tau_ns: ns(&m.tau),
            initial_bps: m.initial_rate.bps(),
            cuts_only: m.lag == media::Lag::Cuts,
        },
        App::Mpeg4(m) => {
            let stats = |t: &media::FrameType| FrameStats {
                mean_bytes: t.mean.bytes(),
                cov: t.cov,
                lag1: t.lag1,
            };
            // A type the GOP does not have is never drawn: I's statistics stand in for it.
            let of = |kind| stats(m.frame_type(kind).unwrap_or(&m.i));
            AppSpec::Mpeg4 {
                gop: m.gop.clone(),
                fps: m.fps,
                stats: [of('I'), of('P'), of('B')],
                follow_rate: m.follow_rate,
            }
        }
        App::Encoder(e) => AppSpec::Encoder(encoder(e)),
        App::Square(q) => AppSpec::OnOff {
            rate_bps: q.rate.bps(),
            on: Period::Fixed { secs: q.on.secs() },
            off: Period::Fixed { secs: q.off.secs() },
            mode: OnMode::Paced,
        },
    }
}

fn playback(p: &media::Playback, end_ns: u64, warmup_ns: u64) -> PlaybackSpec {
    PlaybackSpec {
        end_ns,
        warmup_ns,
        startup_ns: ns(&p.startup),
        rebuffer_ns: ns(p.rebuffer.as_ref().unwrap_or(&p.startup)),
        consumption: match &p.rate {
            Some(r) => Consumption::Rate(r.bps()),
            None => Consumption::MeanThroughput,
        },
        vdi_threshold_ns: ns(&p.vdi_threshold),
    }
}

/// A flow's controller: resolved from the catalogue among the controllers of `family` (any,
/// when `None`), or one written in Python; errors name a path from `controller` down.
fn controller(family: Option<Family>, c: &ControllerRef) -> Result<ControllerChoice> {
    match c {
        ControllerRef::Python(p) => Ok(ControllerChoice::External(p.clone())),
        ControllerRef::Catalogued { name, params } => {
            let pairs: Vec<(String, f64)> = params.iter().map(|(k, v)| (k.clone(), *v)).collect();
            let config = match family {
                Some(f) => ControllerConfig::resolve_in(f, name, &pairs),
                None => ControllerConfig::resolve(name, &pairs),
            };
            config.map(ControllerChoice::Catalogued)
        }
    }
}

fn tcp(t: &Tcp, controller: ControllerChoice) -> TcpSpec {
    TcpSpec {
        variant: match t.variant {
            TcpVariant::Reno => Variant::Reno,
            TcpVariant::NewReno => Variant::NewReno,
            TcpVariant::Sack => Variant::Sack,
        },
        controller,
        packet_bytes: bytes(t.packet_size.bytes()),
        ack_bytes: bytes(t.ack_size.bytes()),
        max_window_pkts: t.max_window,
        initial_window_pkts: t.initial_window,
        min_rto_ns: ns(&t.min_rto),
        initial_rto_ns: ns(&t.initial_rto),
        max_rto_ns: ns(&t.max_rto),
        tick_ns: ns(&t.tick),
        max_backoff: t.max_backoff.map_or(MAX_BACKOFF, |n| n as u32),
        rtt_samples: match t.rtt_timing {
            RttTiming::EveryAck => RttSamples::EveryAck,
            RttTiming::OnePerRtt => RttSamples::OnePerRtt,
            RttTiming::Timestamps => RttSamples::Timestamps,
        },
        forget_rtt_above_backoff: t.forget_rtt_above_backoff.map_or(u32::MAX, |n| n as u32),
        ns2_rtt: t.rtt_estimator == RttEstimator::Ns2,
        rto_every_ack: t.rto_restart == RtoRestart::EveryAck,
        limited_transmit: t.limited_transmit,
        delayed_ack: t.delayed_ack,
        delack_ns: ns(&t.delack),
        ack_filled_hole: t.ack_filled_hole,
        growth_per_packet: t.growth == Growth::PerPacket,
        transfer_pkts: t.transfer_pkts(),
        integer_window: t.integer_window,
        whole_ssthresh: t.whole_ssthresh,
        cut_from_whole_window: t.cut_from_whole_window,
        sack_lost_after: t.sack_lost_after as u32,
        sack_pipe_counter: t.sack_pipe == SackPipe::Counter,
        sack_go_back_n: t.after_timeout == AfterTimeout::GoBackN,
        sack_kept_at_timeout: t.after_timeout == AfterTimeout::KeepSacked,
        rack_lost_retransmissions: t.lost_retransmissions == LostRetransmissions::Rack,
        recovery_on_lost: t.recovery_entry == RecoveryEntry::Lost,
        prr: t.prr,
        recover_margin: t.recover_margin as u32,
        overhead_ns: t.overhead.as_ref().map_or(0, ns),
        syn: t.syn,
    }
}

fn rate(r: &RateSource, controller: ControllerChoice) -> RateSourceSpec {
    RateSourceSpec {
        controller,
        packet_bytes: bytes(r.packet_size.bytes()),
        initial_rate_bps: r.initial_rate.as_ref().map(|x| x.bps()),
        min_rate_bps: r.min_rate.as_ref().map(|x| x.bps()),
        bunch: r.bunch as u32,
        jitter: r.jitter,
        feedback: r.feedback.map(|f| f.name().to_string()),
        report_bytes: r
            .report_size
            .as_ref()
            .map_or(REPORT_BYTES, |s| bytes(s.bytes())),
    }
}

impl Default for TcpSpec {
    /// The scenario's default TCP source ([`Tcp::default`]): SACK running TCP's own window
    /// controller, with ns-2.35's settings.
    fn default() -> Self {
        let t = Tcp::default();
        let controller = controller(Some(Family::Window), &t.controller)
            .expect("the default controller is catalogued");
        tcp(&t, controller)
    }
}

impl RateSourceSpec {
    /// A rate source running `controller`, every other setting the scenario's default
    /// ([`RateSource`]).
    pub fn new(controller: impl Into<ControllerChoice>) -> Self {
        rate(
            &RateSource::new(ControllerRef::default()),
            controller.into(),
        )
    }
}

impl QueueSpec {
    /// RED with the given physical buffer, thresholds (packets) and weight, every other setting
    /// the scenario's default ([`Red`]): gentle, wait, max_p = 0.1, no ECN, packet mode.
    pub fn red(limit_packets: u64, min_th: f64, max_th: f64, w_q: f64) -> Self {
        queue(&Queue::Red(Red {
            limit: limit_packets,
            min_th: Auto::Value(min_th),
            max_th: Auto::Value(max_th),
            w_q: Auto::Value(w_q),
            ..Red::default()
        }))
    }
}

/// A flow's sender and receiver endpoints.
pub type Endpoints = (Box<dyn Endpoint>, Box<dyn Endpoint>);

/// How a TCP flow's window controller starts in a run seeded with `seed`.
fn tcp_start(t: &TcpSpec, seed: u64) -> Start {
    Start {
        window: t.window_config(),
        seed,
        ..Start::default()
    }
}

/// How a rate flow's controller starts in a run seeded with `seed`.
fn rate_start(r: &RateSourceSpec, seed: u64) -> Start {
    Start {
        rate: r.config(),
        seed,
        ..Start::default()
    }
}

/// The endpoints of flow `flow` (counts expanded) of a run seeded with `seed`, with the given
/// source (the catalogue of sources and transports): CBR and Poisson run over UDP into a
/// [`Sink`]; TCP and rate flows get their controller through the one factory,
/// [`ControllerChoice::make`] (the catalogue's, or one `foreign` makes), and run their spec's
/// application.
pub fn endpoints(
    source: &SourceSpec,
    flow: usize,
    seed: u64,
    foreign: &mut dyn Foreign,
) -> Result<Endpoints> {
    let (app, packet_bytes): (Box<dyn SendApp>, u32) = match *source {
        SourceSpec::Cbr {
            rate_bps,
            packet_bytes,
        } => (Box::new(Cbr::new(rate_bps, packet_bytes)?), packet_bytes),
        SourceSpec::Poisson {
            rate_bps,
            packet_bytes,
        } => (
            Box::new(Poisson::new(rate_bps, packet_bytes)?),
            packet_bytes,
        ),
        SourceSpec::Tcp(ref t) => {
            let ctl =
                t.controller
                    .make(flow, Some(Family::Window), &tcp_start(t, seed), foreign)?;
            return Ok(tcp::endpoints_with_controller(t, ctl));
        }
        SourceSpec::Rate(ref r) => {
            let app = Box::new(Bulk);
            let sink = Box::new(Sink::default());
            return rate_endpoints(r, flow, seed, foreign, app, sink);
        }
        SourceSpec::Media(ref m) => return media_endpoints(m, flow, seed, foreign),
        // The kernel's sockets are made by the real-time engine that carries their packets.
        SourceSpec::Linux(_) => {
            return Err(Error::invalid(
                "source.kind",
                "'linux'",
                "needs run.engine = \"udp\": the kernel's TCP sends real packets",
            ))
        }
    };
    Ok(udp::endpoints(packet_bytes, app, Box::new(Sink::default())))
}

/// The endpoints of rate flow `flow` carrying `app` to `sink`: its controller and the receiver
/// that controller needs.
fn rate_endpoints(
    r: &RateSourceSpec,
    flow: usize,
    seed: u64,
    foreign: &mut dyn Foreign,
    app: Box<dyn SendApp>,
    sink: Box<dyn ReceiveApp>,
) -> Result<Endpoints> {
    let ctl = r
        .controller
        .make(flow, Some(Family::Rate), &rate_start(r, seed), foreign)?;
    let receiver = r.controller.receiver(r.feedback.as_deref())?;
    Ok(rate::endpoints(r, ctl, receiver, app, sink))
}

/// The endpoints of a flow with a chosen application and receiver.
fn media_endpoints(
    m: &MediaSpec,
    flow: usize,
    seed: u64,
    foreign: &mut dyn Foreign,
) -> Result<Endpoints> {
    let (app, sink) = media_apps(m)?;
    match &m.carrier {
        Carrier::Udp { packet_bytes } => Ok(udp::endpoints(*packet_bytes, app, sink)),
        Carrier::Tcp(t) => {
            let ctl =
                t.controller
                    .make(flow, Some(Family::Window), &tcp_start(t, seed), foreign)?;
            Ok(tcp::endpoints(t, ctl, app, sink))
        }
        Carrier::Rate(r) => rate_endpoints(r, flow, seed, foreign, app, sink),
        Carrier::Rtp(r) => {
            let start = Start {
                rate: r.config(),
                seed,
                ..Start::default()
            };
            let ctl = r
                .controller
                .make(flow, Some(Family::Media), &start, foreign)?;
            Ok(rtp::endpoints(r, ctl, app, sink))
        }
    }
}

/// A media flow's sending application and its receiver (a playback receiver when the flow
/// has `playback`, sharing the video source's frame ledger).
fn media_apps(m: &MediaSpec) -> Result<(Box<dyn SendApp>, Box<dyn ReceiveApp>)> {
    let ledger = FrameLedger::default();
    let packet_bytes = match &m.carrier {
        Carrier::Udp { packet_bytes } => *packet_bytes,
        Carrier::Tcp(t) => t.packet_bytes,
        Carrier::Rate(r) => r.packet_bytes,
        Carrier::Rtp(r) => r.packet_bytes,
    };
    let app: Box<dyn SendApp> = match &m.app {
        AppSpec::Default => match &m.carrier {
            Carrier::Tcp(TcpSpec {
                transfer_pkts: Some(n),
                ..
            }) => Box::new(Finite::packets(*n, packet_bytes)),
            _ => Box::new(Bulk),
        },
        AppSpec::Cbr { rate_bps } => Box::new(Cbr::new(*rate_bps, packet_bytes)?),
        AppSpec::Poisson { rate_bps } => Box::new(Poisson::new(*rate_bps, packet_bytes)?),
        AppSpec::OnOff {
            rate_bps,
            on,
            off,
            mode,
        } => Box::new(OnOff::new(*rate_bps, packet_bytes, *on, *off, *mode)?),
        AppSpec::Fgs {
            base_bps,
            max_bps,
            fps,
            retransmit,
        } => {
            let server = Fgs::new(*base_bps, *max_bps, *fps)?;
            match m.playback {
                Some(p) if *retransmit => Box::new(
                    server
                        .with_ledger(ledger.clone())
                        .with_retransmission(SimTime(p.startup_ns)),
                ),
                Some(_) => Box::new(server.with_ledger(ledger.clone())),
                None => Box::new(server),
            }
        }
        AppSpec::Multirate {
            tau_ns,
            initial_bps,
            cuts_only,
        } => {
            let coder = Multirate::new(SimTime(*tau_ns), packet_bytes, *initial_bps)?;
            Box::new(if *cuts_only {
                coder.learning_cuts_only()
            } else {
                coder
            })
        }
        AppSpec::Encoder(e) => Box::new(Encoder::new(*e).with_ledger(ledger.clone())),
        AppSpec::Mpeg4 {
            gop,
            fps,
            stats,
            follow_rate,
        } => {
            let source = Mpeg4::new(gop, *fps, *stats)?;
            let source = if *follow_rate {
                source.following_rate()
            } else {
                source
            };
            match m.playback {
                Some(_) => Box::new(source.with_ledger(ledger.clone())),
                None => Box::new(source),
            }
        }
    };
    let sink: Box<dyn ReceiveApp> = match (m.playback, &m.app) {
        (
            Some(p),
            AppSpec::Fgs {
                retransmit: true, ..
            },
        ) => Box::new(Playback::new(p).with_frames(ledger).with_nacks()),
        (Some(p), AppSpec::Mpeg4 { .. } | AppSpec::Fgs { .. }) => {
            Box::new(Playback::new(p).with_frames(ledger))
        }
        (Some(p), AppSpec::Encoder(_)) => Box::new(FrameMeter::new(
            Box::new(Playback::new(p).with_frames(ledger.clone())),
            ledger,
            SimTime(p.warmup_ns),
        )),
        (Some(p), _) => Box::new(Playback::new(p)),
        (None, _) => Box::new(Sink::default()),
    };
    Ok((app, sink))
}

/// Runs a packet-model run whose flows all use the catalogue's sources and controllers.
pub fn run(scenario: &config::Scenario) -> Result<RunResult> {
    let sim = Simulation::new(scenario, |i| {
        endpoints(&scenario.flows[i].source, i, scenario.seed, &mut NoForeign)
    })?;
    Ok(sim.run())
}

/// The round model's form of a validated round scenario.
pub fn round(s: &RoundScenario) -> Result<engine_round::RoundConfig> {
    let link = &s.link;
    let config = engine_round::RoundConfig {
        seed: s.run.seed,
        steps: s.run.steps,
        warmup_steps: s.run.warmup_steps,
        capacity_bps: link.capacity_bps(&link.capacity, link.capacity_pkts),
        capacity_trace: match &link.capacity_trace {
            Some(t) => {
                let base = whole_bps(link.capacity_bps(&link.capacity, link.capacity_pkts));
                Some(Arc::new(capacity_trace(t, "link", base)?))
            }
            None => None,
        },
        capacity_changes: link
            .capacity_changes
            .iter()
            .map(|c| engine_round::CapacityStep {
                step: c.step,
                capacity_bps: link.capacity_bps(&c.capacity, c.capacity_pkts),
            })
            .collect(),
        rtt0_ns: ns(&link.rtt),
        packet_bytes: bytes(link.packet_size.bytes()),
        buffer_pkts: link.buffer_pkts(),
        feedback: match link.feedback {
            Feedback::Shared(Sharing::Synchronized) => engine_round::Feedback::Synchronized,
            Feedback::Shared(Sharing::Proportional) => engine_round::Feedback::Proportional,
            Feedback::Random(RandomLoss::Bernoulli(b)) => {
                engine_round::Feedback::Bernoulli { p: b.p }
            }
        },
        integer_windows: link.integer_windows,
        capacity_oracle: link.capacity_oracle,
        substeps: s.run.substeps as u32,
        flows: s
            .flows
            .iter()
            .enumerate()
            .map(|(i, g)| round_group(s, i, g))
            .collect::<Result<_>>()?,
        record: engine_round::Record {
            every: s.record.every,
            flows: s.record.flows,
        },
    };
    Ok(config)
}

/// Flow group `i` of a round scenario: its controller resolved against the catalogue (any
/// family) and its start checked, errors named where the scenario wrote them.
fn round_group(
    s: &RoundScenario,
    i: usize,
    g: &crate::scenario::round::RoundFlows,
) -> Result<engine_round::FlowGroup> {
    let controller = controller(None, &g.controller).map_err(|e| g.place(i, e))?;
    let at = FieldPath::ROOT.key("flows").index(i);
    let start = Start {
        window: WindowConfig::avoidance_at(g.initial_window.unwrap_or(1.0)),
        rate: RateConfig {
            packet_bytes: bytes(s.link.packet_size.bytes()),
            initial_rate_bps: g.initial_rate.as_ref().map(|r| r.bps()),
            min_rate_bps: None,
        },
        seed: s.run.seed,
        flow: 0,
    };
    // A start's checks name the start's own keys, which the group writes directly.
    let checked = |r: Result<()>, key: &str| {
        r.map_err(|e| match e {
            Error::InvalidField { value, allowed, .. } => {
                Error::invalid(at.clone().key(key), value, allowed)
            }
            other => other,
        })
    };
    checked(start.window.validate(), "initial_window")?;
    checked(start.rate.validate(), "initial_rate")?;
    Ok(engine_round::FlowGroup {
        controller,
        count: g.count as usize,
        start,
    })
}

/// Checks what only the round model knows, before any step: each catalogued group's controller
/// against the run (rate controllers and `run.substeps`, integer windows), through the same
/// factory and check a run uses; errors name the scenario's paths. Controllers written in
/// Python are checked when they run.
pub fn check_round(config: &engine_round::RoundConfig) -> Result<()> {
    for (g, group) in config.flows.iter().enumerate() {
        if let ControllerChoice::Catalogued(_) = group.controller {
            let mut c = group
                .controller
                .make(0, None, &group.start, &mut NoForeign)?;
            engine_round::check_controller(&mut *c, g, config)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::scenario::{read_packet, read_round};

    fn one_flow(source: serde_json::Value) -> serde_json::Value {
        json!({
            "run": {"duration": "5s"},
            "topology": {"kind": "dumbbell", "bottleneck": {"rate": "2Mbps", "delay": "10ms"}},
            "flows": [{"source": {"kind": "cbr", "rate": "1Mbps"}}, {"source": source, "count": 2}],
        })
    }

    fn field(e: &Error) -> String {
        match e.field() {
            Some(field) => field.to_string(),
            None => panic!("no field: {e}"),
        }
    }

    #[test]
    fn controller_errors_name_the_entry_by_its_path() {
        let cases = [
            (
                json!({"kind": "tcp", "controller": "westwood"}),
                "flows[1].source.controller",
                "'westwood' is not known; expected one of: tcp, aimd",
            ),
            (
                json!({"kind": "tcp", "controller": {"name": "gaimd", "beta": 1.5}}),
                "flows[1].source.controller.beta",
                "beta = 1.5: must be in",
            ),
            (
                json!({"kind": "tcp", "controller": {"name": "gaimd", "gamma": 0.5}}),
                "flows[1].source.controller.gamma",
                "not a parameter of gaimd; its parameters: alpha, beta",
            ),
            (
                json!({"kind": "rate", "controller": "tcp"}),
                "flows[1].source.controller",
                "tfrc",
            ),
        ];
        for (source, path, needle) in cases {
            let e = packet(&read_packet(one_flow(source)).unwrap()).unwrap_err();
            assert_eq!(field(&e), path, "{e}");
            assert!(e.to_string().contains(needle), "{e} lacks {needle:?}");
        }
    }

    #[test]
    fn each_entry_resolves_its_controller_for_all_its_flows() {
        let s = packet(
            &read_packet(one_flow(
                json!({"kind": "rate", "controller": "ISCC(-1.5,2)"}),
            ))
            .unwrap(),
        )
        .unwrap();
        assert_eq!(s.flows.len(), 3);
        let SourceSpec::Rate(r) = &*s.flows[2].source else {
            panic!("not a rate source")
        };
        let ControllerChoice::Catalogued(c) = &r.controller else {
            panic!("not catalogued")
        };
        assert_eq!((c.name(), c.values()["k"]), ("iscc", -1.5));
        assert_eq!(s.flows[1], s.flows[2]);
        let s = packet(
            &read_packet(one_flow(
                json!({"kind": "tcp", "controller": "python:mine"}),
            ))
            .unwrap(),
        )
        .unwrap();
        let SourceSpec::Tcp(t) = &*s.flows[1].source else {
            panic!("not tcp")
        };
        let ControllerChoice::External(p) = &t.controller else {
            panic!("not external")
        };
        assert_eq!((p.module.as_deref(), p.object.as_str()), (None, "mine"));
    }

    #[test]
    fn engine_defaults_are_the_scenarios() {
        let s = packet(&read_packet(one_flow(json!({"kind": "tcp"}))).unwrap()).unwrap();
        assert_eq!(*s.flows[1].source, SourceSpec::Tcp(TcpSpec::default()));
        let tfrc = ControllerConfig::resolve("tfrc", &[]).unwrap();
        let s =
            packet(&read_packet(one_flow(json!({"kind": "rate", "controller": "tfrc"}))).unwrap())
                .unwrap();
        assert_eq!(
            *s.flows[1].source,
            SourceSpec::Rate(RateSourceSpec::new(tfrc))
        );
        let mut table = one_flow(json!({"kind": "tcp"}));
        table["topology"]["bottleneck"]["queue"] =
            json!({"kind": "red", "limit": 60, "min_th": 5, "max_th": 15, "w_q": 0.002});
        let s = packet(&read_packet(table).unwrap()).unwrap();
        let TopologySpec::Dumbbell { bottleneck, .. } = &s.topology else {
            panic!("not a dumbbell")
        };
        assert_eq!(bottleneck.queue, QueueSpec::red(60, 5.0, 15.0, 0.002));
    }

    #[test]
    fn step_queues_lower_in_the_units_they_were_given() {
        let mut table = one_flow(json!({"kind": "tcp"}));
        table["topology"]["bottleneck"]["queue"] = json!({"kind": "step", "threshold": "30KB"});
        let s = packet(&read_packet(table).unwrap()).unwrap();
        let TopologySpec::Dumbbell { bottleneck, .. } = &s.topology else {
            panic!("not a dumbbell")
        };
        let step = QueueSpec::Step {
            limit: Length::Packets(100),
            threshold: Length::Bytes(30_000),
        };
        assert_eq!(bottleneck.queue, step, "limit: DropTail's default");
    }

    #[test]
    fn a_flows_spec_stays_small() {
        // A run keeps one per flow while it runs; the flows of one entry share their source,
        // and the rare large source is boxed.
        assert!(
            std::mem::size_of::<config::FlowSpec>() <= 72,
            "{}",
            std::mem::size_of::<config::FlowSpec>()
        );
        assert!(std::mem::size_of::<SourceSpec>() <= std::mem::size_of::<TcpSpec>());
    }

    #[test]
    fn the_flows_of_an_entry_share_one_source() {
        let s = packet(&read_packet(one_flow(json!({"kind": "tcp"}))).unwrap()).unwrap();
        assert!(Arc::ptr_eq(&s.flows[1].source, &s.flows[2].source));
        assert!(!Arc::ptr_eq(&s.flows[0].source, &s.flows[1].source));
    }

    #[test]
    fn round_scenarios_lower_to_the_round_model() {
        let s = read_round(json!({
            "run": {"engine": "round", "steps": 10},
            "link": {"capacity": "1Mbps", "feedback": {"kind": "bernoulli", "p": 0.01}},
            "flows": [{"controller": "aimd", "params": {"beta": 0.125}, "count": 3}],
        }))
        .unwrap();
        let c = round(&s).unwrap();
        assert_eq!(
            (c.n_flows(), c.rtt0_ns, c.packet_bytes),
            (3, 100_000_000, 1000)
        );
        assert_eq!(c.feedback, engine_round::Feedback::Bernoulli { p: 0.01 });
        assert!(check_round(&c).is_ok());
    }

    #[test]
    fn round_errors_name_the_group_by_its_path_as_written() {
        let group = |g: serde_json::Value| {
            let s = read_round(json!({"run": {"engine": "round", "steps": 10, "substeps": 2}, "link": {"capacity": "1Mbps"}, "flows": [g]})).unwrap();
            round(&s).and_then(|c| check_round(&c)).unwrap_err()
        };
        let cases = [
            (
                json!({"controller": "no-such"}),
                "flows[0].controller",
                "is not known",
            ),
            (
                json!({"controller": {"name": "aimd", "beta": 1.5}}),
                "flows[0].controller.beta",
                "must be in",
            ),
            (
                json!({"controller": {"name": "aimd", "gamma": 1}}),
                "flows[0].controller.gamma",
                "not a parameter of aimd",
            ),
            // The old spelling: the parameters' table as written.
            (
                json!({"controller": "aimd", "params": {"beta": 1.5}}),
                "flows[0].params.beta",
                "must be in",
            ),
            (
                json!({"controller": "aimd", "params": {"gamma": 1}}),
                "flows[0].params.gamma",
                "not a parameter of aimd",
            ),
            (
                json!({"controller": "tfrc", "initial_rate": "1bps"}),
                "flows[0].initial_rate",
                "must be in",
            ),
            // What only the run knows, checked through the same factory before any step.
            (
                json!({"controller": "tfrc"}),
                "flows[0].controller",
                "run.substeps > 1 needs window controllers",
            ),
        ];
        for (g, path, needle) in cases {
            let e = group(g);
            assert_eq!(field(&e), path, "{e}");
            assert!(e.to_string().contains(needle), "{e} lacks {needle:?}");
        }
    }
}
