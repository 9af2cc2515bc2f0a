//! Who holds what, step by step: one channel's part of a schedule executed on sets of
//! contributions instead of numbers, for the page's chunk grid.
//!
//! Each rank's buffer, in the channel, is cut into the data ranges its transfers move (the
//! schedule's chunks). A cell is the set of ranks whose input has been added into that chunk
//! on that rank (a bitset): a reduce transfer unites the sender's set with the receiver's, a
//! copy replaces it. NVLS and SHARP switches keep their own copy, a row of their own. The sets
//! are taken after every step, so the page shows, at any time, what each GPU holds: nothing,
//! a partial sum of k contributions, or the complete result.

use super::schedule::{ChunkOp, Hop, Schedule, SwitchRef};
use crate::scenario::Collective;
use std::collections::BTreeMap;

/// Most ranks a grid is built for (a bitset of 128).
pub const MAX_HOLDING_RANKS: u32 = 128;
/// Most chunks a grid is built for, per channel.
pub const MAX_HOLDING_CHUNKS: usize = 256;

/// What one rank (or switch) holds of one chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// Nothing of this chunk yet (a copy collective's rank before it arrives).
    Empty,
    /// A partial sum of this many ranks' contributions.
    Partial(u32),
    /// The result the collective delivers for this chunk.
    Complete,
}

/// One channel's chunks on every rank, after every step.
#[derive(Clone, Debug, PartialEq)]
pub struct Holdings {
    pub channel: u32,
    pub n_ranks: u32,
    /// The chunks' element ranges (start, length), in buffer order: the grid's columns.
    pub chunks: Vec<(u64, u64)>,
    /// Switches that hold a copy (NVLS, SHARP): rows after the ranks'.
    pub switches: Vec<SwitchRef>,
    /// Whether the collective adds contributions (AllReduce, ReduceScatter, Reduce) rather than
    /// copying one (AllGather, Broadcast).
    pub reduces: bool,
    /// `sets[s][row * chunks + column]`: who contributed, after `s` steps (`sets[0]`: the
    /// inputs; `sets[n_steps]`: the end).
    sets: Vec<Vec<u128>>,
    /// The set each chunk must end with on a rank that receives it: every rank's (reduce) or
    /// its owner's (copy).
    complete: Vec<u128>,
    /// Per step: the (sender row, receiver row, column) of each of the channel's transfers.
    pub moves: Vec<Vec<(u32, u32, u32)>>,
}

impl Holdings {
    /// Rows: the ranks, then the switches.
    pub fn rows(&self) -> u32 {
        self.n_ranks + self.switches.len() as u32
    }

    pub fn n_steps(&self) -> usize {
        self.moves.len()
    }

    /// Who has contributed to `column` on `row` after `done` steps.
    pub fn set(&self, done: usize, row: u32, column: usize) -> u128 {
        self.sets[done.min(self.sets.len() - 1)][row as usize * self.chunks.len() + column]
    }

    /// What `row` holds of `column` after `done` steps.
    pub fn cell(&self, done: usize, row: u32, column: usize) -> Cell {
        let set = self.set(done, row, column);
        if set == 0 {
            Cell::Empty
        } else if set == self.complete[column] {
            Cell::Complete
        } else {
            Cell::Partial(set.count_ones())
        }
    }
}

/// `schedule`'s channel `channel` executed on contribution sets; `None` where a grid would not
/// be one: AllToAll and SendRecv (blocks move, nothing adds up), more than
/// `MAX_HOLDING_RANKS` ranks or `MAX_HOLDING_CHUNKS` columns, a transfer that moves data to
/// another place in the buffer, or a dependency on a later step.
pub fn holdings(schedule: &Schedule, channel: u32) -> Option<Holdings> {
    let reduces = match schedule.collective {
        Collective::AllReduce | Collective::ReduceScatter | Collective::Reduce => true,
        Collective::AllGather | Collective::Broadcast => false,
        Collective::AllToAll | Collective::SendRecv => return None,
    };
    let n = schedule.n_ranks;
    if n == 0 || n > MAX_HOLDING_RANKS {
        return None;
    }
    let mine: Vec<usize> = (0..schedule.transfers.len())
        .filter(|&i| schedule.transfers[i].channel == channel && schedule.transfers[i].len > 0)
        .collect();
    // The columns: the channel's data cut at every transfer's ends, so a schedule that cuts
    // its data again between phases (Hierarchical) moves whole columns too.
    let mut cuts: Vec<u64> = Vec::new();
    for &i in &mine {
        let t = &schedule.transfers[i];
        if t.offset != t.src_offset || t.from_input {
            return None;
        }
        cuts.extend([t.offset, t.offset + t.len]);
    }
    crate::sort::sort(&mut cuts);
    cuts.dedup();
    if cuts.len() > 2 * MAX_HOLDING_CHUNKS + 1 {
        return None;
    }
    let covered = |start: u64| {
        mine.iter().any(|&i| {
            let t = &schedule.transfers[i];
            t.offset <= start && start < t.offset + t.len
        })
    };
    let ranges: Vec<(u64, u64)> =
        cuts.windows(2).filter(|w| covered(w[0])).map(|w| (w[0], w[1] - w[0])).collect();
    if ranges.is_empty() || ranges.len() > MAX_HOLDING_CHUNKS {
        return None;
    }
    let column: BTreeMap<u64, usize> = ranges.iter().enumerate().map(|(c, &(start, _))| (start, c)).collect();
    // The columns a transfer covers.
    let span = |offset: u64, len: u64| column.range(offset..offset + len).map(|(_, &c)| c);
    let mut switches: Vec<SwitchRef> = Vec::new();
    for &i in &mine {
        if let Hop::ToSwitch(s) | Hop::FromSwitch(s) = schedule.transfers[i].hop {
            if !switches.contains(&s) {
                switches.push(s);
            }
        }
    }
    crate::sort::sort(&mut switches);
    let columns = ranges.len();
    let rows = n as usize + switches.len();
    let owner = |start: u64| {
        schedule.regions.iter().find(|r| r.start <= start && start < r.start + r.len).map(|r| r.rank)
    };
    // The inputs, and what a complete chunk is.
    let all: u128 = if n == 128 { u128::MAX } else { (1u128 << n) - 1 };
    let mut state = vec![0u128; rows * columns];
    let mut complete = vec![all; columns];
    for (c, &(start, _)) in ranges.iter().enumerate() {
        match schedule.collective {
            Collective::AllGather => {
                let who = owner(start)?;
                complete[c] = 1u128 << who;
                state[who as usize * columns + c] = 1u128 << who;
            }
            Collective::Broadcast => {
                complete[c] = 1u128 << schedule.root;
                state[schedule.root as usize * columns + c] = 1u128 << schedule.root;
            }
            _ => (0..n as usize).for_each(|r| state[r * columns + c] = 1u128 << r),
        }
    }
    // Steps in order; within a step, the schedule's own (dependency) order.
    let mut order = mine.clone();
    crate::sort::by_key(&mut order, |&i| (schedule.transfers[i].step, i));
    for &i in &order {
        let t = &schedule.transfers[i];
        if t.deps.iter().chain(t.after.iter()).any(|&d| schedule.transfers[d as usize].step > t.step) {
            return None;
        }
    }
    let switch_row = |s: SwitchRef| n as usize + switches.iter().position(|&x| x == s).unwrap_or(0);
    let mut sets = vec![state.clone()];
    let mut moves = vec![Vec::new(); schedule.n_steps as usize];
    let mut next = 0;
    for (step, moved) in moves.iter_mut().enumerate() {
        while next < order.len() && schedule.transfers[order[next]].step as usize == step {
            let t = &schedule.transfers[order[next]];
            next += 1;
            let from = match t.hop {
                Hop::FromSwitch(s) => switch_row(s),
                _ => t.src as usize,
            };
            let to = match t.hop {
                Hop::ToSwitch(s) => switch_row(s),
                _ => t.dst as usize,
            };
            for c in span(t.offset, t.len) {
                let carried = state[from * columns + c];
                let cell = &mut state[to * columns + c];
                match t.op {
                    ChunkOp::Reduce => *cell |= carried,
                    ChunkOp::Copy => *cell = carried,
                }
                moved.push((from as u32, to as u32, c as u32));
            }
        }
        sets.push(state.clone());
    }
    Some(Holdings { channel, n_ranks: n, chunks: ranges, switches, reduces, sets, complete, moves })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::{identity_order, ring_allreduce, Protocol};

    /// The ring's documented picture (ring.rs): during the reduce-scatter, at step s position p
    /// sends chunk (p - s) mod n and its successor adds it in, so after step s position p's
    /// chunk (p - s - 1) mod n sums s + 2 contributions; after it, position p holds chunk
    /// (p + 1) mod n complete; the all-gather then completes every chunk everywhere.
    #[test]
    fn a_ring_allreduce_grid_is_the_textbook_one() {
        let n = 8u32;
        let schedule = ring_allreduce(1, &[&identity_order(n)], 8 * 1024, 1);
        let h = holdings(&schedule, 0).unwrap();
        assert_eq!((h.rows(), h.chunks.len(), h.n_steps()), (n, n as usize, 2 * (n as usize - 1)));
        for s in 0..(n - 1) as usize {
            for p in 0..n {
                let chunk = ((p + 2 * n - s as u32 - 1) % n) as usize;
                let want = if s as u32 == n - 2 { Cell::Complete } else { Cell::Partial(s as u32 + 2) };
                assert_eq!(h.cell(s + 1, p, chunk), want, "after step {s}, position {p}, chunk {chunk}");
            }
        }
        for p in 0..n {
            assert_eq!(h.cell(n as usize - 1, p, ((p + 1) % n) as usize), Cell::Complete);
            assert!((0..n as usize).all(|c| h.cell(h.n_steps(), p, c) == Cell::Complete));
            assert!((0..n as usize).all(|c| h.cell(0, p, c) == Cell::Partial(1)));
        }
        // One transfer per position per step, each to the successor.
        assert!(h.moves.iter().all(|m| m.len() == n as usize && m.iter().all(|&(a, b, _)| b == (a + 1) % n)));
    }

    /// Every collective and algorithm the grid is built for ends as the collective promises:
    /// reduce collectives with the complete sum where the result lands, copy collectives with
    /// every chunk on every rank.
    #[test]
    fn every_grid_ends_with_the_collectives_result() {
        use crate::collective::Algorithm;
        let cases = [
            (Collective::AllReduce, Algorithm::Ring, 1, 8),
            (Collective::AllReduce, Algorithm::Ring, 2, 8),
            (Collective::AllReduce, Algorithm::Tree, 4, 2),
            (Collective::AllReduce, Algorithm::Nvls, 1, 8),
            (Collective::AllReduce, Algorithm::NvlsTree, 2, 4),
            (Collective::AllReduce, Algorithm::Hierarchical, 2, 4),
            (Collective::AllGather, Algorithm::Ring, 1, 8),
            (Collective::ReduceScatter, Algorithm::Ring, 1, 8),
            (Collective::Broadcast, Algorithm::Ring, 2, 4),
            (Collective::Reduce, Algorithm::Ring, 2, 4),
        ];
        for (collective, algorithm, nodes, per_node) in cases {
            let order = identity_order(per_node);
            let schedule = crate::collective::schedule_with(
                collective,
                (algorithm, Protocol::Simple),
                nodes,
                &[&order],
                4096,
                2,
                1,
            );
            let Some(h) = holdings(&schedule, 0) else {
                panic!("{collective:?} {algorithm:?}: no grid");
            };
            let end = h.n_steps();
            let n = h.n_ranks;
            for c in 0..h.chunks.len() {
                let done: Vec<u32> = (0..n).filter(|&r| h.cell(end, r, c) == Cell::Complete).collect();
                let want: Vec<u32> = match collective {
                    Collective::AllReduce | Collective::AllGather | Collective::Broadcast => (0..n).collect(),
                    Collective::Reduce => vec![1],
                    _ => vec![
                        schedule
                            .regions
                            .iter()
                            .find(|r| r.start <= h.chunks[c].0 && h.chunks[c].0 < r.start + r.len)
                            .unwrap()
                            .rank,
                    ],
                };
                assert!(
                    want.iter().all(|r| done.contains(r)),
                    "{collective:?} {algorithm:?} chunk {c}: complete on {done:?}, want {want:?}"
                );
            }
        }
    }

    #[test]
    fn alltoall_and_large_schedules_have_no_grid() {
        let order = identity_order(4);
        let a2a = crate::collective::schedule(Collective::AllToAll, 1, &[&order], 64, 1, 0);
        assert!(holdings(&a2a, 0).is_none());
        let big = identity_order(129);
        assert!(holdings(&ring_allreduce(1, &[&big], 129 * 4, 1), 0).is_none());
    }
}
