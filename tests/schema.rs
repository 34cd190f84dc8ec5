//! Tool-argument validation (`tools::schema`): every supported keyword passing and failing, the
//! pointer and rule of the first violation, `$ref` resolution and cycles, limits, messages, and
//! `check_schema` on good and bad tool schemas. Table-driven: (label, schema, args, expected).

mod common;
use common::*;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::tools::pattern::Patterns;
use chat_runtime::tools::schema::{
    check_schema, validate, NoPatterns, PatternMatcher, Violation, MAX_DEPTH,
};
use serde_json::{json, Value};

/// `None`: the arguments are valid. `Some((pointer, rule))`: the first violation.
type Expect = Option<(&'static str, &'static str)>;

const OK: Expect = None;

fn bad(pointer: &'static str, rule: &'static str) -> Expect {
    Some((pointer, rule))
}

/// Runs every row and reports all mismatches at once, with the runtime's own matcher
/// (`tools::pattern`, tested in `tests/pattern.rs`).
fn table(rows: Vec<(&str, Value, Value, Expect)>) {
    table_with(&Patterns::new(), rows);
}

fn table_with(patterns: &dyn PatternMatcher, rows: Vec<(&str, Value, Value, Expect)>) {
    let mut failures = Vec::new();
    for (label, schema, args, expect) in rows {
        let got = validate(&ours(schema), &ours(args), patterns);
        let got_short = got.as_ref().err().map(|v| (v.pointer.as_str(), v.rule));
        if got_short != expect {
            failures.push(format!(
                "{label}: expected {expect:?}, got {:?}",
                got.err().map(|v| v.to_text())
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn violation(schema: Value, args: Value) -> Violation {
    match validate(&ours(schema.clone()), &ours(args.clone()), &Patterns::new()) {
        Err(v) => v,
        Ok(()) => panic!("expected a violation for {args} against {schema}"),
    }
}

#[test]
fn type_accepts_matching_values_and_rejects_others() {
    table(vec![
        ("string ok", json!({"type": "string"}), json!("a"), OK),
        (
            "string vs number",
            json!({"type": "string"}),
            json!(3),
            bad("", "type"),
        ),
        ("number ok for int", json!({"type": "number"}), json!(3), OK),
        (
            "number ok for float",
            json!({"type": "number"}),
            json!(2.5),
            OK,
        ),
        (
            "number vs string",
            json!({"type": "number"}),
            json!("3"),
            bad("", "type"),
        ),
        ("boolean ok", json!({"type": "boolean"}), json!(false), OK),
        (
            "boolean vs 0",
            json!({"type": "boolean"}),
            json!(0),
            bad("", "type"),
        ),
        ("null ok", json!({"type": "null"}), json!(null), OK),
        (
            "null vs empty string",
            json!({"type": "null"}),
            json!(""),
            bad("", "type"),
        ),
        ("array ok", json!({"type": "array"}), json!([]), OK),
        (
            "array vs object",
            json!({"type": "array"}),
            json!({}),
            bad("", "type"),
        ),
        ("object ok", json!({"type": "object"}), json!({}), OK),
        (
            "object vs array",
            json!({"type": "object"}),
            json!([]),
            bad("", "type"),
        ),
        (
            "union first",
            json!({"type": ["string", "null"]}),
            json!("x"),
            OK,
        ),
        (
            "union second",
            json!({"type": ["string", "null"]}),
            json!(null),
            OK,
        ),
        (
            "union miss",
            json!({"type": ["string", "null"]}),
            json!(1),
            bad("", "type"),
        ),
    ]);
}

#[test]
fn integer_is_a_number_without_fractional_part() {
    table(vec![
        ("1", json!({"type": "integer"}), json!(1), OK),
        ("-7", json!({"type": "integer"}), json!(-7), OK),
        (
            "1.0 is an integer",
            json!({"type": "integer"}),
            json!(1.0),
            OK,
        ),
        (
            "1.5 is not",
            json!({"type": "integer"}),
            json!(1.5),
            bad("", "type"),
        ),
        ("u64 max", json!({"type": "integer"}), json!(u64::MAX), OK),
        (
            "1e300 is integral",
            json!({"type": "integer"}),
            json!(1e300),
            OK,
        ),
        (
            "string is not",
            json!({"type": "integer"}),
            json!("1"),
            bad("", "type"),
        ),
    ]);
}

#[test]
fn type_message_names_expected_and_found() {
    let v = violation(json!({"type": "string"}), json!(3));
    assert_eq!(v.message, "expected a string, found a number (3)");
    let v = violation(json!({"type": ["integer", "null"]}), json!(1.5));
    assert_eq!(
        v.message,
        "expected an integer or null, found a number (1.5)"
    );
    let v = violation(json!({"type": "object"}), json!([1]));
    assert_eq!(v.message, "expected an object, found an array");
}

#[test]
fn properties_check_present_values_at_their_pointer() {
    let schema = json!({
        "type": "object",
        "properties": {
            "location": {"type": "string"},
            "days": {"type": "integer"}
        }
    });
    table(vec![
        (
            "all good",
            schema.clone(),
            json!({"location": "Oslo", "days": 3}),
            OK,
        ),
        ("absent is fine", schema.clone(), json!({}), OK),
        (
            "extra allowed by default",
            schema.clone(),
            json!({"x": 1}),
            OK,
        ),
        (
            "bad days",
            schema.clone(),
            json!({"location": "Oslo", "days": "3"}),
            bad("/days", "type"),
        ),
        (
            "bad location",
            schema,
            json!({"location": 1}),
            bad("/location", "type"),
        ),
    ]);
}

#[test]
fn required_points_at_the_missing_property() {
    let schema = json!({
        "type": "object",
        "properties": {"location": {"type": "string"}, "unit": {"type": "string"}},
        "required": ["location", "unit"]
    });
    table(vec![
        (
            "both",
            schema.clone(),
            json!({"location": "x", "unit": "c"}),
            OK,
        ),
        (
            "first missing",
            schema.clone(),
            json!({"unit": "c"}),
            bad("/location", "required"),
        ),
        (
            "second missing",
            schema.clone(),
            json!({"location": "x"}),
            bad("/unit", "required"),
        ),
        (
            "first in required order",
            schema.clone(),
            json!({}),
            bad("/location", "required"),
        ),
        (
            "required before property types",
            schema,
            json!({"location": 1}),
            bad("/unit", "required"),
        ),
        (
            "non-objects ignore required",
            json!({"required": ["a"]}),
            json!("s"),
            OK,
        ),
    ]);
    let v = violation(json!({"required": ["location"]}), json!({}));
    assert_eq!(v.message, "missing required property \"location\"");
    assert_eq!(
        v.to_text(),
        "at \"/location\": missing required property \"location\" (required)"
    );
}

#[test]
fn additional_properties_false_names_the_unexpected_property() {
    let schema = json!({
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "additionalProperties": false
    });
    table(vec![
        ("known only", schema.clone(), json!({"location": "x"}), OK),
        (
            "typo",
            schema.clone(),
            json!({"locaton": "x"}),
            bad("/locaton", "additionalProperties"),
        ),
        (
            "slash in name",
            schema.clone(),
            json!({"a/b": 1}),
            bad("/a~1b", "additionalProperties"),
        ),
        (
            "tilde in name",
            schema.clone(),
            json!({"a~b": 1}),
            bad("/a~0b", "additionalProperties"),
        ),
        (
            "schema form checks extras",
            json!({"properties": {"a": {}}, "additionalProperties": {"type": "number"}}),
            json!({"a": "anything", "b": 1, "c": "no"}),
            bad("/c", "type"),
        ),
        (
            "true allows anything",
            json!({"additionalProperties": true}),
            json!({"z": [1]}),
            OK,
        ),
    ]);
    let v = violation(schema, json!({"locaton": "x"}));
    assert_eq!(
        v.message,
        "unexpected property \"locaton\"; allowed: \"location\""
    );
}

#[test]
fn pattern_properties_and_property_names_apply_to_keys() {
    let schema = json!({
        "patternProperties": {"^x_": {"type": "integer"}},
        "additionalProperties": false
    });
    table(vec![
        (
            "matching key, good value",
            schema.clone(),
            json!({"x_a": 1}),
            OK,
        ),
        (
            "matching key, bad value",
            schema.clone(),
            json!({"x_a": "1"}),
            bad("/x_a", "type"),
        ),
        (
            "non-matching key is additional",
            schema,
            json!({"y": 1}),
            bad("/y", "additionalProperties"),
        ),
        (
            "propertyNames ok",
            json!({"propertyNames": {"maxLength": 3}}),
            json!({"abc": 1}),
            OK,
        ),
        (
            "propertyNames too long",
            json!({"propertyNames": {"maxLength": 3}}),
            json!({"abcd": 1}),
            bad("/abcd", "maxLength"),
        ),
    ]);
}

#[test]
fn no_patterns_skips_pattern_and_pattern_properties() {
    table_with(
        &NoPatterns,
        vec![
            (
                "pattern skipped",
                json!({"pattern": "^a$"}),
                json!("zzz"),
                OK,
            ),
            (
                "patternProperties skipped",
                json!({"patternProperties": {"^x": {"type": "integer"}}}),
                json!({"x": "s"}),
                OK,
            ),
            (
                "additionalProperties not enforced next to patternProperties",
                json!({"patternProperties": {"^x": {}}, "additionalProperties": false}),
                json!({"y": 1}),
                OK,
            ),
            (
                "additionalProperties still enforced without patternProperties",
                json!({"properties": {"a": {}}, "additionalProperties": false}),
                json!({"y": 1}),
                bad("/y", "additionalProperties"),
            ),
        ],
    );
}

#[test]
fn enum_and_const_use_json_equality_where_1_equals_1_0() {
    table(vec![
        ("enum hit", json!({"enum": ["c", "f"]}), json!("f"), OK),
        (
            "enum miss",
            json!({"enum": ["c", "f"]}),
            json!("k"),
            bad("", "enum"),
        ),
        (
            "enum number 1 == 1.0",
            json!({"enum": [1, 2]}),
            json!(1.0),
            OK,
        ),
        ("enum null", json!({"enum": [null]}), json!(null), OK),
        (
            "enum object",
            json!({"enum": [{"a": [1, 2]}]}),
            json!({"a": [1.0, 2]}),
            OK,
        ),
        (
            "enum object miss",
            json!({"enum": [{"a": 1}]}),
            json!({"a": 1, "b": 2}),
            bad("", "enum"),
        ),
        ("const hit", json!({"const": "x"}), json!("x"), OK),
        ("const 1.0 == 1", json!({"const": 1.0}), json!(1), OK),
        (
            "const type matters",
            json!({"const": 1}),
            json!("1"),
            bad("", "const"),
        ),
        (
            "const false vs 0",
            json!({"const": false}),
            json!(0),
            bad("", "const"),
        ),
        (
            "const array order",
            json!({"const": [1, 2]}),
            json!([2, 1]),
            bad("", "const"),
        ),
    ]);
    let v = violation(json!({"enum": ["celsius", "fahrenheit"]}), json!("kelvin"));
    assert_eq!(
        v.message,
        "expected one of \"celsius\", \"fahrenheit\", found \"kelvin\""
    );
}

#[test]
fn numeric_bounds_inclusive_exclusive_and_draft4_boolean_form() {
    table(vec![
        ("minimum equal", json!({"minimum": 1}), json!(1), OK),
        (
            "minimum below",
            json!({"minimum": 1}),
            json!(0.5),
            bad("", "minimum"),
        ),
        ("maximum equal", json!({"maximum": 10}), json!(10.0), OK),
        (
            "maximum above",
            json!({"maximum": 10}),
            json!(11),
            bad("", "maximum"),
        ),
        (
            "exclusiveMinimum above",
            json!({"exclusiveMinimum": 0}),
            json!(0.1),
            OK,
        ),
        (
            "exclusiveMinimum equal",
            json!({"exclusiveMinimum": 0}),
            json!(0),
            bad("", "exclusiveMinimum"),
        ),
        (
            "exclusiveMaximum below",
            json!({"exclusiveMaximum": 5}),
            json!(4.99),
            OK,
        ),
        (
            "exclusiveMaximum equal",
            json!({"exclusiveMaximum": 5}),
            json!(5.0),
            bad("", "exclusiveMaximum"),
        ),
        (
            "draft-04 min strict",
            json!({"minimum": 1, "exclusiveMinimum": true}),
            json!(1),
            bad("", "minimum"),
        ),
        (
            "draft-04 max strict",
            json!({"maximum": 1, "exclusiveMaximum": true}),
            json!(1),
            bad("", "maximum"),
        ),
        (
            "draft-04 false is inclusive",
            json!({"minimum": 1, "exclusiveMinimum": false}),
            json!(1),
            OK,
        ),
        (
            "huge integers compare exactly",
            json!({"maximum": 9007199254740993_u64}),
            json!(9007199254740994_u64),
            bad("", "maximum"),
        ),
        (
            "integers beyond i64 compare exactly",
            json!({"maximum": 18446744073709551614_u64}),
            json!(18446744073709551615_u64),
            bad("", "maximum"),
        ),
        (
            "a negative integer against a bound beyond i64",
            json!({"minimum": 9223372036854775808_u64}),
            json!(-1),
            bad("", "minimum"),
        ),
        (
            "negative",
            json!({"minimum": -5}),
            json!(-6),
            bad("", "minimum"),
        ),
        (
            "non-numbers ignore bounds",
            json!({"minimum": 5}),
            json!("1"),
            OK,
        ),
    ]);
    let v = violation(json!({"minimum": 1}), json!(0));
    assert_eq!(v.message, "expected at least 1, found 0");
}

#[test]
fn multiple_of_integers_and_decimals() {
    table(vec![
        ("10 of 5", json!({"multipleOf": 5}), json!(10), OK),
        (
            "7 of 5",
            json!({"multipleOf": 5}),
            json!(7),
            bad("", "multipleOf"),
        ),
        ("0.3 of 0.1", json!({"multipleOf": 0.1}), json!(0.3), OK),
        (
            "0.35 of 0.1",
            json!({"multipleOf": 0.1}),
            json!(0.35),
            bad("", "multipleOf"),
        ),
        ("4.0 of 2", json!({"multipleOf": 2}), json!(4.0), OK),
        ("1.5 of 0.5", json!({"multipleOf": 0.5}), json!(1.5), OK),
        ("0 of anything", json!({"multipleOf": 3}), json!(0), OK),
        (
            "u64::MAX of 2, exactly",
            json!({"multipleOf": 2}),
            json!(18446744073709551615_u64),
            bad("", "multipleOf"),
        ),
        (
            "u64::MAX of 5, exactly",
            json!({"multipleOf": 5}),
            json!(18446744073709551615_u64),
            OK,
        ),
        (
            "a negative integer of a divisor beyond i64",
            json!({"multipleOf": 9223372036854775808_u64}),
            json!(-5),
            bad("", "multipleOf"),
        ),
    ]);
}

#[test]
fn string_length_counts_code_points() {
    table(vec![
        ("min ok", json!({"minLength": 2}), json!("ab"), OK),
        (
            "min short",
            json!({"minLength": 2}),
            json!("a"),
            bad("", "minLength"),
        ),
        ("max ok", json!({"maxLength": 2}), json!("ab"), OK),
        (
            "max long",
            json!({"maxLength": 2}),
            json!("abc"),
            bad("", "maxLength"),
        ),
        ("emoji is one", json!({"maxLength": 1}), json!("😀"), OK),
        (
            "emoji is not two",
            json!({"minLength": 2}),
            json!("😀"),
            bad("", "minLength"),
        ),
        (
            "accented letters",
            json!({"maxLength": 4}),
            json!("ñandú"),
            bad("", "maxLength"),
        ),
        (
            "non-strings ignore length",
            json!({"minLength": 5}),
            json!(1),
            OK,
        ),
    ]);
    let v = violation(json!({"minLength": 3}), json!("ab"));
    assert_eq!(v.message, "expected at least 3 characters, found 2");
}

#[test]
fn pattern_is_unanchored_and_goes_through_the_matcher() {
    table(vec![
        ("match", json!({"pattern": "^[a-z]+$"}), json!("abc"), OK),
        (
            "no match",
            json!({"pattern": "^[a-z]+$"}),
            json!("abC"),
            bad("", "pattern"),
        ),
        ("unanchored", json!({"pattern": "b"}), json!("abc"), OK),
        (
            "invalid pattern is a violation",
            json!({"pattern": "("}),
            json!("x"),
            bad("", "pattern"),
        ),
        (
            "non-strings ignore pattern",
            json!({"pattern": "^a$"}),
            json!(5),
            OK,
        ),
    ]);
    let v = violation(json!({"pattern": "^\\d+$"}), json!("x1"));
    assert_eq!(
        v.message,
        "expected a string matching /^\\d+$/, found \"x1\""
    );
}

#[test]
fn items_schema_tuple_and_additional_items() {
    table(vec![
        (
            "all items",
            json!({"items": {"type": "integer"}}),
            json!([1, 2, 3]),
            OK,
        ),
        (
            "third item",
            json!({"items": {"type": "integer"}}),
            json!([1, 2, "3"]),
            bad("/2", "type"),
        ),
        (
            "nested pointer",
            json!({"properties": {"items": {"items": {"required": ["name"]}}}}),
            json!({"items": [{"name": 1}, {"name": 2}, {}]}),
            bad("/items/2/name", "required"),
        ),
        (
            "tuple ok",
            json!({"items": [{"type": "string"}, {"type": "integer"}]}),
            json!(["a", 1, null]),
            OK,
        ),
        (
            "tuple second",
            json!({"items": [{"type": "string"}, {"type": "integer"}]}),
            json!(["a", "b"]),
            bad("/1", "type"),
        ),
        (
            "tuple shorter is fine",
            json!({"items": [{"type": "string"}, {"type": "integer"}]}),
            json!(["a"]),
            OK,
        ),
        (
            "additionalItems false",
            json!({"items": [{"type": "string"}], "additionalItems": false}),
            json!(["a", "b"]),
            bad("/1", "additionalItems"),
        ),
        (
            "additionalItems schema",
            json!({"items": [{"type": "string"}], "additionalItems": {"type": "integer"}}),
            json!(["a", 1, "c"]),
            bad("/2", "type"),
        ),
        (
            "prefixItems then items false",
            json!({"prefixItems": [{"type": "string"}], "items": false}),
            json!(["a", "b"]),
            bad("/1", "items"),
        ),
        (
            "prefixItems then items schema",
            json!({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}),
            json!(["a", 2, 3]),
            OK,
        ),
        (
            "non-arrays ignore items",
            json!({"items": {"type": "integer"}}),
            json!("x"),
            OK,
        ),
    ]);
}

#[test]
fn array_size_uniqueness_and_contains() {
    table(vec![
        ("minItems ok", json!({"minItems": 1}), json!([0]), OK),
        (
            "minItems short",
            json!({"minItems": 1}),
            json!([]),
            bad("", "minItems"),
        ),
        ("maxItems ok", json!({"maxItems": 2}), json!([0, 1]), OK),
        (
            "maxItems long",
            json!({"maxItems": 2}),
            json!([0, 1, 2]),
            bad("", "maxItems"),
        ),
        (
            "unique ok",
            json!({"uniqueItems": true}),
            json!([1, "1", [1], {"a": 1}]),
            OK,
        ),
        (
            "duplicate points at the later one",
            json!({"uniqueItems": true}),
            json!([1, 2, 1.0]),
            bad("/2", "uniqueItems"),
        ),
        (
            "duplicate objects",
            json!({"uniqueItems": true}),
            json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}]),
            bad("/1", "uniqueItems"),
        ),
        (
            "uniqueItems false allows duplicates",
            json!({"uniqueItems": false}),
            json!([1, 1]),
            OK,
        ),
        (
            "contains hit",
            json!({"contains": {"const": 3}}),
            json!([1, 3]),
            OK,
        ),
        (
            "contains miss",
            json!({"contains": {"const": 3}}),
            json!([1, 2]),
            bad("", "contains"),
        ),
    ]);
    assert_eq!(
        violation(json!({"maxItems": 1}), json!([1, 2])).message,
        "expected at most 1 item, found 2"
    );
}

#[test]
fn object_size_bounds() {
    table(vec![
        (
            "minProperties ok",
            json!({"minProperties": 1}),
            json!({"a": 1}),
            OK,
        ),
        (
            "minProperties short",
            json!({"minProperties": 1}),
            json!({}),
            bad("", "minProperties"),
        ),
        (
            "maxProperties ok",
            json!({"maxProperties": 1}),
            json!({"a": 1}),
            OK,
        ),
        (
            "maxProperties long",
            json!({"maxProperties": 1}),
            json!({"a": 1, "b": 2}),
            bad("", "maxProperties"),
        ),
    ]);
}

#[test]
fn combinators_all_any_one_not_and_if() {
    let two = json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]});
    table(vec![
        (
            "allOf ok",
            json!({"allOf": [{"type": "integer"}, {"minimum": 0}]}),
            json!(3),
            OK,
        ),
        (
            "allOf second fails",
            json!({"allOf": [{"type": "integer"}, {"minimum": 0}]}),
            json!(-1),
            bad("", "minimum"),
        ),
        (
            "anyOf first",
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            json!("x"),
            OK,
        ),
        (
            "anyOf second",
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            json!(null),
            OK,
        ),
        (
            "anyOf none",
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            json!(1),
            bad("", "anyOf"),
        ),
        (
            "anyOf nested reports at the instance",
            json!({"properties": {"when": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}),
            json!({"when": 1.5}),
            bad("/when", "anyOf"),
        ),
        ("oneOf exactly one", two.clone(), json!(-3), OK),
        ("oneOf both", two.clone(), json!(3), bad("", "oneOf")),
        ("oneOf none", two, json!(-1.5), bad("", "oneOf")),
        ("not ok", json!({"not": {"type": "string"}}), json!(1), OK),
        (
            "not violated",
            json!({"not": {"type": "string"}}),
            json!("s"),
            bad("", "not"),
        ),
        (
            "if then",
            json!({"if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["a"]}, "else": {"required": ["b"]}}),
            json!({"kind": "a"}),
            bad("/a", "required"),
        ),
        (
            "if else",
            json!({"if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["a"]}, "else": {"required": ["b"]}}),
            json!({"kind": "z"}),
            bad("/b", "required"),
        ),
        (
            "if without then",
            json!({"if": {"const": 1}, "else": {"const": 2}}),
            json!(1),
            OK,
        ),
    ]);
}

#[test]
fn any_of_messages_name_the_alternatives_or_the_closest_branch() {
    let v = violation(
        json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
        json!(1),
    );
    assert_eq!(
        v.message,
        "no schema in anyOf matched: expected a string or null, found a number (1)"
    );
    let v = violation(
        json!({"anyOf": [
            {"type": "string"},
            {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
        ]}),
        json!({"city": 5}),
    );
    assert_eq!(v.rule, "anyOf");
    assert_eq!(v.pointer, "");
    assert_eq!(
        v.message,
        "no schema in anyOf matched; the closest, branch 2 of 2, failed type at \"/city\": expected a string, found a number (5)"
    );
    let v = violation(
        json!({"oneOf": [{"minimum": 0}, {"type": "integer"}]}),
        json!(2),
    );
    assert_eq!(
        v.message,
        "expected exactly one schema in oneOf to match, but branches 1 and 2 of 2 both match"
    );
}

#[test]
fn boolean_schemas_accept_or_reject_everything() {
    table(vec![
        ("true root", json!(true), json!({"a": 1}), OK),
        ("false root", json!(false), json!({}), bad("", "false")),
        (
            "false property",
            json!({"properties": {"x": false}}),
            json!({"x": 1}),
            bad("/x", "false"),
        ),
        (
            "false property absent",
            json!({"properties": {"x": false}}),
            json!({}),
            OK,
        ),
        ("true items", json!({"items": true}), json!([1, "a"]), OK),
        ("not true", json!({"not": true}), json!(1), bad("", "not")),
        ("empty schema", json!({}), json!([null]), OK),
    ]);
}

#[test]
fn local_refs_resolve_definitions_defs_and_escaped_pointers() {
    table(vec![
        (
            "definitions",
            json!({"properties": {"p": {"$ref": "#/definitions/pos"}}, "definitions": {"pos": {"minimum": 0}}}),
            json!({"p": -1}),
            bad("/p", "minimum"),
        ),
        (
            "$defs",
            json!({"properties": {"p": {"$ref": "#/$defs/pos"}}, "$defs": {"pos": {"minimum": 0}}}),
            json!({"p": 1}),
            OK,
        ),
        (
            "escaped names ~1 and ~0",
            json!({"properties": {"p": {"$ref": "#/$defs/a~1b~0c"}}, "$defs": {"a/b~c": {"type": "string"}}}),
            json!({"p": 1}),
            bad("/p", "type"),
        ),
        (
            "percent-encoded",
            json!({"properties": {"p": {"$ref": "#/$defs/my%20type"}}, "$defs": {"my type": {"type": "string"}}}),
            json!({"p": 1}),
            bad("/p", "type"),
        ),
        (
            "ref into properties",
            json!({"properties": {"a": {"type": "string"}, "b": {"$ref": "#/properties/a"}}}),
            json!({"b": 2}),
            bad("/b", "type"),
        ),
        (
            "recursive tree through # consumes input",
            json!({"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}}}),
            json!({"name": "a", "children": [{"name": "b", "children": [{"name": 3}]}]}),
            bad("/children/0/children/0/name", "type"),
        ),
        (
            "chained refs",
            json!({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"type": "integer"}}}),
            json!(1.5),
            bad("", "type"),
        ),
        (
            "unresolvable",
            json!({"$ref": "#/$defs/missing"}),
            json!(1),
            bad("", "$ref"),
        ),
        (
            "remote is unresolvable",
            json!({"$ref": "https://example.com/s.json"}),
            json!(1),
            bad("", "$ref"),
        ),
    ]);
}

#[test]
fn ref_cycles_and_deep_nesting_stop_with_a_violation_not_a_stack_overflow() {
    table(vec![
        ("self ref", json!({"$ref": "#"}), json!({}), bad("", "$ref")),
        (
            "two-step cycle",
            json!({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}),
            json!(1),
            bad("", "$ref"),
        ),
        (
            "cycle through allOf",
            json!({"allOf": [{"$ref": "#"}]}),
            json!(1),
            bad("", "$ref"),
        ),
        (
            "branching cycle is caught at once, not after 2^64 steps",
            json!({"anyOf": [{"$ref": "#"}, {"$ref": "#"}]}),
            json!(1),
            bad("", "$ref"),
        ),
        (
            "cycle under not cannot make not succeed",
            json!({"not": {"$ref": "#"}}),
            json!(1),
            bad("", "$ref"),
        ),
        (
            "cycle behind a matching anyOf branch is not reached",
            json!({"anyOf": [{"type": "string"}, {"$ref": "#"}]}),
            json!("s"),
            OK,
        ),
    ]);
    // Arguments nested deeper than the limit, through a recursive schema.
    let mut args = json!(1);
    for _ in 0..MAX_DEPTH + 5 {
        args = json!([args]);
    }
    let schema = json!({"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#"}}]});
    let v = violation(schema, args);
    assert_eq!(v.rule, "depth");
    // A schema literally nested deeper than the limit.
    let mut schema = json!({"type": "integer"});
    for _ in 0..MAX_DEPTH + 5 {
        schema = json!({"allOf": [schema]});
    }
    assert_eq!(violation(schema.clone(), json!("x")).rule, "depth");
    assert!(check_schema(&ours(
        json!({"type": "object", "properties": {"x": schema}})
    ))
    .is_err());
}

#[test]
fn exponential_schemas_stop_at_the_work_budget() {
    // Each level doubles the work: anyOf with two branches that both fail deep down. The
    // schema itself stays small: level i refers to level i - 1 twice.
    let mut defs = serde_json::Map::new();
    defs.insert("l0".into(), json!({"type": "string"}));
    for i in 1..=18 {
        let below = format!("#/$defs/l{}", i - 1);
        defs.insert(
            format!("l{i}"),
            json!({"anyOf": [{"items": {"$ref": below}}, {"items": {"$ref": below}}]}),
        );
    }
    let schema = json!({"$ref": "#/$defs/l18", "$defs": defs});
    let mut args = json!(1);
    for _ in 0..18 {
        args = json!([args]);
    }
    assert_eq!(violation(schema, args).rule, "budget");
}

#[test]
fn keywords_are_checked_in_a_fixed_order() {
    // type before enum, required before properties, properties before additionalProperties,
    // own keywords before combinators.
    table(vec![
        (
            "type before enum",
            json!({"enum": ["a"], "type": "string"}),
            json!(1),
            bad("", "type"),
        ),
        (
            "minLength before pattern",
            json!({"pattern": "^a+$", "minLength": 3}),
            json!("b"),
            bad("", "minLength"),
        ),
        (
            "properties before additionalProperties",
            json!({"properties": {"a": {"type": "string"}}, "additionalProperties": false}),
            json!({"a": 1, "b": 2}),
            bad("/a", "type"),
        ),
        (
            "own keywords before allOf",
            json!({"allOf": [{"minimum": 5}], "maximum": 1}),
            json!(3),
            bad("", "maximum"),
        ),
    ]);
}

#[test]
fn unknown_keywords_and_malformed_keyword_values_are_ignored_by_validate() {
    table(vec![
        (
            "annotations",
            json!({"title": "t", "description": "d", "format": "email", "default": 1, "examples": [1], "x-custom": {}}),
            json!("not an email"),
            OK,
        ),
        (
            "minLength as string",
            json!({"minLength": "3"}),
            json!("a"),
            OK,
        ),
        (
            "schema that is a number",
            json!({"properties": {"a": 3}}),
            json!({"a": 1}),
            OK,
        ),
    ]);
}

#[test]
fn to_text_is_one_line_with_pointer_message_and_rule() {
    let v = violation(
        json!({"properties": {"a/b": {"type": "string"}}}),
        json!({"a/b": 1}),
    );
    assert_eq!(
        v.to_text(),
        "at \"/a~1b\": expected a string, found a number (1) (type)"
    );
    assert_eq!(v.to_string(), v.to_text());
    let v = violation(json!({"type": "object"}), json!("line\nbreak"));
    assert!(!v.to_text().contains('\n'), "{}", v.to_text());
}

#[test]
fn a_realistic_tool_schema_accepts_good_calls_and_rejects_bad_ones() {
    let schema = json!({
        "type": "object",
        "properties": {
            "location": {"type": "string", "minLength": 1, "description": "city name"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "hours": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 23}, "uniqueItems": true}
        },
        "required": ["location"],
        "additionalProperties": false
    });
    assert!(check_schema(&ours(schema.clone())).is_ok());
    table(vec![
        (
            "good",
            schema.clone(),
            json!({"location": "Oslo", "unit": "celsius", "days": 3, "hours": [6, 18]}),
            OK,
        ),
        ("minimal", schema.clone(), json!({"location": "Oslo"}), OK),
        (
            "empty location",
            schema.clone(),
            json!({"location": ""}),
            bad("/location", "minLength"),
        ),
        (
            "bad unit",
            schema.clone(),
            json!({"location": "x", "unit": "kelvin"}),
            bad("/unit", "enum"),
        ),
        (
            "days 1.0 ok",
            schema.clone(),
            json!({"location": "x", "days": 1.0}),
            OK,
        ),
        (
            "days 15",
            schema.clone(),
            json!({"location": "x", "days": 15}),
            bad("/days", "maximum"),
        ),
        (
            "hour 24",
            schema.clone(),
            json!({"location": "x", "hours": [1, 24]}),
            bad("/hours/1", "maximum"),
        ),
        ("args not an object", schema, json!("Oslo"), bad("", "type")),
    ]);
}

#[test]
fn check_schema_accepts_well_formed_tool_schemas() {
    let good = [
        json!({}),
        json!({"type": "object"}),
        json!({"type": "object", "properties": {}}),
        json!({"type": "object", "properties": {"a": true, "b": false, "c": {"type": ["string", "null"]}}}),
        json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/p"}}, "$defs": {"p": {"type": "object", "properties": {"next": {"$ref": "#/$defs/p"}}}}}),
        json!({"type": "object", "properties": {"t": {"$ref": "#"}}}),
        json!({"properties": {"n": {"minimum": 0, "exclusiveMaximum": 10, "multipleOf": 0.5}}}),
        json!({"properties": {"n": {"minimum": 0, "exclusiveMinimum": true}}}),
        json!({"properties": {"s": {"minLength": 1, "maxLength": 2.0, "pattern": "^a", "format": "date"}}}),
        json!({"properties": {"a": {"items": [{}, true], "additionalItems": false, "minItems": 0, "uniqueItems": true}}}),
        json!({"properties": {"a": {"prefixItems": [{}], "items": false, "contains": {}}}}),
        json!({"anyOf": [{"required": ["a"]}, {"required": ["b"]}], "not": {"required": ["c"]}}),
        json!({"if": {}, "then": {}, "else": {}, "propertyNames": {"pattern": "^[a-z]+$"}}),
        json!({"patternProperties": {"^x": {}}, "additionalProperties": {"type": "string"}, "minProperties": 1}),
        json!({"definitions": {"x": {}}, "properties": {"a": {"$ref": "#/definitions/x"}}}),
        json!({"properties": {"a": {"enum": [1, "a", null], "const": {"any": "value"}}}}),
        json!({"x-vendor": {"minLength": "not checked"}, "default": {"type": 5}}),
    ];
    for schema in good {
        assert_eq!(check_schema(&ours(schema.clone())), Ok(()), "{schema}");
    }
}

#[test]
fn check_schema_rejects_malformed_tool_schemas_with_a_reason() {
    let bad_schemas = [
        (json!(null), "parameters must be a JSON object"),
        (json!(true), "parameters must be a JSON object"),
        (json!([]), "parameters must be a JSON object"),
        (json!({"type": "string"}), "parameters must describe an object"),
        (json!({"type": ["object", "null"]}), "parameters must describe an object"),
        (json!({"properties": []}), "\"properties\" at the root must be an object of schemas"),
        (json!({"properties": {"a": 1}}), "the schema at \"/properties/a\" must be an object or a boolean"),
        (json!({"properties": {"a": {"type": "str"}}}), "\"type\" at \"/properties/a\" must be one of"),
        (json!({"properties": {"a": {"type": []}}}), "\"type\" at \"/properties/a\""),
        (json!({"required": "a"}), "\"required\" at the root must be an array of strings"),
        (json!({"required": ["a", 1]}), "\"required\""),
        (json!({"properties": {"a": {"minLength": -1}}}), "\"minLength\" at \"/properties/a\" must be a non-negative integer, found a number (-1)"),
        (json!({"properties": {"a": {"maxItems": 1.5}}}), "\"maxItems\""),
        (json!({"properties": {"a": {"pattern": 5}}}), "\"pattern\" at \"/properties/a\" must be a string"),
        (json!({"properties": {"a": {"minimum": "0"}}}), "\"minimum\""),
        (json!({"properties": {"a": {"exclusiveMaximum": "0"}}}), "\"exclusiveMaximum\""),
        (json!({"properties": {"a": {"multipleOf": 0}}}), "\"multipleOf\""),
        (json!({"properties": {"a": {"enum": []}}}), "\"enum\""),
        (json!({"properties": {"a": {"uniqueItems": "yes"}}}), "\"uniqueItems\""),
        (json!({"anyOf": []}), "\"anyOf\" at the root must be a non-empty array of schemas"),
        (json!({"allOf": {}}), "\"allOf\""),
        (json!({"properties": {"a": {"items": 3}}}), "\"/properties/a/items\""),
        (json!({"properties": {"a": {"items": [{}, 3]}}}), "\"/properties/a/items/1\""),
        (json!({"additionalProperties": "no"}), "\"/additionalProperties\""),
        (json!({"not": 1}), "\"/not\""),
        (json!({"$defs": {"a": 1}}), "\"/$defs/a\""),
        (json!({"properties": {"a": {"$ref": 1}}}), "\"$ref\" at \"/properties/a\" must be a string"),
        (json!({"properties": {"a": {"$ref": "#/$defs/missing"}}}), "$ref \"#/$defs/missing\" does not resolve"),
        (json!({"properties": {"a": {"$ref": "other.json#/x"}}}), "is not local"),
        (json!({"properties": {"a": {"$ref": "#/required"}}, "required": []}), "not to a schema"),
        (json!({"type": "object", "$ref": "#"}), "cycle"),
        (json!({"properties": {"a": {"$ref": "#/$defs/b"}}, "$defs": {"b": {"$ref": "#/$defs/c"}, "c": {"$ref": "#/$defs/b"}}}), "cycle"),
        (json!({"properties": {"a~b/c": {"minLength": "x"}}}), "\"/properties/a~0b~1c\""),
    ];
    let mut failures = Vec::new();
    for (schema, reason) in bad_schemas {
        match check_schema(&ours(schema.clone())) {
            Ok(()) => failures.push(format!("{schema}: accepted")),
            Err(e) if !e.contains(reason) => {
                failures.push(format!("{schema}: {e:?} does not contain {reason:?}"))
            }
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn no_input_makes_validate_panic() {
    // A grab bag of odd schemas and values; the point is only that nothing panics.
    let schemas = [
        json!({"type": 5, "enum": "x", "const": null, "minimum": "a", "multipleOf": 0, "items": 1}),
        json!({"multipleOf": -1, "required": [1, null], "properties": [], "pattern": 3}),
        json!({"$ref": "#/%zz"}),
        json!({"$ref": "#/%"}),
        json!({"$ref": "#/%ff%fe"}),
        json!({"$ref": ""}),
        json!({"oneOf": [], "anyOf": [], "allOf": [], "not": 3}),
        json!({"minLength": 1e300, "maxItems": -1, "multipleOf": 1e-300}),
        json!({"prefixItems": 5, "items": [false], "additionalItems": false}),
        json!({"patternProperties": {"(": {}}, "additionalProperties": false}),
    ];
    let values = [
        json!(null),
        json!(1e308),
        json!(-1e308),
        json!(i64::MIN),
        json!(u64::MAX),
        json!("😀\u{0}"),
        json!([1, [2, [3]], {"a": null}]),
        json!({"": 1, "/": 2, "~": 3}),
    ];
    for schema in schemas.map(ours) {
        let _ = check_schema(&schema);
        for value in values.clone().map(ours) {
            let _ = validate(&schema, &value, &Patterns::new());
            let _ = validate(&schema, &value, &NoPatterns);
        }
    }
}
