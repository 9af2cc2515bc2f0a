//! Planning: what may run and how. `validate` turns a `Scenario` into a `ValidScenario` (every
//! field in range, every problem named); `admission` is the one rule for how big a collective
//! runs whole, as a steady state, or only as a sweep's point from a tree's channels that
//! stand for all; `faults` checks the links a scenario breaks; `tuner` predicts each algorithm and protocol the way NCCL's
//! tuning model does and picks one.

mod admission;
mod faults;
mod node;
mod tuner;
mod validate;

pub use admission::{
    admit, chain_nodes_run, least_measured_transfers, most_pipeline_bytes, nvls_tree_transfers_at,
    ring_prefixes_fit, ring_transfers, runs_big, runs_steady, tree_algorithm_transfers, tree_cap,
    tree_channels_provable, tree_least_run, tree_parts, tree_transfers, Admission, Budget, CHAIN_LEAST_NODES,
    CHAIN_MOST_RATIO, CHAIN_RUN_TRANSFERS, ENGINE_BUDGET, LEAST_MEASURED_STEPS, LEAST_SHOWN_STEPS,
    PAGE_BOUNDED_ROUTES, PAGE_BUDGET, PAGE_MAX_TRANSFERS, STEADY_ABOVE, STEADY_FIRST_STEPS,
    STEADY_SEARCH_STEPS,
};
pub use tuner::{bandwidth_bound_ns, pick, tune, Bound, TunerRow, Tuning};
pub use validate::ValidScenario;
