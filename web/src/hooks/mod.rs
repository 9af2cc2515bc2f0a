//! The effects the views hold: theme, animation frames, keyboard, the URL and storage kept in
//! step with the state, the timer that runs sliced work, and a lesson step's figures reported.
//! Each owns its listener or timer and drops it on cleanup.

pub mod animation_frame;
pub mod keyboard;
pub mod lesson_figures;
pub mod slices;
pub mod theme;
pub mod url_sync;
