//! An AllToAll too big to build whole, run from channel 0 alone where the channels are copies of
//! one another (`engine::symmetry::Symmetry::copies`, `simulation::alltoall`), against the same
//! AllToAll run whole: the sweep's row bit for bit (time, bus bandwidth, the tuner's figures, the
//! whole trace's hash streamed from channel 0), the run shown from channel 0 with the whole's
//! bytes on every link, and every transfer simulated (`Mode::Exact`) to the nanosecond. Where
//! the channels are not copies, a refusal that says why.

use fabricscope::catalog::{Routing, Technology};
use fabricscope::plan::{Admission, Budget, ENGINE_BUDGET};
use fabricscope::scenario::{Collective, FabricConfig, FabricTopology, Fault, FaultKind, Wiring};
use fabricscope::{Job, Mode, Scenario, SweepPoint};

fn budget(transfers: u64) -> Budget {
    Budget { transfers, ..ENGINE_BUDGET }
}

fn alltoall(preset: &str, nodes: u32, size_bytes: u64, fabric: FabricConfig) -> Scenario {
    Scenario {
        preset: preset.into(),
        nodes,
        size_bytes,
        collective: Collective::AllToAll,
        fabric,
        ..Scenario::default_demo()
    }
}

fn row(s: &Scenario, budget: Budget) -> SweepPoint {
    let valid = s.validate().unwrap();
    Job::within(&valid, Mode::Auto, budget).point_hashed().run().unwrap()
}

/// Channel 0's transfers: n(n - 1).
fn channel_zero(s: &Scenario) -> u64 {
    let n = s.validate().unwrap().n_ranks() as u64;
    n * (n - 1)
}

fn cases() -> Vec<(String, Scenario)> {
    let ib = FabricConfig::default;
    let mut cases = Vec::new();
    for (nodes, size) in [(2, 1 << 30), (4, 64 << 20), (8, 1 << 30), (8, 1 << 20), (16, 256 << 20)] {
        cases.push((format!("H100 x{nodes} {size} B"), alltoall("dgx-h100", nodes, size, ib())));
    }
    cases.push(("A100 x8".into(), alltoall("dgx-a100", 8, 256 << 20, ib())));
    cases.push(("B200 x4".into(), alltoall("hgx-b200", 4, 1 << 30, ib())));
    cases.push(("DGX-1 x4".into(), alltoall("dgx-1", 4, 64 << 20, ib())));
    let node_wiring = FabricConfig { wiring: Wiring::Node, ..ib() };
    cases.push(("H100 x8 node wiring".into(), alltoall("dgx-h100", 8, 256 << 20, node_wiring)));
    let oversubscribed =
        FabricConfig { topology: FabricTopology::LeafSpine, oversubscription: 4.0, radix: Some(16), ..ib() };
    cases.push(("H100 x8 4:1 leaf-spine".into(), alltoall("dgx-h100", 8, 256 << 20, oversubscribed)));
    // A slow link moves every channel alike: they stay copies.
    let mut slow = alltoall("dgx-h100", 8, 256 << 20, ib());
    slow.faults.push(Fault { kind: FaultKind::Nic, node: 3, leaf: 0, index: 0, rate: 0.25 });
    cases.push(("H100 x8 slow NIC".into(), slow));
    let mut forced = alltoall("dgx-h100", 4, 64 << 20, ib());
    forced.protocol = Some(fabricscope::collective::Protocol::Ll128);
    cases.push(("H100 x4 LL128".into(), forced));
    cases
}

#[test]
fn an_alltoall_run_from_channel_zero_is_the_whole_run() {
    for (what, s) in cases() {
        assert_channel_zero_is_the_whole(&what, &s, channel_zero(&s));
    }
}

/// `s` run from its channel 0 of `zero` transfers (a budget of as many) against the whole: the
/// sweep's row bit for bit, every transfer simulated to the nanosecond, and shown from channel 0
/// with the whole's bytes on every link and its hash; admitted so.
fn assert_channel_zero_is_the_whole(what: &str, s: &Scenario, zero: u64) {
    let whole = row(s, ENGINE_BUDGET);
    let lean = row(s, budget(zero));
    // As printed: a forced protocol the tuner does not predict for P2P has a NaN time.
    assert_eq!(format!("{lean:?}"), format!("{whole:?}"), "{what}: the row, its hash included");
    let valid = s.validate().unwrap();
    let exact = fabricscope::simulate_as(&valid, Mode::Exact).unwrap();
    assert_eq!(lean.time_us, exact.summary.time.as_us(), "{what}: every transfer, to the nanosecond");
    // Shown from channel 0 (the page's job): the whole's bytes on every link, and its hash.
    let shown = Job::within(&valid, Mode::Auto, budget(zero)).showing_images().hashed().run().unwrap();
    assert!(shown.images.is_some(), "{what}: shown from channel 0");
    assert_eq!(shown.trace.flows.len() as u64, zero, "{what}");
    assert_eq!(shown.link_bytes, exact.link_bytes, "{what}: every link's bytes");
    assert_eq!(shown.summary.time, exact.summary.time, "{what}");
    // The whole's hash as its folded run expanded gives it (every transfer simulated gives
    // the same times, its rates differing in their last bits: `tests/symmetry.rs`).
    assert_eq!(shown.hash_hex(), whole.trace_hash, "{what}: the whole trace's hash");
    assert_eq!(valid.admit(budget(zero)), Admission::Copies { transfers: zero * valid.channels() as u64 });
}

/// A SendRecv's channels each pipeline their slice over the same connections: channel 0 runs for
/// all, its row, time, link bytes and hash the whole run's.
#[test]
fn a_sendrecv_run_from_channel_zero_is_the_whole_run() {
    let ib = FabricConfig::default;
    let mut cases = Vec::new();
    for (preset, nodes, size) in [
        ("dgx-h100", 2, 1 << 30),
        ("dgx-h100", 16, 64 << 20),
        ("dgx-a100", 8, 256 << 20),
        ("dgx-1", 4, 8 << 20),
    ] {
        cases.push((
            format!("{preset} x{nodes}"),
            Scenario { collective: Collective::SendRecv, ..alltoall(preset, nodes, size, ib()) },
        ));
    }
    let node_wiring = FabricConfig { wiring: Wiring::Node, ..ib() };
    cases.push((
        "node wiring".into(),
        Scenario { collective: Collective::SendRecv, ..alltoall("dgx-h100", 8, 256 << 20, node_wiring) },
    ));
    let mut slow = Scenario { collective: Collective::SendRecv, ..alltoall("dgx-h100", 8, 256 << 20, ib()) };
    slow.faults.push(Fault { kind: FaultKind::Nic, node: 3, leaf: 0, index: 0, rate: 0.25 });
    cases.push(("slow NIC".into(), slow));
    for (what, s) in cases {
        let valid = s.validate().unwrap();
        let zero =
            fabricscope::collective::sendrecv_channel_zero(valid.n_ranks(), s.count(), valid.channels())
                .transfers
                .len() as u64;
        assert_channel_zero_is_the_whole(&what, &s, zero);
    }
    // Beyond the engine whole (2,048 GPUs at 1 GiB: 2,097,152 transfers): admitted, from channel 0.
    let s = Scenario { collective: Collective::SendRecv, ..alltoall("dgx-h100", 256, 1 << 30, ib()) };
    let valid = s.validate().expect("admitted from channel 0");
    assert_eq!(valid.admit(ENGINE_BUDGET), Admission::Copies { transfers: 2_097_152 });
    assert_eq!(row(&s, ENGINE_BUDGET).method.name(), "exact by symmetry");
}

#[test]
fn an_alltoall_whose_channels_are_not_copies_is_refused_by_name() {
    let ib = FabricConfig::default;
    let roce = FabricConfig { technology: Technology::Roce, routing: Some(Routing::Ecmp), ..ib() };
    let adaptive = FabricConfig { routing: Some(Routing::Adaptive), ..ib() };
    // 4 of 8 NICs in use: a GPU whose own NIC is not takes the least-loaded, channel by channel.
    let mut few_nics = alltoall("dgx-h100", 8, 256 << 20, ib());
    few_nics.nics_used = Some(4);
    // 9 elements a block over 8 channels: slices that differ, too small to round
    // (`collective::alltoall_rounded_count`, `tests/rounded.rs`).
    let uneven = alltoall("dgx-h100", 8, 64 * 9 * 4, ib());
    for (what, s) in [
        ("RoCE with ECMP", alltoall("dgx-h100", 8, 256 << 20, roce)),
        ("adaptive routing", alltoall("dgx-h100", 8, 256 << 20, adaptive)),
        ("4 NICs in use", few_nics),
    ] {
        let valid = s.validate().unwrap();
        let zero = channel_zero(&s);
        let error = Job::within(&valid, Mode::Auto, budget(zero)).point_hashed().run().unwrap_err();
        assert_eq!(error.field, "nodes", "{what}");
        assert!(
            error.problem.contains("channel 0") || error.problem.contains("route alike"),
            "{what}: {}",
            error.problem
        );
    }
    // Slices that differ keep channel 0 from standing for the others: a sweep's row is bounded
    // by max-min sharing instead (`tests/bounded.rs`).
    let row =
        Job::within(&uneven.validate().unwrap(), Mode::Auto, budget(channel_zero(&uneven))).point_hashed();
    assert_eq!(row.run().unwrap().method, fabricscope::Method::Bounded);
}

/// Beyond the engine whole (512 GPUs over 8 channels: 2,093,056 transfers), channel 0's 261,632
/// run for all: validation admits it and the row says how it was obtained.
#[test]
fn an_alltoall_beyond_the_engine_runs_from_channel_zero() {
    let s = alltoall("dgx-h100", 64, 64 << 20, FabricConfig::default());
    let valid = s.validate().expect("admitted from channel 0");
    assert_eq!(valid.admit(ENGINE_BUDGET), Admission::Copies { transfers: 2_093_056 });
    let row = row(&s, ENGINE_BUDGET);
    assert_eq!(row.method.name(), "exact by symmetry");
    assert!(row.time_us > 0.0);
    // A run whose trace would be expanded to 2 million flows is refused at once, by name.
    let error = fabricscope::simulate(&valid).unwrap_err();
    assert!(
        error.field == "nodes" && error.problem.contains("a sweep's row (fabricscope alltoall)"),
        "{error}"
    );
}
