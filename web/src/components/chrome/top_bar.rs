//! The bar over both views: title, the two views, language and theme.

use crate::i18n::{t, Lang, Text};
use crate::state::collectives::{Action, AppState};
use crate::state::Mode;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TopBarProps {
    pub lang: Lang,
    pub dark: bool,
    pub mode: Mode,
    pub on_lang: Callback<Lang>,
    pub on_dark: Callback<bool>,
    pub on_mode: Callback<Mode>,
}

/// Title, the two views, language and theme: the same bar over both views.
#[function_component(TopBar)]
pub fn top_bar(props: &TopBarProps) -> Html {
    let lang = props.lang;
    let set_lang = |target: Lang| {
        let cb = props.on_lang.clone();
        Callback::from(move |_| cb.emit(target))
    };
    let set_mode = |target: Mode| {
        let cb = props.on_mode.clone();
        Callback::from(move |_| cb.emit(target))
    };
    let toggle_dark = {
        let (cb, dark) = (props.on_dark.clone(), props.dark);
        Callback::from(move |_| cb.emit(!dark))
    };
    html! {
        <header class="top">
            <div>
                <h1>{ "Fabricscope" }</h1>
                <p class="tagline">{ t(lang, Text::Tagline) }</p>
            </div>
            <div class="toggles">
                <div class="segmented tabs" role="group" aria-label={ t(lang, Text::View) }>
                    <button id="mode-collectives" aria-pressed={(props.mode == Mode::Collectives).to_string()} onclick={set_mode(Mode::Collectives)}>{ t(lang, Text::Collectives) }</button>
                    <button id="mode-training" aria-pressed={(props.mode == Mode::Training).to_string()} onclick={set_mode(Mode::Training)}>{ t(lang, Text::TrainingJob) }</button>
                </div>
                <div class="segmented" role="group" aria-label="Language / 语言">
                    <button id="lang-en" aria-pressed={(lang == Lang::En).to_string()} onclick={set_lang(Lang::En)}>{ "English" }</button>
                    <button id="lang-zh" aria-pressed={(lang == Lang::Zh).to_string()} onclick={set_lang(Lang::Zh)}>{ "中文" }</button>
                </div>
                <button id="theme" aria-pressed={props.dark.to_string()} aria-label={t(lang, Text::Theme)} title={t(lang, Text::Theme)} onclick={toggle_dark}>
                    <svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><path d="M12 3a9 9 0 1 0 0 18a9 9 0 0 0 0-18zm0 2v14a7 7 0 0 1 0-14z" /></svg>
                    <span class="label">{ " " }{ t(lang, Text::Theme) }</span>
                </button>
            </div>
        </header>
    }
}

#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    pub state: UseReducerHandle<AppState>,
    pub on_mode: Callback<Mode>,
}

/// The top bar over the collectives view, wired to its state.
#[function_component(Header)]
pub fn header(props: &HeaderProps) -> Html {
    let state = &props.state;
    let on_lang = {
        let s = state.clone();
        Callback::from(move |lang: Lang| s.dispatch(Action::SetLang(lang)))
    };
    let on_dark = {
        let s = state.clone();
        Callback::from(move |dark: bool| s.dispatch(Action::SetDark(dark)))
    };
    html! { <TopBar lang={state.lang} dark={state.dark} mode={Mode::Collectives} on_lang={on_lang} on_dark={on_dark} on_mode={props.on_mode.clone()} /> }
}
