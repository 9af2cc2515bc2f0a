//! The page's state as a reducer: pure Rust, tested natively.
//!
//! The reducer owns the last *good* scenario and its simulation. A change that does not
//! validate leaves them as they were and sets `error` to what was wrong. Animation ticks only
//! move the playhead; the physics was done once, by the core, when the scenario changed.

use super::page_job::{
    chart_points, finish_job, now_ms, page_job, simulate_in_page, transfers_of, work, SYNC_TRANSFERS,
};
use crate::i18n::Lang;
use fabricscope::collective::Algorithm;
use fabricscope::units::SimTime;
use fabricscope::{Job, Scenario, Simulation, SweepPoint};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use yew::Reducible;

/// At 1× the whole collective plays in this many wall-clock seconds, whatever its simulated length.
pub const SECONDS_PER_RUN: f64 = 12.0;
/// Speeds the page offers.
pub const SPEEDS: [f64; 5] = [0.25, 0.5, 1.0, 2.0, 4.0];

/// A run: its scenario and its simulation.
pub type Run<'a> = (&'a Scenario, &'a Rc<Simulation>);

/// Where the playhead is in the collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Before the first transfer: NCCL's launch latency.
    Launch,
    Step(u32),
    Done,
}

#[derive(Clone, Debug)]
pub struct AppState {
    /// The last scenario that validated; what the page shows.
    pub scenario: Scenario,
    pub sim: Rc<Simulation>,
    /// busbw against size for the current hardware (independent of the message size), filled
    /// in one point per `Action::CurvePoint` so the page stays responsive while it grows.
    pub curve: Rc<Vec<SweepPoint>>,
    /// (size, algorithm) points of the curve still to simulate.
    pub curve_todo: Rc<Vec<(u64, Option<Algorithm>)>>,
    pub playhead: SimTime,
    pub playing: bool,
    pub speed: f64,
    /// Timestamp of the last animation frame [ms], while playing.
    pub last_frame_ms: Option<f64>,
    /// What was wrong with the last change, if it was rejected.
    pub error: Option<String>,
    /// Something to tell that is not an error (e.g. a scenario restored from this browser).
    pub notice: Option<String>,
    pub lang: Lang,
    pub dark: bool,
    /// Embedded in another page (`?embed`): the animation and results only, no controls.
    pub embed: bool,
    /// Link kinds a lesson step points at (the topology dims the rest); empty: none.
    pub focus: Focus,
    /// A/B compare: the scenario not being edited, and its simulation. `scenario` and `sim`
    /// are always the one the controls edit; `editing_b` says which of A and B that is.
    pub other: Option<(Scenario, Rc<Simulation>)>,
    pub editing_b: bool,
    /// Wall time the last simulation took in the page [ms] (a benchmark reads it).
    pub sim_ms: f64,
    /// A simulation too long to run between two frames, run a slice per `Action::Work`; the
    /// scenario shown stays until it is done.
    pub pending: Option<Rc<Pending>>,
    /// The job of the busbw curve's next point, run a slice per `Action::CurvePoint`.
    pub curve_job: Option<Rc<RefCell<Job>>>,
    /// Bumped by every slice, so the page re-renders (progress) and schedules the next one.
    pub work_tick: u64,
}

/// A scenario being simulated in slices.
#[derive(Debug)]
pub struct Pending {
    pub scenario: Scenario,
    pub job: RefCell<Job>,
    /// Wall time spent so far [ms].
    pub spent_ms: Cell<f64>,
    /// The result, once there is one, until the next slice shows it.
    pub ready: RefCell<Option<Result<Simulation, fabricscope::ScenarioError>>>,
}

/// What a lesson step points at in the topology.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Focus {
    /// Link kinds kept bright; the others are dimmed. Empty: nothing dimmed.
    pub kinds: Vec<fabricscope::topology::LinkKind>,
    /// Ranks whose GPUs are ringed.
    pub ranks: Vec<u32>,
}

pub enum Action {
    /// Replace the scenario (validated first; on error nothing else changes).
    SetScenario(Box<Scenario>),
    /// Work on the next size of the busbw curve for one slice.
    CurvePoint,
    /// Work on the pending simulation for one slice.
    Work,
    /// Drop the pending simulation; the scenario shown stays.
    Cancel,
    /// Start comparing (B starts as a copy of A, and is edited) or stop (A stays).
    Compare(bool),
    /// Edit B (true) or A (false) while comparing.
    EditB(bool),
    /// Report a problem found before a scenario could be built (e.g. unparsable input).
    Reject(String),
    DismissError,
    DismissNotice,
    TogglePlay,
    StepForward,
    StepBack,
    ToStart,
    ToEnd,
    Seek(SimTime),
    SetSpeed(f64),
    /// An animation frame at `now_ms` (requestAnimationFrame's timestamp).
    Frame {
        now_ms: f64,
    },
    SetLang(Lang),
    SetDark(bool),
}

impl AppState {
    pub fn new(scenario: Scenario, lang: Lang, dark: bool) -> Result<AppState, String> {
        let valid = scenario.validate().map_err(|errors| join(&errors))?;
        let started = now_ms();
        let sim = Rc::new(simulate_in_page(&valid)?);
        let sim_ms = now_ms() - started;
        let curve_todo = Rc::new(chart_points(&scenario));
        Ok(AppState {
            pending: None,
            curve_job: None,
            work_tick: 0,
            sim_ms,
            scenario,
            sim,
            curve: Rc::new(Vec::new()),
            curve_todo,
            playhead: SimTime::ZERO,
            playing: false,
            speed: 1.0,
            last_frame_ms: None,
            error: None,
            notice: None,
            lang,
            dark,
            embed: false,
            focus: Focus::default(),
            other: None,
            editing_b: false,
        })
    }

    /// The end of the animation: of the run, or of the longer of A and B.
    pub fn end(&self) -> SimTime {
        let other = self.other.as_ref().map(|(_, sim)| sim.summary.time).unwrap_or(SimTime::ZERO);
        self.sim.summary.time.max(other)
    }

    /// A and B, when comparing: (A's scenario and simulation, B's).
    pub fn ab(&self) -> Option<(Run<'_>, Run<'_>)> {
        let (other_scenario, other_sim) = self.other.as_ref()?;
        let current = (&self.scenario, &self.sim);
        let other = (other_scenario, other_sim);
        Some(if self.editing_b { (other, current) } else { (current, other) })
    }

    /// The step shown at the playhead; `None` while launching and once the collective is done.
    #[cfg(test)]
    pub fn current_step(&self) -> Option<u32> {
        match self.stage() {
            Stage::Step(step) => Some(step),
            _ => None,
        }
    }

    /// Shows `sim` of `scenario` (the change from `shown` that it simulates), from the start.
    fn show(&mut self, shown: &Scenario, scenario: Scenario, sim: Simulation, ms: f64) {
        self.sim_ms = ms;
        if !same_hardware(&scenario, shown) {
            self.curve = Rc::new(Vec::new());
            self.curve_todo = Rc::new(chart_points(&scenario));
            self.curve_job = None;
        }
        self.sim = Rc::new(sim);
        self.scenario = scenario;
        self.error = None;
        self.notice = None;
        self.playhead = SimTime::ZERO;
        self.last_frame_ms = None;
    }

    /// Where the playhead is: in the launch latency, in a step, or past the end.
    pub fn stage(&self) -> Stage {
        if self.playhead >= self.sim.summary.time {
            Stage::Done
        } else {
            self.sim.step_at(self.playhead).map(Stage::Step).unwrap_or(Stage::Launch)
        }
    }
}

fn join(errors: &[fabricscope::ScenarioError]) -> String {
    errors.iter().map(|error| error.to_string()).collect::<Vec<_>>().join("; ")
}

/// Does a change of scenario leave the busbw curves as they are (only the size or the forced
/// algorithm changed; the curves show every algorithm anyway)?
fn same_hardware(a: &Scenario, b: &Scenario) -> bool {
    let plain = |s: &Scenario| Scenario { size_bytes: 0, algorithm: None, ..s.clone() };
    plain(a) == plain(b)
}

/// Identity, not contents, for the simulations and the curve: a change is a new `Rc`.
impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.sim, &other.sim)
            && Rc::ptr_eq(&self.curve, &other.curve)
            && Rc::ptr_eq(&self.curve_todo, &other.curve_todo)
            && self.scenario == other.scenario
            && self.playhead == other.playhead
            && self.playing == other.playing
            && self.speed == other.speed
            && self.error == other.error
            && self.notice == other.notice
            && self.editing_b == other.editing_b
            && match (&self.other, &other.other) {
                (Some(a), Some(b)) => Rc::ptr_eq(&a.1, &b.1),
                (None, None) => true,
                _ => false,
            }
            && self.lang == other.lang
            && self.dark == other.dark
            && self.work_tick == other.work_tick
            && match (&self.pending, &other.pending) {
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::SetScenario(scenario) => {
                let scenario = *scenario;
                match scenario
                    .validate()
                    .map_err(|errors| join(&errors))
                    .and_then(|valid| page_job(&valid).map(|job| (valid, job)))
                {
                    // A rejected change leaves a pending one running.
                    Err(message) => next.error = Some(message),
                    Ok((valid, job)) if transfers_of(&valid) <= SYNC_TRANSFERS => {
                        // A newer change replaces a pending one.
                        next.pending = None;
                        let started = now_ms();
                        let mut job = job;
                        match finish_job(&mut job) {
                            Ok(sim) => next.show(&self.scenario, scenario, sim, now_ms() - started),
                            Err(message) => next.error = Some(message),
                        }
                    }
                    Ok((_, job)) => {
                        next.pending = Some(Rc::new(Pending {
                            scenario,
                            job: RefCell::new(job),
                            spent_ms: Cell::new(0.0),
                            ready: RefCell::new(None),
                        }));
                        next.error = None;
                    }
                }
            }
            Action::Work => {
                let Some(pending) = self.pending.clone() else { return self };
                next.work_tick += 1;
                // A result is shown a slice after the one that finished it, so that slice's
                // work and the redraw do not add up to one long freeze.
                let ready = pending.ready.borrow_mut().take();
                let Some(result) = ready else {
                    let started = now_ms();
                    let result = work(&mut pending.job.borrow_mut());
                    pending.spent_ms.set(pending.spent_ms.get() + now_ms() - started);
                    *pending.ready.borrow_mut() = result;
                    return Rc::new(next);
                };
                match result {
                    Ok(sim) => {
                        next.pending = None;
                        next.show(&self.scenario, pending.scenario.clone(), sim, pending.spent_ms.get());
                    }
                    Err(error) => {
                        next.pending = None;
                        next.error = Some(error.to_string());
                    }
                }
            }
            Action::Cancel => next.pending = None,
            Action::Compare(on) => {
                // A pending run belongs to the side being edited: switching drops it.
                next.pending = None;
                match (on, &self.other) {
                    (true, None) => {
                        next.other = Some((self.scenario.clone(), self.sim.clone()));
                        next.editing_b = true;
                    }
                    (false, Some((scenario, sim))) => {
                        if self.editing_b {
                            next.curve = Rc::new(Vec::new());
                            next.curve_todo = Rc::new(chart_points(scenario));
                            next.curve_job = None;
                            next.scenario = scenario.clone();
                            next.sim = sim.clone();
                        }
                        next.other = None;
                        next.editing_b = false;
                    }
                    _ => return self,
                }
                next.error = None;
            }
            Action::EditB(b) => {
                let Some((scenario, sim)) = &self.other else { return self };
                if b == self.editing_b {
                    return self;
                }
                next.pending = None;
                if !same_hardware(scenario, &self.scenario) {
                    next.curve = Rc::new(Vec::new());
                    next.curve_todo = Rc::new(chart_points(scenario));
                    next.curve_job = None;
                }
                next.other = Some((self.scenario.clone(), self.sim.clone()));
                next.scenario = scenario.clone();
                next.sim = sim.clone();
                next.editing_b = b;
            }
            Action::CurvePoint => {
                let Some((&(size, algorithm), rest)) = self.curve_todo.split_first() else { return self };
                let point = Scenario {
                    size_bytes: size,
                    algorithm: algorithm.or(self.scenario.algorithm),
                    ..self.scenario.clone()
                };
                let job = match &self.curve_job {
                    Some(job) => Ok(Some(job.clone())),
                    None => point
                        .validate()
                        .map_err(|errors| join(&errors))
                        .map(|valid| page_job(&valid).ok().map(|job| Rc::new(RefCell::new(job)))),
                };
                let done = match job {
                    // A point beyond what the page simulates is left off the chart.
                    Ok(None) => true,
                    Ok(Some(job)) => {
                        let result = work(&mut job.borrow_mut());
                        match result {
                            None => {
                                next.curve_job = Some(job);
                                next.work_tick += 1;
                                false
                            }
                            Some(Ok(sim)) => {
                                let mut curve = (*self.curve).clone();
                                curve.push(fabricscope::sweep_point(&sim, false));
                                next.curve = Rc::new(curve);
                                true
                            }
                            Some(Err(_)) => true,
                        }
                    }
                    // So is one beyond the engine's limit (a forced Tree on a huge cluster).
                    Err(_)
                        if point
                            .validate()
                            .is_err_and(|errors| errors.iter().all(|e| e.field == "nodes")) =>
                    {
                        true
                    }
                    // Sizes on the chart are all valid for a valid scenario; if one is not,
                    // the curve stops there and says why.
                    Err(message) => {
                        next.error = Some(message);
                        next.curve_todo = Rc::new(Vec::new());
                        next.curve_job = None;
                        return Rc::new(next);
                    }
                };
                if done {
                    next.curve_job = None;
                    next.curve_todo = Rc::new(rest.to_vec());
                }
            }
            Action::Reject(message) => next.error = Some(message),
            Action::DismissError => next.error = None,
            Action::DismissNotice => next.notice = None,
            Action::TogglePlay => {
                next.playing = !self.playing;
                next.last_frame_ms = None;
                if next.playing && self.playhead >= self.end() {
                    next.playhead = SimTime::ZERO;
                }
            }
            Action::StepForward => {
                next.playing = false;
                let following = self.sim.step_starts.iter().copied().find(|&start| start > self.playhead);
                next.playhead = following.unwrap_or(self.end());
            }
            Action::StepBack => {
                next.playing = false;
                next.playhead = match self.stage() {
                    Stage::Step(step) if step > 0 => self.sim.step_starts[step as usize - 1],
                    Stage::Step(_) | Stage::Launch => SimTime::ZERO,
                    // From the end, back to the last step.
                    Stage::Done => self.sim.step_starts.last().copied().unwrap_or(SimTime::ZERO),
                };
            }
            Action::ToStart => {
                next.playing = false;
                next.playhead = SimTime::ZERO;
            }
            Action::ToEnd => {
                next.playing = false;
                next.playhead = self.end();
            }
            Action::Seek(t) => {
                next.playhead = t.min(self.end());
                next.last_frame_ms = None;
            }
            Action::SetSpeed(speed) => next.speed = speed,
            Action::Frame { now_ms } => {
                if !self.playing {
                    return self;
                }
                if let Some(last) = self.last_frame_ms {
                    let dt_s = ((now_ms - last) / 1e3).clamp(0.0, 0.25);
                    let advance = self.end().as_ns() as f64 * dt_s * self.speed / SECONDS_PER_RUN;
                    let t = (self.playhead.as_ns() as f64 + advance).round() as u64;
                    next.playhead = SimTime(t.min(self.end().as_ns()));
                    if next.playhead >= self.end() {
                        next.playing = false;
                    }
                }
                next.last_frame_ms = Some(now_ms);
            }
            Action::SetLang(lang) => next.lang = lang,
            Action::SetDark(dark) => next.dark = dark,
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::page_job::chart_sizes;

    fn state() -> Rc<AppState> {
        Rc::new(AppState::new(Scenario::default_demo(), Lang::En, false).unwrap())
    }

    #[test]
    fn compare_keeps_a_and_edits_b_on_one_clock() {
        let s = state();
        let a_time = s.sim.summary.time;
        let s = s.reduce(Action::Compare(true));
        assert!(s.editing_b);
        let s = s.reduce(Action::SetScenario(Box::new(Scenario { nodes: 2, ..Scenario::default_demo() })));
        let ((a, a_sim), (b, b_sim)) = s.ab().unwrap();
        assert_eq!((a.nodes, b.nodes), (1, 2));
        assert_eq!(a_sim.summary.time, a_time);
        assert_eq!(s.end(), a_sim.summary.time.max(b_sim.summary.time));
        // Editing A again swaps which one the controls change; nothing is lost.
        let s = s.reduce(Action::EditB(false));
        assert_eq!(s.scenario.nodes, 1);
        let s = s.reduce(Action::SetScenario(Box::new(Scenario {
            size_bytes: 1 << 20,
            ..Scenario::default_demo()
        })));
        let ((a, _), (b, _)) = s.ab().unwrap();
        assert_eq!((a.size_bytes, b.nodes), (1 << 20, 2));
        // Stopping keeps A.
        let s = s.reduce(Action::EditB(true)).reduce(Action::Compare(false));
        assert!(s.other.is_none() && s.scenario.size_bytes == 1 << 20 && s.scenario.nodes == 1);
    }

    #[test]
    fn stepping_walks_the_steps_in_order() {
        let mut s = state();
        assert_eq!(s.stage(), Stage::Launch, "NCCL's launch latency comes first");
        s = s.reduce(Action::StepForward);
        assert_eq!(s.current_step(), Some(0));
        for want in 1..14 {
            s = s.reduce(Action::StepForward);
            assert_eq!(s.current_step(), Some(want));
        }
        s = s.reduce(Action::StepForward);
        assert_eq!(s.current_step(), None, "past the last step the collective is done");
        s = s.reduce(Action::StepBack);
        assert_eq!(s.current_step(), Some(13));
        s = s.reduce(Action::StepBack);
        assert_eq!(s.current_step(), Some(12));
    }

    #[test]
    fn a_bad_scenario_keeps_the_last_good_one() {
        let s = state();
        let good_time = s.sim.summary.time;
        let bad = Scenario { nodes: 99_999, ..Scenario::default_demo() };
        let s = s.reduce(Action::SetScenario(Box::new(bad)));
        assert!(s.error.as_deref().unwrap().starts_with("nodes: 99999 is out of range"));
        assert_eq!(s.scenario.nodes, 1);
        assert_eq!(s.sim.summary.time, good_time);
        let s = s.reduce(Action::SetScenario(Box::new(Scenario {
            size_bytes: 1 << 20,
            ..Scenario::default_demo()
        })));
        assert_eq!(s.error, None);
        assert!(s.sim.summary.time < good_time);
    }

    #[test]
    fn a_long_simulation_runs_in_slices_and_can_be_cancelled() {
        let s = state();
        let shown = s.sim.clone();
        let big = Scenario { nodes: 8, ..Scenario::default_demo() };
        let s = s.reduce(Action::SetScenario(Box::new(big.clone())));
        // 64,512 transfers: pending, and the last result still shown.
        assert!(s.pending.is_some() && Rc::ptr_eq(&s.sim, &shown));
        let cancelled = s.clone().reduce(Action::Cancel);
        assert!(
            cancelled.pending.is_none() && Rc::ptr_eq(&cancelled.sim, &shown) && cancelled.scenario != big
        );
        let mut s = s;
        let mut slices = 0;
        while s.pending.is_some() {
            s = s.reduce(Action::Work);
            slices += 1;
            assert!(slices < 1_000, "a pending simulation ends");
        }
        assert_eq!(s.scenario, big);
        assert_eq!(s.sim.summary.n_ranks, 64);
        assert_eq!(
            s.sim.hash_hex(),
            fabricscope::simulate(&big.validate().unwrap()).unwrap().hash_hex(),
            "sliced as whole"
        );
    }

    #[test]
    fn the_curve_fills_in_point_by_point_and_restarts_on_new_hardware() {
        let mut s = state();
        assert!(s.curve.is_empty());
        let total = s.curve_todo.len();
        for _ in 0..total {
            s = s.reduce(Action::CurvePoint);
        }
        assert_eq!(s.curve.len(), total);
        assert_eq!(total, 2 * chart_sizes().len(), "AllReduce: a Ring and a Tree curve");
        assert!(s.curve_todo.is_empty());
        assert!(s.curve.windows(2).all(|w| w[0].size_bytes <= w[1].size_bytes));
        // A new message size keeps the curve; new hardware starts it again.
        let s = s.reduce(Action::SetScenario(Box::new(Scenario {
            size_bytes: 1 << 20,
            ..Scenario::default_demo()
        })));
        assert_eq!(s.curve.len(), total);
        let s = s.reduce(Action::SetScenario(Box::new(Scenario { nodes: 2, ..Scenario::default_demo() })));
        assert!(s.curve.is_empty() && s.curve_todo.len() == total);
    }

    #[test]
    fn frames_advance_only_while_playing() {
        let s = state();
        let s = s.reduce(Action::Frame { now_ms: 0.0 });
        assert_eq!(s.playhead, SimTime::ZERO);
        let s = s
            .reduce(Action::TogglePlay)
            .reduce(Action::Frame { now_ms: 1000.0 })
            .reduce(Action::Frame { now_ms: 1100.0 });
        // 100 ms of a 12 s run.
        let want = (s.end().as_ns() as f64 * 0.1 / SECONDS_PER_RUN).round() as u64;
        assert_eq!(s.playhead.as_ns(), want);
        let mut s = s;
        for i in 0..200 {
            s = s.reduce(Action::Frame { now_ms: 1100.0 + 100.0 * i as f64 });
        }
        assert!(!s.playing, "playback stops at the end");
        assert_eq!(s.playhead, s.end());
    }
}
