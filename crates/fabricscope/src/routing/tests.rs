//! The router's paths inside and across nodes, and each GPU's NIC.

use super::*;

/// A scenario's topology and its routing policy with static routing and seed 0.
fn static_of(scenario: &crate::scenario::Scenario) -> (Topology, Policy) {
    let valid = scenario.validate().unwrap();
    (valid.topology(), Policy { routing: Routing::Static, seed: 0, ..valid.policy() })
}

mod paths {
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
