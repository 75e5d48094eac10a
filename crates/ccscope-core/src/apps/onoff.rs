//! ON/OFF sources: Pareto ON/OFF (ns-2 `Application/Traffic/Pareto`, `pareto.cc`; Yang, Kim &
//! Lam 2003 §3.1: mean ON 1 s, mean OFF 2 s, 500 kb/s while ON, shape 1.5), exponential ON/OFF
//! (ns-2 `Application/Traffic/Exponential`), and the CBR square wave (fixed ON and OFF periods;
//! Jin, Guo, Matta & Bestavros 2001 §6.2.4: γ·C while ON, 30 s / 30 s).
//!
//! Two ways to spend an ON period:
//! - paced (UDP, the rate transport): one packet every `8 · packet_bytes / rate` seconds while
//!   ON, as ns-2's traffic generators do;
//! - transfers (web-like TCP): at the start of an ON period the application offers, at once, the
//!   data the period would carry at `rate` (at least one packet); the OFF period (the user's
//!   think time) starts when the transport has acknowledged all of it. Over a transport without
//!   acknowledgements the OFF period starts when the last packet was sent.
//!
//! Period lengths: Pareto with the given mean and shape a > 1 (scale = mean · (a − 1) / a, as
//! ns-2's `pareto.cc` sets `p1_`), exponential with the given mean, or fixed. Draws come from
//! the endpoint's random stream, ON before OFF, in order. The first period is ON and starts at
//! the flow's start.

use rand::Rng as _;

use super::{format_rate, Chunk, SendApp, SendCtx, Tag};
use crate::error::{check_positive, Error, Result};
use crate::rng::Rng;
use crate::time::SimTime;

/// How the length of an ON or OFF period is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Period {
    /// Pareto with mean `mean_s` and shape `shape` > 1.
    Pareto { mean_s: f64, shape: f64 },
    /// Exponential with mean `mean_s`.
    Exponential { mean_s: f64 },
    /// Always `secs`.
    Fixed { secs: f64 },
}

impl Period {
    fn check(self, field: &str) -> Result<Period> {
        match self {
            Period::Pareto { mean_s, shape } => {
                check_positive(field, mean_s)?;
                if !(shape.is_finite() && shape > 1.0) {
                    return Err(Error::invalid(
                        format!("{field}.shape"),
                        format!("{shape:?}"),
                        "must be > 1 (a finite mean)",
                    ));
                }
            }
            Period::Exponential { mean_s } => {
                check_positive(field, mean_s)?;
            }
            Period::Fixed { secs } => {
                check_positive(field, secs)?;
            }
        }
        Ok(self)
    }

    /// One period length (s).
    pub(crate) fn draw(self, rng: &mut Rng) -> f64 {
        // 1 − U lies in (0, 1]: no division by zero, no log of zero.
        let u = 1.0 - rng.gen::<f64>();
        match self {
            // ns-2 pareto.cc: scale p = mean (a − 1) / a; x = p / U^(1/a).
            Period::Pareto { mean_s, shape } => {
                mean_s * (shape - 1.0) / shape / u.powf(1.0 / shape)
            }
            Period::Exponential { mean_s } => -mean_s * u.ln(),
            Period::Fixed { secs } => secs,
        }
    }
}

/// What an ON period carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnMode {
    /// Packets evenly spaced at the ON rate.
    Paced,
    /// One transfer of the period's worth of data, offered at once.
    Transfers,
}

/// An ON/OFF source.
#[derive(Clone, Debug)]
pub struct OnOff {
    /// Rate while ON (bits/s), finite and > 0.
    rate_bps: f64,
    packet_bytes: u32,
    on: Period,
    off: Period,
    mode: OnMode,
    /// End of the current ON period (paced mode).
    on_until: SimTime,
    /// Start of the current ON period and packets offered in it (paced mode, drift-free).
    on_since: SimTime,
    sent_in_period: u64,
    /// Transfers: packets offered and not yet acknowledged (or sent, without ACKs).
    outstanding: u64,
    /// Transfers: the OFF period is running.
    off_now: bool,
}

impl OnOff {
    pub fn new(
        rate_bps: f64,
        packet_bytes: u32,
        on: Period,
        off: Period,
        mode: OnMode,
    ) -> Result<Self> {
        Ok(OnOff {
            rate_bps: check_positive("rate_bps", rate_bps)?,
            packet_bytes: packet_bytes.max(1),
            on: on.check("on")?,
            off: off.check("off")?,
            mode,
            on_until: SimTime::ZERO,
            on_since: SimTime::ZERO,
            sent_in_period: 0,
            outstanding: 0,
            off_now: false,
        })
    }

    fn interval_s(&self) -> f64 {
        8.0 * self.packet_bytes as f64 / self.rate_bps
    }

    /// Starts an ON period now.
    fn turn_on(&mut self, cx: &mut SendCtx) {
        let now = cx.now();
        let len = self.on.draw(cx.rng());
        match self.mode {
            OnMode::Paced => {
                self.on_since = now;
                self.on_until = now + SimTime::from_secs_f64(len);
                self.sent_in_period = 0;
                self.paced(cx);
            }
            OnMode::Transfers => {
                let pkts = ((len * self.rate_bps / (8.0 * self.packet_bytes as f64)).round()
                    as u64)
                    .max(1);
                self.outstanding = pkts;
                self.off_now = false;
                cx.offer(
                    pkts.saturating_mul(self.packet_bytes as u64),
                    Tag::default(),
                );
            }
        }
    }

    /// Paced mode, at a send time: offers a packet if still ON, else starts the OFF period.
    fn paced(&mut self, cx: &mut SendCtx) {
        let now = cx.now();
        if now >= self.on_until {
            let off = self.off.draw(cx.rng());
            cx.wake_at(now + SimTime::from_secs_f64(off));
            self.on_until = SimTime::MAX;
            return;
        }
        cx.offer(self.packet_bytes as u64, Tag::default());
        self.sent_in_period += 1;
        let next =
            self.on_since + SimTime::from_secs_f64(self.sent_in_period as f64 * self.interval_s());
        cx.wake_at(next.min(self.on_until));
    }

    /// Transfers: `pkts` more packets of the transfer are through; the OFF period starts when
    /// all are.
    fn through(&mut self, cx: &mut SendCtx, pkts: u64) {
        if self.outstanding == 0 {
            return;
        }
        self.outstanding = self.outstanding.saturating_sub(pkts);
        if self.outstanding == 0 {
            self.off_now = true;
            let off = self.off.draw(cx.rng());
            cx.wake_at(cx.now() + SimTime::from_secs_f64(off));
        }
    }
}

impl SendApp for OnOff {
    fn watches_progress(&self) -> bool {
        self.mode == OnMode::Transfers
    }

    fn on_start(&mut self, cx: &mut SendCtx) {
        self.turn_on(cx);
    }

    fn on_wake(&mut self, cx: &mut SendCtx) {
        match self.mode {
            OnMode::Paced if self.on_until != SimTime::MAX => self.paced(cx),
            OnMode::Transfers if !self.off_now => {}
            _ => self.turn_on(cx),
        }
    }

    fn on_sent(&mut self, cx: &mut SendCtx, _chunk: &Chunk) {
        // Without acknowledgements (rate transport has none for data, UDP neither) a transfer is
        // through when sent; TCP reports progress with on_acked instead.
        if cx.view().window_pkts == 0.0 {
            self.through(cx, 1);
        }
    }

    fn on_acked(&mut self, cx: &mut SendCtx, pkts: u64) {
        self.through(cx, pkts);
    }

    fn label(&self) -> String {
        let kind = match self.on {
            Period::Fixed { .. } => "square",
            Period::Pareto { .. } => "Pareto on/off",
            Period::Exponential { .. } => "Exp on/off",
        };
        format!("{kind} {}", format_rate(self.rate_bps))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::harness::SendHarness;

    /// Runs a paced source for `secs` and returns the send times (s).
    fn send_times(app: OnOff, secs: f64) -> Vec<f64> {
        let mut h = SendHarness::new(app);
        h.at(SimTime::ZERO, |a, cx| a.on_start(cx));
        let mut out = Vec::new();
        let mut at = SimTime::ZERO;
        loop {
            out.extend(h.drain().iter().map(|_| at.secs()));
            let Some(next) = h.wake.take() else { break };
            if next.secs() > secs {
                break;
            }
            at = next;
            h.at(at, |a, cx| a.on_wake(cx));
        }
        out
    }

    #[test]
    fn a_square_wave_sends_at_its_rate_while_on_and_nothing_while_off() {
        // 1000 B at 800 kb/s: one packet per 10 ms; 1 s ON, 2 s OFF.
        let app = OnOff::new(
            8e5,
            1000,
            Period::Fixed { secs: 1.0 },
            Period::Fixed { secs: 2.0 },
            OnMode::Paced,
        )
        .unwrap();
        let t = send_times(app, 8.5);
        assert_eq!(t.len(), 300, "three ON periods of 100 packets");
        assert!(
            t.iter().all(|&x| x % 3.0 < 1.0 - 1e-9),
            "nothing sent while OFF"
        );
        assert!((t[100] - 3.0).abs() < 1e-9 && (t[99] - 0.99).abs() < 1e-9);
    }

    #[test]
    fn pareto_periods_have_the_configured_means() {
        // Yang et al. §3.1: ON 1 s, OFF 2 s, shape 1.5. With shape 1.5 the variance is infinite:
        // the sample mean converges slowly (stable law of index 1.5); 10^6 draws put it within a
        // few percent, so a 10% band cannot fail by chance at this seed count.
        let mut rng = crate::rng::stream(3, crate::rng::Stream::Source, 0);
        for (mean, shape) in [(1.0, 1.5), (2.0, 1.5), (0.5, 2.5)] {
            let p = Period::Pareto {
                mean_s: mean,
                shape,
            };
            let n = 1_000_000;
            let m: f64 = (0..n).map(|_| p.draw(&mut rng)).sum::<f64>() / n as f64;
            assert!((m / mean - 1.0).abs() < 0.1, "mean {m} for {mean}");
            // Every draw is at least the scale mean (a − 1)/a.
            assert!((0..1000).all(|_| p.draw(&mut rng) >= mean * (shape - 1.0) / shape));
        }
    }

    #[test]
    fn the_long_run_rate_is_the_on_rate_times_the_on_fraction() {
        // Mean ON 1 s, OFF 2 s, exponential: a third of the time ON.
        let app = OnOff::new(
            8e5,
            1000,
            Period::Exponential { mean_s: 1.0 },
            Period::Exponential { mean_s: 2.0 },
            OnMode::Paced,
        )
        .unwrap();
        let secs = 20_000.0;
        let rate = send_times(app, secs).len() as f64 * 8000.0 / secs;
        assert!((rate / (8e5 / 3.0) - 1.0).abs() < 0.05, "rate {rate}");
    }

    #[test]
    fn a_transfer_waits_for_its_acknowledgements_before_the_off_period() {
        let app = OnOff::new(
            8e5,
            1000,
            Period::Fixed { secs: 0.5 },
            Period::Fixed { secs: 2.0 },
            OnMode::Transfers,
        )
        .unwrap();
        let mut h = SendHarness::new(app);
        h.at(SimTime::ZERO, |a, cx| a.on_start(cx));
        assert_eq!(
            h.drain().len(),
            50,
            "0.5 s at 800 kb/s is 50 packets, offered at once"
        );
        assert!(h.wake.is_none());
        h.at(SimTime::from_secs_f64(1.0), |a, cx| a.on_acked(cx, 49));
        assert!(h.wake.is_none());
        h.at(SimTime::from_secs_f64(1.5), |a, cx| a.on_acked(cx, 1));
        assert_eq!(h.wake.take(), Some(SimTime::from_secs_f64(3.5)));
        h.at(SimTime::from_secs_f64(3.5), |a, cx| a.on_wake(cx));
        assert_eq!(h.drain().len(), 50);
    }

    #[test]
    fn bad_settings_are_refused() {
        let fixed = Period::Fixed { secs: 1.0 };
        assert!(OnOff::new(0.0, 1000, fixed, fixed, OnMode::Paced).is_err());
        assert!(OnOff::new(
            1e6,
            1000,
            Period::Pareto {
                mean_s: 1.0,
                shape: 1.0
            },
            fixed,
            OnMode::Paced
        )
        .is_err());
        assert!(OnOff::new(
            1e6,
            1000,
            fixed,
            Period::Exponential { mean_s: f64::NAN },
            OnMode::Paced
        )
        .is_err());
        assert_eq!(
            OnOff::new(5e5, 1000, fixed, fixed, OnMode::Paced)
                .unwrap()
                .label(),
            "square 500kb/s"
        );
    }
}
