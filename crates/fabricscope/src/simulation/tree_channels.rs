//! A tree run by its channels' symmetry without building the channels that do not run: the
//! tuner's pick too big to build whole (`Stage::TreeChannels`, a sweep's point only), and a
//! busbw chart's point of a forced tree of any size (`tree_point`).
//!
//! NVLSTree on 128 DGX H100 at NCCL's 8 channels is 2,488,320 transfers from 64 MiB up (16
//! chunks per part and channel), beyond `MAX_TRANSFERS`; channels 0 and 1 run for all where the
//! channels fold (`Symmetry::find_strided`), and of them part 0 alone where the parts fold too
//! (`Lanes::Parts`, built by `NvlsTreeBuilder::part_zero`): 77,760 transfers. So the big plan's weighing keeps
//! the one-chunk schedule it weighed the tree on (`big::Weighing`), the channel symmetry is
//! proved on it (every chunk of a channel repeats chunk 0's connections, and every channel has
//! the same length: `Symmetry::first_channels`), and only the channels that run are built, one per poll
//! (`collective::FirstChannels`). The run's figures are the whole's, exact by symmetry; its
//! trace is never expanded (a point needs its times; a hashed point streams the whole trace's
//! hash, `Symmetry::expanded_hash`). A simulation to show still runs the best ring row: the
//! whole trace would not fit (`Simulation::tuner_pick_not_run` says so).

use super::job::run_settings;
use super::stage::{Plan, Stage};
use crate::collective::nvls_tree::MAX_CHUNKS;
use crate::collective::{Algorithm, FirstChannels, Protocol, Schedule, ScheduleBuilder};
use crate::engine::symmetry::{Fold, Symmetry, SymmetrySearch};
use crate::plan::ValidScenario;
use crate::scenario::ScenarioError;
use crate::topology::Topology;
use std::sync::Arc;

/// A tree's one-chunk schedule and the channel symmetry proved on it, as a finer run or the
/// plan takes them on: the schedule shared, not copied (NVLSTree's on 1,024 GPUs is 155,520
/// transfers, 5-10 ms to copy on the finer run's way to its thread).
pub(crate) type Proved = (Arc<Schedule>, Symmetry);

/// A tree run from its first channels, being proved and built (`start`, then `advance`: the
/// proof `PROOF_ROUTES` routes per poll, then a channel per poll).
pub(super) struct TreeChannels {
    proof: Proof,
    small: Arc<Schedule>,
    plan: Plan,
    protocol: Protocol,
    /// The ring's transfers and the best ring row's protocol, for the ring row should the proof
    /// fail or the built channels not be what it covers.
    ring: (u64, Protocol, u64),
    /// The whole's transfers and the most the channels that run may have.
    sizes: (u64, u64),
    /// Whether NVLSTree's finer run may follow within the limit (`chunk_fit::finer_may_run`):
    /// then the plan keeps the proof for it (`Plan::proved`).
    keep: bool,
    /// NVLSTree's chunks per part (`big::tree_cap`).
    cap: u64,
}

/// The channel symmetry on the one-chunk schedule: being searched, or proved, with the channels
/// that run being built (its parts say which), then carried to them (their run set up next:
/// at 2,048 GPUs, 10 and 27 ms natively, one poll of 45 ms together).
enum Proof {
    Searching(Box<SymmetrySearch>),
    /// Found by the weighing (`weigh::Weigh::proving`), on the same schedule under the same
    /// policy: what the search here would find.
    Found(Box<Symmetry>),
    Proved(Box<(Symmetry, FirstChannels)>),
    Carried(Box<(Symmetry, Symmetry, Schedule)>),
}

/// Routes the proof takes per poll: NVLSTree's one-chunk schedule on 2,048 GPUs routes 311,168
/// transfers, one poll of 59 ms natively in one go.
const PROOF_ROUTES: usize = 32_768;

/// The run of `algorithm` from its first channels (the tuner's pick, a tree too big to build
/// whole), from `small`, its one-chunk schedule the weighing built: `None` unless the channels of
/// the whole all have the same length and even channels 0 and 1 fit `limit`. The symmetry is
/// then proved on `small` a piece per poll (`advance`), unless the weighing `found` it, and the
/// run falls back to the best ring row where it does not hold or the channels that run have
/// more than `limit` of the whole's `whole` transfers.
pub(super) fn start(
    scenario: &ValidScenario,
    (algorithm, protocol): (Algorithm, Protocol),
    (small, found): (Schedule, Option<Symmetry>),
    (whole, limit, ring_transfers, ring_protocol): (u64, u64, u64, Protocol),
    plan: Plan,
) -> Option<TreeChannels> {
    let s = scenario.scenario();
    let channels = scenario.channels();
    let equal = s.count() % channels as u64 == 0 && small.n_channels == channels;
    // The tuner's NVLSTree in fewer chunks per part where the model's are too many
    // (`plan::tree_cap`); a forced one keeps them, as its sweep points do (`tree_point`).
    let cap = match s.algorithm {
        None => super::big::tree_cap(scenario, algorithm, limit),
        Some(_) => MAX_CHUNKS,
    };
    let whole = match cap < MAX_CHUNKS {
        true => super::big::tree_transfers_at(scenario, (algorithm, Some(protocol)), cap),
        false => whole,
    };
    let parts = crate::plan::tree_parts(s, scenario.n_ranks(), channels, algorithm);
    // No proof where even channels 0 and 1 are too many.
    let least = crate::plan::tree_least_run(whole, channels, parts);
    if !equal || small.algorithm != algorithm || least > limit {
        return None;
    }
    let proof = match found {
        Some(proof) => Proof::Found(Box::new(proof)),
        None => Proof::Searching(Box::new(SymmetrySearch::strided(&small))),
    };
    let keep = cap == MAX_CHUNKS && super::chunk_fit::finer_may_run(scenario, algorithm, limit);
    let ring = (ring_transfers, ring_protocol, limit);
    let mut plan = plan;
    plan.capped = (cap < MAX_CHUNKS).then(|| super::chunk_fit::capped(scenario, channels, cap)).flatten();
    let small = Arc::new(small);
    Some(TreeChannels { proof, small, plan, protocol, ring, sizes: (whole, limit), keep, cap })
}

impl TreeChannels {
    /// The algorithm and protocol of the run to be.
    pub(super) fn algorithm(&self) -> (Algorithm, Protocol) {
        (self.small.algorithm, self.protocol)
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl TreeChannels {
    /// Whether the symmetry is proved (the channels that run are being built, or built).
    pub(super) fn proved(&self) -> bool {
        !matches!(self.proof, Proof::Searching(_))
    }

    /// Its one-chunk schedule with the channel symmetry proved on it, where a finer run may
    /// follow (`keep`) and the proof is in: for the finer run started ahead (`chunk_fit::Ahead`),
    /// so the plan need not keep them for one run here.
    pub(super) fn hand_proof_on(&mut self) -> Option<Proved> {
        let proof = match &self.proof {
            Proof::Searching(_) => return None,
            Proof::Found(proof) => proof,
            Proof::Proved(proved) => &proved.0,
            Proof::Carried(carried) => &carried.0,
        };
        std::mem::take(&mut self.keep).then(|| (self.small.clone(), proof.clone()))
    }
}

/// One more piece of `tree`: of the proof, then a channel built, then the proof carried to the
/// channels built; then its run (`Stage::Running`, its unfold with no whole schedule: never
/// expanded), or the best ring row (`big::ring_row`) if the proof fails, the channels that run
/// are too many, or they are not what the proof on the one-chunk schedule covers (or that row's
/// error, with the topology, where its steps differ).
pub(super) fn advance(
    scenario: &ValidScenario,
    topology: Topology,
    tree: TreeChannels,
) -> Result<Stage, Box<(ScenarioError, Topology)>> {
    let ring_row = |topology: Topology, plan: Plan, ring| {
        let kept = topology.clone();
        super::big::ring_row(scenario, topology, plan, ring).map_err(|error| Box::new((error, kept)))
    };
    let TreeChannels { proof, small, mut plan, protocol, ring, sizes, keep, cap } = tree;
    // The proof found: the channels that run to be built, or the ring row.
    let found = |found: Option<Symmetry>| {
        let s = scenario.scenario();
        let (whole, limit) = sizes;
        let rings = &scenario.preset().rings;
        found.filter(|proof| whole / proof.share() <= limit).and_then(|proof| {
            let shape = (scenario.channels(), proof.parts() > 1);
            let builder = ScheduleBuilder::first_channels(
                (small.algorithm, protocol),
                s.nodes,
                rings,
                s.count(),
                shape,
            )?;
            Some(Proof::Proved(Box::new((proof, builder.with_cap(cap)))))
        })
    };
    let proof = match proof {
        Proof::Searching(mut search) => {
            match search.advance(&topology, &small, scenario.policy(), PROOF_ROUTES) {
                None => Proof::Searching(search),
                Some(proof) => match found(proof) {
                    Some(proved) => proved,
                    None => return ring_row(topology, plan, ring),
                },
            }
        }
        Proof::Found(proof) => match found(Some(*proof)) {
            Some(proved) => proved,
            None => return ring_row(topology, plan, ring),
        },
        Proof::Proved(mut proved) => {
            let (proof, builder) = &mut *proved;
            if !builder.advance_to(proof.stride()) {
                Proof::Proved(proved)
            } else {
                let (proof, builder) = *proved;
                let mut schedule = builder.finish();
                schedule.protocol = protocol;
                run_settings(&mut schedule, scenario);
                let Some(symmetry) = proof.first_channels(&small, &schedule) else {
                    return ring_row(topology, plan, ring);
                };
                Proof::Carried(Box::new((proof, symmetry, schedule)))
            }
        }
        Proof::Carried(carried) => {
            let (proof, symmetry, schedule) = *carried;
            plan.proved = keep.then(|| Box::new((small, proof)));
            return Ok(super::exact::folded_stage(scenario, topology, (symmetry, schedule, None), plan));
        }
    };
    let tree = Box::new(TreeChannels { proof, small, plan, protocol, ring, sizes, keep, cap });
    Ok(Stage::TreeChannels { topology, tree })
}

/// Whether `algorithm` (Tree, NVLSTree) may run at `protocol` within `limit` in a sweep's row:
/// whole, or from its first channels (channels of equal length that alternate NCCL's two trees, so channels 0
/// and 1 of C run for all and must fit, static routes on a lossless fabric, no fault; NVLSTree
/// in fewer chunks per part where the model's do not fit, `big::tree_cap`). The run still proves
/// the symmetry (`start`), which a setting this does not model may break (fewer NICs in use,
/// link overrides, leaf groups of different sizes): it says whether to try.
pub(super) fn may_fit(
    scenario: &ValidScenario,
    (algorithm, protocol): (Algorithm, Protocol),
    limit: u64,
) -> bool {
    let channels = scenario.channels();
    let whole = super::big::tree_transfers(scenario, (algorithm, Some(protocol)));
    let tree = matches!(algorithm, Algorithm::Tree | Algorithm::NvlsTree);
    let provable = crate::plan::tree_channels_provable(scenario.scenario(), channels);
    let least = super::big::tree_least_capped(scenario, (algorithm, Some(protocol)), limit);
    tree && (whole <= limit || (provable && least <= limit))
}

/// A sweep's point of a tree forced whose channels fold (`Job::point`: the busbw chart's; and
/// a forced tree beyond the engine whole, hashed or not, `forced_beyond`): the symmetry proved on its one-chunk schedule, the channels that run for all built alone
/// (`collective::FirstChannels`), the tuner's bound from their routed bytes spread over σ's
/// images (`Symmetry::whole_link_bytes`: the whole's bytes on every link, to the byte), the same
/// run `exact::whole_stage` makes of the whole without building or routing the other channels
/// (an 8-node NVLSTree's 153,600 transfers built and routed were half its point's time). The
/// figures are the lean job's to the bit (`tests/sweep.rs`); `None` where it does not apply
/// (channels of unequal length or that do not fold).
pub(super) fn tree_point(
    scenario: &ValidScenario,
    topology: &Topology,
    limit: u64,
) -> Option<(Symmetry, Schedule, Plan)> {
    let s = scenario.scenario();
    let algorithm = s.algorithm?;
    // The proof needs static routes on a lossless fabric (`Symmetry::find_strided`).
    let provable =
        scenario.policy().routing == crate::catalog::Routing::Static && topology.congested_efficiency == 1.0;
    if !provable {
        return None;
    }
    // Built in the forced protocol's chunks, else Simple's, and again in the pick's where a
    // Tree's differ (the link bytes, hence the bound and the pick, are the same at any chunking).
    let first = (algorithm, s.protocol.unwrap_or(Protocol::Simple));
    let (mut symmetry, mut built, proved) =
        folded_first_channels(scenario, topology, first, (MAX_CHUNKS, u64::MAX), None)?;
    // The whole's bound: each link's bytes over every channel, as `plan::Bound` routing the
    // whole would add them up (the same routes: a static policy's, which the proof required).
    let paths = symmetry.channel_zero_paths();
    let bound =
        crate::plan::Bound::of_paths(topology, &built, paths, |bytes| symmetry.whole_link_bytes(bytes));
    let (mut plan, pick) = Plan::tuned(scenario, vec![(algorithm, bound.ns(topology))]);
    let protocol = s.protocol.unwrap_or(pick.protocol);
    let chunks = |protocol| super::weigh::tree_chunks_of(scenario, protocol);
    if algorithm == Algorithm::Tree && chunks(protocol) != chunks(first.1) {
        let again = (algorithm, protocol);
        if super::big::tree_least(scenario, (algorithm, Some(protocol))) > limit {
            return None;
        }
        (symmetry, built, _) =
            folded_first_channels(scenario, topology, again, (MAX_CHUNKS, u64::MAX), Some(proved.clone()))?;
    }
    plan.proved = super::chunk_fit::finer_may_run(scenario, algorithm, limit).then(|| Box::new(proved));
    built.protocol = protocol;
    run_settings(&mut built, scenario);
    Some((symmetry, built, plan))
}

/// The channels of `algorithm`'s AllReduce (Tree, NVLSTree; a Tree's in the protocol's chunks)
/// that stand for all, built alone at most `cap` chunks per NVLSTree part, and the symmetry
/// proved on its one-chunk schedule carried to them (`Symmetry::first_channels`): `tree_point`'s run, and NVLSTree's finer one
/// (`chunk_fit`), with the one-chunk schedule and the proof on it. `None` where the proof fails
/// or they are beyond `limit` transfers (checked before they are built, from the whole's count
/// over the proof's share). `proved`: that schedule and proof where a run of the same tree has
/// them (`TreeChannels::hand_proof_on`, `Plan::proved`); else both are made here
/// (`exact::one_chunk_proof`).
pub(super) fn folded_first_channels(
    scenario: &ValidScenario,
    topology: &Topology,
    algorithm: (Algorithm, Protocol),
    (cap, limit): (u64, u64),
    proved: Option<Proved>,
) -> Option<(Symmetry, Schedule, Proved)> {
    let mut build = FirstChannelsBuild::start(scenario, topology, algorithm, (cap, limit), proved)?;
    while !build.advance() {}
    build.finish()
}

/// `folded_first_channels` a channel at a time, for a caller that must stay responsive (the
/// page's NVLSTree finer run, `chunk_fit`: its 155,520 transfers at 1,024 GPUs built and set
/// up in one poll held a frame for 48 ms natively).
pub(super) struct FirstChannelsBuild {
    builder: FirstChannels,
    small: Arc<Schedule>,
    proof: Symmetry,
    /// Where lane 0 alone is built (`start_lane_zero`): the mirror's fold, proved on the
    /// one-chunk schedule's lanes that run, and lane 0 of them.
    mirror: Option<Box<(Fold, Schedule)>>,
}

impl FirstChannelsBuild {
    /// The proof and a builder of the channels that run; `None` where `folded_first_channels`
    /// declines before building.
    pub fn start(
        scenario: &ValidScenario,
        topology: &Topology,
        algorithm: (Algorithm, Protocol),
        sizes: (u64, u64),
        proved: Option<Proved>,
    ) -> Option<FirstChannelsBuild> {
        FirstChannelsBuild::with(scenario, topology, algorithm, sizes, proved, false)
    }

    /// `start` for a run whose end alone is read (NVLSTree's finer run, `chunk_fit`): where NCCL's
    /// tree 1 is tree 0's mirror image on the one-chunk schedule (`Symmetry::mirrored` on its two
    /// lanes that run, a few thousand transfers), lane 0 alone is built, half of what two lanes
    /// are, to run on the mirror's fold (`finish_lanes`). Chunk q of a lane is built as chunk 0
    /// is, on the same connections, so the mirror pairs the lanes chunk by chunk as it does at
    /// one chunk, as `Symmetry::first_channels` carries σ; `tests/mirror.rs` holds lane 0 so
    /// built to the two lanes' run, to the nanosecond.
    pub fn start_lane_zero(
        scenario: &ValidScenario,
        topology: &Topology,
        sizes: (u64, u64),
        proved: Option<Proved>,
    ) -> Option<FirstChannelsBuild> {
        FirstChannelsBuild::with(
            scenario,
            topology,
            (Algorithm::NvlsTree, Protocol::Simple),
            sizes,
            proved,
            true,
        )
    }

    fn with(
        scenario: &ValidScenario,
        topology: &Topology,
        (algorithm, protocol): (Algorithm, Protocol),
        (cap, limit): (u64, u64),
        proved: Option<Proved>,
        lane_zero: bool,
    ) -> Option<FirstChannelsBuild> {
        let s = scenario.scenario();
        let (small, proof) = match proved {
            Some(proved) => proved,
            None => {
                super::exact::one_chunk_proof(scenario, topology, algorithm).map(|(s, p)| (Arc::new(s), p))?
            }
        };
        let rings = &scenario.preset().rings;
        let shape = (scenario.channels(), proof.parts() > 1);
        let mirror = match lane_zero && proof.stride() == 2 && s.nodes % 2 == 0 {
            true => {
                let mut lanes = ScheduleBuilder::first_channels(
                    (algorithm, protocol),
                    s.nodes,
                    rings,
                    small.count,
                    shape,
                )?;
                while !lanes.advance_to(2) {}
                let lanes = lanes.finish();
                let carried = proof.first_channels(&small, &lanes)?;
                carried.mirrored(topology, &lanes).map(|(lane0, mirrored)| Box::new((mirrored.fold, lane0)))
            }
            false => None,
        };
        if algorithm == Algorithm::NvlsTree {
            let (g, channels) = (scenario.preset().rings[0].len() as u32, scenario.channels());
            let whole = crate::collective::nvls_tree::transfer_count_at(s.nodes, g, s.count(), channels, cap);
            let lanes = if mirror.is_some() { 2 } else { 1 };
            if whole / proof.share() / lanes > limit {
                return None;
            }
        }
        let builder =
            ScheduleBuilder::first_channels((algorithm, protocol), s.nodes, rings, s.count(), shape)?
                .with_cap(cap);
        Some(FirstChannelsBuild { builder, small, proof, mirror })
    }

    /// Builds one more channel; true once those that run are.
    pub fn advance(&mut self) -> bool {
        let lanes = if self.mirror.is_some() { 1 } else { self.proof.stride() };
        self.builder.advance_to(lanes)
    }

    /// The channels built, the symmetry carried to them, and the one-chunk schedule and proof.
    /// `None` after `start_lane_zero` (lane 0 is not the channels that run for all under σ).
    pub fn finish(self) -> Option<(Symmetry, Schedule, Proved)> {
        let FirstChannelsBuild { builder, small, proof, mirror } = self;
        if mirror.is_some() {
            return None;
        }
        let built = builder.finish();
        let symmetry = proof.first_channels(&small, &built)?;
        Some((symmetry, built, (small, proof)))
    }

    /// What a run whose end alone is read runs (`start_lane_zero`), and on which fold: lane 0 on
    /// the mirror's, where every transfer of it is on a connection of the one-chunk lane 0's;
    /// else the lanes that run for all on σ's. `None` where they are not what the proof covers.
    pub fn finish_lanes(self, topology: &Topology) -> Option<(Schedule, Fold)> {
        let Some(mirror) = self.mirror else {
            let (symmetry, built, _) = self.finish()?;
            let fold = symmetry.fold(topology);
            return Some((built, fold));
        };
        let (fold, small_lane0) = *mirror;
        let lane0 = self.builder.finish();
        type Key = (u32, u32, u32, crate::collective::Hop);
        let key = |t: &crate::collective::Transfer| -> Key { (t.src, t.dst, t.channel, t.hop) };
        let connections: std::collections::HashMap<Key, (), crate::hash::FixedState> =
            small_lane0.transfers.iter().map(|t| (key(t), ())).collect();
        let on =
            !lane0.transfers.is_empty() && lane0.transfers.iter().all(|t| connections.contains_key(&key(t)));
        on.then_some((lane0, fold))
    }
}

/// A forced tree (Tree, NVLSTree) too big to build whole within `limit` (validation admitted
/// it from its channels that stand for all, `plan::Admission::Channels`): a sweep's point runs
/// them (`tree_point`; its row's hash streamed from them, `Symmetry::expanded_hash`), exact by
/// symmetry; a run to show, or a point whose channels do not fold after all, gets an error
/// that says why. `None` for anything else (the usual plans).
pub(super) fn forced_beyond(
    scenario: &ValidScenario,
    topology: &Topology,
    limit: u64,
    point: bool,
) -> Option<Stage> {
    let s = scenario.scenario();
    let algorithm = s.algorithm.filter(|a| matches!(a, Algorithm::Tree | Algorithm::NvlsTree))?;
    let whole = super::big::tree_transfers(scenario, (algorithm, None));
    let limit = limit.min(crate::limits::MAX_TRANSFERS);
    if s.collective != crate::scenario::Collective::AllReduce || s.nodes < 2 || whole <= limit {
        return None;
    }
    let name = algorithm.nccl_name();
    let refused = |why: String| {
        let problem = format!(
            "{name} on {} GPUs over {} channels is {whole} transfers, more than the engine simulates one by one ({}); {why}",
            scenario.n_ranks(),
            scenario.channels(),
            limit,
        );
        Stage::Done(Some(Err(ScenarioError { field: "nodes".into(), problem })))
    };
    if !point {
        return Some(refused(
            "a sweep's row (fabricscope allreduce) runs it from channels 0 and 1, which stand for all, but a run to show needs every transfer: use fewer nodes or channels, or let the tuner choose".into(),
        ));
    }
    // At the protocol that cuts the fewest chunks: the pick is made on the channels' bound
    // (`tree_point`, which declines a pick whose chunks are beyond `limit` after all).
    if super::big::tree_least_any(scenario, algorithm) > limit {
        return Some(refused(
            "even the channels that stand for all are beyond it: use fewer nodes or channels".into(),
        ));
    }
    Some(match tree_point(scenario, topology, limit) {
        Some((symmetry, built, plan)) => super::exact::folded_stage(scenario, topology.clone(), (symmetry, built, None), plan),
        None => refused(
            "its channels do not stand for one another here (a setting breaks their symmetry: fewer NICs in use, a link's own rate, leaf groups of different sizes, a lossy fabric, a fault): use fewer nodes or channels".into(),
        ),
    })
}

/// A tree run from its first channels, to show (`Job::showing_images`): the lanes that ran as
/// they moved on the cluster's links (`Symmetry::shown`), the whole's bytes on every link
/// (`Symmetry::whole_link_bytes`, to the byte) and the figures from them, and the proof, whose
/// images are the rest (`Simulation::images`: every link's rate at a time, the whole trace's
/// hash), so 2,488,320 transfers are shown from 77,760 (NVLSTree on 128 DGX H100 at 1 GiB).
pub(super) fn shown(
    scenario: &ValidScenario,
    topology: Topology,
    (schedule, folded): (Schedule, crate::trace::Trace),
    symmetry: Symmetry,
    plan: Plan,
) -> super::Simulation {
    let trace = symmetry.shown(folded);
    // The lanes' bytes on each link, summed as integers by `Trace::of_flows` (exact below 2^53).
    let ran: Vec<u64> = trace.link_bytes.iter().map(|&bytes| bytes as u64).collect();
    let mut sim = super::summary::finish(scenario, topology, schedule, trace, None, plan);
    sim.link_bytes = symmetry.whole_link_bytes(&ran).into_iter().map(|bytes| bytes as f64).collect();
    let (end, method) = (sim.summary.time, sim.summary.method);
    super::summary::refit(&mut sim, end, method);
    sim.images = Some(Box::new(symmetry));
    sim
}

#[cfg(test)]
mod tests {
    use crate::collective::Algorithm;
    use crate::scenario::{FabricConfig, Scenario};

    /// `tree_point` builds the two channels that stand for NCCL's eight (a quarter of the whole;
    /// of NVLSTree's, part 0 of each, a 32nd), at many chunks per channel and at one, and
    /// declines what it cannot prove (adaptive routing).
    #[test]
    fn a_forced_trees_chart_point_builds_only_the_channels_that_run() {
        for (algorithm, size_bytes) in [Algorithm::Tree, Algorithm::NvlsTree]
            .into_iter()
            .flat_map(|algorithm| [(algorithm, 1 << 30), (algorithm, 64 << 10)])
        {
            let s = Scenario { nodes: 8, size_bytes, algorithm: Some(algorithm), ..Scenario::default_demo() };
            let valid = s.validate().unwrap();
            let topology = valid.topology();
            let (symmetry, built, _) =
                super::tree_point(&valid, &topology, u64::MAX).expect("a point from its channels");
            let rings = &valid.preset().rings;
            let simple = (algorithm, crate::collective::Protocol::Simple);
            let whole =
                crate::collective::schedule_with(s.collective, simple, 8, rings, s.count(), 8, s.root);
            // Channels 0 and 1 of 8; of NVLSTree's, part 0 of each channel's 8.
            let share = if algorithm == Algorithm::NvlsTree { 32 } else { 4 };
            assert_eq!(
                (symmetry.stride(), symmetry.share(), share * built.transfers.len()),
                (2, share as u64, whole.transfers.len()),
                "{algorithm:?}, {size_bytes} B"
            );
            let adaptive =
                FabricConfig { routing: Some(crate::catalog::Routing::Adaptive), ..s.fabric.clone() };
            let valid = Scenario { fabric: adaptive, ..s.clone() }.validate().unwrap();
            let adaptive_point = super::tree_point(&valid, &valid.topology(), u64::MAX);
            assert!(adaptive_point.is_none(), "adaptive routes are not proved");
        }
    }
}
