//! The page's own address: its fragment and query as they are, and replacing it. Replacing
//! (not pushing) history keeps the back button useful.

/// The URL's fragment, with its `#` (empty when there is none).
pub fn hash() -> String {
    gloo::utils::window().location().hash().unwrap_or_default()
}

/// The URL's query, with its `?` (empty when there is none).
pub fn search() -> String {
    gloo::utils::window().location().search().unwrap_or_default()
}

/// The URL's path.
pub fn pathname() -> String {
    gloo::utils::window().location().pathname().unwrap_or_default()
}

/// The page's origin (`https://host:port`).
pub fn origin() -> String {
    gloo::utils::window().location().origin().unwrap_or_default()
}

/// Puts `url` (relative: a path, a query and/or a fragment) in place of the current address.
pub fn replace(url: &str) {
    if let Ok(history) = gloo::utils::window().history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(url));
    }
}
