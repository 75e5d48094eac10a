//! Flows of one controller type, kept in a vector of that type so that a step's pass over them
//! calls the controller directly (inlined) instead of through a trait object per flow, and reads
//! the controllers' state from one contiguous block.
//!
//! The engine hands each flow group's catalogued controller a [`Make`] of its own
//! (`control::catalog`), which receives a factory of the controller's concrete type and calls
//! [`build_group`]; a group is appended to the one before it when the types match.

use std::any::Any;

use rand::Rng as _;

use super::report::FlowReport;
#[cfg(doc)]
use crate::control::catalog::Make;
use crate::control::{Controller, RoundSample};
use crate::error::{Error, Result};
use crate::rng::Rng;

/// How each flow learns about the step's congestion.
#[derive(Clone, Copy)]
pub(super) enum Signal {
    /// Nobody is congested.
    None,
    /// Everybody is congested.
    All,
    /// Flow i is congested with probability min(1, k·load_i).
    Share(f64),
    /// Flow i is congested with probability 1 − exp(ln_keep·load_i).
    PerPacket(f64),
}

/// What one step tells every flow.
pub(super) struct Step {
    pub signal: Signal,
    /// Packets per unit offered, for window flows (0: the slice of the RTT) and rate flows (1).
    pub to_pkts: [f64; 2],
    /// Packets lost over packets offered in the step.
    pub loss_fraction: f64,
    /// Whether the step counts towards the totals (past the warm-up).
    pub measured: bool,
    /// Whether the step is recorded (its Jain's index), and each flow's load with it.
    pub recording: bool,
    pub record_flows: bool,
    pub integer: bool,
    pub substeps: u32,
    pub clear: RoundSample,
    pub hit: RoundSample,
}

/// What a step's pass over the flows adds up, in flow order.
#[derive(Default)]
pub(super) struct Sums {
    /// What the window flows (0) and the rate flows (1) offer in the next step.
    pub next: [f64; 2],
    /// Σ load² over the flows (for Jain's index), when recording.
    pub sum_sq: f64,
    /// Flows that saw congestion.
    pub congested: u64,
}

/// One flow's bookkeeping beside its controller.
#[derive(Clone, Debug, Default)]
pub(super) struct Book {
    /// Read as a rate (bits/s) rather than a window (packets).
    pub rate_based: bool,
    /// What the flow offers in the coming step: a window (packets) or a rate (bits/s), finite
    /// and ≥ 0.
    pub offer: f64,
    /// Packets sent and lost, and steps with congestion, over the measured steps.
    sent_pkts: f64,
    lost_pkts: f64,
    events: u64,
    /// Steps left in which the flow ignores congestion: it reduces at most once per RTT.
    deaf: u32,
}

impl Book {
    pub fn new(rate_based: bool) -> Self {
        Book {
            rate_based,
            ..Book::default()
        }
    }

    /// Sets what the flow offers next: `x`, its window in packets (whole packets when
    /// `integer`) or its rate in bits/s. Returns whether it is valid (finite and ≥ 0).
    #[inline]
    pub fn set_offer(&mut self, x: f64, integer: bool) -> bool {
        self.offer = if integer && !self.rate_based {
            whole(x)
        } else {
            x
        };
        (self.offer >= 0.0) & self.offer.is_finite()
    }
}

/// `x` rounded down; out of line so that the pass does not compute it for every flow when
/// windows are not whole (`floor` is a library call on baseline x86-64).
#[inline(never)]
fn whole(x: f64) -> f64 {
    x.floor()
}

/// The error for a controller that offered `x`.
#[cold]
pub(super) fn bad_offer(name: String, x: f64) -> Error {
    Error::invalid(
        format!("controller {name}"),
        x,
        "a controller must offer a finite window or rate ≥ 0 (please report)",
    )
}

/// Flows that share a controller type.
pub(super) trait Group: Any + Send {
    fn len(&self) -> usize;

    /// Moves `other`'s flows to the end of this group when it holds the same controller type;
    /// returns whether it did.
    fn absorb(&mut self, other: &mut dyn Group) -> bool;

    /// Adds each flow's offer to `sums` (window flows at 0, rate flows at 1), in flow order.
    fn add_offers(&self, sums: &mut [f64; 2]);

    /// One step of every flow: its load, its congestion signal (`rngs`: one stream per flow,
    /// empty when feedback is synchronized), its controller's reaction and its next offer.
    fn step(
        &mut self,
        step: &Step,
        rngs: &mut [Rng],
        sums: &mut Sums,
        loads: &mut Vec<f64>,
    ) -> Result<()>;

    /// Each flow's totals, in flow order.
    fn reports(&self, out: &mut Vec<FlowReport>);
}

/// A [`Group`] of `count` flows of controller type `C`, each built by `new` and admitted by
/// `admit`, which checks it and returns its bookkeeping.
pub(super) fn build_group<C: Controller + 'static>(
    count: usize,
    mut new: impl FnMut() -> C,
    mut admit: impl FnMut(&mut C) -> Result<Book>,
) -> Result<Box<dyn Group>> {
    let mut controllers = Vec::with_capacity(count);
    let mut books = Vec::with_capacity(count);
    for _ in 0..count {
        let mut controller = new();
        books.push(admit(&mut controller)?);
        controllers.push(controller);
    }
    Ok(Box::new(Typed { controllers, books }))
}

struct Typed<C> {
    controllers: Vec<C>,
    books: Vec<Book>,
}

impl<C: Controller + 'static> Group for Typed<C> {
    fn len(&self) -> usize {
        self.controllers.len()
    }

    fn absorb(&mut self, other: &mut dyn Group) -> bool {
        let other: &mut dyn Any = other;
        match other.downcast_mut::<Typed<C>>() {
            Some(t) => {
                self.controllers.append(&mut t.controllers);
                self.books.append(&mut t.books);
                true
            }
            None => false,
        }
    }

    fn add_offers(&self, sums: &mut [f64; 2]) {
        for b in &self.books {
            sums[b.rate_based as usize] += b.offer;
        }
    }

    fn step(
        &mut self,
        step: &Step,
        rngs: &mut [Rng],
        sums: &mut Sums,
        loads: &mut Vec<f64>,
    ) -> Result<()> {
        // The common step (whole RTTs, continuous windows, nothing recorded, everybody or nobody
        // congested) gets a pass of its own, compiled without the other cases' branches.
        let plain = step.substeps == 1
            && !step.integer
            && !step.recording
            && matches!(step.signal, Signal::None | Signal::All);
        if plain {
            self.pass::<true>(step, rngs, sums, loads)
        } else {
            self.pass::<false>(step, rngs, sums, loads)
        }
    }

    fn reports(&self, out: &mut Vec<FlowReport>) {
        out.extend(
            self.controllers
                .iter()
                .zip(&self.books)
                .map(|(c, b)| FlowReport {
                    name: c.name(),
                    rate_based: b.rate_based,
                    sent_pkts: b.sent_pkts,
                    lost_pkts: b.lost_pkts,
                    congestion_events: b.events,
                }),
        );
    }
}

impl<C: Controller> Typed<C> {
    /// One step of every flow; `PLAIN`: the step is known to be plain (see [`Group::step`]).
    #[inline(always)]
    fn pass<const PLAIN: bool>(
        &mut self,
        step: &Step,
        rngs: &mut [Rng],
        sums: &mut Sums,
        loads: &mut Vec<f64>,
    ) -> Result<()> {
        let substeps = if PLAIN { 1 } else { step.substeps };
        let (integer, recording) = (!PLAIN && step.integer, !PLAIN && step.recording);
        let slice = step.to_pkts[0];
        let mut valid = true;
        // The next offers add up in registers: an accumulator indexed by the flow's kind would
        // live in memory, and each flow would wait for the previous one's store. Adding +0.0
        // to the other sum leaves it as it is (the sums are never -0.0: offers are ≥ 0).
        let [mut next_window, mut next_rate] = sums.next;
        for (i, (c, b)) in self.controllers.iter_mut().zip(&mut self.books).enumerate() {
            let pkts = b.offer * step.to_pkts[b.rate_based as usize];
            if recording {
                sums.sum_sq += pkts * pkts;
            }
            let signalled = match step.signal {
                Signal::None => false,
                Signal::All => true,
                Signal::Share(k) => {
                    let p = k * pkts;
                    p >= 1.0 || (p > 0.0 && rngs[i].gen::<f64>() < p)
                }
                Signal::PerPacket(ln_keep) => {
                    let p = 1.0 - (ln_keep * pkts).exp();
                    p > 0.0 && rngs[i].gen::<f64>() < p
                }
            };
            let mut congested = signalled;
            if substeps > 1 {
                congested &= b.deaf == 0;
                b.deaf = if congested {
                    substeps - 1
                } else {
                    b.deaf.saturating_sub(1)
                };
            }
            sums.congested += congested as u64;
            if step.measured {
                b.sent_pkts += pkts;
                b.lost_pkts += pkts * step.loss_fraction;
                b.events += congested as u64;
            }
            if recording && step.record_flows {
                loads.push(pkts);
            }
            let x = if congested {
                c.round_offer(&step.hit)
            } else if substeps > 1 && !b.rate_based {
                // One slice of the RTT's increase (forward Euler).
                let before = c.window();
                let after = c.round_offer(&step.clear);
                if after != before {
                    c.set_window(before + (after - before) * slice);
                }
                c.window()
            } else {
                c.round_offer(&step.clear)
            };
            let x = if integer && congested && !b.rate_based {
                // Cai et al. §III-C.2: the window is rounded down to whole packets.
                c.set_window(x.floor().max(1.0));
                c.window()
            } else {
                x
            };
            valid &= b.set_offer(x, integer);
            let (window, rate) = if b.rate_based {
                (0.0, b.offer)
            } else {
                (b.offer, 0.0)
            };
            next_window += window;
            next_rate += rate;
        }
        sums.next = [next_window, next_rate];
        if valid {
            return Ok(());
        }
        match self
            .controllers
            .iter()
            .zip(&self.books)
            .find(|(_, b)| !((b.offer >= 0.0) & b.offer.is_finite()))
        {
            Some((c, b)) => Err(bad_offer(c.name(), b.offer)),
            None => Ok(()),
        }
    }
}
