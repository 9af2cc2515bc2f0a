//! A training job as plain serde data (`TrainScenario`): the cluster, the model, the layout
//! TP × PP × DP and its options, and the cost and storage assumptions.

use super::layout::RankOrder;
use super::model::{ModelPreset, ModelShape};
use crate::catalog::Technology;
use crate::scenario::{Scenario, ScenarioError};
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
    /// The sequence length to train at, in place of the model's own (long context).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq_len: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_model: Option<ModelShape>,
    pub tp: u32,
    /// Context parallelism: each sequence split over `cp` ranks that pass keys and values
    /// around a ring each layer (ring attention); CP sits just outside TP. 1: none.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub cp: u32,
    pub pp: u32,
    pub dp: u32,
    /// Expert parallelism: each MoE layer's routed experts split over `ep` ranks of the DP
    /// dimension (Megatron-Core's convention: EP divides DP, and expert gradients reduce over
    /// the `dp / ep` replicas of each expert). 1 without experts.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub ep: u32,
    /// Model chunks per pipeline stage: 1 is 1F1B, more is interleaved 1F1B (Narayanan et al.
    /// 2021, §2.2.2), whose bubble is `(PP - 1) / (virtual_stages · m)` of the ideal time.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub virtual_stages: u32,
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

fn one() -> u32 {
    1
}

fn is_one(value: &u32) -> bool {
    *value == 1
}

fn default_efficiency() -> f64 {
    0.55
}

fn yes() -> bool {
    true
}

impl TrainScenario {
    /// GPT-3 175B on 32 DGX H100 over InfiniBand NDR: TP 8 in each node, PP 16, DP 2.
    pub fn default_demo() -> TrainScenario {
        TrainScenario {
            cluster: Scenario { nodes: 32, ..Scenario::default_demo() },
            model: "gpt3-175b".into(),
            custom_model: None,
            seq_len: None,
            tp: 8,
            cp: 1,
            pp: 16,
            dp: 2,
            ep: 1,
            virtual_stages: 1,
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
        crate::scenario::parse_json(text)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a TrainScenario always serialises")
    }

    /// The model's shape (preset or custom), if the name is known, at `seq_len` if set.
    pub fn shape(&self) -> Option<ModelShape> {
        let shape = match (self.model.as_str(), &self.custom_model) {
            ("custom", Some(shape)) => Some(shape.clone()),
            (id, None) => ModelPreset::by_id(id).map(|preset| (preset.shape)()),
            _ => None,
        };
        shape.map(|shape| ModelShape { seq_len: self.seq_len.unwrap_or(shape.seq_len), ..shape })
    }
}
