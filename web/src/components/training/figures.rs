//! One training step in figures: time, tokens/s, MFU, exposed communication, memory, the
//! breakdown bar, the exports, and the difference from a job kept as A.

use super::gantt::gantt_svg;
use super::placement::placement_svg;
use super::{pct, Props};
use crate::i18n::{t, Lang, Text};
use crate::services::download::{download, export_canvas_png};
use crate::state::training::TrainAction;
use fabricscope::train::{OpKind, TrainScenario};
use fabricscope::units::{format_bytes, format_duration_ns};
use yew::prelude::*;

/// The step's figures and breakdown.
#[function_component(Figures)]
pub fn figures(props: &Props) -> Html {
    let s = &props.state;
    let lang = s.lang;
    let r = &props.report;
    let b = &r.breakdown;
    let parts: [(&str, &str, &str, f64); 8] = [
        ("compute", t(lang, Text::Compute), "part-compute", b.compute_ns),
        ("tp", t(lang, Text::TPCollectives), "part-tp", b.tp_ns),
        ("ep", t(lang, Text::EPAllToAll), "part-ep", b.ep_ns),
        ("cp", t(lang, Text::CPRingAttention), "part-cp", b.cp_ns),
        ("pp", t(lang, Text::PPSends), "part-pp", b.pp_ns),
        ("dp", t(lang, Text::DPZeROExposed), "part-dp", b.dp_ns),
        ("bubble", t(lang, Text::PipelineBubble), "part-bubble", b.bubble_ns),
        ("optimizer", t(lang, Text::Optimizer), "part-optimizer", b.optimizer_ns),
    ];
    let tp_op = r.ops.iter().find(|o| o.kind == OpKind::Tp);
    let tp_note = match (tp_op, lang) {
        (Some(op), Lang::En) => format!(
            "TP collectives take {} of the step: {} GPUs per group, {} ({} per call of {}).",
            pct(b.tp_ns / r.step_ns),
            op.group_size,
            if op.crosses_nodes { "across nodes, through the NICs" } else { "inside each node, over NVLink" },
            format_duration_ns(op.time_ns as f64),
            format_bytes(op.bytes)
        ),
        (Some(op), Lang::Zh) => format!(
            "TP 集合通信占单步 {}：每组 {} 块 GPU，{}（每次 {}，{}）。",
            pct(b.tp_ns / r.step_ns),
            op.group_size,
            if op.crosses_nodes { "跨节点、经网卡" } else { "在节点内、走 NVLink" },
            format_bytes(op.bytes),
            format_duration_ns(op.time_ns as f64)
        ),
        (None, _) => t(lang, Text::NoTensorParallelismTP1).to_string(),
    };
    let m = &r.memory;
    html! {
        <>
            <h2>{ t(lang, Text::OneTrainingStep) }</h2>
            <dl class="figures">
                <div><dt>{ t(lang, Text::StepTime) }</dt><dd id="step-time">{ format_duration_ns(r.step_ns) }</dd></div>
                <div><dt>{ "tokens/s" }</dt><dd id="tokens-per-s">{ format!("{:.0}", r.tokens_per_s) }</dd></div>
                <div><dt>{ "MFU" }</dt><dd id="mfu">{ pct(r.mfu) }</dd></div>
                <div><dt>{ t(lang, Text::ExposedCommunication) }</dt><dd id="comm-share">{ pct(r.comm_exposed_share) }</dd></div>
                <div><dt>{ t(lang, Text::MemoryPerGPU) }</dt>
                    <dd id="memory" class={classes!((!m.fits).then_some("bad"))}>{ format!("{:.1} / {:.0} GB", m.total / 1e9, m.capacity / 1e9) }</dd></div>
            </dl>
            <div class="stack" id="breakdown" role="img" aria-label={t(lang, Text::StepBreakdown)}>
                { for parts.iter().filter(|p| p.3 > 0.0).map(|(key, _, class, ns)| html! {
                    <div class={classes!("part", *class)} data-part={*key} style={format!("width: {:.3}%", 100.0 * ns / r.step_ns)}></div>
                }) }
            </div>
            <ul class="legend">
                // EP and CP are listed where the job has them (a dense model's 0 ns says nothing).
                { for parts.iter().filter(|p| match p.0 {
                    "ep" => s.job.ep > 1 || p.3 > 0.0,
                    "cp" => s.job.cp > 1 || p.3 > 0.0,
                    _ => true,
                }).map(|(key, name, class, ns)| html! {
                    <li data-part={*key}><span class={classes!("swatch", *class)}></span>{ format!("{name} {} ({})", format_duration_ns(*ns), pct(ns / r.step_ns)) }</li>
                }) }
            </ul>
            <p id="tp-note" class="formula">{ tp_note }</p>
            <div class="buttons">
                <button id="export-train" onclick={ let (h, report) = (s.clone(), props.report.clone()); Callback::from(move |_| {
                    let fabrics = h.fabrics.as_ref().as_ref().map(|rows| rows.iter().map(|row| match row { Ok(row) => serde_json::json!(row), Err((technology, why)) => serde_json::json!({ "technology": technology, "refused": why }) }).collect::<Vec<_>>());
                    let value = serde_json::json!({ "job": h.job, "report": *report, "fabrics": fabrics, "scaling": *h.scaling });
                    download("fabricscope-training.json", "application/json", &serde_json::to_string_pretty(&value).unwrap_or_default());
                }) }>{ t(lang, Text::ExportJSON) }</button>
                <button id="export-gantt" onclick={ Callback::from(|_| export_canvas_png("gantt", "fabricscope-1f1b.png")) }>{ t(lang, Text::N1F1BChartPNG) }</button>
                <button id="export-gantt-svg" onclick={ let (h, report) = (s.clone(), props.report.clone()); Callback::from(move |_| download("fabricscope-1f1b.svg", "image/svg+xml", &gantt_svg(&h, &report))) }>{ t(lang, Text::N1F1BChartSVG) }</button>
                <button id="export-placement" onclick={ Callback::from(|_| export_canvas_png("placement", "fabricscope-placement.png")) }>{ t(lang, Text::PlacementPNG) }</button>
                <button id="export-placement-svg" onclick={ let (h, report) = (s.clone(), props.report.clone()); Callback::from(move |_| download("fabricscope-placement.svg", "image/svg+xml", &placement_svg(&h, &report))) }>{ t(lang, Text::PlacementSVG) }</button>
                <button id="pin-a" aria-pressed={s.pinned.is_some().to_string()} onclick={ let h = s.clone(); let on = s.pinned.is_none(); Callback::from(move |_| h.dispatch(TrainAction::Pin(on))) }>
                    { if s.pinned.is_some() { t(lang, Text::ForgetA) } else { t(lang, Text::KeepThisJobAsA) } }
                </button>
            </div>
            if let Some(pinned) = &s.pinned {
                <p id="ab-train" class="formula">{ train_difference(lang, &pinned.0, &pinned.1, &s.job, r) }</p>
            }
            if !m.fits {
                <p class="bad" id="memory-warning">{ match lang {
                    Lang::En => format!("Does not fit: {:.1} GB needed per GPU (weights {:.1}, gradients {:.1}, optimizer {:.1}, activations {:.1}) but the GPU has {:.0} GB. More PP or TP, ZeRO or recomputation shrink it.", m.total / 1e9, m.weights / 1e9, m.grads / 1e9, m.optimizer / 1e9, m.activations / 1e9, m.capacity / 1e9),
                    Lang::Zh => format!("放不下：每 GPU 需要 {:.1} GB（权重 {:.1}、梯度 {:.1}、优化器 {:.1}、激活 {:.1}），而 GPU 只有 {:.0} GB。增大 PP 或 TP、使用 ZeRO 或重计算可以减少。", m.total / 1e9, m.weights / 1e9, m.grads / 1e9, m.optimizer / 1e9, m.activations / 1e9, m.capacity / 1e9),
                } }</p>
            }
        </>
    }
}

/// A/B for training jobs in words: how much slower or faster this job's step is than A's, in
/// which part most, and whether TP left (or came back into) the nodes.
fn train_difference(
    lang: Lang,
    a_job: &TrainScenario,
    a: &fabricscope::train::TrainReport,
    b_job: &TrainScenario,
    b: &fabricscope::train::TrainReport,
) -> String {
    let d = fabricscope::train::difference(a, b);
    let part = match (lang, d.part) {
        (Lang::En, "compute") => "compute",
        (Lang::En, "tp") => "the TP collectives",
        (Lang::En, "pp") => "the pipeline sends",
        (Lang::En, "dp") => "DP / ZeRO communication",
        (Lang::En, "bubble") => "the pipeline bubble",
        (Lang::En, _) => "the optimizer",
        (Lang::Zh, "compute") => "计算",
        (Lang::Zh, "tp") => "TP 集合通信",
        (Lang::Zh, "pp") => "流水线发送",
        (Lang::Zh, "dp") => "DP / ZeRO 通信",
        (Lang::Zh, "bubble") => "流水线气泡",
        (Lang::Zh, _) => "优化器",
    };
    let layout = |j: &TrainScenario| format!("TP {} × PP {} × DP {}", j.tp, j.pp, j.dp);
    let tp = match (lang, d.tp_crosses) {
        (Lang::En, (false, true)) => " Its TP collectives cross the NICs; A's stay inside the nodes.",
        (Lang::En, (true, false)) => " Its TP collectives stay inside the nodes; A's cross the NICs.",
        (Lang::Zh, (false, true)) => " 它的 TP 集合通信要经过网卡，而 A 的留在节点内。",
        (Lang::Zh, (true, false)) => " 它的 TP 集合通信留在节点内，而 A 的要经过网卡。",
        _ => "",
    };
    let pct = format!("{:.1}%", 100.0 * d.step_change.abs());
    match lang {
        Lang::En => format!(
            "This job ({}) takes {} {} per step than A ({}): {} vs {}. Most of the change is {}: {} vs {}.{tp}",
            layout(b_job), pct, if d.step_change >= 0.0 { "longer" } else { "less" }, layout(a_job),
            format_duration_ns(b.step_ns), format_duration_ns(a.step_ns), part, format_duration_ns(d.part_b_ns), format_duration_ns(d.part_a_ns)
        ),
        Lang::Zh => format!(
            "此作业（{}）每步比 A（{}）{} {}：{} 对 {}。变化主要来自{}：{} 对 {}。{tp}",
            layout(b_job), layout(a_job), if d.step_change >= 0.0 { "慢" } else { "快" }, pct,
            format_duration_ns(b.step_ns), format_duration_ns(a.step_ns), part, format_duration_ns(d.part_b_ns), format_duration_ns(d.part_a_ns)
        ),
    }
}
