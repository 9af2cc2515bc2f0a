//! How a step's ring op (an AllReduce, a ReduceScatter or an AllGather of one size, every group
//! at once) runs within the engine's limit (`MAX_TRANSFERS`), decided by counting before
//! anything is built: validation checks it (`ValidTrain`), the step runs it (`Runs`).
//!
//! In order, the first that fits:
//!
//! 1. every group whole, every transfer;
//! 2. where every group is proved an image of a few (`engine::groups`, found from each group's
//!    first step alone, which holds every connection its ring has), those few whole;
//! 3. where one group's ring is beyond the limit, each group's (or each of the few's) first `K`
//!    steps, `K` as many as the limit allows one ring (`prefix::plan`), extrapolated;
//! 4. where the rings are beyond it only together (no group stands for the others: ECMP hashing
//!    each flow, say), the first `K` steps of every group that runs, `K` as many as the limit
//!    allows them all: extrapolated the same way, labelled the same way, at least
//!    `LEAST_MEASURED_STEPS` steps, else refused with the reason.
//!
//! Before 4, TP 2 × DP 256 on 64 DGX H100 over RoCE (two DP rings of 1.04 M transfers) was
//! refused, and with it the training view's comparison of fabrics for the job that ran on
//! InfiniBand.

use super::comm::{collective_transfers, traffic_shaped, Shape};
use super::prefix::{self, RingPrefix};
use crate::collective::ELEM_BYTES;
use crate::limits::MAX_TRANSFERS;
use crate::plan::{ValidScenario, LEAST_MEASURED_STEPS};
use crate::scenario::Collective;
use crate::topology::Topology;

/// How a ring op runs: whole or from each group's first steps, and the transfers that run
/// (of the few groups that stand for all, where they do).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    pub prefix: Option<RingPrefix>,
    pub transfers: u64,
}

/// Whether `collective` runs as a ring a step's op may cut (`prefix::plan`).
pub fn is_ring(collective: Collective) -> bool {
    matches!(collective, Collective::AllReduce | Collective::ReduceScatter | Collective::AllGather)
}

/// How `collective` of `bytes` per group over `groups` (every group at once) runs within the
/// engine's limit on `topology`, or why it cannot. Not a ring: whole, whatever its count.
pub fn ring_cut(
    valid: &ValidScenario,
    topology: &Topology,
    collective: Collective,
    groups: &[Vec<u32>],
    bytes: u64,
) -> Result<Cut, String> {
    let channels = valid.channels();
    let running: Vec<&Vec<u32>> = groups.iter().filter(|g| g.len() > 1).collect();
    let one = |g: &Vec<u32>| collective_transfers(collective, std::slice::from_ref(g), bytes, channels);
    let all: u64 = running.iter().map(|g| one(g)).sum();
    if all <= MAX_TRANSFERS || !is_ring(collective) {
        return Ok(Cut { prefix: None, transfers: all });
    }
    let count = (bytes / ELEM_BYTES).max(1);
    let widest = running.iter().map(|g| g.len() as u32).max().unwrap_or(0);
    let alone = collective_transfers(collective, &[(0..widest).collect()], bytes, channels);
    // The ranks of the groups that run: the few that stand for all where they are proved so.
    let few = few_sizes(valid, topology, collective, groups, bytes);
    let ranks: Vec<u64> = few.clone().unwrap_or_else(|| running.iter().map(|g| g.len() as u64).collect());
    let (whole_steps, c) = (steps(collective), channels as u64);
    let of = |steps: &dyn Fn(u64) -> u64, sizes: &[u64]| sizes.iter().map(|&n| steps(n) * n * c).sum::<u64>();
    if alone <= MAX_TRANSFERS {
        if let Some(few) = few.as_deref().map(|few| of(&whole_steps, few)).filter(|&t| t <= MAX_TRANSFERS) {
            return Ok(Cut { prefix: None, transfers: few });
        }
    } else {
        let p = prefix::plan(collective, widest, count, channels)?;
        let cut = |n: u64| (p.steps as u64).min(whole_steps(n));
        let every: u64 = of(&cut, &running.iter().map(|g| g.len() as u64).collect::<Vec<_>>());
        if every <= MAX_TRANSFERS {
            return Ok(Cut { prefix: Some(p), transfers: every });
        }
        if let Some(few) = few.as_deref().map(|few| of(&cut, few)).filter(|&t| t <= MAX_TRANSFERS) {
            return Ok(Cut { prefix: Some(p), transfers: few });
        }
    }
    // Beyond the limit together: the first steps of each group that runs, as many as fit them all.
    let budget = MAX_TRANSFERS / ranks.len().max(1) as u64;
    let p = prefix::plan_within(collective, widest, count, channels, budget).map_err(|_| {
        let least = LEAST_MEASURED_STEPS as u64 * ranks.iter().sum::<u64>() * c;
        format!(
            "even {LEAST_MEASURED_STEPS} steps of each of its {} groups that run are {least} transfers (the engine's limit is {MAX_TRANSFERS})",
            ranks.len()
        )
    })?;
    let cut = |n: u64| (p.steps as u64).min(whole_steps(n));
    Ok(Cut { prefix: Some(p), transfers: of(&cut, &ranks) })
}

/// How many transfers of ring `collective` (`bytes` per group, every group at once, each group
/// whole) run where every group is proved an image of a few (`Traffic::representatives`);
/// `None` where they are not proved images.
pub fn representatives_transfers(
    valid: &ValidScenario,
    topology: &Topology,
    collective: Collective,
    groups: &[Vec<u32>],
    bytes: u64,
) -> Option<u64> {
    let few = few_sizes(valid, topology, collective, groups, bytes)?;
    Some(few.iter().map(|&n| ring_transfers(collective, n, valid.channels() as u64)).sum())
}

/// The ranks of each of the few groups of ring `collective` that stand for all, found from each
/// group's first step alone, which holds every connection its ring has (a transfer per rank and
/// channel): no ring is built (validation found them from every ring whole, 0.37 s at DP 256
/// on 64 DGX H100, now 3 ms). `None` where the groups are not proved images.
fn few_sizes(
    valid: &ValidScenario,
    topology: &Topology,
    collective: Collective,
    groups: &[Vec<u32>],
    bytes: u64,
) -> Option<Vec<u64>> {
    let first = traffic_shaped(valid, collective, groups, bytes, Shape::FirstStep);
    first.representatives(valid, topology).map(|few| few.group_sizes())
}

/// The transfers of a ring `collective` of `n` ranks over `channels`: a transfer per rank and
/// channel a step.
pub fn ring_transfers(collective: Collective, n: u64, channels: u64) -> u64 {
    steps(collective)(n) * n * channels
}

/// A ring's steps, of `n` ranks.
fn steps(collective: Collective) -> impl Fn(u64) -> u64 {
    move |n| match collective {
        Collective::AllReduce => 2 * n.saturating_sub(1),
        _ => n.saturating_sub(1),
    }
}
