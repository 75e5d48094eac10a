//! CUBIC (RFC 9438) in both engines: in the round model a lone flow's congestion epochs last
//! the K of Figure 2; in the packet engine it runs on TCP and, on a long fat path with rare
//! losses, takes the capacity Reno leaves unused (RFC 9438 §5.2).

use ccscope_core::build::run;
use ccscope_core::{build, round, scenario};
use serde_json::json;

/// One CUBIC flow (fast convergence off, as RFC 9438 §4.7 advises for a lone flow) starting at
/// `w0` packets on a link of `w` packets per 100 ms RTT without a buffer: the overshoot is lost.
fn lone_cubic(w0: f64, w: f64, steps: u64) -> round::RoundResult {
    let table = json!({
        "run": {"engine": "round", "steps": steps},
        "link": {"capacity_pkts": w, "rtt": "100ms"},
        "flows": [{"controller": "cubic", "params": {"fast_convergence": 0},
                   "initial_window": w0}],
        "record": {"every": 1, "flows": true}
    });
    round::run(&build::round(&scenario::read_round(table).unwrap()).unwrap()).unwrap()
}

#[test]
fn round_model_epochs_last_k() {
    // After a loss at W_max the window is 0.7·W_max and the cubic returns to W_max after
    // K = ∛(0.3·W_max/0.4) s (RFC 9438 Figure 2): 9.09 s, 91 RTTs, on a 1000-packet link.
    // The window of the n-th RTT after a reduction is W_cubic((n − 1)·RTT) (Appendix C), so
    // the next loss comes in the first RTT whose window exceeds the link.
    let r = lone_cubic(700.0, 1000.0, 1000);
    let w = &r.flow_load_pkts;
    let lost: Vec<usize> = (0..w.len())
        .filter(|&i| r.series.congested_flows[i] > 0)
        .collect();
    assert!(lost.len() >= 5, "{lost:?}");
    for pair in lost.windows(2) {
        let w_max = w[pair[0]];
        let k = (w_max * 0.3 / 0.4).cbrt(); // RFC 9438 Figure 2, cwnd_epoch = 0.7·W_max
        let cubic = |t: f64| 0.4 * (t - k).powi(3) + w_max; // RFC 9438 Figure 1
        let n = (1..).find(|&n| cubic(f64::from(n) * 0.1) > 1000.0).unwrap();
        assert_eq!(pair[1] - pair[0], n as usize + 1, "W_max = {w_max}");
        assert!((w[pair[0] + 1] - 0.7 * w_max).abs() < 1e-9);
    }
    // W_max settles just above the link (1000.0005 packets after ten epochs), where the
    // epoch is K itself, rounded up to whole RTTs.
    let last = &lost[lost.len() - 2..];
    let k = (w[last[0]] * 0.3 / 0.4).cbrt();
    assert_eq!(last[1] - last[0], (k / 0.1).ceil() as usize);
}

/// One flow of `controller` (SACK) over a 100 Mb/s, 100 ms path with a 10 000-packet buffer and
/// Bernoulli loss 1e-5 for 200 s: its goodput (b/s).
fn goodput_bps(controller: &str) -> f64 {
    let table = json!({
        "run": {"duration": "200s", "seed": 1},
        "topology": {"kind": "dumbbell",
            "bottleneck": {"rate": "100Mbps", "delay": "48ms",
                "queue": {"kind": "droptail", "limit": "10000pkts"},
                "loss": {"kind": "bernoulli", "p": 1e-5}}},
        "flows": [{"source": {"kind": "tcp", "controller": {"name": controller}}}]
    });
    let r = run(&build::packet(&scenario::read_packet(table).unwrap()).unwrap()).unwrap();
    let f = &r.flows[0];
    let goodput = f.receiver.iter().find(|(k, _)| *k == "goodput_pkts");
    goodput.unwrap().1 * 8000.0 / 200.0
}

#[test]
fn cubic_fills_a_long_fat_path_that_reno_does_not() {
    // A loss every 1e5 packets: Reno's window averages √(1.5/p) = 387 packets (Figure 3), a
    // third of the 1250-packet path; CUBIC's Figure 6 gives 1.054·(0.1/1e-5)^(3/4) = 1054.
    // Measured (seed 1): CUBIC 92.8 Mb/s, Reno 47.1 Mb/s.
    let cubic = goodput_bps("cubic");
    let reno = goodput_bps("tcp");
    assert!(cubic > 1.5 * reno, "CUBIC {cubic} b/s, Reno {reno} b/s");
    assert!(cubic > 0.8e8, "{cubic}");
}
