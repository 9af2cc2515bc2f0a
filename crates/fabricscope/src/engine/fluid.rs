//! A ring's per-step floor: the least time each of its identical steps can take once it runs
//! steadily, from one step's routed flows, and the bytes each link carries per step.
//! `simulation` extends a ring too big to simulate whole, that never repeats exactly, by a
//! per-step time it measures on a simulated prefix; this floor keeps that measurement honest
//! (it never extrapolates faster than the links allow), and its link bytes are exact.
//!
//! The engine's rules as a max-plus recurrence. Channel c's ring has edges e = 0 … n-1
//! (position e sends to e+1); let `x_e(k)` be when edge e's step k finishes, `α_e` its flow
//! latency (`Schedule::flow_latency_ns`) and `β_e` its bytes over the rate it
//! would have alone on its path. A step is issued once the chunk it forwards has arrived (edge
//! e-1's step k-1) and a slot is free (its own step k-NCCL_STEPS); it pays its latency, then
//! moves once its connection's previous step has moved (a FIFO), at most at that rate:
//!
//! ```text
//!   x_e(k) ≥ max( x_{e-1}(k-1) + α_e,  x_e(k-8) + α_e,  x_e(k-1) ) + β_e
//! ```
//!
//! so the ring grows per step by at least its maximum cycle mean: an edge's slots
//! ((α_e + β_e)/8), the whole ring, one step per edge ((1/n) Σ_e α_e + β_e); and by at least
//! the busiest link's bytes per step over its capacity (every step moves the same bytes):
//!
//! ```text
//!   floor = max( max_l bytes_l / C_l,  max_c (1/n) Σ_{e of c} (α_e + β_e),  max_e (α_e + β_e)/8 )
//! ```
//!
//! Where a link carries flows from several sources, congestion control may leave it below `C_l`
//! (`congested_efficiency`): the floor uses `C_l`, which only lowers it.

use crate::collective::{Schedule, NCCL_STEPS};
use crate::routing::{Policy, Router};
use crate::topology::Topology;

/// A ring's per-step floor and what it is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct RingFloor {
    /// The floor [ns per step]: the largest of the three below.
    pub step_ns: f64,
    /// The busiest link's bytes per step over its capacity [ns].
    pub link_ns: f64,
    /// The slowest channel's ring cycle per step, each flow at its rate alone [ns].
    pub chain_ns: f64,
    /// The longest slot cycle per step [ns].
    pub slots_ns: f64,
    /// Bytes each link carries per step (the same every step).
    pub link_bytes: Vec<u64>,
}

/// The floor of `one_step`: one step of a ring collective (every channel's positions, each
/// sending to the next), routed as the engine routes it under `policy`'s static routing.
pub fn ring_floor(topology: &Topology, one_step: &Schedule, policy: Policy) -> RingFloor {
    let transfers = &one_step.transfers;
    let mut router = Router::for_transfers(topology, policy, transfers);
    let none = vec![0u32; topology.n_links()];
    let capacity: Vec<f64> = topology.links().map(|(_, link)| link.capacity().bytes_per_ns()).collect();
    let mut link_bytes = vec![0u64; topology.n_links()];
    let mut chain = vec![(0.0f64, 0u32); one_step.n_channels.max(1) as usize];
    let mut slots_ns = 0.0f64;
    for transfer in transfers {
        let path = router.route_transfer(transfer, &none);
        let bytes = super::wire_bytes(topology, one_step, transfer);
        for link in &path {
            link_bytes[link.index()] += bytes;
        }
        let alone = path.iter().map(|l| capacity[l.index()]).fold(f64::INFINITY, f64::min);
        let beta = if bytes == 0 { 0.0 } else { crate::units::ceil_ns(bytes as f64 / alone) as f64 };
        let alpha = super::schedule_flow_latency_ns(topology, &path, one_step) as f64;
        slots_ns = slots_ns.max((alpha + beta) / NCCL_STEPS as f64);
        let (sum, edges) = &mut chain[transfer.channel as usize];
        *sum += alpha + beta;
        *edges += 1;
    }
    let chain_ns =
        chain.iter().filter(|c| c.1 > 0).map(|&(sum, edges)| sum / edges as f64).fold(0.0, f64::max);
    let link_ns = link_bytes.iter().zip(&capacity).map(|(&b, &c)| b as f64 / c).fold(0.0, f64::max);
    RingFloor { step_ns: link_ns.max(chain_ns).max(slots_ns), link_ns, chain_ns, slots_ns, link_bytes }
}
