//! A bulk transfer: data without end, as fast as the transport takes it (an FTP transfer;
//! ns-2 `Application/FTP`, ns-3 `BulkSendApplication` without `MaxBytes`).
//!
//! Hooks: [`SendApp::on_start`] offers an unlimited amount of untagged data; nothing else.

use super::{SendApp, SendCtx, Tag, UNLIMITED};

/// The greedy source: its transport is never application-limited.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bulk;

impl SendApp for Bulk {
    fn watches_progress(&self) -> bool {
        false
    }

    fn on_start(&mut self, cx: &mut SendCtx) {
        cx.offer(UNLIMITED, Tag::default());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::harness::SendHarness;
    use crate::time::SimTime;

    #[test]
    fn offers_full_packets_forever_and_never_asks_to_wake() {
        let mut h = SendHarness::new(Bulk);
        h.at(SimTime::ZERO, |a, cx| a.on_start(cx));
        for _ in 0..100_000 {
            assert_eq!(h.buffer.take(h.packet_bytes).map(|c| c.bytes), Some(1000));
        }
        assert!(h.wake.is_none() && !h.closed);
    }
}
