//! One training step simulated: compute from FLOPs, every collective of the step through the
//! engine (`comm`), Megatron's 1F1B pipeline (`pipeline`), what overlaps and what is exposed,
//! cost and checkpoints. The maths and its papers are in the module doc of `train`.

use super::runs::Runs;
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

    /// Tokens of one micro-batch a rank holds: its share of each sequence under CP.
    pub(super) fn tokens_per_rank(&self) -> f64 {
        self.scenario.micro_batch as f64 * self.shape.seq_len as f64 / self.scenario.cp as f64
    }

    /// One micro-batch's activation tensor `b·s·h` in BF16 [B], a rank's share under CP.
    pub(super) fn activation_bytes(&self) -> u64 {
        round_to_elements(
            self.scenario.micro_batch as u64 * self.shape.seq_len as u64 / self.scenario.cp as u64
                * self.shape.hidden as u64
                * BF16,
        )
    }

    /// Bytes of keys and values one CP rank passes to the next per ring-attention step: its
    /// chunk's K and V (with latent attention, the heads' decompressed keys and values).
    pub(super) fn kv_chunk_bytes(&self) -> u64 {
        let shape = &self.shape;
        let width = match shape.mla {
            Some(m) => shape.heads as u64 * (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim) as u64,
            None => 2 * shape.kv_dim(),
        };
        round_to_elements((self.tokens_per_rank() as u64 * width / self.scenario.tp as u64) * BF16)
    }

    /// Layers of stage `i`, as even as they go (the first `L mod PP` stages take one more),
    /// dense layers first: (dense, with experts).
    pub(super) fn stage_layers(&self, i: u32) -> (u32, u32) {
        let (layers, p) = (self.shape.layers, self.scenario.pp);
        let (base, extra) = (layers / p, layers % p);
        let first = i * base + i.min(extra);
        let count = base + u32::from(i < extra);
        let dense_layers = layers - self.shape.moe_layers();
        let dense = dense_layers.saturating_sub(first).min(count);
        (dense, count - dense)
    }

    /// Parameters one GPU of stage `i` holds: those every DP replica holds, and the routed
    /// experts, split over EP (and TP, Megatron-Core's default expert TP) and replicated over
    /// the `DP / EP` expert-data-parallel ranks.
    pub(super) fn stage_params(&self, i: u32) -> (f64, f64) {
        let (s, shape) = (&self.scenario, &self.shape);
        let (dense, moe) = self.stage_layers(i);
        let routed = shape.moe.map_or(0, |m| m.experts as u64) * shape.expert_params();
        let embedding = match (s.pp, i == 0 || i + 1 == s.pp) {
            (1, _) => shape.embedding_params() as f64,
            (_, true) => shape.embedding_params() as f64 / if shape.tied_embeddings { 1.0 } else { 2.0 },
            _ => 0.0,
        };
        let replicated = dense as f64 * shape.layer_params_of(false) as f64
            + moe as f64 * (shape.layer_params_of(true) - routed) as f64
            + embedding;
        let tp = s.tp as f64;
        (replicated / tp, moe as f64 * routed as f64 / (s.ep as f64 * tp))
    }

    /// The stage whose GPUs hold the most parameters.
    pub(super) fn heaviest_stage(&self) -> u32 {
        let total = |i: u32| {
            let (r, e) = self.stage_params(i);
            r + e
        };
        (0..self.scenario.pp).fold(0, |best, i| if total(i) > total(best) { i } else { best })
    }

    /// The gradient bytes a DP group reduces per GPU (the replicated parameters), and an
    /// expert-data-parallel group (the routed experts), on the most loaded stage.
    pub(super) fn grad_bytes(&self) -> (u64, u64) {
        let (r, e) = self.stage_params(self.heaviest_stage());
        let bytes = |p: f64| if p > 0.0 { round_to_elements((p * BF16 as f64) as u64) } else { 0 };
        (bytes(r), bytes(e))
    }

    /// Bytes one GPU sends in one expert dispatch (or combine) AllToAll: its tokens (split over
    /// TP with sequence parallelism), each to `top_k` experts, padded to the capacity factor.
    pub(super) fn dispatch_bytes(&self) -> u64 {
        let Some(moe) = self.shape.moe else { return 0 };
        let s = &self.scenario;
        let tokens = self.tokens_per_rank() / if s.sequence_parallel { s.tp as f64 } else { 1.0 };
        round_to_elements(
            (tokens * moe.top_k as f64 * moe.capacity_factor * self.shape.hidden as f64 * BF16 as f64) as u64,
        )
    }

    /// Simulates one step: natively on every core the machine has (`run_on`), in WebAssembly
    /// on the page's one thread.
    pub fn run(&self) -> TrainReport {
        self.run_reporting(&|_| {})
    }

    /// `run`, telling `progress` how far it has got each time a pass starts its engine runs and
    /// each time one ends, where they run side by side (natively, on more than one core): a long
    /// step (GPT-3 over RoCE on 512 DGX H100, a minute and more) can say it is under way.
    pub fn run_reporting(&self, progress: &(dyn Fn(super::runs::StepProgress) + Sync)) -> TrainReport {
        let threads = match cfg!(target_arch = "wasm32") {
            true => 1,
            false => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        self.run_on_reporting(threads, progress)
    }

    /// Simulates one step with its engine runs on up to `threads` threads: with 1, each run
    /// when the step model asks for it; with more, the runs a pass over the step asks for
    /// side by side (`runs::on_threads`), the same report bit for bit (`tests.rs`).
    pub fn run_on(&self, threads: usize) -> TrainReport {
        self.run_on_reporting(threads, &|_| {})
    }

    /// `run_on`, telling `progress` how far it has got (`run_reporting`).
    fn run_on_reporting(
        &self,
        threads: usize,
        progress: &(dyn Fn(super::runs::StepProgress) + Sync),
    ) -> TrainReport {
        let topology = self.cluster.topology();
        #[cfg(not(target_arch = "wasm32"))]
        if threads > 1 {
            return super::runs::on_threads(self, &topology, threads, progress);
        }
        let _ = (threads, progress);
        self.run_with(&mut Runs::direct(&self.cluster, &topology))
    }

    /// The step, with its engine runs done by `runs` (at once, or recorded for a `TrainJob`).
    pub(super) fn run_with(&self, runs: &mut Runs) -> TrainReport {
        let s = &self.scenario;
        let shape = &self.shape;
        let gpu = self.cluster.preset().gpu;
        let rate = gpu.bf16_dense_tflops * 1e3 * s.compute_efficiency; // FLOP per ns
        let m = self.micro_batches() as f64;
        let v = s.virtual_stages as f64;
        let tokens_mb = self.tokens_per_rank();
        let tp = s.tp as f64;
        let full = s.recompute == Recompute::Full;

        // Communication, each kind through the engine with all its groups at once: one call's time.
        let tp_groups = self.grid.groups(Dim::Tp);
        let dp_groups = self.grid.gradient_groups();
        let dp_size = s.dp * s.cp;
        let (expert_groups, replica_groups) = self.grid.expert_groups(s.ep);
        let activation = self.activation_bytes();
        let mut ops = Vec::new();
        // Calls per layer and micro-batch, forward and backward (full recomputation redoes the
        // forward's in the backward).
        let (calls_f, calls_b) = (2.0, if full { 4.0 } else { 2.0 });
        let layers_total = shape.layers as f64 / s.pp as f64;
        let tp_call = if s.tp > 1 {
            let kinds: &[(Collective, StepOp)] = if s.sequence_parallel {
                &[
                    (Collective::AllGather, StepOp::SequenceAllGather),
                    (Collective::ReduceScatter, StepOp::SequenceReduceScatter),
                ]
            } else {
                &[(Collective::AllReduce, StepOp::TpAllReduce)]
            };
            let mut call = 0.0;
            for &(collective, name) in kinds {
                let op = runs.collective_op(collective, &tp_groups, activation);
                let calls = (calls_f + calls_b) * layers_total * m;
                ops.push(Op::new(OpKind::Tp, name, tp_groups.len(), s.tp, activation, calls, &op));
                call += op.time_ns as f64;
            }
            call
        } else {
            0.0
        };
        // Mixture of experts: per MoE layer a dispatch and a combine AllToAll in each EP group.
        let dispatch = self.dispatch_bytes();
        let ep_traffic = shape.moe.filter(|_| s.ep > 1).map(|moe| match moe.node_limit {
            Some(limit) => {
                comm::node_limited_traffic(&self.cluster, &expert_groups, dispatch, moe.top_k, limit)
            }
            None => comm::collective_traffic(&self.cluster, Collective::AllToAll, &expert_groups, dispatch),
        });
        let a2a_alone = if let Some(traffic) = &ep_traffic {
            let op = runs.timing(traffic);
            let calls = (calls_f + calls_b) / 2.0 * shape.moe_layers() as f64 / s.pp as f64 * m;
            for name in [StepOp::ExpertDispatch, StepOp::ExpertCombine] {
                ops.push(Op::new(OpKind::Ep, name, expert_groups.len(), s.ep, dispatch, calls, &op));
            }
            op.time_ns as f64
        } else {
            0.0
        };
        let mut pp_traffic = None;
        let p2p_alone = if s.pp > 1 {
            // Every pipeline's every boundary at once; each TP rank sends its 1/TP share.
            let mut pairs = Vec::new();
            for dp in 0..s.dp {
                for c in 0..s.cp {
                    for stage in 0..s.pp - 1 {
                        for t in 0..s.tp {
                            pairs.push((
                                self.grid.rank_of(t, c, stage, dp),
                                self.grid.rank_of(t, c, stage + 1, dp),
                            ));
                        }
                    }
                }
            }
            let share = round_to_elements(activation / s.tp as u64);
            let traffic = comm::sends_traffic(&self.cluster, &pairs, share);
            let op = runs.timing(&traffic);
            ops.push(Op::new(OpKind::Pp, StepOp::PipelineSendRecv, pairs.len(), 2, share, 2.0 * v * m, &op));
            pp_traffic = Some(traffic);
            op.time_ns as f64
        } else {
            0.0
        };
        // Context parallelism: each layer passes keys and values around the CP ring, CP - 1
        // steps, each overlapping the attention over the chunk before (the backward passes
        // their gradients too: twice the bytes, over twice the compute).
        let cp_pass = if s.cp > 1 {
            let pairs: Vec<(u32, u32)> = self
                .grid
                .groups(Dim::Cp)
                .iter()
                .flat_map(|g| (0..g.len()).map(move |i| (g[i], g[(i + 1) % g.len()])))
                .collect();
            let kv = self.kv_chunk_bytes();
            let steps = (s.cp - 1) as f64 * layers_total * m;
            let forward = runs.sends_op(&pairs, kv);
            ops.push(Op::new(OpKind::Cp, StepOp::ContextKvPass, pairs.len(), s.cp, kv, steps, &forward));
            let backward = runs.sends_op(&pairs, 2 * kv);
            ops.push(Op::new(
                OpKind::Cp,
                StepOp::ContextKvGradPass,
                pairs.len(),
                s.cp,
                2 * kv,
                steps,
                &backward,
            ));
            Some((forward.time_ns as f64, backward.time_ns as f64))
        } else {
            None
        };
        // ZeRO-3: each layer's parameters gathered before its forward and its backward.
        let z3_gather = if s.zero == 3 && s.dp > 1 {
            let layer_bytes = round_to_elements((shape.layer_params() as f64 / tp) as u64 * BF16);
            let op = runs.collective_op(Collective::AllGather, &dp_groups, layer_bytes);
            ops.push(Op::new(
                OpKind::Dp,
                StepOp::LayerParamGather,
                dp_groups.len(),
                dp_size,
                layer_bytes,
                2.0 * layers_total * m,
                &op,
            ));
            Some(op.time_ns as f64)
        } else {
            None
        };

        // Each stage's forward and backward of one micro-batch, by part, given one AllToAll's
        // and one pipeline send's time.
        let logits_f = shape.logits_forward_flops(tokens_mb) / tp / rate;
        let make_parts = |a2a_call: f64, p2p: f64| -> Vec<MicroBatch> {
            (0..s.pp)
                .map(|i| {
                    let (dense, moe) = self.stage_layers(i);
                    let layers = (dense + moe) as f64;
                    let f = (dense as f64 * shape.layer_forward_flops_of(false, tokens_mb)
                        + moe as f64 * shape.layer_forward_flops_of(true, tokens_mb))
                        / tp
                        / rate
                        + if i + 1 == s.pp { logits_f } else { 0.0 };
                    let recompute = match s.recompute {
                        Recompute::None => 0.0,
                        Recompute::Selective => layers * shape.attention_core_flops(tokens_mb) / tp / rate,
                        Recompute::Full => f - if i + 1 == s.pp { logits_f } else { 0.0 },
                    };
                    // ZeRO-3's gathers overlap the previous layer's compute: the first is exposed.
                    let exposed = |compute: f64| {
                        z3_gather
                            .map_or(0.0, |g| g + (layers - 1.0) * (g - compute / layers.max(1.0)).max(0.0))
                    };
                    // A ring-attention step's compute: the local queries against one chunk of keys.
                    let attention_step = shape.attention_core_flops(tokens_mb) / s.cp as f64 / tp / rate;
                    let (cp_f, cp_b) = cp_pass.map_or((0.0, 0.0), |(f, b)| {
                        let steps = (s.cp - 1) as f64 * layers;
                        let recomputed = if full { 2.0 } else { 1.0 };
                        (
                            steps * (f - attention_step).max(0.0),
                            steps
                                * ((b - 2.0 * attention_step).max(0.0)
                                    + (recomputed - 1.0) * (f - attention_step).max(0.0)),
                        )
                    });
                    MicroBatch {
                        compute_f: f,
                        compute_b: 2.0 * f + recompute,
                        tp_f: calls_f * layers * tp_call,
                        tp_b: calls_b * layers * tp_call,
                        ep_f: calls_f * moe as f64 * a2a_call,
                        ep_b: calls_b * moe as f64 * a2a_call,
                        cp_f,
                        cp_b,
                        p2p,
                        zero_f: exposed(f),
                        zero_b: exposed(2.0 * f + recompute),
                    }
                })
                .collect()
        };
        let forward = |b: &MicroBatch| b.compute_f + b.tp_f + b.ep_f + b.cp_f + b.zero_f + v * b.p2p;
        let backward = |b: &MicroBatch| b.compute_b + b.tp_b + b.ep_b + b.cp_b + b.zero_b + v * b.p2p;
        // The slowest stage: what the per-micro-batch figures describe.
        let slowest_of = |parts: &[MicroBatch]| {
            (0..parts.len()).fold(0, |best, i| {
                if forward(&parts[i]) + backward(&parts[i]) > forward(&parts[best]) + backward(&parts[best]) {
                    i
                } else {
                    best
                }
            })
        };

        // DP: gradients after the last backward (the routed experts' over their replicas);
        // ZeRO 1-2 gather the parameters after the step.
        let (grad, expert_grad) = self.grad_bytes();
        let edp = s.dp / s.ep;
        let mut reductions: Vec<(&[Vec<u32>], u32, u64, bool)> = Vec::new();
        if dp_size > 1 {
            reductions.push((&dp_groups, dp_size, grad, false));
        }
        if edp > 1 && expert_grad > 0 {
            reductions.push((&replica_groups, edp, expert_grad, true));
        }
        let (mut dp_exposed, mut dp_total, mut dp_reduce) = (0.0, 0.0, 0.0);
        let collective = if s.zero == 0 { Collective::AllReduce } else { Collective::ReduceScatter };
        // One bucket of the first reduction, every group at once: what meets the AllToAlls (built
        // only where there are AllToAlls).
        let bucket_traffic =
            reductions.first().filter(|_| ep_traffic.is_some()).map(|&(groups, _, bytes, _)| {
                let bucket = round_to_elements((bytes as f64).min(BUCKET_BYTES) as u64);
                runs.traffic(collective, groups, bucket)
            });
        for &(groups, size, bytes, experts) in &reductions {
            let op = runs.collective_op(collective, groups, bytes);
            let name = match (s.zero == 0, experts) {
                (true, false) => StepOp::GradAllReduce,
                (false, false) => StepOp::GradReduceScatter,
                (true, true) => StepOp::ExpertGradAllReduce,
                (false, true) => StepOp::ExpertGradReduceScatter,
            };
            ops.push(Op::new(OpKind::Dp, name, groups.len(), size, bytes, 1.0, &op));
            dp_reduce += op.time_ns as f64;
            if s.zero == 1 || s.zero == 2 {
                let op = runs.collective_op(Collective::AllGather, groups, bytes);
                let name = if experts { StepOp::ExpertParamGather } else { StepOp::UpdatedParamGather };
                ops.push(Op::new(OpKind::Dp, name, groups.len(), size, bytes, 1.0, &op));
                dp_exposed += op.time_ns as f64;
                dp_total += op.time_ns as f64;
            }
        }

        // Where EP's AllToAlls meet the pipeline's sends and the gradient buckets
        // (`contention`): the step runs on each call's mean time.
        let contention = match &ep_traffic {
            Some(ep) => {
                // How often kinds meet, from the step as it would be with every call alone.
                let alone = make_parts(a2a_alone, p2p_alone);
                let first = alone[slowest_of(&alone)];
                contention::measure(
                    runs,
                    &contention::Kinds { ep, pp: pp_traffic.as_ref(), bucket: bucket_traffic.as_ref() },
                    a2a_alone as u64,
                    &contention::Meeting {
                        forward_ns: forward(&first),
                        backward_ns: backward(&first),
                        ep_ns: first.ep_f + first.ep_b,
                        ep_backward_ns: first.ep_b,
                        send_ns: p2p_alone,
                        sends: 2.0 * v,
                        micro_batches: m,
                        overlapped_reduce_ns: (s.overlap_grad_reduce && dp_reduce > 0.0).then_some(dp_reduce),
                    },
                )
            }
            None => Vec::new(),
        };
        let p2p = contention::mean_ns(&contention, OpKind::Pp, p2p_alone);
        let parts = make_parts(contention::mean_ns(&contention, OpKind::Ep, a2a_alone), p2p);
        if let Some(dp) = contention.iter().find(|c| c.op == OpKind::Dp) {
            dp_reduce *= 1.0 + dp.mean_extra_ns() / dp.alone_ns.max(1) as f64;
        }
        let stages: Vec<pipeline::StageTimes> = parts
            .iter()
            .map(|b| pipeline::StageTimes { forward_ns: forward(b) / v, backward_ns: backward(b) / v })
            .collect();
        let (blocks, pipeline) = pipeline::run(&stages, m as u32, s.virtual_stages);
        let slowest = slowest_of(&parts);
        let micro = parts[slowest];
        let (compute_f, compute_b) = (micro.compute_f, micro.compute_b);
        let (t_f, t_b) = (forward(&micro), backward(&micro));
        if dp_reduce > 0.0 {
            let buckets = ((grad + expert_grad) as f64 / BUCKET_BYTES).ceil().max(1.0);
            dp_exposed += if s.overlap_grad_reduce {
                (dp_reduce / buckets).max(dp_reduce - compute_b)
            } else {
                dp_reduce
            };
            dp_total += dp_reduce;
        }
        let (replicated, experts) = self.stage_params(self.heaviest_stage());
        let (shard, expert_shard) = if s.zero >= 1 { (dp_size as f64, edp as f64) } else { (1.0, 1.0) };
        let optimizer =
            (replicated / shard + experts / expert_shard) * OPTIMIZER_BYTES_PER_PARAM / gpu.hbm_gbyte_per_s;
        let step = pipeline + dp_exposed + optimizer;

        let breakdown = Breakdown {
            compute_ns: m * (compute_f + compute_b),
            tp_ns: m * (micro.tp_f + micro.tp_b),
            ep_ns: m * (micro.ep_f + micro.ep_b),
            cp_ns: m * (micro.cp_f + micro.cp_b),
            pp_ns: m * 2.0 * v * p2p,
            dp_ns: dp_exposed + m * (micro.zero_f + micro.zero_b),
            bubble_ns: pipeline - m * (t_f + t_b),
            optimizer_ns: optimizer,
        };
        let gpus = self.cluster.n_ranks() as f64;
        let tokens = s.global_batch as f64 * shape.seq_len as f64;
        let tokens_per_s = tokens / (step * 1e-9);
        let mfu = shape.model_flops(tokens) / (step * gpus * gpu.bf16_dense_tflops * 1e3);
        let comm_exposed =
            breakdown.tp_ns + breakdown.ep_ns + breakdown.cp_ns + breakdown.pp_ns + breakdown.dp_ns;
        let memory = self.memory(&blocks);
        let technology = self.cluster.scenario().fabric.technology;
        let price = s.cost.gpu_hour_usd.unwrap_or(default_gpu_hour_usd(technology));
        let days = s.cost.tokens / tokens_per_s / 86_400.0;
        let gpu_hours = days * 24.0 * gpus;
        let checkpoint_bytes = shape.params() as f64 * CHECKPOINT_BYTES_PER_PARAM;
        let write_s = checkpoint_bytes / (s.storage.write_gbyte_per_s * 1e9);
        TrainReport {
            micro,
            stages: parts,
            slowest_stage: slowest as u32,
            virtual_stages: s.virtual_stages,
            stage_layers: (0..s.pp)
                .map(|i| {
                    let (dense, moe) = self.stage_layers(i);
                    dense + moe
                })
                .collect(),
            blocks,
            pipeline_ns: pipeline,
            dp_exposed_ns: dp_exposed,
            model_name: model::MODEL_PRESETS
                .iter()
                .find(|p| p.id == s.model)
                .map(|p| p.name.to_string())
                .unwrap_or_else(|| "custom".into()),
            params: shape.params(),
            active_params: shape.active_params(),
            gpus: self.cluster.n_ranks(),
            micro_batches: m as u64,
            step_ns: step,
            breakdown,
            comm_exposed_share: comm_exposed / step,
            comm_total_ns: m * (micro.tp_f + micro.tp_b + micro.ep_f + micro.ep_b + 2.0 * v * p2p) + dp_total,
            tokens_per_s,
            mfu,
            memory,
            ops,
            contention,
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
