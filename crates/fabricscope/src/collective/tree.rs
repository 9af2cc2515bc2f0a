//! NCCL's Tree AllReduce: a chain inside each node and a double binary tree across nodes.
//!
//! ```text
//!   tree 0 (channels 0, 2, …)        tree 1 (channels 1, 3, …): mirrored or shifted, so a
//!          node 0                     node that is a leaf in one tree is inside the other
//!         /      \
//!     node 1    node 2 …             inside a node: head ← GPU ← GPU ← … ← GPU (a chain)
//! ```
//!
//! Each channel's slice is cut into pipeline chunks of about 512 KiB. A chunk is reduced up:
//! along each node's chain to its head, then from each node's head to its parent's head; the
//! root's head then holds the sum and sends it back down the tree and along every chain. Chunks
//! follow one another on every connection (FIFO), so all levels work at once. Latency grows with
//! the chain length and the tree's depth, log2(nodes), instead of with the number of ranks as a
//! ring's does: that is why NCCL prefers Tree for small messages on many nodes.
//!
//! The binary tree is NCCL's (`src/graph/trees.cc`, `ncclGetBtree` and `ncclGetDtree`).

use super::ring::{chain_chunks, slice};
use super::schedule::Hop;
use super::schedule::{Algorithm, ChunkOp, Deps, Schedule, Transfer};
use crate::scenario::Collective;

/// Parent and children of `rank` in NCCL's binary tree over `n` ranks (root 0).
pub fn btree(n: u32, rank: u32) -> (Option<u32>, Vec<u32>) {
    let mut bit = 1u32;
    while bit < n {
        if bit & rank != 0 {
            break;
        }
        bit <<= 1;
    }
    if rank == 0 {
        let child = (n > 1).then_some(bit >> 1);
        return (None, child.into_iter().collect());
    }
    let mut up = (rank ^ bit) | (bit << 1);
    if up >= n {
        up = rank ^ bit;
    }
    let mut lowbit = bit >> 1;
    let down0 = (lowbit != 0).then(|| rank - lowbit);
    let mut down1 = (lowbit != 0).then(|| rank + lowbit);
    while let Some(d) = down1 {
        if d < n {
            break;
        }
        down1 = (lowbit != 0).then(|| rank + lowbit);
        lowbit >>= 1;
        if down1.is_some_and(|d| d >= n) && lowbit == 0 {
            down1 = None;
        }
    }
    (Some(up), down0.into_iter().chain(down1).collect())
}

/// A renumbering of ranks (tree 1 as an image of tree 0).
type RankMap = Box<dyn Fn(u32) -> u32>;

/// Parent and children of `rank` in tree `which` (0 or 1) of NCCL's double binary tree: tree 1
/// is tree 0 mirrored (even `n`) or shifted by one (odd `n`).
pub fn dtree(n: u32, rank: u32, which: u32) -> (Option<u32>, Vec<u32>) {
    if which == 0 || n <= 1 {
        return btree(n, rank);
    }
    let (to, from): (RankMap, RankMap) = if n % 2 == 1 {
        (Box::new(move |r| (r + n - 1) % n), Box::new(move |r| (r + 1) % n))
    } else {
        (Box::new(move |r| n - 1 - r), Box::new(move |r| n - 1 - r))
    };
    let (parent, children) = btree(n, to(rank));
    (parent.map(&from), children.into_iter().map(&from).collect())
}

/// Tree AllReduce of `count` elements on `nodes` nodes of the `rings[0]` order's GPUs.
pub fn tree_allreduce<R: AsRef<[u32]>>(nodes: u32, rings: &[R], count: u64, n_channels: u32) -> Schedule {
    TreeBuilder::new(nodes, rings, count, n_channels).finish()
}

/// `tree_allreduce` a channel at a time (`channel`): the big plan builds only the channels that
/// run for all where they fold (`simulation::tree_channels`).
pub struct TreeBuilder {
    nodes: u32,
    order: Vec<u32>,
    count: u64,
    n_channels: u32,
    transfers: Vec<Transfer>,
    n_steps: u32,
    next: u32,
}

impl TreeBuilder {
    pub fn new<R: AsRef<[u32]>>(nodes: u32, rings: &[R], count: u64, n_channels: u32) -> TreeBuilder {
        let order = rings[0].as_ref().to_vec();
        TreeBuilder { nodes, order, count, n_channels, transfers: Vec::new(), n_steps: 0, next: 0 }
    }

    /// Channels built so far.
    pub fn built(&self) -> u32 {
        self.next
    }

    /// Builds the next channel's transfers; true once every channel is built.
    pub fn channel(&mut self) -> bool {
        if self.next >= self.n_channels {
            return true;
        }
        let channel = self.next;
        let TreeBuilder { nodes, ref order, count, n_channels, ref mut transfers, ref mut n_steps, .. } =
            *self;
        tree_channel(nodes, order, count, n_channels, channel, transfers, n_steps);
        self.next += 1;
        self.next >= self.n_channels
    }

    /// The schedule, every channel built.
    pub fn finish(mut self) -> Schedule {
        while !self.channel() {}
        self.finish_built()
    }

    /// The schedule of the channels built so far: the first few, for a run that stands for all
    /// (`simulation::tree_channels`), numbered as `Symmetry::channel_zero` numbers the whole's.
    pub fn finish_built(self) -> Schedule {
        let n = self.nodes * self.order.len() as u32;
        let transfers = self.transfers;
        // Dependencies must point backwards; the construction only ever names earlier ids.
        debug_assert!(transfers.iter().enumerate().all(|(i, t)| t
            .deps
            .iter()
            .chain(&t.after)
            .all(|&d| (d as usize) < i)));
        Schedule::new(
            Collective::AllReduce,
            Algorithm::Tree,
            n,
            self.n_channels,
            self.count,
            self.n_steps,
            transfers,
        )
    }
}

/// Channel `channel` of `tree_allreduce`'s transfers, after those in `transfers`.
fn tree_channel(
    nodes: u32,
    order: &[u32],
    count: u64,
    n_channels: u32,
    channel: u32,
    transfers: &mut Vec<Transfer>,
    n_steps: &mut u32,
) {
    let g = order.len() as u32;
    let chunks = chain_chunks(count.div_ceil(n_channels as u64));
    let which = channel % 2;
    // Channel c's chain starts at position c of the node's order, so heads (and NICs) spread.
    let chains: Vec<Vec<u32>> = (0..nodes)
        .map(|node| (0..g).map(|i| node * g + order[((channel + i) % g) as usize]).collect())
        .collect();
    let chain = |node: u32| -> &[u32] { &chains[node as usize] };
    let (start, len) = slice(count, n_channels, channel);
    // Each node's parent and children in the channel's tree, and its depth, for step labels.
    let links: Vec<(Option<u32>, Vec<u32>)> = (0..nodes).map(|node| dtree(nodes, node, which)).collect();
    let depths: Vec<u32> = (0..nodes)
        .map(|node| {
            let (mut d, mut at) = (0, node);
            while let Some(parent) = links[at as usize].0 {
                d += 1;
                at = parent;
            }
            d
        })
        .collect();
    let depth = |node: u32| -> u32 { depths[node as usize] };
    let max_depth = (0..nodes).map(depth).max().unwrap_or(0);
    let up_stages = (g - 1) + max_depth;
    // Connection FIFOs: the previous chunk's transfer on the same (src, dst, phase).
    let mut last: std::collections::HashMap<(u32, u32, bool), u32, crate::hash::FixedState> =
        std::collections::HashMap::with_hasher(crate::hash::FixedState);
    // Nodes deepest first (reduce), shallowest first (broadcast), and the root.
    let mut by_depth: Vec<u32> = (0..nodes).collect();
    by_depth.sort_by_key(|&node| std::cmp::Reverse(depth(node)));
    let mut by_depth_down: Vec<u32> = (0..nodes).collect();
    by_depth_down.sort_by_key(|&node| depth(node));
    let root = (0..nodes).find(|&node| links[node as usize].0.is_none()).unwrap_or(0);
    for chunk in 0..chunks {
        let (chunk_start, chunk_len) = slice(len, chunks, chunk);
        let offset = start + chunk_start;
        let mut push =
            |transfers: &mut Vec<Transfer>, src: u32, dst: u32, op: ChunkOp, deps: Deps, stage: u32| -> u32 {
                let index = transfers.len() as u32;
                let key = (src, dst, op == ChunkOp::Reduce);
                let after = last.insert(key, index);
                *n_steps = (*n_steps).max(chunk + stage + 1);
                transfers.push(Transfer {
                    step: chunk + stage,
                    channel,
                    src,
                    dst,
                    chunk,
                    offset,
                    src_offset: offset,
                    from_input: false,
                    len: chunk_len,
                    op,
                    deps,
                    after,
                    hop: Hop::Peer,
                });
                index
            };
        // Reduce up each chain: tail → … → head. `into_head[node]`: transfers the head must
        // have received before it holds its node's (and its subtree's) sum.
        let mut into_head: Vec<Deps> = vec![Deps::new(); nodes as usize];
        for node in 0..nodes {
            let c = chain(node);
            let mut previous: Option<u32> = None;
            for k in (1..g).rev() {
                let stage = g - 1 - k;
                let id = push(
                    transfers,
                    c[k as usize],
                    c[k as usize - 1],
                    ChunkOp::Reduce,
                    previous.into_iter().collect(),
                    stage,
                );
                previous = Some(id);
            }
            into_head[node as usize].extend(previous);
        }
        // Reduce up the tree, deepest nodes first.
        for &node in &by_depth {
            if let Some(parent) = links[node as usize].0 {
                let stage = (g - 1) + (max_depth - depth(node));
                let deps = into_head[node as usize].clone();
                let id = push(transfers, chain(node)[0], chain(parent)[0], ChunkOp::Reduce, deps, stage);
                into_head[parent as usize].push(id);
            }
        }
        // Broadcast down the tree from the root, then along every chain.
        let mut has_sum: Vec<Deps> = vec![Deps::new(); nodes as usize];
        has_sum[root as usize] = into_head[root as usize].clone();
        for &node in &by_depth_down {
            for &child in &links[node as usize].1 {
                let stage = up_stages + depth(node);
                let id = push(
                    transfers,
                    chain(node)[0],
                    chain(child)[0],
                    ChunkOp::Copy,
                    has_sum[node as usize].clone(),
                    stage,
                );
                has_sum[child as usize] = Deps::from_slice(&[id]);
            }
        }
        for node in 0..nodes {
            let c = chain(node);
            let mut previous = has_sum[node as usize].clone();
            for k in 1..g {
                let stage = up_stages + max_depth + (k - 1);
                let id = push(transfers, c[k as usize - 1], c[k as usize], ChunkOp::Copy, previous, stage);
                previous = Deps::from_slice(&[id]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::{identity_order, verify};

    #[test]
    fn nccl_binary_trees() {
        // 8 ranks: 0 → 4; 4 → 2, 6; 2 → 1, 3; 6 → 5, 7.
        assert_eq!(btree(8, 0), (None, vec![4]));
        assert_eq!(btree(8, 4), (Some(0), vec![2, 6]));
        assert_eq!(btree(8, 6), (Some(4), vec![5, 7]));
        assert_eq!(btree(8, 7), (Some(6), vec![]));
        // Every rank but the root has a parent that lists it as a child, for any size.
        for n in 1..40 {
            for which in 0..2 {
                let mut roots = 0;
                for r in 0..n {
                    let (parent, children) = dtree(n, r, which);
                    match parent {
                        None => roots += 1,
                        Some(p) => {
                            assert!(dtree(n, p, which).1.contains(&r), "n={n} tree {which}: {r}'s parent {p}")
                        }
                    }
                    for c in children {
                        assert!(
                            c < n && dtree(n, c, which).0 == Some(r),
                            "n={n} tree {which}: {r}'s child {c}"
                        );
                    }
                }
                assert_eq!(roots, 1, "n={n} tree {which}");
            }
        }
    }

    #[test]
    fn tree_allreduce_is_exact() {
        for nodes in 1..=9 {
            for g in [1, 2, 4, 8] {
                for channels in [1, 2, 3] {
                    let schedule = tree_allreduce(nodes, &[identity_order(g)], 1001, channels);
                    verify(&schedule)
                        .unwrap_or_else(|e| panic!("{nodes} nodes × {g}, {channels} channels: {e}"));
                }
            }
        }
    }
}
