//! Layered (fine-granular scalable, FGS) video after Loguinov & Radha 2003 §VI-C: a base layer
//! coded at `b0` and an enhancement layer that can be cut at any rate up to `R_max` − `b0`
//! (paper: b0 = 14 kb/s, R_max = 1190 kb/s). At each frame time the server reads its
//! congestion controller's rate ([`super::TransportView::rate_bps`]), clips it to [b0, R_max]
//! ("as long as it was no less than the rate of the base layer b0 and no more than the combined
//! rate of both layers"), and offers that frame's base layer (b0 / fps bytes, layer 0) and the
//! enhancement that fits (layer 1), both tagged with the frame number and capture time. The
//! receiver's freeze frames count base layers incomplete at their decoding time; enhancement
//! layers may arrive partly.
//!
//! Not modelled: the paper's retransmission of lost base-layer packets on NACK (the receiving
//! application has no path back to the sender here), so every base-layer loss freezes its
//! frame.
//!
//! Hooks: [`SendApp::on_start`] asks to be woken at once; each [`SendApp::on_wake`] offers one
//! frame and asks to be woken at the next frame time (`start + k / fps`, without drift).

use super::video::FrameLedger;
use super::{format_rate, SendApp, SendCtx, Tag};
use crate::error::{check_positive, Error, Result};
use crate::time::SimTime;

/// An FGS server.
#[derive(Clone, Debug)]
pub struct Fgs {
    fps: f64,
    base_bps: f64,
    max_bps: f64,
    started: SimTime,
    frames: u64,
    ledger: Option<FrameLedger>,
}

impl Fgs {
    pub fn new(base_bps: f64, max_bps: f64, fps: f64) -> Result<Fgs> {
        let base_bps = check_positive("base", base_bps)?;
        if !(max_bps.is_finite() && max_bps >= base_bps) {
            return Err(Error::invalid("max", format!("{max_bps:?}"), "must be at least the base layer's rate"));
        }
        Ok(Fgs {
            fps: check_positive("fps", fps)?,
            base_bps,
            max_bps,
            started: SimTime::ZERO,
            frames: 0,
            ledger: None,
        })
    }

    /// The same server, recording each frame's base-layer size in `ledger`.
    pub fn with_ledger(self, ledger: FrameLedger) -> Fgs {
        Fgs { ledger: Some(ledger), ..self }
    }

    /// The frame's base and enhancement bytes at the transport's rate `rate_bps`.
    fn layers(&self, rate_bps: f64) -> (u64, u64) {
        let rate = if rate_bps.is_finite() { rate_bps.clamp(self.base_bps, self.max_bps) } else { self.max_bps };
        let bytes = |bps: f64| (bps / 8.0 / self.fps).round() as u64;
        let base = bytes(self.base_bps).max(1);
        (base, bytes(rate).saturating_sub(base))
    }
}

impl SendApp for Fgs {
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
        let (base, enhancement) = self.layers(cx.view().rate_bps);
        if let Some(ledger) = &self.ledger {
            ledger.lock().expect("frame ledger lock").push((now, base));
        }
        cx.offer(base, Tag::new(frame, 0).with_deadline(now));
        cx.offer(enhancement, Tag::new(frame, 1).with_deadline(now));
        self.frames += 1;
        cx.wake_at(self.started + SimTime::from_secs_f64(self.frames as f64 / self.fps));
    }

    fn label(&self) -> String {
        format!("FGS {}-{}", format_rate(self.base_bps), format_rate(self.max_bps))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::harness::SendHarness;
    use crate::apps::TransportView;

    /// The layers offered for one frame at the transport rate `rate_bps`: (layer, bytes).
    fn frame_at(rate_bps: f64) -> Vec<(u32, u64)> {
        let mut h = SendHarness::new(Fgs::new(14e3, 1190e3, 10.0).unwrap());
        h.packet_bytes = u32::MAX;
        let view = TransportView { now: SimTime::ZERO, rate_bps, window_pkts: 0.0, packet_bytes: 1000 };
        let mut cx = SendCtx { view, rng: &mut h.rng, buffer: &mut h.buffer, closed: &mut h.closed, wake: &mut h.wake };
        h.app.on_start(&mut cx);
        h.app.on_wake(&mut cx);
        h.drain().iter().map(|c| (c.tag.layer, c.bytes as u64)).collect()
    }

    #[test]
    fn the_rate_is_clipped_to_the_base_layer_and_the_maximum() {
        // Loguinov & Radha's layers at 10 frames/s: base 14 kb/s = 175 B per frame.
        assert_eq!(frame_at(500e3), [(0, 175), (1, 6250 - 175)]);
        assert_eq!(frame_at(5e3), [(0, 175)], "below b0: the base layer alone");
        assert_eq!(frame_at(1e9), [(0, 175), (1, 14875 - 175)], "above R_max: R_max");
        assert!(Fgs::new(14e3, 10e3, 10.0).is_err());
        assert_eq!(Fgs::new(14e3, 1190e3, 10.0).unwrap().label(), "FGS 14kb/s-1.19Mb/s");
    }
}
