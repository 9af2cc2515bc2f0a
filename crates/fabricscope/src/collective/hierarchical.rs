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
//!
//! CollNet (InfiniBand SHARP, `collnet_allreduce`) keeps phases (1) and (3) and replaces (2):
//! each node's GPU k sends its node's sum of chunk k up its rail once, the rail's aggregation
//! switch adds the nodes' sums, and sends the total down to every node's GPU k: each byte
//! crosses the network once up and once down, whatever the number of nodes, where the rail
//! ring sends `2(N-1)/N`.

use super::ring::{ring_order, slice};
use super::schedule::{Algorithm, ChunkOp, Deps, Hop, Schedule, SwitchRef, Transfer};
use crate::hash::FixedState;
use crate::scenario::Collective;

/// Hierarchical AllReduce of `count` elements on `nodes` nodes of the `rings` orders' GPUs.
pub fn hierarchical_allreduce<R: AsRef<[u32]>>(
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
) -> Schedule {
    build(nodes, rings, count, n_channels, false)
}

/// CollNet AllReduce: phase (2) reduced by each rail's aggregation switch (InfiniBand SHARP).
pub fn collnet_allreduce<R: AsRef<[u32]>>(nodes: u32, rings: &[R], count: u64, n_channels: u32) -> Schedule {
    build(nodes, rings, count, n_channels, true)
}

/// Bytes per channel in one pipelined piece: the three phases of one piece run one after the
/// other, but piece q+1's reduce-scatter runs while piece q crosses the network, as NCCL's
/// CollNet pipelines its chunks.
const PIECE_BYTES: u64 = 4 << 20;
/// At most this many pieces (more data makes bigger pieces).
const MAX_PIECES: u64 = 16;

/// Pieces a buffer of `count` elements is pipelined in over `n_channels` channels.
pub fn pieces(count: u64, n_channels: u32) -> u32 {
    (count * super::ELEM_BYTES / n_channels as u64).div_ceil(PIECE_BYTES).clamp(1, MAX_PIECES) as u32
}

/// A connection's FIFO: every transfer on it follows the previous one, across pieces. Each
/// phase has its own (NCCL runs them as separate steps of separate primitives), so a piece
/// waiting to all-gather does not hold up the next piece's reduce-scatter on the same link.
/// Across the network each step has its own too (`step`; 0 inside the node): piece q+1 follows
/// piece q step by step instead of waiting for piece q's last step, so while a piece's chain
/// of `2(N-1)` dependent steps waits out each step's network latency the next piece's data
/// moves, as NCCL's slices overlap it, and the chain's latency is paid once, not once per
/// piece. Inside the node the latency is small and strict order keeps the pipeline fed.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Connection {
    Peer { src: u32, dst: u32, channel: u32, phase: u8, step: u32 },
    Up { src: u32, channel: u32 },
    Down { dst: u32, channel: u32 },
}

fn build<R: AsRef<[u32]>>(nodes: u32, rings: &[R], count: u64, n_channels: u32, sharp: bool) -> Schedule {
    let mut builder = HierarchicalBuilder::new(nodes, rings, count, n_channels, sharp);
    while !builder.advance(usize::MAX) {}
    builder.finish()
}

/// `hierarchical_allreduce` (or `collnet_allreduce`) a piece of one channel at a time
/// (`advance`), for a caller that must stay responsive: 8 nodes' 1 GiB is 229,376 transfers, 45
/// ms natively in one go.
pub struct HierarchicalBuilder {
    nodes: u32,
    rings: Vec<Vec<u32>>,
    count: u64,
    n_channels: u32,
    sharp: bool,
    n_pieces: u32,
    /// The next (piece, channel), as `piece * n_channels + channel`.
    next: u32,
    transfers: Vec<Transfer>,
    n_steps: u32,
    fifo: std::collections::HashMap<Connection, u32, FixedState>,
}

impl HierarchicalBuilder {
    pub fn new<R: AsRef<[u32]>>(
        nodes: u32,
        rings: &[R],
        count: u64,
        n_channels: u32,
        sharp: bool,
    ) -> HierarchicalBuilder {
        HierarchicalBuilder {
            nodes,
            rings: rings.iter().map(|r| r.as_ref().to_vec()).collect(),
            count,
            n_channels,
            sharp,
            n_pieces: pieces(count, n_channels),
            next: 0,
            transfers: Vec::new(),
            n_steps: 0,
            fifo: std::collections::HashMap::with_hasher(FixedState),
        }
    }

    /// Builds pieces of channels until at least `transfers` more are built or all are; true
    /// once every one is.
    pub fn advance(&mut self, transfers: usize) -> bool {
        let target = self.transfers.len().saturating_add(transfers);
        while self.next < self.n_pieces * self.n_channels && self.transfers.len() < target {
            let from = self.transfers.len();
            self.piece_of_channel(self.next / self.n_channels, self.next % self.n_channels);
            for t in &mut self.transfers[from..] {
                t.deps.sort_unstable();
                t.deps.dedup();
            }
            self.next += 1;
        }
        self.next >= self.n_pieces * self.n_channels
    }

    /// The schedule, once `advance` said every piece is built.
    pub fn finish(self) -> Schedule {
        let n = self.nodes * self.rings[0].len() as u32;
        let algorithm = if self.sharp { Algorithm::CollNet } else { Algorithm::Hierarchical };
        // Pieces pipeline through the phases, so no phase waits for the whole of the one before.
        Schedule::new(
            Collective::AllReduce,
            algorithm,
            n,
            self.n_channels,
            self.count,
            self.n_steps,
            self.transfers,
        )
    }

    /// Adds `t` to `connection`'s FIFO, after the last transfer on it.
    fn push(&mut self, connection: Connection, t: Transfer) -> u32 {
        let id = self.transfers.len() as u32;
        self.n_steps = self.n_steps.max(t.step + 1);
        let after = self.fifo.insert(connection, id);
        self.transfers.push(Transfer { after, ..t });
        id
    }

    /// The three phases of one piece on one channel.
    fn piece_of_channel(&mut self, piece: u32, channel: u32) {
        let (nodes, count, n_channels, sharp) = (self.nodes, self.count, self.n_channels, self.sharp);
        let g = self.rings[0].len() as u32;
        let n_pieces = self.n_pieces;
        let a_steps = g.saturating_sub(1);
        let b_steps = if sharp { 2 } else { 2 * nodes.saturating_sub(1) };
        // The channel's intra-node order (position → local GPU), the same on every node.
        let order: Vec<u32> = ring_order(1, &self.rings, channel);
        let (start, len) = slice(count, n_channels * n_pieces, piece * n_channels + channel);
        let chunk = |k: u32| -> (u64, u64) {
            let (s, l) = slice(len, g, k);
            (start + s, l)
        };
        let rank = |node: u32, position: u32| node * g + order[position as usize];
        let base = |step: u32, src: u32, dst: u32, k: u32, op: ChunkOp, deps: Deps| {
            let (offset, len) = chunk(k);
            Transfer {
                step,
                channel,
                src,
                dst,
                chunk: k,
                offset,
                src_offset: offset,
                from_input: false,
                len,
                op,
                deps,
                after: None,
                hop: Hop::Peer,
            }
        };
        let peer =
            |src: u32, dst: u32, phase: u8, step: u32| Connection::Peer { src, dst, channel, phase, step };
        // into[node][position]: every transfer of a phase that writes into that GPU.
        let mut phase_a_into = vec![vec![Deps::new(); g as usize]; nodes as usize];
        // (1) Reduce-scatter inside each node: position p adds chunk (p - s - 1) into p+1;
        // after g-1 steps position k holds its node's sum of chunk k.
        for node in 0..nodes {
            let mut previous: Vec<Option<u32>> = vec![None; g as usize];
            for step in 0..a_steps {
                let mut this = vec![None; g as usize];
                for p in 0..g {
                    let k = (p + 2 * g - step - 1) % g;
                    let deps: Deps = previous[((p + g - 1) % g) as usize].into_iter().collect();
                    let (src, dst) = (rank(node, p), rank(node, (p + 1) % g));
                    let id = self.push(peer(src, dst, 1, 0), base(step, src, dst, k, ChunkOp::Reduce, deps));
                    this[p as usize] = Some(id);
                    phase_a_into[node as usize][((p + 1) % g) as usize].push(id);
                }
                previous = this;
            }
        }
        // (2) For each chunk k, an AllReduce among the nodes' position-k GPUs: by the
        // rail's switch (SHARP), or a ring.
        let mut phase_b_into = vec![vec![Deps::new(); g as usize]; nodes as usize];
        for k in 0..g {
            let (region_start, region_len) = chunk(k);
            if sharp {
                let switch = SwitchRef::Rail { rail: order[k as usize] };
                let ups: Deps = (0..nodes)
                    .map(|i| {
                        let src = rank(i, k);
                        let t = Transfer {
                            hop: Hop::ToSwitch(switch),
                            ..base(
                                a_steps,
                                src,
                                src,
                                k,
                                ChunkOp::Reduce,
                                phase_a_into[i as usize][k as usize].clone(),
                            )
                        };
                        self.push(Connection::Up { src, channel }, t)
                    })
                    .collect();
                for i in 0..nodes {
                    let dst = rank(i, k);
                    let t = Transfer {
                        hop: Hop::FromSwitch(switch),
                        ..base(a_steps + 1, dst, dst, k, ChunkOp::Copy, ups.clone())
                    };
                    let id = self.push(Connection::Down { dst, channel }, t);
                    phase_b_into[i as usize][k as usize].push(id);
                }
                continue;
            }
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
                    let mut deps: Deps = previous[((i + nodes - 1) % nodes) as usize].into_iter().collect();
                    if step == 0 {
                        // Both ends hold their node's sum of chunk k before the first exchange.
                        deps.extend(phase_a_into[i as usize][k as usize].iter().copied());
                        deps.extend(phase_a_into[to as usize][k as usize].iter().copied());
                    }
                    let (src, dst) = (rank(i, k), rank(to, k));
                    let t = Transfer {
                        offset: region_start + s_start,
                        src_offset: region_start + s_start,
                        len: s_len,
                        ..base(a_steps + step, src, dst, k, op, deps)
                    };
                    let id = self.push(peer(src, dst, 2, step), t);
                    this[i as usize] = Some(id);
                    phase_b_into[to as usize][k as usize].push(id);
                }
                previous = this;
            }
        }
        // (3) All-gather inside each node: position p sends chunk (p - s), complete after (2).
        for node in 0..nodes {
            let mut previous: Vec<Option<u32>> = vec![None; g as usize];
            for step in 0..a_steps {
                let mut this = vec![None; g as usize];
                for p in 0..g {
                    let k = (p + g - step % g) % g;
                    let to = (p + 1) % g;
                    let mut deps: Deps = previous[((p + g - 1) % g) as usize].into_iter().collect();
                    if step == 0 {
                        // The sender's chunk is final, and the receiver's reduce-scatter is over.
                        deps.extend(phase_b_into[node as usize][p as usize].iter().copied());
                        deps.extend(phase_a_into[node as usize][p as usize].iter().copied());
                        deps.extend(phase_a_into[node as usize][to as usize].iter().copied());
                    }
                    let (src, dst) = (rank(node, p), rank(node, to));
                    let id = self.push(
                        peer(src, dst, 3, 0),
                        base(a_steps + b_steps + step, src, dst, k, ChunkOp::Copy, deps),
                    );
                    this[p as usize] = Some(id);
                }
                previous = this;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::{identity_order, verify};

    #[test]
    fn hierarchical_and_collnet_allreduce_are_exact() {
        for nodes in 1..=6 {
            for g in [1, 2, 3, 8] {
                for channels in [1, 3] {
                    let schedule = hierarchical_allreduce(nodes, &[identity_order(g)], 1001, channels);
                    verify(&schedule)
                        .unwrap_or_else(|e| panic!("{nodes} nodes × {g}, {channels} channels: {e}"));
                    let schedule = collnet_allreduce(nodes, &[identity_order(g)], 1001, channels);
                    verify(&schedule)
                        .unwrap_or_else(|e| panic!("CollNet {nodes} nodes × {g}, {channels} channels: {e}"));
                }
            }
        }
    }
}

#[cfg(test)]
mod collnet_tests {
    use super::*;
    use crate::collective::identity_order;

    #[test]
    fn sharp_sends_each_byte_across_the_network_once_each_way() {
        let (nodes, g, count) = (4u32, 8u32, 8_000u64);
        let schedule = collnet_allreduce(nodes, &[identity_order(g)], count, 1);
        let up: u64 =
            schedule.transfers.iter().filter(|t| matches!(t.hop, Hop::ToSwitch(_))).map(|t| t.len).sum();
        let down: u64 =
            schedule.transfers.iter().filter(|t| matches!(t.hop, Hop::FromSwitch(_))).map(|t| t.len).sum();
        // Every node sends its sum of every chunk up once, and gets the total down once.
        assert_eq!((up, down), (nodes as u64 * count, nodes as u64 * count));
    }
}
