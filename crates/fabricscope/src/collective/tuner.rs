//! An NCCL-like tuner: predicts each (algorithm, protocol)'s time the way NCCL's tuning model
//! does, picks the fastest, and keeps the whole table so the page can show why.
//!
//! NCCL v2.30.7 (`src/graph/tuning.cc`): `time = base + Σ per-step latency + bytes / bandwidth`,
//! where a ring AllReduce has `2(n-1)` steps of which `2(nNodes-1)` cross the network, a ring
//! AllGather or ReduceScatter `n-1` steps of which `nNodes-1` do, and the bandwidth is the bus
//! bandwidth divided by the collective's busbw factor, times the protocol's efficiency (LL 0.5,
//! LL128 0.92, Simple 1). The bus bandwidth is the ring's: the slowest hop's share of its
//! links, per channel, times the channels (`bus_bandwidth`).
//!
//! Where it differs from the engine: the tuner sees no contention and no topology beyond that
//! one figure, counts latency per step rather than along the slowest chain of data, and uses
//! NCCL's rounded protocol factors; the engine moves every chunk over real routes.

use super::protocol::Protocol;
use super::schedule::{Algorithm, Schedule};
use crate::routing::Router;
use crate::scenario::Collective;
use crate::topology::{LinkKind, Topology};
use serde::Serialize;

/// One (algorithm, protocol) the tuner considered.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TunerRow {
    pub algorithm: Algorithm,
    pub protocol: Protocol,
    /// Launch latency [ns].
    pub base_ns: f64,
    /// Per-step latencies, summed [ns].
    pub steps_ns: f64,
    /// Bus bandwidth after the protocol's factor [GB/s].
    pub bus_bandwidth_gbyte_per_s: f64,
    /// The bandwidth term: bytes × busbw factor / bandwidth [ns].
    pub transfer_ns: f64,
    pub predicted_ns: f64,
}

/// The tuner's table and choice.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tuning {
    pub rows: Vec<TunerRow>,
    /// Index of the fastest row.
    pub chosen: usize,
    /// Steps inside a node and across the network, as NCCL counts them.
    pub intra_steps: u32,
    pub inter_steps: u32,
}

impl Tuning {
    pub fn choice(&self) -> &TunerRow {
        &self.rows[self.chosen]
    }
}

/// The ring's bus bandwidth [B/ns]: each of the first step's transfers gets its path's slowest
/// link divided among the first step's transfers crossing it; a channel moves at its slowest
/// transfer; the channels add up.
pub fn bus_bandwidth(topology: &Topology, schedule: &Schedule, router: &mut Router) -> f64 {
    let load = vec![0u32; topology.n_links()];
    let first: Vec<_> = schedule.transfers.iter().filter(|t| t.step == 0).collect();
    let paths: Vec<_> = first.iter().map(|t| router.route(t.src, t.dst, t.channel, &load)).collect();
    let mut sharing = vec![0u32; topology.n_links()];
    for path in &paths {
        for link in path {
            sharing[link.index()] += 1;
        }
    }
    let mut channel_rate = vec![f64::INFINITY; schedule.n_channels as usize];
    for (transfer, path) in first.iter().zip(&paths) {
        let rate = path
            .iter()
            .map(|&l| topology.link(l).capacity().bytes_per_ns() / sharing[l.index()] as f64)
            .fold(f64::INFINITY, f64::min);
        let c = transfer.channel as usize;
        channel_rate[c] = channel_rate[c].min(rate);
    }
    let slowest = channel_rate.iter().copied().fold(f64::INFINITY, f64::min);
    if slowest.is_finite() {
        slowest * schedule.n_channels as f64
    } else {
        0.0
    }
}

/// Predicts every (algorithm, protocol) for `collective` and picks the fastest (ties: Simple,
/// then LL128, then LL, as NCCL prefers bandwidth).
pub fn tune(
    collective: Collective,
    n_ranks: u32,
    n_nodes: u32,
    size_bytes: u64,
    bus_bandwidth_bytes_per_ns: f64,
    intra: LinkKind,
) -> Tuning {
    let (n, nodes) = (n_ranks.max(1), n_nodes.max(1));
    let (algorithm, steps, inter) = match collective {
        Collective::AllReduce => (Algorithm::Ring, 2 * (n - 1), 2 * (nodes - 1)),
        Collective::AllGather | Collective::ReduceScatter | Collective::Broadcast | Collective::Reduce => {
            (Algorithm::Ring, n - 1, nodes - 1)
        }
        Collective::AllToAll | Collective::SendRecv => (Algorithm::Direct, u32::from(n > 1), u32::from(nodes > 1)),
    };
    let protocols: &[Protocol] = match algorithm {
        Algorithm::Direct => &[Protocol::Simple],
        _ => &[Protocol::Simple, Protocol::Ll128, Protocol::Ll],
    };
    let factor = collective.busbw_factor(n);
    let rows: Vec<TunerRow> = protocols
        .iter()
        .map(|&protocol| {
            let base_ns = protocol.base_latency_ns(algorithm) as f64;
            let steps_ns = (steps - inter) as f64 * protocol.step_latency_ns(algorithm, intra) as f64
                + inter as f64 * protocol.step_latency_ns(algorithm, LinkKind::Network) as f64;
            let bandwidth = bus_bandwidth_bytes_per_ns * protocol.tuner_efficiency();
            let transfer_ns = if bandwidth > 0.0 { size_bytes as f64 * factor / bandwidth } else { 0.0 };
            TunerRow {
                algorithm,
                protocol,
                base_ns,
                steps_ns,
                bus_bandwidth_gbyte_per_s: bandwidth,
                transfer_ns,
                predicted_ns: base_ns + steps_ns + transfer_ns,
            }
        })
        .collect();
    let chosen = (0..rows.len()).min_by(|&a, &b| rows[a].predicted_ns.total_cmp(&rows[b].predicted_ns)).unwrap_or(0);
    Tuning { rows, chosen, intra_steps: steps - inter, inter_steps: inter }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_messages_pick_ll_and_large_ones_simple() {
        // One DGX H100: 8 ranks, 370.8 GB/s.
        let tiny = tune(Collective::AllReduce, 8, 1, 8, 370.8, LinkKind::NvLink);
        assert_eq!(tiny.choice().protocol, Protocol::Ll);
        // 6.6 µs + 14 × 0.6 µs: NCCL's LL ring latency on NVLink.
        assert!((tiny.choice().predicted_ns - (6_600.0 + 14.0 * 600.0)).abs() < 1.0);
        let big = tune(Collective::AllReduce, 8, 1, 1 << 30, 370.8, LinkKind::NvLink);
        assert_eq!(big.choice().protocol, Protocol::Simple);
        assert_eq!((big.intra_steps, big.inter_steps), (14, 0));
        let two_nodes = tune(Collective::AllReduce, 16, 2, 1 << 20, 384.0, LinkKind::NvLink);
        assert_eq!((two_nodes.intra_steps, two_nodes.inter_steps), (28, 2));
        let alltoall = tune(Collective::AllToAll, 16, 2, 1 << 20, 384.0, LinkKind::NvLink);
        assert_eq!(alltoall.rows.len(), 1);
    }
}
