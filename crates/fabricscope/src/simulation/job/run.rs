//! A job polled to its end in one go (`Job::run`): natively, NVLSTree's finer run beside the
//! model's (`chunk_fit::Ahead`); and what a job says of itself (`Debug`).

use super::Job;
use crate::scenario::ScenarioError;
use crate::simulation::chunk_fit::{Ahead, FinerTask};
use crate::simulation::Simulation;

/// Event batches `run` polls at a time until the model's run is set up (`start_ahead`).
const AHEAD_WATCH_BATCHES: u64 = 4096;

impl Job {
    /// Polls the job to its end: its result. Natively, on a machine of more than one core,
    /// NVLSTree's finer run (`chunk_fit`) starts on a thread of its own once the model's run is
    /// set up, and runs beside it: the same runs, the same result (`tests/chunk_fit.rs`).
    pub fn run(mut self) -> Result<Simulation, ScenarioError> {
        let mut watch = cfg!(not(target_arch = "wasm32"))
            && std::thread::available_parallelism().is_ok_and(|cores| cores.get() > 1);
        loop {
            if watch {
                watch = self.start_ahead();
            }
            if let Some(result) = self.poll(if watch { AHEAD_WATCH_BATCHES } else { u64::MAX }) {
                return result;
            }
        }
    }

    /// Starts NVLSTree's finer run ahead where the model's NVLSTree run is being set up and its
    /// fit will need one (`chunk_fit::Ahead`): from its channels that stand for all, as soon as
    /// they are to be built (with the symmetry the plan proved), else once the run is set up;
    /// whether to keep watching (not yet at that run).
    fn start_ahead(&mut self) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        {
            use super::Stage;
            use crate::collective::Algorithm::NvlsTree;
            let limits = (self.mode, self.tree_limit);
            let (topology, run, proved) = match &mut self.stage {
                // The symmetry still being proved: the thread waits for it rather than prove it too.
                Stage::TreeChannels { tree, .. } if !tree.proved() => return true,
                Stage::TreeChannels { topology, tree } => match tree.algorithm() {
                    (NvlsTree, protocol) => {
                        (&*topology, (protocol, self.scenario.channels()), tree.hand_proof_on())
                    }
                    _ => return true,
                },
                // A run set up from the channels that stand for all (a forced tree's row) hands
                // its proof on: the thread uses it, and the job needs it no more.
                Stage::Running { topology, schedule, plan, .. } if schedule.algorithm == NvlsTree => {
                    (&*topology, (schedule.protocol, schedule.n_channels), plan.proved.take().map(|p| *p))
                }
                Stage::Done(_) => return false,
                _ => return true,
            };
            self.ahead =
                crate::simulation::chunk_fit::Ahead::spawn(&self.scenario, topology, run, limits, proved);
            false
        }
        #[cfg(target_arch = "wasm32")]
        false
    }
}

impl Job {
    /// NVLSTree's finer run as a task for another thread, once, where `start_ahead` would start
    /// it natively: the page gives it a Web Worker while the job runs on, and hands its end back
    /// (`finer_done`); until then, or without one, the job runs it here. `None` otherwise.
    pub fn finer_task(&mut self) -> Option<FinerTask> {
        use crate::collective::Algorithm::NvlsTree;
        if self.offered || self.ahead.is_some() || self.fit.is_some() {
            return None;
        }
        let run = match &self.stage {
            super::Stage::TreeChannels { tree, .. } => match tree.algorithm() {
                (NvlsTree, protocol) => (protocol, self.scenario.channels()),
                _ => return None,
            },
            super::Stage::Running { schedule, .. } if schedule.algorithm == NvlsTree => {
                (schedule.protocol, schedule.n_channels)
            }
            _ => return None,
        };
        let task = Ahead::task(&self.scenario, run, (self.mode, self.tree_limit))?;
        self.offered = true;
        Some(task)
    }

    /// The end of the finer run `task` (`FinerTask::run`'s, where it ran elsewhere): the job's
    /// fit takes it where it is the job's finer run, and drops the run it may have begun here.
    pub fn finer_done(&mut self, task: &FinerTask, end: Option<u64>) {
        match &mut self.fit {
            Some(fit) => fit.take_given(task, end),
            None => self.ahead = Some(Ahead::given(task, end)),
        }
    }
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let stage = match &self.stage {
            super::Stage::Start => "start",
            super::Stage::Weighing { .. } => "weighing",
            super::Stage::Planning { .. } => "planning",
            super::Stage::Search { .. } => "search",
            super::Stage::TreeChannels { .. } => "tree-channels",
            super::Stage::Copies { .. } => "copies",
            super::Stage::Bounding { .. } => "bounding",
            super::Stage::Chain { .. } => "chain",
            super::Stage::BuildingTree { .. } => "building-tree",
            super::Stage::Running { .. } => "running",
            super::Stage::Expanding { .. } => "expanding",
            super::Stage::ToMeasure { .. } => "to-measure",
            super::Stage::Measuring { .. } => "measuring",
            super::Stage::Measured { .. } => "measured",
            super::Stage::Showing { .. } => "showing",
            super::Stage::Hashing { .. } => "hashing",
            super::Stage::Done(_) if self.fit.is_some() => "fitting to NCCL's chunks",
            super::Stage::Done(_) => "done",
        };
        write!(f, "Job({:?}, {stage}, {:.0}% of the current run)", self.mode, 100.0 * self.progress())
    }
}
