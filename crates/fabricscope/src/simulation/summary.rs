//! A finished run as a `Simulation`: when each step started, the nccl-tests figures (`Summary`)
//! and the bottleneck link.

use super::job::Plan;
use super::steady::Steady;
use super::steps::index_steps;
use super::Simulation;
use crate::collective::Schedule;
use crate::plan::ValidScenario;
use crate::topology::{LinkId, Topology};
use crate::trace::Trace;
use crate::units::SimTime;
use serde::{Deserialize, Serialize};

/// How a run's figures were obtained: every summary says which (CLI, JSON, page, captions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Method {
    /// Every transfer simulated by the engine.
    #[serde(rename = "exact")]
    Exact,
    /// A simulated prefix extended by its proved period (`Steady`): equal to `Exact`, bit for
    /// bit, where both run (`tests/steady.rs`).
    #[serde(rename = "steady state")]
    SteadyState,
    /// Every transfer of channel 0 simulated, the other channels its images under a proved
    /// symmetry (`engine::symmetry`): the exact run's times to the nanosecond and its rates to
    /// the last bits of a sum taken in another order (`tests/symmetry.rs`: rings bit for bit).
    #[serde(rename = "exact by symmetry")]
    Symmetric,
    /// A simulated prefix extended by a per-step time measured on a longer prefix (`fluid`):
    /// within `EXTRAPOLATION_BOUND` (3%) of `Exact` on time, bus bandwidth and every link's bytes
    /// over `tests/fidelity.rs`'s matrix. Used where a ring too big to run whole never repeats
    /// exactly.
    #[serde(rename = "extrapolated steady state (±3%)")]
    Extrapolated,
    /// NVLSTree cut into fewer chunks than NCCL cuts, run again at twice as many and its time
    /// fitted to NCCL's count (`chunk_fit`): within `CHUNK_FIT_BOUND` (1%) of a run cut into
    /// NCCL's every chunk over `tests/chunk_fit.rs`'s matrix; link bytes exact.
    #[serde(rename = "fitted to NCCL's chunks (±1%)")]
    ChunkFit,
    /// No engine run: an AllToAll whose every flow starts at once, each of the same bytes,
    /// bounded by max-min sharing from its routes alone (`bounded`). The time is the lower
    /// bound, the busiest link's bytes from its first flow's start; the exact run is proved no
    /// later than `Simulation::bounded`'s upper bound (every flow gets at least its links'
    /// capacity over their flow counts). `tests/bounded.rs` holds `Exact` within the two.
    #[serde(rename = "max-min bound")]
    Bounded,
    /// A Broadcast's or Reduce's chain run on fewer nodes, every transfer simulated, and
    /// extrapolated to the rest from the paces of its wave's head and tail (`chain`): within
    /// `CHAIN_BOUND` (1%) of `Exact` on time over `tests/chain.rs`'s matrix; link bytes exact.
    #[serde(rename = "extrapolated chain (±1%)")]
    Chain,
}

impl Method {
    /// Its name, as the JSON and the CLI's `#` lines print it.
    pub fn name(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::SteadyState => "steady state",
            Method::Symmetric => "exact by symmetry",
            Method::Extrapolated => "extrapolated steady state (±3%)",
            Method::ChunkFit => "fitted to NCCL's chunks (±1%)",
            Method::Bounded => "max-min bound",
            Method::Chain => "extrapolated chain (±1%)",
        }
    }
}

/// The numbers nccl-tests prints, and the bottleneck.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// How they were obtained.
    pub method: Method,
    pub size_bytes: u64,
    pub n_ranks: u32,
    pub time: SimTime,
    /// size / time [GB/s] (nccl-tests `algbw`).
    pub algbw_gbyte_per_s: f64,
    /// algbw × the collective's factor [GB/s] (nccl-tests `busbw`).
    pub busbw_gbyte_per_s: f64,
    /// The link with the highest mean utilisation over the run.
    pub bottleneck: Option<LinkId>,
    pub bottleneck_utilisation: f64,
}

/// The simulation around a run: step starts and index, summary.
pub(super) fn finish(
    scenario: &ValidScenario,
    topology: Topology,
    schedule: Schedule,
    trace: Trace,
    steady: Option<(Steady, Vec<f64>)>,
    plan: Plan,
) -> Simulation {
    let Plan { tuning, bounds, intra, folded, extrapolated, rotated, stride, parts, copies, capped, .. } =
        plan;
    let (steady, link_bytes) = match steady {
        Some((steady, bytes)) => (Some(steady), bytes),
        None => (None, trace.link_bytes.clone()),
    };
    let end = SimTime(trace.end.0 + steady.map_or(0, |s: Steady| s.shift_ns()));
    let method = match (steady.is_some(), folded) {
        (true, _) if extrapolated => Method::Extrapolated,
        (true, _) => Method::SteadyState,
        (false, true) => Method::Symmetric,
        (false, false) => Method::Exact,
    };
    let summary = summarise(scenario, &topology, end, &link_bytes, method);
    let focus_rank = focus_rank(&topology, &scenario.preset().rings[0]);
    // A step's start is when the followed rank's channel-0 transfer was issued, or, in a step
    // where that rank sends nothing (a broadcast's chain), the step's first channel-0 transfer.
    let mut followed = vec![SimTime(u64::MAX); schedule.n_steps as usize];
    let mut any = vec![SimTime(u64::MAX); schedule.n_steps as usize];
    for (transfer, flow) in schedule.transfers.iter().zip(&trace.flows) {
        if transfer.channel == 0 {
            let k = transfer.step as usize;
            // A SendRecv's chunks are all issued at once, each then waiting for its connection:
            // its steps start when their data moves.
            let at = match schedule.collective == crate::scenario::Collective::SendRecv {
                true => flow.started,
                false => flow.issued,
            };
            any[k] = any[k].min(at);
            if transfer.src == focus_rank {
                followed[k] = followed[k].min(at);
            }
        }
    }
    let mut step_starts: Vec<SimTime> =
        followed.iter().zip(&any).map(|(&f, &a)| if f.0 == u64::MAX { a } else { f }).collect();
    // Keep them in order, so "the step at t" is well defined.
    for k in 1..step_starts.len() {
        step_starts[k] = step_starts[k].max(step_starts[k - 1]);
    }
    if let Some(steady) = &steady {
        // The whole collective's steps: each one a prefix step, whole periods later.
        step_starts = (0..steady.total_steps)
            .map(|step| {
                let (prefix_step, m) = steady.prefix_step(step);
                SimTime(step_starts[prefix_step as usize].0 + m * steady.period_ns())
            })
            .collect();
    }
    let step_index = index_steps(&schedule, focus_rank);
    // NVLSTree cut coarser than the model's chunks: the fit it could not make.
    let chunk_fit =
        capped.map(|fit| super::chunk_fit::ChunkFit { runs: method, run_ns: summary.time.0, ..fit });
    Simulation {
        steady,
        chunk_fit,
        rounded: None,
        rotated,
        stride,
        parts,
        copies,
        images: None,
        bounded: None,
        chain: None,
        link_bytes,
        step_index,
        trace_hash: std::sync::OnceLock::new(),
        scenario: scenario.clone(),
        topology,
        schedule,
        trace,
        summary,
        focus_rank,
        step_starts,
        tuning,
        tuning_bounds: bounds,
        tuning_intra: intra,
    }
}

/// The rank to follow: on several nodes the one whose channel-0 send leaves its node (the last
/// of the node's ring order, so the story shows the NIC), else the ring's first GPU.
fn focus_rank(topology: &Topology, intra: &[u32]) -> u32 {
    if topology.n_nodes() > 1 {
        intra[intra.len() - 1]
    } else {
        intra[0]
    }
}

/// `sim`'s figures at time `end` rather than its run's (`chunk_fit`), obtained by `method`:
/// the same link bytes over another time.
pub(super) fn refit(sim: &mut Simulation, end: SimTime, method: Method) {
    sim.summary = summarise(&sim.scenario, &sim.topology, end, &sim.link_bytes, method);
}

fn summarise(
    scenario: &ValidScenario,
    topology: &Topology,
    end: SimTime,
    link_bytes: &[f64],
    method: Method,
) -> Summary {
    let size_bytes = scenario.scenario().size_bytes;
    let n_ranks = scenario.n_ranks();
    let time_ns = end.0.max(1) as f64;
    let algbw = size_bytes as f64 / time_ns;
    let mean = crate::trace::mean_utilisation(topology, end, link_bytes);
    let bottleneck = mean.iter().enumerate().filter(|(_, &u)| u > 0.0).fold(
        None,
        |best: Option<(usize, f64)>, (i, &u)| match best {
            Some((_, b)) if b >= u => best,
            _ => Some((i, u)),
        },
    );
    Summary {
        method,
        size_bytes,
        n_ranks,
        time: end,
        algbw_gbyte_per_s: if end.0 == 0 { 0.0 } else { algbw },
        busbw_gbyte_per_s: if end.0 == 0 {
            0.0
        } else {
            algbw * scenario.scenario().collective.busbw_factor(n_ranks)
        },
        bottleneck: bottleneck.map(|(i, _)| LinkId(i as u32)),
        bottleneck_utilisation: bottleneck.map(|(_, u)| u).unwrap_or(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::Method;

    /// The extrapolation's label carries its bound, as the JSON's name must spell it out.
    #[test]
    fn the_extrapolated_label_names_its_bound() {
        let bound = format!("(±{:.0}%)", 100.0 * super::super::EXTRAPOLATION_BOUND);
        assert!(Method::Extrapolated.name().ends_with(&bound));
        let bound = format!("(±{:.0}%)", 100.0 * super::super::CHUNK_FIT_BOUND);
        assert!(Method::ChunkFit.name().ends_with(&bound));
        let bound = format!("(±{:.0}%)", 100.0 * super::super::CHAIN_BOUND);
        assert!(Method::Chain.name().ends_with(&bound));
        for method in [
            Method::Exact,
            Method::SteadyState,
            Method::Symmetric,
            Method::Extrapolated,
            Method::ChunkFit,
            Method::Bounded,
            Method::Chain,
        ] {
            let json = serde_json::to_string(&method).unwrap();
            assert_eq!(json, format!("\"{}\"", method.name()));
        }
    }
}
