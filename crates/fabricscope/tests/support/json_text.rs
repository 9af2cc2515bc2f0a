//! Scenario JSON for the fuzzers: the seeds (the scenario fixtures and the fuzz corpus) and
//! text-level damage. `tests/fuzz.rs` and `tests/json_paths.rs` both draw on them.

use super::rng::Rng;
use std::path::Path;

/// Text-level damage: truncation, a stray character, a deleted or repeated span.
pub fn mangle(rng: &mut Rng, text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..1 + rng.below(3) {
        if bytes.is_empty() {
            break;
        }
        let at = rng.below(bytes.len());
        match rng.below(5) {
            0 => bytes.truncate(at),
            1 => bytes.insert(at, *rng.pick(b"{}[]\",:0-9e.\\ \xff")),
            2 => {
                let end = (at + rng.below(8)).min(bytes.len());
                bytes.drain(at..end);
            }
            3 => {
                let end = (at + rng.below(16)).min(bytes.len());
                let span = bytes[at..end].to_vec();
                bytes.splice(at..at, span);
            }
            _ => bytes[at] = rng.next() as u8,
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The scenario fixtures and `tests/fuzz-corpus/*.json`, in file-name order.
pub fn seeds() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts = Vec::new();
    for dir in [root.join("../../tests/fixtures"), root.join("tests/fuzz-corpus")] {
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .collect();
        paths.sort();
        for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "json")) {
            texts.push(std::fs::read_to_string(&path).unwrap());
        }
    }
    assert!(texts.len() >= 5, "the corpus has its seeds");
    texts
}
