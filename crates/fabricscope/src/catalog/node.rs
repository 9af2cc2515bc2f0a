//! Node presets: real 8-GPU servers, how their GPUs are joined, and their PCIe tree.
//!
//! Every preset has a PCIe tree: `sockets` CPUs joined by a socket link, `pcie_switches` PCIe
//! switches spread over the sockets, and the GPUs and NICs spread in order over the switches
//! (GPU i and NIC i share a switch when there are as many NICs as GPUs). On top of that the GPUs
//! are joined by an NVSwitch, by a fixed NVLink mesh (DGX-1), or not at all (PCIe server).

use serde::{Deserialize, Serialize};

use super::gpu::{Gpu, A100, B200, B300, GB200_B200, H100, H100_PCIE, H100_PCIE_BRIDGED, H20, H800, V100};
use super::link::{
    LinkSpec, NIC_EDR_100, NIC_HDR_200, NIC_NDR_400, NIC_XDR_800, NVLINK2, NVLINK3, NVLINK4, NVLINK5,
    PCIE3_X16, PCIE4_X16, PCIE5_X16, PCIE6_X16,
};

/// How the GPUs of a node are joined.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GpuFabric {
    /// Every GPU's NVLinks go to the NVSwitch chips (one non-blocking vertex here).
    /// `generation` 3 and later reduce in the switch (NVLS).
    NvSwitch { generation: u8 },
    /// Direct NVLinks between pairs: (GPU a, GPU b, links).
    Mesh(&'static [(u32, u32, u32)]),
    /// No NVLink: GPUs talk over PCIe.
    Pcie,
}

/// A node preset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodePreset {
    /// The id scenarios use ("dgx-h100").
    pub id: &'static str,
    pub name: &'static str,
    pub gpu: Gpu,
    pub gpus_per_node: u32,
    /// One NVLink of the GPU's generation.
    pub nvlink: LinkSpec,
    pub gpu_fabric: GpuFabric,
    /// Each GPU's and NIC's link to its PCIe switch, and each switch's to its CPU.
    pub pcie: LinkSpec,
    pub pcie_switches: u32,
    pub sockets: u32,
    pub nics_per_node: u32,
    pub nic: LinkSpec,
    /// The InfiniBand switch the NICs plug into.
    pub switch_name: &'static str,
    /// Ports on that switch.
    pub switch_radix: u32,
    /// The orders NCCL's rings visit the node's GPUs (over NVLink where the mesh allows);
    /// channel c uses ring `c mod rings.len()`.
    pub rings: &'static [&'static [u32]],
    /// How a rack-scale NVLink domain is built (compute and NVLink Switch trays), for drawing;
    /// `None` for a server.
    pub trays: Option<Trays>,
}

/// A rack-scale NVLink domain's trays: the GPUs of each compute tray, and the NVLink Switch
/// trays every GPU reaches in one hop (one switch vertex in the model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trays {
    pub gpus_per_tray: u32,
    pub switch_trays: u32,
}

const IDENTITY_RING: &[&[u32]] = &[&[0, 1, 2, 3, 4, 5, 6, 7]];

/// 0, 1, …, N-1: a ring through every GPU of a rack-scale NVLink domain in order.
const fn in_order<const N: usize>() -> [u32; N] {
    let mut ring = [0u32; N];
    let mut i = 0;
    while i < N {
        ring[i] = i as u32;
        i += 1;
    }
    ring
}
const NVL72_RING: [u32; 72] = in_order::<72>();
const NVL36_RING: [u32; 36] = in_order::<36>();

/// DGX-1 with V100, "hybrid cube-mesh" (NVIDIA, "DGX-1 With Tesla V100 System Architecture",
/// 2017): two fully connected quads plus links between GPU i and i+4; some pairs have two
/// links. Pairs not listed (e.g. GPU 0 and 5) have no NVLink and go over PCIe and QPI.
const DGX1_MESH: &[(u32, u32, u32)] = &[
    (0, 1, 1),
    (0, 2, 1),
    (0, 3, 2),
    (0, 4, 2),
    (1, 2, 2),
    (1, 3, 1),
    (1, 5, 2),
    (2, 3, 2),
    (2, 6, 1),
    (3, 7, 1),
    (4, 5, 1),
    (4, 6, 1),
    (4, 7, 2),
    (5, 6, 2),
    (5, 7, 1),
    (6, 7, 2),
];

/// DGX H100 user guide: 8× H100 SXM5, 4 third-generation NVSwitch chips, 8× ConnectX-7
/// single-port NDR 400 Gb/s for the compute fabric, each GPU paired with one NIC behind a
/// PCIe 5.0 switch (4 switches, 2 GPUs + 2 NICs each), 2 Xeon sockets.
/// Switch: NVIDIA Quantum-2 QM9700, 64 ports of NDR 400 Gb/s (datasheet).
const DGX_H100: NodePreset = NodePreset {
    id: "dgx-h100",
    name: "DGX H100",
    gpu: H100,
    gpus_per_node: 8,
    nvlink: NVLINK4,
    gpu_fabric: GpuFabric::NvSwitch { generation: 3 },
    pcie: PCIE5_X16,
    pcie_switches: 4,
    sockets: 2,
    nics_per_node: 8,
    nic: NIC_NDR_400,
    switch_name: "Quantum-2 QM9700 (NDR)",
    switch_radix: 64,
    rings: IDENTITY_RING,
    trays: None,
};

/// Every node preset, in the order the page lists them.
pub const NODE_PRESETS: &[NodePreset] = &[
    DGX_H100,
    // DGX A100 user guide: 8× A100 SXM4, 6 second-generation NVSwitch chips, 8× ConnectX-6 HDR
    // 200 Gb/s compute NICs on 4 PCIe 4.0 switches (seeds 003: 8 ports, 200 GB/s), 2 EPYC sockets.
    // Switch: NVIDIA Quantum QM8700, 40 ports of HDR 200 Gb/s (datasheet).
    NodePreset {
        id: "dgx-a100",
        name: "DGX A100",
        gpu: A100,
        gpus_per_node: 8,
        nvlink: NVLINK3,
        gpu_fabric: GpuFabric::NvSwitch { generation: 2 },
        pcie: PCIE4_X16,
        pcie_switches: 4,
        sockets: 2,
        nics_per_node: 8,
        nic: NIC_HDR_200,
        switch_name: "Quantum QM8700 (HDR)",
        switch_radix: 40,
        rings: IDENTITY_RING,
        trays: None,
    },
    // HGX B200 / DGX B200 datasheet: 8× B200, fifth-generation NVLink (1.8 TB/s per GPU
    // bidirectional) through NVSwitch chips, 8× ConnectX-7 400 Gb/s compute NICs, PCIe 5.0:
    // the DGX H100 layout otherwise.
    NodePreset {
        id: "hgx-b200",
        name: "HGX B200",
        gpu: B200,
        nvlink: NVLINK5,
        gpu_fabric: GpuFabric::NvSwitch { generation: 4 },
        ..DGX_H100
    },
    // HGX B300 / DGX B300 (NVIDIA datasheet and user guide): 8× B300 (Blackwell Ultra), NVLink 5
    // through the NVLink 5 switch (1.8 TB/s per GPU bidirectional, 14.4 TB/s in all), one
    // ConnectX-8 SuperNIC of 800 Gb/s per GPU on the GPU board, whose built-in PCIe 6.0 switch
    // joins that GPU and NIC. Switch: NVIDIA Quantum-X800 Q3400, 144 ports of XDR 800 Gb/s
    // (datasheet). 2 sockets on the host board.
    NodePreset {
        id: "hgx-b300",
        name: "HGX B300",
        gpu: B300,
        nvlink: NVLINK5,
        gpu_fabric: GpuFabric::NvSwitch { generation: 4 },
        pcie: PCIE6_X16,
        pcie_switches: 8,
        nic: NIC_XDR_800,
        switch_name: "Quantum-X800 Q3400 (XDR)",
        switch_radix: 144,
        ..DGX_H100
    },
    // GB200 NVL72 (NVIDIA GB200 NVL72 product page; shared/reference/interconnects.md): one NVLink
    // domain of 72 B200 in 18 compute trays of 4 (2 GB200 superchips of 1 Grace + 2 B200 each)
    // and 9 NVLink Switch trays, NVLink 5 × 18 per GPU (900 GB/s per direction), every GPU one
    // switch hop from every other (one non-blocking vertex here, as an HGX board's NVSwitch);
    // the switch chips reduce (NVLS). Scale-out: one ConnectX-7 400 Gb/s per GPU. The model's
    // "node" is the NVLink domain: the rack. Host side: each superchip a PCIe switch with its 2
    // GPUs and 2 NICs under its Grace (a socket); the Graces are chained by the model's socket
    // link, which no aligned run crosses (assumed; the NICs' PCIe Gen5 x16 outruns 400 Gb/s).
    // Switch: a 144-port Quantum-X800 Q3400 (datasheet) with its ports at the NICs' 400 Gb/s
    // (assumed): rail-optimised, each of a rack's 72 rails needs a leaf, more than a 64-port
    // Quantum-2 leaf-spine holds.
    NodePreset {
        id: "gb200-nvl72",
        name: "GB200 NVL72 rack",
        gpu: GB200_B200,
        gpus_per_node: 72,
        nvlink: NVLINK5,
        gpu_fabric: GpuFabric::NvSwitch { generation: 4 },
        pcie_switches: 36,
        sockets: 36,
        nics_per_node: 72,
        switch_name: "Quantum-X800 Q3400 (ports at 400 Gb/s)",
        switch_radix: 144,
        rings: &[&NVL72_RING],
        trays: Some(Trays { gpus_per_tray: 4, switch_trays: 9 }),
        ..DGX_H100
    },
    // GB200 NVL36: the same trays, 9 compute trays (36 GPUs) on the 9 NVLink Switch trays.
    NodePreset {
        id: "gb200-nvl36",
        name: "GB200 NVL36 rack",
        gpu: GB200_B200,
        gpus_per_node: 36,
        nvlink: NVLINK5,
        gpu_fabric: GpuFabric::NvSwitch { generation: 4 },
        pcie_switches: 18,
        sockets: 18,
        nics_per_node: 36,
        rings: &[&NVL36_RING],
        trays: Some(Trays { gpus_per_tray: 4, switch_trays: 9 }),
        ..DGX_H100
    },
    // HGX H800: the DGX H100 layout with the export GPU's 8 NVLinks (200 GB/s per direction).
    NodePreset { id: "hgx-h800", name: "HGX H800", gpu: H800, ..DGX_H100 },
    // HGX H20: the HGX H100 board (third-generation NVSwitch, so NVLS) with the export H20,
    // whose NVLink is H100's (18 links, 900 GB/s bidirectional) while its compute is a sixth;
    // 8× ConnectX-7 NDR 400 Gb/s as on the HGX H100 reference design (servers vary).
    NodePreset { id: "hgx-h20", name: "HGX H20", gpu: H20, ..DGX_H100 },
    // DGX-1 (V100) system architecture white paper: 8× V100 in a hybrid cube-mesh of NVLink 2,
    // no NVSwitch; 4 PCIe 3.0 switches, each with 2 GPUs and 1 EDR InfiniBand NIC (4 NICs), 2
    // Xeon sockets. Switch: Mellanox SB7800, 36 ports of EDR 100 Gb/s (datasheet).
    // Rings: 0-1-2-3-7-6-5-4 and 0-3-2-1-5-6-7-4 use NVLink on every hop, and with their
    // reverses they load every directed link evenly (NCCL searches for such rings on DGX-1).
    NodePreset {
        id: "dgx-1",
        name: "DGX-1 (V100)",
        gpu: V100,
        gpus_per_node: 8,
        nvlink: NVLINK2,
        gpu_fabric: GpuFabric::Mesh(DGX1_MESH),
        pcie: PCIE3_X16,
        pcie_switches: 4,
        sockets: 2,
        nics_per_node: 4,
        nic: NIC_EDR_100,
        switch_name: "Mellanox SB7800 (EDR)",
        switch_radix: 36,
        rings: &[
            &[0, 1, 2, 3, 7, 6, 5, 4],
            &[0, 4, 5, 6, 7, 3, 2, 1],
            &[0, 3, 2, 1, 5, 6, 7, 4],
            &[0, 4, 7, 6, 5, 1, 2, 3],
        ],
        trays: None,
    },
    // A typical 8-GPU PCIe server: 8× H100 PCIe, no NVLink; 4 PCIe 5.0 switches with 2 GPUs and
    // 1 NIC each (4× ConnectX-7 400 Gb/s), 2 sockets. GPUs on different switches go through the
    // CPU's root complex, and across sockets over UPI.
    NodePreset {
        id: "pcie-h100",
        name: "8× H100 PCIe server",
        gpu: H100_PCIE,
        gpus_per_node: 8,
        nvlink: NVLINK4,
        gpu_fabric: GpuFabric::Pcie,
        pcie: PCIE5_X16,
        pcie_switches: 4,
        sockets: 2,
        nics_per_node: 4,
        nic: NIC_NDR_400,
        switch_name: "Quantum-2 QM9700 (NDR)",
        switch_radix: 64,
        rings: IDENTITY_RING,
        trays: None,
    },
    // Two H100 PCIe cards joined by NVLink bridges (NVIDIA H100 PCIe product brief: 600 GB/s
    // bidirectional over the bridge, PCIe 5.0 x16 to the host, 128 GB/s bidirectional): the
    // pair talks over NVLink, the host and NICs over PCIe. One socket, each card and its
    // ConnectX-7 400 Gb/s NIC on a PCIe 5.0 switch of its own (the NICs are assumed; servers vary).
    NodePreset {
        id: "pcie-h100-nvlink",
        name: "2× H100 PCIe, NVLink bridge",
        gpu: H100_PCIE_BRIDGED,
        gpus_per_node: 2,
        nvlink: NVLINK4,
        gpu_fabric: GpuFabric::Mesh(&[(0, 1, 12)]),
        pcie: PCIE5_X16,
        pcie_switches: 2,
        sockets: 1,
        nics_per_node: 2,
        nic: NIC_NDR_400,
        switch_name: "Quantum-2 QM9700 (NDR)",
        switch_radix: 64,
        rings: &[&[0, 1]],
        trays: None,
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

/// The shape of a custom node's GPU interconnect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CustomShape {
    /// GPU i linked to GPU i+1 (and the last to the first).
    Ring,
    /// Every GPU on one non-blocking switch.
    Star,
    /// A link between every pair of GPUs.
    FullMesh,
}

/// How the GPUs of a node are joined, owned (a preset's or a custom node's).
#[derive(Clone, Debug, PartialEq)]
pub enum NodeFabric {
    NvSwitch { generation: u8 },
    Mesh(Vec<(u32, u32, u32)>),
    Pcie,
}

impl NodeFabric {
    /// Whether the switch itself can add data (NVLS): NVSwitch generation 3 and later.
    pub fn reduces_in_switch(&self) -> bool {
        matches!(self, NodeFabric::NvSwitch { generation } if *generation >= 3)
    }
}

/// One node as the builder uses it: a preset's figures, or a custom node's.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    pub id: String,
    pub name: String,
    pub gpu: Gpu,
    pub gpus_per_node: u32,
    pub nvlink: LinkSpec,
    pub gpu_fabric: NodeFabric,
    pub pcie: LinkSpec,
    pub pcie_switches: u32,
    pub sockets: u32,
    pub nics_per_node: u32,
    pub nic: LinkSpec,
    pub switch_name: String,
    pub switch_radix: u32,
    pub rings: Vec<Vec<u32>>,
    /// Where each GPU, NIC and PCIe switch hangs, when a file said so (an imported node);
    /// `None`: spread in order (`gpu_switch`).
    pub placement: Option<Placement>,
    /// A rack's compute and switch trays, for drawing.
    pub trays: Option<Trays>,
}

/// An imported node's PCIe tree: the switch of each GPU and NIC, the socket of each switch.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    pub gpu_switch: Vec<u32>,
    pub nic_switch: Vec<u32>,
    pub switch_socket: Vec<u32>,
}

impl From<&NodePreset> for NodeSpec {
    fn from(p: &NodePreset) -> NodeSpec {
        NodeSpec {
            id: p.id.to_string(),
            name: p.name.to_string(),
            gpu: p.gpu,
            gpus_per_node: p.gpus_per_node,
            nvlink: p.nvlink,
            gpu_fabric: match p.gpu_fabric {
                GpuFabric::NvSwitch { generation } => NodeFabric::NvSwitch { generation },
                GpuFabric::Mesh(pairs) => NodeFabric::Mesh(pairs.to_vec()),
                GpuFabric::Pcie => NodeFabric::Pcie,
            },
            pcie: p.pcie,
            pcie_switches: p.pcie_switches,
            sockets: p.sockets,
            nics_per_node: p.nics_per_node,
            nic: p.nic,
            switch_name: p.switch_name.to_string(),
            switch_radix: p.switch_radix,
            rings: p.rings.iter().map(|r| r.to_vec()).collect(),
            placement: None,
            trays: p.trays,
        }
    }
}

impl NodeSpec {
    /// A node built from a custom shape: `n` GPUs joined by `link` (validated by the scenario).
    pub fn custom(shape: CustomShape, n: u32, link: LinkSpec) -> NodeSpec {
        let gpu_fabric = match shape {
            CustomShape::Star => NodeFabric::NvSwitch { generation: 0 },
            // A ring of one GPU has no links.
            CustomShape::Ring if n < 2 => NodeFabric::Mesh(Vec::new()),
            CustomShape::Ring => {
                NodeFabric::Mesh((0..n).map(|i| (i.min((i + 1) % n), i.max((i + 1) % n), 1)).collect())
            }
            CustomShape::FullMesh => {
                NodeFabric::Mesh((0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b, 1))).collect())
            }
        };
        let shape = match shape {
            CustomShape::Ring => "ring",
            CustomShape::Star => "star",
            CustomShape::FullMesh => "full mesh",
        };
        NodeSpec {
            id: "custom".into(),
            name: format!("custom {shape} of {n}"),
            // The GPU model matters only for compute; its NVLink count is one link per peer.
            gpu: Gpu { name: "GPU", nvlink_links: 1, ..super::gpu::H100 },
            gpus_per_node: n,
            nvlink: link,
            gpu_fabric,
            // No PCIe cost: every GPU and its NIC share an ideal switch, and no CPU joins the
            // switches, so GPUs talk only over the custom links.
            pcie: LinkSpec {
                name: "ideal",
                line_rate_gbyte_per_s: 100_000.0,
                efficiency: 1.0,
                latency_ns: 0,
            },
            pcie_switches: n,
            sockets: 0,
            nics_per_node: n,
            nic: super::link::NIC_NDR_400,
            switch_name: "switch".into(),
            switch_radix: 64,
            rings: vec![(0..n).collect()],
            placement: None,
            trays: None,
        }
    }

    /// The PCIe switch GPU `local` hangs off.
    pub fn gpu_switch(&self, local: u32) -> u32 {
        if let Some(placement) = &self.placement {
            return placement.gpu_switch[local as usize];
        }
        local * self.pcie_switches / self.gpus_per_node
    }

    /// The PCIe switch NIC `local` hangs off.
    pub fn nic_switch(&self, local: u32) -> u32 {
        if let Some(placement) = &self.placement {
            return placement.nic_switch[local as usize];
        }
        local * self.pcie_switches / self.nics_per_node.max(1)
    }

    /// The CPU socket PCIe switch `switch` hangs off.
    pub fn switch_socket(&self, switch: u32) -> u32 {
        if let Some(placement) = &self.placement {
            return placement.switch_socket[switch as usize];
        }
        switch * self.sockets / self.pcie_switches
    }
}

/// The rings NCCL would build over a node's direct NVLinks: a cycle through all `n` GPUs that
/// uses an NVLink on every hop, found by depth-first search from GPU 0 (trying the best-linked
/// peer first, at most `SEARCH_STEPS` steps), and the same cycle backwards, so that both
/// directions of every link carry a ring. When no such cycle exists (or the search gives up),
/// GPUs in order, whose hops without NVLink go over PCIe.
pub fn nvlink_rings(n: u32, pairs: &[(u32, u32, u32)]) -> Vec<Vec<u32>> {
    const SEARCH_STEPS: u32 = 100_000;
    let identity: Vec<u32> = (0..n).collect();
    if n < 3 {
        return vec![identity];
    }
    let links = |a: u32, b: u32| pairs.iter().find(|p| (p.0, p.1) == (a.min(b), a.max(b))).map_or(0, |p| p.2);
    let mut path = vec![0u32];
    let mut used = vec![false; n as usize];
    used[0] = true;
    let mut steps = 0;
    fn search(
        path: &mut Vec<u32>,
        used: &mut [bool],
        steps: &mut u32,
        n: u32,
        links: &dyn Fn(u32, u32) -> u32,
    ) -> bool {
        *steps += 1;
        let last = *path.last().expect("the path starts at GPU 0");
        if path.len() as u32 == n {
            return links(last, path[0]) > 0;
        }
        if *steps > SEARCH_STEPS {
            return false;
        }
        let mut next: Vec<u32> = (0..n).filter(|&g| !used[g as usize] && links(last, g) > 0).collect();
        crate::sort::by_key(&mut next, |&g| (std::cmp::Reverse(links(last, g)), g));
        for g in next {
            used[g as usize] = true;
            path.push(g);
            if search(path, used, steps, n, links) {
                return true;
            }
            path.pop();
            used[g as usize] = false;
        }
        false
    }
    if !search(&mut path, &mut used, &mut steps, n, &links) {
        return vec![identity];
    }
    let mut back: Vec<u32> = path.iter().rev().copied().collect();
    back.rotate_right(1);
    vec![path, back]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rings_over_a_mesh_use_nvlink_on_every_hop() {
        let rings = nvlink_rings(8, DGX1_MESH);
        assert_eq!(rings.len(), 2);
        for ring in &rings {
            let mut sorted = ring.clone();
            sorted.sort();
            assert_eq!(sorted, (0..8).collect::<Vec<_>>());
            for w in 0..8 {
                let (a, b) = (ring[w], ring[(w + 1) % 8]);
                assert!(DGX1_MESH.iter().any(|p| (p.0, p.1) == (a.min(b), a.max(b))), "{ring:?}");
            }
        }
        // A star of links (GPU 0 to each other) has no such cycle.
        let star: Vec<(u32, u32, u32)> = (1..4).map(|b| (0, b, 1)).collect();
        assert_eq!(nvlink_rings(4, &star), vec![vec![0, 1, 2, 3]]);
    }

    #[test]
    fn presets_are_consistent() {
        for preset in NODE_PRESETS {
            for ring in preset.rings {
                assert_eq!(ring.len() as u32, preset.gpus_per_node, "{}", preset.id);
                let mut sorted = ring.to_vec();
                sorted.sort();
                assert_eq!(
                    sorted,
                    (0..preset.gpus_per_node).collect::<Vec<_>>(),
                    "{}: the ring visits every GPU once",
                    preset.id
                );
                if let GpuFabric::Mesh(pairs) = preset.gpu_fabric {
                    for w in 0..ring.len() {
                        let (a, b) = (ring[w], ring[(w + 1) % ring.len()]);
                        assert!(
                            pairs.iter().any(|p| (p.0, p.1) == (a.min(b), a.max(b))),
                            "{}: ring hop {a}-{b} has NVLink",
                            preset.id
                        );
                    }
                }
            }
            if let GpuFabric::Mesh(pairs) = preset.gpu_fabric {
                // Every GPU uses exactly its links.
                for gpu in 0..preset.gpus_per_node {
                    let links: u32 = pairs.iter().filter(|p| p.0 == gpu || p.1 == gpu).map(|p| p.2).sum();
                    assert_eq!(links, preset.gpu.nvlink_links, "{} GPU {gpu}", preset.id);
                }
            }
        }
    }
}
