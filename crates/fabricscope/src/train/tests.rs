//! The training job's tests: layouts, breakdowns, memory, cost and the animation.

use super::*;
use crate::scenario::Scenario;

fn gpt3(tp: u32, pp: u32, technology: Technology) -> TrainReport {
    let mut s = TrainScenario::default_demo();
    s.tp = tp;
    s.pp = pp;
    s.cluster.fabric.technology = technology;
    s.validate().unwrap().run()
}

/// The architects' question: TP inside the node (TP 8 × PP 16) against TP across two
/// nodes (TP 16 × PP 8), GPT-3 175B on 32 DGX H100 over NDR (DP 2 either way).
#[test]
fn tensor_parallelism_inside_the_node_beats_across_nodes() {
    let inside = gpt3(8, 16, Technology::Infiniband);
    let across = gpt3(16, 8, Technology::Infiniband);
    assert!(inside.ops.iter().filter(|o| o.kind == OpKind::Tp).all(|o| !o.crosses_nodes));
    assert!(across.ops.iter().filter(|o| o.kind == OpKind::Tp).all(|o| o.crosses_nodes));
    assert!(inside.step_ns < across.step_ns, "{} vs {}", inside.step_ns, across.step_ns);
    // TP communication takes a far bigger part of the step once it crosses the NICs.
    let share = |r: &TrainReport| r.breakdown.tp_ns / r.step_ns;
    assert!(share(&across) > 1.5 * share(&inside), "{} vs {}", share(&across), share(&inside));
}

#[test]
fn the_difference_names_the_part_that_moved() {
    let (a, b) = (gpt3(8, 16, Technology::Infiniband), gpt3(16, 8, Technology::Infiniband));
    let d = difference(&a, &b);
    assert!(d.step_change > 0.05, "{d:?}");
    assert_eq!((d.part, d.tp_crosses), ("tp", (false, true)));
    assert!((difference(&a, &a).step_change).abs() < 1e-12);
}

#[test]
fn the_breakdown_adds_up_and_memory_fits() {
    let r = gpt3(8, 16, Technology::Infiniband);
    let b = &r.breakdown;
    let sum = b.compute_ns + b.tp_ns + b.pp_ns + b.dp_ns + b.bubble_ns + b.optimizer_ns;
    assert!((sum - r.step_ns).abs() < 1e-6 * r.step_ns, "{sum} vs {}", r.step_ns);
    assert!(r.memory.fits, "{:?}", r.memory);
    assert!(r.mfu > 0.2 && r.mfu < 0.55, "{}", r.mfu);
}

#[test]
fn a_slower_fabric_makes_the_step_slower_and_cost_follows() {
    let ib = gpt3(8, 16, Technology::Infiniband);
    let tcp = gpt3(8, 16, Technology::Tcp);
    assert!(tcp.step_ns > ib.step_ns);
    assert!(tcp.breakdown.pp_ns > ib.breakdown.pp_ns);
    assert!((tcp.cost.days / ib.cost.days - tcp.step_ns / ib.step_ns).abs() < 1e-9);
}

/// A DP ring too long even to extrapolate from its first steps (`prefix`) is refused by count,
/// before a group's schedule is built: 16,384 GPUs at DP 16,384 (a ring of 4.3 billion
/// transfers, whose first 48 steps alone are 6.3 million).
#[test]
fn a_dp_ring_beyond_even_its_prefix_is_refused_unbuilt() {
    let mut s = TrainScenario::default_demo();
    s.cluster.preset = "hgx-h800".into();
    s.cluster.nodes = 2048;
    s.model = "llama2-7b".into();
    (s.tp, s.pp, s.dp, s.global_batch) = (1, 1, 16384, 16384);
    let errors = s.validate().unwrap_err();
    assert_eq!(errors[0].field, "dp");
    let problem = &errors[0].problem;
    assert!(problem.contains("a DP group's ring of 16384 GPUs is 4294705152 transfers"), "{problem}");
    assert!(problem.contains("even 48 of its steps are 6291456 transfers"), "{problem}");
}

/// A DP ring beyond the engine runs from each group's first steps, extrapolated, and says so:
/// Llama 2 7B on 1,024 GPUs at DP 1,024 (ZeRO-1: a ReduceScatter and an AllGather of 1,023
/// steps each, 8.4 million transfers), which was refused.
#[test]
fn a_dp_ring_beyond_the_engine_is_extrapolated_and_labelled() {
    let mut s = TrainScenario::default_demo();
    s.cluster.nodes = 128;
    s.model = "llama2-7b".into();
    (s.tp, s.pp, s.dp, s.global_batch) = (1, 1, 1024, 1024);
    let r = s.validate().expect("extrapolated, not refused").run();
    let dp: Vec<&super::Op> = r.ops.iter().filter(|op| op.kind == OpKind::Dp).collect();
    assert_eq!(dp.len(), 2);
    for op in dp {
        let comm::OpMethod::Extrapolated(p) = op.method else { panic!("{op:?}") };
        assert_eq!((p.steps, p.total_steps, p.rounded), (128, 1023, false), "{op:?}");
        assert_eq!(op.transfers, 1023 * 1024 * 8, "{op:?}");
        // 12.6 GiB over 1,023/1,024 of it at no more than 8 NICs of 50 GB/s a node.
        let floor_ns = 13.5e9 * 1023.0 / 1024.0 / 400.0;
        assert!(op.time_ns as f64 > floor_ns && (op.time_ns as f64) < 1.2 * floor_ns, "{op:?}");
    }
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["ops"][0]["method"]["extrapolated"]["steps"], 128);
    reads_back(&r);
}

/// `report` through its JSON and back (as a page's worker sends it) is `report`, to the bit.
fn reads_back(report: &TrainReport) {
    let json = serde_json::to_string(report).unwrap();
    let back: TrainReport = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, report);
    assert_eq!(back.step_ns.to_bits(), report.step_ns.to_bits());
    assert_eq!(serde_json::to_string(&back).unwrap(), json);
}

#[test]
fn every_step_op_reads_back_from_its_name_and_no_other() {
    for op in StepOp::ALL {
        let json = serde_json::to_string(&op).unwrap();
        assert_eq!(serde_json::from_str::<StepOp>(&json).unwrap(), op, "{json}");
    }
    let why = serde_json::from_str::<StepOp>("\"AllReduce everything\"").unwrap_err().to_string();
    assert!(why.contains("AllReduce everything"), "{why}");
}

#[test]
fn bad_layouts_name_their_field() {
    let mut s = TrainScenario::default_demo();
    s.tp = 5;
    s.zero = 4;
    let errors = s.validate().unwrap_err();
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, ["zero"]);
    s.zero = 0;
    let fields: Vec<String> = s.validate().unwrap_err().into_iter().map(|e| e.field).collect();
    assert!(fields.contains(&"dp".to_string()) && fields.contains(&"tp".to_string()), "{fields:?}");
    s.tp = 8;
    s.model = "gpt5".into();
    assert_eq!(s.validate().unwrap_err()[0].field, "model");
    // Found by fuzzing: kernels at 1e-300 of peak made a step of 1e300 ns and an MFU of 0.
    s.model = "gpt3-175b".into();
    s.compute_efficiency = 1e-300;
    assert_eq!(s.validate().unwrap_err()[0].field, "compute_efficiency");
}

#[test]
fn the_seed_cost_claim_is_checkable() {
    // "40% less time → about 25% less money": money scales with time × price, so with the
    // assumed 25% InfiniBand premium, 0.6 × 1.25 = 0.75.
    let rows = compare_fabrics(&TrainScenario {
        cluster: Scenario { nodes: 32, ..Scenario::default_demo() },
        dp: 2,
        global_batch: 128,
        ..TrainScenario::default_demo()
    })
    .unwrap();
    let ib = &rows[0];
    let tcp = rows.iter().find(|r| r.technology == Technology::Tcp).unwrap();
    assert!(ib.step_ns < tcp.step_ns);
    let money = ib.usd / tcp.usd;
    let predicted = (ib.days / tcp.days) * (ib.gpu_hour_usd / tcp.gpu_hour_usd);
    assert!((money - predicted).abs() < 1e-9, "{money} vs {predicted}");
    assert!(
        (default_gpu_hour_usd(Technology::Infiniband) / default_gpu_hour_usd(Technology::Tcp) - 1.25).abs()
            < 1e-12
    );
}

#[test]
fn the_animation_follows_the_schedule() {
    let r = gpt3(8, 16, Technology::Infiniband);
    // Stage 15 waits at the start (bubble), then computes; the end is DP and the optimizer.
    assert_eq!(r.activity(15, 1.0), Activity::Idle);
    let first = r.blocks.iter().find(|b| b.stage == 15).unwrap();
    let kinds: std::collections::BTreeSet<String> = (0..400)
        .map(|i| {
            format!(
                "{:?}",
                r.activity(15, first.start_ns + (first.end_ns - first.start_ns) * i as f64 / 400.0)
            )
        })
        .collect();
    assert!(
        kinds.contains("Tp") && kinds.contains("PipelineSend") && kinds.contains("Compute(Forward)"),
        "{kinds:?}"
    );
    assert_eq!(r.activity(0, r.step_ns - 1.0), Activity::Optimizer);
}

#[test]
fn zero_shards_memory() {
    let mut s = TrainScenario {
        cluster: Scenario { nodes: 2, ..Scenario::default_demo() },
        model: "llama2-7b".into(),
        tp: 8,
        pp: 1,
        dp: 2,
        global_batch: 16,
        ..TrainScenario::default_demo()
    };
    let mut memory = Vec::new();
    for zero in 0..=3 {
        s.zero = zero;
        let r = s.validate().unwrap().run();
        memory.push(r.memory.weights + r.memory.grads + r.memory.optimizer);
    }
    assert!(memory.windows(2).all(|w| w[1] < w[0]), "{memory:?}");
}

/// The gradient bucket meets the AllToAll as its per-link bytes (`Traffic::coarsened`); its
/// slowed time stays within 4% of running the ring's every step beside the AllToAll, with EP
/// on NVLink (`tp-dp-pp`: -3.4%) and on the NICs (`tp-pp-dp`: -0.0%).
#[test]
fn a_coarsened_bucket_meets_the_alltoall_as_its_every_step_would() {
    for order in [layout::RankOrder::TpDpPp, layout::RankOrder::TpPpDp] {
        let mut s = TrainScenario::default_demo();
        s.cluster.preset = "hgx-h800".into();
        s.cluster.nodes = 32;
        s.model = "deepseek-v3".into();
        (s.tp, s.pp, s.dp, s.ep, s.global_batch, s.order) = (1, 16, 16, 8, 512, order);
        let valid = s.validate().unwrap();
        let report = valid.run();
        let met = report.contention.iter().find(|c| c.op == OpKind::Dp).expect("buckets meet EP");
        let cluster = valid.cluster();
        let topology = cluster.topology();
        let (experts, _) = valid.grid().expert_groups(s.ep);
        let ep = comm::collective_traffic(cluster, Collective::AllToAll, &experts, valid.dispatch_bytes());
        let collective = if s.zero == 0 { Collective::AllReduce } else { Collective::ReduceScatter };
        let bucket_bytes = crate::units::round_to_elements(valid.grad_bytes().0.min(25_000_000));
        let bucket =
            comm::collective_traffic(cluster, collective, &valid.grid().gradient_groups(), bucket_bytes);
        let every_step = runs::Runs::direct(cluster, &topology).together(&[&ep, &bucket])[1];
        let error = met.together_ns as f64 / every_step as f64 - 1.0;
        assert!(error.abs() < 0.04, "{order:?}: {} vs {every_step} ns ({error:+.3})", met.together_ns);
        assert!(met.together_ns > 2 * met.alone_ns, "{order:?}: the AllToAll slows the bucket: {met:?}");
    }
}

/// A step run a slice at a time (`TrainJob`, what the page polls between frames), and one whose
/// runs go side by side on threads (`run_on`), give the report one call running each when asked
/// gives, field for field: GPT-3 (every run known after one pass) and DeepSeek-V3 across nodes
/// (its gradient bucket meets the AllToAlls only once the DP reduction's time is known: a third
/// pass).
#[test]
fn a_training_step_in_slices_gives_what_one_call_gives() {
    let mut deepseek = TrainScenario::default_demo();
    deepseek.cluster.preset = "hgx-h800".into();
    deepseek.cluster.nodes = 32;
    deepseek.model = "deepseek-v3".into();
    (deepseek.tp, deepseek.pp, deepseek.dp, deepseek.ep, deepseek.global_batch) = (1, 16, 16, 8, 512);
    deepseek.order = layout::RankOrder::TpPpDp;
    for (job, passes) in [(TrainScenario::default_demo(), 2), (deepseek, 3)] {
        let valid = job.validate().unwrap();
        let whole = valid.run_on(1);
        assert_eq!(valid.run_on(3), whole, "side by side on three threads");
        let mut sliced = TrainJob::new(valid);
        let mut polls = 0;
        let report = loop {
            polls += 1;
            if let Some(report) = sliced.poll(3) {
                break report;
            }
        };
        assert_eq!(report, whole);
        reads_back(&whole);
        assert_eq!(sliced.passes(), passes);
        assert!(polls > 10, "{polls} polls: the work came in pieces");
    }
}

/// GPT-3 175B on 1,024 DGX H100 GPUs (TP 8 × PP 16 × DP 8): every TP group (a node) and every
/// DP group (a rail of eight nodes) is an image of one, on links of its own, so one of each
/// runs: to the nanosecond the time of every group at once. On a 4:1 oversubscribed fabric
/// a leaf's NICs share its up-links, so the DP groups share links, and all of them run.
#[test]
fn groups_that_are_images_of_one_run_as_one_to_the_nanosecond() {
    let job = |oversubscription: f64| {
        let mut s = TrainScenario::default_demo();
        s.cluster.nodes = 128;
        s.cluster.fabric.oversubscription = oversubscription;
        s.dp = 8;
        s.global_batch = 64 * s.dp;
        s.validate().unwrap()
    };
    let valid = job(1.0);
    let topology = valid.cluster().topology();
    let grid = valid.grid();
    for (groups, bytes) in
        [(grid.groups(Dim::Tp), valid.activation_bytes()), (grid.gradient_groups(), valid.grad_bytes().0)]
    {
        let traffic = comm::collective_traffic(valid.cluster(), Collective::AllReduce, &groups, bytes);
        let few = traffic.representatives(valid.cluster(), &topology).expect("the groups are images of one");
        assert_eq!(
            few.transfers() * groups.len() as u64,
            traffic.transfers(),
            "one group of {}",
            groups.len()
        );
        let mut runs = runs::Runs::direct(valid.cluster(), &topology);
        assert_eq!(runs.together(&[&few]), runs.together(&[&traffic]));
    }
    let thin = job(4.0);
    let topology = thin.cluster().topology();
    let dp = thin.grid().gradient_groups();
    let traffic = comm::collective_traffic(thin.cluster(), Collective::AllReduce, &dp, 64 << 20);
    assert!(
        traffic.representatives(thin.cluster(), &topology).is_none(),
        "DP groups share a leaf's up-links"
    );
}

/// TP 2 × DP 256 on 64 DGX H100, gradients AllReduced (ZeRO 0): on InfiniBand the two DP rings
/// (1.04 M transfers each) are images of one another and one runs whole; over RoCE, whose ECMP
/// hashes each flow, neither stands for the other, and together they were refused, the job
/// with them (and with ZeRO 1, whose ReduceScatter and AllGather fit whole, since validation
/// counts the AllReduce). They run from each group's first steps, extrapolated and labelled,
/// within 2% of InfiniBand's step.
#[test]
fn rings_beyond_the_engine_only_together_run_from_their_first_steps() {
    let job = |technology: Technology, zero: u8| {
        let mut s = TrainScenario::default_demo();
        s.cluster.nodes = 64;
        s.cluster.fabric.technology = technology;
        s.model = "llama2-7b".into();
        (s.tp, s.pp, s.dp, s.global_batch, s.zero) = (2, 1, 256, 512, zero);
        s.validate().unwrap_or_else(|e| panic!("{technology:?}: {e:?}")).run()
    };
    let (ib, roce) = (job(Technology::Infiniband, 0), job(Technology::Roce, 0));
    let dp = |r: &TrainReport| r.ops.iter().filter(|op| op.kind == OpKind::Dp).cloned().collect::<Vec<_>>();
    assert_eq!(dp(&ib).len(), 1);
    for (op, other) in dp(&ib).iter().zip(dp(&roce)) {
        assert_eq!(op.method, comm::OpMethod::Exact, "{op:?}");
        let comm::OpMethod::Extrapolated(p) = other.method else { panic!("{other:?}") };
        assert_eq!((p.steps, p.total_steps, other.transfers), (128, 510, op.transfers), "{other:?}");
        let ratio = other.time_ns as f64 / op.time_ns as f64;
        assert!((0.98..1.1).contains(&ratio), "RoCE {} ns vs IB {} ns", other.time_ns, op.time_ns);
    }
    assert!((roce.step_ns / ib.step_ns - 1.0).abs() < 0.02, "{} vs {}", roce.step_ns, ib.step_ns);
    let zero = job(Technology::Roce, 1);
    assert!(dp(&zero).iter().all(|op| op.method == comm::OpMethod::Exact), "{:?}", dp(&zero));
}

/// Validation counts the transfers of a step's rings that run from each group's first step
/// alone (`comm::representatives_transfers`), never building a ring: the very count the whole
/// rings' representatives give, or none where they prove none, over rail and node wiring, 4:1
/// oversubscription, RoCE's ECMP, DGX A100 and HGX B200, TP and DP groups.
#[test]
fn representatives_from_first_steps_count_what_the_whole_rings_do() {
    use crate::scenario::Wiring;
    let mut proved = 0;
    for (preset, nodes, tp, technology, wiring, oversubscription) in [
        ("dgx-h100", 64, 2, Technology::Infiniband, Wiring::Rail, 1.0),
        ("dgx-h100", 16, 8, Technology::Infiniband, Wiring::Node, 1.0),
        ("dgx-h100", 32, 4, Technology::Infiniband, Wiring::Rail, 4.0),
        ("dgx-h100", 16, 2, Technology::Roce, Wiring::Rail, 1.0),
        ("dgx-a100", 16, 4, Technology::Infiniband, Wiring::Rail, 1.0),
        ("hgx-b200", 8, 2, Technology::Infiniband, Wiring::Rail, 2.0),
    ] {
        let mut s = TrainScenario::default_demo();
        s.model = "llama2-7b".into();
        s.cluster.preset = preset.into();
        s.cluster.nodes = nodes;
        s.cluster.fabric.technology = technology;
        s.cluster.fabric.wiring = wiring;
        s.cluster.fabric.oversubscription = oversubscription;
        (s.tp, s.pp) = (tp, 1);
        s.dp = nodes * 8 / tp;
        s.global_batch = s.dp;
        let Ok(valid) = s.validate() else { panic!("{preset} x{nodes} TP {tp}: {:?}", s.validate().err()) };
        let topology = valid.cluster().topology();
        let grid = valid.grid();
        for (groups, bytes) in
            [(grid.groups(Dim::Tp), valid.activation_bytes()), (grid.gradient_groups(), valid.grad_bytes().0)]
        {
            let traffic = comm::collective_traffic(valid.cluster(), Collective::AllReduce, &groups, bytes);
            let whole = traffic.representatives(valid.cluster(), &topology).map(|few| few.transfers());
            let first = cut::representatives_transfers(
                valid.cluster(),
                &topology,
                Collective::AllReduce,
                &groups,
                bytes,
            );
            assert_eq!(
                first,
                whole,
                "{preset} x{nodes} TP {tp} {technology:?} {wiring:?} {oversubscription}:1, {} groups",
                groups.len()
            );
            proved += whole.is_some() as u32;
        }
    }
    assert!(proved >= 4, "{proved} proved");
    // A DP ring beyond the engine: validation's count of its prefix is the prefix built.
    let mut s = TrainScenario::default_demo();
    s.cluster.nodes = 128;
    s.model = "llama2-7b".into();
    (s.tp, s.pp, s.dp, s.global_batch) = (2, 1, 512, 512);
    let valid = s.validate().unwrap();
    let (dp, bytes) = (valid.grid().gradient_groups(), valid.grad_bytes().0);
    let traffic = comm::collective_traffic(valid.cluster(), Collective::AllReduce, &dp, bytes);
    let (plan, _) = traffic.prefix().expect("extrapolated");
    assert_eq!(traffic.transfers(), plan.steps as u64 * 1024 * valid.cluster().channels() as u64);
}
