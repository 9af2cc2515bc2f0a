//! Link technologies: line rate, the efficiency an application sees, and latency.

use crate::units::Bandwidth;

/// One link technology, per direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkSpec {
    pub name: &'static str,
    /// Line rate per link (lane bundle) and direction [GB/s].
    pub line_rate_gbyte_per_s: f64,
    /// Fraction of the line rate that data actually moves at.
    pub efficiency: f64,
    /// One-way latency of one hop over this link [ns].
    pub latency_ns: u64,
}

impl LinkSpec {
    pub fn line_rate(&self) -> Bandwidth {
        Bandwidth::from_gbyte_per_s(self.line_rate_gbyte_per_s)
    }
}

/// NVLink 3 (A100): 25 GB/s per link and direction; 12 links per GPU = 300 GB/s per direction,
/// 600 GB/s bidirectional (NVIDIA A100 datasheet; seeds 003).
/// Efficiency 20.0 / 25 = 0.80: NCCL models an SM80 NVLink at 20.0 GB/s
/// (NVIDIA/nccl v2.30.7 `src/graph/topo.h`, `SM80_NVLINK_BW`).
/// Latency: one GPU↔NVSwitch hop, "well under 1 µs" (shared/reference); we assume 250 ns.
pub const NVLINK3: LinkSpec =
    LinkSpec { name: "NVLink 3", line_rate_gbyte_per_s: 25.0, efficiency: 0.80, latency_ns: 250 };

/// NVLink 4 (H100): 25 GB/s per link and direction; 18 links per GPU = 450 GB/s per direction,
/// 900 GB/s bidirectional (NVIDIA H100 datasheet; seeds 003).
/// Efficiency 20.6 / 25 = 0.824: NCCL models an SM90 NVLink at 20.6 GB/s (`topo.h`, v2.30.7),
/// which gives 18 × 20.6 = 370.8 GB/s, the ~370 GB/s AllReduce busbw nccl-tests#212 measured.
pub const NVLINK4: LinkSpec =
    LinkSpec { name: "NVLink 4", line_rate_gbyte_per_s: 25.0, efficiency: 0.824, latency_ns: 250 };

/// PCIe 4.0 x16: ~32 GB/s per direction (seeds 003). Efficiency 0.80: app-level bandwidth is
/// roughly 80% of peak (an NCCL maintainer, nccl#1054). Latency: an assumed 300 ns through the
/// PCIe switch between GPU and NIC.
pub const PCIE4_X16: LinkSpec =
    LinkSpec { name: "PCIe 4.0 x16", line_rate_gbyte_per_s: 32.0, efficiency: 0.80, latency_ns: 300 };

/// PCIe 5.0 x16: ~64 GB/s per direction (PCI-SIG). Efficiency and latency as PCIe 4.0.
pub const PCIE5_X16: LinkSpec =
    LinkSpec { name: "PCIe 5.0 x16", line_rate_gbyte_per_s: 64.0, efficiency: 0.80, latency_ns: 300 };

/// InfiniBand HDR: 200 Gb/s = 25 GB/s per port and direction (IBTA; seeds 003).
/// Efficiency 0.96: one HDR NIC measures ~24 GB/s in nccl-tests (nccl#412), and NCCL models a
/// 100 Gb/s port at 12.0 of 12.5 GB/s (`topo.h`).
/// Latency per cable hop 300 ns (HCA processing and cable; IB end-to-end is "usually below
/// 1 µs", seeds 000); the switch adds its own hop latency.
pub const NIC_HDR_200: LinkSpec =
    LinkSpec { name: "InfiniBand HDR 200 Gb/s", line_rate_gbyte_per_s: 25.0, efficiency: 0.96, latency_ns: 300 };

/// InfiniBand NDR: 400 Gb/s = 50 GB/s per port and direction (IBTA; seeds 000, 003).
/// Efficiency 0.96: one NDR NIC measures 46-49 GB/s (nccl-tests#267, #290). Latency as HDR.
pub const NIC_NDR_400: LinkSpec =
    LinkSpec { name: "InfiniBand NDR 400 Gb/s", line_rate_gbyte_per_s: 50.0, efficiency: 0.96, latency_ns: 300 };
