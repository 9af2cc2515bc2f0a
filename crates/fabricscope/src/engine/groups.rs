//! Group symmetry: one operation's groups, all at once, run as a few of them, where that is
//! exact.
//!
//! A training step's operation runs every group at once (every DP group's gradient AllReduce,
//! every TP group's activation AllReduce). Each group runs one local schedule renumbered onto
//! its ranks. Where no two groups share a GPU or a link, each group's flows are a system of
//! their own: max-min sharing divides every link among the flows that cross it, all of one
//! group, so a group's times do not depend on the others'. Where, further, a group's routed
//! paths are another's carried onto other links by one map that is one-to-one and keeps every
//! link's kind, latency and capacity (connection for connection, the same local schedule), the
//! two groups' flows move exactly alike. `representatives` proves both for a set of groups, or
//! says no: the operation then runs only the groups it names, one per class of images, and
//! every other group finishes when its representative does.
//!
//! The engine plans which NIC each connection between nodes uses from every connection it is
//! given (`routing::Router::for_transfers`), so the proof routes every group with the plan of
//! them all, and checks that the representatives alone plan the same paths.
//!
//! Not tried, as for channel symmetry (`symmetry`): routing other than static, and fabrics
//! whose shared links lose efficiency with the number of sources.

use crate::catalog::Routing;
use crate::collective::{Hop, Transfer};
use crate::routing::{Policy, Router};
use crate::topology::{LinkId, Topology};

/// One group of an operation: the index of the local schedule it runs, and the global rank of
/// each of its local ranks.
pub type Member = (usize, Vec<u32>);

/// The members to run, one per class of images (ascending), where every member is proved to
/// move exactly as the one of its class does (see the module's documentation); `None` where
/// that is not proved, or where it would save nothing (fewer than two members).
pub fn representatives(
    topology: &Topology,
    policy: Policy,
    shapes: &[Vec<Transfer>],
    members: &[Member],
) -> Option<Vec<usize>> {
    if members.len() < 2 || policy.routing != Routing::Static || topology.congested_efficiency != 1.0 {
        return None;
    }
    // Each local schedule's connections, peer to peer only (a switch hop is routed otherwise).
    let mut keys: Vec<Vec<(u32, u32, u32)>> = Vec::with_capacity(shapes.len());
    for shape in shapes {
        if shape.iter().any(|t| t.hop != Hop::Peer) {
            return None;
        }
        let mut list: Vec<(u32, u32, u32)> = shape.iter().map(|t| (t.channel, t.src, t.dst)).collect();
        crate::sort::sort(&mut list);
        list.dedup();
        keys.push(list);
    }
    // No GPU in two groups.
    let mut seen = vec![false; topology.n_gpus() as usize];
    for (shape, map) in members {
        if *shape >= shapes.len() {
            return None;
        }
        for &rank in map {
            if std::mem::replace(seen.get_mut(rank as usize)?, true) {
                return None;
            }
        }
    }
    let connections = |chosen: &[usize]| -> Vec<Transfer> {
        chosen
            .iter()
            .flat_map(|&m| {
                let (shape, map) = &members[m];
                keys[*shape].iter().map(move |&(channel, src, dst)| {
                    Transfer::copy(channel, map[src as usize], map[dst as usize], 0, 1)
                })
            })
            .collect()
    };
    let everyone: Vec<usize> = (0..members.len()).collect();
    let load = vec![0u32; topology.n_links()];
    // Every member's paths, under the plan of them all; no link in two groups.
    let mut router = Router::for_transfers(topology, policy, &connections(&everyone));
    let mut owner = vec![u32::MAX; topology.n_links()];
    let mut paths: Vec<Vec<Vec<LinkId>>> = Vec::with_capacity(members.len());
    for (m, (shape, map)) in members.iter().enumerate() {
        let mut routed = Vec::with_capacity(keys[*shape].len());
        for &(channel, src, dst) in &keys[*shape] {
            let path = router.route(map[src as usize], map[dst as usize], channel, &load);
            for link in &path {
                let slot = &mut owner[link.index()];
                if *slot == u32::MAX {
                    *slot = m as u32;
                } else if *slot != m as u32 {
                    return None;
                }
            }
            routed.push(path);
        }
        paths.push(routed);
    }
    // Classes: each member an image of the first representative of its shape that it is one of.
    let mut scratch = Images::new(topology.n_links());
    let mut reps: Vec<usize> = Vec::new();
    for m in 0..members.len() {
        let of = reps
            .iter()
            .find(|&&r| members[r].0 == members[m].0 && scratch.image(topology, &paths[r], &paths[m]));
        if of.is_none() {
            reps.push(m);
        }
    }
    if reps.len() == members.len() {
        return None;
    }
    // The representatives alone plan the same paths.
    let mut alone = Router::for_transfers(topology, policy, &connections(&reps));
    for &r in &reps {
        let (shape, map) = &members[r];
        for (i, &(channel, src, dst)) in keys[*shape].iter().enumerate() {
            if alone.route(map[src as usize], map[dst as usize], channel, &load) != paths[r][i] {
                return None;
            }
        }
    }
    Some(reps)
}

/// Scratch maps for `image`, reset after each use.
struct Images {
    forward: Vec<u32>,
    backward: Vec<u32>,
    touched: Vec<(usize, usize)>,
}

impl Images {
    fn new(n_links: usize) -> Images {
        Images { forward: vec![u32::MAX; n_links], backward: vec![u32::MAX; n_links], touched: Vec::new() }
    }

    /// Whether `to` is `from` carried by one one-to-one map of links that keeps each link's
    /// kind, latency and capacity, path for path and hop for hop.
    fn image(&mut self, topology: &Topology, from: &[Vec<LinkId>], to: &[Vec<LinkId>]) -> bool {
        let ok = from.len() == to.len() && from.iter().zip(to).all(|(a, b)| self.map_path(topology, a, b));
        for (f, b) in self.touched.drain(..) {
            self.forward[f] = u32::MAX;
            self.backward[b] = u32::MAX;
        }
        ok
    }

    fn map_path(&mut self, topology: &Topology, a: &[LinkId], b: &[LinkId]) -> bool {
        if a.len() != b.len() {
            return false;
        }
        for (&x, &y) in a.iter().zip(b) {
            let (fx, by) = (self.forward[x.index()], self.backward[y.index()]);
            if fx == u32::MAX && by == u32::MAX {
                if !super::symmetry::alike(topology.link(x), topology.link(y)) {
                    return false;
                }
                self.forward[x.index()] = y.0;
                self.backward[y.index()] = x.0;
                self.touched.push((x.index(), y.index()));
            } else if fx != y.0 || by != x.0 {
                return false;
            }
        }
        true
    }
}
