//! Hardware catalog: GPUs, links, NICs and switches, each figure with its source.
//!
//! Line rate and efficiency are kept apart everywhere: the line rate is what the part is sold
//! as, the efficiency is the fraction an application sees (NCCL's own effective figures, or
//! nccl-tests measurements). The engine moves data at `line_rate × efficiency`; the page shows
//! both. Sources are in `shared/reference/interconnects.md` and in a comment beside each value.

mod fabric;
mod gpu;
mod in_network;
mod link;
mod node;

pub use fabric::{Routing, Technology, TechnologySpec, TECHNOLOGIES};
pub use gpu::H100;
pub use gpu::{gpu_by_id, Gpu, GPUS, GPU_IDS};
pub use in_network::{
    nvls_efficiency, NVLS_EFFICIENCY, NVLS_EFFICIENCY_NVLINK5, SHARP_EFFICIENCY, SRIOV_EFFICIENCY,
    SRIOV_LATENCY_NS,
};
pub use link::{
    nvlink_of_generation, pcie_of_generation, LinkSpec, NICS, NIC_NDR_400, ROOT_COMPLEX_LATENCY_NS,
    SOCKET_LINK,
};
pub use node::{
    nvlink_rings, CustomShape, GpuFabric, NodeFabric, NodePreset, NodeSpec, Placement, Trays, NODE_PRESETS,
};
