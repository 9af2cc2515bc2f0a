//! The page's state as a reducer: pure Rust, tested natively.
//!
//! The reducer owns the last *good* scenario and its simulation. A change that does not
//! validate leaves them as they were and sets `error` to what was wrong. Animation ticks only
//! move the playhead; the physics was done once, by the core, when the scenario changed.
//! The reducer reads no clock and polls no job: a long simulation and the busbw curve's points
//! run a slice at a time in the page's effects (`state::slices`), or in the page's workers
//! (the curve's points: `services::workers`), which report each slice or point as an `Action`
//! (`Worked`, `ShowReady`, `Curve`) that the reducer applies.

mod curve;

pub use curve::{Curve, CurveOutcome, PointKey, PointOutcome};

use super::page_job::{finish_job, now_ms, page_job, simulate_in_page, transfers_of, SYNC_TRANSFERS};
use crate::i18n::Lang;
use fabricscope::collective::nvls_tree::MAX_CHUNKS;
use fabricscope::collective::Algorithm;
use fabricscope::units::SimTime;
use fabricscope::{Job, Scenario, Simulation};
use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

/// The scenario the page opens on: one DGX H100, a 256 MiB AllReduce, NCCL's defaults except
/// NVLS, which is off so that the ring the lessons start from is what plays (NCCL would pick
/// NVLS at this size: the NVLS box, unticked, says so, and ticking it shows it).
pub fn page_demo() -> Scenario {
    Scenario { nvls: false, ..Scenario::default_demo() }
}

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
    /// in one point per `Action::Curve` so the page stays responsive while it grows.
    pub curve: Curve,
    pub playhead: SimTime,
    /// The step the reader stepped to with the step buttons: several steps may start at the
    /// same time (NVLS issues its reduce and multicast together), and the time alone would
    /// name only the last of them. Cleared whenever the playhead moves otherwise.
    pub step_pin: Option<u32>,
    pub playing: bool,
    pub speed: f64,
    /// Timestamp of the last animation frame [ms], while playing.
    pub last_frame_ms: Option<f64>,
    /// What was wrong with the last change, if it was rejected.
    pub error: Option<String>,
    /// What was wrong with the link the page opened on, and what is shown instead.
    pub link_problem: Option<String>,
    /// Something to tell that is not an error (a scenario restored from this browser), as a key
    /// of the page's strings, so that it reads in the language chosen after the page opened.
    pub notice: Option<crate::i18n::Text>,
    pub lang: Lang,
    pub dark: bool,
    /// Embedded in another page (`?embed`): the animation and results only, no controls.
    pub embed: bool,
    /// Play again from the start after holding the end a moment (`?embed&loop`).
    pub looping: bool,
    /// When the playhead reached the end, while looping [ms].
    pub end_reached_ms: Option<f64>,
    /// Link kinds a lesson step points at (the topology dims the rest); empty: none.
    pub focus: Focus,
    /// A/B compare: the scenario not being edited, and its simulation. `scenario` and `sim`
    /// are always the one the controls edit; `editing_b` says which of A and B that is.
    pub other: Option<(Scenario, Rc<Simulation>)>,
    pub editing_b: bool,
    /// Wall time the last simulation took in the page [ms] (a benchmark reads it).
    pub sim_ms: f64,
    /// A simulation too long to run between two frames, run a slice at a time by the page's
    /// slice effect (`Action::Worked`); the scenario shown stays until it is done.
    pub pending: Option<Rc<Pending>>,
    /// Wall time the pending simulation's slices took so far [ms], as the effect measured them.
    pub pending_ms: f64,
    /// The pending simulation's result, once there is one, until the next slice shows it.
    pub ready: Option<Result<Rc<Simulation>, String>>,
    /// The id the next pending simulation gets.
    pub next_pending_id: u64,
    /// Bumped by every slice, so the page re-renders (progress) and schedules the next one.
    pub work_tick: u64,
}

/// A scenario being simulated in slices. The page's slice effect polls `job`
/// (`slices::pending_slice`) and reports each slice as an `Action`; the reducer never runs it.
#[derive(Debug)]
pub struct Pending {
    /// Which pending run this is: a slice's report for an earlier one is ignored.
    pub id: u64,
    pub scenario: Scenario,
    pub job: RefCell<Job>,
    /// The scenario the page opened on (a link), not a change the reader made: the busbw
    /// chart's workers need not wait for it (`components::collectives::chart`).
    pub opening: bool,
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
    /// A point of busbw curve `generation` was simulated (by a worker, `services::workers`),
    /// or a slice of its job was done (by `slices::curve_slice`).
    Curve {
        generation: u64,
        key: PointKey,
        outcome: CurveOutcome,
    },
    /// A slice of pending simulation `id` was done in `ms` (by `slices::pending_slice`); the
    /// result, once there is one.
    Worked {
        id: u64,
        ms: f64,
        result: Option<Result<Rc<Simulation>, String>>,
    },
    /// NVLSTree's finer run of pending simulation `id`, given to a worker (`Job::finer_task`),
    /// came to `end`: the job takes it rather than running it on the main thread.
    FinerEnded {
        id: u64,
        task: Box<fabricscope::FinerTask>,
        end: Option<u64>,
    },
    /// Show pending simulation `id`'s result (a slice after the one that finished it).
    ShowReady {
        id: u64,
    },
    /// Drop the pending simulation; the scenario shown stays.
    Cancel,
    /// Start comparing (B starts as a copy of A, and is edited) or stop (A stays).
    Compare(bool),
    /// Edit B (true) or A (false) while comparing.
    EditB(bool),
    /// Report a problem found before a scenario could be built (e.g. unparsable input).
    Reject(String),
    DismissError,
    DismissLinkProblem,
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
    /// The state opening on `scenario`: simulated at once where that takes a few ms; else the
    /// same hardware on one node (or the page's demo) is shown while `scenario` runs in slices
    /// between frames, pending, as a changed scenario does: opening a link to 1,024 GPUs never
    /// freezes the page for the whole simulation.
    pub fn new(scenario: Scenario, lang: Lang, dark: bool) -> Result<AppState, String> {
        let valid = scenario.validate().map_err(|errors| join(&errors))?;
        if transfers_of(&valid) > SYNC_TRANSFERS {
            let job = page_job(&valid)?;
            let one_node = Scenario { nodes: 1, faults: Vec::new(), ..scenario.clone() };
            let stand_in = [one_node, page_demo()]
                .into_iter()
                .find_map(|s| s.validate().ok().filter(|v| transfers_of(v) <= SYNC_TRANSFERS))
                .map_or_else(|| page_demo().validate().map_err(|errors| join(&errors)), Ok)?;
            let mut state = AppState::now(stand_in, lang, dark)?;
            state.pending = Some(Rc::new(Pending { id: 0, scenario, job: RefCell::new(job), opening: true }));
            state.next_pending_id = 1;
            state.follow_request();
            return Ok(state);
        }
        AppState::now(valid, lang, dark)
    }

    /// The state opening on `valid`, simulated at once.
    fn now(valid: fabricscope::ValidScenario, lang: Lang, dark: bool) -> Result<AppState, String> {
        let scenario = valid.scenario().clone();
        let started = now_ms();
        let sim = Rc::new(simulate_in_page(&valid)?);
        let sim_ms = now_ms() - started;
        let curve = Curve::of(&scenario, 0);
        Ok(AppState {
            pending: None,
            pending_ms: 0.0,
            ready: None,
            next_pending_id: 0,
            work_tick: 0,
            sim_ms,
            scenario,
            sim,
            curve,
            playhead: SimTime::ZERO,
            step_pin: None,
            playing: false,
            speed: 1.0,
            last_frame_ms: None,
            error: None,
            link_problem: None,
            notice: None,
            lang,
            dark,
            embed: false,
            looping: false,
            end_reached_ms: None,
            focus: Focus::default(),
            other: None,
            editing_b: false,
        })
    }

    /// The end of the animation: of the run, or of the longer of A and B.
    pub fn end(&self) -> SimTime {
        let other = self.other.as_ref().map(|(_, sim)| sim.shown_end()).unwrap_or(SimTime::ZERO);
        self.sim.shown_end().max(other)
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
    fn show(&mut self, scenario: Scenario, sim: Rc<Simulation>, ms: f64) {
        self.sim_ms = ms;
        self.sim = sim;
        self.scenario = scenario;
        self.error = None;
        self.notice = None;
        self.playhead = SimTime::ZERO;
        self.step_pin = None;
        self.last_frame_ms = None;
        self.share_point();
    }

    /// The shown run as the busbw curve's point of its tree at its size, where it is that
    /// point's run: the tuner's pick (Tree or NVLSTree, which ran), unforced, on the curve's
    /// hardware, the point forcing it (the same run, the same figures: `tests.rs`). The chart's
    /// workers then need not simulate the link's own run again (`feed_curve` leaves NVLSTree at
    /// the size shown to the link's run): NVLSTree on 1,024 GPUs is the chart's costliest point.
    fn share_point(&mut self) {
        let algorithm = self.sim.schedule.algorithm;
        let tree = matches!(algorithm, Algorithm::Tree | Algorithm::NvlsTree);
        let key = (self.scenario.size_bytes, Some(algorithm));
        let forced = Scenario { algorithm: key.1, ..self.scenario.clone() };
        let same = super::slices::point_scenario(&self.curve.scenario, key) == forced;
        // The tuner's NVLSTree cut into fewer chunks than the model's, beyond the page at those
        // (`plan::tree_cap`), is not the forced point, which keeps them.
        let capped = self.sim.chunk_fit.is_some_and(|fit| fit.chunks < MAX_CHUNKS);
        let pick = self.scenario.algorithm.is_none() && self.sim.tuner_pick_not_run().is_none();
        if !tree || !pick || capped || !same {
            return;
        }
        let point = PointOutcome::Point(Box::new(fabricscope::sweep_point(&self.sim, false)));
        if let Some((curve, _)) = self.curve.with(self.curve.generation, key, point) {
            self.curve = curve;
        }
    }

    /// The scenario the reader last asked for: the pending one while it simulates, else the
    /// one shown. Every edit builds on it, so a change made while another still simulates
    /// keeps that one (4 nodes, then leaf-spine before 4 nodes is done: 4 nodes on leaf-spine).
    pub fn requested(&self) -> &Scenario {
        self.pending.as_ref().map_or(&self.scenario, |pending| &pending.scenario)
    }

    /// Where the playhead is: in the launch latency, in a step, or past the end of the run
    /// shown (`Simulation::shown_end`: a run whose time is fitted to NCCL's chunks ends later
    /// than that time, and is not done before).
    pub fn stage(&self) -> Stage {
        if self.playhead >= self.sim.shown_end() {
            Stage::Done
        } else {
            self.step_of(&self.sim).map(Stage::Step).unwrap_or(Stage::Launch)
        }
    }

    /// The step of `sim` at the playhead: the one stepped to, where it starts then, else the
    /// last one started by then.
    pub fn step_of(&self, sim: &Simulation) -> Option<u32> {
        self.step_pin
            .filter(|&k| sim.step_starts.get(k as usize) == Some(&self.playhead))
            .or_else(|| sim.step_at(self.playhead))
    }
}

pub(super) fn join(errors: &[fabricscope::ScenarioError]) -> String {
    errors.iter().map(|error| error.to_string()).collect::<Vec<_>>().join("; ")
}

/// Does a change of scenario leave the busbw curves as they are (only the size or the forced
/// algorithm changed; the curves show every algorithm anyway)?
pub fn same_hardware(a: &Scenario, b: &Scenario) -> bool {
    let plain = |s: &Scenario| Scenario { size_bytes: 0, algorithm: None, ..s.clone() };
    plain(a) == plain(b)
}

/// Identity, not contents, for the simulations and the curve: a change is a new `Rc`.
impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.sim, &other.sim)
            && self.curve.same(&other.curve)
            && self.scenario == other.scenario
            && self.playhead == other.playhead
            && self.step_pin == other.step_pin
            && self.playing == other.playing
            && self.looping == other.looping
            && self.end_reached_ms == other.end_reached_ms
            && self.speed == other.speed
            && self.error == other.error
            && self.link_problem == other.link_problem
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
        let stepping = matches!(action, Action::StepForward | Action::StepBack);
        let before = self.playhead;
        let next = AppState::apply(self, action);
        if !stepping && next.playhead != before && next.step_pin.is_some() {
            return Rc::new(AppState { step_pin: None, ..(*next).clone() });
        }
        next
    }
}

impl AppState {
    /// Each action's change (`reduce` also unpins the step when the playhead moves otherwise).
    fn apply(self: Rc<Self>, action: Action) -> Rc<Self> {
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
                        // A newer change replaces a pending one. A run this small (a few ms) is
                        // simulated here, at once, and not timed: the reducer reads no clock.
                        next.pending = None;
                        next.ready = None;
                        match finish_job(job) {
                            Ok(sim) => next.show(scenario, Rc::new(sim), 0.0),
                            Err(message) => next.error = Some(message),
                        }
                    }
                    Ok((_, job)) => {
                        next.pending = Some(Rc::new(Pending {
                            id: self.next_pending_id,
                            scenario,
                            job: RefCell::new(job),
                            opening: false,
                        }));
                        next.next_pending_id = self.next_pending_id + 1;
                        next.pending_ms = 0.0;
                        next.ready = None;
                        next.error = None;
                    }
                }
            }
            Action::Worked { id, ms, result } => {
                if self.pending.as_ref().is_none_or(|p| p.id != id) {
                    return self;
                }
                next.work_tick += 1;
                next.pending_ms += ms;
                next.ready = result;
            }
            Action::FinerEnded { id, task, end } => {
                if let Some(pending) = self.pending.as_ref().filter(|p| p.id == id) {
                    pending.job.borrow_mut().finer_done(&task, end);
                }
                return self;
            }
            Action::ShowReady { id } => {
                let Some(pending) = self.pending.as_ref().filter(|p| p.id == id) else { return self };
                let Some(result) = self.ready.clone() else { return self };
                next.work_tick += 1;
                next.pending = None;
                next.ready = None;
                match result {
                    Ok(sim) => {
                        // The page's opening run (a restored scenario too big to run at once)
                        // keeps what the opening had to say.
                        let notice = next.notice.take().filter(|_| pending.opening);
                        next.show(pending.scenario.clone(), sim, self.pending_ms);
                        next.notice = notice;
                    }
                    Err(message) => next.error = Some(message),
                }
            }
            Action::Cancel => {
                next.pending = None;
                next.ready = None;
            }
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
                next.other = Some((self.scenario.clone(), self.sim.clone()));
                next.scenario = scenario.clone();
                next.sim = sim.clone();
                next.editing_b = b;
            }
            Action::Curve { generation, key, outcome } => {
                // A report on a point the curve no longer has is stale.
                match outcome {
                    CurveOutcome::Working(job) => {
                        let Some(curve) = self.curve.working(generation, key, job) else { return self };
                        next.curve = curve;
                        next.work_tick += 1;
                    }
                    CurveOutcome::Done(outcome) => {
                        let Some((curve, stopped)) = self.curve.with(generation, key, outcome) else {
                            return self;
                        };
                        next.curve = curve;
                        if stopped.is_some() {
                            next.error = stopped;
                        }
                    }
                }
            }
            Action::Reject(message) => next.error = Some(message),
            Action::DismissError => next.error = None,
            Action::DismissLinkProblem => next.link_problem = None,
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
                // The next step by index: one that starts with this one is not skipped.
                let following = match self.stage() {
                    Stage::Launch => Some(0),
                    Stage::Step(step) => Some(step + 1),
                    Stage::Done => None,
                }
                .filter(|&k| (k as usize) < self.sim.step_starts.len());
                next.step_pin = following;
                next.playhead = following.map_or(self.end(), |k| self.sim.step_starts[k as usize]);
            }
            Action::StepBack => {
                next.playing = false;
                let previous = match self.stage() {
                    Stage::Step(step) if step > 0 => Some(step - 1),
                    Stage::Step(_) | Stage::Launch => None,
                    // From the end, back to the last step.
                    Stage::Done => self.sim.step_starts.len().checked_sub(1).map(|k| k as u32),
                };
                next.step_pin = previous;
                next.playhead = previous.map_or(SimTime::ZERO, |k| self.sim.step_starts[k as usize]);
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
                        // Looping holds the end for `LOOP_HOLD_MS`, then starts again.
                        match (self.looping, self.end_reached_ms) {
                            (false, _) => next.playing = false,
                            (true, None) => next.end_reached_ms = Some(now_ms),
                            (true, Some(at)) if now_ms - at >= LOOP_HOLD_MS => {
                                next.playhead = SimTime::ZERO;
                                next.end_reached_ms = None;
                            }
                            (true, Some(_)) => {}
                        }
                    }
                }
                next.last_frame_ms = Some(now_ms);
            }
            Action::SetLang(lang) => next.lang = lang,
            Action::SetDark(dark) => next.dark = dark,
        }
        next.follow_request();
        Rc::new(next)
    }

    /// The busbw curve of the hardware requested (`requested`): started again when that
    /// changed (a change of hardware, pending or shown at once, a cancel back to what is shown,
    /// A and B swapped), kept when only the size or the forced algorithm did.
    fn follow_request(&mut self) {
        if !same_hardware(&self.curve.scenario, self.requested()) {
            self.curve = self.curve.restart(self.requested());
        }
    }
}

/// How long a looping figure holds its end before it starts again [ms].
pub const LOOP_HOLD_MS: f64 = 1500.0;

#[cfg(test)]
mod tests;
