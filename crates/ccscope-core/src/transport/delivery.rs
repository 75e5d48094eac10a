//! Delivery-rate estimation for a window-based sender, as draft-cheng-iccrg-delivery-rate-
//! estimation-02 specifies it and Linux implements it (`net/ipv4/tcp_rate.c`): each packet
//! remembers, when it is sent, how much had been delivered by then and when; the ACK that
//! delivers it yields the data delivered in between over the longer of the send and ACK
//! intervals, which neither ACK compression nor a burst of sends can inflate.
//!
//! Only controllers that ask for samples ([`crate::control::Controller::wants_delivery_rate`])
//! pay for the per-packet records.

use std::collections::VecDeque;

use crate::control::{DeliverySample, LostPacket};
use crate::time::SimTime;

/// What a packet remembers of its last transmission (the draft's per-packet state, §3.2).
#[derive(Clone, Copy, Debug)]
struct Sent {
    /// When the packet was (last) sent: P.sent_time.
    sent_time: SimTime,
    /// P.first_sent_time: the send time of the packet most recently delivered when this one was
    /// sent (the start of its send interval).
    first_sent_time: SimTime,
    /// P.delivered_time: when the connection last delivered data, as of this send.
    delivered_time: SimTime,
    /// P.delivered: packets delivered by the connection as of this send.
    delivered_pkts: u64,
    /// Bytes delivered as of this send.
    delivered_bytes: u64,
    /// Packets outstanding when it was sent, itself included.
    tx_in_flight: u64,
    /// P.lost: packets the connection had marked lost as of this send (draft-ietf-ccwg-bbr-06
    /// §4.1.2.1.2).
    lost_pkts: u64,
    /// Size on the wire (bytes).
    bytes: u32,
    /// P.is_app_limited.
    app_limited: bool,
    /// Delivered already (SACKed): a later cumulative ACK does not count it again.
    delivered: bool,
    /// Marked lost since it was last sent: it counts in C.lost once until it is sent again.
    marked_lost: bool,
}

/// The newest delivered packet among those one ACK delivered: the sample's anchor (rs).
#[derive(Clone, Copy, Debug)]
struct Anchor {
    sent_time: SimTime,
    prior_pkts: u64,
    prior_bytes: u64,
    send_elapsed: SimTime,
    ack_elapsed: SimTime,
    app_limited: bool,
    tx_in_flight: u64,
    prior_lost: u64,
}

/// The connection's delivery bookkeeping (the draft's C.* variables) and the records of the
/// packets outstanding, front = the lowest unacknowledged one.
#[derive(Clone, Debug, Default)]
pub(crate) struct DeliveryRate {
    sent: VecDeque<Sent>,
    /// C.delivered, in packets and in bytes.
    delivered_pkts: u64,
    delivered_bytes: u64,
    /// C.lost: packets marked lost so far (draft-ietf-ccwg-bbr-06 §2.2).
    lost_pkts: u64,
    /// C.delivered_time.
    delivered_time: SimTime,
    /// C.first_sent_time.
    first_sent_time: SimTime,
    /// C.app_limited: the delivered count at which the application-limited period ends, or 0
    /// when sending is not application-limited.
    app_limited: u64,
    /// The sample the current ACK is building.
    anchor: Option<Anchor>,
}

impl DeliveryRate {
    /// Packet `index` (counted from the lowest unacknowledged one; the next new packet when it
    /// equals the number outstanding) of `bytes` leaves at `now` with `outstanding` packets
    /// outstanding before it (§3.2 SendPacket).
    pub(crate) fn on_send(&mut self, index: usize, now: SimTime, bytes: u32, outstanding: u64) {
        if outstanding == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let record = Sent {
            sent_time: now,
            first_sent_time: self.first_sent_time,
            delivered_time: self.delivered_time,
            delivered_pkts: self.delivered_pkts,
            delivered_bytes: self.delivered_bytes,
            tx_in_flight: outstanding + 1,
            lost_pkts: self.lost_pkts,
            bytes,
            app_limited: self.app_limited != 0,
            delivered: false,
            marked_lost: false,
        };
        match self.sent.get_mut(index) {
            // A packet delivered already (SACKed, then resent by a go-back-N that forgot the
            // scoreboard) brings the receiver nothing new: its record stays delivered, so that
            // its next ACK does not count it again (a packet counts once: Linux
            // net/ipv4/tcp_rate.c `tcp_rate_skb_delivered` takes only packets not SACKed yet).
            Some(old) if old.delivered => {}
            Some(old) => *old = record,
            None => {
                debug_assert_eq!(index, self.sent.len());
                self.sent.push_back(record);
            }
        }
    }

    /// Packet `index` was delivered (acknowledged or SACKed) by an ACK at `now`; a packet
    /// delivered before counts once (§3.3 UpdateRateSample).
    pub(crate) fn on_delivered(&mut self, index: usize, now: SimTime) {
        let Some(p) = self.sent.get_mut(index) else {
            return;
        };
        if p.delivered {
            return;
        }
        p.delivered = true;
        let p = *p;
        self.delivered_pkts += 1;
        self.delivered_bytes += u64::from(p.bytes);
        self.delivered_time = now;
        // The newest packet delivered by this ACK (the one sent last; of packets sent at the
        // same instant, the highest) anchors the sample.
        if self.anchor.is_none_or(|a| p.sent_time >= a.sent_time) {
            self.anchor = Some(Anchor {
                sent_time: p.sent_time,
                prior_pkts: p.delivered_pkts,
                prior_bytes: p.delivered_bytes,
                send_elapsed: p.sent_time.saturating_sub(p.first_sent_time),
                ack_elapsed: now.saturating_sub(p.delivered_time),
                app_limited: p.app_limited,
                tx_in_flight: p.tx_in_flight,
                prior_lost: p.lost_pkts,
            });
            self.first_sent_time = p.sent_time;
        }
    }

    /// The transport marks packet `index` lost at `now`: C.lost counts it, once until it is
    /// sent again, and the controller hears of it with what it remembered of its sending
    /// (draft-ietf-ccwg-bbr-06 §5.5.10.2); none when it was delivered or is marked already.
    pub(crate) fn mark_lost(&mut self, index: usize, now: SimTime) -> Option<LostPacket> {
        let p = self.sent.get_mut(index)?;
        if p.delivered || p.marked_lost {
            return None;
        }
        p.marked_lost = true;
        self.lost_pkts += 1;
        Some(LostPacket {
            now,
            sent_at: p.sent_time,
            tx_in_flight_pkts: p.tx_in_flight,
            lost_pkts: self.lost_pkts - p.lost_pkts,
            app_limited: p.app_limited,
        })
    }

    /// C.delivered: packets delivered so far, each counted once.
    pub(crate) fn delivered_pkts(&self) -> u64 {
        self.delivered_pkts
    }

    /// Whether the sender is in an application-limited period (C.app_limited ≠ 0).
    pub(crate) fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// The `k` lowest packets were acknowledged cumulatively (after [`Self::on_delivered`]).
    pub(crate) fn forget(&mut self, k: usize) {
        self.sent.drain(..k.min(self.sent.len()));
    }

    /// The application, not the network, limits sending now, with `in_flight` packets in
    /// flight (§3.4): samples taken until what is in flight now is delivered are marked.
    pub(crate) fn app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered_pkts + in_flight).max(1);
    }

    /// The sample of the packets delivered since the last call (§3.3 GenerateRateSample);
    /// none when no packet was delivered, or when the interval is shorter than `min_rtt`,
    /// which only ACK compression explains (Linux `tcp_rate_gen`).
    pub(crate) fn sample(&mut self, min_rtt: Option<SimTime>) -> Option<DeliverySample> {
        if self.app_limited != 0 && self.delivered_pkts > self.app_limited {
            self.app_limited = 0;
        }
        let a = self.anchor.take()?;
        let interval = a.send_elapsed.max(a.ack_elapsed);
        if interval == SimTime::ZERO || min_rtt.is_some_and(|m| interval < m) {
            return None;
        }
        let delivered_bytes = self.delivered_bytes - a.prior_bytes;
        Some(DeliverySample {
            rate_bps: delivered_bytes as f64 * 8.0 / interval.secs(),
            delivered_pkts: self.delivered_pkts - a.prior_pkts,
            delivered_bytes,
            interval,
            app_limited: a.app_limited,
            total_delivered_pkts: self.delivered_pkts,
            tx_in_flight_pkts: a.tx_in_flight,
            lost_pkts: self.lost_pkts - a.prior_lost,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: SimTime = SimTime::from_ms(1);

    /// `n` packets of 1000 bytes sent `gap` apart from `t0`, from index `from` on (the packets
    /// below it outstanding).
    fn send_window(d: &mut DeliveryRate, from: usize, n: usize, t0: SimTime, gap: SimTime) {
        for i in 0..n {
            let at = t0 + SimTime(gap.ns() * i as u64);
            d.on_send(from + i, at, 1000, (from + i) as u64);
        }
    }

    #[test]
    fn an_ack_clocked_flow_is_sampled_at_its_rate() {
        // One 1000-byte packet a millisecond, each acknowledged 50 ms after it left, and each
        // ACK letting the next packet go: 8 Mb/s, once the first window has been delivered.
        let (rtt, mut acked) = (50, 0);
        let mut d = DeliveryRate::default();
        for t in 0..300u64 {
            if t >= rtt {
                d.on_delivered(0, SimTime::from_ms(t));
                d.forget(1);
                acked += 1;
                let s = d.sample(Some(SimTime::from_ms(rtt))).expect("a sample");
                if t >= 2 * rtt {
                    assert_eq!((s.delivered_pkts, s.interval), (50, SimTime::from_ms(rtt)));
                    assert!((s.rate_bps - 8e6).abs() < 1e-6, "{s:?}");
                }
            }
            d.on_send((t - acked) as usize, SimTime::from_ms(t), 1000, t - acked);
        }
    }

    #[test]
    fn ack_compression_does_not_inflate_the_rate() {
        // Ten packets sent 1 ms apart, their ACKs all arrive at once 100 ms later: the sample
        // spans the 100 ms since the connection last delivered (its ACK interval), not the
        // instant the ten ACKs took.
        let mut d = DeliveryRate::default();
        send_window(&mut d, 0, 10, SimTime::ZERO, MS);
        for i in 0..10 {
            d.on_delivered(i, SimTime::from_ms(100));
        }
        d.forget(10);
        let s = d.sample(Some(SimTime::from_ms(100))).expect("a sample");
        assert_eq!(s.delivered_pkts, 10);
        assert_eq!(s.interval, SimTime::from_ms(100));
        assert!((s.rate_bps - 0.8e6).abs() < 1e-6, "{s:?}");
    }

    #[test]
    fn a_sacked_packet_counts_once() {
        let mut d = DeliveryRate::default();
        send_window(&mut d, 0, 3, SimTime::ZERO, MS);
        d.on_delivered(2, SimTime::from_ms(40)); // SACKed
        assert!(d.sample(None).is_some());
        for i in 0..3 {
            d.on_delivered(i, SimTime::from_ms(45)); // cumulative ACK of all three
        }
        d.forget(3);
        d.sample(None);
        assert_eq!(d.delivered_pkts, 3);
    }

    #[test]
    fn a_delivered_packet_sent_again_counts_once() {
        // Packet 1 of 0-2 is SACKed; a timeout's go-back-N that forgot it sends 0-2 again, and
        // the cumulative ACK of all three delivers two packets, not three.
        let mut d = DeliveryRate::default();
        send_window(&mut d, 0, 3, SimTime::ZERO, MS);
        d.on_delivered(1, SimTime::from_ms(40));
        d.sample(None);
        send_window(&mut d, 0, 3, SimTime::from_ms(300), MS);
        for i in 0..3 {
            d.on_delivered(i, SimTime::from_ms(340));
        }
        d.forget(3);
        let s = d.sample(None).expect("a sample");
        assert_eq!((d.delivered_pkts, s.delivered_pkts), (3, 2));
    }

    #[test]
    fn a_lost_packet_counts_once_until_it_is_sent_again() {
        // Packets 0-4 out; 1 and 2 are marked lost (2 twice: once counts), then 3 is SACKed:
        // its sample counts the two losses since it left (draft-ietf-ccwg-bbr-06 §2.3 RS.lost).
        let mut d = DeliveryRate::default();
        send_window(&mut d, 0, 5, SimTime::ZERO, MS);
        let first = d.mark_lost(1, SimTime::from_ms(50)).expect("marked");
        assert_eq!((first.tx_in_flight_pkts, first.lost_pkts), (2, 1));
        assert_eq!(
            d.mark_lost(2, SimTime::from_ms(50)).map(|l| l.lost_pkts),
            Some(2)
        );
        assert!(d.mark_lost(2, SimTime::from_ms(51)).is_none());
        d.on_delivered(3, SimTime::from_ms(52));
        assert_eq!(d.sample(None).expect("a sample").lost_pkts, 2);
        assert!(
            d.mark_lost(3, SimTime::from_ms(53)).is_none(),
            "delivered already"
        );
        // Resent, packet 1 can be lost again; packets sent after the losses do not count them.
        d.on_send(1, SimTime::from_ms(60), 1000, 5);
        assert_eq!(
            d.mark_lost(1, SimTime::from_ms(90)).map(|l| l.lost_pkts),
            Some(1)
        );
        d.on_send(5, SimTime::from_ms(95), 1000, 5);
        d.on_delivered(5, SimTime::from_ms(140));
        assert_eq!(d.sample(None).expect("a sample").lost_pkts, 0);
    }

    #[test]
    fn app_limited_marks_samples_until_the_flight_is_delivered() {
        let mut d = DeliveryRate::default();
        d.app_limited(0);
        send_window(&mut d, 0, 2, SimTime::ZERO, MS);
        d.on_delivered(0, SimTime::from_ms(30));
        let s = d.sample(None).expect("a sample");
        assert!(s.app_limited);
        // Delivered count passes the mark: later sends are no longer app-limited.
        d.on_delivered(1, SimTime::from_ms(31));
        d.forget(2);
        d.sample(None);
        send_window(&mut d, 0, 1, SimTime::from_ms(40), MS);
        d.on_delivered(0, SimTime::from_ms(70));
        assert!(!d.sample(None).expect("a sample").app_limited);
    }
}
