//! Cost and checkpoints of the whole training run, and the same job on every fabric.

use super::{pct, Props};
use crate::i18n::{problem_text, t, Lang, Text};
use fabricscope::catalog::Technology;
use fabricscope::units::format_duration_ns;
use yew::prelude::*;

/// Days, GPU-hours and cost; checkpoint overhead; every fabric side by side.
#[function_component(CostPanel)]
pub fn cost_panel(props: &Props) -> Html {
    let s = &props.state;
    let lang = s.lang;
    let r = &props.report;
    let c = &r.cost;
    let st = &r.storage;
    let assumed = s.job.cost.gpu_hour_usd.is_none();
    let fabrics = match s.fabrics.as_ref() {
        None => {
            html! { <p class="hint">{ t(lang, Text::SimulatingTheOtherFabrics) }</p> }
        }
        Some(outcomes) => {
            let ran = || outcomes.iter().filter_map(|row| row.as_ref().ok());
            let tcp = ran().find(|row| row.technology == Technology::Tcp).cloned();
            let ib = ran().find(|row| row.technology == Technology::Infiniband).cloned();
            // Each reason once: the fabrics beyond the engine for one cause share it.
            let mut refusals: Vec<&String> = Vec::new();
            for (_, why) in outcomes.iter().filter_map(|row| row.as_ref().err()) {
                if !refusals.contains(&why) {
                    refusals.push(why);
                }
            }
            html! {
                <>
                    <div class="table-scroll">
                        <table class="ops" id="fabrics">
                            <thead><tr><th>{ t(lang, Text::FabricColumn) }</th><th>{ t(lang, Text::StepColumn) }</th><th>{ t(lang, Text::ExposedComm) }</th>
                                <th>{ t(lang, Text::Days) }</th><th>{ "$/GPU-h" }</th><th>{ t(lang, Text::Cost) }</th></tr></thead>
                            <tbody>
                                { for outcomes.iter().map(|outcome| match outcome {
                                    Ok(row) => html! {
                                        <tr class={classes!((row.technology == s.job.cluster.fabric.technology).then_some("current"))}>
                                            <td>{ row.technology.spec().name }</td><td>{ format_duration_ns(row.step_ns) }</td><td>{ pct(row.comm_exposed_share) }</td>
                                            <td>{ format!("{:.1}", row.days) }</td><td>{ format!("{:.2}", row.gpu_hour_usd) }</td><td>{ format!("${:.0}", row.usd) }</td>
                                        </tr>
                                    },
                                    // Beyond the engine on that fabric: its name; why, under the table.
                                    Err((technology, _)) => html! {
                                        <tr class="refused">
                                            <td>{ technology.spec().name }</td><td colspan="5" class="bad">{ t(lang, Text::BeyondTheEngineHere) }</td>
                                        </tr>
                                    },
                                }) }
                            </tbody>
                        </table>
                    </div>
                    { for refusals.iter().map(|why| html! { <p class="bad fabrics-refused">{ problem_text(lang, why) }</p> }) }
                    if let (Some(ib), Some(tcp)) = (ib, tcp) {
                        <p class="formula" id="fabric-verdict">{ {
                            let time = 1.0 - ib.days / tcp.days;
                            let money = 1.0 - ib.usd / tcp.usd;
                            let ratio = format!("{:.2}", ib.gpu_hour_usd / tcp.gpu_hour_usd);
                            let (en, zh) = if money >= 0.0 { ("less", "少") } else { ("more", "多") };
                            match lang {
                                Lang::En => format!("InfiniBand against TCP Ethernet here: {} less time and {} {en} money ({ratio}× the price per GPU-hour). The article the lessons start from puts it as a hypothetical: if InfiniBand cut the training time by 40%, the total cost would fall by about 25% (0.6 × 1.25 = 0.75). That holds only where communication is a large share of the step.", pct(time), pct(money.abs())),
                                Lang::Zh => format!("此处 InfiniBand 相比 TCP 以太网：时间少 {}，费用{zh} {}（每 GPU 小时价格为 {ratio} 倍）。课程所依据的文章给出的是一个假设：若 InfiniBand 让训练时间减少 40%，总成本约下降 25%（0.6 × 1.25 = 0.75）。只有通信在单步中占比很大时才成立。", pct(time), pct(money.abs())),
                            }
                        } }</p>
                    }
                </>
            }
        }
    };
    html! {
        <>
            <h2>{ t(lang, Text::CostAndCheckpoints) }</h2>
            <dl class="figures">
                <div><dt>{ t(lang, Text::DaysLabel) }</dt><dd id="days">{ format!("{:.1}", c.days) }</dd></div>
                <div><dt>{ t(lang, Text::GPUHours) }</dt><dd>{ format!("{:.0}", c.gpu_hours) }</dd></div>
                <div><dt>{ t(lang, Text::CostLabel) }</dt><dd id="cost">{ format!("${:.0}", c.usd) }</dd></div>
            </dl>
            <p class="hint">{ match lang {
                Lang::En => format!("{:.0} B tokens at {:.0} tokens/s; ${:.2} per GPU-hour{} less {}.", c.tokens / 1e9, r.tokens_per_s, c.gpu_hour_usd, if assumed { " (an assumption for this fabric: edit it)" } else { "" }, pct(c.discount)),
                Lang::Zh => format!("{:.0} B token，每秒 {:.0} token；每 GPU 小时 {:.2} 美元{}，折扣 {}。", c.tokens / 1e9, r.tokens_per_s, c.gpu_hour_usd, if assumed { "（按此网络的假设值，可修改）" } else { "" }, pct(c.discount)),
            } }</p>
            <p id="checkpoint">{ match lang {
                Lang::En => format!("Checkpoint: {:.2} TB (14 B per parameter), {:.0} s to write at {} GB/s; every {} min that is {} of training time.", st.checkpoint_bytes / 1e12, st.write_s, s.job.storage.write_gbyte_per_s, st.interval_min, pct(st.overhead)),
                Lang::Zh => format!("检查点：{:.2} TB（每参数 14 字节），以 {} GB/s 写入需 {:.0} 秒；每 {} 分钟一次，占训练时间的 {}。", st.checkpoint_bytes / 1e12, s.job.storage.write_gbyte_per_s, st.write_s, st.interval_min, pct(st.overhead)),
            } }</p>
            <h2>{ t(lang, Text::TheSameJobOnEvery) }</h2>
            { fabrics }
        </>
    }
}
