//! What the page's workers run (`public/fabricscope-worker.js` loads this same WebAssembly
//! module in a Web Worker): a busbw chart point (scenario JSON in, `PointOutcome` JSON out), a
//! training view's step (`TrainScenario` JSON in, `TrainReport` JSON out) and comparison
//! (`ExtraTask` JSON in, `ExtraResult` JSON out) and the shown
//! simulation's NVLSTree finer run (`FinerTask` JSON in, its end out). Only strings
//! cross: the page never copies a trace between threads.

use crate::state::collectives::PointOutcome;
use crate::state::slices::simulate_point;
use crate::state::training::{ExtraResult, ExtraTask};
use wasm_bindgen::prelude::wasm_bindgen;

/// Simulates the chart point `scenario` (JSON) to its end, as the page's main thread would in
/// slices, and returns what it came to as JSON (`{"point": …}`, `"skipped"`, `{"stopped": …}`).
#[wasm_bindgen(js_name = chartPoint)]
pub fn chart_point(scenario: &str) -> String {
    let outcome = match fabricscope::Scenario::from_json(scenario) {
        Ok(point) => simulate_point(&point),
        Err(error) => PointOutcome::Stopped(error.to_string()),
    };
    serde_json::to_string(&outcome).unwrap_or_else(|e| format!("{{\"stopped\":\"{e}\"}}"))
}

/// Runs a training view's comparison (`ExtraTask` JSON: a job and whether it is a fabric row or
/// a scaling point) to its end, as the view's slices would, and returns `{"ok": ExtraResult}`
/// or `{"error": why}` as JSON.
#[wasm_bindgen(js_name = trainExtra)]
pub fn train_extra(task: &str) -> String {
    let result = serde_json::from_str::<ExtraTask>(task).map_err(|e| e.to_string()).and_then(|task| {
        let valid = task.job.validate().map_err(|errors| joined(&errors))?;
        Ok(ExtraResult::of(task.extra, &valid, &valid.run()))
    });
    let reply = match result {
        Ok(result) => serde_json::json!({ "ok": result }),
        Err(why) => serde_json::json!({ "error": why }),
    };
    reply.to_string()
}

/// Simulates the training view's step of `job` (`TrainScenario` JSON) to its end, as the view
/// would in slices, and returns `{"ok": TrainReport}` or `{"error": why}` as JSON.
#[wasm_bindgen(js_name = trainStep)]
pub fn train_step(job: &str) -> String {
    let report = serde_json::from_str::<fabricscope::train::TrainScenario>(job)
        .map_err(|e| e.to_string())
        .and_then(|job| job.validate().map_err(|errors| joined(&errors)))
        .map(|valid| valid.run());
    let reply = match report {
        Ok(report) => serde_json::json!({ "ok": report }),
        Err(why) => serde_json::json!({ "error": why }),
    };
    reply.to_string()
}

/// Errors as one line.
fn joined(errors: &[fabricscope::ScenarioError]) -> String {
    errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")
}

/// Runs NVLSTree's finer run (`fabricscope::FinerTask` JSON, from `Job::finer_task`) to its
/// end beside the page's own job, and returns `{"end": ns or null}` or `{"error": why}`
/// (`services::workers::finer_end` reads it).
#[wasm_bindgen(js_name = finerRun)]
pub fn finer_run(task: &str) -> String {
    let result = serde_json::from_str::<fabricscope::FinerTask>(task)
        .map_err(|e| e.to_string())
        .and_then(|task| task.run());
    let reply = match result {
        Ok(end) => serde_json::json!({ "end": end }),
        Err(why) => serde_json::json!({ "error": why }),
    };
    reply.to_string()
}

#[cfg(test)]
mod tests {
    use super::chart_point;
    use crate::state::collectives::{page_demo, AppState, PointOutcome};
    use crate::state::page_job::now_ms;
    use crate::state::slices::{curve_slice, point_scenario};
    use fabricscope::Scenario;
    use std::rc::Rc;
    use yew::Reducible;

    /// A worker's points, through JSON both ways, are the points the main thread's slices
    /// simulate, bit for bit (busbw, time, trace hash), and a curve fed them in reverse order
    /// is the curve fed them in order.
    #[test]
    fn a_workers_points_are_the_main_threads_whatever_order_they_arrive_in() {
        let scenario = Scenario { nodes: 2, ..page_demo() };
        let mut sliced = Rc::new(AppState::new(scenario.clone(), crate::i18n::Lang::En, false).unwrap());
        while !sliced.curve.is_complete() {
            let report = curve_slice(&sliced, now_ms, crate::state::slices::Helping::Alone)
                .expect("a point to work on");
            sliced = sliced.reduce(report);
        }
        let base = AppState::new(scenario.clone(), crate::i18n::Lang::En, false).unwrap();
        let keys: Vec<_> = base.curve.todo.iter().copied().collect();
        let mut curve = base.curve.clone();
        for &key in keys.iter().rev() {
            let json = serde_json::to_string(&point_scenario(&scenario, key)).unwrap();
            let outcome: PointOutcome = serde_json::from_str(&chart_point(&json)).unwrap();
            let before = curve.points.len();
            curve = curve.with(curve.generation, key, outcome).expect("a point still to show").0;
            if key != keys[0] {
                assert_eq!(curve.points.len(), before, "a later point waits for the ones ahead");
            }
        }
        assert!(curve.is_complete() && curve.early.is_empty());
        assert_eq!(*curve.points, *sliced.curve.points);
        assert_eq!(curve.points.len(), keys.len());
        // A report on the curve before a restart is stale.
        let restarted = curve.restart(&Scenario { nodes: 4, ..page_demo() });
        let late = PointOutcome::Skipped;
        assert!(restarted.with(curve.generation, restarted.todo[0], late).is_none());
    }

    #[test]
    fn a_point_a_worker_cannot_read_stops_the_curve_with_the_reason() {
        let outcome: PointOutcome = serde_json::from_str(&chart_point("{\"nodes\": -1}")).unwrap();
        assert!(matches!(outcome, PointOutcome::Stopped(ref m) if !m.is_empty()), "{outcome:?}");
    }

    /// A worker's comparison, through JSON both ways, is what the view's slices compute: the
    /// same fabric row and the same scaling point.
    #[test]
    fn a_workers_comparison_is_the_views_own() {
        use crate::state::training::{Extra, ExtraResult, ExtraTask};
        use fabricscope::train::{on_fabric, scaled, TrainScenario};
        let job = TrainScenario::default_demo();
        for (extra, task_job) in [
            (
                Extra::Fabric(fabricscope::catalog::Technology::Roce),
                on_fabric(&job, fabricscope::catalog::Technology::Roce),
            ),
            (Extra::Scaling, scaled(&job, 2 * job.dp).unwrap()),
        ] {
            let task = serde_json::to_string(&ExtraTask { job: task_job.clone(), extra }).unwrap();
            let reply: serde_json::Value = serde_json::from_str(&super::train_extra(&task)).unwrap();
            let from_worker: ExtraResult = serde_json::from_value(reply["ok"].clone()).unwrap();
            let valid = task_job.validate().unwrap();
            let mut sliced = fabricscope::train::TrainJob::new(valid.clone());
            let report = loop {
                if let Some(report) = sliced.poll(64) {
                    break report;
                }
            };
            assert_eq!(from_worker, ExtraResult::of(extra, &valid, &report), "{extra:?}");
        }
        let reply: serde_json::Value = serde_json::from_str(&super::train_extra("{}")).unwrap();
        assert!(reply["error"].as_str().is_some_and(|e| !e.is_empty()), "{reply}");
    }

    /// A worker's training step, through JSON both ways, is the step one call gives, to the bit
    /// (an op extrapolated from its ring's first steps included); a job that does not read or
    /// is not valid says why.
    #[test]
    fn a_workers_training_step_is_the_views_own() {
        use fabricscope::train::{TrainReport, TrainScenario};
        let mut dp = TrainScenario::default_demo();
        dp.cluster.nodes = 64;
        dp.model = "llama2-7b".into();
        (dp.tp, dp.pp, dp.dp, dp.global_batch) = (1, 1, 512, 512);
        let extrapolated = |r: &TrainReport| {
            r.ops.iter().any(|op| matches!(op.method, fabricscope::train::comm::OpMethod::Extrapolated(_)))
        };
        for (job, extrapolates) in [(TrainScenario::default_demo(), false), (dp, true)] {
            let reply: serde_json::Value =
                serde_json::from_str(&super::train_step(&serde_json::to_string(&job).unwrap())).unwrap();
            let from_worker: TrainReport = serde_json::from_value(reply["ok"].clone()).unwrap();
            assert_eq!(from_worker, job.validate().unwrap().run());
            assert_eq!(extrapolated(&from_worker), extrapolates);
        }
        let bad = TrainScenario { tp: 3, ..TrainScenario::default_demo() };
        for input in ["{}".to_string(), serde_json::to_string(&bad).unwrap()] {
            let reply: serde_json::Value = serde_json::from_str(&super::train_step(&input)).unwrap();
            assert!(reply["error"].as_str().is_some_and(|e| !e.is_empty()), "{reply}");
        }
    }

    /// The shown simulation's finer run, through JSON to a worker and back, is the page's job's
    /// own: given back (`Job::finer_done`), the result is the job's alone; a task that does not
    /// read says why.
    #[test]
    fn a_workers_finer_run_is_the_jobs_own() {
        use crate::services::workers::finer_end;
        use fabricscope::{Job, Scenario};
        let scenario = Scenario { nodes: 8, size_bytes: 1 << 30, ..Scenario::default_demo() };
        let valid = scenario.validate().unwrap();
        let job = || crate::state::page_job::page_job(&valid).unwrap();
        let alone = job().run().unwrap();
        let mut polled: Job = job();
        let mut given = false;
        let sim = loop {
            if let Some(result) = polled.poll(64) {
                break result.unwrap();
            }
            if let Some(task) = polled.finer_task() {
                let reply = super::finer_run(&serde_json::to_string(&task).unwrap());
                let end = finer_end(&reply).unwrap();
                assert!(end.is_some(), "{reply}");
                polled.finer_done(&task, end);
                given = true;
            }
        };
        assert!(given, "the finer run is given out");
        assert_eq!(sim.schedule.algorithm, fabricscope::collective::Algorithm::NvlsTree);
        assert!(sim.chunk_fit.is_some_and(|fit| fit.fine_ns.is_some()));
        assert_eq!((sim.summary, sim.chunk_fit), (alone.summary, alone.chunk_fit));
        assert!(finer_end(&super::finer_run("{}")).is_err_and(|why| !why.is_empty()));
    }
}
