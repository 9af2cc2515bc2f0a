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

pub mod figures;

pub use figures::Figures;

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

    /// The text with its `{key}`s replaced by the step's figures (`figures::fill`).
    pub fn filled(&self, figures: Option<&Figures>) -> Text {
        Text {
            en: figures::fill(&self.en, figures, Lang::En),
            zh: figures::fill(&self.zh, figures, Lang::Zh),
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
    LESSONS.get_or_init(|| serde_json::from_str(include_str!("../../lessons.json")).unwrap_or_default())
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
mod tests;
