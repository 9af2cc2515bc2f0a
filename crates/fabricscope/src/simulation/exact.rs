//! The exact plan (`Stage::Planning`): every algorithm the tuner weighs, its whole schedule
//! built and routed for its bound a bounded piece per poll, then the pick run whole
//! (`whole_stage`), folded by its channels and, for a ring, a rotation where they are proved.

use super::job::run_settings;
use super::rotate::Unfold;
use super::stage::{Plan, Stage, Then};
use super::weigh::Weigh;
use super::Mode;
use crate::collective::{Algorithm, Protocol, Schedule};
use crate::engine;
use crate::engine::symmetry::Symmetry;
use crate::plan::ValidScenario;
use crate::scenario::Collective;
use crate::topology::Topology;

/// Plans the exact run: every algorithm the tuner weighs (one schedule and its routed bound per
/// poll, `Stage::Planning`), then its pick, set up on the engine.
pub(super) fn start_exact(scenario: &ValidScenario, topology: Topology, lean: bool) -> Stage {
    let s = scenario.scenario();
    if let Some(forced) = s.algorithm.filter(|_| lean) {
        let algorithm = if forced == Algorithm::Direct { Algorithm::Ring } else { forced };
        return Stage::Planning {
            topology,
            todo: vec![algorithm],
            built: Vec::new(),
            bounds: Vec::new(),
            pending: None,
        };
    }
    let n = scenario.n_ranks();
    let g = scenario.preset().gpus_per_node;
    let mut algorithms = vec![Algorithm::Ring];
    if s.collective == Collective::AllReduce && n > 1 {
        use Algorithm::{Hierarchical, Tree};
        // NVLS is weighed where the NVSwitch reduces and it is enabled (NCCL's default; forcing it
        // needs it enabled), CollNet where SHARP runs and it is enabled or forced.
        let nvls = scenario.nvls_supported() && s.nvls;
        let nvls_tree = scenario.nvls_tree_supported() && s.nvls;
        let collnet = scenario.sharp_supported() && (s.collnet || s.algorithm == Some(Algorithm::CollNet));
        let more: &[_] = match (s.nodes > 1, nvls, collnet) {
            (true, _, true) => &[Tree, Hierarchical, Algorithm::CollNet],
            (true, _, false) => &[Tree, Hierarchical],
            (false, true, _) => &[Tree, Algorithm::Nvls],
            (false, false, _) => &[Tree],
        };
        algorithms.extend_from_slice(more);
        if nvls_tree {
            algorithms.push(Algorithm::NvlsTree);
        }
    }
    if matches!(s.collective, Collective::AllGather | Collective::ReduceScatter) && g == 1 && n > 1 {
        // NCCL enables PAT with one GPU per node (NCCL_PAT_ENABLE's default).
        algorithms.push(Algorithm::Pat);
    }
    // The textbook algorithms, for comparison, where they apply and stay small.
    let textbook: &[Algorithm] = match s.collective {
        Collective::AllReduce | Collective::AllGather | Collective::ReduceScatter if n > 1 => {
            &[Algorithm::HalvingDoubling, Algorithm::AllPairs]
        }
        Collective::AllToAll if n > 1 => &[Algorithm::Bruck],
        _ => &[],
    };
    for &algorithm in textbook {
        let applies = match algorithm {
            Algorithm::HalvingDoubling => n.is_power_of_two(),
            Algorithm::AllPairs => {
                s.collective != Collective::AllReduce || n <= crate::limits::MAX_ALL_PAIRS_RANKS
            }
            _ => true,
        };
        let transfers = crate::collective::transfer_count_with(
            s.collective,
            Some(algorithm),
            s.nodes,
            g,
            s.count(),
            scenario.channels(),
        );
        if applies && transfers <= COMPARE_TRANSFERS {
            algorithms.push(algorithm);
        }
    }
    // A forced algorithm is weighed whatever its size (validation admitted it).
    if let Some(forced) = s.algorithm.filter(|a| !matches!(a, Algorithm::Ring | Algorithm::Direct)) {
        if !algorithms.contains(&forced) {
            algorithms.push(forced);
        }
    }
    algorithms.reverse();
    Stage::Planning { topology, todo: algorithms, built: Vec::new(), bounds: Vec::new(), pending: None }
}

/// Most transfers a comparison algorithm's schedule may have to be weighed beside NCCL's
/// (halving-doubling, all-pairs, Bruck): building and routing it costs the tuner's table time.
pub(super) const COMPARE_TRANSFERS: u64 = 200_000;

/// One more algorithm of the exact plan: its schedule and its bound; with the last, the tuner's
/// pick set up on the engine.
pub(super) fn plan_step(
    scenario: &ValidScenario,
    mode: Mode,
    topology: Topology,
    (mut todo, mut built, mut bounds): (Vec<Algorithm>, Vec<Schedule>, Vec<(Algorithm, f64)>),
    pending: Option<Box<Weigh>>,
) -> Stage {
    let s = scenario.scenario();
    // The tuner's table, from each algorithm's bandwidth bound on this topology: a schedule
    // built and routed for its bound a piece per poll (`Weigh`), then the next.
    if let Some(mut weigh) = pending {
        if weigh.advance(scenario, &topology) {
            // The table's row is the schedule's algorithm (AllToAll and SendRecv asked for Ring
            // build P2P).
            let (_, schedule, bound) = weigh.finish(scenario, &topology);
            bounds.push((schedule.algorithm, bound));
            // Only NCCL's algorithms, or the one forced, may run: another's schedule (the
            // textbook ones, Hierarchical) is freed now, in its own poll, not with the pick.
            if schedule.algorithm.is_nccls() || s.algorithm == Some(schedule.algorithm) {
                built.push(schedule);
            }
            return Stage::Planning { topology, todo, built, bounds, pending: None };
        }
        return Stage::Planning { topology, todo, built, bounds, pending: Some(weigh) };
    }
    if let Some(algorithm) = todo.pop() {
        let weigh = Box::new(Weigh::start(scenario, algorithm, s.count()));
        return Stage::Planning { topology, todo, built, bounds, pending: Some(weigh) };
    }
    // NCCL_ALGO and NCCL_PROTO narrow the tuner's choice; it picks among what is left.
    let (plan, pick) = Plan::tuned(scenario, bounds);
    let chosen = built.iter().position(|a| a.algorithm == pick.algorithm).unwrap_or(0);
    let mut schedule = built.swap_remove(chosen);
    let protocol = s.protocol.unwrap_or(pick.protocol);
    // Weighed in Simple's chunks (`weigh`); a Tree or a chain runs in its protocol's.
    let chunks = |protocol| super::weigh::chunks_of(scenario, schedule.algorithm, protocol);
    if chunks(protocol) != chunks(Protocol::Simple) {
        let rings = &scenario.preset().rings;
        let (pick, channels) = ((schedule.algorithm, protocol), scenario.channels());
        schedule =
            crate::collective::schedule_with(s.collective, pick, s.nodes, rings, s.count(), channels, s.root);
    }
    schedule.protocol = protocol;
    run_settings(&mut schedule, scenario);
    whole_stage(scenario, topology, schedule, plan, matches!(mode, Mode::Auto | Mode::Symmetric))
}

/// The whole schedule's engine run: channel 0 alone on the folded links where `fold` allows it
/// and `engine::symmetry` proves the channels images of one another, every transfer otherwise.
pub(super) fn whole_stage(
    scenario: &ValidScenario,
    topology: Topology,
    schedule: Schedule,
    plan: Plan,
    fold: bool,
) -> Stage {
    let symmetry = match fold {
        true => whole_ring_symmetry(scenario, &topology, &schedule)
            .or_else(|| whole_tree_symmetry(scenario, &topology, &schedule))
            .or_else(|| Symmetry::find_strided(&topology, &schedule, scenario.policy())),
        false => None,
    };
    if let Some(symmetry) = symmetry {
        let zero = symmetry.channel_zero(&schedule);
        return folded_stage(scenario, topology, (symmetry, zero, Some(schedule)), plan);
    }
    let run = engine::Run::new(&topology, &schedule, scenario.policy(), None);
    Stage::Running { topology, schedule, run, plan, then: Then::Finish, unfold: None }
}

/// The run of the channels that stand for all (`zero`, as `symmetry` numbers them) on the links
/// folded into their orbits, turned by whole nodes where a ring turns (`rotate::whole_ring_rotated`),
/// and what expands its trace to the whole schedule's (`whole`; none for a sweep's point whose
/// whole is never built: `ring_point`, `tree_channels`).
pub(super) fn folded_stage(
    scenario: &ValidScenario,
    topology: Topology,
    (symmetry, zero, whole): (Symmetry, Schedule, Option<Schedule>),
    mut plan: Plan,
) -> Stage {
    plan.folded = true;
    plan.stride = symmetry.stride();
    plan.parts = symmetry.parts();
    plan.copies = symmetry.copies_on_same_links();
    let fold = symmetry.fold(&topology);
    let policy = scenario.policy();
    let rotated = super::rotate::whole_ring_rotated(scenario, &topology, &symmetry, &fold, &zero);
    // NCCL's two trees, where tree 1 is tree 0's mirror image: lane 0 alone, half the flows,
    // the two lanes' trace rebuilt from it bit for bit (`engine::mirror`).
    let mirrored = rotated.is_none().then(|| symmetry.mirrored(&topology, &zero)).flatten();
    let (schedule, run, rotation, mirror) = match (rotated, mirrored) {
        (Some(rotated), _) => {
            plan.rotated = Some(rotated.rotation.nodes);
            let run =
                engine::Run::new_folded(&topology, &rotated.schedule, policy, rotated.rotation.fold.clone());
            (rotated.schedule, run, Some((rotated.rotation, rotated.paths)), None)
        }
        (None, Some((lane0, mirrored))) => {
            let run = engine::Run::new_folded(&topology, &lane0, policy, mirrored.fold.clone());
            (lane0, run, None, Some(Box::new((mirrored, zero))))
        }
        (None, None) => {
            let run = engine::Run::new_folded(&topology, &zero, policy, fold);
            (zero, run, None, None)
        }
    };
    let unfold = Some(Box::new(Unfold { symmetry: Some(symmetry), whole, rotation, mirror }));
    Stage::Running { topology, schedule, run, plan, then: Then::Finish, unfold }
}

/// A ring's channel symmetry proved on its first step `one` at `protocol` (`Symmetry::find` on
/// one step's transfers) and repeated over `steps` steps (`Symmetry::repeated`): a ring run
/// whole, a ring prefix (`big::ring_symmetry`) and a ring's chart point (`ring_point`).
pub(super) fn first_step_symmetry(
    scenario: &ValidScenario,
    topology: &Topology,
    mut one: Schedule,
    protocol: crate::collective::Protocol,
    steps: u32,
) -> Option<Symmetry> {
    one.protocol = protocol;
    run_settings(&mut one, scenario);
    Some(Symmetry::find(topology, &one, scenario.policy())?.repeated(steps))
}

/// A ring run whole whose steps all look alike: its channel symmetry proved on its first step
/// and repeated over its steps, as a ring prefix's is (`big::ring_symmetry`; `Symmetry::find` on
/// the whole routes every transfer).
fn whole_ring_symmetry(
    scenario: &ValidScenario,
    topology: &Topology,
    schedule: &Schedule,
) -> Option<Symmetry> {
    let s = scenario.scenario();
    let n = scenario.n_ranks();
    let channels = scenario.channels();
    let alike =
        crate::collective::ring_steady_steps(s.collective, n, s.count(), channels) == Some(schedule.n_steps);
    let whole = schedule.transfers.len() as u64 == schedule.n_steps as u64 * n as u64 * channels as u64;
    if schedule.algorithm != Algorithm::Ring || schedule.n_channels != channels || !alike || !whole {
        return None;
    }
    let rings = &scenario.preset().rings;
    let one = crate::collective::ring_first_step(s.collective, s.nodes, rings, s.count(), channels)?;
    first_step_symmetry(scenario, topology, one, schedule.protocol, schedule.n_steps)
}

/// A tree run whole (Tree, NVLSTree) whose channels have equal lengths: its channel symmetry
/// proved on its one-chunk schedule and carried to every chunk (`Symmetry::first_channels`, as a
/// tree built from its first channels is), rather than by routing every transfer of the whole
/// (`find_strided` on 129,024 transfers was a sixth of an 8-node Tree point's time). A whole of
/// one chunk per channel is its own one-chunk schedule: `None`, so that `whole_stage` proves it
/// on the schedule at hand rather than building it again.
fn whole_tree_symmetry(
    scenario: &ValidScenario,
    topology: &Topology,
    schedule: &Schedule,
) -> Option<Symmetry> {
    // A Tree in its protocol's chunks may have several within Simple's one.
    let one_chunk = scenario.scenario().count() <= super::weigh::one_chunk_count(scenario)
        && (schedule.algorithm != Algorithm::Tree
            || super::weigh::tree_chunks_of(scenario, schedule.protocol) == 1);
    if schedule.n_channels != scenario.channels() || one_chunk {
        return None;
    }
    let (small, proof) = one_chunk_proof(scenario, topology, schedule.algorithm)?;
    proof.first_channels(&small, schedule)
}

/// A tree's channel symmetry proved on its one-chunk schedule (kept, for
/// `Symmetry::first_channels` to carry the proof to every chunk): Tree or NVLSTree AllReduce
/// whose channels have equal lengths; `None` otherwise. Where the collective is one chunk per
/// channel, that schedule is the whole, and the proof is on it (a chart's point then builds and
/// runs only the channels that stand for all, `tree_channels::tree_point`).
pub(super) fn one_chunk_proof(
    scenario: &ValidScenario,
    topology: &Topology,
    algorithm: Algorithm,
) -> Option<(Schedule, Symmetry)> {
    let s = scenario.scenario();
    let channels = scenario.channels();
    let small = super::weigh::one_chunk_count(scenario);
    let tree = matches!(algorithm, Algorithm::Tree | Algorithm::NvlsTree);
    if !tree || s.collective != Collective::AllReduce || s.count() % channels as u64 != 0 || s.count() < small
    {
        return None;
    }
    let rings = &scenario.preset().rings;
    // One chunk per channel: `small` is at most Simple's chunk a channel.
    let simple = (algorithm, crate::collective::Protocol::Simple);
    let one_chunk =
        crate::collective::schedule_with(s.collective, simple, s.nodes, rings, small, channels, s.root);
    let proof = Symmetry::find_strided(topology, &one_chunk, scenario.policy())?;
    Some((one_chunk, proof))
}

/// A sweep's point of a ring forced (`Job::point`, unhashed: the busbw chart's) whose steps all
/// look alike and whose channels fold: the tuner's bound from its first step routed (its bytes
/// times the steps, `Bound::ns_times`: the whole's to the bit), and channel 0 built alone
/// (`collective::ring_channel_zero`), the same run `whole_stage` makes of the whole without
/// building or routing the other channels (a 16-node ring's 260,096 transfers were most of its
/// point's time). The figures are the lean job's to the bit (`tests/sweep.rs`). Where it does not
/// apply (steps that differ, channels that do not fold) the exact plan builds the whole.
pub(super) fn ring_point(scenario: &ValidScenario, topology: Topology, lean: bool) -> Stage {
    let s = scenario.scenario();
    let (n, channels) = (scenario.n_ranks(), scenario.channels());
    let rings = &scenario.preset().rings;
    let count = s.count();
    let forced = s.algorithm == Some(Algorithm::Ring);
    let Some(total) =
        crate::collective::ring_steady_steps(s.collective, n, count, channels).filter(|_| forced)
    else {
        return start_exact(scenario, topology, lean);
    };
    // `Bound::ns_times` holds for steps in one phase (no schedule has more today).
    let first = crate::collective::ring_first_step(s.collective, s.nodes, rings, count, channels);
    let Some(one) = first.filter(|one| one.phase_starts.is_empty()) else {
        return start_exact(scenario, topology, lean);
    };
    let policy = super::weigh::static_policy(scenario);
    let mut router = crate::routing::Router::for_transfers(&topology, policy, &one.transfers);
    let mut bound = crate::plan::Bound::new(&topology, &one);
    bound.route(&topology, &one, &mut router, usize::MAX);
    let (plan, pick) =
        Plan::tuned(scenario, vec![(Algorithm::Ring, bound.ns_times(&topology, total as u64))]);
    let protocol = s.protocol.unwrap_or(pick.protocol);
    let Some(symmetry) = first_step_symmetry(scenario, &topology, one, protocol, total) else {
        return start_exact(scenario, topology, lean);
    };
    let Some(mut zero) = crate::collective::ring_channel_zero(s.collective, s.nodes, rings, count, channels)
    else {
        return start_exact(scenario, topology, lean);
    };
    zero.protocol = protocol;
    run_settings(&mut zero, scenario);
    folded_stage(scenario, topology, (symmetry, zero, None), plan)
}
