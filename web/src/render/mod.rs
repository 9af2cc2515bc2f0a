//! Pure painters: where things go (`layout`), what is drawn (`topology`, `training`) and what it
//! is drawn on (`surface`: the page's canvas or an SVG document). No components, no state.

mod labels;
pub mod layout;
mod legend;
pub mod palette;
mod rack;
pub mod surface;
pub mod topology;
pub mod training;
