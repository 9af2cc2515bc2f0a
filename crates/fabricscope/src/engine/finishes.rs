//! The moving flows' projected finishes, one entry per flow, earliest first.
//!
//! A rate change moves a flow's finish. A heap of (time, flow, version) entries, each change
//! pushing a new one and leaving the old to be skipped when it surfaces, held every stale entry
//! until then: at 1,024 GPUs (NVLSTree's runs, about 19 rate changes per solve) popping them
//! was a fifth of the engine's time. Here a flow's entry is moved in place (an indexed binary
//! heap), so the heap holds the moving flows and no more. The order is (time, flow), as the
//! versioned heap's valid entries were, so the flows that finish at a time are the same.

/// Position of a flow not in the heap.
const ABSENT: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
pub(super) struct Finishes {
    /// (finish time, flow), a binary min-heap.
    heap: Vec<(u64, u32)>,
    /// Each flow's index in `heap`, or `ABSENT`.
    at: Vec<u32>,
}

impl Finishes {
    pub(super) fn new(n_flows: usize) -> Finishes {
        Finishes { heap: Vec::new(), at: vec![ABSENT; n_flows] }
    }

    /// The earliest finish and its flow.
    pub(super) fn peek(&self) -> Option<(u64, u32)> {
        self.heap.first().copied()
    }

    /// Removes the earliest finish.
    pub(super) fn pop(&mut self) -> Option<(u64, u32)> {
        let top = *self.heap.first()?;
        let last = self.heap.pop().expect("not empty");
        self.at[top.1 as usize] = ABSENT;
        if !self.heap.is_empty() {
            self.heap[0] = last;
            self.at[last.1 as usize] = 0;
            self.down(0);
        }
        Some(top)
    }

    /// Flow `f` now finishes at `time` (its entry added, or moved).
    pub(super) fn set(&mut self, f: u32, time: u64) {
        let entry = (time, f);
        match self.at[f as usize] {
            ABSENT => {
                self.heap.push(entry);
                let i = self.heap.len() - 1;
                self.at[f as usize] = i as u32;
                self.up(i);
            }
            i => {
                let i = i as usize;
                let old = std::mem::replace(&mut self.heap[i], entry);
                if entry < old {
                    self.up(i);
                } else {
                    self.down(i);
                }
            }
        }
    }

    fn up(&mut self, mut i: usize) {
        let entry = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[parent] <= entry {
                break;
            }
            self.heap[i] = self.heap[parent];
            self.at[self.heap[i].1 as usize] = i as u32;
            i = parent;
        }
        self.heap[i] = entry;
        self.at[entry.1 as usize] = i as u32;
    }

    fn down(&mut self, mut i: usize) {
        let entry = self.heap[i];
        let n = self.heap.len();
        loop {
            let left = 2 * i + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let child = if right < n && self.heap[right] < self.heap[left] { right } else { left };
            if self.heap[child] >= entry {
                break;
            }
            self.heap[i] = self.heap[child];
            self.at[self.heap[i].1 as usize] = i as u32;
            i = child;
        }
        self.heap[i] = entry;
        self.at[entry.1 as usize] = i as u32;
    }
}

/// A xorshift64 stream from a fixed seed (`state`, never 0), for the engine's unit tests.
#[cfg(test)]
pub(super) fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

#[cfg(test)]
mod tests {
    use super::Finishes;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// Against the versioned heap it replaces: the same (time, flow) popped in the same order,
    /// over random sets, moves (earlier and later) and pops, with ties in time.
    #[test]
    fn pops_what_a_versioned_heap_pops() {
        let n = 64usize;
        let mut next = super::xorshift(0x2545_f491_4f6c_dd1d);
        let mut ours = Finishes::new(n);
        let mut theirs: BinaryHeap<Reverse<(u64, u32, u32)>> = BinaryHeap::new();
        let mut version = vec![0u32; n];
        let mut live = vec![false; n];
        let mut popped = 0;
        for _ in 0..20_000 {
            if next() % 3 == 0 {
                // Drop stale entries, then pop the earliest valid one from both.
                while let Some(&Reverse((_, f, v))) = theirs.peek() {
                    if v == version[f as usize] && live[f as usize] {
                        break;
                    }
                    theirs.pop();
                }
                let want = theirs.pop().map(|Reverse((t, f, _))| (t, f));
                assert_eq!(ours.pop(), want);
                if let Some((_, f)) = want {
                    live[f as usize] = false;
                    popped += 1;
                }
            } else {
                let f = (next() % n as u64) as u32;
                let time = next() % 50;
                version[f as usize] += 1;
                live[f as usize] = true;
                theirs.push(Reverse((time, f, version[f as usize])));
                ours.set(f, time);
            }
        }
        assert!(popped > 1_000);
    }
}
