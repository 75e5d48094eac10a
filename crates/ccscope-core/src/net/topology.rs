//! Topologies: the built-in shapes expand to one generic graph of nodes and simplex links, and
//! every flow gets a fewest-hop path in each direction. The engine sees only the graph.

use std::collections::VecDeque;

use super::config::{FlowSpec, LinkParams, TopologySpec};

/// One simplex link of the expanded graph.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkDef {
    /// Stable name used in results, e.g. `bottleneck`, `hop1.reverse`, `flow3.left`.
    pub name: String,
    pub from: usize,
    pub to: usize,
    pub params: LinkParams,
    /// Reported in results and queue traces.
    pub monitor: bool,
}

/// The expanded graph and, per flow, its sender and receiver nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    pub nodes: Vec<String>,
    pub links: Vec<LinkDef>,
    /// (sender node, receiver node) of each flow.
    pub ends: Vec<(usize, usize)>,
}

impl Network {
    fn node(&mut self, name: String) -> usize {
        self.nodes.push(name);
        self.nodes.len() - 1
    }

    fn duplex(&mut self, name: &str, a: usize, b: usize, fwd: LinkParams, rev: LinkParams, monitor: bool) {
        self.links.push(LinkDef {
            name: name.to_string(),
            from: a,
            to: b,
            params: fwd,
            monitor,
        });
        self.links.push(LinkDef {
            name: format!("{name}.reverse"),
            from: b,
            to: a,
            params: rev,
            monitor,
        });
    }

    /// Hosts for a flow attached to routers `left` and `right`, with the flow's access delays.
    fn attach<S>(&mut self, i: usize, f: &FlowSpec<S>, access: &LinkParams, left: usize, right: usize) {
        let lh = self.node(format!("flow{i}.left"));
        let rh = self.node(format!("flow{i}.right"));
        let with_delay = |d: Option<u64>| LinkParams {
            delay_ns: d.unwrap_or(access.delay_ns),
            ..access.mirrored()
        };
        let l = with_delay(f.left_delay_ns);
        let r = with_delay(f.right_delay_ns);
        self.duplex(&format!("flow{i}.left"), lh, left, l.clone(), l, false);
        self.duplex(&format!("flow{i}.right"), right, rh, r.clone(), r, false);
        self.ends.push(if f.reverse { (rh, lh) } else { (lh, rh) });
    }

    /// Expands a topology for the given flows, whose placement suits it (the scenario checked
    /// that: hop ranges within the parking lot, end nodes of a custom topology).
    pub fn build<S>(topology: &TopologySpec, flows: &[FlowSpec<S>]) -> Network {
        let mut net = Network {
            nodes: Vec::new(),
            links: Vec::new(),
            ends: Vec::new(),
        };
        match topology {
            TopologySpec::Dumbbell {
                bottleneck,
                reverse,
                access,
            } => {
                let l = net.node("L".into());
                let r = net.node("R".into());
                let rev = reverse.clone().unwrap_or_else(|| bottleneck.mirrored());
                net.duplex("bottleneck", l, r, bottleneck.clone(), rev, true);
                for (i, f) in flows.iter().enumerate() {
                    net.attach(i, f, access, l, r);
                }
            }
            TopologySpec::ParkingLot { hops, access } => {
                let routers: Vec<usize> = (0..=hops.len()).map(|k| net.node(format!("b{k}"))).collect();
                for (k, h) in hops.iter().enumerate() {
                    net.duplex(&format!("hop{k}"), routers[k], routers[k + 1], h.clone(), h.mirrored(), true);
                }
                for (i, f) in flows.iter().enumerate() {
                    let [first, last] = f.hops.unwrap_or([0, hops.len() - 1]);
                    net.attach(i, f, access, routers[first], routers[last + 1]);
                }
            }
            TopologySpec::Custom { nodes, links } => {
                net.nodes = nodes.clone();
                let index = |name: &str| nodes.iter().position(|n| n == name);
                for l in links {
                    let (a, b) = (index(&l.from).unwrap_or(0), index(&l.to).unwrap_or(0));
                    let name = format!("{}-{}", l.from, l.to);
                    if l.duplex {
                        net.duplex(&name, a, b, l.params.clone(), l.params.mirrored(), l.monitor);
                    } else {
                        net.links.push(LinkDef {
                            name,
                            from: a,
                            to: b,
                            params: l.params.clone(),
                            monitor: l.monitor,
                        });
                    }
                }
                for f in flows {
                    let end = |v: &Option<String>| v.as_deref().and_then(index).unwrap_or(0);
                    net.ends.push((end(&f.from), end(&f.to)));
                }
            }
        }
        net
    }

    /// Fewest-hop path from `from` to `to` as link indices; ties go to the lower link index.
    pub fn route(&self, from: usize, to: usize) -> Option<Vec<u32>> {
        let mut via: Vec<Option<usize>> = vec![None; self.nodes.len()];
        let mut seen = vec![false; self.nodes.len()];
        let mut frontier = VecDeque::from([from]);
        seen[from] = true;
        while let Some(n) = frontier.pop_front() {
            if n == to {
                break;
            }
            for (k, l) in self.links.iter().enumerate() {
                if l.from == n && !seen[l.to] {
                    seen[l.to] = true;
                    via[l.to] = Some(k);
                    frontier.push_back(l.to);
                }
            }
        }
        if from == to || !seen[to] {
            return None;
        }
        let mut path = Vec::new();
        let mut n = to;
        while n != from {
            let k = via[n]?;
            path.push(k as u32);
            n = self.links[k].from;
        }
        path.reverse();
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::QueueSpec;

    fn link(ms: u64) -> LinkParams {
        LinkParams::new(10_000_000, ms * 1_000_000, QueueSpec::droptail_packets(100))
    }

    /// A flow; the topology never reads its source.
    fn flow() -> FlowSpec<()> {
        FlowSpec::new(())
    }

    #[test]
    fn dumbbell_routes_both_ways_through_the_bottleneck() {
        let mut rev = flow();
        rev.reverse = true;
        let topo = TopologySpec::Dumbbell {
            bottleneck: link(20),
            reverse: None,
            access: link(1),
        };
        let net = Network::build(&topo, &[flow(), rev]);
        let (s, d) = net.ends[0];
        let names = |p: Vec<u32>| p.iter().map(|&k| net.links[k as usize].name.clone()).collect::<Vec<_>>();
        assert_eq!(names(net.route(s, d).unwrap()), ["flow0.left", "bottleneck", "flow0.right"]);
        let (s, d) = net.ends[1];
        assert_eq!(
            names(net.route(s, d).unwrap()),
            ["flow1.right.reverse", "bottleneck.reverse", "flow1.left.reverse"]
        );
    }

    #[test]
    fn parking_lot_flows_cross_their_hop_range() {
        let topo = TopologySpec::ParkingLot {
            hops: vec![link(5), link(5), link(5)],
            access: link(1),
        };
        let mut f = flow();
        f.hops = Some([1, 2]);
        let net = Network::build(&topo, &[f]);
        let (s, d) = net.ends[0];
        let path = net.route(s, d).unwrap();
        let names: Vec<_> = path.iter().map(|&k| net.links[k as usize].name.as_str()).collect();
        assert_eq!(names, ["flow0.left", "hop1", "hop2", "flow0.right"]);
    }
}
