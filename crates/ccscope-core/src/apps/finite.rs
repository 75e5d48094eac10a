//! A finite transfer: a fixed amount of data offered at once, then the end of the data (ns-3
//! `BulkSendApplication` with `MaxBytes`; ns-2 `FTP produce n`). TCP records when the last
//! byte is acknowledged as the flow's completion time.
//!
//! Hooks: [`SendApp::on_start`] offers all the data, untagged, and closes; nothing else.

use super::{SendApp, SendCtx, Tag};

/// A transfer of `bytes` bytes.
#[derive(Clone, Copy, Debug)]
pub struct Finite {
    /// Bytes to transfer (on the wire), ≥ 1.
    bytes: u64,
}

impl Finite {
    pub fn new(bytes: u64) -> Self {
        Finite { bytes }
    }

    /// A transfer of `pkts` packets of `packet_bytes` bytes each.
    pub fn packets(pkts: u64, packet_bytes: u32) -> Self {
        Finite::new(pkts.saturating_mul(packet_bytes as u64))
    }
}

impl SendApp for Finite {
    fn watches_progress(&self) -> bool {
        false
    }

    fn on_start(&mut self, cx: &mut SendCtx) {
        cx.offer(self.bytes, Tag::default());
        cx.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::harness::SendHarness;
    use crate::time::SimTime;

    #[test]
    fn offers_exactly_its_packets_then_closes() {
        let mut h = SendHarness::new(Finite::packets(50, 1000));
        h.at(SimTime::ZERO, |a, cx| a.on_start(cx));
        assert!(h.closed);
        let chunks = h.drain();
        assert_eq!(chunks.len(), 50);
        assert!(chunks.iter().all(|c| c.bytes == 1000));
        // Nothing offered after the close is taken.
        h.at(SimTime::from_ms(1), |_, cx| cx.offer(1000, Tag::default()));
        assert!(h.buffer.is_empty() && h.wake.is_none());
    }

    #[test]
    fn a_size_that_is_not_a_multiple_of_the_packet_ends_with_a_short_packet() {
        let mut h = SendHarness::new(Finite::new(2500));
        h.at(SimTime::ZERO, |a, cx| a.on_start(cx));
        let sizes: Vec<u32> = h.drain().iter().map(|c| c.bytes).collect();
        assert_eq!(sizes, [1000, 1000, 500]);
    }
}
