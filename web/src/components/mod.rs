//! The views' components: `chrome` (what both views share: the top bar, the error banner,
//! share and export), one folder per view (`collectives`, `training`), and the lesson bar (with its check
//! question, `lesson_check`).
//! Components use state, services, hooks, render and i18n; none of those uses a component.

pub mod chrome;
pub mod collectives;
pub mod lesson_bar;
pub mod lesson_check;
pub mod training;

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// The state as it is when an event fires, for a component that must not re-render on every
/// animation frame but acts on what moves every frame (share and export copy the playhead as it
/// is when the button is pressed). As a prop it never differs: what such a component shows
/// comes from its other props, and it reads this only inside its callbacks. Controls do not use
/// it: they are given the data they show and the reducer's dispatcher.
pub struct LiveState<T: Reducible>(pub UseReducerHandle<T>);

impl<T: Reducible> Clone for LiveState<T> {
    fn clone(&self) -> Self {
        LiveState(self.0.clone())
    }
}

impl<T: Reducible> PartialEq for LiveState<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// The value of the `<select>` an event comes from.
pub fn select_value(event: &Event) -> String {
    event.target_unchecked_into::<HtmlSelectElement>().value()
}

/// The value of the `<input>` an event comes from.
pub fn input_value(event: &Event) -> String {
    event.target_unchecked_into::<HtmlInputElement>().value()
}
