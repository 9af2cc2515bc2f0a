//! Copying text to the clipboard, where the browser allows it.

/// Writes `text` to the clipboard. Where the browser refuses, the refusal is caught so it does
/// not surface as an unhandled rejection (the caller shows the text to select instead).
pub fn copy(text: &str) {
    let promise = gloo::utils::window().navigator().clipboard().write_text(text);
    let ignore = wasm_bindgen::closure::Closure::once(|_: wasm_bindgen::JsValue| {});
    let _ = promise.catch(&ignore);
    ignore.forget();
}
