//! The schedule data type shared by every algorithm.

use crate::scenario::{Collective, LatencyModel};
use serde::Serialize;

pub use crate::units::ELEM_BYTES;

pub use crate::scenario::Algorithm;

/// What the receiver does with a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ChunkOp {
    /// Add the chunk to the receiver's own copy, element by element.
    Reduce,
    /// Overwrite the receiver's copy with the chunk.
    Copy,
}

/// The phase a step belongs to, for the step text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Phase {
    ReduceScatter,
    AllGather,
    Broadcast,
    Reduce,
    AllToAll,
    SendRecv,
}

/// A transfer's dependencies: up to four inline (most transfers have one or two), more on the
/// heap. The same size as a `Vec` (`smallvec`'s `union` layout), without an allocation per
/// transfer: building and freeing schedules was a third of a chart point's time.
pub type Deps = smallvec::SmallVec<[u32; 4]>;

/// One chunk moving from one rank to another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Transfer {
    /// The algorithm step this transfer belongs to (0-based).
    pub step: u32,
    pub channel: u32,
    pub src: u32,
    pub dst: u32,
    /// Which of the channel's chunks this is (0-based).
    pub chunk: u32,
    /// First element the chunk lands on in the receiver's buffer.
    pub offset: u64,
    /// First element it is read from in the sender's buffer.
    pub src_offset: u64,
    /// Read from the sender's input (AllToAll), not from its working buffer.
    pub from_input: bool,
    /// Elements in the chunk (may be 0 when the message has fewer elements than chunks).
    pub len: u64,
    pub op: ChunkOp,
    /// Transfers that must finish before this one starts; always earlier indices.
    pub deps: Deps,
    /// The previous transfer on the same connection: this one's data moves only after that
    /// one's has (a connection is a FIFO), though its latency may overlap. An earlier index.
    pub after: Option<u32>,
    /// Peer to peer, or half of a trip through a switch that reduces or replicates in the
    /// network (NVLS, SHARP).
    pub hop: Hop,
}

/// Where a transfer's data goes.
///
/// In-network reduction moves data through a switch that computes: NVLink SHARP (NVLS,
/// NVSwitch gen3+) and InfiniBand SHARP reduce the chunks GPUs send up and multicast the result
/// down. A `ToSwitch` transfer carries `src`'s chunk up to the switch that serves `dst` (its
/// node's NVSwitch, or its rail's aggregation switch), where it is added into (`Reduce`) or
/// stored as (`Copy`) the switch's copy of the chunk; a `FromSwitch` transfer carries the
/// switch's copy down to `dst` (`src` names whose switch). `verify` keeps one buffer per switch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum Hop {
    #[default]
    Peer,
    ToSwitch(SwitchRef),
    FromSwitch(SwitchRef),
}

impl Hop {
    /// The fraction of a link's bandwidth a hop's data moves at: 1 peer to peer; through a
    /// reducing switch, its measured efficiency: `nvls` for the node's NVSwitch (its
    /// generation's, `catalog::nvls_efficiency`), `catalog::SHARP_EFFICIENCY` for InfiniBand's.
    pub fn efficiency(self, nvls: f64) -> f64 {
        match self {
            Hop::Peer => 1.0,
            Hop::ToSwitch(SwitchRef::NvSwitch { .. }) | Hop::FromSwitch(SwitchRef::NvSwitch { .. }) => nvls,
            Hop::ToSwitch(SwitchRef::Rail { .. }) | Hop::FromSwitch(SwitchRef::Rail { .. }) => {
                crate::catalog::SHARP_EFFICIENCY
            }
        }
    }

    /// The bytes a hop occupies its links for when it moves `bytes`: as many peer to peer,
    /// over `efficiency` through a reducing switch (`nvls`: the NVSwitch's NVLS efficiency).
    pub fn carried(self, bytes: u64, nvls: f64) -> u64 {
        match self {
            Hop::Peer => bytes,
            hop => (bytes as f64 / hop.efficiency(nvls)).ceil() as u64,
        }
    }
}

/// A switch that reduces: a node's NVSwitch, or the fabric switch at the top of a rail's
/// SHARP aggregation tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum SwitchRef {
    NvSwitch { node: u32 },
    Rail { rail: u32 },
}

impl Transfer {
    pub fn bytes(&self) -> u64 {
        self.len * ELEM_BYTES
    }

    /// A copy of `len` elements at `offset` from `src` to `dst` on `channel`, peer to peer, in
    /// step 0, waiting for nothing.
    pub fn copy(channel: u32, src: u32, dst: u32, offset: u64, len: u64) -> Transfer {
        Transfer {
            step: 0,
            channel,
            src,
            dst,
            chunk: 0,
            offset,
            src_offset: offset,
            from_input: false,
            len,
            op: ChunkOp::Copy,
            deps: Deps::new(),
            after: None,
            hop: Hop::Peer,
        }
    }
}

/// A collective compiled to transfers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Schedule {
    pub collective: Collective,
    pub algorithm: Algorithm,
    pub n_ranks: u32,
    pub n_channels: u32,
    /// Elements in each rank's buffer.
    pub count: u64,
    /// Elements past `count` a rank may use as a temporary buffer (Bruck's relayed blocks);
    /// 0 for most schedules.
    #[serde(skip_serializing_if = "is_zero")]
    pub scratch: u64,
    pub n_steps: u32,
    /// Root rank (Broadcast, Reduce).
    pub root: u32,
    /// The protocol the transfers run with (NCCL_PROTO).
    pub protocol: super::protocol::Protocol,
    /// Whether NCCL's launch and protocol latencies are charged (`LatencyModel`).
    #[serde(skip_serializing_if = "is_nccl")]
    pub latency: LatencyModel,
    /// One GPU per node: NCCL charges a network step the Tree's latency whatever the algorithm
    /// (`tuning.cc`: "with ppn=1 latencies are fully exposed").
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exposed_network: bool,
    /// Which rank owns which part of the buffer (AllGather's inputs, ReduceScatter's outputs).
    pub regions: Vec<Region>,
    /// Steps at which a phase begins that cannot overlap the one before (Hierarchical's
    /// node / rail / node phases); empty when the whole schedule pipelines.
    pub phase_starts: Vec<u32>,
    /// In an order where every dependency comes first.
    pub transfers: Vec<Transfer>,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

fn is_nccl(latency: &LatencyModel) -> bool {
    *latency == LatencyModel::Nccl
}

/// A part of the buffer and the rank it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Region {
    pub start: u64,
    pub len: u64,
    pub rank: u32,
}

impl Schedule {
    /// This schedule's settings (every field but its transfers) with `transfers`: what a
    /// schedule cut to the transfers that run is, without copying the ones it drops.
    pub fn with_transfers(&self, transfers: Vec<Transfer>) -> Schedule {
        Schedule {
            collective: self.collective,
            algorithm: self.algorithm,
            n_ranks: self.n_ranks,
            n_channels: self.n_channels,
            count: self.count,
            scratch: self.scratch,
            n_steps: self.n_steps,
            root: self.root,
            protocol: self.protocol,
            latency: self.latency,
            exposed_network: self.exposed_network,
            regions: self.regions.clone(),
            phase_starts: self.phase_starts.clone(),
            transfers,
        }
    }

    /// A schedule with no root, no owned regions and no sequential phases, under Simple (the
    /// engine's caller sets the protocol the tuner picks).
    pub fn new(
        collective: Collective,
        algorithm: Algorithm,
        n_ranks: u32,
        n_channels: u32,
        count: u64,
        n_steps: u32,
        transfers: Vec<Transfer>,
    ) -> Schedule {
        Schedule {
            collective,
            algorithm,
            n_ranks,
            n_channels,
            count,
            scratch: 0,
            n_steps,
            root: 0,
            protocol: super::protocol::Protocol::Simple,
            latency: LatencyModel::Nccl,
            exposed_network: false,
            regions: Vec::new(),
            phase_starts: Vec::new(),
            transfers,
        }
    }

    /// Whether each hop forwards its data as it arrives (`engine::stream`): a ring Broadcast's or
    /// Reduce's chain under LL or LL128, whose lines carry their own flags. Under Simple, and in
    /// every other schedule, a transfer starts once the ones it depends on have finished.
    pub fn streamed(&self) -> bool {
        matches!(self.collective, Collective::Broadcast | Collective::Reduce)
            && self.algorithm == Algorithm::Ring
            && self.protocol != super::protocol::Protocol::Simple
    }

    pub fn size_bytes(&self) -> u64 {
        self.count * ELEM_BYTES
    }

    /// The collective's launch latency before its first transfers are issued [ns]: NCCL's for
    /// the algorithm and protocol, or none with `LatencyModel::Links`.
    pub fn base_latency_ns(&self) -> u64 {
        match self.latency {
            // PAT adds NCCL's linear part, 2.8 µs per rank (`tuning.cc`).
            LatencyModel::Nccl if self.algorithm == Algorithm::Pat => {
                self.protocol.base_latency_ns(self.algorithm) + 2_800 * self.n_ranks as u64
            }
            LatencyModel::Nccl => self.protocol.base_latency_ns(self.algorithm),
            LatencyModel::Links => 0,
        }
    }

    /// A flow's latency before its data moves [ns], over a path whose links take `links_ns`
    /// and whose slowest link is of class `class`: NCCL's per-step latency plus what the links
    /// take beyond the wire it counts (`Protocol::flow_latency_ns`), or the links' alone with
    /// `LatencyModel::Links`. A network step exposed by one GPU per node is charged the Tree's
    /// figure, but PAT's and CollNet's.
    pub fn flow_latency_ns(&self, links_ns: u64, class: crate::topology::LinkKind) -> u64 {
        let exposed = self.exposed_network
            && class == crate::topology::LinkKind::Network
            && !matches!(self.algorithm, Algorithm::Pat | Algorithm::CollNet);
        let algorithm = if exposed { Algorithm::Tree } else { self.algorithm };
        match self.latency {
            LatencyModel::Nccl => self.protocol.flow_latency_ns(algorithm, class, links_ns),
            LatencyModel::Links => links_ns,
        }
    }

    pub fn phase(&self, step: u32) -> Phase {
        match self.collective {
            Collective::AllReduce if step + 1 < self.n_ranks => Phase::ReduceScatter,
            Collective::AllReduce | Collective::AllGather => Phase::AllGather,
            Collective::ReduceScatter => Phase::ReduceScatter,
            Collective::Broadcast => Phase::Broadcast,
            Collective::Reduce => Phase::Reduce,
            Collective::AllToAll => Phase::AllToAll,
            Collective::SendRecv => Phase::SendRecv,
        }
    }
}

/// Where the engine may look for a steady state in a schedule (`engine::period`): which
/// transfers repeat, one step apart, and from where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// Transfers per step: transfer `i + unit` is transfer `i` one step later.
    pub unit: u32,
    /// First index from which that holds, dependencies included (a ring's step `NCCL_STEPS`,
    /// the first whose slot dependency exists).
    pub regular_from: u32,
    /// First index whose transfer, once finished, would release a transfer beyond the schedule
    /// had the schedule gone on (a truncated ring's last `NCCL_STEPS` steps): a state is only
    /// used while none of these has finished, so the truncation has not yet been felt.
    pub frontier: u32,
    /// Stop the run at the first period found (to learn where it is, not to time the run).
    pub stop: bool,
}
