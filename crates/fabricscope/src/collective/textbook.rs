//! The classic algorithms a textbook or an interview asks about, which NCCL does not run:
//! shown beside NCCL's for comparison, never picked by the tuner.
//!
//! ```text
//!   halving-doubling (Rabenseifner), n = 2^K ranks, each channel's slice cut into n blocks:
//!     reduce-scatter  step k: rank r sends the half of its range without block r to r ^ (n >> (k+1)),
//!                     which adds it; the range halves, until rank r holds the sum of block r
//!     all-gather      step k: rank r sends the 2^k blocks it holds to r ^ 2^k; the range doubles
//!   all-pairs         every rank sends block j to rank j at once (reduce-scatter), then its
//!                     summed block to every rank at once (all-gather)
//!   Bruck AllToAll    step k: rank r sends every block whose remaining distance has bit k set
//!                     to rank r + 2^k; a block travels its distance's bits, ⌈log2 n⌉ steps
//! ```
//!
//! Halving-doubling moves as many bytes per rank as a ring, `2(n-1)/n · S`, in `2 log2 n` steps
//! instead of `2(n-1)`, but its first reduce-scatter step and last all-gather step send half the
//! buffer to the rank n/2 away: across the network on a multi-node cluster, where a ring sends
//! only its one crossing per node. All-pairs has a single step each way but n-1 connections per
//! rank at once. Bruck trades bytes for steps: each block is relayed up to ⌈log2 n⌉ times.

use super::ring::slice;
use super::schedule::{Algorithm, ChunkOp, Deps, Hop, Region, Schedule, Transfer};
use crate::scenario::Collective;
use std::collections::BTreeMap;

/// Which half of a halving-doubling AllReduce, or both.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Halves {
    ReduceScatter,
    AllGather,
    Both,
}

/// The element range of blocks `[from, to)` of one channel's slice `(start, len)` cut into `n`.
fn blocks(start: u64, len: u64, n: u32, from: u32, to: u32) -> (u64, u64) {
    let first = slice(len, n, from).0;
    let end = if to >= n { len } else { slice(len, n, to).0 };
    (start + first, end - first)
}

fn transfer(
    step: u32,
    channel: u32,
    src: u32,
    dst: u32,
    chunk: u32,
    range: (u64, u64),
    op: ChunkOp,
) -> Transfer {
    Transfer {
        step,
        channel,
        src,
        dst,
        chunk,
        offset: range.0,
        src_offset: range.0,
        from_input: false,
        len: range.1,
        op,
        deps: Deps::new(),
        after: None,
        hop: Hop::Peer,
    }
}

/// A step's transfers appended in order, each noted as out of its sender and into its receiver
/// (the step's own transfers depend only on earlier steps').
fn record(
    transfers: &mut Vec<Transfer>,
    into: &mut [Deps],
    out: &mut [Vec<u32>],
    step: Vec<(u32, u32, Transfer)>,
) {
    for (src, dst, t) in step {
        let id = transfers.len() as u32;
        transfers.push(t);
        out[src as usize].push(id);
        into[dst as usize].push(id);
    }
}

/// Every rank's own block in each channel's slice (what AllGather starts from and
/// ReduceScatter ends with).
fn own_regions(n: u32, count: u64, n_channels: u32) -> Vec<Region> {
    let mut regions = Vec::new();
    for channel in 0..n_channels {
        let (start, len) = slice(count, n_channels, channel);
        for rank in 0..n {
            let (offset, len) = blocks(start, len, n, rank, rank + 1);
            regions.push(Region { start: offset, len, rank });
        }
    }
    regions
}

/// Recursive halving and doubling of `count` elements on `n` ranks, `n` a power of two
/// (validation says so by name otherwise).
pub fn halving_doubling(collective: Collective, n: u32, count: u64, n_channels: u32) -> Schedule {
    let halves = match collective {
        Collective::ReduceScatter => Halves::ReduceScatter,
        Collective::AllGather => Halves::AllGather,
        _ => Halves::Both,
    };
    let k_steps = n.max(1).trailing_zeros();
    let mut transfers: Vec<Transfer> = Vec::new();
    let rs_steps = if halves == Halves::AllGather { 0 } else { k_steps };
    for channel in 0..n_channels {
        let (start, len) = slice(count, n_channels, channel);
        // Transfers into and out of each rank so far, which later ones wait for.
        let mut into: Vec<Deps> = vec![Deps::new(); n as usize];
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); n as usize];
        if halves != Halves::AllGather {
            for k in 0..k_steps {
                let width = n >> k; // blocks in a rank's range before this step
                let mut this = Vec::new();
                for r in 0..n {
                    let d = n >> (k + 1);
                    let partner = r ^ d;
                    let low = r & !(width - 1);
                    // Send the half that does not hold block r: the partner's half.
                    let half_start = low + (partner & d);
                    let range = blocks(start, len, n, half_start, half_start + d);
                    let mut t = transfer(k, channel, r, partner, partner, range, ChunkOp::Reduce);
                    t.deps = into[r as usize].clone();
                    this.push((r, partner, t));
                }
                record(&mut transfers, &mut into, &mut out, this);
            }
        }
        if halves != Halves::ReduceScatter {
            for k in 0..k_steps {
                let held = 1u32 << k;
                let mut this = Vec::new();
                for r in 0..n {
                    let partner = r ^ held;
                    let low = r & !(held - 1);
                    let range = blocks(start, len, n, low, low + held);
                    let mut t = transfer(rs_steps + k, channel, r, partner, r, range, ChunkOp::Copy);
                    // What r sends is complete once everything into r has landed; what it
                    // overwrites at the partner has been read once the partner's sends are done.
                    let mut deps = into[r as usize].clone();
                    deps.extend(out[partner as usize].iter().copied());
                    deps.sort_unstable();
                    deps.dedup();
                    t.deps = deps;
                    this.push((r, partner, t));
                }
                record(&mut transfers, &mut into, &mut out, this);
            }
        }
    }
    let steps = match halves {
        Halves::Both => 2 * k_steps,
        _ => k_steps,
    };
    let schedule =
        Schedule::new(collective, Algorithm::HalvingDoubling, n, n_channels, count, steps, transfers);
    Schedule { regions: own_regions(n, count, n_channels), ..schedule }
}

/// All-pairs: every block to its owner at once (ReduceScatter), every owner's block to every
/// rank at once (AllGather), or both in turn (AllReduce).
pub fn all_pairs(collective: Collective, n: u32, count: u64, n_channels: u32) -> Schedule {
    let mut builder = AllPairsBuilder::new(collective, n, count, n_channels);
    while !builder.channel() {}
    builder.finish()
}

/// `all_pairs` a channel at a time (`channel`), for a caller that must stay responsive: an
/// AllReduce's gather sends each depend on every send into their block (64 ranks at 8 channels:
/// 64,512 transfers and 2 M dependencies, 15-30 ms natively in one go).
pub struct AllPairsBuilder {
    collective: Collective,
    n: u32,
    count: u64,
    n_channels: u32,
    next: u32,
    transfers: Vec<Transfer>,
}

impl AllPairsBuilder {
    pub fn new(collective: Collective, n: u32, count: u64, n_channels: u32) -> AllPairsBuilder {
        AllPairsBuilder { collective, n, count, n_channels, next: 0, transfers: Vec::new() }
    }

    /// Builds the next channel's transfers; true once every channel is built.
    pub fn channel(&mut self) -> bool {
        if self.next >= self.n_channels {
            return true;
        }
        let (n, channel, transfers) = (self.n, self.next, &mut self.transfers);
        let (scatter, gather) = scatter_gather(self.collective);
        let (start, len) = slice(self.count, self.n_channels, channel);
        let mut into: Vec<Deps> = vec![Deps::new(); n as usize];
        // (from, to) → the reduce-scatter send of block `to` from rank `from`.
        let mut scattered = BTreeMap::new();
        if scatter {
            for r in 0..n {
                for j in (0..n).filter(|&j| j != r) {
                    let range = blocks(start, len, n, j, j + 1);
                    into[j as usize].push(transfers.len() as u32);
                    scattered.insert((r, j), transfers.len() as u32);
                    transfers.push(transfer(0, channel, r, j, j, range, ChunkOp::Reduce));
                }
            }
        }
        if gather {
            for r in 0..n {
                for j in (0..n).filter(|&j| j != r) {
                    let range = blocks(start, len, n, r, r + 1);
                    let mut t = transfer(u32::from(scatter), channel, r, j, r, range, ChunkOp::Copy);
                    // Block r is complete at r once every rank's part has landed, and j's own
                    // copy of it, which this overwrites, has been sent to r.
                    t.deps = into[r as usize].clone();
                    t.deps.extend(scattered.get(&(j, r)).copied());
                    t.deps.sort_unstable();
                    transfers.push(t);
                }
            }
        }
        self.next += 1;
        self.next >= self.n_channels
    }

    /// The schedule, once `channel` said every channel is built.
    pub fn finish(self) -> Schedule {
        let (scatter, gather) = scatter_gather(self.collective);
        let steps = u32::from(scatter) + u32::from(gather);
        let (collective, n, count, n_channels) = (self.collective, self.n, self.count, self.n_channels);
        let schedule =
            Schedule::new(collective, Algorithm::AllPairs, n, n_channels, count, steps, self.transfers);
        Schedule { regions: own_regions(n, count, n_channels), ..schedule }
    }
}

/// Whether all-pairs scatters (reduces into each block's owner) and gathers (sends each owner's
/// block to every rank).
fn scatter_gather(collective: Collective) -> (bool, bool) {
    match collective {
        Collective::ReduceScatter => (true, false),
        Collective::AllGather => (false, true),
        _ => (true, true),
    }
}

/// Bruck's AllToAll of `count` elements per rank (blocks of `count / n`). Position p of rank r
/// holds the block going p ranks further on. At step k every rank sends the blocks whose
/// position has bit k set to rank r + 2^k, which keeps them at the same position; a block that
/// has no higher bit left has arrived and lands in its place in the output. Blocks in transit
/// wait in a scratch buffer of two slots per position (a block's hops alternate between them,
/// so a rank never overwrites a block before it has sent it on).
pub fn bruck(n: u32, count: u64, n_channels: u32) -> Schedule {
    let block = count / n as u64;
    let k_steps = u32::BITS - n.saturating_sub(1).leading_zeros(); // ⌈log2 n⌉
    let scratch_at = |slot: u32, position: u32| count + (slot as u64 * n as u64 + position as u64) * block;
    let mut transfers: Vec<Transfer> = Vec::new();
    for channel in 0..n_channels {
        let (start, len) = slice(block, n_channels, channel);
        // (rank, position, step) → the transfer that sent it on.
        let mut sent: BTreeMap<(u32, u32, u32), u32> = BTreeMap::new();
        for k in 0..k_steps {
            let hop = 1u32 << k;
            for r in 0..n {
                for p in (1..n).filter(|p| p & hop != 0) {
                    let below = p & (hop - 1);
                    let hops = below.count_ones();
                    let to = (r + hop) % n;
                    // Where the block is now: the input if it has not moved, else a scratch slot.
                    let (src_offset, from_input) = if hops == 0 {
                        (((r + p) % n) as u64 * block + start, true)
                    } else {
                        (scratch_at(hops % 2, p) + start, false)
                    };
                    // Where it goes: its place in the output if this is its last hop.
                    let offset = if p < 2 * hop {
                        let source = (to + n - p) % n;
                        source as u64 * block + start
                    } else {
                        scratch_at((hops + 1) % 2, p) + start
                    };
                    let mut deps = Deps::new();
                    if hops > 0 {
                        // Its previous hop, into r; and the receiver's own send of the block it
                        // held in the slot this one lands in.
                        let previous = u32::BITS - 1 - below.leading_zeros();
                        deps.push(sent[&((r + n - (1 << previous)) % n, p, previous)]);
                        if let Some(&freed) = sent.get(&(to, p, previous)) {
                            deps.push(freed);
                        }
                        deps.sort_unstable();
                        deps.dedup();
                    }
                    sent.insert((r, p, k), transfers.len() as u32);
                    transfers.push(Transfer {
                        step: k,
                        channel,
                        src: r,
                        dst: to,
                        chunk: p,
                        offset,
                        src_offset,
                        from_input,
                        len,
                        op: ChunkOp::Copy,
                        deps,
                        after: None,
                        hop: Hop::Peer,
                    });
                }
            }
        }
    }
    let schedule =
        Schedule::new(Collective::AllToAll, Algorithm::Bruck, n, n_channels, count, k_steps, transfers);
    Schedule { scratch: 2 * n as u64 * block, ..schedule }
}

/// Transfers the textbook algorithms make (the engine's limit).
pub fn transfer_count(algorithm: Algorithm, collective: Collective, n: u32, n_channels: u32) -> u64 {
    let (n, c) = (n as u64, n_channels as u64);
    let log = (u64::BITS - n.saturating_sub(1).leading_zeros()) as u64;
    let halves = if collective == Collective::AllReduce { 2 } else { 1 };
    match algorithm {
        Algorithm::HalvingDoubling => halves * n * log * c,
        Algorithm::AllPairs => halves * n * n.saturating_sub(1) * c,
        // Each rank sends, at step k, the positions below n with bit k set.
        _ => n * (0..log).map(|k| (1..n).filter(|p| p & (1 << k) != 0).count() as u64).sum::<u64>() * c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::verify;

    #[test]
    fn halving_doubling_is_exact_on_powers_of_two() {
        for n in [1, 2, 4, 8, 16] {
            for count in [1u64, 7, 64, 1001] {
                for channels in [1, 3] {
                    for collective in
                        [Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather]
                    {
                        let schedule = halving_doubling(collective, n, count, channels);
                        verify(&schedule)
                            .unwrap_or_else(|e| panic!("{collective:?} n={n} count={count}: {e}"));
                        let steps =
                            n.trailing_zeros() * if collective == Collective::AllReduce { 2 } else { 1 };
                        assert_eq!(schedule.n_steps, steps);
                        assert_eq!(
                            schedule.transfers.len() as u64,
                            transfer_count(Algorithm::HalvingDoubling, collective, n, channels)
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn all_pairs_is_exact() {
        for n in 1..=9 {
            for count in [1u64, 7, 100] {
                for collective in [Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather] {
                    let schedule = all_pairs(collective, n, count, 2);
                    verify(&schedule).unwrap_or_else(|e| panic!("{collective:?} n={n} count={count}: {e}"));
                    assert_eq!(
                        schedule.transfers.len() as u64,
                        transfer_count(Algorithm::AllPairs, collective, n, 2)
                    );
                }
            }
        }
    }

    #[test]
    fn bruck_is_exact_for_1_to_17_ranks() {
        for n in 1..=17 {
            for per_block in [1u64, 3, 10] {
                for channels in [1, 2] {
                    let schedule = bruck(n, n as u64 * per_block, channels);
                    verify(&schedule).unwrap_or_else(|e| panic!("n={n} block={per_block}: {e}"));
                    assert_eq!(
                        schedule.transfers.len() as u64,
                        transfer_count(Algorithm::Bruck, Collective::AllToAll, n, channels)
                    );
                    // ⌈log2 n⌉ steps, each block relayed at most that many times.
                    assert_eq!(schedule.n_steps, u32::BITS - (n - 1).leading_zeros());
                }
            }
        }
    }

    #[test]
    fn halving_doubling_sends_half_the_buffer_n_over_2_ranks_away_first() {
        let schedule = halving_doubling(Collective::AllReduce, 16, 1600, 1);
        let first: Vec<&Transfer> = schedule.transfers.iter().filter(|t| t.step == 0).collect();
        assert!(first.iter().all(|t| t.dst == t.src ^ 8 && t.len == 800));
    }
}
