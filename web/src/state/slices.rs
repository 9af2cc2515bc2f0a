//! The page's background work, one slice at a time, outside the reducer: the pending
//! simulation and the busbw curve's next point. Each function polls the job the state holds for
//! one slice by the clock it is given and returns the `Action` that reports what the slice came
//! to; the reducer only applies it. The slice effects (`hooks::slices`) call them a timeout
//! apart, so frames, clicks and the cancel button get their turn.

use super::collectives::{join, Action, AppState, CurveOutcome};
use super::page_job::{page_job, work};
use super::Shared;
use fabricscope::Scenario;
use std::cell::RefCell;
use std::rc::Rc;

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
    let result = work(&mut pending.job.borrow_mut(), clock);
    let ms = clock() - started;
    let result = result.map(|r| r.map(Rc::new).map_err(|e| e.to_string()));
    Some(Action::Worked { id: pending.id, ms, result })
}

/// A slice of the busbw curve's next point: its job (made on the first slice) polled once.
/// `None` when the curve is complete.
pub fn curve_slice(state: &AppState, clock: fn() -> f64) -> Option<Action> {
    let &(size, algorithm) = state.curve_todo.first()?;
    let point = Scenario {
        size_bytes: size,
        algorithm: algorithm.or(state.scenario.algorithm),
        ..state.scenario.clone()
    };
    let job = match &state.curve_job {
        Some(job) => Ok(Some(job.clone())),
        None => point.validate().map(|valid| page_job(&valid).ok().map(|job| Rc::new(RefCell::new(job)))),
    };
    let outcome = match job {
        // A point beyond what the page simulates is left off the chart.
        Ok(None) => CurveOutcome::Skipped,
        Ok(Some(job)) => {
            let result = work(&mut job.borrow_mut(), clock);
            match result {
                None => CurveOutcome::Working(job),
                Some(Ok(sim)) => CurveOutcome::Point(fabricscope::sweep_point(&sim, false)),
                Some(Err(_)) => CurveOutcome::Skipped,
            }
        }
        // So is one beyond the engine's limit (a forced Tree on a huge cluster).
        Err(errors) if errors.iter().all(|e| e.field == "nodes") => CurveOutcome::Skipped,
        // Sizes on the chart are all valid for a valid scenario; if one is not, the curve stops
        // there and says why.
        Err(errors) => CurveOutcome::Stopped(join(&errors)),
    };
    Some(Action::Curve { todo: Shared::of(&state.curve_todo), outcome })
}
