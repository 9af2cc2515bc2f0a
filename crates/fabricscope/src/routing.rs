//! Routing: which links a transfer from one GPU to another crosses.
//!
//! Inside a node: the lowest-latency path among the node's own vertices (Dijkstra; ties to
//! fewer hops, then lower ids). GPU-to-GPU paths never pass through a third GPU (NCCL does not
//! relay peer-to-peer traffic) when the node has another way (NVSwitch, PCIe and the CPUs); only
//! in a custom ring or mesh, where the links between GPUs are all there is, do GPUs forward
//! for each other (store-and-forward along the ring, as textbook models do). A GPU may reach a
//! NIC through another GPU over NVLink (PXN).
//! Each GPU sends through the cheapest-to-reach NIC among the first `nics_used` (NCCL_IB_HCA),
//! or, with misaligned pinning, through the NIC half the NICs away (the other socket).
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
use crate::collective::{Hop, SwitchRef, Transfer};
use crate::scenario::{FabricTopology, Pinning, Wiring};
use crate::topology::{LinkId, Topology, VertexId, VertexKind};
use std::collections::BTreeMap;

/// The lowest-latency path from `src` to `dst` through vertices `allowed` lets through (plus
/// `dst`); ties go to fewer hops, then to lower vertex ids. Empty when `src == dst`.
pub fn cheapest_path_within(
    topology: &Topology,
    src: VertexId,
    dst: VertexId,
    allowed: impl Fn(VertexId) -> bool,
) -> Option<Vec<LinkId>> {
    if src == dst {
        return Some(Vec::new());
    }
    // Sparse: a search inside one node touches a handful of vertices, not the cluster's.
    let mut best: BTreeMap<u32, (u64, u32)> = BTreeMap::from([(src.0, (0, 0))]);
    let mut via: BTreeMap<u32, LinkId> = BTreeMap::new();
    let mut heap = std::collections::BinaryHeap::from([std::cmp::Reverse((0u64, 0u32, src.0))]);
    while let Some(std::cmp::Reverse((cost, hops, v))) = heap.pop() {
        if best.get(&v).is_some_and(|&b| (cost, hops) > b) {
            continue;
        }
        if v == dst.0 {
            return Some(walk_back(topology, &via, dst));
        }
        for link_id in topology.out_links(VertexId(v)) {
            let link = topology.link(link_id);
            let next = link.dst;
            if next != dst && !allowed(next) {
                continue;
            }
            let candidate = (cost + link.latency_ns, hops + 1);
            if best.get(&next.0).is_none_or(|&b| candidate < b) {
                best.insert(next.0, candidate);
                via.insert(next.0, link_id);
                heap.push(std::cmp::Reverse((candidate.0, candidate.1, next.0)));
            }
        }
    }
    None
}

/// The path to `dst` that `via` (the link each vertex was reached by) records.
fn walk_back(topology: &Topology, via: &BTreeMap<u32, LinkId>, dst: VertexId) -> Vec<LinkId> {
    let mut path = Vec::new();
    let mut at = dst;
    while let Some(&link_id) = via.get(&at.0) {
        path.push(link_id);
        at = topology.link(link_id).src;
    }
    path.reverse();
    path
}

/// What decides a flow's route besides the topology: the load balancing, the seed its hashes
/// take, and the job's NIC policy (how many NICs per node it may use, NCCL_IB_HCA, and whether
/// each process is pinned next to its NIC). A job's choices, not the hardware's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    pub routing: Routing,
    /// Seed of ECMP's hash.
    pub seed: u64,
    /// NICs per node the job may use (the first ones).
    pub nics_used: u32,
    pub pinning: Pinning,
}

impl Policy {
    /// `routing` with `seed`, every NIC of a node in use, each process pinned next to its NIC.
    pub fn all_nics(topology: &Topology, routing: Routing, seed: u64) -> Policy {
        Policy { routing, seed, nics_used: topology.nics_per_node(), pinning: Pinning::Aligned }
    }
}

/// Routes transfers between ranks; remembers intra-node paths.
pub struct Router<'t> {
    topology: &'t Topology,
    policy: Policy,
    /// (from, to, may pass through a GPU) → path.
    intra: BTreeMap<(VertexId, VertexId, bool), Vec<LinkId>>,
    /// The NIC (local index) each GPU (local index) sends and receives through.
    nic_of_gpu: Vec<u32>,
}

/// A router without its topology, to be kept between slices of a run (`engine::Run`) and
/// resumed on the same topology.
pub struct RouterState {
    policy: Policy,
    intra: BTreeMap<(VertexId, VertexId, bool), Vec<LinkId>>,
    nic_of_gpu: Vec<u32>,
}

/// An empty state, the placeholder while a run holds the router (`std::mem::take`).
impl Default for RouterState {
    fn default() -> RouterState {
        let policy = Policy { routing: Routing::Static, seed: 0, nics_used: 0, pinning: Pinning::Aligned };
        RouterState { policy, intra: BTreeMap::new(), nic_of_gpu: Vec::new() }
    }
}

impl<'t> Router<'t> {
    pub fn new(topology: &'t Topology, policy: Policy) -> Router<'t> {
        let mut router = Router { topology, policy, intra: BTreeMap::new(), nic_of_gpu: Vec::new() };
        router.nic_of_gpu = router.pick_nics();
        router
    }

    /// The router without its topology.
    pub fn into_state(self) -> RouterState {
        RouterState { policy: self.policy, intra: self.intra, nic_of_gpu: self.nic_of_gpu }
    }

    /// The router again, on the topology it was made for.
    pub fn resume(topology: &'t Topology, state: RouterState) -> Router<'t> {
        Router { topology, policy: state.policy, intra: state.intra, nic_of_gpu: state.nic_of_gpu }
    }

    /// Each GPU's NIC among the `nics_used` the job may use: the one with the cheapest path
    /// (aligned), or the one half the NICs away, on the other socket (misaligned).
    fn pick_nics(&mut self) -> Vec<u32> {
        let t = self.topology;
        let used = self.policy.nics_used;
        if used == 0 || t.fabric.nics.is_empty() {
            return Vec::new();
        }
        (0..t.gpus_per_node())
            .map(|local| {
                let gpu = t.gpu(local);
                let closest = (0..used)
                    .min_by_key(|&nic| {
                        let path = self.intra(gpu, t.fabric.nics[nic as usize].vertex, true);
                        // Ties go to the GPU's own index modulo the NICs in use, so GPUs spread
                        // over the NICs the way NCCL spreads them.
                        (
                            path.iter().map(|&l| t.link(l).latency_ns).sum::<u64>(),
                            path.len(),
                            (nic + used - local % used) % used,
                        )
                    })
                    .unwrap_or(0);
                match self.policy.pinning {
                    Pinning::Aligned => closest,
                    Pinning::Misaligned => (closest + used / 2) % used,
                }
            })
            .collect()
    }

    /// The path from rank `src` to rank `dst` for connection `key` (a channel). `load[l]` is the
    /// number of flows in flight on link `l`, which only adaptive routing reads.
    pub fn route(&mut self, src: u32, dst: u32, key: u32, load: &[u32]) -> Vec<LinkId> {
        let t = self.topology;
        let (src_gpu, dst_gpu) = (t.gpu(src), t.gpu(dst));
        let (src_node, dst_node) = (t.vertex(src_gpu).node, t.vertex(dst_gpu).node);
        if src_node == dst_node {
            return self.intra(src_gpu, dst_gpu, false);
        }
        let nics = t.nics_per_node();
        let (src_node, dst_node) = (src_node.unwrap_or(0), dst_node.unwrap_or(0));
        let dst_local = self.nic_of_gpu[t.vertex(dst_gpu).local as usize];
        let plan = t.fabric.plan.as_ref().expect("a multi-node topology has a fabric");
        let aligned = self.policy.pinning == Pinning::Aligned;
        let rail_aligned = aligned && plan.wiring == Wiring::Rail && plan.leaves > 1;
        let src_local =
            if rail_aligned { dst_local } else { self.nic_of_gpu[t.vertex(src_gpu).local as usize] };
        let src_nic = t.fabric.nics[(src_node * nics + src_local) as usize];
        let dst_nic = t.fabric.nics[(dst_node * nics + dst_local) as usize];

        // Aligned jobs reach another GPU's NIC the way NCCL's PXN does: over NVLink to the GPU
        // that NIC belongs to, then down its PCIe link; misaligned ones go the way the process
        // is bound: over PCIe and the CPUs.
        let relay = self
            .nic_of_gpu
            .iter()
            .position(|&nic| nic == src_local)
            .map(|g| t.gpu(src_node * t.gpus_per_node() + g as u32));
        let mut path = match relay {
            Some(relay)
                if aligned
                    && relay != src_gpu
                    && self.nic_of_gpu[t.vertex(src_gpu).local as usize] != src_local =>
            {
                let mut path = self.intra(src_gpu, relay, false);
                path.extend(self.intra(relay, src_nic.vertex, false));
                path
            }
            _ => self.intra(src_gpu, src_nic.vertex, aligned),
        };
        path.push(src_nic.up);
        path.extend(self.fabric(
            src_nic.leaf,
            dst_nic.leaf,
            dst_nic.address,
            (src_nic.address, dst_nic.address, key),
            load,
        ));
        path.push(dst_nic.up.reverse());
        path.extend(self.intra(dst_nic.vertex, dst_gpu, aligned));
        path
    }

    /// The path of a transfer: peer to peer (`route`), or up to or down from the switch that
    /// reduces in the network (a node's NVSwitch for NVLS).
    pub fn route_transfer(&mut self, transfer: &Transfer, load: &[u32]) -> Vec<LinkId> {
        let t = self.topology;
        match transfer.hop {
            Hop::Peer => self.route(transfer.src, transfer.dst, transfer.channel, load),
            Hop::ToSwitch(SwitchRef::NvSwitch { .. }) => {
                let gpu = t.gpu(transfer.src);
                let switch = self.nvswitch(gpu);
                self.intra(gpu, switch, false)
            }
            Hop::FromSwitch(SwitchRef::NvSwitch { .. }) => {
                let gpu = t.gpu(transfer.dst);
                let switch = self.nvswitch(gpu);
                self.intra(switch, gpu, false)
            }
            Hop::ToSwitch(SwitchRef::Rail { rail }) => {
                let mut path = self.nic_path(transfer.src);
                let (nic, up) = self.rail_root(transfer.src, rail);
                path.push(nic);
                path.extend(up);
                path
            }
            Hop::FromSwitch(SwitchRef::Rail { rail }) => {
                let (nic, up) = self.rail_root(transfer.dst, rail);
                let mut path: Vec<LinkId> = up.into_iter().rev().map(LinkId::reverse).collect();
                path.push(nic.reverse());
                let mut down = self.nic_path(transfer.dst);
                down.reverse();
                path.extend(down.into_iter().map(LinkId::reverse));
                path
            }
        }
    }

    /// The path between `rank`'s GPU and its own NIC, as aligned processes reach it.
    fn nic_path(&mut self, rank: u32) -> Vec<LinkId> {
        let t = self.topology;
        let gpu = t.gpu(rank);
        let vertex = t.vertex(gpu);
        let nic = t.fabric.nics[(vertex.node.unwrap_or(0) * t.nics_per_node()
            + self.nic_of_gpu[vertex.local as usize]) as usize];
        self.intra(gpu, nic.vertex, true)
    }

    /// `rank`'s NIC's up-link, and the links from its leaf up to the root of `rail`'s SHARP
    /// aggregation tree: the rail's leaf when every node's NIC of that rail is on one leaf,
    /// else spine `rail mod spines` (validation admits SHARP on one switch or a leaf-spine).
    fn rail_root(&self, rank: u32, rail: u32) -> (LinkId, Vec<LinkId>) {
        let t = self.topology;
        let index = &t.fabric;
        let nics = t.nics_per_node();
        let vertex = t.vertex(t.gpu(rank));
        let nic =
            index.nics[(vertex.node.unwrap_or(0) * nics + self.nic_of_gpu[vertex.local as usize]) as usize];
        let rail_nic = self.nic_of_gpu[rail as usize % self.nic_of_gpu.len()];
        let leaves: Vec<u32> =
            (0..t.n_nodes()).map(|node| index.nics[(node * nics + rail_nic) as usize].leaf).collect();
        if leaves.iter().all(|&leaf| leaf == leaves[0]) && nic.leaf == leaves[0] {
            return (nic.up, Vec::new());
        }
        let ups = &index.leaf_up[nic.leaf as usize];
        (nic.up, vec![ups[rail as usize % ups.len()]])
    }

    /// The NVSwitch of `gpu`'s node (validation admits NVLS only on nodes with one).
    fn nvswitch(&self, gpu: VertexId) -> VertexId {
        let t = self.topology;
        let node = t.vertex(gpu).node;
        t.vertices()
            .find(|(_, v)| v.kind == VertexKind::NvSwitch && v.node == node)
            .map(|(id, _)| id)
            .expect("NVLS runs only on nodes with an NVSwitch")
    }

    fn intra(&mut self, src: VertexId, dst: VertexId, through_gpus: bool) -> Vec<LinkId> {
        let t = self.topology;
        self.intra
            .entry((src, dst, through_gpus))
            .or_insert_with(|| {
                let node = t.vertex(src).node;
                let within = |through_gpus: bool| {
                    cheapest_path_within(t, src, dst, |v| {
                        let vertex = t.vertex(v);
                        vertex.node == node && (through_gpus || vertex.kind != VertexKind::Gpu)
                    })
                };
                within(through_gpus).or_else(|| within(true)).expect(
                    "every vertex of a node reaches every other inside the node (the builder joins them)",
                )
            })
            .clone()
    }

    /// Leaf to leaf, up only as far as needed.
    fn fabric(
        &self,
        src_leaf: u32,
        dst_leaf: u32,
        address: u32,
        flow: (u32, u32, u32),
        load: &[u32],
    ) -> Vec<LinkId> {
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
        vec![
            leaf_up,
            core_ups[i],
            index.core_down[core][dst_pod as usize],
            index.mid_down[dst_mid][dst_in_pod],
        ]
    }

    fn choose(
        &self,
        tier: u64,
        candidates: &[LinkId],
        address: u32,
        divisor: u32,
        flow: (u32, u32, u32),
        load: &[u32],
    ) -> usize {
        let n = candidates.len();
        debug_assert!(n > 0, "a switch with something above it has up-links");
        match self.policy.routing {
            Routing::Static => ((address / divisor) as usize) % n,
            Routing::Ecmp => {
                let key =
                    mix(mix(mix(mix(self.policy.seed ^ tier) ^ flow.0 as u64) ^ flow.1 as u64)
                        ^ flow.2 as u64);
                (key % n as u64) as usize
            }
            Routing::Adaptive => (0..n)
                .min_by_key(|&i| (load.get(candidates[i].index()).copied().unwrap_or(0), i))
                .unwrap_or(0),
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

/// A scenario's topology and its routing policy with static routing and seed 0.
#[cfg(test)]
fn static_of(scenario: &crate::scenario::Scenario) -> (Topology, Policy) {
    let valid = scenario.validate().unwrap();
    (valid.topology(), Policy { routing: Routing::Static, seed: 0, ..valid.policy() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{FabricConfig, Scenario};
    use crate::topology::LinkKind;

    fn kinds(topology: &Topology, path: &[LinkId]) -> Vec<LinkKind> {
        path.iter().map(|&id| topology.link(id).kind).collect()
    }

    #[test]
    fn paths_inside_and_across_nodes() {
        let mut scenario = Scenario::default_demo();
        scenario.nodes = 2;
        let (topology, policy) = static_of(&scenario);
        let mut router = Router::new(&topology, policy);
        let load = vec![0; topology.n_links()];
        assert_eq!(kinds(&topology, &router.route(0, 1, 0, &load)), [LinkKind::NvLink, LinkKind::NvLink]);
        let path = router.route(7, 8, 0, &load);
        let pcie = LinkKind::Pcie;
        assert_eq!(kinds(&topology, &path), [pcie, pcie, LinkKind::Network, LinkKind::Network, pcie, pcie]);
        // On one switch a GPU leaves through its own NIC and enters through the peer's.
        let names: Vec<String> = path.iter().map(|&l| topology.vertex_name(topology.link(l).dst)).collect();
        assert_eq!(
            names,
            [
                "node 0 PCIe switch 3",
                "node 0 NIC 7",
                "switch",
                "node 1 NIC 0",
                "node 1 PCIe switch 0",
                "node 1 GPU 0"
            ]
        );
        assert!(router.route(3, 3, 0, &load).is_empty());
    }

    #[test]
    fn rail_optimised_fabrics_keep_traffic_on_the_destination_rail() {
        let scenario = Scenario {
            nodes: 2,
            fabric: FabricConfig { topology: FabricTopology::LeafSpine, ..FabricConfig::default() },
            ..Scenario::default_demo()
        };
        let (topology, policy) = static_of(&scenario);
        let mut router = Router::new(&topology, policy);
        let load = vec![0; topology.n_links()];
        // GPU 7 of node 0 to GPU 0 of node 1: over NVLink to GPU 0, out of NIC 0, through rail 0's leaf.
        let path = router.route(7, 8, 0, &load);
        let names: Vec<String> = path.iter().map(|&l| topology.vertex_name(topology.link(l).dst)).collect();
        assert_eq!(
            names,
            [
                "node 0 NVSwitch",
                "node 0 GPU 0",
                "node 0 PCIe switch 0",
                "node 0 NIC 0",
                "leaf 0",
                "node 1 NIC 0",
                "node 1 PCIe switch 0",
                "node 1 GPU 0"
            ]
        );
        // GPU 0 to rail 1: NIC 1 shares GPU 0's PCIe switch, but PXN still goes through GPU 1,
        // so GPU 0's own PCIe link stays free for its own NIC.
        let path = router.route(0, 9, 0, &load);
        let names: Vec<String> =
            path.iter().take(3).map(|&l| topology.vertex_name(topology.link(l).dst)).collect();
        assert_eq!(names, ["node 0 NVSwitch", "node 0 GPU 1", "node 0 PCIe switch 0"]);
    }

    #[test]
    fn fat_tree_paths_go_up_only_as_far_as_needed() {
        // Radix 16, node wiring: one node per leaf, 8 leaves per pod, 2 pods for 16 nodes.
        let scenario = Scenario {
            nodes: 16,
            channels: Some(1),
            fabric: FabricConfig {
                topology: FabricTopology::FatTree,
                wiring: Wiring::Node,
                radix: Some(16),
                ..FabricConfig::default()
            },
            ..Scenario::default_demo()
        };
        let (topology, policy) = static_of(&scenario);
        let mut router = Router::new(&topology, policy);
        let load = vec![0; topology.n_links()];
        let network_hops =
            |path: &[LinkId]| path.iter().filter(|&&l| topology.link(l).kind == LinkKind::Network).count();
        assert_eq!(network_hops(&router.route(0, 1, 0, &load)), 0, "inside a node");
        assert_eq!(network_hops(&router.route(0, 8, 0, &load)), 4, "NIC, leaf, aggregation, leaf, NIC");
        assert_eq!(network_hops(&router.route(0, 15 * 8, 0, &load)), 6, "and a core between pods");
    }
}

#[cfg(test)]
mod node_tests {
    use super::*;
    use crate::scenario::Scenario;
    use crate::topology::LinkKind;

    fn router_for(scenario: Scenario) -> (Topology, Vec<u32>) {
        let (topology, policy) = static_of(&scenario);
        let nics = Router::new(&topology, policy).nic_of_gpu.clone();
        (topology, nics)
    }

    #[test]
    fn nics_used_and_pinning_pick_each_gpus_nic() {
        let (_, nics) = router_for(Scenario { nodes: 2, ..Scenario::default_demo() });
        assert_eq!(nics, [0, 1, 2, 3, 4, 5, 6, 7], "aligned: every GPU its own NIC");
        let (_, nics) = router_for(Scenario { nodes: 2, nics_used: Some(4), ..Scenario::default_demo() });
        assert_eq!(nics, [0, 1, 2, 3, 0, 1, 2, 3], "GPUs 4-7 reach NICs 0-3 over NVLink (PXN)");
        let (_, nics) =
            router_for(Scenario { nodes: 2, pinning: Pinning::Misaligned, ..Scenario::default_demo() });
        assert_eq!(nics, [4, 5, 6, 7, 0, 1, 2, 3], "misaligned: the other socket's NIC");
    }

    #[test]
    fn dgx1_ring_hops_are_nvlink_and_other_pairs_cross_the_cpus() {
        let scenario = Scenario { preset: "dgx-1".into(), ..Scenario::default_demo() };
        let (topology, policy) = static_of(&scenario);
        let mut router = Router::new(&topology, policy);
        let load = vec![0; topology.n_links()];
        let kinds =
            |path: Vec<LinkId>| -> Vec<LinkKind> { path.iter().map(|&l| topology.link(l).kind).collect() };
        assert_eq!(kinds(router.route(3, 7, 0, &load)), [LinkKind::NvLink]);
        // GPU 0 and GPU 5 share no NVLink: PCIe up to CPU 0, UPI, down from CPU 1.
        let path = kinds(router.route(0, 5, 0, &load));
        assert!(path.contains(&LinkKind::Socket) && !path.contains(&LinkKind::NvLink), "{path:?}");
    }
}
