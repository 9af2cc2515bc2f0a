//! NCCL's newer algorithms (NVLSTree, PAT) where its tuner picks them, and the textbook ones
//! (halving-doubling, all-pairs, Bruck) beside them for comparison: each in the tuner's table,
//! the textbook ones never its choice, and each named when it does not apply.

use fabricscope::collective::{Algorithm, Hop, Protocol};
use fabricscope::scenario::CustomShape;
use fabricscope::{simulate, Collective, Scenario, Simulation};

fn run(scenario: Scenario) -> Simulation {
    simulate(&scenario.validate().unwrap()).unwrap()
}

fn error(scenario: Scenario) -> String {
    let errors = scenario.validate().unwrap_err();
    errors.iter().map(|e| format!("{}: {}", e.field, e.problem)).collect::<Vec<_>>().join("; ")
}

/// `nodes` nodes of one GPU each (a custom node of 1 GPU and its NIC).
fn one_gpu_nodes(nodes: u32, collective: Collective, size_bytes: u64) -> Scenario {
    let custom: fabricscope::scenario::CustomNode = serde_json::from_value(serde_json::json!({
        "shape": "star", "gpus": 1, "link": {"bandwidth_gbyte_per_s": 400}
    }))
    .unwrap();
    assert_eq!(custom.shape, CustomShape::Star);
    Scenario {
        preset: "custom".into(),
        custom: Some(custom),
        nodes,
        collective,
        size_bytes,
        ..Scenario::default_demo()
    }
}

#[test]
fn nvlstree_is_nccls_pick_for_large_allreduce_across_h100_nodes_and_beats_ring_and_tree() {
    let two = |algorithm: Option<Algorithm>, nvls: bool| {
        run(Scenario { nodes: 2, size_bytes: 1 << 30, algorithm, nvls, ..Scenario::default_demo() })
    };
    let auto = two(None, true);
    assert_eq!(auto.schedule.algorithm, Algorithm::NvlsTree);
    let (ring, tree) = (two(Some(Algorithm::Ring), true), two(Some(Algorithm::Tree), true));
    assert!(auto.summary.time < ring.summary.time && auto.summary.time < tree.summary.time);
    // Inside a node the switch reduces; between nodes GPU k talks only to GPU k (its rail).
    for (t, flow) in auto.schedule.transfers.iter().zip(&auto.trace.flows) {
        if t.hop == Hop::Peer {
            assert_eq!(t.src % 8, t.dst % 8);
            assert!(flow
                .path
                .iter()
                .any(|&l| auto.topology.link(l).kind == fabricscope::topology::LinkKind::Network));
        }
    }
    // NCCL_NVLS_ENABLE=0: no NVLSTree in the table at all.
    let off = two(None, false);
    assert!(off.tuning.rows.iter().all(|r| r.algorithm != Algorithm::NvlsTree));
    // Not on one node, nor on a gen2 NVSwitch.
    let one = Scenario { algorithm: Some(Algorithm::NvlsTree), ..Scenario::default_demo() };
    assert!(error(one).contains("algorithm: NVLSTree"), "one node");
    let a100 = Scenario {
        preset: "dgx-a100".into(),
        nodes: 2,
        algorithm: Some(Algorithm::NvlsTree),
        ..Scenario::default_demo()
    };
    assert!(error(a100).contains("algorithm: NVLSTree"), "DGX A100");
}

#[test]
fn pat_is_picked_for_small_allgathers_at_one_gpu_per_node_and_only_there() {
    // 32 nodes of one GPU: PAT's log2 32 = 5 network steps against the ring's 31.
    let small = run(one_gpu_nodes(32, Collective::AllGather, 32 << 10));
    assert_eq!(small.schedule.algorithm, Algorithm::Pat, "{:?}", small.tuning.choice());
    let ring = run(Scenario {
        algorithm: Some(Algorithm::Ring),
        ..one_gpu_nodes(32, Collective::AllGather, 32 << 10)
    });
    assert!(
        small.summary.time < ring.summary.time,
        "PAT {} vs ring {}",
        small.summary.time,
        ring.summary.time
    );
    assert_eq!(small.schedule.n_steps, 5);
    let scatter = run(one_gpu_nodes(32, Collective::ReduceScatter, 32 << 10));
    assert_eq!(scatter.schedule.algorithm, Algorithm::Pat);
    // On 8-GPU nodes NCCL does not enable PAT: not in the table, and forcing it is named.
    let dgx = run(Scenario { nodes: 4, collective: Collective::AllGather, ..Scenario::default_demo() });
    assert!(dgx.tuning.rows.iter().all(|r| r.algorithm != Algorithm::Pat));
    let forced = Scenario {
        nodes: 4,
        collective: Collective::AllGather,
        algorithm: Some(Algorithm::Pat),
        ..Scenario::default_demo()
    };
    assert!(error(forced).contains("PAT runs with one GPU per node"));
    let allreduce =
        Scenario { algorithm: Some(Algorithm::Pat), ..one_gpu_nodes(4, Collective::AllReduce, 1 << 20) };
    assert!(error(allreduce).contains("PAT runs AllGather and ReduceScatter"));
    // Simple only, as in NCCL.
    let ll = Scenario {
        algorithm: Some(Algorithm::Pat),
        protocol: Some(Protocol::Ll),
        ..one_gpu_nodes(4, Collective::AllGather, 1 << 20)
    };
    assert!(error(ll).contains("protocol: PAT runs with Simple only"));
}

#[test]
fn textbook_algorithms_are_in_the_table_but_never_the_choice() {
    for size in [1u64 << 10, 1 << 20, 64 << 20] {
        for collective in [Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter] {
            let sim = run(Scenario { nodes: 2, collective, size_bytes: size, ..Scenario::default_demo() });
            for algorithm in [Algorithm::HalvingDoubling, Algorithm::AllPairs] {
                assert!(
                    sim.tuning.rows.iter().any(|r| r.algorithm == algorithm),
                    "{collective:?}: {algorithm:?} weighed"
                );
            }
            assert!(
                sim.tuning.choice().algorithm.is_nccls(),
                "{collective:?} {size}: {:?}",
                sim.tuning.choice()
            );
        }
    }
    let alltoall = run(Scenario { nodes: 2, collective: Collective::AllToAll, ..Scenario::default_demo() });
    assert!(alltoall.tuning.rows.iter().any(|r| r.algorithm == Algorithm::Bruck));
    assert_eq!(alltoall.schedule.algorithm, Algorithm::Direct);
}

#[test]
fn a_textbook_algorithm_that_does_not_apply_is_named() {
    // 3 DGX-1 nodes: 24 ranks, not a power of two.
    let odd = Scenario { nodes: 3, algorithm: Some(Algorithm::HalvingDoubling), ..Scenario::default_demo() };
    assert!(error(odd).contains("needs a power of two of them, and there are 24"));
    let bruck = Scenario { algorithm: Some(Algorithm::Bruck), ..Scenario::default_demo() };
    assert!(error(bruck).contains("Bruck does not run AllReduce"));
    let big = Scenario { nodes: 16, algorithm: Some(Algorithm::AllPairs), ..Scenario::default_demo() };
    assert!(error(big).contains("all-pairs AllReduce runs on at most 64 ranks"));
    let broadcast = Scenario {
        collective: Collective::Broadcast,
        algorithm: Some(Algorithm::HalvingDoubling),
        ..Scenario::default_demo()
    };
    assert!(error(broadcast).contains("HalvingDoubling does not run Broadcast"));
}

#[test]
fn halving_doubling_sends_half_the_buffer_across_the_network_twice() {
    // 2 DGX H100: the first reduce-scatter step pairs rank r with r ^ 8, on the other node, and
    // sends it half the buffer; the last all-gather step sends half back. A ring's NIC carries
    // 2(n-1)/n of a channel's slice per crossing instead: far less per GPU.
    let size = 64u64 << 20;
    let sim = run(Scenario {
        nodes: 2,
        size_bytes: size,
        algorithm: Some(Algorithm::HalvingDoubling),
        ..Scenario::default_demo()
    });
    let nic_bytes: f64 = sim.topology.fabric.nics.iter().map(|nic| sim.link_bytes[nic.up.index()]).sum();
    assert_eq!(nic_bytes, 16.0 * size as f64, "16 GPUs, each S/2 out twice");
    let ring = run(Scenario {
        nodes: 2,
        size_bytes: size,
        algorithm: Some(Algorithm::Ring),
        ..Scenario::default_demo()
    });
    assert!(sim.summary.time.as_ns() > 3 * ring.summary.time.as_ns(), "the network pays for it");
}

#[test]
fn bruck_relays_each_block_through_the_bits_of_its_distance() {
    // 16 ranks: every rank sends, per step, the 8 positions with that bit set: 32 blocks in 4
    // steps where point to point sends 15 in one.
    let size = 16u64 << 20;
    let sim = run(Scenario {
        nodes: 2,
        collective: Collective::AllToAll,
        size_bytes: size,
        algorithm: Some(Algorithm::Bruck),
        ..Scenario::default_demo()
    });
    assert_eq!(sim.schedule.n_steps, 4);
    let block = size / 16;
    let sent: u64 = sim.schedule.transfers.iter().filter(|t| t.src == 0).map(|t| t.bytes()).sum();
    assert_eq!(sent, 32 * block);
    let direct = run(Scenario {
        nodes: 2,
        collective: Collective::AllToAll,
        size_bytes: size,
        ..Scenario::default_demo()
    });
    let sent: u64 = direct.schedule.transfers.iter().filter(|t| t.src == 0).map(|t| t.bytes()).sum();
    assert_eq!(sent, 15 * block);
}
