//! Servers read from `nvidia-smi topo -m` and NCCL's topology XML (`fabricscope::import`),
//! from the fixtures in `tests/fixtures/topology/`: what each becomes, that the model runs on
//! it, and that a bad file is an error naming its line.

use fabricscope::collective::{Algorithm, Protocol};
use fabricscope::import::{import, ImportOptions, Imported};
use fabricscope::{simulate, Scenario};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/topology/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn options(gpu: Option<&str>, nic: Option<f64>) -> ImportOptions {
    ImportOptions { gpu: gpu.map(Into::into), nic_gbit_per_s: nic }
}

fn on(imported: &Imported, nodes: u32) -> Scenario {
    Scenario {
        preset: "imported".into(),
        imported: Some(imported.node.clone()),
        nodes,
        size_bytes: 1 << 30,
        ..Scenario::default_demo()
    }
}

fn preset(id: &str, nodes: u32) -> Scenario {
    Scenario { preset: id.into(), nodes, size_bytes: 1 << 30, ..Scenario::default_demo() }
}

fn busbw(mut s: Scenario, algorithm: Algorithm) -> (f64, String) {
    s.algorithm = Some(algorithm);
    s.protocol = Some(Protocol::Simple);
    s.nvls = false;
    let sim = simulate(&s.validate().unwrap_or_else(|e| panic!("{e:?}"))).unwrap();
    (sim.summary.busbw_gbyte_per_s, sim.hash_hex())
}

#[test]
fn nccls_dump_of_a_dgx_h100_is_the_dgx_h100_preset() {
    let imported = import(&fixture("dgx-h100-nccl-topo.xml"), &ImportOptions::default()).unwrap();
    let node = &imported.node;
    assert_eq!((node.gpu.as_str(), node.gpus, node.nvswitch_links), ("h100", 8, 18));
    assert_eq!((node.sockets, node.pcie_switches.clone()), (2, vec![0, 0, 1, 1]));
    assert_eq!(node.gpu_switch, vec![0, 0, 1, 1, 2, 2, 3, 3]);
    assert_eq!(node.nic_switch, vec![0, 0, 1, 1, 2, 2, 3, 3]);
    assert_eq!((node.pcie_generation, node.nic_gbit_per_s), (5, 400.0));
    // SM 90 with 18 NVLinks is H100, H200 or H20: the choice is a note, not a silence.
    assert!(imported.notes.iter().any(|n| n.contains("h200, h20")), "{:?}", imported.notes);
    // The same cluster as the preset, to the trace: same busbw, same hash, on one and two nodes.
    for nodes in [1, 2] {
        let reference = preset("dgx-h100", nodes);
        for algorithm in [Algorithm::Ring, Algorithm::Tree] {
            if nodes == 1 && algorithm == Algorithm::Tree {
                continue;
            }
            assert_eq!(
                busbw(on(&imported, nodes), algorithm),
                busbw(reference.clone(), algorithm),
                "{nodes} nodes"
            );
        }
    }
}

#[test]
fn a_dgx_h100_matrix_reads_as_an_nvswitch_node_of_eight_pcie_switches() {
    let text = fixture("dgx-h100-topo-m.txt");
    // The matrix names neither the GPU nor the NICs' speed: the error says what to give.
    let errors = import(&text, &ImportOptions::default()).unwrap_err();
    assert!(
        errors[0].problem.contains("18 NVLinks per GPU: h100, h200, h20, b200, gb200, b300"),
        "{errors:?}"
    );
    let errors = import(&text, &options(Some("h100"), None)).unwrap_err();
    assert!(errors[0].problem.contains("--nic-gbit"), "{errors:?}");
    let imported = import(&text, &options(Some("h100"), Some(400.0))).unwrap();
    let node = &imported.node;
    assert_eq!((node.gpus, node.nvswitch_links, node.sockets), (8, 18, 2));
    // GPU i and NIC i share a switch (PIX): 8 switches, 4 on each socket.
    assert_eq!(node.gpu_switch, (0..8).collect::<Vec<_>>());
    assert_eq!(node.nic_switch, (0..8).collect::<Vec<_>>());
    assert_eq!(node.pcie_switches, vec![0, 0, 0, 0, 1, 1, 1, 1]);
    assert!(imported.notes.iter().any(|n| n.contains("5.0 x16")), "{:?}", imported.notes);
    // With a switch per GPU-NIC pair the ring across two nodes runs as on the preset (the PCIe
    // switch is not the bottleneck either way): within 1%.
    let (ours, _) = busbw(on(&imported, 2), Algorithm::Ring);
    let (theirs, _) = busbw(preset("dgx-h100", 2), Algorithm::Ring);
    assert!((ours / theirs - 1.0).abs() < 0.01, "imported {ours:.1} vs preset {theirs:.1} GB/s");
}

#[test]
fn a_dgx1_matrix_is_its_hybrid_cube_mesh_and_rings_stay_on_nvlink() {
    let imported = import(&fixture("dgx-1-topo-m.txt"), &options(Some("v100"), Some(100.0))).unwrap();
    let node = &imported.node;
    assert_eq!((node.gpus, node.nvswitch_links, node.nvlinks.len()), (8, 0, 16));
    assert!(node.nvlinks.contains(&[0, 3, 2]) && node.nvlinks.contains(&[2, 6, 1]));
    assert_eq!((node.sockets, node.pcie_switches.len(), node.nic_switch.clone()), (2, 4, vec![0, 1, 2, 3]));
    let valid = on(&imported, 1).validate().unwrap();
    // A ring that uses an NVLink on every hop, and its reverse.
    let rings = &valid.preset().rings;
    assert_eq!(rings.len(), 2);
    for ring in rings {
        for w in 0..8 {
            let (a, b) = (ring[w].min(ring[(w + 1) % 8]), ring[w].max(ring[(w + 1) % 8]));
            assert!(node.nvlinks.iter().any(|l| (l[0], l[1]) == (a, b)), "{ring:?}: {a}-{b}");
        }
    }
    // One node's ring AllReduce on it is within 15% of the DGX-1 preset's (which weighs four
    // rings, where the search finds one and its reverse).
    let (ours, _) = busbw(on(&imported, 1), Algorithm::Ring);
    let (theirs, _) = busbw(preset("dgx-1", 1), Algorithm::Ring);
    assert!((ours / theirs - 1.0).abs() < 0.15, "imported {ours:.1} vs preset {theirs:.1} GB/s");
}

#[test]
fn a_pcie_workstation_matrix_has_no_nvlink_and_one_socket() {
    let imported =
        import(&fixture("workstation-4-pcie-topo-m.txt"), &options(Some("h100-pcie"), Some(100.0))).unwrap();
    let node = &imported.node;
    assert_eq!((node.gpus, node.nvswitch_links, node.nvlinks.len(), node.sockets), (4, 0, 0, 1));
    assert_eq!((node.gpu_switch.clone(), node.nic_switch.clone()), (vec![0, 0, 1, 1], vec![0]));
    // Two nodes of it simulate; the one NIC per node is what the ring waits on.
    let (busbw, _) = busbw(on(&imported, 2), Algorithm::Ring);
    assert!(busbw > 0.0 && busbw < 12.5, "{busbw}");
}

#[test]
fn bad_files_name_their_line() {
    let good = fixture("dgx-1-topo-m.txt");
    let opts = options(Some("v100"), Some(100.0));
    // A cell the legend does not know.
    let bad = good.replacen("NV2\tSYS\tSYS\tSYS", "NV2\tSYS\tQQQ\tSYS", 1);
    let errors = import(&bad, &opts).unwrap_err();
    assert_eq!(errors[0].line, 3, "{errors:?}");
    assert!(errors[0].problem.contains("'QQQ' is not in the legend"), "{errors:?}");
    // A pair whose two cells disagree.
    let lines: Vec<&str> = good.lines().collect();
    let mut changed: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    changed[2] = changed[2].replacen("NV1", "NV2", 1);
    let errors = import(&changed.join("\n"), &opts).unwrap_err();
    assert!(errors[0].problem.contains("differs from"), "{errors:?}");
    // A truncated matrix: the header's devices without rows.
    let cut: String = lines[..6].join("\n");
    let errors = import(&cut, &opts).unwrap_err();
    assert!(errors.iter().any(|e| e.problem.contains("no row for it")), "{errors:?}");
    // SYS between devices the other cells put under one CPU.
    let sys = good.replacen("PIX\tPHB\tSYS\tSYS\t0-19", "PIX\tSYS\tSYS\tSYS\t0-19", 1).replacen(
        "mlx5_1\tPHB",
        "mlx5_1\tSYS",
        1,
    );
    let errors = import(&sys, &opts).unwrap_err();
    assert!(errors[0].problem.contains("on one socket"), "{errors:?}");
    // Not a topology at all.
    assert!(import("hello", &opts).unwrap_err()[0].problem.contains("no matrix header"));
    // XML: cut off, the wrong root, an unknown GPU model.
    let xml = fixture("dgx-h100-nccl-topo.xml");
    let errors = import(&xml[..xml.len() / 2], &ImportOptions::default()).unwrap_err();
    assert!(errors[0].line > 1 && errors[0].problem.contains("not well-formed"), "{errors:?}");
    let errors = import("<graphs/>", &ImportOptions::default()).unwrap_err();
    assert!(errors[0].problem.contains("<system>"), "{errors:?}");
    let errors = import(&xml, &options(Some("z9000"), None)).unwrap_err();
    assert!(errors[0].problem.contains("unknown GPU 'z9000'"), "{errors:?}");
    // A GPU the file gives more NVLinks than the model has.
    let errors = import(&xml, &options(Some("h800"), None)).unwrap_err();
    assert!(errors[0].problem.contains("18 NVLinks; an H800"), "{errors:?}");
}

#[test]
fn what_the_file_does_not_say_is_noted() {
    // One GPU with two NVLinks down, one NIC of another speed, an element the model lacks.
    let xml = fixture("dgx-h100-nccl-topo.xml")
        .replacen("count=\"18\"", "count=\"16\"", 1)
        .replacen("speed=\"400000\"", "speed=\"200000\"", 1)
        .replacen("<nic>", "<nic><gdrcopy/>", 1);
    let imported = import(&xml, &ImportOptions::default()).unwrap();
    let notes = imported.notes.join("\n");
    assert!(notes.contains("GPU 0 has 16 NVLinks into the NVSwitch, the others 18"), "{notes}");
    assert!(notes.contains("nvlink:NODE:0:0.889"), "{notes}");
    assert!(notes.contains("the most common: 400 Gb/s"), "{notes}");
    assert!(notes.contains("<gdrcopy> is not part of the model"), "{notes}");
    assert_eq!(imported.node.nic_gbit_per_s, 400.0);
}

#[test]
fn an_imported_node_is_checked_like_any_field() {
    let imported = import(&fixture("dgx-h100-nccl-topo.xml"), &ImportOptions::default()).unwrap();
    let mut s = on(&imported, 2);
    s.imported.as_mut().unwrap().gpu_switch[3] = 9;
    let errors = s.validate().unwrap_err();
    assert_eq!(errors[0].field, "imported.gpu_switch[3]", "{errors:?}");
    let mut s = on(&imported, 2);
    s.preset = "dgx-h100".into();
    assert_eq!(s.validate().unwrap_err()[0].field, "imported");
    let mut s = on(&imported, 2);
    s.imported = None;
    assert_eq!(s.validate().unwrap_err()[0].field, "imported");
    // Through JSON and back: the scenario carries the node whole.
    let s = on(&imported, 2);
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
}
