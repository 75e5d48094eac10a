//! Topologies: the built-in shapes expand to one generic graph of nodes and simplex links, and
//! every flow gets a fewest-hop path in each direction. The engine sees only the graph.

use std::fmt;
use std::sync::Arc;

use super::config::{FlowSpec, LinkParams, TopologySpec};

/// A node's or a link's name in results. A flow's own hosts and access links are named after
/// the flow when the name is written, so that thousands of flows keep no strings; a name the
/// topology gives is shared, not copied, by the reports of the many links that end at it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Name {
    Given(Arc<str>),
    /// `flow{flow}` followed by [`FLOW_PARTS`]`[part]`.
    Flow {
        flow: u32,
        part: u8,
    },
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        match self {
            Name::Given(s) => **s == *other,
            Name::Flow { flow, part } => other
                .strip_prefix("flow")
                .and_then(|rest| rest.strip_suffix(FLOW_PARTS[*part as usize]))
                .is_some_and(|number| number == flow.to_string()),
        }
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

/// What follows `flow{i}` in the names of a flow's hosts (the first two) and access links.
const FLOW_PARTS: [&str; 4] = [".left", ".right", ".left.reverse", ".right.reverse"];

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Name::Given(s) => f.write_str(s),
            Name::Flow { flow, part } => write!(f, "flow{flow}{}", FLOW_PARTS[*part as usize]),
        }
    }
}

/// One simplex link of the expanded graph.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkDef {
    /// Stable name used in results, e.g. `bottleneck`, `hop1.reverse`, `flow3.left`.
    pub name: Name,
    pub from: usize,
    pub to: usize,
    /// Its parameters, in [`Network::params`]: a flow's access links share them, so that a
    /// graph of many flows is built without a copy of them per link.
    pub params: u32,
    /// One-way delay (ns): the parameters' own, or the flow's access delay.
    pub delay_ns: u64,
    /// Reported in results and queue traces.
    pub monitor: bool,
}

/// The expanded graph and, per flow, its sender and receiver nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    pub nodes: Vec<Name>,
    pub links: Vec<LinkDef>,
    /// The links' parameters ([`LinkDef::params`]).
    pub params: Vec<LinkParams>,
    /// (sender node, receiver node) of each flow.
    pub ends: Vec<(usize, usize)>,
    /// The nodes and links the topology names itself, before the flows' own hosts and access
    /// links, which follow in flow order ([`Network::attach`]).
    named: (usize, usize),
    /// Per flow with hosts of its own: the routers its left and right host hang off.
    attached: Vec<(u32, u32)>,
}

/// Node and link names for a report. The flows' own hosts and access links have no record
/// each: they follow the named ones in flow order, and a flow's number and its two routers
/// give their names and ends.
#[derive(Clone, Debug, PartialEq)]
pub struct Names {
    nodes: Vec<Name>,
    links: Vec<(Name, u32, u32)>,
    attached: Vec<(u32, u32)>,
}

impl Names {
    /// Node `k`'s name.
    pub fn node(&self, k: usize) -> Name {
        match self.nodes.get(k) {
            Some(name) => name.clone(),
            None => {
                let host = k - self.nodes.len();
                Name::Flow {
                    flow: (host / 2) as u32,
                    part: (host % 2) as u8,
                }
            }
        }
    }

    /// Link `k`'s name and the nodes it goes from and to.
    pub fn link(&self, k: usize) -> (Name, usize, usize) {
        if let Some((name, from, to)) = self.links.get(k) {
            return (name.clone(), *from as usize, *to as usize);
        }
        let access = k - self.links.len();
        let flow = access / 4;
        let (left, right) = self.attached[flow];
        let hosts = self.nodes.len() + 2 * flow;
        access_link(
            flow,
            access % 4,
            (hosts, hosts + 1),
            (left as usize, right as usize),
        )
    }
}

/// The `j`-th access link (of 4) that [`Network::attach`] adds for flow `flow`, whose hosts
/// hang off routers `left` and `right`: its name, from, to.
fn access_link(
    flow: usize,
    j: usize,
    (lh, rh): (usize, usize),
    (left, right): (usize, usize),
) -> (Name, usize, usize) {
    let name = |part: u8| Name::Flow {
        flow: flow as u32,
        part,
    };
    match j {
        0 => (name(0), lh, left),
        1 => (name(2), left, lh),
        2 => (name(1), right, rh),
        _ => (name(3), rh, right),
    }
}

impl Network {
    fn node(&mut self, name: Name) -> usize {
        self.nodes.push(name);
        self.nodes.len() - 1
    }

    /// Adds a set of link parameters; its index.
    fn params(&mut self, params: LinkParams) -> u32 {
        self.params.push(params);
        (self.params.len() - 1) as u32
    }

    /// A link a -> b with parameters `params` and their delay unless given another.
    fn simplex(
        &mut self,
        name: Name,
        a: usize,
        b: usize,
        params: u32,
        delay_ns: Option<u64>,
        monitor: bool,
    ) {
        let delay_ns = delay_ns.unwrap_or(self.params[params as usize].delay_ns);
        self.links.push(LinkDef {
            name,
            from: a,
            to: b,
            params,
            delay_ns,
            monitor,
        });
    }

    /// Links a -> b named `name` and b -> a named `name.reverse`.
    fn duplex(
        &mut self,
        name: &str,
        a: usize,
        b: usize,
        fwd: LinkParams,
        rev: LinkParams,
        monitor: bool,
    ) {
        let (fwd, rev) = (self.params(fwd), self.params(rev));
        self.simplex(Name::Given(name.into()), a, b, fwd, None, monitor);
        self.simplex(
            Name::Given(format!("{name}.reverse").into()),
            b,
            a,
            rev,
            None,
            monitor,
        );
    }

    /// Room for the hosts and access links of `flows` flows, exactly: they are most of a
    /// large graph, and it is at its largest while the run is being built. What the topology
    /// names itself comes before.
    fn reserve_hosts(&mut self, flows: usize) {
        self.named = (self.nodes.len(), self.links.len());
        self.nodes.reserve_exact(2 * flows);
        self.links.reserve_exact(4 * flows);
        self.attached.reserve_exact(flows);
    }

    /// Hosts for flow `i` hanging off routers `left` and `right`, its access links with
    /// parameters `access` and the flow's access delays.
    fn attach<S>(&mut self, i: usize, f: &FlowSpec<S>, access: u32, left: usize, right: usize) {
        let place = f.placement();
        let lh = self.node(Name::Flow {
            flow: i as u32,
            part: 0,
        });
        let rh = self.node(Name::Flow {
            flow: i as u32,
            part: 1,
        });
        for j in 0..4 {
            let (name, a, b) = access_link(i, j, (lh, rh), (left, right));
            let delay = if j < 2 {
                place.left_delay_ns
            } else {
                place.right_delay_ns
            };
            self.simplex(name, a, b, access, delay, false);
        }
        self.attached.push((left as u32, right as u32));
        self.ends.push(if f.reverse { (rh, lh) } else { (lh, rh) });
    }

    /// The names of the nodes and links, for a report. It reuses the graph's buffers, shrunk
    /// to what it keeps, rather than freeing them: freeing megabytes makes the allocator keep
    /// later, smaller buffers of the run in memory it never returns.
    pub fn into_names(mut self) -> Names {
        let (nodes, links) = if self.attached.is_empty() {
            (self.nodes.len(), self.links.len())
        } else {
            self.named
        };
        self.nodes.truncate(nodes);
        self.nodes.shrink_to_fit();
        let mut links: Vec<(Name, u32, u32)> = self
            .links
            .into_iter()
            .take(links)
            .map(|l| (l.name, l.from as u32, l.to as u32))
            .collect();
        links.shrink_to_fit();
        Names {
            nodes: self.nodes,
            links,
            attached: self.attached,
        }
    }

    /// Expands a topology for the given flows, whose placement suits it (the scenario checked
    /// that: hop ranges within the parking lot, end nodes of a custom topology).
    pub fn build<S>(topology: &TopologySpec, flows: &[FlowSpec<S>]) -> Network {
        let mut net = Network {
            nodes: Vec::new(),
            links: Vec::new(),
            params: Vec::new(),
            ends: Vec::new(),
            named: (0, 0),
            attached: Vec::new(),
        };
        match topology {
            TopologySpec::Dumbbell {
                bottleneck,
                reverse,
                access,
            } => {
                let l = net.node(Name::Given("L".into()));
                let r = net.node(Name::Given("R".into()));
                let rev = reverse.clone().unwrap_or_else(|| bottleneck.mirrored());
                net.duplex("bottleneck", l, r, bottleneck.clone(), rev, true);
                net.reserve_hosts(flows.len());
                // Access links carry no loss module (either way).
                let access = net.params(access.mirrored());
                for (i, f) in flows.iter().enumerate() {
                    net.attach(i, f, access, l, r);
                }
            }
            TopologySpec::ParkingLot { hops, access } => {
                let routers: Vec<usize> = (0..=hops.len())
                    .map(|k| net.node(Name::Given(format!("b{k}").into())))
                    .collect();
                for (k, h) in hops.iter().enumerate() {
                    net.duplex(
                        &format!("hop{k}"),
                        routers[k],
                        routers[k + 1],
                        h.clone(),
                        h.mirrored(),
                        true,
                    );
                }
                net.reserve_hosts(flows.len());
                let access = net.params(access.mirrored());
                for (i, f) in flows.iter().enumerate() {
                    let [first, last] = f.placement().hops.unwrap_or([0, hops.len() - 1]);
                    net.attach(i, f, access, routers[first], routers[last + 1]);
                }
            }
            TopologySpec::Custom { nodes, links } => {
                net.nodes = nodes
                    .iter()
                    .map(|n| Name::Given(n.as_str().into()))
                    .collect();
                let index = |name: &str| nodes.iter().position(|n| n == name);
                for l in links {
                    let (a, b) = (index(&l.from).unwrap_or(0), index(&l.to).unwrap_or(0));
                    let name = format!("{}-{}", l.from, l.to);
                    if l.duplex {
                        net.duplex(
                            &name,
                            a,
                            b,
                            l.params.clone(),
                            l.params.mirrored(),
                            l.monitor,
                        );
                    } else {
                        let params = net.params(l.params.clone());
                        net.simplex(Name::Given(name.into()), a, b, params, None, l.monitor);
                    }
                }
                for f in flows {
                    let end = |v: &Option<String>| v.as_deref().and_then(index).unwrap_or(0);
                    let place = f.placement();
                    net.ends.push((end(&place.from), end(&place.to)));
                }
            }
        }
        net
    }

    /// Fewest-hop path from `from` to `to` as link indices; ties go to the lower link index.
    /// For many routes on one graph, [`Routes`] gives the same paths in linear total time.
    pub fn route(&self, from: usize, to: usize) -> Option<Vec<u32>> {
        Routes::new(self).route(from, to)
    }
}

/// Fewest-hop routing on one graph: breadth-first search over out-links in link-index order
/// (ties go to the lower link index), with set-up cost linear in the number of flows.
///
/// A host that hangs off a single router (all its out-links lead to one node) is never in the
/// middle of a fewest-hop path, so the breadth-first tree seen from it is the tree seen from its
/// router plus the first hop; likewise a node reached only from one node is entered last through
/// its lowest-index link from that node. Routes therefore peel such stub ends off and search only
/// between their routers, once per router pair: thousands of flows on a dumbbell cost two searches.
pub struct Routes {
    /// Out-links of each node in increasing link index (compressed rows: `out[first[n]..first[n + 1]]`).
    first: Vec<usize>,
    out: Vec<u32>,
    /// Link ends, as in the network.
    ends: Vec<(usize, usize)>,
    /// Per node: its lowest out-link when all its out-links lead to one node.
    only_out: Vec<Option<u32>>,
    /// Per node: its lowest in-link from the one node all its in-links come from.
    only_in: Vec<Option<u32>>,
    /// Searched paths between router pairs.
    searched: std::collections::HashMap<(usize, usize), Option<Vec<u32>>>,
}

impl Routes {
    pub fn new(net: &Network) -> Routes {
        let n = net.nodes.len();
        let mut first = vec![0usize; n + 1];
        for l in &net.links {
            first[l.from + 1] += 1;
        }
        for k in 0..n {
            first[k + 1] += first[k];
        }
        let mut fill = first.clone();
        let mut out = vec![0u32; net.links.len()];
        for (k, l) in net.links.iter().enumerate() {
            out[fill[l.from]] = k as u32;
            fill[l.from] += 1;
        }
        // The lowest link to (from) the single neighbour; None when there are several or none.
        let single = |pairs: &mut dyn Iterator<Item = (usize, usize)>| {
            let mut only: Option<(usize, usize)> = None;
            for (k, other) in pairs {
                match only {
                    None => only = Some((k, other)),
                    Some((_, o)) if o == other => {}
                    Some(_) => return None,
                }
            }
            only.map(|(k, _)| k as u32)
        };
        let mut in_links: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (k, l) in net.links.iter().enumerate() {
            in_links[l.to].push(k);
        }
        let only_out = (0..n)
            .map(|v| {
                single(
                    &mut out[first[v]..first[v + 1]]
                        .iter()
                        .map(|&k| (k as usize, net.links[k as usize].to)),
                )
            })
            .collect();
        let only_in = in_links
            .iter()
            .map(|ks| single(&mut ks.iter().map(|&k| (k, net.links[k].from))))
            .collect();
        Routes {
            first,
            out,
            ends: net.links.iter().map(|l| (l.from, l.to)).collect(),
            only_out,
            only_in,
            searched: std::collections::HashMap::new(),
        }
    }

    /// Fewest-hop path from `from` to `to` as link indices; ties go to the lower link index.
    pub fn route(&mut self, from: usize, to: usize) -> Option<Vec<u32>> {
        if from == to {
            return None;
        }
        let mut head = Vec::new();
        let mut a = from;
        if let Some(k) = self.only_out[a] {
            head.push(k);
            a = self.ends[k as usize].1;
            if a == to {
                return Some(head);
            }
        }
        let mut tail = None;
        let mut b = to;
        if let Some(k) = self.only_in[b] {
            let up = self.ends[k as usize].0;
            if up == a {
                head.push(k);
                return Some(head);
            }
            tail = Some(k);
            b = up;
        }
        let middle = match self.searched.get(&(a, b)) {
            Some(p) => p.clone(),
            None => {
                let p = self.search(a, b);
                self.searched.insert((a, b), p.clone());
                p
            }
        }?;
        head.extend(middle);
        head.extend(tail);
        Some(head)
    }

    /// Breadth-first search from `from` to `to` (distinct) over the whole graph.
    fn search(&self, from: usize, to: usize) -> Option<Vec<u32>> {
        let n = self.first.len() - 1;
        let mut via: Vec<Option<u32>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut frontier = std::collections::VecDeque::from([from]);
        seen[from] = true;
        while let Some(v) = frontier.pop_front() {
            if v == to {
                break;
            }
            for &k in &self.out[self.first[v]..self.first[v + 1]] {
                let w = self.ends[k as usize].1;
                if !seen[w] {
                    seen[w] = true;
                    via[w] = Some(k);
                    frontier.push_back(w);
                }
            }
        }
        if !seen[to] {
            return None;
        }
        let mut path = Vec::new();
        let mut v = to;
        while v != from {
            let k = via[v]?;
            path.push(k);
            v = self.ends[k as usize].0;
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
    fn names_give_every_node_and_link_as_the_graph_has_them() {
        let mut placed = flow();
        placed.placement_mut().hops = Some([1, 2]);
        let topologies = [
            TopologySpec::Dumbbell {
                bottleneck: link(20),
                reverse: None,
                access: link(1),
            },
            TopologySpec::ParkingLot {
                hops: vec![link(5), link(5), link(5)],
                access: link(1),
            },
        ];
        for topology in &topologies {
            let net = Network::build(topology, &[flow(), placed.clone(), flow()]);
            let names = net.clone().into_names();
            for (k, n) in net.nodes.iter().enumerate() {
                assert_eq!(names.node(k), *n);
            }
            for (k, l) in net.links.iter().enumerate() {
                assert_eq!(names.link(k), (l.name.clone(), l.from, l.to));
            }
            // Only what the topology names itself is kept as a record.
            assert_eq!(names.links.len(), net.links.len() - 12);
        }
    }

    #[test]
    fn a_flows_access_links_share_their_parameters() {
        let mut far = flow();
        far.placement_mut().left_delay_ns = Some(7_000_000);
        let dumbbell = TopologySpec::Dumbbell {
            bottleneck: link(20),
            reverse: None,
            access: link(1),
        };
        let net = Network::build(&dumbbell, &[flow(), far, flow()]);
        // The bottleneck's two directions and one set for every access link.
        assert_eq!(net.params.len(), 3);
        assert!(net.links[2..].iter().all(|l| l.params == 2));
        let delays: Vec<u64> = net.links[6..10]
            .iter()
            .map(|l| l.delay_ns / 1_000_000)
            .collect();
        assert_eq!(delays, [7, 7, 1, 1]);
        // A link's definition is small: a graph of many flows is at its largest while built.
        assert!(
            std::mem::size_of::<LinkDef>() <= 56,
            "{}",
            std::mem::size_of::<LinkDef>()
        );
    }

    #[test]
    fn a_name_equals_the_string_it_is_written_as() {
        let given = Name::Given("bottleneck".into());
        assert!(given == "bottleneck" && given != "bottleneck.reverse");
        let access = Name::Flow { flow: 12, part: 2 };
        assert_eq!(access.to_string(), "flow12.left.reverse");
        assert!(access == "flow12.left.reverse");
        for other in [
            "flow12.left",
            "flow012.left.reverse",
            "flow1.left.reverse",
            "flow12.right.reverse",
            "12.left.reverse",
        ] {
            assert!(access != other, "{other}");
        }
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
        let names = |p: Vec<u32>| {
            p.iter()
                .map(|&k| net.links[k as usize].name.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(net.route(s, d).unwrap()),
            ["flow0.left", "bottleneck", "flow0.right"]
        );
        let (s, d) = net.ends[1];
        assert_eq!(
            names(net.route(s, d).unwrap()),
            [
                "flow1.right.reverse",
                "bottleneck.reverse",
                "flow1.left.reverse"
            ]
        );
    }

    /// The definition: breadth-first search scanning every link in index order at each node.
    fn fewest_hops(net: &Network, from: usize, to: usize) -> Option<Vec<u32>> {
        let mut via: Vec<Option<usize>> = vec![None; net.nodes.len()];
        let mut seen = vec![false; net.nodes.len()];
        let mut frontier = std::collections::VecDeque::from([from]);
        seen[from] = true;
        while let Some(n) = frontier.pop_front() {
            for (k, l) in net.links.iter().enumerate() {
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
        let mut path = vec![];
        let mut n = to;
        while n != from {
            let k = via[n].unwrap();
            path.push(k as u32);
            n = net.links[k].from;
        }
        path.reverse();
        Some(path)
    }

    #[test]
    fn routes_match_breadth_first_search_on_random_graphs() {
        use rand::{Rng as _, SeedableRng as _};
        let mut rng = crate::rng::Rng::seed_from_u64(7);
        for _ in 0..300 {
            let nodes = rng.gen_range(1..9);
            let mut net = Network {
                nodes: (0..nodes)
                    .map(|k| Name::Given(format!("n{k}").into()))
                    .collect(),
                links: vec![],
                params: vec![],
                ends: vec![],
                named: (0, 0),
                attached: vec![],
            };
            // Random simplex links, parallel links included, plus hosts hanging off one node
            // by one or two links each way (the stubs routing peels off).
            for _ in 0..rng.gen_range(0..3 * nodes) {
                let (a, b) = (rng.gen_range(0..nodes), rng.gen_range(0..nodes));
                if a != b {
                    net.links.push(LinkDef {
                        name: Name::Given("".into()),
                        from: a,
                        to: b,
                        params: 0,
                        delay_ns: 1_000_000,
                        monitor: false,
                    });
                }
            }
            for _ in 0..rng.gen_range(0..4) {
                let (h, r) = (net.node(Name::Given("".into())), rng.gen_range(0..nodes));
                for _ in 0..rng.gen_range(1..3) {
                    let (a, b) = if rng.gen_bool(0.5) { (h, r) } else { (r, h) };
                    net.links.push(LinkDef {
                        name: Name::Given("".into()),
                        from: a,
                        to: b,
                        params: 0,
                        delay_ns: 1_000_000,
                        monitor: false,
                    });
                }
            }
            let mut routes = Routes::new(&net);
            for a in 0..net.nodes.len() {
                for b in 0..net.nodes.len() {
                    assert_eq!(
                        routes.route(a, b),
                        fewest_hops(&net, a, b),
                        "{a}->{b} in {:?}",
                        net.links.iter().map(|l| (l.from, l.to)).collect::<Vec<_>>()
                    );
                }
            }
        }
    }

    #[test]
    fn parking_lot_flows_cross_their_hop_range() {
        let topo = TopologySpec::ParkingLot {
            hops: vec![link(5), link(5), link(5)],
            access: link(1),
        };
        let mut f = flow();
        f.placement_mut().hops = Some([1, 2]);
        let net = Network::build(&topo, &[f]);
        let (s, d) = net.ends[0];
        let path = net.route(s, d).unwrap();
        let names: Vec<_> = path
            .iter()
            .map(|&k| net.links[k as usize].name.to_string())
            .collect();
        assert_eq!(names, ["flow0.left", "hop1", "hop2", "flow0.right"]);
    }
}
