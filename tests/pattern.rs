//! JSON Schema `pattern` (`tools::pattern`): ECMA-262 patterns (the `u` flag) matched in time
//! linear in the text, whatever the pattern. Catastrophic patterns against long texts settle with
//! the right verdict; ECMA semantics where Rust's regex syntax differs; what is refused (and that
//! the refusal says which feature), what is invalid, what is too large; lone surrogates in the JSON
//! layer's internal form; the bounded cache; and where a refused pattern surfaces (`check_schema`,
//! so `tool/bad-schema` for `tools.json` and `registerTool`; a `pattern` violation when validating).
//! No timing is asserted: a backtracking engine would not finish these tests at all.
//!
//! The same verdicts are compared with the browser's own `RegExp` in `tests/web.rs`.

mod common;
use common::whatwg::Whatwg;
use common::*;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::json::Value as JsonValue;
use chat_runtime::tools::catalog::{code, parse_manifest, Catalog, ManifestContext};
use chat_runtime::tools::pattern::{
    Pattern, PatternError, PatternMatcher, Patterns, MAX_CACHED, MAX_GROUP_DEPTH, MAX_MATCH_STEPS,
    MAX_PATTERN_BYTES,
};
use chat_runtime::tools::schema::{check_schema, validate};
use chat_runtime::tools::TimeLimit;
use serde_json::json;

/// `Pattern::new(p)?.is_match(text)`, panicking with the pattern on a compile error.
fn matches(p: &str, text: &str) -> bool {
    match Pattern::new(p) {
        Ok(pattern) => pattern.is_match(text),
        Err(e) => panic!("{p:?} does not compile: {e}"),
    }
}

/// Checks every row `(pattern, text, verdict)` and reports all mismatches at once.
fn verdicts(rows: &[(&str, &str, bool)]) {
    let mut failures = Vec::new();
    for &(p, text, expected) in rows {
        match Pattern::new(p) {
            Ok(pattern) if pattern.is_match(text) == expected => {}
            Ok(_) => failures.push(format!("/{p}/ on {text:?}: expected {expected}")),
            Err(e) => failures.push(format!("/{p}/: {e}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// A string of the JSON layer's internal form, from JSON text (`"a\ud83d"` holds a lone
/// surrogate).
fn internal(json_text: &str) -> String {
    match JsonValue::parse(json_text).expect("JSON") {
        JsonValue::String(s) => s,
        other => panic!("not a string: {other:?}"),
    }
}

#[test]
fn catastrophic_patterns_settle_on_long_texts_with_the_right_verdict() {
    let a = "a".repeat(40_000);
    let x = "x".repeat(40_000);
    let words = "lorem ipsum dolor ".repeat(2_500); // 45,000 chars
    let rows: Vec<(&str, String, bool)> = vec![
        (r"^(a+)+$", format!("{a}b"), false),
        (r"^(a+)+$", a.clone(), true),
        (r"(a|aa)*b", a.clone(), false),
        (r"(a|aa)*b", format!("{a}b"), true),
        (r"^([a-z]+\s?)+$", format!("{words}!"), false),
        (r"^([a-z]+\s?)+$", words.clone(), true),
        (r"(x+x+)+y", x.clone(), false),
        (r"(x+x+)+y", format!("{x}y"), true),
        (r"^(a|a?)+$", format!("{a}b"), false),
        (r"^(\w+\s?)*$", format!("{words}!"), false),
        (r"^(([a-z])+.)+[A-Z]([a-z])+$", words.clone(), false),
        (r"^(a*)*$", format!("{a}!"), false),
        (r"(.*a){20}", x.clone(), false),
    ];
    let mut failures = Vec::new();
    for (p, text, expected) in &rows {
        if matches(p, text) != *expected {
            failures.push(format!(
                "/{p}/ on {} chars: expected {expected}",
                text.len()
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn an_interrupt_answer_of_41_characters_against_a_nested_quantifier_is_a_pattern_violation() {
    // An interrupt's responseSchema with `^(a+)+$` froze the page on a 41-character answer when
    // patterns ran on the browser's backtracking `RegExp`.
    let schema = value!({
        "type": "object",
        "properties": {"answer": {"type": "string", "pattern": "^(a+)+$"}}
    });
    let patterns = Patterns::new();
    let answer = format!("{}!", "a".repeat(40));
    let v = validate(&schema, &value!({ "answer": answer }), &patterns).unwrap_err();
    assert_eq!((v.pointer.as_str(), v.rule), ("/answer", "pattern"));
    assert_eq!(
        validate(&schema, &value!({"answer": "a".repeat(41)}), &patterns),
        Ok(())
    );
}

#[test]
fn a_seven_megabyte_text_settles_on_a_nested_quantifier() {
    // The browser's `RegExp.test` throws a RangeError on this one (its backtracking stack).
    let pattern = Pattern::new(r"^([a-z]+\s?)+$").unwrap();
    let mut text = "abcdefg ".repeat(7 * 1024 * 1024 / 8);
    assert!(pattern.is_match(&text));
    text.push('!');
    assert!(!pattern.is_match(&text));
}

#[test]
fn ecma_semantics_where_rust_regex_syntax_differs() {
    verdicts(&[
        // `.` is any code point but the four line terminators.
        ("^.$", "a", true),
        ("^.$", "\n", false),
        ("^.$", "\r", false),
        ("^.$", "\u{2028}", false),
        ("^.$", "\u{2029}", false),
        ("^.$", "\u{85}", true),
        ("^.$", "😀", true),
        ("^..$", "😀", false),
        // `\s`: WhiteSpace and LineTerminator, Unicode's too; not U+180E, U+200B or U+0085.
        (r"^\s+$", " \t\n\x0b\x0c\r\u{a0}\u{1680}\u{2000}\u{200a}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}\u{feff}", true),
        (r"\s", "\u{180e}", false),
        (r"\s", "\u{200b}", false),
        (r"\s", "\u{85}", false),
        (r"^\S$", "\u{85}", true),
        // `\d`, `\w`, `\b` are ASCII.
        (r"\d", "٣", false),
        (r"\w", "é", false),
        (r"^\w+$", "az_AZ09", true),
        (r"\bé", "é", false),
        (r"a\b", "aé", true),
        (r"a\B", "a_", true),
        (r"^\D\W$", "٣é", true),
        // Escapes.
        (r"^\u0041\x42\u{43}\u{000000044}$", "ABCD", true),
        (r"^\u{1F600}$", "😀", true),
        (r"^\uD83D\uDE00$", "😀", true),
        (r"^[\uD83D\uDE00]$", "😀", true),
        (r"^\cJ\cj$", "\n\n", true),
        (r"^\0$", "\0", true),
        (r"^\f\n\r\t\v$", "\x0c\n\r\t\x0b", true),
        (r"^\/\^\$\\\.\*\+\?\(\)\[\]\{\}\|$", r"/^$\.*+?()[]{}|", true),
        ("^a/b$", "a/b", true),
        // Classes.
        ("^[^]$", "\n", true),
        ("[]", "", false),
        ("[]", "anything", false),
        ("^[^]*$", "a\nb", true),
        (r"^[\b]$", "\x08", true),
        (r"^[\-]$", "-", true),
        (r"^[\d\s]+$", "1 2", true),
        (r"^[^\d\s]+$", "ab", true),
        (r"^[^\d\s]+$", "a1", false),
        ("^[--a]$", "0", true),
        ("^[a-b-c]$", "-", true),
        ("^[a-]$", "-", true),
        (r"^[\u{1F600}-\u{1F64F}]$", "🙂", true),
        (r"^[^a]$", "😀", true),
        (r"^[.]$", "x", false),
        (r"^[*+?{}()|$^]+$", "*+?{}()|$^", true),
        // Anchors: no multi-line, and `$` only at the very end.
        ("^a$", "a\n", false),
        ("^b", "a\nb", false),
        ("a$", "a\nb", false),
        // Search, not a whole match.
        ("b", "abc", true),
        ("", "", true),
        ("|", "x", true),
        // Quantifiers, lazy ones, counted ones; verdicts do not depend on greed.
        ("^a{2}$", "aa", true),
        ("^a{2}$", "aaa", false),
        ("^a{2,}$", "aaaa", true),
        ("^a{2,3}$", "aaaa", false),
        ("^a{0}$", "", true),
        ("^a+?b*?c??$", "aab", true),
        ("^a{1,2}?$", "aa", true),
        ("^(?:ab)+$", "abab", true),
        ("^(?<year>[0-9]{4})-(?<m>\\d\\d)$", "2024-05", true),
        ("^(a|b)(c|)$", "a", true),
    ]);
}

#[test]
fn invalid_patterns_are_invalid_as_new_regexp_with_the_u_flag_says() {
    let invalid = [
        "(",
        ")",
        "a)",
        "[a",
        "[",
        "a**",
        "*a",
        "a|*",
        "+",
        "?",
        "{",
        "}",
        "]",
        "a{",
        "a{1",
        "a{,5}",
        "a{2,1}",
        "x{1}{2}",
        "a*??",
        "^*",
        "$+",
        r"\b+",
        r"\B{2}",
        r"\-",
        r"\a",
        r"\e",
        r"\c1",
        r"\c",
        r"\00",
        r"\01",
        r"\x4",
        r"\xg0",
        r"\u12",
        r"\u{}",
        r"\u{110000}",
        r"\u{g}",
        "[z-a]",
        r"[\d-z]",
        r"[a-\w]",
        r"[\B]",
        r"[\c_]",
        r"[\00]",
        r"[\1]",
        "(?<1a>x)",
        "(?<>x)",
        "(?<a x)",
        "(?x)",
        "(?",
        r"\",
        "[\\",
    ];
    let mut failures = Vec::new();
    for p in invalid {
        match Pattern::new(p) {
            Err(PatternError::Invalid { .. }) => {}
            other => failures.push(format!("{p:?}: {other:?}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    let e = Pattern::new("ab(c").unwrap_err();
    assert_eq!(e.to_string(), "invalid: unterminated group (at index 4)");
}

#[test]
fn features_without_a_linear_time_match_are_refused_naming_the_feature() {
    let refused = [
        (r"(a)\1", "backreference"),
        (r"(?<n>a)\k<n>", "backreference"),
        ("(?=a)", "lookahead"),
        ("(?!a)", "lookahead"),
        ("(?<=a)b", "lookbehind"),
        ("(?<!a)b", "lookbehind"),
        (r"\p{L}", r"\p{...}"),
        (r"[\P{Lu}]", r"\p{...}"),
        ("(?i:a)", "modifiers"),
        ("(?-i:a)", "modifiers"),
    ];
    let mut failures = Vec::new();
    for (p, feature) in refused {
        match Pattern::new(p) {
            Err(e @ PatternError::Unsupported(_)) if e.to_string().contains(feature) => {}
            other => failures.push(format!("{p:?}: {other:?}, expected one naming {feature}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    let e = Pattern::new(r"^(\w+)-\1$").unwrap_err();
    assert!(
        e.to_string().starts_with("not supported: backreference"),
        "{e}"
    );
}

#[test]
fn huge_patterns_are_a_clear_error_not_a_crash() {
    let too_large = [
        "a".repeat(MAX_PATTERN_BYTES + 1),
        "a".repeat(1 << 20),
        "(a{1000}){1000}".into(),
        "((a{100}){100}){100}".into(),
        "a{99999999999999999999}".into(),
        format!(
            "{}a{}",
            "(".repeat(MAX_GROUP_DEPTH + 1),
            ")".repeat(MAX_GROUP_DEPTH + 1)
        ),
        format!("{}a{}", "(?:".repeat(10_000), ")".repeat(10_000)),
        format!("{}a{}", "(".repeat(10_000), ")+".repeat(10_000)),
    ];
    for p in &too_large {
        match Pattern::new(p) {
            Err(PatternError::TooLarge(_)) => {}
            other => panic!("{}...: {other:?}", p.get(..40).unwrap_or(p)),
        }
    }
    // Just inside the limits.
    let deep = format!(
        "^{}a{}$",
        "(".repeat(MAX_GROUP_DEPTH),
        ")+".repeat(MAX_GROUP_DEPTH)
    );
    assert!(matches(&deep, "aaa"));
    assert!(matches(
        &"a".repeat(MAX_PATTERN_BYTES),
        &"a".repeat(MAX_PATTERN_BYTES)
    ));
    assert!(matches("^a{1000}$", &"a".repeat(1000)));
    // An empty group repeated any number of times is nothing, as in the browser.
    assert!(matches("^(?:){4294967295}$", ""));
    assert!(matches("x(){0,4294967295}y", "xy"));
}

#[test]
fn lone_surrogates_in_the_internal_form_match_as_the_browser_matches_them() {
    // The JSON layer keeps a lone surrogate of `JSON.parse` as two chars (`E X`); a pattern sees
    // one code point, as `RegExp` with the `u` flag does.
    let lone = internal(r#""a\ud83d""#);
    let low = internal(r#""\ude00b""#);
    verdicts(&[
        ("^a.$", &lone, true),
        ("^a[^x]$", &lone, true),
        (r"^a\S$", &lone, true),
        (r"^a\W$", &lone, true),
        (r"^a[\s\S]$", &lone, true),
        (r"^a[\u0000-\uFFFF]$", &lone, true),
        (r"^a\uD83D$", &lone, true),
        (r"^a[\uD800-\uDBFF]$", &lone, true),
        (r"^a[\uDC00-\uDFFF]$", &lone, false),
        (r"^.b$", &low, true),
        (r"^\uDE00b$", &low, true),
        (r"^a\w$", &lone, false),
        (r"^a\s$", &lone, false),
        ("^a$", &lone, false),
        ("^a..$", &lone, false),
        (r"^a\u{1F600}$", &lone, false),
        (r"a\b", &lone, true),
    ]);
    // U+10FFFF itself (the internal escape char, doubled in the internal form) is one code point.
    let top = internal(r#""\udbff\udfff""#);
    verdicts(&[
        (r"^\u{10FFFF}$", &top, true),
        ("^.$", &top, true),
        ("^..$", &top, false),
    ]);
    // A pattern holding a lone surrogate itself (from JSON text) matches that code point.
    let pattern = internal(r#""^a\ud83d$""#);
    assert!(matches(&pattern, &lone));
    assert!(!matches(&pattern, "a😀"));
}

#[test]
fn the_runtime_s_cache_of_compiled_patterns_is_bounded() {
    let patterns = Patterns::new();
    for i in 0..(3 * MAX_CACHED) {
        let p = format!("^x{i}$");
        assert_eq!(
            patterns.is_match(&p, &format!("x{i}"), &mut { MAX_MATCH_STEPS }),
            Ok(true)
        );
        assert_eq!(
            patterns.is_match(&p, "x", &mut { MAX_MATCH_STEPS }),
            Ok(false)
        );
        assert!(patterns.cached() <= MAX_CACHED);
    }
    assert!(patterns.cached() > 0);
    // Errors are remembered like patterns, and stay errors.
    assert!(matches!(
        patterns.is_match("(", "x", &mut { MAX_MATCH_STEPS }),
        Err(PatternError::Invalid { .. })
    ));
    assert!(matches!(
        patterns.is_match("(", "x", &mut { MAX_MATCH_STEPS }),
        Err(PatternError::Invalid { .. })
    ));
}

#[test]
fn validation_reports_a_refused_pattern_as_a_pattern_violation() {
    let patterns = Patterns::new();
    let v = validate(&value!({"pattern": r"(a)\1"}), &value!("aa"), &patterns).unwrap_err();
    assert_eq!((v.pointer.as_str(), v.rule), ("", "pattern"));
    assert!(
        v.message
            .starts_with(r"the schema's pattern /(a)\1/ is not supported: backreference"),
        "{}",
        v.message
    );
    let v = validate(
        &value!({"patternProperties": {"(?=x)": {}}}),
        &value!({"x": 1}),
        &patterns,
    )
    .unwrap_err();
    assert_eq!((v.pointer.as_str(), v.rule), ("/x", "patternProperties"));
    assert!(v.message.contains("lookahead"), "{}", v.message);
}

#[test]
fn check_schema_refuses_invalid_refused_and_huge_patterns_naming_them() {
    let rows = [
        (
            json!({"properties": {"a": {"type": "string", "pattern": r"^(\w+)\1$"}}}),
            r#""pattern" at "/properties/a": the pattern "^(\\w+)\\1$" is not supported: backreference"#,
        ),
        (
            json!({"patternProperties": {"(?<=x)y": {}}}),
            r#""patternProperties" at the root: the pattern "(?<=x)y" is not supported: lookbehind"#,
        ),
        (
            json!({"properties": {"a": {"items": {"pattern": "(["}}}}),
            r#""pattern" at "/properties/a/items": the pattern "([" is invalid: "#,
        ),
        (
            json!({"properties": {"a": {"pattern": "(a{1000}){1000}"}}}),
            r#""pattern" at "/properties/a": the pattern "(a{1000}){1000}" is too large: "#,
        ),
    ];
    let mut failures = Vec::new();
    for (schema, reason) in rows {
        match check_schema(&ours(schema.clone())) {
            Err(e) if e.starts_with(reason) => {}
            other => failures.push(format!("{schema}: {other:?}, expected {reason}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert_eq!(
        check_schema(&value!({"properties": {"a": {"pattern": r"^\d{4}-\d{2}$"}},
                              "patternProperties": {"^x_": {}}})),
        Ok(())
    );
}

#[test]
fn a_tools_json_entry_with_a_refused_pattern_is_skipped_as_bad_schema() {
    let ctx = ManifestContext {
        manifest_url: "https://app.example/tools/tools.json".into(),
        page_origin: "https://app.example".into(),
        allowed_import_origins: vec![],
    };
    let manifest = json!([
        {
            "tool": {
                "name": "echo_twice",
                "description": "Repeats a word",
                "parameters": {"type": "object",
                               "properties": {"w": {"type": "string", "pattern": r"^(\w+) \1$"}}}
            },
            "importPath": "/tools/echo.js",
            "entrypoint": "run"
        },
        {
            "tool": {
                "name": "date",
                "description": "A date",
                "parameters": {"type": "object",
                               "properties": {"d": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}}}
            },
            "importPath": "/tools/date.js",
            "entrypoint": "run"
        }
    ]);
    let report = parse_manifest(manifest.to_string().as_bytes(), None, &ctx, &Whatwg).unwrap();
    let names: Vec<&str> = report.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["date"]);
    let [d] = report.diagnostics.as_slice() else {
        panic!("{:?}", report.diagnostics)
    };
    assert_eq!(
        (d.index, d.name.as_deref(), d.code),
        (Some(0), Some("echo_twice"), code::BAD_SCHEMA)
    );
    assert!(d.message.contains(r#""^(\\w+) \\1$""#), "{}", d.message);
    assert!(d.message.contains("backreference"), "{}", d.message);

    // registerTool: the same rule, the same code.
    let mut catalog = Catalog::new();
    let refused = catalog
        .register(
            "lookahead",
            "a tool",
            Some(value!({"type": "object", "properties": {"p": {"pattern": "^(?=.*\\d)"}}})),
            None,
            TimeLimit::Default,
            false,
        )
        .unwrap_err();
    assert_eq!(refused.code, code::BAD_SCHEMA);
    assert!(refused.message.contains("lookahead"), "{}", refused.message);
}

// ---- the budget: no match keeps the page busy ------------------------------------------------

/// The worst legal pattern for a budget: 18,001 states, every one of them alive at every `a`.
const EVERY_STATE_ALIVE: &str = "(?:a?){9000}b";

/// The budget's violation: fatal (`budget`), at `pointer`, naming the pattern and the budget.
fn assert_over_budget(v: &chat_runtime::tools::schema::Violation, pointer: &str) {
    assert_eq!((v.pointer.as_str(), v.rule), (pointer, "budget"), "{v}");
    assert!(
        v.message
            .contains(&format!("budget of {MAX_MATCH_STEPS} steps"))
            && v.message.contains("(?:a?){9000}b"),
        "{}",
        v.message
    );
}

#[test]
fn a_legal_pattern_against_an_80_kb_argument_is_a_budget_violation_naming_the_budget() {
    // 80,000 chars × 18,001 states: 1.4 billion steps, 7.7 s of a frozen page in Chromium
    // before the budget.
    assert!(Pattern::new(EVERY_STATE_ALIVE).is_ok(), "a legal pattern");
    let schema = value!({
        "type": "object",
        "properties": {"text": {"type": "string", "pattern": EVERY_STATE_ALIVE}}
    });
    let args = value!({ "text": "a".repeat(80_000) });
    let patterns = Patterns::new();
    assert_over_budget(&validate(&schema, &args, &patterns).unwrap_err(), "/text");
    // Never a silent pass: `not`, `anyOf` and `if` cannot turn it into one.
    for wrapped in [
        value!({"not": {"properties": {"text": {"pattern": EVERY_STATE_ALIVE}}}}),
        value!({"anyOf": [{"properties": {"text": {"pattern": EVERY_STATE_ALIVE}}}, true]}),
        value!({"if": {"properties": {"text": {"pattern": EVERY_STATE_ALIVE}}}, "then": true}),
        value!({"patternProperties": {EVERY_STATE_ALIVE: true}, "additionalProperties": false}),
    ] {
        let key = value!({ "a".repeat(80_000): 1 });
        let args = if wrapped.get("patternProperties").is_some() {
            &key
        } else {
            &args
        };
        let v = validate(&wrapped, args, &patterns).unwrap_err();
        assert_eq!(v.rule, "budget", "{wrapped:?}: {v}");
    }
    // An ordinary pattern on the same 80 KB is well within it.
    let ordinary = value!({"properties": {"text": {"pattern": "^[a-z ]+$"}}});
    assert_eq!(validate(&ordinary, &args, &patterns), Ok(()));
}

#[test]
fn the_budget_is_for_a_whole_validation_not_each_string() {
    // 100 strings of 3,000 chars against a 201-state pattern: each match is within the budget
    // alone (600,000 steps), together they are not.
    let p = "(?:a?){100}b";
    let schema = value!({"type": "array", "items": {"type": "string", "pattern": p}});
    let one = format!("{}b", "a".repeat(3_000));
    let patterns = Patterns::new();
    let few = JsonValue::Array(vec![JsonValue::String(one.clone()); 2]);
    assert_eq!(validate(&schema, &few, &patterns), Ok(()));
    let many = JsonValue::Array(vec![JsonValue::String(one); 100]);
    let v = validate(&schema, &many, &patterns).unwrap_err();
    assert_eq!(v.rule, "budget", "{v}");
    assert!(v.message.contains(&format!("{MAX_MATCH_STEPS}")), "{v}");
}

#[test]
fn a_match_within_its_budget_gets_its_verdict_and_past_it_none() {
    let pattern = Pattern::new("^[a-z]+$").unwrap();
    let text = "a".repeat(1_000);
    let mut left = 1_000_000;
    assert_eq!(
        pattern.is_match_within(&text, &mut left, 1_000_000),
        Ok(true)
    );
    let spent = 1_000_000 - left;
    assert!(spent >= 1_000, "at least a step a char, spent {spent}");
    let mut short = spent - 1;
    assert_eq!(
        pattern.is_match_within(&text, &mut short, spent - 1),
        Err(PatternError::OverBudget { budget: spent - 1 })
    );
    assert!(PatternError::OverBudget { budget: 7 }
        .to_string()
        .contains("budget of 7 steps"));
}

/// A session that matches patterns as the runtime does.
fn patterned_host() -> common::session_host::Harness {
    let mut h = common::session_host::harness();
    h.session = chat_runtime::session::Session::new(
        chat_runtime::session::SessionConfig::default(),
        "x",
        Box::new(Patterns::new()),
    );
    h
}

#[test]
fn a_tool_call_over_the_budget_is_invalid_tool_arguments_and_the_handler_never_runs() {
    use common::session_host::*;
    let echo = tool(
        "echo",
        json!({"type": "object", "properties": {"text": {"type": "string", "pattern": EVERY_STATE_ALIVE}}}),
    );
    let mut h = patterned_host();
    h.start(
        chat_runtime::session::RunRequest {
            thread_id: "t".to_owned(),
            messages: vec![user("u1", "go")],
            ..Default::default()
        },
        tool_set(&[echo], &[], &[]),
    );
    let args = json!({ "text": "a".repeat(80_000) }).to_string();
    h.respond("t", run_with(vec![call("c1", "echo", &args, "a1")]));
    assert!(h.jobs.is_empty(), "the handler never runs");
    let tools = h.tools_sent(1);
    let content = tools[0]["content"].as_str().unwrap();
    assert!(
        content.starts_with("TOOL ERROR: INVALID_TOOL_ARGUMENTS\n")
            && content.contains(&format!("budget of {MAX_MATCH_STEPS} steps"))
            && content.contains("(budget)"),
        "{content}"
    );
}

#[test]
fn an_interrupt_answer_over_the_budget_is_refused_before_it_is_sent() {
    use chat_runtime::session::{RunRequest, SessionError};
    use common::session_host::*;
    // A server's responseSchema and a 40 KB answer: about 7 s of a frozen page before the budget.
    let interrupt = json!({
        "id": "int-1",
        "reason": "input",
        "responseSchema": {
            "type": "object",
            "properties": {"answer": {"type": "string", "pattern": EVERY_STATE_ALIVE}},
            "required": ["answer"]
        }
    });
    let mut h = patterned_host();
    h.start(
        RunRequest {
            thread_id: "t".to_owned(),
            messages: vec![user("u1", "go")],
            ..Default::default()
        },
        chat_runtime::session::ToolSet::default(),
    );
    h.respond(
        "t",
        sse(&[
            started("r1"),
            json!({"type":"RUN_FINISHED","threadId":"t","runId":"r1","outcome":{"type":"interrupt","interrupts":[interrupt]}}),
        ]),
    );
    assert_eq!(h.session.interrupts("t").len(), 1);
    let answer = json!([{"interruptId":"int-1","status":"resolved","payload":{"answer":"a".repeat(40_000)}}]);
    let error = h
        .try_start(RunRequest {
            thread_id: "t".to_owned(),
            resume: from_serde(answer),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(error.code(), "input/invalid");
    match &error {
        SessionError::BadResume {
            violation: Some(v), ..
        } => assert_over_budget(v, "/answer"),
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(h.sent.len(), 1, "nothing was sent");
    assert_eq!(h.session.interrupts("t").len(), 1, "still open");
}
