//! Where the ranks sit on the cluster, coloured by what they do at the playhead, with the
//! traffic between nodes.

use super::{canvas_width, context, drawn_width, Props};
use crate::i18n::{t, Lang, Text};
use crate::render::palette::TrainPalette;
use crate::render::surface::Svg;
use crate::render::training::{self as train_paint, Placement, PlacementScene};
use crate::state::training::{TrainAction, TrainState};
use fabricscope::train::layout::Dim;
use fabricscope::train::TrainReport;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// The placement grid as SVG, as the canvas shows it now (light theme).
pub fn placement_svg(s: &TrainState, report: &TrainReport) -> String {
    let width = drawn_width("placement");
    let nodes = s.valid.cluster().scenario().nodes;
    let place = Placement::new(width, nodes, s.valid.cluster().preset().gpus_per_node);
    let svg = Svg::new();
    let scene = PlacementScene {
        place: &place,
        grid: s.valid.grid(),
        nodes,
        report,
        ep: s.job.ep,
        t: s.playhead,
        groups: s.groups,
        lang: s.lang,
        palette: TrainPalette::of(false),
    };
    train_paint::paint_placement(&svg, &scene);
    svg.finish(place.width, place.height)
}

/// The placement grid at the playhead, and which groups it colours.
#[function_component(PlacementView)]
pub fn placement_view(props: &Props) -> Html {
    let s = &props.state;
    let lang = s.lang;
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        let (report, valid, playhead, dark, groups) =
            (props.report.clone(), s.valid.clone(), s.playhead, s.dark, s.groups);
        let ep = s.job.ep;
        use_effect_with((report.clone(), playhead.to_bits(), dark, lang, groups), move |_| {
            if let Some(element) = canvas.cast::<HtmlCanvasElement>() {
                let width = canvas_width(&canvas);
                let nodes = valid.cluster().scenario().nodes;
                let place = Placement::new(width, nodes, valid.cluster().preset().gpus_per_node);
                if let Some(ctx) = context(&element, width, place.height) {
                    let scene = PlacementScene {
                        place: &place,
                        grid: valid.grid(),
                        nodes,
                        report: &report,
                        ep,
                        t: playhead,
                        groups,
                        lang,
                        palette: TrainPalette::of(dark),
                    };
                    train_paint::paint_placement(&ctx, &scene);
                }
            }
        });
    }
    let set = |dim: Dim| {
        let s = s.clone();
        Callback::from(move |_| s.dispatch(TrainAction::SetGroups(dim)))
    };
    let grid = s.valid.grid();
    let nodes_of = |dim: Dim| {
        let g = s.valid.cluster().preset().gpus_per_node;
        let group = &grid.groups(dim)[0];
        let mut nodes: Vec<u32> = group.iter().map(|r| r / g).collect();
        nodes.dedup();
        nodes.len()
    };
    let span = |dim: Dim, name: &str| match lang {
        Lang::En => format!("each {name} group spans {} node(s)", nodes_of(dim)),
        Lang::Zh => format!("每个 {name} 组跨 {} 个节点", nodes_of(dim)),
    };
    html! {
        <>
            <h2>{ t(lang, Text::WhereTheRanksSitAnd) }</h2>
            <div class="segmented" role="group" aria-label={t(lang, Text::GroupsToColour)}>
                { for [(Dim::Tp, "TP"), (Dim::Cp, "CP"), (Dim::Pp, "PP"), (Dim::Dp, "DP")].into_iter().filter(|&(dim, _)| dim != Dim::Cp || grid.cp > 1).map(|(dim, name)| html! {
                    <button id={format!("groups-{}", name.to_lowercase())} aria-pressed={(s.groups == dim).to_string()} onclick={set(dim)}>{ name }</button>
                }) }
            </div>
            <p class="hint" id="group-span">{ if grid.cp > 1 {
                format!("{}; {}; {}; {}.", span(Dim::Tp, "TP"), span(Dim::Cp, "CP"), span(Dim::Pp, "PP"), span(Dim::Dp, "DP"))
            } else {
                format!("{}; {}; {}.", span(Dim::Tp, "TP"), span(Dim::Pp, "PP"), span(Dim::Dp, "DP"))
            } }</p>
            <div class="canvas-wrap"><canvas id="placement" ref={canvas} data-gpus={grid.ranks().to_string()}></canvas></div>
            <p class="hint" id="placement-hint">{ t(lang, if s.valid.cluster().scenario().nodes > crate::render::training::COMPACT_ABOVE { Text::PlacementCompact } else { Text::EachGPUIsFilledWith }) }</p>
        </>
    }
}
