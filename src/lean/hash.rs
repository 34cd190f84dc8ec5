//! The crate's hash maps: `std`'s `HashMap` with `rustc-hash`'s `FxHasher` instead of SipHash,
//! and a set built on the same map.
//!
//! The maps index message, tool-call and run ids per event (thread, verifier, session). SipHash's
//! resistance to chosen-key flooding buys nothing here (the keys come from the agent the app chose
//! to talk to, in a map that lives for one thread), while it cost about 2 % of stream time in the
//! browser profile and its code in the `.wasm`.

use std::borrow::Borrow;
use std::hash::Hash;

/// `HashMap` with `FxHasher`. Create with `HashMap::default()`.
pub type HashMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// A hash set of ids: a [`HashMap`] from the ids to an unused `usize`.
///
/// Every hash map key/value layout instantiates its own copy of the hash table's code in the
/// `.wasm`; the id indexes are `HashMap<String, usize>`, so a set of `String`s stored as that
/// same layout adds no copy (a `HashSet<String>` is a second layout). The price is a `usize` per
/// id; look-ups cost the same.
#[derive(Debug, Clone)]
pub struct HashSet<K>(HashMap<K, usize>);

impl<K> Default for HashSet<K> {
    fn default() -> Self {
        Self(HashMap::default())
    }
}

impl<K: Hash + Eq> HashSet<K> {
    /// Adds `key`; whether it was new.
    #[inline]
    pub fn insert(&mut self, key: K) -> bool {
        self.0.insert(key, 0).is_none()
    }

    /// Removes every key, keeping the memory.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The keys, in no particular order.
    pub fn iter(&self) -> std::collections::hash_map::Keys<'_, K, usize> {
        self.0.keys()
    }
}

impl<K: Hash + Eq + Borrow<str>> HashSet<K> {
    /// Whether `key` is in the set. Asked by `&str` only, so every look-up shares one
    /// instantiation of the map's `contains_key`.
    #[inline]
    pub fn contains(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// Removes `key`; whether it was there.
    #[inline]
    pub fn remove(&mut self, key: &str) -> bool {
        self.0.remove(key).is_some()
    }
}

impl<K: Hash + Eq> FromIterator<K> for HashSet<K> {
    fn from_iter<I: IntoIterator<Item = K>>(iter: I) -> Self {
        let mut set = Self::default();
        for key in iter {
            set.insert(key);
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_holds_each_key_once() {
        let mut set: HashSet<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
        assert!(set.contains("a") && set.contains("b") && !set.contains("c"));
        assert!(set.insert("c".to_owned()));
        assert!(!set.insert("a".to_owned()));
        assert!(set.remove("a"));
        assert!(!set.remove("a"));
        assert!(!set.contains("a") && set.contains("c"));
        let mut keys: Vec<&String> = set.iter().collect();
        keys.sort();
        assert_eq!(keys, ["b", "c"]);
        set.clear();
        assert!(set.is_empty() && !set.contains("b"));
    }
}
