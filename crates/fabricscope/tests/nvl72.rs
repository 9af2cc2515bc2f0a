//! Rack-scale NVLink domains (#16): a GB200 NVL72 rack is one node of 72 GPUs on one NVLink
//! Switch fabric. Its ring runs at a GPU's NVLink rate, NVLS reduces in its switch trays, and TP
//! groups too big for an 8-GPU box stay on NVLink inside it.

use fabricscope::collective::{Algorithm, Protocol};
use fabricscope::train::{OpKind, TrainReport, TrainScenario};
use fabricscope::{simulate, Scenario};

fn rack(algorithm: Option<Algorithm>, nvls: bool) -> fabricscope::Simulation {
    let s = Scenario {
        preset: "gb200-nvl72".into(),
        size_bytes: 1 << 30,
        algorithm,
        protocol: algorithm.map(|_| Protocol::Simple),
        nvls,
        ..Scenario::default_demo()
    };
    simulate(&s.validate().unwrap()).unwrap()
}

#[test]
fn one_nvl72_rack_rings_at_a_gpus_nvlink_rate_and_nvls_beats_it() {
    let ring = rack(Some(Algorithm::Ring), false);
    assert_eq!(ring.summary.n_ranks, 72);
    // NCCL's channels: one per NIC, at most 32.
    assert_eq!(ring.scenario.channels(), 32);
    // Every GPU is one switch hop from every other, so the ring runs as the α-β line with one
    // GPU's NVLink 5 (18 links × 50 GB/s × NCCL's 40.1/50): 142 steps of 1/2304 of the buffer,
    // each paying NCCL's per-step latency, which costs a sixth of the line rate at 1 GiB.
    let ab = ring.alpha_beta().unwrap();
    let ratio = ring.summary.time.as_ns() as f64 / ab.predicted_ns;
    assert!((ratio - 1.0).abs() < 0.02, "engine {} vs α-β {}", ring.summary.time, ab.predicted_ns);
    let line = 18.0 * 50.0 * 0.802;
    let busbw = ring.summary.busbw_gbyte_per_s;
    assert!(busbw < line && busbw > 0.8 * line, "ring busbw {busbw:.1} GB/s against {line:.1}");
    let nvls = rack(None, true);
    assert_eq!(nvls.schedule.algorithm, Algorithm::Nvls, "the tuner's pick at 1 GiB on one rack");
    assert!(
        nvls.summary.busbw_gbyte_per_s > busbw,
        "NVLS {} vs ring {busbw}",
        nvls.summary.busbw_gbyte_per_s
    );
    println!(
        "GB200 NVL72, 1 GiB AllReduce: ring {busbw:.1} GB/s, NVLS {:.1} GB/s",
        nvls.summary.busbw_gbyte_per_s
    );
}

/// GPT-3 175B, TP 24 × PP 4 × DP 1 on 72 B200-class GPUs (24 divides its 96 heads and the rack).
fn gpt3_tp24(preset: &str, nodes: u32) -> TrainReport {
    let mut s = TrainScenario::default_demo();
    s.cluster.preset = preset.into();
    s.cluster.nodes = nodes;
    (s.tp, s.pp, s.dp) = (24, 3, 1);
    s.global_batch = 96;
    s.validate().unwrap_or_else(|e| panic!("{e:?}")).run()
}

#[test]
fn tp_24_stays_on_nvlink_in_an_nvl72_rack_and_crosses_the_nics_on_hgx_boxes() {
    let rack = gpt3_tp24("gb200-nvl72", 1);
    let boxes = gpt3_tp24("hgx-b200", 9);
    let tp_crosses = |r: &TrainReport| {
        r.ops.iter().filter(|o| o.kind == OpKind::Tp).map(|o| o.crosses_nodes).collect::<Vec<_>>()
    };
    assert!(!tp_crosses(&rack).is_empty() && tp_crosses(&rack).iter().all(|&c| !c));
    assert!(tp_crosses(&boxes).iter().all(|&c| c));
    assert!(rack.step_ns < boxes.step_ns, "rack {} vs boxes {}", rack.step_ns, boxes.step_ns);
    let share = |r: &TrainReport| r.breakdown.tp_ns / r.step_ns;
    // The TP collectives themselves (the GPUs differ: GB200's B200 computes 2.5 PFLOP/s to
    // HGX B200's 2.25), each over 24 GPUs: latency-bound at 48 MiB, so NVLink's shorter hops
    // win more than its bandwidth does (a ring across 3 boxes uses 8 NICs per boundary).
    assert!(
        rack.breakdown.tp_ns < boxes.breakdown.tp_ns,
        "TP: rack {} vs boxes {}",
        rack.breakdown.tp_ns,
        boxes.breakdown.tp_ns
    );
    println!(
        "GPT-3 175B TP 24 x PP 3: NVL72 step {:.3} s (TP {:.1}%), 9 HGX B200 {:.3} s (TP {:.1}%)",
        rack.step_ns / 1e9,
        100.0 * share(&rack),
        boxes.step_ns / 1e9,
        100.0 * share(&boxes)
    );
}

#[test]
fn a_tp_group_that_would_straddle_two_racks_is_refused_by_name() {
    let mut s = TrainScenario::default_demo();
    s.cluster.preset = "gb200-nvl72".into();
    s.cluster.nodes = 2;
    (s.tp, s.pp, s.dp) = (16, 3, 3);
    s.global_batch = 96;
    let errors = s.validate().unwrap_err();
    assert_eq!(errors[0].field, "tp", "{errors:?}");
    assert!(
        errors[0].problem.contains("straddle") && errors[0].problem.contains("8, 9, 12, 18, 24, 36, 72"),
        "{errors:?}"
    );
}
