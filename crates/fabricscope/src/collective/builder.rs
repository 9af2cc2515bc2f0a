//! Schedules too long to build between two frames, built a piece at a time: `ScheduleBuilder`
//! is the one place that says which (`schedule_with` builds them through it, and the tuner's
//! weighing a piece per poll, `simulation::weigh`).

use super::hierarchical::HierarchicalBuilder;
use super::nvls_tree::NvlsTreeBuilder;
use super::textbook::AllPairsBuilder;
use super::tree::TreeBuilder;
use super::{Algorithm, Protocol, Schedule};
use crate::scenario::Collective;

/// A schedule built a piece at a time: NVLSTree's and all-pairs' a channel per piece,
/// Hierarchical's and CollNet's `TRANSFERS_PER_PIECE` transfers.
pub enum ScheduleBuilder {
    NvlsTree(NvlsTreeBuilder),
    Hierarchical(HierarchicalBuilder),
    AllPairs(AllPairsBuilder),
}

/// Transfers of a Hierarchical or CollNet schedule built per piece (about 6 ms natively).
const TRANSFERS_PER_PIECE: usize = 32_768;

impl ScheduleBuilder {
    /// The builder of `algorithm`'s `collective` where it is built a piece at a time (NVLSTree,
    /// Hierarchical and CollNet AllReduce; all-pairs), else `None` (built in one go).
    pub fn of<R: AsRef<[u32]>>(
        collective: Collective,
        algorithm: Algorithm,
        nodes: u32,
        rings: &[R],
        count: u64,
        n_channels: u32,
    ) -> Option<ScheduleBuilder> {
        use Collective::{AllGather, AllReduce, ReduceScatter};
        let g = rings[0].as_ref().len() as u32;
        Some(match (collective, algorithm) {
            (AllReduce, Algorithm::NvlsTree) => {
                ScheduleBuilder::NvlsTree(NvlsTreeBuilder::new(nodes, g, count, n_channels))
            }
            (AllReduce, Algorithm::Hierarchical | Algorithm::CollNet) => {
                let sharp = algorithm == Algorithm::CollNet;
                ScheduleBuilder::Hierarchical(HierarchicalBuilder::new(
                    nodes, rings, count, n_channels, sharp,
                ))
            }
            (AllReduce | AllGather | ReduceScatter, Algorithm::AllPairs) => {
                ScheduleBuilder::AllPairs(AllPairsBuilder::new(collective, nodes * g, count, n_channels))
            }
            _ => return None,
        })
    }

    /// Builds one more piece; true once the schedule is built.
    pub fn advance(&mut self) -> bool {
        match self {
            ScheduleBuilder::NvlsTree(builder) => builder.channel(),
            ScheduleBuilder::Hierarchical(builder) => builder.advance(TRANSFERS_PER_PIECE),
            ScheduleBuilder::AllPairs(builder) => builder.channel(),
        }
    }

    /// The schedule, once `advance` said it is built.
    pub fn finish(self) -> Schedule {
        match self {
            ScheduleBuilder::NvlsTree(builder) => builder.finish(),
            ScheduleBuilder::Hierarchical(builder) => builder.finish(),
            ScheduleBuilder::AllPairs(builder) => builder.finish(),
        }
    }

    /// The first `channels` channels of `algorithm`'s AllReduce (Tree or NVLSTree, built a
    /// channel per `advance_to`), numbered as the whole's: what a run folded by its channels runs
    /// (`simulation::tree_channels`); of each, part 0 alone where `part_zero` (NVLSTree whose
    /// parts fold too, `engine::symmetry::Lanes::Parts`), a Tree's in `protocol`'s chunks
    /// (`tree::tree_chunks`). `None` for another algorithm.
    pub fn first_channels<R: AsRef<[u32]>>(
        (algorithm, protocol): (Algorithm, Protocol),
        nodes: u32,
        rings: &[R],
        count: u64,
        (n_channels, part_zero): (u32, bool),
    ) -> Option<FirstChannels> {
        let g = rings[0].as_ref().len() as u32;
        match algorithm {
            Algorithm::Tree => {
                Some(FirstChannels::Tree(TreeBuilder::new(nodes, rings, count, (n_channels, protocol))))
            }
            Algorithm::NvlsTree if part_zero => {
                Some(FirstChannels::NvlsTree(NvlsTreeBuilder::part_zero(nodes, g, count, n_channels)))
            }
            Algorithm::NvlsTree => {
                Some(FirstChannels::NvlsTree(NvlsTreeBuilder::new(nodes, g, count, n_channels)))
            }
            _ => None,
        }
    }

    /// The schedule, built whole.
    pub fn build(mut self) -> Schedule {
        while !self.advance() {}
        self.finish()
    }
}

/// A tree's first channels built a channel at a time (`ScheduleBuilder::first_channels`).
pub enum FirstChannels {
    Tree(TreeBuilder),
    NvlsTree(NvlsTreeBuilder),
}

impl FirstChannels {
    /// Channels built so far.
    pub fn built(&self) -> u32 {
        match self {
            FirstChannels::Tree(builder) => builder.built(),
            FirstChannels::NvlsTree(builder) => builder.built(),
        }
    }

    /// The same builder cutting NVLSTree's parts into at most `cap` chunks
    /// (`NvlsTreeBuilder::with_cap`); a Tree's unchanged. Before any channel is built.
    pub fn with_cap(self, cap: u64) -> FirstChannels {
        match self {
            FirstChannels::NvlsTree(builder) => FirstChannels::NvlsTree(builder.with_cap(cap)),
            tree => tree,
        }
    }

    /// Builds one more channel unless `channels` are; true once they are.
    pub fn advance_to(&mut self, channels: u32) -> bool {
        let built = self.built();
        if built >= channels {
            return true;
        }
        match self {
            FirstChannels::Tree(builder) => builder.channel(),
            FirstChannels::NvlsTree(builder) => builder.channel(),
        };
        built + 1 >= channels
    }

    /// The schedule of the channels built.
    pub fn finish(self) -> Schedule {
        match self {
            FirstChannels::Tree(builder) => builder.finish_built(),
            FirstChannels::NvlsTree(builder) => builder.finish_built(),
        }
    }
}
