//! The timeline: play, step, jump, speed, the scrubber, the clock and what the step does.

use super::{network_name, Props};
use crate::components::select_value;
use crate::i18n::{self, t, ux, Lang, Text, Ux};
use crate::services::device::touch_first;
use crate::state::collectives::{Action, Stage, SPEEDS};
use fabricscope::units::{format_duration_ns, SimTime};
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[function_component(Timeline)]
pub fn timeline(props: &Props) -> Html {
    let state = &props.state;
    let lang = state.lang;
    let sim = &state.sim;
    let dispatch = |action: fn() -> Action| {
        let s = state.clone();
        Callback::from(move |_| s.dispatch(action()))
    };
    let on_scrub = {
        let s = state.clone();
        Callback::from(move |e: InputEvent| {
            if let Ok(ns) = e.target_unchecked_into::<HtmlInputElement>().value().parse::<f64>() {
                s.dispatch(Action::Seek(SimTime(ns.max(0.0) as u64)));
            }
        })
    };
    let on_speed = {
        let s = state.clone();
        Callback::from(move |e: Event| {
            if let Ok(speed) = select_value(&e).parse::<f64>() {
                s.dispatch(Action::SetSpeed(speed));
            }
        })
    };
    let multi_node = sim.topology.n_nodes() > 1;
    let gpu_name = |rank: u32| {
        let per_node = sim.topology.gpus_per_node();
        i18n::gpu_name(lang, Some(rank / per_node), rank % per_node, multi_node)
    };
    let base = format_duration_ns(sim.schedule.protocol.base_latency_ns(sim.schedule.algorithm) as f64);
    let text = match state.stage() {
        // No steps to follow where no engine ran: what the figure draws instead.
        Stage::Launch | Stage::Step(_) if sim.traceless() => match (&sim.bounded, &sim.chain) {
            (Some(bounds), _) => i18n::bounded::timeline_text(lang, bounds),
            (None, Some(run)) => i18n::chain::timeline_text(lang, sim, run),
            (None, None) => String::new(),
        },
        Stage::Step(step) => sim.step_info(step, sim.focus_rank).map(|info| i18n::step_text(lang, &info, &gpu_name, network_name(sim))).unwrap_or_default(),
        Stage::Launch => match lang {
            Lang::En => format!("Launch — NCCL starts the kernels: {base} before the first chunk moves (the {} protocol's base latency).", sim.schedule.protocol.nccl_name()),
            Lang::Zh => format!("启动 — NCCL 启动内核：第一个数据块发出前有 {base} 的固定开销（{} 协议的基础时延）。", sim.schedule.protocol.nccl_name()),
        },
        Stage::Done => t(lang, Text::Done).to_string(),
    };
    let play_label = if state.playing { t(lang, Text::Pause) } else { t(lang, Text::Play) };
    html! {
        <div class="timeline">
            <div class="buttons">
                <button id="to-start" class="icon" title={t(lang, Text::ToStart)} aria-label={t(lang, Text::ToStart)} onclick={dispatch(|| Action::ToStart)}>{ icon("M6 5h2v14H6zM20 5v14L9 12z") }</button>
                <button id="step-back" class="icon" title={t(lang, Text::StepBack)} aria-label={t(lang, Text::StepBack)} onclick={dispatch(|| Action::StepBack)}>{ icon("M18 5v14L7 12z") }</button>
                <button id="play" class="primary" aria-label={play_label} onclick={dispatch(|| Action::TogglePlay)}>
                    { if state.playing { icon("M6 5h4v14H6zM14 5h4v14h-4z") } else { icon("M7 5v14l12-7z") } }{ play_label }
                </button>
                <button id="step-forward" class="icon" title={t(lang, Text::StepForward)} aria-label={t(lang, Text::StepForward)} onclick={dispatch(|| Action::StepForward)}>{ icon("M6 5v14l11-7z") }</button>
                <button id="to-end" class="icon" title={t(lang, Text::ToEnd)} aria-label={t(lang, Text::ToEnd)} onclick={dispatch(|| Action::ToEnd)}>{ icon("M4 5v14l11-7zM16 5h2v14h-2z") }</button>
                <label class="speed">{ t(lang, Text::Speed) }
                    <select id="speed" onchange={on_speed}>
                        { for SPEEDS.iter().map(|&s| html! { <option value={s.to_string()} selected={s == state.speed}>{ format!("{s}×") }</option> }) }
                    </select>
                </label>
                <span id="clock" class="clock">{ format!("t = {} / {}", format_duration_ns(state.playhead.as_ns() as f64), format_duration_ns(state.end().as_ns() as f64)) }</span>
            </div>
            <input id="scrub" type="range" min="0" max={state.end().as_ns().to_string()} step="1"
                value={state.playhead.as_ns().to_string()} oninput={on_scrub} aria-label={ux(lang, Ux::TimeSlider)}
                aria-valuetext={scrub_text(state, lang)} />
            <p id="step-text" class="step-text" aria-live="polite">{ text }</p>
            <p class="hint">{ ux(lang, if touch_first() { Ux::TouchHint } else { Ux::KeysHint }) }</p>
        </div>
    }
}

/// What the time slider says to a screen reader: the time, and the step (the arrow keys move
/// it a step at a time, see `hooks::keyboard`).
fn scrub_text(state: &crate::state::collectives::AppState, lang: Lang) -> String {
    let now = format_duration_ns(state.playhead.as_ns() as f64);
    let end = format_duration_ns(state.end().as_ns() as f64);
    let steps = state.sim.n_steps();
    match (state.stage(), lang) {
        (Stage::Step(k), Lang::En) => format!("{now} of {end}, step {} of {steps}", k + 1),
        (Stage::Step(k), Lang::Zh) => format!("{now} / {end}，第 {} 步，共 {steps} 步", k + 1),
        (Stage::Launch, Lang::En) => format!("{now} of {end}, launch"),
        (Stage::Launch, Lang::Zh) => format!("{now} / {end}，启动"),
        (Stage::Done, Lang::En) => format!("{end} of {end}, done"),
        (Stage::Done, Lang::Zh) => format!("{end} / {end}，完成"),
    }
}

/// A 24×24 icon from one SVG path, coloured like the button's text.
fn icon(path: &'static str) -> Html {
    html! { <svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><path d={path} /></svg> }
}
