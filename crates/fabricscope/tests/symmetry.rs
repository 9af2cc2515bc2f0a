//! Channel symmetry (`engine::symmetry`): where the engine proves a schedule's channels images
//! of one another and runs channel 0 alone on the folded links, the expanded run is the exact
//! run's. Compared over a matrix of collectives, algorithms, protocols, presets and fabrics; the
//! proof must also refuse what it cannot prove (ECMP, RoCE, a slow link that breaks the symmetry).

use fabricscope::catalog::Routing;
use fabricscope::collective::{Algorithm, Protocol};
use fabricscope::engine::symmetry::Symmetry;
use fabricscope::scenario::{FabricTopology, Wiring};
use fabricscope::{simulate_as, Collective, Mode, Scenario};

fn scenario(
    preset: &str,
    nodes: u32,
    collective: Collective,
    algorithm: Option<Algorithm>,
    size: u64,
) -> Scenario {
    Scenario {
        preset: preset.into(),
        nodes,
        collective,
        size_bytes: size,
        algorithm,
        ..Scenario::default_demo()
    }
}

/// Runs both ways and compares everything recorded; returns whether the run folded.
fn agree(s: &Scenario) -> bool {
    let valid = s.validate().unwrap_or_else(|e| panic!("{s:?}: {e:?}"));
    let exact = simulate_as(&valid, Mode::Exact).unwrap();
    let folded = simulate_as(&valid, Mode::Symmetric).unwrap();
    let proved = Symmetry::find_strided(&exact.topology, &exact.schedule, valid.policy()).is_some();
    let what = format!(
        "{} {} {:?} {} nodes, {} B, {} channels",
        s.preset,
        exact.schedule.algorithm.nccl_name(),
        s.collective,
        s.nodes,
        s.size_bytes,
        exact.schedule.n_channels
    );
    assert_eq!(folded.schedule.transfers.len(), exact.schedule.transfers.len(), "{what}");
    let (a, b) = (exact.summary.time.as_ns() as f64, folded.summary.time.as_ns() as f64);
    assert!((a - b).abs() <= 1e-9 * a + 1.0, "{what}: time {a} exact, {b} folded");
    assert_eq!(exact.link_bytes, folded.link_bytes, "{what}: link bytes");
    assert_eq!(exact.step_starts, folded.step_starts, "{what}: step starts");
    // Every time to the nanosecond; every rate and link peak to 1e-12 (sums of the same shares
    // taken in another order may differ in their last bits: AllToAll's do, rings' never have).
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0);
    for (i, (x, y)) in exact.trace.flows.iter().zip(&folded.trace.flows).enumerate() {
        assert_eq!((x.transfer, &x.path, x.bytes), (y.transfer, &y.path, y.bytes), "{what}: flow {i}");
        assert_eq!(
            (x.issued, x.started, x.finished),
            (y.issued, y.started, y.finished),
            "{what}: flow {i}'s times"
        );
        assert_eq!(x.segments.len(), y.segments.len(), "{what}: flow {i}'s rate changes");
        for (p, q) in x.segments.iter().zip(&y.segments) {
            assert!(
                p.from == q.from && close(p.rate_bytes_per_ns, q.rate_bytes_per_ns),
                "{what}: flow {i}: {p:?} / {q:?}"
            );
        }
    }
    for (l, (x, y)) in exact.trace.link_peak.iter().zip(&folded.trace.link_peak).enumerate() {
        assert!(close(*x, *y), "{what}: link {l} peak {x} / {y}");
    }
    let same_bits = exact.trace.hash() == folded.trace.hash();
    if proved && exact.schedule.algorithm == Algorithm::Ring {
        assert!(same_bits, "{what}: a folded ring differs from the exact one in its last bits");
    }
    let want = if proved { fabricscope::Method::Symmetric } else { fabricscope::Method::Exact };
    // NVLSTree cut into fewer chunks than NCCL's: the method of the runs its time is fitted from.
    assert_eq!(folded.chunk_fit.map_or(folded.summary.method, |fit| fit.runs), want, "{what}");
    eprintln!(
        "{what}: {}",
        match (proved, same_bits) {
            (true, true) => "folded, the same trace bit for bit",
            (true, false) => "folded, rates equal to the last bits",
            (false, _) => "not symmetric: run exactly",
        }
    );
    proved
}

#[test]
fn folded_runs_are_the_exact_runs() {
    let mut folded = 0;
    let mut cases = Vec::new();
    for preset in ["dgx-h100", "dgx-a100", "hgx-b200"] {
        for nodes in [1, 2, 4] {
            for collective in [Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter] {
                cases.push(scenario(preset, nodes, collective, Some(Algorithm::Ring), 64 << 20));
            }
            cases.push(scenario(preset, nodes, Collective::Broadcast, None, 64 << 20));
            cases.push(scenario(preset, nodes, Collective::AllReduce, Some(Algorithm::Tree), 4 << 20));
        }
    }
    for collective in [Collective::AllToAll, Collective::SendRecv] {
        cases.push(scenario("dgx-h100", 1, collective, None, 256 << 20));
        cases.push(scenario("dgx-h100", 2, collective, None, 1 << 20));
    }
    for protocol in [Protocol::Ll, Protocol::Ll128] {
        let mut s = scenario("dgx-h100", 2, Collective::AllReduce, Some(Algorithm::Ring), 8 << 20);
        s.protocol = Some(protocol);
        cases.push(s);
    }
    for (topology, oversubscription) in [(FabricTopology::LeafSpine, 2.0), (FabricTopology::FatTree, 1.0)] {
        let mut s = scenario("dgx-h100", 4, Collective::AllReduce, Some(Algorithm::Ring), 64 << 20);
        s.fabric.topology = topology;
        s.fabric.oversubscription = oversubscription;
        cases.push(s);
    }
    let mut node_wired = scenario("dgx-h100", 4, Collective::AllReduce, Some(Algorithm::Ring), 64 << 20);
    node_wired.fabric.wiring = Wiring::Node;
    cases.push(node_wired);
    // Trees alternate two shapes between channels: channels 0 and 1 run for all.
    cases.push(scenario("dgx-h100", 8, Collective::AllReduce, Some(Algorithm::Tree), 64 << 20));
    for nodes in [2, 4] {
        cases.push(scenario("dgx-h100", nodes, Collective::AllReduce, Some(Algorithm::NvlsTree), 16 << 20));
    }
    // Proved on the one-chunk schedule and carried to every chunk (`Symmetry::first_channels`):
    // a Tree of 16 chunks per channel and an NVLSTree of 16 per part must fold.
    let carried = [
        scenario("dgx-h100", 4, Collective::AllReduce, Some(Algorithm::Tree), 64 << 20),
        scenario("dgx-h100", 4, Collective::AllReduce, Some(Algorithm::NvlsTree), 256 << 20),
    ];
    for s in &carried {
        assert!(agree(s), "{s:?}");
    }
    // An NVLSTree channel's 8 parts are images of one another too (a turn of every node's GPUs and
    // rails, through the leaf-spine's spines at 16 nodes, and on B200 nodes): part 0 of channels 0
    // and 1 runs for all. A channel that does not split into 8 equal parts (16 MiB + 32 B: 524,289
    // floats a channel) folds by whole channels.
    let mut spines = scenario("dgx-h100", 16, Collective::AllReduce, Some(Algorithm::NvlsTree), 16 << 20);
    spines.fabric.topology = FabricTopology::LeafSpine;
    let parted = [
        (spines, 8),
        (scenario("hgx-b200", 4, Collective::AllReduce, Some(Algorithm::NvlsTree), 64 << 20), 8),
        (scenario("dgx-h100", 2, Collective::AllReduce, Some(Algorithm::NvlsTree), (16 << 20) + 32), 1),
    ];
    for (s, parts) in &parted {
        assert!(agree(s), "{s:?}");
        let folded = simulate_as(&s.validate().unwrap(), Mode::Symmetric).unwrap();
        assert_eq!((folded.stride, folded.parts), (2, *parts), "{s:?}");
    }
    let mut strided = 0;
    for s in &cases {
        folded += agree(s) as usize;
        let valid = s.validate().unwrap();
        strided += (simulate_as(&valid, Mode::Symmetric).unwrap().stride == 2) as usize;
    }
    eprintln!("{folded} of {} scenarios folded, {strided} by channels 0 and 1", cases.len());
    assert!(folded >= cases.len() / 2, "only {folded} of {} folded", cases.len());
    assert!(strided >= 3, "the trees' channels fold two by two: {strided}");
}

#[test]
fn what_cannot_be_proved_is_refused() {
    let mut ecmp = scenario("dgx-h100", 4, Collective::AllReduce, Some(Algorithm::Ring), 64 << 20);
    ecmp.fabric.routing = Some(Routing::Ecmp);
    let mut roce = scenario("dgx-h100", 2, Collective::AllReduce, Some(Algorithm::Ring), 64 << 20);
    roce.fabric.technology = fabricscope::catalog::Technology::Roce;
    for s in [ecmp, roce] {
        let valid = s.validate().unwrap();
        let sim = simulate_as(&valid, Mode::Exact).unwrap();
        assert!(Symmetry::find_strided(&sim.topology, &sim.schedule, valid.policy()).is_none(), "{s:?}");
        assert!(!agree(&s));
    }
}

/// The search a few routes at a time (`SymmetrySearch`, the page's job proving a tree's
/// channels over several polls) gives the proof of the search in one go, field for field, on
/// schedules that fold by parts (NVLSTree), by channels two by two (Tree) and one by one (Ring),
/// and refuses what it refuses (ECMP).
#[test]
fn the_search_in_pieces_is_the_search_in_one_go() {
    use fabricscope::engine::symmetry::SymmetrySearch;
    let mut ecmp = scenario("dgx-h100", 4, Collective::AllReduce, Some(Algorithm::Ring), 1 << 20);
    ecmp.fabric.routing = Some(Routing::Ecmp);
    let cases = [
        scenario("dgx-h100", 4, Collective::AllReduce, Some(Algorithm::NvlsTree), 1 << 20),
        scenario("dgx-h100", 4, Collective::AllReduce, Some(Algorithm::Tree), 1 << 20),
        scenario("dgx-h100", 2, Collective::AllReduce, Some(Algorithm::Ring), 1 << 20),
        ecmp,
    ];
    let mut proved = 0;
    for s in cases {
        let valid = s.validate().unwrap();
        let sim = simulate_as(&valid, Mode::Exact).unwrap();
        let (topology, schedule, policy) = (&sim.topology, &sim.schedule, valid.policy());
        let whole = Symmetry::find_strided(topology, schedule, policy);
        let mut search = SymmetrySearch::strided(schedule);
        let mut polls = 0;
        let pieces = loop {
            polls += 1;
            if let Some(found) = search.advance(topology, schedule, policy, 97) {
                break found;
            }
        };
        let what = format!("{} {} nodes", schedule.algorithm.nccl_name(), s.nodes);
        assert_eq!(format!("{whole:?}"), format!("{pieces:?}"), "{what}");
        if whole.is_some() {
            assert!(polls as usize > schedule.transfers.len() / 97 / 2, "{what}: {polls} polls");
            proved += 1;
        }
    }
    assert_eq!(proved, 3);
}
