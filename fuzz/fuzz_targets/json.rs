//! The crate's JSON layer against serde_json, over arbitrary text, and JSON Patch atomicity.
//! Properties:
//! - whatever serde_json accepts, `json::parse` accepts, to the same value (serde_json reads our
//!   output back to exactly what it read from the input);
//! - what only `json::parse` accepts is a lone surrogate escape (U+FFFD here, an error there),
//!   nesting deeper than serde_json's 128, or a number beyond f64 (Infinity for `JSON.parse`);
//! - writing and re-parsing gives the same value, and strings are written as serde_json (and
//!   `JSON.stringify`) write them;
//! - a JSON Patch read from the input either applies, or fails and leaves the document as it was;
//! - `parse_tagged_object` (the event reader) accepts what `parse` accepts, to the same object.
#![no_main]

use chat_runtime::json::{parse, parse_tagged_object, patch, Map, Value};
use libfuzzer_sys::fuzz_target;

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
        assert_eq!(value.to_json(), serde_json::to_string(s).unwrap());
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
