//! Servers read from the files people have: `nvidia-smi topo -m` (`matrix.rs`) and the
//! topology NCCL dumps with `NCCL_TOPO_DUMP_FILE` (`xml.rs`). Either becomes an
//! `ImportedNode`, the scenario's description of one server: its GPUs, the NVLinks between
//! them or into an NVSwitch, its PCIe switches, NIC ports and CPU sockets.
//!
//! What the file does not say is not guessed: the matrix names no GPU model and no NIC speed,
//! so those come from the caller (`ImportOptions`) or the import fails saying which to give;
//! the XML has both (the GPU by its SM version and NVLink count). Every choice the reader makes
//! that the file did not spell out (an SM version several GPUs share, the PCIe generation of a
//! matrix, a GPU with fewer NVLinks than its peers) is a note in `Imported::notes`. An
//! unreadable file or line is an `ImportError` naming its line; nothing panics and the input is
//! capped at `MAX_IMPORT_BYTES` (`tests/fuzz_import.rs`).
//!
//! The model's PCIe tree has two levels: devices that the matrix shows as `PIX` or `PXB` (one
//! or several PCIe bridges, no host bridge) share a PCIe switch; `PHB` and `NODE` cross the
//! CPU's root complex (one latency for both); `SYS` crosses the socket link. Each NUMA node is
//! a socket.

mod matrix;
mod xml;

use crate::catalog::{gpu_by_id, Gpu, GPU_IDS};
use crate::scenario::ImportedNode;
use serde::Serialize;

/// Largest file the readers take [B] (a topology is a few kB).
pub const MAX_IMPORT_BYTES: usize = 1 << 20;

/// What the caller knows that the file may not say.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImportOptions {
    /// The GPU model, by catalog id ("h100"); overrides what the file implies.
    pub gpu: Option<String>,
    /// Each NIC port's line rate [Gb/s]; overrides the file's.
    pub nic_gbit_per_s: Option<f64>,
}

/// A node read from a file, with what the reader chose that the file did not say.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Imported {
    pub node: ImportedNode,
    pub notes: Vec<String>,
}

/// Why a file did not import: its line (1-based; 0 for the file as a whole) and the problem.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImportError {
    pub line: usize,
    pub problem: String,
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            0 => write!(f, "{}", self.problem),
            line => write!(f, "line {line}: {}", self.problem),
        }
    }
}

fn error(line: usize, problem: impl Into<String>) -> Vec<ImportError> {
    vec![ImportError { line, problem: problem.into() }]
}

/// The two formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Format {
    /// `nvidia-smi topo -m`.
    TopoMatrix,
    /// NCCL's topology XML (`NCCL_TOPO_DUMP_FILE`).
    NcclXml,
}

/// Which format a text is in, by its first non-blank character: `<` is XML.
pub fn detect(text: &str) -> Format {
    match text.trim_start().starts_with('<') {
        true => Format::NcclXml,
        false => Format::TopoMatrix,
    }
}

/// What a reader found, before the GPU model and NIC speed are settled.
#[derive(Clone, Debug, Default)]
struct Reading {
    source: &'static str,
    gpus: u32,
    /// Per GPU: NVLinks into an NVSwitch.
    switch_links: Vec<u32>,
    nvlinks: Vec<[u32; 3]>,
    sockets: u32,
    pcie_switches: Vec<u32>,
    gpu_switch: Vec<u32>,
    nic_switch: Vec<u32>,
    /// The GPUs' SM version (XML).
    sm: Option<u32>,
    /// The NIC ports' speeds [Gb/s] (XML).
    nic_gbit: Vec<f64>,
    /// The GPUs' PCIe generation (XML).
    pcie_generation: Option<u32>,
    notes: Vec<String>,
}

/// Reads `text` in whichever format it is in.
pub fn import(text: &str, options: &ImportOptions) -> Result<Imported, Vec<ImportError>> {
    if text.len() > MAX_IMPORT_BYTES {
        return Err(error(
            0,
            format!(
                "the file has {} bytes; a topology has a few thousand (at most {MAX_IMPORT_BYTES})",
                text.len()
            ),
        ));
    }
    let reading = match detect(text) {
        Format::TopoMatrix => matrix::read(text)?,
        Format::NcclXml => xml::read(text)?,
    };
    finish(reading, options)
}

/// The most NVLinks any GPU has (H100, B200: 18); a GPU that shows more to its peers is
/// counting links into an NVSwitch.
const MOST_NVLINKS: u32 = 18;

/// Settles the GPU model, the NIC speed and the PCIe generation, noting each choice.
fn finish(mut r: Reading, options: &ImportOptions) -> Result<Imported, Vec<ImportError>> {
    if r.gpus == 0 {
        return Err(error(0, format!("no GPU in the file ({})", r.source)));
    }
    if r.nic_switch.is_empty() {
        return Err(error(
            0,
            "no NIC in the file: the model joins nodes through their NICs; list at least one (the matrix's NIC rows, the XML's <net>)",
        ));
    }
    // NVSwitch links: one count for every GPU; a GPU with fewer is noted, as a fault to add.
    let switch_links = r.switch_links.iter().copied().max().unwrap_or(0);
    for (g, &links) in r.switch_links.iter().enumerate() {
        if links < switch_links {
            r.notes.push(format!(
                "GPU {g} has {links} NVLinks into the NVSwitch, the others {switch_links}: the node gives each GPU {switch_links}; to model this GPU, add the fault nvlink:NODE:{g}:{:.3}",
                links as f64 / switch_links as f64
            ));
        }
    }
    let per_gpu = |g: u32| -> u32 {
        switch_links + r.nvlinks.iter().filter(|l| l[0] == g || l[1] == g).map(|l| l[2]).sum::<u32>()
    };
    let most = (0..r.gpus).map(per_gpu).max().unwrap_or(0);
    let gpu = match &options.gpu {
        Some(id) => match gpu_by_id(id) {
            Some((gpu, pcie)) => (id.to_ascii_lowercase(), gpu, pcie),
            None => {
                let known: Vec<&str> = GPU_IDS.iter().map(|g| g.0).collect();
                return Err(error(0, format!("unknown GPU '{id}'; use one of: {}", known.join(", "))));
            }
        },
        None => pick_gpu(r.sm, r.source, most, &mut r.notes)?,
    };
    let (id, model, host_pcie) = gpu;
    if most > model.nvlink_links {
        return Err(error(
            0,
            format!(
                "a GPU here has {most} NVLinks; an {} has {} (another GPU model?)",
                model.name, model.nvlink_links
            ),
        ));
    }
    let pcie_generation = match r.pcie_generation {
        Some(generation) => generation,
        None => {
            r.notes.push(format!(
                "the file does not give the PCIe generation: {host_pcie}.0 x16, the {}'s host link",
                model.name
            ));
            host_pcie
        }
    };
    let nic_gbit_per_s = match (options.nic_gbit_per_s, most_common(&r.nic_gbit)) {
        (Some(rate), _) => rate,
        (None, Some(rate)) => {
            if r.nic_gbit.iter().any(|&s| s != rate) {
                let speeds: Vec<String> = r.nic_gbit.iter().map(|s| format!("{s}")).collect();
                r.notes.push(format!(
                    "the NIC ports run at {} Gb/s; the model gives every port one rate, the most common: {rate} Gb/s",
                    speeds.join(", ")
                ));
            }
            rate
        }
        (None, None) => {
            return Err(error(
                0,
                format!(
                "{} does not give the NICs' speed: give it (--nic-gbit 400 for NDR InfiniBand or 400 GbE)",
                r.source
            ),
            ))
        }
    };
    Ok(Imported {
        node: ImportedNode {
            source: r.source.into(),
            gpu: id,
            gpus: r.gpus,
            nvswitch_links: switch_links,
            nvlinks: r.nvlinks,
            pcie_generation,
            sockets: r.sockets,
            pcie_switches: r.pcie_switches,
            gpu_switch: r.gpu_switch,
            nic_switch: r.nic_switch,
            nic_gbit_per_s,
        },
        notes: r.notes,
    })
}

/// The GPU an XML's SM version and NVLink count point to: the catalog's models of that
/// architecture with at least `links` NVLinks, exact counts first; the choice is noted when
/// others match too. The matrix names no model, so it must be given.
fn pick_gpu(
    sm: Option<u32>,
    source: &str,
    links: u32,
    notes: &mut Vec<String>,
) -> Result<(String, Gpu, u32), Vec<ImportError>> {
    let Some(sm) = sm else {
        let matching: Vec<&str> =
            GPU_IDS.iter().filter(|(_, gpu, _)| gpu.nvlink_links == links).map(|g| g.0).collect();
        let hint = match links {
            0 => "no NVLink".to_string(),
            _ if matching.is_empty() => format!("{links} NVLinks per GPU"),
            _ => format!("{links} NVLinks per GPU: {}", matching.join(", ")),
        };
        return Err(error(
            0,
            format!("{source} does not name the GPU model: give it (--gpu on the command line; {hint})"),
        ));
    };
    let arch: &[&str] = match sm {
        70 => &["v100"],
        80 => &["a100", "a800"],
        90 => &["h100", "h800", "h200", "h20", "h100-pcie"],
        100 => &["b200", "gb200"],
        103 => &["b300"],
        _ => {
            return Err(error(
                0,
                format!("no GPU in the catalog has SM version {sm}: give the model (--gpu)"),
            ))
        }
    };
    let mut candidates: Vec<(&str, Gpu, u32)> = GPU_IDS
        .iter()
        .filter(|(id, gpu, _)| {
            arch.contains(id) && gpu.nvlink_links >= links && (links > 0) == (gpu.nvlink_links > 0)
        })
        .map(|&(id, gpu, pcie)| (id, gpu, pcie))
        .collect();
    crate::sort::by_key(&mut candidates, |(_, gpu, _)| gpu.nvlink_links != links);
    let Some(&(id, gpu, pcie)) = candidates.first() else {
        return Err(error(
            0,
            format!("no GPU of SM version {sm} in the catalog has {links} NVLinks: give the model (--gpu)"),
        ));
    };
    if candidates.len() > 1 {
        let others: Vec<&str> = candidates[1..].iter().map(|c| c.0).collect();
        notes.push(format!(
            "SM {sm} with {links} NVLinks per GPU: {} taken; {} match too (--gpu to choose)",
            gpu.name,
            others.join(", ")
        ));
    }
    Ok((id.to_string(), gpu, pcie))
}

fn most_common(values: &[f64]) -> Option<f64> {
    let mut best: Option<(f64, usize)> = None;
    for &v in values {
        let count = values.iter().filter(|&&w| w == v).count();
        if best.is_none_or(|(b, c)| count > c || (count == c && v > b)) {
            best = Some((v, count));
        }
    }
    best.map(|(v, _)| v)
}

/// Union-find over device indices, numbering groups in order of first appearance.
#[derive(Clone, Debug)]
struct Groups {
    parent: Vec<usize>,
}

impl Groups {
    fn new(n: usize) -> Groups {
        Groups { parent: (0..n).collect() }
    }

    fn root(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        self.parent[a.max(b)] = a.min(b);
    }
}
