//! Point-to-point collectives: AllToAll (every rank to every other) and SendRecv (each rank to
//! the next), as NCCL runs them with grouped sends and receives, one connection per peer.

use super::protocol::Protocol;
use super::ring::{chain_chunks, slice, LEAST_ROUNDED_CHUNK};
use super::schedule::Hop;
use super::schedule::{Algorithm, ChunkOp, Deps, Schedule, Transfer};
use crate::scenario::Collective;

/// AllToAll of `count` elements per rank: block j (of `count / n`) of rank r goes to block r of
/// rank j. Step s (1 ..= n-1) is rank r sending to rank (r + s) mod n; every send is posted at
/// once, as `ncclGroupStart/End` does, and each channel moves its slice of every block.
pub fn alltoall(n: u32, count: u64, n_channels: u32) -> Schedule {
    alltoall_channels(n, count, n_channels, n_channels)
}

/// `alltoall`'s channel 0 alone, its transfers in the order the whole has them (step by step,
/// rank by rank): what runs for every channel where they are copies of one another
/// (`engine::symmetry::Symmetry::copies`), so that the whole's n(n-1) transfers per channel are
/// never built. The schedule still says `n_channels`, the whole's.
pub fn alltoall_channel_zero(n: u32, count: u64, n_channels: u32) -> Schedule {
    alltoall_channels(n, count, n_channels, 1)
}

/// Where an AllToAll's blocks (`count / n` elements) do not split evenly over `n_channels`, so
/// that its channels' slices differ by an element and no channel stands for the others, the
/// count whose blocks do, rounded down: each block loses fewer than `n_channels` elements.
/// `None` where they split already, or where a channel's slice would keep fewer than
/// `LEAST_ROUNDED_CHUNK` elements. Its time is within `simulation::ROUNDING_BOUND` of the asked
/// AllToAll's where both run (`tests/rounded.rs`).
pub fn alltoall_rounded_count(n: u32, count: u64, n_channels: u32) -> Option<u64> {
    let channels = n_channels.max(1) as u64;
    let block = count / n.max(1) as u64;
    let slice = block / channels;
    (block % channels != 0 && slice >= LEAST_ROUNDED_CHUNK).then_some(slice * channels * n as u64)
}

/// `alltoall` over `n_channels`, of which the first `built` are built.
fn alltoall_channels(n: u32, count: u64, n_channels: u32, built: u32) -> Schedule {
    let block = count / n as u64;
    let mut transfers = Vec::with_capacity(((n - 1) * n * built) as usize);
    for s in 1..n {
        for channel in 0..built {
            let (start, len) = slice(block, n_channels, channel);
            for src in 0..n {
                let dst = (src + s) % n;
                transfers.push(Transfer {
                    step: s - 1,
                    channel,
                    src,
                    dst,
                    chunk: dst,
                    offset: src as u64 * block + start,
                    src_offset: dst as u64 * block + start,
                    from_input: true,
                    len,
                    op: ChunkOp::Copy,
                    deps: Deps::new(),
                    after: None,
                    hop: Hop::Peer,
                });
            }
        }
    }
    Schedule::new(Collective::AllToAll, Algorithm::Direct, n, n_channels, count, n - 1, transfers)
}

/// SendRecv: rank r sends its whole buffer to rank (r + 1) mod n, pipelined in `chain_chunks`
/// chunks per channel over one connection, Simple's 512 KiB (NCCL's P2P chunks are its own,
/// `NCCL_P2P_NET_CHUNKSIZE` 128 KiB across nodes; a single hop's time hardly depends on them).
pub fn sendrecv(n: u32, count: u64, n_channels: u32) -> Schedule {
    sendrecv_channels(n, count, n_channels, (n_channels, n))
}

/// SendRecv's channel 0 alone, numbered as in the whole (whose channels come one after
/// another): where the channels are copies of one another, it runs for all
/// (`engine::copies`).
pub fn sendrecv_channel_zero(n: u32, count: u64, n_channels: u32) -> Schedule {
    sendrecv_channels(n, count, n_channels, (1, n))
}

/// SendRecv's channel 0 from its first `sources` ranks alone, every chunk, each to its real
/// destination, numbered chunk by chunk (`chunk × sources + src`): where turning the ranks by
/// whole nodes keeps the routes, they stand for every source (`engine::rotation`).
pub fn sendrecv_rotated(n: u32, count: u64, n_channels: u32, sources: u32) -> Schedule {
    sendrecv_channels(n, count, n_channels, (1, sources.min(n)))
}

/// SendRecv's channel 0 as one transfer per connection carrying the channel's whole slice: every
/// chunk of a connection routes alike, so the copies proof (`engine::copies`) and the tuner's
/// bound (its bytes summed in integers) are the whole channel's, from n transfers.
pub fn sendrecv_connections(n: u32, count: u64, n_channels: u32) -> Schedule {
    sendrecv_built(n, count, n_channels, (1, n), 1)
}

/// Chunks of each channel of a SendRecv of `count` elements over `n_channels`: Simple's.
pub fn sendrecv_chunks(count: u64, n_channels: u32) -> u32 {
    chain_chunks(Protocol::Simple, count.div_ceil(n_channels.max(1) as u64))
}

/// `sendrecv` over `n_channels`, of which the first `built` are built, from the first `sources`
/// ranks.
fn sendrecv_channels(n: u32, count: u64, n_channels: u32, built: (u32, u32)) -> Schedule {
    sendrecv_built(n, count, n_channels, built, sendrecv_chunks(count, n_channels))
}

/// `sendrecv_channels` with each channel cut into `chunks`.
fn sendrecv_built(
    n: u32,
    count: u64,
    n_channels: u32,
    (built, sources): (u32, u32),
    chunks: u32,
) -> Schedule {
    let mut transfers = Vec::new();
    if n > 1 {
        for channel in 0..built {
            let (start, len) = slice(count, n_channels, channel);
            for chunk in 0..chunks {
                let (chunk_start, chunk_len) = slice(len, chunks, chunk);
                for src in 0..sources {
                    let index = transfers.len() as u32;
                    transfers.push(Transfer {
                        step: chunk,
                        channel,
                        src,
                        dst: (src + 1) % n,
                        chunk,
                        offset: start + chunk_start,
                        src_offset: start + chunk_start,
                        from_input: true,
                        len: chunk_len,
                        op: ChunkOp::Copy,
                        deps: Deps::new(),
                        after: (chunk > 0).then(|| index - sources),
                        hop: Hop::Peer,
                    });
                }
            }
        }
    }
    let n_steps = if n > 1 { chunks } else { 0 };
    Schedule::new(Collective::SendRecv, Algorithm::Direct, n, n_channels, count, n_steps, transfers)
}
