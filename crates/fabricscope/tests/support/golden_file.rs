//! A golden file, shared by the core's and the CLI's golden tests: the text a test produced is
//! compared with the file, or written to it under `UPDATE_GOLDEN=1` (an intended change, whose
//! diff is then reviewed).

use std::path::Path;

/// Compares `out` with the file at `path` (or rewrites it under `UPDATE_GOLDEN=1`); fails naming
/// the first line that differs, as it was and as it is now.
pub fn check(path: &Path, out: &str, what: &str) {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, out).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    if expected != out {
        let line = expected
            .lines()
            .zip(out.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(out.lines().count()));
        panic!(
            "{what} changed from {} at line {}:\n  was: {:?}\n  now: {:?}\n(rewrite with UPDATE_GOLDEN=1 only for an intended change)",
            path.display(),
            line + 1,
            expected.lines().nth(line),
            out.lines().nth(line)
        );
    }
}
