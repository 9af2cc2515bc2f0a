//! A permutation σ of a cluster's links, built from pairs of routed paths that it carries onto
//! each other, and its orbits: what `symmetry` and `rotation` prove their folds with.

use crate::topology::LinkId;

/// Whether a flow moves on `y` exactly as on `x`: the same kind, latency and capacity (what a
/// symmetry's link map must keep, here and in `groups`).
pub(super) fn alike(x: &crate::topology::Link, y: &crate::topology::Link) -> bool {
    alike_kind(x, y) && x.capacity().bytes_per_ns() == y.capacity().bytes_per_ns()
}

/// The same kind and latency (`alike` but for the capacity, which a folded system has its own of).
pub(super) fn alike_kind(x: &crate::topology::Link, y: &crate::topology::Link) -> bool {
    x.kind == y.kind && x.latency_ns == y.latency_ns
}

/// A link map σ built a pair of paths at a time (here and in `rotation`): each link of a path
/// onto the link in the same place of its image, one image per link, every pair alike.
pub(super) struct LinkMap(Vec<Option<LinkId>>);

impl LinkMap {
    pub fn new(n_links: usize) -> LinkMap {
        LinkMap(vec![None; n_links])
    }

    /// Carries `from` onto `to` link by link; false if they differ in length, a link already has
    /// another image, or a pair is not `alike`.
    pub fn carry(&mut self, from: &[LinkId], to: &[LinkId], alike: impl Fn(LinkId, LinkId) -> bool) -> bool {
        if from.len() != to.len() {
            return false;
        }
        for (&a, &b) in from.iter().zip(to) {
            match self.0[a.index()] {
                Some(image) if image != b => return false,
                Some(_) => {}
                None if alike(a, b) => self.0[a.index()] = Some(b),
                None => return false,
            }
        }
        true
    }

    /// σ, if one-to-one on the links used (a finite set σ maps into itself: a permutation);
    /// a link no path uses maps to itself.
    pub fn permutation(self) -> Option<Vec<LinkId>> {
        let mut hit = vec![false; self.0.len()];
        for image in self.0.iter().flatten() {
            if std::mem::replace(&mut hit[image.index()], true) {
                return None;
            }
        }
        Some(self.0.iter().enumerate().map(|(l, image)| image.unwrap_or(LinkId(l as u32))).collect())
    }
}

/// Each link's orbit under the permutation `sigma`: its representative (the lowest id) and its
/// size; `None` unless every orbit's size divides `order` (σ's order as a symmetry).
pub(super) fn orbits(sigma: &[LinkId], order: usize) -> Option<(Vec<LinkId>, Vec<u32>)> {
    let n_links = sigma.len();
    let mut rep: Vec<LinkId> = (0..n_links).map(|l| LinkId(l as u32)).collect();
    let mut orbit = vec![1u32; n_links];
    for l in 0..n_links {
        if sigma[l].index() == l || rep[l].index() != l {
            continue;
        }
        let mut members = vec![l];
        let mut at = sigma[l].index();
        while at != l {
            if members.len() > order {
                return None;
            }
            members.push(at);
            at = sigma[at].index();
        }
        if order % members.len() != 0 {
            return None;
        }
        let lowest = *members.iter().min().expect("an orbit has a member");
        for &member in &members {
            rep[member] = LinkId(lowest as u32);
            orbit[member] = members.len() as u32;
        }
    }
    Some((rep, orbit))
}
