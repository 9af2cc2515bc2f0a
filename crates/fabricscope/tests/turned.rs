//! A SendRecv beyond even its channel 0, run from a few nodes' sources of channel 0 standing for
//! every transfer (`simulation::turned`: channels that are copies, ranks that turn by whole
//! nodes), against the same SendRecv run from channel 0 or whole: the sweep's row bit for bit
//! (time, bus bandwidth, the tuner's figures, the whole trace's hash streamed), every transfer
//! simulated (`Mode::Exact`) to the nanosecond. Where the ranks do not turn, a refusal that says
//! why; the page, which runs no such row, is not admitted.

use fabricscope::plan::{Admission, Budget, ENGINE_BUDGET, PAGE_BUDGET};
use fabricscope::scenario::{Collective, FabricConfig, FabricTopology, Fault, FaultKind, Wiring};
use fabricscope::{Job, Mode, Scenario, SweepPoint};

fn sendrecv(preset: &str, nodes: u32, size_bytes: u64, fabric: FabricConfig) -> Scenario {
    Scenario {
        preset: preset.into(),
        nodes,
        size_bytes,
        collective: Collective::SendRecv,
        fabric,
        ..Scenario::default_demo()
    }
}

fn row(s: &Scenario, budget: Budget) -> Result<SweepPoint, String> {
    let valid = s.validate().unwrap();
    Job::within(&valid, Mode::Auto, budget).point_hashed().run().map_err(|e| e.to_string())
}

/// Channel 0's transfers: every rank's chunks.
fn channel_zero(s: &Scenario) -> u64 {
    let valid = s.validate().unwrap();
    fabricscope::collective::sendrecv_channel_zero(valid.n_ranks(), s.count(), valid.channels())
        .transfers
        .len() as u64
}

#[test]
fn a_sendrecv_run_from_a_few_nodes_sources_is_the_whole_run() {
    let ib = FabricConfig::default;
    let mut cases = Vec::new();
    for (preset, nodes, size) in [
        ("dgx-h100", 2, 1 << 30),
        ("dgx-h100", 8, 1 << 30),
        ("dgx-h100", 16, 64 << 20),
        ("dgx-h100", 12, 1 << 20),
        ("dgx-h100", 64, 256 << 20),
        ("dgx-a100", 8, 256 << 20),
        ("hgx-b200", 4, 1 << 30),
    ] {
        cases.push((format!("{preset} x{nodes} {size} B"), sendrecv(preset, nodes, size, ib())));
    }
    let node_wiring = FabricConfig { wiring: Wiring::Node, ..ib() };
    cases.push(("node wiring".into(), sendrecv("dgx-h100", 8, 256 << 20, node_wiring)));
    let oversubscribed =
        FabricConfig { topology: FabricTopology::LeafSpine, oversubscription: 4.0, radix: Some(16), ..ib() };
    // Leaves of 12 NICs at 4:1: 24 nodes turn by 12.
    cases.push(("4:1 leaf-spine".into(), sendrecv("dgx-h100", 24, 64 << 20, oversubscribed)));
    let mut ll128 = sendrecv("dgx-h100", 4, 64 << 20, ib());
    ll128.protocol = Some(fabricscope::collective::Protocol::Ll128);
    cases.push(("LL128".into(), ll128));
    for (what, s) in cases {
        let valid = s.validate().unwrap();
        let zero = channel_zero(&s);
        let whole = row(&s, ENGINE_BUDGET).unwrap();
        // One node's sources of channel 0 fit, channel 0 does not: the few nodes' run.
        let turned = row(&s, Budget { transfers: zero - 1, ..ENGINE_BUDGET }).unwrap();
        assert_eq!(format!("{turned:?}"), format!("{whole:?}"), "{what}: the row, its hash included");
        assert_eq!(turned.method.name(), "exact by symmetry", "{what}");
        let exact = fabricscope::simulate_as(&valid, Mode::Exact).unwrap();
        assert_eq!(turned.time_us, exact.summary.time.as_us(), "{what}: every transfer, to the nanosecond");
        assert_eq!(turned.trace_hash, exact.hash_hex(), "{what}: every transfer's trace");
    }
}

#[test]
fn a_sendrecv_whose_ranks_do_not_turn_is_refused_by_name() {
    let ib = FabricConfig::default;
    // A slow NIC keeps the channels copies, but no turn by whole nodes maps node 3 onto another.
    let mut slow = sendrecv("dgx-h100", 8, 256 << 20, ib());
    slow.faults.push(Fault { kind: FaultKind::Nic, node: 3, leaf: 0, index: 0, rate: 0.25 });
    // 12 nodes on leaves of 8: a turn by 4 or 6 carries a hop inside a leaf onto one across two.
    let cut = FabricConfig { topology: FabricTopology::LeafSpine, radix: Some(16), ..ib() };
    for (what, s) in
        [("slow NIC", slow), ("a leaf group cut short", sendrecv("dgx-h100", 12, 256 << 20, cut))]
    {
        let error = row(&s, Budget { transfers: channel_zero(&s) - 1, ..ENGINE_BUDGET }).unwrap_err();
        assert!(
            error.contains("turning its ranks by whole nodes does not keep their routes"),
            "{what}: {error}"
        );
    }
}

#[test]
fn a_sendrecv_at_cluster_scale_runs_from_a_few_nodes_in_a_row_and_not_in_the_page() {
    // 2,048 DGX H100 at 1 GiB: 16,777,216 transfers, channel 0 2,097,152.
    let s = sendrecv("dgx-h100", 2048, 1 << 30, FabricConfig::default());
    let valid = s.validate().expect("admitted from a few nodes' sources");
    assert_eq!(valid.admit(ENGINE_BUDGET), Admission::Copies { transfers: 16_777_216 });
    assert!(matches!(valid.admit(PAGE_BUDGET), Admission::Refused { .. }));
    let big = row(&s, ENGINE_BUDGET).unwrap();
    assert_eq!(big.method.name(), "exact by symmetry");
    assert_eq!(big.trace_hash.len(), 16);
    // Each connection moves 128 MiB a channel over its own links whatever the cluster's size:
    // within a few hops' latency of 256 nodes', run from channel 0.
    let small = row(&sendrecv("dgx-h100", 256, 1 << 30, FabricConfig::default()), ENGINE_BUDGET).unwrap();
    let ratio = big.time_us / small.time_us;
    assert!((1.0..1.01).contains(&ratio), "{} us at 2,048 nodes, {} us at 256", big.time_us, small.time_us);
    // A run to show needs every transfer.
    let error = Job::within(&valid, Mode::Auto, ENGINE_BUDGET).run().unwrap_err().to_string();
    assert!(error.contains("a run whose trace is expanded needs every transfer"), "{error}");
}
