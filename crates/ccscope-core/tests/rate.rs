//! Engine-level checks of the rate-based transports against published numbers.
//! Each test names its source and the tolerance it is held to. A published claim that the
//! model contradicts, with the reason documented, is a strict expected failure:
//! `#[should_panic]` on the claim's own assertion, so the test fails if the claim ever holds.

mod common;

use std::sync::OnceLock;

use ccscope_core::config::{CustomLink, FlowSpec, Placement, Scenario, TopologySpec, TraceSpec};
use ccscope_core::control::catalog::{ControllerChoice, Start};
use ccscope_core::control::catalog::{ControllerConfig, Family};
use ccscope_core::control::receiver::{DataArrival, Receiver};
use ccscope_core::control::RateConfig;
use ccscope_core::control::{
    Controller, ReportSample, TearReceiver, TearSender, Tfrc, TfrcReceiver, TfrcVariant,
};
use ccscope_core::net::loss::{LossSpec, LossStep, StepLoss};
use ccscope_core::net::{RunResult, Simulation};
use ccscope_core::time::SimTime;
use ccscope_core::transport::rate::{probed_endpoints, Probe, RateSourceSpec};
use common::*;

/// Runs `specs` (one per flow) on `topology`; the scenario's CBR sources are placeholders.
fn run_rate(
    topology: TopologySpec,
    specs: &[RateSourceSpec],
    duration_ns: u64,
    seed: u64,
    bin_ns: u64,
) -> (RunResult, Vec<Probe>) {
    let custom = matches!(topology, TopologySpec::Custom { .. });
    let flows = specs
        .iter()
        .map(|_| FlowSpec {
            placement: custom.then(|| {
                Box::new(Placement {
                    from: Some("server".to_string()),
                    to: Some("client".to_string()),
                    ..Placement::DEFAULT
                })
            }),
            ..cbr(1e3)
        })
        .collect::<Vec<FlowSpec>>();
    let scenario = Scenario {
        seed,
        duration_ns,
        warmup_ns: 0,
        topology,
        flows,
        trace: TraceSpec {
            interval_ns: Some(bin_ns),
            flows: true,
            queues: false,
            events: false,
            state: false,
            ..TraceSpec::default()
        },
    };
    let probes: Vec<Probe> = specs.iter().map(|_| Probe::default()).collect();
    let sim = Simulation::new(&scenario, |i| {
        let ControllerChoice::Catalogued(config) = &specs[i].controller else {
            unreachable!("catalogued controllers only")
        };
        let start = Start {
            rate: specs[i].config(),
            ..Start::default()
        };
        let receiver = config.receiver().expect("a rate controller");
        Ok(probed_endpoints(
            &specs[i],
            config.build(&start)?,
            receiver,
            probes[i].clone(),
        ))
    })
    .unwrap();
    (sim.run(), probes)
}

/// Per-bin packets sent by flow `f` over bins [from, to).
fn sent_series(r: &RunResult, f: usize, from: usize, to: usize) -> Vec<f64> {
    let t = r.trace.as_ref().unwrap();
    (from..to.min(t.bins))
        .map(|b| t.flows[b * t.n_flows + f].sent_pkts as f64)
        .collect()
}

fn delivered_series(r: &RunResult, f: usize, from: usize) -> Vec<f64> {
    let t = r.trace.as_ref().unwrap();
    (from..t.bins)
        .map(|b| t.flows[b * t.n_flows + f].delivered_bytes as f64)
        .collect()
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Coefficient of variation (population).
fn cov(xs: &[f64]) -> f64 {
    let m = mean(xs);
    (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / xs.len() as f64).sqrt() / m
}

/// Least-squares slope of ys against xs.
fn slope(xs: &[f64], ys: &[f64]) -> f64 {
    let (mx, my) = (mean(xs), mean(ys));
    let num: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    num / den
}

const RTT_NS: u64 = 100 * MS;

/// Yang, Kim & Lam §2.2: 2.5 Mb/s, 30 ms bottleneck, DropTail 50 packets, 10 ms access links
/// (RTT 100 ms), 1000-byte packets; `loss` on the bottleneck.
fn yang(loss: LossSpec) -> TopologySpec {
    let mut bottleneck = link(2_500_000, 30 * MS, 50);
    bottleneck.loss = Some(loss);
    TopologySpec::Dumbbell {
        bottleneck,
        reverse: None,
        access: link(100_000_000, 10 * MS, 1000),
    }
}

/// A rate source running the catalogue's rate controller `name` with `params`.
fn source(name: &str, params: &[(&str, f64)]) -> RateSourceSpec {
    let params: Vec<(String, f64)> = params.iter().map(|&(k, v)| (k.to_string(), v)).collect();
    RateSourceSpec::new(ControllerConfig::resolve_in(Family::Rate, name, &params).unwrap())
}

fn spec(name: &str, jitter: f64) -> RateSourceSpec {
    RateSourceSpec {
        jitter,
        ..source(name, &[])
    }
}

/// CoV_time of the per-RTT sending rate (Yang et al. §3.1) after a 100 s warm-up, and the mean
/// packets per RTT.
fn smoothness(name: &str, p: f64, seconds: u64, seed: u64) -> (f64, f64) {
    let (r, _) = run_rate(
        yang(LossSpec::Bernoulli { p }),
        &[spec(name, 0.1)],
        seconds * S,
        seed,
        RTT_NS,
    );
    let xs = sent_series(&r, 0, 1000, usize::MAX);
    (cov(&xs), mean(&xs))
}

/// Yang et al. Fig. 6 at 1 % Bernoulli loss: CoV_time of TFRC 0.23 and TEAR 0.22 (analysis:
/// 0.22 and 0.21), held to ±25 %. TFRC is `tfrc-2000`, the June 2000 ns-2 code Yang et al. ran
/// (§2), in every check here.
#[test]
fn yang_fig6_tfrc_and_tear_are_smooth_at_one_percent_loss() {
    for (name, published) in [("tfrc-2000", 0.23), ("tear", 0.22)] {
        let (c, m) = smoothness(name, 0.01, 600, 1);
        eprintln!(
            "Yang Fig. 6, p = 1%: {name} CoV_time = {c:.3} (paper {published}), {m:.2} packets/RTT"
        );
        assert!(
            (c / published - 1.0).abs() <= 0.25,
            "{name}: CoV_time {c} vs {published}"
        );
    }
}

/// Yang et al. Fig. 5, Fig. 6 and Table 1 at 20 % Bernoulli loss: TFRC's CoV_time reaches 2
/// (analysis 0.8–2.4) as its rate collapses; TEAR keeps a CoV_time of 0.2–0.4 at a rate far
/// above TFRC's. The collapse needs the 2000 sender's RTT, which includes the receiver's hold
/// (tfrc-ns2 gives CoV 0.94 at 0.80 packets/RTT, ns-2.35's Agent/TFRC 0.67–0.75).
#[test]
fn yang_fig5_tfrc_collapses_and_tear_stays_smooth_at_twenty_percent_loss() {
    let (tfrc_cov, tfrc_mean) = smoothness("tfrc-2000", 0.2, 600, 2);
    let (tear_cov, tear_mean) = smoothness("tear", 0.2, 600, 2);
    eprintln!("Yang Fig. 5/6, p = 20%: TFRC CoV_time {tfrc_cov:.3}, {tfrc_mean:.3} pkts/RTT; TEAR CoV_time {tear_cov:.3}, {tear_mean:.3} pkts/RTT");
    assert!(tfrc_cov >= 1.0, "TFRC CoV_time {tfrc_cov}");
    assert!(tear_cov <= 0.5, "TEAR CoV_time {tear_cov}");
    assert!(
        tfrc_mean < 1.0 && tear_mean > 2.0 * tfrc_mean,
        "TFRC {tfrc_mean}, TEAR {tear_mean} packets/RTT"
    );
}

/// Drives a receiver and a sender through rounds without an engine: each round the sender's rate
/// gives the packets of one RTT (100 ms), evenly spaced, then a 1 ms pause, so that losses of
/// the first packets of consecutive rounds are more than one RTT apart (RFC 5348 §5.2 counts
/// them as separate loss events); `lose(round)` says whether the round's first packet is lost.
/// Returns the sending rate (packets/RTT) after each round.
fn closed_loop(
    rx: &mut dyn Receiver,
    tx: &mut dyn Controller,
    rounds: usize,
    lose: impl Fn(usize) -> bool,
) -> Vec<f64> {
    let rtt = SimTime::from_ms(100);
    let mut now = SimTime::ZERO;
    let mut seq = 0u64;
    let mut trace = Vec::new();
    for round in 0..rounds {
        let n = (tx.pacing_rate_bps().unwrap() * rtt.secs() / 8000.0)
            .round()
            .max(1.0) as u64;
        for i in 0..n {
            let sent = now + SimTime(rtt.ns() * i / n);
            if !(lose(round) && i == 0) {
                rx.on_data(&DataArrival {
                    now: sent + rtt,
                    seq,
                    sent_at: sent,
                    size_bytes: 1000,
                    sender_rtt: Some(rtt),
                    ecn_ce: false,
                    sender_round: 0,
                });
            }
            seq += 1;
        }
        now += rtt + SimTime::from_ms(1);
        let rep = rx.report(now + rtt);
        tx.on_report(&ReportSample {
            now: now + rtt,
            rtt: Some(rtt),
            hold: SimTime::ZERO,
            recv_rate_bps: rep.recv_rate_bps,
            loss_event_rate: rep.loss_event_rate,
            lost_pkts: rep.lost_pkts as f64,
            received_pkts: rep.received_pkts as f64,
            loss_sent_at: rep.loss_sent_at,
            new_loss_event: rep.new_loss_event,
            rate_bps: rep.rate_bps,
            capacity_bps: None,
            ..ReportSample::default()
        });
        trace.push(tx.pacing_rate_bps().unwrap() * rtt.secs() / 8000.0);
    }
    trace
}

/// Yang et al. §4.1 responsiveness D: RTTs to halve the rate under one loss per RTT, from a
/// steady state with 1 % periodic loss. Published D: TFRC 5 (Floyd et al.), TEAR 5 (§4.1);
/// held to 3–8 RTTs.
#[test]
fn yang_responsiveness_tfrc_and_tear_halve_in_about_five_rtts() {
    let steady = 600;
    let persistent = |round: usize| {
        if round < steady {
            round % 10 == 9
        } else {
            true
        }
    };
    let config = RateConfig {
        initial_rate_bps: Some(80e3),
        ..RateConfig::default()
    };
    let mut results = Vec::new();
    for (name, mut rx, mut tx) in [
        (
            "TFRC",
            Box::new(TfrcReceiver::new(TfrcVariant::Ns2June2000, false)) as Box<dyn Receiver>,
            Box::new(Tfrc::new(TfrcVariant::Ns2June2000, config)) as Box<dyn Controller>,
        ),
        (
            "TEAR",
            Box::new(TearReceiver::default()),
            Box::new(TearSender::new(config)),
        ),
    ] {
        let trace = closed_loop(rx.as_mut(), tx.as_mut(), steady + 40, persistent);
        let before = mean(&trace[steady - 50..steady]);
        let d = trace[steady..]
            .iter()
            .position(|&w| w <= before / 2.0)
            .map(|k| k + 1);
        eprintln!("Responsiveness: {name} D = {d:?} RTTs (from {before:.1} packets/RTT)");
        results.push((name, d));
    }
    for (name, d) in results {
        let d = d.unwrap_or(usize::MAX);
        assert!((3..=8).contains(&d), "{name}: D = {d}");
    }
}

/// Aggressiveness I (packets/RTT per RTT) of TFRC-2000 without and with history discounting
/// and of TEAR after Bernoulli loss steps `from` → `to` at 400 s (Yang et al. Figs. 23/25,
/// §5.1; Fig. 23 used periodic loss). Fitted over the 30 RTTs after the step and averaged over
/// six seeds: one step is noisy (ns-2.35's own TFRC gives 0.071–0.101 over six seeds).
fn aggressiveness(from: f64, to: f64) -> [f64; 3] {
    let step_at = 400 * S;
    let schedule = LossSpec::Schedule {
        steps: vec![
            LossStep {
                at_ns: 0,
                loss: StepLoss::Bernoulli(from),
            },
            LossStep {
                at_ns: step_at,
                loss: StepLoss::Bernoulli(to),
            },
        ],
    };
    let bin0 = (step_at / RTT_NS) as usize;
    [("tfrc-2000", 0.0), ("tfrc-2000", 1.0), ("tear", -1.0)].map(|(name, disc)| {
        let discounting = [("discounting", disc)];
        let s = RateSourceSpec {
            jitter: 0.1,
            ..source(name, if disc >= 0.0 { &discounting } else { &[] })
        };
        let slopes: Vec<f64> = (1..=6)
            .map(|seed| {
                let (r, _) = run_rate(
                    yang(schedule.clone()),
                    std::slice::from_ref(&s),
                    step_at + 30 * S,
                    seed,
                    RTT_NS,
                );
                let ys = sent_series(&r, 0, bin0, bin0 + 30);
                let xs: Vec<f64> = (0..ys.len()).map(|i| i as f64).collect();
                slope(&xs, &ys)
            })
            .collect();
        let i = mean(&slopes);
        eprintln!(
            "Aggressiveness {from}→{to}: {name} discounting={disc} I = {i:.3} packets/RTT per RTT"
        );
        i
    })
}

/// `aggressiveness(0.10, 0.0)`, computed once for the tests that read it.
fn aggressiveness_10_to_0() -> [f64; 3] {
    static I: OnceLock<[f64; 3]> = OnceLock::new();
    *I.get_or_init(|| aggressiveness(0.10, 0.0))
}

/// Yang et al. §5 and Table 1: TEAR is the least aggressive, after 4% → 1% and after 10% → 0%;
/// TFRC is faster with history discounting than without; and Yang's I are upper bounds
/// ("what we derive is an upper bound"): TFRC 0.12 without and 0.22 with discounting (from
/// Floyd et al.), TEAR 1/12, so no measured I exceeds its bound by more than 30%.
#[test]
fn aggressiveness_orders_as_yang_reports() {
    for ((from, to), i) in [
        ((0.04, 0.01), aggressiveness(0.04, 0.01)),
        ((0.10, 0.0), aggressiveness_10_to_0()),
    ] {
        assert!(
            i[2] < i[0] && i[2] < i[1],
            "{from}→{to}: TEAR is not the slowest: {i:?}"
        );
        assert!(i[1] > i[0], "{from}→{to}: discounting is not faster: {i:?}");
        for (x, bound) in i.iter().zip([0.12, 0.22, 1.0 / 12.0]) {
            assert!(
                *x <= 1.3 * bound,
                "{from}→{to}: I {x} over the bound {bound}: {i:?}"
            );
        }
    }
}

/// Strict expected failure. Yang et al. §5.1 quotes TFRC's I after 10% → 0% as 0.12 without
/// and 0.22 with history discounting; the issue holds them ±30%. Yang take them from Floyd et
/// al. as upper bounds ("what we derive is an upper bound"), and their own Figs. 23 and 25
/// show TFRC rising more slowly than GAIMD's 0.31. TFRC-2000 reaches 0.077 and 0.114, its
/// increase slowed by the RTT it measures with the receiver's hold and by feedback only once
/// per RTT or so. I follows how fast X_calc grows as the open loss interval lengthens (faster
/// with discounting). `aggressiveness_orders_as_yang_reports` checks what the paper claims.
#[test]
#[should_panic(expected = "TFRC I")]
fn tfrc_aggressiveness_matches_yang() {
    let i = aggressiveness_10_to_0();
    assert!(
        (i[0] / 0.12 - 1.0).abs() <= 0.3 && (i[1] / 0.22 - 1.0).abs() <= 0.3,
        "TFRC I {i:?}"
    );
}

/// Papadimitriou & Zhang Fig. 3 set-up (§V-A, §VI): 3 flows, 1 Mb/s, round-trip link delay 64
/// ms, DropTail half the BDP (4 packets), 1000-byte packets, 200 s measured after 2 s. Each
/// flow's sending rate averaged over 150-ms intervals (§VI: "the transmission rate is averaged
/// over 150 ms intervals"; §V-B samples throughput_i(t) every 150 ms and averages the flows'
/// CoVs). Returns the flows' mean CoV, the utilization (delivered / capacity) and Yang et al.'s
/// eq. (4) factor (1 − β)/(1 + β) averaged over every decrease the flows took.
fn papadimitriou_fig3_run(name: &str) -> (f64, f64, f64) {
    let topology = TopologySpec::Dumbbell {
        bottleneck: link(1_000_000, 22 * MS, 4),
        reverse: None,
        access: link(100_000_000, 5 * MS, 1000),
    };
    // Whole 150-ms bins from 2 s to 202 s; all packets are 1000 bytes.
    let bin = 150 * MS;
    let (from, to) = ((2 * S).div_ceil(bin) as usize, (202 * S / bin) as usize);
    let specs: Vec<RateSourceSpec> = (0..3).map(|_| spec(name, 0.1)).collect();
    let (r, probes) = run_rate(topology, &specs, 202 * S, 4, bin);
    let covs: Vec<f64> = (0..3).map(|f| cov(&sent_series(&r, f, from, to))).collect();
    let bytes: f64 = (0..3)
        .map(|f| {
            delivered_series(&r, f, from)[..to - from]
                .iter()
                .sum::<f64>()
        })
        .sum();
    let util = 8.0 * bytes / (1e6 * ((to - from) as u64 * bin) as f64 / S as f64);
    let cuts: Vec<f64> = probes
        .iter()
        .flat_map(|p| {
            let log = p.lock().unwrap();
            log.rates
                .windows(2)
                .map(|w| w[1].1 / w[0].1)
                .filter(|&b| b < 0.999)
                .collect::<Vec<f64>>()
        })
        .map(|b| (1.0 - b) / (1.0 + b))
        .collect();
    let factor = mean(&cuts);
    eprintln!("Papadimitriou Fig. 3: {name} CoV {:.4} (flows {covs:.3?}), utilization {util:.4}, {} decreases, mean (1-β)/(1+β) {factor:.4}", mean(&covs), cuts.len());
    (mean(&covs), util, factor)
}

/// [`papadimitriou_fig3_run`] for SSVP and SSVP-ADP, computed once for the tests that read it.
fn papadimitriou_fig3() -> [(f64, f64, f64); 2] {
    static RUNS: OnceLock<[(f64, f64, f64); 2]> = OnceLock::new();
    *RUNS.get_or_init(|| ["ssvp", "ssvp-adp"].map(papadimitriou_fig3_run))
}

/// Strict expected failure. Papadimitriou & Zhang Fig. 3: SSVP-ADP's mean CoV is lower than
/// SSVP's (paper: 0.0581 vs 0.0868) and its utilization higher.
///
/// Measured (seed 4): SSVP CoV 0.151, utilization 1.0000; SSVP-ADP 0.221, 0.9998 (seeds 1–3
/// alike; both lose about 12 % of their packets at ≈ 4 packets per RTT per flow). With losses
/// that hit one flow at a time, Yang et al.'s smoothness result (4), CoV ∝ √((1 − β)/(1 + β)),
/// says a deeper cut makes a rougher flow, and (21) cuts a paced rate by RTT_min/RTT ≈ 0.74
/// where SSVP cuts by 0.875 (`consistency_papadimitriou_fig3_cov_ratio_is_yang_eq4_at_the_cuts_taken`
/// checks the ratio). The paper's argument (18) is about a window: k_i packets per RTT keep their
/// throughput while the queue drains, which needs every flow to cut at the same overflow; a
/// paced sender's rate is S/IPG (9) and falls with each cut. Rescaling the IPG with the RTT
/// (holding k_i: 0.135 vs 0.225) or cutting again on every loss (0.194 vs 0.289) did not change
/// the order. The 4-packet queue never empties after one flow's 12.5 % cut, so SSVP loses no
/// capacity either. The paper's sources are TES MPEG-4 video (§V-A), ours greedy.
#[test]
#[should_panic(expected = "CoV: SSVP-ADP")]
fn papadimitriou_fig3_adaptive_beta_is_smoother_and_uses_more_bandwidth() {
    let [ssvp, adp] = papadimitriou_fig3();
    assert!(adp.0 < ssvp.0, "CoV: SSVP-ADP {} vs SSVP {}", adp.0, ssvp.0);
    assert!(
        adp.1 > ssvp.1,
        "utilization: SSVP-ADP {} vs SSVP {}",
        adp.1,
        ssvp.1
    );
}

/// Consistency check, not the paper's claim (that one is
/// `papadimitriou_fig3_adaptive_beta_is_smoother_and_uses_more_bandwidth`, a strict expected
/// failure): given the cut depths the two flows actually took in the run, their CoV ratio is
/// what Yang et al.'s eq. (4) predicts from those depths, √ of the ratio of their mean
/// (1 − β)/(1 + β), within 30 % (Yang's own simulations sit 12–16 % from (4) for each of TCP
/// and GAIMD, Fig. 6). It checks the simulator's smoothness against a model fed with the run's
/// own β, so it explains the expected failure rather than grading the paper.
#[test]
fn consistency_papadimitriou_fig3_cov_ratio_is_yang_eq4_at_the_cuts_taken() {
    let [ssvp, adp] = papadimitriou_fig3();
    let (measured, theory) = (adp.0 / ssvp.0, (adp.2 / ssvp.2).sqrt());
    eprintln!(
        "SSVP-ADP / SSVP CoV: measured {measured:.3}, Yang (4) at the run's cut depths {theory:.3}"
    );
    assert!(
        (measured / theory - 1.0).abs() <= 0.3,
        "measured {measured}, Yang (4) {theory}"
    );
}

/// The Cisco path with bottleneck `capacity_bps`, a DropTail queue of `queue_pkts` and access
/// links of `access_bps`; 5 + 40 + 5 ms one way.
fn cisco(capacity_bps: u64, queue_pkts: u64, access_bps: u64) -> TopologySpec {
    let hop = |from: &str, to: &str, params| CustomLink {
        from: from.into(),
        to: to.into(),
        params,
        duplex: true,
        monitor: true,
    };
    TopologySpec::Custom {
        nodes: ["server", "r1", "r2", "client"].map(String::from).to_vec(),
        links: vec![
            hop("server", "r1", link(access_bps, 5 * MS, 1000)),
            hop("r1", "r2", link(capacity_bps, 40 * MS, queue_pkts)),
            hop("r2", "client", link(access_bps, 5 * MS, 1000)),
        ],
    }
}

fn bunched(name: &str, params: &[(&str, f64)]) -> RateSourceSpec {
    RateSourceSpec {
        packet_bytes: 1500,
        bunch: 3,
        jitter: 0.1,
        initial_rate_bps: Some(48e3),
        ..source(name, params)
    }
}

/// Loguinov & Radha Fig. 8 / Table I: loss of ISCC(−1.5, 2) (m_I = 20, m_D = 2, estimated C)
/// and rate AIMD(0.19, 1/2) (MTU/RTT = 100 kb/s) with n = 2 … 32 flows. Paper (T1): AIMD
/// scales as n^1.31, ISCC(−1.5, 2) as n^0.49.
///
/// On the T1 no loss-driven control that steps once per RTT can reproduce Table I's ISCC
/// numbers. At its fair share x = C/n a flow's rate holds still only if a fraction
/// f = I/(I + D) of its steps are decreases, where I and D are the increase and decrease steps
/// at x. Each decrease costs a lost packet of the flow's own, so a flow that steps once per k
/// packets loses at least f/(k + f). For ISCC, I/D = √n/10: f = 0.12 at n = 2, 0.36 at n = 32
/// and 0.41 at n = 50. Table I's 2.3 % at n = 50 needs k ≥ 18, one step per 7 s at the 30 kb/s
/// fair share; at n = 32 our flows send 2.4 packets per report. Seed 6, 10–300 s, T1:
/// AIMD 2.6 / 5.0 / 9.2 / 15.5 / 32.3 % at n = 2 / 4 / 8 / 16 / 32 (n^0.89), ISCC 3.5 / 2.4 /
/// 6.4 / 17.7 / 34.3 % (n^0.94).
///
/// The claim is checked where that bound is small. The same path scaled to a T3 (44.736 Mb/s,
/// access links 100 Mb/s) keeps every time constant, the queue included (1159 packets, 311 ms);
/// only C·R grows, 29-fold, and with it the packets a flow sends per step. There: AIMD 0.042 /
/// 0.105 / 0.29 / 0.67 / 1.5 % (n^1.31, the paper's exponent), ISCC 3.0 / 1.8 / 1.1 / 0.85 /
/// 2.0 % (n^−0.23, §VI-A's "slowly decaying" s_n in simulation). Seeds 7 and 8 give the same
/// exponents within 0.01. ISCC's p_2 is 5× the 0.57 % of Table I: a rate-based sender keeps
/// increasing while the 311 ms queue fills, so the first loss of a cycle comes well above C.
#[test]
fn loguinov_fig8_iscc_loss_grows_slower_than_aimd() {
    let (aimd, iscc) = fig8_exponents(1_544_000, 40, 10_000_000);
    eprintln!("Loguinov Fig. 8, T1: AIMD n^{aimd:.2}, ISCC n^{iscc:.2} (paper n^1.31, n^0.49)");
    let (aimd, iscc) = fig8_exponents(44_736_000, 1159, 100_000_000);
    assert!(iscc < 0.5 * aimd, "T3 exponents: AIMD {aimd}, ISCC {iscc}");
}

/// Fitted loss exponents (AIMD, ISCC) over n = 2 … 32 on the Cisco path with the given
/// bottleneck; every flow starts at its fair share C/n (the paper measures from 10 s after the
/// last slow start) and losses count from 10 s to 300 s.
fn fig8_exponents(capacity_bps: u64, queue_pkts: u64, access_bps: u64) -> (f64, f64) {
    let ns = [2usize, 4, 8, 16, 32];
    let mut exponents = Vec::new();
    for (name, params) in [
        (
            "rate-aimd",
            vec![("alpha", 0.19), ("beta", 0.5), ("mtu_per_rtt", 100e3)],
        ),
        ("ISCC(-1.5,2)", vec![("m_i", 20.0), ("m_d", 2.0)]),
    ] {
        let mut losses = Vec::new();
        for &n in &ns {
            let fair = capacity_bps as f64 / n as f64;
            let specs: Vec<RateSourceSpec> = (0..n)
                .map(|_| RateSourceSpec {
                    initial_rate_bps: Some(fair),
                    ..bunched(name, &params)
                })
                .collect();
            let (r, _) = run_rate(
                cisco(capacity_bps, queue_pkts, access_bps),
                &specs,
                300 * S,
                6,
                10 * S,
            );
            let t = r.trace.as_ref().unwrap();
            let (mut sent, mut lost) = (0u64, 0u64);
            for b in 1..t.bins {
                for f in 0..n {
                    sent += t.flows[b * n + f].sent_pkts;
                    lost += t.flows[b * n + f].lost_pkts;
                }
            }
            let p = lost as f64 / sent as f64;
            eprintln!(
                "Loguinov Fig. 8, {capacity_bps} b/s: {name} n = {n}: loss {:.3} %",
                100.0 * p
            );
            losses.push(p.max(1e-6));
        }
        let lx: Vec<f64> = ns.iter().map(|&n| (n as f64).ln()).collect();
        let ly: Vec<f64> = losses.iter().map(|p| p.ln()).collect();
        let e = slope(&lx, &ly);
        eprintln!("Loguinov Fig. 8, {capacity_bps} b/s: {name} loss scales as n^{e:.2}");
        exponents.push(e);
    }
    (exponents[0], exponents[1])
}

/// Every catalogued rate controller runs end to end on a lossy dumbbell, delivers data and keeps
/// its rate finite and positive.
#[test]
fn every_rate_controller_runs_in_the_engine() {
    let rate = ccscope_core::control::catalog::catalogue()
        .into_iter()
        .filter(|i| i.family == Family::Rate);
    for info in rate {
        let params: &[(&str, f64)] = if info.name == "rate-binomial" {
            &[("k", 0.5), ("l", 0.5)]
        } else {
            &[]
        };
        let mut s = source(info.name, params);
        if info.name == "iscc" {
            s.bunch = 3;
        }
        let (r, probes) = run_rate(yang(LossSpec::Bernoulli { p: 0.01 }), &[s], 30 * S, 7, S);
        let f = &r.flows[0].stats.dir[0];
        assert!(
            f.delivered_pkts > 20,
            "{}: {} delivered",
            info.name,
            f.delivered_pkts
        );
        let log = probes[0].lock().unwrap();
        assert!(!log.rates.is_empty());
        assert!(
            log.rates.iter().all(|&(_, x)| x.is_finite() && x > 0.0),
            "{}",
            info.name
        );
    }
}

/// A run is a pure function of its scenario and seed.
#[test]
fn rate_runs_are_deterministic() {
    let once = || {
        run_rate(
            yang(LossSpec::Bernoulli { p: 0.02 }),
            &[spec("tfrc", 0.1), spec("tear", 0.1)],
            20 * S,
            9,
            S,
        )
        .0
    };
    assert_eq!(once(), once());
}
