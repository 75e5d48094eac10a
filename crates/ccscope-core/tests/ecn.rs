//! ECN from the queue to the controller: a step-marking queue marks, the TCP receiver echoes,
//! and DCTCP counts exactly the packets that were marked, delayed ACKs included.

mod common;

use std::sync::{Arc, Mutex};

use ccscope_core::config::LinkParams;
use ccscope_core::control::catalog::{ControllerConfig, Start};
use ccscope_core::control::{AckSample, Controller, LossEvent, WindowConfig};
use ccscope_core::net::queue::{Length, QueueSpec};
use ccscope_core::net::{RunResult, Simulation};
use ccscope_core::transport::tcp::{self, TcpSpec};
use common::*;

/// The catalogue's DCTCP, adding up the marked packets its ACKs report; `exact` passes on its
/// wish for an exact echo, or hides it (RFC 3168's echo).
struct Counted {
    dctcp: Box<dyn Controller>,
    marked: Arc<Mutex<u64>>,
    exact: bool,
}

impl Controller for Counted {
    fn name(&self) -> String {
        self.dctcp.name()
    }
    fn on_ack(&mut self, ack: &AckSample) {
        *self.marked.lock().unwrap() += ack.ce_pkts;
        self.dctcp.on_ack(ack);
    }
    fn on_loss(&mut self, loss: &LossEvent) {
        self.dctcp.on_loss(loss);
    }
    fn window(&self) -> f64 {
        self.dctcp.window()
    }
    fn wants_exact_ce_echo(&self) -> bool {
        self.exact && self.dctcp.wants_exact_ce_echo()
    }
}

/// Two DCTCP flows with delayed ACKs through a 100 Mb/s, 1 ms bottleneck that marks above 10
/// packets; they send for 2 s, and the run lasts until all they sent is acknowledged. Returns
/// the run and the marked packets the ACKs reported.
fn run(exact: bool) -> (RunResult, u64) {
    let step = QueueSpec::Step {
        limit: Length::Packets(1000),
        threshold: Length::Packets(10),
    };
    let spec = TcpSpec {
        delayed_ack: true,
        delack_ns: 2 * MS,
        ..TcpSpec::default()
    };
    let mut flows = vec![tcp(spec.clone()), tcp(spec.clone())];
    for f in &mut flows {
        f.ecn = true;
        f.stop_ns = Some(2 * S);
    }
    let bottleneck = LinkParams::new(100_000_000, MS, step);
    let s = dumbbell(bottleneck, flows, 3 * S, 7);
    let config = ControllerConfig::resolve("dctcp", &[]).unwrap();
    let start = Start {
        window: WindowConfig {
            integer: true,
            ..WindowConfig::default()
        },
        ..Start::default()
    };
    let marked = Arc::new(Mutex::new(0));
    let r = Simulation::new(&s, |_| {
        let ctl = Counted {
            dctcp: config.build(&start).unwrap(),
            marked: Arc::clone(&marked),
            exact,
        };
        Ok(tcp::endpoints_with_controller(&spec, Box::new(ctl)))
    })
    .unwrap()
    .run();
    let marked = *marked.lock().unwrap();
    (r, marked)
}

fn bottleneck_marks(r: &RunResult) -> u64 {
    let bottleneck = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    assert_eq!(bottleneck.stats.queue_drops(), 0);
    bottleneck.stats.marks
}

#[test]
fn with_delayed_acks_dctcp_counts_exactly_the_marked_packets() {
    // RFC 8257 §3.2: the receiver acknowledges each change of CE state at once, so each
    // ECN-Echo covers marked packets only.
    let (r, counted) = run(true);
    assert!(bottleneck_marks(&r) > 100, "{}", bottleneck_marks(&r));
    assert_eq!(counted, bottleneck_marks(&r));
    // RFC 3168's echo acknowledges a CE packet together with the unmarked one held before it.
    let (r, counted) = run(false);
    assert!(counted > bottleneck_marks(&r), "{counted}");
}

#[test]
fn dctcp_without_ecn_is_refused_naming_the_field() {
    use ccscope_core::build;
    use ccscope_core::scenario::read_packet;
    let scenario = serde_json::json!({
        "run": {"duration": "1s"},
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "1ms",
                     "queue": {"kind": "step", "limit": 100, "threshold": "20pkts"}}},
        "flows": [{"source": {"kind": "tcp"}, "ecn": true},
                  {"source": {"kind": "tcp", "controller": "DCTCP(1/16)"}, "count": 2}],
    });
    let err = build::packet(&read_packet(scenario).unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "flows[1].ecn = false: must be true: dctcp reacts to ECN marks (RFC 8257 §3)"
    );
}
