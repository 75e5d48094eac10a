//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: end to end congestion avoidance on a global
//! Internet", IEEE JSAC 13(8), 1995): a window that keeps between α and β of its own packets
//! queued in the network, one packet more or less per RTT.
//!
//! Once per round trip, with BaseRTT the smallest RTT measured and RTT that of the last round,
//! Expected = cwnd/BaseRTT, Actual = cwnd/RTT and Diff = (Expected − Actual)·BaseRTT, in packets
//! (Brakmo & Peterson §3.2): Actual·(RTT − BaseRTT), the flow's rate times the queueing delay,
//! which is the flow's own backlog at a FIFO bottleneck (Mo, La, Anantharam & Walrand, INFOCOM
//! 1999).
//! Congestion avoidance adds a packet when Diff < α, removes one when Diff > β and holds the
//! window otherwise (§3.2). Slow start doubles the window every other round and holds it in
//! between so that the rates can be compared, and ends when Diff exceeds γ (§3.3).
//!
//! As Linux `net/ipv4/tcp_vegas.c`, whose α = 2, β = 4 and γ = 1 are the defaults:
//! - a round's RTT is the smallest sample in it (delayed ACKs only add to a sample);
//! - leaving slow start, the window drops to the one that carries the actual rate,
//!   cwnd·BaseRTT/RTT + 1 packets, if that is smaller;
//! - Vegas's decrease leaves at least [`MIN_VEGAS_PKTS`];
//! - losses and timeouts are TCP's (Reno's halving, RFC 5681), and after them, and after fast
//!   recovery, Vegas waits a whole round of fresh samples before it decides again.
//!
//! ns-2.35's `tcp-vegas.cc` rules are options ([`Ns2Rules`], off by default), for comparisons
//! with it: `whole_diff`, Diff rounded to the nearest whole packet (`int(x + 0.5)`), which
//! turns the band [α, β] into [α − ½, β + ½); `mean_rtt`, a round's RTT the mean of its
//! samples (`v_sumRTT_ / v_cntRTT_`) rather than the smallest; `ack_increase`, a round's +1
//! spread over the next round's ACKs, 1/cwnd each (`v_incr_`), rather than added at once;
//! `eighth_exit`, slow start left by taking an eighth off the window (ssthresh 2) rather than
//! Linux's drop to the window of the actual rate; `sent_diff`, Diff from packets counted as
//! `tcp-vegas.cc` counts them, Expected from those outstanding plus one (`t_seqno_ −
//! last_ack_`) and Actual from those sent in the round (`rttLen`), a round ending with the ACK
//! of the packet that was next when it began (`v_begseq_`), and a round of at most one packet
//! setting BaseRTT; `data_syn`, ns-2.35's start with `syn_` and `delay_growth_`, whose Vegas
//! sends packet 0 as data (its own `output()`), one packet at a time until the window opens to
//! `windowInit_` on the second ACK. With `mean_rtt`, as in `tcp-vegas.cc`, a round's last ACK's
//! sample counts in the next round, and a round without samples takes its length; with
//! `ack_increase`, slow start grows through the same per-ACK increment (1 packet), and each
//! increment waits while cwnd − (outstanding + 1) > 2.
//!
//! Not modelled: Brakmo & Peterson's retransmission changes (§3.1; Linux keeps its own
//! recovery too). In the round model a round is one step: BaseRTT is the path's RTT0 and RTT
//! adds the step's queueing delay.

use super::{decimal, Aimd, WindowConfig};
use crate::control::{AckSample, Controller, LossEvent, RoundSample};
use crate::time::SimTime;

/// Linux `tcp_vegas.c` default α: fewest packets queued before the window grows.
pub const VEGAS_ALPHA: f64 = 2.0;
/// Linux `tcp_vegas.c` default β: most packets queued before the window shrinks.
pub const VEGAS_BETA: f64 = 4.0;
/// Linux `tcp_vegas.c` default γ: packets queued that end slow start.
pub const VEGAS_GAMMA: f64 = 1.0;
/// Largest α, β or γ accepted (packets queued): far above any backlog a scenario holds.
pub const MAX_VEGAS_PKTS: f64 = 1e4;
/// The window Vegas's own decrease leaves at least (packets; Linux `tcp_vegas.c`).
const MIN_VEGAS_PKTS: f64 = 2.0;

/// ns-2.35's initial window (`Agent/TCP set windowInit_ 2`, ns-default.tcl), for `data_syn`.
const NS2_INITIAL_WINDOW: f64 = 2.0;

/// ns-2.35 `tcp-vegas.cc` rules where Linux `tcp_vegas.c` (the default) differs; see the
/// module comment.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Ns2Rules {
    pub whole_diff: bool,
    pub mean_rtt: bool,
    pub ack_increase: bool,
    pub eighth_exit: bool,
    pub sent_diff: bool,
    pub data_syn: bool,
}

/// A TCP Vegas window controller.
#[derive(Clone, Debug)]
pub struct Vegas {
    /// TCP's window: the congestion window, the slow-start threshold and the reactions to losses
    /// and timeouts.
    reno: Aimd,
    /// α: packets queued below which the window grows by one per round, in (0, β].
    alpha: f64,
    /// β: packets queued above which the window shrinks by one per round, ≥ α.
    beta: f64,
    /// γ: packets queued above which slow start ends, > 0.
    gamma: f64,
    /// BaseRTT: the smallest RTT sample so far (none before the first).
    base_rtt: Option<SimTime>,
    /// When the current round began: it ends with the ACK of a packet sent at or after it.
    round_start: SimTime,
    /// The smallest RTT sample of the current round (none yet).
    round_rtt: Option<SimTime>,
    /// The sum (ns) and count of the current round's RTT samples, for `mean_rtt`.
    round_sum_ns: u64,
    round_samples: u32,
    /// Which of ns-2.35's rules apply.
    ns2: Ns2Rules,
    /// With `ack_increase`: packets added per ACK of new data until the next decision.
    incr: f64,
    /// Packets acknowledged cumulatively so far, and the next new packet's number (the
    /// acknowledged ones plus those outstanding at the last ACK): ns-2.35's `last_ack_ + 1`
    /// and `t_seqno_`, for `sent_diff`.
    acked_total: u64,
    next_seq: u64,
    /// The next new packet's number when the round began (`v_begseq_`).
    round_begseq: u64,
    /// Slow start grows in this round; it holds in the next (every other round, §3.3).
    growing: bool,
    /// Diff at the last decision (packets), for the state trace.
    diff: f64,
}

impl Vegas {
    /// Vegas with thresholds α ≤ β and γ (packets queued), starting as TCP does (one packet,
    /// slow start). Trusts its arguments: the catalogue ([`crate::control::catalog`]) checks
    /// them.
    pub fn new(alpha: f64, beta: f64, gamma: f64) -> Vegas {
        Vegas {
            reno: Aimd::tcp(),
            alpha,
            beta,
            gamma,
            base_rtt: None,
            round_start: SimTime::ZERO,
            round_rtt: None,
            round_sum_ns: 0,
            round_samples: 0,
            ns2: Ns2Rules::default(),
            incr: 0.0,
            acked_total: 0,
            next_seq: 0,
            round_begseq: 0,
            growing: true,
            diff: f64::NAN,
        }
    }

    /// The same controller starting as `config` says (checked by the caller).
    pub fn starting(mut self, config: WindowConfig) -> Vegas {
        self.reno = self.reno.starting(config);
        self
    }

    /// The same controller with ns-2.35's `tcp-vegas.cc` rules `ns2`.
    pub fn with_ns2_rules(mut self, ns2: Ns2Rules) -> Vegas {
        self.ns2 = ns2;
        self
    }

    /// The window (packets) and its TCP state.
    pub fn tcp(&self) -> &Aimd {
        &self.reno
    }

    /// A new round begins at `now` with no sample yet.
    fn new_round(&mut self, now: SimTime) {
        self.round_start = now;
        self.round_rtt = None;
        self.round_sum_ns = 0;
        self.round_samples = 0;
        self.round_begseq = self.next_seq;
    }

    /// An RTT sample, if any: BaseRTT and the round's samples.
    fn sample(&mut self, rtt: Option<SimTime>) {
        if let Some(rtt) = rtt {
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
            self.round_rtt = Some(self.round_rtt.map_or(rtt, |r| r.min(rtt)));
            self.round_sum_ns = self.round_sum_ns.saturating_add(rtt.ns());
            self.round_samples += 1;
        }
    }

    /// The once-per-round step, from BaseRTT `base` and the round's RTT `rtt`; `counted`:
    /// with `sent_diff`, the packets outstanding plus one and those sent in the round; `grow`:
    /// the window may grow (the receiver window does not limit it).
    fn end_round(&mut self, base: SimTime, rtt: SimTime, counted: Option<(f64, f64)>, grow: bool) {
        let cwnd = self.reno.cwnd;
        let (base, rtt) = (base.secs(), rtt.secs().max(base.secs()));
        if rtt <= 0.0 {
            return;
        }
        let mut diff = match counted {
            // ns-2.35 tcp-vegas.cc: expect = (t_seqno_ − last_ack_)/v_baseRTT_, v_actual_ =
            // rttLen/rtt.
            Some((outstanding, sent)) => outstanding - sent * base / rtt,
            // Brakmo & Peterson §3.2: Diff = (cwnd/BaseRTT − cwnd/RTT)·BaseRTT.
            None => cwnd * (rtt - base) / rtt,
        };
        if self.ns2.whole_diff {
            diff = (diff + 0.5).trunc(); // ns-2.35 tcp-vegas.cc: int(x + 0.5), toward zero
        }
        self.diff = diff;
        self.incr = 0.0;
        if self.reno.in_slow_start() {
            if self.growing {
                // §3.3: a round of growth, then a round at a fixed window to compare the rates.
                self.growing = false;
            } else if diff > self.gamma && self.ns2.eighth_exit {
                // ns-2.35 tcp-vegas.cc: an eighth off the window, at least 2; ssthresh 2.
                self.reno
                    .set_cwnd((cwnd - cwnd / 8.0).max(MIN_VEGAS_PKTS).min(cwnd));
                self.reno.ssthresh = MIN_VEGAS_PKTS.min(self.reno.cwnd);
            } else if diff > self.gamma {
                // §3.3: Actual fell below Expected by γ; on to congestion avoidance, at the
                // window that carries the actual rate (Linux `tcp_vegas.c`).
                let target = cwnd * base / rtt + 1.0;
                self.reno.set_cwnd(cwnd.min(target));
                self.reno.ssthresh = self.reno.cwnd;
            } else {
                self.growing = true;
                if self.ns2.ack_increase {
                    // ns-2.35 tcp-vegas.cc: v_incr_ = 1, a packet on each ACK of the round.
                    self.incr = 1.0;
                }
            }
        } else if diff < self.alpha {
            // §3.2: too little of the flow's data queued: one packet more per RTT.
            if grow && self.ns2.ack_increase {
                // ns-2.35 tcp-vegas.cc: v_incr_ = 1/cwnd on each ACK of the next round.
                self.incr = 1.0 / cwnd;
            } else if grow {
                self.reno.set_cwnd(cwnd + 1.0);
            }
        } else if diff > self.beta {
            // §3.2: too much queued: one packet less, and stay in congestion avoidance.
            self.reno
                .set_cwnd((cwnd - 1.0).max(MIN_VEGAS_PKTS).min(cwnd));
            self.reno.ssthresh = self.reno.ssthresh.min(self.reno.cwnd);
        }
    }
}

impl Controller for Vegas {
    fn name(&self) -> String {
        let (a, b) = (decimal(self.alpha), decimal(self.beta));
        if self.gamma == VEGAS_GAMMA {
            format!("Vegas({a},{b})")
        } else {
            format!("Vegas({a},{b},{})", decimal(self.gamma))
        }
    }

    /// Samples every RTT; grows in slow start's growth rounds (a packet per growth step of an ACK
    /// of new data, as TCP); decides once per round.
    fn on_ack(&mut self, ack: &AckSample) {
        if self.ns2.data_syn && self.acked_total == 1 && ack.acked_pkts > 0 {
            // ns-2.35: with `syn_`, TcpAgent starts at one packet, and tcp-vegas.cc's own
            // output() sends packet 0 as data; `delay_growth_` opens the initial window
            // (`windowInit_` 2) on the next ACK of new data (`last_ack_ == 0`).
            self.reno.set_cwnd(NS2_INITIAL_WINDOW);
        }
        self.acked_total += ack.acked_pkts;
        self.next_seq = self.acked_total + ack.in_flight_pkts;
        if ack.in_recovery {
            // Linux `tcp_vegas_state`: no Vegas in recovery; a fresh round when it ends.
            self.new_round(ack.now);
            return;
        }
        if ack.acked_pkts == 0 {
            self.sample(ack.rtt);
            return;
        }
        if self.growing && self.reno.in_slow_start() && !ack.rwnd_limited && !self.ns2.ack_increase
        {
            // A growth round: one packet per ACK of new data (RFC 5681 §3.1, ns-2
            // `opencwnd()`) or per packet it acknowledges (`growth_pkts`; Linux
            // `tcp_vegas_cong_avoid` calls `tcp_slow_start`), up to the threshold.
            let grown = self.reno.cwnd + ack.growth_pkts as f64;
            let w = grown.min(self.reno.ssthresh.max(self.reno.cwnd));
            self.reno.set_cwnd(w);
        }
        // Linux `tcp_vegas_cong_avoid`: the round ends with the ACK of data sent after it
        // began; ns-2.35 `tcp-vegas.cc`, with `sent_diff`: with the ACK of the packet that was
        // next when it began (`seqno() >= v_begseq_`).
        let round_ends = if self.ns2.sent_diff {
            self.acked_total > self.round_begseq
        } else {
            ack.rtt.is_some_and(|rtt| ack.now - rtt >= self.round_start)
        };
        // ns-2.35 counts the ACK's own sample in the next round (`v_sumRTT_` is added to after
        // the round's decision); Linux in this one.
        let sample_first = !(self.ns2.mean_rtt && round_ends);
        if sample_first {
            self.sample(ack.rtt);
        }
        if round_ends {
            let round_rtt = match self.round_rtt {
                // ns-2.35 tcp-vegas.cc: v_sumRTT_ / v_cntRTT_, or the round's length without
                // a sample (currentTime − v_begtime_).
                Some(_) if self.ns2.mean_rtt => Some(SimTime(
                    self.round_sum_ns / u64::from(self.round_samples.max(1)),
                )),
                None if self.ns2.mean_rtt => Some(ack.now - self.round_start),
                r => r,
            };
            // rttLen = t_seqno_ − v_begseq_, negative when a timeout took t_seqno_ back.
            let sent = self.next_seq as f64 - self.round_begseq as f64;
            if let (true, Some(rtt)) = (self.ns2.sent_diff && sent <= 1.0, round_rtt) {
                // ns-2.35 tcp-vegas.cc: with at most one packet sent in the round, its RTT
                // is the base (`rttLen <= 1`).
                self.base_rtt = Some(rtt);
            }
            let counted = self
                .ns2
                .sent_diff
                .then(|| ((ack.in_flight_pkts + 1) as f64, sent));
            if let (Some(base), Some(rtt)) = (self.base_rtt, round_rtt) {
                self.end_round(base, rtt, counted, !ack.rwnd_limited);
            }
            self.new_round(ack.now);
        }
        if !sample_first {
            self.sample(ack.rtt);
        }
        // ns-2.35 tcp-vegas.cc: slow start's v_incr_ = 1 ends at ssthresh; v_incr_ goes on
        // each ACK of new data while the window is used, `cwnd_ − (t_seqno_ − last_ack_) <= 2`.
        if self.incr == 1.0 && !self.reno.in_slow_start() {
            self.incr = 0.0;
        }
        let used = self.reno.cwnd - (ack.in_flight_pkts + 1) as f64 <= 2.0;
        if self.incr > 0.0 && !ack.rwnd_limited && used {
            let w = self.reno.cwnd + self.incr;
            self.reno.set_cwnd(w);
        }
    }

    /// Losses and timeouts as TCP (Linux `tcp_vegas` uses `tcp_reno_ssthresh`); Vegas then
    /// waits a round of fresh samples.
    fn on_loss(&mut self, loss: &LossEvent) {
        self.reno.on_loss(loss);
        self.incr = 0.0;
        self.growing = true;
        self.new_round(loss.now);
    }

    /// One round of the round model: a congested round reduces as TCP; otherwise BaseRTT is the
    /// path's and RTT adds the round's queueing delay.
    fn on_round(&mut self, round: &RoundSample) {
        if round.congested {
            self.reno.on_round(round);
            self.growing = true;
            return;
        }
        if self.growing && self.reno.in_slow_start() {
            // A growth round doubles the window, up to the threshold.
            let w = (2.0 * self.reno.cwnd).min(self.reno.ssthresh.max(self.reno.cwnd));
            self.reno.set_cwnd(w);
        }
        let rtt = round.base_rtt + round.queueing_delay;
        self.end_round(round.base_rtt, rtt, None, true);
    }

    fn window(&self) -> f64 {
        self.reno.window()
    }

    fn set_window(&mut self, cwnd_pkts: f64) {
        self.reno.set_window(cwnd_pkts);
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        self.reno.state(out);
        out.push(("base_rtt_s", self.base_rtt.map_or(f64::NAN, SimTime::secs)));
        out.push(("vegas_diff_pkts", self.diff));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::{assert_close, ops, Driver};
    use crate::control::window::MAX_WINDOW_PKTS;
    use proptest::prelude::*;

    fn vegas() -> Vegas {
        Vegas::new(VEGAS_ALPHA, VEGAS_BETA, VEGAS_GAMMA)
    }

    fn at(w: f64) -> Vegas {
        vegas().starting(WindowConfig::avoidance_at(w))
    }

    /// One round-model round with a base RTT of 100 ms and `queue_ms` of queueing delay.
    fn round(c: &mut Vegas, queue_ms: u64) {
        c.on_round(&RoundSample {
            base_rtt: SimTime::from_ms(100),
            queueing_delay: SimTime::from_ms(queue_ms),
            interval: SimTime::from_ms(100 + queue_ms),
            ..RoundSample::default()
        });
    }

    #[test]
    fn diff_is_the_backlog_and_steers_by_one_packet_per_round() {
        // 20 packets, BaseRTT 100 ms. RTT 105 ms: Diff = 20·5/105 = 0.95 < α: grow to 21.
        let mut c = at(20.0);
        round(&mut c, 5);
        assert_close(c.diff, 20.0 * 5.0 / 105.0, 1e-12);
        assert_eq!(c.window(), 21.0);
        // RTT 115 ms: Diff = 21·15/115 = 2.74, within [2, 4]: hold.
        round(&mut c, 15);
        assert_close(c.diff, 21.0 * 15.0 / 115.0, 1e-12);
        assert_eq!(c.window(), 21.0);
        // RTT 130 ms: Diff = 21·30/130 = 4.85 > β: shrink to 20, and stay out of slow start.
        round(&mut c, 30);
        assert_close(c.diff, 21.0 * 30.0 / 130.0, 1e-12);
        assert_eq!((c.window(), c.tcp().ssthresh()), (20.0, 20.0));
    }

    #[test]
    fn the_window_settles_where_its_backlog_is_between_alpha_and_beta() {
        // One flow alone on a path of 50 packets per RTT0 (100 ms): the queue is w − 50 and
        // the queueing delay (w − 50)/50 RTT0; Diff = w − 50 settles in [α, β].
        let mut c = at(10.0);
        for _ in 0..200 {
            let queue = (c.window() - 50.0).max(0.0);
            round(&mut c, (queue / 50.0 * 100.0).round() as u64);
        }
        let backlog = c.window() - 50.0;
        assert!((VEGAS_ALPHA..=VEGAS_BETA).contains(&backlog), "{backlog}");
    }

    #[test]
    fn slow_start_grows_every_other_round_and_ends_above_gamma() {
        let mut c = vegas();
        // No queue: grow, hold, grow, hold: 1, 2, 2, 4, 4.
        let mut trace = Vec::new();
        for _ in 0..4 {
            round(&mut c, 0);
            trace.push(c.window());
        }
        assert_eq!(trace, [2.0, 2.0, 4.0, 4.0]);
        round(&mut c, 0);
        assert_eq!(c.window(), 8.0);
        // A hold round at 8 packets and 50 ms of queue: Diff = 8·50/150 = 2.67 > γ. Slow start
        // ends at the window that carries the actual rate: 8·100/150 + 1 = 6.33.
        round(&mut c, 50);
        assert_close(c.window(), 8.0 * 100.0 / 150.0 + 1.0, 1e-12);
        assert_eq!(c.tcp().ssthresh(), c.window());
    }

    #[test]
    fn acks_sample_rounds_by_the_data_they_acknowledge() {
        // Slow start in the packet engine: a round ends with the ACK of a packet sent after it
        // began. With the driver's fixed 100 ms RTT there is no queue: growth rounds double,
        // hold rounds keep the window.
        let mut d = Driver::new(vegas());
        let mut trace = Vec::new();
        for _ in 0..6 {
            d.ack_round();
            trace.push(d.controller.window());
        }
        // Growth and hold rounds alternate from the start.
        assert_eq!(trace, [2.0, 2.0, 4.0, 4.0, 8.0, 8.0]);
        assert_eq!(d.controller.base_rtt, Some(SimTime::from_ms(100)));
    }

    #[test]
    fn in_congestion_avoidance_acks_change_the_window_once_per_round() {
        let mut d = Driver::started(at(10.0));
        d.controller.base_rtt = Some(SimTime::from_ms(50));
        // Each round's samples say 100 ms: Diff = w·50/100, above β = 4 until w = 8: one
        // packet less a round, then hold.
        for expected in [9.0, 8.0, 8.0, 8.0] {
            d.ack_round();
            assert_eq!(d.controller.window(), expected);
        }
    }

    #[test]
    fn loss_halves_as_tcp_and_recovery_restarts_the_round() {
        let mut d = Driver::started(at(40.0));
        d.loss();
        assert_eq!(d.controller.window(), 20.0);
        d.timeout();
        assert_eq!(
            (d.controller.window(), d.controller.tcp().ssthresh()),
            (1.0, 10.0)
        );
        let mut ack = d.ack(1);
        ack.in_recovery = true;
        d.controller.on_ack(&ack);
        assert_eq!(d.controller.round_start, d.now);
        assert_eq!(d.controller.round_rtt, None);
    }

    fn ns2(whole_diff: bool, mean_rtt: bool, ack_increase: bool, eighth_exit: bool) -> Ns2Rules {
        Ns2Rules {
            whole_diff,
            mean_rtt,
            ack_increase,
            eighth_exit,
            sent_diff: false,
            data_syn: false,
        }
    }

    #[test]
    fn ns2_whole_diff_widens_the_band_by_half_a_packet() {
        let whole = ns2(true, false, false, false);
        // 20 packets, RTT 109 ms: Diff = 20·9/109 = 1.65 < α grows; rounded to 2 it holds.
        let (mut c, mut w) = (at(20.0), at(20.0).with_ns2_rules(whole));
        round(&mut c, 9);
        round(&mut w, 9);
        assert_eq!((c.window(), w.window()), (21.0, 20.0));
        // RTT 128 ms: Diff = 20·28/128 = 4.375 > β shrinks; rounded to 4 it holds.
        let (mut c, mut w) = (at(20.0), at(20.0).with_ns2_rules(whole));
        round(&mut c, 28);
        round(&mut w, 28);
        assert_eq!((c.window(), w.window()), (19.0, 20.0));
    }

    #[test]
    fn ns2_mean_rtt_judges_a_round_by_its_mean_sample() {
        // BaseRTT 50 ms, 10 packets, a round's samples 60, 140 and 100 ms: the smallest gives
        // Diff = 10·10/60 = 1.67 < α (grow); ns-2.35 counts the round's last ACK's own sample
        // in the next round, and the mean of the others, 100 ms, gives 10·50/100 = 5 > β
        // (shrink).
        let window_after = |rules: Ns2Rules| {
            let mut d = Driver::started(at(10.0).with_ns2_rules(rules));
            d.controller.base_rtt = Some(SimTime::from_ms(50));
            d.controller.new_round(d.now);
            let start = d.now;
            for (after_ms, rtt_ms) in [(10, 60), (20, 140), (200, 100)] {
                let mut ack = d.ack(1);
                ack.now = start + SimTime::from_ms(after_ms);
                ack.rtt = Some(SimTime::from_ms(rtt_ms));
                d.controller.on_ack(&ack);
            }
            d.controller.window()
        };
        assert_eq!(window_after(Ns2Rules::default()), 11.0);
        assert_eq!(window_after(ns2(false, true, false, false)), 9.0);
    }

    #[test]
    fn ns2_ack_increase_spreads_the_packet_over_the_next_round() {
        // BaseRTT = RTT: Diff = 0 < α. Linux adds the packet at the round's end; ns-2.35 adds
        // 1/cwnd on that ACK and each of the next round's.
        let mut linux = Driver::started(at(10.0));
        let mut ns = Driver::started(at(10.0).with_ns2_rules(ns2(false, false, true, false)));
        for d in [&mut linux, &mut ns] {
            d.controller.base_rtt = Some(d.rtt);
            d.acks(1);
        }
        assert_eq!(
            (linux.controller.window(), ns.controller.window()),
            (11.0, 10.1)
        );
        ns.acks(9);
        assert_close(ns.controller.window(), 11.0, 1e-12);
    }

    #[test]
    fn ns2_eighth_exit_leaves_slow_start_an_eighth_lower() {
        let mut c = vegas().with_ns2_rules(ns2(false, false, false, true));
        for _ in 0..5 {
            round(&mut c, 0);
        }
        assert_eq!(c.window(), 8.0);
        // A hold round with Diff = 8·50/150 = 2.67 > γ: 8 − 8/8 = 7 packets, ssthresh 2.
        round(&mut c, 50);
        assert_eq!((c.window(), c.tcp().ssthresh()), (7.0, 2.0));
    }

    /// An ACK of one packet at `ms` with `in_flight` packets outstanding after it and an RTT
    /// sample of `rtt_ms`.
    fn ack_at(ms: u64, in_flight: u64, rtt_ms: u64) -> AckSample {
        AckSample {
            now: SimTime::from_ms(ms),
            acked_pkts: 1,
            growth_pkts: 1,
            rtt: Some(SimTime::from_ms(rtt_ms)),
            in_flight_pkts: in_flight,
            ..AckSample::default()
        }
    }

    #[test]
    fn ns2_sent_diff_counts_the_packets_outstanding_and_sent_in_the_round() {
        let rules = Ns2Rules {
            sent_diff: true,
            ..Ns2Rules::default()
        };
        let mut c = at(20.0).with_ns2_rules(rules);
        // The first ACK ends the first round (packet 0 was next when it began): 20 packets
        // sent in it, 19 outstanding, RTT = BaseRTT = 100 ms: Diff = 19 + 1 − 20 = 0 < α.
        c.on_ack(&ack_at(100, 19, 100));
        assert_eq!((c.diff, c.window()), (0.0, 21.0));
        // The round ends with the ACK of packet 20, the one next when it began: not before.
        for k in 2..=20 {
            c.on_ack(&ack_at(100 + k, 20, 125));
        }
        assert_eq!(c.diff, 0.0);
        // The application had 17 packets for the round (20 to 36), 16 outstanding after its
        // last ACK, RTT 125 ms: Diff = 16 + 1 − 17·100/125 = 3.4 holds, where Linux's
        // cwnd·(RTT − BaseRTT)/RTT = 21·25/125 = 4.2 > β would shrink.
        c.on_ack(&ack_at(121, 16, 125));
        assert_close(c.diff, 17.0 - 17.0 * 100.0 / 125.0, 1e-12);
        assert_eq!(c.window(), 21.0);
    }

    #[test]
    fn ns2_start_opens_one_packet_at_a_time_then_grows_on_each_ack() {
        // ns-2.35's Agent/TCP/Vegas with syn_ and delay_growth_ on a 41-ms path: one packet,
        // one more, then a window of 3 that holds for a round and doubles in the next.
        let all = Ns2Rules {
            whole_diff: true,
            mean_rtt: true,
            ack_increase: true,
            eighth_exit: true,
            sent_diff: true,
            data_syn: true,
        };
        let mut c = vegas().with_ns2_rules(all);
        // Packet 0's ACK ends the first round, which had no earlier sample: its length, 41 ms,
        // is its RTT and, with one packet sent, BaseRTT. A hold round follows.
        c.on_ack(&ack_at(41, 0, 41));
        assert_eq!((c.window(), c.base_rtt), (1.0, Some(SimTime::from_ms(41))));
        // Packet 1's ACK: the window opens to 2, the round (of packet 1 alone) ends with Diff
        // = 0 + 1 − 1·41/41 = 0 ≤ γ, and growth begins with this ACK.
        c.on_ack(&ack_at(82, 0, 41));
        assert_eq!((c.diff, c.window()), (0.0, 3.0));
        // Packets 2-4: the first ACK ends that round; a hold round.
        for (k, in_flight) in [(0, 2), (1, 1), (2, 0)] {
            c.on_ack(&ack_at(123 + k, in_flight, 41));
        }
        assert_eq!(c.window(), 3.0);
        // Packets 5-7: the first ACK ends the hold round; a packet on each of its three ACKs.
        for (k, in_flight) in [(0, 2), (1, 2), (2, 2)] {
            c.on_ack(&ack_at(164 + k, in_flight, 41));
        }
        assert_eq!(c.window(), 6.0);
    }

    #[test]
    fn ns2_ack_increase_waits_while_the_window_is_not_used() {
        // ns-2.35 adds v_incr_ only while cwnd − (outstanding + 1) ≤ 2.
        let rules = Ns2Rules {
            ack_increase: true,
            ..Ns2Rules::default()
        };
        let mut d = Driver::started(at(10.0).with_ns2_rules(rules));
        d.controller.base_rtt = Some(d.rtt);
        d.acks(1);
        let w = d.controller.window();
        assert_close(w, 10.1, 1e-12);
        let mut idle = d.ack(1);
        idle.in_flight_pkts = 6; // 10.1 − 7 > 2
        d.controller.on_ack(&idle);
        assert_eq!(d.controller.window(), w);
    }

    #[test]
    fn names_in_notation() {
        assert_eq!(vegas().name(), "Vegas(2,4)");
        assert_eq!(Vegas::new(1.0, 3.0, 1.0).name(), "Vegas(1,3)");
        assert_eq!(Vegas::new(1.5, 3.0, 2.0).name(), "Vegas(1.5,3,2)");
    }

    proptest! {
        #[test]
        fn window_stays_finite_and_at_least_one(
            alpha in 0.1..50.0f64,
            spread in 0.0..50.0f64,
            gamma in 0.1..50.0f64,
            start in prop_oneof![Just(None), (1.0..1e4f64).prop_map(Some)],
            rtts_ms in proptest::collection::vec(1u64..2_000, 1..8),
            ops in ops(),
        ) {
            let c = Vegas::new(alpha, alpha + spread, gamma);
            let c = match start {
                Some(w) => c.starting(WindowConfig::avoidance_at(w)),
                None => c,
            };
            let mut d = Driver::new(c);
            // The RTT changes between stretches of feedback, so Diff takes many values.
            let stretch = ops.len() / rtts_ms.len() + 1;
            for (chunk, rtt) in ops.chunks(stretch).zip(&rtts_ms) {
                d.rtt = SimTime::from_ms(*rtt);
                d.run_checked(chunk);
                prop_assert!(d.controller.window() <= MAX_WINDOW_PKTS);
            }
        }
    }
}
