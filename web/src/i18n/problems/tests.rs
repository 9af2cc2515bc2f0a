//! The core's real problems, made from broken scenarios and jobs, each read in Chinese by a
//! template, its figures kept.

use super::*;
use fabricscope::train::TrainScenario;
use fabricscope::Scenario;
use serde_json::{json, Value};

/// `base`'s JSON with `patch`'s fields laid over it (objects merged, anything else replaced).
fn patched(base: Value, patch: &Value) -> Value {
    match (base, patch) {
        (Value::Object(mut base), Value::Object(patch)) => {
            for (key, value) in patch {
                let old = base.remove(key).unwrap_or(Value::Null);
                base.insert(key.clone(), patched(old, value));
            }
            Value::Object(base)
        }
        (_, patch) => patch.clone(),
    }
}

/// The core's problems with `base` once `patch` is laid over its JSON: the parse's, else
/// `check`'s (`validate`'s, as the page shows them).
fn problems_with<T: serde::Serialize>(
    base: &T,
    patch: Value,
    parse: impl Fn(&str) -> Result<T, fabricscope::ScenarioError>,
    check: impl Fn(&T) -> Vec<fabricscope::ScenarioError>,
) -> Vec<String> {
    let text = patched(serde_json::to_value(base).unwrap(), &patch).to_string();
    match parse(&text) {
        Err(error) => vec![error.to_string()],
        Ok(value) => check(&value).iter().map(|e| e.to_string()).collect(),
    }
}

/// The same of the collectives' scenario, from the page's default.
fn scenario_problems(patch: Value) -> Vec<String> {
    problems_with(&Scenario::default_demo(), patch, Scenario::from_json, |s| {
        s.validate().err().unwrap_or_default()
    })
}

/// The same of a training job.
fn job_problems(patch: Value) -> Vec<String> {
    let check = |job: &TrainScenario| job.validate().err().unwrap_or_default();
    problems_with(&TrainScenario::default_demo(), patch, TrainScenario::from_json, check)
}

/// Every problem of `message` given in Chinese (some CJK character in its sentence, not only
/// in the field's label), its figures kept.
fn assert_chinese(message: &str) {
    for problem in problems(message) {
        let sentence =
            problem.split_once(": ").filter(|(field, _)| is_field(field)).map_or(problem, |(_, s)| s);
        let translated = sentence_zh(sentence);
        assert_ne!(translated, sentence, "no template for {sentence:?}");
        assert!(translated.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)), "{translated}");
        let out = problem_zh(problem);
        for figure in sentence.split(|c: char| !c.is_ascii_digit()).filter(|f| f.len() >= 2) {
            assert!(out.contains(figure), "{figure} lost from {problem:?}: {out}");
        }
    }
    assert!(problem_text(Lang::Zh, message).len() >= message.len() / 2);
}

#[test]
fn the_collectives_problems_read_in_chinese() {
    let cases = [
        json!({"nodes": 20000}),
        json!({"nodes": 0}),
        json!({"size_bytes": 6}),
        json!({"size_bytes": 0}),
        json!({"channels": 99}),
        json!({"nodes": 2, "algorithm": "NVLS", "protocol": "LL"}),
        json!({"nodes": 2, "algorithm": "NVLSTree", "protocol": "LL128"}),
        json!({"nodes": 1, "algorithm": "NVLSTree"}),
        json!({"nodes": 2, "algorithm": "NVLS"}),
        json!({"nodes": 2, "algorithm": "NVLSTree", "nvls": false}),
        json!({"nodes": 2, "algorithm": "CollNet", "fabric": {"technology": "roce"}}),
        json!({"nodes": 2, "algorithm": "CollNet", "protocol": "LL128"}),
        json!({"nodes": 2, "algorithm": "PAT"}),
        json!({"nodes": 3, "algorithm": "HalvingDoubling"}),
        json!({"collective": "all_to_all", "algorithm": "Ring"}),
        json!({"collective": "broadcast", "algorithm": "Tree", "nodes": 2}),
        json!({"collective": "broadcast", "root": 500}),
        // Chains beyond the engine not run on fewer nodes: more than 32 times the nodes run,
        // adaptive routes, a fault.
        json!({"collective": "broadcast", "nodes": 8192, "size_bytes": 1 << 30}),
        json!({"collective": "reduce", "nodes": 2048, "size_bytes": 1 << 30, "fabric": {"routing": "adaptive"}}),
        json!({"collective": "broadcast", "nodes": 2048, "size_bytes": 1 << 30, "faults": [{"kind": "nic", "node": 1, "index": 0, "rate": 0.5}]}),
        // A SendRecv beyond the engine on a lossy fabric, where no channel runs for the others:
        // the largest message that runs.
        json!({"collective": "send_recv", "nodes": 2048, "size_bytes": 1 << 30, "fabric": {"technology": "roce"}}),
        // Within it, but hashed routes on a lossy fabric: no bound holds.
        json!({"collective": "all_to_all", "nodes": 256, "fabric": {"technology": "roce"}}),
        // Channel 0 would fit, but not as copies: ECMP hashes the channel in.
        json!({"collective": "all_to_all", "nodes": 128, "fabric": {"technology": "roce"}}),
        json!({"preset": "dgx-z9"}),
        json!({"preset": "custom"}),
        json!({"nics_used": 40}),
        json!({"links": {"nic": {"bandwidth_gbyte_per_s": -1.0}}}),
        json!({"links": {"nic": {"efficiency": 2.0}}}),
        json!({"links": {"nvlink": {"latency_ns": 1e12}}}),
        json!({"faults": [{"kind": "nic", "node": 9, "index": 0, "rate": 0.5}]}),
        json!({"faults": [{"kind": "nic", "node": 0, "index": 0, "rate": 3.0}]}),
        json!({"faults": [{"kind": "nic", "node": 0, "index": 0, "rate": 0.0}]}),
        json!({"faults": [{"kind": "nvlink", "node": 0, "index": 0, "rate": 1e-300}]}),
        json!({"nodes": 2, "faults": [{"kind": "spine", "index": 0, "rate": 0.5}]}),
        json!({"nodes": 20000, "size_bytes": 6, "channels": 99}),
        json!({"collective": "all_reduse"}),
        json!({"nodes": "many"}),
        json!({"nodez": 2}),
    ];
    for case in cases {
        let problems = scenario_problems(case.clone());
        assert!(!problems.is_empty(), "{case} has no problem");
        assert_chinese(&problems.join("; "));
    }
    assert_eq!(
        problem_text(Lang::Zh, "nodes: 20000 is out of range: use 1 to 16384"),
        "节点数（nodes）：20000 超出范围：可用 1 到 16384"
    );
    assert_eq!(problem_text(Lang::En, "nodes: 20000 is out of range"), "nodes: 20000 is out of range");
    assert_eq!(
        problem_text(
            Lang::Zh,
            "The link's scenario could not be used (nodes: 0 is out of range: use 1 to 16384; channels: 99 is out of range: use 1 to 32); the last good scenario stays."
        ),
        "链接中的场景无法使用（节点数（nodes）：0 超出范围：可用 1 到 16384；通道数（channels）：99 超出范围：可用 1 到 32）；仍显示上一个有效场景。"
    );
}

#[test]
fn the_training_problems_read_in_chinese() {
    let cases = [
        json!({"tp": 3}),
        json!({"tp": 16, "dp": 2}),
        json!({"pp": 200, "dp": 1, "tp": 1}),
        json!({"zero": 7}),
        json!({"micro_batch": 0}),
        json!({"global_batch": 129}),
        json!({"model": "gpt-5"}),
        json!({"model": "custom"}),
        json!({"ep": 2}),
        json!({"virtual_stages": 2, "pp": 1, "dp": 32}),
        json!({"compute_efficiency": 5.0}),
        json!({"zero": "three"}),
        // A DP ring of 16,384 GPUs: beyond even a prefix of its steps (`train::prefix`).
        json!({"cluster": {"nodes": 2048}, "tp": 1, "pp": 1, "dp": 16384, "global_batch": 16384}),
        // 32 DP rings of 256 GPUs over RoCE: no group stands for the others (ECMP), and 48
        // steps of each are beyond the engine together (`train::cut`).
        json!({"cluster": {"nodes": 1024, "fabric": {"technology": "roce"}}, "tp": 8, "pp": 4, "dp": 256, "global_batch": 1024}),
        // 128 DP rings of 16 GPUs over RoCE: beyond the engine together, and each ring's 30 steps
        // too few to extrapolate from.
        json!({"cluster": {"nodes": 256, "fabric": {"technology": "roce"}}, "tp": 8, "pp": 16, "dp": 16, "global_batch": 1024}),
    ];
    for case in cases {
        let problems = job_problems(case.clone());
        assert!(!problems.is_empty(), "{case} has no problem");
        assert_chinese(&problems.join("; "));
    }
    let short = job_problems(json!({"cluster": {"nodes": 256, "fabric": {"technology": "roce"}}, "tp": 8, "pp": 16, "dp": 16, "global_batch": 1024})).join("; ");
    assert!(short.contains("its rings of 16 GPUs have only 30 steps, too few to extrapolate"), "{short}");
}

#[test]
fn a_sentence_no_template_matches_stays_whole() {
    let odd = "something the page has never said";
    assert_eq!(problem_text(Lang::Zh, odd), odd);
    assert_eq!(holes("{} to {}", "1 to 2"), Some(vec!["1", "2"]));
    assert_eq!(holes("a {} b", "a  b"), None);
    assert_eq!(holes("fixed", "fixed and more"), None);
    assert_eq!(field_label("faults[3].rate"), Some("速率"));
    assert_eq!(field_label("custom_model.moe.top_k"), None);
}

/// A run too big to simulate, refused once its job runs or by the page's budget: each sentence
/// and the clauses inside it (why, what to do) read in Chinese, no English clause left.
#[test]
fn the_runs_too_big_read_in_chinese() {
    let scenario = |patch: Value| -> fabricscope::ValidScenario {
        let text = patched(serde_json::to_value(Scenario::default_demo()).unwrap(), &patch).to_string();
        Scenario::from_json(&text).unwrap().validate().unwrap()
    };
    let page = |valid: &fabricscope::ValidScenario| crate::state::page_job::page_job(valid).err().unwrap();
    let run = |valid: &fabricscope::ValidScenario, budget| {
        fabricscope::Job::within(valid, fabricscope::Mode::Auto, budget).run().err().unwrap().to_string()
    };
    let messages = [
        // Beyond the page's budget, and not a ring that settles: on RoCE, lossy, where no bound
        // holds (on InfiniBand the page bounds it).
        page(&scenario(
            json!({"nodes": 32, "collective": "all_to_all", "size_bytes": 1 << 30, "fabric": {"technology": "roce"}}),
        )),
        // NVLSTree forced beyond the engine, to show: a sweep's row runs it, a run to show cannot.
        run(
            &scenario(json!({"nodes": 128, "algorithm": "NVLSTree", "size_bytes": 1 << 30})),
            fabricscope::plan::ENGINE_BUDGET,
        ),
        // A chain beyond the page in LL's 32 KiB chunks, within the CLI's engine.
        page(&scenario(json!({"nodes": 128, "collective": "broadcast", "size_bytes": 64 << 20}))),
        // 2,700 nodes: a leaf group cut short, so the ring does not turn by whole nodes, and its
        // every position is beyond the page's measuring run.
        run(
            &scenario(json!({"nodes": 2700, "nvls": false, "size_bytes": 1 << 30})),
            fabricscope::plan::PAGE_BUDGET,
        ),
        // An AllToAll the page would bound, beyond the routes it bounds (here 1,000): the
        // command line bounds more.
        fabricscope::Job::within(
            &scenario(json!({"nodes": 8, "collective": "all_to_all", "size_bytes": 1 << 26})),
            fabricscope::Mode::Auto,
            fabricscope::plan::Budget { transfers: 1, bounded: 1000, ..fabricscope::plan::PAGE_BUDGET },
        )
        .showing_images()
        .run()
        .err()
        .unwrap()
        .to_string(),
        // A SendRecv beyond its channel 0 whose ranks do not turn by whole nodes (12 nodes on
        // leaves of 8): a sweep's row, refused by name.
        fabricscope::Job::within(
            &scenario(json!({"nodes": 12, "collective": "send_recv", "size_bytes": 256 << 20, "fabric": {"topology": "leaf_spine", "radix": 16}})),
            fabricscope::Mode::Auto,
            fabricscope::plan::Budget { transfers: 1000, ..fabricscope::plan::ENGINE_BUDGET },
        )
        .point_hashed()
        .run()
        .err()
        .unwrap()
        .to_string(),
    ];
    for message in &messages {
        eprintln!("{message}\n  {}", problem_text(Lang::Zh, message));
        assert_chinese(message);
        let zh = problem_text(Lang::Zh, message);
        for (en, _) in table::CLAUSES {
            let start = en.split("{}").next().unwrap_or(en);
            assert!(start.len() < 8 || !zh.contains(start), "{start:?} left in English: {zh}");
        }
    }
    assert!(messages[3].contains("use at most 2604 nodes here"), "{}", messages[3]);
    assert!(
        messages[4].contains("or the CLI (fabricscope alltoall), which bounds up to 67108864"),
        "{}",
        messages[4]
    );
    assert!(
        messages[2].contains("a message of at most 12 MiB here, or the CLI (fabricscope broadcast)"),
        "{}",
        messages[2]
    );
    assert!(
        !messages[0].contains("steady state") && messages[0].contains("bounds it by max-min sharing"),
        "{}",
        messages[0]
    );
    // A link's problem, kept in English and given in the page's language when drawn, so that
    // switching language reads it anew (`route`): each of its sentences.
    let inner = &messages[0];
    for (wrapper, _) in WRAPPERS {
        let message = wrapper.replace("{}", inner);
        let zh = problem_text(Lang::Zh, &message);
        assert!(zh.contains("网页最多逐一模拟 400000 次") && !zh.contains("could not be used"), "{zh}");
    }
    assert_eq!(
        problem_text(Lang::Zh, "The link's training job could not be used (the page simulates up to 2048 nodes); showing the default job."),
        "链接中的训练作业无法使用（网页最多模拟 2048 个节点），已显示默认作业。"
    );
}
