//! An MPEG-4 frame source: a GOP pattern (e.g. `IBBPBBPBBPBB`) played at a frame rate, each
//! frame's size drawn from a Transform-Expand-Sample (TES) model of its frame type, one model
//! per type, interleaved as the GOP says (Papadimitriou & Zhang 2007 §V: "three separate TES
//! models for I, P and B frames"; TES after Melamed, "TES: a class of methods for generating
//! autocorrelated uniform variates", ORSA J. Computing 3(4), 1991).
//!
//! TES, per frame type:
//! - background: U_n = ⟨U_{n−1} + V_n⟩ (modulo 1), innovations V_n uniform on [−δ, δ) (TES+);
//! - stitching with ξ = 1/2: S(u) = 2u for u < 1/2, 2(1 − u) otherwise, which keeps U's uniform
//!   marginal and removes the jump at the wrap-around;
//! - foreground: X_n = F⁻¹(S(U_n)), F the marginal of the type's frame sizes.
//!
//! The marginal F is lognormal with the type's mean and coefficient of variation (a modelling
//! choice: positive, right-skewed, two parameters). δ is fitted so the foreground's lag-1
//! autocorrelation (between successive frames of that type) is the configured one: the lag-1
//! correlation falls from 1 at δ = 0 to 0 at δ = 1/2, and a bisection on a fixed-seed sample
//! with common random numbers finds δ.
//!
//! How the source and its transport interact (a modelling choice): each frame is offered whole
//! at its capture time, tagged with its frame number and its capture time as the deadline;
//! the transport sends what its congestion control allows, so the flow is application-limited
//! when the coder produces less than the rate allows, and a send buffer (unbounded; nothing is
//! dropped at the sender) builds up when it produces more. The sender-side delay that buffer
//! adds is the receiver's to see.
//!
//! A source built [`Mpeg4::following_rate`] codes at its transport's rate (the target rate of
//! an encoder, [`super::TransportView::rate_bps`]): each frame's size is scaled by that rate
//! over the source's mean rate, so its mean follows the rate and the per-type statistics keep
//! their shape (a modelling choice: a coder's quantizer scaling every frame alike).
//!
//! Hooks: [`SendApp::on_start`] asks to be woken at once; each [`SendApp::on_wake`] offers one
//! frame and asks to be woken at the next frame time (`start + k / fps`, without drift).

use std::sync::{Arc, Mutex};

use rand::Rng as _;

use super::{format_rate, SendApp, SendCtx, Tag};
use crate::error::{check_positive, Error, Result};
use crate::rng::{stream, Rng, Stream};
use crate::time::SimTime;

/// What a video source offered, by decoding unit (a packet's [`Tag::frame`]): what a video
/// packet's header (its unit's length) tells the receiver, shared by the two ends of a flow
/// because a [`Tag`] has no room for it.
pub type FrameLedger = Arc<Mutex<Vec<Unit>>>;

/// One decoding unit of a video source: `frames` consecutive frames, the first captured at
/// `captured`, whose base layer is `base_bytes` long and decoded from `captured` plus the
/// receiver's start-up delay. An MPEG-4 frame is a unit of its own; an FGS server packs the
/// base layers of several frames into one unit ([`super::Fgs`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unit {
    pub captured: SimTime,
    pub base_bytes: u64,
    pub frames: u32,
}

/// A frame type's statistics: mean size (bytes), coefficient of variation, and the lag-1
/// autocorrelation between successive frames of the type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameStats {
    pub mean_bytes: f64,
    pub cov: f64,
    pub lag1: f64,
}

/// Largest lag-1 autocorrelation a TES+ model is fitted to (δ → 0 freezes the process); the
/// scenario's bound.
pub use crate::scenario::media::MAX_LAG1;

/// The standard normal quantile Φ⁻¹(p), p in (0, 1): Acklam's rational approximation
/// (relative error below 1.2e-9).
fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.38357751867269e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e1,
        1.615858368580409e2,
        -1.556989798598866e2,
        6.680131188771972e1,
        -1.328068155288572e1,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    const D: [f64; 4] = [
        7.784695709041462e-3,
        3.224671290700398e-1,
        2.445134137142996,
        3.754408661907416,
    ];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// One frame type's TES+ process with a lognormal marginal.
#[derive(Clone, Debug)]
pub struct Tes {
    /// Lognormal parameters of the marginal: ln X ~ N(mu, sigma²).
    mu: f64,
    sigma: f64,
    /// Half-width of the innovations.
    delta: f64,
    /// Background state U_n in [0, 1).
    u: f64,
}

impl Tes {
    /// The model of `stats`, its background started at `u0` in [0, 1).
    pub fn new(stats: FrameStats, u0: f64) -> Result<Tes> {
        check_positive("mean_bytes", stats.mean_bytes)?;
        check_positive("cov", stats.cov)?;
        if !(0.0..=MAX_LAG1).contains(&stats.lag1) {
            return Err(Error::invalid(
                "lag1",
                format!("{:?}", stats.lag1),
                format!("must be in [0, {MAX_LAG1}]"),
            ));
        }
        // Lognormal with mean m and CoV c: σ² = ln(1 + c²), μ = ln m − σ²/2.
        let s2 = (1.0 + stats.cov * stats.cov).ln();
        let mut tes = Tes {
            mu: stats.mean_bytes.ln() - s2 / 2.0,
            sigma: s2.sqrt(),
            delta: 0.5,
            u: u0.rem_euclid(1.0),
        };
        tes.delta = tes.fit_delta(stats.lag1);
        Ok(tes)
    }

    /// The foreground of background value `u`.
    fn foreground(&self, u: f64) -> f64 {
        let s = if u < 0.5 { 2.0 * u } else { 2.0 * (1.0 - u) };
        (self.mu + self.sigma * normal_quantile(s)).exp()
    }

    /// One background step with innovation `w` in [−1, 1) scaled by δ.
    fn step(u: f64, delta: f64, w: f64) -> f64 {
        (u + delta * w).rem_euclid(1.0)
    }

    /// The next frame size (bytes, ≥ 1).
    pub fn next(&mut self, rng: &mut Rng) -> f64 {
        self.u = Tes::step(self.u, self.delta, 2.0 * rng.gen::<f64>() - 1.0);
        self.foreground(self.u).max(1.0)
    }

    /// δ whose foreground has lag-1 autocorrelation `target`: bisection on a fixed sample.
    fn fit_delta(&self, target: f64) -> f64 {
        const N: usize = 40_000;
        let mut rng = stream(0x7E5, Stream::Source, 0);
        let u0: f64 = rng.gen();
        let w: Vec<f64> = (0..N).map(|_| 2.0 * rng.gen::<f64>() - 1.0).collect();
        let lag1 = |delta: f64| {
            let mut u = u0;
            let x: Vec<f64> = w
                .iter()
                .map(|&wi| {
                    u = Tes::step(u, delta, wi);
                    self.foreground(u)
                })
                .collect();
            autocorrelation(&x, 1)
        };
        let (mut lo, mut hi) = (0.0, 0.5);
        for _ in 0..30 {
            let mid = (lo + hi) / 2.0;
            if lag1(mid) > target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        (lo + hi) / 2.0
    }
}

/// The sample autocorrelation of `x` at `lag`.
pub fn autocorrelation(x: &[f64], lag: usize) -> f64 {
    let n = x.len();
    if n <= lag + 1 {
        return 0.0;
    }
    let mean = x.iter().sum::<f64>() / n as f64;
    let var: f64 = x.iter().map(|v| (v - mean).powi(2)).sum();
    if var == 0.0 {
        return 0.0;
    }
    let cov: f64 = x
        .windows(lag + 1)
        .map(|w| (w[0] - mean) * (w[lag] - mean))
        .sum();
    cov / var
}

/// An MPEG-4 source.
#[derive(Clone, Debug)]
pub struct Mpeg4 {
    /// Frame types in GOP order: 0 = I, 1 = P, 2 = B.
    gop: Vec<usize>,
    fps: f64,
    models: [Tes; 3],
    means: [f64; 3],
    started: SimTime,
    /// Frames offered so far.
    frames: u64,
    /// Where offered frame sizes are recorded for the receiver, if it plays frames.
    ledger: Option<FrameLedger>,
    /// Frame sizes scale with the transport's rate over the mean rate.
    follow_rate: bool,
}

impl Mpeg4 {
    /// A source playing `gop` (letters I, P, B) at `fps`, with the statistics of I, P and B
    /// frames in that order.
    pub fn new(gop: &str, fps: f64, stats: [FrameStats; 3]) -> Result<Mpeg4> {
        let gop = gop
            .chars()
            .map(|c| match c.to_ascii_uppercase() {
                'I' => Ok(0),
                'P' => Ok(1),
                'B' => Ok(2),
                _ => Err(Error::invalid(
                    "gop",
                    format!("'{gop}'"),
                    "letters I, P and B only",
                )),
            })
            .collect::<Result<Vec<usize>>>()?;
        if gop.first() != Some(&0) {
            return Err(Error::invalid("gop", "", "must start with an I frame"));
        }
        let mut models = Vec::with_capacity(3);
        for (k, s) in stats.iter().enumerate() {
            // Each type's background starts at its own point of the circle.
            models.push(Tes::new(*s, (k as f64 + 0.5) / 3.0)?);
        }
        let [i, p, b]: [Tes; 3] = models.try_into().expect("three models");
        Ok(Mpeg4 {
            gop,
            fps: check_positive("fps", fps)?,
            models: [i, p, b],
            means: stats.map(|s| s.mean_bytes),
            started: SimTime::ZERO,
            frames: 0,
            ledger: None,
            follow_rate: false,
        })
    }

    /// The same source coding at its transport's rate.
    pub fn following_rate(self) -> Mpeg4 {
        Mpeg4 {
            follow_rate: true,
            ..self
        }
    }

    /// The same source, recording each frame's size in `ledger`.
    pub fn with_ledger(self, ledger: FrameLedger) -> Mpeg4 {
        Mpeg4 {
            ledger: Some(ledger),
            ..self
        }
    }

    /// The mean rate (bits/s): the GOP's mean size per GOP duration.
    pub fn mean_rate_bps(&self) -> f64 {
        let gop_bytes: f64 = self.gop.iter().map(|&t| self.means[t]).sum();
        8.0 * gop_bytes * self.fps / self.gop.len() as f64
    }

    /// The next frame: its type (0 = I, 1 = P, 2 = B) and size (whole bytes, ≥ 1).
    pub fn next_frame(&mut self, rng: &mut Rng) -> (usize, u64) {
        let kind = self.gop[(self.frames % self.gop.len() as u64) as usize];
        self.frames += 1;
        (kind, self.models[kind].next(rng).round() as u64)
    }
}

impl SendApp for Mpeg4 {
    fn watches_progress(&self) -> bool {
        false
    }

    fn on_start(&mut self, cx: &mut SendCtx) {
        self.started = cx.now();
        cx.wake_at(cx.now());
    }

    fn on_wake(&mut self, cx: &mut SendCtx) {
        let now = cx.now();
        let frame = self.frames as u32;
        let (_, mut bytes) = self.next_frame(cx.rng());
        let rate = cx.view().rate_bps;
        if self.follow_rate && rate.is_finite() && rate > 0.0 {
            bytes = ((bytes as f64 * rate / self.mean_rate_bps()).round() as u64).max(1);
        }
        if let Some(ledger) = &self.ledger {
            ledger.lock().expect("frame ledger lock").push(Unit {
                captured: now,
                base_bytes: bytes,
                frames: 1,
            });
        }
        cx.offer(bytes, Tag::new(frame, 0).with_deadline(now));
        cx.wake_at(self.started + SimTime::from_secs_f64(self.frames as f64 / self.fps));
    }

    fn label(&self) -> String {
        format!(
            "MPEG-4 {}",
            format_rate((self.mean_rate_bps() / 1e3).round() * 1e3)
        )
    }

    fn nominal_rate_bps(&self) -> Option<f64> {
        Some(self.mean_rate_bps())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::harness::SendHarness;

    #[test]
    fn the_normal_quantile_is_accurate() {
        for (p, z) in [
            (0.5, 0.0),
            (0.975, 1.959963984540054),
            (0.01, -2.326347874040841),
            (1e-6, -4.753424308822899),
        ] {
            assert!((normal_quantile(p) - z).abs() < 1e-8, "{p}");
        }
    }

    /// Mean, CoV and lag-1 autocorrelation of a sample.
    fn moments(x: &[f64]) -> (f64, f64, f64) {
        let n = x.len() as f64;
        let m = x.iter().sum::<f64>() / n;
        let sd = (x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / n).sqrt();
        (m, sd / m, autocorrelation(x, 1))
    }

    #[test]
    fn a_generated_stream_has_the_configured_statistics_per_frame_type() {
        // 120 000 GOPs of IBBPBBPBBPBB: 120 000 I, 360 000 P and 960 000 B frames. With lag-1
        // correlation ρ the effective sample size is about n(1 − ρ)/(1 + ρ) ≥ 8000 here, so the
        // mean's standard error is at most CoV/√8000 ≈ 1% and the CoV's a few percent for a
        // lognormal of CoV ≤ 1; the bands are 4% (mean), 10% (CoV) and 0.04 (lag 1).
        let stats = [
            FrameStats {
                mean_bytes: 15_000.0,
                cov: 0.4,
                lag1: 0.8,
            },
            FrameStats {
                mean_bytes: 5_000.0,
                cov: 0.7,
                lag1: 0.6,
            },
            FrameStats {
                mean_bytes: 2_000.0,
                cov: 0.9,
                lag1: 0.3,
            },
        ];
        let mut src = Mpeg4::new("IBBPBBPBBPBB", 25.0, stats).unwrap();
        let mut rng = stream(11, Stream::Source, 0);
        let mut by_type: [Vec<f64>; 3] = Default::default();
        for _ in 0..120_000 * 12 {
            let (kind, bytes) = src.next_frame(&mut rng);
            by_type[kind].push(bytes as f64);
        }
        for (s, x) in stats.iter().zip(&by_type) {
            let (m, c, r) = moments(x);
            assert!((m / s.mean_bytes - 1.0).abs() < 0.04, "mean {m} for {s:?}");
            assert!((c / s.cov - 1.0).abs() < 0.10, "cov {c} for {s:?}");
            assert!((r - s.lag1).abs() < 0.04, "lag-1 {r} for {s:?}");
        }
        assert_eq!(by_type.map(|x| x.len()), [120_000, 360_000, 960_000]);
    }

    /// Following a rate of a quarter of its mean (600 kb/s), every frame is a quarter of the
    /// size the same draws give without it.
    #[test]
    fn a_source_following_the_rate_scales_every_frame() {
        let s = FrameStats {
            mean_bytes: 3000.0,
            cov: 0.5,
            lag1: 0.5,
        };
        let sizes = |follow: bool| {
            let source = Mpeg4::new("IPB", 25.0, [s, s, s]).unwrap();
            let source = if follow {
                source.following_rate()
            } else {
                source
            };
            let mut h = SendHarness::new(source);
            h.at(SimTime::ZERO, |a, cx| a.on_start(cx));
            (0..30)
                .map(|_| {
                    let at = h.wake.take().unwrap();
                    h.at(at, |a, cx| {
                        cx.view.rate_bps = 150e3;
                        a.on_wake(cx)
                    });
                    h.drain().iter().map(|c| c.bytes as u64).sum::<u64>()
                })
                .collect::<Vec<u64>>()
        };
        let (plain, following) = (sizes(false), sizes(true));
        for (p, f) in plain.iter().zip(&following) {
            assert!((*f as f64 - *p as f64 / 4.0).abs() <= 0.5, "{p} → {f}");
        }
    }

    #[test]
    fn frames_leave_at_the_frame_rate_tagged_with_number_and_capture_time() {
        let s = FrameStats {
            mean_bytes: 3000.0,
            cov: 0.5,
            lag1: 0.5,
        };
        let mut h = SendHarness::new(Mpeg4::new("IPB", 25.0, [s, s, s]).unwrap());
        h.at(SimTime::ZERO, |a, cx| a.on_start(cx));
        let mut at = h.wake.take().unwrap();
        for k in 0..50u32 {
            h.at(at, |a, cx| a.on_wake(cx));
            let chunks = h.drain();
            assert!(chunks
                .iter()
                .all(|c| c.tag.frame == k && c.tag.deadline() == Some(at)));
            at = h.wake.take().unwrap();
        }
        assert_eq!(at, SimTime::from_secs_f64(2.0));
        assert_eq!(h.app.label(), "MPEG-4 600kb/s");
        assert!(
            Mpeg4::new("PBB", 25.0, [s, s, s]).is_err()
                && Mpeg4::new("IXB", 25.0, [s, s, s]).is_err()
        );
    }
}
