//! Max-min fair sharing of link capacity among moving flows (progressive filling).
//!
//! Repeatedly take the link whose remaining capacity divided by its unfixed flows is smallest
//! (ties: lowest link id), give each of those flows that share, and remove them and their
//! share from every link they cross. Every flow gets a rate; no link is over capacity.
//! The smallest share is found with a heap of lower bounds, so that fixing a flow pushes nothing
//! in the common case: O((links + stale pops) × log links) per solve (see `solve`).

use crate::collective::Transfer;
use crate::trace::FlowRecord;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub struct Solver {
    congested_efficiency: f64,
    /// The first source rank seen on each link, and whether another one shares it.
    source: Vec<u32>,
    shared: Vec<bool>,
    spare: Vec<f64>,
    unfixed: Vec<u32>,
    on_link: Vec<Vec<u32>>,
    used: Vec<usize>,
    load: Vec<f64>,
    heap: BinaryHeap<Reverse<Share>>,
    /// The smallest key a link may still have in the heap (an upper bound on it).
    lowest: Vec<f64>,
}

/// A link's fair share, ordered by share then link id (total order on finite f64).
#[derive(Clone, Copy, PartialEq)]
struct Share(f64, usize);

impl Eq for Share {}

impl PartialOrd for Share {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Share {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

impl Solver {
    pub fn new(n_links: usize, congested_efficiency: f64) -> Solver {
        Solver {
            congested_efficiency,
            source: vec![0; n_links],
            shared: vec![false; n_links],
            spare: vec![0.0; n_links],
            unfixed: vec![0; n_links],
            on_link: vec![Vec::new(); n_links],
            used: Vec::new(),
            load: vec![0.0; n_links],
            heap: BinaryHeap::new(),
            lowest: vec![0.0; n_links],
        }
    }

    /// Total rate on link `l` after the last `solve`.
    pub fn load(&self, l: usize) -> f64 {
        self.load[l]
    }

    /// Rates of `moving` (flow indices into `flows`), in the same order.
    pub fn solve(
        &mut self,
        moving: &[u32],
        flows: &[FlowRecord],
        capacity: &[f64],
        network: &[bool],
        transfers: &[Transfer],
    ) -> Vec<f64> {
        for &l in &self.used {
            self.on_link[l].clear();
            self.unfixed[l] = 0;
            self.load[l] = 0.0;
        }
        self.used.clear();
        for (slot, &f) in moving.iter().enumerate() {
            let src = transfers[flows[f as usize].transfer as usize].src;
            for &link in &flows[f as usize].path {
                let l = link.index();
                if self.on_link[l].is_empty() {
                    self.used.push(l);
                    self.spare[l] = capacity[l];
                    self.source[l] = src;
                    self.shared[l] = false;
                } else if self.source[l] != src {
                    self.shared[l] = true;
                }
                self.on_link[l].push(slot as u32);
                self.unfixed[l] += 1;
            }
        }
        // `used` is in first-use order: nothing below depends on it (the heap orders its
        // entries by share and link id alone).
        for &l in &self.used {
            if self.shared[l] && network[l] {
                self.spare[l] = capacity[l] * self.congested_efficiency;
            }
        }
        // Every live link keeps an entry in the heap no larger than its fair share `spare /
        // unfixed` (ties by link id). Popping the smallest entry then finds the link of the
        // smallest current share, as a heap holding every link's current share would: if the
        // entry is the link's current share, every other link's share is at least its own entry,
        // which is at least this one. An entry below its link's current share (shares only rise
        // as flows are fixed at the smallest) goes back in at the current share. A share that
        // falls below its link's lowest entry, which rounding alone can do, is pushed at once.
        // The bottlenecks, their order and every sum are those of pushing each change.
        let mut entries = std::mem::take(&mut self.heap).into_vec();
        entries.clear();
        for &l in &self.used {
            let share = self.spare[l] / self.unfixed[l] as f64;
            self.lowest[l] = share;
            entries.push(Reverse(Share(share, l)));
        }
        self.heap = BinaryHeap::from(entries);
        let mut rates = vec![f64::NAN; moving.len()];
        while let Some(Reverse(Share(share, bottleneck))) = self.heap.pop() {
            if self.unfixed[bottleneck] == 0 {
                continue; // Every flow on it already has its rate.
            }
            let current = self.spare[bottleneck] / self.unfixed[bottleneck] as f64;
            if share != current {
                self.lowest[bottleneck] = current;
                self.heap.push(Reverse(Share(current, bottleneck)));
                continue;
            }
            let share = share.max(0.0);
            for i in 0..self.on_link[bottleneck].len() {
                let slot = self.on_link[bottleneck][i] as usize;
                if !rates[slot].is_nan() {
                    continue;
                }
                rates[slot] = share;
                for &link in &flows[moving[slot] as usize].path {
                    let l = link.index();
                    self.spare[l] -= share;
                    self.unfixed[l] -= 1;
                    self.load[l] += share;
                    if l != bottleneck && self.unfixed[l] > 0 {
                        let now = self.spare[l] / self.unfixed[l] as f64;
                        if now.total_cmp(&self.lowest[l]).is_lt() {
                            self.lowest[l] = now;
                            self.heap.push(Reverse(Share(now, l)));
                        }
                    }
                }
            }
        }
        debug_assert!(rates.iter().all(|r| !r.is_nan()), "every flow crosses a link and gets a rate");
        rates
    }
}
