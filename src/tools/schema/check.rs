//! [`check_schema`]: a tool's `parameters` vetted once, when the catalog loads (the keywords the
//! validator knows have values of the right JSON type, patterns compile, `$ref`s resolve).

use super::{count, cut, describe, place, push_index, push_key, quote, resolve, show, type_index};
use super::{Value, MAX_DEPTH};
use crate::tools::pattern::Pattern;

/// Checks a tool's `parameters` when the catalog loads: it must be a JSON object (the caller puts
/// `{"type":"object","properties":{}}` in place of an absent one), its `type`, if present, must be
/// `"object"` (tool arguments are an object), every keyword this module knows must have a value of
/// the right JSON type (`required` an array of strings, `properties` an object of schemas,
/// `minLength` a non-negative integer, `pattern` a string, ...), every `pattern` and
/// `patternProperties` name must compile ([`Pattern::new`]: not invalid, refused or too large), and
/// every `$ref` must be local, resolve, and not loop onto itself. Returns a readable reason on
/// failure, naming the pattern.
pub fn check_schema(schema: &Value) -> Result<(), String> {
    if !schema.is_object() {
        return Err(format!(
            "parameters must be a JSON object, found {}",
            describe(schema)
        ));
    }
    if let Some(t) = schema.get("type") {
        if t != "object" {
            return Err(format!(
                "parameters must describe an object (\"type\": \"object\"), found \"type\": {}",
                show(t)
            ));
        }
    }
    walk(schema, schema, &mut String::new(), 0)
}

/// Walks a schema for [`check_schema`]; `ptr` is the schema location being checked.
fn walk(root: &Value, schema: &Value, ptr: &mut String, depth: usize) -> Result<(), String> {
    let s = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(s) => s,
        other => {
            return Err(format!(
                "the schema at {} must be an object or a boolean, found {}",
                place(ptr),
                describe(other)
            ))
        }
    };
    if depth >= MAX_DEPTH {
        return Err(format!(
            "the schema at {} is nested more than {MAX_DEPTH} levels deep",
            place(ptr)
        ));
    }
    let loc = place(ptr);
    for (k, v) in s {
        let bad = |what: &str| {
            Err(format!(
                "{} at {loc} must be {what}, found {}",
                quote(k),
                describe(v)
            ))
        };
        let at = ptr.len();
        push_key(ptr, k);
        let keyword = KEYWORDS
            .iter()
            .find(|(name, _)| name == k)
            .map(|&(_, kw)| kw);
        let result = match keyword {
            Some(Kw::Type) => {
                let names: &[Value] = match v {
                    Value::Array(a) if !a.is_empty() => a,
                    Value::Array(_) => return bad("a type name or a non-empty array of them"),
                    one => std::slice::from_ref(one),
                };
                let known = |n: &Value| n.as_str().and_then(type_index).is_some();
                if names.iter().all(known) {
                    Ok(())
                } else {
                    return bad("one of \"null\", \"boolean\", \"object\", \"array\", \"number\", \"integer\", \"string\" or an array of them");
                }
            }
            Some(Kw::Schemas) => match v {
                Value::Object(m) => m.iter().try_for_each(|(name, sub)| {
                    if k == "patternProperties" {
                        check_pattern(k, &loc, name)?;
                    }
                    let at = ptr.len();
                    push_key(ptr, name);
                    let r = walk(root, sub, ptr, depth + 1);
                    ptr.truncate(at);
                    r
                }),
                _ => return bad("an object of schemas"),
            },
            Some(Kw::Required) => match v {
                Value::Array(a) if a.iter().all(Value::is_string) => Ok(()),
                _ => return bad("an array of strings"),
            },
            Some(Kw::Schema) => walk(root, v, ptr, depth + 1),
            Some(Kw::Items) => match v {
                Value::Array(a) => walk_all(root, a, ptr, depth),
                _ => walk(root, v, ptr, depth + 1),
            },
            Some(Kw::SchemaList) => match v {
                Value::Array(a) if !a.is_empty() => walk_all(root, a, ptr, depth),
                _ => return bad("a non-empty array of schemas"),
            },
            Some(Kw::Enum) => match v {
                Value::Array(a) if !a.is_empty() => Ok(()),
                _ => return bad("a non-empty array"),
            },
            Some(Kw::Count) => match count(v) {
                Some(_) => Ok(()),
                None => return bad("a non-negative integer"),
            },
            Some(Kw::Bound) => match v {
                Value::Number(_) => Ok(()),
                _ => return bad("a number"),
            },
            Some(Kw::ExclusiveBound) => match v {
                Value::Number(_) | Value::Bool(_) => Ok(()),
                _ => return bad("a number"),
            },
            Some(Kw::MultipleOf) => match v.as_f64() {
                Some(m) if m > 0.0 => Ok(()),
                _ => return bad("a number greater than 0"),
            },
            Some(Kw::Pattern) => match v {
                Value::String(p) => check_pattern(k, &loc, p),
                _ => return bad("a string"),
            },
            Some(Kw::UniqueItems) => match v {
                Value::Bool(_) => Ok(()),
                _ => return bad("a boolean"),
            },
            Some(Kw::Ref) => match v {
                Value::String(r) => check_ref(root, r),
                _ => return bad("a string"),
            },
            None => Ok(()),
        };
        ptr.truncate(at);
        result?;
    }
    Ok(())
}

/// A `pattern` (or a `patternProperties` name) `p` of the keyword `k` at `loc` must compile.
fn check_pattern(k: &str, loc: &str, p: &str) -> Result<(), String> {
    match Pattern::new(p) {
        Ok(_) => Ok(()),
        Err(e) => Err(format!(
            "{} at {loc}: the pattern {} is {e}",
            quote(k),
            quote(&cut(p))
        )),
    }
}

/// What [`walk`] checks a keyword's value for.
#[derive(Clone, Copy)]
enum Kw {
    Type,
    Schemas,
    Required,
    Schema,
    Items,
    SchemaList,
    Enum,
    Count,
    Bound,
    ExclusiveBound,
    MultipleOf,
    Pattern,
    UniqueItems,
    Ref,
}

/// The keywords [`walk`] checks, looked up in this table (one loop) rather than by a `match` on
/// the string, which compiled each keyword's comparison inline.
const KEYWORDS: &[(&str, Kw)] = &[
    ("type", Kw::Type),
    ("properties", Kw::Schemas),
    ("patternProperties", Kw::Schemas),
    ("$defs", Kw::Schemas),
    ("definitions", Kw::Schemas),
    ("required", Kw::Required),
    ("additionalProperties", Kw::Schema),
    ("additionalItems", Kw::Schema),
    ("not", Kw::Schema),
    ("if", Kw::Schema),
    ("then", Kw::Schema),
    ("else", Kw::Schema),
    ("contains", Kw::Schema),
    ("propertyNames", Kw::Schema),
    ("items", Kw::Items),
    ("prefixItems", Kw::SchemaList),
    ("allOf", Kw::SchemaList),
    ("anyOf", Kw::SchemaList),
    ("oneOf", Kw::SchemaList),
    ("enum", Kw::Enum),
    ("minLength", Kw::Count),
    ("maxLength", Kw::Count),
    ("minItems", Kw::Count),
    ("maxItems", Kw::Count),
    ("minProperties", Kw::Count),
    ("maxProperties", Kw::Count),
    ("minimum", Kw::Bound),
    ("maximum", Kw::Bound),
    ("exclusiveMinimum", Kw::ExclusiveBound),
    ("exclusiveMaximum", Kw::ExclusiveBound),
    ("multipleOf", Kw::MultipleOf),
    ("pattern", Kw::Pattern),
    ("uniqueItems", Kw::UniqueItems),
    ("$ref", Kw::Ref),
];

fn walk_all(root: &Value, schemas: &[Value], ptr: &mut String, depth: usize) -> Result<(), String> {
    schemas.iter().enumerate().try_for_each(|(i, sub)| {
        let at = ptr.len();
        push_index(ptr, i);
        let r = walk(root, sub, ptr, depth + 1);
        ptr.truncate(at);
        r
    })
}

/// A `$ref` must be local, resolve to a schema, and not lead back through `$ref`s alone (that
/// would check the same value against itself forever).
fn check_ref(root: &Value, r: &str) -> Result<(), String> {
    if !r.starts_with('#') {
        return Err(format!(
            "$ref {} is not local: only references inside the schema (\"#...\") are supported",
            quote(r)
        ));
    }
    let mut target = r;
    for _ in 0..MAX_DEPTH {
        let Some(schema) = resolve(root, target) else {
            return Err(format!("$ref {} does not resolve", quote(target)));
        };
        match schema {
            Value::Object(s) => match s.get("$ref").and_then(Value::as_str) {
                Some(next) => target = next,
                None => return Ok(()),
            },
            Value::Bool(_) => return Ok(()),
            other => {
                return Err(format!(
                    "$ref {} points to {}, not to a schema",
                    quote(target),
                    describe(other)
                ))
            }
        }
    }
    Err(format!(
        "$ref {} leads into a cycle of $refs that never consumes input",
        quote(r)
    ))
}
