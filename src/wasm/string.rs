//! The string bridge: the one way a string of the crate (in the JSON layer's internal form,
//! `crate::json`) reaches JavaScript other than inside JSON text, and the one way a JS string
//! comes in exactly; and the crate's one `JSON.parse` binding. The bottom of the boundary: it uses
//! the JSON layer and `js-sys` only, so the error type, the JS helpers, the browser services and
//! the conversions all build on it (docs/architecture.md, "Strings at the boundary").

use std::cell::RefCell;

use js_sys::{Array, JSON};
use wasm_bindgen::prelude::*;

use crate::json::{quoted, Value};

/// The internal string `s` as the JS string it stands for: the one way a Rust string reaches
/// JavaScript other than inside JSON text. Without a lone surrogate it crosses as UTF-8 (`E E`
/// made U+10FFFF again, [`crate::json::to_js_string`]); with one, as the JSON text the writer
/// makes of it (`\udXXX`), read by the engine's `JSON.parse`: a JS string holding that very code
/// unit, what the page itself would have had.
pub(crate) fn js_string(s: &str) -> JsValue {
    match crate::json::to_js_string(s) {
        Some(text) => JsValue::from_str(&text),
        // The writer's text is valid JSON: `JSON.parse` of it does not throw.
        None => parse_str(&quoted(s)).unwrap_or_default(),
    }
}

/// A JS string as an internal string, exactly: read through JSON (`JSON.stringify`, then the
/// crate's parser), so a lone surrogate is kept (`wasm-bindgen`'s UTF-8 `String` would make it
/// U+FFFD) and a literal U+10FFFF is escaped (never misread as the private form). `None` for
/// anything but a string.
pub(crate) fn string_from_js(value: &JsValue) -> Option<String> {
    let plain = value.as_string()?;
    // wasm-bindgen's UTF-8 copy is exact unless the string held a lone surrogate (then it has a
    // U+FFFD) or U+10FFFF (the private form's marker): only those go through JSON.
    if !plain.contains(['\u{FFFD}', '\u{10FFFF}']) {
        return Some(plain);
    }
    // Not `convert::json_of`: its error is described, and describing comes back here. A `JSON.stringify`
    // that throws (a page replaced it) leaves the UTF-8 copy.
    let exact = JSON::stringify(value)
        .ok()
        .and_then(|text| text.as_string())
        .and_then(|text| Value::parse(&text).ok());
    match exact {
        Some(Value::String(text)) => Some(text),
        _ => Some(plain),
    }
}

thread_local! {
    /// The long string values handed apart since [`long_strings_apart`] turned it on.
    static LONG: RefCell<Option<Array>> = const { RefCell::new(None) };
}

/// The JSON writer's sink ([`crate::json::long_strings`]): the string as a JS string, in order.
fn hand(s: &str) {
    let value = js_string(s);
    LONG.with_borrow_mut(|list| list.get_or_insert_with(Array::new).push(&value));
}

/// Turns on (`true`) or off the writing of long string values apart: while on, the JSON writer
/// hands each string value of [`crate::json::LONG_STRING`] bytes or more (or starting with U+0000)
/// to JavaScript as a string of its own (decoded from UTF-8 once: no escaping, no `JSON.parse` of
/// it) and writes its number in its place. Off, it gives back the strings handed (`None`: none),
/// for [`crate::wasm::script::fill_long`] to put in place in what `JSON.parse` made of the text.
pub(crate) fn long_strings_apart(on: bool) -> Option<Array> {
    crate::json::long_strings(on.then_some(hand as fn(&str)));
    LONG.take()
}

/// `JSON.parse(text)`.
pub(crate) fn parse_str(text: &str) -> Result<JsValue, JsValue> {
    parse_json(&JsValue::from_str(text))
}

#[wasm_bindgen]
extern "C" {
    /// `JSON.parse(text)` of a JS string: the crate's one `JSON.parse` binding (js-sys's takes a
    /// Rust `&str`, which a round's body, a JS string never whole in wasm memory, is not).
    #[wasm_bindgen(catch, js_namespace = JSON, js_name = parse)]
    pub(crate) fn parse_json(text: &JsValue) -> Result<JsValue, JsValue>;
}
