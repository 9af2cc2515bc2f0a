//! The errors of a run too big to simulate, found once its job runs: what it is, why no faster
//! method holds, and what to do (the page gives each clause in Chinese, `i18n::problems`).

use crate::limits::MAX_TRANSFERS;
use crate::plan::STEADY_SEARCH_STEPS;
use crate::scenario::{Scenario, ScenarioError};

/// What `too_big` advises: fewer nodes or channels.
pub(super) const FEWER: &str = "use fewer nodes or fewer channels (NCCL_MAX_NCHANNELS)";

/// The error for a collective too big to simulate whole that cannot run as a steady state.
pub(in crate::simulation) fn too_big(s: &Scenario, transfers: u64, why: &str) -> ScenarioError {
    too_big_advised(s, transfers, why, FEWER)
}

/// `too_big` with its own advice: a ring whose turn by whole nodes does not keep its routes
/// says how many nodes it measures with every position (`unturned_advice`).
pub(in crate::simulation) fn too_big_advised(
    s: &Scenario,
    transfers: u64,
    why: &str,
    advice: &str,
) -> ScenarioError {
    ScenarioError {
        field: "nodes".into(),
        problem: format!(
            "{} is {transfers} transfers, more than the engine simulates one by one ({}); it runs as a steady state where its steps repeat exactly or their time can be measured, and {why}: {advice}",
            s.collective.nccl_name(),
            MAX_TRANSFERS
        ),
    }
}

/// The advice for a ring too big to measure with every position of channel 0 where turning it
/// by whole nodes does not keep its routes: the most nodes of `gpus_per_node` GPUs that a
/// measuring run of at most `measured` transfers covers (`plan::least_measured_transfers`):
/// 5,208 DGX H100 natively, 2,604 in the page.
pub(in crate::simulation) fn unturned_advice(gpus_per_node: u32, measured: u64) -> String {
    let ranks = measured / crate::plan::LEAST_MEASURED_STEPS as u64;
    format!("use at most {} nodes here", ranks / gpus_per_node.max(1) as u64)
}

/// Why a ring whose steady-state search found no period is refused.
pub(super) fn not_settled() -> String {
    format!(
        "this one did not within {STEADY_SEARCH_STEPS} steps (channels that share NVLink, or hops whose latencies differ across a large fabric, keep a ring from settling)"
    )
}
