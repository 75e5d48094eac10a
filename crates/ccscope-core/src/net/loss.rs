//! Loss modules: random or deterministic packet loss on a link direction, independent of queues.
//!
//! Applied to a packet when it finishes serialization, before propagation (as ns-2's error
//! models inserted with `lossmodel`): a lost packet has used the link's capacity.

use rand::Rng as _;

use crate::rng::Rng;
use crate::time::SimTime;

/// One step of a loss-rate schedule: from `at` on, packets are lost with probability `p`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossStep {
    pub at_ns: u64,
    pub p: f64,
}

/// A loss module's configuration, as the scenario's loss (`scenario::packet::Loss`, where the
/// values are checked) lowers to.
#[derive(Clone, Debug, PartialEq)]
pub enum LossSpec {
    /// Each packet lost independently with probability `p`.
    Bernoulli { p: f64 },
    /// Every `every`-th packet is lost (loss rate 1/every).
    Periodic { every: u64 },
    /// Bernoulli loss whose rate changes at given times (Yang et al. §4–5 step changes);
    /// no loss before the first step.
    Schedule { steps: Vec<LossStep> },
}

/// A loss module's running state.
#[derive(Clone, Debug)]
pub struct LossModule {
    spec: LossSpec,
    /// Current loss probability (Bernoulli and schedule).
    p: f64,
    /// Index of the next schedule step to apply.
    next_step: usize,
    /// Packets seen (periodic).
    seen: u64,
}

impl LossModule {
    pub fn new(spec: LossSpec) -> Self {
        let p = match spec {
            LossSpec::Bernoulli { p } => p,
            _ => 0.0,
        };
        LossModule {
            spec,
            p,
            next_step: 0,
            seen: 0,
        }
    }

    /// Decides whether the packet finishing serialization at `now` is lost.
    pub fn lose(&mut self, now: SimTime, rng: &mut Rng) -> bool {
        match &self.spec {
            LossSpec::Periodic { every } => {
                self.seen += 1;
                self.seen.is_multiple_of(*every)
            }
            LossSpec::Schedule { steps } => {
                while let Some(s) = steps.get(self.next_step) {
                    if s.at_ns > now.ns() {
                        break;
                    }
                    self.p = s.p;
                    self.next_step += 1;
                }
                self.p > 0.0 && rng.gen::<f64>() < self.p
            }
            LossSpec::Bernoulli { .. } => self.p > 0.0 && rng.gen::<f64>() < self.p,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    #[test]
    fn periodic_drops_every_nth() {
        let mut m = LossModule::new(LossSpec::Periodic { every: 4 });
        let mut rng = stream(1, Stream::LinkLoss, 0);
        let lost: Vec<bool> = (0..8).map(|_| m.lose(SimTime::ZERO, &mut rng)).collect();
        assert_eq!(lost, [false, false, false, true, false, false, false, true]);
    }
}
