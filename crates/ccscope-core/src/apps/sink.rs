//! The sink: receives and counts (ns-2 `Agent/Null` / `TCPSink` counting, ns-3 `PacketSink`).
//! The engine's own flow statistics count the same packets on the wire; the sink counts what
//! the transport delivered to the application.
//!
//! Hooks: [`ReceiveApp::on_deliver`] counts the packet; nothing else.

use super::{Delivery, ReceiveApp, RecvCtx};
use crate::time::SimTime;

/// Counts delivered packets and bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sink {
    /// Packets delivered.
    pub pkts: u64,
    /// Bytes delivered (on the wire).
    pub bytes: u64,
    /// Delivery time of the last packet.
    pub last: Option<SimTime>,
}

impl ReceiveApp for Sink {
    fn on_deliver(&mut self, cx: &mut RecvCtx, packet: &Delivery) {
        self.pkts += 1;
        self.bytes += packet.bytes as u64;
        self.last = Some(cx.now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::Tag;
    use crate::rng::{stream, Stream};

    #[test]
    fn counts_what_is_delivered() {
        let mut sink = Sink::default();
        let mut rng = stream(1, Stream::Sink, 0);
        let mut wake = None;
        for (k, bytes) in [1000u32, 1000, 40].into_iter().enumerate() {
            let now = SimTime::from_ms(10 * k as u64);
            let mut cx = RecvCtx {
                now,
                rng: &mut rng,
                wake: &mut wake,
                nacks: &mut Vec::new(),
            };
            let d = Delivery {
                seq: k as u64,
                bytes,
                tag: Tag::default(),
                sent_at: SimTime::ZERO,
                arrived_at: now,
                resent: false,
            };
            sink.on_deliver(&mut cx, &d);
        }
        assert_eq!((sink.pkts, sink.bytes, sink.last), (3, 2040, Some(SimTime::from_ms(20))));
        assert!(wake.is_none());
    }
}
