//! The training view's state: the last valid job, its simulated step, the playhead over that
//! step, and the comparisons (other fabrics, more nodes) that fill in one run per idle tick.
//!
//! Like the collectives view (`state::collectives`), it keeps the last *valid* job: a rejected change sets
//! `error` and nothing else. A valid job is simulated off the main thread (`pending`, a
//! `TrainJob` a worker runs, or the view polls between frames where workers cannot run); the
//! last step stays shown until the new one is done. The view opens with its job pending and
//! nothing shown but the controls until its first step is done.

use crate::i18n::Lang;
use fabricscope::train::layout::Dim;
use fabricscope::train::{on_fabric, FabricRow, TrainJob, TrainReport, TrainScenario, ValidTrain, FABRICS};
use fabricscope::ScenarioError;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

/// How long the animation of one step takes at speed 1 [ms of wall time].
pub const STEP_MS: f64 = 12_000.0;

/// DP multiples the scaling curve tries (nodes grow with DP), while the cluster stays within
/// what the page simulates (`MAX_PAGE_GPUS`).
pub const SCALING: [u32; 4] = [1, 2, 4, 8];

/// Most GPUs the training view simulates (it took 64 nodes): the step runs in a worker
/// (`worker::train_step`), but the main thread validates each change, which routes the first step
/// of every TP and DP group to find the groups that stand for all: at most 9 ms natively at 2,048
/// GPUs, 18 ms at 4,096 and 122 ms at 16,384 (GPT-3 175B, TP 8 × PP 16); and beyond, some steps
/// take minutes in the engine (GPT-3 175B over RoCE on 4,096 GPUs: 86 s natively on 2 cores,
/// 148 s on one, every DP ring's flows in one max-min component under ECMP). The CLI takes more.
pub const MAX_PAGE_GPUS: u32 = 2048;

/// The GPUs of `job`'s cluster, where its node is one validation knows.
pub fn gpus_of(job: &TrainScenario) -> Option<u32> {
    let g = job.cluster.validate_fabric().ok()?.preset().gpus_per_node;
    Some(g.saturating_mul(job.cluster.nodes))
}

/// Whether the page simulates `job`'s cluster (`MAX_PAGE_GPUS`); a node validation refuses is
/// left to say so itself.
pub fn within_page(job: &TrainScenario) -> bool {
    gpus_of(job).is_none_or(|gpus| gpus <= MAX_PAGE_GPUS)
}

#[derive(Clone, Debug)]
pub struct TrainState {
    pub job: TrainScenario,
    pub valid: Rc<ValidTrain>,
    /// The step shown: none until the first one is done.
    pub report: Option<Rc<TrainReport>>,
    /// Playhead in the step [ns].
    pub playhead: f64,
    pub playing: bool,
    pub last_frame_ms: Option<f64>,
    /// Which groups the placement view outlines.
    pub groups: Dim,
    /// The job on every fabric, once computed.
    pub fabrics: Rc<Option<Vec<FabricOutcome>>>,
    /// The fabric rows done so far, one run per idle tick, until `fabrics` has them all.
    pub fabric_rows: Rc<Vec<FabricOutcome>>,
    /// (GPUs, tokens/s, efficiency) at growing DP, one point per tick.
    pub scaling: Rc<Vec<(u32, f64, f64)>>,
    pub scaling_todo: Rc<Vec<u32>>,
    /// Why the scaling table stopped short of its last point (a point the engine cannot run):
    /// said under the table, not as an error, since the reader changed nothing.
    pub scaling_stop: Option<String>,
    pub error: Option<String>,
    /// What was wrong with the link the view opened on, and what is shown instead.
    pub link_problem: Option<String>,
    pub lang: Lang,
    pub dark: bool,
    /// A job kept as "A" to compare the current one with.
    pub pinned: Option<Rc<(TrainScenario, TrainReport)>>,
    /// The valid job being simulated (from the start, or a change), and the slices the view ran
    /// of it so far where workers cannot run.
    pub pending: Option<Rc<RefCell<TrainJob>>>,
    pub pending_slices: u32,
    /// The comparison being simulated (a fabric row or a scaling point), a slice at a time.
    pub extra: Option<(Extra, Rc<RefCell<TrainJob>>)>,
    pub extra_slices: u32,
}

/// What a comparison job is for.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Extra {
    Fabric(fabricscope::catalog::Technology),
    Scaling,
}

/// One fabric's row of the comparison, or the fabric and why the job does not run on it.
pub type FabricOutcome = Result<FabricRow, (fabricscope::catalog::Technology, String)>;

/// What a comparison came to: its fabric row, or its scaling point's GPUs and tokens/s (what a
/// worker sends back, as JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtraResult {
    Fabric(FabricRow),
    Scaling { gpus: u32, tokens_per_s: f64 },
}

impl ExtraResult {
    /// The result of comparison `extra`, whose job `train` stepped as `report`.
    pub fn of(extra: Extra, train: &ValidTrain, report: &TrainReport) -> ExtraResult {
        match extra {
            Extra::Fabric(technology) => ExtraResult::Fabric(FabricRow::of(technology, report)),
            Extra::Scaling => {
                ExtraResult::Scaling { gpus: train.grid().ranks(), tokens_per_s: report.tokens_per_s }
            }
        }
    }
}

/// A comparison as a worker runs it (`crate::worker::train_extra`): the job and what it is for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExtraTask {
    pub job: TrainScenario,
    pub extra: Extra,
}

/// A job to poll.
fn job_of(valid: ValidTrain) -> Rc<RefCell<TrainJob>> {
    Rc::new(RefCell::new(TrainJob::new(valid)))
}

pub enum TrainAction {
    SetJob(Box<TrainScenario>),
    /// A slice of the comparison job ran and it is not done.
    ExtraWorked,
    /// The comparison job's step (ignored if it is no longer the one in flight).
    ExtraReady(Rc<RefCell<TrainJob>>, Box<TrainReport>),
    /// The comparison job's result, from a worker (ignored if it is no longer the one in flight).
    ExtraDone(Rc<RefCell<TrainJob>>, ExtraResult),
    /// A slice of the pending job ran and it is not done.
    Worked,
    /// The pending job's step (ignored if another change replaced it meanwhile).
    Ready(Rc<RefCell<TrainJob>>, Box<TrainReport>),
    Reject(String),
    DismissError,
    DismissLinkProblem,
    TogglePlay,
    Seek(f64),
    Frame {
        now_ms: f64,
    },
    SetGroups(Dim),
    /// Start the next missing comparison (a fabric at a time, then one scaling point), as a
    /// job the view polls (`extra`).
    Extra,
    SetLang(Lang),
    SetDark(bool),
    /// Keep the current job as A (or forget A).
    Pin(bool),
}

fn join(errors: &[ScenarioError]) -> String {
    errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")
}

/// The DP multiples to try for `job`: those that keep the cluster within the page's limit.
fn scaling_plan(job: &TrainScenario) -> Vec<u32> {
    let g = job.cluster.validate_fabric().map(|v| v.preset().gpus_per_node).unwrap_or(8);
    SCALING
        .iter()
        .skip(1)
        .map(|k| job.dp * k)
        .filter(|&dp| (job.tp * job.cp * job.pp * dp).div_ceil(g) * g <= MAX_PAGE_GPUS)
        .collect()
}

impl TrainState {
    /// The view on `job`, valid, its step pending: nothing is simulated here.
    pub fn new(job: TrainScenario, lang: Lang, dark: bool) -> Result<TrainState, String> {
        let valid = job.validate().map_err(|e| join(&e))?;
        Ok(TrainState {
            scaling: Rc::new(Vec::new()),
            scaling_todo: Rc::new(Vec::new()),
            scaling_stop: None,
            job,
            valid: Rc::new(valid.clone()),
            report: None,
            playhead: 0.0,
            playing: false,
            last_frame_ms: None,
            groups: Dim::Tp,
            fabrics: Rc::new(None),
            fabric_rows: Rc::new(Vec::new()),
            error: None,
            link_problem: None,
            lang,
            dark,
            pinned: None,
            pending: Some(job_of(valid)),
            pending_slices: 0,
            extra: None,
            extra_slices: 0,
        })
    }

    /// The shown step's length [ns] (0 before the first step is done).
    pub fn step_ns(&self) -> f64 {
        self.report.as_ref().map_or(0.0, |r| r.step_ns())
    }

    /// Whether a comparison is still to start (a step shown, none in flight, no change pending).
    pub fn extras_pending(&self) -> bool {
        self.pending.is_none()
            && self.report.is_some()
            && self.extra.is_none()
            && (self.fabrics.is_none() || !self.scaling_todo.is_empty())
    }

    /// A fabric row done, or why the job does not run on that fabric; with the last, the table.
    fn add_fabric_row(&mut self, row: FabricOutcome) {
        let mut rows = (*self.fabric_rows).clone();
        rows.push(row);
        if rows.len() == FABRICS.len() {
            self.fabrics = Rc::new(Some(rows));
            self.fabric_rows = Rc::new(Vec::new());
        } else {
            self.fabric_rows = Rc::new(rows);
        }
    }

    /// The job the controls show: the one being simulated, else the one shown.
    pub fn shown_job(&self) -> (TrainScenario, Rc<ValidTrain>) {
        match &self.pending {
            Some(job) => {
                let valid = job.borrow().train().clone();
                (valid.scenario().clone(), Rc::new(valid))
            }
            None => (self.job.clone(), self.valid.clone()),
        }
    }
}

impl PartialEq for TrainState {
    fn eq(&self, other: &Self) -> bool {
        same(self.report.as_ref(), other.report.as_ref())
            && Rc::ptr_eq(&self.fabrics, &other.fabrics)
            && Rc::ptr_eq(&self.fabric_rows, &other.fabric_rows)
            && Rc::ptr_eq(&self.scaling, &other.scaling)
            && Rc::ptr_eq(&self.scaling_todo, &other.scaling_todo)
            && self.job == other.job
            && self.playhead == other.playhead
            && self.playing == other.playing
            && self.groups == other.groups
            && self.error == other.error
            && self.scaling_stop == other.scaling_stop
            && self.link_problem == other.link_problem
            && self.lang == other.lang
            && self.dark == other.dark
            && same(self.extra.as_ref().map(|e| &e.1), other.extra.as_ref().map(|e| &e.1))
            && same(self.pending.as_ref(), other.pending.as_ref())
            && same(self.pinned.as_ref(), other.pinned.as_ref())
    }
}

/// The same value, or none on both sides.
fn same<T>(a: Option<&Rc<T>>, b: Option<&Rc<T>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Rc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

impl Reducible for TrainState {
    type Action = TrainAction;

    fn reduce(self: Rc<Self>, action: TrainAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            TrainAction::SetJob(job) => {
                let job = *job;
                if !within_page(&job) {
                    let gpus = gpus_of(&job).unwrap_or(0);
                    next.error = Some(format!(
                        "cluster.nodes: {gpus} GPUs; the page simulates up to {MAX_PAGE_GPUS} (the CLI takes more)"
                    ));
                    return Rc::new(next);
                }
                match job.validate() {
                    Err(errors) => next.error = Some(join(&errors)),
                    Ok(valid) => {
                        next.pending = Some(job_of(valid));
                        next.pending_slices = 0;
                        next.extra = None;
                        next.error = None;
                    }
                }
            }
            TrainAction::Worked => next.pending_slices += 1,
            TrainAction::Ready(job, report) => {
                if !self.pending.as_ref().is_some_and(|p| Rc::ptr_eq(p, &job)) {
                    return self;
                }
                let valid = job.borrow().train().clone();
                let job = valid.scenario().clone();
                next.scaling = Rc::new(vec![(valid.cluster().n_ranks(), report.tokens_per_s, 1.0)]);
                next.report = Some(Rc::new(*report));
                next.valid = Rc::new(valid);
                next.scaling_todo = Rc::new(scaling_plan(&job));
                next.scaling_stop = None;
                next.fabrics = Rc::new(None);
                next.fabric_rows = Rc::new(Vec::new());
                next.job = job;
                next.playhead = 0.0;
                next.last_frame_ms = None;
                next.pending = None;
                next.extra = None;
                next.extra_slices = 0;
            }
            TrainAction::Reject(message) => next.error = Some(message),
            TrainAction::DismissError => next.error = None,
            TrainAction::DismissLinkProblem => next.link_problem = None,
            TrainAction::TogglePlay => {
                if self.report.is_none() {
                    return self;
                }
                next.playing = !self.playing;
                next.last_frame_ms = None;
                if next.playing && self.playhead >= self.step_ns() {
                    next.playhead = 0.0;
                }
            }
            TrainAction::Seek(t) => {
                next.playhead = t.clamp(0.0, self.step_ns());
                next.last_frame_ms = None;
            }
            TrainAction::Frame { now_ms } => {
                if !self.playing {
                    return self;
                }
                if let Some(last) = self.last_frame_ms {
                    let step = self.step_ns();
                    next.playhead =
                        (self.playhead + (now_ms - last).clamp(0.0, 100.0) / STEP_MS * step).min(step);
                    if next.playhead >= step {
                        next.playing = false;
                    }
                }
                next.last_frame_ms = Some(now_ms);
            }
            TrainAction::SetGroups(dim) => next.groups = dim,
            TrainAction::Extra => {
                // A timer set before a change may fire after it: nothing starts then.
                let (true, Some(report)) = (self.extras_pending(), &self.report) else {
                    return self;
                };
                if self.fabrics.is_none() {
                    // One fabric a job; the job's own is the report already shown.
                    let technology = FABRICS[self.fabric_rows.len()];
                    let job = on_fabric(&self.job, technology);
                    if job == self.job {
                        next.add_fabric_row(Ok(FabricRow::of(technology, report)));
                    } else {
                        match job.validate() {
                            Ok(valid) => next.extra = Some((Extra::Fabric(technology), job_of(valid))),
                            // Beyond the engine there (RoCE's ECMP, where no group stands for the
                            // others): a row that says why, and the next fabric.
                            Err(errors) => next.add_fabric_row(Err((technology, join(&errors)))),
                        }
                    }
                } else if let Some((&dp, rest)) = self.scaling_todo.split_first() {
                    next.scaling_todo = Rc::new(rest.to_vec());
                    match fabricscope::train::scaled(&self.job, dp).and_then(|job| job.validate()) {
                        Ok(valid) => next.extra = Some((Extra::Scaling, job_of(valid))),
                        Err(errors) => {
                            next.scaling_todo = Rc::new(Vec::new());
                            next.scaling_stop = Some(format!("DP {dp}: {}", join(&errors)));
                        }
                    }
                } else {
                    return self;
                }
                next.extra_slices = 0;
            }
            TrainAction::ExtraWorked => next.extra_slices += 1,
            TrainAction::ExtraReady(job, report) => {
                let Some((kind, _)) = &self.extra else { return self };
                let result = ExtraResult::of(*kind, job.borrow().train(), &report);
                return self.reduce(TrainAction::ExtraDone(job, result));
            }
            TrainAction::ExtraDone(job, result) => {
                let Some((_, current)) = &self.extra else { return self };
                if !Rc::ptr_eq(current, &job) {
                    return self;
                }
                next.extra = None;
                match result {
                    ExtraResult::Fabric(row) => next.add_fabric_row(Ok(row)),
                    ExtraResult::Scaling { gpus, tokens_per_s: tps } => {
                        let (base_gpus, base_tps, _) = self.scaling[0];
                        let mut curve = (*self.scaling).clone();
                        curve.push((gpus, tps, (tps / gpus as f64) / (base_tps / base_gpus as f64)));
                        next.scaling = Rc::new(curve);
                    }
                }
            }
            TrainAction::Pin(on) => {
                next.pinned =
                    self.report.as_ref().filter(|_| on).map(|r| Rc::new((self.job.clone(), (**r).clone())))
            }
            TrainAction::SetLang(lang) => next.lang = lang,
            TrainAction::SetDark(dark) => next.dark = dark,
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> TrainScenario {
        let mut job = TrainScenario::default_demo();
        job.cluster.nodes = 2;
        job.model = "llama2-7b".into();
        job.tp = 8;
        job.pp = 1;
        job.dp = 2;
        job.global_batch = 16;
        job
    }

    /// Event batches per poll of a sliced job in these tests.
    const TRAIN_TEST_BATCHES: u64 = 4096;

    /// What the view's effects do with the pending step: poll it to its end, hand it back.
    fn finish_pending(state: Rc<TrainState>) -> Rc<TrainState> {
        let job = state.pending.clone().expect("a step pending");
        let report = loop {
            if let Some(report) = job.borrow_mut().poll(TRAIN_TEST_BATCHES) {
                break report;
            }
        };
        state.reduce(TrainAction::Ready(job, Box::new(report)))
    }

    /// The view on `job`, its first step done.
    fn shown(job: TrainScenario) -> Rc<TrainState> {
        finish_pending(Rc::new(TrainState::new(job, Lang::En, false).unwrap()))
    }

    /// The small job's state, its step time, and the state after `change` is submitted.
    fn changed(change: &TrainScenario) -> (f64, Rc<TrainState>) {
        let state = shown(small());
        let step = state.step_ns();
        (step, state.reduce(TrainAction::SetJob(Box::new(change.clone()))))
    }

    /// The view opens on its job with nothing simulated: the step pending, nothing to play or
    /// compare, until the step is handed back; then it is shown, with its scaling point.
    #[test]
    fn the_view_opens_with_its_step_pending_and_shows_it_once_done() {
        let state = Rc::new(TrainState::new(small(), Lang::En, false).unwrap());
        assert!(state.report.is_none() && state.pending.is_some() && state.scaling.is_empty());
        assert_eq!((state.shown_job().0, state.step_ns()), (small(), 0.0));
        assert!(!state.extras_pending());
        let same = state.clone().reduce(TrainAction::TogglePlay);
        assert!(Rc::ptr_eq(&same, &state), "nothing to play yet");
        let state = finish_pending(state.reduce(TrainAction::Pin(true)));
        assert!(state.pinned.is_none(), "nothing to keep as A before a step is shown");
        let report = state.report.clone().expect("the step shown");
        assert_eq!(*report, small().validate().unwrap().run());
        assert_eq!(*state.scaling, [(16, report.tokens_per_s, 1.0)]);
        assert!(state.pending.is_none() && state.extras_pending());
    }

    #[test]
    fn a_bad_layout_keeps_the_last_good_job() {
        let (step, next) = changed(&TrainScenario { tp: 3, ..small() });
        assert!(next.error.as_deref().unwrap().contains("TP × PP × DP"), "{:?}", next.error);
        assert_eq!(next.step_ns(), step);
        assert_eq!(next.job.tp, 8);
    }

    #[test]
    fn a_change_is_simulated_in_slices_while_the_last_step_stays_shown() {
        let change = TrainScenario { global_batch: 32, ..small() };
        let (step, state) = changed(&change);
        assert!(state.error.is_none(), "{:?}", state.error);
        let job = state.pending.clone().expect("the change is being simulated");
        // The last step stays; the controls show the change; the comparisons wait.
        assert_eq!((state.step_ns(), state.job.global_batch), (step, 16));
        assert_eq!(state.shown_job().0, change);
        assert!(!state.extras_pending());
        let report = loop {
            if let Some(report) = job.borrow_mut().poll(16) {
                break report;
            }
        };
        // A stale job's step is ignored; the pending one's is shown.
        let stale = Rc::new(RefCell::new(TrainJob::new(small().validate().unwrap())));
        let same = state.clone().reduce(TrainAction::Ready(stale, Box::new(report.clone())));
        assert!(Rc::ptr_eq(&same, &state));
        let state = state.reduce(TrainAction::Ready(job, Box::new(report)));
        assert!(state.pending.is_none() && state.job == change);
        assert_eq!(**state.report.as_ref().unwrap(), change.validate().unwrap().run());
        assert!(state.extras_pending());
    }

    /// Llama 2 7B at DP 512 on the page's 64 nodes: each DP ring (4.2 million transfers) was
    /// refused; it runs from its groups' first steps, extrapolated, polled in slices to the very
    /// report a single call gives.
    #[test]
    fn a_dp_ring_beyond_the_engine_is_shown_extrapolated() {
        let mut job = TrainScenario::default_demo();
        job.cluster.nodes = 64;
        job.model = "llama2-7b".into();
        (job.tp, job.pp, job.dp, job.global_batch) = (1, 1, 512, 512);
        let state = shown(job.clone());
        assert_eq!(state.error, None);
        let report = state.report.as_deref().unwrap().clone();
        assert_eq!(report, job.validate().unwrap().run());
        let dp: Vec<_> = report.ops.iter().filter(|op| op.kind == fabricscope::train::OpKind::Dp).collect();
        assert!(!dp.is_empty());
        for op in dp {
            let fabricscope::train::comm::OpMethod::Extrapolated(p) = op.method else { panic!("{op:?}") };
            assert_eq!((p.steps, p.total_steps), (128, 511), "{op:?}");
        }
    }

    #[test]
    fn playing_moves_through_the_step_and_stops_at_its_end() {
        let state = shown(small()).reduce(TrainAction::TogglePlay);
        let state = state.reduce(TrainAction::Frame { now_ms: 0.0 });
        let state = state.reduce(TrainAction::Frame { now_ms: 50.0 });
        assert!((state.playhead - 50.0 / STEP_MS * state.step_ns()).abs() < 1e-6);
        let mut state = state;
        for i in 0..400 {
            state = state.reduce(TrainAction::Frame { now_ms: 100.0 + 100.0 * i as f64 });
        }
        assert!(!state.playing && state.playhead == state.step_ns());
    }

    /// What the view's effects do: start the next comparison, poll it to its end, hand its
    /// step back.
    fn next_extra(state: Rc<TrainState>) -> Rc<TrainState> {
        let state = state.reduce(TrainAction::Extra);
        let Some((_, job)) = state.extra.clone() else { return state };
        let report = loop {
            if let Some(report) = job.borrow_mut().poll(64) {
                break report;
            }
        };
        state.reduce(TrainAction::ExtraReady(job, Box::new(report)))
    }

    #[test]
    fn comparisons_fill_in_one_job_at_a_time() {
        let mut state = shown(small());
        assert!(state.extras_pending());
        // One fabric at a time: InfiniBand (the job's own, the report shown), RoCE, EFA, TCP.
        state = state.reduce(TrainAction::Extra);
        assert!(state.extra.is_none() && state.fabric_rows.len() == 1, "the job's own row needs no run");
        for done in 2..4 {
            state = next_extra(state);
            assert!(state.fabrics.is_none() && state.fabric_rows.len() == done);
        }
        state = next_extra(state);
        let fabrics: Vec<FabricRow> =
            state.fabrics.as_ref().clone().unwrap().into_iter().map(Result::unwrap).collect();
        assert_eq!(fabrics, fabricscope::train::compare_fabrics(&state.job).unwrap());
        while state.extras_pending() {
            state = next_extra(state);
        }
        // DP 2, 4, 8, 16 on 2, 4, 8, 16 nodes, the same points as one call gives.
        let gpus: Vec<u32> = state.scaling.iter().map(|p| p.0).collect();
        assert_eq!(gpus, [16, 32, 64, 128]);
        assert_eq!(*state.scaling, fabricscope::train::scaling(&state.job, &[2, 4, 8, 16]).unwrap());
        assert!(state.scaling.iter().all(|p| p.2 > 0.5 && p.2 <= 1.05), "{:?}", state.scaling);
        assert_eq!(state.scaling_stop, None);
    }

    #[test]
    fn a_scaling_point_beyond_the_engine_stops_the_table_without_an_error() {
        // GPT-3 with TP 24 on one NVL72 rack, racks joined by RoCE: DP 3 × 4 is a DP AllReduce
        // beyond the engine's transfers (ECMP hashes each flow: its groups are not proved images
        // of one another, so all of them would run). The reader changed nothing: the table says
        // where it stops, no error banner.
        let mut job = TrainScenario::default_demo();
        job.cluster.preset = "gb200-nvl72".into();
        job.cluster.nodes = 1;
        job.cluster.fabric.technology = fabricscope::catalog::Technology::Roce;
        (job.tp, job.pp, job.dp, job.global_batch) = (24, 3, 1, 96);
        let mut state = shown(job);
        while state.extras_pending() {
            state = next_extra(state);
        }
        assert_eq!(state.error, None);
        let stop = state.scaling_stop.clone().expect("a point beyond the engine");
        assert!(stop.starts_with("DP ") && stop.contains("limit"), "{stop}");
    }

    #[test]
    fn a_fabric_beyond_the_engine_is_a_row_that_says_why_and_the_others_run() {
        // GPT-3 on 256 DGX H100, DP 16: over RoCE, EFA and TCP (hashed routes: no group stands
        // for the others) its 128 DP rings are beyond the engine together, and each ring's 30
        // steps too few to extrapolate from; InfiniBand's row runs, and each other row says why
        // it does not.
        let job = TrainScenario {
            cluster: fabricscope::Scenario { nodes: 256, ..fabricscope::Scenario::default_demo() },
            dp: 16,
            global_batch: 1024,
            ..TrainScenario::default_demo()
        };
        let mut state = shown(job);
        while state.fabrics.is_none() {
            state = next_extra(state);
        }
        let rows = state.fabrics.as_ref().clone().unwrap();
        let technologies: Vec<_> = rows
            .iter()
            .map(|row| match row {
                Ok(row) => row.technology,
                Err((technology, _)) => *technology,
            })
            .collect();
        assert_eq!(technologies, FABRICS);
        let refused: Vec<_> = rows.iter().filter_map(|row| row.as_ref().err()).collect();
        assert_eq!(refused.iter().map(|(t, _)| *t).collect::<Vec<_>>(), FABRICS[1..]);
        assert!(refused.iter().all(|(_, why)| why.contains("have only 30 steps")), "{refused:?}");
        assert!(rows[0].is_ok(), "InfiniBand runs");
        assert_eq!(state.error, None);
    }
}
