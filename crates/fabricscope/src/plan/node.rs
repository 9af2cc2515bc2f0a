//! The nodes a scenario describes itself: a custom shape (`custom`) or an imported server
//! (`imported`), checked and turned into the `NodeSpec` the builder takes.

use crate::catalog::{
    gpu_by_id, nvlink_of_generation, nvlink_rings, pcie_of_generation, LinkSpec, NodeFabric, NodeSpec,
    Placement, GPU_IDS, NIC_NDR_400,
};
use crate::limits::{MAX_BANDWIDTH_GBYTE_PER_S, MAX_CUSTOM_GPUS, MAX_LATENCY_NS, MAX_SOCKETS};
use crate::scenario::{CustomNode, ImportedNode};

pub(super) fn custom_problem(custom: &CustomNode) -> Option<(&'static str, String)> {
    if custom.gpus < 1 || custom.gpus > MAX_CUSTOM_GPUS {
        return Some(("custom.gpus", format!("{} is out of range: use 1 to {MAX_CUSTOM_GPUS}", custom.gpus)));
    }
    let bandwidth = custom.link.bandwidth_gbyte_per_s;
    if !(bandwidth > 0.0 && bandwidth <= MAX_BANDWIDTH_GBYTE_PER_S) {
        return Some((
            "custom.link.bandwidth_gbyte_per_s",
            format!("{bandwidth} is out of range: use more than 0 and at most {MAX_BANDWIDTH_GBYTE_PER_S}"),
        ));
    }
    if !(custom.link.efficiency > 0.0 && custom.link.efficiency <= 1.0) {
        return Some((
            "custom.link.efficiency",
            format!("{} is out of range: use more than 0 and at most 1", custom.link.efficiency),
        ));
    }
    if custom.link.latency_ns > MAX_LATENCY_NS {
        return Some((
            "custom.link.latency_ns",
            format!("{} is out of range: use at most {MAX_LATENCY_NS} (10 s)", custom.link.latency_ns),
        ));
    }
    None
}

/// The node a custom description builds (validated by `custom_problem`).
pub(super) fn custom_node(custom: &CustomNode) -> NodeSpec {
    let link = LinkSpec {
        name: "custom link",
        line_rate_gbyte_per_s: custom.link.bandwidth_gbyte_per_s,
        efficiency: custom.link.efficiency,
        latency_ns: custom.link.latency_ns,
    };
    NodeSpec::custom(custom.shape, custom.gpus, link)
}

type Problem = (String, String);

fn out_of_range(field: &str, value: impl std::fmt::Display, range: &str) -> Problem {
    (format!("imported.{field}"), format!("{value} is out of range: {range}"))
}

/// The node an imported description builds, or its first problem with its field.
pub(super) fn imported_node(node: &ImportedNode) -> Result<NodeSpec, Problem> {
    let Some((catalog_gpu, _)) = gpu_by_id(&node.gpu) else {
        let known: Vec<&str> = GPU_IDS.iter().map(|g| g.0).collect();
        return Err((
            "imported.gpu".into(),
            format!("unknown GPU '{}'; use one of: {}", node.gpu, known.join(", ")),
        ));
    };
    let n = node.gpus;
    if !(1..=MAX_CUSTOM_GPUS).contains(&n) {
        return Err(out_of_range("gpus", n, &format!("use 1 to {MAX_CUSTOM_GPUS}")));
    }
    if node.gpu_switch.len() != n as usize {
        return Err((
            "imported.gpu_switch".into(),
            format!("names {} GPUs' PCIe switches; the node has {n} GPUs", node.gpu_switch.len()),
        ));
    }
    let nics = node.nic_switch.len() as u32;
    if !(1..=MAX_CUSTOM_GPUS).contains(&nics) {
        return Err(out_of_range(
            "nic_switch",
            format!("{nics} NICs"),
            &format!("use 1 to {MAX_CUSTOM_GPUS}"),
        ));
    }
    let Some(pcie) = pcie_of_generation(node.pcie_generation) else {
        return Err(out_of_range("pcie_generation", node.pcie_generation, "use 3 to 6"));
    };
    if !(1..=MAX_SOCKETS).contains(&node.sockets) {
        return Err(out_of_range("sockets", node.sockets, &format!("use 1 to {MAX_SOCKETS}")));
    }
    let switches = node.pcie_switches.len() as u32;
    if !(1..=2 * MAX_CUSTOM_GPUS).contains(&switches) {
        return Err(out_of_range(
            "pcie_switches",
            format!("{switches} switches"),
            &format!("use 1 to {}", 2 * MAX_CUSTOM_GPUS),
        ));
    }
    if let Some((i, s)) = node.pcie_switches.iter().enumerate().find(|(_, &s)| s >= node.sockets) {
        return Err(out_of_range(
            &format!("pcie_switches[{i}]"),
            s,
            &format!("the node has {} sockets", node.sockets),
        ));
    }
    for (field, list) in [("gpu_switch", &node.gpu_switch), ("nic_switch", &node.nic_switch)] {
        if let Some((i, s)) = list.iter().enumerate().find(|(_, &s)| s >= switches) {
            return Err(out_of_range(
                &format!("{field}[{i}]"),
                s,
                &format!("the node has {switches} PCIe switches"),
            ));
        }
    }
    let rate = node.nic_gbit_per_s;
    if !(rate > 0.0 && rate / 8.0 <= MAX_BANDWIDTH_GBYTE_PER_S) {
        return Err(out_of_range(
            "nic_gbit_per_s",
            rate,
            &format!("use more than 0 and at most {}", MAX_BANDWIDTH_GBYTE_PER_S * 8.0),
        ));
    }
    let Some(nvlink) = nvlink_of_generation(catalog_gpu.nvlink_generation) else {
        if node.nvswitch_links > 0 || !node.nvlinks.is_empty() {
            return Err(("imported.nvlinks".into(), format!("{} has no NVLink", catalog_gpu.name)));
        }
        return Ok(spec(node, catalog_gpu, PCIE_ONLY_NVLINK, NodeFabric::Pcie, pcie, rate));
    };
    let max = catalog_gpu.nvlink_links;
    let mut per_gpu = vec![0u32; n as usize];
    let mut pairs = Vec::new();
    for (i, &[a, b, links]) in node.nvlinks.iter().enumerate() {
        if a >= b || b >= n || links == 0 {
            return Err((
                format!("imported.nvlinks[{i}]"),
                format!(
                    "[{a}, {b}, {links}] is not a link: use [a, b, links] with a < b < {n} and links ≥ 1"
                ),
            ));
        }
        if pairs.iter().any(|&(x, y, _)| (x, y) == (a, b)) {
            return Err((format!("imported.nvlinks[{i}]"), format!("GPUs {a} and {b} are listed twice")));
        }
        per_gpu[a as usize] += links;
        per_gpu[b as usize] += links;
        pairs.push((a, b, links));
    }
    let links_of = |g: usize| per_gpu[g] + node.nvswitch_links;
    if let Some(g) = (0..n as usize).find(|&g| links_of(g) > max) {
        return Err((
            "imported.nvlinks".into(),
            format!("GPU {g} has {} NVLinks here; an {} has {max}", links_of(g), catalog_gpu.name),
        ));
    }
    let (fabric, gpu) = if node.nvswitch_links > 0 {
        if !pairs.is_empty() {
            return Err((
                "imported.nvlinks".into(),
                "a node has an NVSwitch or direct NVLinks, not both".into(),
            ));
        }
        // NVSwitch generations: 1 with NVLink 2 (DGX-2), 2 with 3, 3 with 4, 4 with 5.
        let generation = catalog_gpu.nvlink_generation - 1;
        let gpu = crate::catalog::Gpu { nvlink_links: node.nvswitch_links, ..catalog_gpu };
        (NodeFabric::NvSwitch { generation }, gpu)
    } else {
        (NodeFabric::Mesh(pairs), catalog_gpu)
    };
    Ok(spec(node, gpu, nvlink, fabric, pcie, rate))
}

/// What the builder reads of NVLink on a node without it (never a cable).
const PCIE_ONLY_NVLINK: LinkSpec =
    LinkSpec { name: "none", line_rate_gbyte_per_s: 1.0, efficiency: 1.0, latency_ns: 0 };

fn spec(
    node: &ImportedNode,
    gpu: crate::catalog::Gpu,
    nvlink: LinkSpec,
    gpu_fabric: NodeFabric,
    pcie: LinkSpec,
    nic_gbit_per_s: f64,
) -> NodeSpec {
    let rings = match &gpu_fabric {
        NodeFabric::Mesh(pairs) => nvlink_rings(node.gpus, pairs),
        _ => vec![(0..node.gpus).collect()],
    };
    let source = if node.source.is_empty() { "a file" } else { node.source.as_str() };
    NodeSpec {
        id: "imported".into(),
        name: format!("{} × {} from {source}", node.gpus, gpu.name),
        gpu,
        gpus_per_node: node.gpus,
        nvlink,
        gpu_fabric,
        pcie,
        pcie_switches: node.pcie_switches.len() as u32,
        sockets: node.sockets,
        nics_per_node: node.nic_switch.len() as u32,
        // The port's rate; its efficiency and latency come from the fabric technology.
        nic: LinkSpec { name: "imported NIC", line_rate_gbyte_per_s: nic_gbit_per_s / 8.0, ..NIC_NDR_400 },
        switch_name: "switch".into(),
        switch_radix: 64,
        rings,
        placement: Some(Placement {
            gpu_switch: node.gpu_switch.clone(),
            nic_switch: node.nic_switch.clone(),
            switch_socket: node.pcie_switches.clone(),
        }),
        trays: None,
    }
}
