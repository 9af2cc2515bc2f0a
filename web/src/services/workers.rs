//! The page's workers: a small pool of Web Workers, each running the page's own WebAssembly
//! module (`public/fabricscope-worker.js` imports the JS the page preloads and instantiates the
//! compiled WebAssembly the page sends it, so nothing is downloaded or compiled again), that simulate the busbw chart's points off the main thread and side by side.
//! A point goes out as scenario JSON and comes back as `PointOutcome` JSON (`crate::worker`):
//! no trace crosses threads.
//!
//! Workers start when there are points to simulate and stop when the curve is complete (their
//! memory goes with them) or when the hardware changes under a point they are simulating. Where
//! workers cannot run (no module to load, a worker that fails to start), the pool says so once
//! (`Report::Broken`) and the page simulates the points on the main thread in slices instead.

use crate::state::collectives::{Curve, PointKey, PointOutcome};
use crate::state::slices::point_scenario;
use fabricscope::Scenario;
use js_sys::{Object, Reflect};
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Event, HtmlLinkElement, MessageEvent, Worker, WorkerOptions, WorkerType};

/// The worker's script, beside the page.
const WORKER_SCRIPT: &str = "fabricscope-worker.js";
/// Most workers, whatever the machine: each holds a copy of the module's memory.
const MOST_WORKERS: usize = 4;

/// What the pool tells the page.
pub enum Report {
    /// Point `key` of curve `generation` came to `outcome`.
    Point { generation: u64, key: PointKey, outcome: PointOutcome },
    /// Workers cannot run here, and why: simulate on the main thread instead.
    Broken(String),
}

struct Task {
    id: u64,
    generation: u64,
    key: PointKey,
}

struct Slot {
    serial: u64,
    worker: Worker,
    task: Option<Task>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(Event)>,
}

impl Slot {
    /// Stops the worker; a message it already sent finds no handler.
    fn stop(&self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

pub struct Pool {
    slots: Vec<Slot>,
    /// Slots stopped from inside one of their own handlers, dropped at the next `feed`.
    retired: Vec<Slot>,
    size: usize,
    module: Option<String>,
    next_id: u64,
    next_serial: u64,
    broken: bool,
    report: Rc<dyn Fn(Report)>,
    this: Weak<RefCell<Pool>>,
}

impl Pool {
    /// A pool of a worker per core but one (the page's own thread and its compositor keep a core:
    /// on two cores, two busy workers made frames wait 100 ms), at least one and at most
    /// `MOST_WORKERS`, none started yet, that tells the page what it came to through `report`.
    pub fn new(report: impl Fn(Report) + 'static) -> Rc<RefCell<Pool>> {
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
                size: (cores as usize).saturating_sub(1).clamp(1, MOST_WORKERS),
                module,
                next_id: 0,
                next_serial: 0,
                broken: false,
                report: Rc::new(report),
                this: this.clone(),
            })
        })
    }

    /// How many workers may run at once.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Keeps up to `limit` workers busy with `curve`'s open points of `scenario`'s hardware:
    /// stops a worker on a point of an earlier curve, and every worker once the curve is
    /// complete or while `limit` is 0. Returns why, once, where workers cannot start (the caller tells the page, the
    /// pool no longer borrowed).
    pub fn feed(&mut self, scenario: &Scenario, curve: &Curve, limit: usize) -> Option<String> {
        self.retired.clear();
        if self.broken {
            return None;
        }
        self.slots.retain(|slot| {
            let stale = slot.task.as_ref().is_some_and(|task| task.generation != curve.generation);
            if stale {
                slot.stop();
            }
            !stale
        });
        // Complete, or no worker allowed (the main thread simulates a change: it gets the cores,
        // and a point stopped half-way is simulated again later if the curve still needs it).
        if curve.is_complete() || limit == 0 {
            self.slots.iter().for_each(Slot::stop);
            self.slots.clear();
            return None;
        }
        let busy: Vec<PointKey> = self.slots.iter().filter_map(|s| s.task.as_ref().map(|t| t.key)).collect();
        let mut open = curve.open().filter(|key| !busy.contains(key));
        let mut running = busy.len();
        while running < limit.min(self.size) {
            let Some(key) = open.next() else { break };
            let slot = match self.slots.iter().position(|s| s.task.is_none()) {
                Some(idle) => idle,
                None => match self.spawn() {
                    Ok(slot) => slot,
                    Err(why) => return Some(self.break_down(why)),
                },
            };
            let id = self.next_id;
            self.next_id += 1;
            let json = serde_json::to_string(&point_scenario(scenario, key)).unwrap_or_default();
            let message =
                object(&[("id", JsValue::from_f64(id as f64)), ("scenario", JsValue::from_str(&json))]);
            if let Err(error) = self.slots[slot].worker.post_message(&message) {
                return Some(self.break_down(format!("a worker refused a point: {}", text(&error))));
            }
            self.slots[slot].task = Some(Task { id, generation: curve.generation, key });
            running += 1;
        }
        None
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
            // The borrow ends before the page hears of it: the page's effects feed the pool.
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
            pool.borrow_mut().stop_all();
            pool.borrow_mut().broken = true;
            report(Report::Broken(why));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        // The module compiled once, by the page: the worker only instantiates it.
        let start = object(&[("module", JsValue::from_str(&module)), ("wasm", wasm_bindgen::module())]);
        worker.post_message(&start).map_err(|e| text(&e))?;
        self.slots.push(Slot { serial, worker, task: None, _on_message: on_message, _on_error: on_error });
        Ok(self.slots.len() - 1)
    }

    /// A worker's message: the report it makes, with the function to make it by.
    #[allow(clippy::type_complexity)]
    fn receive(&mut self, serial: u64, data: &JsValue) -> Option<(Rc<dyn Fn(Report)>, Report)> {
        let field =
            |name: &str| Reflect::get(data, &JsValue::from_str(name)).ok().filter(|v| !v.is_undefined());
        if let Some(why) = field("init_error") {
            self.stop_all();
            self.broken = true;
            return Some((self.report.clone(), Report::Broken(text(&why))));
        }
        let id = field("id")?.as_f64()? as u64;
        let at = self.slots.iter().position(|s| s.serial == serial)?;
        if self.slots[at].task.as_ref().map(|t| t.id) != Some(id) {
            return None;
        }
        let task = self.slots[at].task.take()?;
        let outcome = match (field("result").and_then(|r| r.as_string()), field("error")) {
            (Some(json), _) => serde_json::from_str(&json)
                .unwrap_or_else(|e| PointOutcome::Stopped(format!("a worker's answer did not read: {e}"))),
            (None, error) => {
                // A worker whose module failed on a point is not used again.
                let slot = self.slots.remove(at);
                slot.stop();
                self.retired.push(slot);
                let why = error.map_or_else(|| "no answer".into(), |e| text(&e));
                PointOutcome::Stopped(format!("the busbw chart's point of {} B failed: {why}", task.key.0))
            }
        };
        Some((self.report.clone(), Report::Point { generation: task.generation, key: task.key, outcome }))
    }

    fn stop_all(&mut self) {
        for slot in self.slots.drain(..) {
            slot.stop();
            self.retired.push(slot);
        }
    }

    fn break_down(&mut self, why: String) -> String {
        self.stop_all();
        self.broken = true;
        why
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.slots.iter().for_each(Slot::stop);
    }
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
