//! Running in slices (what the Python bindings do to look for Ctrl-C and report progress)
//! changes nothing, and a run stopped early reports the part it ran.

use ccscope_core::control::catalog::NoForeign;
use ccscope_core::net::Simulation;
use ccscope_core::round::{self, RoundConfig};
use ccscope_core::time::SimTime;
use ccscope_core::{build, scenario};
use serde_json::json;

fn packet() -> ccscope_core::config::Scenario {
    let table = json!({
        "run": {"duration": "20s", "warmup": "5s", "seed": 3},
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "20ms",
                     "queue": {"kind": "red", "limit": 60, "min_th": 5, "max_th": 15}}},
        "flows": [{"source": {"kind": "tcp"}, "count": 3, "start_jitter": "1s"},
                  {"source": {"kind": "rate", "controller": "tfrc"}}],
        "trace": {"interval": "500ms"}
    });
    build::packet(&scenario::read_packet(table).unwrap()).unwrap()
}

fn simulation(s: &ccscope_core::config::Scenario) -> Simulation {
    Simulation::new(s, |i| {
        build::endpoints(&s.flows[i].source, i, s.seed, &mut NoForeign)
    })
    .unwrap()
}

#[test]
fn a_run_in_uneven_slices_is_the_whole_run() {
    let s = packet();
    let whole = simulation(&s).run();
    let mut sim = simulation(&s);
    let mut t = SimTime::ZERO;
    let mut step = 1;
    while sim.now() < sim.end() {
        t += SimTime::from_us(step);
        step = step * 7 % 100_003 + 1;
        sim.run_until(t);
    }
    assert_eq!(sim.finish(), whole);
}

#[test]
fn time_does_not_go_back() {
    let s = packet();
    let whole = simulation(&s).run();
    let mut sim = simulation(&s);
    sim.run_until(SimTime::from_ms(3_000));
    sim.run_until(SimTime::from_ms(1_000));
    assert_eq!(sim.now(), SimTime::from_ms(3_000));
    sim.run_until(sim.end());
    assert_eq!(sim.finish(), whole);
}

#[test]
fn a_run_stopped_early_reports_the_time_it_reached() {
    let s = packet();
    let mut sim = simulation(&s);
    sim.run_until(SimTime::from_ms(12_500));
    let part = sim.finish();
    assert_eq!(
        (part.duration, part.warmup),
        (SimTime::from_ms(12_500), SimTime::from_secs_f64(5.0))
    );
    assert!(part.flows.iter().all(|f| f.stats.dir[0].delivered_pkts > 0));
    // Stopped before the warm-up ended, it reports from the start.
    let mut sim = simulation(&s);
    sim.run_until(SimTime::from_ms(2_000));
    let early = sim.finish();
    assert_eq!(
        (early.duration, early.warmup),
        (SimTime::from_ms(2_000), SimTime::ZERO)
    );
}

fn round_config(steps: u64) -> RoundConfig {
    let table = json!({
        "run": {"engine": "round", "steps": steps, "warmup_steps": 100},
        "link": {"capacity_pkts": 50, "feedback": "proportional"},
        "flows": [{"controller": "tcp", "count": 5}, {"controller": "iiad", "count": 3}],
        "record": {"every": 1, "flows": true}
    });
    build::round(&scenario::read_round(table).unwrap()).unwrap()
}

#[test]
fn a_round_run_stopped_at_step_k_is_a_run_of_k_steps() {
    let stopped =
        round::run_with(&round_config(1000), &mut NoForeign, &mut |step| step < 700).unwrap();
    assert_eq!(stopped, round::run(&round_config(700)).unwrap());
    let all = round::run_with(&round_config(1000), &mut NoForeign, &mut |_| true).unwrap();
    assert_eq!(all, round::run(&round_config(1000)).unwrap());
}
