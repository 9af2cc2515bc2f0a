//! Validation of a training job: every field in range, or every problem named by its field
//! (`TrainScenario::validate` → `ValidTrain`). The caps are in `limits`.

use super::layout::{Dim, Grid, RankOrder};
use super::model::ModelShape;
use super::TrainScenario;
use super::{comm, model};
use crate::limits::{MAX_HIDDEN, MAX_LAYERS, MAX_MICRO_BATCHES, MAX_SEQ, MAX_TRANSFERS, MAX_VOCAB};
use crate::plan::ValidScenario;
use crate::scenario::{Collective, ScenarioError};

impl TrainScenario {
    /// Checks every field; returns all problems at once, each naming its field.
    pub fn validate(&self) -> Result<ValidTrain, Vec<ScenarioError>> {
        let mut errors = Problems(Vec::new());
        let cluster = match self.cluster.validate_fabric() {
            Ok(valid) => Some(valid),
            Err(list) => {
                for e in list {
                    errors.add(&format!("cluster.{}", e.field), e.problem);
                }
                None
            }
        };
        let shape = match (self.model.as_str(), &self.custom_model) {
            ("custom", None) => {
                errors.add("custom_model", "model \"custom\" needs a custom_model: {layers, hidden, heads, kv_heads, ffn, gated_mlp, seq_len, vocab, tied_embeddings}".into());
                None
            }
            (id, Some(_)) if id != "custom" => {
                errors.add("custom_model", format!("a custom_model needs \"model\": \"custom\", not '{id}'"));
                None
            }
            _ => match self.shape() {
                Some(shape) => Some(shape),
                None => {
                    let known: Vec<&str> = model::MODEL_PRESETS.iter().map(|p| p.id).collect();
                    errors.add(
                        "model",
                        format!("unknown model '{}'; use one of: {}, custom", self.model, known.join(", ")),
                    );
                    None
                }
            },
        };
        if let Some(shape) = &shape {
            for (field, value, min, max) in [
                ("custom_model.layers", shape.layers, 1, MAX_LAYERS),
                ("custom_model.hidden", shape.hidden, 8, MAX_HIDDEN),
                ("custom_model.heads", shape.heads, 1, shape.hidden.max(1)),
                ("custom_model.kv_heads", shape.kv_heads, 1, shape.heads.max(1)),
                ("custom_model.ffn", shape.ffn, 1, 8 * MAX_HIDDEN),
                ("custom_model.seq_len", shape.seq_len, 1, MAX_SEQ),
                ("custom_model.vocab", shape.vocab, 1, MAX_VOCAB),
            ] {
                if value < min || value > max {
                    errors.add(field, format!("{value} is out of range: use {min} to {max}"));
                }
            }
            if shape.heads > 0
                && (shape.hidden % shape.heads != 0
                    || shape.kv_heads == 0
                    || shape.heads % shape.kv_heads.max(1) != 0)
            {
                errors.add(
                    "custom_model.heads",
                    format!(
                        "hidden {} must split evenly over {} heads, and the heads over {} KV heads",
                        shape.hidden, shape.heads, shape.kv_heads
                    ),
                );
            }
        }
        for (field, value) in [
            ("tp", self.tp),
            ("pp", self.pp),
            ("dp", self.dp),
            ("micro_batch", self.micro_batch),
            ("global_batch", self.global_batch),
        ] {
            if value == 0 {
                errors.add(field, "0 is not allowed: use 1 or more".into());
            }
        }
        if self.zero > 3 {
            errors.add("zero", format!("{} is not a ZeRO stage: use 0, 1, 2 or 3 (3 = FSDP)", self.zero));
        }
        if !(self.compute_efficiency >= 0.01 && self.compute_efficiency <= 1.0) {
            errors.add(
                "compute_efficiency",
                format!("{} is out of range: use 0.01 (1% of peak) to 1", self.compute_efficiency),
            );
        }
        if !(self.cost.discount >= 0.0 && self.cost.discount < 1.0) {
            errors.add(
                "cost.discount",
                format!("{} is out of range: use 0 (none) up to but not 1", self.cost.discount),
            );
        }
        if let Some(price) = self.cost.gpu_hour_usd {
            if !(0.0..=1e4).contains(&price) {
                errors.add("cost.gpu_hour_usd", format!("{price} is out of range: use 0 to 10,000"));
            }
        }
        if !(self.cost.tokens >= 1.0 && self.cost.tokens <= 1e16) {
            errors.add("cost.tokens", format!("{} is out of range: use 1 to 1e16", self.cost.tokens));
        }
        if !(self.storage.write_gbyte_per_s >= 0.001 && self.storage.write_gbyte_per_s <= 1e6) {
            errors.add(
                "storage.write_gbyte_per_s",
                format!("{} is out of range: use 0.001 to 1,000,000", self.storage.write_gbyte_per_s),
            );
        }
        if !(self.storage.interval_min >= 0.1 && self.storage.interval_min <= 1e6) {
            errors.add(
                "storage.interval_min",
                format!("{} is out of range: use 0.1 to 1,000,000", self.storage.interval_min),
            );
        }
        let (Some(cluster), Some(shape)) = (cluster, shape) else { return Err(errors.0) };
        if !errors.0.is_empty() {
            return Err(errors.0);
        }
        let gpus = cluster.n_ranks();
        let (tp, pp, dp) = (self.tp as u64, self.pp as u64, self.dp as u64);
        if tp * pp * dp != gpus as u64 {
            errors.add(
                "dp",
                format!(
                    "TP × PP × DP = {tp} × {pp} × {dp} = {} but the cluster has {gpus} GPUs",
                    tp * pp * dp
                ),
            );
        }
        if shape.layers % self.pp != 0 {
            errors.add("pp", format!("{} layers do not split evenly into {} stages", shape.layers, self.pp));
        }
        if shape.heads % self.tp != 0 || shape.kv_heads % self.tp != 0 && self.tp % shape.kv_heads != 0 {
            errors.add(
                "tp",
                format!(
                    "{} heads ({} KV heads) do not split evenly over {} TP ranks",
                    shape.heads, shape.kv_heads, self.tp
                ),
            );
        }
        let per_replica = self.micro_batch as u64 * dp;
        if self.global_batch as u64 % per_replica != 0 {
            errors.add(
                "global_batch",
                format!("{} is not a multiple of micro_batch × DP = {per_replica}", self.global_batch),
            );
        } else if self.global_batch as u64 / per_replica > MAX_MICRO_BATCHES {
            errors.add("global_batch", format!("{} micro-batches per pipeline is more than {MAX_MICRO_BATCHES}: use a bigger micro_batch or a smaller global_batch", self.global_batch as u64 / per_replica));
        }
        if !errors.0.is_empty() {
            return Err(errors.0);
        }
        let grid = Grid { tp: self.tp, pp: self.pp, dp: self.dp, order: self.order };
        // A TP group must sit inside one NVLink domain (a node: a box, or a rack) or fill whole
        // ones: never split between two, which would put its per-layer AllReduce on the NICs
        // for some ranks and not others.
        let domain = cluster.preset().gpus_per_node;
        if matches!(self.order, RankOrder::TpPpDp | RankOrder::TpDpPp)
            && self.tp % domain != 0
            && domain % self.tp != 0
        {
            let divisors: Vec<String> =
                (1..=domain).filter(|d| domain % d == 0).map(|d| d.to_string()).collect();
            errors.add(
                "tp",
                format!(
                    "TP {} does not fit the {} GPUs of a {} NVLink domain: a group would straddle two of them; use a TP that divides {domain} ({}) or a multiple of it",
                    self.tp,
                    domain,
                    cluster.preset().name,
                    divisors.join(", ")
                ),
            );
            return Err(errors.0);
        }
        for dim in [Dim::Tp, Dim::Dp] {
            if !comm::groups_are_regular(&cluster, &grid.groups(dim)) {
                errors.add("order", format!("with {} the {dim:?} groups hold different numbers of GPUs in their nodes; pick another order or sizes that divide the node", self.order.name()));
            }
        }
        let valid = ValidTrain { scenario: self.clone(), cluster, shape, grid };
        // The largest op must fit the engine's cap.
        let activation = valid.activation_bytes();
        let tp_groups = grid.groups(Dim::Tp);
        let dp_groups = grid.groups(Dim::Dp);
        let channels = valid.cluster.channels();
        let biggest = comm::collective_transfers(Collective::AllReduce, &tp_groups, activation, channels)
            .max(comm::collective_transfers(Collective::AllReduce, &dp_groups, valid.grad_bytes(), channels));
        if biggest > MAX_TRANSFERS {
            errors.add("dp", format!("one step's largest collective is {biggest} transfers, more than the engine's limit of {MAX_TRANSFERS}: use fewer nodes"));
        }
        if errors.0.is_empty() {
            Ok(valid)
        } else {
            Err(errors.0)
        }
    }
}

/// Problems found so far, each with its field.
struct Problems(Vec<ScenarioError>);

impl Problems {
    fn add(&mut self, field: &str, problem: String) {
        self.0.push(ScenarioError { field: field.into(), problem });
    }
}

/// A training scenario whose every field is in range.
#[derive(Clone, Debug)]
pub struct ValidTrain {
    pub(super) scenario: TrainScenario,
    pub(super) cluster: ValidScenario,
    pub(super) shape: ModelShape,
    pub(super) grid: Grid,
}
