//! What the page simulates, and how without freezing: the bounds of a run in the page
//! (`page_job`), slices of work between frames (`work`), and the busbw chart's points.
//!
//! `work` reads the clock it is given (`now_ms` in the page) to end a slice after `SLICE_MS`;
//! natively `now_ms` reads 0 and a slice ends after a fixed number of polls instead. The slices
//! run in the page's effects (`slices`), never in a reducer.

use fabricscope::collective::Algorithm;
use fabricscope::plan::{Admission, Budget};
use fabricscope::{sweep_sizes, Collective, Job, Scenario, Simulation};

/// Most transfers the page simulates one by one (about 2 s in WebAssembly here), enough for a
/// GB200 NVL72 rack at NCCL's 32 channels (a 327,168-transfer ring); a ring that settles into
/// a steady state (`fabricscope::Steady`) runs at any size whose 32-step prefix is within it.
pub const PAGE_MAX_TRANSFERS: u64 = 400_000;

/// `simulate`, within what the page can do without keeping the reader waiting.
pub fn simulate_in_page(valid: &fabricscope::ValidScenario) -> Result<Simulation, String> {
    finish_job(page_job(valid)?)
}

/// A job run to its end.
pub fn finish_job(job: Job) -> Result<Simulation, String> {
    job.run().map_err(|e| e.to_string())
}

/// The transfers a scenario's collective has.
pub fn transfers_of(valid: &fabricscope::ValidScenario) -> u64 {
    let s = valid.scenario();
    fabricscope::collective::transfer_count(s.collective, valid.n_ranks(), s.count(), valid.channels())
}

/// What the page lets one collective cost: `PAGE_MAX_TRANSFERS` one by one, or a steady state's
/// search prefix of as many.
pub const PAGE_BUDGET: Budget =
    Budget { transfers: PAGE_MAX_TRANSFERS, steady_prefix: PAGE_MAX_TRANSFERS, shown_expanded: 0 };

/// The job that simulates a scenario in the page: the core's admission rule under the page's
/// budget (`PAGE_BUDGET`): whole, as a ring that settles at any size, else a named refusal.
pub fn page_job(valid: &fabricscope::ValidScenario) -> Result<Job, String> {
    let s = valid.scenario();
    let (n, channels) = (valid.n_ranks(), valid.channels());
    let total = match valid.admit(PAGE_BUDGET) {
        // The page shows the trace hash: a large trace's is worked out in the job's slices.
        Admission::Whole => return Ok(Job::within(valid, fabricscope::Mode::Auto, PAGE_BUDGET).hashed()),
        Admission::Steady => return Ok(Job::within(valid, fabricscope::Mode::Steady, PAGE_BUDGET).hashed()),
        Admission::Refused { transfers } => transfers,
    };
    Err(format!(
        "nodes: {} on {n} GPUs over {channels} channels is {total} transfers; the page simulates up to {PAGE_MAX_TRANSFERS} one by one, or a ring that settles into a steady state (try 1 or 2 channels) at any size: use fewer nodes or channels, or the CLI (fabricscope {})",
        s.collective.nccl_name(),
        s.collective.nccl_name().to_lowercase()
    ))
}

/// Message sizes of the chart's sweep: 1 KiB to 4 GiB, ×2.
pub fn chart_sizes() -> Vec<u64> {
    sweep_sizes(1 << 10, 4 << 30, 2)
}

/// The chart's points to simulate: every size for every algorithm the collective runs with
/// (AllReduce: Ring and Tree, each forced as NCCL_ALGO would), smallest sizes first.
pub fn chart_points(scenario: &Scenario) -> Vec<(u64, Option<Algorithm>)> {
    let algorithms: Vec<Option<Algorithm>> = if scenario.collective == Collective::AllReduce {
        // NVLS or CollNet too where they may run and are enabled.
        let valid = scenario.validate().ok();
        let mut list = vec![Some(Algorithm::Ring), Some(Algorithm::Tree)];
        if scenario.nvls && valid.as_ref().is_some_and(fabricscope::ValidScenario::nvls_supported) {
            list.push(Some(Algorithm::Nvls));
        }
        if scenario.collnet && valid.as_ref().is_some_and(fabricscope::ValidScenario::sharp_supported) {
            list.push(Some(Algorithm::CollNet));
        }
        list
    } else {
        vec![None]
    };
    chart_sizes().into_iter().flat_map(|size| algorithms.iter().map(move |&a| (size, a))).collect()
}

/// Longest the page works between two frames [ms]: the page never freezes longer than this
/// plus one poll (a job's polls are bounded pieces of about 15 ms natively at 1,024 GPUs, about
/// 30 in the page: 20 + 30 keeps frames within 50 ms).
pub const SLICE_MS: f64 = 20.0;

/// Scenarios up to this many transfers run at once when changed (a few ms); bigger ones run
/// in slices with a progress bar and a cancel button.
pub const SYNC_TRANSFERS: u64 = 20_000;

/// Polls a job (`poll`: a `Job`'s or a `PointJob`'s) for up to `SLICE_MS` by `clock` [ms]
/// (natively, where `now_ms` reads 0, until done or a fixed number of polls).
pub fn work<T>(mut poll: impl FnMut(u64) -> Option<T>, clock: fn() -> f64) -> Option<T> {
    let started = clock();
    for _ in 0..2_000 {
        if let Some(result) = poll(64) {
            return Some(result);
        }
        if clock() - started >= SLICE_MS {
            break;
        }
    }
    None
}

/// Wall-clock milliseconds (the page's; 0 natively, where the tests run).
pub fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0.0
    }
}
