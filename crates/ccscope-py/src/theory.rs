//! Bindings of the closed forms the core computes: the binomial form a catalogued window
//! controller runs (what `ccscope check` analyses), and the formulas the core shares with
//! `ccscope.theory`, so that tests can tie the two implementations together.

use ccscope_core::control::{self, catalog, RoundSample, WindowConfig};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::guarded;

/// The binomial control the catalogued window controller `name` runs with `params`, in window
/// notation with β removed (Loguinov & Radha (3)): a dict with `k`, `l`, `alpha`,
/// `beta_removed`, `from_window_pkts` (the rule is that binomial at windows ≥ it; 1 means at
/// every window) and `paper_name`. None when the rule has memory (Jin et al.'s history-based
/// controls). Unknown names and bad parameters raise `ccscope.ControllerError`.
#[pyfunction]
fn binomial_form<'py>(
    py: Python<'py>,
    name: &str,
    params: Vec<(String, f64)>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let name = name.to_owned();
    let (paper_name, form) = guarded(py, move || {
        let c = catalog::build_window(&name, &params, WindowConfig::default())?;
        Ok((c.name(), c.binomial()))
    })?;
    let Some(f) = form else {
        return Ok(None);
    };
    let d = PyDict::new(py);
    d.set_item("k", f.k)?;
    d.set_item("l", f.l)?;
    d.set_item("alpha", f.alpha)?;
    d.set_item("beta_removed", f.beta_removed)?;
    d.set_item("from_window_pkts", f.from_window_pkts)?;
    d.set_item("paper_name", paper_name)?;
    Ok(Some(d))
}

/// One round of the catalogued window controller `name` in congestion avoidance from each
/// window of `windows_pkts` (the round model's step): the windows after one uncongested round
/// (one per-RTT increase) and after one congested round (one reduction), in packets.
#[pyfunction]
fn window_round_steps(
    py: Python<'_>,
    name: &str,
    params: Vec<(String, f64)>,
    windows_pkts: Vec<f64>,
) -> PyResult<(Vec<f64>, Vec<f64>)> {
    let name = name.to_owned();
    guarded(py, move || {
        let step = |w: f64, congested: bool| -> ccscope_core::Result<f64> {
            let mut c = catalog::build_window(&name, &params, WindowConfig::avoidance_at(w))?;
            c.on_round(&RoundSample {
                congested,
                ..Default::default()
            });
            Ok(c.window())
        };
        let grown = windows_pkts
            .iter()
            .map(|&w| step(w, false))
            .collect::<ccscope_core::Result<_>>()?;
        let reduced = windows_pkts
            .iter()
            .map(|&w| step(w, true))
            .collect::<ccscope_core::Result<_>>()?;
        Ok((grown, reduced))
    })
}

/// The TFRC throughput equation (bits/s) the core's TFRC senders use: RFC 5348 §3.1 with b = 1,
/// packet size `packet_bytes`; `pftk_clip` clips 3·sqrt(3p/8) at 1 as ns-2's `formula.h` does.
#[pyfunction]
#[pyo3(signature = (p, rtt_s, t_rto_s, packet_bytes, pftk_clip=false))]
fn tfrc_throughput_bps(
    p: f64,
    rtt_s: f64,
    t_rto_s: f64,
    packet_bytes: u32,
    pftk_clip: bool,
) -> f64 {
    control::tfrc_throughput_bps(p, rtt_s, t_rto_s, packet_bytes, pftk_clip)
}

/// The core's TCP-friendly α for AIMD with β removed, 3β/(2 − β) (Loguinov & Radha (5)).
#[pyfunction]
fn friendly_alpha_jin(beta_removed: f64) -> f64 {
    control::friendly_alpha_jin(beta_removed)
}

/// The core's TCP-friendly α for GAIMD with β kept, 4(1 − β²)/3 (Yang & Lam; Cai et al. (15)).
#[pyfunction]
fn friendly_alpha_yang(beta_kept: f64) -> f64 {
    control::friendly_alpha_yang(beta_kept)
}

/// The core's TCP-friendly α for AIMD with β kept, 3(1 − β)/(1 + β) (Cai et al. (13)).
#[pyfunction]
fn friendly_alpha_cai(beta_kept: f64) -> f64 {
    control::friendly_alpha_cai(beta_kept)
}

/// Adds the theory functions to the `_core` module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(binomial_form, m)?)?;
    m.add_function(wrap_pyfunction!(window_round_steps, m)?)?;
    m.add_function(wrap_pyfunction!(tfrc_throughput_bps, m)?)?;
    m.add_function(wrap_pyfunction!(friendly_alpha_jin, m)?)?;
    m.add_function(wrap_pyfunction!(friendly_alpha_yang, m)?)?;
    m.add_function(wrap_pyfunction!(friendly_alpha_cai, m)?)?;
    Ok(())
}
