//! The app: state provider, controls, topology view, timeline, results and chart.

use crate::i18n::{self, t, Lang, Text};
use crate::render::layout::Layout;
use crate::render::palette::{self, Palette};
use crate::render::topology as render;
use crate::services::download::{download, export_canvas_png};
use crate::services::{clipboard, location, storage};
use crate::state::collectives::{Action, AppState, Stage, SPEEDS};
use fabricscope::catalog::NODE_PRESETS;
use fabricscope::scenario::{CustomLink, CustomNode, CustomShape};
use fabricscope::topology::{LinkId, LinkKind};
use fabricscope::units::{format_bytes, format_duration_ns, SimTime};
use fabricscope::Scenario;
use fabricscope_charts::{draw_busbw_curve, BusbwSeries, Labels, Marker};
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{HtmlCanvasElement, HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

type State = UseReducerHandle<AppState>;

/// The language chosen before, or the browser's.
pub fn initial_lang() -> Lang {
    let linked = crate::services::url::view_options(&location::hash()).0;
    linked.or_else(storage::stored_lang).unwrap_or_else(|| {
        let browser = gloo::utils::window().navigator().language().unwrap_or_default();
        if browser.starts_with("zh") {
            Lang::Zh
        } else {
            Lang::En
        }
    })
}

/// The theme chosen before, or the system's.
pub fn initial_dark() -> bool {
    if let (_, Some(dark)) = crate::services::url::view_options(&location::hash()) {
        return dark;
    }
    storage::stored_dark().unwrap_or_else(|| {
        gloo::utils::window()
            .match_media("(prefers-color-scheme: dark)")
            .ok()
            .flatten()
            .map(|query| query.matches())
            .unwrap_or(false)
    })
}

/// Theme and language live on `<html>`, and are remembered.
#[hook]
pub fn use_theme(lang: Lang, dark: bool) {
    use_effect_with((lang, dark), move |&(lang, dark)| {
        if let Some(root) = gloo::utils::document().document_element() {
            root.set_class_name(if dark { "dark" } else { "light" });
            let _ = root.set_attribute("lang", lang.code());
        }
        storage::store_view(lang, dark);
    });
}

/// `?embed` in the URL: the figure and its numbers alone, for an `<iframe>`.
fn embed_mode() -> bool {
    let search = location::search();
    search.trim_start_matches('?').split('&').any(|part| part == "embed" || part.starts_with("embed="))
}

/// A lesson step's opening state: its scenario, at its step, with its links in focus.
fn lesson_state(step: &crate::lessons::Step, scenario: &Scenario) -> Result<AppState, String> {
    let mut state = AppState::new(scenario.clone(), initial_lang(), initial_dark())?;
    state.embed = embed_mode();
    state.focus = crate::render::topology::Focus { kinds: step.focus_kinds(), ranks: step.focus_ranks() };
    if let Some(k) = step.step {
        let start = state.sim.step_starts.get(k as usize).copied().unwrap_or_default();
        state.playhead = SimTime(start.0 + 1).min(state.end());
    }
    Ok(state)
}

fn initial_state() -> Result<AppState, String> {
    let lang = initial_lang();
    let dark = initial_dark();
    // A shared link carries the scenario (and the time) in the URL's fragment. Without one,
    // or with a bad one (which is reported), the page shows the last scenario this browser
    // ran, or the default one. Embedded figures never read the browser's own scenario.
    let embed = embed_mode();
    let hash = location::hash();
    let stored =
        if embed { None } else { storage::stored_scenario().filter(|s| *s != Scenario::default_demo()) };
    let restored = stored.is_some();
    let fallback = || stored.clone().unwrap_or_else(Scenario::default_demo);
    let (scenario, playhead, problem) = match crate::services::url::decode(&hash) {
        Ok(Some((scenario, t))) => (scenario, t, None),
        Ok(None) => (fallback(), None, None),
        Err(message) => (fallback(), None, Some(message)),
    };
    // A valid scenario the page cannot run (too big, or no steady state) is reported like a
    // bad one, and the fallback shown.
    let (mut state, playhead, problem) = match AppState::new(scenario, lang, dark) {
        Ok(state) => (state, playhead, problem),
        Err(message) if problem.is_none() => (AppState::new(fallback(), lang, dark)?, None, Some(message)),
        Err(message) => return Err(message),
    };
    state.embed = embed;
    // An A/B link: B beside A (A is edited first).
    if let Some(b) = crate::services::url::decode_b(&hash) {
        if let Some(sim) =
            b.validate().ok().and_then(|valid| crate::state::collectives::simulate_in_page(&valid).ok())
        {
            state.other = Some((b, Rc::new(sim)));
        }
    }
    if let Some(t) = playhead {
        state.playhead = t.min(state.end());
    }
    match (problem, restored) {
        (Some(message), false) => {
            state.error = Some(match lang {
                Lang::En => format!("The link's scenario could not be used ({message}); showing the default scenario."),
                Lang::Zh => format!("链接中的场景无法使用（{message}），已显示默认场景。"),
            })
        }
        (Some(message), true) => {
            state.error = Some(match lang {
                Lang::En => format!("The link's scenario could not be used ({message}); showing the last scenario you ran in this browser."),
                Lang::Zh => format!("链接中的场景无法使用（{message}），已显示你在此浏览器中最近运行的场景。"),
            })
        }
        (None, true) if playhead.is_none() && hash.trim_start_matches('#').is_empty() => {
            state.notice = Some(t(lang, Text::RestoredScenario).to_string());
        }
        _ => {}
    }
    Ok(state)
}

/// The page's two views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One collective on the cluster, step by step.
    Collectives,
    /// A training job laid out on the cluster.
    Training,
}

/// The lesson step open, if any: `?lesson=<id>&step=<k>` in the URL.
#[derive(Clone, Copy, PartialEq)]
pub struct LessonAt {
    pub lesson: &'static crate::lessons::Lesson,
    pub step: usize,
}

impl LessonAt {
    pub fn step(&self) -> &'static crate::lessons::Step {
        &self.lesson.steps[self.step]
    }
}

#[function_component(App)]
pub fn app() -> Html {
    let hash = location::hash();
    let search = location::search();
    let lesson =
        use_state(|| crate::lessons::from_query(&search).map(|(lesson, step)| LessonAt { lesson, step }));
    let lang = use_state(initial_lang);
    let mode = use_state(|| match *lesson {
        Some(at) if at.step().train.is_some() => Mode::Training,
        Some(_) => Mode::Collectives,
        None if crate::services::url::is_train(&hash) => Mode::Training,
        None => Mode::Collectives,
    });
    // Opening a lesson step: its view, its scenario, the lesson and step in the URL's query.
    let on_lesson = {
        let (lesson, mode) = (lesson.clone(), mode.clone());
        Callback::from(move |next: Option<LessonAt>| {
            let url = match next {
                Some(at) => {
                    let step = at.step();
                    let fragment = match (&step.scenario, &step.train) {
                        (_, Some(job)) => crate::services::url::encode_train(job),
                        (Some(scenario), None) => crate::services::url::encode(scenario, None),
                        (None, None) => String::new(),
                    };
                    mode.set(if step.train.is_some() { Mode::Training } else { Mode::Collectives });
                    format!("{}{fragment}", crate::lessons::query(at.lesson, at.step))
                }
                None => {
                    let hash = location::hash();
                    let path = location::pathname();
                    format!("{path}{hash}")
                }
            };
            location::replace(&url);
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
                Mode::Training => crate::services::url::encode_train(&crate::train::initial_job_stored()),
                Mode::Collectives => crate::services::url::encode(
                    &storage::stored_scenario().unwrap_or_else(Scenario::default_demo),
                    None,
                ),
            };
            location::replace(&fragment);
            mode.set(next);
        })
    };
    // A new lesson step remounts its view, which then opens on the step's scenario.
    let key = lesson.map(|at| format!("{}-{}", at.lesson.id, at.step)).unwrap_or_default();
    let embed = embed_mode();
    // The lesson bar sits under the top bar of whichever view is open.
    let bar = if embed {
        html! {}
    } else {
        html! { <crate::lesson_view::LessonBar lang={*lang} at={*lesson} on_lesson={on_lesson} /> }
    };
    match *mode {
        Mode::Collectives => {
            html! { <Collectives key={key} on_mode={on_mode} lesson={*lesson} on_lang={on_lang} lesson_bar={bar} /> }
        }
        Mode::Training => html! {
            <crate::train::TrainLab key={key} lang={initial_lang()} dark={initial_dark()} on_mode={on_mode}
                job={lesson.and_then(|at| at.step().train.clone())} on_lang={on_lang} lesson_bar={bar} />
        },
    }
}

#[derive(Properties, PartialEq)]
struct ModeProps {
    on_mode: Callback<Mode>,
    lesson: Option<LessonAt>,
    on_lang: Callback<Lang>,
    lesson_bar: Html,
}

#[function_component(Collectives)]
fn collectives(props: &ModeProps) -> Html {
    let lesson = props.lesson;
    // A lesson step opens on its own scenario; otherwise the URL's (or the stored) one. Only
    // one of them is simulated.
    let initial = use_memo((), move |_| match lesson.map(|at| at.step()) {
        Some(step @ crate::lessons::Step { scenario: Some(scenario), .. }) => lesson_state(step, scenario),
        _ => initial_state(),
    });
    match &*initial {
        Ok(state) => {
            html! { <Lab initial={Rc::new(state.clone())} on_mode={props.on_mode.clone()} on_lang={props.on_lang.clone()} lesson_bar={props.lesson_bar.clone()} /> }
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
}

impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.sim, &other.sim)
            && Rc::ptr_eq(&self.curve, &other.curve)
            && Rc::ptr_eq(&self.curve_todo, &other.curve_todo)
            && self.scenario == other.scenario
            && self.playhead == other.playhead
            && self.playing == other.playing
            && self.speed == other.speed
            && self.error == other.error
            && self.notice == other.notice
            && self.editing_b == other.editing_b
            && match (&self.other, &other.other) {
                (Some(a), Some(b)) => Rc::ptr_eq(&a.1, &b.1),
                (None, None) => true,
                _ => false,
            }
            && self.lang == other.lang
            && self.dark == other.dark
            && self.work_tick == other.work_tick
            && match (&self.pending, &other.pending) {
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
    }
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
    {
        let s = state.clone();
        use_effect_with(
            (state.work_tick, state.pending.as_ref().map(|p| Rc::as_ptr(p) as usize)),
            move |&(_, pending)| {
                let timer = pending
                    .map(|_| gloo::timers::callback::Timeout::new(0, move || s.dispatch(Action::Work)));
                move || drop(timer)
            },
        );
    }

    // The URL follows the scenario and, while paused, the time: a reload or a shared link
    // restores both. Replacing (not pushing) history keeps the back button useful.
    {
        let (scenario, playing, playhead) = (state.scenario.clone(), state.playing, state.playhead);
        let ab = state.ab().map(|((a, _), (b, _))| (a.clone(), b.clone()));
        use_effect_with(
            (scenario, playing, playhead, ab, state.lang, state.dark),
            move |(scenario, playing, playhead, ab, lang, dark)| {
                if !*playing {
                    let fragment = match &ab {
                        Some((a, b)) => crate::services::url::encode_ab(a, Some(b), Some(*playhead)),
                        None => crate::services::url::encode(scenario, Some(*playhead)),
                    };
                    // The view too: a shared link opens in the sender's language and theme.
                    let fragment = crate::services::url::with_view(fragment, *lang, *dark);
                    location::replace(&fragment);
                }
            },
        );
    }

    // Every scenario that validated is remembered in this browser (not by embedded figures).
    {
        let (scenario, embed) = (state.scenario.clone(), state.embed);
        use_effect_with(scenario, move |scenario| {
            if !embed {
                storage::store_scenario(scenario);
            }
        });
    }

    // A link pasted into this tab changes only the fragment: apply it like a fresh load.
    {
        let hash_state = state.clone();
        use_effect_with((), move |_| {
            let listener = gloo::events::EventListener::new(
                &gloo::utils::window(),
                "hashchange",
                move |_| {
                    let hash = location::hash();
                    match crate::services::url::decode(&hash) {
                    Ok(Some((scenario, t))) => {
                        hash_state.dispatch(Action::SetScenario(scenario));
                        if let Some(t) = t {
                            hash_state.dispatch(Action::Seek(t));
                        }
                    }
                    Ok(None) => {}
                    Err(message) => hash_state.dispatch(Action::Reject(format!("The link's scenario could not be used ({message}); the last good scenario stays."))),
                }
                },
            );
            move || drop(listener)
        });
    }

    // The animation loop: one requestAnimationFrame per render while playing; dropping the
    // handle (on pause or unmount) cancels it.
    {
        let handle_state = state.clone();
        // The first frame of a play only records its timestamp, so the deps include it too.
        use_effect_with((state.playing, state.playhead, state.last_frame_ms), move |&(playing, _, _)| {
            let frame = playing.then(|| {
                gloo::render::request_animation_frame(move |now_ms| {
                    handle_state.dispatch(Action::Frame { now_ms })
                })
            });
            move || drop(frame)
        });
    }

    // Keyboard: space plays and pauses, arrows step, Home and End jump.
    {
        let key_state = state.clone();
        use_effect_with((), move |_| {
            let options = gloo::events::EventListenerOptions::enable_prevent_default();
            let listener = gloo::events::EventListener::new_with_options(
                &gloo::utils::document(),
                "keydown",
                options,
                move |event| {
                    let Some(event) = event.dyn_ref::<web_sys::KeyboardEvent>() else { return };
                    let in_field = event
                        .target()
                        .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
                        .map(|element| matches!(element.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"))
                        .unwrap_or(false);
                    if in_field || event.ctrl_key() || event.meta_key() || event.alt_key() {
                        return;
                    }
                    // Space on a focused button presses that button, as everywhere else.
                    let on_button = event
                        .target()
                        .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
                        .map(|element| element.tag_name() == "BUTTON")
                        .unwrap_or(false);
                    if on_button && event.key() == " " {
                        return;
                    }
                    let action = match event.key().as_str() {
                        " " => Action::TogglePlay,
                        "ArrowRight" => Action::StepForward,
                        "ArrowLeft" => Action::StepBack,
                        "Home" => Action::ToStart,
                        "End" => Action::ToEnd,
                        _ => return,
                    };
                    event.prevent_default();
                    key_state.dispatch(action);
                },
            );
            move || drop(listener)
        });
    }

    let lang = state.lang;
    if state.embed {
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
            if let Some(message) = &state.error {
                <div id="error" class="banner error" role="alert">
                    <strong>{ message.clone() }</strong>
                    <span>{ " " }{ t(lang, Text::InvalidInput) }</span>
                    <button onclick={ let s = state.clone(); move |_| s.dispatch(Action::DismissError) }>{ t(lang, Text::DismissError) }</button>
                </div>
            }
            if let Some(pending) = &state.pending {
                <div id="progress" class="banner notice" role="status" aria-live="polite">
                    <progress max="1" value={pending.job.borrow().progress().to_string()}></progress>
                    <span>{ match lang {
                        Lang::En => format!(" Simulating {} nodes… {:.0}% of this run, {:.1} s so far; the last result stays until it is done.",
                            pending.scenario.nodes, 100.0 * pending.job.borrow().progress(), pending.spent_ms.get() / 1e3),
                        Lang::Zh => format!(" 正在模拟 {} 个节点… 本轮已完成 {:.0}%，已用 {:.1} 秒；完成前仍显示上一次的结果。",
                            pending.scenario.nodes, 100.0 * pending.job.borrow().progress(), pending.spent_ms.get() / 1e3),
                    } }</span>
                    <button id="cancel" onclick={ let s = state.clone(); move |_| s.dispatch(Action::Cancel) }>{ crate::i18n::pick(lang, "Cancel", "取消") }</button>
                </div>
            }
            if let Some(message) = &state.notice {
                <div id="notice" class="banner notice" role="status">
                    <span>{ message.clone() }</span>
                    <button id="use-default" onclick={ let s = state.clone(); move |_| s.dispatch(Action::SetScenario(Scenario::default_demo())) }>{ t(lang, Text::UseDefault) }</button>
                    <button onclick={ let s = state.clone(); move |_| s.dispatch(Action::DismissNotice) }>{ t(lang, Text::DismissError) }</button>
                </div>
            }
            <div class="columns">
                <aside class="panel controls">
                    <Controls handle={Handle(state.clone())} scenario={state.scenario.clone()} lang={state.lang}
                        comparing={state.other.is_some()} editing_b={state.editing_b}
                        sim={Rc::as_ptr(&state.sim) as usize} />
                </aside>
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
                    </section>
                    <div class="lower">
                        <section class="panel results"><Results state={state.clone()} /></section>
                        <div class="side">
                            <section class="panel chart"><Chart state={state.clone()} /></section>
                            <section class="panel share"><ShareExport handle={Handle(state.clone())} sim={Rc::as_ptr(&state.sim) as usize} lang={state.lang} /></section>
                        </div>
                    </div>
                </div>
            </div>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ShareProps {
    handle: Handle<AppState>,
    /// The simulation's identity: the exports are of this run.
    sim: usize,
    lang: Lang,
}

/// Copy a link to this view or the code that embeds it, and export the run.
#[function_component(ShareExport)]
fn share_export(props: &ShareProps) -> Html {
    let state = &props.handle.0;
    let lang = props.lang;
    let shown = use_state(|| None::<String>);
    let share = |embed: bool| {
        let shown = shown.clone();
        let s = state.clone();
        Callback::from(move |_| {
            let (origin, path) = (location::origin(), location::pathname());
            let fragment = crate::services::url::encode(&s.scenario, Some(s.playhead));
            let text = if embed {
                format!("<iframe src=\"{origin}{path}?embed{fragment}\" width=\"100%\" height=\"760\" style=\"border:0\" title=\"Fabricscope\" loading=\"lazy\"></iframe>")
            } else {
                format!("{origin}{path}{fragment}")
            };
            // Where the browser refuses the clipboard, the text is shown to select.
            clipboard::copy(&text);
            shown.set(Some(text));
        })
    };
    let export_json = {
        let s = state.clone();
        Callback::from(move |_| {
            let sim = &s.sim;
            let value = serde_json::json!({
                "scenario": s.scenario,
                "summary": sim.summary,
                "algorithm": sim.schedule.algorithm,
                "protocol": sim.schedule.protocol,
                "tuning": sim.tuning,
                "alpha_beta": sim.alpha_beta(),
                "trace_hash": sim.hash_hex(),
            });
            download(
                "fabricscope-run.json",
                "application/json",
                &serde_json::to_string_pretty(&value).unwrap_or_default(),
            );
        })
    };
    let export_links = {
        let s = state.clone();
        Callback::from(move |_| download("fabricscope-links.csv", "text/csv", &s.sim.links_csv()))
    };
    let export_transfers = {
        let s = state.clone();
        Callback::from(move |_| download("fabricscope-transfers.csv", "text/csv", &s.sim.transfers_csv()))
    };
    let export_png = Callback::from(move |_| export_canvas_png("topology", "fabricscope-topology.png"));
    // The topology as SVG: the same painter as the canvas, at the canvas's width and time, with
    // the node it has open, in the light theme (for documents).
    let export_svg = {
        let s = state.clone();
        Callback::from(move |_| {
            let canvas = gloo::utils::document().get_element_by_id("topology");
            let width = canvas
                .as_ref()
                .and_then(|c| c.parent_element())
                .map(|p| p.client_width() as f64)
                .unwrap_or(1100.0)
                .max(320.0);
            let expanded = canvas.and_then(|c| c.get_attribute("data-expanded")).and_then(|e| e.parse().ok());
            let svg = topology_svg(&s.sim, width, expanded, s.playhead, s.lang, &s.focus);
            download("fabricscope-topology.svg", "image/svg+xml", &svg);
        })
    };
    html! {
        <>
            <h2>{ crate::i18n::pick(lang, "Share and export", "分享与导出") }</h2>
            <div class="buttons">
                <button id="copy-link" onclick={share(false)}>{ crate::i18n::pick(lang, "Copy link", "复制链接") }</button>
                <button id="copy-embed" onclick={share(true)}>{ crate::i18n::pick(lang, "Copy embed code", "复制嵌入代码") }</button>
            </div>
            if let Some(text) = &*shown {
                <input id="share-text" class="share-text" readonly=true value={text.clone()} aria-label={crate::i18n::pick(lang, "Link or embed code", "链接或嵌入代码")} />
                <p class="hint">{ crate::i18n::pick(lang, "Copied to the clipboard where the browser allows it; otherwise select it above.", "浏览器允许时已复制到剪贴板；否则请选中上面的文本。") }</p>
            }
            <div class="buttons">
                <button id="export-json" onclick={export_json}>{ "JSON" }</button>
                <button id="export-links" onclick={export_links}>{ crate::i18n::pick(lang, "Links CSV", "链路 CSV") }</button>
                <button id="export-transfers" onclick={export_transfers}>{ crate::i18n::pick(lang, "Per-rank timeline CSV", "各 rank 时间线 CSV") }</button>
                <button id="export-png" onclick={export_png}>{ crate::i18n::pick(lang, "Topology PNG", "拓扑 PNG") }</button>
                <button id="export-topology-svg" onclick={export_svg}>{ crate::i18n::pick(lang, "Topology SVG", "拓扑 SVG") }</button>
            </div>
        </>
    }
}

#[derive(Properties, PartialEq)]
struct Props {
    state: State,
}

/// A reducer handle as a prop that never differs: a component given one re-renders only
/// when its other props change. Both views' controls use it so that animation frames and
/// results filling in do not re-render (and so reset) a field the user is typing into.
pub struct Handle<T: Reducible>(pub UseReducerHandle<T>);

impl<T: Reducible> Clone for Handle<T> {
    fn clone(&self) -> Self {
        Handle(self.0.clone())
    }
}

impl<T: Reducible> PartialEq for Handle<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// What the controls show: they re-render when one of these changes.
#[derive(Properties, PartialEq)]
struct ControlsProps {
    handle: Handle<AppState>,
    scenario: Scenario,
    lang: Lang,
    /// Comparing A and B, and which one these controls edit.
    #[prop_or_default]
    comparing: bool,
    #[prop_or_default]
    editing_b: bool,
    /// The simulation's identity (its address), for the figures derived from it.
    sim: usize,
}

#[derive(Properties, PartialEq)]
struct HeaderProps {
    state: State,
    on_mode: Callback<Mode>,
}

#[function_component(Header)]
fn header(props: &HeaderProps) -> Html {
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
                <div class="segmented tabs" role="group" aria-label={ crate::i18n::pick(lang, "View", "视图") }>
                    <button id="mode-collectives" aria-pressed={(props.mode == Mode::Collectives).to_string()} onclick={set_mode(Mode::Collectives)}>{ crate::i18n::pick(lang, "Collectives", "集合通信") }</button>
                    <button id="mode-training" aria-pressed={(props.mode == Mode::Training).to_string()} onclick={set_mode(Mode::Training)}>{ crate::i18n::pick(lang, "Training job", "训练作业") }</button>
                </div>
                <div class="segmented" role="group" aria-label="Language / 语言">
                    <button id="lang-en" aria-pressed={(lang == Lang::En).to_string()} onclick={set_lang(Lang::En)}>{ "English" }</button>
                    <button id="lang-zh" aria-pressed={(lang == Lang::Zh).to_string()} onclick={set_lang(Lang::Zh)}>{ "中文" }</button>
                </div>
                <button id="theme" aria-pressed={props.dark.to_string()} onclick={toggle_dark}>{ t(lang, Text::Theme) }</button>
            </div>
        </header>
    }
}

/// Applies `change` to a copy of the current scenario and submits it.
fn edit(state: &State, change: impl Fn(&mut Scenario) + 'static) -> impl Fn(Scenario) {
    let s = state.clone();
    move |mut scenario: Scenario| {
        change(&mut scenario);
        s.dispatch(Action::SetScenario(scenario));
    }
}

fn select_value(event: &Event) -> String {
    event.target_unchecked_into::<HtmlSelectElement>().value()
}

fn input_value(event: &Event) -> String {
    event.target_unchecked_into::<HtmlInputElement>().value()
}

/// An optional number field: empty means "the preset's value"; anything else must parse.
fn number_field(
    state: &State,
    field: &'static str,
    raw: String,
    apply: impl Fn(&mut Scenario, Option<f64>) + 'static,
) {
    let text = raw.trim().to_string();
    let value = if text.is_empty() {
        None
    } else {
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Some(v),
            _ => {
                state.dispatch(Action::Reject(format!("{field}: '{text}' is not a number")));
                return;
            }
        }
    };
    let mut scenario = state.scenario.clone();
    apply(&mut scenario, value);
    state.dispatch(Action::SetScenario(scenario));
}

#[function_component(Controls)]
fn controls(props: &ControlsProps) -> Html {
    let state = &props.handle.0;
    let lang = state.lang;
    let scenario = &state.scenario;
    let preset = state.sim.scenario.preset();

    let on_preset = {
        let s = state.clone();
        Callback::from(move |e: Event| {
            let id = select_value(&e);
            edit(&s, move |sc| {
                sc.preset = id.clone();
                sc.custom = (id == "custom").then(|| sc.custom.clone().unwrap_or_else(default_custom));
            })(s.scenario.clone());
        })
    };
    let on_nodes = {
        let s = state.clone();
        Callback::from(move |e: Event| {
            let text = select_value(&e);
            match text.parse::<u32>() {
                Ok(nodes) => edit(&s, move |sc| sc.nodes = nodes)(s.scenario.clone()),
                Err(_) => s.dispatch(Action::Reject(format!("nodes: '{text}' is not a whole number"))),
            }
        })
    };
    let on_size = {
        let s = state.clone();
        Callback::from(move |e: InputEvent| {
            let text = e.target_unchecked_into::<HtmlInputElement>().value();
            match text.parse::<u32>() {
                Ok(exp) if exp < 40 => edit(&s, move |sc| sc.size_bytes = 1u64 << exp)(s.scenario.clone()),
                _ => s.dispatch(Action::Reject(format!("size_bytes: '{text}' is not a size"))),
            }
        })
    };
    let on_channels = {
        let s = state.clone();
        Callback::from(move |e: Event| {
            let text = select_value(&e);
            let channels = text.parse::<u32>().ok();
            edit(&s, move |sc| sc.channels = channels)(s.scenario.clone());
        })
    };
    let on_nvlink = {
        let s = state.clone();
        Callback::from(move |e: Event| {
            number_field(&s, "links.nvlink.bandwidth_gbyte_per_s", input_value(&e), |sc, v| {
                sc.links.nvlink.bandwidth_gbyte_per_s = v
            })
        })
    };
    let on_nic = {
        let s = state.clone();
        Callback::from(move |e: Event| {
            // The page takes Gb/s, as NICs are sold; the scenario stores GB/s.
            number_field(&s, "links.nic.bandwidth_gbyte_per_s", input_value(&e), |sc, v| {
                sc.links.nic.bandwidth_gbyte_per_s = v.map(|gbit| gbit / 8.0)
            })
        })
    };
    let on_nic_latency = {
        let s = state.clone();
        Callback::from(move |e: Event| {
            let raw = input_value(&e);
            let text = raw.trim().to_string();
            if text.is_empty() {
                return edit(&s, |sc| sc.links.nic.latency_ns = None)(s.scenario.clone());
            }
            match text.parse::<u64>() {
                Ok(ns) => edit(&s, move |sc| sc.links.nic.latency_ns = Some(ns))(s.scenario.clone()),
                Err(_) => s.dispatch(Action::Reject(format!(
                    "links.nic.latency_ns: '{text}' is not a whole number of ns"
                ))),
            }
        })
    };

    let fabric = &scenario.fabric;
    let size_exp = 63 - scenario.size_bytes.max(1).leading_zeros();
    let nvlink_per_gpu = preset.nvlink.line_rate_gbyte_per_s * preset.gpu.nvlink_links as f64;
    let nvlink_value = scenario.links.nvlink.bandwidth_gbyte_per_s.unwrap_or(nvlink_per_gpu);
    let nic_value =
        scenario.links.nic.bandwidth_gbyte_per_s.unwrap_or(preset.nic.line_rate_gbyte_per_s) * 8.0;
    let nic_latency = scenario.links.nic.latency_ns.unwrap_or(preset.nic.latency_ns);
    let compare = {
        let s = state.clone();
        let on = !props.comparing;
        Callback::from(move |_| s.dispatch(Action::Compare(on)))
    };
    let edit_side = |b: bool| {
        let s = state.clone();
        Callback::from(move |_| s.dispatch(Action::EditB(b)))
    };
    html! {
        <>
            <div class="compare-bar">
                <button id="compare" aria-pressed={props.comparing.to_string()} onclick={compare}>
                    { if props.comparing { crate::i18n::pick(lang, "Stop comparing", "结束对比") } else { crate::i18n::pick(lang, "Compare A / B", "对比 A / B") } }
                </button>
                if props.comparing {
                    <div class="segmented" role="group" aria-label={crate::i18n::pick(lang, "Which to edit", "编辑哪一个")}>
                        <button id="edit-a" aria-pressed={(!props.editing_b).to_string()} onclick={edit_side(false)}>{ crate::i18n::pick(lang, "Edit A", "编辑 A") }</button>
                        <button id="edit-b" aria-pressed={props.editing_b.to_string()} onclick={edit_side(true)}>{ crate::i18n::pick(lang, "Edit B", "编辑 B") }</button>
                    </div>
                }
            </div>
            <h2>{ t(lang, Text::Hardware) }</h2>
            <label>{ t(lang, Text::Preset) }
                <select id="preset" onchange={on_preset}>
                    { for NODE_PRESETS.iter().map(|p| html! {
                        <option value={p.id} selected={p.id == scenario.preset}>
                            { format!("{} — {}× {}, {}× {}", p.name, p.gpus_per_node, p.gpu.name, p.nics_per_node, p.nic.name) }
                        </option>
                    }) }
                    <option value="custom" selected={scenario.preset == "custom"}>{ t(lang, Text::CustomNode) }</option>
                </select>
            </label>
            if let Some(custom) = &scenario.custom {
                <CustomControls handle={Handle(state.clone())} custom={custom.clone()} lang={lang} />
            }
            <label>{ t(lang, Text::Nodes) }
                <select id="nodes" onchange={on_nodes}>
                    { for PAGE_NODES.iter().copied().map(|n| html! {
                        <option value={n.to_string()} selected={n == scenario.nodes}>
                            { format!("{n} ({} GPUs)", n * preset.gpus_per_node) }
                        </option>
                    }) }
                </select>
            </label>
            <label>{ t(lang, Text::NvlinkBandwidth) }
                <input id="nvlink-bw" type="number" min="1" step="any" value={format!("{nvlink_value}")} onchange={on_nvlink} />
            </label>
            <label>{ t(lang, Text::NicPart) }
                <select id="nic-part" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let name = select_value(&e);
                    let rate = fabricscope::catalog::NICS.iter().find(|n| n.name == name).map(|n| n.line_rate_gbyte_per_s);
                    edit(&s, move |sc| sc.links.nic.bandwidth_gbyte_per_s = rate)(s.scenario.clone());
                }) }>
                    <option value="preset" selected={scenario.links.nic.bandwidth_gbyte_per_s.is_none()}>
                        { format!("{} ({})", t(lang, Text::Default), preset.nic.name) }
                    </option>
                    { for fabricscope::catalog::NICS.iter().map(|n| html! {
                        <option value={n.name} selected={scenario.links.nic.bandwidth_gbyte_per_s == Some(n.line_rate_gbyte_per_s)}>{ n.name }</option>
                    }) }
                </select>
            </label>
            <label>{ t(lang, Text::NicBandwidth) }
                <input id="nic-bw" type="number" min="1" step="any" value={format!("{nic_value}")} onchange={on_nic} />
            </label>
            <label>{ t(lang, Text::NicLatency) }
                <input id="nic-latency" type="number" min="0" step="1" value={nic_latency.to_string()} onchange={on_nic_latency} />
            </label>
            <label>{ t(lang, Text::NicsUsed) }
                <select id="nics-used" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let used = select_value(&e).parse::<u32>().ok();
                    edit(&s, move |sc| sc.nics_used = used)(s.scenario.clone());
                }) }>
                    <option value="all" selected={scenario.nics_used.is_none()}>{ format!("{} ({})", t(lang, Text::Default), preset.nics_per_node) }</option>
                    { for (1..=preset.nics_per_node).rev().map(|k| html! {
                        <option value={k.to_string()} selected={scenario.nics_used == Some(k)}>{ k.to_string() }</option>
                    }) }
                </select>
            </label>
            <label>{ t(lang, Text::Pinning) }
                <select id="pinning" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let pinning = parse_id(&select_value(&e)).unwrap_or_default();
                    edit(&s, move |sc| sc.pinning = pinning)(s.scenario.clone());
                }) }>
                    { for ["aligned", "misaligned"].iter().map(|&c| html! {
                        <option value={c} selected={id_of(&scenario.pinning) == c}>{ i18n::choice(lang, c) }</option>
                    }) }
                </select>
            </label>
            <label class="check">
                <input id="virtualized" type="checkbox" checked={scenario.virtualized} onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let on = e.target_unchecked_into::<HtmlInputElement>().checked();
                    edit(&s, move |sc| sc.virtualized = on)(s.scenario.clone());
                }) } />
                { t(lang, Text::Virtualized) }
            </label>
            <h2>{ t(lang, Text::Fabric) }</h2>
            { fabric_select(state, "technology", t(lang, Text::Technology), &["infiniband", "roce", "tcp", "efa"], &id_of(&fabric.technology), false,
                |f, v| f.technology = parse_id(v).unwrap_or_default()) }
            { fabric_select(state, "fabric-topology", t(lang, Text::FabricShape), &["auto", "single_switch", "leaf_spine", "fat_tree"], &id_of(&fabric.topology), false,
                |f, v| f.topology = parse_id(v).unwrap_or_default()) }
            { fabric_select(state, "wiring", t(lang, Text::Wiring), &["rail", "node"], &id_of(&fabric.wiring), false,
                |f, v| f.wiring = parse_id(v).unwrap_or_default()) }
            { fabric_select(state, "routing", t(lang, Text::Routing), &["static", "ecmp", "adaptive"], &fabric.routing.map(|r| id_of(&r)).unwrap_or_default(), true,
                |f, v| f.routing = parse_id(v)) }
            <label>{ t(lang, Text::Oversubscription) }
                <select id="oversubscription" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let text = select_value(&e);
                    match text.parse::<f64>() {
                        Ok(r) => edit(&s, move |sc| sc.fabric.oversubscription = r)(s.scenario.clone()),
                        Err(_) => s.dispatch(Action::Reject(format!("fabric.oversubscription: '{text}' is not a number"))),
                    }
                }) }>
                    { for [1.0f64, 2.0, 3.0, 4.0].iter().map(|&r| html! {
                        <option value={r.to_string()} selected={fabric.oversubscription == r}>{ format!("{r}:1") }</option>
                    }) }
                </select>
            </label>
            <label>{ t(lang, Text::Radix) }
                <select id="radix" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let radix = select_value(&e).parse::<u32>().ok();
                    edit(&s, move |sc| sc.fabric.radix = radix)(s.scenario.clone());
                }) }>
                    <option value="default" selected={fabric.radix.is_none()}>{ format!("{} ({})", t(lang, Text::Default), preset.switch_radix) }</option>
                    { for [8u32, 16, 32, 40, 64, 128].iter().map(|&k| html! {
                        <option value={k.to_string()} selected={fabric.radix == Some(k)}>{ k.to_string() }</option>
                    }) }
                </select>
            </label>
            <p id="fabric-summary" class="formula">{ fabric_line(state) }</p>
            <h2>{ t(lang, Text::Collective) }</h2>
            <label>
                <select id="collective" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let collective = parse_id(&select_value(&e)).unwrap_or(fabricscope::Collective::AllReduce);
                    edit(&s, move |sc| {
                        sc.collective = collective;
                        if collective != fabricscope::Collective::AllReduce {
                            sc.algorithm = None;
                        }
                    })(s.scenario.clone());
                }) }>
                    { for fabricscope::Collective::ALL.iter().map(|&c| html! {
                        <option value={id_of(&c)} selected={c == scenario.collective}>{ i18n::collective(lang, c) }</option>
                    }) }
                </select>
            </label>
            if scenario.collective == fabricscope::Collective::AllReduce {
                <label>{ t(lang, Text::Algorithm) }
                    <select id="algorithm" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                        let algorithm = parse_id(&select_value(&e));
                        edit(&s, move |sc| sc.algorithm = algorithm)(s.scenario.clone());
                    }) }>
                        <option value="auto" selected={scenario.algorithm.is_none()}>
                            { format!("{} ({})", t(lang, Text::TunerChoice), state.sim.tuning.choice().algorithm.nccl_name()) }
                        </option>
                        // The algorithms the tuner weighed on this hardware (NVLS where the
                        // NVSwitch reduces, Hierarchical across nodes).
                        { for algorithms_of(&state.sim.tuning).into_iter().map(|a| html! {
                            <option value={id_of(&a)} selected={scenario.algorithm == Some(a)}>{ a.nccl_name() }</option>
                        }) }
                    </select>
                </label>
                if fabricscope::collective::nvls::supported(&state.sim.scenario) || fabricscope::collective::sharp_supported(&state.sim.scenario) {
                    <label class="check">
                        <input id="in-network" type="checkbox" checked={scenario.in_network} onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                            let on = e.target_unchecked_into::<HtmlInputElement>().checked();
                            edit(&s, move |sc| sc.in_network = on)(s.scenario.clone());
                        }) } />
                        { if scenario.nodes > 1 {
                            crate::i18n::pick(lang, "In-network reduction: SHARP in the InfiniBand switches (CollNet, NCCL_COLLNET_ENABLE)", "网络内归约：在 InfiniBand 交换机中做 SHARP（CollNet，NCCL_COLLNET_ENABLE）")
                        } else {
                            crate::i18n::pick(lang, "In-network reduction: NVLS in the NVSwitch (NCCL_NVLS_ENABLE)", "网络内归约：在 NVSwitch 中做 NVLS（NCCL_NVLS_ENABLE）")
                        } }
                    </label>
                }
            }
            <label>{ t(lang, Text::Protocol) }
                <select id="protocol" onchange={ let s = state.clone(); Callback::from(move |e: Event| {
                    let protocol = parse_id(&select_value(&e));
                    edit(&s, move |sc| sc.protocol = protocol)(s.scenario.clone());
                }) }>
                    <option value="auto" selected={scenario.protocol.is_none()}>
                        { format!("{} ({})", t(lang, Text::TunerChoice), state.sim.tuning.choice().protocol.nccl_name()) }
                    </option>
                    { for fabricscope::collective::Protocol::ALL.iter().map(|&p| html! {
                        <option value={id_of(&p)} selected={scenario.protocol == Some(p)}>{ p.nccl_name() }</option>
                    }) }
                </select>
            </label>
            <p class="algo">{ format!("{} · {} · {}", scenario.collective.nccl_name(), state.sim.schedule.algorithm.nccl_name(), state.sim.schedule.protocol.nccl_name()) }<br />
                <code>{ format!("NCCL_ALGO={} NCCL_PROTO={}", state.sim.schedule.algorithm.nccl_name(), state.sim.schedule.protocol.nccl_name()) }</code></p>
            <label>{ t(lang, Text::MessageSize) }{ ": " }<output id="size-label">{ format_bytes(scenario.size_bytes) }</output>
                <input id="size" type="range" min="10" max="32" step="1" value={size_exp.to_string()} oninput={on_size} />
            </label>
            <label>{ t(lang, Text::Channels) }
                <select id="channels" onchange={on_channels}>
                    <option value="auto" selected={scenario.channels.is_none()}>
                        { format!("{} ({})", t(lang, Text::Auto), state.sim.scenario.channels()) }
                    </option>
                    { for [1u32, 2, 4, 8, 16].iter().map(|&c| html! {
                        <option value={c.to_string()} selected={scenario.channels == Some(c)}>{ c.to_string() }</option>
                    }) }
                </select>
            </label>
        </>
    }
}

fn default_custom() -> CustomNode {
    CustomNode {
        shape: CustomShape::Ring,
        gpus: 8,
        link: CustomLink { bandwidth_gbyte_per_s: 100.0, latency_ns: 250, efficiency: 1.0 },
    }
}

#[derive(Properties, PartialEq)]
struct CustomProps {
    handle: Handle<AppState>,
    custom: CustomNode,
    lang: Lang,
}

/// Shape, GPU count and link of a custom node.
#[function_component(CustomControls)]
fn custom_controls(props: &CustomProps) -> Html {
    let (state, custom) = (&props.handle.0, &props.custom);
    let lang = state.lang;
    let change = |apply: fn(&mut CustomNode, &str) -> Result<(), String>| {
        let s = state.clone();
        Callback::from(move |e: Event| {
            let value = e.target_unchecked_into::<HtmlInputElement>().value();
            let mut scenario = s.scenario.clone();
            let Some(custom) = scenario.custom.as_mut() else { return };
            match apply(custom, value.trim()) {
                Ok(()) => s.dispatch(Action::SetScenario(scenario)),
                Err(message) => s.dispatch(Action::Reject(message)),
            }
        })
    };
    let on_shape = change(|c, v| {
        parse_id(v).map(|shape| c.shape = shape).ok_or_else(|| format!("custom.shape: '{v}' is not a shape"))
    });
    let on_gpus = change(|c, v| {
        v.parse().map(|n| c.gpus = n).map_err(|_| format!("custom.gpus: '{v}' is not a whole number"))
    });
    let on_bandwidth = change(|c, v| {
        v.parse()
            .map(|b| c.link.bandwidth_gbyte_per_s = b)
            .map_err(|_| format!("custom.link.bandwidth_gbyte_per_s: '{v}' is not a number"))
    });
    let on_latency = change(|c, v| {
        v.parse()
            .map(|l| c.link.latency_ns = l)
            .map_err(|_| format!("custom.link.latency_ns: '{v}' is not a whole number"))
    });
    html! {
        <div class="custom">
            <label>{ t(lang, Text::Shape) }
                <select id="custom-shape" onchange={on_shape}>
                    { for ["ring", "star", "full_mesh"].iter().map(|&c| html! {
                        <option value={c} selected={id_of(&custom.shape) == c}>{ i18n::choice(lang, c) }</option>
                    }) }
                </select>
            </label>
            <label>{ t(lang, Text::GpusPerNode) }
                <input id="custom-gpus" type="number" min="2" max="64" step="1" value={custom.gpus.to_string()} onchange={on_gpus} />
            </label>
            <label>{ t(lang, Text::LinkBandwidth) }
                <input id="custom-bw" type="number" min="1" step="any" value={custom.link.bandwidth_gbyte_per_s.to_string()} onchange={on_bandwidth} />
            </label>
            <label>{ t(lang, Text::LinkLatency) }
                <input id="custom-latency" type="number" min="0" step="1" value={custom.link.latency_ns.to_string()} onchange={on_latency} />
            </label>
        </div>
    }
}

/// Node counts the page offers (the CLI takes any the fabric holds). Up to 8 nodes every node is
/// drawn in full; beyond, the cluster is drawn compact. What the page simulates is bounded by
/// `state::PAGE_MAX_TRANSFERS` (rings that settle run as a steady state at any of these sizes).
const PAGE_NODES: [u32; 11] = [1, 2, 3, 4, 6, 8, 16, 32, 64, 128, 256];

/// The serde name of an enum value ("roce", "leaf_spine").
/// The tuner's algorithms, each once, in its table's order.
fn algorithms_of(tuning: &fabricscope::collective::Tuning) -> Vec<fabricscope::collective::Algorithm> {
    let mut list = Vec::new();
    for row in &tuning.rows {
        if !list.contains(&row.algorithm) {
            list.push(row.algorithm);
        }
    }
    list
}

fn id_of<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

fn parse_id<T: serde::de::DeserializeOwned>(id: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(id.to_string())).ok()
}

/// A select over one fabric field; `with_default` adds a "default" choice stored as `None`.
fn fabric_select(
    state: &State,
    id: &'static str,
    label: &'static str,
    choices: &'static [&'static str],
    current: &str,
    with_default: bool,
    apply: fn(&mut fabricscope::scenario::FabricConfig, &str),
) -> Html {
    let lang = state.lang;
    let s = state.clone();
    let onchange = Callback::from(move |e: Event| {
        let value = select_value(&e);
        let mut scenario = s.scenario.clone();
        apply(&mut scenario.fabric, &value);
        s.dispatch(Action::SetScenario(scenario));
    });
    let default_name = if with_default {
        let routing = state.sim.scenario.scenario().fabric.technology.spec().default_routing;
        Some(format!("{} ({})", t(lang, Text::Default), i18n::choice(lang, &id_of(&routing))))
    } else {
        None
    };
    html! {
        <label>{ label }
            <select id={id} {onchange}>
                if let Some(name) = default_name {
                    <option value="default" selected={current.is_empty()}>{ name }</option>
                }
                { for choices.iter().map(|&c| html! { <option value={c} selected={c == current}>{ i18n::choice(lang, c) }</option> }) }
            </select>
        </label>
    }
}

/// "leaf-spine: 8 leaves, 32 spines · 72 cables · bisection 3.2 TB/s · diameter 3".
fn fabric_line(state: &AppState) -> String {
    let summary = state.sim.topology.fabric_summary();
    let plan = state.sim.scenario.fabric_plan();
    let tech = state.sim.scenario.scenario().fabric.technology.spec();
    match state.lang {
        Lang::En => format!(
            "{} leaves, {} spines, {} cores · {} switches, {} cables · bisection {:.0} GB/s · diameter {} switch hops · {}, {} ns NIC, {} ns per switch",
            plan.leaves, plan.spines, plan.cores, summary.switches, summary.cables, summary.bisection_gbyte_per_s, summary.diameter,
            tech.flow_control, tech.nic_latency_ns, tech.switch_hop_latency_ns
        ),
        Lang::Zh => format!(
            "{} 台叶交换机、{} 台脊交换机、{} 台核心交换机 · 共 {} 台交换机、{} 根线缆 · 对分带宽 {:.0} GB/s · 直径 {} 跳 · {}，网卡时延 {} ns，每跳 {} ns",
            plan.leaves, plan.spines, plan.cores, summary.switches, summary.cables, summary.bisection_gbyte_per_s, summary.diameter,
            i18n::flow_control(Lang::Zh, tech.technology), tech.nic_latency_ns, tech.switch_hop_latency_ns
        ),
    }
}

/// Which run a topology view shows: the only one, or A or B of a comparison.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Side {
    #[default]
    Single,
    A,
    B,
}

#[derive(Properties, PartialEq)]
struct TopologyProps {
    state: State,
    #[prop_or_default]
    side: Side,
}

/// A/B in words and numbers: which is faster, by how much, and where each is bound.
fn ab_diff(state: &AppState) -> String {
    let Some(((_, a), (_, b))) = state.ab() else { return String::new() };
    let lang = state.lang;
    let (ta, tb) = (a.summary.time.as_ns() as f64, b.summary.time.as_ns() as f64);
    let bound = |sim: &fabricscope::Simulation| {
        sim.summary
            .bottleneck
            .map(|id| {
                let link = sim.topology.link(id);
                format!(
                    "{} ({:.0}%)",
                    i18n::link_kind(lang, link.kind, network_name(sim)),
                    100.0 * sim.summary.bottleneck_utilisation
                )
            })
            .unwrap_or_else(|| "—".into())
    };
    let change = 100.0 * (tb / ta.max(1.0) - 1.0);
    match lang {
        Lang::En => format!(
            "B takes {} {} A ({} vs {}); busbw {:.1} vs {:.1} GB/s; A is bound by {}, B by {}.",
            if change.abs() < 10.0 {
                format!("{:.1}%", change.abs())
            } else {
                format!("{:.0}%", change.abs())
            },
            if change >= 0.0 { "longer than" } else { "less time than" },
            format_duration_ns(tb),
            format_duration_ns(ta),
            b.summary.busbw_gbyte_per_s,
            a.summary.busbw_gbyte_per_s,
            bound(a),
            bound(b)
        ),
        Lang::Zh => format!(
            "B 比 A {} {}（{} 对 {}）；busbw {:.1} 对 {:.1} GB/s；A 的瓶颈是 {}，B 的是 {}。",
            if change >= 0.0 { "慢" } else { "快" },
            if change.abs() < 10.0 {
                format!("{:.1}%", change.abs())
            } else {
                format!("{:.0}%", change.abs())
            },
            format_duration_ns(tb),
            format_duration_ns(ta),
            b.summary.busbw_gbyte_per_s,
            a.summary.busbw_gbyte_per_s,
            bound(a),
            bound(b)
        ),
    }
}

#[function_component(TopologyView)]
fn topology_view(props: &TopologyProps) -> Html {
    let state = &props.state;
    let side = props.side;
    let shown: Rc<fabricscope::Simulation> = match (side, state.ab()) {
        (Side::A, Some(((_, a), _))) => a.clone(),
        (Side::B, Some((_, (_, b)))) => b.clone(),
        _ => state.sim.clone(),
    };
    let canvas_ref = use_node_ref();
    let hovered = use_state(|| None::<LinkId>);
    // A compact cluster's node drawn in full (clicked), and the tile under the pointer.
    let expanded = use_state(|| None::<u32>);
    let hovered_node = use_state(|| None::<u32>);
    let resized = use_state(|| 0u32);
    // The layout the canvas was last painted with: reused by every frame of one simulation at
    // one width, and by hover hit-testing, instead of being rebuilt each time.
    let layout_cache: Rc<std::cell::RefCell<Option<LayoutCache>>> = use_mut_ref(|| None);
    {
        let resized = resized.clone();
        use_effect_with((), move |_| {
            let listener = gloo::events::EventListener::new(&gloo::utils::window(), "resize", move |_| {
                resized.set(*resized + 1)
            });
            move || drop(listener)
        });
    }
    {
        let canvas_ref = canvas_ref.clone();
        let sim = shown.clone();
        let cache = layout_cache.clone();
        let focus = state.focus.clone();
        // The simulation is compared by identity: a new one is a new Rc.
        let deps = (
            Rc::as_ptr(&sim) as usize,
            state.playhead,
            state.lang,
            state.dark,
            *resized,
            state.focus.clone(),
            *expanded,
        );
        use_effect_with(deps, move |&(_, playhead, lang, dark, _, _, expanded)| {
            if let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() {
                paint_topology(&canvas, &sim, &cache, playhead, lang, dark, &focus, expanded);
            }
        });
    }
    let on_move = {
        let hovered = hovered.clone();
        let hovered_node = hovered_node.clone();
        let canvas_ref = canvas_ref.clone();
        let cache = layout_cache.clone();
        Callback::from(move |e: MouseEvent| {
            let Some((layout, x, y)) = pointer(&canvas_ref, &cache, &e) else { return };
            let found = layout.link_at(x, y);
            if *hovered != found {
                hovered.set(found);
            }
            let node = layout.node_at(x, y).filter(|&n| layout.is_tile(n));
            if *hovered_node != node {
                hovered_node.set(node);
            }
        })
    };
    let on_leave = {
        let hovered = hovered.clone();
        let hovered_node = hovered_node.clone();
        Callback::from(move |_| {
            hovered.set(None);
            hovered_node.set(None);
        })
    };
    // Clicking a tile opens that node in full; clicking the open node closes it.
    let on_click = {
        let expanded = expanded.clone();
        let canvas_ref = canvas_ref.clone();
        let cache = layout_cache.clone();
        Callback::from(move |e: MouseEvent| {
            let Some((layout, x, y)) = pointer(&canvas_ref, &cache, &e) else { return };
            if let (true, Some(node)) = (layout.compact, layout.node_at(x, y)) {
                expanded.set(if *expanded == Some(node) { None } else { Some(node) });
            }
        })
    };
    let info = match (*hovered, *hovered_node) {
        (Some(link), _) => Some(link_info(state, &shown, link)),
        (None, Some(node)) => Some(node_info(state, &shown, node)),
        (None, None) => None,
    };
    let (id, label) = match side {
        Side::B => ("topology-b", Some("B")),
        Side::A => ("topology", Some("A")),
        Side::Single => ("topology", None),
    };
    let edited = match side {
        Side::A => !state.editing_b,
        Side::B => state.editing_b,
        Side::Single => false,
    };
    html! {
        <div class="topology">
            if let Some(label) = label {
                <p class={classes!("ab-label", edited.then_some("edited"))}>
                    <strong>{ label }</strong>{ format!(" · {} × {} · {} · {} · {}: {} · busbw {:.1} GB/s",
                        shown.scenario.scenario().nodes, shown.scenario.preset().name, shown.topology.technology.spec().name,
                        format_bytes(shown.summary.size_bytes), shown.schedule.algorithm.nccl_name(),
                        format_duration_ns(shown.summary.time.as_ns() as f64), shown.summary.busbw_gbyte_per_s) }
                </p>
            }
            <canvas id={id} ref={canvas_ref} onmousemove={on_move} onmouseleave={on_leave} onclick={on_click}
                data-expanded={expanded.map(|n| n.to_string()).unwrap_or_default()}
                role="img" aria-label="cluster topology with live link utilisation"></canvas>
            <p id="link-info" class="link-info">{ info.unwrap_or_else(|| match state.lang {
                Lang::En => "Hover a link to see its bandwidth, latency and load.".to_string(),
                Lang::Zh => "将鼠标悬停在链路上，查看其带宽、时延与负载。".to_string(),
            }) }</p>
        </div>
    }
}

/// How a steady state was run, in words.
fn steady_text(lang: Lang, s: &fabricscope::Steady) -> String {
    let period = format_duration_ns(s.period_ns() as f64);
    let every = if s.period_steps == 1 { String::new() } else { format!(" {}", s.period_steps) };
    match lang {
        Lang::En => format!(
            "Steady state: the engine simulated the first {} of {} steps ({} of {} transfers). By step {} the whole cluster's state (every flow's progress, rate and path) had become the state of{every} step(s) earlier, shifted by {period}, bit for bit; so the run repeats that period {} more times before it ends as the simulated steps end. Time, link loads and the animation come from that.",
            s.simulated_steps, s.total_steps, s.simulated_transfers, s.total_transfers, s.step_at_to + 1, s.repeats
        ),
        Lang::Zh => format!(
            "稳态：引擎只模拟了 {} 步中的前 {} 步（{} 个传输中的 {} 个）。到第 {} 步时，整个集群的状态（每条流的进度、速率与路径）与{every}步之前完全一致（逐位相同），只是时间推后 {period}；因此其余部分就是这一周期再重复 {} 次，最后与模拟的结尾相同。时间、链路负载和动画都由此得出。",
            s.total_steps, s.simulated_steps, s.total_transfers, s.simulated_transfers, s.step_at_to + 1, s.repeats
        ),
    }
}

/// A compact cluster's tile under the pointer: its ranks and how busy its NICs and NVLinks are.
fn node_info(state: &AppState, sim: &fabricscope::Simulation, node: u32) -> String {
    let frame = sim.sample(state.playhead);
    let utilisation = sim.utilisation(&frame);
    let (mut nic, mut nvlink) = (0.0f64, 0.0f64);
    for (id, link) in sim.topology.links() {
        let (a, b) = (sim.topology.vertex(link.src).node, sim.topology.vertex(link.dst).node);
        let u = utilisation[id.index()];
        match (a == Some(node), b == Some(node), link.kind) {
            (true, true, LinkKind::NvLink) => nvlink = nvlink.max(u),
            (true, false, _) | (false, true, _) => nic = nic.max(u),
            _ => {}
        }
    }
    let g = sim.topology.gpus_per_node();
    let (first, last) = (node * g, node * g + g - 1);
    match state.lang {
        Lang::En => format!("Node {node} (ranks {first}–{last}) · busiest network link now {:.0}% · busiest NVLink {:.0}% · click to open it", 100.0 * nic, 100.0 * nvlink),
        Lang::Zh => format!("节点 {node}（rank {first}–{last}）· 当前最忙的网络链路 {:.0}% · 最忙的 NVLink {:.0}% · 点击展开", 100.0 * nic, 100.0 * nvlink),
    }
}

fn link_info(state: &AppState, sim: &fabricscope::Simulation, id: LinkId) -> String {
    let link = sim.topology.link(id);
    let frame = sim.sample(state.playhead);
    let rate = frame.link_rate[id.index()];
    let flows = frame
        .in_flight
        .iter()
        .filter(|c| c.moving && sim.trace.flows[c.transfer as usize].path.contains(&id))
        .count();
    let capacity = link.capacity().gbyte_per_s();
    let mean = sim.link_bytes[id.index()] / (capacity * sim.summary.time.as_ns().max(1) as f64);
    let name = format!(
        "{} → {}",
        i18n::vertex_name(state.lang, &sim.topology, link.src),
        i18n::vertex_name(state.lang, &sim.topology, link.dst)
    );
    match state.lang {
        Lang::En => format!(
            "{name} · {} · line rate {:.1} GB/s ({:.0} Gb/s) × efficiency {:.3} = {capacity:.1} GB/s · latency {} · now {rate:.1} GB/s = {:.0}% with {flows} flows · mean over the run {:.0}%",
            i18n::link_kind(state.lang, link.kind, network_name(sim)), link.line_rate.gbyte_per_s(), link.line_rate.gbit_per_s(), link.efficiency,
            format_duration_ns(link.latency_ns as f64), 100.0 * rate / capacity, 100.0 * mean
        ),
        Lang::Zh => format!(
            "{name} · {} · 线速 {:.1} GB/s（{:.0} Gb/s）× 效率 {:.3} = {capacity:.1} GB/s · 时延 {} · 当前 {rate:.1} GB/s = {:.0}%，{flows} 条流 · 全程平均 {:.0}%",
            i18n::link_kind(state.lang, link.kind, network_name(sim)), link.line_rate.gbyte_per_s(), link.line_rate.gbit_per_s(), link.efficiency,
            format_duration_ns(link.latency_ns as f64), 100.0 * rate / capacity, 100.0 * mean
        ),
    }
}

/// The layout the canvas was last painted with, and the pointer's place on it.
fn pointer(
    canvas_ref: &NodeRef,
    cache: &std::cell::RefCell<Option<LayoutCache>>,
    e: &MouseEvent,
) -> Option<(Rc<Layout>, f64, f64)> {
    let canvas = canvas_ref.cast::<HtmlCanvasElement>()?;
    let layout = cache.borrow().as_ref().map(|c| c.layout.clone())?;
    let rect = canvas.get_bounding_client_rect();
    Some((layout, e.client_x() as f64 - rect.left(), e.client_y() as f64 - rect.top()))
}

/// A layout and what it was built for.
struct LayoutCache {
    sim: usize,
    width: f64,
    expanded: Option<u32>,
    layout: Rc<Layout>,
}

fn paint_topology(
    canvas: &HtmlCanvasElement,
    sim: &Rc<fabricscope::Simulation>,
    cache: &std::cell::RefCell<Option<LayoutCache>>,
    playhead: SimTime,
    lang: Lang,
    dark: bool,
    pointed: &crate::render::topology::Focus,
    expanded: Option<u32>,
) {
    let width = canvas.parent_element().map(|p| p.client_width() as f64).unwrap_or(960.0).max(320.0);
    let key = Rc::as_ptr(sim) as usize;
    let layout = {
        let mut cached = cache.borrow_mut();
        match cached.as_ref() {
            Some(c) if c.sim == key && c.width == width && c.expanded == expanded => c.layout.clone(),
            _ => {
                let layout = Rc::new(Layout::with_expanded(&sim.topology, width, expanded));
                *cached = Some(LayoutCache { sim: key, width, expanded, layout: layout.clone() });
                layout
            }
        }
    };
    let ratio = gloo::utils::window().device_pixel_ratio().max(1.0);
    // Resizing reallocates the canvas: only when its size changes.
    let (w, h) = ((width * ratio) as u32, (layout.height * ratio) as u32);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    // The stylesheet sizes the canvas to its container's width with height auto, so its aspect
    // ratio gives the layout's height: no inline style, which the page's CSP forbids.
    let Some(ctx) = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|ctx| ctx.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let _ = ctx.set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0);
    let clock = gloo::utils::window().performance();
    let started = clock.as_ref().map(|p| p.now());
    let palette = Palette::of(dark);
    let gpus = render::paint_at(&ctx, sim, &layout, playhead, lang, palette, pointed);
    let _ = canvas.set_attribute("data-gpu-count", &gpus.to_string());
    // What this frame cost, sampling and painting [ms], for the benchmark.
    if let (Some(clock), Some(started)) = (clock, started) {
        let _ = canvas.set_attribute("data-frame-ms", &format!("{:.2}", clock.now() - started));
    }
}

/// The topology at `playhead` as an SVG document, painted like the canvas (light theme).
pub fn topology_svg(
    sim: &fabricscope::Simulation,
    width: f64,
    expanded: Option<u32>,
    playhead: SimTime,
    lang: Lang,
    pointed: &crate::render::topology::Focus,
) -> String {
    let layout = Layout::with_expanded(&sim.topology, width, expanded);
    let svg = crate::render::surface::Svg::new();
    render::paint_at(&svg, sim, &layout, playhead, lang, &palette::LIGHT, pointed);
    svg.finish(layout.width, layout.height)
}

/// The network's name: "InfiniBand", "RoCEv2", "TCP/IP Ethernet".
fn network_name(sim: &fabricscope::Simulation) -> &'static str {
    sim.topology.technology.spec().name
}

#[function_component(Timeline)]
fn timeline(props: &Props) -> Html {
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
                value={state.playhead.as_ns().to_string()} oninput={on_scrub} aria-label="time" />
            <p id="step-text" class="step-text" aria-live="polite">{ text }</p>
            <p class="hint">{ t(lang, Text::KeyboardHint) }</p>
        </div>
    }
}

/// A 24×24 icon from one SVG path, coloured like the button's text.
fn icon(path: &'static str) -> Html {
    html! { <svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><path d={path} /></svg> }
}

#[function_component(Results)]
fn results(props: &Props) -> Html {
    let state = &props.state;
    let lang = state.lang;
    let sim = &state.sim;
    // Hashing a large trace takes tens of ms: once per simulation, not once per frame.
    let hash = {
        let sim = sim.clone();
        use_memo(Rc::as_ptr(&sim) as usize, move |_| sim.hash_hex())
    };
    let summary = &sim.summary;
    let bottleneck = summary.bottleneck.map(|id| {
        let link = sim.topology.link(id);
        format!(
            "{} → {} ({}, {:.0}%)",
            i18n::vertex_name(lang, &sim.topology, link.src),
            i18n::vertex_name(lang, &sim.topology, link.dst),
            i18n::link_kind(lang, link.kind, network_name(sim)),
            100.0 * summary.bottleneck_utilisation
        )
    });
    let ab = sim.alpha_beta();
    let collective = sim.schedule.collective;
    let factor = collective.busbw_factor(summary.n_ranks);
    let factor_formula = match collective {
        fabricscope::Collective::AllReduce => "2(n−1)/n",
        fabricscope::Collective::AllGather
        | fabricscope::Collective::ReduceScatter
        | fabricscope::Collective::AllToAll => "(n−1)/n",
        _ => "1",
    };
    html! {
        <>
            <h2>{ t(lang, Text::Results) }</h2>
            <dl class="figures">
                <div><dt>{ t(lang, Text::Time) }</dt><dd id="time" data-sim-ms={format!("{:.0}", state.sim_ms)}>{ format_duration_ns(summary.time.as_ns() as f64) }</dd></div>
                <div><dt>{ t(lang, Text::AlgBw) }</dt><dd id="algbw">{ format!("{:.1} GB/s", summary.algbw_gbyte_per_s) }</dd></div>
                <div><dt>{ t(lang, Text::BusBw) }</dt><dd id="busbw">{ format!("{:.1} GB/s", summary.busbw_gbyte_per_s) }</dd></div>
            </dl>
            <p class="formula">{ match lang {
                Lang::En => format!("busbw = algbw × {factor_formula} = {:.1} × {factor:.3} (n = {} GPUs): comparable to the slowest link's bandwidth whatever the algorithm (nccl-tests).", summary.algbw_gbyte_per_s, summary.n_ranks),
                Lang::Zh => format!("busbw = algbw × {factor_formula} = {:.1} × {factor:.3}（n = {} 块 GPU）：与算法无关，可直接和最慢链路的带宽比较（nccl-tests 定义）。", summary.algbw_gbyte_per_s, summary.n_ranks),
            } }</p>
            if sim.schedule.algorithm == fabricscope::collective::Algorithm::Nvls {
                <p id="nvls-note" class="formula">{ nvls_note(lang, summary.n_ranks, summary.busbw_gbyte_per_s, sim) }</p>
            }
            if sim.schedule.algorithm == fabricscope::collective::Algorithm::CollNet {
                <p id="sharp-note" class="formula">{ sharp_note(lang, sim.topology.n_nodes()) }</p>
            }
            <p id="bottleneck"><strong>{ t(lang, Text::Bottleneck) }{ ": " }</strong>{ bottleneck.unwrap_or_else(|| "—".into()) }</p>
            <p class="hash" title={ t(lang, Text::TraceHashHelp) }>{ t(lang, Text::TraceHash) }{ ": " }<code id="trace-hash">{ (*hash).clone() }</code></p>
            if let Some(steady) = sim.steady {
                <p id="steady" class="formula">{ steady_text(lang, &steady) }</p>
            }
            <TunerTable state={state.clone()} />
            <HeatMap state={state.clone()} />
            if let Some(ab) = ab {
                <p id="alpha-beta" class="formula"><strong>{ t(lang, Text::AlphaBeta) }{ ": " }</strong>
                    { i18n::alpha_beta_line(lang, collective, summary.n_ranks, summary.size_bytes, &ab, summary.time.as_ns() as f64) }
                </p>
            }
        </>
    }
}

/// Why NVLS's busbw is above the NVLink line rate (nccl-tests#312), in the run's own figures.
fn nvls_note(lang: Lang, n: u32, busbw: f64, sim: &fabricscope::Simulation) -> String {
    let preset = sim.scenario.preset();
    let line = sim
        .scenario
        .scenario()
        .links
        .nvlink
        .bandwidth_gbyte_per_s
        .unwrap_or(preset.nvlink.line_rate_gbyte_per_s * preset.gpu.nvlink_links as f64);
    let (ring, nvls) = (2.0 * (n as f64 - 1.0) / n as f64, 1.0 + 1.0 / n as f64);
    match lang {
        Lang::En => format!(
            "busbw {busbw:.0} GB/s is above the NVLink line rate of {line:.0} GB/s per direction, and that is right: busbw assumes a ring, where every GPU sends {ring:.3} × S over its link. With NVLS the NVSwitch adds the chunks and multicasts the sum, so each GPU sends only {nvls:.3} × S up and receives S down; the same link finishes sooner, and algbw × {ring:.3} comes out above it (nccl-tests#312)."
        ),
        Lang::Zh => format!(
            "busbw {busbw:.0} GB/s 高于每方向 {line:.0} GB/s 的 NVLink 线速，这是对的：busbw 按环形算法折算，环中每块 GPU 要经自己的链路发送 {ring:.3} × S。NVLS 由 NVSwitch 把各块相加并多播结果，每块 GPU 只需上行 {nvls:.3} × S、下行 S；同一条链路更早完成，所以 algbw × {ring:.3} 超过了线速（nccl-tests#312）。"
        ),
    }
}

/// What SHARP changes across nodes, in the run's own node count.
fn sharp_note(lang: Lang, nodes: u32) -> String {
    let ring = 2.0 * (nodes as f64 - 1.0) / nodes as f64;
    match lang {
        Lang::En => format!(
            "CollNet (InfiniBand SHARP): inside each node the GPUs reduce-scatter over NVLink; then each GPU sends its node's sum of its chunk up its rail once, the switches add the {nodes} nodes' sums and send the total down once; then the GPUs all-gather over NVLink. Each byte crosses the network once each way, where a ring across {nodes} nodes sends it {ring:.3} times: the more nodes, the more SHARP saves."
        ),
        Lang::Zh => format!(
            "CollNet（InfiniBand SHARP）：每个节点内先经 NVLink 做 reduce-scatter；每块 GPU 把本节点对应块的和沿自己的轨道只上传一次，交换机把 {nodes} 个节点的和相加后只下发一次；最后节点内经 NVLink 做 all-gather。每个字节在网络上往返各一次，而跨 {nodes} 个节点的环要发送 {ring:.3} 次：节点越多，SHARP 省得越多。"
        ),
    }
}

/// The first size from which the algorithm with the highest busbw differs from the smallest
/// size's best: where NCCL would switch from Tree to Ring.
fn crossover(curve: &[fabricscope::SweepPoint]) -> Option<u64> {
    let mut sizes: Vec<u64> = curve.iter().map(|p| p.size_bytes).collect();
    sizes.dedup();
    let best = |size: u64| {
        curve
            .iter()
            .filter(|p| p.size_bytes == size)
            .max_by(|a, b| a.busbw_gbyte_per_s.total_cmp(&b.busbw_gbyte_per_s))
            .map(|p| p.algorithm)
    };
    let first = best(*sizes.first()?)?;
    let algorithms = curve.iter().filter(|p| p.size_bytes == sizes[0]).count();
    (algorithms > 1).then(|| sizes.iter().copied().find(|&s| best(s) != Some(first))).flatten()
}

/// Sizes the heat map shows: 1 KiB to 1 GiB, ×16.
const HEAT_SIZES: [u64; 6] = [1 << 10, 16 << 10, 256 << 10, 4 << 20, 64 << 20, 1 << 30];

/// The tuner's predictions over message size × algorithm/protocol: each cell's time as a
/// multiple of the column's best, shaded, the tuner's pick marked.
#[function_component(HeatMap)]
fn heat_map(props: &Props) -> Html {
    let state = &props.state;
    let (lang, sim) = (state.lang, &state.sim);
    let tunings: Vec<_> = HEAT_SIZES.iter().map(|&size| sim.tuning_at(size)).collect();
    let rows = tunings.first().map(|t| t.rows.len()).unwrap_or(0);
    html! {
        <table id="heatmap" class="heatmap">
            <caption>{ t(lang, Text::HeatCaption) }</caption>
            <thead><tr>
                <th>{ "NCCL_ALGO / PROTO" }</th>
                { for HEAT_SIZES.iter().map(|&size| html! { <th>{ format_bytes(size) }</th> }) }
            </tr></thead>
            <tbody>
                { for (0..rows).map(|r| {
                    let row = tunings[0].rows[r];
                    html! {
                        <tr>
                            <td>{ format!("{} / {}", row.algorithm.nccl_name(), row.protocol.nccl_name()) }</td>
                            { for tunings.iter().map(|tuning| {
                                let best = tuning.choice().predicted_ns;
                                let ratio = tuning.rows[r].predicted_ns / best;
                                // Shades: the pick darkest, 2× the best or worse lightest.
                                let shade = ((ratio - 1.0).clamp(0.0, 1.0) * 4.0).round() as u32;
                                let chosen = tuning.chosen == r;
                                html! {
                                    <td class={classes!(format!("heat{shade}"), chosen.then_some("chosen"))}
                                        title={format_duration_ns(tuning.rows[r].predicted_ns)}>
                                        { if chosen { "✓".to_string() } else { format!("{ratio:.2}×") } }
                                    </td>
                                }
                            }) }
                        </tr>
                    }
                }) }
            </tbody>
        </table>
    }
}

/// The tuner's predictions for every protocol, its pick marked, beside the engine's time.
#[function_component(TunerTable)]
fn tuner_table(props: &Props) -> Html {
    let state = &props.state;
    let (lang, sim) = (state.lang, &state.sim);
    let tuning = &sim.tuning;
    let d = |ns: f64| format_duration_ns(ns);
    html! {
        <>
            <table id="tuner" class="tuner">
                <caption>{ t(lang, Text::TunerCaption) }</caption>
                <thead><tr>
                    <th>{ "NCCL_ALGO / PROTO" }</th><th>{ t(lang, Text::Launch) }</th><th>{ t(lang, Text::StepLatencies) }</th>
                    <th>{ t(lang, Text::BusBandwidth) }</th><th>{ t(lang, Text::DataTerm) }</th><th>{ t(lang, Text::Predicted) }</th>
                </tr></thead>
                <tbody>
                    { for tuning.rows.iter().enumerate().map(|(i, row)| html! {
                        <tr class={classes!((i == tuning.chosen).then_some("chosen"), (row.protocol == sim.schedule.protocol && row.algorithm == sim.schedule.algorithm).then_some("ran"))}>
                            <td>{ format!("{} / {}", row.algorithm.nccl_name(), row.protocol.nccl_name()) }{ if i == tuning.chosen { " ✓" } else { "" } }</td>
                            <td>{ d(row.base_ns) }</td>
                            <td>{ format!("{} ({} + {})", d(row.steps_ns), row.intra_steps, row.inter_steps) }</td>
                            <td>{ format!("{:.1} GB/s", row.bus_bandwidth_gbyte_per_s) }</td>
                            <td>{ d(row.transfer_ns) }</td>
                            <td>{ d(row.predicted_ns) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            <p id="tuner-vs-engine" class="formula">{ match lang {
                Lang::En => format!(
                    "✓ is the tuner's pick. The engine ran {} and took {}: the tuner counts NCCL's per-step latency for {} NVLink and {} network steps and sees no contention; the engine adds each path's own link latencies, follows the slowest chain of data, and shares every link among the flows on it.",
                    sim.schedule.protocol.nccl_name(), d(sim.summary.time.as_ns() as f64), tuning.intra_steps, tuning.inter_steps
                ),
                Lang::Zh => format!(
                    "✓ 为调优器的选择。引擎实际使用 {}，耗时 {}：调优器按 NCCL 的模型计入 {} 个节点内步骤与 {} 个网络步骤的固定时延，且不考虑拥塞；引擎则加上每条路径自身的链路时延、沿最慢的数据链计时，并在每条链路上的各条流之间分配带宽。",
                    sim.schedule.protocol.nccl_name(), d(sim.summary.time.as_ns() as f64), tuning.intra_steps, tuning.inter_steps
                ),
            } }</p>
        </>
    }
}

#[function_component(Chart)]
fn chart(props: &Props) -> Html {
    let state = &props.state;
    let canvas_ref = use_node_ref();
    // One more point of the curve after each paint, until it is complete; none while the
    // animation plays, so a point's simulation never costs a frame (a point of an 8-node curve
    // takes up to a few hundred ms).
    {
        let s = state.clone();
        // The chart waits while the animation plays and while a simulation is pending.
        let deps = (
            state.curve_todo.len(),
            Rc::as_ptr(&state.curve_todo) as usize,
            state.playing,
            state.work_tick,
            state.pending.is_some(),
        );
        use_effect_with(deps, move |&(todo, _, playing, _, pending)| {
            let timer = (todo > 0 && !playing && !pending)
                .then(|| gloo::timers::callback::Timeout::new(0, move || s.dispatch(Action::CurvePoint)));
            move || drop(timer)
        });
    }
    {
        let canvas_ref = canvas_ref.clone();
        let deps = (
            state.curve.clone(),
            state.scenario.size_bytes,
            state.lang,
            state.dark,
            state.scenario.collective,
        );
        use_effect_with(deps, move |(curve, size, lang, dark, collective)| {
            let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() else { return };
            let width = canvas.parent_element().map(|p| p.client_width()).unwrap_or(560).max(320) as u32;
            canvas.set_width(width);
            canvas.set_height(300);
            let Some(backend) = CanvasBackend::with_canvas_object(canvas) else { return };
            let (series, markers, labels) = chart_parts(curve, *size, *lang, *collective);
            let theme = if *dark { fabricscope_charts::DARK } else { fabricscope_charts::LIGHT };
            if let Err(error) =
                draw_busbw_curve(&backend.into_drawing_area(), &series, &markers, &labels, &theme)
            {
                gloo::console::error!(format!("chart: {error:?}"));
            }
        });
    }
    // The same chart as an SVG file (light theme, for documents).
    let export_svg = {
        let (curve, size, lang, collective) =
            (state.curve.clone(), state.scenario.size_bytes, state.lang, state.scenario.collective);
        Callback::from(move |_| {
            let (series, markers, labels) = chart_parts(&curve, size, lang, collective);
            let mut svg = String::new();
            {
                let backend = plotters::prelude::SVGBackend::with_string(&mut svg, (800, 420));
                if let Err(error) = draw_busbw_curve(
                    &backend.into_drawing_area(),
                    &series,
                    &markers,
                    &labels,
                    &fabricscope_charts::LIGHT,
                ) {
                    gloo::console::error!(format!("chart: {error:?}"));
                    return;
                }
            }
            download("fabricscope-busbw.svg", "image/svg+xml", &svg);
        })
    };
    html! {
        <>
            <canvas id="busbw-chart" ref={canvas_ref} role="img" aria-label={t(state.lang, Text::ChartCaption)}
                data-points={state.curve.len().to_string()} data-complete={state.curve_todo.is_empty().to_string()}></canvas>
            <div class="buttons"><button id="export-svg" onclick={export_svg}>{ crate::i18n::pick(state.lang, "Chart SVG", "图表 SVG") }</button>
                <button id="export-chart-png" onclick={Callback::from(|_| export_canvas_png("busbw-chart", "fabricscope-busbw.png"))}>{ crate::i18n::pick(state.lang, "Chart PNG", "图表 PNG") }</button></div>
        </>
    }
}

/// The busbw chart's curves (one per algorithm), markers (this size, the crossover) and labels.
fn chart_parts(
    curve: &[fabricscope::SweepPoint],
    size: u64,
    lang: Lang,
    collective: fabricscope::Collective,
) -> (Vec<BusbwSeries>, Vec<Marker>, Labels) {
    // One curve per algorithm; the crossover is where the best algorithm changes.
    let mut series: Vec<BusbwSeries> = Vec::new();
    for point in curve.iter() {
        let label = point.algorithm.nccl_name().to_string();
        match series.iter_mut().find(|s| s.label == label) {
            Some(s) => s.points.push((point.size_bytes, point.busbw_gbyte_per_s)),
            None => {
                series.push(BusbwSeries { label, points: vec![(point.size_bytes, point.busbw_gbyte_per_s)] })
            }
        }
    }
    let mut markers = vec![Marker { size, label: format_bytes(size) }];
    if let Some(at) = crossover(curve) {
        markers.push(Marker { size: at, label: t(lang, Text::Crossover).into() });
    }
    let labels = Labels {
        caption: format!("{} {}", collective.nccl_name(), t(lang, Text::ChartCaption)),
        x: t(lang, Text::ChartX).into(),
        y: t(lang, Text::ChartY).into(),
    };
    (series, markers, labels)
}
