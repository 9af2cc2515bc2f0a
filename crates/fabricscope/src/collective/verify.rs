//! Executes a schedule on integer vectors and checks that every rank ends with the exact result.
//!
//! Rank r starts with element i = (r + 1) × 1,000,003 + i. Transfers run in dependency order;
//! to catch a schedule whose result depends on the order of transfers that may run at the same
//! time, it is executed twice, with independent transfers in opposite orders, and both runs must
//! be right.

use super::schedule::{ChunkOp, Hop, Schedule, SwitchRef};
use crate::scenario::Collective;
use std::collections::BTreeMap;
use std::fmt;

/// Largest `n_ranks × count` that `verify` executes (32 MiB of i64s).
pub const MAX_VERIFY_ELEMENTS: u64 = 1 << 22;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyError {
    /// The data would exceed `MAX_VERIFY_ELEMENTS`.
    TooLarge { elements: u64 },
    /// A transfer names a dependency that does not come before it.
    BadDependency { transfer: usize, dep: u32 },
    /// A transfer reads or writes outside the buffer.
    OutOfBounds { transfer: usize },
    /// Elements that ended with the wrong value.
    Wrong { order: &'static str, rank: u32, index: u64, got: i64, want: i64, wrong: u64 },
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::TooLarge { elements } => {
                write!(f, "{elements} elements is more than verify executes ({MAX_VERIFY_ELEMENTS})")
            }
            VerifyError::BadDependency { transfer, dep } => {
                write!(f, "transfer {transfer} depends on {dep}, which does not come before it")
            }
            VerifyError::OutOfBounds { transfer } => write!(f, "transfer {transfer} is outside the buffer"),
            VerifyError::Wrong { order, rank, index, got, want, wrong } => write!(
                f,
                "{wrong} wrong elements ({order} order); first: rank {rank} element {index} is {got}, want {want}"
            ),
        }
    }
}

fn initial(rank: u32, index: u64) -> i64 {
    (rank as i64 + 1) * 1_000_003 + index as i64
}

/// Executes `schedule` on integers; `Ok` when every rank holds exactly the right result.
pub fn verify(schedule: &Schedule) -> Result<(), VerifyError> {
    let n = schedule.n_ranks as u64;
    let elements = n.saturating_mul(schedule.count.saturating_add(schedule.scratch));
    if elements > MAX_VERIFY_ELEMENTS {
        return Err(VerifyError::TooLarge { elements });
    }
    // Level of a transfer: 1 + the deepest of its dependencies. Transfers of one level are
    // independent of each other.
    let mut level = vec![0u32; schedule.transfers.len()];
    for (index, transfer) in schedule.transfers.iter().enumerate() {
        if transfer.after.is_some_and(|a| a as usize >= index) {
            return Err(VerifyError::BadDependency { transfer: index, dep: transfer.after.unwrap_or(0) });
        }
        for &dep in &transfer.deps {
            if dep as usize >= index {
                return Err(VerifyError::BadDependency { transfer: index, dep });
            }
            level[index] = level[index].max(level[dep as usize] + 1);
        }
        let end = transfer.offset.max(transfer.src_offset) + transfer.len;
        if end > schedule.count + schedule.scratch || transfer.src as u64 >= n || transfer.dst as u64 >= n {
            return Err(VerifyError::OutOfBounds { transfer: index });
        }
    }
    let mut forward: Vec<usize> = (0..schedule.transfers.len()).collect();
    crate::sort::by_key(&mut forward, |&index| (level[index], index));
    let mut backward = forward.clone();
    crate::sort::by_key(&mut backward, |&index| (level[index], std::cmp::Reverse(index)));
    execute(schedule, &forward, "forward")?;
    execute(schedule, &backward, "reversed")
}

fn execute(schedule: &Schedule, order: &[usize], order_name: &'static str) -> Result<(), VerifyError> {
    let count = schedule.count as usize;
    // Each rank's buffer, then its scratch (zero).
    let size = schedule.count + schedule.scratch;
    let input: Vec<Vec<i64>> = (0..schedule.n_ranks)
        .map(|rank| (0..size).map(|i| if i < schedule.count { initial(rank, i) } else { 0 }).collect())
        .collect();
    let mut data = input.clone();
    // A reducing switch's own copy of the buffer, zero until chunks are added into it.
    let mut switches: BTreeMap<SwitchRef, Vec<i64>> = BTreeMap::new();
    let mut buffer = Vec::new();
    for &index in order {
        let transfer = &schedule.transfers[index];
        let len = transfer.len as usize;
        let from = transfer.src_offset as usize..transfer.src_offset as usize + len;
        let to = transfer.offset as usize..transfer.offset as usize + len;
        buffer.clear();
        match transfer.hop {
            Hop::FromSwitch(switch) => {
                buffer.extend_from_slice(&switches.entry(switch).or_insert_with(|| vec![0; count])[from])
            }
            _ => {
                let source = if transfer.from_input { &input } else { &data };
                buffer.extend_from_slice(&source[transfer.src as usize][from]);
            }
        }
        let dst = match transfer.hop {
            Hop::ToSwitch(switch) => &mut switches.entry(switch).or_insert_with(|| vec![0; count])[to],
            _ => &mut data[transfer.dst as usize][to],
        };
        match transfer.op {
            ChunkOp::Reduce => dst.iter_mut().zip(&buffer).for_each(|(d, s)| *d = d.wrapping_add(*s)),
            ChunkOp::Copy => dst.copy_from_slice(&buffer),
        }
    }
    let owner = owners(schedule);
    let mut first = None;
    let mut wrong = 0u64;
    for rank in 0..schedule.n_ranks {
        for (index, &got) in data[rank as usize].iter().enumerate().take(count) {
            let Some(want) = expected(schedule, &owner, rank, index as u64) else { continue };
            if got != want {
                wrong += 1;
                first.get_or_insert((rank, index as u64, got, want));
            }
        }
    }
    match first {
        None => Ok(()),
        Some((rank, index, got, want)) => {
            Err(VerifyError::Wrong { order: order_name, rank, index, got, want, wrong })
        }
    }
}

/// Which rank owns each element (AllGather's inputs, ReduceScatter's outputs).
fn owners(schedule: &Schedule) -> Vec<u32> {
    let mut owner = vec![u32::MAX; schedule.count as usize];
    for region in &schedule.regions {
        for i in region.start..region.start + region.len {
            owner[i as usize] = region.rank;
        }
    }
    owner
}

fn sum(n: u32, index: u64) -> i64 {
    (0..n).map(|r| initial(r, index)).fold(0i64, i64::wrapping_add)
}

/// What element `index` of `rank` must hold at the end; `None` where the collective leaves it
/// undefined (outside a ReduceScatter rank's own part, on a Reduce's non-root ranks).
fn expected(schedule: &Schedule, owner: &[u32], rank: u32, index: u64) -> Option<i64> {
    let n = schedule.n_ranks;
    match schedule.collective {
        Collective::AllReduce => Some(sum(n, index)),
        Collective::AllGather => Some(initial(owner[index as usize], index)),
        Collective::ReduceScatter => (owner[index as usize] == rank).then(|| sum(n, index)),
        Collective::Broadcast => Some(initial(schedule.root, index)),
        Collective::Reduce => (rank == schedule.root).then(|| sum(n, index)),
        Collective::AllToAll => {
            let block = schedule.count / n as u64;
            if block == 0 || index >= block * n as u64 {
                return None;
            }
            let (from, k) = ((index / block) as u32, index % block);
            Some(initial(from, rank as u64 * block + k))
        }
        Collective::SendRecv => Some(initial((rank + n - 1) % n, index)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::{identity_order, ring_allreduce};

    #[test]
    fn ring_allreduce_is_exact_for_1_to_17_ranks() {
        for n in 1..=17 {
            for count in [1, 2, 7, 16, 17, 100, 1001] {
                for channels in [1, 3] {
                    let schedule = ring_allreduce(1, &[&identity_order(n)], count, channels);
                    verify(&schedule)
                        .unwrap_or_else(|error| panic!("n={n} count={count} channels={channels}: {error}"));
                }
            }
        }
    }

    #[test]
    fn multi_node_rings_are_exact() {
        for (nodes, per_node) in [(2, 8), (3, 4), (4, 2)] {
            for channels in [1, 8] {
                let schedule = ring_allreduce(nodes, &[&identity_order(per_node)], 999, channels);
                verify(&schedule).unwrap_or_else(|error| panic!("{nodes}×{per_node} ch={channels}: {error}"));
            }
        }
    }

    #[test]
    fn every_collective_is_exact_for_1_to_17_ranks_and_odd_sizes() {
        for collective in Collective::ALL {
            for n in 1..=17u32 {
                for count in [1u64, 7, 17, 100, 1001] {
                    for channels in [1, 3] {
                        let root = n / 2;
                        let schedule = crate::collective::schedule(
                            collective,
                            1,
                            &[identity_order(n)],
                            count,
                            channels,
                            root,
                        );
                        verify(&schedule).unwrap_or_else(|e| {
                            panic!("{collective:?} n={n} count={count} channels={channels}: {e}")
                        });
                    }
                }
            }
            for (nodes, per_node) in [(2, 8), (3, 4)] {
                let schedule =
                    crate::collective::schedule(collective, nodes, &[identity_order(per_node)], 999, 8, 5);
                verify(&schedule).unwrap_or_else(|e| panic!("{collective:?} {nodes}×{per_node}: {e}"));
            }
        }
    }

    #[test]
    fn a_broken_schedule_is_caught() {
        let mut schedule = ring_allreduce(1, &[&identity_order(4)], 64, 1);
        // Turn the last all-gather copy into a reduce: its receiver double-counts.
        let last = schedule.transfers.len() - 1;
        schedule.transfers[last].op = ChunkOp::Reduce;
        assert!(matches!(verify(&schedule), Err(VerifyError::Wrong { .. })));
        // Drop a dependency that orders two writes of the same chunk: the reversed order differs.
        let mut racy = ring_allreduce(1, &[&identity_order(3)], 3, 1);
        for transfer in &mut racy.transfers {
            transfer.deps.clear();
        }
        assert!(matches!(verify(&racy), Err(VerifyError::Wrong { .. })));
    }
}
