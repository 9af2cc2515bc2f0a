//! Where each view opens: its first state from the URL (fragment and query), this browser's
//! storage and the lesson step open, read once when the view mounts. Also the language and
//! theme the page starts in, and whether it is embedded (`?embed`).

use crate::i18n::{Lang, Text};
use crate::lessons::{self, LessonAt, Step};
use crate::services::{location, storage, url};
use crate::state::collectives::{page_demo, AppState, Focus};
use crate::state::page_job::simulate_in_page;
use crate::state::training::{within_page, TrainState, MAX_PAGE_GPUS};
use crate::state::Mode;
use fabricscope::train::TrainScenario;
use fabricscope::units::SimTime;
use fabricscope::Scenario;
use std::rc::Rc;

/// The language chosen before, or the browser's.
pub fn initial_lang() -> Lang {
    let linked = url::view_options(&location::hash()).0;
    linked.or_else(storage::stored_lang).unwrap_or_else(|| {
        let browser = gloo::utils::window().navigator().language().unwrap_or_default();
        if browser.starts_with("zh") {
            Lang::Zh
        } else {
            Lang::En
        }
    })
}

/// The theme chosen before, or the system's.
pub fn initial_dark() -> bool {
    if let (_, Some(dark)) = url::view_options(&location::hash()) {
        return dark;
    }
    storage::stored_dark().unwrap_or_else(|| {
        gloo::utils::window()
            .match_media("(prefers-color-scheme: dark)")
            .ok()
            .flatten()
            .map(|query| query.matches())
            .unwrap_or(false)
    })
}

/// Whether a part of the URL's query (`a`, `b=c` in `?a&b=c`) passes `test`.
fn query_has(test: impl Fn(&str) -> bool) -> bool {
    location::search().trim_start_matches('?').split('&').any(test)
}

/// `?embed` in the URL: the figure and its numbers alone, for an `<iframe>`.
pub fn embed_mode() -> bool {
    query_has(|part| part == "embed" || part.starts_with("embed="))
}

/// `?embed&autoplay` plays the figure when it opens; `?embed&loop` plays it again and again.
/// (Only for embedded figures: the page itself waits for its reader.)
pub fn embed_playback() -> (bool, bool) {
    (query_has(|part| part == "autoplay"), query_has(|part| part == "loop"))
}

/// The lesson step the URL's query opens (`?lesson=<id>&step=<k>`), if any.
pub fn initial_lesson() -> Option<LessonAt> {
    lessons::from_query(&location::search()).map(|(lesson, step)| LessonAt { lesson, step })
}

/// The view the page opens on: the lesson step's, else the one the URL's fragment is for.
pub fn initial_mode(lesson: Option<LessonAt>) -> Mode {
    match lesson {
        Some(at) if at.step().train.is_some() => Mode::Training,
        Some(_) => Mode::Collectives,
        None if url::is_train(&location::hash()) => Mode::Training,
        None => Mode::Collectives,
    }
}

/// A lesson step's opening state: its scenario, at its step, with its links in focus.
/// A link to a lesson step whose scenario the reader had changed (the URL's fragment, written
/// as they changed it) opens on their scenario and time, in the step's focus.
pub fn lesson_state(step: &Step, scenario: &Scenario) -> Result<AppState, String> {
    let (lang, dark) = (initial_lang(), initial_dark());
    let linked = url::decode(&location::hash())
        .ok()
        .flatten()
        .and_then(|(linked, t)| AppState::new(linked, lang, dark).ok().map(|state| (state, t)));
    let (mut state, time) = match linked {
        Some((state, t)) => (state, t),
        None => (AppState::new(scenario.clone(), lang, dark)?, None),
    };
    state.embed = embed_mode();
    state.focus = Focus { kinds: step.focus_kinds(), ranks: step.focus_ranks() };
    match (time, step.step) {
        (Some(t), _) => state.playhead = t.min(state.end()),
        (None, Some(k)) => {
            let start = state.sim.step_starts.get(k as usize).copied().unwrap_or_default();
            state.playhead = SimTime(start.0 + 1).min(state.end());
        }
        (None, None) => {}
    }
    Ok(state)
}

/// The collectives view's opening state: the link's scenario (and time, and B), else the last
/// one run in this browser, else the default; with what was wrong with the link, if anything.
pub fn initial_state() -> Result<AppState, String> {
    let lang = initial_lang();
    let dark = initial_dark();
    // A shared link carries the scenario (and the time) in the URL's fragment. Without one,
    // or with a bad one (which is reported), the page shows the last scenario this browser
    // ran, or the default one. Embedded figures never read the browser's own scenario.
    let embed = embed_mode();
    let hash = location::hash();
    let stored = if embed { None } else { storage::stored_scenario().filter(|s| *s != page_demo()) };
    let restored = stored.is_some();
    let fallback = || stored.clone().unwrap_or_else(page_demo);
    let (scenario, playhead, problem) = match url::decode(&hash) {
        Ok(Some((scenario, t))) => (scenario, t, None),
        Ok(None) => (fallback(), None, None),
        Err(message) => (fallback(), None, Some(message)),
    };
    // A valid scenario the page cannot run (too big, or no steady state) is reported like a
    // bad one, and the fallback shown.
    let (mut state, playhead, problem) = match AppState::new(scenario, lang, dark) {
        Ok(state) => (state, playhead, problem),
        Err(message) if problem.is_none() => (AppState::new(fallback(), lang, dark)?, None, Some(message)),
        Err(message) => return Err(message),
    };
    state.embed = embed;
    if embed {
        let (autoplay, looping) = embed_playback();
        state.playing = autoplay || looping;
        state.looping = looping;
    }
    // An A/B link: B beside A (A is edited first).
    if let Some(b) = url::decode_b(&hash) {
        if let Some(sim) = b.validate().ok().and_then(|valid| simulate_in_page(&valid).ok()) {
            state.other = Some((b, Rc::new(sim)));
        }
    }
    if let Some(t) = playhead {
        state.playhead = t.min(state.end());
    }
    // In English, as the core's problems are: the banner gives it in the page's language when
    // drawn (`i18n::problems::problem_text`, whose `WRAPPERS` hold these sentences), so a
    // change of language reads it anew.
    match (problem, restored) {
        (Some(message), _) if embed => {
            state.link_problem = Some(format!("This figure's scenario could not be used ({message}). Ask the page's author to copy the embed code again from Fabricscope."))
        }
        (Some(message), false) => {
            state.link_problem =
                Some(format!("The link's scenario could not be used ({message}); showing the default scenario."))
        }
        (Some(message), true) => {
            state.link_problem = Some(format!("The link's scenario could not be used ({message}); showing the last scenario you ran in this browser."))
        }
        (None, true) if playhead.is_none() && hash.trim_start_matches('#').is_empty() => {
            state.notice = Some(Text::RestoredScenario);
        }
        _ => {}
    }
    Ok(state)
}

/// The last job run in this browser, or the default.
pub fn initial_job_stored() -> TrainScenario {
    storage::stored_job().unwrap_or_else(TrainScenario::default_demo)
}

/// The job the view opens on: the link's, else the last one run here, else the default.
pub fn initial_job() -> (TrainScenario, Option<String>) {
    let hash = location::hash();
    match url::decode_train(&hash) {
        Ok(Some(job)) if within_page(&job) => (job, None),
        Ok(Some(_)) => (initial_job_stored(), Some(format!("the page simulates up to {MAX_PAGE_GPUS} GPUs"))),
        Ok(None) => (initial_job_stored(), None),
        Err(message) => (initial_job_stored(), Some(message)),
    }
}

/// The training view's opening state: a lesson step's job, else `initial_job()`'s, with what
/// was wrong with the link, if anything.
pub fn initial_train_state(lesson_job: Option<TrainScenario>, lang: Lang, dark: bool) -> TrainState {
    // A lesson step's job, or the reader's change of it that the URL carries.
    let (job, problem) = match lesson_job {
        Some(job) => match url::decode_train(&location::hash()) {
            Ok(Some(linked)) if within_page(&linked) => (linked, None),
            _ => (job, None),
        },
        None => initial_job(),
    };
    let mut state = TrainState::new(job, lang, dark).unwrap_or_else(|_| {
        TrainState::new(TrainScenario::default_demo(), lang, dark).expect("the default job is valid")
    });
    if let Some(problem) = problem {
        let stored = storage::stored_job().is_some();
        // In English, given in the page's language when drawn, as the collectives' is.
        state.link_problem = Some(match stored {
            true => format!("The link's training job could not be used ({problem}); showing the last job you ran in this browser."),
            false => format!("The link's training job could not be used ({problem}); showing the default job."),
        });
    }
    state
}
