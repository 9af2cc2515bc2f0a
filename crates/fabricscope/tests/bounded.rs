//! An AllToAll bounded by max-min sharing rather than simulated (`Method::Bounded`,
//! `simulation::bounded`), against the same AllToAll simulated (every transfer, or channel 0
//! for all): the exact run ends within the two bounds, the row's time is the lower one, and
//! where the bounds apply they are refused by name otherwise. 48 scenarios: 2 to 128 nodes;
//! H100, A100, B200, DGX-1; rail and node wiring; a 2:1 and a 4:1 leaf-spine, a 3-tier fat-tree;
//! a slow NIC, a slow NVLink and a link down; Simple, LL and LL128; blocks from none to 16 MiB,
//! split evenly over the channels or not.

use fabricscope::plan::{Admission, Budget, ENGINE_BUDGET};
use fabricscope::scenario::{Collective, FabricConfig, FabricTopology, Fault, FaultKind, Wiring};
use fabricscope::{Job, Method, Mode, Scenario, SweepPoint};

/// A budget that bounds every AllToAll beyond one transfer.
const BOUNDING: Budget = Budget { transfers: 1, copies: 0, ..ENGINE_BUDGET };

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

fn bounded(s: &Scenario) -> Result<SweepPoint, fabricscope::ScenarioError> {
    Job::within(&s.validate().unwrap(), Mode::Auto, BOUNDING).point().run()
}

fn cases() -> Vec<(String, Scenario)> {
    let ib = FabricConfig::default;
    let mut cases = Vec::new();
    let sizes = [8, 4 << 10, 36 << 10, 1 << 20, 4 << 20, 64 << 20, 1 << 30];
    for nodes in [2, 8, 16, 32] {
        for size in sizes {
            cases.push((format!("H100 x{nodes} {size} B"), alltoall("dgx-h100", nodes, size, ib())));
        }
    }
    // Blocks that do not split evenly over the 8 channels (the exact run is whole).
    for (nodes, size) in [(3, 3 << 20), (5, 1_000_000 * 4), (12, 100_004 * 4), (40, 7 << 20)] {
        cases.push((format!("H100 x{nodes} {size} B, uneven"), alltoall("dgx-h100", nodes, size, ib())));
    }
    for (nodes, size) in [(64, 1 << 30), (64, 4 << 20), (128, 1 << 30), (128, 64 << 20)] {
        cases.push((format!("H100 x{nodes} {size} B"), alltoall("dgx-h100", nodes, size, ib())));
    }
    cases.push(("A100 x8".into(), alltoall("dgx-a100", 8, 256 << 20, ib())));
    cases.push(("B200 x4".into(), alltoall("hgx-b200", 4, 1 << 30, ib())));
    cases.push(("DGX-1 x4".into(), alltoall("dgx-1", 4, 64 << 20, ib())));
    let node_wiring = FabricConfig { wiring: Wiring::Node, ..ib() };
    cases.push(("H100 x8 node wiring".into(), alltoall("dgx-h100", 8, 256 << 20, node_wiring)));
    let four =
        FabricConfig { topology: FabricTopology::LeafSpine, oversubscription: 4.0, radix: Some(16), ..ib() };
    cases.push(("H100 x8 4:1 leaf-spine".into(), alltoall("dgx-h100", 8, 256 << 20, four)));
    let two =
        FabricConfig { topology: FabricTopology::LeafSpine, oversubscription: 2.0, radix: Some(64), ..ib() };
    cases.push(("H100 x32 2:1 leaf-spine".into(), alltoall("dgx-h100", 32, 1 << 30, two)));
    let three = FabricConfig { topology: FabricTopology::FatTree, radix: Some(16), ..ib() };
    cases.push(("H100 x16 3-tier radix 16".into(), alltoall("dgx-h100", 16, 64 << 20, three)));
    for (name, kind, rate) in [("slow NIC", FaultKind::Nic, 0.25), ("slow NVLink", FaultKind::Nvlink, 0.5)] {
        let mut slow = alltoall("dgx-h100", 8, 256 << 20, ib());
        slow.faults.push(Fault { kind, node: 3, leaf: 0, index: 0, rate });
        cases.push((format!("H100 x8 {name}"), slow));
    }
    let mut down =
        alltoall("dgx-h100", 16, 64 << 20, FabricConfig { topology: FabricTopology::LeafSpine, ..ib() });
    down.faults.push(Fault { kind: FaultKind::LeafUplink, node: 0, leaf: 0, index: 0, rate: 0.0 });
    cases.push(("H100 x16 a leaf's up-link down".into(), down));
    for protocol in [fabricscope::collective::Protocol::Ll, fabricscope::collective::Protocol::Ll128] {
        let mut forced = alltoall("dgx-h100", 4, 64 << 20, ib());
        forced.protocol = Some(protocol);
        cases.push((format!("H100 x4 {}", protocol.nccl_name()), forced));
    }
    cases
}

/// The exact run (every transfer, or channel 0 for all where the channels are copies) ends
/// within the bounds, and the bounded row's time is the lower bound: its figures those of that
/// time, the tuner's table the same.
#[test]
fn every_exact_run_ends_within_its_bounds() {
    let (mut on_lower, mut worst) = (0, (0.0f64, String::new()));
    let cases = cases();
    for (what, s) in &cases {
        let valid = s.validate().unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let exact = Job::new(&valid, Mode::Auto).point().run().unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(matches!(exact.method, Method::Exact | Method::Symmetric), "{what}: {:?}", exact.method);
        let row = bounded(s).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(row.method, Method::Bounded, "{what}");
        let upper = row.upper_bound_us.expect("an upper bound");
        let (time, lower) = (exact.time_us * 1e3, row.time_us * 1e3);
        assert!(
            time >= lower - 0.5 && time <= upper * 1e3 + 0.5,
            "{what}: {time} ns not in [{lower}, {}]",
            upper * 1e3
        );
        on_lower += usize::from((time - lower).abs() < 0.5);
        let off = (time - lower) / time;
        if off > worst.0 {
            worst = (off, what.clone());
        }
        let algbw = s.size_bytes as f64 / lower;
        assert!((row.algbw_gbyte_per_s - algbw).abs() <= 1e-9 * algbw, "{what}");
        assert_eq!(
            (row.algorithm, row.protocol, row.tuner_time_us.to_bits()),
            (exact.algorithm, exact.protocol, exact.tuner_time_us.to_bits()),
            "{what}: the tuner's table from the same bytes"
        );
        assert!(row.trace_hash.is_empty(), "{what}: no trace, no hash");
    }
    println!(
        "{on_lower} of {} exact runs end on the lower bound to the nanosecond; the farthest {:.3}% above it ({})",
        cases.len(),
        100.0 * worst.0,
        worst.1
    );
}

/// Where even channel 0 is beyond the engine, validation admits the AllToAll as bounded: a
/// sweep's row, whose bounds are a few µs apart at 1 GiB; a run to show says so by name.
#[test]
fn an_alltoall_beyond_channel_0_is_a_bounded_row() {
    let s = alltoall("dgx-h100", 192, 1 << 30, FabricConfig::default());
    let valid = s.validate().unwrap();
    let transfers = 1536 * 1535 * 8;
    assert_eq!(valid.admit(ENGINE_BUDGET), Admission::Bounded { transfers });
    let row = Job::new(&valid, Mode::Auto).point_hashed().run().unwrap();
    assert_eq!(row.method, Method::Bounded);
    let gap = row.upper_bound_us.unwrap() - row.time_us;
    assert!(gap > 0.0 && gap < 2.0, "{gap} us apart");
    let refused = fabricscope::simulate(&valid).map(|sim| sim.summary.time).unwrap_err();
    assert_eq!(refused.field, "nodes");
    assert!(refused.problem.contains("a sweep's row"), "{}", refused.problem);
}

/// The page shows an AllToAll beyond its transfers bounded (`PAGE_BUDGET`): 1,024 GPUs at 1 GiB
/// give a bounded sweep row's figures and bounds, every link's exact bytes (channel 0's run for all
/// at 32 nodes, where both run), no flow, and a frame that draws each link's mean rate over
/// the bound until the run ends.
#[test]
fn the_page_shows_a_bounded_alltoall_as_its_row() {
    use fabricscope::plan::PAGE_BUDGET;
    let s = alltoall("dgx-h100", 128, 1 << 30, FabricConfig::default());
    let valid = s.validate().unwrap();
    assert!(matches!(valid.admit(PAGE_BUDGET), Admission::Bounded { .. }));
    let shown = Job::admitted(&valid, PAGE_BUDGET).unwrap().showing_images().hashed().run().unwrap();
    let row = bounded(&s).unwrap();
    let bounds = shown.bounded.expect("bounded");
    assert_eq!(shown.summary.method, Method::Bounded);
    assert_eq!(
        (shown.summary.time.as_ns() as f64 / 1e3, bounds.upper_ns as f64 / 1e3),
        (row.time_us, row.upper_bound_us.unwrap())
    );
    assert_eq!(shown.n_transfers(), 1024 * 1023 * 8);
    assert!(shown.trace.flows.is_empty());
    let middle = shown.sample(fabricscope::units::SimTime(bounds.lower_ns / 2));
    assert!(middle.in_flight.is_empty());
    for (id, _) in shown.topology.links() {
        let rate = shown.link_bytes[id.index()] / bounds.lower_ns as f64;
        assert_eq!(middle.link_rate[id.index()], rate);
    }
    assert!(shown.sample(shown.end()).link_rate.iter().all(|&r| r == 0.0));
    // Link bytes and time against a run where one fits: 32 nodes, beyond the page's transfers,
    // channel 0 for all.
    let small = alltoall("dgx-h100", 32, 1 << 30, FabricConfig::default()).validate().unwrap();
    let page = Job::admitted(&small, PAGE_BUDGET).unwrap().showing_images().run().unwrap();
    let exact = fabricscope::simulate(&small).unwrap();
    assert_eq!(page.summary.method, Method::Bounded);
    assert_eq!(page.link_bytes, exact.link_bytes);
    assert!(bounds_hold(&page, exact.summary.time.as_ns()));
}

fn bounds_hold(sim: &fabricscope::Simulation, exact_ns: u64) -> bool {
    sim.bounded.is_some_and(|b| b.lower_ns <= exact_ns && exact_ns <= b.upper_ns)
}

/// Where the channels do not route alike or the fabric loses efficiency when shared, no bound
/// holds: refused, and the reason named.
#[test]
fn the_bounds_are_refused_where_they_do_not_hold() {
    let roce = FabricConfig { technology: fabricscope::catalog::Technology::Roce, ..FabricConfig::default() };
    let adaptive =
        FabricConfig { routing: Some(fabricscope::catalog::Routing::Adaptive), ..FabricConfig::default() };
    for (what, fabric, nics) in
        [("RoCE", roce, None), ("adaptive", adaptive, None), ("4 NICs", FabricConfig::default(), Some(4))]
    {
        let mut s = alltoall("dgx-h100", 8, 64 << 20, fabric);
        s.nics_used = nics;
        match bounded(&s) {
            Ok(row) => panic!("{what}: bounded as {:?}", row.method),
            Err(e) => {
                assert!(e.field == "nodes" && e.problem.contains("more than the engine"), "{what}: {e}")
            }
        }
    }
    // Beyond the routes a row may take: refused, the count and the limit named.
    let s = alltoall("dgx-h100", 8, 64 << 20, FabricConfig::default());
    let budget = Budget { bounded: 1000, ..BOUNDING };
    let error = Job::within(&s.validate().unwrap(), Mode::Auto, budget).point().run().unwrap_err();
    assert!(error.problem.contains("routes here, more than 1000"), "{error}");
}
