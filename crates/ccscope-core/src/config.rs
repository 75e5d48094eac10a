//! The packet engine's form of a scenario: [`crate::net`]'s run description with the sources
//! the flow catalogue ([`crate::build::endpoints`]) knows, as [`crate::build`] lowers a
//! validated [`crate::scenario::Scenario`] to. It declares no defaults and checks nothing: the
//! scenario did.

use crate::apps::{EncoderSpec, FrameStats, OnMode, Period, PlaybackSpec};
pub use crate::net::config::{
    CapacityChange, CustomLink, LinkParams, Placement, TopologySpec, TraceSpec,
};
use crate::transport::rate::RateSourceSpec;
use crate::transport::rtp::RtpSpec;
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
    /// A transport carrying a workload or media application, optionally into a playback
    /// receiver. Boxed: the other sources are half its size, and a run keeps one per flow.
    Media(Box<MediaSpec>),
    /// The kernel's own TCP, on real packets only ([`crate::realnet::linux`]).
    Linux(LinuxSpec),
}

/// A flow of the kernel's TCP.
#[derive(Clone, Debug, PartialEq)]
pub struct LinuxSpec {
    /// The congestion control module (`TCP_CONGESTION`).
    pub cc: String,
    /// The largest IP packet: the MTU of the flow's TUN devices.
    pub packet_bytes: u32,
    /// Bytes to send; `None`: bulk.
    pub transfer_bytes: Option<u64>,
    /// What the application writes when not bulk or a transfer: [`AppSpec::OnOff`].
    pub app: Option<AppSpec>,
}

/// The transport under a [`MediaSpec`]'s application.
#[derive(Clone, Debug, PartialEq)]
pub enum Carrier {
    /// Datagrams of at most `packet_bytes`, no congestion control.
    Udp {
        packet_bytes: u32,
    },
    Tcp(TcpSpec),
    Rate(RateSourceSpec),
    /// The media transport ([`crate::transport::rtp`]).
    Rtp(RtpSpec),
}

/// What a flow's application does (its transport's default is bulk data).
#[derive(Clone, Debug, PartialEq)]
pub enum AppSpec {
    /// Bulk data (TCP's finite transfer when its spec asks for one).
    Default,
    /// Constant bit rate at `rate_bps`.
    Cbr { rate_bps: f64 },
    /// Poisson arrivals at a mean of `rate_bps`.
    Poisson { rate_bps: f64 },
    /// ON/OFF or square wave.
    OnOff {
        rate_bps: f64,
        on: Period,
        off: Period,
        mode: OnMode,
    },
    /// Layered video: base layer at `base_bps`, all of it up to `max_bps`, `fps` frames/s;
    /// `retransmit`: lost base-layer packets resent on NACK.
    Fgs {
        base_bps: f64,
        max_bps: f64,
        fps: f64,
        retransmit: bool,
    },
    /// A coder that codes at the sender's rate of `tau_ns` ago.
    Multirate {
        tau_ns: u64,
        initial_bps: f64,
        cuts_only: bool,
    },
    /// MPEG-4 frames of a GOP pattern at `fps`, sizes from TES models of I, P and B frames.
    Mpeg4 {
        gop: String,
        fps: f64,
        stats: [FrameStats; 3],
        /// Frame sizes follow the transport's rate ([`crate::apps::Mpeg4::following_rate`]).
        follow_rate: bool,
    },
    /// RFC 8593's synthetic video encoder at the transport's rate.
    Encoder(EncoderSpec),
}

/// A flow with a chosen application and receiver.
#[derive(Clone, Debug, PartialEq)]
pub struct MediaSpec {
    pub carrier: Carrier,
    pub app: AppSpec,
    /// A playback receiver; `None`: a counting sink.
    pub playback: Option<PlaybackSpec>,
}

/// One flow of a packet-model run.
pub type FlowSpec = crate::net::FlowSpec<SourceSpec>;

/// A packet-model run.
pub type Scenario = crate::net::Scenario<SourceSpec>;
