//! Engine: a deterministic discrete-event, flow-level simulator.
//!
//! Every transfer of a schedule becomes a flow along its routed path. A flow is *issued* when
//! its dependencies have finished, pays its latency `α` (the path's link latencies plus the
//! protocol's per-step overhead), then *moves* data until its bytes are done. Moving flows share
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
//! starts, then dependency releases in transfer order), so the result does not depend on the
//! order events were queued in. Cost: each batch recomputes every moving flow's rate,
//! O(batches × moving flows × path length × bottleneck rounds).

mod maxmin;

use crate::collective::Schedule;
use crate::catalog::Routing;
use crate::routing::Router;
use crate::topology::{LinkId, LinkKind, Topology};
use crate::trace::{FlowRecord, Trace};
use crate::units::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Per-step software overhead of NCCL's Simple protocol on a ring, by the slowest link class
/// on the path: NVIDIA/nccl v2.30.7 `src/graph/tuning.cc`, `hwLat` (Ring, Simple):
/// NVLink 3.4 µs, PCIe 5.7 µs, network 14.0 µs.
pub fn step_overhead_ns(class: LinkKind) -> u64 {
    match class {
        LinkKind::NvLink => 3_400,
        LinkKind::Pcie => 5_700,
        LinkKind::Network => 14_000,
    }
}

/// The slowest class of link on a path (network over PCIe over NVLink).
pub fn path_class(topology: &Topology, path: &[LinkId]) -> LinkKind {
    path.iter().map(|&id| topology.link(id).kind).max().unwrap_or(LinkKind::NvLink)
}

/// A flow's latency before data moves: the links' latencies plus the protocol's step overhead.
pub fn flow_latency_ns(topology: &Topology, path: &[LinkId]) -> u64 {
    let wire: u64 = path.iter().map(|&id| topology.link(id).latency_ns).sum();
    wire + step_overhead_ns(path_class(topology, path))
}

/// Runs `schedule` on `topology` to the end and returns the trace. Each flow is routed when
/// it is issued, so adaptive routing sees the flows then in flight.
pub fn run(topology: &Topology, schedule: &Schedule, routing: Routing, seed: u64) -> Trace {
    let transfers = &schedule.transfers;
    let n_flows = transfers.len();
    let capacity: Vec<f64> = topology.links().map(|(_, link)| link.capacity().bytes_per_ns()).collect();
    let network: Vec<bool> = topology.links().map(|(_, link)| link.kind == LinkKind::Network).collect();

    let mut flows: Vec<FlowRecord> = Vec::with_capacity(n_flows);
    let mut dependents: Vec<Vec<u32>> = vec![Vec::new(); n_flows];
    let mut deps_left: Vec<u32> = Vec::with_capacity(n_flows);
    for (index, transfer) in transfers.iter().enumerate() {
        flows.push(FlowRecord::new(index as u32, Vec::new(), transfer.bytes()));
        for &dep in &transfer.deps {
            dependents[dep as usize].push(index as u32);
        }
        deps_left.push(transfer.deps.len() as u32);
    }
    let mut router = Router::new(topology, routing, seed);
    let mut issuer = Issuer { router: &mut router, schedule, topology, load: vec![0; capacity.len()] };

    let mut sim = State {
        now: 0,
        starts: BinaryHeap::new(),
        seq: 0,
        moving: Vec::new(),
        remaining: vec![0.0; n_flows],
        rate: vec![0.0; n_flows],
        finish_at: vec![u64::MAX; n_flows],
        link_bytes: vec![0.0; capacity.len()],
        link_peak: vec![0.0; capacity.len()],
        batches: 0,
    };
    for index in 0..n_flows {
        if deps_left[index] == 0 {
            sim.issue(&mut flows, &mut issuer, index as u32);
        }
    }
    let mut solver = maxmin::Solver::new(capacity.len(), topology.congested_efficiency);
    let mut done = Vec::new();
    loop {
        let next_start = sim.starts.peek().map(|Reverse((at, _, _))| *at);
        let next_finish = sim.moving.iter().map(|&f| sim.finish_at[f as usize]).min();
        let Some(t) = [next_start, next_finish].into_iter().flatten().min() else { break };
        sim.advance_to(t, &flows);
        sim.batches += 1;

        // Finishes at t, in flow order.
        done.clear();
        sim.moving.retain(|&f| {
            if sim.finish_at[f as usize] == t {
                done.push(f);
                false
            } else {
                true
            }
        });
        // Starts at t; a flow with no bytes finishes as it starts.
        while let Some(&Reverse((at, _, f))) = sim.starts.peek() {
            if at != t {
                break;
            }
            sim.starts.pop();
            flows[f as usize].started = SimTime(t);
            sim.remaining[f as usize] = flows[f as usize].bytes as f64;
            if flows[f as usize].bytes == 0 || flows[f as usize].path.is_empty() {
                done.push(f);
            } else {
                sim.moving.push(f);
            }
        }
        done.sort_unstable();
        sim.moving.sort_unstable();
        for &f in &done {
            let flow = &mut flows[f as usize];
            flow.finished = SimTime(t);
            flow.set_rate(SimTime(t), 0.0);
            for &link in &flow.path {
                issuer.load[link.index()] -= 1;
            }
            sim.remaining[f as usize] = 0.0;
            sim.rate[f as usize] = 0.0;
            for &next in &dependents[f as usize] {
                deps_left[next as usize] -= 1;
                if deps_left[next as usize] == 0 {
                    sim.issue(&mut flows, &mut issuer, next);
                }
            }
        }
        // New rates for every moving flow.
        let rates = solver.solve(&sim.moving, &flows, &capacity, &network, transfers);
        for (&f, rate) in sim.moving.iter().zip(rates) {
            let fi = f as usize;
            if rate != sim.rate[fi] {
                sim.rate[fi] = rate;
                flows[fi].set_rate(SimTime(t), rate);
            }
            sim.finish_at[fi] = t + crate::units::ceil_ns((sim.remaining[fi] / rate).max(0.0));
        }
        for &f in &sim.moving {
            for &link in &flows[f as usize].path {
                let l = link.index();
                sim.link_peak[l] = sim.link_peak[l].max(solver.load(l));
            }
        }
    }
    debug_assert!(flows.iter().all(|flow| flow.finished >= flow.started), "every flow finishes");
    let end = flows.iter().map(|flow| flow.finished).max().unwrap_or(SimTime::ZERO);
    Trace::new(flows, SimTime(end.0), sim.link_bytes, sim.link_peak, sim.batches)
}

/// What issuing a flow needs: the router and the flows in flight per link.
struct Issuer<'a, 't> {
    router: &'a mut Router<'t>,
    schedule: &'a Schedule,
    topology: &'a Topology,
    load: Vec<u32>,
}

struct State {
    now: u64,
    /// Flows paying their latency, by (start time, issue sequence).
    starts: BinaryHeap<Reverse<(u64, u64, u32)>>,
    seq: u64,
    /// Flows moving data, in flow order.
    moving: Vec<u32>,
    remaining: Vec<f64>,
    rate: Vec<f64>,
    finish_at: Vec<u64>,
    link_bytes: Vec<f64>,
    link_peak: Vec<f64>,
    batches: u64,
}

impl State {
    fn issue(&mut self, flows: &mut [FlowRecord], issuer: &mut Issuer, f: u32) {
        let transfer = &issuer.schedule.transfers[f as usize];
        let path = issuer.router.route(transfer.src, transfer.dst, transfer.channel, &issuer.load);
        for &link in &path {
            issuer.load[link.index()] += 1;
        }
        let latency = flow_latency_ns(issuer.topology, &path);
        let flow = &mut flows[f as usize];
        flow.path = path;
        flow.issued = SimTime(self.now);
        self.starts.push(Reverse((self.now + latency, self.seq, f)));
        self.seq += 1;
    }

    /// Moves every moving flow's data forward to time `t`.
    fn advance_to(&mut self, t: u64, flows: &[FlowRecord]) {
        debug_assert!(t >= self.now, "time never goes backwards");
        let dt = (t - self.now) as f64;
        if dt > 0.0 {
            for &f in &self.moving {
                let fi = f as usize;
                let moved = (self.rate[fi] * dt).min(self.remaining[fi]);
                self.remaining[fi] -= moved;
                for &link in &flows[fi].path {
                    self.link_bytes[link.index()] += moved;
                }
            }
        }
        self.now = t;
    }
}
