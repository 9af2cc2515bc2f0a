//! The collectives of one step, each with its engine time, and the scaling table.

use super::{pct, Props};
use crate::i18n::{extrapolated, shared, t, Lang, Shared, Text};
use fabricscope::train::comm::OpMethod;
use fabricscope::train::prefix::RingPrefix;
use fabricscope::train::{Op, StepOp};
use fabricscope::units::{format_bytes, format_duration_ns};
use yew::prelude::*;

/// The step's collectives and the DP scaling points.
#[function_component(Ops)]
pub fn ops(props: &Props) -> Html {
    let s = &props.state;
    let lang = s.lang;
    let r = &props.report;
    html! {
        <>
            <h2>{ t(lang, Text::CollectivesOfOneStepEach) }</h2>
            <div class="table-scroll">
                <table class="ops" id="ops">
                    <thead><tr>
                        <th>{ t(lang, Text::Kind) }</th><th>{ t(lang, Text::Operation) }</th><th>{ t(lang, Text::GroupsRanks) }</th>
                        <th>{ t(lang, Text::Bytes) }</th><th>{ t(lang, Text::CallsStep) }</th><th>{ t(lang, Text::TimeCall) }</th><th>{ t(lang, Text::Where) }</th>
                    </tr></thead>
                    <tbody>
                        { for r.ops.iter().map(|op| html! {
                            <tr data-kind={format!("{:?}", op.kind)}>
                                <td>{ format!("{:?}", op.kind).to_uppercase() }</td>
                                <td>{ op_name(lang, op.op) }</td>
                                <td>{ format!("{} × {}", op.groups, op.group_size) }</td>
                                <td>{ format_bytes(op.bytes) }</td>
                                <td>{ format!("{:.0}", op.calls) }</td>
                                <td class={classes!(extrapolated_of(op).is_some().then_some("extrapolated"))}>
                                    { format_duration_ns(op.time_ns as f64) }
                                    if extrapolated_of(op).is_some() { { "\u{a0}" }{ extrapolated::MARK } }
                                </td>
                                <td class={classes!(op.crosses_nodes.then_some("crosses"))}>{ if op.crosses_nodes { t(lang, Text::CrossesNodes) } else { t(lang, Text::InsideNodes) } }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
            { for extrapolated_notes(lang, &r.ops).into_iter().map(|note| html! {
                <p class="hint op-method">{ note }</p>
            }) }
            if !r.contention.is_empty() {
                <h2>{ shared(lang, Shared::Heading) }</h2>
                <p class="hint">{ shared(lang, Shared::Caption) }</p>
                <div class="table-scroll">
                    <table class="ops" id="contention">
                        <thead><tr>
                            <th>{ shared(lang, Shared::Traffic) }</th><th>{ shared(lang, Shared::With) }</th>
                            <th>{ shared(lang, Shared::Alone) }</th><th>{ shared(lang, Shared::Together) }</th>
                            <th>{ shared(lang, Shared::Meets) }</th><th>{ shared(lang, Shared::Mean) }</th>
                        </tr></thead>
                        <tbody>
                            { for r.contention.iter().map(|c| html! {
                                <tr data-kind={format!("{:?}", c.op)} data-with={format!("{:?}", c.with)}>
                                    <td>{ format!("{:?}", c.op).to_uppercase() }</td>
                                    <td>{ format!("{:?}", c.with).to_uppercase() }</td>
                                    <td>{ format_duration_ns(c.alone_ns as f64) }</td>
                                    <td>{ format!("{} (+{:.0}%)", format_duration_ns(c.together_ns as f64), 100.0 * (c.together_ns as f64 / c.alone_ns.max(1) as f64 - 1.0)) }</td>
                                    <td>{ pct(c.share) }</td>
                                    <td class="mean">{ format_duration_ns(c.alone_ns as f64 + c.mean_extra_ns()) }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                </div>
            }
            <h2>{ t(lang, Text::ScalingMoreNodesForDP) }</h2>
            <div class="table-scroll">
                <table class="ops" id="scaling" data-complete={(s.scaling_todo.is_empty() && s.extra.is_none()).to_string()}>
                    <thead><tr><th>{ "GPUs" }</th><th>{ "tokens/s" }</th><th>{ t(lang, Text::EfficiencyPerGPU) }</th></tr></thead>
                    <tbody>
                        { for s.scaling.iter().map(|&(gpus, tps, eff)| html! {
                            <tr><td>{ gpus }</td><td>{ format!("{tps:.0}") }</td>
                                <td><span class="bar" style={format!("width: {:.1}px", 80.0 * eff.min(1.2))}></span>{ " " }{ pct(eff) }</td></tr>
                        }) }
                        if !s.scaling_todo.is_empty() {
                            <tr><td colspan="3" class="hint">{ t(lang, Text::Simulating) }</td></tr>
                        }
                        if let Some(stop) = &s.scaling_stop {
                            <tr><td colspan="3" class="hint" id="scaling-stop">{ shared(lang, Shared::ScalingStops) }{ stop.as_str() }</td></tr>
                        }
                    </tbody>
                </table>
            </div>
        </>
    }
}

/// How an op extrapolated from its groups' first steps ran; `None` where every transfer ran.
fn extrapolated_of(op: &Op) -> Option<RingPrefix> {
    match op.method {
        OpMethod::Extrapolated(p) => Some(p),
        OpMethod::Exact => None,
    }
}

/// One note per way the extrapolated ops ran, naming them ("DP ReduceScatter gradients").
fn extrapolated_notes(lang: Lang, ops: &[Op]) -> Vec<String> {
    let mut ways: Vec<(RingPrefix, Vec<String>)> = Vec::new();
    for op in ops {
        let Some(p) = extrapolated_of(op) else { continue };
        let name = format!("{} {}", format!("{:?}", op.kind).to_uppercase(), op_name(lang, op.op));
        match ways.iter_mut().find(|(q, _)| *q == p) {
            Some((_, names)) => names.push(name),
            None => ways.push((p, vec![name])),
        }
    }
    let and = if lang == Lang::Zh { "、" } else { ", " };
    ways.iter().map(|(p, names)| extrapolated::op_note(lang, &names.join(and), p)).collect()
}

/// Each collective of the step in the page's language.
fn op_name(lang: Lang, op: StepOp) -> &'static str {
    match (lang, op) {
        (Lang::En, op) => op.name(),
        (Lang::Zh, StepOp::SequenceAllGather) => "AllGather（序列并行）",
        (Lang::Zh, StepOp::SequenceReduceScatter) => "ReduceScatter（序列并行）",
        (Lang::Zh, StepOp::TpAllReduce) => "AllReduce",
        (Lang::Zh, StepOp::PipelineSendRecv) => "发送/接收激活及其梯度",
        (Lang::Zh, StepOp::LayerParamGather) => "AllGather 层参数（ZeRO-3）",
        (Lang::Zh, StepOp::GradAllReduce) => "AllReduce 梯度",
        (Lang::Zh, StepOp::GradReduceScatter) => "ReduceScatter 梯度（ZeRO）",
        (Lang::Zh, StepOp::UpdatedParamGather) => "AllGather 更新后的参数（ZeRO）",
        (Lang::Zh, StepOp::ExpertDispatch) => "AllToAll 把 token 分发给专家",
        (Lang::Zh, StepOp::ExpertCombine) => "AllToAll 汇合专家的输出",
        (Lang::Zh, StepOp::ExpertGradAllReduce) => "AllReduce 专家梯度",
        (Lang::Zh, StepOp::ExpertGradReduceScatter) => "ReduceScatter 专家梯度（ZeRO）",
        (Lang::Zh, StepOp::ExpertParamGather) => "AllGather 更新后的专家参数（ZeRO）",
        (Lang::Zh, StepOp::ContextKvPass) => "沿 CP 环发送/接收 K 与 V",
        (Lang::Zh, StepOp::ContextKvGradPass) => "发送/接收 K、V 及其梯度（CP）",
    }
}
