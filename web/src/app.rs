//! The App root: which view is open (`Mode`), the lesson step open and its bar, and switching
//! between them. Each view holds its own state (`components::collectives`, `::training`).

use crate::components::collectives::Collectives;
use crate::components::lesson_bar::LessonBar;
use crate::components::training::TrainLab;
use crate::i18n::Lang;
use crate::lessons::{self, Figures, LessonAt};
use crate::route;
use crate::services::{location, storage, url};
use crate::state::Mode;
use std::rc::Rc;
use yew::prelude::*;

/// The page: the open view under the lesson bar, opened from the URL.
#[function_component(App)]
pub fn app() -> Html {
    let lesson = use_state(route::initial_lesson);
    // The open step's figures, as its view reported them from its run (keyed by the step).
    let figures = use_state(|| None::<(String, Rc<Figures>)>);
    let lang = use_state(route::initial_lang);
    let mode = use_state(|| route::initial_mode(*lesson));
    // Opening a lesson step: its view, its scenario, the lesson and step in the URL's query.
    let on_lesson = {
        let (lesson, mode) = (lesson.clone(), mode.clone());
        Callback::from(move |next: Option<LessonAt>| {
            let address = match next {
                Some(at) => {
                    let step = at.step();
                    let fragment = match (&step.scenario, &step.train) {
                        (_, Some(job)) => url::encode_train(job),
                        (Some(scenario), None) => url::encode(scenario, None),
                        (None, None) => String::new(),
                    };
                    mode.set(if step.train.is_some() { Mode::Training } else { Mode::Collectives });
                    format!("{}{fragment}", lessons::query(at.lesson, at.step))
                }
                None => {
                    let hash = location::hash();
                    let path = location::pathname();
                    format!("{path}{hash}")
                }
            };
            location::replace(&address);
            lesson.set(next);
        })
    };
    let on_lang = {
        let lang = lang.clone();
        Callback::from(move |l: Lang| lang.set(l))
    };
    // Switching views puts that view's own state in the URL first (its last job or scenario
    // from this browser, or the default), so each opens where it was left.
    let on_mode = {
        let mode = mode.clone();
        Callback::from(move |next: Mode| {
            if next == *mode {
                return;
            }
            let fragment = match next {
                Mode::Training => url::encode_train(&route::initial_job_stored()),
                Mode::Collectives => url::encode(
                    &storage::stored_scenario().unwrap_or_else(crate::state::collectives::page_demo),
                    None,
                ),
            };
            location::replace(&fragment);
            mode.set(next);
        })
    };
    // A new lesson step remounts its view, which then opens on the step's scenario.
    let key = lesson.map(|at| format!("{}-{}", at.lesson.id, at.step)).unwrap_or_default();
    let on_figures = {
        let (figures, key) = (figures.clone(), key.clone());
        Callback::from(move |f: Rc<Figures>| figures.set(Some((key.clone(), f))))
    };
    let step_figures = figures.as_ref().filter(|(k, _)| *k == key).map(|(_, f)| f.clone());
    let embed = route::embed_mode();
    // The lesson bar sits under the top bar of whichever view is open.
    let bar = if embed {
        html! {}
    } else {
        html! { <LessonBar lang={*lang} at={*lesson} on_lesson={on_lesson} figures={step_figures} /> }
    };
    match *mode {
        Mode::Collectives => {
            html! { <Collectives key={key} on_mode={on_mode} lesson={*lesson} on_lang={on_lang} lesson_bar={bar} on_figures={on_figures} /> }
        }
        Mode::Training => html! {
            <TrainLab key={key} lang={route::initial_lang()} dark={route::initial_dark()} on_mode={on_mode}
                job={lesson.and_then(|at| at.step().train.clone())} on_lang={on_lang} lesson_bar={bar} on_figures={on_figures} />
        },
    }
}
