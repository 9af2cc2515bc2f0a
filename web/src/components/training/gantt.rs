//! The 1F1B pipeline schedule as a Gantt chart, one row per stage, with its play controls.

use super::{canvas_width, context, drawn_width, pct, Props};
use crate::i18n::{t, Lang, Text};
use crate::render::palette::TrainPalette;
use crate::render::surface::Svg;
use crate::render::training as train_paint;
use crate::state::training::{TrainAction, TrainState};
use fabricscope::train::TrainReport;
use fabricscope::units::format_duration_ns;
use web_sys::{HtmlCanvasElement, HtmlInputElement};
use yew::prelude::*;

/// The 1F1B chart as SVG, as the canvas shows it now (light theme).
pub fn gantt_svg(s: &TrainState, report: &TrainReport) -> String {
    let width = drawn_width("gantt");
    let stages = report.blocks.iter().map(|b| b.stage + 1).max().unwrap_or(1);
    let svg = Svg::new();
    train_paint::paint_gantt(&svg, width, report, s.playhead, s.lang, TrainPalette::of(false));
    svg.finish(width, train_paint::gantt_height(stages))
}

/// The 1F1B chart at the playhead, and play, scrub and clock.
#[function_component(Gantt)]
pub fn gantt(props: &Props) -> Html {
    let s = &props.state;
    let lang = s.lang;
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        let (report, playhead, dark) = (props.report.clone(), s.playhead, s.dark);
        use_effect_with((report.clone(), playhead.to_bits(), dark, lang), move |_| {
            if let Some(element) = canvas.cast::<HtmlCanvasElement>() {
                let width = canvas_width(&canvas);
                let stages = report.blocks.iter().map(|b| b.stage + 1).max().unwrap_or(1);
                if let Some(ctx) = context(&element, width, train_paint::gantt_height(stages)) {
                    train_paint::paint_gantt(&ctx, width, &report, playhead, lang, TrainPalette::of(dark));
                }
            }
        });
    }
    let on_play = {
        let s = s.clone();
        Callback::from(move |_| s.dispatch(TrainAction::TogglePlay))
    };
    let on_scrub = {
        let s = s.clone();
        Callback::from(move |e: InputEvent| {
            if let Ok(v) = e.target_unchecked_into::<HtmlInputElement>().value().parse::<f64>() {
                s.dispatch(TrainAction::Seek(v));
            }
        })
    };
    let r = &props.report;
    let stages = r.blocks.iter().map(|b| b.stage + 1).max().unwrap_or(1);
    let parts = [
        ("part-compute", t(lang, Text::Forward)),
        ("part-backward", t(lang, Text::Backward)),
        ("part-tp", t(lang, Text::TPCollective)),
        ("part-ep", t(lang, Text::EPAllToAll)),
        ("part-cp", t(lang, Text::CPRingAttention)),
        ("part-pp", t(lang, Text::PPSendReceive)),
        ("part-dp", t(lang, Text::DPZeRO)),
        ("part-optimizer", t(lang, Text::Optimizer)),
    ];
    html! {
        <>
            <h2>{ t(lang, Text::PipelineSchedule1F1BOneRow) }</h2>
            // Its height from the first render: the controls below do not move once it is painted.
            <div class="canvas-wrap"><canvas id="gantt" ref={canvas} data-stages={s.job.pp.to_string()}
                style={format!("height: {}px", train_paint::gantt_height(stages))}></canvas></div>
            <div class="transport">
                <button id="train-play" class="primary" onclick={on_play}>{ if s.playing { t(lang, Text::Pause) } else { t(lang, Text::Play) } }</button>
                <input id="train-scrub" type="range" min="0" max={format!("{}", r.step_ns.floor())} step="any" value={format!("{}", s.playhead)} oninput={on_scrub}
                    aria-label={t(lang, Text::TimeInTheStep)}
                    aria-valuetext={format!("{} / {}", format_duration_ns(s.playhead), format_duration_ns(r.step_ns))} />
                <span id="train-clock">{ format!("{} / {}", format_duration_ns(s.playhead), format_duration_ns(r.step_ns)) }</span>
            </div>
            <ul class="legend">
                { for parts.iter().map(|(class, name)| html! { <li><span class={classes!("swatch", *class)}></span>{ *name }</li> }) }
                <li><span class="swatch part-idle"></span>{ t(lang, Text::IdleTheBubble) }</li>
            </ul>
            <p class="formula">{ {
                let (m, p, v) = (r.micro_batches as f64, s.job.pp as f64, r.virtual_stages as f64);
                let share = pct((p - 1.0) / (v * m + p - 1.0));
                match (lang, r.virtual_stages > 1) {
                    (Lang::En, false) => format!("{} micro-batches through {} stages: the first stage waits for nothing, the last starts after {} forwards; (p − 1) / (m + p − 1) = {share} of the pipeline is bubble when stages are equal.", r.micro_batches, s.job.pp, s.job.pp.saturating_sub(1)),
                    (Lang::Zh, false) => format!("{} 个微批经过 {} 个阶段：第一阶段立即开始，最后一阶段要等 {} 次前向；各阶段相同时，气泡占流水线的 (p − 1) / (m + p − 1) = {share}。", r.micro_batches, s.job.pp, s.job.pp.saturating_sub(1)),
                    (Lang::En, true) => format!("{} micro-batches through {} stages of {} model chunks each (interleaved 1F1B): each micro-batch passes the pipeline {} times in shorter blocks, so fill and drain shrink to (p − 1)/v of a micro-batch's time; (p − 1) / (v·m + p − 1) = {share} of the pipeline is bubble when stages are equal, for {}× the pipeline sends.", r.micro_batches, s.job.pp, r.virtual_stages, r.virtual_stages, r.virtual_stages),
                    (Lang::Zh, true) => format!("{} 个微批经过 {} 个阶段，每阶段 {} 个模型块（交错 1F1B）：每个微批绕流水线 {} 圈、每块更短，填充与排空缩到一个微批时间的 (p − 1)/v；各阶段相同时，气泡占流水线的 (p − 1) / (v·m + p − 1) = {share}，代价是 {} 倍的流水线发送。", r.micro_batches, s.job.pp, r.virtual_stages, r.virtual_stages, r.virtual_stages),
                }
            } }</p>
        </>
    }
}
