//! The search for a schedule's channel symmetry (`Symmetry::find_strided`), a number of routes
//! at a time (`SymmetrySearch`), for a caller that must stay responsive: the page's job proves
//! NVLSTree's one-chunk schedule on 2,048 GPUs, 311,168 transfers routed, in pieces rather than
//! in one poll of 59 ms natively. The same candidates in the same order and the same checks as
//! in one go: the same proof, or the same `None`.

use super::lanes::{Lanes, Members};
use super::linkmap::{alike, orbits, LinkMap};
use super::symmetry::Symmetry;
use crate::catalog::Routing;
use crate::collective::{Algorithm, Schedule};
use crate::routing::{Policy, Router, RouterState};
use crate::topology::{LinkId, Topology};

/// `find_strided`'s candidates (stride, lanes), tried in turn, one's routes a piece at a time.
pub struct SymmetrySearch {
    /// The candidates left, the next last.
    tries: Vec<(usize, Lanes)>,
    current: Option<Box<Attempt>>,
}

impl SymmetrySearch {
    /// `find_strided`'s search on `schedule`: an NVLSTree's parts as lanes first (stride 1,
    /// then 2), then whole channels (stride 1, then 2 where the channels can alternate).
    pub fn strided(schedule: &Schedule) -> SymmetrySearch {
        let c = schedule.n_channels;
        let parts = match schedule.algorithm {
            Algorithm::NvlsTree => schedule.transfers.iter().map(|t| t.chunk + 1).max(),
            _ => None,
        };
        let mut tries = Vec::with_capacity(4);
        if let Some(parts) = parts.filter(|&p| p >= 2) {
            tries.extend([(1, Lanes::Parts { parts }), (2, Lanes::Parts { parts })]);
        }
        tries.extend([(1, Lanes::Channels), (2, Lanes::Channels)]);
        tries.retain(|&(stride, _)| stride == 1 || (c >= 4 && c % 2 == 0));
        tries.reverse();
        SymmetrySearch { tries, current: None }
    }

    /// `find`'s search: whole channels, each the image of the one before.
    pub fn channels() -> SymmetrySearch {
        SymmetrySearch { tries: vec![(1, Lanes::Channels)], current: None }
    }

    /// Routes up to about `budget` more transfers (a candidate's schedule checks are not
    /// counted); the search's end once it has one: the proof, or `None` if no candidate holds.
    pub fn advance(
        &mut self,
        topology: &Topology,
        schedule: &Schedule,
        policy: Policy,
        mut budget: usize,
    ) -> Option<Option<Symmetry>> {
        loop {
            let Some(attempt) = self.current.as_mut() else {
                let Some((stride, lanes)) = self.tries.pop() else { return Some(None) };
                self.current = Attempt::start(topology, schedule, policy, stride, lanes).map(Box::new);
                continue;
            };
            match attempt.route(topology, schedule, &mut budget) {
                None => return None,
                Some(false) => self.current = None,
                Some(true) => {
                    let attempt = self.current.take().expect("the attempt routed");
                    if let Some(symmetry) = attempt.finish(schedule) {
                        return Some(Some(symmetry));
                    }
                }
            }
        }
    }

    /// The whole search at once (`find_strided`).
    pub fn run(mut self, topology: &Topology, schedule: &Schedule, policy: Policy) -> Option<Symmetry> {
        loop {
            if let Some(found) = self.advance(topology, schedule, policy, usize::MAX) {
                return found;
            }
        }
    }
}

/// One candidate σ (lane k onto lane k + `stride`): its schedule checked, its routes being built
/// lane pair by lane pair.
struct Attempt {
    stride: usize,
    lanes: Lanes,
    order: usize,
    c: usize,
    lane: Vec<u32>,
    members: Members,
    /// The router between pieces (`None` only while one routes).
    router: Option<RouterState>,
    paths: Vec<Option<Vec<LinkId>>>,
    /// No load: static routes do not read it.
    load: Vec<u32>,
    sigma: LinkMap,
    /// The lane pair being routed, and how many of its pairs of transfers are.
    k: usize,
    at: usize,
}

impl Attempt {
    /// The candidate, its schedule checked (cheap): position for position, lane k + `stride`'s
    /// transfers have lane k's step, bytes, operation, hop and dependencies. `None` if not.
    fn start(
        topology: &Topology,
        schedule: &Schedule,
        policy: Policy,
        stride: usize,
        lanes: Lanes,
    ) -> Option<Attempt> {
        let c = (schedule.n_channels * lanes.per_channel()) as usize;
        if c < 2 || policy.routing != Routing::Static || topology.congested_efficiency != 1.0 {
            return None;
        }
        // σ's order: the images of a transfer that runs.
        let order = c / stride;
        if stride == 0 || c % stride != 0 || order < 2 {
            return None;
        }
        let transfers = &schedule.transfers;
        let lane: Vec<u32> = match lanes {
            Lanes::Channels => transfers.iter().map(|t| t.channel).collect(),
            Lanes::Parts { parts } => {
                if transfers.iter().any(|t| t.chunk >= parts) {
                    return None;
                }
                transfers.iter().map(|t| lanes.of(t.channel, t.chunk, stride as u32)).collect()
            }
        };
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); c];
        let mut position = vec![0u32; transfers.len()];
        for (index, &k) in lane.iter().enumerate() {
            let list = members.get_mut(k as usize)?;
            position[index] = list.len() as u32;
            list.push(index as u32);
        }
        let per = members[0].len();
        if per == 0 || members.iter().any(|m| m.len() != per) {
            return None;
        }
        let members = Members::list(members);
        for k in 0..c {
            let next = (k + stride) % c;
            for (a, b) in members.lane(k).zip(members.lane(next)) {
                let (t, u) = (&transfers[a as usize], &transfers[b as usize]);
                let twin = |d: u32, e: u32| {
                    lane[d as usize] as usize == k
                        && lane[e as usize] as usize == next
                        && position[d as usize] == position[e as usize]
                };
                let same = t.step == u.step
                    && t.bytes() == u.bytes()
                    && t.op == u.op
                    && t.hop == u.hop
                    && t.deps.len() == u.deps.len()
                    && t.deps.iter().zip(&u.deps).all(|(&d, &e)| twin(d, e))
                    && match (t.after, u.after) {
                        (None, None) => true,
                        (Some(d), Some(e)) => twin(d, e),
                        _ => false,
                    };
                if !same {
                    return None;
                }
            }
        }
        let router = Some(Router::for_transfers(topology, policy, transfers).into_state());
        let (paths, load) = (vec![None; transfers.len()], vec![0u32; topology.n_links()]);
        let sigma = LinkMap::new(topology.n_links());
        Some(Attempt { stride, lanes, order, c, lane, members, router, paths, load, sigma, k: 0, at: 0 })
    }

    /// Routes lane pair by lane pair (so that a σ that does not exist is found out after routing
    /// few of them) until `budget` routes are spent: `None` while routes are left, else whether
    /// σ carried every path onto its image.
    fn route(&mut self, topology: &Topology, schedule: &Schedule, budget: &mut usize) -> Option<bool> {
        let transfers = &schedule.transfers;
        let mut router = Router::resume(topology, self.router.take().expect("the router between pieces"));
        let mut outcome = Some(true);
        'lanes: while self.k < self.c {
            let next = (self.k + self.stride) % self.c;
            let pairs = self.members.lane(self.k).zip(self.members.lane(next)).skip(self.at);
            for (a, b) in pairs {
                if *budget == 0 {
                    outcome = None;
                    break 'lanes;
                }
                let (a, b) = (a as usize, b as usize);
                for i in [a, b] {
                    if self.paths[i].is_none() {
                        self.paths[i] = Some(router.route_transfer(&transfers[i], &self.load));
                        *budget = budget.saturating_sub(1);
                    }
                }
                self.at += 1;
                let (pa, pb) =
                    (self.paths[a].as_deref().unwrap_or(&[]), self.paths[b].as_deref().unwrap_or(&[]));
                if !self.sigma.carry(pa, pb, |from, to| alike(topology.link(from), topology.link(to))) {
                    outcome = Some(false);
                    break 'lanes;
                }
            }
            self.k += 1;
            self.at = 0;
        }
        self.router = Some(router.into_state());
        outcome
    }

    /// The proof, once every path is routed and carried: σ one permutation with orbits of σ's
    /// order dividing into them, or `None`.
    fn finish(self, schedule: &Schedule) -> Option<Symmetry> {
        let Attempt { stride, lanes, order, c, lane, members, mut paths, sigma, .. } = self;
        let sigma = sigma.permutation()?;
        let (rep, orbit) = orbits(&sigma, order)?;
        // The transfers that run: the lanes below the stride, in schedule order.
        let zero: Vec<u32> =
            (0..schedule.transfers.len() as u32).filter(|&i| (lane[i as usize] as usize) < stride).collect();
        let mut zero_pos: Vec<Vec<u32>> = vec![Vec::new(); stride];
        for (z, &index) in zero.iter().enumerate() {
            zero_pos[lane[index as usize] as usize].push(z as u32);
        }
        let paths: Vec<Vec<LinkId>> =
            zero.iter().map(|&i| paths[i as usize].take().unwrap_or_default()).collect();
        Some(Symmetry {
            n_lanes: c as u32,
            lanes,
            stride: stride as u32,
            members,
            zero,
            zero_pos,
            sigma,
            paths,
            rep,
            orbit,
        })
    }
}
