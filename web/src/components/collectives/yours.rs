//! "Your cluster": a file pasted or opened, read in the page. A topology (`nvidia-smi topo -m`,
//! NCCL's XML) becomes the scenario's node (`fabricscope::import`); an nccl-tests log is compared
//! with the model of its cluster and the model fitted to it (`fabricscope::compare::Fitting`, a
//! simulation per poll, polled in slices between frames so the page stays responsive).

use super::State;
use crate::hooks::slices::use_next_slice;
use crate::i18n::cluster::{self, w, Words};
use crate::i18n::{t, Lang, Text};
use crate::state::collectives::Action;
use crate::state::page_job::{now_ms, SLICE_MS};
use crate::state::Shared;
use fabricscope::compare::{cluster_of, for_run, Comparison, Fitting};
use fabricscope::import::{import, ImportOptions};
use fabricscope::Scenario;
use fabricscope_charts::{draw_busbw_curve, BusbwSeries, Labels};
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

/// Most GPUs a log's cluster may have for the page to compare it (each of the fit's few hundred
/// simulations must fit a slice or two); the CLI's `fabricscope compare` takes any.
pub const PAGE_COMPARE_RANKS: u32 = 64;

/// What the panel shows after a read.
#[derive(Clone)]
enum Outcome {
    Empty,
    Problems(Vec<String>),
    Imported(Vec<String>),
    Comparing { fitting: Rc<RefCell<Fitting>>, cluster: String },
    Compared { comparison: Rc<Comparison>, cluster: String },
}

#[derive(Properties, PartialEq)]
pub struct YoursProps {
    pub state: State,
}

/// Reads `text` against the page's scenario: a log starts a comparison, a topology sets the
/// node (dispatched here).
fn read(text: &str, options: &ImportOptions, state: &State) -> Outcome {
    let log = fabricscope::logs::parse(text);
    if let Some(run) = log.runs.iter().find(|r| !r.rows.is_empty()) {
        // The log's cluster on the page's fabric; NCCL's defaults otherwise, as the log ran.
        let base = Scenario { fabric: state.requested().fabric.clone(), ..Scenario::default_demo() };
        let scenario = match cluster_of(run, &base) {
            Ok(Some(scenario)) => scenario,
            // No device list: the page's cluster.
            Ok(None) => {
                let mut scenario = state.requested().clone();
                for_run(run, &mut scenario);
                scenario
            }
            Err(errors) => return Outcome::Problems(errors.iter().map(|e| e.to_string()).collect()),
        };
        let valid = match scenario.validate() {
            Ok(valid) => valid,
            Err(errors) => return Outcome::Problems(errors.iter().map(|e| e.to_string()).collect()),
        };
        if valid.n_ranks() > PAGE_COMPARE_RANKS {
            return Outcome::Problems(vec![format!(
                "the log's cluster has {} GPUs; the page compares up to {PAGE_COMPARE_RANKS} (fabricscope compare LOG takes any)",
                valid.n_ranks()
            )]);
        }
        let cluster =
            format!("{} × {}, {}", scenario.nodes, valid.preset().name, scenario.collective.nccl_name());
        return match Fitting::new(run, &valid) {
            Ok(fitting) => Outcome::Comparing { fitting: Rc::new(RefCell::new(fitting)), cluster },
            Err(errors) => Outcome::Problems(errors.iter().map(|e| e.to_string()).collect()),
        };
    }
    match import(text, options) {
        Ok(imported) => {
            let mut scenario: Scenario = state.requested().clone();
            scenario.preset = "imported".into();
            scenario.custom = None;
            scenario.imported = Some(imported.node);
            state.dispatch(Action::SetScenario(Box::new(scenario)));
            Outcome::Imported(imported.notes)
        }
        Err(errors) if text.trim().is_empty() => {
            Outcome::Problems(errors.iter().map(|e| e.to_string()).collect())
        }
        Err(errors) => {
            let mut problems: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            if !log.problems.is_empty() && !text.contains("GPU0") && !text.trim_start().starts_with('<') {
                problems.insert(0, w(state.lang, Words::NotAFile).to_string());
            }
            Outcome::Problems(problems)
        }
    }
}

/// The panel: a text area, a file button, the GPU model and NIC speed a matrix lacks, and what
/// the last read gave.
#[function_component(YourCluster)]
pub fn your_cluster(props: &YoursProps) -> Html {
    let state = &props.state;
    let lang = state.lang;
    let text = use_state(String::new);
    let gpu = use_state(|| None::<String>);
    let nic = use_state(|| None::<f64>);
    let outcome = use_state(|| Outcome::Empty);
    let tick = use_state(|| 0u32);
    let reader = use_mut_ref(|| None::<gloo::file::callbacks::FileReader>);

    // The comparison, a slice at a time.
    let comparing = matches!(*outcome, Outcome::Comparing { .. });
    {
        let (outcome, tick) = (outcome.clone(), tick.clone());
        // Each read bumps the tick too, so a new comparison starts its slices.
        use_next_slice(*tick, comparing, 0, move || {
            let Outcome::Comparing { fitting, cluster } = (*outcome).clone() else { return };
            let started = now_ms();
            let done = loop {
                if let Some(done) = fitting.borrow_mut().poll() {
                    break Some(done);
                }
                if now_ms() - started >= SLICE_MS || now_ms() == 0.0 {
                    break None;
                }
            };
            match done {
                Some(Ok(comparison)) => {
                    outcome.set(Outcome::Compared { comparison: Rc::new(comparison), cluster })
                }
                Some(Err(errors)) => {
                    outcome.set(Outcome::Problems(errors.iter().map(|e| e.to_string()).collect()))
                }
                None => tick.set(tick.wrapping_add(1)),
            }
        });
    }

    let on_read = {
        let (text, gpu, nic, outcome, state) =
            (text.clone(), gpu.clone(), nic.clone(), outcome.clone(), state.clone());
        let tick = tick.clone();
        Callback::from(move |_| {
            let options = ImportOptions { gpu: (*gpu).clone(), nic_gbit_per_s: *nic };
            outcome.set(read(&text, &options, &state));
            tick.set(tick.wrapping_add(1));
        })
    };
    let on_text = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            text.set(e.target_unchecked_into::<HtmlTextAreaElement>().value())
        })
    };
    let on_file = {
        let (text, reader) = (text.clone(), reader.clone());
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|files| files.get(0)) else { return };
            let file = gloo::file::File::from(file);
            let text = text.clone();
            // Kept until it reports; a newer file replaces (and so cancels) it.
            *reader.borrow_mut() = Some(gloo::file::callbacks::read_as_text(&file, move |result| {
                text.set(result.unwrap_or_else(|e| format!("cannot read the file: {e}")));
            }));
        })
    };
    let on_gpu = {
        let gpu = gpu.clone();
        Callback::from(move |e: Event| {
            let value = crate::components::select_value(&e);
            gpu.set((value != "file").then_some(value));
        })
    };
    let on_nic = {
        let nic = nic.clone();
        Callback::from(move |e: InputEvent| {
            let value = e.target_unchecked_into::<HtmlInputElement>().value();
            nic.set(value.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v > 0.0));
        })
    };
    let stop = {
        let outcome = outcome.clone();
        Callback::from(move |_| outcome.set(Outcome::Empty))
    };
    html! {
        <>
            <h2>{ w(lang, Words::YourCluster) }</h2>
            <p class="hint">{ w(lang, Words::YourClusterHelp) }</p>
            <textarea id="your-file" rows="6" spellcheck="false" placeholder={w(lang, Words::Paste)}
                value={(*text).clone()} oninput={on_text} aria-label={w(lang, Words::Paste)} />
            <div class="your-options">
                <label class="file">{ w(lang, Words::OpenFile) }
                    <input id="your-open" type="file" accept=".txt,.log,.xml,text/plain,text/xml" onchange={on_file} />
                </label>
                <label>{ w(lang, Words::GpuModel) }
                    <select id="your-gpu" onchange={on_gpu}>
                        <option value="file" selected={gpu.is_none()}>{ w(lang, Words::FromFile) }</option>
                        { for fabricscope::catalog::GPU_IDS.iter().map(|(id, model, _)| html! {
                            <option value={*id} selected={gpu.as_deref() == Some(*id)}>{ model.name }</option>
                        }) }
                    </select>
                </label>
                <label>{ w(lang, Words::NicGbit) }
                    <input id="your-nic" type="number" min="1" step="any" placeholder={w(lang, Words::FromFile)}
                        value={nic.map(|v| v.to_string()).unwrap_or_default()} oninput={on_nic} />
                </label>
                <button id="your-read" onclick={on_read}>{ w(lang, Words::Read) }</button>
            </div>
            { outcome_view(lang, &outcome, state, stop) }
        </>
    }
}

fn outcome_view(lang: Lang, outcome: &Outcome, state: &State, stop: Callback<MouseEvent>) -> Html {
    match outcome {
        Outcome::Empty => html! {},
        Outcome::Problems(problems) => html! {
            <ul id="your-problems" class="problems" role="alert">{ for problems.iter().map(|p| html! { <li>{ p.clone() }</li> }) }</ul>
        },
        Outcome::Imported(notes) => html! {
            <div id="your-imported">
                <p><strong>{ w(lang, Words::Imported) }{ ": " }</strong>{ state.sim.scenario.preset().name.clone() }</p>
                if !notes.is_empty() {
                    <p>{ w(lang, Words::Notes) }{ ":" }</p>
                    <ul class="notes">{ for notes.iter().map(|n| html! { <li>{ n.clone() }</li> }) }</ul>
                }
            </div>
        },
        Outcome::Comparing { fitting, cluster } => html! {
            <p id="your-comparing" role="status" aria-live="polite">{ match lang {
                Lang::En => format!("Comparing with the model of {cluster}… {} simulations so far. ", fitting.borrow().simulations()),
                Lang::Zh => format!("正在与 {cluster} 的模型对比… 已完成 {} 次模拟。", fitting.borrow().simulations()),
            } }<button id="your-stop" onclick={stop}>{ w(lang, Words::Stop) }</button></p>
        },
        Outcome::Compared { comparison, cluster } => compared_view(lang, comparison, cluster, state),
    }
}

fn compared_view(lang: Lang, c: &Rc<Comparison>, cluster: &str, state: &State) -> Html {
    let open = {
        let (state, fitted) = (state.clone(), c.fitted.clone());
        Callback::from(move |_| {
            let scenario = Scenario { size_bytes: state.requested().size_bytes, ..fitted.clone() };
            state.dispatch(Action::SetScenario(Box::new(scenario)));
        })
    };
    html! {
        <div id="your-comparison">
            <p><strong>{ cluster.to_string() }</strong></p>
            <div class="table-scroll">
                <table class="compare">
                    <thead><tr>
                        <th>{ w(lang, Words::Size) }</th>
                        <th>{ format!("busbw {}", w(lang, Words::Measured)) }</th>
                        <th>{ format!("busbw {}", w(lang, Words::Model)) }</th>
                        <th>{ format!("busbw {}", w(lang, Words::Fitted)) }</th>
                        <th>{ w(lang, Words::Ratio) }</th>
                        <th>{ w(lang, Words::BoundBy) }</th>
                    </tr></thead>
                    <tbody>{ for c.rows.iter().map(|r| {
                        html! { <tr>
                            <td>{ fabricscope::units::format_bytes(r.size_bytes) }</td>
                            <td>{ format!("{:.2}", r.measured_busbw_gbyte_per_s) }</td>
                            <td>{ format!("{:.2}", r.model_busbw_gbyte_per_s) }</td>
                            <td>{ format!("{:.2}", r.fitted_busbw_gbyte_per_s()) }</td>
                            <td class={classes!((r.ratio < 0.9).then_some("low"))}>{ format!("{:.3}", r.ratio) }</td>
                            <td>{ w(lang, if r.latency_bound { Words::Latency } else { Words::Bandwidth }) }</td>
                        </tr> }
                    }) }</tbody>
                </table>
            </div>
            <CompareChart comparison={c.clone()} lang={lang} dark={state.dark} />
            <p id="your-fit" class="formula">{ cluster::comparison_summary(lang, c) }</p>
            <button id="your-open-fitted" onclick={open}>{ w(lang, Words::OpenFitted) }</button>
        </div>
    }
}

#[derive(Properties)]
struct ChartProps {
    comparison: Rc<Comparison>,
    lang: Lang,
    dark: bool,
}

impl PartialEq for ChartProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.comparison, &other.comparison) && self.lang == other.lang && self.dark == other.dark
    }
}

/// The measured busbw curve over the model's and the fitted model's, on the busbw chart's axes.
#[function_component(CompareChart)]
fn compare_chart(props: &ChartProps) -> Html {
    let canvas_ref = use_node_ref();
    {
        let canvas_ref = canvas_ref.clone();
        let (c, lang, dark) = (props.comparison.clone(), props.lang, props.dark);
        use_effect_with((Shared::of(&c), lang, dark), move |_| {
            use plotters::prelude::IntoDrawingArea;
            let Some(canvas) = canvas_ref.cast::<web_sys::HtmlCanvasElement>() else { return };
            let width = canvas.parent_element().map(|p| p.client_width()).unwrap_or(480).max(280) as u32;
            canvas.set_width(width);
            canvas.set_height(260);
            let Some(backend) = plotters_canvas::CanvasBackend::with_canvas_object(canvas) else { return };
            let series =
                |label: Words, colour: usize, busbw: &dyn Fn(&fabricscope::compare::CompareRow) -> f64| {
                    BusbwSeries {
                        label: w(lang, label).to_string(),
                        points: c.rows.iter().map(|r| (r.size_bytes, busbw(r))).collect(),
                        colour,
                    }
                };
            let all = [
                series(Words::Measured, 0, &|r| r.measured_busbw_gbyte_per_s),
                series(Words::Model, 1, &|r| r.model_busbw_gbyte_per_s),
                series(Words::Fitted, 2, &|r| r.fitted_busbw_gbyte_per_s()),
            ];
            let labels = Labels {
                caption: caption(lang).into(),
                x: t(lang, Text::ChartX).into(),
                y: t(lang, Text::ChartY).into(),
            };
            let theme = if dark { fabricscope_charts::DARK } else { fabricscope_charts::LIGHT };
            if let Err(error) = draw_busbw_curve(&backend.into_drawing_area(), &all, &[], &labels, &theme) {
                gloo::console::error!(format!("compare chart: {error:?}"));
            }
        });
    }
    html! {
        <canvas id="your-chart" ref={canvas_ref} role="img" aria-label={caption(props.lang)}></canvas>
    }
}

fn caption(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "busbw: measured, model, fitted",
        Lang::Zh => "busbw：实测、模型、拟合后的模型",
    }
}
