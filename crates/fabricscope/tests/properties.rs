//! Property tests: random shapes, every collective and algorithm verified on data, and the
//! engine's invariants on random small clusters. Cases are bounded so the suite stays fast;
//! a failure prints the case, which proptest also saves under `proptest-regressions/`.

use fabricscope::collective::{schedule_with, verify, Algorithm, Protocol};
use fabricscope::scenario::{FabricConfig, FabricTopology, Wiring};
use fabricscope::{simulate, Collective, Scenario};
use proptest::prelude::*;

fn collective() -> impl Strategy<Value = Collective> {
    prop::sample::select(Collective::ALL.to_vec())
}

proptest! {
    // A fixed seed: the same cases on every run and machine.
    #![proptest_config(ProptestConfig { cases: 96, rng_seed: proptest::test_runner::RngSeed::Fixed(0xFAB_5C09E), ..ProptestConfig::default() })]

    /// Every collective, and Tree and Hierarchical for AllReduce, ends with the exact result on integer data,
    /// for rank counts up to 64 (including non-powers of two) and sizes not divisible by them.
    #[test]
    fn every_schedule_verifies(
        collective in collective(),
        pick in 0u32..5,
        nodes in 1u32..=8,
        gpus in 1u32..=8,
        count in prop_oneof![1u64..600, 4_000u64..30_000],
        channels in 1u32..=4,
        root_pick in any::<u32>(),
        proto in 0u32..3,
    ) {
        // Tree's chunks are its protocol's: up to 4 of LL's 32 KiB and 7 of LL128's 17,280 B here.
        let protocol = [Protocol::Simple, Protocol::Ll, Protocol::Ll128][proto as usize];
        let n = nodes * gpus;
        let algorithm = match (pick, collective) {
            (1, Collective::AllReduce) => Algorithm::Tree,
            (2, Collective::AllReduce) => Algorithm::Hierarchical,
            (3, Collective::AllReduce) if nodes == 1 => Algorithm::Nvls,
            (4, Collective::AllReduce) => Algorithm::CollNet,
            _ => Algorithm::Ring,
        };
        let order: Vec<u32> = (0..gpus).collect();
        let schedule = schedule_with(collective, (algorithm, protocol), nodes, &[order], count, channels, root_pick % n);
        prop_assert!(verify(&schedule).is_ok(), "{:?} {:?} {:?} nodes={} gpus={} count={} channels={}: {:?}",
            collective, algorithm, protocol, nodes, gpus, count, channels, verify(&schedule));
    }

    /// On random small clusters and fabrics: no link above capacity, bytes conserved, every
    /// flow finishes after it starts, and the same scenario gives the same trace.
    #[test]
    fn engine_invariants_hold(
        collective in collective(),
        nodes in 1u32..=4,
        size_exp in 2u32..=24,
        channels in 1u32..=4,
        technology in prop::sample::select(vec![
            fabricscope::catalog::Technology::Infiniband,
            fabricscope::catalog::Technology::Roce,
            fabricscope::catalog::Technology::Tcp,
            fabricscope::catalog::Technology::Efa,
        ]),
        leaf_spine in any::<bool>(),
        node_wiring in any::<bool>(),
        protocol in prop::sample::select(Protocol::ALL.to_vec()),
        seed in any::<u64>(),
    ) {
        let scenario = Scenario {
            collective,
            nodes,
            size_bytes: 1 << size_exp,
            channels: Some(channels),
            protocol: Some(protocol),
            fabric: FabricConfig {
                technology,
                topology: if leaf_spine { FabricTopology::LeafSpine } else { FabricTopology::Auto },
                wiring: if node_wiring { Wiring::Node } else { Wiring::Rail },
                radix: Some(16),
                ..FabricConfig::default()
            },
            seed,
            ..Scenario::default_demo()
        };
        let valid = scenario.validate().unwrap();
        let sim = simulate(&valid).unwrap();
        // Bytes each link carried, from the rates the trace recorded (integrated over time), not
        // from the byte counts `Run::finish` adds up: the two must agree. A flow's last rate
        // segment ends at the next whole nanosecond, so it may overshoot by under 1 ns of rate.
        let n_links = sim.topology.n_links();
        let (mut moved, mut slack) = (vec![0.0; n_links], vec![0.0; n_links]);
        for flow in &sim.trace.flows {
            prop_assert!(flow.issued <= flow.started && flow.started <= flow.finished);
            let mut integral = 0.0;
            let mut last_rate = 0.0f64;
            for pair in flow.segments.windows(2) {
                let span = (pair[1].from.as_ns() - pair[0].from.as_ns()) as f64;
                integral += pair[0].rate_bytes_per_ns * span;
                if pair[0].rate_bytes_per_ns > 0.0 {
                    last_rate = pair[0].rate_bytes_per_ns;
                }
            }
            let bytes = flow.bytes as f64;
            prop_assert!(
                integral >= bytes * (1.0 - 1e-9) - 1e-6 && integral <= bytes + last_rate + 1e-6 * bytes.max(1.0),
                "flow {} moved {} B by its rates, {} B by its count", flow.transfer, integral, bytes
            );
            for link in &flow.path {
                moved[link.index()] += integral;
                slack[link.index()] += last_rate;
            }
        }
        for (id, link) in sim.topology.links() {
            let peak = sim.trace.link_peak[id.index()];
            prop_assert!(peak <= link.capacity().bytes_per_ns() * (1.0 + 1e-9), "link {:?} peak {}", id, peak);
            let (got, by_rate) = (sim.trace.link_bytes[id.index()], moved[id.index()]);
            prop_assert!(
                got <= by_rate * (1.0 + 1e-9) + 1e-6 && got + slack[id.index()] + 1e-6 * got.max(1.0) >= by_rate,
                "link {:?}: {} B counted, {} B by the rates", id, got, by_rate
            );
        }
        prop_assert_eq!(&simulate(&valid).unwrap().trace, &sim.trace);
    }
}
