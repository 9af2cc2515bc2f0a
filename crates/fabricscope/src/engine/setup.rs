//! A run set up a piece at a time (`Setup`), and freed a piece at a time (`Run::shed`), for a
//! caller that must stay responsive: the page's chain run on fewer nodes has 400,000 transfers,
//! whose flow records and dependents took 49 ms natively to set up in one piece and over 100 to
//! free. `Run::new` sets up the same flows in one piece: the same run, bit for bit.

use super::{wire_bytes, Run};
use crate::collective::Schedule;
use crate::routing::Policy;
use crate::topology::Topology;
use crate::trace::FlowRecord;

/// A schedule's flows being set up: for each transfer, its flow record, the flows that wait on
/// it, and how many it waits on.
pub struct Setup {
    pub(super) flows: Vec<FlowRecord>,
    pub(super) dependents: Vec<Vec<u32>>,
    pub(super) deps_left: Vec<u32>,
}

impl Setup {
    pub fn new(schedule: &Schedule) -> Setup {
        let n_flows = schedule.transfers.len();
        Setup {
            flows: Vec::with_capacity(n_flows),
            dependents: vec![Vec::new(); n_flows],
            deps_left: Vec::with_capacity(n_flows),
        }
    }

    /// Sets up to `transfers` more of `schedule`'s transfers up, in order; true once every one is.
    pub fn advance(&mut self, topology: &Topology, schedule: &Schedule, transfers: usize) -> bool {
        let from = self.flows.len();
        let to = from.saturating_add(transfers).min(schedule.transfers.len());
        for (index, transfer) in schedule.transfers.iter().enumerate().take(to).skip(from) {
            self.flows.push(FlowRecord::new(
                index as u32,
                Vec::new(),
                wire_bytes(topology, schedule, transfer),
            ));
            for &dep in &transfer.deps {
                self.dependents[dep as usize].push(index as u32);
            }
            self.deps_left.push(transfer.deps.len() as u32);
        }
        to == schedule.transfers.len()
    }

    /// The run, once `advance` has set every transfer up: as `Run::new` makes it.
    pub fn run(self, topology: &Topology, schedule: &Schedule, policy: Policy) -> Run {
        Run::set_up(topology, schedule, policy, (None, None), self)
    }
}

impl Run {
    /// Frees up to `flows` more of a run's flows (their paths and rate segments) and the lists
    /// of the flows waiting on them, the last first; true once none is left. For a run over
    /// whose figures have been read: `finishes` and `end` then read only the flows left.
    pub fn shed(&mut self, flows: usize) -> bool {
        let left = self.flows.len().saturating_sub(flows);
        self.flows.truncate(left);
        self.dependents.truncate(left);
        self.flows.is_empty()
    }
}
