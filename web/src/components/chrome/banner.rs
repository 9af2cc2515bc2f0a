//! The banners that say a change was rejected, and why, or that the link the page opened on
//! could not be used, and what is shown instead.

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

#[derive(Properties, PartialEq)]
pub struct LinkProblemProps {
    /// What was wrong with the link, and what is shown instead.
    pub message: String,
    /// The dismiss button's label and action; none in an embedded figure, where the message
    /// stands in place of the figure.
    #[prop_or_default]
    pub dismiss: Option<(&'static str, Callback<MouseEvent>)>,
}

/// `#link-error`: the link's problem, which says itself what is shown instead.
#[function_component(LinkProblemBanner)]
pub fn link_problem_banner(props: &LinkProblemProps) -> Html {
    html! {
        <div id="link-error" class="banner error" role="alert">
            <strong>{ props.message.clone() }</strong>
            if let Some((label, on_dismiss)) = &props.dismiss {
                <button onclick={on_dismiss.clone()}>{ *label }</button>
            }
        </div>
    }
}
