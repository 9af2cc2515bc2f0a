//! Fabricscope core: scenario in, trace out. No I/O, no clock, no web.
//!
//! ```text
//!   Scenario ──plan::validate──▶ ValidScenario ──▶ topology::build ──▶ Topology (petgraph)
//!                                  │                                       │
//!                                  └──▶ collective::schedule_with ──▶ Schedule (data)
//!                                       (the pick of plan::tune)           │
//!                         engine::Run(Topology, Schedule, routing::Policy) ──▶ Trace
//!                                                                          │
//!                simulation: Simulation (summary, steps, α-β, steady state) ◀┘
//!                              the page samples Simulation::sample(t) ──▶ Frame
//! ```
//!
//! The modules form layers; each uses only those below it (`tests/tidy.rs` checks it):
//!
//! ```text
//!   compare                        a measured nccl-tests run against the model, and a fit
//!   simulation  train              what a scenario or a training job produces
//!   plan                           validate, admission, tuner
//!   engine                         the discrete-event loop, max-min sharing, steady states
//!   routing  trace                 paths of flows; what a run recorded
//!   collective                     schedules as data, protocols, verification on integers
//!   topology                       the cluster as a graph, fabric planning
//!   logs                           nccl-tests logs read and written
//!   scenario                       plain serde data
//!   catalog                        hardware figures with their sources
//!   units  limits  hash  analytic  foundations
//! ```
//!
//! Everything here is deterministic: the same scenario gives the same trace, bit for bit, on
//! every target. Simulated time is integer nanoseconds (`units::SimTime`).

pub mod analytic;
pub mod catalog;
pub mod collective;
pub mod compare;
pub mod engine;
pub mod hash;
pub mod import;
pub mod limits;
pub mod logs;
pub mod plan;
pub mod routing;
pub mod scenario;
pub mod simulation;
pub mod sort;
pub mod topology;
pub mod trace;
pub mod train;
pub mod units;

pub use plan::ValidScenario;
pub use scenario::{Collective, Scenario, ScenarioError};
pub use simulation::{
    nvls_tree_ran, nvls_tree_time, simulate, simulate_as, sweep, sweep_point, sweep_size, sweep_sizes,
    sweep_unhashed, AlphaBeta, Bounds, ChainRun, ChunkFit, FaultWait, FinerTask, Job, Method, Mode, PointJob,
    Rounding, Simulation, Steady, StepInfo, StepWait, Summary, SweepPoint, CHAIN_BOUND, CHUNK_FIT_BOUND,
    EXTRAPOLATION_BOUND, FINE_CHUNKS, MEASURED_STEPS, ROUNDING_BOUND,
};
