//! The figure as a table, for the keyboard and screen readers (and anyone asking "what is hot
//! now?"): the busiest links at the playhead, each a button that describes it under the figure
//! as hovering does; in a compact cluster, a picker that opens a node's tile.

use super::network_name;
use crate::i18n::{self, ux, Lang, Ux};
use crate::state::collectives::AppState;
use crate::state::Shared;
use fabricscope::topology::LinkId;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// At most this many rows: the table answers "what is hot", it does not list the fabric.
const ROWS: usize = 12;

#[derive(Properties, PartialEq)]
pub struct LinkTableProps {
    pub state: UseReducerHandle<AppState>,
    pub sim: Shared<fabricscope::Simulation>,
    /// Describe this link under the figure.
    pub on_pick: Callback<LinkId>,
    /// Compact clusters: the number of nodes whose tiles can open, and opening one (None
    /// closes it).
    pub tiles: u32,
    pub expanded: Option<u32>,
    pub on_open: Callback<Option<u32>>,
}

#[function_component(LinkTable)]
pub fn link_table(props: &LinkTableProps) -> Html {
    let (state, sim) = (&props.state, &props.sim.0);
    let lang = state.lang;
    // Folded, it costs nothing: the frame is sampled only while the table is open.
    let open = use_state(|| false);
    let on_summary = {
        let open = open.clone();
        Callback::from(move |e: MouseEvent| {
            e.prevent_default();
            open.set(!*open);
        })
    };
    let mut busy: Vec<(LinkId, f64, f64)> = Vec::new();
    // How many links carry data then, of all the fabric's.
    let mut carrying = 0;
    // When nothing moves at the playhead (a step's start, while its latency runs), the middle
    // of the step it is in, and the table says so.
    let mut at_middle = false;
    if *open {
        let loads = |t: fabricscope::units::SimTime| {
            let frame = sim.sample(t);
            let mut busy: Vec<(LinkId, f64, f64)> = sim
                .topology
                .links()
                .filter_map(|(id, link)| {
                    let rate = frame.link_rate[id.index()];
                    (rate > 0.0).then(|| (id, rate, rate / link.capacity().gbyte_per_s()))
                })
                .collect();
            fabricscope::sort::by(&mut busy, &mut |a, b| {
                b.2.total_cmp(&a.2).then(a.0.index().cmp(&b.0.index()))
            });
            let carrying = busy.len();
            busy.truncate(ROWS);
            (busy, carrying)
        };
        (busy, carrying) = loads(state.playhead);
        if busy.is_empty() {
            if let Some(k) = state.step_of(sim) {
                let start = sim.step_starts[k as usize];
                // The step's end: the next start after its own (steps may start together).
                let end = sim.step_starts[k as usize..]
                    .iter()
                    .copied()
                    .find(|&t| t > start)
                    .unwrap_or(sim.shown_end());
                (busy, carrying) = loads(fabricscope::units::SimTime((start.0 + end.0) / 2));
                at_middle = !busy.is_empty();
            }
        }
    }
    let name = |id: LinkId| {
        let link = sim.topology.link(id);
        format!(
            "{} → {} ({})",
            i18n::vertex_name(lang, &sim.topology, link.src),
            i18n::vertex_name(lang, &sim.topology, link.dst),
            i18n::link_kind(lang, link.kind, network_name(sim))
        )
    };
    let on_node = {
        let cb = props.on_open.clone();
        Callback::from(move |e: Event| {
            cb.emit(e.target_unchecked_into::<HtmlSelectElement>().value().parse().ok());
        })
    };
    html! {
        <details id="link-table" class="link-table" open={*open}>
            <summary onclick={on_summary}>{ ux(lang, Ux::BusiestLinks) }</summary>
            <p class="hint">{ ux(lang, Ux::BusiestLinksCaption) }</p>
            if props.tiles > 0 {
                <label class="open-node">{ match lang { Lang::En => "Open a node in full: ", Lang::Zh => "展开一个节点：" } }
                    <select id="open-node" onchange={on_node}>
                        <option value="" selected={props.expanded.is_none()}>{ "—" }</option>
                        { for (0..props.tiles).map(|n| html! {
                            <option value={n.to_string()} selected={props.expanded == Some(n)}>{ format!("{} {n}", match lang { Lang::En => "node", Lang::Zh => "节点" }) }</option>
                        }) }
                    </select>
                </label>
            }
            if at_middle {
                <p class="hint" id="link-table-when">{ match lang {
                    Lang::En => "Nothing moves at this instant (the step's latency is running); these are the loads half-way through the step.",
                    Lang::Zh => "此刻没有数据在传输（本步的时延正在经过）；下表为本步中点时刻的负载。",
                } }</p>
            }
            if sim.traceless() && !busy.is_empty() {
                <p class="hint" id="link-table-mean">{ match lang {
                    Lang::En => format!("{}: these are the links' mean loads over the run, the same at every moment.", crate::i18n::chain::untraced(lang, sim)),
                    Lang::Zh => format!("{}：下表为各链路全程的平均负载，任何时刻都相同。", crate::i18n::chain::untraced(lang, sim)),
                } }</p>
            }
            if busy.is_empty() {
                <p class="hint">{ match lang { Lang::En => "Nothing moves at this moment.", Lang::Zh => "此刻没有数据在传输。" } }</p>
            } else {
                <p class="hint" id="link-table-count" data-links={carrying.to_string()}>{ match lang {
                    Lang::En => format!("{carrying} of the fabric's {} links carry data; the busiest:", sim.topology.n_links()),
                    Lang::Zh => format!("网络中 {} 条链路里有 {carrying} 条正在传输数据；最忙的几条：", sim.topology.n_links()),
                } }</p>
                <div class="table-scroll">
                    <table class="compare">
                        <thead><tr><th>{ ux(lang, Ux::Link) }</th><th>{ "GB/s" }</th><th>{ ux(lang, Ux::Load) }</th></tr></thead>
                        <tbody>
                            { for busy.iter().map(|&(id, rate, load)| {
                                let pick = { let cb = props.on_pick.clone(); Callback::from(move |_| cb.emit(id)) };
                                html! {
                                    <tr>
                                        <td><button class="link-pick" onclick={pick}>{ name(id) }</button></td>
                                        <td>{ format!("{rate:.1}") }</td>
                                        <td>{ format!("{:.0}%", 100.0 * load) }</td>
                                    </tr>
                                }
                            }) }
                        </tbody>
                    </table>
                </div>
            }
        </details>
    }
}
