//! Hierarchical AllReduce: reduce-scatter inside each node over NVLink, AllReduce across nodes
//! per rail over the NICs, all-gather inside each node.
//!
//! ```text
//!   node 0: GPU0 GPU1 … GPU7 ──(1) ring reduce-scatter over NVLink: GPU k holds the node's
//!   node 1: GPU0 GPU1 … GPU7         sum of chunk k
//!             │    │         (2) for each k, a ring AllReduce of chunk k among the nodes' GPU k:
//!             └────┴── rail k     one rail, one NIC per GPU, 1/8 of the data each
//!                            (3) ring all-gather over NVLink: every GPU gets every chunk
//! ```
//!
//! NCCL's own ring instead runs one big ring through every GPU of every node, entering and
//! leaving each node through NICs; it sends each byte across the network `2(n-1)/n` times per
//! channel crossing. Here each byte crosses the network `2(N-1)/N` times for N nodes, on 8
//! rails at once, and the NVLink phases add `2(g-1)/g` of NVLink traffic. It is not an NCCL_ALGO
//! (NCCL's CollNet and NVLS trees are its relatives); it is here to compare.

use super::schedule::Hop;
use super::ring::{ring_order, slice};
use super::schedule::{Algorithm, ChunkOp, Schedule, Transfer};
use crate::scenario::Collective;

/// Hierarchical AllReduce of `count` elements on `nodes` nodes of the `rings` orders' GPUs.
pub fn hierarchical_allreduce<R: AsRef<[u32]>>(nodes: u32, rings: &[R], count: u64, n_channels: u32) -> Schedule {
    let g = rings[0].as_ref().len() as u32;
    let n = nodes * g;
    let mut transfers: Vec<Transfer> = Vec::new();
    let mut n_steps = 0;
    let (a_steps, b_steps) = (g.saturating_sub(1), 2 * nodes.saturating_sub(1));
    let mut push = |transfers: &mut Vec<Transfer>, t: Transfer| -> u32 {
        n_steps = n_steps.max(t.step + 1);
        transfers.push(t);
        transfers.len() as u32 - 1
    };
    for channel in 0..n_channels {
        // The channel's intra-node order (position → local GPU), the same on every node.
        let order: Vec<u32> = ring_order(1, rings, channel);
        let (start, len) = slice(count, n_channels, channel);
        let chunk = |k: u32| -> (u64, u64) {
            let (s, l) = slice(len, g, k);
            (start + s, l)
        };
        let rank = |node: u32, position: u32| node * g + order[position as usize];
        // into[node][position]: every transfer of a phase that writes into that GPU.
        let mut phase_a_into = vec![vec![Vec::<u32>::new(); g as usize]; nodes as usize];
        // (1) Reduce-scatter inside each node: position p adds chunk (p - s - 1) into p+1; after
        // g-1 steps position k holds its node's sum of chunk k.
        for node in 0..nodes {
            let mut previous: Vec<Option<u32>> = vec![None; g as usize];
            for step in 0..g.saturating_sub(1) {
                let mut this = vec![None; g as usize];
                for p in 0..g {
                    let k = (p + 2 * g - step - 1) % g;
                    let (offset, len) = chunk(k);
                    let deps: Vec<u32> = previous[((p + g - 1) % g) as usize].into_iter().collect();
                    let id = push(&mut transfers, Transfer {
                        step,
                        channel,
                        src: rank(node, p),
                        dst: rank(node, (p + 1) % g),
                        chunk: k,
                        offset,
                        src_offset: offset,
                        from_input: false,
                        len,
                        op: ChunkOp::Reduce,
                        deps,
                        after: previous[p as usize],
                        hop: Hop::Peer,
                    });
                    this[p as usize] = Some(id);
                    phase_a_into[node as usize][((p + 1) % g) as usize].push(id);
                }
                previous = this;
            }
        }
        // (2) For each chunk k, a ring AllReduce among the nodes' position-k GPUs.
        let mut phase_b_into = vec![vec![Vec::<u32>::new(); g as usize]; nodes as usize];
        for k in 0..g {
            let (region_start, region_len) = chunk(k);
            let mut previous: Vec<Option<u32>> = vec![None; nodes as usize];
            for step in 0..b_steps {
                let mut this = vec![None; nodes as usize];
                for i in 0..nodes {
                    let (sub, op) = if step + 1 < nodes {
                        ((i + 2 * nodes - step) % nodes, ChunkOp::Reduce)
                    } else {
                        let s = step - (nodes - 1);
                        ((i + 1 + 2 * nodes - s) % nodes, ChunkOp::Copy)
                    };
                    let (s_start, s_len) = slice(region_len, nodes, sub);
                    let to = (i + 1) % nodes;
                    let mut deps: Vec<u32> = previous[((i + nodes - 1) % nodes) as usize].into_iter().collect();
                    if step == 0 {
                        // Both ends hold their node's sum of chunk k before the first exchange.
                        deps.extend(&phase_a_into[i as usize][k as usize]);
                        deps.extend(&phase_a_into[to as usize][k as usize]);
                    }
                    let id = push(&mut transfers, Transfer {
                        step: a_steps + step,
                        channel,
                        src: rank(i, k),
                        dst: rank(to, k),
                        chunk: k,
                        offset: region_start + s_start,
                        src_offset: region_start + s_start,
                        from_input: false,
                        len: s_len,
                        op,
                        deps,
                        after: previous[i as usize],
                        hop: Hop::Peer,
                    });
                    this[i as usize] = Some(id);
                    phase_b_into[to as usize][k as usize].push(id);
                }
                previous = this;
            }
        }
        // (3) All-gather inside each node: position p sends chunk (p - s), complete after (2).
        for node in 0..nodes {
            let mut previous: Vec<Option<u32>> = vec![None; g as usize];
            for step in 0..g.saturating_sub(1) {
                let mut this = vec![None; g as usize];
                for p in 0..g {
                    let k = (p + g - step % g) % g;
                    let (offset, len) = chunk(k);
                    let to = (p + 1) % g;
                    let mut deps: Vec<u32> = previous[((p + g - 1) % g) as usize].into_iter().collect();
                    if step == 0 {
                        // The sender's chunk is final, and the receiver's reduce-scatter is over.
                        deps.extend(&phase_b_into[node as usize][p as usize]);
                        deps.extend(&phase_a_into[node as usize][p as usize]);
                        deps.extend(&phase_a_into[node as usize][to as usize]);
                    }
                    let id = push(&mut transfers, Transfer {
                        step: a_steps + b_steps + step,
                        channel,
                        src: rank(node, p),
                        dst: rank(node, to),
                        chunk: k,
                        offset,
                        src_offset: offset,
                        from_input: false,
                        len,
                        op: ChunkOp::Copy,
                        deps,
                        after: previous[p as usize],
                        hop: Hop::Peer,
                    });
                    this[p as usize] = Some(id);
                }
                previous = this;
            }
        }
    }
    for t in &mut transfers {
        t.deps.sort_unstable();
        t.deps.dedup();
    }
    Schedule {
        phase_starts: vec![a_steps, a_steps + b_steps],
        ..Schedule::new(Collective::AllReduce, Algorithm::Hierarchical, n, n_channels, count, n_steps, transfers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::{identity_order, verify};

    #[test]
    fn hierarchical_allreduce_is_exact() {
        for nodes in 1..=6 {
            for g in [1, 2, 3, 8] {
                for channels in [1, 3] {
                    let schedule = hierarchical_allreduce(nodes, &[identity_order(g)], 1001, channels);
                    verify(&schedule).unwrap_or_else(|e| panic!("{nodes} nodes × {g}, {channels} channels: {e}"));
                }
            }
        }
    }
}
