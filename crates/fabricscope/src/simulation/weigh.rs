//! One algorithm weighed for the tuner's table a bounded piece per poll, as both plans weigh
//! them (`exact::plan_step`, `big::weigh`): its schedule built in one poll (NVLSTree's a channel
//! per poll, `NvlsTreeBuilder`; Hierarchical's and CollNet's `BUILT_PER_POLL` transfers per poll,
//! `HierarchicalBuilder`), its router set up in the next, then its transfers routed for
//! the bandwidth bound `ROUTED_PER_POLL` at a time (`plan::Bound`).

use crate::collective::hierarchical::HierarchicalBuilder;
use crate::collective::nvls_tree::NvlsTreeBuilder;
use crate::collective::textbook::AllPairsBuilder;
use crate::collective::{Algorithm, Schedule};
use crate::plan::{Bound, ValidScenario};
use crate::routing::{Policy, Router, RouterState};
use crate::scenario::Collective;
use crate::topology::Topology;

/// Transfers of a schedule routed per poll for the tuner's bound (about 10 ms in the page).
const ROUTED_PER_POLL: usize = 32_768;

/// Routes are weighed as static (the tuner's bound sees no load).
pub(super) fn static_policy(scenario: &ValidScenario) -> Policy {
    Policy { routing: crate::catalog::Routing::Static, ..scenario.policy() }
}

/// An algorithm's schedule being built and weighed (`start`, `advance`, `finish`).
pub(super) struct Weigh {
    algorithm: Algorithm,
    state: State,
}

/// A schedule built a piece per poll: NVLSTree's and all-pairs' a channel, Hierarchical's and
/// CollNet's `BUILT_PER_POLL` transfers.
enum Builder {
    NvlsTree(NvlsTreeBuilder),
    Hierarchical(HierarchicalBuilder),
    AllPairs(AllPairsBuilder),
}

/// Transfers of a Hierarchical or CollNet schedule built per poll (about 6 ms natively).
const BUILT_PER_POLL: usize = 32_768;

impl Builder {
    /// One more piece; true once the schedule is built.
    fn advance(&mut self) -> bool {
        match self {
            Builder::NvlsTree(builder) => builder.channel(),
            Builder::Hierarchical(builder) => builder.advance(BUILT_PER_POLL),
            Builder::AllPairs(builder) => builder.channel(),
        }
    }

    fn finish(self) -> Schedule {
        match self {
            Builder::NvlsTree(builder) => builder.finish(),
            Builder::Hierarchical(builder) => builder.finish(),
            Builder::AllPairs(builder) => builder.finish(),
        }
    }
}

enum State {
    Building(Builder),
    Built(Schedule),
    Routing(Schedule, Bound, RouterState),
    Weighed(Schedule, f64),
    /// Between pieces.
    Moving,
}

impl Weigh {
    /// `algorithm`'s schedule of `count` elements, built now (NVLSTree's, Hierarchical's and
    /// CollNet's from the next poll on).
    pub fn start(scenario: &ValidScenario, algorithm: Algorithm, count: u64) -> Weigh {
        let s = scenario.scenario();
        let rings = &scenario.preset().rings;
        let channels = scenario.channels();
        // As `collective::schedule_with` builds them.
        let pairs =
            matches!(s.collective, Collective::AllReduce | Collective::AllGather | Collective::ReduceScatter);
        let state = if algorithm == Algorithm::AllPairs && pairs {
            Some(Builder::AllPairs(AllPairsBuilder::new(s.collective, scenario.n_ranks(), count, channels)))
        } else if s.collective != Collective::AllReduce {
            None
        } else if algorithm == Algorithm::NvlsTree {
            Some(Builder::NvlsTree(NvlsTreeBuilder::new(s.nodes, rings[0].len() as u32, count, channels)))
        } else if matches!(algorithm, Algorithm::Hierarchical | Algorithm::CollNet) {
            let sharp = algorithm == Algorithm::CollNet;
            Some(Builder::Hierarchical(HierarchicalBuilder::new(s.nodes, rings, count, channels, sharp)))
        } else {
            None
        };
        let state = if let Some(builder) = state {
            State::Building(builder)
        } else {
            let schedule = crate::collective::schedule_with(
                s.collective,
                algorithm,
                s.nodes,
                rings,
                count,
                channels,
                s.root,
            );
            State::Built(schedule)
        };
        Weigh { algorithm, state }
    }

    /// One more piece; true once the bound is in.
    pub fn advance(&mut self, scenario: &ValidScenario, topology: &Topology) -> bool {
        let policy = static_policy(scenario);
        self.state = match std::mem::replace(&mut self.state, State::Moving) {
            State::Building(mut builder) => match builder.advance() {
                true => State::Built(builder.finish()),
                false => State::Building(builder),
            },
            State::Built(schedule) => {
                let router = Router::for_transfers(topology, policy, &schedule.transfers).into_state();
                let bound = Bound::new(topology, &schedule);
                State::Routing(schedule, bound, router)
            }
            State::Routing(schedule, mut bound, state) => {
                let mut router = Router::resume(topology, state);
                match bound.route(topology, &schedule, &mut router, ROUTED_PER_POLL) {
                    true => State::Weighed(schedule, bound.ns(topology)),
                    false => State::Routing(schedule, bound, router.into_state()),
                }
            }
            done => done,
        };
        matches!(self.state, State::Weighed(..))
    }

    /// The algorithm, its schedule (protocol and latency settings not yet the run's) and its
    /// bound [ns], once `advance` said so.
    pub fn finish(mut self, scenario: &ValidScenario, topology: &Topology) -> (Algorithm, Schedule, f64) {
        while !self.advance(scenario, topology) {}
        let State::Weighed(schedule, bound) = self.state else { unreachable!("advance ends weighed") };
        (self.algorithm, schedule, bound)
    }
}
