//! The scenario fixtures in `tests/fixtures/`, each against its closed form.

use fabricscope::{simulate, Scenario, Simulation};

fn load(name: &str) -> Simulation {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let scenario = Scenario::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    simulate(&scenario.validate().unwrap_or_else(|e| panic!("{name}: {e:?}"))).unwrap()
}

/// NCCL's Ring/Simple launch (8.4 µs), then 14 steps of NCCL's NVLink-class Simple latency
/// (3.4 µs, which counts 0.5 µs of wire: `protocol::measured_wire_ns`) plus what the path's
/// links take beyond that wire, and one chunk.
fn ring_time_ns(size: u64, bandwidth: f64, link_latency_ns: u64, hops: u64) -> u64 {
    let wire = fabricscope::collective::protocol::measured_wire_ns(fabricscope::topology::LinkKind::NvLink);
    let alpha = 3_400 + (hops * link_latency_ns).saturating_sub(wire);
    8_400 + fabricscope::analytic::ring_allreduce_rounded_ns(8, size, alpha, bandwidth)
}

#[test]
fn a_ring_of_8_runs_at_its_link_rate() {
    let sim = load("ring-8.json");
    assert_eq!(sim.summary.time.as_ns(), ring_time_ns(256 << 20, 100.0, 500, 1));
}

#[test]
fn a_star_of_8_pays_two_hops_per_step() {
    let sim = load("star-8.json");
    assert_eq!(sim.summary.time.as_ns(), ring_time_ns(256 << 20, 100.0, 500, 2));
}

#[test]
fn a_full_mesh_ring_uses_only_its_neighbour_links() {
    let sim = load("full-mesh-8.json");
    assert_eq!(sim.summary.time.as_ns(), ring_time_ns(256 << 20, 50.0, 250, 1));
    let used = sim.trace.link_bytes.iter().filter(|&&b| b > 0.0).count();
    assert_eq!(used, 8, "8 of the 56 directed links carry the one ring");
}

#[test]
fn a_two_level_cluster_is_bound_by_its_nics() {
    let sim = load("two-level-8x4.json");
    // 8 channels, one per NIC, each at one NIC's 25 GB/s: B = 200 GB/s, equal to the node's switch.
    let ab = sim.alpha_beta().unwrap();
    assert!((ab.bandwidth_bytes_per_ns - 200.0).abs() < 1e-9, "{ab:?}");
    let busbw = sim.summary.busbw_gbyte_per_s;
    assert!(busbw > 0.95 * 200.0 && busbw <= 200.0, "{busbw}");
}

#[test]
fn the_roce_fixture_is_deterministic_and_collides() {
    let a = load("dgx-h100-2-nodes-roce-leaf-spine.json");
    let b = load("dgx-h100-2-nodes-roce-leaf-spine.json");
    assert_eq!(a.trace, b.trace);
    // Not only the same twice in this process: the same as when the golden file was written.
    assert_eq!(a.hash_hex(), golden_hash("fixture dgx-h100-2-nodes-roce-leaf-spine.json"));
    assert!(a.summary.busbw_gbyte_per_s < load_with_routing("adaptive").summary.busbw_gbyte_per_s);
}

/// The trace hash `tests/golden/behaviour.txt` records for a case.
fn golden_hash(case: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/behaviour.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines().skip_while(|line| *line != case);
    assert_eq!(lines.next(), Some(case), "{case} is in the golden file");
    let trace = lines.next().unwrap().trim_start();
    trace.strip_prefix("trace ").unwrap().split(' ').next().unwrap().to_string()
}

fn load_with_routing(routing: &str) -> Simulation {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/dgx-h100-2-nodes-roce-leaf-spine.json");
    let text = std::fs::read_to_string(path).unwrap().replace("\"ecmp\"", &format!("\"{routing}\""));
    simulate(&Scenario::from_json(&text).unwrap().validate().unwrap()).unwrap()
}

#[test]
fn custom_nodes_are_checked() {
    let bad = r#"{"preset":"custom","custom":{"shape":"ring","gpus":0,"link":{"bandwidth_gbyte_per_s":0}},"nodes":1,"collective":"all_reduce","size_bytes":8}"#;
    let errors = Scenario::from_json(bad).unwrap().validate().unwrap_err();
    assert_eq!(errors[0].field, "custom.gpus");
    let missing = r#"{"preset":"custom","nodes":1,"collective":"all_reduce","size_bytes":8}"#;
    assert_eq!(Scenario::from_json(missing).unwrap().validate().unwrap_err()[0].field, "custom");
    let shape = r#"{"preset":"custom","custom":{"shape":"torus","gpus":8,"link":{"bandwidth_gbyte_per_s":1}},"nodes":1,"collective":"all_reduce","size_bytes":8}"#;
    let error = Scenario::from_json(shape).unwrap_err();
    assert_eq!(error.field, "custom.shape");
}
