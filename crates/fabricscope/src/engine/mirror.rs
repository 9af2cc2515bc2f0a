//! NCCL's two trees folded into one lane: NVLSTree's finer run, whose end alone is read
//! (`simulation::chunk_fit`), and every run of a tree's lanes that `simulation::exact::
//! folded_stage` sets up, whose two lanes' trace `Symmetry::unmirrored` rebuilds from lane 0's.
//!
//! A proof of stride 2 (`Symmetry::find_strided`) runs two lanes for all: channel 0 (tree 0)
//! and channel 1 (tree 1), or of an NVLSTree part 0 of each, σ carrying each onto the lanes two
//! further on. On an even number of nodes NCCL's tree 1 is tree 0 mirrored (`collective::dtree`:
//! node n becomes node N − 1 − n), and where the fabric has the same mirror (a fat-tree of whole
//! leaf groups, static routes) lane 1 is lane 0's image under a link permutation τ as well.
//! `Symmetry::mirrored` proves it, or says no:
//!
//! - ρ, the ranks' mirror (node N − 1 − n, the same GPU of it), pairs each transfer of lane 0
//!   with the one of lane 1 between the mirrored ranks, in the same step, chunk, operation,
//!   length and hop (a node's NVSwitch mirrored too): a bijection π, which keeps every
//!   dependency and every connection's order (`after`);
//! - τ is built from the routed paths, lane 0's onto lane 1's and back, one image per link,
//!   every pair alike (`linkmap::alike`): an involution;
//! - τ̃, τ carried to every lane by σ (τ̃(σʲ(l)) = σʲ(τ(l))), is one permutation, so it commutes
//!   with σ.
//!
//! The flows of all lanes are then a system that σ and τ̃ both map onto itself (lane σʲ(0) onto
//! σʲ(1) and back, position for position through π, dependencies and latencies kept), and the
//! group they make, σ's order × 2 elements, carries lane 0 onto every lane exactly once. The
//! fold of `symmetry` holds for it as for σ alone: an orbit O of the group becomes one link of
//! capacity c × |O| / (2 × σ's order) that lane 0's flows cross as often as their paths meet O.
//! Max-min sharing has one solution, which the group keeps, so lane 0 alone moves as it did
//! beside lane 1: the same end, up to the order floating-point sums are taken in
//! (`tests/mirror.rs` holds the end to the two-lane run's and to every transfer run, and the
//! rebuilt trace to the two lanes' run bit for bit).

use super::linkmap::{alike, LinkMap};
use super::symmetry::{Fold, Symmetry};
use crate::collective::{Hop, Schedule, SwitchRef, Transfer};
use crate::hash::FixedState;
use crate::topology::{LinkId, Topology};

/// The mirror's fold of the two lanes that run for all (`Symmetry::mirrored`), and how lane 1
/// is lane 0's image.
#[derive(Clone, Debug)]
pub struct Mirrored {
    pub fold: Fold,
    /// Lane 0's i-th transfer's mirror image is lane 1's `pairs[i]`-th.
    pairs: Vec<u32>,
}

impl Symmetry {
    /// Lane 0 of `built` (the two lanes that run, lane 0's transfers first, numbered as in
    /// `built`) and its fold under σ and τ̃, where the module's proof holds; `None` otherwise
    /// (then the two lanes run, `fold`).
    pub fn mirrored(&self, topology: &Topology, built: &Schedule) -> Option<(Schedule, Mirrored)> {
        let per = self.zero_pos.first()?.len();
        let blocks = self.zero_pos.len() == 2
            && self.stride == 2
            && built.transfers.len() == 2 * per
            && self.paths.len() == 2 * per
            && self.zero_pos[0].iter().enumerate().all(|(i, &z)| z as usize == i)
            && self.zero_pos[1].iter().enumerate().all(|(i, &z)| z as usize == per + i);
        if !blocks || per == 0 {
            return None;
        }
        let (lane0, lane1) = built.transfers.split_at(per);
        let rho = rank_mirror(topology)?;
        let n = topology.n_nodes();
        let key = |t: &Transfer, map: bool| {
            let rank = |r: u32| if map { rho.get(r as usize).copied() } else { Some(r) };
            let hop = match t.hop {
                Hop::ToSwitch(SwitchRef::NvSwitch { node }) if map => {
                    Hop::ToSwitch(SwitchRef::NvSwitch { node: n - 1 - node })
                }
                Hop::FromSwitch(SwitchRef::NvSwitch { node }) if map => {
                    Hop::FromSwitch(SwitchRef::NvSwitch { node: n - 1 - node })
                }
                hop => hop,
            };
            Some((rank(t.src)?, rank(t.dst)?, t.step, t.chunk, t.len, t.op, hop))
        };
        let mut of_lane1 = std::collections::HashMap::with_capacity_and_hasher(per, FixedState);
        for (j, t) in lane1.iter().enumerate() {
            if of_lane1.insert(key(t, false)?, j as u32).is_some() {
                return None;
            }
        }
        // π: lane 0's i-th transfer's mirror image is lane 1's π[i]-th.
        let pi: Vec<u32> =
            lane0.iter().map(|t| of_lane1.get(&key(t, true)?).copied()).collect::<Option<_>>()?;
        let mut hit = vec![false; per];
        for &j in &pi {
            if std::mem::replace(&mut hit[j as usize], true) {
                return None;
            }
        }
        let image = |d: u32| pi.get(d as usize).map(|&j| j + per as u32);
        for (i, t) in lane0.iter().enumerate() {
            let u = &lane1[pi[i] as usize];
            let mut deps: Vec<Option<u32>> = t.deps.iter().map(|&d| image(d)).collect();
            let mut theirs: Vec<Option<u32>> = u.deps.iter().map(|&d| Some(d)).collect();
            crate::sort::sort(&mut deps);
            crate::sort::sort(&mut theirs);
            if deps != theirs || t.after.map(image) != u.after.map(Some) {
                return None;
            }
        }
        // τ from the paths, both ways, then carried to every lane by σ.
        let alike_links = |a: LinkId, b: LinkId| alike(topology.link(a), topology.link(b));
        let mut tau = LinkMap::new(topology.n_links());
        for (i, &j) in pi.iter().enumerate() {
            let (a, b) = (&self.paths[i], &self.paths[per + j as usize]);
            if !tau.carry(a, b, alike_links) || !tau.carry(b, a, alike_links) {
                return None;
            }
        }
        let tau = tau.permutation()?;
        let order = self.share() as usize;
        let mut used = vec![false; tau.len()];
        for link in self.paths.iter().flatten() {
            used[link.index()] = true;
        }
        let mut whole = LinkMap::new(topology.n_links());
        for m in (0..tau.len()).filter(|&m| used[m]) {
            let (mut l, mut t) = (LinkId(m as u32), tau[m]);
            for _ in 0..order {
                if !whole.carry(&[l], &[t], alike_links) {
                    return None;
                }
                (l, t) = (self.sigma[l.index()], self.sigma[t.index()]);
            }
        }
        let tau = whole.permutation()?;
        // The group's orbits: σ's, joined in pairs by τ̃.
        let group = 2.0 * self.order();
        let capacity = (0..tau.len())
            .map(|l| {
                let joined = self.rep[l] != self.rep[tau[l].index()];
                let size = self.orbit[l] as f64 * if joined { 2.0 } else { 1.0 };
                topology.link(LinkId(l as u32)).capacity().bytes_per_ns() * size / group
            })
            .collect();
        let rep = (0..tau.len()).map(|l| self.rep[l].min(self.rep[tau[l].index()])).collect();
        let schedule = built.with_transfers(lane0.to_vec());
        Some((schedule, Mirrored { fold: Fold { rep, capacity }, pairs: pi }))
    }

    /// The two lanes' trace on σ's fold (`fold`), as their run records it, from lane 0's run on
    /// the mirror's (`mirrored`): lane 0's flows, and each one's image in lane 1 (π's), with
    /// its times and rates, each on its routed path's representatives; each link's peak its
    /// G-orbit's scaled to its σ-orbit (× the two folds' capacities' ratio). Bit for bit the
    /// two lanes' own run wherever `tests/mirror.rs` compares them (every record and peak, 2 to
    /// 128 H100 nodes).
    pub fn unmirrored(
        &self,
        topology: &Topology,
        mirrored: &Mirrored,
        lane0: crate::trace::Trace,
    ) -> crate::trace::Trace {
        let per = mirrored.pairs.len();
        let on_reps =
            |k: usize| -> Vec<LinkId> { self.paths[k].iter().map(|l| self.rep[l.index()]).collect() };
        let mut flows: Vec<Option<crate::trace::FlowRecord>> = vec![None; 2 * per];
        for (i, flow) in lane0.flows.into_iter().enumerate() {
            let j = per + mirrored.pairs[i] as usize;
            let image = crate::trace::FlowRecord { transfer: j as u32, path: on_reps(j), ..flow.clone() };
            flows[j] = Some(image);
            flows[i] = Some(crate::trace::FlowRecord { transfer: i as u32, path: on_reps(i), ..flow });
        }
        let flows = flows.into_iter().map(|f| f.expect("every flow of lane 1 is an image")).collect();
        let sigma = self.fold(topology).capacity;
        let (group, rep) = (&mirrored.fold.capacity, &mirrored.fold.rep);
        let link_peak = (0..self.rep.len())
            .map(|l| match self.rep[l].index() == l {
                true => lane0.link_peak[rep[l].index()] * (sigma[l] / group[rep[l].index()]),
                false => 0.0,
            })
            .collect();
        crate::trace::Trace::of_flows(flows, self.rep.len(), link_peak, lane0.batches)
    }
}

/// Each rank's mirror image: the same GPU of node N − 1 − n; `None` on an odd number of nodes
/// (NCCL's tree 1 is then tree 0 shifted, not mirrored).
fn rank_mirror(topology: &Topology) -> Option<Vec<u32>> {
    let (n, g) = (topology.n_nodes(), topology.gpus_per_node());
    if n < 2 || n % 2 == 1 {
        return None;
    }
    let mut at = vec![u32::MAX; (n * g) as usize];
    for rank in 0..topology.n_gpus() {
        let v = topology.vertex(topology.gpu(rank));
        let slot = (v.node? * g + v.local) as usize;
        *at.get_mut(slot)? = rank;
    }
    (0..topology.n_gpus())
        .map(|rank| {
            let v = topology.vertex(topology.gpu(rank));
            at.get(((n - 1 - v.node?) * g + v.local) as usize).copied().filter(|&r| r != u32::MAX)
        })
        .collect()
}
