//! The busbw chart: busbw against message size, one curve per algorithm, its points simulated
//! by the page's workers (`services::workers`), or where there are none one per idle slice on
//! the main thread; exported as SVG or PNG.

use super::Props;
use crate::hooks::slices::use_next_slice;
use crate::i18n::{self, t, Lang, Text};
use crate::services::download::{download, export_canvas_png};
use crate::services::workers::{
    feed_curve, point_outcome, running_points, warn_no_workers, PointTask, Pool, Report,
};
use crate::state::collectives::{Action, CurveOutcome};
use crate::state::page_job::{now_ms, MAIN_THREAD_POINT_TRANSFERS};
use crate::state::slices::{curve_slice, Helping};
use crate::state::Shared;
use fabricscope::collective::Algorithm;
use fabricscope::units::format_bytes;
use fabricscope_charts::{draw_busbw_curve, BusbwSeries, Labels, Marker};
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Chart points a worker holds at once (`Pool::set_depth`): the next ones queued behind the
/// one it runs, so it never waits for the page's thread between two (a link to 8 nodes: the
/// worker's first 16 points came 30 ms apart while the page ran its own scenario in slices).
const POINTS_PER_WORKER: usize = 3;

/// The busbw chart of the current hardware.
#[function_component(Chart)]
pub fn chart(props: &Props) -> Html {
    let state = &props.state;
    let canvas_ref = use_node_ref();
    // The curve's points run in the page's workers, side by side, front first (one core is
    // left to the main thread and the animation, `Pool::new`), on the hardware asked for: from
    // the moment a link opens, beside its own run; after a change the reader made, once it shows
    // (on two cores a worker beside the change's slices made its result 30% later). The main
    // thread takes points from the back between frames when it is idle: nothing pending, the
    // animation paused, and points small enough for its slices (`MAIN_THREAD_POINT_TRANSFERS`).
    // Where workers cannot start, its slices take them all, front first.
    let workers_run = use_state(|| true);
    let pool = use_mut_ref(|| None::<Rc<RefCell<Pool<PointTask>>>>);
    let small = state.curve.transfers <= MAIN_THREAD_POINT_TRANSFERS;
    let quiet = !state.playing && state.pending.is_none();
    let main_helping = quiet && (small || !*workers_run);
    // Nothing for the page's thread to do (paused, nothing pending, taking no points): the
    // workers may have its core too (`Pool::set_idle`).
    let idle = quiet && !main_helping;
    let workers_wanted = state.pending.as_ref().is_none_or(|p| p.opening);
    // The link's own run, the tuner's choice, gives NVLSTree's point at its size (the likely
    // pick, and the costliest point at 1,024 GPUs) when it is shown: the workers leave it.
    let left = state
        .pending
        .as_ref()
        .filter(|p| p.opening && p.scenario.algorithm.is_none())
        .map(|p| (p.scenario.size_bytes, Some(fabricscope::collective::Algorithm::NvlsTree)));
    {
        let (s, workers_run, pool) = (state.clone(), workers_run.clone(), pool.clone());
        let curve = &state.curve;
        let deps = (
            curve.generation,
            Shared::of(&curve.todo),
            Shared::of(&curve.early),
            curve.main_point(),
            (workers_wanted, main_helping, left),
            *workers_run,
            (state.scenario.size_bytes, idle),
        );
        use_effect_with(deps, move |&(_, _, _, _, (wanted, main_helping, left), run, (_, idle))| {
            if run {
                let pool = pool
                    .borrow_mut()
                    .get_or_insert_with(|| {
                        let (dispatch, broken) = (s.dispatcher(), workers_run.clone());
                        let pool = Pool::new(usize::MAX, move |report| match report {
                            Report::Done { tag: (generation, key), result } => {
                                dispatch.dispatch(Action::Curve {
                                    generation,
                                    key,
                                    outcome: CurveOutcome::Done(point_outcome(key, result)),
                                })
                            }
                            Report::Broken(why) => {
                                warn_no_workers("busbw chart", &why);
                                broken.set(false);
                            }
                        });
                        pool.borrow_mut().set_depth(POINTS_PER_WORKER);
                        pool
                    })
                    .clone();
                pool.borrow_mut().set_idle(idle);
                let broken = feed_curve(
                    &mut pool.borrow_mut(),
                    (&s.curve, s.scenario.size_bytes),
                    (wanted, left),
                    main_helping,
                );
                if let Some(why) = broken {
                    warn_no_workers("busbw chart", &why);
                    workers_run.set(false);
                }
            }
        });
    }
    // The main thread's slices: one more slice after each paint.
    {
        let (s, pool) = (state.clone(), pool.clone());
        let deps = (
            state.curve.todo.len(),
            Shared::of(&state.curve.todo),
            Shared::of(&state.curve.early),
            main_helping,
            state.work_tick,
            *workers_run,
        );
        let (todo, _, _, _, _, run) = deps;
        use_next_slice(deps, todo > 0 && main_helping, 0, move || {
            let pool = pool.borrow().clone();
            let busy: Vec<_> = match (&pool, run) {
                (Some(pool), true) => running_points(&pool.borrow()),
                _ => Vec::new(),
            };
            let helping = if run { Helping::Beside(&busy) } else { Helping::Alone };
            if let Some(report) = curve_slice(&s, now_ms, helping) {
                s.dispatch(report);
            }
        });
    }
    {
        let canvas_ref = canvas_ref.clone();
        let deps = (
            state.curve.points.clone(),
            state.requested().size_bytes,
            state.lang,
            state.dark,
            (state.curve.scenario.collective, state.curve.gpus),
        );
        use_effect_with(deps, move |(curve, size, lang, dark, of)| {
            let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() else { return };
            let width = canvas.parent_element().map(|p| p.client_width()).unwrap_or(560).max(320) as u32;
            canvas.set_width(width);
            canvas.set_height(300);
            let Some(backend) = CanvasBackend::with_canvas_object(canvas) else { return };
            let (series, markers, labels) = chart_parts(curve, *size, *lang, *of);
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
        let (curve, size, lang, of) = (
            state.curve.points.clone(),
            state.requested().size_bytes,
            state.lang,
            (state.curve.scenario.collective, state.curve.gpus),
        );
        Callback::from(move |_| {
            let (series, markers, labels) = chart_parts(&curve, size, lang, of);
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
    // Each curve's busbw at the scenario's size, as the results show it (for a reader's tools
    // and the browser tests: the tuner's pick ran is the results' figure).
    let here = state
        .curve
        .points
        .iter()
        .filter(|p| p.size_bytes == state.scenario.size_bytes)
        .map(|p| format!("{}:{:.1}", p.algorithm.nccl_name(), p.busbw_gbyte_per_s))
        .collect::<Vec<_>>()
        .join(" ");
    let gaps = if state.curve.is_complete() { state.curve.left_off() } else { Vec::new() };
    // Where the chart's NVLSTree point at the size shown was cut into fewer chunks than NCCL
    // cuts: how it was fitted to NCCL's (the point's own figures).
    let nvls_tree_note = state
        .curve
        .points
        .iter()
        .find(|p| {
            p.algorithm == fabricscope::collective::Algorithm::NvlsTree
                && p.size_bytes == state.scenario.size_bytes
        })
        .and_then(|p| p.chunk_fit.map(|fit| (p.size_bytes, fit)))
        .map(|(size, fit)| {
            let g = state.curve.gpus / state.curve.scenario.nodes.max(1);
            i18n::nvls_tree_chunking(state.lang, size, g, &fit)
        });
    // Points bounded by max-min sharing rather than simulated (an AllToAll beyond the page's
    // runs): from which size, and how far above the run's their busbw may lie.
    let bounded: Vec<(u64, f64, f64)> = state
        .curve
        .points
        .iter()
        .filter_map(|p| p.upper_bound_us.map(|upper| (p.size_bytes, p.time_us, upper)))
        .collect();
    let bounded_note = i18n::bounded::chart_note(state.lang, &bounded);
    // Points whose chain ran on fewer nodes and was extrapolated (a Broadcast or Reduce beyond
    // the page's runs).
    let chains: Vec<(u64, u32)> =
        state.curve.points.iter().filter_map(|p| p.chain.map(|run| (p.size_bytes, run.nodes_run))).collect();
    let chain_note = i18n::chain::chart_note(state.lang, &chains);
    html! {
        <>
            <canvas id="busbw-chart" ref={canvas_ref} data-here={here} role="img" aria-label={i18n::chart_caption(state.lang, state.curve.scenario.collective, state.curve.gpus)}
                data-points={state.curve.points.len().to_string()} data-gpus={state.curve.gpus.to_string()} data-complete={state.curve.is_complete().to_string()}
                data-workers={(*workers_run).to_string()} data-curve-hash={state.curve.hash()}></canvas>
            if let Some(note) = nvls_tree_note {
                <p class="hint" id="chart-nvlstree-chunks">{ note }</p>
            }
            if let Some(note) = bounded_note {
                <p class="hint" id="chart-bounded">{ note }</p>
            }
            if let Some(note) = chain_note {
                <p class="hint" id="chart-chain">{ note }</p>
            }
            if !gaps.is_empty() {
                <p class="hint" id="chart-left-off">{ i18n::chart_left_off(state.lang, gaps.iter().map(|g| (g.curve.as_str(), g.first, g.last, g.open))) }</p>
            }
            <div class="buttons"><button id="export-svg" onclick={export_svg}>{ t(state.lang, Text::ChartSVG) }</button>
                <button id="export-chart-png" onclick={Callback::from(|_| export_canvas_png("busbw-chart", "fabricscope-busbw.png"))}>{ t(state.lang, Text::ChartPNG) }</button></div>
        </>
    }
}

/// The busbw chart's curves (one per algorithm), markers (this size, the crossover) and labels.
fn chart_parts(
    curve: &[fabricscope::SweepPoint],
    size: u64,
    lang: Lang,
    (collective, gpus): (fabricscope::Collective, u32),
) -> (Vec<BusbwSeries>, Vec<Marker>, Labels) {
    // One curve per algorithm, each in its own colour; the crossover is where the best
    // algorithm changes.
    let mut series: Vec<BusbwSeries> = Vec::new();
    for point in curve.iter() {
        let label = point.algorithm.nccl_name().to_string();
        let at = (point.size_bytes, point.busbw_gbyte_per_s);
        match series.iter_mut().find(|s| s.label == label) {
            Some(s) => s.points.push(at),
            None => series.push(BusbwSeries { label, points: vec![at], colour: colour(point.algorithm) }),
        }
    }
    fabricscope::sort::by_key(&mut series, |s| s.colour);
    let mut markers = vec![Marker { size, label: format_bytes(size) }];
    if let Some((at, from, to)) = crossover(curve) {
        let label = format!("{} → {} {}", from.nccl_name(), to.nccl_name(), t(lang, Text::Crossover));
        markers.push(Marker { size: at, label });
    }
    let labels = Labels {
        caption: i18n::chart_caption(lang, collective, gpus),
        x: t(lang, Text::ChartX).into(),
        y: t(lang, Text::ChartY).into(),
    };
    (series, markers, labels)
}

/// A curve's colour (`Theme::series`): each algorithm its own whichever others are drawn, in
/// the order the legend lists them (NVLS runs on one node, NVLSTree across nodes: never both).
fn colour(algorithm: Algorithm) -> usize {
    match algorithm {
        // PAT runs AllGather and ReduceScatter, where no Tree curve is drawn.
        Algorithm::Tree | Algorithm::Pat => 1,
        Algorithm::Nvls | Algorithm::NvlsTree => 2,
        Algorithm::CollNet => 3,
        _ => 0,
    }
}

/// The first size from which the algorithm with the highest busbw differs from the smallest
/// size's best (where NCCL would switch, from Tree to Ring most often), with the two.
fn crossover(curve: &[fabricscope::SweepPoint]) -> Option<(u64, Algorithm, Algorithm)> {
    let at = |size: u64| curve.iter().filter(move |p| p.size_bytes == size);
    let best = |size: u64| at(size).max_by(|a, b| a.busbw_gbyte_per_s.total_cmp(&b.busbw_gbyte_per_s));
    let has = |size: u64, algorithm: Algorithm| at(size).any(|p| p.algorithm == algorithm);
    // Only where curves meet (two or more drawn at a size): a curve left off there says nothing.
    let mut sizes: Vec<u64> = curve.iter().map(|p| p.size_bytes).collect();
    sizes.dedup();
    sizes.retain(|&size| at(size).count() > 1);
    let first = best(*sizes.first()?)?.algorithm;
    // The first size another leads, where the leader before was drawn beside it a size before
    // (else where they crossed is not on the chart).
    let pair = sizes.windows(2).find(|pair| best(pair[1]).is_some_and(|p| p.algorithm != first))?;
    let to = best(pair[1])?.algorithm;
    (has(pair[0], to) && has(pair[1], first)).then_some((pair[1], first, to))
}
