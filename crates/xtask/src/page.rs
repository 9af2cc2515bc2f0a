//! What `cargo xtask dist` does to the page trunk built: the first paint's lesson list, and a
//! Content-Security-Policy.

use crate::Result;
use std::path::Path;

/// Writes the lessons, as plain links, in place of the `<!-- lesson list -->` marker of the
/// first paint (index.html), so a slow phone can pick one before the app has loaded. Each
/// title in both languages; the stylesheet shows the reader's.
pub fn add_lesson_list(index: &Path, lessons: &Path) -> Result<()> {
    let html = std::fs::read_to_string(index).map_err(|e| format!("{}: {e}", index.display()))?;
    let text = std::fs::read_to_string(lessons).map_err(|e| format!("{}: {e}", lessons.display()))?;
    let list: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", lessons.display()))?;
    let title =
        |lesson: &serde_json::Value, lang: &str| escape(lesson["title"][lang].as_str().unwrap_or_default());
    let items: String = list
        .as_array()
        .ok_or_else(|| format!("{}: not a list of lessons", lessons.display()))?
        .iter()
        .map(|lesson| {
            let id = escape(lesson["id"].as_str().unwrap_or_default());
            format!(
                "<li><a href=\"?lesson={id}&amp;step=0\"><span class=\"en\">{}</span><span class=\"zh\">{}</span></a></li>",
                title(lesson, "en"),
                title(lesson, "zh")
            )
        })
        .collect();
    const MARKER: &str = "<!-- lesson list -->";
    if !html.contains(MARKER) {
        return Err(format!("{} has no {MARKER} marker", index.display()));
    }
    std::fs::write(index, html.replacen(MARKER, &items, 1)).map_err(|e| format!("{}: {e}", index.display()))
}

/// Text for HTML: `&`, `<`, `>` and `"` escaped.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Adds a Content-Security-Policy to the built page. Trunk starts the app with one inline
/// module script; the policy allows exactly that script by its SHA-256, WebAssembly
/// compilation, and no origin but the page's own. Inline style *attributes* are allowed
/// (`style-src-attr`): plotters measures chart text with an inline-styled span; they cannot run
/// code, and `<style>` elements stay forbidden.
pub fn add_content_security_policy(index: &Path) -> Result<()> {
    use base64::Engine;
    use sha2::Digest;
    let html = std::fs::read_to_string(index).map_err(|e| format!("{}: {e}", index.display()))?;
    if html.contains("Content-Security-Policy") {
        return Ok(());
    }
    let open = "<script type=\"module\">";
    let start = html.find(open).ok_or("dist/index.html has no inline module script to hash")? + open.len();
    let end = start + html[start..].find("</script>").ok_or("unterminated inline script")?;
    let hash =
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(&html.as_bytes()[start..end]));
    let policy = format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' 'sha256-{hash}'; style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; \
         connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'"
    );
    let meta = format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\" />");
    let html =
        html.replacen("<meta charset=\"utf-8\" />", &format!("<meta charset=\"utf-8\" />\n    {meta}"), 1);
    std::fs::write(index, html).map_err(|e| format!("{}: {e}", index.display()))?;
    eprintln!("xtask: dist/index.html carries a Content-Security-Policy (inline script sha256-{hash})");
    Ok(())
}
