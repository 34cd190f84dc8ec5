//! `tools.json` validation and the tool catalog: every rule and every code.

mod common;
use common::whatwg::Whatwg;
use common::*;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::json::Value as JsonValue;
use chat_runtime::protocol::event::Tool;
use chat_runtime::tools::catalog::{
    code, parse_manifest, CallTarget, Catalog, CatalogError, ManifestContext, ManifestReport,
    MAX_MANIFEST_BYTES, MAX_TOOLS,
};
use chat_runtime::tools::{Diagnostic, FrontendTool, TimeLimit, ToolHandler};
use serde_json::{json, Value};

/// The example of the nebari issue, section 1.
const SEED_MANIFEST: &str = r#"[
  {
    "tool": {
      "name": "get_weather",
      "description": "Get current weather for a location",
      "parameters": {
        "type": "object",
        "properties": {
          "location": { "type": "string", "description": "City name" }
        },
        "required": ["location"]
      }
    },
    "importPath": "/tools/weather.js",
    "entrypoint": "fetchWeather"
  }
]"#;

fn ctx() -> ManifestContext {
    ManifestContext {
        manifest_url: "https://app.example/tools/tools.json".into(),
        page_origin: "https://app.example".into(),
        allowed_import_origins: vec!["https://cdn.example".into()],
    }
}

fn parse(body: &str) -> Result<ManifestReport, CatalogError> {
    parse_manifest(body.as_bytes(), Some("application/json"), &ctx(), &Whatwg)
}

fn report(entries: Value) -> ManifestReport {
    parse(&entries.to_string()).expect("the file parses")
}

/// A valid entry named `name`.
fn entry(name: &str) -> Value {
    json!({
        "tool": { "name": name, "description": format!("the {name} tool") },
        "importPath": format!("/tools/{name}.js"),
        "entrypoint": "run"
    })
}

/// `entry(name)` with `patch` merged into it (a `null` in the patch removes a key).
fn entry_with(name: &str, patch: Value) -> Value {
    let mut entry = entry(name);
    json_merge(&mut entry, patch);
    entry
}

fn json_merge(target: &mut Value, patch: Value) {
    match (target, patch) {
        (Value::Object(target), Value::Object(patch)) => {
            for (key, value) in patch {
                if value.is_null() {
                    target.remove(&key);
                } else if let Some(existing) = target.get_mut(&key) {
                    json_merge(existing, value);
                } else {
                    target.insert(key, value);
                }
            }
        }
        (target, patch) => *target = patch,
    }
}

fn names(tools: &[FrontendTool]) -> Vec<&str> {
    tools.iter().map(|t| t.name.as_str()).collect()
}

fn tool(name: &str) -> FrontendTool {
    FrontendTool {
        name: name.into(),
        description: format!("the {name} tool"),
        parameters: value!({"type": "object", "properties": {}}),
        handler: ToolHandler::Module {
            url: format!("https://app.example/tools/{name}.js"),
            entrypoint: "run".into(),
        },
        follow_up: true,
        time_limit: TimeLimit::Default,
        default_enabled: false,
    }
}

fn codes(diagnostics: &[Diagnostic]) -> Vec<(Option<&str>, &str)> {
    diagnostics
        .iter()
        .map(|d| (d.name.as_deref(), d.code))
        .collect()
}

fn active(catalog: &Catalog) -> Vec<&str> {
    catalog.frontend_tools().map(|t| t.name.as_str()).collect()
}

// ---------------------------------------------------------------------------------------------
// The manifest

#[test]
fn the_seed_example_loads() {
    let report = parse(SEED_MANIFEST).unwrap();
    assert_eq!(report.diagnostics, []);
    assert_eq!(
        report.tools,
        [FrontendTool {
            name: "get_weather".into(),
            description: "Get current weather for a location".into(),
            parameters: value!({
                "type": "object",
                "properties": { "location": { "type": "string", "description": "City name" } },
                "required": ["location"]
            }),
            handler: ToolHandler::Module {
                url: "https://app.example/tools/weather.js".into(),
                entrypoint: "fetchWeather".into(),
            },
            follow_up: true,
            time_limit: TimeLimit::Default,
            default_enabled: false,
        }]
    );
}

#[test]
fn the_openai_tool_shape_is_accepted() {
    let report = report(json!([
        {
            "tool": {
                "type": "function",
                "function": {
                    "name": "search_docs",
                    "description": "Search the docs",
                    "parameters": { "type": "object", "properties": { "q": { "type": "string" } } }
                }
            },
            "importPath": "./search.js",
            "entrypoint": "search"
        },
        {
            "tool": { "function": { "name": "no_type", "description": "type omitted" } },
            "importPath": "x.js",
            "entrypoint": "x"
        }
    ]));
    assert_eq!(report.diagnostics, []);
    assert_eq!(names(&report.tools), ["search_docs", "no_type"]);
    assert_eq!(
        report.tools[0].parameters,
        value!({ "type": "object", "properties": { "q": { "type": "string" } } })
    );
    assert_eq!(
        report.tools[0].handler,
        ToolHandler::Module {
            url: "https://app.example/tools/search.js".into(),
            entrypoint: "search".into()
        }
    );
}

#[test]
fn absent_or_null_parameters_mean_an_empty_object_schema() {
    let report = report(json!([
        entry("a"),
        entry_with("b", json!({"tool": {"parameters": null}}))
    ]));
    for tool in &report.tools {
        assert_eq!(
            tool.parameters,
            value!({"type": "object", "properties": {}})
        );
    }
    assert_eq!(report.tools.len(), 2);
}

#[test]
fn follow_up_and_timeout_are_read() {
    // Not through entry_with: a merge patch's null removes the key.
    let mut approve = entry_with("approve", json!({"defaultEnabled": true}));
    approve["timeoutMs"] = Value::Null;
    let report = report(json!([
        entry_with("fire", json!({"followUp": false, "timeoutMs": 5000})),
        entry_with("float_ms", json!({"timeoutMs": 2500.0})),
        entry_with("max_ms", json!({"timeoutMs": 600000})),
        approve,
        entry("defaults"),
    ]));
    assert_eq!(report.diagnostics, []);
    let options: Vec<(bool, TimeLimit, bool)> = report
        .tools
        .iter()
        .map(|t| (t.follow_up, t.time_limit, t.default_enabled))
        .collect();
    assert_eq!(
        options,
        [
            (false, TimeLimit::Ms(5000), false),
            (true, TimeLimit::Ms(2500), false),
            (true, TimeLimit::Ms(600_000), false),
            (true, TimeLimit::Never, true),
            (true, TimeLimit::Default, false)
        ]
    );
}

#[test]
fn unknown_keys_are_ignored() {
    let report = report(json!([entry_with(
        "a",
        json!({"version": 2, "tool": {"x": 1}})
    )]));
    assert_eq!(report.diagnostics, []);
    assert_eq!(report.tools.len(), 1);
}

#[test]
fn an_html_fallback_served_with_200_is_not_json_by_content_type() {
    for content_type in [
        "text/html",
        "text/html; charset=utf-8",
        "TEXT/HTML",
        "application/xhtml+xml",
    ] {
        let error = parse_manifest(b"[]", Some(content_type), &ctx(), &Whatwg).unwrap_err();
        assert_eq!(error, CatalogError::Html, "{content_type}");
        assert_eq!(error.code(), "tools/not-json");
        assert_eq!(
            error.to_string(),
            "tools.json looks like an HTML page (a server fallback?)"
        );
    }
}

#[test]
fn an_html_fallback_is_recognized_by_sniffing_the_body() {
    let bodies: [&[u8]; 3] = [
        b"<!doctype html><html><body><div id=root></div></body></html>",
        b"\n\t  <html>",
        b"\xEF\xBB\xBF<!DOCTYPE html>",
    ];
    for body in bodies {
        for content_type in [
            None,
            Some("application/octet-stream"),
            Some("application/json"),
        ] {
            let error = parse_manifest(body, content_type, &ctx(), &Whatwg).unwrap_err();
            assert_eq!(error, CatalogError::Html);
            assert_eq!(error.code(), "tools/not-json");
        }
    }
}

#[test]
fn a_body_that_is_not_json_fails_the_file() {
    for body in ["", "  \n", "{", "[1,]", "tools", "[{\"tool\": }]"] {
        let error = parse(body).unwrap_err();
        assert!(
            matches!(error, CatalogError::NotJson { .. }),
            "{body:?}: {error:?}"
        );
        assert_eq!(error.code(), "tools/not-json");
    }
}

#[test]
fn a_utf8_byte_order_mark_is_skipped() {
    let mut body = b"\xEF\xBB\xBF".to_vec();
    body.extend_from_slice(SEED_MANIFEST.as_bytes());
    let report = parse_manifest(&body, None, &ctx(), &Whatwg).unwrap();
    assert_eq!(names(&report.tools), ["get_weather"]);
}

#[test]
fn json_that_is_not_an_array_fails_the_file() {
    let cases = [
        ("{\"tools\": []}", "an object"),
        ("\"tools\"", "a string"),
        ("42", "a number"),
        ("true", "a boolean"),
        ("null", "null"),
    ];
    for (body, found) in cases {
        let error = parse(body).unwrap_err();
        assert_eq!(error, CatalogError::NotArray { found }, "{body}");
        assert_eq!(error.code(), "tools/not-array");
    }
}

#[test]
fn a_body_over_one_mebibyte_fails_before_parsing() {
    let mut body = vec![b' '; MAX_MANIFEST_BYTES + 1];
    body[0] = b'<'; // would be html, but size is checked first
    let error = parse_manifest(&body, Some("text/html"), &ctx(), &Whatwg).unwrap_err();
    assert_eq!(
        error,
        CatalogError::TooLarge {
            size: MAX_MANIFEST_BYTES + 1,
            limit: MAX_MANIFEST_BYTES
        }
    );
    assert_eq!(error.code(), "tools/too-large");

    let mut exactly = vec![b' '; MAX_MANIFEST_BYTES];
    exactly[0] = b'[';
    exactly[MAX_MANIFEST_BYTES - 1] = b']';
    assert_eq!(
        parse_manifest(&exactly, None, &ctx(), &Whatwg)
            .unwrap()
            .tools,
        []
    );
}

#[test]
fn fetch_errors_have_their_code_and_status() {
    let error = CatalogError::Fetch {
        status: Some(404),
        message: "http 404".into(),
    };
    assert_eq!(error.code(), "tools/fetch");
    assert_eq!(error.status(), Some(404));
    assert_eq!(error.to_string(), "could not fetch tools.json: http 404");
}

#[test]
fn every_bad_entry_is_skipped_with_its_code_and_good_entries_keep_their_order() {
    let big = "x".repeat(70_000);
    let cases: Vec<(Value, &str)> = vec![
        (json!("not an object"), code::NOT_OBJECT),
        (json!(null), code::NOT_OBJECT),
        (
            json!({"importPath": "/x.js", "entrypoint": "x"}),
            code::NOT_OBJECT,
        ),
        (
            entry_with("t", json!({"tool": "get_weather"})),
            code::NOT_OBJECT,
        ),
        (
            json!({"tool": {"type": "function", "function": "f"}, "importPath": "/x.js", "entrypoint": "x"}),
            code::NOT_OBJECT,
        ),
        (
            json!({"tool": {"type": "function"}, "importPath": "/x.js", "entrypoint": "x"}),
            code::NOT_OBJECT,
        ),
        (entry("get weather"), code::BAD_NAME),
        (entry(""), code::BAD_NAME),
        (entry(&"n".repeat(65)), code::BAD_NAME),
        (entry("wetter_ü"), code::BAD_NAME),
        (
            entry_with("t", json!({"tool": {"name": 7}})),
            code::BAD_NAME,
        ),
        (
            json!({"tool": {"description": "d"}, "importPath": "/x.js", "entrypoint": "x"}),
            code::BAD_NAME,
        ),
        (
            entry_with("t", json!({"tool": {"description": null}})),
            code::NO_DESCRIPTION,
        ),
        (
            entry_with("t", json!({"tool": {"description": "  \n"}})),
            code::NO_DESCRIPTION,
        ),
        (
            entry_with("t", json!({"tool": {"description": ["d"]}})),
            code::NO_DESCRIPTION,
        ),
        (
            entry_with("t", json!({"tool": {"parameters": "object"}})),
            code::BAD_SCHEMA,
        ),
        (
            entry_with("t", json!({"tool": {"parameters": [1]}})),
            code::BAD_SCHEMA,
        ),
        (
            entry_with(
                "t",
                json!({"tool": {"parameters": {"type": "object", "description": big}}}),
            ),
            code::BAD_SCHEMA,
        ),
        (
            entry_with("t", json!({"importPath": null})),
            code::BAD_IMPORT_PATH,
        ),
        (
            entry_with("t", json!({"importPath": 3})),
            code::BAD_IMPORT_PATH,
        ),
        (
            entry_with("t", json!({"importPath": ""})),
            code::BAD_IMPORT_PATH,
        ),
        (
            entry_with("t", json!({"importPath": "javascript:alert(1)"})),
            code::BAD_IMPORT_PATH,
        ),
        (
            entry_with("t", json!({"importPath": "//[nope]/x.js"})),
            code::BAD_IMPORT_PATH,
        ),
        (
            entry_with("t", json!({"importPath": "https://u@app.example/x.js"})),
            code::BAD_IMPORT_PATH,
        ),
        (
            entry_with("t", json!({"importPath": "//evil.example/x.js"})),
            code::FOREIGN_ORIGIN,
        ),
        // The browser reads `/\evil.example` as `//evil.example` and drops the tab in `/\t/`: both
        // are foreign origins, refused by the origin check.
        (
            entry_with("t", json!({"importPath": "/\\evil.example/x.js"})),
            code::FOREIGN_ORIGIN,
        ),
        (
            entry_with("t", json!({"importPath": "/\t/evil.example/x.js"})),
            code::FOREIGN_ORIGIN,
        ),
        (
            entry_with("t", json!({"importPath": "http://app.example/x.js"})),
            code::FOREIGN_ORIGIN,
        ),
        (
            entry_with("t", json!({"entrypoint": null})),
            code::BAD_ENTRYPOINT,
        ),
        (
            entry_with("t", json!({"entrypoint": "fetch-weather"})),
            code::BAD_ENTRYPOINT,
        ),
        (
            entry_with("t", json!({"entrypoint": "1run"})),
            code::BAD_ENTRYPOINT,
        ),
        (
            entry_with("t", json!({"entrypoint": ""})),
            code::BAD_ENTRYPOINT,
        ),
        (
            entry_with("t", json!({"entrypoint": "a.b"})),
            code::BAD_ENTRYPOINT,
        ),
        (
            entry_with("t", json!({"entrypoint": ["run"]})),
            code::BAD_ENTRYPOINT,
        ),
        (entry_with("t", json!({"followUp": "no"})), code::BAD_OPTION),
        (entry_with("t", json!({"followUp": 0})), code::BAD_OPTION),
        (entry_with("t", json!({"timeoutMs": 0})), code::BAD_OPTION),
        (entry_with("t", json!({"timeoutMs": -5})), code::BAD_OPTION),
        (entry_with("t", json!({"timeoutMs": 1.5})), code::BAD_OPTION),
        (
            entry_with("t", json!({"timeoutMs": 600001})),
            code::BAD_OPTION,
        ),
        (
            entry_with("t", json!({"timeoutMs": "5000"})),
            code::BAD_OPTION,
        ),
    ];
    for (bad, expected) in cases {
        let report = report(json!([entry("first"), bad.clone(), entry("last")]));
        assert_eq!(names(&report.tools), ["first", "last"], "{bad}");
        assert_eq!(report.diagnostics.len(), 1, "{bad}");
        let diagnostic = &report.diagnostics[0];
        assert_eq!(diagnostic.code, expected, "{bad}: {}", diagnostic.message);
        assert_eq!(diagnostic.index, Some(1));
        assert!(
            diagnostic.message.starts_with(|c: char| c.is_lowercase()),
            "{}",
            diagnostic.message
        );
    }
}

#[test]
fn diagnostics_name_the_tool_when_it_has_a_readable_name() {
    let report = report(json!([
        entry_with("weather", json!({"entrypoint": "a-b"})),
        entry("get weather"),
        entry_with("t", json!({"tool": {"name": 7}})),
        json!({"tool": {"type": "function", "function": {"name": "wrapped", "description": ""}}}),
        entry(&"n".repeat(200)),
    ]));
    let names: Vec<Option<&str>> = report
        .diagnostics
        .iter()
        .map(|d| d.name.as_deref())
        .collect();
    let long = format!("{}…", "n".repeat(64));
    assert_eq!(
        names,
        [
            Some("weather"),
            Some("get weather"),
            None,
            Some("wrapped"),
            Some(long.as_str())
        ]
    );
}

#[test]
fn reserved_words_are_valid_entrypoints() {
    for entrypoint in ["default", "$", "_run", "class", "fetchWeather2"] {
        let report = report(json!([entry_with(
            "t",
            json!({ "entrypoint": entrypoint })
        )]));
        assert_eq!(report.diagnostics, [], "{entrypoint}");
    }
}

#[test]
fn the_first_of_two_entries_with_one_name_wins() {
    let report = report(json!([
        entry_with("a", json!({"entrypoint": "first"})),
        entry("b"),
        entry_with("a", json!({"entrypoint": "second"})),
    ]));
    assert_eq!(names(&report.tools), ["a", "b"]);
    assert_eq!(
        report.tools[0].handler,
        ToolHandler::Module {
            url: "https://app.example/tools/a.js".into(),
            entrypoint: "first".into()
        }
    );
    assert_eq!(
        codes(&report.diagnostics),
        [(Some("a"), code::DUPLICATE_NAME)]
    );
    assert_eq!(report.diagnostics[0].index, Some(2));
}

#[test]
fn at_most_250_tools_load() {
    let mut entries: Vec<Value> = (0..MAX_TOOLS + 2)
        .map(|i| entry(&format!("t{i}")))
        .collect();
    entries.insert(3, json!(42)); // a bad entry does not count towards the cap
    let report = report(Value::Array(entries));
    assert_eq!(report.tools.len(), MAX_TOOLS);
    assert_eq!(
        report.tools[MAX_TOOLS - 1].name,
        format!("t{}", MAX_TOOLS - 1)
    );
    assert_eq!(
        codes(&report.diagnostics),
        [
            (None, code::NOT_OBJECT),
            (Some("t250"), code::TOO_MANY),
            (Some("t251"), code::TOO_MANY)
        ]
    );
    assert_eq!(report.diagnostics[1].index, Some(MAX_TOOLS + 1));
}

#[test]
fn import_paths_resolve_against_the_manifest_url() {
    let report = report(json!([
        entry_with("rel", json!({"importPath": "../lib/rel.js?v=3"})),
        entry_with(
            "cdn",
            json!({"importPath": "https://CDN.example:443/cdn.js"})
        ),
        entry_with("abs", json!({"importPath": "https://app.example/abs.js"})),
    ]));
    assert_eq!(report.diagnostics, []);
    let urls: Vec<&str> = report
        .tools
        .iter()
        .map(|t| match &t.handler {
            ToolHandler::Module { url, .. } => url.as_str(),
            ToolHandler::Registered => "",
        })
        .collect();
    assert_eq!(
        urls,
        [
            "https://app.example/lib/rel.js?v=3",
            "https://cdn.example/cdn.js",
            "https://app.example/abs.js"
        ]
    );
}

#[test]
fn the_origin_checked_is_the_one_the_browser_sees() {
    let report = report(json!([
        entry_with("tab", json!({"importPath": "https://app.exa\tmple/tab.js"})),
        entry_with("pct", json!({"importPath": "//%63dn.example/pct.js"})),
        entry_with("slash", json!({"importPath": "/\\evil.example/slash.js"})),
    ]));
    let urls: Vec<(&str, &str)> = report
        .tools
        .iter()
        .map(|t| match &t.handler {
            ToolHandler::Module { url, .. } => (t.name.as_str(), url.as_str()),
            ToolHandler::Registered => (t.name.as_str(), ""),
        })
        .collect();
    assert_eq!(
        urls,
        [
            ("tab", "https://app.example/tab.js"),
            ("pct", "https://cdn.example/pct.js")
        ]
    );
    assert_eq!(
        codes(&report.diagnostics),
        [(Some("slash"), code::FOREIGN_ORIGIN)]
    );
    assert_eq!(
        report.diagnostics[0].message,
        "importPath https://evil.example/slash.js: origin https://evil.example is neither the \
         page's origin nor in allowedImportOrigins"
    );
}

#[test]
fn a_deeply_nested_body_is_an_error_not_a_crash() {
    let body = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert!(matches!(parse(&body), Err(CatalogError::NotJson { .. })));
}

// ---------------------------------------------------------------------------------------------
// The catalog

fn backend(names: &[&str]) -> JsonValue {
    ours(Value::Array(
        names
            .iter()
            .map(|n| json!({"name": n, "description": "backend"}))
            .collect(),
    ))
}

#[test]
fn backend_tools_are_read_from_an_array_or_items() {
    let mut catalog = Catalog::new();
    let diagnostics = catalog.set_backend_tools(&value!([
        {"name": "search", "description": "web search", "parameters": {"type": "object"}},
        {"name": "lookup"},
        {"type": "function", "function": {"name": "openai_style"}},
    ]));
    assert_eq!(diagnostics, []);
    let names: Vec<&str> = catalog
        .backend_tools()
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["search", "lookup", "openai_style"]);
    assert_eq!(
        catalog.backend_tools()[0].parameters,
        Some(value!({"type": "object"}))
    );
    assert_eq!(catalog.backend_tools()[1].description, "");
    assert!(catalog.is_backend("lookup"));

    let diagnostics = catalog.set_backend_tools(&value!({"items": [{"name": "only"}]}));
    assert_eq!(diagnostics, []);
    assert!(catalog.is_backend("only"));
    assert!(!catalog.is_backend("search"), "the list is replaced");

    assert_eq!(catalog.set_backend_tools(&JsonValue::Null), []);
    assert_eq!(catalog.backend_tools(), []);
}

#[test]
fn bad_backend_tools_are_skipped_with_a_diagnostic() {
    let mut catalog = Catalog::new();
    let diagnostics = catalog.set_backend_tools(&value!([
        {"name": "ok"},
        "search",
        {"description": "no name"},
        {"name": ""},
        {"name": "d", "description": 5},
        {"name": "p", "parameters": "object"},
        {"name": "ok"},
    ]));
    assert_eq!(catalog.backend_tools().len(), 1);
    let indexes: Vec<Option<usize>> = diagnostics.iter().map(|d| d.index).collect();
    assert_eq!(
        indexes,
        [Some(1), Some(2), Some(3), Some(4), Some(5), Some(6)]
    );
    assert!(diagnostics.iter().all(|d| d.code == code::BACKEND_BAD_TOOL));
    assert_eq!(diagnostics[5].name.as_deref(), Some("ok"));

    for not_a_list in [json!("tools"), json!({"items": "x"}), json!(3)] {
        let diagnostics = catalog.set_backend_tools(&ours(not_a_list.clone()));
        assert_eq!(
            codes(&diagnostics),
            [(None, code::BACKEND_BAD_TOOL)],
            "{not_a_list}"
        );
        assert_eq!(catalog.backend_tools(), []);
    }
    // AG-UI's ToolsCapabilities without `items` (`{ supported: false }`) is no tools, no problem.
    catalog.set_backend_tools(&value!([{"name": "ok"}]));
    for none in [
        json!({"supported": false}),
        json!({"items": null}),
        json!(null),
    ] {
        assert_eq!(catalog.set_backend_tools(&ours(none.clone())), [], "{none}");
        assert_eq!(catalog.backend_tools(), [], "{none}");
    }
}

#[test]
fn a_frontend_tool_may_not_shadow_a_backend_tool() {
    let mut catalog = Catalog::new();
    assert_eq!(
        catalog.set_manifest(vec![tool("search"), tool("weather")]),
        []
    );
    let diagnostics = catalog.set_backend_tools(&backend(&["search"]));
    assert_eq!(
        codes(&diagnostics),
        [(Some("search"), code::SHADOWS_BACKEND)]
    );
    assert_eq!(active(&catalog), ["weather"]);
    assert_eq!(catalog.frontend("search"), None);
    assert_eq!(catalog.resolve_call("search"), CallTarget::Backend);
    assert_eq!(catalog.diagnostics(), diagnostics);
}

#[test]
fn a_shadowed_tool_comes_back_when_the_backend_tool_goes_away() {
    let mut catalog = Catalog::new();
    catalog.set_backend_tools(&backend(&["search"]));
    let diagnostics = catalog.set_manifest(vec![tool("search"), tool("weather")]);
    assert_eq!(
        codes(&diagnostics),
        [(Some("search"), code::SHADOWS_BACKEND)]
    );
    assert_eq!(active(&catalog), ["weather"]);

    assert_eq!(catalog.set_backend_tools(&backend(&["other"])), []);
    assert_eq!(active(&catalog), ["search", "weather"], "order is kept");
    assert_eq!(catalog.diagnostics(), []);
    assert!(
        matches!(catalog.resolve_call("search"), CallTarget::Frontend(t) if t.name == "search")
    );
}

#[test]
fn with_a_prefix_frontend_and_backend_tools_share_names() {
    let mut catalog = Catalog::with_prefix("ui_").unwrap();
    catalog.set_manifest(vec![tool("search"), tool("highlight")]);
    assert_eq!(catalog.set_backend_tools(&backend(&["search"])), []);
    assert_eq!(active(&catalog), ["search", "highlight"]);
    assert_eq!(catalog.wire_name("search"), "ui_search");

    assert!(
        matches!(catalog.resolve_call("ui_search"), CallTarget::Frontend(t) if t.name == "search")
    );
    assert_eq!(catalog.resolve_call("search"), CallTarget::Backend);
    assert_eq!(
        catalog.resolve_call("highlight"),
        CallTarget::Unknown,
        "unprefixed: not sent so"
    );
    assert_eq!(catalog.resolve_call("ui_"), CallTarget::Unknown);
    assert_eq!(catalog.resolve_call("ui_missing"), CallTarget::Unknown);
    assert_eq!(catalog.resolve_call(""), CallTarget::Unknown);
}

#[test]
fn with_a_prefix_a_prefixed_name_may_not_collide_with_a_backend_tool() {
    let mut catalog = Catalog::with_prefix("ui_").unwrap();
    catalog.set_manifest(vec![tool("search"), tool("zoom")]);
    let diagnostics = catalog.set_backend_tools(&backend(&["ui_zoom"]));
    assert_eq!(
        codes(&diagnostics),
        [(Some("zoom"), code::PREFIX_COLLISION)]
    );
    assert_eq!(active(&catalog), ["search"]);
    assert_eq!(catalog.resolve_call("ui_zoom"), CallTarget::Backend);

    catalog.set_backend_tools(&JsonValue::Null);
    assert_eq!(active(&catalog), ["search", "zoom"]);
    assert_eq!(catalog.diagnostics(), []);
}

#[test]
fn a_prefixed_name_over_64_characters_is_hidden() {
    let mut catalog = Catalog::with_prefix("ui_").unwrap();
    let long = "n".repeat(62);
    let diagnostics = catalog.set_manifest(vec![tool(&long), tool(&"m".repeat(61))]);
    assert_eq!(codes(&diagnostics), [(Some(long.as_str()), code::BAD_NAME)]);
    assert_eq!(catalog.frontend_tools().count(), 1);
}

#[test]
fn prefixes_are_checked() {
    assert_eq!(Catalog::with_prefix("").unwrap().prefix(), None);
    assert_eq!(Catalog::with_prefix("ui_").unwrap().prefix(), Some("ui_"));
    for bad in ["ui.", "a b", "ü_", &"p".repeat(64)] {
        let error = Catalog::with_prefix(bad).unwrap_err();
        assert_eq!(error.code(), "tools/bad-prefix", "{bad}");
    }
}

#[test]
fn wire_tools_are_the_enabled_ones_with_wire_names_and_schemas() {
    let mut catalog = Catalog::with_prefix("ui_").unwrap();
    let mut weather = tool("weather");
    weather.parameters = value!({"type": "object", "properties": {"city": {"type": "string"}}});
    catalog.set_manifest(vec![weather, tool("off")]);
    catalog
        .register(
            "pick_color",
            "Pick a color",
            None,
            Some(false),
            TimeLimit::Ms(1000),
            false,
        )
        .unwrap();
    let wire = catalog.wire_tools(|name| name != "off");
    assert_eq!(
        wire,
        [
            Tool {
                name: "ui_weather".into(),
                description: "the weather tool".into(),
                parameters: Some(
                    value!({"type": "object", "properties": {"city": {"type": "string"}}})
                ),
                metadata: None,
            },
            Tool {
                name: "ui_pick_color".into(),
                description: "Pick a color".into(),
                parameters: Some(value!({"type": "object", "properties": {}})),
                metadata: None,
            },
        ]
    );
    assert_eq!(Catalog::new().wire_name("weather"), "weather");
}

#[test]
fn registered_tools_follow_the_manifest_rules() {
    let mut catalog = Catalog::new();
    catalog.set_manifest(vec![tool("weather")]);
    /// name, description, parameters, timeoutMs, expected code
    type Case<'a> = (&'a str, &'a str, Option<JsonValue>, Option<u32>, &'a str);
    let cases: [Case; 7] = [
        ("bad name", "d", None, None, code::BAD_NAME),
        ("", "d", None, None, code::BAD_NAME),
        ("t", " ", None, None, code::NO_DESCRIPTION),
        ("t", "d", Some(value!("object")), None, code::BAD_SCHEMA),
        ("t", "d", None, Some(0), code::BAD_OPTION),
        ("t", "d", None, Some(600_001), code::BAD_OPTION),
        ("weather", "d", None, None, code::DUPLICATE_NAME),
    ];
    for (name, description, parameters, timeout, expected) in cases {
        let error = catalog
            .register(
                name,
                description,
                parameters,
                None,
                timeout.map_or(TimeLimit::Default, TimeLimit::Ms),
                false,
            )
            .unwrap_err();
        assert_eq!(error.code, expected, "{name:?}");
        assert_eq!(error.index, None);
    }
    assert_eq!(active(&catalog), ["weather"]);
}

#[test]
fn registering_adds_replaces_and_unregistering_removes() {
    let mut catalog = Catalog::new();
    catalog.set_manifest(vec![tool("weather")]);
    catalog
        .register("a", "first", None, None, TimeLimit::Default, false)
        .unwrap();
    catalog
        .register("b", "b", None, Some(false), TimeLimit::Ms(2000), false)
        .unwrap();
    catalog
        .register("a", "second", None, None, TimeLimit::Default, false)
        .unwrap();
    assert_eq!(
        active(&catalog),
        ["weather", "a", "b"],
        "replacing keeps the place"
    );
    let a = catalog.frontend("a").unwrap();
    assert_eq!(a.description, "second");
    assert_eq!(a.handler, ToolHandler::Registered);
    assert!(a.follow_up);
    let b = catalog.frontend("b").unwrap();
    assert_eq!((b.follow_up, b.time_limit), (false, TimeLimit::Ms(2000)));

    assert!(catalog.unregister("a"));
    assert!(!catalog.unregister("a"));
    assert!(
        !catalog.unregister("weather"),
        "manifest tools are not unregistered"
    );
    assert_eq!(active(&catalog), ["weather", "b"]);
    assert_eq!(catalog.resolve_call("a"), CallTarget::Unknown);
}

#[test]
fn a_registered_tool_shadowing_a_backend_tool_waits_for_it_to_go() {
    let mut catalog = Catalog::new();
    catalog.set_backend_tools(&backend(&["search"]));
    let error = catalog
        .register("search", "d", None, None, TimeLimit::Default, false)
        .unwrap_err();
    assert_eq!(error.code, code::SHADOWS_BACKEND);
    assert_eq!(active(&catalog), Vec::<&str>::new());
    catalog.set_backend_tools(&JsonValue::Null);
    assert_eq!(active(&catalog), ["search"]);
}

#[test]
fn a_manifest_tool_hides_a_registered_one_of_the_same_name() {
    let mut catalog = Catalog::new();
    catalog
        .register(
            "weather",
            "registered",
            None,
            None,
            TimeLimit::Default,
            false,
        )
        .unwrap();
    let diagnostics = catalog.set_manifest(vec![tool("weather")]);
    assert_eq!(
        codes(&diagnostics),
        [(Some("weather"), code::DUPLICATE_NAME)]
    );
    assert_eq!(
        catalog.frontend("weather").unwrap().description,
        "the weather tool"
    );
    assert_eq!(catalog.frontend_tools().count(), 1);

    assert_eq!(catalog.set_manifest(vec![]), []);
    assert_eq!(
        catalog.frontend("weather").unwrap().description,
        "registered"
    );
}

#[test]
fn set_manifest_drops_duplicates_and_tools_past_the_cap() {
    let mut catalog = Catalog::new();
    let mut tools: Vec<FrontendTool> = (0..MAX_TOOLS + 1).map(|i| tool(&format!("t{i}"))).collect();
    tools.insert(1, tool("t0"));
    let diagnostics = catalog.set_manifest(tools);
    assert_eq!(
        codes(&diagnostics),
        [
            (Some("t0"), code::DUPLICATE_NAME),
            (Some("t250"), code::TOO_MANY)
        ]
    );
    assert_eq!(catalog.frontend_tools().count(), MAX_TOOLS);
}

#[test]
fn the_cap_counts_manifest_and_registered_tools() {
    let mut catalog = Catalog::new();
    catalog.set_manifest((0..MAX_TOOLS - 1).map(|i| tool(&format!("t{i}"))).collect());
    catalog
        .register("last", "d", None, None, TimeLimit::Default, false)
        .unwrap();
    let error = catalog
        .register("one_more", "d", None, None, TimeLimit::Default, false)
        .unwrap_err();
    assert_eq!(error.code, code::TOO_MANY);
    catalog
        .register("last", "replaced", None, None, TimeLimit::Default, false)
        .unwrap();

    // A bigger manifest arriving later pushes the registered tool past the cap: hidden.
    let diagnostics =
        catalog.set_manifest((0..MAX_TOOLS).map(|i| tool(&format!("t{i}"))).collect());
    assert_eq!(codes(&diagnostics), [(Some("last"), code::TOO_MANY)]);
    assert_eq!(catalog.frontend("last"), None);
}

#[test]
fn the_parsed_manifest_feeds_the_catalog() {
    let report = parse(SEED_MANIFEST).unwrap();
    let mut catalog = Catalog::new();
    assert_eq!(catalog.set_manifest(report.tools), []);
    let CallTarget::Frontend(tool) = catalog.resolve_call("get_weather") else {
        panic!("get_weather is a frontend tool");
    };
    assert_eq!(tool.name, "get_weather");
    assert_eq!(catalog.resolve_call("get_time"), CallTarget::Unknown);
}

#[test]
fn register_with_options_checks_them_by_the_manifest_rules_and_names_the_tool() {
    let options = |v: Value| match JsonValue::parse(&v.to_string()).unwrap() {
        JsonValue::Object(map) => map,
        other => panic!("{other:?}"),
    };
    let mut catalog = Catalog::new();
    for bad in [
        json!({"timeoutMs": 0}),
        json!({"timeoutMs": 600_001}),
        json!({"timeoutMs": "5000"}),
        json!({"timeoutMs": 1.5}),
        json!({"defaultEnabled": "yes"}),
        json!({"followUp": 1}),
    ] {
        let refused = catalog
            .register_with_options("t1", "d", None, &options(bad.clone()))
            .unwrap_err();
        assert_eq!(refused.code, "tool/bad-option", "{bad}");
        assert_eq!(refused.name.as_deref(), Some("t1"), "{bad}");
    }
    assert!(
        catalog.frontend_tools().next().is_none(),
        "nothing was stored"
    );

    // A bad name is reported first, as in a manifest entry.
    let refused = catalog
        .register_with_options("bad name", "d", None, &options(json!({"timeoutMs": 0})))
        .unwrap_err();
    assert_eq!(refused.code, "tool/bad-name");

    catalog
        .register_with_options(
            "t1",
            "d",
            None,
            &options(json!({"timeoutMs": null, "followUp": false, "defaultEnabled": true})),
        )
        .unwrap();
    let tool = catalog.frontend_tools().next().unwrap();
    assert_eq!(tool.time_limit, TimeLimit::Never);
    assert!(!tool.follow_up);
    assert!(tool.default_enabled);
}
