//! Every ordered pair of distinct ranks routed on one connection, in aggregate (`PairCount`):
//! how many pairs cross each link, and bounds on their paths' latencies, without routing each
//! pair. An AllToAll's bound (`simulation::bounded`) needs no more, and n(n-1) routes one by one
//! stop at a few thousand GPUs.
//!
//! With static routes a pair between nodes takes three parts (`Router::route`): out of its
//! source GPU to the NIC it sends through and up to that NIC's leaf (which depends on the
//! source GPU and the NIC), across the fabric (on the source NIC's leaf and the destination
//! NIC: D-mod-K reads the destination's address alone), and down to the destination GPU (on
//! the destination GPU alone: it receives through one NIC per connection). So each part is
//! routed once, counted as many times as pairs take it:
//!
//! - the way in to GPU `(b, j)`: every GPU of another node, `(N - 1)·g` pairs;
//! - the way out of GPU `(a, i)` through its node's NIC `r`: `(N - 1)·m_i[r]`, with `m_i[r]`
//!   the local destinations `j` whose pairs from `i` send through `r`;
//! - across the fabric from leaf `L` to the NIC `(b, j)` receives through: `k_j[r]` (the local
//!   sources whose pairs to `j` send through `r`) times the nodes other than `b` whose NIC `r`
//!   is on `L`, summed over `r`. That is every rail's leaves per destination GPU, not n.
//!
//! Pairs within a node are routed one by one (n(g-1) of them). A part's latency is exact; a
//! pair between nodes takes one of each part, so the least latency of the pairs crossing a link
//! is at least its part's latency plus the least of the other two kinds, and the most of all
//! pairs at most the three kinds' most: bounds, which is what `bounded` asks of them.
//! The test below holds the counts to every pair routed one by one, link by link.

use super::Router;
use crate::topology::{LinkId, LinkKind, Topology};

/// What every ordered pair of distinct ranks carries (`PairCount::finish`).
pub struct PairLoads {
    /// Pairs crossing each link.
    pub pairs: Vec<u64>,
    /// At most the least latency of a pair crossing each link, the whole flow's [ns];
    /// `u64::MAX` where none does.
    pub least: Vec<u64>,
    /// At least the most latency of any pair, the whole flow's [ns].
    pub most: u64,
}

/// The three parts of a path between nodes, and pairs within a node.
#[derive(Clone, Copy)]
enum Part {
    Out = 0,
    Across = 1,
    In = 2,
}

/// Pairs counted a GPU at a time (`advance`), for a caller that must stay responsive.
pub struct PairCount {
    key: u32,
    /// The next GPU (rank) whose parts are counted.
    next: u32,
    /// Each local destination's receiving NIC (empty on one node or without NICs: no pair
    /// crosses the fabric).
    recv: Vec<u32>,
    /// `k_j[r]` and `m_i[r]` (the module's documentation).
    into: Vec<Vec<u64>>,
    out_of: Vec<Vec<u64>>,
    /// For each NIC index `r`, the leaves that node's NIC `r` is on and how many nodes' are.
    rails: Vec<Vec<(u32, u64)>>,
    pairs: Vec<u64>,
    /// Pairs within a node: the least latency crossing each link, the whole flow's.
    within: Vec<u64>,
    /// Each kind of part's least link latency crossing each link (links alone), and the kind's least and
    /// most latency over all its parts that some pair takes.
    parts: [Vec<u64>; 3],
    least: [u64; 3],
    most: [u64; 3],
    most_within: u64,
}

impl PairCount {
    /// Counting every ordered pair of `router`'s ranks on connection `key`. `None` where the
    /// parts would not be the pairs' (routes that hash the connection in or follow the load).
    pub fn start(router: &Router, key: u32) -> Option<PairCount> {
        let t = router.topology;
        if router.policy.routing != crate::catalog::Routing::Static {
            return None;
        }
        let (g, nodes, nics) = (t.gpus_per_node(), t.n_nodes(), t.nics_per_node());
        let n_links = t.n_links();
        let mut count = PairCount {
            key,
            next: 0,
            recv: Vec::new(),
            into: Vec::new(),
            out_of: Vec::new(),
            rails: Vec::new(),
            pairs: vec![0; n_links],
            within: vec![u64::MAX; n_links],
            parts: [vec![u64::MAX; n_links], vec![u64::MAX; n_links], vec![u64::MAX; n_links]],
            least: [u64::MAX; 3],
            most: [0; 3],
            most_within: 0,
        };
        if nodes < 2 || nics == 0 {
            return Some(count);
        }
        let rail_aligned = router.rail_aligned();
        count.recv = (0..g).map(|j| router.connection_nic(false, j, key)).collect();
        count.into = vec![vec![0; nics as usize]; g as usize];
        count.out_of = vec![vec![0; nics as usize]; g as usize];
        for i in 0..g {
            for j in 0..g {
                // The NIC a pair from local GPU i to local GPU j sends through.
                let r = match rail_aligned {
                    true => count.recv[j as usize],
                    false => router.connection_nic(true, i, key),
                } as usize;
                count.into[j as usize][r] += 1;
                count.out_of[i as usize][r] += 1;
            }
        }
        count.rails = (0..nics)
            .map(|r| {
                let mut leaves: Vec<u32> =
                    (0..nodes).map(|a| t.fabric.nics[(a * nics + r) as usize].leaf).collect();
                leaves.sort_unstable();
                let mut on: Vec<(u32, u64)> = Vec::new();
                for leaf in leaves {
                    match on.last_mut() {
                        Some((l, c)) if *l == leaf => *c += 1,
                        _ => on.push((leaf, 1)),
                    }
                }
                on
            })
            .collect();
        Some(count)
    }

    /// The routes counting every pair takes: each GPU's from the GPUs of its node, its ways out
    /// through each NIC it sends through and in, and the fabric from every leaf of each rail
    /// its sources send through (`advance` counts them).
    pub fn routes(&self, t: &Topology) -> u64 {
        let (g, nodes) = (t.gpus_per_node() as u64, t.n_nodes() as u64);
        let per_node: u64 = (0..g as usize)
            .map(|local| {
                let between = match self.recv.is_empty() {
                    true => 0,
                    false => {
                        let out = self.out_of[local].iter().filter(|&&m| m > 0).count() as u64;
                        let across: usize = (0..self.rails.len())
                            .filter(|&r| self.into[local][r] > 0)
                            .map(|r| self.rails[r].len())
                            .sum();
                        out + 1 + across as u64
                    }
                };
                g - 1 + between
            })
            .sum();
        nodes.saturating_mul(per_node)
    }

    /// Counts the pairs into and out of up to about `routes` routes' worth of GPUs; true once
    /// every GPU's are. `latency` is a flow's over a path whose links take the first argument
    /// [ns] and whose slowest link is of the class given (`Schedule::flow_latency_ns`): never
    /// less for slower links.
    pub fn advance(
        &mut self,
        router: &mut Router,
        routes: usize,
        latency: impl Fn(u64, LinkKind) -> u64,
    ) -> bool {
        let t = router.topology;
        let n = t.n_gpus();
        let mut done = 0usize;
        while self.next < n && done < routes {
            done += self.gpu(router, self.next, &latency);
            self.next += 1;
        }
        self.next == n
    }

    /// GPU `x`'s parts: pairs within its node into it, its way out through each NIC, its way
    /// in, and the fabric from every leaf to the NIC it receives through. The routes taken.
    fn gpu(&mut self, router: &mut Router, x: u32, latency: &impl Fn(u64, LinkKind) -> u64) -> usize {
        let t = router.topology;
        let (g, nodes, nics) = (t.gpus_per_node(), t.n_nodes(), t.nics_per_node());
        let vertex = t.vertex(t.gpu(x));
        let (node, local) = (vertex.node.unwrap_or(0), vertex.local);
        let mut routes = 0;
        for i in (0..g).filter(|&i| i != local) {
            let path = router.intra(t.gpu(node * g + i), t.gpu(x), false);
            let latency = latency(t.path_latency_ns(&path), t.path_class(&path));
            self.most_within = self.most_within.max(latency);
            for link in path {
                self.pairs[link.index()] += 1;
                self.within[link.index()] = self.within[link.index()].min(latency);
            }
            routes += 1;
        }
        if nodes < 2 || nics == 0 {
            return routes;
        }
        let others = nodes as u64 - 1;
        for r in 0..nics {
            let pairs = others * self.out_of[local as usize][r as usize];
            if pairs > 0 {
                let nic = t.fabric.nics[(node * nics + r) as usize];
                let mut path = router.gpu_nic(false, node, local, r);
                path.push(nic.up);
                self.add(t, Part::Out, &path, pairs);
                routes += 1;
            }
        }
        let r_in = self.recv[local as usize];
        let nic = t.fabric.nics[(node * nics + r_in) as usize];
        let mut path = vec![nic.up.reverse()];
        path.extend(router.gpu_nic(true, node, local, r_in));
        self.add(t, Part::In, &path, others * g as u64);
        for r in 0..nics as usize {
            let sources = self.into[local as usize][r];
            if sources == 0 {
                continue;
            }
            let own = t.fabric.nics[(node * nics) as usize + r].leaf;
            for k in 0..self.rails[r].len() {
                let (leaf, on) = self.rails[r][k];
                let from = on - u64::from(leaf == own);
                if from == 0 {
                    continue;
                }
                let path = router.fabric(leaf, nic.leaf, nic.address, (0, 0, self.key), &[]);
                self.add(t, Part::Across, &path, sources * from);
                routes += 1;
            }
        }
        routes + 1
    }

    fn add(&mut self, t: &Topology, part: Part, path: &[LinkId], pairs: u64) {
        let latency = t.path_latency_ns(path);
        let kind = part as usize;
        self.least[kind] = self.least[kind].min(latency);
        self.most[kind] = self.most[kind].max(latency);
        for link in path {
            self.pairs[link.index()] += pairs;
            self.parts[kind][link.index()] = self.parts[kind][link.index()].min(latency);
        }
    }

    /// Every GPU counted (`advance` said so): the loads, a pair between nodes taking the
    /// latency of a network path of its parts' links (`latency`, as `advance` was given, never
    /// less for slower links, so the least parts give the least latency).
    pub fn finish(self, latency: impl Fn(u64, LinkKind) -> u64) -> PairLoads {
        let PairCount { pairs, mut within, parts, least, most, most_within, .. } = self;
        let between = least.iter().all(|&l| l != u64::MAX);
        for (kind, parts) in parts.iter().enumerate().filter(|_| between) {
            // The other two kinds' least, which a pair crossing this part takes as well.
            let rest: u64 = (0..3).filter(|&k| k != kind).map(|k| least[k]).sum();
            for (link, &part) in parts.iter().enumerate() {
                if part != u64::MAX {
                    within[link] = within[link].min(latency(part + rest, LinkKind::Network));
                }
            }
        }
        let most_between = if between { latency(most.iter().sum::<u64>(), LinkKind::Network) } else { 0 };
        PairLoads { pairs, least: within, most: most_within.max(most_between) }
    }

    /// The share of `n` GPUs counted.
    pub fn progress(&self, n: u32) -> f64 {
        self.next as f64 / n.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::{PairCount, Router};
    use crate::catalog::Routing;
    use crate::scenario::{
        Collective, FabricConfig, FabricTopology, Fault, FaultKind, Pinning, Scenario, Wiring,
    };
    use crate::topology::LinkKind;

    fn latency(links: u64, kind: LinkKind) -> u64 {
        [100, 300, 700, 5_000][kind as usize] + links.saturating_sub(1_000)
    }

    /// Every pair routed one by one against the parts counted: the same pairs on every link, the
    /// least latency no more than each link's own and the most no less than any pair's.
    #[test]
    fn the_parts_count_every_pair_routed() {
        let ib = FabricConfig::default;
        let leaf_spine = || FabricConfig { topology: FabricTopology::LeafSpine, radix: Some(16), ..ib() };
        let mut cases: Vec<(&str, Scenario)> = Vec::new();
        let demo = |preset: &str, nodes: u32, fabric: FabricConfig| Scenario {
            preset: preset.into(),
            nodes,
            collective: Collective::AllToAll,
            fabric,
            ..Scenario::default_demo()
        };
        cases.push(("H100 x1", demo("dgx-h100", 1, ib())));
        cases.push(("H100 x12 rail", demo("dgx-h100", 12, ib())));
        cases.push((
            "H100 x24 3-tier radix 16",
            demo("dgx-h100", 24, FabricConfig { topology: FabricTopology::FatTree, radix: Some(16), ..ib() }),
        ));
        cases.push((
            "H100 x6 node wiring",
            demo("dgx-h100", 6, FabricConfig { wiring: Wiring::Node, ..leaf_spine() }),
        ));
        cases.push((
            "A100 x5 4:1",
            demo("dgx-a100", 5, FabricConfig { oversubscription: 4.0, ..leaf_spine() }),
        ));
        cases.push(("DGX-1 x4", demo("dgx-1", 4, ib())));
        cases.push(("B200 x3", demo("hgx-b200", 3, ib())));
        let mut few = demo("dgx-h100", 4, ib());
        few.nics_used = Some(4);
        cases.push(("H100 x4, 4 NICs", few));
        let mut misaligned = demo("dgx-h100", 4, ib());
        misaligned.pinning = Pinning::Misaligned;
        cases.push(("H100 x4 misaligned", misaligned));
        let mut down = demo("dgx-h100", 8, leaf_spine());
        down.faults.push(Fault { kind: FaultKind::LeafUplink, node: 0, leaf: 1, index: 0, rate: 0.0 });
        cases.push(("H100 x8 a leaf's up-link down", down));
        for (what, s) in cases {
            let valid = s.validate().unwrap_or_else(|e| panic!("{what}: {e:?}"));
            assert_eq!(valid.policy().routing, Routing::Static, "{what}");
            let t = valid.topology();
            let n = valid.n_ranks();
            let zero = crate::collective::alltoall_channel_zero(n, n as u64 * 8, 8);
            let mut router = Router::for_transfers(&t, valid.policy(), &zero.transfers);
            let (mut pairs, mut least, mut most) = (vec![0u64; t.n_links()], vec![u64::MAX; t.n_links()], 0);
            for src in 0..n {
                for dst in (0..n).filter(|&d| d != src) {
                    let path = router.route(src, dst, 0, &[]);
                    let latency = latency(t.path_latency_ns(&path), t.path_class(&path));
                    most = most.max(latency);
                    for link in path {
                        pairs[link.index()] += 1;
                        least[link.index()] = least[link.index()].min(latency);
                    }
                }
            }
            let mut count = PairCount::start(&router, 0).expect("static routes");
            while !count.advance(&mut router, 7, latency) {}
            let loads = count.finish(latency);
            assert_eq!(loads.pairs, pairs, "{what}");
            for (l, (&bound, &exact)) in loads.least.iter().zip(&least).enumerate() {
                assert!(bound <= exact, "{what}: link {l}'s least {bound} above {exact}");
            }
            assert!(loads.most >= most, "{what}: most {} below {most}", loads.most);
        }
    }
}
