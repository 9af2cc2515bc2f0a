//! Max-min fair sharing of link capacity among moving flows (progressive filling).
//!
//! Repeatedly take the link whose remaining capacity divided by its unfixed flows is smallest
//! (ties: lowest link id), give each of those flows that share, and remove them and their
//! share from every link they cross. Every flow gets a rate; no link is over capacity.

use crate::collective::Transfer;
use crate::trace::FlowRecord;

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
        }
    }

    /// Total rate on link `l` after the last `solve`.
    pub fn load(&self, l: usize) -> f64 {
        self.load[l]
    }

    /// Rates of `moving` (flow indices into `flows`), in the same order.
    pub fn solve(&mut self, moving: &[u32], flows: &[FlowRecord], capacity: &[f64], network: &[bool], transfers: &[Transfer]) -> Vec<f64> {
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
        self.used.sort_unstable();
        for &l in &self.used {
            if self.shared[l] && network[l] {
                self.spare[l] = capacity[l] * self.congested_efficiency;
            }
        }
        let mut rates = vec![f64::NAN; moving.len()];
        let mut left = moving.len();
        while left > 0 {
            let mut best: Option<(f64, usize)> = None;
            for &l in &self.used {
                if self.unfixed[l] > 0 {
                    let share = self.spare[l] / self.unfixed[l] as f64;
                    if best.is_none_or(|(best_share, _)| share < best_share) {
                        best = Some((share, l));
                    }
                }
            }
            let (share, bottleneck) = best.expect("an unfixed flow crosses some link");
            let share = share.max(0.0);
            for i in 0..self.on_link[bottleneck].len() {
                let slot = self.on_link[bottleneck][i] as usize;
                if !rates[slot].is_nan() {
                    continue;
                }
                rates[slot] = share;
                left -= 1;
                for &link in &flows[moving[slot] as usize].path {
                    let l = link.index();
                    self.spare[l] -= share;
                    self.unfixed[l] -= 1;
                    self.load[l] += share;
                }
            }
        }
        rates
    }
}
