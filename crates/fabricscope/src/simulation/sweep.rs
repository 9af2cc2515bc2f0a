//! Sweeps over message sizes, as nccl-tests' `-b -e -f` do: one simulation per size.

use super::Simulation;
use crate::plan::ValidScenario;
use crate::scenario::ScenarioError;
use crate::units::{round_to_elements, ELEM_BYTES};
use serde::{Deserialize, Serialize};

/// One row of a size sweep (read back where a page's worker sends it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    pub size_bytes: u64,
    /// Elements of 4-byte float.
    pub count: u64,
    pub time_us: f64,
    pub algbw_gbyte_per_s: f64,
    pub busbw_gbyte_per_s: f64,
    /// The algorithm and protocol it ran with.
    pub algorithm: crate::collective::Algorithm,
    pub protocol: crate::collective::Protocol,
    /// NCCL's model's prediction for that protocol [us].
    pub tuner_time_us: f64,
    /// `Trace::hash_hex` of the run: the page shows the same for the same scenario.
    pub trace_hash: String,
    /// How the figures were obtained.
    pub method: super::Method,
    /// The tuner's pick where another algorithm ran (`Simulation::tuner_pick_not_run`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tuner_pick_not_run: Option<crate::collective::Algorithm>,
    /// NCCL's model's time for that pick [us] (`Simulation::tuner_pick_predicted_ns`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tuner_pick_time_us: Option<f64>,
    /// NVLSTree cut into fewer chunks than NCCL cuts: the fit to NCCL's (`Simulation::chunk_fit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_fit: Option<super::ChunkFit>,
    /// A ring run at fewer elements, whose steps are alike (`Simulation::rounded`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounded_count: Option<u64>,
    /// Where no engine ran (`Method::Bounded`): the upper bound max-min sharing proves on the
    /// time [us] (the time is the lower).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper_bound_us: Option<f64>,
    /// Where a chain ran on fewer nodes and was extrapolated (`Method::Chain`): that run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain: Option<super::ChainRun>,
}

/// A sweep's point simulated a slice at a time (`Job::point`): `poll` as `Job::poll`, giving
/// the point's figures (`sweep_point`, no trace hash). Its simulation stays inside: where a
/// run of fewer transfers stood for all, its trace is that run's, whose times are the whole's
/// but whose flows and link bytes are not.
#[derive(Debug)]
pub struct PointJob(super::Job, bool);

impl PointJob {
    pub(super) fn of(job: super::Job) -> PointJob {
        PointJob(job, false)
    }

    /// The point with its trace hash (`Job::point_hashed`).
    pub(super) fn hashed(job: super::Job) -> PointJob {
        PointJob(job, true)
    }

    /// Runs up to `batches` event batches; the point once the simulation is done.
    pub fn poll(&mut self, batches: u64) -> Option<Result<SweepPoint, ScenarioError>> {
        let hash = self.1;
        self.0.poll(batches).map(|result| result.map(|sim| sweep_point(&sim, hash)))
    }

    /// Polls the job to its end: the point.
    pub fn run(self) -> Result<SweepPoint, ScenarioError> {
        let hash = self.1;
        self.0.run().map(|sim| sweep_point(&sim, hash))
    }

    /// As `Job::progress`.
    pub fn progress(&self) -> f64 {
        self.0.progress()
    }
}

/// Sizes from `min` to `max` multiplying by `factor`, as nccl-tests' `-b -e -f` do; each rounded
/// down to a multiple of 4 bytes and at least 4.
pub fn sweep_sizes(min: u64, max: u64, factor: u64) -> Vec<u64> {
    let mut sizes = Vec::new();
    let mut size = min.max(4);
    while size <= max {
        sizes.push(round_to_elements(size));
        match size.checked_mul(factor.max(2)) {
            Some(next) => size = next,
            None => break,
        }
    }
    sizes.dedup();
    sizes
}

/// Runs the scenario at every size.
pub fn sweep(scenario: &ValidScenario, sizes: &[u64]) -> Result<Vec<SweepPoint>, Vec<ScenarioError>> {
    sweep_hashed(scenario, sizes, true)
}

/// `sweep` without the trace hashes (`trace_hash` left empty): hashing every segment of a
/// large trace costs as much as a fifth of simulating it, and a chart does not show it.
pub fn sweep_unhashed(
    scenario: &ValidScenario,
    sizes: &[u64],
) -> Result<Vec<SweepPoint>, Vec<ScenarioError>> {
    sweep_hashed(scenario, sizes, false)
}

fn sweep_hashed(
    scenario: &ValidScenario,
    sizes: &[u64],
    hash: bool,
) -> Result<Vec<SweepPoint>, Vec<ScenarioError>> {
    sizes.iter().map(|&size| sweep_size(scenario, size, hash)).collect()
}

/// One size of a sweep: the scenario at `size`, simulated, as its row (`trace_hash` empty
/// unless `hash`). A caller that runs sizes side by side (the CLI) calls it per size.
pub fn sweep_size(scenario: &ValidScenario, size: u64, hash: bool) -> Result<SweepPoint, Vec<ScenarioError>> {
    // A row needs only what ran: a forced algorithm alone is weighed, and a run of fewer
    // transfers standing for all is not expanded to the whole trace (`Job::point`; its hash
    // streamed, `Job::point_hashed`).
    let job = super::Job::new(&scenario.with_size(size)?, super::Mode::Auto);
    match hash {
        false => job.point().run(),
        true => job.point_hashed().run(),
    }
    .map_err(|e| vec![e])
}

/// A simulation's row of a sweep (`trace_hash` empty unless `hash`).
pub fn sweep_point(sim: &Simulation, hash: bool) -> SweepPoint {
    SweepPoint {
        size_bytes: sim.summary.size_bytes,
        count: sim.summary.size_bytes / ELEM_BYTES,
        time_us: sim.summary.time.as_us(),
        algbw_gbyte_per_s: sim.summary.algbw_gbyte_per_s,
        busbw_gbyte_per_s: sim.summary.busbw_gbyte_per_s,
        algorithm: sim.schedule.algorithm,
        protocol: sim.schedule.protocol,
        tuner_time_us: sim
            .tuning
            .rows
            .iter()
            .find(|row| row.protocol == sim.schedule.protocol && row.algorithm == sim.schedule.algorithm)
            .map(|row| row.predicted_ns / 1e3)
            .unwrap_or(f64::NAN),
        // A bounded row has no trace to hash.
        trace_hash: if hash && !sim.traceless() { sim.hash_hex() } else { String::new() },
        method: sim.summary.method,
        tuner_pick_not_run: sim.tuner_pick_not_run(),
        tuner_pick_time_us: sim.tuner_pick_predicted_ns().map(|ns| ns / 1e3),
        chunk_fit: sim.chunk_fit,
        rounded_count: sim.rounded,
        upper_bound_us: sim.bounded.map(|b| b.upper_ns as f64 / 1e3),
        chain: sim.chain,
    }
}
