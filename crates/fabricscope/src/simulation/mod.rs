//! The front door's engine room: simulate a scenario (`simulate`, or a `Job` a slice at a
//! time), and what a simulation answers: its summary, its steps in words, the α-β prediction,
//! sweeps over sizes and exports.
//!
//! ```text
//!   ValidScenario ──▶ Job (job/): tuner's table → schedule → engine::Run (or a steady prefix)
//!                                         │
//!                                         ▼
//!                    Simulation (here): topology, schedule, trace, summary (summary.rs)
//!                                         │
//!            steps.rs (what step k does) · alpha_beta.rs · sweep.rs · export.rs (CSV, hash)
//!            waits.rs (the step each faulted link holds up)
//! ```

mod alltoall;
mod alpha_beta;
mod big;
mod bounded;
mod chain;
mod chunk_fit;
mod exact;
mod export;
mod fluid;
mod job;
mod rotate;
mod stage;
mod steady;
mod steps;
mod summary;
mod sweep;
mod tree_channels;
mod turned;
mod waits;
mod weigh;

pub use alpha_beta::AlphaBeta;
pub use bounded::Bounds;
pub use chain::{ChainRun, CHAIN_BOUND};
pub use chunk_fit::{nvls_tree_ran, nvls_tree_time, ChunkFit, FinerTask, CHUNK_FIT_BOUND, FINE_CHUNKS};
pub use fluid::{EXTRAPOLATION_BOUND, MEASURED_STEPS};
pub use job::Job;
pub use steady::Steady;
pub use steps::StepInfo;
pub use summary::{Method, Summary};
pub use sweep::{sweep, sweep_point, sweep_size, sweep_sizes, sweep_unhashed, PointJob, SweepPoint};
pub use waits::{FaultWait, StepWait};

use crate::collective::{Algorithm, Schedule};
use crate::plan::{Tuning, ValidScenario};
use crate::scenario::ScenarioError;
use crate::topology::{LinkKind, Topology};
use crate::trace::Trace;
use crate::units::SimTime;
use steps::StepIndex;

/// Everything one scenario produces.
#[derive(Clone, Debug)]
pub struct Simulation {
    pub scenario: ValidScenario,
    pub topology: Topology,
    pub schedule: Schedule,
    pub trace: Trace,
    pub summary: Summary,
    /// The tuner's predictions and choice for this collective and size.
    pub tuning: Tuning,
    /// Each algorithm's bandwidth-bound time at this size [ns], and the intra-node link class:
    /// what `tuning_at` scales to other sizes.
    pub tuning_bounds: Vec<(Algorithm, f64)>,
    pub tuning_intra: LinkKind,
    /// The rank whose channel-0 transfers the step text follows (`focus_rank`).
    pub focus_rank: u32,
    /// When the followed transfer of each step was issued, indexed by step. Channels and ranks
    /// drift apart once links differ, so "the current step" is the followed rank's.
    pub step_starts: Vec<SimTime>,
    /// Per step: its transfer count, the followed transfer (channel 0) and the example the step
    /// text describes, found once so a frame never scans the schedule.
    step_index: Vec<StepIndex>,
    /// Set when the collective ran as a steady state: `schedule` and `trace` then hold only its
    /// first steps, and the rest is those steps' proved repetition (`Steady`).
    pub steady: Option<Steady>,
    /// Set where NVLSTree ran at fewer chunks than NCCL cuts (`chunk_fit`): both runs and the
    /// fit the summary's time comes from (`Method::ChunkFit`), or why there is none.
    pub chunk_fit: Option<ChunkFit>,
    /// Of channel 0, this many nodes' positions ran through the engine for every node's, where
    /// turning the ring by them keeps its routes (`engine::rotation`; exact, the trace expanded).
    pub rotated: Option<u32>,
    /// Where the channels fold (`Method::Symmetric`): how many channels ran for all, 1 (channel
    /// 0) or 2 (channels 0 and 1, where they alternate two shapes as NCCL's trees do).
    pub stride: u32,
    /// Where each channel's parts fold too (NVLSTree's, one per local GPU: `Lanes::Parts`): how
    /// many parts part 0 ran for; 1 otherwise.
    pub parts: u32,
    /// Where the channels fold (`Method::Symmetric`) as copies of channel 0 on the same links
    /// (an AllToAll's or a SendRecv's on their GPUs' own NICs), not images on links of their own.
    pub copies: bool,
    /// Where the run shown is the lanes that stand for all, never expanded (a tree too big to
    /// build whole, shown from its first channels: `Job::showing_images`): the proof whose
    /// images are the rest. `schedule` and `trace` then hold those lanes' transfers, on their
    /// own links; `sample` spreads their rates over σ's images (`Symmetry::whole_rates`).
    pub images: Option<Box<crate::engine::symmetry::Symmetry>>,
    /// Where a ring's steps differ by an element per chunk (a size not a multiple of ranks ×
    /// channels elements) and it is too big to run every transfer: the elements of the ring
    /// that ran, the size rounded down to that multiple, whose steps are alike. The summary's
    /// time and link bytes are that ring's, its bandwidths the asked size's over that time:
    /// within `ROUNDING_BOUND` of the asked ring's (`collective::ring_rounded_count`).
    pub rounded: Option<u64>,
    /// Where no engine ran (`Method::Bounded`, an AllToAll too big even from channel 0): the
    /// bounds max-min sharing proves on the time; `schedule` and `trace` then hold no transfer.
    pub bounded: Option<Bounds>,
    /// Where a Broadcast's or Reduce's chain ran on fewer nodes and was extrapolated to the rest
    /// (`Method::Chain`): that run's figures; `schedule` and `trace` then hold no transfer.
    pub chain: Option<ChainRun>,
    /// Bytes each link carried over the whole collective.
    pub link_bytes: Vec<f64>,
    /// The trace's hash, once worked out (`hash_hex`; a hashed `Job` works it out in slices).
    trace_hash: std::sync::OnceLock<u64>,
}

/// Builds, schedules and runs a scenario. Fails only when a collective too big to simulate
/// transfer by transfer reaches no steady state within the engine's limit (`Steady`).
pub fn simulate(scenario: &ValidScenario) -> Result<Simulation, ScenarioError> {
    simulate_as(scenario, Mode::Auto)
}

/// How `simulate_as` runs a collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// As a steady state where `runs_big` says so, else every transfer (channel 0 for all
    /// where their symmetry is proved, `engine::symmetry`).
    Auto,
    /// Every transfer.
    Exact,
    /// As a steady state wherever the collective is a ring with more steps than the first
    /// prefix (tests compare it with `Exact`).
    Steady,
    /// Every transfer, with one channel standing for all where the engine proves the channels
    /// images of one another (`engine::symmetry`; tests compare it with `Exact`); `Auto` does the
    /// same wherever it does not run a steady state.
    Symmetric,
    /// As an extrapolated steady state wherever the collective is a ring with enough steps to
    /// measure, period or not (`fluid`; `tests/fidelity.rs` compares it with `Exact`).
    Fluid,
}

/// `simulate`, choosing how.
pub fn simulate_as(scenario: &ValidScenario, mode: Mode) -> Result<Simulation, ScenarioError> {
    Job::new(scenario, mode).run()
}

/// A ring run at fewer elements than asked (`Simulation::rounding`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rounding {
    /// Elements of the ring that ran.
    pub rounded: u64,
    /// Elements asked for.
    pub asked: u64,
    /// Ranks × channels: `rounded` is a multiple of it, `asked` is not.
    pub unit: u64,
}

/// How far the asked ring's time may be from its rounded ring's (`Simulation::rounded`), as a
/// share: `tests/rounded.rs` finds -0.03% to +4.0% over 252 rings of collectives, protocols,
/// presets and chunks of 64 to 100,003 elements where both run whole (-0.9% to +2.5% while a
/// step's latency added the links' to NCCL's figure, which counts them: the drift of channels
/// that share a link moves with the latencies).
pub const ROUNDING_BOUND: f64 = 0.05;

impl Simulation {
    /// When the whole collective ends.
    pub fn end(&self) -> SimTime {
        match &self.steady {
            Some(steady) => SimTime(self.trace.end.0 + steady.shift_ns()),
            None => self.trace.end,
        }
    }

    /// When the run shown ends, the end of its animation: the summary's time, except where that
    /// is fitted to NCCL's chunks (`Method::ChunkFit`): the run at the model's chunks then ends
    /// later (`end`).
    pub fn shown_end(&self) -> SimTime {
        match self.chunk_fit {
            Some(_) => self.end().max(self.summary.time),
            None => self.summary.time,
        }
    }

    /// Steps of the whole collective.
    pub fn n_steps(&self) -> u32 {
        self.steady.map_or(self.schedule.n_steps, |s| s.total_steps)
    }

    /// Transfers of the whole collective.
    pub fn n_transfers(&self) -> u64 {
        if let Some(chain) = &self.chain {
            return chain.transfers;
        }
        if self.bounded.is_some() {
            // None ran: the whole's count, as validation counts it.
            return self.scenario.transfers();
        }
        match (&self.steady, &self.images) {
            (Some(steady), _) => steady.total_transfers,
            (None, Some(images)) => images.total(),
            (None, None) => self.schedule.transfers.len() as u64,
        }
    }

    /// Event batches of the whole collective (counted, for a steady state, as the prefix's
    /// plus each repeat's).
    pub fn batches(&self) -> u64 {
        self.steady.map_or(self.trace.batches, |s| s.batches)
    }

    /// The cluster at time `t` of the whole collective: for a steady state, the prefix's frame
    /// that looks the same (`Steady::fold`); for a run by symmetry shown as its lanes that ran
    /// (`images`), their chunks in flight and every link's rate in the whole; for a run with no
    /// trace (`traceless`: bounded, or a chain extrapolated), no chunk in flight and every link's
    /// mean rate over the run (its exact bytes over the run's time) until it ends, which is what
    /// its caller must then say it draws.
    pub fn sample(&self, t: SimTime) -> crate::trace::Frame {
        if self.traceless() {
            let end = self.trace.end.0.max(1) as f64;
            let link_rate = match t < self.trace.end {
                true => self.link_bytes.iter().map(|&bytes| bytes / end).collect(),
                false => vec![0.0; self.link_bytes.len()],
            };
            return crate::trace::Frame { t, link_rate, in_flight: Vec::new() };
        }
        let (prefix_t, _) = self.fold(t);
        let mut frame = self.trace.sample(prefix_t);
        frame.t = t;
        if let Some(images) = &self.images {
            frame.link_rate = images.whole_rates(&frame.link_rate);
        }
        frame
    }

    /// How many flows move data over `link` in `frame` (`sample`'s): for a run shown by
    /// symmetry (`images`), its images' too: the crossings of `link`'s orbit by the lanes that
    /// ran, × σ's order / the orbit's size.
    pub fn moving_on(&self, frame: &crate::trace::Frame, link: crate::topology::LinkId) -> u64 {
        let orbit = self.images.as_ref().map(|images| (images, images.orbit_of(link)));
        let crosses = |l: crate::topology::LinkId| match orbit {
            Some((images, (rep, _))) => images.orbit_of(l).0 == rep,
            None => l == link,
        };
        let moving = frame.in_flight.iter().filter(|c| c.moving);
        let crossings: u64 = moving
            .map(|c| {
                self.trace.flows[c.transfer as usize].path.iter().filter(|&&l| crosses(l)).count() as u64
            })
            .sum();
        orbit.map_or(crossings, |(images, (_, size))| crossings * images.share() / size.max(1) as u64)
    }

    /// Whether no trace stands behind the figures (`bounded`, `chain`): the page then draws
    /// every link's mean load and no chunk in flight, and there is no trace hash.
    pub fn traceless(&self) -> bool {
        self.bounded.is_some() || self.chain.is_some()
    }

    /// `t` as the prefix's time and the steps the whole collective is ahead then.
    pub fn fold(&self, t: SimTime) -> (SimTime, u32) {
        self.steady.map_or((t, 0), |s| s.fold(t))
    }

    /// Utilisation of every link in a frame, in [0, 1].
    pub fn utilisation(&self, frame: &crate::trace::Frame) -> Vec<f64> {
        self.trace.utilisation(&self.topology, frame)
    }

    /// Mean utilisation of every link over the whole collective, in [0, 1].
    pub fn mean_utilisation(&self) -> Vec<f64> {
        crate::trace::mean_utilisation(&self.topology, self.end(), &self.link_bytes)
    }

    /// The tuner's table at another message size, on the same hardware: a bandwidth bound is
    /// the busiest link's bytes over its capacity, so it scales with the size.
    pub fn tuning_at(&self, size_bytes: u64) -> Tuning {
        let s = self.scenario.scenario();
        let scale = size_bytes as f64 / s.size_bytes.max(1) as f64;
        let bounds: Vec<_> = self.tuning_bounds.iter().map(|&(a, ns)| (a, ns * scale)).collect();
        crate::plan::tune(
            s.collective,
            self.schedule.n_ranks,
            s.nodes,
            size_bytes,
            &bounds,
            self.tuning_intra,
            s.latency,
        )
    }

    /// Where a ring ran at fewer elements (`rounded`): how many, of how many, the multiple they
    /// are of, and the bound on the time.
    pub fn rounding(&self) -> Option<Rounding> {
        let rounded = self.rounded?;
        let (n, channels) = (self.scenario.n_ranks(), self.scenario.channels());
        Some(Rounding { rounded, asked: self.scenario.scenario().count(), unit: n as u64 * channels as u64 })
    }

    /// The algorithm the tuner picked where another ran without being forced: a pick beyond the
    /// engine at this scale (a Tree too big to simulate) gives way to the best ring row, and
    /// says so here.
    pub fn tuner_pick_not_run(&self) -> Option<Algorithm> {
        self.tuner_pick_row_not_run().map(|row| row.algorithm)
    }

    /// NCCL's model's time [ns] for the tuner's pick that did not run here
    /// (`tuner_pick_not_run`): the tuner's own prediction, never a simulated figure.
    pub fn tuner_pick_predicted_ns(&self) -> Option<f64> {
        self.tuner_pick_row_not_run().map(|row| row.predicted_ns)
    }

    /// The tuner's row of its pick, where another algorithm ran without being forced: its
    /// algorithm and protocol, which a sweep's row of that algorithm forced reproduces.
    pub fn tuner_pick_row_not_run(&self) -> Option<&crate::plan::TunerRow> {
        // The pick among what NCCL_PROTO leaves, as the job picked (a forced protocol may rule
        // the overall choice out).
        let s = self.scenario.scenario();
        let pick = crate::plan::pick(&self.tuning, None, s.protocol).unwrap_or(self.tuning.choice());
        (s.algorithm.is_none() && pick.algorithm != self.schedule.algorithm).then_some(pick)
    }

    /// Whether the tuner's pick that did not run here (`tuner_pick_not_run`) may run as a sweep's
    /// row within the engine's own limits, whole or from the channels that stand for all
    /// (`tree_channels::may_fit`): what the page may say of a run it could not show.
    pub fn tuner_pick_may_run_natively(&self) -> bool {
        self.tuner_pick_row_not_run().is_some_and(|pick| {
            let picked = (pick.algorithm, pick.protocol);
            tree_channels::may_fit(&self.scenario, picked, crate::limits::MAX_TRANSFERS)
        })
    }

    /// The step running at time `t`: the last one whose first transfer was issued by `t`.
    pub fn step_at(&self, t: SimTime) -> Option<u32> {
        let started = self.step_starts.partition_point(|&start| start <= t);
        (started > 0).then(|| started as u32 - 1)
    }
}
