//! The CLI's whole output for the commands the README shows, compared with
//! `tests/golden/cli.txt`: a refactor of the core or the CLI must leave every table, every
//! JSON document and every error message as it was. An intended change rewrites the file with
//! `UPDATE_GOLDEN=1 cargo test -p fabricscope-cli --test golden` and shows the diff for review.

use std::fmt::Write;
use std::path::Path;
use std::process::Command;

const COMMANDS: &[&str] = &[
    "allreduce --nodes 2 --min 8 --max 1G",
    "allreduce --nodes 2 -b 1M -e 1G -f 4 --json",
    "allreduce --preset dgx-a100 --nodes 2 --nic-bandwidth 12.5 -b 1M -e 64M",
    "alltoall --nodes 2 -b 1M -e 64M",
    "allgather --nodes 2 -b 1M -e 16M",
    "reducescatter --nodes 2 -b 1M -e 16M",
    "broadcast --nodes 2 -b 1M -e 16M",
    "reduce --nodes 2 -b 1M -e 16M",
    "sendrecv --nodes 2 -b 1M -e 16M",
    "allreduce --scenario ../../tests/fixtures/ring-8.json",
    "allreduce --nodes 4 --fabric roce --topology leaf_spine --wiring node --radix 16 -b 16M -e 16M",
    "allreduce -b 1G -e 1G --in-network",
    "allreduce -b 1M -e 1M --latency links",
    "allreduce --nodes 16 --algo CollNet -b 1G -e 1G",
    "topo --nodes 12800 --radix 128",
    "topo --nodes 2 --dot",
    "train",
    "train --tp 16 --pp 8",
    "train --json",
    "train --job ../../tests/fixtures/train/llama2-70b-4-nodes-roce.json --scaling 1,2",
    "allreduce --nodes 99999",
    "allreduce --preset dgx-9000 --nic-bandwidth=-3",
    "allreduce --max 12Q",
    "alltoall --algo Tree",
];

/// Outputs longer than this many lines are kept as their head and a hash.
const LONG: usize = 200;

/// FNV-1a 64 over `text`.
fn fnv(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= byte as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

#[test]
fn output_is_unchanged() {
    let mut out = String::new();
    for command in COMMANDS {
        let output = Command::new(env!("CARGO_BIN_EXE_fabricscope"))
            .args(command.split_whitespace())
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        writeln!(out, "$ fabricscope {command}\n[exit {}]", output.status.code().unwrap_or(-1)).unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let lines = stdout.lines().count();
        if lines <= LONG {
            out.push_str(&stdout);
        } else {
            // A long document (a training step's JSON with every 1F1B block): its head, and a
            // hash that any change anywhere in it changes.
            for line in stdout.lines().take(LONG) {
                writeln!(out, "{line}").unwrap();
            }
            writeln!(out, "[... {lines} lines in all, FNV-1a {}]", fnv(&stdout)).unwrap();
        }
        for line in String::from_utf8_lossy(&output.stderr).lines() {
            writeln!(out, "stderr: {line}").unwrap();
        }
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/cli.txt");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &out).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != out {
        let line = expected
            .lines()
            .zip(out.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(out.lines().count()));
        panic!(
            "CLI output changed from {} at line {}:\n  was: {:?}\n  now: {:?}\n(rewrite with UPDATE_GOLDEN=1 only for an intended change)",
            path.display(),
            line + 1,
            expected.lines().nth(line),
            out.lines().nth(line)
        );
    }
}
