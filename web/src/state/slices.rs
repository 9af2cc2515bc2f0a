//! The page's background work, one slice at a time, outside the reducer: the pending
//! simulation and the busbw curve's next point. Each function polls the job the state holds for
//! one slice by the clock it is given and returns the `Action` that reports what the slice came
//! to; the reducer only applies it. The slice effects (`hooks::slices`) call them a timeout
//! apart, so frames, clicks and the cancel button get their turn.

use super::collectives::{join, Action, AppState, CurveOutcome, PointKey, PointOutcome};
use super::page_job::{work, PAGE_BUDGET};
use fabricscope::{Job, PointJob, Scenario, SweepPoint};
use std::cell::RefCell;
use std::rc::Rc;
use Helping::{Alone, Beside};

/// A slice of the pending simulation: `ShowReady` when its result waits to be shown (a slice
/// after the one that finished it, so that work and the redraw do not add up to one long
/// freeze), else `Worked` with the time it took and the result once there is one. `None` when
/// nothing is pending.
pub fn pending_slice(state: &AppState, clock: fn() -> f64) -> Option<Action> {
    let pending = state.pending.as_ref()?;
    if state.ready.is_some() {
        return Some(Action::ShowReady { id: pending.id });
    }
    let started = clock();
    let result = work(|batches| pending.job.borrow_mut().poll(batches), clock);
    let ms = clock() - started;
    let result = result.map(|r| r.map(Rc::new).map_err(|e| e.to_string()));
    Some(Action::Worked { id: pending.id, ms, result })
}

/// The scenario that simulates the chart's point `key` of `scenario`.
pub fn point_scenario(scenario: &Scenario, (size, algorithm): PointKey) -> Scenario {
    Scenario { size_bytes: size, algorithm: algorithm.or(scenario.algorithm), ..scenario.clone() }
}

/// A chart point's job, or what the point comes to without one.
pub(crate) fn point_job(point: &Scenario) -> Result<PointJob, PointOutcome> {
    match point.validate() {
        // A point beyond what the page simulates is left off the chart.
        // Only its algorithm weighed for the tuner's table, and only its figures: the point
        // needs no other's bound, and no trace (`Job::point`).
        // A forced tree beyond the page's budget whose channels that stand for all fit it runs
        // from those alone (`Job::admitted_point`): NVLSTree on 1,024 H100 GPUs from 32 MiB up,
        // where it is NCCL's pick.
        Ok(valid) => Job::admitted_point(&valid, PAGE_BUDGET).map_err(|_| PointOutcome::Skipped),
        // So is one beyond the engine's limit (a forced Tree on a huge cluster).
        Err(errors) if errors.iter().all(|e| e.field == "nodes") => Err(PointOutcome::Skipped),
        // Sizes on the chart are all valid for a valid scenario; if one is not, the curve stops
        // there and says why.
        Err(errors) => Err(PointOutcome::Stopped(join(&errors))),
    }
}

/// What a chart point's finished job comes to.
pub(crate) fn point_of(result: Result<SweepPoint, fabricscope::ScenarioError>) -> PointOutcome {
    match result {
        Ok(point) => PointOutcome::Point(Box::new(point)),
        Err(_) => PointOutcome::Skipped,
    }
}

/// A chart point simulated to its end, as a worker does (`crate::worker`).
#[cfg(feature = "workers")]
pub fn simulate_point(point: &Scenario) -> PointOutcome {
    match point_job(point) {
        Ok(job) => point_of(job.run()),
        Err(outcome) => outcome,
    }
}

/// Which point of the curve the main thread's slices take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Helping<'a> {
    /// The page has no workers: the front point, so the curve grows slice by slice.
    Alone,
    /// Beside the workers, which take the front points and run `busy`: the last open point
    /// none of them runs, so the two meet in the middle.
    Beside(&'a [PointKey]),
}

/// A slice of one of the busbw curve's points on the main thread: its job (made on the first
/// slice) polled once. `None` when there is no point for the main thread to take.
pub fn curve_slice(state: &AppState, clock: fn() -> f64, helping: Helping) -> Option<Action> {
    let curve = &state.curve;
    // The point begun, or a new one: its job is made below.
    let (key, begun) = match (&curve.job, helping) {
        (Some((key, job)), _) => (*key, Some(job.clone())),
        (None, Alone) => (*curve.todo.first()?, None),
        (None, Beside(busy)) => (curve.open().filter(|key| !busy.contains(key)).last()?, None),
    };
    let job = match begun {
        Some(job) => Ok(job),
        None => point_job(&point_scenario(&curve.scenario, key)).map(|job| Rc::new(RefCell::new(job))),
    };
    let outcome = match job {
        Ok(job) => {
            let result = work(|batches| job.borrow_mut().poll(batches), clock);
            match result {
                None => CurveOutcome::Working(job),
                Some(result) => CurveOutcome::Done(point_of(result)),
            }
        }
        Err(outcome) => CurveOutcome::Done(outcome),
    };
    Some(Action::Curve { generation: curve.generation, key, outcome })
}
