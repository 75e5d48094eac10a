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
//! An inbox may also read the time the kernel received each datagram, on a socket that asks
//! for it (`SO_TIMESTAMPNS`, socket(7)): on a veth pair, when the sending end's qdisc let it
//! through (the peer stamps a packet as `__netif_rx` takes it, net/core/dev.c
//! `net_timestamp_check`), whenever the reader gets to it.
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
/// Room for a control message of an `int` and one of a `timespec` (8-byte aligned:
/// `CMSG_SPACE(4)` is 24 and `CMSG_SPACE(16)` 32 on a 64-bit machine).
type Control = [u64; 7];

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
    /// Whether to read each message's time of receipt.
    stamped: bool,
    /// Each message's time of receipt, in ns of the realtime clock (0: none given).
    stamps: [u64; BATCH],
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
            stamped: false,
            stamps: [0; BATCH],
            controls: [[0; 7]; BATCH],
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

    /// An inbox that gives each datagram the time the kernel received it (a coalesced run, the
    /// time of its message) from a socket that asks for it (`SO_TIMESTAMPNS`;
    /// [`Inbox::received`]).
    pub fn stamped() -> Inbox {
        Inbox {
            stamped: true,
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
        let controlled = coalescing || self.stamped;
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
            if controlled {
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
        for (((m, len), segment), stamp) in msgs
            .iter()
            .zip(&mut self.lens)
            .zip(&mut self.segments)
            .zip(&mut self.stamps)
            .take(self.count)
        {
            *len = (m.msg_len as usize).min(slot);
            (*segment, *stamp) = if controlled {
                read_controls(&m.msg_hdr)
            } else {
                (0, 0)
            };
        }
        Ok(self.count)
    }

    /// The datagrams of the last [`Inbox::recv`], each cut to its layout (or whole, when the
    /// socket coalesces).
    pub fn datagrams(&self) -> impl Iterator<Item = &[u8]> {
        self.received().map(|(_, datagram)| datagram)
    }

    /// The datagrams of the last [`Inbox::recv`] as [`Inbox::datagrams`], each with the time
    /// the kernel received it, in ns of the realtime clock (`CLOCK_REALTIME`), if it gave one.
    pub fn received(&self) -> impl Iterator<Item = (Option<u64>, &[u8])> {
        (0..self.count).flat_map(move |i| {
            let bytes = &self.bufs[i * self.slot..i * self.slot + self.lens[i]];
            let size = match self.segments[i] {
                0 => bytes.len().max(1),
                s => s,
            };
            let stamp = Some(self.stamps[i]).filter(|&t| t > 0);
            bytes.chunks(size).map(move |d| (stamp, d))
        })
    }
}

/// A message's control messages: the datagram size of a coalesced message (`UDP_GRO`; 0 if
/// it holds one datagram) and its time of receipt (`SCM_TIMESTAMPNS`, in ns of the realtime
/// clock; 0 if none).
fn read_controls(hdr: &libc::msghdr) -> (usize, u64) {
    let (mut size, mut stamp) = (0, 0);
    // SAFETY: the kernel filled `hdr`'s control buffer, whose length it set; CMSG_FIRSTHDR and
    // CMSG_NXTHDR stay within it, CMSG_DATA of a UDP_GRO message holds an int and that of an
    // SCM_TIMESTAMPNS message a timespec.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(hdr);
        while !c.is_null() {
            let data = libc::CMSG_DATA(c);
            match ((*c).cmsg_level, (*c).cmsg_type) {
                (libc::SOL_UDP, libc::UDP_GRO) => {
                    let s = std::ptr::read_unaligned(data as *const libc::c_int);
                    size = usize::try_from(s).unwrap_or(0);
                }
                (libc::SOL_SOCKET, libc::SCM_TIMESTAMPNS) => {
                    let t = std::ptr::read_unaligned(data as *const libc::timespec);
                    stamp = u64::try_from(t.tv_sec).unwrap_or(0) * 1_000_000_000
                        + u64::try_from(t.tv_nsec).unwrap_or(0);
                }
                _ => {}
            }
            c = libc::CMSG_NXTHDR(hdr, c);
        }
    }
    (size, stamp)
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
        let mut controls: [Control; BATCH] = [[0; 7]; BATCH];
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
    use crate::realnet::realtime_ns;
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

    /// A stamped inbox read 50 ms after the send gives each datagram the time the kernel
    /// received it: before the read by about those 50 ms, after the send. Loopback delivers
    /// within the send's system call, so the stamp is at most a scheduler's slice after it
    /// (10 ms is generous for any scheduler; the sleep only lengthens).
    #[test]
    fn a_late_reader_gets_the_time_the_kernel_received_each_datagram() {
        let (a, b) = (
            UdpSocket::bind("127.0.0.1:0").unwrap(),
            UdpSocket::bind("127.0.0.1:0").unwrap(),
        );
        let mut inbox = Inbox::stamped();
        assert!(int_option(
            b.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMPNS,
            1
        ));
        // The first socket to ask turns the kernel's stamping on from a work queue
        // (net/core/dev.c `net_enable_timestamp`); until then a datagram is stamped as read.
        std::thread::sleep(std::time::Duration::from_millis(20));
        let sent = realtime_ns();
        for i in 0..3u8 {
            a.send_to(&[i; 100], b.local_addr().unwrap()).unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        let read = realtime_ns();
        assert_eq!(inbox.recv(b.as_raw_fd()).unwrap(), 3);
        let got: Vec<_> = inbox.received().collect();
        assert_eq!(got.len(), 3);
        for (i, (stamp, d)) in got.into_iter().enumerate() {
            assert_eq!(d[0], i as u8);
            let stamp = stamp.expect("loopback sockets take SO_TIMESTAMPNS");
            assert!(
                stamp >= sent && stamp < sent + 10_000_000,
                "{stamp} vs sent {sent}"
            );
            assert!(read - stamp >= 40_000_000, "read {read} vs stamp {stamp}");
        }
        // An inbox that asks for none on its socket gets none.
        let (c, mut plain) = (UdpSocket::bind("127.0.0.1:0").unwrap(), Inbox::default());
        a.send_to(&[7; 100], c.local_addr().unwrap()).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(plain.recv(c.as_raw_fd()).unwrap(), 1);
        assert_eq!(plain.received().next().map(|(t, _)| t), Some(None));
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
