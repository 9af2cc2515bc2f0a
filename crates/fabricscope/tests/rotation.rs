//! Node rotation (`engine::rotation`): where turning a ring by whole nodes keeps its routes, the
//! positions of a few nodes, run alone on the links folded into their orbits, move exactly as the
//! whole ring's do. Each case runs a ring prefix's channel 0 unrotated (on the channel-folded
//! links, as the measuring run did before) and rotated, and compares every transfer's finish:
//! the rotated run's with the same position's, and every position's with its class
//! representative's. The proof must also refuse what does not turn (a leaf group cut short, a
//! slow NIC).

use fabricscope::collective::{
    ring_first_step, ring_prefix_channel_zero, ring_prefix_rotated, Protocol, Schedule,
};
use fabricscope::engine::rotation::Rotation;
use fabricscope::engine::symmetry::{Fold, Symmetry};
use fabricscope::engine::Run;
use fabricscope::routing::Router;
use fabricscope::scenario::{Fault, FaultKind};
use fabricscope::topology::{LinkId, Topology};
use fabricscope::units::SimTime;
use fabricscope::{Collective, Scenario};

const STEPS: u32 = 40;

fn scenario(preset: &str, nodes: u32, radix: u32, channels: u32, collective: Collective) -> Scenario {
    let mut s = Scenario {
        preset: preset.into(),
        nodes,
        collective,
        channels: Some(channels),
        protocol: Some(Protocol::Simple),
        ..Scenario::default_demo()
    };
    s.fabric.radix = Some(radix);
    // Equal chunks on every rank and channel, as a steady ring needs.
    let n = nodes as u64 * 8;
    s.size_bytes = n * channels as u64 * 4 * 1024;
    s
}

/// Every transfer's finish in `schedule` run on `fold` (or the cluster's links).
fn finishes(topology: &Topology, schedule: &Schedule, s: &Scenario, fold: Option<Fold>) -> Vec<SimTime> {
    let policy = s.clone().validate().unwrap().policy();
    let mut run = match fold {
        Some(fold) => Run::new_folded(topology, schedule, policy, fold),
        None => Run::new(topology, schedule, policy, None),
    };
    while !run.advance(topology, schedule, u64::MAX) {}
    run.finish(topology).0.flows.iter().map(|f| f.finished).collect()
}

/// Channel 0's routed paths of one step, and the channels' fold where there are several.
fn channel_zero(topology: &Topology, s: &Scenario) -> (Option<Fold>, Vec<Vec<LinkId>>) {
    let valid = s.clone().validate().unwrap();
    let rings = &valid.preset().rings;
    let channels = valid.channels();
    let step = ring_first_step(s.collective, s.nodes, rings, s.count(), channels).unwrap();
    let n = valid.n_ranks() as usize;
    if channels > 1 {
        let symmetry = Symmetry::find(topology, &step, valid.policy()).expect("the channels fold");
        (Some(symmetry.fold(topology)), symmetry.channel_zero_paths()[..n].to_vec())
    } else {
        let mut router = Router::for_transfers(topology, valid.policy(), &step.transfers);
        let load = vec![0u32; topology.n_links()];
        (None, step.transfers.iter().map(|t| router.route_transfer(t, &load)).collect())
    }
}

/// Runs the case both ways; returns the nodes a class holds (`None`: no rotation proved).
fn agree(s: &Scenario) -> Option<u32> {
    let valid = s.clone().validate().unwrap();
    let topology = valid.topology();
    let rings = &valid.preset().rings;
    let channels = valid.channels();
    let (fold, paths) = channel_zero(&topology, s);
    let rotation = Rotation::find(&topology, fold.as_ref(), &paths, s.nodes)?;
    let what = format!("{} {:?} {} nodes, {channels} channels", s.preset, s.collective, s.nodes);
    let n = valid.n_ranks() as usize;
    let class = rotation.nodes as usize * n / s.nodes as usize;
    let whole = ring_prefix_channel_zero(s.collective, s.nodes, rings, s.count(), channels, STEPS).unwrap();
    let rotated =
        ring_prefix_rotated(s.collective, s.nodes, rings, s.count(), channels, STEPS, rotation.nodes)
            .unwrap();
    assert_eq!(rotated.transfers.len(), STEPS as usize * class, "{what}");
    let all = finishes(&topology, &whole, s, fold);
    let few = finishes(&topology, &rotated, s, Some(rotation.fold));
    for step in 0..STEPS as usize {
        for p in 0..n {
            assert_eq!(
                all[step * n + p],
                few[step * class + p % class],
                "{what}: step {step}, position {p} (class of {} nodes)",
                rotation.nodes
            );
        }
    }
    eprintln!("{what}: {} of {} nodes stand for the ring, every finish the same", rotation.nodes, s.nodes);
    Some(rotation.nodes)
}

#[test]
fn a_few_nodes_stand_for_the_ring() {
    // Radix 16: a leaf holds 8 nodes' NICs of one rail, so the ring turns by 8 nodes.
    for (preset, nodes, radix, channels, collective) in [
        ("dgx-h100", 16, 16, 8, Collective::AllReduce),
        ("dgx-h100", 16, 16, 1, Collective::AllReduce),
        ("dgx-h100", 32, 16, 8, Collective::AllGather),
        ("dgx-h100", 24, 16, 8, Collective::ReduceScatter),
        ("dgx-a100", 16, 16, 8, Collective::AllReduce),
        ("hgx-b200", 16, 16, 8, Collective::AllReduce),
    ] {
        let s = scenario(preset, nodes, radix, channels, collective);
        let m = agree(&s).unwrap_or_else(|| panic!("{preset} {nodes} nodes radix {radix}: no rotation"));
        assert!(m < nodes && nodes % m == 0);
    }
}

#[test]
fn what_does_not_turn_is_refused() {
    // 10 nodes on leaves of 8: the last leaf group is cut short, no rotation short of 10 maps
    // the fabric onto itself.
    assert_eq!(agree(&scenario("dgx-h100", 10, 16, 8, Collective::AllReduce)), None);
    // A slow NIC on node 3 (one channel: nothing folds before the rotation is sought).
    let mut slow = scenario("dgx-h100", 16, 16, 1, Collective::AllReduce);
    slow.faults.push(Fault { kind: FaultKind::Nic, node: 3, leaf: 0, index: 0, rate: 0.5 });
    assert_eq!(agree(&slow), None);
    // The same without the fault turns (the refusal above is the fault's).
    assert_eq!(agree(&scenario("dgx-h100", 16, 16, 1, Collective::AllReduce)), Some(8));
}
