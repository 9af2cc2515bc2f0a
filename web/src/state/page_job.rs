//! What the page simulates, and how without freezing: the bounds of a run in the page
//! (`page_job`), slices of work between frames (`work`), and the busbw chart's points.
//!
//! `work` reads the clock it is given (`now_ms` in the page) to end a slice after `SLICE_MS`;
//! natively `now_ms` reads 0 and a slice ends after a fixed number of polls instead. The slices
//! run in the page's effects (`slices`), never in a reducer.

use fabricscope::collective::Algorithm;
use fabricscope::{sweep_sizes, Collective, Job, Scenario, Simulation};

pub use fabricscope::plan::{PAGE_BUDGET, PAGE_MAX_TRANSFERS};

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
    let shape = (s.nodes, valid.n_ranks() / s.nodes.max(1));
    fabricscope::collective::transfer_count(s.collective, shape, s.count(), valid.channels(), s.protocol)
}

/// The job that simulates a scenario in the page: the core's admission rule under the page's
/// budget (`PAGE_BUDGET`): whole, as a ring that settles at any size, else a named refusal. A
/// tree the tuner picks, too big to build whole, is shown from the channels that stand for all
/// where they fit (`Job::showing_images`: NVLSTree on 1,024 H100 GPUs), else the best ring row.
/// An AllToAll beyond the page's transfers is shown bounded by max-min sharing where its
/// channels route alike (`Simulation::bounded`: its bounds and exact link bytes, no trace), a
/// Broadcast's or Reduce's chain run on fewer nodes and extrapolated where that many fit
/// (`Simulation::chain`: its run and exact link bytes, no trace).
pub fn page_job(valid: &fabricscope::ValidScenario) -> Result<Job, String> {
    let s = valid.scenario();
    let (n, channels) = (valid.n_ranks(), valid.channels());
    // The page shows the trace hash: a large trace's is worked out in the job's slices.
    let total = match Job::admitted(valid, PAGE_BUDGET) {
        Ok(job) => return Ok(job.showing_images().hashed()),
        Err(transfers) => transfers,
    };
    let reduces = valid.preset().gpu_fabric.reduces_in_switch();
    let most = fabricscope::plan::most_pipeline_bytes(s, n, channels, PAGE_BUDGET, reduces);
    let refusal = too_big_for_page(s.collective, (n, channels), total, most);
    // A chain that is not run on fewer nodes and extrapolated says why.
    match fabricscope::plan::chain_nodes_run(s, n, channels, PAGE_BUDGET.transfers) {
        Err(why) if matches!(s.collective, Collective::Broadcast | Collective::Reduce) => {
            Err(format!("{refusal}; it is not extrapolated from fewer nodes here: {why}"))
        }
        _ => Err(refusal),
    }
}

/// Why a collective of `total` transfers on `n` GPUs over `channels` channels is beyond the
/// page, and what runs it: a ring that may settle at any size, fewer chunks for a chain's or a
/// SendRecv's smaller message (NCCL cuts them into chunks of a fixed size), an AllToAll's bound
/// where its channels route alike, and the CLI, whose engine takes every scenario that
/// validates (`page_job` sees no other). `most`: the largest message of a pipeline the page runs
/// here (`plan::most_pipeline_bytes`).
pub fn too_big_for_page(
    collective: Collective,
    (n, channels): (u32, u32),
    total: u64,
    most: Option<u64>,
) -> String {
    let name = collective.nccl_name();
    let cli = name.to_lowercase();
    let what = format!("{name} on {n} GPUs over {channels} channels is {total} transfers");
    let page = format!("the page simulates up to {PAGE_MAX_TRANSFERS} one by one");
    match collective {
        Collective::AllReduce | Collective::AllGather | Collective::ReduceScatter => format!(
            "nodes: {what}; {page}, or a ring that settles into a steady state (try 1 or 2 channels) at any size: use fewer nodes or channels, or the CLI (fabricscope {cli})"
        ),
        Collective::Broadcast | Collective::Reduce | Collective::SendRecv => match most {
            Some(most) => format!(
                "nodes: {what}; {page}, fewer for a smaller message (NCCL cuts its pipeline into chunks of a fixed size): use fewer nodes or channels, a message of at most {} here, or the CLI (fabricscope {cli})",
                fabricscope::units::format_bytes_whole(most)
            ),
            None => format!(
                "nodes: {what}; {page}, fewer for a smaller message (NCCL cuts its pipeline into chunks of a fixed size): use fewer nodes or channels, a smaller message, or the CLI (fabricscope {cli})"
            ),
        },
        // Bounded where its channels route alike (`Admission::Bounded`), which the CLI needs too.
        Collective::AllToAll => format!(
            "nodes: {what}; {page}, or bounds it by max-min sharing where its channels route alike (static routes, every GPU on a NIC of its own in use, a lossless fabric): use fewer nodes or channels"
        ),
    }
}

/// Message sizes of the chart's sweep: 1 KiB to 4 GiB, ×2.
pub fn chart_sizes() -> Vec<u64> {
    sweep_sizes(1 << 10, 4 << 30, 2)
}

/// The chart's points to simulate: every size for every algorithm the collective runs with
/// (AllReduce: Ring, Tree, and NVLS, NVLSTree or CollNet where they run, each forced as
/// NCCL_ALGO would), smallest sizes first.
pub fn chart_points(scenario: &Scenario) -> Vec<(u64, Option<Algorithm>)> {
    let algorithms: Vec<Option<Algorithm>> = if scenario.collective == Collective::AllReduce {
        // NVLS (one node) or NVLSTree (across nodes: NCCL's pick for large messages on H100 and
        // B200 nodes), and CollNet where it is enabled, too: each where NCCL_ALGO may force it on
        // hardware that validates, as validation says (it runs here, it is enabled, with the
        // protocol NCCL_PROTO forces); one beyond the engine's limit is drawn with its points
        // left off, as Ring's and Tree's are.
        let valid = scenario.validate().is_ok();
        let forced = |algorithm: Algorithm| {
            let forced = Scenario { algorithm: Some(algorithm), ..scenario.clone() };
            valid && forced.validate().err().is_none_or(|errors| errors.iter().all(|e| e.field == "nodes"))
        };
        let mut list = vec![Some(Algorithm::Ring), Some(Algorithm::Tree)];
        let collnet = scenario.collnet.then_some(Algorithm::CollNet);
        let more = [Algorithm::Nvls, Algorithm::NvlsTree].into_iter().chain(collnet);
        list.extend(more.filter(|&a| forced(a)).map(Some));
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

/// Most transfers of a collective whose chart points the main thread takes beside the workers:
/// a point's plan proves its channels' symmetry on the whole schedule in one poll, which at 8
/// nodes (64,512 transfers) stays within a frame's budget in the page and at 128 nodes took
/// 60-120 ms (the workers alone take those).
pub const MAIN_THREAD_POINT_TRANSFERS: u64 = 100_000;

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
