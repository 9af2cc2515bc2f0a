//! NCCL's Tree AllReduce: a chain inside each node and a double binary tree across nodes.
//!
//! ```text
//!   tree 0 (channels 0, 2, …)        tree 1 (channels 1, 3, …): mirrored or shifted, so a
//!          node 0                     node that is a leaf in one tree is inside the other
//!         /      \
//!     node 1    node 2 …             inside a node: head ← GPU ← GPU ← … ← GPU (a chain)
//! ```
//!
//! Each channel's slice is cut into pipeline chunks of NCCL's size for the protocol
//! (`tree_chunk_bytes`: 512 KiB Simple, 32 KiB LL, LL128's 576,000 B halved for smaller
//! messages). A chunk is reduced up:
//! along each node's chain to its head, then from each node's head to its parent's head; the
//! root's head then holds the sum and sends it back down the tree and along every chain. Chunks
//! follow one another on every connection (FIFO), so all levels work at once. Latency grows with
//! the chain length and the tree's depth, log2(nodes), instead of with the number of ranks as a
//! ring's does: that is why NCCL prefers Tree for small messages on many nodes.
//!
//! The binary tree is NCCL's (`src/graph/trees.cc`, `ncclGetBtree` and `ncclGetDtree`).

use super::protocol::Protocol;
use super::ring::{chain_chunk_bytes, slice, LL128_CHUNK_BYTES, MAX_CHAIN_CHUNKS};
use super::schedule::Hop;
use super::schedule::{Algorithm, ChunkOp, Deps, Schedule, Transfer};
use crate::scenario::Collective;

/// LL128's grain, which a chunk is a whole number of (`ncclProtoGrainSize`: 32 threads × 8
/// elements / 16 × 15 × 8 bytes); Simple's is 512 B and LL's 16, which its chunks already are.
const LL128_GRAIN: u64 = 1_920;

/// The chunk NCCL cuts a channel's `channel_bytes` of Tree AllReduce into with `protocol` on
/// `nodes` nodes of `g` GPUs (NCCL 2.30 `src/enqueue.cc`, `calcCollChunking`, called per
/// channel): Simple 512 KiB; LL 32 KiB; LL128 576,000 B, halved while the channel has fewer
/// than `nsteps · 64 / g` chunks and the chunk is above 128 KiB, then while it has fewer than
/// `nsteps · 16 / g` and is above 32 KiB, where `nsteps = 1 + ⌊log2 nodes⌋ + 0.1 g`; then
/// rounded down to the grain. Computed in `f32` as NCCL does, the chunks counted in integers.
pub fn tree_chunk_bytes(protocol: Protocol, nodes: u32, g: u32, channel_bytes: u64) -> u64 {
    match protocol {
        Protocol::Simple | Protocol::Ll => chain_chunk_bytes(protocol),
        Protocol::Ll128 => {
            let ppn = g.max(1) as f32;
            let nsteps = (1.0 + nodes.max(1).ilog2() as f64 + 0.1 * ppn as f64) as f32;
            let mut chunk = LL128_CHUNK_BYTES;
            for (per, floor) in [(64.0, 131_072), (16.0, 32_768)] {
                while ((channel_bytes / chunk) as f32) < nsteps * per / ppn && chunk > floor {
                    chunk /= 2;
                }
            }
            chunk / LL128_GRAIN * LL128_GRAIN
        }
    }
}

/// Chunks a channel of NCCL's Tree AllReduce of `count` elements over `n_channels` is
/// pipelined in with `protocol` (`tree_chunk_bytes`), at most `MAX_CHAIN_CHUNKS` (bigger ones
/// beyond: the engine's bound, as the chains').
pub fn tree_chunks(protocol: Protocol, nodes: u32, g: u32, count: u64, n_channels: u32) -> u32 {
    let channel_bytes = count.div_ceil(n_channels.max(1) as u64) * super::ELEM_BYTES;
    let chunk = tree_chunk_bytes(protocol, nodes, g, channel_bytes);
    channel_bytes.div_ceil(chunk).clamp(1, MAX_CHAIN_CHUNKS as u64) as u32
}

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

/// Tree AllReduce of `count` elements on `nodes` nodes of the `rings[0]` order's GPUs, in
/// `protocol`'s chunks (`tree_chunks`).
pub fn tree_allreduce<R: AsRef<[u32]>>(
    nodes: u32,
    rings: &[R],
    count: u64,
    (n_channels, protocol): (u32, Protocol),
) -> Schedule {
    TreeBuilder::new(nodes, rings, count, (n_channels, protocol)).finish()
}

/// `tree_allreduce` a channel at a time (`channel`): the big plan builds only the channels that
/// run for all where they fold (`simulation::tree_channels`).
pub struct TreeBuilder {
    nodes: u32,
    order: Vec<u32>,
    count: u64,
    n_channels: u32,
    /// Chunks per channel (`tree_chunks`).
    chunks: u32,
    transfers: Vec<Transfer>,
    n_steps: u32,
    next: u32,
}

impl TreeBuilder {
    pub fn new<R: AsRef<[u32]>>(
        nodes: u32,
        rings: &[R],
        count: u64,
        (n_channels, protocol): (u32, Protocol),
    ) -> TreeBuilder {
        let order = rings[0].as_ref().to_vec();
        let chunks = tree_chunks(protocol, nodes, order.len() as u32, count, n_channels);
        TreeBuilder { nodes, order, count, n_channels, chunks, transfers: Vec::new(), n_steps: 0, next: 0 }
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
        let TreeBuilder {
            nodes,
            ref order,
            count,
            n_channels,
            chunks,
            ref mut transfers,
            ref mut n_steps,
            ..
        } = *self;
        tree_channel(nodes, order, (count, chunks), n_channels, channel, transfers, n_steps);
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
    (count, chunks): (u64, u32),
    n_channels: u32,
    channel: u32,
    transfers: &mut Vec<Transfer>,
    n_steps: &mut u32,
) {
    let g = order.len() as u32;
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
    crate::sort::by_key(&mut by_depth, |&node| std::cmp::Reverse(depth(node)));
    let mut by_depth_down: Vec<u32> = (0..nodes).collect();
    crate::sort::by_key(&mut by_depth_down, |&node| depth(node));
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
                    // 40,000 elements: LL cuts a channel's into up to 5 chunks of 32 KiB.
                    for (count, protocol) in
                        [(1001, Protocol::Simple), (40_000, Protocol::Ll), (40_000, Protocol::Ll128)]
                    {
                        let schedule =
                            tree_allreduce(nodes, &[identity_order(g)], count, (channels, protocol));
                        verify(&schedule).unwrap_or_else(|e| {
                            panic!("{nodes} nodes × {g}, {channels} channels, {protocol:?}: {e}")
                        });
                    }
                }
            }
        }
    }

    /// NCCL 2.30's Tree chunks (`calcCollChunking`), worked by hand from its rule.
    #[test]
    fn tree_chunks_are_nccls() {
        let mib = 1u64 << 20;
        // LL128 on 128 nodes of 8, 2 MiB a channel: nsteps 1 + 7 + 0.8 = 8.8; 576,000 halved
        // while 2 MiB / chunk < 8.8 · 64 / 8 = 70.4 and above 128 KiB: 288,000 (7),
        // 144,000 (14), 72,000 (29); 29 ≥ 8.8 · 16 / 8 = 17.6; the grain of 1,920 B: 71,040.
        assert_eq!(tree_chunk_bytes(Protocol::Ll128, 128, 8, 2 * mib), 71_040);
        assert_eq!(tree_chunks(Protocol::Ll128, 128, 8, (16 * mib) / 4, 8), 30);
        // 2 nodes, 512 KiB: nsteps 2.8, 22.4 and 5.6: 72,000 holds 7 chunks, 71,040 after the grain.
        assert_eq!(tree_chunk_bytes(Protocol::Ll128, 2, 8, mib / 2), 71_040);
        // A big channel keeps the whole slot: 128 MiB / 576,000 = 233 ≥ 4.8 · 64 / 8.
        assert_eq!(tree_chunk_bytes(Protocol::Ll128, 8, 8, 128 * mib), 576_000);
        // A tiny one halves to the floor: 36,000 > 32 KiB → 18,000 → 17,280 by the grain.
        assert_eq!(tree_chunk_bytes(Protocol::Ll128, 8, 8, 4), 17_280);
        assert_eq!(tree_chunk_bytes(Protocol::Ll, 128, 8, 2 * mib), 32_768);
        assert_eq!(tree_chunk_bytes(Protocol::Simple, 128, 8, 2 * mib), 512 << 10);
        // LL at 4 MiB over 8 channels: 512 KiB a channel, 16 chunks; at 1 GiB capped at 128.
        assert_eq!(tree_chunks(Protocol::Ll, 128, 8, (4 * mib) / 4, 8), 16);
        assert_eq!(tree_chunks(Protocol::Ll, 128, 8, (1024 * mib) / 4, 8), MAX_CHAIN_CHUNKS);
        assert_eq!(tree_chunks(Protocol::Simple, 128, 8, (4 * mib) / 4, 8), 1);
    }
}
