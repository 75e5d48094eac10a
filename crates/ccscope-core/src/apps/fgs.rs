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
//! Retransmission (§VI-C: "our retransmission scheme was able to recover all base-layer
//! packets before their deadlines"; [`Fgs::with_retransmission`]): when the receiver NACKs a
//! packet of a frame's base layer, the server sends it again, ahead of new data and inside
//! its transport's rate, if it can still arrive in time: if now + one smoothed RTT is no later
//! than the frame's decoding time, its capture time plus the receiver's start-up delay (the
//! RTT stands for the one-way trip plus the wait for a send slot). Enhancement-layer packets
//! are not retransmitted. Without it every base-layer loss freezes its frame.
//!
//! Hooks: [`SendApp::on_start`] asks to be woken at once; each [`SendApp::on_wake`] offers one
//! frame and asks to be woken at the next frame time (`start + k / fps`, without drift);
//! [`SendApp::on_nack`] resends as above.

use super::video::FrameLedger;
use super::{format_rate, Chunk, SendApp, SendCtx, Tag};
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
    /// With retransmission: the receiver's start-up delay (capture to decoding).
    startup: Option<SimTime>,
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
            startup: None,
        })
    }

    /// The same server, recording each frame's base-layer size in `ledger`.
    pub fn with_ledger(self, ledger: FrameLedger) -> Fgs {
        Fgs { ledger: Some(ledger), ..self }
    }

    /// The same server, resending NACKed base-layer packets that can still arrive before their
    /// frame's decoding time, `startup` after its capture.
    pub fn with_retransmission(self, startup: SimTime) -> Fgs {
        Fgs { startup: Some(startup), ..self }
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

    fn retransmits(&self) -> bool {
        self.startup.is_some()
    }

    fn on_nack(&mut self, cx: &mut SendCtx, chunk: &Chunk, rtt: SimTime) {
        let (Some(startup), Some(captured)) = (self.startup, chunk.tag.deadline()) else { return };
        if chunk.tag.layer == 0 && cx.now() + rtt <= captured + startup {
            cx.resend(*chunk);
        }
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

    #[test]
    fn only_base_layer_packets_that_can_still_arrive_in_time_are_resent() {
        let server = Fgs::new(14e3, 1190e3, 10.0).unwrap();
        assert!(!server.retransmits());
        let mut h = SendHarness::new(server.with_retransmission(SimTime::from_secs_f64(3.0)));
        assert!(h.app.retransmits());
        let rtt = SimTime::from_ms(100);
        let captured = SimTime::from_secs_f64(1.0);
        let chunk = |layer| Chunk { bytes: 175, tag: Tag::new(10, layer).with_deadline(captured), resent: false };
        // Decoding at 4 s: a NACK at 3.9 s leaves exactly one RTT, at 3.95 s less than one.
        for (now, layer, resent) in [(3.9, 0, true), (3.95, 0, false), (2.0, 1, false)] {
            h.at(SimTime::from_secs_f64(now), |a, cx| a.on_nack(cx, &chunk(layer), rtt));
            let got = h.drain();
            assert_eq!(got.len(), resent as usize, "NACK at {now} s, layer {layer}");
            assert!(got.iter().all(|c| c.resent && c.tag == chunk(0).tag));
        }
    }
}
