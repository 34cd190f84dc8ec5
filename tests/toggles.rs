//! Per-thread tool toggles: every rule of `tools::toggles`, over a store that can be told to fail.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use chat_runtime::tools::toggles::{
    storage_key, DeferredStore, KeyValueStore, MemoryStore, StoreError, ThreadKey, Toggles,
    KEY_PREFIX,
};
use chat_runtime::tools::Diagnostic;
use chat_runtime::SortedMap;

/// A store over a [`MemoryStore`] that throws when told to, and counts reads.
#[derive(Default)]
struct TestStore {
    /// The values.
    inner: MemoryStore,
    /// `get` throws.
    fail_get: bool,
    /// `set` throws (a full quota).
    fail_set: bool,
    /// The next this many `set` calls throw, then the store recovers (space was freed).
    fail_next_sets: usize,
    /// The key of every `set` call, in order, with whether it succeeded.
    set_log: Vec<(String, bool)>,
    /// How many times `get` was called.
    gets: Cell<usize>,
    /// How many times `set` was called.
    sets: usize,
}

impl TestStore {
    /// A store holding these key-value pairs.
    fn with(pairs: &[(&str, &str)]) -> Self {
        let mut store = Self::default();
        for (key, value) in pairs {
            store.inner.set(key, value).unwrap();
        }
        store
    }

    /// The raw stored value under `key`.
    fn raw(&self, key: &str) -> Option<String> {
        self.inner.get(key).unwrap()
    }
}

impl KeyValueStore for TestStore {
    fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.gets.set(self.gets.get() + 1);
        if self.fail_get {
            return Err(StoreError(
                "SecurityError: the operation is insecure".into(),
            ));
        }
        self.inner.get(key)
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.sets += 1;
        let fail = self.fail_set || self.fail_next_sets > 0;
        self.fail_next_sets = self.fail_next_sets.saturating_sub(1);
        self.set_log.push((key.to_owned(), !fail));
        if fail {
            return Err(StoreError(
                "QuotaExceededError: the quota has been exceeded".into(),
            ));
        }
        self.inner.set(key, value)
    }

    fn remove(&mut self, key: &str) -> Result<(), StoreError> {
        if self.fail_set {
            return Err(StoreError("QuotaExceededError".into()));
        }
        self.inner.remove(key)
    }
}

/// Toggles over a store holding these pairs.
fn toggles(pairs: &[(&str, &str)]) -> Toggles<TestStore> {
    Toggles::new(TestStore::with(pairs))
}

/// Every queued diagnostic.
fn drain<S: KeyValueStore>(toggles: &mut Toggles<S>) -> Vec<Diagnostic> {
    std::iter::from_fn(|| toggles.poll_diagnostic()).collect()
}

/// A state from pairs.
fn map(pairs: &[(&str, bool)]) -> SortedMap<bool> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

const DEFAULT: &str = "chat:tools:default";
const T1: &str = "chat:tools:t1";

// ---------------------------------------------------------------------------------------------
// Keys and defaults

/// Thread ids and their keys: an id is used as is unless it is `"default"` or starts with `~`;
/// those get a `~` in front.
const KEYS: &[(Option<&str>, &str)] = &[
    (None, "chat:tools:default"),
    (Some("t1"), "chat:tools:t1"),
    (Some("a"), "chat:tools:a"),
    (Some(""), "chat:tools:"),
    (Some("default"), "chat:tools:~default"),
    (Some("~default"), "chat:tools:~~default"),
    (Some("~~default"), "chat:tools:~~~default"),
    (Some("~"), "chat:tools:~~"),
    (Some("~~x"), "chat:tools:~~~x"),
    (Some("~x"), "chat:tools:~~x"),
    (Some("x~"), "chat:tools:x~"),
    (Some("Default"), "chat:tools:Default"),
    (Some("default "), "chat:tools:default "),
    (Some(" default"), "chat:tools: default"),
    (Some("defaults"), "chat:tools:defaults"),
    (Some("defaul"), "chat:tools:defaul"),
    (Some("chat:tools:default"), "chat:tools:chat:tools:default"),
    (Some(":default"), "chat:tools::default"),
];

#[test]
fn storage_key_escapes_default_and_leading_tilde_only() {
    for (id, key) in KEYS {
        assert_eq!(storage_key(*id), *key, "{id:?}");
    }
}

/// Ids built from the characters and words that could make two keys meet: every concatenation of
/// up to four parts of a tricky alphabet, then longer pseudo-random ones (a fixed xorshift seed,
/// so every run checks the same ids).
fn tricky_ids() -> BTreeSet<String> {
    const PARTS: [&str; 6] = ["default", "~", "a", ":", "", "d"];
    const MORE: [&str; 10] = [
        "default",
        "~",
        "a",
        ":",
        "d",
        "efault",
        "chat:tools:",
        "~default",
        "tools",
        "\u{0}",
    ];
    let mut ids = BTreeSet::from([String::new()]);
    let mut level = vec![String::new()];
    for _ in 0..4 {
        level = level
            .iter()
            .flat_map(|prefix| PARTS.iter().map(move |part| format!("{prefix}{part}")))
            .collect();
        ids.extend(level.iter().cloned());
    }
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..5_000 {
        let len = next() % 9;
        let id: String = (0..len)
            .map(|_| MORE[(next() % MORE.len() as u64) as usize])
            .collect();
        ids.insert(id);
    }
    ids
}

#[test]
fn distinct_thread_ids_never_share_a_key_and_none_gets_the_default_key() {
    let ids = tricky_ids();
    assert!(ids.len() > 3_000, "{} ids", ids.len());
    let mut owners: HashMap<String, &str> = HashMap::new();
    for id in &ids {
        let key = storage_key(Some(id));
        assert!(key.starts_with(KEY_PREFIX), "{id:?} -> {key:?}");
        assert_ne!(key, DEFAULT, "thread {id:?} got the default key");
        if let Some(other) = owners.insert(key.clone(), id) {
            panic!("threads {other:?} and {id:?} share {key:?}");
        }
    }
    // The same through the real code path: every thread's change lands under its own key.
    let mut t = Toggles::new(MemoryStore::new());
    for id in &ids {
        t.set_enabled(Some(id), "x", true);
    }
    assert_eq!(t.store().len(), ids.len());
    assert_eq!(t.store().get(DEFAULT).unwrap(), None);
    assert!(!t.is_enabled(None, "x"), "the default is untouched");
}

#[test]
fn storage_events_map_every_thread_key_back_to_its_thread() {
    let mut t = Toggles::new(MemoryStore::new());
    for id in tricky_ids() {
        let key = storage_key(Some(&id));
        assert_eq!(
            t.handle_storage_event(Some(&key), Some(r#"{"x":true}"#)),
            Some(ThreadKey::Thread(id.clone())),
            "{key:?}"
        );
        assert!(t.is_enabled(Some(&id), "x"), "{id:?}");
    }
    assert!(
        !t.is_enabled(None, "x"),
        "no thread's event reached the default"
    );
    assert_eq!(
        t.handle_storage_event(Some(DEFAULT), Some("{}")),
        Some(ThreadKey::Default)
    );
}

#[test]
fn storage_events_map_keys_back_by_the_escape_rule() {
    let cases: &[(&str, Option<ThreadKey>)] = &[
        ("chat:tools:default", Some(ThreadKey::Default)),
        (
            "chat:tools:~default",
            Some(ThreadKey::Thread("default".into())),
        ),
        (
            "chat:tools:~~default",
            Some(ThreadKey::Thread("~default".into())),
        ),
        ("chat:tools:~~", Some(ThreadKey::Thread("~".into()))),
        ("chat:tools:~~~x", Some(ThreadKey::Thread("~~x".into()))),
        ("chat:tools:~~x", Some(ThreadKey::Thread("~x".into()))),
        ("chat:tools:", Some(ThreadKey::Thread(String::new()))),
        ("chat:tools:a", Some(ThreadKey::Thread("a".into()))),
        (
            "chat:tools:defaults",
            Some(ThreadKey::Thread("defaults".into())),
        ),
        ("chat:tools:x~", Some(ThreadKey::Thread("x~".into()))),
        // A `~` that escapes nothing: no thread is stored there (thread "~abc" is at "~~abc").
        ("chat:tools:~abc", None),
        ("chat:tools:~", None),
        ("chat:tools:~Default", None),
        ("chat:tools:~chat:tools:default", None),
    ];
    for (key, owner) in cases {
        let mut t = toggles(&[]);
        assert_eq!(
            t.handle_storage_event(Some(key), Some(r#"{"x":true}"#)),
            *owner,
            "{key:?}"
        );
        assert_eq!(t.handle_storage_event(Some(key), None), *owner, "{key:?}");
        if let Some(ThreadKey::Thread(id)) = owner {
            assert_eq!(storage_key(Some(id)), *key, "the inverse of storage_key");
        }
    }
}

#[test]
fn a_storage_event_for_a_key_no_thread_writes_changes_nothing() {
    let mut t = toggles(&[
        (DEFAULT, r#"{"d":true}"#),
        ("chat:tools:~~abc", r#"{"a":true}"#),
    ]);
    assert!(t.is_enabled(Some("~abc"), "a"));
    assert!(t.is_enabled(Some("abc"), "d"), "abc shows the default");
    for key in ["chat:tools:~abc", "chat:tools:~"] {
        assert_eq!(
            t.handle_storage_event(Some(key), Some(r#"{"z":true}"#)),
            None
        );
        assert_eq!(t.handle_storage_event(Some(key), None), None);
    }
    assert_eq!(t.state(Some("~abc")), &map(&[("a", true)]));
    assert_eq!(t.state(Some("abc")), &map(&[("d", true)]));
    assert_eq!(t.state(None), &map(&[("d", true)]));
    assert_eq!(t.state(Some("")), &map(&[("d", true)]));
    assert!(drain(&mut t).is_empty());
}

#[test]
fn every_tool_is_off_by_default() {
    let mut t = toggles(&[]);
    assert!(!t.is_enabled(None, "get_weather"));
    assert!(!t.is_enabled(Some("t1"), "get_weather"));
    assert!(t.state(None).is_empty());
    assert!(t.state(Some("t1")).is_empty());
    assert!(drain(&mut t).is_empty());
    assert_eq!(t.store().sets, 0, "reading writes nothing");
}

#[test]
fn a_name_absent_from_the_saved_map_is_off() {
    let mut t = toggles(&[(T1, r#"{"get_weather":true}"#)]);
    assert!(t.is_enabled(Some("t1"), "get_weather"));
    assert!(!t.is_enabled(Some("t1"), "search_docs"));
}

#[test]
fn none_reads_and_writes_the_default_key() {
    let mut t = toggles(&[(DEFAULT, r#"{"a":true}"#)]);
    assert!(t.is_enabled(None, "a"));
    t.set_enabled(None, "b", true);
    assert_eq!(
        t.store().raw(DEFAULT).as_deref(),
        Some(r#"{"a":true,"b":true}"#)
    );
    assert_eq!(t.store().inner.len(), 1);
}

#[test]
fn threads_are_independent() {
    let mut t = toggles(&[]);
    t.begin_run("t1");
    t.begin_run("t2");
    t.set_enabled(Some("t1"), "a", true);
    t.set_enabled(Some("t2"), "b", true);
    assert!(t.is_enabled(Some("t1"), "a"));
    assert!(!t.is_enabled(Some("t1"), "b"));
    assert!(t.is_enabled(Some("t2"), "b"));
    assert!(!t.is_enabled(Some("t2"), "a"));
    assert!(!t.is_enabled(None, "a"));
    assert_eq!(t.store().raw(T1).as_deref(), Some(r#"{"a":true}"#));
    assert_eq!(
        t.store().raw("chat:tools:t2").as_deref(),
        Some(r#"{"b":true}"#)
    );
}

#[test]
fn set_enabled_writes_through_in_name_order() {
    let mut t = toggles(&[]);
    t.set_enabled(Some("t1"), "search_docs", false);
    t.set_enabled(Some("t1"), "get_weather", true);
    assert_eq!(
        t.store().raw(T1).as_deref(),
        Some(r#"{"get_weather":true,"search_docs":false}"#)
    );
    t.set_enabled(Some("t1"), "get_weather", false);
    assert_eq!(
        t.store().raw(T1).as_deref(),
        Some(r#"{"get_weather":false,"search_docs":false}"#)
    );
    assert!(drain(&mut t).is_empty());
}

#[test]
fn a_second_read_of_a_key_does_not_touch_storage() {
    let mut t = toggles(&[(T1, r#"{"a":true}"#)]);
    assert!(t.is_enabled(Some("t1"), "a"));
    let gets = t.store().gets.get();
    for _ in 0..10 {
        assert!(t.is_enabled(Some("t1"), "a"));
        assert!(!t.is_enabled(Some("t1"), "b"));
        let _ = t.state(Some("t1"));
    }
    assert_eq!(t.store().gets.get(), gets);
}

#[test]
fn an_unsaved_thread_reads_its_key_and_the_default_once_each() {
    let mut t = toggles(&[(DEFAULT, r#"{"a":true}"#)]);
    for _ in 0..5 {
        assert!(t.is_enabled(Some("t1"), "a"));
    }
    assert_eq!(t.store().gets.get(), 2);
}

// ---------------------------------------------------------------------------------------------
// First run copies the default

#[test]
fn an_unsaved_thread_shows_the_default_state_before_its_first_run() {
    let mut t = toggles(&[(DEFAULT, r#"{"a":true,"b":false}"#)]);
    assert_eq!(t.state(Some("t1")), &map(&[("a", true), ("b", false)]));
    assert!(t.is_enabled(Some("t1"), "a"));
    assert_eq!(t.store().raw(T1), None, "not copied before the first run");
}

#[test]
fn an_unsaved_thread_follows_default_changes_until_its_first_run() {
    let mut t = toggles(&[]);
    assert!(!t.is_enabled(Some("t1"), "a"));
    t.set_enabled(None, "a", true);
    assert!(t.is_enabled(Some("t1"), "a"));
    assert_eq!(t.store().raw(T1), None);
}

#[test]
fn first_run_copies_the_default_state_under_the_thread_key() {
    let mut t = toggles(&[(DEFAULT, r#"{"b":false,"a":true}"#)]);
    t.begin_run("t1");
    assert_eq!(
        t.store().raw(T1).as_deref(),
        Some(r#"{"a":true,"b":false}"#)
    );
    assert!(t.is_enabled(Some("t1"), "a"));
}

#[test]
fn first_run_of_a_thread_with_an_empty_default_saves_an_empty_object() {
    let mut t = toggles(&[]);
    t.begin_run("t1");
    assert_eq!(t.store().raw(T1).as_deref(), Some("{}"));
    assert_eq!(
        t.store().raw(DEFAULT),
        None,
        "the default itself is not written"
    );
}

#[test]
fn a_default_change_after_the_first_run_does_not_affect_the_thread() {
    let mut t = toggles(&[(DEFAULT, r#"{"a":true}"#)]);
    t.begin_run("t1");
    t.set_enabled(None, "a", false);
    t.set_enabled(None, "b", true);
    assert!(t.is_enabled(Some("t1"), "a"));
    assert!(!t.is_enabled(Some("t1"), "b"));
    assert_eq!(t.store().raw(T1).as_deref(), Some(r#"{"a":true}"#));
}

#[test]
fn later_runs_leave_saved_state_alone() {
    let mut t = toggles(&[(DEFAULT, r#"{"a":true}"#), (T1, r#"{"a":false}"#)]);
    t.begin_run("t1");
    t.begin_run("t1");
    assert!(!t.is_enabled(Some("t1"), "a"));
    assert_eq!(t.store().raw(T1).as_deref(), Some(r#"{"a":false}"#));
    assert_eq!(t.store().sets, 0);
}

#[test]
fn a_change_in_an_unsaved_thread_saves_the_default_state_with_the_change() {
    let mut t = toggles(&[(DEFAULT, r#"{"a":true}"#)]);
    t.set_enabled(Some("t1"), "b", true);
    assert_eq!(t.store().raw(T1).as_deref(), Some(r#"{"a":true,"b":true}"#));
    assert_eq!(t.store().raw(DEFAULT).as_deref(), Some(r#"{"a":true}"#));
    t.set_enabled(None, "a", false);
    assert!(
        t.is_enabled(Some("t1"), "a"),
        "the thread has its own state now"
    );
}

#[test]
fn a_new_chat_adopts_what_its_provisional_id_shows_unless_it_has_its_own() {
    let mut t = toggles(&[(DEFAULT, r#"{"a":true}"#)]);
    t.adopt("draft", "chat-1");
    assert_eq!(
        t.store().raw("chat:tools:chat-1").as_deref(),
        Some(r#"{"a":true}"#),
        "an id with nothing saved: the defaults"
    );
    t.set_enabled(Some("draft2"), "b", true);
    t.adopt("draft2", "chat-2");
    assert_eq!(
        t.store().raw("chat:tools:chat-2").as_deref(),
        Some(r#"{"a":true,"b":true}"#),
        "what the user chose under the provisional id"
    );
    t.set_enabled(Some("chat-2"), "a", false);
    t.adopt("draft", "chat-2");
    assert!(
        !t.is_enabled(Some("chat-2"), "a"),
        "a chat's own state is kept"
    );
}

#[test]
fn a_thread_named_default_has_its_own_key_and_state() {
    let mut t = toggles(&[(DEFAULT, r#"{"d":true}"#)]);
    assert!(
        t.is_enabled(Some("default"), "d"),
        "an unsaved thread shows the default"
    );
    t.set_enabled(Some("default"), "a", true);
    assert_eq!(
        t.store().raw("chat:tools:~default").as_deref(),
        Some(r#"{"a":true,"d":true}"#)
    );
    assert_eq!(t.store().raw(DEFAULT).as_deref(), Some(r#"{"d":true}"#));
    assert!(!t.is_enabled(None, "a"), "the default did not change");
    assert!(
        !t.is_enabled(Some("other"), "a"),
        "nor did threads with no saved toggles"
    );
    t.set_enabled(None, "b", true);
    assert!(!t.is_enabled(Some("default"), "b"));
    assert!(t.is_enabled(Some("other"), "b"));
}

#[test]
fn a_thread_named_default_gets_its_copy_at_its_first_run() {
    let mut t = toggles(&[(DEFAULT, r#"{"d":true}"#)]);
    t.begin_run("default");
    assert_eq!(
        t.store().raw("chat:tools:~default").as_deref(),
        Some(r#"{"d":true}"#)
    );
    t.set_enabled(None, "d", false);
    assert!(t.is_enabled(Some("default"), "d"), "its own state now");
}

#[test]
fn threads_whose_ids_look_like_keys_or_escapes_never_meet() {
    let ids = ["default", "~default", "~~default", "~", "~~", "", "a", "~a"];
    let mut t = toggles(&[]);
    for (n, id) in ids.iter().enumerate() {
        t.set_enabled(Some(id), &format!("tool{n}"), true);
    }
    t.set_enabled(None, "none", true);
    for (n, id) in ids.iter().enumerate() {
        let own = format!("tool{n}");
        assert_eq!(t.state(Some(id)), &map(&[(own.as_str(), true)]), "{id:?}");
    }
    assert_eq!(t.state(None), &map(&[("none", true)]));
    assert_eq!(t.store().inner.len(), ids.len() + 1);
    // A fresh instance reads each one back from its own key.
    let mut fresh = Toggles::new(t.store().inner.clone());
    for (n, id) in ids.iter().enumerate() {
        assert!(fresh.is_enabled(Some(id), &format!("tool{n}")), "{id:?}");
    }
    assert_eq!(fresh.state(None), &map(&[("none", true)]));
}

// ---------------------------------------------------------------------------------------------
// Names are never pruned

#[test]
fn names_of_vanished_tools_are_kept_on_write() {
    // `old_tool` is no longer in any catalog; the toggles module never prunes it.
    let mut t = toggles(&[(T1, r#"{"old_tool":true,"get_weather":false}"#)]);
    t.set_enabled(Some("t1"), "get_weather", true);
    assert_eq!(
        t.store().raw(T1).as_deref(),
        Some(r#"{"get_weather":true,"old_tool":true}"#)
    );
    assert!(t.is_enabled(Some("t1"), "old_tool"));
}

#[test]
fn names_of_vanished_tools_are_copied_at_first_run() {
    let mut t = toggles(&[(DEFAULT, r#"{"old_tool":true}"#)]);
    t.begin_run("t1");
    assert_eq!(t.store().raw(T1).as_deref(), Some(r#"{"old_tool":true}"#));
}

// ---------------------------------------------------------------------------------------------
// Corrupt values

/// Values that are not a JSON object of booleans at all.
const NOT_AN_OBJECT: &[(&str, &str)] = &[
    ("not json", "{get_weather: true"),
    ("empty string", ""),
    ("an array", r#"["get_weather"]"#),
    ("a string", r#""get_weather""#),
    ("a number", "1"),
    ("null", "null"),
    ("a boolean", "true"),
];

#[test]
fn a_value_that_is_not_an_object_gives_a_corrupt_diagnostic_and_an_empty_state() {
    for (case, value) in NOT_AN_OBJECT {
        let mut t = toggles(&[(T1, value)]);
        assert!(t.state(Some("t1")).is_empty(), "{case}");
        let diagnostics = drain(&mut t);
        assert_eq!(diagnostics.len(), 1, "{case}: {diagnostics:?}");
        let d = &diagnostics[0];
        assert_eq!(d.code, "toggles/corrupt", "{case}");
        assert_eq!(d.index, None, "{case}");
        assert_eq!(d.name, None, "{case}");
        assert!(d.message.contains(T1), "{case}: {}", d.message);
        assert!(
            !d.message.starts_with(|c: char| c.is_uppercase()),
            "{case}: lower-case message"
        );
    }
}

#[test]
fn a_corrupt_thread_does_not_show_the_default_state() {
    let mut t = toggles(&[(DEFAULT, r#"{"a":true}"#), (T1, "[]")]);
    assert!(!t.is_enabled(Some("t1"), "a"));
}

#[test]
fn a_corrupt_value_is_not_overwritten_by_reads_or_by_begin_run() {
    for (case, value) in NOT_AN_OBJECT {
        let mut t = toggles(&[(DEFAULT, r#"{"a":true}"#), (T1, value)]);
        let _ = t.state(Some("t1"));
        let _ = t.is_enabled(Some("t1"), "a");
        t.begin_run("t1");
        t.begin_run("t1");
        assert_eq!(t.store().raw(T1).as_deref(), Some(*value), "{case}");
        assert_eq!(t.store().sets, 0, "{case}");
        assert!(
            t.state(Some("t1")).is_empty(),
            "{case}: no copy of the default"
        );
        assert_eq!(drain(&mut t).len(), 1, "{case}: reported once, then cached");
    }
}

#[test]
fn a_corrupt_value_is_overwritten_by_a_user_change_in_that_thread() {
    let mut t = toggles(&[(T1, "{oops"), ("chat:tools:t2", r#"{"a":true}"#)]);
    let _ = t.state(Some("t1"));
    t.set_enabled(Some("t2"), "b", true);
    assert_eq!(
        t.store().raw(T1).as_deref(),
        Some("{oops"),
        "another thread's change"
    );
    t.set_enabled(None, "b", true);
    assert_eq!(
        t.store().raw(T1).as_deref(),
        Some("{oops"),
        "a default change"
    );
    t.set_enabled(Some("t1"), "get_weather", true);
    assert_eq!(
        t.store().raw(T1).as_deref(),
        Some(r#"{"get_weather":true}"#)
    );
    assert!(t.is_enabled(Some("t1"), "get_weather"));
}

#[test]
fn non_boolean_values_keep_the_boolean_entries_and_report_each_bad_name() {
    let mut t = toggles(&[(T1, r#"{"a":true,"b":"yes","c":false,"d":1,"e":null}"#)]);
    assert_eq!(t.state(Some("t1")), &map(&[("a", true), ("c", false)]));
    let diagnostics = drain(&mut t);
    let names: Vec<_> = diagnostics.iter().map(|d| d.name.as_deref()).collect();
    assert_eq!(names, [Some("b"), Some("d"), Some("e")]);
    for d in &diagnostics {
        assert_eq!(d.code, "toggles/corrupt");
        assert_eq!(d.index, None);
        assert!(d.message.contains(T1), "{}", d.message);
    }
    assert!(
        !t.is_enabled(Some("t1"), "b"),
        "a non-boolean counts as off"
    );
}

#[test]
fn non_boolean_values_are_not_overwritten_until_a_user_change() {
    let raw = r#"{"a":true,"b":"yes"}"#;
    let mut t = toggles(&[(T1, raw)]);
    let _ = t.state(Some("t1"));
    t.begin_run("t1");
    assert_eq!(t.store().raw(T1).as_deref(), Some(raw));
    t.set_enabled(Some("t1"), "c", true);
    assert_eq!(
        t.store().raw(T1).as_deref(),
        Some(r#"{"a":true,"c":true}"#),
        "the in-memory state with the change"
    );
}

#[test]
fn a_corrupt_default_is_copied_as_what_could_be_read_but_not_overwritten() {
    let raw = r#"{"a":true,"b":2}"#;
    let mut t = toggles(&[(DEFAULT, raw)]);
    t.begin_run("t1");
    assert_eq!(t.store().raw(T1).as_deref(), Some(r#"{"a":true}"#));
    assert_eq!(t.store().raw(DEFAULT).as_deref(), Some(raw));
}

// ---------------------------------------------------------------------------------------------
// Storage that throws

#[test]
fn a_store_whose_get_throws_gives_an_empty_state_and_a_diagnostic() {
    let mut t = Toggles::new(TestStore {
        fail_get: true,
        ..TestStore::default()
    });
    assert!(!t.is_enabled(Some("t1"), "a"));
    let diagnostics = drain(&mut t);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].code, "toggles/storage-unavailable");
    assert_eq!(diagnostics[0].name, None);
    assert!(diagnostics[0].message.contains("SecurityError"));
    assert!(diagnostics[0].message.contains(T1));
    // Cached: no more reads, no more diagnostics.
    let gets = t.store().gets.get();
    assert!(!t.is_enabled(Some("t1"), "a"));
    assert_eq!(t.store().gets.get(), gets);
    assert!(drain(&mut t).is_empty());
}

#[test]
fn an_unreadable_key_is_not_written_by_begin_run_but_is_by_a_user_change() {
    let mut store = TestStore::with(&[(T1, r#"{"a":true}"#)]);
    store.fail_get = true;
    let mut t = Toggles::new(store);
    t.begin_run("t1");
    assert_eq!(t.store().sets, 0);
    t.store_mut().fail_get = false; // the read failure was transient
    t.set_enabled(Some("t1"), "b", true);
    assert_eq!(t.store().raw(T1).as_deref(), Some(r#"{"b":true}"#));
    assert!(t.is_enabled(Some("t1"), "b"));
}

#[test]
fn a_store_whose_set_throws_keeps_the_toggle_in_memory_with_a_diagnostic() {
    let mut t = Toggles::new(TestStore {
        fail_set: true,
        ..TestStore::default()
    });
    t.set_enabled(Some("t1"), "a", true);
    assert!(t.is_enabled(Some("t1"), "a"));
    assert!(t.has_unsaved());
    let diagnostics = drain(&mut t);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].code, "toggles/storage-unavailable");
    assert_eq!(diagnostics[0].name.as_deref(), Some("a"));
    assert!(diagnostics[0].message.contains("QuotaExceededError"));
    assert!(diagnostics[0].message.contains(T1));
    assert_eq!(t.store().raw(T1), None);
}

#[test]
fn every_change_after_a_failed_write_tries_to_save_again() {
    let mut t = Toggles::new(TestStore {
        fail_set: true,
        ..TestStore::default()
    });
    for (n, name) in ["a", "b", "c"].into_iter().enumerate() {
        t.set_enabled(Some("t1"), name, true);
        assert_eq!(t.store().sets, n + 1, "change {name}: one more attempt");
        let diagnostics = drain(&mut t);
        assert_eq!(diagnostics.len(), 1, "change {name}: {diagnostics:?}");
        assert_eq!(diagnostics[0].code, "toggles/storage-unavailable");
        assert_eq!(diagnostics[0].name.as_deref(), Some(name));
    }
    t.store_mut().fail_set = false; // space was freed
    t.set_enabled(Some("t1"), "d", false);
    assert_eq!(
        t.store().raw(T1).as_deref(),
        Some(r#"{"a":true,"b":true,"c":true,"d":false}"#)
    );
    assert!(!t.has_unsaved());
    assert!(drain(&mut t).is_empty());
}

#[test]
fn a_store_that_fails_n_writes_then_recovers_ends_up_holding_every_unsaved_key() {
    for failures in 0..8 {
        let mut t = Toggles::new(TestStore {
            fail_next_sets: failures,
            ..TestStore::default()
        });
        // Changes across three keys, the default among them.
        let changes: &[(Option<&str>, &str)] = &[
            (Some("t1"), "a"),
            (None, "b"),
            (Some("t2"), "c"),
            (Some("t1"), "d"),
            (Some("t2"), "e"),
            (None, "f"),
            (Some("t1"), "g"),
            (Some("t3"), "h"),
        ];
        let mut diagnostics = 0;
        for (thread, name) in changes {
            let before = t.store().set_log.len();
            t.set_enabled(*thread, name, true);
            let tried = &t.store().set_log[before..];
            let key = storage_key(*thread);
            assert_eq!(
                tried.last().map(|(k, _)| k.as_str()),
                Some(key.as_str()),
                "{failures}: a change always tries its own key, last"
            );
            let failed = tried.iter().filter(|(_, ok)| !ok).count();
            let got = drain(&mut t);
            assert_eq!(
                got.len(),
                failed,
                "{failures}: one diagnostic per failed write"
            );
            assert!(got.iter().all(|d| d.code == "toggles/storage-unavailable"));
            diagnostics += got.len();
        }
        assert_eq!(diagnostics, failures.min(t.store().sets), "{failures}");
        assert_eq!(
            t.store().fail_next_sets,
            0,
            "{failures}: the store recovered"
        );
        // Whatever failed was retried: the store holds every state, as the cache does.
        assert!(!t.has_unsaved(), "{failures}");
        let store = t.store().inner.clone();
        let mut fresh = Toggles::new(store);
        for thread in [None, Some("t1"), Some("t2"), Some("t3")] {
            let expected = t.state(thread).clone();
            assert_eq!(fresh.state(thread), &expected, "{failures}: {thread:?}");
        }
        assert_eq!(
            fresh.state(Some("t1")),
            &map(&[("a", true), ("d", true), ("g", true)])
        );
        assert_eq!(fresh.state(None), &map(&[("b", true), ("f", true)]));
    }
}

#[test]
fn unsaved_keys_are_retried_first_with_their_current_state() {
    let mut t = Toggles::new(TestStore {
        fail_set: true,
        ..TestStore::default()
    });
    t.set_enabled(Some("t1"), "a", true); // fails
    t.set_enabled(None, "b", true); // the retry of t1 and the change fail
    assert!(t.has_unsaved());
    t.store_mut().fail_set = false;
    t.set_enabled(Some("t2"), "c", true);
    let keys: Vec<_> = t
        .store()
        .set_log
        .iter()
        .map(|(k, ok)| (k.as_str(), *ok))
        .collect();
    assert_eq!(
        keys,
        [
            (T1, false),
            (T1, false),
            (DEFAULT, false),
            // The retries (in key order: the default first), then the change itself.
            (DEFAULT, true),
            (T1, true),
            ("chat:tools:t2", true),
        ]
    );
    assert_eq!(t.store().raw(T1).as_deref(), Some(r#"{"a":true}"#));
    assert_eq!(t.store().raw(DEFAULT).as_deref(), Some(r#"{"b":true}"#));
    assert!(!t.has_unsaved());
}

#[test]
fn an_unsaved_key_changed_again_is_written_once_with_the_newest_state() {
    let mut t = Toggles::new(TestStore {
        fail_next_sets: 1,
        ..TestStore::default()
    });
    t.set_enabled(Some("t1"), "a", true); // fails
    t.set_enabled(Some("t1"), "b", true);
    assert_eq!(
        t.store().sets,
        2,
        "no separate retry of the key being written"
    );
    assert_eq!(t.store().raw(T1).as_deref(), Some(r#"{"a":true,"b":true}"#));
}

#[test]
fn begin_run_retries_unsaved_keys_before_its_copy() {
    let mut t = Toggles::new(TestStore {
        fail_next_sets: 1,
        ..TestStore::default()
    });
    t.set_enabled(None, "a", true); // fails
    assert_eq!(drain(&mut t).len(), 1);
    t.begin_run("t1");
    assert_eq!(t.store().raw(DEFAULT).as_deref(), Some(r#"{"a":true}"#));
    assert_eq!(t.store().raw(T1).as_deref(), Some(r#"{"a":true}"#));
    assert!(!t.has_unsaved());
    // A run of a thread with saved state writes nothing, so it retries nothing either.
    t.store_mut().fail_next_sets = 1;
    t.set_enabled(None, "b", true); // fails
    let sets = t.store().sets;
    t.begin_run("t1");
    assert_eq!(t.store().sets, sets);
    assert!(t.has_unsaved());
}

#[test]
fn a_failed_retry_stays_unsaved_and_is_reported_again() {
    let mut t = Toggles::new(TestStore {
        fail_set: true,
        ..TestStore::default()
    });
    t.set_enabled(Some("t1"), "a", true);
    drain(&mut t);
    t.set_enabled(Some("t2"), "b", true);
    let diagnostics = drain(&mut t);
    assert_eq!(
        diagnostics.len(),
        2,
        "the retry and the change: {diagnostics:?}"
    );
    assert_eq!(diagnostics[0].name, None, "a retry names no tool");
    assert!(
        diagnostics[0].message.contains(T1),
        "{}",
        diagnostics[0].message
    );
    assert_eq!(diagnostics[1].name.as_deref(), Some("b"));
    assert!(diagnostics[1].message.contains("chat:tools:t2"));
    t.store_mut().fail_set = false;
    t.set_enabled(Some("t3"), "c", true);
    assert_eq!(t.store().raw(T1).as_deref(), Some(r#"{"a":true}"#));
    assert_eq!(
        t.store().raw("chat:tools:t2").as_deref(),
        Some(r#"{"b":true}"#)
    );
    assert_eq!(
        t.store().raw("chat:tools:t3").as_deref(),
        Some(r#"{"c":true}"#)
    );
    assert!(drain(&mut t).is_empty());
}

#[test]
fn a_storage_event_for_an_unsaved_key_lets_the_other_tab_win() {
    let mut t = Toggles::new(TestStore {
        fail_next_sets: 2,
        ..TestStore::default()
    });
    t.set_enabled(Some("t1"), "a", true); // fails
    t.set_enabled(Some("t2"), "a", true); // fails
                                          // Another tab saved t1 in the meantime: its value is newer than our unsaved one.
    t.store_mut().inner.set(T1, r#"{"z":true}"#).unwrap();
    t.handle_storage_event(Some(T1), Some(r#"{"z":true}"#));
    t.set_enabled(Some("t3"), "c", true);
    assert_eq!(
        t.store().raw(T1).as_deref(),
        Some(r#"{"z":true}"#),
        "not overwritten"
    );
    assert_eq!(
        t.store().raw("chat:tools:t2").as_deref(),
        Some(r#"{"a":true}"#)
    );
    assert_eq!(t.state(Some("t1")), &map(&[("z", true)]));
    // After a clear, nothing of before is retried.
    t.store_mut().fail_next_sets = 1;
    t.set_enabled(Some("t4"), "d", true); // fails
    t.store_mut().inner.clear();
    assert_eq!(t.handle_storage_event(None, None), Some(ThreadKey::All));
    assert!(!t.has_unsaved());
    t.set_enabled(Some("t5"), "e", true);
    assert_eq!(t.store().inner.len(), 1);
}

#[test]
fn a_failed_copy_at_first_run_keeps_the_copy_in_memory() {
    let mut t = Toggles::new(TestStore {
        fail_set: true,
        ..TestStore::with(&[(DEFAULT, r#"{"a":true}"#)])
    });
    t.begin_run("t1");
    let diagnostics = drain(&mut t);
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].code, "toggles/storage-unavailable");
    assert_eq!(diagnostics[0].name, None);
    t.set_enabled(None, "a", false);
    assert!(t.is_enabled(Some("t1"), "a"));
}

#[test]
fn with_unsaved_keys_uncached_keys_are_still_read() {
    let mut t = Toggles::new(TestStore {
        fail_set: true,
        ..TestStore::with(&[("chat:tools:t2", r#"{"x":true}"#)])
    });
    t.set_enabled(Some("t1"), "a", true);
    assert!(t.has_unsaved());
    assert!(t.is_enabled(Some("t2"), "x"), "a full quota still reads");
    assert!(
        t.is_enabled(Some("t1"), "a"),
        "the unsaved state is in memory"
    );
}

#[test]
fn a_store_that_throws_on_everything_still_toggles_in_memory() {
    let mut t = Toggles::new(TestStore {
        fail_get: true,
        fail_set: true,
        ..TestStore::default()
    });
    t.set_enabled(None, "a", true);
    t.begin_run("t1");
    assert!(t.is_enabled(None, "a"));
    t.set_enabled(Some("t1"), "b", true);
    assert!(t.is_enabled(Some("t1"), "b"));
    let codes: Vec<_> = drain(&mut t).iter().map(|d| d.code).collect();
    assert!(
        codes.iter().all(|c| *c == "toggles/storage-unavailable"),
        "{codes:?}"
    );
    assert!(!codes.is_empty());
}

// ---------------------------------------------------------------------------------------------
// Storage events from other tabs

#[test]
fn a_storage_event_setting_a_thread_key_updates_the_cache() {
    let mut t = toggles(&[(T1, r#"{"a":false}"#)]);
    assert!(!t.is_enabled(Some("t1"), "a"));
    let changed = t.handle_storage_event(Some(T1), Some(r#"{"a":true}"#));
    assert_eq!(changed, Some(ThreadKey::Thread("t1".into())));
    let gets = t.store().gets.get();
    assert!(t.is_enabled(Some("t1"), "a"));
    assert_eq!(
        t.store().gets.get(),
        gets,
        "the event value is used, not re-read"
    );
    assert_eq!(t.store().sets, 0, "nothing is written back");
}

#[test]
fn a_storage_event_for_an_uncached_thread_is_reported_and_used() {
    let mut t = toggles(&[]);
    let changed = t.handle_storage_event(Some("chat:tools:t9"), Some(r#"{"a":true}"#));
    assert_eq!(changed, Some(ThreadKey::Thread("t9".into())));
    assert!(t.is_enabled(Some("t9"), "a"));
}

#[test]
fn a_storage_event_for_the_default_key_reports_the_default() {
    let mut t = toggles(&[]);
    assert!(!t.is_enabled(Some("t1"), "a"));
    let changed = t.handle_storage_event(Some(DEFAULT), Some(r#"{"a":true}"#));
    assert_eq!(changed, Some(ThreadKey::Default));
    assert!(t.is_enabled(None, "a"));
    assert!(
        t.is_enabled(Some("t1"), "a"),
        "unsaved threads show the default"
    );
}

#[test]
fn a_storage_event_removing_a_thread_key_makes_it_show_the_default_again() {
    let mut t = toggles(&[(DEFAULT, r#"{"d":true}"#), (T1, r#"{"a":true}"#)]);
    assert!(t.is_enabled(Some("t1"), "a"));
    let changed = t.handle_storage_event(Some(T1), None);
    assert_eq!(changed, Some(ThreadKey::Thread("t1".into())));
    assert!(!t.is_enabled(Some("t1"), "a"));
    assert!(t.is_enabled(Some("t1"), "d"));
    t.begin_run("t1");
    assert_eq!(
        t.store().raw(T1).as_deref(),
        Some(r#"{"d":true}"#),
        "copied again at its next run"
    );
}

#[test]
fn a_storage_event_clearing_storage_resets_every_cached_state() {
    let mut t = toggles(&[(DEFAULT, r#"{"d":true}"#), (T1, r#"{"a":true}"#)]);
    assert!(t.is_enabled(None, "d"));
    assert!(t.is_enabled(Some("t1"), "a"));
    t.store_mut().inner.clear();
    assert_eq!(t.handle_storage_event(None, None), Some(ThreadKey::All));
    assert!(t.state(None).is_empty());
    assert!(t.state(Some("t1")).is_empty());
    t.set_enabled(None, "x", true);
    assert!(t.is_enabled(Some("t1"), "x"), "t1 shows the default again");
}

#[test]
fn a_storage_event_for_a_foreign_key_is_ignored() {
    let mut t = toggles(&[(T1, r#"{"a":true}"#)]);
    assert!(t.is_enabled(Some("t1"), "a"));
    for key in ["theme", "chat:tool:t1", "chat:toolst1", "CHAT:TOOLS:t1", ""] {
        assert_eq!(t.handle_storage_event(Some(key), Some("{}")), None, "{key}");
        assert_eq!(t.handle_storage_event(Some(key), None), None, "{key}");
    }
    assert!(t.is_enabled(Some("t1"), "a"));
    assert!(drain(&mut t).is_empty());
}

#[test]
fn a_storage_event_with_corrupt_json_reports_and_is_not_overwritten_until_a_change() {
    let mut t = toggles(&[(T1, r#"{"a":true}"#)]);
    assert!(t.is_enabled(Some("t1"), "a"));
    // The other tab wrote garbage; keep our store consistent with what the event says.
    t.store_mut().inner.set(T1, "[1,2").unwrap();
    let changed = t.handle_storage_event(Some(T1), Some("[1,2"));
    assert_eq!(changed, Some(ThreadKey::Thread("t1".into())));
    let diagnostics = drain(&mut t);
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].code, "toggles/corrupt");
    assert!(diagnostics[0].message.contains(T1));
    assert!(t.state(Some("t1")).is_empty());
    t.begin_run("t1");
    assert_eq!(t.store().raw(T1).as_deref(), Some("[1,2"));
    t.set_enabled(Some("t1"), "b", true);
    assert_eq!(t.store().raw(T1).as_deref(), Some(r#"{"b":true}"#));
}

#[test]
fn a_storage_event_with_non_boolean_values_keeps_the_booleans() {
    let mut t = toggles(&[]);
    t.handle_storage_event(Some(T1), Some(r#"{"a":true,"b":[]}"#));
    assert_eq!(t.state(Some("t1")), &map(&[("a", true)]));
    let diagnostics = drain(&mut t);
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].name.as_deref(), Some("b"));
}

// ---------------------------------------------------------------------------------------------
// Odd inputs never panic

#[test]
fn odd_thread_ids_names_and_values_never_panic() {
    let mut t = toggles(&[(T1, r#"{"":true,"\u0000":false,"é\"":true}"#)]);
    assert!(t.is_enabled(Some("t1"), ""));
    assert!(t.is_enabled(Some("t1"), "é\""));
    for id in ["", " ", "chat:tools:x", "\u{0}", "a/b", "🙂"] {
        t.begin_run(id);
        t.set_enabled(Some(id), "", true);
        assert!(t.is_enabled(Some(id), ""));
    }
    t.set_enabled(Some("t1"), "é\"", false);
    let stored = t.store().raw(T1).unwrap();
    let parsed: BTreeMap<String, bool> = serde_json::from_str(&stored).unwrap();
    assert_eq!(parsed.get("é\""), Some(&false));
    assert_eq!(
        t.handle_storage_event(Some("chat:tools:"), Some("{}")),
        Some(ThreadKey::Thread(String::new()))
    );
    let deep = "[".repeat(10_000);
    t.handle_storage_event(Some(T1), Some(&deep));
    assert!(t.state(Some("t1")).is_empty());
}

#[test]
fn the_memory_store_round_trips() {
    let mut s = MemoryStore::new();
    assert!(s.is_empty());
    s.set("k", "v").unwrap();
    assert_eq!(s.get("k").unwrap().as_deref(), Some("v"));
    assert_eq!(s.len(), 1);
    s.remove("k").unwrap();
    s.remove("k").unwrap();
    assert_eq!(s.get("k").unwrap(), None);
}

#[test]
fn toggles_work_over_a_plain_memory_store() {
    let mut t = Toggles::new(MemoryStore::new());
    t.set_enabled(None, "a", true);
    t.begin_run("t1");
    assert!(t.is_enabled(Some("t1"), "a"));
    assert_eq!(t.store().get(T1).unwrap().as_deref(), Some(r#"{"a":true}"#));
}

// ---- the deferred store (the browser's: no storage call while the toggles are held) -------------

#[test]
fn keys_to_load_are_the_uncached_thread_and_default_keys_and_supply_caches_them() {
    let mut t = Toggles::new(DeferredStore::default());
    assert_eq!(
        t.keys_to_load(Some("a")),
        ["chat:tools:a", "chat:tools:default"]
    );
    assert_eq!(
        t.keys_to_load(Some("default")),
        ["chat:tools:~default", "chat:tools:default"]
    );
    assert_eq!(t.keys_to_load(None), ["chat:tools:default"]);
    t.supply("chat:tools:a", Ok(Some(r#"{"x":true}"#.into())));
    t.supply("chat:tools:default", Ok(Some(r#"{"y":true}"#.into())));
    assert!(t.keys_to_load(Some("a")).is_empty(), "both are cached now");
    assert_eq!(t.keys_to_load(Some("b")), ["chat:tools:b"]);
    assert!(t.is_enabled(Some("a"), "x"));
    assert!(t.is_enabled(None, "y"));
    // A later supply of a cached key (a nested call got there first) changes nothing.
    t.supply("chat:tools:a", Ok(None));
    assert!(t.is_enabled(Some("a"), "x"));
    // Corrupt or unreadable values are reported as a read would report them.
    t.supply("chat:tools:b", Ok(Some("{not json".into())));
    t.supply("chat:tools:c", Err(StoreError("SecurityError".into())));
    let codes: Vec<_> = drain(&mut t).iter().map(|d| d.code).collect();
    assert_eq!(codes, ["toggles/corrupt", "toggles/storage-unavailable"]);
    // Keys of no thread are ignored.
    t.supply("chat:tools:~abc", Ok(Some("{}".into())));
    t.supply("other", Ok(Some("{}".into())));
    assert!(drain(&mut t).is_empty());
}

#[test]
fn a_key_being_read_is_answered_without_and_not_cached() {
    let mut t = Toggles::new(DeferredStore::default());
    t.supply("chat:tools:default", Ok(None));
    assert!(!t.is_enabled(Some("a"), "x"), "shown as holding nothing");
    assert_eq!(t.keys_to_load(Some("a")), ["chat:tools:a"], "not cached");
    // The outer read finishes: the value is used from then on.
    t.supply("chat:tools:a", Ok(Some(r#"{"x":true}"#.into())));
    assert!(t.is_enabled(Some("a"), "x"));
    assert!(drain(&mut t).is_empty());
}

#[test]
fn a_deferred_write_that_fails_is_reported_with_its_tool_and_retried() {
    let mut t = Toggles::new(DeferredStore::default());
    for key in t.keys_to_load(Some("a")) {
        t.supply(&key, Ok(None));
    }
    t.set_enabled(Some("a"), "x", true);
    let writes = std::mem::take(&mut t.store_mut().writes);
    assert_eq!(
        writes,
        [(
            "chat:tools:a".to_owned(),
            r#"{"x":true}"#.to_owned(),
            Some("x".to_owned())
        )]
    );
    t.write_failed(
        "chat:tools:a",
        Some("x"),
        StoreError("QuotaExceededError".into()),
    );
    let diagnostics = drain(&mut t);
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].code, "toggles/storage-unavailable");
    assert_eq!(diagnostics[0].name.as_deref(), Some("x"));
    assert!(t.has_unsaved());
    // The next change writes the unsaved key again first.
    for key in t.keys_to_load(Some("b")) {
        t.supply(&key, Ok(None));
    }
    t.set_enabled(Some("b"), "y", true);
    let keys: Vec<_> = t.store_mut().writes.iter().map(|w| w.0.clone()).collect();
    assert_eq!(keys, ["chat:tools:a", "chat:tools:b"]);
    assert!(!t.has_unsaved());
}
