//! Topology: GPUs, NVSwitches, NICs and fabric switches as a `petgraph` directed graph.
//!
//! Every physical link is two directed edges added together, so a link's id and its reverse
//! differ only in the lowest bit (`LinkId::reverse`). Vertex and link ids are indices in
//! insertion order, which the builders keep deterministic: the same scenario always gives the
//! same ids, and iteration is in id order.

mod cluster;
pub mod fabric;

pub use cluster::{build, link_figures, LinkFigure, LinkFigures};
pub use fabric::FabricPlan;

use crate::catalog::Technology;

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
    /// A PCIe switch inside a node (GPUs and NICs hang off it).
    PcieSwitch,
    /// A CPU socket (its PCIe root complex).
    Cpu,
    Nic,
    /// A fabric switch NICs plug into (the only switch of a single-switch fabric).
    Leaf,
    /// Second tier: a spine (leaf-spine) or an aggregation switch (3-tier fat-tree).
    Spine,
    /// Third tier of a fat-tree.
    Core,
}

impl VertexKind {
    pub fn is_fabric_switch(self) -> bool {
        matches!(self, VertexKind::Leaf | VertexKind::Spine | VertexKind::Core)
    }
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
    /// Between CPU sockets (UPI-class).
    Socket,
    Network,
}

impl LinkKind {
    pub fn name(self) -> &'static str {
        match self {
            LinkKind::NvLink => "NVLink",
            LinkKind::Pcie => "PCIe",
            LinkKind::Socket => "UPI",
            LinkKind::Network => "network",
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

/// Where one NIC plugs into the fabric.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NicAttach {
    pub vertex: VertexId,
    /// Index of its leaf.
    pub leaf: u32,
    /// NIC → leaf; `up.reverse()` is leaf → NIC.
    pub up: LinkId,
    /// Its destination address for static routing: leaf × down-ports + port.
    pub address: u32,
}

/// The fabric's structure, for routing: which link leads up or down from each switch.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FabricIndex {
    pub plan: Option<FabricPlan>,
    pub leaves: Vec<VertexId>,
    /// Per NIC, in node-major order (node × NICs per node + local).
    pub nics: Vec<NicAttach>,
    /// Per leaf: its up-links, to spine j (2-tier) or to aggregation j of its pod (3-tier).
    pub leaf_up: Vec<Vec<LinkId>>,
    /// Per spine or aggregation switch: its down-link to each leaf it serves (leaf index within the pod).
    pub mid_down: Vec<Vec<LinkId>>,
    /// Per aggregation switch: its up-links to cores.
    pub mid_up: Vec<Vec<LinkId>>,
    /// Per core: its down-link into each pod.
    pub core_down: Vec<Vec<LinkId>>,
}

/// Figures of a built fabric, counted from the graph.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FabricSummary {
    pub kind: String,
    pub technology: String,
    pub nics: u32,
    pub switches: u32,
    /// Cables between NICs and switches and between switches.
    pub cables: u32,
    /// Line-rate bandwidth across the worst cut into two halves, each direction [GB/s].
    pub bisection_gbyte_per_s: f64,
    /// Switch hops on the longest shortest NIC-to-NIC path.
    pub diameter: u32,
}

/// A built cluster.
#[derive(Clone, Debug)]
pub struct Topology {
    graph: DiGraph<Vertex, Link, u32>,
    /// GPU vertices in rank order (node-major: rank = node × gpus_per_node + local).
    gpus: Vec<VertexId>,
    nodes: u32,
    gpus_per_node: u32,
    pub fabric: FabricIndex,
    /// Efficiency of a network link that flows from several sources share.
    pub congested_efficiency: f64,
    /// Fraction of the NVLink bandwidth an NVLS hop through the node's NVSwitch achieves
    /// (`catalog::nvls_efficiency` of its generation).
    pub nvls_efficiency: f64,
    pub technology: Technology,
    /// Links that are down (`scenario::Fault` with rate 0), by index; empty when none is.
    pub down: Vec<bool>,
    /// Every cable a fault hit (one direction of it) and the fraction of its rate left.
    pub faults: Vec<(LinkId, f64)>,
    /// A rack-scale node's compute and switch trays (`catalog::Trays`), for drawing.
    pub trays: Option<crate::catalog::Trays>,
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

    /// Whether link `id` is down.
    pub fn is_down(&self, id: LinkId) -> bool {
        self.down.get(id.index()).copied().unwrap_or(false)
    }

    /// A cable at `rate` of its bandwidth, both directions; down at 0.
    pub(crate) fn degrade(&mut self, id: LinkId, rate: f64) {
        self.faults.push((id, rate));
        for link in [id, id.reverse()] {
            if rate <= 0.0 {
                if self.down.is_empty() {
                    self.down = vec![false; self.n_links()];
                }
                self.down[link.index()] = true;
            } else {
                self.graph[EdgeIndex::new(link.index())].efficiency *= rate;
            }
        }
    }

    pub fn link(&self, id: LinkId) -> &Link {
        &self.graph[EdgeIndex::new(id.index())]
    }

    /// The slowest class of link on a path (network over PCIe over NVLink).
    pub fn path_class(&self, path: &[LinkId]) -> LinkKind {
        path.iter().map(|&id| self.link(id).kind).max().unwrap_or(LinkKind::NvLink)
    }

    /// The sum of a path's link latencies [ns].
    pub fn path_latency_ns(&self, path: &[LinkId]) -> u64 {
        path.iter().map(|&id| self.link(id).latency_ns).sum()
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
        crate::sort::sort(&mut links);
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
            VertexKind::PcieSwitch => format!("{prefix}PCIe switch {}", vertex.local),
            VertexKind::Cpu => format!("{prefix}CPU {}", vertex.local),
            VertexKind::Nic => format!("{prefix}NIC {}", vertex.local),
            VertexKind::Leaf if self.fabric.leaves.len() == 1 => "switch".to_string(),
            VertexKind::Leaf => format!("leaf {}", vertex.local),
            VertexKind::Spine if self.fabric.mid_up.iter().all(|up| up.is_empty()) => {
                format!("spine {}", vertex.local)
            }
            VertexKind::Spine => format!("aggregation {}", vertex.local),
            VertexKind::Core => format!("core {}", vertex.local),
        }
    }

    /// The NICs per node.
    pub fn nics_per_node(&self) -> u32 {
        self.fabric.plan.as_ref().map(|plan| plan.nics_per_node).unwrap_or(0)
    }

    /// Switches, cables, bisection bandwidth and diameter, counted from the graph.
    pub fn fabric_summary(&self) -> FabricSummary {
        let switches = self.vertices().filter(|(_, v)| v.kind.is_fabric_switch()).count() as u32;
        let mut cables = 0;
        // Line rate leaving each tier upward: NICs → leaves, leaves → spines, spines → cores.
        let mut tier_up = [0.0f64; 3];
        for (id, link) in self.links() {
            if link.kind != LinkKind::Network || id.0 % 2 == 1 {
                continue;
            }
            cables += 1;
            let tier = match self.vertex(link.src).kind {
                VertexKind::Nic => 0,
                VertexKind::Leaf => 1,
                _ => 2,
            };
            tier_up[tier] += link.line_rate.gbyte_per_s();
        }
        // Half the NICs talk to the other half: the cut crosses each tier's up-links at most once.
        let bisection =
            tier_up.iter().filter(|&&rate| rate > 0.0).map(|rate| rate / 2.0).fold(f64::INFINITY, f64::min);
        let plan = self.fabric.plan.as_ref();
        FabricSummary {
            kind: plan.map(|p| format!("{:?}", p.kind)).unwrap_or_default(),
            technology: self.technology.spec().name.to_string(),
            nics: self.fabric.nics.len() as u32,
            switches,
            cables,
            bisection_gbyte_per_s: if bisection.is_finite() { bisection } else { 0.0 },
            diameter: self.diameter(),
        }
    }

    /// Switch hops from the first NIC to the farthest NIC (Clos fabrics are symmetric, so this
    /// is the diameter).
    fn diameter(&self) -> u32 {
        let Some(first) = self.fabric.nics.first() else { return 0 };
        let n = self.graph.node_count();
        let mut hops = vec![u32::MAX; n];
        hops[first.vertex.0 as usize] = 0;
        let mut queue = std::collections::VecDeque::from([first.vertex]);
        let mut farthest = 0;
        while let Some(v) = queue.pop_front() {
            for link in self.out_links(v) {
                let next = self.link(link).dst;
                let kind = self.vertex(next).kind;
                if link_is_fabric(self, link) && hops[next.0 as usize] == u32::MAX {
                    hops[next.0 as usize] = hops[v.0 as usize] + 1;
                    if kind == VertexKind::Nic {
                        farthest = farthest.max(hops[next.0 as usize] - 1);
                    } else {
                        queue.push_back(next);
                    }
                }
            }
        }
        farthest
    }

    fn add_vertex(&mut self, vertex: Vertex) -> VertexId {
        VertexId(self.graph.add_node(vertex).index() as u32)
    }

    /// Adds a cable: two directed links with the same figures, `a → b` first.
    fn add_cable(
        &mut self,
        a: VertexId,
        b: VertexId,
        kind: LinkKind,
        line_rate: Bandwidth,
        efficiency: f64,
        latency_ns: [u64; 2],
    ) -> LinkId {
        let (na, nb) = (NodeIndex::new(a.0 as usize), NodeIndex::new(b.0 as usize));
        let forward = Link { kind, src: a, dst: b, line_rate, efficiency, latency_ns: latency_ns[0] };
        let backward = Link { kind, src: b, dst: a, line_rate, efficiency, latency_ns: latency_ns[1] };
        let id = self.graph.add_edge(na, nb, forward).index();
        debug_assert!(id % 2 == 0, "cables are added as pairs, forward link first");
        self.graph.add_edge(nb, na, backward);
        LinkId(id as u32)
    }
}

fn link_is_fabric(topology: &Topology, link: LinkId) -> bool {
    topology.link(link).kind == LinkKind::Network
}
