//! The words for a Broadcast's or Reduce's chain run on fewer nodes and extrapolated to the rest
//! (`fabricscope::Method::Chain`): how its time was obtained, and what the figure then draws (no
//! timeline: every link's mean load).

use super::Lang;
use fabricscope::units::{format_bytes, format_duration_ns};
use fabricscope::{ChainRun, Simulation, CHAIN_BOUND};

/// The results' "obtained by" sentence.
pub fn method_sentence(lang: Lang, sim: &Simulation, run: &ChainRun) -> String {
    let s = sim.scenario.scenario();
    let (nodes, k, transfers) = (s.nodes, run.nodes_run, sim.n_transfers());
    let name = s.collective.nccl_name();
    let ran = format_duration_ns(run.run_ns as f64);
    let front = format_duration_ns(run.front_ns_per_node);
    let lag = format_duration_ns(run.lag_ns_per_node);
    let bound = 100.0 * CHAIN_BOUND;
    match lang {
        Lang::En => format!(
            "Obtained by running the chain on fewer nodes and extrapolating: this {name}'s {transfers} transfers are beyond what the page simulates one by one, and a chain through every GPU never repeats, so its first {k} of {nodes} nodes ran transfer by transfer ({ran}); a node downstream cannot hold up one upstream, so those nodes are served as in the whole chain. Beyond them, the wave's head moves {front} a node and its tail falls behind at a rate fitted to the run ({lag} a node more, plus a share that slows with the distance). Within ±{bound:.0}% of simulating every transfer wherever both run (tests/chain.rs); link bytes are exact, every hop routed."
        ),
        Lang::Zh => format!(
            "获得方式：在较少节点上运行链，再外推——此 {name} 的 {transfers} 个传输超出页面逐个模拟的范围，而贯穿每个 GPU 的链从不重复，因此只逐个传输地模拟了 {nodes} 个节点中的前 {k} 个（{ran}）；下游节点无法拖慢上游节点，所以这些节点的数据到达时间与整条链中相同。其后，波前每个节点前进 {front}，波尾按拟合出的速率落后（每个节点多 {lag}，另有一部分随距离变慢）。凡两者都能运行之处，与逐个模拟相差在 ±{bound:.0}% 以内（tests/chain.rs）；链路字节数精确，每一跳都经过路由。"
        ),
    }
}

/// What the timeline says in place of a step's text: there are no steps to follow.
pub fn timeline_text(lang: Lang, sim: &Simulation, run: &ChainRun) -> String {
    let (time, k) = (format_duration_ns(sim.summary.time.0 as f64), run.nodes_run);
    match lang {
        Lang::En => format!(
            "No timeline: this chain was run on its first {k} nodes and extrapolated to the rest, so no chunk is drawn moving. Every link is coloured by its mean load over the {time} (its exact bytes over that time), the whole way through: what is hot, not when."
        ),
        Lang::Zh => format!(
            "没有时间线：这条链只在前 {k} 个节点上运行，其余为外推，因此不画移动的数据块。每条链路全程按其在 {time} 内的平均负载着色（其精确字节数除以该时间）：显示哪里繁忙，而不是何时繁忙。"
        ),
    }
}

/// The trace hash's place: the whole chain has no trace.
pub fn no_trace(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "none (the whole chain is not run)",
        Lang::Zh => "无（整条链未运行）",
    }
}

/// How a run without a trace was obtained, in a caption: bounded, or extrapolated.
pub fn untraced(lang: Lang, sim: &Simulation) -> &'static str {
    match (lang, sim.chain.is_some()) {
        (Lang::En, false) => "bounded, not simulated",
        (Lang::Zh, false) => "求界而非模拟",
        (Lang::En, true) => "extrapolated from fewer nodes, not traced",
        (Lang::Zh, true) => "由较少节点外推，无轨迹",
    }
}

/// The chart's note where some of its points are chains run on fewer nodes and extrapolated
/// (`points`: each one's size and the nodes its chain ran on).
pub fn chart_note(lang: Lang, points: &[(u64, u32)]) -> Option<String> {
    let first = points.iter().map(|&(size, _)| size).min()?;
    let fewest = points.iter().map(|&(_, nodes)| nodes).min()?;
    let (all, from, bound) = (points.len(), format_bytes(first), 100.0 * CHAIN_BOUND);
    Some(match lang {
        Lang::En => format!(
            "{all} points from {from} are chains run on their first {fewest} or more nodes, every transfer, and extrapolated to the rest (beyond what the page runs transfer by transfer at this scale): within ±{bound:.0}% of simulating every transfer."
        ),
        Lang::Zh => format!(
            "从 {from} 起的 {all} 个点只在前 {fewest} 个或更多节点上逐个传输地运行了链，其余为外推（超出页面在此规模下逐个传输模拟的范围）：与逐个模拟相差在 ±{bound:.0}% 以内。"
        ),
    })
}
