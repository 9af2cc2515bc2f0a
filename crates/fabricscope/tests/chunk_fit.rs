//! NVLSTree's time fitted to NCCL's chunks (`Method::ChunkFit`: runs at 16 and 32 chunks per
//! part, `T(C) = A + B / C` through both) against the run cut into NCCL's every chunk, over a
//! matrix of node counts, sizes, nodes, fabrics and channel counts: within `CHUNK_FIT_BOUND`.

use fabricscope::catalog::{Routing, Technology};
use fabricscope::collective::{nvls_tree, Algorithm, Protocol};
use fabricscope::scenario::{FabricConfig, FabricTopology, Wiring};
use fabricscope::{nvls_tree_time, sweep_size, Method, Scenario, CHUNK_FIT_BOUND, FINE_CHUNKS};

struct Case {
    what: String,
    scenario: Scenario,
}

fn case(preset: &str, nodes: u32, size_bytes: u64, fabric: FabricConfig, channels: Option<u32>) -> Case {
    let scenario = Scenario {
        preset: preset.into(),
        nodes,
        size_bytes,
        channels,
        algorithm: Some(Algorithm::NvlsTree),
        fabric,
        ..Scenario::default_demo()
    };
    let what = format!(
        "{preset} x{nodes} {} MiB {:?}/{:?}/{:?} oversub {} channels {channels:?}",
        size_bytes >> 20,
        scenario.fabric.technology,
        scenario.fabric.wiring,
        scenario.fabric.routing,
        scenario.fabric.oversubscription
    );
    Case { what, scenario }
}

fn matrix() -> Vec<Case> {
    let ib = FabricConfig::default;
    let mut cases = Vec::new();
    for (nodes, sizes) in [
        (2, &[256 << 20, 1 << 30, 4 << 30][..]),
        (3, &[1 << 30][..]),
        (4, &[256 << 20, 1 << 30][..]),
        (8, &[256 << 20, 512 << 20, 1 << 30, 4 << 30][..]),
        (16, &[1 << 30][..]),
        (32, &[256 << 20, 1 << 30][..]),
        (128, &[1 << 30][..]),
    ] {
        for &size in sizes {
            cases.push(case("dgx-h100", nodes, size, ib(), None));
        }
    }
    cases.push(case("hgx-b200", 8, 1 << 30, ib(), None));
    cases.push(case("hgx-b200", 16, 2 << 30, ib(), None));
    cases.push(case("dgx-h100", 8, 1 << 30, ib(), Some(16)));
    cases.push(case("dgx-h100", 8, 1 << 30, ib(), Some(4)));
    let node_wiring = FabricConfig { wiring: Wiring::Node, ..ib() };
    cases.push(case("dgx-h100", 8, 1 << 30, node_wiring, None));
    // All of a node's NICs on one leaf, 4:1 to the spines: the tree's hops cross them.
    let oversubscribed = FabricConfig {
        topology: FabricTopology::LeafSpine,
        oversubscription: 4.0,
        radix: Some(16),
        wiring: Wiring::Node,
        ..ib()
    };
    cases.push(case("dgx-h100", 8, 1 << 30, oversubscribed.clone(), None));
    cases.push(case("dgx-h100", 16, 512 << 20, oversubscribed, None));
    // RoCE with ECMP: routes that depend on the hash, no symmetry: every transfer of each run.
    let roce = FabricConfig { technology: Technology::Roce, routing: Some(Routing::Ecmp), ..ib() };
    cases.push(case("dgx-h100", 2, 1 << 30, roce.clone(), None));
    cases.push(case("dgx-h100", 4, 256 << 20, roce, None));
    cases
}

#[test]
fn nvlstree_fitted_to_nccls_chunks_is_within_its_bound_of_every_chunk_run() {
    let mut worst = (0.0f64, String::new());
    let mut fitted = 0;
    for Case { what, scenario } in matrix() {
        let valid = scenario.validate().unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let row = sweep_size(&valid, scenario.size_bytes, false).unwrap();
        assert_eq!(row.algorithm, Algorithm::NvlsTree, "{what}");
        let fit = row.chunk_fit.unwrap_or_else(|| panic!("{what}: no fit"));
        let (g, channels) = (8, valid.channels());
        let nccl = nvls_tree::nccl_part_chunking(scenario.nodes, scenario.count(), g, channels);
        assert_eq!((fit.nccl_chunk_bytes, fit.nccl_chunks), nccl, "{what}");
        assert_eq!(fit.fine_chunks, nccl.1.min(FINE_CHUNKS), "{what}");
        assert_eq!(row.method, Method::ChunkFit, "{what}");
        fitted += 1;
        let every = nvls_tree_time(&valid, Protocol::Simple, u64::MAX, true).unwrap();
        let error = (row.time_us * 1e3 - every.0 as f64) / every.0 as f64;
        println!(
            "{what}: fitted {:.1} us, every chunk ({} of {} KiB) {:.1} us: {:+.2}% (runs {} and {} us)",
            row.time_us,
            fit.nccl_chunks,
            fit.nccl_chunk_bytes >> 10,
            every.as_us(),
            100.0 * error,
            fit.run_ns / 1000,
            fit.fine_ns.unwrap() / 1000,
        );
        if error.abs() > worst.0 {
            worst = (error.abs(), what.clone());
        }
        assert!(error.abs() <= CHUNK_FIT_BOUND, "{what}: {:+.2}%", 100.0 * error);
    }
    println!("worst {:.2}%: {}", 100.0 * worst.0, worst.1);
    assert!(fitted >= 20);
}

/// Below the model's cap NCCL's chunks run as they are: no fit, the method the run's own.
#[test]
fn nvlstree_at_nccls_chunks_within_the_cap_is_not_fitted() {
    let s = Scenario {
        nodes: 8,
        size_bytes: 64 << 20,
        algorithm: Some(Algorithm::NvlsTree),
        ..Scenario::default_demo()
    };
    let valid = s.validate().unwrap();
    let row = sweep_size(&valid, s.size_bytes, false).unwrap();
    assert_eq!((row.method, row.chunk_fit), (Method::Symmetric, None));
    // 16 chunks of NCCL's 64 KiB per part, the model's run: every chunk NCCL's already.
    let every = nvls_tree_time(&valid, Protocol::Simple, u64::MAX, true).unwrap();
    assert_eq!(row.time_us, every.as_us());
}

/// A job run in one go (`Job::run`: natively, its finer run on a thread of its own, started
/// beside the model's run) gives what the same job polled a slice at a time gives (the finer
/// run after the model's, in the same thread): the fit, its figures and the trace's hash. The
/// tuner's own pick (8 nodes at 1 GiB) and NVLSTree forced at Exact mode (the runs not folded).
#[test]
fn a_job_run_in_one_go_fits_as_the_job_polled_in_slices() {
    use fabricscope::{Job, Mode};
    let tuner = Scenario { nodes: 8, size_bytes: 1 << 30, ..Scenario::default_demo() };
    let forced =
        Scenario { nodes: 4, size_bytes: 256 << 20, algorithm: Some(Algorithm::NvlsTree), ..tuner.clone() };
    for (scenario, mode) in [(tuner, Mode::Auto), (forced, Mode::Exact)] {
        let valid = scenario.validate().unwrap();
        let whole = Job::new(&valid, mode).run().unwrap();
        let mut job = Job::new(&valid, mode);
        let sliced = loop {
            if let Some(result) = job.poll(64) {
                break result.unwrap();
            }
        };
        let what = format!("{} nodes {:?}", scenario.nodes, mode);
        let fit = whole.chunk_fit.unwrap_or_else(|| panic!("{what}: a fit"));
        assert!(fit.fine_ns.is_some(), "{what}: the finer run ran");
        assert_eq!(whole.summary.method, Method::ChunkFit, "{what}");
        assert_eq!(whole.chunk_fit, sliced.chunk_fit, "{what}");
        assert_eq!(whole.summary.time, sliced.summary.time, "{what}");
        assert_eq!(whole.hash_hex(), sliced.hash_hex(), "{what}");
    }
}

/// The tuner's NVLSTree whose channels that stand for all are beyond the caller's limit at the
/// model's 16 chunks per part runs at fewer (`plan::tree_cap`): the same tree at 8 chunks run
/// transfer by transfer, to the nanosecond; above the 16-chunk run (bigger chunks fill the
/// tree's pipeline more slowly); no fit, and the row says why its time overstates NCCL's.
#[test]
fn nvlstree_beyond_the_limit_runs_in_fewer_chunks_and_says_it_overstates() {
    use fabricscope::plan::{tree_least_run, Budget, ENGINE_BUDGET};
    use fabricscope::{Job, Mode};
    let s = Scenario { nodes: 16, size_bytes: 1 << 30, ..Scenario::default_demo() };
    let valid = s.validate().unwrap();
    let (count, channels) = (s.count(), valid.channels());
    let least = |cap| tree_least_run(nvls_tree::transfer_count_at(16, 8, count, channels, cap), channels, 8);
    assert!(least(8) < least(16));
    let budget = Budget { transfers: least(16) - 1, ..ENGINE_BUDGET };
    let capped = Job::within(&valid, Mode::Auto, budget).point_hashed().run().unwrap();
    let model = sweep_size(&valid, s.size_bytes, false).unwrap();
    assert_eq!((capped.algorithm, capped.method), (Algorithm::NvlsTree, Method::Symmetric));
    let fit = capped.chunk_fit.expect("the fit it could not make");
    assert_eq!((fit.chunks, fit.fine_chunks, fit.fine_ns, fit.fitted_ns()), (8, FINE_CHUNKS, None, None));
    assert_eq!(fit.nccl_chunks, model.chunk_fit.unwrap().nccl_chunks);
    let every = nvls_tree_time(&valid, Protocol::Simple, 8, false).unwrap();
    assert_eq!(capped.time_us, every.as_us());
    let sixteen = model.chunk_fit.unwrap().run_ns as f64 / 1e3;
    assert!(capped.time_us > sixteen && model.time_us < sixteen, "{} vs {sixteen} us", capped.time_us);
}
