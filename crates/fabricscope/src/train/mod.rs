//! The training job: a model split TP × PP × DP over the cluster, one step's time with what
//! overlaps and what is exposed, memory per GPU, cost and checkpoints.
//!
//! ## The step (Megatron-LM's 1F1B schedule, plain or interleaved)
//!
//! With `m = global_batch / (micro_batch × DP)` micro-batches per pipeline and per stage
//! (`⌈L / PP⌉` or `⌊L / PP⌋` layers, the dense ones first) forward time `t_f` and backward
//! time `t_b` per micro-batch:
//!
//! ```text
//!   pipeline  = (m + PP - 1) × (t_f + t_b)           the (PP - 1) slots are the bubble
//!             = (m + (PP - 1)/v) × (t_f + t_b)       interleaved, v model chunks per stage
//!   t_f       = compute_f + TP_f + EP_f + CP_f + v·P2P   TP and EP are not overlapped, CP partly
//!   t_b       = compute_b + TP_b + EP_b + CP_b + v·P2P   compute_b = 2 × compute_f (+ recomputation)
//!   step      = pipeline + DP exposed + optimizer
//! ```
//!
//! Mixture of experts (Lepikhin et al. 2020, "GShard"; Megatron-Core's MoE): EP splits each DP
//! group into `DP / EP` groups of `EP` ranks, each holding `experts / EP` of every MoE layer's
//! routed experts (split over TP like the rest). Per MoE layer and micro-batch a rank sends its
//! `b·s` tokens (over TP with sequence parallelism) to their `top_k` experts in a dispatch
//! AllToAll of `tokens · top_k · h` BF16 values (padded by the capacity factor) and gets them
//! back in a combine AllToAll of the same size; the backward does both again. Balanced routing
//! is assumed, and nothing hides them (DeepSeek's DualPipe overlaps them with compute; not
//! modelled). Expert gradients reduce over the `DP / EP` ranks that hold the same experts.
//! Node-limited routing (DeepSeek-AI 2024, "DeepSeek-V3", §2.1.2 and §3.2.2; its DeepEP
//! kernels): each token goes to at most `M` of its EP group's `k` nodes, crossing the network
//! once per node to the GPU of the same index there, which forwards it over NVLink to the GPUs
//! holding its experts: the network carries `1/top_k × min(M, k)/k` of the dispatch to each
//! other node instead of one copy per expert (`comm::node_limited_traffic`).
//!
//! Where kinds of traffic share links (`contention`): the AllToAlls run together with the
//! pipeline's sends and with a gradient bucket of every DP group, and each call is taken at
//! its mean time given how often they meet (first order, from the step's times).
//!
//! Context parallelism (Liu et al. 2023, "Ring Attention"; Megatron-Core's context parallel):
//! each sequence is cut into `2·CP` chunks, a rank holding two (one from each end, so causal
//! attention is balanced), and everything per token (compute, activations, TP, PP) is a rank's
//! `s / CP` tokens. Each layer passes keys and values `CP - 1` times around the CP ring, each pass
//! overlapping the attention over the chunk received before; exposed per pass is what the pass
//! takes beyond that attention (the backward passes their gradients too: twice the bytes, over
//! twice the compute). Gradients reduce over DP × CP.
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
pub mod prefix;

mod compare;
mod contention;
pub mod cut;
mod memory;
mod report;
pub mod runs;
mod scenario;
mod step;
#[cfg(test)]
mod tests;
mod validate;

pub use compare::{
    compare_fabrics, difference, on_fabric, scaled, scaling, scaling_of, scaling_run, Difference, FabricRow,
    FABRICS,
};
pub use contention::Contention;
pub use report::{Activity, Breakdown, Cost, Memory, MicroBatch, Op, OpKind, StepOp, Storage, TrainReport};
pub use runs::{StepProgress, TrainJob};
pub use scenario::{default_gpu_hour_usd, CostAssumptions, Recompute, StorageAssumptions, TrainScenario};
pub use validate::ValidTrain;

use crate::catalog::Technology;
use crate::plan::ValidScenario;
use crate::scenario::{Collective, ScenarioError};
use layout::{Dim, Grid};
use model::ModelShape;
use serde::{Deserialize, Serialize};
