//! The receiver of binary-feedback rate controllers (rate AIMD/binomial, ISCC, RAP, SSVP):
//! it counts packets received and found lost and reports them, per packet or per RTT.

use super::{DataArrival, GapDetector, Lost, ReceiveRate, Receiver, Report, DEFAULT_RTT};
use crate::time::SimTime;

/// How often a [`LossCounter`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportEvery {
    /// One report per data packet: an ACK-like control packet (RAP, SSVP).
    Packet,
    /// One report per sender RTT (Loguinov & Radha's control interval R), and one at once when a
    /// gap reveals a loss. Loguinov & Radha's client finds losses from sequence gaps and NACKs
    /// them at once for retransmission (§VI-C: "our retransmission scheme"); the analysis assumes
    /// immediate feedback (§II-A) and names delayed feedback as a cause of extra loss (§VI-C).
    /// Holding a loss back until the next per-RTT report would add up to one RTT to the
    /// feedback delay, during which the overshoot keeps being sent.
    Rtt,
}

/// The receiver of binary-feedback rate controllers: counts packets received and found lost
/// (gap detection after one later packet) and reports them.
#[derive(Clone, Debug)]
pub struct LossCounter {
    every: ReportEvery,
    gaps: GapDetector,
    rate: ReceiveRate,
    /// Sender RTT last seen (or `DEFAULT_RTT`).
    rtt: SimTime,
    last_report: Option<SimTime>,
    lost: u64,
    received: u64,
    loss_sent_at: Option<SimTime>,
}

impl LossCounter {
    pub fn new(every: ReportEvery) -> Self {
        LossCounter {
            every,
            gaps: GapDetector::new(1),
            rate: ReceiveRate::default(),
            rtt: DEFAULT_RTT,
            last_report: None,
            lost: 0,
            received: 0,
            loss_sent_at: None,
        }
    }

    /// The same receiver declaring a packet lost only once a packet `distance` sequence numbers
    /// above it has arrived (ns-2 `rap.cc`: 3) instead of at the first later packet.
    pub fn revealed_at(self, distance: u64) -> Self {
        LossCounter {
            gaps: GapDetector::by_distance(distance),
            ..self
        }
    }
}

impl Receiver for LossCounter {
    fn name(&self) -> String {
        match self.every {
            ReportEvery::Packet => "loss counter (per packet)".into(),
            ReportEvery::Rtt => "loss counter (per RTT)".into(),
        }
    }

    fn on_data(&mut self, pkt: &DataArrival) -> bool {
        if let Some(r) = pkt.sender_rtt {
            self.rtt = r;
        }
        self.rate.on_packet(pkt.now, pkt.size_bytes, self.rtt);
        self.received += 1;
        let mut lost = self.gaps.on_packet(pkt.seq, pkt.sent_at);
        if pkt.ecn_ce {
            lost.push(Lost {
                seq: pkt.seq,
                sent_at: pkt.sent_at,
            });
        }
        for l in &lost {
            self.lost += 1;
            self.loss_sent_at = Some(self.loss_sent_at.map_or(l.sent_at, |t| t.min(l.sent_at)));
        }
        match self.every {
            ReportEvery::Packet => true,
            // A newly found loss is NACKed at once (see `ReportEvery::Rtt`).
            ReportEvery::Rtt => {
                !lost.is_empty() || self.last_report.is_none_or(|t| pkt.now >= t + self.rtt)
            }
        }
    }

    fn report_interval(&self) -> SimTime {
        self.rtt
    }

    fn report(&mut self, now: SimTime) -> Report {
        self.last_report = Some(now);
        let r = Report {
            recv_rate_bps: self.rate.take(now, self.rtt),
            loss_event_rate: 0.0,
            lost_pkts: self.lost,
            received_pkts: self.received,
            loss_sent_at: self.loss_sent_at,
            new_loss_event: self.lost > 0,
            rate_bps: None,
        };
        self.lost = 0;
        self.received = 0;
        self.loss_sent_at = None;
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packet `seq`, sent every 10 ms and arriving 50 ms later.
    fn arrival(seq: u64) -> DataArrival {
        DataArrival {
            now: SimTime::from_ms(10 * seq + 50),
            seq,
            sent_at: SimTime::from_ms(10 * seq),
            size_bytes: 1000,
            sender_rtt: Some(SimTime::from_ms(50)),
            ecn_ce: false,
            sender_round: 0,
        }
    }

    #[test]
    fn loss_counter_reports_losses_once() {
        let mut r = LossCounter::new(ReportEvery::Packet);
        assert!(r.on_data(&arrival(0)));
        r.report(SimTime::from_ms(50));
        assert!(r.on_data(&arrival(2)));
        let rep = r.report(SimTime::from_ms(70));
        assert_eq!((rep.lost_pkts, rep.received_pkts), (1, 1));
        assert_eq!(rep.loss_sent_at, Some(SimTime::from_ms(10)));
        let rep = r.report(SimTime::from_ms(80));
        assert_eq!((rep.lost_pkts, rep.loss_sent_at), (0, None));
    }

    #[test]
    fn revealed_at_three_reports_a_loss_with_the_third_later_packet() {
        // ns-2 rap.cc AckLostPacket(): packet 3 lost, found when 6 (lastRecv − 3 ≥ 3) arrives.
        let mut r = LossCounter::new(ReportEvery::Packet).revealed_at(3);
        let lost = |r: &mut LossCounter, seq: u64| {
            r.on_data(&arrival(seq));
            r.report(SimTime::from_ms(10 * seq + 50)).lost_pkts
        };
        let found: Vec<u64> = [0, 1, 2, 4, 5, 6, 7]
            .iter()
            .map(|&s| lost(&mut r, s))
            .collect();
        assert_eq!(found, [0, 0, 0, 0, 0, 1, 0]);
    }

    #[test]
    fn per_rtt_counter_nacks_a_loss_at_once() {
        // Loguinov & Radha §VI-C: the client NACKs a gap as soon as it sees it.
        let mut r = LossCounter::new(ReportEvery::Rtt);
        let arrival = |seq: u64| DataArrival {
            now: SimTime::from_ms(10 * seq + 50),
            seq,
            sent_at: SimTime::from_ms(10 * seq),
            size_bytes: 1000,
            sender_rtt: Some(SimTime::from_ms(100)),
            ecn_ce: false,
            sender_round: 0,
        };
        assert!(r.on_data(&arrival(0)));
        r.report(SimTime::from_ms(50));
        // Within the RTT and no loss: no report.
        assert!(!r.on_data(&arrival(1)));
        // Packet 2 missing: 3 reveals it, a report goes out long before the RTT is over.
        assert!(r.on_data(&arrival(3)));
        let rep = r.report(SimTime::from_ms(80));
        assert_eq!(
            (rep.lost_pkts, rep.loss_sent_at),
            (1, Some(SimTime::from_ms(20)))
        );
        for seq in 4..13 {
            assert!(!r.on_data(&arrival(seq)), "{seq}");
        }
        // One RTT after the last report (180 ms): the periodic report.
        assert!(r.on_data(&arrival(13)));
    }
}
