//! A sweep's points as the page's busbw chart runs them (`Job::lean`: only the forced
//! algorithm weighed for the tuner's table): the same run and the same figures as a full job.

use fabricscope::collective::Algorithm;
use fabricscope::{sweep_point, Collective, Job, Mode, Scenario};

fn point(scenario: &Scenario, lean: bool) -> fabricscope::SweepPoint {
    let valid = scenario.validate().unwrap();
    let job = Job::new(&valid, Mode::Auto);
    let mut job = if lean { job.lean() } else { job };
    loop {
        if let Some(result) = job.poll(u64::MAX) {
            return sweep_point(&result.unwrap(), true);
        }
    }
}

#[test]
fn a_lean_point_is_the_full_jobs_point() {
    let mut checked = 0;
    for (nodes, nvls, collnet) in [(1, true, false), (2, false, false), (4, true, true)] {
        for algorithm in [
            Algorithm::Ring,
            Algorithm::Tree,
            Algorithm::Nvls,
            Algorithm::NvlsTree,
            Algorithm::CollNet,
            Algorithm::HalvingDoubling,
        ] {
            for size_bytes in [4 << 10, 1 << 20, 64 << 20] {
                let s = Scenario {
                    nodes,
                    size_bytes,
                    nvls,
                    collnet,
                    algorithm: Some(algorithm),
                    ..Scenario::default_demo()
                };
                if s.validate().is_err() {
                    continue;
                }
                let (lean, full) = (point(&s, true), point(&s, false));
                assert_eq!(lean, full, "{nodes} nodes, {algorithm:?}, {size_bytes} B");
                checked += 1;
            }
        }
    }
    // Another collective, its algorithm forced and not.
    for algorithm in [Some(Algorithm::Ring), None] {
        let s =
            Scenario { nodes: 2, collective: Collective::AllGather, algorithm, ..Scenario::default_demo() };
        assert_eq!(point(&s, true), point(&s, false), "AllGather {algorithm:?}");
        checked += 1;
    }
    // The big plan (a ring beyond the engine's transfers, extrapolated; a Tree the tuner weighs
    // from one chunk): a lean point weighs no tree it does not run.
    for algorithm in [Algorithm::Ring, Algorithm::Tree] {
        let s = Scenario {
            nodes: 64,
            size_bytes: 16 << 20,
            algorithm: Some(algorithm),
            ..Scenario::default_demo()
        };
        assert_eq!(point(&s, true), point(&s, false), "64 nodes, {algorithm:?}");
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} points");
}

/// A hashed job (the page's) works a large trace's hash out a slice of flows at a time, and
/// gets the hash the trace has.
#[test]
fn a_hashed_jobs_result_has_its_traces_hash() {
    let s = Scenario {
        nodes: 8,
        size_bytes: 1 << 30,
        algorithm: Some(Algorithm::Ring),
        ..Scenario::default_demo()
    };
    let valid = s.validate().unwrap();
    let mut job = Job::new(&valid, Mode::Auto).hashed();
    // Polls that returned with the hash part-way.
    let mut part_way = 0;
    let sim = loop {
        if let Some(result) = job.poll(u64::MAX) {
            break result.unwrap();
        }
        if job.progress() < 1.0 && job.progress() > 0.0 {
            part_way += 1;
        }
    };
    assert!(sim.trace.flows.len() > 32_768, "{} flows", sim.trace.flows.len());
    assert!(part_way >= 1, "the hash was not worked out in slices");
    let plain = fabricscope::simulate(&valid).unwrap();
    assert_eq!(sim.hash_hex(), plain.hash_hex());
    assert_eq!(format!("{:016x}", sim.trace.hash()), plain.trace.hash_hex());
}

/// A point job (`Job::point`: the chart's) never expands a run that stood for all to the whole
/// trace, and gives the lean job's figures to the last bit: exact by symmetry (channel 0 for 8,
/// trees two for eight; a forced ring's channel 0 built alone, `ring_point`), turned by whole
/// nodes, a proved steady state, extrapolated, and run whole.
#[test]
fn a_point_job_gives_the_lean_jobs_figures() {
    let point_of = |s: &Scenario| {
        let mut job = Job::new(&s.validate().unwrap(), Mode::Auto).point();
        loop {
            if let Some(result) = job.poll(64) {
                return result.unwrap();
            }
        }
    };
    let lean_of = |s: &Scenario| {
        let mut lean = point(s, true);
        lean.trace_hash.clear();
        lean
    };
    let mut methods = std::collections::BTreeSet::new();
    let cases = [
        (1, Some(Algorithm::Ring), None, 1 << 30),
        (8, Some(Algorithm::Ring), None, 1 << 30),
        (8, Some(Algorithm::Ring), None, 64 << 10),
        (8, Some(Algorithm::Tree), None, 1 << 30),
        (8, None, None, 16 << 20),
        (16, Some(Algorithm::Ring), Some(1), 1 << 30),
        // A ring whose search finds no period and that the engine runs whole: channel 0 alone.
        (16, Some(Algorithm::Ring), None, 16 << 20),
        (128, Some(Algorithm::Ring), Some(1), 1 << 30),
        (64, Some(Algorithm::Ring), None, 1 << 30),
        (128, Some(Algorithm::Ring), None, 256 << 20),
        (128, Some(Algorithm::Tree), None, 1 << 20),
    ];
    for (nodes, algorithm, channels, size_bytes) in cases {
        let s = Scenario { nodes, size_bytes, algorithm, channels, nvls: false, ..Scenario::default_demo() };
        let (point, lean) = (point_of(&s), lean_of(&s));
        assert_eq!(point, lean, "{nodes} nodes, {algorithm:?}, {channels:?} channels, {size_bytes} B");
        methods.insert(point.method.name());
    }
    // A forced tree's channels that run for all built alone (`tree_point`), its bound from their
    // bytes spread over the channels' images: the tuner's figures too, to the bit, at sizes of
    // many chunks, of a few, and of one per channel (where the one-chunk proof is on the whole),
    // each protocol, and on 1,024 GPUs at the chart's smallest sizes.
    use fabricscope::collective::Protocol;
    for (nodes, algorithm, size_bytes, protocol) in [
        (8, Algorithm::NvlsTree, 1 << 30, None),
        (8, Algorithm::NvlsTree, 24 << 20, Some(Protocol::Simple)),
        (16, Algorithm::NvlsTree, 128 << 20, None),
        (4, Algorithm::NvlsTree, 512 << 10, None),
        (8, Algorithm::Tree, 512 << 10, Some(Protocol::Ll)),
        (8, Algorithm::Tree, 64 << 20, None),
        (128, Algorithm::NvlsTree, 1 << 10, None),
        (128, Algorithm::Tree, 64 << 10, None),
    ] {
        let algorithm = Some(algorithm);
        let s = Scenario { nodes, size_bytes, algorithm, protocol, ..Scenario::default_demo() };
        let (point, lean) = (point_of(&s), lean_of(&s));
        assert_eq!(point, lean, "{nodes} nodes, {algorithm:?} {protocol:?}, {size_bytes} B");
        // NVLSTree at 1 GiB: both runs of its fit to NCCL's chunks (`Method::ChunkFit`).
        let runs = point.chunk_fit.map_or(point.method, |fit| fit.runs);
        methods.insert(point.method.name());
        assert_eq!(runs.name(), "exact by symmetry", "{nodes} nodes, {algorithm:?}, {size_bytes} B");
    }
    assert_eq!(methods.len(), 5, "every method: {methods:?}");
}
