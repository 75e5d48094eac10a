//! TFRC's receiver (RFC 5348 §5–6; ns-2 `tfrc-sink.cc`): loss events, the average loss interval
//! with history discounting and the receive rate, reported to the sender
//! ([`Tfrc`](crate::control::Tfrc), whose module documentation tabulates each [`TfrcVariant`]).

use super::{DataArrival, GapDetector, LossIntervals, ReceiveRate, Receiver, Report, DEFAULT_RTT};
use crate::control::rate::{invert_throughput, TfrcVariant};
use crate::time::SimTime;

/// TFRC receiver: loss events, the average loss interval and the receive rate (RFC 5348 §5–6).
#[derive(Clone, Debug)]
pub struct TfrcReceiver {
    variant: TfrcVariant,
    gaps: GapDetector,
    intervals: LossIntervals,
    rate: ReceiveRate,
    /// The sender's RTT (from the data packets), or `DEFAULT_RTT`.
    rtt: SimTime,
    last_report: Option<SimTime>,
    /// A loss event started since the last report.
    new_event: bool,
    lost: u64,
    received: u64,
    loss_sent_at: Option<SimTime>,
    /// Size of the latest data packet (bytes): the s of the equation inverted at the first loss.
    packet_bytes: u32,
    /// The sender's round at the start of the current loss event (ns-2 `lastloss_round_id`).
    event_round: Option<u32>,
    /// Loss events so far.
    events: u64,
}

impl TfrcReceiver {
    pub fn new(variant: TfrcVariant, discounting: bool) -> Self {
        let ndupack = match variant {
            TfrcVariant::Rfc5348 => 3, // RFC 5348 §5.1: NDUPACK
            _ => 1,                    // tfrc-sink.cc numPkts_
        };
        let intervals = LossIntervals::new(discounting);
        TfrcReceiver {
            variant,
            gaps: GapDetector::new(ndupack),
            intervals: match variant {
                TfrcVariant::Rfc5348 => intervals,
                TfrcVariant::Ns2 => intervals.open_after_loss(),
                TfrcVariant::Ns2June2000 => intervals.unsmoothed(),
            },
            rate: ReceiveRate::default(),
            rtt: DEFAULT_RTT,
            last_report: None,
            new_event: false,
            lost: 0,
            received: 0,
            loss_sent_at: None,
            packet_bytes: 1000,
            event_round: None,
            events: 0,
        }
    }

    /// Loss event rate p in [0, 1].
    pub fn loss_event_rate(&self) -> f64 {
        self.intervals.loss_event_rate()
    }

    /// A loss of packet `seq` sent at `sent_at`, found by a packet the sender sent in `round`.
    fn on_loss(&mut self, seq: u64, sent_at: SimTime, round: u32) {
        self.lost += 1;
        self.loss_sent_at = Some(self.loss_sent_at.map_or(sent_at, |t| t.min(sent_at)));
        if !self.intervals.is_new_event(sent_at, self.rtt) {
            return;
        }
        // ns-2.35 tfrc-sink.cc new_loss() with PreciseLoss_ = 1 (its default): a loss starts a
        // new event only if the sender has also moved to a new round (a report or a
        // no-feedback expiry) since the current event began, so that losses closer than the
        // sender's feedback loop (below about a packet per RTT) stay one event.
        if self.variant == TfrcVariant::Ns2 && self.event_round.is_some_and(|r| round <= r) {
            return;
        }
        self.event_round = Some(round);
        let first = if self.intervals.has_loss() {
            0.0
        } else {
            // RFC 5348 §6.3.1: the interval whose equation rate equals the receive rate.
            let r = self.rtt.secs();
            let x = self.rate.window_rate(self.rtt);
            1.0 / invert_throughput(x, r, 4.0 * r, self.packet_bytes)
        };
        self.intervals.start_event(seq, sent_at, first);
        self.new_event = true;
        self.events += 1;
    }
}

impl Receiver for TfrcReceiver {
    fn name(&self) -> String {
        match self.variant {
            TfrcVariant::Rfc5348 => "TFRC receiver".into(),
            TfrcVariant::Ns2 => "TFRC-ns2 receiver".into(),
            TfrcVariant::Ns2June2000 => "TFRC-2000 receiver".into(),
        }
    }

    fn on_data(&mut self, pkt: &DataArrival) -> bool {
        if let Some(r) = pkt.sender_rtt {
            self.rtt = r;
        }
        self.rate.on_packet(pkt.now, pkt.size_bytes, self.rtt);
        self.packet_bytes = pkt.size_bytes.max(1);
        self.received += 1;
        let had_event = self.new_event;
        let had_loss = self.intervals.has_loss();
        let old = self.variant == TfrcVariant::Ns2June2000;
        for lost in self.gaps.on_packet(pkt.seq, pkt.sent_at) {
            // The 2000 tfrc-sink.cc gives every packet of a gap the send time of the packet
            // that revealed it (no interpolation) when grouping losses into events.
            self.on_loss(
                lost.seq,
                if old { pkt.sent_at } else { lost.sent_at },
                pkt.sender_round,
            );
        }
        if pkt.ecn_ce {
            self.on_loss(pkt.seq, pkt.sent_at, pkt.sender_round);
        }
        self.intervals.on_received(pkt.seq);
        let first = self.last_report.is_none();
        let due = self.last_report.is_some_and(|t| pkt.now >= t + self.rtt);
        // The 2000 receiver reports at once only the first loss event (leaving slow start);
        // later loss events wait for the next due report.
        let urgent = if old {
            !had_loss && self.intervals.has_loss()
        } else {
            self.new_event && !had_event
        };
        first || due || urgent
    }

    fn report_interval(&self) -> SimTime {
        match self.variant {
            TfrcVariant::Rfc5348 => self.rtt,
            _ => SimTime(self.rtt.ns() * 3 / 2), // tfrc-sink.cc: 1.5·rtt
        }
    }

    fn report(&mut self, now: SimTime) -> Report {
        self.last_report = Some(now);
        let r = Report {
            recv_rate_bps: self.rate.take(now, self.rtt),
            loss_event_rate: self.intervals.loss_event_rate(),
            lost_pkts: self.lost,
            received_pkts: self.received,
            loss_sent_at: self.loss_sent_at,
            new_loss_event: self.new_event,
            rate_bps: None,
        };
        self.new_event = false;
        self.lost = 0;
        self.received = 0;
        self.loss_sent_at = None;
        r
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([
            ("p", self.intervals.loss_event_rate()),
            ("rtt_s", self.rtt.secs()),
            ("loss_events", self.events as f64),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Loss events a receiver of `variant` counts when a sender at one packet per 300 ms (RTT
    /// 100 ms) loses packets 1 and 2 of 0..=6, packet `seq` carrying the sender round
    /// `round(seq)`.
    fn events(variant: TfrcVariant, round: impl Fn(u64) -> u32) -> usize {
        let mut r = TfrcReceiver::new(variant, true);
        for seq in [0, 3, 4, 5, 6] {
            r.on_data(&DataArrival {
                now: SimTime::from_ms(300 * seq + 50),
                seq,
                sent_at: SimTime::from_ms(300 * seq),
                size_bytes: 1000,
                sender_rtt: Some(SimTime::from_ms(100)),
                ecn_ce: false,
                sender_round: round(seq),
            });
        }
        // Each event closes an interval (the first one the seeded interval).
        r.intervals.closed.len()
    }

    #[test]
    fn adjacent_losses_in_one_sender_round_are_one_event_in_ns2() {
        // Both losses are found together (packet 3, or 5 with RFC 5348's three): sent 300 ms apart, more than an RTT, so RFC 5348's
        // rule (§5.2) makes two events; ns-2.35's PreciseLoss_ rule also wants a new sender
        // round, and packet 3 carries one round for both (tfrc-sink.cc new_loss()).
        assert_eq!(events(TfrcVariant::Rfc5348, |_| 0), 2);
        assert_eq!(events(TfrcVariant::Ns2, |_| 0), 1);
        assert_eq!(events(TfrcVariant::Ns2, |s| s as u32), 1);
    }
}
