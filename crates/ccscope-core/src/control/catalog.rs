//! The one catalogue of the papers' controllers, window and rate alike: what `ccscope
//! controllers` lists and what scenario files name.
//!
//! Each entry's parameter table is the only place where its parameters' names, ranges, defaults
//! and β convention are declared. Resolving a name and parameters against it gives a
//! [`ControllerConfig`], checked once, here; the config is then the factory of every flow that
//! runs the controller (the config type is the factory, as quinn's `NewRenoConfig::build`), and
//! of the receiver a rate controller needs. The constructors it calls trust their arguments.
//!
//! Names are case-insensitive and may carry the paper's positional notation: `ISCC(-1.5,2)`,
//! `GAIMD(0.31,0.875)`, `SIMD(1/16)`, `rate-AIMD(1,1/2)` set the first parameters in order.

use std::fmt;
use std::ops::Index;

use serde::Serialize;

use super::media::{
    ArrivalFilter, Gcc, GccParams, Nada, NadaParams, Scream, Scream2, Scream2Params, ScreamParams,
};
use super::rate::{
    Iscc, Rap, RapTimers, RateBinomial, RateConfig, Ssvp, SsvpDecrease, TearSender, Tfrc,
    TfrcVariant, MAX_RATE_BPS,
};
use super::receiver::{LossCounter, Receiver, ReportEvery, TearReceiver, TfrcReceiver};
use super::window::{
    friendly_alpha_cai, friendly_alpha_jin, friendly_alpha_yang, Aimd, Bbr, Bbr3, Bbr3Params,
    BbrLinuxParts, Binomial, Copa, CopaParams, Cubic, Cubic2622, Cubic2622Params, CubicParams,
    Dctcp, History, Taimd, Vegas, VegasNs2Rules, Window, WindowConfig, WindowRule, BANSAL_ALPHA,
    BANSAL_BETA, DCTCP_G, MAX_ALPHA, MAX_K, MAX_VEGAS_PKTS, MIN_HISTORY_K, VEGAS_ALPHA, VEGAS_BETA,
    VEGAS_GAMMA,
};
use super::Controller;
use crate::error::{written_number, Error, Result};
use crate::scenario::PythonController;

/// Which engine-side machinery runs a controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// A congestion window, run by TCP (packet engine) or read as a window (round model).
    Window,
    /// A pacing rate, run by the rate transport with its receiver (packet engine) or read as a
    /// rate (round model).
    Rate,
    /// A media encoder's target rate from per-packet feedback (RFC 8888 or transport-wide), run
    /// by the media transport (`rtp` sources); not in the round model.
    Media,
}

/// The values a parameter may take: from `min` to `max`, each end included or excluded.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Range {
    pub min: f64,
    pub max: f64,
    /// Whether `min` itself is excluded (see the parameter's `meaning`).
    #[serde(skip)]
    pub min_excluded: bool,
    /// Whether `max` itself is excluded.
    #[serde(skip)]
    pub max_excluded: bool,
}

impl Range {
    /// `[min, max]`.
    pub const fn closed(min: f64, max: f64) -> Self {
        Range {
            min,
            max,
            min_excluded: false,
            max_excluded: false,
        }
    }

    /// `(min, max)`.
    pub const fn open(min: f64, max: f64) -> Self {
        Range {
            min_excluded: true,
            max_excluded: true,
            ..Range::closed(min, max)
        }
    }

    /// `(min, max]`.
    pub const fn open_closed(min: f64, max: f64) -> Self {
        Range {
            min_excluded: true,
            ..Range::closed(min, max)
        }
    }

    /// `[min, max)`.
    pub const fn closed_open(min: f64, max: f64) -> Self {
        Range {
            max_excluded: true,
            ..Range::closed(min, max)
        }
    }

    /// Whether `x` is finite and within the range.
    pub fn contains(&self, x: f64) -> bool {
        let above = if self.min_excluded {
            x > self.min
        } else {
            x >= self.min
        };
        let below = if self.max_excluded {
            x < self.max
        } else {
            x <= self.max
        };
        x.is_finite() && above && below
    }

    /// `x` when it is within the range, else an error naming `field` and the range.
    pub fn check(&self, field: &str, x: f64) -> Result<f64> {
        if self.contains(x) {
            Ok(x)
        } else {
            Err(Error::invalid(
                field,
                written_number(x),
                format!("must be in {self}"),
            ))
        }
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let open = if self.min_excluded { '(' } else { '[' };
        let close = if self.max_excluded { ')' } else { ']' };
        write!(f, "{open}{}, {}{close}", self.min, self.max)
    }
}

/// One parameter of a catalogued controller.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ParamInfo {
    pub name: &'static str,
    /// Value used when the parameter is omitted; `None` when it is required, derived from the
    /// others (`derive`) or left unset (see `meaning`).
    pub default: Option<f64>,
    /// Whether the parameter must be given.
    pub required: bool,
    #[serde(flatten)]
    pub range: Range,
    /// A switch: only the range's ends are allowed, `min` (off) and `max` (on).
    #[serde(skip)]
    pub switch: bool,
    /// The default when it follows from the other parameters (`default` is then `None`).
    #[serde(skip)]
    pub derive: Option<fn(&Values) -> f64>,
    pub meaning: &'static str,
}

impl ParamInfo {
    /// `x` when this parameter may take it, else an error naming the field.
    fn check(&self, x: f64) -> Result<f64> {
        let field = format!("controller.{}", self.name);
        let x = self.range.check(&field, x)?;
        if self.switch && x != self.range.min && x != self.range.max {
            let (off, on) = (self.range.min, self.range.max);
            return Err(Error::invalid(
                field,
                written_number(x),
                format!("must be {off} (off) or {on} (on)"),
            ));
        }
        Ok(x)
    }
}

/// One catalogued controller.
#[derive(Clone, Debug, Serialize)]
pub struct ControllerInfo {
    /// The name [`ControllerConfig::resolve`] accepts (any case).
    pub name: &'static str,
    pub family: Family,
    pub summary: &'static str,
    /// Which β convention the parameters use.
    pub convention: &'static str,
    /// Where the controller and its parameter values come from.
    pub paper: &'static str,
    pub params: Vec<ParamInfo>,
}

/// A controller's parameter values after [`ControllerConfig::resolve`]: given, defaulted or
/// derived, each checked, in the order of its table. Unset optional parameters are absent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Values(Vec<(&'static str, f64)>);

impl Values {
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }

    /// (name, value) pairs in table order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        self.0.iter().copied()
    }
}

impl Index<&str> for Values {
    type Output = f64;

    /// The value of a parameter that resolution guarantees (required, or with a default).
    fn index(&self, name: &str) -> &f64 {
        match self.0.iter().find(|(n, _)| *n == name) {
            Some((_, v)) => v,
            None => panic!("controller parameter {name:?} is not resolved"),
        }
    }
}

/// How a built controller starts: a window controller reads `window`, a rate controller `rate`.
/// A controller that draws random numbers makes its own stream from `seed` and `flow`
/// ([`Start::rng`]), so that a run stays a function of its scenario and seed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Start {
    pub window: WindowConfig,
    pub rate: RateConfig,
    /// The run's seed.
    pub seed: u64,
    /// The flow's index in the run (counts expanded); [`ControllerChoice::make`] sets it.
    pub flow: u64,
}

impl Start {
    /// The controller's own random stream: the run's stream of kind
    /// [`Stream::Controller`](crate::rng::Stream::Controller) numbered by the flow.
    pub fn rng(&self) -> crate::rng::Rng {
        crate::rng::stream(self.seed, crate::rng::Stream::Controller, self.flow)
    }
}

/// What to make of a catalogued controller. [`Make::make`] receives a factory of the
/// controller's concrete type `C`, so that the caller can keep `C` (the round model steps a
/// vector of one controller type without dynamic dispatch) or box it ([`Boxed`]).
pub trait Make {
    type Output;

    /// Called once per build with `new`, which builds a fresh controller per call.
    fn make<C: Controller + 'static>(self, new: impl Fn() -> C) -> Self::Output;
}

/// [`Make`]s one `Box<dyn Controller>`.
pub struct Boxed;

impl Make for Boxed {
    type Output = Box<dyn Controller>;

    fn make<C: Controller + 'static>(self, new: impl Fn() -> C) -> Box<dyn Controller> {
        Box::new(new())
    }
}

/// A catalogued controller resolved from its name and parameters: checked once, then the
/// factory of every flow that runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct ControllerConfig {
    /// Position of the entry in the catalogue.
    index: usize,
    family: Family,
    name: &'static str,
    values: Values,
}

impl ControllerConfig {
    /// Resolves the controller `name` (any case, paper notation allowed) of either family with
    /// `params`: unknown names and parameters, values outside their ranges and relations the
    /// paper requires between them are errors naming the field.
    pub fn resolve(name: &str, params: &[(String, f64)]) -> Result<Self> {
        resolve(None, name, params)
    }

    /// [`ControllerConfig::resolve`] among the controllers of `family` only (the error for any
    /// other name lists that family's names).
    pub fn resolve_in(family: Family, name: &str, params: &[(String, f64)]) -> Result<Self> {
        resolve(Some(family), name, params)
    }

    pub fn family(&self) -> Family {
        self.family
    }

    /// The catalogue name (lower case).
    pub fn name(&self) -> &'static str {
        self.name
    }

    pub fn values(&self) -> &Values {
        &self.values
    }

    /// Builds the controller starting as `start` says (its family's part of it, which is
    /// checked; the parameters were checked by the resolution).
    pub fn build(&self, start: &Start) -> Result<Box<dyn Controller>> {
        self.build_with(start, Boxed)
    }

    /// Hands `make` a factory of the controller's concrete type, starting as `start` says
    /// (checked once here; the parameters were checked by the resolution).
    pub fn build_with<M: Make>(&self, start: &Start, make: M) -> Result<M::Output> {
        match self.family {
            Family::Window => start.window.validate()?,
            Family::Rate | Family::Media => start.rate.validate()?,
        }
        let entries = entries::<M>();
        Ok((entries[self.index].build)(&self.values, start, make))
    }

    /// Whether the controller reacts to ECN marks only (DCTCP, RFC 8257 §3): its flows must
    /// carry ECN-capable packets.
    pub fn needs_ecn(&self) -> bool {
        entries::<Boxed>()[self.index].needs_ecn
    }

    /// The receiver-side logic a rate controller needs; `None` for a window controller.
    pub fn receiver(&self) -> Option<Box<dyn Receiver>> {
        entries::<Boxed>()[self.index]
            .receiver
            .map(|r| r(&self.values))
    }
}

/// A flow's controller as the engines take it: resolved from the catalogue (once per scenario
/// entry, when the scenario is built), or written outside it (in Python) and made per flow by
/// the run's [`Foreign`] factory. [`ControllerChoice::make`] is the one route by which a
/// controller of either kind reaches any engine.
#[derive(Clone, Debug, PartialEq)]
pub enum ControllerChoice {
    Catalogued(ControllerConfig),
    External(PythonController),
}

impl From<ControllerConfig> for ControllerChoice {
    fn from(config: ControllerConfig) -> Self {
        ControllerChoice::Catalogued(config)
    }
}

/// Makes the controllers a run names outside the catalogue: the Python bindings implement
/// it. A run without such controllers uses [`NoForeign`].
pub trait Foreign {
    /// Flow `flow`'s (counts expanded) controller `spec`, starting as `start` says; `family`
    /// is what the flow's source runs (`None` in the round model, which runs either).
    fn make(
        &mut self,
        flow: usize,
        spec: &PythonController,
        family: Option<Family>,
        start: &Start,
    ) -> Result<Box<dyn Controller>>;
}

/// The [`Foreign`] factory of a run that was handed no controllers: every request is an error
/// naming the controller.
pub struct NoForeign;

impl Foreign for NoForeign {
    fn make(
        &mut self,
        _flow: usize,
        spec: &PythonController,
        _family: Option<Family>,
        _start: &Start,
    ) -> Result<Box<dyn Controller>> {
        Err(Error::invalid(
            "controller",
            format!("'{}'", spec.name()),
            "a controller written in Python runs only from Python (ccscope run, or ccscope.run)",
        ))
    }
}

/// The [`Foreign`] factory of a check that builds a run without running it: each controller
/// written outside the catalogue stands in as TCP's window (a window flow) or a constant rate
/// of one packet a second (a rate or media flow), so that the rest of the run can be built and
/// checked.
pub struct StandIn;

impl Foreign for StandIn {
    fn make(
        &mut self,
        _flow: usize,
        _spec: &PythonController,
        family: Option<Family>,
        start: &Start,
    ) -> Result<Box<dyn Controller>> {
        Ok(match family {
            Some(Family::Rate | Family::Media) => {
                let rate = 8.0 * f64::from(start.rate.packet_bytes.max(1));
                Box::new(super::ConstantRate::new(rate)?)
            }
            _ => Box::new(Aimd::tcp().starting(start.window)),
        })
    }
}

impl ControllerChoice {
    /// Flow `flow`'s controller of `family`, starting as `start` says: built from the
    /// catalogue, or made by `foreign`.
    pub fn make(
        &self,
        flow: usize,
        family: Option<Family>,
        start: &Start,
        foreign: &mut dyn Foreign,
    ) -> Result<Box<dyn Controller>> {
        let start = &Start {
            flow: flow as u64,
            ..*start
        };
        match self {
            ControllerChoice::Catalogued(config) => config.build(start),
            ControllerChoice::External(spec) => foreign.make(flow, spec, family, start),
        }
    }

    /// The receiver a rate controller needs: a catalogued controller's own, or the one
    /// `feedback` names (one of [`FEEDBACK_KINDS`]) for a controller written outside the
    /// catalogue.
    pub fn receiver(&self, feedback: Option<&str>) -> Result<Box<dyn Receiver>> {
        match (self, feedback) {
            (ControllerChoice::Catalogued(config), _) => config
                .receiver()
                .ok_or_else(|| Error::invalid("controller", config.name(), "a rate controller")),
            (ControllerChoice::External(_), Some(kind)) => feedback_receiver(kind),
            (ControllerChoice::External(_), None) => Err(Error::invalid(
                "feedback",
                "(missing)",
                format!(
                    "required for a controller outside the catalogue; one of {}",
                    FEEDBACK_KINDS.join(", ")
                ),
            )),
        }
    }
}

/// Every catalogued controller with its family, parameters, conventions and sources: the window
/// controllers, then the rate controllers.
pub fn catalogue() -> Vec<ControllerInfo> {
    entries::<Boxed>().into_iter().map(|e| e.info).collect()
}

/// A catalogued controller as `ccscope controllers` lists it: its [`ControllerInfo`] and
/// whether its flows must be ECN-capable.
#[derive(Clone, Debug, Serialize)]
pub struct Listed {
    #[serde(flatten)]
    pub info: ControllerInfo,
    pub needs_ecn: bool,
}

/// The catalogue as `ccscope controllers` lists it, in [`catalogue`]'s order.
pub fn listing() -> Vec<Listed> {
    entries::<Boxed>()
        .into_iter()
        .map(|e| Listed {
            info: e.info,
            needs_ecn: e.needs_ecn,
        })
        .collect()
}

/// Builds the window controller `name` (any case) with `params`, starting as `start` says (the
/// packet engine's TCP).
pub fn build_window(
    name: &str,
    params: &[(String, f64)],
    start: WindowConfig,
) -> Result<Box<dyn Controller>> {
    let start = Start {
        window: start,
        ..Start::default()
    };
    ControllerConfig::resolve_in(Family::Window, name, params)?.build(&start)
}

/// Builds the sender side of the rate controller `name` (any case) with `params`, starting as
/// `start` says.
pub fn build_rate(
    name: &str,
    params: &[(String, f64)],
    start: RateConfig,
) -> Result<Box<dyn Controller>> {
    let start = Start {
        rate: start,
        ..Start::default()
    };
    ControllerConfig::resolve_in(Family::Rate, name, params)?.build(&start)
}

/// Builds the receiver side of the rate controller `name` (any case) with `params`.
pub fn build_receiver(name: &str, params: &[(String, f64)]) -> Result<Box<dyn Receiver>> {
    let config = ControllerConfig::resolve_in(Family::Rate, name, params)?;
    Ok(config.receiver().expect("a rate controller has a receiver"))
}

/// Feedback styles a controller written outside the catalogue (e.g. in Python) can ask for.
pub const FEEDBACK_KINDS: [&str; 6] = [
    "per-rtt",
    "per-packet",
    "tfrc",
    "tfrc-ns2",
    "tfrc-2000",
    "tear",
];

/// The receiver of feedback style `kind` (one of [`FEEDBACK_KINDS`], any case).
pub fn feedback_receiver(kind: &str) -> Result<Box<dyn Receiver>> {
    let name = match kind.to_ascii_lowercase().as_str() {
        "per-rtt" => "rate-aimd",
        "per-packet" => "rap",
        k @ ("tfrc" | "tfrc-ns2" | "tfrc-2000" | "tear") => return build_receiver(k, &[]),
        _ => {
            return Err(Error::UnknownName {
                field: "feedback".into(),
                value: kind.into(),
                known: FEEDBACK_KINDS.join(", "),
            })
        }
    };
    build_receiver(name, &[])
}

/// Builds the receiver a rate controller needs from its checked values.
type ReceiverBuilder = fn(&Values) -> Box<dyn Receiver>;

/// One entry of the catalogue, for builds that [`Make`] an `M`.
struct Entry<M: Make> {
    info: ControllerInfo,
    /// Relations between the parameters that their ranges cannot state, checked after them.
    relation: Option<fn(&Values) -> Result<()>>,
    /// Hands `M` the controller's factory, from checked values and a checked start.
    build: fn(&Values, &Start, M) -> M::Output,
    /// The receiver a rate controller needs.
    receiver: Option<ReceiverBuilder>,
    /// The controller reacts to ECN marks only, so its flows must be ECN-capable (Linux
    /// `TCP_CONG_NEEDS_ECN`).
    needs_ecn: bool,
}

const BETA_KEPT: &str = "β kept: a reduction sets w ← β·w (Yang & Lam, Cai et al.)";
const BETA_REMOVED: &str =
    "β removed: a reduction sets w ← w − β·w^l (Jin et al., Loguinov & Radha, Bansal & Balakrishnan)";
const RATE_REMOVED: &str = "rate-based: β is removed (r ← r − σ·r^l), as in Loguinov & Radha";
const RATE_KEPT: &str = "rate-based: β is kept (rate ← β·rate)";
const EQUATION: &str = "equation-based (no α, β)";
const MODEL_BASED: &str =
    "model-based: a window and a pace from the path's estimated bandwidth and RTT (no α, β)";

/// An optional parameter with a fixed default (or none: left unset).
fn param(
    name: &'static str,
    default: Option<f64>,
    range: Range,
    meaning: &'static str,
) -> ParamInfo {
    ParamInfo {
        name,
        default,
        required: false,
        range,
        switch: false,
        derive: None,
        meaning,
    }
}

/// A parameter that must be given.
fn required(name: &'static str, range: Range, meaning: &'static str) -> ParamInfo {
    ParamInfo {
        required: true,
        ..param(name, None, range, meaning)
    }
}

/// A parameter whose default follows from the others.
fn derived(
    name: &'static str,
    range: Range,
    derive: fn(&Values) -> f64,
    meaning: &'static str,
) -> ParamInfo {
    ParamInfo {
        derive: Some(derive),
        ..param(name, None, range, meaning)
    }
}

/// A window controller's additive-increase constant.
const ALPHA: Range = Range::open_closed(0.0, MAX_ALPHA);
/// A window controller's β, kept or removed.
const BETA: Range = Range::open(0.0, 1.0);

fn alpha(default: f64, meaning: &'static str) -> ParamInfo {
    param("alpha", Some(default), ALPHA, meaning)
}

fn friendly_alpha(derive: fn(&Values) -> f64, meaning: &'static str) -> ParamInfo {
    derived("alpha", ALPHA, derive, meaning)
}

/// β with a default, or required without one.
fn beta(default: Option<f64>, meaning: &'static str) -> ParamInfo {
    match default {
        Some(_) => param("beta", default, BETA, meaning),
        None => required("beta", BETA, meaning),
    }
}

/// Loguinov & Radha's MTU/RTT of (4), fixed.
fn mtu_per_rtt() -> ParamInfo {
    param(
        "mtu_per_rtt",
        None,
        Range::open_closed(0.0, MAX_RATE_BPS),
        "fixed MTU/RTT of (4) in bits/s, > 0 (Loguinov & Radha fix 5–100 kb/s); default packet size / measured RTT",
    )
}

/// A switch: 0 (off) or 1 (on).
fn switch(name: &'static str, default: f64, meaning: &'static str) -> ParamInfo {
    ParamInfo {
        switch: true,
        ..param(name, Some(default), Range::closed(0.0, 1.0), meaning)
    }
}

fn discounting(default: f64) -> ParamInfo {
    switch(
        "discounting",
        default,
        "receiver's history discounting: 1 on, 0 off (RFC 5348 §5.5)",
    )
}

/// TFRC's s in the throughput equation, set apart from the packet size.
fn equation_mtu() -> ParamInfo {
    param(
        "mtu",
        None,
        Range::closed(1.0, 65535.0),
        "s in the throughput equation (bytes); default the packet size (Loguinov & Radha §VI-C: TFRC(180), 1500-byte packets)",
    )
}

fn level() -> ParamInfo {
    param(
        "level",
        Some(0.005),
        Range::closed_open(0.0, 1.0),
        "congestion level: fraction of a RTT's control packets indicating loss that triggers a decrease",
    )
}

const VEGAS_PKTS: &str =
    "delay-based: α, β, γ count the flow's packets queued in the network (Brakmo & Peterson §3.2)";

/// A Vegas threshold (packets queued).
fn vegas_pkts(name: &'static str, default: f64, meaning: &'static str) -> ParamInfo {
    param(
        name,
        Some(default),
        Range::open_closed(0.0, MAX_VEGAS_PKTS),
        meaning,
    )
}

/// Hands `make` a factory of window controllers built by `new` and started as `start` says.
fn window<M: Make, R: WindowRule + 'static>(
    make: M,
    start: &Start,
    new: impl Fn() -> Window<R>,
) -> M::Output {
    let config = start.window;
    make.make(move || new().starting(config))
}

fn per_rtt(_: &Values) -> Box<dyn Receiver> {
    Box::new(LossCounter::new(ReportEvery::Rtt))
}

fn per_packet(_: &Values) -> Box<dyn Receiver> {
    Box::new(LossCounter::new(ReportEvery::Packet))
}

/// An entry whose controller needs no receiver logic of its own: a window controller (TCP's
/// receiver) or a media controller (the media transport's feedback).
fn window_entry<M: Make>(
    info: ControllerInfo,
    build: fn(&Values, &Start, M) -> M::Output,
) -> Entry<M> {
    Entry {
        info,
        relation: None,
        build,
        receiver: None,
        needs_ecn: false,
    }
}

fn rate_entry<M: Make>(
    info: ControllerInfo,
    build: fn(&Values, &Start, M) -> M::Output,
    receiver: ReceiverBuilder,
) -> Entry<M> {
    Entry {
        info,
        relation: None,
        build,
        receiver: Some(receiver),
        needs_ecn: false,
    }
}

/// GCC's parameters as the catalogue declares them: draft-ietf-rmcat-gcc-02's Table 1, §5.5
/// and §6, and the libwebrtc choices the draft leaves open.
fn gcc_params() -> Vec<ParamInfo> {
    let d = GccParams::default();
    vec![
        param("burst_time", Some(d.burst_time_s * 1e3), Range::closed(0.0, 100.0), "ms: packets sent within it form a group (Table 1: 5 ms)"),
        param("q", Some(d.q), Range::open_closed(0.0, 1.0), "state noise variance of the arrival-time filter (Table 1: 10^-3)"),
        param("e0", Some(d.e0), Range::open_closed(0.0, 1e3), "initial system error variance e(0) (Table 1: 0.1)"),
        param("chi", Some(d.chi), Range::closed(0.001, 0.1), "measurement noise filter coefficient (Table 1: in [0.001, 0.1]; libwebrtc's 0.01)"),
        param("del_var_th", Some(d.del_var_th0_ms), Range::closed(6.0, 600.0), "ms: initial over-use threshold del_var_th(0) (Table 1: 12.5 ms; §5.4 clamps it to [6, 600] ms)"),
        param("overuse_time_th", Some(d.overuse_time_th_s * 1e3), Range::closed(0.0, 1000.0), "ms: how long the estimate must stay above the threshold to signal over-use (Table 1: 10 ms)"),
        param("k_u", Some(d.k_u), Range::closed(0.0, 1.0), "threshold gain while |m| is above it, per ms (Table 1: 0.01)"),
        param("k_d", Some(d.k_d), Range::closed(0.0, 1.0), "threshold gain while |m| is below it, per ms (Table 1: 0.00018)"),
        param("window", Some(d.window_s * 1e3), Range::closed(100.0, 10_000.0), "ms: window T of the incoming rate R_hat (Table 1: 0.5 to 1 s)"),
        param("beta", Some(d.beta), Range::open(0.0, 1.0), "decrease factor: A_hat = beta·R_hat on over-use (Table 1: 0.85; §5.5: 0.8 to 0.95)"),
        switch("trendline", 0.0, "arrival-time filter: 0 the draft's Kalman filter (§5.3), 1 libwebrtc's trendline estimator"),
        switch("loss_based", 1.0, "1: the target is min(As_hat, A_hat) with the loss-based controller of §6; 0: A_hat alone"),
        param("pacing_factor", Some(d.pacing_factor), Range::closed(1.0, 10.0), "pacing rate over the target rate (libwebrtc's pace multiplier 2.5; the draft's §4 pacer is 1)"),
        switch("scale_by_groups", 0.0, "1: the detector compares min(groups, 60)·m_hat with the threshold, as libwebrtc does with its Kalman estimate; 0: m_hat, as the draft says"),
    ]
}

fn gcc_from(v: &Values) -> GccParams {
    GccParams {
        burst_time_s: v["burst_time"] / 1e3,
        q: v["q"],
        e0: v["e0"],
        chi: v["chi"],
        del_var_th0_ms: v["del_var_th"],
        overuse_time_th_s: v["overuse_time_th"] / 1e3,
        k_u: v["k_u"],
        k_d: v["k_d"],
        window_s: v["window"] / 1e3,
        beta: v["beta"],
        filter: if v["trendline"] == 1.0 {
            ArrivalFilter::Trendline
        } else {
            ArrivalFilter::Kalman
        },
        loss_based: v["loss_based"] == 1.0,
        pacing_factor: v["pacing_factor"],
        scale_by_groups: v["scale_by_groups"] == 1.0,
    }
}

/// NADA's parameters as the catalogue declares them: RFC 8698's Figure 3, in its units.
fn nada_params() -> Vec<ParamInfo> {
    let d = NadaParams::default();
    let ms =
        |name, default, max, meaning| param(name, Some(default), Range::closed(0.0, max), meaning);
    vec![
        param("prio", Some(d.prio), Range::open_closed(0.0, 10.0), "PRIO: weight of priority, the flow's share scales with it (Figure 3: 1.0)"),
        param("rmin", Some(d.rmin_bps / 1e3), Range::open_closed(0.0, 1e6), "kb/s: RMIN, the least rate, below rmax (Figure 3: 150 kb/s)"),
        param("rmax", Some(d.rmax_bps / 1e3), Range::open_closed(0.0, 1e6), "kb/s: RMAX, the greatest rate, above rmin (Figure 3: 1500 kb/s)"),
        param("xref", Some(d.xref_ms), Range::open_closed(0.0, 1000.0), "ms: XREF, the reference congestion level (Figure 3: 10 ms)"),
        param("kappa", Some(d.kappa), Range::open_closed(0.0, 10.0), "KAPPA: scaling of the gradual update, eq. 7 (Figure 3: 0.5)"),
        param("eta", Some(d.eta), Range::closed(0.0, 100.0), "ETA: scaling of the gradual update's x_diff term, eq. 7 (Figure 3: 2.0)"),
        param("tau", Some(d.tau_ms), Range::closed(1.0, 10_000.0), "ms: TAU, upper bound of the RTT in the gradual update (Figure 3: 500 ms)"),
        param("delta", Some(d.delta_ms), Range::closed(1.0, 10_000.0), "ms: DELTA, the target feedback interval, the feedback plan's (Figure 3: 100 ms)"),
        param("logwin", Some(d.logwin_ms), Range::closed(10.0, 10_000.0), "ms: LOGWIN, the receiver's observation window (Figure 3: 500 ms)"),
        ms("qeps", d.qeps_ms, 1000.0, "ms: QEPS, queuing delay below which ramp-up may go on (Figure 3: 10 ms)"),
        ms("dfilt", d.dfilt_ms, 1000.0, "ms: DFILT, bound on the filtering delay, eq. 3 (Figure 3: 120 ms)"),
        param("gamma_max", Some(d.gamma_max), Range::closed(0.0, 10.0), "GAMMA_MAX: upper bound on the ramp-up's increase ratio, eq. 3 (Figure 3: 0.5)"),
        ms("qbound", d.qbound_ms, 1000.0, "ms: QBOUND, bound on the self-inflicted queuing delay of ramp-up, eq. 3 (Figure 3: 50 ms)"),
        param("multiloss", Some(d.multiloss), Range::closed(0.0, 1000.0), "MULTILOSS: a loss stays recent for MULTILOSS × the average loss interval (Figure 3: 7.0)"),
        param("qth", Some(d.qth_ms), Range::open_closed(0.0, 10_000.0), "ms: QTH, delay above which the queuing delay is warped, eq. 1 (Figure 3: 50 ms)"),
        param("lambda", Some(d.lambda), Range::closed(0.0, 10.0), "LAMBDA: exponent of the non-linear warping, eq. 1 (Figure 3: 0.5)"),
        param("plrref", Some(d.plrref), Range::open_closed(0.0, 1.0), "PLRREF: reference packet loss ratio, eq. 2 (Figure 3: 0.01)"),
        param("pmrref", Some(d.pmrref), Range::open_closed(0.0, 1.0), "PMRREF: reference packet marking ratio, eq. 2 (Figure 3: 0.01)"),
        ms("dloss", d.dloss_ms, 1000.0, "ms: DLOSS, delay penalty of loss at PLRREF, eq. 2 (Figure 3: 10 ms)"),
        ms("dmark", d.dmark_ms, 1000.0, "ms: DMARK, delay penalty of ECN marking at PMRREF, eq. 2 (Figure 3: 2 ms)"),
        param("fps", Some(d.fps), Range::closed(1.0, 240.0), "FPS: frame rate of the video, eqs. 8 and 9 (Figure 3: 30)"),
        param("beta_v", Some(d.beta_v), Range::closed(0.0, 10.0), "BETA_V: how far the rate shaping buffer lowers the encoder's rate, eq. 8 (Figure 3: 0.1)"),
        param("beta_s", Some(d.beta_s), Range::closed(0.0, 10.0), "BETA_S: how far the rate shaping buffer raises the sending rate, eq. 9 (Figure 3: 0.1)"),
        param("alpha", Some(d.alpha), Range::open_closed(0.0, 1.0), "ALPHA: smoothing of the loss and marking ratios (Figure 3: 0.1)"),
    ]
}

fn nada_from(v: &Values) -> NadaParams {
    NadaParams {
        prio: v["prio"],
        rmin_bps: v["rmin"] * 1e3,
        rmax_bps: v["rmax"] * 1e3,
        xref_ms: v["xref"],
        kappa: v["kappa"],
        eta: v["eta"],
        tau_ms: v["tau"],
        delta_ms: v["delta"],
        logwin_ms: v["logwin"],
        qeps_ms: v["qeps"],
        dfilt_ms: v["dfilt"],
        gamma_max: v["gamma_max"],
        qbound_ms: v["qbound"],
        multiloss: v["multiloss"],
        qth_ms: v["qth"],
        lambda: v["lambda"],
        plrref: v["plrref"],
        pmrref: v["pmrref"],
        dloss_ms: v["dloss"],
        dmark_ms: v["dmark"],
        fps: v["fps"],
        beta_v: v["beta_v"],
        beta_s: v["beta_s"],
        alpha: v["alpha"],
    }
}

/// SCReAM's parameters as the catalogue declares them: RFC 8298 §4.1.1's constants.
fn scream_params() -> Vec<ParamInfo> {
    let d = ScreamParams::default();
    let unit =
        |name, default, meaning| param(name, Some(default), Range::closed(0.0, 1.0), meaning);
    let scale =
        |name, default, meaning| param(name, Some(default), Range::open_closed(0.0, 1.0), meaning);
    vec![
        param("qdelay_target_lo", Some(d.qdelay_target_lo_s * 1e3), Range::closed(1.0, 10_000.0), "ms: QDELAY_TARGET_LO, the least qdelay target, at most qdelay_target_hi (§4.1.1: 100 ms)"),
        param("qdelay_target_hi", Some(d.qdelay_target_hi_s * 1e3), Range::closed(1.0, 10_000.0), "ms: QDELAY_TARGET_HI, the greatest qdelay target, at least qdelay_target_lo (§4.1.1: 400 ms)"),
        scale("qdelay_weight", d.qdelay_weight, "QDELAY_WEIGHT: EWMA weight of the qdelay fraction (§4.1.1: 0.1)"),
        unit("qdelay_trend_th", d.qdelay_trend_th, "QDELAY_TREND_TH: trend that ends fast increase (§4.1.1: 0.2)"),
        param("min_cwnd", Some(d.min_cwnd_bytes), Range::closed(1.0, 1e9), "bytes: MIN_CWND, the least congestion window (§4.1.1: 3000)"),
        param("max_bytes_in_flight_head_room", Some(d.max_bytes_in_flight_head_room), Range::closed(1.0, 10.0), "MAX_BYTES_IN_FLIGHT_HEAD_ROOM: cwnd at most this × the most bytes in flight (§4.1.1: 1.1)"),
        param("gain", Some(d.gain), Range::open_closed(0.0, 100.0), "GAIN: gain of the window's growth (§4.1.1: 1.0)"),
        scale("beta_loss", d.beta_loss, "BETA_LOSS: cwnd scale on a loss event (§4.1.1: 0.8)"),
        scale("beta_ecn", d.beta_ecn, "BETA_ECN: cwnd and target rate scale on an ECN-CE event (§4.1.1: 0.9)"),
        scale("beta_r", d.beta_r, "BETA_R: target rate scale on a loss event (§4.1.1: 0.9)"),
        param("rate_adjust_interval", Some(d.rate_adjust_interval_s * 1e3), Range::closed(1.0, 10_000.0), "ms: RATE_ADJUST_INTERVAL, period of the media rate control (§4.1.1: 200 ms)"),
        param("target_bitrate_min", Some(d.target_bitrate_min_bps / 1e3), Range::open_closed(0.0, 1e6), "kb/s: TARGET_BITRATE_MIN, below target_bitrate_max (the RFC leaves it to the codec; RFC 8593's 150 kb/s)"),
        param("target_bitrate_max", Some(d.target_bitrate_max_bps / 1e3), Range::open_closed(0.0, 1e6), "kb/s: TARGET_BITRATE_MAX, above target_bitrate_min (the RFC leaves it to the codec; RFC 8593's 1500 kb/s)"),
        param("ramp_up_speed", Some(d.ramp_up_speed_bps / 1e3), Range::closed(0.0, 1e6), "kb/s per second: RAMP_UP_SPEED, the target's greatest growth (§4.1.1: 200)"),
        param("pre_congestion_guard", Some(d.pre_congestion_guard), Range::closed(0.0, 1.0), "PRE_CONGESTION_GUARD: how far the qdelay trend slows growth (§4.1.1: 0.0, 0.0 to 0.2 suggested)"),
        param("tx_queue_size_factor", Some(d.tx_queue_size_factor), Range::closed(0.0, 10.0), "TX_QUEUE_SIZE_FACTOR: weight of the RTP queue in the rate change (§4.1.1: 1.0)"),
        param("rtp_qdelay_th", Some(d.rtp_qdelay_th_s * 1e3), Range::closed(0.0, 10_000.0), "ms: RTP_QDELAY_TH, RTP queue delay above which the target is cut (§4.1.1: 20 ms)"),
        scale("target_rate_scale_rtp_qdelay", d.target_rate_scale_rtp_qdelay, "TARGET_RATE_SCALE_RTP_QDELAY: that cut (§4.1.1: 0.95)"),
        unit("qdelay_trend_lo", d.qdelay_trend_lo, "QDELAY_TREND_LO: trend below which fast increase may resume (§4.1.1: 0.2)"),
        param("t_resume_fast_increase", Some(d.t_resume_fast_increase_s), Range::closed(0.0, 3600.0), "s: T_RESUME_FAST_INCREASE, how long the trend must stay low (§4.1.1: 5 s)"),
        param("rate_pace_min", Some(d.rate_pace_min_bps / 1e3), Range::open_closed(0.0, 1e6), "kb/s: RATE_PACE_MIN, the least pacing rate (§4.1.1: 50 kb/s)"),
        switch("compensate", 1.0, "1: the qdelay target follows competing flows between its bounds (§4.1.2.2); 0: it stays at qdelay_target_lo"),
    ]
}

fn scream_from(v: &Values) -> ScreamParams {
    ScreamParams {
        qdelay_target_lo_s: v["qdelay_target_lo"] / 1e3,
        qdelay_target_hi_s: v["qdelay_target_hi"] / 1e3,
        qdelay_weight: v["qdelay_weight"],
        qdelay_trend_th: v["qdelay_trend_th"],
        min_cwnd_bytes: v["min_cwnd"],
        max_bytes_in_flight_head_room: v["max_bytes_in_flight_head_room"],
        gain: v["gain"],
        beta_loss: v["beta_loss"],
        beta_ecn: v["beta_ecn"],
        beta_r: v["beta_r"],
        rate_adjust_interval_s: v["rate_adjust_interval"] / 1e3,
        target_bitrate_min_bps: v["target_bitrate_min"] * 1e3,
        target_bitrate_max_bps: v["target_bitrate_max"] * 1e3,
        ramp_up_speed_bps: v["ramp_up_speed"] * 1e3,
        pre_congestion_guard: v["pre_congestion_guard"],
        tx_queue_size_factor: v["tx_queue_size_factor"],
        rtp_qdelay_th_s: v["rtp_qdelay_th"] / 1e3,
        target_rate_scale_rtp_qdelay: v["target_rate_scale_rtp_qdelay"],
        qdelay_trend_lo: v["qdelay_trend_lo"],
        t_resume_fast_increase_s: v["t_resume_fast_increase"],
        rate_pace_min_bps: v["rate_pace_min"] * 1e3,
        compensate: v["compensate"] == 1.0,
    }
}

/// SCReAMv2's parameters as the catalogue declares them: the constants of
/// draft-johansson-ccwg-rfc8298bis-screamv2-03 (section numbers of that text).
fn scream2_params() -> Vec<ParamInfo> {
    let d = Scream2Params::default();
    let scale =
        |name, default, meaning| param(name, Some(default), Range::open_closed(0.0, 1.0), meaning);
    vec![
        param("qdelay_target_lo", Some(d.qdelay_target_lo_s * 1e3), Range::closed(1.0, 10_000.0), "ms: QDELAY_TARGET_LO, the least qdelay target, at most qdelay_target_hi (§4.2.2: 60 ms)"),
        param("qdelay_target_hi", Some(d.qdelay_target_hi_s * 1e3), Range::closed(1.0, 10_000.0), "ms: QDELAY_TARGET_HI, the greatest qdelay target, at least qdelay_target_lo (§4.2.2: 400 ms)"),
        param("min_ref_wnd", Some(d.min_ref_wnd_bytes), Range::closed(1.0, 1e9), "bytes: MIN_REF_WND, the least reference window (§4.2.2: 3000)"),
        param("bytes_in_flight_head_room", Some(d.bytes_in_flight_head_room), Range::closed(1.0, 10.0), "BYTES_IN_FLIGHT_HEAD_ROOM: ref_wnd grows only up to MSS + this × the most bytes in flight (§4.2.2: 1.5)"),
        scale("beta_loss", d.beta_loss, "BETA_LOSS: ref_wnd scale on a loss event (§4.2.2: 0.7)"),
        scale("beta_ecn", d.beta_ecn, "BETA_ECN: ref_wnd scale on a classic ECN-CE event (§4.2.2: 0.8)"),
        param("ref_wnd_overhead", Some(d.ref_wnd_overhead), Range::closed(1.0, 100.0), "REF_WND_OVERHEAD: bytes in flight may reach this × ref_wnd (§4.2.2: 5.0)"),
        param("post_congestion_delay_rtts", Some(d.post_congestion_delay_rtts), Range::open_closed(0.0, 1e6), "RTTs: POST_CONGESTION_DELAY_RTT, after congestion the multiplicative growth returns over this many RTTs (§4.2.2: 100)"),
        param("mul_increase_factor", Some(d.mul_increase_factor), Range::closed(0.0, 1.0), "MUL_INCREASE_FACTOR: ref_wnd's multiplicative growth per RTT, a fraction of ref_wnd/MSS (§4.2.2: 0.02)"),
        switch("l4s", 0.0, "IS_L4S: 1, CE marks scale ref_wnd by 1 − l4s_alpha/2 (L4S; use a `step` queue and ecn = true); 0, by beta_ecn (classic ECN) (§4.2.2: false)"),
        param("virtual_rtt", Some(d.virtual_rtt_s * 1e3), Range::open_closed(0.0, 10_000.0), "ms: VIRTUAL_RTT, growth slows for RTTs below it (§4.2.2: 25 ms)"),
        scale("l4s_avg_g_up", d.l4s_avg_g_up, "L4S_AVG_G_UP: l4s_alpha's EWMA weight on a rise (§4.2.1.3: 1/8)"),
        scale("l4s_avg_g_down", d.l4s_avg_g_down, "L4S_AVG_G_DOWN: l4s_alpha's EWMA weight on a fall (§4.2.1.3: 1/128)"),
        scale("qdelay_avg_g", d.qdelay_avg_g, "QDELAY_AVG_G: qdelay_avg's EWMA weight on a rise (§4.2.1.4: 1/4)"),
        param("rate_pace_min", Some(d.rate_pace_min_bps / 1e3), Range::open_closed(0.0, 1e6), "kb/s: RATE_PACE_MIN, the least pacing rate (§4.3.3: 50 kb/s)"),
        param("packet_pacing_headroom", Some(d.packet_pacing_headroom), Range::closed(1.0, 10.0), "PACKET_PACING_HEADROOM: pacing rate over the target (§4.3.3: 1.5)"),
        param("bytes_in_flight_limit", Some(d.bytes_in_flight_limit), Range::open_closed(0.0, 10.0), "BYTES_IN_FLIGHT_LIMIT: bytes in flight over ref_wnd above which the target is held back (§4.4: 0.9)"),
        param("bytes_in_flight_limit_compensation", Some(d.bytes_in_flight_limit_compensation), Range::closed(1.0, 10.0), "BYTES_IN_FLIGHT_LIMIT_COMPENSATION: the most the target is divided by then (§4.4: 1.5)"),
        param("packet_overhead", Some(d.packet_overhead_bytes), Range::closed(0.0, 10_000.0), "bytes: PACKET_OVERHEAD, packetization overhead per data unit (§4.4: 20)"),
        param("target_bitrate_min", Some(d.target_bitrate_min_bps / 1e3), Range::open_closed(0.0, 1e6), "kb/s: TARGET_BITRATE_MIN, below target_bitrate_max (the draft leaves it to the application; RFC 8593's 150 kb/s)"),
        param("target_bitrate_max", Some(d.target_bitrate_max_bps / 1e3), Range::open_closed(0.0, 1e6), "kb/s: TARGET_BITRATE_MAX, above target_bitrate_min (the draft leaves it to the application; RFC 8593's 1500 kb/s)"),
        switch("compensate", 1.0, "1: the qdelay target follows competing flows between its bounds (§4.2.1.4.1); 0: it stays at qdelay_target_lo (the section allows turning it off)"),
    ]
}

fn scream2_from(v: &Values) -> Scream2Params {
    Scream2Params {
        qdelay_target_lo_s: v["qdelay_target_lo"] / 1e3,
        qdelay_target_hi_s: v["qdelay_target_hi"] / 1e3,
        min_ref_wnd_bytes: v["min_ref_wnd"],
        bytes_in_flight_head_room: v["bytes_in_flight_head_room"],
        beta_loss: v["beta_loss"],
        beta_ecn: v["beta_ecn"],
        ref_wnd_overhead: v["ref_wnd_overhead"],
        post_congestion_delay_rtts: v["post_congestion_delay_rtts"],
        mul_increase_factor: v["mul_increase_factor"],
        l4s: v["l4s"] == 1.0,
        virtual_rtt_s: v["virtual_rtt"] / 1e3,
        l4s_avg_g_up: v["l4s_avg_g_up"],
        l4s_avg_g_down: v["l4s_avg_g_down"],
        qdelay_avg_g: v["qdelay_avg_g"],
        rate_pace_min_bps: v["rate_pace_min"] * 1e3,
        packet_pacing_headroom: v["packet_pacing_headroom"],
        bytes_in_flight_limit: v["bytes_in_flight_limit"],
        bytes_in_flight_limit_compensation: v["bytes_in_flight_limit_compensation"],
        packet_overhead_bytes: v["packet_overhead"],
        target_bitrate_min_bps: v["target_bitrate_min"] * 1e3,
        target_bitrate_max_bps: v["target_bitrate_max"] * 1e3,
        compensate: v["compensate"] == 1.0,
    }
}

/// SCReAM's and SCReAMv2's relations: the qdelay target's bounds and the target bitrate's.
fn scream_relation(v: &Values) -> Result<()> {
    let (lo, hi) = (v["qdelay_target_lo"], v["qdelay_target_hi"]);
    let allowed = format!(
        "must be at most qdelay_target_hi = {} ms",
        written_number(hi)
    );
    ordered("controller.qdelay_target_lo", lo, hi, true, allowed)?;
    let (lo, hi) = (v["target_bitrate_min"], v["target_bitrate_max"]);
    let allowed = format!(
        "must be below target_bitrate_max = {} kb/s",
        written_number(hi)
    );
    ordered("controller.target_bitrate_min", lo, hi, false, allowed)
}

/// `lo` below (or at, with `equal`) `hi`, else one line naming `field`.
fn ordered(field: &str, lo: f64, hi: f64, equal: bool, allowed: String) -> Result<()> {
    if lo < hi || (equal && lo == hi) {
        Ok(())
    } else {
        Err(Error::invalid(field, written_number(lo), allowed))
    }
}

/// The catalogue: window controllers, then rate controllers, then media controllers.
fn entries<M: Make>() -> Vec<Entry<M>> {
    vec![
        window_entry(
            ControllerInfo {
                name: "tcp",
                family: Family::Window,
                summary: "TCP congestion avoidance: AIMD(1, 1/2), +1 packet per RTT, halve on loss",
                convention: "no parameters",
                paper: "Jacobson 1988; RFC 5681; ns-2.35 tcp.cc / tcp-sack1.cc",
                params: vec![],
            },
            |_, s, m| window(m, s, Aimd::tcp),
        ),
        window_entry(
            ControllerInfo {
                name: "aimd",
                family: Family::Window,
                summary: "AIMD(α, β): +α packets per RTT, w ← w − β·w on congestion",
                convention: BETA_REMOVED,
                paper: "Jin et al. 2001 §2; Loguinov & Radha 2003 (5); Floyd et al. 2000",
                params: vec![
                    friendly_alpha(
                        |v| friendly_alpha_jin(v["beta"]),
                        "packets per RTT, > 0; default the TCP-friendly 3β/(2 − β) (Loguinov & Radha (5))",
                    ),
                    beta(Some(0.5), "fraction of the window removed by a reduction, 0 < β < 1"),
                ],
            },
            |v, s, m| {
                let (a, b) = (v["alpha"], v["beta"]);
                window(m, s, move || Aimd::jin(a, b))
            },
        ),
        window_entry(
            ControllerInfo {
                name: "gaimd",
                family: Family::Window,
                summary: "GAIMD(α, β): +α packets per RTT, w ← β·w on congestion",
                convention: BETA_KEPT,
                paper: "Yang & Lam, ICNP 2000; Yang, Kim & Lam 2003 (GAIMD(0.31, 7/8))",
                params: vec![
                    friendly_alpha(
                        |v| friendly_alpha_yang(v["beta"]),
                        "packets per RTT, > 0; default the TCP-friendly 4(1 − β²)/3 (Yang & Lam)",
                    ),
                    beta(Some(0.875), "fraction of the window kept by a reduction, 0 < β < 1"),
                ],
            },
            |v, s, m| {
                let (a, b) = (v["alpha"], v["beta"]);
                window(m, s, move || Aimd::gaimd(a, b))
            },
        ),
        window_entry(
            ControllerInfo {
                name: "binomial",
                family: Family::Window,
                summary: "Binomial(k, l, α, β): +α/w^k per RTT, w ← w − β·w^l on congestion",
                convention: BETA_REMOVED,
                paper: "Bansal & Balakrishnan 2001; Loguinov & Radha 2003 (3)",
                params: vec![
                    required(
                        "k",
                        Range::closed(0.0, MAX_K),
                        "increase exponent, 0 ≤ k ≤ 2; TCP-compatible iff k + l = 1",
                    ),
                    required("l", Range::closed(0.0, 1.0), "decrease exponent, 0 ≤ l ≤ 1"),
                    alpha(BANSAL_ALPHA, "increase constant (packets^(1+k) per RTT), > 0"),
                    beta(
                        Some(BANSAL_BETA),
                        "decrease constant, removed, 0 < β < 1; α/β ≈ 3/2 is TCP-compatible",
                    ),
                ],
            },
            |v, s, m| {
                let (k, l, a, b) = (v["k"], v["l"], v["alpha"], v["beta"]);
                window(m, s, move || Binomial::new(k, l, a, b))
            },
        ),
        window_entry(
            ControllerInfo {
                name: "iiad",
                family: Family::Window,
                summary: "IIAD(α, β): binomial k = 1, l = 0; +α/w per RTT, w ← w − β on congestion",
                convention: BETA_REMOVED,
                paper: "Bansal & Balakrishnan 2001; Jin et al. 2001 §6 (IIAD(1, 2/3))",
                params: vec![
                    alpha(BANSAL_ALPHA, "increase constant (packets² per RTT), > 0"),
                    beta(Some(BANSAL_BETA), "packets removed by a reduction, 0 < β < 1"),
                ],
            },
            |v, s, m| {
                let (a, b) = (v["alpha"], v["beta"]);
                window(m, s, move || Binomial::iiad(a, b))
            },
        ),
        window_entry(
            ControllerInfo {
                name: "sqrt",
                family: Family::Window,
                summary: "SQRT(α, β): binomial k = l = 1/2; +α/√w per RTT, w ← w − β√w on congestion",
                convention: BETA_REMOVED,
                paper: "Bansal & Balakrishnan 2001; ns-2 tcl/test/test-suite-aimd.tcl",
                params: vec![
                    alpha(BANSAL_ALPHA, "increase constant (packets^1.5 per RTT), > 0"),
                    beta(Some(BANSAL_BETA), "decrease constant, removed, 0 < β < 1"),
                ],
            },
            |v, s, m| {
                let (a, b) = (v["alpha"], v["beta"]);
                window(m, s, move || Binomial::sqrt(a, b))
            },
        ),
        window_entry(
            ControllerInfo {
                name: "simd",
                family: Family::Window,
                summary: "SIMD(β): window grows as w0 + c·t² after each loss, w ← w − β·w on congestion",
                convention: BETA_REMOVED,
                paper: "Jin, Guo, Matta & Bestavros 2001 (k = −1/2, l = 1; α from (4))",
                params: vec![beta(Some(1.0 / 16.0), "fraction of the window removed by a reduction, 0 < β < 1")],
            },
            |v, s, m| {
                let b = v["beta"];
                window(m, s, move || History::simd(b))
            },
        ),
        window_entry(
            ControllerInfo {
                name: "aiad",
                family: Family::Window,
                summary: "AIAD(β): +3β/(2·w_max) per RTT (history-based), w ← w − β on congestion",
                convention: BETA_REMOVED,
                paper: "Jin, Guo, Matta & Bestavros 2001 (k = l = 0; α from (4))",
                params: vec![beta(Some(2.0 / 3.0), "packets removed by a reduction, 0 < β < 1")],
            },
            |v, s, m| {
                let b = v["beta"];
                window(m, s, move || History::aiad(b))
            },
        ),
        window_entry(
            ControllerInfo {
                name: "history",
                family: Family::Window,
                summary: "Jin et al.'s spectrum (k, l, β): +α/(w − w0)^k per RTT, w ← w − β·w^l; α from w_max",
                convention: BETA_REMOVED,
                paper: "Jin, Guo, Matta & Bestavros 2001 (3), (4), Table 1",
                params: vec![
                    required(
                        "k",
                        Range::closed(MIN_HISTORY_K, MAX_K),
                        "increase exponent, −1/2 ≤ k ≤ 2 (window ∝ t^(1/(k+1)))",
                    ),
                    required("l", Range::closed(0.0, 1.0), "decrease exponent, 0 ≤ l ≤ 1"),
                    beta(None, "decrease constant, removed, 0 < β < 1"),
                ],
            },
            |v, s, m| {
                let (k, l, b) = (v["k"], v["l"], v["beta"]);
                window(m, s, move || History::new(k, l, b))
            },
        ),
        window_entry(
            ControllerInfo {
                name: "taimd",
                family: Family::Window,
                summary: "TAIMD(α, β): AIMD with β kept, a reduction removes at least one packet",
                convention: BETA_KEPT,
                paper: "Cai, Shen, Pan & Mark 2005 §III (TAIMD(0.2, 0.875))",
                params: vec![
                    friendly_alpha(
                        |v| friendly_alpha_cai(v["beta"]),
                        "packets per RTT, > 0; default the TCP-friendly 3(1 − β)/(1 + β) (Cai et al. (13))",
                    ),
                    beta(Some(0.875), "fraction of the window kept by a reduction, 0 < β < 1"),
                ],
            },
            |v, s, m| {
                let (a, b) = (v["alpha"], v["beta"]);
                window(m, s, move || Taimd::taimd(a, b))
            },
        ),
        window_entry(
            ControllerInfo {
                name: "dtaimd",
                family: Family::Window,
                summary: "DTAIMD(α, β): TAIMD whose α follows the effective β' = 1 − 1/cwnd at small windows",
                convention: BETA_KEPT,
                paper: "Cai, Shen, Pan & Mark 2005 §III-C, pseudo-code L1–L6 (DTAIMD(0.2, 0.875))",
                params: vec![
                    friendly_alpha(
                        |v| friendly_alpha_cai(v["beta"]),
                        "packets per RTT at large windows, > 0; default 3(1 − β)/(1 + β) (Cai et al. (13))",
                    ),
                    beta(Some(0.875), "fraction of the window kept by a reduction, 0 < β < 1"),
                ],
            },
            |v, s, m| {
                let (a, b) = (v["alpha"], v["beta"]);
                window(m, s, move || Taimd::dtaimd(a, b))
            },
        ),
        window_entry(
            ControllerInfo {
                name: "cubic",
                family: Family::Window,
                summary: "CUBIC(C, β): the window follows C·(t − K)³ + W_max after a reduction to β·w, never below the Reno-friendly AIMD(3(1 − β)/(1 + β), β)",
                convention: BETA_KEPT,
                paper: "RFC 9438 (CUBIC); RFC 9406 (HyStart++); Linux net/ipv4/tcp_cubic.c",
                params: vec![
                    param(
                        "c",
                        Some(0.4),
                        Range::open_closed(0.0, 100.0),
                        "aggressiveness of the cubic (packets/s³), > 0 (RFC 9438 §5.1: 0.4)",
                    ),
                    beta(Some(0.7), "fraction of the window kept by a reduction, 0 < β < 1 (RFC 9438 §4.6: 0.7)"),
                    switch(
                        "fast_convergence",
                        1.0,
                        "1: a reduction below the last W_max lowers W_max further (RFC 9438 §4.7); 0: off, as §4.7 advises for a single flow",
                    ),
                    switch(
                        "hystart",
                        1.0,
                        "1: HyStart++ in the first slow start (RFC 9406, RFC 9438 §4.10); 0: classic slow start (RFC 5681)",
                    ),
                    switch(
                        "reno_friendly",
                        1.0,
                        "1: never below the Reno-friendly window W_est (RFC 9438 §4.3); 0: the cubic alone",
                    ),
                    switch(
                        "linux_friendly",
                        0.0,
                        "1: W_est as Linux tcp_cubic.c (2.6.22 on) counts it: α = 8/⌊8(1024 + b)/(3(1024 − b))⌋, b = 1024·β, never 1; 0: RFC 9438 §4.3's α_cubic, then 1 from cwnd_prior",
                    ),
                    switch(
                        "ssthresh_inclusive",
                        0.0,
                        "1: slow start at cwnd = ssthresh too, as Linux 2.6.22's bictcp_cong_avoid (one packet more after each reduction); 0: below ssthresh only (RFC 5681 §3.1 allows either)",
                    ),
                ],
            },
            |v, s, m| {
                let params = CubicParams {
                    c: v["c"],
                    beta: v["beta"],
                    fast_convergence: v["fast_convergence"] == 1.0,
                    hystart: v["hystart"] == 1.0,
                    reno_friendly: v["reno_friendly"] == 1.0,
                    linux_friendly: v["linux_friendly"] == 1.0,
                    ssthresh_inclusive: v["ssthresh_inclusive"] == 1.0,
                };
                let config = s.window;
                m.make(move || Cubic::new(params).starting(config))
            },
        ),
        window_entry(
            ControllerInfo {
                name: "cubic-2.6.22",
                family: Family::Window,
                summary: "CUBIC in Linux 2.6.22's integers (the module ns-2.35's TCP/Linux runs): whole-packet windows, a millisecond clock, cnt over the delayed-ACK ratio estimate; packet and udp engines only",
                convention: BETA_KEPT,
                paper: "Linux 2.6.22 net/ipv4/tcp_cubic.c (ns-2.35 tcp/linux/src/tcp_cubic.c); RFC 9438",
                params: vec![
                    param(
                        "c",
                        Some(0.4),
                        Range::open_closed(0.0, 100.0),
                        "aggressiveness of the cubic (packets/s³), > 0, held as bic_scale = round(1024·C/10) (the module's 41: C = 410/1024)",
                    ),
                    beta(Some(819.0 / 1024.0), "fraction of the window kept by a reduction, 0 < β < 1, held as round(1024·β) (the module's 819)"),
                    switch(
                        "fast_convergence",
                        1.0,
                        "1: a reduction below the last W_max lowers W_max to ⌊cwnd(1024 + b)/2048⌋ (the module's default); 0: off",
                    ),
                ],
            },
            |v, s, m| {
                let params = Cubic2622Params::from_real(v["c"], v["beta"], v["fast_convergence"] == 1.0);
                let config = s.window;
                m.make(move || Cubic2622::new(params).starting(config))
            },
        ),
        window_entry(
            ControllerInfo {
                name: "bbr",
                family: Family::Window,
                summary: "BBR v1: paces at gain·BtlBw with a window of cwnd_gain·BtlBw·RTprop; Startup, Drain, ProbeBW's eight-phase gain cycle, ProbeRTT every 10 s",
                convention: MODEL_BASED,
                paper: "draft-cardwell-iccrg-bbr-congestion-control-00; Cardwell et al., ACM Queue 2016; Linux net/ipv4/tcp_bbr.c",
                params: vec![
                    param(
                        "cwnd_gain",
                        Some(2.0),
                        Range::closed(1.0, 10.0),
                        "ProbeBW's window in estimated BDPs, cwnd_gain·BtlBw·RTprop, in [1, 10] (draft §4.3.4: 2)",
                    ),
                    switch(
                        "ack_aggregation",
                        0.0,
                        "1: the window's target adds the packets ACKed beyond BtlBw's pace in an epoch, their maximum over 5-10 rounds, at most BtlBw × 100 ms (Linux 5.1+ tcp_bbr.c bbr_ack_aggregation_cwnd); 0: the draft's target alone",
                    ),
                    switch(
                        "quantization",
                        0.0,
                        "1: the window's target in whole packets as Linux rounds it: the BDP rounded up, 3 TSO bursts of whole segments (1/1024 s at the pacing rate, at least 2 from 1.2 Mb/s), rounded up to even, 2 more in ProbeBW's 1.25 phase (tcp_bbr.c bbr_bdp, bbr_quantization_budget, bbr_tso_segs_goal); 0: the draft's unrounded target",
                    ),
                    switch(
                        "strict_min_rtt",
                        0.0,
                        "1: RTprop refreshed before it is 10 s old only by a sample below it (tcp_bbr.c bbr_update_min_rtt), so that samples equal to it do not put ProbeRTT off; 0: by one at or below it (draft §4.1.2.3)",
                    ),
                ],
            },
            |v, s, m| {
                let linux = BbrLinuxParts {
                    ack_aggregation: v["ack_aggregation"] == 1.0,
                    quantization: v["quantization"] == 1.0,
                    strict_min_rtt: v["strict_min_rtt"] == 1.0,
                };
                let (gain, start) = (v["cwnd_gain"], *s);
                m.make(move || Bbr::with_linux(gain, linux, start.window, start.rng()))
            },
        ),
        window_entry(
            ControllerInfo {
                name: "bbr3",
                family: Family::Window,
                summary: "BBR v3: BBR's model bounded by loss; ProbeBW's DOWN, CRUISE, REFILL and UP with inflight_hi/lo and bw_lo, probing every 2-3 s or min(BDP, 63) rounds",
                convention: MODEL_BASED,
                paper: "draft-ietf-ccwg-bbr-06; Linux net/ipv4/tcp_bbr.c (BBRv3, ECN threshold)",
                params: vec![
                    param(
                        "loss_thresh",
                        Some(0.02),
                        Range::open(0.0, 1.0),
                        "the largest loss rate per round a bandwidth probe tolerates, in (0, 1) (§2.8: 2%)",
                    ),
                    beta(Some(0.7), "the short-term bounds kept per round with loss, 0 < β < 1 (§2.8: 0.7)"),
                    param(
                        "headroom",
                        Some(0.15),
                        Range::closed_open(0.0, 1.0),
                        "the share of inflight_longterm left free in CRUISE and ProbeRTT, in [0, 1) (§2.8: 0.15)",
                    ),
                    param(
                        "ecn_thresh",
                        Some(0.5),
                        Range::open_closed(0.0, 1.0),
                        "the share of a round's delivered packets marked CE that counts as loss, in (0, 1] (Linux tcp_bbr.c: 0.5; the draft leaves ECN open, §3.7)",
                    ),
                ],
            },
            |v, s, m| {
                let p = Bbr3Params {
                    loss_thresh: v["loss_thresh"],
                    beta: v["beta"],
                    headroom: v["headroom"],
                    ecn_thresh: v["ecn_thresh"],
                };
                let start = *s;
                m.make(move || Bbr3::new(p, start.window, start.rng()))
            },
        ),
        window_entry(
            ControllerInfo {
                name: "copa",
                family: Family::Window,
                summary: "Copa(δ): the window moves toward the target rate 1/(δ·d_q), d_q the standing queueing delay, with a velocity; a competitive mode runs AIMD on 1/δ beside buffer-filling flows",
                convention: "delay-based: 1/δ packets queued per flow (no α, β)",
                paper: "Arun & Balakrishnan, NSDI 2018 §2.1, §2.2",
                params: vec![
                    param(
                        "delta",
                        Some(0.5),
                        Range::open_closed(0.0, 1.0),
                        "δ of the default mode, in (0, 1]: each flow keeps about 1/δ packets queued (§2.1: 0.5)",
                    ),
                    switch(
                        "competitive",
                        1.0,
                        "1: switch to AIMD on 1/δ while the queue never empties (§2.2); 0: the default mode only",
                    ),
                ],
            },
            |v, s, m| {
                let p = CopaParams {
                    delta: v["delta"],
                    competitive: v["competitive"] == 1.0,
                };
                let config = s.window;
                m.make(move || Copa::new(p, config))
            },
        ),
        Entry {
            relation: Some(|v| {
                let (a, b) = (v["alpha"], v["beta"]);
                // Brakmo & Peterson §3.2: α < β; α = β is Mo et al.'s single equilibrium.
                if a <= b {
                    Ok(())
                } else {
                    let allowed = format!("must be at most beta = {} (packets queued)", written_number(b));
                    Err(Error::invalid("controller.alpha", written_number(a), allowed))
                }
            }),
            ..window_entry(
                ControllerInfo {
                    name: "vegas",
                    family: Family::Window,
                    summary: "Vegas(α, β): once per RTT, +1 packet if fewer than α of its packets are queued (Diff = (Expected − Actual)·BaseRTT), −1 if more than β; TCP on loss",
                    convention: VEGAS_PKTS,
                    paper: "Brakmo & Peterson, IEEE JSAC 1995 §3.2, §3.3; Linux tcp_vegas.c (α = 2, β = 4, γ = 1)",
                    params: vec![
                        vegas_pkts("alpha", VEGAS_ALPHA, "packets queued below which the window grows, 0 < α ≤ β"),
                        vegas_pkts("beta", VEGAS_BETA, "packets queued above which the window shrinks, β ≥ α"),
                        vegas_pkts("gamma", VEGAS_GAMMA, "packets queued that end slow start (every other RTT doubles the window until then), > 0"),
                        switch("whole_diff", 0.0, "1: Diff rounded to the nearest whole packet, as ns-2.35's tcp-vegas.cc (the band becomes [α − ½, β + ½)); 0: Diff as computed (Brakmo & Peterson §3.2, Linux)"),
                        switch("mean_rtt", 0.0, "1: a round's RTT is the mean of its samples, as ns-2.35's tcp-vegas.cc; 0: the smallest (Linux tcp_vegas.c)"),
                        switch("ack_increase", 0.0, "1: a round's +1 is spread over the next round's ACKs, 1/cwnd each, as ns-2.35's tcp-vegas.cc; 0: added at the round's end (Linux tcp_vegas.c)"),
                        switch("eighth_exit", 0.0, "1: slow start ends by taking an eighth off the window (ssthresh 2), as ns-2.35's tcp-vegas.cc; 0: at the window of the actual rate + 1 (Linux tcp_vegas.c)"),
                        switch("sent_diff", 0.0, "1: Diff counts packets as ns-2.35's tcp-vegas.cc does, Expected from those outstanding plus one and Actual from those sent in the round, which ends with the ACK of the packet next when it began, and a round of at most one packet sets BaseRTT; 0: Diff = cwnd·(RTT − BaseRTT)/RTT (Brakmo & Peterson §3.2, Linux tcp_vegas.c)"),
                        switch("data_syn", 0.0, "1: the window opens to 2 packets on the ACK of the second, as ns-2.35's Vegas starts with syn_ and delay_growth_ (tcp-vegas.cc sends packet 0 as data, one packet at a time until then; the flow's initial_window should be 1); 0: the flow's initial window from the start"),
                    ],
                },
                |v, s, m| {
                    let (a, b, g, config) = (v["alpha"], v["beta"], v["gamma"], s.window);
                    let ns2 = VegasNs2Rules {
                        whole_diff: v["whole_diff"] == 1.0,
                        mean_rtt: v["mean_rtt"] == 1.0,
                        ack_increase: v["ack_increase"] == 1.0,
                        eighth_exit: v["eighth_exit"] == 1.0,
                        sent_diff: v["sent_diff"] == 1.0,
                        data_syn: v["data_syn"] == 1.0,
                    };
                    m.make(move || Vegas::new(a, b, g).with_ns2_rules(ns2).starting(config))
                },
            )
        },
        Entry {
            needs_ecn: true,
            ..window_entry(
                ControllerInfo {
                    name: "dctcp",
                    family: Family::Window,
                    summary: "DCTCP(g): per window α ← (1 − g)α + g·F (F: fraction of bytes marked), w ← w(1 − α/2) on ECN-Echo; TCP otherwise; needs ecn = true",
                    convention: "ECN-based: g is the gain of the marked fraction's average; loss as TCP",
                    paper: "RFC 8257 §3.2, §3.3; Alizadeh et al., SIGCOMM 2010 §3.1 (g = 1/16)",
                    params: vec![param(
                        "g",
                        Some(DCTCP_G),
                        Range::open_closed(0.0, 1.0),
                        "estimation gain of α, 0 < g ≤ 1 (RFC 8257 §4: 1/16)",
                    )],
                },
                |v, s, m| {
                    let (g, config) = (v["g"], s.window);
                    m.make(move || Dctcp::new(g).starting(config))
                },
            )
        },
        rate_entry(
            ControllerInfo {
                name: "rate-aimd",
                family: Family::Rate,
                summary: "rate AIMD(α, β): r ← r + α·MTU/RTT per interval without loss, r ← r − β·r with loss",
                convention: RATE_REMOVED,
                paper: "Loguinov & Radha 2003 (2)–(4), §V-B, §VI-C (AIMD(1,1/2), AIMD(0.19,1/2))",
                params: vec![
                    param("alpha", Some(1.0), Range::open_closed(0.0, 1e3), "packets per RTT, > 0"),
                    param(
                        "beta",
                        Some(0.5),
                        Range::open(0.0, 1.0),
                        "fraction of the rate removed on loss, 0 < β < 1",
                    ),
                    mtu_per_rtt(),
                ],
            },
            |v, s, m| {
                let (a, b, unit, config) = (v["alpha"], v["beta"], v.get("mtu_per_rtt"), s.rate);
                m.make(move || RateBinomial::aimd(a, b, unit, config))
            },
            per_rtt,
        ),
        Entry {
            relation: Some(|v| {
                let (k, l) = (v["k"], v["l"]);
                // Loguinov & Radha §II-A: convergence to fairness needs k + l > 0.
                if k + l > 0.0 {
                    Ok(())
                } else {
                    let allowed = format!("k + l must be > 0 to converge to fairness (l = {l})");
                    Err(Error::invalid("controller.k", written_number(k), allowed))
                }
            }),
            ..rate_entry(
                ControllerInfo {
                    name: "rate-binomial",
                    family: Family::Rate,
                    summary: "rate binomial(k, l, α, β): r ← r + λ·r^(−k) without loss, r ← r − σ·r^l with loss",
                    convention: RATE_REMOVED,
                    paper: "Loguinov & Radha 2003 (3), (4) (IIAD k = 1, l = 0; SQRT k = l = 1/2)",
                    params: vec![
                        required("k", Range::closed(-1.0, 2.0), "increase exponent; k + l > 0"),
                        required("l", Range::closed(0.0, 1.0), "decrease exponent, 0 ≤ l ≤ 1"),
                        param(
                            "alpha",
                            Some(1.0),
                            Range::open_closed(0.0, 1e3),
                            "window-domain increase constant, > 0",
                        ),
                        param(
                            "beta",
                            Some(0.5),
                            Range::open(0.0, 1.0),
                            "window-domain decrease constant, 0 < β < 1",
                        ),
                        mtu_per_rtt(),
                    ],
                },
                |v, s, m| {
                    let (k, l, a, b) = (v["k"], v["l"], v["alpha"], v["beta"]);
                    let (unit, config) = (v.get("mtu_per_rtt"), s.rate);
                    m.make(move || RateBinomial::new(k, l, a, b, unit, config))
                },
                per_rtt,
            )
        },
        Entry {
            relation: Some(|v| {
                let (l, m_d) = (v["l"], v["m_d"]);
                // Loguinov & Radha (39): m_D ≥ l keeps the rate positive.
                if m_d >= l {
                    Ok(())
                } else {
                    Err(Error::invalid("controller.m_d", written_number(m_d), format!("must be at least l = {l}")))
                }
            }),
            ..rate_entry(
                ControllerInfo {
                    name: "iscc",
                    family: Family::Rate,
                    summary: "ISCC(k, l): binomial with λ = C^(k+1)/m_I and σ = 1/(m_D·C^(l−1)), C from an oracle or packet bunches",
                    convention: RATE_REMOVED,
                    paper: "Loguinov & Radha 2003 §V-D (39), (41); §VI (ISCC(-1.5,2), m_I = 20, m_D = 2)",
                    params: vec![
                        param(
                            "k",
                            Some(-1.5),
                            Range::closed_open(-3.0, 0.0),
                            "increase exponent, < 0 (ideal scalability: l + 2k + 1 = 0)",
                        ),
                        param("l", Some(2.0), Range::open_closed(1.0, 4.0), "decrease exponent, > 1"),
                        param("m_i", Some(20.0), Range::closed(1.0, 1e6), "an increase is at most r/m_I, ≥ 1"),
                        param("m_d", Some(2.0), Range::closed(1.0, 1e6), "a decrease is at most r/m_D, ≥ l"),
                        param(
                            "capacity",
                            None,
                            Range::open_closed(0.0, MAX_RATE_BPS),
                            "exact bottleneck capacity (bits/s); default the receiver's packet-bunch estimate (set source.bunch ≥ 3)",
                        ),
                    ],
                },
                |v, s, m| {
                    let (k, l, m_i, m_d) = (v["k"], v["l"], v["m_i"], v["m_d"]);
                    let (oracle, config) = (v.get("capacity"), s.rate);
                    m.make(move || Iscc::new(k, l, m_i, m_d, oracle, config))
                },
                per_rtt,
            )
        },
        Entry {
            relation: Some(|v| {
                let d = v["loss_after"];
                if d.fract() == 0.0 {
                    Ok(())
                } else {
                    Err(Error::invalid("controller.loss_after", written_number(d), "a whole number of packets, 1 to 64"))
                }
            }),
            ..rate_entry(
                ControllerInfo {
                    name: "rap",
                    family: Family::Rate,
                    summary: "RAP(α, β): inter-packet-gap AIMD, +α packets per SRTT, gap ÷ β per loss cluster",
                    convention: RATE_KEPT,
                    paper: "Rejaie, Handley & Estrin 1999; ns-2 rap/rap.cc",
                    params: vec![
                        param("alpha", Some(1.0), Range::open_closed(0.0, 100.0), "packets per SRTT, > 0"),
                        param(
                            "beta",
                            Some(0.5),
                            Range::open(0.0, 1.0),
                            "fraction of the rate kept on loss, 0 < β < 1",
                        ),
                        param(
                            "loss_after",
                            Some(1.0),
                            Range::closed(1.0, 64.0),
                            "the receiver counts a packet lost once one this many sequence numbers above it arrives (ns-2 rap.cc: 3)",
                        ),
                        switch(
                            "rtt_timer",
                            0.0,
                            "1: increase on a timer every SRTT (ns-2 rap.cc RttTimeout); 0: on a report an SRTT after the last step",
                        ),
                        switch(
                            "loss_timer",
                            0.0,
                            "1: a packet not acknowledged μ·srtt + φ·variance after its sending is lost, checked at every send (ns-2 rap.cc TimerLostPacket); 0: a no-feedback timer of that length",
                        ),
                    ],
                },
                |v, s, m| {
                    let timers = RapTimers {
                        rtt: v["rtt_timer"] == 1.0,
                        loss: v["loss_timer"] == 1.0,
                    };
                    let (a, b, config) = (v["alpha"], v["beta"], s.rate);
                    m.make(move || Rap::new(a, b, timers, config))
                },
                |v| Box::new(LossCounter::new(ReportEvery::Packet).revealed_at(v["loss_after"] as u64)),
            )
        },
        rate_entry(
            ControllerInfo {
                name: "ssvp",
                family: Family::Rate,
                summary: "SSVP(α, β): IPG ÷ β when a RTT's congestion ratio exceeds the level, +α packets per RTT without congestion",
                convention: RATE_KEPT,
                paper: "Papadimitriou & Zhang 2007 §III (4), (5) (SSVP(0.31,0.875), level 0.005)",
                params: vec![
                    param("alpha", Some(0.31), Range::open_closed(0.0, 100.0), "packets per RTT, > 0"),
                    param(
                        "beta",
                        Some(0.875),
                        Range::open(0.0, 1.0),
                        "fraction of the rate kept on congestion, 0 < β < 1",
                    ),
                    level(),
                ],
            },
            |v, s, m| {
                let decrease = SsvpDecrease::Fixed {
                    alpha: v["alpha"],
                    beta: v["beta"],
                };
                let (level, config) = (v["level"], s.rate);
                m.make(move || Ssvp::new(decrease, level, config))
            },
            per_packet,
        ),
        rate_entry(
            ControllerInfo {
                name: "ssvp-adp",
                family: Family::Rate,
                summary: "SSVP-ADP: SSVP with β = RTT_min/RTT on congestion and α = 4(1 − β²)/3",
                convention: RATE_KEPT,
                paper: "Papadimitriou & Zhang 2007 §IV-B (20), (2)",
                params: vec![level()],
            },
            |v, s, m| {
                let (level, config) = (v["level"], s.rate);
                m.make(move || Ssvp::new(SsvpDecrease::Adaptive, level, config))
            },
            per_packet,
        ),
        rate_entry(
            ControllerInfo {
                name: "tfrc",
                family: Family::Rate,
                summary: "TFRC as RFC 5348: equation-based rate from the receiver's loss event rate",
                convention: EQUATION,
                paper: "RFC 5348",
                params: vec![discounting(0.0), equation_mtu()],
            },
            |v, s, m| {
                let (config, mtu) = (s.rate, v.get("mtu"));
                m.make(move || {
                    let tfrc = Tfrc::new(TfrcVariant::Rfc5348, config);
                    match mtu {
                        Some(bytes) => tfrc.with_equation_bytes(bytes.round() as u32),
                        None => tfrc,
                    }
                })
            },
            |v| Box::new(TfrcReceiver::new(TfrcVariant::Rfc5348, v["discounting"] == 1.0)),
        ),
        rate_entry(
            ControllerInfo {
                name: "tfrc-ns2",
                family: Family::Rate,
                summary: "TFRC as ns-2 / SIGCOMM 2000: +s/R per RTT increases, PFTK equation with tick-based t_RTO",
                convention: EQUATION,
                paper: "Floyd, Handley, Padhye & Widmer 2000; ns-2.35 tfrc.cc, tfrc-sink.cc; Yang et al. 2003",
                params: vec![discounting(1.0)],
            },
            |_, s, m| {
                let config = s.rate;
                m.make(move || Tfrc::new(TfrcVariant::Ns2, config))
            },
            |v| Box::new(TfrcReceiver::new(TfrcVariant::Ns2, v["discounting"] == 1.0)),
        ),
        rate_entry(
            ControllerInfo {
                name: "tfrc-2000",
                family: Family::Rate,
                summary: "TFRC as ns-2's June 2000 snapshot: no-feedback timer 2R, +s/R per RTT uncapped, unsmoothed loss-interval weights",
                convention: EQUATION,
                paper: "ns-2 tfrc.cc / tfrc-sink.cc of 2000, as run by Yang, Kim & Lam 2003 §2",
                params: vec![discounting(0.0)],
            },
            |_, s, m| {
                let config = s.rate;
                m.make(move || Tfrc::new(TfrcVariant::Ns2June2000, config))
            },
            |v| Box::new(TfrcReceiver::new(TfrcVariant::Ns2June2000, v["discounting"] == 1.0)),
        ),
        rate_entry(
            ControllerInfo {
                name: "tear",
                family: Family::Rate,
                summary: "TEAR: the receiver emulates TCP's window per round and feeds back a rate smoothed over 8 epochs",
                convention: "receiver-based (TCP's AIMD(1, 1/2) emulated)",
                paper: "Rhee, Ozdemir & Yi 2000 (reconstructed); timeout after Yang, Kim & Lam 2003 §2.2",
                params: vec![],
            },
            |_, s, m| {
                let config = s.rate;
                m.make(move || TearSender::new(config))
            },
            |_| Box::new(TearReceiver::default()),
        ),
        // A media controller needs no receiver of its own: the media transport's feedback.
        window_entry(
            ControllerInfo {
                name: "gcc",
                family: Family::Media,
                summary: "GCC: delay-based (arrival-time filter, adaptive-threshold over-use detector, increase/decrease/hold) and loss-based control, target min(As_hat, A_hat)",
                convention: "media: a target rate from per-packet feedback (transport-wide feedback once per frame)",
                paper: "draft-ietf-rmcat-gcc-02 (Holmer, Lundin, Carlucci, De Cicco & Mascolo 2016); libwebrtc for the trendline and pacing",
                params: gcc_params(),
            },
            |v, s, m| {
                let (params, config) = (gcc_from(v), s.rate);
                m.make(move || Gcc::new(params, config))
            },
        ),
        Entry {
            relation: Some(|v| {
                let (lo, hi) = (v["rmin"], v["rmax"]);
                ordered("controller.rmin", lo, hi, false, format!("must be below rmax = {} kb/s", written_number(hi)))
            }),
            ..window_entry(
                ControllerInfo {
                    name: "nada",
                    family: Family::Media,
                    summary: "NADA: aggregated congestion signal from warped queuing delay, loss and ECN marks; accelerated ramp-up or gradual update of r_ref; rate shaping buffer splits it into encoder and sending rates",
                    convention: "media: a target rate from per-packet feedback (RFC 8888 every DELTA); the receiver's computations run at the sender",
                    paper: "RFC 8698 (Zhu, Pan, Ramalho & Mena 2020) §4, Figure 3",
                    params: nada_params(),
                },
                |v, s, m| {
                    let (params, config) = (nada_from(v), s.rate);
                    m.make(move || Nada::new(params, config))
                },
            )
        },
        Entry {
            relation: Some(scream_relation),
            ..window_entry(
                ControllerInfo {
                    name: "scream",
                    family: Family::Media,
                    summary: "SCReAM: self-clocked congestion window (LEDBAT-style qdelay target, qdelay trend, fast and additive increase, loss and ECN back-off) and a media rate controller from the window's rate and the RTP queue",
                    convention: "media: a window of bytes in flight and a target rate from per-packet feedback (RFC 8888 once a frame)",
                    paper: "RFC 8298 (Johansson & Sarker 2017) §4.1",
                    params: scream_params(),
                },
                |v, s, m| {
                    let (params, config) = (scream_from(v), s.rate);
                    m.make(move || Scream::new(params, config))
                },
            )
        },
        Entry {
            relation: Some(scream_relation),
            ..window_entry(
                ControllerInfo {
                    name: "scream2",
                    family: Family::Media,
                    summary: "SCReAMv2: reference window cut on loss, classic ECN or L4S marks (by l4s_alpha) and on a queue above half its target (a virtual mark), grown additively after congestion then multiplicatively; target bitrate 8·ref_wnd/s_rtt; bytes in flight up to 5 × ref_wnd, paced at 1.5 × the target",
                    convention: "media: a target rate from the reference window and RTT, per-packet feedback (RFC 8888 once a frame and at least every 27 ms)",
                    paper: "draft-johansson-ccwg-rfc8298bis-screamv2-03 (Johansson, Westerlund & Kühlewind; obsoletes RFC 8298) §4",
                    params: scream2_params(),
                },
                |v, s, m| {
                    let (params, config) = (scream2_from(v), s.rate);
                    m.make(move || Scream2::new(params, config))
                },
            )
        },
    ]
}

/// Finds the entry of `name` (in `family`, or in either), then resolves its parameters.
fn resolve(
    family: Option<Family>,
    name: &str,
    params: &[(String, f64)],
) -> Result<ControllerConfig> {
    let (base, positional) =
        split_notation(name).unwrap_or_else(|| (name.trim().to_string(), Vec::new()));
    let entries = entries::<Boxed>();
    let in_family = |e: &&Entry<Boxed>| family.is_none_or(|f| e.info.family == f);
    let (index, entry) = entries
        .iter()
        .enumerate()
        .find(|(_, e)| in_family(e) && e.info.name.eq_ignore_ascii_case(&base))
        .ok_or_else(|| Error::UnknownName {
            field: "controller".into(),
            value: name.to_string(),
            known: entries
                .iter()
                .filter(in_family)
                .map(|e| e.info.name)
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    let info = &entry.info;
    if positional.len() > info.params.len() {
        return Err(Error::invalid(
            "controller",
            name,
            format!(
                "{} takes at most {} parameters",
                info.name,
                info.params.len()
            ),
        ));
    }
    let mut given: Vec<(String, f64)> = Vec::new();
    for (p, text) in info.params.iter().zip(&positional) {
        given.push((
            p.name.to_string(),
            parse_number(&format!("controller.{}", p.name), text)?,
        ));
    }
    given.extend(params.iter().cloned());
    let values = resolve_values(info, &given)?;
    if let Some(relation) = entry.relation {
        relation(&values)?;
    }
    Ok(ControllerConfig {
        index,
        family: info.family,
        name: info.name,
        values,
    })
}

/// Matches `given` to the entry's parameters (any case), rejecting unknown and repeated ones,
/// fills in defaults (fixed, then derived), and checks every value against its range.
fn resolve_values(info: &ControllerInfo, given: &[(String, f64)]) -> Result<Values> {
    let mut named: Vec<(&'static str, f64)> = Vec::new();
    for (name, value) in given {
        let param = info
            .params
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                let known = if info.params.is_empty() {
                    "none; it takes no parameters".to_string()
                } else {
                    info.params
                        .iter()
                        .map(|p| p.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                Error::invalid(
                    format!("controller.{name}"),
                    "",
                    format!("not a parameter of {}; its parameters: {known}", info.name),
                )
            })?;
        if named.iter().any(|(n, _)| *n == param.name) {
            return Err(Error::invalid(
                format!("controller.{}", param.name),
                value,
                "given more than once",
            ));
        }
        named.push((param.name, *value));
    }
    let given = |name: &str| named.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
    let mut values = Values::default();
    for p in &info.params {
        match given(p.name).or(p.default) {
            Some(x) => values.0.push((p.name, p.check(x)?)),
            None if p.required => {
                return Err(Error::invalid(
                    format!("controller.{}", p.name),
                    "(missing)",
                    format!("required by {}", info.name),
                ))
            }
            None => {}
        }
    }
    for p in &info.params {
        if let (Some(derive), None) = (p.derive, values.get(p.name)) {
            let x = p.check(derive(&values))?;
            values.0.push((p.name, x));
        }
    }
    let order = |name: &str| info.params.iter().position(|p| p.name == name);
    values.0.sort_by_key(|(n, _)| order(n));
    Ok(values)
}

/// `NAME(a,b)` → ("NAME", [a, b]); `a/b` fractions allowed. `None` without parentheses.
fn split_notation(name: &str) -> Option<(String, Vec<String>)> {
    let open = name.find('(')?;
    let inner = name[open + 1..].strip_suffix(')')?;
    let args = inner
        .split(',')
        .map(|a| a.trim().to_string())
        .filter(|a| !a.is_empty())
        .collect();
    Some((name[..open].trim().to_string(), args))
}

fn parse_number(field: &str, text: &str) -> Result<f64> {
    let bad = || Error::invalid(field, text, "must be a number or a fraction a/b");
    let v = match text.split_once('/') {
        Some((a, b)) => {
            a.trim().parse::<f64>().map_err(|_| bad())?
                / b.trim().parse::<f64>().map_err(|_| bad())?
        }
        None => text.parse::<f64>().map_err(|_| bad())?,
    };
    if v.is_finite() {
        Ok(v)
    } else {
        Err(bad())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::assert_close;
    use crate::control::RoundSample;

    fn params(list: &[(&str, f64)]) -> Vec<(String, f64)> {
        list.iter().map(|(n, v)| (n.to_string(), *v)).collect()
    }

    /// Builds `name` (either family) with the default start: one packet in slow start, or the
    /// rate controller's own start.
    fn build(name: &str, params: &[(String, f64)]) -> Result<Box<dyn Controller>> {
        ControllerConfig::resolve(name, params)?.build(&Start::default())
    }

    /// The error `build` gives (`Box<dyn Controller>` is not `Debug`, so no `unwrap_err`).
    fn error(name: &str, given: &[(&str, f64)]) -> Error {
        match build(name, &params(given)) {
            Err(e) => e,
            Ok(c) => panic!("{name} {given:?} built {}", c.name()),
        }
    }

    /// A valid value for each required parameter.
    fn required_sample(p: &ParamInfo) -> Option<(String, f64)> {
        p.required
            .then(|| (p.name.to_string(), 0.5 * (p.range.min + p.range.max)))
    }

    fn family(f: Family) -> Vec<ControllerInfo> {
        catalogue().into_iter().filter(|i| i.family == f).collect()
    }

    #[test]
    fn every_entry_builds_with_defaults() {
        for info in family(Family::Window) {
            let given: Vec<_> = info.params.iter().filter_map(required_sample).collect();
            let c = build(&info.name.to_uppercase(), &given)
                .unwrap_or_else(|e| panic!("{}: {e}", info.name));
            assert!(!c.name().is_empty());
            assert_eq!(c.window(), 1.0, "{}: starts at one packet", info.name);
        }
    }

    #[test]
    fn names_are_the_papers_notation() {
        let third = 2.0 / 3.0;
        for (name, given, expected) in [
            ("tcp", vec![], "TCP"),
            (
                "GAIMD",
                vec![("alpha", 0.31), ("beta", 0.875)],
                "GAIMD(0.31,0.875)",
            ),
            ("gaimd", vec![], "GAIMD(0.3125,0.875)"),
            (
                "aimd",
                vec![("alpha", 0.1), ("beta", 1.0 / 16.0)],
                "AIMD(1/10,1/16)",
            ),
            ("aimd", vec![("beta", 0.125)], "AIMD(1/5,1/8)"),
            ("iiad", vec![], "IIAD(1,2/3)"),
            ("sqrt", vec![], "SQRT"),
            ("binomial", vec![("k", 1.0), ("l", 0.0)], "IIAD(1,2/3)"),
            ("simd", vec![], "SIMD(1/16)"),
            ("aiad", vec![], "AIAD(2/3)"),
            (
                "history",
                vec![("k", -0.5), ("l", 1.0), ("beta", 1.0 / 16.0)],
                "SIMD(1/16)",
            ),
            (
                "history",
                vec![("k", 0.0), ("l", 0.0), ("Beta", third)],
                "AIAD(2/3)",
            ),
            ("taimd", vec![], "TAIMD(0.2,0.875)"),
            ("DTAIMD", vec![("beta", 0.875)], "DTAIMD(0.2,0.875)"),
            ("cubic", vec![], "CUBIC(0.4,0.7)"),
            ("cubic", vec![("c", 4.0), ("beta", 0.8)], "CUBIC(4,0.8)"),
            ("bbr", vec![], "BBR"),
            ("bbr", vec![("cwnd_gain", 3.0)], "BBR(3)"),
            ("bbr", vec![("ack_aggregation", 1.0)], "BBR(2,1)"),
            ("bbr", vec![("quantization", 1.0)], "BBR(2,0,1)"),
            ("bbr", vec![("strict_min_rtt", 1.0)], "BBR(2,0,0,1)"),
            ("bbr3", vec![], "BBRv3"),
            ("copa", vec![], "Copa(0.5)"),
            ("copa", vec![("competitive", 0.0)], "Copa(0.5,0)"),
            ("vegas", vec![], "Vegas(2,4)"),
            ("Vegas", vec![("alpha", 1.0), ("beta", 3.0)], "Vegas(1,3)"),
            ("vegas", vec![("gamma", 2.0)], "Vegas(2,4,2)"),
            ("dctcp", vec![], "DCTCP(1/16)"),
            ("dctcp", vec![("g", 0.125)], "DCTCP(1/8)"),
        ] {
            let c = build(name, &params(&given)).unwrap();
            assert_eq!(c.name(), expected);
        }
    }

    #[test]
    fn window_names_in_paper_notation_resolve_to_themselves() {
        for name in [
            "GAIMD(0.31,0.875)",
            "AIMD(1/10,1/16)",
            "SIMD(1/16)",
            "IIAD(1,2/3)",
            "TAIMD(0.2,0.875)",
            "CUBIC(0.4,0.7)",
            "BBR",
            "BBR(3)",
            "BBR(3,1)",
            "Copa(0.5)",
            "Copa(0.1,0)",
            "Vegas(1,3)",
            "Vegas(2,4,2)",
            "DCTCP(1/16)",
        ] {
            assert_eq!(build(name, &[]).unwrap().name(), name);
        }
    }

    /// One uncongested round, then one congested round: the window after each.
    fn grow_then_reduce(c: &mut dyn Controller) -> (f64, f64) {
        let round = |congested| RoundSample {
            congested,
            ..Default::default()
        };
        c.on_round(&round(false));
        let grown = c.window();
        c.on_round(&round(true));
        (grown, c.window())
    }

    #[test]
    fn defaults_follow_each_papers_friendly_alpha() {
        let config = WindowConfig::avoidance_at(40.0);
        // gaimd: α = 4(1 − β²)/3 = 0.3125 at β = 7/8, and 7/8 of the window kept.
        let (grown, reduced) = grow_then_reduce(&mut *build_window("gaimd", &[], config).unwrap());
        assert_close(grown, 40.3125, 1e-15);
        assert_close(reduced, 40.3125 * 0.875, 1e-15);
        // aimd: β removed, α = 3β/(2 − β) = 0.2 at β = 1/8.
        let mut c = build_window("aimd", &params(&[("beta", 0.125)]), config).unwrap();
        let (grown, reduced) = grow_then_reduce(&mut *c);
        assert_close(grown, 40.2, 1e-15);
        assert_close(reduced, 40.2 * 0.875, 1e-15);
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let err = error("westwood", &[]);
        assert!(matches!(err, Error::UnknownName { .. }));
        let msg = err.to_string();
        for known in ["tcp", "gaimd", "simd", "dtaimd", "history"] {
            assert!(msg.contains(known), "{msg}");
        }
        // Within one family, only that family's names.
        let msg = build_window("tfrc", &[], WindowConfig::default())
            .err()
            .unwrap()
            .to_string();
        assert!(
            msg.contains("expected one of: tcp, aimd") && !msg.contains("rap"),
            "{msg}"
        );
        let msg = build_rate("tcp", &[], RateConfig::default())
            .err()
            .unwrap()
            .to_string();
        assert!(
            msg.contains("expected one of: rate-aimd") && !msg.contains("gaimd"),
            "{msg}"
        );
    }

    #[test]
    fn unknown_parameters_are_named_with_the_allowed_ones() {
        let msg = error("gaimd", &[("gamma", 1.0)]).to_string();
        assert!(
            msg.contains("controller.gamma: not a parameter of gaimd; its parameters: alpha, beta"),
            "{msg}"
        );
        let msg = error("tcp", &[("alpha", 1.0)]).to_string();
        assert!(
            msg.contains("controller.alpha") && msg.contains("it takes no parameters"),
            "{msg}"
        );
    }

    #[test]
    fn bad_values_name_the_field() {
        for (name, given, field) in [
            ("gaimd", vec![("beta", 1.5)], "controller.beta"),
            ("aimd", vec![("alpha", -1.0)], "controller.alpha"),
            (
                "history",
                vec![("k", -0.9), ("l", 1.0), ("beta", 0.1)],
                "controller.k",
            ),
            ("history", vec![("l", 1.0), ("beta", 0.1)], "controller.k"),
            ("binomial", vec![("k", 1.0)], "controller.l"),
            ("simd", vec![("beta", f64::NAN)], "controller.beta"),
            (
                "dtaimd",
                vec![("alpha", 0.2), ("alpha", 0.3)],
                "controller.alpha",
            ),
            ("cubic", vec![("c", 0.0)], "controller.c"),
            ("cubic", vec![("beta", 1.0)], "controller.beta"),
            ("cubic", vec![("hystart", 0.5)], "controller.hystart"),
            (
                "cubic",
                vec![("reno_friendly", 2.0)],
                "controller.reno_friendly",
            ),
            ("bbr", vec![("cwnd_gain", 0.5)], "controller.cwnd_gain"),
            (
                "bbr",
                vec![("ack_aggregation", 0.5)],
                "controller.ack_aggregation",
            ),
            ("bbr3", vec![("loss_thresh", 1.0)], "controller.loss_thresh"),
            ("bbr3", vec![("headroom", 1.0)], "controller.headroom"),
            ("bbr3", vec![("ecn_thresh", 0.0)], "controller.ecn_thresh"),
            ("copa", vec![("delta", 0.0)], "controller.delta"),
            ("copa", vec![("competitive", 0.5)], "controller.competitive"),
        ] {
            match error(name, &given) {
                Error::InvalidField { field: f, .. } => {
                    assert_eq!(f.to_string(), field, "{name} {given:?}")
                }
                other => panic!("{name} {given:?}: {other}"),
            }
        }
    }

    /// The cases the controllers' constructors rejected before the catalogue checked for them.
    #[test]
    fn parameters_outside_the_papers_conditions_are_rejected_naming_them() {
        let nan = f64::NAN;
        for (name, given, field) in [
            (
                "gaimd",
                vec![("alpha", 0.31), ("beta", 1.0)],
                "controller.beta",
            ),
            (
                "gaimd",
                vec![("alpha", 0.0), ("beta", 0.5)],
                "controller.alpha",
            ),
            (
                "aimd",
                vec![("alpha", 1.0), ("beta", 0.0)],
                "controller.beta",
            ),
            (
                "aimd",
                vec![("alpha", nan), ("beta", 0.5)],
                "controller.alpha",
            ),
            (
                "binomial",
                vec![("k", -0.5), ("l", 1.0), ("alpha", 1.0), ("beta", 0.5)],
                "controller.k",
            ),
            (
                "binomial",
                vec![("k", 0.5), ("l", 1.5), ("alpha", 1.0), ("beta", 0.5)],
                "controller.l",
            ),
            (
                "binomial",
                vec![("k", 0.5), ("l", 0.5), ("alpha", -1.0), ("beta", 0.5)],
                "controller.alpha",
            ),
            (
                "iiad",
                vec![("alpha", 1.0), ("beta", 1.0)],
                "controller.beta",
            ),
            (
                "history",
                vec![("k", -0.75), ("l", 1.0), ("beta", 0.5)],
                "controller.k",
            ),
            (
                "history",
                vec![("k", 0.0), ("l", 1.5), ("beta", 0.5)],
                "controller.l",
            ),
            ("simd", vec![("beta", 1.0)], "controller.beta"),
            ("aiad", vec![("beta", 0.0)], "controller.beta"),
            (
                "taimd",
                vec![("alpha", 0.2), ("beta", 1.0)],
                "controller.beta",
            ),
            (
                "dtaimd",
                vec![("alpha", -0.2), ("beta", 0.875)],
                "controller.alpha",
            ),
            (
                "dtaimd",
                vec![("alpha", 0.2), ("beta", f64::INFINITY)],
                "controller.beta",
            ),
            // Brakmo & Peterson §3.2: α ≤ β.
            (
                "vegas",
                vec![("alpha", 5.0), ("beta", 4.0)],
                "controller.alpha",
            ),
            ("vegas", vec![("gamma", 0.0)], "controller.gamma"),
            ("dctcp", vec![("g", 0.0)], "controller.g"),
            ("dctcp", vec![("g", 1.5)], "controller.g"),
            // Loguinov & Radha (39), (41): m_D ≥ l, m_I ≥ 1, l > 1.
            (
                "iscc",
                vec![("k", -1.5), ("l", 2.0), ("m_i", 20.0), ("m_d", 1.5)],
                "controller.m_d",
            ),
            (
                "iscc",
                vec![("k", -1.5), ("l", 2.0), ("m_i", 0.5), ("m_d", 2.0)],
                "controller.m_i",
            ),
            (
                "iscc",
                vec![("k", -1.5), ("l", 1.0), ("m_i", 20.0), ("m_d", 2.0)],
                "controller.l",
            ),
            // Loguinov & Radha §II-A: k + l > 0.
            (
                "rate-binomial",
                vec![("k", -0.5), ("l", 0.0)],
                "controller.k",
            ),
            (
                "rate-aimd",
                vec![("alpha", 1.0), ("beta", 1.5)],
                "controller.beta",
            ),
        ] {
            match error(name, &given) {
                Error::InvalidField { field: f, .. } => {
                    assert_eq!(f.to_string(), field, "{name} {given:?}")
                }
                other => panic!("{name} {given:?}: {other}"),
            }
        }
    }

    #[test]
    fn advertised_bounds_are_the_enforced_ones() {
        // Every range, except where a relation between parameters or a switch narrows it.
        for entry in entries::<Boxed>().iter().filter(|e| e.relation.is_none()) {
            let info = &entry.info;
            for p in info.params.iter().filter(|p| !p.switch) {
                let (min, max) = (p.range.min, p.range.max);
                let eps = 1e-6 * (max - min);
                for (value, ok) in [
                    (min + eps, true),
                    (max - eps, true),
                    (min - eps, false),
                    (max + eps, false),
                ] {
                    let mut given: Vec<_> = info
                        .params
                        .iter()
                        .filter(|q| q.name != p.name)
                        .filter_map(required_sample)
                        .collect();
                    given.push((p.name.to_string(), value));
                    let result = build(info.name, &given);
                    assert_eq!(result.is_ok(), ok, "{} {} = {value}", info.name, p.name);
                }
            }
        }
    }

    #[test]
    fn controllers_that_need_acks_do_not_run_in_rounds() {
        for info in catalogue() {
            let params: Vec<_> = info.params.iter().filter_map(required_sample).collect();
            let c = build(info.name, &params).unwrap();
            let rates = ["bbr", "bbr3", "copa"].contains(&info.name);
            // CUBIC in 2.6.22's integers counts ACKs, a millisecond clock and RTT samples.
            let per_ack = rates || info.name == "cubic-2.6.22";
            // Media controllers read per-packet feedback, which rounds do not give.
            let media = info.family == Family::Media;
            assert_eq!(c.runs_in_rounds(), !per_ack && !media, "{}", info.name);
            // BBR's model is delivery rates; Copa's competitive mode (on by default) hears
            // each lost packet through the samples' loss marking.
            assert_eq!(c.wants_delivery_rate(), rates, "{}", info.name);
        }
        let default_only = build("copa", &[("competitive".into(), 0.0)]).unwrap();
        assert!(!default_only.wants_delivery_rate());
    }

    #[test]
    fn ranges_name_the_field() {
        assert!(Range::open(0.0, 1.0).check("controller.beta", 0.5).is_ok());
        let err = Range::open(0.0, 1.0)
            .check("controller.beta", 1.0)
            .unwrap_err();
        assert_eq!(err.to_string(), "controller.beta = 1: must be in (0, 1)");
        let alpha = Range::open_closed(0.0, 100.0);
        assert!(alpha.check("controller.alpha", 100.0).is_ok());
        assert!(alpha.check("controller.alpha", 0.0).is_err());
        assert!(alpha.check("controller.alpha", f64::NAN).is_err());
        assert_eq!(Range::closed_open(-3.0, 0.0).to_string(), "[-3, 0)");
    }

    #[test]
    fn catalogue_serializes_for_the_cli() {
        let json = serde_json::to_string(&catalogue()).unwrap();
        assert!(json.contains("\"name\":\"dtaimd\""), "{json}");
        assert!(json.contains("β kept"), "{json}");
        assert!(
            json.contains("\"family\":\"window\"") && json.contains("\"family\":\"rate\""),
            "{json}"
        );
        assert!(
            json.contains("\"min\":0.0,\"max\":100.0") && !json.contains("excluded"),
            "{json}"
        );
    }

    #[test]
    fn a_config_is_resolved_once_and_builds_many() {
        let config = ControllerConfig::resolve("GAIMD", &params(&[("beta", 0.875)])).unwrap();
        assert_eq!((config.family(), config.name()), (Family::Window, "gaimd"));
        let values: Vec<_> = config.values().iter().collect();
        assert_eq!(values, [("alpha", 0.3125), ("beta", 0.875)]);
        let start = Start {
            window: WindowConfig::avoidance_at(10.0),
            ..Start::default()
        };
        let (a, b) = (config.build(&start).unwrap(), config.build(&start).unwrap());
        assert_eq!((a.window(), b.window()), (10.0, 10.0));
        assert!(config.receiver().is_none());
        let bad = Start {
            window: WindowConfig::avoidance_at(0.5),
            ..Start::default()
        };
        let err = config.build(&bad).err().unwrap().to_string();
        assert!(err.starts_with("controller.initial_window"), "{err}");
    }

    #[test]
    fn only_dctcp_needs_ecn() {
        for info in catalogue() {
            let given: Vec<_> = info.params.iter().filter_map(required_sample).collect();
            let config = ControllerConfig::resolve(info.name, &given).unwrap();
            assert_eq!(config.needs_ecn(), info.name == "dctcp", "{}", info.name);
        }
    }

    fn required_params(info: &ControllerInfo) -> Vec<(String, f64)> {
        info.params
            .iter()
            .filter(|p| p.required)
            .map(|p| (p.name.to_string(), if p.name == "k" { 1.0 } else { 0.5 }))
            .collect()
    }

    #[test]
    fn every_entry_builds_both_sides() {
        for info in family(Family::Rate) {
            let params = required_params(&info);
            let c = build(&info.name.to_uppercase(), &params)
                .unwrap_or_else(|e| panic!("{}: {e}", info.name));
            let r = c.pacing_rate_bps().unwrap();
            assert!(r.is_finite() && r > 0.0, "{}", info.name);
            build_receiver(info.name, &params).unwrap();
        }
    }

    #[test]
    fn paper_notation_sets_parameters_in_order() {
        assert_eq!(build("ISCC(-1.5,2)", &[]).unwrap().name(), "ISCC(-1.5,2)");
        assert_eq!(
            build("SSVP(0.31, 0.875)", &[]).unwrap().name(),
            "SSVP(0.31,0.875)"
        );
        assert_eq!(
            build("rate-AIMD(1,1/2)", &[]).unwrap().name(),
            "rate-AIMD(1,0.5)"
        );
        assert_eq!(build("SSVP-ADP", &[]).unwrap().name(), "SSVP-ADP");
        let family = |name| ControllerConfig::resolve(name, &[]).unwrap().family();
        assert!(family("tfrc-NS2") == Family::Rate && family("gaimd") == Family::Window);
    }

    #[test]
    fn errors_name_the_field_and_what_is_allowed() {
        let err =
            |r: Result<Box<dyn Controller>>| r.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err(build("tfrcc", &[])).contains("tfrc-ns2"));
        assert!(err(build("iscc", &[("m_d".into(), 1.0)])).contains("controller.m_d"));
        assert!(err(build("ISCC(-1.5,2)", &[("k".into(), -1.2)])).contains("more than once"));
        assert!(err(build("tear", &[("x".into(), 1.0)])).contains("no parameters"));
        assert!(build_receiver("tfrc", &[("discounting".into(), 0.5)]).is_err());
        assert!(feedback_receiver("per-RTT").is_ok() && feedback_receiver("acks").is_err());
    }
}
