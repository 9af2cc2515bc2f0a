//! Fabricscope core: scenario in, trace out. No I/O, no clock, no web.
//!
//! ```text
//!   Scenario ──validate──▶ ValidScenario ──▶ topology::build ──▶ Topology (petgraph)
//!                                  │                                  │
//!                                  └──▶ collective::ring_allreduce ──▶ Schedule (data)
//!                                                                     │
//!                         engine::run(Topology, Schedule) ──▶ Trace ──┴─▶ Summary
//!                                                              │
//!                              the page samples Trace::sample(t) ──▶ Frame (what to draw)
//! ```
//!
//! Everything here is deterministic: the same scenario gives the same trace, bit for bit, on
//! every target. Simulated time is integer nanoseconds (`units::SimTime`).

pub mod analytic;
pub mod catalog;
pub mod collective;
pub mod engine;
pub mod routing;
pub mod scenario;
pub mod simulation;
pub mod topology;
pub mod trace;
pub mod train;
pub mod units;

pub use scenario::{Collective, Scenario, ScenarioError, ValidScenario};
pub use simulation::{
    simulate, simulate_as, sweep, sweep_point, sweep_sizes, sweep_unhashed, AlphaBeta, Job, Mode, Simulation,
    Steady, StepInfo, Summary, SweepPoint,
};
