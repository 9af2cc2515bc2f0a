//! A ring run folded by a rotation by whole nodes (`engine::rotation`) as well as by its
//! channels: the proof from channel 0's routed paths of one step, the rotated schedule (the first
//! m nodes' positions of channel 0), and the check that it routes as the ring does (its NIC plan
//! counts only its own connections). Used by the measuring run (`fluid`), the shown and searched
//! prefixes (`big::ring_stage`) and rings run whole (`job::whole_stage`).

use super::job::run_settings;
use crate::collective::{Algorithm, Protocol, Schedule};
use crate::engine::rotation::Rotation;
use crate::engine::symmetry::{Expansion, Fold, Mirrored, Symmetry};
use crate::plan::ValidScenario;
use crate::routing::Router;
use crate::scenario::Collective;
use crate::topology::{LinkId, Topology};
use crate::trace::Trace;

/// A proved rotation, channel 0's routed paths of one step (position for position, on the
/// cluster's links) and the rotated schedule of the steps asked for.
pub(super) struct Rotated {
    pub rotation: Rotation,
    pub paths: Vec<Vec<LinkId>>,
    pub schedule: Schedule,
}

/// The ring's first `steps` steps (all of them, at most) rotated, where a rotation by fewer
/// nodes than the ring has keeps its routes: `channel_fold` is the channels' fold where channel
/// 0 runs for all and channel 0's routed paths of one step from its proof; without one, where
/// channel 0 is the only channel, its paths are routed here. Static routes on a lossless fabric
/// and a ring whose chunks are all alike only.
pub(super) fn rotated_ring(
    scenario: &ValidScenario,
    topology: &Topology,
    protocol: Protocol,
    channel_fold: Option<(&Fold, &[Vec<LinkId>])>,
    steps: u32,
) -> Option<Rotated> {
    let s = scenario.scenario();
    let policy = scenario.policy();
    let ring =
        matches!(s.collective, Collective::AllReduce | Collective::AllGather | Collective::ReduceScatter);
    if !ring || policy.routing != crate::catalog::Routing::Static || topology.congested_efficiency != 1.0 {
        return None;
    }
    let n = scenario.n_ranks() as usize;
    let (base, paths) = match channel_fold {
        Some((fold, paths)) => (Some(fold), paths.get(..n)?.to_vec()),
        None => (None, one_channel_paths(scenario, topology, protocol)?),
    };
    let rotation = Rotation::find(topology, base, &paths, s.nodes)?;
    let rings = &scenario.preset().rings;
    let mut schedule = crate::collective::ring_prefix_rotated(
        s.collective,
        s.nodes,
        rings,
        s.count(),
        scenario.channels(),
        steps,
        rotation.nodes,
    )?;
    schedule.protocol = protocol;
    run_settings(&mut schedule, scenario);
    let class = rotation.nodes as usize * paths.len() / s.nodes as usize;
    let same = routes_as_whole(scenario, topology, &schedule, (&paths, class));
    same.then_some(Rotated { rotation, paths, schedule })
}

/// Whether the first `class` transfers of a rotated `schedule` (its first step's) route as the
/// whole's positions do (`paths`): its NIC plan counts only its own connections.
pub(super) fn routes_as_whole(
    scenario: &ValidScenario,
    topology: &Topology,
    schedule: &Schedule,
    (paths, class): (&[Vec<LinkId>], usize),
) -> bool {
    let mut router = Router::for_transfers(topology, scenario.policy(), &schedule.transfers);
    let load = vec![0u32; topology.n_links()];
    schedule.transfers[..class.min(schedule.transfers.len())]
        .iter()
        .zip(paths)
        .all(|(transfer, path)| router.route_transfer(transfer, &load) == *path)
}

/// Channel 0's routed paths of one step where it is the ring's only channel (no channel fold to
/// take them from).
fn one_channel_paths(
    scenario: &ValidScenario,
    topology: &Topology,
    protocol: Protocol,
) -> Option<Vec<Vec<LinkId>>> {
    let s = scenario.scenario();
    if scenario.channels() != 1 {
        return None;
    }
    let rings = &scenario.preset().rings;
    let mut step = crate::collective::ring_first_step(s.collective, s.nodes, rings, s.count(), 1)?;
    step.protocol = protocol;
    run_settings(&mut step, scenario);
    let mut router = Router::for_transfers(topology, scenario.policy(), &step.transfers);
    let load = vec![0u32; topology.n_links()];
    Some(step.transfers.iter().map(|t| router.route_transfer(t, &load)).collect())
}

/// A run of channel 0 for all (`engine::symmetry`), and of its first few nodes' positions for
/// all where the ring turns (`engine::rotation`): the proofs and the whole schedule, to expand
/// the trace (none for a lean tree, whose whole is never built: `lean`).
pub(super) struct Unfold {
    pub symmetry: Option<Symmetry>,
    pub whole: Option<Schedule>,
    /// The rotation and channel 0's routed paths of one step (`rotate::Rotated`).
    pub rotation: Option<(Rotation, Vec<Vec<LinkId>>)>,
    /// Where lane 0 ran alone on the mirror's fold (`Symmetry::mirrored`): it, and the two
    /// lanes' schedule, whose trace `Symmetry::unmirrored` rebuilds before anything reads it.
    pub mirror: Option<Box<(Mirrored, Schedule)>>,
}

impl Unfold {
    /// The whole schedule's trace from the run's, expanded a piece at a time
    /// (`Unfolding::advance`): the rotation's, then a channel per piece. `None` without the
    /// whole schedule.
    pub fn start(self, trace: Trace) -> Option<Unfolding> {
        let Unfold { symmetry, whole, rotation, .. } = self;
        Some(Unfolding { symmetry, whole: whole?, rotation, state: Pieces::Run(trace) })
    }

    /// The two lanes' schedule and trace where lane 0 ran alone on the mirror's fold (`mirror`,
    /// taken: `Symmetry::unmirrored`), else `schedule` and `trace` as they are.
    pub fn unmirror(&mut self, topology: &Topology, schedule: Schedule, trace: Trace) -> (Schedule, Trace) {
        match (self.mirror.take(), &self.symmetry) {
            (Some(mirror), Some(symmetry)) => {
                let (mirrored, lanes) = *mirror;
                (lanes, symmetry.unmirrored(topology, &mirrored, trace))
            }
            _ => (schedule, trace),
        }
    }
}

/// A run's trace being expanded to the whole schedule's (`Unfold::start`).
pub(super) struct Unfolding {
    symmetry: Option<Symmetry>,
    whole: Schedule,
    rotation: Option<(Rotation, Vec<Vec<LinkId>>)>,
    state: Pieces,
}

enum Pieces {
    /// The run's trace, nothing expanded yet.
    Run(Trace),
    /// Channel 0's trace of every position, its channels being expanded.
    Channels(Expansion),
    /// Every channel's flows, the trace (links' bytes and peaks) not yet made of them.
    Expanded(Expansion),
    /// The whole schedule's trace.
    Whole(Trace),
    /// Between pieces.
    Moving,
}

impl Unfolding {
    /// Expands one more piece (the rotation, or a channel); true once the whole trace is done.
    pub fn advance(&mut self) -> bool {
        let state = std::mem::replace(&mut self.state, Pieces::Moving);
        let unfold = &*self;
        let state = match state {
            Pieces::Run(trace) => {
                let trace = match &unfold.rotation {
                    Some((rotation, paths)) => rotation.expand(trace, paths, unfold.whole.n_steps),
                    None => trace,
                };
                match &unfold.symmetry {
                    Some(symmetry) => Pieces::Channels(symmetry.expansion(trace, &unfold.whole)),
                    None => Pieces::Whole(trace),
                }
            }
            Pieces::Channels(mut expansion) => match &unfold.symmetry {
                Some(symmetry) if symmetry.expand_channel(&mut expansion) => Pieces::Expanded(expansion),
                _ => Pieces::Channels(expansion),
            },
            Pieces::Expanded(expansion) => match &unfold.symmetry {
                Some(symmetry) => Pieces::Whole(symmetry.expanded(expansion)),
                None => Pieces::Expanded(expansion),
            },
            done => done,
        };
        self.state = state;
        matches!(self.state, Pieces::Whole(_))
    }

    /// The whole schedule and its trace, once `advance` said so.
    pub fn finish(mut self) -> (Schedule, Trace) {
        while !self.advance() {}
        let Pieces::Whole(trace) = self.state else { unreachable!("advance ends on the whole trace") };
        (self.whole, trace)
    }
}

/// A ring run whole whose channel 0 (`zero`) turns by whole nodes (`rotate`): the rotated
/// schedule, checked transfer for transfer against channel 0's (step, ranks, bytes, operation).
pub(super) fn whole_ring_rotated(
    scenario: &ValidScenario,
    topology: &Topology,
    symmetry: &Symmetry,
    fold: &Fold,
    zero: &Schedule,
) -> Option<Rotated> {
    if zero.algorithm != Algorithm::Ring {
        return None;
    }
    let n = scenario.n_ranks() as usize;
    let channel_fold = Some((fold, symmetry.channel_zero_paths()));
    let rotated = rotated_ring(scenario, topology, zero.protocol, channel_fold, zero.n_steps)?;
    let class = rotated.schedule.transfers.len() / zero.n_steps.max(1) as usize;
    let same = zero.transfers.len() == zero.n_steps as usize * n
        && rotated.schedule.transfers.len() == zero.n_steps as usize * class
        && rotated.schedule.transfers.iter().enumerate().all(|(i, r)| {
            let t = &zero.transfers[(i / class) * n + i % class];
            (t.step, t.channel, t.src, t.dst, t.bytes(), t.op, t.hop, t.deps.len(), t.after.is_some())
                == (r.step, r.channel, r.src, r.dst, r.bytes(), r.op, r.hop, r.deps.len(), r.after.is_some())
        });
    same.then_some(rotated)
}
