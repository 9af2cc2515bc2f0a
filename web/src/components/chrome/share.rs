//! Share and export for the collectives view: the link and the `<iframe>` code of the view as
//! it is, and downloads of the run (JSON, CSV, PNG, SVG) made in the page.

use crate::components::LiveState;
use crate::i18n::{t, Lang, Text};
use crate::render::topology::topology_svg;
use crate::services::download::{download, export_canvas_png};
use crate::services::{clipboard, location};
use crate::state::collectives::AppState;
use crate::state::Shared;
use yew::prelude::*;

/// The copied `<iframe>`'s height [px]: an embedded figure with its results, without scrolling.
const EMBED_HEIGHT: u32 = 1100;

#[derive(Properties, PartialEq)]
pub struct ShareProps {
    /// Read when a button is pressed, for what moves every frame (the playhead).
    pub live: LiveState<AppState>,
    /// The simulation shown: the exports are of this run.
    pub sim: Shared<fabricscope::Simulation>,
    pub lang: Lang,
}

/// Copy a link to this view or the code that embeds it, and export the run.
#[function_component(ShareExport)]
pub fn share_export(props: &ShareProps) -> Html {
    let state = &props.live.0;
    let lang = props.lang;
    let shown = use_state(|| None::<String>);
    let share = |embed: bool| {
        let shown = shown.clone();
        let s = state.clone();
        Callback::from(move |_| {
            let (origin, path) = (location::origin(), location::pathname());
            // What the address bar holds: both sides of an A/B comparison, the time, the view.
            let ab = s.ab().map(|((a, _), (b, _))| (a, b));
            let fragment = crate::services::url::view_fragment(&s.scenario, ab, s.playhead, s.lang, s.dark);
            let text = if embed {
                // It plays as it opens; the height fits the figure and its results at 700 to
                // 1,400 px wide (measured: 1,021 to 1,036 px for two nodes).
                format!("<iframe src=\"{origin}{path}?embed&autoplay{fragment}\" width=\"100%\" height=\"{EMBED_HEIGHT}\" style=\"border:0\" title=\"Fabricscope\" loading=\"lazy\"></iframe>")
            } else {
                // The lesson step open, too, if any.
                let lesson = crate::lessons::query_in(&location::search());
                format!("{origin}{path}{lesson}{fragment}")
            };
            // Where the browser refuses the clipboard, the text is shown to select.
            clipboard::copy(&text);
            shown.set(Some(text));
        })
    };
    let export_json = {
        let s = state.clone();
        Callback::from(move |_| {
            let sim = &s.sim;
            let value = serde_json::json!({
                "scenario": s.scenario,
                "summary": sim.summary,
                "algorithm": sim.schedule.algorithm,
                "protocol": sim.schedule.protocol,
                "tuning": sim.tuning,
                "alpha_beta": sim.alpha_beta(),
                // A run bounded, or a chain extrapolated, has no trace: its bounds or its run instead.
                "trace_hash": (!sim.traceless()).then(|| sim.hash_hex()),
                "bounds": sim.bounded,
                "chain": sim.chain,
            });
            download(
                "fabricscope-run.json",
                "application/json",
                &serde_json::to_string_pretty(&value).unwrap_or_default(),
            );
        })
    };
    let export_links = {
        let s = state.clone();
        Callback::from(move |_| download("fabricscope-links.csv", "text/csv", &s.sim.links_csv()))
    };
    let export_transfers = {
        let s = state.clone();
        Callback::from(move |_| download("fabricscope-transfers.csv", "text/csv", &s.sim.transfers_csv()))
    };
    let export_png = Callback::from(move |_| export_canvas_png("topology", "fabricscope-topology.png"));
    // The topology as SVG: the same painter as the canvas, at the canvas's width and time, with
    // the node it has open, in the light theme (for documents).
    let export_svg = {
        let s = state.clone();
        Callback::from(move |_| {
            let canvas = gloo::utils::document().get_element_by_id("topology");
            let width = canvas
                .as_ref()
                .and_then(|c| c.parent_element())
                .map(|p| p.client_width() as f64)
                .unwrap_or(1100.0)
                .max(320.0);
            let expanded = canvas.and_then(|c| c.get_attribute("data-expanded")).and_then(|e| e.parse().ok());
            let svg = topology_svg(&s.sim, width, expanded, s.playhead, s.lang, &s.focus);
            download("fabricscope-topology.svg", "image/svg+xml", &svg);
        })
    };
    html! {
        <>
            <h2>{ t(lang, Text::ShareAndExport) }</h2>
            <div class="buttons">
                <button id="copy-link" onclick={share(false)}>{ t(lang, Text::CopyLink) }</button>
                <button id="copy-embed" onclick={share(true)}>{ t(lang, Text::CopyEmbedCode) }</button>
            </div>
            if let Some(text) = &*shown {
                <input id="share-text" class="share-text" readonly=true value={text.clone()} aria-label={t(lang, Text::LinkOrEmbedCode)} />
                <p class="hint">{ t(lang, Text::CopiedToTheClipboardWhere) }</p>
            }
            <div class="buttons">
                <button id="export-json" onclick={export_json}>{ "JSON" }</button>
                <button id="export-links" onclick={export_links}>{ t(lang, Text::LinksCSV) }</button>
                <button id="export-transfers" onclick={export_transfers}>{ t(lang, Text::PerRankTimelineCSV) }</button>
                <button id="export-png" onclick={export_png}>{ t(lang, Text::TopologyPNG) }</button>
                <button id="export-topology-svg" onclick={export_svg}>{ t(lang, Text::TopologySVG) }</button>
            </div>
        </>
    }
}
