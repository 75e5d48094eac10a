//! A constant-rate controller: what a CBR source runs. It ignores all feedback.

use crate::control::Controller;
use crate::error::{check_positive, Result};

/// Sends at a fixed rate whatever happens.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantRate {
    /// Sending rate (bits/s), > 0.
    rate_bps: f64,
}

impl ConstantRate {
    pub fn new(rate_bps: f64) -> Result<Self> {
        Ok(ConstantRate {
            rate_bps: check_positive("rate_bps", rate_bps)?,
        })
    }
}

impl Controller for ConstantRate {
    fn name(&self) -> String {
        format!("CBR({} b/s)", self.rate_bps)
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        Some(self.rate_bps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::harness::Driver;

    #[test]
    fn ignores_feedback() {
        let mut d = Driver::new(ConstantRate::new(1e6).unwrap());
        d.acks(100).loss().rounds(10, true);
        assert_eq!(d.controller.pacing_rate_bps(), Some(1e6));
        assert!(d.controller.window().is_infinite());
    }

    #[test]
    fn rejects_non_positive_rate() {
        assert!(ConstantRate::new(0.0).is_err());
        assert!(ConstantRate::new(f64::NAN).is_err());
    }
}
