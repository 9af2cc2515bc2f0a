//! Collectives as schedules: data that says who sends which chunk to whom, and when.
//!
//! A `Schedule` is plain data (steps of chunk transfers with their dependencies), so the same
//! value is executed on integers by `verify`, timed by the engine and animated by the page.

mod ring;
mod schedule;
mod verify;

pub use ring::{identity_order, ring_allreduce, ring_order, NCCL_STEPS};
pub use schedule::{Algorithm, ChunkOp, Phase, Schedule, Transfer, ELEM_BYTES};
pub use verify::{verify, VerifyError, MAX_VERIFY_ELEMENTS};
