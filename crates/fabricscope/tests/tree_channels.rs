//! A tree too big to build whole, run by its channels' symmetry from the channels that stand
//! for all alone (`simulation::tree_channels`), against the same tree built whole and folded
//! (the same row, hash included, bit for bit) and against every transfer simulated (`Mode::Exact`:
//! the same time to the nanosecond). And a sweep's hashed row (`Job::point_hashed`: the whole
//! trace's hash streamed from a run folded by its channels) against the row of the lean job's
//! expanded trace.

use fabricscope::catalog::Technology;
use fabricscope::collective::{transfer_count_with, Algorithm};
use fabricscope::plan::{Admission, Budget, ENGINE_BUDGET, PAGE_BUDGET};
use fabricscope::scenario::{FabricConfig, Fault, FaultKind};
use fabricscope::{sweep_point, Job, Mode, Scenario, SweepPoint};

fn row(s: &Scenario, budget: Budget) -> SweepPoint {
    let valid = s.validate().unwrap();
    Job::within(&valid, Mode::Auto, budget).point_hashed().run().unwrap()
}

/// What a full lean job gives: its trace expanded and hashed.
fn expanded_row(s: &Scenario) -> SweepPoint {
    let valid = s.validate().unwrap();
    sweep_point(&Job::new(&valid, Mode::Auto).lean().run().unwrap(), true)
}

/// How a row's runs were obtained: NVLSTree's fitted to NCCL's chunks from two (`Method::ChunkFit`).
fn runs(row: &SweepPoint) -> &'static str {
    row.chunk_fit.map_or(row.method, |fit| fit.runs).name()
}

fn budget(transfers: u64) -> Budget {
    Budget { transfers, ..ENGINE_BUDGET }
}

#[test]
fn a_tree_run_from_its_first_channels_is_the_whole_tree_folded() {
    // 16 DGX H100 at 8 channels: a ring of 260,096 transfers, so the big plan weighs the trees
    // from one chunk; a budget below the tree's whole makes the point build channels 0 and 1.
    let cases = [
        (Some(Algorithm::NvlsTree), 128 << 20, 100_000),
        (None, 128 << 20, 100_000),
        // The tuner's LL128 cuts 59 chunks of 144,000 B a channel: 119,888 transfers, 29,972 in
        // channels 0 and 1.
        (Some(Algorithm::Tree), 64 << 20, 40_000),
        (Some(Algorithm::Tree), 1 << 30, 100_000),
    ];
    for (algorithm, size_bytes, limit) in cases {
        let s = Scenario { nodes: 16, size_bytes, algorithm, ..Scenario::default_demo() };
        let whole = row(&s, ENGINE_BUDGET);
        let lean = row(&s, budget(limit));
        let expected = algorithm.unwrap_or(Algorithm::NvlsTree);
        assert_eq!(whole.algorithm, expected, "{s:?}: the tuner's pick");
        assert_eq!(runs(&whole), "exact by symmetry");
        // The run from channels 0 and 1 ran the tree (not the ring row a tree too big falls back to) and gave
        // the whole's row to the bit, its trace's hash included.
        assert_eq!(lean, whole, "{algorithm:?} {size_bytes} B within {limit} transfers");
    }
}

#[test]
fn a_tree_run_from_its_first_channels_is_every_transfer_simulated() {
    // 8 DGX H100 at 32 channels: a ring of 258,048 transfers (the big plan), NVLSTree of 307,200
    // (8 chunks of NCCL's 64 KiB per part and channel), of which channels 0 and 1 run within 20,000.
    let s = Scenario {
        nodes: 8,
        size_bytes: 128 << 20,
        channels: Some(32),
        algorithm: Some(Algorithm::NvlsTree),
        ..Scenario::default_demo()
    };
    let lean = row(&s, budget(20_000));
    let exact = fabricscope::simulate_as(&s.validate().unwrap(), Mode::Exact).unwrap();
    assert_eq!((lean.algorithm, lean.method.name()), (Algorithm::NvlsTree, "exact by symmetry"));
    assert_eq!(exact.schedule.transfers.len(), 307_200);
    assert_eq!(lean.time_us, exact.summary.time.as_us(), "to the nanosecond");
    assert_eq!(lean.busbw_gbyte_per_s, exact.summary.busbw_gbyte_per_s);
}

#[test]
fn a_tree_whose_channels_do_not_fold_is_not_run_from_its_first_channels() {
    // A slow NIC on node 3 (no proof of the channels' symmetry), and a message that does not
    // split into equal channels: the tree is not run from its first channels. (Here the ring row
    // that runs instead does not settle, and a ring the engine can run whole sends the job back
    // to the exact plan, which runs the tuner's tree whole.)
    let mut slow = Scenario { nodes: 16, size_bytes: 128 << 20, ..Scenario::default_demo() };
    slow.faults.push(Fault { kind: FaultKind::Nic, node: 3, leaf: 0, index: 0, rate: 0.5 });
    let uneven = Scenario { nodes: 16, size_bytes: (128 << 20) + 4, ..Scenario::default_demo() };
    for s in [slow, uneven] {
        let lean = row(&s, budget(20_000));
        assert_ne!(lean.method.name(), "exact by symmetry", "{lean:?}");
    }
}

#[test]
fn a_hashed_point_is_the_expanded_traces_row() {
    // Folded by channels (a ring, trees two for eight), turned by whole nodes, a proved steady
    // state, extrapolated, and run whole: the streamed hash is the expanded trace's.
    let cases = [
        (8, Some(Algorithm::Ring), None, 1 << 30),
        (8, Some(Algorithm::Tree), None, 1 << 30),
        (8, None, None, 16 << 20),
        (4, Some(Algorithm::NvlsTree), None, 64 << 20),
        (16, Some(Algorithm::Ring), Some(1), 1 << 30),
        (64, Some(Algorithm::Ring), None, 1 << 30),
        (2, Some(Algorithm::Ring), Some(3), 1 << 20),
    ];
    let mut methods = std::collections::BTreeSet::new();
    for (nodes, algorithm, channels, size_bytes) in cases {
        let s = Scenario { nodes, size_bytes, algorithm, channels, ..Scenario::default_demo() };
        let (streamed, expanded) = (row(&s, ENGINE_BUDGET), expanded_row(&s));
        assert_eq!(streamed, expanded, "{nodes} nodes, {algorithm:?}, {channels:?} channels, {size_bytes} B");
        assert_eq!(streamed.trace_hash.len(), 16);
        methods.insert(streamed.method.name());
    }
    assert!(methods.len() >= 3, "{methods:?}");
}

#[test]
fn the_page_says_when_the_command_line_runs_the_tree_it_could_not_show() {
    // 128 DGX H100, 128 MiB: the page runs the best ring row (NVLSTree's 2,488,320 transfers are
    // beyond its budget and its trace beyond any); a sweep's row runs NVLSTree from part 0 of
    // channels 0 and 1, as the page then says; at 512 nodes too (311,232 of 9,959,424), and at
    // 4,096, where even those are beyond the engine at the model's 16 chunks per part (2,490,304)
    // but not at 8 (`plan::tree_cap`). One element more, and channels of unequal length do not
    // fold: the command line runs the ring row too.
    let cases = [
        (128, 128 << 20, true),
        (512, 128 << 20, true),
        (4096, 128 << 20, true),
        (4096, (128 << 20) + 4, false),
    ];
    for (nodes, size_bytes, natively) in cases {
        let s = Scenario { nodes, size_bytes, ..Scenario::default_demo() };
        let valid = s.validate().unwrap();
        let shown = Job::within(&valid, Mode::Auto, fabricscope::plan::PAGE_BUDGET).run().unwrap();
        assert_eq!(shown.tuner_pick_not_run(), Some(Algorithm::NvlsTree), "{nodes} nodes");
        assert_eq!(shown.tuner_pick_may_run_natively(), natively, "{nodes} nodes");
        if natively && nodes == 128 {
            let row = row(&s, ENGINE_BUDGET);
            assert_eq!((row.algorithm, runs(&row)), (Algorithm::NvlsTree, "exact by symmetry"));
        }
    }
}

#[test]
fn a_forced_tree_beyond_the_engine_runs_as_a_sweeps_point_from_its_first_channels() {
    // 128 DGX H100 at NCCL's 8 channels, NVLSTree forced: 2,488,320 transfers whole, beyond the
    // engine's limit; channels 0 and 1 (622,080) stand for all, so validation admits it as a
    // sweep's point. The page's budget admits neither; a run to show says why not.
    let s = Scenario {
        nodes: 128,
        size_bytes: 128 << 20,
        algorithm: Some(Algorithm::NvlsTree),
        ..Scenario::default_demo()
    };
    let valid = s.validate().expect("admitted from its first channels");
    assert_eq!(valid.admit(ENGINE_BUDGET), Admission::Channels { transfers: 2_488_320 });
    assert_eq!(Job::admitted(&valid, PAGE_BUDGET).err(), Some(2_488_320));
    let shown = fabricscope::simulate_as(&valid, Mode::Auto).unwrap_err();
    assert!(shown.problem.contains("a sweep's row (fabricscope allreduce) runs it"), "{shown:?}");
    // Without static routes on a lossless fabric no proof would hold: refused by name (RoCE,
    // and InfiniBand said to lose 10% where flows share a link).
    let roce = FabricConfig { technology: Technology::Roce, ..s.fabric.clone() };
    let lossy = FabricConfig { congested_efficiency: Some(0.9), ..s.fabric.clone() };
    for fabric in [roce, lossy] {
        let errors = Scenario { fabric, ..s.clone() }.validate().unwrap_err();
        assert!(errors[0].problem.contains("more than the engine's limit"), "{errors:?}");
    }
    // A forced Tree is counted as the tree it is (2,095,104 transfers at 128 nodes; its
    // channels 0 and 1, 523,776), not as the ring the tuner's table would weigh beside it; a
    // forced Tree within the limit beside a ring beyond it stays refused (CollNet on, so the
    // ring does not go to the big plan either).
    let tree = Scenario { algorithm: Some(Algorithm::Tree), size_bytes: 1 << 30, ..s.clone() };
    assert_eq!(tree.validate().unwrap().admit(ENGINE_BUDGET), Admission::Channels { transfers: 2_095_104 });
    let collnet = Scenario { nodes: 64, collnet: true, ..tree };
    assert!(collnet.validate().is_err_and(|errors| errors[0].problem.contains("4186112 transfers")));
    // 16 nodes within a budget below the whole: forced, the tree gives the tuner's own row.
    let at16 =
        |algorithm| Scenario { nodes: 16, size_bytes: 128 << 20, algorithm, ..Scenario::default_demo() };
    let (forced, tuned) =
        (row(&at16(Some(Algorithm::NvlsTree)), budget(100_000)), row(&at16(None), budget(100_000)));
    assert_eq!(
        (forced.algorithm, forced.time_us, forced.busbw_gbyte_per_s, &forced.trace_hash, forced.method),
        (tuned.algorithm, tuned.time_us, tuned.busbw_gbyte_per_s, &tuned.trace_hash, tuned.method)
    );
    // The same path at 8 nodes within a budget of half the whole: the row is the whole tree's,
    // hash included, and a run to show is refused the same way.
    for algorithm in [Algorithm::NvlsTree, Algorithm::Tree] {
        let s = Scenario {
            nodes: 8,
            size_bytes: 1 << 30,
            algorithm: Some(algorithm),
            ..Scenario::default_demo()
        };
        let transfers = transfer_count_with(s.collective, s.algorithm, 8, 8, s.count(), 8);
        assert!(transfers >= 100_000, "{algorithm:?}: {transfers}");
        let limit = budget(transfers / 2);
        let whole = row(&s, ENGINE_BUDGET);
        assert_eq!((whole.algorithm, runs(&whole)), (algorithm, "exact by symmetry"));
        assert_eq!(row(&s, limit), whole, "{algorithm:?}");
        let valid = s.validate().unwrap();
        let shown = Job::within(&valid, Mode::Auto, limit).run().map(|sim| sim.summary.method.name());
        assert!(
            shown.is_err_and(|e| e.problem.contains("channels 0 and 1, which stand for all")),
            "{algorithm:?}"
        );
    }
}
