//! The collectives of one step, each with its engine time, and the scaling table.

use super::{pct, Props};
use crate::i18n::{pick, Lang};
use fabricscope::train::StepOp;
use fabricscope::units::{format_bytes, format_duration_ns};
use yew::prelude::*;

/// The step's collectives and the DP scaling points.
#[function_component(Ops)]
pub fn ops(props: &Props) -> Html {
    let s = &props.state;
    let lang = s.lang;
    let r = &s.report;
    html! {
        <>
            <h2>{ pick(lang, "Collectives of one step (each simulated with every group at once)", "单步中的集合通信（每种都让所有组同时在引擎中运行）") }</h2>
            <table class="ops" id="ops">
                <thead><tr>
                    <th>{ pick(lang, "kind", "类型") }</th><th>{ pick(lang, "operation", "操作") }</th><th>{ pick(lang, "groups × ranks", "组数 × 组大小") }</th>
                    <th>{ pick(lang, "bytes", "字节") }</th><th>{ pick(lang, "calls/step", "每步次数") }</th><th>{ pick(lang, "time/call", "每次耗时") }</th><th>{ pick(lang, "where", "位置") }</th>
                </tr></thead>
                <tbody>
                    { for r.ops.iter().map(|op| html! {
                        <tr data-kind={format!("{:?}", op.kind)}>
                            <td>{ format!("{:?}", op.kind).to_uppercase() }</td>
                            <td>{ op_name(lang, op.op) }</td>
                            <td>{ format!("{} × {}", op.groups, op.group_size) }</td>
                            <td>{ format_bytes(op.bytes) }</td>
                            <td>{ format!("{:.0}", op.calls) }</td>
                            <td>{ format_duration_ns(op.time_ns as f64) }</td>
                            <td class={classes!(op.crosses_nodes.then_some("crosses"))}>{ if op.crosses_nodes { pick(lang, "crosses nodes", "跨节点") } else { pick(lang, "inside nodes", "节点内") } }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            <h2>{ pick(lang, "Scaling: more nodes for DP", "扩展：增加节点做数据并行") }</h2>
            <table class="ops" id="scaling">
                <thead><tr><th>{ "GPUs" }</th><th>{ "tokens/s" }</th><th>{ pick(lang, "efficiency per GPU", "每 GPU 效率") }</th></tr></thead>
                <tbody>
                    { for s.scaling.iter().map(|&(gpus, tps, eff)| html! {
                        <tr><td>{ gpus }</td><td>{ format!("{tps:.0}") }</td>
                            <td><span class="bar" style={format!("width: {:.1}px", 80.0 * eff.min(1.2))}></span>{ " " }{ pct(eff) }</td></tr>
                    }) }
                    if !s.scaling_todo.is_empty() {
                        <tr><td colspan="3" class="hint">{ pick(lang, "simulating…", "模拟中…") }</td></tr>
                    }
                </tbody>
            </table>
        </>
    }
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
    }
}
