//! The training view: pick a model and a TP × PP × DP layout on the cluster and see one step
//! simulated: what it is spent on, the 1F1B schedule, where every rank sits and what crosses
//! the nodes, the collectives with their engine times, memory, cost on every fabric, scaling.

pub mod controls;
pub mod cost;
mod extras;
pub mod figures;
pub mod gantt;
pub mod ops;
pub mod placement;

use crate::components::chrome::banner::{ErrorBanner, LinkProblemBanner};
use crate::components::chrome::drawer::ControlsDrawer;
use crate::components::chrome::top_bar::TopBar;
use crate::hooks::animation_frame::use_animation_frame;
use crate::hooks::lesson_figures::use_lesson_figures;
use crate::hooks::slices::use_next_slice;
use crate::hooks::theme::use_theme;
use crate::hooks::url_sync::use_job_in_url;
use crate::i18n::{problem_text, t, Lang, Text};
use crate::lessons::Figures as LessonFigures;
use crate::route;
use crate::services::url;
use crate::state::page_job::{now_ms, SLICE_MS};
use crate::state::training::{TrainAction, TrainState};
use crate::state::{Mode, Shared};
use controls::TrainControls;
use cost::CostPanel;
use extras::{use_extras_in_workers, use_step_in_worker};
use fabricscope::train::{TrainReport, TrainScenario};
use figures::Figures;
use gantt::Gantt;
use ops::Ops;
use placement::PlacementView;
use std::rc::Rc;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

pub type State = UseReducerHandle<TrainState>;

/// A panel's: the view's state, and the step it shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    pub state: State,
    pub report: Shared<TrainReport>,
}

#[derive(Properties, PartialEq)]
pub struct TrainLabProps {
    pub lang: Lang,
    pub dark: bool,
    pub on_mode: Callback<Mode>,
    /// A lesson step's job, which the view opens on instead of the URL's.
    #[prop_or_default]
    pub job: Option<TrainScenario>,
    pub on_lang: Callback<Lang>,
    /// The lesson bar, shown under the top bar.
    #[prop_or_default]
    pub lesson_bar: Html,
    /// Reports the figures of a lesson step's run once the view shows it.
    #[prop_or_default]
    pub on_figures: Callback<Rc<LessonFigures>>,
}

/// Engine event batches per poll of a pending step: small enough that the slice checks its
/// clock often.
const TRAIN_BATCHES: u64 = 64;

type PolledJob = Rc<std::cell::RefCell<fabricscope::train::TrainJob>>;

/// Polls `job` a slice after each render that changed `slices` (or the job): `done` with its
/// report once it finishes, else `more` (which counts the slice and so asks for the next).
#[hook]
fn use_polled(
    state: &UseReducerHandle<TrainState>,
    job: Option<PolledJob>,
    slices: u32,
    done: fn(PolledJob, Box<fabricscope::train::TrainReport>) -> TrainAction,
    more: fn() -> TrainAction,
) {
    let s = state.clone();
    let key = (job.as_ref().map(|p| Rc::as_ptr(p) as usize), slices);
    use_next_slice(key, job.is_some(), 0, move || {
        if let Some(job) = job {
            match poll_slice(&job) {
                Some(report) => s.dispatch(done(job, Box::new(report))),
                None => s.dispatch(more()),
            }
        }
    });
}

/// Polls `job` for up to `SLICE_MS`: its report if it finished.
fn poll_slice(
    job: &std::cell::RefCell<fabricscope::train::TrainJob>,
) -> Option<fabricscope::train::TrainReport> {
    let started = now_ms();
    loop {
        if let Some(report) = job.borrow_mut().poll(TRAIN_BATCHES) {
            return Some(report);
        }
        if now_ms() - started >= SLICE_MS || now_ms() == 0.0 {
            return None;
        }
    }
}

/// The training view: its state, its effects, and its panels.
#[function_component(TrainLab)]
pub fn train_lab(props: &TrainLabProps) -> Html {
    let (lang, dark, lesson_job) = (props.lang, props.dark, props.job.clone());
    let state = use_reducer(move || route::initial_train_state(lesson_job, lang, dark));

    use_theme(state.lang, state.dark);
    {
        let on_lang = props.on_lang.clone();
        use_effect_with(state.lang, move |&lang| on_lang.emit(lang));
    }
    // A lesson step's texts take their numbers from this run, when it is the step's job.
    {
        let (wanted, shown) = (props.job.clone(), state.job.clone());
        let is_the_steps =
            move || wanted.is_some_and(|wanted| url::encode_train(&wanted) == url::encode_train(&shown));
        use_lesson_figures(
            state.report.as_ref(),
            is_the_steps,
            LessonFigures::of_train,
            props.on_figures.clone(),
        );
    }
    // The URL and this browser follow the job.
    use_job_in_url(state.job.clone());
    // Animation frames while playing.
    {
        let s = state.clone();
        let deps = (state.playhead.to_bits(), state.last_frame_ms.map(f64::to_bits));
        use_animation_frame(state.playing, deps, move |now_ms| s.dispatch(TrainAction::Frame { now_ms }));
    }
    // The pending step (the first, or a change's) runs in a worker, the last step shown
    // meanwhile; where workers cannot run, it is polled here in slices between frames. Then the
    // comparison in flight, the same way.
    let step_in_worker = use_step_in_worker(&state);
    let pending = state.pending.clone().filter(|_| !step_in_worker);
    use_polled(&state, pending, state.pending_slices, TrainAction::Ready, || TrainAction::Worked);
    // The comparison in flight runs in a worker; where workers cannot run, it is polled here.
    let in_workers = use_extras_in_workers(&state);
    let extra = state.extra.as_ref().filter(|_| !in_workers).map(|(_, job)| job.clone());
    use_polled(&state, extra, state.extra_slices, TrainAction::ExtraReady, || TrainAction::ExtraWorked);
    // The comparisons, one simulation per idle tick so the page stays responsive.
    {
        let s = state.clone();
        let key = (
            Shared::of(&state.fabrics),
            state.fabric_rows.len(),
            state.scaling.len(),
            state.scaling_todo.len(),
            state.extra.is_some(),
            state.pending.is_some(),
        );
        use_next_slice(key, state.extras_pending(), 30, move || s.dispatch(TrainAction::Extra));
    }

    let lang = state.lang;
    let on_lang = {
        let s = state.clone();
        Callback::from(move |l: Lang| s.dispatch(TrainAction::SetLang(l)))
    };
    let on_dark = {
        let s = state.clone();
        Callback::from(move |d: bool| s.dispatch(TrainAction::SetDark(d)))
    };
    // The controls show the change being simulated, the panels the last step done.
    let (shown_job, shown_valid) = state.shown_job();
    html! {
        <div class="lab train">
            <TopBar lang={lang} dark={state.dark} mode={Mode::Training} on_lang={on_lang} on_dark={on_dark} on_mode={props.on_mode.clone()} />
            { props.lesson_bar.clone() }
            if let Some(message) = &state.link_problem {
                <LinkProblemBanner message={problem_text(lang, message)}
                    dismiss={ let s = state.clone(); (t(lang, Text::DismissError), Callback::from(move |_| s.dispatch(TrainAction::DismissLinkProblem))) } />
            }
            if let Some(message) = &state.error {
                <ErrorBanner message={problem_text(lang, message)}
                    hint={t(lang, Text::ThatChangeWasNotApplied)}
                    dismiss={t(lang, Text::DismissError)}
                    on_dismiss={ let s = state.clone(); move |_| s.dispatch(TrainAction::DismissError) } />
            }
            <div class="columns">
                <ControlsDrawer lang={lang}>
                    <TrainControls dispatch={state.dispatcher()} job={shown_job} lang={state.lang}
                        valid={Shared(shown_valid.clone())} />
                </ControlsDrawer>
                <div class="main">
                    if state.pending.is_some() && state.report.is_some() {
                        <p class="hint" id="train-pending" role="status">{ t(lang, Text::Simulating) }</p>
                    }
                    if state.report.is_none() {
                        <section class="panel" id="train-pending" role="status">
                            <h2>{ t(lang, Text::OneTrainingStep) }</h2>
                            <p>{ first_step_text(lang, &shown_valid) }</p>
                        </section>
                    }
                    if let Some(report) = state.report.as_ref().map(Shared::of) {
                        <section class="panel"><Figures state={state.clone()} report={report.clone()} /></section>
                        <section class="panel"><Gantt state={state.clone()} report={report.clone()} /></section>
                        <section class="panel"><PlacementView state={state.clone()} report={report.clone()} /></section>
                        <div class="lower">
                            <section class="panel"><Ops state={state.clone()} report={report.clone()} /></section>
                            <section class="panel"><CostPanel state={state.clone()} report={report} /></section>
                        </div>
                    }
                </div>
            </div>
        </div>
    }
}

/// What the view simulates while its first step runs: the model, the layout and the cluster.
fn first_step_text(lang: Lang, valid: &fabricscope::train::ValidTrain) -> String {
    let job = valid.scenario();
    let model = fabricscope::train::model::MODEL_PRESETS.iter().find(|p| p.id == job.model).map(|p| p.name);
    let (nodes, node, gpus) = (job.cluster.nodes, &valid.cluster().preset().name, valid.grid().ranks());
    let dims = [("TP", job.tp), ("CP", job.cp), ("PP", job.pp), ("DP", job.dp), ("EP", job.ep)];
    let layout = dims
        .iter()
        .filter(|&&(name, n)| n > 1 || matches!(name, "TP" | "PP" | "DP"))
        .map(|(name, n)| format!("{name} {n}"))
        .collect::<Vec<_>>()
        .join(" × ");
    match lang {
        Lang::En => format!(
            "Simulating one step of {} as {layout} on {nodes} × {node} ({gpus} GPUs), every collective through the engine…",
            model.unwrap_or("the custom model")
        ),
        Lang::Zh => format!(
            "正在模拟 {} 的一个训练步：{layout}，{nodes} × {node}（{gpus} 块 GPU），每个集合通信都经引擎模拟……",
            model.unwrap_or("自定义模型")
        ),
    }
}

/// A share as a percentage with one decimal.
pub fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// The width of the canvas's container (900 px where there is none).
pub fn canvas_width(node: &NodeRef) -> f64 {
    node.cast::<HtmlCanvasElement>()
        .and_then(|c| c.parent_element())
        .map(|p| p.client_width() as f64)
        .unwrap_or(900.0)
        .max(320.0)
}

/// Sizes `canvas` for `width` × `height` CSS pixels at the screen's pixel ratio, and its 2D context.
pub fn context(
    canvas: &HtmlCanvasElement,
    width: f64,
    height: f64,
) -> Option<web_sys::CanvasRenderingContext2d> {
    use wasm_bindgen::JsCast;
    let ratio = gloo::utils::window().device_pixel_ratio().max(1.0);
    canvas.set_width((width * ratio) as u32);
    canvas.set_height((height * ratio) as u32);
    let _ = canvas.set_attribute("style", &format!("width: {width}px; height: {height}px"));
    let ctx = canvas.get_context("2d").ok()??.dyn_into::<web_sys::CanvasRenderingContext2d>().ok()?;
    let _ = ctx.scale(ratio, ratio);
    Some(ctx)
}

/// The width a training canvas is drawn at, from the page (960 px where there is none).
pub fn drawn_width(id: &str) -> f64 {
    gloo::utils::document()
        .get_element_by_id(id)
        .and_then(|e| e.parent_element())
        .map(|p| p.client_width() as f64)
        .unwrap_or(960.0)
        .max(320.0)
}
