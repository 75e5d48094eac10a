//! TEAR's receiver ([`TearReceiver`]): TCP's window emulated per round, rates smoothed over
//! epochs and fed back to the sender. The rules (Rhee, Ozdemir & Yi 2000, with the timeout of
//! Yang, Kim & Lam 2003 §2.2, reconstructed) are listed with the sender,
//! [`TearSender`](crate::control::TearSender).

use std::collections::VecDeque;

use super::{
    max_weighted_mean, DataArrival, GapDetector, ReceiveRate, Receiver, Report, DEFAULT_RTT,
    HISTORY_LEN,
};
use crate::time::SimTime;

/// Later packets before a gap counts as a loss (TCP's duplicate-ACK threshold).
const NDUPACK: u64 = 3;
/// Emulated RTO in RTTs (RFC 5348 §4.3's t_RTO = 4R).
const RTO_RTTS: u64 = 4;

/// TEAR receiver: TCP's window emulated per round, rates smoothed over epochs.
#[derive(Clone, Debug)]
pub struct TearReceiver {
    gaps: GapDetector,
    rate: ReceiveRate,
    /// Sender's RTT (from the data packets), or `DEFAULT_RTT`.
    rtt: SimTime,
    /// Emulated congestion window (packets), ≥ 1.
    cwnd: f64,
    /// Emulated slow-start threshold (packets), ≥ 1 or ∞.
    ssthresh: f64,
    /// The current round ends at the first arrival with seq ≥ this.
    round_end: u64,
    /// Losses of packets below this seq belong to the last reduction.
    reduced_below: u64,
    /// Σ cwnd (packets) and Σ R (s) over the completed rounds of the open epoch, ≥ 0.
    epoch_pkts: f64,
    epoch_time_s: f64,
    /// Closed epoch rates (packets/s), newest first, at most `HISTORY_LEN`.
    epochs: VecDeque<f64>,
    last_arrival: Option<SimTime>,
    last_report: Option<SimTime>,
    /// Latest packet size (bytes), to turn packets/s into bits/s.
    packet_bytes: u32,
    lost: u64,
    received: u64,
}

impl Default for TearReceiver {
    fn default() -> Self {
        TearReceiver {
            gaps: GapDetector::new(NDUPACK),
            rate: ReceiveRate::default(),
            rtt: DEFAULT_RTT,
            cwnd: 1.0,
            ssthresh: f64::INFINITY,
            round_end: 0,
            reduced_below: 0,
            epoch_pkts: 0.0,
            epoch_time_s: 0.0,
            epochs: VecDeque::new(),
            last_arrival: None,
            last_report: None,
            packet_bytes: 1000,
            lost: 0,
            received: 0,
        }
    }
}

impl TearReceiver {
    /// Emulated window (packets).
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }

    /// The smoothed rate (packets/s).
    pub fn rate_pkts_per_s(&self) -> f64 {
        let r = self.rtt.secs();
        let open = (self.epoch_pkts + self.cwnd) / (self.epoch_time_s + r);
        let closed: Vec<f64> = self.epochs.iter().copied().collect();
        max_weighted_mean(open, &closed, &vec![1.0; closed.len()]).unwrap_or(open)
    }

    /// Closes the open epoch (a window reduction) and starts a round at `seq`.
    fn end_epoch(&mut self, seq: u64, idle_s: f64) {
        let time = self.epoch_time_s + idle_s;
        if time > 0.0 {
            self.epochs.push_front(self.epoch_pkts / time);
            self.epochs.truncate(HISTORY_LEN);
        }
        self.epoch_pkts = 0.0;
        self.epoch_time_s = 0.0;
        self.round_end = seq + self.cwnd.round().max(1.0) as u64;
        self.reduced_below = self.round_end;
    }

    fn on_loss(&mut self, lost_seq: u64, seq: u64) {
        self.lost += 1;
        if lost_seq < self.reduced_below {
            return;
        }
        // TCP fast recovery (RFC 5681 §3.2): ssthresh = cwnd/2, cwnd = ssthresh.
        self.ssthresh = (self.cwnd / 2.0).max(1.0);
        self.cwnd = self.ssthresh;
        self.end_epoch(seq, 0.0);
    }

    fn on_timeout(&mut self, seq: u64, idle_s: f64) {
        // TCP timeout (Yang et al. §2.2): ssthresh = cwnd/2, cwnd = 1, slow start.
        self.ssthresh = (self.cwnd / 2.0).max(1.0);
        self.cwnd = 1.0;
        self.end_epoch(seq, idle_s);
    }
}

impl Receiver for TearReceiver {
    fn name(&self) -> String {
        "TEAR receiver".into()
    }

    fn on_data(&mut self, pkt: &DataArrival) -> bool {
        if let Some(r) = pkt.sender_rtt {
            self.rtt = r;
        }
        self.packet_bytes = pkt.size_bytes.max(1);
        self.rate.on_packet(pkt.now, pkt.size_bytes, self.rtt);
        self.received += 1;
        let rto = SimTime(self.rtt.ns() * RTO_RTTS);
        if let Some(last) = self.last_arrival.filter(|&t| pkt.now > t + rto) {
            self.on_timeout(pkt.seq, (pkt.now - last).secs());
        }
        self.last_arrival = Some(pkt.now);
        for lost in self.gaps.on_packet(pkt.seq, pkt.sent_at) {
            self.on_loss(lost.seq, pkt.seq);
        }
        if pkt.ecn_ce {
            self.on_loss(pkt.seq, pkt.seq);
        }
        if pkt.seq >= self.round_end {
            // End of a round: account it, then grow as TCP does per RTT.
            self.epoch_pkts += self.cwnd;
            self.epoch_time_s += self.rtt.secs();
            self.cwnd = if self.cwnd < self.ssthresh {
                (2.0 * self.cwnd).min(self.ssthresh.max(self.cwnd + 1.0))
            } else {
                self.cwnd + 1.0
            };
            self.round_end = pkt.seq + self.cwnd.round().max(1.0) as u64;
        }
        self.last_report.is_none_or(|t| pkt.now >= t + self.rtt)
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
            loss_sent_at: None,
            new_loss_event: false,
            rate_bps: Some(8.0 * self.packet_bytes as f64 * self.rate_pkts_per_s()),
        };
        self.lost = 0;
        self.received = 0;
        r
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([
            ("cwnd_pkts", self.cwnd),
            ("ssthresh_pkts", self.ssthresh),
            ("rtt_s", self.rtt.secs()),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::assert_close;

    /// Feeds packets `seqs` one RTT-share apart, RTT 100 ms, 10 packets per RTT.
    fn feed(r: &mut TearReceiver, seqs: impl IntoIterator<Item = u64>) {
        for seq in seqs {
            r.on_data(&DataArrival {
                now: SimTime::from_ms(10 * seq + 50),
                seq,
                sent_at: SimTime::from_ms(10 * seq),
                size_bytes: 1000,
                sender_rtt: Some(SimTime::from_ms(100)),
                ecn_ce: false,
                sender_round: 0,
            });
        }
    }

    #[test]
    fn slow_start_doubles_per_round() {
        let mut r = TearReceiver::default();
        feed(&mut r, 0..15);
        // Rounds end at seqs 0, 2, 6, 14: cwnd 1 → 2 → 4 → 8 → 16.
        assert_eq!(r.cwnd(), 16.0);
        // Open epoch: (1 + 2 + 4 + 8 + 16) packets over 5 RTTs.
        assert_close(r.rate_pkts_per_s(), 31.0 / 0.5, 1e-9);
    }

    #[test]
    fn a_loss_halves_the_window_once_per_round_and_closes_the_epoch() {
        let mut r = TearReceiver::default();
        feed(&mut r, 0..15);
        // Packets 15 and 16 lost: one reduction, 16 → 8, declared at the third later packet.
        feed(&mut r, 17..20);
        assert_eq!(r.cwnd(), 8.0);
        assert_eq!(r.epochs.len(), 1);
        assert_close(r.epochs[0], 15.0 / 0.4, 1e-9);
        // Congestion avoidance: +1 per round.
        feed(&mut r, 20..40);
        assert_eq!(r.cwnd(), 10.0);
    }

    #[test]
    fn silence_longer_than_the_rto_emulates_a_timeout() {
        let mut r = TearReceiver::default();
        feed(&mut r, 0..15);
        feed(&mut r, [100]);
        assert_eq!(r.cwnd(), 1.0);
        // The idle 0.86 s counts in the closed epoch: 15 packets over 0.4 + 0.86 s.
        assert_close(r.epochs[0], 15.0 / (0.4 + 0.86), 1e-9);
    }
}
