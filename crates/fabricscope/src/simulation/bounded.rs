//! An AllToAll beyond even its channel 0's run (`Budget::copies`), bounded rather than
//! simulated: a sweep's row (`plan::Admission::Bounded`).
//!
//! Every flow of NCCL's AllToAll is posted at once (`collective::alltoall`), channel c's slice
//! of every block the same bytes (the blocks' slices differ by an element at most from channel
//! to channel), and where the channels route alike (static routes, every connection on its
//! GPU's own NIC: `Router::channels_route_alike`) every link carries each channel's copy of
//! channel 0's flows. Then, with `n_l` channel 0's flows crossing link `l`, `B_l` the bytes of
//! every channel's over it, `b` the largest flow's wire bytes, `C` the channels, `c_l` the
//! link's capacity, `s_f` the time flow `f`'s data starts to move (the launch latency plus its
//! path's, `engine::schedule_flow_latency_ns`) and `T` the time the last flow ends under max-min
//! fair sharing on a lossless fabric:
//!
//! - **lower:** no link moves more than `c_l` per ns, nor before its first flow starts, so
//!   `T ≥ max_l (min_{f∋l} s_f + B_l / c_l)`;
//! - **upper:** progressive filling fixes a flow at a link's level when the link saturates,
//!   which is at least `c_l` over the flows moving on it, at most `C·n_l`; flows only leave, so
//!   every flow always moves at least `min_{l∈f} c_l / (C·n_l)` and ends by
//!   `s_f + b·max_{l∈f} C·n_l / c_l`: `T ≤ max_f s_f + max_l b·C·n_l / c_l`.
//!
//! The two differ by the spread of the flows' start times (a few µs of path latency) and the
//! element the slices may differ by, against a time of milliseconds at the sizes this is for;
//! at sizes where latency is all, by as much as the latency's spread. The row's time is the lower bound,
//! which the engine meets to the nanosecond wherever the busiest link's flows start together
//! (`tests/bounded.rs`: every run within the two, most on the lower), and the row carries the
//! upper (`Simulation::bounded`). Link bytes are exact. `n_l` and the latencies come from
//! channel 0's n(n-1) pairs counted in parts (`routing::PairCount`: each GPU's ways out and in,
//! the fabric from every leaf to each NIC), not routed one by one, `ROUTED_PER_POLL` routes a
//! poll; the least latency on a link is then bounded below by its part's plus the other parts'
//! least, which keeps the lower bound a bound.

use super::stage::{Plan, Stage};
use super::weigh::ROUTED_PER_POLL;
use crate::collective::{slice, Algorithm, Schedule};
use crate::plan::ValidScenario;
use crate::routing::{PairCount, PairLoads, Router, RouterState};
use crate::scenario::Collective;
use crate::topology::Topology;
use crate::trace::Trace;
use crate::units::{SimTime, ELEM_BYTES};

/// The two bounds of a bounded run's time [ns] (`Method::Bounded`): the summary's time is
/// `lower`; the exact run ends within them.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Bounds {
    pub lower_ns: u64,
    pub upper_ns: u64,
}

/// Why channel 0 does not stand for the others (`alltoall::beyond` says it too).
pub(super) const NOT_ALIKE: &str = "its channels do not route alike here (routes that hash the channel in or follow the load, a GPU without a NIC of its own in use, a lossy fabric): use fewer nodes or channels";

/// Channel 0's pairs being routed a piece per poll (`Stage::Bounding`), what each link carries
/// counted as they are.
pub(super) struct Bounding {
    /// No transfers: the latency model and protocol of the AllToAll, for its flows' latencies.
    schedule: Schedule,
    router: Option<RouterState>,
    /// Channel 0's pairs, counted a GPU's parts at a time (`routing::PairCount`).
    count: PairCount,
}

/// The bounding of `scenario`, an AllToAll on a lossless fabric, in at most `limit` routes
/// (`PairCount::routes`); why not where its channels do not route alike
/// (`Router::channels_route_alike`) or it takes more.
pub(super) fn start(scenario: &ValidScenario, topology: &Topology, limit: u64) -> Result<Stage, String> {
    let s = scenario.scenario();
    let (n, channels) = (scenario.n_ranks(), scenario.channels());
    let mut schedule =
        Schedule::new(Collective::AllToAll, Algorithm::Direct, n, channels, s.count(), 0, Vec::new());
    // Point to point runs Simple alone (NCCL's tuner), unless a protocol is forced.
    schedule.protocol = s.protocol.unwrap_or(crate::collective::Protocol::Simple);
    super::job::run_settings(&mut schedule, scenario);
    // The NIC plan of every channel-0 connection between nodes: node 0's GPUs to node 1's and
    // back hold every (GPU, channel 0) pair `Router::for_transfers` plans.
    let g = n / s.nodes.max(1);
    let probe = match s.nodes >= 2 {
        true => {
            crate::collective::alltoall_channel_zero(2 * g, 2 * g as u64 * channels as u64, channels)
                .transfers
        }
        false => Vec::new(),
    };
    let router = Router::for_transfers(topology, scenario.policy(), &probe);
    if n < 2 || !router.channels_route_alike() || topology.congested_efficiency != 1.0 {
        return Err(NOT_ALIKE.into());
    }
    let count = PairCount::start(&router, 0).ok_or(NOT_ALIKE)?;
    let routes = count.routes(topology);
    if routes > limit {
        // The page's limit is below the command line's: say which runs it.
        let max = crate::limits::MAX_BOUNDED_ROUTES;
        let cli = match limit < max {
            true => format!(", or the CLI (fabricscope alltoall), which bounds up to {max}"),
            false => String::new(),
        };
        return Err(format!("bounding it counts its pairs in {routes} routes here, more than {limit}: use fewer nodes or switches of a higher radix (fewer leaves){cli}"));
    }
    let bounding = Bounding { schedule, router: Some(router.into_state()), count };
    Ok(Stage::Bounding { topology: topology.clone(), bounding: Box::new(bounding) })
}

impl Bounding {
    /// Counts about `ROUTED_PER_POLL` more routes' worth of channel 0's pairs; true once all are.
    pub fn advance(&mut self, topology: &Topology) -> bool {
        let Some(state) = self.router.take() else { return true };
        let mut router = Router::resume(topology, state);
        let schedule = &self.schedule;
        let done = self
            .count
            .advance(&mut router, ROUTED_PER_POLL, |links, kind| schedule.flow_latency_ns(links, kind));
        if !done {
            self.router = Some(router.into_state());
        }
        done
    }

    /// Every pair routed: the two bounds, the tuner's table from the same bytes (P2P's bound,
    /// the whole's busiest link, as `Bound::of_paths` weighs it) and the row's simulation, with
    /// no schedule or trace.
    pub fn finish(self, scenario: &ValidScenario, topology: Topology) -> Stage {
        let Bounding { schedule, count, .. } = self;
        let PairLoads { pairs: flows, least, most } =
            count.finish(|links, kind| schedule.flow_latency_ns(links, kind));
        let (n, channels) = (schedule.n_ranks as u64, schedule.n_channels);
        // Channel c's slice of each rank's block of `count / n` elements.
        let slices = (0..channels).map(|c| slice(schedule.count / n, channels, c).1 * ELEM_BYTES);
        let (data, wire, largest) = slices.fold((0, 0, 0), |(data, wire, largest), bytes| {
            let on_wire = schedule.protocol.wire_bytes(bytes);
            (data + bytes, wire + on_wire, largest.max(on_wire))
        });
        let channels = channels as u64;
        let base = schedule.base_latency_ns() as f64;
        let (mut lower, mut busiest, mut weighed) = (0.0f64, 0.0f64, 0.0f64);
        let mut link_bytes = vec![0.0; flows.len()];
        for (id, link) in topology.links() {
            let on = flows[id.index()];
            if on == 0 {
                continue;
            }
            let capacity = link.capacity().bytes_per_ns();
            let moving = (on * wire) as f64 / capacity;
            lower = lower.max(least[id.index()] as f64 + moving);
            busiest = busiest.max((on * channels * largest) as f64 / capacity);
            weighed = weighed.max((on * data) as f64 / capacity);
            link_bytes[id.index()] = (on * wire) as f64;
        }
        let bounds = Bounds {
            lower_ns: (base + lower).ceil() as u64,
            upper_ns: (base + most as f64 + busiest).ceil() as u64,
        };
        let (plan, _pick) = Plan::tuned(scenario, vec![(Algorithm::Direct, weighed)]);
        // A trace of no flows ending at the lower bound, with every link's bytes: the
        // simulation around it as any run's, its figures then the bound's (`Method::Bounded`).
        let end = SimTime(bounds.lower_ns);
        let peaks = vec![0.0; link_bytes.len()];
        let trace = Trace::new(Vec::new(), end, link_bytes, peaks, 0);
        let mut sim = super::summary::finish(scenario, topology, schedule, trace, None, plan);
        sim.bounded = Some(bounds);
        super::summary::refit(&mut sim, end, super::Method::Bounded);
        Stage::Done(Some(Ok(sim)))
    }

    /// The share of GPUs whose pairs are counted.
    pub fn progress(&self) -> f64 {
        self.count.progress(self.schedule.n_ranks)
    }
}

#[cfg(test)]
mod tests {
    use super::{start, Stage};
    use crate::scenario::{Collective, FabricConfig, FabricTopology, Scenario};

    /// Every link's bytes, bounded from channel 0's routes, are the exact run's to the byte:
    /// blocks that split over the channels and ones that do not, a rail-optimised fat-tree and
    /// a 4:1 leaf-spine.
    #[test]
    fn link_bytes_are_the_exact_runs() {
        let four = FabricConfig {
            topology: FabricTopology::LeafSpine,
            oversubscription: 4.0,
            radix: Some(16),
            ..FabricConfig::default()
        };
        for (nodes, size_bytes, fabric) in [
            (8, 1 << 30, FabricConfig::default()),
            (5, 4_000_000, FabricConfig::default()),
            (8, 256 << 20, four),
        ] {
            let s = Scenario {
                nodes,
                size_bytes,
                collective: Collective::AllToAll,
                fabric,
                ..Scenario::default_demo()
            };
            let valid = s.validate().unwrap();
            let topology = valid.topology();
            let Ok(Stage::Bounding { topology, mut bounding }) = start(&valid, &topology, u64::MAX) else {
                panic!("{nodes} nodes: not bounded")
            };
            while !bounding.advance(&topology) {}
            let Stage::Done(Some(Ok(sim))) = bounding.finish(&valid, topology) else { panic!("no result") };
            let exact = crate::simulation::simulate_as(&valid, crate::simulation::Mode::Exact).unwrap();
            assert_eq!(sim.link_bytes, exact.link_bytes, "{nodes} nodes, {size_bytes} B");
            assert!(sim.bounded.is_some_and(|b| b.lower_ns <= exact.summary.time.0));
        }
    }
}
