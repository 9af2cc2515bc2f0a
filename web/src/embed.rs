//! The JS API for pages that embed a figure without an iframe (`wasm-pack build --target web`;
//! `public/fabricscope-figure.js` wraps it in a `<fabricscope-figure>` element).
//!
//! ```js
//! import init, { simulate, Figure } from './pkg/fabricscope_web.js';
//! await init();
//! const summary = JSON.parse(simulate('{"preset": "dgx-h100", "nodes": 2, ...}'));
//! const figure = new Figure(canvas, scenarioJson, 'en', cssWidth, devicePixelRatio);
//! figure.draw(figure.end_ns() / 2);      // the cluster half-way through the collective
//! ```
//!
//! A scenario is the JSON of a scenario file or of the page's `#s=` link. Bad input throws an
//! error that names the field and the problem; the page's limits apply.

use crate::i18n::Lang;
use crate::render::layout::Layout;
use crate::render::palette;
use crate::render::surface::Surface;
use crate::render::topology as render;
use crate::state::collectives::Focus;
use fabricscope::units::SimTime;
use fabricscope::{Scenario, Simulation};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    CanvasRenderingContext2d, HtmlCanvasElement, OffscreenCanvas, OffscreenCanvasRenderingContext2d,
};

/// Validates and simulates a scenario.
fn run(scenario_json: &str) -> Result<Simulation, String> {
    if scenario_json.trim().is_empty() {
        return Err("no scenario: give the JSON of a scenario file or of a page link's #s=, e.g. {\"preset\": \"dgx-h100\", \"nodes\": 2, \"collective\": \"all_reduce\", \"size_bytes\": 268435456}".into());
    }
    let scenario = Scenario::from_json(scenario_json).map_err(|e| e.to_string())?;
    let valid = scenario
        .validate()
        .map_err(|errors| errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))?;
    crate::state::page_job::simulate_in_page(&valid)
}

/// What a simulation found, as JSON: the nccl-tests figures, the algorithm and protocol, the
/// steps, the trace hash (the CLI and the page print the same one), and how a steady state ran.
fn summary_json(sim: &Simulation) -> String {
    serde_json::json!({
        "summary": sim.summary,
        "algorithm": sim.schedule.algorithm.nccl_name(),
        "protocol": sim.schedule.protocol.nccl_name(),
        "steps": sim.n_steps(),
        "transfers": sim.n_transfers(),
        // A run bounded, or a chain extrapolated, has no trace: its bounds or its run instead.
        "trace_hash": (!sim.traceless()).then(|| sim.hash_hex()),
        "bounds": sim.bounded,
        "chain": sim.chain,
        "steady": sim.steady,
    })
    .to_string()
}

/// Simulates `scenario_json` and returns its summary as JSON; throws the named problems.
#[wasm_bindgen]
pub fn simulate(scenario_json: &str) -> Result<String, JsError> {
    run(scenario_json).map(|sim| summary_json(&sim)).map_err(|e| JsError::new(&e))
}

/// Where a figure draws: a page's canvas, or a canvas handed to a worker
/// (`transferControlToOffscreen`), as `<fabricscope-figure>` does so the host page's main
/// thread never simulates or paints.
enum Target {
    Page(HtmlCanvasElement),
    Worker(OffscreenCanvas),
}

impl Target {
    fn set_size(&self, width: u32, height: u32) {
        match self {
            Target::Page(c) => {
                c.set_width(width);
                c.set_height(height);
            }
            Target::Worker(c) => {
                c.set_width(width);
                c.set_height(height);
            }
        }
    }
}

/// A live figure of one scenario on a canvas: the page's topology view, drawn at any time.
#[wasm_bindgen]
pub struct Figure {
    sim: Simulation,
    layout: Layout,
    target: Target,
    /// Device pixels per CSS pixel.
    ratio: f64,
    lang: Lang,
    focus: Focus,
}

#[wasm_bindgen]
impl Figure {
    /// Simulates `scenario_json` and lays it out (`lang`: "en" or "zh"). `canvas` is an
    /// `HTMLCanvasElement` or an `OffscreenCanvas`; `css_width` is the width it is shown at
    /// (default: the canvas's width) and `pixel_ratio` the screen's device pixels per CSS
    /// pixel (default 1): the canvas gets `css_width × pixel_ratio` pixels, so it is sharp.
    #[wasm_bindgen(constructor)]
    pub fn new(
        canvas: JsValue,
        scenario_json: &str,
        lang: Option<String>,
        css_width: Option<f64>,
        pixel_ratio: Option<f64>,
    ) -> Result<Figure, JsError> {
        let target = match canvas.dyn_into::<HtmlCanvasElement>() {
            Ok(c) => Target::Page(c),
            Err(other) => match other.dyn_into::<OffscreenCanvas>() {
                Ok(c) => Target::Worker(c),
                Err(_) => {
                    return Err(JsError::new("the first argument must be a canvas or an OffscreenCanvas"))
                }
            },
        };
        let width = css_width.unwrap_or(match &target {
            Target::Page(c) => c.width() as f64,
            Target::Worker(c) => c.width() as f64,
        });
        let sim = run(scenario_json).map_err(|e| JsError::new(&e))?;
        let lang = if lang.as_deref().is_some_and(|l| l.starts_with("zh")) { Lang::Zh } else { Lang::En };
        let layout = Layout::with_expanded(&sim.topology, width.max(320.0), None);
        let mut figure = Figure { sim, layout, target, ratio: 1.0, lang, focus: Focus::default() };
        figure.resize(width, pixel_ratio.unwrap_or(1.0));
        Ok(figure)
    }

    /// Lays the figure out again at `css_width` and `pixel_ratio` (a resized container, a
    /// window moved to another screen); returns the height it is drawn at [CSS px].
    pub fn resize(&mut self, css_width: f64, pixel_ratio: f64) -> f64 {
        let width = if css_width.is_finite() { css_width.clamp(320.0, 8192.0) } else { 800.0 };
        self.ratio = if pixel_ratio.is_finite() { pixel_ratio.clamp(1.0, 4.0) } else { 1.0 };
        self.layout = Layout::with_expanded(&self.sim.topology, width, None);
        let height = self.layout.height.ceil();
        self.target.set_size((width * self.ratio).round() as u32, (height * self.ratio).round() as u32);
        height
    }

    /// The height the figure is drawn at [CSS px].
    pub fn height(&self) -> f64 {
        self.layout.height.ceil()
    }

    /// When the collective ends [ns].
    pub fn end_ns(&self) -> f64 {
        self.sim.end().0 as f64
    }

    /// The summary, as `simulate` returns it.
    pub fn summary(&self) -> String {
        summary_json(&self.sim)
    }

    /// One line for a caption, in the figure's language: the collective, its size and GPUs,
    /// its time and busbw, and how they were obtained.
    pub fn caption(&self) -> String {
        caption_of(&self.sim, self.lang)
    }

    /// Draws the cluster at `t_ns` (clamped to the run).
    pub fn draw(&self, t_ns: f64) -> Result<(), JsError> {
        let t = SimTime(t_ns.clamp(0.0, self.end_ns()) as u64);
        match &self.target {
            Target::Page(canvas) => {
                let ctx: CanvasRenderingContext2d = context(canvas.get_context("2d"))?;
                let _ = ctx.set_transform(self.ratio, 0.0, 0.0, self.ratio, 0.0, 0.0);
                self.paint(&ctx, t);
            }
            Target::Worker(canvas) => {
                let ctx: OffscreenCanvasRenderingContext2d = context(canvas.get_context("2d"))?;
                let _ = ctx.set_transform(self.ratio, 0.0, 0.0, self.ratio, 0.0, 0.0);
                self.paint(&ctx, t);
            }
        }
        Ok(())
    }
}

impl Figure {
    fn paint<S: Surface>(&self, ctx: &S, t: SimTime) {
        render::paint_at(
            ctx,
            &self.sim,
            &self.layout,
            render::At::of(&self.sim, t),
            self.lang,
            &palette::LIGHT,
            &self.focus,
        );
    }
}

/// A canvas's 2D context, of the kind `C` its canvas makes.
fn context<C: JsCast>(got: Result<Option<js_sys::Object>, JsValue>) -> Result<C, JsError> {
    got.ok()
        .flatten()
        .and_then(|ctx| ctx.dyn_into::<C>().ok())
        .ok_or_else(|| JsError::new("the canvas has no 2D context"))
}

/// `Figure::caption` of `sim` in `lang`: where the tuner's pick is beyond what the figure draws,
/// it says so, with NCCL's model's time for it (never a simulated figure).
fn caption_of(sim: &fabricscope::Simulation, lang: Lang) -> String {
    let s = &sim.summary;
    let (collective, size) =
        (sim.scenario.scenario().collective.nccl_name(), fabricscope::units::format_bytes(s.size_bytes));
    let (network, algorithm) = (sim.topology.technology.spec().name, sim.schedule.algorithm.nccl_name());
    let time = fabricscope::units::format_duration_ns(s.time.as_ns() as f64);
    let pick = match (sim.tuner_pick_not_run().zip(sim.tuner_pick_predicted_ns()), lang) {
        (None, _) => String::new(),
        (Some((pick, ns)), Lang::En) => format!(
            " · NCCL's tuner picks {} here (its model: {}), beyond what the figure draws",
            pick.nccl_name(),
            fabricscope::units::format_duration_ns(ns)
        ),
        (Some((pick, ns)), Lang::Zh) => format!(
            " · NCCL 调优器在此选择 {}（其模型预测：{}），超出本图可绘制的范围",
            pick.nccl_name(),
            fabricscope::units::format_duration_ns(ns)
        ),
    };
    let method = crate::i18n::method_name(lang, s.method);
    match lang {
        Lang::En => format!(
            "{collective} of {size} on {} GPUs · {network} · {algorithm}: {time} · busbw {:.1} GB/s · {method}{pick}",
            s.n_ranks, s.busbw_gbyte_per_s
        ),
        Lang::Zh => format!(
            "{} 块 GPU 上 {size} 的 {collective} · {network} · {algorithm}：{time} · busbw {:.1} GB/s · {method}{pick}",
            s.n_ranks, s.busbw_gbyte_per_s
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::{caption_of, Lang};
    use fabricscope::Scenario;

    /// At 1,024 H100 GPUs and 1 GiB the figure draws NVLSTree, NCCL's pick, from the channels
    /// that stand for all (their images are the rest), its time fitted to NCCL's chunks. On RoCE
    /// with ECMP no symmetry is proved and NVLSTree's trace is beyond the page: the figure draws
    /// the best ring row, and its caption names NCCL's pick with the model's time for it. Where
    /// the pick ran, it says nothing more.
    #[test]
    fn a_caption_names_the_tuners_pick_the_figure_could_not_draw() {
        let big = Scenario { nodes: 128, size_bytes: 1 << 30, ..Scenario::default_demo() };
        let sim = crate::state::page_job::simulate_in_page(&big.validate().unwrap()).unwrap();
        let en = caption_of(&sim, Lang::En);
        assert_eq!(
            en,
            "AllReduce of 1 GiB on 1024 GPUs · InfiniBand · NVLSTree: 6.033 ms · busbw 355.6 GB/s · fitted to NCCL's chunks (±1%)"
        );
        let fabric = fabricscope::scenario::FabricConfig {
            technology: fabricscope::catalog::Technology::Roce,
            routing: Some(fabricscope::catalog::Routing::Ecmp),
            ..big.fabric.clone()
        };
        let roce = Scenario { fabric, ..big };
        let sim = crate::state::page_job::simulate_in_page(&roce.validate().unwrap()).unwrap();
        let en = caption_of(&sim, Lang::En);
        assert!(en.starts_with("AllReduce of 1 GiB on 1024 GPUs · RoCEv2 · Ring: "), "{en}");
        assert!(en.contains(" · NCCL's tuner picks NVLSTree here (its model: "), "{en}");
        assert!(en.ends_with("), beyond what the figure draws"), "{en}");
        let zh = caption_of(&sim, Lang::Zh);
        assert!(zh.contains(" · NCCL 调优器在此选择 NVLSTree（其模型预测："), "{zh}");
        let small = Scenario { nodes: 2, size_bytes: 1 << 30, ..Scenario::default_demo() };
        let sim = crate::state::page_job::simulate_in_page(&small.validate().unwrap()).unwrap();
        let en = caption_of(&sim, Lang::En);
        assert!(en.contains("· NVLSTree: ") && !en.contains("tuner picks"), "{en}");
    }
}
