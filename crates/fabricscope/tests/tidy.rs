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

/// Every Rust file under the workspace folders `dirs`, in a stable order.
fn files_under(dirs: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in dirs {
        rust_files(&workspace().join(dir), &mut files);
    }
    files
}

#[test]
fn core_has_no_web_no_io_no_clock() {
    let manifest = std::fs::read_to_string(workspace().join("crates/fabricscope/Cargo.toml")).unwrap();
    for banned in ["web-sys", "js-sys", "wasm-bindgen", "gloo", "yew", "plotters", "rand"] {
        assert!(!manifest.contains(banned), "the core must not depend on {banned}; see ARCHITECTURE.md");
    }
    let files = files_under(&["crates/fabricscope/src"]);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for banned in [
            "std::fs",
            "std::time",
            "Instant::now",
            "SystemTime",
            "HashSet",
            "RandomState",
            "thread_rng",
            "println!",
        ] {
            assert!(
                !text.contains(banned),
                "{} uses {banned}: the core is pure and deterministic",
                file.display()
            );
        }
        // A hash map only with the core's fixed hasher (`hash::FixedState`): std's default
        // state is random per process.
        for line in text.lines().filter(|line| line.contains("HashMap")) {
            assert!(
                line.contains("FixedState"),
                "{} uses a HashMap without `hash::FixedState`: the core is pure and deterministic\n{line}",
                file.display()
            );
        }
    }
}

#[test]
fn every_rust_file_says_what_it_is_for() {
    let files = files_under(&["crates", "web/src"]);
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
    let files = files_under(&["crates", "web/src"]);
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

/// The core's modules from the bottom up: each may use only those before it, so no two import
/// each other and no circle can form. `simulation` is last: only the front door (`lib.rs`), the
/// page and the CLI use it. A module's own tests (`#[cfg(test)]` and below) may reach up, to
/// build what they test from a scenario.
const LAYERS: &[&str] = &[
    "units",
    "hash",
    "sort",
    "limits",
    "analytic",
    "catalog",
    "scenario",
    "logs",
    "import",
    "topology",
    "collective",
    "routing",
    "trace",
    "engine",
    "plan",
    "train",
    "simulation",
    "compare",
];

/// The top-level modules a piece of Rust names through `crate::`, including in `use crate::{…}`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let head: String =
                    item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                found.push(head);
            }
        } else {
            found.push(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
        }
    }
    found
}

/// The page's folders from the bottom up, in the same sense as `LAYERS`: reducers (`state`)
/// know nothing of the DOM's components, painters (`render`) nothing of components or hooks,
/// and only `lib.rs` mounts the `app`.
const WEB_LAYERS: &[&str] = &[
    "i18n",
    "lessons",
    "state",
    "services",
    "render",
    "hooks",
    "route",
    "components",
    "app",
    "embed",
    "worker",
];

/// Fails on any file under `src` (but `lib.rs`) that names, through `crate::`, a module at or
/// above its own in `layers` (its own excepted). Returns the number of files checked.
fn check_layers(src: &Path, layers: &[&str]) -> usize {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut checked = 0;
    for file in files {
        let relative = file.strip_prefix(src).unwrap().to_string_lossy().replace('\\', "/");
        if relative == "lib.rs" || relative == "main.rs" {
            continue;
        }
        let module = relative.split('/').next().unwrap().trim_end_matches(".rs").to_string();
        let rank = layers
            .iter()
            .position(|&m| m == module)
            .unwrap_or_else(|| panic!("{relative}: module `{module}` is not in tidy.rs's layers"));
        let text = std::fs::read_to_string(&file).unwrap();
        // Test code may reach up (a test of the lessons checks the page's limits): what follows
        // `#[cfg(test)]`, and a module's `tests.rs`, which its parent declares under it.
        let code =
            if relative.ends_with("/tests.rs") { "" } else { text.split("#[cfg(test)]").next().unwrap() };
        let code: String =
            code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
        for used in crate_paths(&code) {
            if used == module || used.is_empty() {
                continue;
            }
            let Some(used_rank) = layers.iter().position(|&m| m == used) else {
                continue; // a re-export of the crate root, such as `crate::Scenario`
            };
            assert!(
                used_rank < rank,
                "{relative} uses `crate::{used}`, which is above `{module}` in the layers (see tidy.rs and ARCHITECTURE.md)"
            );
        }
        checked += 1;
    }
    checked
}

#[test]
fn core_layers_point_down() {
    let checked = check_layers(&workspace().join("crates/fabricscope/src"), LAYERS);
    assert!(checked > 30, "only {checked} files checked");
}

#[test]
fn page_layers_point_down() {
    let checked = check_layers(&workspace().join("web/src"), WEB_LAYERS);
    assert!(checked > 30, "only {checked} files checked");
}

#[test]
fn the_layer_check_catches_an_upward_import() {
    let paths = crate_paths("use crate::{catalog::Gpu, simulation::Job};\nfn f() { crate::plan::admit(); }");
    assert_eq!(paths, ["catalog", "simulation", "plan"]);
}

#[test]
fn no_test_is_skipped_or_expected_to_panic() {
    let files = files_under(&["crates", "web/src"]);
    for file in files {
        if file.ends_with("tidy.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for banned in ["#[should_panic", "#[ignore"] {
            assert!(!text.contains(banned), "{} has {banned}: a test must assert, and run", file.display());
        }
    }
}

#[test]
fn no_source_file_is_much_over_600_lines() {
    let files = files_under(&[
        "crates/fabricscope/src",
        "crates/charts/src",
        "crates/cli/src",
        "crates/xtask/src",
        "web/src",
    ]);
    for file in files {
        let lines = std::fs::read_to_string(&file).unwrap().lines().count();
        assert!(lines <= 650, "{} has {lines} lines: split it by what its parts are for", file.display());
    }
}
