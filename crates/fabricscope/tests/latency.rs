//! A step's latency. NCCL's per-step figures were fitted to whole steps on its own hardware,
//! wire included, so on that hardware the engine charges a step NCCL's figure exactly, and a
//! path adds only what its links take beyond that wire (`protocol::measured_wire_ns`).

use fabricscope::catalog::Technology;
use fabricscope::collective::protocol::{measured_wire_ns, Protocol};
use fabricscope::collective::Algorithm;
use fabricscope::engine::flow_latency_ns;
use fabricscope::routing::Router;
use fabricscope::scenario::FabricConfig;
use fabricscope::topology::{LinkId, LinkKind, Topology};
use fabricscope::{simulate, Collective, Scenario, ValidScenario};

const ALGORITHMS: [Algorithm; 6] = [
    Algorithm::Ring,
    Algorithm::Tree,
    Algorithm::CollNet,
    Algorithm::Pat,
    Algorithm::Nvls,
    Algorithm::NvlsTree,
];
const PROTOCOLS: [Protocol; 3] = [Protocol::Ll, Protocol::Ll128, Protocol::Simple];

fn valid(nodes: u32, fabric: FabricConfig) -> ValidScenario {
    Scenario { nodes, fabric, ..Scenario::default_demo() }.validate().unwrap()
}

/// The route from rank `a` to rank `b` on channel 0, as the engine takes it at rest.
fn route(scenario: &ValidScenario, topology: &Topology, a: u32, b: u32) -> Vec<LinkId> {
    let mut router = Router::new(topology, scenario.policy());
    router.route(a, b, 0, &vec![0; topology.n_links()])
}

/// On a DGX H100 with InfiniBand, the hardware NCCL's figures come from, an NVLink step's
/// path and a network step's take exactly the wire those figures count, so every algorithm
/// and protocol is charged NCCL's own per-step figure (before, the links' 0.5 and 1.95 µs were
/// added to it: an LL ring's NVLink step 1.1 µs where NCCL's table says 0.6).
#[test]
fn on_nccls_own_hardware_a_step_costs_nccls_figure() {
    let scenario = valid(2, FabricConfig::default());
    let topology = scenario.topology();
    for (b, class) in [(1, LinkKind::NvLink), (8, LinkKind::Network)] {
        let path = route(&scenario, &topology, 0, b);
        assert_eq!(topology.path_class(&path), class);
        assert_eq!(topology.path_latency_ns(&path), measured_wire_ns(class), "{class:?}");
        for algorithm in ALGORITHMS {
            for protocol in PROTOCOLS {
                assert_eq!(
                    flow_latency_ns(&topology, &path, algorithm, protocol),
                    protocol.step_latency_ns(algorithm, class),
                    "{algorithm:?} {protocol:?} over {class:?}"
                );
            }
        }
    }
}

/// A path slower than that wire adds the difference, to the nanosecond: TCP's NICs (15 µs
/// each where InfiniBand's take 0.3), a spine's two more hops on 128 nodes, a NIC the scenario
/// slows to 4 µs.
#[test]
fn a_slower_path_adds_what_its_links_take_beyond_the_wire() {
    let tcp = FabricConfig { technology: Technology::Tcp, ..FabricConfig::default() };
    let mut slow_nic = Scenario { nodes: 2, ..Scenario::default_demo() };
    slow_nic.links.nic.latency_ns = Some(4_000);
    let cases = [
        ("TCP", valid(2, tcp), 8, 31_800),
        ("spine", valid(128, FabricConfig::default()), 8 * 127, 2_250),
        ("NIC at 4 µs", slow_nic.validate().unwrap(), 8, 1_950 + 2 * 3_700),
    ];
    for (what, scenario, b, links) in cases {
        let topology = scenario.topology();
        let path = route(&scenario, &topology, 0, b);
        assert_eq!(topology.path_latency_ns(&path), links, "{what}");
        for protocol in PROTOCOLS {
            let step = protocol.step_latency_ns(Algorithm::Ring, LinkKind::Network);
            let want = step + links - measured_wire_ns(LinkKind::Network);
            assert_eq!(
                flow_latency_ns(&topology, &path, Algorithm::Ring, protocol),
                want,
                "{what} {protocol:?}"
            );
        }
    }
}

/// Where latency is all there is (8 B), a run the engine times step by step takes the time
/// NCCL's model gives it, within 0.1%: a ring on one node under each protocol, a chain, and
/// NCCL's trees across 16 nodes. With the links' latencies added to NCCL's figures, the ring
/// under LL took 22.0 µs where the model gives 15.0, and the trees 77.8 µs where it gives 55.2.
#[test]
fn latency_bound_runs_take_nccls_model_time() {
    let mut cases = Vec::new();
    for protocol in PROTOCOLS {
        cases.push((1, Collective::AllReduce, Algorithm::Ring, protocol));
        cases.push((1, Collective::Broadcast, Algorithm::Ring, protocol));
    }
    cases.push((16, Collective::AllReduce, Algorithm::Tree, Protocol::Ll));
    cases.push((16, Collective::AllReduce, Algorithm::Tree, Protocol::Ll128));
    for (nodes, collective, algorithm, protocol) in cases {
        let scenario = Scenario {
            nodes,
            collective,
            size_bytes: 8,
            algorithm: Some(algorithm),
            protocol: Some(protocol),
            ..Scenario::default_demo()
        };
        let sim = simulate(&scenario.validate().unwrap()).unwrap();
        let row =
            sim.tuning.rows.iter().find(|r| r.algorithm == algorithm && r.protocol == protocol).unwrap();
        let (engine, model) = (sim.summary.time.as_ns() as f64, row.predicted_ns);
        println!(
            "{nodes} nodes {collective:?} {algorithm:?} {protocol:?}: engine {engine} ns, model {model} ns"
        );
        assert!(
            (engine / model - 1.0).abs() <= 0.001,
            "{nodes} nodes {collective:?} {algorithm:?} {protocol:?}: {engine} ns against {model}"
        );
    }
}
