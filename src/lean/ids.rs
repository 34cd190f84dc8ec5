//! Id indexes that hold no copy of an id each: hash chains over numbered entries ([`Chains`]),
//! and a map whose ids are written end to end in one `String` ([`IdMap`]).
//!
//! A `HashMap<String, usize>` holds, per id, a table slot (a `String` and the value, 16 bytes in
//! wasm32, in a table grown by doubling) and the id's own allocation. The thread's indexes already
//! have the id in the message or the call they point at, so [`Chains`] keeps only entry numbers:
//! 4 bytes a bucket (a bucket per two entries) and 4 an entry, and the caller says what entry `n`
//! is. The run's tallies
//! (the verifier's owners, the tool calls of a run) have no such place: [`IdMap`] writes their
//! ids into one buffer. A mixed 20 MB run (27,769 messages, 13,884 calls) held about 40 bytes per
//! id in each index (docs/numbers.md, "Memory").

use std::hash::BuildHasher;

use super::text::sub;

/// The hash of an id: `FxHasher`, as the crate's hash maps.
#[inline]
pub(crate) fn hash_id(id: &str) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(id)
}

/// An entry not linked into any chain: never found (a later duplicate of an id).
const UNLINKED: u32 = u32::MAX;
/// The end of a chain, and an empty bucket.
const END: u32 = u32::MAX - 1;

/// Hash chains over entries numbered 0, 1, 2, ... in the order they were pushed: the caller keeps
/// what each entry is (a message's position, a call's) and answers for it in
/// [`find`](Self::find) and when the buckets grow. An entry is found before the entries pushed
/// after it (the first of equal ids wins, as the thread's indexes want). A bucket per two
/// entries at most: 2 to 4 bytes of buckets an entry, and a chain of about two to walk (one
/// bucket per entry peaked 0.5 MiB higher on mixed 20 MB, at the same speed).
#[derive(Debug, Clone, Default)]
pub(crate) struct Chains {
    /// Per bucket, the first entry of its chain (or [`END`]); a power of two long, or empty.
    heads: Vec<u32>,
    /// Per entry, the next entry of its chain ([`END`], [`UNLINKED`]).
    next: Vec<u32>,
}

impl Chains {
    /// How many entries were pushed.
    pub(crate) fn len(&self) -> usize {
        self.next.len()
    }

    /// Forgets every entry, keeping the memory.
    pub(crate) fn clear(&mut self) {
        self.heads.clear();
        self.next.clear();
    }

    /// The first entry under `hash` for which `is` says yes.
    #[inline]
    pub(crate) fn find(&self, hash: u64, mut is: impl FnMut(usize) -> bool) -> Option<usize> {
        let mask = self.heads.len().wrapping_sub(1);
        let mut at = *self.heads.get(hash as usize & mask)?;
        while at != END {
            if is(at as usize) {
                return Some(at as usize);
            }
            at = self.next[at as usize];
        }
        None
    }

    /// Pushes entry [`len`](Self::len), found under `hash` (`None`: never found). `hash_of` gives
    /// the hash of an earlier entry when the buckets double (one bucket per two entries).
    pub(crate) fn push(&mut self, hash: Option<u64>, hash_of: impl Fn(usize) -> u64) {
        let entry = self.next.len();
        self.next.push(UNLINKED);
        let Some(hash) = hash else {
            return;
        };
        if entry >= 2 * self.heads.len() {
            self.rehash((entry / 2 + 1).next_power_of_two().max(8), &hash_of);
        }
        self.link(entry, hash);
    }

    /// Links `entry` at the end of its bucket's chain, so that chains stay in entry order.
    fn link(&mut self, entry: usize, hash: u64) {
        let bucket = hash as usize & (self.heads.len() - 1);
        self.next[entry] = END;
        let mut at = self.heads[bucket];
        if at == END {
            self.heads[bucket] = entry as u32;
            return;
        }
        while self.next[at as usize] != END {
            at = self.next[at as usize];
        }
        self.next[at as usize] = entry as u32;
    }

    #[inline(never)]
    fn rehash(&mut self, buckets: usize, hash_of: &dyn Fn(usize) -> u64) {
        self.heads.clear();
        self.heads.resize(buckets, END);
        for entry in 0..self.next.len() - 1 {
            if self.next[entry] != UNLINKED {
                self.link(entry, hash_of(entry));
            }
        }
    }
}

/// Ids to numbers, the ids written end to end in one `String`, looked up through [`Chains`]:
/// per id its bytes, its end (4 bytes), 8 bytes of chains and its value, where a
/// `HashMap<String, usize>` has a slot of 16 bytes and an allocation. The values are held only
/// once one is not 0: a map whose values are all 0 (the verifier's owners when no sub-agent is
/// involved: every owner is the agent itself) is a set. Entries are never removed, only all at
/// once ([`clear`](Self::clear)); they are numbered in the order their ids were first inserted.
#[derive(Debug, Clone, Default)]
pub(crate) struct IdMap {
    text: String,
    ends: Vec<u32>,
    /// Empty while every value is 0, else one per entry.
    values: Vec<usize>,
    chains: Chains,
}

impl IdMap {
    /// The id of entry `entry`.
    pub(crate) fn id(&self, entry: usize) -> &str {
        let start = match entry {
            0 => 0,
            _ => self.ends[entry - 1] as usize,
        };
        sub(&self.text, start..self.ends[entry] as usize)
    }

    /// The entry of `id`.
    #[inline]
    pub(crate) fn find(&self, id: &str) -> Option<usize> {
        self.chains.find(hash_id(id), |entry| self.id(entry) == id)
    }

    /// The value of `id`.
    pub(crate) fn get(&self, id: &str) -> Option<usize> {
        self.find(id).map(|entry| self.value(entry))
    }

    /// Whether `id` is in the map.
    pub(crate) fn contains_key(&self, id: &str) -> bool {
        self.find(id).is_some()
    }

    /// The value of entry `entry`.
    pub(crate) fn value(&self, entry: usize) -> usize {
        self.values.get(entry).copied().unwrap_or(0)
    }

    /// Sets the value of entry `entry`.
    pub(crate) fn set(&mut self, entry: usize, value: usize) {
        if self.values.is_empty() {
            if value == 0 {
                return;
            }
            self.values.resize(self.ends.len(), 0);
        }
        self.values[entry] = value;
    }

    /// The entry of `id`, added with value 0 if `id` is not there.
    pub(crate) fn entry(&mut self, id: &str) -> usize {
        if let Some(entry) = self.find(id) {
            return entry;
        }
        self.text.push_str(id);
        self.ends.push(self.text.len() as u32);
        if !self.values.is_empty() {
            self.values.push(0);
        }
        let (text, ends) = (&self.text, &self.ends);
        self.chains.push(Some(hash_id(id)), |entry| {
            let start = entry.checked_sub(1).map_or(0, |e| ends[e] as usize);
            hash_id(sub(text, start..ends[entry] as usize))
        });
        self.ends.len() - 1
    }

    /// Sets `id` to `value`.
    pub(crate) fn insert(&mut self, id: &str, value: usize) {
        let entry = self.entry(id);
        self.set(entry, value);
    }

    /// Forgets every id, keeping the memory.
    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
        self.values.clear();
        self.chains.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_find_the_first_linked_entry() {
        let keys = ["a", "b", "a", "c", "b"];
        let mut chains = Chains::default();
        for (at, key) in keys.iter().enumerate() {
            let first = chains.find(hash_id(key), |e| keys[e] == *key).is_none();
            chains.push(first.then(|| hash_id(key)), |e| hash_id(keys[e]));
            assert_eq!(chains.len(), at + 1);
        }
        assert_eq!(chains.find(hash_id("a"), |e| keys[e] == "a"), Some(0));
        assert_eq!(chains.find(hash_id("b"), |e| keys[e] == "b"), Some(1));
        assert_eq!(chains.find(hash_id("c"), |e| keys[e] == "c"), Some(3));
        assert_eq!(chains.find(hash_id("d"), |e| keys[e] == "d"), None);
        chains.clear();
        assert_eq!(chains.find(hash_id("a"), |_| true), None);
    }

    #[test]
    fn chains_keep_every_entry_through_growth() {
        let keys: Vec<String> = (0..5_000).map(|i| format!("id{i}")).collect();
        let mut chains = Chains::default();
        for key in &keys {
            chains.push(Some(hash_id(key)), |e| hash_id(&keys[e]));
        }
        for (at, key) in keys.iter().enumerate() {
            assert_eq!(chains.find(hash_id(key), |e| keys[e] == *key), Some(at));
        }
        assert_eq!(
            chains.find(hash_id("id5000"), |e| keys[e] == "id5000"),
            None
        );
    }

    #[test]
    fn id_map_holds_each_id_once() {
        let mut map = IdMap::default();
        for i in 0..3_000usize {
            map.insert(&format!("z{i}"), 0);
        }
        assert_eq!((map.get("z7"), map.get("z3000")), (Some(0), None));
        for i in 0..3_000usize {
            map.insert(&format!("m{i}"), i);
        }
        map.insert("m7", 70);
        let m8 = map.entry("m8");
        map.set(m8, map.value(m8) + 1);
        let new = map.entry("new");
        assert_eq!(map.value(new), 0);
        map.set(new, 6);
        assert_eq!(map.get("m7"), Some(70));
        assert_eq!(map.get("m8"), Some(9));
        assert_eq!(map.get("new"), Some(6));
        assert_eq!(map.get("m2999"), Some(2999));
        assert_eq!((map.get("z7"), map.get("z2999")), (Some(0), Some(0)));
        assert_eq!(map.get("m3000"), None);
        assert!(map.contains_key("m0") && !map.contains_key("m"));
        let entry = map.find("m12").unwrap();
        assert_eq!((map.id(entry), map.value(entry)), ("m12", 12));
        assert_eq!(map.id(map.find("new").unwrap()), "new");
        map.clear();
        assert_eq!(map.get("m7"), None);
        map.insert("", 1);
        assert_eq!(map.get(""), Some(1));
    }
}
