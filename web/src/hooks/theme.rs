//! Theme and language on `<html>`, remembered in this browser.

use crate::i18n::Lang;
use crate::services::storage;
use yew::prelude::*;

/// Theme and language live on `<html>`, and are remembered.
#[hook]
pub fn use_theme(lang: Lang, dark: bool) {
    use_effect_with((lang, dark), move |&(lang, dark)| {
        if let Some(root) = gloo::utils::document().document_element() {
            root.set_class_name(if dark { "dark" } else { "light" });
            let _ = root.set_attribute("lang", lang.code());
        }
        storage::store_view(lang, dark);
    });
}
