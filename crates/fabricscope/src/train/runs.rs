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
    /// The collectives found so far, by what they are (`op_id`).
    memo: Memo,
}

/// A `TrainJob`'s collectives over its passes, by what they are (`op_id`): each one's timing
/// once its run is known, and before that what it waits for (its run's key), so that a later
/// pass takes them rather than build their schedules again (a data-parallel ring over 512 GPUs
/// is 524,288 transfers built, copied and hashed).
#[derive(Default)]
struct Memo {
    timings: BTreeMap<u64, OpTiming>,
    waiting: BTreeMap<u64, (u64, Waiting)>,
}

/// A collective's timing but its time, which its run's part ends give.
#[derive(Clone)]
struct Waiting {
    timing: OpTiming,
    /// An extrapolated ring's per-step floor [ns] (`prefix::RingPrefix::floor_ns`).
    floor: f64,
}

impl Waiting {
    /// The timing, from its run's part ends.
    fn finish(&self, ends: &[u64]) -> OpTiming {
        let time_ns = match self.timing.method {
            OpMethod::Extrapolated(prefix) => prefix.time_ns(self.floor, ends),
            OpMethod::Exact => ends[0],
        };
        OpTiming { time_ns, ..self.timing.clone() }
    }
}

impl<'a> Runs<'a> {
    /// Each run through the engine when asked.
    pub fn direct(valid: &'a ValidScenario, topology: &'a Topology) -> Runs<'a> {
        Runs { valid, topology, known: None, missing: Vec::new(), memo: Memo::default() }
    }

    /// Several operations launched together in one engine run, so that where they share a
    /// link they share its capacity: each one's finish time [ns] (its own transfers' last end).
    pub fn together(&mut self, parts: &[&Traffic]) -> Vec<u64> {
        if parts.is_empty() {
            return Vec::new();
        }
        let (schedule, ranges) = comm::combined(self.valid, self.topology, parts);
        self.ends(schedule, ranges).0
    }

    /// `schedule` run once: each range's last finish [ns]; and, where the run is not known yet
    /// (a recording pass answers 0), its key.
    fn ends(&mut self, schedule: Schedule, ranges: Vec<Range<usize>>) -> (Vec<u64>, Option<u64>) {
        let Some(known) = self.known else {
            let finished = symmetry::finish_times(self.topology, schedule, self.valid.policy());
            return (part_ends(&finished, &ranges), None);
        };
        let key = key_of(&schedule, &ranges);
        if let Some(ends) = known.get(&key) {
            return (ends.clone(), None);
        }
        let n = ranges.len();
        if !self.missing.iter().any(|(k, _, _)| *k == key) {
            self.missing.push((key, schedule, ranges));
        }
        (vec![0; n], Some(key))
    }

    /// One operation alone, every group at once.
    pub fn timing(&mut self, traffic: &Traffic) -> OpTiming {
        self.timing_waiting(traffic.clone()).0
    }

    /// `timing` of `traffic`, taken (its transfers moved into the run, not copied), and where
    /// its run is not known yet, what its timing waits for.
    fn timing_waiting(&mut self, traffic: Traffic) -> (OpTiming, Option<(u64, Waiting)>) {
        let crosses_nodes = traffic.crosses_nodes();
        if traffic.transfers() == 0 {
            let none = OpTiming { time_ns: 0, transfers: 0, crosses_nodes: false, method: OpMethod::Exact };
            return (none, None);
        }
        let (prefix, whole) = (traffic.prefix(), traffic.transfers());
        // Where every group is an image of a few (`engine::groups`), only those run.
        let run = traffic.representatives(self.valid, self.topology).unwrap_or(traffic);
        let groups = run.n_groups();
        let schedule = comm::alone(self.valid, self.topology, run);
        let (timing, floor, (ends, key)) = match prefix {
            // Each group's first steps, the rest at the per-step time measured on them.
            Some((prefix, transfers)) => {
                let floor = prefix.floor_ns(self.topology, self.valid.policy(), &schedule);
                let ends = self.ends(schedule, prefix.step_ranges(groups));
                let method = OpMethod::Extrapolated(prefix);
                (OpTiming { time_ns: 0, transfers, crosses_nodes, method }, floor, ends)
            }
            None => {
                let ranges = std::iter::once(0..schedule.transfers.len()).collect();
                let ends = self.ends(schedule, ranges);
                (OpTiming { time_ns: 0, transfers: whole, crosses_nodes, method: OpMethod::Exact }, 0.0, ends)
            }
        };
        let waiting = Waiting { timing, floor };
        (waiting.finish(&ends), key.map(|key| (key, waiting)))
    }

    /// `collective` of `bytes` per group (nccl-tests' size convention), every group at once.
    /// Within a `TrainJob`, each found once: a later pass takes it, or finishes it from its run,
    /// without building its schedule again.
    pub fn collective_op(&mut self, collective: Collective, groups: &[Vec<u32>], bytes: u64) -> OpTiming {
        let id = op_id(collective, groups, bytes);
        if let Some(timing) = self.memo.timings.get(&id) {
            return timing.clone();
        }
        if let (Some(known), Some((key, waiting))) = (self.known, self.memo.waiting.get(&id)) {
            if let Some(ends) = known.get(key) {
                let timing = waiting.finish(ends);
                self.memo.timings.insert(id, timing.clone());
                return timing;
            }
        }
        let traffic = self.traffic(collective, groups, bytes);
        let (timing, waiting) = self.timing_waiting(traffic);
        match waiting {
            Some((key, waiting)) => {
                self.memo.waiting.insert(id, (key, waiting));
            }
            None => {
                self.memo.timings.insert(id, timing.clone());
            }
        }
        timing
    }

    /// `collective` of `bytes` per group, every group at once, as it runs within the engine's
    /// limit (`comm::step_traffic`).
    pub fn traffic(&self, collective: Collective, groups: &[Vec<u32>], bytes: u64) -> Traffic {
        comm::step_traffic(self.valid, self.topology, collective, groups, bytes)
    }

    /// Point-to-point sends `(src, dst)` of `bytes` each, all at once.
    pub fn sends_op(&mut self, pairs: &[(u32, u32)], bytes: u64) -> OpTiming {
        let traffic = comm::sends_traffic(self.valid, pairs, bytes);
        self.timing(&traffic)
    }
}

/// What identifies a collective of a step within one job: the collective, its size and every
/// group's ranks (the cluster and its settings are the job's).
fn op_id(collective: Collective, groups: &[Vec<u32>], bytes: u64) -> u64 {
    let mut h = crate::hash::Fnv::default();
    for x in [collective as u64, bytes, groups.len() as u64] {
        h.word_rotated(x);
    }
    for group in groups {
        h.word_rotated(group.len() as u64);
        for &rank in group {
            h.word_rotated(rank as u64);
        }
    }
    h.0
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

/// A step with the runs each pass over it asks for run side by side on up to `threads` threads
/// (`ValidTrain::run_on`), biggest first, until a pass asks for none: a `TrainJob`'s passes, its
/// runs at once. Each run is the one it would be alone, so the report is `run_with`'s when asked
/// one by one. GPT-3 175B over RoCE on 512 DGX H100 (its ZeRO ReduceScatter and AllGather of
/// 1.57 M transfers each, their flows in one max-min component under ECMP) took 148 s one run
/// after the other on this 2-core machine, 86 s side by side.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn on_threads(
    train: &ValidTrain,
    topology: &Topology,
    threads: usize,
    progress: &(dyn Fn(StepProgress) + Sync),
) -> TrainReport {
    let policy = train.cluster().policy();
    let (mut known, mut memo, mut passes) = (BTreeMap::new(), Memo::default(), 0);
    loop {
        let (report, missing) = pass(train, topology, &known, &mut memo);
        if missing.is_empty() {
            return report;
        }
        passes += 1;
        let transfers = missing.iter().map(|(_, schedule, _)| schedule.transfers.len() as u64).sum();
        known.extend(side_by_side(topology, policy, missing, threads, &|runs_done, runs| {
            progress(StepProgress { pass: passes, runs_done, runs, transfers })
        }));
    }
}

/// How far a step run side by side has got (`ValidTrain::run_reporting`): its pass over the step
/// (a pass asks for the runs the one before it did not know), and of that pass's engine runs,
/// how many are done, and their transfers in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepProgress {
    pub pass: u32,
    pub runs_done: usize,
    pub runs: usize,
    pub transfers: u64,
}

/// One pass over the step with the runs `known` so far and the collectives `memo` found: its
/// report (final where nothing is missing) and the runs it asked for and did not know, in the
/// order it asked.
fn pass(
    train: &ValidTrain,
    topology: &Topology,
    known: &BTreeMap<u64, Vec<u64>>,
    memo: &mut Memo,
) -> (TrainReport, Vec<Needed>) {
    let mut runs = Runs {
        valid: train.cluster(),
        topology,
        known: Some(known),
        missing: Vec::new(),
        memo: std::mem::take(memo),
    };
    let report = train.run_with(&mut runs);
    *memo = runs.memo;
    (report, runs.missing)
}

/// Each of `needed` run to its end, on up to `threads` threads taking the next run as they
/// finish one, the biggest first: each run's key and part ends (in no particular order: they
/// are keyed).
#[cfg(not(target_arch = "wasm32"))]
fn side_by_side(
    topology: &Topology,
    policy: crate::routing::Policy,
    mut needed: Vec<Needed>,
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<(u64, Vec<u64>)> {
    use std::sync::Mutex;
    needed.sort_by_key(|(key, schedule, _)| (std::cmp::Reverse(schedule.transfers.len()), *key));
    let runs = needed.len();
    progress(0, runs);
    let workers = threads.min(needed.len());
    let todo = Mutex::new(needed.into_iter());
    let done = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some((key, schedule, ranges)) = todo.lock().ok().and_then(|mut todo| todo.next()) {
                    let ends = part_ends(&symmetry::finish_times(topology, schedule, policy), &ranges);
                    if let Ok(mut done) = done.lock() {
                        done.push((key, ends));
                        progress(done.len(), runs);
                    }
                }
            });
        }
    });
    done.into_inner().unwrap_or_default()
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
    /// The collectives the passes so far found (`Runs::memo`).
    memo: Memo,
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
        let (known, memo) = (BTreeMap::new(), Memo::default());
        TrainJob { train, topology, known, queue: Vec::new(), running: None, passes: 0, memo }
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
            let run = FinishRun::start(schedule, policy);
            self.running = Some(Running { key, ranges, run });
            return None;
        }
        self.passes += 1;
        let (report, mut missing) = pass(&self.train, &self.topology, &self.known, &mut self.memo);
        if missing.is_empty() {
            return Some(report);
        }
        missing.reverse(); // popped in the order the pass asked
        self.queue = missing;
        None
    }

    /// Passes over the step so far (each pass after the first follows runs it asked for).
    pub fn passes(&self) -> u32 {
        self.passes
    }
}
