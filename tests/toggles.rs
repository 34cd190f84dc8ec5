//! Per-thread tool toggles: every rule of `tools::toggles`, over a store that can be told to fail.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use std::cell::Cell;
use std::collections::BTreeMap;

use chat_runtime::tools::toggles::{
    storage_key, KeyValueStore, MemoryStore, StoreError, ThreadKey, Toggles,
};
use chat_runtime::tools::Diagnostic;

/// A store over a [`MemoryStore`] that throws when told to, and counts reads.
#[derive(Default)]
struct TestStore {
    /// The values.
    inner: MemoryStore,
    /// `get` throws.
    fail_get: bool,
    /// `set` throws (a full quota).
    fail_set: bool,
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
        if self.fail_set {
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
fn map(pairs: &[(&str, bool)]) -> BTreeMap<String, bool> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

const DEFAULT: &str = "chat:tools:default";
const T1: &str = "chat:tools:t1";

// ---------------------------------------------------------------------------------------------
// Keys and defaults

#[test]
fn storage_key_is_prefixed_thread_id_or_default() {
    assert_eq!(storage_key(Some("t1")), "chat:tools:t1");
    assert_eq!(storage_key(None), "chat:tools:default");
    assert_eq!(storage_key(Some("")), "chat:tools:");
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
fn a_thread_named_default_shares_the_default_key() {
    let mut t = toggles(&[]);
    t.set_enabled(Some("default"), "a", true);
    assert!(t.is_enabled(None, "a"));
    assert_eq!(t.store().raw(DEFAULT).as_deref(), Some(r#"{"a":true}"#));
    t.begin_run("default");
    assert_eq!(
        t.store().sets,
        1,
        "begin_run has nothing to copy onto the default"
    );
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
    assert!(t.is_memory_only());
    let diagnostics = drain(&mut t);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].code, "toggles/storage-unavailable");
    assert_eq!(diagnostics[0].name.as_deref(), Some("a"));
    assert!(diagnostics[0].message.contains("QuotaExceededError"));
    assert!(diagnostics[0].message.contains(T1));
    assert_eq!(t.store().raw(T1), None);
}

#[test]
fn after_a_failed_write_later_writes_are_not_retried() {
    let mut t = Toggles::new(TestStore {
        fail_set: true,
        ..TestStore::default()
    });
    t.set_enabled(None, "a", true);
    t.store_mut().fail_set = false;
    t.set_enabled(None, "b", true);
    t.set_enabled(Some("t2"), "c", true);
    t.begin_run("t1");
    assert_eq!(t.store().sets, 1, "only the first, failed, write was tried");
    assert_eq!(drain(&mut t).len(), 1, "one diagnostic, not one per change");
    // Everything still works in memory, copy-at-first-run included.
    assert_eq!(t.state(None), &map(&[("a", true), ("b", true)]));
    assert_eq!(t.state(Some("t1")), &map(&[("a", true), ("b", true)]));
    assert!(t.is_enabled(Some("t2"), "c"));
    t.set_enabled(None, "a", false);
    assert!(
        t.is_enabled(Some("t1"), "a"),
        "t1 ran: it has its own state in memory"
    );
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
fn a_memory_only_instance_still_reads_keys_it_has_not_cached() {
    let mut t = Toggles::new(TestStore {
        fail_set: true,
        ..TestStore::with(&[("chat:tools:t2", r#"{"x":true}"#)])
    });
    t.set_enabled(Some("t1"), "a", true);
    assert!(t.is_memory_only());
    assert!(t.is_enabled(Some("t2"), "x"), "a full quota still reads");
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
