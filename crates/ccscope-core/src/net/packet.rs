//! Packets as the engine moves them.
//!
//! The engine reads only the routing fields (`flow`, `dir`, `hop`), `size_bytes` and the ECN
//! bits. The transport header is a plain set of fields that each transport documents how it
//! uses; the engine never interprets them, so a new transport needs no engine change. The
//! application's [`Tag`] rides along untouched by engine and transports alike.

use crate::time::SimTime;

/// Which way along its flow a packet travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Dir {
    /// Sender to receiver: data.
    #[default]
    Forward = 0,
    /// Receiver to sender: acknowledgements and feedback.
    Reverse = 1,
}

impl Dir {
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// ECN codepoint bits (RFC 3168), reduced to what queues need.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Ecn {
    /// ECT: the sender understands congestion marks.
    pub capable: bool,
    /// CE: a queue marked this packet instead of dropping it.
    pub congestion: bool,
}

/// Transport header fields; meaning is up to the transport (see each transport's docs).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Header {
    /// Sequence number (packets).
    pub seq: u64,
    /// Acknowledgement number (packets).
    pub ack: u64,
    /// Time the packet (or the packet it answers) was sent.
    pub stamp: SimTime,
    /// Echoed timestamp or receiver delay.
    pub echo: SimTime,
    /// Transport-defined flags.
    pub flags: u32,
    /// Transport-defined numbers (rates in bits/s, loss rates...).
    pub value: [f64; 2],
    /// Transport-defined block list (e.g. SACK blocks as [start, end) pairs).
    pub blocks: [u32; 6],
}

/// What an application says about the data a packet carries (see [`crate::apps`]). Engine and
/// transports only carry it; a retransmission carries the tag of the original. 16 bytes: it
/// rides in every packet on the hot path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag {
    /// Application data unit (e.g. video frame number) the bytes belong to; 0 when unused.
    pub frame: u32,
    /// Layer of layered media (0: base layer); 0 when unused.
    pub layer: u32,
    /// When the data is due at the receiving application; `SimTime::MAX`: no deadline.
    deadline: SimTime,
}

impl Tag {
    /// Frame `frame` of layer `layer`, without a deadline.
    pub const fn new(frame: u32, layer: u32) -> Tag {
        Tag {
            frame,
            layer,
            deadline: SimTime::MAX,
        }
    }

    /// The same tag with a deadline.
    pub const fn with_deadline(self, at: SimTime) -> Tag {
        Tag {
            deadline: at,
            ..self
        }
    }

    /// When the data is due at the receiving application, if ever.
    pub fn deadline(&self) -> Option<SimTime> {
        (self.deadline != SimTime::MAX).then_some(self.deadline)
    }
}

impl Default for Tag {
    /// No frame, base layer, no deadline.
    fn default() -> Self {
        Tag::new(0, 0)
    }
}

/// One packet in flight. What the engine reads at every hop comes first, in declaration order
/// (`repr(C)`), so that a hop reads one cache line of the packet, not its first and its last.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C)]
pub struct Packet {
    /// Index of the flow in the scenario.
    pub flow: u32,
    /// Where the packet is on its path: the engine's own bookkeeping (an index into the run's
    /// table of every path's links).
    pub hop: u32,
    /// Size on the wire, headers included (bytes).
    pub size_bytes: u32,
    pub dir: Dir,
    pub ecn: Ecn,
    /// When the sending endpoint handed the packet to the network.
    pub sent_at: SimTime,
    pub header: Header,
    /// Application data tag.
    pub tag: Tag,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_has_no_deadline_unless_given_one() {
        let t = Tag::new(7, 0);
        assert_eq!(t.deadline(), None);
        let d = t.with_deadline(SimTime::from_ms(40));
        assert_eq!((d.frame, d.deadline()), (7, Some(SimTime::from_ms(40))));
        // The tag rides in every packet: keep the packet within 120 bytes.
        assert_eq!(std::mem::size_of::<Tag>(), 16);
        assert!(std::mem::size_of::<Packet>() <= 120);
    }
}
