//! The application seam in the engine: an application-limited flow sends exactly what its
//! application offered, over TCP, the rate transport and UDP alike; the receiving application
//! sees every delivered packet once, with its tag and arrival time.

mod common;

use std::sync::{Arc, Mutex};

use ccscope_core::apps::{Delivery, ReceiveApp, RecvCtx, SendApp, SendCtx, Tag};
use ccscope_core::config::{FlowSpec, Scenario, SourceSpec};
use ccscope_core::control::catalog::ControllerConfig;
use ccscope_core::net::loss::LossSpec;
use ccscope_core::net::{Endpoint, RunResult, Simulation};
use ccscope_core::time::{serialization_time, SimTime};
use ccscope_core::transport::rate::{self, RateSourceSpec};
use ccscope_core::transport::tcp::{self, TcpSpec};
use ccscope_core::transport::udp;
use common::*;

/// Offers `pkts` packets of 1000 B tagged with frame `k + 1` at the k-th time of `batches`,
/// waking for each; never closes.
struct Script {
    batches: Vec<(SimTime, u64)>,
    next: usize,
    log: Arc<Mutex<SendLog>>,
}

#[derive(Default)]
struct SendLog {
    offered_at: Vec<SimTime>,
    sent: u64,
    acked: u64,
}

fn frame_tag(k: usize, at: SimTime) -> Tag {
    Tag::new(k as u32 + 1, k as u32 % 2).with_deadline(at + SimTime::from_ms(500))
}

impl Script {
    fn offer_due(&mut self, cx: &mut SendCtx) {
        while let Some(&(at, pkts)) = self.batches.get(self.next) {
            if at > cx.now() {
                cx.wake_at(at);
                return;
            }
            cx.offer(pkts * 1000, frame_tag(self.next, at));
            self.log.lock().unwrap().offered_at.push(cx.now());
            self.next += 1;
        }
    }
}

impl SendApp for Script {
    fn on_start(&mut self, cx: &mut SendCtx) {
        self.offer_due(cx);
    }
    fn on_wake(&mut self, cx: &mut SendCtx) {
        self.offer_due(cx);
    }
    fn on_sent(&mut self, _cx: &mut SendCtx, _chunk: &ccscope_core::apps::Chunk) {
        self.log.lock().unwrap().sent += 1;
    }
    fn on_acked(&mut self, _cx: &mut SendCtx, pkts: u64) {
        self.log.lock().unwrap().acked += pkts;
    }
}

/// Records every delivery with its delivery time.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<(SimTime, Delivery)>>>);

impl ReceiveApp for Recorder {
    fn on_deliver(&mut self, cx: &mut RecvCtx, packet: &Delivery) {
        self.0.lock().unwrap().push((cx.now(), *packet));
    }
}

type Endpoints = (Box<dyn Endpoint>, Box<dyn Endpoint>);

#[derive(Clone, Copy, Debug)]
enum Transport {
    Tcp,
    Rate,
    Udp,
}

struct Outcome {
    result: RunResult,
    log: Arc<Mutex<SendLog>>,
    deliveries: Vec<(SimTime, Delivery)>,
}

/// One flow of `transport` carrying `batches` over a 10 Mb/s, 20 ms dumbbell.
fn run_script(
    transport: Transport,
    batches: &[(SimTime, u64)],
    loss: Option<f64>,
    secs: u64,
) -> Outcome {
    let mut b = link(10_000_000, 20 * MS, 100);
    b.loss = loss.map(|p| LossSpec::Bernoulli { p });
    let flow = FlowSpec::new(SourceSpec::Tcp(TcpSpec::default()));
    let scenario: Scenario = dumbbell(b, vec![flow], secs * S, 3);
    let log = Arc::new(Mutex::new(SendLog::default()));
    let recorder = Recorder::default();
    let make = |_: usize| -> ccscope_core::Result<Endpoints> {
        let app = Box::new(Script {
            batches: batches.to_vec(),
            next: 0,
            log: log.clone(),
        });
        let sink = Box::new(recorder.clone());
        match transport {
            Transport::Tcp => {
                let tcp_start = TcpSpec::default().window_config();
                let ctl = Box::new(ccscope_core::control::Aimd::tcp().starting(tcp_start));
                Ok(tcp::endpoints(&TcpSpec::default(), ctl, app, sink))
            }
            Transport::Rate => {
                let tfrc = ControllerConfig::resolve("tfrc", &[]).unwrap();
                let spec = RateSourceSpec::new(tfrc.clone());
                let start = ccscope_core::control::catalog::Start {
                    rate: spec.config(),
                    ..Default::default()
                };
                let (ctl, rx) = (tfrc.build(&start)?, tfrc.receiver().unwrap());
                Ok(rate::endpoints(&spec, ctl, rx, app, sink))
            }
            Transport::Udp => Ok(udp::endpoints(1000, app, sink)),
        }
    };
    let result = Simulation::new(&scenario, make).unwrap().run();
    let deliveries = recorder.0.lock().unwrap().clone();
    Outcome {
        result,
        log,
        deliveries,
    }
}

fn stat(r: &RunResult, name: &str) -> f64 {
    let f = &r.flows[0];
    f.sender
        .iter()
        .chain(&f.receiver)
        .find(|(k, _)| *k == name)
        .map(|&(_, v)| v)
        .unwrap()
}

/// The deliveries are the packets 0..n, each once, with the tag of the batch it was offered in.
fn assert_delivered_as_offered(o: &Outcome, batches: &[(SimTime, u64)], in_order: bool) {
    let n: u64 = batches.iter().map(|b| b.1).sum();
    let mut seqs: Vec<u64> = o.deliveries.iter().map(|(_, d)| d.seq).collect();
    if in_order {
        assert!(
            seqs.windows(2).all(|w| w[0] + 1 == w[1]),
            "out of order: {seqs:?}"
        );
    }
    seqs.sort_unstable();
    assert_eq!(seqs, (0..n).collect::<Vec<_>>());
    let mut first = 0;
    for (k, &(at, pkts)) in batches.iter().enumerate() {
        let batch = o
            .deliveries
            .iter()
            .filter(|(_, d)| (first..first + pkts).contains(&d.seq));
        for (delivered, d) in batch {
            assert_eq!(d.tag, frame_tag(k, at), "packet {}", d.seq);
            assert_eq!(d.bytes, 1000);
            assert!(
                at <= d.sent_at && d.sent_at < d.arrived_at && d.arrived_at <= *delivered,
                "{d:?}"
            );
        }
        first += pkts;
    }
    let data = &o.result.flows[0].stats.dir[0];
    assert_eq!(data.delivered_pkts, o.deliveries.len() as u64);
}

#[test]
fn an_application_limited_flow_sends_exactly_what_was_offered() {
    let batches = [(SimTime::ZERO, 50)];
    for transport in [Transport::Tcp, Transport::Rate, Transport::Udp] {
        let o = run_script(transport, &batches, None, 30);
        let data = &o.result.flows[0].stats.dir[0];
        assert_eq!(
            (data.sent_pkts, data.delivered_pkts),
            (50, 50),
            "{transport:?}"
        );
        assert_eq!(o.log.lock().unwrap().sent, 50, "{transport:?}");
        assert_delivered_as_offered(&o, &batches, true);
    }
    let o = run_script(Transport::Tcp, &batches, None, 30);
    assert_eq!(
        (
            stat(&o.result, "acked_pkts"),
            stat(&o.result, "goodput_pkts")
        ),
        (50.0, 50.0)
    );
    assert_eq!(o.log.lock().unwrap().acked, 50);
}

/// With losses TCP retransmits what it owes, and sends no new data beyond the offer.
#[test]
fn tcp_retransmits_but_sends_nothing_new_beyond_the_offer() {
    let batches = [(SimTime::ZERO, 50)];
    let o = run_script(Transport::Tcp, &batches, Some(0.05), 60);
    let data = &o.result.flows[0].stats.dir[0];
    let retransmits = stat(&o.result, "retransmits") as u64;
    assert!(retransmits > 0);
    assert_eq!(data.sent_pkts - retransmits, 50);
    assert_eq!(o.log.lock().unwrap().sent, 50);
    assert_eq!(stat(&o.result, "goodput_pkts"), 50.0);
    assert_delivered_as_offered(&o, &batches, true);
    // Some packets arrived above a hole and were delivered when it was filled.
    assert!(o.deliveries.iter().any(|(at, d)| d.arrived_at < *at));
}

/// Data offered after an idle period wakes the transport, which sends it and nothing else.
#[test]
fn data_offered_after_an_idle_period_is_sent_then() {
    let batches = [
        (SimTime::ZERO, 10),
        (SimTime::from_ms(5_000), 20),
        (SimTime::from_ms(9_000), 5),
    ];
    for transport in [Transport::Tcp, Transport::Rate, Transport::Udp] {
        let o = run_script(transport, &batches, None, 12);
        let offered_at: Vec<SimTime> = batches.iter().map(|b| b.0).collect();
        assert_eq!(o.log.lock().unwrap().offered_at, offered_at);
        let data = &o.result.flows[0].stats.dir[0];
        assert_eq!(
            (data.sent_pkts, data.delivered_pkts),
            (35, 35),
            "{transport:?}"
        );
        assert_delivered_as_offered(&o, &batches, true);
        // The first packet of each batch leaves when it is offered (TCP, UDP) or at the rate
        // transport's next send slot, which TFRC's no-feedback timer has pushed back during the
        // silence (RFC 5348 §4.4: each expiry cuts the allowed rate), but before the next batch.
        let firsts = [(0, offered_at[0]), (10, offered_at[1]), (30, offered_at[2])];
        let ends = [offered_at[1], offered_at[2], SimTime(12 * S)];
        for ((first, at), end) in firsts.into_iter().zip(ends) {
            let sent = o
                .deliveries
                .iter()
                .find(|(_, d)| d.seq == first)
                .unwrap()
                .1
                .sent_at;
            match transport {
                Transport::Rate => {
                    assert!(at <= sent && sent < end, "{transport:?}: {sent} for {at}")
                }
                _ => assert_eq!(sent, at, "{transport:?}"),
            }
        }
    }
}

/// One packet: arrival = send + the serializations and propagations of the path, to the
/// nanosecond; UDP delivers it on arrival.
#[test]
fn the_receiving_application_sees_exact_arrival_times() {
    let at = SimTime::from_ms(100);
    let o = run_script(Transport::Udp, &[(at, 1)], None, 1);
    let (delivered, d) = o.deliveries[0];
    // Access 1 Gb/s 1 ms, bottleneck 10 Mb/s 20 ms, access 1 Gb/s 1 ms.
    let access = serialization_time(1000, 1_000_000_000).ns() + MS;
    let path = SimTime(2 * access + serialization_time(1000, 10_000_000).ns() + 20 * MS);
    assert_eq!(
        (d.sent_at, d.arrived_at, delivered),
        (at, at + path, at + path)
    );
}
