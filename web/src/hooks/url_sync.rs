//! The URL and this browser's storage kept in step with the views' state, and a link pasted
//! into the tab applied like a fresh load.

use crate::services::{location, storage, url};
use crate::state::collectives::{Action, AppState};
use fabricscope::train::TrainScenario;
use fabricscope::Scenario;
use yew::prelude::*;

/// The URL follows the scenario and, while paused, the time: a reload or a shared link
/// restores both. Replacing (not pushing) history keeps the back button useful.
#[hook]
pub fn use_scenario_in_url(state: &AppState) {
    let (scenario, playing, playhead) = (state.scenario.clone(), state.playing, state.playhead);
    let ab = state.ab().map(|((a, _), (b, _))| (a.clone(), b.clone()));
    use_effect_with(
        (scenario, playing, playhead, ab, state.lang, state.dark),
        move |(scenario, playing, playhead, ab, lang, dark)| {
            if !*playing {
                // The view too: a shared link opens in the sender's language and theme.
                let ab = ab.as_ref().map(|(a, b)| (a, b));
                location::replace(&url::view_fragment(scenario, ab, *playhead, *lang, *dark));
            }
        },
    );
}

/// Every scenario that validated is remembered in this browser (not by embedded figures).
#[hook]
pub fn use_remembered_scenario(scenario: Scenario, embed: bool) {
    use_effect_with(scenario, move |scenario| {
        if !embed {
            storage::store_scenario(scenario);
        }
    });
}

/// A link pasted into this tab changes only the fragment: apply it like a fresh load.
#[hook]
pub fn use_pasted_links(state: UseReducerHandle<AppState>) {
    use_effect_with((), move |_| {
        let listener =
            gloo::events::EventListener::new(
                &gloo::utils::window(),
                "hashchange",
                move |_| match url::decode(&location::hash()) {
                    Ok(Some((scenario, t))) => {
                        state.dispatch(Action::SetScenario(Box::new(scenario)));
                        if let Some(t) = t {
                            state.dispatch(Action::Seek(t));
                        }
                    }
                    Ok(None) => {}
                    Err(message) => state.dispatch(Action::Reject(format!(
                        "The link's scenario could not be used ({message}); the last good scenario stays."
                    ))),
                },
            );
        move || drop(listener)
    });
}

/// The URL and this browser follow the training job.
#[hook]
pub fn use_job_in_url(job: TrainScenario) {
    use_effect_with(job, move |job| {
        location::replace(&url::encode_train(job));
        storage::store_job(job);
    });
}
