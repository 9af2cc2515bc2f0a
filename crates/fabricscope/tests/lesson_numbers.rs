//! The lessons on NVLink domains, expert parallelism and long context take every number they
//! state from the model at run time (`{key}`s, filled by the page; the web crate's tests check
//! each key and each check question). What they say in words is checked here: each claim
//! recomputed from the model, so a change to the model that makes a sentence false fails.

use fabricscope::train::{StepOp, TrainReport, TrainScenario};
use serde_json::Value;

fn lessons() -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/lessons.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every step of a lesson that runs a training job, run.
fn runs(lessons: &[Value], id: &str) -> Vec<TrainReport> {
    let lesson = lessons.iter().find(|l| l["id"] == id).unwrap_or_else(|| panic!("lesson {id}"));
    let steps = lesson["steps"].as_array().unwrap();
    steps
        .iter()
        .enumerate()
        .map(|(k, step)| {
            let job = TrainScenario::from_json(&step["train"].to_string()).unwrap();
            job.validate().unwrap_or_else(|e| panic!("{id} step {k}: {e:?}")).run()
        })
        .collect()
}

fn op_ns(r: &TrainReport, op: StepOp) -> f64 {
    r.ops.iter().find(|o| o.op == op).unwrap_or_else(|| panic!("{op:?}")).time_ns as f64
}

#[test]
fn the_nvlink_domain_lesson_says_what_the_model_gives() {
    let r = runs(&lessons(), "nvlink-domain");
    let ag = |k: usize| op_ns(&r[k], StepOp::SequenceAllGather);
    // "One GB200 NVL72 rack: the same TP 24 ... Yet one AllGather still takes" about as long:
    // at one sequence per micro-batch the steps' fixed cost sets it, not the links.
    assert!(r[1].step_ns < r[0].step_ns, "the rack is faster");
    assert!(ag(1) > 0.8 * ag(0), "the rack's AllGather {} against the boxes' {}", ag(1), ag(0));
    // "With 4 sequences per micro-batch ... bandwidth starts to decide"; on boxes "crossing the
    // NICs shows".
    assert!(ag(3) > 1.2 * ag(2), "boxes {} against the rack {} at micro-batch 4", ag(3), ag(2));
    assert!(r[2].breakdown.bubble_ns / r[2].step_ns > r[1].breakdown.bubble_ns / r[1].step_ns);
    // TP 8 on boxes: "shorter than TP 24 anywhere"; TP stays on NVLink.
    for k in 0..4 {
        assert!(r[4].step_ns < r[k].step_ns, "TP 8 on boxes against step {k}");
    }
    assert!(ag(4) < ag(0), "TP 8's AllGather stays on NVLink");
    // In the rack, what crossed the NICs is on NVLink: DP and PP shrink, TP's AllGather is the same.
    assert!(r[5].breakdown.dp_ns < r[4].breakdown.dp_ns && r[5].step_ns < r[4].step_ns);
    assert!((ag(5) - ag(4)).abs() <= 0.02 * ag(4), "TP's AllGather unchanged: {} vs {}", ag(5), ag(4));
}

#[test]
fn the_expert_parallelism_lesson_says_what_the_model_gives() {
    let r = runs(&lessons(), "ep-wants-nvlink");
    let dispatch = |k: usize| op_ns(&r[k], StepOp::ExpertDispatch);
    let ep_share = |k: usize| r[k].breakdown.ep_ns / r[k].step_ns;
    // Across boxes one dispatch is "an order of magnitude longer", and EP "fills much of the
    // Gantt chart".
    assert!(dispatch(1) >= 10.0 * dispatch(0), "{} vs {}", dispatch(1), dispatch(0));
    assert!(ep_share(1) > 0.4 && ep_share(0) < 0.2, "EP {} across, {} inside", ep_share(1), ep_share(0));
    // tp-dp-pp puts each EP group in a box: "NVLink again"; the pipeline sends cross instead,
    // "few and small".
    assert!(dispatch(2) < 0.2 * dispatch(1));
    assert!(r[2].breakdown.pp_ns < 0.1 * r[2].step_ns);
    // In the rack the order no longer decides.
    assert!((r[3].step_ns - r[0].step_ns).abs() <= 0.02 * r[0].step_ns);
}

#[test]
fn the_long_context_lesson_says_what_the_model_gives() {
    let r = runs(&lessons(), "long-context-cp");
    // 128k tokens without CP do not fit; CP 4 quarters the activations, still too much, and its
    // ring costs nothing; CP 8 fits, the KV pass still hidden.
    assert!(!r[0].memory.fits && !r[1].memory.fits && r[2].memory.fits);
    let quarter = r[1].memory.activations / r[0].memory.activations;
    assert!((0.2..0.3).contains(&quarter), "CP 4 keeps {quarter} of the activations");
    assert_eq!(r[1].breakdown.cp_ns, 0.0);
    assert_eq!(r[2].breakdown.cp_ns, 0.0);
    // Short sequences expose the KV pass.
    assert!(r[3].breakdown.cp_ns > 0.05 * r[3].step_ns);
    // Full recomputation fits too, at fewer tokens per second than CP 8.
    assert!(r[4].memory.fits && r[4].tokens_per_s < r[2].tokens_per_s);
}
