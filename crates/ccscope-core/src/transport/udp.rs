//! A plain datagram transport without congestion control, like UDP: the sender cuts what its
//! application offers into packets of at most `packet_bytes` and hands them to the network at
//! once; the receiver delivers every packet as it arrives. It carries CBR and Poisson sources
//! and anything else that paces itself.
//!
//! The sender asks its application for data only at the application's own times: at the
//! start and at the wake-ups it asks for ([`crate::apps`]). Header: data `seq` = sequence
//! number from 0; there is no reverse traffic.

use crate::apps::{Delivery, Inbox, Outbox, ReceiveApp, SendApp, TransportView};
use crate::net::packet::Packet;
use crate::net::trace::Probe;
use crate::net::{Ctx, Endpoint, Stat};

/// Timer of the application's wake-ups (sender and receiver).
const WAKE: usize = 0;

/// A flow's sender and receiver endpoints.
type Endpoints = (Box<dyn Endpoint>, Box<dyn Endpoint>);

/// The endpoints of a datagram flow of packets of at most `packet_bytes` (≥ 1): `app` sends,
/// `sink` receives.
pub fn endpoints(packet_bytes: u32, app: Box<dyn SendApp>, sink: Box<dyn ReceiveApp>) -> Endpoints {
    let sender = UdpSender {
        outbox: Outbox::new(app),
        packet_bytes: packet_bytes.max(1),
        sent: 0,
        running: false,
    };
    (
        Box::new(sender),
        Box::new(UdpReceiver {
            inbox: Inbox::new(sink),
        }),
    )
}

/// The sending side.
struct UdpSender {
    outbox: Outbox,
    /// Largest packet (bytes on the wire).
    packet_bytes: u32,
    /// Packets sent so far (also the next sequence number).
    sent: u64,
    running: bool,
}

impl UdpSender {
    fn view(&self, ctx: &Ctx) -> TransportView {
        TransportView {
            now: ctx.now(),
            rate_bps: f64::INFINITY,
            window_pkts: 0.0,
            packet_bytes: self.packet_bytes,
        }
    }

    /// Sends everything offered, then arms the wake-up the application asked for.
    fn flush(&mut self, ctx: &mut Ctx) {
        while let Some(chunk) = self.outbox.take(self.packet_bytes) {
            let mut pkt = Packet {
                size_bytes: chunk.bytes,
                tag: chunk.tag,
                ..Packet::default()
            };
            pkt.header.seq = self.sent;
            ctx.send(pkt);
            self.sent += 1;
            if self.outbox.watches_progress() {
                self.outbox.sent(ctx, self.view(ctx), &chunk);
            }
        }
        self.outbox.arm(ctx, WAKE);
    }
}

impl Endpoint for UdpSender {
    fn start(&mut self, ctx: &mut Ctx) {
        self.running = true;
        self.outbox.start(ctx, self.view(ctx));
        self.flush(ctx);
    }

    fn stop(&mut self, ctx: &mut Ctx) {
        self.running = false;
        self.outbox.stop(ctx, self.view(ctx), WAKE);
    }

    fn on_timer(&mut self, ctx: &mut Ctx, _timer: usize) {
        if !self.running {
            return;
        }
        self.outbox.wake(ctx, self.view(ctx));
        self.flush(ctx);
    }

    /// The application's label (e.g. `CBR 1Mb/s`): the transport adds nothing to it.
    fn label(&self) -> String {
        self.outbox.label()
    }

    /// No window nor RTT; the rate is the application's own, while the flow runs.
    fn probe(&self) -> Probe {
        Probe {
            window_pkts: 0.0,
            rate_bps: match self.running {
                true => self.outbox.nominal_rate_bps().unwrap_or(0.0),
                false => 0.0,
            },
            srtt_s: 0.0,
        }
    }
}

/// The receiving side: every packet goes to the application as it arrives.
struct UdpReceiver {
    inbox: Inbox,
}

impl Endpoint for UdpReceiver {
    fn start(&mut self, ctx: &mut Ctx) {
        self.inbox.start(ctx);
        self.inbox.arm(ctx, WAKE);
    }

    fn stop(&mut self, ctx: &mut Ctx) {
        self.inbox.stop(ctx, WAKE);
    }

    fn on_packet(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        let d = Delivery {
            seq: pkt.header.seq,
            bytes: pkt.size_bytes,
            tag: pkt.tag,
            sent_at: pkt.sent_at,
            arrived_at: ctx.now(),
            resent: false,
        };
        self.inbox.deliver(ctx, &d);
        self.inbox.arm(ctx, WAKE);
    }

    fn on_timer(&mut self, ctx: &mut Ctx, _timer: usize) {
        self.inbox.wake(ctx);
        self.inbox.arm(ctx, WAKE);
    }

    fn stats(&self) -> Vec<(&'static str, Stat)> {
        self.inbox.stats()
    }

    fn series(&self) -> Vec<(&'static str, Vec<f64>)> {
        self.inbox.series()
    }
}
