//! Media controllers: controllers that read a media receiver's per-packet feedback
//! ([`FeedbackSample`](crate::control::FeedbackSample): RFC 8888 or transport-wide feedback,
//! carried by the media transport `transport::rtp`) and set the target rate of a media encoder
//! ([`Controller::target_rate_bps`](crate::control::Controller::target_rate_bps)), one per file:
//!
//! - [`Gcc`]: Google Congestion Control (draft-ietf-rmcat-gcc-02).
//! - [`Nada`]: NADA (RFC 8698).
//! - [`Scream`]: SCReAM (RFC 8298); [`Scream2`]: SCReAMv2
//!   (draft-johansson-ccwg-rfc8298bis-screamv2-03).
//!
//! Shared pieces: the pre-filter's packet groups and their inter-group delay variation
//! ([`ArrivalGroups`]), the receive-rate meter over a sliding window ([`RateMeter`]), and
//! SCReAM's and SCReAMv2's common estimators ([`BaseDelay`], [`QdelayTarget`],
//! [`LossEventRate`]).

mod gcc;
mod nada;
mod scream;
mod scream2;

pub use gcc::{ArrivalFilter, Gcc, GccParams, OveruseDetector, Signal};
pub use nada::{Nada, NadaParams};
pub use scream::{Scream, ScreamParams};
pub use scream2::{Scream2, Scream2Params};

use std::collections::VecDeque;

use crate::control::rate::RateConfig;
use crate::control::{FeedbackSample, PacketStatus};
use crate::time::SimTime;

/// One completed packet group compared with the one before it (draft-ietf-rmcat-gcc-02 §5.1):
/// `d(i) = t(i) − t(i−1) − (T(i) − T(i−1))`, T the send time and t the arrival time of each
/// group's last packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupDelta {
    /// T(i) − T(i−1) (s), ≥ 0.
    pub send_delta_s: f64,
    /// t(i) − t(i−1) (s).
    pub arrival_delta_s: f64,
    /// t(i): arrival of the group's last packet.
    pub arrival: SimTime,
}

impl GroupDelta {
    /// The inter-group delay variation d(i) in milliseconds (the draft's unit).
    pub fn delay_variation_ms(&self) -> f64 {
        (self.arrival_delta_s - self.send_delta_s) * 1e3
    }
}

/// A group of packets under construction: send time of its first and last packet, arrival of
/// its last.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Group {
    first_sent: SimTime,
    last_sent: SimTime,
    last_arrival: SimTime,
}

/// The pre-filter of draft-ietf-rmcat-gcc-02 §5.2: packets sent within `burst_time` of a
/// group's first packet form the group, and so does a packet that arrives less than
/// `burst_time` after the group's last with a negative delay variation against it (a burst
/// after an outage). Each group that closes is compared with the one before it
/// ([`GroupDelta`]). Packets are taken in sequence order; one sent before the current group's
/// last packet (out of order) is ignored (§5.1).
#[derive(Clone, Debug)]
pub struct ArrivalGroups {
    burst_time: SimTime,
    previous: Option<Group>,
    current: Option<Group>,
}

impl ArrivalGroups {
    pub fn new(burst_time: SimTime) -> Self {
        ArrivalGroups {
            burst_time,
            previous: None,
            current: None,
        }
    }

    /// Takes one received packet (sent at `sent`, arrived at `arrived`); returns the delta of
    /// the group it closes, if it starts a new one and there were two before.
    pub fn push(&mut self, sent: SimTime, arrived: SimTime) -> Option<GroupDelta> {
        let Some(cur) = self.current.as_mut() else {
            self.current = Some(Group {
                first_sent: sent,
                last_sent: sent,
                last_arrival: arrived,
            });
            return None;
        };
        if sent < cur.last_sent {
            return None;
        }
        let within = sent.saturating_sub(cur.first_sent) <= self.burst_time;
        let inter_arrival = arrived.saturating_sub(cur.last_arrival);
        let variation = arrived.secs() - cur.last_arrival.secs() - (sent - cur.last_sent).secs();
        let burst =
            arrived >= cur.last_arrival && inter_arrival < self.burst_time && variation < 0.0;
        if within || burst {
            cur.last_sent = sent;
            cur.last_arrival = cur.last_arrival.max(arrived);
            return None;
        }
        let closed = *cur;
        let delta = self.previous.map(|prev| GroupDelta {
            send_delta_s: (closed.last_sent - prev.last_sent).secs(),
            arrival_delta_s: closed.last_arrival.secs() - prev.last_arrival.secs(),
            arrival: closed.last_arrival,
        });
        self.previous = Some(closed);
        self.current = Some(Group {
            first_sent: sent,
            last_sent: sent,
            last_arrival: arrived,
        });
        delta
    }
}

/// The receive rate over a sliding window (draft-ietf-rmcat-gcc-02 §5.5: R_hat(i) = 1/T ·
/// Σ L(j) over the packets received in the last T seconds), from the arrival times feedback
/// reports. `None` until the first packet is a window old.
#[derive(Clone, Debug)]
pub struct RateMeter {
    window: SimTime,
    /// (arrival, bytes) of the packets of the last window, oldest first.
    arrivals: VecDeque<(SimTime, u32)>,
    bytes: u64,
    first: Option<SimTime>,
}

impl RateMeter {
    pub fn new(window: SimTime) -> Self {
        RateMeter {
            window: window.max(SimTime(1)),
            arrivals: VecDeque::new(),
            bytes: 0,
            first: None,
        }
    }

    /// Counts the received packets of a report.
    pub fn push(&mut self, packets: &[PacketStatus]) {
        for p in packets {
            if let Some(at) = p.arrived_at {
                self.first.get_or_insert(at);
                self.arrivals.push_back((at, p.size_bytes));
                self.bytes += p.size_bytes as u64;
            }
        }
    }

    /// The rate (bits/s) over the window ending at the latest arrival counted.
    pub fn rate_bps(&mut self) -> Option<f64> {
        let &(last, _) = self.arrivals.back()?;
        while let Some(&(at, b)) = self.arrivals.front() {
            if at + self.window > last {
                break;
            }
            self.bytes -= b as u64;
            self.arrivals.pop_front();
        }
        let first = self.first?;
        (last.saturating_sub(first) >= self.window)
            .then(|| 8.0 * self.bytes as f64 / self.window.secs())
    }
}

/// The queuing delay as LEDBAT measures it (RFC 6817 §3.4.2), which SCReAM (RFC 8298
/// §4.1.2) and SCReAMv2 (draft-johansson-ccwg-rfc8298bis-screamv2-03 §4.2.1.4) both use:
/// qdelay = one-way delay − base delay, the base the least one-way delay of the last ten
/// one-minute intervals.
#[derive(Clone, Debug, Default)]
pub struct BaseDelay {
    /// Least one-way delay (s) of each of the last ten minutes: (minute, least).
    minutes: VecDeque<(u64, f64)>,
}

impl BaseDelay {
    /// Takes one one-way delay sample `owd` (s) at `at`; returns qdelay (s), ≥ 0.
    pub fn qdelay(&mut self, at: SimTime, owd: f64) -> f64 {
        let minute = at.secs() as u64 / 60;
        match self.minutes.back_mut() {
            Some((m, least)) if *m == minute => *least = least.min(owd),
            _ => {
                self.minutes.push_back((minute, owd));
                if self.minutes.len() > 10 {
                    self.minutes.pop_front();
                }
            }
        }
        let base = self
            .minutes
            .iter()
            .map(|b| b.1)
            .fold(f64::INFINITY, f64::min);
        (owd - base).max(0.0)
    }

    /// qdelay from a report: the one-way delay of its latest-arriving packet; `None` when it
    /// reports none received.
    pub fn from_report(&mut self, fb: &FeedbackSample) -> Option<f64> {
        let (arrived, sent) = fb
            .packets
            .iter()
            .filter_map(|p| p.arrived_at.map(|a| (a, p.sent_at)))
            .max_by_key(|x| x.0)?;
        Some(self.qdelay(arrived, arrived.secs() - sent.secs()))
    }
}

/// s_rtt after a report: RFC 6298's smoothing (gain 1/8) of each report's RTT, as SCReAM
/// (RFC 8298 §4.1.1) and SCReAMv2 (draft-johansson-ccwg-rfc8298bis-screamv2-03 §4.2.1.4) say.
pub fn smoothed_rtt(s_rtt: Option<f64>, fb: &FeedbackSample) -> Option<f64> {
    match fb.rtt {
        Some(rtt) => {
            let r = rtt.secs();
            Some(s_rtt.map_or(r, |s| 0.875 * s + 0.125 * r))
        }
        None => s_rtt,
    }
}

/// A target bitrate's start: the configured initial rate, else `min`, within [`min`, `max`].
pub fn start_rate(config: &RateConfig, min: f64, max: f64) -> f64 {
    config.initial_rate_bps.unwrap_or(min).clamp(min, max)
}

/// The qdelay target that follows competing loss-based flows (RFC 8298 §4.1.2.2;
/// draft-johansson-ccwg-rfc8298bis-screamv2-03 §4.2.1.4.1, the same pseudocode): the history
/// of qdelay/QDELAY_TARGET_LO, its variance over the last `var_samples` and its average over
/// the last `avg_samples`; new = (average + deviation)·QDELAY_TARGET_LO; with losses (a loss
/// event rate above 0.002) the target is 1.5·new, with a steady queue (variance below 0.2)
/// new, else it falls (to max(target/2, new) when new is below QDELAY_TARGET_LO, else by a
/// tenth); always within [QDELAY_TARGET_LO, QDELAY_TARGET_HI].
#[derive(Clone, Debug)]
pub struct QdelayTarget {
    hist: VecDeque<f64>,
    var_samples: usize,
    avg_samples: usize,
}

impl QdelayTarget {
    pub fn new(var_samples: usize, avg_samples: usize) -> Self {
        let (var_samples, avg_samples) = (var_samples.max(1), avg_samples.max(1));
        QdelayTarget {
            hist: VecDeque::with_capacity(var_samples.max(avg_samples)),
            var_samples,
            avg_samples,
        }
    }

    /// Takes one qdelay sample (s); returns the new target from `target`, the bounds
    /// `(lo, hi)` (s) and the loss event rate.
    pub fn adjust(
        &mut self,
        qdelay: f64,
        target: f64,
        (lo, hi): (f64, f64),
        loss_rate: f64,
    ) -> f64 {
        if self.hist.len() == self.var_samples.max(self.avg_samples) {
            self.hist.pop_front();
        }
        self.hist.push_back(qdelay / lo);
        let len = self.hist.len();
        let last = |k: usize| self.hist.iter().skip(len.saturating_sub(k));
        let mean = |k: usize| last(k).sum::<f64>() / k.min(len) as f64;
        let avg = mean(self.avg_samples);
        let m = mean(self.var_samples);
        let var = last(self.var_samples).map(|x| (x - m).powi(2)).sum::<f64>()
            / self.var_samples.min(len) as f64;
        let fresh = (avg + var.sqrt()) * lo;
        if loss_rate > 0.002 {
            1.5 * fresh
        } else if var < 0.2 {
            fresh
        } else if fresh < lo {
            (0.5 * target).max(fresh)
        } else {
            0.9 * target
        }
        .clamp(lo, hi)
    }
}

/// loss_event_rate, "the estimated fraction of RTTs with lost packets detected" (RFC 8298
/// §4.1.1; draft-johansson-ccwg-rfc8298bis-screamv2-03 §4.2.1.4.1); the estimator is ours: an
/// EWMA (weight 1/8) of whether each smoothed RTT saw a loss.
#[derive(Clone, Debug, Default)]
pub struct LossEventRate {
    rate: f64,
    rtt_start: SimTime,
    loss_this_rtt: bool,
}

impl LossEventRate {
    /// Takes one report at `now` (whether it saw a loss; the smoothed RTT, 0.1 s before one);
    /// returns the rate.
    pub fn update(&mut self, now: SimTime, lost: bool, s_rtt: Option<f64>) -> f64 {
        self.loss_this_rtt |= lost;
        if now.saturating_sub(self.rtt_start).secs() >= s_rtt.unwrap_or(0.1) {
            let hit = if self.loss_this_rtt { 1.0 } else { 0.0 };
            self.rate = 0.875 * self.rate + 0.125 * hit;
            self.loss_this_rtt = false;
            self.rtt_start = now;
        }
        self.rate
    }
}

/// Random feedback for the controllers' property tests: `reports` reports of seed `seed`, with
/// random report sizes, send gaps, delays up to 2 s, 20 % losses, 10 % CE marks, gaps between
/// reports up to 0.3 s, missing RTTs, bytes in flight and sender queues (now and then the
/// unlimited queue of a bulk source).
#[cfg(test)]
pub(crate) fn random_feedback(seed: u64, reports: usize) -> Vec<crate::control::FeedbackSample> {
    use crate::rng::{stream, Stream};
    use rand::Rng as _;
    let mut rng = stream(seed, Stream::Controller, 0);
    let (mut now, mut seq) = (SimTime::ZERO, 0u64);
    let mut out = Vec::with_capacity(reports);
    for _ in 0..reports {
        let n = rng.gen_range(0..40u64);
        let mut packets = Vec::new();
        for _ in 0..n {
            now += SimTime(rng.gen_range(0..20_000_000));
            let arrived =
                (rng.gen::<f64>() > 0.2).then(|| now + SimTime(rng.gen_range(0..2_000_000_000)));
            packets.push(PacketStatus {
                seq,
                size_bytes: rng.gen_range(1..1500),
                sent_at: now,
                arrived_at: arrived,
                ce: arrived.is_some() && rng.gen::<f64>() < 0.1,
                ..PacketStatus::default()
            });
            seq += 1;
        }
        now += SimTime(rng.gen_range(0..300_000_000));
        out.push(crate::control::FeedbackSample {
            now,
            report_at: now,
            rtt: (rng.gen::<f64>() > 0.1).then(|| SimTime(rng.gen_range(1..3_000_000_000))),
            in_flight_bytes: rng.gen_range(0..1_000_000),
            queued_bytes: if rng.gen::<f64>() < 0.05 {
                u64::MAX
            } else {
                rng.gen_range(0..200_000)
            },
            packets,
            ..Default::default()
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_ms(x)
    }

    #[test]
    fn packets_sent_within_a_burst_time_form_one_group() {
        let mut g = ArrivalGroups::new(ms(5));
        // Group 1: sent at 0 and 4 ms; group 2 at 10 ms; group 3 at 20 ms closes group 2.
        assert_eq!(g.push(ms(0), ms(50)), None);
        assert_eq!(g.push(ms(4), ms(54)), None);
        assert_eq!(
            g.push(ms(10), ms(62)),
            None,
            "closes group 1, no group before it"
        );
        let d = g.push(ms(20), ms(70)).expect("closes group 2");
        // T(2) − T(1) = 10 − 4 ms; t(2) − t(1) = 62 − 54 ms; d = 2 ms.
        assert!((d.send_delta_s - 0.006).abs() < 1e-12);
        assert!((d.arrival_delta_s - 0.008).abs() < 1e-12);
        assert!((d.delay_variation_ms() - 2.0).abs() < 1e-9);
        assert_eq!(d.arrival, ms(62));
    }

    #[test]
    fn a_burst_after_an_outage_joins_the_current_group() {
        let mut g = ArrivalGroups::new(ms(5));
        g.push(ms(0), ms(100));
        // Sent 20 ms later but arriving 1 ms later, with negative variation: same group.
        assert_eq!(g.push(ms(20), ms(101)), None);
        g.push(ms(40), ms(130));
        let d = g.push(ms(60), ms(150)).expect("closes the second group");
        assert!(
            (d.send_delta_s - 0.020).abs() < 1e-12,
            "T(1) is the burst's last send"
        );
    }

    #[test]
    fn the_rate_meter_counts_one_window() {
        let mut m = RateMeter::new(ms(500));
        let pkt = |at: u64| PacketStatus {
            size_bytes: 1250,
            arrived_at: Some(ms(at)),
            ..PacketStatus::default()
        };
        m.push(&[pkt(0)]);
        assert_eq!(m.rate_bps(), None, "less than a window of history");
        let later: Vec<_> = (1..=100).map(|k| pkt(10 * k)).collect();
        m.push(&later);
        // Arrivals in (500, 1000] ms: 50 packets of 10 kb in 0.5 s.
        assert_eq!(m.rate_bps(), Some(1e6));
    }
}
