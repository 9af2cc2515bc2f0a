//! The lessons on NVLink domains, expert parallelism and long context state numbers; each is
//! recomputed here from the model, and the test fails if a lesson's text (English or Chinese)
//! no longer says what the model gives.

use fabricscope::train::{StepOp, TrainReport, TrainScenario};
use serde_json::Value;

fn lessons() -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/lessons.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A lesson step's job, run, and its texts (English and Chinese, all fields joined).
fn step(lessons: &[Value], id: &str, k: usize) -> (TrainScenario, TrainReport, [String; 2]) {
    let lesson = lessons.iter().find(|l| l["id"] == id).unwrap_or_else(|| panic!("lesson {id}"));
    let step = &lesson["steps"][k];
    let job = TrainScenario::from_json(&step["train"].to_string()).unwrap();
    let report = job.validate().unwrap_or_else(|e| panic!("{id} step {k}: {e:?}")).run();
    let text = |lang: &str| {
        ["text", "try", "question", "answer"]
            .iter()
            .filter_map(|f| step[f][lang].as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    (job, report, [text("en"), text("zh")])
}

fn says(texts: &[String; 2], claims: &[String], what: &str) {
    for claim in claims {
        for text in texts {
            assert!(
                text.contains(claim.as_str()),
                "{what}: the model gives '{claim}', the lesson says: {text}"
            );
        }
    }
}

fn secs(ns: f64) -> String {
    format!("{:.2} s", ns / 1e9)
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn micros(ns: u64) -> String {
    format!("{:.0} µs", ns as f64 / 1e3)
}

fn op_time(r: &TrainReport, op: StepOp) -> u64 {
    r.ops.iter().find(|o| o.op == op).unwrap_or_else(|| panic!("{op:?}")).time_ns
}

fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn the_nvlink_domain_lesson_says_what_the_model_gives() {
    let l = lessons();
    let (_, boxes, t0) = step(&l, "nvlink-domain", 0);
    says(&t0, &[secs(boxes.step_ns), pct(boxes.breakdown.tp_ns / boxes.step_ns)], "9 HGX B200");
    let (_, rack, t1) = step(&l, "nvlink-domain", 1);
    let faster = format!("{:.0}%", 100.0 * (1.0 - rack.step_ns / boxes.step_ns));
    let (ag_boxes, ag_rack) =
        (op_time(&boxes, StepOp::SequenceAllGather), op_time(&rack, StepOp::SequenceAllGather));
    says(
        &t1,
        &[
            secs(rack.step_ns),
            pct(rack.breakdown.tp_ns / rack.step_ns),
            faster,
            micros(ag_boxes),
            micros(ag_rack),
        ],
        "NVL72",
    );
    let (job, rack4, t2) = step(&l, "nvlink-domain", 2);
    let mut as_boxes = job.clone();
    as_boxes.cluster.preset = "hgx-b200".into();
    as_boxes.cluster.nodes = 9;
    let boxes4 = as_boxes.validate().unwrap().run();
    let less = format!("{:.0}%", 100.0 * (1.0 - rack4.step_ns / boxes4.step_ns));
    says(
        &t2,
        &[
            micros(op_time(&rack4, StepOp::SequenceAllGather)),
            micros(op_time(&boxes4, StepOp::SequenceAllGather)),
            secs(rack4.step_ns),
            secs(boxes4.step_ns),
            less,
        ],
        "micro-batch 4",
    );
}

#[test]
fn the_expert_parallelism_lesson_says_what_the_model_gives() {
    let l = lessons();
    let ep_share = |r: &TrainReport| pct(r.breakdown.ep_ns / r.step_ns);
    let (_, rack, t0) = step(&l, "ep-wants-nvlink", 0);
    let inside = op_time(&rack, StepOp::ExpertDispatch);
    says(&t0, &[micros(inside), ep_share(&rack), secs(rack.step_ns)], "EP in the rack");
    let (_, spread, t1) = step(&l, "ep-wants-nvlink", 1);
    let across = op_time(&spread, StepOp::ExpertDispatch);
    let times = format!("{:.0}", across as f64 / inside as f64);
    says(
        &t1,
        &[format!("{:.2} ms", across as f64 / 1e6), ep_share(&spread), secs(spread.step_ns), times],
        "EP across boxes",
    );
    let (_, boxed, t2) = step(&l, "ep-wants-nvlink", 2);
    says(
        &t2,
        &[micros(op_time(&boxed, StepOp::ExpertDispatch)), ep_share(&boxed), secs(boxed.step_ns)],
        "EP in a box",
    );
}

#[test]
fn the_long_context_lesson_says_what_the_model_gives() {
    let l = lessons();
    let gb0 = |x: f64| format!("{:.0} GB", x / 1e9);
    let (_, none, t0) = step(&l, "long-context-cp", 0);
    assert!(!none.memory.fits);
    says(&t0, &[gb0(none.memory.total), gb0(none.memory.activations)], "no CP");
    let (_, four, t1) = step(&l, "long-context-cp", 1);
    assert_eq!(four.breakdown.cp_ns, 0.0);
    says(
        &t1,
        &[
            gb0(four.memory.total),
            micros(op_time(&four, StepOp::ContextKvPass)),
            thousands(four.tokens_per_s),
            thousands(none.tokens_per_s),
        ],
        "CP 4",
    );
    let (_, eight, t2) = step(&l, "long-context-cp", 2);
    assert!(eight.memory.fits);
    says(&t2, &[format!("{:.1} GB", eight.memory.total / 1e9), thousands(eight.tokens_per_s)], "CP 8");
}
