//! The effects the views hold: theme, animation frames, keyboard, the URL and storage kept in
//! step with the state, and the timer that runs sliced work. Each owns its listener or timer
//! and drops it on cleanup.

pub mod animation_frame;
pub mod keyboard;
pub mod slices;
pub mod theme;
pub mod url_sync;
