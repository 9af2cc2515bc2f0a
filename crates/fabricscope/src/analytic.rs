//! Closed-form models the engine is checked against and the page shows beside its numbers.

/// The α-β time of a ring AllReduce [ns]: `2(n-1)·α + 2(n-1)/n · S/B`.
///
/// `alpha_ns` is one step's latency, `size_bytes` the message, and `bandwidth_bytes_per_ns` the
/// bandwidth of the slowest ring hop (per rank, all channels together).
pub fn ring_allreduce_ns(n_ranks: u32, size_bytes: u64, alpha_ns: f64, bandwidth_bytes_per_ns: f64) -> f64 {
    let steps = 2.0 * (n_ranks as f64 - 1.0);
    steps * alpha_ns + steps / n_ranks as f64 * size_bytes as f64 / bandwidth_bytes_per_ns
}

/// The same with the engine's rounding: every step takes `α + ceil(chunk / B)` ns, where a
/// chunk is `S / n` (exact when `S` divides by `n`). Equal to the engine's time when no two
/// flows of a step share a link.
pub fn ring_allreduce_rounded_ns(
    n_ranks: u32,
    size_bytes: u64,
    alpha_ns: u64,
    bandwidth_bytes_per_ns: f64,
) -> u64 {
    let steps = 2 * (n_ranks as u64 - 1);
    let chunk = size_bytes / n_ranks as u64;
    steps * (alpha_ns + crate::units::ceil_ns(chunk as f64 / bandwidth_bytes_per_ns))
}
