//! A live video encoder after RFC 8593 §5, the statistical model of how an encoder answers a
//! congestion controller's target rate, with its defaults (R_min 150 kb/s, R_max 1.5 Mb/s,
//! 30 frames/s, reaction time tau_v 0.2 s, a transient of 8 frames whose first is 13.5 KB,
//! Laplacian deviations of scale 0.15 in frame size and interval).
//!
//! The target is the transport's rate ([`super::TransportView::rate_bps`]): the media
//! transport's controller target, the rate transport's pacing rate (TFRC, SSVP, ISCC...), TCP's
//! window over its RTT, so every controller drives the same encoder. At each frame the encoder
//! reads it, clipped to [R_min, R_max], and takes it up as RFC 8593's reference encoder
//! (`syncodecs`, Cisco's implementation by the RFC's authors) does:
//! - a new target is taken at most once per tau_v (the encoder's lag);
//! - a change of more than `big_change` (50 %) of the current rate is taken at once and starts
//!   a transient; a smaller one moves the rate at most `max_step` (10 %) (its rate-change
//!   limit);
//! - a transient (also the first frames, and every `key_interval` if set: key frames) is
//!   `burst_frames` frames: the first `burst_size` bytes, the others sharing what is left of
//!   the transient's budget (burst_frames × target / fps), each at least a fifth of a frame
//!   at the target (syncodecs' floor).
//!
//! Steady state: frame size B0·(1 + L_b) with B0 = target / (8·fps) and L_b a zero-mean
//! Laplacian of scale `size_scale`; the next frame follows after (1/fps)·(1 + L_t), L_t of
//! scale `interval_scale`. Bounds of ours: a frame is at least 1 byte, an interval at least a
//! tenth of 1/fps.
//!
//! Each frame is offered whole at its capture time, tagged with its number and its capture
//! time (the deadline field), and its size goes into the flow's [`FrameLedger`] for the
//! receiver's frame metrics. As with every source here the send buffer is unbounded: a
//! transport slower than the encoder queues frames in the sender.
//!
//! A pause (RFC 8867 §5.8's media pause and resume; ccscope's rules): no frame is captured
//! from `pause.0` until `pause.1`, so the transport has nothing to send and its receiver
//! nothing to report, and the controller keeps its state; the first frame at the resumption
//! takes up the transport's rate at once (no reaction-time wait, no step limit) and starts a
//! transient, as a key frame does.
//!
//! Hooks: [`SendApp::on_start`] asks to be woken at once; each [`SendApp::on_wake`] codes one
//! frame and asks to be woken at the next frame time (in a pause: at its end).

use rand::Rng as _;

use super::video::{FrameLedger, Unit};
use super::{format_rate, SendApp, SendCtx, Tag};
use crate::rng::Rng;
use crate::time::SimTime;

/// The encoder's settings, checked by the scenario.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EncoderSpec {
    pub fps: f64,
    pub min_bps: f64,
    pub max_bps: f64,
    /// tau_v: a new target at most this often.
    pub reaction: SimTime,
    /// A relative change above which a new target is taken at once with a transient.
    pub big_change: f64,
    /// The largest relative change of a smaller update.
    pub max_step: f64,
    pub burst_frames: u32,
    pub burst_bytes: f64,
    pub size_scale: f64,
    pub interval_scale: f64,
    pub key_interval: Option<SimTime>,
    /// No frames from `.0` until `.1` (times of the run).
    pub pause: Option<(SimTime, SimTime)>,
}

impl Default for EncoderSpec {
    /// RFC 8593 §5's values; syncodecs' change rules.
    fn default() -> Self {
        EncoderSpec {
            fps: 30.0,
            min_bps: 150e3,
            max_bps: 1.5e6,
            reaction: SimTime::from_ms(200),
            big_change: 0.5,
            max_step: 0.1,
            burst_frames: 8,
            burst_bytes: 13_500.0,
            size_scale: 0.15,
            interval_scale: 0.15,
            key_interval: None,
            pause: None,
        }
    }
}

/// Smallest share of a frame at the target that a transient's later frames keep (syncodecs).
const TRANSIENT_FLOOR: f64 = 0.2;
/// Shortest frame interval, as a share of 1/fps.
const MIN_INTERVAL: f64 = 0.1;

/// The encoder.
#[derive(Clone, Debug)]
pub struct Encoder {
    spec: EncoderSpec,
    /// The rate it codes at (bits/s); none before the first frame.
    rate_bps: Option<f64>,
    last_update: Option<SimTime>,
    /// Frames left in the current transient (its first when equal to `burst_frames`).
    burst_left: u32,
    next_key: Option<SimTime>,
    frame: u32,
    ledger: Option<FrameLedger>,
}

impl Encoder {
    pub fn new(spec: EncoderSpec) -> Self {
        Encoder {
            spec,
            rate_bps: None,
            last_update: None,
            burst_left: spec.burst_frames,
            next_key: None,
            frame: 0,
            ledger: None,
        }
    }

    /// The same encoder recording each frame in `ledger`.
    pub fn with_ledger(self, ledger: FrameLedger) -> Self {
        Encoder {
            ledger: Some(ledger),
            ..self
        }
    }

    /// Takes up the target `wanted` (bits/s) at `now` as the change rules allow.
    fn update(&mut self, now: SimTime, wanted: f64) {
        let s = &self.spec;
        let wanted = if wanted.is_finite() && wanted > 0.0 {
            wanted.clamp(s.min_bps, s.max_bps)
        } else {
            s.min_bps
        };
        let Some(rate) = self.rate_bps else {
            self.rate_bps = Some(wanted);
            self.last_update = Some(now);
            return;
        };
        if wanted == rate || self.last_update.is_some_and(|t| now < t + s.reaction) {
            return;
        }
        self.last_update = Some(now);
        let change = (wanted - rate) / rate;
        self.rate_bps = Some(if change.abs() > s.big_change {
            self.burst_left = s.burst_frames;
            wanted
        } else {
            wanted.clamp(rate * (1.0 - s.max_step), rate * (1.0 + s.max_step))
        });
    }

    /// A zero-mean Laplacian draw of scale `scale`: the difference of two exponentials.
    fn laplace(rng: &mut Rng, scale: f64) -> f64 {
        if scale == 0.0 {
            return 0.0;
        }
        let e = |u: f64| -scale * (1.0 - u).ln();
        e(rng.gen()) - e(rng.gen())
    }

    /// The next frame's size (bytes) at the current rate.
    fn frame_bytes(&mut self, rng: &mut Rng) -> f64 {
        let s = self.spec;
        let b0 = self.rate_bps.unwrap_or(s.min_bps) / (8.0 * s.fps);
        let size = if self.burst_left == s.burst_frames && self.burst_left > 0 {
            s.burst_bytes
        } else if self.burst_left > 0 {
            let rest = (s.burst_frames as f64 * b0 - s.burst_bytes) / (s.burst_frames - 1) as f64;
            rest.max(TRANSIENT_FLOOR * b0)
        } else {
            b0
        };
        self.burst_left = self.burst_left.saturating_sub(1);
        (size * (1.0 + Self::laplace(rng, s.size_scale))).max(1.0)
    }
}

impl SendApp for Encoder {
    fn watches_progress(&self) -> bool {
        false
    }

    fn on_start(&mut self, cx: &mut SendCtx) {
        self.next_key = self.spec.key_interval.map(|k| cx.now() + k);
        cx.wake_at(cx.now());
    }

    fn on_wake(&mut self, cx: &mut SendCtx) {
        let now = cx.now();
        if let Some((from, until)) = self.spec.pause {
            if (from..until).contains(&now) {
                // Paused: the first frame after it takes the target afresh, as a key frame.
                self.rate_bps = None;
                self.burst_left = self.spec.burst_frames;
                cx.wake_at(until);
                return;
            }
        }
        let wanted = cx.view().rate_bps;
        self.update(now, wanted);
        if let (Some(key), Some(every)) = (self.next_key, self.spec.key_interval) {
            if now >= key {
                self.burst_left = self.spec.burst_frames;
                self.next_key = Some(key + every);
            }
        }
        let bytes = self.frame_bytes(cx.rng()).round() as u64;
        if let Some(ledger) = &self.ledger {
            ledger.lock().expect("frame ledger").push(Unit {
                captured: now,
                base_bytes: bytes,
                frames: 1,
            });
        }
        cx.offer(bytes, Tag::new(self.frame, 0).with_deadline(now));
        self.frame = self.frame.wrapping_add(1);
        let t0 = 1.0 / self.spec.fps;
        let interval = t0 * (1.0 + Self::laplace(cx.rng(), self.spec.interval_scale));
        let next = SimTime::from_secs_f64(interval.max(MIN_INTERVAL * t0)).max(SimTime(1));
        cx.wake_at(now + next);
    }

    fn label(&self) -> String {
        format!(
            "encoder {} fps, {}–{}",
            self.spec.fps,
            format_rate(self.spec.min_bps),
            format_rate(self.spec.max_bps)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::harness::SendHarness;

    /// Frames coded over `secs` with the transport reporting `rate(t)`; (time, bytes) each.
    fn run(spec: EncoderSpec, secs: f64, rate: impl Fn(f64) -> f64) -> Vec<(f64, u64)> {
        let mut h = SendHarness::new(Encoder::new(spec));
        let mut out = Vec::new();
        let mut now = SimTime::ZERO;
        h.at(now, |a, cx| a.on_start(cx));
        while now.secs() < secs {
            let r = rate(now.secs());
            h.at(now, |a, cx| {
                cx_rate(cx, r);
                a.on_wake(cx)
            });
            let bytes: u64 = h.drain().iter().map(|c| c.bytes as u64).sum();
            out.push((now.secs(), bytes));
            now = h.wake.take().expect("asks for the next frame");
        }
        out
    }

    fn cx_rate(cx: &mut SendCtx, bps: f64) {
        cx.view.rate_bps = bps;
    }

    fn mean_rate(frames: &[(f64, u64)], from: f64, to: f64) -> f64 {
        let bytes: u64 = frames
            .iter()
            .filter(|(t, _)| (from..to).contains(t))
            .map(|f| f.1)
            .sum();
        8.0 * bytes as f64 / (to - from)
    }

    /// In steady state the mean rate is the target: over 60 s at 30 frames/s the Laplacian
    /// deviations (scale 0.15: standard deviation 0.21 a frame, of the size and of the
    /// interval) average out to within 2 % (the sum of 1800 frames has a relative standard
    /// deviation near 0.3/√1800 = 0.7 %: 2 % is about three of them).
    #[test]
    fn the_mean_rate_is_the_target() {
        let frames = run(EncoderSpec::default(), 61.0, |_| 800e3);
        let r = mean_rate(&frames, 1.0, 61.0);
        assert!((r / 800e3 - 1.0).abs() < 0.02, "{r}");
    }

    #[test]
    fn the_target_is_clipped_to_the_encoders_range() {
        let lo = run(EncoderSpec::default(), 31.0, |_| 10e3);
        let hi = run(EncoderSpec::default(), 31.0, |_| 100e6);
        assert!((mean_rate(&lo, 1.0, 31.0) / 150e3 - 1.0).abs() < 0.03);
        assert!((mean_rate(&hi, 1.0, 31.0) / 1.5e6 - 1.0).abs() < 0.03);
    }

    #[test]
    fn a_big_change_starts_a_transient_and_a_small_one_is_limited() {
        let quiet = EncoderSpec {
            size_scale: 0.0,
            interval_scale: 0.0,
            ..EncoderSpec::default()
        };
        // 1 Mb/s, then 300 kb/s at 2 s: a 70 % cut, taken at once with a 13.5 KB frame.
        let f = run(quiet, 3.0, |t| if t < 2.0 { 1e6 } else { 300e3 });
        let first_after = f.iter().find(|(t, _)| *t >= 2.0).unwrap();
        assert_eq!(first_after.1, 13_500);
        // The rest of the transient: (8·1250 − 13500)/7 < 0, so a fifth of 1250 B.
        let next = f.iter().filter(|(t, _)| *t >= 2.0).nth(1).unwrap();
        assert_eq!(next.1, 250);
        // 1 Mb/s then 1.2 Mb/s: +20 %, at most +10 % a reaction time (0.2 s).
        let g = run(quiet, 2.5, |t| if t < 1.0 { 1e6 } else { 1.2e6 });
        let at = |s: f64| g.iter().find(|(t, _)| *t >= s).unwrap().1;
        assert_eq!(at(1.1), (1.1e6 / 240.0f64).round() as u64);
        assert_eq!(at(1.5), (1.2e6 / 240.0f64).round() as u64);
    }

    /// RFC 8867 §5.8's pause: nothing coded from 2 s to 3 s, a frame exactly at 3 s that starts
    /// a transient (13.5 KB), and the rate then the transport's (600 kb/s, taken at once
    /// although it is 40 % below the 1 Mb/s before the pause: no 10 % step limit).
    #[test]
    fn a_pause_codes_nothing_and_resumes_with_a_key_frame_at_the_target() {
        let spec = EncoderSpec {
            size_scale: 0.0,
            interval_scale: 0.0,
            pause: Some((SimTime::from_secs_f64(2.0), SimTime::from_secs_f64(3.0))),
            ..EncoderSpec::default()
        };
        let f = run(spec, 5.0, |t| if t < 2.0 { 1e6 } else { 600e3 });
        assert!(f.iter().all(|(t, b)| !(2.0..3.0).contains(t) || *b == 0));
        let resumed: Vec<_> = f.iter().filter(|(t, b)| *t >= 3.0 && *b > 0).collect();
        assert_eq!(resumed[0].0, 3.0);
        assert_eq!(resumed[0].1, 13_500);
        assert_eq!(resumed[9].1, (600e3 / 240.0f64).round() as u64);
    }
}
