//! The tuner's table for the run's size, beside the engine's time.

use super::Props;
use crate::i18n::{t, Lang, Text};
use fabricscope::scenario::LatencyModel;
use fabricscope::units::format_duration_ns;
use yew::prelude::*;

/// The tuner's predictions for every protocol, its pick marked, beside the engine's time.
#[function_component(TunerTable)]
pub fn tuner_table(props: &Props) -> Html {
    let state = &props.state;
    let (lang, sim) = (state.lang, &state.sim);
    let tuning = &sim.tuning;
    let d = |ns: f64| format_duration_ns(ns);
    html! {
        <>
            <div class="table-scroll">
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
            </div>
            <p id="tuner-vs-engine" class="formula">{ match (lang, sim.schedule.latency) {
                (Lang::En, LatencyModel::Links) => format!(
                    "✓ is the tuner's pick. The engine ran {} and took {}: with the links' latencies alone, the tuner charges no launch or step latency and weighs bandwidth only; the engine adds each path's own link latencies, follows the slowest chain of data, and shares every link among the flows on it.",
                    sim.schedule.protocol.nccl_name(), d(sim.summary.time.as_ns() as f64)
                ),
                (Lang::Zh, LatencyModel::Links) => format!(
                    "✓ 为调优器的选择。引擎实际使用 {}，耗时 {}：只计链路时延时，调优器不计启动时延和每步时延，只比较带宽；引擎则加上每条路径自身的链路时延、沿最慢的数据链计时，并在每条链路上的各条流之间分配带宽。",
                    sim.schedule.protocol.nccl_name(), d(sim.summary.time.as_ns() as f64)
                ),
                (Lang::En, LatencyModel::Nccl) => format!(
                    "✓ is the tuner's pick. The engine ran {} and took {}: the tuner counts NCCL's per-step latency for {} NVLink and {} network steps and sees no contention; the engine charges each step the same latency plus what its path's links take beyond the wire NCCL's figure counts (a spine's hops, TCP's NICs), follows the slowest chain of data, and shares every link among the flows on it.",
                    sim.schedule.protocol.nccl_name(), d(sim.summary.time.as_ns() as f64), tuning.intra_steps, tuning.inter_steps
                ),
                (Lang::Zh, LatencyModel::Nccl) => format!(
                    "✓ 为调优器的选择。引擎实际使用 {}，耗时 {}：调优器按 NCCL 的模型计入 {} 个节点内步骤与 {} 个网络步骤的固定时延，且不考虑拥塞；引擎对每步计入同样的时延，再加上路径链路超出 NCCL 数值已含线路时延的部分（如 spine 的额外跳数、TCP 网卡），沿最慢的数据链计时，并在每条链路上的各条流之间分配带宽。",
                    sim.schedule.protocol.nccl_name(), d(sim.summary.time.as_ns() as f64), tuning.intra_steps, tuning.inter_steps
                ),
            } }</p>
        </>
    }
}
