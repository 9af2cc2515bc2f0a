//! The chunk grid: what every GPU holds of every chunk of channel 0, at the playhead. The core
//! executes the schedule on sets of contributions (`collective::holdings`); this draws the
//! state after the steps finished by now, and outlines the cells the current step is writing.
//! A ring reads like the textbook's picture: the diagonal of partial sums growing by one each
//! step of the reduce-scatter, then complete chunks passed around in the all-gather.

use super::Props;
use crate::i18n::{self, Lang};
use crate::state::collectives::Stage;
use crate::state::Shared;
use fabricscope::collective::holdings::{holdings, Cell, Holdings};
use fabricscope::collective::{Algorithm, Phase, SwitchRef};
use fabricscope::simulation::StepInfo;
use yew::prelude::*;

/// Largest grid drawn: more rows or columns than this would not be read. Past `COMPACT_ROWS`
/// the cells shrink (a 4-node tree's 32 GPUs).
const MAX_ROWS: u32 = 32;
const COMPACT_ROWS: u32 = 18;
const MAX_COLUMNS: usize = 24;

#[function_component(ChunkGrid)]
pub fn chunk_grid(props: &Props) -> Html {
    let state = &props.state;
    let lang = state.lang;
    let sim = state.sim.clone();
    // Built once per run (a few microseconds for a ring of 16).
    let grid = use_memo(Shared::of(&state.sim), move |_| {
        if sim.steady.is_some() || sim.schedule.n_ranks > MAX_ROWS {
            None
        } else {
            holdings(&sim.schedule, 0)
        }
    });
    let Some(h) = grid.as_ref() else { return html! {} };
    if h.rows() > MAX_ROWS || h.chunks.len() > MAX_COLUMNS {
        return html! {};
    }
    let (done, current) = match state.stage() {
        Stage::Launch => (0, None),
        Stage::Step(k) => (k as usize, Some(k as usize)),
        Stage::Done => (h.n_steps(), None),
    };
    let arriving: Vec<(u32, u32)> = current
        .and_then(|k| h.moves.get(k))
        .map(|m| m.iter().map(|&(_, to, c)| (to, c)).collect())
        .unwrap_or_default();
    let per_node = state.sim.topology.gpus_per_node().max(1);
    let multi = state.sim.topology.n_nodes() > 1;
    let row_name = |row: u32| -> String {
        if row < h.n_ranks {
            i18n::gpu_name(lang, Some(row / per_node), row % per_node, multi)
        } else {
            match (h.switches[(row - h.n_ranks) as usize], lang) {
                (SwitchRef::NvSwitch { node }, Lang::En) => format!("NVSwitch, node {node}"),
                (SwitchRef::NvSwitch { node }, Lang::Zh) => format!("节点 {node} 的 NVSwitch"),
                (SwitchRef::Rail { rail }, Lang::En) => format!("rail {rail} switch"),
                (SwitchRef::Rail { rail }, Lang::Zh) => format!("第 {rail} 轨交换机"),
            }
        }
    };
    let n = h.n_ranks;
    let order = ring_order(h).map(|ranks| {
        let path: Vec<String> = ranks.iter().map(|r| r.to_string()).collect();
        match lang {
            Lang::En => format!("Ring order of channel 0 (ranks): {} → {}", path.join(" → "), path[0]),
            Lang::Zh => format!("通道 0 的环顺序（rank）：{} → {}", path.join(" → "), path[0]),
        }
    });
    let phase = current
        .and_then(|k| state.sim.step_info(k as u32, state.sim.focus_rank))
        .map(|info| phase_line(lang, state.sim.schedule.algorithm, &info, super::network_name(&state.sim)));
    html! {
        <div class={classes!("chunk-grid", "table-scroll", (h.rows() > COMPACT_ROWS).then_some("compact"))}>
            if let Some(order) = order {
                <p id="ring-order" class="formula">{ order }</p>
            }
            if let Some(phase) = phase {
                <p id="chunk-grid-phase" class="formula">{ phase }</p>
            }
            <p class="formula" id="chunk-grid-key">{ key(lang, h, state.sim.schedule.n_channels) }</p>
            <table id="chunk-grid" class="chunk-grid" aria-describedby="chunk-grid-key">
                <caption>{ match lang {
                    Lang::En => format!("Who holds what after {done} of {} steps", h.n_steps()),
                    Lang::Zh => format!("完成 {} 步中的 {done} 步后，各自持有的数据", h.n_steps()),
                } }</caption>
                <thead>
                    <tr>
                        <th scope="col">{ match lang { Lang::En => "chunk →", Lang::Zh => "数据块 →" } }</th>
                        { for (0..h.chunks.len()).map(|c| html! { <th scope="col">{ c }</th> }) }
                    </tr>
                </thead>
                <tbody>
                    { for (0..h.rows()).map(|row| html! {
                        <tr>
                            <th scope="row">{ row_name(row) }</th>
                            { for (0..h.chunks.len()).map(|c| {
                                let cell = h.cell(done, row, c);
                                let (class, text) = match cell {
                                    Cell::Empty => ("empty", String::new()),
                                    Cell::Partial(k) if h.reduces => ("partial", format!("{k}/{n}")),
                                    Cell::Partial(k) => ("partial", k.to_string()),
                                    Cell::Complete => ("complete", "✓".to_string()),
                                };
                                let incoming = arriving.contains(&(row, c as u32));
                                html! { <td class={classes!(class, incoming.then_some("arriving"))}>{ text }</td> }
                            }) }
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// The ring channel 0 goes round, from rank 0, when its first step is one: every rank sends
/// to one successor and the successors make one cycle through all of them.
fn ring_order(h: &Holdings) -> Option<Vec<u32>> {
    let first = h.moves.first()?;
    let n = h.n_ranks;
    let mut next = vec![u32::MAX; n as usize];
    for &(from, to, _) in first {
        if from >= n || to >= n || (next[from as usize] != u32::MAX && next[from as usize] != to) {
            return None;
        }
        next[from as usize] = to;
    }
    let mut order = vec![0u32];
    while order.len() < n as usize {
        let to = *next.get(*order.last()? as usize)?;
        if to == u32::MAX || order.contains(&to) {
            return None;
        }
        order.push(to);
    }
    (next[*order.last()? as usize] == 0 && n > 1).then_some(order)
}

/// The current step's phase, and where it runs: "Step 3: reduce, up the tree (children add
/// their partial sums into their parents), over NVLink".
fn phase_line(lang: Lang, algorithm: Algorithm, info: &StepInfo, network: &str) -> String {
    let step = info.step + 1;
    let phase = i18n::phase(lang, info.phase);
    let via = i18n::link_kind(lang, info.via, network);
    let how = match (lang, algorithm, info.phase) {
        (Lang::En, Algorithm::Tree, Phase::Reduce) => {
            ", up the tree: children add their partial sums into their parents"
        }
        (Lang::En, Algorithm::Tree, Phase::Broadcast) => {
            ", down the tree: parents pass the complete sum to their children"
        }
        (Lang::Zh, Algorithm::Tree, Phase::Reduce) => "，沿树向上：子节点把部分和加到父节点",
        (Lang::Zh, Algorithm::Tree, Phase::Broadcast) => "，沿树向下：父节点把完整的和传给子节点",
        _ => "",
    };
    match lang {
        Lang::En => format!("Step {step}: {phase}{how} (over {via})."),
        Lang::Zh => format!("第 {step} 步：{phase}{how}（经 {via}）。"),
    }
}

/// How to read the grid, in words.
fn key(lang: Lang, h: &Holdings, channels: u32) -> String {
    let of = if channels > 1 {
        match lang {
            Lang::En => format!(
                "channel 0 of {channels} (the others move their own parts of the buffer the same way)"
            ),
            Lang::Zh => format!("{channels} 个通道中的通道 0（其余通道以同样方式搬运缓冲区的其他部分）"),
        }
    } else {
        match lang {
            Lang::En => "the one channel".to_string(),
            Lang::Zh => "唯一的通道".to_string(),
        }
    };
    let kind = match (lang, h.reduces) {
        (Lang::En, true) => {
            "a fraction is a partial sum of that many GPUs' contributions, ✓ the complete sum"
        }
        (Lang::En, false) => "✓ the chunk has arrived, blank not yet",
        (Lang::Zh, true) => "分数表示已累加了多少块 GPU 的贡献（部分和），✓ 表示完整的和",
        (Lang::Zh, false) => "✓ 表示该块已到达，空白表示尚未到达",
    };
    match lang {
        Lang::En => format!("The grid below is {of}: {kind}; outlined cells are being written in this step."),
        Lang::Zh => format!("下表为{of}：{kind}；带框的格子正在本步写入。"),
    }
}
