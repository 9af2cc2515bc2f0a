//! Keyboard control of the collectives view's playback.

use crate::state::collectives::{Action, AppState};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Space plays and pauses, arrows step, Home and End jump; not while typing in a field (the
/// time slider is not one: its arrows step too), not with a modifier, and space on a focused
/// button presses that button.
#[hook]
pub fn use_playback_keys(state: UseReducerHandle<AppState>) {
    use_effect_with((), move |_| {
        let options = gloo::events::EventListenerOptions::enable_prevent_default();
        let listener = gloo::events::EventListener::new_with_options(
            &gloo::utils::document(),
            "keydown",
            options,
            move |event| {
                let Some(event) = event.dyn_ref::<web_sys::KeyboardEvent>() else { return };
                // The time slider is not a field: its arrows step, as everywhere else, instead
                // of moving the playhead one nanosecond.
                let in_field = event
                    .target()
                    .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
                    .map(|element| {
                        element.id() != "scrub"
                            && matches!(element.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA")
                    })
                    .unwrap_or(false);
                if in_field || event.ctrl_key() || event.meta_key() || event.alt_key() {
                    return;
                }
                // Space on a focused button presses that button, as everywhere else.
                let on_button = event
                    .target()
                    .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
                    .map(|element| element.tag_name() == "BUTTON")
                    .unwrap_or(false);
                if on_button && event.key() == " " {
                    return;
                }
                let action = match event.key().as_str() {
                    " " => Action::TogglePlay,
                    "ArrowRight" | "ArrowUp" | "PageDown" => Action::StepForward,
                    "ArrowLeft" | "ArrowDown" | "PageUp" => Action::StepBack,
                    "Home" => Action::ToStart,
                    "End" => Action::ToEnd,
                    _ => return,
                };
                event.prevent_default();
                state.dispatch(action);
            },
        );
        move || drop(listener)
    });
}
