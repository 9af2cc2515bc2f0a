//! The fidelity contract (#14): wherever the exact engine also runs, what `simulate` gives by
//! its faster methods (channel symmetry, proved steady states) agrees with simulating every
//! transfer: within 1% on time, busbw and every link's bytes, over a matrix of collectives,
//! algorithms, protocols, fabrics, presets and wirings. The worst rows are printed.

use fabricscope::catalog::{Routing, Technology};
use fabricscope::collective::{Algorithm, Protocol};
use fabricscope::scenario::{FabricConfig, FabricTopology, Wiring};
use fabricscope::{simulate, simulate_as, Collective, Method, Mode, Scenario};

/// The fabrics of the contract: InfiniBand with D-mod-K, RoCE with ECMP, adaptive routing,
/// 2:1 and 4:1 oversubscription, TCP, and a top-of-rack wiring.
fn fabrics() -> Vec<(&'static str, FabricConfig)> {
    let leaf_spine = FabricConfig { topology: FabricTopology::LeafSpine, ..FabricConfig::default() };
    vec![
        ("IB D-mod-K", leaf_spine.clone()),
        ("RoCE ECMP", FabricConfig { technology: Technology::Roce, ..leaf_spine.clone() }),
        ("IB adaptive", FabricConfig { routing: Some(Routing::Adaptive), ..leaf_spine.clone() }),
        ("IB 2:1", FabricConfig { oversubscription: 2.0, ..leaf_spine.clone() }),
        ("IB 4:1", FabricConfig { oversubscription: 4.0, ..leaf_spine.clone() }),
        ("TCP", FabricConfig { technology: Technology::Tcp, ..leaf_spine.clone() }),
        ("IB node wiring", FabricConfig { wiring: Wiring::Node, ..leaf_spine }),
    ]
}

/// One row: the scenario, its method, and the worst relative errors (time, busbw, a link's bytes).
struct Row {
    what: String,
    method: Method,
    time: f64,
    busbw: f64,
    link: f64,
}

fn compare(what: String, s: &Scenario) -> Row {
    let valid = s.validate().unwrap_or_else(|e| panic!("{what}: {e:?}"));
    let fast = simulate(&valid).unwrap_or_else(|e| panic!("{what}: {e}"));
    let exact = simulate_as(&valid, Mode::Exact).unwrap_or_else(|e| panic!("{what}: {e}"));
    let rel = |a: f64, b: f64| if b == 0.0 { a.abs() } else { (a / b - 1.0).abs() };
    let link = fast.link_bytes.iter().zip(&exact.link_bytes).map(|(&a, &b)| rel(a, b)).fold(0.0, f64::max);
    Row {
        what,
        method: fast.summary.method,
        time: rel(fast.summary.time.as_ns() as f64, exact.summary.time.as_ns() as f64),
        busbw: rel(fast.summary.busbw_gbyte_per_s, exact.summary.busbw_gbyte_per_s),
        link,
    }
}

#[test]
fn the_fast_paths_agree_with_every_transfer_simulated() {
    let mut rows = Vec::new();
    let collectives = [
        (
            Collective::AllReduce,
            vec![Some(Algorithm::Ring), Some(Algorithm::Tree), Some(Algorithm::Hierarchical)],
        ),
        (Collective::AllGather, vec![None]),
        (Collective::ReduceScatter, vec![None]),
        (Collective::Broadcast, vec![None]),
        (Collective::Reduce, vec![None]),
        (Collective::AllToAll, vec![None]),
        (Collective::SendRecv, vec![None]),
    ];
    // Two nodes of each preset on each fabric, each collective and algorithm, each protocol.
    for preset in ["dgx-h100", "dgx-a100", "hgx-b200", "dgx-1"] {
        for (fabric_name, fabric) in fabrics() {
            for (collective, algorithms) in &collectives {
                for &algorithm in algorithms {
                    for protocol in [Protocol::Simple, Protocol::Ll, Protocol::Ll128] {
                        let s = Scenario {
                            preset: preset.into(),
                            nodes: 2,
                            collective: *collective,
                            size_bytes: 4 << 20,
                            algorithm,
                            protocol: Some(protocol),
                            fabric: fabric.clone(),
                            ..Scenario::default_demo()
                        };
                        let what = format!(
                            "{preset} x2, {fabric_name}, {} {}, {protocol:?}",
                            collective.nccl_name(),
                            algorithm.map_or("(tuner)", |a| a.nccl_name())
                        );
                        if s.validate().is_ok() {
                            rows.push(compare(what, &s));
                        }
                    }
                }
            }
        }
    }
    // In-network reduction inside and across nodes: NVLS on one DGX H100, CollNet (SHARP) on two.
    for (what, s) in [
        (
            "dgx-h100 x1, NVLS, AllReduce 256 MiB",
            Scenario { algorithm: Some(Algorithm::Nvls), ..Scenario::default_demo() },
        ),
        (
            "dgx-h100 x2, IB, CollNet, AllReduce 64 MiB",
            Scenario {
                nodes: 2,
                size_bytes: 64 << 20,
                collnet: true,
                algorithm: Some(Algorithm::CollNet),
                ..Scenario::default_demo()
            },
        ),
    ] {
        rows.push(compare(what.into(), &s));
    }
    // Where the fast paths matter: NCCL's 8 channels at 1 GiB (channel symmetry), and rings of
    // 128 GPUs at 1 and 2 channels (proved steady states).
    for (nodes, channels) in [(4u32, None), (8, None), (16, Some(1)), (16, Some(2))] {
        let s = Scenario {
            nodes,
            size_bytes: 1 << 30,
            channels,
            algorithm: Some(Algorithm::Ring),
            protocol: Some(Protocol::Simple),
            fabric: FabricConfig { topology: FabricTopology::LeafSpine, ..FabricConfig::default() },
            ..Scenario::default_demo()
        };
        rows.push(compare(format!("dgx-h100 x{nodes}, IB, AllReduce Ring 1 GiB, {channels:?} channels"), &s));
    }
    let worst = |r: &Row| r.time.max(r.busbw).max(r.link);
    rows.sort_by(|a, b| worst(b).total_cmp(&worst(a)));
    let fast = rows.iter().filter(|r| r.method != Method::Exact).count();
    println!("{} scenarios, {fast} by a faster method; the worst:", rows.len());
    for r in rows.iter().take(5) {
        println!(
            "  {:<60} {:<24} time {:.2e}  busbw {:.2e}  link bytes {:.2e}",
            r.what,
            r.method.name(),
            r.time,
            r.busbw,
            r.link
        );
    }
    for r in &rows {
        assert!(worst(r) <= 0.01, "{}: {} off by {:.3}%", r.what, r.method.name(), 100.0 * worst(r));
    }
    assert!(fast >= 100, "only {fast} scenarios ran by a faster method: the matrix tests little");
}
