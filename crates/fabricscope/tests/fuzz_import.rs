//! The topology readers (`nvidia-smi topo -m`, NCCL's XML) under hostile input: the fixtures
//! cut, spliced, duplicated and garbled. Nothing may panic or hang; every error names a line of
//! the input; and whatever imports is a node validation accepts and the builder builds.
//!
//! `FABRICSCOPE_FUZZ_CASES` sets the number of inputs (default 5,000; the long run in the
//! closing notes used 1,000,000).

#[path = "support/mangle.rs"]
mod mangle;
#[path = "support/rng.rs"]
mod rng;
use fabricscope::import::{import, ImportOptions};
use fabricscope::Scenario;
use rng::Rng;

/// Words a damaged topology may hold.
const TOKENS: &[&str] = &[
    "X",
    "NV18",
    "NV0",
    "NV99",
    "NV4294967296",
    "SYS",
    "PIX",
    "PXB",
    "NODE",
    "PHB",
    "GPU0",
    "NIC0",
    "GPU99",
    "<pci>",
    "</cpu>",
    "<gpu dev=\"0\" sm=\"90\">",
    "count=\"4294967295\"",
    "speed=\"-1\"",
    "speed=\"1e309\"",
    "tclass=\"0x068000\"",
    "<cpu>",
    "&lt;",
    "",
];

fn check(text: &str, options: &ImportOptions) -> bool {
    let lines = text.lines().count().max(1);
    match import(text, options) {
        Err(errors) => {
            assert!(!errors.is_empty());
            for e in &errors {
                assert!(e.line <= lines + 1, "error on line {} of {lines}: {}", e.line, e.problem);
                assert!(!e.problem.is_empty());
            }
            false
        }
        Ok(imported) => {
            let s = Scenario {
                preset: "imported".into(),
                imported: Some(imported.node),
                nodes: 2,
                ..Scenario::default_demo()
            };
            let valid = s.validate().unwrap_or_else(|e| panic!("an import validation refuses: {e:?}"));
            let topology = valid.topology();
            assert_eq!(topology.gpus_per_node(), valid.preset().gpus_per_node);
            true
        }
    }
}

#[test]
fn fuzz_topology_files() {
    let cases: u64 =
        std::env::var("FABRICSCOPE_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(5_000);
    let seeds = mangle::seeds("tests/fixtures/topology");
    assert!(seeds.len() >= 4);
    let given = ImportOptions { gpu: Some("h100".into()), nic_gbit_per_s: Some(400.0) };
    let v100 = ImportOptions { gpu: Some("v100".into()), nic_gbit_per_s: Some(100.0) };
    for text in &seeds {
        assert!(check(text, &given) || check(text, &v100), "a fixture does not import");
    }
    let mut rng = Rng(0x7090_106E, 0);
    let (mut imported, mut refused) = (0u64, 0u64);
    for case in 0..cases {
        let seed = &seeds[rng.below(seeds.len())];
        let text = mangle::mangle(&mut rng, seed, TOKENS);
        let options = [&ImportOptions::default(), &given, &v100][rng.below(3)].clone();
        match std::panic::catch_unwind(|| check(&text, &options)) {
            Ok(true) => imported += 1,
            Ok(false) => refused += 1,
            Err(_) => panic!("topology fuzz case {case} broke:\n{text}"),
        }
    }
    // Both outcomes are exercised, not only the errors.
    if cases >= 1000 {
        assert!(imported > cases / 20 && refused > cases / 20, "{imported} imported, {refused} refused");
    }
}
