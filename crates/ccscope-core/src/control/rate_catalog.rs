//! The named catalogue of rate-based controllers (what `ccscope controllers` lists beside the
//! window controllers of [`super::catalog`], with the same [`ControllerInfo`] shape), the
//! receiver each one needs, and [`RateConfig`], how a rate controller starts.
//!
//! Names are case-insensitive and may carry the paper's positional notation:
//! `ISCC(-1.5,2)`, `SSVP(0.31,0.875)`, `rate-AIMD(1,0.5)` set the first parameters in order.

use serde::Serialize;

use super::catalog::{resolve, ControllerInfo, ParamInfo, Values};
use super::iscc::Iscc;
use super::rap::Rap;
use super::rate_binomial::RateBinomial;
use super::receiver::{LossCounter, Receiver, ReportEvery};
use super::ssvp::{Ssvp, SsvpDecrease};
use super::tear::{TearReceiver, TearSender};
use super::tfrc::{Tfrc, TfrcReceiver, TfrcVariant};
use super::Controller;
use crate::error::{check_positive, check_range, Error, Result};

/// Highest rate any rate controller reaches (bits/s); it only keeps the arithmetic finite.
pub const MAX_RATE_BPS: f64 = 1e12;

/// Longest a rate-based sender backs off to (s): the floor rate is one packet per 64 s
/// (RFC 5348 §4.3, t_mbi).
pub const T_MBI_S: f64 = 64.0;

/// How a rate controller starts and what bounds its rate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RateConfig {
    /// Packet size (bytes), ≥ 1: TFRC's s, the MTU of Loguinov & Radha (4).
    pub packet_bytes: u32,
    /// Starting rate (bits/s), > 0; `None`: the protocol's own default.
    pub initial_rate_bps: Option<f64>,
    /// Lowest rate (bits/s), > 0; default one packet per `T_MBI_S`.
    pub min_rate_bps: Option<f64>,
}

impl Default for RateConfig {
    /// 1000-byte packets, the protocol's own start, the RFC 5348 floor.
    fn default() -> Self {
        RateConfig {
            packet_bytes: 1000,
            initial_rate_bps: None,
            min_rate_bps: None,
        }
    }
}

impl RateConfig {
    pub fn validate(&self) -> Result<()> {
        if self.packet_bytes == 0 {
            return Err(Error::invalid("source.packet_size", "0 B", "must be >= 1 byte"));
        }
        if let Some(r) = self.initial_rate_bps {
            check_range("source.initial_rate", r, self.min_rate(), MAX_RATE_BPS)?;
        }
        if let Some(m) = self.min_rate_bps {
            check_range("source.min_rate", check_positive("source.min_rate", m)?, 0.0, MAX_RATE_BPS)?;
        }
        Ok(())
    }

    /// Bits per packet.
    pub fn packet_bits(&self) -> f64 {
        8.0 * self.packet_bytes as f64
    }

    /// The floor (bits/s), > 0.
    pub fn min_rate(&self) -> f64 {
        self.min_rate_bps.unwrap_or(self.packet_bits() / T_MBI_S)
    }

    /// The starting rate: the configured one or the protocol's `default_bps`, within bounds.
    pub fn initial_rate(&self, default_bps: f64) -> f64 {
        self.clamp(self.initial_rate_bps.unwrap_or(default_bps))
    }

    /// `rate_bps` within [min rate, `MAX_RATE_BPS`]; NaN becomes the floor.
    pub fn clamp(&self, rate_bps: f64) -> f64 {
        if rate_bps.is_nan() {
            self.min_rate()
        } else {
            rate_bps.clamp(self.min_rate(), MAX_RATE_BPS)
        }
    }
}

/// Exponentially weighted moving average: the first sample is taken as is, then
/// `old + gain·(sample − old)` (`gain` is the weight of the new sample, in (0, 1]).
pub fn ewma(old: Option<f64>, sample: f64, gain: f64) -> f64 {
    match old {
        Some(o) => o + gain * (sample - o),
        None => sample,
    }
}

const RATE: &str = "rate-based: β is removed (r ← r − σ·r^l), as in Loguinov & Radha";
const KEPT: &str = "rate-based: β is kept (rate ← β·rate)";

fn param(name: &'static str, default: Option<f64>, min: f64, max: f64, meaning: &'static str) -> ParamInfo {
    ParamInfo {
        name,
        default,
        required: false,
        min,
        max,
        meaning,
    }
}

fn required(name: &'static str, min: f64, max: f64, meaning: &'static str) -> ParamInfo {
    ParamInfo {
        required: true,
        ..param(name, None, min, max, meaning)
    }
}

fn mtu_per_rtt() -> ParamInfo {
    param(
        "mtu_per_rtt",
        None,
        0.0,
        MAX_RATE_BPS,
        "fixed MTU/RTT of (4) in bits/s, > 0 (Loguinov & Radha fix 5–100 kb/s); default packet size / measured RTT",
    )
}

fn discounting(default: f64) -> ParamInfo {
    param("discounting", Some(default), 0.0, 1.0, "receiver's history discounting: 1 on, 0 off (RFC 5348 §5.5)")
}

fn level() -> ParamInfo {
    param("level", Some(0.005), 0.0, 1.0, "congestion level: fraction of a RTT's control packets indicating loss that triggers a decrease")
}

type SenderBuilder = fn(&Values, RateConfig) -> Result<Box<dyn Controller>>;
type ReceiverBuilder = fn(&Values) -> Result<Box<dyn Receiver>>;

struct Entry {
    info: ControllerInfo,
    sender: SenderBuilder,
    receiver: ReceiverBuilder,
}

fn per_rtt(_: &Values) -> Result<Box<dyn Receiver>> {
    Ok(Box::new(LossCounter::new(ReportEvery::Rtt)))
}

fn per_packet(_: &Values) -> Result<Box<dyn Receiver>> {
    Ok(Box::new(LossCounter::new(ReportEvery::Packet)))
}

fn entries() -> Vec<Entry> {
    vec![
        Entry {
            info: ControllerInfo {
                name: "rate-aimd",
                summary: "rate AIMD(α, β): r ← r + α·MTU/RTT per interval without loss, r ← r − β·r with loss",
                convention: RATE,
                paper: "Loguinov & Radha 2003 (2)–(4), §V-B, §VI-C (AIMD(1,1/2), AIMD(0.19,1/2))",
                params: vec![
                    param("alpha", Some(1.0), 0.0, 1e3, "packets per RTT, > 0"),
                    param("beta", Some(0.5), 0.0, 1.0, "fraction of the rate removed on loss, 0 < β < 1"),
                    mtu_per_rtt(),
                ],
            },
            sender: |v, c| {
                let (a, b) = (v.value("alpha")?, v.value("beta")?);
                Ok(Box::new(RateBinomial::aimd(a, b, v.get("mtu_per_rtt"), c)?))
            },
            receiver: per_rtt,
        },
        Entry {
            info: ControllerInfo {
                name: "rate-binomial",
                summary: "rate binomial(k, l, α, β): r ← r + λ·r^(−k) without loss, r ← r − σ·r^l with loss",
                convention: RATE,
                paper: "Loguinov & Radha 2003 (3), (4) (IIAD k = 1, l = 0; SQRT k = l = 1/2)",
                params: vec![
                    required("k", -1.0, 2.0, "increase exponent; k + l > 0"),
                    required("l", 0.0, 1.0, "decrease exponent, 0 ≤ l ≤ 1"),
                    param("alpha", Some(1.0), 0.0, 1e3, "window-domain increase constant, > 0"),
                    param("beta", Some(0.5), 0.0, 1.0, "window-domain decrease constant, 0 < β < 1"),
                    mtu_per_rtt(),
                ],
            },
            sender: |v, c| {
                let (k, l) = (v.value("k")?, v.value("l")?);
                let (a, b) = (v.value("alpha")?, v.value("beta")?);
                Ok(Box::new(RateBinomial::new(k, l, a, b, v.get("mtu_per_rtt"), c)?))
            },
            receiver: per_rtt,
        },
        Entry {
            info: ControllerInfo {
                name: "iscc",
                summary: "ISCC(k, l): binomial with λ = C^(k+1)/m_I and σ = 1/(m_D·C^(l−1)), C from an oracle or packet bunches",
                convention: RATE,
                paper: "Loguinov & Radha 2003 §V-D (39), (41); §VI (ISCC(-1.5,2), m_I = 20, m_D = 2)",
                params: vec![
                    param("k", Some(-1.5), -3.0, 0.0, "increase exponent, < 0 (ideal scalability: l + 2k + 1 = 0)"),
                    param("l", Some(2.0), 1.0, 4.0, "decrease exponent, > 1"),
                    param("m_i", Some(20.0), 1.0, 1e6, "an increase is at most r/m_I, ≥ 1"),
                    param("m_d", Some(2.0), 1.0, 1e6, "a decrease is at most r/m_D, ≥ l"),
                    param("capacity", None, 0.0, MAX_RATE_BPS, "exact bottleneck capacity (bits/s); default the receiver's packet-bunch estimate (set source.bunch ≥ 3)"),
                ],
            },
            sender: |v, c| {
                let (k, l) = (v.value("k")?, v.value("l")?);
                let (mi, md) = (v.value("m_i")?, v.value("m_d")?);
                Ok(Box::new(Iscc::new(k, l, mi, md, v.get("capacity"), c)?))
            },
            receiver: per_rtt,
        },
        Entry {
            info: ControllerInfo {
                name: "rap",
                summary: "RAP(α, β): inter-packet-gap AIMD, +α packets per SRTT, gap ÷ β per loss cluster",
                convention: KEPT,
                paper: "Rejaie, Handley & Estrin 1999; ns-2 rap.cc (SPECS §5)",
                params: vec![
                    param("alpha", Some(1.0), 0.0, 100.0, "packets per SRTT, > 0"),
                    param("beta", Some(0.5), 0.0, 1.0, "fraction of the rate kept on loss, 0 < β < 1"),
                ],
            },
            sender: |v, c| Ok(Box::new(Rap::new(v.value("alpha")?, v.value("beta")?, c)?)),
            receiver: per_packet,
        },
        Entry {
            info: ControllerInfo {
                name: "ssvp",
                summary: "SSVP(α, β): IPG ÷ β when a RTT's congestion ratio exceeds the level, +α packets per RTT without congestion",
                convention: KEPT,
                paper: "Papadimitriou & Zhang 2007 §III (4), (5) (SSVP(0.31,0.875), level 0.005; SPECS §6)",
                params: vec![
                    param("alpha", Some(0.31), 0.0, 100.0, "packets per RTT, > 0"),
                    param("beta", Some(0.875), 0.0, 1.0, "fraction of the rate kept on congestion, 0 < β < 1"),
                    level(),
                ],
            },
            sender: |v, c| {
                let d = SsvpDecrease::Fixed {
                    alpha: v.value("alpha")?,
                    beta: v.value("beta")?,
                };
                Ok(Box::new(Ssvp::new(d, v.value("level")?, c)?))
            },
            receiver: per_packet,
        },
        Entry {
            info: ControllerInfo {
                name: "ssvp-adp",
                summary: "SSVP-ADP: SSVP with β = RTT_min/RTT on congestion and α = 4(1 − β²)/3",
                convention: KEPT,
                paper: "Papadimitriou & Zhang 2007 §IV-B (20), (2)",
                params: vec![level()],
            },
            sender: |v, c| Ok(Box::new(Ssvp::new(SsvpDecrease::Adaptive, v.value("level")?, c)?)),
            receiver: per_packet,
        },
        Entry {
            info: ControllerInfo {
                name: "tfrc",
                summary: "TFRC as RFC 5348: equation-based rate from the receiver's loss event rate",
                convention: "equation-based (no α, β)",
                paper: "RFC 5348; SPECS §1",
                params: vec![discounting(0.0)],
            },
            sender: |_, c| Ok(Box::new(Tfrc::new(TfrcVariant::Rfc5348, c)?)),
            receiver: |v| Ok(Box::new(TfrcReceiver::new(TfrcVariant::Rfc5348, v.flag("discounting")?))),
        },
        Entry {
            info: ControllerInfo {
                name: "tfrc-ns2",
                summary: "TFRC as ns-2 / SIGCOMM 2000: +s/R per RTT increases, PFTK equation with tick-based t_RTO",
                convention: "equation-based (no α, β)",
                paper: "Floyd, Handley, Padhye & Widmer 2000; ns-2 tfrc.cc (SPECS §1.9); Yang et al. 2003",
                params: vec![discounting(1.0)],
            },
            sender: |_, c| Ok(Box::new(Tfrc::new(TfrcVariant::Ns2, c)?)),
            receiver: |v| Ok(Box::new(TfrcReceiver::new(TfrcVariant::Ns2, v.flag("discounting")?))),
        },
        Entry {
            info: ControllerInfo {
                name: "tfrc-2000",
                summary: "TFRC as ns-2's June 2000 snapshot: no-feedback timer 2R, +s/R per RTT uncapped, unsmoothed loss-interval weights",
                convention: "equation-based (no α, β)",
                paper: "ns-2 tfrc.cc / tfrc-sink.cc of 2000, as run by Yang, Kim & Lam 2003 §2 (SPECS §1.9)",
                params: vec![discounting(0.0)],
            },
            sender: |_, c| Ok(Box::new(Tfrc::new(TfrcVariant::Ns2June2000, c)?)),
            receiver: |v| Ok(Box::new(TfrcReceiver::new(TfrcVariant::Ns2June2000, v.flag("discounting")?))),
        },
        Entry {
            info: ControllerInfo {
                name: "tear",
                summary: "TEAR: the receiver emulates TCP's window per round and feeds back a rate smoothed over 8 epochs",
                convention: "receiver-based (TCP's AIMD(1, 1/2) emulated)",
                paper: "Rhee, Ozdemir & Yi 2000; timeout after Yang, Kim & Lam 2003 (SPECS §2, reconstructed)",
                params: vec![],
            },
            sender: |_, c| Ok(Box::new(TearSender::new(c)?)),
            receiver: |_| Ok(Box::new(TearReceiver::default())),
        },
    ]
}

/// Every catalogued rate controller with its parameters, conventions and sources.
pub fn catalogue() -> Vec<ControllerInfo> {
    entries().into_iter().map(|e| e.info).collect()
}

/// Whether `name` (any case, paper notation allowed) is a catalogued rate controller.
pub fn is_rate_controller(name: &str) -> bool {
    let base = split_notation(name).map_or(name.to_string(), |(b, _)| b);
    entries().iter().any(|e| e.info.name.eq_ignore_ascii_case(base.trim()))
}

/// Builds the sender-side controller `name` with the default [`RateConfig`].
pub fn build(name: &str, params: &[(String, f64)]) -> Result<Box<dyn Controller>> {
    build_with(name, params, RateConfig::default())
}

/// Builds the sender-side controller `name` starting as `config` says.
pub fn build_with(name: &str, params: &[(String, f64)], config: RateConfig) -> Result<Box<dyn Controller>> {
    let (entry, values) = lookup(name, params)?;
    (entry.sender)(&values, config)
}

/// Builds the receiver-side logic the controller `name` needs.
pub fn build_receiver(name: &str, params: &[(String, f64)]) -> Result<Box<dyn Receiver>> {
    let (entry, values) = lookup(name, params)?;
    (entry.receiver)(&values)
}

/// Feedback styles a controller written outside the catalogue (e.g. in Python) can ask for.
pub const FEEDBACK_KINDS: [&str; 6] = ["per-rtt", "per-packet", "tfrc", "tfrc-ns2", "tfrc-2000", "tear"];

/// The receiver of feedback style `kind` (one of [`FEEDBACK_KINDS`], any case).
pub fn feedback_receiver(kind: &str) -> Result<Box<dyn Receiver>> {
    let name = match kind.to_ascii_lowercase().as_str() {
        "per-rtt" => "rate-aimd",
        "per-packet" => "rap",
        k @ ("tfrc" | "tfrc-ns2" | "tfrc-2000" | "tear") => return build_receiver(k, &[]),
        _ => {
            return Err(Error::UnknownName {
                field: "source.feedback".into(),
                value: kind.into(),
                known: FEEDBACK_KINDS.join(", "),
            })
        }
    };
    build_receiver(name, &[])
}

/// `NAME(a,b)` → ("NAME", [a, b]); `a/b` fractions allowed. `None` without parentheses.
fn split_notation(name: &str) -> Option<(String, Vec<String>)> {
    let open = name.find('(')?;
    let inner = name[open + 1..].strip_suffix(')')?;
    let args = inner.split(',').map(|a| a.trim().to_string()).filter(|a| !a.is_empty()).collect();
    Some((name[..open].trim().to_string(), args))
}

fn parse_number(field: &str, text: &str) -> Result<f64> {
    let bad = || Error::invalid(field, text, "must be a number or a fraction a/b");
    let v = match text.split_once('/') {
        Some((a, b)) => a.trim().parse::<f64>().map_err(|_| bad())? / b.trim().parse::<f64>().map_err(|_| bad())?,
        None => text.parse::<f64>().map_err(|_| bad())?,
    };
    if v.is_finite() {
        Ok(v)
    } else {
        Err(bad())
    }
}

fn lookup(name: &str, params: &[(String, f64)]) -> Result<(Entry, Values)> {
    let (base, positional) = split_notation(name).unwrap_or((name.trim().to_string(), Vec::new()));
    let entry = entries()
        .into_iter()
        .find(|e| e.info.name.eq_ignore_ascii_case(&base))
        .ok_or_else(|| Error::UnknownName {
            field: "controller.name".into(),
            value: name.into(),
            known: entries().iter().map(|e| e.info.name).collect::<Vec<_>>().join(", "),
        })?;
    let info = &entry.info;
    if positional.len() > info.params.len() {
        return Err(Error::invalid(
            "controller.name",
            name,
            format!("{} takes at most {} parameters", info.name, info.params.len()),
        ));
    }
    let mut given: Vec<(String, f64)> = Vec::new();
    for (p, text) in info.params.iter().zip(&positional) {
        given.push((p.name.to_string(), parse_number(&format!("controller.{}", p.name), text)?));
    }
    given.extend(params.iter().cloned());
    let values = resolve(info, &given)?;
    Ok((entry, values))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn required_params(info: &ControllerInfo) -> Vec<(String, f64)> {
        info.params
            .iter()
            .filter(|p| p.required)
            .map(|p| (p.name.to_string(), if p.name == "k" { 1.0 } else { 0.5 }))
            .collect()
    }

    #[test]
    fn every_entry_builds_both_sides() {
        for info in catalogue() {
            let params = required_params(&info);
            let c = build(&info.name.to_uppercase(), &params).unwrap_or_else(|e| panic!("{}: {e}", info.name));
            let r = c.pacing_rate_bps().unwrap();
            assert!(r.is_finite() && r > 0.0, "{}", info.name);
            build_receiver(info.name, &params).unwrap();
        }
    }

    #[test]
    fn paper_notation_sets_parameters_in_order() {
        assert_eq!(build("ISCC(-1.5,2)", &[]).unwrap().name(), "ISCC(-1.5,2)");
        assert_eq!(build("SSVP(0.31, 0.875)", &[]).unwrap().name(), "SSVP(0.31,0.875)");
        assert_eq!(build("rate-AIMD(1,1/2)", &[]).unwrap().name(), "rate-AIMD(1,0.5)");
        assert_eq!(build("SSVP-ADP", &[]).unwrap().name(), "SSVP-ADP");
        assert!(is_rate_controller("tfrc-NS2") && !is_rate_controller("gaimd"));
    }

    #[test]
    fn errors_name_the_field_and_what_is_allowed() {
        let err = |r: Result<Box<dyn Controller>>| r.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err(build("tfrcc", &[])).contains("tfrc-ns2"));
        assert!(err(build("iscc", &[("m_d".into(), 1.0)])).contains("controller.m_d"));
        assert!(err(build("ISCC(-1.5,2)", &[("k".into(), -1.2)])).contains("more than once"));
        assert!(err(build("tear", &[("x".into(), 1.0)])).contains("no parameters"));
        assert!(build_receiver("tfrc", &[("discounting".into(), 0.5)]).is_err());
        assert!(feedback_receiver("per-RTT").is_ok() && feedback_receiver("acks").is_err());
    }
}
