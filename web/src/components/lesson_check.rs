//! A lesson step's check question: pick one of the choices, or type a number, and the page
//! says whether it is right (and, when not, what the model says).

use crate::i18n::Lang;
use crate::lessons::Check;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CheckProps {
    pub lang: Lang,
    pub check: Check,
}

#[function_component(LessonCheck)]
pub fn lesson_check(props: &CheckProps) -> Html {
    let (lang, check) = (props.lang, &props.check);
    let picked = use_state(|| None::<usize>);
    let typed = use_state(String::new);
    let verdict = use_state(|| None::<bool>);
    let on_submit = {
        let (check, picked, typed, verdict) = (check.clone(), picked.clone(), typed.clone(), verdict.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let right = if check.choices.is_empty() {
                check.accepts_number(&typed)
            } else {
                picked.map(|k| Some(k) == check.correct)
            };
            verdict.set(right);
        })
    };
    let on_type = {
        let (typed, verdict) = (typed.clone(), verdict.clone());
        Callback::from(move |e: InputEvent| {
            typed.set(e.target_unchecked_into::<HtmlInputElement>().value());
            verdict.set(None);
        })
    };
    let unit = check.unit.as_ref().map(|u| u.get(lang).to_string()).unwrap_or_default();
    let model = match (check.number, check.correct.and_then(|k| check.choices.get(k))) {
        (Some(n), _) => format!("{} {unit}", trim(n)),
        (None, Some(choice)) => choice.get(lang).to_string(),
        (None, None) => String::new(),
    };
    let feedback = verdict.map(|right| match (right, lang) {
        (true, Lang::En) => "Right.".to_string(),
        (true, Lang::Zh) => "正确。".to_string(),
        (false, Lang::En) => format!("Not quite: the model says {model}."),
        (false, Lang::Zh) => format!("不太对：模型给出的是 {model}。"),
    });
    html! {
        <form id="lesson-check" class="check" onsubmit={on_submit}>
            <p class="question"><strong>{ match lang { Lang::En => "Check: ", Lang::Zh => "自测：" } }</strong>{ check.ask.get(lang) }</p>
            if check.choices.is_empty() {
                <label class="check-number">
                    <input id="lesson-check-number" type="text" inputmode="decimal" autocomplete="off" size="8"
                        value={(*typed).clone()} oninput={on_type} aria-label={check.ask.get(lang).to_string()} />
                    { " " }{ unit }
                </label>
            } else {
                <div class="check-choices" role="radiogroup">
                    { for check.choices.iter().enumerate().map(|(k, choice)| {
                        let on_pick = { let (picked, verdict) = (picked.clone(), verdict.clone()); Callback::from(move |_| { picked.set(Some(k)); verdict.set(None); }) };
                        html! {
                            <label class="check-choice">
                                <input type="radio" name="lesson-check" value={k.to_string()} checked={*picked == Some(k)} onchange={on_pick} />
                                { " " }{ choice.get(lang) }
                            </label>
                        }
                    }) }
                </div>
            }
            <button id="lesson-check-submit" type="submit">{ match lang { Lang::En => "Check", Lang::Zh => "核对" } }</button>
            if let Some(text) = feedback {
                <p id="lesson-check-result" class={classes!("check-result", verdict.map(|r| if r { "right" } else { "wrong" }))} role="status">{ text }</p>
            }
        </form>
    }
}

/// A number as a reader writes it: no trailing zeros.
fn trim(n: f64) -> String {
    let text = format!("{n:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}
