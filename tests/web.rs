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

// ---- JSON Schema `pattern` against the browser's own `RegExp` --------------------------------

#[wasm_bindgen]
extern "C" {
    /// The browser's `RegExp`, bound here so that `test` takes the text as a JS value: a string
    /// holding a lone surrogate cannot cross as a Rust `&str` (js-sys's `RegExp::test` takes one).
    #[wasm_bindgen(js_name = RegExp)]
    type BrowserRegExp;

    /// `new RegExp(pattern, flags)`, catching the `SyntaxError`.
    #[wasm_bindgen(catch, constructor, js_class = RegExp)]
    fn new(pattern: &str, flags: &str) -> Result<BrowserRegExp, JsValue>;

    /// `regexp.test(text)`.
    #[wasm_bindgen(method, js_class = RegExp)]
    fn test(this: &BrowserRegExp, text: &JsValue) -> bool;
}

fn try_regexp(pattern: &str, flags: &str) -> Result<BrowserRegExp, JsValue> {
    BrowserRegExp::new(pattern, flags)
}

/// Ordinary patterns: classes, escapes, quantifiers, anchors, alternation, groups, non-greedy,
/// `{n,m}`, Unicode, astral chars, line terminators, surrogates.
const PATTERNS: &[&str] = &[
    "",
    "|a",
    "(?:)",
    "abc",
    "^abc$",
    "a.c",
    "^.*$",
    "^.+$",
    "^.$",
    "^..$",
    "^[^]$",
    "[]",
    "^[\\s\\S]*$",
    "^[a-z]+$",
    "^[A-Za-z0-9_-]{1,64}$",
    "^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$",
    "^\\d{4}-\\d{2}-\\d{2}$",
    "^\\+?[0-9 ()-]{7,}$",
    "\\bword\\b",
    "\\Bor",
    "^\\w+$",
    "^\\W+$",
    "\\s",
    "^\\s$",
    "^\\S+$",
    "\\D",
    "\\d",
    "colou?r",
    "^(?:https?|ftp)://[^\\s/$.?#].[^\\s]*$",
    "^(a|b)*c$",
    "^(ab|cd){2,3}$",
    "^(ab)+$",
    "x*?y",
    "a+?b",
    "a??b",
    "^a{0,2}$",
    "^a{3,}$",
    "a{2}",
    "^a{2,3}?$",
    "^[\\u0041-\\u005A]+$",
    "^\\u{1F600}$",
    "[\\u{1F300}-\\u{1FAFF}]",
    "^\\uD83D\\uDE00$",
    "\\u2028",
    "^[^\\n\\r]*$",
    "\\r\\n",
    "\\t",
    "^\\x41\\x42",
    "\\cJ",
    "\\0",
    "[\\b]",
    "[\\-a]",
    "[a-]",
    "^[--/]+$",
    "^\\/path$",
    "^[.*+?^${}()|[\\]\\\\]+$",
    "(?<y>\\d{4})-(?<m>\\d\\d)",
    "^(?:\\d{3}-){2}\\d{4}$",
    "é",
    "^[à-ÿ]+$",
    "日本",
    "\\uD83D",
    "^[\\uD800-\\uDFFF]$",
    "[\\uDC00-\\uDFFF]",
    "^[\\u0000-\\uFFFF]$",
    "[^a]",
    "^[^a-z]+$",
    "^$",
    "^a|b$",
    "^(a+)+$",
    "(a|aa)*b",
    "^([a-z]+\\s?)+$",
    "\\w\\b",
    "^\\u{10FFFF}$",
    "[\\d\\s]",
    "^[^\\d\\s]+$",
    "\\u00a0|\\ufeff",
    "^\\S$",
];

/// Texts, as JSON (so that lone surrogates can be written).
const TEXTS: &[&str] = &[
    r#""""#,
    r#""abc""#,
    r#""ABC""#,
    r#""xabcx""#,
    r#""a1_b""#,
    r#""2024-05-17""#,
    r#""user@example.com""#,
    r#""hello world""#,
    r#""a\nb""#,
    r#""a\r\nb""#,
    r#""\u2028""#,
    r#""\u00a0""#,
    r#""\ufeff""#,
    r#""\t""#,
    r#"" ""#,
    r#""😀""#,
    r#""a😀b""#,
    r#""🙂""#,
    r#""\ud83d""#,
    r#""a\ude00""#,
    r#""\udbff\udfff""#,
    r#""é""#,
    r#""àéÿ""#,
    r#""日本語""#,
    r#""colour""#,
    r#""color""#,
    r#""https://example.com/x""#,
    r#""word in a sentence""#,
    r#""sword""#,
    r#""aaaa""#,
    r#""aab""#,
    r#""aaab""#,
    r#""ababab""#,
    r#""cdab""#,
    r#""+1 (555) 123-4567""#,
    r#""555-123-4567""#,
    r#""/path""#,
    r#""\u0000""#,
    r#""\b""#,
    r#""-""#,
    r#""\n""#,
    r#""٣""#,
    r#""xxy""#,
    r#""AB""#,
    r#""2024-05""#,
    r#""*+?""#,
];

#[wasm_bindgen_test]
fn the_linear_matcher_agrees_with_the_browser_s_regexp_on_ordinary_patterns() {
    use chat_runtime::json::Value;
    use chat_runtime::tools::pattern::Pattern;
    let mut failures = Vec::new();
    let mut compared = 0;
    for &p in PATTERNS {
        let ours = match Pattern::new(p) {
            Ok(ours) => ours,
            Err(e) => {
                failures.push(format!("/{p}/ does not compile: {e}"));
                continue;
            }
        };
        let browser = try_regexp(p, "u").expect("an ordinary pattern");
        for &text in TEXTS {
            let js_text = JSON::parse(text).unwrap();
            let Ok(Value::String(internal)) = Value::parse(text) else {
                panic!("{text} is a JSON string")
            };
            let (want, got) = (browser.test(&js_text), ours.is_match(&internal));
            if want != got {
                failures.push(format!("/{p}/u on {text}: RegExp says {want}, ours {got}"));
            }
            compared += 1;
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert!(compared > 3000, "{compared}");
}

#[wasm_bindgen_test]
fn what_the_matcher_calls_invalid_the_browser_s_regexp_refuses_too() {
    use chat_runtime::tools::pattern::{Pattern, PatternError};
    let invalid = [
        "(",
        ")",
        "[a",
        "a**",
        "*a",
        "{",
        "}",
        "]",
        "a{1",
        "a{,5}",
        "a{2,1}",
        "x{1}{2}",
        "a*??",
        "^*",
        r"\b+",
        r"\-",
        r"\a",
        r"\c1",
        r"\00",
        r"\x4",
        r"\u{110000}",
        "[z-a]",
        r"[\d-z]",
        r"[\B]",
        r"[\c_]",
        r"[\1]",
        "(?<1a>x)",
        "(?x)",
        r"\",
    ];
    for p in invalid {
        assert!(
            matches!(Pattern::new(p), Err(PatternError::Invalid { .. })),
            "{p:?}: ours accepts it"
        );
        assert!(try_regexp(p, "u").is_err(), "{p:?}: RegExp accepts it");
    }
}

#[wasm_bindgen_test]
fn register_tool_refuses_a_pattern_that_cannot_run_in_linear_time() {
    let rt = runtime(&[("storage", JsValue::NULL)]);
    let tool = obj(
        r#"{"name":"twice","description":"a word twice","parameters":{"type":"object",
            "properties":{"w":{"type":"string","pattern":"^(\\w+) \\1$"}}}}"#,
    );
    set(&tool, "handler", &Function::new_no_args("return 1"));
    let error = JsValue::from(rt.register_tool(tool.unchecked_into()).unwrap_err());
    chat_runtime_error_class(&error, "tool/bad-schema");
    let message = Reflect::get(&error, &"message".into())
        .unwrap()
        .as_string()
        .unwrap();
    assert!(
        message.contains(r#""^(\\w+) \\1$" is not supported: backreference"#),
        "{message}"
    );
}

/// A small deterministic generator (an LCG) for the generated tables below.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }

    /// A valid pattern: alternatives of terms, atoms with quantifiers, groups `depth` deep.
    fn pattern(&mut self, depth: u32) -> String {
        const ATOMS: &[&str] = &[
            "a", "b", "c", ".", "[ab]", "[^a]", "[a-c]", r"\d", r"\w", r"\s", r"\S", r"\W", "é",
            "😀", "[^]", r"\n", " ",
        ];
        const QUANTIFIERS: &[&str] = &[
            "", "", "", "*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "+?", "{0,2}?",
        ];
        let mut out = String::new();
        for alternative in 0..=self.below(3) / 2 {
            if alternative > 0 {
                out.push('|');
            }
            for _ in 0..self.below(5) {
                match self.below(10) {
                    0 => out.push_str(self.pick(&["^", "$", r"\b", r"\B"])),
                    1 | 2 if depth > 0 => {
                        out.push_str(self.pick(&["(", "(?:", "(?<g>"]));
                        out.push_str(&self.pattern(depth - 1));
                        out.push(')');
                        out.push_str(self.pick(QUANTIFIERS));
                    }
                    _ => {
                        out.push_str(self.pick(ATOMS));
                        out.push_str(self.pick(QUANTIFIERS));
                    }
                }
            }
        }
        out.replace("(?<g>", if depth % 2 == 0 { "(?<g>" } else { "(" })
    }

    /// A short text over the chars the patterns use.
    fn text(&mut self) -> String {
        const CHARS: &[&str] = &["a", "b", "c", " ", "1", "_", "\n", "é", "😀", "-"];
        (0..self.below(9)).map(|_| self.pick(CHARS)).collect()
    }
}

#[wasm_bindgen_test]
fn generated_patterns_and_texts_get_the_browser_s_verdicts() {
    use chat_runtime::tools::pattern::Pattern;
    let mut rng = Lcg(7);
    let mut failures = Vec::new();
    for _ in 0..600 {
        let mut p = rng.pattern(3);
        if p.matches("(?<g>").count() > 1 {
            p = p.replace("(?<g>", "(");
        }
        let ours = match Pattern::new(&p) {
            Ok(ours) => ours,
            Err(e) => {
                failures.push(format!("/{p}/ does not compile: {e}"));
                continue;
            }
        };
        let browser = try_regexp(&p, "u").expect("a valid pattern");
        for _ in 0..25 {
            let text = rng.text();
            let want = browser.test(&JsValue::from(text.as_str()));
            if want != ours.is_match(&text) {
                failures.push(format!("/{p}/u on {text:?}: RegExp says {want}"));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[wasm_bindgen_test]
fn generated_strings_of_syntax_chars_are_valid_exactly_when_the_browser_says_so() {
    use chat_runtime::tools::pattern::{Pattern, PatternError};
    const CHARS: &[&str] = &[
        "(", ")", "[", "]", "{", "}", "|", "*", "+", "?", "^", "$", "\\", ".", "-", ",", "0", "1",
        "2", "a", "b", "c", "d", "u", "x", "s", "B", "/", ":", "=", "!",
    ];
    let mut rng = Lcg(11);
    let mut failures = Vec::new();
    let mut valid = 0;
    for _ in 0..20_000 {
        let p: String = (0..1 + rng.below(6)).map(|_| rng.pick(CHARS)).collect();
        let browser = try_regexp(&p, "u");
        match (Pattern::new(&p), browser) {
            (Ok(ours), Ok(browser)) => {
                valid += 1;
                for text in ["", "a", "ab", "-1", "a,b", "ba{1}", "$^", "\n", "\\"] {
                    let want = browser.test(&JsValue::from(text));
                    if want != ours.is_match(text) {
                        failures.push(format!("/{p}/u on {text:?}: RegExp says {want}"));
                    }
                }
            }
            (Err(PatternError::Invalid { .. }), Err(_)) => {}
            (Err(PatternError::Unsupported(_)), _) => {}
            (ours, browser) => failures.push(format!(
                "/{p}/: ours {:?}, RegExp {}",
                ours.err(),
                if browser.is_ok() {
                    "accepts it"
                } else {
                    "throws"
                }
            )),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert!(valid > 2_000, "{valid} valid patterns");
}
