//! The crate's JSON layer against serde_json, over arbitrary text, and JSON Patch atomicity.
//! Strings are in the crate's internal form (lone surrogates as `E X`, a literal U+10FFFF as
//! `E E`; `chat_runtime::json` module docs); serde_json, which has neither lone surrogates nor
//! that form, is compared with where both apply, and the JS strings (UTF-16 code units) are
//! checked against an oracle of their own where it does not. Properties:
//! - whatever serde_json accepts, `json::parse` accepts, to the same value (serde_json reads our
//!   output back to exactly what it read from the input: a literal U+10FFFF is written back as
//!   the char);
//! - what only `json::parse` accepts is a lone surrogate escape (kept, as `JSON.parse` keeps it;
//!   an error there), nesting deeper than serde_json's 128, or a number beyond f64 (Infinity for
//!   `JSON.parse`);
//! - writing and re-parsing gives the same value; a string is written as `JSON.stringify` writes
//!   the JS string (`\udXXX` for a lone surrogate), which is serde_json's text when it has none;
//! - a string literal parses to exactly the UTF-16 code units `JSON.parse` gives (own oracle);
//! - `json::push_str` of two strings is the JS concatenation of the two (the halves of a pair
//!   joined), and internal text is read back by `parse_internal` as it is;
//! - a JSON Patch read from the input either applies, or fails and leaves the document as it was;
//! - `parse_tagged_object` (the event reader) accepts what `parse` accepts, to the same object.
#![no_main]

use chat_runtime::json::{
    parse, parse_internal, parse_tagged_object, patch, push_str, to_js_string, Map, Value, ESCAPE,
};
use libfuzzer_sys::fuzz_target;

/// The UTF-16 code units of the JS string an internal string stands for.
fn js_units(s: &str) -> Vec<u16> {
    let mut units = Vec::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == ESCAPE {
            let mut rest = chars.clone();
            match rest.next() {
                Some(ESCAPE) => chars = rest,
                Some(x @ '\u{100000}'..='\u{1007FF}') => {
                    units.push((x as u32 - 0x10_0000 + 0xD800) as u16);
                    chars = rest;
                    continue;
                }
                _ => {}
            }
        }
        let mut buf = [0u16; 2];
        units.extend_from_slice(c.encode_utf16(&mut buf));
    }
    units
}

#[path = "../../tests/common/js_json.rs"]
mod js_json;
use js_json::js_json as stringify;

/// The code units `JSON.parse` gives for a text that is one string literal (`None` when it is
/// not one; validity is the parser's business, this only reads what it accepted).
fn literal_units(text: &str) -> Option<Vec<u16>> {
    let inner = text
        .trim_matches(|c| matches!(c, ' ' | '\n' | '\r' | '\t'))
        .strip_prefix('"')?
        .strip_suffix('"')?;
    let mut units = Vec::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut buf));
            continue;
        }
        units.push(match chars.next()? {
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                u16::from_str_radix(&hex, 16).ok()?
            }
            'b' => 8,
            'f' => 12,
            'n' => 10,
            'r' => 13,
            't' => 9,
            other => other as u16,
        });
    }
    Some(units)
}

fn depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

fn has_surrogate_escape(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    ["\\ud8", "\\ud9", "\\uda", "\\udb", "\\udc", "\\udd", "\\ude", "\\udf"]
        .iter()
        .any(|p| lower.contains(p))
}

fuzz_target!(|input: &[u8]| {
    let Ok(text) = std::str::from_utf8(input) else { return };
    let ours = parse(text);
    let theirs = serde_json::from_str::<serde_json::Value>(text);
    match (&ours, &theirs) {
        (Ok(value), Ok(expected)) => {
            let written = value.to_json();
            let back: serde_json::Value = serde_json::from_str(&written).expect("we write JSON");
            assert_eq!(&back, expected, "{text:?} -> {written:?}");
        }
        (Err(e), Ok(_)) => panic!("{text:?}: serde_json accepts it, we say {e}"),
        // JSON.parse reads `1e400` as Infinity; serde_json refuses it, we keep its text.
        (Ok(_), Err(e)) => assert!(
            has_surrogate_escape(text) || depth(text) > 128 || e.to_string().contains("out of range"),
            "{text:?}: we accept what serde_json refuses ({e})"
        ),
        (Err(_), Err(_)) => {}
    }
    // The event reader's tagged parse agrees with the plain one: same acceptance, and the
    // members with the tag put back in its place are the same object, in the same order.
    match (&ours, parse_tagged_object(text, "type")) {
        (Ok(Value::Object(map)), Ok(Some(tagged))) => {
            let mut members: Vec<(String, Value)> =
                tagged.members.into_iter().map(|(k, v)| (k.into_owned(), v)).collect();
            if let Some((at, tag)) = tagged.tag {
                members.insert(at, ("type".to_owned(), Value::String(tag.into_owned())));
            }
            let rebuilt: Map = members.into_iter().collect();
            assert_eq!(
                Value::Object(rebuilt).to_json(),
                Value::Object(map.clone()).to_json(),
                "{text:?}"
            );
        }
        (Ok(Value::Object(_)), other) => panic!("{text:?}: tagged parse gave {other:?}"),
        (Ok(_), other) => assert!(matches!(other, Ok(None)), "{text:?}: {other:?}"),
        (Err(_), other) => assert!(other.is_err(), "{text:?}: tagged parse accepted it"),
    }
    let Ok(value) = ours else { return };
    assert_eq!(parse(&value.to_json()).as_ref(), Ok(&value), "{text:?}");
    if let Value::String(s) = &value {
        let units = js_units(s);
        assert_eq!(value.to_json(), stringify(&units), "{text:?}");
        if let Some(plain) = to_js_string(s) {
            assert_eq!(value.to_json(), serde_json::to_string(&*plain).unwrap());
        }
        if let Some(expected) = literal_units(text) {
            assert_eq!(
                units, expected,
                "{text:?}: not the code units JSON.parse gives"
            );
        }
        // Internal text (no JSON escapes needed) is read back as it is.
        if !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
            let internal = format!("\"{s}\"");
            assert_eq!(parse_internal(&internal).as_ref(), Ok(&value), "{s:?}");
        }
    }
    // `[a, b]` of strings: `push_str` is the JS concatenation, and its result is canonical.
    if let Some([Value::String(a), Value::String(b)]) = value.as_array().map(Vec::as_slice) {
        let mut joined = a.clone();
        push_str(&mut joined, b);
        let mut units = js_units(a);
        units.extend(js_units(b));
        assert_eq!(js_units(&joined), units, "{a:?} + {b:?}");
        let joined = Value::String(joined);
        assert_eq!(
            parse(&joined.to_json()).as_ref(),
            Ok(&joined),
            "{a:?} + {b:?}"
        );
    }
    // `[document, patch]`: apply, and check that a failure changed nothing.
    if let Value::Array(pair) = value {
        if let Ok([mut doc, ops]) = <[Value; 2]>::try_from(pair) {
            if let Ok(ops) = patch::from_json(ops) {
                let before = doc.clone();
                if patch::apply(&mut doc, &ops).is_err() {
                    assert_eq!(doc.to_json(), before.to_json(), "a failed patch changed the document");
                }
            }
        }
    }
});
