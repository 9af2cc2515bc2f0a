//! Nodes described in the scenario rather than picked from the catalog: a custom shape, or a
//! node imported from `nvidia-smi topo -m` or NCCL's topology XML (`crate::import`).

use super::CustomShape;
use serde::{Deserialize, Serialize};

/// A node described by its shape instead of a preset (`"preset": "custom"`). Nodes, NICs and
/// the fabric between them come from the rest of the scenario, so "8 GPUs on a switch × M nodes
/// on a switch" is a star node with `nodes: M`. Custom nodes have no PCIe cost: each GPU's NIC
/// hangs off its own ideal PCIe switch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomNode {
    pub shape: CustomShape,
    /// GPUs per node, 1 ..= 64.
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

fn one() -> f64 {
    1.0
}

/// A node read from a file (`"preset": "imported"`): what `nvidia-smi topo -m` or NCCL's
/// topology dump (`NCCL_TOPO_DUMP_FILE`) says of one server, turned into the model's parts by
/// `crate::import`. Every node of the cluster is this one. Checked by validation like any other
/// field (indices in range, NVLink counts within the GPU's, PCIe generation 3 to 6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportedNode {
    /// What it was read from, for labels: "nvidia-smi topo -m" or "NCCL topology XML".
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source: String,
    /// The GPU model, by catalog id (`catalog::gpu_by_id`: "h100", "a100", …).
    pub gpu: String,
    /// GPUs in the node, 1 ..= 64.
    pub gpus: u32,
    /// NVLinks from each GPU into the node's NVSwitch; 0: no NVSwitch.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub nvswitch_links: u32,
    /// Direct NVLinks: `[gpu a, gpu b, links]`, a < b.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nvlinks: Vec<[u32; 3]>,
    /// PCIe generation of every host link (x16), 3 ..= 6.
    pub pcie_generation: u32,
    /// CPU sockets (NUMA nodes), 1 ..= 8, joined one to the next by a socket link.
    pub sockets: u32,
    /// The socket of each PCIe switch (a device alone on a root port counts as a switch of
    /// its own).
    pub pcie_switches: Vec<u32>,
    /// The PCIe switch of each GPU.
    pub gpu_switch: Vec<u32>,
    /// The PCIe switch of each NIC port, 1 ..= 64 of them.
    pub nic_switch: Vec<u32>,
    /// Each NIC port's line rate [Gb/s] (NDR: 400).
    pub nic_gbit_per_s: f64,
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}
