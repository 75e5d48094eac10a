//! Workloads and media in a packet-model scenario: the application a flow runs over its
//! transport (`source.app`, or a `udp` source's `app`) and the playback receiver a flow's
//! data goes into (`flows[i].playback`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::packet::{rate_bounds, rate_bps, size_bytes};
use super::{count_in, lit, tagged_union, time_ns, ControllerRef};
use crate::error::{check_range, Error, Result};

/// Largest lag-1 autocorrelation of a frame type (a TES+ model's innovations vanish at 1).
pub const MAX_LAG1: f64 = 0.99;
use crate::units::{Rate, Size, Time};

/// An application that offers data to its flow's transport.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum App {
    /// Pareto (or exponential) ON/OFF: `rate` while ON (ns-2 `Application/Traffic/Pareto`;
    /// Yang et al. §3.1's defaults).
    Onoff(OnOff),
    /// CBR square wave: `rate` for `on`, nothing for `off`, repeating (Jin et al. §6.2.4).
    Square(Square),
    /// MPEG-4 frames with TES-modelled sizes per frame type (Papadimitriou & Zhang §V).
    Mpeg4(Mpeg4),
    /// A coder that follows its sender's rate after a delay `tau` (Cai et al. §IV-B).
    Multirate(Multirate),
    /// Layered FGS video at the sender's rate clipped to [base, max] (Loguinov & Radha §VI-C).
    Fgs(Fgs),
    /// RFC 8593 §5's synthetic video encoder: frames at the sender's rate as its target.
    Encoder(Encoder),
}
tagged_union!(App { "onoff" => Onoff, "square" => Square, "mpeg4" => Mpeg4, "multirate" => Multirate, "fgs" => Fgs, "encoder" => Encoder });

/// A live video encoder after RFC 8593 §5 (the statistical model; defaults its §5 values): a
/// frame every 1/fps (times a Laplacian deviation of scale `interval_scale`) of target /
/// fps bytes (times one of scale `size_scale`); the target is the sender's rate, within
/// [min_rate, max_rate], taken up at most once per `reaction`; a change above `big_change`
/// is taken at once and starts a transient of `burst_frames` frames, the first `burst_size`
/// and the rest sharing what is left of their frames' budget; a smaller one moves the rate at
/// most `max_step` (the change rules of syncodecs, the RFC's reference implementation).
/// `key_interval` adds a transient periodically (key frames). `pause` and `resume` stop the
/// encoder for a while (RFC 8867 §5.8's media pause): no frame is coded between them, so the
/// transport sends nothing and its receiver reports nothing, while the controller keeps its
/// state; at `resume` the encoder takes up the controller's target at once with a key frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Encoder {
    /// Frames per second, in [1, 240] (RFC 8593: 30).
    #[serde(default = "encoder_fps")]
    pub fps: f64,
    /// The encoder's lowest rate (RFC 8593: 150 kb/s).
    #[serde(default = "encoder_min")]
    pub min_rate: Rate,
    /// The encoder's highest rate (RFC 8593: 1.5 Mb/s).
    #[serde(default = "encoder_max")]
    pub max_rate: Rate,
    /// The encoder's reaction time tau_v: a new target is taken up at most once per this
    /// (RFC 8593: 0.2 s); at most 10 s.
    #[serde(default = "encoder_reaction")]
    pub reaction: Time,
    /// A relative change of the target above this is taken at once with a transient, in
    /// (0, 10] (syncodecs: 0.5).
    #[serde(default = "encoder_big_change")]
    pub big_change: f64,
    /// The largest relative change of a smaller update, in [0, 1] (syncodecs: 0.1).
    #[serde(default = "encoder_max_step")]
    pub max_step: f64,
    /// Frames of a transient after a rate change, in [1, 1000] (RFC 8593: 8).
    #[serde(default = "encoder_burst_frames")]
    pub burst_frames: u64,
    /// Size of a transient's first frame (RFC 8593: 13.5 KB).
    #[serde(default = "encoder_burst_size")]
    pub burst_size: Size,
    /// Scale of the zero-mean Laplacian deviation of a frame's size from target / fps,
    /// relative, in [0, 1] (RFC 8593: 0.15).
    #[serde(default = "encoder_scale")]
    pub size_scale: f64,
    /// Scale of the zero-mean Laplacian deviation of a frame interval from 1/fps, relative,
    /// in [0, 1] (RFC 8593: 0.15).
    #[serde(default = "encoder_scale")]
    pub interval_scale: f64,
    /// A key frame (a transient as after a rate change) this often; default none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_interval: Option<Time>,
    /// When the encoder stops coding, from the start of the run; with `resume`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause: Option<Time>,
    /// When it codes again (a key frame at the controller's target), after `pause`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<Time>,
}

impl Encoder {
    /// The pause as (from, until) in ns, if any; `pause` and `resume` come together, `resume`
    /// after `pause`, each error naming its field.
    fn pause_window(&self, at: &str) -> Result<Option<(u64, u64)>> {
        match (&self.pause, &self.resume) {
            (None, None) => Ok(None),
            (Some(p), None) => Err(Error::invalid(
                format!("{at}.resume"),
                "missing",
                format!("a time after pause = '{p}' (pause and resume come together)"),
            )),
            (None, Some(r)) => Err(Error::invalid(
                format!("{at}.pause"),
                "missing",
                format!("a time before resume = '{r}' (pause and resume come together)"),
            )),
            (Some(p), Some(r)) => {
                let from = time_ns(&format!("{at}.pause"), p, false)?;
                let until = time_ns(&format!("{at}.resume"), r, false)?;
                if until <= from {
                    return Err(Error::invalid(
                        format!("{at}.resume"),
                        format!("'{r}'"),
                        format!("must be after pause = '{p}'"),
                    ));
                }
                Ok(Some((from, until)))
            }
        }
    }
}

fn encoder_fps() -> f64 {
    30.0
}
fn encoder_min() -> Rate {
    lit("150kbps")
}
fn encoder_max() -> Rate {
    lit("1.5Mbps")
}
fn encoder_reaction() -> Time {
    lit("200ms")
}
fn encoder_big_change() -> f64 {
    0.5
}
fn encoder_max_step() -> f64 {
    0.1
}
fn encoder_burst_frames() -> u64 {
    8
}
fn encoder_burst_size() -> Size {
    lit("13500B")
}
fn encoder_scale() -> f64 {
    0.15
}

impl Default for Encoder {
    fn default() -> Self {
        Encoder {
            fps: encoder_fps(),
            min_rate: encoder_min(),
            max_rate: encoder_max(),
            reaction: encoder_reaction(),
            big_change: encoder_big_change(),
            max_step: encoder_max_step(),
            burst_frames: encoder_burst_frames(),
            burst_size: encoder_burst_size(),
            size_scale: encoder_scale(),
            interval_scale: encoder_scale(),
            key_interval: None,
            pause: None,
            resume: None,
        }
    }
}

/// The longest feedback interval of a media receiver.
pub const MAX_FEEDBACK_INTERVAL_S: f64 = 10.0;

/// How a media receiver encodes its feedback.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum FeedbackFormat {
    /// RFC 8888's congestion control feedback (arrival times in 1/1024 s, ECN).
    #[serde(rename = "rfc8888")]
    Rfc8888,
    /// libwebrtc's transport-wide feedback (arrival times in 250 µs, no ECN).
    #[serde(rename = "transport-wide")]
    TransportWide,
}

/// A media receiver's feedback; each key absent takes the controller's own choice (GCC:
/// transport-wide, per frame and at least every 100 ms; otherwise RFC 8888 every 50 ms).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RtpFeedback {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<FeedbackFormat>,
    /// The longest time between two feedback packets while data arrives, in (0, 10 s].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Time>,
    /// Also send feedback at the end of each frame (the packet that completes it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_frame: Option<bool>,
}

impl RtpFeedback {
    fn is_empty(&self) -> bool {
        *self == RtpFeedback::default()
    }
}

/// The media transport: an RTP-style sender paced at its media controller's rate, with
/// transport-wide sequence numbers and send times, and a receiver that returns per-packet
/// feedback (RFC 8888 or transport-wide) on the reverse path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rtp {
    /// A media controller of the catalogue (default GCC) or one written in Python.
    #[serde(default = "rtp_controller")]
    pub controller: ControllerRef,
    /// The largest packet on the wire (default 1200 B, the size draft-ietf-rmcat-gcc-02 §5.5
    /// assumes).
    #[serde(default = "rtp_packet_size")]
    pub packet_size: Size,
    /// The controller's starting rate; default its own (GCC: 300 kb/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rate: Option<Rate>,
    /// The controller's lowest rate; default one packet per 64 s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "RtpFeedback::is_empty")]
    pub feedback: RtpFeedback,
    /// The application; default the RFC 8593 encoder with its defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<App>,
}

fn rtp_controller() -> ControllerRef {
    ControllerRef::named("gcc")
}
fn rtp_packet_size() -> Size {
    lit("1200B")
}

impl Rtp {
    pub(super) fn validate(&self, at: &str) -> Result<()> {
        let bytes = size_bytes(
            &format!("{at}.packet_size"),
            &self.packet_size,
            u32::MAX as f64,
        )?;
        rate_bounds(
            at,
            bytes,
            self.min_rate.as_ref(),
            self.initial_rate.as_ref(),
        )?;
        if let Some(t) = &self.feedback.interval {
            let field = format!("{at}.feedback.interval");
            time_ns(&field, t, true)?;
            if t.secs() > MAX_FEEDBACK_INTERVAL_S {
                return Err(Error::invalid(
                    field,
                    format!("'{t}'"),
                    format!("must be at most {MAX_FEEDBACK_INTERVAL_S} s"),
                ));
            }
        }
        Ok(())
    }
}

/// FGS video: a base layer at `base`, an enhancement layer up to a total of `max`, `fps`
/// frames per second (defaults: Loguinov & Radha's 14 kb/s and 1190 kb/s; 10 frames/s
/// assumed), base-layer retransmission on NACK with `retransmit`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fgs {
    #[serde(default = "fgs_base")]
    pub base: Rate,
    #[serde(default = "fgs_max")]
    pub max: Rate,
    #[serde(default = "fgs_fps")]
    pub fps: f64,
    /// Resend lost base-layer packets on the receiver's NACK while they can arrive before
    /// their frame's decoding time (§VI-C); needs a rate source and a playback receiver.
    #[serde(default)]
    pub retransmit: bool,
}

fn fgs_base() -> Rate {
    lit("14kbps")
}
fn fgs_max() -> Rate {
    lit("1190kbps")
}
fn fgs_fps() -> f64 {
    10.0
}

/// A multirate coder: codes at the sender's rate of `tau` ago (`lag = "all"`), or follows its
/// increases at once and learns of its cuts `tau` late (`lag = "cuts"`, Cai et al. Fig. 7), at
/// `initial_rate` before the sender has one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Multirate {
    pub tau: Time,
    #[serde(default = "initial_rate")]
    pub initial_rate: Rate,
    #[serde(default)]
    pub lag: Lag,
}

/// What a multirate coder learns of its sender's rate `tau` late.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Lag {
    /// Every change: the coder codes at the sender's rate of `tau` ago.
    #[default]
    All,
    /// Cuts only: the coder codes at the sender's highest rate of the last `tau`.
    Cuts,
}

fn initial_rate() -> Rate {
    lit("100kbps")
}

/// An MPEG-4 source: a GOP pattern at a frame rate, each frame type's sizes from a TES model
/// with the type's statistics (`ccscope.video.fit_trace` fits them to a frame-size trace).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Mpeg4 {
    /// Frame types in order, starting with I (letters I, P, B).
    #[serde(default = "gop")]
    pub gop: String,
    /// Frames per second, > 0.
    #[serde(default = "fps")]
    pub fps: f64,
    pub i: FrameType,
    /// Required when the GOP has P frames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<FrameType>,
    /// Required when the GOP has B frames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<FrameType>,
    /// Code at the sender's rate: every frame's size scaled by that rate over the mean rate
    /// the frame statistics give (an rtp source's target, a rate source's rate).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub follow_rate: bool,
}

impl Mpeg4 {
    /// The statistics of frame type `kind` (I, P or B); None for a type the GOP does not
    /// have and the scenario does not give.
    pub fn frame_type(&self, kind: char) -> Option<&FrameType> {
        match kind.to_ascii_uppercase() {
            'I' => Some(&self.i),
            'P' => self.p.as_ref(),
            _ => self.b.as_ref(),
        }
    }
}

fn gop() -> String {
    "IBBPBBPBBPBB".to_string()
}
fn fps() -> f64 {
    25.0
}

/// One frame type's sizes: mean, coefficient of variation, lag-1 autocorrelation between
/// successive frames of the type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FrameType {
    pub mean: Size,
    pub cov: f64,
    pub lag1: f64,
}

/// How ON and OFF period lengths are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Distribution {
    #[default]
    Pareto,
    Exponential,
}

/// Pareto or exponential ON/OFF periods with the given means.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnOff {
    /// Rate while ON.
    pub rate: Rate,
    /// Mean ON period.
    #[serde(default = "one_s")]
    pub on: Time,
    /// Mean OFF period.
    #[serde(default = "two_s")]
    pub off: Time,
    #[serde(default)]
    pub distribution: Distribution,
    /// Pareto shape, > 1.
    #[serde(default = "shape")]
    pub shape: f64,
    /// Each ON period is one transfer of its data, offered at once; the OFF period (think time)
    /// starts when it is acknowledged: web-like transfers over TCP. Default: paced at `rate`.
    #[serde(default)]
    pub transfers: bool,
}

fn one_s() -> Time {
    lit("1s")
}
fn two_s() -> Time {
    lit("2s")
}
fn thirty_s() -> Time {
    lit("30s")
}
fn shape() -> f64 {
    1.5
}

/// A square wave: `rate` for `on`, silent for `off`, starting ON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Square {
    pub rate: Rate,
    #[serde(default = "thirty_s")]
    pub on: Time,
    #[serde(default = "thirty_s")]
    pub off: Time,
}

/// A datagram flow without congestion control carrying an application.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Udp {
    #[serde(default = "packet_size")]
    pub packet_size: Size,
    pub app: App,
}

fn packet_size() -> Size {
    lit("1000B")
}

/// A receiver that buffers and plays out at a constant rate (Cai et al. §IV-A, §V-B).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Playback {
    /// Playback starts this long after the first delivery.
    #[serde(default = "three_s")]
    pub startup: Time,
    /// After an underrun, playback resumes once the buffer holds this much playback time;
    /// default the start-up delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rebuffer: Option<Time>,
    /// Consumption rate; default the flow's mean throughput over the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Largest gap between deliveries of a jitter-free packet (Papadimitriou & Zhang §V).
    #[serde(default = "vdi_threshold")]
    pub vdi_threshold: Time,
}

fn three_s() -> Time {
    lit("3s")
}

impl Default for Playback {
    /// Every default: a 3 s start-up, re-buffering as much, the mean throughput, 75 ms.
    fn default() -> Self {
        Playback {
            startup: three_s(),
            rebuffer: None,
            rate: None,
            vdi_threshold: vdi_threshold(),
        }
    }
}
fn vdi_threshold() -> Time {
    lit("75ms")
}

impl App {
    pub(super) fn validate(&self, at: &str) -> Result<()> {
        match self {
            App::Onoff(o) => {
                rate_bps(&format!("{at}.rate"), &o.rate)?;
                time_ns(&format!("{at}.on"), &o.on, true)?;
                time_ns(&format!("{at}.off"), &o.off, true)?;
                if !(o.shape.is_finite() && o.shape > 1.0) {
                    return Err(Error::invalid(
                        format!("{at}.shape"),
                        format!("{:?}", o.shape),
                        "must be > 1 (a Pareto period with a finite mean)",
                    ));
                }
                check_range(&format!("{at}.shape"), o.shape, 1.0, 1e6).map(|_| ())
            }
            App::Square(s) => {
                rate_bps(&format!("{at}.rate"), &s.rate)?;
                time_ns(&format!("{at}.on"), &s.on, true)?;
                time_ns(&format!("{at}.off"), &s.off, true).map(|_| ())
            }
            App::Fgs(f) => {
                let base = rate_bps(&format!("{at}.base"), &f.base)?;
                if rate_bps(&format!("{at}.max"), &f.max)? < base {
                    return Err(Error::invalid(
                        format!("{at}.max"),
                        format!("'{}'", f.max),
                        format!("must be at least base = '{}'", f.base),
                    ));
                }
                check_range(&format!("{at}.fps"), f.fps, 1e-3, 1e4).map(|_| ())
            }
            App::Encoder(e) => {
                check_range(&format!("{at}.fps"), e.fps, 1.0, 240.0)?;
                let min = rate_bps(&format!("{at}.min_rate"), &e.min_rate)?;
                if rate_bps(&format!("{at}.max_rate"), &e.max_rate)? < min {
                    return Err(Error::invalid(
                        format!("{at}.max_rate"),
                        format!("'{}'", e.max_rate),
                        format!("must be at least min_rate = '{}'", e.min_rate),
                    ));
                }
                let reaction = format!("{at}.reaction");
                time_ns(&reaction, &e.reaction, false)?;
                if e.reaction.secs() > 10.0 {
                    return Err(Error::invalid(
                        reaction,
                        format!("'{}'", e.reaction),
                        "must be at most 10 s",
                    ));
                }
                let big = format!("{at}.big_change");
                if !(e.big_change.is_finite() && e.big_change > 0.0 && e.big_change <= 10.0) {
                    return Err(Error::invalid(
                        big,
                        format!("{:?}", e.big_change),
                        "must be in (0, 10]",
                    ));
                }
                check_range(&format!("{at}.max_step"), e.max_step, 0.0, 1.0)?;
                count_in(&format!("{at}.burst_frames"), e.burst_frames, 1, 1000)?;
                size_bytes(&format!("{at}.burst_size"), &e.burst_size, 1e9)?;
                check_range(&format!("{at}.size_scale"), e.size_scale, 0.0, 1.0)?;
                check_range(&format!("{at}.interval_scale"), e.interval_scale, 0.0, 1.0)?;
                if let Some(k) = &e.key_interval {
                    time_ns(&format!("{at}.key_interval"), k, true)?;
                }
                e.pause_window(at).map(|_| ())
            }
            App::Multirate(m) => {
                time_ns(&format!("{at}.tau"), &m.tau, false)?;
                rate_bps(&format!("{at}.initial_rate"), &m.initial_rate).map(|_| ())
            }
            App::Mpeg4(m) => {
                let ok =
                    m.gop.starts_with(['I', 'i']) && m.gop.chars().all(|c| "IPBipb".contains(c));
                if !ok {
                    return Err(Error::invalid(
                        format!("{at}.gop"),
                        format!("'{}'", m.gop),
                        "letters I, P and B, starting with I",
                    ));
                }
                check_range(&format!("{at}.fps"), m.fps, 1e-3, 1e4)?;
                for name in ['i', 'p', 'b'] {
                    let here = format!("{at}.{name}");
                    let Some(t) = m.frame_type(name) else {
                        if m.gop.to_ascii_lowercase().contains(name) {
                            return Err(Error::invalid(
                                here,
                                "",
                                format!(
                                    "this key is required: the gop has {} frames",
                                    name.to_ascii_uppercase()
                                ),
                            ));
                        }
                        continue;
                    };
                    size_bytes(&format!("{here}.mean"), &t.mean, 1e9)?;
                    if !(t.cov.is_finite() && t.cov > 0.0 && t.cov <= 10.0) {
                        return Err(Error::invalid(
                            format!("{here}.cov"),
                            format!("{:?}", t.cov),
                            "must be in (0, 10]",
                        ));
                    }
                    check_range(&format!("{here}.lag1"), t.lag1, 0.0, MAX_LAG1)?;
                }
                Ok(())
            }
        }
    }
}

impl Playback {
    pub(super) fn validate(&self, at: &str) -> Result<()> {
        time_ns(&format!("{at}.startup"), &self.startup, false)?;
        if let Some(r) = &self.rebuffer {
            time_ns(&format!("{at}.rebuffer"), r, false)?;
        }
        if let Some(r) = &self.rate {
            rate_bps(&format!("{at}.rate"), r)?;
        }
        time_ns(&format!("{at}.vdi_threshold"), &self.vdi_threshold, true).map(|_| ())
    }
}
