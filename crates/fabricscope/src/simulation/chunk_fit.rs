//! NVLSTree's time at NCCL's own chunks, fitted from two runs (`Method::ChunkFit`).
//!
//! NCCL cuts an NVLSTree part into chunks of 64 KiB from 4 nodes up (`nvls_tree::nccl_chunk_bytes`):
//! 256 per part at 1 GiB on 8 nodes or more. The model cuts at most `MAX_CHUNKS` (16), which
//! keeps a tree of a thousand nodes within the engine, and bigger chunks fill the tree's pipeline
//! more slowly (at 1 GiB: 14% of the time on 8 nodes, 38% on 128). A part's time goes as
//!
//! ```text
//!   T(C) = A + B / C      C chunks per part; A: the bytes at the bottleneck's rate and the
//!                         latencies; B / C: the pipeline's fill and drain, one chunk's crossing
//! ```
//!
//! once C is large enough for the pipeline to be full most of the time. Where NCCL cuts more
//! chunks than the model, the job runs the collective again at `FINE_CHUNKS` = 2 × `MAX_CHUNKS`
//! per part (part 0 of the channels that stand for all where they fold, `tree_channels`; every
//! transfer otherwise), fits A and B to the two runs and gives T at NCCL's count: within
//! `CHUNK_FIT_BOUND` (1%) of a run cut into NCCL's every chunk over `tests/chunk_fit.rs`'s
//! matrix. Runs at 8 and 16 chunks were off by up to 5.5% (128 nodes: their fill is not yet
//! B / C), which is why the finer run has 32. The run shown (trace, animation, hash) is the
//! model's, at `MAX_CHUNKS`; the link bytes are the same at any chunking.

use super::job::run_settings;
use super::tree_channels::{FirstChannelsBuild, Proved};
use super::{Method, Mode, Simulation};
use crate::collective::nvls_tree::{self, NvlsTreeBuilder, MAX_CHUNKS};
use crate::collective::{Algorithm, Protocol, Schedule};
use crate::engine;
use crate::engine::symmetry::Fold;
use crate::plan::ValidScenario;
use crate::scenario::Collective;
use crate::topology::Topology;
use crate::units::SimTime;
use serde::{Deserialize, Serialize};

/// Chunks per part of the finer run.
pub const FINE_CHUNKS: u64 = 2 * MAX_CHUNKS;

/// How far a fitted time may be from the run cut into NCCL's every chunk (`tests/chunk_fit.rs`).
pub const CHUNK_FIT_BOUND: f64 = 0.01;

/// NVLSTree cut into fewer chunks than NCCL cuts: the two runs and the fit (`Method::ChunkFit`),
/// or, where the finer run is beyond the engine, the model's run alone, which says so.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkFit {
    /// Chunks per part and bytes of each: the run shown (the model's), the finer run, NCCL's.
    pub chunks: u64,
    pub chunk_bytes: u64,
    pub fine_chunks: u64,
    pub fine_chunk_bytes: u64,
    pub nccl_chunks: u64,
    pub nccl_chunk_bytes: u64,
    /// How both runs were obtained (exact, or exact by symmetry).
    pub runs: Method,
    /// The run shown's time and the finer run's [ns]; `None` where the finer run is beyond the
    /// engine (the time is then the model's run's, not fitted).
    pub run_ns: u64,
    pub fine_ns: Option<u64>,
}

impl ChunkFit {
    /// The time at NCCL's chunks [ns], from `T(C) = A + B / C` through both runs.
    pub fn fitted_ns(&self) -> Option<u64> {
        let fine = self.fine_ns? as f64;
        let (m, f, n) = (self.chunks as f64, self.fine_chunks as f64, self.nccl_chunks as f64);
        let b = (self.run_ns as f64 - fine) / (1.0 / m - 1.0 / f);
        let a = fine - b / f;
        Some((a + b / n).round().max(1.0) as u64)
    }
}

/// The finer run under way.
pub(super) struct Fit {
    sim: Box<Simulation>,
    finer: Finer,
    fit: ChunkFit,
    /// The finer run's protocol and channels, fold and most transfers (`FinerTask::key`).
    key: (Protocol, u32, bool, u64),
}

/// The finer run: here, a slice at a time, or run to its end on a thread of its own (`Ahead`).
enum Finer {
    /// The channels that run for all being built, a channel per poll (`done` once they are).
    Building {
        build: Box<FirstChannelsBuild>,
        done: bool,
        protocol: Protocol,
    },
    /// Built, with the fold they run on (`FirstChannelsBuild::finish_lanes`): set up next.
    Carried {
        fold: Box<Fold>,
        lanes: Schedule,
    },
    Running(Schedule, Box<engine::Run>),
    Ended(SimTime),
    /// Beyond the engine after all: no fit.
    None,
}

/// The fit a run of `algorithm` over `channels` needs: NVLSTree AllReduce whose parts NCCL cuts
/// into more chunks than the model did, its `runs` and `run_ns` left for the run to fill in;
/// `None` otherwise.
fn wanted(scenario: &ValidScenario, algorithm: Algorithm, channels: u32) -> Option<ChunkFit> {
    wanted_at(scenario, algorithm, channels, MAX_CHUNKS)
}

/// The fit NVLSTree over `channels` run at `cap` chunks per part, fewer than `MAX_CHUNKS`
/// (`big::tree_cap`), would need and cannot have: the run at `FINE_CHUNKS` is beyond the limit
/// that already cut it coarser. Its time overstates NCCL's, which the result says.
pub(super) fn capped(scenario: &ValidScenario, channels: u32, cap: u64) -> Option<ChunkFit> {
    wanted_at(scenario, Algorithm::NvlsTree, channels, cap)
}

/// `wanted` for a run at `cap` chunks per part.
fn wanted_at(scenario: &ValidScenario, algorithm: Algorithm, channels: u32, cap: u64) -> Option<ChunkFit> {
    let s = scenario.scenario();
    if algorithm != Algorithm::NvlsTree || s.collective != Collective::AllReduce || s.nodes < 2 {
        return None;
    }
    let (g, count) = (scenario.preset().rings[0].len() as u32, s.count());
    let (chunk_bytes, chunks) = nvls_tree::part_chunking_at(s.nodes, count, g, channels, cap);
    let (fine_chunk_bytes, fine_chunks) =
        nvls_tree::part_chunking_at(s.nodes, count, g, channels, FINE_CHUNKS);
    let (nccl_chunk_bytes, nccl_chunks) = nvls_tree::nccl_part_chunking(s.nodes, count, g, channels);
    (nccl_chunks > chunks && fine_chunks > chunks).then_some(ChunkFit {
        chunks,
        chunk_bytes,
        fine_chunks,
        fine_chunk_bytes,
        nccl_chunks,
        nccl_chunk_bytes,
        runs: Method::Exact,
        run_ns: 0,
        fine_ns: None,
    })
}

/// The fit `sim` needs (`wanted`); `None` otherwise, or once fitted.
fn needed(sim: &Simulation) -> Option<ChunkFit> {
    if sim.chunk_fit.is_some() || sim.steady.is_some() {
        return None;
    }
    let fit = wanted(&sim.scenario, sim.schedule.algorithm, sim.schedule.n_channels)?;
    Some(ChunkFit { runs: sim.summary.method, run_ns: sim.summary.time.0, ..fit })
}

/// The finer run of `sim` where it needs one (`needed`) and the run fits `limit` transfers; else
/// `sim` itself, saying where the fit could not run. A run started `ahead` for the same protocol
/// and channels is that run; its thread's result is awaited.
pub(super) fn start(
    mut sim: Box<Simulation>,
    (mode, limit): (Mode, u64),
    ahead: Option<Ahead>,
    proved: Option<Box<Proved>>,
) -> Result<Box<Fit>, Box<Simulation>> {
    let Some(fit) = needed(&sim) else {
        return Err(sim);
    };
    let fold = mode != Mode::Exact;
    let key = (sim.schedule.protocol, sim.schedule.n_channels, fold, limit);
    let finer = match ahead.filter(|ahead| ahead.key == key) {
        // A thread that failed leaves the run to be done here.
        Some(ahead) => match ahead.done.recv() {
            Ok(end) => end.map_or(Finer::None, Finer::Ended),
            Err(_) => finer_here(&sim, (fold, limit), proved),
        },
        None => finer_here(&sim, (fold, limit), proved),
    };
    match finer {
        Finer::None => {
            sim.chunk_fit = Some(fit);
            Err(sim)
        }
        finer => Ok(Box::new(Fit { sim, finer, fit, key })),
    }
}

/// `sim`'s finer run to be run here: its channels that stand for all to be built a channel per
/// poll where they fold, else `nvls_tree_run`'s (every transfer), set up at once.
fn finer_here(sim: &Simulation, (fold, limit): (bool, u64), proved: Option<Box<Proved>>) -> Finer {
    let (scenario, topology, protocol) = (&sim.scenario, &sim.topology, sim.schedule.protocol);
    if transfers_at(scenario, scenario.channels(), FINE_CHUNKS).1 > limit {
        return Finer::None;
    }
    let build = fold
        .then(|| {
            FirstChannelsBuild::start_lane_zero(scenario, topology, (FINE_CHUNKS, limit), proved.map(|p| *p))
        })
        .flatten();
    match build {
        Some(build) => Finer::Building { build: Box::new(build), done: false, protocol },
        None => whole_here(sim, limit),
    }
}

/// `sim`'s finer run of every transfer (`nvls_tree_run` unfolded), set up.
fn whole_here(sim: &Simulation, limit: u64) -> Finer {
    let (scenario, protocol) = (&sim.scenario, sim.schedule.protocol);
    match nvls_tree_run(scenario, &sim.topology, protocol, FINE_CHUNKS, (false, limit), None) {
        Some((schedule, run)) => Finer::Running(schedule, Box::new(run)),
        None => Finer::None,
    }
}

/// NVLSTree's finer run as a task for another thread: what `Ahead` runs natively, and what the
/// page gives a Web Worker (`Job::finer_task`), its end handed back (`Job::finer_done`). The
/// same run, so the same end: the fit is the same wherever it ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FinerTask {
    pub scenario: crate::scenario::Scenario,
    pub protocol: Protocol,
    pub channels: u32,
    /// Part 0 of the channels that stand for all where they fold (`Mode::Exact` runs every transfer).
    pub fold: bool,
    /// Most transfers the run may have.
    pub limit: u64,
}

impl FinerTask {
    /// Runs it to its end: the end [ns], `None` where it is beyond `limit`, or why the
    /// scenario is not one.
    pub fn run(&self) -> Result<Option<u64>, String> {
        let valid = self
            .scenario
            .validate()
            .map_err(|errors| errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))?;
        if valid.channels() != self.channels {
            return Err(format!(
                "channels: the task says {}, the scenario {}",
                self.channels,
                valid.channels()
            ));
        }
        let topology = valid.topology();
        let fold = (self.fold, self.limit);
        Ok(nvls_tree_end(&valid, &topology, self.protocol, FINE_CHUNKS, fold, None).map(|(end, _)| end.0))
    }

    fn key(&self) -> (Protocol, u32, bool, u64) {
        (self.protocol, self.channels, self.fold, self.limit)
    }
}

/// The finer run started ahead, natively, on a thread of its own beside the model's run
/// (`Job::run`): the run `start` would make, run to its end, for the protocol, channels, fold
/// and limit it was started with. The page polls its jobs and never starts one.
pub(super) struct Ahead {
    key: (Protocol, u32, bool, u64),
    /// The run's end, or `None` where it is beyond the limit.
    done: std::sync::mpsc::Receiver<Option<SimTime>>,
}

impl Ahead {
    /// The finer run `task` describes, run elsewhere to `end` (`Job::finer_done`).
    pub(super) fn given(task: &FinerTask, end: Option<u64>) -> Ahead {
        let (send, done) = std::sync::mpsc::channel();
        let _ = send.send(end.map(SimTime));
        Ahead { key: task.key(), done }
    }

    /// The task of the finer run `spawn` would start (the same checks), for another thread.
    pub(super) fn task(
        scenario: &ValidScenario,
        (protocol, channels): (Protocol, u32),
        (mode, limit): (Mode, u64),
    ) -> Option<FinerTask> {
        wanted(scenario, Algorithm::NvlsTree, channels)?;
        if transfers_at(scenario, channels, FINE_CHUNKS).1 > limit {
            return None;
        }
        let scenario = scenario.scenario().clone();
        Some(FinerTask { scenario, protocol, channels, fold: mode != Mode::Exact, limit })
    }

    /// The finer run of the model's NVLSTree run about to be, at `protocol` over `channels`, where
    /// its fit will need one (`wanted`): on a thread of its own, on `topology` (the run's), from
    /// the channel symmetry `proved` on the one-chunk schedule where the model's run has it.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn spawn(
        scenario: &ValidScenario,
        topology: &Topology,
        (protocol, channels): (Protocol, u32),
        (mode, limit): (Mode, u64),
        proved: Option<Proved>,
    ) -> Option<Ahead> {
        // Not wanted, or not even part 0 of channels 0 and 1 fits: nothing to start.
        let key = Ahead::task(scenario, (protocol, channels), (mode, limit))?.key();
        let fold = key.2;
        let (scenario, topology) = (scenario.clone(), topology.clone());
        let (send, done) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("nvlstree-finer-run".into())
            .spawn(move || {
                // Its end alone goes back, and the run is freed here, beside the job's work. A run
                // that breaks the engine's invariants (debug builds, `nvls_tree_end`) panics here,
                // sends nothing, and the job runs it again itself (and panics). The job may be
                // gone (dropped, cancelled): then nobody hears.
                let end = nvls_tree_end(&scenario, &topology, protocol, FINE_CHUNKS, (fold, limit), proved)
                    .map(|(end, _)| end);
                let _ = send.send(end);
            })
            .ok()?;
        Some(Ahead { key, done })
    }
}

impl Fit {
    /// The finer run's end from elsewhere (`Job::finer_done`): where it is this run, it
    /// replaces the run here, which is dropped.
    pub fn take_given(&mut self, task: &FinerTask, end: Option<u64>) {
        if task.key() == self.key && !matches!(self.finer, Finer::Ended(_)) {
            self.finer = end.map_or(Finer::None, |end| Finer::Ended(SimTime(end)));
        }
    }

    /// Runs up to `batches` event batches of the finer run; true once it is over.
    pub fn advance(&mut self, batches: u64) -> bool {
        match &mut self.finer {
            // A channel per poll, then the symmetry carried to them, then the run set up: each
            // a poll of its own (together 48 ms natively at 1,024 GPUs).
            Finer::Building { build, done, .. } if !*done => {
                *done = build.advance();
                false
            }
            Finer::Building { .. } => {
                let Finer::Building { build, protocol, .. } = std::mem::replace(&mut self.finer, Finer::None)
                else {
                    return false;
                };
                self.finer = match build.finish_lanes(&self.sim.topology) {
                    Some((lanes, fold)) => Finer::Carried {
                        fold: Box::new(fold),
                        lanes: settled(lanes, &self.sim.scenario, protocol),
                    },
                    None => whole_here(&self.sim, self.key.3),
                };
                false
            }
            Finer::Carried { .. } => {
                let Finer::Carried { fold, lanes } = std::mem::replace(&mut self.finer, Finer::None) else {
                    return false;
                };
                let (scenario, topology) = (&self.sim.scenario, &self.sim.topology);
                let run = engine::Run::new_folded(topology, &lanes, scenario.policy(), *fold).untraced();
                self.finer = Finer::Running(lanes, Box::new(run));
                false
            }
            Finer::Running(schedule, run) => run.advance(&self.sim.topology, schedule, batches),
            Finer::Ended(_) | Finer::None => true,
        }
    }

    /// The share of the finer run's flows finished, in [0, 1].
    pub fn progress(&self) -> f64 {
        match &self.finer {
            Finer::Building { .. } | Finer::Carried { .. } => 0.0,
            Finer::Running(_, run) => {
                let (done, all) = run.progress();
                done as f64 / all.max(1) as f64
            }
            Finer::Ended(_) | Finer::None => 1.0,
        }
    }

    /// The simulation with its time fitted to NCCL's chunks.
    pub fn finish(self) -> Simulation {
        let Fit { sim, finer, mut fit, .. } = self;
        let mut sim = *sim;
        let end = match finer {
            Finer::Running(_, run) => Some(run_end(*run, &sim.topology)),
            Finer::Ended(end) => Some(end),
            Finer::Building { .. } | Finer::Carried { .. } | Finer::None => None,
        };
        fit.fine_ns = end.map(|end| end.0);
        if let Some(ns) = fit.fitted_ns() {
            super::summary::refit(&mut sim, SimTime(ns), Method::ChunkFit);
        }
        sim.chunk_fit = Some(fit);
        sim
    }
}

/// NVLSTree AllReduce of `scenario` at most `cap` chunks per part, set up to run at `protocol`:
/// part 0 of the channels that stand for all on the folded links where `fold` and the channels'
/// symmetry is proved (`tree_channels::tree_point`'s run), else every transfer; `None` where the
/// run is beyond `limit` transfers. `proved`: the symmetry on the one-chunk schedule, where the
/// model's run proved it (else proved here, `tree_channels::folded_first_channels`).
pub(super) fn nvls_tree_run(
    scenario: &ValidScenario,
    topology: &Topology,
    protocol: Protocol,
    cap: u64,
    (fold, limit): (bool, u64),
    proved: Option<Proved>,
) -> Option<(Schedule, engine::Run)> {
    let s = scenario.scenario();
    let (g, channels, policy) =
        (scenario.preset().rings[0].len() as u32, scenario.channels(), scenario.policy());
    let (whole, least) = transfers_at(scenario, channels, cap);
    // Not even part 0 of channels 0 and 1 fits: nothing to prove or build.
    if least > limit {
        return None;
    }
    let folded = fold
        .then(|| {
            let mut build = FirstChannelsBuild::start_lane_zero(scenario, topology, (cap, limit), proved)?;
            while !build.advance() {}
            build.finish_lanes(topology)
        })
        .flatten();
    if let Some((lanes, fold)) = folded {
        let lanes = settled(lanes, scenario, protocol);
        let run = engine::Run::new_folded(topology, &lanes, policy, fold).untraced();
        return Some((lanes, run));
    }
    if whole > limit {
        return None;
    }
    let built = NvlsTreeBuilder::new(s.nodes, g, s.count(), channels).with_cap(cap).finish();
    let schedule = settled(built, scenario, protocol);
    let run = engine::Run::new(topology, &schedule, policy, None).untraced();
    Some((schedule, run))
}

/// `schedule` set to run at `protocol` with `scenario`'s latencies.
fn settled(mut schedule: Schedule, scenario: &ValidScenario, protocol: Protocol) -> Schedule {
    schedule.protocol = protocol;
    run_settings(&mut schedule, scenario);
    schedule
}

/// Whether NVLSTree's finer run may follow a run of `algorithm` within `limit` transfers: its
/// fit is wanted (NVLSTree AllReduce that NCCL cuts finer) and its least run fits (`transfers_at`).
pub(super) fn finer_may_run(scenario: &ValidScenario, algorithm: Algorithm, limit: u64) -> bool {
    let channels = scenario.channels();
    wanted(scenario, algorithm, channels).is_some()
        && transfers_at(scenario, channels, FINE_CHUNKS).1 <= limit
}

/// NVLSTree's transfers over `channels` at most `cap` chunks per part: the whole's, and the
/// fewest a run can take (part 0 of channels 0 and 1, where they fold), beyond which
/// `nvls_tree_run` declines it. Where tree 1 is tree 0's mirror, lane 0 alone runs, half of
/// that (`FirstChannelsBuild::start_lane_zero`), but the limit stays on both lanes: the run's
/// time grows faster than its flows (every event shares rates over the flows it touches), and
/// at 2,048 DGX H100 nodes lane 0 alone at `FINE_CHUNKS` (1.24 M transfers) took 20 s natively,
/// four times the issue's 5 s for 16,384 GPUs.
fn transfers_at(scenario: &ValidScenario, channels: u32, cap: u64) -> (u64, u64) {
    let (s, g) = (scenario.scenario(), scenario.preset().rings[0].len() as u32);
    let whole = nvls_tree::transfer_count_at(s.nodes, g, s.count(), channels, cap);
    (whole, crate::plan::tree_least_run(whole, channels, g))
}

/// NVLSTree's time [ns] at most `cap` chunks per part (`u64::MAX`: every chunk NCCL's), by the
/// run `nvls_tree_run` sets up with no limit: what `tests/chunk_fit.rs` holds the fit to.
pub fn nvls_tree_time(scenario: &ValidScenario, protocol: Protocol, cap: u64, fold: bool) -> Option<SimTime> {
    nvls_tree_ran(scenario, protocol, cap, fold).map(|(end, _)| end)
}

/// `nvls_tree_time`, and how many transfers ran: where they fold, part 0 of channels 0 and 1,
/// or of channel 0 alone where tree 1 is its mirror (`tests/mirror.rs`).
pub fn nvls_tree_ran(
    scenario: &ValidScenario,
    protocol: Protocol,
    cap: u64,
    fold: bool,
) -> Option<(SimTime, usize)> {
    nvls_tree_end(scenario, &scenario.topology(), protocol, cap, (fold, u64::MAX), None)
}

/// `nvls_tree_run`'s run, run to its end: its end and how many transfers ran, `None` where it
/// is beyond `limit`.
fn nvls_tree_end(
    scenario: &ValidScenario,
    topology: &Topology,
    protocol: Protocol,
    cap: u64,
    limits: (bool, u64),
    proved: Option<Proved>,
) -> Option<(SimTime, usize)> {
    let (schedule, mut run) = nvls_tree_run(scenario, topology, protocol, cap, limits, proved)?;
    while !run.advance(topology, &schedule, u64::MAX) {}
    Some((run_end(run, topology), schedule.transfers.len()))
}

/// A run's end, once it is over. Debug builds make its trace first, which checks the engine's
/// invariants (a run that breaks them panics); release builds read the end alone.
fn run_end(run: engine::Run, topology: &Topology) -> SimTime {
    if cfg!(debug_assertions) {
        return run.finish(topology).0.end;
    }
    run.end()
}
