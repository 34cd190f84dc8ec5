//! A map from names to values, kept as a vector sorted by name: the crate's small maps, those
//! looked up per run, per tool call or per frame rather than per event (threads, their running
//! calls, the tools offered, tool toggles, handlers and modules, cached patterns).
//!
//! These hold a few to a few hundred names. `BTreeMap` and `HashMap` did the same job with their
//! code instantiated for each key/value layout: 11,808 bytes of the package's gzip size for these
//! twelve layouts (the table in `lean`); a binary search over a vector is a few hundred bytes per
//! layout and as fast at these sizes. The maps looked up per event (the reducer's and the
//! verifier's indexes) stay hash maps.

use std::borrow::Borrow;

/// Names to values, iterated in name order. Equal when the same names map to equal values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortedMap<V> {
    entries: Vec<(String, V)>,
}

/// A set of names, iterated in order.
pub type SortedSet = SortedMap<()>;

impl<V> SortedMap<V> {
    /// An empty map (no allocation).
    pub const fn new() -> Self {
        Self {
            entries: Vec::new(),
        }
    }

    fn find(&self, name: &str) -> Result<usize, usize> {
        find_by(name, &self.entries)
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&V> {
        self.find(name).ok().map(|i| &self.entries[i].1)
    }

    /// The value of `name`, mutably.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut V> {
        self.find(name).ok().map(|i| &mut self.entries[i].1)
    }

    /// The value of `name`, inserted by `make` first if `name` is not there.
    pub fn get_or_insert_with(&mut self, name: &str, make: impl FnOnce() -> V) -> &mut V {
        let i = match self.find(name) {
            Ok(i) => i,
            Err(i) => {
                self.entries.insert(i, (name.to_owned(), make()));
                i
            }
        };
        &mut self.entries[i].1
    }

    /// Whether `name` is in the map.
    pub fn contains_key(&self, name: &str) -> bool {
        self.find(name).is_ok()
    }

    /// Sets `name` to `value`; the value it had, if any.
    pub fn insert(&mut self, name: String, value: V) -> Option<V> {
        match self.find(&name) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (name, value));
                None
            }
        }
    }

    /// Removes `name`; its value, if it was there.
    pub fn remove(&mut self, name: &str) -> Option<V> {
        self.find(name).ok().map(|i| self.entries.remove(i).1)
    }

    /// The number of names.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The names and values, in name order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&String, &V)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The values, in name order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The names and values, the values mutably, in name order.
    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = (&String, &mut V)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// The values, mutably, in name order.
    pub fn values_mut(&mut self) -> impl ExactSizeIterator<Item = &mut V> {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// Removes and yields every entry, in name order.
    pub fn drain(&mut self) -> std::vec::Drain<'_, (String, V)> {
        self.entries.drain(..)
    }

    /// Keeps the entries for which `keep` says so.
    pub fn retain(&mut self, mut keep: impl FnMut(&str, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    /// The names, in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &String> {
        self.entries.iter().map(|(k, _)| k)
    }
}

/// The names of a sorted vector, by position: what [`find_by`] reads. A trait object rather than
/// a `&dyn Fn` closure, whose vtable also holds a `call_once` shim per layout.
trait Names {
    fn len(&self) -> usize;
    fn name(&self, i: usize) -> &str;
}

impl<V> Names for Vec<(String, V)> {
    fn len(&self) -> usize {
        self.len()
    }

    fn name(&self, i: usize) -> &str {
        &self[i].0
    }
}

impl Names for Vec<&str> {
    fn len(&self) -> usize {
        self.len()
    }

    fn name(&self, i: usize) -> &str {
        self[i]
    }
}

/// The binary search of [`SortedMap::find`], once for every value type: the names come through
/// [`Names`], so only its two one-line methods are instantiated per layout.
#[inline(never)]
fn find_by(name: &str, names: &dyn Names) -> Result<usize, usize> {
    let (mut low, mut high) = (0, names.len());
    while low < high {
        let mid = low + (high - low) / 2;
        match names.name(mid).cmp(name) {
            std::cmp::Ordering::Less => low = mid + 1,
            std::cmp::Ordering::Greater => high = mid,
            std::cmp::Ordering::Equal => return Ok(mid),
        }
    }
    Err(low)
}

impl SortedSet {
    /// Adds `name`; whether it was new.
    pub fn add(&mut self, name: impl Borrow<str> + Into<String>) -> bool {
        match self.find(name.borrow()) {
            Ok(_) => false,
            Err(i) => {
                self.entries.insert(i, (name.into(), ()));
                true
            }
        }
    }
}

impl<V> Default for SortedMap<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V> std::ops::Index<&str> for SortedMap<V> {
    type Output = V;

    /// The value of `name`; panics when it is not there.
    fn index(&self, name: &str) -> &V {
        self.get(name).expect("a name in the map")
    }
}

impl<'a, V> IntoIterator for &'a SortedMap<V> {
    type Item = (&'a String, &'a V);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, V)>,
        fn(&'a (String, V)) -> (&'a String, &'a V),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl<V> IntoIterator for SortedMap<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<V> FromIterator<(String, V)> for SortedMap<V> {
    /// Later values of a repeated name win.
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> Self {
        let mut map = SortedMap::new();
        for (name, value) in iter {
            map.insert(name, value);
        }
        map
    }
}

/// Borrowed names, sorted once, asked whether they hold a name: a one-off lookup table (the
/// catalog's names, a round's unsent messages, a thread's answered calls) without a hash table
/// instantiated for `&str`. O(n log n) to build, O(log n) to ask.
pub struct StrSet<'a>(Vec<&'a str>);

impl<'a> StrSet<'a> {
    /// The set of `names` (repeats allowed).
    pub fn new(mut names: Vec<&'a str>) -> Self {
        crate::lean::sort::sort(&mut names);
        StrSet(names)
    }

    fn find(&self, name: &str) -> Result<usize, usize> {
        find_by(name, &self.0)
    }

    /// Whether `name` is one of the names.
    pub fn contains(&self, name: &str) -> bool {
        self.find(name).is_ok()
    }

    /// Adds `name`; whether it was new.
    pub fn insert(&mut self, name: &'a str) -> bool {
        match self.find(name) {
            Ok(_) => false,
            Err(at) => {
                self.0.insert(at, name);
                true
            }
        }
    }
}

/// Many short names held exactly in two allocations: their text end to end, in name order, and
/// where each one ends. A set built once and asked about a few names, of a size where a hash set
/// of `String`s costs a table slot and an allocation per name: a turn's "ids of the messages
/// before it" is every id of the thread (0.9 MB of wasm heap at 20,000 messages as a hash set,
/// 0.2 MB here). O(n log n) to build (the sort of [`StrSet`]), O(log n) to ask.
pub struct IdSet {
    text: String,
    ends: Vec<usize>,
}

impl IdSet {
    /// The set of `names` (repeats allowed).
    pub fn new(names: Vec<&str>) -> Self {
        let sorted = StrSet::new(names);
        let mut set = IdSet {
            text: String::new(),
            ends: Vec::with_capacity(sorted.0.len()),
        };
        for name in &sorted.0 {
            set.text.push_str(name);
            set.ends.push(set.text.len());
        }
        set.text.shrink_to_fit();
        set
    }

    /// Whether `name` is one of the names.
    pub fn contains(&self, name: &str) -> bool {
        find_by(name, self).is_ok()
    }
}

impl Names for IdSet {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn name(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        // Always on char boundaries: `get`, without `str` indexing's panic formatting.
        self.text.get(start..self.ends[i]).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_names_in_order_and_replaces_values() {
        let mut map = SortedMap::new();
        for (name, value) in [("b", 1), ("a", 2), ("c", 3), ("a", 4)] {
            map.insert(name.to_owned(), value);
        }
        let pairs: Vec<(&str, i32)> = map.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(pairs, [("a", 4), ("b", 1), ("c", 3)]);
        assert_eq!(map.get("b"), Some(&1));
        assert_eq!(map.get("z"), None);
        assert_eq!(map.remove("b"), Some(1));
        assert_eq!(map.remove("b"), None);
        assert_eq!(map.len(), 2);
        assert!(!map.contains_key("b"));
    }

    #[test]
    fn an_id_set_holds_exactly_its_names() {
        let names = ["m10", "u1", "m1", "", "é", "u1", "m2"];
        let set = IdSet::new(names.to_vec());
        for name in names {
            assert!(set.contains(name), "{name:?}");
        }
        for name in ["m", "m3", "u", "u10", "e", "m10 "] {
            assert!(!set.contains(name), "{name:?}");
        }
        assert!(!IdSet::new(Vec::new()).contains(""));
    }

    #[test]
    fn a_set_adds_each_name_once() {
        let mut set = SortedSet::new();
        assert!(set.add("t2"));
        assert!(set.add(String::from("t1")));
        assert!(!set.add("t2"));
        assert_eq!(
            set.keys().map(String::as_str).collect::<Vec<_>>(),
            ["t1", "t2"]
        );
        set.clear();
        assert!(set.is_empty());
    }

    #[test]
    fn a_str_set_finds_its_names() {
        let set = StrSet::new(vec!["m3", "m1", "m2", "m1"]);
        for name in ["m1", "m2", "m3"] {
            assert!(set.contains(name), "{name}");
        }
        for name in ["", "m0", "m4", "m"] {
            assert!(!set.contains(name), "{name}");
        }
        let mut set = StrSet::new(Vec::new());
        assert!(!set.contains("m1"));
        assert!(set.insert("m2"));
        assert!(set.insert("m1"));
        assert!(!set.insert("m2"));
        assert!(set.contains("m1") && set.contains("m2") && !set.contains("m3"));
    }
}
