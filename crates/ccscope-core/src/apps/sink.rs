//! The sink: takes what its transport delivers and keeps nothing (ns-2 `Agent/Null`, ns-3
//! `PacketSink`). The transports count what they deliver (TCP's `goodput_pkts`) and the engine
//! counts the packets on the wire, so a count here would only repeat theirs.
//!
//! Hooks: none; it does not watch deliveries, so its transport does not even hand them over.

use super::ReceiveApp;

/// Receives and discards. It has no state: a flow's boxed sink takes no memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sink {}

impl ReceiveApp for Sink {
    fn watches_deliveries(&self) -> bool {
        false
    }
}
