//! What each step of a collective does, as data (`StepInfo`): the page and the CLI put it into
//! words. A step is followed through one rank's channel-0 transfer (`Simulation::focus_rank`).

use super::Simulation;
use crate::collective::{Algorithm, ChunkOp, Hop, Phase, Schedule};
use crate::topology::LinkKind;
use serde::Serialize;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct StepIndex {
    transfers: u32,
    focus: Option<u32>,
    example: Option<u32>,
}

/// One pass over the schedule: each step's count, followed transfer and example.
pub(super) fn index_steps(schedule: &Schedule, focus_rank: u32) -> Vec<StepIndex> {
    let mut index = vec![StepIndex::default(); schedule.n_steps as usize];
    let mut focus_is_rank = vec![false; index.len()];
    let mut example_is_rank = vec![false; index.len()];
    for (i, t) in schedule.transfers.iter().enumerate() {
        let Some(entry) = index.get_mut(t.step as usize) else { continue };
        let k = t.step as usize;
        entry.transfers += 1;
        let i = i as u32;
        if t.channel == 0 && (entry.focus.is_none() || (!focus_is_rank[k] && t.src == focus_rank)) {
            entry.focus = Some(i);
            focus_is_rank[k] = t.src == focus_rank;
        }
        if entry.example.is_none() || (!example_is_rank[k] && t.src == focus_rank) {
            entry.example = Some(i);
            example_is_rank[k] = t.src == focus_rank;
        }
    }
    index
}

/// What the current step does, as data; the page and the CLI put it into words.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepInfo {
    /// 0-based.
    pub step: u32,
    pub n_steps: u32,
    pub phase: Phase,
    /// Transfers in this step (all channels).
    pub transfers: u32,
    /// One transfer of the step, the lowest-channel one sent by `focus_rank`.
    pub src: u32,
    pub dst: u32,
    pub chunk: u32,
    pub channel: u32,
    pub op: ChunkOp,
    pub bytes: u64,
    /// The slowest link class the example transfer crosses.
    pub via: LinkKind,
    /// Peer to peer, or up to or down from a switch that reduces (NVLS).
    pub hop: Hop,
    /// The protocol, where each hop forwards its data a line at a time as it arrives, so a chunk
    /// is on several hops at once (`Schedule::streamed`: a chain under LL or LL128).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub streamed: Option<crate::collective::Protocol>,
}

impl Simulation {
    /// The followed transfer of `step`: `focus_rank`'s send on channel 0.
    /// For a steady state, the prefix's transfer that step repeats.
    pub fn focus_transfer(&self, step: u32) -> Option<u32> {
        let step = self.steady.map_or(step, |s| s.prefix_step(step).0);
        self.step_index.get(step as usize).and_then(|s| s.focus)
    }

    /// Describes `step`, using the transfer that `focus_rank` sends (the simulation's own
    /// `focus_rank` is indexed; another one is looked up).
    pub fn step_info(&self, step: u32, focus_rank: u32) -> Option<StepInfo> {
        if let Some(steady) = self.steady.filter(|s| step < s.total_steps) {
            // A later step of a steady state is a prefix step with the chunks moved on: every
            // ring collective's position p handles chunk (p - step - shift) mod n.
            let (prefix_step, _) = steady.prefix_step(step);
            let mut info = self.prefix_step_info(prefix_step, focus_rank)?;
            let n = self.schedule.n_ranks;
            info.chunk = (info.chunk + n - (step - prefix_step) % n) % n;
            info.step = step;
            info.n_steps = steady.total_steps;
            info.phase = self.schedule.phase(step);
            info.op = match info.phase {
                Phase::ReduceScatter => ChunkOp::Reduce,
                _ => ChunkOp::Copy,
            };
            return Some(info);
        }
        self.prefix_step_info(step, focus_rank)
    }

    fn prefix_step_info(&self, step: u32, focus_rank: u32) -> Option<StepInfo> {
        let (transfers, index) = if focus_rank == self.focus_rank {
            let entry = self.step_index.get(step as usize)?;
            (entry.transfers, entry.example? as usize)
        } else {
            let in_step = self.schedule.transfers.iter().enumerate().filter(|(_, t)| t.step == step);
            let index =
                in_step.clone().find(|(_, t)| t.src == focus_rank).or_else(|| in_step.clone().next())?.0;
            (in_step.count() as u32, index)
        };
        // Shown by symmetry (`images`), each transfer that ran stands for its images, in its step.
        let transfers = transfers * self.images.as_ref().map_or(1, |images| images.share() as u32);
        let example = &self.schedule.transfers[index];
        Some(StepInfo {
            step,
            n_steps: self.schedule.n_steps,
            // A tree step's phase is its direction: reducing up or broadcasting down.
            phase: match (self.schedule.algorithm, example.op) {
                (Algorithm::Tree, ChunkOp::Reduce) => Phase::Reduce,
                (Algorithm::Tree, ChunkOp::Copy) => Phase::Broadcast,
                // Hierarchical, CollNet, NVLSTree, halving-doubling and all-pairs AllReduce:
                // reducing phases, then copying ones.
                (
                    Algorithm::Hierarchical
                    | Algorithm::CollNet
                    | Algorithm::NvlsTree
                    | Algorithm::HalvingDoubling
                    | Algorithm::AllPairs,
                    ChunkOp::Reduce,
                ) => Phase::ReduceScatter,
                (
                    Algorithm::Hierarchical
                    | Algorithm::CollNet
                    | Algorithm::NvlsTree
                    | Algorithm::HalvingDoubling
                    | Algorithm::AllPairs,
                    ChunkOp::Copy,
                ) => Phase::AllGather,
                // NVLS alternates: the switch reduces (a reduce-scatter), then multicasts.
                (Algorithm::Nvls, _) if step % 2 == 0 => Phase::ReduceScatter,
                (Algorithm::Nvls, _) => Phase::AllGather,
                _ => self.schedule.phase(step),
            },
            transfers,
            src: example.src,
            dst: example.dst,
            chunk: example.chunk,
            channel: example.channel,
            op: example.op,
            bytes: example.bytes(),
            via: self.topology.path_class(&self.trace.flows[index].path),
            hop: example.hop,
            streamed: self.schedule.streamed().then_some(self.schedule.protocol),
        })
    }
}
