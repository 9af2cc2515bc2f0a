//! Mixture-of-experts training (#16): expert parallelism's AllToAlls through the engine, where
//! the EP group sits on the cluster, interleaved pipelines, and the layouts refused by name.

use fabricscope::collective::Protocol;
use fabricscope::train::layout::RankOrder;
use fabricscope::train::{OpKind, StepOp, TrainReport, TrainScenario};
use fabricscope::{simulate, Collective, Scenario};

#[path = "support/problems.rs"]
mod support;
use support::{has, problems};

/// DeepSeek-V3 on 32 HGX H800 (256 GPUs): TP 1 × PP 16 × DP 16 with EP inside DP.
fn deepseek(ep: u32, order: RankOrder) -> TrainScenario {
    let mut s = TrainScenario::default_demo();
    s.cluster.preset = "hgx-h800".into();
    s.cluster.nodes = 32;
    s.model = "deepseek-v3".into();
    (s.tp, s.pp, s.dp, s.ep) = (1, 16, 16, ep);
    s.global_batch = 512;
    s.order = order;
    s
}

fn run(s: &TrainScenario) -> TrainReport {
    s.validate().unwrap_or_else(|e| panic!("{e:?}")).run()
}

#[test]
fn an_alltoall_across_nodes_is_bounded_by_one_nic_per_gpu() {
    // Each GPU sends (n - g)/n of its buffer to other nodes, all of it through its own NIC
    // (400 Gb/s ConnectX-7: 50 GB/s, at IB's 0.96 efficiency), so nccl-tests' busbw,
    // algbw × (n - 1)/n, is at most NIC × (n - 1)/(n - g).
    for nodes in [2u32, 4] {
        let scenario = Scenario {
            nodes,
            collective: Collective::AllToAll,
            size_bytes: 1 << 30,
            protocol: Some(Protocol::Simple),
            ..Scenario::default_demo()
        };
        let sim = simulate(&scenario.validate().unwrap()).unwrap();
        let (n, g) = (8.0 * nodes as f64, 8.0);
        let bound = 50.0 * 0.96 * (n - 1.0) / (n - g);
        let busbw = sim.summary.busbw_gbyte_per_s;
        assert!(busbw <= bound * 1.001, "{nodes} nodes: busbw {busbw:.1} GB/s above one NIC's {bound:.1}");
        assert!(busbw > 0.9 * bound, "{nodes} nodes: busbw {busbw:.1} GB/s far below one NIC's {bound:.1}");
    }
}

#[test]
fn expert_parallelism_inside_a_node_costs_less_than_across_nodes() {
    // With TP 1, `tp-dp-pp` puts 8 consecutive DP ranks, one node, in an EP group of 8;
    // `tp-pp-dp` spreads the same group over 8 nodes, one GPU each.
    // A plain AllToAll here (one copy per expert); node-limited routing has its own test.
    let inside = run(&deepseek_limited(8, RankOrder::TpDpPp, None));
    let across = run(&deepseek_limited(8, RankOrder::TpPpDp, None));
    let dispatch = |r: &TrainReport| r.ops.iter().find(|o| o.op == StepOp::ExpertDispatch).cloned().unwrap();
    let (a, b) = (dispatch(&inside), dispatch(&across));
    assert!(!a.crosses_nodes && b.crosses_nodes);
    assert_eq!((a.groups, a.group_size), (32, 8));
    // 4096 tokens × top-8 × 7168 × 2 B per GPU and call.
    assert_eq!(a.bytes, 4096 * 8 * 7168 * 2);
    // Across nodes each GPU's 7/8 of the buffer leaves through its one 400 Gb/s NIC; inside,
    // over H800's 200 GB/s of NVLink: about 4 times longer.
    let ratio = b.time_ns as f64 / a.time_ns as f64;
    assert!(ratio > 3.0 && ratio < 4.5, "AllToAll across / inside: {ratio:.2}");
    let share = |r: &TrainReport| r.breakdown.ep_ns / r.step_ns;
    assert!(share(&inside) < share(&across), "{} vs {}", share(&inside), share(&across));
    assert!(inside.step_ns < across.step_ns);
    // The parts still add up to the step.
    for r in [&inside, &across] {
        let b = &r.breakdown;
        let sum = b.compute_ns + b.tp_ns + b.ep_ns + b.pp_ns + b.dp_ns + b.bubble_ns + b.optimizer_ns;
        assert!((sum / r.step_ns - 1.0).abs() < 1e-9, "{sum} vs {}", r.step_ns);
    }
    println!(
        "DeepSeek-V3 on 256 H800, EP 8, plain AllToAll: inside a node {:.3} s ({:.1}% EP), across 8 nodes {:.3} s ({:.1}% EP)",
        inside.step_ns / 1e9,
        100.0 * share(&inside),
        across.step_ns / 1e9,
        100.0 * share(&across)
    );
}

#[test]
fn experts_split_over_ep_and_their_gradients_reduce_over_the_replicas() {
    let r8 = run(&deepseek(8, RankOrder::TpDpPp));
    let r16 = run(&deepseek(16, RankOrder::TpDpPp));
    // Twice the EP, half the experts per GPU: less weight memory, same replicated part.
    assert!(r16.memory.weights < r8.memory.weights);
    let expert_grads = |r: &TrainReport| {
        r.ops.iter().find(|o| o.op == StepOp::ExpertGradReduceScatter).map(|o| (o.group_size, o.bytes))
    };
    let (size8, bytes8) = expert_grads(&r8).unwrap();
    assert_eq!(size8, 2, "DP 16 / EP 8 replicas of each expert");
    // EP 16 = DP: every expert has one replica, so nothing to reduce.
    assert_eq!(expert_grads(&r16), None);
    // 61 layers over 16 stages: 13 of 4 and 3 of 3; the first stage holds the 3 dense layers
    // and one MoE layer, the heaviest holds 4 MoE layers: 4 × 32 experts × 44 M parameters in BF16.
    let expert = 3 * 7168u64 * 2048;
    assert!((bytes8 as f64 / (4 * 32 * expert * 2) as f64 - 1.0).abs() < 1e-3, "{bytes8}");
    assert!(r8.ops.iter().all(|o| o.kind != OpKind::Tp), "TP 1 has no TP collectives");
}

#[test]
fn interleaving_shrinks_the_bubble() {
    let mut s = TrainScenario::default_demo();
    s.global_batch = 64; // 32 micro-batches per pipeline, a multiple of PP 16
    let plain = run(&s);
    s.virtual_stages = 2; // 96 layers into 16 × 2 chunks of 3
    let interleaved = run(&s);
    let bubble = |r: &TrainReport| r.breakdown.bubble_ns / r.pipeline_ns;
    assert!(bubble(&interleaved) < bubble(&plain), "{} vs {}", bubble(&interleaved), bubble(&plain));
    assert_eq!(interleaved.blocks.len(), 2 * plain.blocks.len());
    assert!(interleaved.blocks.iter().any(|b| b.chunk == 1));
    // Each chunk boundary is a send: twice the PP traffic; and more activations in flight.
    assert!(interleaved.breakdown.pp_ns > 1.9 * plain.breakdown.pp_ns);
    assert!(interleaved.memory.activations > plain.memory.activations);
    println!(
        "GPT-3 175B, PP 16, m = 32: bubble {:.1}% of the pipeline with 1F1B, {:.1}% interleaved (v = 2)",
        100.0 * bubble(&plain),
        100.0 * bubble(&interleaved)
    );
}

#[test]
fn bad_moe_layouts_are_refused_by_name() {
    // 256 experts do not split over 12; EP must divide DP 16.
    let list = problems(&TrainScenario { ep: 12, ..deepseek(8, RankOrder::TpDpPp) });
    assert!(has(&list, "ep", "256 experts do not split evenly over EP 12"), "{list:?}");
    assert!(has(&list, "ep", "must divide DP 16"), "{list:?}");
    // A dense model has no experts to split.
    let list = problems(&TrainScenario { ep: 2, ..TrainScenario::default_demo() });
    assert!(has(&list, "ep", "no experts"), "{list:?}");
    // ZeRO-3 with experts is not modelled, and says so.
    let list = problems(&TrainScenario { zero: 3, ..deepseek(8, RankOrder::TpDpPp) });
    assert!(has(&list, "zero", "not modelled"), "{list:?}");
    // Interleaving: 61 layers do not cut into 16 × 2 chunks; PP 1 has nothing to interleave.
    let list = problems(&TrainScenario { virtual_stages: 2, ..deepseek(8, RankOrder::TpDpPp) });
    assert!(has(&list, "virtual_stages", "61 layers do not split evenly"), "{list:?}");
    let mut s = TrainScenario::default_demo();
    (s.pp, s.dp, s.virtual_stages) = (1, 32, 2);
    assert!(has(&problems(&s), "virtual_stages", "needs a pipeline"));
    // Micro-batches in groups of PP: 48 / (1 × 2) = 24 is not a multiple of 16.
    let s = TrainScenario { virtual_stages: 2, global_batch: 48, ..TrainScenario::default_demo() };
    assert!(has(&problems(&s), "global_batch", "not a multiple of PP 16"), "{:?}", problems(&s));
    // A custom MoE shape out of range names its field.
    let mut s = TrainScenario::default_demo();
    s.model = "custom".into();
    let mut shape =
        fabricscope::train::model::ModelPreset::by_id("mixtral-8x7b").map(|p| (p.shape)()).unwrap();
    if let Some(moe) = shape.moe.as_mut() {
        moe.top_k = 9;
    }
    s.custom_model = Some(shape.clone());
    assert!(has(&problems(&s), "custom_model.moe.top_k", "out of range"), "{:?}", problems(&s));
    // A routing limit beyond top-k nodes limits nothing: refused by name.
    if let Some(moe) = shape.moe.as_mut() {
        (moe.top_k, moe.node_limit) = (2, Some(3));
    }
    s.custom_model = Some(shape);
    assert!(has(&problems(&s), "custom_model.moe.node_limit", "use 1 to top_k (2)"), "{:?}", problems(&s));
}

#[test]
fn a_moe_job_round_trips_as_json_and_a_dense_one_keeps_its_old_form() {
    let s = deepseek(8, RankOrder::TpDpPp);
    let text = s.to_json();
    assert!(text.contains("\"ep\": 8"));
    assert_eq!(TrainScenario::from_json(&text).unwrap(), s);
    // EP 1 and one model chunk are left out, so links made before them read the same.
    let dense = TrainScenario::default_demo().to_json();
    assert!(!dense.contains("\"ep\"") && !dense.contains("virtual_stages") && !dense.contains("moe"));
}

#[test]
fn expert_alltoalls_share_links_with_the_pipeline_and_the_gradient_buckets() {
    // Across nodes (`tp-pp-dp`) the AllToAll leaves through each GPU's NIC, which the pipeline's
    // sends between nodes also use; inside a node (`tp-dp-pp`) it stays on NVLink while the
    // sends go rail to rail through the NICs: nothing shared, nothing slowed.
    let met = |r: &TrainReport, op: OpKind, with: OpKind| {
        r.contention.iter().find(|c| c.op == op && c.with == with).cloned().unwrap()
    };
    // A plain AllToAll (one copy per expert), whose flows per NIC the claims below count.
    let inside = run(&deepseek_limited(8, RankOrder::TpDpPp, None));
    let across = run(&deepseek_limited(8, RankOrder::TpPpDp, None));
    let c = met(&inside, OpKind::Ep, OpKind::Pp);
    assert_eq!(c.together_ns, c.alone_ns, "inside: {c:?}");
    for (op, with) in [(OpKind::Ep, OpKind::Pp), (OpKind::Pp, OpKind::Ep)] {
        let c = met(&across, op, with);
        assert!(c.together_ns as f64 > 1.1 * c.alone_ns as f64, "across: {c:?}");
        assert!(c.share > 0.0 && c.share <= 1.0, "{c:?}");
    }
    // A send that meets an AllToAll on its NIC gets one flow's share of eight (the AllToAll's
    // seven peers and itself): about eight times as long, the AllToAll's length.
    let c = met(&across, OpKind::Pp, OpKind::Ep);
    let ep = met(&across, OpKind::Ep, OpKind::Pp);
    assert!((c.together_ns as f64 / ep.together_ns as f64 - 1.0).abs() < 0.05, "{c:?} {ep:?}");
    // The gradient buckets overlap the last micro-batch's backward only: a few % of the AllToAlls.
    let c = met(&inside, OpKind::Ep, OpKind::Dp);
    assert!(c.share < 1.0 / inside.micro_batches as f64 + 1e-12, "{c:?}");
    // The step's EP part is each call at its mean time: more than alone.
    for r in [&inside, &across] {
        let alone: f64 =
            r.ops.iter().filter(|o| o.kind == OpKind::Ep).map(|o| o.calls * o.time_ns as f64).sum();
        assert!(r.breakdown.ep_ns > alone, "{} vs {alone}", r.breakdown.ep_ns);
    }
    for (name, r) in [("inside", &inside), ("across", &across)] {
        for c in &r.contention {
            println!(
                "{name}: {:?} with {:?}: {:.3} ms alone, {:.3} ms together, {:.1}% of the time",
                c.op,
                c.with,
                c.alone_ns as f64 / 1e6,
                c.together_ns as f64 / 1e6,
                100.0 * c.share
            );
        }
    }
}

/// DeepSeek-V3 as a custom model whose routing limit is `limit` (None: a plain AllToAll).
fn deepseek_limited(ep: u32, order: RankOrder, limit: Option<u32>) -> TrainScenario {
    let mut s = deepseek(ep, order);
    let preset = fabricscope::train::model::MODEL_PRESETS.iter().find(|p| p.id == "deepseek-v3").unwrap();
    let mut shape = (preset.shape)();
    shape.moe.as_mut().unwrap().node_limit = limit;
    s.model = "custom".into();
    s.custom_model = Some(shape);
    s
}

fn dispatch_ns(s: &TrainScenario) -> f64 {
    let r = run(s);
    r.ops.iter().find(|o| o.op == StepOp::ExpertDispatch).map(|o| o.time_ns as f64).unwrap()
}

#[test]
fn node_limited_routing_sends_a_token_over_the_network_once_per_node() {
    // EP 8 over 8 nodes, one GPU in each: a plain AllToAll sends each token once per expert,
    // 8 copies of which 7/8 leave the node; limited to 4 nodes, a token crosses at most 4 times
    // (4 × 7/8 expected): half the network bytes through the same NIC, about half the time.
    let plain = dispatch_ns(&deepseek_limited(8, RankOrder::TpPpDp, None));
    let limited = dispatch_ns(&deepseek_limited(8, RankOrder::TpPpDp, Some(4)));
    let ratio = limited / plain;
    assert!(ratio > 0.45 && ratio < 0.6, "limited / plain: {ratio:.3}");
    // A limit of top-k limits nothing: the same bytes on the same NICs as the plain AllToAll.
    let unlimited = dispatch_ns(&deepseek_limited(8, RankOrder::TpPpDp, Some(8)));
    assert!((unlimited / plain - 1.0).abs() < 0.05, "limit 8 vs plain: {:.3}", unlimited / plain);
    // Inside one node the limit changes nothing.
    let a = dispatch_ns(&deepseek_limited(8, RankOrder::TpDpPp, None));
    let b = dispatch_ns(&deepseek_limited(8, RankOrder::TpDpPp, Some(4)));
    assert_eq!(a, b);
    // EP 16 over 2 nodes of 8: a token crosses to the other node once, not once per expert
    // there; the copies fan out over NVLink. The preset routes this way.
    let plain = dispatch_ns(&deepseek_limited(16, RankOrder::TpDpPp, None));
    let preset = dispatch_ns(&deepseek(16, RankOrder::TpDpPp));
    assert!(preset < 0.6 * plain, "EP 16 over 2 nodes: {preset} vs plain {plain} ns");
    println!(
        "DeepSeek-V3 dispatch, EP 8 over 8 nodes: plain AllToAll {:.2} ms, at most 4 nodes {:.2} ms; EP 16 over 2 nodes: {:.2} ms -> {:.2} ms",
        dispatch_ns(&deepseek_limited(8, RankOrder::TpPpDp, None)) / 1e6,
        limited / 1e6,
        plain / 1e6,
        preset / 1e6
    );
}
