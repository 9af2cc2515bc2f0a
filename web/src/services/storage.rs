//! What the page keeps in this browser's localStorage, and every key it uses: the language,
//! the theme, and the last scenario and training job that validated (so that nothing edited
//! is lost when the URL is: a bare link, a damaged one).

use crate::i18n::Lang;
use crate::state::training::within_page;
use fabricscope::train::TrainScenario;
use fabricscope::Scenario;
use gloo::storage::{LocalStorage, Storage};

const LANG_KEY: &str = "fabricscope.lang";
const THEME_KEY: &str = "fabricscope.theme";
/// The last scenario that validated in this browser (not written by embedded figures).
const SCENARIO_KEY: &str = "fabricscope.scenario";
/// The last training job run in this browser.
const JOB_KEY: &str = "fabricscope.train";

/// The language chosen before, if any.
pub fn stored_lang() -> Option<Lang> {
    LocalStorage::get::<String>(LANG_KEY).ok().and_then(|code| Lang::from_code(&code))
}

/// The theme chosen before: dark (`Some(true)`), light, or none yet.
pub fn stored_dark() -> Option<bool> {
    match LocalStorage::get::<String>(THEME_KEY).ok().as_deref() {
        Some("dark") => Some(true),
        Some("light") => Some(false),
        _ => None,
    }
}

/// Remembers the language and the theme.
pub fn store_view(lang: Lang, dark: bool) {
    let _ = LocalStorage::set(LANG_KEY, lang.code());
    let _ = LocalStorage::set(THEME_KEY, if dark { "dark" } else { "light" });
}

/// The stored last scenario, if there is one and it still validates.
pub fn stored_scenario() -> Option<Scenario> {
    let text = LocalStorage::get::<String>(SCENARIO_KEY).ok()?;
    let scenario = Scenario::from_json(&text).ok()?;
    scenario.validate().ok().map(|_| scenario)
}

/// Remembers a scenario that validated.
pub fn store_scenario(scenario: &Scenario) {
    if let Ok(json) = serde_json::to_string(scenario) {
        let _ = LocalStorage::set(SCENARIO_KEY, json);
    }
}

/// The last job run in this browser, if it still validates and fits the page.
pub fn stored_job() -> Option<TrainScenario> {
    LocalStorage::get::<String>(JOB_KEY)
        .ok()
        .and_then(|text| TrainScenario::from_json(&text).ok())
        .filter(|job| job.validate().is_ok() && within_page(job))
}

/// Remembers a training job.
pub fn store_job(job: &TrainScenario) {
    if let Ok(json) = serde_json::to_string(job) {
        let _ = LocalStorage::set(JOB_KEY, json);
    }
}
