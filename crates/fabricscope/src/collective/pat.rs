//! PAT, NCCL's Parallel Aggregated Trees (NCCL 2.23+): AllGather and ReduceScatter in
//! ⌈log2 n⌉ network steps when each node has one GPU (NCCL enables it only then,
//! `src/graph/tuning.cc`, `ncclPatEnable`). NCCL describes it as a variant of Bruck's algorithm;
//! its communication pattern, which is what this model times, is the dissemination below, each
//! channel's slice cut into n blocks:
//!
//! ```text
//!   AllGather      step k = 0, 1, …: rank r receives from rank r + 2^k the blocks it holds,
//!                  r + 2^k … r + 2^k + m - 1 (m = min(2^k, n - 2^k)); after the step r holds
//!                  2^(k+1) blocks in a row, after ⌈log2 n⌉ steps all n
//!   ReduceScatter  the same in reverse, k = ⌈log2 n⌉-1 … 0: rank r adds its partial sums of
//!                  blocks r + 2^k … r + 2^k + m - 1 into rank r + 2^k's
//! ```
//!
//! Every rank sends `(n-1)/n` of the buffer, as in a ring, but a block's path has ⌈log2 n⌉ hops
//! instead of n-1, which is what makes PAT win at small sizes on many nodes. NCCL's own PAT
//! pipelines in bounded buffers (more, smaller network steps as sizes grow); this schedule
//! sends each step's blocks at once.

use super::ring::slice;
use super::schedule::{Algorithm, ChunkOp, Deps, Hop, Region, Schedule, Transfer};
use crate::scenario::Collective;

/// ⌈log2 n⌉.
fn log2_ceil(n: u32) -> u32 {
    u32::BITS - n.saturating_sub(1).leading_zeros()
}

/// PAT AllGather (`gather`) or ReduceScatter of `count` elements on `n` ranks.
pub fn pat(gather: bool, n: u32, count: u64, n_channels: u32) -> Schedule {
    let k_steps = log2_ceil(n);
    let mut transfers: Vec<Transfer> = Vec::new();
    let mut regions = Vec::new();
    for channel in 0..n_channels {
        let (start, len) = slice(count, n_channels, channel);
        let block = |j: u32| slice(len, n, j);
        for rank in 0..n {
            let (offset, len) = block(rank);
            regions.push(Region { start: start + offset, len, rank });
        }
        let mut into: Vec<Deps> = vec![Deps::new(); n as usize];
        let steps: Vec<u32> = if gather { (0..k_steps).collect() } else { (0..k_steps).rev().collect() };
        for (index, &k) in steps.iter().enumerate() {
            let distance = 1u32 << k;
            let m = distance.min(n - distance);
            let mut this = Vec::new();
            for r in 0..n {
                // AllGather: r + 2^k sends its first m blocks to r. ReduceScatter: r adds its
                // partial sums of blocks r + 2^k … into r + 2^k.
                let (src, dst) = if gather { ((r + distance) % n, r) } else { (r, (r + distance) % n) };
                let first = (r + distance) % n;
                // Blocks first … first + m - 1, mod n: one range, or two where they wrap.
                let wrap = (first + m).saturating_sub(n);
                let ranges = [(first, m - wrap), (0, wrap)];
                for (from, count_blocks) in ranges.into_iter().filter(|&(_, c)| c > 0) {
                    let begin = block(from).0;
                    let end = if from + count_blocks >= n { len } else { block(from + count_blocks).0 };
                    let deps = into[src as usize].clone();
                    this.push((
                        dst,
                        Transfer {
                            step: index as u32,
                            channel,
                            src,
                            dst,
                            chunk: from,
                            offset: start + begin,
                            src_offset: start + begin,
                            from_input: false,
                            len: end - begin,
                            op: if gather { ChunkOp::Copy } else { ChunkOp::Reduce },
                            deps,
                            after: None,
                            hop: Hop::Peer,
                        },
                    ));
                }
            }
            for (dst, t) in this {
                into[dst as usize].push(transfers.len() as u32);
                transfers.push(t);
            }
        }
    }
    let collective = if gather { Collective::AllGather } else { Collective::ReduceScatter };
    let schedule = Schedule::new(collective, Algorithm::Pat, n, n_channels, count, k_steps, transfers);
    Schedule { regions, ..schedule }
}

/// Transfers `pat` makes: per step and channel, one per rank, or two where its blocks wrap.
pub fn transfer_count(n: u32, n_channels: u32) -> u64 {
    let mut per_channel = 0u64;
    for k in 0..log2_ceil(n) {
        let distance = 1u32 << k;
        let m = distance.min(n - distance);
        per_channel += (0..n).map(|r| 1 + u64::from((r + distance) % n + m > n)).sum::<u64>();
    }
    per_channel * n_channels as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::verify;

    #[test]
    fn pat_is_exact_for_1_to_17_ranks() {
        for n in 1..=17 {
            for count in [1u64, 7, 100, 1001] {
                for channels in [1, 3] {
                    for gather in [true, false] {
                        let schedule = pat(gather, n, count, channels);
                        verify(&schedule)
                            .unwrap_or_else(|e| panic!("gather {gather} n={n} count={count}: {e}"));
                        assert_eq!(schedule.n_steps, log2_ceil(n));
                        assert_eq!(schedule.transfers.len() as u64, transfer_count(n, channels));
                    }
                }
            }
        }
    }

    #[test]
    fn each_rank_sends_n_minus_1_blocks_in_log_steps() {
        let schedule = pat(true, 16, 1600, 1);
        for r in 0..16 {
            let sent: u64 = schedule.transfers.iter().filter(|t| t.src == r).map(|t| t.len).sum();
            assert_eq!(sent, 1500, "rank {r}: (n-1)/n of the buffer, as a ring sends");
        }
        assert_eq!(schedule.n_steps, 4);
    }
}
