//! Packets as UDP datagrams.
//!
//! A datagram carries the whole [`Packet`] in a fixed little-endian layout, then padding up to
//! the packet's modelled size, so that the bytes on the wire are the bytes the scenario says.
//! A packet smaller than the layout (a 40-byte ACK) travels as the layout alone; the emulator
//! serializes by the modelled size either way. Every datagram starts with a magic number and the
//! run's nonce: a stray datagram, or one from an earlier run on the same port, is refused.

use crate::net::packet::{Dir, Ecn, Header, Packet, Tag};
use crate::time::SimTime;

const MAGIC: u32 = 0x6363_7331; // "ccs1"

/// Bytes of the fixed layout.
pub const LAYOUT_BYTES: usize = 4 + 4 + 4 + 1 + 1 + 4 + 8 + (8 * 4 + 4 + 16 + 24) + (4 + 4 + 8);

/// The datagram for `pkt` of the run `nonce`, written into `buf` (cleared first).
pub fn encode(pkt: &Packet, nonce: u32, buf: &mut Vec<u8>) {
    buf.clear();
    let h = &pkt.header;
    buf.extend_from_slice(&MAGIC.to_le_bytes());
    buf.extend_from_slice(&nonce.to_le_bytes());
    buf.extend_from_slice(&pkt.flow.to_le_bytes());
    buf.push(pkt.dir as u8);
    buf.push(pkt.ecn.capable as u8 | (pkt.ecn.congestion as u8) << 1);
    buf.extend_from_slice(&pkt.size_bytes.to_le_bytes());
    buf.extend_from_slice(&pkt.sent_at.ns().to_le_bytes());
    for x in [h.seq, h.ack, h.stamp.ns(), h.echo.ns()] {
        buf.extend_from_slice(&x.to_le_bytes());
    }
    buf.extend_from_slice(&h.flags.to_le_bytes());
    for v in h.value {
        buf.extend_from_slice(&v.to_le_bytes());
    }
    for b in h.blocks {
        buf.extend_from_slice(&b.to_le_bytes());
    }
    buf.extend_from_slice(&pkt.tag.frame.to_le_bytes());
    buf.extend_from_slice(&pkt.tag.layer.to_le_bytes());
    buf.extend_from_slice(
        &pkt.tag
            .deadline()
            .map_or(u64::MAX, |d| d.ns())
            .to_le_bytes(),
    );
    debug_assert_eq!(buf.len(), LAYOUT_BYTES);
    buf.resize(LAYOUT_BYTES.max(pkt.size_bytes as usize), 0);
}

/// Reads fixed-size fields off the front of a byte slice.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        head.try_into().expect("split_at gave N bytes")
    }
    fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
    fn f64(&mut self) -> f64 {
        f64::from_le_bytes(self.take())
    }
}

/// The packet in a datagram of the run `nonce`; `None` for anything else.
pub fn decode(datagram: &[u8], nonce: u32) -> Option<Packet> {
    if datagram.len() < LAYOUT_BYTES {
        return None;
    }
    let mut r = Reader(datagram);
    if r.u32() != MAGIC || r.u32() != nonce {
        return None;
    }
    let flow = r.u32();
    let dir = match r.u8() {
        0 => Dir::Forward,
        1 => Dir::Reverse,
        _ => return None,
    };
    let bits = r.u8();
    let ecn = Ecn {
        capable: bits & 1 != 0,
        congestion: bits & 2 != 0,
    };
    let size_bytes = r.u32();
    let sent_at = SimTime(r.u64());
    let (seq, ack, stamp, echo) = (r.u64(), r.u64(), SimTime(r.u64()), SimTime(r.u64()));
    let flags = r.u32();
    let value = [r.f64(), r.f64()];
    let blocks = [r.u32(), r.u32(), r.u32(), r.u32(), r.u32(), r.u32()];
    let tag = Tag::new(r.u32(), r.u32());
    let tag = match r.u64() {
        u64::MAX => tag,
        d => tag.with_deadline(SimTime(d)),
    };
    Some(Packet {
        flow,
        dir,
        hop: 0,
        size_bytes,
        ecn,
        sent_at,
        header: Header {
            seq,
            ack,
            stamp,
            echo,
            flags,
            value,
            blocks,
        },
        tag,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Packet {
        Packet {
            flow: 7,
            dir: Dir::Reverse,
            hop: 0,
            size_bytes: 1000,
            ecn: Ecn {
                capable: true,
                congestion: true,
            },
            sent_at: SimTime(123_456_789),
            header: Header {
                seq: 1 << 40,
                ack: 99,
                stamp: SimTime(5),
                echo: SimTime(6),
                flags: 0b101,
                value: [1.5e6, 0.02],
                blocks: [1, 2, 3, 4, 5, 6],
            },
            tag: Tag::new(3, 1).with_deadline(SimTime::from_ms(40)),
        }
    }

    #[test]
    fn a_packet_survives_the_wire_at_its_modelled_size() {
        let mut buf = Vec::new();
        encode(&sample(), 42, &mut buf);
        assert_eq!(buf.len(), 1000);
        assert_eq!(decode(&buf, 42), Some(sample()));
        let ack = Packet {
            size_bytes: 40,
            tag: Tag::default(),
            ..sample()
        };
        encode(&ack, 42, &mut buf);
        assert_eq!(buf.len(), LAYOUT_BYTES);
        assert_eq!(decode(&buf, 42), Some(ack));
    }

    #[test]
    fn stray_datagrams_are_refused() {
        let mut buf = Vec::new();
        encode(&sample(), 42, &mut buf);
        assert_eq!(decode(&buf, 43), None, "another run's nonce");
        assert_eq!(decode(&buf[..LAYOUT_BYTES - 1], 42), None, "too short");
        buf[0] ^= 1;
        assert_eq!(decode(&buf, 42), None, "no magic");
    }
}
