//! A ring too big to simulate whole that never repeats exactly (NCCL's 8 channels sharing
//! NVLink make the exact run aperiodic), run as an *extrapolated* steady state
//! (`Method::Extrapolated`): the steady-state search's prefix, extended by a per-step time
//! measured on a longer simulated prefix.
//!
//! ```text
//!   λ      = max( (F(b) - F(a)) / (b - a),  floor )      F(k): when the last transfer of step k
//!            a = K/4, b = K - 2·NCCL_STEPS                finished in a K-step prefix (K ≤ 128)
//!   time   = shown prefix's end + (steps - shown steps) × λ
//!   bytes  = shown prefix's bytes + (steps - shown steps) × one step's bytes   (per link: exact)
//! ```
//!
//! The measured prefix runs channel 0 alone where the channels fold (`engine::symmetry`), and of
//! it the first few nodes' positions where the ring turns by whole nodes (`engine::rotation`,
//! `Steady::measured_nodes`; both exact); up to
//! the time a transfer of step K would be issued it *is* the whole ring, so `F(k)` for k well
//! short of K is the whole run's. The floor (`engine::fluid::ring_floor`) is a proved lower
//! bound on λ. At 8 channels the exact engine's per-step times wander over windows of 16 steps
//! as channels drift on the links they share, and a measured λ cannot be closer to one exact run
//! than that run is to its neighbours (its total moved by 2.3% for a message 0.1% larger while a
//! step's latency added the links' to NCCL's figure, by 0.1% since). Over the contract's matrix
//! the result is within `EXTRAPOLATION_BOUND` (3%) of every transfer simulated, which is what the
//! label says: its worst is 1.4%.
//!
//! It is written as a `Steady` whose period is one step lasting λ (rounded to the ns), so the
//! page's frames and step starts after the shown prefix's middle repeat its step there, as a
//! proved steady state's repeat its period.

use super::job::Plan;
use super::rotate::rotated_ring;
use super::steady::Steady;
use super::summary::finish;
use super::Simulation;
use crate::collective::{Schedule, NCCL_STEPS};
use crate::engine;
use crate::engine::fluid::RingFloor;
use crate::engine::symmetry::Fold;
use crate::plan::ValidScenario;
use crate::plan::LEAST_MEASURED_STEPS;
use crate::topology::Topology;
use crate::trace::Trace;

/// What an extrapolated steady state is within, on time, bus bandwidth and each link's bytes,
/// of every transfer simulated, over `tests/fidelity.rs`'s matrix: its worst, 1.4%, a RoCE
/// AllGather of 256 MiB on 8 DGX H100 at 8 channels, whose channels drift on the links they
/// share.
pub const EXTRAPOLATION_BOUND: f64 = 0.03;

/// Steps of the prefix λ is measured on, at most (at least `plan::LEAST_MEASURED_STEPS`).
pub const MEASURED_STEPS: u32 = 128;

/// The measuring run: a K-step prefix, channel 0 alone on the folded links where the shown
/// prefix's channels were proved images of one another (a ring's steps all use the same
/// connections with the same bytes and dependencies, so the proof for its first steps holds for
/// any number of them), every channel otherwise; and of channel 0 the positions of a few nodes
/// alone where turning the ring by whole nodes keeps its routes (`engine::rotation`).
pub(super) struct Measure {
    run: engine::Run,
    schedule: Schedule,
    k: u32,
    /// Nodes whose positions stood for the ring, where a rotation folded it.
    pub rotated: Option<u32>,
}

/// What the shown prefix's run proved: its channels' fold and channel 0's routed paths of one
/// step, position for position (`Symmetry::channel_zero_paths`).
pub(super) type ChannelFold = (Fold, Vec<Vec<crate::topology::LinkId>>);

impl Measure {
    /// Sets the measuring prefix up: as many steps as `MEASURED_STEPS` and `cap` transfers (the
    /// caller's `Budget::measured`) allow, or `None` below `LEAST_MEASURED_STEPS`.
    pub fn start(
        scenario: &ValidScenario,
        topology: &Topology,
        protocol: crate::collective::Protocol,
        total_steps: u32,
        (channel_fold, cap): (Option<ChannelFold>, u64),
    ) -> Option<Measure> {
        let s = scenario.scenario();
        let (n, channels) = (scenario.n_ranks() as u64, scenario.channels());
        let rings = &scenario.preset().rings;
        let proof = channel_fold.as_ref().map(|(fold, paths)| (fold, paths.as_slice()));
        let steps = MEASURED_STEPS.min(total_steps - 1);
        let mut rotated = rotated_ring(scenario, topology, protocol, proof, steps);
        let per_step = match (&rotated, &channel_fold) {
            (Some(r), _) => r.rotation.nodes as u64 * n / s.nodes as u64,
            (None, Some(_)) => n,
            (None, None) => n * channels as u64,
        };
        let k = steps.min((cap / per_step.max(1)) as u32);
        if k < LEAST_MEASURED_STEPS {
            return None;
        }
        if k < steps && rotated.is_some() {
            // A class too big for every step: the same rotation over fewer steps.
            rotated = rotated_ring(scenario, topology, protocol, proof, k);
        }
        let (schedule, fold, rotated) = match rotated {
            Some(r) => (r.schedule, Some(r.rotation.fold), Some(r.rotation.nodes)),
            None => {
                let mut schedule = match channel_fold {
                    Some(_) => crate::collective::ring_prefix_channel_zero(
                        s.collective,
                        s.nodes,
                        rings,
                        s.count(),
                        channels,
                        k,
                    )?,
                    None => {
                        crate::collective::ring_prefix(s.collective, s.nodes, rings, s.count(), channels, k)?
                            .0
                    }
                };
                schedule.protocol = protocol;
                super::job::run_settings(&mut schedule, scenario);
                (schedule, channel_fold.map(|(fold, _)| fold), None)
            }
        };
        let run = match fold {
            Some(fold) => engine::Run::new_folded(topology, &schedule, scenario.policy(), fold),
            None => engine::Run::new(topology, &schedule, scenario.policy(), None),
        }
        .untraced();
        Some(Measure { run, schedule, k, rotated })
    }

    /// Handles up to `batches` event batches; true once the prefix has run.
    pub fn advance(&mut self, topology: &Topology, batches: u64) -> bool {
        self.run.advance(topology, &self.schedule, batches)
    }

    /// The measured per-step time [ns], once `advance` said the run is over.
    pub fn step_ns(self, topology: &Topology) -> f64 {
        let mut front = vec![0u64; self.k as usize];
        for (transfer, finished) in self.schedule.transfers.iter().zip(self.run.finishes()) {
            let at = &mut front[transfer.step as usize];
            *at = (*at).max(finished.0);
        }
        if cfg!(debug_assertions) {
            // Debug builds record the trace (`Run::untraced`), and `finish` checks the engine's
            // invariants on it.
            drop(self.run.finish(topology));
        }
        let (a, b) = (self.k / 4, self.k - 2 * NCCL_STEPS);
        front[b as usize].saturating_sub(front[a as usize]) as f64 / (b - a) as f64
    }
}

/// The whole ring of `total_steps` steps (`total_transfers` transfers) from its shown prefix
/// (`schedule`, `trace`), the measured per-step time and the floor.
pub(super) fn extrapolated(
    scenario: &ValidScenario,
    topology: Topology,
    (schedule, trace): (Schedule, Trace),
    (total_steps, total_transfers): (u32, u64),
    (measured_ns, measured_nodes, floor): (f64, Option<u32>, &RingFloor),
    plan: Plan,
) -> Simulation {
    let simulated_steps = schedule.n_steps;
    let repeats = (total_steps - simulated_steps) as u64;
    let step_ns = (measured_ns.max(floor.step_ns).round() as u64).max(1);
    // The repeated step: the prefix's middle one, once every transfer of it has been issued
    // (past the pipeline's fill, before its drain).
    let middle = simulated_steps / 2;
    let issued = || schedule.transfers.iter().zip(&trace.flows);
    let to_ns =
        issued().filter(|(t, _)| t.step == middle).map(|(_, f)| f.issued.0).max().unwrap_or(0).max(step_ns);
    let step_at_to = issued().filter(|(_, f)| f.issued.0 <= to_ns).map(|(t, _)| t.step).max().unwrap_or(0);
    let per_step_batches = trace.batches.div_ceil(simulated_steps.max(1) as u64);
    let steady = Steady {
        total_steps,
        simulated_steps,
        total_transfers,
        simulated_transfers: schedule.transfers.len() as u64,
        from_ns: to_ns - step_ns,
        to_ns,
        period_steps: 1,
        repeats,
        step_at_to,
        prefix_end_ns: trace.end.0,
        batches: trace.batches + repeats * per_step_batches,
        measured_nodes,
    };
    let link_bytes = trace
        .link_bytes
        .iter()
        .zip(&floor.link_bytes)
        .map(|(&prefix, &step)| (prefix as u64 + repeats * step) as f64)
        .collect();
    finish(scenario, topology, schedule, trace, Some((steady, link_bytes)), plan)
}
