//! The page's state as pure reducers (`yew::Reducible`), tested natively: one per view.

pub mod collectives;
pub mod training;
