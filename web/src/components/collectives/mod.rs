//! The collectives view: one collective on the cluster, step by step. `Collectives` opens it
//! (on a lesson step's scenario or the URL's); `Lab` holds its state and effects and lays out
//! the controls, the topology, the timeline, the results and the chart.

pub mod chart;
pub mod chunk_grid;
pub mod controls;
pub mod custom;
pub mod faults;
pub mod heat_map;
pub mod link_table;
pub mod nodes;
pub mod results;
pub mod timeline;
pub mod topology;
pub mod tuner_table;
pub mod yours;

use crate::components::chrome::banner::{ErrorBanner, LinkProblemBanner};
use crate::components::chrome::drawer::ControlsDrawer;
use crate::components::chrome::share::ShareExport;
use crate::components::chrome::top_bar::Header;
use crate::components::LiveState;
use crate::hooks::animation_frame::use_animation_frame;
use crate::hooks::keyboard::use_playback_keys;
use crate::hooks::lesson_figures::use_lesson_figures;
use crate::hooks::slices::use_next_slice;
use crate::hooks::theme::use_theme;
use crate::hooks::url_sync::{use_pasted_links, use_remembered_scenario, use_scenario_in_url};
use crate::i18n::{problem_text, t, Lang, Text};
use crate::lessons::{Figures as LessonFigures, LessonAt, Step};
use crate::route;
use crate::services::url;
use crate::services::workers::{give_finer, stop_finer_not_of};
use crate::state::collectives::{Action, AppState};
use crate::state::page_job::now_ms;
use crate::state::slices::pending_slice;
use crate::state::{Mode, Shared};
use chart::Chart;
use controls::Controls;
use results::Results;
use std::rc::Rc;
use timeline::Timeline;
use topology::{ab_diff, Side, TopologyView};
use yew::prelude::*;

pub type State = UseReducerHandle<AppState>;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub state: State,
}

/// The network's name: "InfiniBand", "RoCEv2", "TCP/IP Ethernet".
pub fn network_name(sim: &fabricscope::Simulation) -> &'static str {
    sim.topology.technology.spec().name
}

#[derive(Properties, PartialEq)]
pub struct ModeProps {
    pub on_mode: Callback<Mode>,
    pub lesson: Option<LessonAt>,
    pub on_lang: Callback<Lang>,
    pub lesson_bar: Html,
    /// Reports the figures of a lesson step's run once the view shows it.
    #[prop_or_default]
    pub on_figures: Callback<Rc<LessonFigures>>,
}

/// The collectives view, opened on a lesson step's scenario or the URL's.
#[function_component(Collectives)]
pub fn collectives(props: &ModeProps) -> Html {
    let lesson = props.lesson;
    // A lesson step opens on its own scenario; otherwise the URL's (or the stored) one. Only
    // one of them is simulated.
    let initial = use_memo((), move |_| match lesson.map(|at| at.step()) {
        Some(step @ Step { scenario: Some(scenario), .. }) => route::lesson_state(step, scenario),
        _ => route::initial_state(),
    });
    match &*initial {
        Ok(state) => {
            let lesson_scenario = lesson.and_then(|at| at.step().scenario.clone());
            html! { <Lab initial={Rc::new(state.clone())} on_mode={props.on_mode.clone()} on_lang={props.on_lang.clone()} lesson_bar={props.lesson_bar.clone()}
            lesson_scenario={lesson_scenario} on_figures={props.on_figures.clone()} /> }
        }
        Err(message) => html! { <div id="error" class="banner error" role="alert">{ message }</div> },
    }
}

#[derive(Properties, PartialEq)]
struct LabProps {
    initial: Rc<AppState>,
    on_mode: Callback<Mode>,
    on_lang: Callback<Lang>,
    lesson_bar: Html,
    lesson_scenario: Option<fabricscope::Scenario>,
    on_figures: Callback<Rc<LessonFigures>>,
}

#[function_component(Lab)]
fn lab(props: &LabProps) -> Html {
    let initial = props.initial.clone();
    let state = use_reducer(move || (*initial).clone());

    use_theme(state.lang, state.dark);
    {
        let on_lang = props.on_lang.clone();
        use_effect_with(state.lang, move |&lang| on_lang.emit(lang));
    }
    // A pending simulation runs a slice per timeout, so frames, clicks and the cancel button
    // get their turn between slices.
    // Its job's NVLSTree finer run, once given out, goes to a worker (`give_finer`).
    let finer = use_mut_ref(|| None);
    let finer_pool = finer.clone();
    {
        let s = state.clone();
        let pending = state.pending.as_ref().map(Shared::of);
        let working = pending.is_some();
        // The slice runs here, in the effect, by the page's clock; the reducer applies its report.
        use_next_slice((state.work_tick, pending), working, 0, move || {
            if let Some(report) = pending_slice(&s, now_ms) {
                s.dispatch(report);
            }
            give_finer(&finer, &s);
        });
    }
    // A finer run whose simulation is no longer pending (shown, cancelled, replaced) is not
    // wanted: its worker stops rather than run on to an end nobody reads.
    {
        let pending_id = state.pending.as_ref().map(|pending| pending.id);
        use_effect_with(pending_id, move |&pending_id| stop_finer_not_of(&finer_pool, pending_id));
    }
    // A lesson step's texts take their numbers from this run, when it is the step's scenario.
    {
        let (wanted, shown) = (props.lesson_scenario.clone(), state.scenario.clone());
        let is_the_steps =
            move || wanted.is_some_and(|wanted| url::encode(&wanted, None) == url::encode(&shown, None));
        use_lesson_figures(
            Some(&state.sim),
            is_the_steps,
            LessonFigures::of_collective,
            props.on_figures.clone(),
        );
    }
    use_scenario_in_url(&state);
    use_remembered_scenario(state.scenario.clone(), state.embed);
    use_pasted_links(state.clone());
    // The animation loop. The first frame of a play only records its timestamp, so the deps
    // include it too.
    {
        let s = state.clone();
        use_animation_frame(state.playing, (state.playhead, state.last_frame_ms), move |now_ms| {
            s.dispatch(Action::Frame { now_ms })
        });
    }
    use_playback_keys(state.clone());

    let lang = state.lang;
    let link_problem = state.link_problem.as_ref().map(|message| {
        let s = state.clone();
        let dismiss = Callback::from(move |_| s.dispatch(Action::DismissLinkProblem));
        html! { <LinkProblemBanner message={problem_text(lang, message)} dismiss={(t(lang, Text::DismissError), dismiss)} /> }
    });
    if state.embed {
        // Embedded with a bad link: its problem, not a figure the reader would take for it.
        if let Some(message) = &state.link_problem {
            return html! { <LinkProblemBanner message={problem_text(lang, message)} /> };
        }
        // Embedded: the live figure and its numbers, nothing to configure.
        return html! {
            <div class="lab embed">
                <section class="panel stage">
                    <TopologyView state={state.clone()} />
                    <Timeline state={state.clone()} />
                </section>
                <section class="panel results"><Results state={state.clone()} /></section>
            </div>
        };
    }
    html! {
        <div class="lab">
            <Header state={state.clone()} on_mode={props.on_mode.clone()} />
            { props.lesson_bar.clone() }
            { link_problem.unwrap_or_default() }
            if let Some(message) = &state.error {
                <ErrorBanner message={problem_text(lang, message)} hint={t(lang, Text::InvalidInput)} dismiss={t(lang, Text::DismissError)}
                    on_dismiss={ let s = state.clone(); move |_| s.dispatch(Action::DismissError) } />
            }
            if let Some(pending) = &state.pending {
                <div id="progress" class="banner notice" role="status" aria-live="polite">
                    <progress max="1" value={pending.job.borrow().progress().to_string()}></progress>
                    <span>{ match lang {
                        Lang::En => format!(" Simulating {} nodes… {:.0}% of this run, {:.1} s so far; the last result stays until it is done.",
                            pending.scenario.nodes, 100.0 * pending.job.borrow().progress(), state.pending_ms / 1e3),
                        Lang::Zh => format!(" 正在模拟 {} 个节点… 本轮已完成 {:.0}%，已用 {:.1} 秒；完成前仍显示上一次的结果。",
                            pending.scenario.nodes, 100.0 * pending.job.borrow().progress(), state.pending_ms / 1e3),
                    } }</span>
                    <button id="cancel" onclick={ let s = state.clone(); move |_| s.dispatch(Action::Cancel) }>{ t(lang, Text::Cancel) }</button>
                </div>
            }
            if let Some(notice) = state.notice {
                <div id="notice" class="banner notice" role="status">
                    <span>{ t(lang, notice) }</span>
                    <button id="use-default" onclick={ let s = state.clone(); move |_| s.dispatch(Action::SetScenario(Box::new(crate::state::collectives::page_demo()))) }>{ t(lang, Text::UseDefault) }</button>
                    <button onclick={ let s = state.clone(); move |_| s.dispatch(Action::DismissNotice) }>{ t(lang, Text::DismissError) }</button>
                </div>
            }
            <div class="columns">
                <ControlsDrawer lang={lang}>
                    <Controls dispatch={state.dispatcher()} scenario={state.requested().clone()} lang={state.lang}
                        comparing={state.other.is_some()} editing_b={state.editing_b}
                        sim={Shared::of(&state.sim)} />
                </ControlsDrawer>
                <div class="main">
                    <section class="panel stage">
                        if state.other.is_some() {
                            <div class="ab">
                                <TopologyView state={state.clone()} side={Side::A} />
                                <TopologyView state={state.clone()} side={Side::B} />
                            </div>
                            <p id="ab-diff" class="formula">{ ab_diff(&state) }</p>
                        } else {
                            <TopologyView state={state.clone()} />
                        }
                        <Timeline state={state.clone()} />
                        if state.other.is_none() {
                            <chunk_grid::ChunkGrid state={state.clone()} />
                        }
                    </section>
                    <div class="lower">
                        <section class="panel results"><Results state={state.clone()} /></section>
                        <div class="side">
                            <section class="panel chart"><Chart state={state.clone()} /></section>
                            <section class="panel share"><ShareExport live={LiveState(state.clone())} sim={Shared::of(&state.sim)} lang={state.lang} /></section>
                            <section class="panel yours"><yours::YourCluster state={state.clone()} /></section>
                        </div>
                    </div>
                </div>
            </div>
        </div>
    }
}
