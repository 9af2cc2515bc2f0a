//! The timer that runs long work in slices: a simulation too long for one frame, the busbw
//! curve's points, the training view's comparisons. One slice per timeout, so frames, clicks
//! and the cancel button get their turn between slices.

use yew::prelude::*;

/// After a render whose `deps` changed, if `due`, calls `on_slice` `delay_ms` later (which
/// dispatches the next slice). A newer change or unmounting cancels a timer not yet fired.
#[hook]
pub fn use_next_slice<D, F>(deps: D, due: bool, delay_ms: u32, on_slice: F)
where
    D: PartialEq + 'static,
    F: FnOnce() + 'static,
{
    use_effect_with(deps, move |_| {
        let timer = due.then(|| gloo::timers::callback::Timeout::new(delay_ms, on_slice));
        move || drop(timer)
    });
}
