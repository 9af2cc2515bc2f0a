//! The page's workers: small pools of Web Workers, each running the page's own WebAssembly
//! module (`public/fabricscope-worker.js` imports the JS the page preloads and instantiates the
//! compiled WebAssembly the page sends it, so nothing is downloaded or compiled again), that
//! run the page's independent simulations off the main thread: the busbw chart's points
//! (`feed_curve`) and the training view's comparisons. A task goes out as JSON with its kind
//! and comes back as JSON (`crate::worker`): no trace crosses threads.
//!
//! Workers start when there is work and stop when it is done (their memory goes with them) or
//! when what they run is no longer wanted. Where workers cannot run (no module to load, a worker
//! that fails to start), the pool says so once (`Report::Broken`) and the page simulates on its
//! main thread in slices instead.

use crate::state::collectives::{Action, AppState, Curve, PointKey, PointOutcome};
use crate::state::slices::point_scenario;
use js_sys::{Object, Reflect};
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Event, HtmlLinkElement, MessageEvent, Worker, WorkerOptions, WorkerType};
use yew::UseReducerHandle;

/// The worker's script, beside the page.
const WORKER_SCRIPT: &str = "fabricscope-worker.js";
/// Most workers a pool runs, whatever the machine: each holds a copy of the module's memory.
const MOST_WORKERS: usize = 4;

/// What a pool tells the page.
pub enum Report<T> {
    /// Task `tag` came to `result`: the worker's JSON, or why the worker failed on it.
    Done { tag: T, result: Result<String, String> },
    /// Workers cannot run here, and why: simulate on the main thread instead.
    Broken(String),
}

struct Slot<T> {
    serial: u64,
    worker: Worker,
    /// The tasks posted to the worker and not yet answered, oldest first (it runs them in turn).
    tasks: std::collections::VecDeque<(u64, T)>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(Event)>,
}

impl<T> Slot<T> {
    /// Stops the worker; a message it already sent finds no handler.
    fn stop(&self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

/// A pool of workers running tasks tagged `T` (what the page needs to place a result).
pub struct Pool<T: Clone + 'static> {
    slots: Vec<Slot<T>>,
    /// Slots stopped from inside one of their own handlers, dropped at the next change.
    retired: Vec<Slot<T>>,
    size: usize,
    /// The machine's cores and the most workers the caller asked for: what `size` follows.
    cores: usize,
    most: usize,
    /// Tasks a worker holds at most: the one it runs and those queued behind it.
    depth: usize,
    module: Option<String>,
    next_id: u64,
    next_serial: u64,
    broken: bool,
    report: Rc<dyn Fn(Report<T>)>,
    this: Weak<RefCell<Pool<T>>>,
}

impl<T: Clone + 'static> Pool<T> {
    /// A pool of up to `most` workers, and never more than a worker per core but one (the
    /// page's own thread and its compositor keep a core: on two cores, two busy workers made
    /// frames wait 100 ms) unless the page is idle (`set_idle`), none started yet, that tells
    /// the page what came of its tasks through `report`.
    pub fn new(most: usize, report: impl Fn(Report<T>) + 'static) -> Rc<RefCell<Pool<T>>> {
        let window = web_sys::window();
        let cores = window.as_ref().map_or(1.0, |w| w.navigator().hardware_concurrency());
        let module = window
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector("link[rel=modulepreload][href*=fabricscope-web]").ok().flatten())
            .and_then(|link| link.dyn_into::<HtmlLinkElement>().ok())
            .map(|link| link.href());
        Rc::new_cyclic(|this| {
            RefCell::new(Pool {
                slots: Vec::new(),
                retired: Vec::new(),
                size: workers_for(cores as usize, most, false),
                cores: cores as usize,
                most,
                depth: 1,
                module,
                next_id: 0,
                next_serial: 0,
                broken: false,
                report: Rc::new(report),
                this: this.clone(),
            })
        })
    }

    /// Whether the page is idle: nothing of its own to simulate, no animation playing, its
    /// thread taking no tasks of the pool's. Then a worker per core (the page's thread has no
    /// frames to keep: a link to 1,024 GPUs filled its busbw chart in 5.2 s rather than 8.6 on
    /// two cores, `cargo xtask bench`); else a core is left to it again, and the workers beyond
    /// are stopped (what they held is started again by the caller, as after `stop_where`).
    pub fn set_idle(&mut self, idle: bool) {
        self.size = workers_for(self.cores, self.most, idle);
        let keep = self.size.min(self.slots.len());
        self.slots.drain(keep..).for_each(|slot| slot.stop());
    }

    /// How many tasks the workers may hold at once with `open` left to run (those they hold
    /// included): `depth` each, but never more than a worker's share of what is left (a page's
    /// largest points come last, and one worker queueing three would leave the others idle).
    pub fn capacity(&self, open: usize) -> usize {
        self.size * self.depth.min(open.div_ceil(self.size)).max(1)
    }

    /// Lets each worker hold `depth` tasks: the one it runs and the next ones, queued in the
    /// worker, so it starts the next the moment it answers rather than when the page's thread,
    /// busy with a slice of its own, has heard the answer and posted another (small tasks, a
    /// busbw chart's points of a few ms, waited up to a slice each).
    pub fn set_depth(&mut self, depth: usize) {
        self.depth = depth.max(1);
    }

    /// Whether workers cannot run here (said once, by `Report::Broken`).
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    /// The tags of the tasks running or queued in a worker.
    pub fn running(&self) -> Vec<T> {
        self.slots.iter().flat_map(|s| s.tasks.iter().map(|(_, tag)| tag.clone())).collect()
    }

    /// Stops the workers holding a task `unwanted` says is no longer wanted, with the others
    /// they held (`feed_curve` starts those again; the training view's workers hold one).
    pub fn stop_where(&mut self, unwanted: impl Fn(&T) -> bool) {
        self.retired.clear();
        self.slots.retain(|slot| {
            let stale = slot.tasks.iter().any(|(_, tag)| unwanted(tag));
            if stale {
                slot.stop();
            }
            !stale
        });
    }

    /// Stops every worker.
    pub fn stop_all(&mut self) {
        self.retired.clear();
        self.slots.iter().for_each(Slot::stop);
        self.slots.clear();
    }

    /// Starts task `tag` (`kind` and `input`, as `crate::worker` reads them) on an idle worker,
    /// or a new one if the pool has room, else queues it on the worker holding fewest (below
    /// `depth`); false if none has room. Returns why, once, where workers cannot start (the
    /// caller tells the page, the pool no longer borrowed).
    pub fn start(&mut self, tag: T, kind: &str, input: String) -> Result<bool, String> {
        if self.broken {
            return Ok(false);
        }
        let slot = match self.next_slot() {
            Some(slot) if slot == self.slots.len() => match self.spawn() {
                Ok(slot) => slot,
                Err(why) => return Err(self.break_down(why)),
            },
            Some(slot) => slot,
            None => return Ok(false),
        };
        let id = self.next_id;
        self.next_id += 1;
        let message = object(&[
            ("id", JsValue::from_f64(id as f64)),
            ("kind", JsValue::from_str(kind)),
            ("input", JsValue::from_str(&input)),
        ]);
        if let Err(error) = self.slots[slot].worker.post_message(&message) {
            return Err(self.break_down(format!("a worker refused a task: {}", text(&error))));
        }
        self.slots[slot].tasks.push_back((id, tag));
        Ok(true)
    }

    /// The worker `start` gives its next task to: an idle one, else a new one (`slots.len()`)
    /// while the pool may grow, else the least busy one with room in its queue; `None` if every
    /// queue is full.
    pub fn next_slot(&self) -> Option<usize> {
        let least = (0..self.slots.len()).min_by_key(|&i| self.slots[i].tasks.len());
        match least {
            Some(idle) if self.slots[idle].tasks.is_empty() => Some(idle),
            _ if self.slots.len() < self.size => Some(self.slots.len()),
            Some(queue) if self.slots[queue].tasks.len() < self.depth => Some(queue),
            _ => None,
        }
    }

    /// Starts one more worker on the page's module; its index in `slots`.
    fn spawn(&mut self) -> Result<usize, String> {
        let module = self.module.clone().ok_or("the page's module is not preloaded")?;
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options(WORKER_SCRIPT, &options).map_err(|e| text(&e))?;
        let serial = self.next_serial;
        self.next_serial += 1;
        let this = self.this.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let Some(pool) = this.upgrade() else { return };
            // The borrow ends before the page hears of it: the page's effects use the pool.
            let heard = pool.borrow_mut().receive(serial, &event.data());
            if let Some((report, heard)) = heard {
                report(heard);
            }
        });
        let this = self.this.clone();
        let on_error = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            let Some(pool) = this.upgrade() else { return };
            let why = event
                .dyn_ref::<web_sys::ErrorEvent>()
                .map_or_else(|| "the worker's script did not load".to_string(), |e| e.message());
            let report = pool.borrow().report.clone();
            pool.borrow_mut().break_down(why.clone());
            report(Report::Broken(why));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        // The module compiled once, by the page: the worker only instantiates it.
        let start = object(&[("module", JsValue::from_str(&module)), ("wasm", wasm_bindgen::module())]);
        worker.post_message(&start).map_err(|e| text(&e))?;
        let tasks = std::collections::VecDeque::new();
        self.slots.push(Slot { serial, worker, tasks, _on_message: on_message, _on_error: on_error });
        Ok(self.slots.len() - 1)
    }

    /// A worker's message: the report it makes, with the function to make it by.
    #[allow(clippy::type_complexity)]
    fn receive(&mut self, serial: u64, data: &JsValue) -> Option<(Rc<dyn Fn(Report<T>)>, Report<T>)> {
        let field =
            |name: &str| Reflect::get(data, &JsValue::from_str(name)).ok().filter(|v| !v.is_undefined());
        if let Some(why) = field("init_error") {
            let why = self.break_down(text(&why));
            return Some((self.report.clone(), Report::Broken(why)));
        }
        let id = field("id")?.as_f64()? as u64;
        let at = self.slots.iter().position(|s| s.serial == serial)?;
        // A worker answers its tasks in the order they were posted.
        if self.slots[at].tasks.front().map(|(task, _)| *task) != Some(id) {
            return None;
        }
        let (_, tag) = self.slots[at].tasks.pop_front()?;
        let result = match (field("result").and_then(|r| r.as_string()), field("error")) {
            (Some(json), _) => Ok(json),
            (None, error) => {
                // A worker whose module failed on a task is not used again.
                let slot = self.slots.remove(at);
                slot.stop();
                self.retired.push(slot);
                Err(error.map_or_else(|| "no answer".into(), |e| text(&e)))
            }
        };
        Some((self.report.clone(), Report::Done { tag, result }))
    }

    /// Stops every worker for good; why.
    fn break_down(&mut self, why: String) -> String {
        for slot in self.slots.drain(..) {
            slot.stop();
            self.retired.push(slot);
        }
        self.broken = true;
        why
    }
}

/// Workers for `cores` cores: one per core but one, or one per core while the page is `idle`;
/// at least 1, at most `most` and `MOST_WORKERS`.
fn workers_for(cores: usize, most: usize, idle: bool) -> usize {
    let free = if idle { cores } else { cores.saturating_sub(1) };
    free.clamp(1, most.clamp(1, MOST_WORKERS))
}

impl<T: Clone + 'static> Drop for Pool<T> {
    fn drop(&mut self) {
        self.slots.iter().for_each(Slot::stop);
    }
}

/// A busbw chart point's task: its curve's generation and its point.
pub type PointTask = (u64, PointKey);

/// Keeps `pool`'s workers busy with `curve`'s open points, the size shown first, then the first
/// worker from the front of the chart and the second from its back (all but the one the main
/// thread works on while it is `main_helping`): stops a worker on a point of an earlier
/// curve, and every worker once the curve is complete or unless `wanted` (the main thread
/// simulates a change the reader made: it gets the cores, and a point stopped half-way is
/// simulated again later if the curve still needs it); none takes `left`, the point the link's
/// own run will give. Returns why, once, where workers cannot start.
pub fn feed_curve(
    pool: &mut Pool<PointTask>,
    (curve, size): (&Curve, u64),
    (wanted, left): (bool, Option<PointKey>),
    main_helping: bool,
) -> Option<String> {
    if pool.is_broken() {
        return None;
    }
    if curve.is_complete() || !wanted {
        pool.stop_all();
        return None;
    }
    pool.stop_where(|&(generation, _)| generation != curve.generation);
    let busy = running_points(pool);
    let main = curve.main_point().filter(|_| main_helping);
    let mut running = busy.len();
    let capacity = pool.capacity(curve.open().filter(|key| Some(*key) != main).count());
    // `left`: the point the link's own run will give (`AppState::share_point`).
    let mut taken: Vec<PointKey> = busy.into_iter().chain(main).chain(left).collect();
    while running < capacity {
        // Every second worker takes the chart from its back (`Curve::next_open`).
        let Some(slot) = pool.next_slot() else { break };
        let Some(key) = curve.next_open(size, &taken, slot % 2 == 1) else { break };
        taken.push(key);
        let json = serde_json::to_string(&point_scenario(&curve.scenario, key)).unwrap_or_default();
        match pool.start((curve.generation, key), "chart", json) {
            Ok(true) => running += 1,
            Ok(false) => break,
            Err(why) => return Some(why),
        }
    }
    None
}

/// The chart points `pool`'s workers are running.
pub fn running_points(pool: &Pool<PointTask>) -> Vec<PointKey> {
    pool.running().into_iter().map(|(_, key)| key).collect()
}

/// A worker's answer on a chart point: its outcome, or the curve stopped with why.
pub fn point_outcome(key: PointKey, result: Result<String, String>) -> PointOutcome {
    match result {
        Ok(json) => serde_json::from_str(&json)
            .unwrap_or_else(|e| PointOutcome::Stopped(format!("a worker's answer did not read: {e}"))),
        Err(why) => PointOutcome::Stopped(format!("the busbw chart's point of {} B failed: {why}", key.0)),
    }
}

/// A finer run given to a worker: the pending simulation's id and the task.
pub type FinerTag = (u64, Box<fabricscope::FinerTask>);

/// Gives the pending simulation's NVLSTree finer run, once its job gives it out
/// (`Job::finer_task`), to a worker of `pool` (made on first use), which runs it while the main
/// thread's slices run the model's run; its end comes back as `Action::FinerEnded`, and a worker
/// still on an earlier one is stopped. Where workers cannot run, or one fails, the job runs it
/// in its slices, as it would have. Not for the run a link opens on: the busbw chart's workers
/// then have the cores beside it (a worker more made a link's 1,024-GPU chart 4.6 -> 5.2 s), and
/// the chart's point at the size shown is the same NVLSTree.
pub fn give_finer(pool: &RefCell<Option<Rc<RefCell<Pool<FinerTag>>>>>, state: &UseReducerHandle<AppState>) {
    let Some(pending) = state.pending.as_ref().filter(|pending| !pending.opening) else { return };
    let Some(task) = pending.job.borrow_mut().finer_task() else { return };
    let Ok(input) = serde_json::to_string(&task) else { return };
    let pool = pool
        .borrow_mut()
        .get_or_insert_with(|| {
            let dispatch = state.dispatcher();
            Pool::new(1, move |report| match report {
                Report::Done { tag: (id, task), result } => {
                    match result.and_then(|reply| finer_end(&reply)) {
                        Ok(end) => dispatch.dispatch(Action::FinerEnded { id, task, end }),
                        Err(why) => gloo::console::warn!(format!(
                            "NVLSTree's finer run: {why}; simulating it on the main thread"
                        )),
                    }
                }
                Report::Broken(why) => warn_no_workers("NVLSTree's finer run", &why),
            })
        })
        .clone();
    let mut pool = pool.borrow_mut();
    pool.stop_all();
    if let Err(why) = pool.start((pending.id, Box::new(task)), "finer", input) {
        warn_no_workers("NVLSTree's finer run", &why);
    }
}

/// Stops the finer runs' worker (`give_finer`) unless it runs pending simulation `pending`'s:
/// idle, its memory goes with it; on a simulation shown, cancelled or replaced, it would run on
/// to an end nobody reads.
pub fn stop_finer_not_of(pool: &RefCell<Option<Rc<RefCell<Pool<FinerTag>>>>>, pending: Option<u64>) {
    if let Some(pool) = pool.borrow().as_ref() {
        let mut pool = pool.borrow_mut();
        if !pool.running().iter().any(|(id, _)| Some(*id) == pending) {
            pool.stop_all();
        }
    }
}

/// What a worker's finer run (`crate::worker::finer_run`'s reply) came to: its end [ns], `None`
/// beyond the limit, or why there is none.
pub fn finer_end(reply: &str) -> Result<Option<u64>, String> {
    let value: serde_json::Value = serde_json::from_str(reply).map_err(|e| e.to_string())?;
    match (value.get("end"), value.get("error")) {
        (Some(end), _) if end.is_null() => Ok(None),
        (Some(end), _) => end.as_u64().map(Some).ok_or_else(|| format!("not an end: {end}")),
        (None, Some(why)) => Err(why.as_str().unwrap_or("the worker failed").to_string()),
        (None, None) => Err(format!("not a reply: {reply}")),
    }
}

/// Says in the console that `what` runs on the main thread, because workers cannot run: `why`.
pub fn warn_no_workers(what: &str, why: &str) {
    gloo::console::warn!(format!("{what}: no workers ({why}); simulating on the main thread"));
}

/// A plain JS object of `fields`.
fn object(fields: &[(&str, JsValue)]) -> Object {
    let object = Object::new();
    for (name, value) in fields {
        let _ = Reflect::set(&object, &JsValue::from_str(name), value);
    }
    object
}

/// What a JS value says, for a message.
fn text(value: &JsValue) -> String {
    value.as_string().unwrap_or_else(|| format!("{value:?}"))
}
