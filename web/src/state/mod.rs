//! The page's state as pure reducers (`yew::Reducible`), tested natively: one per view.

pub mod collectives;
pub mod page_job;
pub mod training;

/// The page's two views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One collective on the cluster, step by step.
    Collectives,
    /// A training job laid out on the cluster.
    Training,
}
