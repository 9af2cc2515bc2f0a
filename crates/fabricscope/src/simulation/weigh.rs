//! One algorithm weighed for the tuner's table a bounded piece per poll, as both plans weigh
//! them (`exact::plan_step`, `big::weigh`): its schedule built in one poll (NVLSTree's and
//! all-pairs' a channel per poll, Hierarchical's and CollNet's 32,768 transfers:
//! `collective::ScheduleBuilder`), its router set up in the next, then its transfers routed for
//! the bandwidth bound `ROUTED_PER_POLL` at a time (`plan::Bound`).

use crate::collective::{Algorithm, Schedule, ScheduleBuilder};
use crate::engine::symmetry::{Symmetry, SymmetrySearch};
use crate::plan::{Bound, ValidScenario};
use crate::routing::{Policy, Router, RouterState};
use crate::scenario::Collective;
use crate::topology::Topology;

/// Transfers of a schedule routed per poll for the tuner's bound (about 10 ms in the page).
pub(super) const ROUTED_PER_POLL: usize = 32_768;

/// Routes are weighed as static (the tuner's bound sees no load).
pub(super) fn static_policy(scenario: &ValidScenario) -> Policy {
    Policy { routing: crate::catalog::Routing::Static, ..scenario.policy() }
}

/// Elements of a tree's schedule of one chunk per channel (and part), at most `scenario`'s: what
/// the big plan weighs Tree and NVLSTree on, and proves their channel symmetry on.
pub(super) fn one_chunk_count(scenario: &ValidScenario) -> u64 {
    let per_chunk = crate::collective::CHAIN_CHUNK_BYTES / crate::collective::ELEM_BYTES;
    scenario.scenario().count().min(per_chunk * scenario.channels() as u64).max(1)
}

/// Chunks per channel of `scenario`'s Tree AllReduce in `protocol`'s (`collective::tree_chunks`):
/// where they differ from Simple's, in which the tree is weighed, the run is built again.
pub(super) fn tree_chunks_of(scenario: &ValidScenario, protocol: crate::collective::Protocol) -> u32 {
    let (s, g) = (scenario.scenario(), scenario.preset().rings[0].len() as u32);
    crate::collective::tree_chunks(protocol, s.nodes, g, s.count(), scenario.channels())
}

/// Chunks per channel of `algorithm`'s schedule of `scenario` in `protocol`'s where they depend
/// on it (a Tree AllReduce, `tree_chunks_of`; a ring Broadcast's or Reduce's chain,
/// `collective::chain_chunks`), `None` where they do not: the run is built again where the
/// tuner's protocol cuts other chunks than Simple's, in which every schedule is weighed.
pub(super) fn chunks_of(
    scenario: &ValidScenario,
    algorithm: Algorithm,
    protocol: crate::collective::Protocol,
) -> Option<u32> {
    let s = scenario.scenario();
    match (s.collective, algorithm) {
        (Collective::AllReduce, Algorithm::Tree) => Some(tree_chunks_of(scenario, protocol)),
        (Collective::Broadcast | Collective::Reduce, Algorithm::Ring) => {
            let per_channel = s.count().div_ceil(scenario.channels() as u64);
            Some(crate::collective::chain_chunks(protocol, per_channel))
        }
        _ => None,
    }
}

/// An algorithm's schedule being built and weighed (`start`, `advance`, `finish`).
pub(super) struct Weigh {
    algorithm: Algorithm,
    state: State,
    /// Whether to search the built schedule's channel symmetry and weigh it from the proof's
    /// routes (`proving`); cleared where the search finds none, which then routes it all.
    prove: bool,
    /// The proof the search found.
    proof: Option<Symmetry>,
}

enum State {
    Building(ScheduleBuilder),
    Built(Schedule),
    Routing(Schedule, Bound, RouterState),
    /// The channel symmetry being searched, `ROUTED_PER_POLL` routes a poll.
    Proving(Schedule, Box<SymmetrySearch>),
    Weighed(Schedule, f64),
    /// Between pieces.
    Moving,
}

impl Weigh {
    /// `algorithm`'s schedule of `count` elements, built now, or a piece per poll from the next
    /// one where `ScheduleBuilder` builds it.
    pub fn start(scenario: &ValidScenario, algorithm: Algorithm, count: u64) -> Weigh {
        let s = scenario.scenario();
        let rings = &scenario.preset().rings;
        let channels = scenario.channels();
        let state = if let Some(builder) =
            ScheduleBuilder::of(s.collective, algorithm, s.nodes, rings, count, channels)
        {
            State::Building(builder)
        } else {
            // In Simple's chunks: a link's bytes, and so the bound, are the same at any chunking.
            let schedule = crate::collective::schedule_with(
                s.collective,
                (algorithm, crate::collective::Protocol::Simple),
                s.nodes,
                rings,
                count,
                channels,
                s.root,
            );
            State::Built(schedule)
        };
        Weigh { algorithm, state, prove: false, proof: None }
    }

    /// The same weighing by the schedule's channel symmetry where `prove`: the search
    /// (`SymmetrySearch::strided`, under the scenario's own static policy) routes every transfer
    /// once, and the bound is the proof's routes of the channels that stand for all, spread over
    /// their images (`Symmetry::whole_link_bytes`: every link's bytes, to the byte, so the same
    /// bound to the bit). A tree the big plan may then run from its first channels keeps the
    /// proof (`proof`), which would otherwise route it all again. Where no symmetry holds, the
    /// schedule is routed as `start`'s.
    pub fn proving(self, prove: bool) -> Weigh {
        Weigh { prove, ..self }
    }

    /// The channel symmetry the weighing proved (`proving`), once weighed.
    pub fn take_proof(&mut self) -> Option<Symmetry> {
        self.proof.take()
    }

    /// One more piece; true once the bound is in.
    pub fn advance(&mut self, scenario: &ValidScenario, topology: &Topology) -> bool {
        let policy = static_policy(scenario);
        self.state = match std::mem::replace(&mut self.state, State::Moving) {
            State::Building(mut builder) => match builder.advance() {
                true => State::Built(builder.finish()),
                false => State::Building(builder),
            },
            State::Built(schedule) if self.prove => {
                let search = SymmetrySearch::strided(&schedule);
                State::Proving(schedule, Box::new(search))
            }
            State::Proving(schedule, mut search) => {
                match search.advance(topology, &schedule, scenario.policy(), ROUTED_PER_POLL) {
                    None => State::Proving(schedule, search),
                    Some(Some(proof)) => {
                        let zero = proof.channel_zero(&schedule);
                        let paths = proof.channel_zero_paths();
                        let bound =
                            Bound::of_paths(topology, &zero, paths, |bytes| proof.whole_link_bytes(bytes));
                        self.proof = Some(proof);
                        State::Weighed(schedule, bound.ns(topology))
                    }
                    Some(None) => {
                        self.prove = false;
                        State::Built(schedule)
                    }
                }
            }
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
    pub fn finish(&mut self, scenario: &ValidScenario, topology: &Topology) -> (Algorithm, Schedule, f64) {
        while !self.advance(scenario, topology) {}
        let state = std::mem::replace(&mut self.state, State::Moving);
        let State::Weighed(schedule, bound) = state else { unreachable!("advance ends weighed") };
        (self.algorithm, schedule, bound)
    }
}
