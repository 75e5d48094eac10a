//! Loss modules: random or deterministic packet loss on a link direction, independent of queues.
//!
//! Applied to a packet when it finishes serialization: a lost packet has used the link's
//! capacity, as with ns-2's `link-lossmodel` (ns-link.tcl's `insert-linkloss`; ns-2's
//! `lossmodel` drops before the queue instead). ns-2 puts that error model after the link's delay
//! element, so it decides one propagation delay later; ccscope decides at once.

use rand::Rng as _;

use crate::rng::Rng;
use crate::time::SimTime;

/// One step of a loss schedule: from `at_ns` on, packets are lost as `loss` says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossStep {
    pub at_ns: u64,
    pub loss: StepLoss,
}

/// How a schedule step loses packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StepLoss {
    /// Each packet independently with probability p.
    Bernoulli(f64),
    /// The first packet of every `interval_ns`, counted from the step: persistent congestion,
    /// one loss indication per RTT when the interval is the RTT (Yang et al. 2003 §4).
    OnePer { interval_ns: u64 },
}

/// A loss module's configuration, as the scenario's loss (`scenario::packet::Loss`, where the
/// values are checked) lowers to.
#[derive(Clone, Debug, PartialEq)]
pub enum LossSpec {
    /// Each packet lost independently with probability `p`.
    Bernoulli { p: f64 },
    /// Every `every`-th packet is lost (loss rate 1/every).
    Periodic { every: u64 },
    /// Loss that changes at given times (Yang et al. §4–5 step changes); no loss before the
    /// first step.
    Schedule { steps: Vec<LossStep> },
}

/// A loss module's running state.
#[derive(Clone, Debug)]
pub struct LossModule {
    spec: LossSpec,
    /// Current loss probability (Bernoulli and schedule).
    p: f64,
    /// A `StepLoss::OnePer` step in force: (its start, its interval, the next loss's earliest
    /// time), in ns.
    one_per: Option<(u64, u64, u64)>,
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
            one_per: None,
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
                    (self.p, self.one_per) = match s.loss {
                        StepLoss::Bernoulli(p) => (p, None),
                        StepLoss::OnePer { interval_ns } => {
                            (0.0, Some((s.at_ns, interval_ns, s.at_ns)))
                        }
                    };
                    self.next_step += 1;
                }
                if let Some((start, interval, next)) = self.one_per {
                    if now.ns() < next {
                        return false;
                    }
                    let next = start + interval * ((now.ns() - start) / interval + 1);
                    self.one_per = Some((start, interval, next));
                    return true;
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

    #[test]
    fn one_per_interval_drops_the_first_packet_of_each_interval() {
        let steps = vec![
            LossStep {
                at_ns: 0,
                loss: StepLoss::Bernoulli(0.0),
            },
            LossStep {
                at_ns: 100,
                loss: StepLoss::OnePer { interval_ns: 10 },
            },
        ];
        let mut m = LossModule::new(LossSpec::Schedule { steps });
        let mut rng = stream(1, Stream::LinkLoss, 0);
        let times = [50, 100, 101, 109, 110, 115, 142, 148, 150];
        let lost: Vec<u64> = times
            .into_iter()
            .filter(|&t| m.lose(SimTime(t), &mut rng))
            .collect();
        assert_eq!(lost, [100, 110, 142, 150]);
    }
}
