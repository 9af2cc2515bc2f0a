//! Routing: which links a transfer from one GPU to another crosses.
//!
//! Inside a node: the lowest-latency path among the node's own vertices (Dijkstra; ties to
//! fewer hops, then lower ids). GPU-to-GPU paths never pass through a third GPU (NCCL does not
//! relay peer-to-peer traffic) when the node has another way (NVSwitch, PCIe and the CPUs); only
//! in a custom ring or mesh, where the links between GPUs are all there is, do GPUs forward
//! for each other (store-and-forward along the ring, as textbook models do). A GPU may reach a
//! NIC through another GPU over NVLink (PXN).
//! Each GPU's own NIC is its cheapest-to-reach one. Between nodes a connection (a GPU and a
//! channel) leaves and enters through one of the first `nics_used` NICs (NCCL_IB_HCA), spread
//! the way NCCL spreads its channels: a connection keeps its GPU's own NIC if the job may use
//! it, and the others go round the least-loaded NICs in use, reached over NVLink through the GPU
//! that owns the NIC (PXN). With misaligned pinning every GPU sends through the NIC half the
//! NICs away (the other socket).
//!
//! Across nodes: GPU → NIC → leaf → (spine, or aggregation → core → aggregation) → leaf → NIC →
//! GPU, going up only as far as needed. The destination NIC is the receiving connection's. On a
//! rail-optimised multi-leaf fabric the source sends through *its node's NIC on the same rail*
//! (NCCL's PXN: over NVLink to the GPU that owns that NIC), so traffic between nodes stays on
//! one rail; elsewhere through the sending connection's NIC. Where there are several up-links, `Routing` picks:
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

mod pairs;
pub use pairs::{PairCount, PairLoads};

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
    intra: IntraPaths,
    /// The NIC (local index) each GPU (local index) sends and receives through when no
    /// connection plan says otherwise (in-network trips, and routes asked for outside a run).
    nic_of_gpu: Vec<u32>,
    /// The NIC each connection between nodes uses.
    plan: Box<NicPlan>,
}

/// Each GPU's own NIC (`own`: the cheapest to reach among all of the node's), and the NIC each
/// connection that crosses nodes, (GPU's local index, channel), sends (`send`) or receives
/// (`recv`) through.
#[derive(Clone, Default)]
struct NicPlan {
    own: Vec<u32>,
    send: ConnectionNics,
    recv: ConnectionNics,
    /// Each node's NVSwitch (by node index), found once: NVLS routes ask for it per transfer.
    nvswitches: Vec<Option<VertexId>>,
}

/// (GPU's local index, channel) → NIC.
type ConnectionNics = BTreeMap<(u32, u32), u32>;

/// (from, to, may pass through a GPU) → path: a memo, never iterated, so a hash map (a
/// B-tree's inserts moved its nodes' entries: a quarter of routing 131,072 GPUs' trees).
type IntraPaths = std::collections::HashMap<(VertexId, VertexId, bool), Vec<LinkId>, crate::hash::FixedState>;

/// A router without its topology, to be kept between slices of a run (`engine::Run`) and
/// resumed on the same topology.
pub struct RouterState {
    policy: Policy,
    intra: IntraPaths,
    nic_of_gpu: Vec<u32>,
    plan: Box<NicPlan>,
}

/// An empty state, the placeholder while a run holds the router (`std::mem::take`).
impl Default for RouterState {
    fn default() -> RouterState {
        let policy = Policy { routing: Routing::Static, seed: 0, nics_used: 0, pinning: Pinning::Aligned };
        let plan = Box::default();
        RouterState { policy, intra: IntraPaths::default(), nic_of_gpu: Vec::new(), plan }
    }
}

impl<'t> Router<'t> {
    /// A router whose GPUs each use their own NIC (or the closest allowed one).
    pub fn new(topology: &'t Topology, policy: Policy) -> Router<'t> {
        let mut router = Router {
            topology,
            policy,
            intra: IntraPaths::default(),
            nic_of_gpu: Vec::new(),
            plan: Box::default(),
        };
        router.nic_of_gpu = router.pick_nics(policy.nics_used);
        router.plan.own = router.pick_nics(topology.nics_per_node());
        for (id, vertex) in topology.vertices() {
            if let (VertexKind::NvSwitch, Some(node)) = (vertex.kind, vertex.node) {
                let slots = &mut router.plan.nvswitches;
                if slots.len() <= node as usize {
                    slots.resize(node as usize + 1, None);
                }
                // The first, as the scan this replaces found it.
                slots[node as usize].get_or_insert(id);
            }
        }
        router
    }

    /// A router for `transfers`: their connections between nodes spread over the NICs in use
    /// (`NicPlan`, see the module's documentation).
    pub fn for_transfers(topology: &'t Topology, policy: Policy, transfers: &[Transfer]) -> Router<'t> {
        let mut router = Router::new(topology, policy);
        if policy.pinning == Pinning::Aligned && !router.plan.own.is_empty() {
            let (send, recv) = router.plan_nics(transfers);
            (router.plan.send, router.plan.recv) = (send, recv);
        }
        router
    }

    /// Whether a connection's route is the same on every channel: static routes (ECMP hashes
    /// the channel in, adaptive routes read the load) and every connection on its GPU's own NIC
    /// (a GPU whose own NIC is not in use takes the least-loaded one, which depends on the
    /// connections placed before it, channel by channel: `plan_nics`). A router for a channel's
    /// transfers then routes them as a router for every channel's does.
    pub fn channels_route_alike(&self) -> bool {
        let own_nics = self.policy.pinning != Pinning::Aligned
            || self.plan.own.iter().all(|&nic| nic < self.policy.nics_used);
        self.policy.routing == Routing::Static && own_nics
    }

    /// The router without its topology.
    pub fn into_state(self) -> RouterState {
        let Router { policy, intra, nic_of_gpu, plan, .. } = self;
        RouterState { policy, intra, nic_of_gpu, plan }
    }

    /// The router again, on the topology it was made for.
    pub fn resume(topology: &'t Topology, state: RouterState) -> Router<'t> {
        let RouterState { policy, intra, nic_of_gpu, plan } = state;
        Router { topology, policy, intra, nic_of_gpu, plan }
    }

    /// Each crossing connection's NIC, for sends and for receives: its GPU's own NIC when the
    /// job may use it (NCCL's point-to-point connections stay on the GPU's NIC), else the
    /// least-loaded NIC in use, counting every connection already placed (ties to the lower
    /// index). Connections are taken by channel, then GPU.
    fn plan_nics(&self, transfers: &[Transfer]) -> (ConnectionNics, ConnectionNics) {
        let t = self.topology;
        let g = t.gpus_per_node();
        let mut sends = std::collections::BTreeSet::new();
        let mut recvs = std::collections::BTreeSet::new();
        for transfer in transfers.iter().filter(|tr| tr.hop == Hop::Peer) {
            let (src, dst) = (transfer.src, transfer.dst);
            if src / g != dst / g {
                sends.insert((transfer.channel, src % g));
                recvs.insert((transfer.channel, dst % g));
            }
        }
        let used = self.policy.nics_used;
        let spread = |pairs: std::collections::BTreeSet<(u32, u32)>| {
            let mut load = vec![0u32; used as usize];
            let mut out = BTreeMap::new();
            let (own, rest): (Vec<_>, Vec<_>) =
                pairs.into_iter().partition(|&(_, local)| self.plan.own[local as usize] < used);
            for (channel, local) in own {
                let nic = self.plan.own[local as usize];
                load[nic as usize] += 1;
                out.insert((local, channel), nic);
            }
            for (channel, local) in rest {
                let nic = (0..used).min_by_key(|&n| (load[n as usize], n)).unwrap_or(0);
                load[nic as usize] += 1;
                out.insert((local, channel), nic);
            }
            out
        };
        (spread(sends), spread(recvs))
    }

    /// Each GPU's NIC among the first `used`: the one with the cheapest path (aligned), or the
    /// one half the NICs away, on the other socket (misaligned).
    fn pick_nics(&mut self, used: u32) -> Vec<u32> {
        let t = self.topology;
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
        let (src_gpu_local, dst_gpu_local) = (t.vertex(src_gpu).local, t.vertex(dst_gpu).local);
        let dst_local = self.connection_nic(false, dst_gpu_local, key);
        let src_local =
            if self.rail_aligned() { dst_local } else { self.connection_nic(true, src_gpu_local, key) };
        let src_nic = t.fabric.nics[(src_node * nics + src_local) as usize];
        let dst_nic = t.fabric.nics[(dst_node * nics + dst_local) as usize];

        let mut path = self.gpu_nic(false, src_node, src_gpu_local, src_local);
        path.push(src_nic.up);
        path.extend(self.fabric(
            src_nic.leaf,
            dst_nic.leaf,
            dst_nic.address,
            (src_nic.address, dst_nic.address, key),
            load,
        ));
        path.push(dst_nic.up.reverse());
        path.extend(self.gpu_nic(true, dst_node, dst_gpu_local, dst_local));
        path
    }

    /// Whether a connection between nodes sends through its node's NIC on the destination's
    /// rail (an aligned job on a rail-optimised fabric of several leaves: NCCL's PXN).
    fn rail_aligned(&self) -> bool {
        let plan = self.topology.fabric.plan.as_ref().expect("a multi-node topology has a fabric");
        self.policy.pinning == Pinning::Aligned && plan.wiring == Wiring::Rail && plan.leaves > 1
    }

    /// The NIC a connection (GPU `local`, channel `channel`) sends (`send`) or receives through.
    fn connection_nic(&self, send: bool, local: u32, channel: u32) -> u32 {
        let plan = if send { &self.plan.send } else { &self.plan.recv };
        plan.get(&(local, channel)).copied().unwrap_or(self.nic_of_gpu[local as usize])
    }

    /// The path from GPU `local` of `node` to the node's NIC `nic`, or back (`inbound`). Aligned
    /// jobs reach another GPU's NIC the way NCCL's PXN does: over NVLink to the GPU that NIC
    /// belongs to, then over its PCIe link; misaligned ones go the way the process is bound:
    /// over PCIe and the CPUs.
    fn gpu_nic(&mut self, inbound: bool, node: u32, local: u32, nic: u32) -> Vec<LinkId> {
        let t = self.topology;
        let gpu = t.gpu(node * t.gpus_per_node() + local);
        let nic_vertex = t.fabric.nics[(node * t.nics_per_node() + nic) as usize].vertex;
        let aligned = self.policy.pinning == Pinning::Aligned;
        let owner = self.plan.own.iter().position(|&own| own == nic).map(|g| g as u32);
        let hops = match owner {
            Some(owner) if aligned && self.plan.own[local as usize] != nic => {
                vec![
                    (gpu, t.gpu(node * t.gpus_per_node() + owner), false),
                    (t.gpu(node * t.gpus_per_node() + owner), nic_vertex, false),
                ]
            }
            _ => vec![(gpu, nic_vertex, aligned)],
        };
        let mut path = Vec::new();
        if inbound {
            for &(a, b, through) in hops.iter().rev() {
                path.extend(self.intra(b, a, through));
            }
        } else {
            for &(a, b, through) in &hops {
                path.extend(self.intra(a, b, through));
            }
        }
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
        let switch = match t.vertex(gpu).node {
            Some(node) => self.plan.nvswitches.get(node as usize).copied().flatten(),
            None => t
                .vertices()
                .find(|(_, v)| v.kind == VertexKind::NvSwitch && v.node.is_none())
                .map(|(id, _)| id),
        };
        switch.expect("NVLS runs only on nodes with an NVSwitch")
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
        let per_pod = plan.leaves_per_pod;
        let (src_pod, dst_pod) = (plan.pod_of_leaf(src_leaf), plan.pod_of_leaf(dst_leaf));
        let dst_in_pod = (dst_leaf % per_pod) as usize;
        let t = self.topology;
        let j = if t.down.is_empty() {
            self.choose(0, ups, address, 1, flow, load)
        } else {
            // The subnet manager's D-mod-K, ECMP's hash and adaptive routing all choose among
            // the up-links that still reach the destination leaf (validation keeps one).
            let live: Vec<usize> = (0..ups.len())
                .filter(|&j| !t.is_down(ups[j]) && !t.is_down(index.mid_down[j][dst_in_pod]))
                .collect();
            let links: Vec<LinkId> = live.iter().map(|&j| ups[j]).collect();
            live[self.choose(0, &links, address, 1, flow, load)]
        };
        let leaf_up = ups[j];
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

#[cfg(test)]
mod tests;
