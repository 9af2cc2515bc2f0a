//! `parse_json` names the field an error is in from where serde_json stopped
//! (`scenario::json_path`); `serde_path_to_error` named it by tracking every step of the parse.
//! Here the two are held to the same field and message on scenarios and training jobs: the
//! fixtures and fuzz corpus, each damaged at the value level (a field of the wrong type or out
//! of range, an unknown or repeated field, a missing one) and at the text level (truncated, a
//! stray character, a span deleted or repeated).

use fabricscope::scenario::{parse_json, ScenarioError};
use fabricscope::train::TrainScenario;
use fabricscope::Scenario;
use serde_json::{json, Value};

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;
#[path = "support/json_text.rs"]
mod json_text;
use json_text::mangle;

/// What `parse_json` gave with `serde_path_to_error`: the path of the field ("" for the whole
/// document) and serde_json's message.
fn tracked<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ScenarioError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let path = error.path().to_string();
        ScenarioError {
            field: if path == "." { String::new() } else { path },
            problem: error.into_inner().to_string(),
        }
    })?;
    deserializer.end().map_err(|error| ScenarioError { field: String::new(), problem: error.to_string() })?;
    Ok(value)
}

/// The fuzzer's seeds that are JSON, and two documents of their own.
fn seeds() -> Vec<Value> {
    let mut docs = vec![
        serde_json::to_value(Scenario::default_demo()).unwrap(),
        json!({"preset": "dgx-h100", "nodes": 2, "collective": "all_reduce", "size_bytes": 8,
               "links": {"nic": {"bandwidth_gbyte_per_s": 25.0, "latency_ns": 900}},
               "faults": [{"kind": "nic", "node": 1, "index": 0, "rate": 0.5}]}),
    ];
    docs.extend(json_text::seeds().iter().filter_map(|text| serde_json::from_str::<Value>(text).ok()));
    docs
}

/// `doc` damaged at one place, reached by walking down at random.
fn damage_somewhere(rng: &mut Rng, at: &mut Value) {
    if rng.chance(70) {
        match at {
            Value::Object(map) if !map.is_empty() => {
                let key = map.keys().nth(rng.below(map.len())).unwrap().clone();
                return damage_somewhere(rng, map.get_mut(&key).unwrap());
            }
            Value::Array(items) if !items.is_empty() => {
                let i = rng.below(items.len());
                return damage_somewhere(rng, &mut items[i]);
            }
            _ => {}
        }
    }
    match (rng.below(4), &mut *at) {
        (0, Value::Object(map)) => {
            map.insert(format!("unknown_{}", rng.below(3)), json!(1));
        }
        (1, Value::Object(map)) if !map.is_empty() => {
            let key = map.keys().nth(rng.below(map.len())).unwrap().clone();
            map.remove(&key);
        }
        _ => *at = serde_json::from_str(ODD[rng.below(ODD.len())]).unwrap_or(Value::Null),
    }
}

const ODD: &[&str] =
    &["-1", "1.5", "\"two\"", "null", "true", "[]", "{}", "1e400", "18446744073709551616", "\"\"", "[1,2]"];

fn damaged(rng: &mut Rng, seed: &Value) -> String {
    let mut doc = seed.clone();
    for _ in 0..1 + rng.below(2) {
        damage_somewhere(rng, &mut doc);
    }
    let mut text = if rng.chance(30) {
        serde_json::to_string_pretty(&doc).unwrap()
    } else {
        serde_json::to_string(&doc).unwrap()
    };
    // A repeated field: serde_json's maps hold a key once, so it is written into the text.
    if rng.chance(10) {
        if let Some(at) = text.find("\"nodes\"") {
            text.insert_str(at, "\"nodes\": 3, ");
        }
    }
    // Keys written with escapes: a known one, and an unknown one named as it reads.
    if rng.chance(5) {
        text = text.replacen("\"preset\"", "\"\\u0070reset\"", 1);
    }
    if rng.chance(5) {
        text = text.replacen('{', "{\"\\u0073p\\\"eed\": 1, ", 1);
    }
    if rng.chance(40) {
        text = mangle(rng, &text);
    }
    text
}

fn train_seeds() -> Vec<Value> {
    let base = json!({
        "cluster": {"preset": "dgx-h100", "nodes": 4},
        "model": {"preset": "gpt3-175b"},
        "tp": 8, "pp": 4, "dp": 1, "micro_batch": 1, "global_batch": 8
    });
    vec![base]
}

#[test]
fn the_field_named_is_the_one_serde_path_to_error_named() {
    let cases: u64 =
        std::env::var("FABRICSCOPE_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let mut rng = Rng(0x0A7B_5EED, 0);
    let (scenarios, jobs) = (seeds(), train_seeds());
    let (mut errors, mut with_field) = (0u64, 0u64);
    let (mut syntax, mut syntax_same) = (0u64, 0u64);
    for case in 0..cases {
        let train = rng.chance(25);
        let seed = if train { rng.pick(&jobs).clone() } else { rng.pick(&scenarios).clone() };
        let text = damaged(&mut rng, &seed);
        let (ours, theirs) = if train {
            (parse_json::<TrainScenario>(&text).err(), tracked::<TrainScenario>(&text).err())
        } else {
            (parse_json::<Scenario>(&text).err(), tracked::<Scenario>(&text).err())
        };
        // A value of the wrong type, a field unknown, missing or repeated: the same field and
        // message. A syntax error: the same message (its line and column); its field is the
        // scanner's reading of the text where serde_json stopped, which may differ.
        if serde_json::from_str::<Value>(&text).is_ok() {
            assert_eq!(ours, theirs, "case {case}:\n{text}");
        } else {
            let problem = |e: &Option<ScenarioError>| e.as_ref().map(|e| e.problem.clone());
            assert_eq!(problem(&ours), problem(&theirs), "case {case}:\n{text}");
            syntax += 1;
            syntax_same += (ours == theirs) as u64;
        }
        errors += ours.is_some() as u64;
        with_field += ours.is_some_and(|e| !e.field.is_empty()) as u64;
    }
    println!(
        "json paths: {cases} documents, {errors} errors, {with_field} naming a field; {syntax} not JSON, \
         {syntax_same} of them named as serde_path_to_error named them"
    );
    assert!(errors * 2 > cases && with_field * 4 > errors, "the damage reaches fields");
}
