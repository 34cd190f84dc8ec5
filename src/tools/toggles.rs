//! Per-thread tool toggles: which frontend tools are on, per chat thread, kept in a key-value store
//! (`localStorage` in the browser, reached through the [`KeyValueStore`] trait).
//!
//! # Storage format
//!
//! - Key `chat:tools:{threadId}`; before a thread exists (`thread_id == None`) the key is
//!   `chat:tools:default` (see [`storage_key`]).
//! - Every thread has a key of its own, and none has the default's: a thread id is used as is
//!   unless it is `default` or starts with `~`, and those get a `~` in front (thread `"default"`
//!   is stored under `chat:tools:~default`, thread `"~x"` under `chat:tools:~~x`). An escaped id
//!   starts with `~`, an id used as is never does and is never `default`, so the mapping is
//!   injective and its inverse is a function: `chat:tools:default` is the default,
//!   `chat:tools:~{id}` is thread `id` when `id` is `default` or starts with `~`, any other
//!   `chat:tools:{id}` not starting with `~` is thread `id`. The rest, `chat:tools:~{id}` with an
//!   `id` that needed no escape (`chat:tools:~abc`, `chat:tools:~`), is no thread's key: nothing
//!   here writes it, and a `storage` event for it is ignored.
//! - Value: a JSON object of booleans, `{"get_weather":true,"search_docs":false}`, written in name
//!   order so the same state always gives the same string.
//!
//! # Rules
//!
//! - Every frontend tool is off unless its name maps to `true`.
//! - A thread with no saved state shows the default state until its first run;
//!   [`Toggles::begin_run`] then saves a copy of the default under the thread's key, and from then
//!   on the thread's state is its own. Changing a toggle in an unsaved thread saves the default
//!   state plus that change under the thread's key (what the user saw, changed).
//! - Names are never pruned: a tool that left the catalog keeps its entry, in case it comes back.
//! - Storage never breaks anything. A read that throws, or a value that is not a JSON object of
//!   booleans, queues a [`Diagnostic`] and gives the booleans that could be read (none if the value
//!   was not an object); that key is then left as it is, by reads and by `begin_run`, until the user
//!   changes a toggle of that thread, which writes the in-memory state with the change.
//! - A write that throws (private mode, a full quota) queues a [`CODE_STORAGE_UNAVAILABLE`]
//!   diagnostic and leaves the key *unsaved*: the cache keeps its state, which stays what the user
//!   sees. Nothing is given up for good, and nothing is lost once the store accepts writes again:
//!   every later write attempt (a change, or the copy of [`Toggles::begin_run`]) first writes every
//!   unsaved key again, with its state as cached now, in key order, then its own key. A write that
//!   succeeds makes its key saved; each write that throws, a retry included, queues one more
//!   diagnostic and leaves (or makes) its key unsaved. A `storage` event for an unsaved key (another
//!   tab wrote or removed it later) makes it saved: that tab's value is newer, and the cache takes
//!   it. Reads of keys not yet cached still go to the store, which may still be readable.
//!
//! # Call order (sans-IO)
//!
//! Inputs: [`Toggles::state`] / [`Toggles::is_enabled`] (lazy reads), [`Toggles::set_enabled`] (a
//! user change), [`Toggles::begin_run`] (before a run of a thread starts),
//! [`Toggles::handle_storage_event`] (the browser's `storage` event, from another tab). Output:
//! [`Toggles::poll_diagnostic`], to drain after any of them. Each key is read from the store at most
//! once; after that, answers come from the cache in `O(log n)`.

use std::collections::VecDeque;

use crate::json::{quoted, write_str, Value};
use crate::lean::sorted::{SortedMap, SortedSet};

use super::{push, Diagnostic};

/// The prefix of every key this module owns.
pub const KEY_PREFIX: &str = "chat:tools:";

/// The key of the default state, used before a thread exists.
pub const DEFAULT_KEY: &str = "chat:tools:default";

/// The id part of [`DEFAULT_KEY`]; a thread with this id is stored escaped (see [`storage_key`]).
const DEFAULT_ID: &str = "default";

/// The escape of thread ids that would meet the default key or another escaped id.
const ESCAPE: char = '~';

/// Diagnostic code: the store threw on a read or a write; the message includes its error.
pub const CODE_STORAGE_UNAVAILABLE: &str = "toggles/storage-unavailable";

/// Diagnostic code: a stored value is not JSON, not an object, or holds non-boolean values; the
/// message names the key.
pub const CODE_CORRUPT: &str = "toggles/corrupt";

/// An empty state, handed out when there is nothing cached to borrow from.
static EMPTY: SortedMap<bool> = SortedMap::new();

/// An absent entry, handed out when there is nothing cached to borrow from.
static ABSENT: Entry = Entry {
    map: SortedMap::new(),
    status: Status::Absent,
};

/// An error thrown by a [`KeyValueStore`] (for `localStorage`: the message of the JS exception).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(pub String);

/// A synchronous string key-value store, the shape of `localStorage`.
///
/// A host that must not call the real store while it holds the toggles (the browser: the app's
/// `storage` may call back into the runtime) implements it as a buffer instead: it reads the keys
/// of [`Toggles::keys_to_load`] before, answers `get` from them, says [`pending`] for a key it is
/// still reading, queues the writes, does them afterwards and reports a failure with
/// [`Toggles::write_failed`].
///
/// [`pending`]: KeyValueStore::pending
pub trait KeyValueStore {
    /// The value under `key`, `Ok(None)` if there is none.
    fn get(&self, key: &str) -> Result<Option<String>, StoreError>;
    /// Stores `value` under `key`.
    fn set(&mut self, key: &str, value: &str) -> Result<(), StoreError>;
    /// Removes `key`; removing a missing key is not an error.
    fn remove(&mut self, key: &str) -> Result<(), StoreError>;
    /// Stores `value` under `key` for the user's change of the tool `name` (`None`: a retry or a
    /// thread's first-run copy); a buffering store keeps `name` for [`Toggles::write_failed`].
    fn set_for(&mut self, key: &str, value: &str, name: Option<&str>) -> Result<(), StoreError> {
        let _ = name;
        self.set(key, value)
    }
    /// Whether `key` is being read right now, by an outer call the store is answering (a storage
    /// wrapper that calls back into the runtime from its `getItem`). The toggles then answer
    /// without it, as if it held nothing, and cache nothing for it.
    fn pending(&self, key: &str) -> bool {
        let _ = key;
        false
    }
}

/// A store in memory: for when no real storage exists (e.g. `window.localStorage` itself
/// throws), and as a test double. It never fails.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct MemoryStore {
    /// The stored values by key.
    entries: SortedMap<String>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many keys are stored.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Removes every key, like `localStorage.clear()`.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

impl KeyValueStore for MemoryStore {
    fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self.entries.get(key).cloned())
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.entries.insert(key.to_owned(), value.to_owned());
        Ok(())
    }

    fn remove(&mut self, key: &str) -> Result<(), StoreError> {
        self.entries.remove(key);
        Ok(())
    }
}

/// A store for a host that must not call the real one while it holds the toggles (see
/// [`KeyValueStore`]): every key the toggles read was [`Toggles::supply`]d beforehand, so a key
/// they still ask for is being read right now by an outer call ([`KeyValueStore::pending`]); the
/// writes wait in `writes` for the host, which reports a failure with [`Toggles::write_failed`].
#[derive(Debug, Default)]
pub struct DeferredStore {
    /// `(key, value, the tool whose change it is)`, in the order the toggles wrote them.
    pub writes: Vec<(String, String, Option<String>)>,
}

impl KeyValueStore for DeferredStore {
    fn get(&self, _key: &str) -> Result<Option<String>, StoreError> {
        // Never asked: `pending` holds for every key that was not supplied.
        Ok(None)
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.set_for(key, value, None)
    }

    fn set_for(&mut self, key: &str, value: &str, name: Option<&str>) -> Result<(), StoreError> {
        self.writes
            .push((key.to_owned(), value.to_owned(), name.map(str::to_owned)));
        Ok(())
    }

    fn remove(&mut self, _key: &str) -> Result<(), StoreError> {
        Ok(())
    }

    fn pending(&self, _key: &str) -> bool {
        true
    }
}

/// The storage key of a thread's toggles: `chat:tools:{threadId}`, or `chat:tools:default` for
/// `None` (no thread yet). A thread id that is `"default"` or starts with `~` gets a `~` in front
/// (`"default"` → `chat:tools:~default`, `"~x"` → `chat:tools:~~x`), so distinct threads never
/// share a key and no thread shares the default's (see the [module docs](self)). This is the one
/// place of the rule, next to its (private) inverse, used for `storage` events.
pub fn storage_key(thread_id: Option<&str>) -> String {
    match thread_id {
        None => DEFAULT_KEY.to_owned(),
        Some(id) if is_escaped(id) => format!("{KEY_PREFIX}{ESCAPE}{id}"),
        Some(id) => format!("{KEY_PREFIX}{id}"),
    }
}

/// Whether [`storage_key`] puts a `~` in front of this thread id.
fn is_escaped(id: &str) -> bool {
    id == DEFAULT_ID || id.starts_with(ESCAPE)
}

/// The inverse of [`storage_key`]: `Some(None)` for the default key, `Some(Some(id))` for the key
/// of thread `id`, `None` for a key that is not [`storage_key`] of anything (another prefix, or a
/// `~` that escapes nothing, such as `chat:tools:~abc`).
fn key_owner(key: &str) -> Option<Option<&str>> {
    let rest = key.strip_prefix(KEY_PREFIX)?;
    if rest == DEFAULT_ID {
        return Some(None);
    }
    match rest.strip_prefix(ESCAPE) {
        Some(id) if is_escaped(id) => Some(Some(id)),
        Some(_) => None,
        None => Some(Some(rest)),
    }
}

/// Whose toggles changed, as returned by [`Toggles::handle_storage_event`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThreadKey {
    /// The default state (`chat:tools:default`) changed. Threads with no saved state show the
    /// default, so their displayed state changed too.
    Default,
    /// One thread's state changed (its key is [`storage_key`] of this id).
    Thread(String),
    /// Storage was cleared: every state changed (all are back to all-off, threads show the default).
    All,
}

/// What the cache knows about one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// The key holds this state (read from the store, written by us, or kept in memory after a
    /// failed write): the map is the thread's own.
    Own,
    /// The key holds nothing: a thread shows the default state, the default shows all-off. Kept
    /// apart from `Own` so `begin_run` knows whether to copy the default.
    Absent,
    /// The store threw on the read, or the value was not fully readable; the map holds the booleans
    /// that could be read. The stored value must not be overwritten until the user changes a toggle.
    Unreadable,
}

/// The cached state of one key.
#[derive(Debug, Clone)]
struct Entry {
    /// The toggles, in name order (the order they are serialized in). Empty when `Absent`.
    map: SortedMap<bool>,
    /// Whether `map` is the key's own state, and whether the key may be written.
    status: Status,
}

impl Entry {
    /// An entry for a key that holds nothing.
    fn absent() -> Self {
        Self {
            map: SortedMap::new(),
            status: Status::Absent,
        }
    }
}

/// Per-thread tool toggles over a [`KeyValueStore`], with a cache in front of it and diagnostics
/// instead of errors. See the [module docs](self) for the rules.
#[derive(Debug)]
pub struct Toggles<S: KeyValueStore> {
    /// The real storage; reads go here once per key, every write goes here.
    store: S,
    /// The cached `chat:tools:default`, `None` until first needed. Kept apart from `threads` so a
    /// thread id can be looked up without building its key string.
    default: Option<Entry>,
    /// The cached state of each thread read or written so far, by thread id (thread `"default"`
    /// included: it is a thread like any other).
    threads: SortedMap<Entry>,
    /// The keys whose last write threw: the cache is the only copy of their state. Written again,
    /// in this order, before every later write.
    unsaved: SortedSet,
    /// Problems waiting for [`Toggles::poll_diagnostic`].
    diagnostics: VecDeque<Diagnostic>,
}

impl<S: KeyValueStore> Toggles<S> {
    /// Toggles over `store`. Nothing is read until a state is asked for.
    pub fn new(store: S) -> Self {
        Self {
            store,
            default: None,
            threads: SortedMap::new(),
            unsaved: SortedSet::new(),
            diagnostics: VecDeque::new(),
        }
    }

    /// Whether the frontend tool `name` is on in this thread (`None`: the default state). Names
    /// never saved are off.
    pub fn is_enabled(&mut self, thread_id: Option<&str>, name: &str) -> bool {
        self.saved(thread_id, name).unwrap_or(false)
    }

    /// The saved toggle of `name` in a thread (its own, else the default's), `None` when neither
    /// has one: the tool's `defaultEnabled` decides then.
    pub fn saved(&mut self, thread_id: Option<&str>, name: &str) -> Option<bool> {
        self.state(thread_id).get(name).copied()
    }

    /// The toggles of a thread (`None`: the default state), as shown to the user: a thread with no
    /// saved state shows the default state. Read from the store on first use, then from the cache.
    pub fn state(&mut self, thread_id: Option<&str>) -> &SortedMap<bool> {
        let shows_default = match thread_id {
            None => false,
            Some(id) => self.entry(Some(id)).status == Status::Absent,
        };
        let slot = if shows_default { None } else { thread_id };
        self.load(slot);
        match slot {
            None => self.default.as_ref().map_or(&EMPTY, |e| &e.map),
            Some(id) => self.threads.get(id).map_or(&EMPTY, |e| &e.map),
        }
    }

    /// The user turned `name` on or off in this thread (`None`: the default state). The thread's
    /// state as shown, with the change, becomes its own and is written to the store, even if the
    /// stored value could not be read before, after the unsaved keys are written again. A failed
    /// write queues a diagnostic and keeps the change in memory, to be written again at the next
    /// write.
    pub fn set_enabled(&mut self, thread_id: Option<&str>, name: &str, enabled: bool) {
        let mut map = self.state(thread_id).clone();
        map.insert(name.to_owned(), enabled);
        self.write(thread_id, map, Some(name));
    }

    /// A run of `thread_id` is about to start. If the thread has no saved state, a copy of the
    /// current default state is saved under its key (after the unsaved keys are written again); a
    /// thread with saved state, or whose stored value could not be read, is left as it is, and
    /// nothing is written.
    pub fn begin_run(&mut self, thread_id: &str) {
        let slot = Some(thread_id);
        if self.entry(slot).status != Status::Absent {
            return;
        }
        let map = self.state(None).clone();
        self.write(slot, map, None);
    }

    /// A new chat got its id (`to`) for a run started under `from`: unless `to` has saved state,
    /// the toggles `from` shows (its own, else the default state) are saved as `to`'s, so what
    /// the user chose before the chat had an id is its own.
    pub fn adopt(&mut self, from: &str, to: &str) {
        if self.entry(Some(to)).status != Status::Absent {
            return;
        }
        let map = self.state(Some(from)).clone();
        self.write(Some(to), map, None);
    }

    /// The browser's `storage` event (another tab changed `localStorage`): `key` and `new_value`
    /// as the event gives them. For the key of the default or of a thread (the inverse of
    /// [`storage_key`]) the cached state is replaced, the key is no longer unsaved (the other
    /// tab's value is newer) and the changed state is returned; `key == None` means storage was
    /// cleared, every state is reset, nothing is unsaved any more and [`ThreadKey::All`] is
    /// returned. Other keys are ignored (`None`): other prefixes, and `chat:tools:~{id}` keys whose
    /// `id` needed no escape, which are no thread's key (thread `"~abc"` is stored under
    /// `chat:tools:~~abc`, thread `"abc"` under `chat:tools:abc`). A corrupt new value is handled
    /// as on a read: diagnostic, readable booleans kept, not overwritten until a change.
    pub fn handle_storage_event(
        &mut self,
        key: Option<&str>,
        new_value: Option<&str>,
    ) -> Option<ThreadKey> {
        let Some(key) = key else {
            self.default = Some(Entry::absent());
            for entry in self.threads.values_mut() {
                *entry = Entry::absent();
            }
            self.unsaved.clear();
            return Some(ThreadKey::All);
        };
        let slot = key_owner(key)?;
        self.unsaved.remove(key);
        let entry = match new_value {
            None => Entry::absent(),
            Some(text) => self.parse(key, text),
        };
        self.put(slot, entry);
        Some(match slot {
            None => ThreadKey::Default,
            Some(id) => ThreadKey::Thread(id.to_owned()),
        })
    }

    /// The next queued problem, oldest first. Diagnostics have no `index`; `name` is the tool whose
    /// change could not be written, or the tool whose stored value is not a boolean; `code` is
    /// [`CODE_STORAGE_UNAVAILABLE`] or [`CODE_CORRUPT`].
    pub fn poll_diagnostic(&mut self) -> Option<Diagnostic> {
        self.diagnostics.pop_front()
    }

    /// Whether some state is kept in memory only: the last write of its key threw, and it is
    /// written again before the next write (a change, or the copy of [`Toggles::begin_run`]).
    pub fn has_unsaved(&self) -> bool {
        !self.unsaved.is_empty()
    }

    /// The underlying store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The underlying store, mutably (changes made through it bypass the cache; tell the cache
    /// with [`Toggles::handle_storage_event`]).
    pub fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }

    /// The cache entry of a slot, read from the store first if it is not cached yet.
    fn entry(&mut self, slot: Option<&str>) -> &Entry {
        self.load(slot);
        match slot {
            None => self.default.as_ref().unwrap_or(&ABSENT),
            Some(id) => self.threads.get(id).unwrap_or(&ABSENT),
        }
    }

    /// Reads a slot's key from the store into the cache, if it is not cached yet.
    fn load(&mut self, slot: Option<&str>) {
        if self.is_cached(slot) {
            return;
        }
        let key = storage_key(slot);
        if self.store.pending(&key) {
            return;
        }
        let read = self.store.get(&key);
        let entry = self.read_entry(&key, read);
        self.put(slot, entry);
    }

    /// Whether a slot's key is in the cache.
    fn is_cached(&self, slot: Option<&str>) -> bool {
        match slot {
            None => self.default.is_some(),
            Some(id) => self.threads.contains_key(id),
        }
    }

    /// Caches a slot's entry.
    fn put(&mut self, slot: Option<&str>, entry: Entry) {
        match slot {
            None => self.default = Some(entry),
            Some(id) => {
                self.threads.insert(id.to_owned(), entry);
            }
        }
    }

    /// The keys a call for this thread (`None`: the default state) may read that are not cached
    /// yet: the thread's key and the default key. A buffering store reads them before the call.
    pub fn keys_to_load(&self, thread_id: Option<&str>) -> Vec<String> {
        let mut keys = Vec::new();
        if thread_id.is_some() && !self.is_cached(thread_id) {
            keys.push(storage_key(thread_id));
        }
        if !self.is_cached(None) {
            keys.push(DEFAULT_KEY.to_owned());
        }
        keys
    }

    /// What the store holds under `key` (one of [`Toggles::keys_to_load`]), read by the host before
    /// the call: cached as a read would cache it, unless the key is cached already (a nested call
    /// got there first) or is no key of these toggles.
    pub fn supply(&mut self, key: &str, read: Result<Option<String>, StoreError>) {
        let Some(slot) = key_owner(key) else { return };
        if !self.is_cached(slot) {
            let entry = self.read_entry(key, read);
            self.put(slot, entry);
        }
    }

    /// A deferred write of `key` threw (see [`KeyValueStore`]): the same as a `set` that throws,
    /// a diagnostic, and the key stays unsaved until a later write succeeds. `name` is what
    /// [`KeyValueStore::set_for`] was given.
    pub fn write_failed(&mut self, key: &str, name: Option<&str>, err: StoreError) {
        self.fail_write(key.to_owned(), name, err);
    }

    /// A cache entry from what the store answered for `key`.
    fn read_entry(&mut self, key: &str, read: Result<Option<String>, StoreError>) -> Entry {
        match read {
            Ok(None) => Entry::absent(),
            Ok(Some(text)) => self.parse(key, &text),
            Err(err) => {
                self.diagnose(
                    None,
                    CODE_STORAGE_UNAVAILABLE,
                    format!("could not read {key}: {err}; using all tools off and leaving it as it is until a toggle changes"),
                );
                Entry {
                    map: SortedMap::new(),
                    status: Status::Unreadable,
                }
            }
        }
    }

    /// Parses a stored value; anything but a JSON object of booleans queues diagnostics and gives
    /// an `Unreadable` entry holding the booleans that could be read.
    fn parse(&mut self, key: &str, text: &str) -> Entry {
        let object = match Value::parse(text) {
            Ok(Value::Object(object)) => object,
            Ok(other) => {
                let kind = other.kind();
                self.diagnose(
                    None,
                    CODE_CORRUPT,
                    format!("{key} holds {kind}, not an object of booleans; using all tools off and leaving it as it is until a toggle changes"),
                );
                return unreadable(SortedMap::new());
            }
            Err(err) => {
                self.diagnose(
                    None,
                    CODE_CORRUPT,
                    format!("{key} is not json ({err}); using all tools off and leaving it as it is until a toggle changes"),
                );
                return unreadable(SortedMap::new());
            }
        };
        let mut map = SortedMap::new();
        let mut bad = false;
        for (name, value) in object {
            match value {
                Value::Bool(on) => {
                    map.insert(name, on);
                }
                other => {
                    bad = true;
                    let kind = other.kind();
                    self.diagnose(
                        Some(name.clone()),
                        CODE_CORRUPT,
                        format!("{key}: {} is {kind}, not a boolean; it counts as off and {key} is left as it is until a toggle changes", quoted(&name)),
                    );
                }
            }
        }
        if bad {
            unreadable(map)
        } else {
            Entry {
                map,
                status: Status::Own,
            }
        }
    }

    /// Makes `map` a slot's own state, writes the unsaved keys again, then writes the slot's key.
    /// `name` is the tool the user changed, for the diagnostic.
    fn write(&mut self, slot: Option<&str>, map: SortedMap<bool>, name: Option<&str>) {
        let entry = Entry {
            map,
            status: Status::Own,
        };
        self.put(slot, entry);
        let key = storage_key(slot);
        // Written last anyway, with its newest state: no separate retry.
        self.unsaved.remove(&key);
        for (unsaved, ()) in std::mem::take(&mut self.unsaved) {
            self.save(unsaved, None);
        }
        self.save(key, name);
    }

    /// Writes a key's cached state to the store; if that throws, queues a diagnostic and keeps the
    /// key unsaved. `name`: the tool whose change this write is (`None` for a retry or a copy).
    fn save(&mut self, key: String, name: Option<&str>) {
        let cached = match key_owner(&key) {
            Some(None) => self.default.as_ref(),
            Some(Some(id)) => self.threads.get(id),
            None => None,
        };
        // Only keys of cached, own states are ever written or kept unsaved.
        let Some(entry) = cached else { return };
        // The JSON object of the toggles, written as `Value::to_json` would write it.
        let mut text = String::from("{");
        for (i, (name, on)) in entry.map.iter().enumerate() {
            if i > 0 {
                push(&mut text, ",");
            }
            write_str(&mut text, name);
            push(&mut text, if *on { ":true" } else { ":false" });
        }
        push(&mut text, "}");
        if let Err(err) = self.store.set_for(&key, &text, name) {
            self.fail_write(key, name, err);
        }
    }

    /// A write of `key` threw: a diagnostic, and the key is unsaved.
    fn fail_write(&mut self, key: String, name: Option<&str>, err: StoreError) {
        let message = match name {
            Some(_) => format!(
                "could not write {key}: {err}; the change is kept in memory and written again at the next change"
            ),
            None => format!(
                "could not write {key}: {err}; its toggles are kept in memory and written again at the next change"
            ),
        };
        self.diagnose(name.map(str::to_owned), CODE_STORAGE_UNAVAILABLE, message);
        self.unsaved.add(key);
    }

    /// Queues a diagnostic.
    fn diagnose(&mut self, name: Option<String>, code: &'static str, message: String) {
        self.diagnostics.push_back(Diagnostic {
            index: None,
            name,
            code,
            message,
        });
    }
}

/// An entry whose stored value could not be fully read.
fn unreadable(map: SortedMap<bool>) -> Entry {
    Entry {
        map,
        status: Status::Unreadable,
    }
}
