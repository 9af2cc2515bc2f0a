//! Node presets: real 8-GPU servers with their NVSwitch, PCIe and NIC figures.

use super::gpu::{Gpu, GPUS};
use super::link::{LinkSpec, NIC_HDR_200, NIC_NDR_400, NVLINK3, NVLINK4, PCIE4_X16, PCIE5_X16};

/// A node preset: GPUs on an NVSwitch, one NIC per GPU on PCIe, and the fabric switch they use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodePreset {
    /// The id scenarios use ("dgx-h100").
    pub id: &'static str,
    pub name: &'static str,
    pub gpu: Gpu,
    pub gpus_per_node: u32,
    /// One NVLink of the GPU's generation; a GPU has `gpu.nvlink_links` of them into the NVSwitch.
    pub nvlink: LinkSpec,
    /// NVSwitch generation (1 = DGX-2, 2 = DGX A100, 3 = DGX H100, which adds NVLS reduction).
    pub nvswitch_generation: u8,
    pub pcie: LinkSpec,
    pub nics_per_node: u32,
    pub nic: LinkSpec,
    /// The InfiniBand switch the NICs plug into.
    pub switch_name: &'static str,
    /// Ports on that switch.
    pub switch_radix: u32,
    /// Port-to-port latency of one switch hop [ns].
    pub switch_hop_latency_ns: u64,
}

/// Every node preset, in the order the page lists them.
pub const NODE_PRESETS: &[NodePreset] = &[
    // DGX H100 user guide: 8× H100 SXM5, 4 third-generation NVSwitch chips (modelled as one
    // non-blocking switch), 8× ConnectX-7 single-port NDR 400 Gb/s for the compute fabric,
    // each paired with one GPU behind a PCIe 5.0 switch.
    // Switch: NVIDIA Quantum-2 QM9700, 64 ports of NDR 400 Gb/s (datasheet); hop latency
    // ~100-200 ns (shared/reference), 150 ns assumed.
    NodePreset {
        id: "dgx-h100",
        name: "DGX H100",
        gpu: GPUS[1],
        gpus_per_node: 8,
        nvlink: NVLINK4,
        nvswitch_generation: 3,
        pcie: PCIE5_X16,
        nics_per_node: 8,
        nic: NIC_NDR_400,
        switch_name: "Quantum-2 QM9700 (NDR)",
        switch_radix: 64,
        switch_hop_latency_ns: 150,
    },
    // DGX A100 user guide: 8× A100 SXM4, 6 second-generation NVSwitch chips (one switch here),
    // 8× ConnectX-6 HDR 200 Gb/s compute NICs on PCIe 4.0 (seeds 003: 8 ports, 200 GB/s).
    // Switch: NVIDIA Quantum QM8700, 40 ports of HDR 200 Gb/s (datasheet), 150 ns assumed.
    NodePreset {
        id: "dgx-a100",
        name: "DGX A100",
        gpu: GPUS[0],
        gpus_per_node: 8,
        nvlink: NVLINK3,
        nvswitch_generation: 2,
        pcie: PCIE4_X16,
        nics_per_node: 8,
        nic: NIC_HDR_200,
        switch_name: "Quantum QM8700 (HDR)",
        switch_radix: 40,
        switch_hop_latency_ns: 150,
    },
];

impl NodePreset {
    pub fn by_id(id: &str) -> Option<&'static NodePreset> {
        NODE_PRESETS.iter().find(|preset| preset.id == id)
    }

    pub fn ids() -> impl Iterator<Item = &'static str> {
        NODE_PRESETS.iter().map(|preset| preset.id)
    }
}
