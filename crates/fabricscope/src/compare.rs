//! A measured nccl-tests run against the model of the same cluster: per-size ratios, where the
//! gap opens (latency-bound sizes or bandwidth-bound ones), and a least-squares fit of the
//! model's free parameters to the measurement.
//!
//! The parameters are the bottleneck link class's: across nodes the NIC's efficiency and
//! latency (`links.nic`), inside one node NVLink's (or PCIe's on a PCIe server). The fit
//! minimises `Σ ln(t_model / t_measured)²` over the run's sizes (relative errors, so small sizes
//! weigh as much as large ones) by Levenberg-Marquardt: residuals' derivatives by forward
//! differences of 1% (the model's times are piecewise in the parameters: the tuner's pick and
//! the chunks it cuts change at thresholds, and a 0.1% difference read their steps as the slope,
//! stopping 2 DGX H100's fit at efficiency 0.64 where the truth was 0.71), the efficiency kept
//! in [0.02, 1] and the latency in [0, 1 ms] per hop, until a step moves both by less than
//! 0.01% (at most 40 steps). Efficiency decides the bandwidth-bound sizes and latency the small
//! ones, so the two separate and the fit settles in a few steps.

use crate::logs::LogRun;
use crate::plan::ValidScenario;
use crate::scenario::{LinkOverride, Scenario, ScenarioError};
use serde::Serialize;

/// Most sizes of a run the comparison simulates (evenly picked when there are more).
pub const MAX_COMPARED_SIZES: usize = 32;

/// One size: measured and modelled.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareRow {
    pub size_bytes: u64,
    pub measured_time_us: f64,
    pub measured_busbw_gbyte_per_s: f64,
    pub model_time_us: f64,
    pub model_busbw_gbyte_per_s: f64,
    /// Measured over model busbw.
    pub ratio: f64,
    /// Whether the model spends more of this size's time on latency than on bytes.
    pub latency_bound: bool,
    /// The fitted model's time [us].
    pub fitted_time_us: f64,
}

impl CompareRow {
    /// The fitted model's busbw [GB/s]: the model's, scaled by its time over the fitted time.
    pub fn fitted_busbw_gbyte_per_s(&self) -> f64 {
        self.model_busbw_gbyte_per_s * self.model_time_us / self.fitted_time_us.max(f64::MIN_POSITIVE)
    }
}

/// A fitted parameter: the scenario field, its value before and after.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FitParam {
    pub field: String,
    pub before: f64,
    pub after: f64,
}

/// The comparison and the fit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub rows: Vec<CompareRow>,
    /// Median measured/model ratio over latency-bound and bandwidth-bound sizes (`None` when a
    /// class has no size).
    pub latency_ratio: Option<f64>,
    pub bandwidth_ratio: Option<f64>,
    pub params: Vec<FitParam>,
    /// Root-mean-square of `ln(model / measured)` before and after the fit.
    pub rms_before: f64,
    pub rms_after: f64,
    /// The scenario with the fitted figures.
    pub fitted: Scenario,
}

/// Which link class the fit moves, and its starting figures.
fn fitted_class(valid: &ValidScenario) -> (&'static str, f64, f64) {
    let figures = valid.link_figures();
    if valid.scenario().nodes > 1 {
        ("nic", figures.nic.efficiency, figures.nic.latency_ns as f64)
    } else if valid.preset().gpu_fabric == crate::catalog::NodeFabric::Pcie {
        ("pcie", figures.pcie.efficiency, figures.pcie.latency_ns as f64)
    } else {
        ("nvlink", figures.nvlink.efficiency, figures.nvlink.latency_ns as f64)
    }
}

fn with_class(scenario: &Scenario, class: &str, efficiency: f64, latency_ns: f64) -> Scenario {
    let mut s = scenario.clone();
    let link: &mut LinkOverride = match class {
        "nic" => &mut s.links.nic,
        "pcie" => &mut s.links.pcie,
        _ => &mut s.links.nvlink,
    };
    link.efficiency = Some(efficiency);
    link.latency_ns = Some(latency_ns.round() as u64);
    s
}

/// The cluster a run's device list names: the node preset of its GPUs (`logs::preset_for_device`)
/// and one node per host, the fabric and link figures from `base` (not its faults or forced
/// algorithm and protocol: the log ran NCCL's own choice on the cluster it measured); with the
/// run's collective (or `base`'s when it does not say) and its smallest size. `Ok(None)`: the log has no device list. An error when
/// no preset has the GPUs or a host runs a different number of ranks than the preset has GPUs.
pub fn cluster_of(run: &LogRun, base: &Scenario) -> Result<Option<Scenario>, Vec<ScenarioError>> {
    let problem = |problem: String| vec![ScenarioError { field: "log".into(), problem }];
    let (hosts, per_host) = run.hosts();
    let (Some(device), Some(per_host)) = (run.devices.first(), per_host) else {
        return Ok(None);
    };
    let Some(preset) = crate::logs::preset_for_device(&device.name) else {
        return Err(problem(format!("no node preset has the log's GPUs ({})", device.name)));
    };
    let mut scenario = Scenario { preset: preset.into(), nodes: hosts.len() as u32, ..base.clone() };
    scenario.custom = None;
    scenario.imported = None;
    scenario.faults.clear();
    (scenario.algorithm, scenario.protocol) = (None, None);
    let gpus = scenario.validate_fabric().map(|v| v.preset().gpus_per_node).unwrap_or(per_host);
    if gpus != per_host {
        return Err(problem(format!(
            "the log runs {per_host} ranks on each host, and a {preset} node has {gpus} GPUs: describe the cluster as a custom node of {per_host}"
        )));
    }
    for_run(run, &mut scenario);
    Ok(Some(scenario))
}

/// Sets `scenario`'s collective to the run's (when it says) and its size to the run's smallest.
pub fn for_run(run: &LogRun, scenario: &mut Scenario) {
    if let Some(collective) = run.collective {
        scenario.collective = collective;
    }
    scenario.size_bytes = run.rows.iter().map(|r| r.size_bytes).find(|&s| s >= 4 && s % 4 == 0).unwrap_or(4);
}

/// Compares `run` with the model of `valid`'s cluster (its collective is the run's) and fits,
/// all at once (`Fitting` is the same a simulation at a time).
pub fn compare(run: &LogRun, valid: &ValidScenario) -> Result<Comparison, Vec<ScenarioError>> {
    let mut fitting = Fitting::new(run, valid)?;
    loop {
        if let Some(done) = fitting.poll() {
            return done;
        }
    }
}

/// Why a replay of the fit stopped: a simulation it needs is not done yet.
struct Need {
    entry: usize,
    size: usize,
}

/// The model's times at one (efficiency, latency): a size at a time, or why they cannot be had.
type Evaluation = (f64, f64, Result<Vec<Option<f64>>, Vec<ScenarioError>>);

/// A comparison computed one simulation at a time, for the page's slices: `poll` runs one
/// size of one model evaluation. The fit is deterministic, so each poll replays it from the
/// start over the evaluations done so far (arithmetic only) until it needs one more.
pub struct Fitting {
    measured: Vec<(u64, f64, f64)>,
    sizes: Vec<u64>,
    class: &'static str,
    start: (f64, f64),
    base: Scenario,
    factor: f64,
    memo: Vec<Evaluation>,
    simulations: u32,
}

impl Fitting {
    pub fn new(run: &LogRun, valid: &ValidScenario) -> Result<Fitting, Vec<ScenarioError>> {
        let problem = |field: &str, problem: String| vec![ScenarioError { field: field.into(), problem }];
        let mut measured: Vec<(u64, f64, f64)> = run
            .rows
            .iter()
            .filter(|r| r.size_bytes >= 4 && r.size_bytes % 4 == 0 && r.out_of_place.time_us > 0.0)
            .map(|r| (r.size_bytes, r.out_of_place.time_us, r.out_of_place.busbw_gbyte_per_s))
            .collect();
        crate::sort::by_key(&mut measured, |m| m.0);
        measured.dedup_by_key(|m| m.0);
        if measured.is_empty() {
            return Err(problem(
                "log",
                "the run has no row with a size (a multiple of 4 bytes) and a time".into(),
            ));
        }
        if measured.len() > MAX_COMPARED_SIZES {
            let n = measured.len();
            measured =
                (0..MAX_COMPARED_SIZES).map(|i| measured[i * (n - 1) / (MAX_COMPARED_SIZES - 1)]).collect();
        }
        let (class, eff0, lat0) = fitted_class(valid);
        Ok(Fitting {
            sizes: measured.iter().map(|m| m.0).collect(),
            measured,
            class,
            start: (eff0, lat0),
            base: valid.scenario().clone(),
            factor: valid.scenario().collective.busbw_factor(valid.n_ranks()),
            memo: Vec::new(),
            simulations: 0,
        })
    }

    /// Simulations run so far (the fit takes a few hundred for a run of a dozen sizes).
    pub fn simulations(&self) -> u32 {
        self.simulations
    }

    /// Runs one simulation; the comparison once the fit is done.
    pub fn poll(&mut self) -> Option<Result<Comparison, Vec<ScenarioError>>> {
        match self.replay() {
            Ok(done) => Some(done),
            Err(Need { entry, size }) => {
                let (eff, lat, _) = self.memo[entry];
                let time = with_class(&self.base, self.class, eff, lat)
                    .validate()
                    // A sweep's point (`sweep_size`): the time alone, the same as a whole
                    // simulation's (`tests/sweep.rs`), and a forced tree beyond the engine whole
                    // runs from its channels that stand for all.
                    .and_then(|v| crate::simulation::sweep_size(&v, self.sizes[size], false));
                self.simulations += 1;
                let slot = &mut self.memo[entry].2;
                match (time, slot.as_mut()) {
                    (Ok(point), Ok(times)) => times[size] = Some(point.time_us),
                    (Err(errors), _) => *slot = Err(errors),
                    (Ok(_), Err(_)) => {}
                }
                None
            }
        }
    }

    /// The model's times at (efficiency, latency): known, known to fail, or `Need`ed.
    fn model(&mut self, eff: f64, lat: f64) -> Result<Result<Vec<f64>, Vec<ScenarioError>>, Need> {
        let entry = match self
            .memo
            .iter()
            .position(|m| m.0.to_bits() == eff.to_bits() && m.1.to_bits() == lat.to_bits())
        {
            Some(i) => i,
            None => {
                let check = with_class(&self.base, self.class, eff, lat)
                    .validate()
                    .map(|_| vec![None; self.sizes.len()]);
                self.memo.push((eff, lat, check));
                self.memo.len() - 1
            }
        };
        match &self.memo[entry].2 {
            Err(errors) => Ok(Err(errors.clone())),
            Ok(times) => match times.iter().position(Option::is_none) {
                Some(size) => Err(Need { entry, size }),
                None => Ok(Ok(times.iter().map(|t| t.unwrap_or(0.0)).collect())),
            },
        }
    }

    /// The whole comparison over the evaluations known; `Need` at the first one missing.
    fn replay(&mut self) -> Result<Result<Comparison, Vec<ScenarioError>>, Need> {
        let measured = self.measured.clone();
        let residuals = |times: &[f64]| -> Vec<f64> {
            times.iter().zip(&measured).map(|(t, m)| (t / m.1).ln()).collect()
        };
        let cost = |r: &[f64]| -> f64 { (r.iter().map(|x| x * x).sum::<f64>() / r.len() as f64).sqrt() };
        let (eff0, lat0) = self.start;
        let before = match self.model(eff0, lat0)? {
            Ok(times) => times,
            Err(errors) => return Ok(Err(errors)),
        };
        let clamp = |(e, l): (f64, f64)| (e.clamp(0.02, 1.0), l.clamp(0.0, 1e6));
        let (mut eff, mut lat) = (eff0, lat0);
        let mut r = residuals(&before);
        let mut best = cost(&r);
        let mut lambda = 1e-2;
        for _ in 0..40 {
            // Forward differences of every residual in each parameter (backward at the
            // efficiency's upper bound).
            let de = if eff * 1.01 > 1.0 { -1e-2 * eff } else { 1e-2 * eff };
            let dl = (1e-2 * lat).max(10.0);
            let (re, rl) = match (self.model(eff + de, lat)?, self.model(eff, lat + dl)?) {
                (Ok(a), Ok(b)) => (residuals(&a), residuals(&b)),
                (Err(errors), _) | (_, Err(errors)) => return Ok(Err(errors)),
            };
            let je: Vec<f64> = re.iter().zip(&r).map(|(a, b)| (a - b) / de).collect();
            let jl: Vec<f64> = rl.iter().zip(&r).map(|(a, b)| (a - b) / dl).collect();
            let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
            let (a, b, c) = (dot(&je, &je), dot(&je, &jl), dot(&jl, &jl));
            let (ge, gl) = (dot(&je, &r), dot(&jl, &r));
            let mut stepped = false;
            for _ in 0..12 {
                // (JᵀJ + λ diag JᵀJ) Δ = -Jᵀr, a 2×2 system.
                let (a2, c2) = (a * (1.0 + lambda), c * (1.0 + lambda));
                let det = a2 * c2 - b * b;
                if det.abs() < f64::MIN_POSITIVE {
                    lambda *= 4.0;
                    continue;
                }
                let step = ((-ge * c2 + gl * b) / det, (-gl * a2 + ge * b) / det);
                let next = clamp((eff + step.0, lat + step.1));
                let next_r = match self.model(next.0, next.1)? {
                    Ok(times) => residuals(&times),
                    Err(_) => {
                        lambda *= 4.0;
                        continue;
                    }
                };
                if cost(&next_r) < best {
                    let small =
                        (next.0 - eff).abs() <= 1e-4 * eff && (next.1 - lat).abs() <= (1e-4 * lat).max(1.0);
                    best = cost(&next_r);
                    (eff, lat, r) = (next.0, next.1, next_r);
                    lambda = (lambda / 3.0).max(1e-9);
                    stepped = !small;
                    break;
                }
                lambda *= 4.0;
            }
            if !stepped {
                break;
            }
        }
        let after = match self.model(eff, lat)? {
            Ok(times) => times,
            Err(errors) => return Ok(Err(errors)),
        };
        let smallest = before[0];
        let rows: Vec<CompareRow> = measured
            .iter()
            .zip(before.iter().zip(&after))
            .map(|(&(size, time, busbw), (&model_time, &fitted_time))| CompareRow {
                size_bytes: size,
                measured_time_us: time,
                measured_busbw_gbyte_per_s: busbw,
                model_time_us: model_time,
                model_busbw_gbyte_per_s: size as f64 / (model_time * 1e3) * self.factor,
                ratio: model_time / time,
                latency_bound: smallest > model_time - smallest,
                fitted_time_us: fitted_time,
            })
            .collect();
        let median = |latency: bool| {
            let mut ratios: Vec<f64> =
                rows.iter().filter(|r| r.latency_bound == latency).map(|r| r.ratio).collect();
            crate::sort::by(&mut ratios, &mut f64::total_cmp);
            (!ratios.is_empty()).then(|| ratios[ratios.len() / 2])
        };
        let class = self.class;
        Ok(Ok(Comparison {
            latency_ratio: median(true),
            bandwidth_ratio: median(false),
            params: vec![
                FitParam { field: format!("links.{class}.efficiency"), before: eff0, after: eff },
                FitParam { field: format!("links.{class}.latency_ns"), before: lat0, after: lat.round() },
            ],
            rms_before: cost(&residuals(&before)),
            rms_after: best,
            fitted: with_class(&self.base, class, eff, lat),
            rows,
        }))
    }
}
