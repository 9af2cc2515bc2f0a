//! Comparisons: how two steps differ and in which part, the same job on every fabric, and the
//! job on more nodes (scaling DP).

use super::*;

/// Where two steps differ: the whole, and the part of the breakdown that changed most.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    /// B's step over A's, minus one (0.1 = B is 10% slower).
    pub step_change: f64,
    /// The part that moved most: "compute", "tp", "pp", "dp", "bubble" or "optimizer".
    pub part: &'static str,
    pub part_a_ns: f64,
    pub part_b_ns: f64,
    /// Whether each job's TP collectives cross nodes.
    pub tp_crosses: (bool, bool),
}

impl TrainReport {
    fn parts(&self) -> [(&'static str, f64); 6] {
        let b = &self.breakdown;
        [
            ("compute", b.compute_ns),
            ("tp", b.tp_ns),
            ("pp", b.pp_ns),
            ("dp", b.dp_ns),
            ("bubble", b.bubble_ns),
            ("optimizer", b.optimizer_ns),
        ]
    }

    fn tp_crosses(&self) -> bool {
        self.ops.iter().any(|op| op.kind == OpKind::Tp && op.crosses_nodes)
    }
}

/// How step `b` differs from step `a`: by how much, and in which part most.
pub fn difference(a: &TrainReport, b: &TrainReport) -> Difference {
    let (pa, pb) = (a.parts(), b.parts());
    let (i, _) = pa
        .iter()
        .zip(&pb)
        .map(|(x, y)| (y.1 - x.1).abs())
        .enumerate()
        .fold((0, f64::MIN), |best, (i, d)| if d > best.1 { (i, d) } else { best });
    Difference {
        step_change: b.step_ns / a.step_ns - 1.0,
        part: pa[i].0,
        part_a_ns: pa[i].1,
        part_b_ns: pb[i].1,
        tp_crosses: (a.tp_crosses(), b.tp_crosses()),
    }
}

/// One fabric in `compare_fabrics` (read back where a page's worker sends it).
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct FabricRow {
    pub technology: Technology,
    pub step_ns: f64,
    pub comm_exposed_share: f64,
    pub days: f64,
    pub gpu_hour_usd: f64,
    pub usd: f64,
}

/// The fabrics `compare_fabrics` weighs, in its rows' order.
pub const FABRICS: [Technology; 4] =
    [Technology::Infiniband, Technology::Roce, Technology::Efa, Technology::Tcp];

/// The job on `technology`, at the cluster's NIC speed, with that fabric's own routing and
/// efficiency, and its own (assumed) price unless it is the job's fabric.
pub fn on_fabric(train: &TrainScenario, technology: Technology) -> TrainScenario {
    let mut s = train.clone();
    s.cluster.fabric.technology = technology;
    s.cluster.fabric.routing = None;
    s.cluster.fabric.congested_efficiency = None;
    s.cost.gpu_hour_usd =
        if technology == train.cluster.fabric.technology { train.cost.gpu_hour_usd } else { None };
    s
}

impl FabricRow {
    /// The row of a step run on `technology`.
    pub fn of(technology: Technology, r: &TrainReport) -> FabricRow {
        FabricRow {
            technology,
            step_ns: r.step_ns,
            comm_exposed_share: r.comm_exposed_share,
            days: r.cost.days,
            gpu_hour_usd: r.cost.gpu_hour_usd,
            usd: r.cost.usd,
        }
    }
}

/// The same job on every fabric technology (`on_fabric`): what "is InfiniBand worth the
/// money" needs.
pub fn compare_fabrics(train: &TrainScenario) -> Result<Vec<FabricRow>, Vec<ScenarioError>> {
    FABRICS
        .into_iter()
        .map(|technology| Ok(FabricRow::of(technology, &on_fabric(train, technology).validate()?.run())))
        .collect()
}

/// The job at DP `dp`: nodes grow with DP, micro-batches per replica stay.
pub fn scaled(train: &TrainScenario, dp: u32) -> Result<TrainScenario, Vec<ScenarioError>> {
    let base_m = train.global_batch / (train.micro_batch * train.dp).max(1);
    let g_node = train.cluster.validate_fabric()?.preset().gpus_per_node;
    let mut s = train.clone();
    s.dp = dp;
    s.cluster.nodes = (train.tp * train.cp * train.pp * dp).div_ceil(g_node);
    s.global_batch = base_m * train.micro_batch * dp;
    Ok(s)
}

/// Runs a step for each DP size in `dps` (nodes grow with DP; micro-batches per replica stay):
/// `(gpus, tokens/s, scaling efficiency against the first)`.
pub fn scaling(train: &TrainScenario, dps: &[u32]) -> Result<Vec<(u32, f64, f64)>, Vec<ScenarioError>> {
    let runs = dps.iter().map(|&dp| scaling_run(train, dp)).collect::<Result<Vec<_>, _>>()?;
    Ok(scaling_of(&runs))
}

/// One point of `scaling`: the GPUs at DP `dp` and their tokens/s. The points are independent
/// runs: a caller with threads (the CLI) runs them side by side and hands them to `scaling_of`.
pub fn scaling_run(train: &TrainScenario, dp: u32) -> Result<(u32, f64), Vec<ScenarioError>> {
    let gpus = train.tp * train.cp * train.pp * dp;
    Ok((gpus, scaled(train, dp)?.validate()?.run().tokens_per_s))
}

/// `(gpus, tokens/s, scaling efficiency against the first)` from each point's run.
pub fn scaling_of(runs: &[(u32, f64)]) -> Vec<(u32, f64, f64)> {
    let base = runs.first().map_or(1.0, |&(gpus, tps)| tps / gpus as f64);
    runs.iter().map(|&(gpus, tps)| (gpus, tps, tps / gpus as f64 / base)).collect()
}
