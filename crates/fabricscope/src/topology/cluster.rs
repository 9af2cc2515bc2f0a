//! Builder: N identical nodes, each GPU with its own NIC, all NICs on one fabric switch.
//!
//! ```text
//!            node 0                              node 1
//!   ┌────────── NVSwitch ─────────┐     ┌────────── NVSwitch ─────────┐
//!   │  │  │  │  │  │  │  │        │     │  │  │  │  │  │  │  │        │  NVLink (all of a GPU's links as one)
//!  GPU0 GPU1 ...            GPU7        GPU0 GPU1 ...            GPU7
//!   │  │  │  │  │  │  │  │              │  │  │  │  │  │  │  │          PCIe (GPU ↔ its NIC)
//!  NIC0 NIC1 ...            NIC7        NIC0 NIC1 ...            NIC7
//!    \___\___\___\___________ IB switch _________/___/___/___/          InfiniBand
//! ```
//!
//! The NVSwitch chips of a node (4 on DGX H100) are one non-blocking vertex; a GPU's NVLinks
//! into them are one link of `links × per-link rate`. The PCIe switch between a GPU and its
//! NIC is folded into the GPU ↔ NIC link: each GPU talks to its own NIC, so it is never shared.

use super::{LinkKind, Topology, Vertex, VertexKind};
use crate::scenario::{LinkOverride, ValidScenario};
use crate::units::Bandwidth;
use petgraph::graph::DiGraph;

/// Builds the cluster a scenario describes. Pure: same scenario, same ids.
pub fn build(scenario: &ValidScenario) -> Topology {
    let preset = scenario.preset();
    let links = &scenario.scenario().links;
    let nodes = scenario.scenario().nodes;

    let nvlink = resolve(
        &links.nvlink,
        preset.nvlink.line_rate().scale(preset.gpu.nvlink_links as f64),
        preset.nvlink.efficiency,
        preset.nvlink.latency_ns,
    );
    let pcie = resolve(&links.pcie, preset.pcie.line_rate(), preset.pcie.efficiency, preset.pcie.latency_ns);
    let nic = resolve(&links.nic, preset.nic.line_rate(), preset.nic.efficiency, preset.nic.latency_ns);

    let mut topology = Topology {
        graph: DiGraph::default(),
        gpus: Vec::new(),
        nodes,
        gpus_per_node: preset.gpus_per_node,
    };
    let switch = topology.add_vertex(Vertex { kind: VertexKind::Switch, node: None, local: 0 });
    for node in 0..nodes {
        let nvswitch = topology.add_vertex(Vertex { kind: VertexKind::NvSwitch, node: Some(node), local: 0 });
        for local in 0..preset.gpus_per_node {
            let gpu = topology.add_vertex(Vertex { kind: VertexKind::Gpu, node: Some(node), local });
            topology.gpus.push(gpu);
            topology.add_cable(gpu, nvswitch, LinkKind::NvLink, nvlink.0, nvlink.1, [nvlink.2; 2]);
            if local < preset.nics_per_node {
                let nic_vertex = topology.add_vertex(Vertex { kind: VertexKind::Nic, node: Some(node), local });
                topology.add_cable(gpu, nic_vertex, LinkKind::Pcie, pcie.0, pcie.1, [pcie.2; 2]);
                // NIC → switch pays the cable; switch → NIC also pays the switch's hop.
                let latency = [nic.2, nic.2 + preset.switch_hop_latency_ns];
                topology.add_cable(nic_vertex, switch, LinkKind::Network, nic.0, nic.1, latency);
            }
        }
    }
    topology
}

fn resolve(over: &LinkOverride, line_rate: Bandwidth, efficiency: f64, latency_ns: u64) -> (Bandwidth, f64, u64) {
    (
        over.bandwidth_gbyte_per_s.map(Bandwidth::from_gbyte_per_s).unwrap_or(line_rate),
        over.efficiency.unwrap_or(efficiency),
        over.latency_ns.unwrap_or(latency_ns),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    #[test]
    fn dgx_h100_figures() {
        let mut scenario = Scenario::default_demo();
        scenario.nodes = 2;
        let topology = build(&scenario.validate().unwrap());
        assert_eq!(topology.n_gpus(), 16);
        // 1 switch + 2 × (NVSwitch + 8 GPUs + 8 NICs).
        assert_eq!(topology.vertices().count(), 35);
        // 2 × 8 × (NVLink + PCIe + network) cables, two directions each.
        assert_eq!(topology.n_links(), 96);
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
}
