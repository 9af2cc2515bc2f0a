//! The front door: simulate a scenario, summarise it, describe its steps, sweep sizes.

use crate::collective::{ChunkOp, Phase, Schedule, ELEM_BYTES};
use crate::engine;
use crate::scenario::{ScenarioError, ValidScenario};
use crate::topology::{build, LinkId, LinkKind, Topology};
use crate::trace::Trace;
use crate::units::SimTime;
use serde::Serialize;

/// Everything one scenario produces.
#[derive(Clone, Debug)]
pub struct Simulation {
    pub scenario: ValidScenario,
    pub topology: Topology,
    pub schedule: Schedule,
    pub trace: Trace,
    pub summary: Summary,
    /// The tuner's predictions and choice for this collective and size.
    pub tuning: crate::collective::Tuning,
    /// Each algorithm's bandwidth-bound time at this size [ns], and the intra-node link class:
    /// what `tuning_at` scales to other sizes.
    pub tuning_bounds: Vec<(crate::collective::Algorithm, f64)>,
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
    /// Bytes each link carried over the whole collective.
    pub link_bytes: Vec<f64>,
}

/// Collectives with more transfers than this run as a steady state where they can: a prefix of
/// their steps is simulated until the run provably repeats (`engine::period`), and the rest is
/// that repetition. Below it every transfer is simulated.
pub const STEADY_ABOVE: u64 = 250_000;

/// Steps of a ring the first steady-state attempt simulates; doubled while no steady state is
/// found, up to `MAX_STEADY_PREFIX` transfers.
pub const STEADY_FIRST_STEPS: u32 = 3 * crate::collective::NCCL_STEPS;

/// Steps of the prefix a steady state is looked for in: rings that settle do so within about
/// 16 steps (`tests/steady.rs`); ones that have not by then are not waited for.
pub const STEADY_SEARCH_STEPS: u32 = 4 * crate::collective::NCCL_STEPS;

/// A collective run as a steady state (`engine::period`): the simulated prefix's state at
/// `to_ns` was its state at `from_ns` shifted by `period_steps` steps, so the run from there
/// repeats that period `repeats` more times than the prefix shows, then ends as the prefix ends.
///
/// ```text
///   time   = prefix end + repeats × (to - from)
///   bytes  = prefix bytes + repeats × bytes of the flows issued in (from, to]    (per link)
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Steady {
    /// Steps of the whole collective, and of the simulated prefix.
    pub total_steps: u32,
    pub simulated_steps: u32,
    /// Transfers of the whole collective, and of the simulated prefix.
    pub total_transfers: u64,
    pub simulated_transfers: u64,
    pub from_ns: u64,
    pub to_ns: u64,
    pub period_steps: u32,
    /// Periods the whole collective has beyond the prefix.
    pub repeats: u64,
    /// The highest step first issued at or before `to_ns`.
    pub step_at_to: u32,
    /// When the prefix ended (its trace's end).
    pub prefix_end_ns: u64,
    /// Event batches the whole collective would take, counted as the prefix's plus the repeats'.
    pub batches: u64,
}

impl Steady {
    pub fn period_ns(&self) -> u64 {
        self.to_ns - self.from_ns
    }

    /// Time the repeats add.
    pub fn shift_ns(&self) -> u64 {
        self.repeats * self.period_ns()
    }

    /// A time of the whole collective as the time of the prefix that looks the same, and the
    /// steps by which the whole collective is ahead of the prefix then.
    pub fn fold(&self, t: SimTime) -> (SimTime, u32) {
        let t = t.0;
        if t <= self.to_ns {
            (SimTime(t), 0)
        } else if t > self.to_ns + self.shift_ns() {
            (SimTime(t - self.shift_ns()), (self.repeats * self.period_steps as u64) as u32)
        } else {
            // In (to + (m-1)T, to + mT]: the prefix's (from, to], m periods on.
            let m = (t - self.to_ns).div_ceil(self.period_ns());
            (SimTime(t - m * self.period_ns()), (m * self.period_steps as u64) as u32)
        }
    }

    /// The prefix step that step `step` of the whole collective repeats, and how many periods on.
    pub fn prefix_step(&self, step: u32) -> (u32, u64) {
        if step <= self.step_at_to {
            return (step, 0);
        }
        let m = ((step - self.step_at_to).div_ceil(self.period_steps) as u64).min(self.repeats);
        (step - (m * self.period_steps as u64) as u32, m)
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct StepIndex {
    transfers: u32,
    focus: Option<u32>,
    example: Option<u32>,
}

/// One pass over the schedule: each step's count, followed transfer and example.
fn index_steps(schedule: &crate::collective::Schedule, focus_rank: u32) -> Vec<StepIndex> {
    let mut index = vec![StepIndex::default(); schedule.n_steps as usize];
    let mut focus_is_rank = vec![false; index.len()];
    let mut example_is_rank = vec![false; index.len()];
    for (i, t) in schedule.transfers.iter().enumerate() {
        let Some(entry) = index.get_mut(t.step as usize) else { continue };
        let k = t.step as usize;
        entry.transfers += 1;
        let i = i as u32;
        if t.channel == 0 && (entry.focus.is_none() || (!focus_is_rank[k] && t.src == focus_rank)) {
            entry.focus = Some(i);
            focus_is_rank[k] = t.src == focus_rank;
        }
        if entry.example.is_none() || (!example_is_rank[k] && t.src == focus_rank) {
            entry.example = Some(i);
            example_is_rank[k] = t.src == focus_rank;
        }
    }
    index
}

/// The numbers nccl-tests prints, and the bottleneck.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub size_bytes: u64,
    pub n_ranks: u32,
    pub time: SimTime,
    /// size / time [GB/s] (nccl-tests `algbw`).
    pub algbw_gbyte_per_s: f64,
    /// algbw × the collective's factor [GB/s] (nccl-tests `busbw`).
    pub busbw_gbyte_per_s: f64,
    /// The link with the highest mean utilisation over the run.
    pub bottleneck: Option<LinkId>,
    pub bottleneck_utilisation: f64,
}

/// What the current step does, as data; the page and the CLI put it into words.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepInfo {
    /// 0-based.
    pub step: u32,
    pub n_steps: u32,
    pub phase: Phase,
    /// Transfers in this step (all channels).
    pub transfers: u32,
    /// One transfer of the step, the lowest-channel one sent by `focus_rank`.
    pub src: u32,
    pub dst: u32,
    pub chunk: u32,
    pub channel: u32,
    pub op: ChunkOp,
    pub bytes: u64,
    /// The slowest link class the example transfer crosses.
    pub via: LinkKind,
    /// Peer to peer, or up to or down from a switch that reduces (NVLS).
    pub hop: crate::collective::Hop,
}

/// Whether `scenario` runs as a steady state (`Steady`): a ring collective with more than
/// `STEADY_ABOVE` transfers, regular steps, routing that does not depend on the order flows
/// are issued in (not adaptive) and no in-network reduction to weigh. Returns the whole
/// collective's transfer count.
pub fn runs_steady(scenario: &crate::Scenario, n_ranks: u32, channels: u32, count: u64) -> Option<u64> {
    use crate::scenario::Collective;
    let ring = scenario.collective != Collective::AllReduce
        || scenario.algorithm.is_none_or(|a| a == crate::collective::Algorithm::Ring);
    let alike = crate::collective::ring_steady_steps(scenario.collective, n_ranks, count, channels).is_some();
    let transfers = ring_transfers(scenario.collective, n_ranks, count, channels);
    let adaptive = scenario.fabric.routing == Some(crate::catalog::Routing::Adaptive);
    // In-network reduction (NVLS, CollNet) may win the tuner's choice: weighed only exactly.
    (ring && alike && !adaptive && !scenario.in_network && transfers > STEADY_ABOVE).then_some(transfers)
}

/// Transfers of `collective` run as a ring: (n-1) steps of n per channel, twice for AllReduce.
fn ring_transfers(collective: crate::scenario::Collective, n: u32, count: u64, channels: u32) -> u64 {
    crate::collective::transfer_count(crate::scenario::Collective::AllGather, n, count, channels)
        * if collective == crate::scenario::Collective::AllReduce { 2 } else { 1 }
}

/// Builds, schedules and runs a scenario. Fails only when a collective too big to simulate
/// transfer by transfer reaches no steady state within the engine's limit (`Steady`).
pub fn simulate(scenario: &ValidScenario) -> Result<Simulation, ScenarioError> {
    simulate_as(scenario, Mode::Auto)
}

/// How `simulate_as` runs a collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// As a steady state where `runs_steady` says so, else every transfer.
    Auto,
    /// Every transfer.
    Exact,
    /// As a steady state wherever the collective is a ring with more steps than the first
    /// prefix (tests compare it with `Exact`).
    Steady,
}

/// `simulate`, choosing how.
pub fn simulate_as(scenario: &ValidScenario, mode: Mode) -> Result<Simulation, ScenarioError> {
    let mut job = Job::new(scenario, mode);
    loop {
        if let Some(result) = job.poll(u64::MAX) {
            return result;
        }
    }
}

/// A simulation done a slice at a time: `poll` handles up to a number of the engine's event
/// batches and returns the result once there is one, so a caller that must stay responsive
/// (the page) can run a long simulation between frames, show `progress` and drop the job to
/// cancel it. `simulate_as` polls one job to its end: the two give the same result.
pub struct Job {
    scenario: ValidScenario,
    mode: Mode,
    stage: Stage,
}

/// The planning a run's result is finished with.
struct Plan {
    tuning: crate::collective::Tuning,
    bounds: Vec<(crate::collective::Algorithm, f64)>,
    intra: LinkKind,
}

/// A steady-state attempt's figures (`Steady`).
#[derive(Clone, Copy)]
struct SteadyPlan {
    total_steps: u32,
    total_transfers: u64,
    unit: u64,
    protocol: crate::collective::Protocol,
}

/// What a finished engine run is for.
#[derive(Clone, Copy)]
enum Then {
    /// The whole collective: finish it.
    Finish,
    /// The steady-state search (a prefix of `STEADY_SEARCH_STEPS` steps).
    Search(SteadyPlan),
    /// The prefix fitted to the period the search found.
    Fitted(SteadyPlan),
}

enum Stage {
    /// The exact plan, an algorithm at a time: those left, and each built one's schedule and bound.
    Planning {
        topology: Topology,
        todo: Vec<crate::collective::Algorithm>,
        built: Vec<Schedule>,
        bounds: Vec<(crate::collective::Algorithm, f64)>,
    },
    Running {
        topology: Topology,
        schedule: Schedule,
        run: engine::Run,
        plan: Plan,
        then: Then,
    },
    Done(Option<Result<Simulation, ScenarioError>>),
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Job({:?}, {:.0}% of the current run)", self.mode, 100.0 * self.progress())
    }
}

impl Job {
    /// Plans the simulation (topology, the tuner's table, the schedule) and sets its first
    /// engine run up; `poll` runs it.
    pub fn new(scenario: &ValidScenario, mode: Mode) -> Job {
        let s = scenario.scenario();
        let count = s.size_bytes / ELEM_BYTES;
        let (n, channels) = (scenario.n_ranks(), scenario.channels());
        let ring_transfers = ring_transfers(s.collective, n, count, channels);
        let steady_total = match mode {
            Mode::Auto => runs_steady(s, n, channels, count),
            Mode::Exact => None,
            Mode::Steady => Some(ring_transfers),
        };
        let topology = build(scenario);
        let stage = match steady_total.map(|total| start_steady(scenario, topology.clone(), total)) {
            Some(Ok(stage)) => stage,
            // A ring the engine can simulate whole that does not settle runs whole.
            Some(Err(_)) if mode == Mode::Auto && ring_transfers <= crate::scenario::MAX_TRANSFERS => {
                start_exact(scenario, topology)
            }
            Some(Err(error)) => Stage::Done(Some(Err(error))),
            None => start_exact(scenario, topology),
        };
        Job { scenario: scenario.clone(), mode, stage }
    }

    /// Runs up to `batches` event batches; the result once the simulation is done (once: a
    /// later poll gives `None` again).
    pub fn poll(&mut self, batches: u64) -> Option<Result<Simulation, ScenarioError>> {
        let over = match &mut self.stage {
            Stage::Done(result) => return result.take(),
            Stage::Planning { .. } => {
                let Stage::Planning { topology, todo, built, bounds } =
                    std::mem::replace(&mut self.stage, Stage::Done(None))
                else {
                    return None;
                };
                self.stage = plan_step(&self.scenario, topology, todo, built, bounds);
                return None;
            }
            Stage::Running { topology, schedule, run, .. } => run.advance(topology, schedule, batches),
        };
        if !over {
            return None;
        }
        let Stage::Running { topology, schedule, run, plan, then } =
            std::mem::replace(&mut self.stage, Stage::Done(None))
        else {
            return None;
        };
        let (trace, period) = run.finish(&topology);
        let scenario = &self.scenario;
        let s = scenario.scenario();
        let Plan { tuning, bounds, intra } = plan;
        self.stage = match then {
            Then::Finish => Stage::Done(Some(Ok(finish(
                scenario, topology, schedule, trace, None, tuning, bounds, intra,
            )))),
            Then::Search(steady) | Then::Fitted(steady) => {
                let whole =
                    |p: &engine::period::Period| (steady.total_steps - schedule.n_steps) % p.steps == 0;
                match (period, then) {
                    (Some(period), _) if whole(&period) => Stage::Done(Some(steady_result(
                        scenario,
                        topology,
                        schedule,
                        trace,
                        period,
                        steady.total_steps,
                        steady.total_transfers,
                        steady.unit,
                        tuning,
                        bounds,
                        intra,
                    ))),
                    // Settled, but the periods do not come out whole: a prefix whose frontier
                    // (its last NCCL_STEPS steps) lies beyond every step issued by the period's
                    // end, and that ends whole periods before the collective does.
                    (Some(found), Then::Search(_)) => {
                        let mut steps =
                            (found.step + crate::collective::NCCL_STEPS + 1).max(STEADY_FIRST_STEPS);
                        steps += (steady.total_steps - steps.min(steady.total_steps)) % found.steps;
                        let count = s.size_bytes / ELEM_BYTES;
                        let fits = steps as u64 * steady.unit
                            <= crate::scenario::MAX_STEADY_PREFIX
                                .max(STEADY_SEARCH_STEPS as u64 * steady.unit);
                        match crate::collective::ring_prefix(
                            s.collective,
                            s.nodes,
                            &scenario.preset().rings,
                            count,
                            scenario.channels(),
                            steps,
                        )
                        .filter(|_| fits)
                        {
                            Some((mut fitted, _, probe)) => {
                                fitted.protocol = steady.protocol;
                                let run = engine::Run::new(
                                    &topology,
                                    &fitted,
                                    scenario.routing(),
                                    s.seed,
                                    Some(probe),
                                );
                                Stage::Running {
                                    topology,
                                    schedule: fitted,
                                    run,
                                    plan: Plan { tuning, bounds, intra },
                                    then: Then::Fitted(steady),
                                }
                            }
                            None => self.unsettled(steady, topology),
                        }
                    }
                    _ => self.unsettled(steady, topology),
                }
            }
        };
        self.poll(0)
    }

    /// No steady state: the whole ring where the engine can run it (`Mode::Auto`), else the error.
    fn unsettled(&self, steady: SteadyPlan, topology: Topology) -> Stage {
        if self.mode == Mode::Auto && steady.total_transfers <= crate::scenario::MAX_TRANSFERS {
            return start_exact(&self.scenario, topology);
        }
        Stage::Done(Some(Err(too_big(self.scenario.scenario(), steady.total_transfers, &format!(
            "this one did not within {STEADY_SEARCH_STEPS} steps (channels that share NVLink, or hops whose latencies differ across a large fabric, keep a ring from settling)"
        )))))
    }

    /// The share of the current engine run's flows finished, in [0, 1] (a steady state may take
    /// a second run, and a ring that does not settle a whole one after its search).
    pub fn progress(&self) -> f64 {
        match &self.stage {
            Stage::Done(_) => 1.0,
            Stage::Planning { .. } => 0.0,
            Stage::Running { run, .. } => {
                let (done, all) = run.progress();
                done as f64 / all.max(1) as f64
            }
        }
    }
}

/// Plans the exact run: every algorithm the tuner weighs (one schedule and its routed bound per
/// poll, `Stage::Planning`), then its pick, set up on the engine.
fn start_exact(scenario: &ValidScenario, topology: Topology) -> Stage {
    let s = scenario.scenario();
    let mut algorithms = vec![crate::collective::Algorithm::Ring];
    if s.collective == crate::scenario::Collective::AllReduce && scenario.n_ranks() > 1 {
        use crate::collective::Algorithm::{Hierarchical, Tree};
        // NVLS is weighed where the NVSwitch reduces and it is enabled, or forced.
        let nvls = crate::collective::nvls::supported(scenario)
            && (s.in_network || s.algorithm == Some(crate::collective::Algorithm::Nvls));
        let collnet = crate::collective::sharp_supported(scenario)
            && (s.in_network || s.algorithm == Some(crate::collective::Algorithm::CollNet));
        let more: &[_] = match (s.nodes > 1, nvls, collnet) {
            (true, _, true) => &[Tree, Hierarchical, crate::collective::Algorithm::CollNet],
            (true, _, false) => &[Tree, Hierarchical],
            (false, true, _) => &[Tree, crate::collective::Algorithm::Nvls],
            (false, false, _) => &[Tree],
        };
        algorithms.extend_from_slice(more);
    }
    algorithms.reverse();
    Stage::Planning { topology, todo: algorithms, built: Vec::new(), bounds: Vec::new() }
}

/// One more algorithm of the exact plan: its schedule and its bound; with the last, the tuner's
/// pick set up on the engine.
fn plan_step(
    scenario: &ValidScenario,
    topology: Topology,
    mut todo: Vec<crate::collective::Algorithm>,
    mut built: Vec<Schedule>,
    mut bounds: Vec<(crate::collective::Algorithm, f64)>,
) -> Stage {
    let s = scenario.scenario();
    let count = s.size_bytes / ELEM_BYTES;
    let rings = &scenario.preset().rings;
    // The tuner's table, from each algorithm's bandwidth bound on this topology: a schedule is
    // built in one poll and routed for its bound in the next.
    if built.len() > bounds.len() {
        let schedule = &built[bounds.len()];
        let mut router = crate::routing::Router::new(&topology, crate::catalog::Routing::Static, s.seed);
        bounds.push((
            schedule.algorithm,
            crate::collective::tuner::bandwidth_bound_ns(&topology, schedule, &mut router),
        ));
        return Stage::Planning { topology, todo, built, bounds };
    }
    if let Some(algorithm) = todo.pop() {
        built.push(crate::collective::schedule_with(
            s.collective,
            algorithm,
            s.nodes,
            rings,
            count,
            scenario.channels(),
            s.root,
        ));
        return Stage::Planning { topology, todo, built, bounds };
    }
    let intra = match scenario.preset().gpu_fabric {
        crate::catalog::NodeFabric::Pcie => LinkKind::Pcie,
        _ => LinkKind::NvLink,
    };
    let tuning =
        crate::collective::tune(s.collective, scenario.n_ranks(), s.nodes, s.size_bytes, &bounds, intra);
    // NCCL_ALGO and NCCL_PROTO narrow the tuner's choice; it picks among what is left.
    let pick =
        crate::collective::tuner::pick(&tuning, s.algorithm, s.protocol).copied().unwrap_or(*tuning.choice());
    let chosen = built.iter().position(|a| a.algorithm == pick.algorithm).unwrap_or(0);
    let mut schedule = built.swap_remove(chosen);
    schedule.protocol = s.protocol.unwrap_or(pick.protocol);
    let run = engine::Run::new(&topology, &schedule, scenario.routing(), s.seed, None);
    Stage::Running { topology, schedule, run, plan: Plan { tuning, bounds, intra }, then: Then::Finish }
}

/// Plans a ring collective too big to simulate transfer by transfer as a steady state: a prefix
/// of `STEADY_SEARCH_STEPS` steps in which the engine looks for a proved period
/// (`engine::period`); the rest is the arithmetic of `Steady`. The tuner weighs the ring (its
/// bound scales exactly with its identical steps) and Tree; if it picks Tree and Tree is within
/// the engine's limit, Tree runs exactly.
fn start_steady(
    scenario: &ValidScenario,
    topology: Topology,
    total_transfers: u64,
) -> Result<Stage, ScenarioError> {
    let s = scenario.scenario();
    let count = s.size_bytes / ELEM_BYTES;
    let rings = &scenario.preset().rings;
    let channels = scenario.channels();
    let intra = match scenario.preset().gpu_fabric {
        crate::catalog::NodeFabric::Pcie => LinkKind::Pcie,
        _ => LinkKind::NvLink,
    };
    let unit = scenario.n_ranks() as u64 * channels as u64;
    let steps_differ = || too_big(s, total_transfers, "its steps differ or are too few");
    let total_steps = crate::collective::ring_steady_steps(s.collective, scenario.n_ranks(), count, channels)
        .filter(|&total| total > STEADY_FIRST_STEPS)
        .ok_or_else(steps_differ)?;
    let mut router = crate::routing::Router::new(&topology, crate::catalog::Routing::Static, s.seed);
    let one_step = crate::collective::ring_first_step(s.collective, s.nodes, rings, count, channels)
        .ok_or_else(steps_differ)?;
    let ring_bound =
        crate::collective::tuner::bandwidth_bound_ns(&topology, &one_step, &mut router) * total_steps as f64;
    let mut bounds = vec![(crate::collective::Algorithm::Ring, ring_bound)];
    // Tree is weighed from a one-chunk-per-channel tree scaled to the size (a link's bytes
    // grow with the size, not with how it is cut), and runs only within the engine's limit.
    let tree_fits = 2
        * (scenario.n_ranks() as u64 - 1)
        * crate::collective::chain_chunks(count.div_ceil(channels as u64)) as u64
        * channels as u64
        <= crate::scenario::MAX_TRANSFERS;
    if s.collective == crate::scenario::Collective::AllReduce && s.nodes > 1 {
        let small = count.min(crate::collective::CHAIN_CHUNK_BYTES / ELEM_BYTES * channels as u64).max(1);
        let tree = crate::collective::schedule_with(
            s.collective,
            crate::collective::Algorithm::Tree,
            s.nodes,
            rings,
            small,
            channels,
            s.root,
        );
        let bound = crate::collective::tuner::bandwidth_bound_ns(&topology, &tree, &mut router)
            * count as f64
            / small as f64;
        bounds.push((crate::collective::Algorithm::Tree, bound));
    }
    let tuning =
        crate::collective::tune(s.collective, scenario.n_ranks(), s.nodes, s.size_bytes, &bounds, intra);
    let mut pick =
        crate::collective::tuner::pick(&tuning, s.algorithm, s.protocol).copied().unwrap_or(*tuning.choice());
    if pick.algorithm == crate::collective::Algorithm::Tree && !tree_fits {
        // Tree wins but is too big to simulate: the best ring row runs.
        pick = crate::collective::tuner::pick(&tuning, Some(crate::collective::Algorithm::Ring), s.protocol)
            .copied()
            .unwrap_or(pick);
    }
    let protocol = s.protocol.unwrap_or(pick.protocol);
    let plan = Plan { tuning, bounds, intra };
    if pick.algorithm == crate::collective::Algorithm::Tree && tree_fits {
        let mut tree = crate::collective::schedule_with(
            s.collective,
            crate::collective::Algorithm::Tree,
            s.nodes,
            rings,
            count,
            channels,
            s.root,
        );
        tree.protocol = protocol;
        let run = engine::Run::new(&topology, &tree, scenario.routing(), s.seed, None);
        return Ok(Stage::Running { topology, schedule: tree, run, plan, then: Then::Finish });
    }
    let search = STEADY_SEARCH_STEPS.min(total_steps - 1);
    let (mut schedule, _, probe) =
        crate::collective::ring_prefix(s.collective, s.nodes, rings, count, channels, search)
            .ok_or_else(steps_differ)?;
    schedule.protocol = protocol;
    let run = engine::Run::new(&topology, &schedule, scenario.routing(), s.seed, Some(probe));
    let steady = SteadyPlan { total_steps, total_transfers, unit, protocol };
    Ok(Stage::Running { topology, schedule, run, plan, then: Then::Search(steady) })
}

/// The whole collective from a prefix run and its proved period (`Steady`).
#[allow(clippy::too_many_arguments)]
fn steady_result(
    scenario: &ValidScenario,
    topology: Topology,
    schedule: Schedule,
    trace: Trace,
    period: engine::period::Period,
    total_steps: u32,
    total_transfers: u64,
    unit: u64,
    tuning: crate::collective::Tuning,
    bounds: Vec<(crate::collective::Algorithm, f64)>,
    intra: LinkKind,
) -> Result<Simulation, ScenarioError> {
    let repeats = ((total_steps - schedule.n_steps) / period.steps) as u64;
    // The flows issued in (from, to] are one period's: each repeat adds their bytes.
    let mut period_bytes = vec![0u64; topology.n_links()];
    let mut in_period = 0u64;
    let mut step_at_to = 0;
    for (transfer, flow) in schedule.transfers.iter().zip(&trace.flows) {
        if flow.issued.0 <= period.to {
            step_at_to = step_at_to.max(transfer.step);
        }
        if flow.issued.0 > period.from && flow.issued.0 <= period.to {
            in_period += 1;
            for link in &flow.path {
                period_bytes[link.index()] += flow.bytes;
            }
        }
    }
    if in_period != period.steps as u64 * unit {
        return Err(too_big(scenario.scenario(), total_transfers, "its period was not whole steps"));
    }
    let steady = Steady {
        total_steps,
        simulated_steps: schedule.n_steps,
        total_transfers,
        simulated_transfers: schedule.transfers.len() as u64,
        from_ns: period.from,
        to_ns: period.to,
        period_steps: period.steps,
        repeats,
        step_at_to,
        prefix_end_ns: trace.end.0,
        batches: trace.batches + repeats * period.batches,
    };
    let link_bytes =
        trace.link_bytes.iter().zip(&period_bytes).map(|(&b, &p)| (b as u64 + repeats * p) as f64).collect();
    Ok(finish(scenario, topology, schedule, trace, Some((steady, link_bytes)), tuning, bounds, intra))
}

/// The error for a collective too big to simulate whole that cannot run as a steady state.
fn too_big(s: &crate::Scenario, transfers: u64, why: &str) -> ScenarioError {
    ScenarioError {
        field: "nodes".into(),
        problem: format!(
            "{} is {transfers} transfers, more than the engine simulates one by one ({}); it runs as a steady state only once its steps repeat exactly, and {why}: use fewer nodes or fewer channels (NCCL_MAX_NCHANNELS)",
            s.collective.nccl_name(),
            crate::scenario::MAX_TRANSFERS
        ),
    }
}

/// The simulation around a run: step starts and index, summary.
#[allow(clippy::too_many_arguments)]
fn finish(
    scenario: &ValidScenario,
    topology: Topology,
    schedule: Schedule,
    trace: Trace,
    steady: Option<(Steady, Vec<f64>)>,
    tuning: crate::collective::Tuning,
    bounds: Vec<(crate::collective::Algorithm, f64)>,
    intra: LinkKind,
) -> Simulation {
    let (steady, link_bytes) = match steady {
        Some((steady, bytes)) => (Some(steady), bytes),
        None => (None, trace.link_bytes.clone()),
    };
    let end = SimTime(trace.end.0 + steady.map_or(0, |s: Steady| s.shift_ns()));
    let summary = summarise(scenario, &topology, end, &link_bytes);
    let focus_rank = focus_rank(&topology, &scenario.preset().rings[0]);
    // A step's start is when the followed rank's channel-0 transfer was issued, or, in a step
    // where that rank sends nothing (a broadcast's chain), the step's first channel-0 transfer.
    let mut followed = vec![SimTime(u64::MAX); schedule.n_steps as usize];
    let mut any = vec![SimTime(u64::MAX); schedule.n_steps as usize];
    for (transfer, flow) in schedule.transfers.iter().zip(&trace.flows) {
        if transfer.channel == 0 {
            let k = transfer.step as usize;
            any[k] = any[k].min(flow.issued);
            if transfer.src == focus_rank {
                followed[k] = followed[k].min(flow.issued);
            }
        }
    }
    let mut step_starts: Vec<SimTime> =
        followed.iter().zip(&any).map(|(&f, &a)| if f.0 == u64::MAX { a } else { f }).collect();
    // Keep them in order, so "the step at t" is well defined.
    for k in 1..step_starts.len() {
        step_starts[k] = step_starts[k].max(step_starts[k - 1]);
    }
    if let Some(steady) = &steady {
        // The whole collective's steps: each one a prefix step, whole periods later.
        step_starts = (0..steady.total_steps)
            .map(|step| {
                let (prefix_step, m) = steady.prefix_step(step);
                SimTime(step_starts[prefix_step as usize].0 + m * steady.period_ns())
            })
            .collect();
    }
    let step_index = index_steps(&schedule, focus_rank);
    Simulation {
        steady,
        link_bytes,
        step_index,
        scenario: scenario.clone(),
        topology,
        schedule,
        trace,
        summary,
        focus_rank,
        step_starts,
        tuning,
        tuning_bounds: bounds,
        tuning_intra: intra,
    }
}

/// The rank to follow: on several nodes the one whose channel-0 send leaves its node (the last
/// of the node's ring order, so the story shows the NIC), else the ring's first GPU.
fn focus_rank(topology: &Topology, intra: &[u32]) -> u32 {
    if topology.n_nodes() > 1 {
        intra[intra.len() - 1]
    } else {
        intra[0]
    }
}

fn summarise(scenario: &ValidScenario, topology: &Topology, end: SimTime, link_bytes: &[f64]) -> Summary {
    let size_bytes = scenario.scenario().size_bytes;
    let n_ranks = scenario.n_ranks();
    let seconds_ns = end.0.max(1) as f64;
    let algbw = size_bytes as f64 / seconds_ns;
    let mean = mean_utilisation(topology, end, link_bytes);
    let bottleneck = mean.iter().enumerate().filter(|(_, &u)| u > 0.0).fold(
        None,
        |best: Option<(usize, f64)>, (i, &u)| match best {
            Some((_, b)) if b >= u => best,
            _ => Some((i, u)),
        },
    );
    Summary {
        size_bytes,
        n_ranks,
        time: end,
        algbw_gbyte_per_s: if end.0 == 0 { 0.0 } else { algbw },
        busbw_gbyte_per_s: if end.0 == 0 {
            0.0
        } else {
            algbw * scenario.scenario().collective.busbw_factor(n_ranks)
        },
        bottleneck: bottleneck.map(|(i, _)| LinkId(i as u32)),
        bottleneck_utilisation: bottleneck.map(|(_, u)| u).unwrap_or(0.0),
    }
}

/// Mean utilisation of every link over `[0, end]`, in [0, 1].
fn mean_utilisation(topology: &Topology, end: SimTime, link_bytes: &[f64]) -> Vec<f64> {
    let span = end.0.max(1) as f64;
    topology
        .links()
        .map(|(id, link)| link_bytes[id.index()] / (link.capacity().bytes_per_ns() * span))
        .collect()
}

impl Simulation {
    /// When the whole collective ends.
    pub fn end(&self) -> SimTime {
        match &self.steady {
            Some(steady) => SimTime(self.trace.end.0 + steady.shift_ns()),
            None => self.trace.end,
        }
    }

    /// Steps of the whole collective.
    pub fn n_steps(&self) -> u32 {
        self.steady.map_or(self.schedule.n_steps, |s| s.total_steps)
    }

    /// Transfers of the whole collective.
    pub fn n_transfers(&self) -> u64 {
        self.steady.map_or(self.schedule.transfers.len() as u64, |s| s.total_transfers)
    }

    /// Event batches of the whole collective (counted, for a steady state, as the prefix's
    /// plus each repeat's).
    pub fn batches(&self) -> u64 {
        self.steady.map_or(self.trace.batches, |s| s.batches)
    }

    /// The cluster at time `t` of the whole collective: for a steady state, the prefix's frame
    /// that looks the same (`Steady::fold`).
    pub fn sample(&self, t: SimTime) -> crate::trace::Frame {
        let (prefix_t, _) = self.fold(t);
        let mut frame = self.trace.sample(prefix_t);
        frame.t = t;
        frame
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
        mean_utilisation(&self.topology, self.end(), &self.link_bytes)
    }

    /// The run's fingerprint: the trace's hash, and for a steady state also the figures that
    /// extend it (`Trace::hash`).
    pub fn hash_hex(&self) -> String {
        match &self.steady {
            None => self.trace.hash_hex(),
            Some(steady) => {
                let mut h = self.trace.hash();
                for value in [
                    steady.total_steps as u64,
                    steady.from_ns,
                    steady.to_ns,
                    steady.period_steps as u64,
                    steady.repeats,
                ] {
                    h = (h ^ value).wrapping_mul(0x0000_0100_0000_01b3);
                }
                for &bytes in &self.link_bytes {
                    h = (h ^ bytes.to_bits()).wrapping_mul(0x0000_0100_0000_01b3);
                }
                format!("{h:016x}")
            }
        }
    }

    /// The tuner's table at another message size, on the same hardware: a bandwidth bound is
    /// the busiest link's bytes over its capacity, so it scales with the size.
    pub fn tuning_at(&self, size_bytes: u64) -> crate::collective::Tuning {
        let s = self.scenario.scenario();
        let scale = size_bytes as f64 / s.size_bytes.max(1) as f64;
        let bounds: Vec<_> = self.tuning_bounds.iter().map(|&(a, ns)| (a, ns * scale)).collect();
        crate::collective::tune(
            s.collective,
            self.schedule.n_ranks,
            s.nodes,
            size_bytes,
            &bounds,
            self.tuning_intra,
        )
    }

    /// The step running at time `t`: the last one whose first transfer was issued by `t`.
    pub fn step_at(&self, t: SimTime) -> Option<u32> {
        let started = self.step_starts.partition_point(|&start| start <= t);
        (started > 0).then(|| started as u32 - 1)
    }

    /// Every link as CSV: what it joins, its kind and capacity, the bytes it carried, its mean
    /// and peak utilisation over the run.
    pub fn links_csv(&self) -> String {
        let mut out = String::from(
            "link,from,to,kind,capacity_gbyte_per_s,latency_ns,bytes,mean_utilisation,peak_utilisation\n",
        );
        let mean = self.mean_utilisation();
        for (id, link) in self.topology.links() {
            let capacity = link.capacity().bytes_per_ns();
            out.push_str(&format!(
                "{},{},{},{:?},{:.3},{},{:.0},{:.6},{:.6}\n",
                id.index(),
                self.topology.vertex_name(link.src),
                self.topology.vertex_name(link.dst),
                link.kind,
                capacity,
                link.latency_ns,
                self.link_bytes[id.index()],
                mean[id.index()],
                self.trace.link_peak[id.index()] / capacity
            ));
        }
        out
    }

    /// Every transfer as CSV, sorted by sending rank then time: each rank's timeline of sends
    /// (issued: dependencies done; started: data moving; finished) with what it moved. For a
    /// steady state, the simulated prefix's transfers (the rest repeat them, `Steady`).
    pub fn transfers_csv(&self) -> String {
        let mut out =
            String::from("rank,peer,step,channel,chunk,op,bytes,issued_ns,started_ns,finished_ns,links\n");
        let mut order: Vec<usize> = (0..self.schedule.transfers.len()).collect();
        order.sort_by_key(|&i| (self.schedule.transfers[i].src, self.trace.flows[i].issued, i));
        for i in order {
            let (t, f) = (&self.schedule.transfers[i], &self.trace.flows[i]);
            out.push_str(&format!(
                "{},{},{},{},{},{:?},{},{},{},{},{}\n",
                t.src,
                t.dst,
                t.step,
                t.channel,
                t.chunk,
                t.op,
                t.bytes(),
                f.issued.0,
                f.started.0,
                f.finished.0,
                f.path.len()
            ));
        }
        out
    }

    /// The followed transfer of `step`: `focus_rank`'s send on channel 0.
    /// For a steady state, the prefix's transfer that step repeats.
    pub fn focus_transfer(&self, step: u32) -> Option<u32> {
        let step = self.steady.map_or(step, |s| s.prefix_step(step).0);
        self.step_index.get(step as usize).and_then(|s| s.focus)
    }

    /// Describes `step`, using the transfer that `focus_rank` sends (the simulation's own
    /// `focus_rank` is indexed; another one is looked up).
    pub fn step_info(&self, step: u32, focus_rank: u32) -> Option<StepInfo> {
        if let Some(steady) = self.steady.filter(|s| step < s.total_steps) {
            // A later step of a steady state is a prefix step with the chunks moved on: every
            // ring collective's position p handles chunk (p - step - shift) mod n.
            let (prefix_step, _) = steady.prefix_step(step);
            let mut info = self.prefix_step_info(prefix_step, focus_rank)?;
            let n = self.schedule.n_ranks;
            info.chunk = (info.chunk + n - (step - prefix_step) % n) % n;
            info.step = step;
            info.n_steps = steady.total_steps;
            info.phase = self.schedule.phase(step);
            info.op = match info.phase {
                Phase::ReduceScatter => ChunkOp::Reduce,
                _ => ChunkOp::Copy,
            };
            return Some(info);
        }
        self.prefix_step_info(step, focus_rank)
    }

    fn prefix_step_info(&self, step: u32, focus_rank: u32) -> Option<StepInfo> {
        let (transfers, index) = if focus_rank == self.focus_rank {
            let entry = self.step_index.get(step as usize)?;
            (entry.transfers, entry.example? as usize)
        } else {
            let in_step = self.schedule.transfers.iter().enumerate().filter(|(_, t)| t.step == step);
            let index =
                in_step.clone().find(|(_, t)| t.src == focus_rank).or_else(|| in_step.clone().next())?.0;
            (in_step.count() as u32, index)
        };
        let example = &self.schedule.transfers[index];
        Some(StepInfo {
            step,
            n_steps: self.schedule.n_steps,
            // A tree step's phase is its direction: reducing up or broadcasting down.
            phase: match (self.schedule.algorithm, example.op) {
                (crate::collective::Algorithm::Tree, ChunkOp::Reduce) => Phase::Reduce,
                (crate::collective::Algorithm::Tree, ChunkOp::Copy) => Phase::Broadcast,
                // Hierarchical and CollNet: reducing phases, then copying ones.
                (
                    crate::collective::Algorithm::Hierarchical | crate::collective::Algorithm::CollNet,
                    ChunkOp::Reduce,
                ) => Phase::ReduceScatter,
                (
                    crate::collective::Algorithm::Hierarchical | crate::collective::Algorithm::CollNet,
                    ChunkOp::Copy,
                ) => Phase::AllGather,
                // NVLS alternates: the switch reduces (a reduce-scatter), then multicasts.
                (crate::collective::Algorithm::Nvls, _) if step % 2 == 0 => Phase::ReduceScatter,
                (crate::collective::Algorithm::Nvls, _) => Phase::AllGather,
                _ => self.schedule.phase(step),
            },
            transfers,
            src: example.src,
            dst: example.dst,
            chunk: example.chunk,
            channel: example.channel,
            op: example.op,
            bytes: example.bytes(),
            via: engine::path_class(&self.topology, &self.trace.flows[index].path),
            hop: example.hop,
        })
    }
}

/// The closed-form α-β prediction for this run and the figures it uses.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AlphaBeta {
    /// Latency of one step inside a node (NVLink path + protocol overhead) [ns].
    pub alpha_intra_ns: f64,
    /// Latency of one step that crosses the network [ns]; 0 on one node.
    pub alpha_inter_ns: f64,
    /// Steps of the slowest chain on each: a chunk's 2(n-1) hops around the ring.
    pub intra_steps: u32,
    pub inter_steps: u32,
    /// The slowest ring hop's data bandwidth per rank, all channels together, after the
    /// protocol's wire overhead [B/ns = GB/s].
    pub bandwidth_bytes_per_ns: f64,
    /// The protocol's launch latency [ns].
    pub base_ns: f64,
    /// `base + intra_steps·α_intra + inter_steps·α_inter + factor · S/B` [ns].
    pub predicted_ns: f64,
}

impl AlphaBeta {
    pub fn latency_ns(&self) -> f64 {
        self.base_ns
            + self.intra_steps as f64 * self.alpha_intra_ns
            + self.inter_steps as f64 * self.alpha_inter_ns
    }
}

impl Simulation {
    /// The α-β formula with this topology's figures, for the ring collectives: AllReduce
    /// `2(n-1)·α + 2(n-1)/n · S/B`, AllGather and ReduceScatter `(n-1)·α + (n-1)/n · S/B`;
    /// `None` for the others.
    ///
    /// `B`: a hop's bandwidth is its slowest link's capacity divided among the first step's
    /// transfers that cross that link; a channel moves at its slowest hop, and `B` is that rate
    /// times the number of channels. `α`: a chunk's data travels 2(n-1) consecutive ring hops,
    /// so the latency term is the slowest such chain: on one node `2(n-1)·α`; across nodes
    /// some of its hops cross the network and pay the network's α. Exact for one node; across
    /// nodes the engine finishes earlier, because it overlaps one step's latency with other
    /// steps' data.
    pub fn alpha_beta(&self) -> Option<AlphaBeta> {
        use crate::scenario::Collective;
        let collective = self.schedule.collective;
        if !matches!(collective, Collective::AllReduce | Collective::AllGather | Collective::ReduceScatter)
            || self.schedule.algorithm != crate::collective::Algorithm::Ring
        {
            return None;
        }
        let n = self.schedule.n_ranks;
        let first: Vec<usize> =
            (0..self.schedule.transfers.len()).filter(|&i| self.schedule.transfers[i].step == 0).collect();
        let mut sharing = vec![0u32; self.topology.n_links()];
        for &i in &first {
            for link in &self.trace.flows[i].path {
                sharing[link.index()] += 1;
            }
        }
        let mut channel_rate = vec![f64::INFINITY; self.schedule.n_channels as usize];
        for &i in &first {
            let rate = self.trace.flows[i]
                .path
                .iter()
                .map(|&l| self.topology.link(l).capacity().bytes_per_ns() / sharing[l.index()] as f64)
                .fold(f64::INFINITY, f64::min);
            let channel = self.schedule.transfers[i].channel as usize;
            channel_rate[channel] = channel_rate[channel].min(rate);
        }
        let slowest = channel_rate.iter().copied().fold(f64::INFINITY, f64::min);
        if n < 2 || !slowest.is_finite() {
            return None;
        }
        // Channel 0's hops in ring order: (latency, crosses the network).
        let hops: Vec<(u64, bool)> = first
            .iter()
            .filter(|&&i| self.schedule.transfers[i].channel == 0)
            .map(|&i| {
                let path = &self.trace.flows[i].path;
                (
                    engine::flow_latency_ns(
                        &self.topology,
                        path,
                        self.schedule.algorithm,
                        self.schedule.protocol,
                    ),
                    engine::path_class(&self.topology, path) == LinkKind::Network,
                )
            })
            .collect();
        // The chain from each start: whole turns of the ring plus a partial one, from prefix
        // sums over the ring twice (linear in the ranks; a frame redraws this).
        let chain = self.n_steps() as usize;
        let n_hops = hops.len();
        let (turns, rest) = (chain / n_hops, chain % n_hops);
        let mut prefix = vec![(0u64, 0u32); 2 * n_hops + 1];
        for k in 0..2 * n_hops {
            let (lat, net) = hops[k % n_hops];
            prefix[k + 1] = (prefix[k].0 + lat, prefix[k].1 + net as u32);
        }
        let (round, round_inter) = prefix[n_hops];
        let (mut worst, mut worst_inter) = (0u64, 0u32);
        for start in 0..n_hops {
            let sum = turns as u64 * round + prefix[start + rest].0 - prefix[start].0;
            let inter = turns as u32 * round_inter + prefix[start + rest].1 - prefix[start].1;
            if sum > worst {
                (worst, worst_inter) = (sum, inter);
            }
        }
        let alpha_intra = hops.iter().filter(|h| !h.1).map(|h| h.0).max().unwrap_or(0) as f64;
        let alpha_inter = hops.iter().filter(|h| h.1).map(|h| h.0).max().unwrap_or(0) as f64;
        let protocol = self.schedule.protocol;
        let data_per_wire = 1e6 / protocol.wire_bytes(1_000_000) as f64;
        let bandwidth = slowest * self.schedule.n_channels as f64 * data_per_wire;
        let size = self.schedule.size_bytes();
        let beta_ns = collective.busbw_factor(n) * size as f64 / bandwidth;
        let base = protocol.base_latency_ns(self.schedule.algorithm) as f64;
        Some(AlphaBeta {
            alpha_intra_ns: alpha_intra,
            alpha_inter_ns: alpha_inter,
            intra_steps: chain as u32 - worst_inter,
            inter_steps: worst_inter,
            bandwidth_bytes_per_ns: bandwidth,
            base_ns: base,
            predicted_ns: base + worst as f64 + beta_ns,
        })
    }
}

/// One row of a size sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepPoint {
    pub size_bytes: u64,
    /// Elements of 4-byte float.
    pub count: u64,
    pub time_us: f64,
    pub algbw_gbyte_per_s: f64,
    pub busbw_gbyte_per_s: f64,
    /// The algorithm and protocol it ran with.
    pub algorithm: crate::collective::Algorithm,
    pub protocol: crate::collective::Protocol,
    /// NCCL's model's prediction for that protocol [us].
    pub tuner_time_us: f64,
    /// `Trace::hash_hex` of the run: the page shows the same for the same scenario.
    pub trace_hash: String,
}

/// Sizes from `min` to `max` multiplying by `factor`, as nccl-tests' `-b -e -f` do; each rounded
/// down to a multiple of 4 bytes and at least 4.
pub fn sweep_sizes(min: u64, max: u64, factor: u64) -> Vec<u64> {
    let mut sizes = Vec::new();
    let mut size = min.max(4);
    while size <= max {
        sizes.push((size / ELEM_BYTES * ELEM_BYTES).max(ELEM_BYTES));
        match size.checked_mul(factor.max(2)) {
            Some(next) => size = next,
            None => break,
        }
    }
    sizes.dedup();
    sizes
}

/// Runs the scenario at every size.
pub fn sweep(scenario: &ValidScenario, sizes: &[u64]) -> Result<Vec<SweepPoint>, Vec<ScenarioError>> {
    sweep_hashed(scenario, sizes, true)
}

/// `sweep` without the trace hashes (`trace_hash` left empty): hashing every segment of a
/// large trace costs as much as a fifth of simulating it, and a chart does not show it.
pub fn sweep_unhashed(
    scenario: &ValidScenario,
    sizes: &[u64],
) -> Result<Vec<SweepPoint>, Vec<ScenarioError>> {
    sweep_hashed(scenario, sizes, false)
}

fn sweep_hashed(
    scenario: &ValidScenario,
    sizes: &[u64],
    hash: bool,
) -> Result<Vec<SweepPoint>, Vec<ScenarioError>> {
    sizes
        .iter()
        .map(|&size| {
            let sim = simulate(&scenario.with_size(size)?).map_err(|e| vec![e])?;
            Ok(sweep_point(&sim, hash))
        })
        .collect()
}

/// A simulation's row of a sweep (`trace_hash` empty unless `hash`).
pub fn sweep_point(sim: &Simulation, hash: bool) -> SweepPoint {
    SweepPoint {
        size_bytes: sim.summary.size_bytes,
        count: sim.summary.size_bytes / ELEM_BYTES,
        time_us: sim.summary.time.as_us(),
        algbw_gbyte_per_s: sim.summary.algbw_gbyte_per_s,
        busbw_gbyte_per_s: sim.summary.busbw_gbyte_per_s,
        algorithm: sim.schedule.algorithm,
        protocol: sim.schedule.protocol,
        tuner_time_us: sim
            .tuning
            .rows
            .iter()
            .find(|row| row.protocol == sim.schedule.protocol && row.algorithm == sim.schedule.algorithm)
            .map(|row| row.predicted_ns / 1e3)
            .unwrap_or(f64::NAN),
        trace_hash: if hash { sim.hash_hex() } else { String::new() },
    }
}
