//! Layered (fine-granular scalable, FGS) video after Loguinov & Radha 2003 §VI-C: a base layer
//! coded at `b0` and an enhancement layer that can be cut at any rate up to `R_max` − `b0`
//! (paper: b0 = 14 kb/s, R_max = 1190 kb/s). At each frame time the server reads its
//! congestion controller's rate ([`super::TransportView::rate_bps`]) and clips it to
//! [b0, R_max] ("as long as it was no less than the rate of the base layer b0 and no more than
//! the combined rate of both layers"); the frame may use that rate's share, 1/fps of it.
//!
//! Packetization. The transport sends one packet per send slot, a slot lasting a full packet
//! of `packet_bytes` at the controller's rate whatever the packet holds, and §VI-C's packets
//! are 1500 bytes while a 14 kb/s base layer at 10 frames/s is 175 bytes a frame. So the
//! server spends its rate in slots:
//! - base layers of consecutive frames are packed into one decoding unit (layer 0) as long as
//!   the next frame's base layer still fits in a packet (1500 B: 8 frames), offered when the
//!   unit is full and tagged with its first frame's capture time: all of its frames are decoded
//!   from that time plus the start-up delay (a unit whose base layer is incomplete then freezes
//!   all of its frames; [`super::Unit`]);
//! - the enhancement layer, which FGS can cut anywhere, is cut into whole packets (layer 1)
//!   and sent as far as the rate's share left by the base layer's slots allows; the rest
//!   waits for the next frame. A debt (the base layer's slots beyond the rate) is carried for
//!   at most one slot: at the base rate the base layer is sent whatever the rate.
//!
//! Retransmission (§VI-C: "our retransmission scheme was able to recover all base-layer
//! packets before their deadlines"; [`Fgs::with_retransmission`]): when the receiver NACKs a
//! base-layer packet, the server sends it again, ahead of new data and inside its rate (its
//! slot is charged like any other), if it can still arrive in time: if now + one smoothed RTT
//! is no later than the unit's decoding time (the RTT stands for the one-way trip plus the
//! wait for a send slot). Enhancement-layer packets are not retransmitted. Without it every
//! base-layer loss freezes its unit's frames.
//!
//! Hooks: [`SendApp::on_start`] asks to be woken at once; each [`SendApp::on_wake`] takes one
//! frame and asks to be woken at the next frame time (`start + k / fps`, without drift);
//! [`SendApp::on_nack`] resends as above.

use super::video::{FrameLedger, Unit};
use super::{format_rate, Chunk, SendApp, SendCtx, Tag};
use crate::error::{check_positive, written_number, Error, Result};
use crate::time::SimTime;

/// An FGS server.
#[derive(Clone, Debug)]
pub struct Fgs {
    fps: f64,
    base_bps: f64,
    max_bps: f64,
    started: SimTime,
    frames: u64,
    /// Rate not yet spent (bytes): each frame adds its share, each packet takes a whole slot.
    credit: f64,
    /// The decoding unit being packed, and the number of units offered.
    packing: Option<Unit>,
    units: u32,
    ledger: Option<FrameLedger>,
    /// With retransmission: the receiver's start-up delay (capture to decoding).
    startup: Option<SimTime>,
}

impl Fgs {
    pub fn new(base_bps: f64, max_bps: f64, fps: f64) -> Result<Fgs> {
        let base_bps = check_positive("base", base_bps)?;
        if !(max_bps.is_finite() && max_bps >= base_bps) {
            return Err(Error::invalid(
                "max",
                written_number(max_bps),
                "must be at least the base layer's rate",
            ));
        }
        Ok(Fgs {
            fps: check_positive("fps", fps)?,
            base_bps,
            max_bps,
            started: SimTime::ZERO,
            frames: 0,
            credit: 0.0,
            packing: None,
            units: 0,
            ledger: None,
            startup: None,
        })
    }

    /// The same server, recording each decoding unit in `ledger`.
    pub fn with_ledger(self, ledger: FrameLedger) -> Fgs {
        Fgs {
            ledger: Some(ledger),
            ..self
        }
    }

    /// The same server, resending NACKed base-layer packets that can still arrive before their
    /// unit's decoding time, `startup` after its capture.
    pub fn with_retransmission(self, startup: SimTime) -> Fgs {
        Fgs {
            startup: Some(startup),
            ..self
        }
    }

    /// A frame's base layer (bytes), ≥ 1.
    fn base_bytes(&self) -> u64 {
        ((self.base_bps / 8.0 / self.fps).round() as u64).max(1)
    }

    /// A frame's share of the transport's rate `rate_bps` clipped to [b0, R_max] (bytes).
    fn share(&self, rate_bps: f64) -> f64 {
        let rate = if rate_bps.is_finite() {
            rate_bps.clamp(self.base_bps, self.max_bps)
        } else {
            self.max_bps
        };
        rate / 8.0 / self.fps
    }

    /// Offers the unit being packed.
    fn offer_unit(&mut self, cx: &mut SendCtx, slot: u64) {
        let Some(unit) = self.packing.take() else {
            return;
        };
        if let Some(ledger) = &self.ledger {
            ledger.lock().expect("frame ledger lock").push(unit);
        }
        cx.offer(
            unit.base_bytes,
            Tag::new(self.units, 0).with_deadline(unit.captured),
        );
        self.units += 1;
        self.credit -= unit.base_bytes.div_ceil(slot) as f64 * slot as f64;
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
        let (Some(startup), Some(captured)) = (self.startup, chunk.tag.deadline()) else {
            return;
        };
        if chunk.tag.layer == 0 && cx.now() + rtt <= captured + startup {
            cx.resend(*chunk);
            self.credit -= cx.view().packet_bytes.max(1) as f64;
        }
    }

    fn on_start(&mut self, cx: &mut SendCtx) {
        self.started = cx.now();
        cx.wake_at(cx.now());
    }

    fn on_wake(&mut self, cx: &mut SendCtx) {
        let now = cx.now();
        let view = *cx.view();
        let slot = view.packet_bytes.max(1) as u64;
        let base = self.base_bytes();
        self.credit += self.share(view.rate_bps);
        let unit = self.packing.get_or_insert(Unit {
            captured: now,
            base_bytes: 0,
            frames: 0,
        });
        unit.base_bytes += base;
        unit.frames += 1;
        let full = unit.base_bytes + base > slot;
        if full {
            self.offer_unit(cx, slot);
        }
        self.credit = self.credit.max(-(slot as f64));
        let packets = (self.credit / slot as f64).floor().max(0.0) as u64;
        cx.offer(packets * slot, Tag::new(self.units, 1).with_deadline(now));
        self.credit -= (packets * slot) as f64;
        self.frames += 1;
        cx.wake_at(self.started + SimTime::from_secs_f64(self.frames as f64 / self.fps));
    }

    fn label(&self) -> String {
        format!(
            "FGS {}-{}",
            format_rate(self.base_bps),
            format_rate(self.max_bps)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::harness::SendHarness;
    use crate::apps::TransportView;

    /// Loguinov & Radha's layers (14 kb/s, 1190 kb/s, 10 frames/s) over 1500-byte packets at
    /// the transport rate `rate_bps` for `frames` frames: what was offered, (layer, unit,
    /// bytes) per packet, and the ledger.
    fn stream(rate_bps: f64, frames: u64) -> (Vec<(u32, u32, u64)>, Vec<Unit>) {
        let ledger = FrameLedger::default();
        let mut h = SendHarness::new(
            Fgs::new(14e3, 1190e3, 10.0)
                .unwrap()
                .with_ledger(ledger.clone()),
        );
        h.packet_bytes = 1500;
        for k in 0..frames {
            let now = SimTime::from_ms(100 * k);
            let view = TransportView {
                now,
                rate_bps,
                window_pkts: 0.0,
                packet_bytes: 1500,
            };
            let mut cx = SendCtx {
                view,
                rng: &mut h.rng,
                buffer: &mut h.buffer,
                closed: &mut h.closed,
                wake: &mut h.wake,
            };
            if k == 0 {
                h.app.on_start(&mut cx);
            }
            h.app.on_wake(&mut cx);
        }
        let packets = h
            .drain()
            .iter()
            .map(|c| (c.tag.layer, c.tag.frame, c.bytes as u64))
            .collect();
        let units = ledger.lock().unwrap().clone();
        (packets, units)
    }

    #[test]
    fn base_layers_are_packed_into_units_of_whole_frames() {
        // 175 B a frame: 8 frames' base layers fit in 1500 B, a ninth does not.
        let (packets, units) = stream(500e3, 16);
        let unit = |k: u64| Unit {
            captured: SimTime::from_ms(800 * k),
            base_bytes: 1400,
            frames: 8,
        };
        assert_eq!(units, [unit(0), unit(1)]);
        let base: Vec<_> = packets.iter().filter(|p| p.0 == 0).collect();
        assert_eq!(
            base,
            [&(0, 0, 1400), &(0, 1, 1400)],
            "one packet per unit, tagged with it"
        );
    }

    #[test]
    fn the_rate_is_spent_in_whole_send_slots() {
        // Over 10 s the slots offered stay within the rate's 8·1500-bit slots, so a flow at
        // its rate keeps up with its server (Loguinov & Radha's n = 50 share of a T1: 30 kb/s).
        for rate in [30e3, 100e3, 500e3, 1e6] {
            let (packets, _) = stream(rate, 100);
            let allowed = (rate * 10.0 / (8.0 * 1500.0)).floor() as usize;
            assert!(
                packets.len() <= allowed && packets.len() + 2 >= allowed,
                "{rate} b/s: {} slots",
                packets.len()
            );
            assert!(
                packets.iter().filter(|p| p.0 == 1).all(|p| p.2 == 1500),
                "enhancement in whole packets"
            );
        }
        // Below b0 the base layer alone; above R_max, R_max.
        let (packets, units) = stream(5e3, 100);
        assert!(packets.iter().all(|p| p.0 == 0) && units.len() == 12);
        let (packets, _) = stream(1e9, 100);
        let bytes: u64 = packets.iter().map(|p| p.2).sum();
        assert!(
            bytes <= 1_487_500 && bytes + 2 * 1500 >= 1_487_500,
            "{bytes} B in 10 s at R_max"
        );
        assert!(Fgs::new(14e3, 10e3, 10.0).is_err());
        assert_eq!(
            Fgs::new(14e3, 1190e3, 10.0).unwrap().label(),
            "FGS 14kb/s-1.19Mb/s"
        );
    }

    #[test]
    fn only_base_layer_packets_that_can_still_arrive_in_time_are_resent() {
        let server = Fgs::new(14e3, 1190e3, 10.0).unwrap();
        assert!(!server.retransmits());
        let mut h = SendHarness::new(server.with_retransmission(SimTime::from_secs_f64(3.0)));
        assert!(h.app.retransmits());
        let rtt = SimTime::from_ms(100);
        let captured = SimTime::from_secs_f64(1.0);
        let chunk = |layer| Chunk {
            bytes: 175,
            tag: Tag::new(10, layer).with_deadline(captured),
            resent: false,
        };
        // Decoding at 4 s: a NACK at 3.9 s leaves exactly one RTT, at 3.95 s less than one.
        for (now, layer, resent) in [(3.9, 0, true), (3.95, 0, false), (2.0, 1, false)] {
            h.at(SimTime::from_secs_f64(now), |a, cx| {
                a.on_nack(cx, &chunk(layer), rtt)
            });
            let got = h.drain();
            assert_eq!(got.len(), resent as usize, "NACK at {now} s, layer {layer}");
            assert!(got.iter().all(|c| c.resent && c.tag == chunk(0).tag));
        }
    }
}
