//! NVLS: AllReduce reduced inside the NVSwitch (NVLink SHARP, NVSwitch gen3 and later; NCCL's
//! `NCCL_ALGO=NVLS`, one node).
//!
//! Rank i owns part i of the buffer (split over channels and into chunks of at most
//! `CHUNK_BYTES`, pipelined). For every chunk of part i:
//!
//! ```text
//!   reduce     every rank j sends its copy of the chunk up to the switch, which adds them
//!              (multimem.ld_reduce); the sum comes down to rank i
//!   multicast  rank i sends the sum up once (multimem.st); the switch copies it down to
//!              every other rank
//! ```
//!
//! Per rank, the link up to the switch carries the whole buffer once plus its own part once
//! more, `S (1 + 1/n)`, and the link down carries `S`, where a ring moves `2 S (n-1)/n` each
//! way. That is why NVLS's busbw (which nccl-tests computes as if it were a ring) exceeds the
//! link's bandwidth: nccl-tests#312.

use super::schedule::{Algorithm, ChunkOp, Deps, Hop, Region, Schedule, SwitchRef, Transfer};
use crate::scenario::Collective;

/// Pipelining chunk of NVLS [B] (NCCL's NVLS chunk size is 128 KiB per channel step).
pub const CHUNK_BYTES: u64 = 128 << 10;
/// At most this many chunks per part and channel: a bigger buffer gets bigger chunks.
const MAX_CHUNKS: u64 = 64;

/// NVLS AllReduce of `count` elements over `n` ranks of one node and `n_channels` channels.
pub fn nvls_allreduce(n: u32, count: u64, n_channels: u32) -> Schedule {
    let switch = SwitchRef::NvSwitch { node: 0 };
    let mut transfers: Vec<Transfer> = Vec::new();
    // The last transfer each rank sent up and received down, per channel and per phase: the
    // reduce and the multicast run as separate connections (NCCL gives them separate warps),
    // so a rank's multicast, which waits for its chunk's sum, does not hold up its sends for
    // the other ranks' chunks.
    let slots = (n * n_channels) as usize;
    let (mut reduce_up, mut reduce_down) = (vec![None; slots], vec![None; slots]);
    let (mut store_up, mut store_down) = (vec![None; slots], vec![None; slots]);
    let mut n_steps = 0;
    let push = |transfers: &mut Vec<Transfer>, t: Transfer, fifo: &mut Option<u32>| -> u32 {
        let id = transfers.len() as u32;
        transfers.push(Transfer { after: *fifo, ..t });
        *fifo = Some(id);
        id
    };
    // Every (owner, channel) range and its chunks, then the chunks in order chunk-major, so
    // every rank's FIFO up to the switch interleaves the owners as NCCL's channels do.
    let mut regions = Vec::new();
    let mut ranges: Vec<(u32, u32, u64, u64, u64)> = Vec::new(); // owner, channel, start, len, chunk
    for owner in 0..n {
        let (part_start, part_end) = (count * owner as u64 / n as u64, count * (owner as u64 + 1) / n as u64);
        regions.push(Region { start: part_start, len: part_end - part_start, rank: owner });
        for channel in 0..n_channels {
            let c = channel as u64;
            let part = part_end - part_start;
            let (start, end) =
                (part_start + part * c / n_channels as u64, part_start + part * (c + 1) / n_channels as u64);
            let len = end - start;
            let chunk_elems = (CHUNK_BYTES / super::ELEM_BYTES).max(len.div_ceil(MAX_CHUNKS)).max(1);
            ranges.push((owner, channel, start, len, chunk_elems));
        }
    }
    let max_chunks = ranges.iter().map(|r| r.3.div_ceil(r.4).max(1)).max().unwrap_or(1);
    n_steps = n_steps.max(2 * max_chunks as u32);
    for k in 0..max_chunks {
        for &(owner, channel, start, len, chunk_elems) in &ranges {
            let chunks = len.div_ceil(chunk_elems).max(1);
            if k >= chunks {
                continue;
            }
            let offset = start + (k * chunk_elems).min(len);
            let chunk_len = chunk_elems.min(len - (offset - start));
            let base = Transfer {
                step: 2 * k as u32,
                channel,
                src: owner,
                dst: owner,
                chunk: k as u32,
                offset,
                src_offset: offset,
                from_input: false,
                len: chunk_len,
                op: ChunkOp::Reduce,
                deps: Deps::new(),
                after: None,
                hop: Hop::ToSwitch(switch),
            };
            let slot = |rank: u32| (rank * n_channels + channel) as usize;
            // Reduce: every rank's copy up, added in the switch; the sum down to the owner.
            let ups: Deps = (0..n)
                .map(|j| push(&mut transfers, Transfer { src: j, ..base.clone() }, &mut reduce_up[slot(j)]))
                .collect();
            let down = push(
                &mut transfers,
                Transfer { op: ChunkOp::Copy, deps: ups, hop: Hop::FromSwitch(switch), ..base.clone() },
                &mut reduce_down[slot(owner)],
            );
            // Multicast: the owner's sum up once, copied down to every other rank.
            let store = push(
                &mut transfers,
                Transfer {
                    step: 2 * k as u32 + 1,
                    op: ChunkOp::Copy,
                    deps: Deps::from_slice(&[down]),
                    ..base.clone()
                },
                &mut store_up[slot(owner)],
            );
            for j in (0..n).filter(|&j| j != owner) {
                push(
                    &mut transfers,
                    Transfer {
                        step: 2 * k as u32 + 1,
                        dst: j,
                        op: ChunkOp::Copy,
                        deps: Deps::from_slice(&[store]),
                        hop: Hop::FromSwitch(switch),
                        ..base.clone()
                    },
                    &mut store_down[slot(j)],
                );
            }
        }
    }
    let mut schedule = Schedule::new(
        Collective::AllReduce,
        Algorithm::Nvls,
        n,
        n_channels,
        count,
        n_steps.max(1),
        transfers,
    );
    schedule.regions = regions;
    schedule
}

/// Transfers `nvls_allreduce` makes (for the engine's cap).
pub fn nvls_transfers(n: u32, count: u64, n_channels: u32) -> u64 {
    let per_part = count.div_ceil(n as u64).div_ceil(n_channels as u64);
    let chunk_elems = (CHUNK_BYTES / super::ELEM_BYTES).max(per_part.div_ceil(MAX_CHUNKS)).max(1);
    let chunks = per_part.div_ceil(chunk_elems).max(1);
    n as u64 * n_channels as u64 * chunks * (2 * n as u64 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::verify;

    #[test]
    fn nvls_is_exact() {
        for n in 2..=8 {
            for count in [1, 7, 100, 1001, 70_000] {
                for channels in [1, 4] {
                    let schedule = nvls_allreduce(n, count, channels);
                    verify(&schedule)
                        .unwrap_or_else(|e| panic!("n={n} count={count} channels={channels}: {e}"));
                    assert!(schedule.transfers.len() as u64 <= nvls_transfers(n, count, channels));
                }
            }
        }
    }

    #[test]
    fn each_rank_sends_its_buffer_up_once_plus_its_part() {
        let (n, count) = (8u32, 8_000u64);
        let schedule = nvls_allreduce(n, count, 2);
        for rank in 0..n {
            let up: u64 = schedule
                .transfers
                .iter()
                .filter(|t| t.src == rank && matches!(t.hop, Hop::ToSwitch(_)))
                .map(|t| t.len)
                .sum();
            let down: u64 = schedule
                .transfers
                .iter()
                .filter(|t| t.dst == rank && matches!(t.hop, Hop::FromSwitch(_)))
                .map(|t| t.len)
                .sum();
            assert_eq!(up, count + count / n as u64, "rank {rank}");
            assert_eq!(down, count, "rank {rank}");
        }
    }
}
