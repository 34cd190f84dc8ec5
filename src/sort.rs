//! One small sort for the crate's few sorts, instead of `std`'s.
//!
//! `slice::sort*` instantiates a full driftsort or ipnsort (2 to 5 KB of wasm each) per element
//! type and comparator; the crate sorts in four places (duplicate keys of JSON objects over 16
//! members, twice; changed message positions; open ids in an error), which cost 13,118
//! bytes of the package's gzip size (README, "Numbers"). This is one heapsort of positions, through
//! a `&mut dyn FnMut` that compares or swaps two elements, so each element type gets only that
//! closure: O(n log n) worst case, in place, not stable (callers that need an order for equal keys
//! compare a tie-breaker too).

/// Sorts `v` so that no element is `less` than the one before it.
pub fn sort_by<T>(v: &mut [T], less: &mut dyn FnMut(&T, &T) -> bool) {
    // The heap works on positions; only this closure (compare or swap two of them) is
    // instantiated per element type.
    heapsort(v.len(), &mut |i, j, swap| {
        if swap {
            v.swap(i, j);
            false
        } else {
            less(&v[i], &v[j])
        }
    });
}

/// Sorts `v` by `Ord`.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, &mut |a, b| a < b);
}

/// A heapsort of positions `0..n`: `op(i, j, false)` says whether element `i` is less than
/// element `j`, `op(i, j, true)` swaps them.
#[inline(never)]
fn heapsort(n: usize, op: &mut dyn FnMut(usize, usize, bool) -> bool) {
    if n < 2 {
        return;
    }
    // Build a max-heap, then move the largest to the end, one at a time.
    for start in (0..n / 2).rev() {
        sift_down(start, n, op);
    }
    for end in (1..n).rev() {
        op(0, end, true);
        sift_down(0, end, op);
    }
}

fn sift_down(mut node: usize, end: usize, op: &mut dyn FnMut(usize, usize, bool) -> bool) {
    loop {
        let mut child = 2 * node + 1;
        if child >= end {
            return;
        }
        // The larger of the two children.
        if child + 1 < end && op(child, child + 1, false) {
            child += 1;
        }
        if !op(node, child, false) {
            return;
        }
        op(node, child, true);
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
