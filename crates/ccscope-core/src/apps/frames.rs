//! Frame metrics of a video receiver, for every flow that carries video frames recorded in a
//! [`FrameLedger`] (the RFC 8593 [`super::Encoder`], [`super::Mpeg4`]): it watches the
//! deliveries beside the flow's receiving application (a playback receiver), which it wraps.
//!
//! - A frame is complete when all its bytes have arrived; its frame delay is the time from its
//!   capture to its completion.
//! - A frame is rendered when it completes, unless a later frame was rendered before it (a
//!   decoder does not go back); a frame that never completes is lost.
//! - Freezes as W3C's webrtc-stats counts them (`freezeCount`, `totalFreezesDuration`): a
//!   time between two rendered frames of at least max(3·d, d + 150 ms), d the mean of the
//!   previous (up to 30) such times; the time from the last rendered frame to the flow's end
//!   counts as one more.
//!
//! Frames captured before the run's warm-up are left out of every number.

use super::video::FrameLedger;
use super::{Delivery, ReceiveApp, RecvCtx};
use crate::net::Stat;
use crate::time::SimTime;

/// Rendered frames whose times the freeze test averages (webrtc-stats).
const FREEZE_HISTORY: usize = 30;
/// The least excess over the mean frame time that makes a freeze (webrtc-stats: 150 ms).
const FREEZE_MARGIN_S: f64 = 0.150;

/// Frame metrics around a receiving application.
pub struct FrameMeter {
    inner: Box<dyn ReceiveApp>,
    ledger: FrameLedger,
    warmup: SimTime,
    /// Bytes received of each frame, by frame number.
    received: Vec<u64>,
    /// (frame, completion time) of each rendered frame, in order.
    rendered: Vec<(u32, SimTime)>,
    /// The flow's end, once it stopped.
    end: Option<SimTime>,
}

impl FrameMeter {
    pub fn new(inner: Box<dyn ReceiveApp>, ledger: FrameLedger, warmup: SimTime) -> Self {
        FrameMeter {
            inner,
            ledger,
            warmup,
            received: Vec::new(),
            rendered: Vec::new(),
            end: None,
        }
    }

    /// Frame delays (s) of the rendered frames captured from the warm-up on.
    fn delays(&self) -> Vec<f64> {
        let ledger = self.ledger.lock().expect("frame ledger");
        self.rendered
            .iter()
            .filter_map(|&(f, done)| {
                let captured = ledger.get(f as usize)?.captured;
                (captured >= self.warmup).then(|| (done - captured).secs())
            })
            .collect()
    }

    /// (freezes, their total time in s) over the rendered frames from the warm-up on.
    fn freezes(&self) -> (u64, f64) {
        let times: Vec<SimTime> = self
            .rendered
            .iter()
            .map(|&(_, t)| t)
            .filter(|&t| t >= self.warmup)
            .chain(self.end)
            .collect();
        let (mut count, mut total) = (0, 0.0);
        let mut history: Vec<f64> = Vec::new();
        for w in times.windows(2) {
            let d = (w[1] - w[0]).secs();
            if !history.is_empty() {
                let recent = &history[history.len().saturating_sub(FREEZE_HISTORY)..];
                let mean = recent.iter().sum::<f64>() / recent.len() as f64;
                if d >= (3.0 * mean).max(mean + FREEZE_MARGIN_S) {
                    count += 1;
                    total += d;
                }
            }
            history.push(d);
        }
        (count, total)
    }
}

/// The `q` quantile of `x` (nearest rank), 0 when empty.
fn quantile(x: &mut [f64], q: f64) -> f64 {
    if x.is_empty() {
        return 0.0;
    }
    x.sort_by(f64::total_cmp);
    let rank = ((q * x.len() as f64).ceil() as usize).clamp(1, x.len());
    x[rank - 1]
}

impl ReceiveApp for FrameMeter {
    fn on_start(&mut self, cx: &mut RecvCtx) {
        self.inner.on_start(cx);
    }

    fn on_deliver(&mut self, cx: &mut RecvCtx, packet: &Delivery) {
        let f = packet.tag.frame as usize;
        if self.received.len() <= f {
            self.received.resize(f + 1, 0);
        }
        self.received[f] += packet.bytes as u64;
        let size = self
            .ledger
            .lock()
            .expect("frame ledger")
            .get(f)
            .map(|u| u.base_bytes);
        let later = self.rendered.last().is_some_and(|&(r, _)| r >= f as u32);
        if size.is_some_and(|s| self.received[f] >= s) && !later {
            self.rendered.push((f as u32, cx.now()));
        }
        if self.inner.watches_deliveries() {
            self.inner.on_deliver(cx, packet);
        }
    }

    fn on_wake(&mut self, cx: &mut RecvCtx) {
        self.inner.on_wake(cx);
    }

    fn on_stop(&mut self, cx: &mut RecvCtx) {
        self.end = Some(cx.now());
        self.inner.on_stop(cx);
    }

    fn stats(&self) -> Vec<(&'static str, Stat)> {
        let mut delays = self.delays();
        let (freezes, frozen) = self.freezes();
        let captured = {
            let ledger = self.ledger.lock().expect("frame ledger");
            let end = self.end.unwrap_or(SimTime::MAX);
            ledger
                .iter()
                .filter(|u| u.captured >= self.warmup && u.captured < end)
                .count()
        };
        let mut out = self.inner.stats();
        out.extend([
            ("frames_captured", Stat::Level(captured as f64)),
            ("frames_rendered", Stat::Level(delays.len() as f64)),
            ("frame_delay_p50_s", Stat::Level(quantile(&mut delays, 0.5))),
            (
                "frame_delay_p95_s",
                Stat::Level(quantile(&mut delays, 0.95)),
            ),
            ("video_freezes", Stat::Level(freezes as f64)),
            ("video_frozen_s", Stat::Level(frozen)),
        ]);
        out
    }

    fn series(&self) -> Vec<(&'static str, Vec<f64>)> {
        let mut out = self.inner.series();
        out.push(("frame_delay_s", self.delays()));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::{Sink, Tag, Unit};
    use crate::rng::{stream, Stream};
    use crate::time::OptTime;

    fn meter(sizes: &[(u64, u64)]) -> FrameMeter {
        let ledger = FrameLedger::default();
        ledger
            .lock()
            .unwrap()
            .extend(sizes.iter().map(|&(ms, b)| Unit {
                captured: SimTime::from_ms(ms),
                base_bytes: b,
                frames: 1,
            }));
        FrameMeter::new(Box::new(Sink::default()), ledger, SimTime::ZERO)
    }

    fn deliver(m: &mut FrameMeter, ms: u64, frame: u32, bytes: u32) {
        let mut rng = stream(1, Stream::Sink, 0);
        let mut wake = OptTime::NONE;
        let mut cx = RecvCtx {
            now: SimTime::from_ms(ms),
            rng: &mut rng,
            wake: &mut wake,
            nacks: None,
        };
        let d = Delivery {
            seq: 0,
            bytes,
            tag: Tag::new(frame, 0),
            sent_at: SimTime::ZERO,
            arrived_at: SimTime::from_ms(ms),
            resent: false,
        };
        m.on_deliver(&mut cx, &d);
    }

    #[test]
    fn a_frame_renders_when_its_last_byte_arrives_and_never_after_a_later_one() {
        let mut m = meter(&[(0, 2000), (33, 1000), (66, 1000)]);
        deliver(&mut m, 10, 0, 1200);
        deliver(&mut m, 20, 0, 800); // frame 0 complete at 20 ms
        deliver(&mut m, 90, 2, 1000); // frame 2 at 90 ms; frame 1 still short
        deliver(&mut m, 95, 1, 1000); // too late: frame 2 was shown
        assert_eq!(
            m.rendered,
            vec![(0, SimTime::from_ms(20)), (2, SimTime::from_ms(90))]
        );
        let d = m.delays();
        assert!((d[0] - 0.020).abs() < 1e-12 && (d[1] - 0.024).abs() < 1e-12);
    }

    /// Frames every 33 ms, then a 495 ms gap: max(3·33, 33 + 150) = 183 ms < 495 ms, a freeze.
    #[test]
    fn a_long_gap_between_rendered_frames_is_a_freeze() {
        let sizes: Vec<(u64, u64)> = (0..12).map(|k| (33 * k, 100)).collect();
        let mut m = meter(&sizes);
        for k in 0..10u32 {
            deliver(&mut m, 33 * k as u64 + 5, k, 100);
        }
        deliver(&mut m, 297 + 500, 10, 100);
        deliver(&mut m, 297 + 533, 11, 100);
        let (n, t) = m.freezes();
        assert_eq!(n, 1);
        assert!((t - 0.495).abs() < 1e-12, "from 302 ms to 797 ms: {t}");
        m.end = Some(SimTime::from_ms(297 + 533 + 100));
        assert_eq!(m.freezes().0, 1, "100 ms to the end is no freeze");
        m.end = Some(SimTime::from_ms(297 + 533 + 1000));
        assert_eq!(m.freezes().0, 2, "a stall until the end is one");
    }

    #[test]
    fn quantiles_take_the_nearest_rank() {
        let mut x = vec![5.0, 1.0, 3.0, 2.0, 4.0];
        assert_eq!(quantile(&mut x, 0.5), 3.0);
        assert_eq!(quantile(&mut x, 0.95), 5.0);
        assert_eq!(quantile(&mut [], 0.5), 0.0);
    }
}
