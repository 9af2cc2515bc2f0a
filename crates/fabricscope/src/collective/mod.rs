//! Collectives as schedules: data that says who sends which chunk to whom, and when.
//!
//! A `Schedule` is plain data (steps of chunk transfers with their dependencies), so the same
//! value is executed on integers by `verify`, timed by the engine and animated by the page.

mod direct;
pub mod hierarchical;
pub mod nvls;
pub mod protocol;
mod ring;
mod schedule;
pub mod tree;
mod verify;

pub use direct::{alltoall, sendrecv};
pub use hierarchical::{collnet_allreduce, hierarchical_allreduce};
pub use protocol::Protocol;
pub use ring::{
    chain_chunks, identity_order, ring_allreduce, ring_chain, ring_first_step, ring_gather_or_scatter,
    ring_order, ring_prefix, ring_steady_steps, CHAIN_CHUNK_BYTES, NCCL_STEPS,
};
pub use schedule::{
    Algorithm, ChunkOp, Hop, Phase, Probe, Region, Schedule, SwitchRef, Transfer, ELEM_BYTES,
};
pub use tree::tree_allreduce;
pub use verify::{verify, VerifyError, MAX_VERIFY_ELEMENTS};

use crate::scenario::Collective;

/// The schedule of `collective` on `nodes` nodes whose GPUs the `rings` orders visit.
pub fn schedule<R: AsRef<[u32]>>(
    collective: Collective,
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
    root: u32,
) -> Schedule {
    schedule_with(collective, Algorithm::Ring, nodes, rings, count, n_channels, root)
}

/// The same with an algorithm: Tree applies to AllReduce; the point-to-point collectives are
/// always direct.
pub fn schedule_with<R: AsRef<[u32]>>(
    collective: Collective,
    algorithm: Algorithm,
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
    root: u32,
) -> Schedule {
    let n = nodes * rings[0].as_ref().len() as u32;
    match collective {
        Collective::AllReduce if algorithm == Algorithm::Tree => {
            tree_allreduce(nodes, rings, count, n_channels)
        }
        Collective::AllReduce if algorithm == Algorithm::Hierarchical => {
            hierarchical_allreduce(nodes, rings, count, n_channels)
        }
        Collective::AllReduce if algorithm == Algorithm::Nvls => nvls::nvls_allreduce(n, count, n_channels),
        Collective::AllReduce if algorithm == Algorithm::CollNet => {
            collnet_allreduce(nodes, rings, count, n_channels)
        }
        Collective::AllReduce => ring_allreduce(nodes, rings, count, n_channels),
        Collective::AllGather => ring_gather_or_scatter(true, nodes, rings, count, n_channels),
        Collective::ReduceScatter => ring_gather_or_scatter(false, nodes, rings, count, n_channels),
        Collective::Broadcast => ring_chain(false, nodes, rings, count, n_channels, root),
        Collective::Reduce => ring_chain(true, nodes, rings, count, n_channels, root),
        Collective::AllToAll => alltoall(n, count, n_channels),
        Collective::SendRecv => sendrecv(n, count, n_channels),
    }
}

/// Transfers `schedule` makes, without making them (for the scenario's engine limit).
pub fn transfer_count(collective: Collective, n: u32, count: u64, n_channels: u32) -> u64 {
    let (n, c, k) = (n as u64, n_channels as u64, chain_chunks(count.div_ceil(n_channels as u64)) as u64);
    let m = n.saturating_sub(1);
    match collective {
        // Ring: 2(n-1) steps of n; Tree: 2(n-1) hops per chunk.
        Collective::AllReduce => (2 * m * n * c).max(2 * m * k * c),
        Collective::AllGather | Collective::ReduceScatter | Collective::AllToAll => m * n * c,
        Collective::Broadcast | Collective::Reduce => k * m * c,
        Collective::SendRecv => k * n * c,
    }
}
