//! The engine against closed-form answers, with and without contention, plus invariants.

use fabricscope::analytic::{ring_allreduce_ns, ring_allreduce_rounded_ns};
use fabricscope::catalog::Routing;
use fabricscope::collective::{ring_allreduce, Algorithm, Protocol, Schedule, Transfer};
use fabricscope::engine::{flow_latency_ns, run};
use fabricscope::routing::Policy;
use fabricscope::scenario::LatencyModel;
use fabricscope::topology::{LinkKind, Topology};
use fabricscope::units::transfer_ns;
use fabricscope::{simulate, Collective, Scenario, ValidScenario};

/// A DGX H100 scenario with NCCL_ALGO=Ring NCCL_PROTO=Simple, as the closed forms below assume.
fn scenario(nodes: u32, size_bytes: u64, channels: Option<u32>) -> ValidScenario {
    Scenario {
        nodes,
        size_bytes,
        channels,
        algorithm: Some(Algorithm::Ring),
        protocol: Some(Protocol::Simple),
        ..Scenario::default_demo()
    }
    .validate()
    .unwrap()
}

fn run_static(topology: &Topology, schedule: &Schedule) -> fabricscope::trace::Trace {
    run(topology, schedule, Policy::all_nics(topology, Routing::Static, 0))
}

/// One Ring/Simple step's latency between two GPUs, over the route the engine uses.
fn latency_between(topology: &Topology, a: u32, b: u32) -> u64 {
    let mut router =
        fabricscope::routing::Router::new(topology, Policy::all_nics(topology, Routing::Static, 0));
    let path = router.route(a, b, 0, &vec![0; topology.n_links()]);
    flow_latency_ns(topology, &path, Algorithm::Ring, Protocol::Simple)
}

/// NCCL's launch latency for Ring/Simple.
const BASE: u64 = 8_400;

#[test]
fn one_node_matches_alpha_beta_exactly() {
    for channels in [1, 8] {
        for size in [256 << 20, 1 << 20, 64 << 10] {
            let sim = simulate(&scenario(1, size, Some(channels))).unwrap();
            let alpha = latency_between(&sim.topology, 0, 1);
            let bandwidth = 450.0 * 0.824; // NVLink 4: 18 × 25 GB/s at NCCL's 20.6 / 25.
            let want = BASE + ring_allreduce_rounded_ns(8, size, alpha, bandwidth);
            assert_eq!(sim.summary.time.as_ns(), want, "channels={channels} size={size}");
            let exact = BASE as f64 + ring_allreduce_ns(8, size, alpha as f64, bandwidth);
            assert!((sim.summary.time.as_ns() as f64 - exact).abs() <= 14.0, "rounding adds < 1 ns per step");
        }
    }
}

/// With the links' latencies alone (`LatencyModel::Links`, the textbook's model) a ring on one
/// node takes exactly the α-β formula's time, α being only the NVLink path's latency: no launch
/// latency, no protocol latency. The α-β prediction the page shows says the same, and NCCL's
/// model is that time plus its launch, with its protocol latency on every step in place of the
/// links' (NCCL's figure counts the wire: `protocol::measured_wire_ns`).
#[test]
fn links_only_latency_is_the_textbook_alpha_beta() {
    for channels in [1, 8] {
        for size in [256 << 20, 1 << 20, 64 << 10] {
            let nccl = scenario(1, size, Some(channels));
            let links =
                Scenario { latency: LatencyModel::Links, ..nccl.scenario().clone() }.validate().unwrap();
            let sim = simulate(&links).unwrap();
            let alpha: u64 = {
                let mut router = fabricscope::routing::Router::new(
                    &sim.topology,
                    Policy::all_nics(&sim.topology, Routing::Static, 0),
                );
                let path = router.route(0, 1, 0, &vec![0; sim.topology.n_links()]);
                path.iter().map(|&id| sim.topology.link(id).latency_ns).sum()
            };
            let bandwidth = 450.0 * 0.824;
            let want = ring_allreduce_rounded_ns(8, size, alpha, bandwidth);
            assert_eq!(sim.summary.time.as_ns(), want, "channels={channels} size={size}");
            let ab = sim.alpha_beta().unwrap();
            assert_eq!(ab.base_ns, 0.0);
            assert_eq!(ab.alpha_intra_ns, alpha as f64);
            assert!((ab.predicted_ns - want as f64).abs() <= 14.0, "{} vs {want}", ab.predicted_ns);
            // NCCL's model on the same ring: its launch, and its Simple NVLink step latency on
            // each of the 14 steps (3.4 µs, `collective::protocol`) where the links' 0.5 µs was.
            assert_eq!(alpha, 500);
            let with_nccl = simulate(&nccl).unwrap().summary.time.as_ns();
            assert_eq!(with_nccl, want + BASE + 14 * (3_400 - alpha), "channels={channels} size={size}");
        }
    }
}

/// Across two nodes with one ring the NIC hop is the slowest: large messages are bound by its
/// bandwidth (every step's chunk crosses it), small ones by the latency of the data's path
/// around the ring. A chain of 30 transfers visits 30 consecutive ring positions, so the worst
/// chain crosses each of the two node boundaries twice: 26 NVLink steps + 4 network steps.
#[test]
fn two_nodes_one_channel_is_bound_by_the_nic() {
    let size = 256 << 20;
    let sim = simulate(&scenario(2, size, Some(1))).unwrap();
    let alpha_net = latency_between(&sim.topology, 7, 8);
    let alpha_nv = latency_between(&sim.topology, 0, 1);
    let nic = 50.0 * 0.96;
    let chunk_ns = (size / 16) as f64 / nic;
    let time = sim.summary.time.as_ns() as f64;
    let time = time - BASE as f64;
    assert!(time >= 30.0 * chunk_ns, "the NIC moves 30 chunks: {time} vs {}", 30.0 * chunk_ns);
    assert!(time <= ring_allreduce_rounded_ns(16, size, alpha_net, nic) as f64);
    assert!(time <= 30.0 * chunk_ns + 26.0 * alpha_nv as f64 + 4.0 * alpha_net as f64 + 30.0);
    let bottleneck = sim.topology.link(sim.summary.bottleneck.unwrap());
    assert_eq!(bottleneck.kind, LinkKind::Network);
    assert!(sim.summary.bottleneck_utilisation > 0.95);

    let tiny = simulate(&scenario(2, 8, Some(1))).unwrap();
    let latency_chain = 26 * alpha_nv + 4 * alpha_net;
    let time = tiny.summary.time.as_ns() - BASE;
    assert!(time >= latency_chain && time <= latency_chain + 30, "{time} vs {latency_chain}");
}

#[test]
fn two_nodes_use_every_nic_and_the_network_is_the_bottleneck() {
    let sim = simulate(&scenario(2, 256 << 20, None)).unwrap();
    let mean = sim.trace.mean_utilisation(&sim.topology);
    let network: Vec<f64> = sim
        .topology
        .links()
        .filter(|(_, link)| link.kind == LinkKind::Network)
        .map(|(id, _)| mean[id.index()])
        .collect();
    assert_eq!(network.len(), 32, "2 nodes × 8 NICs × 2 directions");
    assert!(network.iter().all(|&u| u > 0.5), "every NIC carries a channel: {network:?}");
    assert_eq!(sim.topology.link(sim.summary.bottleneck.unwrap()).kind, LinkKind::Network);
}

/// DGX A100 over 8× HDR: nccl#812 measured ~192 GB/s multi-node AllReduce busbw; the model's
/// bound is 8 NICs × 25 GB/s × 0.96 = 192 GB/s, below NVLink's 12 × 20 = 240 GB/s.
#[test]
fn dgx_a100_two_nodes_match_the_measured_busbw() {
    // NCCL_ALGO=Ring, as the measurement ran (a tree on two nodes sends each byte across once).
    let one = Scenario {
        preset: "dgx-a100".into(),
        nodes: 1,
        size_bytes: 1 << 30,
        algorithm: Some(Algorithm::Ring),
        ..Scenario::default_demo()
    };
    let busbw = simulate(&one.validate().unwrap()).unwrap().summary.busbw_gbyte_per_s;
    assert!((busbw - 240.0).abs() < 240.0 * 0.02, "one node: NVLink-bound {busbw}");
    let two = Scenario { nodes: 2, ..one };
    let sim = simulate(&two.validate().unwrap()).unwrap();
    let busbw = sim.summary.busbw_gbyte_per_s;
    assert!((busbw - 192.0).abs() < 192.0 * 0.03, "two nodes: NIC-bound {busbw}");
    assert_eq!(sim.topology.link(sim.summary.bottleneck.unwrap()).kind, LinkKind::Network);
}

/// Two transfers into GPU 1 at once share the NVSwitch → GPU 1 link: each runs at half rate.
#[test]
fn contention_halves_the_rate() {
    let valid = scenario(1, 1 << 20, Some(1));
    let topology = valid.topology();
    let len = 1 << 20; // elements: 4 MiB each
    let transfer = |src, dst| Transfer::copy(0, src, dst, 0, len);
    let schedule = |transfers| Schedule {
        collective: Collective::AllReduce,
        algorithm: fabricscope::collective::Algorithm::Ring,
        n_ranks: 8,
        n_channels: 1,
        count: len,
        scratch: 0,
        n_steps: 1,
        root: 0,
        protocol: fabricscope::collective::Protocol::Simple,
        latency: fabricscope::scenario::LatencyModel::Nccl,
        exposed_network: false,
        regions: vec![],
        phase_starts: vec![],
        transfers,
    };
    let capacity = fabricscope::units::Bandwidth::from_gbyte_per_s(450.0 * 0.824);
    let alpha = latency_between(&topology, 0, 1);

    let alone = run_static(&topology, &schedule(vec![transfer(0, 1)]));
    assert_eq!(alone.end.as_ns(), BASE + alpha + transfer_ns(len * 4, capacity));

    let colliding = run_static(&topology, &schedule(vec![transfer(0, 1), transfer(2, 1)]));
    assert_eq!(colliding.end.as_ns(), BASE + alpha + transfer_ns(len * 4, capacity.scale(0.5)));
    assert_eq!(colliding.flows[0].segments[0].rate_bytes_per_ns, capacity.bytes_per_ns() / 2.0);

    // Disjoint paths do not contend.
    let disjoint = run_static(&topology, &schedule(vec![transfer(0, 1), transfer(2, 3)]));
    assert_eq!(disjoint.end, alone.end);
}

#[test]
fn invariants_hold_on_every_scenario() {
    for nodes in [1, 2, 3] {
        for size in [4, 1000, 1 << 20, 100 << 20] {
            for channels in [Some(1), Some(3), None] {
                let valid = scenario(nodes, size, channels);
                let sim = simulate(&valid).unwrap();
                let seed = format!("nodes={nodes} size={size} channels={channels:?}");
                // Capacity, conservation, order of time, every flow finished (`Trace::check`).
                assert_eq!(sim.trace.check(&sim.topology), Ok(()), "{seed}");
                for (id, link) in sim.topology.links() {
                    let peak = sim.trace.link_peak[id.index()];
                    assert!(
                        peak <= link.capacity().bytes_per_ns() * (1.0 + 1e-9),
                        "{seed}: link {id:?} peak {peak}"
                    );
                }
                // The same scenario gives the same trace.
                assert_eq!(simulate(&valid).unwrap().trace, sim.trace, "{seed}");
            }
        }
    }
}

#[test]
fn the_invariant_check_catches_a_broken_trace() {
    let sim = simulate(&scenario(2, 1 << 20, Some(2))).unwrap();
    let mut trace = sim.trace.clone();
    let flow = trace.flows.iter_mut().find(|f| f.segments.len() >= 2).unwrap();
    flow.segments[0].rate_bytes_per_ns *= 3.0;
    assert!(
        trace.check(&sim.topology).unwrap_err().contains("capacity")
            || trace.check(&sim.topology).unwrap_err().contains("move")
    );
    let mut trace = sim.trace.clone();
    trace.flows[3].finished = fabricscope::units::SimTime(trace.end.0 + 1);
    assert!(trace.check(&sim.topology).unwrap_err().contains("out of order"));
    let mut trace = sim.trace.clone();
    trace.link_bytes[trace.flows[0].path[0].index()] += 4.0;
    assert!(trace.check(&sim.topology).unwrap_err().contains("carried"));
}

/// The same schedule with its transfers listed in another (dependency-respecting) order runs
/// to the same trace, bit for bit, transfer by transfer: simultaneous events do not depend on
/// the order they were queued in. Covers static, ECMP and adaptive routing and every algorithm.
#[test]
fn permuting_the_schedule_gives_the_same_trace() {
    use fabricscope::catalog::Technology;
    use fabricscope::scenario::{FabricConfig, FabricTopology};
    let cases = [
        (Collective::AllReduce, Some(Algorithm::Ring), Technology::Infiniband, Some(Routing::Static)),
        (Collective::AllReduce, Some(Algorithm::Tree), Technology::Roce, None),
        (
            Collective::AllReduce,
            Some(Algorithm::Hierarchical),
            Technology::Infiniband,
            Some(Routing::Adaptive),
        ),
        (Collective::AllToAll, None, Technology::Roce, Some(Routing::Ecmp)),
        (Collective::AllGather, None, Technology::Infiniband, Some(Routing::Adaptive)),
        (Collective::Broadcast, None, Technology::Tcp, None),
    ];
    for (case, &(collective, algorithm, technology, routing)) in cases.iter().enumerate() {
        let valid = Scenario {
            nodes: 3,
            collective,
            algorithm,
            size_bytes: 3 << 20,
            channels: Some(4),
            root: 5,
            fabric: FabricConfig {
                technology,
                routing,
                topology: FabricTopology::LeafSpine,
                radix: Some(8),
                ..FabricConfig::default()
            },
            seed: 7,
            ..Scenario::default_demo()
        }
        .validate()
        .unwrap();
        let sim = simulate(&valid).unwrap();
        let schedule = &sim.schedule;
        let n = schedule.transfers.len();
        // A random topological order (Kahn's algorithm with a seeded random pick).
        let mut dependents = vec![Vec::new(); n];
        let mut left: Vec<usize> =
            schedule.transfers.iter().map(|t| t.deps.len() + t.after.is_some() as usize).collect();
        for (i, t) in schedule.transfers.iter().enumerate() {
            for &d in t.deps.iter().chain(t.after.iter()) {
                dependents[d as usize].push(i);
            }
        }
        let mut ready: Vec<usize> = (0..n).filter(|&i| left[i] == 0).collect();
        let mut order = Vec::with_capacity(n);
        let mut rng = 0x9E37_79B9_7F4A_7C15u64 ^ case as u64;
        while !ready.is_empty() {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let i = ready.swap_remove((rng % ready.len() as u64) as usize);
            order.push(i);
            for &j in &dependents[i] {
                left[j] -= 1;
                if left[j] == 0 {
                    ready.push(j);
                }
            }
        }
        assert_eq!(order.len(), n);
        assert_ne!(order, (0..n).collect::<Vec<_>>(), "case {case}: the permutation is not the identity");
        let mut new_index = vec![0u32; n];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new as u32;
        }
        let mut permuted = schedule.clone();
        permuted.transfers = order
            .iter()
            .map(|&old| {
                let mut t = schedule.transfers[old].clone();
                t.deps = t.deps.iter().map(|&d| new_index[d as usize]).collect();
                t.after = t.after.map(|a| new_index[a as usize]);
                t
            })
            .collect();
        let trace = run(&sim.topology, &permuted, valid.policy());
        for (old, flow) in sim.trace.flows.iter().enumerate() {
            let other = &trace.flows[new_index[old] as usize];
            assert_eq!(
                (&flow.path, flow.issued, flow.started, flow.finished, &flow.segments),
                (&other.path, other.issued, other.started, other.finished, &other.segments),
                "case {case}: transfer {old}"
            );
        }
        assert_eq!(
            (trace.end, &trace.link_bytes, &trace.link_peak),
            (sim.trace.end, &sim.trace.link_bytes, &sim.trace.link_peak),
            "case {case}"
        );
    }
}

#[test]
fn schedules_verify_on_data_for_the_scenarios_the_page_offers() {
    for nodes in 1..=8 {
        let schedule =
            ring_allreduce(nodes, fabricscope::catalog::NodePreset::by_id("dgx-1").unwrap().rings, 4099, 8);
        fabricscope::collective::verify(&schedule).unwrap();
    }
}

#[test]
fn sampling_shows_chunks_and_link_rates() {
    let sim = simulate(&scenario(1, 256 << 20, None)).unwrap();
    let flow = &sim.trace.flows[0];
    let middle = fabricscope::units::SimTime((flow.started.as_ns() + flow.finished.as_ns()) / 2);
    let frame = sim.trace.sample(middle);
    assert_eq!(frame.in_flight.len(), 64, "8 GPUs × 8 channels move a chunk each");
    assert!(frame.in_flight.iter().all(|chunk| chunk.moving && (chunk.progress - 0.5).abs() < 0.01));
    let utilisation = sim.trace.utilisation(&sim.topology, &frame);
    assert!(utilisation.iter().any(|&u| u > 0.99), "some NVLink is saturated mid-run");
    assert!(utilisation.iter().all(|&u| u <= 1.0 + 1e-9));
    let end = sim.trace.sample(sim.summary.time);
    assert!(end.in_flight.is_empty());
    assert_eq!(sim.step_at(fabricscope::units::SimTime::ZERO), None, "the launch latency comes first");
    assert_eq!(sim.step_at(fabricscope::units::SimTime(BASE)), Some(0));
    assert_eq!(sim.step_at(sim.summary.time), Some(13));
}

#[test]
fn alpha_beta_prediction_is_exact_on_one_node_and_an_upper_bound_across_nodes() {
    let one = simulate(&scenario(1, 256 << 20, None)).unwrap();
    let ab = one.alpha_beta().unwrap();
    assert_eq!((ab.intra_steps, ab.inter_steps), (14, 0));
    assert!((ab.bandwidth_bytes_per_ns - 370.8).abs() < 1e-9);
    // The engine rounds each step up to a whole ns.
    assert!((one.summary.time.as_ns() as f64 - ab.predicted_ns).abs() <= 14.0);

    let two = simulate(&scenario(2, 256 << 20, None)).unwrap();
    let ab = two.alpha_beta().unwrap();
    assert_eq!((ab.intra_steps, ab.inter_steps), (26, 4));
    assert!((ab.bandwidth_bytes_per_ns - 8.0 * 48.0).abs() < 1e-9, "8 channels at one NIC's 48 GB/s");
    assert!((two.summary.time.as_ns() as f64) < ab.predicted_ns);
    let tiny = simulate(&scenario(2, 8, Some(1))).unwrap();
    assert!((tiny.summary.time.as_ns() as f64 - tiny.alpha_beta().unwrap().predicted_ns).abs() <= 30.0);
}

/// DGX-1's hybrid cube-mesh: two NVLink rings and their reverses load every directed pair link
/// evenly, each channel moves at a single NVLink 2's 20 GB/s, and the engine meets α-β exactly.
#[test]
fn dgx1_rings_run_at_one_nvlink_each() {
    let scenario = Scenario { preset: "dgx-1".into(), size_bytes: 1 << 30, ..Scenario::default_demo() };
    let sim = simulate(&scenario.validate().unwrap()).unwrap();
    let ab = sim.alpha_beta().unwrap();
    assert!((ab.bandwidth_bytes_per_ns - 4.0 * 20.0).abs() < 1e-9, "4 channels × 20 GB/s: {ab:?}");
    assert!((sim.summary.time.as_ns() as f64 - ab.predicted_ns).abs() <= 14.0);
    for (id, link) in sim.topology.links() {
        if sim.trace.link_bytes[id.index()] > 0.0 {
            assert_eq!(link.kind, LinkKind::NvLink, "no ring hop leaves NVLink");
        }
        assert!(sim.trace.link_peak[id.index()] <= link.capacity().bytes_per_ns() * (1.0 + 1e-9));
    }
}

/// Every preset runs, verifies on data, and lands near its NVLink bound on one node (at 1 GiB
/// per 8 GPUs, so that a rack's 142 ring steps of NCCL latency stay a small share).
#[test]
fn every_preset_runs_near_its_bound() {
    for preset in fabricscope::catalog::NODE_PRESETS {
        let scenario = Scenario {
            preset: preset.id.into(),
            size_bytes: (1u64 << 30) * (preset.gpus_per_node as u64 / 8).max(1).next_power_of_two(),
            algorithm: Some(Algorithm::Ring),
            ..Scenario::default_demo()
        };
        let sim = simulate(&scenario.validate().unwrap()).unwrap();
        let ab = sim.alpha_beta().unwrap();
        let busbw = sim.summary.busbw_gbyte_per_s;
        assert!(
            busbw > 0.9 * ab.bandwidth_bytes_per_ns && busbw <= ab.bandwidth_bytes_per_ns * 1.001,
            "{}: busbw {busbw} vs B {}",
            preset.id,
            ab.bandwidth_bytes_per_ns
        );
        let small = ring_allreduce(2, preset.rings, 1001, 8);
        fabricscope::collective::verify(&small).unwrap();
    }
}

/// Every collective on one DGX H100 at 1 GiB: the ring ones meet α-β, and all land near the
/// NVLink bound in nccl-tests' busbw terms (busbw is comparable to the slowest link).
#[test]
fn every_collective_lands_near_the_nvlink_bound() {
    for collective in Collective::ALL {
        // NCCL_ALGO=Ring where the tuner would pick NVLS (AllReduce): NVLS is tested below.
        let algorithm = (collective == Collective::AllReduce).then_some(Algorithm::Ring);
        let scenario = Scenario { collective, size_bytes: 1 << 30, algorithm, ..Scenario::default_demo() };
        let sim = simulate(&scenario.validate().unwrap()).unwrap();
        let busbw = sim.summary.busbw_gbyte_per_s;
        assert!(busbw > 0.85 * 370.8 && busbw <= 370.8 * 1.0001, "{collective:?}: busbw {busbw}");
        if let Some(ab) = sim.alpha_beta() {
            assert!(
                (sim.summary.time.as_ns() as f64 - ab.predicted_ns).abs() <= ab.intra_steps as f64,
                "{collective:?}: {ab:?}"
            );
        }
    }
}

/// A broadcast is a pipeline of NCCL's chunks for its protocol (512 KiB Simple, 32 KiB LL,
/// 576,000 B LL128), a chunk's time its wire bytes' (LL's flags double them, LL128's are 128 per
/// 120). Simple stores and forwards: the first chunk pays every hop's latency and its own time
/// on each, the rest follow one chunk-time apart, `hops·α + (chunks + hops - 1)·chunk/B`. LL and
/// LL128 forward each line as it arrives (`engine::stream`): a hop starts one latency after the
/// hop before it, and the last chunk ends a latency after it arrives, `hops·α + chunks·chunk/B`.
#[test]
fn broadcast_pipelines_its_chunks() {
    for (protocol, size, chunks, chunk) in [
        (Protocol::Simple, 8 << 20, 16, 512 << 10),
        (Protocol::Ll, 2 << 20, 64, 32 << 10),
        (Protocol::Ll128, 15 * 576_000, 15, 576_000),
    ] {
        let scenario = Scenario {
            collective: Collective::Broadcast,
            channels: Some(1),
            size_bytes: size,
            protocol: Some(protocol),
            ..Scenario::default_demo()
        };
        let sim = simulate(&scenario.validate().unwrap()).unwrap();
        let mut router = fabricscope::routing::Router::new(
            &sim.topology,
            Policy::all_nics(&sim.topology, Routing::Static, 0),
        );
        let path = router.route(0, 1, 0, &vec![0; sim.topology.n_links()]);
        let alpha = flow_latency_ns(&sim.topology, &path, Algorithm::Ring, protocol);
        let bandwidth = fabricscope::units::Bandwidth::from_gbyte_per_s(370.8);
        let chunk_ns = transfer_ns(protocol.wire_bytes(chunk), bandwidth);
        assert_eq!(sim.schedule.n_steps, chunks + 7 - 1, "{protocol:?}");
        let base = protocol.base_latency_ns(Algorithm::Ring);
        let chunk_times = match protocol {
            Protocol::Simple => chunks as u64 + 6,
            _ => chunks as u64,
        };
        assert_eq!(sim.summary.time.as_ns(), base + 7 * alpha + chunk_times * chunk_ns, "{protocol:?}");
    }
}

/// A chain whose hops differ (NVLink, then the network between the nodes, then NVLink), a
/// Broadcast's and a Reduce's, against the rule each protocol forwards by, worked through every
/// hop of every chunk: Simple stores and forwards (a hop is issued when the hop before it has
/// finished); LL and LL128 forward each line as it arrives (`engine::stream`: issued when the hop
/// before it begins to move, ending no sooner than that hop's end plus its own latency), so a
/// fast hop after a slow one ends at the slow one's pace. Each hop after its own latency waits
/// for its connection (the chunk before it on the same hop), then moves at its path's narrowest
/// link.
#[test]
fn a_chain_forwards_by_its_protocols_rule() {
    let cases = [(Protocol::Simple, 4 << 20), (Protocol::Ll, 1 << 20), (Protocol::Ll128, 4 << 20)];
    for (collective, (protocol, size)) in
        [Collective::Broadcast, Collective::Reduce].into_iter().flat_map(|c| cases.map(|case| (c, case)))
    {
        let scenario = Scenario {
            nodes: 2,
            collective,
            channels: Some(1),
            size_bytes: size,
            protocol: Some(protocol),
            root: 3,
            ..Scenario::default_demo()
        };
        let sim = simulate(&scenario.validate().unwrap()).unwrap();
        let (topology, schedule) = (&sim.topology, &sim.schedule);
        let n = schedule.transfers.len();
        assert!(n > 60, "{collective:?} {protocol:?}: {n} transfers, several chunks on 15 hops");
        let (mut begin, mut end) = (vec![0u64; n], vec![0u64; n]);
        let base = protocol.base_latency_ns(Algorithm::Ring);
        for (i, transfer) in schedule.transfers.iter().enumerate() {
            let flow = &sim.trace.flows[i];
            assert_eq!(flow.transfer as usize, i);
            let alpha = flow_latency_ns(topology, &flow.path, Algorithm::Ring, protocol);
            let narrowest = flow
                .path
                .iter()
                .map(|&l| topology.link(l).capacity())
                .min_by(|a, b| a.bytes_per_ns().total_cmp(&b.bytes_per_ns()));
            let moving = transfer_ns(protocol.wire_bytes(transfer.bytes()), narrowest.unwrap());
            let before = transfer.deps.first().map(|&d| d as usize);
            let issued = match (protocol, before) {
                (_, None) => base,
                (Protocol::Simple, Some(d)) => end[d],
                (_, Some(d)) => begin[d],
            };
            begin[i] = (issued + alpha).max(transfer.after.map_or(0, |a| end[a as usize]));
            end[i] = begin[i] + moving;
            if let (false, Some(d)) = (protocol == Protocol::Simple, before) {
                end[i] = end[i].max(end[d] + alpha);
            }
            assert_eq!(
                (flow.started.0, flow.finished.0),
                (begin[i], end[i]),
                "{collective:?} {protocol:?}: transfer {i}"
            );
        }
        assert_eq!(
            sim.summary.time.as_ns(),
            end.iter().copied().max().unwrap(),
            "{collective:?} {protocol:?}"
        );
    }
}

/// Tree against ring on 8 DGX H100 nodes: the tree's log-depth latency wins small messages, the
/// ring's lighter NIC load wins large ones, and the tuner's choice follows (NVLS off: with it,
/// NVLSTree wins large ones, `tests/algorithms.rs`).
#[test]
fn tree_beats_ring_for_small_messages_across_nodes_and_loses_for_large() {
    let run = |size: u64, algorithm: Option<Algorithm>| {
        let s = Scenario {
            nodes: 8,
            size_bytes: size,
            algorithm,
            protocol: Some(Protocol::Simple),
            nvls: false,
            ..Scenario::default_demo()
        };
        simulate(&s.validate().unwrap()).unwrap()
    };
    let (ring, tree) = (run(8, Some(Algorithm::Ring)), run(8, Some(Algorithm::Tree)));
    assert!(
        tree.summary.time.as_ns() * 3 < ring.summary.time.as_ns(),
        "8 B: tree {} vs ring {}",
        tree.summary.time,
        ring.summary.time
    );
    let (ring, tree) = (run(1 << 30, Some(Algorithm::Ring)), run(1 << 30, Some(Algorithm::Tree)));
    assert!(
        ring.summary.time < tree.summary.time,
        "1 GiB: ring {} vs tree {}",
        ring.summary.time,
        tree.summary.time
    );
    assert_eq!(run(8, None).schedule.algorithm, Algorithm::Tree);
    assert_eq!(run(1 << 30, None).schedule.algorithm, Algorithm::Ring);
    fabricscope::collective::verify(&fabricscope::collective::tree_allreduce(
        8,
        &[[0u32, 1, 2, 3, 4, 5, 6, 7]],
        4099,
        (8, fabricscope::collective::Protocol::Simple),
    ))
    .unwrap();
}

/// Hierarchical AllReduce on 2 DGX H100: every byte crosses the network once each way per
/// rail instead of the ring's 2(n-1)/n, so with NICs as fast as NVLink it is NVLink-bound by its
/// two intra-node phases; it verifies on data and runs near the same busbw as the ring.
#[test]
fn hierarchical_runs_and_is_comparable_to_the_ring() {
    let run = |algorithm| {
        let s = Scenario {
            nodes: 2,
            size_bytes: 1 << 30,
            algorithm: Some(algorithm),
            protocol: Some(Protocol::Simple),
            ..Scenario::default_demo()
        };
        simulate(&s.validate().unwrap()).unwrap()
    };
    let (ring, hier) = (run(Algorithm::Ring), run(Algorithm::Hierarchical));
    assert_eq!(hier.schedule.algorithm, Algorithm::Hierarchical);
    let (r, h) = (ring.summary.busbw_gbyte_per_s, hier.summary.busbw_gbyte_per_s);
    assert!(h > 0.6 * r && h < 1.6 * r, "ring {r} vs hierarchical {h}");
    assert!(hier.tuning.rows.iter().any(|row| row.algorithm == Algorithm::Hierarchical));
}

/// NVLS on one DGX H100: the switch adds the chunks, so each GPU sends its buffer up once
/// (plus its own part) instead of 2(n-1)/n times, and nccl-tests' busbw, which assumes a
/// ring, lands above the NVLink line rate of 450 GB/s per direction (nccl-tests#312): near the
/// ~480 GB/s nccl-tests#212 measured. NVLS is on by default (NCCL_NVLS_ENABLE), and the tuner
/// picks it for large messages, as NCCL does on H100, and Ring or LL below.
#[test]
fn nvls_busbw_exceeds_the_line_rate_on_h100() {
    let sim =
        simulate(&Scenario { size_bytes: 1 << 30, ..Scenario::default_demo() }.validate().unwrap()).unwrap();
    assert_eq!(sim.schedule.algorithm, Algorithm::Nvls, "the tuner's pick at 1 GiB");
    let busbw = sim.summary.busbw_gbyte_per_s;
    assert!(busbw > 450.0 && (busbw - 480.0).abs() < 0.05 * 480.0, "NVLS busbw {busbw}");
    assert!(busbw > 1.25 * simulate(&scenario(1, 1 << 30, None)).unwrap().summary.busbw_gbyte_per_s);
    assert_eq!(sim.trace.check(&sim.topology), Ok(()));
    // Small messages: NVLS's 25 µs latency loses.
    let small =
        simulate(&Scenario { size_bytes: 64 << 10, ..Scenario::default_demo() }.validate().unwrap()).unwrap();
    assert_ne!(small.schedule.algorithm, Algorithm::Nvls);
    // With NCCL_NVLS_ENABLE=0 the tuner keeps to Ring and Tree.
    let off = simulate(
        &Scenario { size_bytes: 1 << 30, nvls: false, ..Scenario::default_demo() }.validate().unwrap(),
    )
    .unwrap();
    assert_eq!(off.schedule.algorithm, Algorithm::Ring);
    // DGX A100's NVSwitch gen2 does not reduce: NVLS is refused by name.
    let a100 =
        Scenario { preset: "dgx-a100".into(), algorithm: Some(Algorithm::Nvls), ..Scenario::default_demo() }
            .validate()
            .unwrap_err();
    assert_eq!(a100[0].field, "algorithm");
}

/// CollNet (InfiniBand SHARP) on 4 DGX H100: the rails' switches add the nodes' sums, so each
/// NIC carries a byte once each way instead of a ring's 2(N-1)/N; on NDR that beats the ring,
/// and the engine's time follows the tuner's to within 5%. It runs only where the switches
/// can reduce: RoCE is refused by name.
#[test]
fn collnet_uses_the_switches_and_beats_the_ring_across_nodes() {
    let run = |algorithm| {
        let scenario = Scenario {
            nodes: 4,
            size_bytes: 1 << 30,
            algorithm: Some(algorithm),
            protocol: Some(Protocol::Simple),
            ..Scenario::default_demo()
        };
        simulate(&scenario.validate().unwrap()).unwrap()
    };
    let (ring, sharp) = (run(Algorithm::Ring), run(Algorithm::CollNet));
    assert_eq!(sharp.trace.check(&sharp.topology), Ok(()));
    assert!(
        sharp.summary.busbw_gbyte_per_s > ring.summary.busbw_gbyte_per_s,
        "{} vs {}",
        sharp.summary.busbw_gbyte_per_s,
        ring.summary.busbw_gbyte_per_s
    );
    let network = |sim: &fabricscope::Simulation| -> f64 {
        sim.topology
            .links()
            .filter(|(_, l)| l.kind == LinkKind::Network)
            .map(|(id, _)| sim.trace.link_bytes[id.index()])
            .sum()
    };
    assert!(network(&sharp) < 0.75 * network(&ring), "{} vs {}", network(&sharp), network(&ring));
    let predicted = sharp
        .tuning
        .rows
        .iter()
        .find(|r| r.algorithm == Algorithm::CollNet && r.protocol == Protocol::Simple)
        .unwrap()
        .predicted_ns;
    assert!(
        (sharp.summary.time.as_ns() as f64 / predicted - 1.0).abs() < 0.05,
        "{} vs {predicted}",
        sharp.summary.time.as_ns()
    );
    let roce = Scenario {
        nodes: 4,
        algorithm: Some(Algorithm::CollNet),
        fabric: fabricscope::scenario::FabricConfig {
            technology: fabricscope::catalog::Technology::Roce,
            ..Default::default()
        },
        ..Scenario::default_demo()
    };
    assert_eq!(roce.validate().unwrap_err()[0].field, "algorithm");
}

/// `Trace::sample` looks only at the flows its time index says may be alive: the frame must
/// equal a scan of every flow, at any time.
#[test]
fn sampling_through_the_time_index_equals_a_full_scan() {
    let sim = simulate(&scenario(3, 7 << 20, Some(3))).unwrap();
    let end = sim.trace.end.as_ns();
    for i in 0..=97u64 {
        let t = fabricscope::units::SimTime(end * i / 97);
        let frame = sim.trace.sample(t);
        let mut rates = vec![0.0; sim.topology.n_links()];
        let mut alive = Vec::new();
        for flow in &sim.trace.flows {
            if t >= flow.issued && t < flow.finished {
                alive.push(flow.transfer);
                for link in &flow.path {
                    rates[link.index()] += flow.rate_at(t);
                }
            }
        }
        assert_eq!(frame.in_flight.iter().map(|f| f.transfer).collect::<Vec<_>>(), alive, "t = {t:?}");
        assert_eq!(frame.link_rate, rates, "t = {t:?}");
    }
}

/// The CSV exports hold one row per link and per transfer, with the run's own figures.
#[test]
fn csv_exports_hold_every_link_and_transfer() {
    let sim = simulate(&scenario(2, 1 << 20, Some(2))).unwrap();
    let links = sim.links_csv();
    assert_eq!(links.lines().count(), 1 + sim.topology.n_links());
    assert!(links.starts_with("link,from,to,kind,capacity_gbyte_per_s"));
    let transfers = sim.transfers_csv();
    assert_eq!(transfers.lines().count(), 1 + sim.schedule.transfers.len());
    let last_finish: u64 = transfers
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(9).unwrap().parse::<u64>().unwrap())
        .max()
        .unwrap();
    assert_eq!(last_finish, sim.trace.end.as_ns());
}
