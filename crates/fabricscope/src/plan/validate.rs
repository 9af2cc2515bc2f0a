//! Validation: a `Scenario` becomes a `ValidScenario` whose every field is in range, or the
//! list of *all* its problems, each naming its field. The caps are in `limits`; what runs at
//! all is `admission`'s rule. The rest of the core takes a `ValidScenario` without checking again.

use super::admission::{admit, most_pipeline_bytes, most_ring_ranks, Admission, Budget, ENGINE_BUDGET};
use crate::catalog::{
    LinkSpec, NodePreset, NodeSpec, Routing, Technology, SRIOV_EFFICIENCY, SRIOV_LATENCY_NS,
};
use crate::collective::transfer_count_with;

use super::node::{custom_node, custom_problem};
use crate::limits::{
    HORIZON_NS, MAX_ALL_PAIRS_RANKS, MAX_BANDWIDTH_GBYTE_PER_S, MAX_CHANNELS, MAX_LATENCY_NS, MAX_NODES,
    MAX_SIZE_BYTES, MAX_TRANSFERS,
};
use crate::routing::Policy;
use crate::scenario::{
    Algorithm, Collective, FabricTopology, LinkOverride, Pinning, Protocol, Scenario, ScenarioError,
};
use crate::topology::{FabricPlan, LinkFigures, Topology};
use crate::units::ELEM_BYTES;

/// A scenario whose every field is in range. Only `Scenario::validate` makes one.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidScenario {
    scenario: Scenario,
    preset: NodeSpec,
    channels: u32,
    plan: FabricPlan,
}

impl ValidScenario {
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The node: the preset's figures or the custom node's.
    pub fn preset(&self) -> &NodeSpec {
        &self.preset
    }

    /// Parallel rings actually used (the scenario's, or the automatic choice).
    pub fn channels(&self) -> u32 {
        self.channels
    }

    pub fn fabric_plan(&self) -> &FabricPlan {
        &self.plan
    }

    /// The routing in force: the scenario's, or the technology's default.
    pub fn routing(&self) -> Routing {
        self.scenario.fabric.routing.unwrap_or(self.scenario.fabric.technology.spec().default_routing)
    }

    pub fn n_ranks(&self) -> u32 {
        self.scenario.nodes * self.preset.gpus_per_node
    }

    /// Transfers of the collective whole, as validation counts them (the forced algorithm's,
    /// else the ring's or the pattern's: `collective::transfer_count_with`).
    pub fn transfers(&self) -> u64 {
        let s = &self.scenario;
        transfer_count_with(
            s.collective,
            s.algorithm,
            s.nodes,
            self.preset.gpus_per_node,
            s.count(),
            self.channels,
        )
    }

    /// The cluster this scenario describes, as a graph.
    pub fn topology(&self) -> Topology {
        crate::topology::build(&self.scenario, &self.preset, &self.plan)
    }

    /// The figures each kind of link runs at, before SR-IOV (`topology::LinkFigures`).
    pub fn link_figures(&self) -> LinkFigures {
        crate::topology::link_figures(&self.scenario, &self.preset)
    }

    /// How flows are routed: the routing in force, the seed and the job's NIC policy.
    pub fn policy(&self) -> Policy {
        Policy {
            routing: self.routing(),
            seed: self.scenario.seed,
            nics_used: self.scenario.nics_used.unwrap_or(self.preset.nics_per_node),
            pinning: self.scenario.pinning,
        }
    }

    /// How this scenario's collective fits `budget` (`admission`).
    pub fn admit(&self, budget: Budget) -> Admission {
        admit(
            &self.scenario,
            self.n_ranks(),
            self.channels,
            budget,
            self.preset.gpu_fabric.reduces_in_switch(),
        )
    }

    /// Whether NVLS can run the scenario: an AllReduce inside one node whose NVSwitch reduces
    /// (generation 3 and later: DGX H100, HGX H800, HGX B200).
    pub fn nvls_supported(&self) -> bool {
        nvls_runs(&self.scenario, &self.preset)
    }

    /// Whether NVLSTree can run the scenario: an AllReduce across nodes whose NVSwitch reduces.
    pub fn nvls_tree_supported(&self) -> bool {
        self.scenario.collective == Collective::AllReduce
            && self.scenario.nodes > 1
            && self.preset.gpu_fabric.reduces_in_switch()
    }

    /// Whether InfiniBand SHARP (CollNet) can run the scenario: an AllReduce across nodes on an
    /// InfiniBand fabric of one switch or a leaf-spine, whose switches aggregate (Quantum class).
    pub fn sharp_supported(&self) -> bool {
        sharp_runs(&self.scenario, self.plan.kind)
    }

    /// The NCCL environment this scenario's settings correspond to, as `NAME=value` pairs:
    /// NVLS and CollNet on or off, the channel count, and the NICs when the job uses fewer than
    /// the node has (NCCL_IB_HCA, with the usual `mlx5_N` device names). NCCL_ALGO and
    /// NCCL_PROTO are the scenario's `algorithm` and `protocol` (unset: the tuner's choice).
    pub fn nccl_env(&self) -> Vec<String> {
        let s = &self.scenario;
        let mut env = vec![
            format!("NCCL_NVLS_ENABLE={}", u8::from(s.nvls)),
            format!("NCCL_COLLNET_ENABLE={}", u8::from(s.collnet)),
            format!("NCCL_MIN_NCHANNELS={}", self.channels),
            format!("NCCL_MAX_NCHANNELS={}", self.channels),
        ];
        let nics = self.preset.nics_per_node;
        if let Some(used) = s.nics_used.filter(|&used| used < nics) {
            let names: Vec<String> = (0..used).map(|i| format!("mlx5_{i}")).collect();
            env.push(format!("NCCL_IB_HCA={}", names.join(",")));
        }
        env
    }

    /// The same scenario with another message size (sizes are checked again).
    pub fn with_size(&self, size_bytes: u64) -> Result<ValidScenario, Vec<ScenarioError>> {
        Scenario { size_bytes, ..self.scenario.clone() }.validate()
    }

    /// The same scenario of `count` elements, at most its own (`simulation`'s rounded ring):
    /// fewer elements stay within every limit this one was checked against.
    pub(crate) fn with_fewer_elements(&self, count: u64) -> ValidScenario {
        debug_assert!(count <= self.scenario.count());
        let size_bytes = count.min(self.scenario.count()) * crate::units::ELEM_BYTES;
        ValidScenario { scenario: Scenario { size_bytes, ..self.scenario.clone() }, ..self.clone() }
    }
}

impl Scenario {
    /// Checks every field, and that the engine can run it; returns all problems at once.
    pub fn validate(&self) -> Result<ValidScenario, Vec<ScenarioError>> {
        self.check(true)
    }

    /// Checks every field but not the engine's limit: for building and inspecting a topology
    /// (up to `MAX_NODES` nodes) without simulating a collective on it.
    pub fn validate_fabric(&self) -> Result<ValidScenario, Vec<ScenarioError>> {
        self.check(false)
    }

    fn check(&self, engine_limit: bool) -> Result<ValidScenario, Vec<ScenarioError>> {
        let mut errors = Vec::new();
        let mut problem =
            |field: &str, problem: String| errors.push(ScenarioError { field: field.to_string(), problem });

        let preset: Option<NodeSpec> = match (self.preset.as_str(), &self.custom) {
            ("imported", None) => match &self.imported {
                Some(node) => match super::node::imported_node(node) {
                    Ok(spec) => Some(spec),
                    Err((field, why)) => {
                        problem(&field, why);
                        None
                    }
                },
                None => {
                    problem("imported", "preset \"imported\" needs an imported node: read one from nvidia-smi topo -m or NCCL's topology XML (fabricscope topo --import FILE)".into());
                    None
                }
            },
            ("custom", Some(custom)) => match custom_problem(custom) {
                Some((field, why)) => {
                    problem(field, why);
                    None
                }
                None => Some(custom_node(custom)),
            },
            ("custom", None) => {
                problem("custom", "preset \"custom\" needs a custom node: {\"shape\": \"ring\"|\"star\"|\"full_mesh\", \"gpus\": N, \"link\": {\"bandwidth_gbyte_per_s\": B}}".into());
                None
            }
            (_, Some(_)) => {
                problem(
                    "custom",
                    format!("a custom node needs \"preset\": \"custom\", not '{}'", self.preset),
                );
                None
            }
            (id, None) if self.imported.is_some() => {
                problem("imported", format!("an imported node needs \"preset\": \"imported\", not '{id}'"));
                None
            }
            (id, None) => match NodePreset::by_id(id) {
                Some(preset) => Some(NodeSpec::from(preset)),
                None => {
                    let known: Vec<&str> = NodePreset::ids().collect();
                    problem(
                        "preset",
                        format!(
                            "unknown preset '{}'; use one of: {}, custom, imported",
                            self.preset,
                            known.join(", ")
                        ),
                    );
                    None
                }
            },
        };
        let preset = preset.as_ref();
        let mut plan = None;
        if self.nodes == 0 || self.nodes > MAX_NODES {
            problem("nodes", format!("{} is out of range: use 1 to {MAX_NODES}", self.nodes));
        } else if let Some(preset) = preset {
            match FabricPlan::new(&self.fabric, preset.switch_radix, self.nodes, preset.nics_per_node) {
                Ok(p) => {
                    for (field, why) in super::faults::fault_problems(self, preset, &p) {
                        problem(&field, why);
                    }
                    plan = Some(p)
                }
                Err((field, why)) => problem(&field, why),
            }
        }
        if let (Some(used), Some(preset)) = (self.nics_used, preset) {
            if used == 0 || used > preset.nics_per_node {
                problem(
                    "nics_used",
                    format!("{used} is out of range: {} has 1 to {} NICs", preset.name, preset.nics_per_node),
                );
            }
        }
        if let (Some(preset), Pinning::Misaligned) = (preset, self.pinning) {
            if preset.sockets == 0 {
                problem(
                    "pinning",
                    format!("\"misaligned\" binds a process to the other CPU socket's NIC, and {} has no CPU sockets: use \"aligned\"", preset.name),
                );
            }
        }
        match (self.algorithm, self.collective) {
            (Some(Algorithm::Nvls), Collective::AllReduce) if preset.is_some_and(|p| nvls_runs(self, p)) => {
                if self.protocol.is_some_and(|p| p != Protocol::Simple) {
                    problem("protocol", "NVLS runs with Simple only, as in NCCL".into());
                }
                if !self.nvls {
                    problem("nvls", "is false (NCCL_NVLS_ENABLE=0) while the algorithm is NVLS: NCCL then has no NVLS to run; enable it or choose another algorithm".into());
                }
            }
            (Some(Algorithm::CollNet), Collective::AllReduce)
                if plan.as_ref().is_some_and(|p| sharp_runs(self, p.kind)) =>
            {
                if self.protocol == Some(Protocol::Ll128) {
                    problem("protocol", "CollNet runs with Simple or LL, not LL128, as in NCCL".into());
                }
            }
            (Some(Algorithm::CollNet), _) => problem(
                "algorithm",
                "CollNet reduces in InfiniBand switches (SHARP): it runs AllReduce across nodes on an InfiniBand single switch or leaf-spine".into(),
            ),
            (Some(Algorithm::Nvls), _) => problem(
                "algorithm",
                "NVLS reduces in the NVSwitch: it runs AllReduce on one node whose NVSwitch is third generation or later (DGX H100, HGX H800, HGX B200)".into(),
            ),
            (Some(Algorithm::NvlsTree), Collective::AllReduce)
                if self.nodes > 1 && preset.is_some_and(|p| p.gpu_fabric.reduces_in_switch()) =>
            {
                if self.protocol.is_some_and(|p| p != Protocol::Simple) {
                    problem("protocol", "NVLSTree runs with Simple only, as in NCCL".into());
                }
                if !self.nvls {
                    problem("nvls", "is false (NCCL_NVLS_ENABLE=0) while the algorithm is NVLSTree, which needs NVLS: enable it or choose another algorithm".into());
                }
            }
            (Some(Algorithm::NvlsTree), _) => problem(
                "algorithm",
                "NVLSTree is NVLS inside each node and a tree across nodes: it runs AllReduce on more than one node whose NVSwitch reduces (DGX H100, HGX H800, HGX H20, HGX B200, HGX B300)".into(),
            ),
            (Some(Algorithm::Pat), Collective::AllGather | Collective::ReduceScatter) => {
                if let Some(g) = preset.map(|p| p.gpus_per_node).filter(|&g| g != 1) {
                    problem(
                        "algorithm",
                        format!("PAT runs with one GPU per node (NCCL enables it only then), and this node has {g}: use a custom node of 1 GPU, or Ring"),
                    );
                }
                if self.protocol.is_some_and(|p| p != Protocol::Simple) {
                    problem("protocol", "PAT runs with Simple only, as in NCCL".into());
                }
            }
            (Some(Algorithm::Pat), _) => problem(
                "algorithm",
                format!("PAT runs AllGather and ReduceScatter, not {:?}", self.collective),
            ),
            (
                Some(Algorithm::HalvingDoubling),
                Collective::AllReduce | Collective::AllGather | Collective::ReduceScatter,
            ) => {
                if let Some(n) = preset.map(|p| self.nodes.saturating_mul(p.gpus_per_node)) {
                    if !n.is_power_of_two() {
                        problem(
                            "algorithm",
                            format!("halving-doubling pairs ranks by the bits of their number, so it needs a power of two of them, and there are {n}: use Ring or AllPairs"),
                        );
                    }
                }
            }
            (Some(Algorithm::AllPairs), Collective::AllReduce | Collective::AllGather | Collective::ReduceScatter) => {
                if let Some(n) = preset.map(|p| self.nodes.saturating_mul(p.gpus_per_node)) {
                    if self.collective == Collective::AllReduce && n > MAX_ALL_PAIRS_RANKS {
                        problem(
                            "algorithm",
                            format!("all-pairs AllReduce runs on at most {MAX_ALL_PAIRS_RANKS} ranks (each all-gather send waits for the n-1 sends into its rank), and there are {n}: use Ring"),
                        );
                    }
                }
            }
            (Some(Algorithm::Bruck), Collective::AllToAll) => {}
            (Some(algorithm @ (Algorithm::HalvingDoubling | Algorithm::AllPairs | Algorithm::Bruck)), collective) => {
                problem(
                    "algorithm",
                    format!(
                        "{} does not run {collective:?}: halving-doubling and all-pairs run AllReduce, AllGather and ReduceScatter, Bruck runs AllToAll",
                        algorithm.nccl_name()
                    ),
                )
            }
            // AllToAll and SendRecv are grouped point-to-point sends in NCCL: no NCCL_ALGO
            // applies, and a forced Ring is named, not silently replaced by P2P.
            (Some(Algorithm::Ring), Collective::AllToAll | Collective::SendRecv) => problem(
                "algorithm",
                format!("Ring does not run {:?}: it is point-to-point sends (P2P) in NCCL, whatever NCCL_ALGO says; leave the algorithm to the tuner or choose P2P", self.collective),
            ),
            (Some(Algorithm::Tree | Algorithm::Hierarchical), Collective::AllReduce)
            | (Some(Algorithm::Ring), _)
            | (None, _) => {}
            (Some(Algorithm::Direct), Collective::AllToAll | Collective::SendRecv) => {}
            (Some(algorithm), collective) => problem(
                "algorithm",
                format!("{} does not run {:?} here: Tree and Hierarchical run AllReduce, P2P runs AllToAll and SendRecv", algorithm.nccl_name(), collective),
            ),
        }
        if let Some(eff) = self.fabric.congested_efficiency {
            if !(eff > 0.0 && eff <= 1.0) {
                problem(
                    "fabric.congested_efficiency",
                    format!("{eff} is out of range: use more than 0 and at most 1"),
                );
            }
        }
        if self.size_bytes < 4 || self.size_bytes > MAX_SIZE_BYTES {
            problem("size_bytes", format!("{} is out of range: use 4 B to 16 GiB", self.size_bytes));
        } else if self.size_bytes % ELEM_BYTES != 0 {
            problem(
                "size_bytes",
                format!(
                    "{} is not a multiple of 4 (elements are 4-byte floats, as in nccl-tests)",
                    self.size_bytes
                ),
            );
        }
        if let Some(channels) = self.channels {
            if channels == 0 || channels > MAX_CHANNELS {
                problem("channels", format!("{channels} is out of range: use 1 to {MAX_CHANNELS}"));
            }
        }
        for (kind, link) in
            [("nvlink", &self.links.nvlink), ("pcie", &self.links.pcie), ("nic", &self.links.nic)]
        {
            if let Some(bandwidth) = link.bandwidth_gbyte_per_s {
                if !(bandwidth > 0.0 && bandwidth <= MAX_BANDWIDTH_GBYTE_PER_S) {
                    problem(
                        &format!("links.{kind}.bandwidth_gbyte_per_s"),
                        format!("{bandwidth} is out of range: use more than 0 and at most {MAX_BANDWIDTH_GBYTE_PER_S}"),
                    );
                }
            }
            if let Some(efficiency) = link.efficiency {
                if !(efficiency > 0.0 && efficiency <= 1.0) {
                    problem(
                        &format!("links.{kind}.efficiency"),
                        format!("{efficiency} is out of range: use more than 0 and at most 1"),
                    );
                }
            }
            if let Some(latency) = link.latency_ns {
                if latency > MAX_LATENCY_NS {
                    problem(
                        &format!("links.{kind}.latency_ns"),
                        format!("{latency} is out of range: use at most {MAX_LATENCY_NS} (10 s)"),
                    );
                }
            }
        }

        // NCCL's default: a channel per NIC, at most MAXCHANNELS (a rack of 72 NICs runs 32).
        let channels = self.channels.unwrap_or(
            self.nics_used.or(preset.map(|p| p.nics_per_node)).unwrap_or(1).clamp(1, MAX_CHANNELS),
        );
        if let Some(preset) = preset {
            let n = self.nodes.saturating_mul(preset.gpus_per_node);
            if n == 1 && errors.is_empty() {
                errors.push(ScenarioError {
                    field: "nodes".into(),
                    problem: "1 node of 1 GPU has no one to talk to: use 2 or more nodes of one GPU".into(),
                });
            }
            if self.root >= n && errors.is_empty() {
                errors.push(ScenarioError {
                    field: "root".into(),
                    problem: format!("{} is out of range: ranks are 0 to {}", self.root, n - 1),
                });
            }
        }
        if let (Some(preset), true, true) = (preset, errors.is_empty(), engine_limit) {
            let n = self.nodes * preset.gpus_per_node;
            // A ring too big to simulate transfer by transfer may run as a steady state, whose
            // first prefix is within `MAX_STEADY_PREFIX` (`simulation::Steady`).
            if let Admission::Refused { transfers } =
                admit(self, n, channels, ENGINE_BUDGET, preset.gpu_fabric.reduces_in_switch())
            {
                // A ring that could run as a steady state but whose simulated prefix is too big
                // says how many GPUs its channels allow.
                let hint = match super::runs_steady(self, n, channels, self.count()) {
                    Some(_) => {
                        let most = |c: u32| most_ring_ranks(c, ENGINE_BUDGET);
                        format!(
                            " (as a steady state, {channels} channels run up to {} GPUs where they fold into one and the ring turns by whole nodes, 1 channel up to {})",
                            most(channels),
                            most(1)
                        )
                    }
                    // A chain's or SendRecv's transfers grow with its chunks, fewer for a
                    // smaller message, down to one a channel.
                    None => {
                        let one_chunk = match self.collective {
                            Collective::Broadcast | Collective::Reduce => (n as u64 - 1) * channels as u64,
                            Collective::SendRecv => n as u64 * channels as u64,
                            _ => u64::MAX,
                        };
                        let zero = n as u64 * (n as u64 - 1);
                        let reduces = preset.gpu_fabric.reduces_in_switch();
                        let most = most_pipeline_bytes(self, n, channels, ENGINE_BUDGET, reduces);
                        // Why a chain is not run on fewer nodes and extrapolated.
                        let chain = match super::chain_nodes_run(self, n, channels, ENGINE_BUDGET.transfers) {
                            Err(why) if self.collective != Collective::SendRecv => {
                                format!("; not extrapolated from fewer nodes: {why}")
                            }
                            _ => String::new(),
                        };
                        match (one_chunk <= MAX_TRANSFERS, most) {
                            (true, Some(most)) => format!(
                                ", or a smaller size_bytes, at most {most} ({}) here (NCCL cuts its pipeline into chunks of a fixed size: fewer for a smaller message){chain}",
                                crate::units::format_bytes_whole(most),
                            ),
                            (true, None) => format!(", or a smaller size_bytes (NCCL cuts its pipeline into chunks of a fixed size: fewer for a smaller message){chain}"),
                            // An AllToAll whose channel 0 would fit but may not stand for all.
                            (false, _) if self.collective == Collective::AllToAll && zero <= MAX_TRANSFERS => format!(
                                " (channel 0 alone, {zero} transfers, runs for all where the channels are copies of one another: static routes on a lossless fabric, and at least 64 elements of each rank's block on every channel)"
                            ),
                            (false, _) if self.collective == Collective::AllToAll => " (a sweep's row is bounded by max-min sharing where the channels route alike: static routes, every GPU on a NIC of its own in use, a lossless fabric)".to_string(),
                            (false, _) => String::new(),
                        }
                    }
                };
                errors.push(ScenarioError {
                    field: "nodes".into(),
                    problem: format!(
                        "{} on {n} GPUs over {channels} channels is {transfers} transfers, more than the engine's limit of {MAX_TRANSFERS}: use fewer nodes or channels{hint}",
                        self.collective.nccl_name()
                    ),
                });
            }
        }
        if let (Some(preset), true, true) = (preset, errors.is_empty(), engine_limit) {
            let beyond = |(worst_ns, _): (f64, f64)| worst_ns.is_nan() || worst_ns > HORIZON_NS as f64;
            let (worst, healthy) =
                (self.worst_case_ns(preset, channels, true), self.worst_case_ns(preset, channels, false));
            // The slowest fault's rate (above 0: a link down is routed around or refused), where
            // it alone takes the run beyond the horizon.
            let slowest_fault = (0..self.faults.len())
                .filter(|&i| self.faults[i].rate > 0.0)
                .min_by(|&a, &b| self.faults[a].rate.total_cmp(&self.faults[b].rate));
            match slowest_fault {
                Some(i) if beyond(worst) && !beyond(healthy) => errors.push(ScenarioError {
                    field: format!("faults[{i}].rate"),
                    problem: format!(
                        "{:e} leaves its link {:.3e} GB/s, at which this could run for longer than 2^61 ns (73 years) of simulated time, the engine's horizon: give a higher rate or a smaller size_bytes",
                        self.faults[i].rate, worst.1
                    ),
                }),
                _ if beyond(worst) => errors.push(ScenarioError {
                    field: "links".into(),
                    problem: format!(
                        "at the slowest link's {:.3e} GB/s this could run for longer than 2^61 ns (73 years) of simulated time, the engine's horizon: use faster links or a smaller size_bytes",
                        worst.1
                    ),
                }),
                _ => {}
            }
        }
        match (preset, plan) {
            (Some(preset), Some(plan)) if errors.is_empty() => {
                Ok(ValidScenario { scenario: self.clone(), preset: preset.clone(), channels, plan })
            }
            _ => Err(errors),
        }
    }

    /// The lowest rate a fault leaves a link at, above 0 (a link down is routed around or
    /// refused); 1 without faults.
    fn slowest_fault_rate(&self) -> f64 {
        self.faults.iter().map(|f| f.rate).filter(|&rate| rate > 0.0).fold(1.0, f64::min)
    }

    /// An upper bound on the simulated time [ns], and the slowest effective link rate [GB/s]
    /// it assumes, with the slowest fault's rate on it (`faults`) or not. The bound holds
    /// because at any time a moving flow crosses a saturated link, so data moves at least at
    /// the slowest link's rate: time ≤ launch + every transfer's latency (≤ 16 links of the
    /// slowest latency, plus 10 µs per step) + all wire bytes (≤ 8 × size × ranks: LL doubles
    /// the bytes, no algorithm sends more than twice its buffer per rank) / the slowest rate.
    fn worst_case_ns(&self, preset: &NodeSpec, channels: u32, faults: bool) -> (f64, f64) {
        let tech = self.fabric.technology.spec();
        let rate = |over: &LinkOverride, spec: &LinkSpec, efficiency: f64| {
            let (line_rate, efficiency, _) = over.resolve(spec.line_rate_gbyte_per_s, efficiency, 0);
            line_rate * efficiency
        };
        let nic_efficiency = tech.nic_efficiency * if self.virtualized { SRIOV_EFFICIENCY } else { 1.0 };
        let congested = self.fabric.congested_efficiency.unwrap_or(tech.congested_efficiency).min(1.0);
        let slowest = [
            rate(&self.links.nvlink, &preset.nvlink, preset.nvlink.efficiency),
            rate(&self.links.pcie, &preset.pcie, preset.pcie.efficiency),
            rate(&self.links.nic, &preset.nic, nic_efficiency),
        ]
        .into_iter()
        .fold(f64::INFINITY, f64::min)
            * congested
            * if faults { self.slowest_fault_rate() } else { 1.0 };
        let latency = [
            self.links.nvlink.latency_ns.unwrap_or(preset.nvlink.latency_ns),
            self.links.pcie.latency_ns.unwrap_or(preset.pcie.latency_ns),
            self.links.nic.latency_ns.unwrap_or(tech.nic_latency_ns.max(preset.nic.latency_ns))
                + SRIOV_LATENCY_NS,
            tech.switch_hop_latency_ns,
        ]
        .into_iter()
        .max()
        .unwrap_or(0) as f64;
        let n = self.nodes as f64 * preset.gpus_per_node as f64;
        let transfers = transfer_count_with(
            self.collective,
            self.algorithm,
            self.nodes,
            preset.gpus_per_node,
            self.count(),
            channels,
        ) as f64;
        let bytes = 8.0 * self.size_bytes as f64 * n;
        (20_000.0 + transfers * (16.0 * latency + 10_000.0) + bytes / slowest, slowest)
    }
}

/// NVLS runs AllReduce inside one node whose NVSwitch reduces (one predicate for `validate` and
/// `ValidScenario::nvls_supported`).
fn nvls_runs(s: &Scenario, node: &NodeSpec) -> bool {
    s.collective == Collective::AllReduce
        && s.nodes == 1
        && node.gpus_per_node > 1
        && node.gpu_fabric.reduces_in_switch()
}

/// CollNet (InfiniBand SHARP) runs AllReduce across nodes whose InfiniBand switches aggregate:
/// one switch or a leaf-spine (the aggregation trees modelled).
fn sharp_runs(s: &Scenario, kind: FabricTopology) -> bool {
    s.collective == Collective::AllReduce
        && s.nodes > 1
        && s.fabric.technology == Technology::Infiniband
        && matches!(kind, FabricTopology::SingleSwitch | FabricTopology::LeafSpine)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{CustomLink, CustomNode, CustomShape};

    #[test]
    fn default_is_valid() {
        let valid = Scenario::default_demo().validate().unwrap();
        assert_eq!(valid.n_ranks(), 8);
        assert_eq!(valid.channels(), 8);
    }

    #[test]
    fn every_problem_is_reported_with_its_field() {
        let mut scenario = Scenario::default_demo();
        scenario.nodes = 0;
        scenario.size_bytes = 6;
        scenario.channels = Some(99);
        scenario.links.nic.efficiency = Some(1.5);
        let errors = scenario.validate().unwrap_err();
        let fields: Vec<&str> = errors.iter().map(|error| error.field.as_str()).collect();
        assert_eq!(fields, ["nodes", "size_bytes", "channels", "links.nic.efficiency"]);
        assert!(errors[0].problem.contains("use 1 to 16384"), "{}", errors[0]);
    }

    #[test]
    fn a_scenario_that_could_outrun_the_horizon_is_rejected() {
        let mut scenario = Scenario::default_demo();
        scenario.links.nvlink.bandwidth_gbyte_per_s = Some(1e-300);
        let errors = scenario.validate().unwrap_err();
        assert_eq!(errors[0].field, "links");
        assert!(errors[0].problem.contains("2^61 ns"), "{}", errors[0]);
        // Slow but sane links are fine: 16 GiB at 1 MB/s is hours, not decades.
        scenario.links.nvlink.bandwidth_gbyte_per_s = Some(0.001);
        scenario.size_bytes = MAX_SIZE_BYTES;
        assert!(scenario.validate().is_ok());
    }

    #[test]
    fn misaligned_pinning_needs_cpu_sockets() {
        let mut scenario = Scenario::default_demo();
        scenario.preset = "custom".into();
        scenario.custom = Some(CustomNode {
            shape: CustomShape::Star,
            gpus: 4,
            link: CustomLink { bandwidth_gbyte_per_s: 50.0, latency_ns: 500, efficiency: 1.0 },
        });
        scenario.pinning = Pinning::Misaligned;
        assert_eq!(scenario.validate().unwrap_err()[0].field, "pinning");
    }
}
