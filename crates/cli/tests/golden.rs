//! The CLI's whole output for the commands the README shows, compared with
//! `tests/golden/cli.txt`: a refactor of the core or the CLI must leave every table, every
//! JSON document and every error message as it was. An intended change rewrites the file with
//! `UPDATE_GOLDEN=1 cargo test -p fabricscope-cli --test golden` and shows the diff for review.

#[path = "../../fabricscope/tests/support/golden_file.rs"]
mod golden_file;

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
    "allreduce -b 1M -e 1M --latency links --no-nvls",
    "allreduce --preset dgx-a100 --nodes 2 --nics-used 4 -b 1G -e 1G --algo Ring",
    "allreduce --nodes 2 -b 64M -e 64M --algo HalvingDoubling",
    "allgather --scenario ../../tests/fixtures/one-gpu-nodes-32.json -b 32K -e 32K",
    "alltoall --nodes 2 -b 16M -e 16M --algo Bruck",
    "allreduce --nodes 2 -b 1G -e 1G --algo Ring --no-nvls --fault nic:0:3:0.5",
    "allreduce --nodes 4 --topology leaf_spine --wiring node --radix 16 -b 64M -e 64M --fault spine:1:0",
    "allreduce --nodes 2 --fault nic:0:3:0 --fault spine:0:0",
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
            let mut hash = fabricscope::hash::Fnv::default();
            hash.bytes(stdout.as_bytes());
            writeln!(out, "[... {lines} lines in all, FNV-1a {}]", hash.hex()).unwrap();
        }
        for line in String::from_utf8_lossy(&output.stderr).lines() {
            writeln!(out, "stderr: {line}").unwrap();
        }
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/cli.txt");
    golden_file::check(&path, &out, "CLI output");
}
