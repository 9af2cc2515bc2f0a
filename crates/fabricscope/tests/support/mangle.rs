//! Pasted text as it arrives damaged: for the fuzzers of every reader of user files.

use super::rng::Rng;

/// What goes wrong with pasted files: lines lost, repeated, cut, interleaved, garbled bytes,
/// a word swapped for one of `tokens`.
pub fn mangle(rng: &mut Rng, text: &str, tokens: &[&str]) -> String {
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
                let token = *rng.pick(tokens);
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

/// Every file of `dir` (relative to the crate), sorted by content so the order does not hang
/// on the file system's: a fuzzer's seeds.
pub fn seeds(dir: &str) -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut seeds: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    seeds.sort();
    seeds
}
