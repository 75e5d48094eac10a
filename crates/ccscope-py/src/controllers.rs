//! Controllers written in Python, as the core's [`Controller`]: the run's [`Foreign`] factory
//! hands each flow its own Python object, wrapped by what the object is:
//! - a `ccscope.Controller`: hooks `on_ack`, `on_loss`, `on_undo`, `on_report`, `on_round`,
//!   `on_feedback`, `on_wakeup`, `on_no_feedback`, `on_no_feedback_idle`, and outputs
//!   `window_pkts`, `pacing_rate_bps`, `target_rate_bps`, `wakeup_s` read back after every
//!   hook ([`PyController`]);
//! - a window rule (`ccscope.WindowController`: `increase(w)`, `decrease(w)`), run inside the
//!   core's TCP window state ([`PyRule`]);
//! - a `ccscope.RateController` (`rate_bps()`, `on_report(dict)`) ([`PyRateController`]).
//!
//! The first exception a hook raises, or the first output outside what is allowed, goes to
//! the run's [`ErrorSlot`] as one `ccscope.ControllerError` naming the flow, the hook and the
//! value; the run stops at its next look (a few milliseconds of simulated time later), keeping
//! what it measured. Until then the controller's outputs hold still.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ccscope_core::control::catalog::{Family, Foreign, Start};
use ccscope_core::control::{
    AckSample, Controller, FeedbackFormat, FeedbackPlan, FeedbackSample, LossEvent, ReportSample,
    RoundSample, Window, WindowRule, DEFAULT_FEEDBACK,
};
use ccscope_core::scenario::packet::{MAX_RATE_BPS, MAX_WINDOW_PKTS};
use ccscope_core::scenario::PythonController;
use ccscope_core::time::SimTime;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};

/// The first error of a run's Python code (a controller's, or the progress callback's); the
/// run stops at its next look and reports it with what it measured, unless it is Ctrl-C
/// (KeyboardInterrupt), which [`crate::watch::Watch`] turns into a partial result.
pub(crate) type ErrorSlot = Arc<Mutex<Option<PyErr>>>;

/// A flow's Python controller as Python hands it over: its display name, its place in the
/// scenario (`flows[1].source.controller`) and the flow's own object.
pub(crate) type PythonFlow = (String, String, Py<PyAny>);

/// The Python controllers of a run by flow index (counts expanded).
pub(crate) type PythonControllers = HashMap<usize, PythonFlow>;

/// Largest no-feedback timeout or wake-up time a Python controller may give (s): 30 years.
const MAX_TIME_S: f64 = 1e9;

/// Who a message is about: the flow, its controller and where the scenario names it.
#[derive(Clone)]
struct Who {
    flow: usize,
    name: String,
    path: String,
}

impl Who {
    /// A `ccscope.ControllerError` about this controller's `hook`: `problem` happened with
    /// `value`, `allowed` says what would do.
    fn error(
        &self,
        py: Python<'_>,
        hook: &str,
        problem: &str,
        value: &str,
        allowed: &str,
    ) -> PyErr {
        let message = format!(
            "{} (flow {}, {}): {hook} {problem}",
            self.path, self.flow, self.name
        );
        controller_error(py, message, &self.path, value, allowed)
    }
}

/// A `ccscope.errors.ControllerError(message, path, value, allowed)`.
pub(crate) fn controller_error(
    py: Python<'_>,
    message: String,
    path: &str,
    value: &str,
    allowed: &str,
) -> PyErr {
    let made = py
        .import("ccscope.errors")
        .and_then(|m| m.getattr("ControllerError"))
        .and_then(|c| c.call1((message.clone(), path, value, allowed)));
    match made {
        Ok(obj) => PyErr::from_value(obj),
        Err(e) => e,
    }
}

/// Calls `f` with the GIL unless an earlier call already failed; keeps the first error. An
/// exception `f` raises becomes a `ControllerError` naming `hook` (the user's exception as its
/// cause, with its traceback); Ctrl-C stays Ctrl-C, and so does an error already explained.
fn call_python<T>(
    who: &Who,
    hook: &str,
    error: &ErrorSlot,
    f: impl FnOnce(Python<'_>) -> PyResult<T>,
) -> Option<T> {
    if error.lock().map(|e| e.is_some()).unwrap_or(true) {
        return None;
    }
    Python::attach(|py| {
        f(py).map_err(|e| {
            let explained = py
                .import("ccscope.errors")
                .and_then(|m| m.getattr("ControllerError"))
                .is_ok_and(|c| e.is_instance(py, &c));
            let e = if e.is_instance_of::<PyKeyboardInterrupt>(py) || explained {
                e
            } else {
                let kind = e
                    .get_type(py)
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default();
                let text = e.value(py).str().map(|s| s.to_string()).unwrap_or_default();
                let shown = if text.is_empty() {
                    kind.clone()
                } else {
                    format!("{kind}: {text}")
                };
                let wrapped =
                    who.error(py, hook, &format!("raised {shown}"), &kind, "no exception");
                wrapped.set_cause(py, Some(e));
                wrapped
            };
            if let Ok(mut slot) = error.lock() {
                slot.get_or_insert(e);
            }
        })
    })
    .ok()
}

/// A number a Python controller gave as `what` after `hook`, checked to be a real number (not
/// a bool) in [lo, hi]; anything else is a `ControllerError` that says what came back and what
/// is `allowed`.
fn number(
    py: Python<'_>,
    who: &Who,
    hook: &str,
    what: &str,
    v: &Bound<'_, PyAny>,
    (lo, hi): (f64, f64),
    allowed: &str,
) -> PyResult<f64> {
    let x = if v.is_instance_of::<PyBool>() {
        None
    } else {
        v.extract::<f64>().ok()
    };
    match x {
        Some(x) if x.is_finite() && (lo..=hi).contains(&x) => Ok(x),
        _ => {
            let shown = v
                .repr()
                .map(|r| r.to_string())
                .unwrap_or_else(|_| "?".into());
            let problem = if what.is_empty() {
                format!("returned {shown}; it must return {allowed}")
            } else {
                format!("gave {what} = {shown}; it must be {allowed}")
            };
            Err(who.error(py, hook, &problem, &shown, allowed))
        }
    }
}

/// A window rule written in Python: an object with `increase(cwnd)` (packets per RTT) and
/// `decrease(cwnd)` (the window after a loss) methods, run in the core's window state.
struct PyRule {
    who: Who,
    obj: Py<PyAny>,
    error: ErrorSlot,
}

impl PyRule {
    fn call(&self, method: &str, cwnd: f64, fallback: f64) -> f64 {
        let hook = format!("{method}({cwnd})");
        call_python(&self.who, &hook, &self.error, |py| {
            let v = self.obj.call_method1(py, method, (cwnd,))?;
            let allowed = "a number of packets in [0, 1e9]";
            number(
                py,
                &self.who,
                &hook,
                "",
                v.bind(py),
                (0.0, MAX_WINDOW_PKTS),
                allowed,
            )
        })
        .unwrap_or(fallback)
    }
}

impl WindowRule for PyRule {
    fn name(&self) -> String {
        self.who.name.clone()
    }
    fn increase(&self, cwnd: f64) -> f64 {
        self.call("increase", cwnd, 0.0)
    }
    fn decrease(&self, cwnd: f64) -> f64 {
        self.call("decrease", cwnd, cwnd)
    }
}

/// A rate controller written in Python: an object with `rate_bps()` (the pacing rate),
/// `on_report(report: dict)`, and optionally `on_no_feedback(now_s)`,
/// `on_no_feedback_idle(now_s)` and `feedback_timeout_s()` (see `ccscope.RateController`). The
/// rate is read back after every call.
struct PyRateController {
    who: Who,
    obj: Py<PyAny>,
    error: ErrorSlot,
    /// The rate the object last reported (bits/s), finite and > 0.
    rate_bps: f64,
}

impl PyRateController {
    fn new(who: Who, obj: Py<PyAny>, error: ErrorSlot) -> Self {
        let mut c = PyRateController {
            who,
            obj,
            error,
            rate_bps: 0.0,
        };
        c.refresh("start");
        c
    }

    /// A no-feedback expiry, handed to `hook`: an object without `on_no_feedback_idle` (one
    /// that is not a `ccscope.RateController`) takes an idle expiry as any other.
    fn no_feedback(&mut self, now: SimTime, hook: &str) {
        call_python(&self.who, hook, &self.error, |py| {
            let obj = self.obj.bind(py);
            let method = if obj.hasattr(hook)? {
                hook
            } else {
                "on_no_feedback"
            };
            obj.call_method1(method, (now.secs(),)).map(|_| ())
        });
        self.refresh(hook);
    }

    /// Reads `rate_bps()` back after `hook`; keeps the old rate when the call fails.
    fn refresh(&mut self, hook: &str) {
        let rate = call_python(&self.who, hook, &self.error, |py| {
            let v = self.obj.call_method0(py, "rate_bps")?;
            let allowed = "a rate in b/s, > 0 and at most 1e12";
            let x = number(
                py,
                &self.who,
                hook,
                "rate_bps()",
                v.bind(py),
                (0.0, MAX_RATE_BPS),
                allowed,
            )?;
            if x == 0.0 {
                let problem = format!("gave rate_bps() = 0.0; it must be {allowed}");
                return Err(self.who.error(py, hook, &problem, "0.0", allowed));
            }
            Ok(x)
        });
        if let Some(r) = rate {
            self.rate_bps = r;
        }
    }
}

impl Controller for PyRateController {
    fn name(&self) -> String {
        self.who.name.clone()
    }

    fn on_report(&mut self, r: &ReportSample) {
        call_python(&self.who, "on_report", &self.error, |py| {
            let d = PyDict::new(py);
            d.set_item("now_s", r.now.secs())?;
            d.set_item("rtt_s", r.rtt.map(|t| t.secs()))?;
            d.set_item("one_way_delay_s", r.one_way_delay.map(|t| t.secs()))?;
            d.set_item("recv_rate_bps", r.recv_rate_bps)?;
            d.set_item("loss_event_rate", r.loss_event_rate)?;
            d.set_item("lost_pkts", r.lost_pkts)?;
            d.set_item("received_pkts", r.received_pkts)?;
            d.set_item("loss_sent_at_s", r.loss_sent_at.map(|t| t.secs()))?;
            d.set_item("new_loss_event", r.new_loss_event)?;
            d.set_item("rate_bps", r.rate_bps)?;
            d.set_item("capacity_bps", r.capacity_bps)?;
            self.obj.call_method1(py, "on_report", (d,)).map(|_| ())
        });
        self.refresh("on_report");
    }

    fn feedback_timeout(&self) -> Option<SimTime> {
        call_python(&self.who, "feedback_timeout_s", &self.error, |py| {
            let t = self.obj.call_method0(py, "feedback_timeout_s")?;
            if t.is_none(py) {
                return Ok(None);
            }
            let allowed = "None or a time in s in [1e-9, 1e9]";
            let hook = "feedback_timeout_s()";
            let t = number(
                py,
                &self.who,
                hook,
                "",
                t.bind(py),
                (1e-9, MAX_TIME_S),
                allowed,
            )?;
            Ok(Some(SimTime::from_secs_f64(t)))
        })
        .flatten()
    }

    fn on_no_feedback(&mut self, now: SimTime) {
        self.no_feedback(now, "on_no_feedback");
    }

    fn on_no_feedback_idle(&mut self, now: SimTime) {
        self.no_feedback(now, "on_no_feedback_idle");
    }

    /// The round model's step: `on_round(sample)` with the interval's aggregate feedback.
    fn on_round(&mut self, r: &RoundSample) {
        call_python(&self.who, "on_round", &self.error, |py| {
            let d = PyDict::new(py);
            d.set_item("now_s", r.now.secs())?;
            d.set_item("interval_s", r.interval.secs())?;
            d.set_item("congested", r.congested)?;
            d.set_item("loss_fraction", r.loss_fraction)?;
            d.set_item("capacity_bps", r.capacity_bps)?;
            d.set_item("base_rtt_s", r.base_rtt.secs())?;
            d.set_item("queueing_delay_s", r.queueing_delay.secs())?;
            self.obj.call_method1(py, "on_round", (d,)).map(|_| ())
        });
        self.refresh("on_round");
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        Some(self.rate_bps)
    }
}

/// A time in seconds, or None.
fn secs(t: Option<SimTime>) -> Option<f64> {
    t.map(SimTime::secs)
}

/// One acknowledgement, as a `ccscope.Controller`'s `on_ack` sees it (the core's `AckSample`,
/// times in seconds).
#[pyclass(frozen, module = "ccscope._core", name = "Ack")]
pub(crate) struct PyAck {
    #[pyo3(get)]
    now_s: f64,
    #[pyo3(get)]
    acked_pkts: u64,
    #[pyo3(get)]
    acked_bytes: u64,
    #[pyo3(get)]
    sacked_pkts: u64,
    #[pyo3(get)]
    delivered_pkts: u64,
    #[pyo3(get)]
    growth_pkts: u64,
    #[pyo3(get)]
    rtt_s: Option<f64>,
    #[pyo3(get)]
    srtt_s: Option<f64>,
    #[pyo3(get)]
    min_rtt_s: Option<f64>,
    #[pyo3(get)]
    in_flight_pkts: u64,
    #[pyo3(get)]
    in_flight_bytes: u64,
    #[pyo3(get)]
    ce_pkts: u64,
    #[pyo3(get)]
    ce_bytes: u64,
    #[pyo3(get)]
    ece: bool,
    #[pyo3(get)]
    in_recovery: bool,
    #[pyo3(get)]
    timeout_outstanding: bool,
    #[pyo3(get)]
    rwnd_limited: bool,
    #[pyo3(get)]
    delivery: Option<Py<PyDelivery>>,
}

#[pymethods]
impl PyAck {
    fn __repr__(&self) -> String {
        format!(
            "Ack(now_s={}, acked_pkts={}, rtt_s={:?}, in_flight_pkts={}, ece={}, in_recovery={})",
            self.now_s,
            self.acked_pkts,
            self.rtt_s,
            self.in_flight_pkts,
            self.ece,
            self.in_recovery
        )
    }
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation), for a controller whose
/// `wants_delivery_rate` is true.
#[pyclass(frozen, module = "ccscope._core", name = "Delivery")]
pub(crate) struct PyDelivery {
    #[pyo3(get)]
    rate_bps: f64,
    #[pyo3(get)]
    delivered_pkts: u64,
    #[pyo3(get)]
    delivered_bytes: u64,
    #[pyo3(get)]
    interval_s: f64,
    #[pyo3(get)]
    app_limited: bool,
    #[pyo3(get)]
    total_delivered_pkts: u64,
    #[pyo3(get)]
    tx_in_flight_pkts: u64,
    #[pyo3(get)]
    lost_pkts: u64,
}

/// A congestion signal, as `on_loss` sees it: `kind` is "gap", "timeout" or "ecn".
#[pyclass(frozen, module = "ccscope._core", name = "Loss")]
pub(crate) struct PyLoss {
    #[pyo3(get)]
    now_s: f64,
    #[pyo3(get)]
    kind: &'static str,
    #[pyo3(get)]
    sent_at_s: f64,
    #[pyo3(get)]
    lost_pkts: f64,
}

/// A rate-based receiver's report, as `on_report` sees it (fields the receiver does not
/// report are None or 0).
#[pyclass(frozen, module = "ccscope._core", name = "Report")]
pub(crate) struct PyReport {
    #[pyo3(get)]
    now_s: f64,
    #[pyo3(get)]
    rtt_s: Option<f64>,
    #[pyo3(get)]
    one_way_delay_s: Option<f64>,
    #[pyo3(get)]
    recv_rate_bps: f64,
    #[pyo3(get)]
    loss_event_rate: f64,
    #[pyo3(get)]
    lost_pkts: f64,
    #[pyo3(get)]
    received_pkts: f64,
    #[pyo3(get)]
    loss_sent_at_s: Option<f64>,
    #[pyo3(get)]
    new_loss_event: bool,
    #[pyo3(get)]
    rate_bps: Option<f64>,
    #[pyo3(get)]
    capacity_bps: Option<f64>,
}

/// One step of the round model, as `on_round` sees it.
#[pyclass(frozen, module = "ccscope._core", name = "Round")]
pub(crate) struct PyRound {
    #[pyo3(get)]
    now_s: f64,
    #[pyo3(get)]
    interval_s: f64,
    #[pyo3(get)]
    congested: bool,
    #[pyo3(get)]
    loss_fraction: f64,
    #[pyo3(get)]
    capacity_bps: Option<f64>,
    #[pyo3(get)]
    base_rtt_s: f64,
    #[pyo3(get)]
    queueing_delay_s: f64,
}

/// One packet of a media receiver's feedback, as `on_feedback` sees it (`arrived_s` None:
/// reported not received; `ect` and `ce` always false with transport-wide feedback).
#[pyclass(frozen, module = "ccscope._core", name = "PacketStatus")]
pub(crate) struct PyPacketStatus {
    #[pyo3(get)]
    seq: u64,
    #[pyo3(get)]
    size_bytes: u32,
    #[pyo3(get)]
    sent_s: f64,
    #[pyo3(get)]
    arrived_s: Option<f64>,
    #[pyo3(get)]
    ect: bool,
    #[pyo3(get)]
    ce: bool,
}

#[pymethods]
impl PyPacketStatus {
    fn __repr__(&self) -> String {
        format!(
            "PacketStatus(seq={}, size_bytes={}, sent_s={}, arrived_s={:?}, ce={})",
            self.seq, self.size_bytes, self.sent_s, self.arrived_s, self.ce
        )
    }
}

/// A media receiver's feedback packet, as `on_feedback` sees it.
#[pyclass(frozen, module = "ccscope._core", name = "Feedback")]
pub(crate) struct PyFeedback {
    #[pyo3(get)]
    now_s: f64,
    #[pyo3(get)]
    report_s: f64,
    #[pyo3(get)]
    format: &'static str,
    #[pyo3(get)]
    rtt_s: Option<f64>,
    #[pyo3(get)]
    in_flight_bytes: u64,
    #[pyo3(get)]
    queued_bytes: u64,
    #[pyo3(get)]
    size_bytes: u32,
    #[pyo3(get)]
    packets: Vec<Py<PyPacketStatus>>,
}

#[pymethods]
impl PyFeedback {
    fn __repr__(&self) -> String {
        format!(
            "Feedback(now_s={}, format={:?}, rtt_s={:?}, packets=[{} packets], in_flight_bytes={})",
            self.now_s,
            self.format,
            self.rtt_s,
            self.packets.len(),
            self.in_flight_bytes
        )
    }
}

/// The hooks of `ccscope.Controller`, in the order of [`PyController::overrides`].
const HOOKS: [&str; 9] = [
    "on_ack",
    "on_loss",
    "on_undo",
    "on_report",
    "on_round",
    "on_wakeup",
    "on_no_feedback",
    "on_feedback",
    "on_no_feedback_idle",
];
const ON_ACK: usize = 0;
const ON_LOSS: usize = 1;
const ON_UNDO: usize = 2;
const ON_REPORT: usize = 3;
const ON_ROUND: usize = 4;
const ON_WAKEUP: usize = 5;
const ON_NO_FEEDBACK: usize = 6;
const ON_FEEDBACK: usize = 7;
const ON_NO_FEEDBACK_IDLE: usize = 8;

/// A `ccscope.Controller` subclass's object. Only the hooks the class overrides are called
/// (the base's do nothing), so a controller that does not read ACKs costs no call per ACK.
struct PyController {
    who: Who,
    obj: Py<PyAny>,
    error: ErrorSlot,
    overrides: [bool; HOOKS.len()],
    wants_delivery_rate: bool,
    /// The feedback the class asks for on a media source (`feedback_format`,
    /// `feedback_interval_s`, `feedback_per_frame`), read once.
    feedback_plan: Option<FeedbackPlan>,
    /// The outputs as last read.
    out: Outputs,
}

impl PyController {
    fn new(py: Python<'_>, who: Who, obj: Py<PyAny>, error: ErrorSlot) -> PyResult<Self> {
        let base = py.import("ccscope.controllers")?.getattr("Controller")?;
        let class = obj.bind(py).get_type();
        let mut overrides = [false; HOOKS.len()];
        for (o, hook) in overrides.iter_mut().zip(HOOKS) {
            *o = !class.getattr(hook)?.is(&base.getattr(hook)?);
        }
        let wants = obj.bind(py).getattr("wants_delivery_rate")?.is_truthy()?;
        let feedback_plan = feedback_plan(obj.bind(py), &who)?;
        let out = Outputs::read(obj.bind(py), &who, "__init__")?;
        Ok(PyController {
            who,
            obj,
            error,
            overrides,
            wants_delivery_rate: wants,
            feedback_plan,
            out,
        })
    }

    /// Calls hook `h` with the argument `arg` makes, then reads the outputs back; nothing when
    /// the class does not override the hook.
    fn hook(
        &mut self,
        h: usize,
        arg: impl for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyAny>>,
    ) {
        if !self.overrides[h] {
            return;
        }
        let PyController {
            who,
            obj,
            error,
            out,
            ..
        } = self;
        call_python(who, HOOKS[h], error, |py| {
            let obj = obj.bind(py);
            obj.call_method1(hook_name(py, h), (arg(py)?,))?;
            *out = Outputs::read(obj, who, HOOKS[h])?;
            Ok(())
        });
    }
}

/// Hook `h`'s name as an interned Python string (no string is made per call).
fn hook_name(py: Python<'_>, h: usize) -> &Bound<'_, pyo3::types::PyString> {
    match h {
        ON_ACK => intern!(py, "on_ack"),
        ON_LOSS => intern!(py, "on_loss"),
        ON_UNDO => intern!(py, "on_undo"),
        ON_REPORT => intern!(py, "on_report"),
        ON_ROUND => intern!(py, "on_round"),
        ON_WAKEUP => intern!(py, "on_wakeup"),
        ON_NO_FEEDBACK => intern!(py, "on_no_feedback"),
        ON_NO_FEEDBACK_IDLE => intern!(py, "on_no_feedback_idle"),
        _ => intern!(py, "on_feedback"),
    }
}

/// What a `ccscope.Controller` gives, as last read: window (packets, infinite when None),
/// pacing rate (bits/s), wake-up time, no-feedback timeout.
#[derive(Clone, Copy)]
struct Outputs {
    window: f64,
    rate_bps: Option<f64>,
    target_bps: Option<f64>,
    wakeup: Option<SimTime>,
    feedback_timeout: Option<SimTime>,
}

impl Outputs {
    /// The outputs `obj` holds after `hook`, each checked.
    fn read(obj: &Bound<'_, PyAny>, who: &Who, hook: &str) -> PyResult<Outputs> {
        let py = obj.py();
        let w = obj.getattr(intern!(py, "window_pkts"))?;
        let window = if w.is_none() {
            f64::INFINITY
        } else {
            let allowed = "None or a number of packets in [1, 1e9]";
            number(
                py,
                who,
                hook,
                "window_pkts",
                &w,
                (1.0, MAX_WINDOW_PKTS),
                allowed,
            )?
        };
        let r = obj.getattr(intern!(py, "pacing_rate_bps"))?;
        let rate_bps = if r.is_none() {
            None
        } else {
            let allowed = "None or a rate in b/s in [1, 1e12]";
            Some(number(
                py,
                who,
                hook,
                "pacing_rate_bps",
                &r,
                (1.0, MAX_RATE_BPS),
                allowed,
            )?)
        };
        let r = obj.getattr(intern!(py, "target_rate_bps"))?;
        let target_bps = if r.is_none() {
            None
        } else {
            let allowed = "None or a rate in b/s in [1, 1e12]";
            Some(number(
                py,
                who,
                hook,
                "target_rate_bps",
                &r,
                (1.0, MAX_RATE_BPS),
                allowed,
            )?)
        };
        let t = obj.getattr(intern!(py, "wakeup_s"))?;
        let wakeup = if t.is_none() {
            None
        } else {
            let allowed = "None or a time in s in [0, 1e9]";
            let s = number(py, who, hook, "wakeup_s", &t, (0.0, MAX_TIME_S), allowed)?;
            Some(SimTime::from_secs_f64(s))
        };
        let f = obj.getattr(intern!(py, "feedback_timeout_s"))?;
        let feedback_timeout = if f.is_none() {
            None
        } else {
            let allowed = "None or a time in s in [1e-9, 1e9]";
            let s = number(
                py,
                who,
                hook,
                "feedback_timeout_s",
                &f,
                (1e-9, MAX_TIME_S),
                allowed,
            )?;
            Some(SimTime::from_secs_f64(s))
        };
        Ok(Outputs {
            window,
            rate_bps,
            target_bps,
            wakeup,
            feedback_timeout,
        })
    }
}

impl Controller for PyController {
    fn name(&self) -> String {
        self.who.name.clone()
    }

    fn on_ack(&mut self, a: &AckSample) {
        self.hook(ON_ACK, |py| {
            let delivery = match a.delivery {
                Some(d) => Some(Py::new(
                    py,
                    PyDelivery {
                        rate_bps: d.rate_bps,
                        delivered_pkts: d.delivered_pkts,
                        delivered_bytes: d.delivered_bytes,
                        interval_s: d.interval.secs(),
                        app_limited: d.app_limited,
                        total_delivered_pkts: d.total_delivered_pkts,
                        tx_in_flight_pkts: d.tx_in_flight_pkts,
                        lost_pkts: d.lost_pkts,
                    },
                )?),
                None => None,
            };
            let ack = PyAck {
                now_s: a.now.secs(),
                acked_pkts: a.acked_pkts,
                acked_bytes: a.acked_bytes,
                sacked_pkts: a.sacked_pkts,
                delivered_pkts: a.delivered_pkts,
                growth_pkts: a.growth_pkts,
                rtt_s: secs(a.rtt),
                srtt_s: secs(a.srtt),
                min_rtt_s: secs(a.min_rtt),
                in_flight_pkts: a.in_flight_pkts,
                in_flight_bytes: a.in_flight_bytes,
                ce_pkts: a.ce_pkts,
                ce_bytes: a.ce_bytes,
                ece: a.ece,
                in_recovery: a.in_recovery,
                timeout_outstanding: a.timeout_outstanding,
                rwnd_limited: a.rwnd_limited,
                delivery,
            };
            Ok(Bound::new(py, ack)?.into_any())
        });
    }

    fn on_loss(&mut self, l: &LossEvent) {
        self.hook(ON_LOSS, |py| {
            let loss = PyLoss {
                now_s: l.now.secs(),
                kind: l.kind.name(),
                sent_at_s: l.sent_at.secs(),
                lost_pkts: l.lost_pkts,
            };
            Ok(Bound::new(py, loss)?.into_any())
        });
    }

    fn on_undo(&mut self, now: SimTime) {
        self.hook(ON_UNDO, |py| Ok(now.secs().into_pyobject(py)?.into_any()));
    }

    fn on_report(&mut self, r: &ReportSample) {
        self.hook(ON_REPORT, |py| {
            let report = PyReport {
                now_s: r.now.secs(),
                rtt_s: secs(r.rtt),
                one_way_delay_s: secs(r.one_way_delay),
                recv_rate_bps: r.recv_rate_bps,
                loss_event_rate: r.loss_event_rate,
                lost_pkts: r.lost_pkts,
                received_pkts: r.received_pkts,
                loss_sent_at_s: secs(r.loss_sent_at),
                new_loss_event: r.new_loss_event,
                rate_bps: r.rate_bps,
                capacity_bps: r.capacity_bps,
            };
            Ok(Bound::new(py, report)?.into_any())
        });
    }

    fn on_round(&mut self, r: &RoundSample) {
        self.hook(ON_ROUND, |py| {
            let round = PyRound {
                now_s: r.now.secs(),
                interval_s: r.interval.secs(),
                congested: r.congested,
                loss_fraction: r.loss_fraction,
                capacity_bps: r.capacity_bps,
                base_rtt_s: r.base_rtt.secs(),
                queueing_delay_s: r.queueing_delay.secs(),
            };
            Ok(Bound::new(py, round)?.into_any())
        });
    }

    fn on_wakeup(&mut self, now: SimTime) {
        self.hook(ON_WAKEUP, |py| Ok(now.secs().into_pyobject(py)?.into_any()));
    }

    fn on_no_feedback(&mut self, now: SimTime) {
        self.hook(ON_NO_FEEDBACK, |py| {
            Ok(now.secs().into_pyobject(py)?.into_any())
        });
    }

    /// An idle expiry: to `on_no_feedback_idle` when the class overrides it, else to
    /// `on_no_feedback` as any expiry (what the base's `on_no_feedback_idle` would do, without
    /// its call).
    fn on_no_feedback_idle(&mut self, now: SimTime) {
        let h = if self.overrides[ON_NO_FEEDBACK_IDLE] {
            ON_NO_FEEDBACK_IDLE
        } else {
            ON_NO_FEEDBACK
        };
        self.hook(h, |py| Ok(now.secs().into_pyobject(py)?.into_any()));
    }

    fn on_feedback(&mut self, f: &FeedbackSample) {
        self.hook(ON_FEEDBACK, |py| {
            let packets = f
                .packets
                .iter()
                .map(|p| {
                    Py::new(
                        py,
                        PyPacketStatus {
                            seq: p.seq,
                            size_bytes: p.size_bytes,
                            sent_s: p.sent_at.secs(),
                            arrived_s: secs(p.arrived_at),
                            ect: p.ect,
                            ce: p.ce,
                        },
                    )
                })
                .collect::<PyResult<Vec<_>>>()?;
            let fb = PyFeedback {
                now_s: f.now.secs(),
                report_s: f.report_at.secs(),
                format: f.format.name(),
                rtt_s: secs(f.rtt),
                in_flight_bytes: f.in_flight_bytes,
                queued_bytes: f.queued_bytes,
                size_bytes: f.size_bytes,
                packets,
            };
            Ok(Bound::new(py, fb)?.into_any())
        });
    }

    fn target_rate_bps(&self) -> Option<f64> {
        self.out.target_bps
    }

    fn feedback_plan(&self) -> Option<FeedbackPlan> {
        self.feedback_plan
    }

    fn runs_in_rounds(&self) -> bool {
        !self.overrides[ON_FEEDBACK]
    }

    fn window(&self) -> f64 {
        self.out.window
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        self.out.rate_bps
    }

    fn wakeup(&self) -> Option<SimTime> {
        self.out.wakeup
    }

    fn wants_delivery_rate(&self) -> bool {
        self.wants_delivery_rate
    }

    fn feedback_timeout(&self) -> Option<SimTime> {
        self.out.feedback_timeout
    }

    /// The round model's packetization: the object's `window_pkts` is set to the whole
    /// packets the engine keeps.
    fn set_window(&mut self, cwnd_pkts: f64) {
        let PyController {
            who,
            obj,
            error,
            out,
            ..
        } = self;
        call_python(who, "set_window", error, |py| {
            let obj = obj.bind(py);
            obj.setattr(intern!(py, "window_pkts"), cwnd_pkts)?;
            *out = Outputs::read(obj, who, "set_window")?;
            Ok(())
        });
    }
}

/// The [`Foreign`] factory of a run whose flows were handed Python objects: each flow's object,
/// wrapped by what it is.
pub(crate) struct PythonFactory<'a> {
    pub(crate) python: &'a PythonControllers,
    pub(crate) error: &'a ErrorSlot,
}

impl Foreign for PythonFactory<'_> {
    fn make(
        &mut self,
        flow: usize,
        spec: &PythonController,
        family: Option<Family>,
        start: &Start,
    ) -> ccscope_core::Result<Box<dyn Controller>> {
        let (name, path, obj) = self.python.get(&flow).ok_or_else(|| {
            ccscope_core::Error::invalid(
                "controller",
                format!("'{}'", spec.name()),
                format!("no Python object was handed to flow {flow}"),
            )
        })?;
        let who = Who {
            flow,
            name: name.clone(),
            path: path.clone(),
        };
        let error = Arc::clone(self.error);
        Python::attach(|py| {
            let obj = obj.clone_ref(py);
            let bound = obj.bind(py);
            let is = |class: &str| -> bool {
                py.import("ccscope.controllers")
                    .and_then(|m| m.getattr(class))
                    .is_ok_and(|c| bound.is_instance(&c).unwrap_or(false))
            };
            if is("Controller") {
                let c = PyController::new(py, who.clone(), obj, Arc::clone(&error));
                return match c {
                    Ok(c) => needs_outputs(&who, family, &c.out)
                        .map(|()| Box::new(c) as Box<dyn Controller>),
                    // The run raises the error the slot holds, which says what was wrong.
                    Err(e) => {
                        if let Ok(mut slot) = error.lock() {
                            slot.get_or_insert(e);
                        }
                        Err(ccscope_core::Error::invalid(
                            path.as_str(),
                            name,
                            "not a usable controller",
                        ))
                    }
                };
            }
            if bound.hasattr("increase").unwrap_or(false) {
                let rule = PyRule { who, obj, error };
                return Ok(Box::new(Window::with_rule(rule).with_config(start.window)?)
                    as Box<dyn Controller>);
            }
            Ok(Box::new(PyRateController::new(who, obj, error)) as Box<dyn Controller>)
        })
    }
}

/// The feedback a `ccscope.Controller` asks for: its `feedback_format` ("rfc8888" or
/// "transport-wide"), `feedback_interval_s` and `feedback_per_frame`, each None for the
/// default; `None` when it sets none of them.
fn feedback_plan(obj: &Bound<'_, PyAny>, who: &Who) -> PyResult<Option<FeedbackPlan>> {
    let py = obj.py();
    let format = obj.getattr("feedback_format")?;
    let interval = obj.getattr("feedback_interval_s")?;
    let per_frame = obj.getattr("feedback_per_frame")?;
    if format.is_none() && interval.is_none() && per_frame.is_none() {
        return Ok(None);
    }
    let mut plan = DEFAULT_FEEDBACK;
    if !format.is_none() {
        let text: Option<String> = format.extract().ok();
        plan.format = match text.as_deref() {
            Some("rfc8888") => FeedbackFormat::Rfc8888,
            Some("transport-wide") => FeedbackFormat::TransportWide,
            _ => {
                let shown = format.repr().map(|r| r.to_string()).unwrap_or_default();
                let allowed = "None, 'rfc8888' or 'transport-wide'";
                let problem = format!("gave feedback_format = {shown}; it must be {allowed}");
                return Err(who.error(py, "__init__", &problem, &shown, allowed));
            }
        };
    }
    if !interval.is_none() {
        let allowed = "None or a time in s in [1e-6, 10]";
        let s = number(
            py,
            who,
            "__init__",
            "feedback_interval_s",
            &interval,
            (1e-6, 10.0),
            allowed,
        )?;
        plan.interval = SimTime::from_secs_f64(s);
    }
    if !per_frame.is_none() {
        plan.per_frame = per_frame.is_truthy()?;
    }
    Ok(Some(plan))
}

/// A `ccscope.Controller` on a source must set what the source runs by: a TCP source a window
/// or a pacing rate, a rate source a pacing rate, an rtp source a target or a pacing rate.
fn needs_outputs(who: &Who, family: Option<Family>, c: &Outputs) -> ccscope_core::Result<()> {
    let missing = match family {
        Some(Family::Window) if !c.window.is_finite() && c.rate_bps.is_none() => {
            Some("a tcp source needs window_pkts or pacing_rate_bps set")
        }
        Some(Family::Rate) if c.rate_bps.is_none() => {
            Some("a rate source needs pacing_rate_bps set")
        }
        Some(Family::Media) if c.rate_bps.is_none() && c.target_bps.is_none() => {
            Some("an rtp source needs target_rate_bps or pacing_rate_bps set")
        }
        _ => None,
    };
    match missing {
        None => Ok(()),
        Some(need) => Err(ccscope_core::Error::invalid(
            who.path.as_str(),
            format!("'{}'", who.name),
            format!("{need} by the end of __init__"),
        )),
    }
}
