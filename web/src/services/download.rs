//! Downloads made in the page: text files through Blob URLs and canvases as PNG, so nothing
//! leaves the page.

use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;

/// Downloads `text` as a file named `name` (a Blob URL, so nothing leaves the page).
pub fn download(name: &str, mime: &str, text: &str) {
    let parts = js_sys_array(text);
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    click_link(name, &url);
    let _ = web_sys::Url::revoke_object_url(&url);
}

fn js_sys_array(text: &str) -> wasm_bindgen::JsValue {
    let array = js_sys::Array::new();
    array.push(&wasm_bindgen::JsValue::from_str(text));
    array.into()
}

/// Downloads the canvas `id` as a PNG file `name`.
pub fn export_canvas_png(id: &str, name: &str) {
    let canvas =
        gloo::utils::document().get_element_by_id(id).and_then(|e| e.dyn_into::<HtmlCanvasElement>().ok());
    if let Some(url) = canvas.and_then(|c| c.to_data_url_with_type("image/png").ok()) {
        click_link(name, &url);
    }
}

fn click_link(name: &str, href: &str) {
    let document = gloo::utils::document();
    let Ok(element) = document.create_element("a") else { return };
    let Ok(anchor) = element.dyn_into::<web_sys::HtmlAnchorElement>() else { return };
    anchor.set_href(href);
    anchor.set_download(name);
    anchor.click();
}
