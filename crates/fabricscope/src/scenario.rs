//! Scenario: everything a view shows, as plain serde data, and its validation.
//!
//! A `Scenario` is what a URL, a file, a test or the CLI holds. `validate` checks every field
//! against its documented range and returns *all* problems, each naming its field, or a
//! `ValidScenario` that the rest of the core accepts without further checks.
//!
//! Limits (each a documented cap so that no input can make the engine hang or run out of memory):
//!
//! | field | allowed |
//! | --- | --- |
//! | `preset` | a node preset id: `dgx-h100`, `dgx-a100`, `hgx-b200`, `hgx-h800`, `dgx-1`, `pcie-h100` |
//! | `nodes` | 1 ..= 16,384, and the fabric must hold them (see `topology::fabric`) |
//! | (engine) | a ring AllReduce has `2(n-1)·n·channels` transfers: at most 2,000,000 |
//! | `fabric.radix` | an even number, 4 ..= 1024 (default: the preset's switch) |
//! | `fabric.oversubscription` | 1 ..= 16 |
//! | `fabric.congested_efficiency` | > 0 and ≤ 1 |
//! | `nics_used` | 1 ..= the preset's NICs per node |
//! | `pinning` | `aligned`, or `misaligned` on a node with CPU sockets (not a custom node) |
//! | `custom.gpus` | 2 ..= 64 |
//! | `custom.link` | as `links.*` below |
//! | `collective` | `all_reduce`, `all_gather`, `reduce_scatter`, `broadcast`, `reduce`, `all_to_all`, `send_recv` |
//! | `size_bytes` | 4 B ..= 16 GiB, a multiple of 4 (elements are 4-byte floats, as in nccl-tests) |
//! | `root` | 0 ..= ranks − 1 (Broadcast, Reduce) |
//! | `algorithm` | `Ring` (every collective), `Tree` and `Hierarchical` (AllReduce), `NVLS` (AllReduce on one node with a gen3+ NVSwitch, Simple only), `CollNet` (AllReduce across nodes on an InfiniBand single switch or leaf-spine: SHARP; Simple or LL), `P2P` (AllToAll, SendRecv); absent: the tuner's choice |
//! | `protocol` | `LL`, `LL128`, `Simple`; absent: the tuner's choice |
//! | `fabric.technology` | `infiniband`, `roce`, `tcp`, `efa` |
//! | `fabric.topology` | `auto`, `single_switch`, `leaf_spine`, `fat_tree` |
//! | `fabric.wiring`, `fabric.routing` | `rail` or `node`; `static`, `ecmp` or `adaptive` |
//! | `seed` | any u64 (ECMP hashing) |
//! | `in_network` | `true` lets the tuner pick NVLS where the node's NVSwitch reduces (NCCL_NVLS_ENABLE), and CollNet where the InfiniBand switches do (NCCL_COLLNET_ENABLE) |
//! | `channels` | 1 ..= 32 (NCCL's MAXCHANNELS is 32 on most builds) |
//! | `links.*.bandwidth_gbyte_per_s` | > 0 and ≤ 100,000 |
//! | `links.*.efficiency` | > 0 and ≤ 1 |
//! | `links.*.latency_ns` | ≤ 10,000,000,000 (10 s) |
//! | (engine) | simulated time ≤ 2^61 ns (73 years), bounded up front from the slowest link |
//! | (engine) | at most 2,000,000 transfers per collective, except a ring whose steps all look alike (equal chunks, routing other than adaptive): it runs as a steady state (`simulation::Steady`) from a prefix of 32 steps of at most 600,000 transfers |

use crate::catalog::{NodePreset, NodeSpec, Routing, Technology};
use crate::topology::FabricPlan;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Largest message a scenario may move [B].
pub const MAX_SIZE_BYTES: u64 = 16 << 30;
/// Most channels (parallel rings) a scenario may ask for.
pub const MAX_CHANNELS: u32 = 32;
/// Most nodes: 16,384 nodes of 8 GPUs is 131,072 GPUs.
pub const MAX_NODES: u32 = 16_384;
/// Most transfers one simulated collective may have (a ring AllReduce has 2(n-1)·n·channels).
pub const MAX_TRANSFERS: u64 = 2_000_000;
/// Most transfers of the prefix a ring runs as a steady state (`simulation::Steady`): a ring
/// whose steps all look alike may have more than `MAX_TRANSFERS`, as long as this many cover the
/// steps the engine looks for a repeat in (`simulation::STEADY_SEARCH_STEPS`). It bounds the
/// search's time and memory (about 1.5 s and 600 MB natively).
pub const MAX_STEADY_PREFIX: u64 = 600_000;
const MAX_BANDWIDTH_GBYTE_PER_S: f64 = 100_000.0;
const MAX_LATENCY_NS: u64 = 10_000_000_000;
/// The engine's time horizon [ns] (about 73 years): a scenario that could run longer is
/// rejected, so that no time sum can overflow.
pub const HORIZON_NS: u64 = 1 << 61;

/// The collectives a scenario can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Collective {
    AllReduce,
    AllGather,
    ReduceScatter,
    Broadcast,
    Reduce,
    AllToAll,
    /// Each rank sends its buffer to the next rank (nccl-tests `sendrecv_perf`).
    SendRecv,
}

impl Collective {
    pub const ALL: [Collective; 7] = [
        Collective::AllReduce,
        Collective::AllGather,
        Collective::ReduceScatter,
        Collective::Broadcast,
        Collective::Reduce,
        Collective::AllToAll,
        Collective::SendRecv,
    ];

    /// nccl-tests' bus bandwidth factor: busbw = algbw × factor (nccl-tests `doc/PERFORMANCE.md`):
    /// AllReduce 2(n-1)/n; AllGather, ReduceScatter, AllToAll (n-1)/n with the size being the
    /// whole buffer; Broadcast, Reduce, SendRecv 1.
    pub fn busbw_factor(self, n_ranks: u32) -> f64 {
        let n = n_ranks as f64;
        match self {
            Collective::AllReduce => 2.0 * (n - 1.0) / n,
            Collective::AllGather | Collective::ReduceScatter | Collective::AllToAll => (n - 1.0) / n,
            Collective::Broadcast | Collective::Reduce | Collective::SendRecv => 1.0,
        }
    }

    /// The nccl-tests binary whose output layout the CLI copies.
    pub fn perf_binary(self) -> &'static str {
        match self {
            Collective::AllReduce => "all_reduce_perf",
            Collective::AllGather => "all_gather_perf",
            Collective::ReduceScatter => "reduce_scatter_perf",
            Collective::Broadcast => "broadcast_perf",
            Collective::Reduce => "reduce_perf",
            Collective::AllToAll => "alltoall_perf",
            Collective::SendRecv => "sendrecv_perf",
        }
    }

    /// The name NCCL's API gives it.
    pub fn nccl_name(self) -> &'static str {
        match self {
            Collective::AllReduce => "AllReduce",
            Collective::AllGather => "AllGather",
            Collective::ReduceScatter => "ReduceScatter",
            Collective::Broadcast => "Broadcast",
            Collective::Reduce => "Reduce",
            Collective::AllToAll => "AllToAll",
            Collective::SendRecv => "SendRecv",
        }
    }

    /// Whether it has a root rank (nccl-tests' `root` column).
    pub fn has_root(self) -> bool {
        matches!(self, Collective::Broadcast | Collective::Reduce)
    }
}

/// What the whole app shows, as plain data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Node preset id, e.g. "dgx-h100".
    pub preset: String,
    /// Number of nodes, all on one InfiniBand switch.
    pub nodes: u32,
    pub collective: Collective,
    /// Message size [B], as nccl-tests counts it: the whole buffer (AllGather: the gathered
    /// output; ReduceScatter: the input; AllToAll: each rank's buffer).
    pub size_bytes: u64,
    /// Root rank of Broadcast and Reduce.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub root: u32,
    /// NCCL_ALGO: force an algorithm (Ring, Tree); default: the tuner's choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<crate::collective::Algorithm>,
    /// NCCL_PROTO: force a protocol; default: the tuner's choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<crate::collective::Protocol>,
    /// Parallel rings. `None`: NCCL's choice here, one channel per NIC of a node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<u32>,
    /// Overrides of the preset's link figures.
    #[serde(default, skip_serializing_if = "LinkOverrides::is_empty")]
    pub links: LinkOverrides,
    /// The network between nodes.
    #[serde(default, skip_serializing_if = "FabricConfig::is_default")]
    pub fabric: FabricConfig,
    /// The node when `preset` is "custom".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<CustomNode>,
    /// NICs per node the job may use (NCCL_IB_HCA lists the first `nics_used`); default: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nics_used: Option<u32>,
    /// Whether each GPU's traffic uses the NIC next to it.
    #[serde(default, skip_serializing_if = "is_default")]
    pub pinning: Pinning,
    /// A cloud VM whose NICs are virtual functions (SR-IOV).
    #[serde(default, skip_serializing_if = "is_default")]
    pub virtualized: bool,
    /// Let the tuner use in-network reduction where the hardware has it: NVLS on a gen3+
    /// NVSwitch (NCCL_NVLS_ENABLE), SHARP in InfiniBand switches (NCCL_COLLNET_ENABLE). Off by
    /// default, as both need fabric support (the fabric manager's multicast, the SHARP
    /// aggregation manager); NCCL_ALGO=NVLS or CollNet forces one either way.
    #[serde(default, skip_serializing_if = "is_default")]
    pub in_network: bool,
    /// Seed of every pseudo-random choice (ECMP hashing); the same seed gives the same trace.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub seed: u64,
}

fn is_zero_u32(value: &u32) -> bool {
    *value == 0
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// The shape of a custom node's GPU interconnect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CustomShape {
    /// GPU i linked to GPU i+1 (and the last to the first).
    Ring,
    /// Every GPU on one non-blocking switch.
    Star,
    /// A link between every pair of GPUs.
    FullMesh,
}

/// A node described by its shape instead of a preset (`"preset": "custom"`). Nodes, NICs and
/// the fabric between them come from the rest of the scenario, so "8 GPUs on a switch × M nodes
/// on a switch" is a star node with `nodes: M`. Custom nodes have no PCIe cost: each GPU's NIC
/// hangs off its own ideal PCIe switch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomNode {
    pub shape: CustomShape,
    /// GPUs per node, 2 ..= 64.
    pub gpus: u32,
    /// Each GPU-to-GPU link (ring, full mesh) or GPU-to-switch link (star), per direction.
    pub link: CustomLink,
}

/// A custom link's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomLink {
    /// [GB/s], > 0.
    pub bandwidth_gbyte_per_s: f64,
    /// [ns]; default 250.
    #[serde(default = "custom_latency")]
    pub latency_ns: u64,
    /// In (0, 1]; default 1.
    #[serde(default = "one")]
    pub efficiency: f64,
}

fn custom_latency() -> u64 {
    250
}

/// Most GPUs a custom node may have.
pub const MAX_CUSTOM_GPUS: u32 = 64;

/// GPU ↔ NIC affinity of the job's processes (what OpenMPI/PyTorch process pinning decides).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pinning {
    /// Each GPU sends through the NIC on its own PCIe switch (or, on a rail fabric, through
    /// the destination's rail NIC over NVLink: NCCL's PXN).
    #[default]
    Aligned,
    /// Each GPU is bound to a NIC on the other CPU socket, reached over PCIe, the root complex
    /// and UPI, with no NVLink shortcut.
    Misaligned,
}

/// SR-IOV: a virtual function costs some of the NIC's bandwidth and adds latency. Cloud
/// providers publish "near bare-metal" figures; the model assumes 3% and 400 ns per NIC hop.
pub const SRIOV_EFFICIENCY: f64 = 0.97;
pub const SRIOV_LATENCY_NS: u64 = 400;

/// The shape of the fabric between nodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FabricTopology {
    /// The smallest that fits: one switch, else a leaf-spine, else a 3-tier fat-tree.
    #[default]
    Auto,
    SingleSwitch,
    LeafSpine,
    FatTree,
}

/// How NICs are cabled to leaf switches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wiring {
    /// Rail-optimised: NIC i of every node goes to the leaves of rail i.
    #[default]
    Rail,
    /// Top-of-rack: all NICs of a node go to the same leaf.
    Node,
}

/// The network between nodes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FabricConfig {
    #[serde(default)]
    pub technology: Technology,
    #[serde(default)]
    pub topology: FabricTopology,
    /// Ports per switch; default: the preset's switch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radix: Option<u32>,
    /// Leaf down-link to up-link ratio: 1 is non-blocking, 2 is 2:1.
    #[serde(default = "one")]
    pub oversubscription: f64,
    #[serde(default)]
    pub wiring: Wiring,
    /// Load balancing; default: the technology's (InfiniBand static, Ethernet ECMP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routing: Option<Routing>,
    /// Efficiency of a network link shared by flows from several sources; default: the technology's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub congested_efficiency: Option<f64>,
}

fn one() -> f64 {
    1.0
}

impl Default for FabricConfig {
    fn default() -> FabricConfig {
        FabricConfig {
            technology: Technology::default(),
            topology: FabricTopology::default(),
            radix: None,
            oversubscription: 1.0,
            wiring: Wiring::default(),
            routing: None,
            congested_efficiency: None,
        }
    }
}

impl FabricConfig {
    pub fn is_default(&self) -> bool {
        *self == FabricConfig::default()
    }
}

/// Per-kind overrides of link figures; unset fields keep the preset's value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkOverrides {
    /// A GPU's NVLink bandwidth into the NVSwitch: all its links together, per direction.
    #[serde(default, skip_serializing_if = "LinkOverride::is_empty")]
    pub nvlink: LinkOverride,
    /// The PCIe link between a GPU and its NIC.
    #[serde(default, skip_serializing_if = "LinkOverride::is_empty")]
    pub pcie: LinkOverride,
    /// One NIC port and its cable to the switch.
    #[serde(default, skip_serializing_if = "LinkOverride::is_empty")]
    pub nic: LinkOverride,
}

impl LinkOverrides {
    pub fn is_empty(&self) -> bool {
        self.nvlink.is_empty() && self.pcie.is_empty() && self.nic.is_empty()
    }
}

/// One link kind's overrides.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkOverride {
    /// Line rate per direction [GB/s, 1 GB = 1e9 B].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_gbyte_per_s: Option<f64>,
    /// Fraction of the line rate data moves at, in (0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<f64>,
    /// One-way latency of one hop [ns].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ns: Option<u64>,
}

impl LinkOverride {
    pub fn is_empty(&self) -> bool {
        *self == LinkOverride::default()
    }
}

/// One problem with a scenario: which field, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioError {
    /// Dotted path of the field, e.g. "links.nic.bandwidth_gbyte_per_s"; "" for the whole document.
    pub field: String,
    pub problem: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.problem)
        } else {
            write!(f, "{}: {}", self.field, self.problem)
        }
    }
}

impl std::error::Error for ScenarioError {}

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

    /// The same scenario with another message size (sizes are checked again).
    pub fn with_size(&self, size_bytes: u64) -> Result<ValidScenario, Vec<ScenarioError>> {
        Scenario { size_bytes, ..self.scenario.clone() }.validate()
    }
}

impl Scenario {
    /// The scenario the page opens on: one DGX H100, ring AllReduce of 256 MiB.
    pub fn default_demo() -> Scenario {
        Scenario {
            preset: "dgx-h100".to_string(),
            nodes: 1,
            collective: Collective::AllReduce,
            size_bytes: 256 << 20,
            root: 0,
            algorithm: None,
            protocol: None,
            channels: None,
            links: LinkOverrides::default(),
            fabric: FabricConfig::default(),
            custom: None,
            nics_used: None,
            pinning: Pinning::Aligned,
            virtualized: false,
            in_network: false,
            seed: 0,
        }
    }

    /// Parses JSON; a syntax or type error names the field it is in.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let deserializer = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(deserializer).map_err(|error| {
            let path = error.path().to_string();
            ScenarioError {
                field: if path == "." { String::new() } else { path },
                problem: error.into_inner().to_string(),
            }
        })
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a Scenario always serialises")
    }

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
            ("custom", Some(custom)) => match custom_problem(custom) {
                Some((field, why)) => {
                    problem(field, why);
                    None
                }
                None => Some(NodeSpec::custom(custom)),
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
            (id, None) => match NodePreset::by_id(id) {
                Some(preset) => Some(NodeSpec::from(preset)),
                None => {
                    let known: Vec<&str> = NodePreset::ids().collect();
                    problem(
                        "preset",
                        format!("unknown preset '{}'; use one of: {}, custom", self.preset, known.join(", ")),
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
                Ok(p) => plan = Some(p),
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
        let nvls_capable = preset.is_some_and(|p| p.gpu_fabric.reduces_in_switch());
        match (self.algorithm, self.collective) {
            (Some(crate::collective::Algorithm::Nvls), Collective::AllReduce) if nvls_capable && self.nodes == 1 => {
                if self.protocol.is_some_and(|p| p != crate::collective::Protocol::Simple) {
                    problem("protocol", "NVLS runs with Simple only, as in NCCL".into());
                }
            }
            (Some(crate::collective::Algorithm::CollNet), Collective::AllReduce)
                if self.nodes > 1 && plan.as_ref().is_some_and(|p| crate::collective::sharp_fabric(self.fabric.technology, p.kind)) =>
            {
                if self.protocol == Some(crate::collective::Protocol::Ll128) {
                    problem("protocol", "CollNet runs with Simple or LL, not LL128, as in NCCL".into());
                }
            }
            (Some(crate::collective::Algorithm::CollNet), _) => problem(
                "algorithm",
                "CollNet reduces in InfiniBand switches (SHARP): it runs AllReduce across nodes on an InfiniBand single switch or leaf-spine".into(),
            ),
            (Some(crate::collective::Algorithm::Nvls), _) => problem(
                "algorithm",
                "NVLS reduces in the NVSwitch: it runs AllReduce on one node whose NVSwitch is third generation or later (DGX H100, HGX H800, HGX B200)".into(),
            ),
            (Some(crate::collective::Algorithm::Tree | crate::collective::Algorithm::Hierarchical), Collective::AllReduce)
            | (Some(crate::collective::Algorithm::Ring), _)
            | (None, _) => {}
            (Some(crate::collective::Algorithm::Direct), Collective::AllToAll | Collective::SendRecv) => {}
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
        } else if self.size_bytes % 4 != 0 {
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

        let channels =
            self.channels.unwrap_or(self.nics_used.or(preset.map(|p| p.nics_per_node)).unwrap_or(1).max(1));
        if let Some(preset) = preset {
            let n = self.nodes.saturating_mul(preset.gpus_per_node);
            if self.root >= n && errors.is_empty() {
                errors.push(ScenarioError {
                    field: "root".into(),
                    problem: format!("{} is out of range: ranks are 0 to {}", self.root, n - 1),
                });
            }
        }
        if let (Some(preset), true, true) = (preset, errors.is_empty(), engine_limit) {
            let n = self.nodes as u64 * preset.gpus_per_node as u64;
            let transfers =
                crate::collective::transfer_count(self.collective, n as u32, self.size_bytes / 4, channels);
            // A ring too big to simulate transfer by transfer may run as a steady state, whose
            // first prefix is within `MAX_STEADY_PREFIX` (`simulation::Steady`).
            let steady = crate::simulation::runs_steady(self, n as u32, channels, self.size_bytes / 4)
                .is_some_and(|_| {
                    crate::simulation::STEADY_SEARCH_STEPS as u64 * n * channels as u64 <= MAX_STEADY_PREFIX
                });
            if transfers > MAX_TRANSFERS && !steady {
                errors.push(ScenarioError {
                    field: "nodes".into(),
                    problem: format!(
                        "{} on {n} GPUs over {channels} channels is {transfers} transfers, more than the engine's limit of {MAX_TRANSFERS}: use fewer nodes or channels",
                        self.collective.nccl_name()
                    ),
                });
            }
        }
        if let (Some(preset), true, true) = (preset, errors.is_empty(), engine_limit) {
            let (worst_ns, slowest) = self.worst_case_ns(preset, channels);
            if !(worst_ns <= HORIZON_NS as f64) {
                errors.push(ScenarioError {
                    field: "links".into(),
                    problem: format!(
                        "at the slowest link's {slowest:.3e} GB/s this could run for longer than 2^61 ns (73 years) of simulated time, the engine's horizon: use faster links or a smaller size_bytes"
                    ),
                });
            }
        }
        match (preset, plan) {
            (Some(preset), Some(plan)) if errors.is_empty() => {
                Ok(ValidScenario { scenario: self.clone(), preset: preset.clone(), channels, plan })
            }
            _ => Err(errors),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn json_errors_name_the_field() {
        let error = Scenario::from_json(
            r#"{"preset":"dgx-h100","nodes":"two","collective":"all_reduce","size_bytes":8}"#,
        )
        .unwrap_err();
        assert_eq!(error.field, "nodes");
        let error = Scenario::from_json(
            r#"{"preset":"dgx-h100","nodes":1,"collective":"all_reduce","size_bytes":8,"links":{"nic":{"speed":1}}}"#,
        )
        .unwrap_err();
        assert_eq!(error.field, "links.nic.speed");
        assert!(error.problem.contains("unknown field `speed`"), "{error}");
        let error = Scenario::from_json("{").unwrap_err();
        assert!(error.problem.contains("EOF"), "{error}");
    }

    #[test]
    fn json_round_trip() {
        let mut scenario = Scenario::default_demo();
        scenario.links.nic.bandwidth_gbyte_per_s = Some(25.0);
        assert_eq!(Scenario::from_json(&scenario.to_json()).unwrap(), scenario);
    }
}

impl Scenario {
    /// An upper bound on the simulated time [ns], and the slowest effective link rate [GB/s]
    /// it assumes. The bound holds because at any time a moving flow crosses a saturated
    /// link, so data moves at least at the slowest link's rate: time ≤ launch + every
    /// transfer's latency (≤ 16 links of the slowest latency, plus 10 µs per step) + all wire
    /// bytes (≤ 8 × size × ranks: LL doubles the bytes, no algorithm sends more than twice its
    /// buffer per rank) / the slowest rate.
    fn worst_case_ns(&self, preset: &NodeSpec, channels: u32) -> (f64, f64) {
        let tech = self.fabric.technology.spec();
        let rate = |over: &LinkOverride, spec: &crate::catalog::LinkSpec, efficiency: f64| {
            over.bandwidth_gbyte_per_s.unwrap_or(spec.line_rate_gbyte_per_s)
                * over.efficiency.unwrap_or(efficiency)
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
            * congested;
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
        let transfers =
            crate::collective::transfer_count(self.collective, n as u32, self.size_bytes / 4, channels)
                as f64;
        let bytes = 8.0 * self.size_bytes as f64 * n;
        (20_000.0 + transfers * (16.0 * latency + 10_000.0) + bytes / slowest, slowest)
    }
}

fn custom_problem(custom: &CustomNode) -> Option<(&'static str, String)> {
    if custom.gpus < 2 || custom.gpus > MAX_CUSTOM_GPUS {
        return Some(("custom.gpus", format!("{} is out of range: use 2 to {MAX_CUSTOM_GPUS}", custom.gpus)));
    }
    let bandwidth = custom.link.bandwidth_gbyte_per_s;
    if !(bandwidth > 0.0 && bandwidth <= MAX_BANDWIDTH_GBYTE_PER_S) {
        return Some((
            "custom.link.bandwidth_gbyte_per_s",
            format!("{bandwidth} is out of range: use more than 0 and at most {MAX_BANDWIDTH_GBYTE_PER_S}"),
        ));
    }
    if !(custom.link.efficiency > 0.0 && custom.link.efficiency <= 1.0) {
        return Some((
            "custom.link.efficiency",
            format!("{} is out of range: use more than 0 and at most 1", custom.link.efficiency),
        ));
    }
    if custom.link.latency_ns > MAX_LATENCY_NS {
        return Some((
            "custom.link.latency_ns",
            format!("{} is out of range: use at most {MAX_LATENCY_NS} (10 s)", custom.link.latency_ns),
        ));
    }
    None
}
