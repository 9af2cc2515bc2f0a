//! A training op whose ring is beyond the engine is extrapolated from each group's first steps
//! (`train::prefix`): wherever the whole ring also runs, the two agree within
//! `EXTRAPOLATED_BOUND`, over data-parallel rings on DGX H100, DGX A100 and HGX B200, InfiniBand
//! (rails and node wiring), RoCE and TCP, AllReduce, ReduceScatter and
//! AllGather, buckets of 25 MB to whole gradients. The prefix is forced by a lower limit; the
//! worst rows are printed.

use fabricscope::catalog::Technology;
use fabricscope::collective::{self, Protocol};
use fabricscope::plan::LEAST_MEASURED_STEPS;
use fabricscope::scenario::{FabricConfig, FabricTopology, Wiring};
use fabricscope::train::comm::{
    collective_traffic, collective_traffic_cut, collective_traffic_within, OpMethod,
};
use fabricscope::train::prefix::plan_within;
use fabricscope::train::prefix::{self, EXTRAPOLATED_BOUND, PREFIX_STEPS};
use fabricscope::train::runs::Runs;
use fabricscope::{Collective, Scenario};

/// Data-parallel groups of `gpus` GPUs with `tp` consecutive GPUs of a node apart (Megatron's
/// TP-first order): rank r is in group r mod tp.
fn dp_groups(gpus: u32, tp: u32) -> Vec<Vec<u32>> {
    (0..tp).map(|first| (first..gpus).step_by(tp as usize).collect()).collect()
}

struct Row {
    what: String,
    error: f64,
    exact_ns: u64,
    extrapolated_ns: u64,
}

fn compare(what: &str, cluster: Scenario, collective: Collective, tp: u32, bytes: u64) -> Row {
    let valid = cluster.validate().unwrap_or_else(|e| panic!("{what}: {e:?}"));
    let topology = valid.topology();
    let groups = dp_groups(valid.n_ranks(), tp);
    let whole = collective_traffic(&valid, collective, &groups, bytes);
    assert_eq!(whole.prefix(), None, "{what}: the whole ring fits the engine");
    // Any limit below one group's ring cuts it.
    let cut = collective_traffic_within(&valid, collective, &groups, bytes, 1);
    let exact = Runs::direct(&valid, &topology).timing(&whole);
    let fast = Runs::direct(&valid, &topology).timing(&cut);
    assert_eq!(exact.method, OpMethod::Exact);
    let OpMethod::Extrapolated(p) = fast.method else {
        panic!("{what}: not extrapolated: {:?}", fast.method)
    };
    assert!(p.steps < p.total_steps, "{what}: {p:?}");
    assert_eq!(fast.transfers, exact.transfers, "{what}: the whole op's transfers");
    let error = fast.time_ns as f64 / exact.time_ns as f64 - 1.0;
    Row { what: what.into(), error, exact_ns: exact.time_ns, extrapolated_ns: fast.time_ns }
}

/// `compare`, each group cut to the least steps measured (`LEAST_MEASURED_STEPS`), as the
/// rings beyond the engine only together may be.
fn compare_least(what: &str, cluster: Scenario, tp: u32, bytes: u64) -> Row {
    let valid = cluster.validate().unwrap_or_else(|e| panic!("{what}: {e:?}"));
    let topology = valid.topology();
    let groups = dp_groups(valid.n_ranks(), tp);
    let (n, channels) = (groups[0].len() as u32, valid.channels());
    let budget = LEAST_MEASURED_STEPS as u64 * n as u64 * channels as u64;
    let least =
        plan_within(Collective::AllReduce, n, bytes / collective::ELEM_BYTES, channels, budget).expect(what);
    assert_eq!(least.steps, LEAST_MEASURED_STEPS, "{what}");
    let whole = collective_traffic_cut(&valid, Collective::AllReduce, &groups, bytes, None);
    let cut = collective_traffic_cut(&valid, Collective::AllReduce, &groups, bytes, Some(least));
    let exact = Runs::direct(&valid, &topology).timing(&whole);
    let fast = Runs::direct(&valid, &topology).timing(&cut);
    assert_eq!((exact.method, fast.method), (OpMethod::Exact, OpMethod::Extrapolated(least)), "{what}");
    assert_eq!(fast.transfers, exact.transfers, "{what}: the whole op's transfers");
    let error = fast.time_ns as f64 / exact.time_ns as f64 - 1.0;
    Row { what: what.into(), error, exact_ns: exact.time_ns, extrapolated_ns: fast.time_ns }
}

#[test]
fn an_extrapolated_ring_agrees_with_every_transfer_simulated() {
    let leaf_spine = FabricConfig { topology: FabricTopology::LeafSpine, ..FabricConfig::default() };
    let cluster = |preset: &str, nodes: u32, fabric: &FabricConfig| Scenario {
        preset: preset.into(),
        nodes,
        fabric: fabric.clone(),
        ..Scenario::default_demo()
    };
    let roce = FabricConfig { technology: Technology::Roce, ..leaf_spine.clone() };
    let node_wiring = FabricConfig { wiring: Wiring::Node, ..leaf_spine.clone() };
    let tcp = FabricConfig { technology: Technology::Tcp, ..leaf_spine.clone() };
    let (bucket, gradients) = (25_000_000, 1 << 30);
    let mut rows = Vec::new();
    for (preset, nodes) in [("dgx-h100", 32), ("dgx-a100", 32), ("hgx-b200", 32)] {
        for (collective, bytes) in [
            (Collective::AllReduce, gradients),
            (Collective::AllReduce, bucket),
            (Collective::ReduceScatter, gradients),
            (Collective::AllGather, gradients),
        ] {
            let what = format!("{preset} x{nodes} IB, DP {} {}", nodes * 8, collective.nccl_name());
            let what = format!("{what} {} MB", bytes / 1_000_000);
            rows.push(compare(&what, cluster(preset, nodes, &leaf_spine), collective, 1, bytes));
        }
    }
    for (name, fabric) in [("RoCE ECMP", &roce), ("IB node wiring", &node_wiring), ("TCP", &tcp)] {
        let what = format!("dgx-h100 x32 {name}, DP 256 AllReduce 1073 MB");
        rows.push(compare(&what, cluster("dgx-h100", 32, fabric), Collective::AllReduce, 1, gradients));
    }
    // TP 2 (four GPUs of a node in each DP group) and TP 8 (one GPU of each node: rings on the
    // rails, every group an image of the first).
    let what = "dgx-h100 x32 IB, TP 2: 2 x DP 128 AllReduce 1073 MB";
    rows.push(compare(what, cluster("dgx-h100", 32, &leaf_spine), Collective::AllReduce, 2, gradients));
    let what = "dgx-h100 x128 IB, TP 8: 8 x DP 128 AllReduce 1073 MB";
    rows.push(compare(what, cluster("dgx-h100", 128, &leaf_spine), Collective::AllReduce, 8, gradients));
    // Rings beyond the engine only together (`train::cut`): every group runs as few steps as the
    // limit allows them all, down to `LEAST_MEASURED_STEPS`; on RoCE, where no group stands for
    // the others, and on InfiniBand.
    for (name, fabric, tp) in [("RoCE ECMP", &roce, 2), ("RoCE ECMP", &roce, 8), ("IB", &leaf_spine, 4)] {
        let what =
            format!("dgx-h100 x32 {name}, TP {tp}: {tp} x DP {} AllReduce 1073 MB, 48 steps", 256 / tp);
        rows.push(compare_least(&what, cluster("dgx-h100", 32, fabric), tp, gradients));
    }
    let (low, high) = rows.iter().fold((f64::MAX, f64::MIN), |(l, h), r| (l.min(r.error), h.max(r.error)));
    println!("{} rings: {:+.3}% to {:+.3}%", rows.len(), 100.0 * low, 100.0 * high);
    rows.sort_by(|a, b| b.error.abs().total_cmp(&a.error.abs()));
    for row in rows.iter().take(5) {
        println!(
            "{:<60} exact {:>10} ns, extrapolated {:>10} ns: {:+.3}%",
            row.what,
            row.exact_ns,
            row.extrapolated_ns,
            100.0 * row.error
        );
    }
    let worst = &rows[0];
    assert!(worst.error.abs() <= EXTRAPOLATED_BOUND, "{}: {:+.4}", worst.what, worst.error);
}

/// A ring's prefix is the whole ring's first steps, transfer for transfer: what makes the
/// prefix's run the whole's up to its last steps.
#[test]
fn a_prefix_is_the_whole_rings_first_steps() {
    let rings = [vec![0u32, 1, 2, 3]];
    for collective in [Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather] {
        let count = 64 * 4 * 40 * 8;
        let whole = collective::schedule_with(
            collective,
            (collective::Algorithm::Ring, Protocol::Simple),
            40,
            &rings,
            count,
            8,
            0,
        );
        let p = prefix::plan(collective, 160, count, 8).expect("a prefix of 160 ranks");
        assert_eq!(p.steps, PREFIX_STEPS.min(p.total_steps - 1));
        let cut = collective::ring_prefix_steps(collective, 40, &rings, count, 8, (0, p.steps));
        assert_eq!(cut.len() as u64, p.steps as u64 * p.unit);
        assert_eq!(&whole.transfers[..cut.len()], &cut[..], "{collective:?}");
        assert_eq!(whole.n_steps, p.total_steps);
    }
}

/// Beyond what even a prefix can hold, the plan says why.
#[test]
fn a_ring_too_long_even_to_extrapolate_is_refused_with_its_reason() {
    let why = prefix::plan(Collective::AllReduce, 16_384, 1 << 30, 8).unwrap_err();
    assert!(why.contains("even 48 of its steps are 6291456 transfers"), "{why}");
}

/// Jobs whose rings are beyond the engine, across models, presets, fabrics and ZeRO stages
/// (sizes not a multiple of ranks × channels among them): each is refused with a named field
/// or runs to a report, a job polled in slices gives the very report one call gives, and every
/// extrapolated op's time is at least its prefix's share of the ring.
#[test]
fn jobs_with_rings_beyond_the_engine_run_alike_in_slices() {
    use fabricscope::train::{runs::TrainJob, TrainScenario};
    let mut extrapolated = 0;
    for (model, preset, technology, nodes, tp, zero, ep) in [
        ("gpt2-small", "dgx-a100", Technology::Infiniband, 64, 1, 0, 1),
        ("llama2-7b", "hgx-b200", Technology::Infiniband, 64, 1, 3, 1),
        ("llama2-7b", "hgx-b200", Technology::Infiniband, 64, 2, 0, 1),
        ("llama2-7b", "dgx-h100", Technology::Roce, 64, 1, 2, 1),
        ("llama2-7b", "dgx-h100", Technology::Infiniband, 96, 1, 1, 1),
        ("mixtral-8x7b", "dgx-h100", Technology::Infiniband, 64, 1, 1, 8),
    ] {
        let mut job = TrainScenario::default_demo();
        job.cluster.preset = preset.into();
        job.cluster.nodes = nodes;
        job.cluster.fabric.technology = technology;
        job.model = model.into();
        let gpus = nodes * 8;
        (job.tp, job.pp, job.dp, job.ep, job.zero, job.global_batch) =
            (tp, 1, gpus / tp, ep, zero, gpus / tp);
        let what = format!("{model} on {nodes} {preset} {technology:?}, TP {tp}, ZeRO {zero}, EP {ep}");
        let valid = match job.validate() {
            Ok(valid) => valid,
            Err(errors) => {
                assert!(
                    errors.iter().all(|e| !e.field.is_empty() && !e.problem.is_empty()),
                    "{what}: {errors:?}"
                );
                println!("{what}: refused: {}", errors[0]);
                continue;
            }
        };
        let report = valid.run();
        let mut sliced = TrainJob::new(valid.clone());
        let polled = loop {
            if let Some(report) = sliced.poll(4096) {
                break report;
            }
        };
        assert_eq!(polled, report, "{what}");
        let methods: Vec<String> =
            report.ops.iter().map(|op| format!("{:?}", op.method).chars().take(12).collect()).collect();
        println!("{what}: step {:.3} s, ops {methods:?}", report.step_ns / 1e9);
        for op in &report.ops {
            if let OpMethod::Extrapolated(p) = op.method {
                extrapolated += 1;
                assert!(p.steps < p.total_steps && op.time_ns > 0, "{what}: {op:?}");
            }
        }
    }
    assert!(extrapolated >= 6, "{extrapolated} extrapolated ops");
}
