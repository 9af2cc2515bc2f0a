//! Links below their rate or down: one slow NIC sets a ring's pace, the fabric routes around a
//! lost spine, and what it cannot route around is named.

use fabricscope::collective::{Algorithm, Protocol};
use fabricscope::scenario::{FabricConfig, FabricTopology, Fault, FaultKind, Wiring};
use fabricscope::{simulate, Scenario, Simulation};

fn nic(node: u32, index: u32, rate: f64) -> Fault {
    Fault { kind: FaultKind::Nic, node, leaf: 0, index, rate }
}

fn two_nodes(algorithm: Algorithm, faults: Vec<Fault>) -> Simulation {
    let s = Scenario {
        nodes: 2,
        size_bytes: 1 << 30,
        algorithm: Some(algorithm),
        protocol: Some(Protocol::Simple),
        nvls: false,
        faults,
        ..Scenario::default_demo()
    };
    simulate(&s.validate().unwrap()).unwrap()
}

#[test]
fn one_nic_at_half_rate_sets_the_whole_rings_pace_and_the_trees_less() {
    let healthy = two_nodes(Algorithm::Ring, vec![]);
    let slow = two_nodes(Algorithm::Ring, vec![nic(0, 3, 0.5)]);
    // Every channel carries an equal share, so the channel through the slow NIC finishes last:
    // the α-β line with that hop's rate is the run's time.
    let ab = slow.alpha_beta().unwrap();
    let ratio = slow.summary.time.as_ns() as f64 / ab.predicted_ns;
    assert!((ratio - 1.0).abs() < 0.02, "engine {} vs α-β {}", slow.summary.time, ab.predicted_ns);
    let ring_loss = slow.summary.time.as_ns() as f64 / healthy.summary.time.as_ns() as f64;
    assert!((ring_loss - 2.0).abs() < 0.05, "one NIC of 16 at half rate: the ring takes {ring_loss:.3}×");
    // The bottleneck is that NIC's port.
    let bottleneck = slow.summary.bottleneck.unwrap();
    assert!(
        slow.topology.vertex_name(slow.topology.link(bottleneck).src).contains("NIC 3")
            || slow.topology.vertex_name(slow.topology.link(bottleneck).dst).contains("NIC 3")
    );
    let tree_loss = two_nodes(Algorithm::Tree, vec![nic(0, 3, 0.5)]).summary.time.as_ns() as f64
        / two_nodes(Algorithm::Tree, vec![]).summary.time.as_ns() as f64;
    assert!(tree_loss < ring_loss, "the tree loses {tree_loss:.3}×, the ring {ring_loss:.3}×");
    println!("one NIC at half rate: ring {ring_loss:.3}×, tree {tree_loss:.3}×");
    // The step that waits on it: its transfer over the NIC takes twice its peers' time.
    let waits = slow.fault_waits();
    assert_eq!(waits.len(), 1);
    let worst = waits[0].worst.clone().expect("the ring crosses the slow NIC");
    let lag = worst.slow_ns as f64 / worst.others_ns as f64;
    assert!((lag - 2.0).abs() < 0.1, "step {} waits {lag:.3}× its peers: {worst:?}", worst.step);
    assert!(waits[0].transfers > 0 && worst.step < slow.schedule.n_steps);
    assert_eq!(healthy.fault_waits(), []);
}

#[test]
fn a_slow_gpu_holds_every_ring_that_passes_through_it() {
    let one_node = |faults: Vec<Fault>| {
        let s = Scenario {
            size_bytes: 1 << 30,
            algorithm: Some(Algorithm::Ring),
            protocol: Some(Protocol::Simple),
            nvls: false,
            faults,
            ..Scenario::default_demo()
        };
        simulate(&s.validate().unwrap()).unwrap()
    };
    let slow_gpu = Fault { kind: FaultKind::Gpu, node: 0, leaf: 0, index: 5, rate: 0.5 };
    let (healthy, slow) = (one_node(vec![]), one_node(vec![slow_gpu.clone()]));
    // Every ring of one node passes through GPU 5, so each runs at its pace: twice the time,
    // as the α-β line with that GPU's links at half rate says.
    let loss = slow.summary.time.as_ns() as f64 / healthy.summary.time.as_ns() as f64;
    assert!((loss - 2.0).abs() < 0.05, "a GPU at half pace: {loss:.3}×");
    let ab = slow.alpha_beta().unwrap();
    assert!((slow.summary.time.as_ns() as f64 / ab.predicted_ns - 1.0).abs() < 0.02);
    // All its links are marked: one NVLink and one PCIe cable.
    assert_eq!(slow.topology.faults.len(), 2);
    // Down is refused: NCCL does not route around a lost GPU.
    let mut s = Scenario { faults: vec![Fault { rate: 0.0, ..slow_gpu }], ..Scenario::default_demo() };
    assert_eq!(s.validate().unwrap_err()[0].field, "faults[0].rate");
    s.faults[0].rate = 0.5;
    s.faults[0].index = 8;
    assert_eq!(s.validate().unwrap_err()[0].field, "faults[0].index");
}

fn leaf_spine(nodes: u32, faults: Vec<Fault>) -> Scenario {
    Scenario {
        nodes,
        size_bytes: 64 << 20,
        algorithm: Some(Algorithm::Ring),
        faults,
        fabric: FabricConfig {
            topology: FabricTopology::LeafSpine,
            wiring: Wiring::Node,
            radix: Some(16),
            ..FabricConfig::default()
        },
        ..Scenario::default_demo()
    }
}

#[test]
fn d_mod_k_routes_around_a_lost_spine_and_every_leaf_still_reaches_every_other() {
    let lost = Fault { kind: FaultKind::Spine, node: 0, leaf: 0, index: 1, rate: 0.0 };
    let valid = leaf_spine(4, vec![lost]).validate().unwrap();
    let topology = valid.topology();
    let mut router = fabricscope::routing::Router::new(&topology, valid.policy());
    let load = vec![0; topology.n_links()];
    let n = valid.n_ranks();
    for src in 0..n {
        for dst in (0..n).filter(|&d| d != src) {
            let path = router.route(src, dst, src % 8, &load);
            assert!(!path.is_empty());
            assert!(path.iter().all(|&l| !topology.is_down(l)), "{src} → {dst} crosses the lost spine");
        }
    }
    let sim = simulate(&valid).unwrap();
    assert!(sim.trace.flows.iter().all(|f| f.path.iter().all(|&l| !topology.is_down(l))));
    let healthy = simulate(&leaf_spine(4, vec![]).validate().unwrap()).unwrap();
    assert!(sim.summary.time >= healthy.summary.time);
}

#[test]
fn what_the_fabric_cannot_route_around_is_named() {
    let error = |faults: Vec<Fault>, scenario: fn(Vec<Fault>) -> Scenario| -> String {
        scenario(faults)
            .validate()
            .unwrap_err()
            .iter()
            .map(|e| format!("{}: {}", e.field, e.problem))
            .collect()
    };
    let demo = |faults| Scenario { nodes: 2, faults, ..Scenario::default_demo() };
    assert!(error(vec![nic(0, 3, 0.0)], demo)
        .contains("faults[0].rate: 0 takes a GPU, its NIC or its NVLink down"));
    assert!(error(vec![nic(2, 0, 0.5)], demo).contains("faults[0].node: 2 is out of range"));
    assert!(error(vec![nic(0, 8, 0.5)], demo).contains("faults[0].index: 8 is out of range"));
    assert!(error(vec![nic(0, 0, 1.5)], demo).contains("faults[0].rate: 1.5 is out of range"));
    let spine = |index| Fault { kind: FaultKind::Spine, node: 0, leaf: 0, index, rate: 0.0 };
    assert!(error(vec![spine(0)], demo).contains("a spine fault needs a leaf_spine fabric"));
    // Every spine of the leaf-spine down: no two leaves share one.
    let four = |faults| leaf_spine(4, faults);
    let valid = four(vec![]).validate().unwrap();
    let all: Vec<Fault> = (0..valid.fabric_plan().spines).map(spine).collect();
    assert!(error(all, four).contains("share no working spine"), "{}", error(vec![], four));
}
