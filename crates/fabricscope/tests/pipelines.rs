//! A pipeline beyond the engine (a Broadcast's or Reduce's chain, a SendRecv) and the largest
//! message that runs in its place (`plan::most_pipeline_bytes`): admitted, one element a channel
//! more refused, named in the refusal, and run. Beyond the engine a chain is refused rather than
//! extrapolated: ARCHITECTURE.md gives the measurements.

use fabricscope::catalog::Technology;
use fabricscope::collective::Protocol;
use fabricscope::plan::{admit, most_pipeline_bytes, Admission, Budget, ENGINE_BUDGET, PAGE_BUDGET};
use fabricscope::scenario::{Collective, FabricConfig};
use fabricscope::Scenario;

fn pipeline(collective: Collective, nodes: u32, size_bytes: u64) -> Scenario {
    Scenario { nodes, collective, size_bytes, ..Scenario::default_demo() }
}

fn refused(s: &Scenario, budget: Budget) -> bool {
    matches!(admit(s, s.nodes * 8, 8, budget, true), Admission::Refused { .. })
}

#[test]
fn the_largest_message_a_pipeline_runs_is_admitted_and_one_element_a_channel_more_is_not() {
    let roce = FabricConfig { technology: Technology::Roce, ..FabricConfig::default() };
    let mut ll128 = pipeline(Collective::Reduce, 4200, 1 << 30);
    ll128.protocol = Some(Protocol::Ll128);
    let cases = [
        // Beyond 32 times the nodes its chain runs on at 1 GiB (128): run on 256 at 64 chunks.
        (
            "Broadcast, 8,192 nodes",
            pipeline(Collective::Broadcast, 8192, 1 << 30),
            ENGINE_BUDGET,
            8 * (32 << 10) * 64,
        ),
        // A chain runs on fewer nodes in its forced protocol's chunks, LL128's 576,000 B: on at
        // least 132 nodes (4,200 / 32), 124 chunks a channel within 2^20 transfers.
        ("Reduce LL128, 4,200 nodes", ll128, ENGINE_BUDGET, 8 * 576_000 * 124),
        // The page runs channel 0 for all within its transfers (a sweep's row, a few nodes').
        (
            "SendRecv in the page, 2,048 nodes",
            pipeline(Collective::SendRecv, 2048, 1 << 30),
            PAGE_BUDGET,
            96 << 20,
        ),
        // Lossy: no channel runs for the others, so every channel's chunks count.
        (
            "SendRecv on RoCE, 2,048 nodes",
            Scenario { fabric: roce, ..pipeline(Collective::SendRecv, 2048, 1 << 30) },
            ENGINE_BUDGET,
            8 * (512 << 10) * 15,
        ),
        (
            "Broadcast in the page, 128 nodes",
            pipeline(Collective::Broadcast, 128, 1 << 30),
            PAGE_BUDGET,
            8 * (32 << 10) * 48,
        ),
    ];
    for (what, s, budget, expected) in cases {
        assert!(refused(&s, budget), "{what}: its own size is refused");
        let most = most_pipeline_bytes(&s, s.nodes * 8, 8, budget, true).unwrap();
        assert_eq!(most, expected, "{what}");
        assert!(!refused(&Scenario { size_bytes: most, ..s.clone() }, budget), "{what}: {most} B runs");
        let more = Scenario { size_bytes: most + 4 * 8, ..s.clone() };
        assert!(refused(&more, budget), "{what}: one element a channel more is refused");
    }
    // Not a pipeline; and a chain beyond the engine even at one chunk a channel.
    let ring = pipeline(Collective::AllGather, 2048, 1 << 30);
    assert_eq!(most_pipeline_bytes(&ring, 16384, 8, ENGINE_BUDGET, true), None);
    let tiny = Budget { transfers: 1000, ..ENGINE_BUDGET };
    let chain = pipeline(Collective::Broadcast, 2048, 1 << 30);
    assert_eq!(most_pipeline_bytes(&chain, 16384, 8, tiny, true), None);
}

#[test]
fn a_chain_beyond_the_engine_names_the_largest_message_that_runs_and_it_runs() {
    // 2,048 nodes at 1 GiB run on 128 and are extrapolated (`tests/chain.rs`); 8,192 would be
    // extrapolated 64 times the nodes run, beyond what is validated.
    let s = pipeline(Collective::Broadcast, 8192, 1 << 30);
    let errors = s.validate().unwrap_err();
    let problem = &errors.iter().find(|e| e.field == "nodes").expect("refused by its nodes").problem;
    assert!(problem.contains("at most 16777216 (16 MiB) here"), "{problem}");
    assert!(problem.contains("not extrapolated from fewer nodes: its chain on 128 nodes"), "{problem}");
    assert!(problem.contains("use at most 4096 nodes"), "{problem}");
    let smaller = Scenario { size_bytes: 16_777_216, ..s };
    let sim = fabricscope::simulate(&smaller.validate().unwrap()).unwrap();
    assert_eq!(sim.summary.method, fabricscope::Method::Chain);
    assert!(sim.summary.time.as_us() > 0.0);
}
