//! NCCL's protocols, Simple, LL and LL128: what each costs per step and per byte.
//!
//! Figures from NVIDIA/nccl v2.30.7, `src/graph/tuning.cc` (pinned; they change between
//! versions): a base latency per collective launch and a hardware latency per step, by
//! algorithm, protocol and the class of link the step crosses (µs):
//!
//! | | base | NVLink | PCIe | network |
//! | --- | --- | --- | --- | --- |
//! | Ring LL / LL128 / Simple | 6.6 / 14.0 / 8.4 | 0.6 / 1.9 / 3.4 | 1.0 / 2.5 / 5.7 | 2.7 / 4.0 / 14.0 |
//! | Tree LL / LL128 / Simple | 6.8 / 14.0 / 8.4 | 0.6 / 1.25 / 4.0 | 1.0 / 1.9 / 4.0 | 5.0 / 8.5 / 14.0 |
//! | NVLS Simple | 0 | 25 | – | 18 |
//! | NVLSTree Simple | 0 | 25 | – | 20.9 |
//! | PAT Simple | 8.0 (+ 2.8 per rank) | 4.0 | 4.0 | 14 / 3.5 per step |
//!
//! (NVLS, NVLSTree and PAT from the NCCL tree at 5067397c, whose table adds PAT; the rest are
//! unchanged since v2.30.7.) The algorithms NCCL does not have (Hierarchical, halving-doubling,
//! all-pairs, Bruck) are charged the Ring's figures.
//!
//! NCCL fitted those per-step figures to whole steps measured on its own hardware, so they
//! already count the wire: the hops a step crosses on a DGX H100 with InfiniBand. A flow is
//! charged the figure plus only what its links take beyond that wire (`measured_wire_ns`,
//! `Protocol::flow_latency_ns`): an NVLink step on a DGX H100 costs 0.6 µs under LL, as in
//! NCCL's table, where adding the links' 0.5 µs to it made 1.1; a TCP NIC's 15 µs, a slowed
//! link or a third switch tier still add what they add.
//!
//! Bandwidth: LL sends each 8 bytes of data with an 8-byte flag (16 on the wire), LL128 120
//! data bytes in every 128-byte line; Simple sends data only. The engine moves those wire
//! bytes; NCCL's tuner uses 0.5, 0.92 (120/128 after NCCL's rounding) and 1.

use super::schedule::Algorithm;
use crate::topology::LinkKind;

pub use crate::scenario::Protocol;

/// What each protocol costs: wire bytes, NCCL's tuner efficiency and latencies.
impl Protocol {
    /// Wire bytes for `data` bytes: LL 16 per 8, LL128 128 per 120, Simple 1 per 1.
    pub fn wire_bytes(self, data: u64) -> u64 {
        match self {
            Protocol::Ll => data * 2,
            Protocol::Ll128 => (data * 128).div_ceil(120),
            Protocol::Simple => data,
        }
    }

    /// The bandwidth fraction NCCL's tuner applies.
    pub fn tuner_efficiency(self) -> f64 {
        match self {
            Protocol::Ll => 0.5,
            Protocol::Ll128 => 0.92,
            Protocol::Simple => 1.0,
        }
    }

    /// Latency of launching the collective [ns].
    pub fn base_latency_ns(self, algorithm: Algorithm) -> u64 {
        match (algorithm, self) {
            // NVLS's and NVLSTree's whole latency is their hardware term (below).
            (Algorithm::Nvls | Algorithm::NvlsTree, _) => 0,
            // PAT's fixed part; its linear part, 2.8 µs per rank, is `Schedule::base_latency_ns`'s.
            (Algorithm::Pat, _) => 8_000,
            // CollNet: NCCL gives no separate launch figure in v2.30's table; the Tree's is used.
            (Algorithm::CollNet, p) => p.base_latency_ns(Algorithm::Tree),
            (Algorithm::Tree, Protocol::Ll) => 6_800,
            (_, Protocol::Ll) => 6_600,
            (_, Protocol::Ll128) => 14_000,
            (_, Protocol::Simple) => 8_400,
        }
    }

    /// A flow's latency before its data moves under NCCL's model [ns]: the step's hardware
    /// latency for the path's slowest class `class`, plus what the path's links, `links_ns`
    /// in all, take beyond the wire that figure already counts (`measured_wire_ns`).
    pub fn flow_latency_ns(self, algorithm: Algorithm, class: LinkKind, links_ns: u64) -> u64 {
        self.step_latency_ns(algorithm, class) + beyond_measured_wire_ns(class, links_ns)
    }

    /// Hardware latency of one step over a path whose slowest link is of class `class` [ns].
    pub fn step_latency_ns(self, algorithm: Algorithm, class: LinkKind) -> u64 {
        if algorithm == Algorithm::Nvls || (algorithm == Algorithm::NvlsTree && class != LinkKind::Network) {
            // NCCL's NVLS latency on NVLink, 25 µs (Simple only), over the four hops of a
            // chunk: up and down to reduce, up and down to multicast.
            return 25_000 / 4;
        }
        if algorithm == Algorithm::NvlsTree {
            // NCCL's NVLSTree network latency per tree level.
            return 20_900;
        }
        if algorithm == Algorithm::Pat {
            // NCCL: 4 µs inside a node, and across the network the Tree's 14 µs over 3.5 per
            // step: 4 µs too.
            return 4_000;
        }
        if algorithm == Algorithm::CollNet {
            // NCCL's CollNet hardware latencies (tuning.cc, LL / LL128 / Simple): NVLink 0.5 /
            // 1.2 / 4.0, PCIe 1.0 / 1.9 / 5.5, network 5.0 / 5.0 / 10.7 µs for the trip up to
            // the aggregation switch and back, here half on each hop.
            return match (class, self) {
                (LinkKind::NvLink, Protocol::Ll) => 500,
                (LinkKind::NvLink, Protocol::Ll128) => 1_200,
                (LinkKind::NvLink, Protocol::Simple) => 4_000,
                (LinkKind::Pcie | LinkKind::Socket, Protocol::Ll) => 1_000,
                (LinkKind::Pcie | LinkKind::Socket, Protocol::Ll128) => 1_900,
                (LinkKind::Pcie | LinkKind::Socket, Protocol::Simple) => 5_500,
                (LinkKind::Network, Protocol::Ll | Protocol::Ll128) => 2_500,
                (LinkKind::Network, Protocol::Simple) => 5_350,
            };
        }
        let tree = algorithm == Algorithm::Tree;
        match (class, self) {
            (LinkKind::NvLink, Protocol::Ll) => 600,
            (LinkKind::NvLink, Protocol::Ll128) => {
                if tree {
                    1_250
                } else {
                    1_900
                }
            }
            (LinkKind::NvLink, Protocol::Simple) => {
                if tree {
                    4_000
                } else {
                    3_400
                }
            }
            (LinkKind::Pcie | LinkKind::Socket, Protocol::Ll) => 1_000,
            (LinkKind::Pcie | LinkKind::Socket, Protocol::Ll128) => {
                if tree {
                    1_900
                } else {
                    2_500
                }
            }
            (LinkKind::Pcie | LinkKind::Socket, Protocol::Simple) => {
                if tree {
                    4_000
                } else {
                    5_700
                }
            }
            (LinkKind::Network, Protocol::Ll) => {
                if tree {
                    5_000
                } else {
                    2_700
                }
            }
            (LinkKind::Network, Protocol::Ll128) => {
                if tree {
                    8_500
                } else {
                    4_000
                }
            }
            (LinkKind::Network, Protocol::Simple) => 14_000,
        }
    }
}

/// The wire inside NCCL's per-step latencies [ns]: the links' latencies, in this catalog, of
/// the paths NCCL's figures were fitted on, a DGX H100's with InfiniBand. Through NVLink, GPU →
/// NVSwitch → GPU, two NVLink 4 hops of 250 ns; through PCIe, GPU → switch → GPU, two hops of
/// 300 ns; through the network, GPU → PCIe switch → NIC → leaf → NIC → PCIe switch → GPU: four
/// PCIe hops of 300 ns, the two NIC links' 300 ns and one leaf's 150 ns. `tests/latency.rs`
/// holds those paths to these sums.
pub fn measured_wire_ns(class: LinkKind) -> u64 {
    match class {
        LinkKind::NvLink => 500,
        LinkKind::Pcie | LinkKind::Socket => 600,
        LinkKind::Network => 1_950,
    }
}

/// What a path's links, `links_ns` in all, take beyond the wire NCCL's per-step latency for
/// its class already counts [ns] (`measured_wire_ns`).
fn beyond_measured_wire_ns(class: LinkKind, links_ns: u64) -> u64 {
    links_ns.saturating_sub(measured_wire_ns(class))
}
