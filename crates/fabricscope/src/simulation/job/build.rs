//! How a job is made: for what caller (a simulation to show, the page's, a sweep's point or
//! row), under what budget, and what it works out before its result (its trace's hash).

use super::{Job, Stage};
use crate::plan::ValidScenario;
use crate::simulation::Mode;

impl Job {
    /// A simulation of `scenario`, not yet planned: the first `poll` plans it (topology, the
    /// tuner's table, the schedule), so a caller that must stay responsive never plans in one
    /// go outside its slices.
    pub fn new(scenario: &ValidScenario, mode: Mode) -> Job {
        Job::within(scenario, mode, crate::plan::ENGINE_BUDGET)
    }

    /// The job that runs `scenario` as `budget` admits it (`ValidScenario::admit`): whole, as a
    /// steady state, or an AllToAll from channel 0; else the collective's transfer count, refused.
    pub fn admitted(scenario: &ValidScenario, budget: crate::plan::Budget) -> Result<Job, u64> {
        match scenario.admit(budget) {
            crate::plan::Admission::Whole => Ok(Job::within(scenario, Mode::Auto, budget)),
            crate::plan::Admission::Steady => Ok(Job::within(scenario, Mode::Steady, budget)),
            // Channel 0 of an AllToAll for all (`alltoall::beyond`): shown from it, or a point;
            // an AllToAll bounded by max-min sharing: shown as its bounds and link bytes
            // (`Job::showing_images`), or a point.
            // A chain run on fewer nodes and extrapolated: shown as its figures and link bytes.
            crate::plan::Admission::Copies { .. }
            | crate::plan::Admission::Bounded { .. }
            | crate::plan::Admission::Chain { .. } => Ok(Job::within(scenario, Mode::Auto, budget)),
            // A run from the channels that stand for all is a sweep's point, never one to show.
            crate::plan::Admission::Channels { transfers }
            | crate::plan::Admission::Refused { transfers } => Err(transfers),
        }
    }

    /// `admitted` for a sweep's point (`point`): a forced tree whose channels that stand for all
    /// fit `budget` (`Admission::Channels`) runs from those alone too, as a point needs no
    /// trace; else the collective's transfer count, refused.
    pub fn admitted_point(
        scenario: &ValidScenario,
        budget: crate::plan::Budget,
    ) -> Result<crate::simulation::sweep::PointJob, u64> {
        match scenario.admit(budget) {
            crate::plan::Admission::Channels { .. } | crate::plan::Admission::Bounded { .. } => {
                Ok(Job::within(scenario, Mode::Auto, budget).point())
            }
            _ => Job::admitted(scenario, budget).map(Job::point),
        }
    }

    /// `new` for a caller with a smaller budget (the page's): a tree the big plan picks beyond
    /// `budget.transfers` gives way to the best ring row, which says so; a forced tree beyond it
    /// runs from its channels that stand for all as a sweep's point, and is refused by name
    /// otherwise (`tree_channels::forced_beyond`), never swapped for the ring.
    pub fn within(scenario: &ValidScenario, mode: Mode, budget: crate::plan::Budget) -> Job {
        Job {
            scenario: scenario.clone(),
            mode,
            tree_limit: budget.transfers,
            measured: budget.measured,
            copies: (budget.copies.min(budget.transfers), budget.bounded),
            lean: false,
            hashed: false,
            point: false,
            images: false,
            stage: Stage::Start,
            fit: None,
            ahead: None,
            offered: false,
            proved: None,
            asked: None,
        }
    }

    /// The same job working its result's trace hash out (`Simulation::hash_hex`) in polls of
    /// `HASH_FLOWS_PER_POLL` flows before it gives the result: a page that shows the hash then
    /// never hashes a large trace (262,144 flows at 1,024 GPUs: 46 ms natively) in one go.
    pub fn hashed(self) -> Job {
        Job { hashed: true, ..self }
    }

    /// The same job showing a tree the tuner picks, too big to build whole but whose channels
    /// that stand for all fit the budget, as those channels ran (`Simulation::images`: the
    /// whole's figures, link rates and hash, the trace of the lanes that ran), rather than the
    /// best ring row: the page's.
    pub fn showing_images(self) -> Job {
        Job { images: true, ..self }
    }

    /// The same job weighing only the algorithm NCCL_ALGO forces, where one is forced, for the
    /// tuner's table: what a sweep's point needs (its time and bus bandwidth, the tuner's time
    /// of what ran), without building and routing every other algorithm's schedule for its
    /// bound. The run and those figures are the same (`tests/sweep.rs`); the table holds the
    /// forced algorithm's rows only, and the trace is not hashed ahead (`hashed` is off).
    pub fn lean(self) -> Job {
        Job { lean: true, hashed: false, ..self }
    }

    /// The `lean` job as a sweep's point: its figures only (`PointJob`), the same as the lean
    /// job's simulation gives (`tests/sweep.rs`), without expanding a run of fewer transfers
    /// standing for all (channel 0 by symmetry, a few nodes by rotation) to the whole trace.
    pub fn point(self) -> crate::simulation::sweep::PointJob {
        crate::simulation::sweep::PointJob::of(Job { lean: true, hashed: false, point: true, ..self })
    }

    /// `point`, with the whole trace's hash (`Simulation::hash_hex`), streamed where only the
    /// channels fold (`Symmetry::expanded_hash`), else from the expanded trace: a sweep's row.
    pub fn point_hashed(self) -> crate::simulation::sweep::PointJob {
        crate::simulation::sweep::PointJob::hashed(Job { lean: true, hashed: true, point: true, ..self })
    }
}

/// What the scenario says about the schedule's latencies: the latency model, and whether each
/// node has one GPU (NCCL then charges every network step the Tree's latency: "with ppn=1
/// latencies are fully exposed", `tuning.cc`).
pub(in crate::simulation) fn run_settings(
    schedule: &mut crate::collective::Schedule,
    scenario: &ValidScenario,
) {
    schedule.latency = scenario.scenario().latency;
    schedule.exposed_network = scenario.preset().gpus_per_node == 1;
}

/// The class of a node's GPU-to-GPU links (PCIe, else NVLink): the tuner's intra-node term.
pub(in crate::simulation) fn intra_link(scenario: &ValidScenario) -> crate::topology::LinkKind {
    match scenario.preset().gpu_fabric {
        crate::catalog::NodeFabric::Pcie => crate::topology::LinkKind::Pcie,
        _ => crate::topology::LinkKind::NvLink,
    }
}
