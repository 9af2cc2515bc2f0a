//! The big plan (`start_steady`): a collective too big to plan as every algorithm's whole
//! schedule, weighed from one step or one chunk, and the steady-state search's run.

use super::exact::{first_step_symmetry, whole_stage};
use super::job::{run_settings, too_big, too_big_advised, unturned_advice, Plan, Stage, SteadyPlan, Then};
use super::rotate::rotated_ring;
use super::rotate::Unfold;
use super::weigh::{one_chunk_count, static_policy, Weigh};
use crate::collective::{Algorithm, Protocol, Schedule, Transfer};
use crate::engine;
use crate::engine::symmetry::Symmetry;
use crate::limits::{MAX_SHOWN_EXPANDED, MAX_STEADY_PREFIX, MAX_TRANSFERS};
use crate::plan::{
    bandwidth_bound_ns, least_measured_transfers, pick as pick_row, ValidScenario, LEAST_SHOWN_STEPS,
    STEADY_FIRST_STEPS, STEADY_SEARCH_STEPS,
};
use crate::routing::Router;
use crate::scenario::{Collective, ScenarioError};
use crate::topology::Topology;

/// The big plan, for a collective too big to build every algorithm's whole schedule: the tuner
/// weighs the ring from one step (its bound scales with its identical steps), Tree and NVLSTree
/// from one-chunk schedules scaled to the size, a slice of their transfers per poll
/// (`Stage::Weighing`, `weigh`); a tree it picks runs whole within `tree_limit`, else the best
/// ring row runs as a steady state (`decide`): a prefix of `STEADY_SEARCH_STEPS` steps in which
/// the engine looks for a proved period (`engine::period`), else extrapolated (`fluid`).
pub(super) fn start_steady(
    scenario: &ValidScenario,
    topology: Topology,
    total_transfers: u64,
    (tree_limit, lean, keep_small): (u64, bool, bool),
) -> Result<Stage, ScenarioError> {
    let s = scenario.scenario();
    let count = s.count();
    let rings = &scenario.preset().rings;
    let channels = scenario.channels();
    let steps_differ = || too_big(s, total_transfers, "its steps differ or are too few");
    let n = scenario.n_ranks();
    let ring_steps = if s.collective == Collective::AllReduce { 2 * (n - 1) } else { n - 1 };
    let one_step = crate::collective::ring_first_step(s.collective, s.nodes, rings, count, channels)
        .ok_or_else(steps_differ)?;
    let policy = static_policy(scenario);
    let mut router = Router::for_transfers(&topology, policy, &one_step.transfers);
    let ring_bound = bandwidth_bound_ns(&topology, &one_step, &mut router) * ring_steps as f64;
    // Tree (and NVLSTree where the NVSwitch reduces and NVLS is enabled, as the exact plan
    // weighs them) are weighed from a one-chunk-per-channel schedule scaled to the size (a link's
    // bytes grow with the size, not with how it is cut), and run only within the engine's limit.
    let mut trees = Vec::new();
    if s.collective == Collective::AllReduce && s.nodes > 1 {
        trees.push(Algorithm::Tree);
        if scenario.nvls_tree_supported() && s.nvls {
            trees.push(Algorithm::NvlsTree);
        }
    }
    // A lean job with a forced algorithm weighs no tree it does not run (`Job::lean`).
    if let Some(forced) = s.algorithm.filter(|_| lean) {
        trees.retain(|&tree| tree == forced);
    }
    let weighing = Weighing {
        total_transfers,
        tree_limit,
        bounds: vec![(Algorithm::Ring, ring_bound)],
        todo: trees.iter().rev().copied().collect(),
        trees,
        current: None,
        keep_small,
        small: Vec::new(),
    };
    Ok(Stage::Weighing { topology, weighing: Box::new(weighing) })
}

/// A big plan being weighed (`start_steady`): the bounds so far, the trees left, the one being
/// weighed (from a one-chunk schedule, its bound scaled to the size).
pub(super) struct Weighing {
    total_transfers: u64,
    tree_limit: u64,
    bounds: Vec<(Algorithm, f64)>,
    /// The trees weighed, and those left (last first).
    trees: Vec<Algorithm>,
    todo: Vec<Algorithm>,
    current: Option<Box<Weigh>>,
    /// Keep each tree's one-chunk schedule (`small`) for a run from its first channels
    /// (`tree_channels`): a sweep's point, or a job showing one (`Job::showing_images`).
    keep_small: bool,
    /// Each kept schedule, with the channel symmetry its weighing proved on it.
    small: Vec<(Schedule, Option<Symmetry>)>,
}

/// One bounded piece of `weighing` (`weigh::Weigh`); true once every bound is in.
pub(super) fn weigh(scenario: &ValidScenario, topology: &Topology, weighing: &mut Weighing) -> bool {
    let count = scenario.scenario().count();
    let small = one_chunk_count(scenario);
    if let Some(current) = &mut weighing.current {
        if current.advance(scenario, topology) {
            let mut current = weighing.current.take().expect("a tree being weighed");
            let (algorithm, schedule, bound) = current.finish(scenario, topology);
            let proof = current.take_proof();
            weighing.bounds.push((algorithm, bound * count as f64 / small as f64));
            // Kept where channels 0 and 1, which run for all of NCCL's alternating trees, may fit.
            let limit = weighing.tree_limit.min(MAX_TRANSFERS);
            // NVLSTree in as many chunks per part as fit (`tree_cap`).
            let least = match algorithm {
                Algorithm::NvlsTree => tree_least_capped(scenario, (algorithm, None), limit),
                _ => tree_least_any(scenario, algorithm),
            };
            if keeps(weighing, scenario, small) && least <= limit {
                weighing.small.push((schedule, proof));
            }
        }
        return false;
    }
    let Some(algorithm) = weighing.todo.pop() else { return true };
    // A tree kept for a run from its first channels is weighed by their symmetry, whose proof
    // the run then starts from (`tree_channels::start`): its routes once, not twice.
    let provable = crate::plan::tree_channels_provable(scenario.scenario(), scenario.channels());
    let prove = provable && keeps(weighing, scenario, small);
    weighing.current = Some(Box::new(Weigh::start(scenario, algorithm, small).proving(prove)));
    false
}

/// Whether `weighing` keeps a tree's one-chunk schedule of `small` elements (the tree's own
/// limit aside): for a run from its first channels.
fn keeps(weighing: &Weighing, scenario: &ValidScenario, small: u64) -> bool {
    weighing.keep_small && small < scenario.scenario().count()
}

/// The weighed big plan's choice: the tuner's pick run whole if a tree that fits, else the best
/// ring row's steady-state search (`Stage::Search`).
pub(super) fn decide(
    scenario: &ValidScenario,
    topology: Topology,
    weighing: Weighing,
) -> Result<Stage, ScenarioError> {
    let Weighing { total_transfers, tree_limit, bounds, trees, small, .. } = weighing;
    let s = scenario.scenario();
    let count = s.count();
    let rings = &scenario.preset().rings;
    let channels = scenario.channels();
    let (plan, pick) = Plan::tuned(scenario, bounds);
    let protocol = s.protocol.unwrap_or(pick.protocol);
    // In the pick's chunks (a Tree's are the protocol's).
    let whole = tree_transfers(scenario, (pick.algorithm, Some(protocol)));
    if trees.contains(&pick.algorithm) && whole > tree_limit.min(MAX_TRANSFERS) {
        // A tree wins but is too big to build whole: a sweep's point runs the channels that
        // stand for all (`tree_channels`), built alone, where they fold; else the best ring row
        // runs (and the simulation says the tuner picked the tree, `tuner_pick_not_run`).
        let ring = pick_row(&plan.tuning, Some(Algorithm::Ring), s.protocol).copied().unwrap_or(pick);
        let ring_protocol = s.protocol.unwrap_or(ring.protocol);
        let picked = (pick.algorithm, protocol);
        let limit = tree_limit.min(MAX_TRANSFERS);
        if let Some((small, proof)) = small.into_iter().find(|(small, _)| small.algorithm == pick.algorithm) {
            let plan =
                Plan { tuning: plan.tuning.clone(), bounds: plan.bounds.clone(), proved: None, ..plan };
            let sizes = (whole, limit, total_transfers, ring_protocol);
            if let Some(tree) = super::tree_channels::start(scenario, picked, (small, proof), sizes, plan) {
                return Ok(Stage::TreeChannels { topology, tree: Box::new(tree) });
            }
        }
        return ring_row(scenario, topology, plan, (total_transfers, ring_protocol, limit));
    }
    if trees.contains(&pick.algorithm) {
        // Built a channel per poll (`Stage::BuildingTree`): 262,144 transfers of Tree at 128
        // nodes were one 20 ms poll natively.
        if let Some(builder) = crate::collective::ScheduleBuilder::first_channels(
            (pick.algorithm, protocol),
            s.nodes,
            rings,
            count,
            (channels, false),
        ) {
            return Ok(Stage::BuildingTree { topology, builder: Box::new(builder), plan, protocol });
        }
        let mut tree = crate::collective::schedule_with(
            s.collective,
            (pick.algorithm, protocol),
            s.nodes,
            rings,
            count,
            channels,
            s.root,
        );
        tree.protocol = protocol;
        run_settings(&mut tree, scenario);
        return Ok(whole_stage(scenario, topology, tree, plan, true));
    }
    ring_row(scenario, topology, plan, (total_transfers, protocol, tree_limit.min(MAX_TRANSFERS)))
}

/// The ring's steady-state search (`Stage::Search`) at `protocol`, where the big plan runs the
/// ring: the tuner's pick, or the best ring row where its tree does not run.
pub(super) fn ring_row(
    scenario: &ValidScenario,
    topology: Topology,
    mut plan: Plan,
    (total_transfers, protocol, whole_limit): (u64, crate::collective::Protocol, u64),
) -> Result<Stage, ScenarioError> {
    let s = scenario.scenario();
    let (n, mut count, channels) = (scenario.n_ranks(), s.count(), scenario.channels());
    let mut total_transfers = total_transfers;
    // A ring whose chunks differ by an element (a size not a multiple of ranks × channels
    // elements) runs every transfer where it may (`Job::not_steady`), else as the ring of the
    // size rounded down to that multiple, whose steps are alike: the job runs that scenario from
    // here (`Job::round`) and says so.
    if total_transfers > whole_limit {
        if let Some(rounded) = crate::collective::ring_rounded_count(s.collective, n, count, channels) {
            (count, plan.rounded) = (rounded, Some(rounded));
            total_transfers = crate::plan::ring_transfers(s.collective, n, rounded, channels);
        }
    }
    // A ring whose steps all look alike may run as a steady state; one whose chunks differ by
    // an element is only weighed.
    let alike = crate::collective::ring_steady_steps(s.collective, n, count, channels)
        .filter(|&total| total > STEADY_FIRST_STEPS);
    let Some(total_steps) = alike else {
        return Err(too_big(
            s,
            total_transfers,
            &format!("the tuner picks the ring, whose steps differ here ({count} elements is not a multiple of {n} ranks × {channels} channels)"),
        ));
    };
    let unit = n as u64 * channels as u64;
    let steady = SteadyPlan { total_steps, total_transfers, unit, protocol };
    Ok(Stage::Search { topology, plan, steady, built: Vec::new() })
}

/// The steady-state search's run: a prefix of `STEADY_SEARCH_STEPS` steps (`ring_stage`). A ring
/// whose search prefix is beyond `MAX_STEADY_PREFIX` shows a shorter one instead (as many steps
/// as fit, at least `LEAST_SHOWN_STEPS`) and goes straight to measuring its per-step time: with
/// tens of thousands of steps, where the extrapolation starts moves the total by a few steps'
/// error in ten thousand.
/// Transfers of the search's prefix built per poll (about 4 ms natively).
const BUILT_PER_POLL: u64 = 65_536;

/// One piece of the search's prefix built (`ring_prefix_steps`: a few steps' transfers); true
/// once it is whole, or where `start_search` builds none (a prefix beyond `MAX_STEADY_PREFIX`).
pub(super) fn build_search(scenario: &ValidScenario, steady: &SteadyPlan, built: &mut Vec<Transfer>) -> bool {
    let search = STEADY_SEARCH_STEPS.min(steady.total_steps - 1);
    let unit = steady.unit.max(1);
    if search as u64 * unit > MAX_STEADY_PREFIX || built.len() as u64 >= search as u64 * unit {
        return true;
    }
    let s = scenario.scenario();
    let from = (built.len() as u64 / unit) as u32;
    let to = (from + (BUILT_PER_POLL / unit).max(1) as u32).min(search);
    let rings = &scenario.preset().rings;
    built.extend(crate::collective::ring_prefix_steps(
        s.collective,
        s.nodes,
        rings,
        s.count(),
        scenario.channels(),
        (from, to),
    ));
    false
}

pub(super) fn start_search(
    scenario: &ValidScenario,
    topology: Topology,
    plan: Plan,
    steady: SteadyPlan,
    (built, measured): (Vec<Transfer>, u64),
) -> Stage {
    let s = scenario.scenario();
    let search = STEADY_SEARCH_STEPS.min(steady.total_steps - 1);
    let rings = &scenario.preset().rings;
    let (count, channels) = (s.count(), scenario.channels());
    let refused =
        || Stage::Done(Some(Err(too_big(s, steady.total_transfers, "its steps differ or are too few"))));
    if search as u64 * steady.unit > MAX_STEADY_PREFIX {
        let fits = (MAX_STEADY_PREFIX / steady.unit.max(1)).min(search as u64) as u32;
        // Beyond even that: two steps of channel 0 for all, expanded; run as a few nodes' where
        // channel 0's measuring run is beyond `measured` (`fluid::Measure`).
        let expanded =
            fits < LEAST_SHOWN_STEPS && LEAST_SHOWN_STEPS as u64 * steady.unit <= MAX_SHOWN_EXPANDED;
        let must_turn = expanded && least_measured_transfers(scenario.n_ranks() as u64) > measured;
        let shown = if expanded { LEAST_SHOWN_STEPS } else { fits };
        return match crate::collective::ring_shown_prefix(
            s.collective,
            s.nodes,
            rings,
            count,
            channels,
            shown,
        ) {
            Some(mut schedule) if shown >= LEAST_SHOWN_STEPS => {
                schedule.protocol = steady.protocol;
                run_settings(&mut schedule, scenario);
                match ring_stage(scenario, topology, schedule, None, plan, Then::Shown(steady)) {
                    // Channel 0 cannot stand for the others (a lossy fabric, routes that depend
                    // on load): measuring every channel's steps is beyond the engine.
                    Stage::Running { unfold: None, .. } => Stage::Done(Some(Err(too_big(
                        s,
                        steady.total_transfers,
                        "at this size only channel 0 standing for every channel can be measured, and here the channels are not images of one another (a lossy fabric, or routes that depend on load)",
                    )))),
                    Stage::Running { unfold: Some(unfold), .. } if must_turn && unfold.rotation.is_none() => {
                        let advice = unturned_advice(scenario.preset().gpus_per_node, measured);
                        Stage::Done(Some(Err(too_big_advised(
                            s,
                            steady.total_transfers,
                            "at this size only a few nodes standing for every node can be simulated, and here turning the ring by whole nodes does not keep its routes (leaf groups of different sizes, a fault)",
                            &advice,
                        ))))
                    }
                    stage => stage,
                }
            }
            _ => refused(),
        };
    }
    match crate::collective::ring_prefix_of(s.collective, s.nodes, rings, count, channels, search, built) {
        Some((mut schedule, _, probe)) => {
            schedule.protocol = steady.protocol;
            run_settings(&mut schedule, scenario);
            ring_stage(scenario, topology, schedule, Some(probe), plan, Then::Search(steady))
        }
        None => refused(),
    }
}

/// A ring prefix's engine run, watched for a steady state by `probe`: channel 0 alone on the
/// folded links where `engine::symmetry` proves the channels images of one another (the probe
/// then counts channel 0's transfers), every transfer otherwise. The stage it runs in.
pub(super) fn ring_stage(
    scenario: &ValidScenario,
    topology: Topology,
    schedule: Schedule,
    probe: Option<crate::collective::Probe>,
    mut plan: Plan,
    then: Then,
) -> Stage {
    let policy = scenario.policy();
    let symmetry = ring_symmetry(scenario, &topology, &schedule);
    let base = symmetry.as_ref().map(|(symmetry, _)| symmetry.fold(&topology));
    let proof = symmetry
        .as_ref()
        .zip(base.as_ref())
        .map(|((symmetry, _), fold)| (fold, symmetry.channel_zero_paths()));
    let rotated = rotated_ring(scenario, &topology, schedule.protocol, proof, schedule.n_steps);
    // The probe counts the transfers the engine runs: channel 0's, of it one class of nodes'.
    let mut parts = if symmetry.is_some() { schedule.n_channels.max(1) } else { 1 };
    if let Some(rotated) = &rotated {
        parts *= scenario.scenario().nodes / rotated.rotation.nodes;
    }
    let probe = probe.map(|probe| crate::collective::Probe {
        unit: probe.unit / parts,
        regular_from: probe.regular_from / parts,
        frontier: probe.frontier / parts,
        stop: probe.stop,
    });
    let start = |run_schedule: &Schedule, fold| match (probe, fold) {
        (Some(probe), Some(fold)) => {
            engine::Run::new_folded_probed(&topology, run_schedule, policy, probe, fold)
        }
        (None, Some(fold)) => engine::Run::new_folded(&topology, run_schedule, policy, fold),
        (probe, None) => engine::Run::new(&topology, run_schedule, policy, probe),
    };
    match (rotated, symmetry) {
        (Some(rotated), symmetry) => {
            plan.rotated = Some(rotated.rotation.nodes);
            let run = start(&rotated.schedule, Some(rotated.rotation.fold.clone()));
            let unfold = Unfold {
                symmetry: symmetry.map(|(symmetry, _)| symmetry),
                whole: Some(schedule),
                rotation: Some((rotated.rotation, rotated.paths)),
                mirror: None,
            };
            let unfold = Some(Box::new(unfold));
            Stage::Running { topology, schedule: rotated.schedule, run, plan, then, unfold }
        }
        (None, Some((symmetry, zero))) => {
            let run = start(&zero, base);
            let unfold = Some(Box::new(Unfold {
                symmetry: Some(symmetry),
                whole: Some(schedule),
                rotation: None,
                mirror: None,
            }));
            Stage::Running { topology, schedule: zero, run, plan, then, unfold }
        }
        (None, None) => {
            let run = start(&schedule, None);
            Stage::Running { topology, schedule, run, plan, then, unfold: None }
        }
    }
}

/// A ring prefix's channel symmetry, proved on its first step (`Symmetry::find` on 1/K of the
/// transfers) and repeated over its steps (`Symmetry::repeated`), and channel 0's prefix built
/// alone (`collective::ring_prefix_channel_zero`, numbered as `channel_zero` numbers it): what
/// `find` and `channel_zero` on the whole prefix give, at a fraction of the cost.
fn ring_symmetry(
    scenario: &ValidScenario,
    topology: &Topology,
    prefix: &Schedule,
) -> Option<(Symmetry, Schedule)> {
    let s = scenario.scenario();
    let rings = &scenario.preset().rings;
    let (count, channels) = (s.count(), scenario.channels());
    let one = crate::collective::ring_first_step(s.collective, s.nodes, rings, count, channels)?;
    let symmetry = first_step_symmetry(scenario, topology, one, prefix.protocol, prefix.n_steps)?;
    let mut zero = crate::collective::ring_prefix_channel_zero(
        s.collective,
        s.nodes,
        rings,
        count,
        channels,
        prefix.n_steps,
    )?;
    zero.protocol = prefix.protocol;
    run_settings(&mut zero, scenario);
    Some((symmetry, zero))
}

/// Transfers of `algorithm`'s whole AllReduce (Tree, NVLSTree) here, a Tree's in `protocol`'s
/// chunks (`None`: the forced protocol's, else the finest's); `u64::MAX` where the tuner may not
/// run it, or for another algorithm: `plan::tree_algorithm_transfers`.
pub(super) fn tree_transfers(
    scenario: &ValidScenario,
    (algorithm, protocol): (Algorithm, Option<Protocol>),
) -> u64 {
    let (s, n, channels) = (scenario.scenario(), scenario.n_ranks(), scenario.channels());
    crate::plan::tree_algorithm_transfers(s, n, channels, (algorithm, protocol)).unwrap_or(u64::MAX)
}

/// The fewest transfers `algorithm`'s whole AllReduce runs from its first channels (and parts),
/// in `protocol`'s chunks as `tree_transfers`: `plan::tree_least_run`.
pub(super) fn tree_least(
    scenario: &ValidScenario,
    (algorithm, protocol): (Algorithm, Option<Protocol>),
) -> u64 {
    let (s, n, channels) = (scenario.scenario(), scenario.n_ranks(), scenario.channels());
    let parts = crate::plan::tree_parts(s, n, channels, algorithm);
    crate::plan::tree_least_run(tree_transfers(scenario, (algorithm, protocol)), channels, parts)
}

/// `plan::tree_cap` for `scenario`: the tuner's NVLSTree's chunks per part within `limit`.
pub(super) fn tree_cap(scenario: &ValidScenario, algorithm: Algorithm, limit: u64) -> u64 {
    let shape = (scenario.n_ranks(), scenario.channels());
    crate::plan::tree_cap(scenario.scenario(), shape, algorithm, limit)
}

/// `tree_least` where NVLSTree runs in `tree_cap`'s chunks within `limit`.
pub(super) fn tree_least_capped(
    scenario: &ValidScenario,
    (algorithm, protocol): (Algorithm, Option<Protocol>),
    limit: u64,
) -> u64 {
    let (s, n, channels) = (scenario.scenario(), scenario.n_ranks(), scenario.channels());
    let parts = crate::plan::tree_parts(s, n, channels, algorithm);
    let cap = tree_cap(scenario, algorithm, limit);
    crate::plan::tree_least_run(tree_transfers_at(scenario, (algorithm, protocol), cap), channels, parts)
}

/// Transfers of NVLSTree's whole AllReduce at `cap` chunks per part (`tree_transfers` at the
/// model's `MAX_CHUNKS`); `tree_transfers` for any other algorithm.
pub(super) fn tree_transfers_at(
    scenario: &ValidScenario,
    (algorithm, protocol): (Algorithm, Option<Protocol>),
    cap: u64,
) -> u64 {
    let shape = (scenario.n_ranks(), scenario.channels());
    match algorithm {
        Algorithm::NvlsTree if tree_transfers(scenario, (algorithm, protocol)) != u64::MAX => {
            crate::plan::nvls_tree_transfers_at(scenario.scenario(), shape, cap)
        }
        _ => tree_transfers(scenario, (algorithm, protocol)),
    }
}

/// `tree_least` at the protocol the tuner may pick that cuts the fewest chunks (the forced one
/// where it is): whether the tree may run from its first channels at all, before the pick.
pub(super) fn tree_least_any(scenario: &ValidScenario, algorithm: Algorithm) -> u64 {
    match scenario.scenario().protocol {
        Some(forced) => tree_least(scenario, (algorithm, Some(forced))),
        None => Protocol::ALL
            .into_iter()
            .map(|p| tree_least(scenario, (algorithm, Some(p))))
            .min()
            .unwrap_or(u64::MAX),
    }
}
