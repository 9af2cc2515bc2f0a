//! A SendRecv beyond even its channel 0 (2,048 DGX H100 at 1 GiB: channel 0 is 2,097,152 of
//! 16,777,216 transfers): its channels are copies of one another on the same links
//! (`engine::copies`, proved from one transfer per connection), and turning its ranks by whole
//! nodes maps every connection onto another with the same routes (`engine::rotation`), so the
//! first few nodes' sources of channel 0 run on the links folded by both and stand for every
//! transfer, exactly. A sweep's row only: its trace hash is the whole's, streamed
//! (`Rotation::copies_hash`), the trace itself never expanded. `tests/turned.rs` holds its rows
//! to the whole runs' bit for bit.

use super::job::run_settings;
use super::rotate::Unfold;
use super::stage::{Plan, Stage, Then};
use crate::engine;
use crate::engine::rotation::Rotation;
use crate::engine::symmetry::Symmetry;
use crate::plan::ValidScenario;
use crate::scenario::ScenarioError;
use crate::topology::Topology;

/// Why a SendRecv beyond channel 0 does not run: its ranks do not turn by whole nodes.
pub(super) const UNTURNED: &str = "even channel 0 alone is beyond it, and turning its ranks by whole nodes does not keep their routes (leaf groups of different sizes, a fault), so no few nodes' sources stand for all: use fewer nodes, or a smaller size_bytes";

/// The run of the first few nodes' sources of channel 0 for every transfer, where one transfer
/// per connection (`collective::sendrecv_connections`) proved the channels copies (`symmetry`)
/// and turning by whole nodes keeps the routes, their transfers within `limit`; `plan` the
/// tuner's, from the connections' bound. A refusal that says why otherwise.
pub(super) fn start(
    scenario: &ValidScenario,
    topology: Topology,
    (symmetry, mut plan): (Symmetry, Plan),
    (protocol, limit): (crate::collective::Protocol, u64),
) -> Stage {
    let s = scenario.scenario();
    let (n, channels) = (scenario.n_ranks(), scenario.channels());
    let refused = |why: &str| {
        let whole = scenario.transfers();
        let problem = format!(
            "{} on {n} GPUs over {channels} channels is {whole} transfers, more than the engine simulates one by one ({limit}); {why}",
            s.collective.nccl_name(),
        );
        Stage::Done(Some(Err(ScenarioError { field: "nodes".into(), problem })))
    };
    let fold = symmetry.fold(&topology);
    let paths = symmetry.channel_zero_paths().to_vec();
    let turned = symmetry.copies_on_same_links() && paths.len() == n as usize;
    let Some(rotation) = turned.then(|| Rotation::find(&topology, Some(&fold), &paths, s.nodes)).flatten()
    else {
        return refused(UNTURNED);
    };
    let sources = rotation.nodes * (n / s.nodes);
    let chunks = crate::collective::sendrecv_chunks(s.count(), channels);
    if sources as u64 * chunks as u64 > limit {
        let few = rotation.nodes;
        return refused(&format!("even channel 0 of the fewest nodes whose sources stand for all ({few}) is beyond it: use fewer nodes, or a smaller size_bytes"));
    }
    let mut rotated = crate::collective::sendrecv_rotated(n, s.count(), channels, sources);
    rotated.protocol = protocol;
    run_settings(&mut rotated, scenario);
    // Routed as the whole's: the run's NIC plan counts only its own connections.
    if !super::rotate::routes_as_whole(scenario, &topology, &rotated, (&paths, sources as usize)) {
        return refused(UNTURNED);
    }
    plan.folded = true;
    plan.stride = symmetry.stride();
    plan.parts = symmetry.parts();
    plan.copies = true;
    plan.rotated = Some(rotation.nodes);
    let run = engine::Run::new_folded(&topology, &rotated, scenario.policy(), rotation.fold.clone());
    let unfold =
        Unfold { symmetry: Some(symmetry), whole: None, rotation: Some((rotation, paths)), mirror: None };
    Stage::Running {
        topology,
        schedule: rotated,
        run,
        plan,
        then: Then::Finish,
        unfold: Some(Box::new(unfold)),
    }
}
