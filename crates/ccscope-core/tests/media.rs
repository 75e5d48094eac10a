//! The media transport end to end: an RTP-style flow paced by its media controller on
//! per-packet feedback, carrying RFC 8593's encoder; the same encoder driven by the seeds'
//! rate controllers over the rate transport. Expected values follow from the feedback plans,
//! the formats' sizes and the encoder's definition, not from runs.

use ccscope_core::build::{self, run};
use ccscope_core::net::sim::FlowReport;
use ccscope_core::net::RunResult;
use ccscope_core::scenario;
use serde_json::{json, Value};

fn simulate(table: Value) -> RunResult {
    run(&build::packet(&scenario::read_packet(table).unwrap()).unwrap()).unwrap()
}

fn stat(list: &[(&'static str, f64)], name: &str) -> f64 {
    list.iter()
        .find(|(k, _)| *k == name)
        .unwrap_or_else(|| panic!("no {name} in {list:?}"))
        .1
}

/// Flows over a `rate` bottleneck (40 ms one way, 60 packets of buffer, 5 ms access links)
/// for `secs` after a 10 s warm-up.
fn dumbbell(flows: Value, rate: &str, secs: u64) -> Value {
    json!({
        "run": {"duration": format!("{}s", secs + 10), "warmup": "10s", "seed": 1},
        "topology": {"kind": "dumbbell",
            "bottleneck": {"rate": rate, "delay": "40ms",
                "queue": {"kind": "droptail", "limit": "60pkts"}},
            "access": {"rate": "100Mbps", "delay": "5ms"}},
        "flows": flows
    })
}

fn goodput_bps(f: &FlowReport, secs: f64) -> f64 {
    f.stats.dir[0].delivered_bytes as f64 * 8.0 / secs
}

/// RFC 8888 feedback every 50 ms while frames arrive (30 a second, more often than 20): one
/// report each 50 ms, 1000 over 50 s (±1 at the window's edges); each report covers the
/// packets of its 50 ms and is 28 + 20 B plus 2 B a packet (padded to 4 B).
#[test]
fn rfc8888_feedback_comes_every_interval_and_costs_two_bytes_a_packet() {
    let src = json!({"kind": "rtp", "controller": "gcc",
        "feedback": {"format": "rfc8888", "interval": "50ms", "per_frame": false}});
    let r = simulate(dumbbell(json!([{"source": src}]), "2Mbps", 50));
    let f = &r.flows[0];
    let sent = stat(&f.receiver, "feedback_sent");
    assert!((sent - 1000.0).abs() <= 1.0, "{sent}");
    let bytes = stat(&f.receiver, "feedback_bytes_sent");
    let pkts = f.stats.dir[0].delivered_pkts as f64 + f.stats.dir[0].dropped() as f64;
    // Between 48 + 2 B and 48 + 2 B + 2 B of padding a packet reported, per report.
    let least = 48.0 * sent + 2.0 * pkts;
    assert!(
        bytes >= least - 48.0 && bytes <= least + 2.0 * sent + 48.0,
        "{bytes} vs {least}"
    );
    assert_eq!(f.stats.dir[1].sent_bytes as f64, bytes);
}

/// GCC asks for transport-wide feedback once a frame (draft-ietf-rmcat-gcc-02 §3): at least
/// one report per frame rendered, and at most one per frame plus one per 100 ms.
#[test]
fn gcc_gets_transport_wide_feedback_once_a_frame() {
    let r = simulate(dumbbell(json!([{"source": {"kind": "rtp"}}]), "2Mbps", 50));
    let f = &r.flows[0];
    let sent = stat(&f.receiver, "feedback_sent");
    let rendered = stat(&f.receiver, "frames_rendered");
    let captured = stat(&f.receiver, "frames_captured");
    assert!(sent >= rendered - 1.0, "{sent} < {rendered}");
    assert!(sent <= captured + 500.0 + 1.0, "{sent}");
    // Transport-wide: 28 + 20 B of header, a 2-byte chunk per 7 packets, a byte a delta,
    // padded to 4: with a few packets a frame, under 60 B a report.
    let mean = stat(&f.receiver, "feedback_bytes_sent") / sent;
    assert!((48.0..60.0).contains(&mean), "{mean}");
}

/// The encoder follows its transport's rate within [150 kb/s, 1.5 Mb/s]: on an idle 10 Mb/s
/// path GCC's target grows until the encoder's ceiling, and the flow carries about 1.5 Mb/s;
/// on a 1 Mb/s path it carries less than the path, and more than the encoder's floor.
#[test]
fn gcc_drives_the_encoder_within_its_range_and_the_path() {
    for (rate, lo, hi) in [("10Mbps", 1.35e6, 1.6e6), ("1Mbps", 0.3e6, 1.0e6)] {
        let r = simulate(dumbbell(json!([{"source": {"kind": "rtp"}}]), rate, 50));
        let g = goodput_bps(&r.flows[0], 50.0);
        assert!((lo..hi).contains(&g), "{rate}: {g}");
    }
}

/// The seeds' rate controllers drive the same encoder over the rate transport: 30 frames a
/// second whatever the controller (the Laplacian intervals average 1/30 s: over 50 s the
/// count's standard deviation is about 0.15·√2/30·√1500 s ≈ 0.27 s, 8 frames; ±30 is about
/// 4 of them), and a rate no higher than the encoder's ceiling.
#[test]
fn the_seeds_rate_controllers_drive_the_same_encoder() {
    for controller in ["tfrc", "ssvp", "ssvp-adp", "iscc"] {
        let mut src = json!({"kind": "rate", "controller": controller,
            "packet_size": "1200B", "app": {"kind": "encoder"}});
        if controller == "iscc" {
            src["controller"] = json!({"name": "iscc", "capacity": 2e6});
        }
        let r = simulate(dumbbell(json!([{"source": src}]), "2Mbps", 50));
        let f = &r.flows[0];
        let frames = stat(&f.receiver, "frames_captured");
        assert!((frames - 1500.0).abs() < 30.0, "{controller}: {frames}");
        assert!(goodput_bps(f, 50.0) < 1.6e6, "{controller}");
        assert!(stat(&f.receiver, "frames_rendered") > 0.0, "{controller}");
    }
    // DTAIMD, a window controller, drives it over TCP.
    let src = json!({"kind": "tcp", "controller": "dtaimd", "packet_size": "1200B",
        "app": {"kind": "encoder"}});
    let r = simulate(dumbbell(json!([{"source": src}]), "2Mbps", 50));
    assert!(stat(&r.flows[0].receiver, "frames_rendered") > 1000.0);
}

/// A congested feedback path: a CBR flow the other way fills the reverse bottleneck 20 %
/// past its capacity, so that reports are lost; the sender hears fewer than were sent and
/// still runs (the packets of a lost report are never reported).
#[test]
fn a_congested_feedback_path_loses_reports() {
    let flows = json!([
        {"source": {"kind": "rtp", "feedback": {"format": "rfc8888"}}},
        {"source": {"kind": "cbr", "rate": "2.4Mbps"}, "reverse": true}
    ]);
    let r = simulate(dumbbell(flows, "2Mbps", 50));
    let f = &r.flows[0];
    let (sent, got) = (
        stat(&f.receiver, "feedback_sent"),
        stat(&f.sender, "feedback_received"),
    );
    assert!(got < sent && got > 0.0, "{got} of {sent}");
    assert!(stat(&f.sender, "rate_bps").is_finite());
}

/// A media flow of every catalogued media controller runs with the catalogue's defaults.
#[test]
fn every_media_controller_runs_on_the_media_transport() {
    use ccscope_core::control::catalog::{catalogue, Family};
    for info in catalogue()
        .into_iter()
        .filter(|i| i.family == Family::Media)
    {
        let src = json!({"kind": "rtp", "controller": info.name});
        let r = simulate(dumbbell(json!([{"source": src}]), "2Mbps", 10));
        assert!(goodput_bps(&r.flows[0], 10.0) > 100e3, "{}", info.name);
    }
}
