//! Memory per GPU on the most loaded stage: weights, gradients and optimizer state as ZeRO
//! shards them (the routed experts over their `DP / EP` replicas), and activations as the
//! layout, sequence parallelism and recomputation keep them, times the most micro-batches the
//! pipeline schedule holds at once (`pipeline::peak_in_flight`: `PP` on the first stage of
//! 1F1B, more when interleaved). A MoE layer's activations are counted as a dense layer's.

use super::*;

impl ValidTrain {
    pub(super) fn memory(&self, blocks: &[pipeline::Block]) -> Memory {
        let s = &self.scenario;
        let shape = &self.shape;
        let (replicated, experts) = self.stage_params(self.heaviest_stage());
        let (dp, edp) = ((s.dp * s.cp) as f64, (s.dp / s.ep) as f64);
        let sharded = |bytes: f64, from_stage: u8| {
            if s.zero >= from_stage {
                bytes * (replicated / dp + experts / edp)
            } else {
                bytes * (replicated + experts)
            }
        };
        let weights = sharded(2.0, 3);
        let grads = sharded(2.0, 2);
        let optimizer = sharded(12.0, 1);
        // Under CP a rank keeps its share of each sequence (attention's scores per chunk pair).
        let (sl, b, h, a, t) = (
            shape.seq_len as f64 / s.cp as f64,
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
        let activations = (0..s.pp)
            .map(|i| {
                let (dense, moe) = self.stage_layers(i);
                per_layer * (dense + moe) as f64 * pipeline::peak_in_flight(blocks, i, s.virtual_stages)
            })
            .fold(0.0, f64::max);
        let total = weights + grads + optimizer + activations;
        let capacity = self.cluster.preset().gpu.hbm_gbyte * 1e9;
        Memory { weights, grads, optimizer, activations, total, capacity, fits: total <= capacity }
    }
}
