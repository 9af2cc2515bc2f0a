//! The front door: simulate a scenario, summarise it, describe its steps, sweep sizes.

use crate::collective::{ChunkOp, Phase, Schedule, ELEM_BYTES};
use crate::engine;
use crate::scenario::{ScenarioError, ValidScenario};
use crate::topology::{build, LinkId, LinkKind, Topology};
use crate::trace::Trace;
use crate::units::SimTime;
use serde::Serialize;

/// Everything one scenario produces.
#[derive(Clone, Debug)]
pub struct Simulation {
    pub scenario: ValidScenario,
    pub topology: Topology,
    pub schedule: Schedule,
    pub trace: Trace,
    pub summary: Summary,
    /// The tuner's predictions and choice for this collective and size.
    pub tuning: crate::collective::Tuning,
    /// Each algorithm's bandwidth-bound time at this size [ns], and the intra-node link class:
    /// what `tuning_at` scales to other sizes.
    pub tuning_bounds: Vec<(crate::collective::Algorithm, f64)>,
    pub tuning_intra: LinkKind,
    /// The rank whose channel-0 transfers the step text follows (`focus_rank`).
    pub focus_rank: u32,
    /// When the followed transfer of each step was issued, indexed by step. Channels and ranks
    /// drift apart once links differ, so "the current step" is the followed rank's.
    pub step_starts: Vec<SimTime>,
    /// Per step: its transfer count, the followed transfer (channel 0) and the example the step
    /// text describes, found once so a frame never scans the schedule.
    step_index: Vec<StepIndex>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct StepIndex {
    transfers: u32,
    focus: Option<u32>,
    example: Option<u32>,
}

/// One pass over the schedule: each step's count, followed transfer and example.
fn index_steps(schedule: &crate::collective::Schedule, focus_rank: u32) -> Vec<StepIndex> {
    let mut index = vec![StepIndex::default(); schedule.n_steps as usize];
    let mut focus_is_rank = vec![false; index.len()];
    let mut example_is_rank = vec![false; index.len()];
    for (i, t) in schedule.transfers.iter().enumerate() {
        let Some(entry) = index.get_mut(t.step as usize) else { continue };
        let k = t.step as usize;
        entry.transfers += 1;
        let i = i as u32;
        if t.channel == 0 && (entry.focus.is_none() || (!focus_is_rank[k] && t.src == focus_rank)) {
            entry.focus = Some(i);
            focus_is_rank[k] = t.src == focus_rank;
        }
        if entry.example.is_none() || (!example_is_rank[k] && t.src == focus_rank) {
            entry.example = Some(i);
            example_is_rank[k] = t.src == focus_rank;
        }
    }
    index
}

/// The numbers nccl-tests prints, and the bottleneck.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub size_bytes: u64,
    pub n_ranks: u32,
    pub time: SimTime,
    /// size / time [GB/s] (nccl-tests `algbw`).
    pub algbw_gbyte_per_s: f64,
    /// algbw × the collective's factor [GB/s] (nccl-tests `busbw`).
    pub busbw_gbyte_per_s: f64,
    /// The link with the highest mean utilisation over the run.
    pub bottleneck: Option<LinkId>,
    pub bottleneck_utilisation: f64,
}

/// What the current step does, as data; the page and the CLI put it into words.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepInfo {
    /// 0-based.
    pub step: u32,
    pub n_steps: u32,
    pub phase: Phase,
    /// Transfers in this step (all channels).
    pub transfers: u32,
    /// One transfer of the step, the lowest-channel one sent by `focus_rank`.
    pub src: u32,
    pub dst: u32,
    pub chunk: u32,
    pub channel: u32,
    pub op: ChunkOp,
    pub bytes: u64,
    /// The slowest link class the example transfer crosses.
    pub via: LinkKind,
    /// Peer to peer, or up to or down from a switch that reduces (NVLS).
    pub hop: crate::collective::Hop,
}

/// Builds, schedules and runs a scenario.
pub fn simulate(scenario: &ValidScenario) -> Simulation {
    let topology = build(scenario);
    let s = scenario.scenario();
    let count = s.size_bytes / ELEM_BYTES;
    let rings = &scenario.preset().rings;
    let ring = crate::collective::schedule(s.collective, s.nodes, rings, count, scenario.channels(), s.root);
    // The tuner's table, from each algorithm's bandwidth bound on this topology.
    let intra = match scenario.preset().gpu_fabric {
        crate::catalog::NodeFabric::Pcie => LinkKind::Pcie,
        _ => LinkKind::NvLink,
    };
    let mut algorithms = vec![ring];
    if s.collective == crate::scenario::Collective::AllReduce && algorithms[0].n_ranks > 1 {
        use crate::collective::Algorithm::{Hierarchical, Tree};
        // NVLS is weighed where the NVSwitch reduces and it is enabled, or forced.
        let nvls = crate::collective::nvls::supported(scenario) && (s.in_network || s.algorithm == Some(crate::collective::Algorithm::Nvls));
        let collnet = crate::collective::sharp_supported(scenario) && (s.in_network || s.algorithm == Some(crate::collective::Algorithm::CollNet));
        let more: &[_] = match (s.nodes > 1, nvls, collnet) {
            (true, _, true) => &[Tree, Hierarchical, crate::collective::Algorithm::CollNet],
            (true, _, false) => &[Tree, Hierarchical],
            (false, true, _) => &[Tree, crate::collective::Algorithm::Nvls],
            (false, false, _) => &[Tree],
        };
        for &algorithm in more {
            algorithms.push(crate::collective::schedule_with(s.collective, algorithm, s.nodes, rings, count, scenario.channels(), s.root));
        }
    }
    let bounds: Vec<(crate::collective::Algorithm, f64)> = {
        let mut router = crate::routing::Router::new(&topology, crate::catalog::Routing::Static, s.seed);
        algorithms.iter().map(|a| (a.algorithm, crate::collective::tuner::bandwidth_bound_ns(&topology, a, &mut router))).collect()
    };
    let tuning = crate::collective::tune(s.collective, algorithms[0].n_ranks, s.nodes, s.size_bytes, &bounds, intra);
    // NCCL_ALGO and NCCL_PROTO narrow the tuner's choice; it picks among what is left.
    let pick = crate::collective::tuner::pick(&tuning, s.algorithm, s.protocol).copied().unwrap_or(*tuning.choice());
    let chosen = algorithms.iter().position(|a| a.algorithm == pick.algorithm).unwrap_or(0);
    let mut schedule = algorithms.swap_remove(chosen);
    schedule.protocol = s.protocol.unwrap_or(pick.protocol);
    let trace = engine::run(&topology, &schedule, scenario.routing(), s.seed);
    let summary = summarise(scenario, &topology, &trace);
    let focus_rank = focus_rank(&topology, &scenario.preset().rings[0]);
    // A step's start is when the followed rank's channel-0 transfer was issued, or, in a step
    // where that rank sends nothing (a broadcast's chain), the step's first channel-0 transfer.
    let mut followed = vec![SimTime(u64::MAX); schedule.n_steps as usize];
    let mut any = vec![SimTime(u64::MAX); schedule.n_steps as usize];
    for (transfer, flow) in schedule.transfers.iter().zip(&trace.flows) {
        if transfer.channel == 0 {
            let k = transfer.step as usize;
            any[k] = any[k].min(flow.issued);
            if transfer.src == focus_rank {
                followed[k] = followed[k].min(flow.issued);
            }
        }
    }
    let mut step_starts: Vec<SimTime> =
        followed.iter().zip(&any).map(|(&f, &a)| if f.0 == u64::MAX { a } else { f }).collect();
    // Keep them in order, so "the step at t" is well defined.
    for k in 1..step_starts.len() {
        step_starts[k] = step_starts[k].max(step_starts[k - 1]);
    }
    let step_index = index_steps(&schedule, focus_rank);
    Simulation {
        step_index,
        scenario: scenario.clone(),
        topology,
        schedule,
        trace,
        summary,
        focus_rank,
        step_starts,
        tuning,
        tuning_bounds: bounds,
        tuning_intra: intra,
    }
}

/// The rank to follow: on several nodes the one whose channel-0 send leaves its node (the last
/// of the node's ring order, so the story shows the NIC), else the ring's first GPU.
fn focus_rank(topology: &Topology, intra: &[u32]) -> u32 {
    if topology.n_nodes() > 1 {
        intra[intra.len() - 1]
    } else {
        intra[0]
    }
}

fn summarise(scenario: &ValidScenario, topology: &Topology, trace: &Trace) -> Summary {
    let size_bytes = scenario.scenario().size_bytes;
    let n_ranks = scenario.n_ranks();
    let seconds_ns = trace.end.0.max(1) as f64;
    let algbw = size_bytes as f64 / seconds_ns;
    let mean = trace.mean_utilisation(topology);
    let bottleneck = mean
        .iter()
        .enumerate()
        .filter(|(_, &u)| u > 0.0)
        .fold(None, |best: Option<(usize, f64)>, (i, &u)| match best {
            Some((_, b)) if b >= u => best,
            _ => Some((i, u)),
        });
    Summary {
        size_bytes,
        n_ranks,
        time: trace.end,
        algbw_gbyte_per_s: if trace.end.0 == 0 { 0.0 } else { algbw },
        busbw_gbyte_per_s: if trace.end.0 == 0 { 0.0 } else { algbw * scenario.scenario().collective.busbw_factor(n_ranks) },
        bottleneck: bottleneck.map(|(i, _)| LinkId(i as u32)),
        bottleneck_utilisation: bottleneck.map(|(_, u)| u).unwrap_or(0.0),
    }
}

impl Simulation {
    /// The tuner's table at another message size, on the same hardware: a bandwidth bound is
    /// the busiest link's bytes over its capacity, so it scales with the size.
    pub fn tuning_at(&self, size_bytes: u64) -> crate::collective::Tuning {
        let s = self.scenario.scenario();
        let scale = size_bytes as f64 / s.size_bytes.max(1) as f64;
        let bounds: Vec<_> = self.tuning_bounds.iter().map(|&(a, ns)| (a, ns * scale)).collect();
        crate::collective::tune(s.collective, self.schedule.n_ranks, s.nodes, size_bytes, &bounds, self.tuning_intra)
    }

    /// The step running at time `t`: the last one whose first transfer was issued by `t`.
    pub fn step_at(&self, t: SimTime) -> Option<u32> {
        let started = self.step_starts.partition_point(|&start| start <= t);
        (started > 0).then(|| started as u32 - 1)
    }

    /// Every link as CSV: what it joins, its kind and capacity, the bytes it carried, its mean
    /// and peak utilisation over the run.
    pub fn links_csv(&self) -> String {
        let mut out = String::from("link,from,to,kind,capacity_gbyte_per_s,latency_ns,bytes,mean_utilisation,peak_utilisation\n");
        let mean = self.trace.mean_utilisation(&self.topology);
        for (id, link) in self.topology.links() {
            let capacity = link.capacity().bytes_per_ns();
            out.push_str(&format!(
                "{},{},{},{:?},{:.3},{},{:.0},{:.6},{:.6}\n",
                id.index(),
                self.topology.vertex_name(link.src),
                self.topology.vertex_name(link.dst),
                link.kind,
                capacity,
                link.latency_ns,
                self.trace.link_bytes[id.index()],
                mean[id.index()],
                self.trace.link_peak[id.index()] / capacity
            ));
        }
        out
    }

    /// Every transfer as CSV, sorted by sending rank then time: each rank's timeline of sends
    /// (issued: dependencies done; started: data moving; finished) with what it moved.
    pub fn transfers_csv(&self) -> String {
        let mut out = String::from("rank,peer,step,channel,chunk,op,bytes,issued_ns,started_ns,finished_ns,links\n");
        let mut order: Vec<usize> = (0..self.schedule.transfers.len()).collect();
        order.sort_by_key(|&i| (self.schedule.transfers[i].src, self.trace.flows[i].issued, i));
        for i in order {
            let (t, f) = (&self.schedule.transfers[i], &self.trace.flows[i]);
            out.push_str(&format!(
                "{},{},{},{},{},{:?},{},{},{},{},{}\n",
                t.src,
                t.dst,
                t.step,
                t.channel,
                t.chunk,
                t.op,
                t.bytes(),
                f.issued.0,
                f.started.0,
                f.finished.0,
                f.path.len()
            ));
        }
        out
    }

    /// The followed transfer of `step`: `focus_rank`'s send on channel 0.
    pub fn focus_transfer(&self, step: u32) -> Option<u32> {
        self.step_index.get(step as usize).and_then(|s| s.focus)
    }

    /// Describes `step`, using the transfer that `focus_rank` sends (the simulation's own
    /// `focus_rank` is indexed; another one is looked up).
    pub fn step_info(&self, step: u32, focus_rank: u32) -> Option<StepInfo> {
        let (transfers, index) = if focus_rank == self.focus_rank {
            let entry = self.step_index.get(step as usize)?;
            (entry.transfers, entry.example? as usize)
        } else {
            let in_step = self.schedule.transfers.iter().enumerate().filter(|(_, t)| t.step == step);
            let index = in_step.clone().find(|(_, t)| t.src == focus_rank).or_else(|| in_step.clone().next())?.0;
            (in_step.count() as u32, index)
        };
        let example = &self.schedule.transfers[index];
        Some(StepInfo {
            step,
            n_steps: self.schedule.n_steps,
            // A tree step's phase is its direction: reducing up or broadcasting down.
            phase: match (self.schedule.algorithm, example.op) {
                (crate::collective::Algorithm::Tree, ChunkOp::Reduce) => Phase::Reduce,
                (crate::collective::Algorithm::Tree, ChunkOp::Copy) => Phase::Broadcast,
                // Hierarchical and CollNet: reducing phases, then copying ones.
                (crate::collective::Algorithm::Hierarchical | crate::collective::Algorithm::CollNet, ChunkOp::Reduce) => Phase::ReduceScatter,
                (crate::collective::Algorithm::Hierarchical | crate::collective::Algorithm::CollNet, ChunkOp::Copy) => Phase::AllGather,
                // NVLS alternates: the switch reduces (a reduce-scatter), then multicasts.
                (crate::collective::Algorithm::Nvls, _) if step % 2 == 0 => Phase::ReduceScatter,
                (crate::collective::Algorithm::Nvls, _) => Phase::AllGather,
                _ => self.schedule.phase(step),
            },
            transfers,
            src: example.src,
            dst: example.dst,
            chunk: example.chunk,
            channel: example.channel,
            op: example.op,
            bytes: example.bytes(),
            via: engine::path_class(&self.topology, &self.trace.flows[index].path),
            hop: example.hop,
        })
    }
}

/// The closed-form α-β prediction for this run and the figures it uses.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AlphaBeta {
    /// Latency of one step inside a node (NVLink path + protocol overhead) [ns].
    pub alpha_intra_ns: f64,
    /// Latency of one step that crosses the network [ns]; 0 on one node.
    pub alpha_inter_ns: f64,
    /// Steps of the slowest chain on each: a chunk's 2(n-1) hops around the ring.
    pub intra_steps: u32,
    pub inter_steps: u32,
    /// The slowest ring hop's data bandwidth per rank, all channels together, after the
    /// protocol's wire overhead [B/ns = GB/s].
    pub bandwidth_bytes_per_ns: f64,
    /// The protocol's launch latency [ns].
    pub base_ns: f64,
    /// `base + intra_steps·α_intra + inter_steps·α_inter + factor · S/B` [ns].
    pub predicted_ns: f64,
}

impl AlphaBeta {
    pub fn latency_ns(&self) -> f64 {
        self.base_ns + self.intra_steps as f64 * self.alpha_intra_ns + self.inter_steps as f64 * self.alpha_inter_ns
    }
}

impl Simulation {
    /// The α-β formula with this topology's figures, for the ring collectives: AllReduce
    /// `2(n-1)·α + 2(n-1)/n · S/B`, AllGather and ReduceScatter `(n-1)·α + (n-1)/n · S/B`;
    /// `None` for the others.
    ///
    /// `B`: a hop's bandwidth is its slowest link's capacity divided among the first step's
    /// transfers that cross that link; a channel moves at its slowest hop, and `B` is that rate
    /// times the number of channels. `α`: a chunk's data travels 2(n-1) consecutive ring hops,
    /// so the latency term is the slowest such chain: on one node `2(n-1)·α`; across nodes
    /// some of its hops cross the network and pay the network's α. Exact for one node; across
    /// nodes the engine finishes earlier, because it overlaps one step's latency with other
    /// steps' data.
    pub fn alpha_beta(&self) -> Option<AlphaBeta> {
        use crate::scenario::Collective;
        let collective = self.schedule.collective;
        if !matches!(collective, Collective::AllReduce | Collective::AllGather | Collective::ReduceScatter)
            || self.schedule.algorithm != crate::collective::Algorithm::Ring
        {
            return None;
        }
        let n = self.schedule.n_ranks;
        let first: Vec<usize> =
            (0..self.schedule.transfers.len()).filter(|&i| self.schedule.transfers[i].step == 0).collect();
        let mut sharing = vec![0u32; self.topology.n_links()];
        for &i in &first {
            for link in &self.trace.flows[i].path {
                sharing[link.index()] += 1;
            }
        }
        let mut channel_rate = vec![f64::INFINITY; self.schedule.n_channels as usize];
        for &i in &first {
            let rate = self.trace.flows[i]
                .path
                .iter()
                .map(|&l| self.topology.link(l).capacity().bytes_per_ns() / sharing[l.index()] as f64)
                .fold(f64::INFINITY, f64::min);
            let channel = self.schedule.transfers[i].channel as usize;
            channel_rate[channel] = channel_rate[channel].min(rate);
        }
        let slowest = channel_rate.iter().copied().fold(f64::INFINITY, f64::min);
        if n < 2 || !slowest.is_finite() {
            return None;
        }
        // Channel 0's hops in ring order: (latency, crosses the network).
        let hops: Vec<(u64, bool)> = first
            .iter()
            .filter(|&&i| self.schedule.transfers[i].channel == 0)
            .map(|&i| {
                let path = &self.trace.flows[i].path;
                (
                    engine::flow_latency_ns(&self.topology, path, self.schedule.algorithm, self.schedule.protocol),
                    engine::path_class(&self.topology, path) == LinkKind::Network,
                )
            })
            .collect();
        let chain = self.schedule.n_steps as usize;
        let (mut worst, mut worst_inter) = (0u64, 0u32);
        for start in 0..hops.len() {
            let (sum, inter) = (0..chain).map(|k| hops[(start + k) % hops.len()]).fold((0u64, 0u32), |(s, c), (lat, net)| {
                (s + lat, c + net as u32)
            });
            if sum > worst {
                (worst, worst_inter) = (sum, inter);
            }
        }
        let alpha_intra = hops.iter().filter(|h| !h.1).map(|h| h.0).max().unwrap_or(0) as f64;
        let alpha_inter = hops.iter().filter(|h| h.1).map(|h| h.0).max().unwrap_or(0) as f64;
        let protocol = self.schedule.protocol;
        let data_per_wire = 1e6 / protocol.wire_bytes(1_000_000) as f64;
        let bandwidth = slowest * self.schedule.n_channels as f64 * data_per_wire;
        let size = self.schedule.size_bytes();
        let beta_ns = collective.busbw_factor(n) * size as f64 / bandwidth;
        let base = protocol.base_latency_ns(self.schedule.algorithm) as f64;
        Some(AlphaBeta {
            alpha_intra_ns: alpha_intra,
            alpha_inter_ns: alpha_inter,
            intra_steps: chain as u32 - worst_inter,
            inter_steps: worst_inter,
            bandwidth_bytes_per_ns: bandwidth,
            base_ns: base,
            predicted_ns: base + worst as f64 + beta_ns,
        })
    }
}

/// One row of a size sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepPoint {
    pub size_bytes: u64,
    /// Elements of 4-byte float.
    pub count: u64,
    pub time_us: f64,
    pub algbw_gbyte_per_s: f64,
    pub busbw_gbyte_per_s: f64,
    /// The algorithm and protocol it ran with.
    pub algorithm: crate::collective::Algorithm,
    pub protocol: crate::collective::Protocol,
    /// NCCL's model's prediction for that protocol [us].
    pub tuner_time_us: f64,
    /// `Trace::hash_hex` of the run: the page shows the same for the same scenario.
    pub trace_hash: String,
}

/// Sizes from `min` to `max` multiplying by `factor`, as nccl-tests' `-b -e -f` do; each rounded
/// down to a multiple of 4 bytes and at least 4.
pub fn sweep_sizes(min: u64, max: u64, factor: u64) -> Vec<u64> {
    let mut sizes = Vec::new();
    let mut size = min.max(4);
    while size <= max {
        sizes.push((size / ELEM_BYTES * ELEM_BYTES).max(ELEM_BYTES));
        match size.checked_mul(factor.max(2)) {
            Some(next) => size = next,
            None => break,
        }
    }
    sizes.dedup();
    sizes
}

/// Runs the scenario at every size.
pub fn sweep(scenario: &ValidScenario, sizes: &[u64]) -> Result<Vec<SweepPoint>, Vec<ScenarioError>> {
    sweep_hashed(scenario, sizes, true)
}

/// `sweep` without the trace hashes (`trace_hash` left empty): hashing every segment of a
/// large trace costs as much as a fifth of simulating it, and a chart does not show it.
pub fn sweep_unhashed(scenario: &ValidScenario, sizes: &[u64]) -> Result<Vec<SweepPoint>, Vec<ScenarioError>> {
    sweep_hashed(scenario, sizes, false)
}

fn sweep_hashed(scenario: &ValidScenario, sizes: &[u64], hash: bool) -> Result<Vec<SweepPoint>, Vec<ScenarioError>> {
    sizes
        .iter()
        .map(|&size| {
            let sim = simulate(&scenario.with_size(size)?);
            Ok(SweepPoint {
                size_bytes: size,
                count: size / ELEM_BYTES,
                time_us: sim.summary.time.as_us(),
                algbw_gbyte_per_s: sim.summary.algbw_gbyte_per_s,
                busbw_gbyte_per_s: sim.summary.busbw_gbyte_per_s,
                algorithm: sim.schedule.algorithm,
                protocol: sim.schedule.protocol,
                tuner_time_us: sim
                    .tuning
                    .rows
                    .iter()
                    .find(|row| row.protocol == sim.schedule.protocol && row.algorithm == sim.schedule.algorithm)
                    .map(|row| row.predicted_ns / 1e3)
                    .unwrap_or(f64::NAN),
                trace_hash: if hash { sim.trace.hash_hex() } else { String::new() },
            })
        })
        .collect()
}
