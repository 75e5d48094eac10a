use serde_json::{json, Value};

use super::*;

fn small() -> Value {
    json!({
        "run": {"duration": "5s", "seed": 3},
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "2Mbps", "delay": "10ms",
                     "queue": {"kind": "droptail", "limit": "20pkts"}}},
        "flows": [{"source": {"kind": "tcp", "controller": {"name": "gaimd", "beta": 0.875}}, "count": 2}],
    })
}

/// `small()` with the value at `path` (dotted keys, `[i]` for list items) replaced.
fn with(path: &str, value: Value) -> Value {
    let mut v = small();
    let mut at = &mut v;
    let keys: Vec<&str> = path.split('.').collect();
    for (n, key) in keys.iter().enumerate() {
        let (name, index) = match key.split_once('[') {
            Some((k, i)) => (k, Some(i.trim_end_matches(']').parse::<usize>().unwrap())),
            None => (*key, None),
        };
        if n + 1 == keys.len() && index.is_none() {
            at[name] = value;
            break;
        }
        at = &mut at[name];
        if let Some(i) = index {
            at = &mut at[i];
        }
    }
    v
}

fn error(v: Value) -> Error {
    read(v).map(|_| ()).unwrap_err()
}

fn field(e: &Error) -> String {
    match e.field() {
        Some(field) => field.to_string(),
        None => panic!("no field: {e}"),
    }
}

#[test]
fn a_valid_scenario_reads_and_normalizes_to_a_fixed_point() {
    let s = read(small()).unwrap();
    let normal = s.normalized();
    assert_eq!(normal["flows"][0]["source"]["min_rto"], "200ms");
    assert_eq!(normal["topology"]["access"]["rate"], "1Gbps");
    assert_eq!(normal["run"]["warmup"], "0s");
    assert_eq!(read(normal.clone()).unwrap(), s);
    assert_eq!(read(normal.clone()).unwrap().normalized(), normal);
}

#[test]
fn errors_name_the_path_the_value_as_written_and_what_is_allowed() {
    let cases = [
        (
            with("run.sped", json!(4)),
            "run.sped",
            "allowed keys: duration, warmup, seed, engine, emulator",
        ),
        (
            with("topology.bottleneck.rate", json!("-2Mbps")),
            "topology.bottleneck.rate",
            "'-2Mbps': must be > 0",
        ),
        (
            with("topology.bottleneck.rate", json!(2000000)),
            "topology.bottleneck.rate",
            "2000000: write it with its unit",
        ),
        (
            with("topology.bottleneck.delay", json!("1e300h")),
            "topology.bottleneck.delay",
            "at most 584 years",
        ),
        (
            with("topology.bottleneck.rate", json!("1e300Tbps")),
            "topology.bottleneck.rate",
            "too large",
        ),
        (
            with(
                "topology.bottleneck.queue",
                json!({"kind": "red", "min_th": 15, "max_th": 5}),
            ),
            "topology.bottleneck.queue.min_th",
            "15: must be less than max_th = 5",
        ),
        (
            with(
                "topology.bottleneck.queue",
                json!({"kind": "red", "max_p": 1.5}),
            ),
            "topology.bottleneck.queue.max_p",
            "1.5: must be in (0, 1]",
        ),
        (
            with(
                "topology.bottleneck.queue",
                json!({"kind": "red", "colour": 1}),
            ),
            "topology.bottleneck.queue.colour",
            "unknown key",
        ),
        (
            with("topology.bottleneck.queue", json!({"kind": "step"})),
            "topology.bottleneck.queue.threshold",
            "this key is required",
        ),
        (
            with(
                "topology.bottleneck.queue",
                json!({"kind": "step", "limit": 20, "threshold": "20pkts"}),
            ),
            "topology.bottleneck.queue.threshold",
            "'20pkts': must be below limit = '20'",
        ),
        (
            with(
                "topology.bottleneck.queue",
                json!({"kind": "step", "threshold": "0pkts"}),
            ),
            "topology.bottleneck.queue.threshold",
            "must hold at least one packet",
        ),
        (
            with(
                "topology.bottleneck.queue",
                json!({"kind": "step", "threshold": "2.5pkts"}),
            ),
            "topology.bottleneck.queue.threshold",
            "in whole packets",
        ),
        (
            with(
                "topology.bottleneck.loss",
                json!({"kind": "bernoulli", "p": true}),
            ),
            "topology.bottleneck.loss.p",
            "true: must be a number",
        ),
        (
            with("topology.kind", json!("star")),
            "topology.kind",
            "'star' is not known; expected one of: 'dumbbell', 'fat_link'",
        ),
        (
            with("flows[0].count", json!(1e39)),
            "flows[0].count",
            "1e39: must be a whole number",
        ),
        (
            with("flows[0].count", json!(0)),
            "flows[0].count",
            "0: must be a whole number in [1, 1000000]",
        ),
        (
            with("flows[0].source.kind", json!("ftp")),
            "flows[0].source.kind",
            "expected one of: 'cbr', 'poisson', 'tcp', 'rate'",
        ),
        (
            with("flows[0].source.variant", json!("vegas")),
            "flows[0].source.variant",
            "'vegas' is not known",
        ),
        (
            with(
                "flows[0].source.controller",
                json!({"name": "gaimd", "beta": "x"}),
            ),
            "flows[0].source.controller.beta",
            "'x': a controller parameter must be a finite number",
        ),
        (
            with("run.engine", json!("fluid")),
            "run.engine",
            "expected one of: 'packet', 'round'",
        ),
        (
            with("run.warmup", json!("6s")),
            "run.warmup",
            "'6s': must be shorter than run.duration = '5s'",
        ),
        (
            with("flows[0].hops", json!([0, 1])),
            "flows[0].hops",
            "parking_lot topology only",
        ),
        // Below the engines' resolution: whole nanoseconds, whole bits/s on links.
        (
            with("topology.bottleneck.delay", json!("0.4ns")),
            "topology.bottleneck.delay",
            "'0.4ns': must be at least 1 ns",
        ),
        (
            with("trace", json!({"interval": "0.1ns"})),
            "trace.interval",
            "at least 1 ns",
        ),
        (
            with("topology.bottleneck.rate", json!("0.4bps")),
            "topology.bottleneck.rate",
            "'0.4bps': a link runs at least 1 b/s",
        ),
        (
            with(
                "topology.bottleneck.loss",
                json!({"kind": "bernoulli", "p": 1.5}),
            ),
            "topology.bottleneck.loss.p",
            "1.5: must be in [0, 1]",
        ),
        (
            with(
                "topology.bottleneck.loss",
                json!({"kind": "schedule", "steps": [{"at": "5s", "p": 0.1}, {"at": "5s", "p": 0.2}]}),
            ),
            "topology.bottleneck.loss.steps[1].at",
            "must be later than the entry before",
        ),
        (
            with(
                "flows[0].source",
                json!({"kind": "rate", "controller": "tfrc", "jitter": 0.9995}),
            ),
            "flows[0].source.jitter",
            "must be in [0, 0.999]",
        ),
        (
            with(
                "flows[0].source",
                json!({"kind": "rate", "controller": "tfrc", "initial_rate": "100bps"}),
            ),
            "flows[0].source.initial_rate",
            "'100bps': must be in [125 b/s, 1e12 b/s]",
        ),
        (
            with(
                "flows[0].source",
                json!({"kind": "rate", "controller": "tfrc", "min_rate": "1kbps", "initial_rate": "999bps"}),
            ),
            "flows[0].source.initial_rate",
            "must be in [1000 b/s",
        ),
        (
            with(
                "flows[0].source",
                json!({"kind": "rate", "controller": "tfrc", "min_rate": "2Tbps"}),
            ),
            "flows[0].source.min_rate",
            "at most 1e12 b/s",
        ),
    ];
    for (input, path, needle) in cases {
        let e = error(input);
        assert_eq!(field(&e), path, "{e}");
        assert!(e.to_string().contains(needle), "{e} lacks {needle:?}");
        assert!(!e.to_string().contains("line 1"), "{e}");
    }
}

#[test]
fn missing_sections_and_keys_are_named() {
    let e = error(json!({"run": {"duration": "1s"}}));
    assert_eq!(field(&e), "topology");
    let mut v = small();
    v["topology"]["bottleneck"]
        .as_object_mut()
        .unwrap()
        .remove("rate");
    assert_eq!(field(&error(v)), "topology.bottleneck.rate");
}

#[test]
fn custom_topologies_check_their_nodes() {
    let custom = json!({"kind": "custom", "nodes": ["a", "b"],
                        "links": [{"from": "a", "to": "a", "rate": "1Mbps", "delay": "5ms"}]});
    let e = error(with("topology", custom));
    assert_eq!(field(&e), "topology.links[0].to");
    let custom = json!({"kind": "custom", "nodes": ["a", "b"],
                        "links": [{"from": "a", "to": "b", "rate": "1Mbps", "delay": "5ms"}]});
    let mut v = with("topology", custom);
    v["flows"][0]["from"] = json!("a");
    v["flows"][0]["to"] = json!("c");
    let e = error(v);
    assert_eq!(field(&e), "flows[0].to");
    assert!(e.to_string().contains("known nodes: a, b"));
}

#[test]
fn round_scenarios_are_told_apart_and_checked() {
    let round = json!({"run": {"engine": "round", "steps": 10}, "link": {"capacity": "1Mbps"},
                       "flows": [{"controller": "aimd", "params": {"beta": 0.5}}]});
    assert!(matches!(
        read(round.clone()).unwrap(),
        AnyScenario::Round(_)
    ));
    let mut v = round.clone();
    v["link"]["capacity_pkts"] = json!(10);
    assert_eq!(field(&error(v)), "link.capacity");
    let mut v = round.clone();
    v["link"]["feedback"] = json!({"kind": "bernoulli", "p": 1.0});
    let e = error(v);
    assert_eq!(field(&e), "link.feedback.p");
    assert!(e.to_string().contains("[0, 1)"));
    let mut v = round.clone();
    v["link"]["feedback"] = json!("psychic");
    assert_eq!(field(&error(v)), "link.feedback");
    let mut v = round.clone();
    v["run"]["warmup_steps"] = json!(10);
    assert_eq!(field(&error(v)), "run.warmup_steps");
    let mut v = round.clone();
    v["run"]["substeps"] = json!(0);
    assert_eq!(field(&error(v)), "run.substeps");
    let mut v = round.clone();
    v["link"]["rtt"] = json!("0.2ns");
    assert_eq!(field(&error(v)), "link.rtt");
    let mut v = round;
    v["run"]["steps"] = json!(1_000_000);
    v["flows"][0]["count"] = json!(1000);
    v["record"] = json!({"every": 1, "flows": true});
    let e = error(v);
    assert_eq!(field(&e), "record.every");
    assert!(
        e.to_string().contains("record less often or not per flow"),
        "{e}"
    );
}

#[test]
fn json_schemas_describe_both_engines() {
    let packet = json_schema(Engine::Packet);
    let text = packet.to_string();
    for needle in [
        "\"topology\"",
        "\"fat_link\"",
        "\"droptail\"",
        "\"step\"",
        "\"threshold\"",
        "\"min_rto\"",
        "\"200ms\"",
    ] {
        assert!(text.contains(needle), "packet schema lacks {needle}");
    }
    let round = json_schema(Engine::Round).to_string();
    assert!(round.contains("\"capacity_pkts\"") && round.contains("\"substeps\""));
}

#[test]
fn json_schemas_bound_count_as_the_checks_do() {
    /// Every `count` property anywhere in a schema.
    fn counts<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
        match v {
            Value::Object(m) => {
                if let Some(c) = m.get("properties").and_then(|p| p.get("count")) {
                    out.push(c);
                }
                m.values().for_each(|x| counts(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| counts(x, out)),
            _ => {}
        }
    }
    for (engine, max) in [
        (Engine::Packet, packet::MAX_FLOWS),
        (Engine::Round, round::MAX_FLOWS),
    ] {
        let schema = serde_json::to_value(json_schema(engine)).unwrap();
        let mut found = Vec::new();
        counts(&schema, &mut found);
        assert!(!found.is_empty(), "{engine:?}: no count");
        for c in found {
            assert_eq!(
                (c["minimum"].as_u64(), c["maximum"].as_u64()),
                (Some(1), Some(max))
            );
        }
    }
}

#[test]
fn the_kernel_path_takes_a_udp_dumbbell_with_droptail_queues_at_a_constant_rate() {
    let kernel = |path: &str, value: Value| {
        let mut v = with(path, value);
        v["run"]["engine"] = json!("udp");
        v["run"]["emulator"] = json!("kernel");
        v
    };
    let ok = kernel(
        "topology.bottleneck.loss",
        json!({"kind": "bernoulli", "p": 0.01}),
    );
    assert_eq!(
        read(ok.clone()).unwrap().normalized()["run"]["emulator"],
        "kernel"
    );
    assert!(
        read(small()).unwrap().normalized()["run"]
            .get("emulator")
            .is_none(),
        "the default is not written out"
    );
    let parking = json!({"kind": "parking_lot", "hops": [{"rate": "2Mbps", "delay": "10ms"}]});
    let red = json!({"kind": "red"});
    let changes = json!([{"at": "1s", "rate": "1Mbps"}]);
    let reverse = json!({"rate": "2Mbps", "delay": "10ms", "queue": {"kind": "red"}});
    let cases = [
        (
            with("run.emulator", json!("kernel")),
            "run.emulator",
            "needs run.engine = \"udp\" (here \"packet\")",
        ),
        (
            with("run.emulator", json!("netns")),
            "run.emulator",
            "'netns' is not known; expected one of: 'user', 'kernel'",
        ),
        (
            kernel("topology", parking),
            "topology.kind",
            "'parking_lot': 'dumbbell' or 'fat_link' with run.emulator = \"kernel\"",
        ),
        (
            kernel("topology.bottleneck.queue", red),
            "topology.bottleneck.queue.kind",
            "this kernel has no red qdisc",
        ),
        (
            kernel(
                "topology.bottleneck.queue",
                json!({"kind": "step", "threshold": 10}),
            ),
            "topology.bottleneck.queue.kind",
            "'step': 'droptail' with run.emulator = \"kernel\"",
        ),
        (
            kernel("topology.reverse", reverse),
            "topology.reverse.queue.kind",
            "'red': 'droptail'",
        ),
        (
            kernel("topology.bottleneck.capacity_changes", changes),
            "topology.bottleneck.capacity_changes",
            "tc sets the rate once",
        ),
    ];
    for (input, path, needle) in cases {
        let e = error(input);
        assert_eq!(field(&e), path, "{e}");
        assert!(e.to_string().contains(needle), "{e} lacks {needle:?}");
    }
}

#[test]
fn aqm_queues_take_their_rfcs_defaults_and_name_bad_values() {
    let q = |v: Value| with("topology.bottleneck.queue", v);
    let normal = read(q(json!({"kind": "codel"}))).unwrap().normalized();
    let codel = &normal["topology"]["bottleneck"]["queue"];
    assert_eq!(
        (
            &codel["target"],
            &codel["interval"],
            &codel["limit"],
            &codel["mtu"],
            &codel["ecn"]
        ),
        (
            &json!("5ms"),
            &json!("100ms"),
            &json!("1000pkts"),
            &json!("1514B"),
            &json!(false)
        )
    );
    let normal = read(q(json!({"kind": "fq_codel"}))).unwrap().normalized();
    let fq = &normal["topology"]["bottleneck"]["queue"];
    assert_eq!(
        (
            &fq["flows"],
            &fq["quantum"],
            &fq["limit"],
            &fq["memory_limit"],
            &fq["drop_batch"]
        ),
        (
            &json!(1024),
            &json!("1514B"),
            &json!(10240),
            &json!("32MiB"),
            &json!(64)
        )
    );
    let normal = read(q(json!({"kind": "pie"}))).unwrap().normalized();
    let pie = &normal["topology"]["bottleneck"]["queue"];
    assert_eq!(
        (
            &pie["target"],
            &pie["t_update"],
            &pie["alpha"],
            &pie["beta"],
            &pie["burst"]
        ),
        (
            &json!("15ms"),
            &json!("15ms"),
            &json!(0.125),
            &json!(1.25),
            &json!("150ms")
        )
    );
    let ecn = |v: Value| {
        let mut t = q(v);
        t["flows"][0]["ecn"] = json!(true);
        t
    };
    let cases = [
        (
            q(json!({"kind": "codel", "target": "0s"})),
            "topology.bottleneck.queue.target",
            "'0s': must be > 0",
        ),
        (
            q(json!({"kind": "codel", "target": "100ms"})),
            "topology.bottleneck.queue.target",
            "'100ms': must be below interval = '100ms'",
        ),
        (
            q(json!({"kind": "codel", "limit": "0pkts"})),
            "topology.bottleneck.queue.limit",
            "must hold at least one packet",
        ),
        (
            q(json!({"kind": "codel", "ecn": true})),
            "topology.bottleneck.queue.ecn",
            "true: needs an ECN-capable flow to mark",
        ),
        (
            q(json!({"kind": "fq_codel", "flows": 0})),
            "topology.bottleneck.queue.flows",
            "0: must be a whole number in [1, 65536]",
        ),
        (
            q(json!({"kind": "fq_codel", "quantum": "100B"})),
            "topology.bottleneck.queue.quantum",
            "'100B': must be at least 256 bytes",
        ),
        (
            q(json!({"kind": "fq_codel", "drop_batch": 0})),
            "topology.bottleneck.queue.drop_batch",
            "0: must be a whole number in [1, 65536]",
        ),
        (
            q(json!({"kind": "fq_codel", "memory_limit": "0B"})),
            "topology.bottleneck.queue.memory_limit",
            "must be at least 1 byte",
        ),
        (
            q(json!({"kind": "fq_codel", "ecn": true})),
            "topology.bottleneck.queue.ecn",
            "needs an ECN-capable flow",
        ),
        (
            q(json!({"kind": "pie", "alpha": 3})),
            "topology.bottleneck.queue.alpha",
            "alpha = 3: must be in [0, 2]",
        ),
        (
            q(json!({"kind": "pie", "t_update": "-1ms"})),
            "topology.bottleneck.queue.t_update",
            "must be > 0",
        ),
        (
            q(json!({"kind": "pie", "burst": "-1ms"})),
            "topology.bottleneck.queue.burst",
            "must be >= 0",
        ),
        (
            q(json!({"kind": "pie", "target": "15ms", "tarjet": 1})),
            "topology.bottleneck.queue.tarjet",
            "unknown key",
        ),
        (
            q(json!({"kind": "blue"})),
            "topology.bottleneck.queue.kind",
            "'droptail', 'red', 'step', 'codel', 'fq_codel', 'pie'",
        ),
    ];
    for (input, path, needle) in cases {
        let e = error(input);
        assert_eq!(field(&e), path, "{e}");
        assert!(e.to_string().contains(needle), "{e} lacks {needle:?}");
    }
    // Marking is allowed once a flow is ECN-capable.
    for kind in ["codel", "fq_codel", "pie"] {
        read(ecn(json!({"kind": kind, "ecn": true}))).unwrap();
    }
}

#[test]
fn a_fat_link_takes_a_queue_in_place_of_its_buffer() {
    let fat = |t: Value| with("topology", t);
    let plain = read(fat(json!({"kind": "fat_link"}))).unwrap().normalized();
    assert_eq!(plain["topology"]["buffer"], "100000pkts");
    let aqm = fat(json!({"kind": "fat_link", "queue": {"kind": "pie"}}));
    let normal = read(aqm).unwrap().normalized();
    assert!(normal["topology"].get("buffer").is_none(), "{normal}");
    assert_eq!(read(normal.clone()).unwrap().normalized(), normal);
    let both = fat(json!({"kind": "fat_link", "buffer": "50pkts", "queue": {"kind": "codel"}}));
    let e = error(both);
    assert_eq!(field(&e), "topology.buffer");
    assert!(
        e.to_string().contains("give buffer or queue, not both"),
        "{e}"
    );
    let e = error(fat(
        json!({"kind": "fat_link", "queue": {"kind": "codel", "interval": "1ms"}}),
    ));
    assert_eq!(field(&e), "topology.queue.target", "{e}");
}

#[test]
fn the_kernel_path_refuses_an_aqm() {
    for kind in ["codel", "fq_codel", "pie"] {
        let mut v = with("topology.bottleneck.queue", json!({ "kind": kind }));
        v["run"]["engine"] = json!("udp");
        v["run"]["emulator"] = json!("kernel");
        let e = error(v);
        assert_eq!(field(&e), "topology.bottleneck.queue.kind", "{e}");
        assert!(e.to_string().contains(&format!("no {kind} qdisc")), "{e}");
    }
}
