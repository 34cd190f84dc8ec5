//! The browser adapters in headless Chromium: the real `localStorage`, a storage that throws,
//! corrupt saved toggles, `storage` events from another tab, and `tools.json` fetched for real
//! from the local test server (`CHAT_RUNTIME_TEST_SERVER`, started by `make test-wasm`).
#![cfg(target_arch = "wasm32")]

use chat_runtime::ChatRuntime;
use js_sys::{Array, Function, Object, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn obj(json: &str) -> JsValue {
    JSON::parse(json).expect("test JSON")
}

/// A thread id argument (the exported methods take the JS value, checked at the boundary).
fn thread_id<T: JsCast>(id: &str) -> T {
    JsValue::from(id).unchecked_into()
}

fn set(target: &JsValue, key: &str, value: &JsValue) {
    Reflect::set(target, &key.into(), value).unwrap();
}

fn local_storage() -> JsValue {
    Reflect::get(&js_sys::global(), &"localStorage".into()).unwrap()
}

fn storage_call(method: &str, args: &[JsValue]) -> JsValue {
    let storage = local_storage();
    let f: Function = Reflect::get(&storage, &method.into())
        .unwrap()
        .unchecked_into();
    f.apply(&storage, &args.iter().collect::<Array>()).unwrap()
}

fn storage_get(key: &str) -> Option<String> {
    storage_call("getItem", &[key.into()]).as_string()
}

fn storage_set(key: &str, value: &str) {
    storage_call("setItem", &[key.into(), value.into()]);
}

fn storage_remove(key: &str) {
    storage_call("removeItem", &[key.into()]);
}

fn runtime(extra: &[(&str, JsValue)]) -> ChatRuntime {
    let options = obj(r#"{"runUrl":"/api/threads/{threadId}/runs","toolsUrl":null}"#);
    for (key, value) in extra {
        set(&options, key, value);
    }
    ChatRuntime::new(options.unchecked_into()).expect("runtime")
}

fn register(runtime: &ChatRuntime, name: &str) {
    let tool = obj(&format!(
        r#"{{"name":"{name}","description":"the {name} tool"}}"#
    ));
    set(&tool, "handler", &Function::new_no_args("return 1"));
    runtime
        .register_tool(tool.unchecked_into())
        .expect("registers");
}

/// Collects every event as JSON text.
fn record(runtime: &ChatRuntime) -> std::rc::Rc<std::cell::RefCell<Vec<String>>> {
    let events = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = events.clone();
    let listener = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
        sink.borrow_mut()
            .push(JSON::stringify(&event).unwrap().into());
    })
    .into_js_value();
    runtime.subscribe(listener.unchecked_into(), None).unwrap();
    events
}

fn entries(runtime: &ChatRuntime, thread: Option<&str>) -> Vec<(String, bool)> {
    let list: JsValue = runtime.list_tools(thread.map(thread_id)).unwrap().into();
    Array::from(&list)
        .iter()
        .map(|e| {
            (
                Reflect::get(&e, &"name".into())
                    .unwrap()
                    .as_string()
                    .unwrap(),
                Reflect::get(&e, &"enabled".into())
                    .unwrap()
                    .as_bool()
                    .unwrap(),
            )
        })
        .collect()
}

#[wasm_bindgen_test]
fn toggles_are_saved_per_thread_in_the_real_local_storage() {
    storage_remove("chat:tools:web-a");
    storage_remove("chat:tools:web-b");
    let first = runtime(&[]);
    register(&first, "get_weather");
    register(&first, "search_docs");
    assert_eq!(
        entries(&first, Some("web-a")),
        [("get_weather".into(), false), ("search_docs".into(), false)],
        "everything starts off"
    );
    first
        .set_tool_enabled(Some(thread_id("web-a")), "get_weather".into(), true)
        .unwrap();
    assert_eq!(
        storage_get("chat:tools:web-a").as_deref(),
        Some(r#"{"get_weather":true}"#)
    );
    // Another runtime (a reload) reads it back; the other thread is untouched.
    let second = runtime(&[]);
    register(&second, "get_weather");
    register(&second, "search_docs");
    assert_eq!(
        entries(&second, Some("web-a"))[0],
        ("get_weather".into(), true)
    );
    assert_eq!(
        entries(&second, Some("web-b"))[0],
        ("get_weather".into(), false)
    );
}

#[wasm_bindgen_test]
fn a_new_chat_uses_the_default_key_and_a_thread_starts_from_a_copy_of_it() {
    storage_remove("chat:tools:default");
    storage_remove("chat:tools:web-new");
    let rt = runtime(&[]);
    register(&rt, "get_weather");
    rt.set_tool_enabled(None, "get_weather".into(), true)
        .unwrap();
    assert_eq!(
        storage_get("chat:tools:default").as_deref(),
        Some(r#"{"get_weather":true}"#)
    );
    assert_eq!(
        entries(&rt, Some("web-new"))[0],
        ("get_weather".into(), true),
        "shows the default"
    );
    storage_remove("chat:tools:default");
}

#[wasm_bindgen_test]
fn a_storage_that_throws_falls_back_to_memory_with_a_diagnostic() {
    let storage = Object::new();
    set(
        &storage,
        "getItem",
        &Function::new_with_args("k", "return null"),
    );
    set(
        &storage,
        "setItem",
        &Function::new_with_args(
            "k, v",
            "throw new DOMException('quota exceeded', 'QuotaExceededError')",
        ),
    );
    set(
        &storage,
        "removeItem",
        &Function::new_with_args("k", "return undefined"),
    );
    let rt = runtime(&[("storage", storage.into())]);
    let events = record(&rt);
    register(&rt, "get_weather");
    rt.set_tool_enabled(Some(thread_id("t")), "get_weather".into(), true)
        .unwrap();
    assert_eq!(
        entries(&rt, Some("t"))[0],
        ("get_weather".into(), true),
        "kept in memory"
    );
    let events = events.borrow();
    assert!(
        events
            .iter()
            .any(|e| e.contains(r#""code":"toggles/storage-unavailable""#)
                && e.contains("QuotaExceededError")),
        "{events:?}"
    );
}

#[wasm_bindgen_test]
fn a_corrupt_saved_value_is_reported_and_kept_until_the_user_changes_a_toggle() {
    storage_set("chat:tools:web-corrupt", "{not json");
    let rt = runtime(&[]);
    let events = record(&rt);
    register(&rt, "get_weather");
    assert_eq!(
        entries(&rt, Some("web-corrupt"))[0],
        ("get_weather".into(), false)
    );
    assert!(events
        .borrow()
        .iter()
        .any(|e| e.contains(r#""code":"toggles/corrupt""#)));
    assert_eq!(
        storage_get("chat:tools:web-corrupt").as_deref(),
        Some("{not json"),
        "not overwritten by reading"
    );
    rt.set_tool_enabled(Some(thread_id("web-corrupt")), "get_weather".into(), true)
        .unwrap();
    assert_eq!(
        storage_get("chat:tools:web-corrupt").as_deref(),
        Some(r#"{"get_weather":true}"#)
    );
    storage_remove("chat:tools:web-corrupt");
}

#[wasm_bindgen_test]
fn storage_null_keeps_toggles_in_memory_without_complaint() {
    let rt = runtime(&[("storage", JsValue::NULL)]);
    let events = record(&rt);
    register(&rt, "get_weather");
    rt.set_tool_enabled(Some(thread_id("web-mem")), "get_weather".into(), true)
        .unwrap();
    assert_eq!(
        entries(&rt, Some("web-mem"))[0],
        ("get_weather".into(), true)
    );
    assert_eq!(storage_get("chat:tools:web-mem"), None);
    assert!(!events.borrow().iter().any(|e| e.contains("diagnostic")));
}

#[wasm_bindgen_test]
fn a_change_made_in_another_tab_is_picked_up_and_announced() {
    storage_remove("chat:tools:web-tab");
    let rt = runtime(&[]);
    let events = record(&rt);
    register(&rt, "get_weather");
    assert!(!entries(&rt, Some("web-tab"))[0].1);
    // What another tab's write looks like here: the value changes and a `storage` event fires.
    storage_set("chat:tools:web-tab", r#"{"get_weather":true}"#);
    let init = obj(r#"{"key":"chat:tools:web-tab","newValue":"{\"get_weather\":true}"}"#);
    let event = js_sys::Reflect::construct(
        &Reflect::get(&js_sys::global(), &"StorageEvent".into())
            .unwrap()
            .unchecked_into::<Function>(),
        &Array::of2(&"storage".into(), &init),
    )
    .unwrap();
    let dispatch: Function = Reflect::get(&js_sys::global(), &"dispatchEvent".into())
        .unwrap()
        .unchecked_into();
    dispatch.call1(&js_sys::global(), &event).unwrap();
    assert!(entries(&rt, Some("web-tab"))[0].1);
    assert!(events
        .borrow()
        .iter()
        .any(|e| e == r#"{"type":"toggles_changed","threadId":"web-tab"}"#));
    storage_remove("chat:tools:web-tab");
}

#[wasm_bindgen_test]
fn backend_tools_are_listed_locked_and_cannot_be_toggled() {
    let rt = runtime(&[("storage", JsValue::NULL)]);
    rt.set_backend_tools(
        obj(r#"{"items":[{"name":"search_docs","description":"Search the docs"}]}"#)
            .unchecked_into(),
    )
    .unwrap();
    let list: JsValue = rt.list_tools(None).unwrap().into();
    let row = Array::from(&list).get(0);
    assert_eq!(
        String::from(JSON::stringify(&row).unwrap()),
        r#"{"name":"search_docs","description":"Search the docs","source":"backend","enabled":true,"locked":true}"#
    );
    let err = rt
        .set_tool_enabled(None, "search_docs".into(), false)
        .unwrap_err();
    assert_eq!(err.code(), "tools/locked");
    // Thrown to JS, it is a `ChatRuntimeError` with that code.
    let thrown = JsValue::from(err);
    assert_eq!(
        Reflect::get(&thrown, &"code".into()).unwrap(),
        "tools/locked"
    );
    assert_eq!(
        Reflect::get(&thrown, &"name".into()).unwrap(),
        "ChatRuntimeError"
    );
}

/// Checks that `error` is a `ChatRuntimeError` with `code` (an `Error` whose class is the
/// package's `ChatRuntimeError`, with a stack) and returns its class, to compare with others.
fn chat_runtime_error_class(error: &JsValue, code: &str) -> JsValue {
    assert!(error.is_instance_of::<js_sys::Error>(), "an Error");
    assert_eq!(
        Reflect::get(error, &"name".into()).unwrap(),
        "ChatRuntimeError"
    );
    assert_eq!(Reflect::get(error, &"code".into()).unwrap(), code);
    let stack = Reflect::get(error, &"stack".into()).unwrap().as_string();
    assert!(stack.is_some_and(|s| !s.is_empty()), "a stack");
    let class = Reflect::get(error, &"constructor".into()).unwrap();
    assert_eq!(
        Reflect::get(&class, &"name".into()).unwrap(),
        "ChatRuntimeError"
    );
    let prototype = Reflect::get(&class, &"prototype".into()).unwrap();
    assert_eq!(
        Object::get_prototype_of(&prototype),
        Object::get_prototype_of(&js_sys::Error::new("").into()),
        "ChatRuntimeError extends Error"
    );
    class
}

#[wasm_bindgen_test]
fn thrown_errors_share_one_class_and_tool_errors_name_the_tool_in_tool_name() {
    let options = match ChatRuntime::new(obj("{}").unchecked_into()) {
        Ok(_) => panic!("a runtime without runUrl"),
        Err(error) => JsValue::from(error),
    };
    let class = chat_runtime_error_class(&options, "options/invalid");

    let rt = runtime(&[("storage", JsValue::NULL)]);
    let tool = obj(r#"{"name":"bad name","description":"a tool with a bad name"}"#);
    set(&tool, "handler", &Function::new_no_args("return 1"));
    let bad_name = JsValue::from(rt.register_tool(tool.unchecked_into()).unwrap_err());
    assert_eq!(chat_runtime_error_class(&bad_name, "tool/bad-name"), class);
    assert_eq!(
        Reflect::get(&bad_name, &"toolName".into()).unwrap(),
        "bad name"
    );

    rt.set_backend_tools(
        obj(r#"[{"name":"search_docs","description":"Search the docs"}]"#).unchecked_into(),
    )
    .unwrap();
    let locked = JsValue::from(
        rt.set_tool_enabled(None, "search_docs".into(), true)
            .unwrap_err(),
    );
    assert_eq!(chat_runtime_error_class(&locked, "tools/locked"), class);
    assert_eq!(
        Reflect::get(&locked, &"toolName".into()).unwrap(),
        "search_docs"
    );

    let bad_thread = JsValue::from(
        rt.list_tools(Some(thread_id("")))
            .err()
            .expect("an empty thread id is refused"),
    );
    assert_eq!(
        chat_runtime_error_class(&bad_thread, "input/invalid"),
        class
    );
    assert_eq!(
        Reflect::get(&bad_thread, &"field".into()).unwrap(),
        "threadId"
    );
}

// ---- tools.json over the network ------------------------------------------------------------

fn server() -> &'static str {
    match option_env!("CHAT_RUNTIME_TEST_SERVER") {
        Some(url) => url,
        None => panic!(
            "CHAT_RUNTIME_TEST_SERVER is set by `make test-wasm` (the local test server's URL)"
        ),
    }
}

async fn load(manifest: &str) -> Result<JsValue, JsValue> {
    let origin = server().trim_end_matches('/').to_owned();
    let rt = runtime(&[
        ("storage", JsValue::NULL),
        ("toolsUrl", format!("{origin}/tools/{manifest}").into()),
        (
            "allowedImportOrigins",
            Array::of1(&origin.clone().into()).into(),
        ),
    ]);
    JsFuture::from(js_sys::Promise::from(JsValue::from(rt.load_tools()))).await
}

#[wasm_bindgen_test]
async fn a_good_manifest_loads_every_tool() {
    let report = load("tools.json").await.expect("loads");
    let tools = Array::from(&Reflect::get(&report, &"tools".into()).unwrap());
    assert!(tools.length() >= 2, "{:?}", JSON::stringify(&report));
    let diagnostics = Array::from(&Reflect::get(&report, &"diagnostics".into()).unwrap());
    assert_eq!(diagnostics.length(), 0, "{:?}", JSON::stringify(&report));
}

#[wasm_bindgen_test]
async fn bad_entries_are_skipped_with_diagnostics_and_good_ones_load() {
    let report = load("mixed.json").await.expect("loads");
    let text: String = JSON::stringify(&report).unwrap().into();
    let tools = Array::from(&Reflect::get(&report, &"tools".into()).unwrap());
    assert_eq!(tools.length(), 1, "{text}");
    for code in [
        "tool/bad-name",
        "tool/foreign-origin",
        "tool/bad-entrypoint",
        "tool/duplicate-name",
    ] {
        assert!(text.contains(code), "{code} in {text}");
    }
}

#[wasm_bindgen_test]
async fn an_html_page_served_with_200_is_not_a_manifest() {
    let error = load("fallback.html").await.unwrap_err();
    chat_runtime_error_class(&error, "tools/not-json");
}

#[wasm_bindgen_test]
async fn a_missing_manifest_is_a_fetch_error_with_its_status() {
    let error = load("nope.json").await.unwrap_err();
    chat_runtime_error_class(&error, "tools/fetch");
    assert_eq!(Reflect::get(&error, &"status".into()).unwrap(), 404);
}

#[wasm_bindgen_test]
fn a_subscriber_can_ask_for_only_some_event_types() {
    let rt = runtime(&[("storage", JsValue::NULL)]);
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::<String>::new()));
    let sink = seen.clone();
    let listener = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
        sink.borrow_mut().push(
            Reflect::get(&event, &"type".into())
                .unwrap()
                .as_string()
                .unwrap(),
        );
    })
    .into_js_value();
    let options = obj(r#"{"events":["toggles_changed"]}"#);
    rt.subscribe(listener.unchecked_into(), Some(options.unchecked_into()))
        .unwrap();
    register(&rt, "get_weather"); // tools_changed: not wanted
    rt.set_tool_enabled(None, "get_weather".into(), true)
        .unwrap();
    assert_eq!(*seen.borrow(), ["toggles_changed"]);
}
