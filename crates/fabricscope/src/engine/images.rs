//! What a run of the lanes that stand for all (`symmetry`) says of the whole without the whole's
//! flows: every link's rate at a time, its bytes and peak, the run's flows on the cluster's
//! links (a trace to show), and the whole trace's hash, worked out a number of flows at a time.
//!
//! Lane k + j·stride is σ^j's image of lane k, so link l carries, at every time, what σ^-j(l)
//! carries in the lanes that ran, summed over j below σ's order m; over l's orbit O (σ^j(l)
//! runs through O m / |O| times) that is m / |O| times what the lanes that ran put on all of
//! O. `Symmetry::whole_link_bytes` applies it to bytes, `whole_rates` to rates.

use super::lanes::Owners;
use super::symmetry::Symmetry;
use crate::topology::LinkId;
use crate::trace::{FlowRecord, Trace};
use crate::units::SimTime;

impl Symmetry {
    /// The whole schedule's transfers.
    pub fn total(&self) -> u64 {
        self.members.total() as u64
    }

    /// Each link's rate in the whole run from `run`, the rates the lanes that ran put on the
    /// cluster's links (on their routed paths, `shown`'s) [B/ns].
    pub fn whole_rates(&self, run: &[f64]) -> Vec<f64> {
        let mut orbit_rate = vec![0.0f64; run.len()];
        for (l, &rate) in run.iter().enumerate().filter(|(_, &r)| r != 0.0) {
            orbit_rate[self.rep[l].index()] += rate;
        }
        let order = self.order();
        (0..run.len()).map(|l| orbit_rate[self.rep[l].index()] * order / self.orbit[l] as f64).collect()
    }

    /// `link`'s orbit under σ: its representative and its size.
    pub fn orbit_of(&self, link: LinkId) -> (LinkId, u32) {
        (self.rep[link.index()], self.orbit[link.index()])
    }

    /// Each link's peak in the whole run: its orbit's folded peak × σ's order / orbit size.
    pub(super) fn link_peak(&self, folded: &Trace) -> Vec<f64> {
        (0..self.rep.len())
            .map(|l| folded.link_peak[self.rep[l].index()] * self.order() / self.orbit[l] as f64)
            .collect()
    }

    /// The folded run's trace (its paths on the orbits' representatives) as the lanes that ran
    /// moved on the cluster's links: each flow on its routed path, each link's bytes those
    /// lanes' and its peak the whole run's. A trace to show, with `whole_rates` for the rest.
    pub fn shown(&self, folded: Trace) -> Trace {
        let link_peak = self.link_peak(&folded);
        let batches = folded.batches;
        let flows = folded
            .flows
            .into_iter()
            .zip(&self.paths)
            .map(|(flow, path)| FlowRecord { path: path.clone(), ..flow })
            .collect();
        Trace::of_flows(flows, self.rep.len(), link_peak, batches)
    }

    /// `expand(folded, ..).hash()` without the expanded trace: the whole run's flows made and
    /// hashed one at a time, in schedule order (a lane k flow's path is σ applied k / stride
    /// times to its counterpart's that ran), so a caller that needs only the hash (a sweep's
    /// row) never holds every lane's flows.
    pub fn expanded_hash(&self, folded: &Trace) -> u64 {
        let mut hasher = ExpandedHasher::new(self, &folded.flows, self.link_peak(folded), folded.batches);
        loop {
            if let Some(hash) = hasher.feed(self, usize::MAX) {
                return hash;
            }
        }
    }
}

/// `Symmetry::expanded_hash` a number of the whole's flows at a time, for a caller that must
/// stay responsive (the page's job showing a run by symmetry): the same value.
#[derive(Debug)]
pub struct ExpandedHasher {
    hash: crate::hash::Fnv,
    /// σ^j for every j below σ's order, a lookup per link rather than j of them.
    powers: Vec<Vec<LinkId>>,
    /// The record of each flow that ran: its images share it.
    records: Vec<u64>,
    owners: OwnersBox,
    next: usize,
    total: usize,
    end: SimTime,
    /// Each link's bytes in the whole run, and its peak.
    link_bytes: Vec<u64>,
    link_peak: Vec<f64>,
    batches: u64,
}

/// `Owners` kept out of the hasher's `Debug`.
struct OwnersBox(Owners);

impl std::fmt::Debug for OwnersBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Owners")
    }
}

impl ExpandedHasher {
    /// The hash of the whole run of which `flows` ran (in the order the lanes that ran are
    /// numbered; their paths are not read, `Symmetry::paths` are), with the whole's link peaks
    /// and event batches.
    pub fn new(
        symmetry: &Symmetry,
        flows: &[FlowRecord],
        link_peak: Vec<f64>,
        batches: u64,
    ) -> ExpandedHasher {
        let total = symmetry.members.total();
        let mut hash = crate::hash::Fnv::default();
        hash.word_rotated(total as u64);
        let mut powers: Vec<Vec<LinkId>> = vec![(0..symmetry.sigma.len() as u32).map(LinkId).collect()];
        for _ in 1..symmetry.share() as usize {
            let last = powers.last().expect("σ^0");
            powers.push(last.iter().map(|l| symmetry.sigma[l.index()]).collect());
        }
        let records = flows.iter().map(crate::trace::record_hash).collect();
        let end = flows.iter().map(|f| f.finished).max().unwrap_or(SimTime::ZERO);
        // Each link's bytes: every flow that ran, on its path's image under each power of σ,
        // so a sum over the links that ran, not over every flow of the whole.
        let mut ran = vec![0u64; symmetry.sigma.len()];
        for (flow, path) in flows.iter().zip(&symmetry.paths) {
            for link in path {
                ran[link.index()] += flow.bytes;
            }
        }
        let mut link_bytes = vec![0u64; symmetry.rep.len()];
        for power in &powers {
            for (link, &bytes) in ran.iter().enumerate().filter(|(_, &b)| b > 0) {
                link_bytes[power[link].index()] += bytes;
            }
        }
        let owners = OwnersBox(symmetry.members.owners());
        ExpandedHasher { hash, powers, records, owners, next: 0, total, end, link_bytes, link_peak, batches }
    }

    /// How many of the whole's flows are in, of how many.
    pub fn done(&self) -> (usize, usize) {
        (self.next, self.total)
    }

    /// Takes up to `flows` more of the whole's flows in; the hash once all of them are.
    pub fn feed(&mut self, symmetry: &Symmetry, flows: usize) -> Option<u64> {
        let end = self.next.saturating_add(flows).min(self.total);
        let stride = symmetry.stride as usize;
        for index in self.next..end {
            let (k, i) = self.owners.0.of(index);
            let z = symmetry.zero_pos[k % stride][i] as usize;
            let power = &self.powers[k / stride];
            let path = symmetry.paths[z].iter().map(|l| power[l.index()]);
            crate::trace::hash_flow(&mut self.hash, index as u32, path, self.records[z]);
        }
        self.next = end;
        if end < self.total {
            return None;
        }
        let bytes = self.link_bytes.iter().map(|&b| b as f64);
        Some(crate::trace::hash_tail(self.hash, self.end, bytes, &self.link_peak, self.batches))
    }
}
