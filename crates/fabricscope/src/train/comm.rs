//! A training step's communication as real collectives on the real cluster.
//!
//! Each kind of operation (the TP AllReduce of one layer, the PP send of one micro-batch's
//! activations, the DP gradient reduction, ...) runs once through the engine with *every*
//! group doing it at the same time, as they do in a step: groups whose traffic shares a link
//! (two TP groups through one NIC, DP groups through one spine) contend there. The op's time
//! is the engine's makespan, launch latency included; the step model multiplies it by how many
//! times a step calls it.
//!
//! Group schedules come from the same generators as the page's collectives (verified on data
//! by the collective tests), built for the group's own shape and renumbered onto its global
//! ranks: a group with `g` GPUs in each of `k` nodes is a `k`-node ring over those GPUs (a
//! whole node's GPUs in the preset's NVLink ring order), so a TP group inside a node is the
//! single-node ring and a DP group with one GPU per node is a ring across the network.

use crate::collective::{schedule_with, Algorithm, Protocol, Schedule, Transfer, ELEM_BYTES};
use crate::engine::groups::Member;
use crate::limits::MAX_TRANSFERS;
use crate::plan::ValidScenario;
use crate::scenario::Collective;
use crate::topology::Topology;
use serde::{Deserialize, Serialize};
use std::cell::OnceCell;

/// One simulated operation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpTiming {
    /// Time of one call with every group at once [ns].
    pub time_ns: u64,
    /// Transfers of the whole operation (an extrapolated one ran a prefix of them).
    pub transfers: u64,
    /// Whether any group's traffic leaves a node.
    pub crosses_nodes: bool,
    /// How the time was obtained.
    pub method: OpMethod,
}

/// How an operation's time was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpMethod {
    /// Every transfer simulated (folded where groups or channels are proved images: exact).
    Exact,
    /// A ring beyond the engine: its first steps simulated, every group at once, the rest at the
    /// per-step time measured on them (`prefix`), within `prefix::EXTRAPOLATED_BOUND`.
    Extrapolated(super::prefix::RingPrefix),
}

/// Appends `part` to `into`, its ranks renumbered by `rank` and its dependencies by the offset.
fn append(into: &mut Vec<Transfer>, part: Vec<Transfer>, rank: impl Fn(u32) -> u32) {
    let offset = into.len() as u32;
    into.extend(part.into_iter().map(|mut t| {
        t.src = rank(t.src);
        t.dst = rank(t.dst);
        t.deps.iter_mut().for_each(|d| *d += offset);
        t.after = t.after.map(|a| a + offset);
        t
    }));
}

/// The local-rank → global-rank map and the ring orders for a group: `(nodes, rings, map)`.
fn group_shape(valid: &ValidScenario, members: &[u32]) -> (u32, Vec<Vec<u32>>, Vec<u32>) {
    let g_node = valid.preset().gpus_per_node;
    let mut by_node: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut sorted = members.to_vec();
    sorted.sort_unstable();
    for &rank in &sorted {
        let node = rank / g_node;
        match by_node.last_mut() {
            Some((n, list)) if *n == node => list.push(rank),
            _ => by_node.push((node, vec![rank])),
        }
    }
    let per_node = by_node[0].1.len() as u32;
    let rings: Vec<Vec<u32>> =
        if per_node == g_node { valid.preset().rings.clone() } else { vec![(0..per_node).collect()] };
    // Local rank node_i × per_node + j is the j-th member (by GPU index) of the group's node_i.
    let map: Vec<u32> = by_node.iter().flat_map(|(_, list)| list.iter().copied()).collect();
    (by_node.len() as u32, rings, map)
}

/// True when every group has the same number of GPUs in each of its nodes (what the ring
/// generators need); layouts that split a node unevenly between groups are rejected.
pub fn groups_are_regular(valid: &ValidScenario, groups: &[Vec<u32>]) -> bool {
    let g_node = valid.preset().gpus_per_node;
    groups.iter().all(|members| {
        let mut counts = std::collections::BTreeMap::new();
        for &r in members {
            *counts.entry(r / g_node).or_insert(0u32) += 1;
        }
        let first = counts.values().next().copied().unwrap_or(0);
        counts.values().all(|&c| c == first)
    })
}

/// Transfers a collective over `groups` would have, to check against the engine's cap first
/// (an AllReduce's the larger of the ring it runs and a Tree in Simple's chunks, a margin).
pub fn collective_transfers(collective: Collective, groups: &[Vec<u32>], bytes: u64, channels: u32) -> u64 {
    groups
        .iter()
        .map(|g| {
            crate::collective::transfer_count(
                collective,
                (1, g.len() as u32),
                (bytes / ELEM_BYTES).max(1),
                channels,
                Some(Protocol::Simple),
            )
        })
        .sum()
}

/// One operation's transfers, every group at once, ready to run alone or beside others.
#[derive(Clone)]
pub struct Traffic {
    collective: Collective,
    algorithm: Algorithm,
    count: u64,
    /// Every transfer; where the traffic is kept by group, built only when a run needs them all.
    transfers: OnceCell<Vec<Transfer>>,
    /// A collective's traffic group by group (`collective_traffic`): each group shape's local
    /// schedule, and each group's shape and ranks (`engine::groups::Member`).
    groups: Option<(Vec<Vec<Transfer>>, Vec<Member>)>,
    crosses_nodes: bool,
    /// A ring beyond the engine: each shape's schedule is its first steps (`prefix`), and the
    /// whole operation's transfers.
    prefix: Option<(super::prefix::RingPrefix, u64)>,
}

impl Traffic {
    fn flat(
        collective: Collective,
        algorithm: Algorithm,
        count: u64,
        transfers: Vec<Transfer>,
        crosses_nodes: bool,
    ) -> Traffic {
        Traffic {
            collective,
            algorithm,
            count,
            transfers: OnceCell::from(transfers),
            groups: None,
            crosses_nodes,
            prefix: None,
        }
    }

    /// Where the groups' rings are beyond the engine: the prefix each runs, and the whole
    /// operation's transfers.
    pub fn prefix(&self) -> Option<(super::prefix::RingPrefix, u64)> {
        self.prefix
    }

    /// How many groups it runs.
    pub(super) fn n_groups(&self) -> usize {
        self.groups.as_ref().map_or(1, |(_, members)| members.len())
    }

    /// How many transfers it runs (an extrapolated ring's prefix: `prefix` has the whole's).
    pub fn transfers(&self) -> u64 {
        match (&self.groups, self.transfers.get()) {
            (_, Some(all)) => all.len() as u64,
            (Some((shapes, members)), None) => {
                members.iter().map(|(shape, _)| shapes[*shape].len() as u64).sum()
            }
            (None, None) => 0,
        }
    }

    /// Every transfer, group after group.
    fn all(&self) -> &[Transfer] {
        self.transfers.get_or_init(|| {
            let mut all = Vec::new();
            if let Some((shapes, members)) = &self.groups {
                for (shape, map) in members {
                    append(&mut all, shapes[*shape].clone(), |r| map[r as usize]);
                }
            }
            all
        })
    }

    /// Every transfer, group after group, taken: the last group of each shape takes its
    /// shape's transfers rather than a copy (one data-parallel group: nothing copied).
    fn into_all(self) -> Vec<Transfer> {
        if let Some(all) = self.transfers.into_inner() {
            return all;
        }
        let mut all = Vec::new();
        if let Some((mut shapes, members)) = self.groups {
            let mut left = vec![0usize; shapes.len()];
            members.iter().for_each(|(shape, _)| left[*shape] += 1);
            for (shape, map) in &members {
                left[*shape] -= 1;
                let part = match left[*shape] {
                    0 => std::mem::take(&mut shapes[*shape]),
                    _ => shapes[*shape].clone(),
                };
                append(&mut all, part, |r| map[r as usize]);
            }
        }
        all
    }

    /// The same operation with only the groups that stand for all the others
    /// (`engine::groups::representatives`, on `topology` under `valid`'s routing), where that
    /// is proved and leaves some out: its time is the whole operation's.
    pub fn representatives(&self, valid: &ValidScenario, topology: &Topology) -> Option<Traffic> {
        let (shapes, members) = self.groups.as_ref()?;
        let reps = crate::engine::groups::representatives(topology, valid.policy(), shapes, members)?;
        Some(Traffic {
            transfers: OnceCell::new(),
            groups: Some((shapes.clone(), reps.iter().map(|&r| members[r].clone()).collect())),
            ..*self
        })
    }

    /// The ranks of each group it holds (none where it is not kept by group).
    pub fn group_sizes(&self) -> Vec<u64> {
        self.groups
            .as_ref()
            .map_or(Vec::new(), |(_, members)| members.iter().map(|(_, r)| r.len() as u64).collect())
    }

    /// Whether any group's traffic leaves a node.
    pub fn crosses_nodes(&self) -> bool {
        self.crosses_nodes
    }

    /// The same bytes on the same sender → receiver pairs and channels, each pair's as one flow
    /// from the start: a collective's steps and their pauses dropped, what each link carries
    /// kept. Cheap to run beside other traffic where the steps themselves would be thousands of
    /// events.
    pub fn coarsened(&self) -> Traffic {
        let mut totals: std::collections::BTreeMap<(u32, u32, u32), u64> = std::collections::BTreeMap::new();
        for t in self.all() {
            *totals.entry((t.channel, t.src, t.dst)).or_insert(0) += t.len;
        }
        // A ring's prefix: its steps carry the same bytes on the same connections, so the whole
        // ring's are the prefix's per step times its steps.
        let (per, of) = self.prefix.map_or((1, 1), |(p, _)| (p.steps as u64, p.total_steps as u64));
        let transfers = totals
            .into_iter()
            .map(|((channel, src, dst), len)| Transfer::copy(channel, src, dst, 0, len / per * of))
            .collect();
        Traffic::flat(Collective::SendRecv, Algorithm::Direct, self.count, transfers, self.crosses_nodes)
    }
}

/// `collective` of `bytes` per group (nccl-tests' size convention), every group at once: where
/// one group's ring is beyond the engine (`MAX_TRANSFERS`), each group's first steps
/// (`prefix`), to be extrapolated.
pub fn collective_traffic(
    valid: &ValidScenario,
    collective: Collective,
    groups: &[Vec<u32>],
    bytes: u64,
) -> Traffic {
    collective_traffic_within(valid, collective, groups, bytes, MAX_TRANSFERS)
}

/// `collective_traffic`, a group's ring beyond `limit` transfers cut to its prefix (a test
/// compares the two where both run).
pub fn collective_traffic_within(
    valid: &ValidScenario,
    collective: Collective,
    groups: &[Vec<u32>],
    bytes: u64,
    limit: u64,
) -> Traffic {
    let count = (bytes / ELEM_BYTES).max(1);
    let channels = valid.channels();
    let prefix = groups
        .iter()
        .find(|g| {
            g.len() > 1 && collective_transfers(collective, std::slice::from_ref(g), bytes, channels) > limit
        })
        .and_then(|g| super::prefix::plan(collective, g.len() as u32, count, channels).ok());
    collective_traffic_cut(valid, collective, groups, bytes, prefix)
}

/// A step's `collective` of `bytes` per group, every group at once, as it runs within the
/// engine's limit on `topology` (`cut::ring_cut`): whole, or each group's first steps.
pub fn step_traffic(
    valid: &ValidScenario,
    topology: &Topology,
    collective: Collective,
    groups: &[Vec<u32>],
    bytes: u64,
) -> Traffic {
    let cut = super::cut::ring_cut(valid, topology, collective, groups, bytes).ok();
    collective_traffic_cut(valid, collective, groups, bytes, cut.and_then(|cut| cut.prefix))
}

/// `collective` of `bytes` per group, every group at once: whole, or each group's first steps as
/// `prefix` plans them (a test compares the two where both run).
pub fn collective_traffic_cut(
    valid: &ValidScenario,
    collective: Collective,
    groups: &[Vec<u32>],
    bytes: u64,
    prefix: Option<super::prefix::RingPrefix>,
) -> Traffic {
    traffic_shaped(valid, collective, groups, bytes, prefix.map_or(Shape::Whole, Shape::Prefix))
}

/// What a `Traffic` of a collective's groups holds of each group's schedule.
#[derive(Clone, Copy, Debug)]
pub(super) enum Shape {
    Whole,
    /// Its first steps (ring collectives only).
    Prefix(super::prefix::RingPrefix),
    /// Its first step alone, a transfer per rank and channel: every connection of its ring.
    FirstStep,
}

/// `collective` of `bytes` per group, every group at once, each group's schedule as `shape` says.
pub(super) fn traffic_shaped(
    valid: &ValidScenario,
    collective: Collective,
    groups: &[Vec<u32>],
    bytes: u64,
    shape: Shape,
) -> Traffic {
    let count = (bytes / ELEM_BYTES).max(1);
    let channels = valid.channels();
    let running: Vec<&Vec<u32>> = groups.iter().filter(|g| g.len() > 1).collect();
    // A prefix's whole: every group's ring, a transfer per rank and channel a step.
    let ring = |g: &Vec<u32>| crate::plan::ring_transfers(collective, g.len() as u32, count, channels);
    let prefix = match shape {
        Shape::Prefix(p) => Some((p, running.iter().map(|g| ring(g)).sum::<u64>())),
        _ => None,
    };
    // One local schedule per group shape (nodes and ring orders), shared by its groups.
    let mut kinds: Vec<(u32, Vec<Vec<u32>>)> = Vec::new();
    let mut shapes: Vec<Vec<Transfer>> = Vec::new();
    let mut members: Vec<Member> = Vec::new();
    let mut crosses_nodes = false;
    for group in running {
        let (nodes, rings, map) = group_shape(valid, group);
        crosses_nodes |= nodes > 1;
        let shape = match kinds.iter().position(|(n, r)| *n == nodes && *r == rings) {
            Some(shape) => shape,
            None => {
                shapes.push(match shape {
                    Shape::Prefix(p) => {
                        let steps = (0, p.steps);
                        crate::collective::ring_prefix_steps(
                            collective, nodes, &rings, p.count, channels, steps,
                        )
                    }
                    Shape::FirstStep => crate::collective::ring_prefix_steps(
                        collective,
                        nodes,
                        &rings,
                        count,
                        channels,
                        (0, 1),
                    ),
                    Shape::Whole => {
                        schedule_with(
                            collective,
                            (Algorithm::Ring, Protocol::Simple),
                            nodes,
                            &rings,
                            count,
                            channels,
                            0,
                        )
                        .transfers
                    }
                });
                kinds.push((nodes, rings));
                shapes.len() - 1
            }
        };
        members.push((shape, map));
    }
    Traffic {
        collective,
        algorithm: Algorithm::Ring,
        count,
        transfers: OnceCell::new(),
        groups: Some((shapes, members)),
        crosses_nodes,
        prefix,
    }
}

/// A mixture-of-experts dispatch with node-limited routing (DeepSeek-V3 §2.1.2 and §3.2.2,
/// its DeepEP kernels), every EP group at once. `bytes` is one GPU's dispatch as a plain
/// AllToAll would send it (each token once per routed expert); each token goes to at most
/// `limit` of its group's `k` nodes, crossing the network once per node to the GPU of the same
/// index there, which forwards it over NVLink to the GPUs holding its experts. In expectation
/// (experts spread evenly, tokens routed evenly): to each other node `bytes / top_k × M / k`
/// over the network (M = min(limit, k)), and to each other GPU of a node `bytes / n` (n = k·g)
/// over NVLink, the forwarded copies carried by the same-index GPU. Both streams run at once,
/// as DeepEP pipelines them. A group inside one node is a plain AllToAll.
pub fn node_limited_traffic(
    valid: &ValidScenario,
    groups: &[Vec<u32>],
    bytes: u64,
    top_k: u32,
    limit: u32,
) -> Traffic {
    let channels = valid.channels() as u64;
    let elements = |b: f64| ((b / ELEM_BYTES as f64).round() as u64).max(1);
    let mut transfers = Vec::new();
    let mut crosses_nodes = false;
    let mut plain = Vec::new();
    for members in groups.iter().filter(|g| g.len() > 1) {
        // The group's members node by node, by GPU index (regular: `groups_are_regular`).
        let (k, _, map) = group_shape(valid, members);
        let (k, g) = (k as usize, map.len() / k as usize);
        let nodes: Vec<&[u32]> = map.chunks(g).collect();
        if k == 1 {
            plain.push(members.clone());
            continue;
        }
        crosses_nodes = true;
        let n = (k * g) as f64;
        let m = limit.min(k as u32) as f64;
        let over_network = elements(bytes as f64 / top_k as f64 * m / k as f64);
        let forwarded = elements(bytes as f64 / n);
        let mut send = |src: u32, dst: u32, len: u64| {
            let per = len.div_ceil(channels);
            for c in 0..channels {
                let offset = (c * per).min(len);
                if len > offset {
                    transfers.push(Transfer::copy(c as u32, src, dst, offset, per.min(len - offset)));
                }
            }
        };
        for (a, here) in nodes.iter().enumerate() {
            for (j, &src) in here.iter().enumerate() {
                for (b, there) in nodes.iter().enumerate() {
                    if a != b {
                        send(src, there[j], over_network);
                    }
                }
                // Inside its node: its own tokens to the other GPUs, and the tokens the other
                // nodes' same-index GPUs sent it, forwarded.
                for (i, &dst) in here.iter().enumerate() {
                    if i != j {
                        send(src, dst, forwarded * k as u64);
                    }
                }
            }
        }
    }
    if !plain.is_empty() {
        let inside = collective_traffic(valid, Collective::AllToAll, &plain, bytes);
        append(&mut transfers, inside.all().to_vec(), |r| r);
    }
    Traffic::flat(Collective::AllToAll, Algorithm::Ring, elements(bytes as f64), transfers, crosses_nodes)
}

/// Point-to-point sends `(src, dst)` of `bytes` each, all at once, split over the channels
/// as NCCL splits a large send.
pub fn sends_traffic(valid: &ValidScenario, pairs: &[(u32, u32)], bytes: u64) -> Traffic {
    let channels = valid.channels();
    let count = (bytes / ELEM_BYTES).max(1);
    let per = count.div_ceil(channels as u64);
    let g_node = valid.preset().gpus_per_node;
    let mut transfers = Vec::new();
    let mut crosses_nodes = false;
    for &(src, dst) in pairs {
        crosses_nodes |= src / g_node != dst / g_node;
        for c in 0..channels {
            let offset = (c as u64 * per).min(count);
            let len = per.min(count - offset);
            transfers.push(Transfer::copy(c, src, dst, offset, len));
        }
    }
    Traffic::flat(Collective::SendRecv, Algorithm::Direct, count, transfers, crosses_nodes)
}

/// `part` alone as one schedule (`combined`'s), its transfers taken rather than copied.
pub(super) fn alone(valid: &ValidScenario, topology: &Topology, part: Traffic) -> Schedule {
    let (collective, algorithm, count) = (part.collective, part.algorithm, part.count);
    schedule_of(valid, topology, (collective, algorithm, count), part.into_all())
}

/// `parts` launched together as one schedule (a step's messages are megabytes: the tuner's
/// choice there is Simple), and each part's range of its transfers.
pub(super) fn combined(
    valid: &ValidScenario,
    topology: &Topology,
    parts: &[&Traffic],
) -> (Schedule, Vec<std::ops::Range<usize>>) {
    let mut transfers = Vec::new();
    let mut ranges = Vec::new();
    for part in parts {
        let start = transfers.len();
        append(&mut transfers, part.all().to_vec(), |r| r);
        ranges.push(start..transfers.len());
    }
    debug_assert!(transfers.len() as u64 <= MAX_TRANSFERS * 8, "checked against the cap before");
    let kind = parts
        .first()
        .map_or((Collective::SendRecv, Algorithm::Direct, 1), |t| (t.collective, t.algorithm, t.count));
    (schedule_of(valid, topology, kind, transfers), ranges)
}

/// `transfers` as the schedule of one engine run of a step (`combined`, `alone`).
fn schedule_of(
    valid: &ValidScenario,
    topology: &Topology,
    (collective, algorithm, count): (Collective, Algorithm, u64),
    transfers: Vec<Transfer>,
) -> Schedule {
    let mut schedule =
        Schedule::new(collective, algorithm, topology.n_gpus(), valid.channels(), count, 1, transfers);
    schedule.protocol = Protocol::Simple;
    schedule.latency = valid.scenario().latency;
    schedule
}
