//! The training view's jobs in the page's workers (`services::workers`): the step pending (the
//! view's first, or a change's) and the comparison in flight (each fabric's row, each scaling
//! point), each in a pool of one worker as the reducer starts them, so that the main thread only
//! shows them; where workers cannot run, the view polls them in slices instead.

use crate::services::workers::{warn_no_workers, Pool, Report};
use crate::state::training::{ExtraResult, ExtraTask, TrainAction, TrainState};
use fabricscope::train::{TrainJob, TrainReport};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

type Job = Rc<RefCell<TrainJob>>;

/// A worker's answer (`crate::worker`): what the job came to, or why not.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Reply<R> {
    Ok(R),
    Error(String),
}

/// Runs the step pending (`TrainState::pending`) in a worker: its report comes back as
/// `TrainAction::Ready`. False once workers cannot run here (then the view polls it).
#[hook]
pub fn use_step_in_worker(state: &UseReducerHandle<TrainState>) -> bool {
    let current = state.pending.clone();
    let wanted = current.is_some();
    let input = |state: &TrainState| {
        state.pending.as_ref().map(|job| serde_json::to_string(job.borrow().train().scenario()))
    };
    let done: fn(Job, TrainReport) -> TrainAction = |job, report| TrainAction::Ready(job, Box::new(report));
    use_in_worker(state, "training steps", "step", current, input, wanted, done)
}

/// Runs the comparison in flight (`TrainState::extra`) in a worker: its result comes back as
/// `TrainAction::ExtraDone`. False once workers cannot run here (then the view polls it).
#[hook]
pub fn use_extras_in_workers(state: &UseReducerHandle<TrainState>) -> bool {
    let current = state.extra.as_ref().map(|(_, job)| job.clone());
    // The worker stays while comparisons remain, and stops (its memory freed) once they are done.
    let wanted = state.extra.is_some() || state.extras_pending();
    let input = |state: &TrainState| {
        state.extra.as_ref().map(|(extra, job)| {
            serde_json::to_string(&ExtraTask { job: job.borrow().train().scenario().clone(), extra: *extra })
        })
    };
    let done: fn(Job, ExtraResult) -> TrainAction = TrainAction::ExtraDone;
    use_in_worker(state, "training comparisons", "train", current, input, wanted, done)
}

/// Runs `current` (its task `input` of the state, written only as it starts, of `kind`) in a
/// worker of a pool of one, kept while `wanted`: its answer goes to the view as `done` makes it. A task that cannot be written, a
/// worker that fails on it, or workers that cannot start make the view poll it instead (`what`
/// names it in the console): false from then on.
#[hook]
#[allow(clippy::too_many_arguments)]
fn use_in_worker<R: DeserializeOwned + 'static>(
    state: &UseReducerHandle<TrainState>,
    what: &'static str,
    kind: &'static str,
    current: Option<Job>,
    input: fn(&TrainState) -> Option<serde_json::Result<String>>,
    wanted: bool,
    done: fn(Job, R) -> TrainAction,
) -> bool {
    let workers_run = use_state(|| true);
    let pool = use_mut_ref(|| None::<Rc<RefCell<Pool<Job>>>>);
    let deps = (current.as_ref().map(|job| Rc::as_ptr(job) as usize), wanted, *workers_run);
    let (dispatch, run, state) = (state.dispatcher(), workers_run.clone(), state.clone());
    use_effect_with(deps, move |&(_, wanted, running)| {
        if !running {
            return;
        }
        let pool = pool
            .borrow_mut()
            .get_or_insert_with(|| {
                let broken = run.clone();
                let fall_back = move |why: String| {
                    warn_no_workers(what, &why);
                    broken.set(false);
                };
                Pool::new(1, move |report: Report<Job>| match report {
                    Report::Done { tag, result } => {
                        let reply = result.and_then(|json| match serde_json::from_str::<Reply<R>>(&json) {
                            Ok(Reply::Ok(result)) => Ok(result),
                            Ok(Reply::Error(why)) => Err(why),
                            Err(e) => Err(e.to_string()),
                        });
                        match reply {
                            Ok(result) => dispatch.dispatch(done(tag, result)),
                            // The same job, polled on the main thread, says what is wrong.
                            Err(why) => fall_back(why),
                        }
                    }
                    Report::Broken(why) => fall_back(why),
                })
            })
            .clone();
        let mut pool = pool.borrow_mut();
        if !wanted {
            pool.stop_all();
            return;
        }
        pool.stop_where(|job| current.as_ref().is_none_or(|wanted| !Rc::ptr_eq(wanted, job)));
        let Some(job) = current else { return };
        if pool.running().iter().any(|running| Rc::ptr_eq(running, &job)) {
            return;
        }
        let Some(input) = input(&state) else { return };
        let started = input.map_err(|e| e.to_string()).and_then(|input| pool.start(job, kind, input));
        if let Err(why) = started {
            drop(pool);
            warn_no_workers(what, &why);
            run.set(false);
        }
    });
    *workers_run
}
