//! The behaviour file: what the core produces for every scenario fixture, every lesson step,
//! every training fixture, a sweep of presets × fabrics × collectives × algorithms and the
//! validation of every fuzz-corpus input, one block per case, compared with
//! `tests/golden/behaviour.txt`.
//!
//! It exists so that a refactor can prove it changed nothing: the file was written before the
//! architecture moves and every move must leave it byte-identical. A behaviour change that is
//! meant rewrites it with `UPDATE_GOLDEN=1 cargo test -p fabricscope --test golden`, and the diff
//! goes into the commit for review.
//!
//! Each block names the case, then the trace hash (the core's own FNV over every flow) beside
//! figures hashed here by an independent FNV-1a over their JSON: the summary, the tuner's table,
//! the α-β prediction, the steps' descriptions, the per-link and per-rank CSVs, mean utilisation
//! and frames sampled at seven times.

use fabricscope::train::TrainScenario;
use fabricscope::{simulate, Scenario, Simulation};
#[path = "support/golden_file.rs"]
mod golden_file;

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// FNV-1a 64 over `text`; independent of the core's own hashing.
fn fnv(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= byte as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap()
}

/// Everything a simulation shows, as stable text.
fn describe(out: &mut String, sim: &Simulation) {
    let s = &sim.summary;
    let end = sim.end().as_ns();
    writeln!(
        out,
        "  trace {} end {end} ns, {} steps, {} transfers, {} batches",
        sim.hash_hex(),
        sim.n_steps(),
        sim.n_transfers(),
        sim.batches()
    )
    .unwrap();
    writeln!(
        out,
        "  busbw {:.6} GB/s algbw {:.6} GB/s bottleneck {:?} at {:.6}",
        s.busbw_gbyte_per_s, s.algbw_gbyte_per_s, s.bottleneck, s.bottleneck_utilisation
    )
    .unwrap();
    let choice = sim.tuning.choice();
    writeln!(out, "  tuner picks {} (table {})", json(choice), fnv(&json(&sim.tuning))).unwrap();
    if let Some(steady) = &sim.steady {
        writeln!(out, "  steady {}", json(steady)).unwrap();
    }
    writeln!(out, "  summary {}", fnv(&json(s))).unwrap();
    writeln!(out, "  alpha-beta {}", json(&sim.alpha_beta())).unwrap();
    let steps: Vec<_> = (0..sim.n_steps().min(64)).map(|k| sim.step_info(k, sim.focus_rank)).collect();
    writeln!(out, "  steps {} starts {}", fnv(&json(&steps)), fnv(&json(&sim.step_starts))).unwrap();
    writeln!(
        out,
        "  links.csv {} transfers.csv {} utilisation {}",
        fnv(&sim.links_csv()),
        fnv(&sim.transfers_csv()),
        fnv(&json(&sim.mean_utilisation()))
    )
    .unwrap();
    let frames: Vec<_> = (0..=6u64)
        .map(|k| {
            let t = fabricscope::units::SimTime(end * k / 6);
            let frame = sim.sample(t);
            (json(&frame), sim.step_at(t), sim.fold(t))
        })
        .collect();
    writeln!(out, "  frames {}", fnv(&format!("{frames:?}"))).unwrap();
    let sizes = [4u64, 1 << 16, 1 << 24, 1 << 30];
    let tunings: Vec<_> = sizes.iter().map(|&size| sim.tuning_at(size)).collect();
    writeln!(out, "  tuning at 4 B..1 GiB {}", fnv(&json(&tunings))).unwrap();
}

fn case(out: &mut String, name: &str, scenario: &Scenario) {
    writeln!(out, "{name}").unwrap();
    match scenario.validate() {
        Err(errors) => {
            let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            writeln!(out, "  invalid: {}", text.join(" | ")).unwrap();
        }
        Ok(valid) => match simulate(&valid) {
            Ok(sim) => describe(out, &sim),
            Err(error) => writeln!(out, "  not simulated: {error}").unwrap(),
        },
    }
}

fn train_case(out: &mut String, name: &str, job: &TrainScenario, compare: bool) {
    writeln!(out, "{name}").unwrap();
    let valid = match job.validate() {
        Ok(valid) => valid,
        Err(errors) => {
            let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            writeln!(out, "  invalid: {}", text.join(" | ")).unwrap();
            return;
        }
    };
    let report = valid.run();
    writeln!(
        out,
        "  step {:.3} ns, exposed share {:.9}, mfu {:.9}, report {}",
        report.step_ns,
        report.comm_exposed_share,
        report.mfu,
        fnv(&json(&report))
    )
    .unwrap();
    writeln!(out, "  breakdown {}", json(&report.breakdown)).unwrap();
    if compare {
        let fabrics = fabricscope::train::compare_fabrics(job).map(|rows| json(&rows));
        writeln!(out, "  fabrics {}", fnv(&format!("{fabrics:?}"))).unwrap();
        let scaling = fabricscope::train::scaling(job, &[1, 2]);
        writeln!(out, "  scaling {scaling:?}").unwrap();
    }
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    files
}

fn fixtures(out: &mut String) {
    for path in json_files(&repo().join("tests/fixtures")) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let scenario = Scenario::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
        case(out, &format!("fixture {name}"), &scenario);
    }
    for path in json_files(&repo().join("tests/fixtures/train")) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let job = TrainScenario::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
        train_case(out, &format!("training fixture {name}"), &job, true);
    }
}

fn lessons(out: &mut String) {
    let text = std::fs::read_to_string(repo().join("web/lessons.json")).unwrap();
    let lessons: serde_json::Value = serde_json::from_str(&text).unwrap();
    for lesson in lessons.as_array().unwrap() {
        let id = lesson["id"].as_str().unwrap();
        for (k, step) in lesson["steps"].as_array().unwrap().iter().enumerate() {
            let name = format!("lesson {id} step {k}");
            if let Some(scenario) = step.get("scenario") {
                case(out, &name, &Scenario::from_json(&scenario.to_string()).unwrap());
            }
            if let Some(job) = step.get("train") {
                train_case(out, &name, &TrainScenario::from_json(&job.to_string()).unwrap(), false);
            }
        }
    }
}

fn sweep(out: &mut String) {
    let presets = [
        "dgx-h100",
        "dgx-a100",
        "hgx-b200",
        "hgx-h800",
        "dgx-1",
        "pcie-h100",
        "hgx-b300",
        "hgx-h20",
        "pcie-h100-nvlink",
    ];
    let technologies = ["infiniband", "roce", "tcp", "efa"];
    let collectives =
        ["all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "all_to_all", "send_recv"];
    for preset in presets {
        for technology in technologies {
            for collective in collectives {
                let text = format!(
                    r#"{{"preset":"{preset}","nodes":2,"collective":"{collective}","size_bytes":1048576,"fabric":{{"technology":"{technology}"}}}}"#
                );
                case(
                    out,
                    &format!("sweep {preset} {technology} {collective}"),
                    &Scenario::from_json(&text).unwrap(),
                );
            }
        }
    }
    // Forced algorithms and protocols, in-network reduction, fabrics with collisions.
    let more = [
        r#"{"preset":"dgx-h100","nodes":4,"collective":"all_reduce","size_bytes":65536,"algorithm":"Tree","protocol":"LL"}"#,
        r#"{"preset":"dgx-h100","nodes":4,"collective":"all_reduce","size_bytes":16777216,"algorithm":"Hierarchical"}"#,
        r#"{"preset":"dgx-h100","nodes":1,"collective":"all_reduce","size_bytes":268435456,"algorithm":"NVLS"}"#,
        r#"{"preset":"dgx-h100","nodes":1,"collective":"all_reduce","size_bytes":268435456,"in_network":true}"#,
        r#"{"preset":"dgx-h100","nodes":4,"collective":"all_reduce","size_bytes":16777216,"algorithm":"CollNet"}"#,
        r#"{"preset":"dgx-h100","nodes":4,"collective":"all_reduce","size_bytes":16777216,"in_network":true}"#,
        r#"{"preset":"dgx-h100","nodes":2,"collective":"all_reduce","size_bytes":4194304,"protocol":"LL128"}"#,
        r#"{"preset":"dgx-a100","nodes":2,"collective":"all_reduce","size_bytes":16777216,"nics_used":4}"#,
        r#"{"preset":"dgx-h100","nodes":2,"collective":"all_reduce","size_bytes":16777216,"pinning":"misaligned"}"#,
        r#"{"preset":"dgx-h100","nodes":2,"collective":"all_reduce","size_bytes":16777216,"virtualized":true}"#,
        r#"{"preset":"dgx-h100","nodes":4,"collective":"all_to_all","size_bytes":16777216,"fabric":{"technology":"roce","topology":"leaf_spine","wiring":"node","radix":16}}"#,
        r#"{"preset":"dgx-h100","nodes":4,"collective":"all_to_all","size_bytes":16777216,"fabric":{"technology":"roce","topology":"leaf_spine","wiring":"node","radix":16,"routing":"adaptive"}}"#,
        r#"{"preset":"dgx-h100","nodes":8,"collective":"all_reduce","size_bytes":16777216,"fabric":{"topology":"fat_tree","radix":8,"oversubscription":2}}"#,
        r#"{"preset":"dgx-h100","nodes":2,"collective":"all_reduce","size_bytes":16777216,"links":{"nic":{"bandwidth_gbyte_per_s":12.5,"latency_ns":2000},"nvlink":{"efficiency":0.5}}}"#,
        r#"{"preset":"dgx-h100","nodes":2,"collective":"broadcast","size_bytes":16777216,"root":9,"channels":3}"#,
        r#"{"preset":"dgx-h100","nodes":128,"collective":"all_reduce","size_bytes":1073741824,"channels":1}"#,
        r#"{"preset":"dgx-h100","nodes":64,"collective":"all_gather","size_bytes":1073741824,"channels":2,"fabric":{"technology":"roce"}}"#,
        r#"{"preset":"dgx-h100","nodes":64,"collective":"all_reduce","size_bytes":1073741824}"#,
        // NCCL's ring at 8 channels on 512 GPUs: an extrapolated steady state.
        r#"{"preset":"dgx-h100","nodes":64,"collective":"all_reduce","size_bytes":1073741824,"algorithm":"Ring"}"#,
    ];
    for (k, text) in more.iter().enumerate() {
        case(out, &format!("variant {k}: {text}"), &Scenario::from_json(text).unwrap());
    }
    let scenario = Scenario::from_json(more[0]).unwrap().validate().unwrap();
    let sizes = fabricscope::sweep_sizes(8, 1 << 20, 4);
    let points = fabricscope::sweep(&scenario, &sizes).unwrap();
    writeln!(out, "sweep of sizes 8 B..1 MiB on 4 nodes: {}", fnv(&json(&points))).unwrap();
}

fn corpus(out: &mut String) {
    for path in json_files(&repo().join("crates/fabricscope/tests/fuzz-corpus")) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let verdict = match Scenario::from_json(&text) {
            Err(error) => format!("does not parse: {error}"),
            Ok(scenario) => match scenario.validate() {
                Ok(valid) => format!("valid, {} ranks, {} channels", valid.n_ranks(), valid.channels()),
                Err(errors) => errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join(" | "),
            },
        };
        writeln!(out, "corpus {name}: {verdict}").unwrap();
    }
}

#[test]
fn behaviour_is_unchanged() {
    let mut out = String::new();
    fixtures(&mut out);
    lessons(&mut out);
    sweep(&mut out);
    corpus(&mut out);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/behaviour.txt");
    golden_file::check(&path, &out, "behaviour");
}
