//! The views' components: `chrome` (what both views share: the top bar, the error banner,
//! share and export), one folder per view (`collectives`, `training`), and the lesson bar.
//! Components use state, services, hooks, render and i18n; none of those uses a component.

pub mod chrome;
pub mod collectives;
pub mod lesson_bar;
pub mod training;

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// A reducer handle as a prop that never differs: a component given one re-renders only
/// when its other props change. Both views' controls use it so that animation frames and
/// results filling in do not re-render (and so reset) a field the user is typing into.
pub struct Handle<T: Reducible>(pub UseReducerHandle<T>);

impl<T: Reducible> Clone for Handle<T> {
    fn clone(&self) -> Self {
        Handle(self.0.clone())
    }
}

impl<T: Reducible> PartialEq for Handle<T> {
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
