//! What both views share around their content: the top bar, the error banner, the controls
//! drawer, and (for the collectives view) sharing and export.

pub mod banner;
pub mod drawer;
pub mod share;
pub mod top_bar;
