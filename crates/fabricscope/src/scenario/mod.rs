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
//! | `preset` | a node preset id: `dgx-h100`, `dgx-a100`, `hgx-b200`, `hgx-b300`, `gb200-nvl72`, `gb200-nvl36`, `hgx-h800`, `hgx-h20`, `dgx-1`, `pcie-h100`, `pcie-h100-nvlink`; `custom` (with `custom`) or `imported` (with `imported`) |
//! | `imported` | `gpu` a catalog id (`catalog::GPU_IDS`); `gpus` and NIC ports (`nic_switch`) 1 ..= 64; `nvswitch_links` or `nvlinks` (`[a, b, links]`, a < b < gpus), not both, no GPU above its model's NVLinks; `pcie_generation` 3 ..= 6; `sockets` 1 ..= 8; every index in range; `nic_gbit_per_s` > 0 |
//! | `nodes` | 1 ..= 16,384, and the fabric must hold them (see `topology::fabric`) |
//! | (engine) | a ring AllReduce has `2(n-1)·n·channels` transfers: at most 2,000,000 |
//! | `fabric.radix` | an even number, 4 ..= 1024 (default: the preset's switch) |
//! | `fabric.oversubscription` | 1 ..= 16 |
//! | `fabric.congested_efficiency` | > 0 and ≤ 1 |
//! | `nics_used` | 1 ..= the preset's NICs per node |
//! | `pinning` | `aligned`, or `misaligned` on a node with CPU sockets (not a custom node) |
//! | `custom.gpus` | 1 ..= 64 (one GPU per node is what PAT needs) |
//! | `custom.link` | as `links.*` below |
//! | `collective` | `all_reduce`, `all_gather`, `reduce_scatter`, `broadcast`, `reduce`, `all_to_all`, `send_recv` |
//! | `size_bytes` | 4 B ..= 16 GiB, a multiple of 4 (elements are 4-byte floats, as in nccl-tests) |
//! | `root` | 0 ..= ranks − 1 (Broadcast, Reduce) |
//! | `algorithm` | `Ring` (every collective), `Tree` and `Hierarchical` (AllReduce), `NVLS` (AllReduce on one node with a gen3+ NVSwitch, Simple only), `NVLSTree` (AllReduce across such nodes, Simple only), `CollNet` (AllReduce across nodes on an InfiniBand single switch or leaf-spine: SHARP; Simple or LL), `PAT` (AllGather, ReduceScatter with one GPU per node, Simple only), `P2P` (AllToAll, SendRecv); for comparison, never the tuner's pick: `HalvingDoubling` (AllReduce, AllGather, ReduceScatter on a power of two of ranks), `AllPairs` (the same; AllReduce on at most 64 ranks), `Bruck` (AllToAll); absent: the tuner's choice |
//! | `protocol` | `LL`, `LL128`, `Simple`; absent: the tuner's choice |
//! | `fabric.technology` | `infiniband`, `roce`, `tcp`, `efa` |
//! | `fabric.topology` | `auto`, `single_switch`, `leaf_spine`, `fat_tree` |
//! | `fabric.wiring`, `fabric.routing` | `rail` or `node`; `static`, `ecmp` or `adaptive` |
//! | `seed` | any u64 (ECMP hashing) |
//! | `nvls` | `true` (default, as NCCL_NVLS_ENABLE): the tuner may pick NVLS where the node's NVSwitch reduces; `false` as NCCL_NVLS_ENABLE=0 |
//! | `collnet` | `true` lets the tuner pick CollNet where the InfiniBand switches reduce (NCCL_COLLNET_ENABLE=1, which needs NCCL's SHARP plugin); default `false`. Read as `in_network` too (its name before NVLS became a default) |
//! | `channels` | 1 ..= 32 (NCCL's MAXCHANNELS is 32 on most builds) |
//! | `latency` | `nccl` (default: NCCL's launch and protocol latencies on top of the links') or `links` (the links' alone: the textbook α-β) |
//! | `faults[]` | at most 256: `{"kind": "nic", "node", "index", "rate"}` (a NIC's port), `"nvlink"` (`node`, `index`: a GPU's NVLinks), `"gpu"` (`node`, `index`: a slow GPU, all its links), `"leaf_uplink"` (`leaf`, `index`), `"spine"` (`index`; leaf-spine only); `rate` in [0, 1], 0 (down) only for a leaf up-link or a spine, and never every up-link of a leaf |
//! | `links.*.bandwidth_gbyte_per_s` | > 0 and ≤ 100,000 |
//! | `links.*.efficiency` | > 0 and ≤ 1 |
//! | `links.*.latency_ns` | ≤ 10,000,000,000 (10 s) |
//! | (engine) | simulated time ≤ 2^61 ns (73 years), bounded up front from the slowest link |
//! | (engine) | at most 2,000,000 transfers per collective, except a ring whose steps all look alike (equal chunks, routing other than adaptive): it runs as a steady state (`simulation::Steady`) from a prefix of 32 steps of at most 600,000 transfers |

pub use crate::catalog::CustomShape;
mod json_path;
mod node;
use crate::catalog::{Routing, Technology};
pub use crate::limits::{
    HORIZON_NS, MAX_CHANNELS, MAX_CUSTOM_GPUS, MAX_NODES, MAX_SIZE_BYTES, MAX_STEADY_PREFIX, MAX_TRANSFERS,
};
pub use node::{CustomLink, CustomNode, ImportedNode};
use serde::{Deserialize, Serialize};
use std::fmt;

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

/// An algorithm, as NCCL_ALGO names it (the schedules are in `collective`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Algorithm {
    /// NCCL_ALGO=Ring (Broadcast and Reduce run as a pipelined chain along the ring).
    Ring,
    /// Point-to-point sends to every peer at once (AllToAll, SendRecv): no NCCL_ALGO applies.
    #[serde(rename = "P2P")]
    Direct,
    /// NCCL_ALGO=Tree: a chain inside each node and a double binary tree across nodes.
    Tree,
    /// Reduce-scatter in the node, AllReduce per rail across nodes, all-gather in the node
    /// (not an NCCL_ALGO; for comparison).
    Hierarchical,
    /// NVLink SHARP: the NVSwitch reduces and multicasts (NCCL_ALGO=NVLS; NVSwitch gen3+).
    #[serde(rename = "NVLS")]
    Nvls,
    /// InfiniBand SHARP across nodes (NCCL's CollNet): NVLink reduce-scatter in the node, the
    /// rail's switches reduce across nodes, NVLink all-gather (NCCL_ALGO=CollNet).
    #[serde(rename = "CollNet")]
    CollNet,
    /// NVLS inside each node, a double binary tree of nodes across (NCCL_ALGO=NVLSTree;
    /// NVSwitch gen3+, more than one node).
    #[serde(rename = "NVLSTree")]
    NvlsTree,
    /// Parallel Aggregated Trees: AllGather and ReduceScatter in ⌈log2 n⌉ steps of doubling
    /// distance, for one GPU per node (NCCL_ALGO=PAT, NCCL 2.23+).
    #[serde(rename = "PAT")]
    Pat,
    /// Recursive halving and doubling (Rabenseifner): ReduceScatter by halving, AllGather by
    /// doubling, AllReduce both, in log2 n steps each; a power of two of ranks (not an
    /// NCCL_ALGO; for comparison).
    HalvingDoubling,
    /// Every rank to every other at once: ReduceScatter, AllGather, AllReduce as both (not an
    /// NCCL_ALGO; for comparison).
    AllPairs,
    /// Bruck's AllToAll: ⌈log2 n⌉ steps, each block relayed through the ranks its distance's
    /// bits name (not an NCCL_ALGO; for comparison).
    Bruck,
}

impl Algorithm {
    /// The name as NCCL_ALGO spells it.
    pub fn nccl_name(self) -> &'static str {
        match self {
            Algorithm::Ring => "Ring",
            Algorithm::Direct => "P2P",
            Algorithm::Tree => "Tree",
            Algorithm::Hierarchical => "Hierarchical",
            Algorithm::Nvls => "NVLS",
            Algorithm::CollNet => "CollNet",
            Algorithm::NvlsTree => "NVLSTree",
            Algorithm::Pat => "PAT",
            Algorithm::HalvingDoubling => "HalvingDoubling",
            Algorithm::AllPairs => "AllPairs",
            Algorithm::Bruck => "Bruck",
        }
    }

    /// Whether NCCL's tuner may pick it (NCCL_ALGO names it); the others are shown for
    /// comparison, never auto-picked.
    pub fn is_nccls(self) -> bool {
        !matches!(
            self,
            Algorithm::Hierarchical | Algorithm::HalvingDoubling | Algorithm::AllPairs | Algorithm::Bruck
        )
    }
}

/// A protocol, as NCCL_PROTO names it (what each costs is in `collective::protocol`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Protocol {
    #[serde(rename = "LL")]
    Ll,
    #[serde(rename = "LL128")]
    Ll128,
    #[default]
    Simple,
}

impl Protocol {
    pub const ALL: [Protocol; 3] = [Protocol::Ll, Protocol::Ll128, Protocol::Simple];

    /// The name as NCCL_PROTO spells it.
    pub fn nccl_name(self) -> &'static str {
        match self {
            Protocol::Ll => "LL",
            Protocol::Ll128 => "LL128",
            Protocol::Simple => "Simple",
        }
    }
}

/// What a transfer's latency is made of (`Scenario::latency`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LatencyModel {
    /// NCCL's: the collective's launch latency, then per step NCCL's protocol latency for the
    /// path's slowest link class, which counts the wire of NCCL's own hardware, plus what the
    /// path's links take beyond that wire (`collective::protocol::measured_wire_ns`).
    #[default]
    Nccl,
    /// The textbook's: per step the path's link latencies only, no launch or protocol latency,
    /// so an uncontended ring takes exactly the α-β formula's time; the tuner then weighs
    /// bandwidth alone.
    Links,
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
    pub algorithm: Option<Algorithm>,
    /// NCCL_PROTO: force a protocol; default: the tuner's choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<Protocol>,
    /// Parallel rings. `None`: NCCL's choice here, one channel per NIC of a node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<u32>,
    /// Overrides of the preset's link figures.
    #[serde(default, skip_serializing_if = "LinkOverrides::is_empty")]
    pub links: LinkOverrides,
    /// Links running below their rate, or down (`Fault`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Fault>,
    /// The network between nodes.
    #[serde(default, skip_serializing_if = "FabricConfig::is_default")]
    pub fabric: FabricConfig,
    /// The node when `preset` is "custom".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<CustomNode>,
    /// The node when `preset` is "imported": read from `nvidia-smi topo -m` or NCCL's
    /// topology XML by `crate::import`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<ImportedNode>,
    /// NICs per node the job may use (NCCL_IB_HCA lists the first `nics_used`); default: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nics_used: Option<u32>,
    /// Whether each GPU's traffic uses the NIC next to it.
    #[serde(default, skip_serializing_if = "is_default")]
    pub pinning: Pinning,
    /// A cloud VM whose NICs are virtual functions (SR-IOV).
    #[serde(default, skip_serializing_if = "is_default")]
    pub virtualized: bool,
    /// Let the tuner use NVLS where the node's NVSwitch reduces (gen3+): on by default, as
    /// NCCL_NVLS_ENABLE is on NVSwitch systems whose fabric manager runs; `false` is
    /// NCCL_NVLS_ENABLE=0. NCCL_ALGO=NVLS needs it.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub nvls: bool,
    /// Let the tuner use CollNet where the InfiniBand switches reduce (SHARP):
    /// NCCL_COLLNET_ENABLE=1, off by default as in NCCL, which needs the SHARP plugin and the
    /// aggregation manager for it. NCCL_ALGO=CollNet forces it either way. Read from
    /// `in_network` too, the field's name when it enabled both.
    #[serde(default, skip_serializing_if = "is_default", alias = "in_network")]
    pub collnet: bool,
    /// What a transfer's latency is made of: NCCL's (default) or the links' alone.
    #[serde(default, skip_serializing_if = "is_default")]
    pub latency: LatencyModel,
    /// Seed of every pseudo-random choice (ECMP hashing); the same seed gives the same trace.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub seed: u64,
}

/// A link below its rate, or down: one NIC's port, one GPU's NVLinks, one leaf's up-link to a
/// spine, or a whole spine switch (every cable to it); or a slow GPU (every link of it). Down (`rate` 0) only where the fabric
/// routes around it: a leaf up-link or a spine of a leaf-spine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    pub kind: FaultKind,
    /// The node (`nic`, `nvlink`, `gpu`).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub node: u32,
    /// The leaf (`leaf_uplink`).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub leaf: u32,
    /// The NIC, the GPU, the leaf's up-link or the spine, by index.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub index: u32,
    /// The fraction of the link's bandwidth left: 1 healthy, 0.5 half, 0 down.
    pub rate: f64,
}

/// What a `Fault` hits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    Nic,
    Nvlink,
    /// A GPU that moves data at `rate` of its peers' pace (a throttled clock, a slow copy
    /// engine): NCCL's kernels copy and reduce on the GPU, so every send and receive of it
    /// slows; modelled as all its links (NVLink and PCIe) at `rate`.
    Gpu,
    LeafUplink,
    Spine,
}

fn yes() -> bool {
    true
}

fn is_true(value: &bool) -> bool {
    *value
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

    /// The figures in force: each override, or the given default [GB/s, fraction, ns].
    pub fn resolve(&self, line_rate_gbyte_per_s: f64, efficiency: f64, latency_ns: u64) -> (f64, f64, u64) {
        (
            self.bandwidth_gbyte_per_s.unwrap_or(line_rate_gbyte_per_s),
            self.efficiency.unwrap_or(efficiency),
            self.latency_ns.unwrap_or(latency_ns),
        )
    }
}

/// Parses a JSON document into `T`; a syntax or type error names the field it is in (a dotted
/// path, "" for the whole document), and anything but whitespace after the document is an
/// error of the whole. Scenarios and training jobs both parse through it.
pub fn parse_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ScenarioError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(&mut deserializer).map_err(|error| {
        let problem = error.to_string();
        let syntax = !matches!(error.classify(), serde_json::error::Category::Data);
        ScenarioError {
            field: json_path::at(text, (error.line(), error.column()), &problem, syntax),
            problem,
        }
    })?;
    deserializer.end().map_err(|error| ScenarioError { field: String::new(), problem: error.to_string() })?;
    Ok(value)
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
            faults: Vec::new(),
            fabric: FabricConfig::default(),
            custom: None,
            imported: None,
            nics_used: None,
            pinning: Pinning::Aligned,
            virtualized: false,
            nvls: true,
            collnet: false,
            latency: LatencyModel::Nccl,
            seed: 0,
        }
    }

    /// Parses JSON; a syntax or type error names the field it is in.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        parse_json(text)
    }

    /// Elements the message holds (4-byte floats, `units::ELEM_BYTES`).
    pub fn count(&self) -> u64 {
        self.size_bytes / crate::units::ELEM_BYTES
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a Scenario always serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // An unknown key is named as it reads, its escapes decoded.
        let error = Scenario::from_json(
            r#"{"preset":"dgx-h100","nodes":1,"collective":"all_reduce","links":{"nic":{"\u0073pe\"ed":1}}}"#,
        )
        .unwrap_err();
        assert_eq!(error.field, "links.nic.spe\"ed", "{error}");
        // A scenario pasted twice, or with a word after it, is not read as its first part.
        let one = Scenario::default_demo().to_json();
        for text in [format!("{one} x"), format!("{one}{one}"), format!("{one},")] {
            let error = Scenario::from_json(&text).unwrap_err();
            assert_eq!(error.field, "", "{error}");
            assert!(error.problem.starts_with("trailing characters at line"), "{error}");
        }
        assert_eq!(Scenario::from_json(&format!("  {one}\n\n")).unwrap(), Scenario::default_demo());
    }

    #[test]
    fn json_round_trip() {
        let mut scenario = Scenario::default_demo();
        scenario.links.nic.bandwidth_gbyte_per_s = Some(25.0);
        assert_eq!(Scenario::from_json(&scenario.to_json()).unwrap(), scenario);
    }
}
