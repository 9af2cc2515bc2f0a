//! A ring whose chunks differ by an element (a size not a multiple of ranks × channels
//! elements), too big to run every transfer, runs as the ring of the size rounded down to that
//! multiple, whose steps are alike (`collective::ring_rounded_count`, `Simulation::rounded`).
//! Here, where the engine runs both rings whole, the asked ring's time is within
//! `ROUNDING_BOUND` of the rounded ring's, over a matrix of collectives, protocols, presets,
//! fabrics and chunks of 64 to 100,003 elements (not within 1/p: chunks that differ by an element finish
//! apart, and channels that share a link drift out of step); and a ring beyond the engine runs
//! as its rounded ring, says so, and gives that ring's time and trace.

use fabricscope::catalog::Technology;
use fabricscope::collective::{ring_rounded_count, Algorithm, Protocol, LEAST_ROUNDED_CHUNK};
use fabricscope::scenario::{FabricConfig, FabricTopology, Wiring};
use fabricscope::{simulate, simulate_as, Collective, Method, Mode, Scenario, ValidScenario, ROUNDING_BOUND};

fn scenario(preset: &str, nodes: u32, collective: Collective, count: u64, protocol: Protocol) -> Scenario {
    Scenario {
        preset: preset.into(),
        nodes,
        collective,
        size_bytes: count * 4,
        algorithm: (collective == Collective::AllReduce).then_some(Algorithm::Ring),
        protocol: Some(protocol),
        nvls: false,
        fabric: FabricConfig { topology: FabricTopology::LeafSpine, ..FabricConfig::default() },
        ..Scenario::default_demo()
    }
}

/// Both rings run whole: the asked ring's time within `ROUNDING_BOUND` of the rounded ring's;
/// `worst` keeps the largest error seen and what it was of.
fn within_bound(what: String, (asked, rounded): (&ValidScenario, &ValidScenario), worst: &mut (f64, String)) {
    let t_asked = simulate_as(asked, Mode::Exact).unwrap().summary.time.0 as f64;
    let t_rounded = simulate_as(rounded, Mode::Exact).unwrap().summary.time.0 as f64;
    let error = (t_asked - t_rounded) / t_rounded;
    println!("{what}: asked {t_asked} ns, rounded {t_rounded} ns: {:+.3}%", 100.0 * error);
    assert!(error.abs() <= ROUNDING_BOUND, "{what}: {:+.3}%", 100.0 * error);
    if error.abs() > worst.0.abs() {
        *worst = (error, what);
    }
}

#[test]
fn the_asked_ring_is_within_the_bound_of_its_rounded_ring() {
    let mut worst = (0.0f64, String::new());
    let mut rows = 0;
    for (preset, nodes) in [("dgx-h100", 3), ("dgx-a100", 2), ("hgx-b200", 5), ("dgx-1", 3)] {
        for collective in [Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter] {
            for protocol in [Protocol::Simple, Protocol::Ll128, Protocol::Ll] {
                for (chunk, extra) in [
                    (LEAST_ROUNDED_CHUNK, 1u64),
                    (311, 0),
                    (1395, 0),
                    (4099, 1),
                    (16411, 0),
                    (40009, 0),
                    (100003, 1),
                ] {
                    let probe = scenario(preset, nodes, collective, 1 << 20, protocol).validate().unwrap();
                    let unit = probe.n_ranks() as u64 * probe.channels() as u64;
                    // A remainder of an element, or of all but one of a multiple.
                    let count = chunk * unit + if extra == 1 { 1 } else { unit - 1 };
                    let asked = scenario(preset, nodes, collective, count, protocol).validate().unwrap();
                    let (n, channels) = (asked.n_ranks(), asked.channels());
                    let rounded = ring_rounded_count(collective, n, count, channels)
                        .unwrap_or_else(|| panic!("{preset} x{nodes} {collective:?} {count}: rounds"));
                    assert_eq!(rounded, chunk * unit);
                    let smaller = asked.with_size(rounded * 4).unwrap();
                    let what = format!("{preset} x{nodes} {collective:?} {protocol:?} {count} elements");
                    within_bound(what, (&asked, &smaller), &mut worst);
                    rows += 1;
                }
            }
        }
    }
    println!("{rows} rows; worst {:+.3}%: {}", 100.0 * worst.0, worst.1);
    assert!(rows >= 250);
}

/// The same bound on other fabrics: RoCE (ECMP hashing, shared links below line rate), 2:1
/// oversubscription and all of a node's NICs on one leaf.
#[test]
fn the_bound_holds_on_other_fabrics() {
    let leaf_spine = FabricConfig { topology: FabricTopology::LeafSpine, ..FabricConfig::default() };
    let fabrics = [
        ("RoCE ECMP", FabricConfig { technology: Technology::Roce, ..leaf_spine.clone() }),
        ("IB 2:1", FabricConfig { oversubscription: 2.0, radix: Some(16), ..leaf_spine.clone() }),
        ("IB node wiring", FabricConfig { wiring: Wiring::Node, ..leaf_spine }),
    ];
    let mut worst = (0.0f64, String::new());
    for (name, fabric) in fabrics {
        for collective in [Collective::AllReduce, Collective::AllGather] {
            for protocol in [Protocol::Simple, Protocol::Ll128] {
                for chunk in [LEAST_ROUNDED_CHUNK + 371, 40_009] {
                    let with = |count: u64| Scenario {
                        fabric: fabric.clone(),
                        ..scenario("dgx-h100", 4, collective, count, protocol)
                    };
                    let probe = with(1 << 20).validate().unwrap();
                    let unit = probe.n_ranks() as u64 * probe.channels() as u64;
                    let (asked, rounded) = (
                        with(chunk * unit + unit / 2).validate().unwrap(),
                        with(chunk * unit).validate().unwrap(),
                    );
                    let what = format!("{name} {collective:?} {protocol:?} chunks of {chunk}");
                    within_bound(what, (&asked, &rounded), &mut worst);
                }
            }
        }
    }
    println!("worst {:+.3}%: {}", 100.0 * worst.0, worst.1);
}

/// Chunks of fewer than `LEAST_ROUNDED_CHUNK` elements, or steps alike already: no rounding.
#[test]
fn small_chunks_and_rings_alike_are_not_rounded() {
    let unit = 48 * 8;
    assert_eq!(ring_rounded_count(Collective::AllReduce, 48, unit * 4096, 8), None, "alike");
    assert_eq!(ring_rounded_count(Collective::AllReduce, 48, unit * (LEAST_ROUNDED_CHUNK - 1) + 5, 8), None);
    assert_eq!(
        ring_rounded_count(Collective::AllGather, 48, unit * LEAST_ROUNDED_CHUNK + 5, 8),
        Some(unit * LEAST_ROUNDED_CHUNK)
    );
    assert_eq!(ring_rounded_count(Collective::Broadcast, 48, unit * LEAST_ROUNDED_CHUNK + 5, 8), None);
}

/// 48 DGX A100 (384 GPUs) at 1 GiB, NVLS absent, the tuner's choice: a ring of 2,353,152
/// transfers whose chunks differ by an element, refused before. It runs as the ring of
/// 268,434,432 elements, says so, and its figures are that ring's, given for the size asked.
#[test]
fn a_ring_beyond_the_engine_runs_as_its_rounded_ring() {
    let asked = Scenario {
        preset: "dgx-a100".into(),
        nodes: 48,
        size_bytes: 1 << 30,
        fabric: FabricConfig::default(),
        ..Scenario::default_demo()
    }
    .validate()
    .expect("admitted: the rounded ring runs");
    let sim = simulate(&asked).unwrap();
    assert_eq!(sim.schedule.algorithm, Algorithm::Ring);
    let rounding = sim.rounding().expect("rounded");
    assert_eq!((rounding.rounded, rounding.asked, rounding.unit), (268_434_432, 1 << 28, 384 * 8));
    assert_eq!(sim.summary.size_bytes, 1 << 30, "the size asked");
    assert!(
        matches!(sim.summary.method, Method::Extrapolated | Method::SteadyState),
        "{:?}",
        sim.summary.method
    );
    let own = simulate(&asked.with_size(rounding.rounded * 4).unwrap()).unwrap();
    assert_eq!(own.rounding(), None);
    assert_eq!((sim.summary.time, sim.summary.method), (own.summary.time, own.summary.method));
    assert_eq!(sim.hash_hex(), own.hash_hex(), "the rounded ring's trace");
    let busbw = own.summary.busbw_gbyte_per_s * (1 << 28) as f64 / rounding.rounded as f64;
    assert!((sim.summary.busbw_gbyte_per_s - busbw).abs() < 1e-9 * busbw, "busbw of the size asked");
}

/// An AllToAll beyond the limit whole whose blocks do not split evenly over its channels runs
/// from channel 0 at the count rounded down so that they do (`alltoall_rounded_count`), and its
/// row says so. Where the engine also runs the asked AllToAll transfer by transfer, its time is
/// within `ROUNDING_BOUND` of the rounded one's, over presets, protocols and slices of 64 to
/// 100,003 elements a channel, each block short by 1 to 7 elements (fewer than its channels).
#[test]
fn an_alltoall_beyond_the_limit_runs_at_its_rounded_count() {
    use fabricscope::collective::alltoall_rounded_count;
    use fabricscope::plan::{Budget, ENGINE_BUDGET};
    let mut worst = (0.0f64, String::new());
    for (preset, nodes) in [("dgx-h100", 3), ("dgx-a100", 2), ("hgx-b200", 5), ("dgx-1", 3)] {
        for protocol in [Protocol::Simple, Protocol::Ll128, Protocol::Ll] {
            for (slice, short) in [(LEAST_ROUNDED_CHUNK, 1), (311, 3), (4099, 7), (100003, 5)] {
                let with = |count: u64| Scenario {
                    preset: preset.into(),
                    nodes,
                    collective: Collective::AllToAll,
                    size_bytes: count * 4,
                    protocol: Some(protocol),
                    ..Scenario::default_demo()
                };
                let probe = with(1 << 20).validate().unwrap();
                let (n, channels) = (probe.n_ranks() as u64, probe.channels() as u64);
                // Short by fewer elements than channels (DGX-1 runs 4 channels).
                let count = ((slice + 1) * channels - short.min(channels - 1)) * n;
                let asked = with(count).validate().unwrap();
                let rounded = alltoall_rounded_count(n as u32, count, channels as u32);
                assert_eq!(rounded, Some(slice * channels * n), "{preset}: slices of {slice}");
                let exact = simulate_as(&asked, Mode::Exact).unwrap().summary.time.0 as f64;
                let budget = Budget { transfers: n * (n - 1), ..ENGINE_BUDGET };
                let row = fabricscope::Job::within(&asked, Mode::Auto, budget).point_hashed().run().unwrap();
                assert_eq!((row.rounded_count, row.method), (rounded, Method::Symmetric), "{preset}");
                assert_eq!(row.size_bytes, count * 4, "the size asked");
                let t_rounded = row.time_us * 1e3;
                let error = (exact - t_rounded) / t_rounded;
                let what = format!("{preset} x{nodes} AllToAll {protocol:?} slices of {slice}");
                println!("{what}: asked {exact} ns, rounded {t_rounded} ns: {:+.3}%", 100.0 * error);
                assert!(error.abs() <= ROUNDING_BOUND, "{what}: {:+.3}%", 100.0 * error);
                if error.abs() > worst.0.abs() {
                    worst = (error, what);
                }
            }
        }
    }
    println!("worst {:+.3}%: {}", 100.0 * worst.0, worst.1);
    // Fewer than 64 elements a channel: not rounded (the run refuses it by name).
    assert_eq!(alltoall_rounded_count(24, 24 * (63 * 8 + 5), 8), None);
    assert_eq!(alltoall_rounded_count(24, 24 * 64 * 8, 8), None, "alike already");
}
