//! An NCCL-like tuner: predicts each (algorithm, protocol)'s time the way NCCL's tuning model
//! does, picks the fastest, and keeps the whole table so the page can show why.
//!
//! NCCL v2.30.7 (`src/graph/tuning.cc`): `time = base + Σ per-step latency + bytes / bandwidth`,
//! where a ring AllReduce has `2(n-1)` steps of which `2(nNodes-1)` cross the network, a ring
//! AllGather or ReduceScatter `n-1` steps of which `nNodes-1` do, a tree AllReduce
//! `2((n/nNodes - 1) + log2 nNodes)` of which `2 log2 nNodes` do; the bandwidth term is the
//! busiest link's load (`bandwidth_bound_ns`) over the protocol's efficiency (LL 0.5, LL128
//! 0.92, Simple 1), and PAT's 0.75. With one GPU per node every network step costs the Tree's
//! latency, as in NCCL. NVLSTree: NVLS's 25 µs plus `2 log2 nNodes` network steps of 20.9 µs;
//! PAT: 8 µs + 2.8 µs per rank + `log2 nNodes` steps of 4 µs (NCCL at 5067397c).
//!
//! Where it differs from the engine: the tuner sees no contention and no topology beyond that
//! one figure, counts latency per step rather than along the slowest chain of data, and uses
//! NCCL's rounded protocol factors; the engine moves every chunk over real routes.

use crate::collective::{Algorithm, Hop, Protocol, Schedule, Transfer};
use crate::routing::Router;
use crate::scenario::{Collective, LatencyModel};
use crate::topology::{LinkId, LinkKind, Topology};
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
    /// Steps inside a node and across the network for this algorithm.
    pub intra_steps: u32,
    pub inter_steps: u32,
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

/// The bandwidth-bound time of a schedule [ns]: route every transfer (as the engine would at
/// rest), add up the bytes each link carries, and take the busiest link's bytes over its
/// capacity. For a ring this is `factor · S / B` with B the ring's bus bandwidth, NCCL's
/// bandwidth term; for a tree it also sees that an inner node's NIC carries its two children's
/// data and its parent's, which NCCL's tuner handles with per-channel tree caps instead.
pub fn bandwidth_bound_ns(topology: &Topology, schedule: &Schedule, router: &mut Router) -> f64 {
    let mut bound = Bound::new(topology, schedule);
    bound.route(topology, schedule, router, usize::MAX);
    bound.ns(topology)
}

/// `bandwidth_bound_ns` a number of transfers at a time (`route`), for a caller that must stay
/// responsive (a big plan's trees in the page: 155,520 transfers at 1,024 GPUs).
pub struct Bound {
    /// Bytes each link carries, per phase that cannot overlap (`Schedule::phase_starts`).
    bytes: Vec<Vec<u64>>,
    /// Transfers routed so far.
    next: usize,
    /// Each connection's route, asked of the router once: the bound sees no load, so a route
    /// depends on its ends, its channel and its hop alone (a ring of 64 GPUs over 8 channels
    /// has 64,512 transfers on 512 connections).
    routes: Routes,
}

/// (src, dst, channel, hop) → the route's links.
type Routes = std::collections::HashMap<(u32, u32, u32, Hop), Vec<LinkId>, crate::hash::FixedState>;

/// Most routes `Bound` keeps: emptied when full, so a schedule of distinct connections (NVLSTree's
/// one-chunk schedule at 131,072 GPUs has 20 M) costs no memory, and a ring's every connection
/// (8 channels of 8,192 GPUs) still fits.
const KEPT_ROUTES: usize = 65_536;

impl Bound {
    pub fn new(topology: &Topology, schedule: &Schedule) -> Bound {
        Bound {
            bytes: vec![vec![0u64; topology.n_links()]; schedule.phase_starts.len() + 1],
            next: 0,
            routes: Routes::default(),
        }
    }

    /// The bound of `schedule` whose transfers follow `paths` (one each, in order: routes a
    /// proof already made), each phase's link bytes then carried by `spread` to those of the
    /// whole the transfers stand for (`engine::symmetry::Symmetry::whole_link_bytes`).
    pub fn of_paths(
        topology: &Topology,
        schedule: &Schedule,
        paths: &[Vec<LinkId>],
        spread: impl Fn(&[u64]) -> Vec<u64>,
    ) -> Bound {
        let mut bound = Bound::new(topology, schedule);
        for (t, path) in schedule.transfers.iter().zip(paths) {
            Bound::carry(&mut bound.bytes, topology, schedule, t, path);
        }
        bound.bytes = bound.bytes.iter().map(|phase| spread(phase)).collect();
        bound.next = schedule.transfers.len();
        bound
    }

    /// Transfer `t`'s bytes added to each link of `route` in `bytes`, in its phase. The
    /// protocol's own factor is the tuner's (`tuner_efficiency`); a switch hop's is here.
    fn carry(
        bytes: &mut [Vec<u64>],
        topology: &Topology,
        schedule: &Schedule,
        t: &Transfer,
        route: &[LinkId],
    ) {
        let phase = schedule.phase_starts.iter().filter(|&&start| t.step >= start).count();
        let hop_bytes = t.hop.carried(t.bytes(), topology.nvls_efficiency);
        for link in route {
            bytes[phase][link.index()] += hop_bytes;
        }
    }

    /// Routes up to `transfers` more of `schedule`'s transfers; true once all are.
    pub fn route(
        &mut self,
        topology: &Topology,
        schedule: &Schedule,
        router: &mut Router,
        transfers: usize,
    ) -> bool {
        let load = vec![0u32; topology.n_links()];
        let end = self.next.saturating_add(transfers).min(schedule.transfers.len());
        for t in &schedule.transfers[self.next..end] {
            if self.routes.len() >= KEPT_ROUTES {
                self.routes.clear();
            }
            let route = self
                .routes
                .entry((t.src, t.dst, t.channel, t.hop))
                .or_insert_with(|| router.route_transfer(t, &load));
            Bound::carry(&mut self.bytes, topology, schedule, t, route);
        }
        self.next = end;
        end == schedule.transfers.len()
    }

    /// Phases that cannot overlap add up; inside one, the busiest link's bytes over its capacity.
    pub fn ns(&self, topology: &Topology) -> f64 {
        self.ns_times(topology, 1)
    }

    /// `ns` of a schedule of `copies` copies of the routed one, each on the same links with the
    /// same bytes and in one phase (a ring's identical steps): the whole's bound to the bit (its
    /// bytes are the copy's times `copies`, in integers), from one copy routed.
    pub fn ns_times(&self, topology: &Topology, copies: u64) -> f64 {
        self.bytes
            .iter()
            .map(|phase_bytes| {
                topology
                    .links()
                    .map(|(id, link)| {
                        (phase_bytes[id.index()] * copies) as f64 / link.capacity().bytes_per_ns()
                    })
                    .fold(0.0, f64::max)
            })
            .sum()
    }
}

/// Predicts every (algorithm, protocol) for `collective` and picks the fastest (ties: Simple,
/// then LL128, then LL, as NCCL prefers bandwidth).
pub fn tune(
    collective: Collective,
    n_ranks: u32,
    n_nodes: u32,
    size_bytes: u64,
    bounds: &[(Algorithm, f64)],
    intra: LinkKind,
    latency: LatencyModel,
) -> Tuning {
    let (n, nodes) = (n_ranks.max(1), n_nodes.max(1));
    let factor = collective.busbw_factor(n);
    let mut candidates: Vec<(Algorithm, Protocol, u32, u32, f64)> = Vec::new();
    for &(algorithm, bound_ns) in bounds {
        // Steps as NCCL's latency model counts them (`tuning.cc`).
        let depth = u32::BITS - (nodes - 1).leading_zeros(); // ceil(log2(nodes)), in integers
        let log_n = u32::BITS - (n - 1).leading_zeros();
        let halves = if collective == Collective::AllReduce { 2 } else { 1 };
        let (steps, inter) = match (algorithm, collective) {
            (Algorithm::Tree, _) => (2 * ((n / nodes - 1) + depth), 2 * depth),
            // NVLSTree: NVLS's four hops in the node, then up and down the tree of nodes.
            (Algorithm::NvlsTree, _) => (4 + 2 * depth, 2 * depth),
            // PAT: a network step per tree level (its per-rank part is in the base).
            (Algorithm::Pat, _) => (depth, depth),
            // Ours: log2 n steps per half, those at distances of a node or more across it.
            (Algorithm::HalvingDoubling, _) => (halves * log_n, halves * depth),
            (Algorithm::AllPairs, _) => (halves, if nodes > 1 { halves } else { 0 }),
            (Algorithm::Bruck, _) => (log_n, if nodes > 1 { log_n } else { 0 }),
            // NVLS: one latency term, NCCL's 25 µs, counted here as a chunk's four hops.
            (Algorithm::Nvls, _) => (4, 0),
            // CollNet (NCCL): 2 (g-1) NVLink steps and one trip to the switch and back.
            (Algorithm::CollNet, _) => (2 * (n / nodes - 1) + 2, 2),
            // Ours, not NCCL's: two NVLink ring phases of g-1 steps around a rail ring of 2(N-1).
            (Algorithm::Hierarchical, _) => (2 * (n / nodes - 1) + 2 * (nodes - 1), 2 * (nodes - 1)),
            (_, Collective::AllReduce) => (2 * (n - 1), 2 * (nodes - 1)),
            (_, Collective::AllToAll | Collective::SendRecv) => (u32::from(n > 1), u32::from(nodes > 1)),
            _ => (n - 1, nodes - 1),
        };
        let protocols: &[Protocol] = match algorithm {
            // NCCL runs P2P, NVLS, NVLSTree and PAT with Simple only, and CollNet without
            // LL128; Bruck is point to point, as P2P.
            Algorithm::Direct | Algorithm::Nvls | Algorithm::NvlsTree | Algorithm::Pat | Algorithm::Bruck => {
                &[Protocol::Simple]
            }
            Algorithm::CollNet => &[Protocol::Simple, Protocol::Ll],
            _ => &[Protocol::Simple, Protocol::Ll128, Protocol::Ll],
        };
        for &p in protocols {
            candidates.push((algorithm, p, steps, inter, bound_ns));
        }
    }
    let rows: Vec<TunerRow> = candidates
        .iter()
        .map(|&(algorithm, protocol, steps, inter, bound_ns)| {
            // With the links' latencies alone (`LatencyModel::Links`) NCCL's model charges none.
            let nccl = latency == LatencyModel::Nccl;
            // PAT's base has a linear part, 2.8 µs per rank (`Schedule::base_latency_ns`).
            let linear = if algorithm == Algorithm::Pat { 2_800.0 * n as f64 } else { 0.0 };
            let base_ns = if nccl { protocol.base_latency_ns(algorithm) as f64 + linear } else { 0.0 };
            // With one GPU per node NCCL charges a network step the Tree's latency ("with
            // ppn=1 latencies are fully exposed"), except PAT's own and CollNet's.
            let exposed = n == nodes && !matches!(algorithm, Algorithm::Pat | Algorithm::CollNet);
            let network_algorithm = if exposed { Algorithm::Tree } else { algorithm };
            let steps_ns = if nccl {
                (steps - inter) as f64 * protocol.step_latency_ns(algorithm, intra) as f64
                    + inter as f64 * protocol.step_latency_ns(network_algorithm, LinkKind::Network) as f64
            } else {
                0.0
            };
            // NCCL discounts PAT's bus bandwidth to 0.75 (`tuning.cc`).
            let algorithm_efficiency = if algorithm == Algorithm::Pat { 0.75 } else { 1.0 };
            let transfer_ns = bound_ns / (protocol.tuner_efficiency() * algorithm_efficiency);
            let bandwidth = if transfer_ns > 0.0 { factor * size_bytes as f64 / transfer_ns } else { 0.0 };
            TunerRow {
                algorithm,
                protocol,
                base_ns,
                steps_ns,
                bus_bandwidth_gbyte_per_s: bandwidth,
                transfer_ns,
                predicted_ns: base_ns + steps_ns + transfer_ns,
                intra_steps: steps - inter,
                inter_steps: inter,
            }
        })
        .collect();
    // NCCL chooses among its own algorithms: the others are shown for comparison, never picked.
    let chosen = (0..rows.len())
        .filter(|&i| rows[i].algorithm.is_nccls())
        .min_by(|&a, &b| rows[a].predicted_ns.total_cmp(&rows[b].predicted_ns))
        .unwrap_or(0);
    let (intra_steps, inter_steps) = rows.first().map(|r| (r.intra_steps, r.inter_steps)).unwrap_or((0, 0));
    Tuning { rows, chosen, intra_steps, inter_steps }
}

/// The fastest row among those with `algorithm` and/or `protocol` fixed (NCCL_ALGO, NCCL_PROTO);
/// with no algorithm fixed, among NCCL's own (`Algorithm::is_nccls`).
pub fn pick(tuning: &Tuning, algorithm: Option<Algorithm>, protocol: Option<Protocol>) -> Option<&TunerRow> {
    tuning
        .rows
        .iter()
        .filter(|row| match algorithm {
            Some(a) => a == row.algorithm,
            None => row.algorithm.is_nccls(),
        })
        .filter(|row| protocol.is_none_or(|p| p == row.protocol))
        .min_by(|a, b| a.predicted_ns.total_cmp(&b.predicted_ns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_messages_pick_ll_and_large_ones_simple() {
        // One DGX H100: 8 ranks, 370.8 GB/s: a ring's bound at S is 1.75 S / 370.8.
        let ring = |size: u64| [(Algorithm::Ring, 1.75 * size as f64 / 370.8)];
        let tiny = tune(Collective::AllReduce, 8, 1, 8, &ring(8), LinkKind::NvLink, LatencyModel::Nccl);
        assert_eq!(tiny.choice().protocol, Protocol::Ll);
        // 6.6 µs + 14 × 0.6 µs: NCCL's LL ring latency on NVLink.
        assert!((tiny.choice().predicted_ns - (6_600.0 + 14.0 * 600.0)).abs() < 1.0);
        let big =
            tune(Collective::AllReduce, 8, 1, 1 << 30, &ring(1 << 30), LinkKind::NvLink, LatencyModel::Nccl);
        assert_eq!(big.choice().protocol, Protocol::Simple);
        assert!((big.choice().bus_bandwidth_gbyte_per_s - 370.8).abs() < 1e-6);
        assert_eq!((big.intra_steps, big.inter_steps), (14, 0));
    }

    #[test]
    fn tree_wins_small_messages_on_many_nodes() {
        // 16 nodes × 8: a tree's latency grows with log2 16 = 4 network levels, a ring's with 2·15.
        let size = 64u64 << 10;
        let bounds =
            [(Algorithm::Ring, 1.98 * size as f64 / 384.0), (Algorithm::Tree, 3.0 * size as f64 / 384.0)];
        let many = tune(Collective::AllReduce, 128, 16, size, &bounds, LinkKind::NvLink, LatencyModel::Nccl);
        assert_eq!(many.choice().algorithm, Algorithm::Tree, "{:?}", many.choice());
        let size = 1u64 << 30;
        let bounds =
            [(Algorithm::Ring, 1.98 * size as f64 / 384.0), (Algorithm::Tree, 3.0 * size as f64 / 384.0)];
        let huge = tune(Collective::AllReduce, 128, 16, size, &bounds, LinkKind::NvLink, LatencyModel::Nccl);
        assert_eq!(huge.choice().algorithm, Algorithm::Ring);
    }
}
