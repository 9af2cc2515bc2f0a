//! A collective run as a steady state: the figures that extend a simulated prefix by its
//! proved period (`engine::period`), and how a time or a step of the whole collective folds
//! back into the prefix.

use super::job::{too_big, Plan, SteadyPlan};
use super::summary::finish;
use super::Simulation;
use crate::collective::Schedule;
use crate::engine;
use crate::plan::ValidScenario;
use crate::scenario::ScenarioError;
use crate::topology::Topology;
use crate::trace::Trace;
use crate::units::SimTime;
use serde::Serialize;

/// A collective run as a steady state (`engine::period`): the simulated prefix's state at
/// `to_ns` was its state at `from_ns` shifted by `period_steps` steps, so the run from there
/// repeats that period `repeats` more times than the prefix shows, then ends as the prefix ends.
///
/// ```text
///   time   = prefix end + repeats × (to - from)
///   bytes  = prefix bytes + repeats × bytes of the flows issued in (from, to]    (per link)
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Steady {
    /// Steps of the whole collective, and of the simulated prefix.
    pub total_steps: u32,
    pub simulated_steps: u32,
    /// Transfers of the whole collective, and of the simulated prefix.
    pub total_transfers: u64,
    pub simulated_transfers: u64,
    pub from_ns: u64,
    pub to_ns: u64,
    pub period_steps: u32,
    /// Periods the whole collective has beyond the prefix.
    pub repeats: u64,
    /// The highest step first issued at or before `to_ns`.
    pub step_at_to: u32,
    /// When the prefix ended (its trace's end).
    pub prefix_end_ns: u64,
    /// Event batches the whole collective would take, counted as the prefix's plus the repeats'.
    pub batches: u64,
    /// An extrapolated ring's measuring run: the nodes whose positions stood for every node's,
    /// where turning the ring by that many nodes keeps its routes (`engine::rotation`; exact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_nodes: Option<u32>,
}

impl Steady {
    pub fn period_ns(&self) -> u64 {
        self.to_ns - self.from_ns
    }

    /// Time the repeats add.
    pub fn shift_ns(&self) -> u64 {
        self.repeats * self.period_ns()
    }

    /// A time of the whole collective as the time of the prefix that looks the same, and the
    /// steps by which the whole collective is ahead of the prefix then.
    pub fn fold(&self, t: SimTime) -> (SimTime, u32) {
        let t = t.0;
        if t <= self.to_ns {
            (SimTime(t), 0)
        } else if t > self.to_ns + self.shift_ns() {
            (SimTime(t - self.shift_ns()), (self.repeats * self.period_steps as u64) as u32)
        } else {
            // In (to + (m-1)T, to + mT]: the prefix's (from, to], m periods on.
            let m = (t - self.to_ns).div_ceil(self.period_ns());
            (SimTime(t - m * self.period_ns()), (m * self.period_steps as u64) as u32)
        }
    }

    /// The prefix step that step `step` of the whole collective repeats, and how many periods on.
    pub fn prefix_step(&self, step: u32) -> (u32, u64) {
        if step <= self.step_at_to {
            return (step, 0);
        }
        let m = ((step - self.step_at_to).div_ceil(self.period_steps) as u64).min(self.repeats);
        (step - (m * self.period_steps as u64) as u32, m)
    }
}

/// The whole collective from a prefix run and its proved period (`Steady`).
pub(super) fn steady_result(
    scenario: &ValidScenario,
    topology: Topology,
    schedule: Schedule,
    trace: Trace,
    period: engine::period::Period,
    steady: SteadyPlan,
    plan: Plan,
) -> Result<Simulation, ScenarioError> {
    let SteadyPlan { total_steps, total_transfers, unit, .. } = steady;
    let repeats = ((total_steps - schedule.n_steps) / period.steps) as u64;
    // The flows issued in (from, to] are one period's: each repeat adds their bytes.
    let mut period_bytes = vec![0u64; topology.n_links()];
    let mut in_period = 0u64;
    let mut step_at_to = 0;
    for (transfer, flow) in schedule.transfers.iter().zip(&trace.flows) {
        if flow.issued.0 <= period.to {
            step_at_to = step_at_to.max(transfer.step);
        }
        if flow.issued.0 > period.from && flow.issued.0 <= period.to {
            in_period += 1;
            for link in &flow.path {
                period_bytes[link.index()] += flow.bytes;
            }
        }
    }
    if in_period != period.steps as u64 * unit {
        return Err(too_big(scenario.scenario(), total_transfers, "its period was not whole steps"));
    }
    let steady = Steady {
        total_steps,
        simulated_steps: schedule.n_steps,
        total_transfers,
        simulated_transfers: schedule.transfers.len() as u64,
        from_ns: period.from,
        to_ns: period.to,
        period_steps: period.steps,
        repeats,
        step_at_to,
        prefix_end_ns: trace.end.0,
        measured_nodes: None,
        batches: trace.batches + repeats * period.batches,
    };
    let link_bytes =
        trace.link_bytes.iter().zip(&period_bytes).map(|(&b, &p)| (b as u64 + repeats * p) as f64).collect();
    Ok(finish(scenario, topology, schedule, trace, Some((steady, link_bytes)), plan))
}
