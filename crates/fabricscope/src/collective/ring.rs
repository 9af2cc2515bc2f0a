//! Ring AllReduce over several channels, as NCCL's ring algorithm runs it.
//!
//! Each channel owns a contiguous slice of the buffer, cut into `n` chunks, and moves it
//! around its own ring in `2(n-1)` steps:
//!
//! ```text
//! reduce-scatter, step s = 0 .. n-2:  position p sends chunk (p - s) mod n to p+1, which adds it
//! all-gather,     step s = 0 .. n-2:  position p sends chunk (p + 1 - s) mod n to p+1, which copies it
//! ```
//!
//! After the reduce-scatter, position p holds the complete sum of chunk (p + 1) mod n; the
//! all-gather passes every complete chunk once around the ring. A transfer waits only for the
//! chunk it forwards to arrive (the previous step at position p-1), and for a free slot: NCCL
//! keeps `NCCL_STEPS` = 8 slots in flight per channel and connection (`src/include/device.h`),
//! so a send waits for its own send 8 steps earlier, not for the previous one. Its data does
//! follow the previous send's on the connection (`Transfer::after`: a FIFO), but its latency
//! overlaps. Latency is therefore paid along each chunk's path, which is why NCCL's ring
//! latency model counts `2(nNodes-1)` network steps, not `2(n-1)` (`tuning.cc`), and a fast
//! part of the ring cannot run more than 8 steps ahead of a slow link.
//!
//! Ring order (`ring_order`): across nodes the ring enters a node through one NIC and leaves
//! through another, like NCCL's rings. Channel c visits each node's GPUs starting at local GPU
//! c, so the node is left from GPU c-1 (through NIC c-1) into the next node's GPU c (through
//! NIC c): with one channel per NIC every NIC sends one channel and receives another.

use super::protocol::Protocol;
use super::schedule::Hop;
use super::schedule::{Algorithm, ChunkOp, Deps, Probe, Region, Schedule, Transfer};
use crate::scenario::Collective;

/// Slots a channel keeps in flight per connection (NCCL's `NCCL_STEPS`).
pub const NCCL_STEPS: u32 = 8;

/// The ranks of channel `channel`'s ring, in ring order. `rings` are the orders a ring may visit
/// a node's GPUs (the preset's NVLink rings); channel c uses ring c mod their number and starts
/// each node at position c of it.
pub fn ring_order<R: AsRef<[u32]>>(nodes: u32, rings: &[R], channel: u32) -> Vec<u32> {
    let intra = rings[channel as usize % rings.len()].as_ref();
    let g = intra.len() as u32;
    let start = channel % g;
    (0..nodes).flat_map(|node| (0..g).map(move |i| node * g + intra[((start + i) % g) as usize])).collect()
}

/// The identity intra-node order 0, 1, …, g-1.
pub fn identity_order(gpus_per_node: u32) -> Vec<u32> {
    (0..gpus_per_node).collect()
}

/// Ring AllReduce of `count` elements on `nodes × GPUs per node` ranks over `n_channels` rings.
pub fn ring_allreduce<R: AsRef<[u32]>>(nodes: u32, rings: &[R], count: u64, n_channels: u32) -> Schedule {
    let n = nodes * rings[0].as_ref().len() as u32;
    ring_allreduce_steps(nodes, rings, count, n_channels, 2 * (n - 1), Part::all(n_channels, n))
}

/// The first `steps` of the ring AllReduce's `2(n-1)` steps (all of them if fewer).
fn ring_allreduce_steps<R: AsRef<[u32]>>(
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
    steps: u32,
    built: Part,
) -> Schedule {
    let n = nodes * rings[0].as_ref().len() as u32;
    let steps = steps.min(2 * (n - 1));
    let transfers = ring_steps(nodes, rings, count, n_channels, steps, built, |step, position| {
        if step + 1 < n {
            ((position + n - step % n) % n, ChunkOp::Reduce)
        } else {
            let s = step - (n - 1);
            ((position + 1 + n - s % n) % n, ChunkOp::Copy)
        }
    });
    ring_schedule(Collective::AllReduce, n, n_channels, count, steps, Vec::new(), transfers)
}

/// The step count of a ring collective on `n` ranks whose steps are all alike, what
/// `ring_prefix` cuts short: `None` for other collectives, fewer than 2 ranks, or a channel's
/// slice that does not cut into `n` equal chunks (chunk sizes would then change from step to
/// step).
pub fn ring_steady_steps(collective: Collective, n: u32, count: u64, n_channels: u32) -> Option<u32> {
    let total = match collective {
        Collective::AllReduce => 2 * n.checked_sub(1)?,
        Collective::AllGather | Collective::ReduceScatter => n.checked_sub(1)?,
        _ => return None,
    };
    let equal = (0..n_channels).all(|channel| slice(count, n_channels, channel).1 % n as u64 == 0);
    (equal && n >= 2).then_some(total)
}

/// Fewest elements of each chunk of a ring rounded to steps alike (`ring_rounded_count`), the
/// smallest `tests/rounded.rs` validates.
pub const LEAST_ROUNDED_CHUNK: u64 = 64;

/// Where a ring's steps differ only because `count` is not a multiple of `n` ranks ×
/// `n_channels` (its chunks differ by one element), the count rounded down to that multiple,
/// whose steps are all alike: `None` where they are alike already, or where a chunk would keep
/// fewer than `LEAST_ROUNDED_CHUNK` elements. Each chunk of the ring of `count` elements has the
/// rounded ring's p elements or one more; but chunks that differ finish apart, and the channels
/// sharing a link drift out of step, so the two rings' times differ by more than 1/p: by -0.9% to
/// +2.5% where both run (`tests/rounded.rs`, `simulation::ROUNDING_BOUND`; at most 0.13% below
/// 1,024 elements, where latency weighs most).
pub fn ring_rounded_count(collective: Collective, n: u32, count: u64, n_channels: u32) -> Option<u64> {
    ring_steady_steps(collective, n, count, n_channels).is_none().then_some(())?;
    let unit = n as u64 * n_channels.max(1) as u64;
    let rounded = count / unit * unit;
    let alike = ring_steady_steps(collective, n, rounded, n_channels).is_some();
    (alike && rounded / unit >= LEAST_ROUNDED_CHUNK).then_some(rounded)
}

/// A ring collective cut short for the steady-state run (`simulation::Steady`): its first
/// `steps` steps, the whole collective's step count, and where the engine may look for a steady
/// state. `None` unless its steps are all alike (`ring_steady_steps`) and `steps` is at least
/// 3 × `NCCL_STEPS` and short of the whole.
pub fn ring_prefix<R: AsRef<[u32]>>(
    collective: Collective,
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
    steps: u32,
) -> Option<(Schedule, u32, Probe)> {
    let n = nodes * rings[0].as_ref().len() as u32;
    let (total, probe) = prefix_frame(collective, n, count, n_channels, steps)?;
    let schedule =
        ring_steps_of(collective, nodes, rings, count, n_channels, steps, Part::all(n_channels, n));
    Some((schedule, total, probe))
}

/// `ring_prefix`'s whole step count and probe, where it has a prefix of `steps` steps.
fn prefix_frame(
    collective: Collective,
    n: u32,
    count: u64,
    n_channels: u32,
    steps: u32,
) -> Option<(u32, Probe)> {
    let total = ring_steady_steps(collective, n, count, n_channels)?;
    if steps < 3 * NCCL_STEPS || steps >= total {
        return None;
    }
    let unit = n * n_channels;
    let probe =
        Probe { unit, regular_from: NCCL_STEPS * unit, frontier: (steps - NCCL_STEPS) * unit, stop: false };
    Some((total, probe))
}

/// Channel 0 of `ring_prefix`'s schedule alone, numbered as `engine::symmetry`'s `channel_zero`
/// numbers it: what a folded run of the prefix runs, built without the other channels.
pub fn ring_prefix_channel_zero<R: AsRef<[u32]>>(
    collective: Collective,
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
    steps: u32,
) -> Option<Schedule> {
    alike_prefix(collective, nodes, rings, count, n_channels, steps, (1, 0))
}

/// Channel 0 of a whole ring whose steps all look alike, numbered as `Symmetry::channel_zero`
/// numbers the whole's: what a run folded by its channels runs, built without the other
/// channels (a sweep's point, `simulation::exact::ring_point`).
pub fn ring_channel_zero<R: AsRef<[u32]>>(
    collective: Collective,
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
) -> Option<Schedule> {
    let n = nodes * rings[0].as_ref().len() as u32;
    let total = ring_steady_steps(collective, n, count, n_channels)?;
    Some(ring_steps_of(collective, nodes, rings, count, n_channels, total, Part::all(1, n)))
}

/// Channel 0 of `ring_prefix`'s schedule for the positions of its first `class_nodes` nodes
/// alone, each position's predecessor wrapping around within them (position 0 waits for the
/// last of them, as it would for its image): what a run folded by a rotation of the ring by
/// `class_nodes` nodes runs (`engine::rotation`). Destinations stay the real ones. Up to every
/// step of the ring (a ring run whole turns as its prefixes do).
pub fn ring_prefix_rotated<R: AsRef<[u32]>>(
    collective: Collective,
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
    steps: u32,
    class_nodes: u32,
) -> Option<Schedule> {
    let n = nodes * rings[0].as_ref().len() as u32;
    let positions = class_nodes.min(nodes) * rings[0].as_ref().len() as u32;
    let total = ring_steady_steps(collective, n, count, n_channels)?;
    (steps >= 1 && steps <= total)
        .then(|| ring_steps_of(collective, nodes, rings, count, n_channels, steps, Part::all(1, positions)))
}

/// The first `steps` steps of a ring collective whose steps all look alike, however few: what
/// an extrapolated ring too big for the steady-state search shows (`simulation::fluid`).
pub fn ring_shown_prefix<R: AsRef<[u32]>>(
    collective: Collective,
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
    steps: u32,
) -> Option<Schedule> {
    alike_prefix(collective, nodes, rings, count, n_channels, steps, (n_channels, 0))
}

/// The first `steps` (at least 2, short of the whole) of a ring whose steps all look alike,
/// its first `channels` channels and their first `positions` positions (all of them if 0;
/// `ring_steps`).
fn alike_prefix<R: AsRef<[u32]>>(
    collective: Collective,
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
    steps: u32,
    (channels, positions): (u32, u32),
) -> Option<Schedule> {
    let n = nodes * rings[0].as_ref().len() as u32;
    let total = ring_steady_steps(collective, n, count, n_channels)?;
    let positions = if positions == 0 { n } else { positions.min(n) };
    (steps >= 2 && steps < total).then(|| {
        ring_steps_of(collective, nodes, rings, count, n_channels, steps, Part::all(channels, positions))
    })
}

/// Which part of a ring's transfers a builder makes (`ring_steps`): its first `channels`
/// channels, of each its first `positions` positions, the steps from `from` on.
#[derive(Clone, Copy, Debug)]
struct Part {
    channels: u32,
    positions: u32,
    from: u32,
}

impl Part {
    fn all(channels: u32, positions: u32) -> Part {
        Part { channels, positions, from: 0 }
    }
}

/// Steps `from..to` of `ring_prefix`'s transfers, numbered as it numbers them: a prefix built a
/// few steps at a time by a caller that must stay responsive (`ring_prefix_of` wraps them).
pub fn ring_prefix_steps<R: AsRef<[u32]>>(
    collective: Collective,
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
    (from, to): (u32, u32),
) -> Vec<Transfer> {
    let n = nodes * rings[0].as_ref().len() as u32;
    let part = Part { channels: n_channels, positions: n, from: from.min(to) };
    ring_steps_of(collective, nodes, rings, count, n_channels, to, part).transfers
}

/// `ring_prefix` of `steps` steps from its transfers, built by `ring_prefix_steps` in order.
pub fn ring_prefix_of<R: AsRef<[u32]>>(
    collective: Collective,
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
    steps: u32,
    transfers: Vec<Transfer>,
) -> Option<(Schedule, u32, Probe)> {
    let n = nodes * rings[0].as_ref().len() as u32;
    let (total, probe) = prefix_frame(collective, n, count, n_channels, steps)?;
    if transfers.len() as u64 != steps as u64 * n as u64 * n_channels as u64 {
        return None;
    }
    // No transfers built: the schedule's frame (regions, counts) around the ones given.
    let part = Part { channels: n_channels, positions: n, from: steps };
    let schedule = ring_steps_of(collective, nodes, rings, count, n_channels, steps, part);
    Some((Schedule { transfers, ..schedule }, total, probe))
}

/// The first `steps` steps of a ring collective, the part `built` says.
fn ring_steps_of<R: AsRef<[u32]>>(
    collective: Collective,
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
    steps: u32,
    built: Part,
) -> Schedule {
    match collective {
        Collective::AllReduce => ring_allreduce_steps(nodes, rings, count, n_channels, steps, built),
        Collective::AllGather => {
            ring_gather_or_scatter_steps(true, nodes, rings, count, n_channels, steps, built)
        }
        _ => ring_gather_or_scatter_steps(false, nodes, rings, count, n_channels, steps, built),
    }
}

/// Ring AllGather (`gather`) or ReduceScatter: `n-1` steps of the ring. Chunk k of each
/// channel's slice belongs to the rank at ring position k: in an AllGather that rank starts with
/// it and position p sends chunk (p - s) mod n at step s; in a ReduceScatter it ends with its
/// sum, position p adding chunk (p - s - 1) mod n into its successor's copy.
pub fn ring_gather_or_scatter<R: AsRef<[u32]>>(
    gather: bool,
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
) -> Schedule {
    let n = nodes * rings[0].as_ref().len() as u32;
    ring_gather_or_scatter_steps(gather, nodes, rings, count, n_channels, n - 1, Part::all(n_channels, n))
}

/// The first `steps` of a ring AllGather or ReduceScatter (all of them if fewer).
fn ring_gather_or_scatter_steps<R: AsRef<[u32]>>(
    gather: bool,
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
    steps: u32,
    built: Part,
) -> Schedule {
    let n = nodes * rings[0].as_ref().len() as u32;
    let steps = steps.min(n - 1);
    let mut regions = Vec::new();
    for channel in 0..n_channels {
        let order = ring_order(nodes, rings, channel);
        let (start, len) = slice(count, n_channels, channel);
        for k in 0..n {
            let (chunk_start, chunk_len) = slice(len, n, k);
            regions.push(Region { start: start + chunk_start, len: chunk_len, rank: order[k as usize] });
        }
    }
    let (shift, op) = if gather { (0, ChunkOp::Copy) } else { (1, ChunkOp::Reduce) };
    let transfers = ring_steps(nodes, rings, count, n_channels, steps, built, |step, position| {
        ((position + 2 * n - step - shift) % n, op)
    });
    let collective = if gather { Collective::AllGather } else { Collective::ReduceScatter };
    ring_schedule(collective, n, n_channels, count, steps, regions, transfers)
}

/// The transfers of `n_steps` ring steps: at every step, every channel's position p sends the
/// chunk `chunk_op(step, p)` names to position p+1, after the chunk it forwards has arrived and
/// a slot is free (`NCCL_STEPS`), its data following its previous send's (FIFO). Only `part` is
/// built: its first channels (all of them, or channel 0 alone, numbered as `engine::symmetry`'s
/// `channel_zero` numbers it), of each its first positions, whose predecessors wrap around within
/// them (all `n`, or a rotation's class, `ring_prefix_rotated`), from its first step on (numbered
/// as if every step were built: `ring_prefix_steps`).
fn ring_steps<R: AsRef<[u32]>>(
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
    n_steps: u32,
    part: Part,
    chunk_op: impl Fn(u32, u32) -> (u32, ChunkOp),
) -> Vec<Transfer> {
    let n = nodes * rings[0].as_ref().len() as u32;
    let Part { channels: built, positions, from } = part;
    let at =
        |step: u32, channel: u32, position: u32| -> u32 { (step * built + channel) * positions + position };
    let orders: Vec<Vec<u32>> = (0..built).map(|channel| ring_order(nodes, rings, channel)).collect();
    let mut transfers = Vec::with_capacity((n_steps.saturating_sub(from) * positions * built) as usize);
    for step in from..n_steps {
        for channel in 0..built {
            let order = &orders[channel as usize];
            let (start, len) = slice(count, n_channels, channel);
            for position in 0..positions {
                let (chunk, op) = chunk_op(step, position);
                let (chunk_start, chunk_len) = slice(len, n, chunk);
                let mut deps = Deps::new();
                if step >= NCCL_STEPS {
                    deps.push(at(step - NCCL_STEPS, channel, position));
                }
                if step > 0 {
                    deps.push(at(step - 1, channel, (position + positions - 1) % positions));
                }
                debug_assert_eq!(transfers.len() as u32, at(step, channel, position) - at(from, 0, 0));
                transfers.push(Transfer {
                    step,
                    channel,
                    src: order[position as usize],
                    dst: order[((position + 1) % n) as usize],
                    chunk,
                    offset: start + chunk_start,
                    src_offset: start + chunk_start,
                    from_input: false,
                    len: chunk_len,
                    op,
                    deps,
                    after: (step > 0).then(|| at(step - 1, channel, position)),
                    hop: Hop::Peer,
                });
            }
        }
    }
    transfers
}

fn ring_schedule(
    collective: Collective,
    n: u32,
    n_channels: u32,
    count: u64,
    n_steps: u32,
    regions: Vec<Region>,
    transfers: Vec<Transfer>,
) -> Schedule {
    Schedule {
        regions,
        ..Schedule::new(collective, Algorithm::Ring, n, n_channels, count, n_steps, transfers)
    }
}

/// Bytes per pipeline chunk of a chain in NCCL's Simple protocol: one of its slots,
/// NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8 (`src/include/device.h`).
pub const CHAIN_CHUNK_BYTES: u64 = 512 << 10;

/// LL's chunk: one of NCCL_STEPS slots of its 512 KiB buffer (`DEFAULT_LL_BUFFSIZE`), half of
/// it flags (`calcCollChunking`: `chunkSize /= 2`).
pub const LL_CHUNK_BYTES: u64 = 32 << 10;

/// LL128's chunk: a slot of its 4,915,200-byte buffer (`DEFAULT_LL128_BUFFSIZE` / NCCL_STEPS =
/// 614,400 B), 15 data elements in every 16; a whole number of LL128's 1,920 B grains.
pub const LL128_CHUNK_BYTES: u64 = 576_000;

/// Most chunks a channel's slice is cut into (larger messages get larger chunks), which bounds
/// the engine's work.
pub const MAX_CHAIN_CHUNKS: u32 = 128;

/// The chunk NCCL 2.30 cuts a ring Broadcast's or Reduce's channel into with `protocol`
/// (`src/enqueue.cc`, `calcCollChunking`: one step of the protocol's buffer, `BROADCAST_` and
/// `REDUCE_CHUNKSTEPS` 1, never halved for Ring): 512 KiB Simple, 32 KiB LL, 576,000 B LL128.
pub fn chain_chunk_bytes(protocol: Protocol) -> u64 {
    match protocol {
        Protocol::Simple => CHAIN_CHUNK_BYTES,
        Protocol::Ll => LL_CHUNK_BYTES,
        Protocol::Ll128 => LL128_CHUNK_BYTES,
    }
}

/// Chunks a channel's slice of `elements` is pipelined in with `protocol` (`chain_chunk_bytes`),
/// at most `MAX_CHAIN_CHUNKS` (bigger ones beyond).
pub fn chain_chunks(protocol: Protocol, elements: u64) -> u32 {
    let chunk = chain_chunk_bytes(protocol);
    (elements * super::ELEM_BYTES).div_ceil(chunk).clamp(1, MAX_CHAIN_CHUNKS as u64) as u32
}

/// `chain_chunks` in the forced `protocol`, or, where none is forced, in the protocol that cuts
/// the slice finest: the chunks validation counts before the tuner has picked.
pub fn chain_chunks_counted(protocol: Option<Protocol>, elements: u64) -> u32 {
    match protocol {
        Some(protocol) => chain_chunks(protocol, elements),
        None => Protocol::ALL.into_iter().map(|p| chain_chunks(p, elements)).max().unwrap_or(1),
    }
}

/// Broadcast (`reduce` false) or Reduce along the ring as a pipelined chain: the ring is rotated
/// so the data flows from the root (Broadcast) or into it (Reduce) over `n-1` hops; each
/// channel's slice is cut into `chain_chunks` chunks of NCCL's size for `protocol`, and chunk j
/// crosses hop h at step j + h, so all hops work at once after the pipeline fills (NCCL's ring Broadcast
/// and Reduce). A chunk's data follows the previous chunk's on a hop, its latency overlaps:
/// the time is `hops·α + (chunks + hops - 1)·chunk/B`.
pub fn ring_chain<R: AsRef<[u32]>>(
    reduce: bool,
    nodes: u32,
    rings: &[R],
    count: u64,
    (n_channels, protocol): (u32, Protocol),
    root: u32,
) -> Schedule {
    let n = nodes * rings[0].as_ref().len() as u32;
    let chunks = chain_chunks(protocol, count.div_ceil(n_channels as u64));
    let mut transfers = Vec::with_capacity((n_channels * chunks * (n - 1)) as usize);
    for channel in 0..n_channels {
        ring_chain_channel(
            reduce,
            nodes,
            rings,
            count,
            (n_channels, protocol),
            root,
            channel,
            &mut transfers,
        );
    }
    ring_chain_of(reduce, (n, n_channels), count, protocol, root, transfers)
}

/// `ring_chain`'s channel `channel`, appended to `transfers`, which holds the channels before it:
/// the chain built a channel at a time (`simulation::chain`'s run on fewer nodes).
#[allow(clippy::too_many_arguments)]
pub fn ring_chain_channel<R: AsRef<[u32]>>(
    reduce: bool,
    nodes: u32,
    rings: &[R],
    count: u64,
    (n_channels, protocol): (u32, Protocol),
    root: u32,
    channel: u32,
    transfers: &mut Vec<Transfer>,
) {
    let n = nodes * rings[0].as_ref().len() as u32;
    let hops = n - 1;
    let chunks = chain_chunks(protocol, count.div_ceil(n_channels as u64));
    let at = |channel: u32, chunk: u32, hop: u32| -> u32 { (channel * chunks + chunk) * hops + hop };
    let order = chain_order(reduce, nodes, rings, channel, root);
    let (start, len) = slice(count, n_channels, channel);
    for chunk in 0..chunks {
        let (chunk_start, chunk_len) = slice(len, chunks, chunk);
        for hop in 0..hops {
            let mut deps = Deps::new();
            if hop > 0 {
                deps.push(at(channel, chunk, hop - 1));
            }
            debug_assert_eq!(transfers.len() as u32, at(channel, chunk, hop));
            transfers.push(Transfer {
                step: chunk + hop,
                channel,
                src: order[hop as usize],
                dst: order[hop as usize + 1],
                chunk,
                offset: start + chunk_start,
                src_offset: start + chunk_start,
                from_input: false,
                len: chunk_len,
                op: if reduce { ChunkOp::Reduce } else { ChunkOp::Copy },
                deps,
                after: (chunk > 0).then(|| at(channel, chunk - 1, hop)),
                hop: Hop::Peer,
            });
        }
    }
}

/// Channel `channel`'s ring turned so the data flows from `root` (Broadcast) or into it
/// (Reduce, `reduce`): the chain's ranks in order, as `ring_chain_channel` lays its hops.
pub fn chain_order<R: AsRef<[u32]>>(
    reduce: bool,
    nodes: u32,
    rings: &[R],
    channel: u32,
    root: u32,
) -> Vec<u32> {
    let mut order = ring_order(nodes, rings, channel);
    // Rotate the ring: the root first (Broadcast) or last (Reduce).
    let at_root = order.iter().position(|&r| r == root).unwrap_or(0);
    let n = order.len();
    order.rotate_left((at_root + usize::from(reduce)) % n);
    order
}

/// The schedule of a chain of `n` ranks over `n_channels` channels whose every channel
/// `ring_chain_channel` has appended to `transfers`.
pub fn ring_chain_of(
    reduce: bool,
    (n, n_channels): (u32, u32),
    count: u64,
    protocol: Protocol,
    root: u32,
    transfers: Vec<Transfer>,
) -> Schedule {
    let hops = n - 1;
    let chunks = chain_chunks(protocol, count.div_ceil(n_channels as u64));
    let collective = if reduce { Collective::Reduce } else { Collective::Broadcast };
    let n_steps = if hops == 0 { 0 } else { chunks + hops - 1 };
    Schedule { root, ..Schedule::new(collective, Algorithm::Ring, n, n_channels, count, n_steps, transfers) }
}

/// The first step of a ring collective alone: every step moves the same bytes between the same
/// ranks when `ring_prefix` applies, so one step's link bytes times the step count are the
/// whole collective's (the tuner's bound).
pub fn ring_first_step<R: AsRef<[u32]>>(
    collective: Collective,
    nodes: u32,
    rings: &[R],
    count: u64,
    n_channels: u32,
) -> Option<Schedule> {
    matches!(collective, Collective::AllReduce | Collective::AllGather | Collective::ReduceScatter).then(
        || {
            let n = nodes * rings[0].as_ref().len() as u32;
            ring_steps_of(collective, nodes, rings, count, n_channels, 1, Part::all(n_channels, n))
        },
    )
}

/// (start, length) of part `k` when `total` is cut into `parts` parts differing by at most one.
pub(crate) fn slice(total: u64, parts: u32, k: u32) -> (u64, u64) {
    let start = split(total, parts, k);
    (start, split(total, parts, k + 1) - start)
}

/// Start of part `k` when `total` is cut into `parts` parts whose sizes differ by at most one.
fn split(total: u64, parts: u32, k: u32) -> u64 {
    (total as u128 * k as u128 / parts as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_crosses_nodes_through_different_nics() {
        assert_eq!(ring_order(1, &[&identity_order(4)], 0), [0, 1, 2, 3]);
        assert_eq!(ring_order(2, &[&identity_order(4)], 1), [1, 2, 3, 0, 5, 6, 7, 4]);
        assert_eq!(ring_order(2, &[&[0, 1, 2, 3], &[0, 2, 1, 3]], 1), [2, 1, 3, 0, 6, 5, 7, 4]);
    }

    /// NCCL 2.30's ring Broadcast and Reduce chunks (`calcCollChunking`, never halved for Ring),
    /// and the chain built in them runs right on integers in every protocol.
    #[test]
    fn chain_chunks_are_nccls() {
        let elements = |bytes: u64| bytes / super::super::ELEM_BYTES;
        // 4 MiB over 8 channels: 512 KiB a channel.
        assert_eq!(chain_chunks(Protocol::Simple, elements(512 << 10)), 1);
        assert_eq!(chain_chunks(Protocol::Ll, elements(512 << 10)), 16);
        assert_eq!(chain_chunks(Protocol::Ll128, elements(512 << 10)), 1);
        // 2 MiB a channel: LL128's 576,000 B four times (the last short).
        assert_eq!(chain_chunks(Protocol::Ll128, elements(2 << 20)), 4);
        assert_eq!(chain_chunks(Protocol::Ll, elements(128 << 20)), MAX_CHAIN_CHUNKS);
        for protocol in Protocol::ALL {
            let count = 4 * elements(chain_chunk_bytes(protocol)) + 3;
            for reduce in [false, true] {
                let chain = ring_chain(reduce, 1, &[&identity_order(4)], count, (2, protocol), 1);
                let chunks = chain_chunks(protocol, count.div_ceil(2));
                assert_eq!(chunks, 3, "{protocol:?}");
                assert_eq!(chain.transfers.len() as u32, chunks * 3 * 2);
                assert_eq!(chain.n_steps, chunks + 2);
                super::super::verify(&chain).unwrap();
            }
        }
    }

    #[test]
    fn shape() {
        let schedule = ring_allreduce(1, &[&identity_order(8)], 1000, 2);
        assert_eq!(schedule.n_steps, 14);
        assert_eq!(schedule.transfers.len(), 14 * 8 * 2);
        let bytes: u64 = schedule.transfers.iter().map(|t| t.bytes()).sum();
        // Each rank sends 2(n-1)/n of the buffer: 8 ranks × 14/8 × 4000 B.
        assert_eq!(bytes, 8 * 14 * 4000 / 8);
        // Dependencies always point backwards.
        for (index, transfer) in schedule.transfers.iter().enumerate() {
            assert!(transfer.deps.iter().all(|&dep| (dep as usize) < index));
        }
    }
}
