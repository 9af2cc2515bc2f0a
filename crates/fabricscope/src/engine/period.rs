//! Steady state: finding, exactly, that a run has started to repeat itself.
//!
//! A ring collective on `n` ranks has `2(n-1)` steps that differ only in which chunk each rank
//! forwards, and the engine's timing does not look at which chunk it is: step s+1's transfers
//! are step s's, `unit` (= channels × ranks) indices later, with the same sources, destinations,
//! byte counts and dependencies shifted by `unit`. After a few steps the run settles into a
//! steady state where every step looks like the one before, a fixed time later.
//!
//! The engine is deterministic, so if the *whole* state of the run at time `t_c` (every flow not
//! yet finished: how many dependencies it still waits for, the latency it has left, whether it
//! waits for its connection, its path, the exact bits of its rate and of the bytes it has left,
//! and how long ago those were brought up to date) equals the state at an earlier `t_b` with
//! every flow index shifted by `k × unit`, then everything after `t_c` is everything after `t_b`
//! again, `T = t_c - t_b` later and `k` steps on, for as long as the schedule stays regular.
//! Nothing is assumed about rates or contention: a skewed or congested ring reaches its own
//! steady state (or none, and then nothing is extrapolated). The comparison is exact, bit for bit;
//! a hash only decides when a full comparison is worth making.
//!
//! `Probe` says where to look; `Period` is what was proved. `simulation` uses it to run a
//! collective with millions of transfers by simulating a prefix of its steps
//! (`simulation::steady`).

use crate::collective::Schedule;
use crate::topology::LinkId;

pub use crate::collective::Probe;

/// A proved steady state: the state at `to` is the state at `from` shifted by `steps` steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    pub from: u64,
    pub to: u64,
    /// Steps per period.
    pub steps: u32,
    /// The lowest unfinished flow at `from`, rounded down to a step (flows below it had all
    /// finished then).
    pub base: u32,
    /// Event batches the engine handled from `from` to `to`.
    pub batches: u64,
    /// The step first issued at `to` (the highest issued by then).
    pub step: u32,
}

impl Period {
    pub fn duration_ns(&self) -> u64 {
        self.to - self.from
    }
}

/// Whether `schedule`'s transfers from `probe.regular_from` on repeat every `probe.unit`
/// indices in everything the engine looks at: endpoints, channel, wire bytes, hop, and
/// dependencies and FIFO predecessor at the same relative offsets.
pub fn is_regular(schedule: &Schedule, probe: &Probe) -> bool {
    let unit = probe.unit as usize;
    let transfers = &schedule.transfers;
    if unit == 0 || transfers.len() < probe.regular_from as usize + 2 * unit {
        return false;
    }
    (probe.regular_from as usize..transfers.len() - unit).all(|i| {
        let (a, b) = (&transfers[i], &transfers[i + unit]);
        let shifted = |x: u32| x as usize + unit;
        a.src == b.src
            && a.dst == b.dst
            && a.channel == b.channel
            && a.len == b.len
            && a.hop == b.hop
            && a.deps.len() == b.deps.len()
            && a.deps.iter().zip(&b.deps).all(|(&x, &y)| shifted(x) == y as usize)
            && a.after.map(shifted) == b.after.map(|y| y as usize)
    })
}

/// What a flow is doing, for the state comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stage {
    /// Waiting for dependencies.
    Waiting,
    /// Paying its latency.
    Latency,
    /// Latency paid, waiting for its connection's previous data.
    Parked,
    Moving,
    /// Streamed, its data all moved, waiting for its dependencies to finish (`stream`).
    Held,
    Done,
}

/// One flow's part of the state, relative to the snapshot's time: everything its future
/// depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct FlowState {
    pub stage: Stage,
    /// Dependencies left (Waiting), ns of latency left (Latency), or ns since `remaining` and
    /// `rate` were set (Moving).
    pub ticks: u64,
    pub remaining_bits: u64,
    pub rate_bits: u64,
    pub path: Vec<LinkId>,
}

/// The state at one time: the flows from `base` (all below it finished) to the highest one
/// touched, in order.
pub(super) struct Snapshot {
    pub t: u64,
    pub step: u32,
    pub base: u32,
    pub batches: u64,
    pub hash: u64,
    pub flows: Vec<FlowState>,
}

impl Snapshot {
    pub fn hash_of(flows: &[FlowState]) -> u64 {
        let mut h = crate::hash::Fnv::default();
        let mut add = |x: u64| h.word_rotated(x);
        add(flows.len() as u64);
        for f in flows {
            add(f.stage as u64);
            add(f.ticks);
            add(f.remaining_bits);
            add(f.rate_bits);
            for link in &f.path {
                add(link.index() as u64);
            }
        }
        h.0
    }
}

/// Watches a run's snapshots, one each time a new step is first issued, for a steady state.
pub(super) struct Detector {
    pub probe: Probe,
    /// (step, hash, base, flows) of recent snapshots, newest last.
    recent: Vec<(u32, u64, u32, usize)>,
    /// The snapshot a later one will be compared with in full.
    candidate: Option<(Snapshot, u32)>,
    pub found: Option<Period>,
}

/// The longest period, in steps, looked for.
const MAX_PERIOD_STEPS: u32 = 16;

impl Detector {
    pub fn new(probe: Probe) -> Detector {
        Detector { probe, recent: Vec::new(), candidate: None, found: None }
    }

    /// Takes in the snapshot made when `snapshot.step` was first issued.
    pub fn observe(&mut self, snapshot: Snapshot) {
        if self.found.is_some() {
            return;
        }
        let unit = self.probe.unit;
        if let Some((candidate, k)) = &self.candidate {
            if snapshot.step == candidate.step + k {
                let shifted = candidate.base as u64 + (*k as u64) * unit as u64;
                if snapshot.base as u64 == shifted
                    && snapshot.hash == candidate.hash
                    && snapshot.flows == candidate.flows
                {
                    self.found = Some(Period {
                        from: candidate.t,
                        to: snapshot.t,
                        steps: *k,
                        base: candidate.base,
                        batches: snapshot.batches - candidate.batches,
                        step: snapshot.step,
                    });
                    return;
                }
                self.candidate = None;
            } else if snapshot.step > candidate.step + k {
                self.candidate = None;
            }
        }
        if self.candidate.is_none() {
            // A recent snapshot with the same hash, `k` steps and `k` units back, predicts that
            // this one will recur `k` steps on: keep it for the full comparison then.
            let hit = self.recent.iter().rev().find(|&&(step, hash, base, len)| {
                let k = snapshot.step - step;
                hash == snapshot.hash
                    && len == snapshot.flows.len()
                    && base as u64 + k as u64 * unit as u64 == snapshot.base as u64
            });
            if let Some(&(step, _, _, _)) = hit {
                let k = snapshot.step - step;
                let (s, h, b, l) = (snapshot.step, snapshot.hash, snapshot.base, snapshot.flows.len());
                self.candidate = Some((snapshot, k));
                self.remember(s, h, b, l);
                return;
            }
        }
        self.remember(snapshot.step, snapshot.hash, snapshot.base, snapshot.flows.len());
    }

    fn remember(&mut self, step: u32, hash: u64, base: u32, len: usize) {
        self.recent.push((step, hash, base, len));
        if self.recent.len() > MAX_PERIOD_STEPS as usize {
            self.recent.remove(0);
        }
    }
}
