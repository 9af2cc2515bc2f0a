//! The core's sort where speed does not matter: stable, in place, and small in code.
//!
//! The standard library's sorts are fast and large: every `sort_by_key` closure, and every
//! element type of `sort`, is its own copy of a quicksort, a merge and sorting networks, 2-8 KB
//! of WebAssembly each. Sorted through here, an element type costs one small function (the
//! comparison goes through `dyn`), and the merge itself is one function for all.
//!
//! The order is the standard library's stable sort's, element for element: a stable sort's
//! result is unique for a comparison that is a total order (every caller's is), and equal
//! elements keep their order. Where `sort_unstable` was used on plain values (integers, tuples
//! of them, derived `Ord`), equal elements are identical, so the result is that one too.
//!
//! The engine's per-batch sorts stay the standard library's (`engine/`): there speed matters.

use std::cmp::Ordering;

/// Slices up to this long are sorted by insertion, without allocating.
const INSERTION: usize = 16;

/// Sorts `v` stably by `key` (as `slice::sort_by_key`).
pub fn by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    by(v, &mut |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` stably (as `slice::sort`).
pub fn sort<T: Ord>(v: &mut [T]) {
    by(v, &mut |a, b| a.cmp(b));
}

/// Sorts `v` stably by `compare` (as `slice::sort_by`), a total order.
pub fn by<T>(v: &mut [T], compare: &mut dyn FnMut(&T, &T) -> Ordering) {
    let n = v.len();
    if n <= INSERTION {
        for i in 1..n {
            let mut j = i;
            while j > 0 && compare(&v[j - 1], &v[j]) == Ordering::Greater {
                v.swap(j - 1, j);
                j -= 1;
            }
        }
        return;
    }
    let order = merge_order(n, &mut |i, j| compare(&v[i], &v[j]) == Ordering::Greater);
    permute(v, order);
}

/// The indices 0..n in stably sorted order, by a bottom-up merge sort: `greater(i, j)` when
/// element i goes after element j.
fn merge_order(n: usize, greater: &mut dyn FnMut(usize, usize) -> bool) -> Vec<usize> {
    let mut from: Vec<usize> = (0..n).collect();
    let mut to = vec![0; n];
    let mut width = 1;
    while width < n {
        for lo in (0..n).step_by(2 * width) {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut l, mut r) = (lo, mid);
            for slot in &mut to[lo..hi] {
                // The left run's element first unless it goes after the right's: stable.
                let right = r < hi && (l == mid || greater(from[l], from[r]));
                if right {
                    *slot = from[r];
                    r += 1;
                } else {
                    *slot = from[l];
                    l += 1;
                }
            }
        }
        std::mem::swap(&mut from, &mut to);
        width *= 2;
    }
    from
}

/// Rearranges `v` so that position k holds what position `order[k]` held, a cycle at a time.
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for start in 0..v.len() {
        let mut k = start;
        // Each position's element arrives once; a position done points to itself.
        while order[k] != k {
            let next = order[k];
            order[k] = k;
            if next == start {
                break;
            }
            v.swap(k, next);
            k = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), so the test needs no dependency.
    fn numbers(seed: u64, n: usize, modulo: u64) -> Vec<u64> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % modulo
            })
            .collect()
    }

    #[test]
    fn the_order_is_the_standard_stable_sorts() {
        for (seed, n) in [(1, 0), (2, 1), (3, 2), (4, 15), (5, 16), (6, 17), (7, 100), (8, 1_000), (9, 4_097)]
        {
            for modulo in [1, 3, 50, u64::MAX] {
                // Pairs of (key, position): ties in the key show whether equal keys keep their order.
                let v: Vec<(u64, usize)> =
                    numbers(seed, n, modulo).into_iter().enumerate().map(|(i, k)| (k, i)).collect();
                let mut ours = v.clone();
                by_key(&mut ours, |p| p.0);
                let mut std_sorted = v.clone();
                std_sorted.sort_by_key(|p| p.0);
                assert_eq!(ours, std_sorted, "{n} elements, keys mod {modulo}");
                let mut whole = v.clone();
                sort(&mut whole);
                let mut std_whole = v;
                std_whole.sort_unstable();
                assert_eq!(whole, std_whole, "{n} elements, keys mod {modulo}");
            }
        }
    }

    #[test]
    fn a_permutation_moves_every_element_once() {
        let mut v: Vec<String> = ["d", "a", "c", "b", "e"].iter().map(|s| s.to_string()).collect();
        permute(&mut v, vec![1, 3, 2, 0, 4]);
        assert_eq!(v, ["a", "b", "c", "d", "e"]);
        let mut v: Vec<u32> = (0..6).collect();
        permute(&mut v, vec![5, 0, 1, 2, 3, 4]);
        assert_eq!(v, [5, 0, 1, 2, 3, 4]);
    }
}
