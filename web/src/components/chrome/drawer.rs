//! The controls' column. On a wide screen it is the column left of the figure; under 700 px
//! (a phone) it is a drawer, closed at first so the lesson, the figure and the step controls
//! share the first screen, opened by one button and closed by its own, by Escape or by a tap
//! beside it. The CSS decides which (`.drawer-toggle` shows only on a narrow screen).

use crate::i18n::{ux, Lang, Ux};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DrawerProps {
    pub lang: Lang,
    #[prop_or_default]
    pub children: Html,
}

#[function_component(ControlsDrawer)]
pub fn controls_drawer(props: &DrawerProps) -> Html {
    let lang = props.lang;
    let open = use_state(|| false);
    let set = |to: bool| {
        let open = open.clone();
        Callback::from(move |_: MouseEvent| open.set(to))
    };
    let on_key = {
        let open = open.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                open.set(false);
            }
        })
    };
    // Opening moves the focus into the drawer, to its close button.
    {
        use_effect_with(*open, |&opened| {
            if opened {
                if let Some(close) = gloo::utils::document().get_element_by_id("controls-close") {
                    use wasm_bindgen::JsCast;
                    if let Ok(close) = close.dyn_into::<web_sys::HtmlElement>() {
                        let _ = close.focus();
                    }
                }
            }
        });
    }
    html! {
        <>
            <button id="controls-toggle" class="drawer-toggle" aria-expanded={open.to_string()} aria-controls="controls"
                onclick={set(!*open)}>
                <svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><path d="M3 6h12v2H3zM3 11h8v2H3zM3 16h12v2H3zM17 4h2v6h-2zM13 9h2v6h-2zM17 14h2v6h-2z" /></svg>
                { " " }{ ux(lang, Ux::ChangeTheSetup) }
            </button>
            if *open {
                <div class="drawer-scrim" onclick={set(false)}></div>
            }
            <aside id="controls" class={classes!("panel", "controls", open.then_some("open"))} onkeydown={on_key}>
                <div class="drawer-head">
                    <strong>{ ux(lang, Ux::ChangeTheSetup) }</strong>
                    <button id="controls-close" class="primary" onclick={set(false)}>{ ux(lang, Ux::ShowTheFigure) }</button>
                </div>
                { props.children.clone() }
            </aside>
        </>
    }
}
