//! The page (a Yew app over the core), and the same core and painter for other pages: the
//! `embed` module's JS API (`simulate`, `Figure`) that `wasm-pack build --target web` packages
//! and `public/fabricscope-figure.js` wraps in a custom element.

mod app;
mod components;
pub mod embed;
mod hooks;
mod i18n;
mod lessons;
mod render;
mod route;
mod services;
mod state;
#[cfg(feature = "workers")]
pub mod worker;

/// Installs the panic reporter and mounts the app on `#app` (the page's `main`). In one of the
/// page's workers, which load the same module (`worker`), there is no page: nothing to mount.
pub fn start() {
    if web_sys::window().is_none() {
        return;
    }
    std::panic::set_hook(Box::new(|info| report_fatal(&info.to_string())));
    let Some(root) = gloo::utils::document().get_element_by_id("app") else {
        report_fatal("the page has no #app element");
        return;
    };
    yew::Renderer::<app::App>::with_root(root).render();
}

/// Shows a failure in the page instead of leaving it dead, and logs it for the console.
fn report_fatal(message: &str) {
    gloo::console::error!(message.to_string());
    let document = gloo::utils::document();
    if let Some(banner) = document.get_element_by_id("fatal") {
        banner.set_text_content(Some(&format!(
            "Fabricscope stopped because of an internal error: {message}. Reload the page to start again. / 页面内部出错：{message}。请刷新页面重试。"
        )));
        let _ = banner.remove_attribute("hidden");
    }
}
