//! The JS API for pages that embed a figure without an iframe (`wasm-pack build --target web`;
//! `public/fabricscope-figure.js` wraps it in a `<fabricscope-figure>` element).
//!
//! ```js
//! import init, { simulate, Figure } from './pkg/fabricscope_web.js';
//! await init();
//! const summary = JSON.parse(simulate('{"preset": "dgx-h100", "nodes": 2, ...}'));
//! const figure = new Figure(canvas, scenarioJson, 'en');
//! figure.draw(figure.end_ns() / 2);      // the cluster half-way through the collective
//! ```
//!
//! A scenario is the JSON of a scenario file or of the page's `#s=` link. Bad input throws an
//! error that names the field and the problem; the page's limits apply.

use crate::i18n::Lang;
use crate::render::layout::Layout;
use crate::render::palette;
use crate::render::topology as render;
use crate::state::collectives::Focus;
use fabricscope::units::SimTime;
use fabricscope::{Scenario, Simulation};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// Validates and simulates a scenario.
fn run(scenario_json: &str) -> Result<Simulation, String> {
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
        "trace_hash": sim.hash_hex(),
        "steady": sim.steady,
    })
    .to_string()
}

/// Simulates `scenario_json` and returns its summary as JSON; throws the named problems.
#[wasm_bindgen]
pub fn simulate(scenario_json: &str) -> Result<String, JsError> {
    run(scenario_json).map(|sim| summary_json(&sim)).map_err(|e| JsError::new(&e))
}

/// A live figure of one scenario on a canvas: the page's topology view, drawn at any time.
#[wasm_bindgen]
pub struct Figure {
    sim: Simulation,
    layout: Layout,
    canvas: HtmlCanvasElement,
    lang: Lang,
    focus: Focus,
}

#[wasm_bindgen]
impl Figure {
    /// Simulates `scenario_json` and lays it out at the canvas's width (`lang`: "en" or "zh").
    #[wasm_bindgen(constructor)]
    pub fn new(
        canvas: HtmlCanvasElement,
        scenario_json: &str,
        lang: Option<String>,
    ) -> Result<Figure, JsError> {
        let sim = run(scenario_json).map_err(|e| JsError::new(&e))?;
        let width = (canvas.width() as f64).max(320.0);
        let layout = Layout::with_expanded(&sim.topology, width, None);
        canvas.set_height(layout.height.ceil() as u32);
        let lang = if lang.as_deref() == Some("zh") { Lang::Zh } else { Lang::En };
        Ok(Figure { sim, layout, canvas, lang, focus: Focus::default() })
    }

    /// When the collective ends [ns].
    pub fn end_ns(&self) -> f64 {
        self.sim.end().0 as f64
    }

    /// The summary, as `simulate` returns it.
    pub fn summary(&self) -> String {
        summary_json(&self.sim)
    }

    /// One line for a caption: the collective, its size and GPUs, its time and busbw, and how
    /// they were obtained.
    pub fn caption(&self) -> String {
        let s = &self.sim.summary;
        format!(
            "{} of {} on {} GPUs · {} · {}: {} · busbw {:.1} GB/s · {}",
            self.sim.scenario.scenario().collective.nccl_name(),
            fabricscope::units::format_bytes(s.size_bytes),
            s.n_ranks,
            self.sim.topology.technology.spec().name,
            self.sim.schedule.algorithm.nccl_name(),
            fabricscope::units::format_duration_ns(s.time.as_ns() as f64),
            s.busbw_gbyte_per_s,
            s.method.name()
        )
    }

    /// Draws the cluster at `t_ns` (clamped to the run).
    pub fn draw(&self, t_ns: f64) -> Result<(), JsError> {
        let ctx = self
            .canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|ctx| ctx.dyn_into::<CanvasRenderingContext2d>().ok())
            .ok_or_else(|| JsError::new("the canvas has no 2D context"))?;
        let t = SimTime(t_ns.clamp(0.0, self.end_ns()) as u64);
        render::paint_at(&ctx, &self.sim, &self.layout, t, self.lang, &palette::LIGHT, &self.focus);
        Ok(())
    }
}
