//! The topology view: the cluster on a canvas at the playhead, hover for a link's or a
//! node's figures, click a tile to open a node; and A/B in words under two of them.

use super::link_table::LinkTable;
use super::{network_name, State};
use crate::i18n::{self, ux, Lang, Ux};
use crate::render::layout::{Layout, DETAILED_NODES};
use crate::render::palette::Palette;
use crate::render::topology as render;
use crate::services::device::touch_first;
use crate::state::collectives::{AppState, Focus};
use crate::state::Shared;
use fabricscope::topology::{LinkId, LinkKind};
use fabricscope::units::{format_bytes, format_duration_ns};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Which run a topology view shows: the only one, or A or B of a comparison.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Side {
    #[default]
    Single,
    A,
    B,
}

#[derive(Properties, PartialEq)]
pub struct TopologyProps {
    pub state: State,
    #[prop_or_default]
    pub side: Side,
}

/// A/B in words and numbers: which is faster, by how much, and where each is bound.
pub fn ab_diff(state: &AppState) -> String {
    let Some(((_, a), (_, b))) = state.ab() else { return String::new() };
    let lang = state.lang;
    let (ta, tb) = (a.summary.time.as_ns() as f64, b.summary.time.as_ns() as f64);
    let bound = |sim: &fabricscope::Simulation| {
        sim.summary
            .bottleneck
            .map(|id| {
                let link = sim.topology.link(id);
                format!(
                    "{} ({:.0}%)",
                    i18n::link_kind(lang, link.kind, network_name(sim)),
                    100.0 * sim.summary.bottleneck_utilisation
                )
            })
            .unwrap_or_else(|| "—".into())
    };
    let change = 100.0 * (tb / ta.max(1.0) - 1.0);
    match lang {
        Lang::En => format!(
            "B takes {} {} A ({} vs {}); busbw {:.1} vs {:.1} GB/s; A is bound by {}, B by {}.",
            if change.abs() < 10.0 {
                format!("{:.1}%", change.abs())
            } else {
                format!("{:.0}%", change.abs())
            },
            if change >= 0.0 { "longer than" } else { "less time than" },
            format_duration_ns(tb),
            format_duration_ns(ta),
            b.summary.busbw_gbyte_per_s,
            a.summary.busbw_gbyte_per_s,
            bound(a),
            bound(b)
        ),
        Lang::Zh => format!(
            "B 比 A {} {}（{} 对 {}）；busbw {:.1} 对 {:.1} GB/s；A 的瓶颈是 {}，B 的是 {}。",
            if change >= 0.0 { "慢" } else { "快" },
            if change.abs() < 10.0 {
                format!("{:.1}%", change.abs())
            } else {
                format!("{:.0}%", change.abs())
            },
            format_duration_ns(tb),
            format_duration_ns(ta),
            b.summary.busbw_gbyte_per_s,
            a.summary.busbw_gbyte_per_s,
            bound(a),
            bound(b)
        ),
    }
}

#[function_component(TopologyView)]
pub fn topology_view(props: &TopologyProps) -> Html {
    let state = &props.state;
    let side = props.side;
    let shown: Rc<fabricscope::Simulation> = match (side, state.ab()) {
        (Side::A, Some(((_, a), _))) => a.clone(),
        (Side::B, Some((_, (_, b)))) => b.clone(),
        _ => state.sim.clone(),
    };
    let canvas_ref = use_node_ref();
    let hovered = use_state(|| None::<LinkId>);
    // A compact cluster's node drawn in full (clicked), and the tile under the pointer.
    let expanded = use_state(|| None::<u32>);
    let hovered_node = use_state(|| None::<u32>);
    let resized = use_state(|| 0u32);
    // The layout the canvas was last painted with: reused by every frame of one simulation at
    // one width, and by hover hit-testing, instead of being rebuilt each time.
    let layout_cache: Rc<std::cell::RefCell<Option<LayoutCache>>> = use_mut_ref(|| None);
    {
        let resized = resized.clone();
        use_effect_with((), move |_| {
            let listener = gloo::events::EventListener::new(&gloo::utils::window(), "resize", move |_| {
                resized.set(*resized + 1)
            });
            move || drop(listener)
        });
    }
    {
        let canvas_ref = canvas_ref.clone();
        let sim = shown.clone();
        let cache = layout_cache.clone();
        let focus = state.focus.clone();
        // The simulation is compared by identity: a new one is a new Rc.
        let at = render::At { t: state.playhead, step: state.step_of(&sim) };
        let deps = (Shared::of(&sim), at, state.lang, state.dark, *resized, state.focus.clone(), *expanded);
        use_effect_with(deps, move |&(_, at, lang, dark, _, _, expanded)| {
            if let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() {
                let view = TopologyPaint { sim: &sim, at, lang, dark, pointed: &focus, expanded };
                paint_topology(&canvas, &cache, &view);
            }
        });
    }
    let on_move = {
        let hovered = hovered.clone();
        let hovered_node = hovered_node.clone();
        let canvas_ref = canvas_ref.clone();
        let cache = layout_cache.clone();
        Callback::from(move |e: MouseEvent| {
            let Some((layout, x, y)) = pointer(&canvas_ref, &cache, &e) else { return };
            let found = layout.link_at(x, y);
            if *hovered != found {
                hovered.set(found);
            }
            let node = layout.node_at(x, y).filter(|&n| layout.is_tile(n));
            if *hovered_node != node {
                hovered_node.set(node);
            }
        })
    };
    let on_leave = {
        let hovered = hovered.clone();
        let hovered_node = hovered_node.clone();
        Callback::from(move |_| {
            hovered.set(None);
            hovered_node.set(None);
        })
    };
    // Clicking a tile opens that node in full; clicking the open node closes it. A tap also
    // picks the link nearest the fingertip, for its details.
    let on_click = {
        let expanded = expanded.clone();
        let hovered = hovered.clone();
        let canvas_ref = canvas_ref.clone();
        let cache = layout_cache.clone();
        Callback::from(move |e: MouseEvent| {
            let Some((layout, x, y)) = pointer(&canvas_ref, &cache, &e) else { return };
            if touch_first() {
                hovered.set(layout.link_near(x, y, 16.0));
            }
            if let (true, Some(node)) = (layout.compact, layout.node_at(x, y)) {
                expanded.set(if *expanded == Some(node) { None } else { Some(node) });
            }
        })
    };
    let info = match (*hovered, *hovered_node) {
        (Some(link), _) => Some(link_info(state, &shown, link)),
        (None, Some(node)) => Some(node_info(state, &shown, node)),
        (None, None) => None,
    };
    let (id, label) = match side {
        Side::B => ("topology-b", Some("B")),
        Side::A => ("topology", Some("A")),
        Side::Single => ("topology", None),
    };
    let edited = match side {
        Side::A => !state.editing_b,
        Side::B => state.editing_b,
        Side::Single => false,
    };
    html! {
        <div class="topology">
            if let Some(label) = label {
                <p class={classes!("ab-label", edited.then_some("edited"))}>
                    <strong>{ label }</strong>{ format!(" · {} × {} · {} · {} · {}: {} · busbw {:.1} GB/s",
                        shown.scenario.scenario().nodes, shown.scenario.preset().name, shown.topology.technology.spec().name,
                        format_bytes(shown.summary.size_bytes), shown.schedule.algorithm.nccl_name(),
                        format_duration_ns(shown.summary.time.as_ns() as f64), shown.summary.busbw_gbyte_per_s) }
                </p>
            }
            <canvas id={id} ref={canvas_ref} onmousemove={on_move} onmouseleave={on_leave} onclick={on_click}
                data-expanded={expanded.map(|n| n.to_string()).unwrap_or_default()}
                role="img" aria-label={ux(state.lang, Ux::TopologyLabel)}></canvas>
            <p id="link-info" class="link-info" aria-live="polite">{ info.unwrap_or_else(|| {
                ux(state.lang, if touch_first() { Ux::TapALink } else { Ux::HoverALink }).to_string()
            }) }</p>
            <LinkTable state={state.clone()} sim={Shared::of(&shown)}
                on_pick={ let hovered = hovered.clone(); Callback::from(move |id| hovered.set(Some(id))) }
                tiles={if shown.topology.n_nodes() > DETAILED_NODES { shown.topology.n_nodes() } else { 0 }}
                expanded={*expanded}
                on_open={ let expanded = expanded.clone(); Callback::from(move |node| expanded.set(node)) } />
        </div>
    }
}

/// A compact cluster's tile under the pointer: its ranks and how busy its NICs and NVLinks are.
fn node_info(state: &AppState, sim: &fabricscope::Simulation, node: u32) -> String {
    let frame = sim.sample(state.playhead);
    let utilisation = sim.utilisation(&frame);
    let (mut nic, mut nvlink) = (0.0f64, 0.0f64);
    for (id, link) in sim.topology.links() {
        let (a, b) = (sim.topology.vertex(link.src).node, sim.topology.vertex(link.dst).node);
        let u = utilisation[id.index()];
        match (a == Some(node), b == Some(node), link.kind) {
            (true, true, LinkKind::NvLink) => nvlink = nvlink.max(u),
            (true, false, _) | (false, true, _) => nic = nic.max(u),
            _ => {}
        }
    }
    let g = sim.topology.gpus_per_node();
    let (first, last) = (node * g, node * g + g - 1);
    // A run without a trace (bounded, or a chain extrapolated) has its means for loads
    // (`Simulation::sample`), the same at every moment.
    let how = i18n::chain::untraced(state.lang, sim);
    match (state.lang, sim.traceless()) {
        (Lang::En, false) => format!("Node {node} (ranks {first}–{last}) · busiest network link now {:.0}% · busiest NVLink {:.0}% · click to open it", 100.0 * nic, 100.0 * nvlink),
        (Lang::Zh, false) => format!("节点 {node}（rank {first}–{last}）· 当前最忙的网络链路 {:.0}% · 最忙的 NVLink {:.0}% · 点击展开", 100.0 * nic, 100.0 * nvlink),
        (Lang::En, true) => format!("Node {node} (ranks {first}–{last}) · busiest network link {:.0}% · busiest NVLink {:.0}%, mean loads over the run ({how}) · click to open it", 100.0 * nic, 100.0 * nvlink),
        (Lang::Zh, true) => format!("节点 {node}（rank {first}–{last}）· 最忙的网络链路 {:.0}% · 最忙的 NVLink {:.0}%，均为全程平均负载（{how}）· 点击展开", 100.0 * nic, 100.0 * nvlink),
    }
}

fn link_info(state: &AppState, sim: &fabricscope::Simulation, id: LinkId) -> String {
    let link = sim.topology.link(id);
    let frame = sim.sample(state.playhead);
    let rate = frame.link_rate[id.index()];
    let flows = sim.moving_on(&frame, id);
    let capacity = link.capacity().gbyte_per_s();
    let mean = sim.mean_utilisation()[id.index()];
    let name = format!(
        "{} → {}",
        i18n::vertex_name(state.lang, &sim.topology, link.src),
        i18n::vertex_name(state.lang, &sim.topology, link.dst)
    );
    // No trace (bounded, or a chain extrapolated): no moment to speak of, the mean alone.
    if sim.traceless() {
        let bytes = fabricscope::units::format_bytes(sim.link_bytes[id.index()] as u64);
        let how = i18n::chain::untraced(state.lang, sim);
        return match state.lang {
            Lang::En => format!(
                "{name} · {} · {capacity:.1} GB/s · latency {} · {how}: {bytes}, a mean of {:.0}% over the run",
                i18n::link_kind(state.lang, link.kind, network_name(sim)), format_duration_ns(link.latency_ns as f64), 100.0 * mean
            ),
            Lang::Zh => format!(
                "{name} · {} · {capacity:.1} GB/s · 时延 {} · {how}：{bytes}，全程平均 {:.0}%",
                i18n::link_kind(state.lang, link.kind, network_name(sim)), format_duration_ns(link.latency_ns as f64), 100.0 * mean
            ),
        };
    }
    match state.lang {
        Lang::En => format!(
            "{name} · {} · line rate {:.1} GB/s ({:.0} Gb/s) × efficiency {:.3} = {capacity:.1} GB/s · latency {} · now {rate:.1} GB/s = {:.0}% with {flows} flows · mean over the run {:.0}%",
            i18n::link_kind(state.lang, link.kind, network_name(sim)), link.line_rate.gbyte_per_s(), link.line_rate.gbit_per_s(), link.efficiency,
            format_duration_ns(link.latency_ns as f64), 100.0 * rate / capacity, 100.0 * mean
        ),
        Lang::Zh => format!(
            "{name} · {} · 线速 {:.1} GB/s（{:.0} Gb/s）× 效率 {:.3} = {capacity:.1} GB/s · 时延 {} · 当前 {rate:.1} GB/s = {:.0}%，{flows} 条流 · 全程平均 {:.0}%",
            i18n::link_kind(state.lang, link.kind, network_name(sim)), link.line_rate.gbyte_per_s(), link.line_rate.gbit_per_s(), link.efficiency,
            format_duration_ns(link.latency_ns as f64), 100.0 * rate / capacity, 100.0 * mean
        ),
    }
}

/// The layout the canvas was last painted with, and the pointer's place on it.
fn pointer(
    canvas_ref: &NodeRef,
    cache: &std::cell::RefCell<Option<LayoutCache>>,
    e: &MouseEvent,
) -> Option<(Rc<Layout>, f64, f64)> {
    let canvas = canvas_ref.cast::<HtmlCanvasElement>()?;
    let layout = cache.borrow().as_ref().map(|c| c.layout.clone())?;
    let rect = canvas.get_bounding_client_rect();
    Some((layout, e.client_x() as f64 - rect.left(), e.client_y() as f64 - rect.top()))
}

/// A layout and what it was built for.
struct LayoutCache {
    sim: Shared<fabricscope::Simulation>,
    width: f64,
    expanded: Option<u32>,
    layout: Rc<Layout>,
}

/// What the topology canvas shows: a run at a time, in a language and theme, with what a
/// lesson points at and the node open in full (in a compact cluster).
struct TopologyPaint<'a> {
    sim: &'a Rc<fabricscope::Simulation>,
    at: render::At,
    lang: Lang,
    dark: bool,
    pointed: &'a Focus,
    expanded: Option<u32>,
}

/// Paints `view` on `canvas`, reusing the cached layout when the run, width and open node are
/// the same, and records the GPUs drawn and the frame's cost on the canvas (for the tests and
/// the benchmark).
fn paint_topology(
    canvas: &HtmlCanvasElement,
    cache: &std::cell::RefCell<Option<LayoutCache>>,
    view: &TopologyPaint,
) {
    let TopologyPaint { sim, at, lang, dark, pointed, expanded } = *view;
    let width = canvas.parent_element().map(|p| p.client_width() as f64).unwrap_or(960.0).max(320.0);
    let key = Shared::of(sim);
    let layout = {
        let mut cached = cache.borrow_mut();
        match cached.as_ref() {
            Some(c) if c.sim == key && c.width == width && c.expanded == expanded => c.layout.clone(),
            _ => {
                let layout = Rc::new(Layout::with_expanded(&sim.topology, width, expanded));
                *cached = Some(LayoutCache { sim: key, width, expanded, layout: layout.clone() });
                layout
            }
        }
    };
    let ratio = gloo::utils::window().device_pixel_ratio().max(1.0);
    // Resizing reallocates the canvas: only when its size changes.
    let (w, h) = ((width * ratio) as u32, (layout.height * ratio) as u32);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    // The stylesheet sizes the canvas to its container's width with height auto, so its aspect
    // ratio gives the layout's height: no inline style, which the page's CSP forbids.
    let Some(ctx) = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|ctx| ctx.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let _ = ctx.set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0);
    let clock = gloo::utils::window().performance();
    let started = clock.as_ref().map(|p| p.now());
    let palette = Palette::of(dark);
    let gpus = render::paint_at(&ctx, sim, &layout, at, lang, palette, pointed);
    let _ = canvas.set_attribute("data-gpu-count", &gpus.to_string());
    // What this frame cost, sampling and painting [ms], for the benchmark.
    if let (Some(clock), Some(started)) = (clock, started) {
        let _ = canvas.set_attribute("data-frame-ms", &format!("{:.2}", clock.now() - started));
    }
}
