//! Fabrics under load: routing collisions, oversubscription and non-blocking permutations,
//! each checked against the rate max-min sharing must give.

use fabricscope::catalog::Routing;
use fabricscope::collective::{Algorithm, Schedule, Transfer};
use fabricscope::engine::run;
use fabricscope::routing::Policy;
use fabricscope::scenario::{FabricConfig, FabricTopology, Wiring};
use fabricscope::topology::{LinkKind, Topology};
use fabricscope::trace::Trace;
use fabricscope::{Collective, Scenario};

const NIC_GBYTE: f64 = 50.0 * 0.96;
const LEN: u64 = 1 << 22; // elements: 16 MiB per flow

fn cluster(nodes: u32, topology: FabricTopology, radix: u32, oversubscription: f64) -> Topology {
    let scenario = Scenario {
        nodes,
        channels: Some(1),
        fabric: FabricConfig {
            topology,
            wiring: Wiring::Node,
            radix: Some(radix),
            oversubscription,
            ..FabricConfig::default()
        },
        ..Scenario::default_demo()
    };
    scenario.validate().unwrap().topology()
}

/// Every (src, dst) pair sends one 16 MiB chunk at once.
fn permutation(n_ranks: u32, pairs: &[(u32, u32)]) -> Schedule {
    Schedule {
        collective: Collective::AllReduce,
        algorithm: Algorithm::Ring,
        n_ranks,
        n_channels: 1,
        count: LEN,
        scratch: 0,
        n_steps: 1,
        root: 0,
        protocol: fabricscope::collective::Protocol::Simple,
        latency: fabricscope::scenario::LatencyModel::Nccl,
        exposed_network: false,
        regions: vec![],
        phase_starts: vec![],
        transfers: pairs.iter().map(|&(src, dst)| Transfer::copy(0, src, dst, 0, LEN)).collect(),
    }
}

/// The rate each flow moved at when it started [GB/s].
fn first_rates(trace: &Trace) -> Vec<f64> {
    trace.flows.iter().map(|flow| flow.segments[0].rate_bytes_per_ns).collect()
}

/// How many flows share the busiest network link of each flow's path.
fn sharing(topology: &Topology, trace: &Trace) -> Vec<usize> {
    trace
        .flows
        .iter()
        .map(|flow| {
            flow.path
                .iter()
                .filter(|&&l| topology.link(l).kind == LinkKind::Network)
                .map(|l| trace.flows.iter().filter(|other| other.path.contains(l)).count())
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// Node 0's 8 GPUs each send to the same GPU of node 1, through 8 spines.
fn node_shift(topology: &Topology) -> Schedule {
    let pairs: Vec<(u32, u32)> = (0..8).map(|i| (i, 8 + i)).collect();
    permutation(topology.n_gpus(), &pairs)
}

#[test]
fn ecmp_collisions_halve_the_colliding_flows_and_adaptive_routing_does_not() {
    // Radix 16, node wiring: one node per leaf, 8 up-links per leaf, 8 spines.
    let topology = cluster(2, FabricTopology::LeafSpine, 16, 1.0);
    let schedule = node_shift(&topology);

    let ecmp = run(&topology, &schedule, Policy::all_nics(&topology, Routing::Ecmp, 7));
    let shared = sharing(&topology, &ecmp);
    assert!(shared.iter().any(|&s| s >= 2), "seed 7 hashes two flows onto one up-link: {shared:?}");
    for (rate, share) in first_rates(&ecmp).iter().zip(&shared) {
        assert!(
            (rate - NIC_GBYTE / *share as f64).abs() < 1e-9,
            "a flow sharing a link with {} others gets 1/{share}",
            share - 1
        );
    }

    let adaptive = run(&topology, &schedule, Policy::all_nics(&topology, Routing::Adaptive, 7));
    assert!(sharing(&topology, &adaptive).iter().all(|&s| s == 1));
    assert!(first_rates(&adaptive).iter().all(|&rate| (rate - NIC_GBYTE).abs() < 1e-9));
    assert!(adaptive.end < ecmp.end, "collisions make the slowest flow, and so the step, slower");

    // D-mod-K spreads destinations 8..15 over spines 0..7: no collision either.
    let dmodk = run(&topology, &schedule, Policy::all_nics(&topology, Routing::Static, 7));
    assert!(first_rates(&dmodk).iter().all(|&rate| (rate - NIC_GBYTE).abs() < 1e-9));
}

#[test]
fn a_2_to_1_oversubscribed_leaf_halves_cross_leaf_all_to_all() {
    // Two nodes per leaf; nodes 0 and 1 send to nodes 2 and 3 on the other leaf: 16 flows.
    let pairs: Vec<(u32, u32)> = (0..16).map(|i| (i, 16 + i)).collect();
    // 1:1 at radix 32: 16 down, 16 up per leaf.
    let blocking_free = cluster(4, FabricTopology::LeafSpine, 32, 1.0);
    let trace =
        run(&blocking_free, &permutation(32, &pairs), Policy::all_nics(&blocking_free, Routing::Static, 0));
    assert!(first_rates(&trace).iter().all(|&rate| (rate - NIC_GBYTE).abs() < 1e-9));
    // 2:1 at radix 24: 16 down, 8 up per leaf.
    let oversubscribed = cluster(4, FabricTopology::LeafSpine, 24, 2.0);
    let plan = oversubscribed.fabric.plan.clone().unwrap();
    assert_eq!((plan.down, plan.up), (16, 8));
    let trace =
        run(&oversubscribed, &permutation(32, &pairs), Policy::all_nics(&oversubscribed, Routing::Static, 0));
    assert!(
        first_rates(&trace).iter().all(|&rate| (rate - NIC_GBYTE / 2.0).abs() < 1e-9),
        "{:?}",
        first_rates(&trace)
    );
}

#[test]
fn a_non_blocking_fat_tree_carries_a_node_shift_at_line_rate_with_d_mod_k() {
    // Radix 16, 3 tiers, one node per leaf, 8 leaves per pod, 2 pods; node n sends to node n+1.
    let topology = cluster(16, FabricTopology::FatTree, 16, 1.0);
    let pairs: Vec<(u32, u32)> = (0..128).map(|rank| (rank, (rank + 8) % 128)).collect();
    let trace = run(&topology, &permutation(128, &pairs), Policy::all_nics(&topology, Routing::Static, 0));
    let rates = first_rates(&trace);
    assert!(rates.iter().all(|&rate| (rate - NIC_GBYTE).abs() < 1e-9), "{rates:?}");
    let crossing = trace
        .flows
        .iter()
        .filter(|f| f.path.iter().filter(|&&l| topology.link(l).kind == LinkKind::Network).count() == 6);
    assert_eq!(crossing.count(), 16, "nodes 7 → 8 and 15 → 0 cross the cores");
    // ECMP on the same shift collides somewhere.
    let ecmp = run(&topology, &permutation(128, &pairs), Policy::all_nics(&topology, Routing::Ecmp, 1));
    assert!(first_rates(&ecmp).iter().any(|&rate| rate < NIC_GBYTE - 1e-9));
}

#[test]
fn roce_tcp_and_efa_pay_for_congestion_where_infiniband_does_not() {
    for (technology, efficiency) in [
        (fabricscope::catalog::Technology::Infiniband, 1.0),
        (fabricscope::catalog::Technology::Roce, 0.90),
        (fabricscope::catalog::Technology::Tcp, 0.75),
        (fabricscope::catalog::Technology::Efa, 0.95),
    ] {
        let scenario = Scenario {
            nodes: 2,
            channels: Some(1),
            fabric: FabricConfig {
                technology,
                topology: FabricTopology::SingleSwitch,
                ..FabricConfig::default()
            },
            ..Scenario::default_demo()
        };
        let topology = scenario.validate().unwrap().topology();
        // Two GPUs of node 0 send to GPU 8 at once: its NIC's down-link carries two sources.
        let trace = run(
            &topology,
            &permutation(16, &[(0, 8), (1, 8)]),
            Policy::all_nics(&topology, Routing::Static, 0),
        );
        let nic = technology.spec().nic_efficiency * 50.0;
        for rate in first_rates(&trace) {
            assert!((rate - nic * efficiency / 2.0).abs() < 1e-9, "{technology:?}: {rate}");
        }
    }
}

/// Ring AllReduce on two nodes of `preset` using the first `nics` NICs over `channels` rings:
/// the bytes each NIC sends, one channel's bytes across the node boundary, and the busbw.
fn nic_spread(preset: &str, nics: u32, channels: u32) -> (Vec<f64>, f64, f64) {
    let scenario = Scenario {
        preset: preset.into(),
        nodes: 2,
        size_bytes: 256 << 20,
        nics_used: Some(nics),
        channels: Some(channels),
        algorithm: Some(Algorithm::Ring),
        ..Scenario::default_demo()
    };
    let sim = fabricscope::simulate(&scenario.validate().unwrap()).unwrap();
    let t = &sim.topology;
    let sent: Vec<f64> = t.fabric.nics.iter().map(|nic| sim.link_bytes[nic.up.index()]).collect();
    // A ring crosses each node boundary once: 2(n-1) chunks of size / (channels · n) each.
    let n = 16.0;
    let per_channel = (256u64 << 20) as f64 / channels as f64 / n * 2.0 * (n - 1.0);
    (sent, per_channel, sim.summary.busbw_gbyte_per_s)
}

#[test]
fn rings_spread_over_the_nics_in_use_and_busbw_scales_with_them() {
    // NCCL_IB_HCA with fewer NICs than GPUs: no NIC carries more than ⌈channels / NICs⌉ rings,
    // the unused NICs carry nothing, and busbw grows with the NICs (before the fix, 4 NICs on
    // a DGX A100 gave 51 GB/s: two rings shared one GPU's PCIe link).
    for preset in ["dgx-a100", "dgx-h100"] {
        let mut busbw = Vec::new();
        for nics in [1, 2, 4, 8] {
            let mut all_channels = vec![nics, 8];
            all_channels.dedup();
            for channels in all_channels {
                let (sent, per_channel, bw) = nic_spread(preset, nics, channels);
                let most = channels.div_ceil(nics) as f64 * per_channel;
                for (i, &bytes) in sent.iter().enumerate() {
                    let local = i as u32 % 8;
                    assert!(
                        bytes <= most * 1.0001,
                        "{preset} {nics} NICs {channels} channels: NIC {i} sent {bytes}"
                    );
                    if local >= nics {
                        assert_eq!(bytes, 0.0, "{preset}: NIC {i} is not in NCCL_IB_HCA");
                    }
                }
                if channels == nics {
                    busbw.push(bw);
                }
            }
        }
        for pair in busbw.windows(2) {
            let ratio = pair[1] / pair[0];
            assert!((ratio - 2.0).abs() < 0.1, "{preset}: doubling the NICs gives {ratio:.3}× ({busbw:?})");
        }
    }
}
