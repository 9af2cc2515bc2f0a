//! Max-min fair sharing of link capacity among moving flows (progressive filling).
//!
//! Repeatedly take the link whose remaining capacity divided by its unfixed flows is smallest
//! (ties: lowest link id), give each of those flows that share, and remove them and their
//! share from every link they cross. Every flow gets a rate; no link is over capacity.
//! The smallest share is found among lower bounds, so that fixing a flow pushes nothing in the
//! common case: the links' first shares sorted once, the few raised later in a heap beside them,
//! O((links + stale pops) × log links) per solve (see `solve`). A share is keyed by its bits in
//! f64's total order, so that every comparison is of integers.

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
    /// The links' first entries, sorted, and the next one to take.
    first: Vec<Share>,
    order: FirstOrder,
    next_first: usize,
    /// The last solve's rates.
    rates: Vec<f64>,
    /// Entries pushed during the solve.
    heap: BinaryHeap<Reverse<Share>>,
    /// The smallest key a link may still have among the entries (an upper bound on it).
    lowest: Vec<f64>,
}

/// A link's fair share, ordered by share then link id: the share's bits in f64's total order
/// (`f64::total_cmp`), then the link.
type Share = (u64, u32);

/// `share`'s key: `a.total_cmp(&b)` is `key(a).cmp(&key(b))`.
fn key(share: f64) -> u64 {
    let bits = share.to_bits();
    // total_cmp's own transform (flip the magnitude of negatives), then the sign bit, so that
    // the signed order becomes the unsigned one.
    (bits ^ (((bits as i64 >> 63) as u64) >> 1)) ^ (1 << 63)
}

/// The share a key stands for.
fn share_of(key: u64) -> f64 {
    let bits = key ^ (1 << 63);
    f64::from_bits(bits ^ (((bits as i64 >> 63) as u64) >> 1))
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
            first: Vec::new(),
            order: FirstOrder::new(n_links),
            rates: Vec::new(),
            next_first: 0,
            heap: BinaryHeap::new(),
            lowest: vec![0.0; n_links],
        }
    }

    /// Total rate on link `l` after the last `solve`.
    pub fn load(&self, l: usize) -> f64 {
        self.load[l]
    }

    /// The links the last `solve`'s flows cross.
    pub fn used(&self) -> &[usize] {
        &self.used
    }

    /// Rates of `moving` (flow indices into `flows`), in the same order.
    pub fn solve<'a>(
        &'a mut self,
        moving: &[u32],
        flows: &[FlowRecord],
        capacity: &[f64],
        network: &[bool],
        transfers: &[Transfer],
    ) -> &'a [f64] {
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
        // `used` is in first-use order: nothing below depends on it (the entries are ordered by
        // share and link id alone).
        for &l in &self.used {
            if self.shared[l] && network[l] {
                self.spare[l] = capacity[l] * self.congested_efficiency;
            }
        }
        // Every live link keeps an entry no larger than its fair share `spare /
        // unfixed` (ties by link id). Popping the smallest entry then finds the link of the
        // smallest current share, as a heap holding every link's current share would: if the
        // entry is the link's current share, every other link's share is at least its own entry,
        // which is at least this one. An entry below its link's current share (shares only rise
        // as flows are fixed at the smallest) goes back in at the current share. A share that
        // falls below its link's lowest entry, which rounding alone can do, is pushed at once.
        // The bottlenecks, their order and every sum are those of pushing each change.
        // The entries are the links' first shares (sorted once) and those pushed since (a heap);
        // the smallest of both is taken, as from one heap holding them all.
        self.first.clear();
        self.heap.clear();
        for &l in &self.used {
            let share = self.spare[l] / self.unfixed[l] as f64;
            self.lowest[l] = share;
            self.first.push((key(share), l as u32));
        }
        self.order.sort(&mut self.first);
        self.next_first = 0;
        let mut rates = std::mem::take(&mut self.rates);
        rates.clear();
        rates.resize(moving.len(), f64::NAN);
        while let Some((share_key, link)) = self.take_smallest() {
            let (share, bottleneck) = (share_of(share_key), link as usize);
            if self.unfixed[bottleneck] == 0 {
                continue; // Every flow on it already has its rate.
            }
            let current = self.spare[bottleneck] / self.unfixed[bottleneck] as f64;
            if share != current {
                self.lowest[bottleneck] = current;
                self.heap.push(Reverse((key(current), link)));
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
                            self.heap.push(Reverse((key(now), l as u32)));
                        }
                    }
                }
            }
        }
        debug_assert!(rates.iter().all(|r| !r.is_nan()), "every flow crosses a link and gets a rate");
        self.rates = rates;
        &self.rates
    }

    /// The smallest entry left, first shares and pushed ones alike, taken out.
    fn take_smallest(&mut self) -> Option<Share> {
        let first = self.first.get(self.next_first).copied();
        let pushed = self.heap.peek().map(|&Reverse(entry)| entry);
        match (first, pushed) {
            (Some(f), Some(p)) if p < f => self.heap.pop().map(|Reverse(entry)| entry),
            (Some(f), _) => {
                self.next_first += 1;
                Some(f)
            }
            (None, _) => self.heap.pop().map(|Reverse(entry)| entry),
        }
    }
}

/// At most this many distinct first shares are sorted by counting (a large component's links
/// take a few: 792 links, 6 to 8 shares, at 1,024 GPUs); beyond, the entries are sorted as pairs.
const FEW_SHARES: usize = 16;

/// Sorts a solve's first entries by (share, link) where they take few distinct shares, in
/// linear time: the links walked in id order through a bitmap, each placed after the links of
/// smaller shares. The same order as `sort_unstable` (the entries are distinct: one per link).
struct FirstOrder {
    /// One bit per link; clear between sorts.
    bits: Vec<u64>,
    /// Each link's share's place among `keys`.
    share_of_link: Vec<u8>,
    keys: Vec<u64>,
    counts: Vec<usize>,
    out: Vec<Share>,
}

impl FirstOrder {
    fn new(n_links: usize) -> FirstOrder {
        FirstOrder {
            bits: vec![0; n_links.div_ceil(64)],
            share_of_link: vec![0; n_links],
            keys: Vec::new(),
            counts: Vec::new(),
            out: Vec::new(),
        }
    }

    fn sort(&mut self, first: &mut Vec<Share>) {
        if first.len() < 64 || !self.few_shares(first) {
            first.sort_unstable();
            return;
        }
        // Each share's first place in the output: the counts of the smaller shares before it.
        let mut by_key = [(0u64, 0usize); FEW_SHARES];
        let by_key = &mut by_key[..self.keys.len()];
        for (j, entry) in by_key.iter_mut().enumerate() {
            *entry = (self.keys[j], j);
        }
        by_key.sort_unstable();
        let mut place = [0usize; FEW_SHARES];
        let mut at = 0;
        for &(_, j) in by_key.iter() {
            place[j] = at;
            at += self.counts[j];
        }
        let (mut lo, mut hi) = (usize::MAX, 0);
        for &(_, link) in first.iter() {
            let w = link as usize / 64;
            self.bits[w] |= 1 << (link % 64);
            (lo, hi) = (lo.min(w), hi.max(w));
        }
        self.out.clear();
        self.out.resize(first.len(), (0, 0));
        for w in lo..=hi {
            let mut word = std::mem::take(&mut self.bits[w]);
            while word != 0 {
                let link = (w * 64) as u32 + word.trailing_zeros();
                word &= word - 1;
                let j = self.share_of_link[link as usize] as usize;
                self.out[place[j]] = (self.keys[j], link);
                place[j] += 1;
            }
        }
        std::mem::swap(first, &mut self.out);
    }

    /// Whether `first` takes at most `FEW_SHARES` distinct shares, each link's noted.
    fn few_shares(&mut self, first: &[Share]) -> bool {
        self.keys.clear();
        self.counts.clear();
        for &(key, link) in first {
            let j = match self.keys.iter().position(|&k| k == key) {
                Some(j) => j,
                None if self.keys.len() == FEW_SHARES => return false,
                None => {
                    self.keys.push(key);
                    self.counts.push(0);
                    self.keys.len() - 1
                }
            };
            self.counts[j] += 1;
            self.share_of_link[link as usize] = j as u8;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::{key, share_of, FirstOrder, Share};

    /// Counting by share gives `sort_unstable`'s order: few shares and many, links in any order.
    #[test]
    fn first_entries_are_ordered_as_sorted_pairs() {
        let mut next = super::super::finishes::xorshift(0x9e37_79b9_7f4a_7c15);
        let n_links = 5_000;
        let mut order = FirstOrder::new(n_links);
        for round in 0..200 {
            let distinct = [1, 3, 8, 16, 17, 40][round % 6];
            let shares: Vec<f64> = (0..distinct).map(|_| (next() % 1000) as f64 / 7.0).collect();
            let mut links: Vec<u32> = (0..n_links as u32).collect();
            for i in (1..links.len()).rev() {
                links.swap(i, (next() % (i as u64 + 1)) as usize);
            }
            let count = 64 + (next() % 900) as usize;
            let mut first: Vec<Share> = links[..count]
                .iter()
                .map(|&l| (key(shares[(next() % distinct as u64) as usize]), l))
                .collect();
            let mut want = first.clone();
            want.sort_unstable();
            order.sort(&mut first);
            assert_eq!(first, want, "round {round}");
        }
        assert!(order.bits.iter().all(|&w| w == 0), "the bitmap is left clear");
    }

    #[test]
    fn keys_order_shares_as_total_cmp_does_and_give_them_back() {
        let shares = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -1e-310,
            -0.0,
            0.0,
            1e-310,
            1e-9,
            0.1,
            0.1 + 1e-17,
            2.5,
            1e300,
            f64::INFINITY,
        ];
        for &a in &shares {
            assert_eq!(share_of(key(a)).to_bits(), a.to_bits(), "{a}");
            for &b in &shares {
                assert_eq!(key(a).cmp(&key(b)), a.total_cmp(&b), "{a} vs {b}");
            }
        }
    }
}
