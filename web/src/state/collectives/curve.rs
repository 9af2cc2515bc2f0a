//! The busbw chart's points as the page fills them in. The page's workers simulate them in any
//! order, front first (`services::workers`), and the main thread's slices one at a time from the
//! back beside them (or front first where there are no workers: `state::slices::curve_slice`);
//! either way the curve grows in chart order (`chart_points`: sizes ascending, algorithms in a
//! fixed order), so what is drawn never depends on which thread finished first.

use fabricscope::collective::Algorithm;
use fabricscope::{PointJob, Scenario, SweepPoint};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;

use crate::state::page_job::{chart_points, chart_sizes, transfers_of};

/// A point of the chart: its message size and the algorithm forced (`None`: the tuner's).
pub type PointKey = (u64, Option<Algorithm>);

/// What simulating one point of the chart came to (what a worker sends back, as JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PointOutcome {
    Point(Box<SweepPoint>),
    /// Left off the chart: beyond what the page simulates, or beyond the engine's limit.
    Skipped,
    /// A size of the chart that does not validate, or a worker that failed: the curve stops
    /// there and says why.
    Stopped(String),
}

/// What a slice or a worker's report on one point came to (`Action::Curve`).
pub enum CurveOutcome {
    /// Not done (the main thread's slices only): its job, to go on with next slice.
    Working(Rc<RefCell<PointJob>>),
    Done(PointOutcome),
}

/// A curve's sizes left off: `curve` from `first` to `last` (to the chart's largest if `open`).
#[derive(Clone, Debug, PartialEq)]
pub struct Gap {
    pub curve: String,
    pub first: u64,
    pub last: u64,
    pub open: bool,
}

/// The busbw curve of the hardware the reader asked for (independent of the message size): the
/// pending scenario's while one runs, so its points are simulated meanwhile.
#[derive(Clone, Debug)]
pub struct Curve {
    /// The scenario whose hardware the points are of (its size and forced algorithm are those
    /// of the change that started the curve; a point sets its own).
    pub scenario: Rc<Scenario>,
    /// How many GPUs that hardware has (0 if it does not validate).
    pub gpus: u32,
    /// Transfers of its collective at the scenario's size (`page_job::transfers_of`; 0 if it
    /// does not validate): whether the main thread may take points beside the workers.
    pub transfers: u64,
    /// The points shown so far, in chart order.
    pub points: Rc<Vec<SweepPoint>>,
    /// The points not shown yet, in chart order.
    pub todo: Rc<Vec<PointKey>>,
    /// The points left off, beyond what the page simulates at this scale (or whose algorithm
    /// the page could not run: the best ring row ran instead), in chart order.
    pub skipped: Rc<Vec<PointKey>>,
    /// Outcomes that arrived before a point ahead of them in `todo` (a worker finished a later
    /// point first), kept until it is their turn.
    pub early: Rc<Vec<(PointKey, PointOutcome)>>,
    /// The point the main thread simulates, and its job, polled a slice at a time.
    pub job: Option<(PointKey, Rc<RefCell<PointJob>>)>,
    /// Which curve this is, bumped at every restart: a report on another curve is stale.
    pub generation: u64,
}

impl Curve {
    /// The curve of `scenario`'s hardware, with nothing simulated yet.
    pub fn of(scenario: &Scenario, generation: u64) -> Curve {
        let valid = scenario.validate().ok();
        Curve {
            scenario: Rc::new(scenario.clone()),
            gpus: valid.as_ref().map_or(0, |valid| valid.n_ranks()),
            transfers: valid.as_ref().map_or(0, transfers_of),
            points: Rc::new(Vec::new()),
            todo: Rc::new(chart_points(scenario)),
            skipped: Rc::new(Vec::new()),
            early: Rc::new(Vec::new()),
            job: None,
            generation,
        }
    }

    /// The curve of new hardware, under the next generation.
    pub fn restart(&self, scenario: &Scenario) -> Curve {
        Curve::of(scenario, self.generation + 1)
    }

    pub fn is_complete(&self) -> bool {
        self.todo.is_empty()
    }

    /// The sizes of each curve left off (`skipped`: beyond what the page simulates at this
    /// scale), as runs of consecutive chart sizes. A collective of one curve (not AllReduce) is
    /// named by what ran, else itself.
    pub fn left_off(&self) -> Vec<Gap> {
        let sizes = chart_sizes();
        let only =
            self.points.first().map_or(self.scenario.collective.nccl_name(), |p| p.algorithm.nccl_name());
        let mut runs: Vec<Gap> = Vec::new();
        for &(size, algorithm) in self.skipped.iter() {
            let name = algorithm.map_or(only, Algorithm::nccl_name);
            let Some(index) = sizes.iter().position(|&s| s == size) else { continue };
            let (open, previous) = (index + 1 == sizes.len(), index.checked_sub(1).map(|i| sizes[i]));
            match runs.iter_mut().find(|r| r.curve == name && Some(r.last) == previous) {
                Some(run) => (run.last, run.open) = (size, open),
                None => runs.push(Gap { curve: name.to_string(), first: size, last: size, open }),
            }
        }
        runs
    }

    /// Points neither shown nor waiting their turn, in chart order: what a thread may take.
    pub fn open(&self) -> impl Iterator<Item = PointKey> + '_ {
        self.todo.iter().copied().filter(|&key| !self.is_early(key))
    }

    /// `open`, the points at `size` first (the size shown: its figures, and the tuner's pick
    /// the page could not draw, `i18n::tuner_pick_figures`, come before the rest of the chart).
    pub fn open_from(&self, size: u64) -> impl Iterator<Item = PointKey> + '_ {
        self.open().filter(move |key| key.0 == size).chain(self.open().filter(move |key| key.0 != size))
    }

    /// The next open point for a thread to take, not among `taken` (those others run): at
    /// `size` first (`open_from`), then the front of the chart, or its back for a thread that
    /// works `from_back`. One thread from each end, the curve still grows from the left while
    /// the largest points (NVLSTree's and Tree's at the top sizes, the costliest by far) run
    /// beside it rather than last and alone.
    pub fn next_open(&self, size: u64, taken: &[PointKey], from_back: bool) -> Option<PointKey> {
        let mut left = self.open_from(size).filter(|key| !taken.contains(key));
        match left.next()? {
            first if first.0 == size || !from_back => Some(first),
            first => left.last().or(Some(first)),
        }
    }

    /// The point of `algorithm` at `size` bytes, shown or arrived ahead of its turn.
    pub fn point_at(&self, size: u64, algorithm: Algorithm) -> Option<&SweepPoint> {
        let early = self.early.iter().filter_map(|(_, outcome)| match outcome {
            PointOutcome::Point(point) => Some(&**point),
            _ => None,
        });
        self.points.iter().chain(early).find(|p| p.size_bytes == size && p.algorithm == algorithm)
    }

    /// Has `key`'s outcome arrived ahead of its turn?
    fn is_early(&self, key: PointKey) -> bool {
        self.early.iter().any(|(k, _)| *k == key)
    }

    /// The point the main thread has begun, if any.
    pub fn main_point(&self) -> Option<PointKey> {
        self.job.as_ref().map(|(key, _)| *key)
    }

    /// Is `key` still to be simulated: on the curve, not shown and not waiting its turn?
    fn wanted(&self, key: PointKey) -> bool {
        self.todo.contains(&key) && !self.is_early(key)
    }

    /// `key`'s outcome taken in, if `key` is a point still to show of curve `generation`
    /// (else `None`: the report is stale). Shown at once if it is the front point, with every
    /// early outcome it unblocks; else kept until then. The second value is the message of a
    /// stopped curve.
    pub fn with(
        &self,
        generation: u64,
        key: PointKey,
        outcome: PointOutcome,
    ) -> Option<(Curve, Option<String>)> {
        if generation != self.generation || !self.todo.contains(&key) {
            return None;
        }
        let mut early = (*self.early).clone();
        early.retain(|(k, _)| *k != key);
        early.push((key, outcome));
        let (mut points, mut todo) = ((*self.points).clone(), (*self.todo).clone());
        let mut skipped = (*self.skipped).clone();
        let mut stopped = None;
        while let Some(&front) = todo.first() {
            let Some(at) = early.iter().position(|(k, _)| *k == front) else { break };
            let (_, outcome) = early.remove(at);
            todo.remove(0);
            match outcome {
                // A forced tree beyond the page runs the best ring row: not this curve's point.
                PointOutcome::Point(point) if front.1.is_none_or(|a| a == point.algorithm) => {
                    points.push(*point)
                }
                PointOutcome::Point(_) | PointOutcome::Skipped => skipped.push(front),
                PointOutcome::Stopped(message) => {
                    stopped = Some(message);
                    todo.clear();
                    early.clear();
                }
            }
        }
        // The main thread's job goes on while its point is still wanted.
        let job = self.job.clone().filter(|(k, _)| *k != key && todo.contains(k));
        let next = Curve {
            points: Rc::new(points),
            todo: Rc::new(todo),
            skipped: Rc::new(skipped),
            early: Rc::new(early),
            job,
            ..self.clone()
        };
        Some((next, stopped))
    }

    /// The main thread's job on `key` kept for the next slice, if `key` is still wanted.
    pub fn working(&self, generation: u64, key: PointKey, job: Rc<RefCell<PointJob>>) -> Option<Curve> {
        (generation == self.generation && self.wanted(key))
            .then(|| Curve { job: Some((key, job)), ..self.clone() })
    }

    /// A hash of the points shown (each one's size, busbw bits and trace hash), for a test to
    /// compare two ways of filling the curve.
    pub fn hash(&self) -> String {
        let mut hash = fabricscope::hash::Fnv::default();
        for point in self.points.iter() {
            hash.word_rotated(point.size_bytes);
            hash.word_rotated(point.busbw_gbyte_per_s.to_bits());
            hash.bytes(point.trace_hash.as_bytes());
        }
        hash.hex()
    }

    /// The same curve, by identity (a change is a new `Rc`).
    pub fn same(&self, other: &Curve) -> bool {
        self.generation == other.generation
            && Rc::ptr_eq(&self.points, &other.points)
            && Rc::ptr_eq(&self.todo, &other.todo)
            && Rc::ptr_eq(&self.early, &other.early)
    }
}
