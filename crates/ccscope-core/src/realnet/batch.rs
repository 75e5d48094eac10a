//! Many datagrams a system call: `recvmmsg(2)` and `sendmmsg(2)`.
//!
//! A reader decodes only a datagram's fixed layout ([`wire::LAYOUT_BYTES`]); the padding that
//! makes a datagram as large as its packet is there for the bytes on the wire. An [`Inbox`]
//! therefore reads each datagram into a slot just large enough for the layout and lets the
//! kernel cut the rest (`MSG_TRUNC` in its flags), so a batch of many datagrams copies little.
//! An [`Outbox`] queues whole datagrams for one address and sends them together.

use std::io;
use std::net::SocketAddr;
use std::os::fd::RawFd;

use super::wire;

/// Datagrams at most a system call.
const BATCH: usize = 64;
/// A slot's bytes: the layout, rounded up.
const SLOT: usize = wire::LAYOUT_BYTES.next_multiple_of(64);

/// Datagrams read from a socket, each cut to its layout.
pub struct Inbox {
    slots: Vec<[u8; SLOT]>,
    lens: [usize; BATCH],
    count: usize,
}

impl Default for Inbox {
    fn default() -> Self {
        Inbox {
            slots: vec![[0; SLOT]; BATCH],
            lens: [0; BATCH],
            count: 0,
        }
    }
}

impl Inbox {
    /// Reads the datagrams waiting on `fd`, as many as a batch holds, without blocking;
    /// how many (0: none was waiting).
    pub fn recv(&mut self, fd: RawFd) -> io::Result<usize> {
        let mut iovs: [libc::iovec; BATCH] = std::array::from_fn(|i| libc::iovec {
            iov_base: self.slots[i].as_mut_ptr().cast(),
            iov_len: SLOT,
        });
        // SAFETY: zeroed mmsghdr is a valid empty header; every pointer set below points
        // into `iovs` and `self.slots`, which outlive the call.
        let mut msgs: [libc::mmsghdr; BATCH] = unsafe { std::mem::zeroed() };
        for (m, iov) in msgs.iter_mut().zip(iovs.iter_mut()) {
            m.msg_hdr.msg_iov = iov;
            m.msg_hdr.msg_iovlen = 1;
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
        for (len, m) in self.lens.iter_mut().zip(&msgs).take(self.count) {
            *len = (m.msg_len as usize).min(SLOT);
        }
        Ok(self.count)
    }

    /// The datagrams of the last [`Inbox::recv`], each cut to its layout.
    pub fn datagrams(&self) -> impl Iterator<Item = &[u8]> {
        (self.slots.iter().zip(&self.lens))
            .take(self.count)
            .map(|(slot, &len)| &slot[..len])
    }
}

/// Datagrams queued for one address, sent together.
pub struct Outbox {
    to: libc::sockaddr_in,
    bytes: Vec<u8>,
    ends: Vec<usize>,
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
        })
    }

    /// Queues one datagram.
    pub fn push(&mut self, datagram: &[u8]) {
        self.bytes.extend_from_slice(datagram);
        self.ends.push(self.bytes.len());
    }

    /// Sends the queued datagrams on `fd`, as many a system call as a batch holds. A socket
    /// whose buffer is full loses the rest, as a host's send into a full buffer does.
    pub fn flush(&mut self, fd: RawFd) -> io::Result<()> {
        // SAFETY: zeroed iovec and mmsghdr are valid empty values; the pointers set below
        // point into `self.bytes`, `iovs` and `self.to`, which outlive the calls.
        let mut iovs: [libc::iovec; BATCH] = unsafe { std::mem::zeroed() };
        let mut msgs: [libc::mmsghdr; BATCH] = unsafe { std::mem::zeroed() };
        let mut sent = 0;
        while sent < self.ends.len() {
            let chunk = (self.ends.len() - sent).min(BATCH);
            let mut from = if sent == 0 { 0 } else { self.ends[sent - 1] };
            for j in 0..chunk {
                let end = self.ends[sent + j];
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
            }
            // SAFETY: `msgs` holds `chunk` valid headers; the socket is non-blocking.
            let n = unsafe { libc::sendmmsg(fd, msgs.as_mut_ptr(), chunk as libc::c_uint, 0) };
            if n < 0 {
                let e = io::Error::last_os_error();
                match e.kind() {
                    io::ErrorKind::Interrupted => continue,
                    io::ErrorKind::WouldBlock => break,
                    _ => {
                        self.clear();
                        return Err(e);
                    }
                }
            }
            // Fewer than asked: the next is tried again, and a full buffer then loses the rest.
            sent += n as usize;
        }
        self.clear();
        Ok(())
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }
}
