//! Receiver-side logic of rate-based protocols: what a receiver computes from the
//! data packets it sees and feeds back to its sender.
//!
//! A [`Receiver`] is engine-independent like a [`Controller`](crate::control::Controller): it is
//! handed each arriving data packet ([`DataArrival`]) and asked for a [`Report`] when the
//! transport sends one. The rate transport (`transport::rate`) carries reports in packet headers
//! and hands them to the sender's controller as a
//! [`ReportSample`](crate::control::ReportSample).
//!
//! Shared pieces used by several receivers live here: gap-based loss detection with interpolated
//! send times ([`GapDetector`]), the receive-rate meter ([`ReceiveRate`]), TFRC's weighted
//! average with the open-interval rule ([`max_weighted_mean`]) and the loss-interval estimator
//! with history discounting ([`LossIntervals`]). One receiver per file: the plain loss counter
//! of binary-feedback rate controllers ([`LossCounter`]), TFRC's ([`TfrcReceiver`]) and TEAR's
//! ([`TearReceiver`]); [`capacity`] is the packet-bunch estimator of the bottleneck capacity.

pub mod capacity;
mod counter;
mod tear;
mod tfrc;

pub use counter::{LossCounter, ReportEvery};
pub use tear::TearReceiver;
pub use tfrc::TfrcReceiver;

use std::collections::VecDeque;

use crate::time::SimTime;

/// One data packet as it reaches the receiver.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DataArrival {
    pub now: SimTime,
    /// Sequence number (packets, from 0, consecutive at the sender).
    pub seq: u64,
    /// When the sender sent it.
    pub sent_at: SimTime,
    pub size_bytes: u32,
    /// The sender's RTT estimate carried in the packet, once it has one.
    pub sender_rtt: Option<SimTime>,
    /// The packet carries an ECN congestion-experienced mark (counted like a loss).
    pub ecn_ce: bool,
    /// The sender's round when it sent the packet: the reports it had received plus the times
    /// its no-feedback timer had expired (ns-2 `tfrc.cc` `round_id`, wrapping).
    pub sender_round: u32,
}

/// What a receiver reports; the transport adds the timestamp echo and the capacity estimate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Report {
    /// Data received since the previous report (bits/s), ≥ 0.
    pub recv_rate_bps: f64,
    /// Loss event rate p in [0, 1] (TFRC), 0 for receivers that do not estimate it.
    pub loss_event_rate: f64,
    /// Packets found lost since the previous report.
    pub lost_pkts: u64,
    /// Packets received since the previous report.
    pub received_pkts: u64,
    /// Send time of the earliest packet found lost since the previous report.
    pub loss_sent_at: Option<SimTime>,
    /// A new loss event started since the previous report.
    pub new_loss_event: bool,
    /// Sending rate computed by the receiver (TEAR), bits/s.
    pub rate_bps: Option<f64>,
}

/// Receiver-side logic of one rate-based protocol.
pub trait Receiver: Send {
    /// Name of the protocol's receiver, e.g. `TFRC receiver`.
    fn name(&self) -> String;

    /// Fires for each data packet that reaches the receiver, in arrival order. Returns whether a
    /// report should be sent at once (first packet, new loss event, a report interval elapsed).
    fn on_data(&mut self, pkt: &DataArrival) -> bool;

    /// How long after a report the next one is due when no packet asks for one earlier; the
    /// transport sends it only if data arrived in between.
    fn report_interval(&self) -> SimTime;

    /// The report to send now; starts a new report interval.
    fn report(&mut self, now: SimTime) -> Report;

    /// The receiver's internal state as named values, for the state trace (e.g. TFRC's loss
    /// event rate as it stands after each packet, TEAR's emulated window): appended to `out`,
    /// in the same order every time.
    fn state(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// RTT a receiver assumes until the sender stamps one (s): one second, as TFRC's initial
/// no-feedback timeout halves (RFC 5348 §4.2 uses 2 s for the timer, ns-2 `InitRate_` ≈ 1 pkt/s).
pub const DEFAULT_RTT: SimTime = SimTime::from_ms(1000);

/// A packet found lost from a sequence gap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lost {
    pub seq: u64,
    /// Nominal send time, interpolated between the packets received around the gap
    /// (RFC 5348 §5.1; ns-2 `estimate_tstamp`).
    pub sent_at: SimTime,
}

/// Gap-based loss detection: a packet is lost once `ndupack` packets with higher sequence
/// numbers have arrived (RFC 5348 §5.1: 3; ns-2 `numPkts_`: 1), or, built with
/// [`GapDetector::by_distance`], once a packet `ndupack` or more sequence numbers above it has
/// arrived (ns-2 `rap.cc` `AckLostPacket`: lastRecv − seqno ≥ 3). The engine never reorders the
/// packets of a flow, so `ndupack` only delays the detection.
#[derive(Clone, Debug)]
pub struct GapDetector {
    /// Packets with higher sequence numbers (or the distance in sequence numbers) needed to
    /// declare a loss, ≥ 1.
    ndupack: u64,
    /// `ndupack` counts sequence numbers, not packets received.
    by_distance: bool,
    /// Next sequence number expected (all below it were received or declared missing).
    next_seq: u64,
    /// Last packet received in order: (seq, send time).
    last: Option<(u64, SimTime)>,
    /// Packets received so far.
    received: u64,
    /// Missing packets not yet declared lost, with the `received` count when they went missing.
    pending: VecDeque<(Lost, u64)>,
}

impl GapDetector {
    pub fn new(ndupack: u64) -> Self {
        GapDetector {
            ndupack: ndupack.max(1),
            by_distance: false,
            next_seq: 0,
            last: None,
            received: 0,
            pending: VecDeque::new(),
        }
    }

    /// A detector that declares a packet lost once one `distance` or more sequence numbers
    /// above it has arrived. With a single loss it waits for as many packets as `new(distance)`;
    /// after a burst of losses the later packets count, so it declares them sooner.
    pub fn by_distance(distance: u64) -> Self {
        GapDetector {
            by_distance: true,
            ..GapDetector::new(distance)
        }
    }

    /// Highest sequence number received so far.
    pub fn highest(&self) -> Option<u64> {
        self.last.map(|(s, _)| s)
    }

    /// Registers a packet; returns the packets that it makes count as lost (oldest first).
    /// Late packets (below the highest received) are ignored and return nothing.
    pub fn on_packet(&mut self, seq: u64, sent_at: SimTime) -> Vec<Lost> {
        if self.last.is_some() && seq < self.next_seq {
            return Vec::new();
        }
        let (s0, t0) = self.last.unwrap_or((seq, sent_at));
        for miss in self.next_seq..seq {
            // RFC 5348 §5.1: T_loss = T_before + (T_after − T_before)(S_loss − S_before)/(S_after − S_before)
            let frac = if seq > s0 && miss > s0 {
                (miss - s0) as f64 / (seq - s0) as f64
            } else {
                0.0
            };
            let t = t0.ns() as f64 + (sent_at.ns() as f64 - t0.ns() as f64) * frac;
            let lost = Lost {
                seq: miss,
                sent_at: SimTime(t.max(0.0) as u64),
            };
            self.pending.push_back((lost, self.received));
        }
        self.received += 1;
        self.next_seq = seq + 1;
        self.last = Some((seq, sent_at));
        let mut out = Vec::new();
        while let Some(&(lost, at)) = self.pending.front() {
            let seen = if self.by_distance {
                seq - lost.seq
            } else {
                self.received - at
            };
            if seen < self.ndupack {
                break;
            }
            out.push(lost);
            self.pending.pop_front();
        }
        out
    }
}

/// Receive-rate meter: bytes since the last report over the time since, or over the last RTT
/// when less than one RTT has passed (ns-2 `tfrc-sink.cc` `est_thput()`).
#[derive(Clone, Debug, Default)]
pub struct ReceiveRate {
    /// Arrivals within the last RTT: (time, bytes), oldest first.
    window: VecDeque<(SimTime, u32)>,
    /// Bytes received since the last report.
    since_report_bytes: u64,
    /// When the last report was sent (or the first packet arrived).
    since: Option<SimTime>,
}

impl ReceiveRate {
    pub fn on_packet(&mut self, now: SimTime, size_bytes: u32, rtt: SimTime) {
        self.since.get_or_insert(now);
        self.since_report_bytes += size_bytes as u64;
        self.window.push_back((now, size_bytes));
        while self.window.front().is_some_and(|&(t, _)| t + rtt < now) {
            self.window.pop_front();
        }
    }

    /// Receive rate over the last RTT (bits/s).
    pub fn window_rate(&self, rtt: SimTime) -> f64 {
        let bytes: u64 = self.window.iter().map(|&(_, b)| b as u64).sum();
        8.0 * bytes as f64 / rtt.secs().max(1e-9)
    }

    /// The receive rate (bits/s) at `now`; restarts the since-report count.
    pub fn take(&mut self, now: SimTime, rtt: SimTime) -> f64 {
        let elapsed = now - self.since.unwrap_or(now);
        let rate = if elapsed >= rtt && elapsed > SimTime::ZERO {
            8.0 * self.since_report_bytes as f64 / elapsed.secs()
        } else {
            self.window_rate(rtt)
        };
        self.since = Some(now);
        self.since_report_bytes = 0;
        rate
    }
}

/// Weights of TFRC's average loss interval, newest first (n = 8; RFC 5348 §5.4):
/// w_i = 1 for i < n/2, w_i = 2(n − i)/(n + 2) otherwise.
pub const INTERVAL_WEIGHTS: [f64; 8] = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];

/// Number of closed intervals (or epochs) averaged.
pub const HISTORY_LEN: usize = INTERVAL_WEIGHTS.len();

/// TFRC's weighted mean with the open-interval rule (RFC 5348 §5.4): the mean of the newest
/// `n` closed values, or of the open value and the newest `n − 1` closed ones, whichever is
/// larger. `closed` is newest first; `scale[j]` multiplies the weight of `closed[j]` (history
/// discounting, ns-2 `tfrc-sink.cc`; 1 without it). `None` when `closed` is empty.
pub fn max_weighted_mean(open: f64, closed: &[f64], scale: &[f64]) -> Option<f64> {
    weighted_means(open, closed, scale, false)
}

/// [`max_weighted_mean`], or with `unsmoothed` the ns-2 `smooth_ = 0` form of the 2000 code
/// (`tfrc-sink.cc` `weighted_average` without the shifted weights): the closed intervals keep
/// the weights w_1.. they have next to the open one, so the closed-only mean covers the newest
/// n − 1 closed intervals with weights (1, 1, 1, 0.8, 0.6, 0.4, 0.2) and the open value is
/// included iff it exceeds that mean.
fn weighted_means(open: f64, closed: &[f64], scale: &[f64], unsmoothed: bool) -> Option<f64> {
    debug_assert_eq!(closed.len(), scale.len());
    let k = closed.len().min(HISTORY_LEN);
    if k == 0 {
        return None;
    }
    let shift = usize::from(unsmoothed);
    let (mut num1, mut den1) = (0.0, 0.0);
    for j in 0..k.min(HISTORY_LEN - shift) {
        let w = INTERVAL_WEIGHTS[j + shift] * scale[j];
        num1 += closed[j] * w;
        den1 += w;
    }
    // RFC 5348 §5.4: I_tot0 = Σ_{i=0}^{k−1} I_i·w_i (the open interval I_0 unscaled).
    let (mut num0, mut den0) = (open * INTERVAL_WEIGHTS[0], INTERVAL_WEIGHTS[0]);
    for j in 0..k - 1 {
        let w = INTERVAL_WEIGHTS[j + 1] * scale[j];
        num0 += closed[j] * w;
        den0 += w;
    }
    Some((num0 / den0).max(num1 / den1))
}

/// Smallest discount factor of old history (ns-2 `minDiscountRatio_`, RFC 5348 §5.5).
pub const MIN_DISCOUNT: f64 = 0.5;

/// TFRC's loss-interval history (RFC 5348 §5.3–5.5; ns-2 `tfrc-sink.cc`): the start of each
/// loss event, the closed intervals between them and the open interval since the last one.
#[derive(Clone, Debug)]
pub struct LossIntervals {
    /// Closed intervals (packets), newest first, at most `HISTORY_LEN`; each ≥ 1.
    closed: VecDeque<f64>,
    /// Per-closed-interval discount multipliers in (0, 1] (ns-2 `mult_`); same length.
    mult: VecDeque<f64>,
    /// Current discount factor DF in [MIN_DISCOUNT, 1]; 1 when discounting is off.
    df: f64,
    discounting: bool,
    /// ns-2 `smooth_ = 0` weighting of the closed-only mean ([`weighted_means`]).
    unsmoothed: bool,
    /// The open interval counts from the packet after the loss that began the current event
    /// (ns-2.35 `tfrc-sink.cc` `est_loss_WALI()`'s `sample[0]`), not from that loss (RFC 5348
    /// §5.3).
    open_after_loss: bool,
    /// First sequence number and send time of the current loss event.
    start: Option<(u64, SimTime)>,
    /// Highest sequence number received.
    highest: u64,
}

impl LossIntervals {
    pub fn new(discounting: bool) -> Self {
        LossIntervals {
            closed: VecDeque::new(),
            mult: VecDeque::new(),
            df: 1.0,
            discounting,
            unsmoothed: false,
            open_after_loss: false,
            start: None,
            highest: 0,
        }
    }

    /// The same with the 2000 code's unsmoothed weights ([`weighted_means`]).
    pub fn unsmoothed(self) -> Self {
        LossIntervals {
            unsmoothed: true,
            ..self
        }
    }

    /// The same with ns-2.35's open interval, one packet shorter ([`LossIntervals::open`]).
    pub fn open_after_loss(self) -> Self {
        LossIntervals {
            open_after_loss: true,
            ..self
        }
    }

    /// Whether any loss event has happened.
    pub fn has_loss(&self) -> bool {
        self.start.is_some()
    }

    pub fn on_received(&mut self, seq: u64) {
        self.highest = self.highest.max(seq);
        self.update_discount();
    }

    /// A loss of a packet sent at `sent_at` starts a new loss event iff it was sent more than one
    /// RTT after the start of the current one (RFC 5348 §5.2).
    pub fn is_new_event(&self, sent_at: SimTime, rtt: SimTime) -> bool {
        self.start.is_none_or(|(_, t)| sent_at > t + rtt)
    }

    /// Starts a loss event at packet `seq` sent at `sent_at`, closing the current interval.
    /// The first event instead seeds the history with `first_interval` packets (RFC 5348 §6.3.1:
    /// the interval the throughput equation gives for the current receive rate).
    pub fn start_event(&mut self, seq: u64, sent_at: SimTime, first_interval: f64) {
        let closed = match self.start {
            Some((s, _)) => seq.saturating_sub(s).max(1) as f64,
            None => first_interval.max(1.0),
        };
        // ns-2 tfrc-sink.cc: old discounts persist; the new interval starts undiscounted.
        for m in self.mult.iter_mut() {
            *m *= self.df;
        }
        self.closed.push_front(closed);
        self.mult.push_front(1.0);
        self.closed.truncate(HISTORY_LEN);
        self.mult.truncate(HISTORY_LEN);
        self.df = 1.0;
        self.start = Some((seq, sent_at));
        self.highest = self.highest.max(seq);
    }

    /// Open interval I_0: packets from the start of the current loss event to the highest
    /// received, that loss included (RFC 5348 §5.3) or not (ns-2.35).
    fn open(&self) -> f64 {
        let from_loss = u64::from(!self.open_after_loss);
        self.start.map_or(0.0, |(s, _)| {
            (self.highest.saturating_sub(s) + from_loss) as f64
        })
    }

    /// History discounting (ns-2 `tfrc-sink.cc`, RFC 5348 §5.5): when the open interval exceeds
    /// twice the average, DF = max(2·avg/I_0, MIN_DISCOUNT).
    fn update_discount(&mut self) {
        if !self.discounting || self.closed.is_empty() {
            return;
        }
        // Weighted average of the closed intervals with their multipliers (DF = 1), weighted
        // as the closed-only mean is.
        let weights = &INTERVAL_WEIGHTS[usize::from(self.unsmoothed)..];
        let w = self.mult.iter().zip(weights).map(|(m, w)| m * w);
        let num: f64 = self.closed.iter().zip(w.clone()).map(|(i, w)| i * w).sum();
        let den: f64 = w.sum();
        let avg = num / den;
        let open = self.open();
        self.df = if open > 2.0 * avg {
            (2.0 * avg / open).max(MIN_DISCOUNT)
        } else {
            1.0
        };
    }

    /// Average loss interval (packets); `None` before the first loss event.
    pub fn mean_interval(&self) -> Option<f64> {
        let closed: Vec<f64> = self.closed.iter().copied().collect();
        let scale: Vec<f64> = self.mult.iter().map(|m| m * self.df).collect();
        weighted_means(self.open(), &closed, &scale, self.unsmoothed)
    }

    /// Loss event rate p = 1 / mean interval, in [0, 1]; 0 before the first loss event.
    pub fn loss_event_rate(&self) -> f64 {
        self.mean_interval().map_or(0.0, |m| (1.0 / m).min(1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_interpolate_send_times_and_wait_for_ndupack() {
        let mut g = GapDetector::new(3);
        let t = |ms| SimTime::from_ms(ms);
        assert!(g.on_packet(0, t(0)).is_empty());
        // 1 and 2 missing; 3 sent at 30 ms: interpolated 10 and 20 ms.
        assert!(g.on_packet(3, t(30)).is_empty());
        assert!(g.on_packet(4, t(40)).is_empty());
        let lost = g.on_packet(5, t(50));
        assert_eq!(
            lost,
            vec![
                Lost {
                    seq: 1,
                    sent_at: t(10)
                },
                Lost {
                    seq: 2,
                    sent_at: t(20)
                }
            ]
        );
        // A late packet is ignored.
        assert!(g.on_packet(2, t(20)).is_empty());
        assert_eq!(g.highest(), Some(5));
    }

    #[test]
    fn by_distance_a_loss_is_found_once_a_packet_three_above_it_arrives() {
        // ns-2 rap.cc AckLostPacket(): lost when lastRecv − seqno ≥ 3.
        let mut g = GapDetector::by_distance(3);
        let t = |ms| SimTime::from_ms(ms);
        assert!(g.on_packet(0, t(0)).is_empty());
        // 1 and 2 missing: 3 is only two above 1.
        assert!(g.on_packet(3, t(30)).is_empty());
        assert_eq!(
            g.on_packet(4, t(40)),
            vec![Lost {
                seq: 1,
                sent_at: t(10)
            }]
        );
        assert_eq!(
            g.on_packet(5, t(50)),
            vec![Lost {
                seq: 2,
                sent_at: t(20)
            }]
        );
    }

    #[test]
    fn weights_follow_rfc5348() {
        // RFC 5348 §5.4: w_i = 2(n − i)/(n + 2) for n/2 ≤ i < n.
        for (i, w) in INTERVAL_WEIGHTS.iter().enumerate().skip(4) {
            assert!((w - 2.0 * (8.0 - i as f64) / 10.0).abs() < 1e-12);
        }
    }

    #[test]
    fn open_interval_counts_only_when_it_raises_the_mean() {
        let closed = [100.0; 8];
        let ones = [1.0; 8];
        assert_eq!(max_weighted_mean(10.0, &closed, &ones), Some(100.0));
        // A long open interval of 1000 packets: (1000 + 100·5)/6 = 250.
        let m = max_weighted_mean(1000.0, &closed, &ones).unwrap();
        assert!((m - 250.0).abs() < 1e-9, "{m}");
        assert_eq!(max_weighted_mean(5.0, &[], &[]), None);
    }

    #[test]
    fn loss_events_group_losses_within_one_rtt() {
        let rtt = SimTime::from_ms(100);
        let mut li = LossIntervals::new(false);
        li.start_event(0, SimTime::from_ms(0), 100.0);
        assert!(!li.is_new_event(SimTime::from_ms(50), rtt));
        assert!(li.is_new_event(SimTime::from_ms(101), rtt));
        li.start_event(50, SimTime::from_ms(500), 0.0);
        li.on_received(60);
        // Closed: [50, 100]; open 11: max((11 + 50)/2, (50 + 100)/2) = 75.
        assert!((li.mean_interval().unwrap() - 75.0).abs() < 1e-9);
        assert!((li.loss_event_rate() - 1.0 / 75.0).abs() < 1e-12);
    }

    #[test]
    fn ns2_counts_the_open_interval_from_the_packet_after_the_loss() {
        // Eight closed intervals of 10 packets; the current event began at packet 100 and the
        // highest received is 160. RFC 5348 §5.3: I_0 = 61 (the loss included), mean
        // (61 + 10·5)/6 = 18.5; ns-2.35's sample[0] = 60: mean 110/6.
        let history = |li: LossIntervals| {
            let mut li = li;
            for k in 0..9 {
                li.start_event(10 * k + 20, SimTime::from_ms(1000 * k), 10.0);
            }
            li.on_received(160);
            li.mean_interval().unwrap()
        };
        let rfc = history(LossIntervals::new(false));
        let ns2 = history(LossIntervals::new(false).open_after_loss());
        assert!((rfc - 111.0 / 6.0).abs() < 1e-9, "{rfc}");
        assert!((ns2 - 110.0 / 6.0).abs() < 1e-9, "{ns2}");
    }

    /// ns-2's 2000 receiver (`smooth_ = 0`): the closed-only mean drops the eighth interval and
    /// the closed ones keep their weights whether or not the open one is included.
    #[test]
    fn unsmoothed_weights_use_seven_closed_intervals() {
        let closed = [10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 1000.0];
        let ones = [1.0; 8];
        assert_eq!(weighted_means(0.0, &closed, &ones, true), Some(10.0));
        let rfc = weighted_means(0.0, &closed, &ones, false).unwrap();
        assert!(
            (rfc - (10.0 * 5.8 + 1000.0 * 0.2) / 6.0).abs() < 1e-9,
            "{rfc}"
        );
        // Open interval 70: (70 + 10·5)/6 = 20 with the same weights in both forms.
        assert_eq!(weighted_means(70.0, &closed, &ones, true), Some(20.0));
    }

    #[test]
    fn discounting_shrinks_old_history_after_a_long_loss_free_run() {
        let mut plain = LossIntervals::new(false);
        let mut disc = LossIntervals::new(true);
        for li in [&mut plain, &mut disc] {
            li.start_event(0, SimTime::ZERO, 10.0);
            for k in 1..8u64 {
                li.start_event(10 * k, SimTime::from_ms(1000 * k), 0.0);
            }
            li.on_received(70 + 400);
        }
        // Open interval 401 > 2·10: DF = max(20/401, 0.5) = 0.5 weighs the open interval more.
        let (p, d) = (
            plain.mean_interval().unwrap(),
            disc.mean_interval().unwrap(),
        );
        assert!((p - (401.0 + 10.0 * 5.0) / 6.0).abs() < 1e-9, "{p}");
        let expected = (401.0 + 10.0 * 0.5 * 5.0) / (1.0 + 0.5 * 5.0);
        assert!((d - expected).abs() < 1e-9, "{d} vs {expected}");
        // The discount persists for the old intervals when the next event starts.
        disc.start_event(471, SimTime::from_ms(9000), 0.0);
        assert!(disc.mult.iter().skip(1).all(|&m| (m - 0.5).abs() < 1e-12));
    }
}
