//! Per-thread tool toggles: which frontend tools are on, per chat thread, kept in a key-value store
//! (`localStorage` in the browser, reached through the [`KeyValueStore`] trait).
//!
//! # Storage format
//!
//! - Key `chat:tools:{threadId}`; before a thread exists (`thread_id == None`) the key is
//!   `chat:tools:default` (see [`storage_key`]). A thread whose id is literally `"default"` shares
//!   that key, so it shares the default state: the key format leaves no way to tell them apart.
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
//! - A write that throws queues a diagnostic and switches this `Toggles` to memory for the rest of
//!   its life: the cache keeps every value, and no later write is tried (a store that failed once,
//!   private mode or a full quota, would most likely fail again, and each attempt would add another
//!   diagnostic). Reads of keys not yet cached still go to the store, which may still be readable.
//!
//! # Call order (sans-IO)
//!
//! Inputs: [`Toggles::state`] / [`Toggles::is_enabled`] (lazy reads), [`Toggles::set_enabled`] (a
//! user change), [`Toggles::begin_run`] (before a run of a thread starts),
//! [`Toggles::handle_storage_event`] (the browser's `storage` event, from another tab). Output:
//! [`Toggles::poll_diagnostic`], to drain after any of them. Each key is read from the store at most
//! once; after that, answers come from the cache in `O(log n)`.

use std::collections::{BTreeMap, VecDeque};

use crate::hash::HashMap;

use crate::json::Value;

use super::Diagnostic;

/// The prefix of every key this module owns.
pub const KEY_PREFIX: &str = "chat:tools:";

/// The key of the default state, used before a thread exists.
pub const DEFAULT_KEY: &str = "chat:tools:default";

/// The thread id whose key collides with [`DEFAULT_KEY`].
const DEFAULT_ID: &str = "default";

/// Diagnostic code: the store threw on a read or a write; the message includes its error.
pub const CODE_STORAGE_UNAVAILABLE: &str = "toggles/storage-unavailable";

/// Diagnostic code: a stored value is not JSON, not an object, or holds non-boolean values; the
/// message names the key.
pub const CODE_CORRUPT: &str = "toggles/corrupt";

/// An empty state, handed out when there is nothing cached to borrow from.
static EMPTY: BTreeMap<String, bool> = BTreeMap::new();

/// An absent entry, handed out when there is nothing cached to borrow from.
static ABSENT: Entry = Entry {
    map: BTreeMap::new(),
    status: Status::Absent,
};

/// An error thrown by a [`KeyValueStore`] (for `localStorage`: the message of the JS exception).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(pub String);

/// A synchronous string key-value store, the shape of `localStorage`.
pub trait KeyValueStore {
    /// The value under `key`, `Ok(None)` if there is none.
    fn get(&self, key: &str) -> Result<Option<String>, StoreError>;
    /// Stores `value` under `key`.
    fn set(&mut self, key: &str, value: &str) -> Result<(), StoreError>;
    /// Removes `key`; removing a missing key is not an error.
    fn remove(&mut self, key: &str) -> Result<(), StoreError>;
}

/// A store in a `HashMap`: for when no real storage exists (e.g. `window.localStorage` itself
/// throws), and as a test double. It never fails.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct MemoryStore {
    /// The stored values by key.
    entries: HashMap<String, String>,
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

/// The storage key of a thread's toggles: `chat:tools:{threadId}`, or `chat:tools:default` for
/// `None` (no thread yet).
pub fn storage_key(thread_id: Option<&str>) -> String {
    format!("{KEY_PREFIX}{}", thread_id.unwrap_or(DEFAULT_ID))
}

/// Whose toggles changed, as returned by [`Toggles::handle_storage_event`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThreadKey {
    /// The default state (`chat:tools:default`) changed. Threads with no saved state show the
    /// default, so their displayed state changed too.
    Default,
    /// One thread's state changed.
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
    map: BTreeMap<String, bool>,
    /// Whether `map` is the key's own state, and whether the key may be written.
    status: Status,
}

impl Entry {
    /// An entry for a key that holds nothing.
    fn absent() -> Self {
        Self {
            map: BTreeMap::new(),
            status: Status::Absent,
        }
    }
}

/// Per-thread tool toggles over a [`KeyValueStore`], with a cache in front of it and diagnostics
/// instead of errors. See the [module docs](self) for the rules.
#[derive(Debug)]
pub struct Toggles<S: KeyValueStore> {
    /// The real storage; reads go here once per key, writes go here until one fails.
    store: S,
    /// The cached `chat:tools:default`, `None` until first needed. Kept apart from `threads` so a
    /// thread id can be looked up without building its key string.
    default: Option<Entry>,
    /// The cached state of each thread read or written so far, by thread id (never `"default"`,
    /// which is `default`).
    threads: HashMap<String, Entry>,
    /// A write threw: the store is treated as read-only and the cache is the only copy of what
    /// changed since, for the rest of this instance's life.
    memory_only: bool,
    /// Problems waiting for [`Toggles::poll_diagnostic`].
    diagnostics: VecDeque<Diagnostic>,
}

impl<S: KeyValueStore> Toggles<S> {
    /// Toggles over `store`. Nothing is read until a state is asked for.
    pub fn new(store: S) -> Self {
        Self {
            store,
            default: None,
            threads: HashMap::default(),
            memory_only: false,
            diagnostics: VecDeque::new(),
        }
    }

    /// Whether the frontend tool `name` is on in this thread (`None`: the default state). Names
    /// never saved are off.
    pub fn is_enabled(&mut self, thread_id: Option<&str>, name: &str) -> bool {
        self.state(thread_id).get(name).copied().unwrap_or(false)
    }

    /// The toggles of a thread (`None`: the default state), as shown to the user: a thread with no
    /// saved state shows the default state. Read from the store on first use, then from the cache.
    pub fn state(&mut self, thread_id: Option<&str>) -> &BTreeMap<String, bool> {
        let slot = slot(thread_id);
        let shows_default = match slot {
            None => false,
            Some(id) => self.entry(Some(id)).status == Status::Absent,
        };
        let slot = if shows_default { None } else { slot };
        self.load(slot);
        match slot {
            None => self.default.as_ref().map_or(&EMPTY, |e| &e.map),
            Some(id) => self.threads.get(id).map_or(&EMPTY, |e| &e.map),
        }
    }

    /// The user turned `name` on or off in this thread (`None`: the default state). The thread's
    /// state as shown, with the change, becomes its own and is written to the store, even if the
    /// stored value could not be read before. A failed write queues a diagnostic and keeps the
    /// change in memory.
    pub fn set_enabled(&mut self, thread_id: Option<&str>, name: &str, enabled: bool) {
        let slot = slot(thread_id);
        let mut map = self.state(slot).clone();
        map.insert(name.to_owned(), enabled);
        self.write(slot, map, Some(name));
    }

    /// A run of `thread_id` is about to start. If the thread has no saved state, a copy of the
    /// current default state is saved under its key; a thread with saved state, or whose stored
    /// value could not be read, is left as it is.
    pub fn begin_run(&mut self, thread_id: &str) {
        let slot = slot(Some(thread_id));
        if slot.is_none() || self.entry(slot).status != Status::Absent {
            return;
        }
        let map = self.state(None).clone();
        self.write(slot, map, None);
    }

    /// The browser's `storage` event (another tab changed `localStorage`): `key` and `new_value`
    /// as the event gives them. For a `chat:tools:` key the cached state is replaced and the changed
    /// state is returned; `key == None` means storage was cleared, every state is reset and
    /// [`ThreadKey::All`] is returned. Other keys are ignored (`None`). A corrupt new value is
    /// handled as on a read: diagnostic, readable booleans kept, not overwritten until a change.
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
            return Some(ThreadKey::All);
        };
        let id = key.strip_prefix(KEY_PREFIX)?;
        let slot = slot(Some(id));
        let entry = match new_value {
            None => Entry::absent(),
            Some(text) => self.parse(key, text),
        };
        match slot {
            None => {
                self.default = Some(entry);
                Some(ThreadKey::Default)
            }
            Some(id) => {
                self.threads.insert(id.to_owned(), entry);
                Some(ThreadKey::Thread(id.to_owned()))
            }
        }
    }

    /// The next queued problem, oldest first. Diagnostics have no `index`; `name` is the tool whose
    /// change could not be written, or the tool whose stored value is not a boolean; `code` is
    /// [`CODE_STORAGE_UNAVAILABLE`] or [`CODE_CORRUPT`].
    pub fn poll_diagnostic(&mut self) -> Option<Diagnostic> {
        self.diagnostics.pop_front()
    }

    /// Whether a write failed and changes are now kept in memory only.
    pub fn is_memory_only(&self) -> bool {
        self.memory_only
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
        let cached = match slot {
            None => self.default.is_some(),
            Some(id) => self.threads.contains_key(id),
        };
        if cached {
            return;
        }
        let key = storage_key(slot);
        let entry = match self.store.get(&key) {
            Ok(None) => Entry::absent(),
            Ok(Some(text)) => self.parse(&key, &text),
            Err(err) => {
                self.diagnose(
                    None,
                    CODE_STORAGE_UNAVAILABLE,
                    format!("could not read {key}: {err}; using all tools off and leaving it as it is until a toggle changes"),
                );
                Entry {
                    map: BTreeMap::new(),
                    status: Status::Unreadable,
                }
            }
        };
        match slot {
            None => self.default = Some(entry),
            Some(id) => {
                self.threads.insert(id.to_owned(), entry);
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
                return unreadable(BTreeMap::new());
            }
            Err(err) => {
                self.diagnose(
                    None,
                    CODE_CORRUPT,
                    format!("{key} is not json ({err}); using all tools off and leaving it as it is until a toggle changes"),
                );
                return unreadable(BTreeMap::new());
            }
        };
        let mut map = BTreeMap::new();
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
                        format!("{key}: {name:?} is {kind}, not a boolean; it counts as off and {key} is left as it is until a toggle changes"),
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

    /// Makes `map` a slot's own state and writes it through (unless memory-only). `name` is the
    /// tool the user changed, for the diagnostic.
    fn write(&mut self, slot: Option<&str>, map: BTreeMap<String, bool>, name: Option<&str>) {
        if !self.memory_only {
            let key = storage_key(slot);
            let text = Value::Object(
                map.iter()
                    .map(|(name, on)| (name.as_str(), Value::Bool(*on)))
                    .collect(),
            )
            .to_json();
            if let Err(err) = self.store.set(&key, &text) {
                self.memory_only = true;
                self.diagnose(
                    name.map(str::to_owned),
                    CODE_STORAGE_UNAVAILABLE,
                    format!(
                        "could not write {key}: {err}; toggles are kept in memory for this session"
                    ),
                );
            }
        }
        let entry = Entry {
            map,
            status: Status::Own,
        };
        match slot {
            None => self.default = Some(entry),
            Some(id) => {
                self.threads.insert(id.to_owned(), entry);
            }
        }
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

/// The cache slot of a thread id: `None` for the default state (no thread, or the thread whose id
/// is `"default"`, which shares its key).
fn slot(thread_id: Option<&str>) -> Option<&str> {
    thread_id.filter(|id| *id != DEFAULT_ID)
}

/// An entry whose stored value could not be fully read.
fn unreadable(map: BTreeMap<String, bool>) -> Entry {
    Entry {
        map,
        status: Status::Unreadable,
    }
}
