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

// NVLink: 25 GB/s per link and direction for generations 2-4, 50 for 5 (NVIDIA V100, A100, H100
// and Blackwell datasheets; shared/reference/interconnects.md). Efficiency: NCCL's own per-link
// figure over the line rate (NVIDIA/nccl v2.30.7 `src/graph/topo.h`: SM70 and SM80 20.0 GB/s,
// SM90 20.6, SM100 40.1), which gives 12 × 20.0 = 240 GB/s (nccl-tests#149 measured ~230) on
// A100 and 18 × 20.6 = 370.8 GB/s (nccl-tests#212 measured ~370) on H100. Latency: one hop
// "well under 1 µs" (shared/reference); 250 ns assumed.

/// NVLink 2 (V100).
pub const NVLINK2: LinkSpec =
    LinkSpec { name: "NVLink 2", line_rate_gbyte_per_s: 25.0, efficiency: 0.80, latency_ns: 250 };
/// NVLink 3 (A100).
pub const NVLINK3: LinkSpec =
    LinkSpec { name: "NVLink 3", line_rate_gbyte_per_s: 25.0, efficiency: 0.80, latency_ns: 250 };
/// NVLink 4 (H100, H200).
pub const NVLINK4: LinkSpec =
    LinkSpec { name: "NVLink 4", line_rate_gbyte_per_s: 25.0, efficiency: 0.824, latency_ns: 250 };
/// NVLink 5 (B200): 50 GB/s per link, NCCL's 40.1 → 0.802.
pub const NVLINK5: LinkSpec =
    LinkSpec { name: "NVLink 5", line_rate_gbyte_per_s: 50.0, efficiency: 0.802, latency_ns: 250 };

// PCIe x16, per direction: gen3 ~16 GB/s, gen4 ~32 GB/s (seeds 003), gen5 ~64 GB/s (PCI-SIG).
// Efficiency: NCCL models gen3 x16 at 12 GB/s (`topo.h` PCI_BW), 0.75; app-level bandwidth is
// "roughly 80% of peak" (nccl#1054) for the newer ones. Latency: 300 ns per hop through a
// PCIe switch, assumed; the CPU's root complex is slower (see `CPU_PCIE_*`).

pub const PCIE3_X16: LinkSpec =
    LinkSpec { name: "PCIe 3.0 x16", line_rate_gbyte_per_s: 16.0, efficiency: 0.75, latency_ns: 300 };
pub const PCIE4_X16: LinkSpec =
    LinkSpec { name: "PCIe 4.0 x16", line_rate_gbyte_per_s: 32.0, efficiency: 0.80, latency_ns: 300 };
pub const PCIE5_X16: LinkSpec =
    LinkSpec { name: "PCIe 5.0 x16", line_rate_gbyte_per_s: 64.0, efficiency: 0.80, latency_ns: 300 };
/// PCIe 6.0 x16 (PCI-SIG: 64 GT/s, ~128 GB/s per direction): Blackwell Ultra's host link and
/// ConnectX-8's built-in switch. Efficiency as gen5's, assumed.
pub const PCIE6_X16: LinkSpec =
    LinkSpec { name: "PCIe 6.0 x16", line_rate_gbyte_per_s: 128.0, efficiency: 0.80, latency_ns: 300 };

/// Extra latency of a hop through the CPU's root complex [ns] (PCIe peer-to-peer across root
/// ports; assumed, typically slower than through a PCIe switch).
pub const ROOT_COMPLEX_LATENCY_NS: u64 = 700;

/// CPU socket interconnect (UPI-class): Intel Xeon Scalable datasheets give 3 UPI links at
/// 10.4 GT/s, ~20.8 GB/s each per direction: 62.4 GB/s. Efficiency 0.8 and 500 ns assumed.
pub const SOCKET_LINK: LinkSpec =
    LinkSpec { name: "UPI (3 links)", line_rate_gbyte_per_s: 62.4, efficiency: 0.80, latency_ns: 500 };

// NICs and their ports, per direction. InfiniBand rates per IBTA: EDR 100, HDR 200, NDR 400,
// XDR 800 Gb/s; Ethernet 100/200/400 GbE (seeds 000, 003). The efficiency and latency a NIC
// runs at come from the fabric technology (`catalog::fabric`), not from the part.

pub const NIC_EDR_100: LinkSpec = LinkSpec {
    name: "InfiniBand EDR 100 Gb/s",
    line_rate_gbyte_per_s: 12.5,
    efficiency: 0.96,
    latency_ns: 300,
};
pub const NIC_HDR_200: LinkSpec = LinkSpec {
    name: "InfiniBand HDR 200 Gb/s",
    line_rate_gbyte_per_s: 25.0,
    efficiency: 0.96,
    latency_ns: 300,
};
pub const NIC_NDR_400: LinkSpec = LinkSpec {
    name: "InfiniBand NDR 400 Gb/s",
    line_rate_gbyte_per_s: 50.0,
    efficiency: 0.96,
    latency_ns: 300,
};
pub const NIC_XDR_800: LinkSpec = LinkSpec {
    name: "InfiniBand XDR 800 Gb/s",
    line_rate_gbyte_per_s: 100.0,
    efficiency: 0.96,
    latency_ns: 300,
};
pub const ETH_100: LinkSpec =
    LinkSpec { name: "100 GbE", line_rate_gbyte_per_s: 12.5, efficiency: 0.947, latency_ns: 1000 };
pub const ETH_200: LinkSpec =
    LinkSpec { name: "200 GbE", line_rate_gbyte_per_s: 25.0, efficiency: 0.947, latency_ns: 1000 };
pub const ETH_400: LinkSpec =
    LinkSpec { name: "400 GbE", line_rate_gbyte_per_s: 50.0, efficiency: 0.947, latency_ns: 1000 };
/// AWS EFA on p5 instances: 3,200 Gb/s over 32 ports, 100 Gb/s each (AWS p5 documentation).
pub const EFA_100: LinkSpec = LinkSpec {
    name: "AWS EFA 100 Gb/s port",
    line_rate_gbyte_per_s: 12.5,
    efficiency: 0.90,
    latency_ns: 1500,
};

/// Every NIC port the catalog knows, for the page's picker and the CLI.
pub const NICS: &[LinkSpec] =
    &[NIC_EDR_100, NIC_HDR_200, NIC_NDR_400, NIC_XDR_800, ETH_100, ETH_200, ETH_400, EFA_100];

/// One NVLink of a generation (2 ..= 5).
pub fn nvlink_of_generation(generation: u8) -> Option<LinkSpec> {
    Some(match generation {
        2 => NVLINK2,
        3 => NVLINK3,
        4 => NVLINK4,
        5 => NVLINK5,
        _ => return None,
    })
}

/// A PCIe x16 link of a generation (3 ..= 6).
pub fn pcie_of_generation(generation: u32) -> Option<LinkSpec> {
    Some(match generation {
        3 => PCIE3_X16,
        4 => PCIE4_X16,
        5 => PCIE5_X16,
        6 => PCIE6_X16,
        _ => return None,
    })
}
