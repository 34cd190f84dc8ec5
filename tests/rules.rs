//! The rules the JS boundary used to apply on its own, now in the core: the locked-tool rule, one
//! active-tool set for `activeTools` and for the run, and the `tools.json` status rule.

mod common;
use common::*;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::session::{CallKind, ToolSet};
use chat_runtime::tools::catalog::{check_manifest_status, Catalog};
use chat_runtime::tools::toggles::{MemoryStore, Toggles};
use chat_runtime::tools::{list_tools, set_tool_enabled, TimeLimit, ToggleError};

fn catalog() -> Catalog {
    let mut catalog = Catalog::new();
    for name in ["clock", "search"] {
        catalog
            .register(
                name,
                "a tool",
                Some(value!({"type": "object"})),
                None,
                TimeLimit::Default,
                false,
            )
            .unwrap();
    }
    catalog.set_backend_tools(&value!([{"name": "web"}]));
    catalog
}

#[test]
fn a_backend_tool_is_locked_and_nothing_is_saved() {
    let catalog = catalog();
    let mut toggles = Toggles::new(MemoryStore::default());
    let refused = set_tool_enabled(&catalog, &mut toggles, Some("t"), "web", false);
    assert_eq!(
        refused,
        Err(ToggleError::Locked {
            name: "web".to_owned()
        })
    );
    assert_eq!(refused.unwrap_err().code(), "tools/locked");
    assert!(!toggles.is_enabled(Some("t"), "web"), "nothing was written");

    set_tool_enabled(&catalog, &mut toggles, Some("t"), "search", true).unwrap();
    assert!(toggles.is_enabled(Some("t"), "search"));
    // With a prefix, a frontend tool may share a backend tool's name: that one is toggled.
    let mut prefixed = Catalog::with_prefix("fe_").unwrap();
    prefixed
        .register(
            "web",
            "ours",
            Some(value!({"type": "object"})),
            None,
            TimeLimit::Default,
            false,
        )
        .unwrap();
    prefixed.set_backend_tools(&value!([{"name": "web"}]));
    set_tool_enabled(&prefixed, &mut toggles, Some("t"), "web", true).unwrap();
    assert!(toggles.is_enabled(Some("t"), "web"));
    // A name not in the catalog yet (tools.json still loading) is saved all the same.
    set_tool_enabled(&catalog, &mut toggles, None, "later", true).unwrap();
    assert!(toggles.is_enabled(None, "later"));
}

#[test]
fn active_tools_and_the_run_use_one_tool_set() {
    let catalog = catalog();
    let mut toggles = Toggles::new(MemoryStore::default());
    set_tool_enabled(&catalog, &mut toggles, Some("t"), "clock", true).unwrap();
    let set = ToolSet::for_thread(&catalog, &mut toggles, Some("t"));
    let wire: Vec<&str> = set.wire.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(wire, ["clock"]);
    assert!(matches!(set.calls["clock"], CallKind::Enabled(_)));
    assert!(matches!(set.calls["search"], CallKind::Disabled));
    assert!(matches!(set.calls["web"], CallKind::Backend));
    // Another thread has its own toggles.
    let other = ToolSet::for_thread(&catalog, &mut toggles, Some("u"));
    assert!(other.wire.is_empty());
}

#[test]
fn a_default_enabled_tool_is_on_until_a_saved_toggle_says_otherwise() {
    let mut catalog = catalog();
    catalog
        .register(
            "locate",
            "where the user is",
            None,
            None,
            TimeLimit::Default,
            true,
        )
        .unwrap();
    let mut toggles = Toggles::new(MemoryStore::default());
    let on = |toggles: &mut Toggles<MemoryStore>, thread: Option<&str>| -> Vec<String> {
        ToolSet::for_thread(&catalog, toggles, thread)
            .wire
            .iter()
            .map(|t| t.name.clone())
            .collect()
    };
    // No saved toggles: on in a new chat and in any thread, and listed as on.
    assert_eq!(on(&mut toggles, None), ["locate"]);
    assert_eq!(on(&mut toggles, Some("t")), ["locate"]);
    let listed = list_tools(&catalog, &mut toggles, Some("t"));
    let enabled: Vec<(&str, bool)> = listed
        .iter()
        .map(|e| (e.name.as_str(), e.enabled))
        .collect();
    assert_eq!(
        enabled,
        [
            ("clock", false),
            ("search", false),
            ("locate", true),
            ("web", true)
        ]
    );
    // Saved toggles that name other tools leave it on; a saved `false` turns it off.
    set_tool_enabled(&catalog, &mut toggles, Some("t"), "clock", true).unwrap();
    assert_eq!(on(&mut toggles, Some("t")), ["clock", "locate"]);
    set_tool_enabled(&catalog, &mut toggles, Some("t"), "locate", false).unwrap();
    assert_eq!(on(&mut toggles, Some("t")), ["clock"]);
    // Turned off in the defaults: off for new chats and for threads without toggles of their own.
    set_tool_enabled(&catalog, &mut toggles, None, "locate", false).unwrap();
    assert_eq!(on(&mut toggles, None), Vec::<String>::new());
    assert_eq!(on(&mut toggles, Some("u")), Vec::<String>::new());
}

#[test]
fn tools_json_fails_for_every_status_but_2xx() {
    assert!(check_manifest_status(200, "https://a.example/tools.json").is_ok());
    assert!(check_manifest_status(204, "https://a.example/tools.json").is_ok());
    for status in [301, 404, 500] {
        let error = check_manifest_status(status, "https://a.example/tools.json").unwrap_err();
        assert_eq!(error.code(), "tools/fetch");
        assert_eq!(error.status(), Some(status));
        assert!(error.to_string().contains(&format!(
            "https://a.example/tools.json answered HTTP {status}"
        )));
    }
}
