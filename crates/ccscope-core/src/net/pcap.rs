//! Packet captures: the packets that cross chosen links, written as pcap-ng files that
//! Wireshark, `tshark` and `tcptrace` read as they read a capture taken on a real link.
//!
//! One file per link, `LINK.pcapng` in the folder the run is given, written as the run goes
//! (nothing is held back but a write buffer). Each file is one section: a Section Header Block,
//! one Interface Description Block (Ethernet, the link's name, nanosecond timestamps) and an
//! Enhanced Packet Block per packet (pcap-ng, draft-ietf-opsawg-pcapng-02 §4.1, §4.2, §4.3).
//!
//! A packet is written when it reaches the link's far end, serialized and propagated, at that
//! simulated time: a capture taken where the link ends. Packets a queue dropped or a loss
//! module took never get there and are not written, as a capture downstream of the loss would
//! not see them; so a file holds as many packets as the link's `exits` counter over the whole
//! run. Timestamps count from the start of the run (the capture starts at the Unix epoch).
//!
//! Headers are synthesized from the packet's fields: Ethernet, IPv4 (RFC 791) with the ECN
//! field (RFC 3168 §5: ECT(0), or CE once a queue marked it), then TCP (RFC 9293 §3.1) for the
//! flows of the engine's TCP, UDP (RFC 768) for every other flow. Flow `i` runs from host
//! `10.1.(i/256 mod 256).(i mod 256)`, port `10000 + i/65536`, to host
//! `10.2.(i/256 mod 256).(i mod 256)`, port `20000 + i/65536`: its packets both ways are one
//! conversation. TCP's sequence numbers count packets ([`crate::transport::tcp`]); a capture
//! counts bytes, so packet number `n` is written as byte `n × segment` (the flow's packet size
//! less 40 bytes of IPv4 and TCP headers), the acknowledgement number and the SACK blocks
//! (RFC 2018 §3) alike; the receiver sends no data, so its sequence number stays 0, and the
//! data packets acknowledge 0. ECN-Echo (RFC 3168 §6.1.3) is the ACK's flag. The captured
//! bytes are the headers only; a packet's original length is its size on the wire plus the
//! 14 bytes of Ethernet header, so that byte counts and throughput come out as the run's.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::packet::{Dir, Packet};
use super::topology::{LinkDef, Name};
use crate::error::{Error, Result};
use crate::time::SimTime;

/// Block types (pcap-ng §4).
const SECTION_HEADER: u32 = 0x0A0D_0D0A;
const INTERFACE_DESCRIPTION: u32 = 1;
const ENHANCED_PACKET: u32 = 6;
/// LINKTYPE_ETHERNET (the tcpdump.org link-layer header types).
const LINKTYPE_ETHERNET: u16 = 1;
/// Option codes: end of options, the section's writing application, an interface's name and
/// its timestamp resolution (§4.1, §4.2).
const OPT_END: u16 = 0;
const SHB_USERAPPL: u16 = 4;
const IF_NAME: u16 = 2;
const IF_TSRESOL: u16 = 9;
/// Timestamps in units of 10^-9 s.
const NANOSECONDS: u8 = 9;

const ETHERNET: usize = 14;
const IPV4: usize = 20;
const TCP: usize = 20;
/// TCP's option space (RFC 9293 §3.1: data offset at most 15 words).
const TCP_OPTIONS: usize = 40;
/// The most a frame's captured headers take.
pub const SNAPLEN: usize = ETHERNET + IPV4 + TCP + TCP_OPTIONS;
/// TCP flag bits (RFC 9293 §3.1, RFC 3168 §6.1).
const TCP_ACK: u8 = 0x10;
const TCP_ECE: u8 = 0x40;
/// IPv4's ECN field (RFC 3168 §5): ECT(0), CE.
const ECT0: u8 = 0b10;
const CE: u8 = 0b11;

/// How a flow's packets are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proto {
    /// The engine's TCP: each sequence number stands for `segment` bytes; an ACK whose header
    /// flags have bit `ece` echoes a congestion mark.
    Tcp { segment: u32, ece: u32 },
    /// Every other transport, as UDP.
    Udp,
}

/// Which links to capture, how each flow's packets look, and where the files go.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PcapSpec {
    /// Link names as results name them (`bottleneck`, `hop1.reverse`, `flow3.left`).
    pub links: Vec<String>,
    /// Per flow (counts expanded).
    pub flows: Vec<Proto>,
    /// The folder the files go in; `None` checks the link names and writes nothing.
    pub dir: Option<PathBuf>,
}

/// A capture file a run wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct PcapFile {
    pub link: String,
    pub path: PathBuf,
    /// Packets written.
    pub packets: u64,
}

struct Capture {
    out: BufWriter<File>,
    file: PcapFile,
}

/// Writes the packets that cross the captured links as they reach the links' far ends.
pub(crate) struct PcapWriter {
    /// Per run link: the index of its capture, or `NONE`.
    slot: Vec<u32>,
    captures: Vec<Capture>,
    flows: Vec<Proto>,
    frame: Vec<u8>,
    block: Vec<u8>,
    /// The first write that failed; the run goes on, its result says so.
    failed: Option<String>,
}

const NONE: u32 = u32::MAX;

impl PcapWriter {
    /// The writer `spec` asks for over the run's `links`; `None` when no folder is given. An
    /// unknown link name is an error naming `trace.pcap`.
    pub(crate) fn open(spec: &PcapSpec, links: &[LinkDef]) -> Result<Option<PcapWriter>> {
        let mut chosen = Vec::with_capacity(spec.links.len());
        for want in &spec.links {
            match links.iter().position(|l| l.name == want.as_str()) {
                Some(k) => chosen.push(k),
                None => {
                    let mut known: Vec<String> = (links.iter())
                        .filter(|l| matches!(l.name, Name::Given(_)))
                        .map(|l| format!("'{}'", l.name))
                        .collect();
                    known.push("'flowN.left', 'flowN.right' and their '.reverse'".into());
                    return Err(Error::UnknownName {
                        field: "trace.pcap".into(),
                        value: want.clone(),
                        known: known.join(", "),
                    });
                }
            }
        }
        let Some(dir) = &spec.dir else {
            return Ok(None);
        };
        let failed = |path: &Path, e: std::io::Error| {
            Error::invalid(
                "trace.pcap",
                format!("'{}'", path.display()),
                format!("a file the run can write ({e})"),
            )
        };
        std::fs::create_dir_all(dir).map_err(|e| failed(dir, e))?;
        let mut slot = vec![NONE; links.len()];
        let mut captures = Vec::with_capacity(chosen.len());
        let mut block = Vec::new();
        for (want, k) in spec.links.iter().zip(chosen) {
            if slot[k] != NONE {
                continue;
            }
            let path = dir.join(format!("{want}.pcapng"));
            let mut out = BufWriter::new(File::create(&path).map_err(|e| failed(&path, e))?);
            section_header(&mut block);
            out.write_all(&block).map_err(|e| failed(&path, e))?;
            interface(&mut block, want);
            out.write_all(&block).map_err(|e| failed(&path, e))?;
            slot[k] = captures.len() as u32;
            captures.push(Capture {
                out,
                file: PcapFile {
                    link: want.clone(),
                    path,
                    packets: 0,
                },
            });
        }
        Ok(Some(PcapWriter {
            slot,
            captures,
            flows: spec.flows.clone(),
            frame: Vec::with_capacity(SNAPLEN),
            block,
            failed: None,
        }))
    }

    /// `pkt` reached the far end of link `link` at `at`: written if the link is captured.
    #[inline]
    pub(crate) fn arrive(&mut self, link: u32, at: SimTime, pkt: &Packet) {
        let k = self.slot[link as usize];
        if k == NONE || self.failed.is_some() {
            return;
        }
        let proto = self.flows.get(pkt.flow as usize).copied();
        let wire = frame(&mut self.frame, pkt, proto.unwrap_or(Proto::Udp));
        enhanced_packet(&mut self.block, at, &self.frame, wire);
        let c = &mut self.captures[k as usize];
        match c.out.write_all(&self.block) {
            Ok(()) => c.file.packets += 1,
            Err(e) => self.failed = Some(format!("{}: {e}", c.file.path.display())),
        }
    }

    /// Flushes the files; what was written, or the first write that failed.
    pub(crate) fn finish(self) -> std::result::Result<Vec<PcapFile>, String> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let mut files = Vec::with_capacity(self.captures.len());
        for mut c in self.captures {
            c.out
                .flush()
                .map_err(|e| format!("{}: {e}", c.file.path.display()))?;
            files.push(c.file);
        }
        Ok(files)
    }
}

/// Appends option `code` with `value`, padded to 32 bits.
fn option(out: &mut Vec<u8>, code: u16, value: &[u8]) {
    out.extend(code.to_le_bytes());
    out.extend((value.len() as u16).to_le_bytes());
    out.extend(value);
    pad(out);
}

fn pad(out: &mut Vec<u8>) {
    out.resize(out.len().next_multiple_of(4), 0);
}

/// Starts a block of `kind` in `out` (emptied); [`close`] sets its length.
fn open(out: &mut Vec<u8>, kind: u32) {
    out.clear();
    out.extend(kind.to_le_bytes());
    out.extend(0u32.to_le_bytes());
}

/// Ends the block in `out`: its total length, at both ends.
fn close(out: &mut Vec<u8>) {
    let total = (out.len() + 4) as u32;
    out[4..8].copy_from_slice(&total.to_le_bytes());
    out.extend(total.to_le_bytes());
}

/// A Section Header Block: little-endian, version 1.0, length unknown, naming ccscope and its
/// version (no clock time: a run's files are the same every time).
fn section_header(out: &mut Vec<u8>) {
    open(out, SECTION_HEADER);
    out.extend(0x1A2B_3C4Du32.to_le_bytes());
    out.extend(1u16.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out.extend((-1i64).to_le_bytes());
    let app = concat!("ccscope ", env!("CARGO_PKG_VERSION"));
    option(out, SHB_USERAPPL, app.as_bytes());
    option(out, OPT_END, &[]);
    close(out);
}

/// An Interface Description Block for the link `name`: Ethernet, headers only, nanoseconds.
fn interface(out: &mut Vec<u8>, name: &str) {
    open(out, INTERFACE_DESCRIPTION);
    out.extend(LINKTYPE_ETHERNET.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out.extend((SNAPLEN as u32).to_le_bytes());
    option(out, IF_NAME, name.as_bytes());
    option(out, IF_TSRESOL, &[NANOSECONDS]);
    option(out, OPT_END, &[]);
    close(out);
}

/// An Enhanced Packet Block on interface 0 at `at`: the captured `frame`, of `wire` bytes.
fn enhanced_packet(out: &mut Vec<u8>, at: SimTime, frame: &[u8], wire: u32) {
    open(out, ENHANCED_PACKET);
    out.extend(0u32.to_le_bytes());
    let ns = at.ns();
    out.extend(((ns >> 32) as u32).to_le_bytes());
    out.extend((ns as u32).to_le_bytes());
    out.extend((frame.len() as u32).to_le_bytes());
    out.extend(wire.to_le_bytes());
    out.extend(frame);
    pad(out);
    close(out);
}

/// Flow `flow`'s host on `side` (0: sender, 1: receiver) and its port.
fn host(flow: u32, side: u8) -> ([u8; 4], u16) {
    let [_, _, hi, lo] = flow.to_be_bytes();
    let port = [10_000, 20_000][side as usize] + (flow >> 16) as u16;
    ([10, 1 + side, hi, lo], port)
}

/// The Internet checksum (RFC 1071) of `bytes`.
fn checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes
        .chunks(2)
        .map(|c| u32::from(c[0]) << 8 | u32::from(*c.get(1).unwrap_or(&0)))
        .sum();
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

/// Writes `pkt`'s headers into `out`; returns the frame's length on the wire.
fn frame(out: &mut Vec<u8>, pkt: &Packet, proto: Proto) -> u32 {
    let forward = pkt.dir == Dir::Forward;
    let (src, dst) = if forward { (0, 1) } else { (1, 0) };
    let ((src_ip, src_port), (dst_ip, dst_port)) = (host(pkt.flow, src), host(pkt.flow, dst));
    out.clear();
    // Ethernet: locally administered addresses, one per end of the link's direction.
    out.extend([0x02, 0, 0, 0, 0, 1 + dst]);
    out.extend([0x02, 0, 0, 0, 0, 1 + src]);
    out.extend(0x0800u16.to_be_bytes());
    let ip = out.len();
    out.resize(ip + IPV4, 0);
    let l4 = out.len();
    let protocol = match proto {
        Proto::Tcp { segment, ece } => {
            tcp(out, pkt, (segment, ece), src_port, dst_port);
            6
        }
        Proto::Udp => {
            out.extend(src_port.to_be_bytes());
            out.extend(dst_port.to_be_bytes());
            out.extend([0; 4]);
            17
        }
    };
    let total = (pkt.size_bytes as usize).clamp(out.len() - ip, u16::MAX as usize);
    if protocol == 17 {
        out[l4 + 4..l4 + 6].copy_from_slice(&((total - IPV4) as u16).to_be_bytes());
    }
    let h = &mut out[ip..l4];
    h[0] = 0x45;
    h[1] = match (pkt.ecn.capable, pkt.ecn.congestion) {
        (_, true) => CE,
        (true, false) => ECT0,
        _ => 0,
    };
    h[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    // Don't fragment; identification 0 (RFC 6864 §4.1).
    h[6] = 0x40;
    h[8] = 64;
    h[9] = protocol;
    h[12..16].copy_from_slice(&src_ip);
    h[16..20].copy_from_slice(&dst_ip);
    let sum = checksum(h);
    h[10..12].copy_from_slice(&sum.to_be_bytes());
    (ETHERNET + total) as u32
}

/// TCP's header and options for `pkt`, sequence numbers in bytes of `segment`, ECN-Echo from
/// the header's flag `ece`.
fn tcp(out: &mut Vec<u8>, pkt: &Packet, (segment, ece): (u32, u32), src_port: u16, dst_port: u16) {
    let bytes = |n: u64| (n.wrapping_mul(u64::from(segment))) as u32;
    let h = &pkt.header;
    let (seq, ack, mut flags) = if pkt.dir == Dir::Forward {
        (bytes(h.seq), 0, TCP_ACK)
    } else {
        (0, bytes(h.ack), TCP_ACK)
    };
    let start = out.len();
    out.extend(src_port.to_be_bytes());
    out.extend(dst_port.to_be_bytes());
    out.extend(seq.to_be_bytes());
    out.extend(ack.to_be_bytes());
    out.extend([0, 0]);
    out.extend(u16::MAX.to_be_bytes());
    out.extend([0; 4]);
    if pkt.dir == Dir::Reverse {
        if h.flags & ece != 0 {
            flags |= TCP_ECE;
        }
        let blocks: Vec<[u32; 2]> = (h.blocks.chunks(2))
            .filter(|b| b[1] > b[0])
            .map(|b| [bytes(b[0].into()), bytes(b[1].into())])
            .collect();
        if !blocks.is_empty() {
            out.extend([1, 1, 5, 2 + 8 * blocks.len() as u8]);
            for [l, r] in blocks {
                out.extend(l.to_be_bytes());
                out.extend(r.to_be_bytes());
            }
        }
    }
    let words = (out.len() - start) / 4;
    out[start + 12] = (words as u8) << 4;
    out[start + 13] = flags;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Ecn, Header};

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    /// Every block: a length that is a multiple of 4, the same at both ends.
    fn check_block(b: &[u8], kind: u32) {
        assert_eq!(u32_at(b, 0), kind);
        let len = u32_at(b, 4) as usize;
        assert_eq!(len, b.len());
        assert_eq!(len % 4, 0);
        assert_eq!(u32_at(b, len - 4) as usize, len);
    }

    #[test]
    fn blocks_are_padded_to_32_bits_and_carry_their_length_at_both_ends() {
        let mut b = Vec::new();
        section_header(&mut b);
        check_block(&b, SECTION_HEADER);
        assert_eq!(u32_at(&b, 8), 0x1A2B_3C4D);
        // "bottleneck" (10 bytes) pads to 12.
        interface(&mut b, "bottleneck");
        check_block(&b, INTERFACE_DESCRIPTION);
        assert_eq!(b.len(), 8 + 8 + (4 + 12) + (4 + 4) + 4 + 4);
        assert_eq!(&b[16..20], [2, 0, 10, 0]);
        let frame = [7u8; 54];
        enhanced_packet(&mut b, SimTime((5 << 32) + 9), &frame, 1514);
        check_block(&b, ENHANCED_PACKET);
        assert_eq!(b.len(), 28 + 56 + 4);
        assert_eq!([u32_at(&b, 12), u32_at(&b, 16)], [5, 9]);
        assert_eq!([u32_at(&b, 20), u32_at(&b, 24)], [54, 1514]);
        assert_eq!(&b[82..84], [0, 0]);
    }

    #[test]
    fn a_sack_ack_carries_byte_numbers_ece_and_its_blocks() {
        let mut ack = Packet {
            flow: 258,
            dir: Dir::Reverse,
            size_bytes: 40,
            ecn: Ecn {
                capable: true,
                congestion: false,
            },
            header: Header {
                ack: 3,
                flags: 4,
                blocks: [5, 7, 9, 10, 0, 0],
                ..Header::default()
            },
            ..Packet::default()
        };
        let mut f = Vec::new();
        let wire = frame(
            &mut f,
            &ack,
            Proto::Tcp {
                segment: 1000,
                ece: 4,
            },
        );
        // 20 bytes of TCP header, 2 NOPs and a SACK option of two blocks.
        assert_eq!(f.len(), 14 + 20 + 20 + 4 + 16);
        assert_eq!(wire as usize, f.len(), "headers longer than the ACK's size");
        let ip = &f[14..34];
        assert_eq!(
            (ip[1], &ip[12..16], &ip[16..20]),
            (ECT0, &[10, 2, 1, 2][..], &[10, 1, 1, 2][..])
        );
        assert_eq!(checksum(ip), 0);
        let t = &f[34..];
        assert_eq!(u32::from_be_bytes(t[8..12].try_into().unwrap()), 3000);
        assert_eq!((t[12] >> 4, t[13]), (10, TCP_ACK | TCP_ECE));
        assert_eq!(&t[20..24], [1, 1, 5, 18]);
        let edges: Vec<u32> = (t[24..40].chunks(4))
            .map(|c| u32::from_be_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(edges, [5000, 7000, 9000, 10000]);
        // A data packet: its size is the IP length, its sequence number in bytes.
        ack.dir = Dir::Forward;
        ack.size_bytes = 1040;
        ack.header.seq = 4;
        ack.ecn.congestion = true;
        let wire = frame(
            &mut f,
            &ack,
            Proto::Tcp {
                segment: 1000,
                ece: 4,
            },
        );
        assert_eq!((f.len(), wire), (54, 1054));
        assert_eq!(u16::from_be_bytes([f[16], f[17]]), 1040);
        assert_eq!(f[15], CE);
        assert_eq!(u32::from_be_bytes(f[38..42].try_into().unwrap()), 4000);
    }
}
