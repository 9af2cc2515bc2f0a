//! Fabric technologies: what InfiniBand, RoCEv2 and plain TCP Ethernet each cost a message.
//!
//! The three differ in named, documented parameters, so the page can show *why* one is faster:
//!
//! | parameter | InfiniBand | RoCEv2 | TCP (NCCL sockets) |
//! | --- | --- | --- | --- |
//! | NIC efficiency (data / line rate) | 0.96 | 0.947 | 0.70 |
//! | NIC latency per side [ns] | 300 | 1,000 | 15,000 |
//! | switch hop [ns] | 150 | 600 | 600 |
//! | load balancing | subnet manager, static D-mod-K | ECMP hash per connection | ECMP hash per connection |
//! | flow control | credit-based, lossless | PFC + ECN (DCQCN), lossless if tuned | TCP congestion control, lossy |
//! | congested-link efficiency | 1.00 | 0.90 | 0.75 |
//!
//! AWS EFA (a fourth column): 0.90, 5,000 ns, 600 ns, SRD sprays each flow's packets over every
//! path (modelled as adaptive routing), 0.95 congested.
//!
//! Sources and reasoning, per figure:
//! - InfiniBand efficiency: one NDR NIC measures 46-49 of 50 GB/s (nccl-tests#267, #290); one HDR
//!   ~24 of 25 (nccl#412). Latency: "usually below 1 µs" end to end (seeds 000); switch hop
//!   ~100-200 ns (shared/reference/interconnects.md).
//! - RoCEv2 efficiency: InfiniBand's 0.96 scaled by the header overhead per 4,096-byte MTU,
//!   26 B for IB (LRH, BTH, ICRC, VCRC) against 82 B for RoCEv2 (Ethernet, IPv4, UDP, BTH, ICRC,
//!   FCS, preamble and inter-frame gap): 0.96 × (4096/4178) / (4096/4122) = 0.947. Latency: "a few
//!   µs" and dependent on lossless configuration (shared/reference); Ethernet switch hops of a
//!   few hundred ns are typical of data-centre ASICs (assumed 600 ns).
//! - TCP: the kernel stack costs "tens of µs to ms" per message (shared/reference; seeds 003 say
//!   "ms-level") and the CPU copies every byte; 0.70 and 15 µs are assumptions, editable in the
//!   scenario.
//! - EFA: the seeds (003) say cloud RDMA such as AWS EFA performs "close to InfiniBand" but with
//!   less stable latency at thousands of GPUs; its SRD transport sprays packets over many paths
//!   and retransmits in hardware. 0.90, 5 µs and 0.95 are assumptions, editable in the scenario.
//! - Congested-link efficiency: when flows from several sources share one link, a lossless
//!   credit scheme (IB) keeps the link full; DCQCN's rate cuts and PFC pauses leave headroom
//!   (assumed 0.90); TCP's loss-driven control more (assumed 0.75). These are the model's named
//!   assumptions, not measurements: set them to 1 to see the pure-bandwidth answer.

use serde::{Deserialize, Serialize};

/// The fabric's technology.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Technology {
    #[default]
    Infiniband,
    Roce,
    Tcp,
    /// AWS Elastic Fabric Adapter (SRD over Ethernet).
    Efa,
}

/// The figures a technology sets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TechnologySpec {
    pub technology: Technology,
    pub name: &'static str,
    /// Fraction of the NIC's line rate that data moves at.
    pub nic_efficiency: f64,
    /// Latency added on each NIC ↔ switch hop [ns] (HCA processing or the kernel stack).
    pub nic_latency_ns: u64,
    /// Port-to-port latency of one switch [ns].
    pub switch_hop_latency_ns: u64,
    /// Efficiency of a link that carries flows from more than one source at once.
    pub congested_efficiency: f64,
    /// The load balancing a fabric of this kind uses unless the scenario says otherwise.
    pub default_routing: Routing,
    pub flow_control: &'static str,
}

/// How the fabric spreads flows over equal-cost uplinks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Routing {
    /// InfiniBand subnet manager: destination-based static routes ("D-mod-K" on fat-trees).
    Static,
    /// Ethernet ECMP: a hash of the flow picks the uplink (seeded, so reproducible).
    Ecmp,
    /// Adaptive routing: the least loaded uplink when the flow starts.
    Adaptive,
}

impl Routing {
    pub fn name(self) -> &'static str {
        match self {
            Routing::Static => "static (D-mod-K)",
            Routing::Ecmp => "ECMP hash",
            Routing::Adaptive => "adaptive",
        }
    }
}

pub const TECHNOLOGIES: [TechnologySpec; 4] = [
    TechnologySpec {
        technology: Technology::Infiniband,
        name: "InfiniBand",
        nic_efficiency: 0.96,
        nic_latency_ns: 300,
        switch_hop_latency_ns: 150,
        congested_efficiency: 1.0,
        default_routing: Routing::Static,
        flow_control: "credit-based, lossless",
    },
    TechnologySpec {
        technology: Technology::Roce,
        name: "RoCEv2",
        nic_efficiency: 0.947,
        nic_latency_ns: 1_000,
        switch_hop_latency_ns: 600,
        congested_efficiency: 0.90,
        default_routing: Routing::Ecmp,
        flow_control: "PFC + ECN (DCQCN)",
    },
    TechnologySpec {
        technology: Technology::Tcp,
        name: "TCP/IP Ethernet",
        nic_efficiency: 0.70,
        nic_latency_ns: 15_000,
        switch_hop_latency_ns: 600,
        congested_efficiency: 0.75,
        default_routing: Routing::Ecmp,
        flow_control: "TCP congestion control (lossy)",
    },
    TechnologySpec {
        technology: Technology::Efa,
        name: "AWS EFA",
        nic_efficiency: 0.90,
        nic_latency_ns: 5_000,
        switch_hop_latency_ns: 600,
        congested_efficiency: 0.95,
        default_routing: Routing::Adaptive,
        flow_control: "SRD: multipath spraying, hardware retransmission",
    },
];

impl Technology {
    pub fn spec(self) -> &'static TechnologySpec {
        match self {
            Technology::Infiniband => &TECHNOLOGIES[0],
            Technology::Roce => &TECHNOLOGIES[1],
            Technology::Tcp => &TECHNOLOGIES[2],
            Technology::Efa => &TECHNOLOGIES[3],
        }
    }
}
