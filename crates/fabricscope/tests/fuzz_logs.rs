//! The nccl-tests log reader under hostile input: the fixture logs cut, spliced, duplicated and
//! garbled line by line and byte by byte. Nothing may panic or hang, every problem names a line
//! of the input, and every row read holds finite, non-negative figures.
//!
//! `FABRICSCOPE_FUZZ_CASES` sets the number of inputs (default 20,000; the long run in the
//! closing notes used 1,000,000).

#[path = "support/mangle.rs"]
mod mangle;
#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

/// Words pasted logs get in place of a figure.
const TOKENS: &[&str] = &["N/A", "-1", "1e309", "nan", "0e+00", "18446744073709551616", "#", ":", ""];

fn check(text: &str) {
    let log = fabricscope::logs::parse(text);
    let lines = text.lines().count().max(1);
    for problem in &log.problems {
        assert!(
            problem.line >= 1 && problem.line <= lines + 1,
            "problem on line {} of {lines}",
            problem.line
        );
        assert!(!problem.problem.is_empty());
    }
    for run in &log.runs {
        for row in &run.rows {
            for m in std::iter::once(&row.out_of_place).chain(row.in_place.as_ref()) {
                for v in [m.time_us, m.algbw_gbyte_per_s, m.busbw_gbyte_per_s] {
                    assert!(v.is_finite() && v >= 0.0, "{v} on line {}", row.line);
                }
            }
        }
        let _ = run.hosts();
    }
}

#[test]
fn fuzz_nccl_tests_logs() {
    let cases: u64 =
        std::env::var("FABRICSCOPE_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let seeds = mangle::seeds("../../tests/fixtures/logs");
    assert!(seeds.len() >= 3);
    let mut rng = Rng(0x10C5_F022, 0);
    for text in &seeds {
        check(text);
    }
    for case in 0..cases {
        let seed = &seeds[rng.below(seeds.len())];
        let text = mangle::mangle(&mut rng, seed, TOKENS);
        let outcome = std::panic::catch_unwind(|| check(&text));
        assert!(outcome.is_ok(), "log fuzz case {case} broke:\n{text}");
    }
}
