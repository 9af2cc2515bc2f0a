//! NCCL's topology XML, as `NCCL_TOPO_DUMP_FILE` writes it (NVIDIA/nccl `src/graph/xml.cc`):
//!
//! ```text
//! <system version="1">
//!   <cpu numaid="0" affinity="…" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
//!     <pci busid="0000:18:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">
//!       <pci busid="0000:19:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
//!         <gpu dev="0" sm="90" rank="0" gdr="1">
//!           <nvlink target="0000:05:00.0" count="18" tclass="0x068000"/>
//!         </gpu>
//!       </pci>
//!       <pci busid="0000:1a:00.0" class="0x020700" link_speed="32.0 GT/s PCIe" link_width="16">
//!         <nic><net name="mlx5_0" dev="0" speed="400000" port="1" gdr="1"/></nic>
//!       </pci>
//!     </pci>
//!   </cpu>
//! </system>
//! ```
//!
//! Each `<cpu>` is a socket (NUMA node). Everything under one child of a `<cpu>` (a PCIe
//! switch, as NCCL flattens it) shares a PCIe switch in the model; a GPU or NIC directly under a
//! `<cpu>` sits on a root port, a switch of its own. An `<nvlink>` whose `tclass` is
//! `0x068000` (a bridge: the NVSwitch) counts links into the NVSwitch; one whose target is
//! another GPU's bus id joins that pair. `<net speed>` is in Mb/s; the GPUs' `link_speed` gives
//! the PCIe generation. Elements the reader does not know are noted, not guessed at.

use super::{error, ImportError, Reading};
use crate::limits::{MAX_CUSTOM_GPUS, MAX_SOCKETS};
use roxmltree::{Document, Node};

const KNOWN: &[&str] = &["system", "cpu", "pci", "gpu", "nvlink", "nic", "net", "c2c", "pcilink"];

struct Gpu {
    dev: Option<u32>,
    busid: String,
    switch: u32,
    line: usize,
    nvlinks: Vec<(String, u32, String)>,
}

pub(super) fn read(text: &str) -> Result<Reading, Vec<ImportError>> {
    let doc = Document::parse(text)
        .map_err(|e| error(e.pos().row as usize, format!("not well-formed XML: {e}")))?;
    let root = doc.root_element();
    let line = |node: Node| doc.text_pos_at(node.range().start).row as usize;
    if root.tag_name().name() != "system" {
        return Err(error(
            line(root),
            format!("the root element is <{}>; NCCL's topology has <system>", root.tag_name().name()),
        ));
    }
    let mut r = Reading { source: "NCCL topology XML", ..Reading::default() };
    let mut gpus: Vec<Gpu> = Vec::new();
    let mut nics: Vec<(u32, Option<f64>, usize)> = Vec::new();
    let mut unknown: Vec<(String, usize)> = Vec::new();
    let mut sm: Vec<(u32, usize)> = Vec::new();
    let mut pcie: Option<u32> = None;
    let cpus: Vec<Node> = root.children().filter(|n| n.has_tag_name("cpu")).collect();
    if cpus.len() as u32 > MAX_SOCKETS {
        return Err(error(
            line(cpus[0]),
            format!("{} <cpu> elements; the model takes at most {MAX_SOCKETS} sockets", cpus.len()),
        ));
    }
    for child in root.children().filter(Node::is_element) {
        if !KNOWN.contains(&child.tag_name().name()) {
            unknown.push((child.tag_name().name().into(), line(child)));
        }
    }
    let mut switch_socket: Vec<u32> = Vec::new();
    for (socket, cpu) in cpus.iter().enumerate() {
        for top in cpu.children().filter(Node::is_element) {
            let switch = switch_socket.len() as u32;
            let mut used = false;
            for node in top.descendants().filter(Node::is_element) {
                match node.tag_name().name() {
                    "gpu" => {
                        used = true;
                        let pci = node.parent_element().filter(|p| p.has_tag_name("pci"));
                        let busid = pci.and_then(|p| p.attribute("busid")).unwrap_or("").to_ascii_lowercase();
                        if let Some(gen) = pci.and_then(|p| p.attribute("link_speed")).and_then(generation) {
                            pcie = Some(pcie.map_or(gen, |g: u32| g.max(gen)));
                        }
                        if let Some(v) = node.attribute("sm").and_then(|s| s.trim().parse().ok()) {
                            sm.push((v, line(node)));
                        }
                        let nvlinks = node
                            .children()
                            .filter(|n| n.has_tag_name("nvlink"))
                            .map(|n| {
                                let count =
                                    n.attribute("count").and_then(|c| c.trim().parse().ok()).unwrap_or(0);
                                let target = n.attribute("target").unwrap_or("").to_ascii_lowercase();
                                (target, count, n.attribute("tclass").unwrap_or("").to_ascii_lowercase())
                            })
                            .collect();
                        let dev = node.attribute("dev").and_then(|d| d.trim().parse().ok());
                        gpus.push(Gpu { dev, busid, switch, line: line(node), nvlinks });
                    }
                    "net" => {
                        used = true;
                        let speed = node.attribute("speed").and_then(|s| s.trim().parse::<f64>().ok());
                        nics.push((
                            switch,
                            speed.filter(|s| s.is_finite() && *s > 0.0).map(|s| s / 1000.0),
                            line(node),
                        ));
                    }
                    name if !KNOWN.contains(&name) => unknown.push((name.into(), line(node))),
                    _ => {}
                }
            }
            if used {
                switch_socket.push(socket as u32);
            }
        }
    }
    if gpus.len() as u32 > MAX_CUSTOM_GPUS || nics.len() as u32 > MAX_CUSTOM_GPUS {
        return Err(error(
            line(root),
            format!(
                "{} GPUs and {} NIC ports: a node has at most {MAX_CUSTOM_GPUS} of each",
                gpus.len(),
                nics.len()
            ),
        ));
    }
    // GPUs in CUDA device order when every <gpu> has a distinct dev, else in file order.
    let mut devs: Vec<Option<u32>> = gpus.iter().map(|g| g.dev).collect();
    crate::sort::sort(&mut devs);
    devs.dedup();
    if devs.len() == gpus.len() && devs.iter().all(Option::is_some) {
        crate::sort::by_key(&mut gpus, |g| g.dev);
    } else if !gpus.is_empty() {
        r.notes.push("the <gpu> elements lack distinct dev attributes: GPUs numbered in file order".into());
    }
    if let Some(&(first, _)) = sm.first() {
        if let Some(&(other, at)) = sm.iter().find(|(v, _)| *v != first) {
            return Err(error(
                at,
                format!(
                    "GPUs of SM {first} and SM {other} in one node: the model's nodes have one GPU model"
                ),
            ));
        }
        r.sm = Some(first);
    }
    let n = gpus.len();
    r.gpus = n as u32;
    r.switch_links = vec![0; n];
    for a in 0..n {
        for (target, count, tclass) in &gpus[a].nvlinks {
            if tclass == "0x068000" {
                r.switch_links[a] += count;
            } else if let Some(b) = gpus.iter().position(|g| !g.busid.is_empty() && &g.busid == target) {
                if b == a || *count == 0 {
                    continue;
                }
                let (x, y) = (a.min(b) as u32, a.max(b) as u32);
                match r.nvlinks.iter_mut().find(|l| (l[0], l[1]) == (x, y)) {
                    // Both ends list the pair; keep the larger count.
                    Some(l) => l[2] = l[2].max(*count),
                    None => r.nvlinks.push([x, y, *count]),
                }
            } else {
                r.notes.push(format!(
                    "line {}: GPU {a}'s NVLink to {target} (class {tclass}) reaches neither a GPU of the file nor an NVSwitch: left out",
                    gpus[a].line
                ));
            }
        }
    }
    crate::sort::sort(&mut r.nvlinks);
    if r.switch_links.iter().any(|&l| l > 0) && !r.nvlinks.is_empty() {
        return Err(error(
            gpus[0].line,
            "GPUs with links into an NVSwitch and direct NVLinks both: the model's node has one or the other",
        ));
    }
    r.sockets = cpus.len() as u32;
    r.pcie_switches = switch_socket;
    r.gpu_switch = gpus.iter().map(|g| g.switch).collect();
    r.nic_switch = nics.iter().map(|n| n.0).collect();
    r.nic_gbit = nics.iter().filter_map(|n| n.1).collect();
    if let Some(&(_, _, at)) = nics.iter().find(|n| n.1.is_none()) {
        r.notes.push(format!(
            "line {at}: a <net> without a speed: the others' rate, or the one given, stands for it"
        ));
    }
    r.pcie_generation = pcie;
    crate::sort::by(&mut unknown, &mut |a, b| a.0.cmp(&b.0));
    unknown.dedup_by(|a, b| a.0 == b.0);
    for (name, at) in unknown {
        r.notes.push(format!("line {at}: <{name}> is not part of the model: left out"));
    }
    Ok(r)
}

/// The PCIe generation of a `link_speed` ("32.0 GT/s PCIe": 5).
fn generation(speed: &str) -> Option<u32> {
    let rate: f64 = speed.split_whitespace().next()?.parse().ok()?;
    Some(match rate {
        r if r >= 60.0 => 6,
        r if r >= 30.0 => 5,
        r if r >= 15.0 => 4,
        _ => 3,
    })
}
