//! The lesson step's figures, reported by the view that runs the step: after each new run, if
//! it is of the step's own scenario or job, its figures go up to the App for the lesson bar's
//! `{key}`s (`lessons::figures`).

use crate::lessons::Figures;
use crate::state::Shared;
use std::rc::Rc;
use yew::prelude::*;

/// After each new `run` (none before the view's first), emits `figures(run)` on `on_figures`
/// when `is_the_steps` says the run is the open lesson step's (checked once per run, not per
/// render).
#[hook]
pub fn use_lesson_figures<T, F>(
    run: Option<&Rc<T>>,
    is_the_steps: F,
    figures: fn(&T) -> Figures,
    on_figures: Callback<Rc<Figures>>,
) where
    T: 'static,
    F: FnOnce() -> bool + 'static,
{
    let shown = run.cloned();
    use_effect_with(run.map(Shared::of), move |_| {
        if let Some(shown) = shown.filter(|_| is_the_steps()) {
            on_figures.emit(Rc::new(figures(&shown)));
        }
    });
}
