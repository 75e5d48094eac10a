//! Bindings of the round model: a `RoundConfig` comes in as JSON, the result goes out as a dict
//! of numbers and numpy arrays.

use ccscope_core::round::{run_with, RoundConfig, RoundResult};
use ccscope_core::{build, scenario};
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::controllers::{PythonControllers, PythonFactory};
use super::watch::Watch;
use super::{afford, guarded, table, with_error, with_python};

/// The round model's parameters of a scenario table (JSON text), unless what the run would
/// cost is beyond what runs unforced.
fn config(text: &str, force: bool) -> ccscope_core::Result<RoundConfig> {
    let s = scenario::read_round(table(text)?)?;
    afford(s.cost(), force)?;
    build::round(&s)
}

fn result_dict<'py>(
    py: Python<'py>,
    r: RoundResult,
    c: &RoundConfig,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("packet_bytes", c.packet_bytes)?;
    out.set_item("substeps", c.substeps)?;
    out.set_item("seed", r.seed)?;
    out.set_item("steps", r.steps)?;
    out.set_item("warmup_steps", r.warmup_steps)?;
    out.set_item("measured_s", r.measured_s)?;
    out.set_item("sent_pkts", r.sent_pkts)?;
    out.set_item("lost_pkts", r.lost_pkts)?;
    out.set_item("served_pkts", r.served_pkts)?;
    out.set_item("service_pkts", r.service_pkts)?;
    let flows = PyDict::new(py);
    let names = PyList::new(py, r.flows.iter().map(|f| f.name.as_str()))?;
    flows.set_item("name", names)?;
    let col = |f: fn(&ccscope_core::round::FlowReport) -> f64| {
        r.flows.iter().map(f).collect::<Vec<f64>>()
    };
    flows.set_item(
        "rate_based",
        r.flows
            .iter()
            .map(|f| f.rate_based)
            .collect::<Vec<bool>>()
            .into_pyarray(py),
    )?;
    flows.set_item("sent_pkts", col(|f| f.sent_pkts).into_pyarray(py))?;
    flows.set_item("lost_pkts", col(|f| f.lost_pkts).into_pyarray(py))?;
    flows.set_item(
        "congestion_events",
        r.flows
            .iter()
            .map(|f| f.congestion_events)
            .collect::<Vec<u64>>()
            .into_pyarray(py),
    )?;
    out.set_item("flows", flows)?;
    let s = r.series;
    let series = PyDict::new(py);
    series.set_item("step", s.step.into_pyarray(py))?;
    series.set_item("time_s", s.time_s.into_pyarray(py))?;
    series.set_item("interval_s", s.interval_s.into_pyarray(py))?;
    series.set_item("capacity_bps", s.capacity_bps.into_pyarray(py))?;
    series.set_item("load_pkts", s.load_pkts.into_pyarray(py))?;
    series.set_item("queue_pkts", s.queue_pkts.into_pyarray(py))?;
    series.set_item("utilization", s.utilization.into_pyarray(py))?;
    series.set_item("loss_fraction", s.loss_fraction.into_pyarray(py))?;
    series.set_item("jain", s.jain.into_pyarray(py))?;
    series.set_item("congested_flows", s.congested_flows.into_pyarray(py))?;
    out.set_item("series", series)?;
    out.set_item("flow_load_pkts", r.flow_load_pkts.into_pyarray(py))?;
    Ok(out)
}

/// Runs a round-model scenario table (JSON text of the parsed TOML) and returns its results.
/// `python_controllers` gives each flow of a `python:NAME` group its own controller object.
/// `progress(done_steps, total_steps)` is called as the run goes; Ctrl-C stops it and returns
/// the steps run, with `partial`.
#[pyfunction]
#[pyo3(signature = (table_json, python_controllers=None, progress=None, force=false))]
fn run_round<'py>(
    py: Python<'py>,
    table_json: &str,
    python_controllers: Option<PythonControllers>,
    progress: Option<Py<PyAny>>,
    force: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let text = table_json.to_owned();
    let mut watch = Watch::new(progress);
    let ((result, config, partial), raised) =
        with_python(py, python_controllers, false, move |python, error| {
            let config = config(&text, force)?;
            let mut factory = PythonFactory { python, error };
            let total = config.steps as f64;
            let mut go_on = |step: u64| watch.go_on(step as f64, total, error);
            let result = run_with(&config, &mut factory, &mut go_on)?;
            Ok((result, config, watch.interrupted))
        })?;
    let out = result_dict(py, result, &config)?;
    out.set_item("partial", partial)?;
    with_error(py, &out, raised)?;
    Ok(out)
}

/// Checks a round-model scenario table without running it.
#[pyfunction]
#[pyo3(signature = (table_json, force=false))]
fn validate_round(py: Python<'_>, table_json: &str, force: bool) -> PyResult<()> {
    let text = table_json.to_owned();
    guarded(py, move || build::check_round(&config(&text, force)?))
}

/// Adds the round model's functions to the `_core` module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_round, m)?)?;
    m.add_function(wrap_pyfunction!(validate_round, m)?)?;
    Ok(())
}
