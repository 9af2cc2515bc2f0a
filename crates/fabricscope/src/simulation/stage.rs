//! The stages of a simulation `Job` and what they carry: the planning a result is finished
//! with (`Plan`), a steady state's figures (`SteadyPlan`), what an engine run is for (`Then`).

use super::big::Weighing;
use super::fluid::{ChannelFold, Measure};
use super::rotate::{Unfold, Unfolding};
use super::tree_channels::TreeChannels;
use super::weigh::Weigh;
use super::Simulation;
use crate::collective::{Algorithm, Schedule};
use crate::engine;
use crate::engine::symmetry::Symmetry;
use crate::plan::{TunerRow, Tuning};
use crate::scenario::ScenarioError;
use crate::topology::{LinkKind, Topology};
use crate::trace::Trace;

/// The planning a run's result is finished with.
pub(super) struct Plan {
    pub tuning: Tuning,
    pub bounds: Vec<(Algorithm, f64)>,
    pub intra: LinkKind,
    /// Channel 0 ran for all (`engine::symmetry`).
    pub folded: bool,
    /// The prefix was extended by a measured per-step time (`fluid`).
    pub extrapolated: bool,
    /// Of channel 0, this many nodes' positions ran for all (`engine::rotation`).
    pub rotated: Option<u32>,
    /// Where the channels fold: how many ran for all (`Symmetry::stride`).
    pub stride: u32,
    /// Where each channel's parts fold too: how many part 0 ran for (`Symmetry::parts`), else 1.
    pub parts: u32,
    /// Where the channels fold as copies on the same links (`Symmetry::copies_on_same_links`).
    pub copies: bool,
    /// A tree run from its channels that stand for all: its one-chunk schedule and the channel
    /// symmetry proved on it, kept where NVLSTree's finer run will start from them
    /// (`chunk_fit`), which then proves nothing again.
    pub proved: Option<Box<super::tree_channels::Proved>>,
    /// A ring whose steps differ by an element per chunk, run as the ring of this many
    /// elements, whose steps are alike (`collective::ring_rounded_count`; `Job::round`).
    pub rounded: Option<u64>,
    /// NVLSTree run in fewer chunks per part than the model's `MAX_CHUNKS`, beyond the caller's
    /// limit at those (`big::tree_cap`): the fit to NCCL's chunks it cannot make
    /// (`chunk_fit::capped`), the result's `chunk_fit`.
    pub capped: Option<super::chunk_fit::ChunkFit>,
}

impl Plan {
    /// The tuner's table from each algorithm's `bounds`, and its pick among what NCCL_ALGO and
    /// NCCL_PROTO leave (the table's choice where they leave none): a plan not yet folded.
    pub fn tuned(scenario: &crate::plan::ValidScenario, bounds: Vec<(Algorithm, f64)>) -> (Plan, TunerRow) {
        let s = scenario.scenario();
        let intra = super::job::intra_link(scenario);
        let (n, size) = (scenario.n_ranks(), s.size_bytes);
        let tuning = crate::plan::tune(s.collective, n, s.nodes, size, &bounds, intra, s.latency);
        let pick = crate::plan::pick(&tuning, s.algorithm, s.protocol).copied().unwrap_or(*tuning.choice());
        (
            Plan {
                tuning,
                bounds,
                intra,
                folded: false,
                extrapolated: false,
                rotated: None,
                stride: 1,
                parts: 1,
                copies: false,
                proved: None,
                rounded: None,
                capped: None,
            },
            pick,
        )
    }
}

/// A steady-state attempt's figures (`Steady`).
#[derive(Clone, Copy)]
pub(super) struct SteadyPlan {
    pub total_steps: u32,
    pub total_transfers: u64,
    pub unit: u64,
    pub protocol: crate::collective::Protocol,
}

/// What a finished engine run is for.
#[derive(Clone, Copy)]
pub(super) enum Then {
    /// The whole collective: finish it.
    Finish,
    /// The steady-state search (a prefix of `STEADY_SEARCH_STEPS` steps).
    Search(SteadyPlan),
    /// The prefix fitted to the period the search found.
    Fitted(SteadyPlan),
    /// A short prefix of a ring too big for the search's, to show; its per-step time is
    /// measured next (`fluid`).
    Shown(SteadyPlan),
}

// One stage per job and a job or two at a time: their sizes do not add up to anything.
#[allow(clippy::large_enum_variant)]
pub(super) enum Stage {
    /// The exact plan, an algorithm at a time: those left, each built one's schedule and bound,
    /// and the one being weighed (`weigh::Weigh`).
    Planning {
        topology: Topology,
        todo: Vec<Algorithm>,
        built: Vec<Schedule>,
        bounds: Vec<(Algorithm, f64)>,
        pending: Option<Box<Weigh>>,
    },
    Running {
        topology: Topology,
        schedule: Schedule,
        run: engine::Run,
        plan: Plan,
        then: Then,
        /// A run of fewer transfers standing for all: how to expand its trace.
        unfold: Option<Box<Unfold>>,
    },
    /// A run of fewer transfers done, its trace being expanded to the whole schedule's a piece
    /// per poll (`rotate::Unfolding`); then what `then` says.
    Expanding {
        topology: Topology,
        unfolding: Box<Unfolding>,
        period: Option<engine::period::Period>,
        plan: Plan,
        then: Then,
        /// The channels' fold and channel 0's paths of one step, for a measuring run.
        fold: Option<ChannelFold>,
    },
    /// An AllToAll too big to build whole, channel 0's proof that it stands for all routed a
    /// piece per poll, then planned and run (`alltoall`).
    Copies {
        topology: Topology,
        copies: Box<super::alltoall::Copies>,
    },
    /// An AllToAll too big even from channel 0, its pairs routed a piece per poll for the
    /// bounds of max-min sharing (`bounded`): a sweep's row.
    Bounding {
        topology: Topology,
        bounding: Box<super::bounded::Bounding>,
    },
    /// A Broadcast's or Reduce's chain too big to run whole: its hops routed a piece per poll,
    /// then run on fewer nodes and extrapolated (`chain`).
    Chain {
        topology: Topology,
        chain: Box<super::chain::Chain>,
    },
    /// Not yet planned (`Job::new`).
    Start,
    /// A big plan being weighed, a piece per poll (`big::weigh`).
    Weighing {
        topology: Topology,
        weighing: Box<Weighing>,
    },
    /// The big plan's pick, a tree that fits, built a channel per poll, then run whole
    /// (`exact::whole_stage`).
    BuildingTree {
        topology: Topology,
        builder: Box<crate::collective::FirstChannels>,
        plan: Plan,
        protocol: crate::collective::Protocol,
    },
    /// A tree too big to build whole, its channels that run for all built a channel per poll
    /// (`tree_channels`; a sweep's point only).
    TreeChannels {
        topology: Topology,
        tree: Box<TreeChannels>,
    },
    /// A big ring planned (the tuner's table), its search's prefix built on the next poll.
    Search {
        topology: Topology,
        plan: Plan,
        steady: SteadyPlan,
        /// The search prefix's transfers built so far, a few steps per poll (`big::build_search`).
        built: Vec<crate::collective::Transfer>,
    },
    /// A ring whose search found no period: its shown prefix, the measuring run set up on the
    /// next poll (each poll a bounded piece of work).
    ToMeasure {
        topology: Topology,
        shown: Box<(Schedule, Trace)>,
        fold: Option<ChannelFold>,
        plan: Plan,
        steady: SteadyPlan,
    },
    /// A ring with no proved period: its shown prefix (the search's), while a longer prefix
    /// measures its per-step time (`fluid`).
    Measuring {
        topology: Topology,
        shown: Box<(Schedule, Trace)>,
        plan: Plan,
        steady: SteadyPlan,
        measure: Measure,
    },
    /// A ring measured: its per-step time [ns] and how many nodes' positions the measure ran on
    /// (the measuring run's trace freed in the poll that measured it), extrapolated on the next.
    Measured {
        topology: Topology,
        shown: Box<(Schedule, Trace)>,
        plan: Plan,
        steady: SteadyPlan,
        measured: (f64, Option<u32>),
    },
    /// A tree's run from its first channels, over, to be shown as it ran in the next poll
    /// (`tree_channels::shown`; with the run's end, one poll of 60-70 ms in the page).
    Showing {
        topology: Topology,
        run: Box<(Schedule, Trace, Symmetry)>,
        plan: Plan,
    },
    /// The result, its trace's hash worked out a slice of flows at a time (`Job::hashed`).
    Hashing {
        sim: Box<Simulation>,
        hasher: super::export::SimHasher,
    },
    Done(Option<Result<Simulation, ScenarioError>>),
}
