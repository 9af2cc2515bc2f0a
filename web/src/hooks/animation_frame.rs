//! The animation loop: one `requestAnimationFrame` per render while playing.

use yew::prelude::*;

/// While `playing`, asks for one animation frame after each render whose `deps` (or `playing`)
/// changed, and calls `on_frame` with its timestamp [ms]. Dropping the handle (on pause, on
/// the next change or on unmount) cancels a frame not yet delivered.
#[hook]
pub fn use_animation_frame<D, F>(playing: bool, deps: D, on_frame: F)
where
    D: PartialEq + 'static,
    F: FnOnce(f64) + 'static,
{
    use_effect_with((playing, deps), move |(playing, _)| {
        let frame = playing.then(|| gloo::render::request_animation_frame(on_frame));
        move || drop(frame)
    });
}
