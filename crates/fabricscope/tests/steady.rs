//! Steady states: a ring run as a prefix plus its proved repetition gives, bit for bit, what
//! simulating every transfer gives (`simulation::Steady`, `engine::period`).

use fabricscope::catalog::{Routing, Technology};
use fabricscope::collective::{Algorithm, Protocol};
use fabricscope::scenario::{FabricConfig, FabricTopology, Wiring};
use fabricscope::{simulate, simulate_as, Collective, Method, Mode, Scenario};

fn ring(
    nodes: u32,
    preset: &str,
    fabric: FabricConfig,
    collective: Collective,
    size_bytes: u64,
    channels: Option<u32>,
) -> Scenario {
    Scenario {
        nodes,
        preset: preset.into(),
        collective,
        size_bytes,
        channels,
        algorithm: (collective == Collective::AllReduce).then_some(Algorithm::Ring),
        protocol: Some(Protocol::Simple),
        fabric,
        ..Scenario::default_demo()
    }
}

/// Exact and steady agree on everything the whole collective has: its end, every link's bytes,
/// every step's start, and the event batches.
fn agree(scenario: &Scenario) -> fabricscope::Steady {
    let valid = scenario.validate().unwrap();
    let exact = simulate_as(&valid, Mode::Exact).unwrap();
    let steady = simulate_as(&valid, Mode::Steady).unwrap();
    let period = steady.steady.unwrap_or_else(|| panic!("no steady state for {scenario:?}"));
    assert!(period.simulated_steps < period.total_steps && period.repeats > 0, "{period:?}");
    assert_eq!(steady.end(), exact.end(), "end of {scenario:?} ({period:?})");
    assert_eq!(steady.link_bytes, exact.link_bytes, "link bytes");
    assert_eq!(steady.step_starts, exact.step_starts, "step starts");
    assert_eq!(steady.batches(), exact.batches(), "event batches");
    assert_eq!(steady.n_transfers(), exact.schedule.transfers.len() as u64);
    // The same figures, each saying how it was obtained.
    assert_eq!((exact.summary.method, steady.summary.method), (Method::Exact, Method::SteadyState));
    assert_eq!(steady.summary, fabricscope::Summary { method: Method::SteadyState, ..exact.summary.clone() });
    // Any time of the whole run looks like the exact run then: the same link rates.
    let end = exact.end().0;
    for k in 1..40u64 {
        let t = fabricscope::units::SimTime(end * k / 40);
        let (a, b) = (exact.sample(t), steady.sample(t));
        assert_eq!(a.link_rate, b.link_rate, "link rates at {t:?}");
        assert_eq!(a.in_flight.len(), b.in_flight.len(), "chunks in flight at {t:?}");
        let (sa, sb) = (exact.step_at(t), steady.step_at(t));
        assert_eq!(sa, sb);
        if let Some(step) = sa {
            assert_eq!(
                exact.step_info(step, exact.focus_rank),
                steady.step_info(step, steady.focus_rank),
                "step {step}"
            );
        }
    }
    period
}

#[test]
fn a_ring_on_infiniband_repeats_exactly() {
    let period =
        agree(&ring(4, "dgx-h100", FabricConfig::default(), Collective::AllReduce, 64 << 20, Some(1)));
    assert_eq!(period.total_steps, 62);
    agree(&ring(4, "dgx-h100", FabricConfig::default(), Collective::AllReduce, 64 << 20, Some(2)));
}

#[test]
fn skewed_and_congested_rings_reach_their_own_steady_state() {
    let fabrics = [
        // RoCE with ECMP hashing on a leaf-spine: flows collide on up-links.
        FabricConfig {
            technology: Technology::Roce,
            topology: FabricTopology::LeafSpine,
            wiring: Wiring::Node,
            radix: Some(16),
            ..FabricConfig::default()
        },
        // 4:1 oversubscribed leaves, D-mod-K.
        FabricConfig {
            topology: FabricTopology::LeafSpine,
            wiring: Wiring::Node,
            radix: Some(16),
            oversubscription: 4.0,
            routing: Some(Routing::Static),
            ..FabricConfig::default()
        },
        // Kernel TCP.
        FabricConfig { technology: Technology::Tcp, ..FabricConfig::default() },
    ];
    for fabric in fabrics {
        agree(&ring(4, "dgx-h100", fabric, Collective::AllReduce, 32 << 20, Some(1)));
    }
}

#[test]
fn other_rings_and_nodes_repeat_exactly() {
    agree(&ring(8, "dgx-h100", FabricConfig::default(), Collective::AllGather, 64 << 20, Some(1)));
    agree(&ring(6, "dgx-h100", FabricConfig::default(), Collective::ReduceScatter, 48 << 20, Some(1)));
    agree(&ring(3, "dgx-a100", FabricConfig::default(), Collective::AllReduce, 24 << 20, Some(1)));
    agree(&ring(4, "dgx-1", FabricConfig::default(), Collective::AllReduce, 32 << 20, Some(1)));
}

#[test]
fn steady_state_is_deterministic_and_needs_alike_steps() {
    let scenario = ring(4, "dgx-h100", FabricConfig::default(), Collective::AllReduce, 64 << 20, Some(1));
    let valid = scenario.validate().unwrap();
    let (a, b) = (simulate_as(&valid, Mode::Steady).unwrap(), simulate_as(&valid, Mode::Steady).unwrap());
    assert_eq!(a.hash_hex(), b.hash_hex());
    // Chunks of unequal size (a count not divisible by ranks × channels) make steps differ:
    // no steady state is claimed, and the scenario runs exactly.
    let odd = Scenario { size_bytes: (64 << 20) + 4, ..scenario };
    let valid = odd.validate().unwrap();
    assert!(simulate_as(&valid, Mode::Steady).is_err());
    assert!(simulate(&valid).unwrap().steady.is_none());
}

#[test]
fn a_thousand_gpus_run_as_a_steady_state() {
    let scenario = Scenario {
        fabric: FabricConfig { topology: FabricTopology::LeafSpine, ..FabricConfig::default() },
        ..ring(128, "dgx-h100", FabricConfig::default(), Collective::AllReduce, 1 << 30, Some(1))
    };
    let sim = simulate(&scenario.validate().unwrap()).unwrap();
    let steady = sim.steady.expect("1,024 GPUs run as a steady state");
    assert_eq!(sim.n_transfers(), 2 * 1023 * 1024);
    assert!(steady.simulated_transfers <= fabricscope::scenario::MAX_TRANSFERS, "{steady:?}");
    // With in-network reduction to weigh (CollNet), it is not run as a steady state, and at
    // this size the engine refuses it by name rather than leave CollNet out.
    let collnet = Scenario { collnet: true, ..scenario.clone() };
    assert!(collnet.validate().is_err_and(|errors| errors[0].field == "nodes"));
    // One channel crosses each node boundary through one 400 Gb/s NIC: busbw below 50 GB/s.
    assert!(
        sim.summary.busbw_gbyte_per_s > 35.0 && sim.summary.busbw_gbyte_per_s < 50.0,
        "{:?}",
        sim.summary
    );
}

#[test]
fn a_ring_too_big_that_does_not_settle_is_extrapolated_and_says_so() {
    // 512 GPUs over 8 channels: 4,186,112 transfers, more than the engine simulates one by one,
    // and its channels, sharing each GPU's NVLink, keep drifting against each other: no period.
    let scenario = ring(64, "dgx-h100", FabricConfig::default(), Collective::AllReduce, 1 << 30, Some(8));
    let sim = simulate(&scenario.validate().unwrap()).unwrap();
    assert_eq!(sim.n_transfers(), 4_186_112);
    // Each channel crosses a node boundary through its own 400 Gb/s NIC: 8 of them per node
    // give at most 8 × 50 GB/s × 2(n-1)/n of busbw; the NIC's efficiency and latency keep it
    // below that, the NVLink rings above half of it.
    let steady = extrapolated(&sim, (1022, 32), (200.0, 400.0));
    assert_eq!(steady.period_steps, 1);
}

/// Checks an extrapolated ring, `shown` of its `total` steps simulated: every step moves the same
/// bytes over the same links, so each link's total is its bytes in the shown prefix scaled to
/// every step, exactly; and its busbw lies strictly within `busbw` [GB/s]. Its steady state.
fn extrapolated(
    sim: &fabricscope::Simulation,
    (total, shown): (u32, u32),
    busbw: (f64, f64),
) -> fabricscope::Steady {
    assert_eq!(sim.summary.method, fabricscope::Method::Extrapolated);
    let steady = sim.steady.expect("a prefix and its extension");
    assert_eq!((steady.total_steps, steady.simulated_steps), (total, shown));
    for (prefix, all) in sim.trace.link_bytes.iter().zip(&sim.link_bytes) {
        assert_eq!(prefix * total as f64 / shown as f64, *all);
    }
    let b = sim.summary.busbw_gbyte_per_s;
    assert!(b > busbw.0 && b < busbw.1, "{:?}", sim.summary);
    steady
}

#[test]
fn a_job_polled_in_slices_gives_what_one_call_gives() {
    // An exact run, a steady state, and a ring that settles only in the fitted prefix path
    // are all the same sliced or not: slicing only pauses between event batches.
    let cases = [
        Scenario { nodes: 2, ..Scenario::default_demo() },
        ring(4, "dgx-h100", FabricConfig::default(), Collective::AllReduce, 64 << 20, Some(1)),
        ring(
            128,
            "dgx-h100",
            FabricConfig { topology: FabricTopology::LeafSpine, ..FabricConfig::default() },
            Collective::AllReduce,
            1 << 30,
            Some(1),
        ),
    ];
    for (scenario, mode) in cases.iter().zip([Mode::Auto, Mode::Steady, Mode::Auto]) {
        let valid = scenario.validate().unwrap();
        let whole = simulate_as(&valid, mode).unwrap();
        let mut job = fabricscope::Job::new(&valid, mode);
        let mut polls = 0;
        let mut last = 0.0;
        let sliced = loop {
            polls += 1;
            if let Some(result) = job.poll(7) {
                break result.unwrap();
            }
            let progress = job.progress();
            assert!((0.0..=1.0).contains(&progress), "{progress}");
            last = progress;
        };
        assert!(polls > 10 && last > 0.0, "{polls} polls");
        assert_eq!(sliced.hash_hex(), whole.hash_hex());
        assert_eq!(sliced.summary, whole.summary);
        assert_eq!(sliced.steady, whole.steady);
        assert!(job.poll(7).is_none(), "the result is given once");
    }
}

#[test]
fn a_thousand_gpus_at_nccls_defaults_run_what_the_tuner_picks_or_say_why_not() {
    let at = |size_bytes: u64, algorithm: Option<fabricscope::collective::Algorithm>| Scenario {
        nodes: 128,
        size_bytes,
        algorithm,
        fabric: FabricConfig { topology: FabricTopology::LeafSpine, ..FabricConfig::default() },
        ..Scenario::default_demo()
    };
    // 8 KiB: the ring's chunks differ by an element (2,048 elements over 8,192 rank-channels),
    // so it cannot run as a steady state; it is weighed from one step, and the tuner's Tree runs.
    let small = simulate(&at(8 << 10, None).validate().unwrap()).unwrap();
    assert_eq!(small.schedule.algorithm, fabricscope::collective::Algorithm::Tree);
    assert_eq!(small.tuner_pick_not_run(), None);
    // Forced, that ring is refused by name.
    let ring = at(8 << 10, Some(fabricscope::collective::Algorithm::Ring)).validate();
    assert!(ring
        .is_err_and(|errors| errors[0].field == "nodes" && errors[0].problem.contains("16760832 transfers")));
    // 32 MiB: NVLSTree (8 chunks of NCCL's 64 KiB per part: 1,244,160 transfers), weighed as
    // the exact plan weighs it on fewer nodes, and run.
    let mid = simulate(&at(32 << 20, None).validate().unwrap()).unwrap();
    assert_eq!(mid.schedule.algorithm, fabricscope::collective::Algorithm::NvlsTree);
    // 512 MiB: the tuner's NVLSTree is beyond the engine: the best ring row runs,
    // extrapolated, and the simulation says what the tuner picked.
    let big = simulate(&at(512 << 20, None).validate().unwrap()).unwrap();
    assert_eq!(big.schedule.algorithm, fabricscope::collective::Algorithm::Ring);
    assert_eq!(big.tuner_pick_not_run(), Some(fabricscope::collective::Algorithm::NvlsTree));
    assert_eq!(big.summary.method, fabricscope::Method::Extrapolated);
    // NCCL's model's time for that pick is its row of the tuner's table, not the ring's.
    let chosen = big.tuning.choice();
    assert_eq!(chosen.algorithm, fabricscope::collective::Algorithm::NvlsTree);
    assert_eq!(big.tuner_pick_predicted_ns(), Some(chosen.predicted_ns));
    let ran = big
        .tuning
        .rows
        .iter()
        .find(|r| (r.algorithm, r.protocol) == (big.schedule.algorithm, big.schedule.protocol));
    assert!(
        ran.is_some_and(|ran| chosen.predicted_ns < ran.predicted_ns),
        "the tree is the faster by NCCL's model"
    );
    assert_eq!(mid.tuner_pick_predicted_ns(), None, "the pick ran");
}

#[test]
fn sixteen_thousand_gpus_at_eight_channels_run_extrapolated_from_a_short_prefix() {
    // 2,048 DGX H100 on a 3-tier fat-tree, NCCL's 8 channels: 4,294,705,152 transfers. The
    // search's 32-step prefix would be 4.2 M transfers, so 4 steps are shown (524,288) and
    // channel 0 alone measures the per-step time on 61 more.
    let scenario = Scenario {
        nodes: 2048,
        size_bytes: 1 << 30,
        algorithm: Some(fabricscope::collective::Algorithm::Ring),
        protocol: Some(fabricscope::collective::Protocol::Simple),
        ..Scenario::default_demo()
    };
    let sim = simulate(&scenario.validate().unwrap()).unwrap();
    assert_eq!(sim.n_transfers(), 4_294_705_152);
    // Each step takes at least its floor (engine::fluid) and the whole at least the bytes over
    // eight NICs' 50 GB/s: busbw below 400 GB/s.
    extrapolated(&sim, (32_766, 4), (0.0, 400.0));
    // The same on RoCE, whose channels do not fold: refused by name, not run for hours.
    let roce = Scenario {
        fabric: FabricConfig { technology: Technology::Roce, ..FabricConfig::default() },
        ..scenario
    };
    let error = simulate(&roce.validate().unwrap()).map(|_| ()).unwrap_err();
    assert!(error.problem.contains("not images of one another"), "{}", error.problem);
}

#[test]
fn five_thousand_nodes_whose_leaf_groups_differ_measure_channel_zero_whole() {
    // 5,000 DGX H100 (40,000 GPUs) on a 3-tier fat-tree of radix 64: the last leaf group is cut
    // short, so no turn by whole nodes keeps the ring's routes. Two steps of 320,000 transfers
    // are shown, folded by the channels, and channel 0 alone measures the per-step time over 50
    // more steps (2,000,000 transfers, the engine's own limit). The size is a multiple of ranks
    // × channels elements, so that the steps are alike.
    let scenario = Scenario {
        nodes: 5000,
        size_bytes: 4 * 320_000 * 838,
        algorithm: Some(fabricscope::collective::Algorithm::Ring),
        protocol: Some(fabricscope::collective::Protocol::Simple),
        ..Scenario::default_demo()
    };
    let sim = simulate(&scenario.validate().unwrap()).unwrap();
    let steady = extrapolated(&sim, (79_998, 2), (0.0, 400.0));
    assert_eq!(steady.measured_nodes, None, "no rotation: channel 0's every position measured");
    // 6,000 nodes: measuring 48 steps of channel 0 would take 2,304,000 transfers. Refused by
    // name, saying how many nodes are measured so: 2,000,000 / 48 ranks, 5,208 nodes of 8 GPUs.
    let more = Scenario { nodes: 6000, size_bytes: 4 * 384_000 * 700, ..scenario };
    let error = simulate(&more.validate().unwrap()).map(|_| ()).unwrap_err();
    assert!(
        error.problem.contains("turning the ring by whole nodes does not keep its routes")
            && error.problem.ends_with(": use at most 5208 nodes here"),
        "{}",
        error.problem
    );
}
