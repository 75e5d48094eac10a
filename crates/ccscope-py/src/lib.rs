//! PyO3 glue between ccscope-core and the `ccscope` Python package. Glue only: a scenario table
//! comes in as JSON text (the parsed TOML, read and validated by `ccscope_core::scenario`),
//! results go out as dicts of numbers and numpy arrays, every core error becomes the
//! `ccscope.errors` exception that names its path, value and what is allowed, and a panic never
//! crosses into Python.

mod controllers;
mod round;
mod theory;
mod watch;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use ccscope_core::control::catalog::{self, ControllerConfig, Family, StandIn, Start};
use ccscope_core::net::sim::{LinkReport, RunResult};
use ccscope_core::net::stats::DirStats;
use ccscope_core::net::trace::{EventKind, Trace};
use ccscope_core::time::SimTime;
use ccscope_core::{build, scenario};
use controllers::{ErrorSlot, PythonControllers, PythonFactory};
use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

create_exception!(
    _core,
    CoreError,
    PyValueError,
    "An internal engine failure (a bug: please report it)."
);

/// The `ccscope.errors` exception for a core error, with the path as the user wrote it, the
/// value as written and what is allowed: the one place that maps the core's errors to Python's
/// classes (`CostError`, `ControllerError`, `ScenarioError`).
fn core_err(py: Python<'_>, e: ccscope_core::Error) -> PyErr {
    use ccscope_core::Error;
    let message = e.to_string();
    let (class, path, value, allowed) = match e {
        Error::TooCostly {
            field,
            value,
            estimate,
        } => ("CostError", field.to_string(), value, estimate),
        Error::InvalidField {
            field,
            value,
            allowed,
        } => (class_of(&field), field.to_string(), value, allowed),
        Error::UnknownName {
            field,
            value,
            known,
        } => (
            class_of(&field),
            field.to_string(),
            format!("'{value}'"),
            format!("expected one of: {known}"),
        ),
        Error::NoRoute { flow, .. } => (
            "ScenarioError",
            format!("flows[{flow}]"),
            String::new(),
            "a route between its end nodes".to_string(),
        ),
        Error::ControllerFailed { hook, problem, .. } => {
            ("ControllerError", String::new(), hook, problem)
        }
        Error::Malformed(_) => ("ScenarioError", String::new(), String::new(), String::new()),
    };
    let made = py
        .import("ccscope.errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1((message.clone(), path, value, allowed)));
    match made {
        Ok(obj) => PyErr::from_value(obj),
        Err(_) => CoreError::new_err(message),
    }
}

/// The class of an error about `field`: a controller's, or the scenario's.
fn class_of(field: &ccscope_core::error::FieldPath) -> &'static str {
    if field.names_controller() {
        "ControllerError"
    } else {
        "ScenarioError"
    }
}

/// Runs `f` with the GIL released, turning a panic into a `CoreError` instead of an abort.
fn guarded<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> ccscope_core::Result<T> + Send,
) -> PyResult<T> {
    let out = py.detach(|| catch_unwind(AssertUnwindSafe(f)));
    unwound(py, out)
}

/// A core result that may have panicked, as a Python result: a panic is a `CoreError`.
fn unwound<T>(py: Python<'_>, out: std::thread::Result<ccscope_core::Result<T>>) -> PyResult<T> {
    match out {
        Ok(r) => r.map_err(|e| core_err(py, e)),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(CoreError::new_err(format!(
                "internal error in the engine (please report): {msg}"
            )))
        }
    }
}

/// A scenario table given as JSON text (a parsed TOML file).
fn table(text: &str) -> ccscope_core::Result<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| ccscope_core::Error::Malformed(e.to_string()))
}

fn dir_dict<'py>(py: Python<'py>, d: &DirStats) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("sent_pkts", d.sent_pkts)?;
    out.set_item("sent_bytes", d.sent_bytes)?;
    out.set_item("delivered_pkts", d.delivered_pkts)?;
    out.set_item("delivered_bytes", d.delivered_bytes)?;
    out.set_item("queue_drops", d.queue_drops)?;
    out.set_item("link_losses", d.link_losses)?;
    out.set_item("marked", d.marked)?;
    out.set_item("delay_sum_ns", d.delay_sum_ns)?;
    Ok(out)
}

fn link_dict<'py>(py: Python<'py>, l: &LinkReport) -> PyResult<Bound<'py, PyDict>> {
    let s = &l.stats;
    let out = PyDict::new(py);
    out.set_item("name", l.name.to_string())?;
    out.set_item("from", l.from.to_string())?;
    out.set_item("to", l.to.to_string())?;
    out.set_item("monitor", l.monitor)?;
    out.set_item("rate_bps", l.rate_bps)?;
    out.set_item("delay_ns", l.delay.ns())?;
    out.set_item("arrivals", s.arrivals)?;
    out.set_item("departures", s.departures)?;
    out.set_item("tx_bytes", s.tx_bytes)?;
    out.set_item("forced_drops", s.forced_drops)?;
    out.set_item("early_drops", s.early_drops)?;
    out.set_item("marks", s.marks)?;
    out.set_item("losses", s.losses)?;
    out.set_item("exits", s.exits)?;
    out.set_item("busy_ns", s.busy_ns)?;
    // Integrals can exceed 64 bits on long runs; hand them over as floats.
    out.set_item("queue_pkt_ns", s.queue_pkt_ns as f64)?;
    out.set_item("queue_byte_ns", s.queue_byte_ns as f64)?;
    out.set_item("max_queue_pkts", s.max_queue_pkts)?;
    out.set_item("in_queue", l.in_queue)?;
    out.set_item("on_wire", l.on_wire)?;
    out.set_item("in_pipe", l.in_pipe)?;
    if let Some(s) = l.sojourn.as_deref() {
        out.set_item("sojourn_pkts", s.packets)?;
        out.set_item("sojourn_mean_ns", s.mean_ns)?;
        out.set_item("sojourn_p95_ns", s.p95_ns)?;
        out.set_item("sojourn_p99_ns", s.p99_ns)?;
    }
    if let Some(&(lo, hi, p, w)) = l.red.as_deref() {
        let red = PyDict::new(py);
        red.set_item("min_th", lo)?;
        red.set_item("max_th", hi)?;
        red.set_item("max_p", p)?;
        red.set_item("w_q", w)?;
        out.set_item("red", red)?;
    }
    Ok(out)
}

/// Columns as numpy arrays: one row per (bin, flow) or (bin, link), bin-major.
fn trace_dict<'py>(py: Python<'py>, t: Trace) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("interval_ns", t.interval.ns())?;
    out.set_item("bins", t.bins)?;
    if !t.flows.is_empty() {
        let n = t.n_flows;
        let d = PyDict::new(py);
        let col = |f: fn(&ccscope_core::net::trace::FlowBin) -> u64| {
            t.flows.iter().map(f).collect::<Vec<u64>>()
        };
        d.set_item(
            "bin",
            (0..t.flows.len())
                .map(|i| (i / n) as u64)
                .collect::<Vec<_>>()
                .into_pyarray(py),
        )?;
        d.set_item(
            "flow",
            (0..t.flows.len())
                .map(|i| (i % n) as u32)
                .collect::<Vec<_>>()
                .into_pyarray(py),
        )?;
        d.set_item("sent_pkts", col(|b| b.sent_pkts).into_pyarray(py))?;
        d.set_item("sent_bytes", col(|b| b.sent_bytes).into_pyarray(py))?;
        d.set_item("delivered_pkts", col(|b| b.delivered_pkts).into_pyarray(py))?;
        d.set_item(
            "delivered_bytes",
            col(|b| b.delivered_bytes).into_pyarray(py),
        )?;
        d.set_item("lost_pkts", col(|b| b.lost_pkts).into_pyarray(py))?;
        let probe = |f: fn(&ccscope_core::net::trace::Probe) -> f64| {
            t.flows.iter().map(|b| f(&b.probe)).collect::<Vec<f64>>()
        };
        d.set_item("window_pkts", probe(|p| p.window_pkts).into_pyarray(py))?;
        d.set_item("rate_bps", probe(|p| p.rate_bps).into_pyarray(py))?;
        d.set_item("srtt_s", probe(|p| p.srtt_s).into_pyarray(py))?;
        out.set_item("flows", d)?;
    }
    if !t.queues.is_empty() {
        let n = t.links.len();
        let d = PyDict::new(py);
        let col = |f: fn(&ccscope_core::net::trace::QueueBin) -> u64| {
            t.queues.iter().map(f).collect::<Vec<u64>>()
        };
        d.set_item(
            "bin",
            (0..t.queues.len())
                .map(|i| (i / n) as u64)
                .collect::<Vec<_>>()
                .into_pyarray(py),
        )?;
        d.set_item(
            "link",
            (0..t.queues.len())
                .map(|i| t.links[i % n])
                .collect::<Vec<_>>()
                .into_pyarray(py),
        )?;
        d.set_item("queue_pkts", col(|b| b.queue_pkts).into_pyarray(py))?;
        d.set_item("queue_bytes", col(|b| b.queue_bytes).into_pyarray(py))?;
        d.set_item("drops", col(|b| b.drops).into_pyarray(py))?;
        d.set_item("marks", col(|b| b.marks).into_pyarray(py))?;
        d.set_item("departures", col(|b| b.departures).into_pyarray(py))?;
        d.set_item("tx_bytes", col(|b| b.tx_bytes).into_pyarray(py))?;
        out.set_item("queues", d)?;
    }
    if let Some(ev) = t.events {
        let d = PyDict::new(py);
        d.set_item("time_ns", ev.time_ns.into_pyarray(py))?;
        d.set_item("link", ev.link.into_pyarray(py))?;
        d.set_item("flow", ev.flow.into_pyarray(py))?;
        d.set_item("kind", ev.kind.into_pyarray(py))?;
        d.set_item("kind_names", EventKind::NAMES.to_vec())?;
        out.set_item("events", d)?;
    }
    if let Some(st) = t.state {
        let d = PyDict::new(py);
        d.set_item("time_ns", st.time_ns.into_pyarray(py))?;
        d.set_item("flow", st.flow.into_pyarray(py))?;
        d.set_item("side", st.side.into_pyarray(py))?;
        d.set_item("field", st.field.into_pyarray(py))?;
        d.set_item("value", st.value.into_pyarray(py))?;
        d.set_item("field_names", st.names)?;
        out.set_item("state", d)?;
    }
    if let Some(dl) = t.delays {
        let d = PyDict::new(py);
        d.set_item("time_ns", dl.time_ns.into_pyarray(py))?;
        d.set_item("flow", dl.flow.into_pyarray(py))?;
        d.set_item("delay_ns", dl.delay_ns.into_pyarray(py))?;
        out.set_item("delays", d)?;
    }
    Ok(out)
}

/// A transport's named numbers as a dict in the transport's own order (a hash map's order
/// would differ from run to run and so would summary.json).
fn stats_dict<'py>(py: Python<'py>, stats: &[(&'static str, f64)]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, value) in stats {
        d.set_item(*name, *value)?;
    }
    Ok(d)
}

fn result_dict(py: Python<'_>, r: RunResult) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("seed", r.seed)?;
    out.set_item("duration_ns", r.duration.ns())?;
    out.set_item("warmup_ns", r.warmup.ns())?;
    out.set_item("events", r.events)?;
    let flows = PyList::empty(py);
    for f in &r.flows {
        let d = PyDict::new(py);
        d.set_item("label", &f.label)?;
        d.set_item("data", dir_dict(py, &f.stats.dir[0])?)?;
        d.set_item("feedback", dir_dict(py, &f.stats.dir[1])?)?;
        d.set_item("in_flight", f.in_flight)?;
        d.set_item("sender", stats_dict(py, &f.sender)?)?;
        d.set_item("receiver", stats_dict(py, &f.receiver)?)?;
        let series = PyDict::new(py);
        for (name, values) in &f.series {
            series.set_item(*name, values.clone().into_pyarray(py))?;
        }
        d.set_item("series", series)?;
        d.set_item("path", f.path.clone())?;
        flows.append(d)?;
    }
    out.set_item("flows", flows)?;
    let links = PyList::empty(py);
    for l in &r.links {
        links.append(link_dict(py, l)?)?;
    }
    out.set_item("links", links)?;
    match r.trace {
        Some(t) => out.set_item("trace", trace_dict(py, t)?)?,
        None => out.set_item("trace", py.None())?,
    }
    let files = r.pcap.map_err(|e| {
        core_err(
            py,
            ccscope_core::Error::invalid(
                "trace.pcap",
                "",
                format!("a capture the run could not write: {e}"),
            ),
        )
    })?;
    let pcap = PyList::empty(py);
    for f in files {
        let d = PyDict::new(py);
        d.set_item("link", f.link)?;
        d.set_item("path", f.path)?;
        d.set_item("packets", f.packets)?;
        pcap.append(d)?;
    }
    out.set_item("pcap", pcap)?;
    if !r.socket_drops.is_empty() {
        let d = PyDict::new(py);
        for (socket, n) in &r.socket_drops {
            d.set_item(*socket, *n)?;
        }
        out.set_item("socket_drops", d)?;
    }
    Ok(out)
}

/// Runs `f` as [`guarded`] does, handing it the flows' Python controllers and the slot their
/// first error goes to. An error that stopped the run before it ran (while its flows were
/// built) is what the call raises; one raised while it ran is handed back beside the result,
/// which covers the time the run had reached.
pub(crate) fn with_python<T: Send>(
    py: Python<'_>,
    python: Option<PythonControllers>,
    threads: bool,
    f: impl FnOnce(&PythonControllers, &ErrorSlot) -> ccscope_core::Result<T> + Send,
) -> PyResult<(T, Option<PyErr>)> {
    let python = python.unwrap_or_default();
    let error: ErrorSlot = Arc::default();
    let slot = Arc::clone(&error);
    // A run with Python controllers keeps the GIL: each callback would take it again, which
    // costs more than most callbacks (the progress look still lets signals through). A run
    // whose endpoints run on `threads` of their own (the udp engine) lets it go, or they
    // could not call Python at all.
    let outcome = if python.is_empty() || threads {
        guarded(py, move || f(&python, &slot))
    } else {
        unwound(py, catch_unwind(AssertUnwindSafe(|| f(&python, &slot))))
    };
    let raised = error.lock().ok().and_then(|mut e| e.take());
    match (outcome, raised) {
        (Ok(value), raised) => Ok((value, raised)),
        (Err(_), Some(e)) => Err(e),
        (Err(e), None) => Err(e),
    }
}

/// The result dict of a run that a Python error stopped: marked partial, with the error under
/// `error` for the caller to raise with the result.
fn with_error(py: Python<'_>, out: &Bound<'_, PyDict>, raised: Option<PyErr>) -> PyResult<()> {
    if let Some(e) = raised {
        if e.is_instance_of::<PyKeyboardInterrupt>(py) {
            out.set_item("partial", true)?;
        } else {
            out.set_item("partial", true)?;
            out.set_item("error", e.into_value(py))?;
        }
    }
    Ok(())
}

/// Simulated time between two looks for Ctrl-C and progress (each look is a clock read; the
/// GIL is taken only every 50 ms of wall time). At 1 ms the reads were about 2% of a small
/// run's engine time; a 10 ms slice of even a 1 Gb/s, 10 000-flow run takes a few ms of wall time.
const SLICE: SimTime = SimTime::from_ms(10);

/// Runs a packet-model scenario table (JSON text of the parsed TOML) and returns its results.
/// `python_controllers` maps the index of each flow naming `python:NAME` (counts expanded) to
/// (display name, the flow's own controller object). `progress(done_s, total_s)` is called as
/// simulated time passes; Ctrl-C stops the run and returns what it measured, with `partial`.
/// The captures `[trace] pcap` asks for are written into the folder `pcap_dir`.
#[pyfunction]
#[pyo3(signature = (table_json, python_controllers=None, progress=None, force=false, pcap_dir=None))]
fn run_packet<'py>(
    py: Python<'py>,
    table_json: &str,
    python_controllers: Option<PythonControllers>,
    progress: Option<Py<PyAny>>,
    force: bool,
    pcap_dir: Option<std::path::PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let text = table_json.to_owned();
    let mut watch = watch::Watch::new(progress);
    let real_time = table(table_json)
        .is_ok_and(|t| t.pointer("/run/engine").and_then(|e| e.as_str()) == Some("udp"));
    let ((result, partial), raised) =
        with_python(py, python_controllers, real_time, move |python, error| {
            let s = scenario::read_packet(table(&text)?)?;
            afford(s.cost(), force)?;
            let (real_time, emulation) = (s.run.engine == scenario::Engine::Udp, s.run.emulator);
            let mut s = build::packet(&s)?;
            if let Some(p) = s.trace.pcap.as_mut() {
                p.dir = pcap_dir;
            }
            let mut factory = PythonFactory { python, error };
            let mut make = |i: usize| build::endpoints(&s.flows[i].source, i, s.seed, &mut factory);
            if real_time {
                let end = SimTime::from_ns(s.duration_ns);
                let result = ccscope_core::realnet::run_with(&s, emulation, &mut make, |now| {
                    watch.go_on(now.secs(), end.secs(), error)
                })?;
                return Ok((result, watch.interrupted));
            }
            let mut sim = ccscope_core::net::Simulation::new(&s, &mut make)?;
            let end = sim.end();
            while sim.now() < end {
                sim.run_until(SimTime::from_ns(sim.now().ns().saturating_add(SLICE.ns())));
                if !watch.go_on(sim.now().secs(), end.secs(), error) {
                    break;
                }
            }
            Ok((sim.finish(), watch.interrupted))
        })?;
    let out = result_dict(py, result)?;
    out.set_item("partial", partial)?;
    with_error(py, &out, raised)?;
    Ok(out)
}

/// Reads and validates a scenario table of either engine (JSON text of the parsed TOML);
/// returns its engine ("packet", "udp" or "round"), the scenario with every default filled in
/// (as JSON text) and notes on how it was written (an old spelling read as the new one).
#[pyfunction]
fn read_scenario(py: Python<'_>, table_json: &str) -> PyResult<(String, String, Vec<String>)> {
    let text = table_json.to_owned();
    guarded(py, move || {
        let s = scenario::read(table(&text)?)?;
        // What only the engines know: controller names and parameters against the catalogue.
        let (engine, notes) = match &s {
            scenario::AnyScenario::Packet(p) if p.run.engine == scenario::Engine::Udp => {
                build::packet(p).map(|_| ("udp", Vec::new()))?
            }
            scenario::AnyScenario::Packet(p) => build::packet(p).map(|_| ("packet", Vec::new()))?,
            scenario::AnyScenario::Round(r) => {
                build::check_round(&build::round(r)?)?;
                ("round", r.notes())
            }
        };
        Ok((engine.to_string(), s.normalized().to_string(), notes))
    })
}

/// Refuses a run whose cost is beyond what runs unforced (`scenario::cost`), unless `force`.
pub(crate) fn afford(cost: scenario::Cost, force: bool) -> ccscope_core::Result<()> {
    if force {
        Ok(())
    } else {
        cost.check()
    }
}

/// What running a scenario table of either engine would cost: (work, its unit, bytes, a
/// short description).
#[pyfunction]
fn scenario_cost(py: Python<'_>, table_json: &str) -> PyResult<(f64, String, f64, String, f64)> {
    let text = table_json.to_owned();
    guarded(py, move || {
        let c = scenario::read(table(&text)?)?.cost();
        Ok((c.work, c.unit.to_string(), c.bytes, c.describe(), c.wall_s))
    })
}

/// Checks a packet-model scenario table as far as running it would, without running it:
/// the schema, what the run would cost (unless `force`), then what only the engine knows
/// (controllers, routes).
#[pyfunction]
#[pyo3(signature = (table_json, force=false))]
fn validate_packet(py: Python<'_>, table_json: &str, force: bool) -> PyResult<()> {
    let text = table_json.to_owned();
    guarded(py, move || {
        let s = scenario::read_packet(table(&text)?)?;
        afford(s.cost(), force)?;
        let s = build::packet(&s)?;
        // Python controllers are checked when they run; stand-ins let the rest be built.
        let make = |i: usize| build::endpoints(&s.flows[i].source, i, s.seed, &mut StandIn);
        ccscope_core::net::Simulation::new(&s, make).map(|_| ())
    })
}

/// The JSON Schema of a scenario file of `engine` ("packet" or "round"), as JSON text.
#[pyfunction]
fn scenario_schema(py: Python<'_>, engine: &str) -> PyResult<String> {
    let engine = engine.to_owned();
    guarded(py, move || {
        let engine = match engine.as_str() {
            "round" => scenario::Engine::Round,
            "packet" => scenario::Engine::Packet,
            other => {
                return Err(ccscope_core::Error::UnknownName {
                    field: "engine".into(),
                    value: other.into(),
                    known: "'packet', 'round'".into(),
                })
            }
        };
        serde_json::to_string_pretty(&scenario::json_schema(engine))
            .map_err(|e| ccscope_core::Error::Malformed(e.to_string()))
    })
}

/// The controller catalogue as JSON: window controllers (run by TCP) and rate controllers (run
/// by the rate transport), each with its `family`, keys in sorted order.
#[pyfunction]
fn controllers_json(py: Python<'_>) -> PyResult<String> {
    guarded(py, || {
        let malformed = |e: serde_json::Error| ccscope_core::Error::Malformed(e.to_string());
        let all = serde_json::to_value(catalog::listing()).map_err(malformed)?;
        serde_json::to_string(&all).map_err(malformed)
    })
}

/// Builds a catalogued controller of `family` ("window", "rate" or "media") to check its name and
/// parameters; returns its paper name.
#[pyfunction]
fn controller_name(
    py: Python<'_>,
    family: &str,
    name: &str,
    params: Vec<(String, f64)>,
) -> PyResult<String> {
    let (family, name) = (family.to_owned(), name.to_owned());
    guarded(py, move || {
        let family = match family.as_str() {
            "window" => Family::Window,
            "media" => Family::Media,
            _ => Family::Rate,
        };
        let config = ControllerConfig::resolve_in(family, &name, &params)?;
        config.build(&Start::default()).map(|c| c.name())
    })
}

/// Whether the catalogued controller `name` (either family) with `params` runs in the round
/// model, or needs the per-ACK feedback only the packet and udp engines give (BBR, Copa).
#[pyfunction]
fn runs_in_rounds(py: Python<'_>, name: &str, params: Vec<(String, f64)>) -> PyResult<bool> {
    let name = name.to_owned();
    guarded(py, move || {
        let config = ControllerConfig::resolve(&name, &params)?;
        config.build(&Start::default()).map(|c| c.runs_in_rounds())
    })
}

/// A value written with its unit as the core reads scenario values: ("time", seconds),
/// ("rate", bits/s) or ("size", bytes); None when `text` is none of them ("20ms", "1Mbps",
/// "1500B" are; "fast" and "12" are not).
#[pyfunction]
fn quantity(text: &str) -> Option<(&'static str, f64)> {
    use ccscope_core::units::{FromText, Rate, Size, Time};
    if let Ok(t) = Time::from_text(text) {
        return Some(("time", t.secs()));
    }
    if let Ok(r) = Rate::from_text(text) {
        return Some(("rate", r.bps()));
    }
    Size::from_text(text).ok().map(|s| ("size", s.bytes()))
}

/// Where this build comes from: ccscope's version, the commit of the source tree it was built
/// from and whether that tree had uncommitted changes ("true", "false" or "unknown").
#[pyfunction]
fn build_info() -> (String, String, String) {
    (
        ccscope_core::VERSION.to_string(),
        env!("CCSCOPE_GIT_COMMIT").to_string(),
        env!("CCSCOPE_GIT_DIRTY").to_string(),
    )
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", ccscope_core::VERSION)?;
    m.add("MODEL_VERSION", ccscope_core::MODEL_VERSION)?;
    m.add("CoreError", m.py().get_type::<CoreError>())?;
    m.add_function(wrap_pyfunction!(run_packet, m)?)?;
    m.add_function(wrap_pyfunction!(validate_packet, m)?)?;
    m.add_function(wrap_pyfunction!(read_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_cost, m)?)?;
    m.add_function(wrap_pyfunction!(build_info, m)?)?;
    m.add_function(wrap_pyfunction!(controllers_json, m)?)?;
    m.add_function(wrap_pyfunction!(controller_name, m)?)?;
    m.add_function(wrap_pyfunction!(runs_in_rounds, m)?)?;
    m.add_function(wrap_pyfunction!(quantity, m)?)?;
    m.add_class::<controllers::PyAck>()?;
    m.add_class::<controllers::PyDelivery>()?;
    m.add_class::<controllers::PyLoss>()?;
    m.add_class::<controllers::PyReport>()?;
    m.add_class::<controllers::PyRound>()?;
    m.add_class::<controllers::PyFeedback>()?;
    m.add_class::<controllers::PyPacketStatus>()?;
    round::register(m)?;
    theory::register(m)?;
    Ok(())
}
