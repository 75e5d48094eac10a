//! Copa (Arun & Balakrishnan, NSDI 2018): a delay-based window that steers the sending rate
//! λ = cwnd/RTTstanding toward the target rate λt = 1/(δ·dq), dq the queueing delay
//! RTTstanding − RTTmin; n flows at that target hold n/δ packets in the queue, 1/δ each
//! (§2.1). A buffer-filling competitor keeps the queue from ever emptying: Copa then switches
//! to a competitive mode that runs AIMD on 1/δ (§2.2).
//!
//! What is modelled: §2.1 RTTstanding, the smallest RTT of the last srtt/2, and RTTmin, the
//! smallest of the last 10 s; per ACK the window moves by v/(δ·cwnd) per packet acknowledged
//! toward the target, with the velocity v doubling each window once the direction has held for
//! three windows (compared once per window, reset to 1 when the direction turns); slow start
//! doubles the window each round trip until the rate passes the target; packets are paced at
//! 2·cwnd/RTTstanding. §2.2 the mode: the queue counts as nearly empty when dq is below 10% of
//! the largest queueing delay of the last 4 round trips, and Copa is competitive when it has
//! not been so in the last 5; there 1/δ grows by 1 each window without loss and halves on a
//! loss (at most once a round trip), δ never above its default; back in the default mode δ is
//! the default again.
//!
//! Choices the paper leaves open: windows and round trips are packet-timed (a window ends when
//! the data outstanding at its start is acknowledged); RTTmin and RTTstanding use the same
//! windowed minimum filter as BBR (Kathleen Nichols' algorithm); the window never changes
//! faster than slow start, one packet per packet acknowledged, and the velocity stops
//! doubling there (the bound Alibaba's xquic `xqc_copa.c` puts on v: without it a large v, or
//! the small δ of the competitive mode, takes a small window below zero in one ACK); a
//! retransmission timeout sets the window to one packet (RFC 5681's loss window). The window
//! in default mode does not react to loss (the paper's Copa reacts to delay only). The pacing
//! rate's packet size is the largest packet acknowledged so far.

use super::minmax::WindowedFilter;
use super::{acked_packet_bytes, clamp_window, decimal, pace_bps, WindowConfig};
use crate::control::{AckSample, Controller, LossEvent, LossKind, LostPacket};
use crate::time::SimTime;

/// §2.1: RTTmin's window.
const MIN_RTT_WINDOW: SimTime = SimTime::from_ms(10_000);
/// §2.1: windows in the same direction before the velocity starts doubling.
const VELOCITY_AFTER_ROUNDS: u32 = 3;
/// §2.2: the queue is nearly empty below this share of the largest recent queueing delay...
const NEARLY_EMPTY_SHARE: f64 = 0.1;
/// ... of the last 4 round trips; Copa is competitive when not nearly empty for 5.
const MAX_DELAY_RTTS: u64 = 4;
const COMPETITIVE_AFTER_RTTS: u64 = 5;
/// §2.1: the pacing rate is this many windows per RTTstanding.
const PACING_WINDOWS: f64 = 2.0;

/// Copa's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CopaParams {
    /// δ of the default mode (1/δ packets queued per flow), in (0, 1]; §2.1: 0.5.
    pub delta: f64,
    /// The competitive mode of §2.2.
    pub competitive: bool,
}

impl Default for CopaParams {
    fn default() -> Self {
        CopaParams {
            delta: 0.5,
            competitive: true,
        }
    }
}

/// Copa (Arun & Balakrishnan, NSDI 2018).
#[derive(Clone, Debug)]
pub struct Copa {
    p: CopaParams,
    /// The congestion window (packets), finite, in [1, `MAX_WINDOW_PKTS`].
    cwnd: f64,
    /// δ now: the default, or the competitive mode's.
    delta: f64,
    /// In slow start (§2.1) until the rate first passes the target.
    slow_start: bool,
    /// The velocity v, the direction of the last window, and how many windows in a row went
    /// that way.
    velocity: f64,
    up: bool,
    same_direction: u32,
    /// The window's start: cwnd then, and the packets acknowledged by its end.
    window_cwnd: f64,
    window_end: Option<u64>,
    acked: u64,
    /// A loss was signalled in the current window (the competitive mode's AIMD on 1/δ).
    loss_in_window: bool,
    last_decrease: SimTime,
    /// RTTmin, RTTstanding and the largest RTT of the last 4 round trips (their filters over
    /// nanoseconds); the smoothed RTT.
    min_rtt: Option<WindowedFilter>,
    standing_rtt: Option<WindowedFilter>,
    max_rtt: Option<WindowedFilter>,
    srtt: SimTime,
    /// When the queue was last nearly empty; whether the competitive mode is on.
    nearly_empty_at: SimTime,
    competing: bool,
    /// The largest packet acknowledged so far (bytes).
    smss_bytes: u64,
}

impl Copa {
    /// Copa with `p`, starting as `config` says. Trusts its arguments: the catalogue checks
    /// them.
    pub fn new(p: CopaParams, config: WindowConfig) -> Self {
        Copa {
            p,
            cwnd: config.initial_window,
            delta: p.delta,
            slow_start: true,
            velocity: 1.0,
            up: true,
            same_direction: 0,
            window_cwnd: config.initial_window,
            window_end: None,
            acked: 0,
            loss_in_window: false,
            last_decrease: SimTime::ZERO,
            min_rtt: None,
            standing_rtt: None,
            max_rtt: None,
            srtt: SimTime::ZERO,
            nearly_empty_at: SimTime::ZERO,
            competing: false,
            smss_bytes: 0,
        }
    }

    /// dq = RTTstanding − RTTmin and RTTstanding, once there is an RTT sample.
    fn delays(&self) -> Option<(f64, f64)> {
        let min = self.min_rtt.as_ref()?.get();
        let standing = self.standing_rtt.as_ref()?.get();
        Some(((standing - min).max(0.0), standing))
    }

    /// §2.1: takes an RTT sample `rtt` at `now` into the three filters.
    fn sample_rtt(&mut self, now: SimTime, rtt: SimTime) {
        let (t, r) = (now.ns(), rtt.secs());
        let srtt = self.srtt.max(rtt).ns();
        let filters = [
            (&mut self.min_rtt, MIN_RTT_WINDOW.ns(), false),
            (&mut self.standing_rtt, srtt / 2, false),
            (&mut self.max_rtt, MAX_DELAY_RTTS * srtt, true),
        ];
        for (filter, window, max) in filters {
            match filter {
                Some(f) => {
                    f.update(t, r, window);
                }
                None if max => *filter = Some(WindowedFilter::max(t, r)),
                None => *filter = Some(WindowedFilter::min(t, r)),
            }
        }
    }

    /// §2.2: the mode, from how long the queue has not been nearly empty.
    fn update_mode(&mut self, now: SimTime, dq: f64) {
        let (Some(min), Some(max)) = (&self.min_rtt, &self.max_rtt) else {
            return;
        };
        if dq <= NEARLY_EMPTY_SHARE * (max.get() - min.get()) {
            self.nearly_empty_at = now;
        }
        let competing = self.p.competitive
            && now.saturating_sub(self.nearly_empty_at).ns()
                > COMPETITIVE_AFTER_RTTS * self.srtt.ns();
        if self.competing && !competing {
            self.delta = self.p.delta;
        }
        self.competing = competing;
    }

    /// §2.2: a loss of a packet sent at `sent_at` marks the window lossy and, in the
    /// competitive mode, halves 1/δ unless it was sent before the last halving.
    fn halve_on_loss(&mut self, now: SimTime, sent_at: SimTime) {
        self.loss_in_window = true;
        if self.competing && sent_at >= self.last_decrease {
            self.delta = (2.0 * self.delta).min(self.p.delta);
            self.last_decrease = now;
        }
    }

    /// The end of a window (§2.1): the velocity, and in the competitive mode 1/δ + 1 when the
    /// window saw no loss (§2.2).
    fn end_window(&mut self) {
        let up = self.cwnd > self.window_cwnd;
        // Slow start doubles the window without the velocity.
        if !self.slow_start && up == self.up {
            self.same_direction += 1;
            if self.same_direction > VELOCITY_AFTER_ROUNDS {
                // Doubling stops where a round trip's step v/δ reaches the window.
                self.velocity = (2.0 * self.velocity).min((self.delta * self.cwnd).max(1.0));
            }
        } else if !self.slow_start {
            (self.up, self.same_direction, self.velocity) = (up, 1, 1.0);
        }
        if self.competing && !self.loss_in_window {
            self.delta = 1.0 / (1.0 / self.delta + 1.0);
        }
        self.loss_in_window = false;
        self.window_cwnd = self.cwnd;
    }
}

impl Controller for Copa {
    fn name(&self) -> String {
        let delta = decimal(self.p.delta);
        if self.p.competitive {
            format!("Copa({delta})")
        } else {
            format!("Copa({delta},0)")
        }
    }

    /// §2.1: on each ACK, the RTT filters, the mode, the window toward the target rate.
    fn on_ack(&mut self, ack: &AckSample) {
        let now = ack.now;
        self.smss_bytes = self.smss_bytes.max(acked_packet_bytes(ack));
        if let Some(srtt) = ack.srtt {
            self.srtt = srtt;
        }
        if let Some(rtt) = ack.rtt {
            self.sample_rtt(now, rtt);
        }
        let newly = ack.delivered_pkts;
        self.acked += newly;
        if self.window_end.is_none_or(|end| self.acked >= end) {
            if self.window_end.is_some() {
                self.end_window();
            }
            self.window_end = Some(self.acked + ack.in_flight_pkts);
        }
        let Some((dq, standing)) = self.delays() else {
            return;
        };
        self.update_mode(now, dq);
        if newly == 0 {
            return;
        }
        let rate = self.cwnd / standing;
        let target = if dq > 0.0 {
            1.0 / (self.delta * dq)
        } else {
            f64::INFINITY
        };
        let up = rate <= target;
        if self.slow_start && up {
            self.cwnd += newly as f64; // doubles per round trip
        } else {
            self.slow_start = false;
            // v/(δ·cwnd) per packet acknowledged, never faster than slow start.
            let step = (self.velocity / (self.delta * self.cwnd)).min(1.0) * newly as f64;
            self.cwnd += if up { step } else { -step };
        }
        self.cwnd = clamp_window(self.cwnd);
    }

    /// §2.2: a loss halves 1/δ in the competitive mode, at most once a round trip; a timeout
    /// leaves one packet in the window.
    fn on_loss(&mut self, loss: &LossEvent) {
        match loss.kind {
            LossKind::Timeout => self.cwnd = 1.0,
            LossKind::Gap | LossKind::Ecn => self.halve_on_loss(loss.now, loss.sent_at),
        }
    }

    /// The competitive mode hears each lost packet (the transport marks them for controllers
    /// that take delivery samples); the default mode ignores loss.
    fn wants_delivery_rate(&self) -> bool {
        self.p.competitive
    }

    /// §2.2: in the competitive mode each lost packet counts, and 1/δ halves at most once a
    /// round trip (a packet sent after the last halving). The transport's `on_loss` comes once
    /// per recovery, far less often when a runaway 1/δ loses many packets a round trip.
    fn on_lost_packet(&mut self, lost: &LostPacket) {
        self.halve_on_loss(lost.now, lost.sent_at);
    }

    fn window(&self) -> f64 {
        self.cwnd
    }

    /// Copa's standing RTT is a minimum over half a round trip of per-packet samples.
    fn runs_in_rounds(&self) -> bool {
        false
    }

    /// §2.1: 2·cwnd/RTTstanding.
    fn pacing_rate_bps(&self) -> Option<f64> {
        let (_, standing) = self.delays()?;
        pace_bps(PACING_WINDOWS * self.cwnd / standing, self.smss_bytes)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let (dq, standing) = self.delays().unwrap_or((f64::NAN, f64::NAN));
        out.extend([
            ("delta", self.delta),
            ("velocity", self.velocity),
            ("queueing_delay_s", dq),
            ("rtt_standing_s", standing),
            ("competitive", f64::from(u8::from(self.competing))),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::{assert_close, ops, Driver};
    use proptest::prelude::*;

    fn ms(n: u64) -> SimTime {
        SimTime::from_ms(n)
    }

    fn state(c: &Copa, name: &str) -> f64 {
        let mut out = Vec::new();
        c.state(&mut out);
        out.into_iter().find(|(n, _)| *n == name).unwrap().1
    }

    /// Copa in congestion avoidance at `w` packets, RTTmin 40 ms known, the clock at 10 s.
    fn at(p: CopaParams, w: f64) -> Driver<Copa> {
        let mut c = Copa::new(p, WindowConfig::avoidance_at(w));
        c.slow_start = false;
        let mut d = Driver::started(c);
        d.rtt = ms(40);
        d.acks(1);
        d.controller.cwnd = w;
        d
    }

    #[test]
    fn the_window_moves_toward_the_target_rate() {
        // RTTmin 40 ms, RTTstanding 44 ms: dq = 4 ms and λt = 1/(0.5 × 4 ms) = 500 packets/s;
        // at 20 packets λ = 20/44 ms = 454.5 ≤ λt: +v/(δ·cwnd) = 1/(0.5 × 20) per ACK.
        let mut d = at(CopaParams::default(), 20.0);
        d.rtt = ms(44);
        d.now += ms(30); // past the standing window of srtt/2
        let ack = d.ack(1);
        d.controller.on_ack(&ack);
        assert_close(state(&d.controller, "queueing_delay_s"), 0.004, 1e-9);
        assert_close(d.controller.window(), 20.1, 1e-12);
        // The pace is 2·cwnd/RTTstanding in 1000-byte packets.
        let pace = d.controller.pacing_rate_bps().unwrap();
        assert_close(pace, 2.0 * 20.1 / 0.044 * 8000.0, 1e-9);
        // At 30 packets λ = 681.8 > λt: −1/(0.5 × 30).
        let mut d = at(CopaParams::default(), 30.0);
        d.rtt = ms(44);
        d.now += ms(30);
        let ack = d.ack(1);
        d.controller.on_ack(&ack);
        assert_close(d.controller.window(), 30.0 - 1.0 / 15.0, 1e-12);
    }

    #[test]
    fn the_equilibrium_queues_one_over_delta_packets() {
        // §2.1: λ = λt when cwnd/RTTstanding = 1/(δ·dq); the flow's packets in the queue are
        // λ·dq = 1/δ. With RTTmin 40 ms and dq = 4 ms: cwnd = 22 packets, 2 of them queued.
        let delta = 0.5;
        let (rtt_min, dq) = (0.040, 0.004);
        let cwnd = (rtt_min + dq) / (delta * dq);
        assert_close(cwnd, 22.0, 1e-12);
        assert_close(cwnd / (rtt_min + dq) * dq, 1.0 / delta, 1e-12);
        // The controller holds there: one step up below it, one down above it.
        for (w, up) in [(21.9, true), (22.1, false)] {
            let mut d = at(CopaParams::default(), w);
            d.rtt = ms(44);
            d.now += ms(30);
            let ack = d.ack(1);
            d.controller.on_ack(&ack);
            assert_eq!(d.controller.window() > w, up, "{w}");
        }
    }

    #[test]
    fn the_velocity_doubles_after_three_windows_one_way() {
        // An empty queue (dq = 0, λt infinite): the window grows every window, by v/δ; v
        // doubles from the fourth window on (§2.1).
        let mut d = at(CopaParams::default(), 10.0);
        let mut v = Vec::new();
        for _ in 0..6 {
            d.ack_round();
            v.push(state(&d.controller, "velocity"));
        }
        assert_eq!(v, [1.0, 1.0, 1.0, 2.0, 4.0, 8.0]);
        // A window the other way resets it.
        d.rtt = ms(80);
        d.now += ms(50);
        for _ in 0..2 {
            d.ack_round();
        }
        assert_eq!(state(&d.controller, "velocity"), 1.0);
    }

    #[test]
    fn slow_start_doubles_until_the_rate_passes_the_target() {
        let mut d = Driver::started(Copa::new(CopaParams::default(), WindowConfig::default()));
        d.rtt = ms(40);
        let w = d.ack_trace(4);
        assert_eq!(w, [2.0, 4.0, 8.0, 16.0]);
        // A standing queue of 4 ms: λt = 1/(0.5 × 4 ms) = 500/s; one packet more per ACK while
        // cwnd/44 ms is below that, to 22 packets (22/44 ms is λt), then 1/(δ·cwnd) per ACK.
        d.rtt = ms(44);
        d.now += ms(30);
        for _ in 0..6 {
            let ack = d.ack(1);
            d.controller.on_ack(&ack);
        }
        assert!(d.controller.slow_start);
        assert_eq!(d.controller.window(), 22.0);
        let ack = d.ack(1);
        d.controller.on_ack(&ack);
        assert!(!d.controller.slow_start);
        assert!((d.controller.window() - 22.0).abs() <= 1.0 / 11.0 + 1e-12);
    }

    #[test]
    fn a_queue_that_never_empties_makes_copa_competitive() {
        // §2.2: the queue stays at 20-40 ms for more than 5 RTTs: competitive, 1/δ grows by one
        // each window without loss and halves on a loss.
        let mut d = at(CopaParams::default(), 20.0);
        for i in 0..12 {
            d.rtt = ms(if i % 2 == 0 { 60 } else { 80 });
            d.ack_round();
        }
        assert_eq!(state(&d.controller, "competitive"), 1.0);
        let delta = state(&d.controller, "delta");
        assert!(delta < 0.5, "{delta}");
        d.rtt = ms(60);
        d.ack_round();
        let grown = 1.0 / state(&d.controller, "delta");
        assert_close(grown, 1.0 / delta + 1.0, 1e-9);
        d.loss();
        assert_close(1.0 / state(&d.controller, "delta"), grown / 2.0, 1e-9);
        // Each lost packet counts (the transport marks them, as Copa asks for samples in this
        // mode), but 1/δ halves once a round trip: packets sent before the halving do not
        // halve it again, one sent after does.
        assert!(d.controller.wants_delivery_rate());
        let lost = |now: SimTime, sent_at: SimTime| LostPacket {
            now,
            sent_at,
            tx_in_flight_pkts: 20,
            lost_pkts: 1,
            app_limited: false,
        };
        let halved = 1.0 / state(&d.controller, "delta");
        d.controller.on_lost_packet(&lost(d.now, d.now - ms(60)));
        d.controller.on_lost_packet(&lost(d.now, d.now - ms(30)));
        assert_close(1.0 / state(&d.controller, "delta"), halved, 1e-9);
        d.now += ms(70);
        d.controller.on_lost_packet(&lost(d.now, d.now - ms(60)));
        assert_close(1.0 / state(&d.controller, "delta"), halved / 2.0, 1e-9);
        // Once the queue empties, the default mode and δ are back.
        d.rtt = ms(40);
        d.now += ms(200);
        d.ack_round();
        assert_eq!(state(&d.controller, "competitive"), 0.0);
        assert_eq!(state(&d.controller, "delta"), 0.5);
        // Without the competitive mode, δ stays.
        let mut d = at(
            CopaParams {
                competitive: false,
                ..CopaParams::default()
            },
            20.0,
        );
        for _ in 0..12 {
            d.rtt = ms(70);
            d.ack_round();
        }
        assert_eq!(state(&d.controller, "delta"), 0.5);
        assert!(!d.controller.wants_delivery_rate());
    }

    #[test]
    fn named_in_notation() {
        let c = Copa::new(CopaParams::default(), WindowConfig::default());
        assert_eq!(c.name(), "Copa(0.5)");
        let p = CopaParams {
            delta: 0.1,
            competitive: false,
        };
        assert_eq!(Copa::new(p, WindowConfig::default()).name(), "Copa(0.1,0)");
    }

    proptest! {
        #[test]
        fn any_feedback_keeps_the_window_and_pace_finite(
            delta in 0.001..1.0f64,
            competitive in any::<bool>(),
            ops in ops(),
        ) {
            let c = Copa::new(CopaParams { delta, competitive }, WindowConfig::default());
            Driver::started(c).run_checked(&ops);
        }
    }
}
