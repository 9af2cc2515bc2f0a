//! Topology: GPUs, NVSwitches, NICs and fabric switches as a `petgraph` directed graph.
//!
//! Every physical link is two directed edges added together, so a link's id and its reverse
//! differ only in the lowest bit (`LinkId::reverse`). Vertex and link ids are indices in
//! insertion order, which the builders keep deterministic: the same scenario always gives the
//! same ids, and iteration is in id order.

mod cluster;

pub use cluster::build;

use crate::units::Bandwidth;
use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use serde::Serialize;

/// Index of a vertex (GPU, switch, NIC) in the topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct VertexId(pub u32);

/// Index of a directed link. `2k` and `2k + 1` are the two directions of one cable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct LinkId(pub u32);

impl LinkId {
    /// The same cable in the other direction.
    pub fn reverse(self) -> LinkId {
        LinkId(self.0 ^ 1)
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum VertexKind {
    Gpu,
    NvSwitch,
    Nic,
    /// A fabric (InfiniBand) switch.
    Switch,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Vertex {
    pub kind: VertexKind,
    /// The node the vertex sits in; `None` for fabric switches.
    pub node: Option<u32>,
    /// Index among the vertices of its kind in its node (GPU 3 of node 1 has `local` 3).
    pub local: u32,
}

/// The class of a link, which decides its colour, its name in the step text and the
/// protocol's per-step overhead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum LinkKind {
    NvLink,
    Pcie,
    Network,
}

impl LinkKind {
    pub fn name(self) -> &'static str {
        match self {
            LinkKind::NvLink => "NVLink",
            LinkKind::Pcie => "PCIe",
            LinkKind::Network => "InfiniBand",
        }
    }
}

/// One direction of one cable.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Link {
    pub kind: LinkKind,
    pub src: VertexId,
    pub dst: VertexId,
    /// What the hardware is sold as, per direction.
    pub line_rate: Bandwidth,
    /// Fraction of the line rate that data moves at.
    pub efficiency: f64,
    /// One-way latency of this hop [ns].
    pub latency_ns: u64,
}

impl Link {
    /// The rate the engine shares among flows: line rate × efficiency.
    pub fn capacity(&self) -> Bandwidth {
        self.line_rate.scale(self.efficiency)
    }
}

/// A built cluster.
#[derive(Clone, Debug)]
pub struct Topology {
    graph: DiGraph<Vertex, Link, u32>,
    /// GPU vertices in rank order (node-major: rank = node × gpus_per_node + local).
    gpus: Vec<VertexId>,
    nodes: u32,
    gpus_per_node: u32,
}

impl Topology {
    pub fn n_nodes(&self) -> u32 {
        self.nodes
    }

    pub fn gpus_per_node(&self) -> u32 {
        self.gpus_per_node
    }

    /// The GPU of a rank.
    pub fn gpu(&self, rank: u32) -> VertexId {
        self.gpus[rank as usize]
    }

    pub fn n_gpus(&self) -> u32 {
        self.gpus.len() as u32
    }

    pub fn vertex(&self, id: VertexId) -> &Vertex {
        &self.graph[NodeIndex::new(id.0 as usize)]
    }

    pub fn vertices(&self) -> impl Iterator<Item = (VertexId, &Vertex)> {
        self.graph.node_indices().map(|index| (VertexId(index.index() as u32), &self.graph[index]))
    }

    pub fn n_links(&self) -> usize {
        self.graph.edge_count()
    }

    pub fn link(&self, id: LinkId) -> &Link {
        &self.graph[EdgeIndex::new(id.index())]
    }

    pub fn links(&self) -> impl Iterator<Item = (LinkId, &Link)> {
        self.graph.edge_indices().map(|index| (LinkId(index.index() as u32), &self.graph[index]))
    }

    /// Outgoing links of a vertex, in id order.
    pub fn out_links(&self, vertex: VertexId) -> Vec<LinkId> {
        let mut links: Vec<LinkId> = self
            .graph
            .edges(NodeIndex::new(vertex.0 as usize))
            .map(|edge| LinkId(petgraph::visit::EdgeRef::id(&edge).index() as u32))
            .collect();
        links.sort();
        links
    }

    /// A person-readable name: "GPU 3", "node 1 GPU 3", "NVSwitch", "NIC 3", "IB switch".
    pub fn vertex_name(&self, id: VertexId) -> String {
        let vertex = self.vertex(id);
        let prefix = match (vertex.node, self.nodes > 1) {
            (Some(node), true) => format!("node {node} "),
            _ => String::new(),
        };
        match vertex.kind {
            VertexKind::Gpu => format!("{prefix}GPU {}", vertex.local),
            VertexKind::NvSwitch => format!("{prefix}NVSwitch"),
            VertexKind::Nic => format!("{prefix}NIC {}", vertex.local),
            VertexKind::Switch => format!("IB switch {}", vertex.local),
        }
    }

    fn add_vertex(&mut self, vertex: Vertex) -> VertexId {
        VertexId(self.graph.add_node(vertex).index() as u32)
    }

    /// Adds a cable: two directed links with the same figures, `a → b` first.
    fn add_cable(&mut self, a: VertexId, b: VertexId, kind: LinkKind, line_rate: Bandwidth, efficiency: f64, latency_ns: [u64; 2]) {
        let (na, nb) = (NodeIndex::new(a.0 as usize), NodeIndex::new(b.0 as usize));
        let forward = Link { kind, src: a, dst: b, line_rate, efficiency, latency_ns: latency_ns[0] };
        let backward = Link { kind, src: b, dst: a, line_rate, efficiency, latency_ns: latency_ns[1] };
        let id = self.graph.add_edge(na, nb, forward).index();
        debug_assert!(id % 2 == 0, "cables are added as pairs, forward link first");
        self.graph.add_edge(nb, na, backward);
    }
}
