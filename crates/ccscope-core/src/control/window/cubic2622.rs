//! CUBIC as Linux 2.6.22's `net/ipv4/tcp_cubic.c` computes it, in the kernel's integers: the
//! module ns-2.35's `Agent/TCP/Linux` runs (`tcp/linux/src/tcp_cubic.c`, "from
//! linux-2.6.22.6"). [`super::Cubic`] is RFC 9438's CUBIC in real numbers; this is the one
//! kernel's arithmetic, for comparisons with ns-2.35 and with measurements of that era.
//!
//! What the integers change, each a property of the 2.6.22 code:
//! - the window is a whole number of packets; congestion avoidance adds one packet once
//!   `cnt + 1` ACKs have come since the last (`snd_cwnd_cnt` runs 0..=cnt), where `cnt` is
//!   `cwnd / (target − cwnd)`, floored, and `100·cwnd` at or above the target
//!   (`bictcp_cong_avoid`, `bictcp_update`); so the window stops exactly at `W_max` and a
//!   loss there leaves `W_max` where it was;
//! - the target is the cubic of a millisecond clock (`jiffies`, HZ = 1000) counted in 1/1024 s,
//!   read one least RTT ahead (`delay_min`, from timestamps, in 1/8 ms and not sampled in the
//!   first second of a stage); K and the cubic use C = `bic_scale`·10/1024 and β =
//!   `beta`/1024, both integers;
//! - `cnt` is divided by the delayed-ACK ratio estimate, `delayed_ack`/16, an average of the
//!   packets per ACK in the open state (`bictcp_acked`). It starts at 2 (32/16); with one
//!   packet per ACK its integer update `d += n − ⌊d/16⌋` takes it to 31 and holds it there
//!   (31 + 1 − 1), so a receiver that ACKs every packet makes the window approach its target
//!   about 1.94 times as fast as one that delays its ACKs;
//! - above the origin the growth is at most `max_increment` = 16 packets per 100 ms of least
//!   RTT; until the first loss `cnt` is 50; the Reno-friendly estimate `tcp_cwnd` gains a
//!   packet per `⌊cwnd·beta_scale/8⌋` ACKs, `beta_scale` = ⌊⌊8(1024 + b)/3⌋/(1024 − b)⌋
//!   (RFC 9438 §4.3's W_est with α = 8/`beta_scale`);
//! - `cnt` is recomputed when the window has changed or 1000/32 ms have passed;
//! - slow start (`tcp_slow_start`, no byte counting) adds a packet per ACK while
//!   `cwnd ≤ ssthresh`, sharing `snd_cwnd_cnt` with congestion avoidance; no HyStart (2.6.29
//!   added it);
//! - growth only when the packets in flight before the ACK fill the window (`in_flight ≥
//!   snd_cwnd`, ns-2.35's `tcp_is_cwnd_limited`) and not in fast recovery;
//! - a loss: `ssthresh = max(⌊cwnd·b/1024⌋, 2)`, the window set to it (ns-2.35's TCP/Linux),
//!   `W_max` = cwnd (fast convergence: ⌊cwnd(1024 + b)/2048⌋ below the last `W_max`);
//! - a timeout: the same ssthresh from the window then, the window one packet, and every
//!   variable of the module reset (`bictcp_state` on `TCP_CA_Loss`): `W_max` and the least RTT
//!   forgotten, `cnt` 50 again until the next loss.
//!
//! K is the exact integer cube root; the kernel's table-and-Newton `cubic_root` is within
//! 0.2% of it (its stated average error), a few milliseconds of K.

use super::MAX_WINDOW_PKTS;
use crate::control::{AckSample, Controller, LossEvent, LossKind};
use crate::time::SimTime;

use super::WindowConfig;

/// The module's `BICTCP_BETA_SCALE`: β and C are integers over 1024.
const SCALE: u32 = 1024;
/// `BICTCP_HZ`: the cubic's clock counts 1/1024 s.
const CUBIC_HZ_SHIFT: u32 = 10;
/// Jiffies per second (ns-2.35's `HZ`, `JIFFY_RATIO`).
const HZ: u32 = 1000;
/// `ACK_RATIO_SHIFT`: `delayed_ack` is the packets per ACK times 16.
const ACK_RATIO_SHIFT: u32 = 4;
/// `max_increment`: at most this many packets per 100 ms of least RTT above the origin.
const MAX_INCREMENT: u32 = 16;
/// The window's ceiling in packets (`snd_cwnd_clamp`).
const CLAMP: u32 = MAX_WINDOW_PKTS as u32;

/// The module's parameters, as the kernel holds them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cubic2622Params {
    /// `bic_scale`: C = `bic_scale`·10/1024 packets/s³ (41: C ≈ 0.4).
    pub bic_scale: u32,
    /// `beta`: the window kept by a reduction, over 1024 (819 ≈ 0.8).
    pub beta: u32,
    /// `fast_convergence`.
    pub fast_convergence: bool,
}

impl Cubic2622Params {
    /// The integers nearest C and β (C = `bic_scale`·10/1024, β = `beta`/1024); C in (0, 100]
    /// and β in (0, 1), as the catalogue checks them, give `bic_scale` ≥ 1 and `beta` in
    /// [1, 1023].
    pub fn from_real(c: f64, beta: f64, fast_convergence: bool) -> Self {
        let bic_scale = (c * f64::from(SCALE) / 10.0).round().max(1.0) as u32;
        let beta = (beta * f64::from(SCALE))
            .round()
            .clamp(1.0, f64::from(SCALE - 1)) as u32;
        Cubic2622Params {
            bic_scale,
            beta,
            fast_convergence,
        }
    }
}

/// `struct bictcp`: the module's per-connection state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Bictcp {
    cnt: u32,
    last_max_cwnd: u32,
    loss_cwnd: u32,
    last_cwnd: u32,
    last_time: u32,
    origin: u32,
    k: u32,
    delay_min: u32,
    epoch_start: u32,
    ack_cnt: u32,
    tcp_cwnd: u32,
    delayed_ack: u32,
}

impl Bictcp {
    /// `bictcp_reset`.
    fn reset() -> Self {
        Bictcp {
            delayed_ack: 2 << ACK_RATIO_SHIFT,
            ..Bictcp::default()
        }
    }
}

#[derive(Clone, Debug)]
pub struct Cubic2622 {
    p: Cubic2622Params,
    /// `beta_scale`, `cube_rtt_scale` and `cube_factor`, computed once as the module does.
    beta_scale: u32,
    cube_rtt_scale: u32,
    cube_factor: u64,
    cwnd: u32,
    ssthresh: u32,
    cwnd_cnt: u32,
    ca: Bictcp,
    last_reduction: SimTime,
}

/// The kernel's clock at `t`: whole milliseconds (ns-2.35 truncates).
fn jiffies(t: SimTime) -> u32 {
    (t.ns() / 1_000_000) as u32
}

/// ⌊∛a⌋.
fn cube_root(a: u64) -> u32 {
    let mut x = (a as f64).cbrt() as u64;
    while x.saturating_mul(x).saturating_mul(x) > a {
        x -= 1;
    }
    while (x + 1).saturating_mul(x + 1).saturating_mul(x + 1) <= a {
        x += 1;
    }
    x as u32
}

impl Cubic2622 {
    pub fn new(p: Cubic2622Params) -> Self {
        let b = p.beta;
        let cube_rtt_scale = p.bic_scale * 10;
        Cubic2622 {
            p,
            beta_scale: 8 * (SCALE + b) / 3 / (SCALE - b),
            cube_rtt_scale,
            cube_factor: (1u64 << (10 + 3 * CUBIC_HZ_SHIFT)) / u64::from(cube_rtt_scale),
            cwnd: 1,
            ssthresh: CLAMP,
            cwnd_cnt: 0,
            ca: Bictcp::reset(),
            last_reduction: SimTime::ZERO,
        }
        .starting(WindowConfig::default())
    }

    /// The same controller (re)starting as `config` says: its window in whole packets.
    pub fn starting(mut self, config: WindowConfig) -> Self {
        self.cwnd = (config.initial_window.floor() as u32).clamp(1, CLAMP);
        self.ssthresh = if config.slow_start { CLAMP } else { self.cwnd };
        self.cwnd_cnt = 0;
        self.ca = Bictcp::reset();
        self
    }

    /// `bictcp_update`: `cnt` for the window `cwnd` at `now` (jiffies).
    fn update(&mut self, now: u32) {
        let cwnd = self.cwnd;
        let ca = &mut self.ca;
        ca.ack_cnt = ca.ack_cnt.wrapping_add(1);
        if ca.last_cwnd == cwnd && (now.wrapping_sub(ca.last_time) as i32) <= (HZ / 32) as i32 {
            return;
        }
        ca.last_cwnd = cwnd;
        ca.last_time = now;
        if ca.epoch_start == 0 {
            ca.epoch_start = now;
            ca.ack_cnt = 1;
            ca.tcp_cwnd = cwnd;
            if ca.last_max_cwnd <= cwnd {
                ca.k = 0;
                ca.origin = cwnd;
            } else {
                let gap = u64::from(ca.last_max_cwnd - cwnd);
                ca.k = cube_root(self.cube_factor.wrapping_mul(gap));
                ca.origin = ca.last_max_cwnd;
            }
        }
        // The stage's time one least RTT ahead, in 1/1024 s.
        let t = (now
            .wrapping_add(ca.delay_min >> 3)
            .wrapping_sub(ca.epoch_start)
            << CUBIC_HZ_SHIFT)
            / HZ;
        let offs = u64::from(t.abs_diff(ca.k));
        let delta = (u64::from(self.cube_rtt_scale)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            >> (10 + 3 * CUBIC_HZ_SHIFT)) as u32;
        let target = if t < ca.k {
            ca.origin.wrapping_sub(delta)
        } else {
            ca.origin.wrapping_add(delta)
        };
        ca.cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            cwnd.wrapping_mul(100)
        };
        if ca.delay_min > 0 {
            let least =
                cwnd.wrapping_mul(HZ * 8) / (10 * MAX_INCREMENT).wrapping_mul(ca.delay_min).max(1);
            if ca.cnt < least && t >= ca.k {
                ca.cnt = least;
            }
        }
        if ca.loss_cwnd == 0 {
            ca.cnt = 50;
        }
        // The Reno-friendly estimate (at least one ACK per packet: below β = 3/1024 the
        // kernel's count would be 0 and its loop would not end).
        let per_packet = (cwnd.wrapping_mul(self.beta_scale) >> 3).max(1);
        while ca.ack_cnt > per_packet {
            ca.ack_cnt -= per_packet;
            ca.tcp_cwnd += 1;
        }
        if ca.tcp_cwnd > cwnd {
            let most = cwnd / (ca.tcp_cwnd - cwnd);
            ca.cnt = ca.cnt.min(most);
        }
        ca.cnt = ((ca.cnt << ACK_RATIO_SHIFT) / ca.delayed_ack.max(1)).max(1);
    }

    /// `bictcp_recalc_ssthresh`: ends the stage, records `W_max`, returns the new ssthresh.
    fn recalc_ssthresh(&mut self) -> u32 {
        let (cwnd, b) = (self.cwnd, self.p.beta);
        let ca = &mut self.ca;
        ca.epoch_start = 0;
        ca.last_max_cwnd = if cwnd < ca.last_max_cwnd && self.p.fast_convergence {
            cwnd.wrapping_mul(SCALE + b) / (2 * SCALE)
        } else {
            cwnd
        };
        ca.loss_cwnd = cwnd;
        (cwnd.wrapping_mul(b) / SCALE).max(2)
    }
}

impl Controller for Cubic2622 {
    fn name(&self) -> String {
        format!(
            "CUBIC-2.6.22({}/1024,{}/1024)",
            self.cube_rtt_scale, self.p.beta
        )
    }

    fn on_ack(&mut self, ack: &AckSample) {
        if ack.acked_pkts == 0 {
            return;
        }
        let now = jiffies(ack.now);
        // `bictcp_acked` in the open state: delayed_ack += n − ⌊delayed_ack/16⌋, in u32.
        if !ack.in_recovery && !ack.timeout_outstanding {
            let n = (ack.acked_pkts as u32).wrapping_sub(self.ca.delayed_ack >> ACK_RATIO_SHIFT);
            self.ca.delayed_ack = self.ca.delayed_ack.wrapping_add(n);
        }
        if ack.in_recovery || ack.rwnd_limited {
            return;
        }
        // `measure_delay`: the least RTT from the ACK's echoed timestamp (ns-2.35 rounds it to
        // a millisecond), in 1/8 ms, not in the first second of a stage.
        if let Some(rtt) = ack.rtt {
            if now.wrapping_sub(self.ca.epoch_start) as i32 >= HZ as i32 {
                let sent_ns = ack.now.ns().saturating_sub(rtt.ns());
                let echo = ((sent_ns + 500_000) / 1_000_000) as u32;
                let delay = (now.wrapping_sub(echo) << 3).max(1);
                if self.ca.delay_min == 0 || self.ca.delay_min > delay {
                    self.ca.delay_min = delay;
                }
            }
        }
        let in_flight_before = ack.in_flight_pkts + ack.delivered_pkts;
        if in_flight_before < u64::from(self.cwnd) {
            return;
        }
        if self.cwnd <= self.ssthresh {
            // `tcp_slow_start`: snd_cwnd_cnt gains the window; a packet per window of it.
            self.cwnd_cnt = self.cwnd_cnt.wrapping_add(self.cwnd);
            while self.cwnd_cnt >= self.cwnd {
                self.cwnd_cnt -= self.cwnd;
                self.cwnd = (self.cwnd + 1).min(CLAMP);
            }
        } else {
            self.update(now);
            if self.cwnd_cnt >= self.ca.cnt {
                self.cwnd = (self.cwnd + 1).min(CLAMP);
                self.cwnd_cnt = 0;
            } else {
                self.cwnd_cnt += 1;
            }
        }
    }

    fn on_loss(&mut self, loss: &LossEvent) {
        if loss.kind == LossKind::Timeout {
            // `enter_loss` in ns-2.35's TCP/Linux, then `bictcp_state(TCP_CA_Loss)`.
            self.ssthresh = self.recalc_ssthresh();
            self.cwnd = 1;
            self.cwnd_cnt = 0;
            self.ca = Bictcp::reset();
        } else if loss.sent_at >= self.last_reduction {
            // ns-2.35's TCP/Linux entering recovery: the window set to the new ssthresh.
            self.ssthresh = self.recalc_ssthresh();
            self.cwnd = self.ssthresh;
            self.cwnd_cnt = 0;
        } else {
            return;
        }
        self.last_reduction = loss.now;
    }

    /// `bictcp_undo_cwnd`: the window back to at least the last `W_max`.
    fn on_undo(&mut self, _now: SimTime) {
        self.cwnd = self.cwnd.max(self.ca.last_max_cwnd).clamp(1, CLAMP);
    }

    fn window(&self) -> f64 {
        f64::from(self.cwnd)
    }

    /// Per-ACK integers have no per-round form.
    fn runs_in_rounds(&self) -> bool {
        false
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([
            ("ssthresh_pkts", f64::from(self.ssthresh)),
            ("w_max_pkts", f64::from(self.ca.last_max_cwnd)),
            ("k_s", f64::from(self.ca.k) / f64::from(SCALE)),
            ("w_est_pkts", f64::from(self.ca.tcp_cwnd)),
            ("cnt", f64::from(self.ca.cnt)),
            ("ack_ratio", f64::from(self.ca.delayed_ack) / 16.0),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::{ops, Driver};
    use proptest::prelude::*;

    /// ns-2.35's module: C = 410/1024, β = 819/1024, fast convergence off.
    fn ns2() -> Cubic2622Params {
        Cubic2622Params::from_real(410.0 / 1024.0, 819.0 / 1024.0, false)
    }

    /// In congestion avoidance at `w` packets, the driver's clock at 10 s, RTT 100 ms.
    fn at(w: f64) -> Driver<Cubic2622> {
        Driver::started(Cubic2622::new(ns2()).starting(WindowConfig::avoidance_at(w)))
    }

    fn state(c: &Cubic2622, name: &str) -> f64 {
        let mut out = Vec::new();
        c.state(&mut out);
        out.into_iter().find(|(n, _)| *n == name).unwrap().1
    }

    #[test]
    fn the_module_constants_are_the_kernels() {
        let p = ns2();
        assert_eq!((p.bic_scale, p.beta), (41, 819));
        let c = Cubic2622::new(p);
        // 8·1843/3 = 4914 (integer), / 205 = 23: α = 8/23 per RTT.
        assert_eq!(c.beta_scale, 23);
        assert_eq!(c.cube_rtt_scale, 410);
        assert_eq!(c.cube_factor, (1u64 << 40) / 410);
        assert_eq!(Cubic2622Params::from_real(0.4, 0.7, true).beta, 717);
    }

    #[test]
    fn cube_root_is_the_integer_floor() {
        for a in [0u64, 1, 7, 8, 9, 26, 27, 1 << 40, u64::MAX / 2] {
            let x = u64::from(cube_root(a));
            assert!(x * x * x <= a && (x + 1).pow(3) > a, "{a}: {x}");
        }
    }

    #[test]
    fn the_clock_is_whole_milliseconds() {
        assert_eq!(jiffies(SimTime::from_secs_f64(1.2349)), 1234);
        assert_eq!(jiffies(SimTime::ZERO), 0);
    }

    /// With an ACK per packet, `delayed_ack` goes 32 → 31 and stays: u32 wrap-around of
    /// 1 − 2, then 1 − ⌊31/16⌋ = 0. ACKs of two packets would hold it at 32.
    #[test]
    fn the_ack_ratio_sticks_at_31_16ths_with_an_ack_per_packet() {
        let mut d = at(20.0);
        assert_eq!(state(&d.controller, "ack_ratio"), 2.0);
        d.acks(200);
        assert_eq!(state(&d.controller, "ack_ratio"), 31.0 / 16.0);
        let mut two = at(20.0);
        for _ in 0..100 {
            two.now += SimTime::from_ms(5);
            let ack = two.ack(2);
            two.controller.on_ack(&ack);
        }
        assert_eq!(state(&two.controller, "ack_ratio"), 2.0);
    }

    /// The ratio is averaged in the open state only: not over a recovery's ACKs, nor over
    /// those that follow a timeout while what it found outstanding is being acknowledged
    /// (Linux's `TCP_CA_Loss`), whose cumulative jumps would raise it.
    #[test]
    fn the_ack_ratio_skips_recovery_and_loss_state_acks() {
        for (in_recovery, timeout_outstanding) in [(true, false), (false, true)] {
            let mut d = at(20.0);
            for _ in 0..50 {
                d.now += SimTime::from_ms(5);
                let ack = AckSample {
                    in_recovery,
                    timeout_outstanding,
                    ..d.ack(8)
                };
                d.controller.on_ack(&ack);
            }
            assert_eq!(state(&d.controller, "ack_ratio"), 2.0);
        }
    }

    /// A loss at 10 packets: ssthresh ⌊10·819/1024⌋ = 7, not 8 (β·cwnd = 7.998), and the
    /// window set to it; at 2 packets the floor of 2 holds.
    #[test]
    fn a_loss_cuts_in_whole_packets() {
        let mut d = at(10.0);
        d.loss();
        assert_eq!(d.controller.window(), 7.0);
        assert_eq!(state(&d.controller, "ssthresh_pkts"), 7.0);
        assert_eq!(state(&d.controller, "w_max_pkts"), 10.0);
        let mut small = at(2.0);
        small.loss();
        assert_eq!(small.controller.window(), 2.0);
    }

    /// After a loss at 100 packets the window climbs the concave cubic in whole packets and
    /// stops at W_max exactly: at `cnt = 100·cwnd` it would take 100 RTTs more to pass it,
    /// and K = ∛(20·1024/0.4) ms ≈ 3.71 s is not yet reached.
    #[test]
    fn the_window_stops_at_w_max_until_k() {
        let mut d = at(100.0);
        // A loss first, so that cnt is the cubic's and not the first epoch's 50.
        d.loss();
        assert_eq!(d.controller.window(), 79.0);
        let mut reached = None;
        for round in 0..35 {
            d.ack_round();
            let w = d.controller.window();
            assert!(w <= 100.0, "round {round}: {w}");
            if w == 100.0 && reached.is_none() {
                reached = Some(round);
            }
        }
        assert!(reached.is_some_and(|r| r < 35), "{reached:?}");
        let k = state(&d.controller, "k_s");
        assert!((3.6..3.8).contains(&k), "{k}");
    }

    /// A timeout: one packet, ssthresh from the window then, and the module reset as
    /// `bictcp_state(TCP_CA_Loss)` resets it (W_max and the ACK ratio forgotten).
    #[test]
    fn a_timeout_resets_the_module() {
        let mut d = at(40.0);
        d.acks(100);
        assert_eq!(state(&d.controller, "ack_ratio"), 31.0 / 16.0);
        let before = d.controller.window();
        d.timeout();
        assert_eq!(d.controller.window(), 1.0);
        let ssthresh = (before * 819.0 / 1024.0).floor();
        assert_eq!(state(&d.controller, "ssthresh_pkts"), ssthresh);
        assert_eq!(state(&d.controller, "w_max_pkts"), 0.0);
        assert_eq!(state(&d.controller, "ack_ratio"), 2.0);
    }

    /// Slow start adds a packet per ACK up to ssthresh inclusive (2.6.22's `<=`).
    #[test]
    fn slow_start_runs_to_ssthresh_inclusive() {
        let mut d = at(40.0);
        d.timeout();
        let ssthresh = state(&d.controller, "ssthresh_pkts");
        for _ in 0..(ssthresh as usize) {
            d.acks(1);
        }
        assert_eq!(d.controller.window(), ssthresh + 1.0);
    }

    /// No growth unless the window was full when the ACK came (ns-2.35's
    /// `tcp_is_cwnd_limited`), nor in a recovery.
    #[test]
    fn no_growth_below_a_full_window_or_in_recovery() {
        let mut d = at(20.0);
        for in_recovery in [false, true] {
            for _ in 0..100 {
                d.now += SimTime::from_ms(5);
                let ack = AckSample {
                    in_flight_pkts: if in_recovery { 30 } else { 5 },
                    in_recovery,
                    ..d.ack(1)
                };
                d.controller.on_ack(&ack);
            }
            assert_eq!(d.controller.window(), 20.0, "in recovery: {in_recovery}");
        }
    }

    #[test]
    fn named_with_the_modules_integers() {
        assert_eq!(
            Cubic2622::new(ns2()).name(),
            "CUBIC-2.6.22(410/1024,819/1024)"
        );
    }

    proptest! {
        #[test]
        fn window_stays_whole_finite_and_at_least_one(
            c in 0.01..100.0f64,
            beta in 0.001..0.999f64,
            fast_convergence in any::<bool>(),
            ops in ops(),
        ) {
            let p = Cubic2622Params::from_real(c, beta, fast_convergence);
            let mut d = Driver::new(Cubic2622::new(p));
            d.run_checked(&ops);
            let w = d.controller.window();
            prop_assert_eq!(w, w.floor());
        }
    }
}
