//! Hierarchical AllReduce against the α-β of its phases. Its pieces pipeline their bytes: a
//! GPU's NVLink carries the reduce-scatter and all-gather of every piece (`2(g-1)/g · S`) and its
//! NIC the rail AllReduce (`2(N-1)/N · S/g`), each phase's chain of steps pays its latency, and
//! across the network the pieces' latencies overlap (before, each piece paid the network
//! chain's `2(N-1)` step latencies after the previous one: +3 ms at 1 GiB on 8 nodes).

use fabricscope::collective::hierarchical::pieces;
use fabricscope::collective::{Algorithm, Protocol};
use fabricscope::engine::schedule_flow_latency_ns;
use fabricscope::scenario::LatencyModel;
use fabricscope::{simulate, Scenario};

/// One run's figures [ns]: the engine's time, the phases' latency (launch plus each phase's
/// chain of step latencies), one piece's NVLink time per phase `a` (the reduce-scatter's, and
/// the all-gather's), one piece's network time `b`, the pieces, and the inside-node and network
/// step latencies.
struct Phases {
    engine: f64,
    latency: f64,
    a: f64,
    b: f64,
    pieces: f64,
    alpha_intra: f64,
    alpha_inter: f64,
}

/// Hierarchical AllReduce (Simple) of `size_bytes` on `nodes` DGX H100s.
fn phases(nodes: u32, size_bytes: u64, latency: LatencyModel) -> Phases {
    let valid = Scenario {
        nodes,
        size_bytes,
        algorithm: Some(Algorithm::Hierarchical),
        protocol: Some(Protocol::Simple),
        latency,
        ..Scenario::default_demo()
    }
    .validate()
    .unwrap();
    let sim = simulate(&valid).unwrap();
    let (g, n) = (8.0, nodes as f64);
    let figures = valid.link_figures();
    let rate = |f: &fabricscope::topology::LinkFigure| f.line_rate.scale(f.efficiency).bytes_per_ns();
    let (nvlink, nic) = (rate(&figures.nvlink), rate(&figures.nic));
    let (mut alpha_intra, mut alpha_inter) = (0u64, 0u64);
    for (transfer, flow) in sim.schedule.transfers.iter().zip(&sim.trace.flows) {
        let alpha = schedule_flow_latency_ns(&sim.topology, &flow.path, &sim.schedule);
        if transfer.src / 8 == transfer.dst / 8 {
            alpha_intra = alpha_intra.max(alpha);
        } else {
            alpha_inter = alpha_inter.max(alpha);
        }
    }
    let pieces = pieces(valid.scenario().count(), valid.channels()) as f64;
    let piece = size_bytes as f64 / pieces;
    Phases {
        engine: sim.summary.time.0 as f64,
        latency: sim.schedule.base_latency_ns() as f64
            + 2.0 * (g - 1.0) * alpha_intra as f64
            + 2.0 * (n - 1.0) * alpha_inter as f64,
        a: (g - 1.0) / g * piece / nvlink,
        b: 2.0 * (n - 1.0) / n * piece / g / nic,
        pieces,
        alpha_intra: alpha_intra as f64,
        alpha_inter: alpha_inter as f64,
    }
}

#[test]
fn at_1_gib_hierarchical_is_the_alpha_beta_of_its_phases_within_2_percent() {
    // Where one resource is the busier (NVLink here: 2a > b), the pieces keep it busy and the
    // time is the phases' latency plus its bytes.
    for latency in [LatencyModel::Links, LatencyModel::Nccl] {
        for nodes in [2, 4] {
            let p = phases(nodes, 1 << 30, latency);
            let alpha_beta = p.latency + (p.pieces * 2.0 * p.a).max(p.pieces * p.b);
            let ratio = p.engine / alpha_beta;
            assert!(
                (ratio - 1.0).abs() < 0.02,
                "{latency:?}, {nodes} nodes: engine {:.0} ns, α-β of the phases {alpha_beta:.0} ns",
                p.engine
            );
        }
    }
}

#[test]
fn the_network_phase_pays_its_latency_once_not_once_per_piece() {
    // NCCL's latencies in place of the links' cost the phases' extra latency, plus at most the
    // inside-node chains' and one network step's per piece after the first (those pieces follow
    // one another strictly, which keeps the pipeline fed; 8 nodes at 64 MiB, 2 pieces: 274 µs,
    // the phases' and the chains' alone 258): never the network chain's once per piece, as
    // before (2(N - 1) network steps a piece: 169 µs more a piece on 8 nodes).
    for nodes in [2, 4, 8] {
        for size in [64u64 << 20, 1 << 30] {
            let (links, nccl) =
                (phases(nodes, size, LatencyModel::Links), phases(nodes, size, LatencyModel::Nccl));
            let extra = nccl.engine - links.engine;
            let per_piece =
                2.0 * 7.0 * (nccl.alpha_intra - links.alpha_intra) + (nccl.alpha_inter - links.alpha_inter);
            let most = (nccl.latency - links.latency) + (nccl.pieces - 1.0) * per_piece;
            assert!(
                extra <= most * 1.02,
                "{nodes} nodes, {size} B: NCCL's latencies cost {extra:.0} ns, the phases' at most {most:.0} ns"
            );
        }
    }
}
