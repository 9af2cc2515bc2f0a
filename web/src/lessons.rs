//! Guided lessons: data (`web/lessons.json`), not pages. Each step is a scenario (or a training
//! job) with a short narrative in both languages, what to look at (link kinds to keep bright),
//! one thing to change, and a question with its answer. The page opens a lesson from the URL
//! (`?lesson=<id>&step=<k>`), so a lesson step is a link like any other.

use crate::i18n::Lang;
use fabricscope::topology::LinkKind;
use fabricscope::train::TrainScenario;
use fabricscope::Scenario;
use serde::Deserialize;
use std::sync::OnceLock;

/// A string in both languages.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Text {
    pub en: String,
    pub zh: String,
}

impl Text {
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Zh => &self.zh,
        }
    }
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// A collective on the cluster...
    #[serde(default)]
    pub scenario: Option<Scenario>,
    /// ... or a training job.
    #[serde(default)]
    pub train: Option<TrainScenario>,
    /// The collective's step to open at (0-based).
    #[serde(default)]
    pub step: Option<u32>,
    /// What to point at: link kinds to keep bright (the others are dimmed), and `gpu:<rank>`
    /// for a GPU to ring.
    #[serde(default)]
    pub focus: Vec<String>,
    pub text: Text,
    #[serde(default, rename = "try")]
    pub try_this: Option<Text>,
    #[serde(default)]
    pub question: Option<Text>,
    #[serde(default)]
    pub answer: Option<Text>,
    /// A question the page checks: pick one, or type a number.
    #[serde(default)]
    pub check: Option<Check>,
}

/// A check question: one of `choices` is `correct`, or the answer is `number` within
/// `tolerance` (relative). `from` names the figure of the step's own model run the number or
/// the right choice is (a native test computes it and fails when the lesson disagrees).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Check {
    pub ask: Text,
    #[serde(default)]
    pub choices: Vec<Text>,
    #[serde(default)]
    pub correct: Option<usize>,
    #[serde(default)]
    pub number: Option<f64>,
    #[serde(default)]
    pub tolerance: Option<f64>,
    #[serde(default)]
    pub unit: Option<Text>,
    #[serde(default)]
    pub from: Option<String>,
}

impl Check {
    /// Whether `typed` answers a number question (`,` or `.` as the decimal point).
    pub fn accepts_number(&self, typed: &str) -> Option<bool> {
        let want = self.number?;
        let got: f64 = typed.trim().replace(',', ".").parse().ok()?;
        Some((got - want).abs() <= self.tolerance.unwrap_or(0.0) * want.abs() + 1e-9)
    }
}

impl Step {
    /// The focused link kinds.
    pub fn focus_kinds(&self) -> Vec<LinkKind> {
        self.focus.iter().filter_map(|name| link_kind(name)).collect()
    }

    /// The ranks whose GPUs are ringed (`gpu:<rank>`).
    pub fn focus_ranks(&self) -> Vec<u32> {
        self.focus.iter().filter_map(|name| name.strip_prefix("gpu:")?.parse().ok()).collect()
    }
}

fn link_kind(name: &str) -> Option<LinkKind> {
    match name {
        "nvlink" => Some(LinkKind::NvLink),
        "pcie" => Some(LinkKind::Pcie),
        "socket" => Some(LinkKind::Socket),
        "network" => Some(LinkKind::Network),
        _ => None,
    }
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    pub id: String,
    pub title: Text,
    pub steps: Vec<Step>,
}

/// The lesson step open, if any: `?lesson=<id>&step=<k>` in the URL.
#[derive(Clone, Copy, PartialEq)]
pub struct LessonAt {
    pub lesson: &'static Lesson,
    pub step: usize,
}

impl LessonAt {
    pub fn step(&self) -> &'static Step {
        &self.lesson.steps[self.step]
    }
}

/// Every lesson, parsed once (the file is checked by the tests below, so it parses).
pub fn all() -> &'static [Lesson] {
    static LESSONS: OnceLock<Vec<Lesson>> = OnceLock::new();
    LESSONS.get_or_init(|| serde_json::from_str(include_str!("../lessons.json")).unwrap_or_default())
}

pub fn by_id(id: &str) -> Option<&'static Lesson> {
    all().iter().find(|lesson| lesson.id == id)
}

/// The lesson id and step a URL's query asks for (the last of each; step 0 when there is none
/// or it is not a number), whether or not there is such a lesson.
fn requested(query: &str) -> (Option<&str>, usize) {
    let mut id = None;
    let mut step = 0usize;
    for part in query.trim_start_matches('?').split('&') {
        match part.split_once('=') {
            Some(("lesson", value)) => id = Some(value),
            Some(("step", value)) => step = value.parse().unwrap_or(0),
            _ => {}
        }
    }
    (id, step)
}

/// `?lesson=<id>&step=<k>` in a URL's query: the lesson and step (clamped), if any.
pub fn from_query(query: &str) -> Option<(&'static Lesson, usize)> {
    let (id, step) = requested(query);
    let lesson = by_id(id?)?;
    Some((lesson, step.min(lesson.steps.len().saturating_sub(1))))
}

/// The lesson a URL's query asks for when there is no lesson of that id (`?lesson=nope`).
pub fn unknown_in_query(query: &str) -> Option<String> {
    let id = requested(query).0?;
    (by_id(id).is_none()).then(|| id.to_string())
}

/// The lesson step a URL's query opens, as a query of its own (empty when none): what a
/// copied link carries.
pub fn query_in(query: &str) -> String {
    from_query(query).map(|(lesson, step)| self::query(lesson, step)).unwrap_or_default()
}

/// The query for a lesson step, keeping any other parameters (e.g. `embed`) out.
pub fn query(lesson: &Lesson, step: usize) -> String {
    format!("?lesson={}&step={step}", lesson.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every lesson parses, every step has something to show that validates (and fits the
    /// page), and every string exists in both languages.
    #[test]
    fn every_lesson_is_complete_and_valid() {
        let lessons: Vec<Lesson> =
            serde_json::from_str(include_str!("../lessons.json")).expect("lessons.json parses");
        assert!(lessons.len() >= 10, "{} lessons", lessons.len());
        let mut ids = std::collections::BTreeSet::new();
        for lesson in &lessons {
            assert!(ids.insert(lesson.id.clone()), "duplicate id {}", lesson.id);
            assert!(!lesson.steps.is_empty(), "{}", lesson.id);
            for (k, step) in lesson.steps.iter().enumerate() {
                let at = format!("{} step {k}", lesson.id);
                let texts = [
                    Some(&lesson.title),
                    Some(&step.text),
                    step.try_this.as_ref(),
                    step.question.as_ref(),
                    step.answer.as_ref(),
                ];
                for text in texts.into_iter().flatten() {
                    assert!(
                        !text.en.trim().is_empty() && !text.zh.trim().is_empty(),
                        "{at}: a text misses a language"
                    );
                }
                assert_eq!(
                    step.question.is_some(),
                    step.answer.is_some(),
                    "{at}: a question needs its answer"
                );
                assert_eq!(
                    step.focus.len(),
                    step.focus_kinds().len() + step.focus_ranks().len(),
                    "{at}: unknown focus in {:?}",
                    step.focus
                );
                if let Some(scenario) = &step.scenario {
                    let n = scenario.validate().map(|v| v.n_ranks()).unwrap_or(0);
                    assert!(step.focus_ranks().iter().all(|&r| r < n), "{at}: a ringed GPU beyond rank {n}");
                }
                match (&step.scenario, &step.train) {
                    (Some(scenario), None) => {
                        let valid = scenario.validate().unwrap_or_else(|e| panic!("{at}: {e:?}"));
                        if let Some(s) = step.step {
                            let sim = fabricscope::simulate(&valid).unwrap();
                            assert!(s < sim.n_steps(), "{at}: step {s} of {}", sim.n_steps());
                        }
                        assert!(scenario.nodes <= 8, "{at}: the collectives view offers up to 8 nodes");
                    }
                    (None, Some(job)) => {
                        job.validate().unwrap_or_else(|e| panic!("{at}: {e:?}"));
                        assert!(job.cluster.nodes <= crate::state::training::MAX_PAGE_NODES, "{at}");
                    }
                    _ => panic!("{at}: a step shows a scenario or a training job"),
                }
            }
        }
        assert_eq!(all().len(), lessons.len());
    }

    #[test]
    fn the_query_names_the_lesson_and_step() {
        let (lesson, step) = from_query("?lesson=ring-step-by-step&step=1").unwrap();
        assert_eq!((lesson.id.as_str(), step), ("ring-step-by-step", 1));
        assert_eq!(from_query("?lesson=ring-step-by-step&step=99").unwrap().1, lesson.steps.len() - 1);
        assert!(from_query("?lesson=nope").is_none());
        assert!(from_query("?embed").is_none());
        assert_eq!(query(lesson, 1), "?lesson=ring-step-by-step&step=1");
    }
}

/// What each lesson makes the reader find, computed from its own scenarios: the figures the
/// closing notes quote, and the claims the lessons make, checked.
#[cfg(test)]
mod figures {
    use super::*;

    fn collective(step: &Step) -> fabricscope::Simulation {
        fabricscope::simulate(&step.scenario.as_ref().unwrap().validate().unwrap()).unwrap()
    }

    fn train(step: &Step) -> fabricscope::train::TrainReport {
        step.train.as_ref().unwrap().validate().unwrap().run()
    }

    #[test]
    fn every_lesson_has_its_number() {
        let lessons = all();
        let find = |id: &str| lessons.iter().find(|l| l.id == id).unwrap_or_else(|| panic!("{id}"));
        let mut out = Vec::new();
        for lesson in lessons.iter() {
            let mut line = format!("{}:", lesson.id);
            for step in &lesson.steps {
                if step.scenario.is_some() {
                    let sim = collective(step);
                    let bottleneck = sim.summary.bottleneck.map(|id| {
                        let link = sim.topology.link(id);
                        format!(
                            "{} -> {}",
                            sim.topology.vertex_name(link.src),
                            sim.topology.vertex_name(link.dst)
                        )
                    });
                    line += &format!(
                        " [{} {} {}/{}: {:.3} us, busbw {:.1} GB/s, bottleneck {:?}]",
                        sim.summary.n_ranks,
                        fabricscope::units::format_bytes(sim.summary.size_bytes),
                        sim.schedule.algorithm.nccl_name(),
                        sim.schedule.protocol.nccl_name(),
                        sim.summary.time.as_us(),
                        sim.summary.busbw_gbyte_per_s,
                        bottleneck
                    );
                } else {
                    let r = train(step);
                    line += &format!(
                        " [step {:.3} s, exposed comm {:.1}%, MFU {:.1}%]",
                        r.step_ns / 1e9,
                        100.0 * r.comm_exposed_share,
                        100.0 * r.mfu
                    );
                }
            }
            out.push(line);
        }
        eprintln!("{}", out.join("\n"));
        // The claims the lessons make, in the model.
        let pcie = collective(&find("nvlink-vs-pcie").steps[0]).summary.busbw_gbyte_per_s;
        let nvlink = collective(&find("nvlink-vs-pcie").steps[1]).summary.busbw_gbyte_per_s;
        assert!(nvlink > 5.0 * pcie, "NVLink {nvlink} vs PCIe {pcie}");
        let nvls = collective(&find("nvswitch").steps[1]).summary.busbw_gbyte_per_s;
        assert!(nvls > 450.0, "NVLS busbw {nvls} above the line rate");
        let tp = find("tp-inside-node");
        assert!(train(&tp.steps[1]).step_ns > train(&tp.steps[0]).step_ns, "TP 16 across nodes is slower");
        // "4 AllGathers and 4 ReduceScatters per layer per micro-batch ... about 15% of the step".
        let report = train(&tp.steps[0]);
        let job = tp.steps[0].train.as_ref().unwrap();
        let per_layer_and_micro_batch =
            (job.global_batch / job.micro_batch / job.dp) as f64 * (96 / job.pp) as f64;
        for name in ["AllGather", "ReduceScatter"] {
            let op = report.ops.iter().find(|op| op.op.name().starts_with(name)).unwrap();
            assert_eq!(op.calls / per_layer_and_micro_batch, 4.0, "{name}");
        }
        let share = report.breakdown.tp_ns / report.step_ns;
        assert!((0.13..0.17).contains(&share), "TP {share}");
        // The textbook's model is the α-β formula to the nanosecond's rounding; NCCL's adds its
        // launch (8.4 µs) and 3.4 µs of Simple protocol latency on each of the 14 steps.
        let alpha_beta = find("alpha-beta");
        let links = collective(&alpha_beta.steps[0]);
        let predicted = links.alpha_beta().unwrap().predicted_ns;
        assert!((links.summary.time.as_ns() as f64 - predicted).abs() <= 14.0, "{predicted}");
        let nccl = collective(&alpha_beta.steps[1]);
        assert_eq!(nccl.summary.time.as_ns() - links.summary.time.as_ns(), 8_400 + 14 * 3_400);
        // One NIC of 16 at half rate halves the ring, and costs the tree much less.
        let slow = find("slow-link");
        let time = |k: usize| collective(&slow.steps[k]).summary.time.as_ns() as f64;
        let ring_loss = time(1) / time(0);
        assert!((ring_loss - 2.0).abs() < 0.05, "ring {ring_loss}");
        assert!(
            time(2) < 0.7 * time(1),
            "the tree, {} ns, loses less than the ring, {} ns",
            time(2),
            time(1)
        );
        // ring-vs-tree: the ring it weighs the tree against has 2(n-1) = 62 steps, and in each
        // 4 of the 32 hops of a channel's ring cross nodes.
        let mut ring = find("ring-vs-tree").steps[0].scenario.clone().unwrap();
        ring.algorithm = Some(fabricscope::collective::Algorithm::Ring);
        let sim = fabricscope::simulate(&ring.validate().unwrap()).unwrap();
        assert_eq!(sim.n_steps(), 62);
        let per_node = sim.topology.gpus_per_node();
        for step in [0, 30, 61] {
            let hops: std::collections::BTreeSet<(u32, u32)> = sim
                .schedule
                .transfers
                .iter()
                .filter(|t| t.step == step && t.channel == 0)
                .map(|t| (t.src, t.dst))
                .collect();
            let crossing = hops.iter().filter(|(src, dst)| src / per_node != dst / per_node).count();
            assert_eq!((hops.len(), crossing), (32, 4), "step {step}");
        }
        assert_eq!(lessons.len(), 20);
    }

    /// Every check question the page marks is right by the model: a number within its
    /// tolerance of the figure it names, a choice that is the algorithm the tuner picked.
    #[test]
    fn every_check_agrees_with_the_model() {
        let mut checked = 0;
        for lesson in all() {
            for (k, step) in lesson.steps.iter().enumerate() {
                let Some(check) = &step.check else { continue };
                let at = format!("{} step {k}", lesson.id);
                match (&check.choices[..], check.correct, check.number) {
                    ([], None, Some(_)) => {}
                    (choices, Some(c), None) if c < choices.len() && choices.len() >= 2 => {}
                    _ => panic!("{at}: a check is a number, or choices with the right one"),
                }
                for text in std::iter::once(&check.ask).chain(&check.choices).chain(&check.unit) {
                    assert!(
                        !text.en.trim().is_empty() && !text.zh.trim().is_empty(),
                        "{at}: a language missing"
                    );
                }
                let Some(from) = check.from.as_deref() else { continue };
                let first = &lesson.steps[0];
                let model = match from {
                    "algorithm" => {
                        let picked = collective(step).schedule.algorithm.nccl_name();
                        let want = &check.choices[check.correct.unwrap()].en;
                        assert_eq!(want, picked, "{at}");
                        checked += 1;
                        continue;
                    }
                    "steps" => collective(step).n_steps() as f64,
                    "busbw_vs_step_0" => {
                        collective(step).summary.busbw_gbyte_per_s
                            / collective(first).summary.busbw_gbyte_per_s
                    }
                    "busbw_pct_of_step_0" => {
                        100.0 * collective(step).summary.busbw_gbyte_per_s
                            / collective(first).summary.busbw_gbyte_per_s
                    }
                    "time_us_minus_step_0" => {
                        collective(step).summary.time.as_us() - collective(first).summary.time.as_us()
                    }
                    "tp_pct" => {
                        let r = train(step);
                        100.0 * r.breakdown.tp_ns / r.step_ns
                    }
                    "bubble_pct" => {
                        let r = train(step);
                        100.0 * r.breakdown.bubble_ns / r.step_ns
                    }
                    other => panic!("{at}: unknown figure {other}"),
                };
                let number = check.number.unwrap();
                let slack = check.tolerance.unwrap_or(0.0) * number.abs() + 1e-9;
                assert!((model - number).abs() <= slack, "{at}: the lesson says {number}, the model {model}");
                checked += 1;
            }
        }
        assert!(checked >= 7, "{checked} checks against the model");
    }
}
