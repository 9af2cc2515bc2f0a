//! Where a training step's engine runs happen.
//!
//! The step model (`step`) asks `Runs` for each operation's time: alone, every group at once,
//! or several operations together. `Runs::direct` runs each through the engine when asked (what
//! `ValidTrain::run` does). A `TrainJob` instead passes over the step with `Runs` recording what
//! it does not know yet (answering 0), runs those schedules a slice of event batches at a time,
//! and passes again with their results, until a pass needs nothing new: the same report as
//! `run`, bit for bit (`tests.rs`), without one long call that a page would have to wait for.
//! Every run folds by channel symmetry where `engine::symmetry` proves it.

use super::comm::{self, OpMethod, OpTiming, Traffic};
use super::{TrainReport, ValidTrain};
use crate::collective::Schedule;
use crate::engine::symmetry::{self, FinishRun};
use crate::plan::ValidScenario;
use crate::scenario::Collective;
use crate::topology::Topology;
use crate::units::SimTime;
use std::collections::BTreeMap;
use std::ops::Range;

/// A run the step needs: its key, schedule and each part's transfers.
type Needed = (u64, Schedule, Vec<Range<usize>>);

/// The engine as the step model sees it.
pub struct Runs<'a> {
    valid: &'a ValidScenario,
    topology: &'a Topology,
    /// Each known run's part finish times, by key; `None`: run when asked.
    known: Option<&'a BTreeMap<u64, Vec<u64>>>,
    /// The runs a recording pass asked for and did not know.
    missing: Vec<Needed>,
}

impl<'a> Runs<'a> {
    /// Each run through the engine when asked.
    pub fn direct(valid: &'a ValidScenario, topology: &'a Topology) -> Runs<'a> {
        Runs { valid, topology, known: None, missing: Vec::new() }
    }

    /// Several operations launched together in one engine run, so that where they share a
    /// link they share its capacity: each one's finish time [ns] (its own transfers' last end).
    pub fn together(&mut self, parts: &[&Traffic]) -> Vec<u64> {
        if parts.is_empty() {
            return Vec::new();
        }
        let (schedule, ranges) = comm::combined(self.valid, self.topology, parts);
        self.ends(schedule, ranges)
    }

    /// `schedule` run once: each range's last finish [ns].
    fn ends(&mut self, schedule: Schedule, ranges: Vec<Range<usize>>) -> Vec<u64> {
        let Some(known) = self.known else {
            let finished = symmetry::finish_times(self.topology, schedule, self.valid.policy());
            return part_ends(&finished, &ranges);
        };
        let key = key_of(&schedule, &ranges);
        if let Some(ends) = known.get(&key) {
            return ends.clone();
        }
        let n = ranges.len();
        if !self.missing.iter().any(|(k, _, _)| *k == key) {
            self.missing.push((key, schedule, ranges));
        }
        vec![0; n]
    }

    /// One operation alone, every group at once.
    pub fn timing(&mut self, traffic: &Traffic) -> OpTiming {
        let crosses_nodes = traffic.crosses_nodes();
        if traffic.transfers() == 0 {
            return OpTiming { time_ns: 0, transfers: 0, crosses_nodes: false, method: OpMethod::Exact };
        }
        // Where every group is an image of a few (`engine::groups`), only those run.
        let few = traffic.representatives(self.valid, self.topology);
        let run = few.as_ref().unwrap_or(traffic);
        if let Some((prefix, transfers)) = traffic.prefix() {
            // Each group's first steps, the rest at the per-step time measured on them.
            let (schedule, _) = comm::combined(self.valid, self.topology, &[run]);
            let first = super::prefix::first_step(&schedule);
            let ends = self.ends(schedule, prefix.step_ranges(run.n_groups()));
            let time_ns = prefix.extrapolate(self.topology, self.valid.policy(), &first, &ends);
            return OpTiming { time_ns, transfers, crosses_nodes, method: OpMethod::Extrapolated(prefix) };
        }
        let time_ns = self.together(&[run])[0];
        OpTiming { time_ns, transfers: traffic.transfers(), crosses_nodes, method: OpMethod::Exact }
    }

    /// `collective` of `bytes` per group (nccl-tests' size convention), every group at once.
    pub fn collective_op(&mut self, collective: Collective, groups: &[Vec<u32>], bytes: u64) -> OpTiming {
        let traffic = comm::collective_traffic(self.valid, collective, groups, bytes);
        self.timing(&traffic)
    }

    /// Point-to-point sends `(src, dst)` of `bytes` each, all at once.
    pub fn sends_op(&mut self, pairs: &[(u32, u32)], bytes: u64) -> OpTiming {
        let traffic = comm::sends_traffic(self.valid, pairs, bytes);
        self.timing(&traffic)
    }
}

/// Each part's last finish [ns].
fn part_ends(finished: &[SimTime], ranges: &[Range<usize>]) -> Vec<u64> {
    ranges.iter().map(|r| finished[r.clone()].iter().map(|t| t.as_ns()).max().unwrap_or(0)).collect()
}

/// What identifies a run within one job (same cluster, same settings): the schedule's kind and
/// settings, how it splits into parts, and every transfer with all the engine reads of it
/// (endpoints, channel, chunk and offsets, which order released flows are issued in, size,
/// operation, step, dependencies, connection order).
fn key_of(schedule: &Schedule, ranges: &[Range<usize>]) -> u64 {
    let mut h = crate::hash::Fnv::default();
    for x in [
        schedule.collective as u64,
        schedule.algorithm as u64,
        schedule.protocol as u64,
        schedule.count,
        schedule.n_channels as u64,
        schedule.transfers.len() as u64,
    ] {
        h.word_rotated(x);
    }
    for r in ranges {
        h.word_rotated(r.len() as u64);
    }
    for t in &schedule.transfers {
        for x in [
            t.src as u64,
            t.dst as u64,
            t.channel as u64,
            t.chunk as u64,
            t.offset,
            t.src_offset,
            t.from_input as u64,
            t.len,
            t.op as u64,
            t.step as u64,
            t.deps.len() as u64,
        ] {
            h.word_rotated(x);
        }
        for &d in &t.deps {
            h.word_rotated(d as u64);
        }
        h.word_rotated(t.after.map_or(u64::MAX, u64::from));
        // A step's schedules go peer to peer (rings, AllToAll, sends): no switch hops to tell apart.
        debug_assert_eq!(t.hop, crate::collective::Hop::Peer);
    }
    h.0
}

/// A run in progress (folded where the channels are images of one another).
struct Running {
    key: u64,
    ranges: Vec<Range<usize>>,
    run: FinishRun,
}

/// A training step run a slice at a time (`poll`): the page's way to simulate a step without
/// holding its main thread.
pub struct TrainJob {
    train: ValidTrain,
    topology: Topology,
    known: BTreeMap<u64, Vec<u64>>,
    queue: Vec<Needed>,
    running: Option<Running>,
    passes: u32,
}

impl std::fmt::Debug for TrainJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let running = if self.running.is_some() { ", one running" } else { "" };
        write!(
            f,
            "TrainJob({} runs known, {} queued{running}, {} passes)",
            self.known.len(),
            self.queue.len(),
            self.passes
        )
    }
}

impl TrainJob {
    pub fn new(train: ValidTrain) -> TrainJob {
        let topology = train.cluster().topology();
        TrainJob { train, topology, known: BTreeMap::new(), queue: Vec::new(), running: None, passes: 0 }
    }

    /// The job being run.
    pub fn train(&self) -> &ValidTrain {
        &self.train
    }

    /// One piece of work: up to `batches` event batches of the current run, the next run set
    /// up, or a pass over the step. The report once a pass needs no run it does not know.
    pub fn poll(&mut self, batches: u64) -> Option<TrainReport> {
        let policy = self.train.cluster().policy();
        if let Some(running) = &mut self.running {
            if !running.run.advance(&self.topology, batches) {
                return None;
            }
            let Running { key, ranges, run } = self.running.take()?;
            self.known.insert(key, part_ends(&run.finish(&self.topology), &ranges));
            return None;
        }
        if let Some((key, schedule, ranges)) = self.queue.pop() {
            let run = FinishRun::start(&self.topology, schedule, policy);
            self.running = Some(Running { key, ranges, run });
            return None;
        }
        self.passes += 1;
        let mut runs = Runs {
            valid: self.train.cluster(),
            topology: &self.topology,
            known: Some(&self.known),
            missing: Vec::new(),
        };
        let report = self.train.run_with(&mut runs);
        if runs.missing.is_empty() {
            return Some(report);
        }
        let mut missing = runs.missing;
        missing.reverse(); // popped in the order the pass asked
        self.queue = missing;
        None
    }

    /// Passes over the step so far (each pass after the first follows runs it asked for).
    pub fn passes(&self) -> u32 {
        self.passes
    }
}
