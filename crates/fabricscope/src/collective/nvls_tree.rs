//! NVLSTree: NVLS inside each node, a double binary tree of nodes across them (NCCL's
//! `NCCL_ALGO=NVLSTree`, AllReduce on NVSwitch gen3+ nodes, more than one node).
//!
//! Each channel's slice is cut into g parts, part k in the care of local GPU k of every node,
//! and each part into pipelined chunks. For every chunk of part k:
//!
//! ```text
//!   1 reduce     every GPU of node i sends its copy up to the NVSwitch, which adds them; the
//!                node's sum comes down to GPU k
//!   2 tree up    node i's GPU k adds its node's sum into its parent node's GPU k (NCCL's tree
//!                for the channel: `tree::dtree`, channels alternating between its two trees)
//!   3 tree down  the root's GPU k holds the total; each GPU k copies it to its children's
//!   4 multicast  GPU k sends the total up once; the switch copies it to the node's other GPUs
//! ```
//!
//! Inside a node this is NVLS: a GPU's NVLink carries the buffer once up and once down (plus its
//! part); across nodes only GPU k's NIC carries part k, so the network sees 1/g of the buffer
//! per NIC, twice (up and down the tree), against the ring's `2(n-1)/n` per crossing.

use super::schedule::{Algorithm, ChunkOp, Deps, Hop, Schedule, SwitchRef, Transfer};
use super::tree::dtree;
use crate::scenario::Collective;

/// At most this many chunks per part and channel: where NCCL cuts more (`nccl_chunk_bytes`),
/// the model cuts this many bigger ones, which keeps a tree on a thousand nodes within the
/// engine (ARCHITECTURE.md, "Trees beyond the engine").
pub const MAX_CHUNKS: u64 = 16;

/// Chunk length and count, in elements, for a part of `len` elements, NCCL's chunk being
/// `nccl_elems`: NCCL's chunks, or `cap` bigger ones where NCCL cuts more.
fn chunking(len: u64, nccl_elems: u64, cap: u64) -> (u64, u64) {
    let elems = nccl_elems.max(len.div_ceil(cap.max(1))).max(1);
    (elems, len.div_ceil(elems).max(1))
}

/// NCCL's chunk for `count` elements on `nodes` nodes of `g` GPUs over `n_channels`, in elements.
fn nccl_elems(nodes: u32, g: u32, n_channels: u32, count: u64) -> u64 {
    nccl_chunk_bytes(nodes, g, n_channels, count * super::ELEM_BYTES) / super::ELEM_BYTES
}

/// The connections a transfer follows on, within a part of a channel (no connection spans two:
/// a GPU moves every part of a chunk to and from the switch at once, as NCCL's scatter and
/// gather do, so the parts of a channel are images of one another under a turn of the node's
/// GPUs): six per rank, its last transfer on each: the switch's four (0 up, 1 the node's sum down to the
/// part's owner, 2 the total up, 3 the multicast down to the rank), 4 up the tree from the rank
/// (one parent) and 5 down the tree to the rank (one parent sends to it).
const FIFOS: usize = 6;

/// Elements of one part of a channel: `count` over `n_channels` channels of `g` parts.
fn per_part(count: u64, g: u32, n_channels: u32) -> u64 {
    count.div_ceil(n_channels.max(1) as u64).div_ceil(g.max(1) as u64)
}

/// The model's chunking of one part of a channel: (chunk bytes, chunks) for `count` elements
/// on `nodes` nodes over `n_channels` channels of `g` parts.
pub fn part_chunking(nodes: u32, count: u64, g: u32, n_channels: u32) -> (u64, u64) {
    part_chunking_at(nodes, count, g, n_channels, MAX_CHUNKS)
}

/// `part_chunking` with at most `cap` chunks per part rather than `MAX_CHUNKS`
/// (`NvlsTreeBuilder::with_cap`).
pub fn part_chunking_at(nodes: u32, count: u64, g: u32, n_channels: u32, cap: u64) -> (u64, u64) {
    let per_part = per_part(count, g, n_channels);
    let (elems, chunks) = chunking(per_part, nccl_elems(nodes, g, n_channels, count), cap);
    (elems.min(per_part.max(1)) * super::ELEM_BYTES, chunks)
}

/// NCCL's chunking of the same part on `nodes` nodes (`nccl_chunk_bytes`): (chunk bytes, chunks).
pub fn nccl_part_chunking(nodes: u32, count: u64, g: u32, n_channels: u32) -> (u64, u64) {
    let chunk = nccl_chunk_bytes(nodes, g, n_channels, count * super::ELEM_BYTES);
    (chunk, (per_part(count, g, n_channels) * super::ELEM_BYTES).div_ceil(chunk).max(1))
}

/// The chunk NCCL cuts an NVLSTree AllReduce of `bytes` into (`enqueue.cc`, `calcCollChunking`,
/// NVLS_TREE, with `NCCL_NVLS_CHUNKSIZE` and `NCCL_NVLSTREE_MAX_CHUNKSIZE` at their defaults):
/// 128 KiB, at most 64 KiB from 4 nodes up, halved for small messages against the channels ×
/// heads working at once. The model cuts these where a part has at most `MAX_CHUNKS` of them.
pub fn nccl_chunk_bytes(nodes: u32, g: u32, n_channels: u32, bytes: u64) -> u64 {
    let concurrent = n_channels as u64 * g as u64;
    let mut chunk: u64 = if nodes >= 4 { 64 << 10 } else { 128 << 10 };
    for (times, floor) in [(32, 256 << 10), (16, 128 << 10), (4, 64 << 10), (1, 32 << 10)] {
        if bytes < times * concurrent * chunk && chunk > floor {
            chunk = floor;
        }
    }
    chunk
}

/// NVLSTree AllReduce of `count` elements on `nodes` nodes of `g` GPUs.
pub fn nvls_tree_allreduce(nodes: u32, g: u32, count: u64, n_channels: u32) -> Schedule {
    let mut builder = NvlsTreeBuilder::new(nodes, g, count, n_channels);
    while !builder.channel() {}
    builder.finish()
}

/// `nvls_tree_allreduce` a channel at a time (`channel`), for a caller that must stay
/// responsive (the big plan weighs a 155,520-transfer one at 1,024 GPUs).
pub struct NvlsTreeBuilder {
    nodes: u32,
    g: u32,
    count: u64,
    n_channels: u32,
    transfers: Vec<Transfer>,
    fifos: Vec<Option<u32>>,
    max_chunks: u64,
    next: u32,
    /// Each channel's part 0 alone (`part_zero`).
    part_zero: bool,
    /// At most this many chunks per part (`with_cap`).
    cap: u64,
}

impl NvlsTreeBuilder {
    pub fn new(nodes: u32, g: u32, count: u64, n_channels: u32) -> NvlsTreeBuilder {
        NvlsTreeBuilder {
            nodes,
            g,
            count,
            n_channels,
            transfers: Vec::new(),
            fifos: Vec::new(),
            max_chunks: 1,
            next: 0,
            part_zero: false,
            cap: MAX_CHUNKS,
        }
    }

    /// The same builder cutting at most `cap` chunks per part rather than `MAX_CHUNKS`: NCCL's
    /// chunks up to `cap` of them, bigger ones beyond (`simulation`'s fit to NCCL's chunks runs
    /// `2 × MAX_CHUNKS`; a test runs `u64::MAX`, every chunk NCCL's). Before any channel is built.
    pub fn with_cap(self, cap: u64) -> NvlsTreeBuilder {
        NvlsTreeBuilder { cap: cap.max(1), ..self }
    }

    /// `new`, but building each channel's part 0 alone: the transfers that run where a channel's
    /// parts are images of one another as well (`engine::symmetry`'s lanes), numbered as
    /// `Symmetry::channel_zero` numbers the whole's.
    pub fn part_zero(nodes: u32, g: u32, count: u64, n_channels: u32) -> NvlsTreeBuilder {
        NvlsTreeBuilder { part_zero: true, ..NvlsTreeBuilder::new(nodes, g, count, n_channels) }
    }

    /// Builds the next channel's transfers; true once every channel is built.
    pub fn channel(&mut self) -> bool {
        if self.next >= self.n_channels {
            return true;
        }
        let channel = self.next;
        let (nodes, g, count, n_channels) = (self.nodes, self.g, self.count, self.n_channels);
        let first = self.transfers.len();
        let per_channel = transfer_count(nodes, g, count, n_channels) / n_channels as u64;
        let parts = if self.part_zero { 1 } else { g };
        self.transfers.reserve((per_channel / (g / parts) as u64) as usize);
        let (start, len) = super::ring::slice(count, n_channels, channel);
        // Part-major: a part's transfers follow on its own connections, so that every GPU's
        // connection to the switch moves every part of a chunk at once, as NCCL's scatter does.
        for k in 0..parts {
            let (part_start, part_len) = super::ring::slice(len, g, k);
            self.part(channel, k, start + part_start, part_len);
        }
        for t in &mut self.transfers[first..] {
            t.deps.sort_unstable();
            t.deps.dedup();
        }
        self.next += 1;
        self.next >= self.n_channels
    }

    /// Part `k` of `channel`: `len` elements from `start`, chunk by chunk.
    fn part(&mut self, channel: u32, k: u32, start: u64, len: u64) {
        let (nodes, g) = (self.nodes, self.g);
        let (chunk_elems, chunks) =
            chunking(len, nccl_elems(nodes, g, self.n_channels, self.count), self.cap);
        let NvlsTreeBuilder { transfers, fifos, max_chunks, .. } = self;
        // The part's own connections.
        fifos.clear();
        fifos.resize((nodes * g) as usize * FIFOS, None);
        let mut push = |transfers: &mut Vec<Transfer>, (rank, fifo): (u32, usize), t: Transfer| -> u32 {
            let id = transfers.len() as u32;
            let after = fifos[rank as usize * FIFOS + fifo].replace(id);
            transfers.push(Transfer { after, ..t });
            id
        };
        let which = channel % 2;
        *max_chunks = (*max_chunks).max(chunks);
        for q in 0..chunks {
            let offset = start + (q * chunk_elems).min(len);
            let chunk_len = chunk_elems.min(start + len - offset);
            let rank = |node: u32, local: u32| node * g + local;
            let step = 4 * q as u32;
            let base = |step: u32, src: u32, dst: u32, op: ChunkOp, hop: Hop, deps: Deps| Transfer {
                step,
                channel,
                src,
                dst,
                chunk: k,
                offset,
                src_offset: offset,
                from_input: false,
                len: chunk_len,
                op,
                deps,
                after: None,
                hop,
            };
            // (1) Each node's sum of the chunk, down to its GPU k.
            let mut node_sum = Vec::with_capacity(nodes as usize);
            for node in 0..nodes {
                let switch = SwitchRef::NvSwitch { node };
                let owner = rank(node, k);
                // From GPU k on, so that part k's transfers are part 0's turned by k GPUs, position
                // for position (`engine::symmetry::Lanes::Parts`).
                let ups: Deps = (0..g)
                    .map(|i| {
                        let src = rank(node, (k + i) % g);
                        let t = base(step, src, owner, ChunkOp::Reduce, Hop::ToSwitch(switch), Deps::new());
                        push(transfers, (src, 0), t)
                    })
                    .collect();
                let t = base(step, owner, owner, ChunkOp::Copy, Hop::FromSwitch(switch), ups);
                node_sum.push(push(transfers, (owner, 1), t));
            }
            // (2) Up the tree: children's sums added into their parent's, deepest first so
            // that a node sends once its children's sums have landed.
            let mut into: Vec<Deps> = vec![Deps::new(); nodes as usize];
            let mut sent_up: Vec<Option<u32>> = vec![None; nodes as usize];
            for node in by_depth(nodes, which).into_iter().rev() {
                if let (Some(parent), _) = dtree(nodes, node, which) {
                    let mut deps = into[node as usize].clone();
                    deps.push(node_sum[node as usize]);
                    // The parent's GPU k holds its node's sum before sums are added to it.
                    deps.push(node_sum[parent as usize]);
                    let (src, dst) = (rank(node, k), rank(parent, k));
                    let t = base(step + 1, src, dst, ChunkOp::Reduce, Hop::Peer, deps);
                    let id = push(transfers, (src, 4), t);
                    into[parent as usize].push(id);
                    sent_up[node as usize] = Some(id);
                }
            }
            // (3) Down the tree from the root, and (4) the multicast in each node once its
            // GPU k has the total.
            let mut total: Vec<Deps> = vec![Deps::new(); nodes as usize];
            for node in by_depth(nodes, which) {
                let (parent, children) = dtree(nodes, node, which);
                if parent.is_none() {
                    total[node as usize] = into[node as usize].clone();
                    total[node as usize].push(node_sum[node as usize]);
                }
                for child in children {
                    let mut deps = total[node as usize].clone();
                    deps.extend(sent_up[child as usize]);
                    let (src, dst) = (rank(node, k), rank(child, k));
                    let t = base(step + 2, src, dst, ChunkOp::Copy, Hop::Peer, deps);
                    total[child as usize] = Deps::from_slice(&[push(transfers, (dst, 5), t)]);
                }
                let switch = SwitchRef::NvSwitch { node };
                let owner = rank(node, k);
                let mut deps = total[node as usize].clone();
                deps.push(node_sum[node as usize]);
                deps.sort_unstable();
                deps.dedup();
                let t = base(step + 3, owner, owner, ChunkOp::Copy, Hop::ToSwitch(switch), deps);
                let store = push(transfers, (owner, 2), t);
                for i in 1..g {
                    let dst = rank(node, (k + i) % g);
                    let t = base(
                        step + 3,
                        owner,
                        dst,
                        ChunkOp::Copy,
                        Hop::FromSwitch(switch),
                        Deps::from_slice(&[store]),
                    );
                    push(transfers, (dst, 3), t);
                }
            }
        }
    }

    /// The schedule, once `channel` built every channel.
    pub fn finish(mut self) -> Schedule {
        while !self.channel() {}
        self.finish_built()
    }

    /// Channels built so far.
    pub fn built(&self) -> u32 {
        self.next
    }

    /// The schedule of the channels built so far: the first few, for a run that stands for all
    /// (`simulation::tree_channels`), numbered as `Symmetry::channel_zero` numbers the whole's.
    pub fn finish_built(self) -> Schedule {
        Schedule::new(
            Collective::AllReduce,
            Algorithm::NvlsTree,
            self.nodes * self.g,
            self.n_channels,
            self.count,
            4 * self.max_chunks as u32,
            self.transfers,
        )
    }
}

/// The nodes of tree `which` from the root down, level by level.
fn by_depth(nodes: u32, which: u32) -> Vec<u32> {
    let root = (0..nodes).find(|&node| dtree(nodes, node, which).0.is_none()).unwrap_or(0);
    let mut order = vec![root];
    let mut i = 0;
    while i < order.len() {
        order.extend(dtree(nodes, order[i], which).1);
        i += 1;
    }
    order
}

/// Transfers `nvls_tree_allreduce` makes, at most (the engine's limit).
pub fn transfer_count(nodes: u32, g: u32, count: u64, n_channels: u32) -> u64 {
    transfer_count_at(nodes, g, count, n_channels, MAX_CHUNKS)
}

/// `transfer_count` with at most `cap` chunks per part (`NvlsTreeBuilder::with_cap`).
pub fn transfer_count_at(nodes: u32, g: u32, count: u64, n_channels: u32, cap: u64) -> u64 {
    let chunks = part_chunking_at(nodes, count, g, n_channels, cap).1;
    let (nodes, g) = (nodes as u64, g as u64);
    let part = chunks.saturating_mul(nodes * (2 * g + 1) + 2 * nodes.saturating_sub(1));
    part.saturating_mul(n_channels as u64 * g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::verify;

    /// NCCL's chunk (`enqueue.cc`): 128 KiB on 2 or 3 nodes down to 64 KiB below 32 MiB and
    /// 32 KiB below 4 MiB (8 channels × 8 heads); 64 KiB from 4 nodes up, 32 KiB below 4 MiB.
    #[test]
    fn nccl_cuts_nvlstree_chunks_as_enqueue_does() {
        let chunk = |nodes, bytes| nccl_chunk_bytes(nodes, 8, 8, bytes) >> 10;
        assert_eq!([chunk(2, 1 << 30), chunk(2, 32 << 20), chunk(2, (32 << 20) - 1)], [128, 128, 64]);
        assert_eq!([chunk(2, 4 << 20), chunk(2, (4 << 20) - 1)], [64, 32]);
        assert_eq!([chunk(8, 1 << 30), chunk(8, 4 << 20), chunk(8, (4 << 20) - 1)], [64, 64, 32]);
        // The model's: NCCL's, at most 16 per part.
        assert_eq!(part_chunking(128, 1 << 28, 8, 8), (1 << 20, 16));
        assert_eq!(part_chunking(8, 1 << 22, 8, 8), (64 << 10, 4));
        assert_eq!(part_chunking(8, 1 << 20, 8, 8), (64 << 10, 1));
        assert_eq!(part_chunking(2, 1 << 24, 8, 8), (128 << 10, 8));
        // NCCL's, of the same parts: 256 chunks of 64 KiB at 1 GiB on 128 nodes.
        assert_eq!(nccl_part_chunking(128, 1 << 28, 8, 8), (64 << 10, 256));
    }

    #[test]
    fn nvls_tree_is_exact() {
        for nodes in 2..=5 {
            for g in [1, 2, 4] {
                for count in [1u64, 7, 1000, 70_000] {
                    for channels in [1, 2] {
                        let schedule = nvls_tree_allreduce(nodes, g, count, channels);
                        verify(&schedule).unwrap_or_else(|e| panic!("{nodes} × {g}, count {count}: {e}"));
                        assert!(schedule.transfers.len() as u64 <= transfer_count(nodes, g, count, channels));
                    }
                }
            }
        }
    }

    #[test]
    fn each_nic_carries_its_part_once_up_and_once_down_the_tree() {
        // 4 nodes × 8: part k crosses the network only between GPUs k, on rail k.
        let schedule = nvls_tree_allreduce(4, 8, 8_000, 1);
        for t in schedule.transfers.iter().filter(|t| t.hop == Hop::Peer) {
            assert_eq!(t.src % 8, t.dst % 8, "tree hops stay on one rail");
            assert_ne!(t.src / 8, t.dst / 8);
        }
        let tree_elements: u64 =
            schedule.transfers.iter().filter(|t| t.hop == Hop::Peer).map(|t| t.len).sum();
        // 3 edges of the tree, each part once up and once down.
        assert_eq!(tree_elements, 2 * 3 * 8_000);
    }
}
