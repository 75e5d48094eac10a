//! Many datagrams a system call: `recvmmsg(2)` and `sendmmsg(2)`, and many datagrams a pass
//! through the kernel's UDP stack where the kernel offers segmentation offload (`UDP_SEGMENT`)
//! and receive coalescing (`UDP_GRO`), both in Linux since 4.18/5.0 (udp(7)).
//!
//! A reader decodes only a datagram's fixed layout ([`wire::LAYOUT_BYTES`]); the padding that
//! makes a datagram as large as its packet is there for the bytes on the wire. Without
//! coalescing, an [`Inbox`] therefore reads each datagram into a slot just large enough for the
//! layout and lets the kernel cut the rest (`MSG_TRUNC` in its flags), so a batch of many
//! datagrams copies little. With `UDP_GRO` on its socket, the kernel hands over a run of
//! datagrams of one size that a sender sent together as one buffer (the size in a control
//! message), which the inbox reads whole and splits again: one wake-up and one pass through
//! the socket's queue for the run rather than one per datagram.
//!
//! An [`Outbox`] queues whole datagrams for one address and sends them together; with
//! `UDP_SEGMENT`, each run of up to [`MAX_SEGMENTS`] queued datagrams of one size goes as
//! one buffer that the kernel cuts into those datagrams (on loopback, only at the receiving
//! socket, and not at all at one that coalesces). Where the kernel has neither option, or
//! refuses a segmented send, both fall back to one datagram a message.

use std::io;
use std::net::SocketAddr;
use std::os::fd::RawFd;

use super::wire;

/// Messages at most a system call.
pub const BATCH: usize = 64;
/// A slot's bytes without coalescing: the layout, rounded up.
const SLOT: usize = wire::LAYOUT_BYTES.next_multiple_of(64);
/// A slot's bytes with coalescing: the largest UDP payload, rounded up.
const GRO_SLOT: usize = 65536;
/// Datagrams at most in one segmented send (`UDP_MAX_SEGMENTS`, include/linux/udp.h).
pub const MAX_SEGMENTS: usize = 64;
/// Bytes at most in one segmented send: a UDP payload over IPv4 (65535 less 20 and 8 bytes of
/// headers).
const MAX_PAYLOAD: usize = 65507;
/// Room for one control message of an `int` (8-byte aligned: `CMSG_SPACE(4)` is 24 on a
/// 64-bit machine).
type Control = [u64; 4];

/// Sets an `int` option of `level` on `fd`; whether the kernel took it.
pub(super) fn int_option(
    fd: RawFd,
    level: libc::c_int,
    name: libc::c_int,
    value: libc::c_int,
) -> bool {
    // SAFETY: a valid descriptor and an int of the size given.
    unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&value as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        ) == 0
    }
}

/// Datagrams read from a socket, each cut to its layout unless the socket coalesces.
pub struct Inbox {
    /// Whether `UDP_GRO` is on, once the first [`Inbox::recv`] has asked for it; `Some(false)`
    /// leaves it off.
    gro: Option<bool>,
    bufs: Vec<u8>,
    slot: usize,
    /// Each message's bytes read, and the size of the datagrams it coalesces (0: one).
    lens: [usize; BATCH],
    segments: [usize; BATCH],
    controls: [Control; BATCH],
    count: usize,
}

impl Default for Inbox {
    fn default() -> Self {
        Inbox {
            gro: None,
            bufs: Vec::new(),
            slot: SLOT,
            lens: [0; BATCH],
            segments: [0; BATCH],
            controls: [[0; 4]; BATCH],
            count: 0,
        }
    }
}

impl Inbox {
    /// An inbox that leaves coalescing off: each message one datagram, so a read takes at most
    /// [`BATCH`] of them (with coalescing, up to `BATCH` runs of up to 64).
    pub fn one_each() -> Inbox {
        Inbox {
            gro: Some(false),
            ..Inbox::default()
        }
    }

    /// Whether the socket coalesces runs of datagrams (known after the first read).
    pub fn coalescing(&self) -> bool {
        self.gro == Some(true)
    }

    /// Reads the messages waiting on `fd`, as many as a batch holds, without blocking;
    /// how many (0: none was waiting).
    pub fn recv(&mut self, fd: RawFd) -> io::Result<usize> {
        if self.gro.is_none() {
            let on = int_option(fd, libc::SOL_UDP, libc::UDP_GRO, 1);
            self.gro = Some(on);
            self.slot = if on { GRO_SLOT } else { SLOT };
        }
        if self.bufs.is_empty() {
            self.bufs = vec![0; BATCH * self.slot];
        }
        let slot = self.slot;
        let coalescing = self.coalescing();
        let mut iovs: [libc::iovec; BATCH] = std::array::from_fn(|i| libc::iovec {
            iov_base: self.bufs[i * slot..].as_mut_ptr().cast(),
            iov_len: slot,
        });
        // SAFETY: zeroed mmsghdr is a valid empty header; every pointer set below points
        // into `iovs`, `self.bufs` and `self.controls`, which outlive the call.
        let mut msgs: [libc::mmsghdr; BATCH] = unsafe { std::mem::zeroed() };
        for ((m, iov), control) in msgs.iter_mut().zip(iovs.iter_mut()).zip(&mut self.controls) {
            m.msg_hdr.msg_iov = iov;
            m.msg_hdr.msg_iovlen = 1;
            if coalescing {
                m.msg_hdr.msg_control = control.as_mut_ptr().cast();
                m.msg_hdr.msg_controllen = std::mem::size_of::<Control>();
            }
        }
        // SAFETY: `msgs` holds BATCH valid headers; MSG_DONTWAIT never blocks.
        let n = unsafe {
            libc::recvmmsg(
                fd,
                msgs.as_mut_ptr(),
                BATCH as libc::c_uint,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            self.count = 0;
            return match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(0),
                _ => Err(e),
            };
        }
        self.count = n as usize;
        for ((m, len), segment) in msgs
            .iter()
            .zip(&mut self.lens)
            .zip(&mut self.segments)
            .take(self.count)
        {
            *len = (m.msg_len as usize).min(slot);
            *segment = if coalescing {
                segment_size(&m.msg_hdr)
            } else {
                0
            };
        }
        Ok(self.count)
    }

    /// The datagrams of the last [`Inbox::recv`], each cut to its layout (or whole, when the
    /// socket coalesces).
    pub fn datagrams(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.count).flat_map(move |i| {
            let bytes = &self.bufs[i * self.slot..i * self.slot + self.lens[i]];
            let size = match self.segments[i] {
                0 => bytes.len().max(1),
                s => s,
            };
            bytes.chunks(size)
        })
    }
}

/// The datagram size of a coalesced message (its `UDP_GRO` control message), 0 if it holds one
/// datagram.
fn segment_size(hdr: &libc::msghdr) -> usize {
    // SAFETY: the kernel filled `hdr`'s control buffer, whose length it set; CMSG_FIRSTHDR and
    // CMSG_NXTHDR stay within it, and CMSG_DATA of a UDP_GRO message holds an int.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(hdr);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_UDP && (*c).cmsg_type == libc::UDP_GRO {
                let size = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::c_int);
                return usize::try_from(size).unwrap_or(0);
            }
            c = libc::CMSG_NXTHDR(hdr, c);
        }
    }
    0
}

/// Datagrams queued for one address, sent together.
pub struct Outbox {
    to: libc::sockaddr_in,
    bytes: Vec<u8>,
    ends: Vec<usize>,
    /// Whether segmented sends work on the socket: unknown until the first flush, and false
    /// from the first one the kernel refuses.
    gso: Option<bool>,
    /// The datagrams lost to a full send buffer so far.
    pub refused: u64,
}

impl Outbox {
    /// An outbox for `to`, an IPv4 address (the run's sockets are on 127.0.0.1).
    pub fn new(to: SocketAddr) -> io::Result<Outbox> {
        let SocketAddr::V4(to) = to else {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "an IPv4 address to send to",
            ));
        };
        Ok(Outbox {
            to: libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: to.port().to_be(),
                sin_addr: libc::in_addr {
                    s_addr: u32::from(*to.ip()).to_be(),
                },
                sin_zero: [0; 8],
            },
            bytes: Vec::new(),
            ends: Vec::new(),
            gso: None,
            refused: 0,
        })
    }

    /// Queues one datagram.
    pub fn push(&mut self, datagram: &[u8]) {
        self.bytes.extend_from_slice(datagram);
        self.ends.push(self.bytes.len());
    }

    /// The queued datagrams from `first` on, as messages of one datagram or (with `gso`) of a
    /// run of datagrams of one size: each message's end (into `ends`) and datagram size (0 for
    /// one datagram), at most `BATCH` of them.
    fn messages(&self, first: usize, gso: bool, out: &mut Vec<(usize, usize)>) {
        out.clear();
        let len = |k: usize| self.ends[k] - if k == 0 { 0 } else { self.ends[k - 1] };
        let mut k = first;
        while k < self.ends.len() && out.len() < BATCH {
            let size = len(k);
            let mut last = k;
            if gso {
                while last + 1 < self.ends.len()
                    && last + 1 - k < MAX_SEGMENTS
                    && len(last + 1) == size
                    && (last + 2 - k) * size <= MAX_PAYLOAD
                {
                    last += 1;
                }
            }
            out.push((last, if last > k { size } else { 0 }));
            k = last + 1;
        }
    }

    /// Sends the queued datagrams on `fd`, as many messages a system call as a batch holds. A
    /// socket whose buffer is full loses the rest, as a host's send into a full buffer does
    /// (counted in [`Outbox::refused`]).
    pub fn flush(&mut self, fd: RawFd) -> io::Result<()> {
        if self.gso.is_none() {
            // UDP_SEGMENT of 0 leaves sends as they are; a kernel without it refuses the option.
            self.gso = Some(int_option(fd, libc::SOL_UDP, libc::UDP_SEGMENT, 0));
        }
        // SAFETY: zeroed iovec and mmsghdr are valid empty values; the pointers set below
        // point into `self.bytes`, `iovs`, `controls` and `self.to`, which outlive the calls.
        let mut iovs: [libc::iovec; BATCH] = unsafe { std::mem::zeroed() };
        let mut msgs: [libc::mmsghdr; BATCH] = unsafe { std::mem::zeroed() };
        let mut controls: [Control; BATCH] = [[0; 4]; BATCH];
        let mut messages = Vec::with_capacity(BATCH);
        let mut sent = 0;
        while sent < self.ends.len() {
            let gso = self.gso == Some(true);
            self.messages(sent, gso, &mut messages);
            let mut from = if sent == 0 { 0 } else { self.ends[sent - 1] };
            for (j, &(last, size)) in messages.iter().enumerate() {
                let end = self.ends[last];
                iovs[j] = libc::iovec {
                    iov_base: self.bytes[from..end].as_ptr() as *mut libc::c_void,
                    iov_len: end - from,
                };
                from = end;
                let h = &mut msgs[j].msg_hdr;
                h.msg_iov = &mut iovs[j];
                h.msg_iovlen = 1;
                h.msg_name = (&mut self.to as *mut libc::sockaddr_in).cast();
                h.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as u32;
                if size > 0 {
                    segmented(h, &mut controls[j], size as u16);
                } else {
                    h.msg_control = std::ptr::null_mut();
                    h.msg_controllen = 0;
                }
            }
            let chunk = messages.len();
            // SAFETY: `msgs` holds `chunk` valid headers; the socket is non-blocking.
            let n = unsafe { libc::sendmmsg(fd, msgs.as_mut_ptr(), chunk as libc::c_uint, 0) };
            if n < 0 {
                let e = io::Error::last_os_error();
                match e.kind() {
                    io::ErrorKind::Interrupted => continue,
                    io::ErrorKind::WouldBlock => break,
                    // A kernel (or device) that cannot segment this send: one datagram a
                    // message from here on.
                    _ if gso && matches!(e.raw_os_error(), Some(libc::EIO | libc::EINVAL)) => {
                        self.gso = Some(false);
                        continue;
                    }
                    _ => {
                        self.clear();
                        return Err(e);
                    }
                }
            }
            // Fewer than asked: the next is tried again, and a full buffer then loses the rest.
            sent = match (n as usize).checked_sub(1) {
                Some(k) => messages[k].0 + 1,
                None => sent,
            };
            if n == 0 {
                break;
            }
        }
        self.refused += (self.ends.len() - sent) as u64;
        self.clear();
        Ok(())
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }
}

/// Points `h`'s control buffer at `control`, holding one `UDP_SEGMENT` message of `size`.
fn segmented(h: &mut libc::msghdr, control: &mut Control, size: u16) {
    h.msg_control = control.as_mut_ptr().cast();
    // SAFETY: CMSG_SPACE and CMSG_LEN are arithmetic; the header CMSG_FIRSTHDR returns lies
    // within `control`, which holds CMSG_SPACE(2) bytes, and CMSG_DATA has room for a u16.
    unsafe {
        h.msg_controllen = libc::CMSG_SPACE(2) as usize;
        let c = libc::CMSG_FIRSTHDR(h);
        (*c).cmsg_level = libc::SOL_UDP;
        (*c).cmsg_type = libc::UDP_SEGMENT;
        (*c).cmsg_len = libc::CMSG_LEN(2) as usize;
        std::ptr::write_unaligned(libc::CMSG_DATA(c) as *mut u16, size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::UdpSocket;
    use std::os::fd::AsRawFd;

    /// Datagrams of mixed sizes, sent through an outbox and read through an inbox, come out
    /// whole, once each and in order, whether or not the kernel segments and coalesces (each
    /// way is tried).
    #[test]
    fn datagrams_cross_in_order_with_and_without_offloads() {
        for offloads in [false, true] {
            let (a, b) = (
                UdpSocket::bind("127.0.0.1:0").unwrap(),
                UdpSocket::bind("127.0.0.1:0").unwrap(),
            );
            let to = b.local_addr().unwrap();
            let (mut outbox, mut inbox) = (Outbox::new(to).unwrap(), Inbox::default());
            if !offloads {
                outbox.gso = Some(false);
                inbox.gro = Some(false);
            }
            // Runs of one size (data, then ACK-sized), a run longer than a segmented send
            // takes, and sizes that change from one datagram to the next.
            let sizes: Vec<usize> = (0..150)
                .map(|i| match i {
                    0..70 => 1000,
                    70..90 => SLOT,
                    90..120 => [SLOT, 1000, 1200][i % 3],
                    _ => 1200,
                })
                .collect();
            let mut got = Vec::new();
            // Two flushes, each read before the next, so that the socket's default receive
            // buffer holds each.
            for part in [0..70, 70..sizes.len()] {
                for i in part {
                    let mut d = vec![0u8; sizes[i]];
                    d[..4].copy_from_slice(&(i as u32).to_le_bytes());
                    outbox.push(&d);
                }
                outbox.flush(a.as_raw_fd()).unwrap();
                while inbox.recv(b.as_raw_fd()).unwrap() > 0 {
                    for d in inbox.datagrams() {
                        got.push((u32::from_le_bytes(d[..4].try_into().unwrap()), d.len()));
                    }
                }
            }
            let want: Vec<(u32, usize)> = sizes
                .iter()
                .enumerate()
                .map(|(i, &n)| (i as u32, if inbox.coalescing() { n } else { n.min(SLOT) }))
                .collect();
            assert_eq!(got, want, "offloads asked for: {offloads}");
        }
    }

    #[test]
    fn runs_of_one_size_make_one_message_up_to_the_kernels_limits() {
        let mut outbox = Outbox::new("127.0.0.1:9".parse().unwrap()).unwrap();
        for n in [1000; 70].into_iter().chain([40, 40, 1000]) {
            outbox.push(&vec![0; n]);
        }
        let mut m = Vec::new();
        outbox.messages(0, true, &mut m);
        assert_eq!(m, vec![(63, 1000), (69, 1000), (71, 40), (72, 0)]);
        outbox.messages(0, false, &mut m);
        assert_eq!(m.len(), BATCH, "one datagram a message, a batch at a time");
        let mut big = Outbox::new("127.0.0.1:9".parse().unwrap()).unwrap();
        for _ in 0..3 {
            big.push(&vec![0; 30000]);
        }
        big.messages(0, true, &mut m);
        assert_eq!(m, vec![(1, 30000), (2, 0)], "at most 65507 bytes a send");
    }
}
