//! The α-β prediction: the closed form a student derives, with this topology's figures, beside
//! what the engine measured.

use super::Simulation;
use crate::engine;
use crate::topology::LinkKind;
use serde::Serialize;

/// The closed-form α-β prediction for this run and the figures it uses.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AlphaBeta {
    /// Latency of one step inside a node (NVLink path + protocol overhead) [ns].
    pub alpha_intra_ns: f64,
    /// Latency of one step that crosses the network [ns]; 0 on one node.
    pub alpha_inter_ns: f64,
    /// Steps of the slowest chain on each: a chunk's 2(n-1) hops around the ring.
    pub intra_steps: u32,
    pub inter_steps: u32,
    /// The slowest ring hop's data bandwidth per rank, all channels together, after the
    /// protocol's wire overhead [B/ns = GB/s].
    pub bandwidth_bytes_per_ns: f64,
    /// The protocol's launch latency [ns].
    pub base_ns: f64,
    /// `base + intra_steps·α_intra + inter_steps·α_inter + factor · S/B` [ns].
    pub predicted_ns: f64,
}

impl AlphaBeta {
    pub fn latency_ns(&self) -> f64 {
        self.base_ns
            + self.intra_steps as f64 * self.alpha_intra_ns
            + self.inter_steps as f64 * self.alpha_inter_ns
    }
}

impl Simulation {
    /// The α-β formula with this topology's figures, for the ring collectives: AllReduce
    /// `2(n-1)·α + 2(n-1)/n · S/B`, AllGather and ReduceScatter `(n-1)·α + (n-1)/n · S/B`;
    /// `None` for the others.
    ///
    /// `B`: a hop's bandwidth is its slowest link's capacity divided among the first step's
    /// transfers that cross that link; a channel moves at its slowest hop, and `B` is that rate
    /// times the number of channels. `α`: a chunk's data travels 2(n-1) consecutive ring hops,
    /// so the latency term is the slowest such chain: on one node `2(n-1)·α`; across nodes
    /// some of its hops cross the network and pay the network's α. Exact for one node; across
    /// nodes the engine finishes earlier, because it overlaps one step's latency with other
    /// steps' data.
    pub fn alpha_beta(&self) -> Option<AlphaBeta> {
        use crate::scenario::Collective;
        let collective = self.schedule.collective;
        if !matches!(collective, Collective::AllReduce | Collective::AllGather | Collective::ReduceScatter)
            || self.schedule.algorithm != crate::collective::Algorithm::Ring
        {
            return None;
        }
        let n = self.schedule.n_ranks;
        let first: Vec<usize> =
            (0..self.schedule.transfers.len()).filter(|&i| self.schedule.transfers[i].step == 0).collect();
        let mut sharing = vec![0u32; self.topology.n_links()];
        for &i in &first {
            for link in &self.trace.flows[i].path {
                sharing[link.index()] += 1;
            }
        }
        let mut channel_rate = vec![f64::INFINITY; self.schedule.n_channels as usize];
        for &i in &first {
            let rate = self.trace.flows[i]
                .path
                .iter()
                .map(|&l| self.topology.link(l).capacity().bytes_per_ns() / sharing[l.index()] as f64)
                .fold(f64::INFINITY, f64::min);
            let channel = self.schedule.transfers[i].channel as usize;
            channel_rate[channel] = channel_rate[channel].min(rate);
        }
        let slowest = channel_rate.iter().copied().fold(f64::INFINITY, f64::min);
        if n < 2 || !slowest.is_finite() {
            return None;
        }
        // Channel 0's hops in ring order: (latency, crosses the network).
        let hops: Vec<(u64, bool)> = first
            .iter()
            .filter(|&&i| self.schedule.transfers[i].channel == 0)
            .map(|&i| {
                let path = &self.trace.flows[i].path;
                (
                    engine::schedule_flow_latency_ns(&self.topology, path, &self.schedule),
                    self.topology.path_class(path) == LinkKind::Network,
                )
            })
            .collect();
        // The chain from each start: whole turns of the ring plus a partial one, from prefix
        // sums over the ring twice (linear in the ranks; a frame redraws this).
        let chain = self.n_steps() as usize;
        let n_hops = hops.len();
        let (turns, rest) = (chain / n_hops, chain % n_hops);
        let mut prefix = vec![(0u64, 0u32); 2 * n_hops + 1];
        for k in 0..2 * n_hops {
            let (lat, net) = hops[k % n_hops];
            prefix[k + 1] = (prefix[k].0 + lat, prefix[k].1 + net as u32);
        }
        let (round, round_inter) = prefix[n_hops];
        let (mut worst, mut worst_inter) = (0u64, 0u32);
        for start in 0..n_hops {
            let sum = turns as u64 * round + prefix[start + rest].0 - prefix[start].0;
            let inter = turns as u32 * round_inter + prefix[start + rest].1 - prefix[start].1;
            if sum > worst {
                (worst, worst_inter) = (sum, inter);
            }
        }
        let alpha_intra = hops.iter().filter(|h| !h.1).map(|h| h.0).max().unwrap_or(0) as f64;
        let alpha_inter = hops.iter().filter(|h| h.1).map(|h| h.0).max().unwrap_or(0) as f64;
        let protocol = self.schedule.protocol;
        let data_per_wire = 1e6 / protocol.wire_bytes(1_000_000) as f64;
        let bandwidth = slowest * self.schedule.n_channels as f64 * data_per_wire;
        let size = self.schedule.size_bytes();
        let beta_ns = collective.busbw_factor(n) * size as f64 / bandwidth;
        let base = self.schedule.base_latency_ns() as f64;
        Some(AlphaBeta {
            alpha_intra_ns: alpha_intra,
            alpha_inter_ns: alpha_inter,
            intra_steps: chain as u32 - worst_inter,
            inter_steps: worst_inter,
            bandwidth_bytes_per_ns: bandwidth,
            base_ns: base,
            predicted_ns: base + worst as f64 + beta_ns,
        })
    }
}
