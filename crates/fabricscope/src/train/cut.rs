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
use crate::plan::{ring_transfers, ValidScenario, LEAST_MEASURED_STEPS};
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
    let every: Vec<u64> = running.iter().map(|g| g.len() as u64).collect();
    let c = channels as u64;
    // Transfers of rings of `sizes` ranks, each whole or cut to its first `k` steps.
    let of = |k: Option<u32>, sizes: &[u64]| -> u64 {
        let ring = |n: u64| match k {
            None => ring_transfers(collective, n as u32, count, channels),
            Some(k) => prefix::ring_steps(collective, n as u32).min(k) as u64 * n * c,
        };
        sizes.iter().map(|&n| ring(n)).sum()
    };
    let fits = |t: &u64| *t <= MAX_TRANSFERS;
    if alone <= MAX_TRANSFERS {
        if let Some(t) = few.as_deref().map(|few| of(None, few)).filter(fits) {
            return Ok(Cut { prefix: None, transfers: t });
        }
    } else {
        let p = prefix::plan(collective, widest, count, channels)?;
        // Every group's prefix, else the few's.
        let few_cut = few.as_deref().map(|few| of(Some(p.steps), few));
        if let Some(t) = Some(of(Some(p.steps), &every)).filter(fits).or(few_cut.filter(fits)) {
            return Ok(Cut { prefix: Some(p), transfers: t });
        }
    }
    // Beyond the limit together: the first steps of each group that runs, as many as fit them all.
    let ranks = few.unwrap_or(every);
    let budget = MAX_TRANSFERS / ranks.len().max(1) as u64;
    let p = prefix::plan_within(collective, widest, count, channels, budget).map_err(|_| {
        let steps = prefix::ring_steps(collective, widest);
        if steps <= LEAST_MEASURED_STEPS {
            return prefix::short_rings(widest, steps);
        }
        let least = LEAST_MEASURED_STEPS as u64 * ranks.iter().sum::<u64>() * c;
        format!(
            "even {LEAST_MEASURED_STEPS} steps of each of its {} groups that run are {least} transfers (the engine's limit is {MAX_TRANSFERS})",
            ranks.len()
        )
    })?;
    Ok(Cut { prefix: Some(p), transfers: of(Some(p.steps), &ranks) })
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
    let (count, channels) = ((bytes / ELEM_BYTES).max(1), valid.channels());
    let few = few_sizes(valid, topology, collective, groups, bytes)?;
    Some(few.iter().map(|&n| ring_transfers(collective, n as u32, count, channels)).sum())
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
