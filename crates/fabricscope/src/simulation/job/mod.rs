//! A simulation as a state machine (`Job`): planning an algorithm at a time (its schedule and
//! routed bound for the tuner), then engine runs, polled a number of event batches at a time so
//! that a caller that must stay responsive can run it between frames. A ring too big to run
//! transfer by transfer runs as a steady state: a prefix until `engine::period` proves a period.

use super::big::{build_search, decide, ring_stage, start_search, start_steady, weigh};
use super::exact::{folded_stage, plan_step, ring_point, start_exact};
use super::fluid::{extrapolated, ChannelFold, Measure};
pub(super) use super::stage::{Plan, Stage, SteadyPlan, Then};
use super::steady::steady_result;
use super::summary::finish;
use super::Mode;
use super::Simulation;
use crate::collective::Schedule;
use crate::engine;
use crate::engine::fluid::ring_floor;
use crate::limits::{MAX_STEADY_PREFIX, MAX_TRANSFERS};
use crate::plan::{
    least_measured_transfers, ring_transfers, runs_big, ValidScenario, LEAST_MEASURED_STEPS,
    STEADY_FIRST_STEPS, STEADY_SEARCH_STEPS,
};
use crate::scenario::ScenarioError;
use crate::topology::Topology;
use crate::trace::Trace;

mod build;
mod refusals;
mod round;
mod run;

pub(super) use build::{intra_link, run_settings};
use refusals::{not_settled, FEWER};
pub(super) use refusals::{too_big, too_big_advised, unturned_advice};

/// A simulation done a slice at a time: `poll` handles up to a number of the engine's event
/// batches and returns the result once there is one, so a caller that must stay responsive
/// (the page) can run a long simulation between frames, show `progress` and drop the job to
/// cancel it. `simulate_as` polls one job to its end: the two give the same result.
pub struct Job {
    scenario: ValidScenario,
    mode: Mode,
    /// Most transfers a tree the big plan picks may have to run (`Budget::transfers`).
    tree_limit: u64,
    /// Most transfers of a ring's measuring run (`Budget::measured`).
    measured: u64,
    /// Most transfers of an AllToAll's channel 0 run for all (`Budget::copies`), and most
    /// pairs of one bounded rather than run (`Budget::bounded`).
    copies: (u64, u64),
    /// Weigh only the forced algorithm for the tuner's table (`lean`).
    lean: bool,
    /// Work a large trace's hash out in slices before the result (`hashed`).
    hashed: bool,
    /// For a sweep's point only (`point`): a run of fewer transfers standing for all is not
    /// expanded to the whole trace, and the result never leaves the `PointJob`.
    point: bool,
    /// A tree too big to build whole is shown from its first channels, never expanded
    /// (`showing_images`).
    images: bool,
    stage: Stage,
    /// NVLSTree's finer run, once the stages gave a result that needs it (`chunk_fit`), and
    /// natively, started ahead beside the model's run (`run`).
    fit: Option<Box<super::chunk_fit::Fit>>,
    ahead: Option<super::chunk_fit::Ahead>,
    /// The finer run was given out as a task (`finer_task`).
    offered: bool,
    /// The run's one-chunk schedule and symmetry, for the finer run (`Plan::proved`).
    proved: Option<Box<super::tree_channels::Proved>>,
    /// The scenario asked for, where the job runs a ring of fewer elements (`round`).
    asked: Option<Box<ValidScenario>>,
}

/// Flows a hashed job's poll hashes (about 6 ms natively, 8 ms in the page).
const HASH_FLOWS_PER_POLL: usize = 32_768;

impl Job {
    /// The first stage: a forced tree beyond `tree_limit` whole from its first channels
    /// (`tree_channels::forced_beyond`), an AllToAll beyond it from channel 0
    /// (`alltoall::beyond`), the big plan (`start_steady`) where the collective is too
    /// big to plan as every algorithm's whole schedule, else the exact plan.
    fn start(
        scenario: &ValidScenario,
        mode: Mode,
        (tree_limit, copies): (u64, (u64, u64)),
        (lean, point, hashed, images): (bool, bool, bool, bool),
    ) -> Stage {
        let s = scenario.scenario();
        let count = s.count();
        let (n, channels) = (scenario.n_ranks(), scenario.channels());
        let ring_transfers = ring_transfers(s.collective, n, count, channels);
        let steady_total = match mode {
            Mode::Auto => runs_big(s, n, channels, count, scenario.preset().gpu_fabric.reduces_in_switch()),
            Mode::Exact | Mode::Symmetric => None,
            Mode::Steady | Mode::Fluid => Some(ring_transfers),
        };
        let topology = scenario.topology();
        if let Some(stage) = super::tree_channels::forced_beyond(scenario, &topology, tree_limit, point) {
            return stage;
        }
        if matches!(mode, Mode::Auto | Mode::Symmetric) {
            if let Some(stage) = super::chain::beyond(scenario, &topology, tree_limit) {
                return stage;
            }
            let shown = (lean, point, images);
            if let Some(stage) = super::alltoall::beyond(scenario, &topology, (tree_limit, copies), shown) {
                return stage;
            }
        }
        match steady_total
            .map(|total| start_steady(scenario, topology.clone(), total, (tree_limit, lean, point || images)))
        {
            Some(Ok(stage)) => stage,
            Some(Err(error)) => Job::not_steady(scenario, mode, lean, error, topology),
            None => Job::exact(scenario, topology, (lean, tree_limit), light(point, hashed, mode)),
        }
    }

    /// The exact plan (`start_exact`); for a chart's point (`light`: a point unhashed, `Auto`)
    /// of a forced ring or tree, only the channels that run for all built where the channels
    /// fold (`ring_point`, `tree_channels::tree_point`).
    fn exact(scenario: &ValidScenario, topology: Topology, (lean, limit): (bool, u64), light: bool) -> Stage {
        if !light {
            return start_exact(scenario, topology, lean);
        }
        match super::tree_channels::tree_point(scenario, &topology, limit) {
            Some((symmetry, run, plan)) => folded_stage(scenario, topology, (symmetry, run, None), plan),
            None => ring_point(scenario, topology, lean),
        }
    }

    /// A big plan that cannot run as a steady state: a ring the engine can simulate whole runs
    /// whole, else the error.
    fn not_steady(
        scenario: &ValidScenario,
        mode: Mode,
        lean: bool,
        error: ScenarioError,
        topology: Topology,
    ) -> Stage {
        let s = scenario.scenario();
        let ring = ring_transfers(s.collective, scenario.n_ranks(), s.count(), scenario.channels());
        if matches!(mode, Mode::Auto | Mode::Fluid) && ring <= MAX_TRANSFERS {
            return start_exact(scenario, topology, lean);
        }
        Stage::Done(Some(Err(error)))
    }

    /// Runs up to `batches` event batches; the result once the simulation is done (once: a
    /// later poll gives `None` again).
    pub fn poll(&mut self, batches: u64) -> Option<Result<Simulation, ScenarioError>> {
        if let Some(fit) = &mut self.fit {
            return fit.advance(batches).then(|| self.fit.take().map(|fit| Ok(fit.finish()))).flatten();
        }
        match self.poll_stages(batches)? {
            Ok(mut sim) => {
                // A rounded ring's figures, given as the asked scenario's (`Simulation::rounded`).
                if let Some(asked) = self.asked.take() {
                    sim.rounded = Some(sim.scenario.scenario().count());
                    self.scenario = (*asked).clone();
                    sim.scenario = *asked;
                    let (time, method) = (sim.summary.time, sim.summary.method);
                    super::summary::refit(&mut sim, time, method);
                }
                let (ahead, proved) = (self.ahead.take(), self.proved.take());
                match super::chunk_fit::start(Box::new(sim), (self.mode, self.tree_limit), ahead, proved) {
                    Ok(fit) => {
                        self.fit = Some(fit);
                        None
                    }
                    Err(sim) => Some(Ok(*sim)),
                }
            }
            error => Some(error),
        }
    }

    /// `poll` up to the stages' result, before NVLSTree's finer run (`chunk_fit`).
    fn poll_stages(&mut self, batches: u64) -> Option<Result<Simulation, ScenarioError>> {
        // The flows a hash takes in: the trace's, or the whole's a run by symmetry stands for.
        let flows =
            |sim: &Simulation| sim.images.as_ref().map_or(sim.trace.flows.len() as u64, |i| i.total());
        let unhashed =
            |sim: &Simulation| flows(sim) > HASH_FLOWS_PER_POLL as u64 && sim.trace_hash.get().is_none();
        if self.hashed && matches!(&self.stage, Stage::Done(Some(Ok(sim))) if unhashed(sim)) {
            let Stage::Done(Some(Ok(sim))) = std::mem::replace(&mut self.stage, Stage::Done(None)) else {
                return None;
            };
            let hasher = sim.hasher();
            self.stage = Stage::Hashing { sim: Box::new(sim), hasher };
            return None;
        }
        let over = match &mut self.stage {
            Stage::Done(result) => return result.take(),
            Stage::Showing { .. } => {
                let Stage::Showing { topology, run, plan } =
                    std::mem::replace(&mut self.stage, Stage::Done(None))
                else {
                    return None;
                };
                let (schedule, trace, symmetry) = *run;
                let sim =
                    super::tree_channels::shown(&self.scenario, topology, (schedule, trace), symmetry, plan);
                self.stage = Stage::Done(Some(Ok(sim)));
                return self.poll(0);
            }
            Stage::Hashing { sim, hasher } => {
                let hash = hasher.feed(sim, HASH_FLOWS_PER_POLL)?;
                let Stage::Hashing { sim, .. } = std::mem::replace(&mut self.stage, Stage::Done(None)) else {
                    return None;
                };
                let _ = sim.trace_hash.set(hash);
                return Some(Ok(*sim));
            }
            Stage::Start => {
                self.round_alltoall();
                self.stage = Job::start(
                    &self.scenario,
                    self.mode,
                    (self.tree_limit, self.copies),
                    (self.lean, self.point, self.hashed, self.images),
                );
                // The plan is this poll's work; a refusal is its result.
                return match self.stage {
                    Stage::Done(_) => self.poll(0),
                    _ => None,
                };
            }
            Stage::Planning { .. } => {
                let Stage::Planning { topology, todo, built, bounds, pending } =
                    std::mem::replace(&mut self.stage, Stage::Done(None))
                else {
                    return None;
                };
                self.stage = plan_step(&self.scenario, self.mode, topology, (todo, built, bounds), pending);
                return None;
            }
            Stage::Weighing { topology, weighing } => {
                if !weigh(&self.scenario, topology, weighing) {
                    return None;
                }
                let Stage::Weighing { topology, weighing } =
                    std::mem::replace(&mut self.stage, Stage::Done(None))
                else {
                    return None;
                };
                self.stage = match decide(&self.scenario, topology.clone(), *weighing) {
                    Ok(stage) => stage,
                    Err(error) => Job::not_steady(&self.scenario, self.mode, self.lean, error, topology),
                };
                self.round();
                return match self.stage {
                    Stage::Done(_) => self.poll(0),
                    _ => None,
                };
            }
            Stage::BuildingTree { builder, .. } => {
                // A channel per poll, then the run set up in a poll of its own.
                if builder.built() < self.scenario.channels() {
                    builder.advance_to(self.scenario.channels());
                    return None;
                }
                let Stage::BuildingTree { topology, builder, plan, protocol } =
                    std::mem::replace(&mut self.stage, Stage::Done(None))
                else {
                    return None;
                };
                let mut tree = builder.finish();
                tree.protocol = protocol;
                run_settings(&mut tree, &self.scenario);
                self.stage = super::exact::whole_stage(&self.scenario, topology, tree, plan, true);
                return None;
            }
            Stage::TreeChannels { .. } => {
                let Stage::TreeChannels { topology, tree } =
                    std::mem::replace(&mut self.stage, Stage::Done(None))
                else {
                    return None;
                };
                self.stage = match super::tree_channels::advance(&self.scenario, topology, *tree) {
                    Ok(stage) => stage,
                    Err(failed) => {
                        let (error, topology) = *failed;
                        Job::not_steady(&self.scenario, self.mode, self.lean, error, topology)
                    }
                };
                self.round();
                return None;
            }
            Stage::Bounding { topology, bounding } => {
                if bounding.advance(topology) {
                    let Stage::Bounding { topology, bounding } =
                        std::mem::replace(&mut self.stage, Stage::Done(None))
                    else {
                        return None;
                    };
                    self.stage = bounding.finish(&self.scenario, topology);
                }
                return None;
            }
            Stage::Chain { .. } => {
                let Stage::Chain { topology, chain } = std::mem::replace(&mut self.stage, Stage::Done(None))
                else {
                    return None;
                };
                self.stage = super::chain::advance(&self.scenario, topology, chain, batches);
                return None;
            }
            Stage::Copies { topology, copies } => {
                if copies.advance(topology) {
                    let Stage::Copies { topology, copies } =
                        std::mem::replace(&mut self.stage, Stage::Done(None))
                    else {
                        return None;
                    };
                    self.stage = copies.finish(&self.scenario, topology);
                }
                return None;
            }
            // An AllToAll's flows all move at once, a batch touching every one: one a poll.
            Stage::Running { topology, schedule, run, .. } => {
                let one = schedule.collective == crate::scenario::Collective::AllToAll;
                run.advance(topology, schedule, if one { batches.min(1) } else { batches })
            }
            Stage::Expanding { unfolding, .. } => {
                if !unfolding.advance() {
                    return None;
                }
                let Stage::Expanding { topology, unfolding, period, plan, then, fold } =
                    std::mem::replace(&mut self.stage, Stage::Done(None))
                else {
                    return None;
                };
                let (schedule, trace) = unfolding.finish();
                return self.after_run(topology, (schedule, trace, period), plan, then, fold);
            }
            Stage::Search { steady, built, .. } => {
                if !build_search(&self.scenario, steady, built) {
                    return None;
                }
                let Stage::Search { topology, plan, steady, built } =
                    std::mem::replace(&mut self.stage, Stage::Done(None))
                else {
                    return None;
                };
                self.stage = start_search(&self.scenario, topology, plan, steady, (built, self.measured));
                return self.poll(0);
            }
            Stage::ToMeasure { .. } => {
                let Stage::ToMeasure { topology, shown, fold, plan, steady } =
                    std::mem::replace(&mut self.stage, Stage::Done(None))
                else {
                    return None;
                };
                self.stage = self.measure(topology, *shown, fold, steady, plan);
                return self.poll(0);
            }
            Stage::Measuring { topology, measure, .. } => {
                if !measure.advance(topology, batches) {
                    return None;
                }
                let Stage::Measuring { topology, shown, plan, steady, measure } =
                    std::mem::replace(&mut self.stage, Stage::Done(None))
                else {
                    return None;
                };
                // The measuring run's trace is freed here; the extrapolation is the next poll's.
                let nodes = measure.rotated;
                let measured = (measure.step_ns(&topology), nodes);
                self.stage = Stage::Measured { topology, shown, plan, steady, measured };
                return None;
            }
            Stage::Measured { .. } => {
                let Stage::Measured { topology, shown, plan, steady, measured } =
                    std::mem::replace(&mut self.stage, Stage::Done(None))
                else {
                    return None;
                };
                self.stage =
                    Stage::Done(Some(Ok(self.extrapolate(topology, *shown, plan, steady, measured))));
                return self.poll(0);
            }
        };
        if !over {
            return None;
        }
        let Stage::Running { topology, schedule, run, mut plan, then, mut unfold } =
            std::mem::replace(&mut self.stage, Stage::Done(None))
        else {
            return None;
        };
        self.proved = plan.proved.take();
        let (trace, period) = run.finish(&topology);
        // Lane 0 ran alone on the mirror's fold: the two lanes' trace, as their run records it.
        let (schedule, trace) = match unfold.as_mut() {
            Some(unfold) => unfold.unmirror(&topology, schedule, trace),
            None => (schedule, trace),
        };
        let Some(unfold) = unfold else {
            return self.after_run(topology, (schedule, trace, period), plan, then, None);
        };
        let n = self.scenario.n_ranks() as usize;
        let fold = unfold.symmetry.as_ref().map(|symmetry| {
            let paths = symmetry.channel_zero_paths();
            (symmetry.fold(&topology), paths[..n.min(paths.len())].to_vec())
        });
        // A point needs the run's times only, and the run that stood for all has the whole's:
        // its images finish when it does. Not a period's check, which counts the whole's flows.
        let timed_only = match then {
            Then::Finish | Then::Shown(_) => true,
            Then::Search(_) => period.is_none(),
            Then::Fitted(_) => false,
        };
        // A hashed point takes the whole trace's hash from the run's where only channels fold
        // (`Symmetry::expanded_hash`), and is done.
        let streamed = match (&unfold.symmetry, &unfold.rotation, then) {
            (Some(symmetry), None, Then::Finish) if self.point && self.hashed => {
                Some(symmetry.expanded_hash(&trace))
            }
            // A SendRecv's few nodes' sources of channel 0 for all (`turned`): never expanded.
            (Some(symmetry), Some((rotation, paths)), Then::Finish)
                if self.point && self.hashed && unfold.whole.is_none() && symmetry.copies_on_same_links() =>
            {
                Some(rotation.copies_hash(&trace, paths, schedule.n_steps, symmetry.share() as u32))
            }
            _ => None,
        };
        if self.point && timed_only && (!self.hashed || streamed.is_some()) {
            if let Some(hash) = streamed {
                let sim = finish(&self.scenario, topology, schedule, trace, None, plan);
                let _ = sim.trace_hash.set(hash);
                return Some(Ok(sim));
            }
            return self.after_run(topology, (schedule, trace, period), plan, then, fold);
        }
        // A tree from its first channels, shown as they ran.
        if let (true, None, None, Some(_)) = (self.images, &unfold.whole, &unfold.rotation, &unfold.symmetry)
        {
            let symmetry = unfold.symmetry.expect("matched");
            self.stage = Stage::Showing { topology, run: Box::new((schedule, trace, symmetry)), plan };
            return None;
        }
        // The trace is expanded to the whole schedule's a piece per poll from the next one.
        let Some(unfolding) = unfold.start(trace) else {
            self.stage = Stage::Done(Some(Err(self.unfoldable())));
            return self.poll(0);
        };
        self.stage = Stage::Expanding { topology, unfolding: Box::new(unfolding), period, plan, then, fold };
        None
    }

    /// A run from a tree's first channels whose trace would have to be expanded without its whole
    /// schedule: only a sweep's row runs one (`tree_channels`), whose figures need no trace.
    fn unfoldable(&self) -> ScenarioError {
        let s = self.scenario.scenario();
        ScenarioError {
            field: "nodes".into(),
            problem: format!(
                "{} here is run from the channels that stand for all, whose trace is not expanded: only a sweep's row (the command line's) can run it",
                s.collective.nccl_name()
            ),
        }
    }

    /// What follows an engine run, its trace the whole schedule's: the result, the measuring
    /// run, or another prefix.
    fn after_run(
        &mut self,
        topology: Topology,
        (schedule, trace, period): (Schedule, Trace, Option<engine::period::Period>),
        plan: Plan,
        then: Then,
        fold: Option<ChannelFold>,
    ) -> Option<Result<Simulation, ScenarioError>> {
        let scenario = &self.scenario;
        let s = scenario.scenario();
        self.stage = match then {
            Then::Finish => Stage::Done(Some(Ok(finish(scenario, topology, schedule, trace, None, plan)))),
            Then::Shown(steady) => {
                Stage::ToMeasure { topology, shown: Box::new((schedule, trace)), fold, plan, steady }
            }
            Then::Search(steady) | Then::Fitted(steady) => {
                let whole =
                    |p: &engine::period::Period| (steady.total_steps - schedule.n_steps) % p.steps == 0;
                match (period, then) {
                    (_, Then::Search(steady)) if self.mode == Mode::Fluid => {
                        Stage::ToMeasure { topology, shown: Box::new((schedule, trace)), fold, plan, steady }
                    }
                    (Some(period), _) if whole(&period) => Stage::Done(Some(steady_result(
                        scenario, topology, schedule, trace, period, steady, plan,
                    ))),
                    // Settled, but the periods do not come out whole: a prefix whose frontier
                    // (its last NCCL_STEPS steps) lies beyond every step issued by the period's
                    // end, and that ends whole periods before the collective does.
                    (Some(found), Then::Search(_)) => {
                        let mut steps =
                            (found.step + crate::collective::NCCL_STEPS + 1).max(STEADY_FIRST_STEPS);
                        steps += (steady.total_steps - steps.min(steady.total_steps)) % found.steps;
                        let count = s.count();
                        let fits = steps as u64 * steady.unit
                            <= MAX_STEADY_PREFIX.max(STEADY_SEARCH_STEPS as u64 * steady.unit);
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
                                run_settings(&mut fitted, scenario);
                                ring_stage(
                                    scenario,
                                    topology,
                                    fitted,
                                    Some(probe),
                                    plan,
                                    Then::Fitted(steady),
                                )
                            }
                            None => self.unsettled(steady, topology, (&not_settled(), FEWER)),
                        }
                    }
                    // No proved period: extrapolated where the ring is too big to run whole (or
                    // the caller asked for a steady state), else `unsettled` runs it whole.
                    (None, Then::Search(steady))
                        if self.mode == Mode::Steady
                            || (self.mode == Mode::Auto && steady.total_transfers > MAX_TRANSFERS) =>
                    {
                        Stage::ToMeasure { topology, shown: Box::new((schedule, trace)), fold, plan, steady }
                    }
                    _ => self.unsettled(steady, topology, (&not_settled(), FEWER)),
                }
            }
        };
        // Setting the measuring run up waits for the next poll: a poll is one bounded piece.
        if matches!(self.stage, Stage::ToMeasure { .. }) {
            return None;
        }
        self.poll(0)
    }

    /// No proved period: a longer prefix measures the ring's per-step time (`fluid`), or, where
    /// the budget holds too few steps to measure, `unsettled`.
    fn measure(
        &self,
        topology: Topology,
        shown: (Schedule, Trace),
        fold: Option<ChannelFold>,
        steady: SteadyPlan,
        plan: Plan,
    ) -> Stage {
        let (protocol, steps) = (steady.protocol, steady.total_steps);
        match Measure::start(&self.scenario, &topology, protocol, steps, (fold, self.measured)) {
            Some(measure) => Stage::Measuring { topology, shown: Box::new(shown), plan, steady, measure },
            None => {
                let least = least_measured_transfers(self.scenario.n_ranks() as u64);
                let why = format!(
                    "its steps differ, and measuring their time would take {least} transfers ({LEAST_MEASURED_STEPS} steps of channel 0), more than {}, where turning the ring by whole nodes does not keep its routes (leaf groups or pods of different sizes, a fault)",
                    self.measured
                );
                let advice = unturned_advice(self.scenario.preset().gpus_per_node, self.measured);
                self.unsettled(steady, topology, (&why, &advice))
            }
        }
    }

    /// The ring extrapolated from its shown prefix by the measured per-step time, never below
    /// the floor its links and latencies prove (`engine::fluid`).
    fn extrapolate(
        &self,
        topology: Topology,
        shown: (Schedule, Trace),
        mut plan: Plan,
        steady: SteadyPlan,
        (measured_ns, measured_nodes): (f64, Option<u32>),
    ) -> Simulation {
        let s = self.scenario.scenario();
        let rings = &self.scenario.preset().rings;
        let mut one_step = crate::collective::ring_first_step(
            s.collective,
            s.nodes,
            rings,
            s.count(),
            self.scenario.channels(),
        )
        .expect("a ring that ran as a steady state has a first step");
        one_step.protocol = steady.protocol;
        run_settings(&mut one_step, &self.scenario);
        let floor = ring_floor(&topology, &one_step, self.scenario.policy());
        plan.extrapolated = true;
        let totals = (steady.total_steps, steady.total_transfers);
        extrapolated(&self.scenario, topology, shown, totals, (measured_ns, measured_nodes, &floor), plan)
    }

    /// No steady state: the whole ring where the engine can run it (`Mode::Auto`), else the error.
    fn unsettled(&self, steady: SteadyPlan, topology: Topology, (why, advice): (&str, &str)) -> Stage {
        if matches!(self.mode, Mode::Auto | Mode::Fluid) && steady.total_transfers <= MAX_TRANSFERS {
            let light = light(self.point, self.hashed, self.mode);
            return Job::exact(&self.scenario, topology, (self.lean, self.tree_limit), light);
        }
        let s = self.scenario.scenario();
        Stage::Done(Some(Err(too_big_advised(s, steady.total_transfers, why, advice))))
    }

    /// The share of the current engine run's flows finished, in [0, 1] (a steady state may take
    /// a second run, a ring that does not settle a whole one after its search, and NVLSTree a
    /// finer one, `chunk_fit`).
    pub fn progress(&self) -> f64 {
        if let Some(fit) = &self.fit {
            return fit.progress();
        }
        match &self.stage {
            Stage::Done(_) => 1.0,
            Stage::Bounding { bounding, .. } => bounding.progress(),
            Stage::Chain { chain, .. } => chain.progress(self.scenario.channels()),
            Stage::Start
            | Stage::Planning { .. }
            | Stage::Weighing { .. }
            | Stage::Search { .. }
            | Stage::TreeChannels { .. }
            | Stage::Copies { .. }
            | Stage::BuildingTree { .. }
            | Stage::ToMeasure { .. }
            | Stage::Measuring { .. }
            | Stage::Measured { .. } => 0.0,
            Stage::Showing { .. } => 1.0,
            Stage::Running { run, .. } => {
                let (done, all) = run.progress();
                done as f64 / all.max(1) as f64
            }
            Stage::Hashing { sim, hasher } => hasher.progress(sim),
            Stage::Expanding { .. } => 1.0,
        }
    }
}

/// Whether a job runs light (`Job::exact`): a chart's point (unhashed, `Auto`), which builds
/// only the channels that run for all of a forced ring or tree.
fn light(point: bool, hashed: bool, mode: Mode) -> bool {
    point && !hashed && mode == Mode::Auto
}
