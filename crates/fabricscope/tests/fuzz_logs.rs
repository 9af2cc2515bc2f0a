//! The nccl-tests log reader under hostile input: the fixture logs cut, spliced, duplicated and
//! garbled line by line and byte by byte. Nothing may panic or hang, every problem names a line
//! of the input, and every row read holds finite, non-negative figures.
//!
//! `FABRICSCOPE_FUZZ_CASES` sets the number of inputs (default 20,000; the long run in the
//! closing notes used 1,000,000).

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

fn seeds() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/logs");
    let mut seeds: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    seeds.sort();
    seeds
}

/// What goes wrong with pasted logs: lines lost, repeated, cut, interleaved, garbled bytes.
fn mangle(rng: &mut Rng, text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(4) {
        if lines.is_empty() {
            break;
        }
        let at = rng.below(lines.len());
        match rng.below(8) {
            0 => lines.truncate(at),
            1 => {
                lines.remove(at);
            }
            2 => {
                let line = lines[at].clone();
                lines.insert(at, line);
            }
            3 => {
                let cut = rng.below(lines[at].len() + 1);
                let line = &mut lines[at];
                while !line.is_char_boundary(cut.min(line.len())) {
                    line.pop();
                }
                line.truncate(cut.min(line.len()));
            }
            4 => lines[at] = format!("[{},{}]<stdout>:{}", rng.below(99), rng.below(99), lines[at]),
            5 => {
                let words: Vec<&str> = lines[at].split_whitespace().collect();
                let token =
                    *rng.pick(&["N/A", "-1", "1e309", "nan", "0e+00", "18446744073709551616", "#", ":", ""]);
                let mut words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
                if !words.is_empty() {
                    let i = rng.below(words.len());
                    words[i] = token.to_string();
                }
                lines[at] = words.join("  ");
            }
            6 => {
                let mut bytes = lines[at].as_bytes().to_vec();
                if !bytes.is_empty() {
                    let i = rng.below(bytes.len());
                    bytes[i] = rng.next() as u8;
                }
                lines[at] = String::from_utf8_lossy(&bytes).into_owned();
            }
            _ => {
                let other = lines[rng.below(lines.len())].clone();
                lines.insert(at, other);
            }
        }
    }
    lines.join("\n")
}

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
    let seeds = seeds();
    assert!(seeds.len() >= 3);
    let mut rng = Rng(0x10C5_F022, 0);
    for text in &seeds {
        check(text);
    }
    for case in 0..cases {
        let seed = &seeds[rng.below(seeds.len())];
        let text = mangle(&mut rng, seed);
        let outcome = std::panic::catch_unwind(|| check(&text));
        assert!(outcome.is_ok(), "log fuzz case {case} broke:\n{text}");
    }
}
