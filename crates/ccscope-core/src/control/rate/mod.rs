//! Rate-based senders: controllers that set a pacing rate (bits/s) from receiver reports or
//! per-interval feedback, one per file, and [`RateConfig`], how each starts and what bounds its
//! rate. Their receivers are in [`crate::control::receiver`].
//!
//! - [`RateBinomial`]: Loguinov & Radha's rate-based binomial and AIMD controls (2)–(4);
//! - [`Iscc`]: ideally scalable congestion control (Loguinov & Radha §V-D);
//! - [`Rap`]: the Rate Adaptation Protocol (Rejaie, Handley & Estrin 1999);
//! - [`Ssvp`]: SSVP and SSVP-ADP (Papadimitriou & Zhang 2007);
//! - [`Tfrc`]: TFRC (RFC 5348; ns-2 `tfrc.cc`) and the TCP throughput equation;
//! - [`TearSender`]: TEAR's sender (Rhee, Ozdemir & Yi 2000);
//! - [`ConstantRate`]: a fixed rate (constant-bit-rate sources).

mod binomial;
mod constant;
mod iscc;
mod rap;
mod ssvp;
mod tear;
mod tfrc;

pub use binomial::RateBinomial;
pub use constant::ConstantRate;
pub use iscc::Iscc;
pub use rap::{Rap, RapTimers};
pub use ssvp::{Ssvp, SsvpDecrease};
pub use tear::TearSender;
pub use tfrc::{invert_throughput, tfrc_throughput_bps, Tfrc, TfrcVariant};

use serde::Serialize;

use crate::error::{check_positive, check_range, Error, Result};

/// Default starting rate of binary-feedback rate controllers (packets per second).
pub const DEFAULT_INITIAL_PKTS_PER_S: f64 = 10.0;

/// The highest rate any rate controller reaches (bits/s), and the longest a rate-based sender
/// backs off to (s): the floor rate is one packet per `T_MBI_S` (RFC 5348 §4.3, t_mbi). Declared
/// with the scenario schema, whose rate sources start within these bounds.
pub use crate::scenario::packet::{MAX_RATE_BPS, T_MBI_S};

/// How a rate controller starts and what bounds its rate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RateConfig {
    /// Packet size (bytes), ≥ 1: TFRC's s, the MTU of Loguinov & Radha (4).
    pub packet_bytes: u32,
    /// Starting rate (bits/s), > 0; `None`: the protocol's own default.
    pub initial_rate_bps: Option<f64>,
    /// Lowest rate (bits/s), > 0; default one packet per `T_MBI_S`.
    pub min_rate_bps: Option<f64>,
}

impl Default for RateConfig {
    /// 1000-byte packets, the protocol's own start, the RFC 5348 floor.
    fn default() -> Self {
        RateConfig {
            packet_bytes: 1000,
            initial_rate_bps: None,
            min_rate_bps: None,
        }
    }
}

impl RateConfig {
    pub fn validate(&self) -> Result<()> {
        if self.packet_bytes == 0 {
            return Err(Error::invalid(
                "source.packet_size",
                "0 B",
                "must be >= 1 byte",
            ));
        }
        if let Some(r) = self.initial_rate_bps {
            check_range("source.initial_rate", r, self.min_rate(), MAX_RATE_BPS)?;
        }
        if let Some(m) = self.min_rate_bps {
            check_range(
                "source.min_rate",
                check_positive("source.min_rate", m)?,
                0.0,
                MAX_RATE_BPS,
            )?;
        }
        Ok(())
    }

    /// Bits per packet.
    pub fn packet_bits(&self) -> f64 {
        8.0 * self.packet_bytes as f64
    }

    /// The floor (bits/s), > 0.
    pub fn min_rate(&self) -> f64 {
        self.min_rate_bps.unwrap_or(self.packet_bits() / T_MBI_S)
    }

    /// The starting rate: the configured one or the protocol's `default_bps`, within bounds.
    pub fn initial_rate(&self, default_bps: f64) -> f64 {
        self.clamp(self.initial_rate_bps.unwrap_or(default_bps))
    }

    /// `rate_bps` within [min rate, `MAX_RATE_BPS`]; NaN becomes the floor.
    pub fn clamp(&self, rate_bps: f64) -> f64 {
        if rate_bps.is_nan() {
            self.min_rate()
        } else {
            rate_bps.clamp(self.min_rate(), MAX_RATE_BPS)
        }
    }
}

/// Exponentially weighted moving average: the first sample is taken as is, then
/// `old + gain·(sample − old)` (`gain` is the weight of the new sample, in (0, 1]).
pub fn ewma(old: Option<f64>, sample: f64, gain: f64) -> f64 {
    match old {
        Some(o) => o + gain * (sample - o),
        None => sample,
    }
}
