//! DCTCP (RFC 8257; Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010): TCP whose
//! response to ECN marks is in proportion to how many bytes were marked.
//!
//! Per window of data, the sender measures the fraction F of acknowledged bytes that carried
//! ECN-Echo and keeps a moving average α ← (1 − g)·α + g·F (RFC 8257 §3.3 steps 1–8), α starting
//! at 1. When ECN-Echo arrives it sets cwnd ← cwnd·(1 − α/2), at most once per window of data
//! (§3.3 step 9; the transport passes on at most one mark a window, RFC 3168 §6.1.2). Slow
//! start, congestion avoidance, losses and timeouts are TCP's (§3.5: loss as RFC 5681).
//!
//! A window of data ends with the ACK of a packet sent after it began: the ACK beyond SND.NXT
//! as the window began (§3.3 steps 4 and 7). The cut keeps its fraction: at DCTCP's small α,
//! flooring it to whole packets would take up to a packet more than α/2 asks.
//!
//! The receiver echoes CE exactly only if it acknowledges every change of CE state at once
//! (§3.2); [`Controller::wants_exact_ce_echo`] asks the TCP transport for that. The flow must be
//! ECN-capable (§3; Linux sets `TCP_CONG_NEEDS_ECN`). The round model has no marks: there DCTCP
//! is TCP.

use super::{fraction, Aimd, WindowConfig};
use crate::control::{AckSample, Controller, LossEvent, LossKind, RoundSample};
use crate::time::SimTime;

/// The estimation gain g of RFC 8257 §4 and Alizadeh et al. §3.4 (and Linux's
/// `dctcp_shift_g` = 4): 1/16.
pub const DCTCP_G: f64 = 1.0 / 16.0;

/// α at the start: RFC 8257 §3.3, "initialized to 1" (Linux `dctcp_alpha_on_init`), so the
/// first mark halves the window as TCP would.
const INITIAL_ALPHA: f64 = 1.0;

/// A DCTCP window controller.
#[derive(Clone, Debug)]
pub struct Dctcp {
    /// TCP's window: growth, the slow-start threshold and the reactions to losses and timeouts.
    reno: Aimd,
    /// Estimation gain g, in (0, 1].
    g: f64,
    /// DCTCP.Alpha: the moving average of the fraction of bytes marked, in [0, 1].
    alpha: f64,
    /// DCTCP.BytesAcked: bytes acknowledged in the current window of data.
    acked_bytes: u64,
    /// DCTCP.BytesMarked: of those, bytes acknowledged with ECN-Echo.
    marked_bytes: u64,
    /// When the current window of data began (DCTCP.WindowEnd as a time).
    window_start: SimTime,
}

impl Dctcp {
    /// DCTCP with gain `g`, starting as TCP does (one packet, slow start). Trusts its argument:
    /// the catalogue ([`crate::control::catalog`]) checks it.
    pub fn new(g: f64) -> Dctcp {
        Dctcp {
            reno: Aimd::tcp(),
            g,
            alpha: INITIAL_ALPHA,
            acked_bytes: 0,
            marked_bytes: 0,
            window_start: SimTime::ZERO,
        }
    }

    /// The same controller starting as `config` says (checked by the caller).
    pub fn starting(mut self, config: WindowConfig) -> Dctcp {
        self.reno = self.reno.starting(config);
        self
    }

    /// DCTCP.Alpha, in [0, 1].
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The window (packets) and its TCP state.
    pub fn tcp(&self) -> &Aimd {
        &self.reno
    }
}

impl Controller for Dctcp {
    fn name(&self) -> String {
        format!("DCTCP({})", fraction(self.g))
    }

    /// Counts the bytes acknowledged and marked; at the end of a window of data, updates α;
    /// then grows the window as TCP.
    fn on_ack(&mut self, ack: &AckSample) {
        // RFC 8257 §3.3 steps 1–3 (SACKed data is not counted).
        self.acked_bytes += ack.acked_bytes;
        self.marked_bytes += ack.ce_bytes.min(ack.acked_bytes);
        // Step 4: the window ends with the ACK of data sent after it began.
        let ended = ack
            .rtt
            .is_some_and(|rtt| ack.now - rtt >= self.window_start);
        if ended && self.acked_bytes > 0 {
            let m = self.marked_bytes as f64 / self.acked_bytes as f64; // step 5
            self.alpha = (1.0 - self.g) * self.alpha + self.g * m; // step 6: α ← (1 − g)α + gM
            self.window_start = ack.now; // step 7
            (self.acked_bytes, self.marked_bytes) = (0, 0); // step 8
        }
        self.reno.on_ack(ack);
    }

    /// An ECN mark cuts the window by α/2 (RFC 8257 §3.3 step 9), once per window of data;
    /// losses and timeouts are TCP's (§3.5).
    fn on_loss(&mut self, loss: &LossEvent) {
        match loss.kind {
            LossKind::Ecn => {
                if self.reno.new_event(loss.sent_at) {
                    let cwnd = self.reno.window();
                    self.reno
                        .reduce_to(loss.now, cwnd * (1.0 - self.alpha / 2.0)); // step 9
                }
            }
            LossKind::Gap | LossKind::Timeout => self.reno.on_loss(loss),
        }
    }

    fn on_round(&mut self, round: &RoundSample) {
        self.reno.on_round(round);
    }

    fn window(&self) -> f64 {
        self.reno.window()
    }

    fn wants_exact_ce_echo(&self) -> bool {
        true
    }

    fn set_window(&mut self, cwnd_pkts: f64) {
        self.reno.set_window(cwnd_pkts);
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        self.reno.state(out);
        out.push(("dctcp_alpha", self.alpha));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::{assert_close, ops, Driver};
    use proptest::prelude::*;

    fn at(w: f64) -> Driver<Dctcp> {
        Driver::started(Dctcp::new(DCTCP_G).starting(WindowConfig::avoidance_at(w)))
    }

    /// One window of data: `n` ACKs of one 1000-byte packet, the first `marked` with ECN-Echo.
    fn window(d: &mut Driver<Dctcp>, n: usize, marked: usize) {
        for i in 0..n {
            d.now += SimTime(d.rtt.ns() / n as u64);
            let mut ack = d.ack(1);
            if i < marked {
                (ack.ece, ack.ce_pkts, ack.ce_bytes) = (true, 1, 1000);
            }
            d.controller.on_ack(&ack);
        }
    }

    #[test]
    fn alpha_is_the_moving_average_of_the_marked_fraction() {
        let mut d = at(10.0);
        // The first ACK ends the window that began at time 0, with nothing marked: α = 15/16.
        window(&mut d, 1, 0);
        assert_close(d.controller.alpha(), 15.0 / 16.0, 1e-12);
        // The next window ends with the ACK of the first packet sent after it began: ten ACKs
        // a round apart, three of them marked: α = (15/16)² + (1/16)(3/10).
        window(&mut d, 10, 3);
        let expected = (15.0f64 / 16.0).powi(2) + 0.3 / 16.0;
        assert_close(d.controller.alpha(), expected, 1e-12);
    }

    #[test]
    fn a_mark_cuts_by_half_alpha_once_per_window() {
        let mut d = at(100.0);
        d.controller.alpha = 0.2;
        d.ecn();
        assert_close(d.controller.window(), 90.0, 1e-12);
        assert_eq!(d.controller.tcp().ssthresh(), d.controller.window());
        // A mark on a packet sent before the cut belongs to the same window.
        d.ecn();
        assert_close(d.controller.window(), 90.0, 1e-12);
        // A round later: a new window, a new cut, by the α of that moment and with no
        // whole-packet floor.
        d.ack_round();
        d.now += SimTime::from_ms(1);
        let (w, alpha) = (d.controller.window(), d.controller.alpha());
        assert_close(alpha, 0.2 * 15.0 / 16.0, 1e-12);
        d.ecn();
        assert_close(d.controller.window(), w * (1.0 - alpha / 2.0), 1e-12);
    }

    #[test]
    fn the_first_mark_halves_and_losses_are_tcps() {
        let mut d = at(64.0);
        d.ecn();
        assert_eq!(d.controller.window(), 32.0, "α starts at 1 (RFC 8257 §3.3)");
        d.ack_round();
        let w = d.controller.window();
        d.loss();
        assert_eq!(d.controller.window(), w / 2.0);
        d.timeout();
        assert_eq!(
            (d.controller.window(), d.controller.tcp().ssthresh()),
            (1.0, w / 4.0)
        );
    }

    #[test]
    fn without_marks_it_grows_as_tcp() {
        let mut dctcp = at(20.0);
        let mut tcp = Driver::started(Aimd::tcp().starting(WindowConfig::avoidance_at(20.0)));
        assert_eq!(dctcp.ack_trace(5), tcp.ack_trace(5));
        let mut slow = Driver::new(Dctcp::new(DCTCP_G));
        assert_eq!(slow.ack_trace(4), [2.0, 4.0, 8.0, 16.0]);
    }

    #[test]
    fn names_in_notation() {
        assert_eq!(Dctcp::new(DCTCP_G).name(), "DCTCP(1/16)");
        assert_eq!(Dctcp::new(0.1).name(), "DCTCP(1/10)");
    }

    proptest! {
        #[test]
        fn window_stays_finite_and_alpha_a_fraction(
            g in 1e-3..=1.0f64,
            start in prop_oneof![Just(None), (1.0..1e4f64).prop_map(Some)],
            ops in ops(),
        ) {
            let c = Dctcp::new(g);
            let c = match start {
                Some(w) => c.starting(WindowConfig::avoidance_at(w)),
                None => c,
            };
            let mut d = Driver::new(c);
            for op in &ops {
                d.run_checked(std::slice::from_ref(op));
                let alpha = d.controller.alpha();
                prop_assert!((0.0..=1.0).contains(&alpha), "α = {alpha}");
            }
        }
    }
}
