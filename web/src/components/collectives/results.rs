//! The run's results: time, algbw, busbw and why, the bottleneck, the trace hash, how a steady
//! state ran, the tuner's table and heat map, and the alpha-beta closed form.

use super::heat_map::HeatMap;
use super::tuner_table::TunerTable;
use super::{network_name, Props};
use crate::i18n::{self, t, Lang, Text};
use crate::state::collectives::Action;
use crate::state::Shared;
use fabricscope::units::format_duration_ns;
use yew::prelude::*;

/// The run's figures and how they come about.
#[function_component(Results)]
pub fn results(props: &Props) -> Html {
    let state = &props.state;
    let lang = state.lang;
    let sim = &state.sim;
    // Hashing a large trace takes tens of ms: once per simulation, not once per frame.
    let hash = {
        let sim = sim.clone();
        use_memo(Shared::of(&sim), move |_| sim.hash_hex())
    };
    let hash = match (&sim.bounded, &sim.chain) {
        (Some(_), _) => i18n::bounded::no_trace(lang).to_string(),
        (None, Some(_)) => i18n::chain::no_trace(lang).to_string(),
        (None, None) => (*hash).clone(),
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
    // The links the scenario's faults hit, what is left of each, and the steps that wait on it.
    let steps = sim.steady.map_or(sim.schedule.n_steps, |steady| steady.total_steps);
    let faults: Vec<(String, String)> = {
        let sim = sim.clone();
        let waits = use_memo(Shared::of(&sim), move |_| sim.fault_waits());
        waits
            .iter()
            .map(|wait| {
                let link = state.sim.topology.link(wait.link);
                let left = if wait.rate == 0.0 {
                    t(lang, Text::LinkDown).to_string()
                } else {
                    format!("{:.0}%", 100.0 * wait.rate)
                };
                let name = format!(
                    "{} ↔ {} {left}",
                    i18n::vertex_name(lang, &state.sim.topology, link.src),
                    i18n::vertex_name(lang, &state.sim.topology, link.dst)
                );
                // Bounded, not simulated: no step waits to read, the link's bytes and mean load.
                let text = match state.sim.bounded {
                    Some(_) => {
                        let (bytes, mean) = busier_way(&state.sim, wait.link);
                        i18n::bounded::fault_text(lang, bytes, mean)
                    }
                    None => i18n::cluster::fault_wait(lang, wait, steps),
                };
                (name, text)
            })
            .collect()
    };
    // The tuner's pick where the page ran another (too big to draw at this scale): the chart's
    // point of the pick forced at this size, once a worker has simulated it, on this hardware.
    // The workers take the size shown first (`Curve::open_from`), so it comes early.
    let pick_point = sim.tuner_pick_row_not_run().and_then(|row| {
        let s = sim.scenario.scenario();
        let same = crate::state::collectives::same_hardware(&state.curve.scenario, s);
        let point = state.curve.point_at(s.size_bytes, row.algorithm)?;
        (same && point.protocol == row.protocol).then_some(point)
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
            if nvls_left_off(sim) {
                <p id="nvls-off" class="pick">{ nvls_off_text(lang) }{ " " }
                    <button id="nvls-turn-on" onclick={ let s = state.clone(); move |_| {
                        let mut scenario = s.scenario.clone();
                        scenario.nvls = true;
                        s.dispatch(Action::SetScenario(Box::new(scenario)));
                    } }>{ match lang { Lang::En => "Turn NVLS on", Lang::Zh => "打开 NVLS" } }</button>
                </p>
            }
            if let Some(point) = pick_point {
                <p id="tuner-pick" class="pick">{ i18n::tuner_pick_figures(lang, sim, point) }</p>
            }
            if sim.schedule.algorithm == fabricscope::collective::Algorithm::Nvls {
                <p id="nvls-note" class="formula">{ nvls_note(lang, summary.n_ranks, summary.busbw_gbyte_per_s, sim) }</p>
            }
            if sim.schedule.algorithm == fabricscope::collective::Algorithm::CollNet {
                <p id="sharp-note" class="formula">{ sharp_note(lang, sim.topology.n_nodes()) }</p>
            }
            <p id="bottleneck"><strong>{ t(lang, Text::Bottleneck) }{ ": " }</strong>{ bottleneck.unwrap_or_else(|| "—".into()) }</p>
            if !faults.is_empty() {
                <div id="faults"><strong>{ t(lang, Text::FaultedLinks) }{ ": " }</strong>
                    <ul>{ for faults.iter().map(|(name, wait)| html! { <li><span class="fault-link">{ name.clone() }</span>{ ": " }<span class="fault-wait">{ wait.clone() }</span></li> }) }</ul>
                </div>
            }
            <p id="method" class="hint">{ i18n::method_line(lang, sim, pick_point.is_some()) }</p>
            <p class="hash" title={ t(lang, Text::TraceHashHelp) }>{ t(lang, Text::TraceHash) }{ ": " }<code id="trace-hash">{ hash }</code></p>
            if let Some(steady) = sim.steady {
                <p id="steady" class="formula">{ steady_text(lang, &steady, summary.method, sim.rotated.or(steady.measured_nodes).map(|m| (m, sim.scenario.scenario().nodes))) }</p>
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

/// A link's bytes over the run and its mean load in [0, 1], of its busier direction.
fn busier_way(sim: &fabricscope::Simulation, link: fabricscope::topology::LinkId) -> (f64, f64) {
    let mean = sim.mean_utilisation();
    let way = |l: fabricscope::topology::LinkId| {
        let bytes = sim.link_bytes.get(l.index()).copied().unwrap_or(0.0);
        (bytes, mean.get(l.index()).copied().filter(|m| m.is_finite()).unwrap_or(0.0))
    };
    let (a, b) = (way(link), way(link.reverse()));
    if b.0 > a.0 {
        b
    } else {
        a
    }
}

/// How a steady state was run, in words.
fn steady_text(
    lang: Lang,
    s: &fabricscope::Steady,
    method: fabricscope::Method,
    rotated: Option<(u32, u32)>,
) -> String {
    let text = steady_words(lang, s, method);
    let Some((m, nodes)) = rotated else { return text };
    match lang {
        Lang::En => format!(
            "{text} Of those steps the engine ran only {}'s GPUs: turning the ring by {} maps the cluster's routes onto themselves, so every other node moves exactly as its image does.",
            i18n::first_nodes_en(m, nodes),
            i18n::nodes_en(m)
        ),
        Lang::Zh => format!(
            "{text}这些步中引擎只运行了{}的 GPU：把环整体转过 {m} 个节点，集群的路由映射到自身，因此其余每个节点的运行与其对应节点完全相同。",
            i18n::first_nodes_zh(m, nodes)
        ),
    }
}

/// `steady_text` but for the rotation.
fn steady_words(lang: Lang, s: &fabricscope::Steady, method: fabricscope::Method) -> String {
    let period = format_duration_ns(s.period_ns() as f64);
    if method == fabricscope::Method::Extrapolated {
        let measured = fabricscope::MEASURED_STEPS;
        return match lang {
            Lang::En => format!(
                "Extrapolated steady state: the engine simulated the first {} of {} steps ({} of {} transfers), and up to {measured} steps more to measure how long a step takes once the ring runs steadily: {period}, never less than its links and latencies allow. The other {} steps take that long each; the animation repeats step {} for them.",
                s.simulated_steps, s.total_steps, s.simulated_transfers, s.total_transfers, s.repeats, s.step_at_to + 1
            ),
            Lang::Zh => format!(
                "外推稳态：引擎模拟了 {} 步中的前 {} 步（{} 个传输中的 {} 个），并另外模拟至多 {measured} 步，测出环稳定运行后每步所需时间：{period}，且不少于其链路与延迟允许的下限。其余 {} 步每步按此计时；动画在这些步中重复第 {} 步。",
                s.total_steps, s.simulated_steps, s.total_transfers, s.simulated_transfers, s.repeats, s.step_at_to + 1
            ),
        };
    }
    let (every_en, every_zh) = match s.period_steps {
        1 => ("one step".to_string(), "一步".to_string()),
        k => (format!("{k} steps"), format!("{k} 步")),
    };
    match lang {
        Lang::En => format!(
            "Steady state: the engine simulated the first {} of {} steps ({} of {} transfers). By step {} the whole cluster's state (every flow's progress, rate and path) had become its state {every_en} earlier, shifted by {period}, bit for bit; so the run repeats that period {} more times before it ends as the simulated steps end. Time, link loads and the animation come from that.",
            s.simulated_steps, s.total_steps, s.simulated_transfers, s.total_transfers, s.step_at_to + 1, s.repeats
        ),
        Lang::Zh => format!(
            "稳态：引擎只模拟了 {} 步中的前 {} 步（{} 个传输中的 {} 个）。到第 {} 步时，整个集群的状态（每条流的进度、速率与路径）与{every_zh}之前完全一致（逐位相同），只是时间推后 {period}；因此其余部分就是这一周期再重复 {} 次，最后与模拟的结尾相同。时间、链路负载和动画都由此得出。",
            s.total_steps, s.simulated_steps, s.total_transfers, s.simulated_transfers, s.step_at_to + 1, s.repeats
        ),
    }
}

/// Whether NVLS is off where NCCL would have it on and could pick it: the tuner's choice across
/// nodes whose NVSwitch reduces (NVLSTree). The page opens with NVLS off so that its first ring
/// plays (`page_demo`); a reader who grows that cluster would otherwise not see NCCL's defaults.
fn nvls_left_off(sim: &fabricscope::Simulation) -> bool {
    let s = sim.scenario.scenario();
    !s.nvls && s.algorithm.is_none() && sim.scenario.nvls_tree_supported()
}

fn nvls_off_text(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "NVLS is off here (NCCL_NVLS_ENABLE=0), as the page opened so that its first ring plays. NCCL has it on by default on these nodes, and its tuner may then pick NVLSTree across them: to see NCCL's defaults, turn it on.",
        Lang::Zh => "此处 NVLS 是关闭的（NCCL_NVLS_ENABLE=0）：页面打开时这样设置，是为了先播放环。NCCL 在这类节点上默认开启 NVLS，调优器随后可能跨节点选择 NVLSTree：要看 NCCL 的默认行为，请把它打开。",
    }
}

/// Why NVLS's busbw is above the NVLink line rate (nccl-tests#312), in the run's own figures.
fn nvls_note(lang: Lang, n: u32, busbw: f64, sim: &fabricscope::Simulation) -> String {
    let line = sim.scenario.link_figures().nvlink.line_rate.gbyte_per_s();
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
