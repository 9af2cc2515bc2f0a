//! Memory per GPU on the most loaded stage: weights, gradients and optimizer state as ZeRO
//! shards them, and activations as the layout, sequence parallelism and recomputation keep them.

use super::*;

impl ValidTrain {
    pub(super) fn memory(&self, m: f64) -> Memory {
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
