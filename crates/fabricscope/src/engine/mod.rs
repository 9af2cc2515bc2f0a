//! Engine: a deterministic discrete-event, flow-level simulator.
//!
//! The collective's launch latency (the protocol's base latency) passes first. Every transfer
//! of a schedule becomes a flow along its routed path, carrying the protocol's wire bytes (LL
//! doubles them). A flow is *issued* when its dependencies have finished, pays its latency `α`
//! (the protocol's per-step latency and what the path's links take beyond the wire it counts,
//! `Schedule::flow_latency_ns`), then *moves* data until
//! its bytes are done; if it follows
//! another transfer on the same connection (`Transfer::after`), it moves only once that one's
//! data has (a connection is a FIFO, not a shared pipe). On a chain under LL or LL128, whose
//! lines carry their own flags, a hop forwards each line as it arrives (`stream`): it is issued
//! when the hop before it starts to move data, and ends no sooner than that hop's end plus its
//! own latency. Moving flows share
//! links max-min fairly (`maxmin`): with rates `r_f` and capacities `C_l`,
//!
//! ```text
//!   for every link l:  Σ_{f crosses l} r_f ≤ C_l
//!   and no r_f can grow without shrinking some r_g ≤ r_f   (progressive filling)
//! ```
//!
//! Rates change only at events (a flow starts moving or finishes), so between events every flow
//! moves at a constant rate, and a flow's finish is `now + ceil(remaining / rate)`: the one
//! rounding rule (`units::transfer_ns`). A flow alone on its path therefore takes exactly
//! `α + ceil(bytes / C)` ns, which is what the α-β tests check.
//!
//! A network link that carries flows from more than one source runs at
//! `capacity × congested_efficiency` (the technology's: 1 for credit-based InfiniBand, below 1
//! for RoCE and TCP, whose congestion control leaves headroom; `catalog::fabric`).
//!
//! Time is integer ns; events at the same time are handled as one batch (finishes, then
//! starts, then dependency releases), and the flows released together are issued in a
//! canonical order (step, channel, chunk, source, destination), so the result does not depend on
//! the order events were queued in nor on the order the schedule lists its transfers
//! (`tests/engine.rs` permutes them). Link byte totals are exact integers.
//!
//! Invariants, checked after every run in debug builds and by the tests (`Trace::check`): time
//! never goes backwards, every flow finishes, every flow's rate integrates to its bytes, and no
//! link ever carries more than its capacity.
//!
//! Steady states (`period`): `run_probed` also watches a regular schedule (a ring's steps) for
//! the moment its whole state recurs, shifted by whole steps; `simulation` then runs a prefix of
//! a huge ring and extends it by that proved period.
//!
//! Cost: max-min shares decompose over connected components of the flow–link graph, so a batch
//! re-solves only the moving flows linked (by shared links) to a flow that started or finished;
//! the others keep rate, queued finish and progress (brought up to date when a rate changes). A
//! batch: O(c × p × r) for c flows on paths of p links, r bottleneck rounds, O(log F) per event.

mod component;
mod copies;
mod finishes;
pub mod fluid;
pub mod groups;
mod images;
mod issuer;
mod lanes;
mod linkmap;
mod maxmin;
mod mirror;
pub mod period;
pub mod rotation;
mod search;
mod setup;
mod state;
mod stream;
pub mod symmetry;

use crate::catalog::Routing;
use crate::collective::{Algorithm, Protocol, Schedule};
use crate::routing::{Policy, Router, RouterState};
use crate::topology::{LinkId, LinkKind, Topology};
use crate::trace::{FlowRecord, Trace};
use crate::units::SimTime;
use issuer::{Issuer, Routes};
pub use setup::Setup;
use state::State;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A flow of `schedule`'s latency before data moves: NCCL's per-step latency and what the
/// path's links take beyond the wire it counts, or the links' alone (`Schedule::flow_latency_ns`).
pub fn schedule_flow_latency_ns(topology: &Topology, path: &[LinkId], schedule: &Schedule) -> u64 {
    schedule.flow_latency_ns(topology.path_latency_ns(path), topology.path_class(path))
}

/// A flow's latency before data moves under NCCL's latency model: the protocol's per-step
/// latency for the path's slowest link class, plus what its links take beyond the wire that
/// figure counts (`Protocol::flow_latency_ns`).
pub fn flow_latency_ns(
    topology: &Topology,
    path: &[LinkId],
    algorithm: Algorithm,
    protocol: Protocol,
) -> u64 {
    protocol.flow_latency_ns(algorithm, topology.path_class(path), topology.path_latency_ns(path))
}

/// One dependency of each of `dependents` has finished (or, streamed, begun to move): those
/// left waiting for none are released, and the highest flow touched is raised to them.
fn release(dependents: &[u32], deps_left: &mut [u32], released: &mut Vec<u32>, highest_touched: &mut usize) {
    for &next in dependents {
        *highest_touched = (*highest_touched).max(next as usize);
        deps_left[next as usize] -= 1;
        if deps_left[next as usize] == 0 {
            released.push(next);
        }
    }
}

/// Bytes a transfer puts on the wire: the protocol's (LL doubles them), and for a hop through
/// a reducing switch, over the switch's efficiency (`Hop::efficiency`).
pub fn wire_bytes(topology: &Topology, schedule: &Schedule, transfer: &crate::collective::Transfer) -> u64 {
    transfer.hop.carried(schedule.protocol.wire_bytes(transfer.bytes()), topology.nvls_efficiency)
}

/// Runs `schedule` on `topology` to the end and returns the trace. Each flow is routed when
/// it is issued, so adaptive routing sees the flows then in flight.
pub fn run(topology: &Topology, schedule: &Schedule, policy: Policy) -> Trace {
    run_probed(topology, schedule, policy, None).0
}

/// `run`, and where `probe` says the schedule repeats, the first steady state the run reaches
/// (`period`). The trace is the same as `run`'s, unless the probe asks to stop at the period:
/// then the run ends there and the trace is of no use (flows left unfinished).
pub fn run_probed(
    topology: &Topology,
    schedule: &Schedule,
    policy: Policy,
    probe: Option<period::Probe>,
) -> (Trace, Option<period::Period>) {
    let mut run = Run::new(topology, schedule, policy, probe);
    while !run.advance(topology, schedule, u64::MAX) {}
    run.finish(topology)
}

/// A run that can be advanced a number of event batches at a time (`advance`), so a caller
/// that must stay responsive (the page) can do it in slices; `run_probed` runs it in one.
/// Sliced or not, the same schedule gives the same trace: slicing only pauses the loop between
/// batches.
pub struct Run {
    capacity: Vec<f64>,
    network: Vec<bool>,
    flows: Vec<FlowRecord>,
    dependents: Vec<Vec<u32>>,
    deps_left: Vec<u32>,
    router: RouterState,
    load: Vec<u32>,
    routes: Option<Routes>,
    sim: State,
    probe: Option<period::Probe>,
    detector: Option<period::Detector>,
    lowest_unfinished: usize,
    highest_touched: usize,
    frontier_crossed: bool,
    solver: maxmin::Solver,
    component: component::Component,
    done: Vec<u32>,
    touched: Vec<LinkId>,
    released: Vec<u32>,
    finished_flows: usize,
    over: bool,
    /// A folded run's link representatives (`symmetry::Fold`): paths are carried onto them.
    rep: Option<Vec<LinkId>>,
    /// Whether each flow's rate segments are recorded (`untraced`: not, for a run whose times
    /// alone are wanted).
    traced: bool,
}

impl Run {
    /// Sets `schedule` up on `topology` and issues the transfers that wait for nothing. Each
    /// later call gets the same topology and schedule.
    pub fn new(
        topology: &Topology,
        schedule: &Schedule,
        policy: Policy,
        probe: Option<period::Probe>,
    ) -> Run {
        Run::with_fold(topology, schedule, policy, probe, None)
    }

    /// A run of one channel standing for all (`symmetry`): its paths carried onto their
    /// orbits' representative links, of the folded capacities.
    pub fn new_folded(topology: &Topology, schedule: &Schedule, policy: Policy, fold: symmetry::Fold) -> Run {
        Run::with_fold(topology, schedule, policy, None, Some(fold))
    }

    /// `new_folded`, watched for a steady state (`period`): the probe counts channel 0's
    /// transfers, and a state of channel 0 that recurs is the whole run's, its images with it.
    pub fn new_folded_probed(
        topology: &Topology,
        schedule: &Schedule,
        policy: Policy,
        probe: period::Probe,
        fold: symmetry::Fold,
    ) -> Run {
        Run::with_fold(topology, schedule, policy, Some(probe), Some(fold))
    }

    fn with_fold(
        topology: &Topology,
        schedule: &Schedule,
        policy: Policy,
        probe: Option<period::Probe>,
        fold: Option<symmetry::Fold>,
    ) -> Run {
        let mut setup = Setup::new(schedule);
        setup.advance(topology, schedule, usize::MAX);
        Run::set_up(topology, schedule, policy, (probe, fold), setup)
    }

    /// The run whose flows `setup` has set up, every one (`Setup::advance` returned true).
    fn set_up(
        topology: &Topology,
        schedule: &Schedule,
        policy: Policy,
        (probe, fold): (Option<period::Probe>, Option<symmetry::Fold>),
        setup: Setup,
    ) -> Run {
        let Setup { mut flows, dependents, deps_left } = setup;
        let n_flows = flows.len();
        debug_assert_eq!(n_flows, schedule.transfers.len(), "a run set up whole");
        let (capacity, rep): (Vec<f64>, _) = match fold {
            Some(fold) => (fold.capacity, Some(fold.rep)),
            None => (topology.links().map(|(_, link)| link.capacity().bytes_per_ns()).collect(), None),
        };
        let network: Vec<bool> = topology.links().map(|(_, link)| link.kind == LinkKind::Network).collect();
        let n_links = capacity.len();
        let mut sim = State {
            now: 0,
            starts: BinaryHeap::new(),
            finishes: finishes::Finishes::new(n_flows),
            seq: 0,
            on_link: vec![Vec::new(); n_links],
            remaining: vec![0.0; n_flows],
            swept: vec![u64::MAX; n_links],
            rate: vec![0.0; n_flows],
            updated: vec![0; n_flows],
            link_peak: vec![0.0; n_links],
            batches: 0,
            moved: vec![false; n_flows],
            parked: vec![None; n_flows],
            stage: vec![period::Stage::Waiting; n_flows],
            start_at: vec![0; n_flows],
            max_step: None,
            max_step_changed: false,
            began: Vec::new(),
            gates: stream::Gates::of(schedule),
        };
        // Adaptive routing sees the order flows are issued in, which a shift of whole steps does
        // not keep (chunks and offsets differ): no steady state is claimed under it.
        let detector = probe
            .filter(|p| policy.routing != Routing::Adaptive && period::is_regular(schedule, p))
            .map(period::Detector::new);
        // The collective's launch latency passes before its first transfers are issued.
        sim.now = schedule.base_latency_ns();
        let mut released: Vec<u32> = (0..n_flows as u32).filter(|&f| deps_left[f as usize] == 0).collect();
        // Every flow issued later is touched first by a dependency finishing.
        let highest_touched = released.iter().copied().max().unwrap_or(0) as usize;
        let mut router = Router::for_transfers(topology, policy, &schedule.transfers);
        // Only adaptive routing reads the load: other routes are kept.
        let routes = (policy.routing != Routing::Adaptive).then(Routes::default);
        let mut issuer = Issuer {
            router: &mut router,
            schedule,
            topology,
            load: vec![0; n_links],
            rep: rep.as_deref(),
            routes,
        };
        sim.issue_all(&mut flows, &mut issuer, &mut released);
        let (load, routes) = (issuer.load, issuer.routes);
        Run {
            capacity,
            network,
            flows,
            dependents,
            deps_left,
            router: router.into_state(),
            load,
            routes,
            sim,
            probe,
            detector,
            lowest_unfinished: 0,
            highest_touched,
            frontier_crossed: false,
            solver: maxmin::Solver::new(n_links, topology.congested_efficiency),
            component: component::Component::new(n_flows, n_links),
            done: Vec::new(),
            touched: Vec::new(),
            released,
            finished_flows: 0,
            traced: true,
            over: n_flows == 0,
            rep,
        }
    }

    /// Handles up to `batches` event batches; true once the run is over.
    pub fn advance(&mut self, topology: &Topology, schedule: &Schedule, batches: u64) -> bool {
        if self.over {
            return true;
        }
        let transfers = &schedule.transfers;
        let n_flows = transfers.len();
        let mut router = Router::resume(topology, std::mem::take(&mut self.router));
        let mut issuer = Issuer {
            router: &mut router,
            schedule,
            topology,
            load: std::mem::take(&mut self.load),
            rep: self.rep.as_deref(),
            routes: self.routes.take(),
        };
        let Run {
            capacity,
            network,
            flows,
            dependents,
            deps_left,
            sim,
            detector,
            solver,
            component,
            done,
            touched,
            released,
            traced,
            ..
        } = self;
        let (mut lowest_unfinished, mut highest_touched, mut frontier_crossed) =
            (self.lowest_unfinished, self.highest_touched, self.frontier_crossed);
        let mut over = false;
        let mut finished = 0usize;
        let mut budget = batches;
        while budget > 0 {
            budget -= 1;
            let next_start = sim.starts.peek().map(|Reverse((at, _, _))| *at);
            let next_finish = sim.finishes.peek().map(|(at, _)| at);
            let Some(t) = [next_start, next_finish].into_iter().flatten().min() else {
                over = true;
                break;
            };
            debug_assert!(t >= sim.now, "time never goes backwards");
            sim.now = t;
            sim.batches += 1;
            done.clear();
            touched.clear();

            // Finishes at t. A streamed flow whose data has all moved before its gate opens is
            // held off its links until then (`stream`).
            while let Some((at, f)) = sim.finishes.peek() {
                if at != t {
                    break;
                }
                sim.finishes.pop();
                let gate = sim
                    .gates
                    .as_ref()
                    .filter(|_| sim.stage[f as usize] == period::Stage::Moving)
                    .map(|g| g.at(f, sim.latency(flows, f)));
                match gate {
                    Some(gate) if gate.is_none_or(|at| at > t) => sim.hold(flows, f, gate, *traced, touched),
                    _ => done.push(f),
                }
            }
            for &f in done.iter() {
                let fi = f as usize;
                sim.moved[fi] = true;
                sim.stage[fi] = period::Stage::Done;
                touched.extend_from_slice(&flows[fi].path);
                sim.remaining[fi] = 0.0;
            }
            // Each link they leave sheds them in one pass (the flows on a link are the moving
            // ones: one finished is done), not one pass per flow: an AllToAll's thousands of
            // flows on a link finish together.
            let (on_link, stage, swept) = (&mut sim.on_link, &sim.stage, &mut sim.swept);
            for link in touched.iter() {
                let l = link.index();
                if swept[l] != sim.batches {
                    swept[l] = sim.batches;
                    on_link[l]
                        .retain(|&g| !matches!(stage[g as usize], period::Stage::Done | period::Stage::Held));
                }
            }
            // Latency paid at t: move now, or wait for the connection. No bytes: finish at once.
            while let Some(&Reverse((at, _, f))) = sim.starts.peek() {
                if at != t {
                    break;
                }
                sim.starts.pop();
                match transfers[f as usize].after {
                    Some(before) if !sim.moved[before as usize] => {
                        sim.parked[before as usize] = Some(f);
                        sim.stage[f as usize] = period::Stage::Parked;
                    }
                    _ => sim.begin_moving(flows, f, t, done, touched),
                }
            }
            // Connections freed at t let their next flow move: after the starts, so that an empty
            // flow that started and finished at t frees its connection too (fuzzing found one
            // that did not), and in a loop, as a freed empty flow frees the next.
            let mut i = 0;
            while i < done.len() {
                if let Some(next) = sim.parked[done[i] as usize].take() {
                    sim.begin_moving(flows, next, t, done, touched);
                }
                i += 1;
            }
            done.sort_unstable();
            finished += done.len();
            for &f in done.iter() {
                let flow = &mut flows[f as usize];
                flow.finished = SimTime(t);
                if *traced {
                    flow.set_rate(SimTime(t), 0.0);
                }
                for &link in &flow.path {
                    issuer.load[link.index()] -= 1;
                }
                sim.rate[f as usize] = 0.0;
                sim.stage[f as usize] = period::Stage::Done;
                if sim.gates.is_some() {
                    // A streamed flow's dependents were released when it began; each held one
                    // may now finish.
                    for &next in &dependents[f as usize] {
                        sim.open_gate(flows, next, t);
                    }
                    continue;
                }
                release(&dependents[f as usize], deps_left, released, &mut highest_touched);
            }
            // A streamed flow's dependents are released as its data begins to move.
            for &f in &sim.began {
                release(&dependents[f as usize], deps_left, released, &mut highest_touched);
            }
            sim.began.clear();
            sim.issue_all(flows, &mut issuer, released);
            // New rates for the moving flows that share a link, directly or through each other,
            // with a flow that started or finished: max-min shares decompose over such components.
            let affected = component.collect(touched, &sim.on_link, flows);
            let rates = solver.solve(affected, flows, capacity, network, transfers);
            for (&f, &rate) in affected.iter().zip(rates) {
                let fi = f as usize;
                if rate == sim.rate[fi] {
                    continue;
                }
                let moved = (sim.rate[fi] * (t - sim.updated[fi]) as f64).min(sim.remaining[fi]);
                sim.remaining[fi] -= moved;
                sim.updated[fi] = t;
                sim.rate[fi] = rate;
                if *traced {
                    flows[fi].set_rate(SimTime(t), rate);
                }
                let finish_at = t.saturating_add(crate::units::ceil_ns((sim.remaining[fi] / rate).max(0.0)));
                sim.finishes.set(f, finish_at);
            }
            // The links the affected flows cross: the solve's.
            for &l in solver.used() {
                sim.link_peak[l] = sim.link_peak[l].max(solver.load(l));
            }
            if let Some(detector) = detector.as_mut() {
                let probe = detector.probe;
                while lowest_unfinished < n_flows && sim.stage[lowest_unfinished] == period::Stage::Done {
                    lowest_unfinished += 1;
                }
                frontier_crossed |= done.iter().any(|&f| f >= probe.frontier);
                let new_step = sim.max_step.filter(|_| sim.max_step_changed);
                sim.max_step_changed = false;
                let base = (lowest_unfinished as u32 / probe.unit) * probe.unit;
                if let (Some(step), false, true) =
                    (new_step, frontier_crossed, base >= probe.regular_from && detector.found.is_none())
                {
                    let snapshot = sim.snapshot(t, step, (base, highest_touched + 1), (flows, deps_left));
                    detector.observe(snapshot);
                    if detector.found.is_some() && probe.stop {
                        over = true;
                        break;
                    }
                }
            }
        }
        self.lowest_unfinished = lowest_unfinished;
        self.highest_touched = highest_touched;
        self.frontier_crossed = frontier_crossed;
        self.finished_flows += finished;
        self.over = over;
        self.load = issuer.load;
        self.routes = issuer.routes;
        self.router = router.into_state();
        over
    }

    /// The same run recording no rate segments, in release builds: for a run whose flows' times
    /// alone are wanted (NVLSTree's finer run, a ring's measuring run), which then reads `end` or
    /// `finishes`, never `finish`. Debug builds record them, so that `finish` can check the
    /// engine's invariants. Segments are records only: the times are the same bit for bit.
    pub fn untraced(mut self) -> Run {
        self.traced = cfg!(debug_assertions);
        self
    }

    /// Each flow's finish, in schedule order (`SimTime::ZERO` for a flow not finished).
    pub fn finishes(&self) -> impl Iterator<Item = SimTime> + '_ {
        self.flows.iter().map(|flow| flow.finished)
    }

    /// Flows finished so far, of how many.
    pub fn progress(&self) -> (usize, usize) {
        (self.finished_flows, self.flows.len())
    }

    /// When the last flow finished, the trace's `end`, without building the trace: for a run whose
    /// time alone is wanted (NVLSTree's finer run; `finish` checks the trace in debug builds).
    pub fn end(&self) -> SimTime {
        self.flows.iter().map(|flow| flow.finished).max().unwrap_or(SimTime::ZERO)
    }

    /// The trace, and the steady state found if any. A run stopped at its period by the probe
    /// gives a trace of no use (flows left unfinished).
    pub fn finish(self, topology: &Topology) -> (Trace, Option<period::Period>) {
        let trace = Trace::of_flows(self.flows, self.capacity.len(), self.sim.link_peak, self.sim.batches);
        let found = self.detector.and_then(|d| d.found);
        let stopped = found.is_some() && self.probe.is_some_and(|p| p.stop);
        debug_assert!(
            stopped || trace.check(topology).is_ok(),
            "the engine's invariants: {:?}",
            trace.check(topology)
        );
        (trace, found)
    }
}
