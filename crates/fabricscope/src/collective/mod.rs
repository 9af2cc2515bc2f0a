//! Collectives as schedules: data that says who sends which chunk to whom, and when.
//!
//! A `Schedule` is plain data (steps of chunk transfers with their dependencies), so the same
//! value is executed on integers by `verify`, timed by the engine and animated by the page.

mod builder;
mod direct;
pub mod hierarchical;
pub mod holdings;
pub mod nvls;
pub mod nvls_tree;
pub mod pat;
pub mod protocol;
mod ring;
mod schedule;
pub mod textbook;
pub mod tree;
mod verify;

pub use builder::{FirstChannels, ScheduleBuilder};
pub use direct::{
    alltoall, alltoall_channel_zero, alltoall_rounded_count, sendrecv, sendrecv_channel_zero,
    sendrecv_chunks, sendrecv_connections, sendrecv_rotated,
};
pub use hierarchical::{collnet_allreduce, hierarchical_allreduce};
pub use protocol::Protocol;
pub(crate) use ring::slice;
pub use ring::{
    chain_chunk_bytes, chain_chunks, chain_chunks_counted, chain_order, identity_order, ring_allreduce,
    ring_chain, ring_chain_channel, ring_chain_of, ring_channel_zero, ring_first_step,
    ring_gather_or_scatter, ring_order, ring_prefix, ring_prefix_channel_zero, ring_prefix_of,
    ring_prefix_rotated, ring_prefix_steps, ring_rounded_count, ring_shown_prefix, ring_steady_steps,
    CHAIN_CHUNK_BYTES, LEAST_ROUNDED_CHUNK, MAX_CHAIN_CHUNKS, NCCL_STEPS,
};
pub use schedule::{
    Algorithm, ChunkOp, Deps, Hop, Phase, Probe, Region, Schedule, SwitchRef, Transfer, ELEM_BYTES,
};
pub use tree::{tree_allreduce, tree_chunk_bytes, tree_chunks, TreeBuilder};
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
    schedule_with(collective, (Algorithm::Ring, Protocol::Simple), nodes, rings, count, n_channels, root)
}

/// The same with an algorithm (validation admits only the pairs that apply; any other runs
/// the collective's default, Ring or point-to-point): Tree, Hierarchical, NVLS, CollNet and
/// NVLSTree run AllReduce; PAT AllGather and ReduceScatter; halving-doubling and all-pairs
/// AllReduce, AllGather and ReduceScatter; Bruck AllToAll. `protocol` cuts the chunks of the
/// schedules whose chunking is NCCL's per protocol: Tree's (`tree::tree_chunks`); the others'
/// are the same for all three.
pub fn schedule_with<R: AsRef<[u32]>>(
    collective: Collective,
    (algorithm, protocol): (Algorithm, Protocol),
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
    root: u32,
) -> Schedule {
    use Collective::{AllGather, AllReduce, AllToAll, ReduceScatter};
    // NVLSTree, Hierarchical, CollNet and all-pairs: as the tuner builds them a piece at a time.
    if let Some(builder) = ScheduleBuilder::of(collective, algorithm, nodes, rings, count, n_channels) {
        return builder.build();
    }
    let g = rings[0].as_ref().len() as u32;
    let n = nodes * g;
    match (collective, algorithm) {
        (AllReduce, Algorithm::Tree) => tree_allreduce(nodes, rings, count, (n_channels, protocol)),
        (AllReduce, Algorithm::Nvls) => nvls::nvls_allreduce(n, count, n_channels),
        (AllGather | ReduceScatter, Algorithm::Pat) => {
            pat::pat(collective == AllGather, n, count, n_channels)
        }
        (AllReduce | AllGather | ReduceScatter, Algorithm::HalvingDoubling) => {
            textbook::halving_doubling(collective, n, count, n_channels)
        }
        (AllToAll, Algorithm::Bruck) => textbook::bruck(n, count, n_channels),
        (AllReduce, _) => ring_allreduce(nodes, rings, count, n_channels),
        (AllGather, _) => ring_gather_or_scatter(true, nodes, rings, count, n_channels),
        (ReduceScatter, _) => ring_gather_or_scatter(false, nodes, rings, count, n_channels),
        (Collective::Broadcast, _) => ring_chain(false, nodes, rings, count, (n_channels, protocol), root),
        (Collective::Reduce, _) => ring_chain(true, nodes, rings, count, (n_channels, protocol), root),
        (AllToAll, _) => alltoall(n, count, n_channels),
        (Collective::SendRecv, _) => sendrecv(n, count, n_channels),
    }
}

/// Transfers the default schedules make (Ring, or point to point; for AllReduce the larger of
/// Ring and Tree, which the tuner weighs), a Tree and a Broadcast's or Reduce's chain in
/// `protocol`'s chunks (`None`: the protocol's that cuts them finest), without making them, on
/// `nodes` nodes of `g` GPUs: the scenario's engine limit.
pub fn transfer_count(
    collective: Collective,
    (nodes, g): (u32, u32),
    count: u64,
    n_channels: u32,
    protocol: Option<Protocol>,
) -> u64 {
    let n = nodes as u64 * g as u64;
    let per_channel = count.div_ceil(n_channels as u64);
    let chain = |protocol| chain_chunks(protocol, per_channel) as u64;
    let k = chain_chunks_counted(protocol, per_channel) as u64;
    let (c, m) = (n_channels as u64, n.saturating_sub(1));
    match collective {
        // Ring: 2(n-1) steps of n; Tree: `tree_transfer_count`.
        Collective::AllReduce => {
            (2 * m * n * c).max(tree_transfer_count(nodes, g, count, n_channels, protocol))
        }
        Collective::AllGather | Collective::ReduceScatter | Collective::AllToAll => m * n * c,
        Collective::Broadcast | Collective::Reduce => k * m * c,
        Collective::SendRecv => chain(Protocol::Simple) * n * c,
    }
}

/// Transfers of NCCL's Tree AllReduce on `nodes` nodes of `g` GPUs: 2(n-1) hops per chunk and
/// channel, in `protocol`'s chunks (`tree::tree_chunks`); `None`: the most of the three's.
pub fn tree_transfer_count(
    nodes: u32,
    g: u32,
    count: u64,
    n_channels: u32,
    protocol: Option<Protocol>,
) -> u64 {
    let chunks = |p| tree::tree_chunks(p, nodes, g, count, n_channels);
    let chunks = match protocol {
        Some(protocol) => chunks(protocol),
        None => Protocol::ALL.into_iter().map(chunks).max().unwrap_or(1),
    };
    let n = nodes as u64 * g as u64;
    2 * n.saturating_sub(1) * chunks as u64 * n_channels as u64
}

/// Transfers `schedule_with` makes for `algorithm` (`None`: the defaults, `transfer_count`) on
/// `nodes` nodes of `g` GPUs.
pub fn transfer_count_with(
    collective: Collective,
    algorithm: Option<Algorithm>,
    nodes: u32,
    g: u32,
    count: u64,
    n_channels: u32,
) -> u64 {
    let n = nodes * g;
    match algorithm {
        Some(Algorithm::NvlsTree) => nvls_tree::transfer_count(nodes, g, count, n_channels),
        Some(Algorithm::Pat) => pat::transfer_count(n, n_channels),
        Some(a @ (Algorithm::HalvingDoubling | Algorithm::AllPairs | Algorithm::Bruck)) => {
            textbook::transfer_count(a, collective, n, n_channels)
        }
        Some(Algorithm::Nvls) => nvls::nvls_transfers(n, count, n_channels),
        _ => transfer_count(collective, (nodes, g), count, n_channels, None),
    }
}
