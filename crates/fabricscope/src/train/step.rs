//! One training step simulated: compute from FLOPs, every collective of the step through the
//! engine (`comm`), Megatron's 1F1B pipeline (`pipeline`), what overlaps and what is exposed,
//! cost and checkpoints. The maths and its papers are in the module doc of `train`.

use super::*;
use crate::units::round_to_elements;

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

    pub(super) fn micro_batches(&self) -> u64 {
        self.scenario.global_batch as u64 / (self.scenario.micro_batch as u64 * self.scenario.dp as u64)
    }

    /// One micro-batch's activation tensor `b·s·h` in BF16 [B].
    pub(super) fn activation_bytes(&self) -> u64 {
        self.scenario.micro_batch as u64 * self.shape.seq_len as u64 * self.shape.hidden as u64 * BF16
    }

    /// Parameters one GPU holds on the most loaded stage (layers, and the embedding on the first).
    pub(super) fn params_per_gpu(&self) -> f64 {
        let layers = (self.shape.layers / self.scenario.pp) as f64;
        (layers * self.shape.layer_params() as f64
            + self.shape.embedding_params() as f64
                / if self.scenario.pp > 1 && !self.shape.tied_embeddings { 2.0 } else { 1.0 })
            / self.scenario.tp as f64
    }

    /// The gradient bytes a DP group reduces per GPU.
    pub(super) fn grad_bytes(&self) -> u64 {
        round_to_elements((self.params_per_gpu() * BF16 as f64) as u64)
    }

    /// Simulates one step.
    pub fn run(&self) -> TrainReport {
        let topology = self.cluster.topology();
        self.run_on(&topology)
    }

    fn run_on(&self, topology: &Topology) -> TrainReport {
        let s = &self.scenario;
        let shape = &self.shape;
        let gpu = self.cluster.preset().gpu;
        let rate = gpu.bf16_dense_tflops * 1e3 * s.compute_efficiency; // FLOP per ns
        let m = self.micro_batches() as f64;
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
                    StepOp::SequenceAllGather,
                    tp_groups.len(),
                    s.tp,
                    activation,
                    (tp_calls_f + tp_calls_b) * m,
                    &ag,
                ));
                ops.push(Op::new(
                    OpKind::Tp,
                    StepOp::SequenceReduceScatter,
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
                    StepOp::TpAllReduce,
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
            let share = round_to_elements(activation / s.tp as u64);
            let op = comm::sends_op(&self.cluster, topology, &pairs, share);
            ops.push(Op::new(OpKind::Pp, StepOp::PipelineSendRecv, pairs.len(), 2, share, 2.0 * m, &op));
            op.time_ns as f64
        } else {
            0.0
        };
        // ZeRO-3: each layer's parameters gathered before its forward and its backward.
        let (z3_f, z3_b) = if s.zero == 3 && s.dp > 1 {
            let layer_bytes = round_to_elements((shape.layer_params() as f64 / tp) as u64 * BF16);
            let op =
                comm::collective_op(&self.cluster, topology, Collective::AllGather, &dp_groups, layer_bytes);
            ops.push(Op::new(
                OpKind::Dp,
                StepOp::LayerParamGather,
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
            let name = if s.zero == 0 { StepOp::GradAllReduce } else { StepOp::GradReduceScatter };
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
                    StepOp::UpdatedParamGather,
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
}
