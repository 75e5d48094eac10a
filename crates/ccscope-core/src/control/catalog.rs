//! The named catalogue of the papers' window controllers: what `ccscope controllers` lists and
//! what scenario files name. Names are case-insensitive; each entry says which β convention its
//! parameters use.

use serde::Serialize;

use super::aimd::{friendly_alpha_cai, friendly_alpha_jin, friendly_alpha_yang, Aimd};
use super::binomial::{Binomial, BANSAL_ALPHA, BANSAL_BETA, MAX_K};
use super::history::{History, MIN_HISTORY_K};
use super::taimd::Taimd;
use super::window::{Window, WindowConfig, WindowRule, MAX_ALPHA};
use super::Controller;
use crate::error::{Error, Result};

/// One parameter of a catalogued controller.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParamInfo {
    pub name: &'static str,
    /// Value used when the parameter is omitted; `None` when it is required or derived from the
    /// others (see `meaning`).
    pub default: Option<f64>,
    /// Whether the parameter must be given.
    pub required: bool,
    /// Lower bound (see `meaning` for whether it is excluded).
    pub min: f64,
    /// Upper bound (see `meaning` for whether it is excluded).
    pub max: f64,
    pub meaning: &'static str,
}

/// One catalogued controller.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ControllerInfo {
    /// The name [`build`] accepts (any case).
    pub name: &'static str,
    pub summary: &'static str,
    /// Which β convention the parameters use.
    pub convention: &'static str,
    /// Where the controller and its parameter values come from.
    pub paper: &'static str,
    pub params: Vec<ParamInfo>,
}

const BETA_KEPT: &str = "β kept: a reduction sets w ← β·w (Yang & Lam, Cai et al.)";
const BETA_REMOVED: &str =
    "β removed: a reduction sets w ← w − β·w^l (Jin et al., Loguinov & Radha, Bansal & Balakrishnan)";

fn alpha(default: Option<f64>, meaning: &'static str) -> ParamInfo {
    ParamInfo {
        name: "alpha",
        default,
        required: false,
        min: 0.0,
        max: MAX_ALPHA,
        meaning,
    }
}

fn beta(default: Option<f64>, meaning: &'static str) -> ParamInfo {
    ParamInfo {
        name: "beta",
        default,
        required: default.is_none(),
        min: 0.0,
        max: 1.0,
        meaning,
    }
}

fn exponent(name: &'static str, min: f64, max: f64, meaning: &'static str) -> ParamInfo {
    ParamInfo {
        name,
        default: None,
        required: true,
        min,
        max,
        meaning,
    }
}

/// Builds one controller from resolved parameter values.
type Builder = fn(&Values, WindowConfig) -> Result<Box<dyn Controller>>;

struct Entry {
    info: ControllerInfo,
    build: Builder,
}

/// The parameters of one [`build`] call after defaults: (name, value) pairs. Shared with the
/// rate catalogue.
pub(crate) struct Values {
    controller: &'static str,
    values: Vec<(&'static str, f64)>,
}

impl Values {
    pub(crate) fn get(&self, name: &str) -> Option<f64> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }

    /// The value given or defaulted; an error naming the field when a required one is missing.
    pub(crate) fn value(&self, name: &str) -> Result<f64> {
        self.get(name).ok_or_else(|| {
            Error::invalid(
                format!("controller.{name}"),
                "(missing)",
                format!("required by {}", self.controller),
            )
        })
    }

    /// A 0/1 switch.
    pub(crate) fn flag(&self, name: &str) -> Result<bool> {
        let v = self.value(name)?;
        if v == 0.0 || v == 1.0 {
            Ok(v == 1.0)
        } else {
            Err(Error::invalid(format!("controller.{name}"), v, "must be 0 (off) or 1 (on)"))
        }
    }
}

fn boxed<R: WindowRule + 'static>(
    controller: Result<Window<R>>,
    config: WindowConfig,
) -> Result<Box<dyn Controller>> {
    Ok(Box::new(controller?.with_config(config)?))
}

fn entries() -> Vec<Entry> {
    vec![
        Entry {
            info: ControllerInfo {
                name: "tcp",
                summary: "TCP congestion avoidance: AIMD(1, 1/2), +1 packet per RTT, halve on loss",
                convention: "no parameters",
                paper: "Jacobson 1988; ns-2 as in SPECS §7",
                params: vec![],
            },
            build: |_, config| boxed(Ok(Aimd::tcp()), config),
        },
        Entry {
            info: ControllerInfo {
                name: "aimd",
                summary: "AIMD(α, β): +α packets per RTT, w ← w − β·w on congestion",
                convention: BETA_REMOVED,
                paper: "Jin et al. 2001 §2; Loguinov & Radha 2003 (5); Floyd et al. 2000",
                params: vec![
                    alpha(None, "packets per RTT, > 0; default the TCP-friendly 3β/(2 − β) (Loguinov & Radha (5))"),
                    beta(Some(0.5), "fraction of the window removed by a reduction, 0 < β < 1"),
                ],
            },
            build: |v, config| {
                let b = v.value("beta")?;
                let a = v.get("alpha").unwrap_or_else(|| friendly_alpha_jin(b));
                boxed(Aimd::jin(a, b), config)
            },
        },
        Entry {
            info: ControllerInfo {
                name: "gaimd",
                summary: "GAIMD(α, β): +α packets per RTT, w ← β·w on congestion",
                convention: BETA_KEPT,
                paper: "Yang & Lam, ICNP 2000; Yang, Kim & Lam 2003 (GAIMD(0.31, 7/8))",
                params: vec![
                    alpha(None, "packets per RTT, > 0; default the TCP-friendly 4(1 − β²)/3 (Yang & Lam)"),
                    beta(Some(0.875), "fraction of the window kept by a reduction, 0 < β < 1"),
                ],
            },
            build: |v, config| {
                let b = v.value("beta")?;
                let a = v.get("alpha").unwrap_or_else(|| friendly_alpha_yang(b));
                boxed(Aimd::gaimd(a, b), config)
            },
        },
        Entry {
            info: ControllerInfo {
                name: "binomial",
                summary: "Binomial(k, l, α, β): +α/w^k per RTT, w ← w − β·w^l on congestion",
                convention: BETA_REMOVED,
                paper: "Bansal & Balakrishnan 2001 (SPECS §3); Loguinov & Radha 2003 (3)",
                params: vec![
                    exponent("k", 0.0, MAX_K, "increase exponent, 0 ≤ k ≤ 2; TCP-compatible iff k + l = 1"),
                    exponent("l", 0.0, 1.0, "decrease exponent, 0 ≤ l ≤ 1"),
                    alpha(Some(BANSAL_ALPHA), "increase constant (packets^(1+k) per RTT), > 0"),
                    beta(Some(BANSAL_BETA), "decrease constant, removed, 0 < β < 1; α/β ≈ 3/2 is TCP-compatible"),
                ],
            },
            build: |v, config| {
                let (k, l) = (v.value("k")?, v.value("l")?);
                let a = v.value("alpha")?;
                boxed(Binomial::new(k, l, a, v.value("beta")?), config)
            },
        },
        Entry {
            info: ControllerInfo {
                name: "iiad",
                summary: "IIAD(α, β): binomial k = 1, l = 0; +α/w per RTT, w ← w − β on congestion",
                convention: BETA_REMOVED,
                paper: "Bansal & Balakrishnan 2001; Jin et al. 2001 §6 (IIAD(1, 2/3))",
                params: vec![
                    alpha(Some(BANSAL_ALPHA), "increase constant (packets² per RTT), > 0"),
                    beta(Some(BANSAL_BETA), "packets removed by a reduction, 0 < β < 1"),
                ],
            },
            build: |v, config| {
                let a = v.value("alpha")?;
                boxed(Binomial::iiad(a, v.value("beta")?), config)
            },
        },
        Entry {
            info: ControllerInfo {
                name: "sqrt",
                summary: "SQRT(α, β): binomial k = l = 1/2; +α/√w per RTT, w ← w − β√w on congestion",
                convention: BETA_REMOVED,
                paper: "Bansal & Balakrishnan 2001; ns-2 test-suite-aimd (SPECS §3)",
                params: vec![
                    alpha(Some(BANSAL_ALPHA), "increase constant (packets^1.5 per RTT), > 0"),
                    beta(Some(BANSAL_BETA), "decrease constant, removed, 0 < β < 1"),
                ],
            },
            build: |v, config| {
                let a = v.value("alpha")?;
                boxed(Binomial::sqrt(a, v.value("beta")?), config)
            },
        },
        Entry {
            info: ControllerInfo {
                name: "simd",
                summary: "SIMD(β): window grows as w0 + c·t² after each loss, w ← w − β·w on congestion",
                convention: BETA_REMOVED,
                paper: "Jin, Guo, Matta & Bestavros 2001 (k = −1/2, l = 1; α from (4))",
                params: vec![beta(Some(1.0 / 16.0), "fraction of the window removed by a reduction, 0 < β < 1")],
            },
            build: |v, config| boxed(History::simd(v.value("beta")?), config),
        },
        Entry {
            info: ControllerInfo {
                name: "aiad",
                summary: "AIAD(β): +3β/(2·w_max) per RTT (history-based), w ← w − β on congestion",
                convention: BETA_REMOVED,
                paper: "Jin, Guo, Matta & Bestavros 2001 (k = l = 0; α from (4))",
                params: vec![beta(Some(2.0 / 3.0), "packets removed by a reduction, 0 < β < 1")],
            },
            build: |v, config| boxed(History::aiad(v.value("beta")?), config),
        },
        Entry {
            info: ControllerInfo {
                name: "history",
                summary: "Jin et al.'s spectrum (k, l, β): +α/(w − w0)^k per RTT, w ← w − β·w^l; α from w_max",
                convention: BETA_REMOVED,
                paper: "Jin, Guo, Matta & Bestavros 2001 (3), (4), Table 1",
                params: vec![
                    exponent("k", MIN_HISTORY_K, MAX_K, "increase exponent, −1/2 ≤ k ≤ 2 (window ∝ t^(1/(k+1)))"),
                    exponent("l", 0.0, 1.0, "decrease exponent, 0 ≤ l ≤ 1"),
                    beta(None, "decrease constant, removed, 0 < β < 1"),
                ],
            },
            build: |v, config| {
                let (k, l, b) = (v.value("k")?, v.value("l")?, v.value("beta")?);
                boxed(History::new(k, l, b), config)
            },
        },
        Entry {
            info: ControllerInfo {
                name: "taimd",
                summary: "TAIMD(α, β): AIMD with β kept, a reduction removes at least one packet",
                convention: BETA_KEPT,
                paper: "Cai, Shen, Pan & Mark 2005 §III (TAIMD(0.2, 0.875))",
                params: vec![
                    alpha(None, "packets per RTT, > 0; default the TCP-friendly 3(1 − β)/(1 + β) (Cai et al. (13))"),
                    beta(Some(0.875), "fraction of the window kept by a reduction, 0 < β < 1"),
                ],
            },
            build: |v, config| {
                let b = v.value("beta")?;
                let a = v.get("alpha").unwrap_or_else(|| friendly_alpha_cai(b));
                boxed(Taimd::taimd(a, b), config)
            },
        },
        Entry {
            info: ControllerInfo {
                name: "dtaimd",
                summary: "DTAIMD(α, β): TAIMD whose α follows the effective β' = 1 − 1/cwnd at small windows",
                convention: BETA_KEPT,
                paper: "Cai, Shen, Pan & Mark 2005 §III-C, pseudo-code L1–L6 (DTAIMD(0.2, 0.875))",
                params: vec![
                    alpha(None, "packets per RTT at large windows, > 0; default 3(1 − β)/(1 + β) (Cai et al. (13))"),
                    beta(Some(0.875), "fraction of the window kept by a reduction, 0 < β < 1"),
                ],
            },
            build: |v, config| {
                let b = v.value("beta")?;
                let a = v.get("alpha").unwrap_or_else(|| friendly_alpha_cai(b));
                boxed(Taimd::dtaimd(a, b), config)
            },
        },
    ]
}

/// Every catalogued controller with its parameters, conventions and sources.
pub fn catalogue() -> Vec<ControllerInfo> {
    entries().into_iter().map(|e| e.info).collect()
}

/// Builds the controller `name` (any case) with `params`, starting in slow start from one
/// packet (the packet engine's start).
pub fn build(name: &str, params: &[(String, f64)]) -> Result<Box<dyn Controller>> {
    build_with(name, params, WindowConfig::default())
}

/// Builds the controller `name` (any case) with `params`, starting as `config` says (the round
/// model starts in congestion avoidance at a given window).
pub fn build_with(
    name: &str,
    params: &[(String, f64)],
    config: WindowConfig,
) -> Result<Box<dyn Controller>> {
    let entries = entries();
    let entry = entries
        .iter()
        .find(|e| e.info.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| Error::UnknownName {
            field: "controller.name".to_string(),
            value: name.to_string(),
            known: entries
                .iter()
                .map(|e| e.info.name)
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    let values = resolve(&entry.info, params)?;
    (entry.build)(&values, config)
}

/// Matches `params` to the entry's parameters (any case), rejecting unknown and repeated ones,
/// and fills in fixed defaults.
pub(crate) fn resolve(info: &ControllerInfo, params: &[(String, f64)]) -> Result<Values> {
    let mut values: Vec<(&'static str, f64)> = Vec::new();
    for (given, value) in params {
        let param = info
            .params
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(given))
            .ok_or_else(|| Error::UnknownName {
                field: format!("controller.params ({})", info.name),
                value: given.clone(),
                known: if info.params.is_empty() {
                    "(none; it takes no parameters)".to_string()
                } else {
                    info.params
                        .iter()
                        .map(|p| p.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            })?;
        if values.iter().any(|(n, _)| *n == param.name) {
            return Err(Error::invalid(
                format!("controller.{}", param.name),
                value,
                "given more than once",
            ));
        }
        values.push((param.name, *value));
    }
    for p in &info.params {
        if let (Some(default), false) = (p.default, values.iter().any(|(n, _)| *n == p.name)) {
            values.push((p.name, default));
        }
    }
    Ok(Values {
        controller: info.name,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::assert_close;
    use crate::control::RoundSample;

    fn params(list: &[(&str, f64)]) -> Vec<(String, f64)> {
        list.iter().map(|(n, v)| (n.to_string(), *v)).collect()
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
            .then(|| (p.name.to_string(), 0.5 * (p.min + p.max)))
    }

    #[test]
    fn every_entry_builds_with_defaults() {
        for info in catalogue() {
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
        ] {
            let c = build(name, &params(&given)).unwrap();
            assert_eq!(c.name(), expected);
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
        let (grown, reduced) = grow_then_reduce(&mut *build_with("gaimd", &[], config).unwrap());
        assert_close(grown, 40.3125, 1e-15);
        assert_close(reduced, 40.3125 * 0.875, 1e-15);
        // aimd: β removed, α = 3β/(2 − β) = 0.2 at β = 1/8.
        let mut c = build_with("aimd", &params(&[("beta", 0.125)]), config).unwrap();
        let (grown, reduced) = grow_then_reduce(&mut *c);
        assert_close(grown, 40.2, 1e-15);
        assert_close(reduced, 40.2 * 0.875, 1e-15);
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let err = error("vegas", &[]);
        assert!(matches!(err, Error::UnknownName { .. }));
        let msg = err.to_string();
        for known in ["tcp", "gaimd", "simd", "dtaimd", "history"] {
            assert!(msg.contains(known), "{msg}");
        }
    }

    #[test]
    fn unknown_parameters_are_named_with_the_allowed_ones() {
        let msg = error("gaimd", &[("gamma", 1.0)]).to_string();
        assert!(
            msg.contains("'gamma'") && msg.contains("alpha, beta"),
            "{msg}"
        );
        let msg = error("tcp", &[("alpha", 1.0)]).to_string();
        assert!(
            msg.contains("'alpha'") && msg.contains("no parameters"),
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
        ] {
            match error(name, &given) {
                Error::InvalidField { field: f, .. } => assert_eq!(f, field, "{name} {given:?}"),
                other => panic!("{name} {given:?}: {other}"),
            }
        }
    }

    #[test]
    fn advertised_bounds_are_the_enforced_ones() {
        for info in catalogue() {
            for p in &info.params {
                let eps = 1e-6 * (p.max - p.min);
                for (value, ok) in [
                    (p.min + eps, true),
                    (p.max - eps, true),
                    (p.min - eps, false),
                    (p.max + eps, false),
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
    fn catalogue_serializes_for_the_cli() {
        let json = serde_json::to_string(&catalogue()).unwrap();
        assert!(json.contains("\"name\":\"dtaimd\""), "{json}");
        assert!(json.contains("β kept"), "{json}");
    }
}
