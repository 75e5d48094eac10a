//! `make bench`: what a queue costs per packet, kind by kind.
//!
//! Poisson arrivals of 1000-byte packets from `flows` flows offering 110% of a 100 Mb/s link
//! go through one queue, served as a link serves it: DropTail and RED admit on arrival and the
//! packets wait in a chain of the store behind the one on the wire, the link popping the head
//! when the wire falls free; CoDel, FQ-CoDel and PIE take each packet and give the next one
//! when the wire falls free. The arrivals are drawn before the clock starts; what is timed is
//! the queue and the chain's work for two million packets. Prints one JSON line per queue and
//! flow count: nanoseconds per packet offered, best of `--repeat` (default 5).
//!
//! Usage: cargo run --release --example bench_queues -- [--repeat N] [--queue KIND] [FLOWS...]
//! (the first flow count runs every queue, the others FQ-CoDel; `--queue` runs one kind).

use std::time::Instant;

use rand::Rng as _;
use rand_distr::{Distribution, Exp};

use ccscope_core::net::codel::CoDelParams;
use ccscope_core::net::fq_codel::FqCoDelParams;
use ccscope_core::net::packet::Packet;
use ccscope_core::net::pie::PieParams;
use ccscope_core::net::queue::{Admit, Length, Queue, QueueSpec, RedMode};
use ccscope_core::net::store::{Fifo, Store};
use ccscope_core::rng::{stream, Stream};
use ccscope_core::time::{serialization_time, SimTime};

const RATE_BPS: u64 = 100_000_000;
const PACKETS: usize = 2_000_000;
const SIZE: u32 = 1000;

fn queues() -> Vec<(&'static str, QueueSpec)> {
    let codel = CoDelParams {
        target: SimTime::from_ms(5),
        interval: SimTime::from_ms(100),
        mtu_bytes: 1514,
        ecn: false,
    };
    let limit = Length::Packets(1000);
    vec![
        ("droptail", QueueSpec::droptail_packets(1000)),
        // The scenario's default RED: ns-2's automatic thresholds and weight.
        (
            "red",
            QueueSpec::Red {
                limit_packets: 1000,
                min_th: None,
                max_th: None,
                max_p: 0.1,
                w_q: None,
                gentle: true,
                wait: true,
                ecn: false,
                mode: RedMode::Packets,
                mean_packet_bytes: SIZE,
            },
        ),
        (
            "codel",
            QueueSpec::CoDel {
                params: codel,
                limit,
            },
        ),
        (
            "fq_codel",
            QueueSpec::FqCoDel(FqCoDelParams {
                codel,
                flows: 1024,
                quantum: 1514,
                limit_packets: 10240,
                memory_limit_bytes: 32 << 20,
                drop_batch: 64,
            }),
        ),
        (
            "pie",
            QueueSpec::Pie {
                params: PieParams {
                    target: SimTime::from_ms(15),
                    t_update: SimTime::from_ms(15),
                    alpha: 0.125,
                    beta: 1.25,
                    max_burst: SimTime::from_ms(150),
                    mean_packet_bytes: 1000,
                    ecn: false,
                    derandomize: false,
                },
                limit,
            },
        ),
    ]
}

/// Arrival times and flows: `flows` Poisson streams offering 110% of the link together.
fn arrivals(flows: u32) -> Vec<(SimTime, u32)> {
    let mut rng = stream(1, Stream::Source, flows as u64);
    let per_s = 1.1 * RATE_BPS as f64 / (8.0 * SIZE as f64);
    let gap = Exp::new(per_s).expect("a positive rate");
    let mut t = 0.0;
    (0..PACKETS)
        .map(|_| {
            t += gap.sample(&mut rng);
            (SimTime::from_secs_f64(t), rng.gen_range(0..flows))
        })
        .collect()
}

/// Frees the packets the queue dropped, as the engine does (`Core::drop_dropped`).
#[inline(always)]
fn free_dropped(store: &mut Store, dropped: &mut Vec<u32>) {
    if !dropped.is_empty() {
        for &d in dropped.iter() {
            store.remove(d);
        }
        dropped.clear();
    }
}

/// Runs the arrivals through a queue of `spec` onto the link: the seconds it took, and the
/// packets sent.
fn serve(spec: &QueueSpec, arrivals: &[(SimTime, u32)]) -> (f64, u64) {
    let mut store = Store::default();
    let mut queue = Queue::new(spec, RATE_BPS, SimTime::ZERO, stream(1, Stream::Queue, 0));
    let kept = queue.keeps_packets();
    let mut chain = Fifo::default();
    let mut dropped = Vec::new();
    let mut on_wire: Option<u32> = None;
    let mut free = SimTime::ZERO;
    let mut sent = 0u64;
    let ser = serialization_time(SIZE, RATE_BPS);
    let start = Instant::now();
    for &(at, flow) in arrivals {
        // The wire falls free, perhaps several times, before the packet arrives.
        while let Some(k) = on_wire.filter(|_| free <= at) {
            store.remove(k);
            sent += 1;
            on_wire = if kept {
                let next = queue
                    .dequeue(&mut store, free, &mut dropped)
                    .map(|(k, _)| k);
                free_dropped(&mut store, &mut dropped);
                next
            } else {
                chain
                    .pop_front(&store)
                    .inspect(|&k| queue.pop(store.size_bytes(k)))
            };
            if on_wire.is_none() {
                queue.idle(free);
            }
            free += ser;
        }
        let k = store.insert(Packet {
            flow,
            size_bytes: SIZE,
            ..Packet::default()
        });
        if kept {
            if let Admit::DroppedForced | Admit::DroppedEarly =
                queue.enqueue(&mut store, k, at, &mut dropped)
            {
                store.remove(k);
            }
            free_dropped(&mut store, &mut dropped);
            if on_wire.is_none() {
                on_wire = queue.dequeue(&mut store, at, &mut dropped).map(|(k, _)| k);
                free_dropped(&mut store, &mut dropped);
                free = at + ser;
            }
        } else {
            match queue.admit(SIZE, false, at) {
                Admit::DroppedForced | Admit::DroppedEarly => {
                    store.remove(k);
                }
                _ if on_wire.is_none() => {
                    on_wire = Some(k);
                    free = at + ser;
                }
                _ => {
                    queue.push(SIZE);
                    chain.push_back(&mut store, k);
                }
            }
        }
    }
    (start.elapsed().as_secs_f64(), sent)
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let mut repeat = 5;
    let mut only = None;
    let mut counts = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--repeat" => repeat = args.next().and_then(|n| n.parse().ok()).unwrap_or(5),
            "--queue" => only = args.next(),
            // Every line is JSON already (bench/speed.py asks every example for it).
            "--json" => {}
            n => counts.push(n.parse::<u32>().expect("a number of flows")),
        }
    }
    if counts.is_empty() {
        counts = vec![10, 1000];
    }
    for &flows in &counts {
        let arrivals = arrivals(flows);
        for (name, spec) in queues() {
            let wanted = match &only {
                Some(kind) => kind == name,
                None => flows == counts[0] || name == "fq_codel",
            };
            if !wanted {
                continue;
            }
            let (best, sent) = (0..repeat)
                .map(|_| serve(&spec, &arrivals))
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .expect("at least one run");
            println!(
                "{{\"queue\": \"{name}\", \"flows\": {flows}, \"packets\": {PACKETS}, \
                 \"sent\": {sent}, \"seconds\": {best:.6}, \"ns_per_packet\": {:.3}}}",
                best * 1e9 / PACKETS as f64
            );
        }
    }
}
