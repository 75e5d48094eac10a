//! Scenario builders shared by the engine tests.
#![allow(dead_code)]

use ccscope_core::config::{
    CustomLink, FlowSpec, LinkParams, Scenario, SourceSpec, TopologySpec, TraceSpec,
};
use ccscope_core::net::queue::QueueSpec;

pub const MS: u64 = 1_000_000;
pub const S: u64 = 1_000_000_000;

pub fn link(rate_bps: u64, delay_ns: u64, queue_pkts: u64) -> LinkParams {
    LinkParams::new(rate_bps, delay_ns, QueueSpec::droptail_packets(queue_pkts))
}

pub fn cbr(rate_bps: f64) -> FlowSpec {
    FlowSpec::new(SourceSpec::Cbr {
        rate_bps,
        packet_bytes: 1000,
    })
}

pub fn poisson(rate_bps: f64) -> FlowSpec {
    FlowSpec::new(SourceSpec::Poisson {
        rate_bps,
        packet_bytes: 1000,
    })
}

/// Nodes n0 -> n1 -> ... joined by the given links (duplex), one flow from n0 to the last node.
pub fn chain(links: Vec<LinkParams>, mut flow: FlowSpec, duration_ns: u64, seed: u64) -> Scenario {
    let nodes: Vec<String> = (0..=links.len()).map(|k| format!("n{k}")).collect();
    flow.placement_mut().from = Some(nodes[0].clone());
    flow.placement_mut().to = Some(nodes[links.len()].clone());
    let links = links
        .into_iter()
        .enumerate()
        .map(|(k, params)| CustomLink {
            from: format!("n{k}"),
            to: format!("n{}", k + 1),
            params,
            duplex: true,
            monitor: true,
        })
        .collect();
    Scenario {
        seed,
        duration_ns,
        warmup_ns: 0,
        topology: TopologySpec::Custom { nodes, links },
        flows: vec![flow],
        trace: TraceSpec::default(),
    }
}

pub fn dumbbell(
    bottleneck: LinkParams,
    flows: Vec<FlowSpec>,
    duration_ns: u64,
    seed: u64,
) -> Scenario {
    Scenario {
        seed,
        duration_ns,
        warmup_ns: 0,
        topology: TopologySpec::Dumbbell {
            bottleneck,
            reverse: None,
            access: link(1_000_000_000, MS, 100_000),
        },
        flows,
        trace: TraceSpec::default(),
    }
}

pub fn tcp(spec: ccscope_core::transport::tcp::TcpSpec) -> FlowSpec {
    FlowSpec::new(SourceSpec::Tcp(spec))
}
