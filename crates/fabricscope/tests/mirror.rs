//! NCCL's two trees folded into one lane (`engine::mirror`, `Symmetry::mirrored`): where the
//! proof holds, lane 0 alone on the group's folded links ends when the two lanes that run for
//! all end, and when every transfer simulated ends; where the fabric or the node count has no
//! mirror, the proof says no.

use fabricscope::collective::Algorithm::NvlsTree;
use fabricscope::engine::symmetry::Symmetry;
use fabricscope::engine::Run;
use fabricscope::scenario::{FabricConfig, FabricTopology};
use fabricscope::units::SimTime;
use fabricscope::{simulate_as, Mode, Scenario};

/// A run to its end, every flow recorded.
fn end(
    mut run: Run,
    topology: &fabricscope::topology::Topology,
    schedule: &fabricscope::collective::Schedule,
) -> SimTime {
    while !run.advance(topology, schedule, u64::MAX) {}
    run.finish(topology).0.end
}

/// NVLSTree on `s` (the tuner's pick at NCCL's defaults) as the model cuts it: the end of every
/// transfer simulated, of the two lanes on σ's fold and of lane 0 on the mirror's, or `None`
/// for the last where the mirror is not proved.
fn ends(s: &Scenario) -> (SimTime, SimTime, Option<SimTime>) {
    let valid = s.validate().unwrap();
    let exact = simulate_as(&valid, Mode::Exact).unwrap();
    let (topology, schedule, policy) = (&exact.topology, &exact.schedule, valid.policy());
    assert_eq!(schedule.algorithm, NvlsTree, "{s:?}");
    let proof = Symmetry::find_strided(topology, schedule, policy).expect("the channels fold");
    assert_eq!((proof.stride(), proof.parts()), (2, 8), "{s:?}: part 0 of channels 0 and 1 run");
    let lanes = proof.channel_zero(schedule);
    let two = end(Run::new_folded(topology, &lanes, policy, proof.fold(topology)), topology, &lanes);
    let one = proof
        .mirrored(topology, &lanes)
        .map(|(lane0, m)| end(Run::new_folded(topology, &lane0, policy, m.fold), topology, &lane0));
    (exact.trace.end, two, one)
}

#[test]
fn one_lane_on_the_mirror_ends_with_two_and_with_every_transfer() {
    let cases = [
        Scenario { nodes: 2, size_bytes: 64 << 20, ..Scenario::default_demo() },
        Scenario { nodes: 4, size_bytes: 256 << 20, ..Scenario::default_demo() },
        Scenario { nodes: 8, size_bytes: 64 << 20, ..Scenario::default_demo() },
        Scenario { nodes: 16, size_bytes: 128 << 20, ..Scenario::default_demo() },
        Scenario { preset: "hgx-b200".into(), nodes: 6, size_bytes: 64 << 20, ..Scenario::default_demo() },
        // Two leaf groups of 32 nodes: tree edges cross the spines.
        Scenario { nodes: 64, size_bytes: 16 << 20, algorithm: Some(NvlsTree), ..Scenario::default_demo() },
    ];
    for s in cases {
        let (exact, two, one) = ends(&s);
        let one = one.unwrap_or_else(|| panic!("{} {} nodes: the mirror is proved", s.preset, s.nodes));
        eprintln!("{} {} nodes: every transfer {exact:?}, two lanes {two:?}, one {one:?}", s.preset, s.nodes);
        assert_eq!(one, two, "{} {} nodes", s.preset, s.nodes);
        assert_eq!(one, exact, "{} {} nodes", s.preset, s.nodes);
    }
}

#[test]
fn no_mirror_is_claimed_where_there_is_none() {
    // An odd number of nodes: NCCL's tree 1 is tree 0 shifted by one, not mirrored.
    let odd = Scenario { nodes: 5, size_bytes: 64 << 20, ..Scenario::default_demo() };
    let (exact, two, one) = ends(&odd);
    assert_eq!((one, two), (None, exact));
    // 40 nodes: a leaf group of 32 and one of 8, which the nodes' mirror does not keep (nodes 7
    // and 8 share a leaf, their images 32 and 31 do not); a 2:1 oversubscribed leaf-spine, whose
    // static routes over half the up-links need not mirror. Whatever is claimed must hold.
    let cut =
        Scenario { nodes: 40, size_bytes: 16 << 20, algorithm: Some(NvlsTree), ..Scenario::default_demo() };
    let oversubscribed = Scenario {
        nodes: 64,
        size_bytes: 16 << 20,
        algorithm: Some(NvlsTree),
        fabric: FabricConfig {
            topology: FabricTopology::LeafSpine,
            oversubscription: 2.0,
            ..Scenario::default_demo().fabric
        },
        ..Scenario::default_demo()
    };
    for s in [cut, oversubscribed] {
        let (exact, two, one) = ends(&s);
        assert_eq!(two, exact);
        assert!(one.is_none_or(|one| one == exact), "{} nodes: {one:?} against {exact:?}", s.nodes);
        let said = if one.is_some() { "holds" } else { "is refused" };
        eprintln!("{} nodes, {:?}: the mirror {said}", s.nodes, s.fabric.topology);
    }
}

/// More than the end: the two lanes' trace rebuilt from lane 0's run on the mirror's fold
/// (`Symmetry::unmirrored`) is their own run's on σ's fold, bit for bit: every flow's number,
/// path, times, rates and byte counts, every link's bytes and peak, the batches and the hash.
#[test]
fn the_two_lanes_rebuilt_from_one_are_their_run_bit_for_bit() {
    for (nodes, size) in
        [(8u32, 64u64 << 20), (16, 128 << 20), (64, 16 << 20), (32, 1 << 30), (128, 16 << 20)]
    {
        let s = Scenario { nodes, size_bytes: size, algorithm: Some(NvlsTree), ..Scenario::default_demo() };
        let valid = s.validate().unwrap();
        let sim = simulate_as(&valid, Mode::Symmetric).unwrap();
        let (topology, schedule, policy) = (&sim.topology, &sim.schedule, valid.policy());
        let proof = Symmetry::find_strided(topology, schedule, policy).unwrap();
        let lanes = proof.channel_zero(schedule);
        let trace = |mut run: Run, schedule: &fabricscope::collective::Schedule| {
            while !run.advance(topology, schedule, u64::MAX) {}
            run.finish(topology).0
        };
        let two = trace(Run::new_folded(topology, &lanes, policy, proof.fold(topology)), &lanes);
        let (lane0, mirrored) = proof.mirrored(topology, &lanes).unwrap();
        let one = trace(Run::new_folded(topology, &lane0, policy, mirrored.fold.clone()), &lane0);
        assert_eq!(one.flows.len() * 2, two.flows.len(), "{nodes} nodes");
        let rebuilt = proof.unmirrored(topology, &mirrored, one);
        let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        for (a, b) in rebuilt.flows.iter().zip(&two.flows) {
            let record = |f: &fabricscope::trace::FlowRecord| {
                let segments: Vec<_> = f
                    .segments
                    .iter()
                    .map(|g| (g.from, g.rate_bytes_per_ns.to_bits(), g.done_bytes.to_bits()))
                    .collect();
                (f.transfer, f.path.clone(), f.bytes, f.issued, f.started, f.finished, segments)
            };
            assert_eq!(record(a), record(b), "{nodes} nodes");
        }
        assert_eq!(bits(&rebuilt.link_peak), bits(&two.link_peak), "{nodes} nodes: link peaks");
        assert_eq!(bits(&rebuilt.link_bytes), bits(&two.link_bytes), "{nodes} nodes: link bytes");
        assert_eq!((rebuilt.end, rebuilt.batches), (two.end, two.batches), "{nodes} nodes");
        assert_eq!(rebuilt.hash(), two.hash(), "{nodes} nodes");
    }
}

/// NVLSTree's finer run (`chunk_fit`, `FINE_CHUNKS` per part) builds lane 0 alone where tree
/// 1 is proved tree 0's mirror on the one-chunk schedule (`FirstChannelsBuild::start_lane_zero`):
/// on DGX H100 at NCCL's 8 channels, part 0 of channel 0 of 8 parts, a 64th of the whole's
/// transfers against a 32nd for two lanes, and its end is every transfer's, to the nanosecond. Where the mirror is refused (an odd node count, a leaf group cut short) the two
/// lanes run instead, with the same end.
#[test]
fn lane_zero_built_alone_at_the_finer_chunks_ends_with_every_transfer() {
    use fabricscope::collective::Protocol;
    use fabricscope::{nvls_tree_ran, FINE_CHUNKS};
    let forced = |preset: &str, nodes: u32, size_bytes: u64| Scenario {
        preset: preset.into(),
        nodes,
        size_bytes,
        algorithm: Some(NvlsTree),
        ..Scenario::default_demo()
    };
    // (scenario, lanes that run: 1 on the mirror, else 2)
    let cases = [
        (forced("dgx-h100", 2, 64 << 20), 1),
        (forced("dgx-h100", 4, 256 << 20), 1),
        (forced("dgx-h100", 8, 256 << 20), 1),
        (forced("dgx-h100", 16, 128 << 20), 1),
        (forced("hgx-b200", 6, 64 << 20), 1),
        (forced("dgx-h100", 64, 16 << 20), 1),
        (forced("dgx-h100", 5, 64 << 20), 2),
        (forced("dgx-h100", 40, 16 << 20), 2),
    ];
    for (s, lanes) in cases {
        let valid = s.validate().unwrap();
        let ran = |fold| nvls_tree_ran(&valid, Protocol::Simple, FINE_CHUNKS, fold).unwrap();
        let ((folded, ran_folded), (every, whole)) = (ran(true), ran(false));
        let what = format!("{} {} nodes", s.preset, s.nodes);
        eprintln!("{what} at {FINE_CHUNKS} chunks: {ran_folded} of {whole} transfers end at {folded:?}, every transfer at {every:?}");
        let (channels, parts) = (valid.channels() as usize, valid.preset().rings[0].len());
        assert_eq!(ran_folded * channels * parts, whole * lanes, "{what}: lanes run");
        assert_eq!(folded, every, "{what}");
    }
}
