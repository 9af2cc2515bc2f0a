//! The lesson bar over both views: a picker when no lesson is open; otherwise the step's
//! narrative, the one thing to try, the question and (on request) its answer, and the way to
//! the previous and next steps. Opening a step is the App's job (`on_lesson`): it puts the
//! step's scenario in the URL and remounts the view on it.

use crate::components::lesson_check::LessonCheck;
use crate::i18n::{t, ux, Lang, Text, Ux};
use crate::lessons;
use crate::lessons::{Figures, LessonAt};
use crate::services::device::narrow;
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LessonBarProps {
    pub lang: Lang,
    pub at: Option<LessonAt>,
    pub on_lesson: Callback<Option<LessonAt>>,
    /// The figures of the step's own run, once the view has shown it: the texts' `{key}`s.
    #[prop_or_default]
    pub figures: Option<Rc<Figures>>,
}

#[function_component(LessonBar)]
pub fn lesson_bar(props: &LessonBarProps) -> Html {
    let lang = props.lang;
    let revealed = use_state(|| false);
    {
        let revealed = revealed.clone();
        let key = props.at.map(|at| (at.lesson.id.clone(), at.step));
        use_effect_with(key, move |_| revealed.set(false));
    }
    let Some(at) = props.at else {
        let on_pick = {
            let cb = props.on_lesson.clone();
            Callback::from(move |e: Event| {
                let id = e.target_unchecked_into::<HtmlSelectElement>().value();
                if let Some(lesson) = lessons::by_id(&id) {
                    cb.emit(Some(LessonAt { lesson, step: 0 }));
                }
            })
        };
        // `?lesson=nope`: named, not ignored.
        let unknown = lessons::unknown_in_query(&crate::services::location::search()).map(|id| match lang {
            Lang::En => format!("There is no lesson \"{id}\" (the link may be old); pick one from the list."),
            Lang::Zh => format!("没有名为“{id}”的课程（链接可能已过时），请从列表中选择。"),
        });
        return html! {
            <div class="lesson-picker">
                if let Some(message) = unknown {
                    <p id="lesson-unknown" class="banner error" role="alert">{ message }</p>
                }
                <label>{ t(lang, Text::Lessons) }
                    <select id="lesson-select" onchange={on_pick}>
                        <option value="" selected=true>{ t(lang, Text::PickAGuidedLesson) }</option>
                        { for lessons::all().iter().enumerate().map(|(i, lesson)| html! {
                            <option value={lesson.id.clone()}>{ format!("{}. {}", i + 1, lesson.title.get(lang)) }</option>
                        }) }
                    </select>
                </label>
            </div>
        };
    };
    let step = at.step();
    let n = at.lesson.steps.len();
    // Every number the texts state is the model's, from the step's own run.
    let fill = |text: &lessons::Text| lessons::figures::fill(text.get(lang), props.figures.as_deref(), lang);
    let go = |to: Option<usize>| {
        let cb = props.on_lesson.clone();
        let lesson = at.lesson;
        Callback::from(move |_| cb.emit(to.map(|step| LessonAt { lesson, step })))
    };
    let reveal = {
        let revealed = revealed.clone();
        Callback::from(move |_| revealed.set(!*revealed))
    };
    html! {
        <section id="lesson" class="panel lesson" aria-label={t(lang, Text::Lesson)}>
            <div class="lesson-head">
                <h2>{ at.lesson.title.get(lang) }</h2>
                <span class="hint" id="lesson-progress">{ match lang {
                    Lang::En => format!("Step {} / {n}", at.step + 1),
                    Lang::Zh => format!("第 {} / {n} 步", at.step + 1),
                } }</span>
                <button id="lesson-close" onclick={go(None)}>{ t(lang, Text::CloseLesson) }</button>
            </div>
            <p id="lesson-text">{ fill(&step.text) }</p>
            if step.try_this.is_some() || step.question.is_some() || step.check.is_some() {
                // On a phone the extras start folded, so the figure stays on the first screen.
                <details class="lesson-more" open={!narrow()}>
                    <summary>{ ux(lang, Ux::TryAndQuestion) }</summary>
                    if let Some(try_this) = &step.try_this {
                        <p id="lesson-try" class="try"><strong>{ t(lang, Text::Try) }</strong>{ fill(try_this) }</p>
                    }
                    if let Some(question) = &step.question {
                        <p id="lesson-question" class="question"><strong>{ t(lang, Text::Question) }</strong>{ fill(question) }
                            { " " }<button id="lesson-reveal" aria-expanded={revealed.to_string()} onclick={reveal}>
                                { if *revealed { t(lang, Text::HideTheAnswer) } else { t(lang, Text::ShowTheAnswer) } }
                            </button>
                        </p>
                        if *revealed {
                            if let Some(answer) = &step.answer {
                                <p id="lesson-answer" class="answer">{ fill(answer) }</p>
                            }
                        }
                    }
                    if let Some(check) = &step.check {
                        <LessonCheck key={format!("{}-{}", at.lesson.id, at.step)} lang={lang} check={filled_check(check, props.figures.as_deref())} />
                    }
                </details>
            }
            <div class="buttons">
                <button id="lesson-prev" disabled={at.step == 0} onclick={go(at.step.checked_sub(1))}>{ t(lang, Text::Previous) }</button>
                <button id="lesson-next" class="primary" disabled={at.step + 1 >= n} onclick={go(Some((at.step + 1).min(n - 1)))}>{ t(lang, Text::Next) }</button>
            </div>
        </section>
    }
}

/// A check with its texts' `{key}`s filled.
fn filled_check(check: &lessons::Check, figures: Option<&Figures>) -> lessons::Check {
    lessons::Check {
        ask: check.ask.filled(figures),
        choices: check.choices.iter().map(|c| c.filled(figures)).collect(),
        unit: check.unit.as_ref().map(|u| u.filled(figures)),
        ..check.clone()
    }
}
