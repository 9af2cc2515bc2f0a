//! `fabricscope calibrate FILE`: every published figure in the file (each with its source and
//! tolerance) through the model, printed as a markdown table of model, published and their
//! ratio. Fails (exit 2, naming each) when a figure drifts beyond its tolerance, so the table in
//! the README stays true (`crates/cli/tests/cli.rs` compares them).

use fabricscope::{simulate, Scenario, ScenarioError};
use serde::Deserialize;

/// One published figure and the scenario that models it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Figure {
    system: String,
    what: String,
    scenario: Scenario,
    /// `busbw` [GB/s], or `busbw_per_nic`: busbw over the NICs per node in use.
    measure: Measure,
    /// The published figure's middle [GB/s], and as its source states it.
    published: f64,
    published_text: String,
    /// The largest |model / published - 1| accepted.
    tolerance: f64,
    source: String,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum Measure {
    Busbw,
    BusbwPerNic,
}

pub fn calibrate(path: &str) -> Result<String, Vec<ScenarioError>> {
    let text = crate::read_file(path)?;
    let figures: Vec<Figure> = fabricscope::scenario::parse_json(&text).map_err(|e| vec![e])?;
    let mut out = String::from(
        "| system | what | model | published | ratio | tolerance | source |\n| --- | --- | --- | --- | --- | --- | --- |\n",
    );
    let mut drifted = Vec::new();
    for (i, figure) in figures.iter().enumerate() {
        let field = |problem: String| ScenarioError { field: format!("[{i}] {}", figure.system), problem };
        let valid = figure
            .scenario
            .validate()
            .map_err(|errors| errors.into_iter().map(|e| field(e.to_string())).collect::<Vec<_>>())?;
        let sim = simulate(&valid).map_err(|e| vec![field(e.to_string())])?;
        let nics = figure.scenario.nics_used.unwrap_or(valid.preset().nics_per_node).max(1);
        let model = match figure.measure {
            Measure::Busbw => sim.summary.busbw_gbyte_per_s,
            Measure::BusbwPerNic => sim.summary.busbw_gbyte_per_s / nics as f64,
        };
        let ratio = model / figure.published;
        let within = (ratio - 1.0).abs() <= figure.tolerance;
        out.push_str(&format!(
            "| {} | {} | {:.1} GB/s ({} / {}) | {} | {:.3} | ±{:.0}%{} | {} |\n",
            figure.system,
            figure.what,
            model,
            sim.schedule.algorithm.nccl_name(),
            sim.schedule.protocol.nccl_name(),
            figure.published_text,
            ratio,
            100.0 * figure.tolerance,
            if within { "" } else { " **drifted**" },
            figure.source
        ));
        if !within {
            drifted.push(field(format!(
                "the model's {model:.2} GB/s is {ratio:.3} × the published {} (tolerance ±{:.0}%)",
                figure.published_text,
                100.0 * figure.tolerance
            )));
        }
    }
    out.push_str(&format!(
        "\n{} of {} figures within their tolerance.\n",
        figures.len() - drifted.len(),
        figures.len()
    ));
    if drifted.is_empty() {
        Ok(out)
    } else {
        print!("{out}");
        Err(drifted)
    }
}
