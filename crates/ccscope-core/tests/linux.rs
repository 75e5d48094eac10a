//! Flows of the kernel's own TCP through the udp engine's emulated network. They need a
//! process that may make network namespaces and TUN devices (root); elsewhere each test says
//! why it skips. Bounds come from the theory of a loss-based flow over a buffered link, never
//! from this engine's output, with room for the scheduler of a shared machine.

mod common;

use std::sync::Mutex;

use ccscope_core::build::endpoints;
use ccscope_core::config::{FlowSpec, LinuxSpec, Scenario, SourceSpec, TraceSpec};
use ccscope_core::control::catalog::NoForeign;
use ccscope_core::net::trace::SENDER;
use ccscope_core::net::RunResult;
use ccscope_core::realnet::{self, linux};
use ccscope_core::scenario::Emulation;
use ccscope_core::transport::tcp::TcpSpec;
use common::*;

/// Real-time runs take turns: two at once would share the cores they are timed on (and one
/// would see the other's namespaces).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn kernel_tcp(cc: &str) -> FlowSpec {
    FlowSpec::new(SourceSpec::Linux(LinuxSpec {
        cc: cc.into(),
        packet_bytes: 1000,
        transfer_bytes: None,
        app: None,
    }))
}

/// Whether this process may make kernel flows (saying why not when it may not).
fn may_run() -> bool {
    match linux::available() {
        Ok(()) => true,
        Err(e) => {
            eprintln!("skipped: {e}");
            false
        }
    }
}

/// 10 Mb/s, 20 ms each way on the bottleneck and 1 ms on each access link: an RTT of 44 ms
/// and a bandwidth-delay product of 55 packets of 1000 B, the buffer; 6 s, measured after 2 s.
fn ten_megabits(flows: Vec<FlowSpec>) -> Scenario {
    let mut s = dumbbell(link(10_000_000, 20 * MS, 55), flows, 6 * S, 1);
    s.warmup_ns = 2 * S;
    s
}

fn utilization(r: &RunResult) -> f64 {
    let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    b.stats.busy_ns as f64 / (r.duration.ns() - r.warmup.ns()) as f64
}

fn stat(of: &[(&'static str, f64)], name: &str) -> f64 {
    of.iter()
        .find(|(k, _)| *k == name)
        .unwrap_or_else(|| panic!("{name} in {of:?}"))
        .1
}

/// The network namespaces and TUN devices this process holds by descriptor.
fn held() -> (usize, usize) {
    let (mut ns, mut tun) = (0, 0);
    for fd in std::fs::read_dir("/proc/self/fd").unwrap().flatten() {
        let Ok(target) = std::fs::read_link(fd.path()) else {
            continue;
        };
        let target = target.to_string_lossy();
        ns += usize::from(target.starts_with("net:["));
        tun += usize::from(target == "/dev/net/tun");
    }
    (ns, tun)
}

#[test]
fn a_kernel_cubic_flow_fills_a_bottleneck_with_a_bdp_of_buffer() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !may_run() {
        return;
    }
    let mut s = ten_megabits(vec![kernel_tcp("cubic")]);
    s.trace = TraceSpec {
        interval_ns: Some(100 * MS),
        state: true,
        ..TraceSpec::default()
    };
    let before = held();
    let mut during = None;
    let r = realnet::run_with(
        &s,
        Emulation::User,
        |i| endpoints(&s.flows[i].source, i, s.seed, &mut NoForeign),
        |_| {
            during.get_or_insert_with(held);
            true
        },
    )
    .unwrap();
    // While it ran, the process held the flow's two namespaces and two TUN devices; after
    // it, nothing: the kernel frees what no one holds.
    let during = during.unwrap();
    assert_eq!(
        (during.0 - before.0, during.1 - before.1),
        (2, 2),
        "namespaces and TUN devices held during the run"
    );
    assert_eq!(held(), before, "nothing held after the run");

    // A loss-based flow whose window halves (CUBIC: is cut by 30%) into a buffer of one
    // bandwidth-delay product never lets the link idle (Appenzeller, Keslassy & McKeown,
    // "Sizing router buffers", SIGCOMM 2004, §2): utilization is 1 in theory; 0.9 leaves room
    // for the real-time engine's timing on a shared machine.
    let u = utilization(&r);
    assert!(u >= 0.9, "bottleneck busy {u:.3} of the time");
    let f = &r.flows[0];
    assert_eq!(f.label, "Linux cubic");
    // The receiving application read as much: 948 B of data in each 1000 B packet (40 B of
    // IPv4 and TCP headers and 12 B of timestamps, RFC 7323 §3).
    let goodput_bps = stat(&f.receiver, "goodput_bytes") * 8.0 / 4.0;
    assert!(
        goodput_bps >= 0.9 * 10e6 * 948.0 / 1000.0,
        "the application read {goodput_bps:.0} b/s"
    );
    // The kernel's window is at least what fills the pipe less CUBIC's cut, at most the pipe
    // and the buffer: 0.7 * 55 <= cwnd <= 110 (a few more for the access links).
    let cwnd = stat(&f.sender, "cwnd_pkts");
    assert!(
        (0.7 * 55.0..=120.0).contains(&cwnd),
        "TCP_INFO's cwnd {cwnd} packets"
    );
    // TCP_INFO sampled every 100 ms into the state trace: the RTT between the path's 44 ms and
    // that plus a full buffer (55 ms at 10 Mb/s), and a window in the same range once past
    // slow start.
    let log = r.trace.as_ref().and_then(|t| t.state.as_ref()).unwrap();
    let field = |name: &str| {
        let k = log.names.iter().position(|n| *n == name).unwrap() as u16;
        (0..log.time_ns.len())
            .filter(|&j| log.flow[j] == 0 && log.side[j] == SENDER && log.field[j] == k)
            .map(|j| (log.time_ns[j], log.value[j]))
            .collect::<Vec<_>>()
    };
    let srtt = field("srtt_s");
    assert!(srtt.len() >= 30, "{} srtt samples in 6 s", srtt.len());
    for (t, v) in &srtt {
        assert!(
            (0.044..0.044 + 0.055 + 0.01).contains(v),
            "srtt {v} s at {t} ns"
        );
    }
    let late = field("cwnd_pkts")
        .into_iter()
        .filter(|(t, _)| *t >= 2 * S)
        .collect::<Vec<_>>();
    assert!(!late.is_empty());
    for (t, v) in &late {
        assert!((1.0..=120.0).contains(v), "cwnd {v} at {t} ns");
    }
    for name in [
        "ssthresh_pkts",
        "rttvar_s",
        "pacing_rate_bps",
        "delivery_rate_bps",
    ] {
        assert!(!field(name).is_empty(), "{name} sampled");
    }
}

#[test]
fn a_kernel_flow_and_a_ccscope_flow_share_the_emulated_link() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !may_run() {
        return;
    }
    let s = ten_megabits(vec![kernel_tcp("reno"), tcp(TcpSpec::default())]);
    let r = realnet::run(&s, Emulation::User).unwrap();
    // Together they fill the link as one flow does (the bound above); each gets a share of it
    // (at least a tenth: neither starves the other) through the same queue.
    let u = utilization(&r);
    assert!(u >= 0.9, "bottleneck busy {u:.3} of the time");
    for f in &r.flows {
        let bps = f.stats.dir[0].delivered_bytes as f64 * 8.0 / 4.0;
        assert!(bps >= 1e6, "{} delivered {bps:.0} b/s", f.label);
        assert!(
            f.stats.dir[0].queue_drops > 0,
            "{} met the shared queue's drops",
            f.label
        );
    }
    assert_eq!(r.flows[0].label, "Linux reno");
}
