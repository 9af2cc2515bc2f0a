//! The training job: a model split TP × PP × DP over the cluster, one step's time with what
//! overlaps and what is exposed, memory per GPU, cost and checkpoints.
//!
//! ## The step (Megatron-LM's 1F1B schedule, non-interleaved)
//!
//! With `m = global_batch / (micro_batch × DP)` micro-batches per pipeline and per stage
//! (`L / PP` layers) forward time `t_f` and backward time `t_b` per micro-batch:
//!
//! ```text
//!   pipeline  = (m + PP - 1) × (t_f + t_b)           the (PP - 1) slots are the bubble
//!   t_f       = compute_f + TP_f + P2P               TP collectives are not overlapped
//!   t_b       = compute_b + TP_b + P2P               compute_b = 2 × compute_f (+ recomputation)
//!   step      = pipeline + DP exposed + optimizer
//! ```
//!
//! Communication volumes (bytes in BF16, b = micro_batch, s = sequence, h = hidden):
//!
//! - TP (Shoeybi et al. 2019, "Megatron-LM", §3): per layer, 2 AllReduce of `b·s·h` in the
//!   forward and 2 in the backward (and 2 more when full recomputation redoes the forward).
//!   With sequence parallelism (Korthikanti et al. 2022, "Reducing Activation Recomputation",
//!   §4.2.2) each AllReduce becomes an AllGather and a ReduceScatter of the same size.
//! - PP (Narayanan et al. 2021, §2.2 and §4.1): per micro-batch and stage boundary, `b·s·h`
//!   forward and the same backward, split over the TP ranks (scatter/gather optimisation).
//! - DP: the stage's gradients (2 B per parameter) AllReduced after the last backward, in
//!   buckets of 25 MB (PyTorch DDP's `bucket_cap_mb`), overlapped with that backward: exposed
//!   `max(T / buckets, T - compute_b)`. ZeRO (Rajbhandari et al. 2020): stage 1-2 reduce-scatter
//!   the gradients instead and all-gather the updated parameters after the step (exposed);
//!   stage 3 also all-gathers each layer's parameters before its forward and its backward, the
//!   next layer's gather overlapping this layer's compute (exposed `max(0, gather - compute)`
//!   per layer, plus the first layer's whole gather).
//!
//! Every one of those collectives runs through the engine on the cluster (`comm`): the model
//! never assumes a bandwidth.
//!
//! Compute: FLOPs from the shape (`model`), over the GPU's peak BF16 rate times
//! `compute_efficiency` (the fraction of peak the kernels reach, which the user sets). The MFU
//! printed is what the whole step achieves, communication and bubble included.
//!
//! ## Memory per GPU (most loaded stage)
//!
//! Mixed-precision Adam keeps 16 B per parameter (Rajbhandari et al. 2020, §3.1): BF16 weights
//! (2) and gradients (2), FP32 master weights, momentum and variance (12). ZeRO 1 shards the 12
//! over DP, ZeRO 2 also the gradients, ZeRO 3 also the weights. Activations per layer and
//! micro-batch (Korthikanti et al. 2022, Table 2): `s·b·h·(10 + 24/t + 5·a·s/(h·t))` bytes, with
//! sequence parallelism `s·b·h·(34 + 5·a·s/h)/t`; selective recomputation drops the `5·a·s`
//! term, full recomputation keeps only each layer's input (`2·s·b·h`, over t with SP). Under
//! 1F1B the first stage holds `min(PP, m)` micro-batches in flight.
//!
//! ## Cost and storage
//!
//! Days = tokens to train / tokens per second; money = GPU-hours × price × (1 - discount). The
//! prices are assumptions to edit (`CostAssumptions`). Checkpoints hold 14 B per parameter
//! (BF16 weights, FP32 master weights, momentum, variance), written at the file system's
//! bandwidth; with a synchronous save every `interval`, the overhead is `write / interval`.

pub mod comm;
pub mod layout;
pub mod model;
pub mod pipeline;

use crate::catalog::Technology;
use crate::scenario::{Collective, Scenario, ScenarioError, ValidScenario, MAX_TRANSFERS};
use crate::topology::{build, Topology};
use layout::{Dim, Grid, RankOrder};
use model::{ModelPreset, ModelShape};
use serde::{Deserialize, Serialize};

/// Activation recomputation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recompute {
    /// Keep every activation.
    None,
    /// Recompute only the attention core (Korthikanti et al. 2022): Megatron's default.
    #[default]
    Selective,
    /// Recompute each layer's forward in its backward.
    Full,
}

/// Prices and volumes the cost panel starts from: assumptions, to be edited.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostAssumptions {
    /// Price of one GPU-hour [USD]; absent: `default_gpu_hour_usd` for the fabric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_hour_usd: Option<f64>,
    /// Reserved-instance or committed-use discount, in [0, 1).
    #[serde(default)]
    pub discount: f64,
    /// Tokens to train on (GPT-3 trained on 300 B: Brown et al. 2020, §2.2).
    #[serde(default = "default_tokens")]
    pub tokens: f64,
}

fn default_tokens() -> f64 {
    300e9
}

impl Default for CostAssumptions {
    fn default() -> Self {
        CostAssumptions { gpu_hour_usd: None, discount: 0.0, tokens: default_tokens() }
    }
}

/// An assumed on-demand price per GPU-hour for an H100-class GPU on each fabric [USD]. The
/// base (TCP Ethernet, 2.40) is an assumption to edit; the InfiniBand premium of 25% is the one
/// the seed article's own arithmetic implies (40% less time costing about 25% less money:
/// 0.6 × 1.25 = 0.75); RoCE and EFA sit between (+10%, +15%), also assumptions.
pub fn default_gpu_hour_usd(technology: Technology) -> f64 {
    const BASE: f64 = 2.40;
    BASE * match technology {
        Technology::Tcp => 1.0,
        Technology::Roce => 1.10,
        Technology::Efa => 1.15,
        Technology::Infiniband => 1.25,
    }
}

/// The parallel file system checkpoints go to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageAssumptions {
    /// Aggregate write bandwidth [GB/s] (an assumption: a mid-size Lustre or GPFS system).
    #[serde(default = "default_fs_bandwidth")]
    pub write_gbyte_per_s: f64,
    /// Minutes between checkpoints.
    #[serde(default = "default_interval")]
    pub interval_min: f64,
}

fn default_fs_bandwidth() -> f64 {
    50.0
}

fn default_interval() -> f64 {
    60.0
}

impl Default for StorageAssumptions {
    fn default() -> Self {
        StorageAssumptions { write_gbyte_per_s: default_fs_bandwidth(), interval_min: default_interval() }
    }
}

/// A training job on a cluster: what `fabricscope train` and the page's training view hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainScenario {
    /// The hardware (preset, nodes, fabric, links); its collective and size are not used.
    pub cluster: Scenario,
    /// A model preset id, or "custom" with `custom_model`.
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_model: Option<ModelShape>,
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
    pub micro_batch: u32,
    /// Sequences per step, over all DP replicas.
    pub global_batch: u32,
    #[serde(default)]
    pub sequence_parallel: bool,
    /// ZeRO stage 0-3 (3 = FSDP).
    #[serde(default)]
    pub zero: u8,
    #[serde(default)]
    pub order: RankOrder,
    #[serde(default)]
    pub recompute: Recompute,
    /// Fraction of the GPU's peak BF16 rate the kernels reach, (0, 1].
    #[serde(default = "default_efficiency")]
    pub compute_efficiency: f64,
    /// Overlap the DP gradient reduction with the backward pass.
    #[serde(default = "yes")]
    pub overlap_grad_reduce: bool,
    #[serde(default)]
    pub cost: CostAssumptions,
    #[serde(default)]
    pub storage: StorageAssumptions,
}

fn default_efficiency() -> f64 {
    0.55
}

fn yes() -> bool {
    true
}

/// Caps on a custom model's shape.
const MAX_LAYERS: u32 = 1024;
const MAX_HIDDEN: u32 = 131_072;
const MAX_SEQ: u32 = 1 << 20;
const MAX_VOCAB: u32 = 1 << 21;
/// Micro-batches per pipeline per step (the 1F1B schedule keeps every block).
const MAX_MICRO_BATCHES: u64 = 4096;

impl TrainScenario {
    /// GPT-3 175B on 32 DGX H100 over InfiniBand NDR: TP 8 in each node, PP 16, DP 2.
    pub fn default_demo() -> TrainScenario {
        TrainScenario {
            cluster: Scenario { nodes: 32, ..Scenario::default_demo() },
            model: "gpt3-175b".into(),
            custom_model: None,
            tp: 8,
            pp: 16,
            dp: 2,
            micro_batch: 1,
            global_batch: 128,
            sequence_parallel: true,
            zero: 1,
            order: RankOrder::TpPpDp,
            recompute: Recompute::Selective,
            compute_efficiency: default_efficiency(),
            overlap_grad_reduce: true,
            cost: CostAssumptions::default(),
            storage: StorageAssumptions::default(),
        }
    }

    pub fn from_json(text: &str) -> Result<TrainScenario, ScenarioError> {
        let deserializer = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(deserializer).map_err(|error| {
            let path = error.path().to_string();
            ScenarioError {
                field: if path == "." { String::new() } else { path },
                problem: error.into_inner().to_string(),
            }
        })
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a TrainScenario always serialises")
    }

    /// The model's shape (preset or custom), if the name is known.
    pub fn shape(&self) -> Option<ModelShape> {
        match (self.model.as_str(), &self.custom_model) {
            ("custom", Some(shape)) => Some(shape.clone()),
            (id, None) => ModelPreset::by_id(id).map(|preset| (preset.shape)()),
            _ => None,
        }
    }

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
            if !(price >= 0.0 && price <= 1e4) {
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
    scenario: TrainScenario,
    cluster: ValidScenario,
    shape: ModelShape,
    grid: Grid,
}

/// BF16: bytes per activation element, weight and gradient.
const BF16: u64 = 2;
/// PyTorch DDP's default gradient bucket (`bucket_cap_mb = 25`).
const BUCKET_BYTES: f64 = 25e6;
/// Adam's step reads and writes per parameter: FP32 master, momentum and variance read and
/// written (24 B), the BF16 gradient read (2) and the BF16 weight written (2).
const OPTIMIZER_BYTES_PER_PARAM: f64 = 28.0;
/// Checkpoint bytes per parameter: BF16 weights, FP32 master, momentum, variance.
const CHECKPOINT_BYTES_PER_PARAM: f64 = 14.0;

impl ValidTrain {
    pub fn scenario(&self) -> &TrainScenario {
        &self.scenario
    }

    pub fn cluster(&self) -> &ValidScenario {
        &self.cluster
    }

    pub fn shape(&self) -> &ModelShape {
        &self.shape
    }

    pub fn grid(&self) -> Grid {
        self.grid
    }

    fn micro_batches(&self) -> u64 {
        self.scenario.global_batch as u64 / (self.scenario.micro_batch as u64 * self.scenario.dp as u64)
    }

    /// One micro-batch's activation tensor `b·s·h` in BF16 [B].
    fn activation_bytes(&self) -> u64 {
        self.scenario.micro_batch as u64 * self.shape.seq_len as u64 * self.shape.hidden as u64 * BF16
    }

    /// Parameters one GPU holds on the most loaded stage (layers, and the embedding on the first).
    fn params_per_gpu(&self) -> f64 {
        let layers = (self.shape.layers / self.scenario.pp) as f64;
        (layers * self.shape.layer_params() as f64
            + self.shape.embedding_params() as f64
                / if self.scenario.pp > 1 && !self.shape.tied_embeddings { 2.0 } else { 1.0 })
            / self.scenario.tp as f64
    }

    /// The gradient bytes a DP group reduces per GPU.
    fn grad_bytes(&self) -> u64 {
        ((self.params_per_gpu() * BF16 as f64) as u64 / 4 * 4).max(4)
    }

    /// Simulates one step.
    pub fn run(&self) -> TrainReport {
        let topology = build(&self.cluster);
        self.run_on(&topology)
    }

    fn run_on(&self, topology: &Topology) -> TrainReport {
        let s = &self.scenario;
        let shape = &self.shape;
        let gpu = self.cluster.preset().gpu;
        let rate = gpu.bf16_dense_tflops * 1e3 * s.compute_efficiency; // FLOP per ns
        let m = self.micro_batches() as f64;
        let pp = s.pp as f64;
        let layers = (shape.layers / s.pp) as f64;
        let tokens_mb = s.micro_batch as f64 * shape.seq_len as f64;
        let tp = s.tp as f64;

        // Compute per micro-batch on each stage (the last also computes the logits).
        let layer_f = shape.layer_forward_flops(tokens_mb) / tp / rate;
        let logits_f = shape.logits_forward_flops(tokens_mb) / tp / rate;
        let recompute = match s.recompute {
            Recompute::None => 0.0,
            Recompute::Selective => layers * shape.attention_core_flops(tokens_mb) / tp / rate,
            Recompute::Full => layers * layer_f,
        };
        let stage_compute: Vec<(f64, f64)> = (0..s.pp)
            .map(|i| {
                let f = layers * layer_f + if i + 1 == s.pp { logits_f } else { 0.0 };
                (f, 2.0 * f + recompute)
            })
            .collect();
        // The slowest stage (the last): what the per-micro-batch figures below describe.
        let (compute_f, compute_b) = stage_compute[s.pp as usize - 1];

        // Communication, each kind through the engine with all its groups at once.
        let tp_groups = self.grid.groups(Dim::Tp);
        let dp_groups = self.grid.groups(Dim::Dp);
        let activation = self.activation_bytes();
        let mut ops = Vec::new();
        let tp_calls_f = 2.0 * layers;
        let tp_calls_b = 2.0 * layers * if s.recompute == Recompute::Full { 2.0 } else { 1.0 };
        let (tp_f, tp_b) = if s.tp > 1 {
            let per_call = if s.sequence_parallel {
                let ag = comm::collective_op(
                    &self.cluster,
                    topology,
                    Collective::AllGather,
                    &tp_groups,
                    activation,
                );
                let rs = comm::collective_op(
                    &self.cluster,
                    topology,
                    Collective::ReduceScatter,
                    &tp_groups,
                    activation,
                );
                ops.push(Op::new(
                    OpKind::Tp,
                    "AllGather (sequence parallel)",
                    tp_groups.len(),
                    s.tp,
                    activation,
                    (tp_calls_f + tp_calls_b) * m,
                    &ag,
                ));
                ops.push(Op::new(
                    OpKind::Tp,
                    "ReduceScatter (sequence parallel)",
                    tp_groups.len(),
                    s.tp,
                    activation,
                    (tp_calls_f + tp_calls_b) * m,
                    &rs,
                ));
                (ag.time_ns + rs.time_ns) as f64
            } else {
                let ar = comm::collective_op(
                    &self.cluster,
                    topology,
                    Collective::AllReduce,
                    &tp_groups,
                    activation,
                );
                ops.push(Op::new(
                    OpKind::Tp,
                    "AllReduce",
                    tp_groups.len(),
                    s.tp,
                    activation,
                    (tp_calls_f + tp_calls_b) * m,
                    &ar,
                ));
                ar.time_ns as f64
            };
            (tp_calls_f * per_call, tp_calls_b * per_call)
        } else {
            (0.0, 0.0)
        };
        let p2p = if s.pp > 1 {
            // Every pipeline's every boundary at once; each TP rank sends its 1/TP share.
            let mut pairs = Vec::new();
            for dp in 0..s.dp {
                for stage in 0..s.pp - 1 {
                    for t in 0..s.tp {
                        pairs.push((self.grid.rank(t, stage, dp), self.grid.rank(t, stage + 1, dp)));
                    }
                }
            }
            let share = (activation / s.tp as u64 / 4 * 4).max(4);
            let op = comm::sends_op(&self.cluster, topology, &pairs, share);
            ops.push(Op::new(
                OpKind::Pp,
                "Send/Recv activations and their gradients",
                pairs.len(),
                2,
                share,
                2.0 * m,
                &op,
            ));
            op.time_ns as f64
        } else {
            0.0
        };
        // ZeRO-3: each layer's parameters gathered before its forward and its backward.
        let (z3_f, z3_b) = if s.zero == 3 && s.dp > 1 {
            let layer_bytes = ((shape.layer_params() as f64 / tp) as u64 * BF16 / 4 * 4).max(4);
            let op =
                comm::collective_op(&self.cluster, topology, Collective::AllGather, &dp_groups, layer_bytes);
            ops.push(Op::new(
                OpKind::Dp,
                "AllGather layer parameters (ZeRO-3)",
                dp_groups.len(),
                s.dp,
                layer_bytes,
                2.0 * layers * m,
                &op,
            ));
            let g = op.time_ns as f64;
            let exposed = |compute_per_layer: f64| g + (layers - 1.0) * (g - compute_per_layer).max(0.0);
            (exposed(compute_f / layers), exposed(compute_b / layers))
        } else {
            (0.0, 0.0)
        };
        let comm_f = tp_f + p2p + z3_f;
        let comm_b = tp_b + p2p + z3_b;
        let stages: Vec<pipeline::StageTimes> = stage_compute
            .iter()
            .map(|&(f, b)| pipeline::StageTimes { forward_ns: f + comm_f, backward_ns: b + comm_b })
            .collect();
        let (blocks, pipeline) = pipeline::run(&stages, m as u32);
        let (t_f, t_b) = (compute_f + comm_f, compute_b + comm_b);

        // DP: gradients after the last backward; ZeRO 1-2 gather the parameters after the step.
        let grad = self.grad_bytes();
        let (dp_exposed, dp_total) = if s.dp > 1 {
            let collective = if s.zero == 0 { Collective::AllReduce } else { Collective::ReduceScatter };
            let op = comm::collective_op(&self.cluster, topology, collective, &dp_groups, grad);
            let name = if s.zero == 0 { "AllReduce gradients" } else { "ReduceScatter gradients (ZeRO)" };
            ops.push(Op::new(OpKind::Dp, name, dp_groups.len(), s.dp, grad, 1.0, &op));
            let t = op.time_ns as f64;
            let buckets = (grad as f64 / BUCKET_BYTES).ceil().max(1.0);
            let mut exposed = if s.overlap_grad_reduce { (t / buckets).max(t - compute_b) } else { t };
            let mut total = t;
            if s.zero == 1 || s.zero == 2 {
                let op =
                    comm::collective_op(&self.cluster, topology, Collective::AllGather, &dp_groups, grad);
                ops.push(Op::new(
                    OpKind::Dp,
                    "AllGather updated parameters (ZeRO)",
                    dp_groups.len(),
                    s.dp,
                    grad,
                    1.0,
                    &op,
                ));
                exposed += op.time_ns as f64;
                total += op.time_ns as f64;
            }
            (exposed, total)
        } else {
            (0.0, 0.0)
        };
        let shard = if s.zero >= 1 { s.dp as f64 } else { 1.0 };
        let optimizer = self.params_per_gpu() / shard * OPTIMIZER_BYTES_PER_PARAM / gpu.hbm_gbyte_per_s;
        let step = pipeline + dp_exposed + optimizer;

        let breakdown = Breakdown {
            compute_ns: m * (compute_f + compute_b),
            tp_ns: m * (tp_f + tp_b),
            pp_ns: m * 2.0 * p2p,
            dp_ns: dp_exposed + m * (z3_f + z3_b),
            bubble_ns: pipeline - m * (t_f + t_b),
            optimizer_ns: optimizer,
        };
        let gpus = self.cluster.n_ranks() as f64;
        let tokens = s.global_batch as f64 * shape.seq_len as f64;
        let tokens_per_s = tokens / (step * 1e-9);
        let mfu = shape.model_flops(tokens) / (step * gpus * gpu.bf16_dense_tflops * 1e3);
        let comm_exposed = breakdown.tp_ns + breakdown.pp_ns + breakdown.dp_ns;
        let memory = self.memory(m);
        let technology = self.cluster.scenario().fabric.technology;
        let price = s.cost.gpu_hour_usd.unwrap_or(default_gpu_hour_usd(technology));
        let days = s.cost.tokens / tokens_per_s / 86_400.0;
        let gpu_hours = days * 24.0 * gpus;
        let checkpoint_bytes = shape.params() as f64 * CHECKPOINT_BYTES_PER_PARAM;
        let write_s = checkpoint_bytes / (s.storage.write_gbyte_per_s * 1e9);
        let _ = pp;
        TrainReport {
            micro: MicroBatch { compute_f, compute_b, tp_f, tp_b, p2p, zero_f: z3_f, zero_b: z3_b },
            blocks,
            pipeline_ns: pipeline,
            dp_exposed_ns: dp_exposed,
            model_name: model::MODEL_PRESETS
                .iter()
                .find(|p| p.id == s.model)
                .map(|p| p.name.to_string())
                .unwrap_or_else(|| "custom".into()),
            params: shape.params(),
            gpus: self.cluster.n_ranks(),
            micro_batches: m as u64,
            step_ns: step,
            breakdown,
            comm_exposed_share: comm_exposed / step,
            comm_total_ns: m * (tp_f + tp_b + 2.0 * p2p) + dp_total,
            tokens_per_s,
            mfu,
            memory,
            ops,
            cost: Cost {
                gpu_hour_usd: price,
                discount: s.cost.discount,
                tokens: s.cost.tokens,
                days,
                gpu_hours,
                usd: gpu_hours * price * (1.0 - s.cost.discount),
            },
            storage: Storage {
                checkpoint_bytes,
                write_s,
                interval_min: s.storage.interval_min,
                overhead: write_s / (s.storage.interval_min * 60.0),
            },
        }
    }

    fn memory(&self, m: f64) -> Memory {
        let s = &self.scenario;
        let shape = &self.shape;
        let params = self.params_per_gpu();
        let dp = s.dp as f64;
        let weights = params * 2.0 / if s.zero >= 3 { dp } else { 1.0 };
        let grads = params * 2.0 / if s.zero >= 2 { dp } else { 1.0 };
        let optimizer = params * 12.0 / if s.zero >= 1 { dp } else { 1.0 };
        let (sl, b, h, a, t) = (
            shape.seq_len as f64,
            s.micro_batch as f64,
            shape.hidden as f64,
            shape.heads as f64,
            s.tp as f64,
        );
        let attention = 5.0 * a * sl / h;
        let per_layer = sl
            * b
            * h
            * match (s.recompute, s.sequence_parallel) {
                (Recompute::Full, true) => 2.0 / t,
                (Recompute::Full, false) => 2.0,
                (Recompute::Selective, true) => 34.0 / t,
                (Recompute::Selective, false) => 10.0 + 24.0 / t,
                (Recompute::None, true) => (34.0 + attention) / t,
                (Recompute::None, false) => 10.0 + 24.0 / t + attention / t,
            };
        let in_flight = (s.pp as f64).min(m);
        let activations = per_layer * (shape.layers / s.pp) as f64 * in_flight;
        let total = weights + grads + optimizer + activations;
        let capacity = self.cluster.preset().gpu.hbm_gbyte * 1e9;
        Memory { weights, grads, optimizer, activations, total, capacity, fits: total <= capacity }
    }
}

/// What a step's time is spent on [ns]; the parts add up to the step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Breakdown {
    pub compute_ns: f64,
    /// Tensor-parallel collectives (not overlapped).
    pub tp_ns: f64,
    /// Pipeline sends on the critical path.
    pub pp_ns: f64,
    /// Data-parallel (and ZeRO) communication left exposed after overlap.
    pub dp_ns: f64,
    /// Pipeline fill and drain.
    pub bubble_ns: f64,
    pub optimizer_ns: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum OpKind {
    Tp,
    Pp,
    Dp,
}

/// One kind of collective in the step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Op {
    pub kind: OpKind,
    pub name: &'static str,
    /// Groups doing it at once, and ranks in each (2 for a send).
    pub groups: usize,
    pub group_size: u32,
    /// Bytes per call, nccl-tests' convention.
    pub bytes: u64,
    /// Calls per step (per GPU).
    pub calls: f64,
    /// One call, every group at once, through the engine [ns].
    pub time_ns: u64,
    pub transfers: u64,
    pub crosses_nodes: bool,
}

impl Op {
    fn new(
        kind: OpKind,
        name: &'static str,
        groups: usize,
        group_size: u32,
        bytes: u64,
        calls: f64,
        timing: &comm::OpTiming,
    ) -> Op {
        Op {
            kind,
            name,
            groups,
            group_size,
            bytes,
            calls,
            time_ns: timing.time_ns,
            transfers: timing.transfers,
            crosses_nodes: timing.crosses_nodes,
        }
    }
}

/// Memory per GPU on the most loaded stage [B].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Memory {
    pub weights: f64,
    pub grads: f64,
    pub optimizer: f64,
    pub activations: f64,
    pub total: f64,
    /// The GPU's HBM.
    pub capacity: f64,
    pub fits: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cost {
    pub gpu_hour_usd: f64,
    pub discount: f64,
    pub tokens: f64,
    pub days: f64,
    pub gpu_hours: f64,
    pub usd: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Storage {
    pub checkpoint_bytes: f64,
    pub write_s: f64,
    pub interval_min: f64,
    /// Fraction of training time spent writing checkpoints.
    pub overhead: f64,
}

/// One micro-batch on the slowest stage, by part [ns]: a forward is `compute_f + tp_f + p2p +
/// zero_f`, a backward `compute_b + tp_b + p2p + zero_b`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MicroBatch {
    pub compute_f: f64,
    pub compute_b: f64,
    pub tp_f: f64,
    pub tp_b: f64,
    pub p2p: f64,
    pub zero_f: f64,
    pub zero_b: f64,
}

/// One training step, simulated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrainReport {
    pub micro: MicroBatch,
    /// The 1F1B schedule: every forward and backward of every stage.
    pub blocks: Vec<pipeline::Block>,
    /// The pipeline's makespan; DP exposed and the optimizer follow it.
    pub pipeline_ns: f64,
    pub dp_exposed_ns: f64,
    pub model_name: String,
    pub params: u64,
    pub gpus: u32,
    pub micro_batches: u64,
    pub step_ns: f64,
    pub breakdown: Breakdown,
    /// Exposed communication over the step.
    pub comm_exposed_share: f64,
    /// All communication, overlapped or not [ns].
    pub comm_total_ns: f64,
    pub tokens_per_s: f64,
    /// Model FLOPs utilisation of the whole step.
    pub mfu: f64,
    pub memory: Memory,
    pub ops: Vec<Op>,
    pub cost: Cost,
    pub storage: Storage,
}

/// What a stage is doing at one time of the step (for the animation and the Gantt).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Activity {
    /// Waiting: the pipeline bubble, or done before the others.
    Idle,
    Compute(pipeline::Phase),
    /// A tensor-parallel collective inside the TP group.
    Tp,
    /// Receiving or sending activations (or their gradients) to a neighbouring stage.
    PipelineSend,
    /// ZeRO-3 parameter gathers and the gradient reduction after the pipeline.
    DataParallel,
    Optimizer,
}

impl TrainReport {
    pub fn step_ns(&self) -> f64 {
        self.step_ns
    }

    /// What stage `stage` does at `t` [ns from the step's start]. Inside a block the parts run
    /// in their order: the activations arrive (half the send time), then layer by layer the
    /// ZeRO-3 gather, the compute and the TP collectives, then the send onwards.
    pub fn activity(&self, stage: u32, layers: u32, t: f64) -> Activity {
        if t >= self.pipeline_ns {
            return if t < self.pipeline_ns + self.dp_exposed_ns {
                Activity::DataParallel
            } else if t < self.step_ns {
                Activity::Optimizer
            } else {
                Activity::Idle
            };
        }
        let from = self.blocks.partition_point(|b| (b.stage, b.end_ns) <= (stage, t));
        let Some(block) = self.blocks.get(from).filter(|b| b.stage == stage && b.start_ns <= t) else {
            return Activity::Idle;
        };
        let m = &self.micro;
        let forward = block.phase == pipeline::Phase::Forward;
        let (zero, tp) = if forward { (m.zero_f, m.tp_f) } else { (m.zero_b, m.tp_b) };
        let length = block.end_ns - block.start_ns;
        // This stage's compute (the last stage's includes the logits): the rest of the block.
        let compute = (length - zero - tp - m.p2p).max(0.0);
        let mut x = t - block.start_ns;
        if x < m.p2p / 2.0 {
            return Activity::PipelineSend;
        }
        x -= m.p2p / 2.0;
        let layers = layers.max(1) as f64;
        let per_layer = (zero + compute + tp) / layers;
        if x < per_layer * layers && per_layer > 0.0 {
            let y = x % per_layer;
            return if y < zero / layers {
                Activity::DataParallel
            } else if y < (zero + compute) / layers {
                Activity::Compute(block.phase)
            } else {
                Activity::Tp
            };
        }
        Activity::PipelineSend
    }
}

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

/// One fabric in `compare_fabrics`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FabricRow {
    pub technology: Technology,
    pub step_ns: f64,
    pub comm_exposed_share: f64,
    pub days: f64,
    pub gpu_hour_usd: f64,
    pub usd: f64,
}

/// The same job on every fabric technology, at the cluster's NIC speed, each at its own
/// (assumed or set) price: what "is InfiniBand worth the money" needs.
pub fn compare_fabrics(train: &TrainScenario) -> Result<Vec<FabricRow>, Vec<ScenarioError>> {
    [Technology::Infiniband, Technology::Roce, Technology::Efa, Technology::Tcp]
        .into_iter()
        .map(|technology| {
            let mut s = train.clone();
            s.cluster.fabric.technology = technology;
            s.cluster.fabric.routing = None;
            s.cluster.fabric.congested_efficiency = None;
            s.cost.gpu_hour_usd =
                if technology == train.cluster.fabric.technology { train.cost.gpu_hour_usd } else { None };
            let r = s.validate()?.run();
            Ok(FabricRow {
                technology,
                step_ns: r.step_ns,
                comm_exposed_share: r.comm_exposed_share,
                days: r.cost.days,
                gpu_hour_usd: r.cost.gpu_hour_usd,
                usd: r.cost.usd,
            })
        })
        .collect()
}

/// Runs a step for each DP size in `dps` (nodes grow with DP; micro-batches per replica stay):
/// `(gpus, tokens/s, scaling efficiency against the first)`.
pub fn scaling(train: &TrainScenario, dps: &[u32]) -> Result<Vec<(u32, f64, f64)>, Vec<ScenarioError>> {
    let base_m = train.global_batch / (train.micro_batch * train.dp).max(1);
    let g_node = train.cluster.validate_fabric()?.preset().gpus_per_node;
    let mut points = Vec::new();
    let mut first: Option<f64> = None;
    for &dp in dps {
        let gpus = train.tp * train.pp * dp;
        let mut s = train.clone();
        s.dp = dp;
        s.cluster.nodes = gpus.div_ceil(g_node);
        s.global_batch = base_m * train.micro_batch * dp;
        let report = s.validate()?.run();
        let per_gpu = report.tokens_per_s / gpus as f64;
        let base = *first.get_or_insert(per_gpu);
        points.push((gpus, report.tokens_per_s, per_gpu / base));
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpt3(tp: u32, pp: u32, technology: Technology) -> TrainReport {
        let mut s = TrainScenario::default_demo();
        s.tp = tp;
        s.pp = pp;
        s.cluster.fabric.technology = technology;
        s.validate().unwrap().run()
    }

    /// The architects' question: TP inside the node (TP 8 × PP 16) against TP across two
    /// nodes (TP 16 × PP 8), GPT-3 175B on 32 DGX H100 over NDR (DP 2 either way).
    #[test]
    fn tensor_parallelism_inside_the_node_beats_across_nodes() {
        let inside = gpt3(8, 16, Technology::Infiniband);
        let across = gpt3(16, 8, Technology::Infiniband);
        assert!(inside.ops.iter().filter(|o| o.kind == OpKind::Tp).all(|o| !o.crosses_nodes));
        assert!(across.ops.iter().filter(|o| o.kind == OpKind::Tp).all(|o| o.crosses_nodes));
        assert!(inside.step_ns < across.step_ns, "{} vs {}", inside.step_ns, across.step_ns);
        // TP communication takes a far bigger part of the step once it crosses the NICs.
        let share = |r: &TrainReport| r.breakdown.tp_ns / r.step_ns;
        assert!(share(&across) > 1.5 * share(&inside), "{} vs {}", share(&across), share(&inside));
    }

    #[test]
    fn the_difference_names_the_part_that_moved() {
        let (a, b) = (gpt3(8, 16, Technology::Infiniband), gpt3(16, 8, Technology::Infiniband));
        let d = difference(&a, &b);
        assert!(d.step_change > 0.05, "{d:?}");
        assert_eq!((d.part, d.tp_crosses), ("tp", (false, true)));
        assert!((difference(&a, &a).step_change).abs() < 1e-12);
    }

    #[test]
    fn the_breakdown_adds_up_and_memory_fits() {
        let r = gpt3(8, 16, Technology::Infiniband);
        let b = &r.breakdown;
        let sum = b.compute_ns + b.tp_ns + b.pp_ns + b.dp_ns + b.bubble_ns + b.optimizer_ns;
        assert!((sum - r.step_ns).abs() < 1e-6 * r.step_ns, "{sum} vs {}", r.step_ns);
        assert!(r.memory.fits, "{:?}", r.memory);
        assert!(r.mfu > 0.2 && r.mfu < 0.55, "{}", r.mfu);
    }

    #[test]
    fn a_slower_fabric_makes_the_step_slower_and_cost_follows() {
        let ib = gpt3(8, 16, Technology::Infiniband);
        let tcp = gpt3(8, 16, Technology::Tcp);
        assert!(tcp.step_ns > ib.step_ns);
        assert!(tcp.breakdown.pp_ns > ib.breakdown.pp_ns);
        assert!((tcp.cost.days / ib.cost.days - tcp.step_ns / ib.step_ns).abs() < 1e-9);
    }

    #[test]
    fn bad_layouts_name_their_field() {
        let mut s = TrainScenario::default_demo();
        s.tp = 5;
        s.zero = 4;
        let errors = s.validate().unwrap_err();
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["zero"]);
        s.zero = 0;
        let fields: Vec<String> = s.validate().unwrap_err().into_iter().map(|e| e.field).collect();
        assert!(fields.contains(&"dp".to_string()) && fields.contains(&"tp".to_string()), "{fields:?}");
        s.tp = 8;
        s.model = "gpt5".into();
        assert_eq!(s.validate().unwrap_err()[0].field, "model");
        // Found by fuzzing: kernels at 1e-300 of peak made a step of 1e300 ns and an MFU of 0.
        s.model = "gpt3-175b".into();
        s.compute_efficiency = 1e-300;
        assert_eq!(s.validate().unwrap_err()[0].field, "compute_efficiency");
    }

    #[test]
    fn the_seed_cost_claim_is_checkable() {
        // "40% less time → about 25% less money": money scales with time × price, so with the
        // assumed 25% InfiniBand premium, 0.6 × 1.25 = 0.75.
        let rows = compare_fabrics(&TrainScenario {
            cluster: Scenario { nodes: 32, ..Scenario::default_demo() },
            dp: 2,
            global_batch: 128,
            ..TrainScenario::default_demo()
        })
        .unwrap();
        let ib = &rows[0];
        let tcp = rows.iter().find(|r| r.technology == Technology::Tcp).unwrap();
        assert!(ib.step_ns < tcp.step_ns);
        let money = ib.usd / tcp.usd;
        let predicted = (ib.days / tcp.days) * (ib.gpu_hour_usd / tcp.gpu_hour_usd);
        assert!((money - predicted).abs() < 1e-9, "{money} vs {predicted}");
        assert!(
            (default_gpu_hour_usd(Technology::Infiniband) / default_gpu_hour_usd(Technology::Tcp) - 1.25)
                .abs()
                < 1e-12
        );
    }

    #[test]
    fn the_animation_follows_the_schedule() {
        let r = gpt3(8, 16, Technology::Infiniband);
        // Stage 15 waits at the start (bubble), then computes; the end is DP and the optimizer.
        assert_eq!(r.activity(15, 6, 1.0), Activity::Idle);
        let first = r.blocks.iter().find(|b| b.stage == 15).unwrap();
        let kinds: std::collections::BTreeSet<String> = (0..400)
            .map(|i| {
                format!(
                    "{:?}",
                    r.activity(15, 6, first.start_ns + (first.end_ns - first.start_ns) * i as f64 / 400.0)
                )
            })
            .collect();
        assert!(
            kinds.contains("Tp") && kinds.contains("PipelineSend") && kinds.contains("Compute(Forward)"),
            "{kinds:?}"
        );
        assert_eq!(r.activity(0, 6, r.step_ns - 1.0), Activity::Optimizer);
    }

    #[test]
    fn zero_shards_memory() {
        let mut s = TrainScenario {
            cluster: Scenario { nodes: 2, ..Scenario::default_demo() },
            model: "llama2-7b".into(),
            tp: 8,
            pp: 1,
            dp: 2,
            global_batch: 16,
            ..TrainScenario::default_demo()
        };
        let mut memory = Vec::new();
        for zero in 0..=3 {
            s.zero = zero;
            let r = s.validate().unwrap().run();
            memory.push(r.memory.weights + r.memory.grads + r.memory.optimizer);
        }
        assert!(memory.windows(2).all(|w| w[1] < w[0]), "{memory:?}");
    }
}
