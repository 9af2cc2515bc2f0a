//! `nvidia-smi topo -m`: a matrix of how each pair of devices is joined.
//!
//! ```text
//!         GPU0    GPU1    NIC0    NIC1    CPU Affinity    NUMA Affinity   GPU NUMA ID
//! GPU0     X      NV18    PIX     SYS     0-47            0               N/A
//! GPU1    NV18     X      SYS     PIX     48-95           1               N/A
//! NIC0    PIX     SYS      X      SYS
//! NIC1    SYS     PIX     SYS      X
//!
//! Legend:  X = Self, SYS, NODE, PHB, PXB, PIX, NV# (a bonded set of # NVLinks)
//! NIC Legend:  NIC0: mlx5_0 …
//! ```
//!
//! Columns may be separated by tabs or spaces; older drivers name NIC columns by device
//! (`mlx5_0`) and print `SOC` for `SYS`. Lines before the header (a shell prompt) and after the
//! rows (the legends) are skipped. A row with a cell the legend does not know, a missing row,
//! or two cells that disagree about one pair is an error naming its line.

use super::{error, Groups, ImportError, Reading, MOST_NVLINKS};
use crate::limits::{MAX_CUSTOM_GPUS, MAX_SOCKETS};

/// How two devices are joined (the matrix's legend).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Link {
    Own,
    Nv(u32),
    /// PIX or PXB: through PCIe bridges only.
    Bridge,
    /// PHB or NODE: through the CPU's root complex.
    Host,
    /// SYS: across the socket link.
    Sys,
}

fn cell(text: &str) -> Option<Link> {
    Some(match text {
        "X" => Link::Own,
        "PIX" | "PXB" => Link::Bridge,
        "PHB" | "NODE" => Link::Host,
        "SYS" | "SOC" => Link::Sys,
        _ => match text.strip_prefix("NV").map(str::parse::<u32>) {
            Some(Ok(n)) if (1..=MOST_NVLINKS).contains(&n) => Link::Nv(n),
            _ => return None,
        },
    })
}

/// Header words that end the device columns ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID").
fn ends_devices(word: &str) -> bool {
    matches!(word, "CPU" | "NUMA" | "GPU" | "Affinity" | "ID")
}

fn is_gpu(name: &str) -> bool {
    name.strip_prefix("GPU").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

pub(super) fn read(text: &str) -> Result<Reading, Vec<ImportError>> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(header) = lines.iter().position(|l| l.split_whitespace().next().is_some_and(is_gpu)) else {
        return Err(error(
            0,
            "no matrix header (a line of GPU0 GPU1 …): paste the whole output of nvidia-smi topo -m, or NCCL's topology XML",
        ));
    };
    let words: Vec<&str> = lines[header].split_whitespace().collect();
    let names: Vec<&str> = words.iter().copied().take_while(|w| !ends_devices(w) || is_gpu(w)).collect();
    let tail = words[names.len()..].join(" ");
    let numa_column = tail.contains("NUMA Affinity").then(|| usize::from(tail.contains("CPU Affinity")));
    let gpus: Vec<usize> = (0..names.len()).filter(|&i| is_gpu(names[i])).collect();
    let nics: Vec<usize> = (0..names.len()).filter(|&i| !is_gpu(names[i])).collect();
    if gpus.len() as u32 > MAX_CUSTOM_GPUS || nics.len() as u32 > MAX_CUSTOM_GPUS {
        return Err(error(
            header + 1,
            format!(
                "{} GPUs and {} NICs: a node has at most {MAX_CUSTOM_GPUS} of each",
                gpus.len(),
                nics.len()
            ),
        ));
    }
    // Columns in the model's order: GPUs, then NICs.
    let order: Vec<usize> = gpus.iter().chain(&nics).copied().collect();
    let d = names.len();
    let mut links = vec![vec![None::<(Link, usize)>; d]; d];
    let mut numa: Vec<Option<u32>> = vec![None; d];
    let mut seen = vec![None::<usize>; d];
    let mut problems = Vec::new();
    for (at, line) in lines.iter().enumerate().skip(header + 1) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = words.first() else {
            if seen.iter().all(Option::is_some) {
                break;
            }
            continue;
        };
        if first.starts_with("Legend") || first.starts_with("NIC") && words.get(1) == Some(&"Legend:") {
            break;
        }
        let Some(row) = names.iter().position(|n| n == first) else {
            if seen.iter().any(Option::is_some) && seen.iter().any(Option::is_none) {
                problems.push(ImportError {
                    line: at + 1,
                    problem: format!("'{first}' is not a device of the header ({})", names.join(" ")),
                });
            }
            continue;
        };
        if let Some(before) = seen[row] {
            problems.push(ImportError {
                line: at + 1,
                problem: format!("{first} has a row already, on line {}", before + 1),
            });
            continue;
        }
        seen[row] = Some(at);
        if words.len() < d + 1 {
            problems.push(ImportError {
                line: at + 1,
                problem: format!("{first}'s row has {} cells; the header has {d} devices", words.len() - 1),
            });
            continue;
        }
        for col in 0..d {
            match cell(words[col + 1]) {
                Some(Link::Own) if col != row => problems.push(ImportError {
                    line: at + 1,
                    problem: format!("{first} to {}: X is a device to itself", names[col]),
                }),
                Some(link) if col == row && link != Link::Own => problems.push(ImportError {
                    line: at + 1,
                    problem: format!("{first} to itself should be X, not {}", words[col + 1]),
                }),
                Some(link) => links[row][col] = Some((link, at)),
                None => problems.push(ImportError {
                    line: at + 1,
                    problem: format!(
                        "{first} to {}: '{}' is not in the legend (X, NV#, PIX, PXB, PHB, NODE, SYS)",
                        names[col],
                        words[col + 1]
                    ),
                }),
            }
        }
        if let Some(column) = numa_column {
            numa[row] = words.get(d + 1 + column).and_then(|w| w.parse().ok());
        }
    }
    if let Some(missing) = (0..d).find(|&i| seen[i].is_none()) {
        problems.push(ImportError {
            line: header + 1,
            problem: format!("the header lists {} but no row for it follows", names[missing]),
        });
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let link = |a: usize, b: usize| links[a][b].expect("every row read").0;
    for a in 0..d {
        for b in a + 1..d {
            let (x, y) = (links[a][b].expect("read"), links[b][a].expect("read"));
            if x.0 != y.0 {
                return Err(error(
                    y.1 + 1,
                    format!(
                        "{} to {} differs from {} to {} on line {}",
                        names[b],
                        names[a],
                        names[a],
                        names[b],
                        x.1 + 1
                    ),
                ));
            }
            if matches!(x.0, Link::Nv(_)) && !(is_gpu(names[a]) && is_gpu(names[b])) {
                return Err(error(x.1 + 1, format!("{} to {}: NVLink joins GPUs only", names[a], names[b])));
            }
        }
    }
    let mut r = Reading { source: "nvidia-smi topo -m", gpus: gpus.len() as u32, ..Reading::default() };
    // NVLink: every pair the same NV# with more links than a GPU has in all is an NVSwitch.
    let pairs: Vec<(u32, u32, Link)> = (0..gpus.len())
        .flat_map(|a| (a + 1..gpus.len()).map(move |b| (a as u32, b as u32)))
        .map(|(a, b)| (a, b, link(gpus[a as usize], gpus[b as usize])))
        .collect();
    let n = gpus.len() as u32;
    match pairs.first().map(|p| p.2) {
        Some(Link::Nv(k))
            if n >= 3 && k * (n - 1) > MOST_NVLINKS && pairs.iter().all(|p| p.2 == Link::Nv(k)) =>
        {
            r.switch_links = vec![k; gpus.len()];
            r.notes.push(format!(
                "every GPU pair shows NV{k}, more links than a GPU has in all: an NVSwitch, {k} NVLinks from each GPU"
            ));
        }
        _ => {
            r.switch_links = vec![0; gpus.len()];
            r.nvlinks = pairs
                .iter()
                .filter_map(|&(a, b, l)| match l {
                    Link::Nv(k) => Some([a, b, k]),
                    _ => None,
                })
                .collect();
        }
    }
    // PCIe: bridges join a switch; bridges and host bridges join a socket, as does a NUMA node.
    let mut switch = Groups::new(d);
    let mut socket = Groups::new(d);
    let any_sys = (0..d).any(|a| (0..d).any(|b| link(a, b) == Link::Sys));
    for a in 0..d {
        for b in a + 1..d {
            match link(a, b) {
                Link::Bridge => {
                    switch.join(a, b);
                    socket.join(a, b);
                }
                Link::Host => socket.join(a, b),
                _ => {}
            }
            if !any_sys || matches!((numa[a], numa[b]), (Some(x), Some(y)) if x == y) {
                socket.join(a, b);
            }
        }
    }
    // Every relation the matrix states must be the one the groups make.
    for a in 0..d {
        for b in a + 1..d {
            let (same_switch, same_socket) =
                (switch.root(a) == switch.root(b), socket.root(a) == socket.root(b));
            let stated = link(a, b);
            let wrong = match stated {
                Link::Bridge => false,
                Link::Host => same_switch,
                Link::Sys => same_socket,
                Link::Nv(_) | Link::Own => false,
            };
            if wrong {
                return Err(error(
                    links[a][b].expect("read").1 + 1,
                    format!(
                        "{} to {} is {stated:?}, but the other cells put them on one {}",
                        names[a],
                        names[b],
                        if same_switch { "PCIe switch" } else { "socket" }
                    ),
                ));
            }
        }
    }
    // Number switches and sockets in the model's order (GPUs first), and each switch's socket.
    let mut switch_of = vec![u32::MAX; d];
    let mut socket_of = vec![u32::MAX; d];
    let (mut switches, mut sockets) = (Vec::<usize>::new(), Vec::<usize>::new());
    for &i in &order {
        let (sw, so) = (switch.root(i), socket.root(i));
        let next = |list: &mut Vec<usize>, root| match list.iter().position(|&x| x == root) {
            Some(p) => p as u32,
            None => {
                list.push(root);
                list.len() as u32 - 1
            }
        };
        switch_of[i] = next(&mut switches, sw);
        socket_of[i] = next(&mut sockets, so);
    }
    if sockets.len() as u32 > MAX_SOCKETS {
        return Err(error(
            header + 1,
            format!(
                "the matrix makes {} sockets (NUMA nodes); the model takes at most {MAX_SOCKETS}",
                sockets.len()
            ),
        ));
    }
    r.sockets = sockets.len() as u32;
    r.pcie_switches = switches
        .iter()
        .map(|&root| socket_of[(0..d).find(|&i| switch.root(i) == root).expect("a member")])
        .collect();
    r.gpu_switch = gpus.iter().map(|&i| switch_of[i]).collect();
    r.nic_switch = nics.iter().map(|&i| switch_of[i]).collect();
    if r.sockets > 1 {
        r.notes.push(format!(
            "{} NUMA nodes, each a CPU socket joined to the next by a UPI-class link",
            r.sockets
        ));
    }
    Ok(r)
}
