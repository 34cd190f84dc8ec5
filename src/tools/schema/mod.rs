//! Tool-argument validation against a tool's JSON Schema (`parameters`).
//!
//! Before a frontend tool's handler runs, its parsed arguments go through [`validate`]. The first
//! violation becomes an `INVALID_TOOL_ARGUMENTS` result for the model (see [`Violation::to_text`])
//! and the handler is not called. [`check_schema`] vets a schema once, when the catalog loads.
//!
//! This is a deliberately small validator (every byte ships in the wasm binary). It covers the
//! keywords tool schemas use in practice (drafts 04 to 2020-12, as written by pydantic, zod and
//! hand):
//!
//! - any value: `type` (a name or an array of names; `integer` is a number without a fractional
//!   part, so `1.0` is one), `enum`, `const` (JSON equality, `1 == 1.0`), boolean schemas,
//!   local `$ref` (`#`, `#/definitions/x`, `#/$defs/x`, any JSON pointer with `~0`/`~1` escapes,
//!   percent-encoded or not), `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`;
//! - numbers: `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (the draft-06+ number
//!   form and the draft-04 / OpenAPI 3.0 boolean form), `multipleOf`;
//! - strings: `minLength`, `maxLength` (in Unicode code points), `pattern` (through a
//!   [`PatternMatcher`]: the runtime's is [`Patterns`](super::pattern::Patterns), ECMA-262
//!   patterns matched in linear time);
//! - arrays: `items` (a schema, or an array of schemas = a tuple, draft-07 style), `additionalItems`,
//!   `prefixItems`, `minItems`, `maxItems`, `uniqueItems`, `contains`;
//! - objects: `properties`, `required`, `additionalProperties` (boolean or schema),
//!   `patternProperties`, `propertyNames`, `minProperties`, `maxProperties`.
//!
//! Not supported: remote or `$id`/`$anchor`-based references, `$dynamicRef`,
//! `unevaluatedProperties`/`unevaluatedItems`, `dependentRequired`/`dependentSchemas`/
//! `dependencies`, `minContains`/`maxContains`, `format` (an annotation only, as by default in JSON
//! Schema). Unknown keywords (`description`, `title`, `default`, `examples`, ...) are ignored.
//!
//! **Order.** Keywords are checked in one fixed order, whatever order the schema was written in,
//! which makes the first violation deterministic: `$ref`, `type`, `enum`, `const`; then for numbers `minimum`, `exclusiveMinimum`,
//! `maximum`, `exclusiveMaximum`, `multipleOf`; strings `minLength`, `maxLength`, `pattern`; arrays
//! `minItems`, `maxItems`, `uniqueItems`, `prefixItems`/`items`/`additionalItems`, `contains`;
//! objects `required` (in its array order), `minProperties`, `maxProperties`, `properties`,
//! `patternProperties`, `additionalProperties`, `propertyNames`; then `allOf`, `anyOf`, `oneOf`,
//! `not`, `if`. Properties and array items are visited in map / index order.
//!
//! **Limits.** No input makes [`validate`] panic or recurse without bound: a `$ref` cycle that
//! never consumes input (`{"$ref": "#"}`) is reported as a `$ref` violation, more than
//! [`MAX_DEPTH`] nested schema levels as a `depth` violation, and more than [`MAX_STEPS`] steps of
//! work (exponential `anyOf` nesting, huge `uniqueItems` arrays) as a `budget` violation, and so
//! is a `pattern` or `patternProperties` match past [`MAX_MATCH_STEPS`] (all the matches of one
//! call together; the steps are the matcher's threads at each char, at most states × characters).

use std::cmp::Ordering;
use std::fmt;

mod check;

pub use super::pattern::{NoPatterns, PatternMatcher, MAX_MATCH_STEPS};
pub use check::check_schema;

use super::pattern::PatternError;
use super::push;
use crate::json::{push_i64, write_str, Map, Number, Value};

/// How many schema levels may apply inside one another (through `$ref`, combinators, properties
/// and items) before validation stops with a `depth` violation.
pub const MAX_DEPTH: usize = 64;

/// How many units of work (one per schema applied to a value, one per `uniqueItems` comparison)
/// one [`validate`] call may spend before it stops with a `budget` violation.
pub const MAX_STEPS: u32 = 250_000;

/// The first way the arguments break the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer (RFC 6901) of the offending value in the arguments: `""` for the root,
    /// `"/location"`, `"/items/2/name"`. For a missing required property, the pointer the property
    /// would have; for an unexpected property, the property's own pointer.
    pub pointer: String,
    /// The keyword that failed: `"type"`, `"required"`, `"additionalProperties"`, `"enum"`,
    /// `"pattern"`, ...; `"false"` for a `false` schema; `"depth"` and `"budget"` when a limit
    /// stopped validation (see the module docs).
    pub rule: &'static str,
    /// What was expected and what was found, lower-case, e.g. `expected a string, found a number
    /// (3)` or `missing required property "location"`.
    pub message: String,
}

impl Violation {
    /// One line a model can act on: `at "/location": missing required property "location"
    /// (required)`.
    pub fn to_text(&self) -> String {
        format!(
            "at {}: {} ({})",
            quote(&self.pointer),
            self.message,
            self.rule
        )
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

impl std::error::Error for Violation {}

/// Checks `args` against `schema`; returns the first violation (in the fixed keyword order of the
/// module docs, so the answer is deterministic).
///
/// Keywords whose values have the wrong JSON type are ignored here: [`check_schema`] rejects them
/// when the catalog loads. A `$ref` that does not resolve is a `$ref` violation.
pub fn validate(
    schema: &Value,
    args: &Value,
    patterns: &dyn PatternMatcher,
) -> Result<(), Violation> {
    let mut v = Validator {
        root: schema,
        patterns,
        pointer: String::new(),
        stack: Vec::new(),
        steps: 0,
        pattern_steps: MAX_MATCH_STEPS,
    };
    v.check(schema, args).map_err(|fail| match fail {
        Fail::Invalid(v) | Fail::Fatal(v) => v,
    })
}

/// Why validation stopped.
enum Fail {
    /// The arguments break the schema; a combinator (`anyOf`, `not`, ...) may still accept that.
    Invalid(Violation),
    /// A limit was hit (cycle, depth, budget): stop everything, whatever the combinators say.
    Fatal(Violation),
}

type Checked = Result<(), Fail>;

struct Validator<'s, 'p> {
    /// The whole schema, for resolving `$ref`.
    root: &'s Value,
    /// How patterns are matched.
    patterns: &'p dyn PatternMatcher,
    /// JSON pointer of the value being checked; segments are pushed and truncated as we descend.
    pointer: String,
    /// (schema, value) pairs being checked, innermost last: the same pair twice is a cycle that
    /// consumes no input, and the length is the nesting depth.
    stack: Vec<(*const Value, *const Value)>,
    /// Work done so far, against [`MAX_STEPS`].
    steps: u32,
    /// What is left of the patterns' budget, [`MAX_MATCH_STEPS`] for all of them together.
    pattern_steps: u64,
}

impl Validator<'_, '_> {
    #[inline(never)]
    fn invalid(&self, rule: &'static str, message: String) -> Checked {
        Err(Fail::Invalid(Violation {
            pointer: self.pointer.clone(),
            rule,
            message,
        }))
    }

    /// [`Self::invalid`] at the child `key` (a property name or an item index) of the pointer.
    #[inline(never)]
    fn invalid_at(&mut self, key: &str, rule: &'static str, message: String) -> Checked {
        let at = self.pointer.len();
        push_key(&mut self.pointer, key);
        let r = self.invalid(rule, message);
        self.pointer.truncate(at);
        r
    }

    #[inline(never)]
    fn fatal(&self, rule: &'static str, message: String) -> Fail {
        Fail::Fatal(Violation {
            pointer: self.pointer.clone(),
            rule,
            message,
        })
    }

    fn tick(&mut self, n: u32) -> Checked {
        self.steps = self.steps.saturating_add(n);
        if self.steps > MAX_STEPS {
            return Err(self.fatal(
                "budget",
                "the arguments are too large or the schema too complex to check".into(),
            ));
        }
        Ok(())
    }

    /// Checks `value` (at `self.pointer`) against `schema`.
    fn check(&mut self, schema: &Value, value: &Value) -> Checked {
        let s = match schema {
            Value::Object(s) => s,
            Value::Bool(false) => {
                return self.invalid("false", "no value is allowed here".into());
            }
            // `true`, or not a schema at all (rejected by `check_schema`).
            _ => return Ok(()),
        };
        self.tick(1)?;
        let key = (schema as *const Value, value as *const Value);
        if self.stack.contains(&key) {
            return Err(self.fatal(
                "$ref",
                "the schema refers back to itself without consuming any input (a $ref cycle)"
                    .into(),
            ));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.fatal(
                "depth",
                format!("more than {MAX_DEPTH} levels of schema apply here"),
            ));
        }
        self.stack.push(key);
        let result = self.check_keywords(s, value);
        self.stack.pop();
        result
    }

    fn check_keywords(&mut self, s: &Map, value: &Value) -> Checked {
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let root = self.root;
            match resolve(root, r) {
                Some(target) => self.check(target, value)?,
                None => {
                    return self.invalid(
                        "$ref",
                        format!("the schema's $ref {} does not resolve", quote(r)),
                    )
                }
            }
        }
        if let Some(t) = s.get("type") {
            let names: &[Value] = match t {
                Value::Array(a) => a,
                one => std::slice::from_ref(one),
            };
            let ok = names
                .iter()
                .any(|n| n.as_str().is_some_and(|n| type_matches(n, value)));
            if !ok {
                let mut message = String::from("expected ");
                for (i, n) in names.iter().filter_map(Value::as_str).enumerate() {
                    if i > 0 {
                        push(&mut message, " or ");
                    }
                    push(&mut message, type_phrase(n));
                }
                push(&mut message, ", found ");
                push(&mut message, &describe(value));
                return self.invalid("type", message);
            }
        }
        if let Some(options) = s.get("enum").and_then(Value::as_array) {
            if !options.iter().any(|o| o == value) {
                let mut message = String::from("expected one of ");
                for (i, o) in options.iter().enumerate() {
                    if i > 0 {
                        push(&mut message, ", ");
                    }
                    if i == 10 {
                        push(&mut message, "...");
                        break;
                    }
                    push(&mut message, &show(o));
                }
                push(&mut message, ", found ");
                push(&mut message, &show(value));
                return self.invalid("enum", message);
            }
        }
        if let Some(c) = s.get("const") {
            if c != value {
                return self.invalid(
                    "const",
                    format!("expected exactly {}, found {}", show(c), show(value)),
                );
            }
        }
        match value {
            Value::Number(n) => self.check_number(s, n)?,
            Value::String(text) => self.check_string(s, text)?,
            Value::Array(items) => self.check_array(s, items)?,
            Value::Object(props) => self.check_object(s, props)?,
            _ => {}
        }
        self.check_combinators(s, value)
    }

    fn check_number(&mut self, s: &Map, n: &Number) -> Checked {
        let bound = |k: &str| s.get(k).and_then(Value::as_number);
        // (rule, an upper bound?, the draft-04 / OpenAPI 3.0 flag that makes it strict)
        // A static table: the loop reads it rather than building the tuples on the stack.
        static BOUNDS: [(&str, bool, &str); 4] = [
            ("minimum", false, "exclusiveMinimum"),
            ("exclusiveMinimum", false, ""),
            ("maximum", true, "exclusiveMaximum"),
            ("exclusiveMaximum", true, ""),
        ];
        for &(rule, upper, flag) in &BOUNDS {
            let Some(b) = bound(rule) else { continue };
            let strict = flag.is_empty() || s.get(flag) == Some(&Value::Bool(true));
            let Some(o) = cmp_num(n, b) else { continue };
            let o = if upper { o.reverse() } else { o };
            if o.is_lt() || (strict && o.is_eq()) {
                let what = match (upper, strict) {
                    (false, false) => "at least",
                    (false, true) => "more than",
                    (true, false) => "at most",
                    (true, true) => "less than",
                };
                return self.invalid(rule, format!("expected {what} {b}, found {n}"));
            }
        }
        if let Some(m) = bound("multipleOf") {
            if !is_multiple(n, m) {
                return self.invalid(
                    "multipleOf",
                    format!("expected a multiple of {m}, found {n}"),
                );
            }
        }
        Ok(())
    }

    /// `minLength`/`maxLength`, `minItems`/`maxItems` or `minProperties`/`maxProperties`
    /// (`rules`) against a length `len` of `noun`s.
    #[inline(never)]
    fn check_len(&self, s: &Map, rules: [&'static str; 2], len: u64, noun: &str) -> Checked {
        for (rule, least) in [(rules[0], true), (rules[1], false)] {
            if let Some(b) = s.get(rule).and_then(count) {
                if if least { len < b } else { len > b } {
                    let what = if least { "at least" } else { "at most" };
                    return self.invalid(
                        rule,
                        format!("expected {what} {}, found {len}", plural(b, noun)),
                    );
                }
            }
        }
        Ok(())
    }

    fn check_string(&mut self, s: &Map, text: &str) -> Checked {
        if s.contains_key("minLength") || s.contains_key("maxLength") {
            let len = text.chars().count() as u64;
            self.check_len(s, ["minLength", "maxLength"], len, "character")?;
        }
        if let Some(p) = s.get("pattern").and_then(Value::as_str) {
            if self.patterns.evaluates_patterns() {
                match self.pattern_match(p, text)? {
                    Ok(true) => {}
                    Ok(false) => {
                        return self.invalid(
                            "pattern",
                            format!(
                                "expected a string matching /{}/, found {}",
                                cut(p),
                                show(&Value::String(text.to_owned()))
                            ),
                        )
                    }
                    Err(e) => {
                        return self.invalid(
                            "pattern",
                            format!("the schema's pattern /{}/ is {e}", cut(p)),
                        )
                    }
                }
            }
        }
        Ok(())
    }

    fn check_array(&mut self, s: &Map, items: &[Value]) -> Checked {
        self.check_len(s, ["minItems", "maxItems"], items.len() as u64, "item")?;
        if s.get("uniqueItems") == Some(&Value::Bool(true)) {
            for (j, later) in items.iter().enumerate() {
                let j32 = u32::try_from(j).unwrap_or(u32::MAX);
                self.tick(j32)?;
                if let Some(i) = items[..j].iter().position(|earlier| earlier == later) {
                    return self.invalid_at(
                        &j.to_string(),
                        "uniqueItems",
                        format!("duplicate of item {i}; the items must be unique"),
                    );
                }
            }
        }
        // Positional schemas: 2020-12 `prefixItems` (then `items` for the rest), or draft-07
        // `items` as an array (then `additionalItems` for the rest).
        let (prefix, rest, rest_rule): (&[Value], Option<&Value>, &'static str) =
            match (s.get("prefixItems"), s.get("items")) {
                (Some(Value::Array(p)), items) => (p.as_slice(), items, "items"),
                (_, Some(Value::Array(p))) => {
                    (p.as_slice(), s.get("additionalItems"), "additionalItems")
                }
                (_, items) => (&[], items, "items"),
            };
        for (i, item) in items.iter().enumerate() {
            let sub = match prefix.get(i) {
                Some(sub) => sub,
                None => match rest {
                    Some(Value::Bool(false)) => {
                        return self.invalid_at(
                            &i.to_string(),
                            rest_rule,
                            format!(
                                "unexpected item: at most {} allowed",
                                plural(prefix.len() as u64, "item")
                            ),
                        );
                    }
                    Some(sub) => sub,
                    None => break,
                },
            };
            let at = self.pointer.len();
            push_index(&mut self.pointer, i);
            let r = self.check(sub, item);
            self.pointer.truncate(at);
            r?;
        }
        if let Some(sub) = s.get("contains") {
            let mut found = false;
            for item in items {
                if self.matches(sub, item)? {
                    found = true;
                    break;
                }
            }
            if !found {
                return self.invalid(
                    "contains",
                    "expected at least one item matching the \"contains\" schema".into(),
                );
            }
        }
        Ok(())
    }

    fn check_object(&mut self, s: &Map, props: &Map) -> Checked {
        if let Some(required) = s.get("required").and_then(Value::as_array) {
            for name in required.iter().filter_map(Value::as_str) {
                if !props.contains_key(name) {
                    return self.invalid_at(
                        name,
                        "required",
                        format!("missing required property {}", quote(name)),
                    );
                }
            }
        }
        self.check_len(
            s,
            ["minProperties", "maxProperties"],
            props.len() as u64,
            "property",
        )?;
        let known = s.get("properties").and_then(Value::as_object);
        if let Some(known) = known {
            for (name, sub) in known {
                if let Some(value) = props.get(name) {
                    self.check_child(name, sub, value)?;
                }
            }
        }
        let evaluates = self.patterns.evaluates_patterns();
        let pattern_props = s.get("patternProperties").and_then(Value::as_object);
        let additional = s.get("additionalProperties");
        if let Some(pattern_props) = pattern_props.filter(|_| evaluates) {
            for (name, value) in props {
                for (p, sub) in pattern_props {
                    if self.key_matches(p, name)? {
                        self.check_child(name, sub, value)?;
                    }
                }
            }
        }
        // Without a regex engine, any name might match a `patternProperties` pattern.
        let skip_additional = !evaluates && pattern_props.is_some_and(|p| !p.is_empty());
        if let Some(sub) = additional.filter(|_| !skip_additional) {
            for (name, value) in props {
                if known.is_some_and(|k| k.contains_key(name)) {
                    continue;
                }
                let mut matched = false;
                for p in pattern_props.iter().flat_map(|m| m.keys()) {
                    if self.key_matches(p, name)? {
                        matched = true;
                        break;
                    }
                }
                if matched {
                    continue;
                }
                if sub == &Value::Bool(false) {
                    let mut message = format!("unexpected property {}", quote(name));
                    if let Some(k) = known.filter(|k| !k.is_empty()) {
                        push(&mut message, "; allowed: ");
                        for (i, n) in k.keys().enumerate() {
                            if i > 0 {
                                push(&mut message, ", ");
                            }
                            if i == 20 {
                                push(&mut message, "...");
                                break;
                            }
                            write_str(&mut message, n);
                        }
                    }
                    return self.invalid_at(name, "additionalProperties", message);
                }
                self.check_child(name, sub, value)?;
            }
        }
        if let Some(sub) = s.get("propertyNames") {
            for name in props.keys() {
                let key = Value::String(name.clone());
                self.check_child(name, sub, &key)?;
            }
        }
        Ok(())
    }

    fn check_child(&mut self, name: &str, sub: &Value, value: &Value) -> Checked {
        let at = self.pointer.len();
        push_key(&mut self.pointer, name);
        let r = self.check(sub, value);
        self.pointer.truncate(at);
        r
    }

    /// Whether `text` matches `p`, within what is left of the patterns' budget: past it, a fatal
    /// `budget` violation (no combinator turns it into a pass).
    fn pattern_match(&mut self, p: &str, text: &str) -> Result<Result<bool, PatternError>, Fail> {
        match self.patterns.is_match(p, text, &mut self.pattern_steps) {
            Err(PatternError::OverBudget { budget }) => Err(self.fatal(
                "budget",
                format!(
                    "matching the pattern /{}/ here would take over the budget of {budget} steps (states × characters) for one validation",
                    cut(p)
                ),
            )),
            other => Ok(other),
        }
    }

    /// Whether property `name` matches `patternProperties` pattern `p`; an invalid pattern is a
    /// violation at the property.
    fn key_matches(&mut self, p: &str, name: &str) -> Result<bool, Fail> {
        match self.pattern_match(p, name)? {
            Ok(m) => Ok(m),
            Err(e) => {
                let r = self.invalid_at(
                    name,
                    "patternProperties",
                    format!("the schema's pattern /{}/ is {e}", cut(p)),
                );
                r.map(|()| false)
            }
        }
    }

    /// Whether `value` matches `schema`; only a fatal failure is an error.
    fn matches(&mut self, schema: &Value, value: &Value) -> Result<bool, Fail> {
        self.attempt(schema, value).map(|r| r.is_none())
    }

    /// Checks without failing: `Ok(None)` if `value` matches, `Ok(Some(violation))` if not.
    fn attempt(&mut self, schema: &Value, value: &Value) -> Result<Option<Violation>, Fail> {
        match self.check(schema, value) {
            Ok(()) => Ok(None),
            Err(Fail::Invalid(v)) => Ok(Some(v)),
            Err(fatal) => Err(fatal),
        }
    }

    fn check_combinators(&mut self, s: &Map, value: &Value) -> Checked {
        if let Some(all) = s.get("allOf").and_then(Value::as_array) {
            for sub in all {
                self.check(sub, value)?;
            }
        }
        if let Some(any) = s.get("anyOf").and_then(Value::as_array) {
            let mut misses = Vec::new();
            for sub in any {
                match self.attempt(sub, value)? {
                    None => {
                        misses.clear();
                        break;
                    }
                    Some(v) => misses.push(v),
                }
            }
            if !misses.is_empty() {
                let message = self.no_match("anyOf", &misses);
                return self.invalid("anyOf", message);
            }
        }
        if let Some(one) = s.get("oneOf").and_then(Value::as_array) {
            let mut misses = Vec::new();
            let mut hits = Vec::new();
            for (i, sub) in one.iter().enumerate() {
                match self.attempt(sub, value)? {
                    None => hits.push(i + 1),
                    Some(v) => misses.push(v),
                }
            }
            match hits.as_slice() {
                [_] => {}
                [] if !misses.is_empty() => {
                    let message = self.no_match("oneOf", &misses);
                    return self.invalid("oneOf", message);
                }
                [] => {}
                [a, b, ..] => {
                    return self.invalid(
                        "oneOf",
                        format!(
                            "expected exactly one schema in oneOf to match, but branches {a} and {b} of {} both match",
                            one.len()
                        ),
                    );
                }
            }
        }
        if let Some(sub) = s.get("not") {
            if self.matches(sub, value)? {
                return self.invalid(
                    "not",
                    "the value matches the schema under \"not\", which is not allowed".into(),
                );
            }
        }
        if let Some(cond) = s.get("if") {
            let branch = if self.matches(cond, value)? {
                s.get("then")
            } else {
                s.get("else")
            };
            if let Some(sub) = branch {
                self.check(sub, value)?;
            }
        }
        Ok(())
    }

    /// The message for an `anyOf` / `oneOf` that no branch matched: the union of the expected
    /// types when every branch failed on `type` right here, else the closest branch's violation.
    fn no_match(&self, keyword: &str, misses: &[Violation]) -> String {
        let here = &self.pointer;
        let mut out = format!("no schema in {keyword} matched");
        let all_type = misses
            .iter()
            .all(|v| v.rule == "type" && &v.pointer == here);
        if all_type {
            let mut expected: Vec<&str> = Vec::new();
            let mut found = "";
            for v in misses {
                if let Some((e, f)) = v
                    .message
                    .strip_prefix("expected ")
                    .and_then(|m| crate::lean::text::split_once(m, ", found "))
                {
                    if !expected.contains(&e) {
                        expected.push(e);
                    }
                    found = f;
                }
            }
            if !expected.is_empty() {
                push(&mut out, ": expected ");
                for (i, e) in expected.iter().enumerate() {
                    if i > 0 {
                        push(&mut out, " or ");
                    }
                    push(&mut out, e);
                }
                push(&mut out, ", found ");
                push(&mut out, found);
                return out;
            }
        }
        // The branch that got furthest: deepest pointer, then one that passed `type` here.
        let depth = |v: &Violation| v.pointer.matches('/').count();
        let mut best = 0;
        for (i, v) in misses.iter().enumerate().skip(1) {
            let b = &misses[best];
            if depth(v) > depth(b) || (depth(v) == depth(b) && b.rule == "type" && v.rule != "type")
            {
                best = i;
            }
        }
        let Some(b) = misses.get(best) else {
            return out;
        };
        let at = if &b.pointer == here {
            String::new()
        } else {
            format!(" at {}", quote(&b.pointer))
        };
        format!(
            "{out}; the closest, branch {} of {}, failed {}{at}: {}",
            best + 1,
            misses.len(),
            b.rule,
            b.message
        )
    }
}

/// Resolves a local reference (`#`, `#/$defs/x`, `#/properties/a~1b`, percent-encoded or not).
fn resolve<'s>(root: &'s Value, r: &str) -> Option<&'s Value> {
    let fragment = percent_decode(r.strip_prefix('#')?)?;
    if fragment.is_empty() {
        return Some(root);
    }
    root.pointer(&fragment)
}

fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_owned());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The JSON Schema type names, and how messages say them.
const TYPES: [(&str, &str); 7] = [
    ("null", "null"),
    ("boolean", "a boolean"),
    ("object", "an object"),
    ("array", "an array"),
    ("number", "a number"),
    ("integer", "an integer"),
    ("string", "a string"),
];

/// The index of a type name in [`TYPES`]. The table is searched behind `black_box`, whose
/// length LLVM cannot see: a plain search of seven entries was unrolled into seven comparisons.
#[inline(never)]
fn type_index(name: &str) -> Option<usize> {
    core::hint::black_box(&TYPES[..])
        .iter()
        .position(|(n, _)| *n == name)
}

fn type_matches(name: &str, v: &Value) -> bool {
    match (type_index(name), v) {
        (Some(0), Value::Null)
        | (Some(1), Value::Bool(_))
        | (Some(2), Value::Object(_))
        | (Some(3), Value::Array(_))
        | (Some(4), Value::Number(_))
        | (Some(6), Value::String(_)) => true,
        (Some(5), Value::Number(n)) => is_integer(n),
        _ => false,
    }
}

fn type_phrase(name: &str) -> &str {
    match type_index(name) {
        Some(i) => TYPES[i].1,
        None => name,
    }
}

fn is_integer(n: &Number) -> bool {
    n.is_whole()
}

/// Numeric order: exact for integers (`i64`, or `u64` beyond it), else as `f64` (so `1 == 1.0`).
fn cmp_num(a: &Number, b: &Number) -> Option<Ordering> {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return Some(x.cmp(&y));
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return Some(x.cmp(&y));
    }
    // A negative integer against one beyond `i64`: `f64` orders them right.
    a.as_f64().partial_cmp(&b.as_f64())
}

fn is_multiple(n: &Number, m: &Number) -> bool {
    if let (Some(x), Some(y)) = (n.as_i64(), m.as_i64()) {
        return y <= 0 || x % y == 0;
    }
    if let (Some(x), Some(y)) = (n.as_u64(), m.as_u64()) {
        return y == 0 || x % y == 0;
    }
    if n.as_i64().is_some() && m.as_u64().is_some() {
        // A negative integer and a divisor beyond `i64`.
        return false;
    }
    let (x, y) = (n.as_f64(), m.as_f64());
    if y <= 0.0 {
        return true; // malformed, rejected by `check_schema`
    }
    let q = x / y;
    q.is_finite() && (q - q.round()).abs() < 1e-9
}

/// A non-negative integer keyword value (`3` or `3.0`).
fn count(v: &Value) -> Option<u64> {
    let n = v.as_number()?;
    n.as_u64().or_else(|| {
        let f = n.as_f64();
        (f >= 0.0 && f.fract() == 0.0 && f < u64::MAX as f64).then_some(f as u64)
    })
}

fn plural(n: u64, noun: &str) -> String {
    match (n, noun) {
        (1, _) => format!("1 {noun}"),
        (_, "property") => format!("{n} properties"),
        _ => format!("{n} {noun}s"),
    }
}

/// What a value is, for messages: `a number (1.5)`, `a string ("abc")`, `an object`, `null`.
fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => format!("a boolean ({v})"),
        Value::Number(_) => format!("a number ({v})"),
        Value::String(_) => format!("a string ({})", show(v)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// A value as compact JSON, cut to about 60 characters.
fn show(v: &Value) -> String {
    let text = v.to_json();
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}...", crate::lean::text::sub(&text, ..cut)),
        None => text,
    }
}

/// A pattern for a message: its first 200 chars, and `...` if there are more.
fn cut(p: &str) -> std::borrow::Cow<'_, str> {
    match p.char_indices().nth(200) {
        Some((at, _)) => format!("{}...", crate::lean::text::sub(p, ..at)).into(),
        None => p.into(),
    }
}

/// A string as a JSON string literal.
fn quote(s: &str) -> String {
    let mut out = String::new();
    write_str(&mut out, s);
    out
}

/// A schema location for `check_schema` messages.
fn place(ptr: &str) -> String {
    if ptr.is_empty() {
        "the root".into()
    } else {
        quote(ptr)
    }
}

/// Appends one RFC 6901 segment: `~` becomes `~0`, `/` becomes `~1`.
fn push_key(ptr: &mut String, key: &str) {
    push(ptr, "/");
    // Runs between the bytes to escape are copied whole (`~` and `/` are ASCII, so every cut is
    // on a char boundary).
    let mut start = 0;
    for (i, b) in key.bytes().enumerate() {
        let escaped = match b {
            b'~' => "~0",
            b'/' => "~1",
            _ => continue,
        };
        push(ptr, key.get(start..i).unwrap_or_default());
        push(ptr, escaped);
        start = i + 1;
    }
    push(ptr, key.get(start..).unwrap_or_default());
}

fn push_index(ptr: &mut String, i: usize) {
    push(ptr, "/");
    push_i64(ptr, i as i64);
}
