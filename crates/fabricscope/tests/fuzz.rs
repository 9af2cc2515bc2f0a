//! Fuzzing, bounded so it runs in `cargo xtask test`: scenario JSON in every shape (valid,
//! nearly valid, wrong types, edge numbers, mangled text) through parsing and validation, and
//! every scenario that validates and is small enough through the tuner, every algorithm's
//! schedule, the engine and its invariants.
//!
//! Inputs come from a fixed-seed generator, so a run is the same everywhere; a failure prints
//! the case number and the input. `FABRICSCOPE_FUZZ_CASES=N` sets the number of inputs (default
//! 10,000; the closing note of the reliability issue reports a run of 1,000,000 in release:
//! `FABRICSCOPE_FUZZ_CASES=1000000 cargo test --release -p fabricscope --test fuzz -- --nocapture`).
//! Seeds are the scenario fixtures plus `tests/fuzz-corpus/*.json`, where every input that
//! once broke something is kept.

use fabricscope::collective::{schedule_with, transfer_count, verify, Algorithm, Protocol};
use fabricscope::plan::{Admission, ENGINE_BUDGET};
use fabricscope::{simulate, Collective, Scenario};
use serde_json::{json, Map, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Scenarios run through the engine only up to this many transfers, to keep a pass bounded.
const ENGINE_TRANSFERS: u64 = 6_000;
/// Schedules are executed on data only up to this many elements in all (ranks × count).
const VERIFY_ELEMENTS: u64 = 400_000;

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;
#[path = "support/json_text.rs"]
mod json_text;
use json_text::{mangle, seeds};

/// A value of the wrong kind or at an edge: what hostile or careless input holds.
fn odd_value(rng: &mut Rng) -> Value {
    match rng.below(18) {
        0 => Value::Null,
        1 => json!(true),
        2 => json!(-1),
        3 => json!(0),
        4 => json!(u32::MAX),
        5 => json!(u64::MAX),
        6 => json!(1e308),
        7 => json!(-1e308),
        8 => json!(1e-300),
        9 => json!(0.5),
        10 => json!(-0.0),
        11 => json!(""),
        12 => json!([]),
        13 => json!({}),
        14 => json!(4_294_967_296u64),
        15 => json!("dgx-h100"),
        16 => json!([1, 2, 3]),
        _ => Value::String(
            (0..rng.below(6)).map(|_| *rng.pick(&['a', 'é', '\u{0}', '"', '\\', '中', '}'])).collect(),
        ),
    }
}

/// A field's value: one of the listed (mostly valid) ones, or with the document's odd-field
/// percentage `rng.1`, an odd one.
fn field(rng: &mut Rng, valid: &[Value]) -> Value {
    if rng.chance(rng.1) {
        odd_value(rng)
    } else {
        rng.pick(valid).clone()
    }
}

fn nums(values: &[f64]) -> Vec<Value> {
    values
        .iter()
        .map(|&v| if v.fract() == 0.0 && v.abs() < 1e15 { json!(v as i64) } else { json!(v) })
        .collect()
}

fn strs(values: &[&str]) -> Vec<Value> {
    values.iter().map(|&v| json!(v)).collect()
}

fn link(rng: &mut Rng) -> Value {
    let mut link = Map::new();
    if rng.chance(60) {
        link.insert(
            "bandwidth_gbyte_per_s".into(),
            field(rng, &nums(&[0.001, 1.0, 12.5, 50.0, 400.0, 100_000.0, 100_001.0, 0.0])),
        );
    }
    if rng.chance(40) {
        link.insert("efficiency".into(), field(rng, &nums(&[0.01, 0.5, 0.9, 1.0, 1.01])));
    }
    if rng.chance(40) {
        link.insert(
            "latency_ns".into(),
            field(rng, &nums(&[0.0, 1.0, 500.0, 100_000.0, 10_000_000_000.0, 10_000_000_001.0])),
        );
    }
    Value::Object(link)
}

/// A scenario document: each field present or absent, valid or odd, sometimes an unknown one.
fn scenario_value(rng: &mut Rng) -> Value {
    // Half the documents have only listed values, so many validate and reach the engine.
    rng.1 = if rng.chance(50) { 0 } else { 1 + rng.next() % 20 };
    let mut doc = Map::new();
    let preset = field(
        rng,
        &strs(&[
            "dgx-h100",
            "dgx-a100",
            "hgx-b200",
            "hgx-b300",
            "hgx-h800",
            "hgx-h20",
            "dgx-1",
            "pcie-h100",
            "pcie-h100-nvlink",
            "custom",
            "imported",
            "tpu",
        ]),
    );
    let custom_preset = preset == json!("custom");
    let imported_preset = preset == json!("imported");
    doc.insert("preset".into(), preset);
    doc.insert(
        "nodes".into(),
        field(rng, &nums(&[1.0, 1.0, 1.0, 2.0, 2.0, 3.0, 4.0, 5.0, 0.0, 16_384.0, 16_385.0])),
    );
    doc.insert(
        "collective".into(),
        field(
            rng,
            &strs(&[
                "all_reduce",
                "all_gather",
                "reduce_scatter",
                "broadcast",
                "reduce",
                "all_to_all",
                "send_recv",
                "AllReduce",
            ]),
        ),
    );
    doc.insert(
        "size_bytes".into(),
        field(
            rng,
            &nums(&[
                4.0,
                8.0,
                1000.0,
                1024.0,
                65_536.0,
                1_048_576.0,
                3.0,
                6.0,
                0.0,
                17_179_869_184.0,
                17_179_869_188.0,
            ]),
        ),
    );
    if rng.chance(30) {
        doc.insert("root".into(), field(rng, &nums(&[0.0, 1.0, 7.0, 8.0, 31.0, 100.0])));
    }
    if rng.chance(40) {
        doc.insert(
            "algorithm".into(),
            field(
                rng,
                &strs(&[
                    "Ring",
                    "Tree",
                    "Hierarchical",
                    "P2P",
                    "NVLS",
                    "CollNet",
                    "NVLSTree",
                    "PAT",
                    "HalvingDoubling",
                    "AllPairs",
                    "Bruck",
                    "ring",
                ]),
            ),
        );
    }
    if rng.chance(40) {
        doc.insert("protocol".into(), field(rng, &strs(&["LL", "LL128", "Simple", "ll"])));
    }
    if rng.chance(40) {
        doc.insert("channels".into(), field(rng, &nums(&[1.0, 2.0, 4.0, 8.0, 32.0, 0.0, 33.0])));
    }
    if rng.chance(30) {
        let mut links = Map::new();
        for kind in ["nvlink", "pcie", "nic"] {
            if rng.chance(50) {
                links.insert(kind.into(), link(rng));
            }
        }
        doc.insert("links".into(), Value::Object(links));
    }
    if rng.chance(50) {
        let mut fabric = Map::new();
        fabric.insert(
            "technology".into(),
            field(rng, &strs(&["infiniband", "roce", "tcp", "efa", "ethernet"])),
        );
        if rng.chance(70) {
            fabric.insert(
                "topology".into(),
                field(rng, &strs(&["auto", "single_switch", "leaf_spine", "fat_tree"])),
            );
        }
        if rng.chance(50) {
            fabric
                .insert("radix".into(), field(rng, &nums(&[4.0, 8.0, 16.0, 64.0, 1024.0, 3.0, 2.0, 1026.0])));
        }
        if rng.chance(40) {
            fabric.insert("oversubscription".into(), field(rng, &nums(&[1.0, 2.0, 4.0, 16.0, 0.0, 17.0])));
        }
        if rng.chance(40) {
            fabric.insert("wiring".into(), field(rng, &strs(&["rail", "node"])));
        }
        if rng.chance(40) {
            fabric.insert("routing".into(), field(rng, &strs(&["static", "ecmp", "adaptive"])));
        }
        if rng.chance(30) {
            fabric.insert("congested_efficiency".into(), field(rng, &nums(&[0.1, 0.5, 1.0, 0.0, 1.5])));
        }
        doc.insert("fabric".into(), Value::Object(fabric));
    }
    if custom_preset || rng.chance(5) {
        let mut custom = Map::new();
        custom.insert("shape".into(), field(rng, &strs(&["ring", "star", "full_mesh", "torus"])));
        custom.insert("gpus".into(), field(rng, &nums(&[2.0, 3.0, 5.0, 8.0, 1.0, 0.0, 1000.0])));
        custom.insert("link".into(), link(rng));
        doc.insert("custom".into(), Value::Object(custom));
    }
    if imported_preset || rng.chance(3) {
        // An imported node (`fabricscope::import`'s output), its fields swapped for odd values.
        let mut node = Map::new();
        node.insert("gpu".into(), field(rng, &strs(&["h100", "v100", "a800", "h100-pcie", "tpu"])));
        node.insert("gpus".into(), field(rng, &nums(&[8.0, 4.0, 1.0, 0.0, 65.0])));
        let pairs =
            [json!([0, 1, 2]), json!([1, 0, 2]), json!([0, 9, 1]), json!([2, 3, 0]), json!([0, 1, 99])];
        let nvlinks: Vec<Value> = (0..rng.below(4)).map(|_| rng.pick(&pairs).clone()).collect();
        node.insert("nvlinks".into(), Value::Array(nvlinks));
        node.insert("nvswitch_links".into(), field(rng, &nums(&[0.0, 0.0, 18.0, 8.0, 19.0])));
        node.insert("pcie_generation".into(), field(rng, &nums(&[5.0, 4.0, 3.0, 2.0, 7.0])));
        node.insert("sockets".into(), field(rng, &nums(&[2.0, 1.0, 0.0, 9.0])));
        let indices = |rng: &mut Rng, n: usize| -> Value {
            let len = [n, n, 0, n + 1][rng.below(4)];
            Value::Array(
                (0..len)
                    .map(|i| {
                        let v = [i as u32 / 2, 0, 1, 7][rng.below(4)];
                        json!(v)
                    })
                    .collect(),
            )
        };
        let switches = indices(rng, 4);
        node.insert("pcie_switches".into(), switches);
        let gpus = indices(rng, 8);
        node.insert("gpu_switch".into(), gpus);
        let nics = indices(rng, 8);
        node.insert("nic_switch".into(), nics);
        node.insert("nic_gbit_per_s".into(), field(rng, &nums(&[400.0, 100.0, 0.0, -1.0, 1e12])));
        doc.insert("imported".into(), Value::Object(node));
    }
    if rng.chance(20) {
        doc.insert("nics_used".into(), field(rng, &nums(&[1.0, 2.0, 4.0, 8.0, 0.0, 9.0])));
    }
    if rng.chance(15) {
        let faults: Vec<Value> = (0..rng.below(4))
            .map(|_| {
                json!({
                    "kind": field(rng, &strs(&["nic", "nvlink", "gpu", "leaf_uplink", "spine", "cable"])),
                    "node": field(rng, &nums(&[0.0, 1.0, 3.0])),
                    "leaf": field(rng, &nums(&[0.0, 1.0, 7.0])),
                    "index": field(rng, &nums(&[0.0, 1.0, 3.0, 8.0, 63.0])),
                    "rate": field(rng, &nums(&[0.0, 0.25, 0.5, 1.0, 1.5, -1.0])),
                })
            })
            .collect();
        doc.insert("faults".into(), Value::Array(faults));
    }
    if rng.chance(20) {
        doc.insert("pinning".into(), field(rng, &strs(&["aligned", "misaligned"])));
    }
    if rng.chance(20) {
        doc.insert("virtualized".into(), field(rng, &[json!(true), json!(false)]));
    }
    if rng.chance(20) {
        let key = ["in_network", "collnet", "nvls"][rng.below(3)];
        doc.insert(key.into(), field(rng, &[json!(true), json!(false)]));
    }
    if rng.chance(20) {
        doc.insert("latency".into(), field(rng, &[json!("nccl"), json!("links"), json!("textbook")]));
    }
    if rng.chance(30) {
        doc.insert("seed".into(), field(rng, &nums(&[0.0, 7.0, 18_446_744_073_709_551_615.0])));
    }
    if rng.chance(3) {
        doc.insert("speed".into(), json!(1));
    }
    if rng.chance(3) {
        let keys: Vec<String> = doc.keys().cloned().collect();
        let key = rng.pick(&keys).clone();
        doc.remove(&key);
    }
    Value::Object(doc)
}

#[derive(Default)]
struct Tally {
    inputs: u64,
    parsed: u64,
    valid: u64,
    simulated: u64,
    verified: u64,
}

/// One input through everything it reaches. Panics (a finding) on any broken promise.
fn exercise(text: &str, tally: &mut Tally) {
    tally.inputs += 1;
    let Ok(scenario) = Scenario::from_json(text) else { return };
    tally.parsed += 1;
    // What parses, prints and parses back to the same scenario.
    assert_eq!(Scenario::from_json(&scenario.to_json()).as_ref(), Ok(&scenario), "round trip");
    let valid = match scenario.validate() {
        Ok(valid) => valid,
        Err(errors) => {
            assert!(!errors.is_empty(), "an invalid scenario names at least one problem");
            for error in &errors {
                assert!(!error.problem.is_empty(), "every problem says what is wrong");
            }
            return;
        }
    };
    tally.valid += 1;
    if let Admission::Channels { .. } = valid.admit(ENGINE_BUDGET) {
        // A forced tree beyond the engine whole runs only as a sweep's point, from the
        // channels that stand for all; a run to show says so by name.
        let refused = simulate(&valid).map(|sim| sim.summary.time);
        assert!(refused.is_err_and(|e| e.field == "nodes" && e.problem.contains("a sweep's row")));
        return;
    }
    if let admitted @ (Admission::Copies { .. } | Admission::Bounded { .. }) = valid.admit(ENGINE_BUDGET) {
        // An AllToAll beyond the engine whole runs from channel 0 as a sweep's point or shown
        // from it, never expanded, or is a sweep's row bounded without a run; a run to expand
        // says so by name at once.
        let refused = simulate(&valid).map(|sim| sim.summary.time);
        assert!(refused.is_err_and(|e| e.field == "nodes" && e.problem.contains("a sweep's row")));
        let n = valid.n_ranks() as u64;
        if matches!(admitted, Admission::Bounded { .. }) && n <= 4096 {
            // The bounded row, where it is quick: its bounds in order, or a refusal by name.
            match fabricscope::Job::new(&valid, fabricscope::Mode::Auto).point().run() {
                Ok(row) => {
                    let upper = row.upper_bound_us.expect("a bounded row's upper bound");
                    assert!(row.time_us.is_finite() && row.time_us <= upper, "bounds in order");
                }
                Err(e) => assert!(
                    e.field == "nodes"
                        && (e.problem.contains("route alike") || e.problem.contains("routes here")),
                    "{e}"
                ),
            }
        }
        return;
    }
    let n = valid.n_ranks();
    let count = scenario.count();
    let shape = (scenario.nodes, n / scenario.nodes.max(1));
    if transfer_count(scenario.collective, shape, count, valid.channels(), scenario.protocol)
        > ENGINE_TRANSFERS
    {
        return;
    }
    let sim = simulate(&valid).unwrap();
    tally.simulated += 1;
    if let Err(problem) = sim.trace.check(&sim.topology) {
        panic!("engine invariant: {problem}");
    }
    // The horizon check in `validate` assumes no schedule moves more than 8 × size × ranks
    // wire bytes; hold it to that.
    let wire: u64 = sim.trace.flows.iter().map(|f| f.bytes).sum();
    // A collective takes time, unless it moves no byte over links of no latency with the
    // links' latencies alone (an AllToAll of fewer elements than ranks at `latency_ns` 0).
    let instant = wire == 0
        && scenario.latency == fabricscope::scenario::LatencyModel::Links
        && sim.trace.flows.iter().all(|f| f.path.iter().all(|&l| sim.topology.link(l).latency_ns == 0));
    assert!(sim.summary.time.as_ns() > 0 || instant, "a collective takes time");
    assert!(
        wire <= 8 * scenario.size_bytes * n as u64,
        "{wire} wire bytes for {} B on {n} ranks",
        scenario.size_bytes
    );
    assert!(sim.summary.busbw_gbyte_per_s.is_finite());
    // Every algorithm this collective has, executed on data.
    if n as u64 * count <= VERIFY_ELEMENTS {
        let algorithms: &[Algorithm] = match scenario.collective {
            Collective::AllReduce if scenario.nodes == 1 => &[
                Algorithm::Ring,
                Algorithm::Tree,
                Algorithm::Hierarchical,
                Algorithm::Nvls,
                Algorithm::AllPairs,
            ],
            Collective::AllReduce => &[
                Algorithm::Ring,
                Algorithm::Tree,
                Algorithm::Hierarchical,
                Algorithm::CollNet,
                Algorithm::NvlsTree,
                Algorithm::AllPairs,
            ],
            Collective::AllGather | Collective::ReduceScatter => {
                &[Algorithm::Ring, Algorithm::Pat, Algorithm::AllPairs]
            }
            Collective::AllToAll => &[Algorithm::Ring, Algorithm::Bruck],
            _ => &[Algorithm::Ring],
        };
        let halving = matches!(
            scenario.collective,
            Collective::AllReduce | Collective::AllGather | Collective::ReduceScatter
        ) && n.is_power_of_two();
        let extra: &[Algorithm] = if halving { &[Algorithm::HalvingDoubling] } else { &[] };
        for &algorithm in algorithms.iter().chain(extra) {
            let schedule = schedule_with(
                scenario.collective,
                (algorithm, scenario.protocol.unwrap_or(Protocol::Ll)),
                scenario.nodes,
                &valid.preset().rings,
                count,
                valid.channels(),
                scenario.root,
            );
            if let Err(error) = verify(&schedule) {
                panic!("{algorithm:?} does not verify: {error:?}");
            }
            tally.verified += 1;
        }
    }
}

#[test]
fn fuzz_scenarios_through_parsing_validation_and_the_engine() {
    let cases: u64 =
        std::env::var("FABRICSCOPE_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let seeds = seeds();
    // FABRICSCOPE_FUZZ_SEED picks another fixed stream (for long runs beyond the default one).
    let seed: u64 = std::env::var("FABRICSCOPE_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut rng = Rng(0xF0CA_CC1A ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15), 0);
    let mut tally = Tally::default();
    // Seeds as they are first.
    for text in &seeds {
        exercise(text, &mut tally);
    }
    let start = std::time::Instant::now();
    for case in 0..cases {
        let text = match rng.below(10) {
            // A generated document, as it is or damaged.
            0..=5 => serde_json::to_string(&scenario_value(&mut rng)).unwrap(),
            6 | 7 => {
                let text = serde_json::to_string(&scenario_value(&mut rng)).unwrap();
                mangle(&mut rng, &text)
            }
            // A seed, damaged.
            8 => {
                let seed = rng.pick(&seeds).clone();
                mangle(&mut rng, &seed)
            }
            // Any bytes.
            _ => String::from_utf8_lossy(&(0..rng.below(64)).map(|_| rng.next() as u8).collect::<Vec<_>>())
                .into_owned(),
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| exercise(&text, &mut tally)));
        if outcome.is_err() {
            panic!("fuzz case {case} broke; add it to tests/fuzz-corpus/ once fixed:\n{text}");
        }
    }
    println!(
        "fuzz: {} inputs ({} seeds), {} parsed, {} valid, {} simulated, {} schedules verified, in {:.1} s",
        tally.inputs,
        seeds.len(),
        tally.parsed,
        tally.valid,
        tally.simulated,
        tally.verified,
        start.elapsed().as_secs_f64()
    );
    // The generator reaches every stage, or the fuzzing proves little.
    assert!(
        tally.parsed * 10 > tally.inputs
            && tally.valid * 10 > tally.parsed
            && tally.simulated * 4 > tally.valid,
        "coverage"
    );
}

/// A training job document: a cluster, a model (preset, custom or unknown) and a layout, each
/// field usually sensible and sometimes odd.
fn train_value(rng: &mut Rng) -> Value {
    rng.1 = if rng.chance(50) { 0 } else { 1 + rng.next() % 20 };
    let mut doc = Map::new();
    let mut cluster = scenario_value(rng);
    if let Value::Object(map) = &mut cluster {
        // Keep most clusters small enough to run.
        if rng.chance(80) {
            map.insert("nodes".into(), field(rng, &nums(&[1.0, 2.0, 4.0])));
            map.insert("preset".into(), field(rng, &strs(&["dgx-h100", "dgx-a100", "hgx-b200"])));
            map.remove("custom");
        }
    }
    doc.insert("cluster".into(), cluster);
    doc.insert(
        "model".into(),
        field(
            rng,
            &strs(&[
                "gpt2-small",
                "llama2-7b",
                "llama2-70b",
                "gpt3-175b",
                "mixtral-8x7b",
                "deepseek-v3",
                "qwen3-235b-a22b",
                "custom",
                "gpt5",
            ]),
        ),
    );
    if rng.chance(20) {
        let mut m = Map::new();
        for (k, v) in [
            ("layers", nums(&[1.0, 2.0, 12.0, 0.0])),
            ("hidden", nums(&[64.0, 768.0, 8.0, 7.0])),
            ("heads", nums(&[1.0, 4.0, 12.0, 0.0])),
            ("kv_heads", nums(&[1.0, 4.0, 12.0])),
            ("ffn", nums(&[256.0, 3072.0])),
            ("seq_len", nums(&[128.0, 1024.0])),
            ("vocab", nums(&[1000.0, 50257.0])),
        ] {
            m.insert(k.into(), field(rng, &v));
        }
        m.insert("gated_mlp".into(), json!(rng.chance(50)));
        m.insert("tied_embeddings".into(), json!(rng.chance(50)));
        // The optional parts: wider heads, latent attention, experts, each sometimes odd.
        if rng.chance(30) {
            m.insert("head_dim".into(), field(rng, &nums(&[64.0, 128.0, 0.0, 5000.0])));
        }
        if rng.chance(30) {
            m.insert(
                "mla".into(),
                json!({
                    "q_lora_rank": field(rng, &nums(&[0.0, 64.0, 1536.0])),
                    "kv_lora_rank": field(rng, &nums(&[32.0, 512.0, 0.0])),
                    "qk_nope_head_dim": field(rng, &nums(&[16.0, 128.0, 0.0])),
                    "qk_rope_head_dim": field(rng, &nums(&[0.0, 64.0])),
                    "v_head_dim": field(rng, &nums(&[16.0, 128.0, 2000.0])),
                }),
            );
        }
        if rng.chance(40) {
            m.insert(
                "moe".into(),
                json!({
                    "experts": field(rng, &nums(&[2.0, 8.0, 64.0, 0.0, 5000.0])),
                    "shared_experts": field(rng, &nums(&[0.0, 1.0, 100.0])),
                    "top_k": field(rng, &nums(&[1.0, 2.0, 8.0, 0.0, 100.0])),
                    "expert_ffn": field(rng, &nums(&[64.0, 2048.0, 0.0])),
                    "dense_layers": field(rng, &nums(&[0.0, 1.0, 3.0, 100.0])),
                    "capacity_factor": field(rng, &nums(&[1.0, 1.25, 0.5, 100.0])),
                }),
            );
        }
        doc.insert("custom_model".into(), Value::Object(m));
    }
    if rng.chance(60) {
        // A consistent layout of a small model on 1 or 2 DGX H100, so many jobs run.
        let nodes = 1 + rng.below(2) as u64;
        let tp = *rng.pick(&[1u64, 2, 4]);
        let pp = *rng.pick(&[1u64, 2, 3, 4]);
        let cp = *rng.pick(&[1u64, 1, 2]);
        let gpus = 8 * nodes;
        let dp = (gpus / (tp * cp * pp)).max(1);
        let micro = *rng.pick(&[1u64, 2]);
        let fabric = rng.pick(&["infiniband", "roce", "tcp"]).to_string();
        doc.insert("cluster".into(), json!({ "preset": "dgx-h100", "nodes": nodes, "collective": "all_reduce", "size_bytes": 4, "fabric": { "technology": fabric } }));
        // A small dense model, or a custom mixture of experts split over EP.
        if rng.chance(30) {
            doc.insert("model".into(), json!("custom"));
            let dense = field(rng, &nums(&[0.0, 1.0]));
            doc.insert("custom_model".into(), json!({ "layers": 4, "hidden": 256, "heads": 4, "kv_heads": 4, "ffn": 512, "gated_mlp": true, "seq_len": 512, "vocab": 1000, "tied_embeddings": false, "moe": { "experts": 8, "top_k": 2, "expert_ffn": 256, "dense_layers": dense } }));
            let ep = *rng.pick(&[1u64, 2, 4]);
            doc.insert("ep".into(), field(rng, &[json!(ep), json!(dp)]));
        } else {
            doc.insert("model".into(), json!("gpt2-small"));
            doc.remove("custom_model");
        }
        doc.insert("tp".into(), json!(tp));
        doc.insert("cp".into(), json!(cp));
        doc.insert("pp".into(), json!(pp));
        doc.insert("dp".into(), field(rng, &[json!(dp)]));
        doc.insert("micro_batch".into(), json!(micro));
        let m = 1 + rng.below(4) as u64;
        doc.insert("global_batch".into(), field(rng, &[json!(micro * dp * m)]));
    } else {
        for key in ["tp", "pp", "dp"] {
            doc.insert(key.into(), field(rng, &nums(&[1.0, 1.0, 2.0, 4.0, 8.0, 16.0, 0.0, 3.0])));
        }
        doc.insert("micro_batch".into(), field(rng, &nums(&[1.0, 2.0, 4.0, 0.0])));
        doc.insert("global_batch".into(), field(rng, &nums(&[1.0, 8.0, 16.0, 64.0, 7.0, 100_000.0])));
    }
    for (key, values) in [
        ("sequence_parallel", vec![json!(true), json!(false)]),
        ("zero", nums(&[0.0, 1.0, 2.0, 3.0, 4.0])),
        ("order", strs(&["tp-pp-dp", "dp-pp-tp", "tp-dp-pp", "x"])),
        ("recompute", strs(&["none", "selective", "full"])),
        ("compute_efficiency", nums(&[0.5, 1.0, 0.0, 2.0])),
    ] {
        if rng.chance(50) {
            doc.insert(key.into(), field(rng, &values));
        }
    }
    // The newer knobs, less often, so most jobs keep a layout that validates.
    for (key, values) in [
        ("virtual_stages", nums(&[1.0, 2.0, 3.0, 0.0])),
        ("seq_len", nums(&[512.0, 4096.0, 131072.0, 0.0, 4e6])),
        ("ep", nums(&[1.0, 2.0, 4.0, 0.0, 3.0])),
        ("cp", nums(&[1.0, 2.0, 0.0, 3.0])),
    ] {
        if rng.chance(12) {
            doc.insert(key.into(), field(rng, &values));
        }
    }
    if rng.chance(20) {
        doc.insert("cost".into(), json!({ "gpu_hour_usd": field(rng, &nums(&[2.5, 0.0, -1.0])), "discount": field(rng, &nums(&[0.0, 0.3, 1.0])), "tokens": field(rng, &nums(&[1e9, 0.0])) }));
    }
    if rng.chance(20) {
        doc.insert("storage".into(), json!({ "write_gbyte_per_s": field(rng, &nums(&[10.0, 0.0])), "interval_min": field(rng, &nums(&[60.0, 0.0])) }));
    }
    Value::Object(doc)
}

/// Training jobs through parsing, validation and (when small) a simulated step: no panic, a
/// named error for what does not validate, and a step whose parts add up for what does.
#[test]
fn fuzz_training_jobs() {
    use fabricscope::train::TrainScenario;
    let cases: u64 = std::env::var("FABRICSCOPE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(|n: u64| n / 10)
        .unwrap_or(2_000);
    let seed: u64 = std::env::var("FABRICSCOPE_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut rng = Rng(0x07EA_10B5 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15), 0);
    let (mut parsed, mut valid, mut ran) = (0u64, 0u64, 0u64);
    // Simulated jobs with experts split over EP, with CP, interleaved.
    let (mut with_ep, mut with_cp, mut interleaved) = (0u64, 0u64, 0u64);
    for case in 0..cases {
        let text = {
            let doc = serde_json::to_string(&train_value(&mut rng)).unwrap();
            if rng.chance(25) {
                mangle(&mut rng, &doc)
            } else {
                doc
            }
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let Ok(job) = TrainScenario::from_json(&text) else { return (false, false, None) };
            match job.validate() {
                Err(errors) => {
                    assert!(!errors.is_empty() && errors.iter().all(|e| !e.problem.is_empty()));
                    (true, false, None)
                }
                Ok(v) if job.cluster.nodes <= 4 => {
                    let kinds = (job.ep > 1, job.cp > 1, job.virtual_stages > 1);
                    let r = v.run();
                    let b = &r.breakdown;
                    let sum = b.compute_ns
                        + b.tp_ns
                        + b.ep_ns
                        + b.cp_ns
                        + b.pp_ns
                        + b.dp_ns
                        + b.bubble_ns
                        + b.optimizer_ns;
                    assert!(
                        r.step_ns.is_finite()
                            && r.step_ns > 0.0
                            && (sum - r.step_ns).abs() <= 1e-6 * r.step_ns,
                        "{sum} vs {}",
                        r.step_ns
                    );
                    assert!(r.mfu.is_finite() && r.mfu > 0.0 && r.mfu <= 1.0, "MFU {}", r.mfu);
                    (true, true, Some(kinds))
                }
                Ok(_) => (true, true, None),
            }
        }));
        match outcome {
            Ok((p, v, r)) => {
                parsed += p as u64;
                valid += v as u64;
                if let Some((ep, cp, il)) = r {
                    ran += 1;
                    (with_ep, with_cp, interleaved) =
                        (with_ep + ep as u64, with_cp + cp as u64, interleaved + il as u64);
                }
            }
            Err(_) => {
                panic!("training fuzz case {case} broke; add it to tests/fuzz-corpus/ once fixed:\n{text}")
            }
        }
    }
    println!(
        "train fuzz: {cases} jobs, {parsed} parsed, {valid} valid, {ran} simulated ({with_ep} with EP, {with_cp} with CP, {interleaved} interleaved)"
    );
    assert!(
        parsed * 4 > cases && valid * 20 > parsed && ran > 0,
        "coverage: {parsed} parsed, {valid} valid, {ran} ran"
    );
}
