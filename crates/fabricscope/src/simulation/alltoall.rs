//! An AllToAll or a SendRecv too big to build whole: channel 0 alone, standing for every
//! channel where they are copies of one another (`engine::symmetry::CopiesSearch`), never
//! expanded. NCCL's AllToAll on 512 GPUs over 8 channels is 2,093,056 transfers, channel 0
//! 261,632 of them; SendRecv on 2,048 GPUs at 1 GiB is 2,097,152, channel 0 262,144.

use super::exact::{folded_stage, COMPARE_TRANSFERS};
use super::job::run_settings;
use super::stage::{Plan, Stage};
use super::weigh::{Weigh, ROUTED_PER_POLL};
use crate::collective::{Algorithm, Schedule};
use crate::engine::symmetry::CopiesSearch;
use crate::plan::{Bound, ValidScenario};
use crate::scenario::{Collective, ScenarioError};
use crate::topology::Topology;

/// Channel 0 of an AllToAll or a SendRecv, its proof being routed a piece per poll
/// (`Stage::Copies`).
pub(super) struct Copies {
    zero: Schedule,
    search: CopiesSearch,
    /// Weigh only a forced algorithm (`Job::lean`).
    lean: bool,
    /// A SendRecv beyond channel 0, `zero` one transfer per connection: run from a few nodes'
    /// sources where its ranks turn by whole nodes (`turned`), their transfers within this.
    turned: Option<u64>,
}

/// The run of channel 0 for all, where `scenario` is an AllToAll of more than `limit` transfers
/// whose channel 0 is within `copies`, or a SendRecv whose channel 0 is within `limit` (beyond
/// it, a sweep's row where `copies` is not 0 runs a few nodes' sources of channel 0 for all:
/// `turned`) (validation admits them so: `plan::Admission::Copies`): its proof routed a piece per poll
/// (`Copies::advance`), then the tuner's table from channel 0's routes and channel 0 on links of
/// a C-th of their capacity (`Copies::finish`). Its result is shown from channel 0
/// (`Job::showing_images`, `images`) or is a sweep's point (`point`); a run whose trace would be
/// expanded is refused at once. An AllToAll's point beyond channel 0 (`bounded` routes at most),
/// or whose slices differ, is bounded instead (`bounded::start`). An error that says why where
/// the channels are not copies. `None` for anything else. A `lean` job (`Job::lean`) with a
/// forced algorithm weighs that alone.
pub(super) fn beyond(
    scenario: &ValidScenario,
    topology: &Topology,
    (limit, (copies, bounded)): (u64, (u64, u64)),
    (lean, point, images): (bool, bool, bool),
) -> Option<Stage> {
    let s = scenario.scenario();
    let (n, channels, count) = (scenario.n_ranks(), scenario.channels(), s.count());
    let whole = scenario.transfers();
    let copied = matches!(s.collective, Collective::AllToAll | Collective::SendRecv);
    if !copied || n < 2 || whole <= limit {
        return None;
    }
    let name = s.collective.nccl_name();
    let refused = |why: &str| {
        let problem = format!(
            "{name} on {n} GPUs over {channels} channels is {whole} transfers, more than the engine simulates one by one ({limit}); {why}"
        );
        Some(Stage::Done(Some(Err(ScenarioError { field: "nodes".into(), problem }))))
    };
    let command = name.to_lowercase();
    if !(point || images) {
        return refused(&format!("a sweep's row (fabricscope {command}) and the page run it from channel 0, which stands for every channel, but a run whose trace is expanded needs every transfer: use fewer nodes or channels"));
    }
    let uneven = "its channels move slices of different sizes, so channel 0 does not stand for them: use fewer nodes or channels, or a size that splits evenly over them";
    // Channel 0, and the runs its transfers take turns in with the other channels'.
    let (zero, run, turned) = if s.collective == Collective::SendRecv {
        // Each channel's pipeline of the same chunks over the same connections, one channel
        // after another.
        if count % channels as u64 != 0 {
            return refused(uneven);
        }
        let chunks = crate::collective::sendrecv_chunks(count, channels);
        // A batch of its moves a chunk per connection at most: the caller's limit holds it.
        if n as u64 * chunks as u64 > limit {
            // Beyond channel 0: a sweep's row, where the caller runs channel 0 for all, from a
            // few nodes' sources (`turned`), proved from one transfer per connection.
            if !point || copies == 0 {
                return refused(
                    "even channel 0 alone is beyond it: use fewer nodes, or a smaller size_bytes",
                );
            }
            (crate::collective::sendrecv_connections(n, count, channels), n as usize, Some(limit))
        } else {
            let zero = crate::collective::sendrecv_channel_zero(n, count, channels);
            let run = zero.transfers.len();
            (zero, run, None)
        }
    } else {
        let pairs = n as u64 * (n as u64 - 1);
        // Every channel's slice of a block alike: the block splits evenly over the channels.
        let split = channels >= 2 && (count / n as u64) % channels as u64 == 0;
        if pairs > copies || !split {
            // A sweep's row beyond channel 0's run, or whose slices differ, or the page's run
            // to show: bounded by max-min sharing from channel 0's routes (`bounded`), which
            // needs neither.
            if bounded > 0 {
                return super::bounded::start(scenario, topology, bounded)
                    .map_or_else(|why| refused(&why), Some);
            }
            return refused(match pairs > copies {
                true => "even channel 0 alone is beyond it: a sweep's row (fabricscope alltoall) bounds it, a run to show needs fewer nodes",
                false => uneven,
            });
        }
        // Each step's n transfers, channel by channel.
        (crate::collective::alltoall_channel_zero(n, count, channels), n as usize, None)
    };
    let Some(search) = CopiesSearch::start(topology, &zero, scenario.policy(), run) else {
        return refused(super::bounded::NOT_ALIKE);
    };
    Some(Stage::Copies {
        topology: topology.clone(),
        copies: Box::new(Copies { zero, search, lean, turned }),
    })
}

impl Copies {
    /// Routes `ROUTED_PER_POLL` more of channel 0's transfers; true once all are.
    pub fn advance(&mut self, topology: &Topology) -> bool {
        self.search.advance(topology, &self.zero, ROUTED_PER_POLL)
    }

    /// The proof done: the tuner's table as the exact plan makes it (`exact::start_exact`: P2P's
    /// bound, the whole's to the bit from channel 0's routes, `Symmetry::whole_link_bytes`;
    /// Bruck's beside it where it stays small), then channel 0's run on the folded links.
    pub fn finish(self, scenario: &ValidScenario, topology: Topology) -> Stage {
        let s = scenario.scenario();
        let Copies { mut zero, search, lean, turned } = self;
        let symmetry = search.finish(&topology, &zero);
        let paths = symmetry.channel_zero_paths();
        let bound = Bound::of_paths(&topology, &zero, paths, |bytes| symmetry.whole_link_bytes(bytes));
        let mut bounds = vec![(Algorithm::Direct, bound.ns(&topology))];
        let (g, count, channels) = (scenario.preset().gpus_per_node, s.count(), scenario.channels());
        let bruck = crate::collective::transfer_count_with(
            s.collective,
            Some(Algorithm::Bruck),
            s.nodes,
            g,
            count,
            channels,
        );
        let alltoall = s.collective == Collective::AllToAll;
        if alltoall && !(lean && s.algorithm.is_some()) && bruck <= COMPARE_TRANSFERS {
            let (algorithm, _, ns) =
                Weigh::start(scenario, Algorithm::Bruck, count).finish(scenario, &topology);
            bounds.push((algorithm, ns));
        }
        let (plan, pick): (Plan, _) = Plan::tuned(scenario, bounds);
        let protocol = s.protocol.unwrap_or(pick.protocol);
        if let Some(limit) = turned {
            return super::turned::start(scenario, topology, (symmetry, plan), (protocol, limit));
        }
        zero.protocol = protocol;
        run_settings(&mut zero, scenario);
        folded_stage(scenario, topology, (symmetry, zero, None), plan)
    }
}
