//! The CLI as a user runs it: the binary, its table, its JSON and its errors.

use std::process::Command;

fn fabricscope(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_fabricscope")).args(args).output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn allreduce_prints_an_nccl_tests_table() {
    let (code, out, err) = fabricscope(&["allreduce", "--nodes", "2", "--min", "8", "--max", "1G"]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out.lines().filter(|line| !line.starts_with('#')).collect();
    // 8 B, 16 B, ... 1 GiB: 28 sizes.
    assert_eq!(rows.len(), 28, "{out}");
    let first: Vec<&str> = rows[0].split_whitespace().collect();
    assert_eq!(&first[..5], ["8", "2", "float", "sum", "-1"]);
    assert_eq!(first[8], "0", "8 B verifies on data with no wrong element");
    let last: Vec<&str> = rows[27].split_whitespace().collect();
    assert_eq!(last[0], "1073741824");
    let algbw: f64 = last[6].parse().unwrap();
    let busbw: f64 = last[7].parse().unwrap();
    // busbw = algbw × 2(n-1)/n with n = 16.
    assert!((busbw - algbw * 30.0 / 16.0).abs() < 0.02, "{algbw} {busbw}");
    assert_eq!(last[8], "N/A", "1 GiB is too big to execute on data");
    assert!(out.contains("16 GPUs = 2 × DGX H100"));
    // nccl-tests' 13 columns, in-place equal to out-of-place; and the log reads back.
    assert_eq!(last.len(), 13);
    assert_eq!(last[5..9], last[9..13]);
    let log = fabricscope::logs::parse(&out);
    assert_eq!(log.problems, []);
    let run = &log.runs[0];
    assert_eq!(run.collective, Some(fabricscope::Collective::AllReduce));
    assert_eq!((run.rows.len(), run.devices.len()), (28, 16));
    assert_eq!(run.hosts().1, Some(8));
    assert_eq!(fabricscope::logs::preset_for_device(&run.devices[0].name), Some("dgx-h100"));
    assert_eq!(run.rows[27].out_of_place.busbw_gbyte_per_s, busbw);
}

#[test]
fn json_has_the_same_rows() {
    let (code, out, _) = fabricscope(&["allreduce", "-b", "1K", "-e", "1M", "-f", "4", "--json"]);
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    assert_eq!(rows[5]["size_bytes"], 1 << 20);
    assert_eq!(report["n_ranks"], 8);
}

#[test]
fn bad_input_names_the_field() {
    let (code, _, err) = fabricscope(&["allreduce", "--nodes", "99999"]);
    assert_eq!(code, 2);
    assert!(err.contains("nodes: 99999 is out of range: use 1 to 16384"), "{err}");
    let (code, _, err) = fabricscope(&["allreduce", "--preset", "dgx-9000", "--nic-bandwidth=-3"]);
    assert_eq!(code, 2);
    assert!(err.contains("preset: unknown preset 'dgx-9000'"), "{err}");
    assert!(err.contains("links.nic.bandwidth_gbyte_per_s"), "{err}");
    let (code, _, err) = fabricscope(&["allreduce", "--max", "12Q"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown size suffix"), "{err}");
    let (code, _, err) = fabricscope(&["allreduce", "--scenario", "/nonexistent.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read /nonexistent.json"), "{err}");
}

#[test]
fn topo_prints_the_fabric_and_dot() {
    let (code, out, err) = fabricscope(&["topo", "--nodes", "32", "--topology", "leaf_spine"]);
    assert_eq!(code, 0, "{err}");
    // 32 nodes, rail wiring, radix 64: 8 rails × 1 leaf, 32 spines; 256 NIC cables + 8 × 32.
    assert!(out.contains("switches     40 (8 leaves, 32 spines"), "{out}");
    assert!(out.contains("cables       512"), "{out}");
    assert!(out.contains("diameter     3 switch hops"), "{out}");
    let (code, out, _) = fabricscope(&["topo", "--nodes", "2", "--dot"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("graph fabricscope {"));
    assert_eq!(
        out.matches(" -- ").count(),
        74,
        "per node: 1 UPI, 4 switch-CPU, 8 NVLink, 8 GPU and 8 NIC PCIe, 8 network"
    );
    let (code, _, err) = fabricscope(&["topo", "--fabric", "token-ring"]);
    assert_eq!(code, 2);
    assert!(err.contains("fabric.technology: --fabric token-ring: unknown variant"), "{err}");
}

#[test]
fn technologies_differ_in_the_sweep() {
    // The ring: its channels share the leaf's uplinks, where RoCE and TCP lose to congestion
    // control (NVLSTree's eight parts each cross on a NIC of their own: no two sources share a
    // network link at 2 nodes, so RoCE's loss never applies and ECMP's spread can even win).
    let busbw = |fabric: &str| -> f64 {
        let args = ["--fabric", fabric, "-b", "1G", "-e", "1G", "--algo", "Ring", "--json"];
        let (code, out, err) = fabricscope(&[&["allreduce", "--nodes", "2"][..], &args[..]].concat());
        assert_eq!(code, 0, "{err}");
        let report: serde_json::Value = serde_json::from_str(&out).unwrap();
        report["rows"][0]["busbw_gbyte_per_s"].as_f64().unwrap()
    };
    let (ib, roce, tcp) = (busbw("infiniband"), busbw("roce"), busbw("tcp"));
    assert!(ib > roce && roce > tcp, "{ib} {roce} {tcp}");
}

#[test]
fn scenario_files_run_and_flags_override_them() {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/ring-8.json");
    let (code, out, err) = fabricscope(&["allreduce", "--scenario", fixture, "-b", "256M", "-e", "256M"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("8 GPUs = 1 × custom ring of 8"), "{out}");
    let (code, out, _) = fabricscope(&["topo", "--scenario", fixture, "--nodes", "3"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("3 nodes × custom ring of 8 (24 GPUs"), "{out}");
    let (_, help, _) = fabricscope(&["--help"]);
    assert!(help.contains("\"preset\": \"custom\""), "the help shows a scenario file");
}

#[test]
fn an_imported_node_runs_and_what_the_file_lacks_is_asked_for() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fabricscope/tests/fixtures/topology");
    let matrix = format!("{dir}/dgx-h100-topo-m.txt");
    let (code, _, err) = fabricscope(&["topo", "--import", &matrix]);
    assert_eq!(code, 2);
    assert!(err.contains("does not name the GPU model: give it (--gpu"), "{err}");
    let (code, out, err) =
        fabricscope(&["topo", "--import", &matrix, "--gpu", "h100", "--nic-gbit", "400", "--nodes", "4"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("8 × H100 SXM5 80GB (NVSwitch gen 3, 18 × NVLink 4); 8 PCIe switches"), "{out}");
    assert!(err.contains("note:") && err.contains("5.0 x16"), "the reader's choices are noted: {err}");
    // NCCL's XML says all of it; its DGX H100 runs as the preset does, to the trace.
    let xml = format!("{dir}/dgx-h100-nccl-topo.xml");
    let args = ["allreduce", "--nodes", "2", "-b", "64M", "-e", "64M", "--algo", "Ring", "--proto", "Simple"];
    let (code, imported, err) = fabricscope(&[&args[..], &["--import", &xml]].concat());
    assert_eq!(code, 0, "{err}");
    let (_, preset, _) = fabricscope(&args);
    let hash = |out: &str| {
        out.lines().find(|l| l.contains(" trace ")).map(|l| l.rsplit(' ').next().unwrap().to_string())
    };
    assert_eq!(hash(&imported), hash(&preset));
    assert!(hash(&preset).is_some());
    // A flag of an imported node without one.
    let (code, _, err) = fabricscope(&["topo", "--gpu", "h100"]);
    assert_eq!(code, 2);
    assert!(err.contains("with --import FILE"), "{err}");
}

#[test]
fn a_fault_names_the_steps_that_wait_on_it() {
    let args = ["allreduce", "--nodes", "2", "-b", "1G", "-e", "1G", "--algo", "Ring", "--no-nvls"];
    let (code, out, err) = fabricscope(&[&args[..], &["--fault", "nic:0:3:0.5"]].concat());
    assert_eq!(code, 0, "{err}");
    let line = out.lines().find(|l| l.starts_with("# fabricscope fault:")).expect(&out);
    assert!(
        line.contains("node 0 NIC 3")
            && line.contains("at 50%")
            && line.contains("30 of 30 steps wait on it"),
        "{line}"
    );
    // A slow GPU: its NVLink and PCIe cables, the first crossed by every step of the ring.
    let (code, out, err) = fabricscope(&[
        "allreduce",
        "-b",
        "1G",
        "-e",
        "1G",
        "--algo",
        "Ring",
        "--no-nvls",
        "--fault",
        "gpu:0:5:0.5",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().filter(|l| l.starts_with("# fabricscope fault: GPU 5")).count(), 2, "{out}");
    assert!(out.contains("14 of 14 steps wait on it"), "{out}");
    let (code, _, err) = fabricscope(&["allreduce", "--fault", "gpu:0:9:0.5"]);
    assert_eq!(code, 2);
    assert!(err.contains("faults[0].index"), "{err}");
}

#[test]
fn train_prints_the_step_breakdown_memory_and_cost() {
    let (code, out, err) = fabricscope(&[
        "train",
        "--nodes",
        "2",
        "--model",
        "llama2-7b",
        "--tp",
        "8",
        "--pp",
        "1",
        "--global-batch",
        "16",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Llama-2 7B (6.7 B parameters) on 16 GPUs"), "{out}");
    for part in [
        "compute",
        "TP exposed",
        "DP/ZeRO exposed",
        "pipeline bubble",
        "memory per GPU",
        "cost",
        "checkpoints",
    ] {
        assert!(out.contains(part), "{part}: {out}");
    }
    // TP 8 stays in each node; DP 2 crosses the network.
    assert!(out.lines().any(|l| l.trim_start().starts_with("TP") && l.ends_with("inside nodes")), "{out}");
    assert!(out.lines().any(|l| l.trim_start().starts_with("DP") && l.ends_with("crosses nodes")), "{out}");
}

#[test]
fn train_job_files_and_json() {
    let (code, out, err) =
        fabricscope(&["train", "--job", "../../tests/fixtures/train/llama2-70b-4-nodes-roce.json", "--json"]);
    assert_eq!(code, 0, "{err}");
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    let report = &value["report"];
    assert_eq!(report["gpus"], 32);
    let b = &report["breakdown"];
    let sum: f64 = ["compute_ns", "tp_ns", "pp_ns", "dp_ns", "bubble_ns", "optimizer_ns"]
        .iter()
        .map(|k| b[k].as_f64().unwrap())
        .sum();
    assert!((sum - report["step_ns"].as_f64().unwrap()).abs() < 1.0);
    // The file's price and discount are used: money = GPU-hours × 2.5 × 0.7.
    let cost = &report["cost"];
    assert!((cost["usd"].as_f64().unwrap() - cost["gpu_hours"].as_f64().unwrap() * 2.5 * 0.7).abs() < 1e-3);
}

#[test]
fn train_bad_layouts_exit_2_naming_the_field() {
    let (code, _, err) = fabricscope(&["train", "--tp", "7", "--zero", "5", "--order", "tp-tp-dp"]);
    assert_eq!(code, 2);
    assert!(err.contains("error: order: --order tp-tp-dp"), "{err}");
    let (code, _, err) = fabricscope(&["train", "--tp", "7"]);
    assert_eq!(code, 2);
    assert!(err.contains("error: dp: TP × PP × DP = 7 × 16 × 2 = 224 but the cluster has 256 GPUs"), "{err}");
    assert!(err.contains("error: tp: 96 heads"), "{err}");
}

#[test]
fn nvls_is_on_by_default_as_in_nccl_and_collnet_is_opt_in() {
    // One DGX H100 at 1 GiB: NVLS by default, above the line rate; Ring with --no-nvls.
    let row = |args: &[&str]| {
        let (code, out, err) = fabricscope(args);
        assert_eq!(code, 0, "{err}");
        // The row's 13 nccl-tests fields, then the algorithm our per-size line names.
        let mut fields: Vec<String> = out
            .lines()
            .find(|l| !l.starts_with('#'))
            .unwrap()
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let ours = out.lines().find(|l| l.starts_with("# fabricscope size")).unwrap();
        fields.push(ours.split(": ").nth(1).unwrap().split_whitespace().next().unwrap().to_string());
        fields
    };
    let nvls = row(&["allreduce", "-b", "1G", "-e", "1G"]);
    assert_eq!(nvls[13], "NVLS");
    assert!(nvls[7].parse::<f64>().unwrap() > 450.0, "{nvls:?}");
    let plain = row(&["allreduce", "-b", "1G", "-e", "1G", "--no-nvls"]);
    assert_eq!(plain[13], "Ring");
    // Two nodes on InfiniBand: NVLSTree by default; CollNet (with NVLS off, which would win)
    // only with --collnet, or its old name, --in-network.
    assert_eq!(row(&["allreduce", "--nodes", "2", "-b", "1G", "-e", "1G"])[13], "NVLSTree");
    let two = ["allreduce", "--nodes", "2", "-b", "1G", "-e", "1G", "--no-nvls"];
    assert_ne!(row(&two)[13], "CollNet");
    for flag in ["--collnet", "--in-network"] {
        assert_eq!(row(&[&two[..], &[flag]].concat())[13], "CollNet", "{flag}");
    }
    // The header says which NCCL environment the run corresponds to.
    let (_, out, _) = fabricscope(&["allreduce", "-b", "1M", "-e", "1M", "--no-nvls"]);
    assert!(
        out.contains("# NCCL environment: NCCL_NVLS_ENABLE=0 NCCL_COLLNET_ENABLE=0 NCCL_MIN_NCHANNELS=8 NCCL_MAX_NCHANNELS=8\n"),
        "{out}"
    );
    // Forcing NVLS while it is disabled is an error, not a silent substitute.
    let (code, _, err) = fabricscope(&["allreduce", "--algo", "NVLS", "--no-nvls"]);
    assert_eq!(code, 2);
    assert!(err.contains("error: nvls: is false (NCCL_NVLS_ENABLE=0)"), "{err}");
    // NVLS on a DGX A100 (gen2 NVSwitch) is refused by name.
    let (code, _, err) = fabricscope(&["allreduce", "--preset", "dgx-a100", "--algo", "NVLS"]);
    assert_eq!(code, 2);
    assert!(err.contains("error: algorithm: NVLS reduces in the NVSwitch"), "{err}");
}

#[test]
fn the_help_names_every_node_preset() {
    let (code, out, _) = fabricscope(&["topo", "--help"]);
    assert_eq!(code, 0);
    for preset in fabricscope::catalog::NODE_PRESETS {
        assert!(out.contains(preset.id), "--preset help lacks {}: {out}", preset.id);
    }
}

#[test]
fn an_algorithm_that_does_not_apply_is_named_not_replaced() {
    let (code, _, err) = fabricscope(&["alltoall", "--algo", "Ring", "-b", "1M", "-e", "1M"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("algorithm: Ring does not run AllToAll"), "{err}");
    let (code, _, err) = fabricscope(&["alltoall", "--algo", "P2P", "-b", "1M", "-e", "1M"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn calibration_holds_and_the_readme_shows_it() {
    let (code, out, err) = fabricscope(&["calibrate", "../../tests/calibration.json"]);
    assert_eq!(code, 0, "a published figure drifted:\n{err}\n{out}");
    let readme = std::fs::read_to_string("../../README.md").unwrap();
    let start = readme.find("<!-- calibration -->\n").expect("the README's calibration table") + 21;
    let end = readme.find("<!-- /calibration -->").unwrap();
    assert_eq!(
        &readme[start..end],
        out,
        "the README's calibration table is out of date: paste `cargo xtask calibrate`"
    );
}

#[test]
fn a_drifted_figure_fails_by_name() {
    let text = std::fs::read_to_string("../../tests/calibration.json").unwrap();
    let wrong = text.replacen("\"published\": 230.0", "\"published\": 300.0", 1);
    let path = std::env::temp_dir().join(format!("fabricscope-calibration-{}.json", std::process::id()));
    std::fs::write(&path, wrong).unwrap();
    let (code, out, err) = fabricscope(&["calibrate", path.to_str().unwrap()]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("[0] 8× A100 SXM") && err.contains("tolerance ±5%"), "{err}");
    assert!(out.contains("**drifted**"), "{out}");
}

#[test]
fn compare_reads_a_log_infers_the_cluster_and_fits_it() {
    let two = "../../tests/fixtures/logs/two_runs_srun_labels.log";
    // One H100 on each of 4 hosts: no 8-GPU preset fits, and the error says what to pass.
    let (code, _, err) = fabricscope(&["compare", two]);
    assert_eq!(code, 2);
    assert!(err.contains("the log runs 1 ranks on each host, and a dgx-h100 node has 8 GPUs"), "{err}");
    // With a node of one GPU: run 2 is the AllToAll, 3 sizes, compared and fitted.
    let (code, out, err) = fabricscope(&[
        "compare",
        two,
        "--run",
        "2",
        "--scenario",
        "../../tests/fixtures/one-gpu-nodes-32.json",
        "--nodes",
        "4",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("alltoall_perf on 4 GPUs = 4 × custom star of 1"), "{out}");
    assert_eq!(out.lines().filter(|l| !l.starts_with('#')).count(), 3);
    assert!(out.contains("#   links.nic.efficiency: 0.9600 -> "), "{out}");
    assert!(out.contains("# on the page: #s=%7B%22preset%22%3A%22custom%22"), "{out}");
    // A run the log does not have, and a log that is not there, are named.
    let (code, _, err) = fabricscope(&["compare", two, "--run", "3"]);
    assert_eq!(code, 2);
    assert!(err.contains("has 2 runs with rows; run 3 is not one of them"), "{err}");
    let (code, _, err) = fabricscope(&["compare", "no-such.log"]);
    assert_eq!(code, 2);
    assert!(err.contains("error: log: cannot read no-such.log"), "{err}");
}

#[test]
fn a_tree_beyond_the_engine_is_named_with_nccls_model_time_for_it() {
    // 4,096 DGX H100, 128 MiB: the tuner's NVLSTree is beyond the engine even from what stands
    // for all at the model's 16 chunks per part (part 0 of channels 0 and 1: 2,490,304 of
    // 79,689,728 transfers); it runs at 8, and the row says this time overstates NCCL's.
    let args = ["allreduce", "--nodes", "4096", "-b", "128M", "-e", "128M"];
    let (code, out, err) = fabricscope(&[&args[..], &["--json"]].concat());
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let row = &report["rows"][0];
    assert_eq!(
        (row["algorithm"].as_str(), row["method"].as_str()),
        (Some("NVLSTree"), Some("exact by symmetry"))
    );
    let fit = &row["chunk_fit"];
    assert_eq!((fit["chunks"].as_u64(), fit["nccl_chunks"].as_u64()), (Some(8), Some(32)), "{fit}");
    assert!(fit["fine_ns"].is_null(), "{fit}");
    let (code, table, _) = fabricscope(&args);
    assert_eq!(code, 0);
    assert!(table.contains("8 chunks per part where NCCL's 32 of 64 KiB (the run at 32 that would fit it is beyond the engine: this time overstates NCCL's)"), "{table}");
    // One element more: channels of unequal length do not fold, so even that does not run; the
    // best ring row runs, and the row names the pick with NCCL's model's time for it, in the
    // JSON and in the table.
    let args = ["allreduce", "--nodes", "4096", "-b", "134217732", "-e", "134217732"];
    let (code, out, err) = fabricscope(&[&args[..], &["--json"]].concat());
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let row = &report["rows"][0];
    assert_eq!(
        (row["algorithm"].as_str(), row["tuner_pick_not_run"].as_str()),
        (Some("Ring"), Some("NVLSTree"))
    );
    let model = row["tuner_pick_time_us"].as_f64().unwrap();
    let ran = row["time_us"].as_f64().unwrap();
    assert!(model > 0.0 && model < ran, "NCCL's model {model} us for the tree, the ring row ran {ran} us");
    let (code, table, _) = fabricscope(&args);
    assert_eq!(code, 0);
    assert!(
        table.contains(&format!("(the tuner picks NVLSTree, NCCL's model {model:.2} us for it, too big")),
        "{table}"
    );
    // Forced, the tree is refused by name: a forced tree's rows keep the model's chunks, and
    // even its channels 0 and 1 are beyond the engine.
    let args = ["allreduce", "--nodes", "4096", "-b", "128M", "-e", "128M", "--algo", "NVLSTree"];
    let (code, _, err) = fabricscope(&args);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nodes:") && err.contains("more than the engine's limit"), "{err}");
}

/// Clusters whose GPU count does not divide the size (48 DGX A100, 129 DGX H100 at 1 GiB) run
/// rather than being refused: the ring as the ring of a size rounded to steps alike, which the
/// row names with its bound; NVLSTree from its channels that stand for all, as at 128 nodes.
#[test]
fn a_cluster_whose_gpus_do_not_divide_the_size_runs_and_says_how() {
    let (code, out, err) =
        fabricscope(&["allreduce", "--preset", "dgx-a100", "--nodes", "48", "-b", "1G", "-e", "1G"]);
    assert_eq!(code, 0, "{err}");
    let row = out.lines().find(|l| l.starts_with("# fabricscope size")).unwrap();
    assert!(row.contains("Ring") && row.contains("run at 268434432 of its 268435456 elements"), "{row}");
    assert!(row.contains("384 ranks × 8 channels") && row.contains("within 5%"), "{row}");
    let (code, json, err) = fabricscope(&[
        "allreduce",
        "--preset",
        "dgx-a100",
        "--nodes",
        "48",
        "-b",
        "1G",
        "-e",
        "1G",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["rows"][0]["rounded_count"], 268_434_432u64);
    assert_eq!(report["rows"][0]["size_bytes"], 1u64 << 30);
    let (code, out, err) = fabricscope(&["allreduce", "--nodes", "129", "-b", "1G", "-e", "1G"]);
    assert_eq!(code, 0, "{err}");
    let row = out.lines().find(|l| l.starts_with("# fabricscope size")).unwrap();
    assert!(row.contains("NVLSTree Simple, fitted to NCCL's chunks") && !row.contains("run at"), "{row}");
}
