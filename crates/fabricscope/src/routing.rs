//! Routing: which links a transfer from one GPU to another crosses.
//!
//! Inside a node: the shortest path among the node's own vertices (through the NVSwitch, or a
//! GPU's PCIe link to its NIC), found breadth-first in link-id order, so ties are deterministic.
//!
//! Across nodes: GPU → NIC → leaf → (spine, or aggregation → core → aggregation) → leaf → NIC →
//! GPU, going up only as far as needed. The destination NIC is the destination GPU's own. On a
//! rail-optimised multi-leaf fabric the source sends through *its node's NIC on the same rail*
//! (NCCL's PXN: over NVLink to the GPU that owns that NIC), so traffic between nodes stays on
//! one rail; elsewhere a GPU uses its own NIC. Where there are several up-links, `Routing` picks:
//!
//! - `Static` (InfiniBand subnet manager, D-mod-K): up-link `(address / d) mod n`, where
//!   `address` is the destination NIC's position (leaf × down-ports + port), `d` is 1 at the leaf
//!   and the leaf's up-link count one tier higher. A shift permutation then uses every up-link once.
//! - `Ecmp` (Ethernet): a hash of (seed, tier, source NIC, destination NIC, connection) mod n.
//!   Different connections between the same NICs may hash differently; two big flows can land
//!   on one up-link, and that collision is what the engine then shows.
//! - `Adaptive`: the up-link crossed by the fewest flows in flight when the flow starts.

use crate::catalog::Routing;
use crate::scenario::{FabricTopology, Wiring};
use crate::topology::{LinkId, Topology, VertexId};
use std::collections::{BTreeMap, VecDeque};

/// The links of a shortest path from `src` to `dst` that stays among vertices `allowed` lets
/// through (plus `dst`); empty when `src == dst`, `None` when unreachable.
pub fn shortest_path_within(
    topology: &Topology,
    src: VertexId,
    dst: VertexId,
    allowed: impl Fn(VertexId) -> bool,
) -> Option<Vec<LinkId>> {
    if src == dst {
        return Some(Vec::new());
    }
    let n = topology.vertices().count();
    let mut via: Vec<Option<LinkId>> = vec![None; n];
    let mut seen = vec![false; n];
    seen[src.0 as usize] = true;
    let mut queue = VecDeque::from([src]);
    while let Some(vertex) = queue.pop_front() {
        for link_id in topology.out_links(vertex) {
            let next = topology.link(link_id).dst;
            if seen[next.0 as usize] || (next != dst && !allowed(next)) {
                continue;
            }
            seen[next.0 as usize] = true;
            via[next.0 as usize] = Some(link_id);
            if next == dst {
                let mut path = Vec::new();
                let mut at = dst;
                while let Some(link_id) = via[at.0 as usize] {
                    path.push(link_id);
                    at = topology.link(link_id).src;
                }
                path.reverse();
                return Some(path);
            }
            queue.push_back(next);
        }
    }
    None
}

/// The links of a shortest path anywhere in the topology.
pub fn shortest_path(topology: &Topology, src: VertexId, dst: VertexId) -> Option<Vec<LinkId>> {
    shortest_path_within(topology, src, dst, |_| true)
}

/// Routes transfers between ranks; remembers intra-node paths.
pub struct Router<'t> {
    topology: &'t Topology,
    routing: Routing,
    seed: u64,
    intra: BTreeMap<(VertexId, VertexId), Vec<LinkId>>,
}

impl<'t> Router<'t> {
    pub fn new(topology: &'t Topology, routing: Routing, seed: u64) -> Router<'t> {
        Router { topology, routing, seed, intra: BTreeMap::new() }
    }

    /// The path from rank `src` to rank `dst` for connection `key` (a channel). `load[l]` is the
    /// number of flows in flight on link `l`, which only adaptive routing reads.
    pub fn route(&mut self, src: u32, dst: u32, key: u32, load: &[u32]) -> Vec<LinkId> {
        let t = self.topology;
        let (src_gpu, dst_gpu) = (t.gpu(src), t.gpu(dst));
        let (src_node, dst_node) = (t.vertex(src_gpu).node, t.vertex(dst_gpu).node);
        if src_node == dst_node {
            return self.intra(src_gpu, dst_gpu);
        }
        let nics = t.nics_per_node();
        let (src_node, dst_node) = (src_node.unwrap_or(0), dst_node.unwrap_or(0));
        let dst_local = t.vertex(dst_gpu).local % nics;
        let plan = t.fabric.plan.as_ref().expect("a multi-node topology has a fabric");
        let rail_aligned = plan.wiring == Wiring::Rail && plan.leaves > 1;
        let src_local = if rail_aligned { dst_local } else { t.vertex(src_gpu).local % nics };
        let src_nic = t.fabric.nics[(src_node * nics + src_local) as usize];
        let dst_nic = t.fabric.nics[(dst_node * nics + dst_local) as usize];

        let mut path = self.intra(src_gpu, src_nic.vertex);
        path.push(src_nic.up);
        path.extend(self.fabric(src_nic.leaf, dst_nic.leaf, dst_nic.address, (src_nic.address, dst_nic.address, key), load));
        path.push(dst_nic.up.reverse());
        path.extend(self.intra(dst_nic.vertex, dst_gpu));
        path
    }

    fn intra(&mut self, src: VertexId, dst: VertexId) -> Vec<LinkId> {
        let t = self.topology;
        self.intra
            .entry((src, dst))
            .or_insert_with(|| {
                let node = t.vertex(src).node;
                shortest_path_within(t, src, dst, |v| t.vertex(v).node == node)
                    .expect("every vertex of a node reaches every other inside the node")
            })
            .clone()
    }

    /// Leaf to leaf, up only as far as needed.
    fn fabric(&self, src_leaf: u32, dst_leaf: u32, address: u32, flow: (u32, u32, u32), load: &[u32]) -> Vec<LinkId> {
        if src_leaf == dst_leaf {
            return Vec::new();
        }
        let index = &self.topology.fabric;
        let plan = index.plan.as_ref().expect("a fabric has a plan");
        let ups = &index.leaf_up[src_leaf as usize];
        let j = self.choose(0, ups, address, 1, flow, load);
        let leaf_up = ups[j];
        let per_pod = plan.leaves_per_pod;
        let (src_pod, dst_pod) = (plan.pod_of_leaf(src_leaf), plan.pod_of_leaf(dst_leaf));
        let dst_in_pod = (dst_leaf % per_pod) as usize;
        if plan.kind != FabricTopology::FatTree {
            return vec![leaf_up, index.mid_down[j][dst_in_pod]];
        }
        let mid = (src_pod * plan.up) as usize + j;
        if src_pod == dst_pod {
            return vec![leaf_up, index.mid_down[mid][dst_in_pod]];
        }
        let core_ups = &index.mid_up[mid];
        let i = self.choose(1, core_ups, address, plan.up.max(1), flow, load);
        let core = j * (plan.radix / 2) as usize + i;
        let dst_mid = (dst_pod * plan.up) as usize + j;
        vec![leaf_up, core_ups[i], index.core_down[core][dst_pod as usize], index.mid_down[dst_mid][dst_in_pod]]
    }

    fn choose(&self, tier: u64, candidates: &[LinkId], address: u32, divisor: u32, flow: (u32, u32, u32), load: &[u32]) -> usize {
        let n = candidates.len();
        debug_assert!(n > 0, "a switch with something above it has up-links");
        match self.routing {
            Routing::Static => ((address / divisor) as usize) % n,
            Routing::Ecmp => {
                let key = mix(mix(mix(mix(self.seed ^ tier) ^ flow.0 as u64) ^ flow.1 as u64) ^ flow.2 as u64);
                (key % n as u64) as usize
            }
            Routing::Adaptive => {
                (0..n).min_by_key(|&i| (load.get(candidates[i].index()).copied().unwrap_or(0), i)).unwrap_or(0)
            }
        }
    }
}

/// SplitMix64's finaliser: a fixed, well-mixed hash, identical on every target.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{FabricConfig, Scenario};
    use crate::topology::{build, LinkKind};

    fn kinds(topology: &Topology, path: &[LinkId]) -> Vec<LinkKind> {
        path.iter().map(|&id| topology.link(id).kind).collect()
    }

    #[test]
    fn paths_inside_and_across_nodes() {
        let mut scenario = Scenario::default_demo();
        scenario.nodes = 2;
        let topology = build(&scenario.validate().unwrap());
        let mut router = Router::new(&topology, Routing::Static, 0);
        let load = vec![0; topology.n_links()];
        assert_eq!(kinds(&topology, &router.route(0, 1, 0, &load)), [LinkKind::NvLink, LinkKind::NvLink]);
        let path = router.route(7, 8, 0, &load);
        assert_eq!(kinds(&topology, &path), [LinkKind::Pcie, LinkKind::Network, LinkKind::Network, LinkKind::Pcie]);
        // On one switch a GPU leaves through its own NIC and enters through the peer's.
        assert_eq!(topology.vertex_name(topology.link(path[0]).dst), "node 0 NIC 7");
        assert_eq!(topology.vertex_name(topology.link(path[2]).dst), "node 1 NIC 0");
        assert!(router.route(3, 3, 0, &load).is_empty());
    }

    #[test]
    fn rail_optimised_fabrics_keep_traffic_on_the_destination_rail() {
        let scenario = Scenario {
            nodes: 2,
            fabric: FabricConfig { topology: FabricTopology::LeafSpine, ..FabricConfig::default() },
            ..Scenario::default_demo()
        };
        let topology = build(&scenario.validate().unwrap());
        let mut router = Router::new(&topology, Routing::Static, 0);
        let load = vec![0; topology.n_links()];
        // GPU 7 of node 0 to GPU 0 of node 1: over NVLink to GPU 0, out of NIC 0, through rail 0's leaf.
        let path = router.route(7, 8, 0, &load);
        let names: Vec<String> = path.iter().map(|&l| topology.vertex_name(topology.link(l).dst)).collect();
        assert_eq!(names, ["node 0 NVSwitch", "node 0 GPU 0", "node 0 NIC 0", "leaf 0", "node 1 NIC 0", "node 1 GPU 0"]);
    }

    #[test]
    fn fat_tree_paths_go_up_only_as_far_as_needed() {
        // Radix 16, node wiring: one node per leaf, 8 leaves per pod, 2 pods for 16 nodes.
        let scenario = Scenario {
            nodes: 16,
            channels: Some(1),
            fabric: FabricConfig { topology: FabricTopology::FatTree, wiring: Wiring::Node, radix: Some(16), ..FabricConfig::default() },
            ..Scenario::default_demo()
        };
        let topology = build(&scenario.validate().unwrap());
        let mut router = Router::new(&topology, Routing::Static, 0);
        let load = vec![0; topology.n_links()];
        let network_hops = |path: &[LinkId]| path.iter().filter(|&&l| topology.link(l).kind == LinkKind::Network).count();
        assert_eq!(network_hops(&router.route(0, 1, 0, &load)), 0, "inside a node");
        assert_eq!(network_hops(&router.route(0, 8, 0, &load)), 4, "NIC, leaf, aggregation, leaf, NIC");
        assert_eq!(network_hops(&router.route(0, 15 * 8, 0, &load)), 6, "and a core between pods");
    }
}
