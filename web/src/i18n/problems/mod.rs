//! The core's validation problems in the page's language.
//!
//! The core speaks English only (it has no I/O and no page): a problem is a field's dotted path
//! and a sentence, joined "field: sentence" and several of them with "; " (`ScenarioError`'s
//! `Display`). On the Chinese page each sentence is matched against the templates of
//! `table.rs`, the core's own `format!` strings with their figures as `{}` holes, and given in
//! Chinese with the same figures; a field's path keeps its name (it is what a link or a scenario
//! file spells) with a Chinese label beside it where it has one. A sentence no template matches
//! stays English, never lost; `tests` makes the core's real problems and checks that each of
//! them is matched.

mod table;

use super::Lang;
use table::{CLAUSES, FIELDS, TEMPLATES, WRAPPERS};

/// `message` (problems joined by "; ", each "field: sentence" or a sentence, or such a list
/// inside one of the page's `WRAPPERS`) in `lang`.
pub fn problem_text(lang: Lang, message: &str) -> String {
    match lang {
        Lang::En => message.to_string(),
        Lang::Zh => match WRAPPERS.iter().find_map(|(en, zh)| Some((holes(en, message)?, zh))) {
            Some((inner, zh)) => fill(zh, &[&problem_text(lang, inner[0])]),
            None => problems(message).into_iter().map(problem_zh).collect::<Vec<_>>().join("；"),
        },
    }
}

/// The problems of `message`: split where "; " is followed by a field and ": " (a sentence
/// may hold "; " itself: "unknown preset 'x'; use one of: …").
fn problems(message: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (at, _) in message.match_indices("; ") {
        let next = &message[at + 2..];
        if next.split_once(": ").is_some_and(|(field, _)| is_field(field)) {
            out.push(&message[start..at]);
            start = at + 2;
        }
    }
    out.push(&message[start..]);
    out
}

/// One problem in Chinese, or as it is where no template matches its sentence.
fn problem_zh(problem: &str) -> String {
    match problem.split_once(": ") {
        Some((field, sentence)) if is_field(field) => {
            let label = field_label(field).map(|label| format!("{label}（{field}）"));
            format!("{}：{}", label.as_deref().unwrap_or(field), sentence_zh(sentence))
        }
        _ => sentence_zh(problem),
    }
}

/// A dotted path such as `faults[2].rate` or `custom_model.moe.top_k`.
fn is_field(text: &str) -> bool {
    !text.is_empty()
        && text.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_.[]".contains(c))
}

/// The Chinese label of a field: its path without indices, looked up whole, else by its last
/// part.
fn field_label(field: &str) -> Option<&'static str> {
    let plain: String =
        field.split('[').map(|part| part.split_once(']').map_or(part, |(_, rest)| rest)).collect();
    let last = plain.rsplit('.').next().unwrap_or(&plain);
    let label_of = |key: &str| FIELDS.iter().find(|(path, _)| *path == key).map(|(_, label)| *label);
    label_of(&plain).or_else(|| label_of(last))
}

/// `sentence` in Chinese by the first template that matches it whole, its holes' clauses
/// (`CLAUSES`) in Chinese too, else as it is.
pub(crate) fn sentence_zh(sentence: &str) -> String {
    let clause =
        |text: &str| CLAUSES.iter().find_map(|(en, zh)| holes(en, text).map(|figures| fill(zh, &figures)));
    TEMPLATES
        .iter()
        .find_map(|(en, zh)| {
            let figures = holes(en, sentence)?;
            let figures: Vec<String> =
                figures.iter().map(|&figure| clause(figure).unwrap_or_else(|| figure.to_string())).collect();
            Some(fill(zh, &figures))
        })
        .unwrap_or_else(|| sentence.to_string())
}

/// The texts standing in `template`'s `{}` holes where `text` is `template` with them filled,
/// each taken as short as the literal after it allows (the last runs to the end).
fn holes<'a>(template: &str, text: &'a str) -> Option<Vec<&'a str>> {
    let mut pieces = template.split("{}");
    let first = pieces.next().unwrap_or_default();
    let mut rest = text.strip_prefix(first)?;
    let mut figures = Vec::new();
    let pieces: Vec<&str> = pieces.collect();
    for (i, piece) in pieces.iter().enumerate() {
        let end = if i + 1 == pieces.len() {
            rest.strip_suffix(piece).map(str::len)?
        } else {
            rest.find(piece).filter(|&at| at > 0)?
        };
        if end == 0 {
            return None;
        }
        figures.push(&rest[..end]);
        rest = &rest[end + piece.len()..];
    }
    rest.is_empty().then_some(figures)
}

/// `template` with `{0}`, `{1}`, … replaced by `figures`.
fn fill<S: AsRef<str>>(template: &str, figures: &[S]) -> String {
    let mut out = template.to_string();
    for (i, figure) in figures.iter().enumerate() {
        out = out.replace(&format!("{{{i}}}"), figure.as_ref());
    }
    out
}

#[cfg(test)]
mod tests;
