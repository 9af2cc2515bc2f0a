//! Long context (#16): context parallelism splits each sequence over CP ranks that pass keys
//! and values around a ring every layer (ring attention), overlapped with the attention.

use fabricscope::train::{OpKind, StepOp, TrainReport, TrainScenario};

#[path = "support/problems.rs"]
mod support;
use support::{has, problems};

/// Llama-2 70B at 128k tokens on 32 DGX H100: TP 8 × CP × PP 4 × DP, 4 micro-batches per
/// pipeline whatever the CP.
fn long(cp: u32) -> TrainScenario {
    let mut s = TrainScenario::default_demo();
    s.model = "llama2-70b".into();
    s.seq_len = Some(131_072);
    (s.tp, s.cp, s.pp, s.dp) = (8, cp, 4, 8 / cp);
    s.global_batch = 4 * s.dp;
    s
}

fn run(s: &TrainScenario) -> TrainReport {
    s.validate().unwrap_or_else(|e| panic!("{e:?}")).run()
}

#[test]
fn cp_divides_activations_and_hides_its_ring_behind_attention_at_128k() {
    let (one, four) = (run(&long(1)), run(&long(4)));
    // Activations per layer scale with the tokens a rank holds: a quarter with CP 4.
    let ratio = four.memory.activations / one.memory.activations;
    assert!((ratio - 0.25).abs() < 1e-9, "activations CP 4 / CP 1: {ratio}");
    assert!(!one.memory.fits, "128k tokens without CP: {:.0} GB", one.memory.total / 1e9);
    // At 128k each ring step's attention (a 32k × 32k block) outlasts passing 32k tokens' K
    // and V through a NIC: nothing is exposed, and throughput is that of CP 1.
    assert_eq!(four.breakdown.cp_ns, 0.0);
    let pass = four.ops.iter().find(|o| o.op == StepOp::ContextKvPass).unwrap();
    assert_eq!((pass.kind, pass.group_size), (OpKind::Cp, 4));
    // 32,768 tokens × K and V of 8 heads × 128 over TP 8, in BF16.
    assert_eq!(pass.bytes, 32_768 * 2 * 1024 / 8 * 2);
    assert!(pass.crosses_nodes, "TP 8 fills a node: CP neighbours are on other nodes");
    let throughput = four.tokens_per_s / one.tokens_per_s;
    assert!((throughput - 1.0).abs() < 0.02, "tokens/s CP 4 / CP 1: {throughput}");
    println!(
        "Llama-2 70B at 128k on 256 H100: CP 1 {:.0} GB/GPU, {:.0} tokens/s; CP 4 {:.0} GB/GPU, {:.0} tokens/s",
        one.memory.total / 1e9,
        one.tokens_per_s,
        four.memory.total / 1e9,
        four.tokens_per_s
    );
}

#[test]
fn at_a_short_sequence_the_ring_is_exposed() {
    // 4k tokens over CP 8: a step's attention is 512 × 512 per head, far shorter than a
    // NIC's pass of the chunk's K and V.
    let mut s = long(8);
    s.seq_len = None;
    let r = run(&s);
    assert!(r.breakdown.cp_ns > 0.0, "{:?}", r.breakdown);
    let b = &r.breakdown;
    let sum = b.compute_ns + b.tp_ns + b.ep_ns + b.cp_ns + b.pp_ns + b.dp_ns + b.bubble_ns + b.optimizer_ns;
    assert!((sum / r.step_ns - 1.0).abs() < 1e-9);
}

#[test]
fn bad_cp_layouts_are_refused_by_name() {
    // 4096 tokens do not cut into 2 × 3 chunks; and the layout no longer fills the cluster.
    let list = problems(&TrainScenario { cp: 3, ..long(1) });
    assert!(has(&list, "dp", "TP × CP × PP × DP = 8 × 3 × 4 × 8"), "{list:?}");
    let list = problems(&TrainScenario { seq_len: Some(4096), cp: 3, dp: 1, ..long(1) });
    assert!(has(&list, "cp", "does not split into 2 × CP = 6 equal chunks"), "{list:?}");
    let list = problems(&TrainScenario { seq_len: Some(0), ..long(1) });
    assert!(has(&list, "seq_len", "out of range"), "{list:?}");
}

#[test]
fn cp_and_the_sequence_round_trip_and_are_left_out_when_unset() {
    let s = long(4);
    let text = s.to_json();
    assert!(text.contains("\"cp\": 4") && text.contains("\"seq_len\": 131072"), "{text}");
    assert_eq!(TrainScenario::from_json(&text).unwrap(), s);
    let plain = TrainScenario::default_demo().to_json();
    assert!(!plain.contains("\"cp\"") && !plain.contains("seq_len"));
}
