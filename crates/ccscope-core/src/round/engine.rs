//! Stepping the round model: one pass over the flows per step.

use super::group::{bad_offer, build_group, Book, Group, Signal, Step, Sums};
use super::report::{RoundResult, Series};
use super::{Feedback, RoundConfig};
use crate::control::catalog::{ControllerChoice, Foreign, Make, NoForeign};
use crate::control::{Controller, RoundSample};
use crate::error::{Error, FieldPath, Result};
use crate::rng::{stream, Rng, Stream};
use crate::time::SimTime;

/// Relative size below which an overshoot is a rounding artefact of the float arithmetic, not
/// congestion: loads that sum exactly to the capacity fill the link without loss.
const TIE: f64 = 1e-9;

/// Makes the flows of flow group `g` from its catalogued controller: one [`Group`] of the
/// controller's concrete type, each flow checked against the run.
struct Flows<'a> {
    g: usize,
    count: usize,
    config: &'a RoundConfig,
}

impl Make for Flows<'_> {
    type Output = Result<Box<dyn Group>>;

    fn make<C: Controller + 'static>(self, new: impl Fn() -> C) -> Self::Output {
        build_group(self.count, new, |c| admit(c, self.g, self.config))
    }
}

/// The path of flow group `g`'s controller in the scenario.
fn controller_of(g: usize) -> FieldPath {
    FieldPath::ROOT.key("flows").index(g).key("controller")
}

/// Checks a controller of flow group `g` against the run `config` would make of it, as a run
/// does before its first step; errors name the group's controller.
pub fn check_controller(
    controller: &mut dyn Controller,
    g: usize,
    config: &RoundConfig,
) -> Result<()> {
    admit(controller, g, config).map(|_| ())
}

/// Checks a new flow's controller against the run (flow group `g` of `config`) and returns the
/// flow's bookkeeping; errors name the group's controller.
fn admit<C: Controller + ?Sized>(
    controller: &mut C,
    g: usize,
    config: &RoundConfig,
) -> Result<Book> {
    if !controller.runs_in_rounds() {
        return Err(Error::invalid(
            controller_of(g),
            controller.name(),
            "runs only in the packet and udp engines: it needs per-ACK feedback the round \
             model does not give",
        ));
    }
    // A controller that limits by window is a window flow, whatever pace it also gives.
    let rate_based = !controller.window().is_finite();
    if rate_based && config.substeps > 1 {
        return Err(Error::invalid(
            controller_of(g),
            controller.name(),
            "run.substeps > 1 needs window controllers",
        ));
    }
    if (config.integer_windows || config.substeps > 1) && !rate_based {
        // The window must follow `set_window`: try one packet more, then the start.
        let w = controller.window();
        controller.set_window(w + 1.0);
        let followed = controller.window() == w + 1.0;
        controller.set_window(w.floor());
        if !followed || controller.window() != w.floor() {
            return Err(Error::invalid(
                controller_of(g),
                controller.name(),
                "link.integer_windows and run.substeps > 1 need controllers that \
                 accept a set window",
            ));
        }
    }
    let mut book = Book::new(rate_based);
    let start = match controller.window() {
        w if w.is_finite() => w,
        w => controller.pacing_rate_bps().unwrap_or(w),
    };
    if !book.set_offer(start, config.integer_windows) {
        return Err(bad_offer(controller.name(), book.offer));
    }
    Ok(book)
}

/// Called before each step with its index; returning false stops the run there, and the
/// result covers the steps run.
pub type Watch<'a> = dyn FnMut(u64) -> bool + 'a;

/// Runs the round model with catalogued controllers only.
pub fn run(config: &RoundConfig) -> Result<RoundResult> {
    run_with(config, &mut NoForeign, &mut |_| true)
}

/// Runs the round model; a group whose controller is written outside the catalogue gets each
/// flow's controller from `foreign`, in flow order; `watch` may stop it early.
pub fn run_with(
    config: &RoundConfig,
    foreign: &mut dyn Foreign,
    watch: &mut Watch<'_>,
) -> Result<RoundResult> {
    let mut groups: Vec<Box<dyn Group>> = Vec::new();
    let mut first = 0;
    for (g, group) in config.flows.iter().enumerate() {
        first += group.count;
        let mut flows = match &group.controller {
            ControllerChoice::Catalogued(controller) => {
                let flows = Flows {
                    g,
                    count: group.count,
                    config,
                };
                controller.build_with(&group.start, flows)??
            }
            external @ ControllerChoice::External(_) => {
                let mut built = Vec::with_capacity(group.count);
                for i in first - group.count..first {
                    built.push(external.make(i, None, &group.start, foreign)?);
                }
                let mut built = built.into_iter();
                build_group(
                    group.count,
                    || {
                        built
                            .next()
                            .unwrap_or_else(|| unreachable!("one controller per flow"))
                    },
                    |c| admit(c, g, config),
                )?
            }
        };
        if !groups
            .last_mut()
            .is_some_and(|last| last.absorb(&mut *flows))
        {
            groups.push(flows);
        }
    }
    let n = config.n_flows();
    let random = !matches!(config.feedback, Feedback::Synchronized);
    let mut rngs: Vec<Rng> = if random {
        (0..n as u64)
            .map(|i| stream(config.seed, Stream::Round, i))
            .collect()
    } else {
        Vec::new()
    };
    let substeps = config.substeps;
    // The share of a control interval one step covers.
    let slice = 1.0 / substeps as f64;
    // What the window flows (index 0) and the rate flows (1) offer in the coming step.
    let mut sums = [0.0; 2];
    for g in &groups {
        g.add_offers(&mut sums);
    }

    let pkt_bits = 8.0 * config.packet_bytes as f64;
    let rtt0_s = config.rtt0_ns as f64 * 1e-9;
    let buffer = config.buffer_pkts;
    let mut capacity_bps = config.capacity_bps;
    let mut changes = config.capacity_changes.iter().peekable();
    // The step length with an empty queue (ns), over which a capacity trace is averaged.
    let nominal_ns = (config.rtt0_ns / substeps as u64).max(1);
    // The last capacity above 0 (packets/s): the queue's delay during an outage.
    let mut draining_pps = capacity_bps / (8.0 * config.packet_bytes as f64);
    let mut queue = 0.0;
    let mut now_s = 0.0;
    let every = config.record.every;
    let mut out = RoundResult {
        seed: config.seed,
        steps: config.steps,
        warmup_steps: config.warmup_steps,
        measured_s: 0.0,
        sent_pkts: 0.0,
        lost_pkts: 0.0,
        served_pkts: 0.0,
        service_pkts: 0.0,
        flows: Vec::new(),
        series: Series::default(),
        flow_load_pkts: Vec::new(),
    };

    for step in 0..config.steps {
        if !watch(step) {
            out.steps = step;
            out.warmup_steps = out.warmup_steps.min(step);
            break;
        }
        while let Some(c) = changes.next_if(|c| c.step <= step) {
            capacity_bps = c.capacity_bps;
        }
        if let Some(trace) = &config.capacity_trace {
            let from = SimTime::from_secs_f64(now_s).ns();
            capacity_bps = trace.mean(from, from.saturating_add(nominal_ns));
        }
        let capacity_pps = capacity_bps / pkt_bits;
        // A step of no capacity (an outage) serves nothing; its queue is counted as waiting
        // for the capacity it last had, so the round-trip time stays finite.
        if capacity_pps > 0.0 {
            draining_pps = capacity_pps;
        }
        // Papadimitriou & Zhang (15): the queue adds queue/C to the round-trip time.
        let rtt_s = rtt0_s + queue / draining_pps;
        let interval_s = rtt_s * slice;
        let rate_to_pkts = interval_s / pkt_bits;
        // Packets per unit offered, for window flows (0) and rate flows (1).
        let to_pkts = [slice, rate_to_pkts];
        let load = sums[0] * to_pkts[0] + sums[1] * to_pkts[1];
        // C·RTT = C·RTT0 + queue, written so that the queue cancels exactly.
        let service = if capacity_pps > 0.0 {
            (capacity_pps * rtt0_s + queue) * slice
        } else {
            0.0
        };
        // Loguinov & Radha §IV-D: what exceeds capacity and buffer is lost (the overshoot).
        let backlog = queue + load - service;
        let overshoot = if backlog - buffer > TIE * service {
            backlog - buffer
        } else {
            0.0
        };
        let queue_after = backlog.clamp(0.0, buffer);
        let served = queue + load - overshoot - queue_after;
        let (lost_total, signal) = match config.feedback {
            Feedback::Synchronized if overshoot > 0.0 => (overshoot, Signal::All),
            Feedback::Synchronized => (0.0, Signal::None),
            Feedback::Proportional if overshoot > 0.0 => {
                (overshoot, Signal::Share(overshoot / load))
            }
            Feedback::Proportional => (0.0, Signal::None),
            Feedback::Bernoulli { p } => {
                let over = if load > 0.0 { overshoot / load } else { 0.0 };
                let keep = (1.0 - p) * (1.0 - over);
                (load * (1.0 - keep), Signal::PerPacket(keep.ln()))
            }
        };
        let loss_fraction = if load > 0.0 { lost_total / load } else { 0.0 };
        let clear = RoundSample {
            now: SimTime::from_secs_f64(now_s),
            interval: SimTime::from_secs_f64(rtt_s),
            congested: false,
            loss_fraction,
            capacity_bps: config.capacity_oracle.then_some(capacity_bps),
            base_rtt: SimTime(config.rtt0_ns),
            queueing_delay: SimTime::from_secs_f64(queue / draining_pps),
        };
        let hit = RoundSample {
            congested: true,
            ..clear
        };
        let measured = step >= config.warmup_steps;
        let recording = every > 0 && step % every == 0;
        let pass = Step {
            signal,
            to_pkts,
            loss_fraction,
            measured,
            recording,
            record_flows: recording && config.record.flows,
            integer: config.integer_windows,
            substeps,
            clear,
            hit,
        };
        let mut totals = Sums::default();
        let mut first = 0;
        for g in groups.iter_mut() {
            let len = g.len();
            let streams = rngs.get_mut(first..first + len).unwrap_or(&mut []);
            g.step(&pass, streams, &mut totals, &mut out.flow_load_pkts)?;
            first += len;
        }
        let (sum_sq, congested_flows) = (totals.sum_sq, totals.congested);

        if measured {
            out.measured_s += interval_s;
            out.sent_pkts += load;
            out.lost_pkts += lost_total;
            out.served_pkts += served;
            out.service_pkts += service;
        }
        if recording {
            let s = &mut out.series;
            s.step.push(step);
            s.time_s.push(now_s);
            s.interval_s.push(interval_s);
            s.capacity_bps.push(capacity_bps);
            s.load_pkts.push(load);
            s.queue_pkts.push(queue_after);
            s.utilization.push((served / service).min(1.0));
            s.loss_fraction.push(loss_fraction);
            s.jain.push(if sum_sq > 0.0 {
                load * load / (n as f64 * sum_sq)
            } else {
                1.0
            });
            s.congested_flows.push(congested_flows);
        }
        queue = queue_after;
        now_s += interval_s;
        sums = totals.next;
    }

    for g in &groups {
        g.reports(&mut out.flows);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::round::{CapacityStep, FlowGroup, Record};

    /// `count` TCP flows from window `w0` on a link of `w` packets per RTT (1000-byte packets,
    /// RTT0 = 100 ms, no buffer, synchronized feedback), recording every step.
    fn tcp(count: usize, w0: f64, w: f64, steps: u64) -> RoundConfig {
        RoundConfig {
            seed: 1,
            steps,
            warmup_steps: 0,
            capacity_bps: w * 8000.0 / 0.1,
            capacity_changes: Vec::new(),
            capacity_trace: None,
            rtt0_ns: 100_000_000,
            packet_bytes: 1000,
            buffer_pkts: 0.0,
            feedback: Feedback::Synchronized,
            integer_windows: false,
            capacity_oracle: false,
            substeps: 1,
            flows: vec![FlowGroup::catalogued("tcp", count, w0, 1000).unwrap()],
            record: Record {
                every: 1,
                flows: true,
            },
        }
    }

    #[test]
    fn overshoot_is_lost_and_everybody_halves() {
        // Two flows at 5 packets on a 10-packet link: 10 fits exactly (no loss), then 12
        // overshoots by 2 packets, which are lost, and both halve to 3.
        let r = run(&tcp(2, 5.0, 10.0, 3)).unwrap();
        assert_eq!(r.series.load_pkts, vec![10.0, 12.0, 6.0]);
        assert_eq!(r.series.loss_fraction, vec![0.0, 2.0 / 12.0, 0.0]);
        assert_eq!(r.series.congested_flows, vec![0, 2, 0]);
        assert_eq!(r.flow_load_pkts, vec![5.0, 5.0, 6.0, 6.0, 3.0, 3.0]);
        assert_eq!((r.sent_pkts, r.lost_pkts), (28.0, 2.0));
        assert_eq!(r.utilization(), 26.0 / 30.0);
    }

    #[test]
    fn the_queue_stretches_the_round_trip_time() {
        // Papadimitriou & Zhang (15): RTT = RTT0 + queue/C. One flow at 12 packets on a
        // 10-packet link with a 5-packet buffer queues 2 packets, so the next step lasts
        // 0.1 + 2/100 s; the buffer overflows only past 15 in flight.
        let mut c = tcp(1, 12.0, 10.0, 5);
        c.buffer_pkts = 5.0;
        let r = run(&c).unwrap();
        assert_eq!(r.series.queue_pkts, vec![2.0, 3.0, 4.0, 5.0, 5.0]);
        assert!((r.series.interval_s[1] - 0.12).abs() < 1e-12);
        assert_eq!(r.series.loss_fraction[..4], [0.0; 4]);
        assert!(r.series.loss_fraction[4] > 0.0);
        assert!(r
            .series
            .utilization
            .iter()
            .all(|u| (*u - 1.0).abs() < 1e-12));
    }

    #[test]
    fn substeps_tend_to_the_fluid_cycle() {
        // One TCP flow on a 20-packet link: the fluid saw-tooth climbs from 10 to 20 in 10
        // RTTs. Per-RTT steps need the window to exceed 20 and spend the RTT of the cut, so
        // cuts come every 12 steps (21 → 10.5 → … → 20.5 → 10.25 …); 100 slices per RTT come
        // within one slice of the fluid cycle, and each slice sends a hundredth of the window.
        let cut_times = |substeps: u32| {
            let mut c = tcp(1, 10.0, 20.0, 40 * substeps as u64);
            c.substeps = substeps;
            let r = run(&c).unwrap();
            assert!((r.series.load_pkts[0] - 10.0 / substeps as f64).abs() < 1e-12);
            assert!((r.series.interval_s[0] - 0.1 / substeps as f64).abs() < 1e-15);
            let cuts: Vec<f64> = (0..r.series.step.len())
                .filter(|&i| r.series.congested_flows[i] > 0)
                .map(|i| r.series.time_s[i])
                .collect();
            cuts.windows(2)
                .map(|w| (w[1] - w[0]) / 0.1)
                .collect::<Vec<_>>()
        };
        assert!(cut_times(1)
            .iter()
            .all(|&t| (t - 11.0).abs() < 1e-9 || (t - 12.0).abs() < 1e-9));
        let fine = cut_times(100);
        assert!(fine.len() >= 2);
        assert!(fine.iter().all(|&t| (t - 10.0).abs() <= 0.02), "{fine:?}");
    }

    #[test]
    fn a_flow_reduces_at_most_once_per_rtt() {
        // Ten flows overshoot a 10-packet link with a 30-packet buffer by far: the queue stays
        // over the buffer for a while after the cut, but each flow halves once per RTT.
        let mut c = tcp(10, 8.0, 10.0, 40);
        c.buffer_pkts = 30.0;
        c.substeps = 10;
        let r = run(&c).unwrap();
        let hits: Vec<u64> = r.series.congested_flows.clone();
        for w in hits.windows(10) {
            assert!(w.iter().sum::<u64>() <= 10, "{hits:?}");
        }
        assert!(hits.iter().sum::<u64>() > 0);
        c.flows[0] = FlowGroup::catalogued("iscc", 10, 8.0, 1000).unwrap();
        assert!(run(&c).unwrap_err().to_string().contains(
            "flows[0].controller = ISCC(-1.5,2): run.substeps > 1 needs window controllers"
        ));
    }

    #[test]
    fn mixed_populations_keep_flow_order() {
        // Flows are stepped in groups of one controller type; their reports and recorded loads
        // stay in the configured order, and a window flow behind a rate flow starts a new group.
        let mut c = tcp(2, 3.0, 100.0, 5);
        let group =
            |controller: &str, count| FlowGroup::catalogued(controller, count, 4.0, 1000).unwrap();
        c.flows.push(group("rate-aimd", 1));
        c.flows.push(group("tcp", 1));
        let r = run(&c).unwrap();
        let names: Vec<&str> = r.flows.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names[..2], ["TCP", "TCP"]);
        assert!(r.flows[2].rate_based && names[3] == "TCP");
        assert_eq!(r.flow_load_pkts[..4], [3.0, 3.0, r.flow_load_pkts[2], 4.0]);
    }

    #[test]
    fn capacity_follows_its_schedule() {
        let mut c = tcp(1, 1.0, 10.0, 4);
        c.capacity_changes = vec![CapacityStep {
            step: 2,
            capacity_bps: 1.0,
        }];
        let r = run(&c).unwrap();
        assert_eq!(r.series.capacity_bps[1], 800_000.0);
        assert_eq!(r.series.capacity_bps[2], 1.0);
    }

    #[test]
    fn random_feedback_is_reproducible() {
        let mut c = tcp(50, 3.0, 97.3, 500);
        c.feedback = Feedback::Proportional;
        let a = run(&c).unwrap();
        assert_eq!(a, run(&c).unwrap());
        c.seed = 2;
        assert_ne!(a.flows, run(&c).unwrap().flows);
    }

    #[test]
    fn controllers_that_need_acks_are_refused_naming_their_group() {
        for name in ["bbr", "bbr3", "copa"] {
            let mut c = tcp(1, 1.0, 10.0, 10);
            c.flows
                .push(FlowGroup::catalogued(name, 1, 1.0, 1000).unwrap());
            let err = run(&c).unwrap_err().to_string();
            assert!(
                err.contains("flows[1].controller") && err.contains("packet and udp engines"),
                "{err}"
            );
        }
    }

    #[test]
    fn results_stay_finite_whatever_the_feedback() {
        for feedback in [
            Feedback::Synchronized,
            Feedback::Proportional,
            Feedback::Bernoulli { p: 0.3 },
        ] {
            let mut c = tcp(20, 1.0, 3.0, 300);
            c.feedback = feedback;
            c.buffer_pkts = 2.5;
            let r = run(&c).unwrap();
            assert!(r.loss_rate().is_finite() && r.utilization().is_finite());
            assert!(r
                .series
                .jain
                .iter()
                .all(|j| (1.0 / 20.0 - 1e-12..=1.0 + 1e-12).contains(j)));
        }
    }
}
