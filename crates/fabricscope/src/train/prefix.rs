//! A ring op whose group's ring is beyond the engine, run as an *extrapolated* steady state
//! (`OpMethod::Extrapolated`): the collectives view's method for a ring too big to simulate
//! whole (`simulation::fluid`), applied to the op's groups.
//!
//! A data-parallel ring over 1,024 GPUs has 2 × 1,023 steps of 8,192 transfers at 8 channels:
//! 16.8 million, beyond `MAX_TRANSFERS`. Every group (the groups that stand for all where they
//! are images of one another, `engine::groups`) runs the first `K` steps of its ring instead,
//! all at once, and the rest of the ring is taken at a per-step time measured on them:
//!
//! ```text
//!   K      = min(PREFIX_STEPS, steps - 1, MAX_TRANSFERS / (ranks × channels)),  at least
//!            LEAST_MEASURED_STEPS
//!   λ      = max( (F(b) - F(a)) / (b - a),  floor )      F(k): when the last transfer of step k
//!            a = K/4, b = K - 2·NCCL_STEPS               finished, over every group
//!   time   = the prefix's end + (steps - K) × λ
//! ```
//!
//! The floor (`engine::fluid::ring_floor`) is a proved lower bound on a step's time, from one
//! step's routed flows. A ring's steps all carry the same bytes on the same connections, so up to
//! the time a transfer of step `K` would be issued the prefix *is* the whole ring. A size whose
//! chunks differ by an element (not a multiple of ranks × channels elements) is cut as the size
//! rounded down to that multiple, whose steps are alike, and says so (`plan`). Over `tests/train_prefix.rs`'s
//! matrix (data-parallel rings on DGX H100, DGX A100 and HGX B200, InfiniBand and RoCE, rails and
//! nodes wiring, AllReduce, ReduceScatter and AllGather) the op's time is within
//! `EXTRAPOLATED_BOUND` of running every transfer.

use crate::collective::{ring_rounded_count, ring_steady_steps, Schedule, NCCL_STEPS};
use crate::limits::MAX_TRANSFERS;
use crate::plan::LEAST_MEASURED_STEPS;
use crate::routing::Policy;
use crate::scenario::Collective;
use crate::topology::Topology;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Steps of a ring simulated where it is extrapolated, at most (`simulation::fluid`'s
/// `MEASURED_STEPS`: the same choice).
pub const PREFIX_STEPS: u32 = 128;

/// What an extrapolated op's time is within, of every transfer simulated, over
/// `tests/train_prefix.rs`'s matrix.
pub const EXTRAPOLATED_BOUND: f64 = 0.03;

/// A ring op cut to its first steps: what each group runs, and of what.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RingPrefix {
    /// Steps each group runs, of its ring's `total_steps`.
    pub steps: u32,
    pub total_steps: u32,
    /// Elements per group the chunks are cut from: the op's, or rounded down to steps alike.
    pub count: u64,
    pub rounded: bool,
    /// Transfers per step of one group (ranks × channels).
    pub unit: u64,
}

/// The prefix a ring `collective` of `n` ranks and `count` elements over `channels` runs as where
/// it is beyond the engine; why not where even its first `LEAST_MEASURED_STEPS` steps are. A
/// size whose chunks differ by an element is cut as the size rounded down to steps alike where
/// that leaves `LEAST_ROUNDED_CHUNK` elements a chunk, else as it is (its steps then differ by
/// an element a chunk).
pub fn plan(collective: Collective, n: u32, count: u64, channels: u32) -> Result<RingPrefix, String> {
    plan_within(collective, n, count, channels, MAX_TRANSFERS)
}

/// `plan`, its steps as many as `budget` transfers allow (`MAX_TRANSFERS` over the groups that
/// run, where the rings are beyond the engine only together: `cut`).
pub fn plan_within(
    collective: Collective,
    n: u32,
    count: u64,
    channels: u32,
    budget: u64,
) -> Result<RingPrefix, String> {
    let whole_steps = ring_steps(collective, n);
    if whole_steps < 2 {
        return Err(format!("a {} over {n} ranks is not a ring", collective.nccl_name()));
    }
    if whole_steps <= LEAST_MEASURED_STEPS {
        return Err(short_rings(n, whole_steps));
    }
    let (count, rounded) = match ring_steady_steps(collective, n, count, channels) {
        Some(_) => (count, false),
        None => ring_rounded_count(collective, n, count, channels).map_or((count, false), |r| (r, true)),
    };
    let unit = n as u64 * channels as u64;
    let fit = (budget / unit.max(1)).min(u32::MAX as u64) as u32;
    let steps = PREFIX_STEPS.min(whole_steps - 1).min(fit);
    if steps < LEAST_MEASURED_STEPS {
        return Err(format!(
            "even {LEAST_MEASURED_STEPS} of its steps are {} transfers (the engine's limit is {MAX_TRANSFERS})",
            LEAST_MEASURED_STEPS as u64 * unit
        ));
    }
    Ok(RingPrefix { steps, total_steps: whole_steps, count, rounded, unit })
}

/// Why rings of `n` ranks and `steps` steps are not extrapolated: a prefix of at least
/// `LEAST_MEASURED_STEPS` steps, and more after it, is what the per-step time is measured on.
pub fn short_rings(n: u32, steps: u32) -> String {
    format!("its rings of {n} GPUs have only {steps} steps, too few to extrapolate from their first ones (that takes at least {LEAST_MEASURED_STEPS} of them and more after)")
}

/// The steps of a ring `collective` of `n` ranks: 2(n − 1) for an AllReduce, n − 1 for a
/// ReduceScatter or an AllGather, 0 for what is not a ring.
pub fn ring_steps(collective: Collective, n: u32) -> u32 {
    match collective {
        Collective::AllReduce => 2 * n.saturating_sub(1),
        Collective::AllGather | Collective::ReduceScatter => n.saturating_sub(1),
        _ => 0,
    }
}

impl RingPrefix {
    /// Each group's steps as ranges of a run of `groups` groups' prefixes, group after group.
    pub(super) fn step_ranges(&self, groups: usize) -> Vec<Range<usize>> {
        let (steps, unit) = (self.steps as usize, self.unit as usize);
        (0..groups * steps).map(|i| i * unit..(i + 1) * unit).collect()
    }

    /// The ring's per-step floor [ns] (`engine::fluid::ring_floor`), from the first step of
    /// `schedule`, the prefix's run (every group's), on `topology` under `policy`.
    pub(super) fn floor_ns(&self, topology: &Topology, policy: Policy, schedule: &Schedule) -> f64 {
        crate::engine::fluid::ring_floor(topology, &first_step(schedule), policy).step_ns
    }

    /// The whole ring's time [ns] from its prefix's run (each of `step_ranges` last finish in
    /// `ends`) and its per-step `floor` (`floor_ns`).
    pub(super) fn time_ns(&self, floor: f64, ends: &[u64]) -> u64 {
        let k = self.steps as usize;
        let mut front = vec![0u64; k];
        for (i, &end) in ends.iter().enumerate() {
            front[i % k] = front[i % k].max(end);
        }
        let (a, b) = (k / 4, k - 2 * NCCL_STEPS as usize);
        let measured = front[b].saturating_sub(front[a]) as f64 / (b - a) as f64;
        let step_ns = measured.max(floor).round() as u64;
        let prefix_end = front.iter().copied().max().unwrap_or(0);
        prefix_end + (self.total_steps - self.steps) as u64 * step_ns
    }
}

/// The first step of `schedule`'s ring prefix, every group's: what the floor is routed from.
fn first_step(schedule: &Schedule) -> Schedule {
    let transfers = schedule
        .transfers
        .iter()
        .filter(|t| t.step == 0)
        .map(|t| {
            let mut t = t.clone();
            t.deps.clear();
            t.after = None;
            t
        })
        .collect();
    let mut one = Schedule::new(
        schedule.collective,
        schedule.algorithm,
        schedule.n_ranks,
        schedule.n_channels,
        schedule.count,
        1,
        transfers,
    );
    one.protocol = schedule.protocol;
    one.latency = schedule.latency;
    one
}
