//! The banner that says a change was rejected, and why.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ErrorBannerProps {
    /// What was wrong.
    pub message: String,
    /// What happened to the change (it was not applied).
    pub hint: &'static str,
    /// The dismiss button's label.
    pub dismiss: &'static str,
    pub on_dismiss: Callback<MouseEvent>,
}

/// `#error`: the problem, what happened to the change, and a button to dismiss it.
#[function_component(ErrorBanner)]
pub fn error_banner(props: &ErrorBannerProps) -> Html {
    html! {
        <div id="error" class="banner error" role="alert">
            <strong>{ props.message.clone() }</strong>
            <span>{ " " }{ props.hint }</span>
            <button onclick={props.on_dismiss.clone()}>{ props.dismiss }</button>
        </div>
    }
}
