//! A Broadcast's or Reduce's ring chain too big to run whole (`plan::Admission::Chain`): run on
//! fewer nodes, the rest extrapolated (`Method::Chain`).
//!
//! NCCL's ring Broadcast pipelines each channel's slice in chunks down a chain through every GPU
//! (`collective::ring_chain`): on 2,048 DGX H100 over 8 channels at 1 GiB, 128 chunks over
//! 16,383 hops, 16.8 million transfers. The chain never repeats in time (every step moves the
//! wave of chunks one hop further), and the root pins it, so neither a steady state nor a
//! channel symmetry folds it. What holds instead is causality along the chain: a node's hops
//! wait for the hops before them, and on a fabric where one node's hops are like the next's a
//! node's data arrives at the same time in a chain of K nodes as in one of N (the engine's
//! per-node arrival times agree to the nanosecond, `tests/chain.rs`). So the chain runs exactly
//! on K nodes (`plan::chain_nodes_run`: as many as `CHAIN_RUN_TRANSFERS` allow, at least
//! `CHAIN_LEAST_NODES`), and the N − K nodes beyond are extrapolated from two paces measured on
//! it, per node along the chain:
//!
//! - **front**: when a node receives the first chunk of every channel: how fast the wave's head
//!   moves, which nothing ahead of it slows;
//! - **lag**: how much later a node has every chunk, the wave's tail, as chunks queue behind one
//!   another on shared links.
//!
//! Over the runs measured, the tail's lag grows as the square root of the distance along the
//! chain while the wave is young (many chunks: 128 a channel at 64 MiB) and then steadily (few
//! chunks, or a long way down the chain). So the head's pace is fitted as a line and the lag as
//! `c + α·p + 2β·√p` at node `p`, by least squares over the run's last half of nodes (`α`, `β`
//! at least 0), and `T(N) = T(K) + (N − K)·(front + α) + 2β·(√(N−1) − √(K−1))`. Fewer than
//! `CHAIN_LEAST_NODES` (128) nodes would measure the wave while it still forms (a pace that
//! changes 20 nodes on, a lag that shrinks before it grows): the method needs them. It is
//! within `CHAIN_BOUND` of the exact run wherever both run (`tests/chain.rs`: Broadcast and
//! Reduce, LL and LL128, rail and node wiring, D-mod-K and ECMP routes, oversubscribed and lossy
//! fabrics, two and three tiers, four presets, chains of 1 to 128 chunks a channel extrapolated
//! 1.75 to 32 times their length). Not under Simple (`plan::chain_nodes_run` refuses it): a
//! stored and forwarded chain's tail kept changing pace beyond the nodes run (4,096 DGX H100 at
//! 8 MiB from 128 nodes: -6.6%, its lag growing 3.7 µs a node up to node 128 and 7.5 after),
//! where a streamed chain's keeps a constant lag. What it leaves out: a pace that changes beyond
//! the K nodes (a pod crossing's longer route, a few nanoseconds), and a root on another node
//! than the first, taken as node 0's (the chain through it is the same but for where it crosses
//! leaves).
//!
//! Link bytes are exact: every hop of the whole chain is routed (`HOPS_PER_POLL` a poll) and
//! carries its channel's slice in the protocol's wire bytes; the tuner's bound is the busiest
//! link's data bytes, as the exact plan's. There is no trace: the page shows the figures and
//! every link's mean load, never chunks in flight.

use super::job::run_settings;
use super::stage::{Plan, Stage};
use super::{Method, Simulation};
use crate::collective::{
    chain_chunks, ring_chain_channel, ring_chain_of, slice, Algorithm, Protocol, Schedule, Transfer,
};
use crate::engine;
use crate::plan::{chain_nodes_run, ValidScenario};
use crate::routing::{Router, RouterState};
use crate::scenario::{Collective, ScenarioError};
use crate::topology::Topology;
use crate::trace::Trace;
use crate::units::{SimTime, ELEM_BYTES};
use serde::{Deserialize, Serialize};

/// How far an extrapolated chain's time may be from the exact run's, as a share: `tests/chain.rs`
/// holds every case of its matrix within it (175 chains under LL and LL128; the worst, -0.14%, a
/// DGX-1 Broadcast on RoCE, 384 nodes from 128). It was 5% while LL's and LL128's hops stored
/// and forwarded whole chunks (`engine::stream`): the worst, -3.2%, a RoCE Reduce whose tail's
/// lag still quickened at the 128 nodes run. Simple chains are not extrapolated (the module's
/// documentation).
pub const CHAIN_BOUND: f64 = 0.01;

/// What an extrapolated chain ran and measured (`Simulation::chain`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChainRun {
    /// Nodes the chain ran on, every transfer simulated.
    pub nodes_run: u32,
    /// That run's time [ns].
    pub run_ns: u64,
    /// The wave's head's pace [ns per node].
    pub front_ns_per_node: f64,
    /// Its tail's lag behind the head, fitted as `c + lag·p + 2·root·√p` at node `p` [ns per
    /// node, ns per √node].
    pub lag_ns_per_node: f64,
    pub lag_root_ns: f64,
    /// Transfers of the whole chain, in the protocol it ran with.
    pub transfers: u64,
}

/// The chain's hops being routed, then its run on fewer nodes (`Stage::Chain`).
pub(super) struct Chain {
    router: Option<RouterState>,
    /// The channel being routed, its ring turned to the chain's order, and its next hop.
    channel: u32,
    order: Vec<u32>,
    hop: u32,
    /// Every link's data bytes (the tuner's bound), and its wire bytes in each protocol.
    data: Vec<u64>,
    wire: [Vec<u64>; 3],
    /// Most transfers of a run (`Budget::transfers`).
    limit: u64,
    /// Once routed: the plan, the protocol, and the run on fewer nodes; the routed bytes are then
    /// the picked protocol's wire bytes alone, the others' and the data's freed.
    run: Option<(Plan, Protocol, u32, Small)>,
    /// The picked protocol's wire bytes on every link, once routed and tuned.
    picked: Vec<u64>,
}

/// The chain's run on fewer nodes, a bounded piece a poll: its schedule built a channel a poll,
/// then the engine set up `SET_UP_PER_POLL` transfers a poll, then run untraced (a flow's finish
/// is all the paces read: no rate segments recorded, no trace built, no summary), then
/// measured, then the run and the schedule freed `FREED_PER_POLL` a poll. As a nested exact
/// `Job`, it weighed the ring again, rebuilt it in the protocol's chunks and summed a trace up,
/// in polls of up to 70 ms natively at 400,000 transfers, and the page's job took 0.97 s where
/// it now takes 0.65.
enum Small {
    /// Its schedule being built, a channel a poll (`collective::ring_chain`'s, as
    /// `schedule_with` builds it: 400,000 transfers took 22 ms natively in one piece): its
    /// scenario, topology, the channels' transfers built and the next channel.
    Set(Box<(ValidScenario, Topology, Vec<Transfer>, u32)>),
    /// The engine being set up.
    Building(Box<(ValidScenario, Topology, Schedule, engine::Setup)>),
    /// Running.
    Running(Box<(Topology, Schedule, engine::Run)>),
    /// Measured; the run, then the schedule's transfers, being freed.
    Ended(Box<(ChainRun, Schedule, engine::Run)>),
}

/// Transfers of the run on fewer nodes set up on the engine a poll (about 8 ms natively).
const SET_UP_PER_POLL: usize = 65_536;

/// Hops routed a poll: a chain's hop is a route and four sums over its links, 32,768 of them a
/// poll took 28 ms natively.
const HOPS_PER_POLL: u32 = 8_192;

/// Transfers of the run on fewer nodes freed a poll once it has been measured.
const FREED_PER_POLL: usize = 32_768;

/// The chain of `scenario` where it is a Broadcast's or Reduce's beyond `limit` transfers: run on
/// fewer nodes and extrapolated, or refused with why not (`plan::chain_nodes_run`). `None` for
/// anything else.
pub(super) fn beyond(scenario: &ValidScenario, topology: &Topology, limit: u64) -> Option<Stage> {
    let s = scenario.scenario();
    let chain = matches!(s.collective, Collective::Broadcast | Collective::Reduce);
    let whole = scenario.transfers();
    if !chain || whole <= limit || s.nodes < 2 {
        return None;
    }
    let (n, channels) = (scenario.n_ranks(), scenario.channels());
    if let Err(why) = chain_nodes_run(s, n, channels, limit) {
        let problem = format!(
            "{} on {n} GPUs over {channels} channels is {whole} transfers, more than the engine simulates one by one ({limit}); {why}",
            s.collective.nccl_name(),
        );
        return Some(Stage::Done(Some(Err(ScenarioError { field: "nodes".into(), problem }))));
    }
    // A chain on three nodes has every (channel, GPU) connection between nodes the whole has:
    // the NIC plan of its crossings.
    let g = scenario.preset().gpus_per_node;
    let rings = &scenario.preset().rings;
    let probe = crate::collective::ring_chain(
        s.collective == Collective::Reduce,
        s.nodes.min(3),
        rings,
        channels as u64,
        (channels, Protocol::Simple),
        s.root % g,
    );
    let router = Router::for_transfers(topology, scenario.policy(), &probe.transfers);
    let links = topology.n_links();
    let chain = Chain {
        router: Some(router.into_state()),
        channel: 0,
        order: chain_order(scenario, 0),
        hop: 0,
        data: vec![0; links],
        wire: [vec![0; links], vec![0; links], vec![0; links]],
        limit,
        run: None,
        picked: Vec::new(),
    };
    Some(Stage::Chain { topology: topology.clone(), chain: Box::new(chain) })
}

/// Channel `channel`'s chain, in order from the root or to it (`collective::chain_order`, as the
/// schedule lays its hops).
fn chain_order(scenario: &ValidScenario, channel: u32) -> Vec<u32> {
    let s = scenario.scenario();
    let reduce = s.collective == Collective::Reduce;
    crate::collective::chain_order(reduce, s.nodes, &scenario.preset().rings, channel, s.root)
}

/// Channel `channel`'s slice [B] and its wire bytes in each protocol (`Protocol::ALL`'s order),
/// as its chunks carry them.
fn channel_bytes(scenario: &ValidScenario, channel: u32) -> (u64, [u64; 3]) {
    let (count, channels) = (scenario.scenario().count(), scenario.channels());
    let (_, len) = slice(count, channels, channel);
    let wire = Protocol::ALL.map(|protocol| {
        let chunks = chain_chunks(protocol, count.div_ceil(channels as u64));
        (0..chunks).map(|k| protocol.wire_bytes(slice(len, chunks, k).1 * ELEM_BYTES)).sum()
    });
    (len * ELEM_BYTES, wire)
}

/// One poll of the chain: `HOPS_PER_POLL` hops routed, then the tuner's pick and the run on
/// fewer nodes set up, then `batches` of that run's, then the result.
pub(super) fn advance(
    scenario: &ValidScenario,
    topology: Topology,
    mut chain: Box<Chain>,
    batches: u64,
) -> Stage {
    if let Some(state) = chain.router.take() {
        let mut router = Router::resume(&topology, state);
        route(scenario, &mut router, &mut chain);
        if chain.channel < scenario.channels() {
            chain.router = Some(router.into_state());
            return Stage::Chain { topology, chain };
        }
        // Routed: the tuner's table from the busiest link's data bytes, the run on fewer nodes.
        let bound = topology
            .links()
            .map(|(id, link)| chain.data[id.index()] as f64 / link.capacity().bytes_per_ns())
            .fold(0.0, f64::max);
        let (plan, pick) = Plan::tuned(scenario, vec![(Algorithm::Ring, bound)]);
        let protocol = scenario.scenario().protocol.unwrap_or(pick.protocol);
        let index = Protocol::ALL.iter().position(|&p| p == protocol).unwrap_or(0);
        chain.picked = std::mem::take(&mut chain.wire[index]);
        (chain.data, chain.wire) = (Vec::new(), Default::default());
        return match small_run(scenario, protocol, chain.limit) {
            Ok((k, small)) => {
                chain.run = Some((plan, protocol, k, small));
                Stage::Chain { topology, chain }
            }
            Err(error) => Stage::Done(Some(Err(error))),
        };
    }
    let Some((plan, protocol, k, small)) = chain.run.take() else { return Stage::Done(None) };
    let small = match small {
        Small::Set(mut set) => {
            let (valid, _, transfers, channel) = &mut *set;
            let s = valid.scenario();
            let (reduce, channels) = (s.collective == Collective::Reduce, valid.channels());
            let (rings, how) = (&valid.preset().rings, (channels, protocol));
            ring_chain_channel(reduce, s.nodes, rings, s.count(), how, s.root, *channel, transfers);
            *channel += 1;
            if *channel < channels {
                Small::Set(set)
            } else {
                let (valid, small_topology, transfers, _) = *set;
                let (s, n) = (valid.scenario(), valid.n_ranks());
                let mut schedule =
                    ring_chain_of(reduce, (n, channels), s.count(), protocol, s.root, transfers);
                schedule.protocol = protocol;
                run_settings(&mut schedule, &valid);
                let setup = engine::Setup::new(&schedule);
                Small::Building(Box::new((valid, small_topology, schedule, setup)))
            }
        }
        Small::Building(mut building) => {
            let (_, small_topology, schedule, setup) = &mut *building;
            if !setup.advance(small_topology, schedule, SET_UP_PER_POLL) {
                Small::Building(building)
            } else {
                let (valid, small_topology, schedule, setup) = *building;
                let run = setup.run(&small_topology, &schedule, valid.policy()).untraced();
                Small::Running(Box::new((small_topology, schedule, run)))
            }
        }
        Small::Running(mut running) => {
            let (small_topology, schedule, run) = &mut *running;
            if !run.advance(small_topology, schedule, batches) {
                Small::Running(running)
            } else {
                let (_, schedule, run) = *running;
                let measured = measured(scenario, protocol, k, &schedule, &run);
                Small::Ended(Box::new((measured, schedule, run)))
            }
        }
        Small::Ended(mut ended) => {
            let (_, schedule, run) = &mut *ended;
            let transfers = &mut schedule.transfers;
            if run.shed(FREED_PER_POLL) {
                transfers.truncate(transfers.len().saturating_sub(FREED_PER_POLL));
            }
            if transfers.is_empty() {
                let wire = std::mem::take(&mut chain.picked);
                return Stage::Done(Some(Ok(finish(scenario, topology, (plan, protocol), ended.0, wire))));
            }
            Small::Ended(ended)
        }
    };
    chain.run = Some((plan, protocol, k, small));
    Stage::Chain { topology, chain }
}

/// Routes up to `HOPS_PER_POLL` hops, channel by channel.
fn route(scenario: &ValidScenario, router: &mut Router, chain: &mut Chain) {
    let channels = scenario.channels();
    let mut budget = HOPS_PER_POLL;
    while chain.channel < channels && budget > 0 {
        let (data, wire) = channel_bytes(scenario, chain.channel);
        let hops = chain.order.len() as u32 - 1;
        let end = (chain.hop + budget).min(hops);
        for hop in chain.hop..end {
            let (src, dst) = (chain.order[hop as usize], chain.order[hop as usize + 1]);
            for link in router.route(src, dst, chain.channel, &[]) {
                chain.data[link.index()] += data;
                for (bytes, &w) in chain.wire.iter_mut().zip(&wire) {
                    bytes[link.index()] += w;
                }
            }
        }
        budget -= end - chain.hop;
        chain.hop = end;
        if chain.hop == hops {
            chain.channel += 1;
            chain.hop = 0;
            if chain.channel < channels {
                chain.order = chain_order(scenario, chain.channel);
            }
        }
    }
}

/// The chain on fewer nodes in `protocol`, the root on the first node: how many, and its
/// scenario and topology.
fn small_run(
    scenario: &ValidScenario,
    protocol: Protocol,
    limit: u64,
) -> Result<(u32, Small), ScenarioError> {
    let s = scenario.scenario();
    let (n, channels, g) = (scenario.n_ranks(), scenario.channels(), scenario.preset().gpus_per_node);
    let forced = crate::scenario::Scenario {
        algorithm: Some(Algorithm::Ring),
        protocol: Some(protocol),
        channels: Some(channels),
        ..s.clone()
    };
    let refused = |problem: String| ScenarioError { field: "nodes".into(), problem };
    let k = chain_nodes_run(&forced, n, channels, limit).map_err(refused)?;
    let small = crate::scenario::Scenario { nodes: k, root: s.root % g, ..forced };
    let valid = small.validate().map_err(|errors| {
        refused(errors.into_iter().next().map_or_else(String::new, |e| format!("{}: {}", e.field, e.problem)))
    })?;
    let topology = valid.topology();
    let transfers = Vec::with_capacity(valid.transfers() as usize);
    Ok((k, Small::Set(Box::new((valid, topology, transfers, 0)))))
}

/// What the run on `k` nodes (`schedule`, `run`) in `protocol` measured (`paces`).
fn measured(
    scenario: &ValidScenario,
    protocol: Protocol,
    k: u32,
    schedule: &Schedule,
    run: &engine::Run,
) -> ChainRun {
    let s = scenario.scenario();
    let (n, channels, g) = (scenario.n_ranks(), scenario.channels(), scenario.preset().gpus_per_node);
    let (front, lag, root) = paces(schedule, run, k, g);
    ChainRun {
        nodes_run: k,
        run_ns: run.end().0,
        front_ns_per_node: front,
        lag_ns_per_node: lag,
        lag_root_ns: root,
        transfers: (n as u64 - 1)
            * channels as u64
            * chain_chunks(protocol, s.count().div_ceil(channels as u64)) as u64,
    }
}

/// The whole chain's figures from what its run on fewer nodes measured (`run`): its time
/// extrapolated (the module's formula), its link bytes the routed `wire`.
fn finish(
    scenario: &ValidScenario,
    topology: Topology,
    (plan, protocol): (Plan, Protocol),
    run: ChainRun,
    wire: Vec<u64>,
) -> Simulation {
    let s = scenario.scenario();
    let (n, channels) = (scenario.n_ranks(), scenario.channels());
    let end = SimTime(extrapolate(&run, s.nodes).round() as u64);
    let link_bytes: Vec<f64> = wire.into_iter().map(|b| b as f64).collect();
    let mut schedule = Schedule::new(s.collective, Algorithm::Ring, n, channels, s.count(), 0, Vec::new());
    schedule.protocol = protocol;
    schedule.root = s.root;
    run_settings(&mut schedule, scenario);
    let peaks = vec![0.0; link_bytes.len()];
    let trace = Trace::new(Vec::new(), end, link_bytes, peaks, 0);
    let mut sim = super::summary::finish(scenario, topology, schedule, trace, None, plan);
    sim.chain = Some(run);
    super::summary::refit(&mut sim, end, Method::Chain);
    sim
}

/// The paces of the run on `k` nodes of `g` GPUs (`ChainRun`), from its flows' finishes: its
/// head's [ns per node], when each node has the first chunk of every channel, and its tail's lag
/// behind the head, when each node has every chunk less when it had the first, fitted as
/// `c + α·p + 2β·√p` at node `p`, by least squares over the last half of nodes (`α` and `β` at
/// least 0: the better fit of either alone where both together would make one negative). Node 0, where the chain starts and ends,
/// and the last node, whose hop out is the way back to node 0, are left out.
fn paces(schedule: &Schedule, run: &engine::Run, k: u32, g: u32) -> (f64, f64, f64) {
    let mut done = vec![0u64; k as usize];
    let mut first = vec![0u64; k as usize];
    for (transfer, finished) in schedule.transfers.iter().zip(run.finishes()) {
        let node = (transfer.dst / g) as usize;
        done[node] = done[node].max(finished.0);
        if transfer.chunk == 0 {
            first[node] = first[node].max(finished.0);
        }
    }
    let nodes: Vec<usize> = (k as usize / 2..=k as usize - 2).collect();
    // In units of the nodes run, for the normal equations' conditioning: p/k in [1/2, 1].
    let scale = k as f64;
    let x = |p: usize| p as f64 / scale;
    let front = least_squares(&nodes, |p| first[p] as f64, &[&|_| 1.0, &x])[1] / scale;
    let lag = |p: usize| done[p] as f64 - first[p] as f64;
    let root = |p: usize| 2.0 * (p as f64 / scale).sqrt();
    let both = least_squares(&nodes, lag, &[&|_| 1.0, &x, &root]);
    // `+ 0.0` turns a fit's -0 into 0 (a streamed chain's lag is flat: `engine::stream`).
    if both[1] >= 0.0 && both[2] >= 0.0 {
        return (front, both[1] / scale + 0.0, both[2] / scale.sqrt() + 0.0);
    }
    // Either alone, the one with the smaller residual whose coefficient is not negative.
    let residual = |coefficients: &[f64], term: &dyn Fn(usize) -> f64| -> f64 {
        nodes.iter().map(|&p| (coefficients[0] + coefficients[1] * term(p) - lag(p)).powi(2)).sum()
    };
    let linear = least_squares(&nodes, lag, &[&|_| 1.0, &x]);
    let rooted = least_squares(&nodes, lag, &[&|_| 1.0, &root]);
    let fits = [(linear[1], 0.0, residual(&linear, &x)), (0.0, rooted[1], residual(&rooted, &root))];
    let best = fits.into_iter().filter(|f| f.0 >= 0.0 && f.1 >= 0.0).min_by(|a, b| a.2.total_cmp(&b.2));
    let (alpha, beta) = best.map_or((0.0, 0.0), |(alpha, beta, _)| (alpha, beta));
    (front, alpha / scale, beta / scale.sqrt())
}

/// The least-squares coefficients of `terms` fitting `y` over `points` (normal equations,
/// solved by Gaussian elimination with partial pivoting; 0 where singular).
fn least_squares(points: &[usize], y: impl Fn(usize) -> f64, terms: &[&dyn Fn(usize) -> f64]) -> Vec<f64> {
    let m = terms.len();
    let mut a = vec![vec![0.0; m + 1]; m];
    for &p in points {
        let row: Vec<f64> = terms.iter().map(|t| t(p)).collect();
        let value = y(p);
        for (line, &ri) in a.iter_mut().zip(&row) {
            for (cell, &rj) in line.iter_mut().zip(&row) {
                *cell += ri * rj;
            }
            line[m] += ri * value;
        }
    }
    for col in 0..m {
        let pivot = (col..m).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs())).unwrap_or(col);
        a.swap(col, pivot);
        let top = a[col].clone();
        if top[col].abs() < f64::MIN_POSITIVE {
            return vec![0.0; m];
        }
        for line in a.iter_mut().skip(col + 1) {
            let factor = line[col] / top[col];
            for (cell, &t) in line.iter_mut().zip(&top).skip(col) {
                *cell -= factor * t;
            }
        }
    }
    let mut coefficients = vec![0.0; m];
    for i in (0..m).rev() {
        let known: f64 = (i + 1..m).map(|j| a[i][j] * coefficients[j]).sum();
        coefficients[i] = (a[i][m] - known) / a[i][i];
    }
    coefficients
}

/// The whole chain's time on `nodes` nodes [ns] (the module's formula).
fn extrapolate(run: &ChainRun, nodes: u32) -> f64 {
    let (k, beyond) = (run.nodes_run as f64, nodes as f64 - run.nodes_run as f64);
    run.run_ns as f64
        + beyond * (run.front_ns_per_node + run.lag_ns_per_node)
        + 2.0 * run.lag_root_ns * ((nodes as f64 - 1.0).sqrt() - (k - 1.0).sqrt())
}

impl Chain {
    /// The share of the work done: the hops routed, then the run's.
    pub fn progress(&self, channels: u32) -> f64 {
        match &self.run {
            Some((_, _, _, Small::Set(_) | Small::Building(_))) => 0.5,
            Some((_, _, _, Small::Running(running))) => {
                let (done, all) = running.2.progress();
                0.5 + 0.5 * done as f64 / all.max(1) as f64
            }
            Some((_, _, _, Small::Ended(_))) => 1.0,
            None => 0.5 * self.channel as f64 / channels.max(1) as f64,
        }
    }
}
