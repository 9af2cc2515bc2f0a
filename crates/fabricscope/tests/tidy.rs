//! Architecture invariants as a test (rust-analyzer's tidy): what the code base must not contain.

use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap().to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() && !matches!(name.as_str(), "target" | "node_modules" | "dist" | ".git") {
            rust_files(&path, out);
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

#[test]
fn core_has_no_web_no_io_no_clock() {
    let manifest = std::fs::read_to_string(workspace().join("crates/fabricscope/Cargo.toml")).unwrap();
    for banned in ["web-sys", "js-sys", "wasm-bindgen", "gloo", "yew", "plotters", "rand"] {
        assert!(!manifest.contains(banned), "the core must not depend on {banned}; see ARCHITECTURE.md");
    }
    let mut files = Vec::new();
    rust_files(&workspace().join("crates/fabricscope/src"), &mut files);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for banned in [
            "std::fs",
            "std::time",
            "Instant::now",
            "SystemTime",
            "HashMap",
            "HashSet",
            "thread_rng",
            "println!",
        ] {
            assert!(
                !text.contains(banned),
                "{} uses {banned}: the core is pure and deterministic",
                file.display()
            );
        }
    }
}

#[test]
fn every_rust_file_says_what_it_is_for() {
    let mut files = Vec::new();
    for dir in ["crates", "web/src"] {
        rust_files(&workspace().join(dir), &mut files);
    }
    assert!(files.len() > 20);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.starts_with("//!"),
            "{} must start with a `//!` line saying what it is for",
            file.display()
        );
    }
}

#[test]
fn no_unsafe_without_a_safety_comment() {
    let mut files = Vec::new();
    for dir in ["crates", "web/src"] {
        rust_files(&workspace().join(dir), &mut files);
    }
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, line) in text.lines().enumerate() {
            if line.contains("unsafe ") && !line.trim_start().starts_with("//") && !file.ends_with("tidy.rs")
            {
                let before = text.lines().take(i).last().unwrap_or_default();
                assert!(
                    before.contains("SAFETY:"),
                    "{}:{} unsafe without a SAFETY: comment",
                    file.display(),
                    i + 1
                );
            }
        }
    }
}
