//! The reader's device: a touch screen (no hover, a coarse pointer) reads "tap" where a mouse
//! reads "hover" and gets a touch hint instead of the keyboard's; a narrow screen (a phone)
//! opens a lesson step with its extras folded.

fn matches(query: &str) -> bool {
    gloo::utils::window().match_media(query).ok().flatten().map(|list| list.matches()).unwrap_or(false)
}

/// Whether the primary pointer is a finger: CSS's `(hover: none) and (pointer: coarse)`.
pub fn touch_first() -> bool {
    matches("(hover: none) and (pointer: coarse)")
}

/// Whether the page is as narrow as a phone's (the stylesheet's 700 px breakpoint).
pub fn narrow() -> bool {
    matches("(max-width: 700px)")
}
