//! Writing a controller in Rust: a delay-based AIMD, run beside TCP on a dumbbell.
//!
//! The controller owns only its state and never reads a clock: `now` and everything it reacts
//! to come in the samples (`AckSample`, `LossEvent`), and the engine reads its window back.
//! A controller meant to stay goes in its own file under `src/control/window/` (or
//! `src/control/rate/`) with one entry in `src/control/catalog.rs`: its name, family,
//! parameter table (ranges and defaults, checked there) and how to build it from the checked
//! values. No engine changes: the TCP transport, the udp engine and the round model (through
//! `on_round`) run it as they run every catalogued controller.
//!
//! `cargo run --release --example delay_controller` prints the two flows' throughputs.

use ccscope_core::config::{FlowSpec, LinkParams, Scenario, SourceSpec, TopologySpec, TraceSpec};
use ccscope_core::control::{AckSample, Controller, LossEvent, LossKind};
use ccscope_core::net::queue::QueueSpec;
use ccscope_core::net::Simulation;
use ccscope_core::time::SimTime;
use ccscope_core::transport::tcp::{self, TcpSpec};

/// Additive increase while the queueing delay (the RTT sample less the smallest RTT seen)
/// stays under `target`; a decrease of half a packet per RTT above it; halving on a loss, at
/// most once per RTT.
struct DelayAimd {
    /// Queueing delay the controller aims below.
    target: SimTime,
    /// Congestion window (packets), ≥ 1.
    cwnd: f64,
    /// When the last halving happened: losses of packets sent before it are the same event.
    last_cut: SimTime,
}

impl Controller for DelayAimd {
    fn name(&self) -> String {
        format!("DelayAIMD({} ms)", self.target.secs() * 1e3)
    }

    fn on_ack(&mut self, ack: &AckSample) {
        let (Some(rtt), Some(min_rtt)) = (ack.rtt, ack.min_rtt) else {
            return;
        };
        if ack.acked_pkts == 0 || ack.in_recovery {
            return;
        }
        // Spread over the ~cwnd ACKs of one RTT: +1 or −1/2 packet per RTT.
        let step = if rtt.saturating_sub(min_rtt) > self.target {
            -0.5
        } else {
            1.0
        };
        self.cwnd = (self.cwnd + step / self.cwnd).max(1.0);
    }

    fn on_loss(&mut self, loss: &LossEvent) {
        if loss.kind == LossKind::Timeout || loss.sent_at >= self.last_cut {
            self.cwnd = (self.cwnd / 2.0).max(1.0);
            self.last_cut = loss.now;
        }
    }

    fn window(&self) -> f64 {
        self.cwnd
    }
}

fn main() {
    const MS: u64 = 1_000_000;
    let tcp = TcpSpec::default();
    let scenario = Scenario {
        seed: 1,
        duration_ns: 60_000 * MS,
        warmup_ns: 10_000 * MS,
        topology: TopologySpec::Dumbbell {
            bottleneck: LinkParams::new(10_000_000, 20 * MS, QueueSpec::droptail_packets(100)),
            reverse: None,
            access: LinkParams::new(1_000_000_000, MS, QueueSpec::droptail_packets(1_000)),
        },
        flows: vec![FlowSpec::new(SourceSpec::Tcp(tcp.clone())); 2],
        trace: TraceSpec::default(),
    };
    // Flow 0 runs the controller above; flow 1 the catalogue's TCP, through the one factory.
    let sim = Simulation::new(&scenario, |i| {
        if i == 0 {
            let mine = DelayAimd {
                target: SimTime::from_ms(5),
                cwnd: 2.0,
                last_cut: SimTime::ZERO,
            };
            Ok(tcp::endpoints_with_controller(&tcp, Box::new(mine)))
        } else {
            ccscope_core::build::endpoints(
                &scenario.flows[i].source,
                i,
                scenario.seed,
                &mut ccscope_core::control::catalog::NoForeign,
            )
        }
    })
    .expect("a valid scenario");
    let result = sim.run();
    let measured_s = (result.duration - result.warmup).secs();
    for f in &result.flows {
        let bps = f.stats.dir[0].delivered_bytes as f64 * 8.0 / measured_s;
        println!("{:<24} {:>8.3} Mb/s", f.label, bps / 1e6);
    }
}
