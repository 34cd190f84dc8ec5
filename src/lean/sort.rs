//! One small sort for the crate's few sorts, instead of `std`'s.
//!
//! `slice::sort*` instantiates a full driftsort or ipnsort (2 to 5 KB of wasm each) per element
//! type and comparator; the crate sorts in four places (duplicate keys of JSON objects over 16
//! members, twice; changed message positions; open ids in an error), which cost 13,118
//! bytes of the package's gzip size (the table in `lean`). This is one heapsort of positions, through
//! a trait object that compares or swaps two elements, so each element type gets only those two
//! methods: O(n log n) worst case, in place, not stable (callers that need an order for equal
//! keys compare a tie-breaker too).

/// Sorts `v` so that no element is `less` than the one before it.
pub fn sort_by<T>(v: &mut [T], less: &mut dyn FnMut(&T, &T) -> bool) {
    heapsort(v.len(), &mut By { v, less });
}

/// Sorts `v` by `Ord`.
pub fn sort<T: Ord>(v: &mut [T]) {
    heapsort(v.len(), &mut ByOrd(v));
}

/// What the heap does to the elements, by position: compare two, swap two. A trait object
/// rather than a `&mut dyn FnMut` closure (whose vtable also holds a `call_once` shim per type):
/// only these two one-line methods are instantiated per element type.
trait Positions {
    /// Whether element `i` is less than element `j`.
    fn less(&mut self, i: usize, j: usize) -> bool;
    /// Swaps elements `i` and `j`.
    fn swap(&mut self, i: usize, j: usize);
}

/// A slice sorted by a comparator.
struct By<'a, T> {
    v: &'a mut [T],
    less: &'a mut dyn FnMut(&T, &T) -> bool,
}

impl<T> Positions for By<'_, T> {
    fn less(&mut self, i: usize, j: usize) -> bool {
        (self.less)(&self.v[i], &self.v[j])
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.v.swap(i, j);
    }
}

/// A slice sorted by `Ord`.
struct ByOrd<'a, T>(&'a mut [T]);

impl<T: Ord> Positions for ByOrd<'_, T> {
    fn less(&mut self, i: usize, j: usize) -> bool {
        self.0[i] < self.0[j]
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.0.swap(i, j);
    }
}

/// A heapsort of positions `0..n`.
#[inline(never)]
fn heapsort(n: usize, v: &mut dyn Positions) {
    if n < 2 {
        return;
    }
    // Build a max-heap, then move the largest to the end, one at a time.
    for start in (0..n / 2).rev() {
        sift_down(start, n, v);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift_down(0, end, v);
    }
}

fn sift_down(mut node: usize, end: usize, v: &mut dyn Positions) {
    loop {
        let mut child = 2 * node + 1;
        if child >= end {
            return;
        }
        // The larger of the two children.
        if child + 1 < end && v.less(child, child + 1) {
            child += 1;
        }
        if !v.less(node, child) {
            return;
        }
        v.swap(node, child);
        node = child;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic pseudo-random sequence (xorshift), for inputs of every shape.
    fn numbers(n: usize, seed: u64, modulo: u64) -> Vec<u64> {
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
    fn sorts_like_std_for_every_length_and_duplicates() {
        for n in 0..70 {
            for (seed, modulo) in [(1, 1_000_000), (7, 3), (11, 1)] {
                let mut ours = numbers(n, seed, modulo);
                let mut std = ours.clone();
                sort(&mut ours);
                std.sort();
                assert_eq!(ours, std, "n = {n}, modulo = {modulo}");
            }
        }
        let mut big = numbers(100_000, 3, u64::MAX);
        let mut std = big.clone();
        sort(&mut big);
        std.sort();
        assert_eq!(big, std);
    }

    #[test]
    fn sorted_and_reversed_inputs() {
        let mut up: Vec<u32> = (0..1000).collect();
        let mut down: Vec<u32> = (0..1000).rev().collect();
        sort(&mut up);
        sort(&mut down);
        assert_eq!(up, down);
        assert!(up.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_comparator_with_a_tie_breaker_gives_a_stable_order() {
        let keys = ["b", "a", "b", "a", "c", "a"];
        let mut order: Vec<usize> = (0..keys.len()).collect();
        sort_by(&mut order, &mut |&x, &y| (keys[x], x) < (keys[y], y));
        assert_eq!(order, [1, 3, 5, 0, 2, 4]);
    }
}
