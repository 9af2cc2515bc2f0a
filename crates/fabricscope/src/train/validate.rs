//! Validation of a training job: every field in range, or every problem named by its field
//! (`TrainScenario::validate` → `ValidTrain`). The caps are in `limits`.

use super::layout::{Dim, Grid, RankOrder};
use super::model::ModelShape;
use super::TrainScenario;
use super::{comm, model};
use crate::limits::{
    MAX_EXPERTS, MAX_HIDDEN, MAX_LAYERS, MAX_MICRO_BATCHES, MAX_SEQ, MAX_TRANSFERS, MAX_VOCAB,
};
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
                (
                    if self.seq_len.is_some() { "seq_len" } else { "custom_model.seq_len" },
                    shape.seq_len,
                    1,
                    MAX_SEQ,
                ),
                ("custom_model.vocab", shape.vocab, 1, MAX_VOCAB),
            ] {
                if value < min || value > max {
                    errors.add(field, format!("{value} is out of range: use {min} to {max}"));
                }
            }
            // Heads of hidden / heads width must split the hidden size; explicit widths and
            // latent attention need not.
            let derived_width = shape.head_dim.is_none() && shape.mla.is_none();
            if shape.heads > 0
                && (derived_width && shape.hidden % shape.heads != 0
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
            check_optional_parts(shape, &mut errors);
        }
        for (field, value) in [
            ("tp", self.tp),
            ("cp", self.cp),
            ("pp", self.pp),
            ("dp", self.dp),
            ("ep", self.ep),
            ("virtual_stages", self.virtual_stages),
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
        let (tp, cp, pp, dp) = (self.tp as u64, self.cp as u64, self.pp as u64, self.dp as u64);
        if tp * cp * pp * dp != gpus as u64 {
            // CP is named only when it is used, as layouts without it always read.
            let (names, sizes) = if cp == 1 {
                ("TP × PP × DP", format!("{tp} × {pp} × {dp}"))
            } else {
                ("TP × CP × PP × DP", format!("{tp} × {cp} × {pp} × {dp}"))
            };
            errors.add(
                "dp",
                format!("{names} = {sizes} = {} but the cluster has {gpus} GPUs", tp * cp * pp * dp),
            );
        }
        if cp > 1 && shape.seq_len as u64 % (2 * cp) != 0 {
            errors.add(
                "cp",
                format!(
                    "a sequence of {} tokens does not split into 2 × CP = {} equal chunks (each CP rank takes two, one from each end, to balance causal attention)",
                    shape.seq_len,
                    2 * cp
                ),
            );
        }
        if cp > 1 && self.ep > 1 {
            errors.add("cp", "CP with expert parallelism is not modelled yet: use CP 1 or EP 1".into());
        }
        if shape.layers < self.pp {
            errors.add(
                "pp",
                format!("{} layers cannot fill {} stages: use PP ≤ {}", shape.layers, self.pp, shape.layers),
            );
        }
        if self.virtual_stages > 1 {
            let chunks = self.pp as u64 * self.virtual_stages as u64;
            if self.pp == 1 {
                errors.add(
                    "virtual_stages",
                    "interleaving needs a pipeline: PP 1 has one stage to interleave".into(),
                );
            } else if shape.layers as u64 % chunks != 0 {
                errors.add(
                    "virtual_stages",
                    format!(
                        "{} layers do not split evenly into PP × virtual stages = {} × {} = {chunks} model chunks",
                        shape.layers, self.pp, self.virtual_stages
                    ),
                );
            }
        }
        if shape.moe.is_some() && self.zero == 3 {
            errors.add(
                "zero",
                "ZeRO-3 with a mixture-of-experts model is not modelled (its expert shards would gather over their own replicas): use ZeRO 0, 1 or 2".into(),
            );
        }
        match shape.moe {
            None if self.ep > 1 => errors.add(
                "ep",
                format!(
                    "{} has no experts: expert parallelism needs a mixture-of-experts model (mixtral-8x7b, deepseek-v3, qwen3-235b-a22b, or a custom model with moe)",
                    self.model
                ),
            ),
            Some(moe) if moe.experts % self.ep != 0 => {
                let divisors: Vec<String> =
                    (1..=moe.experts).filter(|d| moe.experts % d == 0).map(|d| d.to_string()).collect();
                errors.add(
                    "ep",
                    format!(
                        "{} experts do not split evenly over EP {}: use one of {}",
                        moe.experts,
                        self.ep,
                        divisors.join(", ")
                    ),
                );
            }
            _ => {}
        }
        if self.dp % self.ep != 0 {
            errors.add(
                "ep",
                format!(
                    "EP {} must divide DP {}: expert parallelism splits the data-parallel group",
                    self.ep, self.dp
                ),
            );
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
        } else if self.virtual_stages > 1 && (self.global_batch as u64 / per_replica) % pp != 0 {
            errors.add(
                "global_batch",
                format!(
                    "interleaved 1F1B runs micro-batches in groups of PP: {} micro-batches per pipeline is not a multiple of PP {pp}",
                    self.global_batch as u64 / per_replica
                ),
            );
        }
        if !errors.0.is_empty() {
            return Err(errors.0);
        }
        let grid = Grid { tp: self.tp, cp: self.cp, pp: self.pp, dp: self.dp, order: self.order };
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
        let (expert_groups, _) = grid.expert_groups(self.ep);
        for (name, groups) in [
            ("TP", grid.groups(Dim::Tp)),
            ("CP", grid.groups(Dim::Cp)),
            ("DP", grid.gradient_groups()),
            ("EP", expert_groups.clone()),
        ] {
            if !comm::groups_are_regular(&cluster, &groups) {
                errors.add("order", format!("with {} the {name} groups hold different numbers of GPUs in their nodes; pick another order or sizes that divide the node", self.order.name()));
            }
        }
        let valid = ValidTrain { scenario: self.clone(), cluster, shape, grid };
        // The largest op must fit the engine's cap.
        let activation = valid.activation_bytes();
        let tp_groups = grid.groups(Dim::Tp);
        let dp_groups = grid.gradient_groups();
        let channels = valid.cluster.channels();
        // The TP and DP rings as they run within the engine's limit (`cut`): whole, the few
        // groups that stand for all, or each group's first steps, extrapolated; refused where
        // even those are too many, counted before any ring is built (one of 2,048 GPUs is 67
        // million transfers, gigabytes). A ReduceScatter or an AllGather of the same groups has
        // the same connections as this AllReduce, and half its steps.
        let mut topology = None;
        let mut rings = [("TP", &tp_groups, activation), ("DP", &dp_groups, valid.grad_bytes().0)].map(
            |(name, groups, bytes)| {
                let all = comm::collective_transfers(Collective::AllReduce, groups, bytes, channels);
                if all <= MAX_TRANSFERS {
                    return all;
                }
                let topology = topology.get_or_insert_with(|| valid.cluster.topology());
                let why = match super::cut::ring_cut(&valid.cluster, topology, Collective::AllReduce, groups, bytes) {
                    Ok(cut) => return cut.transfers,
                    Err(why) => why,
                };
                let widest = groups.iter().map(|g| g.len() as u32).max().unwrap_or(0);
                let one = comm::collective_transfers(Collective::AllReduce, &[(0..widest).collect()], bytes, channels);
                let running = groups.iter().filter(|g| g.len() > 1).count();
                let problem = if one > MAX_TRANSFERS {
                    format!("a {name} group's ring of {widest} GPUs is {one} transfers, beyond the engine's limit of {MAX_TRANSFERS}, and cannot be extrapolated from its first steps: {why}; use fewer nodes, or a larger TP or PP (each DP group then holds fewer GPUs)")
                } else {
                    format!("the {name} rings of {running} groups × {widest} GPUs are {all} transfers together, beyond the engine's limit of {MAX_TRANSFERS}, and cannot be extrapolated from their first steps: {why}; use fewer nodes, or a larger TP or PP (each DP group then holds fewer GPUs)")
                };
                errors.add(&name.to_lowercase(), problem);
                0
            },
        );
        rings.sort_unstable();
        let biggest = rings[1].max(comm::collective_transfers(
            Collective::AllToAll,
            &expert_groups,
            activation,
            channels,
        ));
        if biggest > MAX_TRANSFERS {
            errors.add("dp", format!("one step's largest collective is {biggest} transfers (of the groups that run: where every group is an image of one on links of its own, that one), more than the engine's limit of {MAX_TRANSFERS}: use fewer nodes, or a larger TP or PP (each DP group then holds fewer GPUs)"));
        }
        if errors.0.is_empty() {
            Ok(valid)
        } else {
            Err(errors.0)
        }
    }
}

/// The optional parts of a custom model's shape: head width, latent attention, experts.
fn check_optional_parts(shape: &ModelShape, errors: &mut Problems) {
    if let Some(width) = shape.head_dim {
        if !(1..=1024).contains(&width) {
            errors.add("custom_model.head_dim", format!("{width} is out of range: use 1 to 1024"));
        }
    }
    if let Some(mla) = shape.mla {
        for (field, value, min, max) in [
            ("custom_model.mla.q_lora_rank", mla.q_lora_rank, 0, MAX_HIDDEN),
            ("custom_model.mla.kv_lora_rank", mla.kv_lora_rank, 1, MAX_HIDDEN),
            ("custom_model.mla.qk_nope_head_dim", mla.qk_nope_head_dim, 1, 1024),
            ("custom_model.mla.qk_rope_head_dim", mla.qk_rope_head_dim, 0, 1024),
            ("custom_model.mla.v_head_dim", mla.v_head_dim, 1, 1024),
        ] {
            if value < min || value > max {
                errors.add(field, format!("{value} is out of range: use {min} to {max}"));
            }
        }
    }
    if let Some(moe) = shape.moe {
        for (field, value, min, max) in [
            ("custom_model.moe.experts", moe.experts, 1, MAX_EXPERTS),
            ("custom_model.moe.shared_experts", moe.shared_experts, 0, 64),
            ("custom_model.moe.top_k", moe.top_k, 1, moe.experts.max(1)),
            ("custom_model.moe.expert_ffn", moe.expert_ffn, 1, 8 * MAX_HIDDEN),
            ("custom_model.moe.dense_layers", moe.dense_layers, 0, shape.layers),
        ] {
            if value < min || value > max {
                errors.add(field, format!("{value} is out of range: use {min} to {max}"));
            }
        }
        if !(moe.capacity_factor >= 1.0 && moe.capacity_factor <= 16.0) {
            errors.add(
                "custom_model.moe.capacity_factor",
                format!("{} is out of range: use 1 (no padding) to 16", moe.capacity_factor),
            );
        }
        if let Some(limit) = moe.node_limit.filter(|&m| m < 1 || m > moe.top_k) {
            errors.add(
                "custom_model.moe.node_limit",
                format!(
                    "{limit} is out of range: use 1 to top_k ({}), or leave it out for a plain AllToAll",
                    moe.top_k
                ),
            );
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
