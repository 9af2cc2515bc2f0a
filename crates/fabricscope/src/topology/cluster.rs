//! Builder: N identical nodes, each GPU with its own NIC, on the fabric a `FabricPlan` describes.
//!
//! ```text
//!            node 0 (DGX H100)
//!   ┌──────────────── NVSwitch ───────────────┐   NVLink (all of a GPU's links as one)
//!  GPU0 GPU1   GPU2 GPU3   GPU4 GPU5   GPU6 GPU7
//!    \ /        \ /        \ /        \ /         PCIe
//!   PCIe sw0   PCIe sw1   PCIe sw2   PCIe sw3 ── CPU 0 ═══ UPI ═══ CPU 1 (root complexes)
//!    / \        / \        / \        / \         PCIe
//!  NIC0 NIC1   NIC2 NIC3   NIC4 NIC5   NIC6 NIC7
//!    \___\___ leaf switches (one, or per rail, or per node) ___/___/    network
//!                 spines / aggregation / core (fabric.rs)
//! ```
//!
//! The NVSwitch chips of a node (4 on DGX H100) are one non-blocking vertex; a GPU's NVLinks
//! into them are one link of `links × per-link rate`. DGX-1 has no NVSwitch: its NVLinks join
//! fixed pairs (`catalog::node`). A PCIe server has neither. Going through a CPU's root complex
//! costs `ROOT_COMPLEX_LATENCY_NS` more than through a PCIe switch.
//! Every fabric cable runs at the NIC's line rate. Latency: a NIC adds the technology's NIC
//! latency on its hop, and every switch adds its hop latency on the link it sends out on.

use super::FabricPlan;
use super::{FabricIndex, LinkId, LinkKind, Topology, Vertex, VertexId, VertexKind};
use crate::catalog::{
    NodeFabric, NodeSpec, ROOT_COMPLEX_LATENCY_NS, SOCKET_LINK, SRIOV_EFFICIENCY, SRIOV_LATENCY_NS,
};
use crate::scenario::{FabricTopology, LinkOverride, Scenario};
use crate::units::Bandwidth;
use petgraph::graph::DiGraph;

/// One kind of link's figures in force.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkFigure {
    /// Line rate per direction.
    pub line_rate: Bandwidth,
    /// Fraction of the line rate data moves at.
    pub efficiency: f64,
    /// One hop's latency [ns].
    pub latency_ns: u64,
}

/// The figures each kind of link runs at, before SR-IOV (`ValidScenario::link_figures`): the
/// scenario's overrides, else the node's parts, and for the NIC the fabric technology's
/// efficiency and latency. A GPU's NVLinks count as one link. The builder and the page's
/// controls both read them here.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkFigures {
    pub nvlink: LinkFigure,
    pub pcie: LinkFigure,
    pub nic: LinkFigure,
}

/// The link figures a scenario's overrides leave on `preset` (`LinkFigures`).
pub fn link_figures(s: &Scenario, preset: &NodeSpec) -> LinkFigures {
    let links = &s.links;
    let tech = s.fabric.technology.spec();
    let nvlink_links = preset.gpu.nvlink_links as f64;
    LinkFigures {
        nvlink: resolve(
            &links.nvlink,
            preset.nvlink.line_rate().scale(nvlink_links),
            preset.nvlink.efficiency,
            preset.nvlink.latency_ns,
        ),
        pcie: resolve(&links.pcie, preset.pcie.line_rate(), preset.pcie.efficiency, preset.pcie.latency_ns),
        nic: resolve(&links.nic, preset.nic.line_rate(), tech.nic_efficiency, tech.nic_latency_ns),
    }
}

/// Builds the cluster a validated scenario describes (`ValidScenario::topology`): its nodes
/// are `preset`, its fabric is `plan`. Pure: same scenario, same ids.
pub fn build(s: &Scenario, preset: &NodeSpec, plan: &FabricPlan) -> Topology {
    let tech = s.fabric.technology.spec();
    let plan = plan.clone();

    let figures = link_figures(s, preset);
    let tuple = |f: LinkFigure| (f.line_rate, f.efficiency, f.latency_ns);
    let (nvlink, pcie) = (tuple(figures.nvlink), tuple(figures.pcie));
    let (nic_rate, mut nic_eff, mut nic_lat) = tuple(figures.nic);
    if s.virtualized {
        nic_eff *= SRIOV_EFFICIENCY;
        nic_lat += SRIOV_LATENCY_NS;
    }
    let hop = tech.switch_hop_latency_ns;

    let mut topology = Topology {
        graph: DiGraph::default(),
        gpus: Vec::new(),
        nodes: s.nodes,
        gpus_per_node: preset.gpus_per_node,
        fabric: FabricIndex::default(),
        congested_efficiency: s.fabric.congested_efficiency.unwrap_or(tech.congested_efficiency),
        nvls_efficiency: match preset.gpu_fabric {
            crate::catalog::NodeFabric::NvSwitch { generation } => {
                crate::catalog::nvls_efficiency(generation)
            }
            _ => crate::catalog::NVLS_EFFICIENCY,
        },
        technology: s.fabric.technology,
        trays: preset.trays,
        down: Vec::new(),
        faults: Vec::new(),
    };
    let switch =
        |topology: &mut Topology, kind, local| topology.add_vertex(Vertex { kind, node: None, local });
    let leaves: Vec<VertexId> =
        (0..plan.leaves).map(|i| switch(&mut topology, VertexKind::Leaf, i)).collect();
    let mids: Vec<VertexId> = (0..plan.spines).map(|i| switch(&mut topology, VertexKind::Spine, i)).collect();
    let cores: Vec<VertexId> = (0..plan.cores).map(|i| switch(&mut topology, VertexKind::Core, i)).collect();

    let mut fabric = FabricIndex {
        leaves: leaves.clone(),
        leaf_up: vec![Vec::new(); plan.leaves as usize],
        mid_down: vec![Vec::new(); plan.spines as usize],
        mid_up: vec![Vec::new(); plan.spines as usize],
        core_down: vec![Vec::new(); plan.cores as usize],
        ..FabricIndex::default()
    };
    for node in 0..s.nodes {
        let vertex = |topology: &mut Topology, kind, local| {
            topology.add_vertex(Vertex { kind, node: Some(node), local })
        };
        let nvswitch = match preset.gpu_fabric {
            NodeFabric::NvSwitch { .. } => Some(vertex(&mut topology, VertexKind::NvSwitch, 0)),
            _ => None,
        };
        // The PCIe tree: CPUs, the socket link, PCIe switches under their CPU.
        let cpus: Vec<VertexId> =
            (0..preset.sockets).map(|i| vertex(&mut topology, VertexKind::Cpu, i)).collect();
        for pair in cpus.windows(2) {
            let socket = SOCKET_LINK;
            topology.add_cable(
                pair[0],
                pair[1],
                LinkKind::Socket,
                socket.line_rate(),
                socket.efficiency,
                [socket.latency_ns; 2],
            );
        }
        let switches: Vec<VertexId> =
            (0..preset.pcie_switches).map(|i| vertex(&mut topology, VertexKind::PcieSwitch, i)).collect();
        let root = pcie.2 + ROOT_COMPLEX_LATENCY_NS;
        for (i, &switch) in switches.iter().enumerate() {
            if let Some(&cpu) = cpus.get(preset.switch_socket(i as u32) as usize) {
                topology.add_cable(switch, cpu, LinkKind::Pcie, pcie.0, pcie.1, [root; 2]);
            }
        }
        let mut gpus = Vec::new();
        for local in 0..preset.gpus_per_node {
            let gpu = vertex(&mut topology, VertexKind::Gpu, local);
            topology.gpus.push(gpu);
            gpus.push(gpu);
            if let Some(nvswitch) = nvswitch {
                topology.add_cable(gpu, nvswitch, LinkKind::NvLink, nvlink.0, nvlink.1, [nvlink.2; 2]);
            }
            let switch = switches[preset.gpu_switch(local) as usize];
            topology.add_cable(gpu, switch, LinkKind::Pcie, pcie.0, pcie.1, [pcie.2; 2]);
        }
        if let NodeFabric::Mesh(pairs) = &preset.gpu_fabric {
            // Each pair's links as one link; its share of the GPU's NVLink bandwidth.
            for &(a, b, count) in pairs {
                let rate = nvlink.0.scale(count as f64 / preset.gpu.nvlink_links as f64);
                topology.add_cable(
                    gpus[a as usize],
                    gpus[b as usize],
                    LinkKind::NvLink,
                    rate,
                    nvlink.1,
                    [nvlink.2; 2],
                );
            }
        }
        for local in 0..preset.nics_per_node {
            let nic = vertex(&mut topology, VertexKind::Nic, local);
            let switch = switches[preset.nic_switch(local) as usize];
            topology.add_cable(nic, switch, LinkKind::Pcie, pcie.0, pcie.1, [pcie.2; 2]);
            let (leaf, port) = plan.attach(node, local);
            let up = topology.add_cable(
                nic,
                leaves[leaf as usize],
                LinkKind::Network,
                nic_rate,
                nic_eff,
                [nic_lat, hop + nic_lat],
            );
            fabric.nics.push(super::NicAttach { vertex: nic, leaf, up, address: leaf * plan.down + port });
        }
    }
    // Leaf ↔ spine (2-tier) or edge ↔ aggregation within each pod (3-tier): one cable per pair.
    for leaf in 0..plan.leaves {
        let pod = plan.pod_of_leaf(leaf);
        for j in 0..plan.up.min(plan.spines) {
            let mid = if plan.kind == FabricTopology::FatTree { pod * plan.up + j } else { j };
            let link = topology.add_cable(
                leaves[leaf as usize],
                mids[mid as usize],
                LinkKind::Network,
                nic_rate,
                nic_eff,
                [hop; 2],
            );
            fabric.leaf_up[leaf as usize].push(link);
            fabric.mid_down[mid as usize].push(link.reverse());
        }
    }
    // Aggregation ↔ core: core (j, i) links agg j of every pod.
    let half = plan.radix / 2;
    for pod in 0..plan.pods.min(if plan.cores > 0 { plan.pods } else { 0 }) {
        for j in 0..plan.up {
            let mid = pod * plan.up + j;
            for i in 0..half {
                let core = j * half + i;
                let link = topology.add_cable(
                    mids[mid as usize],
                    cores[core as usize],
                    LinkKind::Network,
                    nic_rate,
                    nic_eff,
                    [hop; 2],
                );
                fabric.mid_up[mid as usize].push(link);
                fabric.core_down[core as usize].push(link.reverse());
            }
        }
    }
    fabric.plan = Some(plan);
    topology.fabric = fabric;
    apply_faults(&mut topology, s);
    topology
}

/// The scenario's faults on the built cluster (validation checked their indices).
fn apply_faults(topology: &mut Topology, s: &Scenario) {
    use crate::scenario::FaultKind;
    for fault in &s.faults {
        let links: Vec<LinkId> = match fault.kind {
            FaultKind::Nic => {
                let nics = topology.nics_per_node();
                vec![topology.fabric.nics[(fault.node * nics + fault.index) as usize].up]
            }
            FaultKind::Nvlink => {
                let gpu = topology.gpu(fault.node * topology.gpus_per_node() + fault.index);
                topology
                    .out_links(gpu)
                    .into_iter()
                    .filter(|&l| topology.link(l).kind == LinkKind::NvLink)
                    .collect()
            }
            FaultKind::Gpu => {
                topology.out_links(topology.gpu(fault.node * topology.gpus_per_node() + fault.index))
            }
            FaultKind::LeafUplink => vec![topology.fabric.leaf_up[fault.leaf as usize][fault.index as usize]],
            FaultKind::Spine => topology.fabric.leaf_up.iter().map(|ups| ups[fault.index as usize]).collect(),
        };
        for link in links {
            topology.degrade(link, fault.rate);
        }
    }
}

fn resolve(over: &LinkOverride, line_rate: Bandwidth, efficiency: f64, latency_ns: u64) -> LinkFigure {
    let (rate, efficiency, latency_ns) = over.resolve(line_rate.gbyte_per_s(), efficiency, latency_ns);
    LinkFigure { line_rate: Bandwidth::from_gbyte_per_s(rate), efficiency, latency_ns }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{FabricConfig, Scenario, Wiring};

    #[test]
    fn dgx_h100_figures() {
        let mut scenario = Scenario::default_demo();
        scenario.nodes = 2;
        let topology = scenario.validate().unwrap().topology();
        assert_eq!(topology.n_gpus(), 16);
        // 1 switch + 2 × (NVSwitch + 2 CPUs + 4 PCIe switches + 8 GPUs + 8 NICs).
        assert_eq!(topology.vertices().count(), 1 + 2 * 23);
        // Per node: 1 UPI + 4 switch-CPU + 8 × (NVLink + GPU PCIe) + 8 × (NIC PCIe + network) cables.
        assert_eq!(topology.n_links(), 2 * 2 * (1 + 4 + 16 + 16));
        let nvlink = topology.links().find(|(_, link)| link.kind == LinkKind::NvLink).unwrap().1;
        assert_eq!(nvlink.line_rate.gbyte_per_s(), 450.0);
        assert!((nvlink.capacity().gbyte_per_s() - 370.8).abs() < 1e-9);
        let network = topology.links().find(|(_, link)| link.kind == LinkKind::Network).unwrap().1;
        assert_eq!(network.line_rate.gbit_per_s(), 400.0);
        for (id, link) in topology.links() {
            let back = topology.link(id.reverse());
            assert_eq!((back.src, back.dst), (link.dst, link.src));
        }
    }

    /// The built graph has the plan's switches, cables, bisection and diameter.
    #[test]
    fn built_fabrics_match_their_closed_forms() {
        let cases = [
            (FabricTopology::LeafSpine, Wiring::Node, 16, 1.0, 16u32),
            (FabricTopology::LeafSpine, Wiring::Rail, 16, 1.0, 16),
            (FabricTopology::LeafSpine, Wiring::Node, 16, 3.0, 16),
            (FabricTopology::FatTree, Wiring::Node, 16, 1.0, 16),
            (FabricTopology::FatTree, Wiring::Rail, 16, 1.0, 64),
        ];
        for (kind, wiring, radix, r, nodes) in cases {
            let scenario = Scenario {
                nodes,
                channels: Some(1),
                fabric: FabricConfig {
                    topology: kind,
                    wiring,
                    radix: Some(radix),
                    oversubscription: r,
                    ..FabricConfig::default()
                },
                ..Scenario::default_demo()
            };
            let topology =
                scenario.validate().unwrap_or_else(|e| panic!("{kind:?} {wiring:?}: {e:?}")).topology();
            let summary = topology.fabric_summary();
            let plan = topology.fabric.plan.as_ref().unwrap();
            let nics = nodes * 8;
            let switches = topology
                .vertices()
                .filter(|(_, v)| matches!(v.kind, VertexKind::Leaf | VertexKind::Spine | VertexKind::Core))
                .count() as u32;
            assert_eq!(summary.switches, switches);
            let up_links = plan.leaves * plan.up + plan.spines * plan.cores.min(1) * (radix / 2);
            assert_eq!(summary.cables, nics + up_links, "{kind:?} {wiring:?}");
            let nic_gbyte = 50.0;
            let want_bisection =
                (nics as f64 / 2.0 * nic_gbyte).min(plan.leaves as f64 * plan.up as f64 / 2.0 * nic_gbyte);
            assert_eq!(summary.bisection_gbyte_per_s, want_bisection, "{kind:?} {wiring:?} r={r}");
            assert_eq!(summary.diameter, plan.diameter(), "{kind:?} {wiring:?}");
        }
    }
}
