//! The training view's comparisons (each fabric's row, each scaling point) in one of the page's
//! workers (`services::workers`), one at a time as the reducer starts them, so that the main
//! thread only shows them; where workers cannot run, the view polls them in slices instead.

use crate::services::workers::{warn_no_workers, Pool, Report};
use crate::state::training::{ExtraResult, ExtraTask, TrainAction, TrainState};
use fabricscope::train::TrainJob;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

type ExtraJob = Rc<RefCell<TrainJob>>;

/// What the console names when workers cannot run.
const WHAT: &str = "training comparisons";

/// Runs the comparison in flight (`TrainState::extra`) in a worker: its result comes back as
/// `TrainAction::ExtraDone`. False once workers cannot run here (then the view polls it).
#[hook]
pub fn use_extras_in_workers(state: &UseReducerHandle<TrainState>) -> bool {
    let workers_run = use_state(|| true);
    let pool = use_mut_ref(|| None::<Rc<RefCell<Pool<ExtraJob>>>>);
    let current = state.extra.clone();
    // The worker stays while comparisons remain, and stops (its memory freed) once they are done.
    let wanted = state.extra.is_some() || state.extras_pending();
    let deps = (current.as_ref().map(|(_, job)| Rc::as_ptr(job) as usize), wanted, *workers_run);
    let (dispatch, run) = (state.dispatcher(), workers_run.clone());
    use_effect_with(deps, move |&(_, wanted, running)| {
        if !running {
            return;
        }
        let pool = pool
            .borrow_mut()
            .get_or_insert_with(|| {
                let broken = run.clone();
                let fall_back = move |why: String| {
                    warn_no_workers(WHAT, &why);
                    broken.set(false);
                };
                Pool::new(1, move |report: Report<ExtraJob>| match report {
                    Report::Done { tag, result } => {
                        let reply = result.and_then(|json| {
                            let reply: serde_json::Value =
                                serde_json::from_str(&json).map_err(|e| e.to_string())?;
                            match reply.get("ok") {
                                Some(ok) => serde_json::from_value::<ExtraResult>(ok.clone())
                                    .map_err(|e| e.to_string()),
                                None => Err(reply["error"].as_str().unwrap_or("no answer").to_string()),
                            }
                        });
                        match reply {
                            Ok(result) => dispatch.dispatch(TrainAction::ExtraDone(tag, result)),
                            // The same comparison, polled on the main thread, says what is wrong.
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
        pool.stop_where(|job| current.as_ref().is_none_or(|(_, wanted)| !Rc::ptr_eq(wanted, job)));
        let Some((extra, job)) = current else { return };
        if pool.running().iter().any(|running| Rc::ptr_eq(running, &job)) {
            return;
        }
        let task = ExtraTask { job: job.borrow().train().scenario().clone(), extra };
        let input = serde_json::to_string(&task).unwrap_or_default();
        if let Err(why) = pool.start(job, "train", input) {
            drop(pool);
            warn_no_workers(WHAT, &why);
            run.set(false);
        }
    });
    *workers_run
}
