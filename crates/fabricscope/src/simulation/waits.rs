//! What each faulted link costs a run, read off the trace: the step that waits on it longest.
//!
//! A ring's step k+1 on a channel cannot send before step k's chunk has arrived, so one slow
//! hop holds every later step of its channel; the trace shows it as the transfer over the bad
//! link taking longer than the step's other transfers of its kind (those whose slowest link is
//! of the same class: the other NIC sends, say). `FaultWait` names that step and both
//! durations (data time, `finished − started`, the latency excluded), for the page's fault
//! list and the CLI. For a steady state the trace is the prefix, whose steps repeat.

use super::Simulation;
use crate::topology::{LinkId, LinkKind};
use serde::Serialize;

/// A transfer waits on its link when it takes this much longer than its step's peers.
pub const WAITS: f64 = 1.1;

/// One faulted link and the step that waits on it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FaultWait {
    pub link: LinkId,
    /// The share of its bandwidth left (0: down).
    pub rate: f64,
    /// Transfers of the run that crossed it (either direction).
    pub transfers: u32,
    /// Steps in which a transfer over it took more than `WAITS` × its peers' median.
    pub steps_waiting: u32,
    /// The step whose transfer over it lags its peers most, with that transfer; `None` when no
    /// transfer crossed it (a down link, or one the collective does not use).
    pub worst: Option<StepWait>,
}

/// A step's transfer over a faulted link against the step's others.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepWait {
    /// 0-based.
    pub step: u32,
    pub src: u32,
    pub dst: u32,
    /// That transfer's data time [ns].
    pub slow_ns: u64,
    /// The median data time of the step's transfers of the same class (slowest link kind)
    /// over no faulted link [ns]; 0 when there is none.
    pub others_ns: u64,
}

impl Simulation {
    /// Each of the topology's faulted links and the step that waits on it (`FaultWait`), in the
    /// topology's order. One pass over the trace.
    pub fn fault_waits(&self) -> Vec<FaultWait> {
        let faults = &self.topology.faults;
        if faults.is_empty() {
            return Vec::new();
        }
        // Link → the fault it belongs to, both directions.
        let mut fault_of: Vec<Option<u32>> = vec![None; self.topology.n_links()];
        for (i, &(link, _)) in faults.iter().enumerate() {
            for id in [link, link.reverse()] {
                if let Some(slot) = fault_of.get_mut(id.index()) {
                    slot.get_or_insert(i as u32);
                }
            }
        }
        // Unfaulted transfers as (step, class, data time), sorted for the medians.
        let mut clean: Vec<(u32, LinkKind, u64)> = Vec::new();
        // Per fault, per crossing: step, class, flow index, data time.
        let mut crossings: Vec<Vec<(u32, LinkKind, usize, u64)>> = vec![Vec::new(); faults.len()];
        for (i, flow) in self.trace.flows.iter().enumerate() {
            let Some(t) = self.schedule.transfers.get(flow.transfer as usize) else { continue };
            let duration = flow.finished.as_ns().saturating_sub(flow.started.as_ns());
            let class = self.topology.path_class(&flow.path);
            let mut hit = false;
            for link in &flow.path {
                if let Some(Some(f)) = fault_of.get(link.index()) {
                    let list = &mut crossings[*f as usize];
                    // A flow crosses a cable once; its two directions are one fault.
                    if list.last().map(|c| c.2) != Some(i) {
                        list.push((t.step, class, i, duration));
                    }
                    hit = true;
                }
            }
            if !hit {
                clean.push((t.step, class, duration));
            }
        }
        crate::sort::sort(&mut clean);
        let median = |step: u32, class: LinkKind| {
            let from = clean.partition_point(|c| (c.0, c.1) < (step, class));
            let to = clean.partition_point(|c| (c.0, c.1) <= (step, class));
            if from == to {
                0
            } else {
                clean[from + (to - from) / 2].2
            }
        };
        faults
            .iter()
            .zip(&crossings)
            .map(|(&(link, rate), list)| {
                // The largest lag over the step's others; the earliest step on a tie.
                let lags: Vec<(i128, u32, usize, u64, u64)> = list
                    .iter()
                    .map(|&(step, class, i, slow)| {
                        let others = median(step, class);
                        (slow as i128 - others as i128, step, i, slow, others)
                    })
                    .collect();
                let worst = lags
                    .iter()
                    .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(b.2.cmp(&a.2)))
                    .map(|&(_, step, i, slow_ns, others_ns)| {
                        let t = &self.schedule.transfers[self.trace.flows[i].transfer as usize];
                        StepWait { step, src: t.src, dst: t.dst, slow_ns, others_ns }
                    });
                let mut waiting: Vec<u32> =
                    lags.iter().filter(|l| l.4 > 0 && l.3 as f64 > WAITS * l.4 as f64).map(|l| l.1).collect();
                waiting.sort_unstable();
                waiting.dedup();
                FaultWait {
                    link,
                    rate,
                    transfers: list.len() as u32,
                    steps_waiting: waiting.len() as u32,
                    worst,
                }
            })
            .collect()
    }
}
