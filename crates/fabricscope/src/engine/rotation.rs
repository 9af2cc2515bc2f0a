//! Node rotation: a ring's ranks standing for the whole ring, a few nodes for all of them.
//!
//! One channel of a ring collective whose chunks are all alike is a system that turning the ring
//! by whole nodes maps onto itself: position p of step s sends as position p + m·g does (g GPUs
//! per node), the same bytes after the same dependencies, shifted. If the routes turn with it —
//! one injective map τ of the links, built link by link from the routed paths of one step (every
//! step uses the same connections), keeping every link's kind, latency and capacity — then max-min
//! fair sharing, which has one solution, keeps τ too: every image of a flow moves exactly as the
//! flow does. `find` proves it for the smallest m that divides the node count, or says no.
//!
//! The engine then runs the first m nodes' positions alone (`collective::ring_prefix_rotated`: a
//! position's predecessor wraps around within them, its destination stays the real one) on the
//! links folded into their orbits under τ (`Fold`), as `symmetry` folds channels: an orbit `O`
//! becomes one link of capacity `c × |O| / (N/m)` for N nodes. The system it folds may itself be
//! channel 0 on the channel-folded links (`symmetry::Fold`); the proof is then the same one on
//! that system, whose links are the representatives and whose capacities are the folded ones.
//!
//! Used by the extrapolated ring's measuring run (`simulation::fluid`), where it turns a
//! 131,072-rank step into a few hundred transfers: `tests/rotation.rs` holds its per-step
//! finishes to the unfolded run's.

use super::symmetry::{alike_kind, orbits, Fold, LinkMap};
use crate::topology::{LinkId, Topology};
use crate::trace::{FlowRecord, Trace};

/// A ring's proved rotation by whole nodes, and the links folded into its orbits.
#[derive(Clone, Debug)]
pub struct Rotation {
    /// Nodes whose positions stand for the ring (m).
    pub nodes: u32,
    /// The links folded into their orbits (composed with the system's own fold, if any).
    pub fold: Fold,
    /// Of each link of the system folded (a representative of its own fold, if any): its orbit
    /// representative under τ and the orbit's size; and the classes N/m.
    orbit_rep: Vec<LinkId>,
    orbit: Vec<u32>,
    classes: u32,
}

impl Rotation {
    /// The proof for one channel's step on `topology`: `paths[p]` is the routed path of ring
    /// position p (positions in ring order, `nodes` nodes of equally many positions), on the
    /// links of `base` where the channel already runs folded (`symmetry::Fold`), else on the
    /// cluster's. The caller vouches that the step's transfers are alike (same bytes, the
    /// predecessor's dependency) and that routes are static on a lossless fabric. `None` if no
    /// rotation by fewer than `nodes` nodes keeps the routes.
    pub fn find(
        topology: &Topology,
        base: Option<&Fold>,
        paths: &[Vec<LinkId>],
        nodes: u32,
    ) -> Option<Rotation> {
        let n = paths.len();
        if nodes < 2 || n == 0 || n % nodes as usize != 0 {
            return None;
        }
        let g = n / nodes as usize;
        let n_links = topology.n_links();
        let rep = |l: LinkId| base.map_or(l, |fold| fold.rep[l.index()]);
        let capacity = |l: LinkId| {
            base.map_or_else(|| topology.link(l).capacity().bytes_per_ns(), |fold| fold.capacity[l.index()])
        };
        let folded: Vec<Vec<LinkId>> =
            paths.iter().map(|path| path.iter().map(|&l| rep(l)).collect()).collect();
        (1..nodes).filter(|m| nodes % m == 0).find_map(|m| {
            let classes = nodes / m;
            let shift = m as usize * g;
            let mut sigma = LinkMap::new(n_links);
            let alike = |a: LinkId, b: LinkId| {
                alike_kind(topology.link(a), topology.link(b)) && capacity(a) == capacity(b)
            };
            for (p, from) in folded.iter().enumerate() {
                if !sigma.carry(from, &folded[(p + shift) % n], alike) {
                    return None;
                }
            }
            // Orbits: τ^(N/m) is the identity on every link a path uses.
            let (orbit_rep, orbit) = orbits(&sigma.permutation()?, classes as usize)?;
            let fold = Fold {
                rep: (0..n_links).map(|l| orbit_rep[rep(LinkId(l as u32)).index()]).collect(),
                capacity: (0..n_links)
                    .map(|l| capacity(LinkId(l as u32)) * orbit[l] as f64 / classes as f64)
                    .collect(),
            };
            Some(Rotation { nodes: m, fold, orbit_rep, orbit, classes })
        })
    }
}

impl Rotation {
    /// The whole channel's run from the rotated one (`collective::ring_prefix_rotated`'s
    /// transfers, `steps` steps of `class` positions): every position's flows, numbered as
    /// `Symmetry::channel_zero` numbers them (step × n + position), with its class
    /// representative's times and rates on its own routed path (`paths`, the proof's); each
    /// link's peak its orbit's, divided through (on the system's links: the channel fold's
    /// representatives, which `Symmetry::expand` carries on).
    pub fn expand(&self, rotated: Trace, paths: &[Vec<LinkId>], steps: u32) -> Trace {
        let n = paths.len();
        let class = n / self.classes as usize;
        let mut flows = Vec::with_capacity(steps as usize * n);
        for step in 0..steps as usize {
            for (p, path) in paths.iter().enumerate() {
                let source = &rotated.flows[step * class + p % class];
                flows.push(FlowRecord {
                    transfer: (step * n + p) as u32,
                    path: path.clone(),
                    bytes: source.bytes,
                    issued: source.issued,
                    started: source.started,
                    finished: source.finished,
                    segments: source.segments.clone(),
                });
            }
        }
        let link_peak = self.link_peak(&rotated.link_peak);
        Trace::of_flows(flows, self.orbit_rep.len(), link_peak, rotated.batches)
    }

    /// Each link's peak in the whole channel: its orbit's rotated peak × the classes / the
    /// orbit's size.
    fn link_peak(&self, rotated: &[f64]) -> Vec<f64> {
        (0..self.orbit_rep.len())
            .map(|l| rotated[self.orbit_rep[l].index()] * self.classes as f64 / self.orbit[l] as f64)
            .collect()
    }

    /// `Trace::hash` of the whole run where `rotated` ran for channel 0 of `copies`, channels
    /// that are copies of one another on the same links (`Symmetry::copies` of a SendRecv, whose
    /// channels come one after another): every flow made and hashed one at a time, in schedule
    /// order (channel, then step, then position), on its position's routed path (`paths`, the
    /// proof's) with its class representative's record; each link's bytes summed in integers and
    /// its peak the rotation's times the channels, as `expand` and `Symmetry::expanded_hash` give
    /// them. Held to the whole run's hash by `tests/turned.rs`.
    pub fn copies_hash(&self, rotated: &Trace, paths: &[Vec<LinkId>], steps: u32, copies: u32) -> u64 {
        let n = paths.len();
        let class = n / self.classes as usize;
        let records: Vec<u64> = rotated.flows.iter().map(crate::trace::record_hash).collect();
        let mut hash = crate::hash::Fnv::default();
        hash.word_rotated(copies as u64 * steps as u64 * n as u64);
        let mut index = 0u32;
        for _ in 0..copies {
            for step in 0..steps as usize {
                for (p, path) in paths.iter().enumerate() {
                    let record = records[step * class + p % class];
                    crate::trace::hash_flow(&mut hash, index, path.iter().copied(), record);
                    index += 1;
                }
            }
        }
        // A position's flows over the steps carry its class position's bytes: summed once per
        // class position, then spread over each position's path (integers: the same sums).
        let class_bytes: Vec<u64> = (0..class)
            .map(|c| (0..steps as usize).map(|step| rotated.flows[step * class + c].bytes).sum())
            .collect();
        let mut link_bytes = vec![0u64; self.orbit_rep.len()];
        for (p, path) in paths.iter().enumerate() {
            let bytes = class_bytes[p % class] * copies as u64;
            for link in path {
                link_bytes[link.index()] += bytes;
            }
        }
        let end = rotated.flows.iter().map(|f| f.finished).max().unwrap_or(crate::units::SimTime::ZERO);
        let link_peak: Vec<f64> =
            self.link_peak(&rotated.link_peak).iter().map(|&peak| peak * copies as f64).collect();
        let bytes = link_bytes.iter().map(|&b| b as f64);
        crate::trace::hash_tail(hash, end, bytes, &link_peak, rotated.batches)
    }
}
